/*
 * html.c - the "html" output: one self-contained HTML page per run, to read
 * a run in a browser, print it, or send it on (docs/outputs.md, "html").
 * `iobench report` (core/src/report.c) renders saved results with this same
 * output, so a page made at the end of a run and one made later from its
 * JSON are the same page.
 *
 * The records are kept as they arrive and the page is written at end_run,
 * in one write.  From the top:
 *  - the title (tool, host, start time) and, in red, an error or interrupt;
 *  - the notes, first, where nobody can miss them;
 *  - the run facts: host, kernel, file system, device, backend, tool,
 *    version, command line (source), start time, schema;
 *  - the comparison with its verdicts (records of kind "comparison", which
 *    only `iobench report BASE NEW` gives);
 *  - per phase record a row: MiB/s, IOPS, latency percentiles; per "meta"
 *    record (workload = files) a row: streams, operations, time, ops/s and
 *    the percentiles of one operation's latency; repeats
 *    (a "repeats" record) with their mean and 95% interval; steady state;
 *    a series' (bigread's) block speeds and cliff;
 *  - the pictures, drawn by the svg output's code (svgdraw.c) as inline SVG:
 *    io_profile's size sweep, a series' block speeds with the cliff, steady
 *    state, intervals, latency percentiles; a line of more than
 *    SVGD_MAX_POINTS points is thinned (lowest and highest of each run of
 *    points) and the page says so.
 *
 * Safe to open anywhere: no URL but "#" (no font, style, script or image
 * from elsewhere; a Content-Security-Policy forbids any), every string from
 * the result escaped (textbuf_xml: & < > " ' as entities, controls and bad
 * UTF-8 as U+FFFD), readable with scripts off; a small inline script only
 * sorts a table when its head is clicked.  An @media print block lays it out
 * for paper (A4 or letter: the pictures scale to the page's width).
 *
 * Marks for scripts and tests: tables have ids (notes, facts, phases, meta,
 * repeats, steady, series, comparison), a number cell carries its exact
 * value in data-v (the record's unit: bytes/s, ops/s, ns) and a class naming
 * the figure (bw, iops, p50, p90, p99, p99_9, max).  After the sink fails
 * nothing more is written and every later call returns that error.
 *
 * This file and its room share html_int.h:
 *
 *   html.c       the records kept (phases, repeats, steady state,
 *                comparisons, the run's facts) and the hooks of the
 *                ops svg and html share (svgdraw.c, svgd_out_*)
 *   html_page.c  the page: formatting, the style and script, the facts,
 *                notes, tables and pictures, the whole page rendered
 */
#include "html_int.h"

#define HTML_NAME "html"

static const struct iob_host *html_host;

/* The percentiles shown per phase (their cell classes: html_page.c). */
static const double html_pct[HTML_NPCT] = {50, 90, 99, 99.9};

/* ------------------------------------------------------------------------ */
/* Keeping the records.                                                      */

/* Room for one more of an array; NULL (and oom) when out of memory. */
static void *html_more(struct html_state *st, void **p, size_t *n, size_t *cap, size_t size)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		void *q = realloc(*p, c * size);
		if (!q) {
			st->oom = 1;
			return NULL;
		}
		*p = q;
		*cap = c;
	}
	char *e = (char *)*p + (*n)++ * size;
	memset(e, 0, size);
	return e;
}

static struct opt html_opt(const struct iob_record *rec, const char *key)
{
	struct opt o = {0, 0};
	o.has = svgd_num(rec, key, &o.v);
	return o;
}

/* Add s to the ", "-separated list *list unless it is there already. */
static void html_add_distinct(struct html_state *st, char **list, const char *s)
{
	if (!s || !*s)
		return;
	size_t n = strlen(s);
	if (*list) {
		for (const char *p = *list; *p;) {
			const char *e = strstr(p, ", ");
			size_t len = e ? (size_t)(e - p) : strlen(p);
			if (len == n && memcmp(p, s, n) == 0)
				return;
			if (!e)
				break;
			p = e + 2;
		}
		if (strlen(*list) > 400) /* enough to say it: the table has the rest */
			return;
	}
	size_t old = *list ? strlen(*list) : 0;
	char *q = realloc(*list, old + n + 3);
	if (!q) {
		st->oom = 1;
		return;
	}
	if (old)
		memcpy(q + old, ", ", 2), old += 2;
	memcpy(q + old, s, n + 1);
	*list = q;
}

