/*
 * iobench/runner.h - the one run path.  Every binary turns its command line
 * into a suite of jobs and hands it here; the runner is the only caller of
 * the engine and owns the run lifecycle once for all of them:
 *
 *   iob_run_open    outputs opened, stop signals trapped, run facts handed over
 *   iob_run_record  a tool's own records (a comment, its settings)
 *   iob_run_suite   every check first (nothing is created before), then each
 *                   job: files, the block-size sweep and its phases, caveats
 *                   (caveats.h) before and after each phase, one "phase"
 *                   record per phase, the files the job made removed
 *   iob_run_finish  the run's end and notes to the outputs, outputs closed
 *                   and checked, the error line, the exit code
 *
 * A tool adds behaviour only through the hooks below; it never drives the
 * engine or probes the OS itself, so whatever the runner gains, every binary
 * gains.
 */
#ifndef IOBENCH_RUNNER_H
#define IOBENCH_RUNNER_H

#include <signal.h>
#include "iobench/caveats.h"
#include "iobench/job.h"
#include "iobench/output.h"
#include "iobench/profile.h"
#include "iobench/result.h"

struct iob_run;

/* Hooks a tool may give (every one optional).  `j` is the job's index in
 * the suite.  They run outside the phase's time unless stated. */
struct iob_run_hooks {
	void *arg;
	/* Before job j starts (after every check): emit the tool's records for
	 * it, drop caches.  Returns 0 to run the job with its records, 1 to run
	 * it unrecorded (a preparation: no phase records, its notes dropped), or
	 * a negative errno to stop the run (after iob_run_fail). */
	int (*before_job)(void *arg, struct iob_run *run, size_t j);
	/* After the engine ran a phase of job j, before its record: the tool may
	 * add to r->elapsed_ns the time of work that belongs to the phase
	 * (iotest's sync after a write, timed as the original timed it), add
	 * notes, or fail the phase (r->status).  Returns 0 or the status that
	 * ends the run. */
	int (*end_phase)(void *arg, struct iob_run *run, size_t j, struct iob_phase_result *r);
	/* Extra fields for the phase record, after the core's own. */
	void (*record_fields)(void *arg, struct iob_run *run, size_t j, const struct iob_phase_result *r,
			      struct iob_recbuf *rb);
	/* After the phase record went to the outputs (iotest's snooze). */
	void (*after_phase)(void *arg, struct iob_run *run, size_t j, const struct iob_phase_result *r);
};

struct iob_run_opts {
	const char *tool;			/* "iobench", "iotest", ... */
	const char *source;			/* profile path or command line; may be NULL */
	const struct iob_output_spec *outputs;	/* what to write, where */
	const struct iob_run_hooks *hooks;	/* may be NULL */
	/* Nonzero: every note is also printed on stderr as it arises, as
	 * "<tool>: warning: <note>" (the legacy tools keep stdout's shape). */
	int warn_live;
	/* Error messages leave out the "[job] " prefix (the legacy tools' job
	 * names mean nothing to their users). */
	int hide_job_names;
	/* A refusal of the suite's checks starts with "<source>: " (a profile's
	 * path). */
	int source_in_errors;
	/* Files the run must never write: the profile and its includes
	 * (struct iob_suite's sources).  A job whose data file is one of them,
	 * or an output on one of them, is refused by iob_run_check.  May be
	 * NULL. */
	const char *const *protect;
	size_t nprotect;
};

struct iob_pins;
struct iob_livecsv;
struct iob_fiologs;
struct iob_repeats;

struct iob_run {
	const struct iob_registry *reg;
	struct iob_run_opts opts;
	struct iob_outputs *out;
	struct iob_notes notes;
	size_t notes_printed;
	volatile sig_atomic_t *stop;
	const struct iob_suite *suite;	/* the suite being run */
	size_t suite_job;		/* the job running now (or last run) */
	int interrupted;
	int usage;			/* the failure is bad input: exit 2 */
	int quiet;			/* the current job is unrecorded */
	char host[256];
	char started[64];
	char kernel[256];
	/* the file system of the running job's directory */
	char fs_type[64], device[256];
	uint64_t fs_block_size;
	struct iob_run_info info;
	struct iob_recbuf rb;
	char error[2048];		/* the first failure, one line */
	/* directories the run holds open, and what it made in them */
	struct iob_pins *pins;
	/* the signal flag the engine watches; *stop is the same flag, except in
	 * a run across MPI ranks (docs/mpi.md), where it is agreed_stop: the
	 * stop the ranks agreed on at the end of a phase, so that every rank
	 * takes the same path through the suite */
	volatile sig_atomic_t *live_stop;
	volatile sig_atomic_t agreed_stop;
	/* the jobs' live CSV files (intervals.h), open for the whole run */
	struct iob_livecsv *livecsv;
	/* the jobs' fio-style logs (fiolog.h), open for the whole run */
	struct iob_fiologs *fiologs;
	/* watches the reader of a pipe on standard output (runner.c) */
	struct iob_reader_watch *watch;
	/* the repeats of the phase running now (repeat.h), or NULL */
	struct iob_repeats *rep;
	/* exit_others = all: the job (1 + its index) whose end stops the run's
	 * later jobs, or 0 */
	size_t exit_all;
};

