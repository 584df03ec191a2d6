/*
 * report.c - `iobench report RESULT [NEW] [-o FILE.html]` (report.h;
 * docs/outputs.md, "iobench report"): one self-contained HTML page from
 * saved results, made by the html output plugin, so it is the page
 * `--output html=FILE` writes at the end of a run.
 *
 * A result is iobench JSON (docs/outputs.md, schema 2: every binary writes
 * it) or fio's JSON (--output-format=json).  The file is read as a stream:
 * the top-level members one at a time, and the elements of its "records"
 * (iobench) or "jobs" (fio) array one at a time, each parsed with jsonread.c
 * and then forgotten, so memory does not grow with the file (the html output
 * keeps what its tables and pictures need: a row per phase, two numbers per
 * block or interval).  Each file is read twice: once to check all of it,
 * before anything is created; then to hand its records to the output.
 *
 * iobench records go to the output as they are (fields rebuilt from JSON:
 * numbers, strings, booleans, latency summaries); fio's jobs become one
 * "phase" record per direction that moved bytes.  With two files the page is
 * NEW's, with the comparison of `iobench compare BASE NEW` (compare.c) as
 * "comparison" records.
 *
 * Bad input - not JSON, cut short, JSON that is no result, another schema,
 * an output file that is one of the inputs (by device and inode) - is one
 * line naming the file, exit 2, and nothing is created or changed.
 */
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

/* ---- a growable byte buffer ------------------------------------------------ */

struct rbuf {
	char *d;
	size_t len, cap;
};

static int rbuf_add(struct rbuf *b, int c)
{
	if (b->len + 2 > b->cap && iob_grow(&b->d, &b->cap, b->cap, 1, 4096) < 0)
		return -ENOMEM;
	b->d[b->len++] = (char)c;
	b->d[b->len] = '\0';
	return 0;
}

/* ---- the streaming reader ------------------------------------------------- */

struct scan {
	FILE *f;
	const char *path;
	unsigned char buf[65536];
	size_t pos, len;
	uint64_t off; /* file offset of buf[0] */
	int eof, rerr;
	struct rbuf val;
};

static int sc_peek(struct scan *s)
{
	if (s->pos == s->len) {
		if (s->eof)
			return -1;
		s->off += s->len;
		s->pos = 0;
		s->len = fread(s->buf, 1, sizeof s->buf, s->f);
		if (s->len == 0) {
			s->eof = 1;
			s->rerr = ferror(s->f);
			return -1;
		}
	}
	return s->buf[s->pos];
}

static int sc_get(struct scan *s)
{
	int c = sc_peek(s);
	if (c >= 0)
		s->pos++;
	return c;
}

static uint64_t sc_at(const struct scan *s)
{
	return s->off + s->pos;
}

static void sc_ws(struct scan *s)
{
	int c;
	while ((c = sc_peek(s)) == ' ' || c == '\t' || c == '\n' || c == '\r')
		s->pos++;
}

static int sc_trunc(struct scan *s, char *err, size_t errlen)
{
	if (s->rerr)
		snprintf(err, errlen, "cannot read '%s': read error", s->path);
	else
		snprintf(err, errlen, "'%s' is not a whole JSON document: it ends early (truncated?) at byte %llu",
			 s->path, (unsigned long long)sc_at(s));
	return -EINVAL;
}

/* Copy the next JSON value's text into s->val (checked by jv_parse after). */
static int sc_capture(struct scan *s, char *err, size_t errlen)
{
	s->val.len = 0;
	int c = sc_peek(s);
	if (c < 0)
		return sc_trunc(s, err, errlen);
	int depth = 0, in_str = 0, esc = 0;
	if (c == '{' || c == '[' || c == '"') {
		do {
			c = sc_get(s);
			if (c < 0)
				return sc_trunc(s, err, errlen);
			if (s->val.len >= RP_MAX_ELEMENT) {
				snprintf(err, errlen, "'%s' has a value of more than 256 MiB at byte %llu: not a result",
					 s->path, (unsigned long long)sc_at(s));
				return -EINVAL;
			}
			if (rbuf_add(&s->val, c) != 0) {
				snprintf(err, errlen, "out of memory reading '%s'", s->path);
				return -ENOMEM;
			}
			if (in_str) {
				if (esc)
					esc = 0;
				else if (c == '\\')
					esc = 1;
				else if (c == '"')
					in_str = 0;
			} else if (c == '"') {
				in_str = 1;
			} else if (c == '{' || c == '[') {
				depth++;
			} else if (c == '}' || c == ']') {
				depth--;
			}
		} while (depth > 0 || in_str);
		return 0;
	}
	while ((c = sc_peek(s)) >= 0 && !strchr(",]} \t\r\n", c) && s->val.len < 4096)
		if (rbuf_add(&s->val, sc_get(s)) != 0) {
			snprintf(err, errlen, "out of memory reading '%s'", s->path);
			return -ENOMEM;
		}
	if (c < 0)
		return sc_trunc(s, err, errlen);
	return 0;
}

