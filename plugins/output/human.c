/*
 * human.c - the "human" output: results for people to read at a glance.
 *
 * Layout (docs/outputs.md has an example):
 *
 *   iobench 0.1.0 on node1, started 2024-05-01T10:00:00+02:00
 *   source: seq.ini
 *
 *   [phase]
 *   job  phase  backend  block_size     bytes  elapsed           bw   ops/s
 *   seq  write  posix      4.00 KiB  1.00 GiB  2.345 s  436.7 MiB/s  111.8k
 *     lat  mean  12.35 us  p50  10.10 us  p99  45.60 us  p99.9  120.0 us  max   1.23 ms
 *     file=/tmp/seq.dat  ops=262144  skipped_ops=0  direct=no  status=0
 *
 *   note: ...
 *   error: ...
 *   (interrupted)
 *
 * Records are printed as they arrive (a long suite shows progress).  Each
 * block of records of one kind and key set starts with "[kind]" and a header
 * line; every record is then one aligned row, plus one line per latency field
 * and one "key=value" line for everything else.  Which field goes where is
 * decided from the first record of a block, by type and unit only:
 *  - row: strings of at most HUMAN_SHORT_STR characters (job, phase,
 *    backend), and numbers measured in bytes, bytes/s, ns, s or ops/s;
 *  - latency line: each LAT field, mean, p50, p99, p99.9 (the ranks the record
 *    has) and max;
 *  - key=value line: longer strings (file paths), booleans and plain counts;
 *  - nowhere: a field of a type this output does not know (from a later
 *    ABI) is skipped.
 * Column labels are the keys without the unit suffix the value now shows
 * (block_size_bytes -> block_size, bw_bytes_per_s -> bw, ops_per_s -> ops/s).
 *
 * Units, exact: bytes in B, KiB (2^10), MiB (2^20), GiB, TiB, PiB, EiB, the
 * largest unit keeping the number below 1024, with 3-4 significant digits
 * (1.00 MiB, 43.67 MiB, 436.7 MiB, 1023 MiB); bytes/s the same with "/s";
 * ns as ns/us/ms/s in steps of 1000; seconds with 3 decimals ("2.345 s");
 * ops/s with k (10^3), M (10^6), G (10^9) once at least 1000.  Nothing is
 * computed here beyond this scaling.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/plugin.h"
#include "textbuf.h"

#define HUMAN_NAME "human"
#define HUMAN_SHORT_STR 16 /* longer strings leave the row for the key=value line */
#define HUMAN_GAP "  "     /* between columns */
#define HUMAN_INDENT "  "  /* before latency and key=value lines */

#define HUMAN_RUN_INFO_V1_SIZE (offsetof(struct iob_run_info, source) + sizeof(const char *))
#define HUMAN_RUN_END_V1_SIZE (offsetof(struct iob_run_end, notes) + sizeof(const char *const *))

static const struct iob_host *human_host;

enum human_place {
	HUMAN_ROW = 0,    /* a column of the aligned row */
	HUMAN_LATLINE = 1, /* a latency line of its own */
	HUMAN_DETAIL = 2, /* key=value on the detail line */
	HUMAN_SKIP = 3,   /* a type from a later ABI: not shown */
};

/* How records of the current block are laid out. */
struct human_layout {
	char *sig;             /* kind and keys, to notice when a new block starts */
	size_t nfields;
	unsigned char *place;  /* enum human_place per field */
	size_t *width;         /* column width per HUMAN_ROW field */
	size_t latlabel_width; /* widest latency label */
};

struct human_state {
	struct iob_sink sink;
	int begun, ended;
	int err; /* first sink error; sticky */
	struct human_layout lay;
	struct textbuf out, cell, line;
};

static void human_log(int level, const char *fmt, ...) IOB_PRINTF(2, 3);
static void human_log(int level, const char *fmt, ...)
{
	char text[512];
	va_list ap;
	if (!human_host || !human_host->log)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	human_host->log(level, HUMAN_NAME, "%s", text);
}

