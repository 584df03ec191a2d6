/*
 * engine.c - runs one phase of I/O and measures it (iobench/engine.h).
 *
 * The loops below are the hot path: per I/O they do one indirect call into
 * the backend, a few integer operations to decide whether this I/O is in the
 * latency sample, and for a sampled I/O two clock reads and an O(1)
 * histogram record.  Pattern fills for offset-dependent patterns and
 * verification happen outside the two clock reads (but inside the phase's
 * wall time, which is what rates use).
 *
 * Latency sampling (docs/performance.md, "Timing that does not distort"):
 * reading the clock around an I/O costs more than the reads themselves when
 * the I/O is a copy from memory (the clock read waits for the copy, and the
 * next copy can no longer overlap it), so the engine measures what timing
 * costs in the phase itself.  Each I/O is in the sample independently with
 * probability 1/k, k a power of two; k starts at 1 and only grows, when a
 * check finds that timing k I/Os in k would cost more than 2% of their own
 * time.  Every sample carries a random level (level >= j with probability
 * 2^-j), kept in one histogram per level; raising k to 2^j drops the levels
 * below j, so the samples taken before are thinned to the new rate and the
 * final sample is uniform over the whole phase.
 */
#include "iobench/engine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/log.h"
#include "iobench/ticks.h"

void iob_phase_result_init(struct iob_phase_result *r)
{
	memset(r, 0, sizeof *r);
}

void iob_phase_result_free(struct iob_phase_result *r)
{
	iob_hist_free(r->hist);
	iob_hist_free(r->hist_write);
	free(r->series.bytes);
	free(r->series.ns);
	r->hist = NULL;
	r->hist_write = NULL;
	memset(&r->series, 0, sizeof r->series);
}

double iob_phase_seconds(const struct iob_phase_result *r)
{
	return (double)r->elapsed_ns / 1e9;
}

double iob_phase_bw(const struct iob_phase_result *r)
{
	return r->elapsed_ns ? (double)r->bytes * 1e9 / (double)r->elapsed_ns : 0.0;
}

double iob_phase_iops(const struct iob_phase_result *r)
{
	return r->elapsed_ns ? (double)r->ops * 1e9 / (double)r->elapsed_ns : 0.0;
}

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* ------------------------------------------------------------------------ */
/* Latency sampling.                                                         */

#define LAT_BATCH 64u       /* I/Os per batch of a cost check */
#define LAT_CHECK_BATCHES 8 /* batches per check, alternately timed and not */
#define LAT_LEVELS 9u       /* k up to 2^(LAT_LEVELS - 1) = 256 */
#define LAT_MAX_SHARE 0.02  /* timing may cost at most this share of the I/O's time */
#define LAT_SLOW_NS 20000.0 /* an I/O this slow is timed every time (see lat_event) */

/* What timing costs when nothing is timed but the clock: two tick reads and
 * a histogram record, in ticks; measured once per process. */
static double timing_floor_ticks, ticks_per_ns = 1.0;

static void measure_timing_floor(void)
{
	static int done;
	if (done)
		return;
	done = 1;
	struct iob_hist *h = iob_hist_new();
	if (!h)
		return; /* no floor: the checks in the phase still measure */
	double best = 0;
	uint64_t n0 = iob_now_ns(), k0 = iob_ticks();
	for (int rep = 0; rep < 8; rep++) {
		uint64_t a = iob_ticks();
		for (int i = 0; i < 256; i++) {
			uint64_t t0 = iob_ticks();
			uint64_t t1 = iob_ticks();
			iob_hist_record(h, t1 - t0);
		}
		double per = (double)(iob_ticks() - a) / 256.0;
		if (rep == 0 || per < best)
			best = per;
	}
	uint64_t n1 = iob_now_ns(), k1 = iob_ticks();
	timing_floor_ticks = best;
	if (iob_ticks_tsc && n1 > n0 && k1 > k0)
		ticks_per_ns = (double)(k1 - k0) / (double)(n1 - n0);
	iob_hist_free(h);
}

struct lat_sampler {
	uint64_t event;  /* loop index of the next batch boundary or check */
	unsigned m;      /* k = 2^m */
	int all, none;   /* in a check's batch: time every I/O, or none */
	uint64_t bits;   /* random bits for the draws */
	unsigned left;   /* how many of them are unused */
	uint64_t rng;
	int batch;       /* batch of the check in progress, -1 when none */
	uint64_t batch_t0, batch_ticks[LAT_CHECK_BATCHES];
	uint64_t next_check;
	double overhead; /* last measured cost of timing one I/O, ticks */
	struct iob_hist *lv[LAT_LEVELS]; /* lv[LAT_LEVELS - 1] is the result's histogram */
};