/* Capture and parse the next value into *v. */
static int sc_value(struct scan *s, struct jv *v, char *err, size_t errlen)
{
	uint64_t at = sc_at(s);
	int rc = sc_capture(s, err, errlen);
	if (rc != 0)
		return rc;
	char why[256];
	if (jv_parse(s->val.d ? s->val.d : "", s->val.len, v, why, sizeof why) != 0) {
		snprintf(err, errlen, "'%s' is not a whole JSON document: in the value at byte %llu: %s", s->path,
			 (unsigned long long)at, why);
		return -EINVAL;
	}
	return 0;
}

/* What a walk over a file does with what it finds. */
struct walker {
	/* a top-level member but the streamed array (owns nothing: copy) */
	int (*member)(void *ctx, const char *key, const struct jv *v, char *err, size_t errlen);
	/* element i of the top-level array `key` ("records" or "jobs") */
	int (*element)(void *ctx, const char *key, size_t i, const struct jv *v, uint64_t at, char *err,
		       size_t errlen);
	void *ctx;
};

static int sc_unexpected(struct scan *s, int c, const char *what, char *err, size_t errlen)
{
	if (c < 0)
		return sc_trunc(s, err, errlen);
	snprintf(err, errlen, "'%s' is not %s: unexpected '%c' at byte %llu", s->path, what,
		 c >= 0x20 && c < 0x7f ? c : '?', (unsigned long long)(sc_at(s) ? sc_at(s) - 1 : 0));
	return -EINVAL;
}

/* Walk one JSON document: an object whose members are handed over one by
 * one, its "records" or "jobs" array element by element. */
static int walk(struct scan *s, const struct walker *w, char *err, size_t errlen)
{
	int c, rc = 0;
	sc_ws(s);
	if ((c = sc_get(s)) != '{') {
		if (c < 0 && sc_at(s) == 0) {
			snprintf(err, errlen, "'%s' is empty: not an iobench or fio JSON result", s->path);
			return -EINVAL;
		}
		return sc_unexpected(s, c, "a JSON result (an object)", err, errlen);
	}
	sc_ws(s);
	if (sc_peek(s) == '}') {
		sc_get(s);
		goto end;
	}
	for (;;) {
		sc_ws(s);
		if ((c = sc_peek(s)) != '"') {
			sc_get(s);
			return sc_unexpected(s, c, "a whole JSON document", err, errlen);
		}
		struct jv key;
		if ((rc = sc_value(s, &key, err, errlen)) != 0)
			return rc;
		char name[64];
		snprintf(name, sizeof name, "%s", key.type == JV_STRING && key.str ? key.str : "");
		jv_free(&key);
		sc_ws(s);
		if ((c = sc_get(s)) != ':')
			return sc_unexpected(s, c, "a whole JSON document", err, errlen);
		sc_ws(s);
		if ((strcmp(name, "records") == 0 || strcmp(name, "jobs") == 0) && sc_peek(s) == '[') {
			sc_get(s);
			sc_ws(s);
			if (sc_peek(s) == ']') {
				sc_get(s);
			} else {
				for (size_t i = 0;; i++) {
					sc_ws(s);
					uint64_t at = sc_at(s);
					struct jv v;
					if ((rc = sc_value(s, &v, err, errlen)) != 0)
						return rc;
					rc = w->element(w->ctx, name, i, &v, at, err, errlen);
					jv_free(&v);
					if (rc != 0)
						return rc;
					sc_ws(s);
					if ((c = sc_get(s)) == ']')
						break;
					if (c != ',')
						return sc_unexpected(s, c, "a whole JSON document", err, errlen);
				}
			}
		} else {
			struct jv v;
			if ((rc = sc_value(s, &v, err, errlen)) != 0)
				return rc;
			rc = w->member(w->ctx, name, &v, err, errlen);
			jv_free(&v);
			if (rc != 0)
				return rc;
		}
		sc_ws(s);
		if ((c = sc_get(s)) == '}')
			break;
		if (c != ',')
			return sc_unexpected(s, c, "a whole JSON document", err, errlen);
	}
end:
	sc_ws(s);
	if ((c = sc_get(s)) >= 0)
		return sc_unexpected(s, c, "one JSON document (text follows it)", err, errlen);
	if (s->rerr) {
		snprintf(err, errlen, "cannot read '%s': read error", s->path);
		return -EIO;
	}
	return 0;
}

