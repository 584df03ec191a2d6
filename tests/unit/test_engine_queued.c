/*
 * test_engine_queued.c - the engine's queued loop (iodepth > 1 over an
 * IOB_CAP_ASYNC backend's submit and reap).
 *
 * An in-process async backend stands in for io_uring: a 1 MiB file in
 * memory; submit takes some of what it is given (at most 5 at a time, never
 * more than the queue depth), reap completes requests in a random order,
 * moves only part of a request now and then (a short transfer the engine
 * must resubmit for the rest), and returns any count from min to max.  It
 * counts every byte it moves and every request still in flight at close,
 * so the tests can hold the engine to "every byte accounted exactly once,
 * nothing left in flight".
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#if !defined(_WIN32) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#include <sys/resource.h>
#endif

#include "iobench/engine.h"
#include "iobench/os.h"

#define FILE_SIZE (1u << 20)
#include "fake_backend.h"
#define BS 4096u
#define MAXQ 64
static unsigned char data[FILE_SIZE];

static struct {
	uint32_t depth; /* open args' queue_depth */
	struct iob_io *inflight[MAXQ];
	size_t n;     /* in flight now */
	size_t max_n; /* the most at once */
	uint64_t rng;
	uint64_t submitted, completions, shorts;
	uint64_t read_bytes, write_bytes, reads_done, writes_done;
	uint64_t left_at_close; /* requests in flight when a handle was closed */
	uint64_t bad;		/* requests out of bounds or misformed */
	uint64_t stop_after;	/* set *stop after this many submissions (0: never) */
	volatile sig_atomic_t *stop;
	int eintr_once;		/* after the stop, one reap returns -EINTR */
	uint64_t reap_sleep_ns; /* each blocking reap sleeps this long */
	uint64_t sync_calls;	/* read_at/write_at: must stay 0 */
} fa;