/* Append a string for a terminal: control characters become '?'. */
static void human_buf_text(struct textbuf *b, const char *s)
{
	if (!s) {
		textbuf_str(b, "-");
		return;
	}
	for (const char *p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;
		textbuf_add(b, c < 0x20 || c == 0x7f ? "?" : p, 1);
	}
}

/* Columns a UTF-8 string takes: continuation bytes take none. */
static size_t human_width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		if (((unsigned char)*s & 0xc0u) != 0x80u)
			w++;
	return w;
}

static void human_pad(struct textbuf *b, size_t n)
{
	static const char spaces[] = "                                ";
	while (n > 0) {
		size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;
		textbuf_add(b, spaces, k);
		n -= k;
	}
}

/* Append text in a column of `width`, right- or left-aligned. */
static void human_put_cell(struct textbuf *b, const char *text, size_t width, int right)
{
	size_t w = human_width(text);
	size_t pad = w < width ? width - w : 0;
	if (right)
		human_pad(b, pad);
	textbuf_str(b, text);
	if (!right)
		human_pad(b, pad);
}

/* Move a finished line into out, without trailing blanks. */
static void human_end_line(struct textbuf *out, struct textbuf *line)
{
	size_t n = line->len;
	while (n > 0 && line->data[n - 1] == ' ')
		n--;
	if (line->oom)
		out->oom = 1;
	textbuf_add(out, line->data ? line->data : "", n);
	textbuf_add(out, "\n", 1);
	textbuf_clear(line);
}

/* ------------------------------------------------------------------------ */
/* Numbers, scaled for display only.                                         */

/* 3-4 significant digits: 1.00, 43.67, 436.7, 1023. */
static void human_sig(struct textbuf *b, double v, const char *unit)
{
	double a = fabs(v);
	int prec = a < 100.0 ? 2 : a < 1000.0 ? 1 : 0;
	textbuf_printf(b, "%.*f%s", prec, v, unit);
}

/* Bytes (per_s = 0) or bytes per second (per_s = 1) in 2^10 steps. */
static void human_bytes(struct textbuf *b, double v, int per_s)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	size_t i = 0;
	while (fabs(v) >= 1024.0 && i + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1024.0;
		i++;
	}
	char u[16];
	snprintf(u, sizeof(u), " %s%s", unit[i], per_s ? "/s" : "");
	if (i == 0 && v == floor(v))
		textbuf_printf(b, "%.0f%s", v, u);
	else
		human_sig(b, v, u);
}

/* Nanoseconds as ns, us, ms or s. */
static void human_ns(struct textbuf *b, double v)
{
	static const char *const unit[] = {" ns", " us", " ms", " s"};
	size_t i = 0;
	while (fabs(v) >= 1000.0 && i + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1000.0;
		i++;
	}
	if (i == 0 && v == floor(v))
		textbuf_printf(b, "%.0f%s", v, unit[i]);
	else
		human_sig(b, v, unit[i]);
}

/* Operations per second, with k/M/G once large. */
static void human_ops_rate(struct textbuf *b, double v)
{
	static const char *const unit[] = {"", "k", "M", "G", "T"};
	size_t i = 0;
	while (fabs(v) >= 1000.0 && i + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1000.0;
		i++;
	}
	human_sig(b, v, unit[i]);
}

static double human_number(const struct iob_field *f)
{
	switch (f->type) {
	case IOB_T_U64:
		return (double)f->v.u;
	case IOB_T_I64:
		return (double)f->v.i;
	case IOB_T_F64:
		return isfinite(f->v.f) ? f->v.f : 0.0;
	default:
		return 0.0;
	}
}

static int human_is_number(const struct iob_field *f)
{
	return f->type == IOB_T_U64 || f->type == IOB_T_I64 || f->type == IOB_T_F64;
}

static int human_is_scaled(const struct iob_field *f)
{
	switch (f->unit) {
	case IOB_UNIT_BYTES:
	case IOB_UNIT_BYTES_PER_S:
	case IOB_UNIT_NS:
	case IOB_UNIT_S:
	case IOB_UNIT_OPS_PER_S:
		return human_is_number(f);
	default:
		return 0;
	}
}

