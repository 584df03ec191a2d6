/*
 * mpi.c - the MPI coordinator module (iobench/coord.h): the only object of
 * iobench that links an MPI library.  The core loads it when a process was
 * started by an MPI launcher; it only wraps the few MPI calls a run needs.
 */
#include <errno.h>
#include <mpi.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "iobench/coord.h"

#define IOB_EXPORT __attribute__((visibility("default")))

static int mpi_rc(int rc)
{
	return rc == MPI_SUCCESS ? 0 : -EIO;
}

static volatile sig_atomic_t *stop_flag;

/* Give the launcher's proxy up to 2 s to read what this rank wrote to a
 * pipe on stderr before MPI_Abort: the abort travels on another socket and
 * the proxy may kill every rank and exit with that line still unread (seen
 * once in CI under load: the exit came, the reason did not). */
static void let_stderr_drain(void)
{
	struct timespec tick = {0, 10 * 1000 * 1000};
	for (int i = 0; i < 200; i++) {
		int unread = 0;
		if (ioctl(2, FIONREAD, &unread) != 0 || unread <= 0)
			break;
		nanosleep(&tick, NULL);
	}
	nanosleep(&tick, NULL); /* and for the proxy to pass it on */
}

static void c_watch_stop(volatile sig_atomic_t *flag)
{
	stop_flag = flag;
}

/* Wait for a collective's request, as MPI's own blocking call would (it
 * spins too), watching the stop flag: a signal that came and still finds
 * this rank waiting IOB_COORD_STOP_GRACE_S later ends every rank. */
static int wait_req(int rc, MPI_Request *req)
{
	double since = -1.0;
	if (rc != MPI_SUCCESS)
		return -EIO;
	for (unsigned long spins = 0;; spins++) {
		int done = 0;
		if (MPI_Test(req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
			return -EIO;
		if (done)
			return 0;
		if (spins > 1000) /* more ranks than cores: let the others run */
			sched_yield();
		int sig = stop_flag ? *stop_flag : 0;
		if (sig <= 0)
			continue;
		double now = MPI_Wtime();
		if (since < 0) {
			since = now;
		} else if (now - since > IOB_COORD_STOP_GRACE_S) {
			int rank = -1;
			MPI_Comm_rank(MPI_COMM_WORLD, &rank);
			fprintf(stderr,
				"iobench: error: rank %d: stopped by signal %d while waiting %.0f s for the other ranks; "
				"ending every rank\n",
				rank, sig, IOB_COORD_STOP_GRACE_S);
			fflush(stderr);
			let_stderr_drain();
			MPI_Abort(MPI_COMM_WORLD, 128 + sig);
			return -EINTR;
		}
	}
}

static int c_init(int *rank, int *size, int *serialized, char *err, size_t errlen)
{
	int inited = 0, provided = MPI_THREAD_SINGLE;
	MPI_Initialized(&inited);
	/* serialized: a stream thread may make the start barrier's call while
	 * the runner's thread makes none */
	if (!inited && MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
		snprintf(err, errlen, "MPI_Init_thread failed");
		return -EIO;
	}
	if (inited)
		MPI_Query_thread(&provided);
	*serialized = provided >= MPI_THREAD_SERIALIZED;
	/* a failed call returns to us, so the run can say which rank failed */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	if (MPI_Comm_rank(MPI_COMM_WORLD, rank) != MPI_SUCCESS || MPI_Comm_size(MPI_COMM_WORLD, size) != MPI_SUCCESS) {
		snprintf(err, errlen, "MPI_Comm_rank/MPI_Comm_size failed");
		return -EIO;
	}
	return 0;
}

static int c_barrier(void)
{
	MPI_Request req;
	return wait_req(MPI_Ibarrier(MPI_COMM_WORLD, &req), &req);
}

static int c_gather(const void *buf, uint64_t len, void **all, uint64_t *lens)
{
	int rank = 0, size = 1;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	*all = NULL;
	if (len > INT32_MAX)
		return -EMSGSIZE;
	int mine = (int)len;
	int *counts = NULL, *displs = NULL;
	char *out = NULL;
	int rc = 0;
	if (rank == 0) {
		counts = calloc((size_t)size, sizeof *counts);
		displs = calloc((size_t)size, sizeof *displs);
		if (!counts || !displs)
			rc = -ENOMEM;
	}
	/* every rank takes part in both calls whatever happened, so none waits */
	MPI_Request req;
	int grc = wait_req(MPI_Igather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD, &req), &req);
	if (rc == 0)
		rc = grc;
	uint64_t total = 0;
	if (rank == 0 && rc == 0) {
		for (int i = 0; i < size; i++) {
			displs[i] = (int)total;
			total += (uint64_t)counts[i];
			lens[i] = (uint64_t)counts[i];
		}
		if (total > INT32_MAX)
			rc = -EMSGSIZE;
		else if (!(out = malloc(total ? total : 1)))
			rc = -ENOMEM;
	}
	if (rank == 0 && rc != 0) { /* still receive, into nothing */
		for (int i = 0; counts && displs && i < size; i++)
			counts[i] = displs[i] = 0;
	}
	int vrc = wait_req(MPI_Igatherv(buf, mine, MPI_BYTE, out, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD, &req),
			   &req);
	if (rc == 0)
		rc = vrc;
	free(counts);
	free(displs);
	if (rc != 0) {
		free(out);
		return rc;
	}
	*all = out;
	return 0;
}

static int c_bcast(void *buf, uint64_t len)
{
	if (len > INT32_MAX)
		return -EMSGSIZE;
	MPI_Request req;
	return wait_req(MPI_Ibcast(buf, (int)len, MPI_BYTE, 0, MPI_COMM_WORLD, &req), &req);
}

static double c_wtime(void)
{
	return MPI_Wtime();
}

static void drain(int keep_tag);

static void c_finalize(void)
{
	int fin = 0;
	MPI_Finalized(&fin);
	if (!fin) {
		drain(-1);
		MPI_Finalize();
	}
}

static void c_abort(int code)
{
	fflush(stdout);
	fflush(stderr);
	let_stderr_drain();
	MPI_Abort(MPI_COMM_WORLD, code);
}

/* Messages within a phase: one receive posted at a time, tagged with the
 * phase, of one int (the message). */
static MPI_Request stop_req = MPI_REQUEST_NULL;
static int stop_buf;

/* Receive and drop what earlier phases left: a message that reached a rank
 * whose watch of that phase had ended.  Only this module sends
 * point-to-point messages on MPI_COMM_WORLD. */
static void drain(int keep_tag)
{
	for (;;) {
		int flag = 0, junk = 0;
		MPI_Status st;
		if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS || !flag ||
		    st.MPI_TAG == keep_tag)
			return;
		if (MPI_Recv(&junk, 1, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE) !=
		    MPI_SUCCESS)
			return;
	}
}