/* The shown percentiles and the max of the record's lat_ns. */
static void html_keep_lat(struct html_phase *p, const struct iob_record *rec)
{
	const struct iob_field *f = svgd_field(rec, "lat_ns");
	const struct iob_latency *lat = f && f->type == IOB_T_LAT ? f->v.lat : NULL;
	if (lat && lat->count) {
		for (size_t i = 0; lat->pct && lat->value && i < lat->npct; i++)
			for (int k = 0; k < HTML_NPCT; k++)
				if (fabs(lat->pct[i] - html_pct[k]) < 1e-9)
					p->pct[k] = (struct opt){1, (double)lat->value[i]};
		p->max = (struct opt){1, (double)lat->max};
	}
}

/* How a kept row's member comes from its record: a string (a copy, ""
 * when absent), a number that may be absent, a bool that is true. */
enum html_ft { HF_STR, HF_OPT, HF_BOOL };
struct html_field {
	const char *key;
	enum html_ft type;
	size_t at; /* offsetof the member in its row */
};
#define HF(row, m, key, type) {key, type, offsetof(struct row, m)}
#define HF_S(row, m) HF(row, m, #m, HF_STR)
#define HF_BS(row) HF(row, bs, "block_size_bytes", HF_OPT)
#define HF_N(a) (sizeof(a) / sizeof((a)[0]))

/* The n fields f of rec into row. */
static void html_fill(struct html_state *st, void *row, const struct html_field *f, size_t n,
		      const struct iob_record *rec)
{
	for (size_t i = 0; i < n; i++) {
		void *at = (char *)row + f[i].at;
		if (f[i].type == HF_STR)
			*(char **)at = svgd_strdup(&st->oom, svgd_str(rec, f[i].key));
		else if (f[i].type == HF_OPT)
			*(struct opt *)at = html_opt(rec, f[i].key);
		else
			*(int *)at = svgd_bool(rec, f[i].key);
	}
}

/* A new row of *rows (size bytes each) with the n fields f of rec; NULL
 * when out of memory. */
static void *html_keep_row(struct html_state *st, void **rows, size_t *nrows, size_t *cap, size_t size,
			   const struct html_field *f, size_t n, const struct iob_record *rec)
{
	void *row = html_more(st, rows, nrows, cap, size);
	if (row)
		html_fill(st, row, f, n, rec);
	return row;
}

/* The strings of n rows kept with fields f, and their array. */
static void html_rows_free(void *rows, size_t nrows, size_t size, const struct html_field *f, size_t n)
{
	for (size_t r = 0; r < nrows; r++)
		for (size_t i = 0; i < n; i++)
			if (f[i].type == HF_STR)
				free(*(char **)(void *)((char *)rows + r * size + f[i].at));
	free(rows);
}

/* What every phase row shows (the data jobs' and the files jobs'). */
static const struct html_field html_phase_fields[] = {
    HF_S(html_phase, job),
    HF_S(html_phase, phase),
    HF_S(html_phase, status),
    HF(html_phase, iops, "ops_per_s", HF_OPT),
    HF(html_phase, repeat, "repeat", HF_OPT),
};

/* A new row of a phase table (the data jobs' or the files jobs'): what
 * every such row shows (job, phase, status, rate, repeat, latency); NULL
 * when out of memory. */
static struct html_phase *html_phase_row(struct html_state *st, struct html_phase **rows, size_t *n, size_t *cap,
					 const struct iob_record *rec)
{
	struct html_phase *p = html_keep_row(st, (void **)rows, n, cap, sizeof(*p), html_phase_fields,
					     HF_N(html_phase_fields), rec);
	if (p)
		html_keep_lat(p, rec);
	return p;
}