static int lat_init(struct lat_sampler *s, struct iob_hist *h, uint64_t seed, int adaptive)
{
	memset(s, 0, sizeof *s);
	s->rng = seed ^ 0x2545f4914f6cdd1dull;
	s->batch = -1;
	s->event = adaptive ? 0 : UINT64_MAX;
	s->overhead = timing_floor_ticks;
	s->lv[LAT_LEVELS - 1] = h;
	for (unsigned i = 0; i + 1 < LAT_LEVELS; i++)
		if (!(s->lv[i] = iob_hist_new()))
			return -ENOMEM;
	return 0;
}

/* Merge the levels still in the sample into the result's histogram. */
static void lat_finish(struct lat_sampler *s, struct iob_phase_result *r)
{
	struct iob_hist *h = s->lv[LAT_LEVELS - 1];
	for (unsigned i = 0; i + 1 < LAT_LEVELS; i++) {
		if (s->lv[i] && i >= s->m && h)
			iob_hist_merge(h, s->lv[i]);
		iob_hist_free(s->lv[i]);
		s->lv[i] = NULL;
	}
	r->lat_sample_every = 1u << s->m;
	r->lat_samples = h ? h->count : 0;
	r->lat_timing_ns = s->overhead / ticks_per_ns;
}

/* Is this I/O in the sample?  Probability 2^-m. */
static inline int lat_draw(struct lat_sampler *s)
{
	if (s->m == 0)
		return 1;
	if (s->left < s->m) {
		s->bits = rng_next(&s->rng);
		s->left = 64;
	}
	int in = (s->bits & ((1ull << s->m) - 1)) == 0;
	s->bits >>= s->m;
	s->left -= s->m;
	return in;
}

/* Record a sampled I/O at its level: m plus a geometric draw. */
static inline void lat_record(struct lat_sampler *s, uint64_t ticks)
{
	unsigned level = s->m + (unsigned)__builtin_ctzll(rng_next(&s->rng) | (1ull << 63));
	iob_hist_record(s->lv[level < LAT_LEVELS - 1 ? level : LAT_LEVELS - 1], ticks);
}

/* A check: LAT_CHECK_BATCHES batches of LAT_BATCH I/Os, timed as wholes,
 * alternately every I/O timed and timed at the current rate (at k = 1: none
 * timed).  The fastest batch of each kind gives what timing costs in this
 * phase, against the I/O's own time (the fastest, as noise only adds time);
 * k grows until that cost, shared over k I/Os, is at most LAT_MAX_SHARE of
 * their time.  The cost is never taken below the process's floor.  When the
 * first batch shows I/Os of LAT_SLOW_NS or more at k = 1, the check ends
 * there (timing costs at most a few hundred ns, under 2% of such an I/O),
 * so slow I/O keeps every I/O in the sample.  Checks run at I/O 0, 4096,
 * 65536, 2^20 and every 2^22 after, so k follows a phase that gets cheaper
 * (a mapping whose pages are all faulted in). */
__attribute__((noinline)) static void lat_event(struct lat_sampler *s, uint64_t i)
{
	uint64_t t = iob_ticks();
	if (s->batch < 0) {
		s->batch = 0;
		s->all = 1;
		s->none = 0;
		s->batch_t0 = t;
		s->event = i + LAT_BATCH;
		return;
	}
	s->batch_ticks[s->batch++] = t - s->batch_t0;
	s->batch_t0 = t;
	int done = s->batch == LAT_CHECK_BATCHES;
	if (s->batch == 1 && s->m == 0 &&
	    (double)s->batch_ticks[0] >= LAT_SLOW_NS * ticks_per_ns * LAT_BATCH)
		done = 1;
	else if (done) {
		uint64_t best[2] = {UINT64_MAX, UINT64_MAX}; /* every I/O timed; at the current rate */
		for (int b = 0; b < LAT_CHECK_BATCHES; b++)
			if (s->batch_ticks[b] < best[b & 1])
				best[b & 1] = s->batch_ticks[b];
		double all = (double)best[0] / LAT_BATCH, cur = (double)best[1] / LAT_BATCH;
		double frac = 1.0 / (double)(1u << s->m), own;
		if (s->m == 0)
			frac = 0; /* the other batches timed nothing */
		double o = (all - cur) / (1.0 - frac);
		if (o < timing_floor_ticks)
			o = timing_floor_ticks;
		own = cur - frac * o;
		if (own < 1.0)
			own = 1.0;
		unsigned m = s->m;
		while (m + 1 < LAT_LEVELS && o > LAT_MAX_SHARE * (double)(1u << m) * own)
			m++;
		s->overhead = o;
		if (m > s->m) {
			s->m = m;
			s->left = 0;
		}
	}
	if (done) {
		s->batch = -1;
		s->all = s->none = 0;
		s->event = s->next_check = s->next_check < 4096 ? 4096
					 : s->next_check < ((uint64_t)1 << 20) ? s->next_check * 16
									    : s->next_check + ((uint64_t)1 << 22);
		if (s->event <= i)
			s->event = i + 1;
		return;
	}
	s->all = !(s->batch & 1);
	s->none = (s->batch & 1) && s->m == 0;
	s->event = i + LAT_BATCH;
}

