/*
 * human.c - the "human" output: results for people to read at a glance.
 *
 * The wide layout (docs/outputs.md has examples of both):
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
 * line; every record is then one aligned row.
 *
 * Default (narrow): for the core's kinds (human_narrow: phase, stream,
 * rank, group, interval, block) the row is the columns a person reads
 * first (job, phase, bs, bw, ops/s, p50, p99, status...) within HUMAN_COLS
 * columns, and nothing else; the job column is HUMAN_NAME_MIN to
 * HUMAN_NAME_MAX wide, a longer name cut in the middle with '~'.  Other
 * kinds are laid out as in the wide table, the row stopping before
 * HUMAN_COLS columns and the key=value line wrapped there.
 *
 * Wide ("human:wide", iobench run --wide): every field; the row, plus one
 * line per latency field and one "key=value" line for everything else.
 * Which field goes where is decided from the first record of a block, by
 * type and unit only:
 *  - row: strings of at most HUMAN_SHORT_STR characters (job, phase,
 *    backend), and numbers measured in bytes, bytes/s, ns, s or ops/s;
 *  - latency line: each LAT field, mean, p50, p99, p99.9 (the ranks the record
 *    has) and max;
 *  - key=value line: longer strings (file paths), booleans and plain counts;
 *  - nowhere: a field of a type this output does not know (from a later
 *    ABI) is skipped.
 * Column labels are the keys without the unit suffix the value now shows
 * (block_size_bytes -> block_size, bw_bytes_per_s -> bw, ops_per_s -> ops/s),
 * or the whole key where two fields of the block would share a label.
 * Strings are shown for a terminal: control characters (C1 included) and
 * bytes of invalid UTF-8 as \xNN (textbuf_term).
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

/* The narrow table (the default): for the kinds below, one row per record
 * of the columns a person reads first, within HUMAN_COLS columns; `wide`
 * shows every field. */
#define HUMAN_COLS 100
#define HUMAN_NAME_MAX 24 /* widest a name column gets */
#define HUMAN_NAME_MIN 16 /* narrowest: names this long are never cut */
#define HUMAN_MAX_COLS 10

struct human_colspec {
	const char *key, *label;
	double pct;   /* > 0: this percentile of the latency field `key` */
	size_t width; /* at least this; 0: a name, as wide as the row allows */
};

struct human_kindspec {
	const char *kind;
	struct human_colspec col[HUMAN_MAX_COLS];
};

#define C_JOB {"job", "job", 0, 0}
#define C_PHASE {"phase", "phase", 0, 6}
#define C_BS {"block_size_bytes", "bs", 0, 9}
#define C_BW {"bw_bytes_per_s", "bw", 0, 11}
#define C_OPS {"ops_per_s", "ops/s", 0, 6}
#define C_P50 {"lat_ns", "p50", 50.0, 8}
#define C_P99 {"lat_ns", "p99", 99.0, 8}
#define C_STATUS {"status", "status", 0, 11}

static const struct human_kindspec human_narrow[] = {
	{"phase", {C_JOB, C_PHASE, C_BS, C_BW, C_OPS, C_P50, C_P99, C_STATUS}},
	{"stream", {C_JOB, {"stream", "stream", 0, 6}, C_PHASE, C_BS, C_BW, C_OPS, C_P50, C_P99, C_STATUS}},
	{"rank", {{"rank", "rank", 0, 4}, C_JOB, C_PHASE, C_BS, C_BW, C_OPS, C_P50, C_P99, C_STATUS}},
	{"group",
	 {{"group", "group", 0, 5}, C_PHASE, {"jobs", "jobs", 0, 4}, C_BS, C_BW, C_OPS, C_P50, C_P99, C_STATUS}},
	{"interval",
	 {C_JOB, C_PHASE, C_BS, {"interval", "interval", 0, 8}, {"time_s", "time", 0, 9}, C_BW, C_OPS,
	  {"lat_p50_ns", "p50", 0, 8}, {"lat_p99_ns", "p99", 0, 8}}},
	{"meta",
	 {C_JOB, C_PHASE, {"streams", "streams", 0, 7}, {"ops", "ops", 0, 9}, {"elapsed_s", "time", 0, 8}, C_OPS,
	  C_P50, C_P99, {"caches_dropped", "dropped", 0, 7}, C_STATUS}},
	{"block",
	 {{"index", "block", 0, 6}, {"offset_bytes", "offset", 0, 9}, {"bytes", "bytes", 0, 9},
	  {"time_ns", "time", 0, 8}, {"speed_bytes_per_s", "speed", 0, 11}, {"merged", "merged", 0, 6}}},
};

