/*
 * run.c - runs iotest's passes on the engine (iotest.h).
 *
 * Per pass: a cache-residency probe before reads (one caveat line on stderr
 * when the file is already in memory, else when it is smaller than twice
 * physical memory), one engine phase (the core times it:
 * opens, I/O, fsync, close), then with -y/-Y or -d/-D a sync(2) whose time is
 * added to the write pass (the original issued it before closing, inside the
 * timed region), the end-of-pass stamp, with -d/-D the cache drop (not timed)
 * with free memory before and after, one "iotest" record to the outputs, and
 * with -z a sleep after each write pass.  A verify mismatch, an I/O error or
 * a signal ends the run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>
#include <time.h>

#include "iobench/cli.h"
#include "iobench/engine.h"
#include "iobench/log.h"
#include "iobench/output.h"
#include "iobench/result.h"
#include "iobench/runner.h"
#include "iobench/version.h"
#include "iotest.h"

struct run {
	const struct iotest_opts *o;
	const struct iotest_plan *plan;
	const struct iob_registry *reg;
	const struct iob_loaded *backend;
	struct iob_outputs *out;
	struct iob_notes *notes;
	struct iob_recbuf *rb;
	size_t notes_printed;
	int fallback_noted;
	char host[256];
	char error[2048];
};

/* Caveats go to stderr as they arise; stdout keeps the legacy shape. */
static void print_new_notes(struct run *run)
{
	if (run->notes_printed == run->notes->n)
		return;
	fflush(stdout);
	for (; run->notes_printed < run->notes->n; run->notes_printed++)
		fprintf(stderr, "iotest: warning: %s\n", run->notes->text[run->notes_printed]);
}

static enum iob_phase job_phase(const struct iob_job *j)
{
	if (j->phases & IOB_PHASE_BIT(IOB_PHASE_WRITE))
		return IOB_PHASE_WRITE;
	return (j->phases & IOB_PHASE_BIT(IOB_PHASE_READ)) ? IOB_PHASE_READ : IOB_PHASE_VERIFY;
}

static const char *priv_name(enum iotest_priv p)
{
	return p == IOTEST_PRIV_SUDO ? "sudo" : p == IOTEST_PRIV_DIRECT ? "yes" : "no";
}

static void emit_settings(struct run *run)
{
	const struct iotest_opts *o = run->o;
	const struct iotest_plan *p = run->plan;
	char plan[4096] = "", pat[64];
	for (size_t i = 0; i < p->njobs; i++) {
		size_t l = strlen(plan);
		const struct iob_job *j = &p->jobs[i];
		iob_pattern_name(&j->pattern, pat, sizeof pat);
		snprintf(plan + l, sizeof plan - l, "%s%s %s", l ? ", " : "", iob_phase_name(job_phase(j)), pat);
	}
	iob_rec_reset(run->rb, "iotest_settings");
	iob_rec_str(run->rb, "tool", "iotest");
	iob_rec_str(run->rb, "version", IOB_VERSION);
	iob_rec_str(run->rb, "host", run->host);
	iob_rec_str(run->rb, "file", o->output);
	iob_rec_str(run->rb, "input", o->input);
	iob_rec_u64(run->rb, "passes", IOB_UNIT_COUNT, p->njobs);
	iob_rec_u64(run->rb, "size_bytes", IOB_UNIT_BYTES, p->size);
	iob_rec_u64(run->rb, "block_size_bytes", IOB_UNIT_BYTES, p->block);
	iob_rec_str(run->rb, "plan", plan);
	iob_rec_u64(run->rb, "seed", IOB_UNIT_NONE, o->seed);
	iob_rec_bool(run->rb, "fsync", !o->nosync);
	iob_rec_str(run->rb, "backend", o->backend);
	iob_rec_str(run->rb, "drop_caches", priv_name(o->drop));
	iob_rec_str(run->rb, "sync", priv_name(o->sync));
	iob_rec_f64(run->rb, "snooze_s", IOB_UNIT_S, o->snooze_s);
	iob_outputs_record(run->out, &run->rb->rec);
	if (p->rounded)
		iob_notes_add(run->notes, "size rounded up to %llu bytes, a whole number of %llu-byte blocks",
			      (unsigned long long)p->size, (unsigned long long)p->block);
}

