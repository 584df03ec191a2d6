/*
 * streams.c - one phase on N threads at once (iobench/streams.h).
 */
#include "iobench/streams.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/os.h"

struct phase_streams;

struct stream {
	struct phase_streams *ps;
	size_t i;
	struct iob_phase_spec spec;
	struct iob_phase_result *r;
	struct iob_thread *thread;
	int arrived; /* this stream has waited at the start barrier */
};

struct phase_streams {
	struct iob_barrier *start;
	/* base->ready (a run across MPI ranks: their start barrier), called by
	 * stream 0 once every stream is ready; go releases the streams after it */
	void (*outer)(void *arg);
	void *outer_arg;
	struct iob_barrier *go;
	struct iob_barrier *done; /* each stream arrives when its phase is over */
	volatile sig_atomic_t own_stop;
	volatile sig_atomic_t *stop; /* own_stop or base->streams_stop: written with __atomic stores, read by the engine */
	volatile int first_done;
	size_t over;	/* atomic: the streams whose I/O is over */
	void (*over_fn)(void *arg, int clean);
	void *over_arg;
	struct stream *s;
};

static void stream_ready(void *arg)
{
	struct stream *st = arg;
	st->arrived = 1;
	iob_barrier_wait(st->ps->start);
	if (st->ps->outer) {
		if (st->i == 0)
			st->ps->outer(st->ps->outer_arg);
		iob_barrier_wait(st->ps->go);
	}
}

/* spec.io_over of a stream: the first stream whose I/O is over says so at
 * once, on its own thread, clean when it ended with no error and no stop
 * (fio's numjobs clones are jobs of their own: the first to end is the
 * job's end, exitall).  Only the first: a later stream says nothing. */
static void stream_io_over(void *arg)
{
	struct stream *st = arg;
	struct phase_streams *ps = st->ps;
	int clean = st->r->status == 0 && !st->r->interrupted;
	if (__atomic_add_fetch(&ps->over, 1, __ATOMIC_ACQ_REL) == 1 && ps->over_fn)
		ps->over_fn(ps->over_arg, clean);
}

static void stream_main(void *arg)
{
	struct stream *st = arg;
	struct iob_phase_result *r = st->r;
	uint64_t rc0 = 0, wc0 = 0, rc1 = 0, wc1 = 0;
	uint64_t rb0 = UINT64_MAX, wb0 = UINT64_MAX, rb1 = UINT64_MAX, wb1 = UINT64_MAX;
	int io = iob_proc_thread_io(&rc0, &wc0, &rb0, &wb0) == 0;
	iob_phase_run(&st->spec, r);
	io = io && iob_proc_thread_io(&rc1, &wc1, &rb1, &wb1) == 0;
	if (!st->arrived && st->ps->outer) /* failed before its files were open: let the others go */
		stream_ready(st);
	else if (!st->arrived)
		iob_barrier_arrive(st->ps->start);
	if (r->status < 0)
		__atomic_store_n(st->ps->stop, 1, __ATOMIC_RELAXED);
	/* the kernel's count for this thread alone: the engine's is the process's
	 * (and none for a backend whose I/O the count never sees) */
	/* (the storage counts: none of a backend whose I/O kernel workers may do) */
	int st_io = io && rb0 != UINT64_MAX && rb1 != UINT64_MAX && wb0 != UINT64_MAX && wb1 != UINT64_MAX &&
		    !(st->spec.backend->desc.caps & IOB_CAP_WORKERS);
	r->storage_read_bytes = st_io ? rb1 - rb0 : UINT64_MAX;
	r->storage_write_bytes = st_io ? wb1 - wb0 : UINT64_MAX;
	io = io && !(st->spec.backend->desc.caps & IOB_CAP_UNCOUNTED);
	r->os_read_bytes = io ? rc1 - rc0 : UINT64_MAX;
	r->os_write_bytes = io ? wc1 - wc0 : UINT64_MAX;
	iob_barrier_arrive(st->ps->done); /* its phase is over (the lock orders the results before) */
}

void iob_streams_free(struct iob_streams *s)
{
	for (size_t i = 0; s->r && i < s->n; i++)
		iob_phase_result_free(&s->r[i]);
	free(s->r);
	free(s->cut);
	memset(s, 0, sizeof *s);
}

/* Stream i's part of a shared file, sequential access: [i*size/N, (i+1)*size/N),
 * on block boundaries so every stream's I/Os are whole blocks. */
static void region(const struct iob_phase_spec *base, size_t i, size_t n, struct iob_phase_spec *spec)
{
	uint64_t bs = base->block_size, blocks = base->file_size / bs;
	uint64_t b0 = blocks * i / n, b1 = blocks * (i + 1) / n;
	spec->region_off = b0 * bs;
	spec->region_len = i + 1 == n ? base->file_size - b0 * bs : (b1 - b0) * bs;
}

#define SUPERVISE_LOOK_NS 16000000ull /* how often a stop signal is looked for */

