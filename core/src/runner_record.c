/*
 * runner_record.c - what a phase says (runner.c's map): its observer (the
 * progress line and the interval records) and its records.
 *
 * Sections: iob_runner_expect_bytes (for the progress line); the observer
 * (iob_runner_observe_start, _end, _emit); the file a record names; the
 * phase record (iob_runner_emit_phase); a stream's record; the streams'
 * aggregate as the phase's result.
 */
#include "runner_int.h"
#include "iobench/repeat.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/aggregate.h"
#include "iobench/blocks.h"
#include "iobench/coord.h"
#include "iobench/engine.h"
#include "iobench/fiolog.h"
#include "iobench/intervals.h"
#include "iobench/os.h"
#include "iobench/progress.h"
#include "iobench/streams.h"
#include "iobench/ticks.h"
#include "check.h"

/* What a phase will move in all, for the progress line's share done and
 * ETA; 0 when it cannot be told (standard input, no end but a time limit). */
uint64_t iob_runner_expect_bytes(const struct iob_job *job, const struct iob_filelist *fl, uint64_t bs)
{
	uint64_t size = job->series ? 0 : job->size;
	if (!size && (iob_is_stdin_path(fl->paths[0]) || iob_target_size(fl->paths[0], &size) != 0))
		return 0;
	if (job->access == IOB_ACCESS_RAND)
		return job->time_based ? 0 : job->ops ? job->ops * bs * job->threads : size / bs * bs * fl->n;
	uint64_t pass = size * fl->n, loops = job->loops ? job->loops : 1;
	if (job->time_based || pass > UINT64_MAX / loops)
		return 0; /* time_based: no end but the time */
	uint64_t streams = job->threads ? job->threads : 1, ios = job->load.seq_ops; /* each stream's cap */
	if (ios && ios <= UINT64_MAX / bs / streams && ios * bs * streams < pass * loops)
		return ios * bs * streams;
	return pass * loops;
}

void iob_runner_observe_start(const struct iob_run *run, const struct iob_job *job,
			      const struct iob_filelist *fl, enum iob_phase phase, uint64_t bs,
			      struct iob_phase_spec *spec, struct observed *ob)
{
	size_t n = job->threads > 1 ? job->threads : 1;
	/* the jobs of a group run at once: the group's line speaks for them all
	 * (iob_runner_run_group draws it from their counters), not one job's */
	int wanted = iob_progress_wanted(iob_progress_mode), line = !job->group && wanted;
	memset(ob, 0, sizeof *ob);
	ob->logged = job->log_interval_ns && !run->quiet;
	if (!line && !ob->logged && !(job->group && wanted))
		return;
	/* across ranks the rank's watcher reads them too (iob_runner_rank_phase_spec): theirs */
	ob->borrowed = spec->live != NULL;
	ob->live = spec->live ? spec->live : calloc(n, sizeof *ob->live);
	if (!ob->live || iob_intervals_init(&ob->iv, ob->live, n, ob->logged) != 0) {
		iob_intervals_free(&ob->iv);
		if (!ob->borrowed)
			free(ob->live);
		ob->live = NULL;
		ob->logged = 0;
		ob->oom = 1;
		return;
	}
	/* a mixed phase's fio-style logs have a row per direction */
	if (ob->logged && phase == IOB_PHASE_MIXED && iob_fiolog_wanted(job) && iob_intervals_split(&ob->iv) != 0)
		ob->oom = 1; /* (then the logs give the whole phase as its reads) */
	/* fio's logs are per clone: each stream's own intervals */
	if (ob->logged && iob_fiolog_wanted(job) && n > 1 && iob_intervals_clones(&ob->iv) != 0)
		ob->oom = 1;
	if (!line && !ob->logged) { /* only the group's line reads them: no observer */
		spec->live = ob->live;
		return;
	}
	ob->iv.csv = iob_livecsv_file(run->livecsv, job->livecsv, &ob->csv_error);
	ob->iv.job = job->name;
	ob->iv.phase = iob_phase_name(phase);
	ob->iv.block_size = bs;
	struct iob_observe_cfg oc = {
		.tool = run->opts.tool,
		.job = job->name,
		.phase = iob_phase_name(phase),
		.live = ob->live,
		.nstreams = n,
		.progress = line,
		.expect_bytes = iob_runner_expect_bytes(job, fl, bs),
		.runtime_ns = job->runtime_ns,
		.ramp_ns = job->ramp_ns,
		.interval_ns = ob->logged ? job->log_interval_ns : 0,
		.iv = &ob->iv,
	};
	spec->live = ob->live;
	ob->obs = iob_observer_start(&oc);
}

/* The phase is over: the observer stops and the last interval ends with the
 * phase (so the intervals add up to it).  Any thread. */