/* A random permutation of [0, n) that needs no memory: a four-round Feistel
 * network over the smallest even number of bits covering n, walked until it
 * lands inside [0, n) (a bijection of the larger domain, restricted by cycle
 * walking, is a bijection of [0, n)).  The domain is under 4n, so a draw
 * takes under four walks on average.  Random writes use it so that a pass
 * touches every block exactly once and leaves no hole. */
struct perm {
	uint64_t n, mask;
	unsigned half;
	uint64_t key[4];
};

static void perm_init(struct perm *p, uint64_t n, uint64_t seed)
{
	unsigned bits = 2;
	while (bits < 64 && ((uint64_t)1 << bits) < n)
		bits++;
	bits += bits & 1u;
	p->n = n;
	p->half = bits / 2;
	p->mask = p->half >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << p->half) - 1;
	for (int i = 0; i < 4; i++)
		p->key[i] = rng_next(&seed);
}

static inline uint64_t perm_at(const struct perm *p, uint64_t x)
{
	do {
		uint64_t l = x >> p->half, r = x & p->mask;
		for (int i = 0; i < 4; i++) {
			uint64_t f = (r ^ p->key[i]) * 0x9e3779b97f4a7c15ull;
			f ^= f >> 29;
			uint64_t t = l ^ (f & p->mask);
			l = r;
			r = t;
		}
		x = (l << p->half) | r;
	} while (x >= p->n);
	return x;
}

/* Everything a phase holds while it runs. */
struct phase {
	const struct iob_phase_spec *spec;
	struct iob_phase_result *r;
	const struct iob_backend_ops *ops;
	void **handles;
	int *created; /* file did not exist before this phase opened it */
	int *checked; /* what was opened has been checked (fstat through info) */
	unsigned char *buf, *scratch;
	size_t buflen;
	uint32_t io_align;
	uint32_t open_flags;
	int write, verify, fill_each;
	struct lat_sampler lat;
	uint64_t nio; /* I/O calls so far (the sampler's clock) */
};

static int fail(struct phase *ph, int err, const char *what, const char *file, uint64_t off, size_t len)
{
	struct iob_phase_result *r = ph->r;
	if (r->status < 0)
		return r->status; /* keep the first error */
	r->status = err;
	if (off == UINT64_MAX)
		snprintf(r->error, sizeof r->error, "%s %s failed: %s", what, file, strerror(-err));
	else
		snprintf(r->error, sizeof r->error, "%s of %zu bytes at offset %llu of %s failed: %s", what, len,
			 (unsigned long long)off, file, strerror(-err));
	return err;
}

/* Decide on what was opened, not on a path: a device swapped in for the
 * checked file after the checks is refused here, before any I/O. */
static int check_opened(struct phase *ph, size_t i)
{
	const struct iob_phase_spec *s = ph->spec;
	struct iob_file_info info = {.struct_size = sizeof info};
	ph->checked[i] = 1;
	if (s->allow_devices || ph->ops->info(ph->handles[i], &info) < 0)
		return 0;
	if (info.file_type != IOB_FILE_BLOCKDEV && info.file_type != IOB_FILE_CHARDEV)
		return 0;
	ph->ops->close(ph->handles[i]);
	ph->handles[i] = NULL;
	fail(ph, -EPERM, "open of", s->files[i], UINT64_MAX, 0);
	snprintf(ph->r->error, sizeof ph->r->error,
		 "%s turned out to be a %s device when opened; refusing to touch it (allow devices to test one)",
		 s->files[i], info.file_type == IOB_FILE_BLOCKDEV ? "block" : "character");
	return -EPERM;
}

