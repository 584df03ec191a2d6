/*
 * tool.h - what the binaries share (tools/common/, a static library linked
 * into each): their command lines' plain options, the options iobench
 * added to every legacy tool and to its own, parsed one way, and the shape
 * of a legacy renderer.  Each tool keeps its own letters, words and
 * messages for the rest; nothing here touches a file.
 */
#ifndef IOB_TOOLS_TOOL_H
#define IOB_TOOLS_TOOL_H

#include <stddef.h>
#include <stdlib.h>

#include "iobench/plugin.h"

/* An option stored as it is given: a flag sets an int of the tool's
 * options to 1, a text option keeps its argument in a const char *.  Its
 * code (the letter, or the tool's code for a long option), where that
 * member is (offsetof in the tool's options struct) and which kind. */
struct iobt_plain {
	int code;
	size_t at;
	int text; /* 0: an int flag; 1: a const char * argument */
};
#define IOBT_FLAG(type, c, m) {c, offsetof(type, m), 0}
#define IOBT_TEXT(type, c, m) {c, offsetof(type, m), 1}
/* Store the option `code` (its argument arg) in opts: 1 when it is one of
 * the n plain options, else 0 (nothing stored). */
int iobt_set_plain(const struct iobt_plain *plain, size_t n, int code, const char *arg, void *opts);

/* --plugin-dir DIR: add dir to the *n of dirs, at most max; 0, or -E2BIG
 * with "too many --plugin-dir options (at most MAX)" in err. */
int iobt_plugin_dir(const char **dirs, size_t *n, size_t max, const char *dir, char *err, size_t errlen);

/* --progress WHEN (auto, always, never: iob_progress_mode); 0, or -EINVAL
 * with "--progress 'WHEN': give auto, always or never" in err. */
int iobt_progress(const char *when, char *err, size_t errlen);

/* The long options (getopt_long rows) iobench added to the legacy tools
 * that parse with getopt (iotest, io_profile), each with the tool's code. */
#define IOBT_LONGOPTS(backend, plugin_dir, backend_options, progress, dump_profile)                          \
	{"backend", required_argument, NULL, backend}, {"plugin-dir", required_argument, NULL, plugin_dir},      \
	    {"backend-options", required_argument, NULL, backend_options},                                    \
	    {"progress", required_argument, NULL, progress}, {"dump-profile", no_argument, NULL, dump_profile}

/* A legacy tool's renderer (an output linked into the binary) whose state
 * is one allocation: IOB_BUILTIN_OUTPUT over p_open, p_begin_run, p_record
 * and p_end_run, with a p_close that frees the state. */
#define IOBT_LEGACY_OUTPUT(var, p, name, summary)                                                            \
	static int p##_close(void *state)                                                                   \
	{                                                                                                   \
		free(state);                                                                                \
		return 0;                                                                                   \
	}                                                                                                   \
	IOB_BUILTIN_OUTPUT(var, p, name, summary)

#endif
