/*
 * svgdraw_pictures.c - the pictures: io_profile's sweep, a series' blocks
 * and its cliff, latency percentiles, files jobs' rates, intervals, steady
 * state; svgd_draw picks them.  A room of svgdraw.c (its map).
 */
#include "svgdraw_int.h"

#define MIB 1048576.0
/* Series in one panel at most: each gets a legend line of its own (18 px)
 * inside the panel; a job with more is drawn on several panels. */
#define SVG_PER_PANEL 18

/* ------------------------------------------------------------------------ */
/* The three pictures.                                                       */

static const char *const svg_colors[] = {"#1b6ac9", "#d9480f", "#2b8a3e", "#862e9c", "#c2255c",
					 "#5c940d", "#0b7285", "#e67700", "#212529", "#8d5a3b"};
#define SVG_NCOLORS (sizeof(svg_colors) / sizeof(svg_colors[0]))

/* Line patterns: with the colours, SVG_NCOLORS * SVG_NDASHES distinct styles. */
static const char *const svg_dashes[] = {NULL, "7 4", "2 3", "9 3 2 3"};
#define SVG_NDASHES (sizeof(svg_dashes) / sizeof(svg_dashes[0]))

/* io_profile: lines of (job, phase) against the I/O size. */
static size_t svg_draw_profile(struct svgd *st, struct textbuf *b, double y0)
{
	size_t ngroups = 0;
	size_t *group = calloc(st->nph + 1, sizeof(size_t)), *first = calloc(st->nph + 1, sizeof(size_t));
	double *xs = calloc(st->nph + 1, sizeof(double)), *ys = calloc(st->nph + 1, sizeof(double));
	if (!group || !first || !xs || !ys) {
		st->oom = 1;
		goto out;
	}
	double xlo = 0, xhi = 0, bwlo = 0, bwhi = 0, iohi = 0;
	int distinct_phases = 1;
	for (size_t i = 0; i < st->nph; i++) {
		struct svg_phase *p = &st->ph[i];
		size_t g = 0;
		while (g < ngroups && !(svg_same(st->ph[first[g]].job, p->job) &&
					svg_same(st->ph[first[g]].phase, p->phase)))
			g++;
		if (g == ngroups) {
			for (size_t k = 0; k < ngroups; k++)
				if (svg_same(st->ph[first[k]].phase, p->phase))
					distinct_phases = 0;
			first[ngroups++] = i;
		}
		group[i] = g;
		if (p->bs <= 0 || p->bw <= 0)
			continue;
		xlo = xlo == 0 || p->bs < xlo ? p->bs : xlo;
		xhi = p->bs > xhi ? p->bs : xhi;
		bwlo = bwlo == 0 || p->bw < bwlo ? p->bw : bwlo;
		bwhi = p->bw > bwhi ? p->bw : bwhi;
		iohi = p->iops > iohi ? p->iops : iohi;
	}
	if (xhi <= 0) {
		xlo = 1;
		xhi = 2;
		bwlo = MIB;
		bwhi = 10 * MIB;
		iohi = 1;
	}
	if (xhi <= xlo)
		xhi = xlo * 2;
	for (int panel = 0; panel < 2; panel++) {
		double py = y0 + panel * SVG_PANEL_H;
		struct svg_axis x = {.scale = SVG_LOG2, .lo = xlo, .hi = xhi, .div = 1,
				     .lab = "I/O size (bytes, log2 scale)", .bytes_ticks = 1};
		struct svg_axis y = {.scale = SVG_LOG10, .div = MIB, .lab = "throughput (MiB/s, log10 scale)"};
		double ystep = 0;
		if (panel == 0) {
			y.lo = pow(10, floor(log10(bwlo / MIB))) * MIB;
			y.hi = pow(10, ceil(log10(bwhi / MIB))) * MIB;
			if (y.hi <= y.lo)
				y.hi = y.lo * 10;
		} else {
			y.scale = SVG_LIN;
			y.div = 1;
			y.lab = "IOPS (operations per second)";
			ystep = svg_lin_range(&y, 0, iohi);
		}
		svg_frame(b, py, panel == 0 ? "Throughput against I/O size" : "IOPS against I/O size", &x, 0, &y,
			  ystep);
		for (size_t g = 0; g < ngroups; g++) {
			size_t n = 0;
			for (size_t i = 0; i < st->nph; i++) {
				struct svg_phase *p = &st->ph[i];
				if (group[i] != g || p->bs <= 0 || p->bw <= 0)
					continue;
				xs[n] = p->bs;
				ys[n++] = panel == 0 ? p->bw : p->iops;
			}
			const char *color = svg_colors[g % SVG_NCOLORS];
			svg_polyline(b, &x, &y, xs, ys, n, color, svg_dashes[g / SVG_NCOLORS % SVG_NDASHES],
				     panel == 0 ? "throughput" : "iops");
			svg_dots(b, &x, &y, xs, ys, n, color);
			struct textbuf name = {0};
			const struct svg_phase *p = &st->ph[first[g]];
			if (!distinct_phases) {
				textbuf_str(&name, p->job ? p->job : "");
				textbuf_str(&name, " ");
			}
			textbuf_str(&name, p->phase ? p->phase : "");
			svg_legend(b, py, g, color, svg_dashes[g / SVG_NCOLORS % SVG_NDASHES],
				   name.oom || !name.data ? "" : name.data);
			textbuf_free(&name);
		}
	}
out:
	free(group);
	free(first);
	free(xs);
	free(ys);
	return 2;
}

