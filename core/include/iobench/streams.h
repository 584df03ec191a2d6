/*
 * iobench/streams.h - one phase run by N streams at once, each on its own
 * OS thread with its own engine phase (runner_phase.c and runner_group.c are the only callers).
 *
 *  - Every stream gets a copy of the phase spec: its own files (stream-major
 *    slices of `files`) or, sharing the job's files, for sequential access
 *    its own region [i*size/N, (i+1)*size/N) of each file.
 *  - Random offsets: stream i draws from seed + i * 0x9e3779b97f4a7c15 (stream
 *    0 from the job's seed), so streams on a shared file do not repeat each
 *    other's offsets; the pattern keeps its own seed.
 *  - They start together: spec.ready is a barrier wait, so no stream's clock
 *    starts before every stream has its files open and its buffers
 *    allocated.  A stream that fails before that still arrives at the
 *    barrier (after its phase), so the others never wait forever.  With
 *    base->ready set (a run across MPI ranks: their start barrier), stream 0
 *    calls it once every stream is ready, on its own thread (MPI is
 *    initialised for that, MPI_THREAD_SERIALIZED), and the streams start
 *    when it returns; it is called exactly once, even when the streams
 *    cannot all be started.
 *  - spec.first_done points to one flag of the phase; spec.stop to a flag of
 *    the phase that the calling thread raises when a stop signal arrives
 *    (*run_stop, read atomically: a group's stop flag, raised by another
 *    thread when another job of the group fails) or a stream fails, so every
 *    stream stops.  A stop signal is looked for every 16 ms; with
 *    base->streams_stop set, that flag is the phase's, and whoever raises it
 *    stops the streams at their next I/O (a group's job whose end stops the
 *    others, exit_others).
 *  - Each stream reads its own kernel byte counts (/proc/thread-self/io)
 *    and CPU time (RUSAGE_THREAD) around its phase; they replace the
 *    engine's process-wide counts, which overlap across streams.
 * Nothing here adds a note, logs or touches the outputs: the caller does
 * that on its own thread once every stream is joined.
 */
#ifndef IOBENCH_STREAMS_H
#define IOBENCH_STREAMS_H

#include <signal.h>
#include <stddef.h>
#include "iobench/engine.h"

struct iob_streams {
	size_t n;                       /* streams */
	struct iob_phase_result *r;     /* n results, each freed by iob_streams_free */
	int *cut;                       /* n: stopped because another stream failed */
};

/* Run the phase `base` on n streams.  files: n * nfiles paths, stream i's at
 * files + i * nfiles when per_stream_files, else base->files for every
 * stream.  Returns 0 when every stream ran (whatever its status), or -errno
 * when the streams could not be started (nothing ran; out->n is 0). */
int iob_streams_run(const struct iob_phase_spec *base, size_t n, const char *const *files, size_t nfiles,
		    int per_stream_files, volatile sig_atomic_t *run_stop, struct iob_streams *out);
void iob_streams_free(struct iob_streams *s);

#endif
