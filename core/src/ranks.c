/*
 * ranks.c - one phase across MPI ranks (ranks.h): each rank's record and
 * result serialized, gathered on rank 0, re-emitted there, aggregated by
 * iob_aggregate, and a verdict broadcast back.
 */
#include "ranks.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/aggregate.h"
#include "iobench/cmdprio.h"
#include "iobench/coord.h"
#include "iobench/hist.h"
#include "iobench/live.h"
#include "iobench/os.h"
#include "iobench/result.h"
#include "iobench/shape.h"
#include "iobench/units.h"

/* ------------------------------------------------------------ the wire */

struct wbuf {
	unsigned char *p;
	size_t n, cap;
	int err;
};

static void put(struct wbuf *w, const void *v, size_t len)
{
	if (w->err)
		return;
	if (w->n + len > w->cap) {
		size_t cap = w->cap ? w->cap : 4096;
		while (cap < w->n + len)
			cap *= 2;
		unsigned char *p = realloc(w->p, cap);
		if (!p) {
			w->err = -ENOMEM;
			return;
		}
		w->p = p;
		w->cap = cap;
	}
	memcpy(w->p + w->n, v, len);
	w->n += len;
}

static void put_u64(struct wbuf *w, uint64_t v)
{
	put(w, &v, sizeof v);
}

static void put_f64(struct wbuf *w, double v)
{
	put(w, &v, sizeof v);
}

static void put_str(struct wbuf *w, const char *s)
{
	uint64_t n = s ? strlen(s) : UINT64_MAX;
	put_u64(w, n);
	if (s)
		put(w, s, (size_t)n);
}

struct rbuf {
	const unsigned char *p;
	size_t n, at;
	int err;
};

static void get(struct rbuf *r, void *v, size_t len)
{
	if (r->err || r->at + len > r->n) {
		r->err = -EPROTO;
		memset(v, 0, len);
		return;
	}
	memcpy(v, r->p + r->at, len);
	r->at += len;
}

static uint64_t get_u64(struct rbuf *r)
{
	uint64_t v;
	get(r, &v, sizeof v);
	return v;
}

static double get_f64(struct rbuf *r)
{
	double v;
	get(r, &v, sizeof v);
	return v;
}

/* a string of the buffer, copied into the arena (NULL stays NULL) */
static char *get_str(struct rbuf *r, char **arena, size_t *left)
{
	uint64_t n = get_u64(r);
	if (r->err || n == UINT64_MAX)
		return NULL;
	if (n + 1 > *left || r->at + n > r->n) {
		r->err = -EPROTO;
		return NULL;
	}
	char *s = *arena;
	memcpy(s, r->p + r->at, (size_t)n);
	s[n] = '\0';
	r->at += (size_t)n;
	*arena += n + 1;
	*left -= n + 1;
	return s;
}

static void put_hist(struct wbuf *w, const struct iob_hist *h)
{
	put_u64(w, h != NULL);
	if (!h)
		return;
	uint64_t used = 0;
	for (unsigned i = 0; i < IOB_HIST_BUCKETS; i++)
		used += h->bucket[i] != 0;
	put_f64(w, h->ns_per_tick);
	put_u64(w, h->count);
	put_u64(w, h->min);
	put_u64(w, h->max);
	put_u64(w, h->sum);
	put_f64(w, (double)h->sumsq);
	put_u64(w, used);
	for (unsigned i = 0; i < IOB_HIST_BUCKETS; i++)
		if (h->bucket[i]) {
			put_u64(w, i);
			put_u64(w, h->bucket[i]);
		}
}

static int get_hist(struct rbuf *r, struct iob_hist **out)
{
	*out = NULL;
	if (!get_u64(r))
		return r->err;
	struct iob_hist *h = iob_hist_new();
	if (!h)
		return -ENOMEM;
	h->ns_per_tick = get_f64(r);
	h->count = get_u64(r);
	h->min = get_u64(r);
	h->max = get_u64(r);
	h->sum = get_u64(r);
	h->sumsq = get_f64(r);
	uint64_t used = get_u64(r), total = 0;
	for (uint64_t k = 0; k < used && !r->err; k++) {
		uint64_t i = get_u64(r), c = get_u64(r);
		if (i >= IOB_HIST_BUCKETS)
			r->err = -EPROTO;
		else
			h->bucket[i] = c;
		total += c;
	}
	if (!r->err && total != h->count)
		r->err = -EPROTO; /* the counts must add up (hist.h) */
	*out = h;
	return r->err;
}

