/*
 * compare.c - `iobench compare BASE NEW` (compare.h; docs/statistics.md,
 * "Comparing two results").
 *
 * Reads two result files, iobench JSON (docs/outputs.md, schema 2) or fio's
 * own JSON (fio 3.x --output-format=json), matches their phases by job,
 * phase and block size (fio: job name, direction and bs), and for each
 * matched phase and figure (MiB/s, IOPS, p50, p99) gives the relative change
 * of NEW against BASE, its interval and a verdict, from the statistics of
 * core/src/stats.c:
 *  - repeats on both sides (phase records with a `repeat` index): their
 *    values, independent runs;
 *  - else samples within one run on both sides (iobench interval records,
 *    fio's bw and iops samples): used, and said to be not independent;
 *  - else no test: the change is shown, never called significant.
 * Nothing is written before both files are read and every output file is
 * checked; output files are opened in one place (open_output: outfile.h).
 */
#include "iobench/compare.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/cli.h"
#include "iobench/os.h"
#include "iobench/outfile.h"
#include "iobench/output.h"
#include "iobench/stats.h"
#include "jsonread.h"

#define NFIG 4
#define MAX_INPUT (1ull << 30)

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

static void bprintf(struct buf *b, const char *fmt, ...) IOB_PRINTF(2, 3);
static void bprintf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		size_t room = b->cap - b->len;
		va_start(ap, fmt);
		int n = vsnprintf(b->d ? b->d + b->len : NULL, b->d ? room : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = 1;
			return;
		}
		if (b->d && (size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		size_t cap = (b->cap ? b->cap * 2 : 4096) + (size_t)n + 1;
		char *d = realloc(b->d, cap);
		if (!d) {
			b->oom = 1;
			return;
		}
		b->d = d;
		b->cap = cap;
	}
}

static int add_sample(struct samples *s, double v)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		double *p = realloc(s->v, cap * sizeof *p);
		if (!p)
			return -ENOMEM;
		s->v = p;
		s->cap = cap;
	}
	s->v[s->n++] = v;
	return 0;
}

static struct phase *find_phase(struct side *sd, const char *job, const char *phase, uint64_t bs, int create)
{
	for (size_t i = 0; i < sd->n; i++)
		if (strcmp(sd->ph[i].job, job) == 0 && strcmp(sd->ph[i].phase, phase) == 0 && sd->ph[i].bs == bs)
			return &sd->ph[i];
	if (!create)
		return NULL;
	if (sd->n == sd->cap) {
		size_t cap = sd->cap ? sd->cap * 2 : 16;
		struct phase *p = realloc(sd->ph, cap * sizeof *p);
		if (!p)
			return NULL;
		sd->ph = p;
		sd->cap = cap;
	}
	struct phase *p = &sd->ph[sd->n];
	memset(p, 0, sizeof *p);
	p->job = strdup(job);
	if (!p->job)
		return NULL;
	snprintf(p->phase, sizeof p->phase, "%s", phase);
	p->bs = bs;
	for (int f = 0; f < NFIG; f++)
		p->value[f] = NAN;
	sd->n++;
	return p;
}

static void side_free(struct side *sd)
{
	for (size_t i = 0; i < sd->n; i++) {
		free(sd->ph[i].job);
		free(sd->ph[i].iv);
		for (int f = 0; f < NFIG; f++)
			free(sd->ph[i].rep[f].v);
	}
	free(sd->ph);
	sd->ph = NULL;
	sd->n = sd->cap = 0;
}

/* A number member, NAN when absent or null. */
static double num_or_nan(const struct jv *o, const char *key)
{
	const struct jv *m = jv_get(o, key);
	return m && m->type == JV_NUMBER ? m->num : NAN;
}

static double pct_of(const struct jv *lat, const char *rank)
{
	return num_or_nan(jv_get(lat, "percentiles"), rank);
}

/* ---- iobench JSON (docs/outputs.md, schema 2) ---------------------------- */

