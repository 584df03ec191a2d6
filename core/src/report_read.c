/*
 * report_read.c - one result file of `iobench report` (report_int.h): the
 * first pass checks all of it and keeps its top-level members.
 */
#include "report_int.h"

/* ---- one result file --------------------------------------------------------- */

void rp_result_free(struct result *r)
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

const struct jv *rp_result_get(const struct result *r, const char *key)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->keys[i], key) == 0)
			return &r->vals[i];
	return NULL;
}

const char *rp_result_str(const struct result *r, const char *key)
{
	const struct jv *v = rp_result_get(r, key);
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
int rp_read_result(struct result *r, const char *path, char *err, size_t errlen)
{
	memset(r, 0, sizeof *r);
	r->path = path;
	struct scan *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->path = path;
	if (!(s->f = rp_open_result(path, err, errlen))) {
		free(s);
		return -EINVAL;
	}
	struct walker w = {keep_member, check_element, r};
	int rc = rp_walk(s, &w, err, errlen);
	fclose(s->f);
	free(s->val.d);
	free(s);
	if (rc != 0)
		return rc;
	const struct jv *schema = rp_result_get(r, "schema"), *fio = rp_result_get(r, "fio version");
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
	} else if (schema && !r->has_records && rp_result_get(r, "tool")) {
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