static int open_one(struct phase *ph, size_t i)
{
	const struct iob_phase_spec *s = ph->spec;
	struct iob_open_args a = {
		.struct_size = sizeof a,
		.path = s->files[i],
		.flags = ph->open_flags | (s->follow_symlinks ? 0 : IOB_OPEN_NOFOLLOW),
		.mode = 0644,
		.size_hint = ph->write ? s->file_size : 0,
		.options = s->backend_options && *s->backend_options ? s->backend_options : NULL,
		.queue_depth = 1,
	};
	if (ph->write && !ph->created[i] && strcmp(s->files[i], "-") != 0)
		ph->created[i] = iob_path_kind(s->files[i], 0) == IOB_PATH_MISSING ? 1 : ph->created[i];
	int rc = ph->ops->open(&a, &ph->handles[i]);
	if (rc < 0) {
		ph->handles[i] = NULL;
		if (rc == -ELOOP && !s->follow_symlinks) {
			fail(ph, rc, "open of", s->files[i], UINT64_MAX, 0);
			snprintf(ph->r->error, sizeof ph->r->error,
				 "open of %s refused: it is a symbolic link (set follow_symlinks = true to allow it)",
				 s->files[i]);
			return rc;
		}
		return fail(ph, rc, "open of", s->files[i], UINT64_MAX, 0);
	}
	return ph->checked[i] ? 0 : check_opened(ph, i);
}

static int close_one(struct phase *ph, size_t i)
{
	if (!ph->handles[i])
		return 0;
	int rc = ph->ops->close(ph->handles[i]);
	ph->handles[i] = NULL;
	if (rc < 0)
		return fail(ph, rc, "close of", ph->spec->files[i], UINT64_MAX, 0);
	return 0;
}

static int sync_one(struct phase *ph, size_t i)
{
	uint64_t t0 = iob_now_ns();
	int rc = ph->ops->sync ? ph->ops->sync(ph->handles[i]) : -ENOTSUP;
	ph->r->sync_ns += iob_now_ns() - t0;
	if (rc < 0)
		return fail(ph, rc, "sync of", ph->spec->files[i], UINT64_MAX, 0);
	return 0;
}

/* Query the first file for alignment and direct I/O; check the spec fits. */
static int prepare(struct phase *ph)
{
	const struct iob_phase_spec *s = ph->spec;
	struct iob_file_info info;
	int rc;

	if (open_one(ph, 0) < 0)
		return ph->r->status;
	memset(&info, 0, sizeof info);
	info.struct_size = sizeof info;
	rc = ph->ops->info(ph->handles[0], &info);
	if (rc < 0)
		return fail(ph, rc, "query of", s->files[0], UINT64_MAX, 0);
	ph->r->direct = info.direct != 0;
	ph->io_align = info.io_align ? info.io_align : 1;
	size_t mem_align = info.mem_align > 4096 ? info.mem_align : 4096;
	uint64_t bs = s->block_size;
	if (ph->io_align > 1) {
		uint64_t oa = s->offset_align ? s->offset_align : bs;
		const char *bad = NULL;
		uint64_t val = 0;
		if (bs % ph->io_align) {
			bad = "block size";
			val = bs;
		} else if (s->access == IOB_ACCESS_RAND && oa % ph->io_align) {
			bad = "offset alignment";
			val = oa;
		} else if (ph->write && s->file_size % ph->io_align) {
			bad = "file size";
			val = s->file_size;
		}
		if (bad) {
			ph->r->status = -EINVAL;
			snprintf(ph->r->error, sizeof ph->r->error,
				 "%s %llu is not a multiple of %u bytes, the alignment %s requires for %s "
				 "(direct I/O cannot serve it; refusing rather than reading through the cache)",
				 bad, (unsigned long long)val, ph->io_align, s->backend->desc.name, s->files[0]);
			return -EINVAL;
		}
	}
	ph->buflen = (size_t)bs;
	if (s->phase == IOB_PHASE_READ && s->access == IOB_ACCESS_SEQ && s->nfiles == 1 && !info.is_stream &&
	    info.size < bs) {
		/* a file smaller than the block needs no larger buffer: the reads
		 * are the same (a 1 GiB bigread block over a 4 KiB file) */
		uint64_t unit = ph->io_align > 4096 ? ph->io_align : 4096;
		uint64_t need = info.size ? (info.size + unit - 1) / unit * unit : unit;
		if (need < bs)
			ph->buflen = (size_t)need;
	}
	ph->buf = iob_alloc_aligned(mem_align, ph->buflen);
	ph->scratch = ph->verify ? iob_alloc_aligned(mem_align, ph->buflen) : NULL;
	if (!ph->buf || (ph->verify && !ph->scratch))
		return fail(ph, -ENOMEM, "buffer allocation for", s->files[0], UINT64_MAX, 0);
	if (ph->write)
		iob_pattern_fill(&s->pattern, ph->buf, ph->buflen, 0);
	else
		memset(ph->buf, 0, ph->buflen);
	return 0;
}

