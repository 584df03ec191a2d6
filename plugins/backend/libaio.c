/*
 * libaio.c - the "libaio" backend: reads and writes through Linux native AIO
 * (io_setup, io_submit, io_getevents; Debian's libaio), one AIO context per
 * handle.  fio's ioengine=libaio runs on it.
 *
 * Two ways in, on the same context:
 *  - read_at/write_at (the synchronous engine): one iocb submitted with
 *    io_submit and its completion waited for with io_getevents; a short count
 *    is asked again for the rest, with posix's rules (a read is short only at
 *    end of file; a write returns what went out before an error).
 *  - submit/reap (IOB_CAP_ASYNC, the queued engine): submit hands up to the
 *    context's free slots to the kernel in one io_submit and returns how many
 *    it took; reap waits in io_getevents until at least `min` completions
 *    are there and hands back up to `max`, each with iob_io.result set to
 *    what the kernel said (bytes, a short count as it is, or -errno) and
 *    iob_io.user untouched.  io_getevents consumes nothing when it fails, so
 *    -EINTR leaves every I/O in flight.
 *  The two must not overlap: read_at/write_at/sync with I/Os in flight
 *  return -EBUSY.  The context holds open_args.queue_depth requests (0 or 1
 *  -> 1, at most 4096: a larger depth is clamped, and submit never accepts
 *  more than it holds).
 *
 * Linux AIO is asynchronous only for O_DIRECT.  A buffered request (direct=0,
 * the default) is done inside io_submit, copy and all, before io_submit
 * returns, as fio's documentation says of its libaio engine: at any depth a
 * buffered job has one I/O in progress at a time, and the depth only batches
 * the system calls.  With direct=1 the requests go to the device and
 * complete later, so the depth is real.
 *
 * Options (backend_options, "k=v,..."; IOB_CTL_CHECK_OPTIONS checks them):
 *  - direct=0|1   O_DIRECT.  info() reports direct = 1 and the alignment per
 *                 handle, worked out as the direct backend does; tmpfs and
 *                 ramfs are refused before anything is created; a misaligned
 *                 request gets -EINVAL and one log line, the kernel uncalled.
 *  - fadvise_random=0|1  posix_fadvise POSIX_FADV_RANDOM after open (fio's
 *                 fadvise_hint for random jobs).
 *
 * A queued I/O with a priority (iob_io.ioprio, IOB_CAP_IOPRIO) carries it in
 * its iocb's aio_reqprio with IOCB_FLAG_IOPRIO set (strace shows both in
 * io_submit's iocbs); one without it goes at the thread's priority.
 *
 * sync is fsync(2) on the descriptor: Linux AIO's IOCB_CMD_FSYNC is refused
 * by most file systems (EINVAL), and fio's libaio engine syncs the same way.
 * The kernel's per-process rchar/wchar never see AIO (IOB_CAP_UNCOUNTED).
 * The context is set up before the file is opened, so a refusal (io_setup
 * failing: EAGAIN when /proc/sys/fs/aio-max-nr is reached, ENOSYS without
 * AIO) creates nothing; there is no fallback to another method.
 *
 * Contexts are kept for reuse.  io_destroy waits for an RCU grace period
 * (31 ms on this project's VM), and a phase ends at its last close, so a
 * close that destroyed its context put that wait inside the phase's time.
 * A close whose context has nothing in flight hands it to a small pool
 * (AIO_POOL contexts, each remembering how many requests it holds); an open
 * takes the smallest pooled context that holds its depth, and sets up a new
 * one only when none does.  A context with requests it could not reap, one
 * made by another process (after a fork), or one the pool has no room for
 * is destroyed at its close as before.  The pool's contexts are destroyed
 * when the plugin is unloaded (its destructor: at the registry's dlclose at
 * the end of a run, or at exit for a built-in plugin), outside any phase,
 * all at once: one grace period there, however many were pooled.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_DIRECT; the build defines it, a lone compile may not */
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libaio.h>

#ifndef IOCB_FLAG_IOPRIO
#define IOCB_FLAG_IOPRIO (1 << 1) /* linux/aio_abi.h's, which libaio.h does not include */
#endif

#include "iobench/plugin.h"
#include "bopts.h"
#include "fdio.h"

#define AIO_NAME "libaio"
#define AIO_MAX_DEPTH 4096u
#define AIO_KNOWN "direct, fadvise_random"

struct aio_opts {
	int direct, fadvise_random;
};

