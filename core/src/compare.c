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

 *
 * This file and its rooms share compare_int.h:
 *
 *   compare.c        what each side gives for a figure, the change and its
 *                    verdict, the phases matched, the command
 *   compare_read.c   the two result files read: iobench JSON, fio JSON
 *   compare_out.c    the comparison written: human text, JSON, SVG
 */
#include "compare_int.h"

void bprintf(struct buf *b, const char *fmt, ...)
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
		if (iob_grow(&b->d, &b->cap, b->len + (size_t)n + 1, 1, 4096) != 0) { /* then try again */
			b->oom = 1;
			return;
		}
	}
}

/* ---- what each side gives for one figure --------------------------------- */

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
