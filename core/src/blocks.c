/*
 * blocks.c - block records and the summary of a series phase
 * (iobench/blocks.h).
 */
#include "iobench/blocks.h"
#include "iobench/log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *iob_clock_name(enum iob_clock clock)
{
	static const char *const words[] = {[IOB_CLOCK_USER] = "user", [IOB_CLOCK_SYSTEM] = "system",
					    [IOB_CLOCK_PROCESS] = "process", [IOB_CLOCK_WALL] = "wall"};
	return (unsigned)clock < sizeof words / sizeof words[0] ? words[clock] : "wall";
}

int iob_blocks_init(struct iob_blocks *b, enum iob_clock clock, const char *job, const char *file,
		    uint64_t block_size)
{
	memset(b, 0, sizeof *b);
	b->clock = clock;
	b->resolution_ns = iob_clock_resolution_ns(clock);
	b->job = job;
	b->file = file;
	b->block_size = block_size;
	iob_speed_stream_init(&b->stream, b->resolution_ns);
	b->rb = malloc(sizeof *b->rb);
	return b->rb ? 0 : -ENOMEM;
}

void iob_blocks_free(struct iob_blocks *b)
{
	free(b->rb);
	b->rb = NULL;
}

static void emit_header(struct iob_blocks *b, struct iob_outputs *out)
{
	if (b->header || !out)
		return;
	b->header = 1;
	iob_rec_reset(b->rb, "series");
	iob_rec_str(b->rb, "job", b->job);
	iob_rec_str(b->rb, "file", b->file);
	iob_rec_u64(b->rb, "block_size_bytes", IOB_UNIT_BYTES, b->block_size);
	iob_rec_str(b->rb, "series_clock", iob_clock_name(b->clock));
	iob_rec_u64(b->rb, "clock_resolution_ns", IOB_UNIT_NS, b->resolution_ns);
	iob_outputs_record(out, &b->rb->rec);
}

static void emit_block(struct iob_blocks *b, struct iob_outputs *out, size_t i, uint64_t bytes, uint64_t ns,
		       double speed, int merged)
{
	struct iob_recbuf *rb = b->rb;
	emit_header(b, out);
	iob_rec_reset(rb, "block");
	iob_rec_u64(rb, "index", IOB_UNIT_COUNT, i);
	iob_rec_u64(rb, "offset_bytes", IOB_UNIT_BYTES, b->emitted_off);
	iob_rec_u64(rb, "bytes", IOB_UNIT_BYTES, bytes);
	iob_rec_u64(rb, "time_ns", IOB_UNIT_NS, ns);
	iob_rec_f64(rb, "speed_bytes_per_s", IOB_UNIT_BYTES_PER_S, speed);
	iob_rec_bool(rb, "merged", merged);
	iob_outputs_record_batch(out, &rb->rec);
	b->emitted_off += bytes;
}

void iob_blocks_stream(struct iob_blocks *b, const struct iob_series *s, struct iob_outputs *out)
{
	size_t from, to;
	double speed;
	if (!out || !b->rb)
		return;
	if (s->n == 0) { /* the file is open: the header goes out before the first block */
		emit_header(b, out);
		return;
	}
	while (iob_speed_stream_next(&b->stream, s, &from, &to, &speed)) {
		for (size_t i = from; i < to; i++)
			emit_block(b, out, i, s->bytes[i], s->ns[i], speed, to - from > 1);
		b->emitted = to;
	}
}

/* Append the figures of st under "<prefix>n", "<prefix>min_bytes_per_s"... */
static void rec_stats(struct iob_recbuf *rb, const char *prefix, const struct iob_stats *st)
{
	static const char *const speed_keys[] = {"speed_n",
						 "speed_min_bytes_per_s",
						 "speed_max_bytes_per_s",
						 "speed_mean_bytes_per_s",
						 "speed_median_bytes_per_s",
						 "speed_rms_bytes_per_s",
						 "speed_q1_bytes_per_s",
						 "speed_q3_bytes_per_s"};
	static const char *const robust_keys[] = {"robust_n",
						  "robust_min_bytes_per_s",
						  "robust_max_bytes_per_s",
						  "robust_mean_bytes_per_s",
						  "robust_median_bytes_per_s",
						  "robust_rms_bytes_per_s",
						  "robust_q1_bytes_per_s",
						  "robust_q3_bytes_per_s"};
	const char *const *keys = strcmp(prefix, "speed_") == 0 ? speed_keys : robust_keys;
	const double v[7] = {st->min, st->max, st->mean, st->median, st->rms, st->q1, st->q3};
	iob_rec_u64(rb, keys[0], IOB_UNIT_COUNT, st->n);
	for (size_t i = 0; i < 7; i++) {
		if (st->n)
			iob_rec_f64(rb, keys[i + 1], IOB_UNIT_BYTES_PER_S, v[i]);
		else
			iob_rec_absent(rb, keys[i + 1], IOB_UNIT_BYTES_PER_S);
	}
}