/* Open a result the way compare does: a regular file only (never a wait on
 * a FIFO, never a device), decided on the path and on what was opened. */
static FILE *open_result(const char *path, char *err, size_t errlen)
{
	enum iob_path_kind kind = iob_path_kind(path, 1);
	if (kind != IOB_PATH_REGULAR && kind != IOB_PATH_MISSING) {
		snprintf(err, errlen, "'%s' is not a regular file: a result is read from a file", path);
		return NULL;
	}
	FILE *f = iob_fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	uint64_t dev, ino;
	if (iob_stream_identity(f, &dev, &ino, &kind) == 0 && kind != IOB_PATH_REGULAR) {
		fclose(f);
		snprintf(err, errlen, "'%s' is not a regular file: a result is read from a file", path);
		return NULL;
	}
	return f;
}

/* ---- one result file --------------------------------------------------------- */

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

static void result_free(struct result *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->keys[i]);
		jv_free(&r->vals[i]);
	}
	free(r->keys);
	free(r->vals);
	r->keys = NULL;
	r->vals = NULL;
	r->n = r->cap = 0;
}

static const struct jv *result_get(const struct result *r, const char *key)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->keys[i], key) == 0)
			return &r->vals[i];
	return NULL;
}

static const char *result_str(const struct result *r, const char *key)
{
	const struct jv *v = result_get(r, key);
	return v && v->type == JV_STRING ? v->str : NULL;
}

/* A deep copy of a parsed value (the walk frees its own). */
static int jv_copy(struct jv *dst, const struct jv *src)
{
	memset(dst, 0, sizeof *dst);
	dst->type = src->type;
	dst->num = src->num;
	if (src->type == JV_STRING) {
		dst->str = strdup(src->str ? src->str : "");
		return dst->str ? 0 : -ENOMEM;
	}
	if (src->type != JV_ARRAY && src->type != JV_OBJECT)
		return 0;
	dst->items = calloc(src->n + 1, sizeof *dst->items);
	if (src->type == JV_OBJECT)
		dst->keys = calloc(src->n + 1, sizeof *dst->keys);
	if (!dst->items || (src->type == JV_OBJECT && !dst->keys)) {
		free(dst->items);
		free(dst->keys);
		dst->items = NULL;
		dst->keys = NULL;
		return -ENOMEM;
	}
	for (size_t i = 0; i < src->n; i++) {
		dst->n = i + 1;
		if (src->type == JV_OBJECT && !(dst->keys[i] = strdup(src->keys[i])))
			return -ENOMEM;
		if (jv_copy(&dst->items[i], &src->items[i]) != 0)
			return -ENOMEM;
	}
	return 0;
}