struct aio_file {
	io_context_t ctx;
	int ctx_ok;
	uint32_t ctx_nr;    /* requests the context was set up for */
	int ctx_dirty;      /* a request may still be in it: destroyed at close, not pooled */
	int fd;
	struct aio_opts o;
	uint32_t depth;	    /* requests the context holds */
	uint32_t inflight;  /* submitted and not yet reaped */
	uint32_t mem_align; /* direct: buffer alignment; else 1 */
	uint32_t io_align;  /* direct: offset and length alignment; else 1 */
	struct iocb *cbs;   /* depth control blocks; free ones on the free stack */
	struct iocb **free;
	uint32_t nfree;
	struct iocb **batch; /* submit's argument to io_submit */
	struct io_event *events;
};

static const struct iob_host *aio_host;

static const struct bopts_field aio_fields[] = {BOPTS_BOOL(struct aio_opts, direct),
						BOPTS_BOOL(struct aio_opts, fadvise_random)};

static int aio_option(void *ctx, const char *key, const char *val)
{
	return bopts_set(aio_host, AIO_NAME, aio_fields, sizeof(aio_fields) / sizeof(aio_fields[0]), ctx, key, val,
			 AIO_KNOWN);
}

/* Refuse what O_DIRECT cannot do, and what an iocb cannot say; one log line
 * on an alignment refusal. */
static int aio_check(const struct aio_file *f, int write, const void *buf, size_t len, uint64_t off)
{
	if (off > (uint64_t)INT64_MAX || len > (size_t)INT64_MAX - off || len > (size_t)INT32_MAX)
		return -EINVAL;
	if (f->io_align <= 1)
		return 0;
	return fdio_dio_check(aio_host, AIO_NAME, write ? "libaio write" : "libaio read", f->mem_align, f->io_align,
			      buf, len, off);
}

static uint32_t aio_depth(const struct iob_open_args *args)
{
	return fdio_queue_depth(aio_host, AIO_NAME, args, AIO_MAX_DEPTH, "the context");
}

/* The idle contexts (see the top of the file); a spin lock, as streams
 * open and close their handles at once but hold it for a few loads. */
#define AIO_POOL 16
static struct {
	io_context_t ctx;
	uint32_t nr;
	pid_t pid;
} aio_pool[AIO_POOL];
static size_t aio_npool;
static char aio_pool_lock;

static void pool_lock(void)
{
	while (__atomic_test_and_set(&aio_pool_lock, __ATOMIC_ACQUIRE))
		;
}

static void pool_unlock(void)
{
	__atomic_clear(&aio_pool_lock, __ATOMIC_RELEASE);
}

/* The smallest idle context of this process holding at least nr requests. */
static int pool_take(uint32_t nr, io_context_t *ctx, uint32_t *got)
{
	pid_t me = getpid();
	size_t best = AIO_POOL;

	pool_lock();
	for (size_t i = 0; i < aio_npool; i++)
		if (aio_pool[i].pid == me && aio_pool[i].nr >= nr && (best == AIO_POOL || aio_pool[i].nr < aio_pool[best].nr))
			best = i;
	if (best < AIO_POOL) {
		*ctx = aio_pool[best].ctx;
		*got = aio_pool[best].nr;
		aio_pool[best] = aio_pool[--aio_npool];
	}
	pool_unlock();
	return best < AIO_POOL;
}

/* Keep an idle context; 0 when the pool is full (the caller destroys it). */
static int pool_put(io_context_t ctx, uint32_t nr)
{
	int kept = 0;

	pool_lock();
	if (aio_npool < AIO_POOL) {
		aio_pool[aio_npool].ctx = ctx;
		aio_pool[aio_npool].nr = nr;
		aio_pool[aio_npool++].pid = getpid();
		kept = 1;
	}
	pool_unlock();
	return kept;
}

static void *aio_destroy_one(void *ctx)
{
	io_destroy((io_context_t)ctx);
	return NULL;
}

/* At unload (dlclose, or exit for a built-in plugin): outside any phase.
 * Each io_destroy waits for its own RCU grace period, so one after another
 * they took a grace period each (4 streams: 4 x 17-31 ms at the end of the
 * run).  The contexts are destroyed at once instead: one thread each but
 * the first, which this thread destroys, all joined before the plugin's
 * code is unmapped; the waits overlap, one grace period in all.  A context
 * whose thread cannot be started is destroyed here, after the others. */
__attribute__((destructor)) static void aio_pool_destroy(void)
{
	pid_t me = getpid();
	io_context_t mine[AIO_POOL];
	pthread_t tid[AIO_POOL];
	int started[AIO_POOL];
	size_t n = 0;

	pool_lock();
	for (size_t i = 0; i < aio_npool; i++)
		if (aio_pool[i].pid == me) /* another process's is not ours to end */
			mine[n++] = aio_pool[i].ctx;
	aio_npool = 0;
	pool_unlock();
	for (size_t i = 1; i < n; i++)
		started[i] = pthread_create(&tid[i], NULL, aio_destroy_one, (void *)mine[i]) == 0;
	if (n)
		io_destroy(mine[0]);
	for (size_t i = 1; i < n; i++) {
		if (started[i])
			pthread_join(tid[i], NULL);
		else
			io_destroy(mine[i]);
	}
}

