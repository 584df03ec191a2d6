/*
 * render.c - the "iotest" output: the legacy iotest lines, as an output
 * plugin compiled into the tool.  It only formats what the records carry;
 * every figure was computed by the core.
 *
 * Records it knows (run.c builds them):
 *   comment          comment              -> the text on a line of its own
 *   cache_drop       mem_free_*_bytes     -> "MemFree: 1.845 2.881" (GiB, 3 decimals)
 *   iotest_settings  (verbose only)       -> two "iotest: ..." lines
 *   phase            one pass             -> [MemFree line] and the pass line:
 *     normal  HOST write 1024.0 mb in 1 kb blocks 0x45 at 103.79 mb/s in 9.9 seconds: 20160622.225020 FILE
 *     curt    HOST write 1024 mb 1 kb 0x00 109.11 mb/s 9.4 secs
 *   (the core's phase record, with iotest's fields after the base keys: pass,
 *   path as typed, stamp...; the host comes from the run facts)
 *   stream           --threads, verbose only: "iotest: pass N stream I ..."
 *   With --threads the phase record is the streams' aggregate: its bytes
 *   are their total, its rate total bytes over first start to last end, its
 *   path "FILE.{0..N-1}".
 *   mb = 2^20 bytes, kb = 2^10 bytes; the rate is bytes / unrounded seconds
 *   (the core's bw_bytes_per_s scaled to mb).  An interrupted pass gets
 *   " (interrupted)" at the end of its line, a pass that failed (an I/O
 *   error, a failed fsync or close) " (failed)".  Other kinds are ignored.
 * Notes (cache caveats) are not printed: iotest prints them on stderr, so
 * stdout keeps the legacy shape.
 *
 * Args: "curt", "verbose" or "curt+verbose".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/output.h"
#include "iobench/result.h"
#include "iobench/plugin.h"
#include "iobench/units.h"
#include "iotest.h"
#include "tool.h"

struct render_state {
	struct iob_sink sink;
	int curt, verbose;
	int err;
	uint64_t passes; /* pass records seen: a stream record belongs to the next */
	char host[256];
};

#define render_put(st, ...) iob_sink_printf(&(st)->sink, &(st)->err, 8192, __VA_ARGS__)

const char *iotest_verb(const char *op)
{
	if (strcmp(op, "verify") == 0)
		return "ver.";
	return op; /* "write", "read" */
}

static const double MB = 1048576.0, GIB = 1073741824.0;


static uint64_t render_pct(const struct iob_latency *l, double rank)
{
	for (size_t i = 0; i < l->npct; i++)
		if (l->pct[i] == rank)
			return l->value[i];
	return l->max;
}

/* host: the host column; "#all" for the aggregate of MPI ranks, which ends
 * with "ranks N" (a script reading the legacy lines skips lines that start
 * with '#') */
static int render_pass(struct render_state *st, const struct iob_record *r, const char *host)
{
	const char *op = iob_rec_str_at(r, "phase");
	const struct iob_field *ranks = strcmp(host, "#all") == 0 ? iob_rec_get(r, "ranks") : NULL;
	char all[48] = "";
	double mb = (double)iob_rec_u64_at(r, "bytes") / MB;
	uint64_t kb = iob_rec_u64_at(r, "block_size_bytes") >> 10;
	unsigned label = (unsigned)(iob_rec_u64_at(r, "pattern_label") & 0xffu);
	double rate = iob_rec_f64_at(r, "bw_bytes_per_s") / MB, secs = iob_rec_f64_at(r, "elapsed_s");
	const char *status = iob_rec_str_at(r, "status");
	const char *tail = strcmp(status, "interrupted") == 0 ? " (interrupted)"
			   : strcmp(status, "error") == 0   ? " (failed)"
							    : "";
	if (ranks && ranks->type == IOB_T_U64) {
		snprintf(all, sizeof all, " ranks %" PRIu64 "%s", ranks->v.u, tail);
		tail = all;
	}

	if (iob_rec_bool_at(r, "cache_dropped") && !ranks)
		render_put(st, "MemFree: %.3f %.3f\n", (double)iob_rec_u64_at(r, "mem_free_before_bytes") / GIB,
			   (double)iob_rec_u64_at(r, "mem_free_after_bytes") / GIB);
	if (st->curt)
		render_put(st, "%s %s %.0f mb %" PRIu64 " kb 0x%02x %.2f mb/s %.1f secs%s\n", host, iotest_verb(op), mb,
			   kb, label, rate, secs, tail);
	else if (ranks) /* the ranks' files are NAME.0 ... NAME.N-1 */
		render_put(st, "%s %s %.1f mb in %" PRIu64 " kb blocks 0x%02x at %.2f mb/s in %.1f seconds: %s%s\n",
			   host, iotest_verb(op), mb, kb, label, rate, secs, iob_rec_str_at(r, "stamp"), tail);
	else /* a control character in the name is escaped: it can never forge a line */
		render_put(st, "%s %s %.1f mb in %" PRIu64 " kb blocks 0x%02x at %.2f mb/s in %.1f seconds: %s %s%s\n",
			   host, iotest_verb(op), mb, kb, label, rate, secs, iob_rec_str_at(r, "stamp"),
			   iob_quote(iob_rec_str_at(r, "path"), (char[4200]){0}, 4200), tail);
	if (st->verbose && !ranks) {
		const struct iob_field *lf = iob_rec_get(r, "lat_ns");
		char mean[32] = "-", p99[32] = "-", max[32] = "-";
		if (lf && lf->type == IOB_T_LAT && lf->v.lat && lf->v.lat->count) {
			iob_format_ns(lf->v.lat->mean, mean, sizeof mean);
			iob_format_ns((double)render_pct(lf->v.lat, 99.0), p99, sizeof p99);
			iob_format_ns((double)lf->v.lat->max, max, sizeof max);
		}
		render_put(st,
			   "iotest: pass %" PRIu64 " %s %s: %" PRIu64 " bytes in %" PRIu64
			   " I/O calls, %.6f s, sync %.6f s; latency mean %s, p99 %s, max %s\n",
			   iob_rec_u64_at(r, "pass"), op, iob_rec_str_at(r, "pattern"), iob_rec_u64_at(r, "bytes"),
			   iob_rec_u64_at(r, "ops"), secs, iob_rec_f64_at(r, "sync_s"), mean, p99, max);
	}
	return st->err;
}

