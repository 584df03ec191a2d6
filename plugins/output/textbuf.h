/*
 * textbuf.h - a growable text buffer and a locale-proof double formatter,
 * shared by the output plugins (compiled into each; nothing is exported).
 * An append that cannot allocate sets `oom` and the buffer must then not be
 * written out.
 */
#ifndef IOB_OUTPUT_TEXTBUF_H
#define IOB_OUTPUT_TEXTBUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "iobench/plugin.h"

struct textbuf {
	char *data; /* NUL-terminated once anything was added */
	size_t len, cap;
	int oom; /* an append failed */
};

/* One line through the host's log as plugin `who`, formatted here (at most
 * 511 bytes); nothing without a host or a log.  Each output names it as
 * its own: #define my_log(level, ...) textbuf_log(my_host, MY_NAME, level, __VA_ARGS__) */
void textbuf_log(const struct iob_host *host, const char *who, int level, const char *fmt, ...) IOB_PRINTF(4, 5);

/* An output's open: a zeroed state of `size` bytes whose struct iob_sink at
 * `sink_at` is a copy of sink (named "output" when it has no name), in
 * *state.  -EINVAL for no sink, no write or no state; -ENOMEM. */
int textbuf_open_state(const struct iob_sink *sink, void **state, size_t size, size_t sink_at);

/* The order every output's calls must come in: begin_run once, then
 * records, then end_run once.  Each returns 0 when the call is in order;
 * else it logs the one error line as `who` ("begin_run called twice on
 * SINK", "record outside a run on SINK", "end_run called twice on SINK",
 * "end_run before begin_run on SINK") and returns -EINVAL.  A record is
 * also refused with the sticky sink error `err` when there is one, and with
 * -EINVAL (unlogged) when it is missing or has fields but no array. */
int textbuf_begin_ok(const struct iob_host *host, const char *who, const char *sink, int begun);
/* textbuf_begin_ok on *begun, which a begin_run in order sets to 1. */
int textbuf_begin(const struct iob_host *host, const char *who, const char *sink, int *begun);
int textbuf_record_ok(const struct iob_host *host, const char *who, const char *sink, int begun, int ended, int err,
		      const struct iob_record *rec);
int textbuf_end_ok(const struct iob_host *host, const char *who, const char *sink, int begun, int ended);
/* The error a document states for a run's end: NULL for a run that ended
 * well, end's error (or "run failed") for one that did not, and no_result
 * when end is missing or older than v1_size bytes: that is logged as who
 * ("end_run on SINK got no valid run end"), *end set to NULL and *rc to
 * -EINVAL. */
const char *textbuf_run_error(const struct iob_host *host, const char *who, const char *sink,
			      const struct iob_run_end **end, size_t v1_size, const char *no_result, int *rc);
/* An output that writes one document whose end comes at once (json,
 * fio-json): its name, the smallest run end it takes (ABI 1.0's), the
 * error a document without a result states, how its end is written
 * (put_end(state, end, error): error NULL when the run ended well, end
 * NULL when there was none) and what it frees at close (NULL: nothing but
 * the state). */
struct textbuf_doc {
	const char *who;
	size_t run_end_v1;
	const char *no_result;
	int (*put_end)(void *state, const struct iob_run_end *end, const char *error);
	void (*free)(void *state);
};
/* What such an output's state begins with: the sink, whose log its lines
 * go to, its document's ways, where the run is, the sink's first error
 * (sticky: nothing more is written). */
struct textbuf_out {
	struct iob_sink sink;
	const struct iob_host *host;
	const struct textbuf_doc *doc;
	int begun, ended;
	int err;
};
/* Its open: textbuf_open_state of `size` bytes beginning with a struct
 * textbuf_out for this host and doc. */
int textbuf_doc_open(const struct iob_sink *sink, void **state, size_t size, const struct iob_host *host,
		     const struct textbuf_doc *doc);
/* Its end_run: out of order (textbuf_end_ok), -EINVAL and nothing done;
 * else `ended` is set and the end written with textbuf_run_error's error
 * (a missing or too old run end: no_result, logged).  Returns put_end's
 * error, else -EINVAL for such a run end, else 0. */
int textbuf_doc_end_run(void *state, const struct iob_run_end *end);
/* Its close: a document not ended on a sink that has not failed gets its
 * end (no_result); then the output's free and the state's.  put_end's
 * error, or 0. */
int textbuf_doc_close(void *state);
/* Such an output's ops: {TEXTBUF_DOC_OPS(name)}, over its own name_open
 * (textbuf_doc_open), name_begin_run and name_record. */
