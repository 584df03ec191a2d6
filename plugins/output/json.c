/*
 * json.c - the "json" output: exactly one JSON document per run on its sink.
 *
 * The document is written in pieces as the run goes, so a run that fails
 * midway still leaves one complete document behind:
 *
 *   begin_run   {"tool":..,"version":..,"host":..,"started":..,"source":..,"kernel":..,"schema":N,
 *               "records":[
 *   record      {"kind":"phase",<key>:<value>,...}       (one line each)
 *   end_run     ],
 *               "notes":[..],
 *               "status":"ok"|"error","interrupted":false[,"error":"msg"]}
 *
 * close() after begin_run without end_run finishes the document with
 * "status":"error","error":"run ended without a result"; close() right after
 * open() writes a whole document of that shape with null run facts.
 *
 * Values: U64/I64 as integers; F64 as the shortest of %.15g/%.16g/%.17g that
 * reads back to the same double, always with a '.' or an exponent, and 0.0
 * in place of inf or nan; STR as JSON strings with '"', '\' and control
 * characters escaped (\uXXXX), valid UTF-8 passed through and each byte of
 * an invalid sequence replaced by \ufffd (file names need not be UTF-8); a
 * NULL string is null; BOOL true/false; LAT as
 *   {"count":n,"min":n,"max":n,"mean":x,"stddev":x,"percentiles":{"50":n,..}}
 * with percentile ranks printed like %g ("99.9").  A field of a type this
 * output does not know (from a later ABI) is skipped, key and all: the
 * record stays valid JSON without it.  Schema: docs/outputs.md.
 *
 * Each piece is built in memory and handed to the sink in one write.  After
 * the sink fails once, nothing more is written and every later call returns
 * that error (the document cannot be repaired on a broken sink).
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
#include "jsonval.h"
#include "textbuf.h"

#define JSON_NAME "json"
#define JSON_NO_RESULT "run ended without a result"

/* Smallest struct sizes holding every ABI 1.0 member. */
#define JSON_RUN_END_V1_SIZE (offsetof(struct iob_run_end, notes) + sizeof(const char *const *))

static const struct iob_host *json_host;

/* o.begun: the head and "records":[ are written; o.ended: the document is
 * complete */
struct json_state {
	struct textbuf_out o; /* first: the sink, where the run is, its error (textbuf.h) */
	size_t nrecords;
	struct textbuf buf;
};

#define json_log(level, ...) textbuf_log(json_host, JSON_NAME, level, __VA_ARGS__)

/* Write len bytes to the sink; a failure is remembered and ends all output. */
static int json_write(struct json_state *st, const char *data, size_t len)
{
	return textbuf_sink_write(&st->o.sink, &st->o.err, data, len);
}

/* Hand the buffer to the sink in one write.  -ENOMEM (nothing written, the
 * sink still usable) when building it ran out of memory. */
static int json_flush(struct json_state *st)
{
	int rc;
	if (st->buf.oom) {
		json_log(IOB_LOG_ERROR, "out of memory formatting output for %s", st->o.sink.name);
		rc = st->o.err ? st->o.err : -ENOMEM;
	} else {
		rc = json_write(st, st->buf.data ? st->buf.data : "", st->buf.len);
	}
	textbuf_clear(&st->buf);
	return rc;
}

/* Last resort when the real tail could not be built: still close the document. */
static int json_write_fallback_tail(struct json_state *st)
{
	static const char tail[] = "\n],\n\"notes\":[],\n\"status\":\"error\",\"interrupted\":false,"
				   "\"error\":\"out of memory writing the result\"}\n";
	return json_write(st, tail, sizeof(tail) - 1);
}

/* ------------------------------------------------------------------------ */
/* Document pieces.                                                          */

static void json_put_head(struct textbuf *b, const struct iob_run_info *run)
{
	textbuf_str(b, "{");
	jsonval_run_info(b, run);
	textbuf_str(b, ",\n\"records\":[");
}

/* Everything after the last record.  error is NULL for a successful run. */
static void json_put_tail(struct textbuf *b, const struct iob_run_end *end, const char *error)
{
	textbuf_str(b, "\n],\n");
	jsonval_run_end(b, end, error);
	textbuf_str(b, "}\n");
}

/* ------------------------------------------------------------------------ */
/* Ops: end_run and close are textbuf.c's, over json_doc.                    */

static int json_put_end(void *state, const struct iob_run_end *end, const char *error);
static void json_free(void *state);
static const struct textbuf_doc json_doc = {JSON_NAME, JSON_RUN_END_V1_SIZE, JSON_NO_RESULT, json_put_end, json_free};

static int json_open(const struct iob_sink *sink, const char *args, void **state)
{
	if (args && *args) {
		json_log(IOB_LOG_ERROR, "takes no arguments (got \"%s\"); use --output json or json=FILE",
			 args);
		return -EINVAL;
	}
	return textbuf_doc_open(sink, state, sizeof(struct json_state), json_host, &json_doc);
}

static int json_begin_run(void *state, const struct iob_run_info *run)
{
	struct json_state *st = state;
	if (textbuf_begin_ok(json_host, JSON_NAME, st->o.sink.name, st->o.begun))
		return -EINVAL;
	json_put_head(&st->buf, run);
	int rc = json_flush(st);
	/* After a sink failure nothing more is written anyway; after -ENOMEM the
	 * head is missing and close() will write one. */
	if (rc == 0 || st->o.err)
		st->o.begun = 1;
	return rc;
}

static int json_record(void *state, const struct iob_record *rec)
{
	struct json_state *st = state;
	int rc = textbuf_record_ok(json_host, JSON_NAME, st->o.sink.name, st->o.begun, st->o.ended, st->o.err, rec);
	if (rc)
		return rc;
	struct textbuf *b = &st->buf;
	if (st->nrecords)
		textbuf_add(b, ",\n{\"kind\":", 10);
	else
		textbuf_add(b, "\n{\"kind\":", 9);
	jsonval_str(b, rec->kind ? rec->kind : "");
	for (size_t i = 0; i < rec->nfields; i++) {
		if (!jsonval_known_type(&rec->fields[i]))
			continue;
		textbuf_add(b, ",", 1);
		jsonval_field(b, &rec->fields[i]);
	}
	textbuf_add(b, "}", 1);
	rc = json_flush(st);
	if (rc == 0)
		st->nrecords++;
	return rc;
}

/* The document's end (and its head first, when begin_run could not write
 * it); when the end cannot be built, the fallback tail still closes it. */
static int json_put_end(void *state, const struct iob_run_end *end, const char *error)
{
	struct json_state *st = state;
	if (!st->o.begun)
		json_put_head(&st->buf, NULL);
	json_put_tail(&st->buf, end, error);
	int rc = json_flush(st);
	if (rc == -ENOMEM && !st->o.err && st->o.begun)
		rc = json_write_fallback_tail(st);
	return rc;
}

static void json_free(void *state)
{
	textbuf_free(&((struct json_state *)state)->buf);
}

static const struct iob_output_ops json_ops = {TEXTBUF_DOC_OPS(json)};

IOB_OUTPUT_PLUGIN(json_host, JSON_NAME, "one JSON document per run: run facts, records, notes, status", &json_ops);
