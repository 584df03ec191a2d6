/*
 * run.c - iotest's passes through the core runner (iotest.h).
 *
 * The passes are jobs of a suite; the runner runs them, probes the cache and
 * words every caveat.  iotest adds, through the runner's hooks:
 *   end_phase      with -y/-Y or -d/-D after a write, a sync whose time is
 *                  added to the write pass (the original issued it before
 *                  closing, inside the timed region); the end-of-pass stamp;
 *                  with -d/-D the cache drop (not timed) with free memory
 *                  before and after; a short read noted, a short verify
 *                  failed; the failure worded as iotest words it
 *   record_fields  pass, stamp, pattern label, drop facts, comment
 *   after_phase    with -z, a sleep after each write pass
 * Before the passes it emits the comment, the settings (-v) and the first
 * cache drop as records of their own.  Caveats go to stderr as they arise.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/cli.h"
#include "iobench/profile.h"
#include "iobench/result.h"
#include "iobench/version.h"
#include "iotest.h"

struct run {
	const struct iotest_opts *o;
	const struct iotest_plan *plan;
	struct iob_recbuf *rb;
	int fallback_noted;
	/* the pass being finished */
	char stamp[32];
	int dropped;
	uint64_t before, after;
	const char *how;
};

const char *iotest_shown_path(const struct iob_job *j, const char *path, char *buf, size_t len)
{
	if (!iob_job_stream_files(j))
		return path;
	snprintf(buf, len, "%s.{0..%u}", path, j->threads - 1);
	return buf;
}

static enum iob_phase job_phase(const struct iob_job *j)
{
	if (j->phases & IOB_PHASE_BIT(IOB_PHASE_WRITE))
		return IOB_PHASE_WRITE;
	return (j->phases & IOB_PHASE_BIT(IOB_PHASE_READ)) ? IOB_PHASE_READ : IOB_PHASE_VERIFY;
}

static const char *priv_name(enum iob_priv p)
{
	return p == IOB_PRIV_SUDO ? "sudo" : p == IOB_PRIV_SELF ? "yes" : "no";
}

static void emit_settings(struct run *r, struct iob_run *run)
{
	const struct iotest_opts *o = r->o;
	const struct iotest_plan *p = r->plan;
	char plan[4096] = "", pat[64];
	for (size_t i = 0; i < p->njobs; i++) {
		size_t l = strlen(plan);
		const struct iob_job *j = &p->jobs[i];
		if (iob_key_format(iob_key_find("pattern"), j, pat, sizeof pat) != 0)
			snprintf(pat, sizeof pat, "?");
		snprintf(plan + l, sizeof plan - l, "%s%s %s", l ? ", " : "", iob_phase_name(job_phase(j)), pat);
	}
	iob_rec_reset(r->rb, "iotest_settings");
	iob_rec_str(r->rb, "tool", "iotest");
	iob_rec_str(r->rb, "version", IOB_VERSION);
	iob_rec_str(r->rb, "host", run->host);
	iob_rec_str(r->rb, "file", o->output);
	iob_rec_str(r->rb, "input", o->input);
	iob_rec_u64(r->rb, "passes", IOB_UNIT_COUNT, p->njobs);
	iob_rec_u64(r->rb, "size_bytes", IOB_UNIT_BYTES, p->size);
	iob_rec_u64(r->rb, "block_size_bytes", IOB_UNIT_BYTES, p->block);
	iob_rec_str(r->rb, "plan", plan);
	iob_rec_u64(r->rb, "seed", IOB_UNIT_NONE, o->seed);
	iob_rec_bool(r->rb, "fsync", !o->nosync);
	iob_rec_str(r->rb, "backend", o->backend);
	iob_rec_str(r->rb, "drop_caches", priv_name(o->drop));
	iob_rec_str(r->rb, "sync", priv_name(o->sync));
	iob_rec_f64(r->rb, "snooze_s", IOB_UNIT_S, o->snooze_s);
	iob_run_record(run, &r->rb->rec);
	if (p->rounded)
		iob_run_note(run, "size rounded up to %llu bytes, a whole number of %llu-byte blocks",
			     (unsigned long long)p->size, (unsigned long long)p->block);
}

/* Drop caches, or evict the pass's file (with --threads, every stream's
 * FILE.<i>), with free memory before and after. */
static int drop_files(struct run *r, const struct iob_job *j, const char *path)
{
	struct iob_filelist fl;
	if (!iob_job_stream_files(j) || iob_job_files(j, &fl) != 0)
		return iob_cache_drop(r->o->drop, path, &r->how);
	int rc = 0;
	for (size_t k = 0; k < fl.n; k++) {
		int one = iob_cache_drop(r->o->drop, fl.paths[k], &r->how);
		if (one == 0)
			break; /* the whole cache went */
		if (rc >= 0)
			rc = one;
	}
	iob_filelist_free(&fl);
	return rc;
}

