/*
 * os_posix_cache.c - the page cache (os.h): residency of a file or a range
 * (cachestat, mincore), eviction, dropping, unwritten pages.  A room of
 * os_posix.c (its map).
 */
#include "os_posix_int.h"

int iob_cache_residency(const char *path, uint64_t *resident_pages, uint64_t *total_pages)
{
	return iob_cache_residency_range(path, 0, 0, resident_pages, total_pages);
}

/* The file at path opened only to advise the kernel about its cache: never
 * a wait on a FIFO, never a controlling terminal, and only a regular file or
 * a block device (what else may have been swapped in at the name after the
 * checks is left alone).  A descriptor, or -errno. */
static int open_for_advice(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) < 0 || !(S_ISREG(st.st_mode) || S_ISBLK(st.st_mode))) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

int iob_cache_evict(const char *path)
{
	int fd = open_for_advice(path);
	if (fd < 0)
		return fd;
	fdatasync(fd);
	int rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	return -rc;
}

int iob_cache_drop_range(const char *path, uint64_t off, uint64_t len)
{
	int fd = open_for_advice(path);
	if (fd < 0)
		return fd;
	int rc = posix_fadvise(fd, (off_t)off, (off_t)len, POSIX_FADV_DONTNEED);
	close(fd);
	return -rc;
}

void iob_sync_all(void)
{
	sync();
}

int iob_drop_caches(void)
{
	sync();
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, "3\n", 2);
	int rc = n == 2 ? 0 : (n < 0 ? -errno : -EIO);
	close(fd);
	return rc;
}

/*
 * Page-cache residency of a byte range.  cachestat(2) (Linux 6.5+) counts the
 * cached pages of a range; its argument layouts are declared here from the
 * man page because older headers lack them.  Where the kernel has no
 * cachestat (ENOSYS), refuses it (EPERM, EOPNOTSUPP) or IOBENCH_NO_CACHESTAT
 * is set, mincore(2) probes a mapping of the range instead.
 *
 * cachestat walks the cache's entries, so its cost follows how the range is
 * cached, not its size: about 11 us for 256 MiB cached in large folios (a
 * file written and read back on ext4), but 200 us for 256 MiB of 4 KiB
 * folios (a sparse file's holes read; 6-23 ns a page) and up to 2 ms for a
 * GiB half evicted (a clock around the call, 2026-12-03).  So a range of
 * more than IOB_RES_EXACT pages is counted exactly in chunks, the first of
 * IOB_RES_CHUNK pages and each next one twice the last, while the probe has
 * taken less than IOB_RES_BUDGET_NS.  What is left when the budget runs out
 * is counted in one more call when it is at most IOB_RES_EXACT pages, else
 * sampled: IOB_RES_TAIL_RUNS runs of IOB_RES_TAIL_RUN_PAGES consecutive
 * pages, one at the centre of each of as many equal strata of the rest,
 * scaled to it (about 0.7 us a run).  The estimate of the sampled part is
 * off by at most 1/IOB_RES_TAIL_RUNS (1.6%) of it per boundary between
 * resident and evicted stretches when those are long, as after sequential
 * reads; for resident pieces of k pages scattered with probability p its
 * standard error is about sqrt(p(1-p) min(k,16) / 1024): 1.6% of it for
 * single pages, up to 6.3% for pieces of 16 pages or more.  (IOBENCH_RESIDENCY_BUDGET_NS overrides the budget, for the
 * tests: 0 samples all but the first chunk.)
 *
 * mincore walks every page it is asked about (about 30 ns a page: 10 ms for
 * a cached GiB), so where cachestat is not to be had a range of more than
 * IOB_RES_EXACT pages is sampled: IOB_RES_RUNS runs of IOB_RES_RUN_PAGES
 * consecutive pages, one at the centre of each of IOB_RES_RUNS equal strata,
 * and the resident count is scaled to the range (about 0.1 ms whatever its
 * size).  The estimate is off by at most 1/IOB_RES_RUNS (0.4%) of the range
 * per boundary between resident and evicted stretches when those are long,
 * as after sequential reads; for resident pieces of k pages scattered with
 * probability p its standard error is about sqrt(p(1-p) min(k,16) / 4096),
 * at most 3.1% of the range.  Ranges up to IOB_RES_EXACT pages are exact.
 */
