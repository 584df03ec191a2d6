/*
 * io_profile.h - the io_profile tool: random-access size sweeps over one file
 * or a tree of files, as the legacy io_profile ran them, on the iobench core.
 *
 * The tool is a small static library (io_profile_tool, so tests and fuzzers
 * can call its parser) of three pieces, each a file:
 *   options.c  the legacy command line -> struct iop_opts -> the jobs below
 *   run.c      runs the jobs through the core runner, emits the tool's own
 *              records around the sweeps, removes what the run created
 *   render.c   the "io_profile" output plugin (compiled in): the legacy
 *              header block and CSV rows, or only the CSV with ":quiet"
 * main.c only wires them together.
 *
 * A run is four jobs, in this order (--dump-profile prints exactly them):
 *   create   sequential write of every file to its full size, synced (untimed
 *            for the report: no record reaches the outputs)
 *   warmup   random reads at the largest I/O size (no record either)
 *   write    the write sweep: random offsets, sizes min..max doubling
 *   read     the read sweep, the same way
 * With -r only warmup and read run, on existing files.
 */
#ifndef IO_PROFILE_H
#define IO_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "iobench/job.h"
#include "iobench/loader.h"
#include "iobench/output.h"
#include "iobench/result.h"

#define IOP_TOOL "io_profile"
#define IOP_SINGLE_FILE "io_profile_file.out"
#define IOP_MAX_PLUGIN_DIRS 16
/* --backend-options, with room left in the job's text for -b's "dsync=1," */
#define IOP_MAX_BACKEND_OPTIONS 246

/* Record kinds the tool adds to the core's "phase" records. */
#define IOP_REC_TEST "io_profile_test"	 /* before each sweep: its parameters */
#define IOP_REC_FILES "io_profile_files" /* after the sweeps: where the files are */
#define IOP_REC_TREE "io_profile_tree"   /* --tree-rates: the tree made and removed, how fast */
/* The last field of a row whose sweep a stop signal cut short (io_profile(1)). */
#define IOP_ROW_INTERRUPTED "interrupted"

/* The legacy defaults (../shared/LEGACY.md). */
#define IOP_DEF_LEVELS 3
#define IOP_DEF_FILES 4
#define IOP_DEF_FILE_SIZE 4194304ull
#define IOP_DEF_MIN_IO 2ull
#define IOP_DEF_MAX_IO 65536ull
#define IOP_DEF_REPS 1000ull
#define IOP_DEF_WARMUP 100ull
#define IOP_CREATE_CHUNK (1ull << 20) /* block size of the create job */

/* What the command line asked for. */
struct iop_opts {
	int single;	    /* -s: one file instead of the tree */
	uint32_t levels;    /* --levels */
	uint32_t files;	    /* --files */
	uint64_t file_size; /* -l */
	int file_size_set;
	uint64_t min_io; /* -m */
	int min_io_set;
	uint64_t max_io;     /* -M */
	uint64_t reps;	     /* -n */
	uint32_t repeat;     /* --repeat: runs of each sweep row (docs/statistics.md) */
	uint64_t warmup;     /* --warmup: operations, 0 = none */
	uint64_t seed;	     /* --seed */
	int bypass;	     /* -b */
	int read_only;	     /* -r */
	int quiet;	     /* -q */
	int keep_open;	     /* --keep-open */
	int remove;	     /* --remove */
	int tree_rates;	     /* --tree-rates: time the tree's making and removal */
	int dump;	     /* --dump-profile */
	const char *backend; /* --backend, NULL = stdio (direct with -b) */
	const char *backend_options; /* --backend-options, NULL = none */
	const char *outspec; /* --output, NULL = io_profile */
	const char *dir;     /* --dir, default "." */
	const char *plugin_dirs[IOP_MAX_PLUGIN_DIRS];
	size_t nplugin_dirs;
	int help, version;  /* -h, -v: print that and stop (the rest is not parsed) */
	char cmdline[2048]; /* the command line, for the run facts and the profile */
};

/* What options.c derives from the options and the target, for run.c. */
struct iop_plan {
	struct iob_job job[4]; /* create, warmup, write, read; unused ones have no phases */
	int use[4];
	int bypass;	     /* the backend bypasses the page cache (-b) */
	uint32_t dio_align;  /* direct I/O alignment in use, 1 without direct I/O */
	char absdir[4096];   /* the directory, resolved */
	char io_method[256]; /* the "Synch mode" text */
	uint64_t top_io;     /* the largest size the sweep reaches */
};
enum { IOP_JOB_CREATE = 0, IOP_JOB_WARMUP = 1, IOP_JOB_WRITE = 2, IOP_JOB_READ = 3 };

/* options.c.  iop_parse_args parses argv into *o (defaults first), prints
 * nothing and touches no file: 0, or IOB_EXIT_USAGE with a one-line reason
 * in err.  -h and -v only set o->help and o->version.  It may be called again
 * (getopt is reset each time).  iop_plan returns 0 or an exit code after
 * printing a one-line error. */
int iop_parse_args(int argc, char **argv, struct iop_opts *o, char *err, size_t errlen);
int iop_plan(const struct iop_opts *o, const struct iob_registry *reg, struct iop_plan *p);
void iop_usage(FILE *f);
void iop_version(FILE *f);

/* run.c: print the profile, or run the plan; return the exit code. */
int iop_dump_profile(const struct iop_opts *o, const struct iop_plan *p);
int iop_run(const struct iop_opts *o, const struct iop_plan *p, const struct iob_registry *reg,
	    struct iob_output_spec *spec);

/* render.c: the compiled-in "io_profile" output plugin. */
extern const struct iob_plugin iop_render_plugin;
/* The line the renderer prints for an IOP_REC_FILES record. */
void iop_files_line(const struct iob_record *rec, char *buf, size_t len);

#endif
