/*
 * fdio.h - file-descriptor helpers shared by the fd-based backends (posix,
 * direct, io_uring, stdio, mmap), compiled into each; nothing is exported.
 * All return -errno on failure.
 */
#ifndef IOB_BACKEND_FDIO_H
#define IOB_BACKEND_FDIO_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "iobench/plugin.h"

/* open(2) flags for IOB_OPEN_* flags (plugin.h's IOB_OPEN_OFLAGS: with
 * O_CLOEXEC; IOB_OPEN_NOFOLLOW is O_NOFOLLOW, so a symlink fails with
 * -ELOOP); -EINVAL for truncate without write. */
int fdio_oflags(uint32_t flags, int *oflags);
/* pread until len bytes or end of file, retrying EINTR.  A transfer whose
 * size has bits in partial_mask (a partial block under O_DIRECT) also ends
 * the read; pass 0 for none.  Inline: a whole transfer at the first call (the
 * common case) is one pread and a compare; anything else goes on in
 * fdio_pread_more with what that first call returned (bytes, or -errno), so
 * the calls made are the same as the loop's. */
#define FDIO_NOT_YET INT64_MIN /* fdio_*_more: no call made yet */

/* A whole read (write 0) or write (1) of len bytes at off, one call of
 * one(ctx, ...) at a time (one returns the bytes it moved, or -errno; -EINTR
 * is tried again; first, when not FDIO_NOT_YET, is what a call already made
 * returned): a read ends at the end of the file or the file's last partial
 * block (partial_mask: io_align - 1); a write at no progress or where the
 * rest would be misaligned, and with the short count at an error after some
 * progress (the error repeats next call).  -EINVAL for a range past
 * INT64_MAX. */
int64_t fdio_whole(int64_t (*one)(void *ctx, int write, char *buf, size_t len, uint64_t off), void *ctx, int write,
		   char *buf, size_t len, uint64_t off, size_t partial_mask, int64_t first);

/* p_truncate of a file type T holding its descriptor in fd: fdio_truncate. */
#define FDIO_FD_TRUNCATE(p, T)                                                                               \
	static int p##_truncate(void *handle, uint64_t size)                                                 \
	{                                                                                                    \
		return fdio_truncate(((T *)handle)->fd, size);                                               \
	}                                                                                                    \
	struct fdio_fd_truncate_defined_ /* takes the caller's semicolon */

/* What a queued backend on a descriptor (libaio, io_uring) does as any fd
 * backend does.  Its file type T has fd, mem_align, io_align, inflight and
 * o.direct; p_check(f, write, buf, len, off) refuses what the file cannot
 * take and p_one(f, write, buf, len, off) moves one request.  Defines
 * p_read_at and p_write_at (the check, -EBUSY while queued requests are in
 * flight, then the whole transfer one request at a time: fdio_whole),
 * p_info (fdio_aligned_info) and p_truncate. */
