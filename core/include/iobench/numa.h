/*
 * iobench/numa.h - where a job's streams run and take their memory: the
 * keys numa_cpu_nodes and numa_mem_policy (docs/profiles.md, "NUMA";
 * fio's keys of the same names).
 *
 * The texts are parsed here (iob_numa_parse: the setters' check, one line
 * naming the bad value), held against this machine's nodes before anything
 * is created (iob_numa_check: check.c), and put in force by each stream on
 * its own thread before it opens its files and allocates its buffers
 * (iob_numa_enter, engine.c), the thread's former placement put back when
 * the phase ends (iob_numa_leave: a lone job runs on the main thread).
 * The system calls are os.h's (iob_place_*): sched_setaffinity to the
 * CPUs of the nodes (sysfs's nodeN/cpulist), set_mempolicy with the mode
 * and nodes.  Windows builds refuse the keys.
 */
#ifndef IOBENCH_NUMA_H
#define IOBENCH_NUMA_H

#include <stddef.h>
#include <stdint.h>

#include "iobench/os.h"

/* numa_mem_policy's modes: Linux's MPOL_* + 1 (a zeroed struct asks nothing) */
enum iob_numa_mem {
	IOB_NUMA_MEM_NONE = 0, /* not given: the thread's policy is left as it is */
	IOB_NUMA_MEM_DEFAULT,
	IOB_NUMA_MEM_PREFER,
	IOB_NUMA_MEM_BIND,
	IOB_NUMA_MEM_INTERLEAVE,
	IOB_NUMA_MEM_LOCAL,
};

struct iob_numa {
	int cpu;     /* numa_cpu_nodes given */
	int cpu_all; /* "all": every node with CPUs */
	uint64_t cpu_nodes[IOB_PLACE_WORDS];
	int mem;     /* enum iob_numa_mem; zeroed: nothing asked */
	int mem_all; /* "all" (interleave's default): every node with memory */
	uint64_t mem_nodes[IOB_PLACE_WORDS];
};

/* The two keys' texts ("" each: nothing) into *out: 0, or -EINVAL with one
 * line in err naming the bad value.  A node list is N, A-B, lists of them
 * with ',', or all; nodes below 1024. */
int iob_numa_parse(const char *cpu_nodes, const char *mem_policy, struct iob_numa *out, char *err,
		   size_t errlen);
/* Does it ask for anything? */
int iob_numa_active(const struct iob_numa *n);
/* Every node it names exists on this machine, with CPUs (numa_cpu_nodes)
 * or memory (numa_mem_policy): 0, or -EINVAL / -ENOTSUP with one line. */
int iob_numa_check(const char *cpu_nodes, const char *mem_policy, char *err, size_t errlen);
/* Put n in force on the calling thread, its former placement in *saved:
 * 0, or -errno with one line in err (the call and the CPUs or nodes). */
int iob_numa_enter(const struct iob_numa *n, struct iob_place *saved, char *err, size_t errlen);
/* Put back what iob_numa_enter saved. */
void iob_numa_leave(const struct iob_place *saved);

#endif
