/*
 * test_shape.c - shapes of load (shape.c through the engine): bssplit,
 * random_distribution, rate and think time.
 *
 * An in-process backend logs every I/O (offset, length, direction) and
 * moves nothing, so a phase of 100,000 I/Os takes milliseconds.  The
 * drawn offsets are held to the theoretical distribution by a chi-squared
 * test over bins of at least 5 expected draws (fixed seeds, the critical
 * value at p = 0.001: a correct sampler fails one run in a thousand seeds,
 * and these seeds are fixed), the block sizes likewise.
 *
 * With --vclock LIB the rate and think-time tests run with the virtual
 * clock preloaded (tests/bigread/vclock.c: the clock moves only when
 * someone sleeps), so "held within 1% over 10 s" does not depend on the
 * machine: the program re-executes itself with LD_PRELOAD set.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "iobench/engine.h"
#include "iobench/os.h"
#include "iobench/shape.h"

#define UNIT 4096u
#define NUNITS 1000u
#define FILE_SIZE ((uint64_t)NUNITS * UNIT)
#include "fake_backend.h"
#define LOG_MAX 400000

static struct {
	size_t n;
	uint64_t off[LOG_MAX];
	uint32_t len[LOG_MAX];
	uint8_t write[LOG_MAX];
	uint64_t bad; /* out of the file */
	uint64_t failed; /* I/Os refused with EIO (fail_every) */
} lg;

static int lo_open(const struct iob_open_args *args, void **handle)
{
	(void)args;
	*handle = &lg;
	return 0;
}

static uint64_t fail_every; /* 0, or every I/O at a multiple of this offset fails with EIO */

static int64_t lo_io(size_t len, uint64_t off, int write)
{
	if (off + len > FILE_SIZE)
		lg.bad++;
	if (fail_every && off % fail_every == 0) {
		lg.failed++;
		return -EIO;
	}
	if (lg.n < LOG_MAX) {
		lg.off[lg.n] = off;
		lg.len[lg.n] = (uint32_t)len;
		lg.write[lg.n++] = (uint8_t)write;
	}
	return (int64_t)len;
}

static int64_t lo_read_at(void *handle, void *buf, size_t len, uint64_t off)
{
	(void)handle, (void)buf;
	return lo_io(len, off, 0);
}

static int64_t lo_write_at(void *handle, const void *buf, size_t len, uint64_t off)
{
	(void)handle, (void)buf;
	return lo_io(len, off, 1);
}

static struct iob_loaded backend;
static const char *const files[] = {"logged-file"};

static struct iob_phase_spec spec_for(enum iob_phase phase, enum iob_access access, const struct iob_shape *sh)
{
	fake_backend_init(&backend, "logged", IOB_CAP_READ | IOB_CAP_WRITE);
	backend.backend.open = lo_open;
	backend.backend.read_at = lo_read_at;
	backend.backend.write_at = lo_write_at;
	lg.n = 0;
	lg.bad = 0;
	lg.failed = 0;
	struct iob_phase_spec s = fake_spec(&backend, files, 1, phase, access, iob_shape_bs_max(sh, UNIT));
	s.rwmix_read = 50;
	s.pattern.kind = IOB_PAT_BYTE;
	s.pattern.byte = 0x5a;
	s.shape = sh;
	return s;
}

/* A phase of spec_for's run into *r: iob_phase_run's result. */
static int run_shape(enum iob_phase phase, enum iob_access access, const struct iob_shape *sh,
		     struct iob_phase_result *r)
{
	struct iob_phase_spec s = spec_for(phase, access, sh);
	return iob_phase_run(&s, r);
}

/* The chi-squared critical value at p = 0.001 for k degrees of freedom
 * (Wilson and Hilferty's cube approximation, within 1% from k = 3). */
static double chi2_crit(size_t k)
{
	double z = 3.090232, a = 2.0 / (9.0 * (double)k);
	double t = 1.0 - a + z * sqrt(a);
	return (double)k * t * t * t;
}

/* Chi-squared of counts against probabilities p[0..n) (summing to 1),
 * neighbouring bins merged until each expects at least 5; its degrees of
 * freedom in *dof. */
static double chi2(const uint64_t *count, const double *p, size_t n, uint64_t total, size_t *dof)
{
	double stat = 0, e = 0, o = 0;
	size_t bins = 0;
	for (size_t i = 0; i < n; i++) {
		e += p[i] * (double)total;
		o += (double)count[i];
		if (e >= 5.0 || i + 1 == n) {
			if (e > 0) {
				stat += (o - e) * (o - e) / e;
				bins++;
			}
			e = o = 0;
		}
	}
	*dof = bins - 1;
	return stat;
}

static void expect_fit(const char *what, const uint64_t *count, const double *p, size_t n, uint64_t total)
{
	size_t dof;
	double x = chi2(count, p, n, total, &dof);
	double crit = chi2_crit(dof);
	if (!(x < crit))
		fail_msg("%s: chi-squared %.1f over %zu degrees of freedom, above %.1f (p = 0.001)", what, x, dof, crit);
	/* and not a fit that cannot fail: a uniform guess must be refused for a skewed one */
}

/* ---- parsers ------------------------------------------------------------------------- */