static void aio_free(struct aio_file *f)
{
	if (f->ctx_ok && (f->ctx_dirty || f->inflight || !pool_put(f->ctx, f->ctx_nr)))
		io_destroy(f->ctx);
	if (f->fd >= 0)
		close(f->fd);
	free(f->cbs);
	free(f->free);
	free(f->batch);
	free(f->events);
	free(f);
}

static int aio_setup(struct aio_file *f)
{
	if (pool_take(f->depth, &f->ctx, &f->ctx_nr)) {
		f->ctx_ok = 1;
		return 0;
	}
	f->ctx_nr = f->depth;
	int rc = io_setup((int)f->depth, &f->ctx);

	if (rc < 0) {
		if (rc == -EAGAIN)
			aio_host->log(IOB_LOG_ERROR, AIO_NAME,
				      "io_setup of a %" PRIu32 "-request context failed: %s (the system-wide limit "
				      "/proc/sys/fs/aio-max-nr is reached); lower iodepth, or raise the limit",
				      f->depth, strerror(-rc));
		else
			aio_host->log(IOB_LOG_ERROR, AIO_NAME,
				      "io_setup of a %" PRIu32 "-request context failed: %s (a kernel without AIO, or a "
				      "sandbox forbidding it); use backend posix, direct or io_uring",
				      f->depth, strerror(-rc));
		return rc;
	}
	f->ctx_ok = 1;
	return 0;
}

static int aio_open(const struct iob_open_args *args, void **handle)
{
	struct aio_file *f = calloc(1, sizeof(*f));
	int oflags, rc;

	if (!f)
		return -ENOMEM;
	f->fd = -1;
	f->mem_align = f->io_align = 1;
	rc = bopts_each(bopts_of(args), aio_host, AIO_NAME, aio_option, &f->o);
	if (rc == 0)
		rc = fdio_open_flags(aio_host, AIO_NAME, args, &oflags);
	if (rc == 0 && f->o.direct)
		rc = fdio_direct_refused(aio_host, AIO_NAME, args);
	if (rc == 0) {
		f->depth = aio_depth(args);
		f->cbs = calloc(f->depth, sizeof(*f->cbs));
		f->free = calloc(f->depth, sizeof(*f->free));
		f->batch = calloc(f->depth, sizeof(*f->batch));
		f->events = calloc(f->depth, sizeof(*f->events));
		if (!f->cbs || !f->free || !f->batch || !f->events)
			rc = -ENOMEM;
	}
	if (rc == 0)
		rc = aio_setup(f); /* before the file: a refusal creates nothing */
	if (rc == 0) {
		rc = fdio_open_file(aio_host, AIO_NAME, args, oflags, f->o.direct, f->o.fadvise_random);
		f->fd = rc < 0 ? -1 : rc;
		rc = rc < 0 ? rc : 0;
	}
	if (rc < 0) {
		aio_free(f);
		return rc;
	}
	for (uint32_t i = 0; i < f->depth; i++)
		f->free[i] = &f->cbs[f->depth - 1 - i];
	f->nfree = f->depth;
	if (f->o.direct)
		fdio_find_alignment(aio_host, AIO_NAME, f->fd, args->path, &f->mem_align, &f->io_align);
	*handle = f;
	return 0;
}

/* Wait for up to max completions, at least min; -errno, or how many. */
static int aio_wait(struct aio_file *f, long min, long max)
{
	int rc;

	do {
		rc = io_getevents(f->ctx, min, max, f->events, NULL);
	} while (rc == -EINTR && min == 0);
	return rc;
}

static int aio_close(void *handle)
{
	struct aio_file *f = handle;
	int rc = 0;

	/* every request in flight must end before its buffer may go */
	while (f->inflight > 0) {
		int n = io_getevents(f->ctx, 1, (long)f->inflight, f->events, NULL);
		if (n == -EINTR)
			continue;
		if (n < 0) {
			rc = n;
			break;
		}
		f->inflight -= (uint32_t)n;
	}
	if (close(f->fd) < 0 && rc == 0)
		rc = -errno;
	f->fd = -1;
	aio_free(f);
	return rc;
}

