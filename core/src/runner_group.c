/*
 * runner_group.c - the jobs of a group, at once (runner.c's map).
 *
 * Sections: the group's state (gphase, gjob, group); a job's thread
 * (group_job_main); after the join, a job's phase records and the group
 * records (group_emit_phase, group_emit_totals); the group's progress line
 * (gphase_left, group_draw); iob_runner_run_group.
 */
#include "runner_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/aggregate.h"
#include "iobench/engine.h"
#include "iobench/meta.h"
#include "iobench/shape.h"
#include "iobench/os.h"
#include "iobench/progress.h"
#include "iobench/streams.h"
#include "verify_dump.h"

/* ------------------------------------------------------------------ groups */

/* A group (job->group != 0): its jobs run at once, each on a thread of its
 * own that runs the job's phases in order (block-size sweep x phases) on
 * iob_streams_run (one stream, or threads of them: each stream's kernel
 * counts and CPU time are then its thread's own, not the process's).  The
 * first phase of every job waits at the group's barrier (the streams' outer
 * ready: after every file is open and every buffer allocated, before any
 * clock starts).  A job thread touches no note, record, output or the run's
 * held directories: it keeps what it measured, and the runner's thread,
 * once every job is joined, emits each job's records in suite order, its
 * notes, then one "group" record per phase name. */

struct gphase {
	enum iob_phase phase;
	uint64_t bs;
	int ran;			/* the streams ran (st holds their results) */
	int rc;				/* iob_streams_run's, or the phase's status */
	struct iob_streams st;
	struct iob_read_plan plan;
	struct iob_read_facts facts;
	int reads, evict_failed;
	int no_ramp; /* iob_runner_written_apply took the ramp away */
	/* the streams' stop flag (spec.streams_stop): raised by the job whose
	 * end stops the others (exit_others) the moment its last I/O is done */
	volatile sig_atomic_t stop;
	uint64_t unwritten; /* iob_runner_measure_unwritten's, right after the phase */
	struct observed ob;
	struct iob_iolog *iolog; /* per-I/O logs, one per stream (or NULL) */
	int iolog_oom;
	/* for the group's line: the phase's counters once it started (atomic),
	 * what it will move in all (0: unknown) */
	struct iob_live *shown;
	uint64_t expect;
};

struct group;

struct gjob {
	struct group *g;
	struct iob_run *run;
	size_t j;
	const struct iob_job *job;
	const struct iob_loaded *b;
	struct job_files jf;
	int opened;
	struct gphase *ph;
	size_t nph, ran;
	struct iob_thread *thread;
	int arrived; /* reached the group's start barrier */
	int done;    /* atomic: the thread is over */
	int halted;  /* atomic: stopped by a job's end (exit_others): no later phase runs */
	int exiter;  /* atomic: its end stopped others (exit_others): a note names it */
	int rc;      /* the job's first failure, or 0 */
	size_t dirs0, dirs1, made0, made1; /* what the run made for it: [dirs0, dirs1) and [made0, made1) */
	int meta;			   /* a files job (meta.c): it makes, times and removes its own trees */
	struct iob_meta_group mg;
};

struct group {
	struct iob_barrier *start;
	volatile sig_atomic_t stop; /* atomic: a signal, or a job failed */
	int failed;		    /* atomic: index of the first job that failed, or -1 */
	int exited;		    /* atomic: 1 + the job whose end stopped the others (exit_others), or 0 */
	struct gjob *jobs;
	size_t n;
};

static void group_ready(void *arg)
{
	struct gjob *gj = arg;
	gj->arrived = 1;
	iob_barrier_wait(gj->g->start);
}

/* exit_others (spec.streams_over of a job's last phase): the phase's first
 * stream to end has just done its last I/O, and clean (no error, no stop):
 * the other jobs stop now, and this job's other streams (fio's numjobs
 * clones are jobs of their own, and the first clone's end stops the rest),
 * before this job's phase is wrapped up (its counts, logs and records),
 * each stream at its next I/O (the flags of their phases; g->stop for the
 * phases they have not started).  Only the first job to end stops the
 * others; with exit_report (a fio file's exit_what=group) it stops only the
 * jobs of its reporting group (their halted flags, no g->stop), and the
 * first to end in another reporting group stops that one. */