static int keep_member(void *ctx, const char *key, const struct jv *v, char *err, size_t errlen)
{
	struct result *r = ctx;
	if (strcmp(key, "records") == 0 || strcmp(key, "jobs") == 0) {
		snprintf(err, errlen, "'%s' has a \"%s\" member that is no array: not a result", r->path, key);
		return -EINVAL;
	}
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		char **k = realloc(r->keys, cap * sizeof *k);
		if (k)
			r->keys = k;
		struct jv *q = k ? realloc(r->vals, cap * sizeof *q) : NULL;
		if (!q) {
			snprintf(err, errlen, "out of memory reading '%s'", r->path);
			return -ENOMEM;
		}
		r->vals = q;
		r->cap = cap;
	}
	r->keys[r->n] = strdup(key);
	if (!r->keys[r->n]) {
		snprintf(err, errlen, "out of memory reading '%s'", r->path);
		return -ENOMEM;
	}
	if (jv_copy(&r->vals[r->n], v) != 0) {
		r->n++;
		snprintf(err, errlen, "out of memory reading '%s'", r->path);
		return -ENOMEM;
	}
	r->n++;
	return 0;
}

/* The first pass: every element must be what its array holds. */
static int check_element(void *ctx, const char *key, size_t i, const struct jv *v, uint64_t at, char *err,
			 size_t errlen)
{
	struct result *r = ctx;
	int records = strcmp(key, "records") == 0;
	r->has_records |= records;
	r->has_jobs |= !records;
	r->nelements++;
	if (v->type != JV_OBJECT || (records && !jv_str(v, "kind"))) {
		snprintf(err, errlen, "'%s': %s %zu (at byte %llu) is not %s: not a result", r->path, records ? "record" : "job",
			 i, (unsigned long long)at, records ? "an object with a \"kind\"" : "an object");
		return -EINVAL;
	}
	return 0;
}

/* The first pass over a file: all of it read and checked, its kind known. */
static int read_result(struct result *r, const char *path, char *err, size_t errlen)
{
	memset(r, 0, sizeof *r);
	r->path = path;
	struct scan *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->path = path;
	if (!(s->f = open_result(path, err, errlen))) {
		free(s);
		return -EINVAL;
	}
	struct walker w = {keep_member, check_element, r};
	int rc = walk(s, &w, err, errlen);
	fclose(s->f);
	free(s->val.d);
	free(s);
	if (rc != 0)
		return rc;
	const struct jv *schema = result_get(r, "schema"), *fio = result_get(r, "fio version");
	if (schema && r->has_records) {
		if (schema->type != JV_NUMBER || schema->num != 2) {
			if (schema->type == JV_NUMBER)
				snprintf(err, errlen, "'%s' has record schema %g: report reads iobench's schema 2", path,
					 schema->num);
			else
				snprintf(err, errlen, "'%s' has a record schema that is no number: report reads "
						      "iobench's schema 2", path);
			return -EINVAL;
		}
		r->format = RF_IOBENCH;
	} else if (fio && fio->type == JV_STRING && r->has_jobs) {
		r->format = RF_FIO;
	} else if (schema && !r->has_records && result_get(r, "tool")) {
		/* a run that failed before its first record still has "records":[] */
		if (schema->type != JV_NUMBER || schema->num != 2) {
			snprintf(err, errlen, "'%s' has record schema %g: report reads iobench's schema 2", path,
				 schema->type == JV_NUMBER ? schema->num : -1.0);
			return -EINVAL;
		}
		r->format = RF_IOBENCH;
	} else {
		snprintf(err, errlen, "'%s' is neither an iobench JSON result (schema 2) nor fio's JSON output", path);
		return -EINVAL;
	}
	return 0;
}

/* ---- JSON values to the result model --------------------------------------- */

struct fields {
	struct iob_field *f;
	size_t n, cap;
	/* latency summaries: their arrays, freed with the record */
	struct iob_latency *lat[8];
	size_t nlat;
	int oom;
};

static struct iob_field *fields_add(struct fields *fs, const char *key)
{
	if (iob_grow(&fs->f, &fs->cap, fs->n, sizeof *fs->f, 64) < 0) {
		fs->oom = 1;
		return NULL;
	}
	struct iob_field *f = &fs->f[fs->n++];
	memset(f, 0, sizeof *f);
	f->key = key;
	return f;
}

static void fields_reset(struct fields *fs)
{
	for (size_t i = 0; i < fs->nlat; i++) {
		free((void *)fs->lat[i]->pct);
		free((void *)fs->lat[i]->value);
		free(fs->lat[i]);
	}
	fs->nlat = 0;
	fs->n = 0;
}

static void fields_free(struct fields *fs)
{
	fields_reset(fs);
	free(fs->f);
}

