/*
 * csv.c - the "csv" output: records as comma-separated rows (RFC 4180 quoting).
 *
 * Shape (docs/outputs.md, "csv"): every file holds one table, one header
 * row and rows with its columns, so any CSV reader imports it as it is.
 *  - A table is the records of one kind with one header (their flattened
 *    keys).  The main table is the first of kind "phase" (CSV_MAIN_KIND).
 *  - On a regular file FILE (csv=FILE), the main table goes to FILE and every
 *    other table to a file beside it: FILE without a ".csv" ending, then
 *    ".<kind>.csv" (run.csv -> run.block.csv), or ".<kind>.<n>.csv" for the
 *    n-th table of one kind (n >= 2).  A side file is created when its first
 *    record arrives; characters of the kind other than [0-9A-Za-z_-] become
 *    '_'.  The host opens side files (the sink's open_side, side_ext ".csv"),
 *    with the checks of the main file; this output opens no file itself.
 *  - On anything else (standard output, a pipe, /dev/null) only the main
 *    table is written; at the end one warning names what was left out.
 *  - Argument "append" (csv:append=FILE, a regular file only): the core opens
 *    FILE for appending; each table adds rows to its file when the file is
 *    empty or missing (after writing the header) or when its first line is
 *    exactly the table's header, and refuses otherwise (a one-line error,
 *    nothing written to that file).  Nothing is written before the first
 *    record, so a refused header is an output error of the run.
 *  - The run's notes are a table of their own, kind "note" (one column,
 *    `note`, a row per note), given at end_run: on FILE they go to the side
 *    file FILE.note.csv like any other table (none when the run has no note).
 *  - Nothing is written for the run facts or the run's status: CSV has no
 *    place for them.  Every row already written is whole, so a failed run
 *    leaves valid, shorter files.
 *  - A LAT field `k` flattens to k_count, k_min, k_max, k_mean, k_stddev and
 *    k_p<rank> per percentile, the rank printed like %g with every character
 *    other than [0-9A-Za-z] replaced by '_' (lat_ns_p99_9).  A NULL latency
 *    leaves its five fixed cells empty.
 *  - Line ending is LF ("\n"), not RFC 4180's CRLF: every CSV reader accepts
 *    it, and the output stays diffable with text tools.  A CR or LF inside a
 *    value is kept, inside a quoted cell.
 *  - Cells holding a comma, a double quote, CR or LF are quoted, with inner
 *    quotes doubled.  Others are written bare.
 *  - Every cell is valid UTF-8 (a CSV reader decoding UTF-8 never fails on
 *    a file name that is not) and holds no terminal control: a control
 *    character other than TAB, CR and LF (C0, DEL, C1) and each byte of an
 *    invalid sequence become U+FFFD.
 *  - A field of a type this output does not know (from a later ABI) is
 *    skipped: no header cell, no row cell.
 *  - U64/I64 as integers; F64 as the shortest of %.15g/%.16g/%.17g that
 *    reads back to the same double ('.' as decimal point in every locale, 0
 *    for inf or nan); BOOL as true/false; a NULL string as an empty cell.
 *
 * Each header and each row goes to its file in a single write.  After a
 * write fails once, nothing more is written and every later call returns
 * that error.
 */
#include <ctype.h>
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

#define CSV_NAME "csv"

static const struct iob_host *csv_host;

#define CSV_MAIN_KIND "phase"
#define CSV_MAX_TABLES 64

/* One table: the records of one kind with one header, and where they go. */
struct csv_table {
	char *kind;
	char *header;      /* without line ending */
	struct iob_sink side; /* a side file (the host's); .write NULL for the main sink or when left out */
	char *path;        /* the side file's name, for messages */
	int on_sink;       /* the main table */
	uint64_t left_out; /* rows not written (the sink is not a regular file) */
};

struct csv_state {
	struct iob_sink sink;
	int begun, ended;
	int err;          /* first write error; sticky */
	int to_file;      /* the sink is a regular file: side files beside it */
	int append;       /* csv:append */
	char *old_header; /* append: the first line the main file had, or NULL */
	struct csv_table tab[CSV_MAX_TABLES];
	size_t ntab;
	struct textbuf hdr, row;
};

