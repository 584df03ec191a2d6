/*
 * render.c - the "bigread" output: the legacy tool's lines, compiled into
 * the binary and registered as a static output plugin.  It only formats
 * what the records carry (speeds in bytes/s shown as MiB/s, 2^20):
 *
 *   BufSize: N bytes                                   ("input" record)
 *   INDEX SPEED                                        (each "block" record)
 *   Speed: n= min= max= mean= median= rms= (all)       ("summary" record)
 *   Speed: n= min= max= mean= median= rms= (robust)
 *   Cliff: block= offset= before= after= ratio=        (only when one was found)
 *   Note: ...                                          (each caveat, at the end)
 *   Note: interrupted: ... / Note: the read failed: ...  (a partial summary)
 *
 * Speeds print with three decimals and never in exponent form.  Block lines,
 * one per block, are built by hand (legacy_block_line); the sink batches them
 * when it is not a terminal (core/src/output.c).  Errors are
 * not printed here: the tool says them once on stderr.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bigread.h"
#include "iobench/plugin.h"
#include "iobench/result.h"

#define MIB 1048576.0

struct legacy_state {
	struct iob_sink sink;
	int err;     /* first sink error, sticky */
	int summary; /* a summary was printed */
};

static void legacy_printf(struct legacy_state *st, const char *fmt, ...) IOB_PRINTF(2, 3);
static void legacy_printf(struct legacy_state *st, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	if (st->err)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
	int rc = st->sink.write(st->sink.ctx, line, len);
	if (rc < 0)
		st->err = rc;
}

static void legacy_write(struct legacy_state *st, const char *data, size_t len)
{
	if (st->err)
		return;
	int rc = st->sink.write(st->sink.ctx, data, len);
	if (rc < 0)
		st->err = rc;
}

