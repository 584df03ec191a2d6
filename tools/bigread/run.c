/*
 * run.c - one bigread run (bigread.h): check the input, probe or evict the
 * page cache, read the file once through the core's engine with one sample
 * per block, and hand the core's figures to the outputs as records.
 * Every number printed comes from iobench/series.h; nothing is computed here
 * beyond offsets (running sums of bytes).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bigread.h"
#include "iobench/cli.h"
#include "iobench/engine.h"
#include "iobench/log.h"
#include "iobench/output.h"
#include "iobench/result.h"
#include "iobench/series.h"
#include "iobench/version.h"

#define RESIDENT_NOTE_PCT 10.0 /* the core's threshold for the cache caveat */

struct run {
	struct bigread_args a;
	struct iob_registry *reg;
	const struct iob_loaded *backend;
	struct iob_output_spec spec;
	struct iob_outputs *out;
	struct iob_notes notes;
	struct iob_recbuf rb;
	int is_stdin;
	uint64_t file_size;  /* 0 for standard input */
	uint64_t block_size; /* what the engine reads per call */
	int resident_known;
	double resident_pct; /* of the file, just before the read */
	int evicted;
	char source[1024];
	char err[2048];
	/* blocks reported while the read goes on (iob_speed_stream) */
	struct iob_speed_stream stream;
	size_t emitted;       /* blocks [0, emitted) have their records out */
	uint64_t emitted_off; /* and their bytes */
	int input_emitted;
};

static void join_args(int argc, char **argv, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < argc && used + 1 < len; i++) {
		int n = snprintf(buf + used, len - used, "%s%s", i ? " " : "", argv[i]);
		if (n < 0)
			break;
		used += (size_t)n < len - used ? (size_t)n : len - used - 1;
	}
}

/* Which backend, and can it read this input?  IOB_EXIT_* */
static int pick_backend(struct run *r)
{
	const char *name = r->a.backend ? r->a.backend : r->is_stdin ? "stdio" : "posix";
	r->backend = iob_registry_find(r->reg, IOB_PLUGIN_BACKEND, name);
	if (!r->backend) {
		iob_registry_missing(r->reg, IOB_PLUGIN_BACKEND, name, r->err, sizeof r->err);
		return iob_cli_fail(IOB_EXIT_USAGE, "%s", r->err);
	}
	if (!(r->backend->desc.caps & IOB_CAP_READ))
		return iob_cli_fail(IOB_EXIT_USAGE, "backend '%s' cannot read", name);
	if (r->is_stdin && !(r->backend->desc.caps & IOB_CAP_STREAM))
		return iob_cli_fail(IOB_EXIT_USAGE,
				    "backend '%s' cannot read standard input (stdio and posix can)", name);
	return IOB_EXIT_OK;
}

/* The input is a readable, non-empty file (or a block device when allowed);
 * its size goes to r->file_size.  Opens it once through the backend,
 * outside any timing.  IOB_EXIT_* */
static int check_file(struct run *r)
{
	const char *path = r->a.in;
	enum iob_path_kind k = iob_path_kind(path, 1);
	switch (k) {
	case IOB_PATH_MISSING:
		return iob_cli_fail(IOB_EXIT_USAGE, "%s: no such file", path);
	case IOB_PATH_DIRECTORY:
		return iob_cli_fail(IOB_EXIT_USAGE, "%s is a directory, not a file", path);
	case IOB_PATH_CHARDEV:
		return iob_cli_fail(IOB_EXIT_USAGE,
				    "%s is a character device; bigread reads files and block devices", path);
	case IOB_PATH_OTHER:
		return iob_cli_fail(IOB_EXIT_USAGE,
				    "%s is a fifo or socket; read it as standard input: bigread - < %s", path,
				    path);
	case IOB_PATH_BLOCKDEV:
		if (!r->a.allow_devices)
			return iob_cli_fail(
			    IOB_EXIT_USAGE,
			    "%s is a block device; reading one needs --allow-devices (bigread only reads)",
			    path);
		break;
	default:
		break;
	}
	const struct iob_backend_ops *ops = &r->backend->backend;
	struct iob_open_args oa = {.struct_size = sizeof oa, .path = path, .flags = IOB_OPEN_READ};
	struct iob_file_info info = {.struct_size = sizeof info};
	void *h = NULL;
	int rc = ops->open(&oa, &h);
	if (rc < 0)
		return iob_cli_fail(IOB_EXIT_USAGE, "cannot open %s for reading: %s", path, strerror(-rc));
	rc = ops->info(h, &info);
	ops->close(h);
	if (rc < 0)
		return iob_cli_fail(IOB_EXIT_USAGE, "cannot query %s: %s", path, strerror(-rc));
	if (info.size == 0)
		return iob_cli_fail(IOB_EXIT_USAGE, "%s is empty: there is nothing to read", path);
	r->file_size = info.size;
	return IOB_EXIT_OK;
}