#define csv_log(level, ...) textbuf_log(csv_host, CSV_NAME, level, __VA_ARGS__)

/* ------------------------------------------------------------------------ */
/* Cells.                                                                    */

/* Shortest of %.15g..%.17g reading back as v, with '.' as the decimal point
 * whatever the locale says. */
static void csv_put_clean(struct textbuf *b, const char *s);

/* One cell, valid UTF-8 without terminal controls (textbuf_clean: U+FFFD for
 * a control other than TAB, CR, LF and for each byte of invalid UTF-8),
 * quoted when it holds a comma, a quote, CR or LF. */
static void csv_put_text(struct textbuf *b, const char *s)
{
	struct textbuf c = {0};
	textbuf_clean(&c, s);
	if (c.oom)
		b->oom = 1;
	else
		csv_put_clean(b, c.data ? c.data : "");
	textbuf_free(&c);
}

static void csv_put_clean(struct textbuf *b, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		textbuf_str(b, s);
		return;
	}
	textbuf_add(b, "\"", 1);
	for (const char *q = strchr(s, '"'); q; s = q + 1, q = strchr(s, '"')) {
		textbuf_add(b, s, (size_t)(q - s) + 1); /* up to and with the quote */
		textbuf_add(b, "\"", 1);                 /* doubled */
	}
	textbuf_str(b, s);
	textbuf_add(b, "\"", 1);
}

static void csv_sep(struct textbuf *b, size_t *ncell)
{
	if ((*ncell)++)
		textbuf_add(b, ",", 1);
}

static void csv_put_f64(struct textbuf *b, double v)
{
	char num[48];
	textbuf_fmt_double(v, num, sizeof(num));
	textbuf_str(b, num);
}

/* ------------------------------------------------------------------------ */
/* Header and row of one record.                                             */

static void csv_header_cell(struct textbuf *b, size_t *ncell, const char *key, const char *suffix)
{
	csv_sep(b, ncell);
	if (!suffix) {
		csv_put_text(b, key);
		return;
	}
	size_t klen = strlen(key), slen = strlen(suffix);
	char *name = malloc(klen + slen + 1);
	if (!name) {
		b->oom = 1;
		return;
	}
	memcpy(name, key, klen);
	memcpy(name + klen, suffix, slen + 1);
	csv_put_text(b, name);
	free(name);
}

/* Types this output knows; fields of others are skipped (see the top). */
static int csv_known_type(const struct iob_field *f)
{
	return f->type <= IOB_T_LAT;
}

static void csv_build_header(struct textbuf *b, const struct iob_record *rec)
{
	static const char *const fixed[] = {"_count", "_min", "_max", "_mean", "_stddev"};
	size_t ncell = 0;
	for (size_t i = 0; i < rec->nfields; i++) {
		const struct iob_field *f = &rec->fields[i];
		const char *key = f->key ? f->key : "";
		if (!csv_known_type(f))
			continue;
		if (f->type != IOB_T_LAT) {
			csv_header_cell(b, &ncell, key, NULL);
			continue;
		}
		for (size_t k = 0; k < sizeof(fixed) / sizeof(fixed[0]); k++)
			csv_header_cell(b, &ncell, key, fixed[k]);
		const struct iob_latency *lat = f->v.lat;
		size_t n = (lat && lat->pct && lat->value) ? lat->npct : 0;
		for (size_t k = 0; k < n; k++) {
			char rank[48], suffix[52];
			textbuf_fmt_double(lat->pct[k], rank, sizeof(rank));
			for (char *p = rank; *p; p++)
				if (!isalnum((unsigned char)*p))
					*p = '_';
			snprintf(suffix, sizeof(suffix), "_p%s", rank);
			csv_header_cell(b, &ncell, key, suffix);
		}
	}
}

static void csv_put_lat(struct textbuf *b, size_t *ncell, const struct iob_latency *lat)
{
	if (!lat) {
		for (int k = 0; k < 5; k++)
			csv_sep(b, ncell);
		return;
	}
	csv_sep(b, ncell);
	textbuf_printf(b, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",", lat->count, lat->min, lat->max);
	csv_put_f64(b, lat->mean);
	textbuf_add(b, ",", 1);
	csv_put_f64(b, lat->stddev);
	size_t n = (lat->pct && lat->value) ? lat->npct : 0;
	for (size_t k = 0; k < n; k++)
		textbuf_printf(b, ",%" PRIu64, lat->value[k]);
	*ncell += 4 + n;
}

