/*
 * iobench/load.h - the job keys the engine reads as the job holds them.
 *
 * struct iob_job (job.h) and struct iob_phase_spec (engine.h) each carry one
 * struct iob_load, and the runner copies the job's into every phase's spec
 * in one assignment (runner_phase.c).  A key that the engine uses as it is
 * set (no rule across keys turns it into something else first) is a field
 * here: its row of the key table names it FIELD(load.NAME) (keys.c), and the
 * engine reads spec->load.NAME.  Nothing is written in between: adding such
 * a key is its row, its field here, its use in the engine, and fio's row
 * when fio has the key (docs/architecture.md, "Job keys: one table").
 */
#ifndef IOBENCH_LOAD_H
#define IOBENCH_LOAD_H

#include <stdint.h>

struct iob_load {
	int verify_fatal; /* verify: the phase ends at the first bad block (status mismatch) */
	/* write and mixed phases: after every verify_backlog blocks written, read back and
	 * check the oldest unverified ones, verify_backlog_batch (0: verify_backlog) of
	 * them, inside the phase (fio's verify_backlog); 0: off */
	uint64_t verify_backlog, verify_backlog_batch;
	uint64_t fsync_every; /* write: every open file synced after every this many writes (timed); 0: never */
	uint64_t prio_class, prio_level; /* each stream's thread's I/O priority (ioprio_set); class 0: left alone */
	uint64_t seq_ops;     /* sequential: the stream's phase ends after this many I/Os; 0: after its loops */
	/* latency_target's depth search (lattarget.h; the queued loop) */
	uint64_t latency_target;	 /* ns; 0: off, the job's iodepth throughout */
	uint64_t latency_window;	 /* ns: a window of the search */
	char latency_percentile[16];	 /* the share of a window's I/Os within the target, percent */
	int latency_run;		 /* keep adjusting the depth for the whole phase */
};

#endif /* IOBENCH_LOAD_H */