static uint32_t unit_of(const char *key)
{
	size_t n = strlen(key);
#define ENDS(s) (n >= sizeof(s) - 1 && strcmp(key + n - (sizeof(s) - 1), s) == 0)
	if (ENDS("_bytes_per_s"))
		return IOB_UNIT_BYTES_PER_S;
	if (ENDS("_per_s"))
		return IOB_UNIT_OPS_PER_S;
	if (ENDS("_bytes"))
		return IOB_UNIT_BYTES;
	if (ENDS("_ns"))
		return IOB_UNIT_NS;
	if (ENDS("_s"))
		return IOB_UNIT_S;
#undef ENDS
	return IOB_UNIT_NONE;
}

/* A latency summary from {"count","min","max","mean","stddev","percentiles":{rank:ns}}
 * (iobench) or fio's {"N","min","max","mean","stddev","percentile":{"50.000000":ns}}. */
static struct iob_latency *lat_of(struct fields *fs, const struct jv *o)
{
	const struct jv *pc = jv_get(o, "percentiles");
	if (!pc)
		pc = jv_get(o, "percentile");
	if (fs->nlat == sizeof fs->lat / sizeof fs->lat[0])
		return NULL;
	struct iob_latency *l = calloc(1, sizeof *l);
	size_t np = pc && pc->type == JV_OBJECT ? pc->n : 0;
	double *pct = calloc(np + 1, sizeof *pct);
	uint64_t *val = calloc(np + 1, sizeof *val);
	if (!l || !pct || !val) {
		free(l);
		free(pct);
		free(val);
		fs->oom = 1;
		return NULL;
	}
	size_t k = 0;
	for (size_t i = 0; i < np; i++) {
		char *end = NULL;
		double rank = strtod(pc->keys[i], &end);
		const struct jv *v = &pc->items[i];
		if (end == pc->keys[i] || v->type != JV_NUMBER || !(v->num >= 0) || !isfinite(rank))
			continue;
		size_t j = k++; /* insertion: ranks ascending */
		while (j > 0 && pct[j - 1] > rank) {
			pct[j] = pct[j - 1];
			val[j] = val[j - 1];
			j--;
		}
		pct[j] = rank;
		val[j] = (uint64_t)v->num;
	}
	double count = jv_num(o, "count", jv_num(o, "N", 0));
	l->count = count > 0 ? (uint64_t)count : 0;
	l->min = (uint64_t)fmax(0, jv_num(o, "min", 0));
	l->max = (uint64_t)fmax(0, jv_num(o, "max", 0));
	l->mean = jv_num(o, "mean", 0);
	l->stddev = jv_num(o, "stddev", 0);
	l->npct = k;
	l->pct = pct;
	l->value = val;
	fs->lat[fs->nlat++] = l;
	return l;
}

static void add_num(struct fields *fs, const char *key, double v)
{
	struct iob_field *f = fields_add(fs, key);
	if (!f)
		return;
	f->unit = unit_of(key);
	if (isfinite(v) && v == floor(v) && v >= 0 && v < 9.2e18) {
		f->type = IOB_T_U64;
		f->v.u = (uint64_t)v;
	} else if (isfinite(v) && v == floor(v) && v < 0 && v > -9.2e18) {
		f->type = IOB_T_I64;
		f->v.i = (int64_t)v;
	} else {
		f->type = IOB_T_F64;
		f->v.f = isfinite(v) ? v : 0;
	}
}

static void add_str(struct fields *fs, const char *key, const char *s)
{
	struct iob_field *f = fields_add(fs, key);
	if (f) {
		f->type = IOB_T_STR;
		f->v.s = s;
	}
}

/* One member of a record: a number, a string, null (an absent value), a
 * boolean, a latency summary; anything else is not a field of the model. */
