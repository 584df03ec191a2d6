/*
 * intervals.c - a phase's time series (iobench/intervals.h).
 */
#include "iobench/intervals.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/os.h"
#include "iobench/units.h"

/* The three histograms of one set of interval figures (all I/O, or a mixed
 * phase's writes): this interval's, the last one's, their difference. */
static int hists_new(struct iob_hist **cur, struct iob_hist **prev, struct iob_hist **diff)
{
	*cur = iob_hist_new();
	*prev = iob_hist_new();
	*diff = iob_hist_new();
	return *cur && *prev && *diff ? 0 : -ENOMEM;
}

static void hists_free(struct iob_hist *cur, struct iob_hist *prev, struct iob_hist *diff)
{
	iob_hist_free(cur);
	iob_hist_free(prev);
	iob_hist_free(diff);
}

int iob_intervals_init(struct iob_intervals *iv, struct iob_live *live, size_t nstreams, int lat)
{
	memset(iv, 0, sizeof *iv);
	iv->live = live;
	iv->nstreams = nstreams;
	iv->lat = lat;
	if (!lat)
		return 0;
	if (hists_new(&iv->cur, &iv->prev, &iv->diff) != 0)
		return -ENOMEM;
	for (size_t i = 0; i < nstreams; i++)
		if (!(live[i].snap = iob_hist_new()))
			return -ENOMEM;
	return 0;
}

static int split_hists(struct iob_intervals *iv)
{
	iv->split = 1;
	return hists_new(&iv->cur_w, &iv->prev_w, &iv->diff_w);
}

int iob_intervals_split(struct iob_intervals *iv)
{
	if (!iv->lat)
		return 0;
	if (split_hists(iv) != 0)
		return -ENOMEM;
	for (size_t i = 0; i < iv->nstreams; i++)
		if (!(iv->live[i].snap_w = iob_hist_new()))
			return -ENOMEM;
	return 0;
}

int iob_intervals_clones(struct iob_intervals *iv)
{
	if (!iv->lat || iv->clones)
		return 0;
	if (!(iv->clones = calloc(iv->nstreams, sizeof *iv->clones)))
		return -ENOMEM;
	for (size_t i = 0; i < iv->nstreams; i++) {
		struct iob_intervals *c = &iv->clones[i];
		/* the stream's snapshots are the phase's: allocated once, above */
		c->live = &iv->live[i];
		c->nstreams = 1;
		c->lat = 1;
		c->view = 1;
		if (hists_new(&c->cur, &c->prev, &c->diff) != 0 || (iv->split && split_hists(c) != 0)) {
			for (size_t k = 0; k <= i; k++)
				iob_intervals_free(&iv->clones[k]);
			free(iv->clones);
			iv->clones = NULL;
			return -ENOMEM;
		}
	}
	return 0;
}

void iob_intervals_free(struct iob_intervals *iv)
{
	for (size_t i = 0; iv->clones && i < iv->nstreams; i++)
		iob_intervals_free(&iv->clones[i]);
	free(iv->clones);
	for (size_t i = 0; iv->live && !iv->view && i < iv->nstreams; i++) {
		iob_hist_free(iv->live[i].snap);
		iv->live[i].snap = NULL;
		iob_hist_free(iv->live[i].snap_w);
		iv->live[i].snap_w = NULL;
	}
	hists_free(iv->cur, iv->prev, iv->diff);
	hists_free(iv->cur_w, iv->prev_w, iv->diff_w);
	free(iv->v);
	memset(iv, 0, sizeof *iv);
}

void iob_intervals_ask(struct iob_intervals *iv)
{
	for (size_t i = 0; iv->lat && i < iv->nstreams; i++)
		__atomic_add_fetch(&iv->live[i].want, 1, __ATOMIC_RELEASE);
}

int iob_intervals_answered(const struct iob_intervals *iv)
{
	for (size_t i = 0; iv->lat && i < iv->nstreams; i++) {
		struct iob_live *l = &iv->live[i];
		if (__atomic_load_n(&l->got, __ATOMIC_ACQUIRE) != __atomic_load_n(&l->want, __ATOMIC_RELAXED))
			return 0;
	}
	return 1;
}

/* d = a - b, where a is a later snapshot of the cumulative histogram b was
 * taken from (same scale): exact bucket by bucket, and in sum and sum of
 * squares (so its mean is the interval's).  The difference's min and max are
 * the bounds of its lowest and highest buckets. */
