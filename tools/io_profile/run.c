/*
 * run.c - runs io_profile's jobs through the core runner (io_profile.h).
 *
 * The create and warm-up jobs run with no outputs attached (their records
 * and caveats are not the sweeps'); the sweeps run with the outputs, each
 * preceded by an IOP_REC_TEST record of its parameters.  After the sweeps,
 * --remove deletes exactly the files and directories that did not exist
 * before the run, and an IOP_REC_FILES record says where the files are.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_profile.h"
#include "iobench/cli.h"
#include "iobench/os.h"
#include "iobench/profile.h"
#include "iobench/runner.h"

int iop_dump_profile(const struct iop_opts *o, const struct iop_plan *p)
{
	struct iob_job jobs[4];
	size_t n = 0;
	for (int i = 0; i < 4; i++)
		if (p->use[i])
			jobs[n++] = p->job[i];
	if (strpbrk(o->dir, "\r\n")) /* iob_profile_write would refuse it too */
		return iob_cli_fail(
		    IOB_EXIT_USAGE,
		    "--dump-profile: the directory name holds a line break, which a profile cannot hold");
	printf("; %s\n", o->cmdline);
	printf("; The same run for 'iobench run FILE': %s%sthe %s.\n",
	       p->use[IOP_JOB_CREATE] ? "create the files, " : "", p->use[IOP_JOB_WARMUP] ? "warm up, " : "",
	       p->use[IOP_JOB_WRITE] ? "write sweep, then the read sweep" : "read sweep");
	printf("; Each job keeps the files (io_profile --remove is not expressed here).\n");
	if (iob_profile_write(stdout, jobs, n, "Jobs run in this order.") != 0 || fflush(stdout) != 0)
		return iob_cli_fail(IOB_EXIT_FAIL, "writing the profile failed");
	return IOB_EXIT_OK;
}

static void rec_test(struct iob_recbuf *rb, const struct iop_opts *o, const struct iop_plan *p,
		     const char *test)
{
	const struct iob_job *j = &p->job[IOP_JOB_READ];
	int tree = j->layout == IOB_LAYOUT_TREE;
	iob_rec_reset(rb, IOP_REC_TEST);
	iob_rec_str(rb, "test", test);
	iob_rec_str(rb, "dir", p->absdir);
	iob_rec_str(rb, "layout", tree ? "tree" : "file");
	iob_rec_u64(rb, "tree_levels", IOB_UNIT_COUNT, tree ? j->tree_levels : 0);
	iob_rec_u64(rb, "tree_files", IOB_UNIT_COUNT, tree ? j->tree_files : 0);
	iob_rec_str(rb, "filename", tree ? NULL : j->filename);
	iob_rec_str(rb, "backend", j->backend);
	iob_rec_str(rb, "io_method", p->io_method);
	iob_rec_bool(rb, "bypass", p->bypass);
	iob_rec_bool(rb, "reopen", j->reopen);
	iob_rec_u64(rb, "file_size_bytes", IOB_UNIT_BYTES, j->size);
	iob_rec_u64(rb, "io_size_min_bytes", IOB_UNIT_BYTES, j->block_size);
	iob_rec_u64(rb, "io_size_max_bytes", IOB_UNIT_BYTES, p->top_io);
	iob_rec_u64(rb, "repetitions", IOB_UNIT_COUNT, j->ops);
	iob_rec_u64(rb, "offset_align_bytes", IOB_UNIT_BYTES, j->offset_align ? j->offset_align : 1);
	iob_rec_u64(rb, "seed", IOB_UNIT_COUNT, j->seed);
	iob_rec_u64(rb, "warmup_ops", IOB_UNIT_COUNT, p->use[IOP_JOB_WARMUP] ? o->warmup : 0);
}

/* What existed before the run, so --remove takes only what the run made. */
struct made {
	struct iob_filelist fl;
	int *file, *dir;
	uint64_t present;		     /* target files there at the end of the sweeps */
	uint64_t short_files, present_bytes; /* of those: shorter than the file size; their bytes */
	int complete;			     /* the create job finished and no file is short */
	uint64_t removed_files, removed_dirs, kept_files;
};

static int made_init(struct made *m, const struct iob_job *job)
{
	memset(m, 0, sizeof *m);
	if (iob_job_files(job, &m->fl) != 0)
		return -ENOMEM;
	m->file = calloc(m->fl.n, sizeof *m->file);
	m->dir = calloc(m->fl.ndirs + 1, sizeof *m->dir);
	if (!m->file || !m->dir)
		return -ENOMEM;
	for (size_t i = 0; i < m->fl.n; i++)
		m->file[i] = iob_path_kind(m->fl.paths[i], 0) == IOB_PATH_MISSING;
	for (size_t i = 0; i < m->fl.ndirs; i++)
		m->dir[i] = iob_path_kind(m->fl.dirs[i], 0) == IOB_PATH_MISSING;
	return 0;
}