static uint64_t fa_rand(void)
{
	uint64_t z = (fa.rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int fa_open(const struct iob_open_args *args, void **handle)
{
	fa.depth = args->queue_depth;
	*handle = data;
	return 0;
}

static int fa_close(void *handle)
{
	(void)handle;
	fa.left_at_close += fa.n;
	fa.n = 0;
	return 0;
}

static int64_t fa_read_at(void *handle, void *buf, size_t len, uint64_t off)
{
	(void)handle, (void)buf, (void)len, (void)off;
	fa.sync_calls++;
	return -EIO;
}

static int64_t fa_write_at(void *handle, const void *buf, size_t len, uint64_t off)
{
	(void)handle, (void)buf, (void)len, (void)off;
	fa.sync_calls++;
	return -EIO;
}

static int fa_submit(void *handle, struct iob_io *const *ios, size_t n)
{
	(void)handle;
	size_t room = fa.depth - fa.n, take = 1 + (size_t)(fa_rand() % 5);
	if (room == 0)
		return -EAGAIN;
	if (take > n)
		take = n;
	if (take > room)
		take = room;
	for (size_t i = 0; i < take; i++) {
		struct iob_io *io = ios[i];
		if (!io->len || io->off + io->len > FILE_SIZE || !io->buf)
			fa.bad++;
		fa.inflight[fa.n++] = io;
		fa.submitted++;
		if (fa.stop_after && fa.submitted == fa.stop_after)
			*fa.stop = 1;
	}
	if (fa.n > fa.max_n)
		fa.max_n = fa.n;
	return (int)take;
}

/* Complete in flight request i now: all of it, or now and then part. */
static struct iob_io *fa_complete(size_t i)
{
	struct iob_io *io = fa.inflight[i];
	fa.inflight[i] = fa.inflight[--fa.n];
	size_t len = io->len;
	if (len >= 1024 && fa_rand() % 7 == 0) {
		len = (len / 2) & ~(size_t)511;
		fa.shorts++;
	}
	if (io->off + len > FILE_SIZE) {
		io->result = -EIO;
		return io;
	}
	if (io->write) {
		memcpy(data + io->off, io->buf, len);
		fa.write_bytes += len;
		fa.writes_done++;
	} else {
		memcpy(io->buf, data + io->off, len);
		fa.read_bytes += len;
		fa.reads_done++;
	}
	io->result = (int64_t)len;
	fa.completions++;
	return io;
}

static int fa_reap(void *handle, struct iob_io **done, size_t min, size_t max)
{
	(void)handle;
	if (min > fa.n)
		min = fa.n;
	if (fa.eintr_once && fa.stop && *fa.stop) {
		fa.eintr_once = 0;
		return -EINTR;
	}
	if (min && fa.reap_sleep_ns) {
		iob_sleep_ns(fa.reap_sleep_ns, NULL); /* never returns early, on Windows too */
	}
	size_t hi = max < fa.n ? max : fa.n;
	size_t k = hi > min ? min + (size_t)(fa_rand() % (hi - min + 1)) : min;
	for (size_t i = 0; i < k; i++)
		done[i] = fa_complete((size_t)(fa_rand() % fa.n)); /* out of order */
	return (int)k;
}

static struct iob_loaded backend;
static const char *const files[] = {"fake-file"};

static struct iob_phase_spec spec_for(enum iob_phase phase, enum iob_access access, uint32_t depth)
{
	fake_backend_init(&backend, "fakeasync", IOB_CAP_READ | IOB_CAP_WRITE | IOB_CAP_ASYNC);
	backend.backend.open = fa_open;
	backend.backend.close = fa_close;
	backend.backend.read_at = fa_read_at;
	backend.backend.write_at = fa_write_at;
	backend.backend.submit = fa_submit;
	backend.backend.reap = fa_reap;
	memset(&fa, 0, sizeof fa);
	fa.rng = 99;
	struct iob_phase_spec s = fake_spec(&backend, files, 1, phase, access, BS);
	s.iodepth = depth;
	s.pattern = (struct iob_pattern){.kind = IOB_PAT_RANDOM, .seed = 7};
	return s;
}

/* Every request done, every byte counted once, the queue kept full and
 * never overfull, nothing left in flight, nothing through read_at. */
static void test_queued_reads_account_every_byte(void **state)
{
	(void)state;
	struct iob_phase_spec s = spec_for(IOB_PHASE_READ, IOB_ACCESS_RAND, 16);
	struct iob_phase_result r;
	s.ops = 5000;
	assert_int_equal(iob_phase_run(&s, &r), 0);
	assert_int_equal(fa.depth, 16);
	assert_int_equal(r.ops, 5000);
	assert_int_equal(r.bytes, 5000ull * BS);
	assert_int_equal(fa.read_bytes, r.bytes);
	assert_int_equal(r.bytes_read, r.bytes);
	assert_int_equal(r.ops_read, r.ops);
	assert_true(fa.shorts > 0); /* the resubmission was exercised */
	assert_int_equal(r.short_ops, fa.shorts);
	assert_int_equal(fa.completions, 5000 + fa.shorts);
	assert_int_equal(fa.max_n, 16);
	assert_int_equal(fa.left_at_close, 0);
	assert_int_equal(fa.bad, 0);
	assert_int_equal(fa.sync_calls, 0);
	assert_int_equal(r.lat_samples, r.hist->count);
	assert_true(r.lat_samples > 0 && r.lat_samples <= r.ops);
	iob_phase_result_free(&r);
}

/* Writes: short ones resubmitted for the rest, so the whole file holds the
 * pattern, each byte written once. */
static void test_queued_writes_fill_file(void **state)
{
	(void)state;
	static unsigned char want[FILE_SIZE];
	struct iob_pattern pat = {.kind = IOB_PAT_RANDOM, .seed = 7};
	for (int seq = 0; seq < 2; seq++) {
		struct iob_phase_spec s =
		    spec_for(IOB_PHASE_WRITE, seq ? IOB_ACCESS_SEQ : IOB_ACCESS_RAND, 8);
		struct iob_phase_result r;
		memset(data, 0, sizeof data);
		assert_int_equal(iob_phase_run(&s, &r), 0);
		assert_int_equal(r.bytes, FILE_SIZE);
		assert_int_equal(r.ops, FILE_SIZE / BS);
		assert_int_equal(fa.write_bytes, FILE_SIZE);
		assert_int_equal(r.bytes_written, FILE_SIZE);
		iob_pattern_fill(&pat, want, FILE_SIZE, 0);
		assert_memory_equal(data, want, FILE_SIZE);
		assert_int_equal(fa.left_at_close, 0);
		iob_phase_result_free(&r);
	}
}

/* Verification per completion, short pieces included: a corrupted byte is
 * found at its offset. */
static void test_queued_verify(void **state)
{
	(void)state;
	struct iob_phase_spec s = spec_for(IOB_PHASE_VERIFY, IOB_ACCESS_SEQ, 32);
	struct iob_phase_result r;
	iob_pattern_fill(&s.pattern, data, FILE_SIZE, 0);
	assert_int_equal(iob_phase_run(&s, &r), 0);
	assert_int_equal(r.bad_blocks, 0);
	assert_int_equal(r.bytes, FILE_SIZE);
	iob_phase_result_free(&r);

	s = spec_for(IOB_PHASE_VERIFY, IOB_ACCESS_SEQ, 32);
	data[300001] ^= 0x40;
	assert_int_equal(iob_phase_run(&s, &r), IOB_STATUS_MISMATCH);
	assert_int_equal(r.bad_blocks, 1);
	assert_int_equal(r.first_bad_offset, 300001);
	assert_int_equal(r.bytes, FILE_SIZE);
	data[300001] ^= 0x40;
	iob_phase_result_free(&r);
}

/* A stop (a signal's flag) with requests in flight: the phase ends with
 * none left in flight, every byte moved counted, even those of a request
 * cut short. */
static void test_queued_stop_leaves_nothing_in_flight(void **state)
{
	(void)state;
	volatile sig_atomic_t stop = 0;
	struct iob_phase_spec s = spec_for(IOB_PHASE_READ, IOB_ACCESS_RAND, 32);
	struct iob_phase_result r;
	s.ops = 100000;
	s.stop = &stop;
	fa.stop = &stop;
	fa.stop_after = 1000;
	fa.eintr_once = 1;
	assert_int_equal(iob_phase_run(&s, &r), 0);
	assert_true(r.interrupted);
	assert_true(fa.submitted <= 1000 + 32); /* at most what was queued already */
	assert_true(r.ops <= fa.submitted);
	assert_int_equal(fa.left_at_close, 0);
	assert_int_equal(fa.n, 0);
	assert_int_equal(r.bytes, fa.read_bytes);
	iob_phase_result_free(&r);
}

/* A stop that comes while the buffers are being touched (SIGTERM during the
 * seconds GiBs of buffers take) ends the phase there: 5 buffers of 128 MiB
 * are allocated but not touched, the phase ends interrupted with no I/O.
 * The old engine wrote all 640 MiB first. */
static void test_queued_stop_while_touching_buffers(void **state)
{
	(void)state;
	volatile sig_atomic_t stop = 1;
	struct iob_phase_spec s = spec_for(IOB_PHASE_WRITE, IOB_ACCESS_SEQ, 4);
	struct iob_phase_result r;
	s.block_size = 128u << 20;
	s.stop = &stop;
#if !defined(_WIN32) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
	struct rusage ru0, ru1;
	getrusage(RUSAGE_SELF, &ru0);
#endif
	assert_int_equal(iob_phase_run(&s, &r), 0);
	assert_true(r.interrupted);
	assert_int_equal(r.ops, 0);
	assert_int_equal(fa.submitted, 0);
#if !defined(_WIN32) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
	getrusage(RUSAGE_SELF, &ru1); /* peak resident set, KiB: the sanitizers' shadow memory would count */
	assert_true(ru1.ru_maxrss - ru0.ru_maxrss < 64 * 1024);
#endif
	iob_phase_result_free(&r);
}

/* Slow completions: every request is timed, from its submission to its
 * completion. */
static void test_queued_latency_per_request(void **state)
{
	(void)state;
	struct iob_phase_spec s = spec_for(IOB_PHASE_READ, IOB_ACCESS_RAND, 4);
	struct iob_phase_result r;
	s.ops = 400;
	fa.reap_sleep_ns = 300000;
	assert_int_equal(iob_phase_run(&s, &r), 0);
	assert_int_equal(r.ops, 400);
	assert_int_equal(r.lat_sample_every, 1);
	assert_int_equal(r.lat_samples, 400);
	assert_int_equal(r.hist->count, 400);
	/* a request waits at least for the one reap that completes it (1% for
	 * the conversion of ticks to ns) */
	assert_true(iob_hist_min_ns(r.hist) >= 297000);
	iob_phase_result_free(&r);
}

/* A mixed phase through the queue: directions counted apart and together. */
static void test_queued_mixed(void **state)
{
	(void)state;
	struct iob_phase_spec s = spec_for(IOB_PHASE_MIXED, IOB_ACCESS_RAND, 16);
	struct iob_phase_result r;
	s.ops = 10000;
	s.rwmix_read = 70;
	assert_int_equal(iob_phase_run(&s, &r), 0);
	assert_int_equal(r.ops, 10000);
	assert_int_equal(r.ops, r.ops_read + r.ops_written);
	assert_int_equal(r.bytes, r.bytes_read + r.bytes_written);
	assert_int_equal(r.bytes_read, fa.read_bytes);
	assert_int_equal(r.bytes_written, fa.write_bytes);
	assert_true(r.ops_read > 7000 - 6 * 46 && r.ops_read < 7000 + 6 * 46);
	assert_non_null(r.hist_write);
	assert_int_equal(r.lat_samples, r.hist->count + r.hist_write->count);
	assert_int_equal(fa.left_at_close, 0);
	iob_phase_result_free(&r);
}

/* Time limit and ramp through the queue. */
static void test_queued_runtime_and_ramp(void **state)
{
	(void)state;
	struct iob_phase_spec s = spec_for(IOB_PHASE_READ, IOB_ACCESS_RAND, 8);
	struct iob_phase_result r;
	s.ops = 10000000;
	s.runtime_ns = 50000000;
	fa.reap_sleep_ns = 100000;
	assert_int_equal(iob_phase_run(&s, &r), 0);
	assert_true(r.ops < s.ops);
	assert_true(r.elapsed_ns >= s.runtime_ns);
	assert_true(r.elapsed_ns < s.runtime_ns + 2000000000ull);
	assert_int_equal(r.bytes, fa.read_bytes);
	assert_int_equal(fa.left_at_close, 0);
	iob_phase_result_free(&r);

	s = spec_for(IOB_PHASE_READ, IOB_ACCESS_RAND, 8);
	s.ops = 2000;
	s.ramp_ns = 20000000;
	assert_int_equal(iob_phase_run(&s, &r), 0);
	assert_int_equal(r.ops, 2000);
	assert_int_equal(r.bytes, 2000ull * BS);
	assert_true(fa.read_bytes > r.bytes); /* the ramp read, uncounted */
	assert_int_equal(fa.left_at_close, 0);
	iob_phase_result_free(&r);
}

/* Combinations the queue cannot do are refused before anything is opened. */
static void test_queued_refusals(void **state)
{
	(void)state;
	struct iob_phase_spec s = spec_for(IOB_PHASE_READ, IOB_ACCESS_RAND, 8);
	struct iob_phase_result r;
	s.reopen = 1;
	assert_int_equal(iob_phase_run(&s, &r), -EINVAL);
	assert_non_null(strstr(r.error, "iodepth 8"));
	assert_int_equal(fa.completions, 0);
	iob_phase_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_queued_reads_account_every_byte),
	    cmocka_unit_test(test_queued_writes_fill_file),
	    cmocka_unit_test(test_queued_verify),
	    cmocka_unit_test(test_queued_stop_leaves_nothing_in_flight),
	    cmocka_unit_test(test_queued_stop_while_touching_buffers),
	    cmocka_unit_test(test_queued_latency_per_request),
	    cmocka_unit_test(test_queued_mixed),
	    cmocka_unit_test(test_queued_runtime_and_ramp),
	    cmocka_unit_test(test_queued_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
