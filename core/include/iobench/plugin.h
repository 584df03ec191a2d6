/*
 * iobench/plugin.h - the plugin ABI: the only header a plugin includes.
 *
 * A plugin is a shared object (.so, later .dll) exporting exactly one symbol,
 * IOB_PLUGIN_ENTRY_NAME, of type iob_plugin_entry_fn.  The core calls it once
 * with a host table and receives a descriptor naming the plugin, its kind
 * (backend or output) and its ops table.  Plugins link nothing from the core:
 * everything they need from it (logging, aligned memory, the clock) comes in
 * the host table.
 *
 * Versioning rules (see docs/plugin-guide.md):
 *  - IOB_ABI_MAJOR changes when anything existing changes meaning or layout;
 *    the core refuses a plugin of another major, naming both versions.
 *  - IOB_ABI_MINOR grows when a struct grows at its end; the core accepts an
 *    older minor and copies min(struct_size, its own size) into a zeroed
 *    copy, so a hook the plugin does not know about reads as NULL.
 *  - Structs only ever grow at the end; each version's last member is marked.
 *
 * Errors cross the boundary as negative errno values (-EIO, -ENOSPC, ...);
 * detail goes through host->log.  A plugin never exits, aborts, or writes to
 * stdout or stderr on its own.
 *
 * Loading (docs/security.md): the core reads a plugin's kind and name from
 * its file name, iob-<kind>-<name>.so, and runs no plugin code until a run
 * asks for that plugin (or `iobench plugins` lists everything).  The
 * descriptor's kind and name must match the file name.  Before loading a
 * plugin into its own process the core may load it once in a short-lived
 * child process, to learn whether loading crashes or exits; so a constructor
 * or the entry must have no effect outside the process (no files, no I/O).
 *
 * Threading (ABI 1.1 makes this a promise both ways):
 *  - the entry is called once per process, before any op, from one thread;
 *  - one handle (backend open() result, output state) is never used by two
 *    threads at once: the core serialises every call on it;
 *  - distinct handles may be used concurrently from different threads, so
 *    state shared between handles (globals, the host pointer excepted) needs
 *    the plugin's own locking, or better, does not exist;
 *  - the host table's functions may be called from any thread.
 *
 * Text: every string crossing the boundary, paths included, is UTF-8 and
 * NUL-terminated.  The core escapes plugin names and summaries before it
 * prints them, but a summary should still be one plain line.
 */
#ifndef IOBENCH_PLUGIN_H
#define IOBENCH_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define IOB_ABI_MAJOR 1
#define IOB_ABI_MINOR 5

#define IOB_PLUGIN_ENTRY_NAME "iob_plugin_entry"

#if defined(_WIN32)
#define IOB_PLUGIN_EXPORT __declspec(dllexport)
#else
#define IOB_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

#if defined(__MINGW32__)
/* mingw: C99 formats (%zu, %lld), as with __USE_MINGW_ANSI_STDIO */
#define IOB_PRINTF(fmt, args) __attribute__((format(gnu_printf, fmt, args)))
#elif defined(__GNUC__)
#define IOB_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define IOB_PRINTF(fmt, args)
#endif

/* ------------------------------------------------------------------------ */
/* Host table: what the core offers every plugin.                            */

enum iob_log_level {
	IOB_LOG_ERROR = 0,
	IOB_LOG_WARN = 1,
	IOB_LOG_INFO = 2,
	IOB_LOG_DEBUG = 3,
};

struct iob_host {
	uint32_t abi_major; /* the core's IOB_ABI_MAJOR */
	uint32_t abi_minor; /* the core's IOB_ABI_MINOR */
	size_t struct_size; /* sizeof(struct iob_host) in the core */
	/* Log one line (no trailing newline needed) attributed to plugin `who`. */
	void (*log)(int level, const char *who, const char *fmt, ...) IOB_PRINTF(3, 4);
	/* Allocate `size` bytes aligned to `alignment` (a power of two, at least
	 * sizeof(void *)); NULL on failure.  Release with free_aligned. */
	void *(*alloc_aligned)(size_t alignment, size_t size);
	void (*free_aligned)(void *ptr);
	/* Monotonic clock in nanoseconds; the same clock the engine times with. */
	uint64_t (*now_ns)(void);
	/* --- end of ABI 1.0 --- */
};

