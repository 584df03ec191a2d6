/*
 * plan.c - iotest's passes as core jobs (iotest.h).
 *
 * Each pass is one job of one phase on one file, in the order iotest runs
 * them: every -p pattern is a write pass (the first truncates with -t), -a
 * adds a verify after each write, -e one after the last, and -r a read after
 * the writes (a verify already reads, so -e/-a replace the read).  With no
 * writes, -e/-a verify the file against the last pattern and -r reads it.
 * Writes happen with -w/-W/-n, when neither -r nor -i is given, or when -r
 * comes with two or more patterns and without -e/-a/-i.
 * `iobench run` on the dumped profile performs the same passes.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/cli.h"
#include "iobench/path.h"
#include "iobench/profile.h"
#include "iobench/runner.h"
#include "iotest.h"


/* Split path into the job's dir and filename. */
static int split_path(const char *path, struct iob_job *job, char *err, size_t errlen)
{
	size_t dlen;
	const char *base = path + iob_path_split(path, &dlen);
	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return iotest_fail(err, errlen, "'%s' names a directory, not a file", IOTEST_QPATH(path));
	if (strlen(base) >= sizeof job->filename || dlen >= sizeof job->dir)
		return iotest_fail(err, errlen, "file name '%s' is too long", IOTEST_QPATH(path));
	snprintf(job->filename, sizeof job->filename, "%s", base);
	if (dlen == 0)
		snprintf(job->dir, sizeof job->dir, ".");
	else
		snprintf(job->dir, sizeof job->dir, "%.*s", (int)dlen, path);
	return 0;
}

static int add_job(const struct iotest_opts *o, struct iotest_plan *plan, enum iob_phase phase,
		   const struct iob_pattern *pat, int truncate, const char *path, char *err, size_t errlen)
{
	if (plan->njobs >= IOTEST_MAX_STEPS)
		return iotest_fail(err, errlen, "too many passes");
	struct iob_job *j = &plan->jobs[plan->njobs];
	iob_job_defaults(j);
	snprintf(j->name, sizeof j->name, "pass%zu-%s", plan->njobs + 1, iob_phase_name(phase));
	if (strlen(o->backend) >= sizeof j->backend)
		return iotest_fail(err, errlen, "backend name '%s' is too long", IOB_Q(o->backend));
	snprintf(j->backend, sizeof j->backend, "%s", o->backend);
	if (o->backend_options && strlen(o->backend_options) >= sizeof j->backend_options)
		return iotest_fail(err, errlen, "--backend-options '%s' is too long", IOB_Q(o->backend_options));
	snprintf(j->backend_options, sizeof j->backend_options, "%s", o->backend_options ? o->backend_options : "");
	int rc = split_path(path, j, err, errlen);
	if (rc)
		return rc;
	j->layout = IOB_LAYOUT_FILE;
	j->access = IOB_ACCESS_SEQ;
	j->phases = IOB_PHASE_BIT(phase);
	j->block_size = plan->block;
	j->size = plan->size;
	j->loops = 1;
	j->pattern = *pat;
	j->seed = o->seed;
	j->pattern.seed = o->seed;
	j->fsync = !o->nosync;
	j->truncate = truncate;
	j->keep_files = 1;
	j->allow_devices = o->allow_device;
	j->evict_before_read = phase != IOB_PHASE_WRITE && o->drop != IOB_PRIV_NONE;
	j->threads = o->threads ? o->threads : 1;
	j->iodepth = o->iodepth ? o->iodepth : 1;
	plan->paths[plan->njobs] = path;
	plan->njobs++;
	return 0;
}