/* Evict when asked, then measure how much of the file is cached. */
static void probe_cache(struct run *r)
{
	const char *path = r->a.in;
	uint64_t res = 0, tot = 0;
	if (r->a.evict) {
		int rc = iob_cache_evict(path);
		if (rc < 0)
			iob_notes_add(&r->notes, "%s: eviction from the page cache failed: %s", path,
				      strerror(-rc));
		else
			r->evicted = 1;
	}
	if (iob_cache_residency(path, &res, &tot) != 0 || tot == 0)
		return;
	r->resident_known = 1;
	r->resident_pct = 100.0 * (double)res / (double)tot;
	if (r->resident_pct < RESIDENT_NOTE_PCT || (r->backend->desc.caps & IOB_CAP_DIRECT))
		return;
	if (r->evicted)
		iob_notes_add(
		    &r->notes,
		    "%s: %.0f%% of it was still in the page cache after eviction (a tmpfs, or pages held "
		    "elsewhere): those blocks measure memory, not the device",
		    path, r->resident_pct);
	else
		iob_notes_add(
		    &r->notes,
		    "%s: %.0f%% of it was in the page cache before the read: those blocks measure memory, "
		    "not the device; rerun with --evict to drop it from the cache first (no root needed)",
		    path, r->resident_pct);
}

static void add_static_notes(struct run *r)
{
	if (r->is_stdin)
		iob_notes_add(&r->notes,
			      "standard input: the speed is that of whatever feeds it (a pipe includes its "
			      "writer and the cache behind it), not of one device, and its cache state is "
			      "unknown");
	if (r->a.clock != IOB_CLOCK_WALL)
		iob_notes_add(
		    &r->notes,
		    "mode=%d times %s CPU time, which leaves out time spent waiting for the device, so a "
		    "slow device can look fast; the wall clock (mode=3, the default) does not",
		    (int)r->a.clock, bigread_clock_name(r->a.clock));
}

static void emit_input(struct run *r)
{
	struct iob_recbuf *b = &r->rb;
	iob_rec_reset(b, BR_REC_INPUT);
	iob_rec_str(b, "file", r->a.in);
	iob_rec_str(b, "backend", r->backend->desc.name);
	iob_rec_u64(b, BR_K_BUFSIZE, IOB_UNIT_BYTES, r->a.bufsize);
	iob_rec_u64(b, "file_size_bytes", IOB_UNIT_BYTES, r->file_size);
	iob_rec_str(b, "clock", bigread_clock_name(r->a.clock));
	iob_rec_u64(b, "clock_resolution_ns", IOB_UNIT_NS, iob_clock_resolution_ns(r->a.clock));
	iob_rec_bool(b, "evicted", r->evicted);
	iob_rec_bool(b, "cache_known", r->resident_known);
	iob_rec_f64(b, "cache_resident_pct", IOB_UNIT_NONE, r->resident_pct);
	iob_outputs_record(r->out, &b->rec);
	r->input_emitted = 1;
}

/* Append the figures of st under keys "<prefix>n", "<prefix>min_bytes_per_s" ... */
static void rec_stats(struct iob_recbuf *b, const char *prefix, const struct iob_stats *st, char names[][40])
{
	const double v[7] = {st->min, st->max, st->mean, st->median, st->rms, st->q1, st->q3};
	static const char *const what[7] = {"min", "max", "mean", "median", "rms", "q1", "q3"};
	snprintf(names[0], 40, "%sn", prefix);
	iob_rec_u64(b, names[0], IOB_UNIT_COUNT, st->n);
	for (size_t i = 0; i < 7; i++) {
		snprintf(names[i + 1], 40, "%s%s_bytes_per_s", prefix, what[i]);
		iob_rec_f64(b, names[i + 1], IOB_UNIT_BYTES_PER_S, v[i]);
	}
}

/* What the core makes of a series: block speeds, summaries, the cliff. */
struct figures {
	size_t n;
	double *speed;
	unsigned char *merged;
	size_t nmerged;
	uint64_t resolution_ns;
	struct iob_stats all, robust;
	struct iob_cliff cliff;
};