static void group_exit_others(void *arg, int clean)
{
	struct gjob *gj = arg;
	struct group *g = gj->g;
	const struct iob_job *x = gj->job;
	int none = 0;
	if (!clean || __atomic_load_n(&g->stop, __ATOMIC_RELAXED) || __atomic_load_n(&gj->halted, __ATOMIC_RELAXED))
		return;
	/* the first job to end names itself (exit_others = all stops the run there); fio's
	 * exit_what=group stops its reporting group only, so another's may end later */
	if (!__atomic_compare_exchange_n(&g->exited, &none, (int)(gj - g->jobs) + 1, 0, __ATOMIC_RELAXED,
					 __ATOMIC_RELAXED) &&
	    !x->exit_report)
		return;
	__atomic_store_n(&gj->exiter, 1, __ATOMIC_RELAXED);
	for (size_t k = 0; k < g->n; k++) {
		struct gjob *o = &g->jobs[k];
		if (x->exit_report && o->job->report_group != x->report_group)
			continue;
		__atomic_store_n(&o->halted, 1, __ATOMIC_RELAXED);
		for (size_t q = 0; q < o->nph; q++)
			__atomic_store_n(&o->ph[q].stop, 1, __ATOMIC_RELAXED);
	}
	if (!x->exit_report)
		__atomic_store_n(&g->stop, 1, __ATOMIC_RELAXED);
}