/* ------------------------------------------------------------------------ */
/* Backends: move bytes.                                                     */

/* Open flags (struct iob_open_args.flags). */
#define IOB_OPEN_READ 0x01u   /* the handle will be read */
#define IOB_OPEN_WRITE 0x02u  /* the handle will be written */
#define IOB_OPEN_CREATE 0x04u /* create the file if missing */
#define IOB_OPEN_TRUNC 0x08u  /* truncate to zero on open */
/* ABI 1.1: refuse a symbolic link as the last path component (O_NOFOLLOW,
 * -ELOOP); the core sets it unless the job allows symlinked targets. */
#define IOB_OPEN_NOFOLLOW 0x10u
/* The open(2) flags for IOB_OPEN_* flags fl, on a POSIX system (the plugin
 * includes <fcntl.h>; nothing here needs it until used): O_RDWR, O_WRONLY or
 * O_RDONLY, O_CREAT (without IOB_OPEN_TRUNC an existing file keeps its data),
 * O_TRUNC, O_NOFOLLOW, and always O_CLOEXEC (the tools may run helpers: no
 * descriptor leaks into them).  Refuse IOB_OPEN_TRUNC without IOB_OPEN_WRITE
 * first (-EINVAL): open(2) leaves O_TRUNC with O_RDONLY unspecified. */
#define IOB_OPEN_OFLAGS(fl)                                                                                 \
	((((fl) & IOB_OPEN_WRITE) ? (((fl) & IOB_OPEN_READ) ? O_RDWR : O_WRONLY) : O_RDONLY) |              \
	 (((fl) & IOB_OPEN_CREATE) ? O_CREAT : 0) | (((fl) & IOB_OPEN_TRUNC) ? O_TRUNC : 0) |              \
	 (((fl) & IOB_OPEN_NOFOLLOW) ? O_NOFOLLOW : 0) | O_CLOEXEC)

/* Capability flags (struct iob_plugin.caps for backends). */
#define IOB_CAP_READ (1u << 0)      /* read_at is implemented */
#define IOB_CAP_WRITE (1u << 1)     /* write_at is implemented */
#define IOB_CAP_SYNC (1u << 2)      /* sync pushes data to stable storage */
#define IOB_CAP_DIRECT (1u << 3)    /* I/O bypasses the OS page cache */
#define IOB_CAP_ALIGNED (1u << 4)   /* buffers/offsets/lengths must follow iob_file_info alignment */
#define IOB_CAP_TRUNCATE (1u << 5)  /* truncate is implemented (not called by this core; optional) */
#define IOB_CAP_STREAM (1u << 6)    /* path "-" reads standard input, strictly sequentially */
/* Deprecated and ignored: the core always passes size_hint, whatever the
 * caps say.  Kept so old plugins still build; new ones should not set it. */
#define IOB_CAP_SIZE_HINT (1u << 7)
/* ABI 1.1, for the queued engine: submit and reap are implemented and
 * queue_depth above 1 is honoured.  The loader refuses a plugin that claims
 * it without both ops.  The engine calls them for iodepth > 1. */
#define IOB_CAP_ASYNC (1u << 8)
/* The backend's I/O does not pass through read/write system calls (a
 * mapping, a ring), so the kernel's per-process counts of bytes read and
 * written (/proc's rchar, wchar) never see it: the core reports those counts
 * as not measured rather than as 0.  Any ABI 1.x core honours it; an older
 * core ignores it. */
#define IOB_CAP_UNCOUNTED (1u << 9)
/* The kernel may do some of the backend's I/O on threads of the process the
 * tool does not run (io_uring's io-wq workers, its SQPOLL thread): a thread's
 * own counts of bytes fetched from or sent to storage (/proc/thread-self/io
 * read_bytes, write_bytes) miss it, so the core counts them for the whole
 * process where only this phase runs, and otherwise reports them as not
 * measured.  An older core ignores it. */
#define IOB_CAP_WORKERS (1u << 10)
/* The backend moves no bytes and touches no file (null): its figures
 * measure the tool, not storage.  The core makes no checks of the job's
 * files (existence, space), reports the storage counts as not measured and
 * notes in every run that it measured the tool.  An older core ignores it. */