static int c_stop_post(int tag)
{
	drain(tag);
	stop_buf = 0;
	return mpi_rc(MPI_Irecv(&stop_buf, 1, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &stop_req));
}

static int c_stop_test(int *from)
{
	int done = 0;
	MPI_Status st;
	if (stop_req == MPI_REQUEST_NULL)
		return 0;
	if (MPI_Test(&stop_req, &done, &st) != MPI_SUCCESS || !done)
		return 0;
	stop_req = MPI_REQUEST_NULL;
	*from = st.MPI_SOURCE;
	return stop_buf;
}

static int c_stop_send(int tag, int msg, int to)
{
	int rank = 0, size = 1, rc = 0;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	/* one int: sent eagerly, complete whether or not the other has it yet */
	for (int k = 0; k < size; k++)
		if (k != rank && (to < 0 || k == to) &&
		    MPI_Send(&msg, 1, MPI_INT, k, tag, MPI_COMM_WORLD) != MPI_SUCCESS)
			rc = -EIO;
	return rc;
}

static void c_stop_cancel(void)
{
	if (stop_req == MPI_REQUEST_NULL)
		return;
	int done = 0;
	MPI_Test(&stop_req, &done, MPI_STATUS_IGNORE);
	if (!done) {
		MPI_Cancel(&stop_req);
		MPI_Wait(&stop_req, MPI_STATUS_IGNORE);
	}
	stop_req = MPI_REQUEST_NULL;
}

static const struct iob_coord_ops ops = {
	.abi = IOB_COORD_ABI,
	.struct_size = sizeof ops,
	.name = "mpi",
	.init = c_init,
	.barrier = c_barrier,
	.gather = c_gather,
	.bcast = c_bcast,
	.wtime = c_wtime,
	.finalize = c_finalize,
	.abort = c_abort,
	.stop_post = c_stop_post,
	.stop_test = c_stop_test,
	.stop_send = c_stop_send,
	.stop_cancel = c_stop_cancel,
	.watch_stop = c_watch_stop,
};

IOB_EXPORT const struct iob_coord_ops *iob_coord_entry(void);
IOB_EXPORT const struct iob_coord_ops *iob_coord_entry(void)
{
	return &ops;
}