/* What is there now; created: the create job ran to its end. */
static void made_count(struct made *m, uint64_t size, int created)
{
	for (size_t i = 0; i < m->fl.n; i++) {
		uint64_t sz = 0;
		if (iob_path_kind(m->fl.paths[i], 0) != IOB_PATH_REGULAR)
			continue;
		m->present++;
		if (iob_file_size(m->fl.paths[i], &sz) == 0)
			m->present_bytes += sz;
		m->short_files += sz < size;
	}
	m->complete = created && m->short_files == 0;
}

static void made_remove(struct made *m, struct iob_notes *notes)
{
	for (size_t i = 0; i < m->fl.n; i++) {
		if (!m->file[i]) {
			m->kept_files++;
			continue;
		}
		if (iob_path_kind(m->fl.paths[i], 0) != IOB_PATH_REGULAR)
			continue;
		int rc = iob_remove_file(m->fl.paths[i]);
		if (rc == 0)
			m->removed_files++;
		else
			iob_notes_add(notes, "could not remove %s: %s", m->fl.paths[i], strerror(-rc));
	}
	for (size_t i = m->fl.ndirs; i-- > 0;) {
		if (!m->dir[i] || iob_path_kind(m->fl.dirs[i], 0) != IOB_PATH_DIRECTORY)
			continue;
		int rc = iob_remove_dir(m->fl.dirs[i]);
		if (rc == 0)
			m->removed_dirs++;
		else
			iob_notes_add(notes, "kept directory %s: %s", m->fl.dirs[i], strerror(-rc));
	}
}

static void made_free(struct made *m)
{
	iob_filelist_free(&m->fl);
	free(m->file);
	free(m->dir);
}

static void rec_files(struct iob_recbuf *rb, const struct iop_opts *o, const struct iop_plan *p,
		      const struct made *m)
{
	const struct iob_job *j = &p->job[IOP_JOB_READ];
	int tree = j->layout == IOB_LAYOUT_TREE;
	char path[IOB_PATH_MAX + 64];
	snprintf(path, sizeof path, "%s/%s", p->absdir, tree ? "dir0" : j->filename);
	iob_rec_reset(rb, IOP_REC_FILES);
	iob_rec_str(rb, "path", path);
	iob_rec_str(rb, "layout", tree ? "tree" : "file");
	iob_rec_u64(rb, "files", IOB_UNIT_COUNT, m->present);
	iob_rec_u64(rb, "file_size_bytes", IOB_UNIT_BYTES, j->size);
	iob_rec_bool(rb, "complete", m->complete);
	iob_rec_u64(rb, "short_files", IOB_UNIT_COUNT, m->short_files);
	iob_rec_u64(rb, "present_bytes", IOB_UNIT_BYTES, m->present_bytes);
	iob_rec_bool(rb, "removed", o->remove);
	iob_rec_u64(rb, "removed_files", IOB_UNIT_COUNT, m->removed_files);
	iob_rec_u64(rb, "removed_dirs", IOB_UNIT_COUNT, m->removed_dirs);
	iob_rec_u64(rb, "kept_existing_files", IOB_UNIT_COUNT, o->remove ? m->kept_files : 0);
}

/* Does the output on stdout show the IOP_REC_FILES record to a person? */
static int stdout_shows_files(const struct iob_output_spec *spec)
{
	for (size_t i = 0; i < spec->n; i++) {
		const struct iob_output_item *it = &spec->item[i];
		if (it->file[0])
			continue;
		return strcmp(it->name, "human") == 0 || strcmp(it->name, "json") == 0 ||
		       (strcmp(it->name, "io_profile") == 0 && strcmp(it->args, "quiet") != 0);
	}
	return 0;
}

/* Caveats go to stderr as they arise, as iotest's do; the human and json
 * outputs also carry them all at the end. */
static void warn_new_notes(const struct iob_notes *notes, size_t *printed)
{
	fflush(stdout);
	for (; *printed < notes->n; (*printed)++)
		fprintf(stderr, "%s: warning: %s\n", IOP_TOOL, notes->text[*printed]);
}

/* Run one job; the first error and an interruption reach top. */
static int run_job(const struct iob_job *job, struct iob_run_ctx *ctx, struct iob_run_ctx *top,
		   size_t *printed)
{
	int rc = iob_job_run(job, ctx);
	warn_new_notes(top->notes, printed);
	if (ctx != top) {
		if (rc != 0 && !top->error[0])
			snprintf(top->error, sizeof top->error, "%s", ctx->error);
		top->interrupted |= ctx->interrupted;
	}
	return rc;
}

/* The create and warm-up jobs, then the sweeps; *created says whether the
 * create job ran to its end. */