/* A shaped phase's block sizes (n 0: not kept), entry by entry as kept */
static void put_bs_hist(struct wbuf *w, const struct iob_bs_hist *h)
{
	put_u64(w, h->n);
	for (uint32_t i = 0; i < h->n && i < IOB_BS_HIST_MAX; i++) {
		put_u64(w, h->size[i]);
		for (int d = 0; d < 2; d++) {
			put_u64(w, h->ios[d][i]);
			put_u64(w, h->bytes[d][i]);
		}
	}
}

/* A histogram's number of entries, at most max (past it: none, -EPROTO). */
static uint32_t get_entries(struct rbuf *r, uint64_t max)
{
	uint64_t n = get_u64(r);
	if (n > max) {
		r->err = -EPROTO;
		return 0;
	}
	return (uint32_t)n;
}

static void get_bs_hist(struct rbuf *r, struct iob_bs_hist *h)
{
	memset(h, 0, sizeof *h);
	h->n = get_entries(r, IOB_BS_HIST_MAX);
	for (uint32_t i = 0; i < h->n; i++) {
		h->size[i] = get_u64(r);
		for (int d = 0; d < 2; d++) {
			h->ios[d][i] = get_u64(r);
			h->bytes[d][i] = get_u64(r);
		}
	}
}

/* cmdprio's I/Os per priority (n 0: not kept), entry by entry as kept */
static void put_prio_hist(struct wbuf *w, const struct iob_prio_hist *h)
{
	put_u64(w, h->n);
	for (uint32_t i = 0; i < h->n && i < IOB_PRIO_HIST_MAX; i++) {
		put_u64(w, h->prio[i]);
		put_u64(w, h->ios[0][i]);
		put_u64(w, h->ios[1][i]);
	}
}

static void get_prio_hist(struct rbuf *r, struct iob_prio_hist *h)
{
	memset(h, 0, sizeof *h);
	h->n = get_entries(r, IOB_PRIO_HIST_MAX);
	for (uint32_t i = 0; i < h->n; i++) {
		uint64_t prio = get_u64(r);
		if (prio > UINT16_MAX)
			r->err = -EPROTO;
		h->prio[i] = (uint16_t)prio;
		h->ios[0][i] = get_u64(r);
		h->ios[1][i] = get_u64(r);
	}
}

/* latency_target's search: what it found, then its windows as kept (a rank
 * of one stream keeps them; one of several has them in its stream records,
 * which stay its own, and sends the count) */
#define LAT_WINDOW_WORDS 9
static void put_lat_search(struct wbuf *w, const struct iob_phase_result *r)
{
	put_u64(w, r->lt_depth);
	put_u64(w, r->lt_nwin);
	put_u64(w, (uint64_t)r->lt_settled);
	size_t n = r->lt_windows ? r->lt_nwin : 0;
	put_u64(w, n);
	for (size_t i = 0; i < n; i++) {
		const struct iob_lat_window *x = &r->lt_windows[i];
		uint64_t v[LAT_WINDOW_WORDS] = {x->depth,  x->max_inflight, x->ios,		 x->over,	  x->pct_ns,
						x->len_ns, (uint64_t)x->pass, (uint64_t)x->final, x->start_ns};
		put(w, v, sizeof v);
	}
}

static int get_lat_search(struct rbuf *b, struct iob_phase_result *r)
{
	r->lt_depth = (uint32_t)get_u64(b);
	r->lt_nwin = (size_t)get_u64(b);
	r->lt_settled = (int)get_u64(b);
	uint32_t n = get_entries(b, (b->n - b->at) / (LAT_WINDOW_WORDS * sizeof(uint64_t)));
	if (b->err || n == 0)
		return b->err;
	if (n > r->lt_nwin)
		return -EPROTO;
	r->lt_windows = calloc(n, sizeof *r->lt_windows);
	if (!r->lt_windows)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t v[LAT_WINDOW_WORDS];
		get(b, v, sizeof v);
		r->lt_windows[i] = (struct iob_lat_window){.depth = (uint32_t)v[0], .max_inflight = (uint32_t)v[1],
							   .ios = v[2], .over = v[3], .pct_ns = v[4], .len_ns = v[5],
							   .pass = (int)v[6], .final = (int)v[7], .start_ns = v[8]};
	}
	return b->err;
}

static void put_record(struct wbuf *w, const struct iob_record *rec)
{
	put_u64(w, rec != NULL);
	if (!rec)
		return;
	put_u64(w, rec->nfields);
	for (size_t i = 0; i < rec->nfields; i++) {
		const struct iob_field *f = &rec->fields[i];
		put_str(w, f->key);
		put_u64(w, f->type);
		put_u64(w, f->unit);
		switch (f->type) {
		case IOB_T_STR:
			put_str(w, f->v.s);
			break;
		case IOB_T_LAT: {
			const struct iob_latency *l = f->v.lat;
			put_u64(w, l != NULL);
			if (!l)
				break;
			put_u64(w, l->count);
			put_u64(w, l->min);
			put_u64(w, l->max);
			put_f64(w, l->mean);
			put_f64(w, l->stddev);
			put_u64(w, l->npct);
			for (size_t k = 0; k < l->npct; k++) {
				put_f64(w, l->pct[k]);
				put_u64(w, l->value[k]);
			}
			break;
		}
		case IOB_T_BOOL:
			put_u64(w, f->v.b != 0);
			break;
		default: /* u64, i64 and f64: the union's 64 bits */
			put_u64(w, f->v.u);
			break;
		}
	}
}

