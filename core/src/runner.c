/*
 * runner.c - the one run path (iobench/runner.h): jobs, phases, records,
 * and the run's life from outputs opened to exit code.  The checks made
 * before anything is created are check.c's.
 */
#include "iobench/runner.h"
#include "iobench/repeat.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/aggregate.h"
#include "iobench/blocks.h"
#include "iobench/cli.h"
#include "iobench/coord.h"
#include "iobench/engine.h"
#include "iobench/fiolog.h"
#include "iobench/intervals.h"
#include "iobench/log.h"
#include "iobench/meta.h"
#include "iobench/os.h"
#include "iobench/outfile.h"
#include "iobench/progress.h"
#include "iobench/streams.h"
#include "iobench/units.h"
#include "iobench/version.h"
#include "check.h"
#include "ranks.h"
#include "verify_dump.h"

const char *iob_error_without_job(const char *msg)
{
	if (msg[0] == '[' && strstr(msg, "] "))
		return strstr(msg, "] ") + 2;
	if (strncmp(msg, "job ", 4) == 0 && strstr(msg, ": "))
		return strstr(msg, ": ") + 2;
	return msg;
}

/* -------------------------------------------------------------- lifecycle */

static void pins_free(struct iob_pins *ps);

static void print_live_notes(struct iob_run *run)
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
	print_live_notes(run);
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
	run->live_stop = &iob_cli_stop;
	run->stop = iob_coord_active() ? &run->agreed_stop : &iob_cli_stop;
	/* across ranks only rank 0 writes outputs and notes */
	const struct iob_output_spec none = {0};
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
	print_live_notes(run);
	int code = run->usage && status != 0 ? IOB_EXIT_USAGE : iob_cli_exit_code(status, sig);
	if (status != 0 || sig)
		iob_cli_fail(code, "%s", error);
	else if (crc < 0)
		code = iob_cli_fail(IOB_EXIT_FAIL, "writing the results failed: %s", oerr);
	else if (lrc < 0)
		code = iob_cli_fail(IOB_EXIT_FAIL, "%s", lerr);
	else if (frc < 0)
		code = iob_cli_fail(IOB_EXIT_FAIL, "%s", ferr);
	pins_free(run->pins);
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

/* ------------------------------------------- what the run holds and made */

/* Every directory a job works in is opened once, without following links
 * it was not allowed to follow, and held for the whole run; the engine and
 * the backends open the job's files through "/proc/self/fd/N/name" of that
 * descriptor, so a directory swapped for a link (or renamed) mid-run changes
 * nothing: the files opened are those in the directory that was checked.
 * Cleanup works the same way (unlinkat in the held directories). */
struct pin {
	char *path; /* as the jobs name it */
	int fd;	    /* -1 once closed (the directory was removed) */
};

struct made {
	size_t pin; /* the held directory holding it */
	char *name;
	struct iob_identity id; /* what was created, as first seen */
	int dir;		/* a directory; its own pin is dirpin */
	size_t dirpin;
	int gone;
};

struct iob_pins {
	struct pin *pin;
	size_t npin, cappin;
	struct made *made;
	size_t nmade, capmade;
};

