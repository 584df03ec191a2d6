/*
 * numa.c - numa_cpu_nodes and numa_mem_policy (iobench/numa.h): their
 * texts, this machine's nodes (sysfs, through os.h), and the placement of
 * the calling thread.
 */
#include "iobench/numa.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NODE_BITS (IOB_PLACE_WORDS * 64)

static int bit(const uint64_t *m, unsigned i)
{
	return (int)(m[i / 64] >> (i % 64) & 1);
}

/* "N", "A-B", lists of them with ',' (and "all" when all is not NULL):
 * 0, or -EINVAL.  Also sysfs's lists ("0-3,8"; "" is none). */
static int list_parse(const char *text, uint64_t *mask, int *all)
{
	memset(mask, 0, IOB_PLACE_WORDS * sizeof *mask);
	if (all)
		*all = 0;
	if (all && strcmp(text, "all") == 0)
		return *all = 1, 0;
	const char *p = text;
	while (*p) {
		char *end;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		unsigned long a = strtoul(p, &end, 10), b = a;
		if (*end == '-') {
			if (end[1] < '0' || end[1] > '9')
				return -EINVAL;
			b = strtoul(end + 1, &end, 10);
		}
		if (a > b || b >= NODE_BITS || (*end && *end != ','))
			return -EINVAL;
		for (unsigned long i = a; i <= b; i++)
			mask[i / 64] |= 1ull << (i % 64);
		p = *end ? end + 1 : end;
		if (*end && !*p)
			return -EINVAL; /* a trailing ',' */
	}
	return 0;
}

/* mask as "0-1,4" */
static void list_text(const uint64_t *mask, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	for (unsigned i = 0; i < NODE_BITS && o < len; i++) {
		if (!bit(mask, i))
			continue;
		unsigned j = i;
		while (j + 1 < NODE_BITS && bit(mask, j + 1))
			j++;
		o += (size_t)snprintf(buf + o, len - o, j > i ? "%s%u-%u" : "%s%u", o ? "," : "", i, j);
		i = j;
	}
}

static const char *const mem_words[] = {"default", "prefer", "bind", "interleave", "local"};

static int policy_parse(const char *text, struct iob_numa *out, char *err, size_t errlen)
{
	const char *colon = strchr(text, ':');
	size_t wl = colon ? (size_t)(colon - text) : strlen(text);
	const char *list = colon ? colon + 1 : NULL;
	int mode = IOB_NUMA_MEM_NONE;
	for (int i = 0; i < 5; i++)
		if (strlen(mem_words[i]) == wl && strncmp(text, mem_words[i], wl) == 0)
			mode = IOB_NUMA_MEM_DEFAULT + i;
	const char *bad = NULL;
	if (mode == IOB_NUMA_MEM_NONE)
		bad = "give default, prefer:NODE, bind:NODES, interleave[:NODES] or local";
	else if ((mode == IOB_NUMA_MEM_DEFAULT || mode == IOB_NUMA_MEM_LOCAL) && list)
		bad = "default and local take no nodes";
	else if ((mode == IOB_NUMA_MEM_PREFER || mode == IOB_NUMA_MEM_BIND) && (!list || !*list))
		bad = mode == IOB_NUMA_MEM_PREFER ? "prefer needs one node (prefer:0)" : "bind needs nodes (bind:0-1)";
	else if (mode == IOB_NUMA_MEM_PREFER && (strspn(list, "0123456789") != strlen(list) ||
						  list_parse(list, out->mem_nodes, NULL) != 0))
		bad = "prefer takes one node number";
	else if (list && mode != IOB_NUMA_MEM_PREFER && list_parse(list, out->mem_nodes, &out->mem_all) != 0)
		bad = "its nodes are not N, A-B, lists of them with ',', or all";
	if (bad) {
		snprintf(err, errlen, "numa_mem_policy '%s': %s", text, bad);
		return -EINVAL;
	}
	out->mem = mode;
	if (mode == IOB_NUMA_MEM_INTERLEAVE && !list)
		out->mem_all = 1; /* every node with memory, as fio's interleave without nodes */
	return 0;
}

int iob_numa_parse(const char *cpu_nodes, const char *mem_policy, struct iob_numa *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	if (cpu_nodes[0]) {
		if (list_parse(cpu_nodes, out->cpu_nodes, &out->cpu_all) != 0) {
			snprintf(err, errlen,
				 "numa_cpu_nodes '%s' is not a list of nodes: give N, A-B, lists of them with ',', or all "
				 "(nodes below %d)",
				 cpu_nodes, NODE_BITS);
			return -EINVAL;
		}
		out->cpu = 1;
	}
	return mem_policy[0] ? policy_parse(mem_policy, out, err, errlen) : 0;
}

int iob_numa_active(const struct iob_numa *n)
{
	return n->cpu || n->mem != IOB_NUMA_MEM_NONE;
}

/* the sysfs list NAME ("online", "has_cpu", "node3/cpulist") into mask */
static int sys_list(const char *name, uint64_t *mask)
{
	char buf[4096];
	int rc = iob_numa_sys_read(name, buf, sizeof buf);
	return rc ? rc : list_parse(buf, mask, NULL);
}