void iob_runner_observe_end(struct observed *ob, const struct iob_phase_result *r)
{
	iob_observer_stop(ob->obs);
	ob->obs = NULL;
	if (ob->logged) {
		uint64_t end = r->end_ns > r->start_ns ? r->end_ns : iob_now_ns();
		iob_intervals_take(&ob->iv, end > ob->iv.prev_end ? end : ob->iv.prev_end, 1);
	}
}

/* The interval records go out (the runner's thread). */
void iob_runner_observe_emit(struct iob_run *run, size_t j, const struct iob_job *job, enum iob_phase phase,
			     struct observed *ob)
{
	if (ob->oom)
		iob_run_note(run, "job %s, %s phase: out of memory for the progress line and the intervals", job->name,
			     iob_phase_name(phase));
	if (ob->logged) {
		for (size_t i = 0; i < ob->iv.n; i++) {
			iob_rec_interval(&run->rb, ob->iv.job, ob->iv.phase, ob->iv.block_size, &ob->iv.v[i]);
			iob_run_record(run, &run->rb.rec);
		}
		if (ob->iv.csv_error && ob->csv_error && !*ob->csv_error)
			*ob->csv_error = ob->iv.csv_error;
		/* (a clone's intervals out of memory: noted above, none written) */
		for (size_t c = 0; c < ob->iv.nstreams && (ob->iv.clones || ob->iv.nstreams == 1); c++)
			iob_fiologs_phase(run->fiologs, j, c, phase, ob->iv.clones ? &ob->iv.clones[c] : &ob->iv);
	}
	iob_intervals_free(&ob->iv);
	if (!ob->borrowed)
		free(ob->live);
	ob->live = NULL;
}

struct iob_iolog *iob_runner_iolog_start(const struct iob_run *run, const struct iob_job *job, enum iob_phase phase,
					 uint64_t file_size, size_t n, int *oom)
{
	uint64_t bound = iob_fiolog_ios_bound(job, file_size);
	if (!run->fiologs || run->quiet || phase == IOB_PHASE_VERIFY || !bound)
		return NULL;
	/* the phase's I/Os when that many fit, else a ring drained as it runs */
	uint64_t cap = bound < IOB_FIOLOG_RING ? bound : IOB_FIOLOG_RING;
	struct iob_iolog *logs = calloc(n, sizeof *logs);
	for (size_t i = 0; logs && i < n; i++) {
		/* touched now: no page fault of the log's inside the window */
		if (!(logs[i].ev = malloc(cap * sizeof *logs[i].ev))) {
			for (size_t k = 0; k <= i; k++)
				free(logs[k].ev);
			free(logs);
			logs = NULL;
			break;
		}
		memset(logs[i].ev, 0, cap * sizeof *logs[i].ev);
		logs[i].cap = cap;
		logs[i].ring = bound > cap;
	}
	*oom = !logs;
	return logs;
}

/* The writer of a phase's rings: drains each stream's every 2 ms, its ticks
 * converted with the ratio measured so far (the phase's own at its end). */
struct iob_iolog_writer {
	struct iob_fiologs *fl;
	size_t j, n;
	struct iob_iolog *logs;
	int stop;
	struct iob_thread *t;
};

static void writer_main(void *arg)
{
	struct iob_iolog_writer *w = arg;
	while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
		for (size_t s = 0; s < w->n; s++) {
			struct iob_iolog *l = &w->logs[s];
			if (__atomic_load_n(&l->n, __ATOMIC_ACQUIRE) == l->tail)
				continue;
			uint64_t tick = iob_ticks(), ns = iob_now_ns();
			double ratio = iob_ticks_tsc && tick > l->t0_tick && ns > l->t0_ns
					       ? (double)(ns - l->t0_ns) / (double)(tick - l->t0_tick)
					       : 1.0;
			iob_fiologs_drain(w->fl, w->j, s, l, ratio);
		}
		iob_sleep_ns(2000000, NULL);
	}
}

struct iob_iolog_writer *iob_runner_iolog_writer(struct iob_run *run, size_t j, struct iob_iolog *logs, size_t n)
{
	if (!logs || !logs[0].ring)
		return NULL;
	struct iob_iolog_writer *w = calloc(1, sizeof *w);
	if (w) {
		*w = (struct iob_iolog_writer){.fl = run->fiologs, .j = j, .n = n, .logs = logs};
		if (iob_thread_start(&w->t, writer_main, w) == 0)
			return w;
		free(w);
	}
	/* no writer: the rings are plain logs, what does not fit is counted lost */
	for (size_t i = 0; i < n; i++)
		logs[i].ring = 0;
	return NULL;
}

