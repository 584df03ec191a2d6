/*
 * human_values.c - the human output's text cells and their widths, and the
 * numbers scaled for display only.  A room of human.c (its map).
 */
#include "human_int.h"

/* Append a string for a terminal: every byte that is not part of a
 * printable UTF-8 character (C0 and C1 controls, DEL, invalid UTF-8) as
 * \xNN (textbuf_term); NULL as "-". */
void human_buf_text(struct textbuf *b, const char *s)
{
	if (!s) {
		textbuf_str(b, "-");
		return;
	}
	textbuf_term(b, s);
}

/* Columns a UTF-8 string takes: continuation bytes take none. */
size_t human_width(const char *s)
{
	return textbuf_columns(s);
}

static void human_pad(struct textbuf *b, size_t n)
{
	static const char spaces[] = "                                ";
	while (n > 0) {
		size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;
		textbuf_add(b, spaces, k);
		n -= k;
	}
}

/* Append text in a column of `width`, right- or left-aligned. */
void human_put_cell(struct textbuf *b, const char *text, size_t width, int right)
{
	size_t w = human_width(text);
	size_t pad = w < width ? width - w : 0;
	if (right)
		human_pad(b, pad);
	textbuf_str(b, text);
	if (!right)
		human_pad(b, pad);
}

/* Move a finished line into out, without trailing blanks. */
void human_end_line(struct textbuf *out, struct textbuf *line)
{
	size_t n = line->len;
	while (n > 0 && line->data[n - 1] == ' ')
		n--;
	if (line->oom)
		out->oom = 1;
	textbuf_add(out, line->data ? line->data : "", n);
	textbuf_add(out, "\n", 1);
	textbuf_clear(line);
}

/* ------------------------------------------------------------------------ */
/* Numbers, scaled for display only.                                         */

/* 3-4 significant digits: 1.00, 43.67, 436.7, 1023. */
static void human_sig(struct textbuf *b, double v, const char *unit)
{
	double a = fabs(v);
	int prec = a < 100.0 ? 2 : a < 1000.0 ? 1 : 0;
	textbuf_printf(b, "%.*f%s", prec, v, unit);
}

/* Bytes (per_s = 0) or bytes per second (per_s = 1) in 2^10 steps. */
static void human_bytes(struct textbuf *b, double v, int per_s)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	size_t i = 0;
	while (fabs(v) >= 1024.0 && i + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1024.0;
		i++;
	}
	char u[16];
	snprintf(u, sizeof(u), " %s%s", unit[i], per_s ? "/s" : "");
	if (i == 0 && v == floor(v))
		textbuf_printf(b, "%.0f%s", v, u);
	else
		human_sig(b, v, u);
}

/* Nanoseconds as ns, us, ms or s. */
void human_ns(struct textbuf *b, double v)
{
	static const char *const unit[] = {" ns", " us", " ms", " s"};
	size_t i = 0;
	while (fabs(v) >= 1000.0 && i + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1000.0;
		i++;
	}
	if (i == 0 && v == floor(v))
		textbuf_printf(b, "%.0f%s", v, unit[i]);
	else
		human_sig(b, v, unit[i]);
}

/* Operations per second, with k/M/G once large. */
static void human_ops_rate(struct textbuf *b, double v)
{
	static const char *const unit[] = {"", "k", "M", "G", "T"};
	size_t i = 0;
	while (fabs(v) >= 1000.0 && i + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1000.0;
		i++;
	}
	human_sig(b, v, unit[i]);
}

double human_number(const struct iob_field *f)
{
	switch (f->type) {
	case IOB_T_U64:
		return (double)f->v.u;
	case IOB_T_I64:
		return (double)f->v.i;
	case IOB_T_F64:
		return isfinite(f->v.f) ? f->v.f : 0.0;
	default:
		return 0.0;
	}
}

static int human_is_number(const struct iob_field *f)
{
	return f->type == IOB_T_U64 || f->type == IOB_T_I64 || f->type == IOB_T_F64;
}

int human_is_scaled(const struct iob_field *f)
{
	switch (f->unit) {
	case IOB_UNIT_BYTES:
	case IOB_UNIT_BYTES_PER_S:
	case IOB_UNIT_NS:
	case IOB_UNIT_S:
	case IOB_UNIT_OPS_PER_S:
		return human_is_number(f);
	default:
		return 0;
	}
}

/* A double without a unit: %.6g, 0 for inf and nan (human_number). */
static void human_f64(struct textbuf *b, double v)
{
	textbuf_printf(b, "%.6g", isfinite(v) ? v : 0.0);
}

/* The value of a non-latency field as text. */
void human_value(struct textbuf *b, const struct iob_field *f)
{
	if (human_is_scaled(f)) {
		double v = human_number(f);
		switch (f->unit) {
		case IOB_UNIT_BYTES:
			human_bytes(b, v, 0);
			return;
		case IOB_UNIT_BYTES_PER_S:
			human_bytes(b, v, 1);
			return;
		case IOB_UNIT_NS:
			human_ns(b, v);
			return;
		case IOB_UNIT_S:
			textbuf_printf(b, "%.3f s", v);
			return;
		default:
			human_ops_rate(b, v);
			return;
		}
	}
	static const struct textbuf_scalars scalars = {human_f64, human_buf_text, "yes", "no"};
	if (!textbuf_scalar(b, f, &scalars))
		textbuf_str(b, "?");
}

/* The key without the unit suffix its shown value carries. */
void human_label(struct textbuf *b, const struct iob_field *f)
{
	static const struct {
		uint32_t unit;
		const char *suffix, *replace;
	} strip[] = {
		{IOB_UNIT_BYTES_PER_S, "_bytes_per_s", ""}, {IOB_UNIT_BYTES_PER_S, "_per_s", ""},
		{IOB_UNIT_BYTES, "_bytes", ""},             {IOB_UNIT_NS, "_ns", ""},
		{IOB_UNIT_S, "_s", ""},                     {IOB_UNIT_OPS_PER_S, "_per_s", "/s"},
	};
	const char *key = f->key ? f->key : "";
	size_t klen = strlen(key);
	int scaled = human_is_scaled(f) || f->type == IOB_T_LAT;
	for (size_t i = 0; scaled && i < sizeof(strip) / sizeof(strip[0]); i++) {
		uint32_t unit = f->type == IOB_T_LAT ? IOB_UNIT_NS : f->unit;
		size_t slen = strlen(strip[i].suffix);
		if (strip[i].unit != unit || klen <= slen || strcmp(key + klen - slen, strip[i].suffix) != 0)
			continue;
		char *copy = malloc(klen - slen + 1); /* (no strndup on Windows) */
		if (!copy) {
			b->oom = 1;
			return;
		}
		memcpy(copy, key, klen - slen);
		copy[klen - slen] = '\0';
		human_buf_text(b, copy);
		textbuf_str(b, strip[i].replace);
		free(copy);
		return;
	}
	human_buf_text(b, key);
}
