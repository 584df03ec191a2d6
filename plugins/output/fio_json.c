/*
 * fio_json.c - the "fio-json" output (plugin name fio_json): one document
 * per run in the shape fio 3.x writes with --output-format=json, so scripts
 * and tools written for fio read it; with the argument `plus`
 * (--output fio-json:plus) also each latency's histogram as fio's json+
 * "bins".  Field names and formats: docs/outputs.md, "fio-json".
 *
 *   {"fio version":"iobench-V","timestamp":S,"timestamp_ms":MS,"time":"..",
 *    "jobs":[ one per "phase" record, and per "meta" record of a phase
 *             fio has an engine for: create, stat, remove ],
 *    "iobench":{run facts, notes, status}}
 *
 * A job is one phase record (the aggregate of its streams or ranks): its
 * direction (write -> "write"; read and verify -> "read"; mixed -> both)
 * gets io_bytes, io_kbytes, bw_bytes, bw (KiB/s), iops, runtime (ms),
 * total_ios, short_ios, drop_ios, slat_ns, clat_ns and lat_ns; the other
 * directions and trim are zeros, as fio writes a direction without I/O.
 * The record itself, every field, goes in the job's "iobench" member.
 * Nothing is measured or estimated here: every figure is the record's,
 * scaled (bytes to KiB, seconds to ms) or divided as fio defines it.
 *
 * The document is built in memory and written whole at end_run (or at
 * close, with "status":"error" in its iobench member, when the run ended
 * without a result).  After the sink fails, every call returns that error.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/plugin.h"
#include "jsonval.h"
#include "textbuf.h"

#define FJ_NAME "fio_json"
#define FJ_NO_RESULT "run ended without a result"
/* fio's largest latency bin (ns): fio's own histogram folds every longer
 * latency into it, and fio_jsonplus_clat2csv loops forever on a larger key */
#define FJ_MAX_BIN_NS UINT64_C(17112760320)

#define FJ_RUN_INFO_V1_SIZE (offsetof(struct iob_run_info, source) + sizeof(const char *))
#define FJ_RUN_END_V1_SIZE (offsetof(struct iob_run_end, notes) + sizeof(const char *const *))

static const struct iob_host *fj_host;

/* fio's bw and iops samples: the interval records of one job's phase, as
 * they come before its phase record (one sample each: KiB/s, IOPS) */
struct fj_stat {
	uint64_t n;
	double sum, sumsq, min, max;
};

struct fj_samples {
	char job[256], phase[32]; /* whose ("" none) */
	struct fj_stat bw, iops;
};

/* steady state rounds (phase records with a "round" key) of the job being
 * run, for fio's "steadystate" member (data: the window's iops and bw) */
struct fj_rounds {
	char job[256], phase[32];
	size_t n, cap;
	double *bw, *iops;
};

struct fj_state {
	struct textbuf_out o; /* first: the sink, where the run is, its error (textbuf.h) */
	struct fj_samples samples;
	struct fj_rounds rounds;
	int plus; /* json+: bins */
	size_t njobs;
	struct textbuf head; /* "fio version" .. "jobs":[ */
	struct textbuf jobs; /* the job objects so far */
	struct textbuf run;  /* the run facts for the iobench member */
	struct textbuf out;
};

#define fj_log(level, ...) textbuf_log(fj_host, FJ_NAME, level, __VA_ARGS__)

/* ------------------------------------------------------------------------ */
/* The run's start time, from the ISO 8601 text the core hands over.         */

