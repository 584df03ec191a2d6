/*
 * result.c - building records of the result model, and run notes
 * (iobench/result.h).  A record buffer and a notes list each belong to one
 * thread: the runner builds records and adds notes on its own thread only.
 */
#include "iobench/result.h"
#include "iobench/profile.h"
#include "iobench/units.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void iob_rec_reset(struct iob_recbuf *b, const char *kind)
{
	b->rec.kind = kind;
	b->rec.nfields = 0;
	b->rec.fields = b->fields;
	b->nlat = 0;
	b->strused = 0;
	b->npct = 0;
}

static struct iob_field *add(struct iob_recbuf *b, const char *key, uint32_t type, uint32_t unit)
{
	static struct iob_field overflow;
	if (b->rec.nfields >= IOB_REC_MAX_FIELDS) { /* a programming error: said, and dropped rather than overrun */
		fprintf(stderr, "iobench: internal error: a %s record has more than %d fields: %s dropped\n",
			b->rec.kind ? b->rec.kind : "", IOB_REC_MAX_FIELDS, key);
		return &overflow;
	}
	struct iob_field *f = &b->fields[b->rec.nfields++];
	memset(f, 0, sizeof *f);
	f->key = key;
	f->type = type;
	f->unit = unit;
	return f;
}

void iob_rec_u64(struct iob_recbuf *b, const char *key, enum iob_unit unit, uint64_t v)
{
	add(b, key, IOB_T_U64, unit)->v.u = v;
}

void iob_rec_i64(struct iob_recbuf *b, const char *key, enum iob_unit unit, int64_t v)
{
	add(b, key, IOB_T_I64, unit)->v.i = v;
}

void iob_rec_f64(struct iob_recbuf *b, const char *key, enum iob_unit unit, double v)
{
	add(b, key, IOB_T_F64, unit)->v.f = isfinite(v) ? v : 0.0;
}

void iob_rec_str(struct iob_recbuf *b, const char *key, const char *v)
{
	struct iob_field *f = add(b, key, IOB_T_STR, IOB_UNIT_NONE);
	if (!v) {
		f->v.s = NULL;
		return;
	}
	size_t n = strlen(v) + 1;
	if (b->strused + n > sizeof b->str) {
		n = sizeof b->str - b->strused;
		if (n == 0) {
			f->v.s = "";
			return;
		}
	}
	char *dst = b->str + b->strused;
	memcpy(dst, v, n - 1);
	dst[n - 1] = '\0';
	b->strused += n;
	f->v.s = dst;
}

void iob_rec_bool(struct iob_recbuf *b, const char *key, int v)
{
	add(b, key, IOB_T_BOOL, IOB_UNIT_NONE)->v.b = v != 0;
}

void iob_rec_lat(struct iob_recbuf *b, const char *key, const struct iob_hist *h)
{
	if (b->nlat >= sizeof b->lat / sizeof b->lat[0])
		return;
	size_t k = b->nlat++;
	struct iob_latency *l = &b->lat[k];
	l->count = h->count;
	l->min = iob_hist_min_ns(h);
	l->max = iob_hist_max_ns(h);
	l->mean = iob_hist_mean(h);
	l->stddev = iob_hist_stddev(h);
	l->npct = b->npct ? b->npct : IOB_NPCT;
	l->pct = b->npct ? b->pct : iob_default_pct;
	iob_hist_percentiles(h, l->pct, l->npct, b->latval[k]);
	l->value = b->latval[k];
	iob_hist_bins(h, b->bin_ns[k], b->bin_count[k], &l->nbins);
	l->bin_ns = b->bin_ns[k];
	l->bin_count = b->bin_count[k];
	add(b, key, IOB_T_LAT, IOB_UNIT_NS)->v.lat = l;
}

const struct iob_field *iob_rec_get(const struct iob_record *r, const char *key)
{
	for (size_t i = 0; i < r->nfields; i++)
		if (strcmp(r->fields[i].key, key) == 0)
			return &r->fields[i];
	return NULL;
}

/* key's field when it has type t, else NULL */
static const struct iob_field *typed(const struct iob_record *r, const char *key, uint32_t t)
{
	const struct iob_field *f = iob_rec_get(r, key);
	return f && f->type == t ? f : NULL;
}

