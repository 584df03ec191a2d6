/*
 * iotest.h - the legacy `iotest` command on the iobench core.
 *
 * The tool is a small library (iotest_lib) with a thin main, so tests can
 * call each stage directly:
 *   opts.c        argv -> struct iotest_opts        (touches nothing)
 *   plan.c        opts -> a list of jobs, one per pass; --dump-profile
 *   run.c         runs the passes through the core runner, with hooks for
 *                 iotest's sync, cache drops, snooze and record fields
 *   render.c      the "iotest" output plugin: the legacy stdout lines
 * The legacy behaviour and the decisions taken where the original is silent
 * are documented in docs/man/iotest.1.
 */
#ifndef IOTEST_H
#define IOTEST_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "iobench/loader.h"
#include "iobench/plugin.h"
#include "iobench/runner.h"
#include "iobench/units.h"

#define IOTEST_MAX_PATTERNS 64
#define IOTEST_MAX_STEPS (2 * IOTEST_MAX_PATTERNS + 1)
#define IOTEST_DEFAULT_SIZE_MB 128u
#define IOTEST_DEFAULT_BLOCK_KB 1u
#define IOTEST_DEFAULT_SEED 281374660ull /* the core's default seed (docs/profiles.md) */
#define IOTEST_MAX_SNOOZE_S 86400.0

/* A file name quoted for a one-line message: control characters as \xNN,
 * cut (with "...") only past 1000 characters. */
#define IOTEST_QPATH(path) iob_quote((path), (char[1024]){0}, 1024)

struct iotest_opts {
	int read, write, nosync, verify_last, verify_all, truncate;
	int curt, verbose;
	enum iob_priv drop, sync;
	uint64_t size_mb;
	uint64_t block_kb;
	size_t npatterns;
	struct iob_pattern patterns[IOTEST_MAX_PATTERNS]; /* seeds filled in by the plan */
	const char *input;  /* -i: file read and verified */
	const char *output; /* -o or the file argument: file written */
	double snooze_s;
	const char *comment;
	uint64_t seed;
	const char *backend;
	const char *backend_options; /* --backend-options, NULL for none */
	const char *format; /* --format list; NULL = "iotest" */
	const char *plugin_dirs[IOB_MAX_PLUGIN_DIRS];
	size_t nplugin_dirs;
	int dump_profile;
	int allow_device;
	uint32_t threads; /* --threads: streams per pass, each on FILE.<i> (1: the legacy single file) */
	uint32_t iodepth; /* --iodepth: I/Os in flight per stream */
	int help, version;
};

/* Parse argv.  Returns 0, or IOB_EXIT_USAGE with a one-line reason in err.
 * -h/-V only set opts->help/version.  Touches no file. */
/* Write a one-line refusal into err; returns IOB_EXIT_USAGE. */
int iotest_fail(char *err, size_t errlen, const char *fmt, ...) IOB_PRINTF(3, 4);
int iotest_parse_args(int argc, char **argv, struct iotest_opts *opts, char *err, size_t errlen);
/* Append the passes of one -p string (0 1 2 3 4 =c /hh) to opts->patterns. */
int iotest_parse_patterns(const char *text, struct iotest_opts *opts, char *err, size_t errlen);
void iotest_usage(FILE *f);

/* One job per pass: a write, read or verify of one file.  Jobs are what
 * --dump-profile prints, so `iobench run` repeats the same passes. */
struct iotest_plan {
	size_t njobs;
	struct iob_job *jobs;       /* njobs, heap */
	const char *paths[IOTEST_MAX_STEPS]; /* each job's file as the user typed it */
	uint64_t size;              /* bytes per pass, rounded up to whole blocks */
	uint64_t block;             /* bytes per I/O */
	int rounded;                /* size was rounded up to whole blocks */
};

/* Build the passes from opts (no file is touched).  0 or IOB_EXIT_USAGE. */
int iotest_plan_build(const struct iotest_opts *opts, struct iotest_plan *plan, char *err, size_t errlen);
void iotest_plan_free(struct iotest_plan *plan);
/* Every check a run makes before creating anything: targets, backend,
 * directories, space.  0 or IOB_EXIT_USAGE with the reason. */
int iotest_plan_check(const struct iotest_opts *opts, const struct iotest_plan *plan,
		      const struct iob_registry *reg, char *err, size_t errlen);
/* Print the plan as an INI profile `iobench run` executes (absolute dirs). */
int iotest_plan_dump(FILE *f, const struct iotest_opts *opts, const struct iotest_plan *plan, const char *cmdline,
		     char *err, size_t errlen);

/* Run the plan into the outputs given by opts.  Returns the exit code and
 * prints the error line itself. */
int iotest_run(const struct iotest_opts *opts, const struct iotest_plan *plan, const struct iob_registry *reg,
	       const char *cmdline);

/* The legacy line renderer, an output plugin compiled into the tool.
 * Args: "curt", "verbose", or "curt+verbose". */
extern const struct iob_plugin iotest_render_plugin;

/* A pass's file as the lines name it: the path as typed, or with --threads
 * the streams' files as "PATH.{0..N-1}" (written into buf). */
const char *iotest_shown_path(const struct iob_job *job, const char *path, char *buf, size_t len);

/* The verb the legacy lines use: "write", "read", "ver.". */
const char *iotest_verb(const char *op);

#endif