/* Days since 1970-01-01 of a proleptic Gregorian date. */
static int64_t days_of(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* "2024-05-01T10:00:00+0200" (or +02:00, or Z): the Unix time, and fio's
 * "time" text of the same local time ("Wed May  1 10:00:00 2024").  0 when
 * the text is not of that form. */
static int parse_started(const char *s, int64_t *unix_s, char *text, size_t textlen)
{
	static const char *const wd[] = {"Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"};
	static const char *const mon[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
					  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
	int y, mo, d, h, mi, se, n = 0;
	if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &se, &n) != 6 || mo < 1 ||
	    mo > 12 || d < 1 || d > 31)
		return 0;
	const char *z = s + n;
	int off = 0;
	if (*z == '+' || *z == '-') {
		int oh = 0, om = 0;
		if (sscanf(z + 1, "%2d:%2d", &oh, &om) != 2 && sscanf(z + 1, "%2d%2d", &oh, &om) != 2)
			return 0;
		off = (oh * 60 + om) * 60 * (*z == '-' ? -1 : 1);
	} else if (*z != 'Z' && *z != '\0') {
		return 0;
	}
	int64_t days = days_of(y, mo, d);
	*unix_s = days * 86400 + h * 3600 + mi * 60 + se - off;
	int w = (int)(((days % 7) + 7) % 7);
	snprintf(text, textlen, "%s %s %2d %02d:%02d:%02d %d", wd[w], mon[mo - 1], d, h, mi, se, y);
	return 1;
}

/* ------------------------------------------------------------------------ */
/* Reading a record.                                                         */

static const struct iob_field *field(const struct iob_record *r, const char *key)
{
	for (size_t i = 0; i < r->nfields; i++)
		if (r->fields[i].key && strcmp(r->fields[i].key, key) == 0)
			return &r->fields[i];
	return NULL;
}

static uint64_t get_u64(const struct iob_record *r, const char *key)
{
	const struct iob_field *f = field(r, key);
	if (!f)
		return 0;
	if (f->type == IOB_T_U64)
		return f->v.u;
	if (f->type == IOB_T_I64)
		return f->v.i > 0 ? (uint64_t)f->v.i : 0;
	return 0;
}

static double get_f64(const struct iob_record *r, const char *key)
{
	const struct iob_field *f = field(r, key);
	return f && f->type == IOB_T_F64 && isfinite(f->v.f) ? f->v.f : 0.0;
}

static const char *get_str(const struct iob_record *r, const char *key)
{
	const struct iob_field *f = field(r, key);
	return f && f->type == IOB_T_STR ? f->v.s : NULL;
}

static const struct iob_latency *get_lat(const struct iob_record *r, const char *key)
{
	const struct iob_field *f = field(r, key);
	return f && f->type == IOB_T_LAT ? f->v.lat : NULL;
}

/* ------------------------------------------------------------------------ */
/* Writing a job.                                                            */

static void put_u64_member(struct textbuf *b, const char *key, uint64_t v)
{
	textbuf_printf(b, "\"%s\":%" PRIu64, key, v);
}

/* fio prints its doubles with 6 decimals */
static void put_f6_member(struct textbuf *b, const char *key, double v)
{
	textbuf_printf(b, "\"%s\":%.6f", key, isfinite(v) ? v : 0.0);
}

/* latency_target's search, as fio writes it when it searched: the depth, the
 * target (ns), the percentile and the window (us, fio's unit), and current
 * fio's _ns and _us twins. */
static void put_lat_search(struct textbuf *b, const struct iob_record *r)
{
	if (!field(r, "latency_depth"))
		return;
	const char *pct = get_str(r, "latency_percentile");
	const uint64_t target = get_u64(r, "latency_target_ns"), window_us = get_u64(r, "latency_window_ns") / 1000;
	textbuf_add(b, ",", 1);
	put_u64_member(b, "latency_depth", get_u64(r, "latency_depth"));
	textbuf_add(b, ",", 1);
	put_u64_member(b, "latency_target", target);
	textbuf_add(b, ",", 1);
	put_u64_member(b, "latency_target_ns", target);
	textbuf_add(b, ",", 1);
	put_f6_member(b, "latency_percentile", pct ? strtod(pct, NULL) : 100.0);
	textbuf_add(b, ",", 1);
	put_u64_member(b, "latency_window", window_us);
	textbuf_add(b, ",", 1);
	put_u64_member(b, "latency_window_us", window_us);
}