const char *iob_rec_str_at(const struct iob_record *r, const char *key)
{
	const struct iob_field *f = typed(r, key, IOB_T_STR);
	return f && f->v.s ? f->v.s : "";
}

uint64_t iob_rec_u64_at(const struct iob_record *r, const char *key)
{
	const struct iob_field *f = typed(r, key, IOB_T_U64);
	return f ? f->v.u : 0;
}

double iob_rec_f64_at(const struct iob_record *r, const char *key)
{
	const struct iob_field *f = typed(r, key, IOB_T_F64);
	return f ? f->v.f : 0.0;
}

int iob_rec_bool_at(const struct iob_record *r, const char *key)
{
	const struct iob_field *f = typed(r, key, IOB_T_BOOL);
	return f ? f->v.b : 0;
}

void iob_rec_absent(struct iob_recbuf *b, const char *key, enum iob_unit unit)
{
	struct iob_field *f = add(b, key, IOB_T_STR, unit);
	f->v.s = NULL;
}

void iob_rec_u64_if(struct iob_recbuf *b, const char *key, enum iob_unit unit, int present, uint64_t v)
{
	if (present)
		iob_rec_u64(b, key, unit, v);
	else
		iob_rec_absent(b, key, unit);
}

const char *iob_phase_status_name(const struct iob_phase_result *r)
{
	if (r->interrupted)
		return "interrupted";
	if (r->status == IOB_STATUS_MISMATCH)
		return "mismatch";
	return r->status < 0 ? "error" : "ok";
}

/* What the kernel counted (UINT64_MAX: the OS cannot tell). */
static void rec_os_bytes(struct iob_recbuf *b, uint64_t read, uint64_t write)
{
	int present = read != UINT64_MAX;
	iob_rec_u64_if(b, "os_read_bytes", IOB_UNIT_BYTES, present, read);
	iob_rec_u64_if(b, "os_write_bytes", IOB_UNIT_BYTES, present, write);
}

/* What a phase did: bytes to verify_bad_blocks (phase and group records). */
static void rec_figures(struct iob_recbuf *b, const struct iob_phase_result *r)
{
	iob_rec_u64(b, "bytes", IOB_UNIT_BYTES, r->bytes);
	iob_rec_u64(b, "ops", IOB_UNIT_OPS, r->ops);
	iob_rec_u64(b, "skipped_ops", IOB_UNIT_OPS, r->skipped);
	iob_rec_u64(b, "short_ops", IOB_UNIT_OPS, r->short_ops);
	iob_rec_f64(b, "elapsed_s", IOB_UNIT_S, iob_phase_seconds(r));
	iob_rec_f64(b, "sync_s", IOB_UNIT_S, (double)r->sync_ns / 1e9);
	iob_rec_f64(b, "bw_bytes_per_s", IOB_UNIT_BYTES_PER_S, iob_phase_bw(r));
	iob_rec_f64(b, "ops_per_s", IOB_UNIT_OPS_PER_S, iob_phase_iops(r));
	if (r->hist)
		iob_rec_lat(b, "lat_ns", r->hist);
	/* the latency summary is of a uniform sample of the I/Os when timing each
	 * would have cost more than 2% of it: 1 in lat_sampled_every */
	iob_rec_u64(b, "lat_sampled_every", IOB_UNIT_COUNT, r->lat_sample_every); /* 0: latency = off */
	iob_rec_u64(b, "lat_samples", IOB_UNIT_COUNT, r->lat_samples);
	iob_rec_bool(b, "direct", r->direct);
	rec_os_bytes(b, r->os_read_bytes, r->os_write_bytes);
	/* what reached storage (docs/architecture.md, "Measurement rules") */
	int present = r->storage_read_bytes != UINT64_MAX;
	iob_rec_u64_if(b, "storage_read_bytes", IOB_UNIT_BYTES, present, r->storage_read_bytes);
	iob_rec_u64_if(b, "storage_write_bytes", IOB_UNIT_BYTES, present, r->storage_write_bytes);
	iob_rec_u64(b, "verify_bad_blocks", IOB_UNIT_COUNT, r->bad_blocks);
	if (r->errors_counted) /* continue_on_error: the I/Os that failed and were passed over */
		iob_rec_u64(b, "io_errors", IOB_UNIT_COUNT, r->io_errors);
	if (r->bs_hist.n) { /* bssplit: SIZE:READ_IOS:READ_BYTES:WRITE_IOS:WRITE_BYTES per size */
		char t[IOB_BS_HIST_MAX * 110];
		iob_bs_hist_text(&r->bs_hist, t, sizeof t);
		iob_rec_str(b, "bs_hist", t);
	}
	if (r->prio_hist.n) { /* cmdprio: PRIO:READ_IOS:WRITE_IOS per priority the I/Os went at */
		char t[IOB_PRIO_HIST_MAX * 48];
		iob_prio_hist_text(&r->prio_hist, t, sizeof t);
		iob_rec_str(b, "prio_ios", t);
	}
}