#define IOB_RES_RUNS 256u
#define IOB_RES_RUN_PAGES 16u
#define IOB_RES_EXACT (IOB_RES_RUNS * IOB_RES_RUN_PAGES)
#define IOB_RES_CHUNK 1024u /* the first chunk: 4 MiB of 4 KiB pages; each next one twice the last */
#define IOB_RES_BUDGET_NS 20000u
#define IOB_RES_TAIL_RUNS 64u
#define IOB_RES_TAIL_RUN_PAGES 16u

struct iob_cachestat_range {
	uint64_t off;
	uint64_t len;
};

struct iob_cachestat {
	uint64_t nr_cache;
	uint64_t nr_dirty;
	uint64_t nr_writeback;
	uint64_t nr_evicted;
	uint64_t nr_recently_evicted;
};

/* Its number where we know it (the same in both tables); elsewhere mincore. */
#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#define IOB_NR_CACHESTAT 451
#endif

struct res_probe {
	int fd;
	int cachestat; /* still worth trying */
	uint64_t psize;
	uint64_t end_page;  /* one past the last page of the range */
	unsigned char *map; /* mincore: the mapped window, or NULL */
	uint64_t map_first, map_pages;
	unsigned char vec[IOB_RES_EXACT];
};

/* Cached pages among pages [first, first + n) by cachestat, or -errno. */
static int res_cachestat(struct res_probe *p, uint64_t first, uint64_t n, uint64_t *hits)
{
#ifdef IOB_NR_CACHESTAT
	struct iob_cachestat_range range = {first * p->psize, n * p->psize};
	struct iob_cachestat cs;

	memset(&cs, 0, sizeof cs);
	if (syscall(IOB_NR_CACHESTAT, (unsigned int)p->fd, &range, &cs, 0u) != 0)
		return -errno;
	*hits += cs.nr_cache < n ? cs.nr_cache : n;
	return 0;
#else
	(void)p;
	(void)first;
	(void)n;
	(void)hits;
	return -ENOSYS;
#endif
}

/* The same by mincore on a window of at most 1 GiB mapped around them. */
static int res_mincore(struct res_probe *p, uint64_t first, uint64_t n, uint64_t *hits)
{
	if (!p->map || first < p->map_first || first + n > p->map_first + p->map_pages) {
		uint64_t window = ((uint64_t)1 << 30) / p->psize;
		if (p->map)
			munmap(p->map, (size_t)(p->map_pages * p->psize));
		p->map_first = first;
		p->map_pages = p->end_page - first < window ? p->end_page - first : window;
		p->map = mmap(NULL, (size_t)(p->map_pages * p->psize), PROT_READ, MAP_SHARED, p->fd,
			      (off_t)(first * p->psize));
		if (p->map == MAP_FAILED) {
			p->map = NULL;
			return -errno;
		}
	}
	if (mincore(p->map + (first - p->map_first) * p->psize, (size_t)(n * p->psize), p->vec) != 0)
		return -errno;
	for (uint64_t i = 0; i < n; i++)
		*hits += p->vec[i] & 1u;
	return 0;
}

/* Resident pages among [first, first + n), n <= IOB_RES_EXACT. */
static int res_count(struct res_probe *p, uint64_t first, uint64_t n, uint64_t *hits)
{
	if (p->cachestat) {
		int rc = res_cachestat(p, first, n, hits);
		if (rc == 0 || !(rc == -ENOSYS || rc == -EPERM || rc == -EOPNOTSUPP || rc == -EINVAL))
			return rc;
		p->cachestat = 0;
	}
	return res_mincore(p, first, n, hits);
}

/* The estimate of resident pages among [first, first + n) from `runs` runs
 * of `run` pages, run i at the centre of stratum i (each stratum holds at
 * least `run` pages), counted by count, scaled to n: 0 or -errno. */
static int res_sampled(struct res_probe *p, uint64_t first, uint64_t n, uint64_t runs, uint64_t run,
		       int (*count)(struct res_probe *, uint64_t, uint64_t, uint64_t *), uint64_t *hits)
{
	uint64_t sampled = 0;
	int rc = 0;
	for (uint64_t i = 0; rc == 0 && i < runs; i++) {
		uint64_t s0 = i * n / runs, s1 = (i + 1) * n / runs;
		rc = count(p, first + s0 + (s1 - s0 - run) / 2, run, &sampled);
	}
	if (rc == 0)
		*hits += (sampled * n + runs * run / 2) / (runs * run);
	return rc;
}