/* A record received from a rank: fields, strings and latency summaries
 * owned together. */
struct rrec {
	struct iob_record rec;
	struct iob_field *fields; /* nfields + 2: room for rank and host */
	struct iob_latency *lat;
	double *pct;
	uint64_t *val;
	char *arena;
};

static void rrec_free(struct rrec *x)
{
	IOB_FREE_EACH(x->fields, x->lat, x->pct, x->val, x->arena);
	memset(x, 0, sizeof *x);
}

static int get_record(struct rbuf *r, struct rrec *x)
{
	memset(x, 0, sizeof *x);
	if (!get_u64(r))
		return r->err;
	uint64_t n = get_u64(r);
	if (r->err || n > IOB_REC_MAX_FIELDS)
		return -EPROTO;
	size_t left = r->n - r->at + 1;
	x->fields = calloc((size_t)n + 4, sizeof *x->fields);
	x->lat = calloc((size_t)n + 1, sizeof *x->lat);
	x->pct = calloc(((size_t)n + 1) * IOB_PCT_MAX, sizeof *x->pct);
	x->val = calloc(((size_t)n + 1) * IOB_PCT_MAX, sizeof *x->val);
	x->arena = malloc(left);
	if (!x->fields || !x->lat || !x->pct || !x->val || !x->arena) {
		rrec_free(x);
		return -ENOMEM;
	}
	char *arena = x->arena;
	for (uint64_t i = 0; i < n && !r->err; i++) {
		struct iob_field *f = &x->fields[i];
		f->key = get_str(r, &arena, &left);
		f->type = (uint32_t)get_u64(r);
		f->unit = (uint32_t)get_u64(r);
		if (f->type == IOB_T_STR) {
			f->v.s = get_str(r, &arena, &left);
		} else if (f->type == IOB_T_LAT) {
			if (!get_u64(r))
				continue;
			struct iob_latency *l = &x->lat[i];
			double *pct = x->pct + i * IOB_PCT_MAX;
			uint64_t *val = x->val + i * IOB_PCT_MAX;
			l->count = get_u64(r);
			l->min = get_u64(r);
			l->max = get_u64(r);
			l->mean = get_f64(r);
			l->stddev = get_f64(r);
			l->npct = (size_t)get_u64(r);
			if (l->npct > IOB_PCT_MAX) {
				r->err = -EPROTO;
				break;
			}
			for (size_t k = 0; k < l->npct; k++) {
				pct[k] = get_f64(r);
				val[k] = get_u64(r);
			}
			l->pct = pct;
			l->value = val;
			f->v.lat = l;
		} else {
			uint64_t v = get_u64(r);
			if (f->type == IOB_T_BOOL)
				f->v.b = (v & 0xff) != 0;
			else
				f->v.u = v;
		}
		if (!f->key)
			r->err = -EPROTO;
	}
	x->rec.kind = "rank";
	x->rec.fields = x->fields;
	x->rec.nfields = (size_t)n;
	if (r->err)
		rrec_free(x);
	return r->err;
}

/* The result's plain counts, sent as they are: every count the streams add
 * up (engine.h's IOB_PHASE_SUMS), and these. */
#define SUM_AT(f) offsetof(struct iob_phase_result, f),
static const size_t COUNTS[] = {
	IOB_PHASE_SUMS(SUM_AT) offsetof(struct iob_phase_result, block_size),
	offsetof(struct iob_phase_result, elapsed_ns),	   offsetof(struct iob_phase_result, sync_ns),
	offsetof(struct iob_phase_result, lat_samples),	   offsetof(struct iob_phase_result, os_read_bytes),
	offsetof(struct iob_phase_result, os_write_bytes), offsetof(struct iob_phase_result, first_done_bytes),
	offsetof(struct iob_phase_result, first_done_ops),
	offsetof(struct iob_phase_result, storage_read_bytes), offsetof(struct iob_phase_result, storage_write_bytes),
};
#undef SUM_AT
#define NCOUNTS (sizeof COUNTS / sizeof COUNTS[0])