int iob_blocks_summary(struct iob_blocks *b, struct iob_phase_result *r, struct iob_recbuf *rb,
		       struct iob_outputs *out, struct iob_notes *notes, char *err, size_t errlen)
{
	struct iob_series *s = &r->series;
	size_t n = iob_series_drop_empty(s);
	double *speed = n ? malloc(n * sizeof *speed) : NULL;
	unsigned char *merged = n ? malloc(n) : NULL;
	struct iob_stats all, robust;
	struct iob_cliff cliff;
	size_t nmerged = 0;
	uint64_t cliff_off = 0, off = 0;
	int rc = 0;

	memset(&all, 0, sizeof all);
	memset(&robust, 0, sizeof robust);
	memset(&cliff, 0, sizeof cliff);
	if (n && (!speed || !merged))
		rc = -ENOMEM;
	if (rc == 0 && n && (rc = iob_series_speeds(s, b->resolution_ns, speed, merged, &nmerged)) == -ERANGE) {
		if (b->clock == IOB_CLOCK_PROCESS) /* Windows: GetProcessTimes counts whole ticks */
			snprintf(err, errlen,
				 "the process CPU clock measured no time at all over %zu block(s), so no speed can "
				 "be given (this OS counts CPU time in scheduler ticks, and no tick fell there); "
				 "time with the wall clock",
				 n);
		else
			snprintf(err, errlen,
				 "the %s CPU clock measured no time at all over %zu block(s), so no speed can be "
				 "given (the kernel splits CPU time into user and system at its scheduler tick, and "
				 "no tick fell there); time with the process or wall clock",
				 iob_clock_name(b->clock), n);
	}
	if (rc == 0 && n)
		rc = iob_speeds_summary(speed, n, &all, &robust, &cliff);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory for the statistics of %zu blocks", n);
	if (rc == 0) {
		emit_header(b, out);
		for (size_t i = 0; i < n; i++) {
			if (cliff.found && i == cliff.block)
				cliff_off = off;
			if (i >= b->emitted && out) {
				emit_block(b, out, i, s->bytes[i], s->ns[i], speed[i], merged[i]);
				b->emitted = i + 1;
			}
			off += s->bytes[i];
		}
		if (!cliff.found && cliff.why)
			iob_log(IOB_LOG_INFO, NULL,
				"no cliff (%s); best candidate: block %zu, %.3f MiB/s before, %.3f after, shares "
				"%.2f/%.2f",
				cliff.why, cliff.block, cliff.before / 1048576.0, cliff.after / 1048576.0,
				cliff.share_before, cliff.share_after);
		if (nmerged)
			iob_notes_add(notes,
				      "%zu block(s) took less than the %s clock's resolution (%" PRIu64
				      " ns); each was merged with the blocks after it and shows the speed of its group",
				      nmerged, iob_clock_name(b->clock), b->resolution_ns);
	}
	iob_rec_str(rb, "series_clock", iob_clock_name(b->clock));
	iob_rec_u64(rb, "clock_resolution_ns", IOB_UNIT_NS, b->resolution_ns);
	iob_rec_u64(rb, "blocks", IOB_UNIT_COUNT, n);
	iob_rec_u64(rb, "merged_blocks", IOB_UNIT_COUNT, nmerged);
	rec_stats(rb, "speed_", &all);
	rec_stats(rb, "robust_", &robust);
	iob_rec_bool(rb, "cliff", cliff.found);
	if (cliff.found) {
		iob_rec_u64(rb, "cliff_block", IOB_UNIT_COUNT, cliff.block);
		iob_rec_u64(rb, "cliff_offset_bytes", IOB_UNIT_BYTES, cliff_off);
		iob_rec_f64(rb, "cliff_before_bytes_per_s", IOB_UNIT_BYTES_PER_S, cliff.before);
		iob_rec_f64(rb, "cliff_after_bytes_per_s", IOB_UNIT_BYTES_PER_S, cliff.after);
		iob_rec_f64(rb, "cliff_ratio", IOB_UNIT_NONE, cliff.ratio);
	} else {
		iob_rec_absent(rb, "cliff_block", IOB_UNIT_COUNT);
		iob_rec_absent(rb, "cliff_offset_bytes", IOB_UNIT_BYTES);
		iob_rec_absent(rb, "cliff_before_bytes_per_s", IOB_UNIT_BYTES_PER_S);
		iob_rec_absent(rb, "cliff_after_bytes_per_s", IOB_UNIT_BYTES_PER_S);
		iob_rec_absent(rb, "cliff_ratio", IOB_UNIT_NONE);
	}
	free(speed);
	free(merged);
	return rc;
}
