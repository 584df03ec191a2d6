/*
 * runner.c - whole jobs and suites on top of the engine (iobench/runner.h).
 */
#include "iobench/runner.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/log.h"
#include "iobench/units.h"

/* Refuse targets that are not plain files unless allowed; check the
 * directory; check free space.  Touches nothing. */
static int check_targets(const struct iob_job *job, const struct iob_filelist *fl, int may_be_missing, char *err,
			 size_t errlen)
{
	int writes = (job->phases & IOB_PHASE_BIT(IOB_PHASE_WRITE)) != 0;
	if (strcmp(fl->paths[0], "-") == 0)
		return 0;
	enum iob_path_kind dk = iob_path_kind(job->dir, 1);
	if (dk != IOB_PATH_DIRECTORY) {
		snprintf(err, errlen, "[%s] dir '%s' %s", job->name, job->dir,
			 dk == IOB_PATH_MISSING ? "does not exist" : "is not a directory");
		return -ENOENT;
	}
	if (writes && iob_dir_writable(job->dir) != 0) {
		snprintf(err, errlen, "[%s] dir '%s' is not writable", job->name, job->dir);
		return -EACCES;
	}
	uint64_t existing = 0;
	for (size_t i = 0; i < fl->n; i++) {
		enum iob_path_kind k = iob_path_kind(fl->paths[i], 1);
		enum iob_path_kind lk = iob_path_kind(fl->paths[i], 0);
		if ((k == IOB_PATH_BLOCKDEV || k == IOB_PATH_CHARDEV) && !job->allow_devices) {
			snprintf(err, errlen, "[%s] %s is a %s device%s; refusing to touch it (set allow_devices = true)",
				 job->name, fl->paths[i], k == IOB_PATH_BLOCKDEV ? "block" : "character",
				 lk == IOB_PATH_SYMLINK ? " behind a symlink" : "");
			return -EPERM;
		}
		if (k == IOB_PATH_DIRECTORY || k == IOB_PATH_OTHER) {
			snprintf(err, errlen, "[%s] %s is %s, not a file", job->name, fl->paths[i],
				 k == IOB_PATH_DIRECTORY ? "a directory" : "a fifo or socket");
			return -EISDIR;
		}
		if (k == IOB_PATH_MISSING && lk == IOB_PATH_SYMLINK) {
			snprintf(err, errlen, "[%s] %s is a dangling symlink", job->name, fl->paths[i]);
			return -ENOENT;
		}
		if (!writes && k == IOB_PATH_MISSING && !may_be_missing) {
			snprintf(err, errlen, "[%s] %s does not exist (a read-only job needs existing files)", job->name,
				 fl->paths[i]);
			return -ENOENT;
		}
		uint64_t sz = 0;
		if (k == IOB_PATH_REGULAR && iob_file_size(fl->paths[i], &sz) == 0)
			existing += sz < job->size ? sz : job->size;
		else if (k == IOB_PATH_BLOCKDEV || k == IOB_PATH_CHARDEV)
			existing += job->size; /* a device holds its own space, not its directory's */
	}
	if (writes) {
		uint64_t need = job->size * fl->n - existing, avail = 0;
		if (job->size > UINT64_MAX / fl->n)
			need = UINT64_MAX;
		if (iob_fs_free_bytes(job->dir, &avail) == 0 && need > avail) {
			char a[32], b[32];
			iob_format_bytes((double)need, a, sizeof a);
			iob_format_bytes((double)avail, b, sizeof b);
			snprintf(err, errlen, "[%s] not enough space in %s: the job needs %s more, %s is free", job->name,
				 job->dir, a, b);
			return -ENOSPC;
		}
	}
	return 0;
}


static int job_check(const struct iob_job *job, const struct iob_registry *reg, int may_be_missing, char *err,
		     size_t errlen)
{
	const struct iob_loaded *b = iob_registry_find(reg, IOB_PLUGIN_BACKEND, job->backend);
	if (!b) {
		char why[1024];
		iob_registry_missing(reg, IOB_PLUGIN_BACKEND, job->backend, why, sizeof why);
		snprintf(err, errlen, "[%s] %s", job->name, why);
		return -ENOENT;
	}
	if ((job->phases & IOB_PHASE_BIT(IOB_PHASE_WRITE)) && !(b->desc.caps & IOB_CAP_WRITE)) {
		snprintf(err, errlen, "[%s] backend '%s' cannot write", job->name, job->backend);
		return -ENOTSUP;
	}
	if ((job->phases & ~IOB_PHASE_BIT(IOB_PHASE_WRITE)) && !(b->desc.caps & IOB_CAP_READ)) {
		snprintf(err, errlen, "[%s] backend '%s' cannot read", job->name, job->backend);
		return -ENOTSUP;
	}
	if (strcmp(job->filename, "-") == 0) {
		if (!(b->desc.caps & IOB_CAP_STREAM) || (job->phases & IOB_PHASE_BIT(IOB_PHASE_WRITE)) ||
		    job->access != IOB_ACCESS_SEQ) {
			snprintf(err, errlen, "[%s] standard input needs a stream-capable backend, sequential reads only",
				 job->name);
			return -EINVAL;
		}
		return 0;
	}
	struct iob_filelist fl;
	int rc = iob_job_validate(job, err, errlen);
	if (rc)
		return rc;
	if ((rc = iob_job_files(job, &fl)) != 0) {
		snprintf(err, errlen, "[%s] out of memory listing files", job->name);
		return rc;
	}
	rc = check_targets(job, &fl, may_be_missing, err, errlen);
	iob_filelist_free(&fl);
	return rc;
}

