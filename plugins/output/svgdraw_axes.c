/*
 * svgdraw_axes.c - text and axes of the pictures: coordinates, labels,
 * lines, scales and their ticks, frames, polylines, dots, legends.  A room
 * of svgdraw.c (its map).
 */
#include "svgdraw_int.h"

/* ------------------------------------------------------------------------ */
/* Text.                                                                     */

/* Coordinates with two decimals and '.' whatever the locale. */
void svg_coord(struct textbuf *b, double v)
{
	char tmp[64];
	if (!isfinite(v))
		v = 0;
	snprintf(tmp, sizeof(tmp), "%.2f", v);
	for (char *p = tmp; *p; p++)
		if (*p != '-' && (*p < '0' || *p > '9'))
			*p = '.';
	textbuf_str(b, tmp);
}

/* Text content or an attribute value: well-formed XML 1.0 whatever the
 * bytes (textbuf_xml: entities for & < > " ', U+FFFD for a character XML
 * forbids, a C1 control or a byte of invalid UTF-8). */
void svg_text(struct textbuf *b, const char *s)
{
	textbuf_xml(b, s);
}

/* <text x= y= [anchor] [extra attrs]>s</text> */
void svg_label(struct textbuf *b, double x, double y, const char *anchor, const char *attrs, const char *s)
{
	textbuf_str(b, "<text x=\"");
	svg_coord(b, x);
	textbuf_str(b, "\" y=\"");
	svg_coord(b, y);
	textbuf_str(b, "\"");
	if (anchor) {
		textbuf_str(b, " text-anchor=\"");
		textbuf_str(b, anchor);
		textbuf_str(b, "\"");
	}
	if (attrs) {
		textbuf_str(b, " ");
		textbuf_str(b, attrs);
	}
	textbuf_str(b, ">");
	svg_text(b, s);
	textbuf_str(b, "</text>\n");
}

void svg_line(struct textbuf *b, const char *cls, double x1, double y1, double x2, double y2,
		     const char *style)
{
	textbuf_str(b, "<line");
	if (cls) {
		textbuf_str(b, " class=\"");
		textbuf_str(b, cls);
		textbuf_str(b, "\"");
	}
	textbuf_str(b, " x1=\"");
	svg_coord(b, x1);
	textbuf_str(b, "\" y1=\"");
	svg_coord(b, y1);
	textbuf_str(b, "\" x2=\"");
	svg_coord(b, x2);
	textbuf_str(b, "\" y2=\"");
	svg_coord(b, y2);
	textbuf_str(b, "\" ");
	textbuf_str(b, style);
	textbuf_str(b, "/>\n");
}

/* A number for a tick label: %g, '.' whatever the locale. */
void svg_num_text(char *out, size_t len, double v)
{
	const char *suffix = "";
	if (fabs(v) >= 1e6) {
		v /= 1e6;
		suffix = "M";
	} else if (fabs(v) >= 1e4) {
		v /= 1e3;
		suffix = "k";
	}
	snprintf(out, len, "%.4g%s", v, suffix);
	for (char *p = out; *p; p++)
		if (*p == ',')
			*p = '.';
}

static double svg_t(const struct svg_axis *a, double v)
{
	switch (a->scale) {
	case SVG_LOG10:
		return log10(v > 0 ? v : 1e-300);
	case SVG_LOG2:
		return log2(v > 0 ? v : 1e-300);
	case SVG_NINES:
		return -log10(1.0 - (v < 99.9999 ? v : 99.9999) / 100.0);
	default:
		return v;
	}
}

double svg_map(const struct svg_axis *a, double v)
{
	double t0 = svg_t(a, a->lo), t1 = svg_t(a, a->hi), t = svg_t(a, v);
	if (t1 == t0)
		return (a->p0 + a->p1) / 2;
	return a->p0 + (t - t0) / (t1 - t0) * (a->p1 - a->p0);
}

/* A linear axis from 0 (or lo) to a round hi; returns the tick step. */
double svg_lin_range(struct svg_axis *a, double lo, double hi)
{
	if (!(hi > lo))
		hi = lo + 1;
	double raw = (hi - lo) / 6, mag = pow(10, floor(log10(raw))), step = 10 * mag;
	static const double mult[] = {1, 2, 2.5, 5, 10};
	for (size_t i = 0; i < sizeof(mult) / sizeof(mult[0]); i++)
		if (mult[i] * mag >= raw) {
			step = mult[i] * mag;
			break;
		}
	a->lo = floor(lo / step) * step;
	a->hi = ceil(hi / step) * step;
	return step;
}