/* One request, submitted and waited for: bytes, or -errno. */
static int64_t aio_one(void *file, int write, char *buf, size_t len, uint64_t off)
{
	struct aio_file *f = file;
	struct iocb cb, *cbp = &cb;
	int rc;

	if (write)
		io_prep_pwrite(&cb, f->fd, buf, len, (long long)off);
	else
		io_prep_pread(&cb, f->fd, buf, len, (long long)off);
	cb.data = NULL;
	do {
		rc = io_submit(f->ctx, 1, &cbp);
	} while (rc == -EINTR || rc == -EAGAIN);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return -EIO; /* not taken, and no reason given */
	do {
		rc = io_getevents(f->ctx, 1, 1, f->events, NULL);
	} while (rc == -EINTR);
	if (rc < 0) {
		f->ctx_dirty = 1; /* cannot happen with the request in flight; the context is not reused */
		return rc;
	}
	int64_t n = (int64_t)(long)f->events[0].res;
	return n == -EAGAIN ? -EINTR : n; /* both: try again */
}

FDIO_QUEUED_FILE(aio, struct aio_file);

static int aio_sync(void *handle)
{
	struct aio_file *f = handle;

	if (f->inflight)
		return -EBUSY;
	return fsync(f->fd) < 0 ? -errno : 0;
}

/* One queued I/O into a free iocb, the k-th of this call's batch
 * (fdio_submit_each's prep). */
static int aio_submit_one(void *file, size_t k, struct iob_io *io)
{
	struct aio_file *f = file;
	struct iocb *cb;
	int rc = aio_check(f, io->write != 0, io->buf, io->len, io->off);

	if (rc < 0)
		return rc;
	cb = f->free[f->nfree - 1 - k];
	if (io->write)
		io_prep_pwrite(cb, f->fd, io->buf, io->len, (long long)io->off);
	else
		io_prep_pread(cb, f->fd, io->buf, io->len, (long long)io->off);
	if (io->ioprio) { /* IOB_CAP_IOPRIO: this I/O's own priority */
		cb->aio_reqprio = (short)io->ioprio;
		cb->u.c.flags |= IOCB_FLAG_IOPRIO;
	}
	cb->data = io;
	f->batch[k] = cb;
	return 0;
}

static int aio_submit(void *handle, struct iob_io *const *ios, size_t n)
{
	struct aio_file *f = handle;
	/* no room: the context is full, reap first */
	int k = fdio_submit_each(f, ios, n, f->nfree, aio_submit_one);
	int rc;

	if (k <= 0)
		return k;
	do {
		rc = io_submit(f->ctx, (long)k, f->batch);
	} while (rc == -EINTR);
	if (rc <= 0)
		return rc == 0 ? -EAGAIN : rc; /* none taken: the caller keeps them all */
	f->nfree -= (uint32_t)rc;
	f->inflight += (uint32_t)rc;
	return rc;
}

static int aio_reap(void *handle, struct iob_io **done, size_t min, size_t max)
{
	struct aio_file *f = handle;
	int got;

	if (max > f->inflight)
		max = f->inflight;
	if (min > max)
		min = max;
	if (max == 0)
		return 0;
	got = aio_wait(f, (long)min, (long)max); /* consumes nothing when it fails: -EINTR loses nothing */
	if (got < 0)
		return got;
	for (int i = 0; i < got; i++) {
		struct iob_io *io = f->events[i].data;
		io->result = (int64_t)(long)f->events[i].res;
		done[i] = io;
		f->free[f->nfree++] = f->events[i].obj;
	}
	f->inflight -= (uint32_t)got;
	return got;
}

static int aio_control(void *handle, int op, void *arg)
{
	struct aio_opts o = {0};

	return bopts_control(handle, op, arg, aio_host, AIO_NAME, aio_option, &o, &o.direct);
}

/* not DIRECT or ALIGNED: those depend on direct=1, reported per handle by info() */
static const struct iob_option_decl aio_options[] = {
	{.name = "direct", .type = IOB_OPT_BOOL, .def = "0",
	 .help = "open with O_DIRECT, bypassing the page cache (without it, Linux AIO does each I/O inside io_submit)"},
	{.name = "fadvise_random", .type = IOB_OPT_BOOL, .def = "0",
	 .help = "posix_fadvise(POSIX_FADV_RANDOM) after open: no readahead"},
};

BOPTS_PLUGIN(aio, AIO_NAME,
	     "Linux native AIO (libaio): queued reads and writes; asynchronous only with direct=1",
	     IOB_CAP_READ | IOB_CAP_WRITE | IOB_CAP_SYNC | IOB_CAP_TRUNCATE | IOB_CAP_ASYNC | IOB_CAP_IOPRIO |
		 IOB_CAP_UNCOUNTED,
	     BOPTS_QUEUED_OPS(aio));