/* --threads, verbose: one line per stream, before its pass line. */
static int render_stream(struct render_state *st, const struct iob_record *r)
{
	if (!st->verbose)
		return 0;
	return render_put(st,
			  "iotest: pass %" PRIu64 " stream %" PRIu64 " %s: %" PRIu64
			  " bytes, %.6f s, %.2f mb/s, %s: %s\n",
			  st->passes + 1, iob_rec_u64_at(r, "stream"), iob_rec_str_at(r, "phase"), iob_rec_u64_at(r, "bytes"),
			  iob_rec_f64_at(r, "elapsed_s"), iob_rec_f64_at(r, "bw_bytes_per_s") / MB, iob_rec_str_at(r, "status"),
			  iob_quote(iob_rec_str_at(r, "file"), (char[4200]){0}, 4200));
}

static int render_settings(struct render_state *st, const struct iob_record *r)
{
	if (!st->verbose)
		return 0;
	render_put(st, "%s: version %s on %s: %" PRIu64 " pass%s of %" PRIu64 " bytes in %" PRIu64
		       "-byte blocks: %s\n",
		   iob_rec_str_at(r, "tool"), iob_rec_str_at(r, "version"), iob_rec_str_at(r, "host"), iob_rec_u64_at(r, "passes"),
		   iob_rec_u64_at(r, "passes") == 1 ? "" : "es", iob_rec_u64_at(r, "size_bytes"),
		   iob_rec_u64_at(r, "block_size_bytes"), iob_rec_str_at(r, "plan"));
	render_put(st, "iotest: seed %" PRIu64 ", fsync %s, backend %s, drop caches %s, sync %s, snooze %g s\n",
		   iob_rec_u64_at(r, "seed"), iob_rec_bool_at(r, "fsync") ? "on" : "off", iob_rec_str_at(r, "backend"),
		   iob_rec_str_at(r, "drop_caches"), iob_rec_str_at(r, "sync"), iob_rec_f64_at(r, "snooze_s"));
	return st->err;
}

static int render_open(const struct iob_sink *sink, const char *args, void **state)
{
	struct render_state *st;
	int curt = 0, verbose = 0;
	if (!sink || !sink->write || !state)
		return -EINVAL;
	if (args && *args) {
		char buf[64];
		if (strlen(args) >= sizeof buf)
			return -EINVAL;
		snprintf(buf, sizeof buf, "%s", args);
		char *save = NULL;
		for (char *t = strtok_r(buf, "+", &save); t; t = strtok_r(NULL, "+", &save)) {
			if (strcmp(t, "curt") == 0)
				curt = 1;
			else if (strcmp(t, "verbose") == 0)
				verbose = 1;
			else
				return -EINVAL;
		}
	}
	st = calloc(1, sizeof *st);
	if (!st)
		return -ENOMEM;
	st->sink = *sink;
	st->curt = curt;
	st->verbose = verbose;
	*state = st;
	return 0;
}

static int render_begin_run(void *state, const struct iob_run_info *run)
{
	struct render_state *st = state;
	snprintf(st->host, sizeof st->host, "%s", run && run->host ? run->host : "");
	return st->err;
}

static int render_record(void *state, const struct iob_record *rec)
{
	struct render_state *st = state;
	/* across MPI ranks: a "rank" record per rank (its own host), then the
	 * aggregate "phase" record, which has "ranks" */
	if (strcmp(rec->kind, "rank") == 0 && iob_rec_get(rec, "pass"))
		return render_pass(st, rec, iob_rec_str_at(rec, "host"));
	if (strcmp(rec->kind, "phase") == 0 && iob_rec_get(rec, "pass")) {
		st->passes++;
		return render_pass(st, rec, iob_rec_get(rec, "ranks") ? "#all" : st->host);
	}
	if (strcmp(rec->kind, "stream") == 0)
		return render_stream(st, rec);
	if (strcmp(rec->kind, "cache_drop") == 0)
		return render_put(st, "MemFree: %.3f %.3f\n", (double)iob_rec_u64_at(rec, "mem_free_before_bytes") / GIB,
				  (double)iob_rec_u64_at(rec, "mem_free_after_bytes") / GIB);
	if (strcmp(rec->kind, "comment") == 0)
		return render_put(st, "%s\n", iob_rec_str_at(rec, "comment"));
	if (strcmp(rec->kind, "iotest_settings") == 0)
		return render_settings(st, rec);
	return 0;
}

static int render_end_run(void *state, const struct iob_run_end *end)
{
	(void)end;
	return ((struct render_state *)state)->err;
}

IOBT_LEGACY_OUTPUT(iotest_render_plugin, render, "iotest",
		   "the legacy iotest result lines (args: curt, verbose)");
