/*
 * svgdraw.h - the svg output's pictures, shared by the svg and html outputs
 * (compiled into each; nothing is exported): the records a picture needs are
 * kept as they arrive (svgd_keep) and drawn as SVG panels (svgd_draw), so a
 * chart looks the same in a .svg file and in an HTML report.
 *
 * Panels are SVGD_W pixels wide and SVGD_PANEL_H high; svgd_draw places them
 * one under the other from y0 and returns how many it drew.  A series (a
 * bigread read, an interval line) of more than SVGD_MAX_POINTS points is
 * drawn as the lowest and the highest value of each of SVGD_MAX_POINTS / 2
 * runs of points, so a dip is never averaged away (svgd_thinned counts
 * such series).
 */
#ifndef IOB_OUTPUT_SVGDRAW_H
#define IOB_OUTPUT_SVGDRAW_H

#include <stddef.h>

#include "iobench/plugin.h"
#include "textbuf.h"

#define SVGD_MAX_POINTS 2000
#define SVG_W 920.0
#define SVG_PANEL_H 380.0
#define SVG_TOP 56.0
#define SVG_ML 84.0  /* left margin of a panel: tick labels and the y label */
#define SVG_MR 250.0 /* right margin: the legend */
#define SVG_MT 34.0  /* panel title */
#define SVG_MB 54.0  /* tick labels and the x label */

/* The points of a line, kept as they come.  Up to SVGD_KEEP_POINTS they are
 * all kept; from then on, in buckets of `per` points (2, 4, 8, ...), each
 * kept as its lowest and highest point in x order (the last bucket still
 * filling), two buckets merged into one whenever the room is full: memory
 * stays flat however long the line, and no extreme is lost. */
#define SVGD_KEEP_POINTS 16384
struct svg_pts {
	double *x, *y;
	size_t n, cap;
	size_t total; /* points added */
	size_t per;   /* 0: every point kept; else points per bucket */
	size_t fill;  /* points in the last bucket (0: closed) */
};

/* One phase record: a point of the io_profile sweep, a latency curve. */
struct svg_phase {
	int meta; /* a "meta" record (workload = files): an operation kind */
	char *job, *phase;
	double bs, bw, iops;
	size_t npct;
	double *pct, *val;
};

/* One "series" record, its blocks, and the summary of its phase record. */
struct svg_series {
	char *job, *file;
	double block_size;
	struct svg_pts blocks; /* offset bytes, bytes per second */
	double end;            /* offset past the last block */
	int summary, cliff;
	double cliff_offset, cliff_before, cliff_after, median;
};

/* The "interval" records of one phase (job, phase, block size): throughput
 * and IOPS against the time since the phase began. */
struct svg_ivs {
	char *job, *phase;
	double bs;
	struct svg_pts bw, iops; /* time_s, bytes per second / operations per second */
};

/* One "steady" record: its rounds and the window judged. */
struct svg_steady {
	char *job, *phase;
	double bs;
	int bw, lat, reached; /* the metric: bw, lat (ns), else iops */
	double window, last, mean; /* rounds in the window, its last round, its mean */
	struct svg_pts rounds;	   /* round index, value */
};
/* What the pictures need of a run's records. */
struct svgd {
	int profile; /* an io_profile_test record was seen */
	size_t nmeta; /* "meta" records kept (among ph) */
	struct svg_phase *ph;
	size_t nph, capph;
	struct svg_series *se;
	size_t nse, capse;
	struct svg_ivs *iv;
	size_t niv, capiv;
	struct svg_steady *sd;
	size_t nsd, capsd;
	int oom; /* keeping or drawing could not allocate */
};

/* The panels svgd_draw can draw. */
#define SVGD_PROFILE 0x01u   /* io_profile: throughput and IOPS against the I/O size */
#define SVGD_SERIES 0x02u    /* one panel per series: every block's speed, the cliff */
#define SVGD_STEADY 0x04u    /* one panel per steady record */
#define SVGD_INTERVALS 0x08u /* throughput and IOPS per interval, per job */
#define SVGD_LATENCY 0x10u   /* latency percentile curves, per job */
#define SVGD_META 0x20u      /* files jobs: ops/s per phase, a bar each */

/* Keep what the pictures need of one record (st->oom when out of memory). */
void svgd_keep(struct svgd *st, const struct iob_record *rec);
/* The panels the svg output draws for these records: io_profile's sweep,
 * else the series, else steady state, intervals, files jobs' rates and latency. */
unsigned svgd_default(const struct svgd *st);
/* Draw the panels of `what` (SVGD_*) that have something to show (latency
 * always has: "no latency was recorded"), from y0 down; returns how many. */