static int load_iobench(struct side *sd, const struct jv *root, char *err, size_t errlen)
{
	const struct jv *recs = jv_get(root, "records");
	for (size_t i = 0; i < recs->n; i++) {
		const struct jv *r = &recs->items[i];
		const char *kind = jv_str(r, "kind"), *job = jv_str(r, "job"), *phase = jv_str(r, "phase");
		double bs = jv_num(r, "block_size_bytes", -1);
		if (!kind || !job || !phase || bs < 0)
			continue; /* streams, groups, a tool's own records: not phases of a job */
		int is_phase = strcmp(kind, "phase") == 0, is_iv = strcmp(kind, "interval") == 0;
		if (!is_phase && !is_iv)
			continue;
		struct phase *p = find_phase(sd, job, phase, (uint64_t)bs, 1);
		if (!p) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		if (is_phase) {
			const struct jv *lat = jv_get(r, "lat_ns");
			double v[NFIG] = {num_or_nan(r, "bw_bytes_per_s"), num_or_nan(r, "ops_per_s"), pct_of(lat, "50"),
					  pct_of(lat, "99")};
			p->nrec++;
			p->with_repeat += jv_get(r, "repeat") && jv_get(r, "repeat")->type == JV_NUMBER;
			for (int f = 0; f < NFIG; f++) {
				p->value[f] = v[f];
				if (add_sample(&p->rep[f], v[f]) != 0) {
					snprintf(err, errlen, "out of memory");
					return -ENOMEM;
				}
			}
		} else {
			if (p->niv == p->ivcap) {
				size_t cap = p->ivcap ? p->ivcap * 2 : 16;
				struct interval *q = realloc(p->iv, cap * sizeof *q);
				if (!q) {
					snprintf(err, errlen, "out of memory");
					return -ENOMEM;
				}
				p->iv = q;
				p->ivcap = cap;
			}
			struct interval *it = &p->iv[p->niv++];
			it->len = num_or_nan(r, "interval_s");
			it->v[0] = num_or_nan(r, "bw_bytes_per_s");
			it->v[1] = num_or_nan(r, "ops_per_s");
			it->v[2] = num_or_nan(r, "lat_p50_ns");
			it->v[3] = num_or_nan(r, "lat_p99_ns");
		}
	}
	return 0;
}

/* ---- fio JSON (fio 3.x --output-format=json) ----------------------------- */

/* fio's size: a number with an optional k, m, g, t (powers of 1024, fio's
 * default kb_base), i and b allowed after it; 0 when not understood. */
static uint64_t fio_size(const char *s)
{
	char *end = NULL;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s)
		return 0;
	uint64_t m = 1;
	switch (*end | 0x20) {
	case 'k': m = 1ull << 10; end++; break;
	case 'm': m = 1ull << 20; end++; break;
	case 'g': m = 1ull << 30; end++; break;
	case 't': m = 1ull << 40; end++; break;
	default: break;
	}
	if ((*end | 0x20) == 'i')
		end++;
	if ((*end | 0x20) == 'b')
		end++;
	return *end == '\0' || *end == ',' ? (uint64_t)v * m : 0;
}

/* The block size of direction d (0 read, 1 write) from fio's "bs" text
 * ("4k", or "4k,64k" for reads and writes); fio's default 4096 when none. */
static uint64_t fio_bs(const char *text, int d)
{
	if (!text)
		return 4096;
	const char *p = text;
	if (d == 1 && strchr(text, ','))
		p = strchr(text, ',') + 1;
	return fio_size(p);
}

static int load_fio(struct side *sd, const struct jv *root, char *err, size_t errlen)
{
	const struct jv *jobs = jv_get(root, "jobs");
	const char *gbs = jv_str(jv_get(root, "global options"), "bs");
	for (size_t i = 0; i < jobs->n; i++) {
		const struct jv *j = &jobs->items[i];
		const char *name = jv_str(j, "jobname");
		if (!name)
			continue;
		const char *bs = jv_str(jv_get(j, "job options"), "bs");
		static const char *const dirs[2] = {"read", "write"};
		for (int d = 0; d < 2; d++) {
			const struct jv *o = jv_get(j, dirs[d]);
			if (!o || jv_num(o, "io_bytes", 0) <= 0)
				continue;
			uint64_t b = fio_bs(bs ? bs : gbs, d);
			struct phase *p = find_phase(sd, name, dirs[d], b, 0);
			if (p) {
				p->dup = 1;
				continue;
			}
			if (!(p = find_phase(sd, name, dirs[d], b, 1))) {
				snprintf(err, errlen, "out of memory");
				return -ENOMEM;
			}
			const struct jv *lat = jv_get(o, "clat_ns");
			if (!jv_get(lat, "percentile"))
				lat = jv_get(o, "lat_ns");
			const struct jv *pc = jv_get(lat, "percentile");
			p->nrec = 1;
			p->value[0] = num_or_nan(o, "bw_bytes");
			p->value[1] = num_or_nan(o, "iops");
			p->value[2] = num_or_nan(pc, "50.000000");
			p->value[3] = num_or_nan(pc, "99.000000");
			/* fio's own samples of the job (one per log_avg_msec, 500 ms by default) */
			double bn = jv_num(o, "bw_samples", 0), in = jv_num(o, "iops_samples", 0);
			if (bn >= 2) {
				p->have_sum[0] = 1;
				p->sum_mean[0] = jv_num(o, "bw_mean", 0) * 1024.0; /* KiB/s */
				p->sum_sd[0] = jv_num(o, "bw_dev", 0) * 1024.0;
				p->sum_n[0] = bn;
			}
			if (in >= 2) {
				p->have_sum[1] = 1;
				p->sum_mean[1] = jv_num(o, "iops_mean", 0);
				p->sum_sd[1] = jv_num(o, "iops_stddev", 0);
				p->sum_n[1] = in;
			}
		}
	}
	return 0;
}

