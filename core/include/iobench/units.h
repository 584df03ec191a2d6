/*
 * iobench/units.h - parsing and printing of sizes, counts and durations.
 *
 * Size suffixes (docs/profiles.md, "Units"), case-sensitive:
 *   none or B   bytes
 *   k K KiB     2^10        KB kB   10^3
 *   m M MiB     2^20        MB      10^6
 *   g G GiB     2^30        GB      10^9
 *   t T TiB     2^40        TB      10^12
 * "kb", "mb", "gb", "Kb"... are refused as ambiguous (bits or bytes, 2^10 or
 * 10^3?).  A decimal fraction is allowed when the result is a whole number of
 * bytes ("1.5K" = 1536, "0.5" is refused).  Overflow past 2^64-1 is refused.
 * Parsing is exact, in integers, with any number of digits: no double, so
 * "1.0000000000000000001K" is refused rather than rounded to 1024.
 */
#ifndef IOBENCH_UNITS_H
#define IOBENCH_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Parse a size; on error return -EINVAL or -ERANGE and write a one-line
 * reason naming the text into err. */
int iob_parse_size(const char *text, uint64_t *out, char *err, size_t errlen);
/* Plain non-negative integer, no suffix, no sign, no overflow. */
int iob_parse_u64(const char *text, uint64_t *out, char *err, size_t errlen);
/* Finite double, whole text consumed. */
int iob_parse_double(const char *text, double *out, char *err, size_t errlen);
/* Boolean: 1/0, true/false, yes/no, on/off. */
int iob_parse_bool(const char *text, int *out, char *err, size_t errlen);

/* Copy user text into out for a one-line message or the terminal: every
 * byte that is not part of a printable UTF-8 character - C0 controls, DEL,
 * the C1 controls U+0080..U+009F (both bytes of their UTF-8 form, e.g.
 * \xc2\x9b for a terminal's CSI), each byte of an invalid sequence (stray
 * 0x80-0xff, overlong forms, surrogates) - becomes \xNN, and text longer
 * than the buffer is cut with "..." (never inside a character or an
 * escape).  Returns out. */
const char *iob_quote(const char *text, char *out, size_t outlen);
/* iob_quote into a temporary that lives until the end of the statement. */
#define IOB_Q(text) iob_quote((text), (char[96]){0}, 96)

/* "4.00 KiB", "1.50 GiB", "512 B" */
void iob_format_bytes(double bytes, char *buf, size_t len);
/* "812 ns", "12.3 us", "4.56 ms", "1.23 s" */
void iob_format_ns(double ns, char *buf, size_t len);
/* A step of a scale: values from `at` up are shown divided by at, with
 * `digits` decimals and the suffix. */
struct iob_scale_step {
	double at;
	int digits;
	const char *suffix;
};
/* v on the first of the n steps (largest first) it reaches; the last step
 * (at 1: v itself) takes every smaller value, and NaN. */
void iob_format_scaled(double v, const struct iob_scale_step *steps, size_t n, char *buf, size_t len);

/* Room for one more element of `size` bytes in the array whose pointer is
 * at vp (T **), *cap of them allocated and n used: nothing to do while
 * n < *cap, else the allocation doubled (first elements when there were
 * none).  0, or -ENOMEM with the array and *cap unchanged. */
int iob_grow(void *vp, size_t *cap, size_t n, size_t size, size_t first);

/* free() on each of the n pointers (NULL ones do nothing); IOB_FREE_EACH(a,
 * b, ...) on a list of them, a struct's owned arrays before it is cleared. */
void iob_free_each(void *const *ptrs, size_t n);
#define IOB_FREE_EACH(...)                                                                         \
	iob_free_each((void *const[]){__VA_ARGS__}, sizeof((void *const[]){__VA_ARGS__}) / sizeof(void *))

#endif