static void figures_free(struct figures *f)
{
	free(f->speed);
	free(f->merged);
	f->speed = NULL;
	f->merged = NULL;
}

/* Fill *f from the series (empty samples dropped).  Returns 0, or -errno
 * with a message in r->err. */
static int compute_figures(struct run *r, struct iob_series *s, struct figures *f)
{
	memset(f, 0, sizeof *f);
	f->n = iob_series_drop_empty(s);
	f->resolution_ns = iob_clock_resolution_ns(r->a.clock);
	if (f->n == 0)
		return 0;
	f->speed = malloc(f->n * sizeof *f->speed);
	f->merged = malloc(f->n);
	if (!f->speed || !f->merged) {
		figures_free(f);
		snprintf(r->err, sizeof r->err, "out of memory for %zu block speeds", f->n);
		return -ENOMEM;
	}
	int rc = iob_series_speeds(s, f->resolution_ns, f->speed, f->merged, &f->nmerged);
	if (rc == -ERANGE) {
		snprintf(
		    r->err, sizeof r->err,
		    "the %s CPU clock measured no time at all over %zu block(s), so no speed can be given "
		    "(the kernel splits CPU time into user and system at its scheduler tick, and no tick "
		    "fell there); use mode=2 (process CPU) or mode=3 (wall)",
		    bigread_clock_name(r->a.clock), f->n);
		figures_free(f);
		return rc;
	}
	if (rc == 0)
		rc = iob_stats_compute(f->speed, f->n, &f->all, &f->robust);
	if (rc == 0)
		rc = iob_cliff_find(f->speed, f->n, NULL, &f->cliff);
	if (rc < 0) {
		snprintf(r->err, sizeof r->err, "out of memory for the statistics of %zu blocks", f->n);
		figures_free(f);
	}
	return rc;
}

static void emit_block(struct run *r, size_t i, uint64_t off, uint64_t bytes, uint64_t ns, double speed,
		       int merged)
{
	struct iob_recbuf *b = &r->rb;
	iob_rec_reset(b, BR_REC_BLOCK);
	iob_rec_u64(b, BR_K_INDEX, IOB_UNIT_COUNT, i);
	iob_rec_u64(b, "offset_bytes", IOB_UNIT_BYTES, off);
	iob_rec_u64(b, "bytes", IOB_UNIT_BYTES, bytes);
	iob_rec_u64(b, "time_ns", IOB_UNIT_NS, ns);
	iob_rec_f64(b, BR_K_SPEED, IOB_UNIT_BYTES_PER_S, speed);
	iob_rec_bool(b, "merged", merged);
	iob_outputs_record(r->out, &b->rec);
}

/* The engine's per-block hook: report every block whose speed is final. */
static void stream_blocks(void *arg, const struct iob_series *s)
{
	struct run *r = arg;
	size_t from, to;
	double speed;
	while (iob_speed_stream_next(&r->stream, s, &from, &to, &speed)) {
		if (!r->input_emitted)
			emit_input(r);
		for (size_t i = from; i < to; i++) {
			emit_block(r, i, r->emitted_off, s->bytes[i], s->ns[i], speed, to - from > 1);
			r->emitted_off += s->bytes[i];
		}
		r->emitted = to;
	}
}

/* The "block" records not streamed yet; returns the bytes of all blocks and,
 * in *cliff_off, the offset of the cliff's block. */
static uint64_t emit_blocks(struct run *r, const struct iob_series *s, const struct figures *f,
			    uint64_t *cliff_off)
{
	uint64_t off = 0;
	*cliff_off = 0;
	for (size_t i = 0; i < f->n; i++) {
		if (f->cliff.found && i == f->cliff.block)
			*cliff_off = off;
		if (i >= r->emitted)
			emit_block(r, i, off, s->bytes[i], s->ns[i], f->speed[i], f->merged[i]);
		off += s->bytes[i];
	}
	return off;
}