static void rec_load_keys(struct iob_recbuf *b, const struct iob_job *job)
{
	size_t n;
	const struct iob_key *k = iob_keys(&n);
	for (size_t i = 0; i < n; i++) {
		const char *f = k[i].record;
		char text[256];
		if (!f)
			continue;
		switch (k[i].type) {
		case IOB_KEY_SIZE:
			iob_rec_u64(b, f, IOB_UNIT_BYTES, iob_key_value(&k[i], job));
			break;
		case IOB_KEY_DURATION:
			iob_rec_u64(b, f, IOB_UNIT_NS, iob_key_value(&k[i], job));
			break;
		case IOB_KEY_COUNT: /* ops: sprandom's own count (job.h) */
			iob_rec_u64(b, f, IOB_UNIT_COUNT,
				    strcmp(k[i].name, "ops") == 0 ? iob_job_ops_asked(job) : iob_key_value(&k[i], job));
			break;
		case IOB_KEY_BOOL:
			iob_rec_bool(b, f, iob_key_value(&k[i], job) != 0);
			break;
		default: /* enum, list, text: as a profile writes it */
			if (iob_key_format(&k[i], job, text, sizeof text) != 0)
				text[0] = '\0';
			iob_rec_str(b, f, text);
			break;
		}
	}
}

void iob_rec_phase(struct iob_recbuf *b, const struct iob_job *job, const char *file,
		   const struct iob_phase_result *r)
{
	char pat[IOB_PATTERN_NAME_MAX];
	int write = r->phase == IOB_PHASE_WRITE, bad = r->bad_blocks != 0;
	iob_pattern_name(&job->pattern, pat, sizeof pat);
	iob_rec_reset(b, "phase");
	char why[128];
	if (job->percentiles[0] && iob_pct_parse(job->percentiles, b->pct, &b->npct, why, sizeof why) != 0)
		b->npct = 0; /* validated when set: never here */
	iob_rec_str(b, "job", job->name);
	iob_rec_str(b, "phase", iob_phase_name(r->phase));
	iob_rec_str(b, "backend", job->backend);
	iob_rec_str(b, "file", file);
	iob_rec_str(b, "access", job->access == IOB_ACCESS_RAND ? "random" : "sequential");
	iob_rec_u64(b, "block_size_bytes", IOB_UNIT_BYTES, r->block_size);
	/* a series read goes to the end of its file or stream, whatever size says */
	iob_rec_u64(b, "size_bytes", IOB_UNIT_BYTES,
		    job->series && r->phase == IOB_PHASE_READ ? r->bytes : job->size);
	iob_rec_str(b, "pattern", pat);
	iob_rec_u64(b, "seed", IOB_UNIT_NONE, job->seed);
	iob_rec_bool(b, "fsync", write && job->fsync);
	iob_rec_bool(b, "truncate", write && job->truncate);
	/* the keys that shape the load, each row of the key table that names a
	 * record field (keys.c): a record is enough to run it again */
	rec_load_keys(b, job);
	rec_figures(b, r);
	/* verify_backlog (a load key, above): checked inside a write or mixed phase; the rest after it */
	if (job->load.verify_backlog && (r->phase == IOB_PHASE_WRITE || r->phase == IOB_PHASE_MIXED)) {
		iob_rec_u64(b, "backlog_verified_ops", IOB_UNIT_COUNT, r->backlog_ops);
		iob_rec_u64(b, "backlog_verified_bytes", IOB_UNIT_BYTES, r->backlog_bytes);
		iob_rec_u64(b, "backlog_left", IOB_UNIT_COUNT, r->backlog_left);
	}
	iob_rec_u64_if(b, "first_bad_offset", IOB_UNIT_BYTES, bad, r->first_bad_offset);
	iob_rec_u64_if(b, "expected_byte", IOB_UNIT_NONE, bad, r->expected);
	iob_rec_u64_if(b, "found_byte", IOB_UNIT_NONE, bad, r->found);
	iob_rec_u64(b, "group", IOB_UNIT_NONE, job->group);
}

