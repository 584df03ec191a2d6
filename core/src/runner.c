/*
 * runner.c - the one run path (iobench/runner.h): checks, jobs, phases,
 * records, and the run's life from outputs opened to exit code.
 */
#include "iobench/runner.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/blocks.h"
#include "iobench/cli.h"
#include "iobench/engine.h"
#include "iobench/log.h"
#include "iobench/os.h"
#include "iobench/units.h"
#include "iobench/version.h"

const char *iob_error_without_job(const char *msg)
{
	if (msg[0] == '[' && strstr(msg, "] "))
		return strstr(msg, "] ") + 2;
	if (strncmp(msg, "job ", 4) == 0 && strstr(msg, ": "))
		return strstr(msg, ": ") + 2;
	return msg;
}

/* ------------------------------------------------------------------ checks */

static int is_stdin(const char *path)
{
	return strcmp(path, "-") == 0;
}

/* Refuse what is not a plain file (devices only when allowed, symlinks only
 * when followed), check access and existence.  Adds to *existing the bytes
 * already there that a write reuses.  Touches nothing. */
static int check_target(const struct iob_job *job, const char *path, int writes, int may_be_missing,
			uint64_t *existing, char *err, size_t errlen)
{
	enum iob_path_kind k = iob_path_kind(path, 1);
	enum iob_path_kind lk = iob_path_kind(path, 0);
	int device = k == IOB_PATH_BLOCKDEV || k == IOB_PATH_CHARDEV;
	if (device && !job->allow_devices) {
		snprintf(err, errlen, "[%s] %s is a %s device%s; refusing to touch it (set allow_devices = true)",
			 job->name, path, k == IOB_PATH_BLOCKDEV ? "block" : "character",
			 lk == IOB_PATH_SYMLINK ? " behind a symlink" : "");
		return -EPERM;
	}
	if (lk == IOB_PATH_SYMLINK && k == IOB_PATH_MISSING) {
		snprintf(err, errlen, "[%s] %s is a dangling symlink", job->name, path);
		return -ENOENT;
	}
	if (lk == IOB_PATH_SYMLINK && !job->follow_symlinks) {
		snprintf(err, errlen,
			 "[%s] %s is a symbolic link; refusing to follow it (a link planted in a shared directory "
			 "could aim the job at another file; set follow_symlinks = true to allow it)",
			 job->name, path);
		return -ELOOP;
	}
	if (k == IOB_PATH_DIRECTORY || k == IOB_PATH_OTHER) {
		snprintf(err, errlen, "[%s] %s is %s, not a file", job->name, path,
			 k == IOB_PATH_DIRECTORY ? "a directory" : "a fifo or socket");
		return -EISDIR;
	}
	if (k == IOB_PATH_MISSING) {
		if (!writes && !may_be_missing) {
			snprintf(err, errlen,
				 "[%s] %s does not exist (no such file; a read-only job reads existing files)",
				 job->name, path);
			return -ENOENT;
		}
		return 0;
	}
	int acc = iob_path_access(path, writes);
	if (acc < 0) {
		snprintf(err, errlen, "[%s] cannot %s %s: %s", job->name, writes ? "write" : "read", path,
			 strerror(-acc));
		return -EACCES;
	}
	uint64_t sz = 0;
	if (device) {
		*existing += job->size; /* a device holds its own space, not its directory's */
	} else if (iob_file_size(path, &sz) == 0) {
		if (!writes && sz == 0 && !may_be_missing) {
			snprintf(err, errlen, "[%s] %s is empty: there is nothing to read", job->name, path);
			return -ENODATA;
		}
		*existing += sz < job->size ? sz : job->size;
	}
	return 0;
}

