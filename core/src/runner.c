/*
 * runner.c - the one run path (iobench/runner.h): the run's life from its
 * checks to its exit code, and the suite's jobs in order.  The checks made
 * before anything is created are check.c's.  The rest of the runner, one
 * purpose a file (runner_int.h: what they share):
 *   runner_files.c   the directories the run holds, what it made in them,
 *                    a job's files as the engine opens them
 *   runner_phase.c   one phase of a job run alone: its spec, its caveats,
 *                    its streams, its repeats; a job's phases in order
 *   runner_record.c  what a phase says: its observer (progress line,
 *                    intervals), its stream and phase records
 *   runner_ranks.c   a phase and a job across MPI ranks (ranks.h)
 *   runner_group.c   the jobs of a group, at once
 *
 * This file: notes, failures and stops; the live CSV files and the reader
 * watch; iob_run_open; iob_run_finish; iob_run_main; iob_run_suite.
 */
#include "iobench/runner.h"
#include "iobench/repeat.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/cli.h"
#include "iobench/coord.h"
#include "iobench/fiolog.h"
#include "iobench/intervals.h"
#include "iobench/log.h"
#include "iobench/os.h"
#include "iobench/outfile.h"
#include "iobench/progress.h"
#include "iobench/version.h"
#include "check.h"
#include "ranks.h"
#include "runner_int.h"

const char *iob_error_without_job(const char *msg)
{
	if (msg[0] == '[' && strstr(msg, "] "))
		return strstr(msg, "] ") + 2;
	if (strncmp(msg, "job ", 4) == 0 && strstr(msg, ": "))
		return strstr(msg, ": ") + 2;
	return msg;
}

/* -------------------------------------------------------------- lifecycle */

void iob_runner_print_live_notes(struct iob_run *run)
{
	if (!run->opts.warn_live || run->notes_printed == run->notes.n)
		return;
	iob_progress_clear();
	fflush(stdout);
	for (; run->notes_printed < run->notes.n; run->notes_printed++)
		fprintf(stderr, "%s: warning: %s\n", iob_log_program(), run->notes.text[run->notes_printed]);
}

void iob_run_note(struct iob_run *run, const char *fmt, ...)
{
	char text[sizeof run->notes.text[0]];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	if (run->quiet)
		return;
	iob_notes_add(&run->notes, "%s", text);
	iob_runner_print_live_notes(run);
}

void iob_run_fail(struct iob_run *run, int usage, const char *fmt, ...)
{
	va_list ap;
	if (run->error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(run->error, sizeof run->error, fmt, ap);
	va_end(ap);
	run->usage = usage;
}

int iob_run_stopped(const struct iob_run *run)
{
	return *run->stop != 0;
}

void iob_run_sleep(struct iob_run *run, double seconds)
{
	if (seconds > 0)
		iob_sleep_ns((uint64_t)(seconds * 1e9), run->live_stop);
}

void iob_run_record(struct iob_run *run, const struct iob_record *rec)
{
	if (!run->quiet)
		iob_outputs_record(run->out, rec);
}

/* Log lines while the outputs open: the first error is held, the rest
 * printed as usual. */
/* The run could not start: the live CSV files and fio-style logs it made go. */
static void run_unmake_livecsv(struct iob_run *run)
{
	char lerr[16];
	if (run->fiologs) {
		iob_fiologs_unmake(run->fiologs);
		iob_fiologs_close(run->fiologs, lerr, sizeof lerr);
		free(run->fiologs);
		run->fiologs = NULL;
	}
	if (!run->livecsv)
		return;
	iob_livecsv_unmake(run->livecsv);
	iob_livecsv_close(run->livecsv, lerr, sizeof lerr);
	free(run->livecsv);
	run->livecsv = NULL;
}

/* A pipe on standard output whose reader went (`| head -1`) stops the run
 * with SIGPIPE, as the run's next write there would, without waiting for
 * it: a block of a series, or a whole phase, can take long before it
 * writes.  A thread waits for the pipe's error event and sends the signal
 * to the process (the stop handler, iob_cli_trap_signals, sets the flag). */
struct iob_reader_watch {
	struct iob_thread *thread;
	int stop; /* atomic */
	int wake[2]; /* a byte in wake[1] ends the thread's wait at once (-1: none, the 100 ms tick) */
};

static void reader_watch(void *arg)
{
	struct iob_reader_watch *w = arg;
	while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE))
		if (iob_stream_reader_gone(stdout, w->wake[0], 100))
			return;
}