/* Resident pages among [first, first + n) by cachestat: chunk by chunk while
 * within the budget, the rest sampled (see the top); -errno when cachestat
 * fails, *hits then unchanged. */
static int res_budgeted(struct res_probe *p, uint64_t first, uint64_t n, uint64_t *hits)
{
	const char *env = getenv("IOBENCH_RESIDENCY_BUDGET_NS");
	uint64_t budget = env && *env ? strtoull(env, NULL, 10) : IOB_RES_BUDGET_NS;
	uint64_t t0 = iob_now_ns(), done = 0, got = 0;
	int rc = 0;
	for (uint64_t chunk = IOB_RES_CHUNK; rc == 0 && done < n; chunk *= 2) {
		uint64_t c = n - done < chunk ? n - done : chunk;
		rc = res_cachestat(p, first + done, c, &got);
		done += c;
		if (done < n && iob_now_ns() - t0 >= budget)
			break;
	}
	uint64_t rest = n - done;
	if (rc == 0 && rest && rest <= IOB_RES_EXACT) {
		rc = res_cachestat(p, first + done, rest, &got); /* one short call more */
	} else if (rc == 0 && rest) {
		/* strata of more than IOB_RES_EXACT / IOB_RES_TAIL_RUNS pages */
		rc = res_sampled(p, first + done, rest, IOB_RES_TAIL_RUNS, IOB_RES_TAIL_RUN_PAGES, res_cachestat, &got);
	}
	if (rc == 0)
		*hits += got;
	return rc;
}

int iob_cache_residency_range(const char *path, uint64_t off, uint64_t len, uint64_t *resident_pages,
			      uint64_t *total_pages)
{
	struct stat st;
	const char *no = getenv("IOBENCH_NO_CACHESTAT");
	struct res_probe *p;
	uint64_t hits = 0;
	int fd, rc = 0;

	*resident_pages = *total_pages = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -ENOTSUP;
	}
	uint64_t size = (uint64_t)st.st_size, psize = (uint64_t)sysconf(_SC_PAGESIZE);
	if (off >= size) {
		close(fd);
		return 0;
	}
	uint64_t end = len == 0 || len > size - off ? size : off + len;
	uint64_t first = off / psize, npages = (end - 1) / psize - first + 1;
	if (!(p = calloc(1, sizeof *p))) {
		close(fd);
		return -ENOMEM;
	}
	p->fd = fd;
	p->cachestat = !(no && *no);
	p->psize = psize;
	p->end_page = first + npages;
	if (npages <= IOB_RES_EXACT) {
		rc = res_count(p, first, npages, &hits);
	} else if (p->cachestat && res_budgeted(p, first, npages, &hits) == 0) {
		/* counted exactly while cheap, the rest sampled */
	} else {
		p->cachestat = 0; /* refused or failed: sample the range by mincore */
		hits = 0; /* a stratum holds at least IOB_RES_RUN_PAGES pages */
		rc = res_sampled(p, first, npages, IOB_RES_RUNS, IOB_RES_RUN_PAGES, res_count, &hits);
	}
	if (p->map)
		munmap(p->map, (size_t)(p->map_pages * psize));
	free(p);
	close(fd);
	if (rc != 0)
		return rc;
	*resident_pages = hits < npages ? hits : npages;
	*total_pages = npages;
	return 0;
}

int iob_cache_unwritten(const char *path, uint64_t *bytes)
{
	*bytes = 0;
#ifdef IOB_NR_CACHESTAT
	const char *no = getenv("IOBENCH_NO_CACHESTAT");
	struct stat st;
	if (no && *no)
		return -ENOTSUP;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -ENOTSUP;
	}
	/* len 0: from off to the end of the file, whatever its size now */
	struct iob_cachestat_range range = {0, 0};
	struct iob_cachestat cs;
	memset(&cs, 0, sizeof cs);
	int rc = syscall(IOB_NR_CACHESTAT, (unsigned int)fd, &range, &cs, 0u) == 0 ? 0 : -errno;
	close(fd);
	if (rc == -ENOSYS || rc == -EPERM || rc == -EOPNOTSUPP || rc == -EINVAL)
		return -ENOTSUP;
	if (rc != 0)
		return rc;
	*bytes = (cs.nr_dirty + cs.nr_writeback) * (uint64_t)sysconf(_SC_PAGESIZE);
	return 0;
#else
	(void)path;
	return -ENOTSUP;
#endif
}
