/*
 * html_page.c - the html output's page: numbers formatted, cells, the
 * style and the sorting script, the facts, the notes, the tables, the
 * pictures (svgdraw), and the whole page rendered.  A room of html.c (its
 * map).
 */
#include "html_int.h"

#define MIB 1048576.0

/* ------------------------------------------------------------------------ */
/* Formatting.                                                               */

/* '.' as the decimal point whatever the locale. */
static void html_dot(char *s)
{
	for (; *s; s++)
		if (*s == ',')
			*s = '.';
}

static void html_fmt_bytes(char *out, size_t len, double v)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	int u = 0;
	while (u < 4 && fabs(v) >= 1024 && fmod(v, 1024) == 0) {
		v /= 1024;
		u++;
	}
	if (u == 0 && fabs(v) >= 1024 * 1024) { /* not a round size: two decimals */
		while (u < 4 && fabs(v) >= 1024) {
			v /= 1024;
			u++;
		}
		snprintf(out, len, "%.2f %s", v, unit[u]);
	} else {
		snprintf(out, len, "%.0f %s", v, unit[u]);
	}
	html_dot(out);
}

static void html_fmt_ns(char *out, size_t len, double v)
{
	if (v >= 1e9)
		snprintf(out, len, "%.3g s", v / 1e9);
	else if (v >= 1e6)
		snprintf(out, len, "%.3g ms", v / 1e6);
	else if (v >= 1e3)
		snprintf(out, len, "%.3g us", v / 1e3);
	else
		snprintf(out, len, "%.0f ns", v);
	html_dot(out);
}

static void html_fmt_mibs(char *out, size_t len, double v)
{
	snprintf(out, len, "%.1f", v / MIB);
	html_dot(out);
}

static void html_fmt_iops(char *out, size_t len, double v)
{
	snprintf(out, len, v >= 100 ? "%.0f" : "%.2f", v);
	html_dot(out);
}

enum html_how { H_BYTES, H_NS, H_MIBS, H_IOPS, H_COUNT, H_PCT, H_S };

static void html_fmt(char *out, size_t len, enum html_how how, double v)
{
	switch (how) {
	case H_BYTES: html_fmt_bytes(out, len, v); break;
	case H_NS: html_fmt_ns(out, len, v); break;
	case H_MIBS: html_fmt_mibs(out, len, v); break;
	case H_IOPS: html_fmt_iops(out, len, v); break;
	case H_COUNT: snprintf(out, len, "%.0f", v); break;
	case H_PCT: snprintf(out, len, "%+.1f%%", v * 100); html_dot(out); break;
	case H_S: snprintf(out, len, "%.3g s", v); html_dot(out); break;
	}
}

static void html_esc(struct textbuf *b, const char *s)
{
	textbuf_xml(b, s);
}

/* <td class="cls" data-v="exact">shown</td>, or "-" when not measured. */
static void html_num_td(struct textbuf *b, const char *cls, struct opt o, enum html_how how)
{
	textbuf_str(b, "<td class=\"num");
	if (cls) {
		textbuf_str(b, " ");
		textbuf_str(b, cls);
	}
	textbuf_str(b, "\"");
	if (!o.has) {
		textbuf_str(b, ">-</td>");
		return;
	}
	char v[64], shown[64];
	textbuf_fmt_double(o.v, v, sizeof(v));
	html_fmt(shown, sizeof(shown), how, o.v);
	textbuf_str(b, " data-v=\"");
	textbuf_str(b, v);
	textbuf_str(b, "\">");
	textbuf_str(b, shown);
	textbuf_str(b, "</td>");
}

static void html_td(struct textbuf *b, const char *cls, const char *s)
{
	textbuf_str(b, "<td");
	if (cls) {
		textbuf_str(b, " class=\"");
		textbuf_str(b, cls);
		textbuf_str(b, "\"");
	}
	textbuf_str(b, ">");
	html_esc(b, s && *s ? s : "-");
	textbuf_str(b, "</td>");
}

/* A table's heading (HTML: its <h2> and any words under it), then the
 * <thead> of the sortable table: heads separated by '|'. */
