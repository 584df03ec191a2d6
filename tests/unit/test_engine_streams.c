/*
 * test_engine_streams.c - what the engine gives the runner's streams
 * (docs/architecture.md, "Streams in the engine"): the time limit, the ramp,
 * mixed phases, regions of a shared file, first-done, the start barrier, the
 * measured window and its CPU time, one phase at a time.
 *
 * An in-process backend stands in for a plugin: a 1 MiB file in memory that
 * counts every call and the range of offsets it was asked for, and can make
 * each read take a fixed time (a sleep, which never returns early).  No
 * assertion depends on how busy the machine is: a bound on time is either
 * one that a sleep guarantees (at least) or a generous ceiling.
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
#define BS 4096u
static unsigned char data[FILE_SIZE];

static struct {
	uint64_t reads, writes, opens;
	uint64_t read_bytes, write_bytes;
	uint64_t min_off, max_end;
	uint64_t pace_ns; /* each read sleeps this long */
	uint64_t flag_at; /* set *flag when the call count reaches it (0: never) */
	volatile int *flag;
	uint64_t ready_calls, reads_at_ready, opens_at_ready;
} fk;

static void fake_reset(void)
{
	memset(&fk, 0, sizeof fk);
	fk.min_off = UINT64_MAX;
}

static int fake_open(const struct iob_open_args *args, void **handle)
{
	(void)args;
	fk.opens++;
	*handle = data;
	return 0;
}

static void fake_touch(uint64_t off, size_t len)
{
	if (off < fk.min_off)
		fk.min_off = off;
	if (off + len > fk.max_end)
		fk.max_end = off + len;
	if (fk.flag_at && fk.reads + fk.writes == fk.flag_at)
		*fk.flag = 1;
}

static int64_t fake_read_at(void *handle, void *buf, size_t len, uint64_t off)
{
	(void)handle;
	fk.reads++;
	if (off >= FILE_SIZE)
		return 0;
	if (len > FILE_SIZE - off)
		len = (size_t)(FILE_SIZE - off);
	fake_touch(off, len);
	if (fk.pace_ns) {
		iob_sleep_ns(fk.pace_ns, NULL); /* never returns early, on Windows too */
	}
	memcpy(buf, data + off, len);
	fk.read_bytes += len;
	return (int64_t)len;
}

static int64_t fake_write_at(void *handle, const void *buf, size_t len, uint64_t off)
{
	(void)handle;
	fk.writes++;
	if (off + len > FILE_SIZE)
		return -ENOSPC;
	fake_touch(off, len);
	memcpy(data + off, buf, len);
	fk.write_bytes += len;
	return (int64_t)len;
}

static struct iob_loaded backend;
static const char *const files[] = {"fake-file"};

static void fake_ready(void *arg)
{
	(void)arg;
	fk.ready_calls++;
	fk.reads_at_ready = fk.reads + fk.writes;
	fk.opens_at_ready = fk.opens;
}

/* A spec over the fake: the caller changes what it tests. */
static struct iob_phase_spec spec_for(enum iob_phase phase, enum iob_access access)
{
	fake_backend_init(&backend, "fake", IOB_CAP_READ | IOB_CAP_WRITE);
	backend.backend.open = fake_open;
	backend.backend.read_at = fake_read_at;
	backend.backend.write_at = fake_write_at;
	fake_reset();
	struct iob_phase_spec s = fake_spec(&backend, files, 1, phase, access, BS);
	s.ready = fake_ready;
	s.pattern = (struct iob_pattern){.kind = IOB_PAT_RANDOM, .seed = 7};
	return s;
}

/* A time limit ends a phase whose ops alone would take far longer: after
 * the limit (never before), within a generous slack, with fewer ops. */
static void test_runtime_ends_near_limit(void **state)
{
	(void)state;
	struct iob_phase_spec s = spec_for(IOB_PHASE_READ, IOB_ACCESS_RAND);
	struct iob_phase_result r;
	const uint64_t limit = 50000000; /* 50 ms */
	s.ops = 100000;			 /* 100000 reads of 200 us: 20 s */
	s.runtime_ns = limit;
	fk.pace_ns = 200000;
	assert_int_equal(iob_phase_run(&s, &r), 0);
	assert_true(r.ops < s.ops);
	assert_true(r.ops >= 1);
	assert_true(r.elapsed_ns >= limit);
	assert_true(r.elapsed_ns < limit + 2000000000ull); /* a generous ceiling, not a timing test */
	/* every read slept 200 us: the phase cannot have done more than its time allows */
	assert_true(r.ops * fk.pace_ns <= r.elapsed_ns);
	assert_int_equal(r.bytes, r.ops * BS);
	assert_int_equal(fk.reads, r.ops);
	assert_int_equal(r.end_ns - r.start_ns, r.elapsed_ns);
	assert_false(r.interrupted);
	iob_phase_result_free(&r);
}

