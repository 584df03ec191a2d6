/*
 * fspace.c - two backends that change a file's space or length instead of
 * moving data, for fio's ioengine=falloc and ioengine=ftruncate (docs/fio.md):
 *
 *  - "falloc" (this file as built by default): every write_at(buf, len, off)
 *    is one fallocate(2) of [off, off + len), whose mode the backend option
 *    `write` chooses:
 *      write=alloc  mode 0: allocate, growing the file (fio's write);
 *      write=keep   FALLOC_FL_KEEP_SIZE: allocate, the length unchanged
 *                   (fio's read);
 *      write=punch  FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE: free the
 *                   range, the length unchanged (fio's trim).
 *    Each of the three changes the file, so all are writes for the core
 *    (its checks of a written file apply); there is no read_at.
 *  - "ftruncate" (built with -DIOB_FSPACE_FTRUNCATE): every write_at(buf,
 *    len, off) is one ftruncate(2) of the file to off (fio: "sets the file's
 *    size to the current block offset"; len is not used).  No options.
 *
 * Common to both:
 *  - The buffer is never read; a call returns len (the request is done
 *    whole) or -errno of the system call.
 *  - No byte passes through read(2) or write(2) nor goes to storage:
 *    IOB_CAP_UNCOUNTED and IOB_CAP_NODATA (the kernel's rchar/wchar and
 *    storage counts are reported as not measured).
 *  - Opened with open(2) from the IOB_OPEN_* flags (O_NOFOLLOW with
 *    IOB_OPEN_NOFOLLOW), never O_DIRECT: no data moves, so there is no page
 *    cache to bypass.  sync is fsync(2); info from fstat on the descriptor.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fallocate and its FALLOC_FL_* modes */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/falloc.h>
#endif

#include "iobench/plugin.h"
#include "bopts.h"
#include "fdio.h"

#ifdef IOB_FSPACE_FTRUNCATE
#define FS_NAME "ftruncate"
#define FS_KNOWN NULL
#else
#define FS_NAME "falloc"
#define FS_KNOWN "write"
#endif

struct fs_file {
	int fd;
	int mode; /* falloc: the fallocate mode of a write */
};

static const struct iob_host *fs_host;

static int fs_option(void *ctx, const char *key, const char *val)
{
	int scratch, *mode = ctx ? ctx : &scratch;
#ifndef IOB_FSPACE_FTRUNCATE
	if (strcmp(key, "write") == 0) {
		if (strcmp(val, "alloc") == 0)
			*mode = 0;
		else if (strcmp(val, "keep") == 0)
			*mode = FALLOC_FL_KEEP_SIZE;
		else if (strcmp(val, "punch") == 0)
			*mode = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
		else {
			fs_host->log(IOB_LOG_ERROR, FS_NAME, "backend option write='%s' is not alloc, keep or punch", val);
			return -EINVAL;
		}
		return 0;
	}
#else
	(void)mode;
	(void)val;
#endif
	return bopts_unknown(fs_host, FS_NAME, key, FS_KNOWN);
}

static int fs_open(const struct iob_open_args *args, void **handle)
{
	struct fs_file *f;
	int oflags, fd, mode = 0;
	int rc = bopts_each(bopts_of(args), fs_host, FS_NAME, fs_option, &mode);

	if (rc < 0)
		return rc;
	if (args->path[0] == '-' && args->path[1] == '\0') {
		fs_host->log(IOB_LOG_ERROR, FS_NAME, "\"-\" (standard input) has no space to change");
		return -EINVAL;
	}
	if ((rc = fdio_open_flags(fs_host, FS_NAME, args, &oflags)) < 0)
		return rc;
	if (!(f = calloc(1, sizeof *f)))
		return -ENOMEM;
	if ((fd = fdio_open(args->path, oflags, args->mode)) < 0) {
		free(f);
		return fd;
	}
	f->fd = fd;
	f->mode = mode;
	*handle = f;
	return 0;
}

static int fs_close(void *handle)
{
	return fdio_close_free(((struct fs_file *)handle)->fd, handle);
}

static int64_t fs_write_at(void *handle, const void *buf, size_t len, uint64_t off)
{
	struct fs_file *f = handle;

	(void)buf;
	if (off > (uint64_t)INT64_MAX || len > (size_t)INT64_MAX - off)
		return -EINVAL;
#ifdef IOB_FSPACE_FTRUNCATE
	while (ftruncate(f->fd, (off_t)off) < 0)
		if (errno != EINTR)
			return -errno;
#else
	if (len == 0)
		return 0; /* fallocate refuses an empty range */
	while (fallocate(f->fd, f->mode, (off_t)off, (off_t)len) < 0)
		if (errno != EINTR)
			return -errno;
#endif
	return (int64_t)len;
}

FDIO_WRITE_ONLY_FILE(fs, struct fs_file);

static int fs_control(void *handle, int op, void *arg)
{
	return bopts_control(handle, op, arg, fs_host, FS_NAME, fs_option, NULL, NULL);
}

static const struct iob_backend_ops fs_ops = {BOPTS_FILE_OPS(fs)};

#ifdef IOB_FSPACE_FTRUNCATE
IOB_BACKEND_PLUGIN(fs_host, FS_NAME, "each write is ftruncate(2) of the file to its offset (fio's ioengine=ftruncate)",
		   IOB_CAP_WRITE | IOB_CAP_SYNC | IOB_CAP_TRUNCATE | IOB_CAP_UNCOUNTED | IOB_CAP_NODATA, &fs_ops);
#else
static const struct iob_option_decl fs_options[] = {
	{.name = "write", .type = IOB_OPT_WORD, .def = "alloc", .words = "alloc|keep|punch",
	 .help = "a write's fallocate mode: 0 (alloc), KEEP_SIZE (keep), PUNCH_HOLE|KEEP_SIZE (punch)"},
};
IOB_BACKEND_PLUGIN_OPTIONS(fs_host, FS_NAME, "each write is fallocate(2) of its range: allocate or punch (fio's ioengine=falloc)",
			   IOB_CAP_WRITE | IOB_CAP_SYNC | IOB_CAP_TRUNCATE | IOB_CAP_UNCOUNTED | IOB_CAP_NODATA, &fs_ops, fs_options);
#endif