static int check_targets(const struct iob_job *job, const struct iob_filelist *fl, int may_be_missing,
			 uint64_t *need, char *err, size_t errlen)
{
	int writes = (job->phases & IOB_PHASE_BIT(IOB_PHASE_WRITE)) != 0;
	*need = 0;
	if (is_stdin(fl->paths[0]))
		return 0;
	enum iob_path_kind dk = iob_path_kind(job->dir, 1);
	if (dk != IOB_PATH_DIRECTORY) {
		snprintf(err, errlen, "[%s] dir '%s' %s", job->name, job->dir,
			 dk == IOB_PATH_MISSING ? "does not exist" : "is not a directory");
		return -ENOENT;
	}
	uint64_t existing = 0;
	int all_devices = 1;
	for (size_t i = 0; i < fl->n; i++) {
		int rc = check_target(job, fl->paths[i], writes, may_be_missing, &existing, err, errlen);
		if (rc)
			return rc;
		enum iob_path_kind k = iob_path_kind(fl->paths[i], 1);
		all_devices &= k == IOB_PATH_BLOCKDEV || k == IOB_PATH_CHARDEV;
	}
	/* a device is written in place: its directory need not be writable */
	if (writes && !all_devices && iob_dir_writable(job->dir) != 0) {
		snprintf(err, errlen, "[%s] dir '%s' is not writable", job->name, job->dir);
		return -EACCES;
	}
	if (writes) {
		uint64_t total = job->size > UINT64_MAX / fl->n ? UINT64_MAX : job->size * fl->n;
		*need = total > existing ? total - existing : 0;
	}
	return 0;
}

static int check_backend(const struct iob_job *job, const struct iob_loaded *b, char *err, size_t errlen)
{
	if (!job->backend_options[0])
		return 0;
	int rc = b->backend.control ? b->backend.control(NULL, IOB_CTL_CHECK_OPTIONS, (void *)job->backend_options)
				    : -EINVAL;
	if (rc < 0)
		snprintf(err, errlen, "[%s] backend %s refuses backend_options '%s'%s", job->name, b->desc.name,
			 job->backend_options, b->backend.control ? "" : " (it takes no options)");
	return rc < 0 ? -EINVAL : 0;
}

static int job_check(const struct iob_job *job, const struct iob_registry *reg, int may_be_missing, uint64_t *need,
		     char *err, size_t errlen)
{
	const struct iob_loaded *b = iob_registry_find(reg, IOB_PLUGIN_BACKEND, job->backend);
	*need = 0;
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
	int rc = check_backend(job, b, err, errlen);
	if (rc)
		return rc;
	if (is_stdin(job->filename)) {
		if (!(b->desc.caps & IOB_CAP_STREAM) || (job->phases & IOB_PHASE_BIT(IOB_PHASE_WRITE)) ||
		    job->access != IOB_ACCESS_SEQ) {
			snprintf(err, errlen, "[%s] standard input needs a stream-capable backend, sequential reads only",
				 job->name);
			return -EINVAL;
		}
		return 0;
	}
	struct iob_filelist fl;
	if ((rc = iob_job_validate(job, err, errlen)) != 0)
		return rc;
	if ((rc = iob_job_files(job, &fl)) != 0) {
		snprintf(err, errlen, "[%s] out of memory listing files", job->name);
		return rc;
	}
	rc = check_targets(job, &fl, may_be_missing, need, err, errlen);
	iob_filelist_free(&fl);
	return rc;
}

/* The last earlier job of the suite that writes and keeps the files job i
 * uses, or NULL. */
static const struct iob_job *writer_before(const struct iob_suite *suite, size_t i)
{
	const struct iob_job *j = &suite->jobs[i], *found = NULL;
	for (size_t k = 0; k < i; k++) {
		const struct iob_job *w = &suite->jobs[k];
		if ((w->phases & IOB_PHASE_BIT(IOB_PHASE_WRITE)) && w->keep_files && w->layout == j->layout &&
		    strcmp(w->dir, j->dir) == 0 &&
		    (j->layout == IOB_LAYOUT_FILE ? strcmp(w->filename, j->filename) == 0
						  : w->tree_levels == j->tree_levels && w->tree_files == j->tree_files))
			found = w;
	}
	return found;
}


/* Space for the whole suite: the files kept by earlier jobs stay, the files
 * of a job that removes them are gone after it.  Per file system. */
struct space {
	uint64_t dev, kept, avail;
	int known;
};

static int check_space(const struct iob_suite *suite, const uint64_t *need, char *err, size_t errlen)
{
	struct space fs[16];
	size_t nfs = 0;
	for (size_t i = 0; i < suite->njobs; i++) {
		const struct iob_job *j = &suite->jobs[i];
		uint64_t dev = 0;
		if (!need[i] || iob_path_device(j->dir, &dev) != 0)
			continue;
		size_t f = 0;
		while (f < nfs && fs[f].dev != dev)
			f++;
		if (f == nfs) {
			if (nfs == sizeof fs / sizeof fs[0])
				continue;
			fs[nfs] = (struct space){.dev = dev};
			fs[nfs].known = iob_fs_free_bytes(j->dir, &fs[nfs].avail) == 0;
			nfs++;
		}
		uint64_t total = fs[f].kept + need[i];
		if (total < need[i])
			total = UINT64_MAX;
		if (fs[f].known && total > fs[f].avail) {
			char a[32], b[32];
			iob_format_bytes((double)total, a, sizeof a);
			iob_format_bytes((double)fs[f].avail, b, sizeof b);
			snprintf(err, errlen,
				 "[%s] not enough space in %s: the suite needs %s there by the end of this job, %s is "
				 "free",
				 j->name, j->dir, a, b);
			return -ENOSPC;
		}
		if (j->keep_files)
			fs[f].kept = total;
	}
	return 0;
}