/* Drop caches (or evict the file) with free memory before and after. */
static void drop(struct run *run, const char *path, uint64_t *before, uint64_t *after, const char **how)
{
	*before = iob_free_memory();
	int rc = iotest_drop_caches(run->o->drop, path, how);
	*after = iob_free_memory();
	if (rc != 0 && !run->fallback_noted) {
		run->fallback_noted = 1;
		const char *why = iob_is_root() ? "writing /proc/sys/vm/drop_caches failed"
				  : run->o->drop == IOTEST_PRIV_SUDO ? "drop caches needs root and 'sudo -n' did not work"
								     : "drop caches needs root (or -D with sudo)";
		iob_notes_add(run->notes, "%s: evicting only %s from the page cache (posix_fadvise) instead", why,
			      path);
	}
}

static void emit_initial_drop(struct run *run)
{
	uint64_t before, after;
	const char *how;
	drop(run, run->plan->paths[0], &before, &after, &how);
	iob_rec_reset(run->rb, "cache_drop");
	iob_rec_str(run->rb, "host", run->host);
	iob_rec_str(run->rb, "when", "start");
	iob_rec_str(run->rb, "method", how);
	iob_rec_u64(run->rb, "mem_free_before_bytes", IOB_UNIT_BYTES, before);
	iob_rec_u64(run->rb, "mem_free_after_bytes", IOB_UNIT_BYTES, after);
	iob_outputs_record(run->out, &run->rb->rec);
}

static const char *status_name(const struct iob_phase_result *r)
{
	if (r->interrupted)
		return "interrupted";
	if (r->status == IOB_STATUS_MISMATCH)
		return "mismatch";
	return r->status < 0 ? "error" : "ok";
}

struct pass_extra {
	const char *stamp;
	int dropped;
	uint64_t before, after;
	const char *how;
};

static void emit_pass(struct run *run, size_t i, const struct iob_phase_result *r, const struct pass_extra *x)
{
	const struct iob_job *j = &run->plan->jobs[i];
	char pat[64];
	iob_pattern_name(&j->pattern, pat, sizeof pat);
	struct iob_recbuf *b = run->rb;
	iob_rec_reset(b, "iotest");
	iob_rec_str(b, "host", run->host);
	iob_rec_u64(b, "pass", IOB_UNIT_COUNT, i + 1);
	iob_rec_str(b, "op", iob_phase_name(r->phase));
	iob_rec_str(b, "file", run->plan->paths[i]);
	iob_rec_u64(b, "bytes", IOB_UNIT_BYTES, r->bytes);
	iob_rec_u64(b, "size_bytes", IOB_UNIT_BYTES, j->size);
	iob_rec_u64(b, "block_size_bytes", IOB_UNIT_BYTES, r->block_size);
	iob_rec_str(b, "pattern", pat);
	iob_rec_u64(b, "pattern_label", IOB_UNIT_NONE, iob_pattern_label(&j->pattern));
	iob_rec_u64(b, "seed", IOB_UNIT_NONE, j->pattern.seed);
	iob_rec_f64(b, "elapsed_s", IOB_UNIT_S, iob_phase_seconds(r));
	iob_rec_f64(b, "bw_bytes_per_s", IOB_UNIT_BYTES_PER_S, iob_phase_bw(r));
	iob_rec_u64(b, "ops", IOB_UNIT_OPS, r->ops);
	iob_rec_f64(b, "sync_s", IOB_UNIT_S, (double)r->sync_ns / 1e9);
	if (r->hist)
		iob_rec_lat(b, "lat_ns", r->hist);
	iob_rec_bool(b, "fsync", r->phase == IOB_PHASE_WRITE && j->fsync);
	iob_rec_bool(b, "truncate", r->phase == IOB_PHASE_WRITE && j->truncate);
	iob_rec_u64(b, "verify_bad_blocks", IOB_UNIT_COUNT, r->bad_blocks);
	iob_rec_u64(b, "first_bad_offset", IOB_UNIT_BYTES, r->bad_blocks ? r->first_bad_offset : 0);
	iob_rec_u64(b, "expected_byte", IOB_UNIT_NONE, r->bad_blocks ? r->expected : 0);
	iob_rec_u64(b, "found_byte", IOB_UNIT_NONE, r->bad_blocks ? r->found : 0);
	iob_rec_str(b, "stamp", x->stamp);
	iob_rec_bool(b, "cache_dropped", x->dropped);
	iob_rec_u64(b, "mem_free_before_bytes", IOB_UNIT_BYTES, x->before);
	iob_rec_u64(b, "mem_free_after_bytes", IOB_UNIT_BYTES, x->after);
	iob_rec_str(b, "drop_method", x->dropped ? x->how : NULL);
	iob_rec_str(b, "comment", run->o->comment);
	iob_rec_str(b, "status", status_name(r));
	iob_outputs_record(run->out, &b->rec);
}