/* Wait for every stream, passing a stop signal on to them (a stream that
 * fails raises the phase's stop flag itself): woken as the last stream is
 * done, and every 16 ms to look for a stop signal.  It looked every 2 ms
 * before, 500 wake-ups a second of a third thread on the streams' CPUs (with
 * 2 streams on 2 CPUs, each one took a CPU from a stream while it ran), and
 * saw the end up to 2 ms late (docs/performance.md, "The two missed
 * targets"). */
static void supervise(struct phase_streams *ps, volatile sig_atomic_t *run_stop)
{
	while (!iob_barrier_await_ns(ps->done, SUPERVISE_LOOK_NS))
		/* an atomic read: a group's stop flag is raised by another thread */
		if (run_stop && __atomic_load_n(run_stop, __ATOMIC_RELAXED))
			__atomic_store_n(ps->stop, 1, __ATOMIC_RELAXED);
}

int iob_streams_run(const struct iob_phase_spec *base, size_t n, const char *const *files, size_t nfiles,
		    int per_stream_files, volatile sig_atomic_t *run_stop, struct iob_streams *out)
{
	struct phase_streams ps;
	memset(out, 0, sizeof *out);
	memset(&ps, 0, sizeof ps);
	if (n == 0)
		return -EINVAL;
	out->r = calloc(n, sizeof *out->r);
	out->cut = calloc(n, sizeof *out->cut);
	ps.s = calloc(n, sizeof *ps.s);
	int rc = out->r && out->cut && ps.s ? iob_barrier_init(&ps.start, (unsigned)n) : -ENOMEM;
	if (rc == 0)
		rc = iob_barrier_init(&ps.done, (unsigned)n);
	ps.stop = base->streams_stop ? base->streams_stop : &ps.own_stop;
	ps.over_fn = base->streams_over;
	ps.over_arg = base->streams_over_arg;
	ps.outer = base->ready;
	ps.outer_arg = base->ready_arg;
	if (rc == 0 && ps.outer)
		rc = iob_barrier_init(&ps.go, (unsigned)n);
	size_t started = 0;
	for (size_t i = 0; i < n && rc == 0; i++, started++) {
		struct stream *st = &ps.s[i];
		st->ps = &ps;
		st->i = i;
		st->r = &out->r[i];
		iob_phase_result_init(st->r);
		st->spec = *base;
		st->spec.files = per_stream_files ? files + i * nfiles : base->files;
		st->spec.nfiles = nfiles;
		if (base->region_fixed) { /* the job's own regions: offset + i x offset_increment */
			st->spec.region_off = base->region_off + (uint64_t)i * base->region_step;
			st->spec.file_size = st->spec.region_off + base->region_len;
		} else if (!per_stream_files && base->access == IOB_ACCESS_SEQ && base->file_size && !base->shared_whole)
			region(base, i, n, &st->spec);
		/* random offsets: each stream its own sequence (stream 0 the job's);
		 * the data pattern keeps its own seed, so verify reads what was written */
		st->spec.seed = base->seed + (uint64_t)i * 0x9e3779b97f4a7c15ull;
		st->spec.ready = stream_ready;
		st->spec.ready_arg = st;
		st->spec.first_done = &ps.first_done;
		st->spec.stop = ps.stop;
		st->spec.io_over = stream_io_over;
		st->spec.io_over_arg = st;
		st->spec.live = base->live ? base->live + i : NULL; /* one per stream */
		st->spec.written_draws = base->written_draws ? base->written_draws + i : NULL;
		st->spec.wlog_out = base->wlog_out ? base->wlog_out + i : NULL;
		st->spec.wlog_in = base->wlog_in ? base->wlog_in + i : NULL;
		st->spec.iolog = base->iolog ? base->iolog + i : NULL;
		rc = iob_thread_start(&st->thread, stream_main, st);
	}
	if (rc != 0 && started) {
		/* the streams already started wait at the barrier for the rest:
		 * stop them and stand in for the missing ones */
		__atomic_store_n(ps.stop, 1, __ATOMIC_RELAXED);
		for (size_t i = started; i < n; i++) {
			iob_barrier_arrive(ps.start);
			if (ps.go)
				iob_barrier_arrive(ps.go);
		}
	}
	if (rc != 0 && started == 0 && ps.outer)
		ps.outer(ps.outer_arg); /* no stream 0 to reach it: the ranks still meet */
	if (started == n)
		supervise(&ps, run_stop);
	for (size_t i = 0; i < started; i++)
		iob_thread_join(ps.s[i].thread);
	iob_barrier_destroy(ps.start);
	iob_barrier_destroy(ps.go);
	iob_barrier_destroy(ps.done);
	free(ps.s);
	out->n = n;
	if (rc != 0) {
		iob_streams_free(out);
		return rc;
	}
	/* a stream stopped with no stop signal was stopped by another's failure */
	int signalled = run_stop && __atomic_load_n(run_stop, __ATOMIC_RELAXED);
	for (size_t i = 0; i < n; i++)
		if (out->r[i].interrupted && !signalled) {
			out->r[i].interrupted = 0;
			out->cut[i] = 1;
		}
	return 0;
}
