/*
 * repeat.c - repeats of a phase: each run's MiB/s, IOPS and latency
 * percentiles, the until_ci stopping rule, and the "summary" record
 * (iobench/repeat.h; docs/statistics.md).  Nothing here runs inside a
 * measured window: the runner calls it between runs.
 */
#include "iobench/repeat.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/hist.h"
#include "iobench/stats.h"
#include "iobench/units.h"

int iob_job_repeats(const struct iob_job *job)
{
	return job->repeat > 1 || job->until_ci[0];
}

int iob_job_runs_again(const struct iob_job *job)
{
	return iob_job_repeats(job) || job->steady_state;
}

int iob_until_ci_parse(const char *text, double *share, char *err, size_t errlen)
{
	char *end = NULL;
	double v = strtod(text, &end);
	if (end == text || !end || strcmp(end, "%") != 0 || !isfinite(v) || !(v > 0.0) || v >= 100.0) {
		snprintf(err, errlen, "until_ci '%s' is not a share of the mean: give a percent above 0 and below 100, "
				      "e.g. 2%%",
			 IOB_Q(text));
		return -EINVAL;
	}
	*share = v / 100.0;
	return 0;
}

void iob_repeats_begin(struct iob_repeats *r, const struct iob_job *job)
{
	memset(r, 0, sizeof *r);
	r->active = iob_job_repeats(job);
	char err[256];
	if (job->until_ci[0] && iob_until_ci_parse(job->until_ci, &r->until_ci, err, sizeof err) != 0)
		r->until_ci = 0; /* validated before the run; never here */
	r->max_runs = r->until_ci > 0 ? job->repeat_max : (job->repeat ? job->repeat : 1);
	if (job->steady_state && iob_steady_begin(&r->steady, job) == 0) {
		r->active = r->steady_on = 1;
		r->max_runs = job->steady_max_rounds;
	}
}

void iob_repeats_spec(struct iob_repeats *r, const struct iob_job *job, struct iob_phase_spec *spec)
{
	if (r->steady_on)
		iob_steady_spec(&r->steady, job, spec);
}

const char *iob_repeats_key(const struct iob_repeats *r)
{
	return r->steady_on ? "round" : "repeat";
}

int iob_repeats_add(struct iob_repeats *r, const struct iob_phase_result *res)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		for (int f = 0; f < IOB_REP_NFIG; f++) {
			double *p = realloc(r->v[f], cap * sizeof *p);
			if (!p)
				return -ENOMEM;
			r->v[f] = p;
		}
		r->cap = cap;
	}
	if (r->steady_on && iob_steady_add(&r->steady, res) != 0)
		return -ENOMEM;
	size_t i = r->n++;
	r->v[IOB_REP_BW][i] = iob_phase_bw(res);
	r->v[IOB_REP_IOPS][i] = iob_phase_iops(res);
	int lat = res->hist && res->hist->count;
	r->v[IOB_REP_P50][i] = lat ? (double)iob_hist_percentile(res->hist, 50.0) : NAN;
	r->v[IOB_REP_P99][i] = lat ? (double)iob_hist_percentile(res->hist, 99.0) : NAN;
	r->v[IOB_REP_P999][i] = lat ? (double)iob_hist_percentile(res->hist, 99.9) : NAN;
	return 0;
}

/* The half-width of the bandwidth's interval as a share of its mean
 * (INFINITY when not known). */
static double bw_ci_share(const struct iob_repeats *r)
{
	struct iob_ci_stats s;
	if (r->n < 2 || iob_ci_compute(r->v[IOB_REP_BW], r->n, IOB_REPEAT_CONF, &s) != 0 || !s.ci_known ||
	    !(s.mean > 0.0))
		return INFINITY;
	return s.ci_half / s.mean;
}

int iob_repeats_more(const struct iob_repeats *r)
{
	if (r->steady_on)
		return iob_steady_more(&r->steady);
	if (r->n >= r->max_runs)
		return 0;
	if (r->until_ci > 0)
		return r->n < IOB_UNTIL_CI_MIN_RUNS || bw_ci_share(r) > r->until_ci;
	return 1;
}

static const struct {
	const char *name;
	enum iob_unit unit;
	const char *suffix;
} figures[IOB_REP_NFIG] = {
    {"bw", IOB_UNIT_BYTES_PER_S, "_bytes_per_s"}, {"iops", IOB_UNIT_OPS_PER_S, "_per_s"},
    {"lat_p50", IOB_UNIT_NS, "_ns"},		   {"lat_p99", IOB_UNIT_NS, "_ns"},
    {"lat_p99_9", IOB_UNIT_NS, "_ns"},
};

