/*
 * null.c - the "null" backend: moves no bytes and touches no file.  Every
 * request completes at once with its full length, so a phase on it measures
 * the tool (the engine's loop, its clock reads and histograms, the queue)
 * and nothing of storage: the ceiling of the framework itself, as fio's
 * ioengine=null is fio's.
 *
 *  - open() opens nothing: the path is only a name, never created, read or
 *    checked (the core skips its target checks for IOB_CAP_NOSTORAGE).
 *  - read_at() returns len and leaves the buffer as it was; write_at()
 *    returns len and reads nothing of the buffer.  A verify phase on it
 *    fails (there is no data to compare): use read and write phases.
 *  - info() reports a regular file of 2^62 bytes (size_hint when a write
 *    phase gives one), so a read phase covers the job's size.
 *  - submit/reap (IOB_CAP_ASYNC) at any depth: submit takes up to the
 *    open's queue_depth minus those in flight, reap hands them back in
 *    submission order, each with result = len, and never waits.
 *  - sync and truncate succeed and do nothing.
 *  - Backend options: none; any key is refused with -EINVAL.
 * IOB_CAP_NOSTORAGE makes the core report the storage counts (read_bytes,
 * write_bytes, rchar, wchar) as not measured and add a note to every run
 * that the figures measure the tool, not storage.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "iobench/plugin.h"
#include "../bopts.h"

#define NULL_NAME "null"
#define NULL_SIZE ((uint64_t)1 << 62)

struct null_file {
	uint64_t size;
	size_t depth;	     /* room in ring[] */
	size_t head, count; /* oldest I/O in flight, and how many are */
	struct iob_io **ring;
};

static const struct iob_host *null_host;

IOB_PLUGIN_EXPORT const struct iob_plugin *iob_plugin_entry(const struct iob_host *host);

static int null_option(void *ctx, const char *key, const char *val)
{
	(void)ctx;
	(void)val;
	return bopts_unknown(null_host, NULL_NAME, key, NULL);
}

static int null_open(const struct iob_open_args *args, void **handle)
{
	struct null_file *f;
	int rc = bopts_each(bopts_of(args), null_host, NULL_NAME, null_option, NULL);

	if (rc < 0)
		return rc;
	if ((args->flags & IOB_OPEN_TRUNC) && !(args->flags & IOB_OPEN_WRITE)) {
		null_host->log(IOB_LOG_ERROR, NULL_NAME, "%s: truncate requested on a read-only open", args->path);
		return -EINVAL;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->size = args->size_hint ? args->size_hint : NULL_SIZE;
	f->depth = 1;
	if (args->struct_size >= offsetof(struct iob_open_args, queue_depth) + sizeof args->queue_depth &&
	    args->queue_depth > 1)
		f->depth = args->queue_depth;
	f->ring = calloc(f->depth, sizeof(*f->ring));
	if (!f->ring) {
		free(f);
		return -ENOMEM;
	}
	*handle = f;
	return 0;
}

static int null_close(void *handle)
{
	struct null_file *f = handle;

	free(f->ring);
	free(f);
	return 0;
}

static int64_t null_read_at(void *handle, void *buf, size_t len, uint64_t off)
{
	(void)handle;
	(void)buf;
	(void)off;
	return (int64_t)len;
}

static int64_t null_write_at(void *handle, const void *buf, size_t len, uint64_t off)
{
	(void)handle;
	(void)buf;
	(void)off;
	return (int64_t)len;
}

static int null_sync(void *handle)
{
	(void)handle;
	return 0;
}

static int null_info(void *handle, struct iob_file_info *info)
{
	struct null_file *f = handle;

	info->size = f->size;
	info->mem_align = 1;
	info->io_align = 1;
	if (info->struct_size >= offsetof(struct iob_file_info, file_type) + sizeof info->file_type)
		info->file_type = IOB_FILE_REGULAR;
	return 0;
}

static int null_truncate(void *handle, uint64_t size)
{
	struct null_file *f = handle;

	f->size = size;
	return 0;
}

static int null_submit(void *handle, struct iob_io *const *ios, size_t n)
{
	struct null_file *f = handle;
	size_t room = f->depth - f->count, i;

	if (n > room)
		n = room;
	for (i = 0; i < n; i++) {
		ios[i]->result = (int64_t)ios[i]->len;
		f->ring[(f->head + f->count + i) % f->depth] = ios[i];
	}
	f->count += n;
	return (int)n;
}

static int null_reap(void *handle, struct iob_io **done, size_t min, size_t max)
{
	struct null_file *f = handle;
	size_t n = f->count < max ? f->count : max, i;

	(void)min; /* every I/O in flight is finished: min <= in flight <= n or max */
	for (i = 0; i < n; i++) {
		done[i] = f->ring[f->head];
		f->head = f->head + 1 == f->depth ? 0 : f->head + 1;
	}
	f->count -= n;
	return (int)n;
}

static int null_control(void *handle, int op, void *arg)
{
	(void)handle;
	if (op == IOB_CTL_CHECK_OPTIONS)
		return bopts_each(arg, null_host, NULL_NAME, null_option, NULL);
	return -ENOTSUP;
}

static const struct iob_backend_ops null_ops = {BOPTS_QUEUED_OPS(null)};

IOB_BACKEND_PLUGIN(null_host, NULL_NAME, "moves no bytes, completes every request at once: measures the tool, not storage",
		   IOB_CAP_READ | IOB_CAP_WRITE | IOB_CAP_SYNC | IOB_CAP_TRUNCATE | IOB_CAP_ASYNC | IOB_CAP_UNCOUNTED |
			   IOB_CAP_NOSTORAGE,
		   &null_ops);