static void html_thead(struct textbuf *b, const char *heading, const char *id, const char *caption,
		       const char *heads)
{
	textbuf_str(b, heading);
	textbuf_str(b, "<table class=\"sortable\" id=\"");
	textbuf_str(b, id);
	textbuf_str(b, "\">\n<caption>");
	textbuf_str(b, caption);
	textbuf_str(b, "</caption>\n<thead><tr>");
	for (const char *p = heads; *p;) {
		const char *e = strchr(p, '|');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		textbuf_str(b, "<th scope=\"col\">");
		textbuf_add(b, p, n);
		textbuf_str(b, "</th>");
		p += n + (e ? 1 : 0);
	}
	textbuf_str(b, "</tr></thead>\n<tbody>\n");
}

/* ------------------------------------------------------------------------ */
/* The page.                                                                 */

static const char html_style[] =
    "<style>\n"
    "body{font-family:\"DejaVu Sans\",Helvetica,Arial,sans-serif;font-size:14px;color:#212529;"
    "background:#fff;margin:1.5em auto;max-width:1000px;padding:0 1em}\n"
    "h1{font-size:1.45em;margin:.2em 0}h2{font-size:1.15em;border-bottom:1px solid #ccc;margin-top:1.6em}\n"
    "table{border-collapse:collapse;margin:.6em 0;font-size:.92em}\n"
    "caption{text-align:left;font-weight:bold;padding:.3em 0}\n"
    "th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}\n"
    "th{background:#f1f3f5}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "table.facts th{width:11em}\n"
    ".notes{border:2px solid #e67700;background:#fff4e6;padding:.5em 1em .5em 2.2em}\n"
    ".notes li{margin:.2em 0}.error{color:#c92a2a;font-weight:bold}\n"
    ".faster{color:#2b8a3e}.slower{color:#c92a2a}.regression{font-weight:bold;color:#c92a2a}\n"
    "figure{margin:1em 0}figcaption{font-weight:bold;margin:.3em 0}\n"
    "figure svg{max-width:100%;height:auto;display:block}\n"
    ".small{color:#555;font-size:.9em}\n"
    "@media print{\n"
    "@page{margin:12mm}\n"
    "body{max-width:none;margin:0;padding:0;font-size:9.5pt}\n"
    "h2{break-after:avoid}table,figure{break-inside:avoid}tr{break-inside:avoid}\n"
    "th[scope=col]{cursor:auto}\n"
    "figure svg{width:100%}\n"
    "}\n"
    "th[scope=col]{cursor:pointer}\n"
    "</style>\n";

/* Sorts a table by a column when its head is clicked: a number cell by its
 * data-v, any other by its text.  The page is whole without it. */
static const char html_script[] =
    "<script>\n"
    "(function(){\n"
    "function key(td){var v=td.getAttribute('data-v');return v===null?td.textContent:parseFloat(v);}\n"
    "function sort(table,col,dir){var body=table.tBodies[0];var rows=Array.prototype.slice.call(body.rows);\n"
    "rows.sort(function(a,b){var x=key(a.cells[col]),y=key(b.cells[col]);\n"
    "if(typeof x==='number'&&typeof y==='number')return dir*(x-y);\n"
    "return dir*String(x).localeCompare(String(y));});\n"
    "rows.forEach(function(r){body.appendChild(r);});}\n"
    "var tables=document.querySelectorAll('table.sortable');\n"
    "Array.prototype.forEach.call(tables,function(t){var ths=t.tHead?t.tHead.rows[0].cells:[];\n"
    "Array.prototype.forEach.call(ths,function(th,i){var dir=1;th.title='click to sort';\n"
    "th.addEventListener('click',function(){sort(t,i,dir);dir=-dir;});});});\n"
    "})();\n"
    "</script>\n";

static void html_fact(struct textbuf *b, const char *name, const char *value)
{
	textbuf_str(b, "<tr><th scope=\"row\">");
	textbuf_str(b, name);
	textbuf_str(b, "</th><td>");
	html_esc(b, value && *value ? value : "-");
	textbuf_str(b, "</td></tr>\n");
}