static void hist_diff(struct iob_hist *d, const struct iob_hist *a, const struct iob_hist *b)
{
	iob_hist_reset(d);
	d->ns_per_tick = a->ns_per_tick;
	d->sum = a->sum > b->sum ? a->sum - b->sum : 0;
	d->sumsq = a->sumsq > b->sumsq ? a->sumsq - b->sumsq : 0;
	int first = 1;
	for (unsigned i = 0; i < IOB_HIST_BUCKETS; i++) {
		uint64_t n = a->bucket[i] > b->bucket[i] ? a->bucket[i] - b->bucket[i] : 0;
		if (!n)
			continue;
		d->bucket[i] = n;
		d->count += n;
		if (first)
			d->min = iob_hist_bucket_low(i);
		first = 0;
		d->max = iob_hist_bucket_high(i);
	}
	if (d->min < a->min)
		d->min = a->min;
	if (d->max > a->max)
		d->max = a->max;
}

static int take(struct iob_intervals *iv, uint64_t now_ns, int final);

int iob_intervals_take(struct iob_intervals *iv, uint64_t now_ns, int final)
{
	int rc = take(iv, now_ns, final);
	/* each stream's own, at its own last snapshot, with the phase's */
	for (size_t i = 0; (rc == 1 || (final && rc == 0)) && iv->clones && i < iv->nstreams; i++)
		if (take(&iv->clones[i], now_ns, final) < 0)
			return -ENOMEM;
	return rc;
}

