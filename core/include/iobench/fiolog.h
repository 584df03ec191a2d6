/*
 * iobench/fiolog.h - fio-style logs of a run's intervals: the job keys
 * bw_log, iops_log and lat_log (fio's write_bw_log, write_iops_log and
 * write_lat_log with log_avg_msec = log_interval), in fio's log format
 * (docs/profiles.md, "fio-style logs").
 *
 *   PREFIX_bw.<x>.log    time (ms), KiB/s, direction, 0, 0
 *   PREFIX_iops.<x>.log  time (ms), IOPS, direction, 0, 0
 *   PREFIX_lat.<x>.log   time (ms), mean latency (ns), direction, 0, 0
 *   PREFIX_clat.<x>.log  the same (iobench times an I/O from its submission
 *                        to its completion: fio's lat and clat at once)
 *
 * One row per interval and direction (0 read, 1 write; a mixed phase gives
 * both), the time the interval's end in ms since the job's first measured
 * window began; block size and the last column 0, as fio writes them when
 * it averages.  A file per stream (fio's clones), <x> fio's thread number:
 * the streams of the suite's earlier jobs, then this one's, from 1; each
 * with its own stream's figures.  Latency rows only for intervals with
 * latency samples.
 *
 * Without log_interval, a row per I/O instead (fio's log_avg_msec 0):
 * time (ms), value, direction, bytes, [offset with log_offset,] priority,
 * the value the I/O's bytes x 10^6 / its latency in ns (bw), 1 (iops) or
 * its latency in ns (lat, clat), the priority the I/O went at as 0xPPPP
 * with log_prio, else 1 for the real-time class and 0 otherwise (fio's
 * two forms), from the per-I/O events each stream kept (engine.h, struct
 * iob_iolog; budgeted before the run, check.c).  With log_prio the
 * interval rows' last column is 0x0000.
 *
 * The files are opened when the run opens, after every check, emptied
 * when it starts, and written at the end of each phase from its interval
 * records or its per-I/O events.
 */
#ifndef IOBENCH_FIOLOG_H
#define IOBENCH_FIOLOG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "iobench/engine.h"
#include "iobench/intervals.h"
#include "iobench/job.h"
#include "iobench/outfile.h"
#include "iobench/phase.h"
#include "iobench/profile.h"

enum iob_fiolog_kind { IOB_FIOLOG_BW, IOB_FIOLOG_IOPS, IOB_FIOLOG_LAT, IOB_FIOLOG_CLAT, IOB_FIOLOG_KINDS };

#define IOB_FIOLOG_PATH_MAX (IOB_PATH_MAX + 32)

/* The clones of a job, each with files of its own (fio's numjobs: its
 * streams). */
size_t iob_fiolog_clones(const struct iob_job *job);
/* The file of one kind for clone c of job j of the suite ("" when the job
 * writes no such log): PREFIX_<kind>.<x>.log, x fio's thread number (the
 * clones of the earlier jobs, then c + 1). */
void iob_fiolog_path(const struct iob_suite *suite, size_t j, size_t clone, enum iob_fiolog_kind kind, char *out,
		     size_t outlen);
/* Does the job write a fio-style log? */
int iob_fiolog_wanted(const struct iob_job *job);

/* Refuse, before anything is created, a log that cannot be written the
 * checked way (outfile.h, iob_outfile_check: its directory missing, a
 * symbolic link, not a regular file, not writable): -errno with one line
 * naming the job, the key and the file. */
int iob_fiologs_check(const struct iob_suite *suite, char *err, size_t errlen);

struct iob_fiologs {
	size_t njobs, nslots;
	size_t *base, *nclones;	      /* per job: its clones' first slot, their number */
	FILE *(*f)[IOB_FIOLOG_KINDS]; /* per slot (a job's clone) and kind; NULL: none */
	char *(*path)[IOB_FIOLOG_KINDS];
	struct iob_outfile (*of)[IOB_FIOLOG_KINDS]; /* the checked files */
	uint64_t *t0_ns;		  /* per slot: the clone's first measured window (absolute ns; 0: none yet) */
	int *log_prio;			  /* per job: log_prio, the last column as 0xPPPP */
	int *log_offset;		  /* per job: rows carry the offset */
	int error;			  /* the first write that failed: errno (atomic) */
	const char *error_path;
};
/* Open every log file the checked way (outfile.h), not emptied yet; on
 * failure a one-line reason and nothing left open (what this call created
 * is removed, nothing else changed). */
int iob_fiologs_open(struct iob_fiologs *fl, const struct iob_suite *suite, char *err, size_t errlen);
/* The run starts: empty them. */
int iob_fiologs_commit(struct iob_fiologs *fl, char *err, size_t errlen);
/* Job j's phase is over: clone c's intervals' rows (its stream's own). */
void iob_fiologs_phase(struct iob_fiologs *fl, size_t j, size_t clone, enum iob_phase phase,
		       const struct iob_intervals *iv);
/* A row per I/O of the events of clone c of job j its stream's log l holds
 * and has not written yet (from tail to n), in its files, its ticks as
 * ns_per_tick ns each; then l's tail is n (a ring has room again).  Any one
 * thread per log, while the stream runs (a ring) or after. */
void iob_fiologs_drain(struct iob_fiologs *fl, size_t j, size_t clone, struct iob_iolog *l, double ns_per_tick);
/* Job j's phase is over, logged per I/O (its log_interval 0): what each of
 * its n streams' logs still holds, in its own clone's files, with the
 * phase's own tick ratio.  Returns the I/Os the logs had no room for (0:
 * none). */
uint64_t iob_fiologs_ios(struct iob_fiologs *fl, size_t j, struct iob_iolog *logs, size_t n);
/* Events a stream's per-I/O log holds at once: the phase's I/Os when that
 * many fit (written when it ends), else a ring of this many drained while
 * it runs. */
#define IOB_FIOLOG_RING 65536u
/* Per-I/O logs (no log_interval): the most I/Os one stream's phase of the
 * job may do, known before the run; UINT64_MAX when it is not (time-based,
 * unknown size: a ring, IOB_FIOLOG_RING).  0: the job keeps no per-I/O
 * log. */
uint64_t iob_fiolog_ios_bound(const struct iob_job *job, uint64_t file_size);
/* Remove the files the run created (it could not start after all). */
void iob_fiologs_unmake(struct iob_fiologs *fl);
/* Close them all; -errno with a one-line reason for the first failure. */
int iob_fiologs_close(struct iob_fiologs *fl, char *err, size_t errlen);

#endif