/* Thin a long series to the lowest and highest speed of each run of blocks. */
static size_t svg_thin(const struct svg_pts *p, double *xs, double *ys)
{
	if (p->n <= SVGD_MAX_POINTS) {
		memcpy(xs, p->x, p->n * sizeof(double));
		memcpy(ys, p->y, p->n * sizeof(double));
		return p->n;
	}
	size_t bins = SVGD_MAX_POINTS / 2, n = 0;
	for (size_t k = 0; k < bins; k++) {
		size_t a = p->n * k / bins, e = p->n * (k + 1) / bins, lo = a, hi = a;
		for (size_t i = a; i < e; i++) {
			if (p->y[i] < p->y[lo])
				lo = i;
			if (p->y[i] > p->y[hi])
				hi = i;
		}
		size_t first = lo < hi ? lo : hi, second = lo < hi ? hi : lo;
		xs[n] = p->x[first];
		ys[n++] = p->y[first];
		if (second != first) {
			xs[n] = p->x[second];
			ys[n++] = p->y[second];
		}
	}
	return n;
}

static void svg_draw_series(struct svgd *st, struct textbuf *b, const struct svg_series *s, double y0)
{
	double ymax = 0, end = s->end;
	for (size_t i = 0; i < s->blocks.n; i++)
		ymax = s->blocks.y[i] > ymax ? s->blocks.y[i] : ymax;
	if (s->median > ymax)
		ymax = s->median;
	if (end <= 0)
		end = s->block_size > 0 ? s->block_size : 1;
	double div = end >= 2.0 * 1073741824 ? 1073741824 : end >= 2 * MIB ? MIB : 1024;
	const char *xl = div == MIB ? "offset in the file (MiB)" : div == 1024 ? "offset in the file (KiB)"
									       : "offset in the file (GiB)";
	struct svg_axis x = {.scale = SVG_LIN, .div = div, .lab = xl};
	struct svg_axis y = {.scale = SVG_LIN, .div = MIB, .lab = "speed of the block (MiB/s)"};
	double xstep = svg_lin_range(&x, 0, end / div) * div;
	x.lo *= div;
	x.hi *= div;
	double ystep = svg_lin_range(&y, 0, (ymax > 0 ? ymax : MIB) / MIB) * MIB;
	y.lo *= MIB;
	y.hi *= MIB;
	char title[600];
	snprintf(title, sizeof(title), "Speed per block: %s (job %s)", s->file, s->job);
	svg_frame(b, y0, title, &x, xstep, &y, ystep);

	double *xs = calloc(s->blocks.n + 1, sizeof(double)), *ys = calloc(s->blocks.n + 1, sizeof(double));
	if (!xs || !ys) {
		st->oom = 1;
		free(xs);
		free(ys);
		return;
	}
	size_t n = svg_thin(&s->blocks, xs, ys);
	svg_polyline(b, &x, &y, xs, ys, n, svg_colors[0], NULL, "speed");
	free(xs);
	free(ys);
	size_t leg = 0;
	svg_legend(b, y0, leg++, svg_colors[0], NULL, "speed per block");
	char attrs[160], num[48], text[160], a[48], c[48];
	if (s->summary && s->median > 0) {
		double py = svg_map(&y, s->median);
		textbuf_fmt_double(s->median, num, sizeof(num));
		snprintf(attrs, sizeof(attrs),
			 "data-bytes-per-s=\"%s\" stroke=\"%s\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"", num,
			 svg_colors[2]);
		svg_line(b, "median", x.p0, py, x.p1, py, attrs);
		svg_num_text(a, sizeof(a), s->median / MIB);
		snprintf(text, sizeof(text), "robust median %s MiB/s", a);
		svg_legend(b, y0, leg++, svg_colors[2], "6 4", text);
	}
	if (s->cliff) {
		double px = svg_map(&x, s->cliff_offset);
		textbuf_fmt_double(s->cliff_offset, num, sizeof(num));
		snprintf(attrs, sizeof(attrs),
			 "data-offset-bytes=\"%s\" stroke=\"%s\" stroke-width=\"2\" stroke-dasharray=\"3 3\"", num,
			 svg_colors[1]);
		svg_line(b, "cliff", px, y.p1, px, y.p0, attrs);
		svg_fmt_size(a, sizeof(a), s->cliff_offset);
		snprintf(text, sizeof(text), "cliff at %s", a);
		svg_legend(b, y0, leg++, svg_colors[1], "3 3", text);
		svg_num_text(a, sizeof(a), s->cliff_before / MIB);
		svg_num_text(c, sizeof(c), s->cliff_after / MIB);
		snprintf(text, sizeof(text), "%s to %s MiB/s", a, c);
		svg_label(b, SVG_W - SVG_MR + 42, y0 + SVG_MT + 12 + 18.0 * (double)leg, NULL, NULL, text);
	} else if (s->summary) {
		svg_label(b, SVG_W - SVG_MR + 14, y0 + SVG_MT + 12 + 18.0 * (double)leg, NULL, NULL, "no cliff found");
	}
}