/* v in the largest of the n units (each `step` times the one before) that
 * keeps it at 1 or more: "1.5 MiB", "250 us". */
static void svg_fmt_units(char *out, size_t len, double v, double step, const char *const *u, size_t n)
{
	size_t i = 0;
	while (v >= step && i + 1 < n) {
		v /= step;
		i++;
	}
	char num[32];
	svg_num_text(num, sizeof(num), v);
	snprintf(out, len, "%s %s", num, u[i]);
}

void svg_fmt_size(char *out, size_t len, double v)
{
	static const char *const u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	svg_fmt_units(out, len, v, 1024, u, sizeof(u) / sizeof(u[0]));
}

static void svg_fmt_ns(char *out, size_t len, double v)
{
	static const char *const u[] = {"ns", "us", "ms", "s"};
	svg_fmt_units(out, len, v, 1000, u, sizeof(u) / sizeof(u[0]));
}

static void svg_tick(struct textbuf *b, const struct svg_axis *a, int xaxis, double v, const char *label,
		     double f0, double f1)
{
	double p = svg_map(a, v);
	char attrs[96], num[48];
	textbuf_fmt_double(v, num, sizeof(num));
	snprintf(attrs, sizeof(attrs), "data-value=\"%s\" stroke=\"#d0d0d0\" stroke-width=\"1\"", num);
	if (xaxis) {
		svg_line(b, "xtick", p, f0, p, f1, attrs);
		svg_label(b, p, f1 + 16, "middle", NULL, label);
	} else {
		svg_line(b, "ytick", f0, p, f1, p, attrs);
		svg_label(b, f0 - 6, p + 4, "end", NULL, label);
	}
}

/* Grid lines and tick labels of one axis; f0..f1 the other axis' pixels. */
static void svg_ticks(struct textbuf *b, const struct svg_axis *a, int xaxis, double step, double f0, double f1)
{
	char lab[48];
	if (a->scale == SVG_LIN) {
		for (double v = a->lo; v <= a->hi + step / 1e6; v += step) {
			svg_num_text(lab, sizeof(lab), fabs(v) < step / 1e6 ? 0 : v / a->div);
			svg_tick(b, a, xaxis, v, lab, f0, f1);
		}
	} else if (a->scale == SVG_LOG10) {
		for (double e = floor(log10(a->lo / a->div)); e <= ceil(log10(a->hi / a->div)); e++) {
			double v = pow(10, e) * a->div;
			if (v < a->lo * 0.999 || v > a->hi * 1.001)
				continue;
			if (a->ns_ticks)
				svg_fmt_ns(lab, sizeof(lab), v);
			else
				svg_num_text(lab, sizeof(lab), v / a->div);
			svg_tick(b, a, xaxis, v, lab, f0, f1);
		}
	} else if (a->scale == SVG_LOG2) {
		double e0 = ceil(log2(a->lo)), e1 = floor(log2(a->hi));
		double every = e1 - e0 > 12 ? 2 : 1;
		for (double e = e0; e <= e1; e += every) {
			double v = pow(2, e);
			if (a->bytes_ticks)
				svg_fmt_size(lab, sizeof(lab), v);
			else
				svg_num_text(lab, sizeof(lab), v);
			svg_tick(b, a, xaxis, v, lab, f0, f1);
		}
	} else {
		static const double ranks[] = {50, 90, 99, 99.9, 99.99, 99.999};
		for (size_t i = 0; i < sizeof(ranks) / sizeof(ranks[0]); i++) {
			if (ranks[i] > a->hi + 1e-9)
				break;
			svg_num_text(lab, sizeof(lab), ranks[i]);
			svg_tick(b, a, xaxis, ranks[i], lab, f0, f1);
		}
	}
}

