/*
 * perm.c - the keys of a bijection of [0, n) (iobench/perm.h).
 */
#include "iobench/perm.h"

void iob_perm_init(struct iob_perm *p, uint64_t n, uint64_t seed)
{
	unsigned bits = 1;
	while (bits < 64 && ((uint64_t)1 << bits) < n)
		bits++;
	p->n = n;
	p->mask = bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
	p->shift = bits / 2 + 1 < bits ? bits / 2 + 1 : 1;
	p->add = iob_splitmix64(&seed);
	p->mul1 = iob_splitmix64(&seed) | 1u;
	p->mul2 = iob_splitmix64(&seed) | 1u;
}
