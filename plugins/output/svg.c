/*
 * svg.c - the "svg" output: one self-contained SVG picture per run.
 *
 * The records are kept as they arrive and drawn at end_run, in one write.
 * What is drawn depends on what the run produced (docs/outputs.md, "svg"):
 *  - io_profile (an "io_profile_test" record was seen): two panels against
 *    the I/O size (block_size_bytes, log2 axis): throughput (MiB/s, log10
 *    axis) and IOPS (linear), one line per job and phase (write, read);
 *  - a series (bigread: "series" and "block" records): one panel per series,
 *    the speed of every block (MiB/s) against its offset, with the cliff
 *    (cliff_offset_bytes) and the robust median of its phase record marked;
 *  - anything else: the latency percentile curve of every phase record with
 *    a latency (x: the percentile on a "nines" axis, y: ns on a log10 axis);
 *    above it, one panel per "steady" record (steady state): every round's
 *    MiB/s or IOPS, the window judged (shaded), its mean and the +-10% and
 *    +-20% bands around it, as SNIA's reports draw them.
 * Every panel has axes with units, tick labels, a title and a legend.  No
 * script, no external reference, no font file: any SVG renderer shows it.
 *
 * Marks a test or a script can find: tick lines carry class "xtick"/"ytick"
 * and data-value (in the record's unit), the cliff line class "cliff" and
 * data-offset-bytes, the median line class "median" and data-bytes-per-s.
 *
 * Statistics are the core's: this output only places values on axes.  A
 * series (or an interval line) of more than SVGD_MAX_POINTS points is drawn as the lowest and the
 * highest value of each of SVGD_MAX_POINTS / 2 runs of points (svgdraw_pictures.c), so a dip is
 * never smoothed away.  After the sink fails nothing more is written and
 * every later call returns that error.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/plugin.h"
#include "svgdraw.h"
#include "textbuf.h"

#define SVG_NAME "svg"

static const struct iob_host *svg_host;

/* The svg output keeps nothing besides what every svgdraw output keeps. */
struct svg_state {
	struct svgd_out o; /* first: the sink, the run facts, the records kept (svgdraw.h) */
	struct textbuf out;
};

static int svg_render(void *state, const struct iob_run_end *end, int status, int interrupted, const char *error)
{
	(void)end;
	struct svg_state *st = state;
	size_t panels = 0;
	struct textbuf *b = &st->out, body = {0};
	textbuf_clear(b);
	panels = svgd_draw(&st->o.d, &body, svgd_default(&st->o.d), SVG_TOP);
	double h = SVG_TOP + (double)panels * SVG_PANEL_H + 10;

	textbuf_str(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	svgd_svg_tag(b, "version=\"1.1\"", h);
	char head[512];
	snprintf(head, sizeof(head), "%s on %s, started %s", st->o.tool ? st->o.tool : "iobench",
		 st->o.machine ? st->o.machine : "?", st->o.started ? st->o.started : "?");
	textbuf_str(b, "<title>");
	textbuf_xml(b, head);
	textbuf_str(b, "</title>\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
	svgd_label(b, SVG_ML, 22, NULL, "font-size=\"15\"", head);
	if (status || interrupted) {
		char why[600];
		snprintf(why, sizeof(why), "%s%s%s", interrupted ? "(interrupted) " : "", status ? "error: " : "",
			 status && error ? error : "");
		svgd_label(b, SVG_ML, 40, NULL, "fill=\"#c92a2a\"", why);
	}
	if (!body.oom && body.data)
		textbuf_add(b, body.data, body.len);
	textbuf_str(b, "</svg>\n");
	int oom = body.oom || b->oom || st->o.d.oom || st->o.oom;
	textbuf_free(&body);
	return svgd_out_write(&st->o, b, oom, "drawing the picture");
}

static void svg_free(void *state)
{
	textbuf_free(&((struct svg_state *)state)->out);
}

/* ------------------------------------------------------------------------ */
/* Ops: svgdraw.c's, over these hooks.                                       */

static const struct svgd_hooks svg_hooks = {
    .name = SVG_NAME, .use = "svg=FILE.svg", .size = sizeof(struct svg_state), .render = svg_render, .free = svg_free};

static int svg_open(const struct iob_sink *sink, const char *args, void **state)
{
	return svgd_out_open(sink, args, state, svg_host, &svg_hooks);
}

static const struct iob_output_ops svg_ops = {SVGD_OUTPUT_OPS(svg)};

IOB_OUTPUT_PLUGIN(svg_host, SVG_NAME, "one SVG picture per run: io_profile sweeps, bigread speed per block and cliff, latency " "percentiles", &svg_ops);
