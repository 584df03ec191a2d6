/*
 * steady.c - steady state over rounds of a phase (iobench/steady.h;
 * docs/statistics.md, "Steady state").
 *
 * SNIA's Performance Test Specification: over a window of rounds, the
 * range of the values (max - min) is within 20% of their mean (data
 * excursion), and the least-squares line through them moves by at most 10%
 * of the mean across the window (slope excursion: |slope| x (rounds - 1)).
 * fio's rules, for fio job files: every value within a share of the mean
 * (`iops:10%`), or the slope below a share of the mean (`iops_slope:0.1%`).
 */
#include "iobench/steady.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/units.h"

void iob_steady_window_eval(const double *y, size_t n, struct iob_steady_window *w)
{
	memset(w, 0, sizeof *w);
	if (n == 0)
		return;
	double sum = 0, min = y[0], max = y[0];
	for (size_t i = 0; i < n; i++) {
		sum += y[i];
		min = y[i] < min ? y[i] : min;
		max = y[i] > max ? y[i] : max;
	}
	double m = sum / (double)n, xm = ((double)n - 1) / 2.0, sxy = 0, sxx = 0, dev = 0;
	for (size_t i = 0; i < n; i++) {
		sxy += ((double)i - xm) * (y[i] - m);
		sxx += ((double)i - xm) * ((double)i - xm);
		double d = fabs(y[i] - m);
		dev = d > dev ? d : dev;
	}
	w->mean = m;
	w->min = min;
	w->max = max;
	w->range = max - min;
	w->slope = sxx > 0 ? sxy / sxx : 0;
	if (m > 0) {
		w->range_share = w->range / m;
		w->slope_excursion = fabs(w->slope) * ((double)n - 1) / m;
		w->max_deviation = dev / m;
		w->slope_share = fabs(w->slope) / m;
	} else {
		w->range_share = w->slope_excursion = w->max_deviation = w->slope_share = INFINITY;
	}
}

int iob_steady_round_parse(const char *text, uint64_t *ns, uint64_t *ios, char *err, size_t errlen)
{
	*ns = *ios = 0;
	if (!*text)
		return 0;
	const char *p = text;
	uint64_t v = 0;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			goto bad;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p == text || v == 0)
		goto bad;
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = {{"h", 3600000000000ull}, {"m", 60000000000ull}, {"s", 1000000000ull},
		     {"ms", 1000000ull},	  {"us", 1000ull},	 {"ns", 1}};
	if (!*p) {
		*ios = v;
		return 0;
	}
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (strcmp(p, units[i].unit) == 0 && v <= UINT64_MAX / units[i].ns) {
			*ns = v * units[i].ns;
			return 0;
		}
bad:
	snprintf(err, errlen, "steady_round '%s' is neither a time (10s, 500ms) nor a number of I/Os (2000)",
		 IOB_Q(text));
	return -EINVAL;
}

int iob_steady_pct_parse(const char *key, const char *text, double *share, char *err, size_t errlen)
{
	char *end = NULL;
	double v = strtod(text, &end);
	if (end == text || !end || strcmp(end, "%") != 0 || !isfinite(v) || !(v > 0.0) || v >= 1000.0) {
		snprintf(err, errlen, "%s '%s' is not a share of the mean: give a percent above 0, e.g. 10%%", key,
			 IOB_Q(text));
		return -EINVAL;
	}
	*share = v / 100.0;
	return 0;
}

int iob_steady_begin(struct iob_steady *s, const struct iob_job *job)
{
	char err[256];
	memset(s, 0, sizeof *s);
	s->metric = job->steady_state;
	s->rule = job->steady_rule;
	s->window = job->steady_window;
	s->max_rounds = job->steady_max_rounds;
	s->ramp_ns = job->steady_ramp_ns;
	s->range = 0.20;
	s->slope = 0.10;
	if (iob_steady_round_parse(job->steady_round, &s->round_ns, &s->round_ios, err, sizeof err) != 0 ||
	    (job->steady_range[0] && iob_steady_pct_parse("steady_range", job->steady_range, &s->range, err,
							   sizeof err) != 0) ||
	    (job->steady_slope[0] && iob_steady_pct_parse("steady_slope", job->steady_slope, &s->slope, err,
							   sizeof err) != 0) ||
	    (job->steady_limit[0] && iob_steady_pct_parse("steady_limit", job->steady_limit, &s->limit, err,
							   sizeof err) != 0))
		return -EINVAL; /* validated before the run */
	return 0;
}

