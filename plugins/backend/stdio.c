/*
 * stdio.c - the "stdio" backend: a buffered C stream driven with fopen,
 * fseeko, fread, fwrite and fflush, as the legacy io_profile did.  It
 * measures the C library's buffering on top of the page cache.
 *
 * Edges:
 *  - Open: one open(2) with the IOB_OPEN_* flags mapped to O_CREAT, O_TRUNC
 *    and O_NOFOLLOW (so args->mode is honoured and a symlink fails with
 *    -ELOOP), then fdopen "r" for reading only or "r+" for writing.
 *  - The stream position is tracked, and fseeko is skipped when the next I/O
 *    starts where the last one ended in the same direction.  Changing between
 *    reading and writing always seeks, as ISO C requires.
 *  - read_at loops over fread until len bytes or end of file (short = EOF).
 *  - Path "-" is standard input: read-only and sequential.  Reading at the
 *    current position works, an offset behind it returns -ESPIPE, one ahead
 *    of it is reached by reading and discarding into the caller's buffer.
 *    stdin is never closed.  A read of it that a signal interrupts returns
 *    -EINTR (a pipe may stay silent forever; the host stops there).
 *  - sync is fflush + fsync(fileno); truncate flushes first, then ftruncate.
 *  - info() takes file_type, dev and ino from fstat on the stream's
 *    descriptor.
 *  - Backend options: none.  Any key is refused with -EINVAL, at
 *    IOB_CTL_CHECK_OPTIONS and at open.
 */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* the build defines _GNU_SOURCE; a lone -std=c11 compile may not */
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iobench/plugin.h"
#include "bopts.h"
#include "fdio.h"

#define STDIO_NAME "stdio"

enum stdio_dir {
	STDIO_NONE = 0,
	STDIO_READ = 1,
	STDIO_WRITE = 2,
};

struct stdio_file {
	FILE *fp;
	int stream;        /* nonzero: fp is stdin */
	int pos_known;     /* pos is where fp stands */
	uint64_t pos;      /* stream position after the last I/O */
	enum stdio_dir last; /* direction of the last I/O */
};

static const struct iob_host *stdio_host;

static int stdio_err(int fallback)
{
	return errno ? -errno : -fallback;
}

static int stdio_option(void *ctx, const char *key, const char *val)
{
	(void)ctx;
	(void)val;
	return bopts_unknown(stdio_host, STDIO_NAME, key, NULL);
}

/* One open(2) (so args->mode, O_NOFOLLOW and O_CLOEXEC apply), then a stream
 * on the descriptor: "r" for reading only, "r+" for writing, which never
 * truncates by itself. */
static FILE *stdio_fopen(const struct iob_open_args *args)
{
	int writing = (args->flags & IOB_OPEN_WRITE) != 0;
	int oflags = O_CLOEXEC | (writing ? O_RDWR : O_RDONLY);
	FILE *fp;
	int fd, saved;

	if (args->flags & IOB_OPEN_CREATE)
		oflags |= O_CREAT;
	if (args->flags & IOB_OPEN_TRUNC)
		oflags |= O_TRUNC;
	if (args->flags & IOB_OPEN_NOFOLLOW)
		oflags |= O_NOFOLLOW;
	fd = fdio_open(args->path, oflags, args->mode);
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	fp = fdopen(fd, writing ? "r+" : "r");
	if (!fp) {
		saved = errno;
		close(fd);
		errno = saved;
	}
	return fp;
}

static int stdio_open(const struct iob_open_args *args, void **handle)
{
	struct stdio_file *f;
	int rc;

	rc = bopts_each(bopts_of(args), stdio_host, STDIO_NAME, stdio_option, NULL);
	if (rc < 0)
		return rc;
	rc = fdio_check_flags(stdio_host, STDIO_NAME, args);
	if (rc < 0)
		return rc;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	if (args->path[0] == '-' && args->path[1] == '\0') {
		if (args->flags & (IOB_OPEN_WRITE | IOB_OPEN_CREATE)) {
			stdio_host->log(IOB_LOG_ERROR, STDIO_NAME, "\"-\" (standard input) can only be read");
			free(f);
			return -EINVAL;
		}
		f->fp = stdin;
		f->stream = 1;
		f->pos_known = 1;
		clearerr(stdin);
		*handle = f;
		return 0;
	}
	errno = 0;
	f->fp = stdio_fopen(args);
	if (!f->fp) {
		rc = stdio_err(EIO);
		free(f);
		return rc;
	}
	f->pos_known = 1; /* every mode above starts at offset 0 */
	*handle = f;
	return 0;
}

static int stdio_close(void *handle)
{
	struct stdio_file *f = handle;
	int rc = 0;

	if (f->stream) {
		clearerr(stdin);
	} else {
		errno = 0;
		if (fclose(f->fp) == EOF)
			rc = stdio_err(EIO);
	}
	free(f);
	return rc;
}

