/*
 * direct.c - the "direct" backend: pread(2)/pwrite(2) on a descriptor opened
 * with O_DIRECT, so I/O moves between the device and the caller's buffer
 * without the page cache.  This is what "bypass the buffer cache" must mean:
 * a request the kernel could only serve through the cache is refused, never
 * quietly served from it.
 *
 * Alignment (reported by info() as both mem_align and io_align, and checked
 * before every request) is worked out once, at open, in this order:
 *   1. statx(STATX_DIOALIGN) (Linux 6.1+, when the headers define it): the
 *      file system's own answer; io_align = stx_dio_offset_align and
 *      mem_align = the larger of stx_dio_mem_align and that.  Requiring the
 *      buffer to follow the offset alignment too is stricter than some
 *      kernels need, but it is what every kernel accepts and keeps one number
 *      in the user's head: the device's logical block size.
 *   2. ioctl(BLKSSZGET), the logical block size, on the target itself when it
 *      is a block device, else on /dev/block/MAJ:MIN of the device holding the
 *      file (usually needs root; skipped when it cannot be opened).
 *   3. 4096, which covers every common logical block size (512 and 4096).
 * Values below 512 are raised to 512.
 *
 * Edges:
 *  - open fails with -EINVAL and "O_DIRECT not supported on <path>'s file
 *    system" where the file system refuses O_DIRECT, and also on tmpfs and
 *    ramfs even where the kernel accepts the flag (Linux 6.6+ does for
 *    tmpfs): their page cache is the storage, so nothing can bypass it and
 *    the figures would be memory speed.  The check looks at the file system
 *    before opening, so no file is created there.  There is no buffered
 *    fallback.
 *  - A misaligned buffer address, offset or length makes read_at/write_at
 *    return -EINVAL with one log line naming the value and the alignment; the
 *    kernel is not called and the buffer is not touched.
 *  - A read reaching end of file inside the final block returns the short
 *    count the kernel gives; reads at or past the end return 0.
 *  - Files whose size is not a block multiple are made by writing whole
 *    blocks and truncating.
 *  - IOB_OPEN_NOFOLLOW opens with O_NOFOLLOW: a symlink fails with -ELOOP.
 *    info() takes file_type, dev and ino from fstat on the open descriptor.
 *  - Backend options: dsync=0|1 (default 0).  dsync=1 adds O_DSYNC, so each
 *    write returns only once its data (and the metadata needed to read it
 *    back) is on stable storage: with O_DIRECT that is the device's own
 *    write cache flushed or bypassed, not just the transfer done (io_profile
 *    -b uses it).  Any other key is refused with -EINVAL, at
 *    IOB_CTL_CHECK_OPTIONS and at open.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_DIRECT, statx; the build defines it, a lone compile may not */
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <string.h>
#ifdef __linux__
#include <linux/fs.h>    /* BLKSSZGET */
#include <linux/magic.h> /* TMPFS_MAGIC, RAMFS_MAGIC */
#include <sys/vfs.h>
#endif

#include "iobench/plugin.h"
#include "bopts.h"
#include "fdio.h"

#define DIRECT_NAME "direct"

struct direct_file {
	int fd;
	uint32_t mem_align; /* buffer address alignment, a power of two */
	uint32_t io_align;  /* offset and length alignment, a power of two */
};

static const struct iob_host *direct_host;

static int direct_oflags(const struct iob_open_args *args, int *oflags)
{
	int rc = fdio_open_flags(direct_host, DIRECT_NAME, args, oflags);
	*oflags |= O_DIRECT;
	return rc;
}

struct direct_opts {
	int dsync;
};

static const struct iob_option_decl direct_options[] = {
	{.name = "dsync", .type = IOB_OPT_BOOL, .def = "0",
	 .help = "open with O_DSYNC as well: a write returns once its data is on stable storage"},
};

