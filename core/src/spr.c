/*
 * spr.c - fio's sprandom write order (iobench/spr.h; docs/fio.md,
 * "sprandom"): its plan from the job's sizes, the validity curve, and the
 * order drawn one write at a time.
 */
#include "iobench/spr.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int iob_spr_op_parse(const char *text, double *op, char *err, size_t errlen)
{
	char *end = NULL;
	double v = text[0] ? strtod(text, &end) : 0;
	if (!text[0] || !end || *end || !(v > 0 && v < 1)) {
		snprintf(err, errlen, "spr_op '%s' is not a fraction strictly between 0 and 1 (e.g. 0.15)", text);
		return -EINVAL;
	}
	*op = v;
	return 0;
}

/* The model's validity at the start of region i of n, before resampling:
 * evenly spaced from 1 (all valid) down to the validity of the block the
 * garbage collector picks, 1 - 1/WA, with WA = 0.5/op + 0.7. */
static double validity(uint32_t i, uint32_t n, double gc)
{
	return n == 1 ? 1.0 : 1.0 + (double)i * ((gc - 1.0) / ((double)n - 1.0));
}

/* Walk the curve (x: the space each validity level takes, summed; y: the
 * validity) and resample it at n evenly spaced x, by linear interpolation;
 * region r (first written first) gets the resampled point n - 1 - r.  out,
 * if not NULL, gets each region's invalidation in 1/IOB_SPR_PRECISION; the
 * return is region 0's validity. */
static double curve(uint32_t n, double op, uint16_t *out)
{
	const double wa = 0.5 / op + 0.7, gc = 1.0 - 1.0 / wa;
	if (n == 1) {
		if (out)
			out[0] = 0;
		return 1.0;
	}
	double xlast = 0;
	for (uint32_t i = 0; i < n; i++)
		xlast += 1.0 / validity(i, n, gc);
	const double x0 = 1.0 / validity(0, n, gc), step = (xlast - x0) / ((double)n - 1.0);
	uint32_t i = 0;
	double xi = x0, xi1 = x0 + 1.0 / validity(1, n, gc), y = 1.0;
	for (uint32_t k = 0; k < n; k++) {
		const double nx = x0 + (double)k * step;
		if (nx <= x0) {
			y = validity(0, n, gc);
		} else if (nx >= xlast) {
			y = validity(n - 1, n, gc);
		} else {
			while (nx > xi1 && i + 2 < n) {
				i++;
				xi = xi1;
				xi1 = xi + 1.0 / validity(i + 1, n, gc);
			}
			const double y1 = validity(i, n, gc), y2 = validity(i + 1, n, gc);
			y = fabs(xi1 - xi) < 1e-9 ? y1 : y1 + (y2 - y1) * ((nx - xi) / (xi1 - xi));
		}
		if (out)
			out[n - 1 - k] = (uint16_t)lround((1.0 - y) * IOB_SPR_PRECISION);
	}
	return y; /* k = n - 1: region 0's */
}

void iob_spr_curve(uint32_t n, double op, uint16_t *out)
{
	if (n)
		curve(n, op, out);
}

int iob_spr_plan(uint64_t logical, uint64_t bs, uint32_t regions, double op, uint64_t cache, struct iob_spr_plan *p,
		 char *err, size_t errlen)
{
	memset(p, 0, sizeof *p);
	if (!(op > 0 && op < 1)) {
		snprintf(err, errlen, "spr_op %g is not strictly between 0 and 1", op);
		return -EINVAL;
	}
	if (!regions) {
		snprintf(err, errlen, "spr_num_regions 0: sprandom needs at least one region");
		return -EINVAL;
	}
	if (!bs || logical / bs == 0) {
		snprintf(err, errlen, "sprandom: the file (%llu bytes) holds no block of %llu bytes",
			 (unsigned long long)logical, (unsigned long long)bs);
		return -EINVAL;
	}
	/* the physical size: the logical one and its over-provisioning, in whole blocks */
	double extra = ceil((double)logical * op);
	if (extra >= 18446744073709551616.0 || (uint64_t)extra > UINT64_MAX - logical) {
		snprintf(err, errlen, "sprandom: %llu bytes and spr_op %g are over 2^64 bytes", (unsigned long long)logical,
			 op);
		return -ERANGE;
	}
	uint64_t physical = logical + (uint64_t)extra;
	physical -= physical % bs;
	const uint64_t region_bytes = physical / regions;
	if (region_bytes < bs) {
		snprintf(err, errlen,
			 "spr_num_regions %u is more than the %llu blocks of %llu bytes sprandom writes (size plus "
			 "spr_op): a region needs at least one",
			 regions, (unsigned long long)(physical / bs), (unsigned long long)bs);
		return -EINVAL;
	}
	if (cache > region_bytes) {
		snprintf(err, errlen, "spr_cs %llu is larger than a region (%llu bytes: size plus spr_op over %u regions)",
			 (unsigned long long)cache, (unsigned long long)region_bytes, regions);
		return -EINVAL;
	}
	p->blocks = logical / bs;
	p->writes = physical / bs;
	p->region_writes = region_bytes / bs;
	p->regions = regions;
	p->op = op;
	p->cache_bytes = cache;
	/* the ring: region 0's expected keeps and six standard deviations
	 * (the most kept of any region), twice with spr_cs (a region's keeps
	 * wait for the next region's end) */
	const double v0 = curve(regions, op, NULL), rw = (double)p->region_writes;
	uint64_t ring = (uint64_t)ceil(rw * (1.0 - v0) + 6.0 * sqrt(rw * v0 * (1.0 - v0)));
	p->ring = (ring ? ring : 1) * (cache ? 2 : 1);
	return 0;
}