static int load(struct side *sd, const char *path, char *err, size_t errlen)
{
	char why[256];
	/* a result is a regular file (a link to one is fine): never a wait on a
	 * FIFO, never a device; decided on the path, then on what was opened */
	enum iob_path_kind kind = iob_path_kind(path, 1);
	if (kind != IOB_PATH_REGULAR && kind != IOB_PATH_MISSING) {
		snprintf(err, errlen, "'%s' is not a regular file: a result is read from a file", path);
		return -EINVAL;
	}
	FILE *f = iob_fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		return -EINVAL;
	}
	uint64_t dev, ino;
	if (iob_stream_identity(f, &dev, &ino, &kind) == 0 && kind != IOB_PATH_REGULAR) {
		fclose(f);
		snprintf(err, errlen, "'%s' is not a regular file: a result is read from a file", path);
		return -EINVAL;
	}
	struct buf b = {0};
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && !b.oom) {
		if (b.len + n > MAX_INPUT) {
			fclose(f);
			free(b.d);
			snprintf(err, errlen, "'%s' is larger than 1 GiB: not a result file", path);
			return -EINVAL;
		}
		if (b.len + n + 1 > b.cap) {
			size_t cap = (b.cap ? b.cap * 2 : 65536) + n + 1;
			char *d = realloc(b.d, cap);
			if (!d) {
				b.oom = 1;
				break;
			}
			b.d = d;
			b.cap = cap;
		}
		memcpy(b.d + b.len, chunk, n);
		b.len += n;
	}
	int rerr = ferror(f);
	fclose(f);
	if (rerr || b.oom) {
		free(b.d);
		snprintf(err, errlen, "cannot read '%s': %s", path, rerr ? "read error" : "out of memory");
		return -EINVAL;
	}
	struct jv root;
	if (b.len == 0) {
		snprintf(err, errlen, "'%s' is empty: not an iobench or fio JSON result", path);
		free(b.d);
		return -EINVAL;
	}
	if (jv_parse(b.d, b.len, &root, why, sizeof why) != 0) {
		snprintf(err, errlen, "'%s' is not a whole JSON document: %s", path, why);
		free(b.d);
		return -EINVAL;
	}
	free(b.d);
	const struct jv *schema = jv_get(&root, "schema"), *recs = jv_get(&root, "records"),
			*fio = jv_get(&root, "fio version"), *jobs = jv_get(&root, "jobs");
	int rc;
	sd->path = path;
	if (schema && recs && recs->type == JV_ARRAY) {
		if (schema->type != JV_NUMBER || schema->num != 2) {
			snprintf(err, errlen, "'%s' has record schema %g: compare reads iobench's schema 2", path,
				 schema->type == JV_NUMBER ? schema->num : -1.0);
			jv_free(&root);
			return -EINVAL;
		}
		rc = load_iobench(sd, &root, err, errlen);
	} else if (fio && fio->type == JV_STRING && jobs && jobs->type == JV_ARRAY) {
		sd->fio = 1;
		rc = load_fio(sd, &root, err, errlen);
	} else {
		snprintf(err, errlen, "'%s' is neither an iobench JSON result (schema 2) nor fio's JSON output", path);
		rc = -EINVAL;
	}
	jv_free(&root);
	if (rc == 0) { /* interval records without a phase record: no phase */
		size_t k = 0;
		for (size_t i = 0; i < sd->n; i++) {
			if (sd->ph[i].nrec) {
				sd->ph[k++] = sd->ph[i];
				continue;
			}
			free(sd->ph[i].job);
			free(sd->ph[i].iv);
			for (int g = 0; g < NFIG; g++)
				free(sd->ph[i].rep[g].v);
		}
		sd->n = k;
		if (sd->n == 0) {
			snprintf(err, errlen, "'%s' holds no phase results", path);
			rc = -EINVAL;
		}
	}
	return rc;
}

/* ---- what each side gives for one figure --------------------------------- */

enum basis { B_NONE, B_INTERVALS, B_REPEATS };
static const char *const basis_name[] = {"none", "intervals", "repeats"};

struct figure_data {
	enum basis basis;
	double value; /* the point value: the mean of the samples used, or the one run's */
	double mean, sd, n;
	const double *v; /* repeats: the values */
	const char *why; /* B_NONE: why no samples */
};

static int all_finite(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return 0;
	return n > 0;
}

