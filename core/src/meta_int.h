/*
 * meta_int.h - what the rooms of the metadata job share (meta.c: the shape,
 * the checks and the entry points; meta_ops.c: the operations of a stream
 * on its tree; meta_phase.c: a phase run, its records, preparing and cleaning
 * up).  Not installed.
 */
#ifndef IOB_META_INT_H
#define IOB_META_INT_H

#include "iobench/meta.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/coord.h"
#include "iobench/hist.h"
#include "iobench/os.h"
#include "iobench/result.h"
#include "iobench/runner.h"
#include "check.h"

#include "meta_os.h"

#include <stdarg.h>

struct tree {
	int owner;		     /* this rank's stream made it (and removes it) */
	mo_h rootfd;		     /* held root, or MO_NONE */
	int made_root;		     /* the root is ours (identity below) */
	uint64_t dev, ino;	     /* the root as made */
	uint64_t dirs;		     /* directories [0, dirs) exist (made by us) */
	char root[IOB_NAME_MAX + 64];
};

struct mstream {
	struct mjob *m;
	uint64_t g; /* global index */
	struct tree *own;	/* the tree its files go in */
	struct tree *other;	/* stat_other: the tree of the stream it reads */
	uint64_t other_g;
	uint64_t created, removed; /* files [removed, created) exist (made by it) */
	/* the phase */
	enum iob_meta_op op;
	uint64_t count; /* items to do */
	struct iob_hist *h;
	uint64_t ops, bytes, t0, t1;
	int status;
	char err[512];
	struct iob_thread *th;
	int done; /* atomic: mt_stream_main returned */
	/* path_walk = full: the directory the stream removes names in, opened
	 * by its path at the first of them and held for the rest (directory pk
	 * of tree pt), or MO_NONE */
	mo_h pfd;
	const struct tree *pt;
	uint64_t pk;
	/* path_walk = full, stat and dirstat: the stats walked through tree
	 * walkt's directories below walk1, checked after the phase */
	const struct tree *walkt;
	uint64_t walk1;
	uint64_t sdev; /* and the file system they must land on (stat_reference) */
};

struct mjob {
	struct iob_run *run;
	const struct iob_job *job;
	mo_h dirfd; /* the job's directory */
	uint64_t G, ndirs, per_dir;
	uint32_t nthreads;
	struct tree *trees; /* per stream of this rank (dir_per_stream), or one */
	size_t ntrees;
	struct mstream *s;
	struct iob_barrier *go;
	char *buf; /* file_bytes, per stream */
	volatile sig_atomic_t *stop; /* the run's, set by a signal handler: read by the runner's thread only */
	int phase_stop;		     /* atomic: the streams stop (the runner's thread raises it) */
	uint64_t epoch; /* the phase's common start (after the ranks' barrier) */
	uint64_t bound_ns;
	uint64_t made_min; /* the fewest files any stream (of every rank) has made */
	struct tree *others; /* stat_other: the trees read, per stream (not ours) */
	struct iob_meta_group *grp; /* in a group: what the run says is kept (grp->kept), not said */
};

/* ------------------------------------------------- what a group's job says */

/* What one rank sends rank 0 after a phase. */
struct part {
	uint64_t ops, bytes, start, end; /* ns from the common barrier */
	double smin, smax;		 /* the slowest and fastest stream's ops/s */
	int32_t status, stop, dropped, pad;
	uint64_t made_min; /* the fewest files any stream of the rank has made */
	char err[512];
	struct iob_hist h;
};

struct kept_rec {
	enum iob_meta_op op;
	uint32_t rep;
	uint64_t nranks;
	int dropped;
	struct part p;
};

struct iob_meta_kept {
	struct kept_rec *rec;
	size_t nrec;
	char **notes;
	size_t nnotes;
	int interrupted, failed;
	char error[2048];
};


struct verdict {
	int32_t status, stop;
	uint64_t made_min;
	char err[512];
};

/* Per op kind over the repeats: the rates for the summary. */
struct reps {
	double v[IOB_META_NOPS][1000];
	uint32_t n[IOB_META_NOPS];
};

static inline void fail(struct mstream *s, int e, const char *what, const char *name)
{
	if (s->status)
		return;
	s->status = -e;
	snprintf(s->err, sizeof s->err, "stream %llu: %s %s: %s", (unsigned long long)s->g, what, name, strerror(e));
}

/* meta.c: the shape */
uint64_t mt_tree_dirs(uint32_t d, uint32_t b, uint64_t max);
uint64_t mt_global_streams(const struct iob_job *job);
void mt_root_name(const struct iob_job *job, uint64_t g, char *out, size_t len);

/* meta_ops.c: a stream's operations on its tree */
void mt_fail(struct mjob *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mt_note(struct mjob *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int mt_open_root(struct mjob *m, struct tree *t);
int mt_stopped(struct mstream *s);
int mt_make_dir(struct mjob *m, struct tree *t, struct mstream *s);
int mt_remove_dir(struct mjob *m, struct tree *t, struct mstream *s);
void mt_file_range(struct mstream *s, struct tree *t, uint64_t g, uint64_t from, uint64_t to, int timed);
void mt_stream_main(void *arg);

/* meta_phase.c: a phase, its records; preparing, cleaning up */
void mt_emit_record(struct iob_run *run, const struct iob_job *job, enum iob_meta_op op, const struct part *p,
			uint64_t nranks, int dropped, uint32_t rep, int cut);
void mt_emit_summary(struct mjob *m, const struct reps *r);
int mt_run_op(struct mjob *m, enum iob_meta_op op, int dropped, uint32_t rep, struct reps *reps,
		  struct verdict *v);
void mt_cleanup(struct mjob *m);
int mt_prepare(struct mjob *m);
void mt_mjob_free(struct mjob *m);
int mt_mjob_init(struct mjob *m, struct iob_run *run, const struct iob_job *job, struct iob_meta_group *grp);

#endif
