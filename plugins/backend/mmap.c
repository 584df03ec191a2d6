/*
 * mmap.c - the "mmap" backend: the file is mapped MAP_SHARED and I/O is a
 * memcpy out of (read) or into (write) the mapping; sync is msync(MS_SYNC).
 * It measures page-fault driven I/O through the page cache.
 *
 * Two sizes are kept apart:
 *   size     the logical size: the file's size at open, moved by writes
 *            past it and by truncate.  Reads never see past it.
 *   map_len  the size of the mapping, which is also the file's size on disk
 *            while open.  It may be larger than `size`: at open, a writable
 *            handle extends the file to args->size_hint (so a write phase
 *            maps once), and a write past map_len grows the file geometrically
 *            (ftruncate, then a new mapping).  close truncates the file back
 *            to `size` when it was over-extended.
 *
 * Edges:
 *  - An empty file has no mapping (mmap of 0 bytes is an error); reads
 *    return 0 and the first write creates the mapping.
 *  - A read running past `size` returns the bytes up to it; at or past it, 0.
 *  - Only a write that crosses map_len makes system calls (amortised by the
 *    geometric growth, and avoided entirely when size_hint is given).
 *  - Another process truncating the file while it is mapped makes the kernel
 *    raise SIGBUS on access; that is outside what a backend can guard.
 *  - sync does not shrink an over-extended file; close does.
 */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* the build defines _GNU_SOURCE; a lone -std=c11 compile may not */
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iobench/plugin.h"

#define MMAP_NAME "mmap"

struct mmap_file {
	int fd;
	int writable;
	unsigned char *map; /* NULL when map_len == 0 */
	uint64_t map_len;   /* bytes mapped == bytes in the file on disk */
	uint64_t size;      /* logical size */
	uint64_t page;      /* page size, for rounding growth */
};

static const struct iob_host *mmap_host;

IOB_PLUGIN_EXPORT const struct iob_plugin *iob_plugin_entry(const struct iob_host *host);

/* Replace the mapping with one of new_len bytes (none for 0).  The file must
 * already be at least new_len bytes long. */
static int mmap_remap(struct mmap_file *f, uint64_t new_len)
{
	void *p = NULL;

	if (new_len > SIZE_MAX)
		return -EFBIG;
	if (new_len > 0) {
		int prot = PROT_READ | (f->writable ? PROT_WRITE : 0);
		p = mmap(NULL, (size_t)new_len, prot, MAP_SHARED, f->fd, 0);
		if (p == MAP_FAILED)
			return -errno;
	}
	if (f->map)
		munmap(f->map, (size_t)f->map_len);
	f->map = p;
	f->map_len = new_len;
	return 0;
}

/* Set the on-disk size to `len` and map all of it. */
static int mmap_resize(struct mmap_file *f, uint64_t len)
{
	int rc;

	if (len > (uint64_t)INT64_MAX)
		return -EFBIG;
	do {
		rc = ftruncate(f->fd, (off_t)len);
	} while (rc < 0 && errno == EINTR);
	if (rc < 0)
		return -errno;
	return mmap_remap(f, len);
}

/* Make room for `need` bytes: double the mapping (at least a page) until it
 * covers them, rounded up to a page. */
static int mmap_grow(struct mmap_file *f, uint64_t need)
{
	uint64_t len = f->map_len > f->page ? f->map_len : f->page;

	while (len < need) {
		if (len > UINT64_MAX / 2)
			return -EFBIG;
		len *= 2;
	}
	len = (len + f->page - 1) / f->page * f->page;
	return mmap_resize(f, len);
}

static int mmap_setup(struct mmap_file *f, const struct iob_open_args *args)
{
	struct stat st;
	uint64_t on_disk;

	if (fstat(f->fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode)) {
		mmap_host->log(IOB_LOG_ERROR, MMAP_NAME, "%s: only regular files can be mapped", args->path);
		return -EINVAL;
	}
	on_disk = (uint64_t)st.st_size;
	f->size = on_disk;
	if (f->writable && args->size_hint > on_disk)
		return mmap_resize(f, args->size_hint);
	return mmap_remap(f, on_disk);
}