static int bins_available(const struct iob_latency *l)
{
	return fj_host && fj_host->abi_minor >= 2 && l->nbins && l->bin_ns && l->bin_count;
}

/* fio's latency object: min, max, mean, stddev, N, then percentile (and
 * the bins when asked) when there are samples. */
static void put_lat(struct textbuf *b, const char *key, const struct iob_latency *l, int bins)
{
	textbuf_printf(b, "\"%s\":{", key);
	if (!l || !l->count) {
		textbuf_str(b, "\"min\":0,\"max\":0,\"mean\":0.000000,\"stddev\":0.000000,\"N\":0}");
		return;
	}
	put_u64_member(b, "min", l->min);
	textbuf_add(b, ",", 1);
	put_u64_member(b, "max", l->max);
	textbuf_add(b, ",", 1);
	put_f6_member(b, "mean", l->mean);
	textbuf_add(b, ",", 1);
	put_f6_member(b, "stddev", l->stddev);
	textbuf_add(b, ",", 1);
	put_u64_member(b, "N", l->count);
	if (l->npct && l->pct && l->value) {
		textbuf_str(b, ",\"percentile\":{");
		for (size_t i = 0; i < l->npct; i++)
			textbuf_printf(b, "%s\"%f\":%" PRIu64, i ? "," : "",
				       isfinite(l->pct[i]) ? l->pct[i] : 0.0, l->value[i]);
		textbuf_add(b, "}", 1);
	}
	if (bins && bins_available(l)) {
		textbuf_str(b, ",\"bins\":{");
		uint64_t folded = 0;
		for (size_t i = 0; i < l->nbins; i++) {
			if (l->bin_ns[i] >= FJ_MAX_BIN_NS) {
				folded += l->bin_count[i];
				continue;
			}
			textbuf_printf(b, "%s\"%" PRIu64 "\":%" PRIu64, i ? "," : "", l->bin_ns[i],
				       l->bin_count[i]);
		}
		if (folded)
			textbuf_printf(b, "%s\"%" PRIu64 "\":%" PRIu64,
				       l->bin_ns[0] < FJ_MAX_BIN_NS ? "," : "", FJ_MAX_BIN_NS, folded);
		textbuf_add(b, "}", 1);
	}
	textbuf_add(b, "}", 1);
}

static void stat_add(struct fj_stat *s, double v)
{
	if (!s->n || v < s->min)
		s->min = v;
	if (!s->n || v > s->max)
		s->max = v;
	s->n++;
	s->sum += v;
	s->sumsq += v * v;
}

/* An interval record: one bw and one iops sample of its job's phase. */
static void samples_add(struct fj_samples *sm, const struct iob_record *r)
{
	const char *job = get_str(r, "job"), *phase = get_str(r, "phase");
	if (!job || !phase)
		return;
	if (strcmp(sm->job, job) != 0 || strcmp(sm->phase, phase) != 0) {
		memset(sm, 0, sizeof *sm);
		snprintf(sm->job, sizeof sm->job, "%s", job);
		snprintf(sm->phase, sizeof sm->phase, "%s", phase);
	}
	stat_add(&sm->bw, get_f64(r, "bw_bytes_per_s") / 1024);
	stat_add(&sm->iops, get_f64(r, "ops_per_s"));
}

/* min, max, mean, dev (sample standard deviation, as fio's) and samples,
 * under fio's names for them; zeros without samples */
static void put_stat(struct textbuf *b, const char *p, const char *dev, const struct fj_stat *s, int agg)
{
	double mean = s->n ? s->sum / (double)s->n : 0.0, var = 0.0;
	if (s->n > 1) {
		var = (s->sumsq - s->sum * mean) / (double)(s->n - 1);
		var = var > 0 ? var : 0.0;
	}
	textbuf_printf(b, ",\"%s_min\":%" PRIu64 ",\"%s_max\":%" PRIu64, p,
		       s->n ? (uint64_t)llround(s->min) : 0, p, s->n ? (uint64_t)llround(s->max) : 0);
	if (agg)
		textbuf_printf(b, ",\"%s_agg\":0.000000", p);
	textbuf_printf(b, ",\"%s_mean\":%.6f,\"%s_%s\":%.6f,\"%s_samples\":%" PRIu64, p, mean, p, dev,
		       sqrt(var), p, s->n);
}