/* A column of a narrow row. */
struct human_col {
	size_t field;     /* index in the record */
	const char *label;
	double pct;       /* > 0: a percentile of a latency field */
	size_t width;
	int right, cut;   /* right-aligned; a longer value is cut to the width */
};

/* How records of the current block are laid out. */
struct human_layout {
	char *sig;             /* kind and keys, to notice when a new block starts */
	size_t nfields;
	unsigned char *place;  /* enum human_place per field */
	size_t *width;         /* column width per HUMAN_ROW field */
	char **label;          /* per field: its label, unique in the block */
	size_t latlabel_width; /* widest latency label */
	size_t ncol;           /* > 0: a narrow row of these columns, nothing else */
	struct human_col col[HUMAN_MAX_COLS];
};

struct human_state {
	struct iob_sink sink;
	int wide;  /* every field (human:wide, --wide); else the narrow table */
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

/* Append a string for a terminal: every byte that is not part of a
 * printable UTF-8 character (C0 and C1 controls, DEL, invalid UTF-8) as
 * \xNN (textbuf_term); NULL as "-". */
static void human_buf_text(struct textbuf *b, const char *s)
{
	if (!s) {
		textbuf_str(b, "-");
		return;
	}
	textbuf_term(b, s);
}

/* Columns a UTF-8 string takes: continuation bytes take none. */
static size_t human_width(const char *s)
{
	return textbuf_columns(s);
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
	if (textbuf_integer(b, f))
		return;
	switch (f->type) {
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
	for (size_t i = 0; lay->label && i < lay->nfields; i++)
		free(lay->label[i]);
	free(lay->label);
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

static int human_is_right(const struct iob_field *f);
static void human_cell(struct textbuf *b, const struct iob_field *f, double pct);

/* Each field's label: the key without its unit suffix, or the whole key
 * where two fields of the block would otherwise share a label
 * (first_done_bytes and first_done_s; interval and interval_s). */
static int human_labels(struct human_state *st, const struct iob_record *rec)
{
	struct human_layout *lay = &st->lay;
	lay->label = calloc(rec->nfields + 1, sizeof(*lay->label));
	if (!lay->label)
		return -ENOMEM;
	for (size_t i = 0; i < rec->nfields; i++) {
		struct textbuf c = {0};
		human_label(&c, &rec->fields[i]);
		lay->label[i] = c.oom ? NULL : c.data ? c.data : strdup("");
		if (!lay->label[i]) {
			textbuf_free(&c);
			return -ENOMEM;
		}
	}
	for (size_t i = 0; i < rec->nfields; i++) {
		int clash = 0;
		for (size_t j = 0; j < rec->nfields && !clash; j++)
			clash = j != i && strcmp(lay->label[i], lay->label[j]) == 0;
		if (!clash)
			continue;
		for (size_t j = 0; j < rec->nfields; j++) {
			if (j == i || strcmp(lay->label[i], lay->label[j]) != 0)
				continue;
			struct textbuf c = {0};
			human_buf_text(&c, rec->fields[j].key ? rec->fields[j].key : "");
			free(lay->label[j]);
			lay->label[j] = c.oom ? NULL : c.data ? c.data : strdup("");
			if (!lay->label[j])
				return -ENOMEM;
		}
		struct textbuf c = {0};
		human_buf_text(&c, rec->fields[i].key ? rec->fields[i].key : "");
		free(lay->label[i]);
		lay->label[i] = c.oom ? NULL : c.data ? c.data : strdup("");
		if (!lay->label[i])
			return -ENOMEM;
	}
	return 0;
}

static const struct iob_field *human_find(const struct iob_record *rec, const char *key, size_t *at)
{
	for (size_t i = 0; i < rec->nfields; i++)
		if (rec->fields[i].key && strcmp(rec->fields[i].key, key) == 0 && human_known_type(&rec->fields[i])) {
			*at = i;
			return &rec->fields[i];
		}
	return NULL;
}

/* The narrow row of a kind that has one (human_narrow): its columns that
 * the record has, the name column as wide as the rest leaves within
 * HUMAN_COLS.  0 when the kind has none. */
static void human_narrow_make(struct human_state *st, const struct iob_record *rec)
{
	struct human_layout *lay = &st->lay;
	const struct human_kindspec *k = NULL;
	for (size_t i = 0; i < sizeof(human_narrow) / sizeof(human_narrow[0]) && !k; i++)
		if (rec->kind && strcmp(rec->kind, human_narrow[i].kind) == 0)
			k = &human_narrow[i];
	if (!k)
		return;
	size_t used = 0, name = HUMAN_MAX_COLS;
	for (size_t c = 0; c < HUMAN_MAX_COLS && k->col[c].key; c++) {
		const struct human_colspec *cs = &k->col[c];
		size_t at;
		const struct iob_field *f = human_find(rec, cs->key, &at);
		if (!f || (cs->pct > 0) != (f->type == IOB_T_LAT))
			continue;
		struct human_col *col = &lay->col[lay->ncol];
		col->field = at;
		col->label = cs->label;
		col->pct = cs->pct;
		col->right = cs->pct > 0 || human_is_right(f);
		col->width = cs->width > strlen(cs->label) ? cs->width : strlen(cs->label);
		if (!cs->width) {
			name = lay->ncol;
			col->cut = 1;
		}
		used += (lay->ncol ? strlen(HUMAN_GAP) : 0) + (cs->width ? col->width : 0);
		lay->ncol++;
	}
	if (name < lay->ncol) {
		struct human_col *col = &lay->col[name];
		struct textbuf *c = &st->cell;
		textbuf_clear(c);
		human_cell(c, &rec->fields[col->field], 0);
		size_t w = c->data ? human_width(c->data) : 0, room = used < HUMAN_COLS ? HUMAN_COLS - used : 0;
		if (w < HUMAN_NAME_MIN)
			w = HUMAN_NAME_MIN;
		if (w > HUMAN_NAME_MAX)
			w = HUMAN_NAME_MAX;
		if (w > room)
			w = room;
		col->width = w > strlen(col->label) ? w : strlen(col->label);
	}
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
	if (!lay->place || !lay->width || human_labels(st, rec) != 0)
		return -ENOMEM;
	if (!st->wide) {
		human_narrow_make(st, rec);
		if (lay->ncol)
			return st->cell.oom ? -ENOMEM : 0;
	}
	size_t row = 0; /* columns the row takes so far */
	for (size_t i = 0; i < rec->nfields; i++) {
		const struct iob_field *f = &rec->fields[i];
		struct textbuf *c = &st->cell;
		size_t label_w = human_width(lay->label[i]);
		textbuf_clear(c);
		human_value(c, f);
		size_t value_w = c->data ? human_width(c->data) : 0;
		size_t w = label_w > value_w ? label_w : value_w;
		if (!human_known_type(f)) {
			lay->place[i] = HUMAN_SKIP;
		} else if (f->type == IOB_T_LAT) {
			lay->place[i] = HUMAN_LATLINE;
			if (label_w > lay->latlabel_width)
				lay->latlabel_width = label_w;
		} else if ((human_is_scaled(f) || (human_is_absent(f) && f->unit != IOB_UNIT_NONE &&
						   f->unit != IOB_UNIT_COUNT) ||
			    (f->type == IOB_T_STR && !human_is_absent(f) && value_w <= HUMAN_SHORT_STR)) &&
			   (st->wide || row + (row ? strlen(HUMAN_GAP) : 0) + w <= HUMAN_COLS)) {
			lay->place[i] = HUMAN_ROW;
			lay->width[i] = w;
			row += (row ? strlen(HUMAN_GAP) : 0) + w;
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

/* The value of a narrow column: a field's value, or one percentile of a
 * latency ("-" when it has no samples or not that rank). */
static void human_cell(struct textbuf *b, const struct iob_field *f, double pct)
{
	if (pct <= 0) {
		human_value(b, f);
		return;
	}
	const struct iob_latency *lat = f->type == IOB_T_LAT ? f->v.lat : NULL;
	size_t n = lat && lat->count && lat->pct && lat->value ? lat->npct : 0;
	for (size_t k = 0; k < n; k++)
		if (fabs(lat->pct[k] - pct) < 1e-9) {
			human_ns(b, (double)lat->value[k]);
			return;
		}
	textbuf_str(b, "-");
}

/* Bytes of the unit of escaped text at t, its columns in *cols: a \xNN
 * escape (a cut never splits one), or one UTF-8 character. */
static size_t human_unit(const char *t, size_t *cols)
{
	if (t[0] == '\\' && t[1] == 'x' && t[2] && t[3]) {
		*cols = 4;
		return 4;
	}
	size_t n = 1;
	while (t[n] && ((unsigned char)t[n] & 0xc0u) == 0x80u)
		n++;
	*cols = 1;
	return n;
}

/* Cut text (escaped, valid UTF-8) to at most `width` columns: its start,
 * '~' and its end, in whole units, so names that differ at either end
 * stay apart. */
static void human_cut(struct textbuf *c, size_t width)
{
	size_t w = c->data ? human_width(c->data) : 0;
	if (w <= width || width < 3)
		return;
	const char *t = c->data;
	size_t head = width - 1 - (width - 1) / 2, h = 0, hc = 0, uc = 0;
	for (size_t u; t[h] && (u = human_unit(t + h, &uc), hc + uc <= head); h += u)
		hc += uc;
	/* the tail: as many whole units from the end as the rest of the width takes */
	size_t room = width - 1 - hc, e = c->len, ec = 0, ns = 0;
	size_t *start = malloc((c->len - h + 1) * sizeof(*start));
	if (!start) {
		c->oom = 1;
		return;
	}
	for (size_t i = h; t[i]; i += human_unit(t + i, &uc))
		start[ns++] = i;
	while (ns > 0) {
		human_unit(t + start[ns - 1], &uc);
		if (ec + uc > room)
			break;
		ec += uc;
		e = start[--ns];
	}
	free(start);
	struct textbuf out = {0};
	textbuf_add(&out, t, h);
	textbuf_str(&out, "~");
	textbuf_add(&out, t + e, c->len - e);
	textbuf_clear(c);
	if (out.oom)
		c->oom = 1;
	else
		textbuf_add(c, out.data, out.len);
	textbuf_free(&out);
}

/* "\n[kind]\n" and the header line of the row columns. */
static void human_put_header(struct human_state *st, const struct iob_record *rec)
{
	struct textbuf *out = &st->out, *line = &st->line;
	const struct human_layout *lay = &st->lay;
	textbuf_str(out, "\n[");
	human_buf_text(out, rec->kind ? rec->kind : "");
	textbuf_str(out, "]\n");
	int any = 0;
	for (size_t c = 0; c < lay->ncol; c++) {
		if (any++)
			textbuf_str(line, HUMAN_GAP);
		human_put_cell(line, lay->col[c].label, lay->col[c].width, lay->col[c].right);
	}
	for (size_t i = 0; !lay->ncol && i < rec->nfields; i++) {
		if (lay->place[i] != HUMAN_ROW)
			continue;
		if (any++)
			textbuf_str(line, HUMAN_GAP);
		human_put_cell(line, lay->label[i], lay->width[i], human_is_right(&rec->fields[i]));
	}
	if (any)
		human_end_line(out, line);
}

static void human_put_row(struct human_state *st, const struct iob_record *rec)
{
	struct textbuf *line = &st->line, *c = &st->cell;
	const struct human_layout *lay = &st->lay;
	int any = 0;
	for (size_t k = 0; k < lay->ncol; k++) {
		const struct human_col *col = &lay->col[k];
		textbuf_clear(c);
		human_cell(c, &rec->fields[col->field], col->pct);
		if (col->cut)
			human_cut(c, col->width);
		if (any++)
			textbuf_str(line, HUMAN_GAP);
		human_put_cell(line, c->data ? c->data : "", col->width, col->right);
	}
	for (size_t i = 0; !lay->ncol && i < rec->nfields; i++) {
		if (lay->place[i] != HUMAN_ROW)
			continue;
		textbuf_clear(c);
		human_value(c, &rec->fields[i]);
		if (any++)
			textbuf_str(line, HUMAN_GAP);
		human_put_cell(line, c->data ? c->data : "", lay->width[i], human_is_right(&rec->fields[i]));
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

static void human_put_lat(struct human_state *st, const struct iob_record *rec, const struct iob_field *f)
{
	static const double ranks[] = {50.0, 99.0, 99.9};
	static const char *const names[] = {"p50", "p99", "p99.9"};
	struct textbuf *line = &st->line, *c = &st->cell;
	const struct iob_latency *lat = f->v.lat;
	textbuf_str(line, HUMAN_INDENT);
	human_put_cell(line, st->lay.label[(size_t)(f - rec->fields)], st->lay.latlabel_width, 0);
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

/* The key=value line; narrow: wrapped before HUMAN_COLS columns (an item
 * wider than that alone on its line). */
static void human_put_detail(struct human_state *st, const struct iob_record *rec)
{
	struct textbuf *line = &st->line, *c = &st->cell;
	size_t cols = 0;
	for (size_t i = 0; i < rec->nfields; i++) {
		if (st->lay.place[i] != HUMAN_DETAIL)
			continue;
		textbuf_clear(c);
		textbuf_str(c, st->lay.label[i]);
		textbuf_str(c, "=");
		human_value(c, &rec->fields[i]);
		size_t w = c->data ? human_width(c->data) : 0;
		if (cols && !st->wide && cols + strlen(HUMAN_GAP) + w > HUMAN_COLS) {
			human_end_line(&st->out, line);
			cols = 0;
		}
		textbuf_str(line, cols ? HUMAN_GAP : HUMAN_INDENT);
		cols += strlen(HUMAN_GAP) + w;
		textbuf_str(line, c->data ? c->data : "");
	}
	if (cols)
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
	int wide = args && strcmp(args, "wide") == 0;
	if (args && *args && !wide) {
		struct textbuf shown = {0};
		textbuf_term(&shown, args);
		human_log(IOB_LOG_ERROR, "unknown argument \"%s\"; use --output human, human:wide or human=FILE",
			  shown.oom || !shown.data ? "?" : shown.data);
		textbuf_free(&shown);
		return -EINVAL;
	}
	struct human_state *st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->wide = wide;
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
 * F_cv, F_min_*, F_max_* fields: "bw  412.3 MiB/s ± 5.10 MiB/s  sd ...  cv ...  min
 * ...  max ..." within HUMAN_COLS; wide: the median before sd. */
static const struct iob_field *human_sfind(const struct iob_record *rec, const char *prefix, const char *what)
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
	const struct iob_field *job = human_sfind(rec, "job", ""), *phase = human_sfind(rec, "phase", ""),
			       *bs = human_sfind(rec, "block_size", ""), *n = human_sfind(rec, "repeats", ""),
			       *conf = human_sfind(rec, "confidence", "");
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
		const struct iob_field *h = human_sfind(rec, prefix, "ci_half");
		if (h && !human_is_absent(h)) {
			textbuf_clear(c);
			human_value(c, h);
			textbuf_printf(out, " \xc2\xb1 %-12s", c->data ? c->data : "");
		} else {
			textbuf_printf(out, " \xc2\xb1 %-12s", "-");
		}
		static const char *const more[][2] = {{"median", "median"}, {"stddev", "sd"}, {"cv", "cv"},
						      {"min", "min"},	    {"max", "max"}};
		/* the narrow layout stays within HUMAN_COLS: the median only when wide */
		for (size_t j = st->wide ? 0 : 1; j < sizeof more / sizeof more[0]; j++) {
			const struct iob_field *g = human_sfind(rec, prefix, more[j][0]);
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
	const struct iob_field *reached = human_sfind(rec, "ci_reached", "");
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
	for (size_t i = 0; !st->lay.ncol && i < rec->nfields; i++)
		if (st->lay.place[i] == HUMAN_LATLINE)
			human_put_lat(st, rec, &rec->fields[i]);
	if (!st->lay.ncol)
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

IOB_OUTPUT_PLUGIN(human_host, HUMAN_NAME, "aligned tables for people, with KiB/MiB/GiB, MiB/s, us/ms units", &human_ops);