/* The value of a non-latency field as text. */
static void human_value(struct textbuf *b, const struct iob_field *f)
{
	if (human_is_scaled(f)) {
		double v = human_number(f);
		switch (f->unit) {
		case IOB_UNIT_BYTES:
			human_bytes(b, v, 0);
			return;
		case IOB_UNIT_BYTES_PER_S:
			human_bytes(b, v, 1);
			return;
		case IOB_UNIT_NS:
			human_ns(b, v);
			return;
		case IOB_UNIT_S:
			textbuf_printf(b, "%.3f s", v);
			return;
		default:
			human_ops_rate(b, v);
			return;
		}
	}
	switch (f->type) {
	case IOB_T_U64:
		textbuf_printf(b, "%" PRIu64, f->v.u);
		break;
	case IOB_T_I64:
		textbuf_printf(b, "%" PRId64, f->v.i);
		break;
	case IOB_T_F64:
		textbuf_printf(b, "%.6g", human_number(f));
		break;
	case IOB_T_STR:
		human_buf_text(b, f->v.s);
		break;
	case IOB_T_BOOL:
		textbuf_str(b, f->v.b ? "yes" : "no");
		break;
	default:
		textbuf_str(b, "?");
		break;
	}
}

/* The key without the unit suffix its shown value carries. */
static void human_label(struct textbuf *b, const struct iob_field *f)
{
	static const struct {
		uint32_t unit;
		const char *suffix, *replace;
	} strip[] = {
		{IOB_UNIT_BYTES_PER_S, "_bytes_per_s", ""}, {IOB_UNIT_BYTES_PER_S, "_per_s", ""},
		{IOB_UNIT_BYTES, "_bytes", ""},             {IOB_UNIT_NS, "_ns", ""},
		{IOB_UNIT_S, "_s", ""},                     {IOB_UNIT_OPS_PER_S, "_per_s", "/s"},
	};
	const char *key = f->key ? f->key : "";
	size_t klen = strlen(key);
	int scaled = human_is_scaled(f) || f->type == IOB_T_LAT;
	for (size_t i = 0; scaled && i < sizeof(strip) / sizeof(strip[0]); i++) {
		uint32_t unit = f->type == IOB_T_LAT ? IOB_UNIT_NS : f->unit;
		size_t slen = strlen(strip[i].suffix);
		if (strip[i].unit != unit || klen <= slen || strcmp(key + klen - slen, strip[i].suffix) != 0)
			continue;
		char *copy = malloc(klen - slen + 1); /* (no strndup on Windows) */
		if (!copy) {
			b->oom = 1;
			return;
		}
		memcpy(copy, key, klen - slen);
		copy[klen - slen] = '\0';
		human_buf_text(b, copy);
		textbuf_str(b, strip[i].replace);
		free(copy);
		return;
	}
	human_buf_text(b, key);
}

/* ------------------------------------------------------------------------ */
/* Layout of a block.                                                        */

static void human_layout_free(struct human_layout *lay)
{
	free(lay->sig);
	free(lay->place);
	free(lay->width);
	memset(lay, 0, sizeof(*lay));
}

/* Field types this output knows.  A field of another type (one a later ABI
 * adds) is skipped: the record is shown without it, as an older renderer
 * cannot know how to print it. */
static int human_known_type(const struct iob_field *f)
{
	return f->type <= IOB_T_LAT;
}

/* An absent value (a NULL string where other records of the kind carry a
 * number): it keeps its key, and the block's layout. */
static int human_is_absent(const struct iob_field *f)
{
	return f->type == IOB_T_STR && !f->v.s;
}

/* Kind, then each key and unit (and whether it is a latency or a type this
 * output does not know): equal signatures share a layout.  A value's other
 * types do not count, so records that measured a value and records where
 * it is absent stay in one block. */
static char *human_signature(const struct iob_record *rec)
{
	struct textbuf b = {0};
	textbuf_str(&b, rec->kind ? rec->kind : "");
	for (size_t i = 0; i < rec->nfields; i++) {
		const struct iob_field *f = &rec->fields[i];
		textbuf_printf(&b, "\n%c/%u:", f->type == IOB_T_LAT ? 'L' : human_known_type(f) ? 'v' : '?',
			       (unsigned)f->unit);
		textbuf_str(&b, f->key ? f->key : "");
	}
	if (b.oom) {
		textbuf_free(&b);
		return NULL;
	}
	return b.data ? b.data : strdup("");
}