static void describe(const struct side *sd, const struct phase *p, int f, struct figure_data *d,
		     struct samples *scratch)
{
	memset(d, 0, sizeof *d);
	d->value = p->value[f];
	if (p->nrec >= 2 && p->with_repeat == p->nrec && all_finite(p->rep[f].v, p->rep[f].n)) {
		struct iob_ci_stats s;
		if (iob_ci_compute(p->rep[f].v, p->rep[f].n, 0.95, &s) == 0) {
			d->basis = B_REPEATS;
			d->v = p->rep[f].v;
			d->n = (double)p->rep[f].n;
			d->mean = d->value = s.mean;
			d->sd = s.stddev;
			return;
		}
	}
	if (sd->fio) {
		if (p->have_sum[f]) {
			d->basis = B_INTERVALS;
			d->mean = d->value = p->sum_mean[f];
			d->sd = p->sum_sd[f];
			d->n = p->sum_n[f];
		} else {
			d->why = f >= 2 ? "fio's JSON gives no latency per interval" : "fio recorded fewer than 2 samples";
		}
		return;
	}
	/* one run: its interval records but the last (it ends with the phase:
	 * shorter, its rate of a few I/Os) */
	scratch->n = 0;
	for (size_t i = 0; i + 1 < p->niv; i++)
		if (isfinite(p->iv[i].v[f]) && add_sample(scratch, p->iv[i].v[f]) != 0)
			break;
	struct iob_ci_stats s;
	if (p->nrec == 1 && scratch->n >= 2 && iob_ci_compute(scratch->v, scratch->n, 0.95, &s) == 0) {
		d->basis = B_INTERVALS;
		d->mean = d->value = s.mean;
		d->sd = s.stddev;
		d->n = (double)scratch->n;
		return;
	}
	d->why = p->nrec > 1 ? "several phase records without a repeat index"
			     : "one run and no interval records (give repeat, or log_interval)";
}

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

static void compare_figure(const struct side *bs, const struct side *ns, const struct phase *b,
			   const struct phase *n, int f, double conf, double threshold, struct result *r)
{
	struct samples sb = {0}, sn = {0};
	struct figure_data db, dn;
	describe(bs, b, f, &db, &sb);
	describe(ns, n, f, &dn, &sn);
	memset(r, 0, sizeof *r);
	r->b = b;
	r->n = n;
	r->f = f;
	r->nb = db.n;
	r->nn = dn.n;
	r->basis = db.basis < dn.basis ? db.basis : dn.basis;
	if (db.basis == B_REPEATS && dn.basis == B_REPEATS) {
		iob_stats_change(db.v, (size_t)db.n, dn.v, (size_t)dn.n, conf, &r->ch);
		r->base = db.mean;
		r->new_ = dn.mean;
	} else if (r->basis != B_NONE) {
		iob_stats_change_summary(db.mean, db.sd, db.n, dn.mean, dn.sd, dn.n, conf, &r->ch);
		r->base = db.mean;
		r->new_ = dn.mean;
	} else {
		r->base = db.value;
		r->new_ = dn.value;
		r->why = db.basis == B_NONE ? db.why : dn.why;
	}
	r->rel = r->base > 0 && isfinite(r->base) && isfinite(r->new_) ? r->new_ / r->base - 1.0 : NAN;
	if (r->basis != B_NONE && r->ch.known) {
		if (r->ch.significant) {
			int up = r->ch.rel > 0;
			int better = figs[f].lower_better ? !up : up;
			r->verdict = better ? "faster" : "slower";
			r->regression = !better && fabs(r->ch.rel) >= threshold;
		} else {
			r->verdict = "no significant difference";
		}
	} else {
		if (r->basis != B_NONE && !r->ch.known)
			r->why = "no spread could be computed";
		r->verdict = "not tested";
		r->basis = B_NONE;
	}
	free(sb.v);
	free(sn.v);
}

/* ---- formatting ----------------------------------------------------------- */

static void fmt_value(char *s, size_t len, int f, double v)
{
	if (!isfinite(v))
		snprintf(s, len, "-");
	else if (f == 0)
		snprintf(s, len, "%.1f MiB/s", v / 1048576.0);
	else if (f == 1)
		snprintf(s, len, v >= 1e6 ? "%.0f" : "%.1f", v);
	else if (v >= 1e6)
		snprintf(s, len, "%.2f ms", v / 1e6);
	else if (v >= 1e3)
		snprintf(s, len, "%.2f us", v / 1e3);
	else
		snprintf(s, len, "%.0f ns", v);
}

static void json_str(struct buf *b, const char *s)
{
	bprintf(b, "\"");
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			bprintf(b, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			bprintf(b, "\\u%04x", *p);
		else
			bprintf(b, "%c", *p);
	}
	bprintf(b, "\"");
}

static void json_num(struct buf *b, double v)
{
	if (isfinite(v))
		bprintf(b, "%.17g", v);
	else
		bprintf(b, "null");
}

static void xml_text(struct buf *b, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '<')
			bprintf(b, "&lt;");
		else if (*p == '>')
			bprintf(b, "&gt;");
		else if (*p == '&')
			bprintf(b, "&amp;");
		else if (*p == '"')
			bprintf(b, "&quot;");
		else if (*p < 0x20)
			bprintf(b, "?");
		else
			bprintf(b, "%c", *p);
	}
}

static void bs_text(char *s, size_t len, uint64_t bs)
{
	if (!bs)
		snprintf(s, len, "-");
	else if (bs % (1ull << 20) == 0)
		snprintf(s, len, "%lluM", (unsigned long long)(bs >> 20));
	else if (bs % 1024 == 0)
		snprintf(s, len, "%lluK", (unsigned long long)(bs >> 10));
	else
		snprintf(s, len, "%llu", (unsigned long long)bs);
}