/* What a direction's object is made of. */
struct fj_dir {
	uint64_t bytes, ops, short_ops;
	const struct iob_latency *lat;
	const struct fj_samples *samples; /* NULL: none for this direction */
};

/* One direction's object: what fio writes for read, write and trim. */
static void put_dir(struct textbuf *b, const char *name, const struct fj_dir *dir, double elapsed_s, int plus)
{
	static const struct fj_samples none;
	uint64_t bytes = dir->bytes, ops = dir->ops, short_ops = dir->short_ops;
	const struct iob_latency *lat = dir->lat;
	const struct fj_samples *sm = dir->samples ? dir->samples : &none;
	int any = ops > 0 && elapsed_s > 0;
	double bw = any ? (double)bytes / elapsed_s : 0.0;
	textbuf_printf(b, "\"%s\":{", name);
	put_u64_member(b, "io_bytes", bytes);
	textbuf_add(b, ",", 1);
	put_u64_member(b, "io_kbytes", bytes / 1024);
	textbuf_add(b, ",", 1);
	put_u64_member(b, "bw_bytes", (uint64_t)bw);
	textbuf_add(b, ",", 1);
	put_u64_member(b, "bw", (uint64_t)(bw / 1024));
	textbuf_add(b, ",", 1);
	put_f6_member(b, "iops", any ? (double)ops / elapsed_s : 0.0);
	textbuf_add(b, ",", 1);
	put_u64_member(b, "runtime", any ? (uint64_t)llround(elapsed_s * 1000) : 0);
	textbuf_add(b, ",", 1);
	put_u64_member(b, "total_ios", ops);
	textbuf_add(b, ",", 1);
	put_u64_member(b, "short_ios", short_ops);
	textbuf_str(b, ",\"drop_ios\":0,");
	put_lat(b, "slat_ns", NULL, 0);
	textbuf_add(b, ",", 1);
	put_lat(b, "clat_ns", any ? lat : NULL, plus);
	textbuf_add(b, ",", 1);
	put_lat(b, "lat_ns", any ? lat : NULL, 0); /* fio's json+ bins are clat's */
	/* fio's statistics of its bw and iops log samples: the intervals' */
	put_stat(b, "bw", "dev", &sm->bw, 1);
	put_stat(b, "iops", "stddev", &sm->iops, 0);
	textbuf_add(b, "}", 1);
}

/* A job option as fio prints one: a string. */
static void put_option(struct textbuf *b, int *n, const char *key, const char *value)
{
	if (!value)
		return;
	textbuf_str(b, (*n)++ ? "," : "");
	jsonval_str(b, key);
	textbuf_add(b, ":", 1);
	jsonval_str(b, value);
}

static void put_job_options(struct textbuf *b, const struct iob_record *r, const char *phase)
{
	char num[32];
	int n = 0;
	const char *access = get_str(r, "access");
	int rnd = access && strcmp(access, "random") == 0;
	const char *rw = strcmp(phase, "write") == 0   ? (rnd ? "randwrite" : "write")
			 : strcmp(phase, "mixed") == 0 ? (rnd ? "randrw" : "rw")
						       : (rnd ? "randread" : "read");
	textbuf_str(b, "\"job options\":{");
	put_option(b, &n, "name", get_str(r, "job"));
	put_option(b, &n, "filename", get_str(r, "file"));
	put_option(b, &n, "rw", rw);
	snprintf(num, sizeof num, "%" PRIu64, get_u64(r, "block_size_bytes"));
	put_option(b, &n, "bs", num);
	snprintf(num, sizeof num, "%" PRIu64, get_u64(r, "size_bytes"));
	put_option(b, &n, "size", num);
	put_option(b, &n, "ioengine", get_str(r, "backend"));
	const struct iob_field *d = field(r, "direct");
	if (d && d->type == IOB_T_BOOL)
		put_option(b, &n, "direct", d->v.b ? "1" : "0");
	textbuf_add(b, "}", 1);
}

