/*
 * report_scan.c - the streaming reader of `iobench report` (report_int.h):
 * a result file's top-level members, and the elements of its "records" or
 * "jobs" array one at a time, each parsed with jsonread.c and forgotten.
 */
#include "report_int.h"

/* ---- a growable byte buffer ------------------------------------------------ */

static int rbuf_add(struct rbuf *b, int c)
{
	if (b->len + 2 > b->cap && iob_grow(&b->d, &b->cap, b->cap, 1, 4096) < 0)
		return -ENOMEM;
	b->d[b->len++] = (char)c;
	b->d[b->len] = '\0';
	return 0;
}

/* ---- the streaming reader ------------------------------------------------- */

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

static int sc_unexpected(struct scan *s, int c, const char *what, char *err, size_t errlen)
{
	if (c < 0)
		return sc_trunc(s, err, errlen);
	snprintf(err, errlen, "'%s' is not %s: unexpected '%c' at byte %llu", s->path, what,
		 c >= 0x20 && c < 0x7f ? c : '?', (unsigned long long)(sc_at(s) ? sc_at(s) - 1 : 0));
	return -EINVAL;
}

/* After a member or an element: 1 at the closing character, 0 at a comma,
 * the error (negative) at anything else. */
static int sc_after(struct scan *s, int close, char *err, size_t errlen)
{
	sc_ws(s);
	int c = sc_get(s);
	if (c == close)
		return 1;
	if (c != ',')
		return sc_unexpected(s, c, "a whole JSON document", err, errlen);
	return 0;
}

/* The next value, handed to the walker: as element i of the array `name`,
 * or (i < 0) as the top-level member `name`. */
static int sc_hand(struct scan *s, const struct walker *w, const char *name, long long i, char *err,
		   size_t errlen)
{
	uint64_t at = sc_at(s);
	struct jv v;
	int rc = sc_value(s, &v, err, errlen);
	if (rc != 0)
		return rc;
	if (i < 0)
		rc = w->member(w->ctx, name, &v, err, errlen);
	else
		rc = w->element(w->ctx, name, (size_t)i, &v, at, err, errlen);
	jv_free(&v);
	return rc;
}

/* Walk one JSON document: an object whose members are handed over one by
 * one, its "records" or "jobs" array element by element. */
int rp_walk(struct scan *s, const struct walker *w, char *err, size_t errlen)
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
					if ((rc = sc_hand(s, w, name, (long long)i, err, errlen)) != 0)
						return rc;
					if ((rc = sc_after(s, ']', err, errlen)) < 0)
						return rc;
					if (rc)
						break;
				}
			}
		} else if ((rc = sc_hand(s, w, name, -1, err, errlen)) != 0) {
			return rc;
		}
		if ((rc = sc_after(s, '}', err, errlen)) < 0)
			return rc;
		if (rc)
			break;
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
FILE *rp_open_result(const char *path, char *err, size_t errlen)
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
