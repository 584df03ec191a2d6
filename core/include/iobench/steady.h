/*
 * iobench/steady.h - steady state (`steady_state`, docs/statistics.md,
 * "Steady state"): a phase run in rounds until the last `steady_window`
 * rounds meet the rule (SNIA's data and slope excursions, or fio's
 * deviation or slope), or `steady_max_rounds` were run.
 */
#ifndef IOBENCH_STEADY_H
#define IOBENCH_STEADY_H

#include <stddef.h>
#include <stdint.h>
#include "iobench/engine.h"
#include "iobench/job.h"
#include "iobench/result.h"

/* lat: each round's mean completion latency (fio's ss=lat:X%) */
enum iob_steady_metric { IOB_STEADY_NONE = 0, IOB_STEADY_IOPS = 1, IOB_STEADY_BW = 2, IOB_STEADY_LAT = 3 };
enum iob_steady_rule { IOB_STEADY_SNIA = 0, IOB_STEADY_DEVIATION = 1, IOB_STEADY_SLOPE = 2 };

/* What a window of rounds shows. */
struct iob_steady_window {
	double mean, min, max;
	double range;		  /* max - min */
	double slope;		  /* least-squares slope, per round */
	double range_share;	  /* range / mean */
	double slope_excursion;	  /* |slope| x (window - 1) / mean: SNIA's */
	double max_deviation;	  /* max |value - mean| / mean: fio's iops:X% */
	double slope_share;	  /* |slope| / mean: fio's iops_slope:X% */
};

/* The figures of a window of n values (n >= 2). */
void iob_steady_window_eval(const double *y, size_t n, struct iob_steady_window *w);

struct iob_steady {
	int metric, rule;
	uint32_t window, max_rounds;
	uint64_t round_ns, round_ios; /* a round: this long, or this many I/Os, or (both 0) one run of the phase */
	uint64_t ramp_ns;
	double range, slope, limit; /* shares: SNIA's 0.20 and 0.10; fio's limit */
	double *y;		    /* each round's value */
	size_t n, cap;
	size_t ramp_rounds;	    /* the first rounds, inside steady_ramp: never in a window */
	uint64_t elapsed_ns;	    /* the rounds' measured time so far */
	uint64_t next_off;	    /* sequential rounds of I/Os: where the next one starts */
	int reached;
	size_t reached_round; /* 0-based index of the round that completed the window */
	struct iob_steady_window w; /* the last window evaluated */
	int have_window;
};

/* Parse a steady_round ("10s", "500ms": a time; "2000": I/Os). */
int iob_steady_round_parse(const char *text, uint64_t *ns, uint64_t *ios, char *err, size_t errlen);
/* Parse a percent ("20%") into a share (0.2), 0 < share < 10. */
int iob_steady_pct_parse(const char *key, const char *text, double *share, char *err, size_t errlen);
int iob_steady_begin(struct iob_steady *s, const struct iob_job *job);
/* A round's engine spec: its time limit or its I/Os. */
void iob_steady_spec(struct iob_steady *s, const struct iob_job *job, struct iob_phase_spec *spec);
int iob_steady_add(struct iob_steady *s, const struct iob_phase_result *r);
int iob_steady_more(const struct iob_steady *s);
/* A round's value: IOPS, bytes/s, or its I/Os' mean latency in ns (reads
 * and writes together, weighted by their sampled I/Os). */
double iob_steady_round_value(int metric, const struct iob_phase_result *r);
/* The "steady" record; a note when it was not reached. */
void iob_rec_steady(struct iob_recbuf *b, const struct iob_job *job, enum iob_phase phase, uint64_t bs,
		    const struct iob_steady *s, struct iob_notes *notes);
void iob_steady_free(struct iob_steady *s);

#endif