static int series_reserve(struct iob_series *se)
{
	if (se->n < se->cap)
		return 0;
	size_t cap = se->cap ? se->cap * 2 : 1024;
	uint64_t *b = realloc(se->bytes, cap * sizeof *b);
	if (!b)
		return -ENOMEM;
	se->bytes = b;
	uint64_t *t = realloc(se->ns, cap * sizeof *t);
	if (!t)
		return -ENOMEM;
	se->ns = t;
	se->cap = cap;
	return 0;
}

/* After an I/O returned n: verify, account; returns 0 to go on, 1 at EOF,
 * negative on error.  The out-of-line part of after_io. */
__attribute__((noinline)) static int after_io_slow(struct phase *ph, size_t fi, int64_t n, size_t len,
						  uint64_t off)
{
	struct iob_phase_result *r = ph->r;
	const char *what = ph->write ? "write" : "read";
	if (n > (int64_t)len || n < -4095) {
		fail(ph, -EPROTO, what, ph->spec->files[fi], off, len);
		snprintf(r->error, sizeof r->error,
			 "backend %s broke its contract: %s of %zu bytes at offset %llu of %s returned %lld",
			 ph->spec->backend->desc.name, what, len, (unsigned long long)off, ph->spec->files[fi],
			 (long long)n);
		return -EPROTO;
	}
	if (n < 0)
		return fail(ph, (int)n, what, ph->spec->files[fi], off, len);
	r->bytes += (uint64_t)n;
	r->ops++;
	if (ph->verify && n > 0) {
		size_t first = 0;
		uint8_t exp = 0, got = 0;
		if (iob_pattern_check(&ph->spec->pattern, ph->buf, (size_t)n, off, ph->scratch, &first, &exp,
				      &got)) {
			if (r->bad_blocks++ == 0) {
				r->first_bad_offset = off + first;
				r->expected = exp;
				r->found = got;
				snprintf(r->bad_file, sizeof r->bad_file, "%s", ph->spec->files[fi]);
			}
		}
	}
	if ((size_t)n < len) {
		r->short_ops++;
		if (ph->write) {
			/* ask for the rest once, untimed, to learn why the kernel stopped */
			int64_t why = ph->ops->write_at(ph->handles[fi], ph->buf + n, len - (size_t)n, off + (uint64_t)n);
			int err = why < 0 ? (int)why : -EIO;
			fail(ph, err, "write", ph->spec->files[fi], off, len);
			snprintf(r->error, sizeof r->error,
				 "short write (%lld of %zu bytes) at offset %llu of %s: %s%s", (long long)n, len,
				 (unsigned long long)off, ph->spec->files[fi], strerror(-err),
				 why < 0 ? "" : " (the backend wrote part of the block and gave no reason)");
			return err;
		}
		return 1;
	}
	return 0;
}

/* The per-I/O bookkeeping: a whole transfer without verification is two
 * additions; everything else goes out of line. */
static inline int after_io(struct phase *ph, size_t fi, int64_t n, size_t len, uint64_t off)
{
	if (__builtin_expect(n == (int64_t)len && !ph->verify, 1)) {
		ph->r->bytes += len;
		ph->r->ops++;
		return 0;
	}
	return after_io_slow(ph, fi, n, len, off);
}

/* A read came back short before the size the file had when the phase began. */
static int short_read(struct phase *ph, size_t fi, int64_t n, size_t len, uint64_t off, uint64_t size)
{
	struct iob_phase_result *r = ph->r;
	fail(ph, -EIO, "read", ph->spec->files[fi], off, len);
	snprintf(r->error, sizeof r->error,
		 "short read (%lld of %zu bytes) at offset %llu of %s, before its end at %llu bytes: %s (the "
		 "file shrank or the backend misbehaved)",
		 (long long)n, len, (unsigned long long)off, ph->spec->files[fi], (unsigned long long)size,
		 strerror(EIO));
	return -EIO;
}

