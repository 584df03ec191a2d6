/*
 * iobench/runner.h - runs whole jobs and suites: expands the block-size
 * sweep and phases of each job into engine phases, prepares and removes
 * files, probes the page cache, and hands one "phase" record per phase to
 * the outputs.  Used by `iobench run` and by legacy tools that need no more.
 */
#ifndef IOBENCH_RUNNER_H
#define IOBENCH_RUNNER_H

#include <signal.h>
#include "iobench/engine.h"
#include "iobench/output.h"
#include "iobench/profile.h"
#include "iobench/result.h"

struct iob_run_ctx {
	const struct iob_registry *reg;
	struct iob_outputs *out;       /* may be NULL: no records emitted */
	struct iob_notes *notes;       /* caveats are appended here */
	volatile sig_atomic_t *stop;   /* may be NULL */
	char error[1024];              /* the first failure, one line */
	int interrupted;
};

/* Every check that can be made without touching a file: the job is valid,
 * its backend is loaded and can do the phases asked, its directory exists,
 * its targets are plain files (devices only with allow_devices), a read-only
 * job's files exist, and there is room for what it writes.  One-line reason
 * in err. */
int iob_job_check(const struct iob_job *job, const struct iob_registry *reg, char *err, size_t errlen);
/* The same for a whole suite, where a read-only job may read what an earlier
 * job of the suite writes and keeps. */
int iob_suite_check(const struct iob_suite *suite, const struct iob_registry *reg, char *err, size_t errlen);
/* Check every job, then run them in order.  Returns 0, IOB_STATUS_MISMATCH or
 * -errno; ctx->error says what failed. */
int iob_suite_run(const struct iob_suite *suite, struct iob_run_ctx *ctx);
int iob_job_run(const struct iob_job *job, struct iob_run_ctx *ctx);

/* Caveat when 10% or more of these files is in the page cache (measured with
 * mincore just before a read); `what` names the phase. */
void iob_cache_residency_note(struct iob_notes *notes, const char *what, const char *const *files, size_t nfiles);
/* Caveat when a data set of total_bytes is under twice physical memory. */
void iob_cache_memory_note(struct iob_notes *notes, const char *what, uint64_t total_bytes);

#endif
