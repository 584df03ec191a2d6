/*
 * fdio.c - file-descriptor helpers for the fd-based backends (fdio.h).
 */
#include "fdio.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/magic.h>
#include <linux/fs.h>
#include <sys/vfs.h>
#include <sys/sysmacros.h>
#include <sys/ioctl.h>
#include <string.h>
#include <stdio.h>

int fdio_oflags(uint32_t flags, int *oflags)
{
	if ((flags & IOB_OPEN_TRUNC) && !(flags & IOB_OPEN_WRITE))
		return -EINVAL;
	*oflags = IOB_OPEN_OFLAGS(flags);
	return 0;
}

int64_t fdio_whole(int64_t (*one)(void *ctx, int write, char *buf, size_t len, uint64_t off), void *ctx, int write,
		   char *buf, size_t len, uint64_t off, size_t partial_mask, int64_t first)
{
	size_t done = 0;
	if (off > (uint64_t)INT64_MAX || len > (size_t)INT64_MAX - off)
		return -EINVAL;
	while (done < len) {
		int64_t n = first;
		first = FDIO_NOT_YET;
		if (n == FDIO_NOT_YET)
			n = one(ctx, write, buf + done, len - done, off + done);
		if (n == -EINTR)
			continue;
		if (n < 0) {
			if (write && done > 0)
				break;
			return n;
		}
		done += (size_t)n;
		if (n == 0 || ((size_t)n & partial_mask) != 0)
			break;
	}
	return (int64_t)done;
}

/* One pread (write 0) or pwrite (1) on the descriptor ctx points to. */
static int64_t fdio_one(void *ctx, int write, char *buf, size_t len, uint64_t off)
{
	int fd = *(const int *)ctx;
	ssize_t got = write ? pwrite(fd, buf, len, (off_t)off) : pread(fd, buf, len, (off_t)off);
	return got < 0 ? -errno : got;
}

static int64_t fdio_more(int fd, int write, char *buf, size_t len, uint64_t off, size_t partial_mask, int64_t first)
{
	return fdio_whole(fdio_one, &fd, write, buf, len, off, partial_mask, first);
}

int64_t fdio_pread_more(int fd, void *buf, size_t len, uint64_t off, size_t partial_mask, int64_t first)
{
	return fdio_more(fd, 0, buf, len, off, partial_mask, first);
}

int64_t fdio_pwrite_more(int fd, const void *buf, size_t len, uint64_t off, size_t partial_mask, int64_t first)
{
	return fdio_more(fd, 1, (char *)(uintptr_t)buf, len, off, partial_mask, first);
}

int fdio_aligned_info(int fd, struct iob_file_info *info, uint32_t mem_align, uint32_t io_align, uint32_t direct)
{
	uint32_t stream;
	int rc = fdio_size(fd, &info->size, &stream);

	if (rc == 0)
		rc = fdio_identity(fd, info, 0);
	if (rc < 0)
		return rc;
	info->mem_align = mem_align;
	info->io_align = io_align;
	info->direct = direct;
	info->is_stream = stream;
	return 0;
}

int fdio_sync(int fd)
{
	return fsync(fd) < 0 ? -errno : 0;
}

int fdio_close_free(int fd, void *file)
{
	int rc = close(fd) < 0 ? -errno : 0;
	free(file);
	return rc;
}

int fdio_truncate(int fd, uint64_t size)
{
	int rc;
	if (size > (uint64_t)INT64_MAX)
		return -EFBIG;
	do {
		rc = ftruncate(fd, (off_t)size);
	} while (rc < 0 && errno == EINTR);
	return rc < 0 ? -errno : 0;
}

int fdio_size(int fd, uint64_t *size, uint32_t *is_stream)
{
	struct stat st;
	*size = 0;
	*is_stream = 0;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISREG(st.st_mode)) {
		*size = (uint64_t)st.st_size;
	} else if (S_ISBLK(st.st_mode)) {
		off_t end = lseek(fd, 0, SEEK_END);
		if (end < 0)
			return -errno;
		*size = (uint64_t)end;
	} else {
		*is_stream = S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISSOCK(st.st_mode);
	}
	return 0;
}

