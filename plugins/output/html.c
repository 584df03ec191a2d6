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
 *                comparisons, the run's facts) and the ops
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

static void html_keep_phase(struct html_state *st, const struct iob_record *rec)
{
	struct html_phase *p = html_more(st, (void **)&st->ph, &st->nph, &st->capph, sizeof(*p));
	if (!p)
		return;
	p->job = svgd_strdup(&st->oom, svgd_str(rec, "job"));
	p->phase = svgd_strdup(&st->oom, svgd_str(rec, "phase"));
	p->status = svgd_strdup(&st->oom, svgd_str(rec, "status"));
	p->bs = html_opt(rec, "block_size_bytes");
	p->bw = html_opt(rec, "bw_bytes_per_s");
	p->iops = html_opt(rec, "ops_per_s");
	p->repeat = html_opt(rec, "repeat");
	p->round = html_opt(rec, "round");
	html_keep_lat(p, rec);
	p->blocks = html_opt(rec, "blocks");
	if (p->blocks.has) {
		p->series = 1;
		p->smin = html_opt(rec, "speed_min_bytes_per_s");
		p->smed = html_opt(rec, "speed_median_bytes_per_s");
		p->smax = html_opt(rec, "speed_max_bytes_per_s");
		p->rmed = html_opt(rec, "robust_median_bytes_per_s");
		p->cliff = svgd_bool(rec, "cliff");
		p->cliff_off = html_opt(rec, "cliff_offset_bytes");
		p->cliff_before = html_opt(rec, "cliff_before_bytes_per_s");
		p->cliff_after = html_opt(rec, "cliff_after_bytes_per_s");
	}
	html_add_distinct(st, &st->fs, svgd_str(rec, "fs_type"));
	html_add_distinct(st, &st->device, svgd_str(rec, "device"));
	html_add_distinct(st, &st->backend, svgd_str(rec, "backend"));
}

/* A files job's phase (workload = files, docs/metadata.md) */
static void html_keep_meta(struct html_state *st, const struct iob_record *rec)
{
	struct html_phase *p = html_more(st, (void **)&st->mt, &st->nmt, &st->capmt, sizeof(*p));
	if (!p)
		return;
	p->job = svgd_strdup(&st->oom, svgd_str(rec, "job"));
	p->phase = svgd_strdup(&st->oom, svgd_str(rec, "phase"));
	p->status = svgd_strdup(&st->oom, svgd_str(rec, "status"));
	p->streams = html_opt(rec, "streams");
	p->ops = html_opt(rec, "ops");
	p->secs = html_opt(rec, "elapsed_s");
	p->iops = html_opt(rec, "ops_per_s");
	p->repeat = html_opt(rec, "repeat");
	html_keep_lat(p, rec);
	html_add_distinct(st, &st->fs, svgd_str(rec, "fs_type"));
}

static void html_keep_repeats(struct html_state *st, const struct iob_record *rec)
{
	static const char *const fig[3][3] = {
	    {"bw_mean_bytes_per_s", "bw_ci_low_bytes_per_s", "bw_ci_high_bytes_per_s"},
	    {"iops_mean_per_s", "iops_ci_low_per_s", "iops_ci_high_per_s"},
	    {"lat_p99_mean_ns", "lat_p99_ci_low_ns", "lat_p99_ci_high_ns"}};
	struct html_repeats *r = html_more(st, (void **)&st->rp, &st->nrp, &st->caprp, sizeof(*r));
	if (!r)
		return;
	r->job = svgd_strdup(&st->oom, svgd_str(rec, "job"));
	r->phase = svgd_strdup(&st->oom, svgd_str(rec, "phase"));
	r->bs = html_opt(rec, "block_size_bytes");
	r->n = html_opt(rec, "repeats");
	for (int k = 0; k < 3; k++) {
		r->mean[k] = html_opt(rec, fig[k][0]);
		r->lo[k] = html_opt(rec, fig[k][1]);
		r->hi[k] = html_opt(rec, fig[k][2]);
	}
}

static void html_keep_steady(struct html_state *st, const struct iob_record *rec)
{
	struct html_steady *s = html_more(st, (void **)&st->sd, &st->nsd, &st->capsd, sizeof(*s));
	if (!s)
		return;
	s->job = svgd_strdup(&st->oom, svgd_str(rec, "job"));
	s->phase = svgd_strdup(&st->oom, svgd_str(rec, "phase"));
	s->metric = svgd_strdup(&st->oom, svgd_str(rec, "steady_state"));
	s->rule = svgd_strdup(&st->oom, svgd_str(rec, "rule"));
	s->bs = html_opt(rec, "block_size_bytes");
	s->rounds = html_opt(rec, "rounds");
	s->reached = svgd_bool(rec, "reached");
	s->reached_round = html_opt(rec, "reached_round");
	s->mean = html_opt(rec, svgd_steady_mean_key(s->metric));
	s->range_pct = html_opt(rec, "range_pct");
}

static void html_keep_comparison(struct html_state *st, const struct iob_record *rec)
{
	struct html_cmp *c = html_more(st, (void **)&st->cm, &st->ncm, &st->capcm, sizeof(*c));
	if (!c)
		return;
	c->job = svgd_strdup(&st->oom, svgd_str(rec, "job"));
	c->phase = svgd_strdup(&st->oom, svgd_str(rec, "phase"));
	c->figure = svgd_strdup(&st->oom, svgd_str(rec, "figure"));
	c->basis = svgd_strdup(&st->oom, svgd_str(rec, "basis"));
	c->verdict = svgd_strdup(&st->oom, svgd_str(rec, "verdict"));
	c->why = svgd_strdup(&st->oom, svgd_str(rec, "why"));
	c->bs = html_opt(rec, "block_size_bytes");
	c->base = html_opt(rec, "base");
	c->new_ = html_opt(rec, "new");
	c->change = html_opt(rec, "change");
	c->lo = html_opt(rec, "ci_low");
	c->hi = html_opt(rec, "ci_high");
	c->regression = svgd_bool(rec, "regression");
}

