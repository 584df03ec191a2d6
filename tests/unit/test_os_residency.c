/*
 * Unit tests for the page-cache residency probe (iob_cache_residency_range):
 * a file written, synced and evicted reads as not resident, as resident once
 * read, and a range reports only its own pages.  Each check runs twice: with
 * cachestat(2) where the kernel has it, and with IOBENCH_NO_CACHESTAT=1 (the
 * mincore fallback, sampled beyond 4096 pages); the cachestat checks run a
 * third time with IOBENCH_RESIDENCY_BUDGET_NS=0, so that all but the first
 * 1024 pages of a long range are sampled.  The file lives in the
 * current directory (ctest's build directory): on tmpfs nothing can be
 * evicted, so the eviction checks skip there with a reason.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include <cmocka.h>

#include "iobench/os.h"

#define FILE_MIB 64u /* 16384 pages of 4 KiB: past the 4096-page sample */
#define MiB ((uint64_t)1 << 20)

static char path[64];
static uint64_t psize;

static int on_tmpfs(void)
{
	struct statfs fs;
	return statfs(".", &fs) == 0 && (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC);
}

static int setup(void **s)
{
	(void)s;
	psize = (uint64_t)sysconf(_SC_PAGESIZE);
	snprintf(path, sizeof path, "resid.%ld.dat", (long)getpid());
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	unsigned char *buf = malloc(MiB);
	if (fd < 0 || !buf)
		return -1;
	for (uint64_t i = 0; i < MiB; i++)
		buf[i] = (unsigned char)(i * 131u + (i >> 12));
	for (unsigned i = 0; i < FILE_MIB; i++) {
		buf[0] = (unsigned char)i;
		if (write(fd, buf, MiB) != (ssize_t)MiB)
			return -1;
	}
	int rc = fsync(fd);
	close(fd);
	free(buf);
	return rc;
}

static int teardown(void **s)
{
	(void)s;
	unlink(path);
	unsetenv("IOBENCH_NO_CACHESTAT");
	unsetenv("IOBENCH_RESIDENCY_BUDGET_NS");
	return 0;
}

static void evict(void)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(fdatasync(fd), 0);
	assert_int_equal(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	close(fd);
}

/* Read [off, off + len) (page-aligned) through a mapping with readahead off,
 * so only those pages come in, and keep them mapped until release(): on a
 * shared machine someone may drop the page cache at any time (drop_caches),
 * and that leaves mapped pages alone. */
static void *read_range(uint64_t off, uint64_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	unsigned char *m = mmap(NULL, (size_t)len, PROT_READ, MAP_SHARED, fd, (off_t)off);
	close(fd);
	assert_true(m != MAP_FAILED);
	assert_int_equal(madvise(m, (size_t)len, MADV_RANDOM), 0);
	unsigned sum = 0;
	for (uint64_t i = 0; i < len; i += psize)
		sum += ((volatile unsigned char *)m)[i];
	(void)sum;
	return m;
}

static void release(void *m, uint64_t len)
{
	munmap(m, (size_t)len);
}

static void probe(uint64_t off, uint64_t len, uint64_t *res, uint64_t *tot)
{
	int rc = iob_cache_residency_range(path, off, len, res, tot);
	if (rc != 0)
		fail_msg("iob_cache_residency_range(%s, %llu, %llu): %d", path, (unsigned long long)off,
			 (unsigned long long)len, rc);
}

/* on: 1 the mincore fallback; 2 cachestat with no time budget (a long
 * range sampled after its first chunk); 0 cachestat as a run has it. */
static void use_fallback(int on)
{
	if (on == 1)
		setenv("IOBENCH_NO_CACHESTAT", "1", 1);
	else
		unsetenv("IOBENCH_NO_CACHESTAT");
	if (on == 2)
		setenv("IOBENCH_RESIDENCY_BUDGET_NS", "0", 1);
	else
		unsetenv("IOBENCH_RESIDENCY_BUDGET_NS");
}

static const char *way(int fallback)
{
	return fallback == 1 ? "mincore" : fallback == 2 ? "cachestat sampled" : "default";
}

/* The file evicted, residency counted by cachestat or (fallback) mincore;
 * skipped on tmpfs. */
static void start_evicted(int fallback)
{
	if (on_tmpfs()) {
		print_message("skipped: the current directory is on tmpfs, whose pages cannot be evicted\n");
		skip();
	}
	use_fallback(fallback);
	evict();
}