/* time_based: access goes on past one pass until the limit, random draws
 * again, sequential wraps to the start of the file.  Without it the time
 * limit only bounds the phase: one pass (the default count), however long
 * the limit. */
static void test_runtime_without_count_goes_round(void **state)
{
	(void)state;
	for (int seq = 0; seq < 2; seq++)
		for (int tb = 0; tb < 2; tb++) {
			struct iob_phase_spec s = spec_for(IOB_PHASE_READ, seq ? IOB_ACCESS_SEQ : IOB_ACCESS_RAND);
			struct iob_phase_result r;
			s.file_size = 16 * BS;
			s.runtime_ns = 200000000; /* 200 ms of memory copies: far more than 16 reads */
			s.time_based = tb;
			assert_int_equal(iob_phase_run(&s, &r), 0);
			if (tb) {
				assert_true(r.ops > 16);
				assert_true(r.elapsed_ns >= s.runtime_ns);
			} else {
				assert_int_equal(r.ops, 16); /* one pass: the limit added nothing */
			}
			assert_int_equal(r.bytes, r.ops * BS);
			assert_true(fk.max_end <= 16 * BS || !seq);
			iob_phase_result_free(&r);
		}
	/* time_based without a limit: refused, nothing done */
	struct iob_phase_spec s = spec_for(IOB_PHASE_READ, IOB_ACCESS_RAND);
	struct iob_phase_result r;
	s.file_size = 16 * BS;
	s.time_based = 1;
	assert_int_equal(iob_phase_run(&s, &r), -EINVAL);
	assert_non_null(strstr(r.error, "time_based needs a runtime"));
	assert_int_equal(r.ops, 0);
	iob_phase_result_free(&r);
}

/* Whichever comes first: a count that ends before the limit ends the phase. */
static void test_count_before_limit(void **state)
{
	(void)state;
	struct iob_phase_spec s = spec_for(IOB_PHASE_READ, IOB_ACCESS_RAND);
	struct iob_phase_result r;
	s.ops = 100;
	s.runtime_ns = 60ull * 1000000000ull;
	assert_int_equal(iob_phase_run(&s, &r), 0);
	assert_int_equal(r.ops, 100);
	assert_true(r.elapsed_ns < s.runtime_ns);
	iob_phase_result_free(&r);
}

/* The ramp's I/O is done but not counted: not in bytes, ops or latency,
 * and the window starts after it. */
static void test_ramp_not_counted(void **state)
{
	(void)state;
	for (int seq = 0; seq < 2; seq++) {
		struct iob_phase_spec s = spec_for(IOB_PHASE_READ, seq ? IOB_ACCESS_SEQ : IOB_ACCESS_RAND);
		struct iob_phase_result r;
		s.ops = 1000;
		s.ramp_ns = 30000000; /* 30 ms */
		uint64_t t0 = iob_now_ns();
		assert_int_equal(iob_phase_run(&s, &r), 0);
		uint64_t want = seq ? FILE_SIZE / BS : 1000;
		assert_int_equal(r.ops, want);
		assert_int_equal(r.bytes, want * BS);
		assert_true(fk.reads > want); /* the ramp read too */
		assert_true(r.lat_samples <= want);
		assert_int_equal(r.lat_samples, r.hist->count);
		assert_true(r.start_ns >= t0 + s.ramp_ns);
		assert_int_equal(r.end_ns, r.start_ns + r.elapsed_ns);
		assert_int_equal(r.bytes_read, r.bytes);
		assert_int_equal(r.ops_read, r.ops);
		assert_int_equal(r.bytes_written, 0);
		iob_phase_result_free(&r);
	}
}

/* Mixed: reads with probability rwmix_read %, each direction counted and
 * timed on its own, the totals their sums. */