/* Decide where each field of a block goes, from the block's first record. */
static int human_layout_make(struct human_state *st, const struct iob_record *rec, char *sig)
{
	struct human_layout *lay = &st->lay;
	human_layout_free(lay);
	lay->sig = sig;
	lay->nfields = rec->nfields;
	lay->place = calloc(rec->nfields + 1, sizeof(*lay->place));
	lay->width = calloc(rec->nfields + 1, sizeof(*lay->width));
	if (!lay->place || !lay->width)
		return -ENOMEM;
	for (size_t i = 0; i < rec->nfields; i++) {
		const struct iob_field *f = &rec->fields[i];
		struct textbuf *c = &st->cell;
		textbuf_clear(c);
		human_label(c, f);
		size_t label_w = c->data ? human_width(c->data) : 0;
		textbuf_clear(c);
		human_value(c, f);
		size_t value_w = c->data ? human_width(c->data) : 0;
		if (!human_known_type(f)) {
			lay->place[i] = HUMAN_SKIP;
		} else if (f->type == IOB_T_LAT) {
			lay->place[i] = HUMAN_LATLINE;
			if (label_w > lay->latlabel_width)
				lay->latlabel_width = label_w;
		} else if (human_is_scaled(f) || (human_is_absent(f) && f->unit != IOB_UNIT_NONE &&
						   f->unit != IOB_UNIT_COUNT) ||
			   (f->type == IOB_T_STR && !human_is_absent(f) && value_w <= HUMAN_SHORT_STR)) {
			lay->place[i] = HUMAN_ROW;
			lay->width[i] = label_w > value_w ? label_w : value_w;
		} else {
			lay->place[i] = HUMAN_DETAIL;
		}
	}
	return st->cell.oom ? -ENOMEM : 0;
}

static int human_is_right(const struct iob_field *f)
{
	return f->type != IOB_T_STR;
}

/* "\n[kind]\n" and the header line of the row columns. */
static void human_put_header(struct human_state *st, const struct iob_record *rec)
{
	struct textbuf *out = &st->out, *line = &st->line, *c = &st->cell;
	textbuf_str(out, "\n[");
	human_buf_text(out, rec->kind ? rec->kind : "");
	textbuf_str(out, "]\n");
	int any = 0;
	for (size_t i = 0; i < rec->nfields; i++) {
		if (st->lay.place[i] != HUMAN_ROW)
			continue;
		textbuf_clear(c);
		human_label(c, &rec->fields[i]);
		if (any++)
			textbuf_str(line, HUMAN_GAP);
		human_put_cell(line, c->data ? c->data : "", st->lay.width[i],
			       human_is_right(&rec->fields[i]));
	}
	if (any)
		human_end_line(out, line);
}

static void human_put_row(struct human_state *st, const struct iob_record *rec)
{
	struct textbuf *line = &st->line, *c = &st->cell;
	int any = 0;
	for (size_t i = 0; i < rec->nfields; i++) {
		if (st->lay.place[i] != HUMAN_ROW)
			continue;
		textbuf_clear(c);
		human_value(c, &rec->fields[i]);
		if (any++)
			textbuf_str(line, HUMAN_GAP);
		human_put_cell(line, c->data ? c->data : "", st->lay.width[i],
			       human_is_right(&rec->fields[i]));
	}
	if (any)
		human_end_line(&st->out, line);
}

/* One latency item: "p99  45.60 us", the value in a fixed width. */
static void human_lat_item(struct textbuf *line, struct textbuf *c, const char *label, double ns)
{
	textbuf_clear(c);
	human_ns(c, ns);
	textbuf_str(line, HUMAN_GAP);
	textbuf_str(line, label);
	textbuf_str(line, " ");
	human_put_cell(line, c->data ? c->data : "", 9, 1);
}