static void emit_summary(struct run *r, const struct iob_phase_result *pr, const struct figures *f,
			 uint64_t bytes, uint64_t cliff_off)
{
	struct iob_recbuf *b = &r->rb;
	const struct iob_cliff *c = &f->cliff;
	char names[2][8][40];
	iob_rec_reset(b, BR_REC_SUMMARY);
	iob_rec_u64(b, "blocks", IOB_UNIT_COUNT, f->n);
	iob_rec_u64(b, "bytes", IOB_UNIT_BYTES, bytes);
	iob_rec_f64(b, "elapsed_s", IOB_UNIT_S, iob_phase_seconds(pr));
	iob_rec_u64(b, "merged_blocks", IOB_UNIT_COUNT, f->nmerged);
	rec_stats(b, "speed_", &f->all, names[0]);
	rec_stats(b, "robust_", &f->robust, names[1]);
	iob_rec_bool(b, "cliff", c->found);
	iob_rec_u64(b, "cliff_block", IOB_UNIT_COUNT, c->found ? c->block : 0);
	iob_rec_u64(b, "cliff_offset_bytes", IOB_UNIT_BYTES, cliff_off);
	iob_rec_f64(b, "cliff_before_bytes_per_s", IOB_UNIT_BYTES_PER_S, c->found ? c->before : 0.0);
	iob_rec_f64(b, "cliff_after_bytes_per_s", IOB_UNIT_BYTES_PER_S, c->found ? c->after : 0.0);
	iob_rec_f64(b, "cliff_ratio", IOB_UNIT_NONE, c->found ? c->ratio : 0.0);
	iob_rec_str(b, "status", pr->interrupted ? "interrupted" : pr->status < 0 ? "error" : "ok");
	iob_outputs_record(r->out, &b->rec);
}

/* Records for every block and the summary, and the notes they call for.
 * Returns 0, or -errno with a message in r->err. */
static int emit_results(struct run *r, struct iob_phase_result *pr)
{
	struct figures f;
	uint64_t cliff_off;
	int rc = compute_figures(r, &pr->series, &f);
	if (rc < 0)
		return rc;
	uint64_t bytes = emit_blocks(r, &pr->series, &f, &cliff_off);
	if (f.nmerged)
		iob_notes_add(&r->notes,
			      "%zu block(s) took less than the %s clock's resolution (%" PRIu64
			      " ns); each was "
			      "merged with the blocks after it and shows the speed of its group",
			      f.nmerged, bigread_clock_name(r->a.clock), f.resolution_ns);
	if (!f.cliff.found && f.cliff.why && r->a.verbose)
		iob_log(IOB_LOG_INFO, "bigread",
			"no cliff (%s); best candidate: block %zu, %.3f MiB/s before, %.3f after, shares "
			"%.2f/%.2f",
			f.cliff.why, f.cliff.block, f.cliff.before / 1048576.0, f.cliff.after / 1048576.0,
			f.cliff.share_before, f.cliff.share_after);
	emit_summary(r, pr, &f, bytes, cliff_off);
	figures_free(&f);
	return 0;
}

/* Everything after the checks: outputs, the read, the records.  Returns
 * the exit code. */
static int read_and_report(struct run *r)
{
	char err[2048];
	struct iob_cli_run info;
	const char *files[1] = {r->a.in};

	if (iob_outputs_open(&r->out, r->reg, &r->spec, err, sizeof err) != 0)
		return iob_cli_fail(IOB_EXIT_USAGE, "%s", err);
	iob_cli_run_info(&info, "bigread", r->source);
	iob_outputs_begin(r->out, &info.info);

	struct iob_phase_spec spec = {
	    .backend = r->backend,
	    .files = files,
	    .nfiles = 1,
	    .phase = IOB_PHASE_READ,
	    .access = IOB_ACCESS_SEQ,
	    .block_size = r->block_size,
	    .file_size = 0, /* to the end */
	    .loops = 1,
	    .record_series = 1,
	    .series_clock = r->a.clock,
	    .stop = &iob_cli_stop,
	    .on_sample = stream_blocks,
	    .sample_arg = r,
	};
	iob_speed_stream_init(&r->stream, iob_clock_resolution_ns(r->a.clock));
	struct iob_phase_result pr;
	int status = iob_phase_run(&spec, &pr);
	int sig = (int)iob_cli_stop;
	int code = IOB_EXIT_OK;

	r->err[0] = '\0';
	if (status < 0) {
		snprintf(r->err, sizeof r->err, "%s", pr.error);
		code = pr.ops == 0 && status == -EINVAL ? IOB_EXIT_USAGE : IOB_EXIT_FAIL;
	}
	if ((r->backend->desc.caps & IOB_CAP_DIRECT) && !pr.direct && pr.ops)
		iob_notes_add(&r->notes,
			      "backend %s did not report direct I/O in effect: reads may have been cached",
			      r->backend->desc.name);
	if (status >= 0 && pr.bytes == 0 && !sig) {
		snprintf(r->err, sizeof r->err, "%s gave no data: there is nothing to read",
			 r->is_stdin ? "standard input" : r->a.in);
		status = -ENODATA;
		code = IOB_EXIT_USAGE;
	} else if (pr.bytes > 0 || sig) {
		/* the input record comes with the first block, so that an empty
		 * stream prints nothing but its error */
		if (!r->input_emitted)
			emit_input(r);
		int rc = emit_results(r, &pr);
		if (rc < 0 && status >= 0) {
			status = rc;
			code = IOB_EXIT_FAIL;
		}
	}
	iob_phase_result_free(&pr);
	if (sig && !r->err[0])
		snprintf(r->err, sizeof r->err, "interrupted by signal %d", sig);
	/* with nothing read, the caveats have nothing to qualify */
	iob_cli_end_run(r->out, status == -ENODATA ? NULL : &r->notes, status, sig != 0, r->err);
	int crc = iob_outputs_close(r->out);
	r->out = NULL;
	if (sig)
		code = iob_cli_exit_code(status, sig);
	if (code != IOB_EXIT_OK)
		return iob_cli_fail(code, "%s", r->err);
	if (crc < 0)
		return iob_cli_fail(IOB_EXIT_FAIL, "writing the results failed: %s", strerror(-crc));
	return IOB_EXIT_OK;
}