/* One panel of a job's series: ord[from .. from + n - 1] (indices into the
 * job's series), all of one phase when `phase` is set, panel k of the
 * `of` panels of that phase (of the job when phase is NULL). */
struct svg_panel {
	size_t from, n, k, of;
	const char *phase;
};

/* Plan the panels of the m series of one job.  A job of at most
 * SVG_NCOLORS series: its series in order, SVG_PER_PANEL a panel.  A
 * larger one: a panel per phase (small multiples), each cut into panels of
 * SVG_PER_PANEL.  ord gets the series in drawing order, pan (room for m)
 * the panels; returns their number. */
static size_t svg_plan(char *const *phase, size_t m, size_t *ord, struct svg_panel *pan)
{
	size_t np = 0, o = 0;
	int split = m > SVG_NCOLORS;
	for (size_t i = 0; i < m; i++) {
		if (split) {
			size_t seen = 0;
			while (seen < i && !svg_same(phase[seen], phase[i]))
				seen++;
			if (seen < i)
				continue; /* that phase is planned already */
		} else if (i > 0) {
			break;
		}
		size_t from = o;
		for (size_t k = i; k < m; k++)
			if (!split || svg_same(phase[k], phase[i]))
				ord[o++] = k;
		size_t n = o - from, of = (n + SVG_PER_PANEL - 1) / SVG_PER_PANEL;
		for (size_t k = 0; k < of; k++) {
			size_t at = from + k * SVG_PER_PANEL;
			pan[np++] = (struct svg_panel){.from = at,
						       .n = n - k * SVG_PER_PANEL < SVG_PER_PANEL ? n - k * SVG_PER_PANEL
												: SVG_PER_PANEL,
						       .k = k,
						       .of = of,
						       .phase = split ? phase[i] : NULL};
		}
	}
	return np;
}

/* The style of a series of a job: colour by its block size and pattern by
 * its phase when the job has at most SVG_NCOLORS sizes and SVG_NDASHES
 * phases; else by its place in the job.  Either way no two series of a
 * panel share a style. */
struct svg_style {
	const char *color, *dash;
};

static size_t svg_index_of(const char *const *names, const double *sizes, size_t n, const char *name, double size,
			   int by_name)
{
	for (size_t i = 0; i < n; i++)
		if (by_name ? svg_same(names[i], name) : sizes[i] == size)
			return i;
	return n;
}

/* How many series before i have the phase and block size of series i. */
static size_t svg_repeat(const char *const *phase, const double *bs, size_t i)
{
	size_t r = 0;
	for (size_t k = 0; k < i; k++)
		r += svg_same(phase[k], phase[i]) && bs[k] == bs[i];
	return r;
}

/* The legend of series i of a job: "read 4 KiB", "read 4 KiB #2" for the
 * second with that phase and size. */
static void svg_series_name(char *out, size_t len, const char *const *phase, const double *bs, size_t i)
{
	char size[48];
	size_t r = svg_repeat(phase, bs, i);
	svg_fmt_size(size, sizeof(size), bs[i]);
	if (bs[i] <= 0) /* a files job's operation: no block size */
		size[0] = '\0';
	if (r)
		snprintf(out, len, "%.40s %s #%zu", phase[i] ? phase[i] : "", size, r + 1);
	else
		snprintf(out, len, "%.40s %s", phase[i] ? phase[i] : "", size);
}

/* styles[i] for the n series of one job (phase names, block sizes): 1 when
 * they are by size and phase, 0 when they must go by place in the panel
 * (svg_style_of), -ENOMEM. */
static int svg_styles(const char *const *phase, const double *bs, size_t n, struct svg_style *styles)
{
	const char **ph = calloc(n + 1, sizeof(*ph));
	double *sz = calloc(n + 1, sizeof(*sz));
	size_t nph = 0, nsz = 0;
	if (!ph || !sz) {
		free(ph);
		free(sz);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		if (svg_index_of(ph, NULL, nph, phase[i], 0, 1) == nph)
			ph[nph++] = phase[i];
		if (svg_index_of(NULL, sz, nsz, NULL, bs[i], 0) == nsz)
			sz[nsz++] = bs[i];
	}
	int semantic = nsz <= SVG_NCOLORS && nph <= SVG_NDASHES;
	for (size_t i = 0; i < n && semantic; i++)
		semantic = svg_repeat(phase, bs, i) == 0;
	for (size_t i = 0; i < n && semantic; i++) {
		styles[i].color = svg_colors[svg_index_of(NULL, sz, nsz, NULL, bs[i], 0) % SVG_NCOLORS];
		styles[i].dash = svg_dashes[svg_index_of(ph, NULL, nph, phase[i], 0, 1) % SVG_NDASHES];
	}
	free(ph);
	free(sz);
	return semantic;
}