static void group_job_main(void *arg)
{
	struct gjob *gj = arg;
	struct group *g = gj->g;
	const struct iob_job *job = gj->job;
	if (gj->meta) { /* its first phase waits at the group's barrier (group_ready), its records are kept */
		gj->mg = (struct iob_meta_group){.stop = &g->stop, .ready = group_ready, .ready_arg = gj};
		int rc = iob_meta_run_grouped(gj->run, gj->j, &gj->mg);
		if (rc != 0) {
			int none_failed = -1;
			gj->rc = rc;
			__atomic_compare_exchange_n(&g->failed, &none_failed, (int)(gj - g->jobs), 0, __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED);
			__atomic_store_n(&g->stop, 1, __ATOMIC_RELAXED);
		}
		if (!gj->arrived) /* failed before its first phase: let the others go */
			iob_barrier_arrive(g->start);
		__atomic_store_n(&gj->done, 1, __ATOMIC_RELEASE);
		return;
	}
	size_t n = job->threads, per = iob_job_stream_files(job);
	size_t nfiles = per ? gj->jf.fl.n / n : gj->jf.fl.n;
	for (size_t k = 0;
	     k < gj->nph && !__atomic_load_n(&g->stop, __ATOMIC_RELAXED) && !__atomic_load_n(&gj->halted, __ATOMIC_RELAXED);
	     k++) {
		struct gphase *gp = &gj->ph[k];
		struct iob_phase_spec spec;
		struct iob_shape shape;
		iob_runner_phase_spec(gj->run, job, gj->b, &gj->jf, gp->phase, gp->bs, &spec, &shape);
		gp->no_ramp = iob_runner_written_apply(&gj->jf, job, gp->phase, gp->bs, &spec);
		spec.streams_stop = &gp->stop;
		if (job->exit_others && k + 1 == gj->nph) {
			spec.streams_over = group_exit_others;
			spec.streams_over_arg = gj;
		}
		if (k == 0) {
			spec.ready = group_ready;
			spec.ready_arg = gj;
		}
		if (gp->phase != IOB_PHASE_WRITE && job->evict_before_read)
			for (size_t i = 0; i < gj->jf.fl.n; i++)
				if (iob_cache_evict(gj->jf.open[i]) == -ENOTSUP)
					gp->evict_failed = 1;
		gp->reads = gp->phase != IOB_PHASE_WRITE;
		iob_runner_read_plan(job, &gj->jf, gp->bs, &gp->plan);
		if (gp->reads)
			iob_caveat_measure_read(&gp->plan, &gp->facts);
		iob_runner_observe_start(gj->run, job, &gj->jf.fl, gp->phase, gp->bs, &spec, &gp->ob);
		spec.iolog = gp->iolog = iob_runner_iolog_start(gj->run, job, gp->phase, spec.file_size, n, &gp->iolog_oom);
		__atomic_store_n(&gp->shown, gp->ob.live, __ATOMIC_RELEASE);
		struct iob_iolog_writer *writer = iob_runner_iolog_writer(gj->run, gj->j, gp->iolog, n);
		gp->rc = iob_streams_run(&spec, n, (const char *const *)gj->jf.open, nfiles, (int)per, &g->stop,
					 &gp->st);
		iob_runner_iolog_writer_stop(writer);
		__atomic_store_n(&gj->ran, k + 1, __ATOMIC_RELEASE);
		gp->unwritten = UINT64_MAX;
		if (gp->rc == 0) { /* what the streams wrote, summed (the files are shared or each its own) */
			struct iob_phase_result w;
			iob_phase_result_init(&w);
			for (size_t i = 0; i < gp->st.n; i++)
				w.bytes_written += gp->st.r[i].bytes_written;
			iob_runner_measure_unwritten(&gj->jf, &w);
			gp->unwritten = w.unwritten_bytes;
		}
		struct iob_phase_result span; /* the streams' window: the last interval ends with it */
		iob_phase_result_init(&span);
		for (size_t i = 0; gp->rc == 0 && i < gp->st.n; i++) {
			const struct iob_phase_result *x = &gp->st.r[i];
			if (!span.start_ns || (x->start_ns && x->start_ns < span.start_ns))
				span.start_ns = x->start_ns;
			span.end_ns = x->end_ns > span.end_ns ? x->end_ns : span.end_ns;
		}
		iob_runner_observe_end(&gp->ob, &span);
		gp->ran = gp->rc == 0;
		for (size_t i = 0; gp->ran && i < n; i++) {
			int st = gp->st.r[i].status;
			if (st < 0 || (st == IOB_STATUS_MISMATCH && gp->rc >= 0))
				gp->rc = st;
		}
		if (gp->rc == 0 && gp->st.n == n)
			iob_runner_written_keep(&gj->jf, job, gp->phase, gp->bs, gp->st.r, n);
		if (gp->rc != 0) {
			int none_failed = -1;
			gj->rc = gp->rc;
			__atomic_compare_exchange_n(&g->failed, &none_failed, (int)(gj - g->jobs), 0, __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED);
			__atomic_store_n(&g->stop, 1, __ATOMIC_RELAXED);
			break;
		}
	}
	if (!gj->arrived) /* never reached its first phase's start: let the others go */
		iob_barrier_arrive(g->start);
	/* exit_others, where the end of the I/O did not stop the others (a
	 * status not clean then, clean now: a verify's halt), as the phase ended */
	if (job->exit_others && !gj->rc && gj->ran == gj->nph && gj->nph) {
		const struct gphase *last = &gj->ph[gj->nph - 1];
		int clean = 1;
		for (size_t i = 0; i < last->st.n; i++)
			clean &= last->st.r[i].status == 0 && !last->st.r[i].interrupted;
		group_exit_others(gj, clean);
	}
	__atomic_store_n(&gj->done, 1, __ATOMIC_RELEASE);
}

/* One phase of a group's job, on the runner's thread after the join: its
 * stream records, intervals, notes and phase record.  cut: no signal came,
 * so a stopped stream was stopped by another job's failure.  first_failed:
 * the job is the group's first to fail, whose error the run reports. */
