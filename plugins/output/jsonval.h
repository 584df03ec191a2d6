/*
 * jsonval.h - JSON values of the result model, shared by the json and
 * fio-json outputs (compiled into each; nothing is exported).
 */
#ifndef IOB_OUTPUT_JSONVAL_H
#define IOB_OUTPUT_JSONVAL_H

#include "iobench/plugin.h"
#include "textbuf.h"

/* Shortest of %.15g..%.17g reading back as v, '.' as the decimal point,
 * always with a '.' or an exponent; inf and nan print as 0.0. */
void jsonval_f64(struct textbuf *b, double v);
/* A JSON string: '"', '\' and control characters escaped, valid UTF-8
 * passed through, each byte of an invalid sequence as \ufffd; NULL is null. */
void jsonval_str(struct textbuf *b, const char *s);
/* {"count":n,"min":n,"max":n,"mean":x,"stddev":x,"percentiles":{"50":n,..}} */
void jsonval_lat(struct textbuf *b, const struct iob_latency *lat);
/* Is the field of a type these functions know (not a later ABI's)? */
int jsonval_known_type(const struct iob_field *f);
/* "key":value */
void jsonval_field(struct textbuf *b, const struct iob_field *f);
/* The run facts as members: "tool":..,"version":..,"host":..,"started":..,
 * "source":..,"kernel":..,"schema":N (nulls for what a 1.0 core or a NULL
 * run does not give; the schema is then 1). */
void jsonval_run_info(struct textbuf *b, const struct iob_run_info *run);
/* How the run ended, as members: "notes":[..],\n"status":"ok"|"error",
 * "interrupted":b and, with error (NULL: ok), "error":"..". */
void jsonval_run_end(struct textbuf *b, const struct iob_run_end *end, const char *error);

#endif