/* The engine's block: bufsize, but no bigger than the file needs (rounded
 * up to a MiB, which keeps any alignment a backend asks for), so a small
 * file does not cost a 1 GiB buffer.  The reads are the same. */
static uint64_t engine_block(const struct run *r)
{
	const uint64_t mib = (uint64_t)1 << 20;
	if (r->is_stdin || r->file_size >= r->a.bufsize)
		return r->a.bufsize;
	uint64_t need = (r->file_size + mib - 1) / mib * mib;
	return need < r->a.bufsize ? need : r->a.bufsize;
}

static int run_checked(struct run *r)
{
	/* from here a signal stops the run and is reported: the cache probe
	 * of a large file can take a while before the read begins */
	iob_cli_trap_signals();
	int code = pick_backend(r);
	if (code != IOB_EXIT_OK)
		return code;
	if (iob_output_spec_parse(r->a.outspec, r->reg, &r->spec, r->err, sizeof r->err) != 0)
		return iob_cli_fail(IOB_EXIT_USAGE, "%s", r->err);
	if (r->is_stdin) {
		if (r->a.evict)
			return iob_cli_fail(IOB_EXIT_USAGE,
					    "--evict needs a file; standard input has no page cache to drop");
	} else {
		if ((code = check_file(r)) != IOB_EXIT_OK)
			return code;
		probe_cache(r);
	}
	add_static_notes(r);
	r->block_size = engine_block(r);
	return read_and_report(r);
}

int bigread_main(int argc, char **argv)
{
	char err[1024];
	struct run *r = calloc(1, sizeof *r);
	int code;

	iob_log_set_program("bigread");
	if (!r)
		return iob_cli_fail(IOB_EXIT_FAIL, "out of memory");
	if (bigread_parse_args(argc, argv, &r->a, err, sizeof err) != 0) {
		free(r);
		return iob_cli_fail(IOB_EXIT_USAGE, "%s (see bigread --help)", err);
	}
	if (r->a.help) {
		bigread_usage(stdout);
		free(r);
		return IOB_EXIT_OK;
	}
	if (r->a.version) {
		printf("bigread (iobench) %s (plugin ABI %d.%d)\n", IOB_VERSION, IOB_ABI_MAJOR,
		       IOB_ABI_MINOR);
		free(r);
		return IOB_EXIT_OK;
	}
	if (!r->a.have_in) {
		free(r);
		return iob_cli_fail(IOB_EXIT_USAGE,
				    "no input: give in=FILE, or - for standard input (see bigread --help)");
	}
	if (r->a.verbose)
		iob_log_set_level(IOB_LOG_DEBUG);
	r->is_stdin = strcmp(r->a.in, "-") == 0;
	join_args(argc, argv, r->source, sizeof r->source);
	r->reg = calloc(1, sizeof *r->reg);
	if (!r->reg) {
		free(r);
		return iob_cli_fail(IOB_EXIT_FAIL, "out of memory");
	}
	iob_registry_load(r->reg, r->a.plugin_dirs, r->a.nplugin_dirs);
	iob_registry_add_static(r->reg, &bigread_legacy_plugin);
	iob_cli_report_load_errors(r->reg);
	code = run_checked(r);
	iob_registry_unload(r->reg);
	free(r->reg);
	free(r);
	return code;
}