int iob_job_check(const struct iob_job *job, const struct iob_registry *reg, char *err, size_t errlen)
{
	return job_check(job, reg, 0, err, errlen);
}

/* Does an earlier job of the suite write the files job i reads? */
static int written_before(const struct iob_suite *suite, size_t i)
{
	const struct iob_job *j = &suite->jobs[i];
	for (size_t k = 0; k < i; k++) {
		const struct iob_job *w = &suite->jobs[k];
		if ((w->phases & IOB_PHASE_BIT(IOB_PHASE_WRITE)) && w->keep_files && w->layout == j->layout &&
		    strcmp(w->dir, j->dir) == 0 && (j->layout == IOB_LAYOUT_TREE || strcmp(w->filename, j->filename) == 0))
			return 1;
	}
	return 0;
}

void iob_cache_residency_note(struct iob_notes *notes, const char *what, const char *const *files, size_t nfiles)
{
	uint64_t res = 0, tot = 0;
	for (size_t i = 0; i < nfiles; i++) {
		uint64_t r = 0, t = 0;
		if (strcmp(files[i], "-") != 0 && iob_cache_residency(files[i], &r, &t) == 0) {
			res += r;
			tot += t;
		}
	}
	if (tot && res * 10 >= tot)
		iob_notes_add(notes,
			      "%s: %.0f%% of the data was in the page cache before the read: its rate measures "
			      "memory, not storage (evict it first, or use the direct backend)",
			      what, 100.0 * (double)res / (double)tot);
}

void iob_cache_memory_note(struct iob_notes *notes, const char *what, uint64_t total_bytes)
{
	uint64_t mem = iob_physical_memory();
	if (mem && total_bytes < 2 * mem) {
		char a[32], b[32];
		iob_format_bytes((double)total_bytes, a, sizeof a);
		iob_format_bytes((double)mem, b, sizeof b);
		iob_notes_add(notes,
			      "%s: the data set (%s) is smaller than twice physical memory (%s): reads may be served "
			      "from the page cache",
			      what, a, b);
	}
}

static void set_error(struct iob_run_ctx *ctx, const char *msg)
{
	if (!ctx->error[0])
		snprintf(ctx->error, sizeof ctx->error, "%s", msg);
}

static int run_phase(const struct iob_job *job, struct iob_run_ctx *ctx, const struct iob_loaded *b,
		     const struct iob_filelist *fl, enum iob_phase phase, uint64_t bs)
{
	struct iob_phase_spec spec = {
		.backend = b,
		.files = (const char *const *)fl->paths,
		.nfiles = fl->n,
		.phase = phase,
		.access = job->access,
		.block_size = bs,
		.file_size = job->size,
		.ops = job->ops,
		.loops = job->loops,
		.offset_align = job->offset_align,
		.skip_past_end = job->skip_past_end,
		.pattern = job->pattern,
		.seed = job->seed,
		.fsync = job->fsync,
		.truncate = job->truncate,
		.reopen = job->reopen,
		.stop = ctx->stop,
		.fill_once = job->fill_once,
	};
	struct iob_phase_result r;
	char what[160];

	snprintf(what, sizeof what, "job %s, %s phase", job->name, iob_phase_name(phase));
	if (phase != IOB_PHASE_WRITE) {
		if (job->evict_before_read)
			for (size_t i = 0; i < fl->n; i++)
				if (strcmp(fl->paths[i], "-") != 0)
					iob_cache_evict(fl->paths[i]);
		if (!(b->desc.caps & IOB_CAP_DIRECT)) {
			char jobwhat[96];
			snprintf(jobwhat, sizeof jobwhat, "job %s", job->name);
			iob_cache_residency_note(ctx->notes, what, (const char *const *)fl->paths, fl->n);
			iob_cache_memory_note(ctx->notes, jobwhat, job->size * fl->n);
		}
	}
	int rc = iob_phase_run(&spec, &r);
	if ((b->desc.caps & IOB_CAP_DIRECT) && !r.direct && r.ops)
		iob_notes_add(ctx->notes, "%s: backend %s did not report direct I/O in effect", what, b->desc.name);
	if (r.ops || rc == 0 || r.interrupted) {
		struct iob_recbuf *rb = malloc(sizeof *rb);
		if (rb) {
			char file[IOB_PATH_MAX];
			snprintf(file, sizeof file, "%s", job->layout == IOB_LAYOUT_TREE ? job->dir : fl->paths[0]);
			iob_rec_phase(rb, job->name, job->backend, file, &r);
			iob_outputs_record(ctx->out, &rb->rec);
			free(rb);
		}
	}
	if (r.interrupted)
		ctx->interrupted = 1;
	if (rc == IOB_STATUS_MISMATCH) {
		char msg[1024 + IOB_PATH_MAX];
		snprintf(msg, sizeof msg,
			 "verify failed in job %s: %llu bad block(s); first bad byte at offset %llu of %s: expected "
			 "0x%02x, found 0x%02x",
			 job->name, (unsigned long long)r.bad_blocks, (unsigned long long)r.first_bad_offset, r.bad_file,
			 r.expected, r.found);
		set_error(ctx, msg);
	} else if (rc < 0) {
		char msg[1200];
		snprintf(msg, sizeof msg, "job %s: %s", job->name, r.error);
		set_error(ctx, msg);
	}
	iob_phase_result_free(&r);
	return rc;
}