/* The style series s is drawn in as the q-th of panel p: by its size and
 * phase (solid on a panel of one phase), or else by q, unique in the
 * panel. */
static struct svg_style svg_style_of(const struct svg_style *styles, int semantic, size_t s, size_t q,
				     const struct svg_panel *p)
{
	struct svg_style st = styles[s];
	if (!semantic) {
		st.color = svg_colors[q % SVG_NCOLORS];
		st.dash = svg_dashes[q / SVG_NCOLORS % SVG_NDASHES];
	} else if (p->phase) {
		st.dash = NULL;
	}
	return st;
}

/* "what: job J", ", phase" for a panel of one phase, " (k of n)" when it
 * takes several panels. */
static void svg_panel_title(char *out, size_t len, const char *what, const char *job, const struct svg_panel *p)
{
	char part[32] = "";
	if (p->of > 1)
		snprintf(part, sizeof(part), " (%zu of %zu)", p->k + 1, p->of);
	snprintf(out, len, "%s: job %.80s%s%.40s%s", what, job ? job : "", p->phase ? ", " : "",
		 p->phase ? p->phase : "", part);
}

/* The jobs of a list of series, in the order they first appear: first[j]
 * is the index of job j's first series.  Returns the number of jobs. */
static size_t svg_jobs(char *const *job, size_t n, size_t *first)
{
	size_t nj = 0;
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;
		while (j < nj && !svg_same(job[first[j]], job[i]))
			j++;
		if (j == nj)
			first[nj++] = i;
	}
	return nj;
}

/* What a picture of one line per series keeps while it draws a job's series
 * (n at most): their jobs; each job's first series; the job's series
 * (sel: their index in the picture's list, phase and block size); their
 * styles; the panels (svg_plan: the order drawn, ord, and each panel's
 * share). */
struct svg_sets {
	char **job, **phase;
	double *bs;
	size_t *first, *sel, *ord;
	struct svg_style *style;
	struct svg_panel *pan;
};

static int svg_sets_alloc(struct svg_sets *v, size_t n)
{
	v->job = calloc(n, sizeof(*v->job));
	v->phase = calloc(n, sizeof(*v->phase));
	v->bs = calloc(n, sizeof(*v->bs));
	v->first = calloc(n, sizeof(*v->first));
	v->sel = calloc(n, sizeof(*v->sel));
	v->ord = calloc(n, sizeof(*v->ord));
	v->style = calloc(n, sizeof(*v->style));
	v->pan = calloc(n, sizeof(*v->pan));
	return v->job && v->phase && v->bs && v->first && v->sel && v->ord && v->style && v->pan ? 0 : -1;
}

static void svg_sets_free(struct svg_sets *v)
{
	free(v->job);
	free(v->phase);
	free(v->bs);
	free(v->first);
	free(v->sel);
	free(v->ord);
	free(v->style);
	free(v->pan);
}

/* The legend line of series s of a job's selected series, at position q of
 * the panel at y0. */
static void svg_series_legend(struct textbuf *b, double y0, size_t q, const struct svg_style *sty,
			      const struct svg_sets *v, size_t s)
{
	char text[200];
	svg_series_name(text, sizeof(text), (const char *const *)v->phase, v->bs, s);
	svg_legend(b, y0, q, sty->color, sty->dash, text);
}

/* A picture of one line per series, panels per job (svg_draw_jobs): subs
 * frames for each panel of series (the interval picture: bandwidth, then
 * IOPS), each frame's axes and title (frame), each series' line (curve; -1
 * out of memory); item tells series i's phase and block size. */
struct svg_walk {
	int subs;
	void (*item)(const void *ctx, size_t i, char **phase, double *bs);
	void (*frame)(const void *ctx, struct textbuf *b, double py, int sub, const char *job,
		      const struct svg_panel *pan, struct svg_axis *x, struct svg_axis *y);
	int (*curve)(const void *ctx, struct textbuf *b, struct svg_axis *x, struct svg_axis *y, size_t i, int sub,
		     const struct svg_style *sty);
	const void *ctx;
};

/* The n series whose jobs are in set->job: for each job its series, styled
 * (svg_styles) and planned into panels (svg_plan), each series' line named in
 * its legend.  The panels drawn; st->oom set out of memory. */