/* The frame, ticks and labels of a panel whose top is at y0. */
void svg_frame(struct textbuf *b, double y0, const char *title, struct svg_axis *x, double xstep,
		      struct svg_axis *y, double ystep)
{
	double l = SVG_ML, r = SVG_W - SVG_MR, t = y0 + SVG_MT, bot = y0 + SVG_PANEL_H - SVG_MB;
	x->p0 = l;
	x->p1 = r;
	y->p0 = bot;
	y->p1 = t;
	svg_label(b, l, y0 + 20, NULL, "font-size=\"14\" font-weight=\"bold\"", title);
	if (xstep >= 0) /* < 0: no x ticks (the caller labels its categories) */
		svg_ticks(b, x, 1, xstep, t, bot);
	svg_ticks(b, y, 0, ystep, l, r);
	textbuf_str(b, "<rect x=\"");
	svg_coord(b, l);
	textbuf_str(b, "\" y=\"");
	svg_coord(b, t);
	textbuf_str(b, "\" width=\"");
	svg_coord(b, r - l);
	textbuf_str(b, "\" height=\"");
	svg_coord(b, bot - t);
	textbuf_str(b, "\" fill=\"none\" stroke=\"#333\" stroke-width=\"1\"/>\n");
	svg_label(b, (l + r) / 2, bot + 40, "middle", NULL, x->lab);
	char attrs[96];
	double cy = (t + bot) / 2;
	snprintf(attrs, sizeof(attrs), "transform=\"rotate(-90 %d %d)\"", (int)(l - 62), (int)cy);
	svg_label(b, l - 62, cy, "middle", attrs, y->lab);
}

void svg_polyline(struct textbuf *b, const struct svg_axis *x, const struct svg_axis *y, const double *xs,
			 const double *ys, size_t n, const char *color, const char *dash, const char *cls)
{
	textbuf_str(b, "<polyline class=\"");
	textbuf_str(b, cls);
	textbuf_str(b, "\" fill=\"none\" stroke=\"");
	textbuf_str(b, color);
	if (dash) {
		textbuf_str(b, "\" stroke-dasharray=\"");
		textbuf_str(b, dash);
	}
	textbuf_str(b, "\" stroke-width=\"1.8\" stroke-linejoin=\"round\" points=\"");
	for (size_t i = 0; i < n; i++) {
		if (i)
			textbuf_add(b, " ", 1);
		svg_coord(b, svg_map(x, xs[i]));
		textbuf_add(b, ",", 1);
		svg_coord(b, svg_map(y, ys[i]));
	}
	textbuf_str(b, "\"/>\n");
}

void svg_dots(struct textbuf *b, const struct svg_axis *x, const struct svg_axis *y, const double *xs,
		     const double *ys, size_t n, const char *color)
{
	for (size_t i = 0; i < n; i++) {
		textbuf_str(b, "<circle cx=\"");
		svg_coord(b, svg_map(x, xs[i]));
		textbuf_str(b, "\" cy=\"");
		svg_coord(b, svg_map(y, ys[i]));
		textbuf_str(b, "\" r=\"2.6\" fill=\"");
		textbuf_str(b, color);
		textbuf_str(b, "\"/>\n");
	}
}

/* Legend entry i of a panel whose top is at y0. */
void svg_legend(struct textbuf *b, double y0, size_t i, const char *color, const char *dash,
		       const char *text)
{
	double x = SVG_W - SVG_MR + 14, y = y0 + SVG_MT + 12 + 18.0 * (double)i;
	char style[128];
	snprintf(style, sizeof(style), "stroke=\"%s\" stroke-width=\"2.5\"%s%s%s", color, dash ? " stroke-dasharray=\"" : "",
		 dash ? dash : "", dash ? "\"" : "");
	svg_line(b, "legend", x, y - 4, x + 22, y - 4, style);
	svg_label(b, x + 28, y, NULL, NULL, text);
}

/* ------------------------------------------------------------------------ */
/* The shared interface (svgdraw.h): text.                                  */

void svgd_coord(struct textbuf *b, double v)
{
	svg_coord(b, v);
}

void svgd_svg_tag(struct textbuf *b, const char *attrs, double h)
{
	textbuf_str(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" ");
	textbuf_str(b, attrs);
	textbuf_str(b, " width=\"");
	svg_coord(b, SVG_W);
	textbuf_str(b, "\" height=\"");
	svg_coord(b, h);
	textbuf_str(b, "\" viewBox=\"0 0 ");
	svg_coord(b, SVG_W);
	textbuf_str(b, " ");
	svg_coord(b, h);
	textbuf_str(b, "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\">\n");
}

void svgd_label(struct textbuf *b, double x, double y, const char *anchor, const char *attrs, const char *s)
{
	svg_label(b, x, y, anchor, attrs, s);
}
