/*
 * fiojob.c - fio job files to a suite of jobs (iobench/fiojob.h,
 * docs/fio.md).
 *
 * Two steps.  The reader turns the file (and its includes) into sections,
 * each a set of fio keys with their last value and where it was written; a
 * job section starts from the [global] keys read so far.  Then each job's
 * keys are mapped onto one struct iob_job, all at once, so that keys that
 * depend on each other (ioengine and direct, size and kb_base, rw and
 * numjobs) give the same job in any order.  The table below is the one list
 * of fio keys: the reader looks keys up in it and `iobench keys --fio`
 * prints it.
 */
#include "fiojob_int.h"

/* ---- laying out what read jobs need ----------------------------------------- */

static int same_files(const struct iob_job *a, const struct iob_job *b)
{
	struct iob_filelist fa, fb;
	int same = 0;
	if (iob_job_files(a, &fa) != 0)
		return 0;
	if (iob_job_files(b, &fb) == 0) {
		same = fa.n == fb.n;
		for (size_t i = 0; same && i < fa.n; i++)
			same = strcmp(fa.paths[i], fb.paths[i]) == 0;
		iob_filelist_free(&fb);
	}
	iob_filelist_free(&fa);
	return same;
}

/* How far into its file(s) the job reaches: size, after offset and the last
 * stream's offset_increment. */
static uint64_t reach(const struct iob_job *job)
{
	return job->offset + job->size + (job->threads ? job->threads - 1 : 0) * job->offset_increment;
}

/* Every file of the job is there, a regular file at least reach() long. */
static int files_ready(const struct iob_job *job)
{
	struct iob_filelist fl;
	int ok = 1;
	if (iob_job_files(job, &fl) != 0)
		return 0;
	for (size_t i = 0; ok && i < fl.n; i++) {
		uint64_t size = 0;
		ok = iob_path_kind(fl.paths[i], 1) == IOB_PATH_REGULAR && iob_file_size(fl.paths[i], &size) == 0 &&
		     size >= reach(job);
	}
	iob_filelist_free(&fl);
	return ok;
}

/* fio lays out a missing (or short) file before a job reads it (or, with
 * ioengine=e4defrag, moves its blocks): here a
 * preparing job, run unrecorded before the read job's group, writes it
 * whole (sequential, buffered, synced) and keeps it. */