#define FDIO_QUEUED_FILE(p, T)                                                                               \
	static int64_t p##_rw_at(T *f, int write, char *buf, size_t len, uint64_t off)                       \
	{                                                                                                    \
		int rc = p##_check(f, write, buf, len, off);                                                 \
		if (rc == 0 && f->inflight)                                                                  \
			rc = -EBUSY;                                                                         \
		return rc < 0 ? rc : fdio_whole(p##_one, f, write, buf, len, off, f->io_align - 1, FDIO_NOT_YET); \
	}                                                                                                    \
	static int64_t p##_read_at(void *handle, void *buf, size_t len, uint64_t off)                        \
	{                                                                                                    \
		return p##_rw_at(handle, 0, buf, len, off);                                                  \
	}                                                                                                    \
	static int64_t p##_write_at(void *handle, const void *buf, size_t len, uint64_t off)                 \
	{                                                                                                    \
		return p##_rw_at(handle, 1, (char *)(uintptr_t)buf, len, off);                              \
	}                                                                                                    \
	static int p##_info(void *handle, struct iob_file_info *info)                                        \
	{                                                                                                    \
		T *f = handle;                                                                               \
		return fdio_aligned_info(f->fd, info, f->mem_align, f->io_align, f->o.direct ? 1 : 0);       \
	}                                                                                                    \
	FDIO_FD_TRUNCATE(p, T);                                                                              \
	struct fdio_queued_file_defined_ /* takes the caller's semicolon */

/* The queued backends' submit (libaio, io_uring): takes at most room of the n
 * I/Os (none: -EAGAIN, reap first), each checked and prepared in turn by
 * prep(f, k, io), the k-th of this call (0, or -errno: it and the ones after
 * it are left to the caller).  Returns how many were prepared, or, when the
 * first was refused, its error.  Inline, so prep is too. */
static inline int fdio_submit_each(void *f, struct iob_io *const *ios, size_t n, size_t room,
				   int (*prep)(void *f, size_t k, struct iob_io *io))
{
	size_t k;
	int rc = 0;

	if (n > room)
		n = room;
	if (n == 0)
		return -EAGAIN;
	for (k = 0; k < n; k++) {
		rc = prep(f, k, ios[k]);
		if (rc < 0)
			break;
	}
	return k == 0 ? rc : (int)k;
}

/* What a write-only backend on a descriptor (falloc, ftruncate, e4defrag)
 * does as any fd backend.  Its file type T has fd.  Defines p_read_at
 * (-EINVAL: without IOB_CAP_READ the core never calls it), p_sync, p_info
 * (a buffered file's, fdio_buffered_info, with the size fdio_size finds)
 * and p_truncate. */
#define FDIO_WRITE_ONLY_FILE(p, T)                                                                           \
	static int64_t p##_read_at(void *handle, void *buf, size_t len, uint64_t off)                        \
	{                                                                                                    \
		(void)handle;                                                                                \
		(void)buf;                                                                                   \
		(void)len;                                                                                   \
		(void)off;                                                                                   \
		return -EINVAL;                                                                              \
	}                                                                                                    \
	static int p##_sync(void *handle)                                                                    \
	{                                                                                                    \
		return fdio_sync(((T *)handle)->fd);                                                         \
	}                                                                                                    \
	static int p##_info(void *handle, struct iob_file_info *info)                                        \
	{                                                                                                    \
		T *f = handle;                                                                               \
		int rc = fdio_buffered_info(f->fd, info, 0);                                                 \
		return rc < 0 ? rc : fdio_size(f->fd, &info->size, &info->is_stream);                        \
	}                                                                                                    \
	FDIO_FD_TRUNCATE(p, T);                                                                              \
	struct fdio_write_only_file_defined_ /* takes the caller's semicolon */

/* pread(2) and pwrite(2) for the inline first call.  On x86-64 Linux the
 * system call is made here (the same pread64/pwrite64 call, as strace shows
 * it): libc's wrapper and the registers a call through it makes the caller
 * save cost more user-space instructions than the rest of a cached 4 KiB
 * read's path.  Sanitizer builds keep libc's, whose interceptors check the
 * buffer, and so does a build with -DIOB_NO_RAW_SYSCALL.  Returns the bytes
 * moved or -errno (errno is not set). */
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__SANITIZE_ADDRESS__) &&         \
	!defined(__SANITIZE_THREAD__) && !defined(IOB_NO_RAW_SYSCALL)
#include <sys/syscall.h>
static inline int64_t fdio_sys_prw(long nr, int fd, const void *buf, size_t len, uint64_t off)
{
	long ret;
	register long r10 __asm__("r10") = (long)off;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(nr), "D"((long)fd), "S"(buf), "d"(len), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}
#define fdio_first_pread(fd, buf, len, off) fdio_sys_prw(SYS_pread64, fd, buf, len, off)
#define fdio_first_pwrite(fd, buf, len, off) fdio_sys_prw(SYS_pwrite64, fd, buf, len, off)
#else
static inline int64_t fdio_first_pread(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pread(fd, buf, len, (off_t)off);
	return n < 0 ? -errno : n;
}
static inline int64_t fdio_first_pwrite(int fd, const void *buf, size_t len, uint64_t off)
{
	ssize_t n = pwrite(fd, buf, len, (off_t)off);
	return n < 0 ? -errno : n;
}
#endif
int64_t fdio_pread_more(int fd, void *buf, size_t len, uint64_t off, size_t partial_mask, int64_t first);
static inline int64_t fdio_pread_full(int fd, void *buf, size_t len, uint64_t off, size_t partial_mask)
{
	if (__builtin_expect(len - 1 < (size_t)INT64_MAX - off && off <= (uint64_t)INT64_MAX, 1)) {
		int64_t n = fdio_first_pread(fd, buf, len, off);
		if (__builtin_expect(n == (int64_t)len, 1))
			return n;
		return fdio_pread_more(fd, buf, len, off, partial_mask, n);
	}
	return fdio_pread_more(fd, buf, len, off, partial_mask, FDIO_NOT_YET); /* len 0, or out of range */
}
/* pwrite until len bytes, retrying EINTR; after partial progress an error or
 * a zero-byte write returns the short count (the error repeats next call).
 * Inline for the first call, as fdio_pread_full. */
int64_t fdio_pwrite_more(int fd, const void *buf, size_t len, uint64_t off, size_t partial_mask, int64_t first);
static inline int64_t fdio_pwrite_full(int fd, const void *buf, size_t len, uint64_t off, size_t partial_mask)
{
	if (__builtin_expect(len - 1 < (size_t)INT64_MAX - off && off <= (uint64_t)INT64_MAX, 1)) {
		int64_t n = fdio_first_pwrite(fd, buf, len, off);
		if (__builtin_expect(n == (int64_t)len, 1))
			return n;
		return fdio_pwrite_more(fd, buf, len, off, partial_mask, n);
	}
	return fdio_pwrite_more(fd, buf, len, off, partial_mask, FDIO_NOT_YET);
}
int fdio_sync(int fd);
int fdio_truncate(int fd, uint64_t size);
/* A backend's close: close(2) on fd (not retried on EINTR: on Linux the
 * descriptor is gone), then free(file).  0, or -errno from close. */
