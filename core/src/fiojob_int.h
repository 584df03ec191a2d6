/*
 * fiojob_int.h - what the files of the fio job reader share (fiojob.c
 * fiojob_keys.c fiojob_read.c fiojob_map.c fiojob_map2.c fiojob_data.c;
 * docs/fio.md).
 *
 *  fiojob_rows.h  the fio keys' rows (the one list of fio keys): enum fkey
 *                 below and fj_keys are made of them
 *  fiojob_keys.c  the mapping table fj_keys, lookup, `iobench keys --fio`
 *  fiojob_read.c  the reader (sections, includes, ${VAR}) and fio's values
 *  fiojob_map.c   one job: the key getters, notes, engine, files, work
 *  fiojob_map2.c  one job: shape, priorities, latency target, steady state
 *                 and map_job, which maps them all
 *  fiojob_data.c  one job: iobench's keys set by name (fj_set_iob_key) and
 *                 by row (fj_map_rows); the data: pattern, content, verify
 *  fiojob.c       laying out what read jobs need, and loading
 */
#ifndef IOBENCH_FIOJOB_INT_H
#define IOBENCH_FIOJOB_INT_H

#include "iobench/fiojob.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "iobench/hist.h"
#include "iobench/os.h"
#include "iobench/path.h"
#include "iobench/plugin.h"
#include "iobench/result.h"
#include "iobench/units.h"
#include "iobench/verify.h"

#define FIO_LINE_MAX 4096
#define FIO_WHERE_MAX 160

/* ---- the mapping table ---------------------------------------------------- */

/* The rows that mapping code (fiojob_map*.c) names, K_NAME ... K_ERROR_DUMP,
 * from their FJ_CODE rows (fiojob_rows.h, the only place a fio key is
 * named).  A key that maps by its row alone (fj_map_rows: `as` and `ikey` or
 * `refuse`) is an FJ_ROW: no name here; its row follows these in fj_keys, at
 * an index from K_COUNT up. */
enum fkey {
#define FJ_CODE(k, ...) k,
#define FJ_ROW(...)
#include "fiojob_rows.h"
#undef FJ_CODE
#undef FJ_ROW
	K_COUNT
};

/* How fj_map_rows reads a row's value, as fio reads it. */
enum fj_as {
	FJ_AS_CODE = 0, /* not by its row: mapping code reads it (an FJ_CODE row names it) */
	FJ_AS_UINT,     /* a number */
	FJ_AS_BOOL,     /* 1, 0, true, false; bare: 1 */
	FJ_AS_SIZE,     /* bytes, with fio's units (kb_base) */
	FJ_AS_TIME_S,   /* a time; a bare number is seconds */
	FJ_AS_TIME_US,  /* a time; a bare number is microseconds */
	FJ_AS_TEXT,     /* the text as written */
};

struct fio_key {
	const char *name;
	const char *aliases; /* "a, b", or "" */
	const char *iobench; /* the iobench key(s) it sets */
	const char *how;     /* one line: what is accepted and what it does */
	/* A key that maps by its row (fj_map_rows), read `as` says: `ikey`, the
	 * iobench key its value sets (as a number, true/false, bytes or ns;
	 * iob_job_set checks it as it checks a profile's value), or `refuse`,
	 * why a value other than fio's default (0, false, empty) is refused;
	 * neither: accepted, with no effect. */
	enum fj_as as;
	const char *ikey;
	const char *refuse;
};

/* The rows fj_keys may hold (the sections' values are indexed by row). */
#define FJ_KEYS_MAX 192



/* What a message says instead of a line of an included file: an include
 * may name any file the user can read (include /etc/shadow), and its text
 * must not reach a terminal or a log. */
#define INCLUDED_HIDDEN "the text of an included file is not shown"

/* ---- what the reader collects ---------------------------------------------- */

struct fval {
	char *value;  /* NULL: not set */
	int bare;     /* a flag without '=' */
	int included; /* from an included file: never echoed in a message */
	char where[FIO_WHERE_MAX];
};

struct fsection {
	char name[IOB_NAME_MAX + 64];
	char where[FIO_WHERE_MAX];
	struct fval v[FJ_KEYS_MAX];
	int create_on_open; /* create_on_open=1 on a data job: no layout (fiojob.c, add_layouts) */
};