static int grow(void **v, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 16;
	void *nv = realloc(*v, nc * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = nc;
	return 0;
}

static int pins_add(struct iob_pins *ps, const char *path, int fd, size_t *at)
{
	char *copy = strdup(path);
	if (!copy || grow((void **)&ps->pin, &ps->cappin, ps->npin, sizeof *ps->pin) != 0) {
		free(copy);
		return -ENOMEM;
	}
	ps->pin[ps->npin] = (struct pin){.path = copy, .fd = fd};
	*at = ps->npin++;
	return 0;
}

static int made_add(struct iob_pins *ps, size_t pin, const char *name, const struct iob_identity *id, int dir,
		    size_t dirpin)
{
	char *copy = strdup(name);
	if (!copy || grow((void **)&ps->made, &ps->capmade, ps->nmade, sizeof *ps->made) != 0) {
		free(copy);
		return -ENOMEM;
	}
	ps->made[ps->nmade++] = (struct made){.pin = pin, .name = copy, .id = *id, .dir = dir, .dirpin = dirpin};
	return 0;
}

static void pins_free(struct iob_pins *ps)
{
	if (!ps)
		return;
	for (size_t i = 0; i < ps->npin; i++) {
		if (ps->pin[i].fd >= 0)
			iob_fd_close(ps->pin[i].fd);
		free(ps->pin[i].path);
	}
	for (size_t i = 0; i < ps->nmade; i++)
		free(ps->made[i].name);
	free(ps->pin);
	free(ps->made);
	free(ps);
}

static int pins_find(const struct iob_pins *ps, const char *path, size_t *at)
{
	for (size_t i = ps->npin; i-- > 0;)
		if (ps->pin[i].fd >= 0 && strcmp(ps->pin[i].path, path) == 0) {
			*at = i;
			return 1;
		}
	return 0;
}

/* The job's own directory, held open.  A final symlink is followed only as
 * the checks allowed it (iob_dir_link_trusted). */
static int pin_job_dir(struct iob_run *run, const struct iob_job *job, size_t *at)
{
	char dir[IOB_PATH_MAX];
	iob_strip_slashes(job->dir, dir, sizeof dir);
	if (pins_find(run->pins, dir, at))
		return 0;
	int fd = iob_dir_open_at(IOB_AT_CWD, dir, 0, NULL);
	if (fd == -ELOOP && iob_dir_link_trusted(job, dir))
		fd = iob_dir_open_at(IOB_AT_CWD, dir, 1, NULL);
	if (fd < 0) {
		iob_run_fail(run, fd == -ELOOP, "[%s] cannot open dir '%s': %s", job->name, job->dir,
			     fd == -ELOOP ? "it became a symbolic link after the checks" : strerror(-fd));
		return fd;
	}
	int rc = pins_add(run->pins, dir, fd, at);
	if (rc) {
		iob_fd_close(fd);
		iob_run_fail(run, 0, "out of memory");
	}
	return rc;
}

/* Tree directory `path` (named `name` in held directory `parent`): made when
 * missing, then opened without following a link (unless follow_symlinks). */
static int pin_tree_dir(struct iob_run *run, const struct iob_job *job, size_t parent, const char *path,
			const char *name, size_t *at)
{
	struct iob_pins *ps = run->pins;
	struct iob_identity id;
	if (pins_find(ps, path, at))
		return 0;
	int pfd = ps->pin[parent].fd, made = 0;
	int rc = iob_mkdir_at(pfd, name);
	if (rc == 0)
		made = 1;
	else if (rc != -EEXIST) {
		iob_run_fail(run, 0, "[%s] cannot create directory %s: %s", job->name, path, strerror(-rc));
		return rc;
	}
	int fd = iob_dir_open_at(pfd, name, job->follow_symlinks, &id);
	if (fd < 0) {
		iob_run_fail(run, 0, "[%s] cannot open directory %s: %s", job->name, path,
			     fd == -ELOOP ? "it is a symbolic link (it was replaced after the checks)" : strerror(-fd));
		return fd;
	}
	if ((rc = pins_add(ps, path, fd, at)) != 0) {
		iob_fd_close(fd);
		iob_run_fail(run, 0, "out of memory");
		return rc;
	}
	if (made && (rc = made_add(ps, parent, name, &id, 1, *at)) != 0)
		iob_run_fail(run, 0, "out of memory");
	return rc;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* The job's files as the engine opens them: each through its held
 * directory. */
struct job_files {
	struct iob_filelist fl; /* as the job names them (records, messages) */
	char **open;		/* as they are opened */
	size_t *pin;		/* the held directory of each file */
	int *state;		/* 0 existed before the job, 1 missing then, 2 made and recorded */
	/* a random write's draws per stream (iob_phase_result.draws), for the
	 * random reads and verifies after it at the same block size */
	uint64_t *written, written_bs;
};

static void job_files_free(struct job_files *jf)
{
	for (size_t i = 0; jf->open && i < jf->fl.n; i++)
		free(jf->open[i]);
	free(jf->open);
	free(jf->pin);
	free(jf->state);
	free(jf->written);
	iob_filelist_free(&jf->fl);
}

static int job_files_open(struct iob_run *run, const struct iob_job *job, struct job_files *jf)
{
	int rc;
	memset(jf, 0, sizeof *jf);
	if ((rc = iob_job_files(job, &jf->fl)) != 0) {
		iob_run_fail(run, 0, "out of memory listing the job's files");
		return rc;
	}
	size_t n = jf->fl.n;
	jf->open = calloc(n, sizeof *jf->open);
	jf->pin = calloc(n, sizeof *jf->pin);
	jf->state = calloc(n, sizeof *jf->state);
	size_t *dirpin = calloc(jf->fl.ndirs + 1, sizeof *dirpin);
	if (!jf->open || !jf->pin || !jf->state || !dirpin) {
		free(dirpin);
		iob_run_fail(run, 0, "out of memory");
		return -ENOMEM;
	}
	if (iob_is_stdin_path(jf->fl.paths[0])) {
		free(dirpin);
		jf->open[0] = strdup("-");
		return jf->open[0] ? 0 : -ENOMEM;
	}
	size_t top = 0;
	rc = pin_job_dir(run, job, &top);
	for (size_t i = 0; i < jf->fl.ndirs && rc == 0; i++)
		rc = pin_tree_dir(run, job, i ? dirpin[i - 1] : top, jf->fl.dirs[i], base_name(jf->fl.dirs[i]),
				  &dirpin[i]);
	for (size_t i = 0; i < n && rc == 0; i++) {
		char p[IOB_PATH_MAX + 64];
		size_t nbase = n / (iob_job_stream_files(job) ? job->threads : 1); /* stream copies: stream-major */
		jf->pin[i] = job->layout == IOB_LAYOUT_TREE ? dirpin[(i % nbase) / job->tree_files] : top;
		int fd = run->pins->pin[jf->pin[i]].fd;
		const char *name = base_name(jf->fl.paths[i]);
		/* where the OS has no such path, only the path itself remains */
		jf->open[i] = strdup(iob_path_of_fd(fd, name, p, sizeof p) == 0 ? p : jf->fl.paths[i]);
		jf->state[i] = iob_stat_at(fd, name, NULL) == -ENOENT;
		if (!jf->open[i]) {
			iob_run_fail(run, 0, "out of memory");
			rc = -ENOMEM;
		}
	}
	free(dirpin);
	return rc;
}

/* Record what the job created, as it is right after the phase that made it. */
static void note_made(struct iob_run *run, struct job_files *jf)
{
	for (size_t i = 0; i < jf->fl.n; i++) {
		struct iob_identity id;
		if (jf->state[i] != 1)
			continue;
		const char *name = base_name(jf->fl.paths[i]);
		if (iob_stat_at(run->pins->pin[jf->pin[i]].fd, name, &id) != 0 || id.kind != IOB_PATH_REGULAR)
			continue;
		if (made_add(run->pins, jf->pin[i], name, &id, 0, 0) == 0)
			jf->state[i] = 2;
	}
}

static void cleanup_note(struct iob_run *run, const struct made *m, const char *what, const char *why)
{
	char path[IOB_PATH_MAX + 300], q[IOB_PATH_MAX + 1200];
	snprintf(path, sizeof path, "%s/%s", run->pins->pin[m->pin].path, m->name);
	iob_notes_add(&run->notes, "%s %s: %s", what, iob_quote(path, q, sizeof q), why);
	print_live_notes(run);
}

/* Remove what the run made from entry `from` to entry `to`, newest first. */
static void remove_made_range(struct iob_run *run, size_t from, size_t to, uint64_t *files, uint64_t *dirs)
{
	struct iob_pins *ps = run->pins;
	for (size_t k = to; k-- > from;) {
		struct made *m = &ps->made[k];
		int at = ps->pin[m->pin].fd;
		struct iob_identity now;
		if (m->gone || at < 0)
			continue;
		m->gone = 1;
		int rc = iob_stat_at(at, m->name, &now);
		if (rc == -ENOENT)
			continue;
		if (rc != 0 || now.dev != m->id.dev || now.ino != m->id.ino || now.kind != m->id.kind) {
			cleanup_note(run, m, "kept", "it is no longer what this run created (replaced during the run)");
			continue;
		}
		rc = iob_remove_at(at, m->name, m->dir);
		if (rc != 0) {
			cleanup_note(run, m, m->dir ? "kept directory" : "could not remove", strerror(-rc));
			continue;
		}
		if (m->dir) {
			iob_fd_close(ps->pin[m->dirpin].fd);
			ps->pin[m->dirpin].fd = -1;
			++*dirs;
		} else {
			++*files;
		}
	}
}

void iob_run_remove_made(struct iob_run *run, uint64_t *files, uint64_t *dirs)
{
	if (run->pins)
		remove_made_range(run, 0, run->pins->nmade, files, dirs);
}

/* msg with every opened path put back as the job names it */
static void unmask(char *msg, size_t len, const struct job_files *jf)
{
	for (size_t i = 0; i < jf->fl.n; i++) {
		const char *o = jf->open[i];
		char *at = strcmp(o, jf->fl.paths[i]) ? strstr(msg, o) : NULL;
		if (!at)
			continue;
		char tail[4096];
		snprintf(tail, sizeof tail, "%s", at + strlen(o));
		snprintf(at, len - (size_t)(at - msg), "%s%s", jf->fl.paths[i], tail);
		return;
	}
}

/* --------------------------------------------------------------- running */

struct phase_run {
	struct iob_run *run;
	const struct iob_job *job;
	size_t j;
	struct iob_blocks blocks; /* series jobs: block records as they come */
	int evict_failed;	  /* evict_before_read could not evict (Windows: no way to) */
	const char *status;	  /* NULL, or the record's status ("stopped": a group's job cut short) */
};

static void on_block(void *arg, const struct iob_series *s)
{
	struct phase_run *pr = arg;
	iob_progress_clear(); /* a block line never lands inside the progress line */
	iob_blocks_stream(&pr->blocks, s, pr->run->quiet ? NULL : pr->run->out);
}

/* What a read phase is about to read, for the caveats. */
static void read_plan(const struct iob_job *job, const struct job_files *jf, uint64_t bs,
		      struct iob_read_plan *plan)
{
	uint64_t per_pass = job->size * jf->fl.n;
	/* saturated: a time-limited job may ask for loops without end */
	uint64_t passes = job->loops && per_pass > UINT64_MAX / job->loops ? UINT64_MAX : per_pass * job->loops;
	uint64_t reads = job->access == IOB_ACCESS_RAND ? (job->ops ? job->ops * bs : per_pass) : passes;
	*plan = (struct iob_read_plan){
		.files = (const char *const *)jf->open, /* probe what is opened */
		.nfiles = jf->fl.n,
		.len = job->series ? 0 : job->size, /* a series read goes to the end */
		.reads = job->series ? 0 : reads,
		.evicted = job->evict_before_read,
		.clock = job->series ? job->series_clock : IOB_CLOCK_WALL,
	};
}

/* What a phase will move in all, for the progress line's share done and
 * ETA; 0 when it cannot be told (standard input, no end but a time limit). */
static uint64_t expect_bytes(const struct iob_job *job, const struct iob_filelist *fl, uint64_t bs)
{
	uint64_t size = job->series ? 0 : job->size;
	if (!size && (iob_is_stdin_path(fl->paths[0]) || iob_target_size(fl->paths[0], &size) != 0))
		return 0;
	if (job->access == IOB_ACCESS_RAND)
		return job->time_based ? 0 : job->ops ? job->ops * bs * job->threads : size / bs * bs * fl->n;
	uint64_t pass = size * fl->n, loops = job->loops ? job->loops : 1;
	return job->time_based || pass > UINT64_MAX / loops ? 0 : pass * loops; /* time_based: no end but the time */
}

/* The phase's observer (progress.h): the progress line when wanted, the
 * interval records when the job logs them.  Sets spec->live. */
struct observed {
	struct iob_live *live;
	struct iob_intervals iv;
	struct iob_observer *obs;
	int logged;     /* interval records wanted */
	int borrowed;   /* live belongs to the caller */
	int *csv_error; /* the live CSV's error slot */
	int oom;        /* no memory for them: the caller notes it */
};

static void observe_start(const struct iob_run *run, const struct iob_job *job, const struct iob_filelist *fl,
			  enum iob_phase phase, uint64_t bs, struct iob_phase_spec *spec, struct observed *ob)
{
	size_t n = job->threads > 1 ? job->threads : 1;
	/* the jobs of a group run at once: the group's line speaks for them all
	 * (run_group draws it from their counters), not one job's */
	int wanted = iob_progress_wanted(iob_progress_mode), line = !job->group && wanted;
	memset(ob, 0, sizeof *ob);
	ob->logged = job->log_interval_ns && !run->quiet;
	if (!line && !ob->logged && !(job->group && wanted))
		return;
	/* across ranks the rank's watcher reads them too (rank_phase_spec): theirs */
	ob->borrowed = spec->live != NULL;
	ob->live = spec->live ? spec->live : calloc(n, sizeof *ob->live);
	if (!ob->live || iob_intervals_init(&ob->iv, ob->live, n, ob->logged) != 0) {
		iob_intervals_free(&ob->iv);
		if (!ob->borrowed)
			free(ob->live);
		ob->live = NULL;
		ob->logged = 0;
		ob->oom = 1;
		return;
	}
	/* a mixed phase's fio-style logs have a row per direction */
	if (ob->logged && phase == IOB_PHASE_MIXED && iob_fiolog_wanted(job) && iob_intervals_split(&ob->iv) != 0)
		ob->oom = 1; /* (then the logs give the whole phase as its reads) */
	if (!line && !ob->logged) { /* only the group's line reads them: no observer */
		spec->live = ob->live;
		return;
	}
	ob->iv.csv = iob_livecsv_file(run->livecsv, job->livecsv, &ob->csv_error);
	ob->iv.job = job->name;
	ob->iv.phase = iob_phase_name(phase);
	ob->iv.block_size = bs;
	struct iob_observe_cfg oc = {
		.tool = run->opts.tool,
		.job = job->name,
		.phase = iob_phase_name(phase),
		.live = ob->live,
		.nstreams = n,
		.progress = line,
		.expect_bytes = expect_bytes(job, fl, bs),
		.runtime_ns = job->runtime_ns,
		.ramp_ns = job->ramp_ns,
		.interval_ns = ob->logged ? job->log_interval_ns : 0,
		.iv = &ob->iv,
	};
	spec->live = ob->live;
	ob->obs = iob_observer_start(&oc);
}

/* The phase is over: the observer stops and the last interval ends with the
 * phase (so the intervals add up to it).  Any thread. */
static void observe_end(struct observed *ob, const struct iob_phase_result *r)
{
	iob_observer_stop(ob->obs);
	ob->obs = NULL;
	if (ob->logged) {
		uint64_t end = r->end_ns > r->start_ns ? r->end_ns : iob_now_ns();
		iob_intervals_take(&ob->iv, end > ob->iv.prev_end ? end : ob->iv.prev_end, 1);
	}
}

/* The interval records go out (the runner's thread). */
static void observe_emit(struct iob_run *run, size_t j, const struct iob_job *job, enum iob_phase phase,
			 struct observed *ob)
{
	if (ob->oom)
		iob_run_note(run, "job %s, %s phase: out of memory for the progress line and the intervals", job->name,
			     iob_phase_name(phase));
	if (ob->logged) {
		for (size_t i = 0; i < ob->iv.n; i++) {
			iob_rec_interval(&run->rb, ob->iv.job, ob->iv.phase, ob->iv.block_size, &ob->iv.v[i]);
			iob_run_record(run, &run->rb.rec);
		}
		if (ob->iv.csv_error && ob->csv_error && !*ob->csv_error)
			*ob->csv_error = ob->iv.csv_error;
		iob_fiologs_phase(run->fiologs, j, phase, &ob->iv);
	}
	iob_intervals_free(&ob->iv);
	if (!ob->borrowed)
		free(ob->live);
	ob->live = NULL;
}

/* The file a record names: the job's file (or tree directory). */
static void record_file(const struct iob_job *job, const struct iob_filelist *fl, char *file, size_t len)
{
	if (job->layout == IOB_LAYOUT_TREE)
		snprintf(file, len, "%s", job->dir);
	else if (iob_job_stream_files(job)) /* the streams' files are <file>.<i> */
		snprintf(file, len, "%s/%s", job->dir, job->filename);
	else
		snprintf(file, len, "%s", fl->paths[0]);
}

/* The phase record (with agg: the aggregate of the phase's streams); a
 * series' summary may fail (returned). */
static int emit_phase(struct phase_run *pr, const struct iob_filelist *fl, struct iob_phase_result *r,
		      const struct iob_read_facts *facts, const struct iob_aggregate *agg)
{
	struct iob_run *run = pr->run;
	const struct iob_job *job = pr->job;
	const struct iob_run_hooks *h = run->opts.hooks;
	struct iob_recbuf *rb = &run->rb;
	char file[IOB_PATH_MAX + 64];
	record_file(job, fl, file, sizeof file);
	iob_rec_phase(rb, job, file, r);
	int fs = !iob_is_stdin_path(file);
	iob_rec_str(rb, "fs_type", fs && strcmp(run->fs_type, "unknown") ? run->fs_type : NULL);
	if (fs && run->fs_block_size)
		iob_rec_u64(rb, "fs_block_size_bytes", IOB_UNIT_BYTES, run->fs_block_size);
	else
		iob_rec_absent(rb, "fs_block_size_bytes", IOB_UNIT_BYTES);
	iob_rec_str(rb, "device", fs && strcmp(run->device, "unknown") ? run->device : NULL);
	iob_rec_bool(rb, "evicted", r->phase != IOB_PHASE_WRITE && job->evict_before_read && !pr->evict_failed);
	if (facts->resident_known)
		iob_rec_f64(rb, "resident_before_pct", IOB_UNIT_NONE, facts->resident_pct);
	else
		iob_rec_absent(rb, "resident_before_pct", IOB_UNIT_NONE);
	if (facts->holes_known)
		iob_rec_f64(rb, "holes_pct", IOB_UNIT_NONE, facts->hole_pct);
	else
		iob_rec_absent(rb, "holes_pct", IOB_UNIT_NONE);
	/* what reached storage, measured after the phase (caveats.h) */
	double cached = iob_storage_cached_read_pct(r), left = iob_storage_unwritten_pct(r);
	if (cached >= 0)
		iob_rec_f64(rb, "cached_read_pct", IOB_UNIT_NONE, cached);
	else
		iob_rec_absent(rb, "cached_read_pct", IOB_UNIT_NONE);
	if (left >= 0) {
		iob_rec_u64(rb, "unwritten_bytes", IOB_UNIT_BYTES, r->unwritten_bytes);
		iob_rec_f64(rb, "unwritten_pct", IOB_UNIT_NONE, left);
	} else {
		iob_rec_absent(rb, "unwritten_bytes", IOB_UNIT_BYTES);
		iob_rec_absent(rb, "unwritten_pct", IOB_UNIT_NONE);
	}
	iob_rec_str(rb, "status", pr->status ? pr->status : iob_phase_status_name(r));
	iob_rec_phase_cpu(rb, r);
	if (agg)
		iob_rec_aggregate(rb, agg);
	int rc = 0;
	if (pr->blocks.rb) {
		char err[1024];
		rc = iob_blocks_summary(&pr->blocks, r, rb, run->quiet ? NULL : run->out, &run->notes, err,
					sizeof err);
		if (rc < 0)
			iob_run_fail(run, 0, "[%s] %s", job->name, err);
	}
	if (rc < 0)
		return rc; /* no figures to give: the error says why */
	if (run->rep && run->rep->active) /* repeat.c: which run (or round) of the phase */
		iob_rec_u64(rb, iob_repeats_key(run->rep), IOB_UNIT_COUNT, run->rep->index);
	if (h && h->record_fields)
		h->record_fields(h->arg, run, pr->j, r, rb);
	if (iob_coord_active())
		return 1; /* built: rank 0 records it with the other ranks' (ranks.c) */
	iob_run_record(run, &rb->rec);
	return 0;
}

/* One stream's record: the phase base keys, its index, status and CPU. */
static void emit_stream(struct iob_run *run, const struct iob_job *job, const struct job_files *jf, size_t i,
			const struct iob_streams *st)
{
	struct iob_recbuf *rb = &run->rb;
	char file[IOB_PATH_MAX + 64];
	size_t nbase = jf->fl.n / (iob_job_stream_files(job) ? st->n : 1);
	if (job->layout == IOB_LAYOUT_TREE)
		snprintf(file, sizeof file, "%s", job->dir);
	else
		snprintf(file, sizeof file, "%s", jf->fl.paths[iob_job_stream_files(job) ? i * nbase : 0]);
	iob_rec_phase(rb, job, file, &st->r[i]);
	rb->rec.kind = "stream";
	iob_rec_u64(rb, "stream", IOB_UNIT_COUNT, i);
	/* "stopped": cut short because another stream of the phase failed */
	iob_rec_str(rb, "status", st->cut[i] ? "stopped" : iob_phase_status_name(&st->r[i]));
	iob_rec_phase_cpu(rb, &st->r[i]);
	iob_run_record(run, &rb->rec);
}

/* The streams' results aggregated (iob_aggregate). */
static int streams_aggregate(const struct iob_streams *st, struct iob_aggregate *agg)
{
	const struct iob_phase_result **v = calloc(st->n, sizeof *v);
	for (size_t i = 0; v && i < st->n; i++)
		v[i] = &st->r[i];
	int rc = v ? iob_aggregate(v, st->n, agg) : -ENOMEM;
	free(v);
	return rc;
}

/* The aggregate as the phase's result *r (its histograms borrowed from
 * *agg), with the failed stream's words, naming it. */
static void streams_result(const struct iob_streams *st, const struct iob_aggregate *agg, struct iob_phase_result *r)
{
	iob_aggregate_as_result(agg, r);
	if (agg->status != 0) {
		const struct iob_phase_result *f = &st->r[agg->failed_stream];
		snprintf(r->error, sizeof r->error, "stream %zu: %s", agg->failed_stream, f->error);
		r->first_bad_offset = f->first_bad_offset;
		r->expected = f->expected;
		r->found = f->found;
		snprintf(r->bad_file, sizeof r->bad_file, "%s", f->bad_file);
		snprintf(r->verify_why, sizeof r->verify_why, "%s", f->verify_why);
	}
}

/* The phase on job->threads streams: their records, then the aggregate in
 * *r (its histograms borrowed from *agg). */
static int run_streams(struct iob_run *run, const struct iob_job *job, struct job_files *jf,
		       const struct iob_phase_spec *spec, struct iob_streams *st, struct iob_aggregate *agg,
		       struct iob_phase_result *r, struct observed *ob)
{
	size_t n = job->threads, per = iob_job_stream_files(job);
	size_t nfiles = per ? jf->fl.n / n : jf->fl.n;
	/* a backend whose I/O kernel workers may do: the threads' own storage
	 * counts miss it, the process's (only this phase runs) do not */
	uint64_t rb0 = UINT64_MAX, wb0 = UINT64_MAX, rb1 = UINT64_MAX, wb1 = UINT64_MAX;
	int workers = (spec->backend->desc.caps & IOB_CAP_WORKERS) && !spec->ramp_ns &&
		      iob_proc_io(NULL, NULL, &rb0, &wb0) == 0;
	int rc = iob_streams_run(spec, n, (const char *const *)jf->open, nfiles, per, run->live_stop, st);
	workers = workers && iob_proc_io(NULL, NULL, &rb1, &wb1) == 0 && rb0 != UINT64_MAX && rb1 != UINT64_MAX &&
		  wb0 != UINT64_MAX && wb1 != UINT64_MAX;
	iob_observer_stop(ob->obs); /* before the stream records: nothing prints inside the line */
	ob->obs = NULL;
	if (rc == 0)
		rc = streams_aggregate(st, agg);
	if (rc != 0) {
		iob_streams_free(st);
		iob_phase_result_init(r);
		r->phase = spec->phase;
		r->status = rc;
		snprintf(r->error, sizeof r->error, "cannot start %zu streams: %s", n, strerror(-rc));
		return rc;
	}
	for (size_t i = 0; i < n; i++) {
		unmask(st->r[i].error, sizeof st->r[i].error, jf);
		unmask(st->r[i].bad_file, sizeof st->r[i].bad_file, jf);
		if (!run->quiet)
			emit_stream(run, job, jf, i, st);
	}
	streams_result(st, agg, r);
	if (workers) {
		r->storage_read_bytes = rb1 - rb0;
		r->storage_write_bytes = wb1 - wb0;
	}
	return r->status;
}

/* ---------------------------------------------- across MPI ranks (ranks.h) */

/* stonewall: a time limit on the phase's planned I/O (a bound, as runtime
 * is).  Every rank's clock starts when the start barrier returns, so every
 * rank stops at the same moment of the common time line. */
static void stonewall(const struct iob_job *job, struct iob_phase_spec *spec)
{
	if (!job->stonewall_ns)
		return;
	if (!spec->runtime_ns || job->stonewall_ns < spec->runtime_ns)
		spec->runtime_ns = job->stonewall_ns;
}

struct rank_start {
	int rc;		  /* the start barrier's */
	uint64_t epoch_ns; /* this rank's clock when it returned */
	int tag;	  /* the phase's number, the same on every rank */
	volatile sig_atomic_t *flag; /* the engine's stop flag */
	struct iob_rank_watch *watch; /* stop messages of other ranks */
	struct iob_live *live;	      /* the streams' counters (owned), for the watcher */
	size_t nlive;
};

static void rank_ready(void *arg)
{
	struct rank_start *rs = arg;
	rs->rc = iob_coord_barrier();
	rs->epoch_ns = iob_now_ns();
	rs->watch = iob_ranks_watch(rs->tag, rs->flag, rs->live, rs->nlive);
}

/* The phase's start across ranks: the barrier after every file is open (the
 * engine's ready; streams: stream 0's thread once every stream is ready, or
 * before they start where MPI cannot take a call from another thread), and
 * with a shared file each rank's own region (sequential) or own random
 * offsets. */
static void rank_phase_spec(const struct iob_job *job, struct iob_phase_spec *spec, struct rank_start *rs,
			    int streams)
{
	static int phases;
	uint64_t k = (uint64_t)iob_coord_rank(), n = (uint64_t)iob_coord_size();
	rs->tag = phases++;
	rs->flag = spec->stop;
	if (streams && !iob_coord_serialized()) {
		rank_ready(rs);
	} else {
		spec->ready = rank_ready;
		spec->ready_arg = rs;
	}
	spec->seed = job->seed + k * 0xbf58476d1ce4e5b9ull;
	if (job->shared_file && n > 1) {
		spec->truncate = 0; /* another rank may be writing its region already */
		if (job->access == IOB_ACCESS_SEQ && spec->file_size) {
			uint64_t bs = spec->block_size, blocks = spec->file_size / bs;
			uint64_t b0 = blocks * k / n, b1 = blocks * (k + 1) / n;
			spec->region_off = b0 * bs;
			spec->region_len = k + 1 == n ? spec->file_size - b0 * bs : (b1 - b0) * bs;
		}
	}
}

/* Rank 0's records, handed back by ranks.c for the runner to emit. */
static void rank_record(void *arg, const struct iob_record *rec)
{
	iob_run_record(arg, rec);
}

static void rank_fields(void *arg, size_t j, const struct iob_phase_result *r, struct iob_recbuf *rb)
{
	struct iob_run *run = arg;
	const struct iob_run_hooks *h = run->opts.hooks;
	if (h && h->record_fields)
		h->record_fields(h->arg, run, j, r, rb);
}

/* The phase's end across ranks: every rank's record and result to rank 0,
 * the verdict back; a failure or a stop anywhere becomes every rank's. */
static int rank_phase_end(struct iob_run *run, size_t j, const char *file, const struct iob_record *rec,
			  const struct iob_phase_result *r, const struct rank_start *rs, int rc)
{
	struct iob_rank_verdict v;
	/* the rank's first-done counts (docs/mpi.md): its totals when it finished first */
	struct iob_phase_result *mine_r = malloc(sizeof *mine_r);
	if (mine_r) /* (without memory: r's own, its totals or none) */
		*mine_r = *r; /* shallow: the histograms stay r's */
	uint64_t fd_bytes = r->bytes, fd_ops = r->ops;
	/* a stop message from a failed rank cut this phase: not a signal */
	iob_ranks_unwatch(rs->watch, rc < 0, &fd_bytes, &fd_ops);
	if (mine_r) {
		mine_r->first_done_bytes = fd_bytes;
		mine_r->first_done_ops = fd_ops;
		r = mine_r;
	}
	int cut = IOB_RANKS_CUT;
	__atomic_compare_exchange_n((int *)run->live_stop, &cut, 0, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	const char *mine = rc ? (run->opts.hide_job_names ? iob_error_without_job(run->error) : run->error) : "";
	const struct iob_ranks_emit emit = {run->host, run->suite, &run->rb, rank_record, rank_fields, run};
	iob_ranks_phase(&emit, j, file, rec, r, rs->epoch_ns, rc, mine, (int)*run->live_stop, &v);
	free(mine_r);
	if (v.sig)
		run->agreed_stop = v.sig;
	if (v.status != 0) {
		snprintf(run->error, sizeof run->error, "%s", v.text);
		if (rc == 0)
			rc = v.status;
	}
	return rc;
}

/* A job's start across ranks: every rank has its files ready, or all stop. */
static int rank_job_start(struct iob_run *run, int rc)
{
	char text[2048];
	const char *mine = rc ? (run->opts.hide_job_names ? iob_error_without_job(run->error) : run->error) : "";
	int a = iob_coord_agree(rc, mine, NULL, NULL, 0, text, sizeof text);
	if (a != 0) {
		snprintf(run->error, sizeof run->error, "%s", text);
		return rc ? rc : a;
	}
	return rc;
}

/* ------------------------------------------ what reached storage (caveats.h) */

/* File systems whose I/O the kernel's per-task storage counts (/proc's
 * read_bytes, write_bytes) see: block file systems, where the block layer
 * counts a read for the task that submits it and a write when the task
 * dirties a page or submits a direct write; and memory ones, where nothing
 * reaches storage and the count of 0 is the truth.  Elsewhere (NFS, FUSE,
 * 9p, ZFS, ...) other threads or other accounting do the I/O. */
static const char *const COUNTED_FS[] = {"ext2",  "ext3",  "ext4", "xfs",	  "btrfs", "f2fs",  "vfat",
					 "exfat", "ntfs3", "jfs",  "nilfs2", "bcachefs", "tmpfs", "ramfs"};

/* Why the storage counts of a phase on the job's files mean nothing, or NULL. */
static const char *storage_uncounted(const struct iob_job *job, const struct iob_filelist *fl, char *why,
				     size_t len, int *memory_fs)
{
	*memory_fs = 0;
	if (iob_is_stdin_path(fl->paths[0]))
		return "standard input: the kernel counts no storage behind it for this process";
	if (iob_proc_io(NULL, NULL, NULL, NULL) == -ENOTSUP)
		return "this OS gives no per-process storage counts like Linux's /proc/self/io";
	if (iob_path_kind(fl->paths[0], 1) == IOB_PATH_BLOCKDEV)
		return NULL;
	char fs[64], dev[IOB_PATH_MAX];
	uint64_t bsz;
	iob_fs_facts(job->dir, fs, sizeof fs, &bsz, dev, sizeof dev);
	*memory_fs = strcmp(fs, "tmpfs") == 0 || strcmp(fs, "ramfs") == 0;
	for (size_t i = 0; i < sizeof COUNTED_FS / sizeof COUNTED_FS[0]; i++)
		if (strcmp(fs, COUNTED_FS[i]) == 0)
			return NULL;
	snprintf(why, len, "file system %s: the kernel's per-process storage counts are not known to see its I/O", fs);
	return why;
}

/* Right after a phase that wrote: what of it is still dirty or under
 * writeback in the page cache (r->unwritten_bytes; UINT64_MAX: unknown). */
static void measure_unwritten(const struct job_files *jf, struct iob_phase_result *r)
{
	uint64_t sum = 0;
	r->unwritten_bytes = UINT64_MAX;
	if (!r->bytes_written || iob_is_stdin_path(jf->fl.paths[0]))
		return;
	for (size_t i = 0; i < jf->fl.n; i++) {
		uint64_t u = 0;
		if (iob_cache_unwritten(jf->open[i], &u) != 0)
			return;
		sum += u;
	}
	r->unwritten_bytes = sum;
}

/* The caveats of a phase that ran (plan: what a read phase read, else NULL). */
static void phase_notes(struct iob_run *run, const struct iob_job *job, const struct iob_loaded *b,
			const struct iob_filelist *fl, enum iob_phase phase, const struct iob_read_plan *plan,
			struct iob_read_facts *facts, struct iob_phase_result *r, int evict_failed)
{
	char what[160], whybuf[160];
	snprintf(what, sizeof what, "job %s, %s phase", job->name, iob_phase_name(phase));
	int memory_fs;
	const char *why = storage_uncounted(job, fl, whybuf, sizeof whybuf, &memory_fs);
	if (b->desc.caps & IOB_CAP_NOSTORAGE) {
		why = "the backend moves no bytes";
		iob_notes_add(&run->notes, "%s: backend %s moves no bytes and touches no file: these figures measure "
					   "the tool, not storage", what, b->desc.name);
	}
	if (why)
		r->storage_read_bytes = r->storage_write_bytes = UINT64_MAX;
	else if (r->storage_read_bytes == UINT64_MAX && (b->desc.caps & IOB_CAP_WORKERS))
		why = "kernel worker threads do part of this backend's I/O, which a thread's own counts miss, and "
		      "other jobs share the process's";
	facts->storage_known = iob_storage_cached_read_pct(r) >= 0;
	if (plan) /* the handles' own word on the cache decides, not the plugin's caps */
		iob_caveat_read_notes(&run->notes, what, plan, facts,
				      r->direct || (r->ops == 0 && (b->desc.caps & IOB_CAP_DIRECT)));
	if (r->ops)
		iob_caveat_storage_notes(&run->notes, what, r, why, memory_fs);
	iob_caveat_after_phase(&run->notes, what, r, b->desc.name, (b->desc.caps & IOB_CAP_DIRECT) != 0);
	if (evict_failed)
		iob_notes_add(&run->notes, "%s: evict_before_read: this OS cannot evict a file from its cache, so the "
					   "read may be served from memory", what);
}

/* After a write phase: each stream's draws of its order (random) or bytes
 * of it (sequential; UINT64_MAX: a whole pass), which the read and verify
 * phases after it replay (engine.h, written_draws).  A
 * write that failed keeps nothing (the job ends). */
static void written_keep(struct job_files *jf, const struct iob_job *job, enum iob_phase phase, uint64_t bs,
			 const struct iob_phase_result *r, size_t n)
{
	if (phase != IOB_PHASE_WRITE)
		return;
	free(jf->written);
	jf->written = calloc(n, sizeof *jf->written);
	jf->written_bs = jf->written ? bs : 0;
	for (size_t i = 0; jf->written && i < n; i++)
		jf->written[i] = r[i].draws;
}

/* A read or verify after that write: it reads where the write wrote.  A
 * random one has no ramp unless the write covered every block: a ramp draws
 * another order, which would read blocks the write never wrote (past the
 * end of a file it left short).  Returns 1 when it took the ramp away. */
static int written_apply(const struct job_files *jf, const struct iob_job *job, enum iob_phase phase, uint64_t bs,
			 struct iob_phase_spec *spec)
{
	if ((phase != IOB_PHASE_READ && phase != IOB_PHASE_VERIFY) || !jf->written || jf->written_bs != bs)
		return 0;
	spec->written_draws = jf->written;
	size_t n = job->threads > 1 ? job->threads : 1;
	for (size_t i = 0; job->access == IOB_ACCESS_RAND && spec->ramp_ns && i < n; i++)
		if (jf->written[i] != UINT64_MAX) {
			spec->ramp_ns = 0;
			return 1;
		}
	return 0;
}

/* Say so when a read or verify read less than its own order because the
 * write before it wrote less (results: one per stream). */
static void written_note(struct iob_run *run, const struct iob_job *job, enum iob_phase phase,
			 const struct iob_phase_result *r, size_t n, int no_ramp)
{
	if (no_ramp)
		iob_notes_add(&run->notes,
			      "job %s, %s phase: no ramp_time: the write phase before it did not write every block, "
			      "and a ramp reads other blocks than the ones it wrote",
			      job->name, iob_phase_name(phase));
	for (size_t i = 0; i < n; i++)
		if (r[i].written_cut) {
			iob_notes_add(&run->notes,
				      "job %s, %s phase: the write phase before it completed only part of its "
				      "order (a time limit or a stop), so this phase read only the blocks it wrote, "
				      "in the order it wrote them",
				      job->name, iob_phase_name(phase));
			return;
		}
}

/* The engine's spec of one phase of a job. */
static void phase_spec(const struct iob_run *run, const struct iob_job *job, const struct iob_loaded *b,
		       const struct job_files *jf, enum iob_phase phase, uint64_t bs, struct iob_phase_spec *spec)
{
	*spec = (struct iob_phase_spec){
		.backend = b,
		.files = (const char *const *)jf->open,
		.nfiles = jf->fl.n,
		.phase = phase,
		.access = job->access,
		.block_size = bs,
		.file_size = job->series ? 0 : job->size,
		.ops = job->ops,
		.loops = job->loops,
		.offset_align = job->offset_align,
		.skip_past_end = job->skip_past_end,
		.random_map = job->random_map,
		.pattern = job->pattern,
		.seed = job->seed,
		.fsync = job->fsync,
		.truncate = job->truncate,
		.reopen = job->reopen,
		.stop = run->live_stop,
		.fill_once = job->fill_once,
		.backend_options = job->backend_options,
		.follow_symlinks = job->follow_symlinks,
		.allow_devices = job->allow_devices,
		.iodepth = job->iodepth,
		.runtime_ns = job->runtime_ns,
		.time_based = job->time_based,
		.evict_passes = job->evict_before_read,
		.ramp_ns = job->ramp_ns,
		.rwmix_read = job->rwmix_read,
		.latency = job->latency,
		.verify_fatal = job->verify_fatal,
	};
	spec->pattern.block_size = bs; /* what verify_interval 0 means */
}

static int run_phase(struct iob_run *run, size_t j, const struct iob_loaded *b, struct job_files *jf,
		     enum iob_phase phase, uint64_t bs)
{
	const struct iob_filelist *fl = &jf->fl;
	const struct iob_job *job = &run->suite->jobs[j];
	const struct iob_run_hooks *h = run->opts.hooks;
	struct phase_run pr = {.run = run, .job = job, .j = j};
	struct iob_phase_spec spec;
	phase_spec(run, job, b, jf, phase, bs, &spec);
	if (run->rep) /* a steady state round: its time or its I/Os */
		iob_repeats_spec(run->rep, job, &spec);
	struct iob_phase_result r;
	struct iob_read_facts facts;
	struct iob_streams st = {0};
	struct iob_aggregate agg = {0};
	int streams = job->threads > 1;
	struct rank_start rs = {0};
	int built = 0;

	if (job->series && phase == IOB_PHASE_READ) {
		spec.record_series = 1;
		spec.series_clock = job->series_clock;
		spec.on_sample = on_block;
		spec.sample_arg = &pr;
		if (iob_blocks_init(&pr.blocks, job->series_clock, job->name, fl->paths[0], bs) < 0) {
			iob_run_fail(run, 0, "out of memory");
			return -ENOMEM;
		}
	}
	if (phase != IOB_PHASE_WRITE && job->evict_before_read)
		for (size_t i = 0; i < fl->n; i++)
			if (!iob_is_stdin_path(fl->paths[i]) && iob_cache_evict(jf->open[i]) == -ENOTSUP)
				pr.evict_failed = 1;
	struct iob_read_plan plan;
	int reads = phase != IOB_PHASE_WRITE && !run->quiet;
	memset(&facts, 0, sizeof facts);
	read_plan(job, jf, bs, &plan);
	if (reads)
		iob_caveat_measure_read(&plan, &facts);
	struct observed ob;
	if (iob_coord_size() > 1) { /* what the rank's watcher reads (rank_start) */
		rs.nlive = job->threads > 1 ? job->threads : 1;
		rs.live = calloc(rs.nlive, sizeof *rs.live);
		spec.live = rs.live;
	}
	observe_start(run, job, fl, phase, bs, &spec, &ob);
	int rc;
	int no_ramp = written_apply(jf, job, phase, bs, &spec);
	stonewall(job, &spec);
	if (iob_coord_active())
		rank_phase_spec(job, &spec, &rs, streams);
	if (streams) {
		rc = run_streams(run, job, jf, &spec, &st, &agg, &r, &ob);
	} else {
		rc = iob_phase_run(&spec, &r);
		unmask(r.error, sizeof r.error, jf);
		unmask(r.bad_file, sizeof r.bad_file, jf);
	}
	measure_unwritten(jf, &r); /* at once: writeback goes on */
	observe_end(&ob, &r);
	observe_emit(run, run->suite_job, job, phase, &ob);
	if (rc >= 0 && !r.interrupted && iob_is_stdin_path(fl->paths[0]) && r.bytes == 0) {
		iob_run_fail(run, 1, "standard input gave no data: there is nothing to read");
		iob_phase_result_free(&r);
		iob_blocks_free(&pr.blocks);
		free(rs.live);
		return -ENODATA;
	}
	if (h && h->end_phase) {
		int hr = h->end_phase(h->arg, run, j, &r);
		if (hr != 0 && rc == 0)
			rc = hr;
	}
	if (r.interrupted)
		run->interrupted = 1;
	if (rc == 0 && streams && st.n == job->threads)
		written_keep(jf, job, phase, bs, st.r, st.n);
	else if (rc == 0 && !streams)
		written_keep(jf, job, phase, bs, &r, 1);
	if (!run->quiet) {
		phase_notes(run, job, b, fl, phase, reads ? &plan : NULL, &facts, &r, pr.evict_failed);
		written_note(run, job, phase, streams ? st.r : &r, streams ? st.n : 1, no_ramp);
	}
	if (r.ops || rc == 0 || r.interrupted || rc == IOB_STATUS_MISMATCH || (streams && st.n)) {
		int er = emit_phase(&pr, fl, &r, &facts, streams && st.n ? &agg : NULL);
		if (er < 0 && rc >= 0)
			rc = er;
		built = er == 1;
	}
	print_live_notes(run);
	char sw[48] = "";
	if (streams && agg.status)
		snprintf(sw, sizeof sw, " (first in stream %zu)", agg.failed_stream);
	if (rc == IOB_STATUS_MISMATCH && !run->error[0])
		snprintf(run->error, sizeof run->error,
			 "verify failed in job %s: %llu bad block(s)%s; first bad byte at offset %llu of %s: expected "
			 "0x%02x, found 0x%02x%s%s",
			 job->name, (unsigned long long)r.bad_blocks, sw,
			 (unsigned long long)r.first_bad_offset, r.bad_file, r.expected, r.found,
			 r.verify_why[0] ? "; " : "", r.verify_why);
	if (rc == IOB_STATUS_MISMATCH && job->verify_dump)
		iob_verify_dump(job, &r, bs);
	else if (rc < 0)
		iob_run_fail(run, rc == -EINVAL && r.ops == 0, "job %s: %s", job->name, r.error);
	if (iob_coord_active()) { /* every rank, whatever happened to it */
		char file[IOB_PATH_MAX + 64];
		record_file(job, fl, file, sizeof file);
		rc = rank_phase_end(run, j, file, built ? &run->rb.rec : NULL, &r, &rs, rc);
	}
	if (h && h->after_phase)
		h->after_phase(h->arg, run, j, &r);
	if (run->rep && rc == 0 && !r.interrupted && iob_repeats_add(run->rep, &r) != 0)
		rc = -ENOMEM, iob_run_fail(run, 0, "out of memory");
	if (streams) { /* r borrowed the aggregate's histograms */
		iob_aggregate_free(&agg);
		iob_streams_free(&st);
	} else {
		iob_phase_result_free(&r);
	}
	iob_blocks_free(&pr.blocks);
	free(rs.live);
	return rc;
}

/* A phase and its repeats (repeat.c): each run as the first (its own
 * eviction, files, window), then the summary record, made between runs. */
static int run_phase_repeats(struct iob_run *run, size_t j, const struct iob_loaded *b, struct job_files *jf,
			     enum iob_phase phase, uint64_t bs)
{
	const struct iob_job *job = &run->suite->jobs[j];
	struct iob_repeats rep;
	int rc;
	iob_repeats_begin(&rep, job);
	run->rep = rep.active ? &rep : NULL; /* repeats, or steady state rounds */
	do {
		rc = run_phase(run, j, b, jf, phase, bs);
		note_made(run, jf);
		rep.index++;
	} while (rep.active && rc == 0 && !*run->stop && iob_repeats_more(&rep));
	run->rep = NULL;
	if (rep.active && rep.n && !run->quiet) {
		iob_rec_summary(&run->rb, job, phase, bs, &rep, &run->notes);
		iob_run_record(run, &run->rb.rec);
	}
	iob_repeats_free(&rep);
	return rc;
}

static int run_job(struct iob_run *run, size_t j)
{
	const struct iob_job *job = &run->suite->jobs[j];
	const struct iob_run_hooks *h = run->opts.hooks;
	const struct iob_loaded *b = iob_registry_find(run->reg, IOB_PLUGIN_BACKEND, job->backend);
	struct job_files jf;
	int rc;

	if (job->workload == IOB_WORKLOAD_FILES) /* meta.c */
		return iob_meta_run(run, j);
	/* a job that only prepares files for a later one is not recorded */
	run->quiet = run->suite->prepare && run->suite->prepare[j];
	if (!run->quiet && h && h->before_job) {
		rc = h->before_job(h->arg, run, j);
		if (rc < 0)
			return iob_coord_active() ? rank_job_start(run, rc) : rc;
		run->quiet = rc == 1;
	}
	iob_fs_facts(job->dir, run->fs_type, sizeof run->fs_type, &run->fs_block_size, run->device,
		     sizeof run->device);
	if (!run->pins && !(run->pins = calloc(1, sizeof *run->pins))) {
		iob_run_fail(run, 0, "out of memory");
		return -ENOMEM;
	}
	size_t mark = run->pins->nmade;
	rc = job_files_open(run, job, &jf);
	if (iob_coord_active())
		rc = rank_job_start(run, rc);
	uint64_t top = job->block_size_max ? job->block_size_max : job->block_size;
	for (uint64_t bs = job->block_size; rc == 0 && bs <= top && !*run->stop; bs *= 2) {
		for (int p = IOB_PHASE_WRITE; p <= IOB_PHASE_MIXED && rc == 0 && !*run->stop; p++)
			if (job->phases & IOB_PHASE_BIT(p)) {
				rc = run_phase_repeats(run, j, b, &jf, (enum iob_phase)p, bs);
			}
		if (bs > UINT64_MAX / 2)
			break;
	}
	if (!job->keep_files) {
		uint64_t files = 0, dirs = 0;
		remove_made_range(run, mark, run->pins->nmade, &files, &dirs);
	}
	job_files_free(&jf);
	run->quiet = 0;
	return rc;
}

/* ------------------------------------------------------------------ groups */

/* A group (job->group != 0): its jobs run at once, each on a thread of its
 * own that runs the job's phases in order (block-size sweep x phases) on
 * iob_streams_run (one stream, or threads of them: each stream's kernel
 * counts and CPU time are then its thread's own, not the process's).  The
 * first phase of every job waits at the group's barrier (the streams' outer
 * ready: after every file is open and every buffer allocated, before any
 * clock starts).  A job thread touches no note, record, output or the run's
 * held directories: it keeps what it measured, and the runner's thread,
 * once every job is joined, emits each job's records in suite order, its
 * notes, then one "group" record per phase name. */

struct gphase {
	enum iob_phase phase;
	uint64_t bs;
	int ran;			/* the streams ran (st holds their results) */
	int rc;				/* iob_streams_run's, or the phase's status */
	struct iob_streams st;
	struct iob_read_plan plan;
	struct iob_read_facts facts;
	int reads, evict_failed;
	int no_ramp; /* written_apply took the ramp away */
	uint64_t unwritten; /* measure_unwritten's, right after the phase */
	struct observed ob;
	/* for the group's line: the phase's counters once it started (atomic),
	 * what it will move in all (0: unknown) */
	struct iob_live *shown;
	uint64_t expect;
};

struct group;

struct gjob {
	struct group *g;
	struct iob_run *run;
	size_t j;
	const struct iob_job *job;
	const struct iob_loaded *b;
	struct job_files jf;
	int opened;
	struct gphase *ph;
	size_t nph, ran;
	struct iob_thread *thread;
	int arrived; /* reached the group's start barrier */
	int done;    /* atomic: the thread is over */
	int rc;      /* the job's first failure, or 0 */
	size_t dirs0, dirs1, made0, made1; /* what the run made for it: [dirs0, dirs1) and [made0, made1) */
};

struct group {
	struct iob_barrier *start;
	volatile sig_atomic_t stop; /* atomic: a signal, or a job failed */
	int failed;		    /* atomic: index of the first job that failed, or -1 */
	struct gjob *jobs;
	size_t n;
};

static void group_ready(void *arg)
{
	struct gjob *gj = arg;
	gj->arrived = 1;
	iob_barrier_wait(gj->g->start);
}

static void group_job_main(void *arg)
{
	struct gjob *gj = arg;
	struct group *g = gj->g;
	const struct iob_job *job = gj->job;
	size_t n = job->threads, per = iob_job_stream_files(job);
	size_t nfiles = per ? gj->jf.fl.n / n : gj->jf.fl.n;
	for (size_t k = 0; k < gj->nph && !__atomic_load_n(&g->stop, __ATOMIC_RELAXED); k++) {
		struct gphase *gp = &gj->ph[k];
		struct iob_phase_spec spec;
		phase_spec(gj->run, job, gj->b, &gj->jf, gp->phase, gp->bs, &spec);
		gp->no_ramp = written_apply(&gj->jf, job, gp->phase, gp->bs, &spec);
		if (k == 0) {
			spec.ready = group_ready;
			spec.ready_arg = gj;
		}
		if (gp->phase != IOB_PHASE_WRITE && job->evict_before_read)
			for (size_t i = 0; i < gj->jf.fl.n; i++)
				if (iob_cache_evict(gj->jf.open[i]) == -ENOTSUP)
					gp->evict_failed = 1;
		gp->reads = gp->phase != IOB_PHASE_WRITE;
		read_plan(job, &gj->jf, gp->bs, &gp->plan);
		if (gp->reads)
			iob_caveat_measure_read(&gp->plan, &gp->facts);
		observe_start(gj->run, job, &gj->jf.fl, gp->phase, gp->bs, &spec, &gp->ob);
		__atomic_store_n(&gp->shown, gp->ob.live, __ATOMIC_RELEASE);
		gp->rc = iob_streams_run(&spec, n, (const char *const *)gj->jf.open, nfiles, (int)per, &g->stop,
					 &gp->st);
		__atomic_store_n(&gj->ran, k + 1, __ATOMIC_RELEASE);
		gp->unwritten = UINT64_MAX;
		if (gp->rc == 0) { /* what the streams wrote, summed (the files are shared or each its own) */
			struct iob_phase_result w;
			iob_phase_result_init(&w);
			for (size_t i = 0; i < gp->st.n; i++)
				w.bytes_written += gp->st.r[i].bytes_written;
			measure_unwritten(&gj->jf, &w);
			gp->unwritten = w.unwritten_bytes;
		}
		struct iob_phase_result span; /* the streams' window: the last interval ends with it */
		iob_phase_result_init(&span);
		for (size_t i = 0; gp->rc == 0 && i < gp->st.n; i++) {
			const struct iob_phase_result *x = &gp->st.r[i];
			if (!span.start_ns || (x->start_ns && x->start_ns < span.start_ns))
				span.start_ns = x->start_ns;
			span.end_ns = x->end_ns > span.end_ns ? x->end_ns : span.end_ns;
		}
		observe_end(&gp->ob, &span);
		gp->ran = gp->rc == 0;
		for (size_t i = 0; gp->ran && i < n; i++) {
			int st = gp->st.r[i].status;
			if (st < 0 || (st == IOB_STATUS_MISMATCH && gp->rc >= 0))
				gp->rc = st;
		}
		if (gp->rc == 0 && gp->st.n == n)
			written_keep(&gj->jf, job, gp->phase, gp->bs, gp->st.r, n);
		if (gp->rc != 0) {
			int none_failed = -1;
			gj->rc = gp->rc;
			__atomic_compare_exchange_n(&g->failed, &none_failed, (int)(gj - g->jobs), 0, __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED);
			__atomic_store_n(&g->stop, 1, __ATOMIC_RELAXED);
			break;
		}
	}
	if (!gj->arrived) /* never reached its first phase's start: let the others go */
		iob_barrier_arrive(g->start);
	__atomic_store_n(&gj->done, 1, __ATOMIC_RELEASE);
}

/* One phase of a group's job, on the runner's thread after the join: its
 * stream records, intervals, notes and phase record.  cut: no signal came,
 * so a stopped stream was stopped by another job's failure.  first_failed:
 * the job is the group's first to fail, whose error the run reports. */
static void group_emit_phase(struct iob_run *run, struct gjob *gj, struct gphase *gp, int cut, int first_failed)
{
	const struct iob_job *job = gj->job;
	struct job_files *jf = &gj->jf;
	struct phase_run pr = {.run = run, .job = job, .j = gj->j, .evict_failed = gp->evict_failed};
	struct iob_phase_result r;
	struct iob_aggregate agg = {0};
	int streams = job->threads > 1, stopped = 0;
	observe_emit(run, gj->j, job, gp->phase, &gp->ob);
	if (!gp->ran) {
		iob_run_fail(run, 0, "job %s: cannot start %u streams: %s", job->name, job->threads,
			     strerror(-gp->rc));
		return;
	}
	for (size_t i = 0; i < gp->st.n; i++) {
		struct iob_phase_result *s = &gp->st.r[i];
		unmask(s->error, sizeof s->error, jf);
		unmask(s->bad_file, sizeof s->bad_file, jf);
		if (cut && s->interrupted) {
			s->interrupted = 0;
			gp->st.cut[i] = 1;
		}
		stopped |= gp->st.cut[i];
	}
	if (streams) {
		if (streams_aggregate(&gp->st, &agg) != 0) {
			iob_run_fail(run, 0, "out of memory");
			return;
		}
		for (size_t i = 0; i < gp->st.n; i++)
			emit_stream(run, job, jf, i, &gp->st);
		streams_result(&gp->st, &agg, &r);
		if (stopped)
			agg.partial = 1;
	} else {
		r = gp->st.r[0]; /* shallow: the histograms stay the stream's */
	}
	if (stopped && r.status == 0)
		pr.status = "stopped";
	if (r.interrupted)
		run->interrupted = 1;
	r.unwritten_bytes = gp->unwritten;
	phase_notes(run, job, gj->b, &jf->fl, gp->phase, gp->reads ? &gp->plan : NULL, &gp->facts, &r,
		    gp->evict_failed);
	written_note(run, job, gp->phase, gp->st.r, gp->st.n, gp->no_ramp);
	int er = emit_phase(&pr, &jf->fl, &r, &gp->facts, streams ? &agg : NULL);
	if (er < 0 && !run->error[0])
		iob_run_fail(run, 0, "job %s: the phase record could not be made", job->name);
	print_live_notes(run);
	if (first_failed && gp->rc != 0) { /* the job that failed first says why, whatever came before */
		run->error[0] = '\0';
		run->usage = 0;
	}
	if (gp->rc == IOB_STATUS_MISMATCH) {
		iob_run_fail(run, 0,
			     "verify failed in job %s: %llu bad block(s); first bad byte at offset %llu of %s: expected "
			     "0x%02x, found 0x%02x%s%s",
			     job->name, (unsigned long long)r.bad_blocks, (unsigned long long)r.first_bad_offset,
			     r.bad_file, r.expected, r.found, r.verify_why[0] ? "; " : "", r.verify_why);
		if (job->verify_dump)
			iob_verify_dump(job, &r, gp->bs);
	} else if (gp->rc < 0)
		iob_run_fail(run, gp->rc == -EINVAL && r.ops == 0, "job %s: %s", job->name,
			     streams ? r.error : gp->st.r[0].error);
	if (streams)
		iob_aggregate_free(&agg);
}

/* One "group" record per phase name, over every stream of every job's
 * phases of that name (every block size of a sweep). */
static void group_emit_totals(struct iob_run *run, struct group *g, int cut)
{
	for (int p = IOB_PHASE_WRITE; p <= IOB_PHASE_MIXED; p++) {
		size_t nv = 0, jobs = 0;
		int same_bs = 1, stopped = 0;
		uint64_t bs = 0;
		double jmin = 0, jmax = 0;
		for (size_t k = 0; k < g->n; k++)
			for (size_t q = 0; q < g->jobs[k].ran; q++)
				if (g->jobs[k].ph[q].ran && g->jobs[k].ph[q].phase == (enum iob_phase)p)
					nv += g->jobs[k].ph[q].st.n;
		if (!nv)
			continue;
		const struct iob_phase_result **v = calloc(nv, sizeof *v);
		if (!v) {
			iob_run_fail(run, 0, "out of memory");
			return;
		}
		nv = 0;
		for (size_t k = 0; k < g->n; k++) {
			int counted = 0;
			for (size_t q = 0; q < g->jobs[k].ran; q++) {
				struct gphase *gp = &g->jobs[k].ph[q];
				if (!gp->ran || gp->phase != (enum iob_phase)p)
					continue;
				struct iob_aggregate one;
				const struct iob_phase_result **w = v + nv;
				for (size_t i = 0; i < gp->st.n; i++) {
					v[nv++] = &gp->st.r[i];
					stopped |= cut && gp->st.cut[i];
				}
				/* the job's own rate in this phase, as its phase record gives it */
				double bw = 0;
				if (iob_aggregate(w, gp->st.n, &one) == 0) {
					bw = one.bw;
					iob_aggregate_free(&one);
				}
				if (!jobs && !counted) {
					jmin = jmax = bw;
					bs = gp->bs;
				}
				jmin = bw < jmin ? bw : jmin;
				jmax = bw > jmax ? bw : jmax;
				same_bs &= gp->bs == bs;
				if (!counted++)
					jobs++;
			}
		}
		struct iob_aggregate agg;
		if (iob_aggregate(v, nv, &agg) == 0) {
			iob_rec_group(&run->rb, g->jobs[0].job->group, jobs, same_bs, &agg, jmin, jmax, stopped);
			iob_run_record(run, &run->rb.rec);
			iob_aggregate_free(&agg);
		} else {
			iob_run_fail(run, 0, "out of memory");
		}
		free(v);
	}
}

static void group_free(struct group *g)
{
	for (size_t k = 0; k < g->n; k++) {
		struct gjob *gj = &g->jobs[k];
		for (size_t q = 0; gj->ph && q < gj->nph; q++)
			iob_streams_free(&gj->ph[q].st);
		free(gj->ph);
		if (gj->opened)
			job_files_free(&gj->jf);
	}
	free(g->jobs);
	iob_barrier_destroy(g->start);
}

/* What is left of one phase of a group's job, in seconds (< 0: unknown),
 * from its counters l (NULL: not started); *rate is set from a started one. */
static double gphase_left(const struct iob_job *job, const struct gphase *gp, const struct iob_live *l, size_t n,
			  uint64_t now, double *rate, int *ramping)
{
	double runtime = (double)job->runtime_ns / 1e9;
	if (!l) { /* not started: its time limit, or its bytes at the job's rate */
		if (job->runtime_ns)
			return runtime + (double)job->ramp_ns / 1e9;
		return gp->expect && *rate > 0 ? (double)gp->expect / *rate : -1;
	}
	uint64_t bytes = 0, start = 0;
	int ramp = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t s = __atomic_load_n(&l[i].start_ns, __ATOMIC_RELAXED);
		ramp |= __atomic_load_n(&l[i].ramping, __ATOMIC_RELAXED);
		bytes += __atomic_load_n(&l[i].bytes, __ATOMIC_RELAXED);
		if (s && (!start || s < start))
			start = s;
	}
	*ramping = ramp;
	if (ramp)
		return job->runtime_ns ? runtime : -1; /* the window has not started */
	double t = start && now > start ? (double)(now - start) / 1e9 : 0, left = -1;
	if (bytes && t > 0)
		*rate = (double)bytes / t;
	if (gp->expect && *rate > 0)
		left = (double)(gp->expect - (bytes < gp->expect ? bytes : gp->expect)) / *rate;
	if (job->runtime_ns && (left < 0 || runtime - t < left))
		left = runtime - t > 0 ? runtime - t : 0;
	return left;
}

/* The group's progress line (progress.h) from its jobs' counters: what they
 * moved, and the time until the last of them ends. */
static void group_draw(const struct iob_run *run, struct group *g, struct iob_group_line *st, uint64_t t0)
{
	uint64_t now = iob_now_ns(), expect = 0;
	struct iob_group_view v = {.tool = run->opts.tool, .group = g->jobs[0].job->group, .njobs = g->n};
	int known = 1, all_ramping = 1;
	for (size_t k = 0; k < g->n; k++) {
		const struct gjob *gj = &g->jobs[k];
		const struct iob_job *job = gj->job;
		size_t n = job->threads > 1 ? job->threads : 1, ran = __atomic_load_n(&gj->ran, __ATOMIC_ACQUIRE);
		int over = __atomic_load_n(&gj->done, __ATOMIC_ACQUIRE);
		double left = 0, rate = 0;
		v.running += !over;
		for (size_t q = 0; q < gj->nph; q++) {
			const struct gphase *gp = &gj->ph[q];
			const struct iob_live *l = __atomic_load_n(&gp->shown, __ATOMIC_ACQUIRE);
			for (size_t i = 0; l && i < n; i++) {
				v.bytes += __atomic_load_n(&l[i].bytes, __ATOMIC_RELAXED);
				v.ops += __atomic_load_n(&l[i].ops, __ATOMIC_RELAXED);
			}
			expect += gp->expect;
			known &= gp->expect != 0;
			if (over || q < ran || left < 0)
				continue; /* over, or the job's end is unknown already */
			int ramping = 0;
			double x = gphase_left(job, gp, l, n, now, &rate, &ramping);
			if (l && !ramping)
				all_ramping = 0;
			left = x < 0 ? -1 : left + x;
		}
		if (!over && (left < 0 || v.left_s < 0))
			v.left_s = -1;
		else if (!over && left > v.left_s)
			v.left_s = left;
	}
	v.ramping = v.running && all_ramping;
	double t = (double)(now - t0) / 1e9;
	if (known && expect)
		v.frac = (double)v.bytes / (double)expect;
	else
		v.frac = v.left_s >= 0 && t + v.left_s > 0 ? t / (t + v.left_s) : -1;
	iob_progress_draw_group(st, &v, now);
}

/* The jobs [a, e) of one group, at once.  Returns 0 or the first failed
 * job's status. */
static int run_group(struct iob_run *run, size_t a, size_t e)
{
	struct group g;
	int rc = 0;
	memset(&g, 0, sizeof g);
	g.failed = -1;
	g.n = e - a;
	g.jobs = calloc(g.n, sizeof *g.jobs);
	if (!g.jobs || iob_barrier_init(&g.start, (unsigned)g.n) != 0) {
		free(g.jobs);
		iob_run_fail(run, 0, "out of memory");
		return -ENOMEM;
	}
	if (!run->pins && !(run->pins = calloc(1, sizeof *run->pins))) {
		group_free(&g);
		iob_run_fail(run, 0, "out of memory");
		return -ENOMEM;
	}
	run->quiet = 0;
	/* every job's files, on this thread (the held directories are its own) */
	for (size_t k = 0; k < g.n && rc == 0; k++) {
		struct gjob *gj = &g.jobs[k];
		const struct iob_job *job = &run->suite->jobs[a + k];
		*gj = (struct gjob){.g = &g, .run = run, .j = a + k, .job = job};
		gj->b = iob_registry_find(run->reg, IOB_PLUGIN_BACKEND, job->backend);
		gj->dirs0 = run->pins->nmade;
		rc = job_files_open(run, job, &gj->jf);
		gj->dirs1 = run->pins->nmade;
		gj->opened = 1;
		uint64_t top = job->block_size_max ? job->block_size_max : job->block_size;
		size_t steps = 0, phases = 0;
		for (uint64_t bs = job->block_size; bs <= top; bs *= 2) {
			steps++;
			if (bs > UINT64_MAX / 2)
				break;
		}
		for (int p = IOB_PHASE_WRITE; p <= IOB_PHASE_MIXED; p++)
			phases += (job->phases & IOB_PHASE_BIT(p)) != 0;
		gj->ph = rc == 0 ? calloc(steps * phases + 1, sizeof *gj->ph) : NULL;
		if (rc == 0 && !gj->ph) {
			iob_run_fail(run, 0, "out of memory");
			rc = -ENOMEM;
		}
		for (uint64_t bs = job->block_size; rc == 0 && bs <= top; bs *= 2) {
			for (int p = IOB_PHASE_WRITE; p <= IOB_PHASE_MIXED; p++)
				if (job->phases & IOB_PHASE_BIT(p))
					gj->ph[gj->nph++] = (struct gphase){.phase = (enum iob_phase)p, .bs = bs,
									    .expect = expect_bytes(job, &gj->jf.fl, bs)};
			if (bs > UINT64_MAX / 2)
				break;
		}
	}
	size_t started = 0;
	for (; rc == 0 && started < g.n; started++)
		if ((rc = iob_thread_start(&g.jobs[started].thread, group_job_main, &g.jobs[started])) != 0)
			iob_run_fail(run, 0, "cannot start the %zu jobs of group %u: %s", g.n, run->suite->jobs[a].group,
				     strerror(-rc));
	if (rc != 0 && started) { /* those started wait at the barrier: stop them, stand in for the rest */
		__atomic_store_n(&g.stop, 1, __ATOMIC_RELAXED);
		for (size_t k = started; k < g.n; k++)
			iob_barrier_arrive(g.start);
	}
	/* wait, passing a stop signal on to every job of the group, and drawing
	 * the group's progress line every 0.5 s when it is wanted */
	int line = started == g.n && iob_progress_wanted(iob_progress_mode);
	uint64_t t0 = iob_now_ns(), next_draw = t0 + 500000000ull;
	struct iob_group_line gl = {.last_ns = t0}; /* the first rate: since the start */
	for (;;) {
		size_t done = 0;
		for (size_t k = 0; k < started; k++)
			done += __atomic_load_n(&g.jobs[k].done, __ATOMIC_ACQUIRE) != 0;
		if (done == started)
			break;
		if (*run->live_stop)
			__atomic_store_n(&g.stop, 1, __ATOMIC_RELAXED);
		if (line && iob_now_ns() >= next_draw) {
			group_draw(run, &g, &gl, t0);
			while (next_draw <= iob_now_ns())
				next_draw += 500000000ull;
		}
		iob_sleep_ns(2000000, NULL);
	}
	if (line)
		iob_progress_clear();
	for (size_t k = 0; k < started; k++)
		iob_thread_join(g.jobs[k].thread);
	int cut = !*run->live_stop;
	if (started == g.n) {
		/* the first job that failed says why the run failed */
		if (g.failed >= 0) {
			struct gjob *f = &g.jobs[g.failed];
			rc = f->rc;
			run->suite_job = f->j;
		}
		for (size_t k = 0; k < g.n; k++) {
			struct gjob *gj = &g.jobs[k];
			iob_fs_facts(gj->job->dir, run->fs_type, sizeof run->fs_type, &run->fs_block_size, run->device,
				     sizeof run->device);
			for (size_t q = 0; q < gj->ran; q++)
				group_emit_phase(run, gj, &gj->ph[q], cut, g.failed == (int)k);
		}
		group_emit_totals(run, &g, cut);
	}
	for (size_t k = 0; k < started; k++) { /* what the jobs created, as it is now */
		struct gjob *gj = &g.jobs[k];
		gj->made0 = run->pins->nmade;
		note_made(run, &gj->jf);
		gj->made1 = run->pins->nmade;
	}
	/* what each job made goes unless it keeps its files: the files first,
	 * then the directories (those made for the job, newest first) */
	uint64_t files = 0, dirs = 0;
	for (size_t k = g.n; k-- > 0;)
		if (!g.jobs[k].job->keep_files)
			remove_made_range(run, g.jobs[k].made0, g.jobs[k].made1, &files, &dirs);
	for (size_t k = g.n; k-- > 0;)
		if (!g.jobs[k].job->keep_files)
			remove_made_range(run, g.jobs[k].dirs0, g.jobs[k].dirs1, &files, &dirs);
	group_free(&g);
	return rc;
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
		if (!suite->jobs[i].group || (e == i + 1 && (iob_coord_active() || iob_job_runs_again(&suite->jobs[i]))))
			rc = run_job(run, i);
		else
			rc = run_group(run, i, e);
		if (suite->prepare && suite->prepare[i] == IOB_PREPARE_UNLINK && run->pins) {
			held[nheld][0] = mark;
			held[nheld++][1] = run->pins->nmade;
			continue;
		}
		if (suite->prepare && suite->prepare[i]) /* kept; and the job it prepares still to come */
			continue;
		while (nheld > 0) { /* the job they were laid out for has run */
			nheld--;
			remove_made_range(run, held[nheld][0], held[nheld][1], &files, &dirs);
		}
	}
	while (nheld > 0) {
		nheld--;
		remove_made_range(run, held[nheld][0], held[nheld][1], &files, &dirs);
	}
	return rc;
}