static void human(struct buf *o, const struct side *b, const struct side *n, const struct result *r, size_t nr,
		  double alpha, double threshold, int any_iv, int any_none)
{
	bprintf(o, "iobench compare: BASE %s (%s), NEW %s (%s)\n", b->path, b->fio ? "fio" : "iobench", n->path,
		n->fio ? "fio" : "iobench");
	bprintf(o, "%.0f%% intervals of the change (alpha %g); a change below %g%% is never a regression\n\n",
		(1 - alpha) * 100, alpha, threshold * 100);
	int jw = 3; /* the job column: as wide as the longest name */
	for (size_t i = 0; i < nr; i++)
		jw = (int)strlen(r[i].b->job) > jw ? (int)strlen(r[i].b->job) : jw;
	jw = jw > 32 ? 32 : jw;
	bprintf(o, "%-*s %-5s %4s %-6s %12s %12s %7s  %-18s %-14s %s\n", jw, "job", "phase", "bs", "figure", "base",
		"new", "change", "interval", "basis", "verdict");
	for (size_t i = 0; i < nr; i++) {
		const struct result *x = &r[i];
		char vb[32], vn[32], bsz[32], ci[48] = "-", ch[24] = "-", basis[32];
		fmt_value(vb, sizeof vb, x->f, x->base);
		fmt_value(vn, sizeof vn, x->f, x->new_);
		bs_text(bsz, sizeof bsz, x->b->bs);
		if (isfinite(x->rel))
			snprintf(ch, sizeof ch, "%+.1f%%", x->rel * 100);
		if (x->basis != B_NONE)
			snprintf(ci, sizeof ci, "[%+.1f%%, %+.1f%%]", x->ch.ci_low * 100, x->ch.ci_high * 100);
		if (x->basis == B_NONE)
			snprintf(basis, sizeof basis, "none");
		else
			snprintf(basis, sizeof basis, "%s %.0f/%.0f", basis_name[x->basis], x->nb, x->nn);
		bprintf(o, "%-*s %-5s %4s %-6s %12s %12s %7s  %-18s %-14s %s%s\n", jw, x->b->job, x->b->phase, bsz,
			figs[x->f].label, vb, vn, ch, ci, basis, x->verdict, x->regression ? " (REGRESSION)" : "");
	}
	for (int s = 0; s < 2; s++) {
		const struct side *sd = s ? n : b;
		for (size_t i = 0; i < sd->n; i++) {
			const struct phase *p = &sd->ph[i];
			char bsz[32];
			bs_text(bsz, sizeof bsz, p->bs);
			if (!p->matched)
				bprintf(o, "not matched: job %s, %s phase, block size %s: only in %s\n", p->job, p->phase,
					bsz, s ? "NEW" : "BASE");
			else if (p->dup)
				bprintf(o, "not compared: job %s, %s phase, block size %s: more than one such job in %s\n",
					p->job, p->phase, bsz, s ? "NEW" : "BASE");
		}
	}
	if (any_iv)
		bprintf(o, "note: basis \"intervals\": samples taken within one run are not independent (a drift "
			   "or a stall touches several); their interval is narrower than the truth: repeat runs for a "
			   "test you can trust\n");
	if (any_none)
		bprintf(o, "note: basis \"none\": no samples on one side, so no change is called significant; "
			   "give repeat (or log_interval) to both runs\n");
	for (size_t i = 0; i < nr; i++)
		if (r[i].basis == B_NONE && r[i].why) {
			bprintf(o, "note: not tested (%s %s %s): %s\n", r[i].b->job, r[i].b->phase,
				figs[r[i].f].label, r[i].why);
		}
}

static void json_out(struct buf *o, const struct side *b, const struct side *n, const struct result *r,
		     size_t nr, double alpha, double threshold, int regressed)
{
	bprintf(o, "{\"tool\":\"iobench compare\",\"base\":");
	json_str(o, b->path);
	bprintf(o, ",\"base_format\":\"%s\",\"new\":", b->fio ? "fio" : "iobench");
	json_str(o, n->path);
	bprintf(o, ",\"new_format\":\"%s\",\"alpha\":", n->fio ? "fio" : "iobench");
	json_num(o, alpha);
	bprintf(o, ",\"threshold_pct\":");
	json_num(o, threshold * 100);
	bprintf(o, ",\n\"comparisons\":[");
	for (size_t i = 0; i < nr; i++) {
		const struct result *x = &r[i];
		bprintf(o, "%s\n{\"job\":", i ? "," : "");
		json_str(o, x->b->job);
		bprintf(o, ",\"phase\":\"%s\",\"block_size_bytes\":", x->b->phase);
		if (x->b->bs)
			bprintf(o, "%llu", (unsigned long long)x->b->bs);
		else
			bprintf(o, "null");
		bprintf(o, ",\"figure\":\"%s\",\"base\":", figs[x->f].name);
		json_num(o, x->base);
		bprintf(o, ",\"new\":");
		json_num(o, x->new_);
		bprintf(o, ",\"change\":");
		json_num(o, x->rel);
		bprintf(o, ",\"ci_low\":");
		json_num(o, x->basis != B_NONE ? x->ch.ci_low : NAN);
		bprintf(o, ",\"ci_high\":");
		json_num(o, x->basis != B_NONE ? x->ch.ci_high : NAN);
		bprintf(o, ",\"basis\":\"%s\",\"independent\":%s,\"n_base\":", basis_name[x->basis],
			x->basis == B_REPEATS ? "true" : "false");
		json_num(o, x->basis != B_NONE ? x->nb : NAN);
		bprintf(o, ",\"n_new\":");
		json_num(o, x->basis != B_NONE ? x->nn : NAN);
		bprintf(o, ",\"verdict\":\"%s\",\"regression\":%s,\"why\":", x->verdict, x->regression ? "true" : "false");
		if (x->why)
			json_str(o, x->why);
		else
			bprintf(o, "null");
		bprintf(o, "}");
	}
	bprintf(o, "\n],\n\"unmatched\":[");
	int first = 1;
	for (int s = 0; s < 2; s++) {
		const struct side *sd = s ? n : b;
		for (size_t i = 0; i < sd->n; i++) {
			const struct phase *p = &sd->ph[i];
			if (p->matched && !p->dup)
				continue;
			bprintf(o, "%s{\"side\":\"%s\",\"job\":", first ? "" : ",", s ? "new" : "base");
			first = 0;
			json_str(o, p->job);
			bprintf(o, ",\"phase\":\"%s\",\"block_size_bytes\":%llu,\"why\":\"%s\"}", p->phase,
				(unsigned long long)p->bs, p->dup ? "more than one such job" : "only on this side");
		}
	}
	bprintf(o, "],\n\"regressed\":%s}\n", regressed ? "true" : "false");
}

