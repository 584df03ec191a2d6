/*
 * runner_ranks.c - the runner's side of a run across MPI ranks (ranks.h;
 * runner.c's map): stonewall, the phase's start barrier and shared-file
 * regions, the phase's end (records handed to rank 0 and back), a job's
 * start.
 */
#include "runner_int.h"

#include <stdio.h>
#include <stdlib.h>

#include "iobench/coord.h"
#include "iobench/engine.h"
#include "iobench/os.h"
#include "ranks.h"

/* ---------------------------------------------- across MPI ranks (ranks.h) */

/* stonewall: a time limit on the phase's planned I/O (a bound, as runtime
 * is).  Every rank's clock starts when the start barrier returns, so every
 * rank stops at the same moment of the common time line. */
void iob_runner_stonewall(const struct iob_job *job, struct iob_phase_spec *spec)
{
	if (!job->stonewall_ns)
		return;
	if (!spec->runtime_ns || job->stonewall_ns < spec->runtime_ns)
		spec->runtime_ns = job->stonewall_ns;
}

static void rank_ready(void *arg)
{
	struct rank_start *rs = arg;
	rs->rc = iob_coord_barrier();
	rs->epoch_ns = iob_now_ns();
	rs->watch = iob_ranks_watch(rs->tag, rs->flag, rs->live, rs->nlive);
}

/* The phase's start across ranks: the barrier after every file is open (the
 * engine's ready; streams: stream 0's thread once every stream is ready, or
 * before they start where MPI cannot take a call from another thread), and
 * with a shared file each rank's own region (sequential) or own random
 * offsets. */
void iob_runner_rank_phase_spec(const struct iob_job *job, struct iob_phase_spec *spec, struct rank_start *rs,
				int streams)
{
	static int phases;
	uint64_t k = (uint64_t)iob_coord_rank(), n = (uint64_t)iob_coord_size();
	rs->tag = phases++;
	rs->flag = spec->stop;
	if (streams && !iob_coord_serialized()) {
		rank_ready(rs);
	} else {
		spec->ready = rank_ready;
		spec->ready_arg = rs;
	}
	spec->seed = job->seed + k * 0xbf58476d1ce4e5b9ull;
	if (job->shared_file && n > 1) {
		spec->truncate = 0; /* another rank may be writing its region already */
		if (job->access == IOB_ACCESS_SEQ && spec->file_size && !spec->region_fixed) {
			uint64_t bs = spec->block_size, blocks = spec->file_size / bs;
			uint64_t b0 = blocks * k / n, b1 = blocks * (k + 1) / n;
			spec->region_off = b0 * bs;
			spec->region_len = k + 1 == n ? spec->file_size - b0 * bs : (b1 - b0) * bs;
		}
	}
}

/* Rank 0's records, handed back by ranks.c for the runner to emit. */
static void rank_record(void *arg, const struct iob_record *rec)
{
	iob_run_record(arg, rec);
}

static void rank_fields(void *arg, size_t j, const struct iob_phase_result *r, struct iob_recbuf *rb)
{
	struct iob_run *run = arg;
	const struct iob_run_hooks *h = run->opts.hooks;
	if (h && h->record_fields)
		h->record_fields(h->arg, run, j, r, rb);
}

/* The phase's end across ranks: every rank's record and result to rank 0,
 * the verdict back; a failure or a stop anywhere becomes every rank's. */
int iob_runner_rank_phase_end(struct iob_run *run, size_t j, const char *file, const struct iob_record *rec,
			      const struct iob_phase_result *r, const struct rank_start *rs, int rc)
{
	struct iob_rank_verdict v;
	/* the rank's first-done counts (docs/mpi.md): its totals when it finished first */
	struct iob_phase_result *mine_r = malloc(sizeof *mine_r);
	if (mine_r) /* (without memory: r's own, its totals or none) */
		*mine_r = *r; /* shallow: the histograms stay r's */
	uint64_t fd_bytes = r->bytes, fd_ops = r->ops;
	/* a stop message from a failed rank cut this phase: not a signal */
	iob_ranks_unwatch(rs->watch, rc < 0, &fd_bytes, &fd_ops);
	if (mine_r) {
		mine_r->first_done_bytes = fd_bytes;
		mine_r->first_done_ops = fd_ops;
		r = mine_r;
	}
	int cut = IOB_RANKS_CUT;
	__atomic_compare_exchange_n((int *)run->live_stop, &cut, 0, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	const char *mine = rc ? (run->opts.hide_job_names ? iob_error_without_job(run->error) : run->error) : "";
	const struct iob_ranks_emit emit = {run->host, run->suite, &run->rb, rank_record, rank_fields, run};
	iob_ranks_phase(&emit, j, file, rec, r, rs->epoch_ns, rc, mine, (int)*run->live_stop, &v);
	free(mine_r);
	if (v.sig)
		run->agreed_stop = v.sig;
	if (v.status != 0) {
		snprintf(run->error, sizeof run->error, "%s", v.text);
		if (rc == 0)
			rc = v.status;
	}
	return rc;
}

/* A job's start across ranks: every rank has its files ready, or all stop. */
int iob_runner_rank_job_start(struct iob_run *run, int rc)
{
	char text[2048];
	const char *mine = rc ? (run->opts.hide_job_names ? iob_error_without_job(run->error) : run->error) : "";
	int a = iob_coord_agree(rc, mine, NULL, NULL, 0, text, sizeof text);
	if (a != 0) {
		snprintf(run->error, sizeof run->error, "%s", text);
		return rc ? rc : a;
	}
	return rc;
}