void iob_runner_iolog_writer_stop(struct iob_iolog_writer *w)
{
	if (!w)
		return;
	iob_thread_stop(w->t, &w->stop);
	/* the rest now, with the phase's own tick ratio: before the job's next
	 * phase streams its rows (a group's emit comes after all of them) */
	for (size_t s = 0; s < w->n; s++)
		iob_fiologs_drain(w->fl, w->j, s, &w->logs[s], w->logs[s].ns_per_tick);
	free(w);
}

void iob_runner_iolog_emit(struct iob_run *run, size_t j, const struct iob_job *job, enum iob_phase phase,
			   struct iob_iolog *logs, size_t n, int oom)
{
	if (oom)
		iob_run_note(run, "job %s, %s phase: out of memory for the per-I/O logs: none written", job->name,
			     iob_phase_name(phase));
	if (!logs)
		return;
	uint64_t lost = iob_fiologs_ios(run->fiologs, j, logs, n), waits = 0;
	if (lost)
		iob_run_note(run, "job %s, %s phase: %llu I/Os past the per-I/O log's %llu rows a stream are not in it",
			     job->name, iob_phase_name(phase), (unsigned long long)lost, (unsigned long long)logs[0].cap);
	for (size_t i = 0; i < n; i++) {
		waits += logs[i].waits;
		free(logs[i].ev);
	}
	if (waits)
		iob_run_note(run, "job %s, %s phase: the per-I/O log's writer fell behind: the streams waited %llu "
			     "times for room in their %llu-row buffers (inside the measured time)",
			     job->name, iob_phase_name(phase), (unsigned long long)waits, (unsigned long long)logs[0].cap);
	free(logs);
}

/* The file a record names: the job's file (or tree directory). */
void iob_runner_record_file(const struct iob_job *job, const struct iob_filelist *fl, char *file, size_t len)
{
	if (job->layout == IOB_LAYOUT_TREE)
		snprintf(file, len, "%s", job->dir);
	else if (iob_job_stream_files(job)) /* the streams' files are <file>.<i> */
		snprintf(file, len, "%s/%s", job->dir, job->filename);
	else
		snprintf(file, len, "%s", fl->paths[0]);
}

/* latency_target's windows, a record each, in order (after the phase's, or
 * a stream's: each stream searches on its own, as each of fio's clones). */
static void emit_lat_windows(struct iob_run *run, const struct iob_job *job, const struct iob_phase_result *r,
			     size_t stream)
{
	for (size_t i = 0; r->lt_windows && i < r->lt_nwin; i++) {
		iob_rec_lat_window(&run->rb, job, r, i, stream != SIZE_MAX ? "stream" : NULL, stream);
		iob_run_record(run, &run->rb.rec);
	}
}

/* The phase record (with agg: the aggregate of the phase's streams); a
 * series' summary may fail (returned). */
int iob_runner_emit_phase(struct phase_run *pr, const struct iob_filelist *fl, struct iob_phase_result *r,
			  const struct iob_read_facts *facts, const struct iob_aggregate *agg)
{
	struct iob_run *run = pr->run;
	const struct iob_job *job = pr->job;
	const struct iob_run_hooks *h = run->opts.hooks;
	struct iob_recbuf *rb = &run->rb;
	char file[IOB_PATH_MAX + 64];
	iob_runner_record_file(job, fl, file, sizeof file);
	iob_rec_phase(rb, job, file, r);
	int fs = !iob_is_stdin_path(file);
	iob_rec_str(rb, "fs_type", fs && strcmp(run->fs_type, "unknown") ? run->fs_type : NULL);
	if (fs && run->fs_block_size)
		iob_rec_u64(rb, "fs_block_size_bytes", IOB_UNIT_BYTES, run->fs_block_size);
	else
		iob_rec_absent(rb, "fs_block_size_bytes", IOB_UNIT_BYTES);
	iob_rec_str(rb, "device", fs && strcmp(run->device, "unknown") ? run->device : NULL);
	iob_rec_bool(rb, "evicted", r->phase != IOB_PHASE_WRITE && job->evict_before_read && !pr->evict_failed);
	if (facts->resident_known)
		iob_rec_f64(rb, "resident_before_pct", IOB_UNIT_NONE, facts->resident_pct);
	else
		iob_rec_absent(rb, "resident_before_pct", IOB_UNIT_NONE);
	if (facts->holes_known)
		iob_rec_f64(rb, "holes_pct", IOB_UNIT_NONE, facts->hole_pct);
	else
		iob_rec_absent(rb, "holes_pct", IOB_UNIT_NONE);
	/* what reached storage, measured after the phase (caveats.h) */
	double cached = iob_storage_cached_read_pct(r), left = iob_storage_unwritten_pct(r);
	if (cached >= 0)
		iob_rec_f64(rb, "cached_read_pct", IOB_UNIT_NONE, cached);
	else
		iob_rec_absent(rb, "cached_read_pct", IOB_UNIT_NONE);
	if (left >= 0) {
		iob_rec_u64(rb, "unwritten_bytes", IOB_UNIT_BYTES, r->unwritten_bytes);
		iob_rec_f64(rb, "unwritten_pct", IOB_UNIT_NONE, left);
	} else {
		iob_rec_absent(rb, "unwritten_bytes", IOB_UNIT_BYTES);
		iob_rec_absent(rb, "unwritten_pct", IOB_UNIT_NONE);
	}
	iob_rec_str(rb, "status", pr->status ? pr->status : iob_phase_status_name(r));
	iob_rec_phase_flags(rb, job, r);
	iob_rec_lat_search(rb, job, r);
	iob_rec_phase_cpu(rb, r);
	if (agg)
		iob_rec_aggregate(rb, agg);
	int rc = 0;
	if (pr->blocks.rb) {
		char err[1024];
		rc = iob_blocks_summary(&pr->blocks, r, rb, run->quiet ? NULL : run->out, &run->notes, err,
					sizeof err);
		if (rc < 0)
			iob_run_fail(run, 0, "[%s] %s", job->name, err);
	}
	if (rc < 0)
		return rc; /* no figures to give: the error says why */
	if (run->rep && run->rep->active) /* repeat.c: which run (or round) of the phase */
		iob_rec_u64(rb, iob_repeats_key(run->rep), IOB_UNIT_COUNT, run->rep->index);
	if (h && h->record_fields)
		h->record_fields(h->arg, run, pr->j, r, rb);
	if (iob_coord_active())
		return 1; /* built: rank 0 records it with the other ranks' (ranks.c) */
	iob_run_record(run, &rb->rec);
	emit_lat_windows(run, job, r, SIZE_MAX);
	return 0;
}