/* Digits of v, backwards from end; returns where they start. */
static char *put_u64(char *end, uint64_t v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

/* A block line, "INDEX SPEED\n" with SPEED as "%.3f" would print it, built
 * without printf: one per block, so it is the tool's own cost inside the
 * phase time.  Below 2^23 (8 TiB/s), v * 1000 is below 2^33 and within
 * 2^-20 of the exact product, so rounding it gives printf's digits except
 * within 1e-4 of a tie, which (like a negative, larger or non-finite value)
 * goes to snprintf. */
static void legacy_block_line(struct legacy_state *st, uint64_t index, double v)
{
	char line[64];
	double scaled = v * 1000.0;
	if (!(v >= 0.0 && v < 8388608.0) || fabs(scaled - floor(scaled) - 0.5) < 1e-4) {
		int n = snprintf(line, sizeof line, "%" PRIu64 " %.3f\n", index, v);
		if (n > 0)
			legacy_write(st, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
		return;
	}
	uint64_t q = (uint64_t)llround(scaled);
	char *end = line + sizeof line, *p = end;
	*--p = '\n';
	for (int i = 0; i < 3; i++) {
		*--p = (char)('0' + q % 10);
		q /= 10;
	}
	*--p = '.';
	p = put_u64(p, q);
	*--p = ' ';
	p = put_u64(p, index);
	legacy_write(st, p, (size_t)(end - p));
}

static double f64_of(const struct iob_record *rec, const char *key)
{
	const struct iob_field *f = iob_rec_get(rec, key);
	if (!f)
		return 0.0;
	if (f->type == IOB_T_F64)
		return f->v.f;
	if (f->type == IOB_T_U64)
		return (double)f->v.u;
	return 0.0;
}

static uint64_t u64_of(const struct iob_record *rec, const char *key)
{
	const struct iob_field *f = iob_rec_get(rec, key);
	return f && f->type == IOB_T_U64 ? f->v.u : 0;
}

static int bool_of(const struct iob_record *rec, const char *key)
{
	const struct iob_field *f = iob_rec_get(rec, key);
	return f && f->type == IOB_T_BOOL ? f->v.b : 0;
}

/* One Speed line from the fields "<prefix>n", "<prefix>min_bytes_per_s"... */
static void legacy_speed_line(struct legacy_state *st, const struct iob_record *rec, const char *prefix,
			      const char *label)
{
	static const char *const names[] = {"min", "max", "mean", "median", "rms"};
	double v[5];
	char key[64];
	for (size_t i = 0; i < 5; i++) {
		snprintf(key, sizeof key, "%s%s_bytes_per_s", prefix, names[i]);
		v[i] = f64_of(rec, key) / MIB;
	}
	snprintf(key, sizeof key, "%sn", prefix);
	legacy_printf(st, "Speed: n=%" PRIu64 " min=%.3f max=%.3f mean=%.3f median=%.3f rms=%.3f (%s)\n",
		      u64_of(rec, key), v[0], v[1], v[2], v[3], v[4], label);
}

static int legacy_open(const struct iob_sink *sink, const char *args, void **state)
{
	if (args && *args)
		return -EINVAL; /* the legacy format has no options */
	struct legacy_state *st = calloc(1, sizeof *st);
	if (!st)
		return -ENOMEM;
	st->sink = *sink;
	*state = st;
	return 0;
}

static int legacy_begin_run(void *state, const struct iob_run_info *run)
{
	(void)run;
	return ((struct legacy_state *)state)->err;
}

static int legacy_record(void *state, const struct iob_record *rec)
{
	struct legacy_state *st = state;
	const char *kind = rec->kind ? rec->kind : "";

	if (strcmp(kind, BR_REC_INPUT) == 0) {
		legacy_printf(st, "BufSize: %" PRIu64 " bytes\n", u64_of(rec, BR_K_BUFSIZE));
	} else if (strcmp(kind, BR_REC_BLOCK) == 0) {
		legacy_block_line(st, u64_of(rec, BR_K_INDEX), f64_of(rec, BR_K_SPEED) / MIB);
	} else if (strcmp(kind, BR_REC_SUMMARY) == 0) {
		st->summary = 1;
		legacy_speed_line(st, rec, "speed_", "all");
		legacy_speed_line(st, rec, "robust_", "robust");
		if (bool_of(rec, "cliff"))
			legacy_printf(
			    st,
			    "Cliff: block=%" PRIu64 " offset=%" PRIu64 " before=%.3f after=%.3f ratio=%.3f\n",
			    u64_of(rec, "cliff_block"), u64_of(rec, "cliff_offset_bytes"),
			    f64_of(rec, "cliff_before_bytes_per_s") / MIB,
			    f64_of(rec, "cliff_after_bytes_per_s") / MIB, f64_of(rec, "cliff_ratio"));
	}
	return st->err;
}

static int legacy_end_run(void *state, const struct iob_run_end *end)
{
	struct legacy_state *st = state;
	for (size_t i = 0; i < end->nnotes; i++)
		legacy_printf(st, "Note: %s\n", end->notes[i]);
	if (end->interrupted)
		legacy_printf(
		    st, "Note: interrupted: the figures cover only the blocks read before the signal\n");
	else if (end->status != 0 && st->summary)
		legacy_printf(st, "Note: the read failed: the figures cover only the blocks read before the "
				  "error\n");
	return st->err;
}

static int legacy_close(void *state)
{
	free(state);
	return 0;
}

static const struct iob_output_ops legacy_ops = {
    .open = legacy_open,
    .begin_run = legacy_begin_run,
    .record = legacy_record,
    .end_run = legacy_end_run,
    .close = legacy_close,
};

const struct iob_plugin bigread_legacy_plugin = {
    IOB_PLUGIN_HEADER,
    .kind = IOB_PLUGIN_OUTPUT,
    .caps = 0,
    .name = "bigread",
    .summary = "bigread's own lines: BufSize, INDEX SPEED per block, Speed (all) and (robust), Cliff",
    .ops_size = sizeof(struct iob_output_ops),
    .output = &legacy_ops,
};