/* the nodes of "all": those of which (has_cpu, has_memory), else every online one */
static int all_nodes(const char *which, uint64_t *mask)
{
	return sys_list(which, mask) == 0 ? 0 : sys_list("online", mask);
}

static int node_cpus(unsigned node, uint64_t *cpus)
{
	char name[48];
	snprintf(name, sizeof name, "node%u/cpulist", node);
	return sys_list(name, cpus);
}

static int empty(const uint64_t *m)
{
	for (int i = 0; i < IOB_PLACE_WORDS; i++)
		if (m[i])
			return 0;
	return 1;
}

/* each node of mask is online and has what the key needs */
static int nodes_exist(const char *key, const char *value, const uint64_t *mask, int cpu, char *err, size_t errlen)
{
	uint64_t online[IOB_PLACE_WORDS], mem[IOB_PLACE_WORDS], cpus[IOB_PLACE_WORDS];
	char have[256];
	int rc = sys_list("online", online);
	if (rc) {
		snprintf(err, errlen, "%s=%s: %s", key, value,
			 rc == -ENOTSUP ? "NUMA placement is not available in Windows builds"
					: "this system shows no NUMA nodes (no /sys/devices/system/node/online)");
		return rc == -ENOTSUP ? rc : -EINVAL;
	}
	int mem_known = !cpu && sys_list("has_memory", mem) == 0;
	list_text(online, have, sizeof have);
	for (unsigned i = 0; i < NODE_BITS; i++) {
		if (!bit(mask, i))
			continue;
		const char *why = !bit(online, i)			     ? "does not exist on this machine"
				  : cpu && (node_cpus(i, cpus) != 0 || empty(cpus)) ? "has no CPUs"
				  : mem_known && !bit(mem, i)			     ? "has no memory"
											     : NULL;
		if (why) {
			snprintf(err, errlen, "%s=%s: node %u %s (its nodes: %s)", key, value, i, why, have);
			return -EINVAL;
		}
	}
	return 0;
}

int iob_numa_check(const char *cpu_nodes, const char *mem_policy, char *err, size_t errlen)
{
	struct iob_numa n;
	int rc = iob_numa_parse(cpu_nodes, mem_policy, &n, err, errlen);
	if (rc || !iob_numa_active(&n))
		return rc;
	uint64_t none[IOB_PLACE_WORDS] = {0};
	if (n.cpu && (rc = nodes_exist("numa_cpu_nodes", cpu_nodes, n.cpu_all ? none : n.cpu_nodes, 1, err, errlen)))
		return rc;
	if (n.mem != IOB_NUMA_MEM_NONE)
		rc = nodes_exist("numa_mem_policy", mem_policy, n.mem_all ? none : n.mem_nodes, 0, err, errlen);
	return rc;
}

int iob_numa_enter(const struct iob_numa *n, struct iob_place *saved, char *err, size_t errlen)
{
	struct iob_place p;
	memset(&p, 0, sizeof p);
	p.mode = -1;
	int rc = iob_place_get(saved);
	const char *what = "sched_getaffinity or get_mempolicy";
	if (!n->cpu) /* put back only what is changed */
		saved->cpus_set = 0;
	if (n->mem == IOB_NUMA_MEM_NONE)
		saved->mode = -1;
	if (rc == 0 && n->cpu) {
		uint64_t nodes[IOB_PLACE_WORDS], cpus[IOB_PLACE_WORDS];
		what = "the CPUs of the nodes (sysfs)";
		if (n->cpu_all)
			rc = all_nodes("has_cpu", nodes);
		else
			memcpy(nodes, n->cpu_nodes, sizeof nodes);
		for (unsigned i = 0; rc == 0 && i < NODE_BITS; i++)
			if (bit(nodes, i) && (rc = node_cpus(i, cpus)) == 0)
				for (int w = 0; w < IOB_PLACE_WORDS; w++)
					p.cpus[w] |= cpus[w];
		p.cpus_set = 1;
	}
	if (rc == 0 && n->mem != IOB_NUMA_MEM_NONE) {
		p.mode = n->mem - IOB_NUMA_MEM_DEFAULT; /* Linux's MPOL_* */
		if (n->mem_all)
			rc = all_nodes("has_memory", p.nodes);
		else
			memcpy(p.nodes, n->mem_nodes, sizeof p.nodes);
	}
	if (rc == 0 && (rc = iob_place_set(&p, &what)) != 0)
		iob_numa_leave(saved); /* the affinity may be set already */
	if (rc) {
		char cpus[128], nodes[128];
		list_text(p.cpus, cpus, sizeof cpus);
		list_text(p.nodes, nodes, sizeof nodes);
		snprintf(err, errlen, "NUMA placement (CPUs %s, memory policy %s on nodes %s): %s: %s",
			 p.cpus_set ? cpus : "as they were", p.mode >= 0 && p.mode < 5 ? mem_words[p.mode] : "as it was",
			 nodes[0] ? nodes : "none", what, strerror(-rc));
		saved->cpus_set = 0;
		saved->mode = -1;
	}
	return rc;
}

void iob_numa_leave(const struct iob_place *saved)
{
	const char *what;
	(void)iob_place_set(saved, &what);
}