void iob_rec_group(struct iob_recbuf *b, uint32_t group, size_t jobs, int same_block_size,
		   const struct iob_aggregate *a, double job_bw_min, double job_bw_max, int stopped)
{
	struct iob_phase_result r;
	iob_aggregate_as_result(a, &r);
	iob_rec_reset(b, "group");
	iob_rec_u64(b, "group", IOB_UNIT_NONE, group);
	iob_rec_str(b, "phase", iob_phase_name(a->phase));
	iob_rec_u64(b, "jobs", IOB_UNIT_COUNT, jobs);
	if (same_block_size)
		iob_rec_u64(b, "block_size_bytes", IOB_UNIT_BYTES, a->block_size);
	else
		iob_rec_absent(b, "block_size_bytes", IOB_UNIT_BYTES);
	rec_figures(b, &r);
	iob_rec_f64(b, "job_bw_min_bytes_per_s", IOB_UNIT_BYTES_PER_S, job_bw_min);
	iob_rec_f64(b, "job_bw_max_bytes_per_s", IOB_UNIT_BYTES_PER_S, job_bw_max);
	iob_rec_str(b, "status", a->interrupted ? "interrupted" : a->status == IOB_STATUS_MISMATCH ? "mismatch"
			: a->status < 0 ? "error" : stopped ? "stopped" : "ok");
	iob_rec_phase_cpu(b, &r);
	struct iob_aggregate k = *a;
	k.partial |= stopped;
	iob_rec_aggregate(b, &k);
}

void iob_rec_phase_flags(struct iob_recbuf *b, const struct iob_job *job, const struct iob_phase_result *r)
{
	if (job->fill_device && r->phase == IOB_PHASE_WRITE) /* ended at a full file system, or not */
		iob_rec_bool(b, "device_full", r->device_full);
	if (job->load.seq_ops && job->access == IOB_ACCESS_SEQ) /* a pass ended at seq_ops, or none did */
		iob_rec_bool(b, "pass_cut", r->pass_cut);
}

void iob_rec_lat_search(struct iob_recbuf *b, const struct iob_job *job, const struct iob_phase_result *r)
{
	if (!job->load.latency_target)
		return;
	iob_rec_u64(b, "latency_depth", IOB_UNIT_COUNT, r->lt_depth);
	iob_rec_u64(b, "latency_windows", IOB_UNIT_COUNT, r->lt_nwin);
	iob_rec_bool(b, "latency_settled", r->lt_settled);
}

void iob_rec_lat_window(struct iob_recbuf *b, const struct iob_job *job, const struct iob_phase_result *r, size_t i,
			const char *who, uint64_t idx)
{
	const struct iob_lat_window *w = &r->lt_windows[i];
	iob_rec_reset(b, "latency_window");
	iob_rec_str(b, "job", job->name);
	iob_rec_str(b, "phase", iob_phase_name(r->phase));
	if (who)
		iob_rec_u64(b, who, IOB_UNIT_COUNT, idx);
	iob_rec_u64(b, "window", IOB_UNIT_COUNT, i);
	iob_rec_u64(b, "depth", IOB_UNIT_COUNT, w->depth);
	iob_rec_u64(b, "max_in_flight", IOB_UNIT_COUNT, w->max_inflight);
	iob_rec_u64(b, "ios", IOB_UNIT_OPS, w->ios);
	iob_rec_u64(b, "over_target", IOB_UNIT_OPS, w->over);
	iob_rec_f64(b, "within_pct", IOB_UNIT_NONE, w->ios ? 100.0 * (double)(w->ios - w->over) / (double)w->ios : 0.0);
	iob_rec_u64(b, "lat_pct_ns", IOB_UNIT_NS, w->pct_ns);
	iob_rec_f64(b, "window_s", IOB_UNIT_S, (double)w->len_ns / 1e9);
	iob_rec_str(b, "verdict", w->pass ? "within" : "over");
	iob_rec_bool(b, "final", w->final);
}