static void group_emit_phase(struct iob_run *run, struct gjob *gj, struct gphase *gp, int cut, int first_failed)
{
	const struct iob_job *job = gj->job;
	struct job_files *jf = &gj->jf;
	struct phase_run pr = {.run = run, .job = job, .j = gj->j, .evict_failed = gp->evict_failed};
	struct iob_phase_result r;
	struct iob_aggregate agg = {0};
	int streams = job->threads > 1, stopped = 0;
	iob_runner_observe_emit(run, gj->j, job, gp->phase, &gp->ob);
	iob_runner_iolog_emit(run, gj->j, job, gp->phase, gp->iolog, job->threads, gp->iolog_oom);
	gp->iolog = NULL;
	if (!gp->ran) {
		iob_run_fail(run, 0, "job %s: cannot start %u streams: %s", job->name, job->threads,
			     strerror(-gp->rc));
		return;
	}
	for (size_t i = 0; i < gp->st.n; i++) {
		struct iob_phase_result *s = &gp->st.r[i];
		iob_runner_unmask(s->error, sizeof s->error, jf);
		iob_runner_unmask(s->bad_file, sizeof s->bad_file, jf);
		if (cut && s->interrupted) {
			s->interrupted = 0;
			gp->st.cut[i] = 1;
		}
		stopped |= gp->st.cut[i];
	}
	if (streams) {
		if (iob_runner_streams_aggregate(&gp->st, &agg) != 0) {
			iob_run_fail(run, 0, "out of memory");
			return;
		}
		for (size_t i = 0; i < gp->st.n; i++)
			iob_runner_emit_stream(run, job, jf, i, &gp->st);
		iob_runner_streams_result(&gp->st, &agg, &r);
		if (stopped)
			agg.partial = 1;
	} else {
		r = gp->st.r[0]; /* shallow: the histograms stay the stream's */
	}
	if (stopped && r.status == 0)
		pr.status = "stopped";
	if (r.interrupted)
		run->interrupted = 1;
	r.unwritten_bytes = gp->unwritten;
	iob_runner_phase_notes(run, job, gj->b, &jf->fl, gp->phase, gp->reads ? &gp->plan : NULL, &gp->facts,
			       &r, gp->evict_failed);
	iob_runner_written_note(run, job, gp->phase, gp->st.r, gp->st.n, gp->no_ramp);
	int er = iob_runner_emit_phase(&pr, &jf->fl, &r, &gp->facts, streams ? &agg : NULL);
	if (er < 0 && !run->error[0])
		iob_run_fail(run, 0, "job %s: the phase record could not be made", job->name);
	iob_runner_print_live_notes(run);
	if (first_failed && gp->rc != 0) { /* the job that failed first says why, whatever came before */
		run->error[0] = '\0';
		run->usage = 0;
	}
	if (gp->rc == IOB_STATUS_MISMATCH) {
		iob_run_fail(run, 0,
			     "verify failed in job %s: %llu bad block(s); first bad byte at offset %llu of %s: expected "
			     "0x%02x, found 0x%02x%s%s",
			     job->name, (unsigned long long)r.bad_blocks, (unsigned long long)r.first_bad_offset,
			     r.bad_file, r.expected, r.found, r.verify_why[0] ? "; " : "", r.verify_why);
		if (job->verify_dump) {
			struct iob_pattern vp = job->pattern;
			iob_runner_fill_bind(run, job, &vp, gp->bs);
			iob_verify_dump(&vp, &r, gp->bs);
		}
	} else if (gp->rc < 0)
		iob_run_fail(run, gp->rc == -EINVAL && r.ops == 0, "job %s: %s", job->name,
			     streams ? r.error : gp->st.r[0].error);
	if (streams)
		iob_aggregate_free(&agg);
}

/* One "group" record per phase name, over every stream of every job's
 * phases of that name (every block size of a sweep). */
static void group_emit_totals(struct iob_run *run, struct group *g, int cut)
{
	for (int p = IOB_PHASE_WRITE; p <= IOB_PHASE_MIXED; p++) {
		size_t nv = 0, jobs = 0;
		int same_bs = 1, stopped = 0;
		uint64_t bs = 0;
		double jmin = 0, jmax = 0;
		for (size_t k = 0; k < g->n; k++)
			for (size_t q = 0; q < g->jobs[k].ran; q++)
				if (g->jobs[k].ph[q].ran && g->jobs[k].ph[q].phase == (enum iob_phase)p)
					nv += g->jobs[k].ph[q].st.n;
		if (!nv)
			continue;
		const struct iob_phase_result **v = calloc(nv, sizeof *v);
		if (!v) {
			iob_run_fail(run, 0, "out of memory");
			return;
		}
		nv = 0;
		for (size_t k = 0; k < g->n; k++) {
			int counted = 0;
			for (size_t q = 0; q < g->jobs[k].ran; q++) {
				struct gphase *gp = &g->jobs[k].ph[q];
				if (!gp->ran || gp->phase != (enum iob_phase)p)
					continue;
				struct iob_aggregate one;
				const struct iob_phase_result **w = v + nv;
				for (size_t i = 0; i < gp->st.n; i++) {
					v[nv++] = &gp->st.r[i];
					stopped |= cut && gp->st.cut[i];
				}
				/* the job's own rate in this phase, as its phase record gives it */
				double bw = 0;
				if (iob_aggregate(w, gp->st.n, &one) == 0) {
					bw = one.bw;
					iob_aggregate_free(&one);
				}
				if (!jobs && !counted) {
					jmin = jmax = bw;
					bs = gp->bs;
				}
				jmin = bw < jmin ? bw : jmin;
				jmax = bw > jmax ? bw : jmax;
				same_bs &= gp->bs == bs;
				if (!counted++)
					jobs++;
			}
		}
		struct iob_aggregate agg;
		if (iob_aggregate(v, nv, &agg) == 0) {
			iob_rec_group(&run->rb, g->jobs[0].job->group, jobs, same_bs, &agg, jmin, jmax, stopped);
			iob_run_record(run, &run->rb.rec);
			iob_aggregate_free(&agg);
		} else {
			iob_run_fail(run, 0, "out of memory");
		}
		free(v);
	}
}

