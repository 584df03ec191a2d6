/*
 * phase.c - the words of a phase (iobench/phase.h): beside its header, so
 * every layer that names a phase (the engine, the result model, the runner)
 * depends only on phase.h, never on the job spec's module.
 */
#include "iobench/phase.h"

#include <stddef.h>

/* The word of value v in a table of n words indexed by the enum; "?" for
 * a value the table does not name. */
static const char *word_of(const char *const *words, size_t n, unsigned v)
{
	return v < n && words[v] ? words[v] : "?";
}

const char *iob_phase_name(enum iob_phase p)
{
	static const char *const words[] = {[IOB_PHASE_WRITE] = "write", [IOB_PHASE_READ] = "read",
					    [IOB_PHASE_VERIFY] = "verify", [IOB_PHASE_MIXED] = "mixed"};
	return word_of(words, sizeof words / sizeof words[0], (unsigned)p);
}

size_t iob_phase_order(uint32_t phases, enum iob_phase out[4])
{
	static const enum iob_phase plain[] = {IOB_PHASE_WRITE, IOB_PHASE_READ, IOB_PHASE_VERIFY, IOB_PHASE_MIXED},
				    mixed_first[] = {IOB_PHASE_WRITE, IOB_PHASE_READ, IOB_PHASE_MIXED, IOB_PHASE_VERIFY};
	const int after = (phases & IOB_PHASE_BIT(IOB_PHASE_MIXED)) && (phases & IOB_PHASE_BIT(IOB_PHASE_VERIFY));
	const enum iob_phase *order = after ? mixed_first : plain;
	size_t n = 0;
	for (size_t i = 0; i < 4; i++)
		if (phases & IOB_PHASE_BIT(order[i]))
			out[n++] = order[i];
	return n;
}

const char *iob_lat_timing_name(enum iob_lat_timing l)
{
	static const char *const words[] = {
	    [IOB_LATENCY_SAMPLED] = "sampled", [IOB_LATENCY_EVERY] = "every", [IOB_LATENCY_OFF] = "off"};
	return word_of(words, sizeof words / sizeof words[0], (unsigned)l);
}
