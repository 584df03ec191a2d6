/*
 * jsonread.c - the JSON reader of `iobench compare` (jsonread.h): recursive
 * descent over the whole text, values copied into a tree.
 */
#include "jsonread.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JV_MAX_DEPTH 64

struct jp {
	const char *s;
	size_t len, pos;
	char *err;
	size_t errlen;
	int failed;
};

static int fail(struct jp *p, const char *what)
{
	if (!p->failed) {
		if (p->pos >= p->len)
			snprintf(p->err, p->errlen, "ends early (truncated?) at byte %zu", p->pos);
		else if ((unsigned char)p->s[p->pos] >= 0x20 && (unsigned char)p->s[p->pos] < 0x7f)
			snprintf(p->err, p->errlen, "%s: unexpected '%c' at byte %zu", what, p->s[p->pos], p->pos);
		else
			snprintf(p->err, p->errlen, "%s: unexpected byte 0x%02x at byte %zu", what,
				 (unsigned char)p->s[p->pos], p->pos);
	}
	p->failed = 1;
	return -1;
}

static void ws(struct jp *p)
{
	while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' || p->s[p->pos] == '\n' ||
				   p->s[p->pos] == '\r'))
		p->pos++;
}

static int value(struct jp *p, struct jv *v, int depth);

static int hex4(struct jp *p, unsigned *out)
{
	unsigned u = 0;
	for (int i = 0; i < 4; i++) {
		if (p->pos >= p->len)
			return fail(p, "string");
		char c = p->s[p->pos++];
		u <<= 4;
		if (c >= '0' && c <= '9')
			u |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			u |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			u |= (unsigned)(c - 'A' + 10);
		else {
			p->pos--;
			return fail(p, "\\u escape");
		}
	}
	*out = u;
	return 0;
}

