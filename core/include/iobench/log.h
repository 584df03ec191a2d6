/*
 * iobench/log.h - the core's one logging channel: lines to stderr, prefixed
 * with the program name and who is speaking.  The same function is handed to
 * plugins in the host table.  Tests may redirect lines to a hook.
 */
#ifndef IOBENCH_LOG_H
#define IOBENCH_LOG_H

#include "iobench/plugin.h"

void iob_log(int level, const char *who, const char *fmt, ...) IOB_PRINTF(3, 4);
/* Lines above this level are dropped (default IOB_LOG_WARN). */
void iob_log_set_level(int level);
/* Program name printed before each line (default "iobench"). */
void iob_log_set_program(const char *name);
const char *iob_log_program(void);
/* Send lines to hook instead of stderr (NULL restores stderr). */
void iob_log_set_hook(void (*hook)(int level, const char *line, void *arg), void *arg);
/* Call fn before each line is written to stderr (a line drawn in place,
 * the progress line, clears itself; NULL: nothing).  The progress module
 * registers it when it starts an observer, so the logger depends on no
 * module above it.  Safe to set while other threads log. */
void iob_log_set_before_line(void (*fn)(void));
/* A hook that holds the first error line (for a caller that folds a plugin's
 * reason into its own one-line error) and writes every other line to stderr:
 * iob_log_set_hook(iob_log_hold, &held), then read held.reason. */
struct iob_log_held {
	char line[1200];   /* the held error line */
	char reason[1200]; /* its text after "error: " */
};
void iob_log_hold(int level, const char *line, void *arg);

#endif
