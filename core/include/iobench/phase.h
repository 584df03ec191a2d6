/*
 * iobench/phase.h - the words a phase of I/O is described in, shared by the
 * job spec (job.h), the engine (engine.h) and the result model: which way
 * the bytes go, in what order, and how long a path may be.  It owns no
 * policy; it exists so that the engine needs to know nothing of jobs.
 */
#ifndef IOBENCH_PHASE_H
#define IOBENCH_PHASE_H

#include <stddef.h>
#include <stdint.h>

#define IOB_NAME_MAX 64
#define IOB_PATH_MAX 4096

enum iob_access {
	IOB_ACCESS_SEQ = 0,  /* offsets 0, bs, 2bs, ... to the end of each file */
	IOB_ACCESS_RAND = 1, /* randomly ordered offsets, see random_map/offset_align/skip_past_end */
};

enum iob_phase {
	IOB_PHASE_WRITE = 0,
	IOB_PHASE_READ = 1,
	IOB_PHASE_VERIFY = 2,
	IOB_PHASE_MIXED = 3, /* reads and writes, rwmix_read % reads */
};
/* Which I/Os are timed for the latency figures (the key `latency`). */
enum iob_lat_timing {
	IOB_LATENCY_SAMPLED = 0, /* every I/O, or 1 in k when timing would cost more than 2% of it */
	IOB_LATENCY_EVERY = 1,   /* every I/O, whatever timing costs */
	IOB_LATENCY_OFF = 2,     /* none: no latency figures, no clock read per I/O */
};
/* "sampled", "every", "off" */
const char *iob_lat_timing_name(enum iob_lat_timing l);
#define IOB_PHASE_BIT(p) (1u << (p))
/* "write", "read", "verify" */
const char *iob_phase_name(enum iob_phase p);
/* The phases of the bit set `phases` in the order they run: write, read,
 * verify, mixed; with both mixed and verify, the verify after the mixed
 * phase (it reads back what the mixed phase wrote).  Returns how many. */
size_t iob_phase_order(uint32_t phases, enum iob_phase out[4]);

#endif
