/*
 * compare_out.c - `iobench compare`'s results written: the human table, the
 * JSON document, the SVG picture.  A room of compare.c (its map).
 */
#include "compare_int.h"

static const char *const basis_name[] = {"none", "intervals", "repeats"};

/* ---- formatting ----------------------------------------------------------- */

static void fmt_value(char *s, size_t len, int f, double v)
{
	static const struct iob_scale_step lat[] = {{1e6, 2, " ms"}, {1e3, 2, " us"}, {1, 0, " ns"}};
	if (!isfinite(v))
		snprintf(s, len, "-");
	else if (f == 0)
		snprintf(s, len, "%.1f MiB/s", v / 1048576.0);
	else if (f == 1)
		snprintf(s, len, v >= 1e6 ? "%.0f" : "%.1f", v);
	else
		iob_format_scaled(v, lat, sizeof lat / sizeof lat[0], s, len);
}

static void json_str(struct buf *b, const char *s)
{
	bprintf(b, "\"");
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			bprintf(b, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			bprintf(b, "\\u%04x", *p);
		else
			bprintf(b, "%c", *p);
	}
	bprintf(b, "\"");
}

static void json_num(struct buf *b, double v)
{
	if (isfinite(v))
		bprintf(b, "%.17g", v);
	else
		bprintf(b, "null");
}

static void xml_text(struct buf *b, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '<')
			bprintf(b, "&lt;");
		else if (*p == '>')
			bprintf(b, "&gt;");
		else if (*p == '&')
			bprintf(b, "&amp;");
		else if (*p == '"')
			bprintf(b, "&quot;");
		else if (*p < 0x20)
			bprintf(b, "?");
		else
			bprintf(b, "%c", *p);
	}
}

static void bs_text(char *s, size_t len, uint64_t bs)
{
	if (!bs)
		snprintf(s, len, "-");
	else if (bs % (1ull << 20) == 0)
		snprintf(s, len, "%lluM", (unsigned long long)(bs >> 20));
	else if (bs % 1024 == 0)
		snprintf(s, len, "%lluK", (unsigned long long)(bs >> 10));
	else
		snprintf(s, len, "%llu", (unsigned long long)bs);
}