/* Put the stream at `off` for I/O in direction `dir`, seeking only if needed. */
static int stdio_seek(struct stdio_file *f, uint64_t off, enum stdio_dir dir)
{
	if (f->pos_known && f->pos == off && (f->last == dir || f->last == STDIO_NONE)) {
		f->last = dir;
		return 0;
	}
	if (off > (uint64_t)INT64_MAX)
		return -EINVAL;
	errno = 0;
	if (fseeko(f->fp, (off_t)off, SEEK_SET) != 0) {
		f->pos_known = 0;
		return stdio_err(EIO);
	}
	f->pos = off;
	f->pos_known = 1;
	f->last = dir;
	return 0;
}

/* fread until len bytes or end of file; EINTR is retried, except on
 * standard input. */
static int64_t stdio_fill(struct stdio_file *f, void *buf, size_t len)
{
	size_t done = 0, n;

	while (done < len) {
		errno = 0;
		n = fread((char *)buf + done, 1, len - done, f->fp);
		done += n;
		f->pos += n;
		if (done == len)
			break;
		if (ferror(f->fp)) {
			int rc = stdio_err(EIO);
			clearerr(f->fp);
			if (rc == -EINTR && !f->stream)
				continue;
			f->pos_known = 0;
			return rc;
		}
		if (feof(f->fp)) {
			clearerr(f->fp); /* glibc keeps EOF sticky; a later read may find more */
			break;
		}
	}
	return (int64_t)done;
}

static int64_t stdio_stream_fill(void *file, void *buf, size_t len)
{
	return stdio_fill(file, buf, len);
}

/* Standard input: reach `off` by discarding into buf, then fill. */
static int64_t stdio_stream_read(struct stdio_file *f, void *buf, size_t len, uint64_t off)
{
	return fdio_stream_read(stdio_host, STDIO_NAME, &f->pos, buf, len, off, stdio_stream_fill, f);
}

static int64_t stdio_read_at(void *handle, void *buf, size_t len, uint64_t off)
{
	struct stdio_file *f = handle;
	int rc;

	if (f->stream)
		return stdio_stream_read(f, buf, len, off);
	rc = stdio_seek(f, off, STDIO_READ);
	if (rc < 0)
		return rc;
	return stdio_fill(f, buf, len);
}

static int64_t stdio_write_at(void *handle, const void *buf, size_t len, uint64_t off)
{
	struct stdio_file *f = handle;
	size_t n;
	int rc;

	if (f->stream)
		return -EBADF;
	rc = stdio_seek(f, off, STDIO_WRITE);
	if (rc < 0)
		return rc;
	errno = 0;
	n = fwrite(buf, 1, len, f->fp);
	f->pos += n;
	if (n < len) {
		rc = stdio_err(EIO);
		clearerr(f->fp);
		f->pos_known = 0;
		if (n == 0)
			return rc;
	}
	return (int64_t)n;
}

static int stdio_sync(void *handle)
{
	struct stdio_file *f = handle;

	if (f->stream)
		return 0; /* nothing was written */
	errno = 0;
	if (fflush(f->fp) == EOF)
		return stdio_err(EIO);
	if (fsync(fileno(f->fp)) < 0)
		return -errno;
	return 0;
}

static int stdio_info(void *handle, struct iob_file_info *info)
{
	struct stdio_file *f = handle;
	struct stat st;
	int rc;

	rc = fdio_buffered_info(fileno(f->fp), info, f->stream);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	errno = 0;
	if (f->last == STDIO_WRITE && fflush(f->fp) == EOF) /* let fstat see buffered writes */
		return stdio_err(EIO);
	if (fstat(fileno(f->fp), &st) < 0)
		return -errno;
	info->size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
	return 0;
}

static int stdio_truncate(void *handle, uint64_t size)
{
	struct stdio_file *f = handle;

	if (f->stream)
		return -EBADF;
	if (size > (uint64_t)INT64_MAX)
		return -EFBIG;
	errno = 0;
	if (fflush(f->fp) == EOF)
		return stdio_err(EIO);
	if (ftruncate(fileno(f->fp), (off_t)size) < 0)
		return -errno;
	f->pos_known = 0; /* drop any read-ahead of the old contents at the next I/O */
	return 0;
}

static int stdio_control(void *handle, int op, void *arg)
{
	return bopts_control(handle, op, arg, stdio_host, STDIO_NAME, stdio_option, NULL, NULL);
}

static const struct iob_backend_ops stdio_ops = {BOPTS_FILE_OPS(stdio)};

IOB_BACKEND_PLUGIN(stdio_host, STDIO_NAME, "buffered C streams (fopen/fseek/fread/fwrite), as io_profile used",
		   IOB_CAP_READ | IOB_CAP_WRITE | IOB_CAP_SYNC | IOB_CAP_TRUNCATE | IOB_CAP_STREAM, &stdio_ops);