static void group_free(struct group *g)
{
	for (size_t k = 0; k < g->n; k++) {
		struct gjob *gj = &g->jobs[k];
		for (size_t q = 0; gj->ph && q < gj->nph; q++)
			iob_streams_free(&gj->ph[q].st);
		free(gj->ph);
		if (gj->opened)
			iob_runner_job_files_free(&gj->jf);
		if (gj->meta)
			iob_meta_group_free(&gj->mg);
	}
	free(g->jobs);
	iob_barrier_destroy(g->start);
}

/* What is left of one phase of a group's job, in seconds (< 0: unknown),
 * from its counters l (NULL: not started); *rate is set from a started one. */
static double gphase_left(const struct iob_job *job, const struct gphase *gp, const struct iob_live *l, size_t n,
			  uint64_t now, double *rate, int *ramping)
{
	double runtime = (double)job->runtime_ns / 1e9;
	if (!l) { /* not started: its time limit, or its bytes at the job's rate */
		if (job->runtime_ns)
			return runtime + (double)job->ramp_ns / 1e9;
		return gp->expect && *rate > 0 ? (double)gp->expect / *rate : -1;
	}
	uint64_t bytes = 0, start = 0;
	int ramp = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t s = __atomic_load_n(&l[i].start_ns, __ATOMIC_RELAXED);
		ramp |= __atomic_load_n(&l[i].ramping, __ATOMIC_RELAXED);
		bytes += __atomic_load_n(&l[i].bytes, __ATOMIC_RELAXED);
		if (s && (!start || s < start))
			start = s;
	}
	*ramping = ramp;
	if (ramp)
		return job->runtime_ns ? runtime : -1; /* the window has not started */
	double t = start && now > start ? (double)(now - start) / 1e9 : 0, left = -1;
	if (bytes && t > 0)
		*rate = (double)bytes / t;
	if (gp->expect && *rate > 0)
		left = (double)(gp->expect - (bytes < gp->expect ? bytes : gp->expect)) / *rate;
	if (job->runtime_ns && (left < 0 || runtime - t < left))
		left = runtime - t > 0 ? runtime - t : 0;
	return left;
}

/* The group's progress line (progress.h) from its jobs' counters: what they
 * moved, and the time until the last of them ends. */