static void test_parse(void **state)
{
	(void)state;
	struct iob_bssplit sp[2];
	struct iob_shape sh;
	char err[256];
	assert_int_equal(iob_bssplit_parse("4k/50:64k/50,8k/100", sp, err, sizeof err), 0);
	assert_int_equal(sp[0].n, 2);
	assert_int_equal(sp[0].bs[1], 65536);
	assert_int_equal(sp[1].n, 1);
	assert_int_equal(sp[1].bs[0], 8192);
	assert_int_equal(iob_bssplit_parse("512/:1k/:4k/50", sp, err, sizeof err), 0); /* the rest shared */
	assert_int_equal(sp[0].pct[0], 25);
	assert_int_equal(sp[0].pct[1], 25);
	assert_int_equal(sp[1].n, 3); /* one split: both directions */
	assert_int_equal(iob_bssplit_parse("4k/10:8k/", sp, err, sizeof err), 0);
	assert_int_equal(sp[0].pct[1], 90);
	memset(&sh, 0, sizeof sh);
	assert_int_equal(iob_dist_parse("zoned:50/5:30/15:20/", &sh, err, sizeof err), 0);
	assert_int_equal(sh.nzones, 3);
	assert_int_equal(sh.zones[2].size, 80);
	assert_int_equal(iob_dist_parse("zoned_abs:60/1m:40/3m", &sh, err, sizeof err), 0);
	assert_int_equal(sh.zones[1].size, 3 << 20);
	assert_int_equal(iob_dist_parse("zipf:1.2", &sh, err, sizeof err), 0);
	assert_int_equal(sh.dist, IOB_DIST_ZIPF);
	uint64_t r[2];
	assert_int_equal(iob_rate_parse("rate", "1m,", r, err, sizeof err), 0);
	assert_int_equal(r[0], 1 << 20);
	assert_int_equal(r[1], 0);
	assert_int_equal(iob_rate_parse("rate", ",300", r, err, sizeof err), 0);
	assert_int_equal(r[0], 0);
	assert_int_equal(r[1], 300);

	/* every bad value: refused, one line naming it */
	static const char *bad_split[] = {"4k/50:64k/40", "4k/60:8k/60", "4k", "4k/101", "0/100", "4k/x",
					  "4k/50:8k/50,16k/50", "4k/100,4k/100,4k/100", "3g/100", ":", "4k/-1"};
	for (size_t i = 0; i < sizeof bad_split / sizeof bad_split[0]; i++) {
		err[0] = '\0';
		if (iob_bssplit_parse(bad_split[i], sp, err, sizeof err) != -EINVAL)
			fail_msg("bssplit '%s' was accepted", bad_split[i]);
		assert_true(err[0] && !strchr(err, '\n'));
	}
	static const char *bad_dist[] = {"zipf",	   "zipf:1",	   "zipf:0",	  "zipf:-2",	  "pareto:1",
					 "pareto:0",	   "normal:0",	   "normal:101",  "gauss:3",	  "zoned",
					 "zoned:50/5",	   "zoned:50/5:50/5", "zoned:50/:50/50", "zoned:50/5:30/15:20/,1/1",
					 "zoned_abs:100/0", "zipf:1.2:0.5",  "sequence:", "zoned:x/5:100/95",
					 "sequence:1,,2", "sequence:-1",   "sequence:1x", "sequence:4294967296"};
	for (size_t i = 0; i < sizeof bad_dist / sizeof bad_dist[0]; i++) {
		err[0] = '\0';
		memset(&sh, 0, sizeof sh);
		if (iob_dist_parse(bad_dist[i], &sh, err, sizeof err) == 0)
			fail_msg("random_distribution '%s' was accepted", bad_dist[i]);
		assert_true(err[0] && !strchr(err, '\n'));
	}
	static const char *bad_rate[] = {"fast", "1m,2m,3m", "-5", "1m,x"};
	for (size_t i = 0; i < sizeof bad_rate / sizeof bad_rate[0]; i++) {
		err[0] = '\0';
		if (iob_rate_parse("rate", bad_rate[i], r, err, sizeof err) == 0)
			fail_msg("rate '%s' was accepted", bad_rate[i]);
		assert_true(err[0] && !strchr(err, '\n'));
	}
}

/* ---- bssplit ------------------------------------------------------------------------- */

/* A phase of the logged backend over sh, zeroed but for the bssplit split
 * and io_bytes (and rwmix_read when not 0), run to r. */
static void run_split(struct iob_shape *sh, const char *split, uint64_t io_bytes, enum iob_phase phase,
		      enum iob_access access, uint32_t rwmix_read, struct iob_phase_result *r)
{
	char err[256];
	memset(sh, 0, sizeof *sh);
	assert_int_equal(iob_bssplit_parse(split, sh->split, err, sizeof err), 0);
	sh->io_bytes = io_bytes;
	struct iob_phase_spec s = spec_for(phase, access, sh);
	if (rwmix_read)
		s.rwmix_read = rwmix_read;
	assert_int_equal(iob_phase_run(&s, r), 0);
}

/* Random reads with a three-way split: the sizes drawn in their shares,
 * every offset a multiple of the smallest, inside the file; the record's
 * histogram is exactly what the backend saw; the phase ends at its bytes. */
static void test_bssplit_random(void **state)
{
	(void)state;
	struct iob_shape sh;
	struct iob_phase_result r;
	run_split(&sh, "4k/50:64k/30:16k/20", 1ull << 30, IOB_PHASE_READ, IOB_ACCESS_RAND, 0, &r);
	assert_int_equal(lg.bad, 0);
	assert_int_equal(r.ops, lg.n);
	uint64_t sum = 0, count[3] = {0};
	for (size_t i = 0; i < lg.n; i++) {
		sum += lg.len[i];
		assert_int_equal(lg.off[i] % UNIT, 0);
		count[lg.len[i] == 4096 ? 0 : lg.len[i] == 65536 ? 1 : 2]++;
		assert_true(lg.len[i] == 4096 || lg.len[i] == 65536 || lg.len[i] == 16384);
	}
	assert_int_equal(r.bytes, sum);
	assert_true(sum >= sh.io_bytes && sum < sh.io_bytes + 65536); /* the last one may pass the budget */
	const double p[3] = {0.5, 0.3, 0.2};
	expect_fit("bssplit 4k/50:64k/30:16k/20", count, p, 3, lg.n);
	const double wrong[3] = {0.45, 0.35, 0.2}; /* the test can fail */
	size_t dof;
	assert_true(chi2(count, wrong, 3, lg.n, &dof) > chi2_crit(dof));
	/* the record's histogram: sizes, I/Os and bytes by direction */
	assert_int_equal(r.bs_hist.n, 3);
	for (uint32_t i = 0; i < r.bs_hist.n; i++) {
		uint64_t sz = r.bs_hist.size[i], want = count[sz == 4096 ? 0 : sz == 65536 ? 1 : 2];
		assert_int_equal(r.bs_hist.ios[0][i], want);
		assert_int_equal(r.bs_hist.bytes[0][i], want * sz);
		assert_int_equal(r.bs_hist.ios[1][i], 0);
	}
	char text[512];
	iob_bs_hist_text(&r.bs_hist, text, sizeof text);
	char want[512];
	snprintf(want, sizeof want, "4096:%llu:%llu:0:0 16384:%llu:%llu:0:0 65536:%llu:%llu:0:0",
		 (unsigned long long)count[0], (unsigned long long)count[0] * 4096, (unsigned long long)count[2],
		 (unsigned long long)count[2] * 16384, (unsigned long long)count[1], (unsigned long long)count[1] * 65536);
	assert_string_equal(text, want);
	iob_phase_result_free(&r);
}

/* A mixed phase with a split per direction: reads draw only theirs,
 * writes only theirs. */