static void reader_watch_start(struct iob_run *run)
{
	const struct iob_output_spec *spec = run->opts.outputs;
	int on_stdout = 0;
	for (size_t i = 0; spec && i < spec->n; i++)
		on_stdout |= spec->item[i].file[0] == '\0';
	if (!on_stdout || iob_coord_rank() != 0 || !iob_stream_is_pipe(stdout))
		return;
	struct iob_reader_watch *w = calloc(1, sizeof *w);
	if (!w)
		return; /* then SIGPIPE stops the run at its next write, as before */
	if (iob_wake_pipe(w->wake) != 0)
		w->wake[0] = w->wake[1] = -1; /* stopped within 100 ms instead */
	if (iob_thread_start(&w->thread, reader_watch, w) != 0) {
		if (w->wake[0] >= 0)
			iob_wake_pipe_close(w->wake);
		free(w);
		return;
	}
	run->watch = w;
}

static void reader_watch_stop(struct iob_run *run)
{
	struct iob_reader_watch *w = run->watch;
	if (!w)
		return;
	__atomic_store_n(&w->stop, 1, __ATOMIC_RELEASE);
	if (w->wake[1] >= 0 && iob_write_all(w->wake[1], "", 1) != 0) {
		/* not woken: the watcher ends at its next 100 ms tick */
	}
	iob_thread_join(w->thread);
	if (w->wake[0] >= 0)
		iob_wake_pipe_close(w->wake);
	free(w);
	run->watch = NULL;
}

/* No file the run writes besides its data (outfile.h) may be a file it
 * reads or writes: the profile, its includes, the jobs' data files. */
static int guard_run_files(const struct iob_run_opts *opts, const struct iob_suite *suite)
{
	int rc = 0;
	iob_outfiles_guard_clear();
	for (size_t i = 0; i < opts->nprotect && rc == 0; i++)
		rc = iob_outfiles_guard(opts->protect[i]);
	for (size_t i = 0; i < suite->njobs && rc == 0; i++) {
		struct iob_filelist fl;
		if ((rc = iob_job_files(&suite->jobs[i], &fl)) != 0)
			break;
		for (size_t f = 0; f < fl.n && rc == 0; f++)
			if (strcmp(fl.paths[f], "-") != 0)
				rc = iob_outfiles_guard(fl.paths[f]);
		iob_filelist_free(&fl);
	}
	return rc;
}

/* Every check passed and every file is open: empty them now, and only now. */
static int run_commit(struct iob_run *run, char *err, size_t errlen)
{
	int rc = iob_livecsv_commit(run->livecsv, err, errlen);
	if (rc == 0 && run->fiologs)
		rc = iob_fiologs_commit(run->fiologs, err, errlen);
	if (rc == 0)
		rc = iob_outputs_commit(run->out, err, errlen);
	return rc;
}

