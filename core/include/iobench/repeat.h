/*
 * iobench/repeat.h - repeats of a phase (`repeat`, `until_ci`): the figures
 * each run gave, when to run once more, and the "summary" record after the
 * runs (docs/statistics.md, docs/outputs.md).
 */
#ifndef IOBENCH_REPEAT_H
#define IOBENCH_REPEAT_H

#include <stddef.h>
#include <stdint.h>
#include "iobench/engine.h"
#include "iobench/job.h"
#include "iobench/result.h"
#include "iobench/steady.h"

#define IOB_REPEAT_MAX 1000u
#define IOB_REPEAT_CONF 0.95
#define IOB_UNTIL_CI_MIN_RUNS 3u

enum iob_rep_figure { IOB_REP_BW, IOB_REP_IOPS, IOB_REP_P50, IOB_REP_P99, IOB_REP_P999, IOB_REP_NFIG };

struct iob_repeats {
	int active;     /* the job repeats: each phase record carries "repeat", a summary follows */
	uint32_t index; /* the run going on now (0-based) */
	size_t n;       /* runs recorded */
	size_t cap;
	double *v[IOB_REP_NFIG]; /* per run; NAN where not measured (no latency sample) */
	double until_ci;	 /* 0, or the share of the mean the half-width must reach */
	uint32_t max_runs;	 /* repeat, or repeat_max with until_ci */
	int steady_on;		 /* steady_state: rounds (steady.h) instead of repeats */
	struct iob_steady steady;
};

/* Nonzero when the job asks for repeats (repeat > 1 or until_ci; not
 * steady_state, which runs rounds through the same loop). */
int iob_job_repeats(const struct iob_job *job);
/* Nonzero when the job runs its phases more than once (repeats or steady
 * state rounds): it runs alone, never at once with other jobs. */
int iob_job_runs_again(const struct iob_job *job);
/* Parse until_ci ("2%"): the share (0.02), or -EINVAL with a message. */
int iob_until_ci_parse(const char *text, double *share, char *err, size_t errlen);

void iob_repeats_begin(struct iob_repeats *r, const struct iob_job *job);
/* Keep the figures of one run (a phase result that ran). */
int iob_repeats_add(struct iob_repeats *r, const struct iob_phase_result *res);
/* A run's engine spec (steady_state: the round's time or I/Os). */
void iob_repeats_spec(struct iob_repeats *r, const struct iob_job *job, struct iob_phase_spec *spec);
/* The phase record's key for the run's index: "repeat", or "round". */
const char *iob_repeats_key(const struct iob_repeats *r);
/* Nonzero while another run is due. */
int iob_repeats_more(const struct iob_repeats *r);
/* The "repeats" record of the runs (steady_state: the "steady" record);
 * with until_ci or steady state not reached, a note. */
void iob_rec_summary(struct iob_recbuf *b, const struct iob_job *job, enum iob_phase phase, uint64_t bs,
		     const struct iob_repeats *r, struct iob_notes *notes);
void iob_repeats_free(struct iob_repeats *r);

#endif