uint64_t iob_spr_bytes(const struct iob_spr_plan *p)
{
	return (uint64_t)p->regions * sizeof(uint16_t) + p->ring * sizeof(uint64_t);
}

int iob_spr_init(struct iob_spr *s, const struct iob_spr_plan *p, uint64_t seed)
{
	memset(s, 0, sizeof *s);
	s->p = *p;
	s->seed = seed;
	s->pct = malloc((size_t)p->regions * sizeof *s->pct);
	s->ring = malloc((size_t)p->ring * sizeof *s->ring);
	if (!s->pct || !s->ring) {
		iob_spr_free(s);
		return -ENOMEM;
	}
	iob_spr_curve(p->regions, p->op, s->pct);
	iob_spr_reset(s);
	return 0;
}

void iob_spr_reset(struct iob_spr *s)
{
	s->tail = s->committed = s->staged = 0;
	s->kept[0] = s->kept[1] = 0;
	s->slot = s->done = s->full = 0;
	s->region = 0;
	s->parity = 0;
	s->left = s->p.region_writes;
	s->rng = s->seed ^ 0x243f6a8885a308d3ull;
	iob_perm_init(&s->perm, s->p.blocks, s->seed ^ 0x13198a2e03707344ull);
}

void iob_spr_free(struct iob_spr *s)
{
	free(s->pct);
	free(s->ring);
	s->pct = NULL;
	s->ring = NULL;
}

/* Keep block b, with the current region's probability, to be written again
 * in the next region (a draw from 0 to IOB_SPR_PRECISION inclusive, kept at
 * or below the region's share, as fio draws).  Past the last region nothing
 * is kept: the order ends before the keeps would be written. */
static void keep_maybe(struct iob_spr *s, uint64_t b)
{
	const uint64_t v = ((iob_splitmix64(&s->rng) >> 32) * (IOB_SPR_PRECISION + 1)) >> 32;
	if (s->region >= s->p.regions || v > s->pct[s->region])
		return;
	if (s->committed + s->staged == s->p.ring) {
		s->full++; /* not kept (fio stops on an assertion) */
		return;
	}
	s->ring[(s->tail + s->committed + s->staged) % s->p.ring] = b;
	s->staged++;
	s->kept[s->parity ^ 1]++;
}

/* A block the region before kept, if any is left. */
static int repeat(struct iob_spr *s, uint64_t *b)
{
	if (!s->committed)
		return 0;
	*b = s->ring[s->tail];
	s->tail = (s->tail + 1) % s->p.ring;
	s->committed--;
	return 1;
}

int iob_spr_next(struct iob_spr *s, uint64_t *block)
{
	const int cached = s->p.cache_bytes != 0;
	uint64_t b;
	if (s->done >= s->p.writes) /* the physical size written (fio's io_size) */
		return 0;
	if (!cached && repeat(s, &b)) { /* the region before's keeps first */
		keep_maybe(s, b);
		goto out;
	}
	if (!s->left) {
		if (cached && repeat(s, &b)) { /* spr_cs: the keeps after the region's fresh writes */
			keep_maybe(s, b);
			goto out;
		}
		if (s->region >= s->p.regions)
			return 0;
		/* the next region: this one's keeps become writable, and take
		 * their share of the next one's writes */
		s->kept[s->parity] = 0;
		s->region++;
		s->parity ^= 1;
		s->left = s->kept[s->parity] < s->p.region_writes ? s->p.region_writes - s->kept[s->parity] : 0;
		s->committed += s->staged;
		s->staged = 0;
	}
	if (s->slot == s->p.blocks) { /* every block written once */
		if (cached && repeat(s, &b))
			goto out;
		return 0;
	}
	b = iob_perm_at(&s->perm, s->slot++);
	if (s->left)
		s->left--;
	keep_maybe(s, b);
out:
	s->done++;
	*block = b;
	return 1;
}