size_t svgd_draw(struct svgd *st, struct textbuf *b, unsigned what, double y0);
/* How many kept series svgd_draw thins (more than SVGD_MAX_POINTS points),
 * and the most points one of them has. */
size_t svgd_thinned(const struct svgd *st, size_t *most);
/* Coordinates with two decimals and '.' whatever the locale. */
void svgd_coord(struct textbuf *b, double v);
/* The opening <svg ...> tag of a picture SVG_W wide and h high, with
 * attrs (one or more attributes) after the namespace, and a line end. */
void svgd_svg_tag(struct textbuf *b, const char *attrs, double h);
/* <text x= y= [anchor] [attrs]>s</text>, s escaped (textbuf_xml). */
void svgd_label(struct textbuf *b, double x, double y, const char *anchor, const char *attrs, const char *s);
void svgd_free(struct svgd *st);
/* A record's field by key, or NULL. */
const struct iob_field *svgd_field(const struct iob_record *rec, const char *key);
/* A numeric field as a double in *v; 0 (and *v 0) when absent or no number. */
int svgd_num(const struct iob_record *rec, const char *key, double *v);
/* A string field, or "" when absent or NULL. */
const char *svgd_str(const struct iob_record *rec, const char *key);
/* A boolean field that is true. */
int svgd_bool(const struct iob_record *rec, const char *key);
/* A steady record's window mean key for its steady_state (bw, iops, lat). */
const char *svgd_steady_mean_key(const char *metric);

/* What the svg and html outputs do alike around a run (svgdraw.c): one set
 * of ops (SVGD_OUTPUT_OPS) takes the calls, checks their order, keeps the
 * run's facts and the records the pictures need, and calls the output's
 * hooks for the rest.  Each output's
 * state begins with a struct svgd_out, which holds the sink, where the run
 * is and the sink's first error; after that error nothing more is written
 * and every later call returns it. */
struct svgd_hooks {
	const char *name; /* the output's name, in its log lines */
	const char *use;  /* how to name it with a file: "svg=FILE.svg" */
	size_t size;      /* its state, which begins with a struct svgd_out */
	/* record, after svgd_keep: what the output keeps besides; nonzero when
	 * out of memory (NULL: nothing) */
	int (*keep)(void *state, const struct iob_record *rec);
	/* The whole document, written with svgd_out_write, once: at end_run, or
	 * at close when a run began and never ended (end NULL, status -1, the
	 * error "run ended without a result"); o.drawn is set first. */
	int (*render)(void *state, const struct iob_run_end *end, int status, int interrupted, const char *error);
	/* at close: the output's own memory (NULL: none) */
	void (*free)(void *state);
};
struct svgd_out {
	struct iob_sink sink;
	const struct iob_host *host; /* whose log the lines go to */
	const struct svgd_hooks *hooks;
	int begun, ended, drawn;
	int err;
	int oom; /* the run facts could not be kept */
	/* the run facts (struct iob_run_info; machine: its host), NULL when
	 * not given; schema 0 when not given */
	char *tool, *version, *machine, *started, *source, *kernel;
	unsigned schema;
	struct svgd d; /* the records the pictures need */
};
/* A line in the host's log, if it has one, under the output's name. */
#define svgd_log textbuf_log /* the outputs' one logger (textbuf.c) */
/* open for an output that takes no arguments ("use --output USE" when it
 * gets some): *state gets hooks->size zeroed bytes that begin with a
 * struct svgd_out for this sink. */
int svgd_out_open(const struct iob_sink *sink, const char *args, void **state, const struct iob_host *host,
		  const struct svgd_hooks *hooks);
/* The other four ops: begin_run (a second one is refused), record (one
 * outside a run or without its fields is refused; -ENOMEM, logged, when
 * it could not be kept), end_run (a second one or one before begin_run is
 * refused; a run end older than ABI 1.0's is drawn as a run without a
 * result), close.  An output's ops: {SVGD_OUTPUT_OPS(name)}, over its own
 * name_open (svgd_out_open with its host and hooks). */
int svgd_out_begin_run(void *state, const struct iob_run_info *run);
int svgd_out_record(void *state, const struct iob_record *rec);
int svgd_out_end_run(void *state, const struct iob_run_end *end);
int svgd_out_close(void *state);
#define SVGD_OUTPUT_OPS(p)                                                                                  \
	.open = p##_open, .begin_run = svgd_out_begin_run, .record = svgd_out_record,                       \
	.end_run = svgd_out_end_run, .close = svgd_out_close
/* The finished text written to the sink in one write, once; when oom,
 * -ENOMEM and a log line "out of memory WHAT for SINK" instead. */
int svgd_out_write(struct svgd_out *o, const struct textbuf *b, int oom, const char *what);
/* strdup(s ? s : ""), *oom set when it cannot. */
char *svgd_strdup(int *oom, const char *s);

#endif