static void test_bssplit_directions(void **state)
{
	(void)state;
	struct iob_shape sh;
	struct iob_phase_result r;
	run_split(&sh, "4k/50:8k/50,16k/100", 64ull << 20, IOB_PHASE_MIXED, IOB_ACCESS_RAND, 70, &r);
	uint64_t reads[2] = {0}, writes = 0, rbytes = 0, wbytes = 0;
	for (size_t i = 0; i < lg.n; i++) {
		if (lg.write[i]) {
			assert_int_equal(lg.len[i], 16384);
			writes++;
			wbytes += lg.len[i];
		} else {
			assert_true(lg.len[i] == 4096 || lg.len[i] == 8192);
			reads[lg.len[i] == 8192]++;
			rbytes += lg.len[i];
		}
	}
	assert_int_equal(r.ops_written, writes);
	assert_int_equal(r.bytes_written, wbytes);
	assert_int_equal(r.bytes_read, rbytes);
	const double half[2] = {0.5, 0.5};
	expect_fit("reads 4k/50:8k/50", reads, half, 2, reads[0] + reads[1]);
	uint64_t dir[2] = {reads[0] + reads[1], writes};
	const double mix[2] = {0.7, 0.3};
	expect_fit("rwmix_read 70", dir, mix, 2, lg.n);
	iob_phase_result_free(&r);
}

/* Sequential writes with a split: each I/O starts where the last ended and
 * the pass covers the file exactly (the last I/O cut at its end). */
static void test_bssplit_sequential(void **state)
{
	(void)state;
	struct iob_shape sh;
	struct iob_phase_result r;
	run_split(&sh, "4k/40:12k/60", 0, IOB_PHASE_WRITE, IOB_ACCESS_SEQ, 0, &r);
	uint64_t at = 0;
	for (size_t i = 0; i < lg.n; i++) {
		assert_int_equal(lg.off[i], at);
		at += lg.len[i];
	}
	assert_int_equal(at, FILE_SIZE);
	assert_int_equal(r.bytes, FILE_SIZE);
	assert_int_equal(lg.bad, 0);
	iob_phase_result_free(&r);
}

/* ---- distributions ------------------------------------------------------------------ */

#define DRAWS 200000u

/* Random reads of one 4k block by the distribution: the count of each
 * rank (the hottest first: zipf, pareto and normal scatter ranks over the
 * file by iob_shape_scatter, inverted here). */
static void draw_ranks(const char *dist, uint64_t *by_rank, int scattered)
{
	struct iob_shape sh;
	char err[256];
	memset(&sh, 0, sizeof sh);
	assert_int_equal(iob_dist_parse(dist, &sh, err, sizeof err), 0);
	sh.io_bytes = (uint64_t)DRAWS * UNIT;
	struct iob_phase_spec s = spec_for(IOB_PHASE_READ, IOB_ACCESS_RAND, &sh);
	struct iob_phase_result r;
	assert_int_equal(iob_phase_run(&s, &r), 0);
	assert_int_equal(lg.n, DRAWS);
	assert_int_equal(lg.bad, 0);
	static uint64_t rank_of[NUNITS];
	if (scattered) { /* the engine's own run: the same seed, the same scatter */
		struct iob_shape_run run;
		iob_shape_run_init(&run, &sh, s.seed, UNIT, FILE_SIZE, 0, UINT64_MAX);
		for (uint64_t k = 0; k < NUNITS; k++) {
			uint64_t u = iob_shape_scatter(&run, k);
			assert_true(u < NUNITS);
			rank_of[u] = k;
		}
	}
	memset(by_rank, 0, NUNITS * sizeof *by_rank);
	for (size_t i = 0; i < lg.n; i++) {
		uint64_t u = lg.off[i] / UNIT;
		by_rank[scattered ? rank_of[u] : u]++;
	}
	iob_phase_result_free(&r);
}

static void test_dist_zipf(void **state)
{
	(void)state;
	static uint64_t c[NUNITS];
	static double p[NUNITS], flat[NUNITS];
	const double theta[] = {1.2, 0.8};
	for (size_t t = 0; t < 2; t++) {
		char dist[32];
		snprintf(dist, sizeof dist, "zipf:%g", theta[t]);
		draw_ranks(dist, c, 1);
		double z = 0;
		for (size_t k = 0; k < NUNITS; k++)
			z += pow((double)(k + 1), -theta[t]);
		for (size_t k = 0; k < NUNITS; k++) {
			p[k] = pow((double)(k + 1), -theta[t]) / z;
			flat[k] = 1.0 / NUNITS;
		}
		expect_fit(dist, c, p, NUNITS, DRAWS);
		size_t dof;
		assert_true(chi2(c, flat, NUNITS, DRAWS, &dof) > chi2_crit(dof)); /* not uniform */
	}
}

static void test_dist_pareto(void **state)
{
	(void)state;
	static uint64_t c[NUNITS];
	static double p[NUNITS];
	const double h = 0.2, e = log(h) / log(1.0 - h);
	draw_ranks("pareto:0.2", c, 1);
	/* rank = floor((N - 1) u^e): P(rank <= k) = min(1, ((k + 1) / (N - 1))^(1/e)) */
	double prev = 0;
	for (size_t k = 0; k < NUNITS; k++) {
		double f = pow((double)(k + 1) / (double)(NUNITS - 1), 1.0 / e);
		if (f > 1)
			f = 1;
		p[k] = f - prev;
		prev = f;
	}
	expect_fit("pareto:0.2", c, p, NUNITS, DRAWS);
}

static double phi(double x)
{
	return 0.5 * erfc(-x / sqrt(2.0));
}

static void test_dist_normal(void **state)
{
	(void)state;
	static uint64_t c[NUNITS];
	static double p[NUNITS];
	const double mid = NUNITS / 2.0, sigma = 0.1 * NUNITS;
	draw_ranks("normal:10", c, 1);
	double all = phi((NUNITS - mid) / sigma) - phi((0 - mid) / sigma);
	for (size_t k = 0; k < NUNITS; k++)
		p[k] = (phi(((double)k + 1 - mid) / sigma) - phi(((double)k - mid) / sigma)) / all;
	expect_fit("normal:10", c, p, NUNITS, DRAWS);
}

/* zoned: the share of each zone, and uniform inside each (its units, placed
 * from the start of the file, not scattered) */
static void test_dist_zoned(void **state)
{
	(void)state;
	static uint64_t c[NUNITS];
	static double p[NUNITS];
	draw_ranks("zoned:50/5:30/15:20/", c, 0);
	/* 1000 units: [0, 50) 50%, [50, 200) 30%, [200, 1000) 20% */
	for (size_t u = 0; u < NUNITS; u++)
		p[u] = u < 50 ? 0.5 / 50 : u < 200 ? 0.3 / 150 : 0.2 / 800;
	expect_fit("zoned:50/5:30/15:20/", c, p, NUNITS, DRAWS);
	draw_ranks("zoned_abs:60/400k:40/1m", c, 0);
	/* 400 KiB = 100 units, 1 MiB = 256 units after them; nothing past */
	for (size_t u = 0; u < NUNITS; u++)
		p[u] = u < 100 ? 0.6 / 100 : u < 356 ? 0.4 / 256 : 0;
	for (size_t u = 356; u < NUNITS; u++)
		assert_int_equal(c[u], 0);
	expect_fit("zoned_abs:60/400k:40/1m", c, p, 356, DRAWS);
}