static void html_facts(struct html_state *st, struct textbuf *b)
{
	char schema[32];
	snprintf(schema, sizeof(schema), "%u", st->o.schema);
	textbuf_str(b, "<h2>Run</h2>\n<table class=\"facts\" id=\"facts\">\n<tbody>\n");
	html_fact(b, "Host", st->o.machine);
	html_fact(b, "Kernel", st->o.kernel);
	html_fact(b, "File system", st->fs);
	html_fact(b, "Device", st->device);
	html_fact(b, "Backend", st->backend);
	html_fact(b, "Tool", st->o.tool);
	html_fact(b, "Version", st->o.version);
	html_fact(b, "Command line", st->o.source);
	html_fact(b, "Started", st->o.started);
	html_fact(b, "Record schema", st->o.schema ? schema : NULL);
	if (st->report_of)
		html_fact(b, "Result file", st->report_of);
	if (st->report_base)
		html_fact(b, "Compared with", st->report_base);
	textbuf_str(b, "</tbody>\n</table>\n");
}

static void html_notes(struct textbuf *b, const struct iob_run_end *end)
{
	size_t n = end && end->notes ? end->nnotes : 0; /* end: ABI 1.0 or later (svgd_out_end_run) */
	textbuf_str(b, "<h2>Notes</h2>\n");
	if (!n) {
		textbuf_str(b, "<p id=\"notes\" class=\"small\">The run gave no notes.</p>\n");
		return;
	}
	textbuf_str(b, "<ul class=\"notes\" id=\"notes\">\n");
	for (size_t i = 0; i < n; i++) {
		textbuf_str(b, "<li>");
		html_esc(b, end->notes[i]);
		textbuf_str(b, "</li>\n");
	}
	textbuf_str(b, "</ul>\n");
}

static void html_comparison(struct html_state *st, struct textbuf *b)
{
	if (!st->ncm)
		return;
	html_thead(b,
		   "<h2>Comparison</h2>\n<p class=\"small\">Change of this run against the one it is compared "
		   "with, its 95% interval and the verdict of <code>iobench compare</code> "
		   "(docs/statistics.md).</p>\n",
		   "comparison", "Comparison, per phase and figure",
		   "job|phase|block size|figure|base|new|change|interval|basis|verdict");
	for (size_t i = 0; i < st->ncm; i++) {
		const struct html_cmp *c = &st->cm[i];
		int lat = c->figure && strncmp(c->figure, "lat_", 4) == 0, bw = c->figure && strcmp(c->figure, "bw") == 0;
		enum html_how how = lat ? H_NS : bw ? H_MIBS : H_IOPS;
		textbuf_str(b, "<tr class=\"cmp\">");
		html_td(b, "job", c->job);
		html_td(b, "phase", c->phase);
		html_num_td(b, "bs", c->bs, H_BYTES);
		const char *fig = bw ? "MiB/s" : c->figure && strcmp(c->figure, "iops") == 0 ? "IOPS"
					  : lat ? c->figure + 4 /* lat_p50: p50 */
						: c->figure;
		html_td(b, "figure", fig);
		html_num_td(b, "base", c->base, how);
		html_num_td(b, "new", c->new_, how);
		html_num_td(b, "change", c->change, H_PCT);
		if (c->lo.has && c->hi.has) {
			char lo[32], hi[32];
			html_fmt(lo, sizeof(lo), H_PCT, c->lo.v);
			html_fmt(hi, sizeof(hi), H_PCT, c->hi.v);
			textbuf_str(b, "<td class=\"num interval\">[");
			textbuf_str(b, lo);
			textbuf_str(b, ", ");
			textbuf_str(b, hi);
			textbuf_str(b, "]</td>");
		} else {
			textbuf_str(b, "<td class=\"num interval\">-</td>");
		}
		html_td(b, "basis", c->basis);
		textbuf_str(b, "<td class=\"verdict");
		if (c->verdict && strcmp(c->verdict, "faster") == 0)
			textbuf_str(b, " faster");
		else if (c->verdict && strcmp(c->verdict, "slower") == 0)
			textbuf_str(b, " slower");
		if (c->regression)
			textbuf_str(b, " regression");
		textbuf_str(b, "\">");
		html_esc(b, c->verdict);
		if (c->regression)
			textbuf_str(b, " (regression)");
		if (c->why && *c->why) {
			textbuf_str(b, "<br><span class=\"small\">");
			html_esc(b, c->why);
			textbuf_str(b, "</span>");
		}
		textbuf_str(b, "</td></tr>\n");
	}
	textbuf_str(b, "</tbody>\n</table>\n");
}

