/*
 * check_memory.c - what a run holds in memory, budgeted before anything
 * runs (iob_suite_check, check.c, calls these): every stream's buffers and
 * histograms at its largest phase, the rows of a per-I/O log, the list of a
 * mixed (or error-passing write) phase's writes that the verify after it
 * reads back; each job, and each group's jobs together, within
 * memory_limit or what the OS says is available.  Touches no file.
 */
#include <errno.h>
#include <stdio.h>

#include "iobench/engine.h"
#include "iobench/fiolog.h"
#include "iobench/os.h"
#include "iobench/runner.h"
#include "iobench/shape.h"
#include "iobench/units.h"
#include "check.h"

/* The bytes a stream's phase covers: the job's size or, without one, its
 * existing file's (or device's); 0 when neither is known. */
static uint64_t job_target_bytes(const struct iob_job *job)
{
	uint64_t size = 0;
	struct iob_filelist fl;
	if (!job->size && iob_job_files(job, &fl) == 0) {
		if (fl.n && iob_target_size(fl.paths[0], &size) != 0)
			size = 0;
		iob_filelist_free(&fl);
	}
	return job->size ? job->size : size;
}

/* Per-I/O logs (fiolog.h): the events a stream's log holds at once: the
 * most I/Os its phase may do (from the job's size or, without one, its
 * existing file's or device's) when they fit in IOB_FIOLOG_RING, else that
 * ring, written out as the phase runs; 0: no such log. */
static uint64_t job_iolog_ios(const struct iob_job *job)
{
	if (!iob_fiolog_wanted(job) || job->log_interval_ns)
		return 0;
	uint64_t bound = iob_fiolog_ios_bound(job, job_target_bytes(job));
	return bound < IOB_FIOLOG_RING ? bound : IOB_FIOLOG_RING;
}

/* A write phase passes over some failed writes (continue_on_error for
 * writes, or ignore_error with a list for them). */
static int job_passes_write_errors(const struct iob_job *job)
{
	if (job->continue_on_error & 2)
		return 1;
	struct iob_shape sh = {0};
	char why[160];
	return job->ignore_error[0] && iob_ignore_error_parse(job->ignore_error, &sh, why, sizeof why) == 0 &&
	       sh.nignore[1];
}

/* A mixed phase before a verify keeps each stream's writes for it (an
 * iob_wlog_ent each, until the verify has read them back): at most the
 * mixed phase's I/Os; 0: no such list; UINT64_MAX: not known before the
 * run.  So does a write phase before a verify that passes over failed
 * writes, so that its verify reads the others and not those (as fio drops a
 * failed write from its verify list), where its I/Os are known before the
 * run (else 0: its verify replays the write's order, the failed block too).
 * The runner reserves it (iob_runner_job_files_open) before the clock. */
uint64_t iob_check_wlog_writes(const struct iob_job *job)
{
	const uint32_t mixed_verify = IOB_PHASE_BIT(IOB_PHASE_MIXED) | IOB_PHASE_BIT(IOB_PHASE_VERIFY);
	const uint32_t write_verify = IOB_PHASE_BIT(IOB_PHASE_WRITE) | IOB_PHASE_BIT(IOB_PHASE_VERIFY);
	if (job->load.verify_backlog) { /* the blocks written and not yet read back */
		if (!(job->phases & (IOB_PHASE_BIT(IOB_PHASE_WRITE) | IOB_PHASE_BIT(IOB_PHASE_MIXED))))
			return 0;
		if (job->iodepth <= 1) /* at most verify_backlog */
			return job->load.verify_backlog;
		/* the queued loop lists a write as it goes out and reads back only
		 * what has completed: up to a batch, twice a backlog and twice the
		 * depth (engine_queue.c; past it the oldest is read back first) */
		uint64_t batch = job->load.verify_backlog_batch ? job->load.verify_backlog_batch : job->load.verify_backlog;
		return 2 * (job->load.verify_backlog + job->iodepth) + batch;
	}
	if ((job->phases & mixed_verify) == mixed_verify)
		return iob_job_ios_bound(job, job_target_bytes(job));
	if ((job->phases & write_verify) != write_verify || !job_passes_write_errors(job) || job->time_based ||
	    job->steady_state)
		return 0;
	const uint64_t n = iob_job_ios_bound(job, job_target_bytes(job));
	return n == UINT64_MAX ? 0 : n;
}

/* The list of a mixed phase's writes that the verify after it reads back
 * is budgeted before the run, so its length must be known then. */