/* The same seed draws the same offsets and sizes: a read after a write
 * (written_draws) goes where the write went. */
static void test_same_seed_same_draws(void **state)
{
	(void)state;
	struct iob_shape sh;
	char err[256];
	memset(&sh, 0, sizeof sh);
	assert_int_equal(iob_bssplit_parse("4k/50:8k/50", sh.split, err, sizeof err), 0);
	assert_int_equal(iob_dist_parse("zipf:1.1", &sh, err, sizeof err), 0);
	sh.io_bytes = 4u << 20;
	struct iob_phase_spec s = spec_for(IOB_PHASE_WRITE, IOB_ACCESS_RAND, &sh);
	struct iob_phase_result w, r;
	assert_int_equal(iob_phase_run(&s, &w), 0);
	size_t n = lg.n;
	static uint64_t off[LOG_MAX];
	static uint32_t len[LOG_MAX];
	memcpy(off, lg.off, n * sizeof *off);
	memcpy(len, lg.len, n * sizeof *len);
	struct iob_phase_spec s2 = spec_for(IOB_PHASE_READ, IOB_ACCESS_RAND, &sh);
	s2.written_draws = &w.draws;
	assert_int_equal(iob_phase_run(&s2, &r), 0);
	assert_int_equal(lg.n, n);
	assert_memory_equal(lg.off, off, n * sizeof *off);
	assert_memory_equal(lg.len, len, n * sizeof *len);
	iob_phase_result_free(&w);
	iob_phase_result_free(&r);
}

/* fio's rw=read:-8k and read:8k (seq_add), and randread:4 (rand_run), in
 * the orders fio's write_iolog shows for them */
static void test_offset_modifiers(void **state)
{
	(void)state;
	struct iob_shape sh;
	struct iob_phase_result r;
	memset(&sh, 0, sizeof sh);
	sh.seq_add = -8192;
	sh.bs = UNIT;
	assert_int_equal(run_shape(IOB_PHASE_READ, IOB_ACCESS_SEQ, &sh, &r), 0);
	assert_int_equal(lg.n, NUNITS); /* a file's worth of I/Os */
	assert_int_equal(lg.off[0], 0);
	assert_int_equal(lg.off[1], FILE_SIZE - 8192); /* below the start: at the end less 8k */
	for (size_t i = 2; i < lg.n; i++)
		assert_int_equal(lg.off[i], lg.off[i - 1] - UNIT); /* backwards, a block at a time */
	assert_int_equal(r.bytes, FILE_SIZE);
	iob_phase_result_free(&r);
	sh.seq_add = 8192;
	assert_int_equal(run_shape(IOB_PHASE_READ, IOB_ACCESS_SEQ, &sh, &r), 0);
	assert_int_equal(lg.n, (FILE_SIZE + 12287) / 12288); /* to the end, with 8k holes */
	for (size_t i = 0; i < lg.n; i++)
		assert_int_equal(lg.off[i], i * 12288);
	iob_phase_result_free(&r);
	memset(&sh, 0, sizeof sh);
	sh.rand_run = 4;
	sh.bs = UNIT;
	sh.io_bytes = 4000ull * UNIT;
	assert_int_equal(run_shape(IOB_PHASE_READ, IOB_ACCESS_RAND, &sh, &r), 0);
	assert_int_equal(lg.n, 4000);
	size_t runs = 0, in_run = 0;
	for (size_t i = 1; i < lg.n; i++) {
		if (lg.off[i] == lg.off[i - 1] + UNIT && in_run < 3) {
			in_run++;
			continue;
		}
		assert_true(in_run == 3 || lg.off[i - 1] + 2 * UNIT > FILE_SIZE); /* a run is cut only at the end */
		runs++;
		in_run = 0;
	}
	assert_true(runs >= 990 && runs <= 1010);
	iob_phase_result_free(&r);
}

/* strided zones (fio's zonemode=strided, as fio 3.33 walks them: docs/fio.md
 * "Zones"): zones of 16 blocks every 40 (25 of them before the walk comes
 * back to the file's start), sequential and random with the map, and a zone
 * size of two ranges; iob_shape_zones_past on a walk that fits and one whose
 * last zone runs 8 blocks past the file */
static void test_strided_zones(void **state)
{
	(void)state;
	struct iob_shape sh;
	struct iob_phase_result r;
	memset(&sh, 0, sizeof sh);
	sh.bs = UNIT;
	sh.zone_size = sh.zone_range = 16 * UNIT;
	sh.zone_skip = 24 * UNIT;
	assert_int_equal(iob_shape_zones_past(&sh, FILE_SIZE, UNIT, UINT64_MAX, 1), 0);
	assert_true(iob_shape_draws(&sh));
	assert_int_equal(run_shape(IOB_PHASE_READ, IOB_ACCESS_SEQ, &sh, &r), 0);
	assert_int_equal(lg.n, NUNITS); /* a file's worth of bytes, wherever the zones are */
	for (size_t i = 0; i < lg.n; i++)
		assert_int_equal(lg.off[i], ((i / 16) % 25 * 40 + i % 16) * UNIT);
	iob_phase_result_free(&r);
	sh.zone_size = 32 * UNIT; /* two ranges a zone: each range read twice */
	assert_int_equal(run_shape(IOB_PHASE_READ, IOB_ACCESS_SEQ, &sh, &r), 0);
	for (size_t i = 0; i < lg.n; i++)
		assert_int_equal(lg.off[i], ((i / 32) % 25 * 40 + i % 16) * UNIT);
	iob_phase_result_free(&r);
	sh.zone_size = 16 * UNIT;
	sh.zone_map = 1;
	sh.io_bytes = (uint64_t)NUNITS * UNIT;
	assert_int_equal(run_shape(IOB_PHASE_READ, IOB_ACCESS_RAND, &sh, &r), 0);
	assert_int_equal(lg.n, NUNITS);
	for (size_t v = 0; v + 16 <= lg.n; v += 16) { /* each visit: its zone's 16 blocks, each once */
		uint32_t seen = 0;
		uint64_t start = (v / 16) % 25 * 40 * UNIT;
		for (size_t i = v; i < v + 16; i++) {
			assert_true(lg.off[i] >= start && lg.off[i] < start + 16 * UNIT && lg.off[i] % UNIT == 0);
			seen |= 1u << ((lg.off[i] - start) / UNIT);
		}
		assert_int_equal(seen, 0xffffu);
	}
	iob_phase_result_free(&r);
	sh.zone_skip = 16 * UNIT; /* zones every 32 blocks: the 32nd, at block 992, ends at 1008 */
	assert_int_equal(iob_shape_zones_past(&sh, FILE_SIZE, UNIT, UINT64_MAX, 1), 1008ull * UNIT);
	assert_int_equal(iob_shape_zones_past(&sh, FILE_SIZE, UNIT, 31ull * 16 * UNIT, 1), 0); /* done before it */
	assert_int_equal(iob_shape_zones_past(&sh, FILE_SIZE, UNIT, 31ull * 16 * UNIT + 8 * UNIT, 1), 0);
	assert_int_equal(iob_shape_zones_past(&sh, FILE_SIZE, UNIT, 31ull * 16 * UNIT + 9 * UNIT, 1), 1001ull * UNIT);
	assert_int_equal(iob_shape_zones_past(&sh, FILE_SIZE, UNIT, 31ull * 16 * UNIT + UNIT, 0), 1008ull * UNIT);
}

