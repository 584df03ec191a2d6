/*
 * iobench/meta.h - the metadata job (workload = files, docs/metadata.md):
 * many small files in a tree per stream (or one shared tree), phases
 * mkdir, dirstat, create, write, stat, open, read, remove, rmdir, each
 * timed as a whole and per operation, as mdtest and elbencho measure them.
 * meta.c is the runner's room for it: check.c asks iob_meta_check before
 * anything is created, runner_phase.c hands such a job to iob_meta_run.
 */
#ifndef IOBENCH_META_H
#define IOBENCH_META_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include "iobench/job.h"

#define IOB_WORKLOAD_DATA 0
#define IOB_WORKLOAD_FILES 1

/* The run order (meta_phases is a mask of 1 << op).  Not part of any ABI:
 * records, outputs and plugins know a phase by its name only. */
enum iob_meta_op {
	IOB_META_MKDIR = 0,
	IOB_META_DIRSTAT,
	IOB_META_CREATE,
	IOB_META_WRITE,
	IOB_META_STAT,
	IOB_META_OPEN,
	IOB_META_READ,
	IOB_META_REMOVE,
	IOB_META_RMDIR,
	IOB_META_NOPS
};
/* "mkdir", "dirstat", "create", ... */
const char *iob_meta_op_name(enum iob_meta_op op);

/* The most items one stream may make (files key). */
#define IOB_META_FILES_MAX 100000000ull
/* The most directories one tree may have. */
#define IOB_META_DIRS_MAX 1000000ull

/* The job's shape checked before anything is created: keys, path and name
 * lengths, free inodes and space (statvfs) for every rank's streams.  *need:
 * the bytes the job will hold at once (for the suite's space check).  0, or
 * -errno with one line in err. */
int iob_meta_check(const struct iob_job *job, uint64_t *need, char *err, size_t errlen);

struct iob_run;
/* Run suite job j (a files job): its phases, records, notes, and the removal
 * of exactly what it made (also when stopped).  0 or -errno (run->error). */
int iob_meta_run(struct iob_run *run, size_t j);

/* A files job in a group (runner_group.c): iob_meta_run_grouped runs it on
 * the job's own thread, which touches no record, note, error or output of
 * the run; what it would have said is kept in *g and said by
 * iob_meta_group_emit on the runner's thread once every job is joined. */
struct iob_meta_kept;
struct iob_meta_group {
	volatile sig_atomic_t *stop; /* the group's: a signal, or another job failed */
	void (*ready)(void *arg);    /* called once, right before the first phase's clocks start */
	void *ready_arg;
	struct iob_meta_kept *kept; /* the run's (iob_meta_group_free) */
};
/* 0 or -errno (the message kept for iob_meta_group_emit). */
int iob_meta_run_grouped(struct iob_run *run, size_t j, struct iob_meta_group *g);
/* The kept records and notes of suite job j, then its failure (first_failed:
 * it replaces an earlier job's error, as the group's first failure).  cut:
 * no signal came, so a stop was another job's failure ("stopped"). */
void iob_meta_group_emit(struct iob_run *run, size_t j, struct iob_meta_group *g, int cut, int first_failed);
void iob_meta_group_free(struct iob_meta_group *g);

#endif