static int add_layouts(struct reader *r, struct iob_job *jobs, size_t *njobs, unsigned char *prepare)
{
	size_t src = 0; /* the job's section (r->jobs): the jobs before layouts went in */
	for (size_t j = 0; j < *njobs; j++) {
		struct iob_job *job = &jobs[j];
		if (prepare[j])
			continue;
		struct fsection *sec = &r->jobs[src++];
		/* e4defrag writes move the file's blocks: it must be there, with data, as for a read */
		int moves = strcmp(job->backend, "e4defrag") == 0;
		if (job->workload == 1 ||
		    (!moves && !(job->phases & (IOB_PHASE_BIT(IOB_PHASE_READ) | IOB_PHASE_BIT(IOB_PHASE_MIXED)))) ||
		    strcmp(job->filename, "-") == 0 || strcmp(job->backend, "null") == 0) /* null reads no file */
			continue;
		size_t first = j; /* the group's first job: the layout goes before it */
		while (first > 0 && job->group && jobs[first - 1].group == job->group && !prepare[first - 1])
			first--;
		int ready = files_ready(job);
		for (size_t w = 0; w < first && !ready; w++)
			ready = (jobs[w].phases & IOB_PHASE_BIT(IOB_PHASE_WRITE)) && jobs[w].keep_files &&
				reach(&jobs[w]) >= reach(job) && same_files(&jobs[w], job);
		if (ready)
			continue;
		if (sec->create_on_open) { /* fio lays nothing out: its first read finds no data */
			struct mapper m = {.r = r, .s = sec, .job = job};
			return fj_bad(&m, K_CREATE_ON_OPEN, -EINVAL,
				      "fio lays out no file then, and %s is missing or shorter than the job's %llu bytes, "
				      "with no earlier job writing it: fio 3.33 creates it empty and its sync engines fail "
				      "the first read (EIO), libaio reads nothing; write the file first (an earlier job), or "
				      "leave out create_on_open",
				      job->filename[0] ? job->filename : "its file", (unsigned long long)reach(job));
		}
		if (*njobs >= IOB_MAX_JOBS)
			return fj_fail(r, -E2BIG, "more than %d jobs with the files laid out for the read jobs", IOB_MAX_JOBS);
		memmove(&jobs[first + 1], &jobs[first], (*njobs - first) * sizeof *jobs);
		memmove(&prepare[first + 1], &prepare[first], *njobs - first);
		(*njobs)++;
		job = &jobs[j + 1];
		struct iob_job *lay = &jobs[first];
		char name[IOB_NAME_MAX];
		snprintf(name, sizeof name, "%.*s.layout", (int)(sizeof name - 8), job->name);
		iob_job_defaults(lay);
		snprintf(lay->name, sizeof lay->name, "%s", name);
		memcpy(lay->dir, job->dir, sizeof lay->dir);
		memcpy(lay->filename, job->filename, sizeof lay->filename);
		lay->size = reach(job);
		lay->threads = job->threads;
		lay->shared_file = job->shared_file;
		lay->allow_devices = job->allow_devices;
		lay->follow_symlinks = job->follow_symlinks;
		lay->phases = IOB_PHASE_BIT(IOB_PHASE_WRITE);
		lay->access = IOB_ACCESS_SEQ;
		lay->block_size = lay->size < (1u << 20) ? lay->size : 1u << 20;
		lay->fsync = 1;
		lay->keep_files = 1;
		lay->group = 0;
		/* unlink=1: what the layout made goes once the read job has run */
		prepare[first] = job->keep_files ? IOB_PREPARE_KEEP : IOB_PREPARE_UNLINK;
		fj_note_job(r, job->name,
			 job->keep_files ? "files laid out first (written whole, synced, not reported), as fio lays out a "
					   "file it is to read"
					 : "files laid out first (written whole, synced, not reported), as fio lays out a "
					   "file it is to read, and removed after the job (unlink=1)");
		j++; /* job moved one up */
	}
	return 0;
}

/* ---- loading ----------------------------------------------------------------- */