/* random_distribution=sequence (fio's, with random_sequence_stride 0 and
 * 1): the blocks in the order the HOWTO gives, each direction counting its
 * own I/Os, and a strided order ending at the first block past the file */
static void test_dist_sequence(void **state)
{
	(void)state;
	struct iob_shape sh;
	struct iob_phase_result r;
	char err[256];
	memset(&sh, 0, sizeof sh);
	assert_int_equal(iob_dist_parse("sequence: 2, 0 ,1", &sh, err, sizeof err), 0);
	assert_int_equal(sh.dist, IOB_DIST_SEQUENCE);
	assert_int_equal(sh.nseq, 3);
	sh.bs = UNIT;
	sh.io_bytes = 7ull * UNIT;
	assert_int_equal(run_shape(IOB_PHASE_READ, IOB_ACCESS_RAND, &sh, &r), 0);
	static const uint64_t fixed[] = {2, 0, 1, 2, 0, 1, 2};
	assert_int_equal(lg.n, 7);
	for (size_t i = 0; i < 7; i++)
		assert_int_equal(lg.off[i], fixed[i] * UNIT);
	iob_phase_result_free(&r);
	sh.seq_stride = 1;
	assert_int_equal(run_shape(IOB_PHASE_READ, IOB_ACCESS_RAND, &sh, &r), 0);
	static const uint64_t strided[] = {2, 0, 1, 5, 3, 4, 8};
	assert_int_equal(lg.n, 7);
	for (size_t i = 0; i < 7; i++)
		assert_int_equal(lg.off[i], strided[i] * UNIT);
	iob_phase_result_free(&r);
	/* no end but the file's: 1000 blocks = 333 whole passes, then 1000 is past it */
	sh.io_bytes = 0;
	struct iob_phase_spec s = spec_for(IOB_PHASE_READ, IOB_ACCESS_RAND, &sh);
	s.time_based = 1;
	s.runtime_ns = 10000000000ull;
	assert_int_equal(iob_phase_run(&s, &r), 0);
	assert_int_equal(lg.n, 999);
	assert_int_equal(r.ops, 999);
	assert_int_equal(lg.off[998], 997ull * UNIT);
	iob_phase_result_free(&r);
	/* mixed: reads and writes each go through the sequence on their own count */
	assert_int_equal(iob_dist_parse("sequence:3,1", &sh, err, sizeof err), 0);
	sh.seq_stride = 0;
	sh.io_bytes = 400ull * UNIT;
	assert_int_equal(run_shape(IOB_PHASE_MIXED, IOB_ACCESS_RAND, &sh, &r), 0);
	assert_int_equal(lg.n, 400);
	uint64_t k[2] = {0, 0};
	for (size_t i = 0; i < lg.n; i++) {
		uint64_t want = (k[lg.write[i]]++ % 2) ? 1 : 3;
		assert_int_equal(lg.off[i], want * UNIT);
	}
	assert_true(k[0] > 100 && k[1] > 100); /* both directions took part */
	iob_phase_result_free(&r);
	/* at most 64 indices */
	char text[1024];
	size_t o = (size_t)snprintf(text, sizeof text, "sequence:0");
	for (int i = 1; i < IOB_SEQ_MAX; i++)
		o += (size_t)snprintf(text + o, sizeof text - o, ",%d", i);
	assert_int_equal(iob_dist_parse(text, &sh, err, sizeof err), 0);
	assert_int_equal(sh.nseq, IOB_SEQ_MAX);
	snprintf(text + o, sizeof text - o, ",64");
	assert_int_equal(iob_dist_parse(text, &sh, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "at most 64"));
}

/* continue_on_error: failed reads counted and passed over; writes still
 * end the phase at the first error; without it, reads end it too */
static void test_continue_on_error(void **state)
{
	(void)state;
	struct iob_shape sh;
	struct iob_phase_result r;
	memset(&sh, 0, sizeof sh);
	sh.continue_mask = 1; /* reads */
	fail_every = 64 * UNIT;
	assert_int_equal(run_shape(IOB_PHASE_READ, IOB_ACCESS_SEQ, &sh, &r), 0);
	assert_int_equal(lg.failed, (NUNITS + 63) / 64);
	assert_int_equal(r.io_errors, lg.failed);
	assert_true(r.errors_counted);
	assert_int_equal(r.ops, NUNITS - lg.failed);
	assert_int_equal(r.bytes, (NUNITS - lg.failed) * UNIT);
	iob_phase_result_free(&r);
	assert_int_equal(run_shape(IOB_PHASE_WRITE, IOB_ACCESS_SEQ, &sh, &r), -EIO); /* writes are not in the mask */
	assert_int_equal(r.ops, 0);
	iob_phase_result_free(&r);
	sh.continue_mask = 0;
	sh.rand_run = 2; /* some shape, so the same loop runs */
	sh.io_bytes = 1000ull * UNIT;
	assert_int_equal(run_shape(IOB_PHASE_READ, IOB_ACCESS_RAND, &sh, &r), -EIO);
	assert_int_equal(r.io_errors, 0);
	assert_false(r.errors_counted);
	iob_phase_result_free(&r);
	fail_every = 0;
}

/* ignore_error: a direction with a list passes over only those errnos */
/* A stop while a stream waits its turn at rate (or thinks) ends the wait and
 * starts no I/O after it: iob_shape_pace says 1, at once (exitwhat.fio's
 * fast jobs, stopped by exit_others, did one I/O a direction, as fio's). */
