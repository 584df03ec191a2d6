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
 *
 * and on standard error, at the end:
 *   Note: ...                                          (each caveat)
 *   Note: interrupted: ... / Note: the read failed: ...  (a partial summary)
 *
 * Numbers print with %g, as the legacy tool printed them.  The sink writes
 * block lines coming less than 10 ms apart together when it is not a
 * terminal (core/src/output.c).  Errors are not
 * printed here: the tool says them once on stderr.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bigread.h"
#include "iobench/output.h"
#include "iobench/plugin.h"
#include "iobench/result.h"
#include "tool.h"

#define MIB 1048576.0

struct legacy_state {
	struct iob_sink sink;
	int err;     /* first sink error, sticky */
	int summary; /* a summary was printed */
};

#define legacy_printf(st, ...) ((void)iob_sink_printf(&(st)->sink, &(st)->err, 1024, __VA_ARGS__))

/* A block line, "INDEX SPEED\n", SPEED with %g as the legacy tool printed
 * it. */
static void legacy_block_line(struct legacy_state *st, uint64_t index, double v)
{
	legacy_printf(st, "%" PRIu64 " %g\n", index, v);
}

static double f64_of(const struct iob_record *rec, const char *key)
{
	const struct iob_field *f = iob_rec_get(rec, key);
	return f && f->type == IOB_T_U64 ? (double)f->v.u : iob_rec_f64_at(rec, key);
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
	legacy_printf(st, "Speed: n=%" PRIu64 " min=%g max=%g mean=%g median=%g rms=%g (%s)\n",
		      iob_rec_u64_at(rec, key), v[0], v[1], v[2], v[3], v[4], label);
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
		legacy_printf(st, "BufSize: %" PRIu64 " bytes\n", iob_rec_u64_at(rec, BR_K_BUFSIZE));
	} else if (strcmp(kind, BR_REC_BLOCK) == 0) {
		legacy_block_line(st, iob_rec_u64_at(rec, BR_K_INDEX), f64_of(rec, BR_K_SPEED) / MIB);
	} else if (strcmp(kind, BR_REC_SUMMARY) == 0) {
		st->summary = 1;
		legacy_speed_line(st, rec, "speed_", "all");
		legacy_speed_line(st, rec, "robust_", "robust");
		if (iob_rec_bool_at(rec, "cliff"))
			legacy_printf(
			    st,
			    "Cliff: block=%" PRIu64 " offset=%" PRIu64 " before=%g after=%g ratio=%g\n",
			    iob_rec_u64_at(rec, "cliff_block"), iob_rec_u64_at(rec, "cliff_offset_bytes"),
			    f64_of(rec, "cliff_before_bytes_per_s") / MIB,
			    f64_of(rec, "cliff_after_bytes_per_s") / MIB, f64_of(rec, "cliff_ratio"));
	}
	return st->err;
}

/* The notes go to standard error, "Note: TEXT" each, after whatever the
 * sink holds (iotest and io_profile warn there too): stdout keeps only the
 * legacy lines. */
static void legacy_note(const char *fmt, ...) IOB_PRINTF(1, 2);
static void legacy_note(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("Note: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static int legacy_end_run(void *state, const struct iob_run_end *end)
{
	struct legacy_state *st = state;
	fflush(stdout);
	for (size_t i = 0; i < end->nnotes; i++)
		legacy_note("%s", end->notes[i]);
	if (end->interrupted)
		legacy_note("interrupted: the figures cover only the blocks read before the signal");
	else if (end->status != 0 && st->summary)
		legacy_note("the read failed: the figures cover only the blocks read before the error");
	fflush(stderr);
	return st->err;
}

IOBT_LEGACY_OUTPUT(bigread_legacy_plugin, legacy, "bigread",
		   "bigread's own lines: BufSize, INDEX SPEED per block, Speed (all) and (robust), Cliff");