int iotest_plan_build(const struct iotest_opts *o, struct iotest_plan *plan, char *err, size_t errlen)
{
	struct iob_pattern text = {.kind = IOB_PAT_TEXT};
	const struct iob_pattern *pats = o->npatterns ? o->patterns : &text;
	size_t npats = o->npatterns ? o->npatterns : 1;
	int verify = o->verify_last || o->verify_all;
	/* -w is implied when neither -r nor -w is given; -i implies -r.  A list
	 * of two or more patterns with -r (no -e/-a, no -i) is a list of writes
	 * followed by the read: the man page's `-Cp 013/0f4 ... x -Yr` examples. */
	int reads = o->read || o->input != NULL;
	int writes = o->write || !reads || (o->read && !o->input && !verify && o->npatterns >= 2);
	int rc;

	memset(plan, 0, sizeof *plan);
	plan->block = o->block_kb << 10;
	plan->size = o->size_mb << 20;
	if (plan->size % plan->block) {
		plan->size += plan->block - plan->size % plan->block;
		plan->rounded = 1;
	}
	if (writes && !o->output)
		return iotest_fail(err, errlen, "%s",
			    o->input ? "no file to write: -i names the file read; give the file written as the "
				       "argument or with -o"
				     : "no file given (e.g. iotest -s 128 FILE)");
	if (!writes && !o->output && !o->input)
		return iotest_fail(err, errlen, "no file given to read (e.g. iotest -r FILE)");
	if (!writes && o->output && o->input)
		return iotest_fail(err, errlen, "'%s' would be written but no write was asked for (add -w)",
			    IOTEST_QPATH(o->output));
	const char *wpath = o->output;
	const char *rpath = o->input ? o->input : o->output;

	plan->jobs = calloc(IOTEST_MAX_STEPS, sizeof *plan->jobs);
	if (!plan->jobs)
		return iotest_fail(err, errlen, "out of memory");
	if (writes) {
		for (size_t i = 0; i < npats; i++) {
			if ((rc = add_job(o, plan, IOB_PHASE_WRITE, &pats[i], o->truncate && i == 0, wpath, err, errlen)))
				goto bad;
			if ((o->verify_all || (o->verify_last && i == npats - 1)) &&
			    (rc = add_job(o, plan, IOB_PHASE_VERIFY, &pats[i], 0, rpath, err, errlen)))
				goto bad;
		}
		if (reads && !verify && (rc = add_job(o, plan, IOB_PHASE_READ, &pats[npats - 1], 0, rpath, err, errlen)))
			goto bad;
	} else if ((rc = add_job(o, plan, verify ? IOB_PHASE_VERIFY : IOB_PHASE_READ, &pats[npats - 1], 0, rpath,
				 err, errlen))) {
		goto bad;
	}
	return 0;
bad:
	iotest_plan_free(plan);
	return rc;
}

void iotest_plan_free(struct iotest_plan *plan)
{
	free(plan->jobs);
	memset(plan, 0, sizeof *plan);
}

/* The core's refusal of a target, worded for iotest's options; 0 when the
 * refusal (if any) was not about a target, so the core's own line follows
 * when the run opens. */
static int word_target(const struct iotest_plan *plan, const struct iob_target_refusal *t, char *err,
		       size_t errlen)
{
	/* the path as typed; with --threads, FILE.<i> as the core names it */
	char path[IOB_PATH_MAX + 16];
	const struct iob_job *j = &plan->jobs[t->job];
	const char *dot = strrchr(t->path, '.');
	snprintf(path, sizeof path, "%s%s", plan->paths[t->job], iob_job_stream_files(j) && dot ? dot : "");
	int writes = (j->phases & IOB_PHASE_BIT(IOB_PHASE_WRITE)) != 0;
	switch (t->why) {
	case IOB_TARGET_DANGLING:
		return iotest_fail(err, errlen, "'%s' is a dangling symlink", IOTEST_QPATH(path));
	case IOB_TARGET_MISSING:
	case IOB_TARGET_DIR_MISSING:
		if (writes)
			return 0;
		return iotest_fail(err, errlen, "'%s' does not exist (nothing to read)", IOTEST_QPATH(path));
	case IOB_TARGET_BLOCKDEV:
	case IOB_TARGET_CHARDEV:
		return iotest_fail(err, errlen, "'%s' is %s: iotest refuses to %s a device unless --allow-device is given",
				   IOTEST_QPATH(path),
				   t->why == IOB_TARGET_BLOCKDEV ? "a block device" : "a character device",
				   writes ? "overwrite" : "read");
	case IOB_TARGET_DIRECTORY:
		return iotest_fail(err, errlen, "'%s' is a directory, not a file", IOTEST_QPATH(path));
	case IOB_TARGET_OTHER:
		return iotest_fail(err, errlen, "'%s' is a fifo or socket, not a file", IOTEST_QPATH(path));
	case IOB_TARGET_FINE:
		break;
	}
	return 0;
}

