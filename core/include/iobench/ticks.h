/*
 * iobench/ticks.h - the per-I/O clock.  On x86-64 with an invariant TSC that
 * the kernel itself uses as its clock source, a tick is one TSC count (about
 * 19 ns to read in a VM, against 58 ns for clock_gettime); elsewhere a tick
 * is a CLOCK_MONOTONIC nanosecond.  The engine converts ticks to nanoseconds
 * with the ratio it measures over each phase against CLOCK_MONOTONIC, so
 * every figure it reports is in monotonic nanoseconds.
 */
#ifndef IOBENCH_TICKS_H
#define IOBENCH_TICKS_H

#include <stdint.h>
#include "iobench/os.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <x86intrin.h>
#define IOB_HAVE_TSC 1
#endif

/* Nonzero when ticks are TSC counts (decided once, see os_posix.c). */
extern int iob_ticks_tsc;

static inline uint64_t iob_ticks(void)
{
#ifdef IOB_HAVE_TSC
	if (iob_ticks_tsc)
		return __rdtsc();
#endif
	return iob_now_ns();
}

/* Decide whether the TSC is usable; call once before timing. */
void iob_ticks_init(void);

#endif