#define IOB_CAP_NOSTORAGE (1u << 11)
/* The backend's writes move no data: each changes the file's space or
 * length (falloc, ftruncate), so what the kernel counts as sent to storage
 * says nothing of them; the core reports the storage counts as not measured.
 * An older core ignores it. */
#define IOB_CAP_NODATA (1u << 12)
/* ABI 1.5: submit issues each I/O at its iob_io.ioprio (Linux's ioprio
 * value, class << 13 | hint << 3 | level; 0: the thread's own): libaio's
 * aio_reqprio with IOCB_FLAG_IOPRIO, io_uring's sqe ioprio.  The core
 * refuses a per-I/O priority (cmdprio_*) on a backend without it. */
#define IOB_CAP_IOPRIO (1u << 13)
/* The backend's writes leave the file's bytes as they were (e4defrag: the
 * kernel moves the file's blocks into fresh ones, their data unchanged), so
 * a job verifying the file while it runs sees only its own bytes.  An older
 * core ignores it. */
#define IOB_CAP_SAMEDATA (1u << 14)

struct iob_open_args {
	size_t struct_size; /* sizeof(struct iob_open_args) in the core */
	const char *path;   /* file to open, UTF-8; "-" is stdin for IOB_CAP_STREAM backends */
	uint32_t flags;     /* IOB_OPEN_* */
	uint32_t mode;      /* permission bits when creating, e.g. 0644 */
	uint64_t size_hint; /* bytes a write phase will reach, 0 if unknown; always
			     * passed (IOB_CAP_SIZE_HINT is ignored) */
	/* --- end of ABI 1.0 --- */
	/* Backend options from the job's backend_options key, "k=v,k2=v2", or
	 * NULL.  A backend refuses a key it does not know with -EINVAL after
	 * logging one line naming it. */
	const char *options;
	/* I/Os the core may keep in flight on this handle; 0 or 1 = one at a
	 * time (read_at/write_at).  Above 1 only for IOB_CAP_ASYNC backends. */
	uint32_t queue_depth;
	/* --- end of ABI 1.1 --- */
};

/* What the core must know about an open handle before any I/O. */
struct iob_file_info {
	size_t struct_size;  /* set by the core before calling info() */
	uint64_t size;       /* current size in bytes (0 for a stream) */
	uint32_t mem_align;  /* buffer address alignment required, 1 = none */
	uint32_t io_align;   /* offset and length must be multiples, 1 = none */
	uint32_t direct;     /* nonzero when this handle's I/O bypasses the page cache */
	uint32_t is_stream;  /* nonzero for a pipe or terminal (no size, no seeking) */
	/* --- end of ABI 1.0 --- */
	/* What the opened handle is (fstat on the descriptor, not the path): the
	 * core decides "device or regular file" from this.  0 = unknown. */
	uint32_t file_type; /* enum iob_file_type */
	uint64_t dev, ino;  /* identity of the opened file; 0, 0 if unknown */
	/* --- end of ABI 1.1 --- */
};

enum iob_file_type {
	IOB_FILE_UNKNOWN = 0,
	IOB_FILE_REGULAR = 1,
	IOB_FILE_BLOCKDEV = 2,
	IOB_FILE_CHARDEV = 3,
	IOB_FILE_STREAM = 4, /* fifo, socket, terminal */
	IOB_FILE_OTHER = 5,
};

/* One queued I/O (ABI 1.1, IOB_CAP_ASYNC).  The core fills every member but
 * result and owns the struct and the buffer; the backend sets result before
 * reap returns the I/O: bytes moved (with the read_at/write_at rules for
 * short counts) or -errno. */
struct iob_io {
	void *buf;      /* data to write, or room for len bytes read */
	size_t len;     /* bytes to move */
	uint64_t off;   /* file offset */
	uint32_t write; /* nonzero: write buf at off; zero: read into buf */
	int64_t result; /* set by the backend: bytes moved or -errno */
	void *user;     /* the core's, never touched by the backend */
	/* --- end of ABI 1.1 --- */
	uint32_t ioprio; /* ABI 1.5, IOB_CAP_IOPRIO: the I/O's priority; 0: the thread's */
};

