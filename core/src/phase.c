/*
 * phase.c - the words of a phase (iobench/phase.h): beside its header, so
 * every layer that names a phase (the engine, the result model, the runner)
 * depends only on phase.h, never on the job spec's module.
 */
#include "iobench/phase.h"

const char *iob_phase_name(enum iob_phase p)
{
	switch (p) {
	case IOB_PHASE_WRITE:
		return "write";
	case IOB_PHASE_READ:
		return "read";
	case IOB_PHASE_VERIFY:
		return "verify";
	case IOB_PHASE_MIXED:
		return "mixed";
	}
	return "?";
}

const char *iob_lat_timing_name(enum iob_lat_timing l)
{
	switch (l) {
	case IOB_LATENCY_SAMPLED:
		return "sampled";
	case IOB_LATENCY_EVERY:
		return "every";
	case IOB_LATENCY_OFF:
		return "off";
	}
	return "?";
}