static void human_put_lat(struct human_state *st, const struct iob_field *f)
{
	static const double ranks[] = {50.0, 99.0, 99.9};
	static const char *const names[] = {"p50", "p99", "p99.9"};
	struct textbuf *line = &st->line, *c = &st->cell;
	const struct iob_latency *lat = f->v.lat;
	textbuf_str(line, HUMAN_INDENT);
	textbuf_clear(c);
	human_label(c, f);
	human_put_cell(line, c->data ? c->data : "", st->lay.latlabel_width, 0);
	if (!lat || lat->count == 0) {
		textbuf_str(line, HUMAN_GAP "(no samples)");
		human_end_line(&st->out, line);
		return;
	}
	human_lat_item(line, c, "mean", isfinite(lat->mean) ? lat->mean : 0.0);
	size_t n = (lat->pct && lat->value) ? lat->npct : 0;
	for (size_t r = 0; r < sizeof(ranks) / sizeof(ranks[0]); r++)
		for (size_t k = 0; k < n; k++)
			if (fabs(lat->pct[k] - ranks[r]) < 1e-9)
				human_lat_item(line, c, names[r], (double)lat->value[k]);
	human_lat_item(line, c, "max", (double)lat->max);
	human_end_line(&st->out, line);
}

static void human_put_detail(struct human_state *st, const struct iob_record *rec)
{
	struct textbuf *line = &st->line;
	int any = 0;
	for (size_t i = 0; i < rec->nfields; i++) {
		if (st->lay.place[i] != HUMAN_DETAIL)
			continue;
		textbuf_str(line, any++ ? HUMAN_GAP : HUMAN_INDENT);
		human_label(line, &rec->fields[i]);
		textbuf_str(line, "=");
		human_value(line, &rec->fields[i]);
	}
	if (any)
		human_end_line(&st->out, line);
}

/* ------------------------------------------------------------------------ */
/* Ops.                                                                      */

static int human_flush(struct human_state *st)
{
	int rc;
	if (st->err)
		rc = st->err;
	else if (st->out.oom || st->line.oom || st->cell.oom)
		rc = -ENOMEM;
	else if (st->out.len == 0)
		rc = 0;
	else
		rc = st->sink.write(st->sink.ctx, st->out.data, st->out.len);
	if (rc == -ENOMEM && !st->err)
		human_log(IOB_LOG_ERROR, "out of memory formatting output for %s", st->sink.name);
	else if (rc < 0)
		st->err = rc;
	if (rc > 0)
		rc = 0;
	textbuf_clear(&st->out);
	textbuf_clear(&st->line);
	textbuf_clear(&st->cell);
	return rc;
}

static int human_open(const struct iob_sink *sink, const char *args, void **state)
{
	if (!sink || !sink->write || !state)
		return -EINVAL;
	if (args && *args) {
		human_log(IOB_LOG_ERROR, "takes no arguments (got \"%s\"); use --output human or human=FILE",
			  args);
		return -EINVAL;
	}
	struct human_state *st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->sink = *sink;
	if (!st->sink.name)
		st->sink.name = "output";
	*state = st;
	return 0;
}

static int human_begin_run(void *state, const struct iob_run_info *run)
{
	struct human_state *st = state;
	if (st->begun) {
		human_log(IOB_LOG_ERROR, "begin_run called twice on %s", st->sink.name);
		return -EINVAL;
	}
	st->begun = 1;
	if (!run || run->struct_size < HUMAN_RUN_INFO_V1_SIZE)
		return 0;
	struct textbuf *out = &st->out;
	human_buf_text(out, run->tool);
	textbuf_str(out, " ");
	human_buf_text(out, run->version);
	textbuf_str(out, " on ");
	human_buf_text(out, run->host);
	textbuf_str(out, ", started ");
	human_buf_text(out, run->started);
	textbuf_str(out, "\n");
	if (run->source) {
		textbuf_str(out, "source: ");
		human_buf_text(out, run->source);
		textbuf_str(out, "\n");
	}
	return human_flush(st);
}

/* A "repeats" record (the summary of repeats, docs/statistics.md): a head line, then one
 * line per figure F from its F_mean_*, F_ci_half_*, F_median_*, F_stddev_*,
 * F_cv, F_min_*, F_max_* fields: "bw  412.3 MiB/s ± 5.10 MiB/s  median ..." */