/* A column of the tables of struct html_phase rows: its heading, its
 * cells' class, the member shown (a string, or a number shown `how`),
 * whether it is shown only when some row has a repeat or a round, and
 * which tables show it: the data jobs' phases (latency per I/O), the files
 * jobs' ("meta" records: one operation's latency), or both. */
enum html_col_when { HC_ALWAYS, HC_REPEAT, HC_ROUND };
#define HT_DATA 1u
#define HT_META 2u
#define HT_BOTH (HT_DATA | HT_META)
struct html_col {
	const char *head, *cls;
	int is_str;
	size_t at; /* offsetof the char * or struct opt member */
	enum html_how how;
	enum html_col_when when;
	unsigned tables; /* HT_* */
};

#define HC_STR(head, cls, m) {head, cls, 1, offsetof(struct html_phase, m), H_COUNT, HC_ALWAYS, HT_BOTH}
#define HC_NUM(head, cls, m, how, when, tables) {head, cls, 0, offsetof(struct html_phase, m), how, when, tables}

/* Every column, in the order both tables show theirs. */
static const struct html_col html_cols[] = {
    HC_STR("job", "job", job),
    HC_STR("phase", "phase", phase),
    HC_NUM("block size", "bs", bs, H_BYTES, HC_ALWAYS, HT_DATA),
    HC_NUM("repeat", "repeat", repeat, H_COUNT, HC_REPEAT, HT_BOTH),
    HC_NUM("round", "round", round, H_COUNT, HC_ROUND, HT_DATA),
    HC_NUM("MiB/s", "bw", bw, H_MIBS, HC_ALWAYS, HT_DATA),
    HC_NUM("IOPS", "iops", iops, H_IOPS, HC_ALWAYS, HT_DATA),
    HC_NUM("streams", "streams", streams, H_COUNT, HC_ALWAYS, HT_META),
    HC_NUM("operations", "ops", ops, H_COUNT, HC_ALWAYS, HT_META),
    HC_NUM("time", "secs", secs, H_S, HC_ALWAYS, HT_META),
    HC_NUM("ops/s", "iops", iops, H_IOPS, HC_ALWAYS, HT_META),
    HC_NUM("p50", "p50", pct[0], H_NS, HC_ALWAYS, HT_BOTH),
    HC_NUM("p90", "p90", pct[1], H_NS, HC_ALWAYS, HT_BOTH),
    HC_NUM("p99", "p99", pct[2], H_NS, HC_ALWAYS, HT_BOTH),
    HC_NUM("p99.9", "p99_9", pct[3], H_NS, HC_ALWAYS, HT_BOTH),
    HC_NUM("max", "max", max, H_NS, HC_ALWAYS, HT_BOTH),
    HC_STR("status", "status", status),
};
#define HTML_NCOLS (sizeof(html_cols) / sizeof(html_cols[0]))

/* A table of struct html_phase rows: the heading (and words) above it,
 * its id and caption, the class of its rows and which columns (HT_*). */
struct html_table {
	const char *head, *id, *caption, *row_cls;
	unsigned table;
};

static const struct html_table html_phase_tab = {"<h2>Phases</h2>\n", "phases",
						 "One row per phase record (latency per I/O)", "phase", HT_DATA};

/* The files jobs' phases: a row per "meta" record, one operation's latency */
static const struct html_table html_meta_tab = {
    "<h2>Files jobs</h2>\n<p class=\"small\">workload = files: the rate of each phase is all its operations over "
    "the time from the first stream's start to the last stream's end; the latency is one operation's.</p>\n",
    "meta", "One row per files-job phase (latency per operation)", "meta", HT_META};

