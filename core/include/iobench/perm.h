/*
 * perm.h - a pseudo-random bijection of [0, n) and the generator its keys
 * come from: the random phase's order of blocks (the engine) and the scatter
 * of a skewed distribution's hot blocks over the file (shape.c) are the same
 * walk with different seeds.
 */
#ifndef IOBENCH_PERM_H
#define IOBENCH_PERM_H

#include <stdint.h>

/* splitmix64: the next of the sequence *s steps through. */
static inline uint64_t iob_splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A random permutation of [0, n) that needs no memory: a keyed bijection of
 * the smallest power-of-two domain covering n, walked until it lands inside
 * [0, n) (a bijection of the larger domain, restricted by cycle walking, is
 * a bijection of [0, n)).  The domain is under 2n, so a draw takes under two
 * walks on average, and none extra when n is a power of two.  Each step of
 * the bijection is one of a b-bit word: adding a key, multiplying by an odd
 * key (both invertible mod 2^b), and x ^= x >> s (invertible for s >= 1);
 * two rounds of multiply and shift mix the high bits into the low ones and
 * back, as a hash finaliser does, for about a dozen instructions a draw.
 * Random I/O uses it (random_map) so that a pass touches every block exactly
 * once: writes leave no hole, reads read each block once per pass. */
struct iob_perm {
	uint64_t n, mask;
	unsigned shift;
	uint64_t add, mul1, mul2;
};

/* The keys of [0, n)'s walk, drawn from seed. */
void iob_perm_init(struct iob_perm *p, uint64_t n, uint64_t seed);

static inline uint64_t iob_perm_at(const struct iob_perm *p, uint64_t x)
{
	const uint64_t mask = p->mask;
	const unsigned sh = p->shift;
	do {
		x = ((x + p->add) * p->mul1) & mask;
		x ^= x >> sh;
		x = (x * p->mul2) & mask;
		x ^= x >> sh;
	} while (x >= p->n);
	return x;
}

#endif /* IOBENCH_PERM_H */
