/*
 * check.h - helpers the runner's checks (check.c) share with the run itself
 * (runner*.c).  Private to the core.
 */
#ifndef IOBENCH_CHECK_PRIVATE_H
#define IOBENCH_CHECK_PRIVATE_H

#include <stddef.h>
#include <stdint.h>
#include "iobench/job.h"

/* "-": standard input. */
int iob_is_stdin_path(const char *path);
/* dir without trailing slashes ("/" stays). */
void iob_strip_slashes(const char *dir, char *out, size_t len);
/* A symlinked job directory is followed when the link is owned by root or by
 * the user running the job, or with follow_symlinks. */
int iob_dir_link_trusted(const struct iob_job *job, const char *dir);

/* check_out.c.  The files the run writes besides its data (outputs and
 * their side files, live CSV files, fio-style logs): each passes
 * iob_outfile_check, none is one of runfiles (the data files, the profile,
 * its includes) or another's file, and no side file an output may write can
 * be any of them. */
struct iob_registry;
struct iob_run_opts;
struct iob_suite;
int iob_check_written(const struct iob_registry *reg, const struct iob_run_opts *opts, const struct iob_suite *suite,
		      const char *const *runfiles, size_t nrun, char *err, size_t errlen);
/* Two jobs of one group on one data file, one of them writing it, unless
 * both backends move no data (IOB_CAP_NODATA), or none verifies and no
 * writer truncates.  With notes (else NULL): a note for each pair of jobs
 * writing one file at once. */
struct iob_notes;
int iob_check_group_files(const struct iob_registry *reg, const struct iob_suite *suite, char *err, size_t errlen,
			  struct iob_notes *notes);

/* Saturating sums and products of byte and I/O counts. */
static inline uint64_t iob_add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}
static inline uint64_t iob_mul_sat(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}
/* The end of the group starting at job i: jobs of one group run at once. */
size_t iob_check_group_end(const struct iob_suite *suite, size_t i);

/* check_memory.c.  A job's per-I/O log and its list of a mixed phase's
 * writes, each known before the run, or refused in one line. */
int iob_check_job_logs(const struct iob_job *job, char *err, size_t errlen);
/* The entries of each stream's list of a mixed phase's writes (for the
 * verify after it): 0 without one, UINT64_MAX when not known before the run
 * (refused by iob_check_job_logs). */
uint64_t iob_check_wlog_writes(const struct iob_job *job);
/* Every job, and every group's jobs together, within the memory the run may
 * take; -ENOMEM with one line naming the job and what to lower. */
int iob_check_memory(const struct iob_suite *suite, char *err, size_t errlen);

#endif