int iob_job_run(const struct iob_job *job, struct iob_run_ctx *ctx)
{
	char err[1024];
	struct iob_filelist fl;
	int rc;

	if ((rc = iob_job_check(job, ctx->reg, err, sizeof err)) != 0) {
		set_error(ctx, err);
		return rc;
	}
	const struct iob_loaded *b = iob_registry_find(ctx->reg, IOB_PLUGIN_BACKEND, job->backend);
	if ((rc = iob_job_files(job, &fl)) != 0) {
		set_error(ctx, "out of memory listing the job's files");
		return rc;
	}
	/* remember what existed, so cleanup removes only what this job made */
	int *made_file = calloc(fl.n, sizeof *made_file);
	int *made_dir = calloc(fl.ndirs ? fl.ndirs : 1, sizeof *made_dir);
	if (!made_file || !made_dir) {
		free(made_file);
		free(made_dir);
		iob_filelist_free(&fl);
		set_error(ctx, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < fl.n; i++)
		made_file[i] = strcmp(fl.paths[i], "-") != 0 && iob_path_kind(fl.paths[i], 0) == IOB_PATH_MISSING;
	for (size_t i = 0; i < fl.ndirs && rc == 0; i++) {
		made_dir[i] = iob_path_kind(fl.dirs[i], 0) == IOB_PATH_MISSING;
		if ((rc = iob_mkdir(fl.dirs[i])) != 0) {
			snprintf(err, sizeof err, "[%s] cannot create directory %s: %s", job->name, fl.dirs[i],
				 strerror(-rc));
			set_error(ctx, err);
		}
	}
	uint64_t top = job->block_size_max ? job->block_size_max : job->block_size;
	for (uint64_t bs = job->block_size; rc == 0 && bs <= top && !ctx->interrupted; bs *= 2) {
		for (int p = IOB_PHASE_WRITE; p <= IOB_PHASE_VERIFY && rc == 0 && !ctx->interrupted; p++)
			if (job->phases & IOB_PHASE_BIT(p))
				rc = run_phase(job, ctx, b, &fl, (enum iob_phase)p, bs);
		if (bs > UINT64_MAX / 2)
			break;
	}
	if (!job->keep_files) {
		for (size_t i = 0; i < fl.n; i++)
			if (made_file[i] && iob_path_kind(fl.paths[i], 0) == IOB_PATH_REGULAR)
				iob_remove_file(fl.paths[i]);
		for (size_t i = fl.ndirs; i-- > 0;)
			if (made_dir[i])
				iob_remove_dir(fl.dirs[i]);
	}
	free(made_file);
	free(made_dir);
	iob_filelist_free(&fl);
	return rc;
}

int iob_suite_check(const struct iob_suite *suite, const struct iob_registry *reg, char *err, size_t errlen)
{
	for (size_t i = 0; i < suite->njobs; i++) {
		int rc = job_check(&suite->jobs[i], reg, written_before(suite, i), err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

int iob_suite_run(const struct iob_suite *suite, struct iob_run_ctx *ctx)
{
	char err[1024];
	int rc = iob_suite_check(suite, ctx->reg, err, sizeof err);
	if (rc) {
		set_error(ctx, err);
		return rc;
	}
	for (size_t i = 0; i < suite->njobs && rc == 0 && !ctx->interrupted; i++)
		rc = iob_job_run(&suite->jobs[i], ctx);
	return rc;
}
