/*
 * slowafter.c - a test-only backend, "slowafter", that reads a file with
 * pread and paces every call, so a test decides the speed bigread sees and
 * can plant a cliff at a known offset.  Built as iob-backend-slowafter.so in
 * its own directory of the build tree; never installed.
 *
 * Set through the environment (read at each open):
 *   IOB_SLOWAFTER_RATE     pace of every read in bytes per second; a call that
 *                          moved n bytes lasts at least n / RATE (0: no pacing)
 *   IOB_SLOWAFTER_BYTES    reads starting at or past this offset last FACTOR
 *                          times longer (unset: never)
 *   IOB_SLOWAFTER_FACTOR   the slowdown after BYTES (default 5)
 *   IOB_SLOWAFTER_JITTER   each call's pace times 1 + JITTER * u, u uniform in
 *                          [-1, 1) (default 0)
 *   IOB_SLOWAFTER_OUTLIER  chance that a call lasts 10 times longer (default 0)
 *   IOB_SLOWAFTER_SEED     seed for jitter and outliers (default 1)
 *   IOB_SLOWAFTER_RESEED   1: each open seeds with SEED + the number of opens
 *                          before it in the process, so every run of a
 *                          repeated phase draws anew (default 0: every open
 *                          draws the same)
 *   IOB_SLOWAFTER_DECAY_BYTES, IOB_SLOWAFTER_DECAY_TO  a drive that slows as it
 *                          is used: each read's pace times
 *                          1 + (TO - 1) (1 - exp(-B / BYTES)), B the bytes
 *                          this process read before it (unset: no decay)
 *   IOB_SLOWAFTER_SWING    each open's pace times 1 + SWING on even opens and
 *                          1 - SWING on odd ones: a device that never settles
 *
 * A call sleeps on CLOCK_MONOTONIC until its pace has passed since it began.
 * Under the virtual clock (vclock.c, preloaded) that sleep takes no real
 * time and moves the clock, and the CPU clocks, by exactly the pace: every
 * block then lasts exactly what the settings say, on every clock bigread
 * can use, however busy the machine is.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "iobench/plugin.h"

#include "fdio.h"

#define SLOW_NAME "slowafter"

struct slow_file {
	int fd;
	double rate;	/* bytes per second, 0 = unpaced */
	uint64_t after; /* offset where the slowdown starts */
	double factor;
	double jitter;
	double outlier;
	uint64_t rng;
	double decay_bytes, decay_to, swing;
};

/* Bytes read by this process, and opens made, across every handle (the
 * tests that decay or swing open one handle at a time). */
static uint64_t slow_total_bytes, slow_opens;

static const struct iob_host *slow_host; /* saved by the entry, not used */

static double slow_env_double(const char *name, double def)
{
	const char *v = getenv(name);
	return v && *v ? strtod(v, NULL) : def;
}

static uint64_t slow_env_u64(const char *name, uint64_t def)
{
	const char *v = getenv(name);
	return v && *v ? strtoull(v, NULL, 10) : def;
}

/* Uniform in [0, 1). */
static double slow_u01(struct slow_file *f)
{
	uint64_t z = (f->rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (double)(z >> 11) / 9007199254740992.0;
}

static uint64_t slow_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int slow_open(const struct iob_open_args *args, void **handle)
{
	if (args->flags & (IOB_OPEN_WRITE | IOB_OPEN_CREATE | IOB_OPEN_TRUNC))
		return -EINVAL;
	struct slow_file *f = calloc(1, sizeof *f);
	if (!f)
		return -ENOMEM;
	f->fd = open(args->path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0) {
		int e = errno;
		free(f);
		return -e;
	}
	f->rate = slow_env_double("IOB_SLOWAFTER_RATE", 0.0);
	f->after = slow_env_u64("IOB_SLOWAFTER_BYTES", UINT64_MAX);
	f->factor = slow_env_double("IOB_SLOWAFTER_FACTOR", 5.0);
	f->jitter = slow_env_double("IOB_SLOWAFTER_JITTER", 0.0);
	f->outlier = slow_env_double("IOB_SLOWAFTER_OUTLIER", 0.0);
	f->rng = slow_env_u64("IOB_SLOWAFTER_SEED", 1);
	/* streams and group jobs open at once: the count is taken atomically */
	uint64_t nth = __atomic_fetch_add(&slow_opens, 1, __ATOMIC_RELAXED);
	if (slow_env_u64("IOB_SLOWAFTER_RESEED", 0))
		f->rng += nth * 0x2545f4914f6cdd1dull;
	f->decay_bytes = slow_env_double("IOB_SLOWAFTER_DECAY_BYTES", 0.0);
	f->decay_to = slow_env_double("IOB_SLOWAFTER_DECAY_TO", 1.0);
	f->swing = slow_env_double("IOB_SLOWAFTER_SWING", 0.0);
	if (f->swing != 0.0)
		f->swing = nth % 2 ? -f->swing : f->swing;
	*handle = f;
	return 0;
}

static int slow_close(void *handle)
{
	return fdio_close_free(((struct slow_file *)handle)->fd, handle);
}

/* Wait until `ns` have passed since `start` on the monotonic clock. */
static void slow_wait(uint64_t start, uint64_t ns)
{
	uint64_t end = start + ns;
	struct timespec ts = {.tv_sec = (time_t)(end / 1000000000u), .tv_nsec = (long)(end % 1000000000u)};
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int64_t slow_read_at(void *handle, void *buf, size_t len, uint64_t off)
{
	struct slow_file *f = handle;
	uint64_t start = slow_now();
	int64_t got = fdio_pread_full(f->fd, buf, len, off, 0);
	if (got < 0)
		return got;
	size_t done = (size_t)got;
	if (f->rate > 0.0 && done > 0) {
		double ns = (double)done * 1e9 / f->rate;
		if (off >= f->after)
			ns *= f->factor;
		if (f->jitter > 0.0)
			ns *= 1.0 + f->jitter * (2.0 * slow_u01(f) - 1.0);
		if (f->outlier > 0.0 && slow_u01(f) < f->outlier)
			ns *= 10.0;
		if (f->decay_bytes > 0.0)
			ns *= 1.0 + (f->decay_to - 1.0) * (1.0 - exp(-(double)__atomic_load_n(&slow_total_bytes, __ATOMIC_RELAXED) / f->decay_bytes));
		ns *= 1.0 + f->swing;
		slow_wait(start, (uint64_t)ns);
	}
	__atomic_fetch_add(&slow_total_bytes, (uint64_t)done, __ATOMIC_RELAXED); /* streams read at once */
	return (int64_t)done;
}

static int slow_info(void *handle, struct iob_file_info *info)
{
	struct slow_file *f = handle;
	return fdio_aligned_info(f->fd, info, 1, 1, 0);
}

static const struct iob_backend_ops slow_ops = {
    .open = slow_open,
    .close = slow_close,
    .read_at = slow_read_at,
    .info = slow_info,
};

IOB_BACKEND_PLUGIN(slow_host, SLOW_NAME, "test only: pread paced to a set rate, slower past a set offset", IOB_CAP_READ,
		   &slow_ops);