static void evicted_then_read(int fallback)
{
	const uint64_t size = FILE_MIB * MiB, pages = size / psize;
	uint64_t res, tot;

	start_evicted(fallback);
	assert_int_equal(iob_cache_residency(path, &res, &tot), 0);
	assert_int_equal(tot, pages);
	if (res > pages / 20)
		fail_msg("%s: %llu of %llu pages resident just after eviction", way(fallback),
			 (unsigned long long)res, (unsigned long long)tot);
	void *held = read_range(0, size);
	assert_int_equal(iob_cache_residency(path, &res, &tot), 0);
	release(held, size);
	assert_int_equal(tot, pages);
	if (res < pages - pages / 20)
		fail_msg("%s: only %llu of %llu pages resident after reading the file", way(fallback),
			 (unsigned long long)res, (unsigned long long)tot);
}

static void half_read(int fallback)
{
	const uint64_t size = FILE_MIB * MiB, half = size / 2, hpages = half / psize;
	uint64_t res, tot;

	start_evicted(fallback);
	void *held = read_range(half, half); /* the second half: readahead never reaches back */
	probe(half, half, &res, &tot);
	assert_int_equal(tot, hpages);
	if (res < hpages - hpages / 20)
		fail_msg("second half, read: %llu of %llu pages resident", (unsigned long long)res,
			 (unsigned long long)tot);
	probe(0, half, &res, &tot);
	assert_int_equal(tot, hpages);
	if (res > hpages / 20)
		fail_msg("first half, not read: %llu of %llu pages resident", (unsigned long long)res,
			 (unsigned long long)tot);
	/* the whole file: one boundary, at its middle (a sample is off by at
	 * most 1/64 of the sampled part, 1/256 of it by mincore) */
	probe(0, 0, &res, &tot);
	assert_int_equal(tot, 2 * hpages);
	if (res < hpages - hpages / 10 || res > hpages + hpages / 10)
		fail_msg("%s: whole file with its second half read: %llu of %llu pages resident, want about half",
			 way(fallback), (unsigned long long)res, (unsigned long long)tot);
	/* a range under 4096 pages is probed page by page, never sampled */
	probe(half - 8 * MiB, 16 * MiB, &res, &tot);
	release(held, half);
	assert_int_equal(tot, 16 * MiB / psize);
	if (res < 8 * MiB / psize - 8 || res > 8 * MiB / psize + 64)
		fail_msg("16 MiB across the middle: %llu of %llu pages resident, want about half",
			 (unsigned long long)res, (unsigned long long)tot);
}

/* Each check runs with the kernel's cachestat, with the mincore fallback
 * and with cachestat sampling (the test's state: NULL, &mincore_too or
 * &sampled_too). */
static int mincore_too = 1, sampled_too = 2;

static void test_evicted_then_read(void **s)
{
	evicted_then_read(*s ? *(int *)*s : 0);
}

static void test_half_read(void **s)
{
	half_read(*s ? *(int *)*s : 0);
}

/* Which pages a range touches: exact arithmetic, whatever is cached. */
static void test_range_bounds(void **s)
{
	const uint64_t size = FILE_MIB * MiB;
	uint64_t res = 7, tot = 7;
	(void)s;
	for (int fallback = 0; fallback < 3; fallback++) {
		use_fallback(fallback);
		probe(psize - 1, 2, &res, &tot);
		assert_int_equal(tot, 2); /* straddles a page boundary */
		assert_true(res <= tot);
		probe(size - 1, 100, &res, &tot);
		assert_int_equal(tot, 1); /* clipped at the end of the file */
		probe(size - 3 * psize, 0, &res, &tot);
		assert_int_equal(tot, 3); /* len 0: to the end */
		probe(size, 1, &res, &tot);
		assert_int_equal(tot, 0); /* past the end: nothing */
		assert_int_equal(res, 0);
		probe(0, UINT64_MAX, &res, &tot);
		assert_int_equal(tot, size / psize);
	}
}

static void test_errors(void **s)
{
	uint64_t res = 7, tot = 7;
	(void)s;
	assert_int_equal(iob_cache_residency_range("resid.no-such-file", 0, 0, &res, &tot), -ENOENT);
	assert_int_equal(res, 0);
	assert_int_equal(tot, 0);
	assert_int_equal(iob_cache_residency_range(".", 0, 0, &res, &tot), -ENOTSUP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_evicted_then_read),
		cmocka_unit_test_prestate(test_evicted_then_read, &mincore_too),
		cmocka_unit_test(test_half_read),
		cmocka_unit_test_prestate(test_half_read, &mincore_too),
		cmocka_unit_test_prestate(test_evicted_then_read, &sampled_too),
		cmocka_unit_test_prestate(test_half_read, &sampled_too),
		cmocka_unit_test(test_range_bounds),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
