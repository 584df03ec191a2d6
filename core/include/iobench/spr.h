/*
 * iobench/spr.h - fio's sprandom: a random write order that leaves a flash
 * device's blocks as valid as a steady state would (docs/fio.md, "sprandom").
 *
 * The file's N blocks are written in regions of equal size, each region
 * taking as many writes as physical_blocks / regions, where physical_blocks
 * is N plus the over-provisioning (spr_op) share of it.  Each write is a
 * fresh block of one random permutation of the file's blocks, or a block of
 * the region before written again: a write of region r is kept, with the
 * region's invalidation probability, to be written again at the start of
 * region r + 1 (with spr_cs, at its end).  The probabilities follow the
 * validity curve of Desnoyers's model, highest in the first region, none in
 * the last.  State: one probability per region and a ring of the blocks to
 * write again, allocated before the clock (iob_spr_bytes budgets them).
 */
#ifndef IOBENCH_SPR_H
#define IOBENCH_SPR_H

#include <stddef.h>
#include <stdint.h>

#include "iobench/perm.h"

#define IOB_SPR_PRECISION 10000 /* the probabilities' unit: 1/10000 */

/* What a job's sprandom comes to, from its sizes alone. */
struct iob_spr_plan {
	uint64_t blocks;        /* the file's blocks (the fresh writes' domain) */
	uint64_t writes;        /* physical blocks: the writes' cap (fio's io_size) */
	uint64_t region_writes; /* writes a region takes */
	uint64_t ring;          /* blocks the ring of writes to repeat holds */
	uint64_t cache_bytes;   /* spr_cs: 0, or the repeats wait for the region's end */
	uint32_t regions;
	double op; /* over-provisioning, in (0, 1) */
};

/* The plan of a file of logical bytes in blocks of bs, for regions, op and
 * cache bytes; 0, or -EINVAL with one line in err: op outside (0, 1), no
 * region, more regions than physical blocks, a cache larger than a region. */
int iob_spr_plan(uint64_t logical, uint64_t bs, uint32_t regions, double op, uint64_t cache, struct iob_spr_plan *p,
		 char *err, size_t errlen);
/* The bytes a stream's sprandom state holds (its probabilities, its ring). */
uint64_t iob_spr_bytes(const struct iob_spr_plan *p);
/* Region r's invalidation probability, in 1/IOB_SPR_PRECISION, for n
 * regions and over-provisioning op, written into out[0 .. n-1]. */
void iob_spr_curve(uint32_t n, double op, uint16_t *out);
/* op: a decimal fraction strictly between 0 and 1 ("0.15"). */
int iob_spr_op_parse(const char *text, double *op, char *err, size_t errlen);

/* One stream's order. */
struct iob_spr {
	struct iob_spr_plan p;
	uint16_t *pct; /* per region */
	uint64_t *ring;
	uint64_t tail, committed, staged; /* the ring: committed ones are written again, staged ones wait */
	uint64_t kept[2];                 /* blocks kept by the region of each parity */
	uint64_t left;                    /* fresh writes the region still takes */
	uint64_t slot, done, full;        /* fresh blocks drawn, writes given, keeps the full ring dropped */
	uint32_t region;
	unsigned parity;
	uint64_t seed, rng;
	struct iob_perm perm;
};

/* Allocate and start; 0, or -ENOMEM. */
int iob_spr_init(struct iob_spr *s, const struct iob_spr_plan *p, uint64_t seed);
/* The order from its start again (the same blocks in the same order). */
void iob_spr_reset(struct iob_spr *s);
/* The next write's block: 1, or 0 when the order is done. */
int iob_spr_next(struct iob_spr *s, uint64_t *block);
void iob_spr_free(struct iob_spr *s);

#endif /* IOBENCH_SPR_H */