struct iob_backend_ops {
	/* Required.  Open args->path; on success store a backend-owned handle in
	 * *handle and return 0.  Returns -errno on failure. */
	int (*open)(const struct iob_open_args *args, void **handle);
	/* Required.  Release the handle (and everything it owns).  Returns 0 or
	 * -errno (e.g. a deferred write error reported by close). */
	int (*close)(void *handle);
	/* Required with IOB_CAP_READ.  Read up to len bytes at off into buf.
	 * Returns bytes read (< len only at end of file; 0 at or past it) or
	 * -errno.  Never zero-fills past end of file.  Bytes of buf past the
	 * returned count are unspecified (O_DIRECT may overwrite them up to the
	 * file system block). */
	int64_t (*read_at)(void *handle, void *buf, size_t len, uint64_t off);
	/* Required with IOB_CAP_WRITE.  Write len bytes from buf at off.  Returns
	 * bytes written (a short count is reported, not retried) or -errno. */
	int64_t (*write_at)(void *handle, const void *buf, size_t len, uint64_t off);
	/* Optional (required with IOB_CAP_SYNC).  Make written data durable
	 * (fsync, msync, fflush+fsync).  Returns 0 or -errno. */
	int (*sync)(void *handle);
	/* Required.  Fill *info (the core zeroes it and sets struct_size). */
	int (*info)(void *handle, struct iob_file_info *info);
	/* Optional (required with IOB_CAP_TRUNCATE).  Set the file size.  Not
	 * called by this core: kept for layout and for tools built on the ABI. */
	int (*truncate)(void *handle, uint64_t size);
	/* Optional.  Escape hatch for backend-specific requests; an unknown op
	 * returns -ENOTSUP.  `arg` is owned by the caller.  The core calls
	 * IOB_CTL_CHECK_OPTIONS (below) with handle NULL. */
	int (*control)(void *handle, int op, void *arg);
	/* --- end of ABI 1.0 --- */
	/* Optional (required with IOB_CAP_ASYNC); called by the engine's queued
	 * loop (iodepth > 1).  Queue n I/Os (1 <= n, and at most the
	 * open args' queue_depth minus those already in flight) and return
	 * without waiting: the number queued (0..n; the rest may be submitted
	 * again later; -EAGAIN as 0) or -errno when none was.  Queuing a first
	 * part and failing on the rest is returning the part: the error comes
	 * from the next call (the core counts the part as in flight and fails
	 * the phase, reaping it).  ios[] and every struct iob_io
	 * and its buffer belong to the core; the backend keeps only the iob_io
	 * pointers, and they, their buffers and their fields stay valid and
	 * untouched by the core until reap hands them back.  Buffers and
	 * offsets follow the alignment info() reports.  Not on the same handle
	 * as a read_at/write_at still running (one thread per handle). */
	int (*submit)(void *handle, struct iob_io *const *ios, size_t n);
	/* Optional (required with IOB_CAP_ASYNC).  Wait until at least min
	 * submitted I/Os (min <= in flight) have finished, store up to max of the
	 * finished ones in done[] (owned by the core, room for max), with each
	 * one's result set, and return how many it stored (min..max), or -errno
	 * (-EINTR when a signal interrupted the wait, -EAGAIN when it woke with
	 * nothing finished: the I/Os stay in flight and the core asks again).
	 * Only an I/O in flight may be handed back: the core refuses anything
	 * else as a broken contract.  min 0 never waits.  Every submitted I/O is reaped exactly once, before
	 * close; close with I/Os in flight waits for or cancels them. */
	int (*reap)(void *handle, struct iob_io **done, size_t min, size_t max);
	/* --- end of ABI 1.1 --- */
};

/* The designated initialisers of a backend's six common ops from the
 * functions p_open, p_close, p_read_at, p_write_at, p_sync and p_info, for
 * `static const struct iob_backend_ops x_ops = {IOB_BACKEND_OPS_OF(x)};`
 * (more members, such as .truncate or .control, may follow). */
#define IOB_BACKEND_OPS_OF(p)                                                                               \
	.open = p##_open, .close = p##_close, .read_at = p##_read_at, .write_at = p##_write_at,             \
	.sync = p##_sync, .info = p##_info

/* control() requests the core makes (ABI 1.1). */
/* Check backend options before anything is opened or created: handle is
 * NULL, arg is the option text ("k=v,..."; never NULL).  Return 0 when every
 * key is known and its value valid, else -EINVAL after one host log line
 * naming the bad key or value.  A backend without control() accepts only an
 * empty option text. */