static void add_value(struct fields *fs, const char *key, const struct jv *v)
{
	struct iob_field *f;
	switch (v->type) {
	case JV_NUMBER:
		add_num(fs, key, v->num);
		break;
	case JV_STRING:
		add_str(fs, key, v->str);
		break;
	case JV_NULL:
		add_str(fs, key, NULL);
		break;
	case JV_TRUE:
	case JV_FALSE:
		if ((f = fields_add(fs, key))) {
			f->type = IOB_T_BOOL;
			f->v.b = v->type == JV_TRUE;
		}
		break;
	case JV_OBJECT:
		if (jv_get(v, "percentiles") && (f = fields_add(fs, key))) {
			struct iob_latency *l = lat_of(fs, v);
			if (!l) {
				fs->n--;
				break;
			}
			f->type = IOB_T_LAT;
			f->unit = IOB_UNIT_NS;
			f->v.lat = l;
		}
		break;
	default:
		break;
	}
}

/* ---- the second pass: records to the output ------------------------------- */

struct render {
	struct result *r;
	struct iob_outputs *out;
	struct fields fs;
	int rc;
};

static int hand(struct render *x, const char *kind)
{
	if (x->fs.oom)
		return -ENOMEM;
	struct iob_record rec = {.kind = kind, .nfields = x->fs.n, .fields = x->fs.f};
	int rc = iob_outputs_record(x->out, &rec);
	fields_reset(&x->fs);
	return rc;
}

static int render_record(struct render *x, const struct jv *v, const char *kind)
{
	if (!kind)
		kind = jv_str(v, "kind");
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->keys[i], "kind") != 0)
			add_value(&x->fs, v->keys[i], &v->items[i]);
	return hand(x, kind ? kind : "record");
}

/* A fio job: one phase record per direction that moved bytes. */
static int render_fio_job(struct render *x, const struct jv *j)
{
	static const char *const dirs[3] = {"read", "write", "trim"};
	const char *name = jv_str(j, "jobname");
	const char *bs = jv_str(jv_get(j, "job options"), "bs");
	const char *gbs = jv_str(result_get(x->r, "global options"), "bs");
	const struct jv *du = result_get(x->r, "disk_util");
	const char *dev = du && du->type == JV_ARRAY && du->n ? jv_str(&du->items[0], "name") : NULL;
	int err = (int)jv_num(j, "error", 0);
	for (int d = 0; d < 3; d++) {
		const struct jv *o = jv_get(j, dirs[d]);
		if (!o || jv_num(o, "io_bytes", 0) <= 0)
			continue;
		add_str(&x->fs, "job", name);
		add_str(&x->fs, "phase", dirs[d]);
		add_str(&x->fs, "backend", jv_str(jv_get(j, "job options"), "ioengine"));
		add_num(&x->fs, "block_size_bytes", (double)iob_compare_fio_bs(bs ? bs : gbs, d == 1));
		add_num(&x->fs, "bytes", jv_num(o, "io_bytes", 0));
		add_num(&x->fs, "ops", jv_num(o, "total_ios", 0));
		add_num(&x->fs, "elapsed_s", jv_num(o, "runtime", 0) / 1000.0);
		add_num(&x->fs, "bw_bytes_per_s", jv_num(o, "bw_bytes", 0));
		add_num(&x->fs, "ops_per_s", jv_num(o, "iops", 0));
		const struct jv *lat = jv_get(o, "clat_ns");
		if (!jv_get(lat, "percentile"))
			lat = jv_get(o, "lat_ns");
		struct iob_field *f;
		if (lat && (f = fields_add(&x->fs, "lat_ns"))) {
			struct iob_latency *l = lat_of(&x->fs, lat);
			if (l) {
				f->type = IOB_T_LAT;
				f->unit = IOB_UNIT_NS;
				f->v.lat = l;
			} else {
				x->fs.n--;
			}
		}
		add_str(&x->fs, "device", dev);
		add_str(&x->fs, "status", err ? "error" : "ok");
		int rc = hand(x, "phase");
		if (rc != 0)
			return rc;
	}
	return 0;
}

static int skip_member(void *ctx, const char *key, const struct jv *v, char *err, size_t errlen)
{
	(void)ctx, (void)key, (void)v, (void)err, (void)errlen;
	return 0;
}

static int render_element(void *ctx, const char *key, size_t i, const struct jv *v, uint64_t at, char *err,
			  size_t errlen)
{
	struct render *x = ctx;
	(void)i, (void)at, (void)key;
	int rc = x->r->format == RF_FIO ? render_fio_job(x, v) : render_record(x, v, NULL);
	if (rc != 0 && x->rc == 0) {
		x->rc = rc;
		snprintf(err, errlen, "%s", iob_outputs_error(x->out) ? iob_outputs_error(x->out) : strerror(-rc));
	}
	return rc;
}