/* Table t of n rows, a <tr class="row_cls"> each, under its heading; a
 * repeat or round column only when some row has one.  Nothing when n is 0. */
static void html_phase_table(struct textbuf *b, const struct html_table *t, const struct html_phase *rows, size_t n)
{
	if (!n)
		return;
	int shown[3] = {1, 0, 0}; /* by enum html_col_when */
	for (size_t i = 0; i < n; i++) {
		shown[HC_REPEAT] |= rows[i].repeat.has;
		shown[HC_ROUND] |= rows[i].round.has;
	}
	char heads[256] = "";
	for (size_t c = 0, len = 0; c < HTML_NCOLS; c++)
		if (shown[html_cols[c].when] && (html_cols[c].tables & t->table))
			len += (size_t)snprintf(heads + len, sizeof(heads) - len, "%s%s", len ? "|" : "",
						html_cols[c].head);
	html_thead(b, t->head, t->id, t->caption, heads);
	for (size_t i = 0; i < n; i++) {
		const char *row = (const char *)&rows[i];
		textbuf_str(b, "<tr class=\"");
		textbuf_str(b, t->row_cls);
		textbuf_str(b, "\">");
		for (size_t c = 0; c < HTML_NCOLS; c++) {
			const struct html_col *col = &html_cols[c];
			if (!shown[col->when] || !(col->tables & t->table))
				continue;
			if (col->is_str)
				html_td(b, col->cls, *(char *const *)(const void *)(row + col->at));
			else
				html_num_td(b, col->cls, *(const struct opt *)(const void *)(row + col->at), col->how);
		}
		textbuf_str(b, "</tr>\n");
	}
	textbuf_str(b, "</tbody>\n</table>\n");
}

/* The data jobs' phases, then the files jobs' (workload = files): a table
 * each that has rows; when neither has, one line saying so. */
static void html_phases(struct html_state *st, struct textbuf *b)
{
	if (!st->nph && !st->nmt) {
		textbuf_str(b, "<h2>Phases</h2>\n<p id=\"phases\">No phase was recorded.</p>\n");
		return;
	}
	html_phase_table(b, &html_phase_tab, st->ph, st->nph);
	html_phase_table(b, &html_meta_tab, st->mt, st->nmt);
}

static void html_repeats(struct html_state *st, struct textbuf *b)
{
	if (!st->nrp)
		return;
	html_thead(b,
		   "<h2>Repeats</h2>\n<p class=\"small\">Mean of the repeated runs of a phase and its 95% "
		   "interval (Student's t, docs/statistics.md).</p>\n",
		   "repeats", "Repeated phases: mean [95% interval]",
		   "job|phase|block size|runs|MiB/s|MiB/s low|MiB/s high|IOPS|IOPS low|IOPS high|p99|p99 low|p99 high");
	static const char *const cls[3][3] = {{"bw", "bw_lo", "bw_hi"}, {"iops", "iops_lo", "iops_hi"},
					      {"p99", "p99_lo", "p99_hi"}};
	static const enum html_how how[3] = {H_MIBS, H_IOPS, H_NS};
	for (size_t i = 0; i < st->nrp; i++) {
		const struct html_repeats *r = &st->rp[i];
		textbuf_str(b, "<tr class=\"repeats\">");
		html_td(b, "job", r->job);
		html_td(b, "phase", r->phase);
		html_num_td(b, "bs", r->bs, H_BYTES);
		html_num_td(b, "runs", r->n, H_COUNT);
		for (int k = 0; k < 3; k++) {
			html_num_td(b, cls[k][0], r->mean[k], how[k]);
			html_num_td(b, cls[k][1], r->lo[k], how[k]);
			html_num_td(b, cls[k][2], r->hi[k], how[k]);
		}
		textbuf_str(b, "</tr>\n");
	}
	textbuf_str(b, "</tbody>\n</table>\n");
}

