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
#include <time.h>

#include "io_profile.h"
#include "iobench/cli.h"
#include "iobench/ledger.h"
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

static void rec_files(struct iob_recbuf *rb, const struct iop_opts *o, const struct iop_plan *p,
		      const struct iob_ledger *m, int complete)
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
	iob_rec_bool(rb, "complete", complete);
	iob_rec_u64(rb, "short_files", IOB_UNIT_COUNT, m->short_files);
	iob_rec_u64(rb, "present_bytes", IOB_UNIT_BYTES, m->present_bytes);
	iob_rec_bool(rb, "removed", o->remove);
	iob_rec_u64(rb, "removed_files", IOB_UNIT_COUNT, m->removed_files);
	iob_rec_u64(rb, "removed_dirs", IOB_UNIT_COUNT, m->removed_dirs);
	iob_rec_u64(rb, "kept_existing_files", IOB_UNIT_COUNT, o->remove ? m->kept_files : 0);
}

/* Does the output on stdout show the IOP_REC_FILES record to a person?  The
 * legacy layout does not: its last line is "Done with read test". */
static int stdout_shows_files(const struct iob_output_spec *spec)
{
	for (size_t i = 0; i < spec->n; i++) {
		const struct iob_output_item *it = &spec->item[i];
		if (it->file[0])
			continue;
		return strcmp(it->name, "human") == 0 || strcmp(it->name, "json") == 0;
	}
	return 0;
}

