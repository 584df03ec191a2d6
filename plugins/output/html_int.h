/*
 * html_int.h - what html.c and html_page.c share (the map at html.c's top):
 * the records kept, the output's state.
 */
#ifndef IOB_OUTPUT_HTML_INT_H
#define IOB_OUTPUT_HTML_INT_H

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/plugin.h"
#include "svgdraw.h"
#include "textbuf.h"


/* The percentiles shown per phase (html_pct; their columns: html_page.c, html_cols). */
#define HTML_NPCT 4

/* A value that may be absent (not measured: shown as "-"). */
struct opt {
	int has;
	double v;
};

struct html_phase {
	char *job, *phase, *status;
	struct opt bs, bw, iops, pct[HTML_NPCT], max, repeat, round;
	/* a series (bigread): blocks and speeds, the cliff */
	struct opt blocks, smin, smed, smax, rmed, cliff_off, cliff_before, cliff_after;
	int series, cliff;
	struct opt streams, ops, secs; /* a "meta" record's */
};

struct html_repeats {
	char *job, *phase;
	struct opt bs, n, mean[3], lo[3], hi[3];
};

struct html_steady {
	char *job, *phase, *metric, *rule;
	struct opt bs, rounds, reached_round, mean, range_pct;
	int reached;
};

struct html_cmp {
	char *job, *phase, *figure, *basis, *verdict, *why;
	struct opt bs, base, new_, change, lo, hi;
	int regression;
};

struct html_state {
	struct svgd_out o; /* first: the sink, the run facts, the records kept (svgdraw.h) */
	int oom;
	char *fs, *device, *backend; /* distinct values of the phase records, ", "-separated */
	char *report_of, *report_base; /* `iobench report`: the input(s) */
	struct html_phase *ph;
	size_t nph, capph;
	struct html_phase *mt; /* "meta" records (workload = files) */
	size_t nmt, capmt;
	struct html_repeats *rp;
	size_t nrp, caprp;
	struct html_steady *sd;
	size_t nsd, capsd;
	struct html_cmp *cm;
	size_t ncm, capcm;
	size_t nrecords;
	struct textbuf out;
};

/* The page written to the sink (html_page.c): the render hook (svgdraw.h). */
int html_render(void *state, const struct iob_run_end *end, int status, int interrupted, const char *error);

#endif
