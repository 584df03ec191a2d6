/*
 * lattarget.c - latency_target's depth search (iobench/lattarget.h).
 */
#include "iobench/lattarget.h"

void iob_lat_search_init(struct iob_lat_search *s, uint32_t max, int keep_going)
{
	s->max = max ? max : 1;
	s->depth = 1;
	s->low = 1;
	s->high = s->max;
	s->stable = 0;
	s->failed = 0;
	s->keep_going = keep_going;
	s->final = 0;
}

static enum iob_lat_next lat_fail(struct iob_lat_search *s, int now)
{
	if (s->depth == 1)
		return now ? IOB_LAT_FAILED : IOB_LAT_DRAIN; /* nothing lower to try */
	s->high = s->depth;
	s->failed = 1;
	if (s->low == s->depth)
		s->low--;
	s->depth = (s->depth + s->low) / 2;
	s->stable = 0;
	s->final = 0;
	return IOB_LAT_DRAIN;
}

static enum iob_lat_next lat_pass(struct iob_lat_search *s)
{
	const uint32_t was = s->depth;
	s->low = was;
	if (was + 1 == s->high && ++s->stable >= 3) {
		s->high++; /* passed three times just below it: try the failed depth again */
		s->stable = 0;
	}
	uint32_t next = s->failed ? (was + s->high) / 2 : was * 2;
	s->depth = next > s->max ? s->max : next;
	if (s->keep_going || s->depth != was)
		return IOB_LAT_GO;
	if (s->final)
		return IOB_LAT_DONE;
	s->final = 1;
	return IOB_LAT_SETTLE;
}

enum iob_lat_next iob_lat_search_verdict(struct iob_lat_search *s, int pass, int now)
{
	return pass ? lat_pass(s) : lat_fail(s, now);
}