static int run_seq_file(struct phase *ph, size_t fi)
{
	const struct iob_phase_spec *s = ph->spec;
	struct iob_phase_result *r = ph->r;
	const struct iob_backend_ops *ops = ph->ops;
	struct iob_hist *h = r->hist;
	void *hd;
	uint64_t size = s->file_size;
	uint32_t loops = s->loops ? s->loops : 1;
	const size_t bs = ph->buflen;
	const int write = ph->write, series = s->record_series;
	const enum iob_clock sclock = s->series_clock;
	struct lat_sampler *lat = &ph->lat;

	if (!ph->handles[fi] && open_one(ph, fi) < 0)
		return r->status;
	hd = ph->handles[fi];
	if (size == 0 || !write) {
		/* reads: to the end of the file as it is now (or of the stream) */
		struct iob_file_info info = {.struct_size = sizeof info};
		if (ops->info(hd, &info) == 0 && !info.is_stream)
			size = size && size < info.size ? size : info.size;
		else
			size = UINT64_MAX;
	}
	for (uint32_t loop = 0; loop < loops && r->status >= 0; loop++) {
		uint64_t off = 0;
		while (off < size) {
			size_t len = size - off < bs ? (size_t)(size - off) : bs;
			int64_t n;
			if (!write && ph->io_align > 1)
				len = bs; /* aligned reads ask for whole blocks; EOF makes them short */
			uint64_t c0 = 0, c1 = 0;
			if (s->stop && *s->stop) {
				r->interrupted = 1;
				return 0;
			}
			if (write && ph->fill_each)
				iob_pattern_fill(&s->pattern, ph->buf, len, off);
			if (series && series_reserve(&r->series) < 0)
				return fail(ph, -ENOMEM, "series growth for", s->files[fi], UINT64_MAX, 0);
			if (series && sclock != IOB_CLOCK_WALL)
				c0 = iob_clock_ns(sclock);
			if (__builtin_expect(ph->nio == lat->event, 0))
				lat_event(lat, ph->nio);
			ph->nio++;
			const int in = lat_draw(lat), timed = (in | lat->all) & !lat->none;
			uint64_t t0 = series ? iob_now_ns() : timed ? iob_ticks() : 0, t1 = 0;
			if (write)
				n = ops->write_at(hd, ph->buf, len, off);
			else
				n = ops->read_at(hd, ph->buf, len, off);
			if (series) {
				t1 = iob_now_ns();
				iob_hist_record(h, t1 - t0);
			} else if (timed) {
				t1 = iob_ticks();
				if (in)
					lat_record(lat, t1 - t0);
			}
			if (series) {
				c1 = sclock != IOB_CLOCK_WALL ? iob_clock_ns(sclock) : 0;
				r->series.bytes[r->series.n] = n > 0 ? (uint64_t)n : 0;
				r->series.ns[r->series.n++] = sclock != IOB_CLOCK_WALL ? c1 - c0 : t1 - t0;
				if (s->on_sample)
					s->on_sample(s->sample_arg, &r->series);
			}
			if (n == -EINTR && s->stop && *s->stop) {
				r->interrupted = 1; /* a stream read cut short by the stop signal */
				return 0;
			}
			int st = after_io(ph, fi, n, len, off);
			if (st < 0)
				return st;
			off += (uint64_t)n;
			if (st > 0 || n == 0) {
				if (size != UINT64_MAX && off < size)
					return short_read(ph, fi, n, len, off - (uint64_t)n, size);
				break; /* end of file */
			}
		}
	}
	if (write && s->fsync && sync_one(ph, fi) < 0)
		return r->status;
	return close_one(ph, fi);
}