static size_t svg_draw_jobs(struct svgd *st, struct textbuf *b, double y0, struct svg_sets *set, size_t n,
			    const struct svg_walk *w)
{
	size_t panels = 0, nj = svg_jobs(set->job, n, set->first);
	for (size_t j = 0; j < nj; j++) {
		const char *job = set->job[set->first[j]];
		size_t m = 0;
		for (size_t i = set->first[j]; i < n; i++)
			if (svg_same(set->job[i], job)) {
				set->sel[m] = i;
				w->item(w->ctx, i, &set->phase[m], &set->bs[m]);
				m++;
			}
		int semantic = svg_styles((const char *const *)set->phase, set->bs, m, set->style);
		if (semantic < 0) {
			st->oom = 1;
			return panels;
		}
		size_t np = svg_plan(set->phase, m, set->ord, set->pan);
		for (size_t k = 0; k < np; k++)
			for (int sub = 0; sub < w->subs; sub++) {
				double py = y0 + (double)panels++ * SVG_PANEL_H;
				struct svg_axis x, y;
				w->frame(w->ctx, b, py, sub, job, &set->pan[k], &x, &y);
				for (size_t q = 0; q < set->pan[k].n; q++) {
					size_t s = set->ord[set->pan[k].from + q];
					struct svg_style sty = svg_style_of(set->style, semantic, s, q, &set->pan[k]);
					if (w->curve(w->ctx, b, &x, &y, set->sel[s], sub, &sty) < 0) {
						st->oom = 1;
						return panels;
					}
					svg_series_legend(b, py, q, &sty, set, s);
				}
			}
	}
	return panels;
}

/* The latency picture's series: phases with percentiles (ps), on the axes
 * x0 and y0. */
struct svg_lat_walk {
	struct svg_phase **ps;
	struct svg_axis x0, y0;
};

static void svg_lat_item(const void *ctx, size_t i, char **phase, double *bs)
{
	const struct svg_lat_walk *c = ctx;
	*phase = c->ps[i]->phase;
	*bs = c->ps[i]->bs;
}

static void svg_lat_frame(const void *ctx, struct textbuf *b, double py, int sub, const char *job,
			  const struct svg_panel *pan, struct svg_axis *x, struct svg_axis *y)
{
	const struct svg_lat_walk *c = ctx;
	(void)sub;
	*x = c->x0;
	*y = c->y0;
	char title[200];
	svg_panel_title(title, sizeof(title), "Latency percentiles", job, pan);
	svg_frame(b, py, title, x, 0, y, 0);
}

static int svg_lat_curve(const void *ctx, struct textbuf *b, struct svg_axis *x, struct svg_axis *y, size_t i,
			 int sub, const struct svg_style *sty)
{
	const struct svg_phase *p = ((const struct svg_lat_walk *)ctx)->ps[i];
	(void)sub;
	double *vals = calloc(p->npct, sizeof(double));
	if (!vals)
		return -1;
	for (size_t v = 0; v < p->npct; v++)
		vals[v] = p->val[v] > 0 ? p->val[v] : 1;
	svg_polyline(b, x, y, p->pct, vals, p->npct, sty->color, sty->dash, "latency");
	svg_dots(b, x, y, p->pct, vals, p->npct, sty->color);
	free(vals);
	return 0;
}

/* The latency percentiles of every phase: one panel per job (more for a
 * job with over SVG_PER_PANEL phases), every curve named in its legend;
 * one y axis for all panels, so they compare.  Returns the panels drawn. */
static size_t svg_draw_latency(struct svgd *st, struct textbuf *b, double y0)
{
	double lo = 0, hi = 0, top = 50;
	size_t n = 0;
	for (size_t i = 0; i < st->nph; i++) {
		n += st->ph[i].npct != 0;
		for (size_t k = 0; k < st->ph[i].npct; k++) {
			double v = st->ph[i].val[k] > 0 ? st->ph[i].val[k] : 1;
			lo = lo == 0 || v < lo ? v : lo;
			hi = v > hi ? v : hi;
			top = st->ph[i].pct[k] > top ? st->ph[i].pct[k] : top;
		}
	}
	if (hi <= 0) {
		lo = 1000;
		hi = 10000;
	}
	struct svg_axis x0 = {.scale = SVG_NINES, .lo = 0, .hi = top, .div = 1,
			      .lab = "percentile (scale of nines: 90, 99, 99.9 equally spaced)"};
	struct svg_axis y0a = {.scale = SVG_LOG10, .div = 1, .lab = "latency per I/O (log10 scale)", .ns_ticks = 1};
	y0a.lo = pow(10, floor(log10(lo)));
	y0a.hi = pow(10, ceil(log10(hi)));
	if (y0a.hi <= y0a.lo)
		y0a.hi = y0a.lo * 10;
	if (!n) {
		struct svg_axis x = x0, y = y0a;
		svg_frame(b, y0, "Latency percentiles per phase", &x, 0, &y, 0);
		svg_label(b, (SVG_ML + SVG_W - SVG_MR) / 2, y0 + SVG_PANEL_H / 2, "middle", NULL,
			  "no latency was recorded");
		return 1;
	}
	/* the phases with a latency, and their jobs */
	struct svg_phase **ps = calloc(n, sizeof(*ps));
	struct svg_sets set;
	int sets = svg_sets_alloc(&set, n);
	size_t panels = 0;
	if (!ps || sets < 0) {
		st->oom = 1;
		goto out;
	}
	n = 0;
	for (size_t i = 0; i < st->nph; i++)
		if (st->ph[i].npct) {
			ps[n] = &st->ph[i];
			set.job[n++] = st->ph[i].job;
		}
	const struct svg_lat_walk c = {.ps = ps, .x0 = x0, .y0 = y0a};
	const struct svg_walk w = {1, svg_lat_item, svg_lat_frame, svg_lat_curve, &c};
	panels = svg_draw_jobs(st, b, y0, &set, n, &w);
out:
	free(ps);
	svg_sets_free(&set);
	return panels ? panels : 1;
}

