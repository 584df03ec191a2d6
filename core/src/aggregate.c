/*
 * aggregate.c - one phase's streams made into one result
 * (iobench/aggregate.h): IOR's rate, elbencho's first and last done, the
 * spread, merged latency and summed counts.
 */
#include "iobench/aggregate.h"

#include <errno.h>
#include <string.h>

void iob_aggregate_free(struct iob_aggregate *a)
{
	iob_hist_free(a->hist);
	iob_hist_free(a->hist_write);
	memset(a, 0, sizeof *a);
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The smallest 1-in-k of the streams that timed anything: weights are
 * k / that, whole powers of two. */
static uint32_t least_every(const struct iob_phase_result *const *r, size_t n)
{
	uint32_t least = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t k = r[i]->lat_sample_every ? r[i]->lat_sample_every : 1;
		if (r[i]->hist && r[i]->hist->count && (least == 0 || k < least))
			least = k;
	}
	return least ? least : 1;
}

static void merge_latency(struct iob_aggregate *a, const struct iob_phase_result *const *r, size_t n)
{
	uint32_t least = least_every(r, n);
	for (size_t i = 0; i < n; i++) {
		uint32_t k = r[i]->lat_sample_every ? r[i]->lat_sample_every : 1;
		uint64_t w = k >= least ? k / least : 1;
		if (r[i]->hist)
			iob_hist_merge_ns(a->hist, r[i]->hist, w);
		if (r[i]->hist_write && a->hist_write)
			iob_hist_merge_ns(a->hist_write, r[i]->hist_write, w);
		if (r[i]->lat_sample_every > a->lat_sample_every) /* 0 stays 0: latency off */
			a->lat_sample_every = r[i]->lat_sample_every;
		a->lat_samples += r[i]->hist ? r[i]->hist->count : 0;
	}
}

static void sum_counts(struct iob_aggregate *a, const struct iob_phase_result *r)
{
#define SUM(f) a->f += r->f;
	IOB_PHASE_SUMS(SUM)
#undef SUM
	a->errors_counted |= r->errors_counted;
	for (uint32_t i = 0; i < r->bs_hist.n; i++)
		for (int d = 0; d < 2; d++)
			if (r->bs_hist.ios[d][i])
				iob_bs_hist_add(&a->bs_hist, d, r->bs_hist.size[i], r->bs_hist.ios[d][i], r->bs_hist.bytes[d][i]);
	for (uint32_t i = 0; i < r->prio_hist.n; i++)
		for (int d = 0; d < 2; d++)
			if (r->prio_hist.ios[d][i])
				iob_prio_hist_add(&a->prio_hist, d, r->prio_hist.prio[i], r->prio_hist.ios[d][i]);
	if (r->sync_ns > a->sync_ns)
		a->sync_ns = r->sync_ns;
	if (r->os_read_bytes == UINT64_MAX || a->os_read_bytes == UINT64_MAX) {
		a->os_read_bytes = a->os_write_bytes = UINT64_MAX;
	} else {
		a->os_read_bytes = add_sat(a->os_read_bytes, r->os_read_bytes);
		a->os_write_bytes = add_sat(a->os_write_bytes, r->os_write_bytes);
	}
	if (r->storage_read_bytes == UINT64_MAX || a->storage_read_bytes == UINT64_MAX) {
		a->storage_read_bytes = a->storage_write_bytes = UINT64_MAX;
	} else {
		a->storage_read_bytes = add_sat(a->storage_read_bytes, r->storage_read_bytes);
		a->storage_write_bytes = add_sat(a->storage_write_bytes, r->storage_write_bytes);
	}
	a->direct &= r->direct != 0;
}

static void outcome(struct iob_aggregate *a, const struct iob_phase_result *r, size_t i)
{
	if (r->interrupted)
		a->interrupted = 1;
	a->pass_cut |= r->pass_cut;
	a->device_full |= r->device_full;
	if (r->interrupted || r->status < 0)
		a->partial = 1;
	/* an error outranks a mismatch: it says why the phase is partial */
	if ((r->status < 0 && a->status >= 0) || (r->status > 0 && a->status == 0)) {
		a->status = r->status;
		a->failed_stream = i;
	}
}