static void drop(struct run *r, struct iob_run *run, size_t i)
{
	const struct iob_job *j = &r->plan->jobs[i];
	const char *path = r->plan->paths[i];
	char shown[IOB_PATH_MAX + 32];
	r->before = iob_cache_free_memory();
	int rc = drop_files(r, j, path);
	r->after = iob_cache_free_memory();
	if (rc != 0 && !r->fallback_noted) {
		r->fallback_noted = 1;
		const char *why = r->o->drop == IOB_PRIV_SUDO
					  ? "drop caches needs root and 'sudo -n' did not work (or writing "
					    "/proc/sys/vm/drop_caches failed)"
					  : "drop caches needs root (or -D with sudo), or writing /proc/sys/vm/drop_caches "
					    "failed";
		if (rc == -ENOTSUP) /* (Windows: neither exists) */
			iob_run_note(run, "%s, and %s could not be evicted either (not supported on this OS): reads "
					  "may be served from memory",
				     why, iotest_shown_path(j, path, shown, sizeof shown));
		else
			iob_run_note(run, "%s: evicting only %s from the page cache (posix_fadvise) instead", why,
				     iotest_shown_path(j, path, shown, sizeof shown));
	}
	if (rc == -ENOTSUP)
		r->how = "none";
}

static void emit_initial_drop(struct run *r, struct iob_run *run)
{
	drop(r, run, 0);
	iob_rec_reset(r->rb, "cache_drop");
	iob_rec_str(r->rb, "host", run->host);
	iob_rec_str(r->rb, "when", "start");
	iob_rec_str(r->rb, "method", r->how);
	iob_rec_u64(r->rb, "mem_free_before_bytes", IOB_UNIT_BYTES, r->before);
	iob_rec_u64(r->rb, "mem_free_after_bytes", IOB_UNIT_BYTES, r->after);
	iob_run_record(run, &r->rb->rec);
}

/* A read of a short file is noted; a verify of one fails. */
static int check_length(struct run *r, struct iob_run *run, size_t i, struct iob_phase_result *res)
{
	const struct iob_job *j = &r->plan->jobs[i];
	/* with --threads every stream reads its own whole file */
	uint64_t want = j->size * (iob_job_stream_files(j) ? j->threads : 1);
	char shown[IOB_PATH_MAX + 32];
	const char *path = iotest_shown_path(j, r->plan->paths[i], shown, sizeof shown);
	if (res->phase == IOB_PHASE_WRITE || res->bytes >= want)
		return 0;
	if (res->phase == IOB_PHASE_READ) {
		iob_run_note(run, "read of %s: only %llu of %llu bytes: the file is shorter than the size", path,
			     (unsigned long long)res->bytes, (unsigned long long)want);
		return 0;
	}
	iob_run_fail(run, 0, "verify of %s failed (pass %zu): the file holds only %llu of the %llu bytes expected",
		     path, i + 1, (unsigned long long)res->bytes, (unsigned long long)want);
	res->status = IOB_STATUS_MISMATCH;
	return IOB_STATUS_MISMATCH;
}

static void describe_failure(struct run *r, struct iob_run *run, size_t i, const struct iob_phase_result *res)
{
	const struct iob_job *j = &r->plan->jobs[i];
	/* with --threads the stream's own file, which the core names */
	const char *path = iob_job_stream_files(j) && res->bad_file[0] ? res->bad_file : r->plan->paths[i];
	if (res->status == IOB_STATUS_MISMATCH)
		iob_run_fail(run, 0,
			     "verify of %s failed (pass %zu, pattern 0x%02x): %llu bad block(s) of %llu bytes; first "
			     "bad byte at offset %llu: expected 0x%02x, found 0x%02x",
			     path, i + 1, res->pattern_label,
			     (unsigned long long)res->bad_blocks, (unsigned long long)j->block_size,
			     (unsigned long long)res->first_bad_offset, res->expected, res->found);
	else if (res->status < 0)
		iob_run_fail(run, 0, "%s pass %zu: %s", iob_phase_name(res->phase), i + 1, res->error);
}

static int end_phase(void *arg, struct iob_run *run, size_t i, struct iob_phase_result *res)
{
	struct run *r = arg;
	const struct iotest_opts *o = r->o;
	int rc = 0;
	r->dropped = 0;
	r->how = "";
	if (res->phase == IOB_PHASE_WRITE && res->status == 0 && !res->interrupted && (o->sync || o->drop)) {
		const char *how;
		if (iob_phase_sync(res, o->sync ? o->sync : IOB_PRIV_SELF, &how) != 0 && o->sync)
			iob_run_note(run, "%s", how);
	}
	iob_time_stamp(r->stamp, sizeof r->stamp);
	if (o->drop && !res->interrupted && !iob_run_stopped(run) && (res->ops || res->status == 0)) {
		drop(r, run, i);
		r->dropped = 1;
	}
	if (res->status == 0 && !res->interrupted)
		rc = check_length(r, run, i, res);
	describe_failure(r, run, i, res);
	return rc;
}

