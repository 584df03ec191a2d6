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
 * FILE's directory exists).  Touches no file. */
int iob_output_spec_parse(const char *text, const struct iob_registry *reg, struct iob_output_spec *out,
			  char *err, size_t errlen);

struct iob_outputs;
int iob_outputs_open(struct iob_outputs **out, const struct iob_registry *reg,
		     const struct iob_output_spec *spec, char *err, size_t errlen);
/* These call every output in turn; the first error is returned (as -errno)
 * but every output still gets the call, so each can finish its document. */
int iob_outputs_begin(struct iob_outputs *o, const struct iob_run_info *run);
int iob_outputs_record(struct iob_outputs *o, const struct iob_record *rec);
int iob_outputs_end(struct iob_outputs *o, const struct iob_run_end *end);
/* Close outputs and files; returns the first error (e.g. a failed fclose). */
int iob_outputs_close(struct iob_outputs *o);

#endif
