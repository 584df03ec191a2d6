/*
 * iobench/ledger.h - what a run made, so that exactly that can be removed.
 * Taken before a run (which of a job's files and directories existed), it
 * counts what is there after it and removes only what the run created
 * (io_profile --remove).  Files that existed before are never removed.
 */
#ifndef IOBENCH_LEDGER_H
#define IOBENCH_LEDGER_H

#include <stdint.h>
#include "iobench/job.h"
#include "iobench/result.h"

struct iob_run;

struct iob_ledger {
	struct iob_filelist fl;
	int *made_file, *made_dir;
	uint64_t present;	/* the job's files there now (iob_ledger_count) */
	uint64_t short_files;	/* of those: shorter than the job's size */
	uint64_t present_bytes; /* their bytes */
	uint64_t removed_files, removed_dirs, kept_files;
};

/* Which of job's files and directories exist now.  0 or -ENOMEM. */
int iob_ledger_init(struct iob_ledger *l, const struct iob_job *job);
/* Count the job's files that are there now (size is the full size). */
void iob_ledger_count(struct iob_ledger *l, uint64_t size);
/* Remove what `run` created (iob_run_remove_made: only through the
 * directories the run held open, and only entries that are still what it
 * created; anything else is kept and becomes a note), counting it; files
 * that existed at init are counted as kept. */
void iob_ledger_remove(struct iob_ledger *l, struct iob_run *run);
void iob_ledger_free(struct iob_ledger *l);

#endif