void human(struct buf *o, const struct side *b, const struct side *n, const struct result *r, size_t nr,
		  double alpha, double threshold, int any_iv, int any_none)
{
	bprintf(o, "iobench compare: BASE %s (%s), NEW %s (%s)\n", b->path, b->fio ? "fio" : "iobench", n->path,
		n->fio ? "fio" : "iobench");
	bprintf(o, "%.0f%% intervals of the change (alpha %g); a change below %g%% is never a regression\n\n",
		(1 - alpha) * 100, alpha, threshold * 100);
	int jw = 3; /* the job column: as wide as the longest name */
	for (size_t i = 0; i < nr; i++)
		jw = (int)strlen(r[i].b->job) > jw ? (int)strlen(r[i].b->job) : jw;
	jw = jw > 32 ? 32 : jw;
	bprintf(o, "%-*s %-5s %4s %-6s %12s %12s %7s  %-18s %-14s %s\n", jw, "job", "phase", "bs", "figure", "base",
		"new", "change", "interval", "basis", "verdict");
	for (size_t i = 0; i < nr; i++) {
		const struct result *x = &r[i];
		char vb[32], vn[32], bsz[32], ci[48] = "-", ch[24] = "-", basis[32];
		fmt_value(vb, sizeof vb, x->f, x->base);
		fmt_value(vn, sizeof vn, x->f, x->new_);
		bs_text(bsz, sizeof bsz, x->b->bs);
		if (isfinite(x->rel))
			snprintf(ch, sizeof ch, "%+.1f%%", x->rel * 100);
		if (x->basis != B_NONE)
			snprintf(ci, sizeof ci, "[%+.1f%%, %+.1f%%]", x->ch.ci_low * 100, x->ch.ci_high * 100);
		if (x->basis == B_NONE)
			snprintf(basis, sizeof basis, "none");
		else
			snprintf(basis, sizeof basis, "%s %.0f/%.0f", basis_name[x->basis], x->nb, x->nn);
		bprintf(o, "%-*s %-5s %4s %-6s %12s %12s %7s  %-18s %-14s %s%s\n", jw, x->b->job, x->b->phase, bsz,
			figs[x->f].label, vb, vn, ch, ci, basis, x->verdict, x->regression ? " (REGRESSION)" : "");
	}
	for (int s = 0; s < 2; s++) {
		const struct side *sd = s ? n : b;
		for (size_t i = 0; i < sd->n; i++) {
			const struct phase *p = &sd->ph[i];
			char bsz[32];
			bs_text(bsz, sizeof bsz, p->bs);
			if (!p->matched)
				bprintf(o, "not matched: job %s, %s phase, block size %s: only in %s\n", p->job, p->phase,
					bsz, s ? "NEW" : "BASE");
			else if (p->dup)
				bprintf(o, "not compared: job %s, %s phase, block size %s: more than one such job in %s\n",
					p->job, p->phase, bsz, s ? "NEW" : "BASE");
		}
	}
	if (any_iv)
		bprintf(o, "note: basis \"intervals\": samples taken within one run are not independent (a drift "
			   "or a stall touches several); their interval is narrower than the truth: repeat runs for a "
			   "test you can trust\n");
	if (any_none)
		bprintf(o, "note: basis \"none\": no samples on one side, so no change is called significant; "
			   "give repeat (or log_interval) to both runs\n");
	for (size_t i = 0; i < nr; i++)
		if (r[i].basis == B_NONE && r[i].why) {
			bprintf(o, "note: not tested (%s %s %s): %s\n", r[i].b->job, r[i].b->phase,
				figs[r[i].f].label, r[i].why);
		}
}

void json_out(struct buf *o, const struct side *b, const struct side *n, const struct result *r,
		     size_t nr, double alpha, double threshold, int regressed)
{
	bprintf(o, "{\"tool\":\"iobench compare\",\"base\":");
	json_str(o, b->path);
	bprintf(o, ",\"base_format\":\"%s\",\"new\":", b->fio ? "fio" : "iobench");
	json_str(o, n->path);
	bprintf(o, ",\"new_format\":\"%s\",\"alpha\":", n->fio ? "fio" : "iobench");
	json_num(o, alpha);
	bprintf(o, ",\"threshold_pct\":");
	json_num(o, threshold * 100);
	bprintf(o, ",\n\"comparisons\":[");
	for (size_t i = 0; i < nr; i++) {
		const struct result *x = &r[i];
		bprintf(o, "%s\n{\"job\":", i ? "," : "");
		json_str(o, x->b->job);
		bprintf(o, ",\"phase\":\"%s\",\"block_size_bytes\":", x->b->phase);
		if (x->b->bs)
			bprintf(o, "%llu", (unsigned long long)x->b->bs);
		else
			bprintf(o, "null");
		bprintf(o, ",\"figure\":\"%s\"", figs[x->f].name);
		const struct {
			const char *key;
			double v;
		} nums[] = {{"base", x->base},
			    {"new", x->new_},
			    {"change", x->rel},
			    {"ci_low", x->basis != B_NONE ? x->ch.ci_low : NAN},
			    {"ci_high", x->basis != B_NONE ? x->ch.ci_high : NAN}};
		for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) {
			bprintf(o, ",\"%s\":", nums[k].key);
			json_num(o, nums[k].v);
		}
		bprintf(o, ",\"basis\":\"%s\",\"independent\":%s,\"n_base\":", basis_name[x->basis],
			x->basis == B_REPEATS ? "true" : "false");
		json_num(o, x->basis != B_NONE ? x->nb : NAN);
		bprintf(o, ",\"n_new\":");
		json_num(o, x->basis != B_NONE ? x->nn : NAN);
		bprintf(o, ",\"verdict\":\"%s\",\"regression\":%s,\"why\":", x->verdict, x->regression ? "true" : "false");
		if (x->why)
			json_str(o, x->why);
		else
			bprintf(o, "null");
		bprintf(o, "}");
	}
	bprintf(o, "\n],\n\"unmatched\":[");
	int first = 1;
	for (int s = 0; s < 2; s++) {
		const struct side *sd = s ? n : b;
		for (size_t i = 0; i < sd->n; i++) {
			const struct phase *p = &sd->ph[i];
			if (p->matched && !p->dup)
				continue;
			bprintf(o, "%s{\"side\":\"%s\",\"job\":", first ? "" : ",", s ? "new" : "base");
			first = 0;
			json_str(o, p->job);
			bprintf(o, ",\"phase\":\"%s\",\"block_size_bytes\":%llu,\"why\":\"%s\"}", p->phase,
				(unsigned long long)p->bs, p->dup ? "more than one such job" : "only on this side");
		}
	}
	bprintf(o, "],\n\"regressed\":%s}\n", regressed ? "true" : "false");
}

