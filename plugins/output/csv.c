/*
 * csv.c - the "csv" output: records as comma-separated rows (RFC 4180 quoting).
 *
 * Shape (docs/outputs.md):
 *  - A header row of the field keys of the first record, then one row per
 *    record.  Nothing is written for the run facts, notes or the run's
 *    status: CSV has no place for them.  The core reports errors on stderr
 *    and the human and json outputs carry the notes; every row already
 *    written is whole, so a failed run leaves a valid, shorter file.
 *  - When a record's header (its flattened keys) differs from the current
 *    one - another kind with other keys, or a latency with other ranks - an
 *    empty line and a new header row start a new block.  Records of another
 *    kind with the same keys continue the current block.  The kind itself is
 *    not a column.
 *  - A LAT field `k` flattens to k_count, k_min, k_max, k_mean, k_stddev and
 *    k_p<rank> per percentile, the rank printed like %g with every character
 *    other than [0-9A-Za-z] replaced by '_' (lat_ns_p99_9).  A NULL latency
 *    leaves its five fixed cells empty.
 *  - Line ending is LF ("\n"), not RFC 4180's CRLF: every CSV reader accepts
 *    it, and the output stays diffable with text tools.  A CR or LF inside a
 *    value is kept, inside a quoted cell.
 *  - Cells holding a comma, a double quote, CR or LF are quoted, with inner
 *    quotes doubled.  Others are written bare.
 *  - A field of a type this output does not know (from a later ABI) is
 *    skipped: no header cell, no row cell.
 *  - U64/I64 as integers; F64 as the shortest of %.15g/%.16g/%.17g that
 *    reads back to the same double ('.' as decimal point in every locale, 0
 *    for inf or nan); BOOL as true/false; a NULL string as an empty cell.
 *
 * Each header block and each row goes to the sink in a single write.  After
 * the sink fails once, nothing more is written and every later call returns
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

struct csv_state {
	struct iob_sink sink;
	int begun, ended;
	int err;      /* first sink error; sticky */
	char *header; /* current header row, without line ending; NULL before the first */
	struct textbuf hdr, row;
};

static void csv_log(int level, const char *fmt, ...) IOB_PRINTF(2, 3);
static void csv_log(int level, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	if (!csv_host || !csv_host->log)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	csv_host->log(level, CSV_NAME, "%s", line);
}

/* ------------------------------------------------------------------------ */
/* Cells.                                                                    */

/* Shortest of %.15g..%.17g reading back as v, with '.' as the decimal point
 * whatever the locale says. */
/* One cell, quoted when it holds a comma, a quote, CR or LF. */
static void csv_put_text(struct textbuf *b, const char *s)
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
		switch (f->type) {
		case IOB_T_U64:
			textbuf_printf(b, "%" PRIu64, f->v.u);
			break;
		case IOB_T_I64:
			textbuf_printf(b, "%" PRId64, f->v.i);
			break;
		case IOB_T_F64:
			csv_put_f64(b, f->v.f);
			break;
		case IOB_T_STR:
			if (f->v.s)
				csv_put_text(b, f->v.s);
			break;
		case IOB_T_BOOL:
			textbuf_str(b, f->v.b ? "true" : "false");
			break;
		default:
			break; /* not reached: csv_known_type */
		}
	}
	textbuf_add(b, "\n", 1);
}

/* ------------------------------------------------------------------------ */
/* Ops.                                                                      */

static int csv_write(struct csv_state *st, const char *data, size_t len)
{
	if (st->err)
		return st->err;
	int rc = st->sink.write(st->sink.ctx, data, len);
	if (rc < 0)
		st->err = rc;
	return rc < 0 ? rc : 0;
}

static int csv_open(const struct iob_sink *sink, const char *args, void **state)
{
	if (!sink || !sink->write || !state)
		return -EINVAL;
	if (args && *args) {
		csv_log(IOB_LOG_ERROR, "takes no arguments (got \"%s\"); use --output csv or csv=FILE", args);
		return -EINVAL;
	}
	struct csv_state *st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->sink = *sink;
	if (!st->sink.name)
		st->sink.name = "output";
	*state = st;
	return 0;
}