static const struct iob_field *human_find(const struct iob_record *rec, const char *prefix, const char *what)
{
	size_t pl = strlen(prefix), wl = strlen(what);
	for (size_t i = 0; i < rec->nfields; i++) {
		const char *k = rec->fields[i].key;
		if (k && strncmp(k, prefix, pl) == 0 && strncmp(k + pl, what, wl) == 0 &&
		    (k[pl + wl] == '\0' || k[pl + wl] == '_'))
			return &rec->fields[i];
	}
	return NULL;
}

static void human_put_summary(struct human_state *st, const struct iob_record *rec)
{
	struct textbuf *out = &st->out, *c = &st->cell;
	if (!st->lay.sig || strcmp(st->lay.sig, "\x01repeats") != 0) {
		human_layout_free(&st->lay);
		st->lay.sig = strdup("\x01repeats");
		textbuf_str(out, "\n[repeats]\n");
	}
	const struct iob_field *job = human_find(rec, "job", ""), *phase = human_find(rec, "phase", ""),
			       *bs = human_find(rec, "block_size", ""), *n = human_find(rec, "repeats", ""),
			       *conf = human_find(rec, "confidence", "");
	if (job)
		human_value(out, job);
	if (phase) {
		textbuf_str(out, HUMAN_GAP);
		human_value(out, phase);
	}
	if (bs) {
		textbuf_str(out, HUMAN_GAP);
		human_value(out, bs);
	}
	if (n) {
		textbuf_str(out, HUMAN_GAP);
		human_value(out, n);
		textbuf_str(out, " runs");
	}
	if (conf && conf->type == IOB_T_F64)
		textbuf_printf(out, "  mean %s %.0f%% interval half-width", "\xc2\xb1", conf->v.f * 100.0);
	for (size_t i = 0; i < rec->nfields; i++) {
		const struct iob_field *f = &rec->fields[i];
		const char *k = f->key, *m = k ? strstr(k, "_mean") : NULL;
		if (!m || (m[5] != '_' && m[5] != '\0'))
			continue;
		char prefix[64];
		size_t pl = (size_t)(m - k) + 1; /* "bw_" */
		if (pl >= sizeof prefix)
			continue;
		memcpy(prefix, k, pl);
		prefix[pl] = '\0';
		textbuf_printf(out, "\n%s%-10.*s", HUMAN_INDENT, (int)(pl - 1), prefix);
		if (human_is_absent(f)) {
			textbuf_str(out, "  -");
			continue;
		}
		textbuf_clear(c);
		human_value(c, f);
		textbuf_printf(out, "%12s", c->data ? c->data : "");
		const struct iob_field *h = human_find(rec, prefix, "ci_half");
		if (h && !human_is_absent(h)) {
			textbuf_clear(c);
			human_value(c, h);
			textbuf_printf(out, " \xc2\xb1 %-12s", c->data ? c->data : "");
		} else {
			textbuf_printf(out, " \xc2\xb1 %-12s", "-");
		}
		static const char *const more[][2] = {{"median", "median"}, {"stddev", "sd"}, {"cv", "cv"},
						      {"min", "min"},	    {"max", "max"}};
		for (size_t j = 0; j < sizeof more / sizeof more[0]; j++) {
			const struct iob_field *g = human_find(rec, prefix, more[j][0]);
			if (!g)
				continue;
			textbuf_clear(c);
			if (human_is_absent(g))
				textbuf_str(c, "-");
			else if (strcmp(more[j][0], "cv") == 0)
				textbuf_printf(c, "%.1f%%", human_number(g) * 100.0);
			else
				human_value(c, g);
			textbuf_printf(out, strcmp(more[j][0], "cv") == 0 ? "  %s %6s" : "  %s %10s", more[j][1],
				       c->data ? c->data : "");
		}
	}
	const struct iob_field *reached = human_find(rec, "ci_reached", "");
	if (reached && reached->type == IOB_T_BOOL)
		textbuf_printf(out, "\n%suntil_ci %s", HUMAN_INDENT, reached->v.b ? "reached" : "not reached");
	textbuf_str(out, "\n");
}

