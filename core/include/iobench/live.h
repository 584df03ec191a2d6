/*
 * iobench/live.h - what one stream of a running phase publishes for the
 * run's observer thread (progress.c: the progress line and the interval
 * records).  The engine writes it only at the looks at the clock it already
 * makes (every few I/Os, at most 64 apart, about 50 us of I/O apart; see
 * engine_time.c's phase_check) and once at the phase's end: relaxed atomic stores
 * of two counters, nothing per I/O.  It knows no job, run or output.
 */
#ifndef IOBENCH_LIVE_H
#define IOBENCH_LIVE_H

#include <stdint.h>
#include "iobench/hist.h"

struct iob_live {
	/* Written by the stream (relaxed atomics), read by the observer. */
	uint64_t bytes, ops; /* done so far in the measured window */
	int ramping;	     /* 1 while the stream is in its ramp */
	uint64_t start_ns;   /* the measured window's start (CLOCK_MONOTONIC) */
	/* Latency snapshots, only when snap is not NULL (interval records):
	 * the observer raises `want` (atomic); at its next look at the clock
	 * the stream copies its cumulative latency histogram (every level of
	 * the sample, reads and writes, in ns through ns_per_tick), its bytes and
	 * ops and the time into snap, snap_bytes, snap_ops, snap_ns under `lock` (an
	 * atomic flag: the stream only ever waits for the observer's copy),
	 * then stores `got = want` (release).  The phase's end takes one last
	 * snapshot whatever `want` says. */
	struct iob_hist *snap;
	uint64_t snap_bytes, snap_ops;
	/* A mixed phase with fio-style logs (split): the writes alone too, in
	 * the same snapshot (snap_w's histogram, bytes and ops written); NULL
	 * otherwise. */
	struct iob_hist *snap_w;
	uint64_t snap_bytes_w, snap_ops_w;
	uint64_t snap_ns; /* when it was taken (CLOCK_MONOTONIC) */
	int snap_ramping; /* the snapshot was taken in the ramp */
	unsigned want, got;
	int lock;
};

/* The snapshot lock: a flag taken with an atomic exchange (no OS call). */
static inline void iob_live_lock(struct iob_live *l)
{
	while (__atomic_exchange_n(&l->lock, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&l->lock, __ATOMIC_RELAXED))
			;
}

static inline void iob_live_unlock(struct iob_live *l)
{
	__atomic_store_n(&l->lock, 0, __ATOMIC_RELEASE);
}

#endif
