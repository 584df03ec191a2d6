/*
 * compare_int.h - what compare.c's rooms share (the map at compare.c's top):
 * the figures, one side's phases and samples, a text buffer, a result.
 */
#ifndef IOB_COMPARE_INT_H
#define IOB_COMPARE_INT_H


#include "iobench/compare.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/cli.h"
#include "iobench/units.h"
#include "iobench/os.h"
#include "iobench/outfile.h"
#include "iobench/output.h"
#include "iobench/stats.h"
#include "jsonread.h"

#define NFIG 4

static const struct {
	const char *name, *label;
	int lower_better;
} figs[NFIG] = {{"bw", "MiB/s", 0}, {"iops", "IOPS", 0}, {"lat_p50", "p50", 1}, {"lat_p99", "p99", 1}};

struct samples {
	double *v;
	size_t n, cap;
};

struct interval {
	double len, v[NFIG];
};

struct phase {
	char *job;
	char phase[16];
	uint64_t bs; /* 0: not known */
	size_t nrec, with_repeat;
	int dup;		 /* fio: the same job name and direction twice */
	double value[NFIG];	 /* the last (or only) run's figure; NAN: not measured */
	struct samples rep[NFIG]; /* one value per phase record */
	struct interval *iv;
	size_t niv, ivcap;
	/* fio: the job's per-interval samples, summarised by fio */
	int have_sum[NFIG];
	double sum_mean[NFIG], sum_sd[NFIG], sum_n[NFIG];
	int matched;
};

struct side {
	const char *path;
	int fio;
	struct phase *ph;
	size_t n, cap;
};

struct buf {
	char *d;
	size_t len, cap;
	int oom;
};

enum basis { B_NONE, B_INTERVALS, B_REPEATS };

struct result {
	const struct phase *b, *n;
	int f;
	enum basis basis;
	double base, new_, rel;
	struct iob_change ch;
	double nb, nn;
	const char *verdict;
	int regression;
	const char *why;
};

void bprintf(struct buf *b, const char *fmt, ...) IOB_PRINTF(2, 3);
int add_sample(struct samples *s, double v);
struct phase *find_phase(struct side *sd, const char *job, const char *phase, uint64_t bs, int create);
void side_free(struct side *sd);
uint64_t fio_bs(const char *text, int d);
int load(struct side *sd, const char *path, char *err, size_t errlen);
void human(struct buf *o, const struct side *b, const struct side *n, const struct result *r, size_t nr,
	double alpha, double threshold, int any_iv, int any_none);
void json_out(struct buf *o, const struct side *b, const struct side *n, const struct result *r, size_t nr,
	double alpha, double threshold, int regressed);
void svg_out(struct buf *o, const struct result *r, size_t nr, double threshold);

#endif