/* a string field without a string: an empty cell (csv_put_text adds nothing) */
static const struct textbuf_scalars csv_scalars = {csv_put_f64, csv_put_text, "true", "false"};

static void csv_build_row(struct textbuf *b, const struct iob_record *rec)
{
	size_t ncell = 0;
	for (size_t i = 0; i < rec->nfields; i++) {
		const struct iob_field *f = &rec->fields[i];
		if (!csv_known_type(f))
			continue;
		if (f->type == IOB_T_LAT) {
			csv_put_lat(b, &ncell, f->v.lat);
			continue;
		}
		csv_sep(b, &ncell);
		textbuf_scalar(b, f, &csv_scalars); /* every other type: csv_known_type */
	}
	textbuf_add(b, "\n", 1);
}

/* ------------------------------------------------------------------------ */
/* Ops.                                                                      */

static int csv_write(struct csv_state *st, const char *data, size_t len)
{
	return textbuf_sink_write(&st->sink, &st->err, data, len);
}

/* One whole write to a side file (the host checks it and names the file
 * in the run's error line). */
static int csv_write_side(struct csv_state *st, struct csv_table *t, const char *data, size_t len)
{
	if (st->err)
		return st->err;
	int rc = len ? t->side.write(t->side.ctx, data, len) : 0;
	if (rc < 0)
		st->err = rc;
	return st->err;
}

/* The first line of the file behind a sink, without its ending: 1 and
 * *line (malloc'd), 0 when the file is empty, -errno when it cannot be
 * read.  Read through the sink (the file the host opened and checked). */
static int csv_first_line(const struct iob_sink *sink, char **line)
{
	*line = NULL;
	if (!sink->read_head)
		return -EBADF;
	size_t cap = 4096;
	for (;;) {
		char *buf = malloc(cap + 1);
		if (!buf)
			return -ENOMEM;
		long n = sink->read_head(sink->ctx, buf, cap);
		if (n < 0) {
			free(buf);
			return (int)n;
		}
		char *nl = memchr(buf, '\n', (size_t)n);
		if (nl || (size_t)n < cap || cap >= ((size_t)1 << 24)) {
			if (n == 0) {
				free(buf);
				return 0;
			}
			buf[nl ? (size_t)(nl - buf) : (size_t)n] = '\0';
			*line = buf;
			return 1;
		}
		free(buf);
		cap *= 4;
	}
}

/* Whether the core offers side files on this sink: its file is a regular
 * file (not standard output, a pipe or a device). */
static int csv_sink_is_file(const struct iob_sink *sink)
{
	return sink->struct_size >= offsetof(struct iob_sink, read_head) + sizeof(sink->read_head) &&
	       sink->open_side != NULL;
}

/* The tag of the n-th table of a kind: the kind with every character
 * other than [0-9A-Za-z_-] as '_', then ".<n>" for n >= 2; the host makes
 * it FILE without ".csv", ".<tag>.csv". */
static char *csv_side_tag(const char *kind, size_t n)
{
	size_t kl = strlen(kind);
	char *p = malloc(kl + 40);
	if (!p)
		return NULL;
	for (size_t i = 0; i < kl; i++) {
		char c = kind[i];
		p[i] = isalnum((unsigned char)c) || c == '_' || c == '-' ? c : '_';
	}
	if (!kl)
		p[kl++] = '_';
	if (n > 1)
		snprintf(p + kl, 40, ".%zu", n);
	else
		p[kl] = '\0';
	return p;
}

/* Append mode: may rows under `header` go into a file whose first line is
 * `have` (NULL: empty)?  1 write the header first, 0 no header, -EINVAL. */
static int csv_append_check(const char *path, const char *have, const char *header, const char *kind)
{
	if (!have)
		return 1;
	if (strcmp(have, header) == 0)
		return 0;
	csv_log(IOB_LOG_ERROR,
		"csv:append: '%s' has other columns than this run's %s rows (its header starts '%.60s', this "
		"run's '%.60s'): append to a file from the same kind of run, or write a new file",
		path, kind, have, header);
	return -EINVAL;
}

