/*
 * bigread.h - the bigread tool as a small library: its command line, its
 * legacy renderer (an output plugin compiled into the binary) and the run
 * that ties them to the core.  main.c only calls bigread_main; the unit
 * tests call the parser directly.
 *
 * Records the run hands to its outputs (docs/man/bigread.1, RECORDS):
 *   "series"  once, before the first block: what is read and how it is timed;
 *   "block"   once per block, in file order;
 *   "phase"   once, after the last block: the core's phase record with the
 *             block figures and the cliff.
 */
#ifndef BIGREAD_H
#define BIGREAD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "iobench/job.h"
#include "iobench/loader.h"

/* Record kinds and the keys the legacy renderer reads: the core's series
 * records (iobench/blocks.h) and its phase record (the full lists are in
 * bigread(1)). */
#define BR_REC_INPUT "series"
#define BR_REC_BLOCK "block"
#define BR_REC_SUMMARY "phase"
#define BR_K_BUFSIZE "block_size_bytes"
#define BR_K_INDEX "index"
#define BR_K_SPEED "speed_bytes_per_s"

/* The largest buffer: one read call of the engine. */
#define BIGREAD_MAX_BUFSIZE ((uint64_t)1 << 31)
/* bufsize when none is given, as the legacy tool had it: 1 GiB. */
#define BIGREAD_DEFAULT_BUFSIZE ((uint64_t)1 << 30)

struct bigread_args {
	char in[IOB_PATH_MAX]; /* file, or "-" for standard input */
	int have_in;
	uint64_t bufsize;      /* bytes */
	char bufsize_text[64]; /* as given, for messages */
	enum iob_clock clock;  /* mode= */
	const char *backend;   /* NULL: stdio for "-", posix for a file */
	const char *outspec;   /* --output, default "bigread" */
	const char *plugin_dirs[IOB_MAX_PLUGIN_DIRS];
	size_t nplugin_dirs;
	const char *backend_options; /* --backend-options, NULL for none */
	int dump_profile;  /* print the equivalent profile instead of reading */
	int evict;	   /* evict the file from the page cache first */
	int allow_devices; /* a block device may be read */
	int verbose;
	int help, version;
};

/* Parse argv into *a (defaults first).  Returns 0, or -EINVAL with a
 * one-line reason in err.  Keywords in=, bufsize=, mode= in any order;
 * bare arguments fill the parameters no keyword named, in the order
 * in, bufsize, mode; options anywhere; "--" ends the options. */
int bigread_parse_args(int argc, char **argv, struct bigread_args *a, char *err, size_t errlen);

/* bufsize= text to bytes: a plain number is GiB (2^30), fractions allowed
 * and the byte count truncated (0.1 -> 107374182); a number with a unit
 * (4M, 64KiB, 1GB; iobench/units.h) is that size.  Must come to at least one
 * byte and at most BIGREAD_MAX_BUFSIZE. */
int bigread_parse_bufsize(const char *text, uint64_t *bytes, char *err, size_t errlen);
/* mode= text: 0 user, 1 system, 2 process CPU, 3 wall; or those names. */
int bigread_parse_mode(const char *text, enum iob_clock *clock, char *err, size_t errlen);

void bigread_usage(FILE *f);

/* The compiled-in legacy renderer, registered as output "bigread". */
extern const struct iob_plugin bigread_legacy_plugin;

/* The whole tool; returns the exit code. */
int bigread_main(int argc, char **argv);

#endif
