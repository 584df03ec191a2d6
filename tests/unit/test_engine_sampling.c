/*
 * test_engine_sampling.c - the engine labels sampled latency as sampled
 * (docs/performance.md, "Timing that does not distort").
 *
 * An in-process backend stands in for a plugin: its reads are either a copy
 * of 4 KiB from memory (as cheap as an I/O gets: the mmap backend over a
 * cached file) or a sleep of 100 us (slower than any bound the sampler
 * uses).  The assertions do not depend on how busy the machine is: a cheap
 * copy costs far less than 50 times the clock reads around it on any
 * machine, and a sleep never returns early.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "iobench/engine.h"
#include "iobench/os.h"

#define FILE_SIZE (1u << 20)
#include "fake_backend.h"
static unsigned char data[FILE_SIZE];
static int slow;
static uint64_t calls;

static int fake_open(const struct iob_open_args *args, void **handle)
{
	(void)args;
	*handle = data;
	return 0;
}

static int64_t fake_read_at(void *handle, void *buf, size_t len, uint64_t off)
{
	(void)handle;
	calls++;
	if (off >= FILE_SIZE)
		return 0;
	if (len > FILE_SIZE - off)
		len = (size_t)(FILE_SIZE - off);
	if (slow) {
		iob_sleep_ns(100000, NULL); /* never returns early, on Windows too */
	}
	memcpy(buf, data + off, len);
	return (int64_t)len;
}

static struct iob_loaded backend;

static void setup_backend(void)
{
	fake_backend_init(&backend, "fake", IOB_CAP_READ);
	backend.backend.open = fake_open;
	backend.backend.read_at = fake_read_at;
}

static int run_rand(uint64_t ops, struct iob_phase_result *r)
{
	static const char *const files[] = {"fake-file"};
	struct iob_phase_spec spec = fake_spec(&backend, files, 1, IOB_PHASE_READ, IOB_ACCESS_RAND, 4096);
	spec.ops = ops;
	setup_backend();
	calls = 0;
	return iob_phase_run(&spec, r);
}

/* run_rand with every read slow (100 us) or none: all ops read, one call and 4 KiB each */
static void run_rand_all(uint64_t ops, int slow_reads, struct iob_phase_result *r)
{
	slow = slow_reads;
	assert_int_equal(run_rand(ops, r), 0);
	slow = 0;
	assert_int_equal(r->ops, ops);
	assert_int_equal(calls, ops);
	assert_int_equal(r->bytes, ops * 4096);
}

/* Cheap I/O: sampled, and labelled so; the sample is what the histogram
 * holds and about ops / k of the I/Os; throughput counts every I/O. */
static void test_cheap_io_is_sampled(void **state)
{
	(void)state;
	const uint64_t ops = 300000;
	struct iob_phase_result r;
	run_rand_all(ops, 0, &r);
	uint32_t k = r.lat_sample_every;
	assert_true(k > 1);
	assert_int_equal(k & (k - 1), 0); /* a power of two */
	assert_true(k <= 256);
	assert_non_null(r.hist);
	assert_int_equal(r.lat_samples, r.hist->count);
	/* each I/O is in the sample with probability 1/k: far from both ends
	 * (the bounds are over 10 standard deviations wide) */
	double expect = (double)ops / k;
	assert_true((double)r.lat_samples > 0.5 * expect - 20);
	assert_true((double)r.lat_samples < 1.5 * expect + 20);
	assert_true(r.lat_timing_ns > 0);
	assert_true(iob_phase_iops(&r) > 0);
	iob_phase_result_free(&r);
}

/* Slow I/O: every I/O timed, every one in the histogram. */
static void test_slow_io_is_timed_every_time(void **state)
{
	(void)state;
	const uint64_t ops = 300;
	struct iob_phase_result r;
	run_rand_all(ops, 1, &r);
	assert_int_equal(r.lat_sample_every, 1);
	assert_int_equal(r.lat_samples, ops);
	assert_int_equal(r.hist->count, ops);
	/* each read slept 100 us: no sample can be shorter */
	assert_true(iob_hist_min_ns(r.hist) >= 100000);
	iob_phase_result_free(&r);
}

/* A failed phase still says what its (empty) sample is. */
static void test_failed_phase_labels_sample(void **state)
{
	(void)state;
	struct iob_phase_result r;
	slow = 0;
	static const char *const files[] = {"fake-file"};
	struct iob_phase_spec spec = {
		.backend = &backend,
		.files = files,
		.nfiles = 1,
		.phase = IOB_PHASE_READ,
		.access = IOB_ACCESS_RAND,
		.block_size = 0, /* refused */
		.file_size = FILE_SIZE,
	};
	setup_backend();
	assert_true(iob_phase_run(&spec, &r) < 0);
	assert_int_equal(r.lat_sample_every, 1);
	assert_int_equal(r.lat_samples, 0);
	iob_phase_result_free(&r);
}

int main(void)
{
	for (size_t i = 0; i < FILE_SIZE; i++)
		data[i] = (unsigned char)(i * 7);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cheap_io_is_sampled),
	    cmocka_unit_test(test_slow_io_is_timed_every_time),
	    cmocka_unit_test(test_failed_phase_labels_sample),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