void iob_steady_spec(struct iob_steady *s, const struct iob_job *job, struct iob_phase_spec *spec)
{
	if (s->round_ns) { /* a round of time: the phase goes on until it is over */
		spec->runtime_ns = s->round_ns;
		spec->time_based = 1;
		spec->loops = 0;
		if (job->access == IOB_ACCESS_RAND)
			spec->ops = 0;
	} else if (s->round_ios) {
		if (job->access == IOB_ACCESS_RAND) {
			spec->ops = s->round_ios;
		} else { /* the next round_ios blocks of the file, from where the last round ended */
			uint64_t len = s->round_ios * spec->block_size;
			if (!spec->file_size || s->next_off >= spec->file_size)
				s->next_off = 0;
			spec->region_off = s->next_off;
			spec->region_len = len;
			spec->loops = 1;
			s->next_off += len;
		}
	}
}

double iob_steady_round_value(int metric, const struct iob_phase_result *r)
{
	if (metric != IOB_STEADY_LAT)
		return metric == IOB_STEADY_IOPS ? iob_phase_iops(r) : iob_phase_bw(r);
	const struct iob_hist *h[2] = {r->hist, r->hist_write};
	double sum = 0, n = 0;
	for (size_t i = 0; i < 2; i++)
		if (h[i] && h[i]->count) {
			sum += iob_hist_mean(h[i]) * (double)h[i]->count;
			n += (double)h[i]->count;
		}
	return n > 0 ? sum / n : 0;
}

static int window_holds(const struct iob_steady *s, const struct iob_steady_window *w)
{
	switch (s->rule) {
	case IOB_STEADY_DEVIATION:
		return w->max_deviation <= s->limit;
	case IOB_STEADY_SLOPE:
		return w->slope_share <= s->limit;
	default:
		return w->range_share <= s->range && w->slope_excursion <= s->slope;
	}
}

int iob_steady_add(struct iob_steady *s, const struct iob_phase_result *r)
{
	if (iob_grow(&s->y, &s->cap, s->n, sizeof *s->y, 32) < 0)
		return -ENOMEM;
	s->y[s->n++] = iob_steady_round_value(s->metric, r);
	s->elapsed_ns += r->elapsed_ns;
	if (s->ramp_ns && s->elapsed_ns <= s->ramp_ns && s->ramp_rounds + 1 == s->n) {
		s->ramp_rounds++;
		return 0;
	}
	if (s->n - s->ramp_rounds >= s->window) {
		iob_steady_window_eval(s->y + s->n - s->window, s->window, &s->w);
		s->have_window = 1;
		if (window_holds(s, &s->w)) {
			s->reached = 1;
			s->reached_round = s->n - 1;
		}
	}
	return 0;
}

int iob_steady_more(const struct iob_steady *s)
{
	return !s->reached && s->n < s->max_rounds;
}

static const char *rule_name(int rule)
{
	return rule == IOB_STEADY_DEVIATION ? "deviation" : rule == IOB_STEADY_SLOPE ? "slope" : "snia";
}

/* "v0,v1,...": values as %.17g, comma-separated, into the record's text. */
static void values_text(char *out, size_t len, const double *y, size_t n)
{
	size_t o = 0;
	out[0] = '\0';
	for (size_t i = 0; i < n && o < len; i++) {
		int k = snprintf(out + o, len - o, "%s%.17g", i ? "," : "", y[i]);
		if (k < 0 || (size_t)k >= len - o) {
			out[o] = '\0'; /* cut at a whole value */
			break;
		}
		o += (size_t)k;
	}
}