/* What one rank sends for a phase. */
static void put_phase(struct wbuf *w, const char *host, const struct iob_record *rec,
		      const struct iob_phase_result *r, uint64_t epoch_ns, int rc, const char *error, int sig)
{
	put_str(w, host);
	put_u64(w, (uint64_t)(int64_t)rc);
	put_u64(w, (uint64_t)(int64_t)sig);
	put_str(w, error);
	put_record(w, rec);
	put_u64(w, (uint64_t)r->phase);
	for (size_t i = 0; i < NCOUNTS; i++)
		put(w, (const char *)r + COUNTS[i], sizeof(uint64_t));
	/* the window from the rank's own epoch: what a tool added to the phase
	 * (iotest's timed sync) is in elapsed_ns, so the end is start + elapsed */
	uint64_t start = r->start_ns > epoch_ns ? r->start_ns - epoch_ns : 0;
	put_u64(w, start);
	put_u64(w, start + r->elapsed_ns);
	put_u64(w, r->lat_sample_every);
	put_u64(w, r->pattern_label);
	put_u64(w, (uint64_t)r->direct);
	put_u64(w, (uint64_t)(int64_t)r->status);
	put_u64(w, (uint64_t)r->interrupted);
	put_u64(w, (uint64_t)r->errors_counted); /* a flag, not a sum: io_errors is one of IOB_PHASE_SUMS */
	put_u64(w, (uint64_t)r->pass_cut);	 /* flags OR-ed over ranks as over streams (aggregate.c) */
	put_u64(w, (uint64_t)r->device_full);
	put_hist(w, r->hist);
	put_hist(w, r->hist_write);
	/* summed by iob_aggregate as a rank's streams' are (aggregate.c) */
	put_bs_hist(w, &r->bs_hist);
	put_prio_hist(w, &r->prio_hist);
	put_lat_search(w, r);
}

struct rphase {
	char *host, *error;
	int rc, sig;
	struct rrec rec;
	struct iob_phase_result r;
	char arena[4096];
};

static int get_phase(struct rbuf *b, uint64_t base, struct rphase *p)
{
	char *arena = p->arena;
	size_t left = sizeof p->arena;
	iob_phase_result_init(&p->r);
	p->host = get_str(b, &arena, &left);
	p->rc = (int)(int64_t)get_u64(b);
	p->sig = (int)(int64_t)get_u64(b);
	p->error = get_str(b, &arena, &left);
	int rc = get_record(b, &p->rec);
	if (rc)
		return rc;
	struct iob_phase_result *r = &p->r;
	r->phase = (enum iob_phase)get_u64(b);
	for (size_t i = 0; i < NCOUNTS; i++)
		get(b, (char *)r + COUNTS[i], sizeof(uint64_t));
	r->start_ns = base + get_u64(b);
	r->end_ns = base + get_u64(b);
	r->lat_sample_every = (uint32_t)get_u64(b);
	r->pattern_label = (uint8_t)get_u64(b);
	r->direct = (int)get_u64(b);
	r->status = (int)(int64_t)get_u64(b);
	r->interrupted = (int)get_u64(b);
	r->errors_counted = (int)get_u64(b);
	r->pass_cut = (int)get_u64(b);
	r->device_full = (int)get_u64(b);
	if ((rc = get_hist(b, &r->hist)) == 0)
		rc = get_hist(b, &r->hist_write);
	if (rc == 0) {
		get_bs_hist(b, &r->bs_hist);
		get_prio_hist(b, &r->prio_hist);
		rc = get_lat_search(b, r);
	}
	if (!p->host || !p->error)
		rc = rc ? rc : -EPROTO;
	return rc ? rc : b->err;
}

/* ------------------------------------------------------------ rank 0 */

/* A rank's record, then its latency_target windows (each naming the rank) */
static void emit_rank(const struct iob_ranks_emit *run, size_t j, size_t k, struct rphase *p)
{
	struct iob_field *f = &p->rec.fields[p->rec.rec.nfields];
	f[0] = (struct iob_field){.key = "rank", .type = IOB_T_U64, .unit = IOB_UNIT_COUNT, .v.u = k};
	f[1] = (struct iob_field){.key = "host", .type = IOB_T_STR, .unit = IOB_UNIT_NONE, .v.s = p->host};
	p->rec.rec.nfields += 2;
	run->record(run->arg, &p->rec.rec);
	for (size_t i = 0; p->r.lt_windows && i < p->r.lt_nwin; i++) {
		iob_rec_lat_window(run->rb, &run->suite->jobs[j], &p->r, i, "rank", k);
		run->record(run->arg, &run->rb->rec);
	}
}

