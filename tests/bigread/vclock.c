/*
 * vclock.c - a test-only LD_PRELOAD library that replaces the clocks a
 * timing test reads with a virtual clock, so the speeds a tool reports are
 * exact whatever else the machine is doing.  Built as libiobtest-vclock.so
 * in the build tree; never installed.
 *
 * - CLOCK_MONOTONIC (and _RAW, _COARSE, CLOCK_BOOTTIME) read the virtual
 *   wall clock.  It starts at 1000 s and moves only when someone sleeps on
 *   it: clock_nanosleep() on one of those clocks returns at once and moves
 *   the clock to the wake-up time (absolute) or by the interval (relative);
 *   nanosleep() likewise.  A paced test backend (slowafter.c) that sleeps
 *   n / RATE after each read therefore makes every read last exactly that.
 * - The CPU clocks move with it, as IOBTEST_VCLOCK_CPU says: "user" (the
 *   default) adds every sleep to user time, "sys" to system time, "none" to
 *   neither.  CLOCK_PROCESS_CPUTIME_ID and CLOCK_THREAD_CPUTIME_ID read
 *   user + system; getrusage() reports them as ru_utime and ru_stime.  So a
 *   test decides whether a CPU clock measures something or nothing.
 * - clock_getres() on every clock above answers 1 ns.
 * - Any other clock (CLOCK_REALTIME for time stamps) is the real one.
 *
 * The engine may read the TSC directly; run the tool with IOBENCH_NO_TSC=1
 * so that every clock read comes here.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>

#define NS 1000000000ull

enum vclock_cpu { VCLOCK_CPU_USER, VCLOCK_CPU_SYS, VCLOCK_CPU_NONE };

static _Atomic uint64_t vclock_wall = 1000 * NS;
static _Atomic uint64_t vclock_user;
static _Atomic uint64_t vclock_sys;

/* Exported so a test program may also move the clock by hand. */
void iobtest_vclock_advance(uint64_t ns);

static enum vclock_cpu vclock_cpu_mode(void)
{
	const char *v = getenv("IOBTEST_VCLOCK_CPU");
	if (v && strcmp(v, "sys") == 0)
		return VCLOCK_CPU_SYS;
	if (v && strcmp(v, "none") == 0)
		return VCLOCK_CPU_NONE;
	return VCLOCK_CPU_USER;
}

void iobtest_vclock_advance(uint64_t ns)
{
	atomic_fetch_add(&vclock_wall, ns);
	switch (vclock_cpu_mode()) {
	case VCLOCK_CPU_USER:
		atomic_fetch_add(&vclock_user, ns);
		break;
	case VCLOCK_CPU_SYS:
		atomic_fetch_add(&vclock_sys, ns);
		break;
	case VCLOCK_CPU_NONE:
		break;
	}
}

static int vclock_is_wall(clockid_t id)
{
	return id == CLOCK_MONOTONIC || id == CLOCK_MONOTONIC_RAW || id == CLOCK_MONOTONIC_COARSE ||
	       id == CLOCK_BOOTTIME;
}

static int vclock_is_cpu(clockid_t id)
{
	return id == CLOCK_PROCESS_CPUTIME_ID || id == CLOCK_THREAD_CPUTIME_ID;
}

static struct timespec vclock_ts(uint64_t ns)
{
	struct timespec ts = {.tv_sec = (time_t)(ns / NS), .tv_nsec = (long)(ns % NS)};
	return ts;
}

static uint64_t vclock_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * NS + (uint64_t)ts->tv_nsec;
}

static struct timeval vclock_tv(uint64_t ns)
{
	struct timeval tv = {.tv_sec = (time_t)(ns / NS), .tv_usec = (suseconds_t)(ns % NS / 1000)};
	return tv;
}

static void *vclock_next(const char *name)
{
	void *fn = dlsym(RTLD_NEXT, name);
	if (!fn)
		abort(); /* a test library without the real call cannot do anything right */
	return fn;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	if (vclock_is_wall(id)) {
		*ts = vclock_ts(atomic_load(&vclock_wall));
		return 0;
	}
	if (vclock_is_cpu(id)) {
		*ts = vclock_ts(atomic_load(&vclock_user) + atomic_load(&vclock_sys));
		return 0;
	}
	int (*real)(clockid_t, struct timespec *) = (int (*)(clockid_t, struct timespec *))vclock_next("clock_gettime");
	return real(id, ts);
}

int clock_getres(clockid_t id, struct timespec *res)
{
	if (vclock_is_wall(id) || vclock_is_cpu(id)) {
		if (res)
			*res = vclock_ts(1);
		return 0;
	}
	int (*real)(clockid_t, struct timespec *) = (int (*)(clockid_t, struct timespec *))vclock_next("clock_getres");
	return real(id, res);
}

int clock_nanosleep(clockid_t id, int flags, const struct timespec *req, struct timespec *rem)
{
	if (vclock_is_wall(id)) {
		uint64_t want = vclock_ns(req);
		if (flags & TIMER_ABSTIME) {
			uint64_t now = atomic_load(&vclock_wall);
			if (want > now)
				iobtest_vclock_advance(want - now);
		} else {
			iobtest_vclock_advance(want);
		}
		if (rem)
			*rem = vclock_ts(0);
		return 0;
	}
	int (*real)(clockid_t, int, const struct timespec *, struct timespec *) =
	    (int (*)(clockid_t, int, const struct timespec *, struct timespec *))vclock_next("clock_nanosleep");
	return real(id, flags, req, rem);
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
	iobtest_vclock_advance(vclock_ns(req));
	if (rem)
		*rem = vclock_ts(0);
	return 0;
}

/* glibc declares the first parameter as an enum under _GNU_SOURCE. */
#if defined(__GLIBC__)
typedef __rusage_who_t vclock_who;
#else
typedef int vclock_who;
#endif

int getrusage(vclock_who who, struct rusage *ru)
{
	int (*real)(vclock_who, struct rusage *) = (int (*)(vclock_who, struct rusage *))vclock_next("getrusage");
	int rc = real(who, ru);
	if (rc == 0 && (who == RUSAGE_SELF || who == RUSAGE_THREAD)) {
		ru->ru_utime = vclock_tv(atomic_load(&vclock_user));
		ru->ru_stime = vclock_tv(atomic_load(&vclock_sys));
	}
	return rc;
}