static int direct_option(void *ctx, const char *key, const char *val)
{
	struct direct_opts *o = ctx;
	if (strcmp(key, "dsync") == 0)
		return bopts_bool(direct_host, DIRECT_NAME, key, val, &o->dsync);
	return bopts_unknown(direct_host, DIRECT_NAME, key, "dsync=0|1");
}

static int direct_open(const struct iob_open_args *args, void **handle)
{
	struct direct_file *f;
	struct direct_opts opts = {0};
	int oflags, fd, rc;

	rc = bopts_each(bopts_of(args), direct_host, DIRECT_NAME, direct_option, &opts);
	if (rc < 0)
		return rc;
	rc = direct_oflags(args, &oflags);
	if (rc < 0)
		return rc;
	if (opts.dsync)
		oflags |= O_DSYNC;
	if (fdio_direct_refused(direct_host, DIRECT_NAME, args))
		return -EINVAL;
	fd = fdio_open(args->path, oflags, args->mode);
	if (fd < 0) {
		rc = fd;
		if (rc == -EINVAL)
			direct_host->log(
			    IOB_LOG_ERROR, DIRECT_NAME,
			    "O_DIRECT not supported on %s's file system; use a file on a disk-backed "
			    "file system, or a buffered backend and accept the page cache",
			    args->path);
		return rc;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	f->fd = fd;
	fdio_find_alignment(direct_host, DIRECT_NAME, f->fd, args->path, &f->mem_align, &f->io_align);
	*handle = f;
	return 0;
}

static int direct_close(void *handle)
{
	return fdio_close_free(((struct direct_file *)handle)->fd, handle);
}

/* Refuse what O_DIRECT cannot do; one log line on refusal, nothing otherwise. */
static int direct_check(const struct direct_file *f, const char *what, const void *buf, size_t len,
			uint64_t off)
{
	if (off > (uint64_t)INT64_MAX || len > (size_t)INT64_MAX - off)
		return -EINVAL;
	return fdio_dio_check(direct_host, DIRECT_NAME, what, f->mem_align, f->io_align, buf, len, off);
}

static int64_t direct_read_at(void *handle, void *buf, size_t len, uint64_t off)
{
	struct direct_file *f = handle;
	int rc = direct_check(f, "direct read", buf, len, off);

	/* a count that is not a block multiple ended in the file's last,
	 * partial block: nothing follows it */
	return rc < 0 ? rc : fdio_pread_full(f->fd, buf, len, off, f->io_align - 1);
}

static int64_t direct_write_at(void *handle, const void *buf, size_t len, uint64_t off)
{
	struct direct_file *f = handle;
	int rc = direct_check(f, "direct write", buf, len, off);

	return rc < 0 ? rc : fdio_pwrite_full(f->fd, buf, len, off, f->io_align - 1);
}

static int direct_sync(void *handle)
{
	struct direct_file *f = handle;

	/* O_DIRECT skips the page cache, not the device's write cache or the
	 * file system's metadata: fsync is still what makes data durable. */
	return fdio_sync(f->fd);
}

static int direct_info(void *handle, struct iob_file_info *info)
{
	struct direct_file *f = handle;
	int rc = fdio_aligned_info(f->fd, info, f->mem_align, f->io_align, 1);

	info->is_stream = 0;
	return rc;
}

static int direct_truncate(void *handle, uint64_t size)
{
	struct direct_file *f = handle;

	return fdio_truncate(f->fd, size);
}

static int direct_control(void *handle, int op, void *arg)
{
	struct direct_opts opts = {0};
	return bopts_control(handle, op, arg, direct_host, DIRECT_NAME, direct_option, &opts, NULL);
}

BOPTS_PLUGIN(direct, DIRECT_NAME, "O_DIRECT pread/pwrite, bypassing the page cache; aligned I/O only",
	     IOB_CAP_READ | IOB_CAP_WRITE | IOB_CAP_SYNC | IOB_CAP_DIRECT | IOB_CAP_ALIGNED |
		 IOB_CAP_TRUNCATE,
	     BOPTS_FILE_OPS(direct));