#define IOB_CTL_CHECK_OPTIONS 1
/* The capabilities the backend has with these options, for a backend whose
 * options change them (io_uring's direct=1 makes it a direct-I/O backend):
 * handle is NULL, arg is a struct iob_option_caps whose options are already
 * checked and whose caps hold the plugin's own.  Set caps and return 0, or
 * return -ENOTSUP (the plugin's caps stand).  The core asks before anything
 * is opened, so that a direct job on a file system without direct I/O is
 * refused with the other checks, not at its open. */
#define IOB_CTL_OPTION_CAPS 2
struct iob_option_caps {
	const char *options; /* the option text ("k=v,..."; never NULL) */
	uint32_t caps;       /* in: the plugin's caps; out: with these options */
};
/* ABI 1.5: check where a job's files go, before anything is created, for a
 * backend that must look there first (e4defrag: the file system, its donor
 * file): handle is NULL, arg is a struct iob_target_check.  Return 0 when the
 * job can run there, -ENOTSUP when the backend has nothing to check (on
 * Linux the same value as -EOPNOTSUPP: never refuse with that one), or a
 * negative errno after one host log line saying why (the core puts that line
 * into its one error line, exit 2).  Create, change or remove nothing.  An
 * older core never asks. */
#define IOB_CTL_CHECK_TARGET 3
struct iob_target_check {
	size_t struct_size;  /* sizeof(struct iob_target_check) in the core */
	const char *options; /* the job's option text, already checked ("" for none) */
	const char *dir;     /* the directory the job's files are in */
	const char *path;    /* the job's first file (it may not exist yet) */
	uint32_t open_flags; /* IOB_OPEN_* its write phases open with (TRUNC: truncate = true); 0 without writes */
};

/* ------------------------------------------------------------------------ */
/* The result model: what outputs render.  All memory is owned by the core  */
/* and valid only for the duration of the call that passes it.              */

enum iob_unit {
	IOB_UNIT_NONE = 0,
	IOB_UNIT_BYTES = 1,       /* bytes (2^0); human output prints KiB/MiB/GiB */
	IOB_UNIT_BYTES_PER_S = 2, /* bytes per second; human output prints MiB/s */
	IOB_UNIT_NS = 3,          /* nanoseconds */
	IOB_UNIT_S = 4,           /* seconds */
	IOB_UNIT_OPS = 5,         /* operations (count) */
	IOB_UNIT_OPS_PER_S = 6,   /* operations per second */
	IOB_UNIT_COUNT = 7,       /* a plain count of things */
};

enum iob_type {
	IOB_T_U64 = 0,
	IOB_T_I64 = 1,
	IOB_T_F64 = 2, /* always finite: the core never hands out inf or nan */
	IOB_T_STR = 3, /* UTF-8, may be NULL meaning "absent" */
	IOB_T_BOOL = 4,
	IOB_T_LAT = 5, /* a latency summary, struct iob_latency */
};

/* Latency summary of one phase, in nanoseconds. */
struct iob_latency {
	uint64_t count; /* samples recorded */
	uint64_t min, max;
	double mean, stddev; /* population stddev */
	size_t npct;         /* entries in pct[] and value[] */
	const double *pct;   /* percentile ranks, ascending, e.g. 50.0, 99.9 */
	const uint64_t *value; /* value[i] is the pct[i]-th percentile, <= max */
	/* --- end of ABI 1.1 --- */
	/* ABI 1.2 (read only when the host's abi_minor is 2 or more): the
	 * histogram the summary comes from, its non-empty buckets in ascending
	 * order, each at a representative value (the bucket's midpoint in ns,
	 * clamped to [min, max], as the percentiles are; buckets that land on
	 * one ns value are one bin).  nbins 0 with a count: not available (a
	 * record received from another MPI rank). */
	size_t nbins;
	const uint64_t *bin_ns;    /* ascending, distinct */
	const uint64_t *bin_count; /* samples in each; they add up to count */
	/* --- end of ABI 1.2 --- */
};

/* One named value.  `key` already carries the unit where there is one
 * (bw_bytes_per_s, lat_ns, block_size_bytes); `unit` tells a renderer how to
 * scale it for people. */