/* One row per comparison: the change as a dot, its interval as a bar, the
 * zero line and the threshold as dashed lines. */
static void svg_out(struct buf *o, const struct result *r, size_t nr, double threshold)
{
	double span = threshold > 0 ? threshold : 0.01;
	for (size_t i = 0; i < nr; i++) {
		double v[3] = {r[i].rel, r[i].basis != B_NONE ? r[i].ch.ci_low : NAN,
			       r[i].basis != B_NONE ? r[i].ch.ci_high : NAN};
		for (int k = 0; k < 3; k++)
			if (isfinite(v[k]) && fabs(v[k]) > span)
				span = fabs(v[k]);
	}
	span *= 1.15;
	const double left = 300, width = 440, top = 50, row = 22;
	double h = top + row * (double)nr + 40;
#define X(v) (left + width / 2 + (v) / span * width / 2)
	bprintf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" "
		   "font-size=\"12\">\n",
		left + width + 20, h);
	bprintf(o, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	bprintf(o, "<text x=\"10\" y=\"20\" font-size=\"14\">iobench compare: change of NEW against BASE, with its "
		   "interval</text>\n");
	bprintf(o, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", X(0), top - 10, X(0),
		h - 30);
	for (int s = -1; s <= 1; s += 2)
		if (threshold > 0)
			bprintf(o, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"gray\" "
				   "stroke-dasharray=\"4 3\"/>\n",
				X(s * threshold), top - 10, X(s * threshold), h - 30);
	for (int k = -2; k <= 2; k++)
		bprintf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%+.1f%%</text>\n", X(span / 2.3 * k),
			h - 12, span / 2.3 * k * 100);
	for (size_t i = 0; i < nr; i++) {
		const struct result *x = &r[i];
		double y = top + row * (double)i + row / 2;
		char bsz[32];
		bs_text(bsz, sizeof bsz, x->b->bs);
		bprintf(o, "<text x=\"10\" y=\"%.1f\">", y + 4);
		char label[512];
		snprintf(label, sizeof label, "%s %s %s %s: %s", x->b->job, x->b->phase, bsz, figs[x->f].label,
			 x->verdict);
		xml_text(o, label);
		bprintf(o, "</text>\n");
		const char *color = x->regression ? "#c0392b" : x->verdict[0] == 's' ? "#e67e22"
							 : x->verdict[0] == 'f'   ? "#27ae60"
										  : "#7f8c8d";
		if (x->basis != B_NONE && isfinite(x->ch.ci_low) && isfinite(x->ch.ci_high))
			bprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
				   "stroke-width=\"3\"/>\n",
				X(x->ch.ci_low), y, X(x->ch.ci_high), y, color);
		if (isfinite(x->rel))
			bprintf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n", X(x->rel), y, color);
	}
#undef X
	bprintf(o, "</svg>\n");
}

/* Match NEW's phases to BASE's and compare every figure of each pair: the
 * results (NULL when out of memory), how many, and what they hold. */
static struct result *match(struct side *b, struct side *n, double alpha, double threshold, size_t *nr,
			    int *regressed, int *any_iv, int *any_none)
{
	struct result *res = calloc(b->n * NFIG + 1, sizeof *res);
	for (size_t i = 0; res && i < b->n; i++) {
		struct phase *pn = find_phase(n, b->ph[i].job, b->ph[i].phase, b->ph[i].bs, 0);
		if (!pn)
			continue;
		b->ph[i].matched = pn->matched = 1;
		if (b->ph[i].dup || pn->dup)
			continue;
		for (int f = 0; f < NFIG; f++) {
			struct result *x = &res[(*nr)++];
			compare_figure(b, n, &b->ph[i], pn, f, 1 - alpha, threshold, x);
			*regressed |= x->regression;
			*any_iv |= x->basis == B_INTERVALS;
			*any_none |= x->basis == B_NONE;
		}
	}
	return res;
}