static void html_series(struct html_state *st, struct textbuf *b)
{
	size_t n = 0;
	for (size_t i = 0; i < st->nph; i++)
		n += st->ph[i].series;
	if (!n)
		return;
	html_thead(b, "<h2>Block speeds</h2>\n", "series", "Speed of the blocks of a series read (MiB/s) and the cliff",
		   "job|blocks|min|median|max|robust median|cliff at|before|after");
	for (size_t i = 0; i < st->nph; i++) {
		const struct html_phase *p = &st->ph[i];
		if (!p->series)
			continue;
		textbuf_str(b, "<tr class=\"series\">");
		html_td(b, "job", p->job);
		html_num_td(b, "blocks", p->blocks, H_COUNT);
		html_num_td(b, "smin", p->smin, H_MIBS);
		html_num_td(b, "smed", p->smed, H_MIBS);
		html_num_td(b, "smax", p->smax, H_MIBS);
		html_num_td(b, "rmed", p->rmed, H_MIBS);
		struct opt none = {0, 0};
		html_num_td(b, "cliff", p->cliff ? p->cliff_off : none, H_BYTES);
		html_num_td(b, "cliff_before", p->cliff ? p->cliff_before : none, H_MIBS);
		html_num_td(b, "cliff_after", p->cliff ? p->cliff_after : none, H_MIBS);
		textbuf_str(b, "</tr>\n");
	}
	textbuf_str(b, "</tbody>\n</table>\n");
}

static void html_steady(struct html_state *st, struct textbuf *b)
{
	if (!st->nsd)
		return;
	html_thead(b, "<h2>Steady state</h2>\n", "steady", "Steady state: the last window judged",
		   "job|phase|block size|figure|rule|rounds|reached|at round|window mean|range");
	for (size_t i = 0; i < st->nsd; i++) {
		const struct html_steady *s = &st->sd[i];
		int bw = s->metric && strcmp(s->metric, "bw") == 0, lat = s->metric && strcmp(s->metric, "lat") == 0;
		textbuf_str(b, "<tr class=\"steady\">");
		html_td(b, "job", s->job);
		html_td(b, "phase", s->phase);
		html_num_td(b, "bs", s->bs, H_BYTES);
		html_td(b, "metric", bw ? "MiB/s" : lat ? "mean latency" : "IOPS");
		html_td(b, "rule", s->rule);
		html_num_td(b, "rounds", s->rounds, H_COUNT);
		html_td(b, "reached", s->reached ? "yes" : "no");
		html_num_td(b, "reached_round", s->reached_round, H_COUNT);
		html_num_td(b, "mean", s->mean, lat ? H_NS : bw ? H_MIBS : H_IOPS);
		if (s->range_pct.has) {
			char v[64], shown[64];
			textbuf_fmt_double(s->range_pct.v, v, sizeof(v));
			snprintf(shown, sizeof(shown), "%.1f%%", s->range_pct.v);
			html_dot(shown);
			textbuf_str(b, "<td class=\"num range\" data-v=\"");
			textbuf_str(b, v);
			textbuf_str(b, "\">");
			textbuf_str(b, shown);
			textbuf_str(b, "</td>");
		} else {
			textbuf_str(b, "<td class=\"num range\">-</td>");
		}
		textbuf_str(b, "</tr>\n");
	}
	textbuf_str(b, "</tbody>\n</table>\n");
}