struct iob_field {
	const char *key;
	uint32_t type; /* enum iob_type */
	uint32_t unit; /* enum iob_unit */
	union {
		uint64_t u;
		int64_t i;
		double f;
		const char *s;
		int b;
		const struct iob_latency *lat;
	} v;
};

/* One row of results.  Within a run, records of the same `kind` carry the
 * same keys in the same order.  An output meets a field whose `type` it does
 * not know (a newer core's) by skipping that field, with nothing printed for
 * it, and renders the rest: a newer type never makes a record fail. */
struct iob_record {
	/* "phase", "iotest", "io_profile", "block", ...; no field may be keyed
	 * "kind" (outputs print the kind under that key) */
	const char *kind;
	size_t nfields;
	const struct iob_field *fields;
};

/* Facts about the run, given once before any record. */
struct iob_run_info {
	size_t struct_size;
	const char *tool;    /* "iobench", "iotest", ... */
	const char *version; /* iobench version string */
	const char *host;    /* host name */
	const char *started; /* ISO 8601 local time with offset */
	const char *source;  /* profile path or command line, may be NULL */
	/* --- end of ABI 1.0 --- */
	const char *kernel;  /* "Linux 6.1.0 x86_64": the OS and its release */
	uint32_t schema;     /* version of the record schema (docs/outputs.md) */
	/* --- end of ABI 1.1 --- */
};

/* How the run ended, given once after the last record. */
struct iob_run_end {
	size_t struct_size;
	int status;        /* 0 ok, otherwise a negative errno or -1 */
	int interrupted;   /* nonzero when stopped by a signal */
	const char *error; /* one-line message when status != 0, else NULL */
	size_t nnotes;     /* caveats: cache, memory, direct I/O not in effect... */
	const char *const *notes;
	/* --- end of ABI 1.0 --- */
};

/* Where an output writes: a byte sink the core owns (stdout or a file). */
struct iob_sink {
	void *ctx;
	/* Write all len bytes; returns 0 or -errno. */
	int (*write)(void *ctx, const char *data, size_t len);
	const char *name; /* "stdout" or the file path, for messages */
	int is_terminal;  /* nonzero when a person is probably reading */
	/* --- end of ABI 1.0 --- */
	size_t struct_size; /* sizeof(struct iob_sink) in the core (1.1 and later) */
	/* --- end of ABI 1.1 --- */
	/* ABI 1.3 (read only when struct_size covers it).  A side file beside
	 * the sink's file, for an output whose ops name side_ext.  The host
	 * names it: the sink's file without a trailing side_ext, then ".", tag
	 * and side_ext (run.csv, tag "block", ".csv": run.block.csv; tag is
	 * [0-9A-Za-z_.-], not starting with '.').  The host opens it as it opens
	 * the sink's own file: no link followed, a regular file only, never a
	 * file the run reads or writes (data, profile, another output), emptied
	 * only now unless flags holds IOB_SIDE_APPEND; it fills *side with a
	 * sink writing to it, which stays the host's (closed, and its writes
	 * checked, with the output; its failures are named in the run's error
	 * line).  Returns 0 or -errno; on failure the host has said why.  NULL
	 * when the sink is not a regular file (standard output, a pipe, a
	 * device): an output then has no side files. */
	int (*open_side)(void *ctx, const char *tag, unsigned flags, struct iob_sink *side);
	/* ABI 1.3: up to len bytes from the start of the sink's file (to check
	 * what a file being appended to already holds); the count, or -errno.
	 * NULL when the sink is not a regular file. */
	long (*read_head)(void *ctx, char *buf, size_t len);
	/* --- end of ABI 1.3 --- */
};

/* open_side flags */
#define IOB_SIDE_APPEND 0x1u /* keep what the side file holds and add to it */