static int check_wlog(const struct iob_job *job, char *err, size_t errlen)
{
	if (iob_check_wlog_writes(job) != UINT64_MAX)
		return 0;
	snprintf(err, errlen,
		 "[%s] phases = mixed,verify keeps every write of the mixed phase for the verify after it, but %s, "
		 "so its number of writes is not known before the run: give size (or ops) without time_based, or "
		 "leave out verify",
		 job->name,
		 job->time_based || job->steady_state ? "the job runs for a time" : "its size is not known before the run");
	return -EINVAL;
}

/* A per-I/O log the run can keep: every I/O timed (the memory:
 * check_memory). */
static int check_iolog(const struct iob_job *job, char *err, size_t errlen)
{
	uint64_t ios = job_iolog_ios(job);
	if (!ios)
		return 0;
	const char *key = job->bw_log[0] ? "bw_log" : job->iops_log[0] ? "iops_log" : "lat_log";
	const char *val = job->bw_log[0] ? job->bw_log : job->iops_log[0] ? job->iops_log : job->lat_log;
	const char *why = NULL;
	if (job->latency == IOB_LATENCY_OFF)
		why = "latency = off times no I/O";
	else if (job->series)
		why = "series times its blocks on a clock of its own";
	if (!why)
		return 0;
	snprintf(err, errlen, "[%s] %s = %s without log_interval keeps a row per I/O, but %s: give log_interval "
			      "(fio's log_avg_msec)",
		 job->name, key, IOB_Q(val), why);
	return -EINVAL;
}

/* sprandom's plan for the job's size (or its target's): 1 with *p, 0
 * without sprandom, negative with one line in err for sizes it cannot use. */
static int job_spr_plan(const struct iob_job *job, struct iob_spr_plan *p, char *err, size_t errlen)
{
	struct iob_shape sh;
	if (!job->sprandom || iob_job_shape(job, &sh, err, errlen) < 0)
		return 0;
	uint64_t size = job_target_bytes(job);
	if (!size)
		return 0;
	int rc = iob_spr_plan(size, job->block_size, sh.spr_regions, sh.spr_op, sh.spr_cs, p, err, errlen);
	return rc ? rc : 1;
}

/* sprandom's sizes, with a size taken from the target (job.c checks a
 * given size). */
static int check_spr(const struct iob_job *job, char *err, size_t errlen)
{
	struct iob_spr_plan plan;
	char why[300];
	int rc = job_spr_plan(job, &plan, why, sizeof why);
	if (rc >= 0)
		return 0;
	snprintf(err, errlen, "[%s] %s", job->name, why);
	return rc;
}

/* What job holds at once at its peak: each stream's largest phase (at the
 * sweep's largest block size), and per stream the histograms the runner
 * keeps (its result's, the aggregate's share, the observer's copy). */
static uint64_t job_memory(const struct iob_job *job)
{
	uint64_t top = job->block_size_max > job->block_size ? job->block_size_max : job->block_size, peak = 0;
	struct iob_filelist fl;
	struct iob_shape sh;
	char why[8];
	if (iob_job_shape(job, &sh, why, sizeof why) > 0 && iob_shape_bs_max(&sh, top) > top)
		top = iob_shape_bs_max(&sh, top); /* bssplit: the buffers hold its largest size */
	if (job->phases == IOB_PHASE_BIT(IOB_PHASE_READ) && job->access == IOB_ACCESS_SEQ && job->threads <= 1 &&
	    !iob_is_stdin_path(job->filename) && iob_job_files(job, &fl) == 0) {
		/* a sequential read of one file smaller than the block: the engine's
		 * buffer is the file's size (a 1 GiB bigread block over 4 KiB) */
		uint64_t size;
		if (fl.n == 1 && iob_target_size(fl.paths[0], &size) == 0 && size < top)
			top = size ? size : 1;
		iob_filelist_free(&fl);
	}
	uint64_t series = 0;
	if (job->series && job->block_size) /* a sample per block read, every pass */
		series = iob_mul_sat(job->size / job->block_size + 1, job->loops ? job->loops : 1);
	for (unsigned p = IOB_PHASE_WRITE; p <= IOB_PHASE_MIXED; p++) {
		if (!(job->phases & IOB_PHASE_BIT(p)))
			continue;
		uint64_t m = iob_phase_memory((enum iob_phase)p, top, job->iodepth,
					      p == IOB_PHASE_READ ? series : 0);
		if (m > peak)
			peak = m;
	}
	peak = iob_add_sat(peak, 3 * sizeof(struct iob_hist));
	/* fio-style logs of intervals, a file per stream: each stream's own
	 * intervals (and its writes' apart, for a mixed phase) */
	if (iob_fiolog_wanted(job) && job->log_interval_ns && job->threads > 1)
		peak = iob_add_sat(peak, 6 * sizeof(struct iob_hist));
	/* a per-I/O log: an event per I/O of each logged phase (a job of a
	 * group keeps every phase's until the group has run) */
	unsigned logged = 0;
	for (unsigned p = IOB_PHASE_WRITE; p <= IOB_PHASE_MIXED; p++)
		logged += p != IOB_PHASE_VERIFY && (job->phases & IOB_PHASE_BIT(p));
	peak = iob_add_sat(peak, iob_mul_sat(iob_mul_sat(job_iolog_ios(job), sizeof(struct iob_io_event)), logged));
	peak = iob_add_sat(peak, iob_mul_sat(iob_check_wlog_writes(job), sizeof(struct iob_wlog_ent)));
	struct iob_spr_plan plan;
	if (job_spr_plan(job, &plan, why, sizeof why) == 1) /* sprandom: its probabilities and its ring */
		peak = iob_add_sat(peak, iob_spr_bytes(&plan));
	return iob_mul_sat(peak, job->threads ? job->threads : 1);
}

