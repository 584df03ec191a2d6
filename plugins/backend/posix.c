/*
 * posix.c - the "posix" backend: a file descriptor driven with open(2),
 * pread(2), pwrite(2), fsync(2), fstat(2) and ftruncate(2).  I/O goes
 * through the page cache.
 *
 * Edges:
 *  - read_at loops until len bytes or end of file, so a short count always
 *    means end of file; EINTR is retried, except on standard input.
 *  - write_at keeps writing while the kernel makes progress; a call that makes
 *    none (or fails after some bytes went out) ends the loop and the bytes
 *    written so far are returned, so the error shows on the next call.
 *  - Path "-" is standard input (fd 0), read-only and strictly sequential via
 *    read(2): an offset behind the current position returns -ESPIPE, one
 *    ahead of it is reached by reading and discarding into the caller's
 *    buffer.  fd 0 is never closed.  A read of it that a signal interrupts
 *    returns -EINTR (a pipe may stay silent forever; the host stops there).
 *  - Block devices report their size with lseek(SEEK_END).
 *  - IOB_OPEN_NOFOLLOW opens with O_NOFOLLOW: a symlink fails with -ELOOP.
 *    info() takes file_type, dev and ino from fstat on the open descriptor.
 *  - Backend options: fadvise_random=0|1 (default 0): posix_fadvise
 *    POSIX_FADV_RANDOM on the descriptor after open, which turns the
 *    kernel's readahead off for it (fio's fadvise_hint for random jobs).
 *    Any other key is refused with -EINVAL, at IOB_CTL_CHECK_OPTIONS and at
 *    open.
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
#include <sys/stat.h>
#include <unistd.h>

#include "iobench/plugin.h"
#include "bopts.h"
#include "fdio.h"

#define POSIX_NAME "posix"

struct posix_file {
	int fd;
	int stream;   /* nonzero: fd is standard input, read sequentially */
	uint64_t pos; /* stream only: bytes consumed from standard input */
};

static const struct iob_host *posix_host;

static const struct iob_option_decl posix_options[] = {
	{.name = "fadvise_random", .type = IOB_OPT_BOOL, .def = "0",
	 .help = "posix_fadvise(POSIX_FADV_RANDOM) after open: no readahead"},
};

static int posix_option(void *ctx, const char *key, const char *val)
{
	int scratch, *random = ctx ? ctx : &scratch;
	if (strcmp(key, "fadvise_random") == 0)
		return bopts_bool(posix_host, POSIX_NAME, key, val, random);
	return bopts_unknown(posix_host, POSIX_NAME, key, "fadvise_random");
}

static int posix_open_stream(const struct iob_open_args *args, void **handle)
{
	if (args->flags & (IOB_OPEN_WRITE | IOB_OPEN_CREATE | IOB_OPEN_TRUNC)) {
		posix_host->log(IOB_LOG_ERROR, POSIX_NAME, "\"-\" (standard input) can only be read");
		return -EINVAL;
	}
	struct posix_file *f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->fd = STDIN_FILENO;
	f->stream = 1;
	*handle = f;
	return 0;
}

static int posix_open(const struct iob_open_args *args, void **handle)
{
	struct posix_file *f;
	int oflags, rc, random = 0;

	rc = bopts_each(bopts_of(args), posix_host, POSIX_NAME, posix_option, &random);
	if (rc < 0)
		return rc;
	if (args->path[0] == '-' && args->path[1] == '\0')
		return posix_open_stream(args, handle);
	rc = fdio_open_flags(posix_host, POSIX_NAME, args, &oflags);
	if (rc < 0)
		return rc;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->fd = fdio_open_file(posix_host, POSIX_NAME, args, oflags, 0, random);
	if (f->fd < 0) {
		rc = f->fd;
		free(f);
		return rc;
	}
	*handle = f;
	return 0;
}

static int posix_close(void *handle)
{
	struct posix_file *f = handle;

	if (!f->stream)
		return fdio_close_free(f->fd, f);
	free(f); /* standard input stays open */
	return 0;
}

/* Standard input: read until len or EOF, counting what was consumed. */
static int64_t posix_stream_fill(void *file, void *buf, size_t len)
{
	struct posix_file *f = file;
	size_t done = 0;

	while (done < len) {
		ssize_t n = read(f->fd, (char *)buf + done, len - done);
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += (size_t)n;
		f->pos += (uint64_t)n;
	}
	return (int64_t)done;
}

/* Standard input: reach `off` by discarding, then read until len or EOF. */
__attribute__((noinline)) static int64_t posix_stream_read(struct posix_file *f, void *buf, size_t len, uint64_t off)
{
	return fdio_stream_read(posix_host, POSIX_NAME, &f->pos, buf, len, off, posix_stream_fill, f);
}

static int64_t posix_read_at(void *handle, void *buf, size_t len, uint64_t off)
{
	struct posix_file *f = handle;

	if (f->stream)
		return posix_stream_read(f, buf, len, off);
	return fdio_pread_full(f->fd, buf, len, off, 0);
}

static int64_t posix_write_at(void *handle, const void *buf, size_t len, uint64_t off)
{
	struct posix_file *f = handle;

	if (f->stream)
		return -EBADF;
	return fdio_pwrite_full(f->fd, buf, len, off, 0);
}

static int posix_sync(void *handle)
{
	struct posix_file *f = handle;

	return f->stream ? 0 : fdio_sync(f->fd); /* nothing was written to stdin */
}

static int posix_info(void *handle, struct iob_file_info *info)
{
	struct posix_file *f = handle;
	int rc;

	rc = fdio_buffered_info(f->fd, info, f->stream);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	return fdio_size(f->fd, &info->size, &info->is_stream);
}

static int posix_truncate(void *handle, uint64_t size)
{
	struct posix_file *f = handle;

	return f->stream ? -EBADF : fdio_truncate(f->fd, size);
}

static int posix_control(void *handle, int op, void *arg)
{
	return bopts_control(handle, op, arg, posix_host, POSIX_NAME, posix_option, NULL, NULL);
}

BOPTS_PLUGIN(posix, POSIX_NAME, "pread/pwrite on a file descriptor, through the page cache",
	     IOB_CAP_READ | IOB_CAP_WRITE | IOB_CAP_SYNC | IOB_CAP_TRUNCATE | IOB_CAP_STREAM,
	     BOPTS_FILE_OPS(posix));