static int take(struct iob_intervals *iv, uint64_t now_ns, int final)
{
	uint64_t bytes = 0, ops = 0, start = 0, at = 0, bytes_w = 0, ops_w = 0;
	int ramping = 0;
	iob_hist_reset(iv->cur);
	if (iv->split)
		iob_hist_reset(iv->cur_w);
	for (size_t i = 0; i < iv->nstreams; i++) {
		struct iob_live *l = &iv->live[i];
		/* bytes, ops and latency from one snapshot, so they agree: a stream
		 * that has not answered yet gives its last one (what it did since
		 * goes to the next interval) */
		iob_live_lock(l);
		int r = l->snap_ramping;
		if (!r) {
			iob_hist_merge(iv->cur, l->snap);
			bytes += l->snap_bytes;
			ops += l->snap_ops;
			if (iv->split) {
				iob_hist_merge(iv->cur_w, l->snap_w);
				bytes_w += l->snap_bytes_w;
				ops_w += l->snap_ops_w;
			}
			at = l->snap_ns > at ? l->snap_ns : at;
		}
		iob_live_unlock(l);
		uint64_t s = __atomic_load_n(&l->start_ns, __ATOMIC_RELAXED);
		ramping |= r | __atomic_load_n(&l->ramping, __ATOMIC_RELAXED);
		if (s && (!start || s < start))
			start = s;
	}
	if (ramping)
		return 0; /* the window has not started for every stream */
	/* the interval ends at the latest snapshot: its figures are of then */
	now_ns = at ? at : now_ns;
	if (!iv->window_ns)
		iv->window_ns = start && start < now_ns ? start : now_ns;
	if (iv->prev_end && now_ns <= iv->prev_end && !final)
		return 0; /* no stream has answered since the last interval */
	uint64_t from = iv->prev_end ? iv->prev_end : iv->window_ns;
	if (final && iv->n && now_ns <= from && bytes <= iv->prev_bytes && ops <= iv->prev_ops)
		return 0; /* the observer's last look was the phase's end: nothing is left */
	if (iob_grow(&iv->v, &iv->cap, iv->n, sizeof *iv->v, 64) < 0)
		return -ENOMEM;
	struct iob_interval *in = &iv->v[iv->n];
	memset(in, 0, sizeof *in);
	in->index = (uint32_t)iv->n;
	in->end_ns = now_ns > iv->window_ns ? now_ns - iv->window_ns : 0;
	in->len_ns = now_ns > from ? now_ns - from : 0;
	in->bytes = bytes > iv->prev_bytes ? bytes - iv->prev_bytes : 0;
	in->ops = ops > iv->prev_ops ? ops - iv->prev_ops : 0;
	hist_diff(iv->diff, iv->cur, iv->prev);
	in->lat_samples = iv->diff->count;
	if (in->lat_samples) {
		in->p50_ns = iob_hist_percentile(iv->diff, 50);
		in->p99_ns = iob_hist_percentile(iv->diff, 99);
		in->lat_mean_ns = iob_hist_mean(iv->diff);
	}
	struct iob_hist *t = iv->prev;
	iv->prev = iv->cur;
	iv->cur = t;
	if (iv->split) {
		in->bytes_w = bytes_w > iv->prev_bytes_w ? bytes_w - iv->prev_bytes_w : 0;
		in->ops_w = ops_w > iv->prev_ops_w ? ops_w - iv->prev_ops_w : 0;
		hist_diff(iv->diff_w, iv->cur_w, iv->prev_w);
		in->lat_samples_w = iv->diff_w->count;
		in->lat_mean_w_ns = in->lat_samples_w ? iob_hist_mean(iv->diff_w) : 0.0;
		t = iv->prev_w;
		iv->prev_w = iv->cur_w;
		iv->cur_w = t;
		iv->prev_bytes_w = bytes_w > iv->prev_bytes_w ? bytes_w : iv->prev_bytes_w;
		iv->prev_ops_w = ops_w > iv->prev_ops_w ? ops_w : iv->prev_ops_w;
	}
	iv->prev_bytes = bytes > iv->prev_bytes ? bytes : iv->prev_bytes;
	iv->prev_ops = ops > iv->prev_ops ? ops : iv->prev_ops;
	iv->prev_end = now_ns;
	iv->n++;
	if (iv->csv && !iv->csv_error) {
		double s = (double)in->len_ns / 1e9;
		char p50[32] = "", p99[32] = "";
		if (in->lat_samples) {
			snprintf(p50, sizeof p50, "%llu", (unsigned long long)in->p50_ns);
			snprintf(p99, sizeof p99, "%llu", (unsigned long long)in->p99_ns);
		}
		/* one row, one write, flushed: a reader sees whole rows as they come */
		char row[1024];
		int len = snprintf(
		    row, sizeof row, "%s,%s,%llu,%u,%.6f,%.6f,%llu,%llu,%.3f,%.3f,%llu,%s,%s\n", iv->job,
		    iv->phase, (unsigned long long)iv->block_size, in->index, (double)in->end_ns / 1e9, s,
		    (unsigned long long)in->bytes, (unsigned long long)in->ops,
		    s > 0 ? (double)in->bytes / s : 0.0, s > 0 ? (double)in->ops / s : 0.0,
		    (unsigned long long)in->lat_samples, p50, p99);
		if (len < 0 || (size_t)len >= sizeof row ||
		    fwrite(row, 1, (size_t)len, iv->csv) != (size_t)len || fflush(iv->csv) != 0)
			iv->csv_error = errno ? errno : EIO;
	}
	return 1;
}

int iob_intervals_csv_header(FILE *f)
{
	static const char h[] =
	    "job,phase,block_size_bytes,interval,time_s,interval_s,bytes,ops,bw_bytes_per_s,"
	    "ops_per_s,lat_samples,lat_p50_ns,lat_p99_ns\n";
	return fwrite(h, 1, sizeof h - 1, f) == sizeof h - 1 && fflush(f) == 0 ? 0 : -(errno ? errno : EIO);
}

void iob_rec_interval(struct iob_recbuf *rb, const char *job, const char *phase, uint64_t block_size,
		      const struct iob_interval *in)
{
	double s = (double)in->len_ns / 1e9;
	iob_rec_reset(rb, "interval");
	iob_rec_str(rb, "job", job);
	iob_rec_str(rb, "phase", phase);
	iob_rec_u64(rb, "block_size_bytes", IOB_UNIT_BYTES, block_size);
	iob_rec_u64(rb, "interval", IOB_UNIT_COUNT, in->index);
	iob_rec_f64(rb, "time_s", IOB_UNIT_S, (double)in->end_ns / 1e9);
	iob_rec_f64(rb, "interval_s", IOB_UNIT_S, s);
	iob_rec_u64(rb, "bytes", IOB_UNIT_BYTES, in->bytes);
	iob_rec_u64(rb, "ops", IOB_UNIT_OPS, in->ops);
	iob_rec_f64(rb, "bw_bytes_per_s", IOB_UNIT_BYTES_PER_S, s > 0 ? (double)in->bytes / s : 0.0);
	iob_rec_f64(rb, "ops_per_s", IOB_UNIT_OPS_PER_S, s > 0 ? (double)in->ops / s : 0.0);
	iob_rec_u64(rb, "lat_samples", IOB_UNIT_COUNT, in->lat_samples);
	iob_rec_u64_if(rb, "lat_p50_ns", IOB_UNIT_NS, in->lat_samples != 0, in->p50_ns);
	iob_rec_u64_if(rb, "lat_p99_ns", IOB_UNIT_NS, in->lat_samples != 0, in->p99_ns);
}