static void record_fields(void *arg, struct iob_run *run, size_t i, const struct iob_phase_result *res,
			  struct iob_recbuf *b)
{
	struct run *r = arg;
	const struct iob_job *j = &r->plan->jobs[i];
	(void)run;
	char shown[IOB_PATH_MAX + 32];
	iob_rec_u64(b, "pass", IOB_UNIT_COUNT, i + 1);
	iob_rec_str(b, "path", iotest_shown_path(j, r->plan->paths[i], shown, sizeof shown));
	iob_rec_u64(b, "pattern_label", IOB_UNIT_NONE, res->pattern_label);
	iob_rec_str(b, "stamp", r->stamp);
	iob_rec_bool(b, "cache_dropped", r->dropped);
	iob_rec_u64_if(b, "mem_free_before_bytes", IOB_UNIT_BYTES, r->dropped, r->before);
	iob_rec_u64_if(b, "mem_free_after_bytes", IOB_UNIT_BYTES, r->dropped, r->after);
	iob_rec_str(b, "drop_method", r->dropped ? r->how : NULL);
	iob_rec_str(b, "comment", r->o->comment);
}

/* Sleep after a write pass; a signal ends it early. */
static void after_phase(void *arg, struct iob_run *run, size_t i, const struct iob_phase_result *res)
{
	struct run *r = arg;
	(void)i;
	if (res->phase == IOB_PHASE_WRITE && res->status == 0 && !res->interrupted && r->o->snooze_s > 0)
		iob_run_sleep(run, r->o->snooze_s);
}

static int output_spec(const struct iotest_opts *o, const struct iob_registry *reg, struct iob_output_spec *spec,
		       char *err, size_t errlen)
{
	if (iob_output_spec_parse(o->format ? o->format : "iotest", reg, spec, err, errlen) != 0)
		return -EINVAL;
	for (size_t i = 0; i < spec->n; i++)
		if (strcmp(spec->item[i].name, "iotest") == 0 && !spec->item[i].args[0])
			snprintf(spec->item[i].args, sizeof spec->item[i].args, "%s%s%s", o->curt ? "curt" : "",
				 o->curt && o->verbose ? "+" : "", o->verbose ? "verbose" : "");
	return 0;
}

int iotest_run(const struct iotest_opts *o, const struct iotest_plan *plan, const struct iob_registry *reg,
	       const char *cmdline)
{
	struct run r = {.o = o, .plan = plan};
	struct iob_output_spec spec;
	char err[2048];
	int code;

	if (output_spec(o, reg, &spec, err, sizeof err) != 0)
		return iob_cli_fail(IOB_EXIT_USAGE, "%s", err);
	r.rb = malloc(sizeof *r.rb);
	if (!r.rb)
		return iob_cli_fail(IOB_EXIT_FAIL, "out of memory");
	const struct iob_run_hooks hooks = {
		.arg = &r,
		.end_phase = end_phase,
		.record_fields = record_fields,
		.after_phase = after_phase,
	};
	const struct iob_run_opts ro = {
		.tool = "iotest",
		.source = cmdline,
		.outputs = &spec,
		.hooks = &hooks,
		.warn_live = 1,
		.hide_job_names = 1,
	};
	struct iob_suite suite = {.njobs = plan->njobs, .jobs = plan->jobs};
	struct iob_run *run = iob_run_open(reg, &ro, &suite, &code);
	if (!run) {
		free(r.rb);
		return code;
	}
	int writes = 0;
	for (size_t i = 0; i < plan->njobs; i++)
		if (plan->jobs[i].phases & IOB_PHASE_BIT(IOB_PHASE_WRITE))
			writes = 1;
	if (writes && o->nosync)
		iob_run_note(run, "%s: written without fsync (-W/-n): the write rate may measure memory, not storage",
			     o->output);
	if (o->comment) {
		iob_rec_reset(r.rb, "comment");
		iob_rec_str(r.rb, "comment", o->comment);
		iob_run_record(run, &r.rb->rec);
	}
	if (o->verbose)
		emit_settings(&r, run);
	if (o->drop && !iob_run_stopped(run))
		emit_initial_drop(&r, run);
	fflush(stdout);
	int status = iob_run_stopped(run) ? 0 : iob_run_suite(run);
	code = iob_run_finish(run, status);
	free(r.rb);
	return code;
}
