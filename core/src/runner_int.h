/*
 * runner_int.h - what the runner's files share (runner.c's map).  Private to
 * the core: runner.h is the runner's API.
 */
#ifndef IOBENCH_RUNNER_INT_H
#define IOBENCH_RUNNER_INT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "iobench/runner.h"
#include "iobench/blocks.h"
#include "iobench/intervals.h"
#include "iobench/job.h"
#include "iobench/os.h"

struct iob_aggregate;
struct iob_live;
struct iob_loaded;
struct iob_observer;
struct iob_phase_spec;
struct iob_rank_watch;
struct iob_read_facts;
struct iob_read_plan;
struct iob_shape;
struct iob_streams;

/* Every directory a job works in is opened once, without following links
 * it was not allowed to follow, and held for the whole run; the engine and
 * the backends open the job's files through "/proc/self/fd/N/name" of that
 * descriptor, so a directory swapped for a link (or renamed) mid-run changes
 * nothing: the files opened are those in the directory that was checked.
 * Cleanup works the same way (unlinkat in the held directories). */
struct pin {
	char *path; /* as the jobs name it */
	int fd;	    /* -1 once closed (the directory was removed) */
};

struct made {
	size_t pin; /* the held directory holding it */
	char *name;
	struct iob_identity id; /* what was created, as first seen */
	int dir;		/* a directory; its own pin is dirpin */
	size_t dirpin;
	int gone;
};

struct iob_pins {
	struct pin *pin;
	size_t npin, cappin;
	struct made *made;
	size_t nmade, capmade;
};

/* The job's files as the engine opens them: each through its held
 * directory. */
struct job_files {
	struct iob_filelist fl; /* as the job names them (records, messages) */
	char **open;		/* as they are opened */
	size_t *pin;		/* the held directory of each file */
	int *state;		/* 0 existed before the job, 1 missing then, 2 made and recorded */
	/* a random write's draws per stream (iob_phase_result.draws), for the
	 * random reads and verifies after it at the same block size */
	uint64_t *written, written_bs;
	/* a job with a mixed and a verify phase: each stream's writes of the
	 * mixed phase, which the verify after it reads back (spec.wlog_*) */
	struct iob_wlog *wlog;
	size_t nwlog;
};

struct phase_run {
	struct iob_run *run;
	const struct iob_job *job;
	size_t j;
	struct iob_blocks blocks; /* series jobs: block records as they come */
	int evict_failed;	  /* evict_before_read could not evict (Windows: no way to) */
	const char *status;	  /* NULL, or the record's status ("stopped": a group's job cut short) */
};

/* The phase's observer (progress.h): the progress line when wanted, the
 * interval records when the job logs them.  Sets spec->live. */
struct observed {
	struct iob_live *live;
	struct iob_intervals iv;
	struct iob_observer *obs;
	int logged;	/* interval records wanted */
	int borrowed;	/* live belongs to the caller */
	int *csv_error; /* the live CSV's error slot */
	int oom;	/* no memory for them: the caller notes it */
};

struct rank_start {
	int rc;			      /* the start barrier's */
	uint64_t epoch_ns;	      /* this rank's clock when it returned */
	int tag;		      /* the phase's number, the same on every rank */
	volatile sig_atomic_t *flag;  /* the engine's stop flag */
	struct iob_rank_watch *watch; /* stop messages of other ranks */
	struct iob_live *live;	      /* the streams' counters (owned), for the watcher */
	size_t nlive;
};

/* runner.c */
void iob_runner_print_live_notes(struct iob_run *run);

/* runner_files.c */
void iob_runner_pins_free(struct iob_pins *ps);
void iob_runner_job_files_free(struct job_files *jf);
int iob_runner_job_files_open(struct iob_run *run, const struct iob_job *job, struct job_files *jf);
void iob_runner_note_made(struct iob_run *run, struct job_files *jf);
void iob_runner_remove_made_range(struct iob_run *run, size_t from, size_t to, uint64_t *files,
				  uint64_t *dirs);
void iob_runner_unmask(char *msg, size_t len, const struct job_files *jf);

/* runner_record.c */
uint64_t iob_runner_expect_bytes(const struct iob_job *job, const struct iob_filelist *fl, uint64_t bs);
void iob_runner_observe_start(const struct iob_run *run, const struct iob_job *job,
			      const struct iob_filelist *fl, enum iob_phase phase, uint64_t bs,
			      struct iob_phase_spec *spec, struct observed *ob);