/* One stream's record: the phase base keys, its index, status and CPU. */
void iob_runner_emit_stream(struct iob_run *run, const struct iob_job *job, const struct job_files *jf,
			    size_t i, const struct iob_streams *st)
{
	struct iob_recbuf *rb = &run->rb;
	char file[IOB_PATH_MAX + 64];
	size_t nbase = jf->fl.n / (iob_job_stream_files(job) ? st->n : 1);
	if (job->layout == IOB_LAYOUT_TREE)
		snprintf(file, sizeof file, "%s", job->dir);
	else
		snprintf(file, sizeof file, "%s", jf->fl.paths[iob_job_stream_files(job) ? i * nbase : 0]);
	iob_rec_phase(rb, job, file, &st->r[i]);
	rb->rec.kind = "stream";
	iob_rec_u64(rb, "stream", IOB_UNIT_COUNT, i);
	/* "stopped": cut short because another stream of the phase failed */
	iob_rec_str(rb, "status", st->cut[i] ? "stopped" : iob_phase_status_name(&st->r[i]));
	iob_rec_lat_search(rb, job, &st->r[i]);
	iob_rec_phase_cpu(rb, &st->r[i]);
	iob_run_record(run, &rb->rec);
	emit_lat_windows(run, job, &st->r[i], i);
}

/* The streams' results aggregated (iob_aggregate). */
int iob_runner_streams_aggregate(const struct iob_streams *st, struct iob_aggregate *agg)
{
	const struct iob_phase_result **v = calloc(st->n, sizeof *v);
	for (size_t i = 0; v && i < st->n; i++)
		v[i] = &st->r[i];
	int rc = v ? iob_aggregate(v, st->n, agg) : -ENOMEM;
	free(v);
	return rc;
}

/* The aggregate as the phase's result *r (its histograms borrowed from
 * *agg), with the failed stream's words, naming it. */
void iob_runner_streams_result(const struct iob_streams *st, const struct iob_aggregate *agg,
			       struct iob_phase_result *r)
{
	iob_aggregate_as_result(agg, r);
	/* latency_target: each stream searched on its own (their windows are
	 * in the stream records); the phase's the lowest depth, settled when
	 * all are */
	r->lt_windows = NULL;
	r->lt_nwin = 0;
	r->lt_depth = 0;
	r->lt_settled = 0;
	for (size_t i = 0; i < st->n; i++)
		iob_lat_search_fold(r, &st->r[i], i == 0);
	if (agg->status != 0) {
		const struct iob_phase_result *f = &st->r[agg->failed_stream];
		snprintf(r->error, sizeof r->error, "stream %zu: %s", agg->failed_stream, f->error);
		r->first_bad_offset = f->first_bad_offset;
		r->expected = f->expected;
		r->found = f->found;
		snprintf(r->bad_file, sizeof r->bad_file, "%s", f->bad_file);
		snprintf(r->verify_why, sizeof r->verify_why, "%s", f->verify_why);
	}
}