static void test_mixed_proportions(void **state)
{
	(void)state;
	for (int seq = 0; seq < 2; seq++) {
		struct iob_phase_spec s = spec_for(IOB_PHASE_MIXED, seq ? IOB_ACCESS_SEQ : IOB_ACCESS_RAND);
		struct iob_phase_result r;
		s.ops = 10000;
		s.loops = 40; /* sequential: 40 passes of 256 blocks */
		s.rwmix_read = 30;
		assert_int_equal(iob_phase_run(&s, &r), 0);
		uint64_t n = seq ? 40 * (FILE_SIZE / BS) : 10000;
		assert_int_equal(r.ops, n);
		assert_int_equal(r.ops, r.ops_read + r.ops_written);
		assert_int_equal(r.bytes, r.bytes_read + r.bytes_written);
		assert_int_equal(r.bytes_read, r.ops_read * BS);
		assert_int_equal(r.ops_read, fk.reads);
		assert_int_equal(r.ops_written, fk.writes);
		assert_int_equal(r.bytes_written, fk.write_bytes);
		/* binomial: mean 0.3 n, standard deviation sqrt(0.21 n) (46 for
		 * 10000); 6 standard deviations either side */
		double mean = 0.3 * (double)n, sd = 0.458 * __builtin_sqrt((double)n);
		assert_true((double)r.ops_read > mean - 6 * sd);
		assert_true((double)r.ops_read < mean + 6 * sd);
		assert_non_null(r.hist_write);
		assert_int_equal(r.lat_samples, r.hist->count + r.hist_write->count);
		assert_true(r.hist->count <= r.ops_read);
		assert_true(r.hist_write->count <= r.ops_written);
		iob_phase_result_free(&r);
	}
	/* what a mixed phase writes is the pattern, as a write phase would */
	unsigned char want[BS];
	iob_pattern_fill(&(struct iob_pattern){.kind = IOB_PAT_RANDOM, .seed = 7}, want, BS, 0);
	assert_memory_equal(data, want, BS);
}

/* All reads, all writes: the two ends of rwmix_read. */
static void test_mixed_extremes(void **state)
{
	(void)state;
	for (uint32_t pct = 0; pct <= 100; pct += 100) {
		struct iob_phase_spec s = spec_for(IOB_PHASE_MIXED, IOB_ACCESS_RAND);
		struct iob_phase_result r;
		s.ops = 500;
		s.rwmix_read = pct;
		assert_int_equal(iob_phase_run(&s, &r), 0);
		assert_int_equal(r.ops_read, pct ? 500 : 0);
		assert_int_equal(r.ops_written, pct ? 0 : 500);
		iob_phase_result_free(&r);
	}
	struct iob_phase_spec s = spec_for(IOB_PHASE_MIXED, IOB_ACCESS_RAND);
	struct iob_phase_result r;
	s.rwmix_read = 101;
	assert_int_equal(iob_phase_run(&s, &r), -EINVAL);
	assert_non_null(strstr(r.error, "rwmix_read"));
	assert_int_equal(fk.ready_calls, 1); /* the barrier is reached even so */
	iob_phase_result_free(&r);
}

/* A sequential stream keeps to its region; a random one draws over the
 * whole file. */
static void test_regions(void **state)
{
	(void)state;
	struct iob_phase_spec s = spec_for(IOB_PHASE_READ, IOB_ACCESS_SEQ);
	struct iob_phase_result r;
	s.region_off = 64 * 1024;
	s.region_len = 128 * 1024;
	assert_int_equal(iob_phase_run(&s, &r), 0);
	assert_int_equal(r.bytes, 128 * 1024);
	assert_int_equal(fk.min_off, 64 * 1024);
	assert_int_equal(fk.max_end, 192 * 1024);
	iob_phase_result_free(&r);

	s = spec_for(IOB_PHASE_WRITE, IOB_ACCESS_SEQ);
	s.region_off = 512 * 1024;
	s.region_len = 64 * 1024;
	s.loops = 3;
	assert_int_equal(iob_phase_run(&s, &r), 0);
	assert_int_equal(r.bytes, 3 * 64 * 1024);
	assert_int_equal(r.bytes_written, r.bytes);
	assert_int_equal(fk.min_off, 512 * 1024);
	assert_int_equal(fk.max_end, 576 * 1024);
	iob_phase_result_free(&r);

	/* the last region runs to the end of the file */
	s = spec_for(IOB_PHASE_READ, IOB_ACCESS_SEQ);
	s.region_off = FILE_SIZE - 8192;
	s.region_len = 65536;
	assert_int_equal(iob_phase_run(&s, &r), 0);
	assert_int_equal(r.bytes, 8192);
	iob_phase_result_free(&r);

	s = spec_for(IOB_PHASE_READ, IOB_ACCESS_RAND);
	s.region_off = 64 * 1024;
	s.region_len = 4096;
	s.ops = 2000;
	assert_int_equal(iob_phase_run(&s, &r), 0);
	assert_true(fk.max_end - fk.min_off > 512 * 1024);
	iob_phase_result_free(&r);
}

/* A random read of ops I/Os while another stream sets *flag at this one's
 * at-th read: noted within the check interval (at most 64 I/Os) after. */
static void flag_seen_within(volatile int *flag, uint64_t ops, uint64_t at)
{
	struct iob_phase_result r;
	*flag = 0;
	struct iob_phase_spec s = spec_for(IOB_PHASE_READ, IOB_ACCESS_RAND);
	s.ops = ops;
	s.first_done = flag;
	fk.flag_at = at;
	fk.flag = flag;
	assert_int_equal(iob_phase_run(&s, &r), 0);
	assert_int_equal(r.ops, ops);
	assert_true(r.first_done_ops >= at);
	assert_true(r.first_done_ops <= at + 64);
	assert_int_equal(r.first_done_bytes, r.first_done_ops * BS);
	iob_phase_result_free(&r);
}