struct iob_run *iob_run_open(const struct iob_registry *reg, const struct iob_run_opts *opts,
			     const struct iob_suite *suite, int *code)
{
	char err[2048];
	int crc = iob_run_check(reg, opts, suite, err, sizeof err);
	if (iob_coord_active()) { /* every rank passed, or all stop naming the first that did not */
		const struct iob_ranks_who who = {opts->source, opts->protect, opts->nprotect, opts->hide_job_names};
		char mine[sizeof err];
		snprintf(mine, sizeof mine, "%s", crc ? (opts->hide_job_names ? iob_error_without_job(err) : err) : "");
		crc = iob_ranks_open(&who, mine, suite, crc, err, sizeof err);
	}
	if (crc != 0) {
		const char *msg = opts->hide_job_names ? iob_error_without_job(err) : err;
		if (opts->source_in_errors && opts->source)
			*code = iob_cli_fail(IOB_EXIT_USAGE, "%s: %s", opts->source, msg);
		else
			*code = iob_cli_fail(IOB_EXIT_USAGE, "%s", msg);
		iob_coord_finish(); /* every rank stops here: agreed */
		return NULL;
	}
	struct iob_run *run = calloc(1, sizeof *run);
	if (!run) {
		*code = iob_cli_fail(IOB_EXIT_FAIL, "out of memory");
		return NULL;
	}
	run->suite = suite;
	run->reg = reg;
	run->opts = *opts;
	if (guard_run_files(opts, suite) != 0) {
		free(run);
		*code = iob_cli_fail(IOB_EXIT_FAIL, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < suite->nnotes; i++) /* the loader's (a fio file's mappings) */
		iob_notes_add(&run->notes, "%s", suite->notes[i]);
	if (iob_check_group_files(reg, suite, err, sizeof err, &run->notes) != 0) /* passed above: its notes */
		iob_notes_add(&run->notes, "%s", err);
	run->live_stop = &iob_cli_stop;
	run->stop = iob_coord_active() ? &run->agreed_stop : &iob_cli_stop;
	/* across ranks only rank 0 writes outputs and notes */
	static struct iob_output_spec none; /* never written; static (.bss): not 35 KB zeroed per run */
	if (iob_coord_rank() != 0) {
		run->opts.outputs = &none;
		run->opts.warn_live = 0;
	}
	/* the live CSV files, the fio-style logs and the output files are opened
	 * the checked way (outfile.h), created when missing but not emptied, and
	 * emptied together once all are open (run_commit): a run that cannot
	 * start removes what it created and changes nothing else */
	run->livecsv = calloc(1, sizeof *run->livecsv);
	int orc = run->livecsv ? 0 : -ENOMEM;
	if (!run->livecsv)
		snprintf(err, sizeof err, "out of memory");
	else if (iob_coord_rank() == 0)
		orc = iob_livecsv_open(run->livecsv, suite, err, sizeof err);
	/* then the fio-style logs, as they are */
	if (orc == 0 && !(run->fiologs = calloc(1, sizeof *run->fiologs))) {
		orc = -ENOMEM;
		snprintf(err, sizeof err, "out of memory");
	} else if (orc == 0 && iob_coord_rank() == 0) {
		orc = iob_fiologs_open(run->fiologs, suite, err, sizeof err);
		if (orc) {
			free(run->fiologs);
			run->fiologs = NULL;
		}
	}
	/* an output that refuses its arguments says why through the log: that
	 * reason goes into the one error line instead of a line of its own */
	struct iob_log_held held;
	memset(&held, 0, sizeof held);
	if (orc == 0) {
		iob_log_set_hook(iob_log_hold, &held);
		orc = iob_outputs_open(&run->out, reg, run->opts.outputs, err, sizeof err);
		iob_log_set_hook(NULL, NULL);
	}
	run->opts.outputs = opts->outputs;
	if (iob_coord_active()) { /* rank 0's outputs opened, or every rank stops */
		char why[2048];
		snprintf(why, sizeof why, "%s", err);
		if (iob_coord_agree(orc, why, NULL, NULL, 0, err, sizeof err) != 0 && orc == 0) {
			iob_outputs_close(run->out);
			run_unmake_livecsv(run);
			free(run);
			iob_coord_finish();
			*code = IOB_EXIT_USAGE;
			return NULL;
		}
	}
	if (orc == 0 && (orc = run_commit(run, err, sizeof err)) != 0) {
		iob_outputs_close(run->out);
		run_unmake_livecsv(run);
		free(run);
		*code = iob_cli_fail(IOB_EXIT_FAIL, "%s", err);
		iob_coord_finish();
		return NULL;
	}
	if (orc != 0) {
		run_unmake_livecsv(run);
		free(run);
		char *tail = held.reason[0] ? strrchr(err, ':') : NULL;
		if (tail)
			*tail = '\0';
		*code = iob_cli_fail(IOB_EXIT_USAGE, "%s%s%s", err, tail ? ": " : "", tail ? held.reason : "");
		iob_coord_finish();
		return NULL;
	}
	if (held.reason[0])
		fprintf(stderr, "%s\n", held.line);
	iob_cli_trap_signals();
	reader_watch_start(run);
	iob_hostname(run->host, sizeof run->host);
	iob_time_iso8601(run->started, sizeof run->started);
	iob_kernel(run->kernel, sizeof run->kernel);
	run->info = (struct iob_run_info){
		.struct_size = sizeof run->info,
		.tool = opts->tool,
		.version = IOB_VERSION,
		.host = run->host,
		.started = run->started,
		.source = opts->source,
		.kernel = run->kernel,
		.schema = IOB_SCHEMA_VERSION,
	};
	iob_outputs_begin(run->out, &run->info);
	*code = 0;
	return run;
}

int iob_run_finish(struct iob_run *run, int status)
{
	reader_watch_stop(run);
	int sig = (int)*run->stop;
	if (sig && !run->error[0])
		snprintf(run->error, sizeof run->error, "interrupted by signal %d", sig);
	if (status != 0 && !run->error[0])
		snprintf(run->error, sizeof run->error, "the run failed");
	const char *error = run->opts.hide_job_names ? iob_error_without_job(run->error) : run->error;
	const char *wine = iob_wine_version();
	if (wine && !run->usage)
		iob_notes_add(&run->notes, "measured under wine %s, which ignores FILE_FLAG_NO_BUFFERING and "
				       "FILE_FLAG_WRITE_THROUGH (its files go through Linux's page cache): these are "
				       "not Windows figures", wine);
	/* with nothing measured because the input was bad, the caveats have
	 * nothing to qualify */
	/* no person sees the outputs' notes (only csv, json, ... or human to a
	 * file): stderr gets them, after them (the live ones are there already) */
	int to_stderr = !run->usage && !run->opts.warn_live && !iob_outputs_show_notes(run->out);
	iob_cli_end_run(run->out, run->usage ? NULL : &run->notes, status, sig != 0 || run->interrupted, error);
	char oerr[4400];
	int crc = iob_outputs_close_err(run->out, oerr, sizeof oerr);
	for (size_t i = 0; to_stderr && i < run->notes.n; i++)
		fprintf(stderr, "%s: warning: %s\n", iob_log_program(), run->notes.text[i]);
	char lerr[4200];
	int lrc = iob_livecsv_close(run->livecsv, lerr, sizeof lerr);
	free(run->livecsv);
	char ferr[4200];
	int frc = run->fiologs ? iob_fiologs_close(run->fiologs, ferr, sizeof ferr) : 0;
	free(run->fiologs);
	iob_runner_print_live_notes(run);
	int code = run->usage && status != 0 ? IOB_EXIT_USAGE : iob_cli_exit_code(status, sig);
	if (status != 0 || sig)
		iob_cli_fail(code, "%s", error);
	else if (crc < 0)
		code = iob_cli_fail(IOB_EXIT_FAIL, "writing the results failed: %s", oerr);
	else if (lrc < 0)
		code = iob_cli_fail(IOB_EXIT_FAIL, "%s", lerr);
	else if (frc < 0)
		code = iob_cli_fail(IOB_EXIT_FAIL, "%s", ferr);
	iob_runner_pins_free(run->pins);
	free(run);
	iob_outfiles_guard_clear();
	iob_coord_finish();
	return code;
}

int iob_run_main(const struct iob_registry *reg, const struct iob_run_opts *opts, const struct iob_suite *suite)
{
	int code;
	struct iob_run *run = iob_run_open(reg, opts, suite, &code);
	if (!run)
		return code;
	return iob_run_finish(run, iob_run_suite(run));
}

int iob_run_suite(struct iob_run *run)
{
	const struct iob_suite *suite = run->suite;
	int rc = 0;
	size_t held[IOB_MAX_JOBS][2], nheld = 0; /* IOB_PREPARE_UNLINK jobs' made entries */
	uint64_t files = 0, dirs = 0;
	for (size_t i = 0, e; i < suite->njobs && rc == 0 && !*run->stop; i = e) {
		run->suite_job = i;
		e = i + 1;
		size_t mark = run->pins ? run->pins->nmade : 0;
		while (suite->jobs[i].group && e < suite->njobs && suite->jobs[e].group == suite->jobs[i].group)
			e++;
		/* across MPI ranks a group of one job (every fio job is in a group)
		 * runs as a lone job: groups do not run across ranks */
		/* a job run again (repeat.c) is alone in its group (check.c) */
		if (!suite->jobs[i].group || (e == i + 1 && (iob_coord_active() || iob_job_runs_again(&suite->jobs[i])))) {
			rc = iob_runner_run_job(run, i);
			if (rc == 0 && suite->jobs[i].exit_others == IOB_EXIT_ALL && !*run->stop && e < suite->njobs) {
				iob_notes_add(&run->notes, "job %s ended: exit_others = all: the jobs after it do not run",
					      suite->jobs[i].name);
				run->exit_all = i + 1;
			}
		} else {
			rc = iob_runner_run_group(run, i, e);
		}
		if (suite->prepare && suite->prepare[i] == IOB_PREPARE_UNLINK && run->pins) {
			held[nheld][0] = mark;
			held[nheld++][1] = run->pins->nmade;
			continue;
		}
		if (suite->prepare && suite->prepare[i]) /* kept; and the job it prepares still to come */
			continue;
		while (nheld > 0) { /* the job they were laid out for has run */
			nheld--;
			iob_runner_remove_made_range(run, held[nheld][0], held[nheld][1], &files, &dirs);
		}
		if (run->exit_all) /* exit_others = all: the later jobs do not run */
			break;
	}
	while (nheld > 0) {
		nheld--;
		iob_runner_remove_made_range(run, held[nheld][0], held[nheld][1], &files, &dirs);
	}
	return rc;
}