/* A "meta" record's phase that fio has an engine for (fio's filecreate,
 * filestat, filedelete: an I/O is a file made, statted or removed, counted
 * as a read), or NULL: mkdir, dirstat, write, open, read and rmdir of a files job
 * have none and are not jobs here. */
static const char *meta_engine(const struct iob_record *r)
{
	const char *phase = get_str(r, "phase");
	if (!phase)
		return NULL;
	if (strcmp(phase, "create") == 0)
		return "filecreate";
	if (strcmp(phase, "stat") == 0)
		return "filestat";
	if (strcmp(phase, "remove") == 0)
		return "filedelete";
	return NULL;
}

static void put_meta_options(struct textbuf *b, const struct iob_record *r)
{
	char num[32];
	int n = 0;
	textbuf_str(b, "\"job options\":{");
	put_option(b, &n, "name", get_str(r, "job"));
	put_option(b, &n, "directory", get_str(r, "dir"));
	put_option(b, &n, "ioengine", meta_engine(r));
	snprintf(num, sizeof num, "%" PRIu64, get_u64(r, "files"));
	put_option(b, &n, "nrfiles", num);
	snprintf(num, sizeof num, "%" PRIu64, get_u64(r, "streams"));
	put_option(b, &n, "numjobs", num);
	snprintf(num, sizeof num, "%" PRIu64, get_u64(r, "file_size_bytes"));
	put_option(b, &n, "filesize", num);
	textbuf_add(b, "}", 1);
}

static void put_job(struct fj_state *st, const struct iob_record *r)
{
	int meta = r->kind && strcmp(r->kind, "meta") == 0;
	struct textbuf *b = &st->jobs;
	const char *phase = get_str(r, "phase");
	const char *status = get_str(r, "status");
	double el = get_f64(r, "elapsed_s");
	int mixed = phase && strcmp(phase, "mixed") == 0, write = phase && strcmp(phase, "write") == 0;
	if (!phase)
		phase = "read";
	textbuf_str(b, st->njobs ? ",\n{" : "\n{");
	textbuf_str(b, "\"jobname\":");
	jsonval_str(b, get_str(r, "job"));
	textbuf_add(b, ",", 1);
	put_u64_member(b, "groupid", get_u64(r, "group"));
	textbuf_printf(b, ",\"error\":%d,", status && strcmp(status, "ok") != 0 ? 1 : 0);
	put_u64_member(b, "elapsed", (uint64_t)llround(el));
	textbuf_add(b, ",", 1);
	if (meta)
		put_meta_options(b, r);
	else
		put_job_options(b, r, phase);
	textbuf_add(b, ",", 1);
	const struct iob_latency *lat = get_lat(r, "lat_ns");
	uint64_t shorts = get_u64(r, "short_ops");
	/* the interval records of this phase, if any came */
	const char *job = get_str(r, "job");
	const struct fj_samples *sm =
	    job && strcmp(st->samples.job, job) == 0 && strcmp(st->samples.phase, phase) == 0 ? &st->samples
											      : NULL;
	struct fj_dir rd = {0}, wr = {0}, none = {0};
	if (mixed) {
		/* the record does not split short_ops (all under read), nor do
		 * the interval records split directions (no samples) */
		rd = (struct fj_dir){get_u64(r, "bytes_read"), get_u64(r, "ops_read"), shorts, lat, NULL};
		wr = (struct fj_dir){get_u64(r, "bytes_written"), get_u64(r, "ops_written"), 0,
				     get_lat(r, "lat_write_ns"), NULL};
	} else {
		struct fj_dir d = {get_u64(r, "bytes"), get_u64(r, "ops"), shorts, lat, sm};
		if (write)
			wr = d;
		else
			rd = d;
	}
	put_dir(b, "read", &rd, el, st->plus);
	textbuf_add(b, ",", 1);
	put_dir(b, "write", &wr, el, st->plus);
	textbuf_add(b, ",", 1);
	put_dir(b, "trim", &none, 0, st->plus);
	memset(&st->samples, 0, sizeof st->samples);
	textbuf_str(b, ",\"sync\":{\"total_ios\":0,");
	put_lat(b, "lat_ns", NULL, 0);
	textbuf_add(b, "}", 1);
	textbuf_add(b, ",", 1);
	put_u64_member(b, "job_runtime", (uint64_t)llround(el * 1000));
	textbuf_add(b, ",", 1);
	put_f6_member(b, "usr_cpu", el > 0 ? get_f64(r, "cpu_user_s") / el * 100 : 0.0);
	textbuf_add(b, ",", 1);
	put_f6_member(b, "sys_cpu", el > 0 ? get_f64(r, "cpu_sys_s") / el * 100 : 0.0);
	put_lat_search(b, r);
	/* the record as iobench's json output writes it */
	textbuf_str(b, ",\"iobench\":{");
	size_t k = 0;
	for (size_t i = 0; i < r->nfields; i++) {
		if (!jsonval_known_type(&r->fields[i]))
			continue;
		textbuf_str(b, k++ ? "," : "");
		jsonval_field(b, &r->fields[i]);
	}
	textbuf_str(b, "}}");
	st->njobs++;
}

