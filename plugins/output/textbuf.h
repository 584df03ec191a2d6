/*
 * textbuf.h - a growable text buffer and a locale-proof double formatter,
 * shared by the output plugins (compiled into each; nothing is exported).
 * An append that cannot allocate sets `oom` and the buffer must then not be
 * written out.
 */
#ifndef IOB_OUTPUT_TEXTBUF_H
#define IOB_OUTPUT_TEXTBUF_H

#include <stddef.h>

#include "iobench/plugin.h"

struct textbuf {
	char *data; /* NUL-terminated once anything was added */
	size_t len, cap;
	int oom; /* an append failed */
};

void textbuf_add(struct textbuf *b, const char *s, size_t n);
void textbuf_str(struct textbuf *b, const char *s);
/* For short numbers only: output over 127 bytes sets oom. */
void textbuf_printf(struct textbuf *b, const char *fmt, ...) IOB_PRINTF(2, 3);
void textbuf_clear(struct textbuf *b); /* keeps the memory */
void textbuf_free(struct textbuf *b);
/* Shortest of %.15g..%.17g that reads back as v, always with '.' as the
 * decimal point whatever the locale says; inf and nan print as 0. */
void textbuf_fmt_double(double v, char *out, size_t outlen);

#endif
