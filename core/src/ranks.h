/*
 * ranks.h - one phase across MPI ranks (runner.c's side of issue 12,
 * docs/mpi.md).  Every rank calls iob_ranks_phase once per phase, whatever
 * happened to it: its phase record (or none), its result with its times
 * taken from its own phase epoch, its status and error line.  Rank 0
 * emits a "rank" record per rank and the aggregate "phase" record
 * (iob_aggregate over the ranks' results); every rank gets the verdict.
 */
#ifndef IOBENCH_RANKS_H
#define IOBENCH_RANKS_H

#include <signal.h>
#include <stdint.h>
#include "iobench/profile.h"
#include "iobench/result.h"

/* What the ranks compare of the run (the runner's options, ranks.c needs no
 * runner): source and protect as in struct iob_run_opts. */
struct iob_ranks_who {
	const char *source;
	const char *const *protect;
	size_t nprotect;
	int hide_job_names;
};

/* How rank 0 hands the gathered records back: the runner emits them
 * (record) and adds a tool's fields to the aggregate (fields, may be NULL).
 * rb is the runner's record buffer for the aggregate. */
struct iob_ranks_emit {
	const char *host;
	const struct iob_suite *suite;
	struct iob_recbuf *rb;
	void (*record)(void *arg, const struct iob_record *rec);
	void (*fields)(void *arg, size_t j, const struct iob_phase_result *r, struct iob_recbuf *rb);
	void *arg;
};

struct iob_rank_verdict {
	int32_t status;	 /* the lowest failing rank's status, else a mismatch's, else 0 */
	int32_t sig;	 /* a stop signal some rank received, else 0 */
	int32_t rank;	 /* the failing rank, -1 when none */
	char text[2048]; /* "rank K (HOST): its error" */
};

/* After the checks (status, reason: this rank's): the ranks agree, or all
 * stop naming the first that failed.  Also refused across ranks: command
 * lines or profiles that differ (opts->source, the bytes of the protected
 * files: the profile and its includes, and the normalised suite: every
 * job's settings but its paths), series jobs (bigread's
 * per-block records), and a shared file with threads > 1.  mine: this
 * rank's reason as the run words it ("" when status is 0).  Returns 0 or
 * the status, with the one line in err. */
/* What iob_ranks_open compares of each job, a part per setting: every row
 * of the key table that sets a field (keys.c; IOB_KEY_PATH rows only as set
 * or not, IOB_KEY_STRING rows as text, IOB_KEY_PATTERN rows field by field,
 * iob_ranks_pattern_fields, the others as bytes), and the extras, fields no
 * key sets (the job's name).  iob_ranks_unshared: the fields left out on
 * purpose.  unit_ranks_keys checks that every field of struct iob_job is a
 * row's, an extra or left out, and that the parts fit. */
enum { IOB_RANKS_BYTES, IOB_RANKS_TEXT, IOB_RANKS_SET };
struct iob_ranks_field {
	const char *name;
	size_t off, len; /* in struct iob_job, or in struct iob_pattern */
	int kind;	 /* IOB_RANKS_* */
};
const struct iob_ranks_field *iob_ranks_extras(size_t *n);
const struct iob_ranks_field *iob_ranks_unshared(size_t *n);
const struct iob_ranks_field *iob_ranks_pattern_fields(size_t *n);
/* The parts the settings take (iob_ranks_open adds 3 before them and at
 * least one for the jobs after them). */
size_t iob_ranks_setting_parts(void);

int iob_ranks_open(const struct iob_ranks_who *opts, const char *mine, const struct iob_suite *suite, int status, char *err,
		   size_t errlen);

/* Within a phase, from its start barrier to its exchange: a watcher thread
 * waits for messages of the phase (tag: the phase's number, the same on
 * every rank).  A stop message sets *flag (the engine's stop flag) to
 * IOB_RANKS_CUT unless a signal set it already.  The first rank to finish
 * tells rank 0 ("done"), which tells every other ("first"); a rank that
 * hears of it adds up what its streams had done then (live[nlive], the
 * counters the engine publishes at its looks at the clock).  NULL (nothing
 * watched) with one rank, or where MPI takes calls only from the main
 * thread. */
#define IOB_RANKS_CUT (-1)
struct iob_live;
struct iob_rank_watch;
struct iob_rank_watch *iob_ranks_watch(int tag, volatile sig_atomic_t *flag, const struct iob_live *live,
				       size_t nlive);
/* End the watch; failed: this rank's phase failed, every other rank is told
 * to stop; otherwise, unless it heard of an earlier finish, rank 0 is told
 * this one finished.  *fd_bytes and *fd_ops (the caller sets them to the
 * rank's totals): what it had done when it heard that another rank
 * finished first, left as they are when it did not hear of one (it was the
 * first), 0 when nothing was watched.  Returns 1 when a stop message cut
 * this rank's phase short. */
int iob_ranks_unwatch(struct iob_rank_watch *w, int failed, uint64_t *fd_bytes, uint64_t *fd_ops);

/* epoch_ns: this rank's CLOCK_MONOTONIC when the phase's start barrier
 * returned; r's start_ns/end_ns are sent relative to it.  file: what the
 * aggregate record names.  Returns 0 or -errno (the exchange failed: the
 * verdict then says so). */
int iob_ranks_phase(const struct iob_ranks_emit *run, size_t j, const char *file, const struct iob_record *rec,
		    const struct iob_phase_result *r, uint64_t epoch_ns, int rc, const char *error, int sig,
		    struct iob_rank_verdict *v);

#endif
