/*
 * iobench/coord.h - runs across MPI ranks (issue 12, docs/mpi.md).
 *
 * The ordinary binaries never link an MPI library.  When a process was
 * started by an MPI launcher (one of PMI_RANK, PMIX_RANK,
 * OMPI_COMM_WORLD_RANK is set), iob_coord_start loads the coordinator
 * module iob-coord-mpi.so (built only where CMake's FindMPI finds MPI; it
 * is the only object that links libmpi), checked as a plugin is
 * (docs/security.md), from <exe dir>/../lib/iobench/coord, then from the
 * installed directory, and calls MPI_Init through it.  Without a launcher
 * nothing is loaded and every function below acts as one rank of one.
 *
 * The module's ABI (struct iob_coord_ops) is private to this source tree:
 * the module is built with the core and installed beside it.
 */
#ifndef IOBENCH_COORD_H
#define IOBENCH_COORD_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#define IOB_COORD_ABI 3
#define IOB_COORD_ENTRY_NAME "iob_coord_entry"

struct iob_coord_ops {
	uint32_t abi;	      /* IOB_COORD_ABI */
	uint32_t struct_size; /* sizeof (struct iob_coord_ops) */
	const char *name;     /* "mpi" */
	/* MPI_Init_thread (unless already), rank and size, and whether a thread
	 * other than main may call MPI while main does not
	 * (MPI_THREAD_SERIALIZED); 0 or -errno with a reason */
	int (*init)(int *rank, int *size, int *serialized, char *err, size_t errlen);
	int (*barrier)(void);
	/* Every rank sends len bytes; rank 0 gets *all (malloc'd, free()) with
	 * lens[size] lengths, back to back.  Other ranks get *all = NULL. */
	int (*gather)(const void *buf, uint64_t len, void **all, uint64_t *lens);
	/* len bytes from rank 0 to every rank */
	int (*bcast)(void *buf, uint64_t len);
	/* MPI_Wtime: seconds on this rank's clock */
	double (*wtime)(void);
	void (*finalize)(void);
	void (*abort)(int code);
	/* Messages of phase `tag` (>= 0), one int each (IOB_COORD_MSG_*): post
	 * the receive of one from any rank (first receiving, and dropping,
	 * what earlier phases left unreceived); test it (0, or the message,
	 * with its sender in *from); send one to rank `to`, or to every other
	 * rank when to < 0; cancel the posted receive.  Only one thread calls
	 * these at a time. */
	int (*stop_post)(int tag);
	int (*stop_test)(int *from);
	int (*stop_send)(int tag, int msg, int to);
	void (*stop_cancel)(void);
	/* The process's stop flag (a signal number once SIGINT, SIGTERM, SIGHUP
	 * came; set by a signal handler).  The collectives (barrier, gather,
	 * broadcast) wait for the other ranks while watching it: a rank that
	 * got a stop signal and still waits IOB_COORD_STOP_GRACE_S seconds
	 * later (another rank never comes: stopped, hung, or on another path)
	 * ends every rank with MPI_Abort, saying so in one line. */
	void (*watch_stop)(volatile sig_atomic_t *flag);
};
#define IOB_COORD_STOP_GRACE_S 5.0
typedef const struct iob_coord_ops *(*iob_coord_entry_fn)(void);

/* The launcher variable found in the environment ("PMI_RANK", ...), or
 * NULL when the process was not started by an MPI launcher. */
const char *iob_coord_launcher(void);
/* Start the coordinator when launched (call first thing in main, before
 * anything can exit: a rank that ends before MPI_Init leaves the others
 * waiting in theirs).  0 when not launched or started; -errno with a
 * one-line reason (no coordinator module in this build, a refused module,
 * MPI_Init failed). */
int iob_coord_start(char *err, size_t errlen);
/* A run across ranks is going on (started, even with one rank). */
int iob_coord_active(void);
int iob_coord_rank(void); /* 0 without a coordinator */
int iob_coord_size(void); /* 1 without a coordinator */
/* Another thread than main may call iob_coord_barrier (while main makes no
 * MPI call): the MPI library gave MPI_THREAD_SERIALIZED. */
int iob_coord_serialized(void);
int iob_coord_barrier(void);
int iob_coord_gather(const void *buf, uint64_t len, void **all, uint64_t *lens);
int iob_coord_bcast(void *buf, uint64_t len);
/* Messages within a phase (ranks.c's watcher): a failed rank's stop to
 * every rank; a rank's "done" (it finished its phase) to rank 0, and rank
 * 0's "first" (some rank finished first) to every rank. */
#define IOB_COORD_MSG_STOP 1
#define IOB_COORD_MSG_DONE 2
#define IOB_COORD_MSG_FIRST 3
int iob_coord_stop_post(int tag);
int iob_coord_stop_test(int *from);
int iob_coord_stop_send(int tag, int msg, int to);
void iob_coord_stop_cancel(void);
/* MPI_Finalize (once); nothing without a coordinator. */
void iob_coord_finish(void);

/* What must be the same on every rank, in parts: each part is hashed as
 * len bytes (never as a C string: NUL bytes count like any other), and a
 * part's hash on every rank is compared with rank 0's.  `what` names the
 * part in the refusal ("profile text", "job 'seq' phases"). */
struct iob_coord_part {
	const char *what;
	const void *p;
	size_t len;
};
/* A limit of this build's core alone (coord.c's vote, not the module's
 * ABI: the module gathers the vote as bytes); a rank whose vote has another
 * size (another build) is refused. */
#define IOB_COORD_PARTS_MAX 160

/* Every rank gives its status (0 or not) and its one-line reason; every
 * rank gets back the status of the lowest failing rank (0 when none) with
 * "rank K (HOST): reason" in out.  `what` names what is compared as well:
 * ranks whose parts differ (command lines, profile contents, the
 * normalised suite), or that have a different number of them, are refused,
 * "rank K (HOST) runs a different WHAT than rank 0 (differs: PARTS)"
 * (-EINVAL).  parts may be NULL (nparts 0); at most IOB_COORD_PARTS_MAX
 * (more is refused on every rank, -E2BIG). */
int iob_coord_agree(int status, const char *reason, const char *what, const struct iob_coord_part *parts,
		    size_t nparts, char *out, size_t outlen);

#endif
