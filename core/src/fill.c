/*
 * fill.c - data content (iobench/pattern.h, docs/profiles.md "Data
 * content"): what compressing and deduplicating storage sees.  Each block of
 * block_size bytes at a block-aligned offset:
 *
 *  - dedupe_pct: a share of the blocks are a copy of another, chosen by a
 *    low-discrepancy sequence of the block index (frac(i * golden ratio) <
 *    share), so over any run of blocks the share holds within a block or
 *    two, and no block's choice depends on another's; the copy is of block
 *    0 (dedupe_mode repeat) or of a block of the working set (working_set,
 *    block_source below);
 *  - compress_pct: each chunk of compress_chunk bytes (512 by default, from
 *    the block's start) is random bytes for its first (100 - pct)% and the
 *    pattern's bytes (zeros for the random pattern) for the rest.
 *
 * A pure function of the offset, like every pattern: verify checks it.
 */
#include <stdlib.h>
#include <string.h>

#include "iobench/pattern.h"

#define GOLDEN_FRAC 0x9e3779b97f4a7c15ull /* 2^64 / golden ratio */

static int block_is_dup(const struct iob_pattern *p, uint64_t index)
{
	if (!p->dedupe_pct || index == 0)
		return 0;
	/* frac(index * phi), its top 32 bits: below pct% */
	uint64_t f = (index * GOLDEN_FRAC) >> 32;
	return f * 100 < (uint64_t)p->dedupe_pct << 32;
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* The seed of a working-set member's unique blocks (each job its own). */
static uint64_t member_seed(const struct iob_pattern *p, uint32_t member)
{
	return p->seed ^ mix64(0x776f726b696e6773ull + member); /* "workings" */
}

void iob_fill_bind(struct iob_pattern *p, uint64_t file_size, uint64_t bs, uint32_t place, uint32_t members)
{
	if (p->dedupe_mode != IOB_DEDUPE_WORKING_SET || !p->dedupe_pct)
		return;
	p->dedupe_blocks = bs ? file_size / bs : 0;
	p->dedupe_member = 1 + place;
	p->dedupe_members = p->dedupe_global ? members : 0;
}

/*
 * Where block `index`'s bytes come from: the seed and the block offset of
 * the unique block it copies (itself when it is not a copy).
 *  - repeat: a copy is block 0's;
 *  - working_set: the working set is the file's first unique blocks, as
 *    many as dedupe_ws_pct of the file's blocks; a copy is one of them,
 *    drawn by a hash of its index (the first R blocks hold about W unique
 *    ones, R = W / (1 - share); the nearest unique block at or below the
 *    draw).  With dedupe_global the draw first picks a member, and takes
 *    its block among its first R / members: the working set is spread
 *    evenly over the jobs, each writing its own unique blocks.
 */
static void block_source(const struct iob_pattern *p, uint64_t index, uint64_t *seed, uint64_t *src_index)
{
	int ws = p->dedupe_mode == IOB_DEDUPE_WORKING_SET;
	*seed = ws ? member_seed(p, p->dedupe_member) : p->seed;
	*src_index = index;
	if (!block_is_dup(p, index))
		return;
	*src_index = 0;
	if (!ws || p->dedupe_pct >= 100)
		return;
	uint64_t n = p->dedupe_blocks ? p->dedupe_blocks : index + 1;
	uint64_t w = n * (p->dedupe_ws_pct ? p->dedupe_ws_pct : 5) / 100;
	if (!w)
		w = 1;
	uint64_t r = (w * 100 + (100 - p->dedupe_pct) - 1) / (100 - p->dedupe_pct);
	if (r > n)
		r = n;
	uint64_t h = mix64(p->seed ^ mix64(index ^ ((uint64_t)p->dedupe_member << 40)));
	if (p->dedupe_members > 1) {
		*seed = member_seed(p, 1 + (uint32_t)(h % p->dedupe_members));
		h = mix64(h);
		r /= p->dedupe_members;
		if (!r)
			r = 1;
	}
	uint64_t j = h % r;
	while (j && block_is_dup(p, j))
		j--;
	*src_index = j;
}

/* One whole block of bs bytes at block offset `start`. */
static void block_fill(const struct iob_pattern *p, unsigned char *dst, size_t bs, uint64_t start)
{
	uint64_t seed, si;
	block_source(p, start / bs, &seed, &si);
	uint64_t src = si * bs;
	struct iob_pattern q = *p;
	q.seed = seed;
	if (!p->compress_pct) {
		iob_pattern_fill_raw(&q, dst, bs, src);
		return;
	}
	size_t chunk = p->compress_chunk ? (size_t)p->compress_chunk : 512;
	uint64_t cseed = seed ^ 0x636f6d7072657373ull; /* "compress" */
	for (size_t at = 0; at < bs; at += chunk) {
		size_t n = bs - at < chunk ? bs - at : chunk;
		size_t rnd = n - n * p->compress_pct / 100;
		iob_pattern_fill_random(cseed, dst + at, rnd, src + at);
		if (p->kind == IOB_PAT_RANDOM)
			memset(dst + at + rnd, 0, n - rnd);
		else
			iob_pattern_fill_raw(&q, dst + at + rnd, n - rnd, src + at + rnd);
	}
}

void iob_fill_units(const struct iob_pattern *p, void *vbuf, size_t len, uint64_t off, uint64_t unit,
		    iob_unit_fill_fn whole, iob_unit_fill_fn part)
{
	unsigned char *buf = vbuf, *tmp = NULL;
	for (uint64_t pos = off; pos < off + len;) {
		uint64_t start = pos - pos % unit, end = start + unit, stop = end < off + len ? end : off + len;
		if (start >= off && end <= off + len) {
			whole(p, buf + (start - off), (size_t)unit, start);
		} else { /* a part of a unit: built whole aside, its part copied */
			if (!tmp && !(tmp = malloc((size_t)unit))) {
				part(p, buf + (pos - off), (size_t)(stop - pos), pos);
				pos = stop;
				continue;
			}
			whole(p, tmp, (size_t)unit, start);
			memcpy(buf + (pos - off), tmp + (pos - start), (size_t)(stop - pos));
		}
		pos = stop;
	}
	free(tmp);
}

static void raw_part(const struct iob_pattern *p, unsigned char *dst, size_t n, uint64_t off)
{
	iob_pattern_fill_raw(p, dst, n, off);
}

void iob_fill_shaped(const struct iob_pattern *p, void *buf, size_t len, uint64_t off)
{
	uint64_t bs = p->block_size;
	if (!bs || bs > ((uint64_t)1 << 31)) {
		iob_pattern_fill_raw(p, buf, len, off);
		return;
	}
	iob_fill_units(p, buf, len, off, bs, block_fill, raw_part);
}
