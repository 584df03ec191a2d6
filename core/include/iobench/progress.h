/*
 * iobench/progress.h - the run's observer: a thread the runner starts for
 * each phase that shows progress or logs intervals.  Every ~0.5 s it reads
 * what the phase's streams publish (live.h: relaxed atomics, written at the
 * engine's looks at the clock) and redraws one line on stderr:
 *
 *   iobench: seq read  42.0%  118.3 MiB/s  30.3k IOPS  ETA 0:05
 *
 * (job, phase, share done or time left for a time-limited phase, MiB/s and
 * IOPS since the last draw, time to the end); every log_interval it closes
 * an interval (intervals.h) and writes its live CSV row.  It never writes
 * stdout and formats nothing on the hot path.  The line is cleared when the
 * phase ends, and by iob_progress_clear before anything else the run prints
 * while a phase runs (a series' block lines, log messages), so no other line
 * is ever mixed into it.
 */
#ifndef IOBENCH_PROGRESS_H
#define IOBENCH_PROGRESS_H

#include <stddef.h>
#include <stdint.h>
#include "iobench/live.h"

struct iob_intervals;

enum iob_progress_mode {
	IOB_PROGRESS_AUTO = 0, /* on when stderr is a terminal */
	IOB_PROGRESS_ALWAYS = 1,
	IOB_PROGRESS_NEVER = 2,
};

/* The binaries' --progress (default auto); the runner reads it. */
extern enum iob_progress_mode iob_progress_mode;

/* Parse --progress's value (auto, always, never); -EINVAL otherwise. */
int iob_progress_parse(const char *text, enum iob_progress_mode *mode);
/* Is the line drawn in this mode (auto: stderr is a terminal)? */
int iob_progress_wanted(enum iob_progress_mode mode);

struct iob_observe_cfg {
	const char *tool, *job, *phase;
	struct iob_live *live; /* one per stream */
	size_t nstreams;
	int progress;	       /* draw the line */
	uint64_t expect_bytes; /* what the phase will move in all, 0: unknown */
	uint64_t runtime_ns;   /* the phase's time limit, 0: none */
	uint64_t ramp_ns;
	uint64_t interval_ns;	  /* log_interval, 0: none */
	struct iob_intervals *iv; /* with interval_ns: where the intervals go */
};

struct iob_observer;

/* Start observing (a thread); NULL when it could not start (the phase runs
 * unobserved: nothing is drawn, and the intervals are only the last one). */
struct iob_observer *iob_observer_start(const struct iob_observe_cfg *cfg);
/* The phase is over: stop the thread, clear the line.  The caller then
 * closes the last interval itself (iob_intervals_take). */
void iob_observer_stop(struct iob_observer *o);

/* Clear the progress line if one is drawn (before printing anything else
 * while a phase runs).  Cheap when there is none. */
void iob_progress_clear(void);

/* The jobs of a group run at once, so one line speaks for the group as a
 * whole (the runner's thread draws it while it waits for them):
 *
 *   iobench: group 1, 4 jobs (3 running)  42.0%  1.50 GiB  118.3 MiB/s  30.3k IOPS  ETA 0:05
 *
 * (share done when every job's end is known, bytes moved so far by all its
 * jobs, MiB/s and IOPS since the last draw, time until the last job ends).
 * The caller sums what the jobs' streams publish (live.h). */
struct iob_group_view {
	const char *tool;
	unsigned group;
	size_t njobs, running;
	uint64_t bytes, ops; /* moved so far by every job of the group */
	double frac;	     /* share done, 0..1; < 0: unknown */
	double left_s;	     /* time until the last job ends; < 0: unknown */
	int ramping;	     /* every running job is in its ramp */
};
struct iob_group_line {
	uint64_t last_ns, last_bytes, last_ops; /* the last draw; all 0 before the first */
};
void iob_progress_draw_group(struct iob_group_line *st, const struct iob_group_view *v, uint64_t now_ns);

#endif