static int csv_begin_run(void *state, const struct iob_run_info *run)
{
	struct csv_state *st = state;
	if (st->begun) {
		csv_log(IOB_LOG_ERROR, "begin_run called twice on %s", st->sink.name);
		return -EINVAL;
	}
	st->begun = 1;
	return st->err; /* the header waits for the first record */
}

/* Start a new header block when rec's header differs from the current one. */
static int csv_header_for(struct csv_state *st, const struct iob_record *rec)
{
	struct textbuf *h = &st->hdr;
	textbuf_clear(h);
	textbuf_add(h, "\n", 1); /* the empty line before a second block */
	csv_build_header(h, rec);
	if (h->oom)
		return -ENOMEM;
	if (st->header && strcmp(st->header, h->data + 1) == 0)
		return 0;
	char *copy = strdup(h->data + 1);
	if (!copy)
		return -ENOMEM;
	textbuf_add(h, "\n", 1);
	if (h->oom) {
		free(copy);
		return -ENOMEM;
	}
	int first = st->header == NULL;
	int rc = csv_write(st, h->data + first, h->len - (size_t)first);
	free(st->header);
	st->header = copy;
	return rc;
}

static int csv_record(void *state, const struct iob_record *rec)
{
	struct csv_state *st = state;
	if (!st->begun || st->ended) {
		csv_log(IOB_LOG_ERROR, "record outside a run on %s", st->sink.name);
		return -EINVAL;
	}
	if (st->err)
		return st->err;
	if (!rec || (rec->nfields && !rec->fields))
		return -EINVAL;
	int rc = csv_header_for(st, rec);
	if (rc == 0) {
		textbuf_clear(&st->row);
		csv_build_row(&st->row, rec);
		rc = st->row.oom ? -ENOMEM : csv_write(st, st->row.data, st->row.len);
	}
	if (rc == -ENOMEM)
		csv_log(IOB_LOG_ERROR, "out of memory formatting a row for %s", st->sink.name);
	return rc;
}

static int csv_end_run(void *state, const struct iob_run_end *end)
{
	struct csv_state *st = state;
	if (!st->begun || st->ended) {
		csv_log(IOB_LOG_ERROR, "end_run %s on %s", st->ended ? "called twice" : "before begin_run",
			st->sink.name);
		return -EINVAL;
	}
	st->ended = 1;
	return st->err; /* nothing to add: see the top of this file */
}

static int csv_close(void *state)
{
	struct csv_state *st = state;
	if (!st)
		return 0;
	free(st->header);
	textbuf_free(&st->hdr);
	textbuf_free(&st->row);
	free(st);
	return 0;
}

static const struct iob_output_ops csv_ops = {
	.open = csv_open,
	.begin_run = csv_begin_run,
	.record = csv_record,
	.end_run = csv_end_run,
	.close = csv_close,
};

static const struct iob_plugin csv_plugin = {
	IOB_PLUGIN_HEADER,
	.kind = IOB_PLUGIN_OUTPUT,
	.caps = 0,
	.name = CSV_NAME,
	.summary = "records as CSV rows under a header of their keys (RFC 4180 quoting, LF endings)",
	.ops_size = sizeof(struct iob_output_ops),
	.output = &csv_ops,
};

IOB_PLUGIN_EXPORT const struct iob_plugin *iob_plugin_entry(const struct iob_host *host);
IOB_PLUGIN_EXPORT const struct iob_plugin *iob_plugin_entry(const struct iob_host *host)
{
	if (!host || host->abi_major != IOB_ABI_MAJOR)
		return NULL; /* the layout of a foreign host table is unknown: nothing to log with */
	csv_host = host;
	return &csv_plugin;
}