/* Set up the table for a record of `kind` under `header` (a new one). */
static int csv_table_new(struct csv_state *st, const char *kind, const char *header, struct csv_table **out)
{
	if (st->ntab == CSV_MAX_TABLES) {
		csv_log(IOB_LOG_ERROR, "more than %d tables (kinds and headers) in one run on %s", CSV_MAX_TABLES,
			st->sink.name);
		return -E2BIG;
	}
	size_t nth = 1;
	int main_taken = 0;
	for (size_t i = 0; i < st->ntab; i++) {
		nth += strcmp(st->tab[i].kind, kind) == 0;
		main_taken |= st->tab[i].on_sink;
	}
	struct csv_table *t = &st->tab[st->ntab];
	memset(t, 0, sizeof(*t));
	t->kind = strdup(kind);
	t->header = strdup(header);
	if (!t->kind || !t->header) {
		free(t->kind);
		free(t->header);
		return -ENOMEM;
	}
	st->ntab++;
	*out = t;
	int write_header = 1;
	if (!main_taken && strcmp(kind, CSV_MAIN_KIND) == 0) {
		t->on_sink = 1;
		if (st->append)
			write_header = csv_append_check(st->sink.name, st->old_header, header, kind);
	} else if (st->to_file) {
		char *tag = csv_side_tag(kind, nth);
		if (!tag)
			return -ENOMEM;
		int rc = st->sink.open_side(st->sink.ctx, tag, st->append ? IOB_SIDE_APPEND : 0, &t->side);
		free(tag);
		if (rc < 0) {
			t->side.write = NULL;
			return rc; /* the host said why, naming the file */
		}
		t->path = strdup(t->side.name ? t->side.name : "side file");
		if (!t->path)
			return -ENOMEM;
		if (st->append) {
			char *have = NULL;
			rc = csv_first_line(&t->side, &have);
			write_header = rc < 0 ? rc : csv_append_check(t->path, have, header, kind);
			free(have);
			if (rc < 0)
				csv_log(IOB_LOG_ERROR, "cannot read '%s': %s", t->path, strerror(-rc));
		}
	} else {
		return 0; /* left out: counted, named at the end */
	}
	if (write_header <= 0)
		return write_header;
	struct textbuf *h = &st->hdr;
	textbuf_clear(h);
	textbuf_str(h, header);
	textbuf_add(h, "\n", 1);
	if (h->oom)
		return -ENOMEM;
	return t->on_sink ? csv_write(st, h->data, h->len) : csv_write_side(st, t, h->data, h->len);
}

static int csv_open(const struct iob_sink *sink, const char *args, void **state)
{
	int append = args && strcmp(args, "append") == 0;
	if (args && *args && !append) {
		csv_log(IOB_LOG_ERROR,
			"takes no argument but append (got \"%s\"); use --output csv, csv=FILE or csv:append=FILE",
			args);
		return -EINVAL;
	}
	int orc = textbuf_open_state(sink, state, sizeof(struct csv_state), offsetof(struct csv_state, sink));
	if (orc < 0)
		return orc;
	struct csv_state *st = *state;
	*state = NULL; /* until every check passed */
	st->to_file = csv_sink_is_file(&st->sink);
	st->append = append;
	if (append && !st->to_file) {
		csv_log(IOB_LOG_ERROR, "csv:append needs a regular file to add to ('%s' is not): use csv:append=FILE",
			st->sink.name);
		free(st);
		return -EINVAL;
	}
	if (append) {
		int rc = csv_first_line(&st->sink, &st->old_header);
		if (rc < 0 || (rc == 1 && !st->old_header[0])) {
			csv_log(IOB_LOG_ERROR, "csv:append: '%s' %s: append to a CSV file this output wrote",
				st->sink.name, rc < 0 ? strerror(-rc) : "does not start with a header line");
			free(st->old_header);
			free(st);
			return rc < 0 ? rc : -EINVAL;
		}
	}
	*state = st;
	return 0;
}

static int csv_begin_run(void *state, const struct iob_run_info *run)
{
	struct csv_state *st = state;
	if (textbuf_begin(csv_host, CSV_NAME, st->sink.name, &st->begun))
		return -EINVAL;
	return st->err; /* headers wait for the first record of each table */
}