int iob_compare_to_json(const char *base, const char *new_, double alpha, double threshold, char **json,
			char *err, size_t errlen)
{
	struct side b = {0}, n = {0};
	*json = NULL;
	if (load(&b, base, err, errlen) != 0 || load(&n, new_, err, errlen) != 0) {
		side_free(&b);
		side_free(&n);
		return -1;
	}
	size_t nr = 0;
	int regressed = 0, any_iv = 0, any_none = 0, rc = 0;
	struct result *res = match(&b, &n, alpha, threshold, &nr, &regressed, &any_iv, &any_none);
	struct buf j = {0};
	if (!res) {
		snprintf(err, errlen, "out of memory");
		rc = -1;
	} else {
		json_out(&j, &b, &n, res, nr, alpha, threshold, regressed);
		if (j.oom) {
			snprintf(err, errlen, "out of memory");
			free(j.d);
			rc = -1;
		} else {
			*json = j.d;
		}
	}
	free(res);
	side_free(&b);
	side_free(&n);
	return rc;
}

uint64_t iob_compare_fio_bs(const char *text, int d)
{
	return fio_bs(text, d);
}

/* ---- the command ---------------------------------------------------------- */

/* Every output file of compare is opened here (outfile.h, the run's one
 * checked open), after both inputs were read and compared. */
static int open_output(struct iob_outfile *of, const char *what, const char *path, char *err, size_t errlen)
{
	return iob_outfile_open(of, what, path, IOB_OUT_CHARDEV, err, errlen);
}

static int write_out(struct iob_outfile *of, const struct buf *b, char *err, size_t errlen)
{
	int bad = fwrite(b->d, 1, b->len, of->f) != b->len;
	bad |= fflush(of->f) != 0;
	bad |= ferror(of->f) != 0;
	int e = errno;
	if (bad)
		snprintf(err, errlen, "cannot write output file '%s': %s", of->path, strerror(e ? e : EIO));
	return bad ? -1 : 0;
}

/* Both outputs opened (or neither: one made and then refused is removed),
 * emptied, written, closed. */
static int write_outputs(const char *json, const struct buf *j, const char *svg, const struct buf *s, char *err,
			 size_t errlen)
{
	struct iob_outfile oj = {.f = NULL}, os = {.f = NULL};
	int rc = 0;
	if (json && open_output(&oj, "compare json file", json, err, errlen) != 0)
		return -1;
	if (svg && open_output(&os, "compare svg file", svg, err, errlen) != 0) {
		if (json) {
			iob_outfile_unmake(&oj);
			iob_outfile_close(&oj);
		}
		return -1;
	}
	if ((json && iob_outfile_commit(&oj) != 0) || (svg && iob_outfile_commit(&os) != 0)) {
		snprintf(err, errlen, "cannot empty an output file: %s", strerror(errno));
		rc = -1;
	}
	if (rc == 0 && json)
		rc = write_out(&oj, j, err, errlen);
	if (rc == 0 && svg)
		rc = write_out(&os, s, err, errlen);
	int c1 = json ? iob_outfile_close(&oj) : 0, c2 = svg ? iob_outfile_close(&os) : 0;
	if (rc == 0 && (c1 || c2)) {
		snprintf(err, errlen, "cannot write output file '%s': %s", c1 ? json : svg, strerror(-(c1 ? c1 : c2)));
		rc = -1;
	}
	return rc;
}

static int parse_percent(const char *opt, const char *v, double *out)
{
	char *end = NULL;
	double x = strtod(v, &end);
	if (end == v || strcmp(end, "%") != 0 || !isfinite(x) || x < 0 || x >= 100) {
		iob_cli_fail(IOB_EXIT_USAGE, "%s '%s': give a percent from 0 to below 100, e.g. 5%%", opt, v);
		return -1;
	}
	*out = x / 100.0;
	return 0;
}