static size_t put_utf8(char *d, unsigned cp)
{
	if (cp < 0x80) {
		d[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		d[0] = (char)(0xc0 | (cp >> 6));
		d[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		d[0] = (char)(0xe0 | (cp >> 12));
		d[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		d[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	d[0] = (char)(0xf0 | (cp >> 18));
	d[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	d[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	d[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* p->pos at the opening quote. */
static int string(struct jp *p, char **out)
{
	p->pos++;
	size_t start = p->pos, n = 0;
	/* the decoded text is never longer than the raw text */
	while (p->pos < p->len && p->s[p->pos] != '"') {
		if (p->s[p->pos] == '\\')
			p->pos++;
		p->pos++;
	}
	if (p->pos >= p->len)
		return fail(p, "string");
	size_t end = p->pos;
	char *d = malloc(end - start + 1);
	if (!d) {
		snprintf(p->err, p->errlen, "out of memory");
		p->failed = 1;
		return -1;
	}
	for (p->pos = start; p->pos < end;) {
		unsigned char c = (unsigned char)p->s[p->pos];
		if (c < 0x20) {
			free(d);
			return fail(p, "string");
		}
		if (c != '\\') {
			d[n++] = (char)c;
			p->pos++;
			continue;
		}
		p->pos++;
		char e = p->s[p->pos++];
		unsigned cp;
		switch (e) {
		case '"': d[n++] = '"'; break;
		case '\\': d[n++] = '\\'; break;
		case '/': d[n++] = '/'; break;
		case 'b': d[n++] = '\b'; break;
		case 'f': d[n++] = '\f'; break;
		case 'n': d[n++] = '\n'; break;
		case 'r': d[n++] = '\r'; break;
		case 't': d[n++] = '\t'; break;
		case 'u':
			if (hex4(p, &cp) != 0) {
				free(d);
				return -1;
			}
			if (cp >= 0xd800 && cp < 0xdc00 && p->pos + 6 <= end && p->s[p->pos] == '\\' &&
			    p->s[p->pos + 1] == 'u') {
				unsigned lo;
				p->pos += 2;
				if (hex4(p, &lo) != 0) {
					free(d);
					return -1;
				}
				cp = lo >= 0xdc00 && lo < 0xe000 ? 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00)
								 : 0xfffd;
			} else if (cp >= 0xd800 && cp < 0xe000) {
				cp = 0xfffd;
			}
			n += put_utf8(d + n, cp);
			break;
		default:
			p->pos--;
			free(d);
			return fail(p, "string escape");
		}
	}
	d[n] = '\0';
	p->pos = end + 1;
	*out = d;
	return 0;
}

/* Skip the decimal digits at p->pos: how many there were. */
static size_t skip_digits(struct jp *p)
{
	size_t from = p->pos;
	while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
		p->pos++;
	return p->pos - from;
}

static int number(struct jp *p, struct jv *v)
{
	size_t start = p->pos;
	if (p->s[p->pos] == '-')
		p->pos++;
	if (!skip_digits(p))
		return fail(p, "number");
	if (p->pos < p->len && p->s[p->pos] == '.') {
		p->pos++;
		if (!skip_digits(p))
			return fail(p, "number");
	}
	if (p->pos < p->len && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
		p->pos++;
		if (p->pos < p->len && (p->s[p->pos] == '+' || p->s[p->pos] == '-'))
			p->pos++;
		if (!skip_digits(p))
			return fail(p, "number");
	}
	char buf[64];
	size_t n = p->pos - start;
	if (n >= sizeof buf) { /* longer than any double needs: still read it */
		char *t = malloc(n + 1);
		if (t) {
			memcpy(t, p->s + start, n);
			t[n] = '\0';
		}
		v->num = t ? strtod(t, NULL) : NAN;
		free(t);
	} else {
		memcpy(buf, p->s + start, n);
		buf[n] = '\0';
		v->num = strtod(buf, NULL);
	}
	v->type = JV_NUMBER;
	return 0;
}

static int literal(struct jp *p, const char *word, enum jv_type t, struct jv *v)
{
	size_t n = strlen(word);
	for (size_t i = 0; i < n; i++, p->pos++)
		if (p->pos >= p->len || p->s[p->pos] != word[i])
			return fail(p, "value");
	v->type = t;
	return 0;
}

static int grow(struct jv *v, size_t *cap, int object)
{
	if (v->n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 8;
	struct jv *it = realloc(v->items, c * sizeof *it);
	if (!it)
		return -1;
	v->items = it;
	if (object) {
		char **k = realloc(v->keys, c * sizeof *k);
		if (!k)
			return -1;
		v->keys = k;
	}
	*cap = c;
	return 0;
}

static int compound(struct jp *p, struct jv *v, int depth, int object)
{
	size_t cap = 0;
	v->type = object ? JV_OBJECT : JV_ARRAY;
	p->pos++;
	ws(p);
	if (p->pos < p->len && p->s[p->pos] == (object ? '}' : ']')) {
		p->pos++;
		return 0;
	}
	for (;;) {
		ws(p);
		if (grow(v, &cap, object) != 0) {
			snprintf(p->err, p->errlen, "out of memory");
			p->failed = 1;
			return -1;
		}
		struct jv *it = &v->items[v->n];
		memset(it, 0, sizeof *it);
		if (object) {
			if (p->pos >= p->len || p->s[p->pos] != '"')
				return fail(p, "object key");
			if (string(p, &v->keys[v->n]) != 0)
				return -1;
			ws(p);
			if (p->pos >= p->len || p->s[p->pos] != ':') {
				free(v->keys[v->n]);
				return fail(p, "object");
			}
			p->pos++;
		}
		v->n++;
		if (value(p, it, depth + 1) != 0)
			return -1;
		ws(p);
		if (p->pos >= p->len)
			return fail(p, object ? "object" : "array");
		if (p->s[p->pos] == ',') {
			p->pos++;
			continue;
		}
		if (p->s[p->pos] == (object ? '}' : ']')) {
			p->pos++;
			return 0;
		}
		return fail(p, object ? "object" : "array");
	}
}

static int value(struct jp *p, struct jv *v, int depth)
{
	if (depth > JV_MAX_DEPTH) {
		snprintf(p->err, p->errlen, "nested deeper than %d at byte %zu", JV_MAX_DEPTH, p->pos);
		p->failed = 1;
		return -1;
	}
	ws(p);
	if (p->pos >= p->len)
		return fail(p, "value");
	switch (p->s[p->pos]) {
	case '{':
		return compound(p, v, depth, 1);
	case '[':
		return compound(p, v, depth, 0);
	case '"':
		v->type = JV_STRING;
		return string(p, &v->str);
	case 't':
		return literal(p, "true", JV_TRUE, v);
	case 'f':
		return literal(p, "false", JV_FALSE, v);
	case 'n':
		return literal(p, "null", JV_NULL, v);
	default:
		return number(p, v);
	}
}

int jv_parse(const char *text, size_t len, struct jv *out, char *err, size_t errlen)
{
	struct jp p = {.s = text, .len = len, .err = err, .errlen = errlen};
	memset(out, 0, sizeof *out);
	if (value(&p, out, 0) == 0) {
		ws(&p);
		if (p.pos == len)
			return 0;
		fail(&p, "after the document");
	}
	jv_free(out);
	return -1;
}

void jv_free(struct jv *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++) {
		jv_free(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
	memset(v, 0, sizeof *v);
}

const struct jv *jv_get(const struct jv *v, const char *key)
{
	if (!v || v->type != JV_OBJECT)
		return NULL;
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->keys[i], key) == 0)
			return &v->items[i];
	return NULL;
}

double jv_num(const struct jv *v, const char *key, double def)
{
	const struct jv *m = jv_get(v, key);
	return m && m->type == JV_NUMBER ? m->num : def;
}

const char *jv_str(const struct jv *v, const char *key)
{
	const struct jv *m = jv_get(v, key);
	return m && m->type == JV_STRING ? m->str : NULL;
}