struct iop_run {
	const struct iop_opts *o;
	const struct iop_plan *p;
	struct iob_recbuf *rb;
	size_t job_of[4]; /* suite index -> IOP_JOB_* */
	/* --tree-rates: the create job's start and end (CLOCK_MONOTONIC ns) */
	uint64_t create_t0, create_t1;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* --tree-rates: the IOP_REC_TREE record and its stderr line.  made: files
 * and directories the run created (the ledger's, counted before removal);
 * removed ones and their time when --remove ran. */
static void rec_tree(struct iop_run *r, struct iob_run *run, uint64_t files, uint64_t dirs,
		     const struct iob_ledger *m, uint64_t rm_ns, char *line, size_t len)
{
	struct iob_recbuf *rb = r->rb;
	double cs = r->create_t1 > r->create_t0 ? (double)(r->create_t1 - r->create_t0) / 1e9 : 0;
	double rs = (double)rm_ns / 1e9;
	uint64_t gone = m->removed_files + m->removed_dirs;
	iob_rec_reset(rb, IOP_REC_TREE);
	iob_rec_str(rb, "path", r->p->absdir);
	iob_rec_u64(rb, "made_files", IOB_UNIT_COUNT, files);
	iob_rec_u64(rb, "made_dirs", IOB_UNIT_COUNT, dirs);
	iob_rec_u64(rb, "file_size_bytes", IOB_UNIT_BYTES, r->p->job[IOP_JOB_READ].size);
	iob_rec_f64(rb, "create_s", IOB_UNIT_S, cs);
	if (cs > 0)
		iob_rec_f64(rb, "create_files_per_s", IOB_UNIT_OPS_PER_S, (double)files / cs);
	else
		iob_rec_absent(rb, "create_files_per_s", IOB_UNIT_OPS_PER_S);
	if (r->o->remove) {
		iob_rec_u64(rb, "removed_entries", IOB_UNIT_COUNT, gone);
		iob_rec_f64(rb, "remove_s", IOB_UNIT_S, rs);
	} else {
		iob_rec_absent(rb, "removed_entries", IOB_UNIT_COUNT);
		iob_rec_absent(rb, "remove_s", IOB_UNIT_S);
	}
	if (r->o->remove && rs > 0)
		iob_rec_f64(rb, "remove_entries_per_s", IOB_UNIT_OPS_PER_S, (double)gone / rs);
	else
		iob_rec_absent(rb, "remove_entries_per_s", IOB_UNIT_OPS_PER_S);
	iob_run_record(run, &rb->rec);
	int n = snprintf(line, len,
			 "tree made: %llu files of %llu bytes and %llu directories in %.6f s (%.1f files/s, "
			 "their data written and synced)",
			 (unsigned long long)files, (unsigned long long)r->p->job[IOP_JOB_READ].size,
			 (unsigned long long)dirs, cs, cs > 0 ? (double)files / cs : 0.0);
	if (r->o->remove && n > 0 && (size_t)n < len)
		snprintf(line + n, len - (size_t)n, "; removed: %llu entries in %.6f s (%.1f entries/s)",
			 (unsigned long long)gone, rs, rs > 0 ? (double)gone / rs : 0.0);
}

/* The create and warm-up jobs run unrecorded; each sweep is preceded by its
 * parameters. */
static int before_job(void *arg, struct iob_run *run, size_t j)
{
	struct iop_run *r = arg;
	int which = (int)r->job_of[j];
	if (which == IOP_JOB_CREATE)
		r->create_t0 = mono_ns();
	else if (r->create_t0 && !r->create_t1) /* the create job is over */
		r->create_t1 = mono_ns();
	if (which == IOP_JOB_CREATE || which == IOP_JOB_WARMUP)
		return 1;
	rec_test(r->rb, r->o, r->p, which == IOP_JOB_WRITE ? "write" : "read");
	iob_run_record(run, &r->rb->rec);
	return 0;
}

int iop_run(const struct iop_opts *o, const struct iop_plan *p, const struct iob_registry *reg,
	    struct iob_output_spec *spec)
{
	struct iop_run r = {.o = o, .p = p};
	struct iob_job jobs[4];
	struct iob_suite suite = {.jobs = jobs};
	struct iob_ledger m;
	int code;

	for (int i = 0; i < 4; i++)
		if (p->use[i]) {
			r.job_of[suite.njobs] = (size_t)i;
			jobs[suite.njobs++] = p->job[i];
		}
	r.rb = malloc(sizeof *r.rb);
	if (!r.rb || iob_ledger_init(&m, &p->job[IOP_JOB_READ]) != 0) {
		free(r.rb);
		iob_ledger_free(&m);
		return iob_cli_fail(IOB_EXIT_FAIL, "out of memory");
	}
	const struct iob_run_hooks hooks = {.arg = &r, .before_job = before_job};
	const struct iob_run_opts ro = {
		.tool = IOP_TOOL,
		.source = o->cmdline,
		.outputs = spec,
		.hooks = &hooks,
		.warn_live = 1,
	};
	struct iob_run *run = iob_run_open(reg, &ro, &suite, &code);
	if (!run) {
		free(r.rb);
		iob_ledger_free(&m);
		return code;
	}
	if (!p->bypass && p->use[IOP_JOB_WRITE])
		iob_run_note(run, "the write sweep does not sync, as the original did not: its rates measure how "
				  "fast the page cache takes the data, not the device");
	int status = iob_run_suite(run);
	/* the create job ran to its end when a later job started */
	int created = p->use[IOP_JOB_CREATE] && (status == 0 || run->suite_job > 0);
	iob_ledger_count(&m, p->job[IOP_JOB_READ].size);
	uint64_t made_files = 0, made_dirs = 0, rm0 = mono_ns();
	for (size_t i = 0; i < m.fl.n; i++)
		made_files += m.made_file[i] != 0;
	for (size_t i = 0; i < m.fl.ndirs; i++)
		made_dirs += m.made_dir[i] != 0;
	if (o->remove)
		iob_ledger_remove(&m, run);
	uint64_t rm_ns = mono_ns() - rm0;
	char tline[512] = "";
	if (o->tree_rates && created)
		rec_tree(&r, run, made_files, made_dirs, &m, rm_ns, tline, sizeof tline);
	char line[IOB_PATH_MAX + 512] = "";
	if (p->use[IOP_JOB_CREATE] && (m.present || m.removed_dirs)) {
		rec_files(r.rb, o, p, &m, created && m.short_files == 0);
		iob_run_record(run, &r.rb->rec);
		iop_files_line(&r.rb->rec, line, sizeof line);
	}
	/* before the error line, which stays the last on stderr */
	if (line[0] && !stdout_shows_files(spec))
		fprintf(stderr, "%s: %s\n", IOP_TOOL, line);
	if (tline[0] && !stdout_shows_files(spec))
		fprintf(stderr, "%s: %s\n", IOP_TOOL, tline);
	code = iob_run_finish(run, status);
	iob_ledger_free(&m);
	free(r.rb);
	return code;
}
