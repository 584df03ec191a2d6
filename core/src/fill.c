/*
 * fill.c - data content (iobench/pattern.h, docs/profiles.md "Data
 * content"): what compressing and deduplicating storage sees.  Each block of
 * block_size bytes at a block-aligned offset:
 *
 *  - dedupe_pct: a share of the blocks are a copy of block 0, chosen by a
 *    low-discrepancy sequence of the block index (frac(i * golden ratio) <
 *    share), so over any run of blocks the share holds within a block or
 *    two, and no block's choice depends on another's;
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

/* One whole block of bs bytes at block offset `start`. */
static void block_fill(const struct iob_pattern *p, unsigned char *dst, size_t bs, uint64_t start)
{
	uint64_t src = block_is_dup(p, start / bs) ? 0 : start;
	if (!p->compress_pct) {
		iob_pattern_fill_raw(p, dst, bs, src);
		return;
	}
	size_t chunk = p->compress_chunk ? (size_t)p->compress_chunk : 512;
	uint64_t seed = p->seed ^ 0x636f6d7072657373ull; /* "compress" */
	for (size_t at = 0; at < bs; at += chunk) {
		size_t n = bs - at < chunk ? bs - at : chunk;
		size_t rnd = n - n * p->compress_pct / 100;
		iob_pattern_fill_random(seed, dst + at, rnd, src + at);
		if (p->kind == IOB_PAT_RANDOM)
			memset(dst + at + rnd, 0, n - rnd);
		else
			iob_pattern_fill_raw(p, dst + at + rnd, n - rnd, src + at + rnd);
	}
}

void iob_fill_shaped(const struct iob_pattern *p, void *vbuf, size_t len, uint64_t off)
{
	unsigned char *buf = vbuf, *tmp = NULL;
	uint64_t bs = p->block_size;
	if (!bs || bs > ((uint64_t)1 << 31)) {
		iob_pattern_fill_raw(p, buf, len, off);
		return;
	}
	for (uint64_t pos = off; pos < off + len;) {
		uint64_t start = pos - pos % bs, end = start + bs, stop = end < off + len ? end : off + len;
		if (start >= off && end <= off + len) {
			block_fill(p, buf + (start - off), (size_t)bs, start);
		} else {
			if (!tmp && !(tmp = malloc((size_t)bs))) {
				iob_pattern_fill_raw(p, buf + (pos - off), (size_t)(stop - pos), pos);
				pos = stop;
				continue;
			}
			block_fill(p, tmp, (size_t)bs, start);
			memcpy(buf + (pos - off), tmp + (pos - start), (size_t)(stop - pos));
		}
		pos = stop;
	}
	free(tmp);
}