static void test_pace_stopped(void **state)
{
	(void)state;
	struct iob_shape sh;
	memset(&sh, 0, sizeof sh);
	sh.rate[0] = sh.rate[1] = 300; /* bytes/s: the next 4 KiB of a direction 13.6 s later */
	struct iob_shape_run run;
	iob_shape_run_init(&run, &sh, 1, 4096, 1 << 20, 0, UINT64_MAX);
	iob_shape_window(&run, iob_now_ns());
	volatile sig_atomic_t stop = 0;
	assert_int_equal(iob_shape_pace(&run, 0, 4096, 0, &stop), 0); /* the first read: at once */
	assert_int_equal(iob_shape_pace(&run, 1, 4096, 0, &stop), 0); /* the first write: at once */
	stop = 1;
	assert_int_equal(iob_shape_pace(&run, 0, 4096, 0, &stop), 1); /* no second read */
	memset(&sh, 0, sizeof sh);
	sh.think_ns = 60000000000ull; /* thinktime 60 s */
	iob_shape_run_init(&run, &sh, 1, 4096, 1 << 20, 0, UINT64_MAX);
	iob_shape_window(&run, iob_now_ns());
	stop = 0;
	assert_int_equal(iob_shape_pace(&run, 0, 4096, 0, &stop), 0); /* no think before the first */
	stop = 1;
	assert_int_equal(iob_shape_pace(&run, 0, 4096, 0, &stop), 1); /* no I/O after the think */
}

static void test_ignore_error(void **state)
{
	(void)state;
	struct iob_shape sh;
	struct iob_phase_result r;
	char err[256];
	memset(&sh, 0, sizeof sh);
	assert_int_equal(iob_ignore_error_parse("EIO:ENOSPC,122", &sh, err, sizeof err), 0);
	assert_int_equal(sh.nignore[0], 2);
	assert_int_equal(sh.ignore[0][0], EIO);
	assert_int_equal(sh.ignore[0][1], ENOSPC);
	assert_int_equal(sh.nignore[1], 1);
	assert_int_equal(sh.ignore[1][0], 122);
	assert_int_equal(sh.continue_mask, 3);
	assert_true(iob_shape_passes_error(&sh, 0, EIO));
	assert_false(iob_shape_passes_error(&sh, 0, EAGAIN));
	assert_false(iob_shape_passes_error(&sh, 1, EIO));
	const char *bad[] = {"EIO,ENOSPC,EIO", "EIO,,,", "EFOO", "EIO::x", "0", "4096", ",EIO:", NULL};
	for (size_t i = 0; bad[i]; i++) {
		memset(&sh, 0, sizeof sh);
		err[0] = '\0';
		if (iob_ignore_error_parse(bad[i], &sh, err, sizeof err) != -EINVAL)
			fail_msg("ignore_error '%s' was accepted", bad[i]);
		assert_non_null(strstr(err, "ignore_error"));
	}
	memset(&sh, 0, sizeof sh);
	assert_int_equal(iob_ignore_error_parse(",", &sh, err, sizeof err), 0);
	assert_int_equal(sh.continue_mask, 0);
	/* continue_on_error for writes, a list for reads: reads pass over EIO (the backend's) */
	memset(&sh, 0, sizeof sh);
	sh.continue_mask = 2;
	assert_int_equal(iob_ignore_error_parse("EIO", &sh, err, sizeof err), 0);
	fail_every = 64 * UNIT;
	assert_int_equal(run_shape(IOB_PHASE_READ, IOB_ACCESS_SEQ, &sh, &r), 0);
	assert_int_equal(r.io_errors, (NUNITS + 63) / 64);
	assert_int_equal(r.ops, NUNITS - r.io_errors);
	iob_phase_result_free(&r);
	/* a list without the errno met: the first error ends the phase */
	memset(&sh, 0, sizeof sh);
	assert_int_equal(iob_ignore_error_parse("ENOSPC:EAGAIN", &sh, err, sizeof err), 0);
	assert_int_equal(run_shape(IOB_PHASE_READ, IOB_ACCESS_SEQ, &sh, &r), -EIO);
	assert_int_equal(r.io_errors, 0);
	iob_phase_result_free(&r);
	fail_every = 0;
}

/* ---- rate and think time (virtual clock) ----------------------------------------- */

static void paced(enum iob_phase phase, struct iob_shape *sh, uint64_t runtime_ns, struct iob_phase_result *r)
{
	struct iob_phase_spec s = spec_for(phase, IOB_ACCESS_RAND, sh);
	s.runtime_ns = runtime_ns;
	s.time_based = runtime_ns != 0;
	assert_int_equal(iob_phase_run(&s, r), 0);
}

static void within(const char *what, double got, double want, double share)
{
	if (fabs(got - want) > share * want)
		fail_msg("%s: %.0f, not within %.1f%% of %.0f", what, got, share * 100, want);
}

/* rate held within 1% over 10 s: linear by bytes, poisson by I/Os, and a
 * rate per direction in a mixed phase */
static void test_rate(void **state)
{
	(void)state;
	struct iob_shape sh;
	struct iob_phase_result r;
	char err[256];
	memset(&sh, 0, sizeof sh);
	assert_int_equal(iob_rate_parse("rate", "1m", sh.rate, err, sizeof err), 0);
	paced(IOB_PHASE_READ, &sh, 10000000000ull, &r);
	within("rate=1m over 10 s, bytes", (double)r.bytes, 10.0 * (1 << 20), 0.01);
	within("rate=1m, elapsed ns", (double)r.elapsed_ns, 1e10, 0.01);
	iob_phase_result_free(&r);

	memset(&sh, 0, sizeof sh);
	assert_int_equal(iob_rate_parse("rate_iops", "10000", sh.rate_iops, err, sizeof err), 0);
	sh.poisson = 1;
	paced(IOB_PHASE_WRITE, &sh, 10000000000ull, &r);
	within("rate_iops=10000 poisson over 10 s, I/Os", (double)r.ops, 100000, 0.01);
	/* poisson: the gaps are exponential, so they are not all equal */
	uint64_t ios = r.ops;
	iob_phase_result_free(&r);
	sh.poisson = 0;
	paced(IOB_PHASE_WRITE, &sh, 10000000000ull, &r);
	assert_int_equal(r.ops, 100000); /* linear: exactly one every 100 us */
	assert_int_not_equal(ios, r.ops);
	iob_phase_result_free(&r);

	memset(&sh, 0, sizeof sh);
	assert_int_equal(iob_rate_parse("rate", "1m,256k", sh.rate, err, sizeof err), 0);
	paced(IOB_PHASE_MIXED, &sh, 10000000000ull, &r);
	within("mixed: reads at 1m", (double)r.bytes_read, 10.0 * (1 << 20), 0.01);
	within("mixed: writes at 256k", (double)r.bytes_written, 10.0 * (256 << 10), 0.01);
	iob_phase_result_free(&r);
}