static int csv_record(void *state, const struct iob_record *rec)
{
	struct csv_state *st = state;
	int rc = textbuf_record_ok(csv_host, CSV_NAME, st->sink.name, st->begun, st->ended, st->err, rec);
	if (rc)
		return rc;
	const char *kind = rec->kind ? rec->kind : "";
	struct textbuf *h = &st->hdr;
	textbuf_clear(h);
	csv_build_header(h, rec);
	if (h->oom || !h->data) {
		textbuf_str(h, ""); /* a record without fields: an empty header */
		if (h->oom) {
			csv_log(IOB_LOG_ERROR, "out of memory formatting a header for %s", st->sink.name);
			return -ENOMEM;
		}
	}
	struct csv_table *t = NULL;
	for (size_t i = 0; i < st->ntab && !t; i++)
		if (strcmp(st->tab[i].kind, kind) == 0 && strcmp(st->tab[i].header, h->data) == 0)
			t = &st->tab[i];
	rc = 0;
	if (!t) {
		char *header = strdup(h->data);
		rc = header ? csv_table_new(st, kind, header, &t) : -ENOMEM;
		free(header);
		if (rc < 0) {
			if (!st->err)
				st->err = rc;
			return rc;
		}
	}
	if (!t->on_sink && !t->side.write) {
		t->left_out++;
		return 0;
	}
	textbuf_clear(&st->row);
	csv_build_row(&st->row, rec);
	if (st->row.oom) {
		csv_log(IOB_LOG_ERROR, "out of memory formatting a row for %s", st->sink.name);
		return -ENOMEM;
	}
	return t->on_sink ? csv_write(st, st->row.data, st->row.len) : csv_write_side(st, t, st->row.data, st->row.len);
}

static int csv_end_run(void *state, const struct iob_run_end *end)
{
	struct csv_state *st = state;
	if (textbuf_end_ok(csv_host, CSV_NAME, st->sink.name, st->begun, st->ended))
		return -EINVAL;
	/* the notes: a table of their own beside the main one (kind "note", one
	 * column), made the way every side table is (docs/outputs.md, csv) */
	int has_notes = end && end->struct_size >= offsetof(struct iob_run_end, notes) + sizeof(end->notes);
	for (size_t i = 0; has_notes && end->notes && i < end->nnotes && !st->err; i++) {
		struct iob_field f = {.key = "note", .type = IOB_T_STR, .unit = IOB_UNIT_NONE};
		f.v.s = end->notes[i];
		struct iob_record rec = {.kind = "note", .nfields = 1, .fields = &f};
		if (end->notes[i])
			csv_record(st, &rec);
	}
	st->ended = 1;
	struct textbuf b = {0};
	for (size_t i = 0; i < st->ntab; i++) {
		if (!st->tab[i].left_out)
			continue;
		textbuf_printf(&b, "%s%" PRIu64 " ", b.len ? ", " : "", st->tab[i].left_out);
		textbuf_str(&b, st->tab[i].kind);
		if (strcmp(st->tab[i].kind, CSV_MAIN_KIND) == 0)
			textbuf_str(&b, " (other columns)");
	}
	if (b.len && !b.oom)
		csv_log(IOB_LOG_WARN,
			"%s holds only the table of %s records; left out: %s rows (give csv=FILE for one file "
			"per table)",
			st->sink.name, CSV_MAIN_KIND, b.data);
	textbuf_free(&b);
	return st->err; /* nothing else to add: see the top of this file */
}

static int csv_close(void *state)
{
	struct csv_state *st = state;
	if (!st)
		return 0;
	int rc = 0;
	for (size_t i = 0; i < st->ntab; i++) {
		struct csv_table *t = &st->tab[i]; /* side files are the host's to close */
		free(t->kind);
		free(t->header);
		free(t->path);
	}
	free(st->old_header);
	textbuf_free(&st->hdr);
	textbuf_free(&st->row);
	free(st);
	return rc;
}

static const struct iob_output_ops csv_ops = {IOB_OUTPUT_OPS_OF(csv), .side_ext = ".csv"};

IOB_OUTPUT_PLUGIN(csv_host, CSV_NAME, "records as CSV tables, one per file, each under a header of its keys (RFC 4180 quoting)", &csv_ops);
