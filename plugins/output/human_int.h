/*
 * human_int.h - what human.c's rooms share (the map at human.c's top).
 */
#ifndef IOB_OUTPUT_HUMAN_INT_H
#define IOB_OUTPUT_HUMAN_INT_H

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/plugin.h"
#include "textbuf.h"

#define HUMAN_NAME "human"
#define HUMAN_SHORT_STR 16 /* longer strings leave the row for the key=value line */
#define HUMAN_GAP "  "     /* between columns */
#define HUMAN_INDENT "  "  /* before latency and key=value lines */

enum human_place {
	HUMAN_ROW = 0,    /* a column of the aligned row */
	HUMAN_LATLINE = 1, /* a latency line of its own */
	HUMAN_DETAIL = 2, /* key=value on the detail line */
	HUMAN_SKIP = 3,   /* a type from a later ABI: not shown */
};

/* The narrow table (the default): for the kinds below, one row per record
 * of the columns a person reads first, within HUMAN_COLS columns; `wide`
 * shows every field. */
#define HUMAN_COLS 100
#define HUMAN_NAME_MAX 24 /* widest a name column gets */
#define HUMAN_NAME_MIN 16 /* narrowest: names this long are never cut */
#define HUMAN_MAX_COLS 10

struct human_colspec {
	const char *key, *label;
	double pct;   /* > 0: this percentile of the latency field `key` */
	size_t width; /* at least this; 0: a name, as wide as the row allows */
};

/* A column of a narrow row. */
struct human_col {
	size_t field;     /* index in the record */
	const char *label;
	double pct;       /* > 0: a percentile of a latency field */
	size_t width;
	int right, cut;   /* right-aligned; a longer value is cut to the width */
};

/* How records of the current block are laid out. */
struct human_layout {
	char *sig;             /* kind and keys, to notice when a new block starts */
	size_t nfields;
	unsigned char *place;  /* enum human_place per field */
	size_t *width;         /* column width per HUMAN_ROW field */
	char **label;          /* per field: its label, unique in the block */
	size_t latlabel_width; /* widest latency label */
	size_t ncol;           /* > 0: a narrow row of these columns, nothing else */
	struct human_col col[HUMAN_MAX_COLS];
};

struct human_state {
	struct iob_sink sink;
	int wide;  /* every field (human:wide, --wide); else the narrow table */
	int begun, ended;
	int err; /* first sink error; sticky */
	struct human_layout lay;
	struct textbuf out, cell, line;
};

/* human_values.c */
void human_buf_text(struct textbuf *b, const char *s);
size_t human_width(const char *s);
void human_put_cell(struct textbuf *b, const char *text, size_t width, int right);
void human_end_line(struct textbuf *out, struct textbuf *line);
void human_ns(struct textbuf *b, double v);
double human_number(const struct iob_field *f);
int human_is_scaled(const struct iob_field *f);
void human_value(struct textbuf *b, const struct iob_field *f);
void human_label(struct textbuf *b, const struct iob_field *f);
/* human_layout.c */
void human_layout_free(struct human_layout *lay);
int human_is_absent(const struct iob_field *f);
char *human_signature(const struct iob_record *rec);
int human_layout_make(struct human_state *st, const struct iob_record *rec, char *sig);
void human_put_header(struct human_state *st, const struct iob_record *rec);
void human_put_row(struct human_state *st, const struct iob_record *rec);
void human_put_lat(struct human_state *st, const struct iob_record *rec, const struct iob_field *f);
void human_put_detail(struct human_state *st, const struct iob_record *rec);

#endif
