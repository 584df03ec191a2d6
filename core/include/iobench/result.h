/*
 * iobench/result.h - building records of the result model (plugin.h's
 * struct iob_record) and the caveats ("notes") a run collects.
 * A record owns copies of its strings and latency summaries until reset.
 */
#ifndef IOBENCH_RESULT_H
#define IOBENCH_RESULT_H

#include <stddef.h>
#include <stdint.h>
#include "iobench/aggregate.h"
#include "iobench/engine.h"
#include "iobench/job.h"
#include "iobench/plugin.h"

/* The version of the record schema (docs/outputs.md): 2 is the one "phase"
 * record of every binary. */
#define IOB_SCHEMA_VERSION 2

#define IOB_REC_MAX_FIELDS 256
#define IOB_REC_STRBUF 8192

struct iob_recbuf {
	struct iob_record rec;
	struct iob_field fields[IOB_REC_MAX_FIELDS];
	struct iob_latency lat[2];
	uint64_t latval[2][IOB_PCT_MAX];
	double pct[IOB_PCT_MAX]; /* npct: the ranks iob_rec_lat reports (iob_rec_phase: the
				  * job's percentiles); 0: iob_default_pct */
	size_t npct;
	uint64_t bin_ns[2][IOB_HIST_BUCKETS], bin_count[2][IOB_HIST_BUCKETS];
	size_t nlat;
	char str[IOB_REC_STRBUF];
	size_t strused;
};

void iob_rec_reset(struct iob_recbuf *b, const char *kind);
void iob_rec_u64(struct iob_recbuf *b, const char *key, enum iob_unit unit, uint64_t v);
void iob_rec_i64(struct iob_recbuf *b, const char *key, enum iob_unit unit, int64_t v);
/* Non-finite values are stored as 0: outputs never see inf or nan. */
void iob_rec_f64(struct iob_recbuf *b, const char *key, enum iob_unit unit, double v);
void iob_rec_str(struct iob_recbuf *b, const char *key, const char *v);
void iob_rec_bool(struct iob_recbuf *b, const char *key, int v);
void iob_rec_lat(struct iob_recbuf *b, const char *key, const struct iob_hist *h);
/* A value that was not measured: present as a key (so every record of a
 * kind has the same keys), absent as a value (a NULL string: JSON null, an
 * empty CSV cell). */
void iob_rec_absent(struct iob_recbuf *b, const char *key, enum iob_unit unit);
/* v when present is true, else absent (iob_rec_absent). */
void iob_rec_u64_if(struct iob_recbuf *b, const char *key, enum iob_unit unit, int present, uint64_t v);
const struct iob_field *iob_rec_get(const struct iob_record *r, const char *key);
/* The value of key when the record holds it with that type, else "", 0,
 * 0.0 or 0 (for the renderers: an absent value prints as nothing or 0). */
const char *iob_rec_str_at(const struct iob_record *r, const char *key);
uint64_t iob_rec_u64_at(const struct iob_record *r, const char *key);
double iob_rec_f64_at(const struct iob_record *r, const char *key);
int iob_rec_bool_at(const struct iob_record *r, const char *key);

/* The base keys of the "phase" record, the same for every binary
 * (docs/outputs.md): job, phase, backend, file, access, block_size_bytes,
 * size_bytes, pattern, seed, fsync, bytes, ops, skipped_ops, short_ops, elapsed_s,
 * sync_s, bw_bytes_per_s, ops_per_s, lat_ns, direct, os_read_bytes,
 * os_write_bytes, verify_bad_blocks, first_bad_offset, expected_byte,
 * found_byte, group.  The runner adds the read facts and status after them, then
 * a series' summary and the tool's own fields. */
void iob_rec_phase(struct iob_recbuf *b, const struct iob_job *job, const char *file,
		   const struct iob_phase_result *r);
/* After status: device_full (a fill_device write phase) and pass_cut (a
 * sequential job with seq_ops), the streams' and the ranks' aggregates too. */
void iob_rec_phase_flags(struct iob_recbuf *b, const struct iob_job *job, const struct iob_phase_result *r);
/* latency_target's search (a job with latency_target; nothing else):
 * latency_depth, latency_windows, latency_settled. */
void iob_rec_lat_search(struct iob_recbuf *b, const struct iob_job *job, const struct iob_phase_result *r);
/* Window i of r's search as a "latency_window" record (docs/outputs.md);
 * who ("stream" or "rank") with idx says whose it was (NULL: the phase's). */
void iob_rec_lat_window(struct iob_recbuf *b, const struct iob_job *job, const struct iob_phase_result *r, size_t i,
			const char *who, uint64_t idx);
/* Fold one stream's or rank's search (x) into the combined one (*r, first:
 * x is the first): the lowest depth, the windows counted in all, settled when
 * every one settled.  The windows stay in the records of their own. */
void iob_lat_search_fold(struct iob_phase_result *r, const struct iob_phase_result *x, int first);
/* Keys every phase record has after the read facts and status
 * (docs/outputs.md): cpu_user_s, cpu_sys_s, cpu_ns_per_io (the CPU time of
 * the phase's threads, per completed I/O; absent without I/O); for a mixed
 * phase also bytes_read, bytes_written, ops_read, ops_written and
 * lat_write_ns (lat_ns is then the reads'). */
void iob_rec_phase_cpu(struct iob_recbuf *b, const struct iob_phase_result *r);
/* The aggregate's own keys, after those (a "phase" record of N > 1
 * streams): streams, first_done_bw_bytes_per_s, first_done_bytes and
 * first_done_s (absent when the streams did not say what they had done when
 * the first finished), last_done_bw_bytes_per_s, stream_bw_min_bytes_per_s,
 * stream_bw_max_bytes_per_s, partial (some stream failed or was stopped)
 * and failed_stream (absent when none failed). */
void iob_rec_aggregate(struct iob_recbuf *b, const struct iob_aggregate *a);
/* The "group" record (docs/outputs.md): one per phase name of a group of
 * jobs run at once; a is iob_aggregate over every stream of every job's
 * phases of that name; job_bw_min/max the slowest and fastest job's own
 * phase rate; stopped: some job was cut short by another's failure. */
void iob_rec_group(struct iob_recbuf *b, uint32_t group, size_t jobs, int same_block_size,
		   const struct iob_aggregate *a, double job_bw_min, double job_bw_max, int stopped);
/* "ok", "mismatch", "error" or "interrupted". */
const char *iob_phase_status_name(const struct iob_phase_result *r);

/* Caveats collected during a run, printed by every output at the end.
 * Not safe for threads: a run adds notes only from the thread that runs it
 * (streams are joined before their notes are added). */
#define IOB_MAX_NOTES 32
struct iob_notes {
	size_t n;
	char text[IOB_MAX_NOTES][320];
	const char *ptr[IOB_MAX_NOTES];
};
void iob_notes_add(struct iob_notes *n, const char *fmt, ...) IOB_PRINTF(2, 3);

#endif