/* The files jobs' phases (workload = files): one bar per "meta" record, its
 * ops_per_s on a log10 axis, named by job and phase under it (class "bar",
 * data-phase, data-ops-per-s).  Up to SVG_PER_PANEL*2 bars a panel.
 * Returns the panels drawn. */
static size_t svg_draw_meta(struct svgd *st, struct textbuf *b, double y0)
{
	const size_t per = 2 * SVG_PER_PANEL;
	double lo = 0, hi = 0;
	size_t n = 0, panels = 0;
	for (size_t i = 0; i < st->nph; i++)
		if (st->ph[i].meta && st->ph[i].iops > 0) {
			lo = lo == 0 || st->ph[i].iops < lo ? st->ph[i].iops : lo;
			hi = st->ph[i].iops > hi ? st->ph[i].iops : hi;
			n++;
		}
	if (!n)
		return 0;
	for (size_t cur = 0, k = 0; k < n;) {
		size_t m = n - k < per ? n - k : per;
		double py = y0 + (double)panels++ * SVG_PANEL_H;
		struct svg_axis x = {.scale = SVG_LIN, .lo = 0, .hi = (double)m, .div = 1, .lab = "phase (job: operation)"};
		struct svg_axis y = {.scale = SVG_LOG10, .div = 1, .lab = "operations per second (log10 scale)"};
		y.lo = pow(10, floor(log10(lo)));
		y.hi = pow(10, ceil(log10(hi)));
		if (y.hi <= y.lo)
			y.hi = y.lo * 10;
		svg_frame(b, py, "Operations per second per phase (workload = files)", &x, -1, &y, 0);
		size_t q = 0;
		for (; cur < st->nph && q < m; cur++) {
			const struct svg_phase *p = &st->ph[cur];
			if (!p->meta || p->iops <= 0)
				continue;
			double x0 = svg_map(&x, (double)q + 0.15), x1 = svg_map(&x, (double)q + 0.85);
			double yt = svg_map(&y, p->iops), yb = svg_map(&y, y.lo);
			char num[48];
			textbuf_fmt_double(p->iops, num, sizeof(num));
			textbuf_str(b, "<rect class=\"bar\" data-phase=\"");
			svg_text(b, p->phase ? p->phase : "");
			textbuf_str(b, "\" data-ops-per-s=\"");
			textbuf_str(b, num);
			textbuf_str(b, "\" x=\"");
			svg_coord(b, x0);
			textbuf_str(b, "\" y=\"");
			svg_coord(b, yt);
			textbuf_str(b, "\" width=\"");
			svg_coord(b, x1 - x0);
			textbuf_str(b, "\" height=\"");
			svg_coord(b, yb - yt > 0 ? yb - yt : 0);
			textbuf_str(b, "\" fill=\"");
			textbuf_str(b, svg_colors[q % SVG_NCOLORS]);
			textbuf_str(b, "\"/>\n");
			char lab[160];
			snprintf(lab, sizeof(lab), "%s: %s", p->job ? p->job : "", p->phase ? p->phase : "");
			char attrs[96];
			double cx = (x0 + x1) / 2, cy = yb + 12;
			snprintf(attrs, sizeof(attrs), "font-size=\"10\" transform=\"rotate(30 %d %d)\"", (int)cx, (int)cy);
			svg_label(b, cx, cy, "start", attrs, lab);
			svg_num_text(num, sizeof(num), p->iops);
			svg_label(b, cx, yt - 4, "middle", "font-size=\"10\"", num);
			q++;
			k++;
		}
	}
	return panels;
}

/* The interval picture's series (st->iv): time on x to thi, bandwidth to
 * bwhi or IOPS to iohi on y; xs and ys room for the most points a line
 * keeps. */
struct svg_iv_walk {
	const struct svgd *st;
	double thi, bwhi, iohi;
	double *xs, *ys;
};

static void svg_iv_item(const void *ctx, size_t i, char **phase, double *bs)
{
	const struct svg_iv_walk *c = ctx;
	*phase = c->st->iv[i].phase;
	*bs = c->st->iv[i].bs;
}