struct reader {
	const struct iob_fio_opts *opts;
	struct iob_suite *suite;
	struct fsection global;
	struct fsection *jobs; /* IOB_MAX_JOBS */
	size_t njobs;
	struct fsection *cur;  /* the section being read, NULL before the first */
	char real_stack[IOB_MAX_INCLUDE_DEPTH + 1][4096];
	size_t depth;
	char unknown[1024];    /* "a, b": keys not in the table */
	char ignored[1024];    /* keys dropped as --fio-ignore asked */
	/* notes that name jobs: one note per text, its jobs listed */
	struct {
		char text[240], jobs[400];
	} agg[16];
	size_t nagg;
	/* exitall: fio's flag is the process's, so one job's exitall=1 makes
	 * every job's end stop its group, by the job's own exit_what (IOB_EXIT_*
	 * of each mapped job, given or not; exit_what_given: 0 not given, 1
	 * group, 2 stonewall, 3 all) */
	uint32_t report_group; /* fio's reporting group of the job mapped last (groupid + 1) */
	char exitall_job[64];  /* the first job with exitall=1, or "" */
	unsigned char exit_what[IOB_MAX_JOBS], exit_what_given[IOB_MAX_JOBS];
	char *err;
	size_t errlen;
};

/* ---- one job ---------------------------------------------------------------- */

struct compiled {
	int time_based, new_group_only;
	uint32_t stonewall;
};

struct mapper {
	struct reader *r;
	struct fsection *s;
	struct iob_job *job;
	int kb1000;
	char why[512];
};

extern const struct fio_key fj_keys[];
extern const int fj_nkeys; /* rows in fj_keys: K_COUNT and the rows after them */

/* fiojob_keys.c */
int fj_key_lookup(const char *name);

/* fiojob_read.c */
void fj_section_free(struct fsection *s);
int fj_fail(struct reader *r, int rc, const char *fmt, ...) IOB_PRINTF(3, 4);
void fj_list_add(char *list, size_t len, const char *word);
char *fj_trim(char *s);
int fj_read_file(struct reader *r, const char *path, int included);
int fj_set_key(struct reader *r, struct fsection *s, const char *key, const char *value, const char *where);
int fj_fio_size(const char *text, int kb1000, uint64_t *out, char *why, size_t whylen);
int fj_fio_time(const char *text, uint64_t def_ns, uint64_t *out, char *why, size_t whylen);
int fj_fio_uint(const char *text, uint64_t max, uint64_t *out, char *why, size_t whylen);

/* fiojob_map.c */
const struct fval *fj_get(const struct mapper *m, enum fkey k);
int fj_bad(struct mapper *m, enum fkey k, int rc, const char *fmt, ...) IOB_PRINTF(4, 5);
int fj_get_bool(struct mapper *m, enum fkey k, int def, int *out);
int fj_get_uint(struct mapper *m, enum fkey k, uint64_t max, uint64_t def, uint64_t *out);
int fj_get_size(struct mapper *m, enum fkey k, uint64_t *out, int *set);
int fj_get_range(struct mapper *m, enum fkey k, uint64_t *out, int *set);
int fj_get_time(struct mapper *m, enum fkey k, uint64_t def_ns, uint64_t *out);
void fj_note(struct reader *r, const char *fmt, ...) IOB_PRINTF(2, 3);
void fj_note_job(struct reader *r, const char *job, const char *fmt, ...) IOB_PRINTF(3, 4);
void fj_notes_flush(struct reader *r);
/* Refused for what the job needs, before its other keys are looked at:
 * ioengine=cpuio and exec (no storage), zonemode=zbd (a zoned device). */
int fj_refuse_needs(struct reader *r, struct fsection *s);
int fj_map_engine(struct mapper *m, uint32_t *iodepth);
int fj_valid_name(const char *n);
int fj_map_log(struct mapper *m, enum fkey k, const char *ikey);
int fj_map_files(struct mapper *m, uint64_t numjobs);
int fj_map_work(struct mapper *m, int time_based, uint64_t runtime_ns);

/* fiojob_map2.c */
int fj_map_job(struct reader *r, struct fsection *s, struct iob_job *job, uint32_t *group, size_t index);
void fj_exitall(struct reader *r);

/* fiojob_data.c */
int fj_set_iob_key(struct mapper *m, enum fkey k, const char *key, const char *fmt, ...) IOB_PRINTF(4, 5);
int fj_map_row(struct mapper *m, enum fkey k, const struct fio_key *e);
int fj_map_rows(struct mapper *m);
int fj_map_content(struct mapper *m);
int fj_map_verify(struct mapper *m);

#endif