struct iob_output_ops {
	/* Required.  Prepare to render onto sink (valid until close).  `args` is
	 * the text after "name:" in --output name:args=FILE, or NULL.  Store state
	 * in *state.  Returns 0 or -errno (-EINVAL for bad args, with a log). */
	int (*open)(const struct iob_sink *sink, const char *args, void **state);
	/* Required.  Called once, before any record. */
	int (*begin_run)(void *state, const struct iob_run_info *run);
	/* Required.  Called once per record, in order. */
	int (*record)(void *state, const struct iob_record *rec);
	/* Required.  Called once, last; must leave a complete document behind
	 * (e.g. json closes its braces and adds the error member). */
	int (*end_run)(void *state, const struct iob_run_end *end);
	/* Required.  Free state; must not write after end_run. */
	int (*close)(void *state);
	/* --- end of ABI 1.0 --- */
	/* ABI 1.3: the ending of the side files this output opens through
	 * sink->open_side (".csv"), or NULL: it opens none (open_side refuses).
	 * The run's checks refuse, before anything is created, any file the run
	 * reads or writes that such a side file could be ("<file without
	 * side_ext>.*side_ext" beside the output's file).  An output never opens
	 * a file itself. */
	const char *side_ext;
	/* --- end of ABI 1.3 --- */
};

/* ABI 1.4: a backend's declared options.  A backend that declares them
 * (struct iob_plugin.options) has its backend_options text ("k=v,...")
 * parsed and checked by the core, which names the unknown or bad one in its
 * one error line, lists them in `iobench plugins --options NAME`, and then
 * still asks control(IOB_CTL_CHECK_OPTIONS), if the backend has it, for
 * rules across options.  The backend reads the same text at open(). */
enum iob_option_type {
	IOB_OPT_BOOL = 1,  /* 0 or 1 */
	IOB_OPT_COUNT = 2, /* a whole number from min to max */
	IOB_OPT_WORD = 3,  /* one of words ("a|b|c") */
	IOB_OPT_NAME = 4,  /* ABI 1.5: a file name in the job's directory: 1 to 255 bytes, no '/', not . or .. */
};
struct iob_option_decl {
	const char *name;  /* [a-z0-9_]+ */
	uint32_t type;     /* enum iob_option_type */
	const char *def;   /* the default as written ("0", "rw") */
	uint64_t min, max; /* IOB_OPT_COUNT */
	const char *words; /* IOB_OPT_WORD: "a|b|c" */
	const char *help;  /* one line */
};

/* ------------------------------------------------------------------------ */
/* The descriptor every plugin returns.                                      */

enum iob_plugin_kind {
	IOB_PLUGIN_BACKEND = 1,
	IOB_PLUGIN_OUTPUT = 2,
};

struct iob_plugin {
	uint32_t abi_major;  /* IOB_ABI_MAJOR the plugin was built with */
	uint32_t abi_minor;  /* IOB_ABI_MINOR the plugin was built with */
	size_t struct_size;  /* sizeof(struct iob_plugin) as built */
	uint32_t kind;       /* enum iob_plugin_kind */
	uint32_t caps;       /* backends: IOB_CAP_*; outputs: 0 */
	const char *name;    /* [a-z0-9_]+, unique among loaded plugins of a kind */
	const char *summary; /* one line for `iobench plugins` */
	size_t ops_size;     /* sizeof(*backend) or sizeof(*output) as built */
	const struct iob_backend_ops *backend; /* for IOB_PLUGIN_BACKEND */
	const struct iob_output_ops *output;   /* for IOB_PLUGIN_OUTPUT */
	/* --- end of ABI 1.0 --- */
	/* ABI 1.4: a backend's declared options (NULL: not declared; the core
	 * then asks control(IOB_CTL_CHECK_OPTIONS) alone, as for 1.3 and older) */
	const struct iob_option_decl *options;
	size_t noptions;
	/* --- end of ABI 1.4 --- */
};

/* The one exported symbol.  `host` stays valid until the plugin is unloaded.
 * Returns NULL to refuse loading (after logging why). */
typedef const struct iob_plugin *(*iob_plugin_entry_fn)(const struct iob_host *host);

/* Every plugin defines this function (and exports nothing else). */
IOB_PLUGIN_EXPORT const struct iob_plugin *iob_plugin_entry(const struct iob_host *host);

/* Helper for plugin authors: fill the version fields. */
#define IOB_PLUGIN_HEADER                                                        \
	.abi_major = IOB_ABI_MAJOR, .abi_minor = IOB_ABI_MINOR,                   \
	.struct_size = sizeof(struct iob_plugin)