static int run_random(struct phase *ph)
{
	const struct iob_phase_spec *s = ph->spec;
	struct iob_phase_result *r = ph->r;
	const struct iob_backend_ops *ops = ph->ops;
	struct lat_sampler *lat = &ph->lat;
	const size_t bs = ph->buflen;
	const uint64_t fsize = s->file_size;
	const uint64_t align = s->offset_align ? s->offset_align : bs;
	const uint64_t nops = s->ops ? s->ops : (fsize / bs) * s->nfiles;
	const uint64_t slots = fsize >= bs ? (fsize - bs) / align + 1 : 0;
	uint64_t rng = s->seed ^ 0x5bd1e9955bd1e995ull;
	const int mapped = s->random_map && !s->skip_past_end;
	const uint64_t total = slots * s->nfiles; /* slots of all files */
	/* loop invariants in locals: the backend call may write any memory, so
	 * the compiler would reload fields after every call */
	const int reopen = s->reopen, write = ph->write, fill = ph->write && ph->fill_each;
	const int multi = s->nfiles > 1, skip_past_end = s->skip_past_end;
	volatile sig_atomic_t *const stop = s->stop;
	unsigned char *const buf = ph->buf;
	void *hd0 = NULL; /* the one handle, when there is one and it stays open */
	int64_t (*const read_at)(void *, void *, size_t, uint64_t) = ops->read_at;
	struct perm perm;

	if (fsize < bs) {
		r->status = -EINVAL;
		snprintf(r->error, sizeof r->error, "file size %llu is smaller than the block size %zu",
			 (unsigned long long)fsize, bs);
		return r->status;
	}
	if (!s->reopen)
		for (size_t i = 0; i < s->nfiles; i++)
			if (!ph->handles[i] && open_one(ph, i) < 0)
				return r->status;
	hd0 = ph->handles[0];
	if (mapped)
		perm_init(&perm, total, rng);
	for (uint64_t i = 0, slot = 0; i < nops; i++) {
		size_t fi = 0;
		uint64_t off;
		if (mapped) {
			if (slot == total) { /* another pass: another order */
				perm_init(&perm, total, rng_next(&rng));
				slot = 0;
			}
			uint64_t x = perm_at(&perm, slot++);
			if (multi) { /* a 64-bit division: only when there is a file to pick */
				fi = (size_t)(x / slots);
				x %= slots;
			}
			off = x * align;
		} else {
			fi = multi ? (size_t)(rng_next(&rng) % s->nfiles) : 0;
			if (skip_past_end) {
				off = rng_next(&rng) % fsize;
				off -= off % align;
				if (off + bs > fsize) {
					r->skipped++;
					continue;
				}
			} else {
				off = (rng_next(&rng) % slots) * align;
			}
		}
		if (stop && *stop) {
			r->interrupted = 1;
			return 0;
		}
		if (fill)
			iob_pattern_fill(&s->pattern, buf, bs, off);
		int64_t n;
		if (__builtin_expect(ph->nio == lat->event, 0))
			lat_event(lat, ph->nio);
		ph->nio++;
		const int in = lat_draw(lat), timed = (in | lat->all) & !lat->none;
		uint64_t t0 = timed ? iob_ticks() : 0;
		if (reopen && open_one(ph, fi) < 0)
			return r->status;
		if (write)
			n = ops->write_at(ph->handles[fi], buf, bs, off);
		else if (!multi && !reopen)
			n = read_at(hd0, buf, bs, off);
		else
			n = read_at(ph->handles[fi], buf, bs, off);
		/* a short transfer keeps its handle: after_io asks the rest of a write once */
		if (reopen && n == (int64_t)bs && close_one(ph, fi) < 0)
			return r->status;
		if (timed) {
			uint64_t t1 = iob_ticks();
			if (in)
				lat_record(lat, t1 - t0);
		}
		if (n == -EINTR && stop && *stop) {
			r->interrupted = 1;
			return 0;
		}
		int st = after_io(ph, fi, n, bs, off);
		if (st < 0)
			return st;
		if (st > 0 && !ph->write) {
			fail(ph, -EIO, "read", s->files[fi], off, bs);
			snprintf(r->error, sizeof r->error,
				 "short read (%lld of %zu bytes) at offset %llu of %s, inside its size of "
				 "%llu bytes: %s (the file is shorter than that, or the backend misbehaved)",
				 (long long)n, bs, (unsigned long long)off, s->files[fi],
				 (unsigned long long)fsize, strerror(EIO));
			return r->status;
		}
	}
	for (size_t i = 0; i < s->nfiles; i++) {
		if (ph->handles[i] && ph->write && s->fsync && sync_one(ph, i) < 0)
			return r->status;
		if (close_one(ph, i) < 0)
			return r->status;
	}
	return 0;
}