int iotest_plan_check(const struct iotest_opts *o, const struct iotest_plan *plan, const struct iob_registry *reg,
		      char *err, size_t errlen)
{
	char why[1024];
	struct iob_target_refusal t = {0};
	struct iob_suite suite = {.njobs = plan->njobs, .jobs = plan->jobs};
	/* the core's checks, whose target refusals iotest words itself */
	if (iob_suite_check_target(&suite, reg, &t, why, sizeof why) == 0)
		return 0;
	if (t.why != IOB_TARGET_FINE && t.job < plan->njobs && word_target(plan, &t, err, errlen))
		return IOB_EXIT_USAGE;
	/* a run makes the core's checks again when it opens; a dump stops here */
	if (o->dump_profile)
		return iotest_fail(err, errlen, "%s", iob_error_without_job(why));
	return 0;
}

/* Characters an INI value cannot carry as iniparser reads it. */
static int ini_safe(const char *s)
{
	size_t n = strlen(s);
	if (n && (s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		return 0;
	return !strpbrk(s, ";#\"'\\\n\r") && !strstr(s, "${");
}

int iotest_plan_dump(FILE *f, const struct iotest_opts *o, const struct iotest_plan *plan, const char *cmdline,
		     char *err, size_t errlen)
{
	struct iob_job *jobs = calloc(plan->njobs, sizeof *jobs);
	if (!jobs)
		return iotest_fail(err, errlen, "out of memory");
	for (size_t i = 0; i < plan->njobs; i++) {
		char why[512];
		jobs[i] = plan->jobs[i];
		if (iob_job_resolve_dir(&jobs[i], why, sizeof why) != 0) {
			free(jobs);
			return iotest_fail(err, errlen, "cannot resolve the directory of '%s'",
				    IOTEST_QPATH(plan->paths[i]));
		}
		if (!ini_safe(jobs[i].dir) || !ini_safe(jobs[i].filename)) {
			free(jobs);
			return iotest_fail(err, errlen,
				    "cannot write '%s' into a profile: the name holds a character an INI value "
				    "cannot carry (; # quotes backslash ${ or edge blanks)",
				    IOTEST_QPATH(plan->paths[i]));
		}
	}
	fprintf(f, "; iobench profile written by iotest --dump-profile for:\n;   %s\n", cmdline);
	fprintf(f, "; %zu pass%s, one job section each, run in order by `iobench run`; the file is kept.\n",
		plan->njobs, plan->njobs == 1 ? "" : "es");
	if (o->drop)
		fprintf(f, "; -%c (drop caches) has no profile key: read and verify passes evict the file instead.\n",
			o->drop == IOB_PRIV_SUDO ? 'D' : 'd');
	if (o->sync)
		fprintf(f, "; -%c (sync after each write pass) has no profile key; fsync still applies.\n",
			o->sync == IOB_PRIV_SUDO ? 'Y' : 'y');
	if (o->snooze_s > 0)
		fprintf(f, "; -z (snooze after writes) has no profile key.\n");
	if (o->comment || o->curt || o->verbose)
		fprintf(f, "; -c, -C and -v shape iotest's own output; iobench prints its own.\n");
	fprintf(f, "\n");
	int rc = iob_profile_write(f, jobs, plan->njobs, NULL);
	free(jobs);
	if (rc != 0 || fflush(f) != 0)
		return iotest_fail(err, errlen, "writing the profile failed");
	return 0;
}