/* Sleep after a write pass; a signal ends it early. */
static void snooze(double seconds)
{
	struct timespec ts = {.tv_sec = (time_t)seconds,
			      .tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9)};
	while ((ts.tv_sec > 0 || ts.tv_nsec > 0) && !iob_cli_stop)
		if (thrd_sleep(&ts, &ts) == 0)
			break;
}

/* Before a read or verify: one caveat when the file is already in memory,
 * else when it is small enough to be. */
static void probe_cache(struct run *run, size_t i, enum iob_phase phase, const struct iob_filelist *fl)
{
	char what[IOB_PATH_MAX + 16];
	if (phase == IOB_PHASE_WRITE || (run->backend->desc.caps & IOB_CAP_DIRECT))
		return;
	snprintf(what, sizeof what, "%s of %s", phase == IOB_PHASE_READ ? "read" : "verify", run->plan->paths[i]);
	uint64_t res = 0, tot = 0;
	if (iob_cache_residency(fl->paths[0], &res, &tot) == 0 && tot && res * 10 >= tot)
		iob_cache_residency_note(run->notes, what, (const char *const *)fl->paths, fl->n);
	else
		iob_cache_memory_note(run->notes, run->plan->paths[i], run->plan->jobs[i].size);
	print_new_notes(run);
}

/* -y/-Y or -d/-D after a write: write everything back, timed as part of the
 * pass (the original did it before closing, inside its timed region). */
static void sync_after_write(struct run *run, struct iob_phase_result *r)
{
	const char *how;
	uint64_t t0 = iob_now_ns();
	if (run->o->sync && iotest_sync(run->o->sync, &how) != 0)
		iob_notes_add(run->notes, "%s", how);
	else if (!run->o->sync)
		iob_sync_all();
	uint64_t dt = iob_now_ns() - t0;
	r->elapsed_ns += dt;
	r->sync_ns += dt;
}

/* A read of a short file is noted; a verify of one fails. */
static int check_length(struct run *run, size_t i, enum iob_phase phase, const struct iob_phase_result *r)
{
	const struct iob_job *j = &run->plan->jobs[i];
	if (phase == IOB_PHASE_WRITE || r->bytes >= j->size)
		return 0;
	if (phase == IOB_PHASE_READ) {
		iob_notes_add(run->notes, "read of %s: only %llu of %llu bytes: the file is shorter than the size",
			      run->plan->paths[i], (unsigned long long)r->bytes, (unsigned long long)j->size);
		return 0;
	}
	snprintf(run->error, sizeof run->error,
		 "verify of %s failed (pass %zu): the file holds only %llu of the %llu bytes expected",
		 run->plan->paths[i], i + 1, (unsigned long long)r->bytes, (unsigned long long)j->size);
	return IOB_STATUS_MISMATCH;
}

static void describe_failure(struct run *run, size_t i, enum iob_phase phase, const struct iob_phase_result *r)
{
	const struct iob_job *j = &run->plan->jobs[i];
	if (r->status == IOB_STATUS_MISMATCH)
		snprintf(run->error, sizeof run->error,
			 "verify of %s failed (pass %zu, pattern 0x%02x): %llu bad block(s) of %llu bytes; first bad "
			 "byte at offset %llu: expected 0x%02x, found 0x%02x",
			 run->plan->paths[i], i + 1, iob_pattern_label(&j->pattern), (unsigned long long)r->bad_blocks,
			 (unsigned long long)j->block_size, (unsigned long long)r->first_bad_offset, r->expected,
			 r->found);
	else if (r->status < 0)
		snprintf(run->error, sizeof run->error, "%s pass %zu: %s", iob_phase_name(phase), i + 1, r->error);
}