/* The aggregate "phase" record of the ranks' results. */
static int emit_aggregate(const struct iob_ranks_emit *run, size_t j, const char *file, struct rphase *ps, size_t n,
			  const struct iob_rank_verdict *v)
{
	const struct iob_job *job = &run->suite->jobs[j];
	const struct iob_phase_result **rv = calloc(n, sizeof *rv);
	struct iob_aggregate agg;
	if (!rv)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++)
		rv[k] = &ps[k].r;
	int rc = iob_aggregate(rv, n, &agg);
	free(rv);
	if (rc != 0)
		return rc;
	struct iob_phase_result r;
	iob_aggregate_as_result(&agg, &r);
	if (v->status < 0 && r.status == 0)
		r.status = v->status;
	for (size_t k = 0; k < n; k++) /* each rank searched on its own */
		iob_lat_search_fold(&r, &ps[k].r, k == 0);
	struct iob_recbuf *rb = run->rb;
	iob_rec_phase(rb, job, file, &r);
	iob_rec_str(rb, "status", iob_phase_status_name(&r));
	iob_rec_phase_flags(rb, job, &r);
	iob_rec_lat_search(rb, job, &r);
	iob_rec_phase_cpu(rb, &r);
	iob_rec_aggregate(rb, &agg);
	iob_rec_u64(rb, "ranks", IOB_UNIT_COUNT, n);
	if (v->rank >= 0)
		iob_rec_u64(rb, "failed_rank", IOB_UNIT_COUNT, (uint64_t)v->rank);
	else
		iob_rec_absent(rb, "failed_rank", IOB_UNIT_COUNT);
	if (run->fields)
		run->fields(run->arg, j, &r, rb);
	run->record(run->arg, &rb->rec);
	iob_aggregate_free(&agg);
	return 0;
}

static void judge(struct rphase *ps, size_t n, struct iob_rank_verdict *v)
{
	for (size_t k = 0; k < n; k++) {
		if (ps[k].sig > v->sig)
			v->sig = ps[k].sig;
		/* an error outranks a mismatch, the lowest rank first */
		int worse = (ps[k].rc < 0 && v->status >= 0) || (ps[k].rc > 0 && v->status == 0);
		if (worse) {
			v->status = ps[k].rc;
			v->rank = (int32_t)k;
			snprintf(v->text, sizeof v->text, "rank %zu (%s): %s", k, ps[k].host,
				 ps[k].error[0] ? ps[k].error : "failed");
		}
	}
}

int iob_ranks_phase(const struct iob_ranks_emit *run, size_t j, const char *file, const struct iob_record *rec,
		    const struct iob_phase_result *r, uint64_t epoch_ns, int rc, const char *error, int sig,
		    struct iob_rank_verdict *v)
{
	struct wbuf w = {0};
	size_t n = (size_t)iob_coord_size();
	memset(v, 0, sizeof *v);
	v->rank = -1;
	put_phase(&w, run->host, rec, r, epoch_ns, rc, error, sig);
	void *all = NULL;
	uint64_t *lens = calloc(n, sizeof *lens);
	/* every rank gathers, even one whose buffer failed: none may wait */
	int grc = iob_coord_gather(w.p, w.err ? 0 : w.n, &all, lens);
	int erc = w.err ? w.err : grc;
	free(w.p);
	if (iob_coord_rank() == 0) {
		struct rphase *ps = calloc(n, sizeof *ps);
		size_t got = 0;
		if (!ps && !erc)
			erc = -ENOMEM;
		uint64_t base = iob_now_ns(), at = 0;
		for (size_t k = 0; !erc && k < n; k++, got++) {
			struct rbuf b = {.p = (const unsigned char *)all + at, .n = (size_t)lens[k]};
			at += lens[k];
			erc = get_phase(&b, base, &ps[k]);
			if (erc)
				iob_phase_result_free(&ps[k].r);
		}
		if (erc) {
			v->status = erc;
			snprintf(v->text, sizeof v->text, "rank 0 (%s): gathering the ranks' results failed: %s",
				 run->host, strerror(-erc));
		} else {
			judge(ps, n, v);
			for (size_t k = 0; k < n; k++)
				if (ps[k].rec.rec.nfields)
					emit_rank(run, j, k, &ps[k]);
			int arc = emit_aggregate(run, j, file, ps, n, v);
			if (arc && !v->status) {
				v->status = arc;
				snprintf(v->text, sizeof v->text, "rank 0 (%s): aggregating the ranks failed: %s",
					 run->host, strerror(-arc));
			}
		}
		for (size_t k = 0; ps && k < got; k++) {
			rrec_free(&ps[k].rec);
			iob_phase_result_free(&ps[k].r);
		}
		free(ps);
	}
	free(all);
	free(lens);
	int brc = iob_coord_bcast(v, sizeof *v);
	if (brc && !v->status) {
		v->status = brc;
		snprintf(v->text, sizeof v->text, "rank %d (%s): the MPI broadcast failed", iob_coord_rank(), run->host);
	}
	return erc ? erc : brc;
}