/* ------------------------------------------------------------ live CSV */

static void livecsv_free(struct iob_livecsv *lc)
{
	for (size_t i = 0; i < lc->n; i++)
		free(lc->path[i]);
	free(lc->path);
	free(lc->f);
	free(lc->error);
	free(lc->of);
	memset(lc, 0, sizeof *lc);
}

int iob_livecsv_open(struct iob_livecsv *lc, const struct iob_suite *suite, char *err, size_t errlen)
{
	memset(lc, 0, sizeof *lc);
	size_t cap = suite->njobs;
	if (!cap)
		return 0;
	lc->path = calloc(cap, sizeof *lc->path);
	lc->f = calloc(cap, sizeof *lc->f);
	lc->error = calloc(cap, sizeof *lc->error);
	lc->of = calloc(cap, sizeof *lc->of);
	if (!lc->path || !lc->f || !lc->error || !lc->of) {
		livecsv_free(lc);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t j = 0; j < suite->njobs; j++) {
		const char *p = suite->jobs[j].livecsv;
		if (!p[0] || iob_livecsv_file(lc, p, NULL))
			continue;
		/* checked, created when missing, not emptied before the run starts
		 * (iob_livecsv_commit): only what this made is ever removed */
		unsigned flags = suite->jobs[j].allow_devices ? IOB_OUT_CHARDEV : 0;
		int rc = iob_outfile_open(&lc->of[lc->n], "livecsv", p, flags, err, errlen);
		if (rc == 0 && !(lc->path[lc->n] = strdup(p))) {
			iob_outfile_unmake(&lc->of[lc->n]);
			iob_outfile_close(&lc->of[lc->n]);
			snprintf(err, errlen, "out of memory");
			rc = -ENOMEM;
		}
		if (rc) {
			iob_livecsv_unmake(lc);
			for (size_t i = 0; i < lc->n; i++)
				iob_outfile_close(&lc->of[i]);
			livecsv_free(lc);
			return rc;
		}
		lc->f[lc->n] = lc->of[lc->n].f;
		lc->n++;
	}
	return 0;
}

int iob_livecsv_commit(struct iob_livecsv *lc, char *err, size_t errlen)
{
	for (size_t i = 0; lc && i < lc->n; i++) {
		int rc = iob_outfile_commit(&lc->of[i]);
		if (rc == 0)
			rc = iob_intervals_csv_header(lc->f[i]);
		if (rc) {
			snprintf(err, errlen, "livecsv %s: %s", IOB_Q(lc->path[i]), strerror(-rc));
			return rc;
		}
	}
	return 0;
}

void iob_livecsv_unmake(struct iob_livecsv *lc)
{
	for (size_t i = 0; i < lc->n; i++)
		iob_outfile_unmake(&lc->of[i]);
}

FILE *iob_livecsv_file(struct iob_livecsv *lc, const char *path, int **error)
{
	for (size_t i = 0; lc && path && path[0] && i < lc->n; i++)
		if (strcmp(lc->path[i], path) == 0) {
			if (error)
				*error = &lc->error[i];
			return lc->f[i];
		}
	return NULL;
}

int iob_livecsv_close(struct iob_livecsv *lc, char *err, size_t errlen)
{
	int rc = 0;
	for (size_t i = 0; i < lc->n; i++) {
		int e = lc->error[i];
		int crc = iob_outfile_close(&lc->of[i]);
		if (crc < 0 && !e)
			e = -crc;
		if (e && !rc) {
			rc = -e;
			snprintf(err, errlen, "livecsv %s: writing failed: %s", IOB_Q(lc->path[i]),
				 strerror(e));
		}
	}
	livecsv_free(lc);
	return rc;
}
