/*
 * textbuf.c - growable text buffer and double formatting for the output
 * plugins (textbuf.h).
 */
#include "textbuf.h"

#include <ctype.h>
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