/* The window: first start to last end on the one monotonic clock. */
static void window(struct iob_aggregate *a, const struct iob_phase_result *const *r, size_t n)
{
	uint64_t longest = 0;
	int known = 1;
	for (size_t i = 0; i < n; i++) {
		if (r[i]->elapsed_ns > longest)
			longest = r[i]->elapsed_ns;
		if (r[i]->end_ns == 0 || r[i]->end_ns < r[i]->start_ns) {
			known = 0;
			continue;
		}
		if (i == 0 || r[i]->start_ns < a->start_ns)
			a->start_ns = r[i]->start_ns;
		if (r[i]->end_ns > a->end_ns)
			a->end_ns = r[i]->end_ns;
		if (i == 0 || r[i]->end_ns < a->first_end_ns)
			a->first_end_ns = r[i]->end_ns;
	}
	/* without the streams' clock readings only the longest stream is known */
	a->elapsed_ns = known && a->end_ns > a->start_ns ? a->end_ns - a->start_ns : longest;
	if (a->elapsed_ns == 0)
		a->elapsed_ns = 1;
	if (!known)
		a->start_ns = a->end_ns = a->first_end_ns = 0;
}

int iob_aggregate(const struct iob_phase_result *const *r, size_t n, struct iob_aggregate *out)
{
	memset(out, 0, sizeof *out);
	if (n == 0)
		return -EINVAL;
	int mixed = 0;
	for (size_t i = 0; i < n; i++)
		mixed |= r[i]->hist_write != NULL;
	out->hist = iob_hist_new();
	out->hist_write = mixed ? iob_hist_new() : NULL;
	if (!out->hist || (mixed && !out->hist_write)) {
		iob_aggregate_free(out);
		return -ENOMEM;
	}
	out->streams = n;
	out->phase = r[0]->phase;
	out->pattern_label = r[0]->pattern_label;
	out->block_size = r[0]->block_size;
	out->direct = 1;
	uint64_t first_done = 0;
	for (size_t i = 0; i < n; i++) {
		sum_counts(out, r[i]);
		outcome(out, r[i], i);
		first_done += r[i]->first_done_bytes;
		double bw = iob_phase_bw(r[i]);
		if (i == 0 || bw < out->stream_bw_min)
			out->stream_bw_min = bw;
		if (i == 0 || bw > out->stream_bw_max)
			out->stream_bw_max = bw;
	}
	window(out, r, n);
	merge_latency(out, r, n);
	double secs = (double)out->elapsed_ns / 1e9;
	out->bw = (double)out->bytes / secs;
	out->iops = (double)out->ops / secs;
	out->last_done_bw = out->bw;
	/* one stream is its own first to finish */
	if (n == 1 || out->bytes == 0) {
		out->first_done_known = 1;
		out->first_done_bw = out->bw;
		out->first_done_bytes = out->bytes;
		out->first_done_ns = out->elapsed_ns;
	} else if (first_done && out->first_end_ns > out->start_ns) {
		out->first_done_known = 1;
		out->first_done_bytes = first_done;
		out->first_done_ns = out->first_end_ns - out->start_ns;
		out->first_done_bw = (double)first_done / ((double)out->first_done_ns / 1e9);
	}
	return 0;
}

void iob_aggregate_as_result(const struct iob_aggregate *a, struct iob_phase_result *r)
{
	memset(r, 0, sizeof *r);
	r->phase = a->phase;
	r->pattern_label = a->pattern_label;
	r->block_size = a->block_size;
#define COPY(f) r->f = a->f;
	IOB_PHASE_SUMS(COPY)
#undef COPY
	r->elapsed_ns = a->elapsed_ns;
	r->sync_ns = a->sync_ns;
	r->hist = a->hist;
	r->hist_write = a->hist_write;
	r->lat_sample_every = a->lat_sample_every;
	r->lat_samples = a->lat_samples;
	r->direct = a->direct;
	r->os_read_bytes = a->os_read_bytes;
	r->os_write_bytes = a->os_write_bytes;
	r->storage_read_bytes = a->storage_read_bytes;
	r->storage_write_bytes = a->storage_write_bytes;
	r->unwritten_bytes = UINT64_MAX;
	r->status = a->status;
	r->interrupted = a->interrupted;
	r->pass_cut = a->pass_cut;
	r->device_full = a->device_full;
	r->start_ns = a->start_ns;
	r->end_ns = a->end_ns;
	r->bs_hist = a->bs_hist;
	r->prio_hist = a->prio_hist;
	r->errors_counted = a->errors_counted;
}