/* One row per comparison: the change as a dot, its interval as a bar, the
 * zero line and the threshold as dashed lines. */
void svg_out(struct buf *o, const struct result *r, size_t nr, double threshold)
{
	double span = threshold > 0 ? threshold : 0.01;
	for (size_t i = 0; i < nr; i++) {
		double v[3] = {r[i].rel, r[i].basis != B_NONE ? r[i].ch.ci_low : NAN,
			       r[i].basis != B_NONE ? r[i].ch.ci_high : NAN};
		for (int k = 0; k < 3; k++)
			if (isfinite(v[k]) && fabs(v[k]) > span)
				span = fabs(v[k]);
	}
	span *= 1.15;
	const double left = 300, width = 440, top = 50, row = 22;
	double h = top + row * (double)nr + 40;
#define X(v) (left + width / 2 + (v) / span * width / 2)
	bprintf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" "
		   "font-size=\"12\">\n",
		left + width + 20, h);
	bprintf(o, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	bprintf(o, "<text x=\"10\" y=\"20\" font-size=\"14\">iobench compare: change of NEW against BASE, with its "
		   "interval</text>\n");
	bprintf(o, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", X(0), top - 10, X(0),
		h - 30);
	for (int s = -1; s <= 1; s += 2)
		if (threshold > 0)
			bprintf(o, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"gray\" "
				   "stroke-dasharray=\"4 3\"/>\n",
				X(s * threshold), top - 10, X(s * threshold), h - 30);
	for (int k = -2; k <= 2; k++)
		bprintf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%+.1f%%</text>\n", X(span / 2.3 * k),
			h - 12, span / 2.3 * k * 100);
	for (size_t i = 0; i < nr; i++) {
		const struct result *x = &r[i];
		double y = top + row * (double)i + row / 2;
		char bsz[32];
		bs_text(bsz, sizeof bsz, x->b->bs);
		bprintf(o, "<text x=\"10\" y=\"%.1f\">", y + 4);
		char label[512];
		snprintf(label, sizeof label, "%s %s %s %s: %s", x->b->job, x->b->phase, bsz, figs[x->f].label,
			 x->verdict);
		xml_text(o, label);
		bprintf(o, "</text>\n");
		const char *color = x->regression ? "#c0392b" : x->verdict[0] == 's' ? "#e67e22"
							 : x->verdict[0] == 'f'   ? "#27ae60"
										  : "#7f8c8d";
		if (x->basis != B_NONE && isfinite(x->ch.ci_low) && isfinite(x->ch.ci_high))
			bprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
				   "stroke-width=\"3\"/>\n",
				X(x->ch.ci_low), y, X(x->ch.ci_high), y, color);
		if (isfinite(x->rel))
			bprintf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n", X(x->rel), y, color);
	}
#undef X
	bprintf(o, "</svg>\n");
}