static void group_draw(const struct iob_run *run, struct group *g, struct iob_group_line *st, uint64_t t0)
{
	uint64_t now = iob_now_ns(), expect = 0;
	struct iob_group_view v = {.tool = run->opts.tool, .group = g->jobs[0].job->group, .njobs = g->n};
	int known = 1, all_ramping = 1;
	for (size_t k = 0; k < g->n; k++) {
		const struct gjob *gj = &g->jobs[k];
		const struct iob_job *job = gj->job;
		size_t n = job->threads > 1 ? job->threads : 1, ran = __atomic_load_n(&gj->ran, __ATOMIC_ACQUIRE);
		int over = __atomic_load_n(&gj->done, __ATOMIC_ACQUIRE);
		double left = 0, rate = 0;
		v.running += !over;
		for (size_t q = 0; q < gj->nph; q++) {
			const struct gphase *gp = &gj->ph[q];
			const struct iob_live *l = __atomic_load_n(&gp->shown, __ATOMIC_ACQUIRE);
			for (size_t i = 0; l && i < n; i++) {
				v.bytes += __atomic_load_n(&l[i].bytes, __ATOMIC_RELAXED);
				v.ops += __atomic_load_n(&l[i].ops, __ATOMIC_RELAXED);
			}
			expect += gp->expect;
			known &= gp->expect != 0;
			if (over || q < ran || left < 0)
				continue; /* over, or the job's end is unknown already */
			int ramping = 0;
			double x = gphase_left(job, gp, l, n, now, &rate, &ramping);
			if (l && !ramping)
				all_ramping = 0;
			left = x < 0 ? -1 : left + x;
		}
		if (!over && (left < 0 || v.left_s < 0))
			v.left_s = -1;
		else if (!over && left > v.left_s)
			v.left_s = left;
	}
	v.ramping = v.running && all_ramping;
	double t = (double)(now - t0) / 1e9;
	if (known && expect)
		v.frac = (double)v.bytes / (double)expect;
	else
		v.frac = v.left_s >= 0 && t + v.left_s > 0 ? t / (t + v.left_s) : -1;
	iob_progress_draw_group(st, &v, now);
}

/* The jobs [a, e) of one group, at once.  Returns 0 or the first failed
 * job's status. */
