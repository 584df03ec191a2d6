/*
 * counter_cost.c - what the per-phase storage counter reads cost (issue 23):
 * the engine's iob_proc_io (one at each edge of a phase's window), a
 * stream's iob_proc_thread_io, and the runner's iob_cache_unwritten (once
 * per written file, after the phase).  Each is called 1000 times in a row,
 * 5 rounds; the fastest round is printed, in us per call.
 *
 * Usage: counter_cost FILE   (FILE: a file to probe with cachestat)
 */
#include <stdint.h>
#include <stdio.h>

#include "iobench/os.h"

#define CALLS 1000
#define ROUNDS 5

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: counter_cost FILE\n");
		return 2;
	}
	uint64_t a, b, c, d, best[3] = {UINT64_MAX, UINT64_MAX, UINT64_MAX};
	int bad = 0;
	for (int r = 0; r < ROUNDS; r++) {
		uint64_t t[4];
		t[0] = iob_now_ns();
		for (int i = 0; i < CALLS; i++)
			bad |= iob_proc_io(&a, &b, &c, &d) != 0;
		t[1] = iob_now_ns();
		for (int i = 0; i < CALLS; i++)
			bad |= iob_proc_thread_io(&a, &b, &c, &d) != 0;
		t[2] = iob_now_ns();
		for (int i = 0; i < CALLS; i++)
			bad |= iob_cache_unwritten(argv[1], &a) != 0;
		t[3] = iob_now_ns();
		for (int k = 0; k < 3; k++)
			best[k] = t[k + 1] - t[k] < best[k] ? t[k + 1] - t[k] : best[k];
	}
	if (bad) {
		fprintf(stderr, "counter_cost: a counter could not be read here\n");
		return 1;
	}
	printf("iob_proc_io (/proc/self/io)              %.2f us per call\n", (double)best[0] / CALLS / 1000);
	printf("iob_proc_thread_io (/proc/thread-self/io) %.2f us per call\n", (double)best[1] / CALLS / 1000);
	printf("iob_cache_unwritten (cachestat, %s)   %.2f us per call\n", argv[1], (double)best[2] / CALLS / 1000);
	return 0;
}
