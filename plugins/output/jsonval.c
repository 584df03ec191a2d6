/*
 * jsonval.c - JSON values of the result model, shared by the json and
 * fio-json outputs (jsonval.h): numbers, strings (escaped, always valid
 * UTF-8), latency summaries and record fields.
 */
#include "jsonval.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Shortest of %.15g..%.17g reading back as v, with '.' as the decimal point
 * whatever the locale says.  v must be finite. */
void jsonval_f64(struct textbuf *b, double v)
{
	if (!isfinite(v))
		v = 0.0;
	/* written in place: room for the longest (24 bytes) and ".0" */
	char *at = textbuf_claim(b, 48);
	if (!at)
		return;
	size_t n = textbuf_fmt_double_n(v, at, 48);
	if (!memchr(at, '.', n) && !memchr(at, 'e', n)) {
		memcpy(at + n, ".0", 2); /* keep an F64 recognisable as a float */
		n += 2;
	}
	b->len -= 48 - n;
	b->data[b->len] = '\0';
}

/* Printed as it is inside a JSON string: printable ASCII but '"' and '\\'
 * (a table, so a key is scanned at a few instructions a byte). */
static const unsigned char plain_byte[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

static inline int plain(unsigned char c)
{
	return plain_byte[c];
}

/* s quoted, then tail (1 byte or none), in one claim of the buffer when
 * every byte of s is plain (keys and most values): 0 when s is not. */
static int str_plain(struct textbuf *b, const char *s, char tail)
{
	size_t n = 0;
	while (plain((unsigned char)s[n]))
		n++;
	if (s[n])
		return 0;
	char *o = textbuf_claim(b, n + 2 + (tail != 0));
	if (o) {
		o[0] = '"';
		memcpy(o + 1, s, n);
		o[n + 1] = '"';
		if (tail)
			o[n + 2] = tail;
	}
	return 1;
}

void jsonval_str(struct textbuf *b, const char *s)
{
	if (!s) {
		textbuf_str(b, "null");
		return;
	}
	if (str_plain(b, s, 0))
		return;
	const unsigned char *p = (const unsigned char *)s;
	textbuf_add(b, "\"", 1);
	while (*p) {
		const unsigned char *run = p;
		while (plain(*p))
			p++;
		textbuf_add(b, (const char *)run, (size_t)(p - run));
		if (!*p)
			break;
		if (*p == '"' || *p == '\\') {
			char esc[2] = {'\\', (char)*p};
			textbuf_add(b, esc, 2);
			p++;
		} else if (*p < 0x20 || *p == 0x7f) {
			textbuf_printf(b, "\\u%04x", (unsigned)*p);
			p++;
		} else {
			uint32_t cp = 0;
			size_t n = textbuf_utf8((const char *)p, &cp);
			if (n && cp >= 0x80 && cp <= 0x9f) { /* C1 controls: escaped like C0 */
				textbuf_printf(b, "\\u%04x", (unsigned)cp);
				p += n;
			} else if (n) {
				textbuf_add(b, (const char *)p, n);
				p += n;
			} else {
				textbuf_str(b, "\\ufffd");
				p++;
			}
		}
	}
	textbuf_add(b, "\"", 1);
}

void jsonval_lat(struct textbuf *b, const struct iob_latency *lat)
{
	if (!lat) {
		textbuf_str(b, "null");
		return;
	}
	textbuf_printf(b,
		       "{\"count\":%" PRIu64 ",\"min\":%" PRIu64 ",\"max\":%" PRIu64 ",\"mean\":", lat->count,
		       lat->min, lat->max);
	jsonval_f64(b, lat->mean);
	textbuf_str(b, ",\"stddev\":");
	jsonval_f64(b, lat->stddev);
	textbuf_str(b, ",\"percentiles\":{");
	size_t n = (lat->pct && lat->value) ? lat->npct : 0;
	for (size_t i = 0; i < n; i++) {
		char rank[48];
		double p = isfinite(lat->pct[i]) ? lat->pct[i] : 0.0;
		textbuf_fmt_double(p, rank, sizeof(rank));
		textbuf_str(b, i ? ",\"" : "\"");
		textbuf_str(b, rank);
		textbuf_printf(b, "\":%" PRIu64, lat->value[i]);
	}
	textbuf_str(b, "}}");
}

/* Types this output knows; fields of others are skipped (see the top). */
int jsonval_known_type(const struct iob_field *f)
{
	return f->type <= IOB_T_LAT;
}

void jsonval_field(struct textbuf *b, const struct iob_field *f)
{
	const char *key = f->key ? f->key : "";
	if (!str_plain(b, key, ':')) {
		jsonval_str(b, key);
		textbuf_add(b, ":", 1);
	}
	/* by type here, not through textbuf_scalar's table of ways: a block
	 * record's six values cost about 20 instructions less each */
	switch (f->type) {
	case IOB_T_U64:
	case IOB_T_I64:
		textbuf_integer(b, f);
		break;
	case IOB_T_F64:
		jsonval_f64(b, f->v.f);
		break;
	case IOB_T_STR:
		jsonval_str(b, f->v.s);
		break;
	case IOB_T_BOOL:
		if (f->v.b)
			textbuf_add(b, "true", 4);
		else
			textbuf_add(b, "false", 5);
		break;
	case IOB_T_LAT:
		jsonval_lat(b, f->v.lat);
		break;
	default:
		textbuf_add(b, "null", 4); /* not reached: jsonval_known_type */
	}
}

void jsonval_run_info(struct textbuf *b, const struct iob_run_info *run)
{
	static const struct iob_run_info none = {0};
	if (!run || run->struct_size < offsetof(struct iob_run_info, source) + sizeof(const char *))
		run = &none;
	/* ABI 1.1: the kernel and the record schema's version (a 1.0 core has
	 * neither: the schema is then 1) */
	int v11 = run->struct_size >= offsetof(struct iob_run_info, schema) + sizeof run->schema;
	const struct {
		const char *key, *val;
	} facts[] = {{"tool", run->tool},       {"version", run->version}, {"host", run->host},
		     {"started", run->started}, {"source", run->source},   {"kernel", v11 ? run->kernel : NULL}};
	for (size_t i = 0; i < sizeof facts / sizeof facts[0]; i++) {
		textbuf_str(b, i ? ",\"" : "\"");
		textbuf_str(b, facts[i].key);
		textbuf_str(b, "\":");
		jsonval_str(b, facts[i].val);
	}
	char schema[16];
	snprintf(schema, sizeof schema, "%u", v11 && run->schema ? run->schema : 1u);
	textbuf_str(b, ",\"schema\":");
	textbuf_str(b, schema);
}

void jsonval_run_end(struct textbuf *b, const struct iob_run_end *end, const char *error)
{
	textbuf_str(b, "\"notes\":[");
	size_t k = 0;
	for (size_t i = 0; end && end->notes && i < end->nnotes; i++) {
		if (!end->notes[i])
			continue;
		textbuf_str(b, k++ ? "," : "");
		jsonval_str(b, end->notes[i]);
	}
	textbuf_str(b, "],\n\"status\":");
	textbuf_str(b, error ? "\"error\"" : "\"ok\"");
	textbuf_str(b, ",\"interrupted\":");
	textbuf_str(b, end && end->interrupted ? "true" : "false");
	if (error) {
		textbuf_str(b, ",\"error\":");
		jsonval_str(b, error);
	}
}