void iob_lat_search_fold(struct iob_phase_result *r, const struct iob_phase_result *x, int first)
{
	r->lt_nwin = (first ? 0 : r->lt_nwin) + x->lt_nwin;
	r->lt_depth = first || x->lt_depth < r->lt_depth ? x->lt_depth : r->lt_depth;
	r->lt_settled = (first || r->lt_settled) && x->lt_settled;
}

void iob_rec_phase_cpu(struct iob_recbuf *b, const struct iob_phase_result *r)
{
	uint64_t cpu = r->cpu_user_ns + r->cpu_sys_ns;
	iob_rec_f64(b, "cpu_user_s", IOB_UNIT_S, (double)r->cpu_user_ns / 1e9);
	iob_rec_f64(b, "cpu_sys_s", IOB_UNIT_S, (double)r->cpu_sys_ns / 1e9);
	if (r->ops)
		iob_rec_f64(b, "cpu_ns_per_io", IOB_UNIT_NS, (double)cpu / (double)r->ops);
	else
		iob_rec_absent(b, "cpu_ns_per_io", IOB_UNIT_NS);
	if (r->phase != IOB_PHASE_MIXED)
		return;
	iob_rec_u64(b, "bytes_read", IOB_UNIT_BYTES, r->bytes_read);
	iob_rec_u64(b, "bytes_written", IOB_UNIT_BYTES, r->bytes_written);
	iob_rec_u64(b, "ops_read", IOB_UNIT_OPS, r->ops_read);
	iob_rec_u64(b, "ops_written", IOB_UNIT_OPS, r->ops_written);
	if (r->hist_write)
		iob_rec_lat(b, "lat_write_ns", r->hist_write);
	else
		iob_rec_absent(b, "lat_write_ns", IOB_UNIT_NS);
}

void iob_rec_aggregate(struct iob_recbuf *b, const struct iob_aggregate *a)
{
	iob_rec_u64(b, "streams", IOB_UNIT_COUNT, a->streams);
	if (a->first_done_known) {
		iob_rec_f64(b, "first_done_bw_bytes_per_s", IOB_UNIT_BYTES_PER_S, a->first_done_bw);
		iob_rec_u64(b, "first_done_bytes", IOB_UNIT_BYTES, a->first_done_bytes);
		iob_rec_f64(b, "first_done_s", IOB_UNIT_S, (double)a->first_done_ns / 1e9);
	} else {
		iob_rec_absent(b, "first_done_bw_bytes_per_s", IOB_UNIT_BYTES_PER_S);
		iob_rec_absent(b, "first_done_bytes", IOB_UNIT_BYTES);
		iob_rec_absent(b, "first_done_s", IOB_UNIT_S);
	}
	iob_rec_f64(b, "last_done_bw_bytes_per_s", IOB_UNIT_BYTES_PER_S, a->last_done_bw);
	iob_rec_f64(b, "stream_bw_min_bytes_per_s", IOB_UNIT_BYTES_PER_S, a->stream_bw_min);
	iob_rec_f64(b, "stream_bw_max_bytes_per_s", IOB_UNIT_BYTES_PER_S, a->stream_bw_max);
	iob_rec_bool(b, "partial", a->partial);
	if (a->status != 0)
		iob_rec_u64(b, "failed_stream", IOB_UNIT_COUNT, a->failed_stream);
	else
		iob_rec_absent(b, "failed_stream", IOB_UNIT_COUNT);
}

void iob_notes_add(struct iob_notes *n, const char *fmt, ...)
{
	char text[sizeof n->text[0]];
	va_list ap;
	if (!n)
		return;
	char raw[sizeof n->text[0]];
	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	iob_quote(raw, text, sizeof text); /* a note is one line */
	for (size_t i = 0; i < n->n; i++)
		if (strcmp(n->text[i], text) == 0)
			return; /* say each caveat once */
	if (n->n >= IOB_MAX_NOTES)
		return;
	memcpy(n->text[n->n], text, sizeof text);
	n->ptr[n->n] = n->text[n->n];
	n->n++;
}