/* thinktime every 4 I/Os, 1 ms: 1000 I/Os take 249 pauses */
static void test_thinktime(void **state)
{
	(void)state;
	struct iob_shape sh;
	struct iob_phase_result r;
	memset(&sh, 0, sizeof sh);
	sh.think_ns = 1000000;
	sh.think_blocks = 4;
	sh.io_bytes = 1000ull * UNIT;
	sh.dist = IOB_DIST_RANDOM;
	/* a split of one size makes the phase end by bytes: 1000 I/Os */
	char err[256];
	assert_int_equal(iob_bssplit_parse("4k/100", sh.split, err, sizeof err), 0);
	paced(IOB_PHASE_READ, &sh, 0, &r);
	assert_int_equal(r.ops, 1000);
	within("thinktime 1ms every 4 of 1000 I/Os, elapsed ns", (double)r.elapsed_ns, 249e6, 0.002);
	iob_phase_result_free(&r);
}

/* rate_min: a phase held below it fails, saying its rate; start_delay: the
 * window starts that long after the call, and the delay is not in it */
static void test_rate_min_and_start_delay(void **state)
{
	(void)state;
	struct iob_shape sh;
	struct iob_phase_result r;
	char err[256];
	memset(&sh, 0, sizeof sh);
	assert_int_equal(iob_rate_parse("rate", "1m", sh.rate, err, sizeof err), 0);
	assert_int_equal(iob_rate_parse("rate_min", "2m", sh.rate_min, err, sizeof err), 0);
	struct iob_phase_spec s = spec_for(IOB_PHASE_READ, IOB_ACCESS_RAND, &sh);
	s.runtime_ns = 2000000000ull;
	s.time_based = 1;
	assert_int_equal(iob_phase_run(&s, &r), -ETIME);
	assert_non_null(strstr(r.error, "below rate_min 2097152 bytes/s"));
	iob_phase_result_free(&r);
	assert_int_equal(iob_rate_parse("rate_min", "512k", sh.rate_min, err, sizeof err), 0);
	sh.start_delay_ns = 3000000000ull;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint64_t before = (uint64_t)t0.tv_sec * 1000000000ull + (uint64_t)t0.tv_nsec;
	assert_int_equal(iob_phase_run(&s, &r), 0);
	assert_true(r.start_ns >= before + sh.start_delay_ns);
	within("start_delay: the window is the runtime alone", (double)r.elapsed_ns, 2e9, 0.01);
	within("rate=1m for 2 s", (double)r.bytes, 2.0 * (1 << 20), 0.01);
	iob_phase_result_free(&r);
}

/* ---- sprandom (spr.h) ------------------------------------------------------- */

/* The structure of a sprandom order w[0 .. n-1] over nblocks blocks in
 * regions of rw writes: region 0 all fresh blocks; each later region, the
 * blocks the region before kept (each written in it) and fresh ones, the
 * kept ones after the region's first write (no spr_cs) or at its end (spr_cs);
 * kept[r] the blocks region r kept.  Returns the regions that broke it. */
static unsigned spr_structure(const uint64_t *w, size_t n, uint64_t nblocks, uint64_t rw, int cached, uint64_t *kept,
			      size_t nkept)
{
	uint32_t *last = calloc(nblocks, sizeof *last); /* 1 + the region that last wrote the block, 0: none */
	assert_non_null(last);
	unsigned bad = 0;
	for (size_t r = 0; r * rw < n; r++) {
		size_t a = r * rw, e = a + rw < n ? a + rw : n, reps = 0, first = SIZE_MAX, lastrep = 0;
		int ok = 1;
		for (size_t i = a; i < e; i++) {
			assert_true(w[i] < nblocks);
			if (last[w[i]]) {
				ok &= last[w[i]] == r; /* written by the region before */
				reps++;
				if (first == SIZE_MAX)
					first = i;
				lastrep = i;
			}
		}
		for (size_t i = a; i < e; i++)
			last[w[i]] = (uint32_t)r + 1;
		if (reps) /* contiguous, where the mode puts them */
			ok &= lastrep - first + 1 == reps && (cached ? lastrep + 1 == e || e < a + rw : first == a + 1);
		ok &= r > 0 || reps == 0;
		bad += !ok;
		if (r && r - 1 < nkept)
			kept[r - 1] = reps;
	}
	free(last);
	return bad;
}

static void test_spr_curve_and_plan(void **state)
{
	(void)state;
	uint16_t pct[100];
	char err[256];
	struct iob_spr_plan p;
	iob_spr_curve(100, 0.15, pct);
	/* region 0: the garbage collector's block, 1 - 1/WA invalid, WA = 0.5/0.15 + 0.7; the last: all valid */
	assert_int_equal(pct[0], (int)lround(10000.0 / (0.5 / 0.15 + 0.7)));
	assert_int_equal(pct[99], 0);
	for (int i = 1; i < 100; i++)
		assert_true(pct[i] <= pct[i - 1]);
	/* resampled to equal sizes: the low-validity end of the curve holds more of the space,
	 * so the middle region is more invalid than the validities' middle */
	assert_true(pct[50] > pct[0] / 2);
	iob_spr_curve(1, 0.15, pct);
	assert_int_equal(pct[0], 0);
	/* 16 MiB of 4 KiB blocks, fio's defaults: 4096 + 15% = 4710 blocks, 47 a region */
	assert_int_equal(iob_spr_plan(16u << 20, 4096, 100, 0.15, 0, &p, err, sizeof err), 0);
	assert_int_equal(p.blocks, 4096);
	assert_int_equal(p.writes, 4710);
	assert_int_equal(p.region_writes, 47);
	assert_true(p.ring >= 12 && p.ring < 47);
	assert_int_equal(iob_spr_bytes(&p), 100 * 2 + p.ring * 8);
	assert_int_equal(iob_spr_plan(16u << 20, 4096, 100, 0.15, 65536, &p, err, sizeof err), 0);
	assert_true(p.ring >= 24);
	assert_int_equal(iob_spr_plan(16u << 20, 4096, 100, 0.0, 0, &p, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "spr_op 0 is not strictly between 0 and 1"));
	assert_int_equal(iob_spr_plan(16u << 20, 4096, 100, 1.0, 0, &p, err, sizeof err), -EINVAL);
	assert_int_equal(iob_spr_plan(16u << 20, 4096, 0, 0.15, 0, &p, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "spr_num_regions 0"));
	assert_int_equal(iob_spr_plan(16u << 20, 4096, 4711, 0.15, 0, &p, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "spr_num_regions 4711 is more than the 4710 blocks"));
	assert_int_equal(iob_spr_plan(16u << 20, 4096, 4710, 0.15, 0, &p, err, sizeof err), 0);
	assert_int_equal(iob_spr_plan(16u << 20, 4096, 100, 0.15, 192922, &p, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "spr_cs 192922 is larger than a region (192921 bytes"));
	double op;
	assert_int_equal(iob_spr_op_parse("0.15", &op, err, sizeof err), 0);
	assert_true(op == 0.15);
	assert_int_equal(iob_spr_op_parse("1", &op, err, sizeof err), -EINVAL);
	assert_int_equal(iob_spr_op_parse("0.1x", &op, err, sizeof err), -EINVAL);
	assert_int_equal(iob_spr_op_parse("", &op, err, sizeof err), -EINVAL);
}