/* A record keeps its keys' pointers: the names live here, made from the
 * figures' names (only the runner's thread builds records). */
static char keynames[IOB_REP_NFIG][10][40];
static const char *const stat_names[10] = {"mean", "ci_half", "ci_low", "ci_high", "median",
					   "stddev", "cv",	"min",	  "max",     NULL};

static const char *keyname(int f, const char *what)
{
	for (int w = 0; stat_names[w]; w++)
		if (strcmp(stat_names[w], what) == 0) {
			if (strcmp(what, "cv") == 0)
				snprintf(keynames[f][w], sizeof keynames[f][w], "%s_cv", figures[f].name);
			else
				snprintf(keynames[f][w], sizeof keynames[f][w], "%s_%s%s", figures[f].name, what,
					 figures[f].suffix);
			return keynames[f][w];
		}
	return "?";
}

static void put(struct iob_recbuf *b, int f, const char *what, int known, double v)
{
	const char *key = keyname(f, what);
	if (known)
		iob_rec_f64(b, key, figures[f].unit, v);
	else
		iob_rec_absent(b, key, figures[f].unit);
}

void iob_rec_summary(struct iob_recbuf *b, const struct iob_job *job, enum iob_phase phase, uint64_t bs,
		     const struct iob_repeats *r, struct iob_notes *notes)
{
	if (r->steady_on) {
		iob_rec_steady(b, job, phase, bs, &r->steady, notes);
		return;
	}
	iob_rec_reset(b, "repeats");
	iob_rec_str(b, "job", job->name);
	iob_rec_str(b, "phase", iob_phase_name(phase));
	iob_rec_u64(b, "block_size_bytes", IOB_UNIT_BYTES, bs);
	iob_rec_u64(b, "repeats", IOB_UNIT_COUNT, r->n);
	iob_rec_f64(b, "confidence", IOB_UNIT_NONE, IOB_REPEAT_CONF);
	iob_rec_str(b, "ci_method", "student_t");
	for (int f = 0; f < IOB_REP_NFIG; f++) {
		struct iob_ci_stats s;
		size_t k = 0;
		for (size_t i = 0; i < r->n; i++)
			k += !isnan(r->v[f][i]);
		/* a latency figure counts only if every run measured it */
		int known = r->n && k == r->n && iob_ci_compute(r->v[f], r->n, IOB_REPEAT_CONF, &s) == 0;
		int ci = known && s.ci_known;
		put(b, f, "mean", known, known ? s.mean : 0);
		put(b, f, "ci_half", ci, ci ? s.ci_half : 0);
		put(b, f, "ci_low", ci, ci ? s.ci_low : 0);
		put(b, f, "ci_high", ci, ci ? s.ci_high : 0);
		put(b, f, "median", known, known ? s.median : 0);
		put(b, f, "stddev", ci, ci ? s.stddev : 0);
		const char *key = keyname(f, "cv");
		if (ci)
			iob_rec_f64(b, key, IOB_UNIT_NONE, s.cv);
		else
			iob_rec_absent(b, key, IOB_UNIT_NONE);
		put(b, f, "min", known, known ? s.min : 0);
		put(b, f, "max", known, known ? s.max : 0);
	}
	if (r->until_ci > 0) {
		double share = bw_ci_share(r);
		int reached = share <= r->until_ci;
		iob_rec_f64(b, "until_ci_pct", IOB_UNIT_NONE, r->until_ci * 100.0);
		iob_rec_bool(b, "ci_reached", reached);
		if (!reached && notes) {
			if (isfinite(share))
				iob_notes_add(notes,
					      "job %s, %s phase, block size %llu: until_ci %.3g%% not reached in %zu "
					      "runs (repeat_max): the 95%% interval of the mean MiB/s is +-%.3g%% wide",
					      job->name, iob_phase_name(phase), (unsigned long long)bs,
					      r->until_ci * 100.0, r->n, share * 100.0);
			else
				iob_notes_add(notes,
					      "job %s, %s phase, block size %llu: until_ci %.3g%% not reached in %zu "
					      "runs: no interval could be computed",
					      job->name, iob_phase_name(phase), (unsigned long long)bs,
					      r->until_ci * 100.0, r->n);
		}
	}
}

void iob_repeats_free(struct iob_repeats *r)
{
	for (int f = 0; f < IOB_REP_NFIG; f++)
		free(r->v[f]);
	iob_steady_free(&r->steady);
	memset(r, 0, sizeof *r);
}