/* ------------------------------------------------------------------------ */
/* The document.                                                             */

static int fj_write(struct fj_state *st, const struct textbuf *b)
{
	if (st->o.err)
		return st->o.err;
	if (b->oom) {
		fj_log(IOB_LOG_ERROR, "out of memory formatting output for %s", st->o.sink.name);
		return -ENOMEM;
	}
	int rc = st->o.sink.write(st->o.sink.ctx, b->data ? b->data : "", b->len);
	if (rc < 0)
		st->o.err = rc;
	return rc < 0 ? rc : 0;
}

static void put_head(struct fj_state *st, const struct iob_run_info *run)
{
	static const struct iob_run_info none = {0};
	struct textbuf *h = &st->head, *b = &st->run;
	if (!run || run->struct_size < FJ_RUN_INFO_V1_SIZE)
		run = &none;
	char when[64] = "";
	int64_t t = 0;
	int known = parse_started(run->started, &t, when, sizeof when);
	char version[128];
	snprintf(version, sizeof version, "iobench-%s", run->version ? run->version : "unknown");
	textbuf_str(h, "{\n\"fio version\":");
	jsonval_str(h, version);
	textbuf_printf(h, ",\n\"timestamp\":%" PRId64 ",\n\"timestamp_ms\":%" PRId64 ",\n\"time\":", t,
		       t * 1000);
	jsonval_str(h, known ? when : "");
	textbuf_str(h, ",\n\"jobs\":[");
	jsonval_run_info(b, run);
}

/* The whole document: head, jobs, and the iobench member with the run's
 * facts, notes and outcome (error NULL: ok). */
static int put_document(void *state, const struct iob_run_end *end, const char *error)
{
	struct fj_state *st = state;
	struct textbuf *o = &st->out;
	textbuf_clear(o);
	if (!st->o.begun)
		put_head(st, NULL);
	textbuf_add(o, st->head.data ? st->head.data : "", st->head.len);
	textbuf_add(o, st->jobs.data ? st->jobs.data : "", st->jobs.len);
	textbuf_str(o, "\n],\n\"iobench\":{");
	textbuf_add(o, st->run.data ? st->run.data : "", st->run.len);
	textbuf_str(o, ",\"bins\":");
	textbuf_str(o, st->plus ? "true" : "false");
	textbuf_add(o, ",", 1);
	jsonval_run_end(o, end, error);
	textbuf_str(o, "}\n}\n");
	if (st->head.oom || st->jobs.oom || st->run.oom)
		o->oom = 1;
	return fj_write(st, o);
}