static void svg_iv_frame(const void *ctx, struct textbuf *b, double py, int sub, const char *job,
			 const struct svg_panel *pan, struct svg_axis *x, struct svg_axis *y)
{
	const struct svg_iv_walk *c = ctx;
	*x = (struct svg_axis){.scale = SVG_LIN, .div = 1, .lab = "time since the phase began (s)"};
	*y = (struct svg_axis){.scale = SVG_LIN, .div = MIB, .lab = "throughput (MiB/s)"};
	double xstep = svg_lin_range(x, 0, c->thi), ystep;
	if (sub == 0) { /* round steps of MiB/s */
		ystep = svg_lin_range(y, 0, c->bwhi / MIB) * MIB;
		y->lo *= MIB;
		y->hi *= MIB;
	} else {
		y->div = 1;
		y->lab = "IOPS (operations per second)";
		ystep = svg_lin_range(y, 0, c->iohi);
	}
	char title[200];
	svg_panel_title(title, sizeof(title), sub == 0 ? "Throughput per interval" : "IOPS per interval", job, pan);
	svg_frame(b, py, title, x, xstep, y, ystep);
}

static int svg_iv_curve(const void *ctx, struct textbuf *b, struct svg_axis *x, struct svg_axis *y, size_t i,
			int sub, const struct svg_style *sty)
{
	const struct svg_iv_walk *c = ctx;
	const struct svg_ivs *v = &c->st->iv[i];
	const struct svg_pts *p = sub == 0 ? &v->bw : &v->iops;
	/* a long line thinned as a series is, and its dots only when every
	 * interval is one */
	size_t cnt = svg_thin(p, c->xs, c->ys);
	svg_polyline(b, x, y, c->xs, c->ys, cnt, sty->color, sty->dash, sub == 0 ? "interval-bw" : "interval-iops");
	if (cnt == p->n)
		svg_dots(b, x, y, c->xs, c->ys, cnt, sty->color);
	return 0;
}

/* Intervals (log_interval): throughput and IOPS against time, a line per
 * phase; per job (SVG_PER_PANEL lines at most) a throughput panel and an
 * IOPS panel, every line named.  Returns the panels drawn. */
static size_t svg_draw_intervals(struct svgd *st, struct textbuf *b, double y0)
{
	double thi = 0, bwhi = 0, iohi = 0;
	for (size_t g = 0; g < st->niv; g++) {
		const struct svg_ivs *v = &st->iv[g];
		for (size_t i = 0; i < v->bw.n; i++) {
			thi = v->bw.x[i] > thi ? v->bw.x[i] : thi;
			bwhi = v->bw.y[i] > bwhi ? v->bw.y[i] : bwhi;
			iohi = v->iops.y[i] > iohi ? v->iops.y[i] : iohi;
		}
	}
	size_t n = st->niv, panels = 0;
	struct svg_sets set;
	int sets = svg_sets_alloc(&set, n + 1);
	size_t most = 0;
	for (size_t g = 0; g < n; g++)
		most = st->iv[g].bw.n > most ? st->iv[g].bw.n : most;
	most = most < SVGD_MAX_POINTS ? most : SVGD_MAX_POINTS;
	double *xs = calloc(most + 1, sizeof(double)), *ys = calloc(most + 1, sizeof(double));
	if (sets < 0 || !xs || !ys) {
		st->oom = 1;
		goto out;
	}
	for (size_t g = 0; g < n; g++)
		set.job[g] = st->iv[g].job;
	const struct svg_iv_walk c = {.st = st, .thi = thi, .bwhi = bwhi, .iohi = iohi, .xs = xs, .ys = ys};
	const struct svg_walk w = {2, svg_iv_item, svg_iv_frame, svg_iv_curve, &c};
	panels = svg_draw_jobs(st, b, y0, &set, n, &w);
out:
	free(xs);
	free(ys);
	svg_sets_free(&set);
	return panels;
}

/* A steady state panel: the rounds, the window judged, its mean and the
 * +-10% and +-20% bands (classes steady-window, steady-mean, steady-band10,
 * steady-band20, with data-value in the record's unit). */