/* The order drawn directly, 100,000 blocks in 100 regions: its structure,
 * its end (every block written, or the physical size), and each tenth of the
 * regions keeping as many blocks as its probabilities say (a binomial count
 * each region: within 4 standard deviations over each tenth; fixed seeds). */
static void spr_order_check(double op, uint64_t cache)
{
	const uint64_t nb = 100000;
	char err[256];
	struct iob_spr_plan p;
	struct iob_spr s;
	assert_int_equal(iob_spr_plan(nb * UNIT, UNIT, 100, op, cache, &p, err, sizeof err), 0);
	uint64_t *w = malloc(p.writes * sizeof *w), kept[100] = {0};
	uint16_t pct[100];
	assert_non_null(w);
	iob_spr_curve(100, op, pct);
	for (uint64_t seed = 1; seed <= 3; seed++) {
		assert_int_equal(iob_spr_init(&s, &p, seed), 0);
		size_t n = 0;
		uint64_t b;
		while (iob_spr_next(&s, &b)) {
			assert_true(n < p.writes);
			w[n++] = b;
		}
		assert_int_equal(s.full, 0);
		assert_int_equal(spr_structure(w, n, nb, p.region_writes, cache != 0, kept, 100), 0);
		uint8_t *seen = calloc(nb, 1);
		uint64_t distinct = 0;
		for (size_t i = 0; i < n; i++)
			distinct += !seen[w[i]]++;
		free(seen);
		/* the end: the physical size written, or every block once and what was kept */
		assert_true(n == p.writes || (distinct == nb && n < p.writes));
		for (int t = 0; t < 10; t++) {
			double mean = 0, var = 0, got = 0;
			for (int r = t * 10; r < t * 10 + 10 && r < 99; r++) {
				double q = (pct[r] + 1.0) / (IOB_SPR_PRECISION + 1.0);
				mean += (double)p.region_writes * q;
				var += (double)p.region_writes * q * (1 - q);
				got += (double)kept[r];
			}
			assert_true(fabs(got - mean) <= 4 * sqrt(var) + 1);
		}
		/* the same seed, the same order */
		iob_spr_reset(&s);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(iob_spr_next(&s, &b), 1);
			assert_int_equal(b, w[i]);
		}
		assert_int_equal(iob_spr_next(&s, &b), 0);
		iob_spr_free(&s);
	}
	free(w);
}

static void test_spr_order(void **state)
{
	(void)state;
	spr_order_check(0.15, 0);
	spr_order_check(0.5, 0);
	spr_order_check(0.15, 65536);
}

/* Through the engine: a write phase of 1000 blocks writes the order, and
 * ends with it (more I/Os than the file's blocks). */
static void test_spr_engine(void **state)
{
	(void)state;
	struct iob_shape sh;
	struct iob_phase_result r;
	char err[256];
	struct iob_spr_plan p;
	memset(&sh, 0, sizeof sh);
	sh.sprandom = 1;
	sh.spr_regions = 20;
	sh.spr_op = 0.15;
	sh.bs = UNIT;
	assert_int_equal(iob_spr_plan(FILE_SIZE, UNIT, 20, 0.15, 0, &p, err, sizeof err), 0);
	assert_int_equal(p.writes, 1150);
	assert_int_equal(run_shape(IOB_PHASE_WRITE, IOB_ACCESS_RAND, &sh, &r), 0);
	assert_int_equal(r.ops, lg.n);
	assert_true(lg.n > NUNITS && lg.n <= p.writes);
	uint64_t w[1150], kept[20];
	for (size_t i = 0; i < lg.n; i++) {
		assert_true(lg.write[i] && lg.len[i] == UNIT && lg.off[i] % UNIT == 0);
		w[i] = lg.off[i] / UNIT;
	}
	assert_int_equal(lg.bad, 0);
	assert_int_equal(spr_structure(w, lg.n, NUNITS, p.region_writes, 0, kept, 20), 0);
	iob_phase_result_free(&r);
}

int main(int argc, char **argv)
{
	/* --vclock LIB: run the paced tests with the virtual clock preloaded */
	if (argc == 3 && strcmp(argv[1], "--vclock") == 0 && !getenv("IOBTEST_SHAPE_VCLOCK")) {
		char asan[512];
		const char *old = getenv("ASAN_OPTIONS");
		snprintf(asan, sizeof asan, "%s%sverify_asan_link_order=0", old ? old : "", old && *old ? ":" : "");
		setenv("ASAN_OPTIONS", asan, 1);
		setenv("LD_PRELOAD", argv[2], 1);
		setenv("IOBENCH_NO_TSC", "1", 1);
		setenv("IOBTEST_VCLOCK_CPU", "none", 1);
		setenv("IOBTEST_SHAPE_VCLOCK", "1", 1);
		execv("/proc/self/exe", argv);
		perror("execv");
		return 1;
	}
	if (getenv("IOBTEST_SHAPE_VCLOCK")) {
		const struct CMUnitTest paced_tests[] = {
		    cmocka_unit_test(test_rate),
		    cmocka_unit_test(test_thinktime),
		    cmocka_unit_test(test_rate_min_and_start_delay),
		};
		return cmocka_run_group_tests(paced_tests, NULL, NULL);
	}
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_bssplit_random),
	    cmocka_unit_test(test_bssplit_directions),
	    cmocka_unit_test(test_bssplit_sequential),
	    cmocka_unit_test(test_dist_zipf),
	    cmocka_unit_test(test_dist_pareto),
	    cmocka_unit_test(test_dist_normal),
	    cmocka_unit_test(test_dist_zoned),
	    cmocka_unit_test(test_dist_sequence),
	    cmocka_unit_test(test_spr_curve_and_plan),
	    cmocka_unit_test(test_spr_order),
	    cmocka_unit_test(test_spr_engine),
	    cmocka_unit_test(test_same_seed_same_draws),
	    cmocka_unit_test(test_offset_modifiers),
	    cmocka_unit_test(test_strided_zones),
	    cmocka_unit_test(test_continue_on_error),
	    cmocka_unit_test(test_ignore_error),
	    cmocka_unit_test(test_pace_stopped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