static int run_jobs(const struct iop_opts *o, const struct iop_plan *p, struct iob_run_ctx *ctx,
		    struct iob_run_ctx *quiet, struct iob_recbuf *rb, size_t *printed, int *created)
{
	const struct iob_job *rj = &p->job[IOP_JOB_READ];
	int rc = 0;
	if (!p->bypass && p->use[IOP_JOB_WRITE])
		iob_notes_add(ctx->notes, "the write sweep does not sync, as the original did not: its rates "
					  "measure how fast the page cache takes the data, not the device");
	if (!p->bypass) {
		/* the runner says this before the read sweep; said here, the same
		 * words (so the note is kept once) come before any sweep */
		char what[IOB_NAME_MAX + 8];
		uint64_t nfiles =
		    rj->layout == IOB_LAYOUT_TREE ? (uint64_t)rj->tree_levels * rj->tree_files : 1;
		snprintf(what, sizeof what, "job %s", rj->name);
		iob_cache_memory_note(ctx->notes, what, rj->size * nfiles);
	}
	warn_new_notes(ctx->notes, printed);
	if (p->use[IOP_JOB_CREATE])
		rc = run_job(&p->job[IOP_JOB_CREATE], quiet, ctx, printed);
	*created = rc == 0 && !ctx->interrupted;
	if (rc == 0 && !ctx->interrupted && p->use[IOP_JOB_WARMUP])
		rc = run_job(&p->job[IOP_JOB_WARMUP], quiet, ctx, printed);
	for (int i = IOP_JOB_WRITE; i <= IOP_JOB_READ && rc == 0 && !ctx->interrupted; i++) {
		if (!p->use[i])
			continue;
		rec_test(rb, o, p, i == IOP_JOB_WRITE ? "write" : "read");
		iob_outputs_record(ctx->out, &rb->rec);
		rc = run_job(&p->job[i], ctx, ctx, printed);
	}
	return rc;
}

int iop_run(const struct iop_opts *o, const struct iop_plan *p, const struct iob_registry *reg,
	    struct iob_output_spec *spec)
{
	char err[2048];
	struct iob_outputs *out = NULL;
	struct iob_cli_run run;
	struct made m;
	struct iob_notes *notes = calloc(1, sizeof *notes), *scratch = calloc(1, sizeof *scratch);
	struct iob_run_ctx *ctx = calloc(1, sizeof *ctx), *quiet = calloc(1, sizeof *quiet);
	struct iob_recbuf *rb = malloc(sizeof *rb);
	int code;

	memset(&m, 0, sizeof m);
	if (!notes || !scratch || !ctx || !quiet || !rb || made_init(&m, &p->job[IOP_JOB_READ]) != 0) {
		code = iob_cli_fail(IOB_EXIT_FAIL, "out of memory");
		goto out;
	}
	if (iob_outputs_open(&out, reg, spec, err, sizeof err) != 0) {
		code = iob_cli_fail(IOB_EXIT_USAGE, "%s", err);
		goto out;
	}
	iob_cli_trap_signals();
	iob_cli_run_info(&run, IOP_TOOL, o->cmdline);
	iob_outputs_begin(out, &run.info);
	*ctx = (struct iob_run_ctx){.reg = reg, .out = out, .notes = notes, .stop = &iob_cli_stop};
	*quiet = (struct iob_run_ctx){.reg = reg, .out = NULL, .notes = scratch, .stop = &iob_cli_stop};

	size_t printed = 0;
	int created = 0;
	int status = run_jobs(o, p, ctx, quiet, rb, &printed, &created);
	int sig = (int)iob_cli_stop;
	made_count(&m, p->job[IOP_JOB_READ].size, created);
	if (o->remove)
		made_remove(&m, notes);
	warn_new_notes(notes, &printed);
	char line[IOB_PATH_MAX + 512] = "";
	if (p->use[IOP_JOB_CREATE] && (m.present || m.removed_dirs)) {
		rec_files(rb, o, p, &m);
		iob_outputs_record(out, &rb->rec);
		iop_files_line(&rb->rec, line, sizeof line);
	}
	if (sig && !ctx->error[0])
		snprintf(ctx->error, sizeof ctx->error, "interrupted by signal %d", sig);
	iob_cli_end_run(out, notes, status, sig != 0 || ctx->interrupted, ctx->error);
	int crc = iob_outputs_close(out);
	if (line[0] && !stdout_shows_files(spec))
		fprintf(stderr, "%s: %s\n", IOP_TOOL, line);
	code = iob_cli_exit_code(status, sig);
	if (status != 0 || sig)
		iob_cli_fail(code, "%s", ctx->error);
	else if (crc < 0)
		code = iob_cli_fail(IOB_EXIT_FAIL, "writing the results failed: %s", strerror(-crc));
out:
	made_free(&m);
	free(notes);
	free(scratch);
	free(ctx);
	free(quiet);
	free(rb);
	return code;
}