/* A data job's phase; a series' (bigread's) block speeds and cliff. */
static const struct html_field html_data_fields[] = {
    HF_BS(html_phase),
    HF(html_phase, bw, "bw_bytes_per_s", HF_OPT),
    HF(html_phase, round, "round", HF_OPT),
    HF(html_phase, blocks, "blocks", HF_OPT),
};
static const struct html_field html_series_fields[] = {
    HF(html_phase, smin, "speed_min_bytes_per_s", HF_OPT),
    HF(html_phase, smed, "speed_median_bytes_per_s", HF_OPT),
    HF(html_phase, smax, "speed_max_bytes_per_s", HF_OPT),
    HF(html_phase, rmed, "robust_median_bytes_per_s", HF_OPT),
    HF(html_phase, cliff, "cliff", HF_BOOL),
    HF(html_phase, cliff_off, "cliff_offset_bytes", HF_OPT),
    HF(html_phase, cliff_before, "cliff_before_bytes_per_s", HF_OPT),
    HF(html_phase, cliff_after, "cliff_after_bytes_per_s", HF_OPT),
};

static void html_keep_phase(struct html_state *st, const struct iob_record *rec)
{
	struct html_phase *p = html_phase_row(st, &st->ph, &st->nph, &st->capph, rec);
	if (!p)
		return;
	html_fill(st, p, html_data_fields, HF_N(html_data_fields), rec);
	p->series = p->blocks.has;
	if (p->series)
		html_fill(st, p, html_series_fields, HF_N(html_series_fields), rec);
	html_add_distinct(st, &st->fs, svgd_str(rec, "fs_type"));
	html_add_distinct(st, &st->device, svgd_str(rec, "device"));
	html_add_distinct(st, &st->backend, svgd_str(rec, "backend"));
}

/* A files job's phase (workload = files, docs/metadata.md) */
static void html_keep_meta(struct html_state *st, const struct iob_record *rec)
{
	struct html_phase *p = html_phase_row(st, &st->mt, &st->nmt, &st->capmt, rec);
	if (!p)
		return;
	p->streams = html_opt(rec, "streams");
	p->ops = html_opt(rec, "ops");
	p->secs = html_opt(rec, "elapsed_s");
	html_add_distinct(st, &st->fs, svgd_str(rec, "fs_type"));
}

static const struct html_field html_repeats_fields[] = {
    HF_S(html_repeats, job),
    HF_S(html_repeats, phase),
    HF_BS(html_repeats),
    HF(html_repeats, n, "repeats", HF_OPT),
    HF(html_repeats, mean[0], "bw_mean_bytes_per_s", HF_OPT),
    HF(html_repeats, lo[0], "bw_ci_low_bytes_per_s", HF_OPT),
    HF(html_repeats, hi[0], "bw_ci_high_bytes_per_s", HF_OPT),
    HF(html_repeats, mean[1], "iops_mean_per_s", HF_OPT),
    HF(html_repeats, lo[1], "iops_ci_low_per_s", HF_OPT),
    HF(html_repeats, hi[1], "iops_ci_high_per_s", HF_OPT),
    HF(html_repeats, mean[2], "lat_p99_mean_ns", HF_OPT),
    HF(html_repeats, lo[2], "lat_p99_ci_low_ns", HF_OPT),
    HF(html_repeats, hi[2], "lat_p99_ci_high_ns", HF_OPT),
};

/* (the window's mean: its key depends on the metric, html_keep_steady) */
static const struct html_field html_steady_fields[] = {
    HF_S(html_steady, job),
    HF_S(html_steady, phase),
    HF(html_steady, metric, "steady_state", HF_STR),
    HF_S(html_steady, rule),
    HF_BS(html_steady),
    HF(html_steady, rounds, "rounds", HF_OPT),
    HF(html_steady, reached, "reached", HF_BOOL),
    HF(html_steady, reached_round, "reached_round", HF_OPT),
    HF(html_steady, range_pct, "range_pct", HF_OPT),
};

