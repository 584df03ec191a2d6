/*
 * iobench/cli.h - what every binary's main shares: exit codes, one-line
 * errors and signal handling.  The run itself is runner.h's.
 */
#ifndef IOBENCH_CLI_H
#define IOBENCH_CLI_H

#include <signal.h>
#include "iobench/loader.h"
#include "iobench/output.h"
#include "iobench/result.h"

/* Exit codes shared by all four binaries (docs/architecture.md). */
enum {
	IOB_EXIT_OK = 0,
	IOB_EXIT_FAIL = 1,     /* the run failed: I/O error, disk full, ... */
	IOB_EXIT_USAGE = 2,    /* bad input: options, profile, plugin, target */
	IOB_EXIT_MISMATCH = 3, /* verify found data that differs from the pattern */
};

/* Print "PROGRAM: error: MESSAGE" on stderr and return code. */
int iob_cli_fail(int code, const char *fmt, ...) IOB_PRINTF(2, 3);
/* Log (at info level: shown with -v) each plugin that failed to load. */
void iob_cli_report_load_errors(const struct iob_registry *reg);
/* The exit code for a run's status (0, IOB_STATUS_MISMATCH, -errno) and the
 * signal that stopped it (0 if none): 128 + signal when interrupted. */
int iob_cli_exit_code(int status, int signal_number);

/* The stop flag set by SIGINT/SIGTERM once iob_cli_trap_signals ran. */
extern volatile sig_atomic_t iob_cli_stop;
void iob_cli_trap_signals(void);

/* First thing in a main, before anything is opened: standard input,
 * output or error found closed is opened on the null device (os.h), so no
 * file the tool opens becomes one of them.  A closed standard output is
 * refused: the tool writes its results there (exit 2, one line on
 * stderr).  Returns 0 or the exit code. */
int iob_cli_std_fds(void);
/* Set by iob_cli_std_fds: standard input was closed at start, so it cannot
 * be read as data (check.c refuses a job reading '-'). */
extern int iob_cli_stdin_closed;

/* Hand the run's end to the outputs: notes, status and error. */
int iob_cli_end_run(struct iob_outputs *out, const struct iob_notes *notes, int status, int interrupted,
		    const char *error);

/* For the tools that do not run across MPI ranks (io_profile, bigread):
 * under an MPI launcher, one line (from rank 0 only) and IOB_EXIT_USAGE;
 * otherwise 0. */
int iob_cli_refuse_mpi(const char *tool);

#endif