#define TEXTBUF_DOC_OPS(p)                                                                                  \
	.open = p##_open, .begin_run = p##_begin_run, .record = p##_record, .end_run = textbuf_doc_end_run, \
	.close = textbuf_doc_close
/* Write len bytes to sink unless *err holds an earlier failure (then that
 * is returned); a failure is kept in *err and returned; else 0. */
int textbuf_sink_write(const struct iob_sink *sink, int *err, const char *data, size_t len);

void textbuf_add_grow(struct textbuf *b, const char *s, size_t n);
/* Room for n more bytes at the end, counted in len and NUL-terminated: the
 * caller writes them there.  NULL (oom set) when it cannot be had. */
char *textbuf_claim_grow(struct textbuf *b, size_t n);
static inline char *textbuf_claim(struct textbuf *b, size_t n)
{
	if (b->len + n < b->cap && !b->oom) {
		char *at = b->data + b->len;
		b->len += n;
		b->data[b->len] = '\0';
		return at;
	}
	return textbuf_claim_grow(b, n);
}
/* textbuf_add_grow inlined where the room is there already (a JSON record
 * makes about 35 of these). */
static inline void textbuf_add(struct textbuf *b, const char *s, size_t n)
{
	if (b->len + n < b->cap && !b->oom) {
		memcpy(b->data + b->len, s, n);
		b->len += n;
		b->data[b->len] = '\0';
		return;
	}
	textbuf_add_grow(b, s, n);
}
void textbuf_str(struct textbuf *b, const char *s);
/* For short numbers only: output over 127 bytes sets oom. */
void textbuf_printf(struct textbuf *b, const char *fmt, ...) IOB_PRINTF(2, 3);
void textbuf_clear(struct textbuf *b); /* keeps the memory */
void textbuf_free(struct textbuf *b);
/* Shortest of %.15g..%.17g that reads back as v, always with '.' as the
 * decimal point whatever the locale says; inf and nan print as 0. */
void textbuf_fmt_double(double v, char *out, size_t outlen);
/* The same, and the length it wrote. */
size_t textbuf_fmt_double_n(double v, char *out, size_t outlen);
/* The same by three %.Ng and strtod calls, the way it was done before
 * (test_outputs checks both agree on every value it draws). */
void textbuf_fmt_double_slow(double v, char *out, size_t outlen);

/* Length (1..4) of the valid UTF-8 sequence at s, its code point in *cp;
 * 0 when the byte at s does not start one (a stray continuation byte, an
 * overlong form such as C0 AF, a surrogate such as ED A0 80, a code point
 * beyond U+10FFFF, a sequence cut off) or s is at its terminating NUL. */
size_t textbuf_utf8(const char *s, uint32_t *cp);
/* Append the value of an integer field (IOB_T_U64, IOB_T_I64) in decimal
 * and return 1; 0, appending nothing, for a field of another type. */
int textbuf_integer(struct textbuf *b, const struct iob_field *f);
/* How an output writes a field's scalar values: a double, a string (NULL
 * for a string field without one), and the words of a bool. */
struct textbuf_scalars {
	void (*f64)(struct textbuf *b, double v);
	void (*str)(struct textbuf *b, const char *s);
	const char *yes, *no;
};
/* Append f's value when it is a scalar, and return 1: an integer in decimal
 * (textbuf_integer), a double, string or bool the output's way (how); 0,
 * appending nothing, for any other type (IOB_T_LAT). */
int textbuf_scalar(struct textbuf *b, const struct iob_field *f, const struct textbuf_scalars *how);
/* Append s for a terminal: every byte that is not part of a printable
 * UTF-8 character - C0 controls, DEL, the C1 controls U+0080..U+009F (both
 * bytes of their UTF-8 form) and each byte of an invalid sequence - as
 * \xNN; the rest as it is.  NULL appends nothing. */
void textbuf_term(struct textbuf *b, const char *s);
/* Columns the text textbuf_term appended takes (one per character). */
size_t textbuf_columns(const char *s);
/* Append s as XML 1.0 character data or an attribute value: & < > " '
 * as entities; a character XML 1.0 forbids (C0 controls, U+FFFE, U+FFFF),
 * the C1 controls, and each byte of an invalid UTF-8 sequence as U+FFFD,
 * so the document is well-formed whatever bytes s holds.  NULL appends
 * nothing. */
void textbuf_xml(struct textbuf *b, const char *s);
/* Append s as valid UTF-8 without terminal controls: TAB, CR, LF and
 * printable UTF-8 as they are; any other control character (C0, DEL, C1)
 * and each byte of an invalid sequence as U+FFFD.  NULL appends nothing. */
void textbuf_clean(struct textbuf *b, const char *s);

#endif