int fdio_identity(int fd, struct iob_file_info *info, int stream)
{
	size_t need = offsetof(struct iob_file_info, ino) + sizeof(info->ino);
	struct stat st;

	if (info->struct_size < need)
		return 0; /* a 1.0 core: it has no room for them */
	if (fstat(fd, &st) < 0)
		return -errno;
	if (stream || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
		info->file_type = IOB_FILE_STREAM;
	else if (S_ISREG(st.st_mode))
		info->file_type = IOB_FILE_REGULAR;
	else if (S_ISBLK(st.st_mode))
		info->file_type = IOB_FILE_BLOCKDEV;
	else if (S_ISCHR(st.st_mode))
		info->file_type = isatty(fd) ? IOB_FILE_STREAM : IOB_FILE_CHARDEV;
	else
		info->file_type = IOB_FILE_OTHER;
	info->dev = (uint64_t)st.st_dev;
	info->ino = (uint64_t)st.st_ino;
	return 0;
}

int fdio_open(const char *path, int oflags, uint32_t mode)
{
	int fd;

	do {
		fd = open(path, oflags, (mode_t)mode);
	} while (fd < 0 && errno == EINTR);
	return fd < 0 ? -errno : fd;
}

uint32_t fdio_queue_depth(const struct iob_host *host, const char *who, const struct iob_open_args *args,
			  uint32_t max, const char *holder)
{
	size_t need = offsetof(struct iob_open_args, queue_depth) + sizeof(args->queue_depth);
	uint32_t qd = args->struct_size >= need ? args->queue_depth : 1;

	if (qd > max) {
		host->log(IOB_LOG_INFO, who,
			  "queue depth %" PRIu32 " is above %u: %s holds %u, and submit accepts no more in flight", qd,
			  max, holder, max);
		qd = max;
	}
	return qd ? qd : 1;
}

/* ---- O_DIRECT probes (fdio.h) ---- */

static uint32_t fdio_pow2_at_least(uint32_t v)
{
	uint32_t p = 512u;

	while (p < v && p < (1u << 30))
		p <<= 1;
	return p;
}

/* Step 1: the file system's answer, when kernel and headers have one. */
static int fdio_align_statx(int fd, uint32_t *mem, uint32_t *io)
{
#if defined(STATX_DIOALIGN) && defined(AT_EMPTY_PATH)
	struct statx sx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 && (sx.stx_mask & STATX_DIOALIGN) &&
	    sx.stx_dio_offset_align != 0) {
		*io = sx.stx_dio_offset_align;
		*mem = sx.stx_dio_mem_align > *io ? sx.stx_dio_mem_align : *io;
		return 0;
	}
#endif
	return -ENOTSUP;
}

/* Step 2: the logical block size of the block device behind fd. */
static int fdio_align_blkssz(int fd, uint32_t *mem, uint32_t *io)
{
#if defined(__linux__) && defined(BLKSSZGET)
	struct stat st;
	char dev[64];
	int bfd, ssz = 0, rc;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISBLK(st.st_mode)) {
		rc = ioctl(fd, BLKSSZGET, &ssz);
	} else {
		snprintf(dev, sizeof(dev), "/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
		bfd = open(dev, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (bfd < 0)
			return -errno;
		rc = ioctl(bfd, BLKSSZGET, &ssz);
		close(bfd);
	}
	if (rc < 0 || ssz <= 0)
		return -ENOTSUP;
	*mem = *io = (uint32_t)ssz;
	return 0;
#else
	return -ENOTSUP;
#endif
}

void fdio_dio_alignment(int fd, uint32_t *mem, uint32_t *io, const char **how)
{
	*mem = *io = 0;
	*how = "statx(STATX_DIOALIGN)";
	if (fdio_align_statx(fd, mem, io) < 0) {
		*how = "BLKSSZGET";
		if (fdio_align_blkssz(fd, mem, io) < 0) {
			*how = "default, device not queryable";
			*mem = *io = 4096;
		}
	}
	*mem = fdio_pow2_at_least(*mem);
	*io = fdio_pow2_at_least(*io);
}

int fdio_buffered_info(int fd, struct iob_file_info *info, int stream)
{
	info->mem_align = 1;
	info->io_align = 1;
	info->direct = 0;
	int rc = fdio_identity(fd, info, stream);
	if (rc < 0 || !stream)
		return rc < 0 ? rc : 0;
	info->size = 0;
	info->is_stream = 1;
	return 1;
}

int64_t fdio_stream_read(const struct iob_host *host, const char *who, const uint64_t *pos, void *buf, size_t len,
			 uint64_t off, int64_t (*fill)(void *file, void *buf, size_t n), void *file)
{
	if (off < *pos) {
		host->log(IOB_LOG_ERROR, who,
			  "standard input is read sequentially: offset %" PRIu64 " is behind position %" PRIu64, off,
			  *pos);
		return -ESPIPE;
	}
	if (len == 0)
		return 0;
	while (*pos < off) {
		uint64_t gap = off - *pos;
		int64_t n = fill(file, buf, gap < len ? (size_t)gap : len);
		if (n <= 0)
			return n;
	}
	return fill(file, buf, len);
}

int fdio_direct_refused(const struct iob_host *host, const char *who, const struct iob_open_args *args)
{
	if (!fdio_on_memory_fs(args->path, args->flags))
		return 0;
	host->log(IOB_LOG_ERROR, who,
		  "O_DIRECT not supported on %s's file system: it is a memory file system (tmpfs/ramfs), whose "
		  "page cache is the storage; use a disk-backed file system",
		  args->path);
	return -EINVAL;
}

int fdio_open_file(const struct iob_host *host, const char *who, const struct iob_open_args *args, int oflags,
		     int direct, int fadvise_random)
{
	int fd = fdio_open(args->path, oflags | (direct ? O_DIRECT : 0), args->mode), rc;

	if (fd == -EINVAL && direct)
		host->log(IOB_LOG_ERROR, who,
			  "O_DIRECT not supported on %s's file system; use a file on a disk-backed file system, or "
			  "drop direct=1 and accept the page cache",
			  args->path);
	if (fd >= 0 && fadvise_random && (rc = posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM)) != 0) {
		host->log(IOB_LOG_ERROR, who, "%s: fadvise_random: posix_fadvise failed", args->path);
		close(fd);
		return -rc;
	}
	return fd;
}