static int human_record(void *state, const struct iob_record *rec)
{
	struct human_state *st = state;
	if (!st->begun || st->ended) {
		human_log(IOB_LOG_ERROR, "record outside a run on %s", st->sink.name);
		return -EINVAL;
	}
	if (st->err)
		return st->err;
	if (!rec || (rec->nfields && !rec->fields))
		return -EINVAL;
	if (rec->kind && strcmp(rec->kind, "repeats") == 0) {
		human_put_summary(st, rec);
		return human_flush(st);
	}
	char *sig = human_signature(rec);
	if (!sig)
		return -ENOMEM;
	if (st->lay.sig && strcmp(sig, st->lay.sig) == 0) {
		free(sig);
	} else {
		int rc = human_layout_make(st, rec, sig);
		if (rc) {
			human_layout_free(&st->lay);
			textbuf_clear(&st->cell);
			human_log(IOB_LOG_ERROR, "out of memory laying out a record for %s", st->sink.name);
			return rc;
		}
		human_put_header(st, rec);
	}
	human_put_row(st, rec);
	for (size_t i = 0; i < rec->nfields; i++)
		if (st->lay.place[i] == HUMAN_LATLINE)
			human_put_lat(st, &rec->fields[i]);
	human_put_detail(st, rec);
	return human_flush(st);
}

static int human_end_run(void *state, const struct iob_run_end *end)
{
	struct human_state *st = state;
	if (!st->begun || st->ended) {
		human_log(IOB_LOG_ERROR, "end_run %s on %s", st->ended ? "called twice" : "before begin_run",
			  st->sink.name);
		return -EINVAL;
	}
	st->ended = 1;
	if (!end || end->struct_size < HUMAN_RUN_END_V1_SIZE) {
		human_log(IOB_LOG_ERROR, "end_run on %s got no valid run end", st->sink.name);
		return st->err ? st->err : -EINVAL;
	}
	struct textbuf *out = &st->out;
	textbuf_str(out, "\n");
	for (size_t i = 0; end->notes && i < end->nnotes; i++) {
		if (!end->notes[i])
			continue;
		textbuf_str(out, "note: ");
		human_buf_text(out, end->notes[i]);
		textbuf_str(out, "\n");
	}
	if (end->status != 0) {
		textbuf_str(out, "error: ");
		if (end->error)
			human_buf_text(out, end->error);
		else
			textbuf_printf(out, "run failed (status %d)", end->status);
		textbuf_str(out, "\n");
	}
	if (end->interrupted)
		textbuf_str(out, "(interrupted)\n");
	if (out->len == 1)
		textbuf_clear(out); /* nothing to say: no blank line either */
	return human_flush(st);
}

static int human_close(void *state)
{
	struct human_state *st = state;
	if (!st)
		return 0;
	human_layout_free(&st->lay);
	textbuf_free(&st->out);
	textbuf_free(&st->cell);
	textbuf_free(&st->line);
	free(st);
	return 0;
}

static const struct iob_output_ops human_ops = {
	.open = human_open,
	.begin_run = human_begin_run,
	.record = human_record,
	.end_run = human_end_run,
	.close = human_close,
};

static const struct iob_plugin human_plugin = {
	IOB_PLUGIN_HEADER,
	.kind = IOB_PLUGIN_OUTPUT,
	.caps = 0,
	.name = HUMAN_NAME,
	.summary = "aligned tables for people, with KiB/MiB/GiB, MiB/s, us/ms units",
	.ops_size = sizeof(struct iob_output_ops),
	.output = &human_ops,
};

IOB_PLUGIN_EXPORT const struct iob_plugin *iob_plugin_entry(const struct iob_host *host);
IOB_PLUGIN_EXPORT const struct iob_plugin *iob_plugin_entry(const struct iob_host *host)
{
	if (!host || host->abi_major != IOB_ABI_MAJOR)
		return NULL; /* the layout of a foreign host table is unknown: nothing to log with */
	human_host = host;
	return &human_plugin;
}