void iob_rec_steady(struct iob_recbuf *b, const struct iob_job *job, enum iob_phase phase, uint64_t bs,
		    const struct iob_steady *s, struct iob_notes *notes)
{
	/* the window's figures in the metric's unit: _bytes_per_s, _per_s, _ns */
	static const struct {
		const char *name, *mean, *range, *slope;
		enum iob_unit u;
	} f[] = {[IOB_STEADY_IOPS] = {"iops", "window_mean_per_s", "window_range_per_s", "window_slope_per_s",
				      IOB_UNIT_OPS_PER_S},
		 [IOB_STEADY_BW] = {"bw", "window_mean_bytes_per_s", "window_range_bytes_per_s",
				    "window_slope_bytes_per_s", IOB_UNIT_BYTES_PER_S},
		 [IOB_STEADY_LAT] = {"lat", "window_mean_ns", "window_range_ns", "window_slope_ns", IOB_UNIT_NS}};
	int mt = s->metric == IOB_STEADY_BW || s->metric == IOB_STEADY_LAT ? s->metric : IOB_STEADY_IOPS;
	enum iob_unit u = f[mt].u;
	iob_rec_reset(b, "steady");
	iob_rec_str(b, "job", job->name);
	iob_rec_str(b, "phase", iob_phase_name(phase));
	iob_rec_u64(b, "block_size_bytes", IOB_UNIT_BYTES, bs);
	iob_rec_str(b, "steady_state", f[mt].name);
	iob_rec_str(b, "rule", rule_name(s->rule));
	iob_rec_u64(b, "rounds", IOB_UNIT_COUNT, s->n);
	iob_rec_u64(b, "ramp_rounds", IOB_UNIT_COUNT, s->ramp_rounds);
	iob_rec_u64(b, "window", IOB_UNIT_COUNT, s->window);
	iob_rec_bool(b, "reached", s->reached);
	if (s->reached)
		iob_rec_u64(b, "reached_round", IOB_UNIT_COUNT, s->reached_round);
	else
		iob_rec_absent(b, "reached_round", IOB_UNIT_COUNT);
	const struct iob_steady_window *w = &s->w;
	int k = s->have_window;
	if (k) {
		iob_rec_f64(b, f[mt].mean, u, w->mean);
		iob_rec_f64(b, f[mt].range, u, w->range);
		iob_rec_f64(b, f[mt].slope, u, w->slope);
		iob_rec_f64(b, "range_pct", IOB_UNIT_NONE, w->range_share * 100);
		iob_rec_f64(b, "slope_excursion_pct", IOB_UNIT_NONE, w->slope_excursion * 100);
		iob_rec_f64(b, "max_deviation_pct", IOB_UNIT_NONE, w->max_deviation * 100);
		iob_rec_f64(b, "slope_pct", IOB_UNIT_NONE, w->slope_share * 100);
	} else {
		iob_rec_absent(b, f[mt].mean, u);
		iob_rec_absent(b, f[mt].range, u);
		iob_rec_absent(b, f[mt].slope, u);
		iob_rec_absent(b, "range_pct", IOB_UNIT_NONE);
		iob_rec_absent(b, "slope_excursion_pct", IOB_UNIT_NONE);
		iob_rec_absent(b, "max_deviation_pct", IOB_UNIT_NONE);
		iob_rec_absent(b, "slope_pct", IOB_UNIT_NONE);
	}
	double lim1 = s->rule == IOB_STEADY_SNIA ? s->range : s->limit, lim2 = s->rule == IOB_STEADY_SNIA ? s->slope : 0;
	iob_rec_f64(b, s->rule == IOB_STEADY_SNIA ? "range_limit_pct" : "limit_pct", IOB_UNIT_NONE, lim1 * 100);
	if (s->rule == IOB_STEADY_SNIA)
		iob_rec_f64(b, "slope_limit_pct", IOB_UNIT_NONE, lim2 * 100);
	char text[2048];
	size_t wn = s->n >= s->window ? s->window : s->n;
	values_text(text, sizeof text, s->y + s->n - wn, wn);
	iob_rec_str(b, "window_values", text);
	values_text(text, sizeof text, s->y, s->n);
	iob_rec_str(b, "round_values", text);
	if (!s->reached && notes) {
		if (k)
			iob_notes_add(notes,
				      "job %s, %s phase, block size %llu: steady state (%s) not reached in %zu rounds "
				      "(steady_max_rounds): the last %u rounds ranged %.1f%% of their mean, the fitted line "
				      "moved %.1f%%, the farthest round was %.1f%% off",
				      job->name, iob_phase_name(phase), (unsigned long long)bs, rule_name(s->rule), s->n,
				      s->window, w->range_share * 100, w->slope_excursion * 100, w->max_deviation * 100);
		else
			iob_notes_add(notes,
				      "job %s, %s phase, block size %llu: steady state not reached: %zu rounds, too few "
				      "for a window of %u after the ramp",
				      job->name, iob_phase_name(phase), (unsigned long long)bs, s->n, s->window);
	}
}

void iob_steady_free(struct iob_steady *s)
{
	free(s->y);
	memset(s, 0, sizeof *s);
}