static void html_keep(struct html_state *st, const struct iob_record *rec)
{
	const char *kind = rec->kind ? rec->kind : "";
	if (strcmp(kind, "report") != 0 && strcmp(kind, "comparison") != 0)
		st->nrecords++; /* the run's own */
	svgd_keep(&st->d, rec);
	if (strcmp(kind, "phase") == 0)
		html_keep_phase(st, rec);
	else if (strcmp(kind, "meta") == 0)
		html_keep_meta(st, rec);
	else if (strcmp(kind, "repeats") == 0)
		html_keep_repeats(st, rec);
	else if (strcmp(kind, "steady") == 0)
		html_keep_steady(st, rec);
	else if (strcmp(kind, "comparison") == 0)
		html_keep_comparison(st, rec);
	else if (strcmp(kind, "report") == 0) { /* `iobench report`: which files */
		free(st->report_of);
		free(st->report_base);
		st->report_of = svgd_strdup(&st->oom, svgd_str(rec, "input"));
		st->report_base = *svgd_str(rec, "base") ? svgd_strdup(&st->oom, svgd_str(rec, "base")) : NULL;
	}
}

/* ------------------------------------------------------------------------ */
/* Ops.                                                                      */

static int html_open(const struct iob_sink *sink, const char *args, void **state)
{
	return svgd_out_open(sink, args, state, sizeof(struct html_state), html_host, HTML_NAME, "html=FILE.html");
}

static int html_begin_run(void *state, const struct iob_run_info *run)
{
	struct html_state *st = state;
	int rc = svgd_out_begin(&st->o);
	if (rc)
		return rc;
	if (run && run->struct_size >= HTML_RUN_INFO_V1_SIZE) {
		st->tool = run->tool ? svgd_strdup(&st->oom, run->tool) : NULL;
		st->version = run->version ? svgd_strdup(&st->oom, run->version) : NULL;
		st->host = run->host ? svgd_strdup(&st->oom, run->host) : NULL;
		st->started = run->started ? svgd_strdup(&st->oom, run->started) : NULL;
		st->source = run->source ? svgd_strdup(&st->oom, run->source) : NULL;
	}
	if (run && run->struct_size >= HTML_RUN_INFO_V2_SIZE) {
		st->kernel = run->kernel ? svgd_strdup(&st->oom, run->kernel) : NULL;
		st->schema = run->schema;
	}
	return st->oom ? -ENOMEM : 0;
}

static int html_record(void *state, const struct iob_record *rec)
{
	struct html_state *st = state;
	int rc = svgd_out_record(&st->o, rec);
	if (rc)
		return rc;
	html_keep(st, rec);
	return svgd_out_kept(&st->o, st->oom || st->d.oom);
}

static int html_end_run(void *state, const struct iob_run_end *end)
{
	struct html_state *st = state;
	int rc = svgd_out_end(&st->o);
	if (rc)
		return rc;
	int ok = end && end->struct_size >= HTML_RUN_END_V1_SIZE;
	return html_render(st, ok ? end : NULL, ok ? end->status : -1, ok ? end->interrupted : 0,
			   ok ? end->error : "run ended without a result");
}

/* n kept phase rows (the data jobs' or the files jobs'), and their array */
static void html_phases_free(struct html_phase *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(p[i].job);
		free(p[i].phase);
		free(p[i].status);
	}
	free(p);
}

static int html_close(void *state)
{
	struct html_state *st = state;
	if (!st)
		return 0;
	int rc = 0;
	if (st->o.begun && !st->o.drawn)
		rc = html_render(st, NULL, -1, 0, "run ended without a result");
	html_phases_free(st->ph, st->nph);
	html_phases_free(st->mt, st->nmt);
	for (size_t i = 0; i < st->nrp; i++) {
		free(st->rp[i].job);
		free(st->rp[i].phase);
	}
	for (size_t i = 0; i < st->nsd; i++) {
		free(st->sd[i].job);
		free(st->sd[i].phase);
		free(st->sd[i].metric);
		free(st->sd[i].rule);
	}
	for (size_t i = 0; i < st->ncm; i++) {
		struct html_cmp *c = &st->cm[i];
		free(c->job);
		free(c->phase);
		free(c->figure);
		free(c->basis);
		free(c->verdict);
		free(c->why);
	}
	free(st->rp);
	free(st->sd);
	free(st->cm);
	svgd_free(&st->d);
	free(st->tool);
	free(st->version);
	free(st->host);
	free(st->started);
	free(st->source);
	free(st->kernel);
	free(st->fs);
	free(st->device);
	free(st->backend);
	free(st->report_of);
	free(st->report_base);
	textbuf_free(&st->out);
	free(st);
	return rc;
}

static const struct iob_output_ops html_ops = {IOB_OUTPUT_OPS_OF(html)};

IOB_OUTPUT_PLUGIN(html_host, HTML_NAME,
		  "one self-contained HTML page per run: facts, notes, tables and the svg output's pictures", &html_ops);