int iob_job_check(const struct iob_job *job, const struct iob_registry *reg, char *err, size_t errlen)
{
	struct iob_suite one = {.njobs = 1, .jobs = (struct iob_job *)job};
	return iob_suite_check(&one, reg, err, errlen);
}

int iob_suite_check(const struct iob_suite *suite, const struct iob_registry *reg, char *err, size_t errlen)
{
	uint64_t *need = calloc(suite->njobs ? suite->njobs : 1, sizeof *need);
	int rc = 0;
	if (!need) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < suite->njobs && rc == 0; i++) {
		const struct iob_job *w = writer_before(suite, i), *j = &suite->jobs[i];
		rc = job_check(j, reg, w != NULL, &need[i], err, errlen);
		if (w && need[i]) /* those files are there by then: only growth needs room */
			need[i] = j->size > w->size ? (need[i] / j->size) * (j->size - w->size) : 0;
	}
	if (rc == 0)
		rc = check_space(suite, need, err, errlen);
	free(need);
	return rc;
}

/* -------------------------------------------------------------- lifecycle */

static void print_live_notes(struct iob_run *run)
{
	if (!run->opts.warn_live || run->notes_printed == run->notes.n)
		return;
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
		iob_sleep_ns((uint64_t)(seconds * 1e9), run->stop);
}

void iob_run_record(struct iob_run *run, const struct iob_record *rec)
{
	if (!run->quiet)
		iob_outputs_record(run->out, rec);
}

