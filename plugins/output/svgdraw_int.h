/*
 * svgdraw_int.h - what svgdraw.c's rooms share (the map at svgdraw.c's top):
 * the axes and the text calls the pictures draw with.  Compiled into the
 * svg and html outputs; nothing is exported.
 */
#ifndef IOB_OUTPUT_SVGDRAW_INT_H
#define IOB_OUTPUT_SVGDRAW_INT_H

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svgdraw.h"

/* Axes (svgdraw_axes.c). */
enum svg_scale { SVG_LIN = 0, SVG_LOG10 = 1, SVG_LOG2 = 2, SVG_NINES = 3 };

struct svg_axis {
	enum svg_scale scale;
	double lo, hi;   /* in the record's unit */
	double p0, p1;   /* pixels of lo and hi */
	double div;      /* tick labels show value / div */
	const char *lab; /* axis label with its unit */
	int bytes_ticks; /* LOG2 ticks labelled as sizes (512 B, 4 KiB) */
	int ns_ticks;    /* LOG10 ticks labelled as times (1 us, 10 ms) */
};

/* Text and axes (svgdraw_axes.c); svg_same: svgdraw.c. */
void svg_coord(struct textbuf *b, double v);
void svg_text(struct textbuf *b, const char *s);
void svg_label(struct textbuf *b, double x, double y, const char *anchor, const char *attrs, const char *s);
void svg_line(struct textbuf *b, const char *cls, double x1, double y1, double x2, double y2, const char *style);
void svg_num_text(char *out, size_t len, double v);
double svg_map(const struct svg_axis *a, double v);
double svg_lin_range(struct svg_axis *a, double lo, double hi);
void svg_fmt_size(char *out, size_t len, double v);
void svg_frame(struct textbuf *b, double y0, const char *title, struct svg_axis *x, double xstep, struct svg_axis *y,
	double ystep);
void svg_polyline(struct textbuf *b, const struct svg_axis *x, const struct svg_axis *y, const double *xs,
	const double *ys, size_t n, const char *color, const char *dash, const char *cls);
void svg_dots(struct textbuf *b, const struct svg_axis *x, const struct svg_axis *y, const double *xs,
	const double *ys, size_t n, const char *color);
void svg_legend(struct textbuf *b, double y0, size_t i, const char *color, const char *dash, const char *text);
int svg_same(const char *a, const char *b);

#endif