/* Every job, and every group's jobs together (they run at once), within the
 * memory the run may take: memory_limit, else what the OS says is available
 * (not checked when it cannot tell).  Jobs that run one after another free
 * their memory in between, so the suite's peak is its largest such unit. */
int iob_check_memory(const struct iob_suite *suite, char *err, size_t errlen)
{
	uint64_t avail = 0;
	int asked = 0;
	for (size_t a = 0, e; a < suite->njobs; a = e) {
		e = iob_check_group_end(suite, a);
		uint64_t total = 0, limit = 0, most = 0;
		size_t big = a;
		for (size_t i = a; i < e; i++) {
			const struct iob_job *j = &suite->jobs[i];
			uint64_t m = job_memory(j);
			total = iob_add_sat(total, m);
			if (m > most) {
				most = m;
				big = i;
			}
			if (j->memory_limit > limit)
				limit = j->memory_limit;
		}
		if (!limit && !asked) {
			avail = iob_available_memory();
			asked = 1;
		}
		uint64_t cap = limit ? limit : avail;
		if (!cap || total <= cap)
			continue;
		const struct iob_job *j = &suite->jobs[big];
		char need[32], have[32], unit[160], buf[32];
		iob_format_bytes((double)total, need, sizeof need);
		iob_format_bytes((double)cap, have, sizeof have);
		iob_format_bytes((double)(j->block_size_max > j->block_size ? j->block_size_max : j->block_size), buf,
				 sizeof buf);
		if (e - a > 1)
			snprintf(unit, sizeof unit, "group %u (%zu jobs at once; the most, job %s: %u stream(s), "
						    "iodepth %u, %s blocks)",
				 j->group, e - a, j->name, j->threads, j->iodepth, buf);
		else
			snprintf(unit, sizeof unit, "%u stream(s) x iodepth %u x %s blocks", j->threads, j->iodepth,
				 buf);
		unsigned long long mib = (unsigned long long)(total / 1048576u + 1);
		snprintf(err, errlen,
			 "[%s] memory: %s need %s at once (buffers and histograms%s%s%s), more than the %s %s; lower "
			 "threads, iodepth or block_size%s%s, or set memory_limit = %lluM (iobench --memory-limit "
			 "%lluM) to allow it",
			 j->name, unit, need, j->series ? ", 97 bytes a block read for the series and its summary" : "",
			 job_iolog_ios(j) ? ", a row of the per-I/O log for every I/O" : "",
			 j->sprandom ? ", sprandom's ring of the blocks to write again" : "", have,
			 limit ? "of memory_limit" : "available (MemAvailable)",
			 job_iolog_ios(j) ? ", give log_interval (fio's log_avg_msec)" : "",
			 j->sprandom ? ", raise spr_num_regions (smaller regions, a smaller ring)" : "", mib, mib);
		return -ENOMEM;
	}
	return 0;
}

int iob_check_job_logs(const struct iob_job *job, char *err, size_t errlen)
{
	int rc = check_iolog(job, err, errlen);
	if (!rc)
		rc = check_spr(job, err, errlen);
	return rc ? rc : check_wlog(job, err, errlen);
}