/* Registration: a plugin's source ends with one of
 *
 *   IOB_BACKEND_PLUGIN(my_host, "name", "one-line summary", IOB_CAP_READ | ..., &my_ops);
 *   IOB_BACKEND_PLUGIN_OPTIONS(my_host, "name", "summary", caps, &my_ops, my_options);
 *   IOB_OUTPUT_PLUGIN(my_host, "name", "one-line summary", &my_ops);
 *
 * which define the descriptor and iob_plugin_entry: the entry refuses a host
 * of another major (NULL: the layout of a foreign host table is unknown, so
 * there is nothing to log with), saves the host in my_host (the plugin's own
 * `static const struct iob_host *my_host;`, declared before the code that
 * logs) and returns the descriptor, built with this header's ABI version. */
#define IOB_PLUGIN_DEFINE_(host_var, kind_, caps_, name_, summary_, ops_type, ops_member, ops_ptr, opts_, nopts_) \
	static const struct iob_plugin iob_plugin_descriptor_ = {                                          \
	    IOB_PLUGIN_HEADER,                                                                             \
	    .kind = (kind_),                                                                               \
	    .caps = (caps_),                                                                               \
	    .name = (name_),                                                                               \
	    .summary = (summary_),                                                                         \
	    .ops_size = sizeof(ops_type),                                                                  \
	    .ops_member = (ops_ptr),                                                                       \
	    .options = (opts_),                                                                            \
	    .noptions = (nopts_),                                                                          \
	};                                                                                                 \
	IOB_PLUGIN_EXPORT const struct iob_plugin *iob_plugin_entry(const struct iob_host *host)           \
	{                                                                                                  \
		if (!host || host->abi_major != IOB_ABI_MAJOR)                                             \
			return NULL;                                                                       \
		host_var = host;                                                                           \
		return &iob_plugin_descriptor_;                                                            \
	}                                                                                                  \
	struct iob_plugin_defined_ /* takes the caller's semicolon */
#define IOB_BACKEND_PLUGIN(host_var, name, summary, caps, ops)                                             \
	IOB_PLUGIN_DEFINE_(host_var, IOB_PLUGIN_BACKEND, caps, name, summary, struct iob_backend_ops, backend, ops, \
			   NULL, 0)
/* A backend with declared options: decls is a static array of
 * struct iob_option_decl (ABI 1.4). */
#define IOB_BACKEND_PLUGIN_OPTIONS(host_var, name, summary, caps, ops, decls)                              \
	IOB_PLUGIN_DEFINE_(host_var, IOB_PLUGIN_BACKEND, caps, name, summary, struct iob_backend_ops, backend, ops, \
			   decls, sizeof(decls) / sizeof((decls)[0]))
/* The designated initialisers of an output's five ops from the functions
 * p_open, p_begin_run, p_record, p_end_run and p_close, for
 * `static const struct iob_output_ops x_ops = {IOB_OUTPUT_OPS_OF(x)};`
 * (more members, such as .side_ext, may follow). */
#define IOB_OUTPUT_OPS_OF(p)                                                                                \
	.open = p##_open, .begin_run = p##_begin_run, .record = p##_record, .end_run = p##_end_run,         \
	.close = p##_close
#define IOB_OUTPUT_PLUGIN(host_var, name, summary, ops)                                                    \
	IOB_PLUGIN_DEFINE_(host_var, IOB_PLUGIN_OUTPUT, 0, name, summary, struct iob_output_ops, output, ops, NULL, 0)
/* An output linked into a binary instead of loaded (a legacy tool's
 * renderer, handed to the runner): defines `const struct iob_plugin var`
 * over the functions p_open, p_begin_run, p_record, p_end_run and p_close,
 * with no entry point. */
#define IOB_BUILTIN_OUTPUT(var, p, name_, summary_)                                                         \
	static const struct iob_output_ops p##_ops = {IOB_OUTPUT_OPS_OF(p)};                                \
	const struct iob_plugin var = {IOB_PLUGIN_HEADER,                                                  \
				       .kind = IOB_PLUGIN_OUTPUT,                                          \
				       .name = (name_),                                                    \
				       .summary = (summary_),                                              \
				       .ops_size = sizeof(struct iob_output_ops),                          \
				       .output = &p##_ops}

#ifdef __cplusplus
}
#endif

#endif /* IOBENCH_PLUGIN_H */