/* Nonzero when path (or, for a file still to be created, its directory)
 * lives on a memory file system.  Device nodes are exempt: /dev itself is a
 * devtmpfs, the disk behind /dev/sda is not. */
int fdio_on_memory_fs(const char *path, uint32_t flags)
{
#if defined(__linux__) && defined(TMPFS_MAGIC) && defined(RAMFS_MAGIC)
	struct statfs sf;
	struct stat st;
	char dir[4096];
	char *slash;

	if ((flags & IOB_OPEN_NOFOLLOW) && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		return 0; /* open refuses it with -ELOOP */
	if (stat(path, &st) == 0) {
		if (S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode))
			return 0;
		if (statfs(path, &sf) != 0)
			return 0;
	} else {
		if (errno != ENOENT || strlen(path) >= sizeof(dir))
			return 0;
		memcpy(dir, path, strlen(path) + 1);
		slash = strrchr(dir, '/');
		if (!slash)
			memcpy(dir, ".", 2);
		else if (slash == dir)
			dir[1] = '\0';
		else
			*slash = '\0';
		if (statfs(dir, &sf) != 0)
			return 0;
	}
	return sf.f_type == TMPFS_MAGIC || sf.f_type == RAMFS_MAGIC;
#else
	(void)path;
	(void)flags;
	return 0;
#endif
}

int fdio_dio_check(const struct iob_host *host, const char *who, const char *what, uint32_t mem_align,
		   uint32_t io_align, const void *buf, size_t len, uint64_t off)
{
	if (((uintptr_t)buf & (mem_align - 1)) != 0) {
		host->log(IOB_LOG_ERROR, who, "%s refused: buffer address %p is not a multiple of %" PRIu32, what,
			  buf, mem_align);
		return -EINVAL;
	}
	if ((off & (io_align - 1)) != 0) {
		host->log(IOB_LOG_ERROR, who, "%s refused: offset %" PRIu64 " is not a multiple of %" PRIu32, what,
			  off, io_align);
		return -EINVAL;
	}
	if ((len & (io_align - 1)) != 0) {
		host->log(IOB_LOG_ERROR, who, "%s refused: length %zu is not a multiple of %" PRIu32, what, len,
			  io_align);
		return -EINVAL;
	}
	return 0;
}

void fdio_find_alignment(const struct iob_host *host, const char *who, int fd, const char *path, uint32_t *mem,
			 uint32_t *io)
{
	const char *how;
	fdio_dio_alignment(fd, mem, io, &how);
	host->log(IOB_LOG_DEBUG, who, "%s: alignment %" PRIu32 " (buffer), %" PRIu32 " (offset, length) from %s", path,
		  *mem, *io, how);
}

int fdio_check_flags(const struct iob_host *host, const char *who, const struct iob_open_args *args)
{
	if ((args->flags & IOB_OPEN_TRUNC) && !(args->flags & IOB_OPEN_WRITE)) {
		host->log(IOB_LOG_ERROR, who, "%s: truncate requested on a read-only open", args->path);
		return -EINVAL;
	}
	return 0;
}

int fdio_open_flags(const struct iob_host *host, const char *who, const struct iob_open_args *args, int *oflags)
{
	int rc = fdio_check_flags(host, who, args);
	return rc < 0 ? rc : fdio_oflags(args->flags, oflags);
}