int iob_compare_main(int argc, char **argv)
{
	const char *paths[2] = {NULL, NULL}, *json = NULL, *svg = NULL;
	double threshold = 0.05, alpha = 0.05;
	size_t npaths = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		int has = i + 1 < argc;
		if (strcmp(a, "--threshold") == 0 || strcmp(a, "--alpha") == 0 || strcmp(a, "--json") == 0 ||
		    strcmp(a, "-o") == 0 || strcmp(a, "--svg") == 0) {
			if (!has)
				return iob_cli_fail(IOB_EXIT_USAGE, "compare: %s needs a value", a);
			const char *v = argv[++i];
			if (strcmp(a, "--threshold") == 0) {
				if (parse_percent("--threshold", v, &threshold) != 0)
					return IOB_EXIT_USAGE;
			} else if (strcmp(a, "--alpha") == 0) {
				char *end = NULL;
				alpha = strtod(v, &end);
				if (end == v || *end || !(alpha > 0 && alpha < 0.5))
					return iob_cli_fail(IOB_EXIT_USAGE,
							    "--alpha '%s': give a number above 0 and below 0.5, e.g. 0.05", v);
			} else if (strcmp(a, "--svg") == 0) {
				svg = v;
			} else {
				if (json)
					return iob_cli_fail(IOB_EXIT_USAGE, "compare: give one JSON output file (--json or -o)");
				json = v;
			}
			if (!*v)
				return iob_cli_fail(IOB_EXIT_USAGE, "compare: %s needs a file name", a);
		} else if (a[0] == '-' && a[1]) {
			return iob_cli_fail(IOB_EXIT_USAGE, "compare: unknown option '%s' (see iobench --help)", a);
		} else if (npaths < 2) {
			paths[npaths++] = a;
		} else {
			return iob_cli_fail(IOB_EXIT_USAGE, "compare: unexpected argument '%s': give BASE and NEW", a);
		}
	}
	if (npaths != 2)
		return iob_cli_fail(IOB_EXIT_USAGE, "compare needs two result files: iobench compare BASE NEW");
	char err[2048];
	/* outputs: never over an input, never two on one file, checked before anything is read or written */
	struct iob_output_spec *spec = calloc(1, sizeof *spec);
	if (!spec)
		return iob_cli_fail(IOB_EXIT_USAGE, "compare: out of memory");
	const char *outs[2] = {json, svg}, *onames[2] = {"json", "svg"};
	for (int k = 0; k < 2; k++)
		if (outs[k]) {
			snprintf(spec->item[spec->n].name, sizeof spec->item[spec->n].name, "%s", onames[k]);
			snprintf(spec->item[spec->n].file, sizeof spec->item[spec->n].file, "%s", outs[k]);
			spec->n++;
		}
	int rc = iob_output_spec_check_paths(spec, paths, 2, err, sizeof err);
	for (int k = 0; rc == 0 && k < 2; k++)
		if (outs[k])
			rc = iob_outfile_check(k ? "compare svg file" : "compare json file", outs[k], IOB_OUT_CHARDEV, err,
					       sizeof err);
	if (rc == 0 && json && svg) {
		spec->n = 1;
		snprintf(spec->item[0].name, sizeof spec->item[0].name, "svg");
		snprintf(spec->item[0].file, sizeof spec->item[0].file, "%s", svg);
		const char *other[1] = {json};
		rc = iob_output_spec_check_paths(spec, other, 1, err, sizeof err);
	}
	free(spec);
	if (rc != 0)
		return iob_cli_fail(IOB_EXIT_USAGE, "compare: %s", err);

	struct side b = {0}, n = {0};
	if (load(&b, paths[0], err, sizeof err) != 0 || load(&n, paths[1], err, sizeof err) != 0) {
		side_free(&b);
		side_free(&n);
		return iob_cli_fail(IOB_EXIT_USAGE, "compare: %s", err);
	}
	/* no output may be BASE or NEW (by device and inode, when it is opened) */
	if (iob_outfiles_guard(paths[0]) != 0 || iob_outfiles_guard(paths[1]) != 0) {
		side_free(&b);
		side_free(&n);
		return iob_cli_fail(IOB_EXIT_USAGE, "compare: out of memory");
	}
	size_t nr = 0;
	int regressed = 0, any_iv = 0, any_none = 0;
	struct result *res = match(&b, &n, alpha, threshold, &nr, &regressed, &any_iv, &any_none);
	int code;
	if (!res) {
		code = iob_cli_fail(IOB_EXIT_USAGE, "compare: out of memory");
	} else if (nr == 0) {
		code = iob_cli_fail(IOB_EXIT_USAGE, "compare: '%s' and '%s' have no phase in common (matched by job, "
						    "phase and block size)",
				    paths[0], paths[1]);
	} else {
		struct buf h = {0}, j = {0}, s = {0};
		human(&h, &b, &n, res, nr, alpha, threshold, any_iv, any_none);
		if (json)
			json_out(&j, &b, &n, res, nr, alpha, threshold, regressed);
		if (svg)
			svg_out(&s, res, nr, threshold);
		if (h.oom || j.oom || s.oom) {
			code = iob_cli_fail(IOB_EXIT_USAGE, "compare: out of memory");
		} else if ((json || svg) && write_outputs(json, &j, svg, &s, err, sizeof err) != 0) {
			code = iob_cli_fail(IOB_EXIT_USAGE, "compare: %s", err);
		} else {
			int bad = fwrite(h.d, 1, h.len, stdout) != h.len || fflush(stdout) != 0;
			code = bad ? iob_cli_fail(IOB_EXIT_USAGE, "compare: cannot write to standard output")
				   : regressed ? 1 : 0;
		}
		free(h.d);
		free(j.d);
		free(s.d);
	}
	free(res);
	side_free(&b);
	side_free(&n);
	return code;
}
