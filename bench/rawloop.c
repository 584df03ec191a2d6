/*
 * rawloop - the floor iobench is measured against: the plainest loops of
 * system calls that do the same I/O, with nothing else in them.  Prints one
 * JSON object saying what it did, so a comparison can check it did the same
 * work as its rival (bench/run.py refuses to compare otherwise):
 *   {"mode":..., "file":..., "block_size":..., "bytes":..., "ops":..., "seconds":...,
 *    "bw_bytes_per_s":..., "ops_per_s":...}
 * bytes are those the calls returned (or copied), ops the calls (or copies) that
 * moved them; a read-seq loop's last read, which returns 0 at the end of the file,
 * is not an op.
 *
 *   rawloop pread-rand FILE BS OPS SEED   random aligned preads, offsets drawn as iobench draws them
 *   rawloop read-seq FILE BS              read(2) to end of file
 *   rawloop write-seq FILE BS BYTES       write(2) BYTES then fsync, file truncated first
 *   rawloop mmap-rand FILE BS OPS SEED    memcpy from a MAP_SHARED mapping at random aligned offsets
 *   rawloop mmap-seq FILE BS [LOOPS]      memcpy the whole mapping block by block, LOOPS times
 *   rawloop direct-rand FILE BS OPS SEED  O_DIRECT preads at random aligned offsets
 *   rawloop rss CMD ARGS...               run CMD, print its peak RSS in KiB: forked from
 *                                         this small process, so the figure is CMD's own
 *   rawloop null-rand BS OPS THREADS SEED no I/O: THREADS threads, OPS/THREADS ops each (an
 *                                         offset drawn, a call through a pointer that
 *                                         "moves" BS bytes, two counters), each thread's
 *                                         state its own: the machine's scaling ceiling for
 *                                         the null backend's streams; also prints
 *                                         "cpu_ns_per_op" (the process's CPU time per op)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <pthread.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void report(const char *mode, const char *path, size_t bs, uint64_t bytes, uint64_t ops, double secs)
{
	printf("{\"mode\":\"%s\",\"file\":\"", mode);
	for (const char *c = path; *c; c++) /* a JSON string: escape what must be */
		if (*c == '"' || *c == '\\')
			printf("\\%c", *c);
		else if ((unsigned char)*c < 0x20)
			printf("\\u%04x", (unsigned char)*c);
		else
			putchar(*c);
	printf("\",\"block_size\":%zu,\"bytes\":%llu,\"ops\":%llu,\"seconds\":%.9f,\"bw_bytes_per_s\":%.3f,"
	       "\"ops_per_s\":%.3f}\n",
	       bs, (unsigned long long)bytes, (unsigned long long)ops, secs, secs > 0 ? (double)bytes / secs : 0.0,
	       secs > 0 ? (double)ops / secs : 0.0);
}

static int peak_rss(char **argv)
{
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) < 0)
		die("wait4");
	printf("{\"mode\":\"rss\",\"maxrss_kib\":%ld,\"status\":%d}\n", ru.ru_maxrss,
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}

/* null-rand: the per-op step of a null backend's stream, with nothing shared
 * between threads but the start barrier: each thread's counters in memory
 * (as a stream's result), in a cache line of their own, its own generator. */
struct null_thread {
	_Alignas(64) pthread_t t;
	pthread_barrier_t *go;
	uint64_t ops, seed, slots, done, bytes;
	size_t bs;
};

__attribute__((noinline)) static int64_t null_move(void *buf, size_t len, uint64_t off)
{
	(void)buf;
	(void)off;
	return (int64_t)len;
}

static int64_t (*volatile null_call)(void *, size_t, uint64_t) = null_move;