static void svg_draw_steady(struct textbuf *b, const struct svg_steady *d, double y0)
{
	double hi = 0;
	for (size_t i = 0; i < d->rounds.n; i++)
		hi = d->rounds.y[i] > hi ? d->rounds.y[i] : hi;
	hi = hi > d->mean * 1.25 ? hi : d->mean * 1.25;
	double div = d->bw ? MIB : d->lat ? 1000 : 1;
	struct svg_axis x = {.scale = SVG_LIN, .div = 1, .lab = "round"};
	struct svg_axis y = {.scale = SVG_LIN,
			     .div = div,
			     .lab = d->bw ? "throughput (MiB/s)" : d->lat ? "mean latency (us)" : "IOPS (operations per second)"};
	double xstep = svg_lin_range(&x, 0, d->rounds.n > 1 ? (double)d->rounds.n - 1 : 1);
	double ystep = svg_lin_range(&y, 0, hi / div) * div;
	y.lo *= div;
	y.hi *= div;
	char title[300], bs[48];
	svg_fmt_size(bs, sizeof(bs), d->bs);
	snprintf(title, sizeof(title), "Steady state: %.40s %s %s, %s", d->job ? d->job : "", d->phase ? d->phase : "",
		 bs, d->reached ? "reached" : "not reached");
	svg_frame(b, y0, title, &x, xstep, &y, ystep);
	if (d->window >= 1 && d->mean > 0 && d->last >= d->window - 1) {
		double x0 = svg_map(&x, d->last - d->window + 1), x1 = svg_map(&x, d->last);
		textbuf_str(b, "<rect class=\"steady-window\" x=\"");
		svg_coord(b, x0 - 4);
		textbuf_str(b, "\" y=\"");
		svg_coord(b, y.p1);
		textbuf_str(b, "\" width=\"");
		svg_coord(b, x1 - x0 + 8);
		textbuf_str(b, "\" height=\"");
		svg_coord(b, y.p0 - y.p1);
		textbuf_str(b, "\" fill=\"#1b6ac9\" fill-opacity=\"0.08\"/>\n");
		static const struct {
			double f;
			const char *cls, *style;
		} lines[] = {{1.0, "steady-mean", "stroke=\"#2b8a3e\" stroke-width=\"2\""},
			     {1.1, "steady-band10", "stroke=\"#e67700\" stroke-width=\"1.2\" stroke-dasharray=\"6 4\""},
			     {0.9, "steady-band10", "stroke=\"#e67700\" stroke-width=\"1.2\" stroke-dasharray=\"6 4\""},
			     {1.2, "steady-band20", "stroke=\"#c92a2a\" stroke-width=\"1.2\" stroke-dasharray=\"2 3\""},
			     {0.8, "steady-band20", "stroke=\"#c92a2a\" stroke-width=\"1.2\" stroke-dasharray=\"2 3\""}};
		for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
			char cls[96];
			snprintf(cls, sizeof(cls), "%s\" data-value=\"%.6g", lines[i].cls, d->mean * lines[i].f);
			double yy = svg_map(&y, d->mean * lines[i].f);
			svg_line(b, cls, x0 - 4, yy, x1 + 4, yy, lines[i].style);
		}
	}
	svg_polyline(b, &x, &y, d->rounds.x, d->rounds.y, d->rounds.n, svg_colors[0], NULL, "steady-rounds");
	svg_dots(b, &x, &y, d->rounds.x, d->rounds.y, d->rounds.n, svg_colors[0]);
	svg_legend(b, y0, 0, svg_colors[0], NULL, d->bw ? "MiB/s per round" : d->lat ? "mean latency (us) per round" : "IOPS per round");
	svg_legend(b, y0, 1, "#2b8a3e", NULL, "window mean");
	svg_legend(b, y0, 2, "#e67700", "6 4", "mean +-10%");
	svg_legend(b, y0, 3, "#c92a2a", "2 3", "mean +-20%");
}

/* ------------------------------------------------------------------------ */
/* The shared interface (svgdraw.h): the pictures drawn.                    */

unsigned svgd_default(const struct svgd *st)
{
	if (st->profile)
		return SVGD_PROFILE;
	if (st->nse)
		return SVGD_SERIES;
	return SVGD_STEADY | SVGD_INTERVALS | SVGD_META | SVGD_LATENCY;
}

size_t svgd_draw(struct svgd *st, struct textbuf *b, unsigned what, double y0)
{
	size_t panels = 0;
	if (what & SVGD_PROFILE)
		panels += svg_draw_profile(st, b, y0);
	if (what & SVGD_SERIES)
		for (size_t i = 0; i < st->nse; i++, panels++)
			svg_draw_series(st, b, &st->se[i], y0 + (double)panels * SVG_PANEL_H);
	if (what & SVGD_STEADY)
		for (size_t i = 0; i < st->nsd; i++, panels++)
			svg_draw_steady(b, &st->sd[i], y0 + (double)panels * SVG_PANEL_H);
	if ((what & SVGD_INTERVALS) && st->niv)
		panels += svg_draw_intervals(st, b, y0 + (double)panels * SVG_PANEL_H);
	if ((what & SVGD_META) && st->nmeta)
		panels += svg_draw_meta(st, b, y0 + (double)panels * SVG_PANEL_H);
	if (what & SVGD_LATENCY)
		panels += svg_draw_latency(st, b, y0 + (double)panels * SVG_PANEL_H);
	return panels;
}

size_t svgd_thinned(const struct svgd *st, size_t *most)
{
	size_t n = 0, m = 0;
	for (size_t i = 0; i < st->nse; i++)
		if (st->se[i].blocks.n > SVGD_MAX_POINTS) {
			n++;
			m = st->se[i].blocks.total > m ? st->se[i].blocks.total : m;
		}
	for (size_t i = 0; i < st->niv; i++)
		if (st->iv[i].bw.n > SVGD_MAX_POINTS) {
			n++;
			m = st->iv[i].bw.total > m ? st->iv[i].bw.total : m;
		}
	if (most)
		*most = m;
	return n;
}