/* One figure: the panels of `what`, drawn by svgdraw.c, as inline SVG. */
static void html_figure(struct html_state *st, struct textbuf *b, const char *id, const char *caption,
			unsigned what)
{
	struct textbuf body = {0};
	size_t panels = svgd_draw(&st->o.d, &body, what, 10);
	if (panels && !body.oom && body.data) {
		double h = 10 + (double)panels * SVG_PANEL_H + 10;
		textbuf_str(b, "<figure id=\"");
		textbuf_str(b, id);
		textbuf_str(b, "\">\n<figcaption>");
		textbuf_str(b, caption);
		textbuf_str(b, "</figcaption>\n");
		svgd_svg_tag(b, "role=\"img\"", h);
		textbuf_str(b, "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
		textbuf_add(b, body.data, body.len);
		textbuf_str(b, "</svg>\n</figure>\n");
	}
	if (body.oom)
		st->oom = 1;
	textbuf_free(&body);
}

static void html_pictures(struct html_state *st, struct textbuf *b)
{
	textbuf_str(b, "<h2>Pictures</h2>\n");
	size_t most = 0, thinned = svgd_thinned(&st->o.d, &most);
	if (thinned) {
		char line[400];
		snprintf(line, sizeof(line),
			 "<p class=\"small\" id=\"thinned\">%zu line%s of more than %d points (the longest %zu) %s "
			 "drawn as the lowest and the highest value of each of %d runs of points, so no dip or "
			 "peak is lost; the tables hold the exact figures.</p>\n",
			 thinned, thinned == 1 ? "" : "s", SVGD_MAX_POINTS, most, thinned == 1 ? "is" : "are",
			 SVGD_MAX_POINTS / 2);
		textbuf_str(b, line);
	}
	if (st->o.d.profile)
		html_figure(st, b, "fig-profile", "Size sweep: throughput and IOPS against the I/O size", SVGD_PROFILE);
	if (st->o.d.nse)
		html_figure(st, b, "fig-series", "Block speeds and the cliff", SVGD_SERIES);
	if (st->o.d.nsd)
		html_figure(st, b, "fig-steady", "Steady state: rounds and the window judged", SVGD_STEADY);
	if (st->o.d.niv)
		html_figure(st, b, "fig-intervals", "Throughput and IOPS per interval", SVGD_INTERVALS);
	if (st->o.d.nmeta) /* workload = files (docs/metadata.md) */
		html_figure(st, b, "fig-meta", "Files jobs: operations per second per phase", SVGD_META);
	if (!st->o.d.profile && (st->nph || st->nmt))
		html_figure(st, b, "fig-latency", "Latency percentiles per phase", SVGD_LATENCY);
}

int html_render(void *state, const struct iob_run_end *end, int status, int interrupted, const char *error)
{
	struct html_state *st = state;
	struct textbuf *b = &st->out;
	textbuf_clear(b);
	char title[600];
	snprintf(title, sizeof(title), "%s on %s, started %s", st->o.tool ? st->o.tool : "iobench",
		 st->o.machine && *st->o.machine ? st->o.machine : "?", st->o.started && *st->o.started ? st->o.started : "?");
	textbuf_str(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		       "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		       "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
		       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		       "<meta name=\"generator\" content=\"iobench html output\">\n<title>");
	html_esc(b, title);
	textbuf_str(b, "</title>\n");
	textbuf_str(b, html_style);
	textbuf_str(b, "</head>\n<body>\n<header>\n<h1>");
	html_esc(b, title);
	textbuf_str(b, "</h1>\n");
	if (status || interrupted) {
		char why[700];
		snprintf(why, sizeof(why), "%s%s%s", interrupted ? "(interrupted) " : "", status ? "error: " : "",
			 status && error ? error : "");
		textbuf_str(b, "<p class=\"error\" id=\"error\">");
		html_esc(b, why);
		textbuf_str(b, "</p>\n");
	}
	textbuf_str(b, "</header>\n<main>\n");
	html_notes(b, end);
	html_facts(st, b);
	html_comparison(st, b);
	html_phases(st, b);
	html_repeats(st, b);
	html_series(st, b);
	html_steady(st, b);
	html_pictures(st, b);
	char foot[200];
	snprintf(foot, sizeof(foot),
		 "</main>\n<footer class=\"small\"><p id=\"records\" data-v=\"%zu\">%zu records. Made by iobench's html "
		 "output; the page needs nothing but itself.</p></footer>\n",
		 st->nrecords, st->nrecords);
	textbuf_str(b, foot);
	textbuf_str(b, html_script);
	textbuf_str(b, "</body>\n</html>\n");
	return svgd_out_write(&st->o, b, b->oom || st->oom || st->o.oom || st->o.d.oom, "writing the page");
}
