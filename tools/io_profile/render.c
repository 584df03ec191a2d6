/*
 * render.c - the "io_profile" output plugin, compiled into the tool: the
 * legacy io_profile layout.  It formats what the core and the tool recorded
 * and computes nothing (the rates are the core's bw_bytes_per_s and
 * ops_per_s; for these jobs every counted operation moved exactly its size,
 * so bytes / time is operations x size / time).
 *
 *   IO profile test parameters            once, at the first IOP_REC_TEST
 *   --------------------------
 *   Date: ... Location: host:dir  File mode: ...  Synch mode: ...
 *   File size: ...  Reads (Writes) from X to Y bytes  Repetitions ...
 *
 *   Conducting write test...              at each IOP_REC_TEST
 *   I/O size [bytes], operations, ...     the CSV header
 *   2,1000,0.012345,162012.345678,81006.172839   one "phase" record each
 *   Done with write test                  when the next test starts, or at
 *                                         the end of a run that succeeded:
 *                                         the last line, as the original's
 *   and "(interrupted)" after a stop signal, whose partial row ends in
 *   ",interrupted" (IOP_ROW_INTERRUPTED).  The run's notes and the
 *   IOP_REC_FILES line are not printed here: the tool puts them on stderr,
 *   as iotest does its notes, so stdout keeps the legacy layout.
 *
 * Args: "quiet" prints only the CSV header and rows of each test, the blocks
 * separated by one empty line.  A row of a run that asked to bypass the cache
 * whose phase did not report direct I/O ends in ",not bypassed".  Phase
 * records that failed are not rows (the error goes to stderr).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io_profile.h"
#include "iobench/output.h"
#include "iobench/result.h"
#include "iobench/plugin.h"
#include "iobench/units.h"
#include "tool.h"

#define IOPR_CSV_HEADER "I/O size [bytes], operations, time [s], throughput [bytes/s], I/O rate [1/s]\n"

struct iopr {
	struct iob_sink sink;
	int quiet;
	int err;	 /* first sink error, sticky */
	int header_done; /* the parameter block is out */
	char test[16];	 /* the open test block, "" when none */
	int bypass;	 /* the open test asked to bypass the cache */
	char host[256];
	char date[64];
};

#define iopr_printf(st, ...) iob_sink_printf(&(st)->sink, &(st)->err, IOB_PATH_MAX + 1024, __VA_ARGS__)

/* ---- record fields -------------------------------------------------------- */

/* ---- pieces of the layout ------------------------------------------------- */

/* "2024-05-01T10:00:00+0200" as the original printed dates: ctime's layout. */
static void legacy_date(const char *iso, char *out, size_t len)
{
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	snprintf(out, len, "%s", iso ? iso : "");
	if (!iso || sscanf(iso, "%d-%d-%dT%d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
			   &tm.tm_min, &tm.tm_sec) != 6)
		return;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	tm.tm_isdst = -1;
	char day[16], clock[32]; /* %e spelled out: msvcrt's strftime lacks it */
	if (mktime(&tm) != (time_t)-1 && /* fills in the weekday */
	    strftime(day, sizeof day, "%a %b", &tm) && strftime(clock, sizeof clock, "%H:%M:%S %Y", &tm))
		snprintf(out, len, "%s %2d %s", day, tm.tm_mday, clock);
}

static void parameter_block(struct iopr *st, const struct iob_record *r)
{
	char mode[IOB_PATH_MAX + 64];
	if (strcmp(iob_rec_str_at(r, "layout"), "tree") == 0)
		snprintf(mode, sizeof mode,
			 "Multi-file filesystem, %" PRIu64 " levels, %" PRIu64 " files per level",
			 iob_rec_u64_at(r, "tree_levels"), iob_rec_u64_at(r, "tree_files"));
	else
		snprintf(mode, sizeof mode, "Single file, %s", iob_rec_str_at(r, "filename"));
	/* names are escaped: a newline or a control byte in one never forges a
	 * line or reaches the terminal raw */
	char host[1100], dir[IOB_PATH_MAX + 512], qmode[IOB_PATH_MAX + 512], method[1100];
	iopr_printf(st, "IO profile test parameters\n--------------------------\n");
	iopr_printf(st, "Date: %s\nLocation: %s:%s\nFile mode: %s\nSynch mode: %s\n", st->date,
		    iob_quote(st->host, host, sizeof host), iob_quote(iob_rec_str_at(r, "dir"), dir, sizeof dir),
		    iob_quote(mode, qmode, sizeof qmode), iob_quote(iob_rec_str_at(r, "io_method"), method, sizeof method));
	iopr_printf(st, "File size: %" PRIu64 " bytes\n", iob_rec_u64_at(r, "file_size_bytes"));
	iopr_printf(st, "Reads (Writes) from %" PRIu64 " to %" PRIu64 " bytes\n",
		    iob_rec_u64_at(r, "io_size_min_bytes"), iob_rec_u64_at(r, "io_size_max_bytes"));
	iopr_printf(st, "Repetitions per read (write) size: %" PRIu64 "\n\n", iob_rec_u64_at(r, "repetitions"));
	st->header_done = 1;
}

static void close_block(struct iopr *st)
{
	if (!st->test[0])
		return;
	if (st->quiet)
		iopr_printf(st, "\n");
	else
		iopr_printf(st, "Done with %s test\n\n", st->test);
	st->test[0] = '\0';
}