int iob_runner_run_group(struct iob_run *run, size_t a, size_t e)
{
	struct group g;
	int rc = 0;
	memset(&g, 0, sizeof g);
	g.failed = -1;
	g.n = e - a;
	g.jobs = calloc(g.n, sizeof *g.jobs);
	if (!g.jobs || iob_barrier_init(&g.start, (unsigned)g.n) != 0) {
		free(g.jobs);
		iob_run_fail(run, 0, "out of memory");
		return -ENOMEM;
	}
	if (!run->pins && !(run->pins = calloc(1, sizeof *run->pins))) {
		group_free(&g);
		iob_run_fail(run, 0, "out of memory");
		return -ENOMEM;
	}
	run->quiet = 0;
	/* every job's files, on this thread (the held directories are its own) */
	for (size_t k = 0; k < g.n && rc == 0; k++) {
		struct gjob *gj = &g.jobs[k];
		const struct iob_job *job = &run->suite->jobs[a + k];
		*gj = (struct gjob){.g = &g, .run = run, .j = a + k, .job = job};
		gj->dirs0 = gj->dirs1 = run->pins->nmade;
		if (job->workload == IOB_WORKLOAD_FILES) { /* no data file, no data phase */
			gj->meta = 1;
			continue;
		}
		gj->b = iob_registry_find(run->reg, IOB_PLUGIN_BACKEND, job->backend);
		rc = iob_runner_job_files_open(run, job, &gj->jf);
		gj->dirs1 = run->pins->nmade;
		gj->opened = 1;
		uint64_t top = job->block_size_max ? job->block_size_max : job->block_size;
		size_t steps = 0, phases = 0;
		for (uint64_t bs = job->block_size; bs <= top; bs *= 2) {
			steps++;
			if (bs > UINT64_MAX / 2)
				break;
		}
		enum iob_phase order[4];
		phases = iob_phase_order(job->phases, order);
		gj->ph = rc == 0 ? calloc(steps * phases + 1, sizeof *gj->ph) : NULL;
		if (rc == 0 && !gj->ph) {
			iob_run_fail(run, 0, "out of memory");
			rc = -ENOMEM;
		}
		for (uint64_t bs = job->block_size; rc == 0 && bs <= top; bs *= 2) {
			for (size_t p = 0; p < phases; p++)
				gj->ph[gj->nph++] = (struct gphase){.phase = order[p],
								    .bs = bs,
								    .expect = iob_runner_expect_bytes(job, &gj->jf.fl, bs)};
			if (bs > UINT64_MAX / 2)
				break;
		}
	}
	size_t started = 0;
	for (; rc == 0 && started < g.n; started++)
		if ((rc = iob_thread_start(&g.jobs[started].thread, group_job_main, &g.jobs[started])) != 0)
			iob_run_fail(run, 0, "cannot start the %zu jobs of group %u: %s", g.n, run->suite->jobs[a].group,
				     strerror(-rc));
	if (rc != 0 && started) { /* those started wait at the barrier: stop them, stand in for the rest */
		__atomic_store_n(&g.stop, 1, __ATOMIC_RELAXED);
		for (size_t k = started; k < g.n; k++)
			iob_barrier_arrive(g.start);
	}
	/* wait, passing a stop signal on to every job of the group, and drawing
	 * the group's progress line every 0.5 s when it is wanted */
	int line = started == g.n && iob_progress_wanted(iob_progress_mode);
	uint64_t t0 = iob_now_ns(), next_draw = t0 + 500000000ull;
	struct iob_group_line gl = {.last_ns = t0}; /* the first rate: since the start */
	for (;;) {
		size_t done = 0;
		for (size_t k = 0; k < started; k++)
			done += __atomic_load_n(&g.jobs[k].done, __ATOMIC_ACQUIRE) != 0;
		if (done == started)
			break;
		if (*run->live_stop)
			__atomic_store_n(&g.stop, 1, __ATOMIC_RELAXED);
		if (line && iob_now_ns() >= next_draw) {
			group_draw(run, &g, &gl, t0);
			while (next_draw <= iob_now_ns())
				next_draw += 500000000ull;
		}
		iob_sleep_ns(2000000, NULL);
	}
	if (line)
		iob_progress_clear();
	for (size_t k = 0; k < started; k++)
		iob_thread_join(g.jobs[k].thread);
	int cut = !*run->live_stop;
	if (started == g.n) {
		/* the first job that failed says why the run failed */
		if (g.failed >= 0) {
			struct gjob *f = &g.jobs[g.failed];
			rc = f->rc;
			run->suite_job = f->j;
		}
		for (size_t k = 0; k < g.n; k++) {
			struct gjob *gj = &g.jobs[k];
			iob_fs_facts(gj->job->dir, run->fs_type, sizeof run->fs_type, &run->fs_block_size, run->device,
				     sizeof run->device);
			if (gj->meta)
				iob_meta_group_emit(run, gj->j, &gj->mg, cut, g.failed == (int)k);
			for (size_t q = 0; q < gj->ran; q++)
				group_emit_phase(run, gj, &gj->ph[q], cut, g.failed == (int)k);
		}
		group_emit_totals(run, &g, cut);
		for (size_t k = 0; k < g.n; k++) { /* each job whose end stopped others */
			const struct iob_job *x = g.jobs[k].job;
			size_t others = 0;
			for (size_t o = 0; o < g.n; o++)
				others += o != k && (!x->exit_report || g.jobs[o].job->report_group == x->report_group);
			if (!g.jobs[k].exiter || !(others || x->threads > 1 || x->exit_others == IOB_EXIT_ALL))
				continue;
			iob_notes_add(&run->notes,
				      "job %s ended first%s: exit_others = %s stopped the other jobs of %s%u%s (their "
				      "phases say stopped)%s",
				      x->name, x->threads > 1 ? " (its first stream to end)" : "",
				      x->exit_others == IOB_EXIT_ALL ? "all" : "group",
				      x->exit_report ? "its reporting group (fio's exit_what=group) in group " : "group ",
				      x->group, x->threads > 1 ? " and the job's other streams" : "",
				      x->exit_others == IOB_EXIT_ALL && e < run->suite->njobs ? "; the jobs after it do not run"
											      : "");
			if (x->exit_others == IOB_EXIT_ALL)
				run->exit_all = g.jobs[k].j + 1;
		}
	}
	for (size_t k = 0; k < started; k++) { /* what the jobs created, as it is now */
		struct gjob *gj = &g.jobs[k];
		gj->made0 = run->pins->nmade;
		if (gj->opened)
			iob_runner_note_made(run, &gj->jf);
		gj->made1 = run->pins->nmade;
	}
	/* what each job made goes unless it keeps its files: the files first,
	 * then the directories (those made for the job, newest first) */
	uint64_t files = 0, dirs = 0;
	for (size_t k = g.n; k-- > 0;)
		if (!g.jobs[k].job->keep_files)
			iob_runner_remove_made_range(run, g.jobs[k].made0, g.jobs[k].made1, &files, &dirs);
	for (size_t k = g.n; k-- > 0;)
		if (!g.jobs[k].job->keep_files)
			iob_runner_remove_made_range(run, g.jobs[k].dirs0, g.jobs[k].dirs1, &files, &dirs);
	group_free(&g);
	return rc;
}