int fdio_close_free(int fd, void *file);
/* Size of a regular file or block device; 0 for anything else, with
 * *is_stream set for pipes, character devices and sockets. */
int fdio_size(int fd, uint64_t *size, uint32_t *is_stream);
/* Fill the ABI 1.1 members of info (file_type, dev, ino) from fstat on the
 * open descriptor, when the core's struct has them; `stream` forces
 * IOB_FILE_STREAM (standard input read sequentially). */
int fdio_identity(int fd, struct iob_file_info *info, int stream);
/* The info of a buffered backend's file up to its size (posix, stdio): no
 * alignment, not direct, the identity (fdio_identity); for standard input
 * also size 0 and is_stream, and then 1 (nothing more to find).  0 when the
 * size is still to be found, or -errno. */
int fdio_buffered_info(int fd, struct iob_file_info *info, int stream);
/* The info of a file opened on fd for aligned I/O (direct, io_uring): its
 * size and identity, the two alignments, direct, and is_stream as
 * fdio_size finds it.  0 or -errno. */
int fdio_aligned_info(int fd, struct iob_file_info *info, uint32_t mem_align, uint32_t io_align, uint32_t direct);
/* A read of len bytes at off from standard input, which is read in order
 * (posix, stdio): an offset behind *pos is refused (-ESPIPE, one log line
 * as plugin who); the bytes up to off are read into buf and dropped; then
 * len bytes are read.  fill(file, buf, n) reads up to n bytes (fewer only at
 * the end of the input), adds them to *pos and returns how many, 0 at the
 * end, or -errno.  The bytes read at off, 0 at the end, or -errno. */
int64_t fdio_stream_read(const struct iob_host *host, const char *who, const uint64_t *pos, void *buf, size_t len,
			 uint64_t off, int64_t (*fill)(void *file, void *buf, size_t n), void *file);
/* A queued backend's depth (libaio, io_uring): args->queue_depth (1 from a
 * core too old to say, and for 0), at most max; above it, one info line as
 * plugin who that holder ("the ring") holds max and submit accepts no more
 * in flight. */
uint32_t fdio_queue_depth(const struct iob_host *host, const char *who, const struct iob_open_args *args,
			  uint32_t max, const char *holder);
/* Open path with oflags and mode, retrying EINTR; the descriptor or -errno. */
int fdio_open(const char *path, int oflags, uint32_t mode);

/* O_DIRECT (direct, io_uring direct=1).  The buffer and offset/length
 * alignment direct I/O on fd needs, as powers of two of at least 512: the
 * file system's answer (statx STATX_DIOALIGN), else the logical block size of
 * the device behind it (BLKSSZGET), else 4096; *how says which. */
void fdio_dio_alignment(int fd, uint32_t *mem, uint32_t *io, const char **how);
/* fdio_dio_alignment, with a debug line naming path, both alignments and
 * where they came from, logged as plugin who. */
void fdio_find_alignment(const struct iob_host *host, const char *who, int fd, const char *path, uint32_t *mem,
			 uint32_t *io);
/* -EINVAL for a truncate without write, logged ("PATH: truncate requested
 * on a read-only open", as plugin who); else 0. */
int fdio_check_flags(const struct iob_host *host, const char *who, const struct iob_open_args *args);
/* fdio_oflags for args; a truncate without write is logged ("PATH: truncate
 * requested on a read-only open", as plugin who) and -EINVAL. */
int fdio_open_flags(const struct iob_host *host, const char *who, const struct iob_open_args *args, int *oflags);
/* Nonzero when path (or the directory a new file would go in) is on a memory
 * file system (tmpfs, ramfs: its page cache is the storage, nothing can
 * bypass it); device nodes are exempt (/dev is a devtmpfs, the disk behind
 * /dev/sda is not), and so is a symlink that IOB_OPEN_NOFOLLOW refuses. */
int fdio_on_memory_fs(const char *path, uint32_t flags);
/* -EINVAL, logged as plugin who, when args->path is on a memory file system
 * (fdio_on_memory_fs: O_DIRECT cannot bypass its page cache); else 0. */
int fdio_direct_refused(const struct iob_host *host, const char *who, const struct iob_open_args *args);
/* A backend's descriptor (posix, io_uring, libaio): args->path opened with
 * oflags (fdio_open_flags), O_DIRECT added with direct (EINVAL then logged:
 * the file system refuses it), then POSIX_FADV_RANDOM with fadvise_random
 * (a failure logged and the descriptor closed).  The descriptor or -errno. */
int fdio_open_file(const struct iob_host *host, const char *who, const struct iob_open_args *args, int oflags,
		     int direct, int fadvise_random);
/* Refuse a transfer O_DIRECT cannot do (buffer address, offset or length not
 * a multiple of the alignments), with one log line through host naming
 * `who` and `what` ("direct read"); -EINVAL, or 0. */
int fdio_dio_check(const struct iob_host *host, const char *who, const char *what, uint32_t mem_align,
		   uint32_t io_align, const void *buf, size_t len, uint64_t off);

#endif