static const struct html_field html_cmp_fields[] = {
    HF_S(html_cmp, job),
    HF_S(html_cmp, phase),
    HF_S(html_cmp, figure),
    HF_S(html_cmp, basis),
    HF_S(html_cmp, verdict),
    HF_S(html_cmp, why),
    HF_BS(html_cmp),
    HF(html_cmp, base, "base", HF_OPT),
    HF(html_cmp, new_, "new", HF_OPT),
    HF(html_cmp, change, "change", HF_OPT),
    HF(html_cmp, lo, "ci_low", HF_OPT),
    HF(html_cmp, hi, "ci_high", HF_OPT),
    HF(html_cmp, regression, "regression", HF_BOOL),
};

static void html_keep_steady(struct html_state *st, const struct iob_record *rec)
{
	struct html_steady *s = html_keep_row(st, (void **)&st->sd, &st->nsd, &st->capsd, sizeof(*s),
					      html_steady_fields, HF_N(html_steady_fields), rec);
	if (s)
		s->mean = html_opt(rec, svgd_steady_mean_key(s->metric));
}

/* The keep hook (svgdraw.h): after svgd_keep kept what the pictures need. */
static int html_keep(void *state, const struct iob_record *rec)
{
	struct html_state *st = state;
	const char *kind = rec->kind ? rec->kind : "";
	if (strcmp(kind, "report") != 0 && strcmp(kind, "comparison") != 0)
		st->nrecords++; /* the run's own */
	if (strcmp(kind, "phase") == 0)
		html_keep_phase(st, rec);
	else if (strcmp(kind, "meta") == 0)
		html_keep_meta(st, rec);
	else if (strcmp(kind, "repeats") == 0)
		html_keep_row(st, (void **)&st->rp, &st->nrp, &st->caprp, sizeof(*st->rp), html_repeats_fields,
			      HF_N(html_repeats_fields), rec);
	else if (strcmp(kind, "steady") == 0)
		html_keep_steady(st, rec);
	else if (strcmp(kind, "comparison") == 0)
		html_keep_row(st, (void **)&st->cm, &st->ncm, &st->capcm, sizeof(*st->cm), html_cmp_fields,
			      HF_N(html_cmp_fields), rec);
	else if (strcmp(kind, "report") == 0) { /* `iobench report`: which files */
		free(st->report_of);
		free(st->report_base);
		st->report_of = svgd_strdup(&st->oom, svgd_str(rec, "input"));
		st->report_base = *svgd_str(rec, "base") ? svgd_strdup(&st->oom, svgd_str(rec, "base")) : NULL;
	}
	return st->oom;
}

static void html_free(void *state)
{
	struct html_state *st = state;
	html_rows_free(st->ph, st->nph, sizeof(*st->ph), html_phase_fields, HF_N(html_phase_fields));
	html_rows_free(st->mt, st->nmt, sizeof(*st->mt), html_phase_fields, HF_N(html_phase_fields));
	html_rows_free(st->rp, st->nrp, sizeof(*st->rp), html_repeats_fields, HF_N(html_repeats_fields));
	html_rows_free(st->sd, st->nsd, sizeof(*st->sd), html_steady_fields, HF_N(html_steady_fields));
	html_rows_free(st->cm, st->ncm, sizeof(*st->cm), html_cmp_fields, HF_N(html_cmp_fields));
	free(st->fs);
	free(st->device);
	free(st->backend);
	free(st->report_of);
	free(st->report_base);
	textbuf_free(&st->out);
}

/* ------------------------------------------------------------------------ */
/* Ops: svgdraw.c's, over these hooks.                                       */

static const struct svgd_hooks html_hooks = {.name = HTML_NAME,
					     .use = "html=FILE.html",
					     .size = sizeof(struct html_state),
					     .keep = html_keep,
					     .render = html_render,
					     .free = html_free};

static int html_open(const struct iob_sink *sink, const char *args, void **state)
{
	return svgd_out_open(sink, args, state, html_host, &html_hooks);
}

static const struct iob_output_ops html_ops = {SVGD_OUTPUT_OPS(html)};

IOB_OUTPUT_PLUGIN(html_host, HTML_NAME,
		  "one self-contained HTML page per run: facts, notes, tables and the svg output's pictures", &html_ops);