/* ------------------------------------------------------------------------ */
/* Ops: end_run and close are textbuf.c's, over fj_doc.                      */

static void fj_free(void *state);
static const struct textbuf_doc fj_doc = {FJ_NAME, FJ_RUN_END_V1_SIZE, FJ_NO_RESULT, put_document, fj_free};

static int fj_open(const struct iob_sink *sink, const char *args, void **state)
{
	int plus = 0;
	if (args && *args) {
		if (strcmp(args, "plus") != 0) {
			fj_log(IOB_LOG_ERROR,
			       "unknown argument \"%s\": the only one is plus (--output fio-json:plus=FILE, "
			       "fio's json+ with latency bins)",
			       args);
			return -EINVAL;
		}
		plus = 1;
	}
	int rc = textbuf_doc_open(sink, state, sizeof(struct fj_state), fj_host, &fj_doc);
	if (rc == 0)
		((struct fj_state *)*state)->plus = plus;
	return rc;
}

static int fj_begin_run(void *state, const struct iob_run_info *run)
{
	struct fj_state *st = state;
	if (textbuf_begin_ok(fj_host, FJ_NAME, st->o.sink.name, st->o.begun))
		return -EINVAL;
	put_head(st, run);
	st->o.begun = 1;
	return st->head.oom || st->run.oom ? -ENOMEM : 0;
}

/* A phase record of a steady state round: its bw and iops kept. */
static void rounds_add(struct fj_rounds *rd, const struct iob_record *r)
{
	const char *job = get_str(r, "job"), *phase = get_str(r, "phase");
	if (!job || !phase || !field(r, "round"))
		return;
	if (strcmp(rd->job, job) != 0 || strcmp(rd->phase, phase) != 0 || get_u64(r, "round") == 0) {
		rd->n = 0;
		snprintf(rd->job, sizeof rd->job, "%s", job);
		snprintf(rd->phase, sizeof rd->phase, "%s", phase);
	}
	if (rd->n == rd->cap) {
		size_t cap = rd->cap ? rd->cap * 2 : 32;
		double *a = realloc(rd->bw, cap * sizeof *a);
		if (!a)
			return;
		rd->bw = a;
		double *c = realloc(rd->iops, cap * sizeof *c);
		if (!c)
			return;
		rd->iops = c;
		rd->cap = cap;
	}
	rd->bw[rd->n] = get_f64(r, "bw_bytes_per_s");
	rd->iops[rd->n] = get_f64(r, "ops_per_s");
	rd->n++;
}

/* A "steady" record: fio's "steadystate" member, added to the job object
 * of its last round (the last one written). */