/* ------------------------------------------------------------ the start */

/* What must be the same on every rank, compared part by part as bytes
 * (iob_coord_agree): the profile path or command line; the text of the
 * profile and its includes; the normalised suite, every job's settings as
 * the runner runs them, a part per key (over every job) and a part per
 * job, so a refusal names what differs.  The settings are the key table's
 * rows (keys.c: adding a key adds its part here) and the extras below.
 * Paths (dir, filename, the logs, the live CSV: IOB_KEY_PATH rows) may
 * differ per rank (${RANK}, docs/mpi.md): of them only whether they are set
 * is compared; each rank's own checks judged them. */
#define FIELD(s, f, kind) {#f, offsetof(struct s, f), sizeof(((struct s *)0)->f), kind}
/* struct iob_job's fields no key sets, compared: the job's name; a fio
 * file's reporting group and exit_what=group (exit_report) */
static const struct iob_ranks_field extras[] = {FIELD(iob_job, name, IOB_RANKS_TEXT),
						FIELD(iob_job, report_group, IOB_RANKS_BYTES),
						FIELD(iob_job, exit_report, IOB_RANKS_BYTES)};
/* the fields left out on purpose: the phase's block size and the working
 * set's binding, which the runner sets on the pattern as each phase starts */
static const struct iob_ranks_field unshared[] = {FIELD(iob_job, pattern.block_size, IOB_RANKS_BYTES),
						  FIELD(iob_job, pattern.dedupe_member, IOB_RANKS_BYTES),
						  FIELD(iob_job, pattern.dedupe_members, IOB_RANKS_BYTES),
						  FIELD(iob_job, pattern.dedupe_blocks, IOB_RANKS_BYTES)};
/* the pattern key's own fields of struct iob_pattern, each as bytes (the
 * struct may have padding); its other fields are other keys' rows */
static const struct iob_ranks_field pattern_fields[] = {
	FIELD(iob_pattern, kind, IOB_RANKS_BYTES),	 FIELD(iob_pattern, byte, IOB_RANKS_BYTES),
	FIELD(iob_pattern, complement, IOB_RANKS_BYTES), FIELD(iob_pattern, seed, IOB_RANKS_BYTES),
	FIELD(iob_pattern, hex, IOB_RANKS_BYTES),	 FIELD(iob_pattern, nhex, IOB_RANKS_BYTES),
};
#undef FIELD
#define COUNT(a) (sizeof a / sizeof a[0])

const struct iob_ranks_field *iob_ranks_extras(size_t *n)
{
	*n = COUNT(extras);
	return extras;
}

const struct iob_ranks_field *iob_ranks_unshared(size_t *n)
{
	*n = COUNT(unshared);
	return unshared;
}

const struct iob_ranks_field *iob_ranks_pattern_fields(size_t *n)
{
	*n = COUNT(pattern_fields);
	return pattern_fields;
}

/* A key row compared: it sets a field that no earlier row sets. */
static int compared(const struct iob_key *keys, size_t i)
{
	if (!keys[i].width)
		return 0;
	for (size_t k = 0; k < i; k++)
		if (keys[k].offset == keys[i].offset && keys[k].width == keys[i].width)
			return 0;
	return 1;
}

size_t iob_ranks_setting_parts(void)
{
	size_t nkeys, n = COUNT(extras);
	const struct iob_key *keys = iob_keys(&nkeys);
	for (size_t i = 0; i < nkeys; i++)
		n += compared(keys, i);
	return n;
}

static void put_bytes(struct wbuf *w, const char *at, const struct iob_ranks_field *f)
{
	at += f->off;
	size_t n = f->kind == IOB_RANKS_BYTES ? f->len : strnlen(at, f->len);
	if (f->kind == IOB_RANKS_SET) { /* set or not */
		put(w, n ? "\1" : "\0", 1);
		return;
	}
	put_u64(w, n);
	put(w, at, n);
}

/* The job's value of key row k (or of extras[k - nkeys]). */
static void put_setting(struct wbuf *w, const struct iob_job *job, const struct iob_key *keys, size_t nkeys, size_t k)
{
	if (k >= nkeys) {
		put_bytes(w, (const char *)job, &extras[k - nkeys]);
		return;
	}
	const struct iob_key *key = &keys[k];
	if (key->type == IOB_KEY_PATTERN) {
		for (size_t i = 0; i < COUNT(pattern_fields); i++)
			put_bytes(w, (const char *)job + key->offset, &pattern_fields[i]);
		return;
	}
	const struct iob_ranks_field f = {key->name, key->offset, key->width,
					  key->type == IOB_KEY_PATH	? IOB_RANKS_SET
					  : key->type == IOB_KEY_STRING ? IOB_RANKS_TEXT
									: IOB_RANKS_BYTES};
	put_bytes(w, (const char *)job, &f);
}