struct iob_run *iob_run_open(const struct iob_registry *reg, const struct iob_run_opts *opts,
			     const struct iob_suite *suite, int *code)
{
	char err[2048];
	if (iob_suite_check(suite, reg, err, sizeof err) != 0) {
		const char *msg = opts->hide_job_names ? iob_error_without_job(err) : err;
		if (opts->source_in_errors && opts->source)
			*code = iob_cli_fail(IOB_EXIT_USAGE, "%s: %s", opts->source, msg);
		else
			*code = iob_cli_fail(IOB_EXIT_USAGE, "%s", msg);
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
	run->stop = &iob_cli_stop;
	if (iob_outputs_open(&run->out, reg, opts->outputs, err, sizeof err) != 0) {
		free(run);
		*code = iob_cli_fail(IOB_EXIT_USAGE, "%s", err);
		return NULL;
	}
	iob_cli_trap_signals();
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
	int sig = (int)*run->stop;
	if (sig && !run->error[0])
		snprintf(run->error, sizeof run->error, "interrupted by signal %d", sig);
	if (status != 0 && !run->error[0])
		snprintf(run->error, sizeof run->error, "the run failed");
	const char *error = run->opts.hide_job_names ? iob_error_without_job(run->error) : run->error;
	/* with nothing measured because the input was bad, the caveats have
	 * nothing to qualify */
	iob_cli_end_run(run->out, run->usage ? NULL : &run->notes, status, sig != 0 || run->interrupted, error);
	int crc = iob_outputs_close(run->out);
	print_live_notes(run);
	int code = run->usage && status != 0 ? IOB_EXIT_USAGE : iob_cli_exit_code(status, sig);
	if (status != 0 || sig)
		iob_cli_fail(code, "%s", error);
	else if (crc < 0)
		code = iob_cli_fail(IOB_EXIT_FAIL, "writing the results failed: %s", strerror(-crc));
	free(run);
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

/* --------------------------------------------------------------- running */

struct phase_run {
	struct iob_run *run;
	const struct iob_job *job;
	size_t j;
	struct iob_blocks blocks; /* series jobs: block records as they come */
};

static void on_block(void *arg, const struct iob_series *s)
{
	struct phase_run *pr = arg;
	iob_blocks_stream(&pr->blocks, s, pr->run->quiet ? NULL : pr->run->out);
}

static void phase_notes(struct iob_run *run, const struct iob_job *job, const struct iob_loaded *b,
			const struct iob_filelist *fl, enum iob_phase phase, uint64_t bs, struct iob_read_facts *facts)
{
	char what[160];
	memset(facts, 0, sizeof *facts);
	if (phase == IOB_PHASE_WRITE || run->quiet)
		return;
	snprintf(what, sizeof what, "job %s, %s phase", job->name, iob_phase_name(phase));
	uint64_t per_pass = job->size * fl->n;
	uint64_t reads = job->access == IOB_ACCESS_RAND ? (job->ops ? job->ops * bs : per_pass)
							: per_pass * job->loops;
	struct iob_read_plan plan = {
		.files = (const char *const *)fl->paths,
		.nfiles = fl->n,
		.len = job->series ? 0 : job->size, /* a series read goes to the end */
		.reads = job->series ? 0 : reads,
		.bypass = (b->desc.caps & IOB_CAP_DIRECT) != 0,
		.evicted = job->evict_before_read,
		.clock = job->series ? job->series_clock : IOB_CLOCK_WALL,
	};
	iob_caveat_before_read(&run->notes, what, &plan, facts);
	print_live_notes(run);
}

/* The phase record; a series' summary may fail (returned). */
static int emit_phase(struct phase_run *pr, const struct iob_filelist *fl, struct iob_phase_result *r,
		      const struct iob_read_facts *facts)
{
	struct iob_run *run = pr->run;
	const struct iob_job *job = pr->job;
	const struct iob_run_hooks *h = run->opts.hooks;
	struct iob_recbuf *rb = &run->rb;
	char file[IOB_PATH_MAX];
	snprintf(file, sizeof file, "%s", job->layout == IOB_LAYOUT_TREE ? job->dir : fl->paths[0]);
	iob_rec_phase(rb, job, file, r);
	int fs = !is_stdin(file);
	iob_rec_str(rb, "fs_type", fs && strcmp(run->fs_type, "unknown") ? run->fs_type : NULL);
	if (fs && run->fs_block_size)
		iob_rec_u64(rb, "fs_block_size_bytes", IOB_UNIT_BYTES, run->fs_block_size);
	else
		iob_rec_absent(rb, "fs_block_size_bytes", IOB_UNIT_BYTES);
	iob_rec_str(rb, "device", fs && strcmp(run->device, "unknown") ? run->device : NULL);
	iob_rec_bool(rb, "evicted", r->phase != IOB_PHASE_WRITE && job->evict_before_read);
	if (facts->resident_known)
		iob_rec_f64(rb, "resident_before_pct", IOB_UNIT_NONE, facts->resident_pct);
	else
		iob_rec_absent(rb, "resident_before_pct", IOB_UNIT_NONE);
	if (facts->holes_known)
		iob_rec_f64(rb, "holes_pct", IOB_UNIT_NONE, facts->hole_pct);
	else
		iob_rec_absent(rb, "holes_pct", IOB_UNIT_NONE);
	iob_rec_str(rb, "status", iob_phase_status_name(r));
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
	if (h && h->record_fields)
		h->record_fields(h->arg, run, pr->j, r, rb);
	iob_run_record(run, &rb->rec);
	return 0;
}

static int run_phase(struct iob_run *run, size_t j, const struct iob_loaded *b, const struct iob_filelist *fl,
		     enum iob_phase phase, uint64_t bs)
{
	const struct iob_job *job = &run->suite->jobs[j];
	const struct iob_run_hooks *h = run->opts.hooks;
	struct phase_run pr = {.run = run, .job = job, .j = j};
	struct iob_phase_spec spec = {
		.backend = b,
		.files = (const char *const *)fl->paths,
		.nfiles = fl->n,
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
		.stop = run->stop,
		.fill_once = job->fill_once,
		.backend_options = job->backend_options,
		.follow_symlinks = job->follow_symlinks,
		.allow_devices = job->allow_devices,
	};
	struct iob_phase_result r;
	struct iob_read_facts facts;
	char what[160];

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
			if (!is_stdin(fl->paths[i]))
				iob_cache_evict(fl->paths[i]);
	phase_notes(run, job, b, fl, phase, bs, &facts);
	int rc = iob_phase_run(&spec, &r);
	if (rc >= 0 && !r.interrupted && is_stdin(fl->paths[0]) && r.bytes == 0) {
		iob_run_fail(run, 1, "standard input gave no data: there is nothing to read");
		iob_phase_result_free(&r);
		iob_blocks_free(&pr.blocks);
		return -ENODATA;
	}
	if (h && h->end_phase) {
		int hr = h->end_phase(h->arg, run, j, &r);
		if (hr != 0 && rc == 0)
			rc = hr;
	}
	if (r.interrupted)
		run->interrupted = 1;
	if (!run->quiet) {
		snprintf(what, sizeof what, "job %s, %s phase", job->name, iob_phase_name(phase));
		iob_caveat_after_phase(&run->notes, what, &r, b->desc.name, (b->desc.caps & IOB_CAP_DIRECT) != 0);
	}
	if (r.ops || rc == 0 || r.interrupted || rc == IOB_STATUS_MISMATCH) {
		int er = emit_phase(&pr, fl, &r, &facts);
		if (er < 0 && rc >= 0)
			rc = er;
	}
	print_live_notes(run);
	if (rc == IOB_STATUS_MISMATCH && !run->error[0])
		snprintf(run->error, sizeof run->error,
			 "verify failed in job %s: %llu bad block(s); first bad byte at offset %llu of %s: expected "
			 "0x%02x, found 0x%02x",
			 job->name, (unsigned long long)r.bad_blocks, (unsigned long long)r.first_bad_offset, r.bad_file,
			 r.expected, r.found);
	else if (rc < 0)
		iob_run_fail(run, rc == -EINVAL && r.ops == 0, "job %s: %s", job->name, r.error);
	if (h && h->after_phase)
		h->after_phase(h->arg, run, j, &r);
	iob_phase_result_free(&r);
	iob_blocks_free(&pr.blocks);
	return rc;
}

static int run_job(struct iob_run *run, size_t j)
{
	const struct iob_job *job = &run->suite->jobs[j];
	const struct iob_run_hooks *h = run->opts.hooks;
	const struct iob_loaded *b = iob_registry_find(run->reg, IOB_PLUGIN_BACKEND, job->backend);
	struct iob_filelist fl;
	int rc;

	run->quiet = 0;
	if (h && h->before_job) {
		rc = h->before_job(h->arg, run, j);
		if (rc < 0)
			return rc;
		run->quiet = rc == 1;
	}
	iob_fs_facts(job->dir, run->fs_type, sizeof run->fs_type, &run->fs_block_size, run->device,
		     sizeof run->device);
	if ((rc = iob_job_files(job, &fl)) != 0) {
		iob_run_fail(run, 0, "out of memory listing the job's files");
		return rc;
	}
	/* remember what existed, so cleanup removes only what this job made */
	int *made_file = calloc(fl.n, sizeof *made_file);
	int *made_dir = calloc(fl.ndirs ? fl.ndirs : 1, sizeof *made_dir);
	if (!made_file || !made_dir) {
		free(made_file);
		free(made_dir);
		iob_filelist_free(&fl);
		iob_run_fail(run, 0, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < fl.n; i++)
		made_file[i] = !is_stdin(fl.paths[i]) && iob_path_kind(fl.paths[i], 0) == IOB_PATH_MISSING;
	for (size_t i = 0; i < fl.ndirs && rc == 0; i++) {
		made_dir[i] = iob_path_kind(fl.dirs[i], 0) == IOB_PATH_MISSING;
		if ((rc = iob_mkdir(fl.dirs[i])) != 0)
			iob_run_fail(run, 0, "[%s] cannot create directory %s: %s", job->name, fl.dirs[i],
				     strerror(-rc));
	}
	uint64_t top = job->block_size_max ? job->block_size_max : job->block_size;
	for (uint64_t bs = job->block_size; rc == 0 && bs <= top && !*run->stop; bs *= 2) {
		for (int p = IOB_PHASE_WRITE; p <= IOB_PHASE_VERIFY && rc == 0 && !*run->stop; p++)
			if (job->phases & IOB_PHASE_BIT(p))
				rc = run_phase(run, j, b, &fl, (enum iob_phase)p, bs);
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
	run->quiet = 0;
	return rc;
}

int iob_run_suite(struct iob_run *run)
{
	const struct iob_suite *suite = run->suite;
	int rc = 0;
	for (size_t i = 0; i < suite->njobs && rc == 0 && !*run->stop; i++) {
		run->suite_job = i;
		rc = run_job(run, i);
	}
	return rc;
}