/* first_done: a stream that finishes first notes its totals and sets the
 * flag; a stream that sees it set notes what it had done then. */
static void test_first_done(void **state)
{
	(void)state;
	volatile int flag = 0;
	struct iob_phase_spec s = spec_for(IOB_PHASE_READ, IOB_ACCESS_RAND);
	struct iob_phase_result r;
	s.ops = 1000;
	s.first_done = &flag;
	assert_int_equal(iob_phase_run(&s, &r), 0);
	assert_int_equal(flag, 1);
	assert_int_equal(r.first_done_bytes, r.bytes);
	assert_int_equal(r.first_done_ops, 1000);
	iob_phase_result_free(&r);

	/* another stream sets it at this one's 300th read: noted within the
	 * check interval (at most 64 I/Os) after */
	flag_seen_within(&flag, 1000, 300);

	/* far into a fast phase, where the looks between two clock reads see
	 * the flag alone: still within 64 I/Os */
	flag_seen_within(&flag, 100000, 77777);

	/* slow I/O (each read sleeps 200 us: never less on a busy machine) is
	 * looked at after every I/O, as the clock says */
	flag = 0;
	s = spec_for(IOB_PHASE_READ, IOB_ACCESS_RAND);
	s.ops = 100;
	s.first_done = &flag;
	fk.flag_at = 60;
	fk.flag = &flag;
	fk.pace_ns = 200000;
	assert_int_equal(iob_phase_run(&s, &r), 0);
	assert_int_equal(r.ops, 100);
	assert_int_equal(r.first_done_ops, 60);
	iob_phase_result_free(&r);

	/* already set when the phase starts: nothing done yet */
	s = spec_for(IOB_PHASE_READ, IOB_ACCESS_SEQ);
	s.first_done = &flag;
	assert_int_equal(iob_phase_run(&s, &r), 0);
	assert_int_equal(r.first_done_ops, 0);
	assert_int_equal(r.first_done_bytes, 0);
	iob_phase_result_free(&r);
}

/* ready: once, after every file is open, before any I/O; the window and
 * the thread's CPU time are filled in. */
static void test_ready_window_cpu(void **state)
{
	(void)state;
	static const char *const three[] = {"a", "b", "c"};
	struct iob_phase_spec s = spec_for(IOB_PHASE_READ, IOB_ACCESS_RAND);
	struct iob_phase_result r;
	s.files = three;
	s.nfiles = 3;
	s.ops = 200000;
	uint64_t t0 = iob_now_ns();
	assert_int_equal(iob_phase_run(&s, &r), 0);
	uint64_t t1 = iob_now_ns();
	assert_int_equal(fk.ready_calls, 1);
	assert_int_equal(fk.reads_at_ready, 0);
	assert_int_equal(fk.opens_at_ready, 3);
	assert_true(r.start_ns >= t0 && r.end_ns <= t1);
	assert_int_equal(r.end_ns - r.start_ns, r.elapsed_ns);
	/* 200000 copies of 4 KiB take CPU time; none of it can exceed the wall time by much */
	assert_true(r.cpu_user_ns + r.cpu_sys_ns > 0);
	assert_true(r.cpu_user_ns + r.cpu_sys_ns <= r.elapsed_ns + 20000000);
	assert_int_equal(r.bytes_read, r.bytes);
	assert_int_equal(r.ops_read, 200000);
	iob_phase_result_free(&r);
}

/* iodepth above 1 on a backend that cannot queue: refused, naming it. */
static void test_iodepth_needs_async(void **state)
{
	(void)state;
	struct iob_phase_spec s = spec_for(IOB_PHASE_READ, IOB_ACCESS_RAND);
	struct iob_phase_result r;
	s.iodepth = 8;
	assert_int_equal(iob_phase_run(&s, &r), -EINVAL);
	assert_non_null(strstr(r.error, "backend fake"));
	assert_non_null(strstr(r.error, "iodepth 8"));
	assert_int_equal(fk.reads, 0);
	assert_int_equal(fk.opens, 0);
	assert_int_equal(fk.ready_calls, 1);
	iob_phase_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_runtime_ends_near_limit),
	    cmocka_unit_test(test_runtime_without_count_goes_round),
	    cmocka_unit_test(test_count_before_limit),
	    cmocka_unit_test(test_ramp_not_counted),
	    cmocka_unit_test(test_mixed_proportions),
	    cmocka_unit_test(test_mixed_extremes),
	    cmocka_unit_test(test_regions),
	    cmocka_unit_test(test_first_done),
	    cmocka_unit_test(test_ready_window_cpu),
	    cmocka_unit_test(test_iodepth_needs_async),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
