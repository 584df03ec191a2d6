/*
 * test_streams_outer.c - the streams' outer start (streams.h): with
 * base->ready set (a run across MPI ranks: their start barrier), it is
 * called exactly once, after every stream has opened its file, and no
 * stream does any I/O before it returns; also when the phase fails to open
 * a file in one stream.  Counters are atomic: the streams are threads.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "iobench/streams.h"

#define FILE_SIZE (256u << 10)
#include "fake_backend.h"
#define BS 4096u
#define N 4

static struct {
	int opens, outer_calls, opens_at_outer, outer_done, io_before_outer, fail_open;
} fk;

static int fake_open(const struct iob_open_args *args, void **handle)
{
	if (__atomic_load_n(&fk.fail_open, __ATOMIC_RELAXED) && strcmp(args->path, "f2") == 0)
		return -EACCES;
	__atomic_add_fetch(&fk.opens, 1, __ATOMIC_RELAXED);
	*handle = (void *)args->path;
	return 0;
}

static int64_t fake_write_at(void *handle, const void *buf, size_t len, uint64_t off)
{
	(void)handle;
	(void)buf;
	(void)off;
	if (!__atomic_load_n(&fk.outer_done, __ATOMIC_ACQUIRE))
		__atomic_store_n(&fk.io_before_outer, 1, __ATOMIC_RELAXED);
	return (int64_t)len;
}

static void outer(void *arg)
{
	(void)arg;
	__atomic_add_fetch(&fk.outer_calls, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&fk.opens_at_outer, __atomic_load_n(&fk.opens, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
	__atomic_store_n(&fk.outer_done, 1, __ATOMIC_RELEASE);
}

static struct iob_loaded backend;
static const char *const files[N] = {"f0", "f1", "f2", "f3"};

static int run(struct iob_streams *st)
{
	fake_backend_init(&backend, "fake", IOB_CAP_READ | IOB_CAP_WRITE);
	backend.backend.open = fake_open;
	backend.backend.write_at = fake_write_at;
	struct iob_phase_spec s = fake_spec(&backend, NULL, 0, IOB_PHASE_WRITE, IOB_ACCESS_SEQ, BS);
	s.random_map = 0;
	s.loops = 1;
	s.ready = outer;
	s.pattern.kind = IOB_PAT_BYTE;
	s.pattern.byte = 0x45;
	return iob_streams_run(&s, N, files, 1, 1, NULL, st);
}

static void test_outer_once_after_opens(void **state)
{
	(void)state;
	struct iob_streams st;
	memset(&fk, 0, sizeof fk);
	assert_int_equal(run(&st), 0);
	assert_int_equal(fk.outer_calls, 1);
	assert_int_equal(fk.opens_at_outer, N);
	assert_int_equal(fk.io_before_outer, 0);
	for (size_t i = 0; i < N; i++) {
		assert_int_equal(st.r[i].status, 0);
		assert_int_equal(st.r[i].bytes, FILE_SIZE);
	}
	iob_streams_free(&st);
}

static void test_outer_once_when_a_stream_fails(void **state)
{
	(void)state;
	struct iob_streams st;
	memset(&fk, 0, sizeof fk);
	fk.fail_open = 1;
	assert_int_equal(run(&st), 0);
	assert_int_equal(fk.outer_calls, 1);
	assert_int_equal(fk.io_before_outer, 0);
	assert_int_equal(st.r[2].status, -EACCES);
	iob_streams_free(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_outer_once_after_opens),
	    cmocka_unit_test(test_outer_once_when_a_stream_fails),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
