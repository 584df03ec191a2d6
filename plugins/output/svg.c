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

#define SVG_RUN_INFO_V1_SIZE (offsetof(struct iob_run_info, source) + sizeof(const char *))

static const struct iob_host *svg_host;

struct svg_state {
	struct svgd_out o; /* first: the sink, where the run is, its error (svgdraw.h) */
	char *tool, *host, *started;
	int oom; /* the run facts could not be kept */
	struct svgd d; /* the records the pictures need (svgdraw.h) */
	struct textbuf out;
};

static int svg_render(struct svg_state *st, int status, int interrupted, const char *error)
{
	st->o.drawn = 1;
	size_t panels = 0;
	struct textbuf *b = &st->out, body = {0};
	textbuf_clear(b);
	panels = svgd_draw(&st->d, &body, svgd_default(&st->d), SVG_TOP);
	double h = SVG_TOP + (double)panels * SVG_PANEL_H + 10;

	textbuf_str(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	svgd_svg_tag(b, "version=\"1.1\"", h);
	char head[512];
	snprintf(head, sizeof(head), "%s on %s, started %s", st->tool ? st->tool : "iobench",
		 st->host ? st->host : "?", st->started ? st->started : "?");
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
	int oom = body.oom || b->oom || st->d.oom || st->oom;
	textbuf_free(&body);
	return svgd_out_write(&st->o, b, oom, "drawing the picture");
}

/* ------------------------------------------------------------------------ */
/* Ops.                                                                      */

static int svg_open(const struct iob_sink *sink, const char *args, void **state)
{
	return svgd_out_open(sink, args, state, sizeof(struct svg_state), svg_host, SVG_NAME, "svg=FILE.svg");
}

static int svg_begin_run(void *state, const struct iob_run_info *run)
{
	struct svg_state *st = state;
	int rc = svgd_out_begin(&st->o);
	if (rc)
		return rc;
	if (run && run->struct_size >= SVG_RUN_INFO_V1_SIZE) {
		st->tool = run->tool ? svgd_strdup(&st->oom, run->tool) : NULL;
		st->host = run->host ? svgd_strdup(&st->oom, run->host) : NULL;
		st->started = run->started ? svgd_strdup(&st->oom, run->started) : NULL;
	}
	return st->oom ? -ENOMEM : 0;
}

static int svg_record(void *state, const struct iob_record *rec)
{
	struct svg_state *st = state;
	int rc = svgd_out_record(&st->o, rec);
	if (rc)
		return rc;
	svgd_keep(&st->d, rec);
	return svgd_out_kept(&st->o, st->d.oom);
}

static int svg_end_run(void *state, const struct iob_run_end *end)
{
	struct svg_state *st = state;
	int rc = svgd_out_end(&st->o);
	if (rc)
		return rc;
	return svg_render(st, end ? end->status : -1, end ? end->interrupted : 0,
			  end ? end->error : "run ended without a result");
}

static int svg_close(void *state)
{
	struct svg_state *st = state;
	if (!st)
		return 0;
	int rc = 0;
	if (st->o.begun && !st->o.drawn)
		rc = svg_render(st, -1, 0, "run ended without a result");
	svgd_free(&st->d);
	free(st->tool);
	free(st->host);
	free(st->started);
	textbuf_free(&st->out);
	free(st);
	return rc;
}

static const struct iob_output_ops svg_ops = {IOB_OUTPUT_OPS_OF(svg)};

IOB_OUTPUT_PLUGIN(svg_host, SVG_NAME, "one SVG picture per run: io_profile sweeps, bigread speed per block and cliff, latency " "percentiles", &svg_ops);
