/*
 * iobench/meta.h - the metadata job (workload = files, docs/metadata.md):
 * many small files in a tree per stream (or one shared tree), phases
 * mkdir, create, write, stat, open, read, remove, rmdir, each timed as a
 * whole and per operation, as mdtest and elbencho measure them.
 * meta.c is the runner's room for it: check.c asks iob_meta_check before
 * anything is created, runner_phase.c hands such a job to iob_meta_run.
 */
#ifndef IOBENCH_META_H
#define IOBENCH_META_H

#include <stddef.h>
#include <stdint.h>
#include "iobench/job.h"

#define IOB_WORKLOAD_DATA 0
#define IOB_WORKLOAD_FILES 1

enum iob_meta_op {
	IOB_META_MKDIR = 0,
	IOB_META_CREATE,
	IOB_META_WRITE,
	IOB_META_STAT,
	IOB_META_OPEN,
	IOB_META_READ,
	IOB_META_REMOVE,
	IOB_META_RMDIR,
	IOB_META_NOPS
};
/* "mkdir", "create", ... */
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

#endif