struct same {
	struct wbuf buf[IOB_COORD_PARTS_MAX];
	char what[IOB_COORD_PARTS_MAX][160];
	struct iob_coord_part parts[IOB_COORD_PARTS_MAX];
	size_t n;
};

static struct wbuf *part(struct same *s, const char *what)
{
	snprintf(s->what[s->n], sizeof s->what[s->n], "%s", what);
	return &s->buf[s->n++];
}

static int sameness(const struct iob_ranks_who *opts, const struct iob_suite *suite, struct same *s)
{
	int err = 0;
	put_str(part(s, opts->nprotect ? "profile path" : "command line"), opts->source ? opts->source : "");
	struct wbuf *t = part(s, opts->nprotect ? "profile text" : "inputs");
	for (size_t i = 0; i < opts->nprotect; i++) {
		FILE *f = fopen(opts->protect[i], "re");
		char buf[4096];
		size_t n;
		put_str(t, opts->protect[i]);
		put_u64(t, f ? 0 : (uint64_t)errno); /* unreadable here: differs from readable there */
		while (f && (n = fread(buf, 1, sizeof buf, f)) > 0) /* bytes, NUL included */
			put(t, buf, n);
		if (f)
			fclose(f);
	}
	struct wbuf *nj = part(s, "number of jobs");
	put_u64(nj, suite->njobs);
	for (size_t j = 0; suite->prepare && j < suite->njobs; j++)
		put(nj, &suite->prepare[j], 1);
	/* a part per setting, leaving one for the jobs; should the table
	 * outgrow IOB_COORD_PARTS_MAX (unit_ranks_keys says so first), the
	 * last part holds every setting left */
	size_t nkeys, grouped = 0;
	const struct iob_key *keys = iob_keys(&nkeys);
	for (size_t k = 0; k < nkeys + COUNT(extras); k++) {
		if (k < nkeys && !compared(keys, k))
			continue;
		const char *name = k < nkeys ? keys[k].name : extras[k - nkeys].name;
		struct wbuf *w = &s->buf[s->n - 1];
		if (s->n < IOB_COORD_PARTS_MAX - 1) {
			w = part(s, name);
		} else if (!grouped++) {
			char what[160];
			snprintf(what, sizeof what, "%.100s or a later setting", s->what[s->n - 1]);
			memcpy(s->what[s->n - 1], what, sizeof what);
		}
		for (size_t j = 0; j < suite->njobs; j++)
			put_setting(w, &suite->jobs[j], keys, nkeys, k);
	}
	/* then a part per job, the last one holding every job left */
	for (size_t j = 0; j < suite->njobs; j++) {
		struct wbuf *w = &s->buf[s->n - 1];
		if (s->n < IOB_COORD_PARTS_MAX) {
			char name[IOB_NAME_MAX + 16];
			if (opts->hide_job_names)
				snprintf(name, sizeof name, "job %zu", j + 1);
			else
				snprintf(name, sizeof name, "job '%s'", suite->jobs[j].name);
			w = part(s, name);
		}
		for (size_t k = 0; k < nkeys + COUNT(extras); k++)
			if (k >= nkeys || compared(keys, k))
				put_setting(w, &suite->jobs[j], keys, nkeys, k);
	}
	for (size_t i = 0; i < s->n; i++) {
		if (s->buf[i].err)
			err = s->buf[i].err;
		s->parts[i] = (struct iob_coord_part){s->what[i], s->buf[i].p, s->buf[i].n};
	}
	return err;
}

int iob_ranks_open(const struct iob_ranks_who *opts, const char *mine, const struct iob_suite *suite, int status, char *err,
		   size_t errlen)
{
	char why[2048];
	snprintf(why, sizeof why, "%s", status ? mine : "");
	for (size_t j = 0; status == 0 && j < suite->njobs; j++) {
		const struct iob_job *job = &suite->jobs[j];
		if (job->series) {
			status = -EINVAL;
			snprintf(why, sizeof why, "job %s: a per-block series (bigread's records) cannot run across MPI ranks",
				 job->name);
		} else if (job->shared_file && job->threads > 1 && iob_coord_size() > 1) {
			status = -EINVAL;
			snprintf(why, sizeof why,
				 "job %s: shared_file with threads > 1 cannot run across MPI ranks (use threads = 1: each "
				 "rank then has its own region of the file)",
				 job->name);
		}
	}
	struct same *same = calloc(1, sizeof *same);
	if ((!same || sameness(opts, suite, same) != 0) && status == 0) {
		status = -ENOMEM;
		snprintf(why, sizeof why, "out of memory");
	}
	int rc = iob_coord_agree(status, why, opts->nprotect ? "profile" : "command line", same ? same->parts : NULL,
				 same ? same->n : 0, err, errlen);
	for (size_t i = 0; same && i < same->n; i++)
		free(same->buf[i].p);
	free(same);
	return rc;
}