static int mmap_open(const struct iob_open_args *args, void **handle)
{
	struct mmap_file *f;
	uint32_t fl = args->flags;
	int oflags, rc;

	if ((fl & IOB_OPEN_TRUNC) && !(fl & IOB_OPEN_WRITE)) {
		mmap_host->log(IOB_LOG_ERROR, MMAP_NAME, "%s: truncate requested on a read-only open",
			       args->path);
		return -EINVAL;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->writable = (fl & IOB_OPEN_WRITE) != 0;
	f->page = (uint64_t)sysconf(_SC_PAGESIZE);
	if (f->page == 0 || f->page > (1u << 30))
		f->page = 4096;
	/* A shared writable mapping needs a descriptor open for reading too. */
	oflags = (f->writable ? O_RDWR : O_RDONLY) | O_CLOEXEC;
	if (fl & IOB_OPEN_CREATE)
		oflags |= O_CREAT;
	if (fl & IOB_OPEN_TRUNC)
		oflags |= O_TRUNC;
	do {
		f->fd = open(args->path, oflags, (mode_t)args->mode);
	} while (f->fd < 0 && errno == EINTR);
	if (f->fd < 0) {
		rc = -errno;
		free(f);
		return rc;
	}
	rc = mmap_setup(f, args);
	if (rc < 0) {
		mmap_host->log(IOB_LOG_ERROR, MMAP_NAME, "%s: cannot map: %s", args->path, strerror(-rc));
		if (f->map)
			munmap(f->map, (size_t)f->map_len);
		close(f->fd);
		free(f);
		return rc;
	}
	*handle = f;
	return 0;
}

static int mmap_close(void *handle)
{
	struct mmap_file *f = handle;
	int rc = 0;

	if (f->map && munmap(f->map, (size_t)f->map_len) < 0)
		rc = -errno;
	if (f->writable && f->map_len > f->size && ftruncate(f->fd, (off_t)f->size) < 0 && rc == 0) {
		rc = -errno;
		mmap_host->log(IOB_LOG_ERROR, MMAP_NAME, "cannot trim the file back to %" PRIu64 " bytes: %s",
			       f->size, strerror(-rc));
	}
	if (close(f->fd) < 0 && rc == 0)
		rc = -errno;
	free(f);
	return rc;
}

static int64_t mmap_read_at(void *handle, void *buf, size_t len, uint64_t off)
{
	struct mmap_file *f = handle;
	uint64_t n;

	if (off >= f->size)
		return 0;
	n = f->size - off;
	if (n > len)
		n = len;
	if (n > (uint64_t)INT64_MAX)
		n = (uint64_t)INT64_MAX;
	memcpy(buf, f->map + off, (size_t)n);
	return (int64_t)n;
}

static int64_t mmap_write_at(void *handle, const void *buf, size_t len, uint64_t off)
{
	struct mmap_file *f = handle;
	uint64_t end;
	int rc;

	if (!f->writable)
		return -EBADF;
	if (len > (size_t)INT64_MAX || off > (uint64_t)INT64_MAX - len)
		return -EFBIG;
	if (len == 0)
		return 0;
	end = off + len;
	if (end > f->map_len) {
		rc = mmap_grow(f, end);
		if (rc < 0)
			return rc;
	}
	memcpy(f->map + off, buf, len);
	if (end > f->size)
		f->size = end;
	return (int64_t)len;
}

static int mmap_sync(void *handle)
{
	struct mmap_file *f = handle;

	if (f->map && msync(f->map, (size_t)f->map_len, MS_SYNC) < 0)
		return -errno;
	return 0;
}

static int mmap_info(void *handle, struct iob_file_info *info)
{
	struct mmap_file *f = handle;

	info->size = f->size;
	info->mem_align = 1;
	info->io_align = 1;
	info->direct = 0;
	info->is_stream = 0;
	return 0;
}

static int mmap_truncate(void *handle, uint64_t size)
{
	struct mmap_file *f = handle;
	int rc;

	if (!f->writable)
		return -EBADF;
	rc = mmap_resize(f, size);
	if (rc < 0)
		return rc;
	f->size = size;
	return 0;
}

static int mmap_control(void *handle, int op, void *arg)
{
	(void)handle;
	(void)op;
	(void)arg;
	return -ENOTSUP;
}

static const struct iob_backend_ops mmap_ops = {
	.open = mmap_open,
	.close = mmap_close,
	.read_at = mmap_read_at,
	.write_at = mmap_write_at,
	.sync = mmap_sync,
	.info = mmap_info,
	.truncate = mmap_truncate,
	.control = mmap_control,
};

static const struct iob_plugin mmap_plugin = {
	IOB_PLUGIN_HEADER,
	.kind = IOB_PLUGIN_BACKEND,
	.caps = IOB_CAP_READ | IOB_CAP_WRITE | IOB_CAP_SYNC | IOB_CAP_TRUNCATE | IOB_CAP_SIZE_HINT,
	.name = MMAP_NAME,
	.summary = "memcpy to and from a MAP_SHARED mapping; sync is msync",
	.ops_size = sizeof(struct iob_backend_ops),
	.backend = &mmap_ops,
};

IOB_PLUGIN_EXPORT const struct iob_plugin *iob_plugin_entry(const struct iob_host *host)
{
	if (!host || host->abi_major != IOB_ABI_MAJOR)
		return NULL; /* a host of another major: its log cannot be trusted */
	mmap_host = host;
	return &mmap_plugin;
}