/* The comparison of compare.c, one "comparison" record per phase and figure. */
static int render_comparison(struct render *x, const char *json, char *err, size_t errlen)
{
	struct jv root;
	char why[256];
	if (jv_parse(json, strlen(json), &root, why, sizeof why) != 0) {
		snprintf(err, errlen, "the comparison could not be read back: %s", why);
		return -EINVAL;
	}
	const struct jv *cmp = jv_get(&root, "comparisons");
	int rc = 0;
	for (size_t i = 0; cmp && cmp->type == JV_ARRAY && i < cmp->n && rc == 0; i++)
		rc = render_record(x, &cmp->items[i], "comparison");
	jv_free(&root);
	if (rc != 0)
		snprintf(err, errlen, "%s", iob_outputs_error(x->out) ? iob_outputs_error(x->out) : strerror(-rc));
	return rc;
}

/* ---- the command ---------------------------------------------------------- */

int iob_report_main(const struct iob_registry *reg, int argc, char **argv)
{
	const char *paths[2] = {NULL, NULL}, *outpath = NULL;
	size_t npaths = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
			if (i + 1 >= argc || !*argv[i + 1])
				return iob_cli_fail(IOB_EXIT_USAGE, "report: %s needs a file name", a);
			if (outpath)
				return iob_cli_fail(IOB_EXIT_USAGE, "report: give one output file (-o FILE.html)");
			outpath = argv[++i];
		} else if (a[0] == '-' && a[1]) {
			return iob_cli_fail(IOB_EXIT_USAGE, "report: unknown option '%s' (see iobench --help)", a);
		} else if (npaths < 2) {
			paths[npaths++] = a;
		} else {
			return iob_cli_fail(IOB_EXIT_USAGE, "report: unexpected argument '%s': give RESULT, or BASE and NEW",
					    a);
		}
	}
	if (npaths == 0)
		return iob_cli_fail(IOB_EXIT_USAGE, "report needs a result file: iobench report RESULT.json [-o FILE.html]");
	char err[2048];
	struct iob_output_spec *spec = calloc(1, sizeof *spec);
	if (!spec)
		return iob_cli_fail(IOB_EXIT_FAIL, "report: out of memory");
	spec->n = 1;
	snprintf(spec->item[0].name, sizeof spec->item[0].name, "html");
	if (outpath && snprintf(spec->item[0].file, sizeof spec->item[0].file, "%s", outpath) >=
			   (int)sizeof spec->item[0].file) {
		free(spec);
		return iob_cli_fail(IOB_EXIT_USAGE, "report: output file name too long");
	}
	/* the output: never over an input (same device and inode, or the same
	 * file still to be made), checked before anything is read or created */
	int rc = iob_output_spec_check_paths(spec, paths, npaths, err, sizeof err);
	if (rc == 0 && outpath)
		rc = iob_outfile_check("report html file", outpath, IOB_OUT_CHARDEV, err, sizeof err);
	if (rc == 0 && !iob_registry_find(reg, IOB_PLUGIN_OUTPUT, "html")) {
		char why[512];
		iob_registry_missing(reg, IOB_PLUGIN_OUTPUT, "html", why, sizeof why);
		snprintf(err, sizeof err, "%s", why);
		rc = -1;
	}
	if (rc != 0) {
		free(spec);
		return iob_cli_fail(IOB_EXIT_USAGE, "report: %s", err);
	}
	/* the first pass: every input read whole and checked */
	struct result res[2];
	memset(res, 0, sizeof res);
	for (size_t i = 0; i < npaths && rc == 0; i++)
		rc = read_result(&res[i], paths[i], err, sizeof err);
	char *cmp = NULL;
	if (rc == 0 && npaths == 2 && iob_compare_to_json(paths[0], paths[1], 0.05, 0.05, &cmp, err, sizeof err) != 0)
		rc = -1;
	for (size_t i = 0; rc == 0 && i < npaths; i++)
		if (iob_outfiles_guard(paths[i]) != 0) {
			snprintf(err, sizeof err, "out of memory");
			rc = -1;
		}
	if (rc != 0) {
		for (size_t i = 0; i < npaths; i++)
			result_free(&res[i]);
		free(cmp);
		free(spec);
		return iob_cli_fail(IOB_EXIT_USAGE, "report: %s", err);
	}
	/* the page is NEW's (the only file's) */
	struct result *r = &res[npaths - 1];
	struct iob_outputs *out = NULL;
	if (iob_outputs_open(&out, reg, spec, err, sizeof err) != 0) {
		for (size_t i = 0; i < npaths; i++)
			result_free(&res[i]);
		free(cmp);
		free(spec);
		return iob_cli_fail(IOB_EXIT_USAGE, "report: %s", err);
	}
	free(spec);
	const struct jv *sch = result_get(r, "schema");
	struct iob_run_info info = {
	    .struct_size = sizeof info,
	    .tool = r->format == RF_FIO ? "fio" : result_str(r, "tool"),
	    .version = r->format == RF_FIO ? result_str(r, "fio version") : result_str(r, "version"),
	    .host = result_str(r, "host"),
	    .started = r->format == RF_FIO ? result_str(r, "time") : result_str(r, "started"),
	    .source = result_str(r, "source"),
	    .kernel = result_str(r, "kernel"),
	    .schema = sch && sch->type == JV_NUMBER ? (uint32_t)sch->num : 0,
	};
	err[0] = '\0';
	rc = iob_outputs_commit(out, err, sizeof err);
	if (rc == 0)
		rc = iob_outputs_begin(out, &info);
	struct render x = {.r = r, .out = out};
	/* which files the page is made from */
	add_str(&x.fs, "input", r->path);
	add_str(&x.fs, "format", r->format == RF_FIO ? "fio" : "iobench");
	if (npaths == 2)
		add_str(&x.fs, "base", res[0].path);
	if (rc == 0)
		rc = hand(&x, "report");
	if (rc == 0) {
		struct scan *s = calloc(1, sizeof *s);
		if (!s) {
			rc = -ENOMEM;
		} else {
			s->path = r->path;
			if (!(s->f = open_result(r->path, err, sizeof err))) {
				rc = -EIO;
			} else {
				struct walker w = {skip_member, render_element, &x};
				rc = walk(s, &w, err, sizeof err);
				fclose(s->f);
			}
			free(s->val.d);
			free(s);
		}
	}
	if (rc == 0 && cmp)
		rc = render_comparison(&x, cmp, err, sizeof err);
	free(cmp);
	/* how the run ended, and its notes */
	const struct jv *notes = result_get(r, "notes");
	size_t nn = notes && notes->type == JV_ARRAY ? notes->n : 0;
	const char **nv = calloc(nn + 1, sizeof *nv);
	size_t k = 0;
	for (size_t i = 0; nv && i < nn; i++)
		if (notes->items[i].type == JV_STRING)
			nv[k++] = notes->items[i].str;
	const char *status = result_str(r, "status");
	const struct jv *intr = result_get(r, "interrupted");
	struct iob_run_end end = {
	    .struct_size = sizeof end,
	    .status = status && strcmp(status, "ok") != 0 ? -1 : 0,
	    .interrupted = intr && intr->type == JV_TRUE,
	    .error = status && strcmp(status, "ok") != 0 ? result_str(r, "error") : NULL,
	    .nnotes = k,
	    .notes = nv,
	};
	if (r->format == RF_FIO) {
		end.status = 0;
		end.error = NULL;
	}
	int erc = iob_outputs_end(out, &end);
	if (rc == 0)
		rc = erc;
	free(nv);
	fields_free(&x.fs);
	char cerr[1024];
	int crc = iob_outputs_close_err(out, cerr, sizeof cerr);
	for (size_t i = 0; i < npaths; i++)
		result_free(&res[i]);
	if (rc == 0 && crc != 0)
		return iob_cli_fail(IOB_EXIT_FAIL, "report: %s", cerr);
	if (rc != 0)
		return iob_cli_fail(IOB_EXIT_FAIL, "report: %s", err[0] ? err : cerr[0] ? cerr : strerror(rc < 0 ? -rc : EIO));
	return 0;
}