/* ------------------------------------------------------------ the watch */

struct iob_rank_watch {
	struct iob_thread *t;
	int tag;
	volatile sig_atomic_t *flag;
	const struct iob_live *live; /* this rank's streams' counters */
	size_t nlive;
	int end;     /* atomic: 1 the phase ended, 2 it failed here */
	int stopped; /* a stop message came */
	int seen;    /* some rank finished first: fd_* is what this one had done then */
	uint64_t fd_bytes, fd_ops;
};

/* What this rank's streams had published (live.h: at their looks at the
 * clock, about 1 ms of I/O apart) in their measured windows. */
static void first_seen(struct iob_rank_watch *w)
{
	if (w->seen)
		return;
	w->seen = 1;
	for (size_t i = 0; i < w->nlive; i++) {
		const struct iob_live *l = &w->live[i];
		if (__atomic_load_n(&l->ramping, __ATOMIC_RELAXED))
			continue;
		w->fd_bytes += __atomic_load_n(&l->bytes, __ATOMIC_RELAXED);
		w->fd_ops += __atomic_load_n(&l->ops, __ATOMIC_RELAXED);
	}
}

/* One message of another rank.  Returns 1 when the receive is to be posted
 * again (a stop may still follow). */
static int watch_message(struct iob_rank_watch *w, int msg, int from)
{
	if (msg == IOB_COORD_MSG_STOP) {
		int zero = 0;
		w->stopped = 1;
		__atomic_compare_exchange_n((int *)w->flag, &zero, IOB_RANKS_CUT, 0, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED);
		first_seen(w); /* the failed rank ended first */
		return 0;
	}
	if (msg == IOB_COORD_MSG_DONE && !w->seen) {
		/* rank 0 decides which finish was the first, and tells the rest */
		first_seen(w);
		for (int k = 1; k < iob_coord_size(); k++)
			if (k != from)
				iob_coord_stop_send(w->tag, IOB_COORD_MSG_FIRST, k);
	}
	if (msg == IOB_COORD_MSG_FIRST)
		first_seen(w);
	return 1;
}

static void watch_main(void *arg)
{
	struct iob_rank_watch *w = arg;
	int posted = iob_coord_stop_post(w->tag) == 0, from = -1, msg;
	for (;;) {
		int end = __atomic_load_n(&w->end, __ATOMIC_ACQUIRE);
		if (end == 2)
			iob_coord_stop_send(w->tag, IOB_COORD_MSG_STOP, -1);
		else if (end == 1 && !w->seen) /* this rank finished first, as far as it knows */
			iob_coord_stop_send(w->tag, iob_coord_rank() == 0 ? IOB_COORD_MSG_FIRST : IOB_COORD_MSG_DONE,
					    iob_coord_rank() == 0 ? -1 : 0);
		if (end)
			break;
		msg = posted ? iob_coord_stop_test(&from) : 0;
		if (msg)
			posted = watch_message(w, msg, from) && iob_coord_stop_post(w->tag) == 0;
		iob_sleep_ns(1000000, NULL);
	}
	if (posted)
		iob_coord_stop_cancel();
}

struct iob_rank_watch *iob_ranks_watch(int tag, volatile sig_atomic_t *flag, const struct iob_live *live,
				       size_t nlive)
{
	if (iob_coord_size() < 2 || !iob_coord_serialized())
		return NULL;
	struct iob_rank_watch *w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	w->tag = tag & 0x7fff; /* MPI guarantees tags up to 32767 */
	w->flag = flag;
	w->live = live;
	w->nlive = live ? nlive : 0;
	if (iob_thread_start(&w->t, watch_main, w) != 0) {
		free(w);
		return NULL;
	}
	return w;
}

int iob_ranks_unwatch(struct iob_rank_watch *w, int failed, uint64_t *fd_bytes, uint64_t *fd_ops)
{
	if (!w || !w->live) { /* nobody told this rank when another finished */
		*fd_bytes = *fd_ops = 0;
		if (!w)
			return 0;
	}
	__atomic_store_n(&w->end, failed ? 2 : 1, __ATOMIC_RELEASE);
	iob_thread_join(w->t);
	int stopped = w->stopped;
	if (w->seen && w->live) {
		*fd_bytes = w->fd_bytes;
		*fd_ops = w->fd_ops;
	}
	free(w);
	return stopped;
}
