/*
 * textbuf.c - growable text buffer and double formatting for the output
 * plugins (textbuf.h).
 */
#include "textbuf.h"

#include "iobench/utf8.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void textbuf_add(struct textbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 1024;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *p = realloc(b->data, cap);
		if (!p) {
			b->oom = 1;
			return;
		}
		b->data = p;
		b->cap = cap;
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void textbuf_str(struct textbuf *b, const char *s)
{
	textbuf_add(b, s, strlen(s));
}

void textbuf_printf(struct textbuf *b, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		b->oom = 1;
		return;
	}
	textbuf_add(b, tmp, (size_t)n);
}

void textbuf_clear(struct textbuf *b)
{
	b->len = 0;
	b->oom = 0;
	if (b->data)
		b->data[0] = '\0';
}

void textbuf_free(struct textbuf *b)
{
	free(b->data);
	memset(b, 0, sizeof *b);
}

void textbuf_fmt_double(double v, char *out, size_t outlen)
{
	char tmp[48];
	if (!(v == v) || v - v != 0)
		v = 0.0; /* never inf or nan: JSON and CSV readers choke on them */
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	size_t o = 0;
	int in_point = 0;
	for (const char *p = tmp; *p && o + 1 < outlen; p++) {
		if (isdigit((unsigned char)*p) || *p == '-' || *p == '+' || *p == 'e') {
			out[o++] = *p;
			in_point = 0;
		} else if (!in_point) {
			out[o++] = '.'; /* the locale's decimal point, maybe several bytes */
			in_point = 1;
		}
	}
	out[o] = '\0';
}

size_t textbuf_utf8(const char *str, uint32_t *cp)
{
	return iob_utf8_at((const unsigned char *)str, cp);
}

/* Not a C0 or C1 control, nor DEL. */
static int printable(uint32_t cp)
{
	return cp >= 0x20 && cp != 0x7f && !(cp >= 0x80 && cp <= 0x9f);
}

/* Printable, or a tab or line end. */
static int printable_or_space(uint32_t cp)
{
	return cp == '\t' || cp == '\r' || cp == '\n' || printable(cp);
}

/* Append the characters at *s that keep() accepts, as they are, and move
 * *s past them: the length of the sequence that stopped the run (0 for an
 * invalid byte or the end). */
static size_t add_kept(struct textbuf *b, const char **s, int (*keep)(uint32_t))
{
	const char *run = *s;
	uint32_t cp = 0;
	size_t n;
	while ((n = textbuf_utf8(*s, &cp)) != 0 && keep(cp))
		*s += n;
	textbuf_add(b, run, (size_t)(*s - run));
	return n;
}

int textbuf_integer(struct textbuf *b, const struct iob_field *f)
{
	if (f->type == IOB_T_U64)
		textbuf_printf(b, "%" PRIu64, f->v.u);
	else if (f->type == IOB_T_I64)
		textbuf_printf(b, "%" PRId64, f->v.i);
	else
		return 0;
	return 1;
}

void textbuf_term(struct textbuf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	if (!s)
		return;
	while (*s) {
		size_t n = add_kept(b, &s, printable);
		if (!*s)
			break;
		if (n == 0)
			n = 1; /* one byte of an invalid sequence */
		for (size_t i = 0; i < n; i++) {
			unsigned char c = (unsigned char)s[i];
			char esc[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
			textbuf_add(b, esc, sizeof esc);
		}
		s += n;
	}
}

size_t textbuf_columns(const char *s)
{
	size_t w = 0;
	for (; s && *s; s++)
		if (((unsigned char)*s & 0xc0u) != 0x80u)
			w++;
	return w;
}

void textbuf_xml(struct textbuf *b, const char *s)
{
	if (!s)
		return;
	while (*s) {
		uint32_t cp = 0;
		size_t n = textbuf_utf8(s, &cp);
		if (n == 0 || (cp < 0x20 && cp != 0x9 && cp != 0xa && cp != 0xd) || (cp >= 0x7f && cp <= 0x9f) ||
		    cp == 0xfffe || cp == 0xffff) {
			textbuf_str(b, "\xef\xbf\xbd"); /* U+FFFD REPLACEMENT CHARACTER */
			s += n ? n : 1;
			continue;
		}
		static const char special[] = "&<>\"'";
		static const char *const entity[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
		const char *at = cp && cp < 0x80 ? strchr(special, (int)cp) : NULL;
		if (at)
			textbuf_str(b, entity[at - special]);
		else if (cp == 0x9 || cp == 0xa || cp == 0xd) /* kept as characters, not normalised away in attributes */
			textbuf_printf(b, "&#%u;", (unsigned)cp);
		else
			textbuf_add(b, s, n);
		s += n;
	}
}

void textbuf_clean(struct textbuf *b, const char *s)
{
	if (!s)
		return;
	while (*s) {
		size_t n = add_kept(b, &s, printable_or_space);
		if (!*s)
			break;
		textbuf_str(b, "\xef\xbf\xbd"); /* U+FFFD */
		s += n ? n : 1;
	}
}

void textbuf_log(const struct iob_host *host, const char *who, int level, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	if (!host || !host->log)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	host->log(level, who, "%s", line);
}

int textbuf_open_state(const struct iob_sink *sink, void **state, size_t size, size_t sink_at)
{
	if (!sink || !sink->write || !state)
		return -EINVAL;
	char *st = calloc(1, size);
	if (!st)
		return -ENOMEM;
	struct iob_sink *copy = (struct iob_sink *)(void *)(st + sink_at);
	*copy = *sink;
	if (!copy->name)
		copy->name = "output";
	*state = st;
	return 0;
}