static int load(const char *path, const struct iob_fio_opts *opts, struct iob_suite *suite, char *err, size_t errlen)
{
	struct reader r = {.opts = opts, .suite = suite, .err = err, .errlen = errlen};
	int rc = 0;
	memset(suite, 0, sizeof *suite);
	if (opts && opts->nsets > IOB_FIO_MAX_SETS) {
		snprintf(err, errlen, "more than %d --set options", IOB_FIO_MAX_SETS);
		return -E2BIG;
	}
	enum iob_path_kind k = iob_path_kind(path, 1);
	if (k != IOB_PATH_REGULAR) {
		snprintf(err, errlen, "%s: %s", path, k == IOB_PATH_MISSING ? "no such job file" : "not a regular file");
		return -ENOENT;
	}
	r.jobs = calloc(IOB_MAX_JOBS, sizeof *r.jobs);
	suite->jobs = calloc(IOB_MAX_JOBS, sizeof *suite->jobs);
	suite->prepare = calloc(IOB_MAX_JOBS, 1);
	if (!r.jobs || !suite->jobs || !suite->prepare) {
		free(r.jobs);
		snprintf(err, errlen, "out of memory");
		iob_suite_free(suite);
		return -ENOMEM;
	}
	rc = fj_read_file(&r, path, 0);
	if (rc == 0 && r.njobs == 0)
		rc = fj_fail(&r, -EINVAL, "%s: no job sections (fio runs one job per section other than [global])", path);
	/* --set: the last word in every job */
	for (size_t i = 0; rc == 0 && opts && i < opts->nsets; i++) {
		char kv[FIO_LINE_MAX], where[64];
		snprintf(kv, sizeof kv, "%s", opts->sets[i]);
		snprintf(where, sizeof where, "--set");
		char *eq = strchr(kv, '=');
		if (!eq || eq == kv) {
			rc = fj_fail(&r, -EINVAL, "--set '%s': give KEY=VALUE", IOB_Q(opts->sets[i]));
			break;
		}
		*eq = '\0';
		for (size_t j = 0; rc == 0 && j < r.njobs; j++)
			rc = fj_set_key(&r, &r.jobs[j], fj_trim(kv), fj_trim(eq + 1), where);
	}
	for (size_t j = 0; rc == 0 && j < r.njobs; j++) /* what no key of iobench's could give: said first */
		rc = fj_refuse_needs(&r, &r.jobs[j]);
	if (rc == 0 && r.unknown[0])
		rc = fj_fail(&r, -EINVAL,
			  "%s: fio keys iobench does not support: %s ('iobench keys --fio' lists what it maps; "
			  "--fio-ignore KEY,... runs without them)",
			  path, r.unknown);
	uint32_t group = 0;
	for (size_t j = 0; rc == 0 && j < r.njobs; j++) {
		rc = fj_map_job(&r, &r.jobs[j], &suite->jobs[j], &group, j);
		for (size_t i = 0; rc == 0 && i < j; i++)
			if (strcmp(suite->jobs[i].name, suite->jobs[j].name) == 0)
				rc = fj_fail(&r, -EEXIST, "%s: [%s]: a second job of that name (iobench names records and files by it)",
					  r.jobs[j].where, suite->jobs[j].name);
		if (rc == 0)
			suite->njobs++;
	}
	if (rc == 0)
		fj_exitall(&r);
	/* a files job alone in its group runs as a lone job (meta.c) */
	for (size_t j = 0; rc == 0 && j < suite->njobs; j++) {
		struct iob_job *x = &suite->jobs[j];
		int alone = (j == 0 || suite->jobs[j - 1].group != x->group) &&
			    (j + 1 == suite->njobs || suite->jobs[j + 1].group != x->group);
		if (x->workload == 1 && alone)
			x->group = 0;
	}
	if (rc == 0 && r.ignored[0])
		fj_note(&r, "fio keys ignored as --fio-ignore asked (the run differs from fio's there): %s", r.ignored);
	if (rc == 0)
		rc = add_layouts(&r, suite->jobs, &suite->njobs, suite->prepare);
	if (rc == 0)
		fj_notes_flush(&r);
	fj_section_free(&r.global);
	for (size_t j = 0; j < r.njobs; j++)
		fj_section_free(&r.jobs[j]);
	free(r.jobs);
	if (rc)
		iob_suite_free(suite);
	else
		suite->from_fio = 1;
	return rc;
}

int iob_fio_load(const char *path, const struct iob_fio_opts *opts, struct iob_suite *suite, char *err, size_t errlen)
{
	return load(path, opts, suite, err, errlen);
}

void iob_fio_advice(char *err, size_t errlen)
{
	static const struct {
		const char *iob, *fio;
	} advice[] = {
	    {"iobench --allow-device, or allow_devices = true in a profile",
	     "run with --allow-device: a fio job file has no key for it"},
	    {"set follow_symlinks = true to allow it", "name the link's target: a fio job file has no key to follow it"},
	    {"set group = 0", "put stonewall in every job after the first, so that each runs alone"},
	};
	for (size_t i = 0; i < sizeof advice / sizeof advice[0]; i++) {
		char *at = strstr(err, advice[i].iob);
		if (!at)
			continue;
		char tail[2048];
		snprintf(tail, sizeof tail, "%s", at + strlen(advice[i].iob));
		snprintf(at, errlen - (size_t)(at - err), "%s%s", advice[i].fio, tail);
	}
}

int iob_fio_load_string(const char *name, const char *text, const struct iob_fio_opts *opts, struct iob_suite *suite,
			char *err, size_t errlen)
{
	char path[4096];
	int rc = iob_write_temp(text, strlen(text), path, sizeof path);
	if (rc) {
		snprintf(err, errlen, "%s: cannot write a temporary copy: %s", name, strerror(-rc));
		return rc;
	}
	rc = load(path, opts, suite, err, errlen);
	iob_remove_file(path);
	return rc;
}