/* One pass; returns 0, IOB_STATUS_MISMATCH or -errno; sets *stopped. */
static int one_pass(struct run *run, size_t i, int *stopped)
{
	const struct iotest_opts *o = run->o;
	const struct iob_job *j = &run->plan->jobs[i];
	enum iob_phase phase = job_phase(j);
	struct iob_filelist fl;
	struct iob_phase_result r;
	struct pass_extra x = {.how = ""};
	char stamp[32];

	int rc = iob_job_files(j, &fl);
	if (rc) {
		snprintf(run->error, sizeof run->error, "out of memory");
		return rc;
	}
	probe_cache(run, i, phase, &fl);
	struct iob_phase_spec spec = {
		.backend = run->backend,
		.files = (const char *const *)fl.paths,
		.nfiles = fl.n,
		.phase = phase,
		.access = IOB_ACCESS_SEQ,
		.block_size = j->block_size,
		.file_size = j->size,
		.loops = 1,
		.pattern = j->pattern,
		.seed = j->seed,
		.fsync = j->fsync,
		.truncate = j->truncate,
		.stop = &iob_cli_stop,
	};
	rc = iob_phase_run(&spec, &r);
	if (phase == IOB_PHASE_WRITE && rc == 0 && !r.interrupted && (o->sync || o->drop))
		sync_after_write(run, &r);
	iob_time_stamp(stamp, sizeof stamp);
	x.stamp = stamp;
	if (o->drop && !r.interrupted && !iob_cli_stop && (r.ops || rc == 0)) {
		drop(run, fl.paths[0], &x.before, &x.after, &x.how);
		x.dropped = 1;
	}
	if (rc == 0 && !r.interrupted)
		rc = check_length(run, i, phase, &r);
	if (r.ops || rc == 0 || r.interrupted || rc == IOB_STATUS_MISMATCH)
		emit_pass(run, i, &r, &x);
	fflush(stdout);
	print_new_notes(run);
	describe_failure(run, i, phase, &r);
	*stopped = r.interrupted;
	iob_phase_result_free(&r);
	iob_filelist_free(&fl);
	if (rc == 0 && phase == IOB_PHASE_WRITE && o->snooze_s > 0)
		snooze(o->snooze_s);
	return rc;
}

static int open_outputs(struct run *run, char *err, size_t errlen)
{
	struct iob_output_spec spec;
	const struct iotest_opts *o = run->o;
	if (iob_output_spec_parse(o->format ? o->format : "iotest", run->reg, &spec, err, errlen) != 0)
		return -EINVAL;
	for (size_t i = 0; i < spec.n; i++)
		if (strcmp(spec.item[i].name, "iotest") == 0 && !spec.item[i].args[0])
			snprintf(spec.item[i].args, sizeof spec.item[i].args, "%s%s%s", o->curt ? "curt" : "",
				 o->curt && o->verbose ? "+" : "", o->verbose ? "verbose" : "");
	return iob_outputs_open(&run->out, run->reg, &spec, err, errlen);
}

int iotest_run(const struct iotest_opts *o, const struct iotest_plan *plan, const struct iob_registry *reg,
	       const char *cmdline)
{
	struct run run = {.o = o, .plan = plan, .reg = reg};
	struct iob_cli_run info;
	char err[2048];
	int status = 0, stopped = 0, code;

	run.backend = iob_registry_find(reg, IOB_PLUGIN_BACKEND, o->backend);
	run.notes = calloc(1, sizeof *run.notes);
	run.rb = malloc(sizeof *run.rb);
	if (!run.backend || !run.notes || !run.rb) {
		free(run.notes);
		free(run.rb);
		return iob_cli_fail(IOB_EXIT_FAIL, "%s", run.backend ? "out of memory" : "backend not loaded");
	}
	if (open_outputs(&run, err, sizeof err) != 0) {
		free(run.notes);
		free(run.rb);
		return iob_cli_fail(IOB_EXIT_USAGE, "%s", err);
	}
	iob_cli_trap_signals();
	iob_cli_run_info(&info, "iotest", cmdline);
	snprintf(run.host, sizeof run.host, "%s", info.host);
	iob_outputs_begin(run.out, &info.info);

	int writes = 0;
	for (size_t i = 0; i < plan->njobs; i++)
		if (plan->jobs[i].phases & IOB_PHASE_BIT(IOB_PHASE_WRITE))
			writes = 1;
	if (writes && o->nosync)
		iob_notes_add(run.notes, "%s: written without fsync (-W/-n): the write rate may measure memory, not storage",
			      o->output);
	if (o->comment) {
		iob_rec_reset(run.rb, "comment");
		iob_rec_str(run.rb, "comment", o->comment);
		iob_outputs_record(run.out, &run.rb->rec);
	}
	if (o->verbose)
		emit_settings(&run);
	if (o->drop && !iob_cli_stop)
		emit_initial_drop(&run);
	fflush(stdout);
	print_new_notes(&run);
	for (size_t i = 0; i < plan->njobs && status == 0 && !stopped && !iob_cli_stop; i++)
		status = one_pass(&run, i, &stopped);
	int sig = (int)iob_cli_stop;
	if (sig && !run.error[0])
		snprintf(run.error, sizeof run.error, "interrupted by signal %d", sig);
	iob_cli_end_run(run.out, run.notes, status, sig != 0, run.error);
	int crc = iob_outputs_close(run.out);
	print_new_notes(&run);
	code = iob_cli_exit_code(status, sig);
	if (status != 0 || sig)
		iob_cli_fail(code, "%s", run.error);
	else if (crc < 0)
		code = iob_cli_fail(IOB_EXIT_FAIL, "writing the results failed: %s", strerror(-crc));
	free(run.notes);
	free(run.rb);
	return code;
}