int iob_phase_run(const struct iob_phase_spec *s, struct iob_phase_result *r)
{
	struct phase ph = {.spec = s, .r = r};
	iob_phase_result_init(r);
	r->phase = s->phase;
	r->block_size = s->block_size;
	r->lat_sample_every = 1;
	r->hist = iob_hist_new();
	if (!r->hist) {
		r->status = -ENOMEM;
		snprintf(r->error, sizeof r->error, "out of memory for the latency histogram");
		return r->status;
	}
	ph.ops = &s->backend->backend;
	ph.write = s->phase == IOB_PHASE_WRITE;
	ph.verify = s->phase == IOB_PHASE_VERIFY;
	uint32_t need = ph.write ? IOB_CAP_WRITE : IOB_CAP_READ;
	if (!(s->backend->desc.caps & need) || s->nfiles == 0 || s->block_size == 0 ||
	    s->block_size > ((uint64_t)1 << 31) || (ph.write && s->file_size == 0)) {
		r->status = -EINVAL;
		snprintf(r->error, sizeof r->error, "%s phase not possible: %s", iob_phase_name(s->phase),
			 !(s->backend->desc.caps & need) ? "the backend cannot do it"
			 : s->nfiles == 0		 ? "no files"
			 : ph.write && !s->file_size	 ? "file size is 0"
							 : "bad block size");
		return r->status;
	}
	ph.fill_each = ph.write && !iob_pattern_is_constant(&s->pattern) && !s->fill_once;
	ph.open_flags = ph.write ? IOB_OPEN_WRITE | IOB_OPEN_CREATE | (s->truncate ? IOB_OPEN_TRUNC : 0) : IOB_OPEN_READ;
	ph.handles = calloc(s->nfiles, sizeof *ph.handles);
	ph.created = calloc(s->nfiles, sizeof *ph.created);
	ph.checked = calloc(s->nfiles, sizeof *ph.checked);
	if (!ph.handles || !ph.created || !ph.checked) {
		free(ph.handles);
		free(ph.created);
		free(ph.checked);
		r->status = -ENOMEM;
		snprintf(r->error, sizeof r->error, "out of memory for %zu file handles", s->nfiles);
		return r->status;
	}

	iob_ticks_init();
	measure_timing_floor();
	/* a series phase times every I/O with clock_gettime: one sample a block */
	if (lat_init(&ph.lat, r->hist, s->seed, !(s->record_series && s->access == IOB_ACCESS_SEQ)) < 0) {
		lat_finish(&ph.lat, r);
		free(ph.handles);
		free(ph.created);
		free(ph.checked);
		r->status = -ENOMEM;
		snprintf(r->error, sizeof r->error, "out of memory for the latency sample's histograms");
		return r->status;
	}
	uint64_t rchar0 = 0, wchar0 = 0, rchar1 = 0, wchar1 = 0;
	int have_io = iob_proc_io(&rchar0, &wchar0, NULL) == 0;
	uint64_t start = iob_now_ns(), start_tick = iob_ticks();
	if (prepare(&ph) == 0) {
		/* the clock starts here: opening file 0 for the probe is not timed */
		start = iob_now_ns();
		start_tick = iob_ticks();
		if (s->access == IOB_ACCESS_SEQ) {
			for (size_t i = 0; i < s->nfiles && r->status >= 0 && !r->interrupted; i++)
				run_seq_file(&ph, i);
		} else {
			if (s->reopen)
				close_one(&ph, 0);
			run_random(&ph);
		}
	}
	uint64_t end_tick = iob_ticks();
	r->elapsed_ns = iob_now_ns() - start;
	have_io = have_io && iob_proc_io(&rchar1, &wchar1, NULL) == 0;
	r->os_read_bytes = have_io ? rchar1 - rchar0 : UINT64_MAX;
	r->os_write_bytes = have_io ? wchar1 - wchar0 : UINT64_MAX;
	if (r->elapsed_ns == 0)
		r->elapsed_ns = 1;
	/* per-I/O times were taken in ticks: convert with this phase's own ratio */
	/* (a series phase timed its I/O with clock_gettime: already ns) */
	double ns_per_tick = iob_ticks_tsc && end_tick > start_tick && !(s->record_series && s->access == IOB_ACCESS_SEQ)
				     ? (double)r->elapsed_ns / (double)(end_tick - start_tick) : 1.0;
	lat_finish(&ph.lat, r);
	iob_hist_set_scale(r->hist, ns_per_tick);
	for (size_t i = 0; i < s->nfiles; i++) {
		if (ph.handles[i])
			ph.ops->close(ph.handles[i]);
		/* a file this phase created but could not even start on goes away */
		if (ph.created[i] && r->status < 0 && r->ops == 0)
			iob_remove_file(s->files[i]);
	}
	free(ph.handles);
	free(ph.created);
	free(ph.checked);
	iob_free_aligned(ph.buf);
	iob_free_aligned(ph.scratch);
	if (r->status == 0 && r->bad_blocks)
		r->status = IOB_STATUS_MISMATCH;
	return r->status;
}