void iob_runner_observe_end(struct observed *ob, const struct iob_phase_result *r);
/* Per-I/O logs (fiolog.h): n streams' logs for the phase, their events
 * allocated and touched before the clock; NULL when the job keeps none, or
 * out of memory (*oom set).  Any thread. */
struct iob_iolog *iob_runner_iolog_start(const struct iob_run *run, const struct iob_job *job, enum iob_phase phase,
					 uint64_t file_size, size_t n, int *oom);
/* A ring's writer (iob_iolog ring: the phase may do more I/Os than it
 * holds): a thread that writes the rows while the phase runs, from before
 * its streams start to after they end; NULL when none is needed (or it could
 * not start: the logs then keep what fits).  Stop joins it and writes what
 * is left (the streams have ended). */
struct iob_iolog_writer;
struct iob_iolog_writer *iob_runner_iolog_writer(struct iob_run *run, size_t j, struct iob_iolog *logs, size_t n);
void iob_runner_iolog_writer_stop(struct iob_iolog_writer *w);
/* The phase is over: its rows written (job j of the suite), the logs freed;
 * oom: a note.  The runner's thread. */
void iob_runner_iolog_emit(struct iob_run *run, size_t j, const struct iob_job *job, enum iob_phase phase,
			   struct iob_iolog *logs, size_t n, int oom);
void iob_runner_observe_emit(struct iob_run *run, size_t j, const struct iob_job *job, enum iob_phase phase,
			     struct observed *ob);
void iob_runner_record_file(const struct iob_job *job, const struct iob_filelist *fl, char *file, size_t len);
int iob_runner_emit_phase(struct phase_run *pr, const struct iob_filelist *fl, struct iob_phase_result *r,
			  const struct iob_read_facts *facts, const struct iob_aggregate *agg);
void iob_runner_emit_stream(struct iob_run *run, const struct iob_job *job, const struct job_files *jf,
			    size_t i, const struct iob_streams *st);
int iob_runner_streams_aggregate(const struct iob_streams *st, struct iob_aggregate *agg);
void iob_runner_streams_result(const struct iob_streams *st, const struct iob_aggregate *agg,
			       struct iob_phase_result *r);

/* runner_phase.c */
void iob_runner_read_plan(const struct iob_job *job, const struct job_files *jf, uint64_t bs,
			  struct iob_read_plan *plan);
void iob_runner_measure_unwritten(const struct job_files *jf, struct iob_phase_result *r);
void iob_runner_phase_notes(struct iob_run *run, const struct iob_job *job, const struct iob_loaded *b,
			    const struct iob_filelist *fl, enum iob_phase phase,
			    const struct iob_read_plan *plan, struct iob_read_facts *facts,
			    struct iob_phase_result *r, int evict_failed);
void iob_runner_written_keep(struct job_files *jf, const struct iob_job *job, enum iob_phase phase,
			     uint64_t bs, const struct iob_phase_result *r, size_t n);
int iob_runner_written_apply(const struct job_files *jf, const struct iob_job *job, enum iob_phase phase,
			     uint64_t bs, struct iob_phase_spec *spec);
void iob_runner_written_note(struct iob_run *run, const struct iob_job *job, enum iob_phase phase,
			     const struct iob_phase_result *r, size_t n, int no_ramp);
/* The data content's working set bound to the run (fill.c): the file's
 * blocks, the job's place among the jobs sharing it (dedupe_global). */
void iob_runner_fill_bind(const struct iob_run *run, const struct iob_job *job, struct iob_pattern *p, uint64_t bs);
void iob_runner_phase_spec(const struct iob_run *run, const struct iob_job *job, const struct iob_loaded *b,
			   const struct job_files *jf, enum iob_phase phase, uint64_t bs,
			   struct iob_phase_spec *spec, struct iob_shape *shape);
int iob_runner_run_job(struct iob_run *run, size_t j);

/* runner_ranks.c */
void iob_runner_stonewall(const struct iob_job *job, struct iob_phase_spec *spec);
void iob_runner_rank_phase_spec(const struct iob_job *job, struct iob_phase_spec *spec, struct rank_start *rs,
				int streams);
int iob_runner_rank_phase_end(struct iob_run *run, size_t j, const char *file, const struct iob_record *rec,
			      const struct iob_phase_result *r, const struct rank_start *rs, int rc);
int iob_runner_rank_job_start(struct iob_run *run, int rc);

/* runner_group.c */
int iob_runner_run_group(struct iob_run *run, size_t a, size_t e);

#endif