static void start_test(struct iopr *st, const struct iob_record *r)
{
	if (!st->quiet && !st->header_done)
		parameter_block(st, r);
	close_block(st);
	snprintf(st->test, sizeof st->test, "%s", iob_rec_str_at(r, "test"));
	st->bypass = iob_rec_bool_at(r, "bypass");
	if (!st->quiet)
		iopr_printf(st, "Conducting %s test...\n", st->test);
	iopr_printf(st, IOPR_CSV_HEADER);
}

static void row(struct iopr *st, const struct iob_record *r)
{
	const char *status = iob_rec_str_at(r, "status");
	if (!st->test[0] || (strcmp(status, "ok") != 0 && strcmp(status, "interrupted") != 0))
		return;
	iopr_printf(st, "%" PRIu64 ",%" PRIu64 ",%f,%f,%f%s%s\n", iob_rec_u64_at(r, "block_size_bytes"), iob_rec_u64_at(r, "ops"),
		    iob_rec_f64_at(r, "elapsed_s"), iob_rec_f64_at(r, "bw_bytes_per_s"), iob_rec_f64_at(r, "ops_per_s"),
		    st->bypass && !iob_rec_bool_at(r, "direct") ? ",not bypassed" : "",
		    strcmp(status, "interrupted") == 0 ? "," IOP_ROW_INTERRUPTED : "");
}

void iop_files_line(const struct iob_record *r, char *buf, size_t len)
{
	uint64_t n = iob_rec_u64_at(r, "files"), size = iob_rec_u64_at(r, "file_size_bytes");
	uint64_t rf = iob_rec_u64_at(r, "removed_files"), rd = iob_rec_u64_at(r, "removed_dirs"),
		 kept = iob_rec_u64_at(r, "kept_existing_files");
	int tree = strcmp(iob_rec_str_at(r, "layout"), "tree") == 0;
	char shown[IOB_PATH_MAX + 512];
	const char *path = iob_quote(iob_rec_str_at(r, "path"), shown, sizeof shown); /* one line, whatever it holds */
	if (!iob_rec_bool_at(r, "removed") && !iob_rec_bool_at(r, "complete")) {
		/* the run stopped while creating them: never shown as whole files */
		if (tree)
			snprintf(buf, len,
				 "Test files left behind, incomplete (the run stopped while creating them): "
				 "%" PRIu64 " files in the tree %s, %" PRIu64 " of them shorter than %" PRIu64
				 " bytes",
				 n, path, iob_rec_u64_at(r, "short_files"), size);
		else
			snprintf(buf, len,
				 "Test file left behind, incomplete (the run stopped while creating it): %s "
				 "(%" PRIu64 " of %" PRIu64 " bytes)",
				 path, iob_rec_u64_at(r, "present_bytes"), size);
		return;
	}
	if (!iob_rec_bool_at(r, "removed")) {
		if (tree)
			snprintf(buf, len,
				 "Test files left behind: %" PRIu64 " files of %" PRIu64
				 " bytes in the tree %s",
				 n, size, path);
		else
			snprintf(buf, len, "Test file left behind: %s (%" PRIu64 " bytes)", path, size);
		return;
	}
	char extra[128] = "";
	if (kept)
		snprintf(extra, sizeof extra, "; %" PRIu64 " file%s that existed before the run kept", kept,
			 kept == 1 ? "" : "s");
	snprintf(buf, len,
		 "Test files removed: %" PRIu64 " file%s and %" PRIu64
		 " director%s this run created, at %s%s",
		 rf, rf == 1 ? "" : "s", rd, rd == 1 ? "y" : "ies", path, extra);
}

/* ---- ops ------------------------------------------------------------------ */

static int iopr_open(const struct iob_sink *sink, const char *args, void **state)
{
	if (args && strcmp(args, "quiet") != 0)
		return -EINVAL; /* the outputs layer names the output and the args */
	struct iopr *st = calloc(1, sizeof *st);
	if (!st)
		return -ENOMEM;
	st->sink = *sink;
	st->quiet = args != NULL;
	*state = st;
	return 0;
}

static int iopr_begin_run(void *state, const struct iob_run_info *run)
{
	struct iopr *st = state;
	snprintf(st->host, sizeof st->host, "%s", run->host ? run->host : "");
	legacy_date(run->started, st->date, sizeof st->date);
	return st->err;
}

static int iopr_record(void *state, const struct iob_record *rec)
{
	struct iopr *st = state;
	if (strcmp(rec->kind, IOP_REC_TEST) == 0)
		start_test(st, rec);
	else if (strcmp(rec->kind, "phase") == 0)
		row(st, rec);
	return st->err;
}

static int iopr_end_run(void *state, const struct iob_run_end *end)
{
	struct iopr *st = state;
	if (st->quiet)
		return st->err;
	if (st->test[0] && end->status == 0 && !end->interrupted)
		iopr_printf(st, "Done with %s test\n", st->test);
	if (end->interrupted)
		iopr_printf(st, "(interrupted)\n");
	return st->err;
}

IOBT_LEGACY_OUTPUT(iop_render_plugin, iopr, "io_profile",
		   "the legacy io_profile layout: parameter block and CSV rows (io_profile:quiet = CSV only)");