static void *null_main(void *arg)
{
	struct null_thread *nt = arg;
	int64_t (*const move)(void *, size_t, uint64_t) = null_call; /* a call through a pointer, as to a plugin */
	uint64_t seed = nt->seed;
	const uint64_t nops = nt->ops, slots = nt->slots;
	const size_t bs = nt->bs;
	char buf[64];
	pthread_barrier_wait(nt->go);
	for (uint64_t i = 0; i < nops; i++) {
		int64_t n = move(buf, bs, (next(&seed) % slots) * bs);
		if (n != (int64_t)bs)
			break;
		nt->bytes += (uint64_t)n; /* stored every op, as a stream's result is */
		nt->done++;
	}
	return NULL;
}

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int null_rand(int argc, char **argv)
{
	if (argc < 6) {
		fprintf(stderr, "usage: rawloop null-rand BS OPS THREADS SEED\n");
		return 2;
	}
	size_t bs = strtoull(argv[2], NULL, 10);
	uint64_t ops = strtoull(argv[3], NULL, 10), nth = strtoull(argv[4], NULL, 10);
	uint64_t seed = strtoull(argv[5], NULL, 10);
	if (!bs || !nth || nth > 64 || ops % nth) {
		fprintf(stderr, "rawloop: null-rand: BS and THREADS (1..64) must be positive, OPS a multiple of THREADS\n");
		return 2;
	}
	struct null_thread *nt = aligned_alloc(64, nth * sizeof *nt);
	pthread_barrier_t go;
	if (!nt || pthread_barrier_init(&go, NULL, (unsigned)nth + 1))
		die("null-rand");
	if (nt)
		memset(nt, 0, nth * sizeof *nt);
	for (uint64_t i = 0; i < nth; i++) {
		nt[i].go = &go;
		nt[i].ops = ops / nth;
		nt[i].seed = seed + i * 0x9e3779b97f4a7c15ull;
		nt[i].slots = ((uint64_t)1 << 30) / bs; /* a nominal 1 GiB, as the scenario's */
		nt[i].bs = bs;
		if (pthread_create(&nt[i].t, NULL, null_main, &nt[i]))
			die("pthread_create");
	}
	double c0 = cpu_s(), t0 = now();
	pthread_barrier_wait(&go);
	uint64_t bytes = 0, done = 0;
	for (uint64_t i = 0; i < nth; i++) {
		pthread_join(nt[i].t, NULL);
		bytes += nt[i].bytes;
		done += nt[i].done;
	}
	double t1 = now(), c1 = cpu_s();
	printf("{\"mode\":\"null-rand\",\"threads\":%llu,\"block_size\":%zu,\"bytes\":%llu,\"ops\":%llu,"
	       "\"seconds\":%.9f,\"bw_bytes_per_s\":%.3f,\"ops_per_s\":%.3f,\"cpu_ns_per_op\":%.4f}\n",
	       (unsigned long long)nth, bs, (unsigned long long)bytes, (unsigned long long)done, t1 - t0,
	       t1 > t0 ? (double)bytes / (t1 - t0) : 0.0, t1 > t0 ? (double)done / (t1 - t0) : 0.0,
	       done ? (c1 - c0) * 1e9 / (double)done : 0.0);
	pthread_barrier_destroy(&go);
	free(nt);
	return done == ops ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "rss"))
		return peak_rss(argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "null-rand"))
		return null_rand(argc, argv);
	if (argc < 4) {
		fprintf(stderr, "usage: rawloop MODE FILE BS [OPS|BYTES] [SEED]\n");
		return 2;
	}
	const char *mode = argv[1], *path = argv[2];
	size_t bs = strtoull(argv[3], NULL, 10);
	uint64_t arg = argc > 4 ? strtoull(argv[4], NULL, 10) : 0;
	uint64_t seed = argc > 5 ? strtoull(argv[5], NULL, 10) : 1;
	void *buf;
	if (posix_memalign(&buf, 4096, bs))
		die("posix_memalign");
	memset(buf, 0x5a, bs);
	uint64_t bytes = 0, ops = 0;
	double t0, t1;

	if (!strcmp(mode, "pread-rand") || !strcmp(mode, "direct-rand")) {
		int fd = open(path, O_RDONLY | (!strcmp(mode, "direct-rand") ? O_DIRECT : 0));
		struct stat st;
		if (fd < 0 || fstat(fd, &st))
			die(path);
		uint64_t slots = ((uint64_t)st.st_size - bs) / bs + 1;
		t0 = now();
		for (uint64_t i = 0; i < arg; i++) {
			uint64_t off = (next(&seed) % slots) * bs;
			ssize_t n = pread(fd, buf, bs, (off_t)off);
			if (n <= 0)
				die("pread");
			bytes += (uint64_t)n;
			ops++;
		}
		t1 = now();
		close(fd);
	} else if (!strcmp(mode, "read-seq")) {
		int fd = open(path, O_RDONLY);
		if (fd < 0)
			die(path);
		t0 = now();
		for (;;) {
			ssize_t n = read(fd, buf, bs);
			if (n < 0)
				die("read");
			if (n == 0)
				break;
			bytes += (uint64_t)n;
			ops++;
		}
		t1 = now();
		close(fd);
	} else if (!strcmp(mode, "write-seq")) {
		t0 = now();
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			die(path);
		while (bytes < arg) {
			ssize_t n = write(fd, buf, bs);
			if (n <= 0)
				die("write");
			bytes += (uint64_t)n;
			ops++;
		}
		if (fsync(fd))
			die("fsync");
		close(fd);
		t1 = now();
	} else if (!strcmp(mode, "mmap-rand") || !strcmp(mode, "mmap-seq")) {
		int fd = open(path, O_RDONLY);
		struct stat st;
		if (fd < 0 || fstat(fd, &st))
			die(path);
		size_t size = (size_t)st.st_size;
		const unsigned char *m = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED)
			die("mmap");
		t0 = now();
		if (!strcmp(mode, "mmap-seq")) {
			for (uint64_t loop = 0; loop < (arg ? arg : 1); loop++)
				for (size_t off = 0; off < size; off += bs) {
					size_t n = size - off < bs ? size - off : bs;
					memcpy(buf, m + off, n);
					bytes += n;
					ops++;
				}
		} else {
			uint64_t slots = (size - bs) / bs + 1;
			for (uint64_t i = 0; i < arg; i++) {
				memcpy(buf, m + (next(&seed) % slots) * bs, bs);
				bytes += bs;
				ops++;
			}
		}
		t1 = now();
		munmap((void *)m, size);
		close(fd);
	} else {
		fprintf(stderr, "rawloop: unknown mode %s\n", mode);
		return 2;
	}
	report(mode, path, bs, bytes, ops, t1 - t0);
	free(buf);
	return 0;
}