static void put_steady(struct fj_state *st, const struct iob_record *r)
{
	struct textbuf *b = &st->jobs;
	const char *metric = get_str(r, "steady_state"), *rule = get_str(r, "rule");
	if (!st->njobs || b->len < 2 || !metric || !rule || b->data[b->len - 1] != '}')
		return;
	int bw = strcmp(metric, "bw") == 0, lat = strcmp(metric, "lat") == 0, snia = strcmp(rule, "snia") == 0,
	    slope = strcmp(rule, "slope") == 0;
	size_t w = (size_t)get_u64(r, "window"), n = st->rounds.n;
	w = w < n ? w : n;
	double mean = get_f64(r, bw ? "window_mean_bytes_per_s" : lat ? "window_mean_ns" : "window_mean_per_s");
	b->len--; /* reopen the job object */
	textbuf_str(b, ",\"steadystate\":{\"ss\":");
	char ss[64];
	if (snia)
		snprintf(ss, sizeof ss, "%s_snia:%f%%,%f%%", metric, get_f64(r, "range_limit_pct"),
			 get_f64(r, "slope_limit_pct"));
	else
		snprintf(ss, sizeof ss, "%s%s:%f%%", metric, slope ? "_slope" : "", get_f64(r, "limit_pct"));
	jsonval_str(b, ss);
	textbuf_printf(b, ",\"duration\":%zu,\"attained\":%d,\"criterion\":", w,
		       field(r, "reached") && field(r, "reached")->v.b ? 1 : 0);
	char crit[48];
	snprintf(crit, sizeof crit, "%f%%",
		 get_f64(r, snia ? "range_pct" : slope ? "slope_pct" : "max_deviation_pct"));
	jsonval_str(b, crit);
	textbuf_str(b, ",\"max_deviation\":");
	jsonval_f64(b, get_f64(r, "max_deviation_pct") / 100.0 * mean);
	textbuf_str(b, ",\"slope\":");
	jsonval_f64(b, get_f64(r, bw ? "window_slope_bytes_per_s" : lat ? "window_slope_ns" : "window_slope_per_s"));
	double bsum = 0, isum = 0;
	for (size_t i = n - w; i < n; i++) {
		bsum += st->rounds.bw[i];
		isum += st->rounds.iops[i];
	}
	textbuf_printf(b, ",\"data\":{\"bw_mean\":%.0f,\"iops_mean\":%.0f,", w ? bsum / (double)w : 0.0,
		       w ? isum / (double)w : 0.0);
	const char *vals = get_str(r, "window_values");
	if (lat && vals) { /* fio's lat_mean and lat_ns: the window's rounds' mean latency */
		textbuf_printf(b, "\"lat_mean\":%.0f,\"lat_ns\":[", mean);
		for (const char *p = vals; *p;) {
			char *end = NULL;
			double v = strtod(p, &end);
			if (end == p)
				break;
			textbuf_printf(b, "%s%.0f", p > vals ? "," : "", v);
			p = *end == ',' ? end + 1 : end;
		}
		textbuf_str(b, "],");
	}
	textbuf_str(b, "\"iops\":[");
	for (size_t i = n - w; i < n; i++)
		textbuf_printf(b, "%s%.0f", i > n - w ? "," : "", st->rounds.iops[i]);
	textbuf_str(b, "],\"bw\":[");
	for (size_t i = n - w; i < n; i++)
		textbuf_printf(b, "%s%.0f", i > n - w ? "," : "", st->rounds.bw[i]);
	textbuf_str(b, "]}}}");
	st->rounds.n = 0;
}

static int fj_record(void *state, const struct iob_record *rec)
{
	struct fj_state *st = state;
	int rc = textbuf_record_ok(fj_host, FJ_NAME, st->o.sink.name, st->o.begun, st->o.ended, st->o.err, rec);
	if (rc)
		return rc;
	/* the aggregate of a phase is a job; its intervals are fio's bw and
	 * iops samples; its streams' and ranks' records are in the json output */
	if (rec->kind && strcmp(rec->kind, "interval") == 0)
		samples_add(&st->samples, rec);
	if (rec->kind && strcmp(rec->kind, "steady") == 0) {
		put_steady(st, rec);
		return st->jobs.oom ? -ENOMEM : 0;
	}
	if (rec->kind && strcmp(rec->kind, "meta") == 0 && meta_engine(rec)) {
		put_job(st, rec); /* fio's filecreate, filestat, filedelete */
		return st->jobs.oom ? -ENOMEM : 0;
	}
	if (!rec->kind || strcmp(rec->kind, "phase") != 0)
		return 0;
	rounds_add(&st->rounds, rec);
	put_job(st, rec);
	return st->jobs.oom ? -ENOMEM : 0;
}

static void fj_free(void *state)
{
	struct fj_state *st = state;
	textbuf_free(&st->head);
	textbuf_free(&st->jobs);
	textbuf_free(&st->run);
	textbuf_free(&st->out);
	free(st->rounds.bw);
	free(st->rounds.iops);
}

static const struct iob_output_ops fj_ops = {TEXTBUF_DOC_OPS(fj)};

IOB_OUTPUT_PLUGIN(fj_host, FJ_NAME, "fio's JSON (fio-json), or json+ with latency bins (fio-json:plus)", &fj_ops);