/* Check the whole suite (iob_run_check: nothing is created before), then
 * open the outputs, trap stop signals and hand the run facts to the outputs.
 * On failure, print the error line and return NULL with *code the exit code
 * (2 for bad input). */
struct iob_run *iob_run_open(const struct iob_registry *reg, const struct iob_run_opts *opts,
			     const struct iob_suite *suite, int *code);
/* A tool's own record (not a phase). */
void iob_run_record(struct iob_run *run, const struct iob_record *rec);
/* Add a note (a caveat) to the run. */
void iob_run_note(struct iob_run *run, const char *fmt, ...) IOB_PRINTF(2, 3);
/* Record the run's first failure (one line).  usage: it is bad input. */
void iob_run_fail(struct iob_run *run, int usage, const char *fmt, ...) IOB_PRINTF(3, 4);
/* Has a stop signal arrived? */
int iob_run_stopped(const struct iob_run *run);
/* Sleep, returning early on a stop signal. */
void iob_run_sleep(struct iob_run *run, double seconds);
/* Run the suite checked at open, its jobs in order.  Returns 0,
 * IOB_STATUS_MISMATCH or -errno. */
int iob_run_suite(struct iob_run *run);
/* End the run: notes and status to the outputs, outputs closed (a failure to
 * write results is an error), the error line printed, everything freed.
 * Returns the exit code. */
int iob_run_finish(struct iob_run *run, int status);

/* Every check that can be made without touching a file: each job is valid,
 * its backend is loaded and can do the phases asked and accepts its
 * options, its directory exists (a symlinked one only when the link is
 * owned by root or the user, or with follow_symlinks), its targets and tree
 * directories are plain files and directories (devices only with
 * allow_devices, symlinks only with follow_symlinks), no name is over the
 * file system's limits, direct I/O sizes fit the target file system's
 * alignment (backends with IOB_CAP_DIRECT), readable or
 * writable as the job needs, a read-only job's files exist and are not
 * empty (unless an earlier job of the suite writes them), and the file
 * system has room for everything the whole suite writes.  One-line reason
 * in err; every failure here is bad input (exit 2). */
int iob_suite_check(const struct iob_suite *suite, const struct iob_registry *reg, char *err, size_t errlen);
int iob_job_check(const struct iob_job *job, const struct iob_registry *reg, char *err, size_t errlen);

/* Why iob_suite_check refused a job's target, typed, so that a tool words
 * the refusal in its own style and never looks at the target itself: the
 * policy (what a target may be) lives only in the core's checks. */
enum iob_target_why {
	IOB_TARGET_FINE = 0,	/* not refused for its target (refused for another reason, or not at all) */
	IOB_TARGET_MISSING,	/* a read-only job's file does not exist */
	IOB_TARGET_DIR_MISSING, /* the job's directory does not exist (path: the job's first file) */
	IOB_TARGET_DANGLING,	/* a symbolic link to nothing */
	IOB_TARGET_BLOCKDEV,	/* a block device, and the job does not allow devices */
	IOB_TARGET_CHARDEV,	/* a character device: the job does not allow devices, or the caller refuses them */
	IOB_TARGET_DIRECTORY,	/* a directory where a file is named */
	IOB_TARGET_OTHER,	/* a fifo or a socket */
};
struct iob_target_refusal {
	int refuse_chardev;	  /* in: refuse a character device even where the job allows devices */
	enum iob_target_why why;  /* out */
	int behind_link;	  /* out: the device is reached through a symbolic link */
	size_t job;		  /* out: the refused job's index in the suite */
	char path[IOB_PATH_MAX];  /* out: the target's path as the job names it */
};
/* iob_suite_check, with the target's refusal typed in *t (t->why is
 * IOB_TARGET_FINE when the refusal, if any, was not about a target). */
int iob_suite_check_target(const struct iob_suite *suite, const struct iob_registry *reg,
			   struct iob_target_refusal *t, char *err, size_t errlen);

/* iob_suite_check, then what needs the run's options: no job's data file is
 * one of opts->protect (`filename = self.ini`), and no output overlaps a
 * job's data file, a protected file or another output
 * (iob_output_spec_check_paths).  Touches no file; 0 or -errno with a
 * one-line reason (bad input, exit 2).  iob_run_open and `iobench check`
 * call it. */
int iob_run_check(const struct iob_registry *reg, const struct iob_run_opts *opts, const struct iob_suite *suite,
		  char *err, size_t errlen);

/* Remove everything the run created and has not removed yet (files, then
 * directories, deepest first), working only through the directories it holds
 * open (unlinkat): an entry that is no longer what the run created (replaced,
 * or turned into a link, during the run) is kept and noted, and nothing
 * outside those directories is ever reached.  Counts what was removed.  For
 * tools that keep the files through the jobs and clean up at the end
 * (io_profile --remove, through iob_ledger_remove). */
void iob_run_remove_made(struct iob_run *run, uint64_t *files, uint64_t *dirs);

/* Check, open outputs, run the suite, finish: the whole life of a plain
 * run.  Returns the exit code. */
int iob_run_main(const struct iob_registry *reg, const struct iob_run_opts *opts, const struct iob_suite *suite);

/* The size of an existing regular file at path (a tool sizing its jobs from
 * files that are there, as io_profile -r does); -errno otherwise. */
int iob_target_size(const char *path, uint64_t *size);

/* msg without a leading "[job] ". */
const char *iob_error_without_job(const char *msg);

#endif
