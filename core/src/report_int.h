/*
 * report_int.h - what the rooms of `iobench report` share (report.c: the
 * map of its rooms), and nothing else includes:
 *   report_scan.c    the streaming reader: a file's top-level members and
 *                    the elements of its streamed array, one at a time
 *   report_read.c    one result file, checked whole (the first pass), its
 *                    top-level members kept
 *   report_fields.c  JSON values to the result model (fields, latency
 *                    summaries)
 *   report.c         the second pass (records to the output) and the command
 */
#ifndef IOB_REPORT_INT_H
#define IOB_REPORT_INT_H

#include "iobench/report.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/cli.h"
#include "iobench/compare.h"
#include "iobench/os.h"
#include "iobench/outfile.h"
#include "iobench/output.h"
#include "iobench/units.h"
#include "jsonread.h"

#define RP_MAX_ELEMENT (256u << 20) /* one record or fio job: more is no result */

struct rbuf {
	char *d;
	size_t len, cap;
};

struct scan {
	FILE *f;
	const char *path;
	unsigned char buf[65536];
	size_t pos, len;
	uint64_t off; /* file offset of buf[0] */
	int eof, rerr;
	struct rbuf val;
};

/* What a walk over a file does with what it finds. */
struct walker {
	/* a top-level member but the streamed array (owns nothing: copy) */
	int (*member)(void *ctx, const char *key, const struct jv *v, char *err, size_t errlen);
	/* element i of the top-level array `key` ("records" or "jobs") */
	int (*element)(void *ctx, const char *key, size_t i, const struct jv *v, uint64_t at, char *err,
		       size_t errlen);
	void *ctx;
};

enum rformat { RF_UNKNOWN, RF_IOBENCH, RF_FIO };

/* The top-level members of a file (all but the streamed array), kept from
 * the first pass: the run facts, the notes, how it ended. */
struct result {
	const char *path;
	enum rformat format;
	char **keys;
	struct jv *vals;
	size_t n, cap;
	int has_records, has_jobs;
	size_t nelements;
	/* the second pass */
	struct iob_outputs *out;
	int out_rc;
};

struct fields {
	struct iob_field *f;
	size_t n, cap;
	/* latency summaries: their arrays, freed with the record */
	struct iob_latency *lat[8];
	size_t nlat;
	int oom;
};

/* report_scan.c */
int rp_walk(struct scan *s, const struct walker *w, char *err, size_t errlen);
FILE *rp_open_result(const char *path, char *err, size_t errlen);

/* report_read.c */
void rp_result_free(struct result *r);
const struct jv *rp_result_get(const struct result *r, const char *key);
const char *rp_result_str(const struct result *r, const char *key);
int rp_read_result(struct result *r, const char *path, char *err, size_t errlen);

/* report_fields.c */
struct iob_field *rp_fields_add(struct fields *fs, const char *key);
void rp_fields_reset(struct fields *fs);
void rp_fields_free(struct fields *fs);
struct iob_latency *rp_lat_of(struct fields *fs, const struct jv *o);
void rp_add_num(struct fields *fs, const char *key, double v);
void rp_add_str(struct fields *fs, const char *key, const char *s);
void rp_add_value(struct fields *fs, const char *key, const struct jv *v);

#endif /* IOB_REPORT_INT_H */
