/*
 * jsonread.h - a small JSON reader for `iobench compare` and `iobench report`
 * (which parses one record at a time): the whole text to a
 * tree of values (RFC 8259), with a depth limit and a one-line reason on
 * failure (where, and whether the text simply ended: a truncated file).
 */
#ifndef IOBENCH_JSONREAD_H
#define IOBENCH_JSONREAD_H

#include <stddef.h>

enum jv_type { JV_NULL, JV_FALSE, JV_TRUE, JV_NUMBER, JV_STRING, JV_ARRAY, JV_OBJECT };

struct jv {
	enum jv_type type;
	double num;
	char *str;	   /* JV_STRING: UTF-8, NUL-terminated (a \u0000 ends it early) */
	size_t n;	   /* JV_ARRAY, JV_OBJECT: members */
	struct jv *items;  /* n values */
	char **keys;	   /* JV_OBJECT: n keys */
};

/* Parse text[0..len) into *out.  Returns 0, or -1 with a reason in err
 * ("ends early (truncated?) at byte N", "unexpected 'x' at byte N"). */
int jv_parse(const char *text, size_t len, struct jv *out, char *err, size_t errlen);
void jv_free(struct jv *v);
/* The member of an object by key, or NULL (also when v is not an object). */
const struct jv *jv_get(const struct jv *v, const char *key);
/* A number member, or def when absent or not a number. */
double jv_num(const struct jv *v, const char *key, double def);
/* A string member, or NULL. */
const char *jv_str(const struct jv *v, const char *key);

#endif
