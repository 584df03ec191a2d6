/*
 * iobench/output.h - a set of outputs open at once for one run.
 *
 * Spec syntax (--output): comma-separated items NAME[:ARGS][=FILE].  Without
 * =FILE an output writes to stdout; at most one output may own stdout.  FILE
 * is created only by iob_outputs_open, which callers make after every input
 * has been validated.
 */
#ifndef IOBENCH_OUTPUT_H
#define IOBENCH_OUTPUT_H

#include <stddef.h>
#include "iobench/loader.h"

#define IOB_MAX_OUTPUTS 8

struct iob_output_item {
	char name[64];
	char args[256];
	char file[4096]; /* empty: stdout */
};

struct iob_output_spec {
	size_t n;
	struct iob_output_item item[IOB_MAX_OUTPUTS];
};

/* Parse and check a spec against the registry (names exist, stdout used once,
 * FILE's directory exists, no two outputs on one file).  Touches no file.
 *
 * "One file" means the same device and inode for files that exist (so other
 * spellings, symlinks and hard links are caught), and the same normalised
 * path (realpath of the directory + the name) for files still to be made.
 * Character devices (/dev/null) may be shared.  An output file that is where
 * a redirected standard output already goes, while another output writes to
 * stdout, is refused too. */
int iob_output_spec_parse(const char *text, const struct iob_registry *reg, struct iob_output_spec *out,
			  char *err, size_t errlen);
/* Refuse an output that would write over one of the `protect` paths (the
 * jobs' data files, the profile and its includes: whatever the run reads or
 * writes), by the same rule of "one file".  Standard output counts when it
 * is redirected to a regular file.  Returns 0, or -EINVAL with a one-line
 * message naming the output's file and the protected path.  Call it after
 * iob_output_spec_parse and before anything is created.  NULL or empty
 * entries in protect are skipped. */
int iob_output_spec_check_paths(const struct iob_output_spec *spec, const char *const *protect, size_t nprotect,
				char *err, size_t errlen);

struct iob_outputs;
/* Open every output's file the checked way (outfile.h: no link followed, a
 * regular file or a character device, never a file the run reads or writes
 * or another output's), without emptying it, and open every output on its
 * sink; nothing reaches a file yet.  On failure, files this call created
 * are removed and nothing else is changed. */
int iob_outputs_open(struct iob_outputs **out, const struct iob_registry *reg,
		     const struct iob_output_spec *spec, char *err, size_t errlen);
/* The run starts: the files are emptied (unless appended to) and written
 * from now on.  iob_outputs_begin does it when it was not done.  Closing
 * outputs that were never committed removes the files they created. */
int iob_outputs_commit(struct iob_outputs *o, char *err, size_t errlen);
/* These call every output in turn, and every output still gets the call
 * after another failed, so each can finish its document.  Every write of
 * results is checked; each of these calls flushes what its outputs wrote
 * (and what batched records left), so a reader sees each record as it comes.
 * The first failure of any output - its plugin returned an error, or writing
 * or flushing its sink failed - is kept: these return it (as -errno) from
 * then on, 0 before. */
int iob_outputs_begin(struct iob_outputs *o, const struct iob_run_info *run);
int iob_outputs_record(struct iob_outputs *o, const struct iob_record *rec);
int iob_outputs_end(struct iob_outputs *o, const struct iob_run_end *end);
/* A record among many that come together while a phase runs (a series'
 * block records): a file or a pipe gets each with those before it when
 * 10 ms or more passed since the last such write, else when the stream's
 * buffer fills or with the next iob_outputs_record, iob_outputs_end or
 * close; a terminal still sees each at once.  Errors are
 * checked and kept as above. */
int iob_outputs_record_batch(struct iob_outputs *o, const struct iob_record *rec);
/* The kept failure as one line naming the output and its file, e.g.
 * "output json to /dev/full: No space left on device"; NULL when none.
 * Valid until close. */
const char *iob_outputs_error(const struct iob_outputs *o);
/* Whether a person sees the run's notes through the outputs: a `human`
 * output on a terminal, or bigread's own lines (their notes go to stderr).
 * When none does, the runner prints the notes on stderr (docs/outputs.md). */
int iob_outputs_show_notes(const struct iob_outputs *o);
/* Close outputs and files (fflush, ferror and fclose checked); returns the
 * first failure of the whole run, including one found only now, and copies
 * its message into err when err is not NULL ("" when none).  Failing to
 * write results is a failed run: exit 1. */
int iob_outputs_close_err(struct iob_outputs *o, char *err, size_t errlen);
/* iob_outputs_close_err(o, NULL, 0). */
int iob_outputs_close(struct iob_outputs *o);

/* printf onto a sink, for the renderers linked into the tools: nothing once
 * *err is set (it is sticky), and the first write error kept there; the text
 * is cut to cap - 1 bytes (at most 16383).  0, or that error. */
int iob_sink_printf(const struct iob_sink *sink, int *err, size_t cap, const char *fmt, ...) IOB_PRINTF(4, 5);

#endif
