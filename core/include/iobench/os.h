/*
 * iobench/os.h - the operating-system seam.  Every POSIX or Win32 call the
 * core makes goes through here; only os_posix*.c (os_win32*.c on Windows) implement
 * it.  Functions return 0 or a negative errno unless stated otherwise.
 */
#ifndef IOBENCH_OS_H
#define IOBENCH_OS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <signal.h>

#include "iobench/path.h"

/* Monotonic wall clock in nanoseconds. */
uint64_t iob_now_ns(void);

/* Clocks a tool may time with (bigread's mode=). */
enum iob_clock {
	IOB_CLOCK_USER = 0,    /* user CPU time of this process */
	IOB_CLOCK_SYSTEM = 1,  /* system CPU time of this process */
	IOB_CLOCK_PROCESS = 2, /* user + system CPU time of this process */
	IOB_CLOCK_WALL = 3,    /* monotonic wall clock */
};
/* Current reading of `clock` in nanoseconds. */
uint64_t iob_clock_ns(enum iob_clock clock);
/* Resolution of `clock` in nanoseconds (at least 1). */
uint64_t iob_clock_resolution_ns(enum iob_clock clock);

void *iob_alloc_aligned(size_t alignment, size_t size);
void iob_free_aligned(void *ptr);
/* Make the pages of [p, p + len) present and writable without writing them
 * (Linux: madvise MADV_POPULATE_WRITE, one call instead of a fault a page).
 * 0, or -errno (-ENOTSUP where the OS has no such call): then touch them. */
int iob_mem_populate(void *p, size_t len);

/* Physical memory in bytes, 0 if unknown. */
uint64_t iob_physical_memory(void);
/* The memory page size in bytes (sysconf _SC_PAGESIZE; Windows: the page
 * size of GetSystemInfo); the processors online (_SC_NPROCESSORS_ONLN). */
uint64_t iob_page_size(void);
unsigned iob_cpus_online(void);
/* Free memory in bytes (MemFree), 0 if unknown. */
uint64_t iob_free_memory(void);
/* Memory a process can still allocate without swapping, in bytes (Linux:
 * MemAvailable; Windows: the available physical memory), 0 if unknown. */
uint64_t iob_available_memory(void);
/* Host name (short), always NUL-terminated. */
void iob_hostname(char *buf, size_t len);
/* Current time as ISO 8601 with offset, and as YYYYMMDD.HHMMSS. */
void iob_time_iso8601(char *buf, size_t len);
void iob_time_stamp(char *buf, size_t len);
int iob_is_root(void);

/* What a path is, without following a final symlink unless follow != 0. */
enum iob_path_kind {
	IOB_PATH_MISSING = 0,
	IOB_PATH_REGULAR,
	IOB_PATH_DIRECTORY,
	IOB_PATH_BLOCKDEV,
	IOB_PATH_CHARDEV,
	IOB_PATH_SYMLINK,
	IOB_PATH_OTHER, /* fifo, socket */
};
enum iob_path_kind iob_path_kind(const char *path, int follow);
/* Size of a regular file, or -errno. */
int iob_file_size(const char *path, uint64_t *size);
/* Size of a block device: opened read-only without following a link (unless
 * follow), checked a block device on the handle (fstat), its length read by
 * seeking to its end; -errno, -ENOTBLK when it is not one (Windows: -ENOTSUP). */
int iob_blockdev_size(const char *path, int follow, uint64_t *size);
/* Bytes available to an unprivileged writer on the file system holding path. */
int iob_fs_free_bytes(const char *path, uint64_t *bytes);
/* Create a directory (one level); an existing directory is fine. */
int iob_mkdir(const char *path);
int iob_remove_file(const char *path);
int iob_remove_dir(const char *path);
/* 0 when the current user can create files in directory `dir`. */
int iob_dir_writable(const char *dir);

/* Page-cache residency of a whole file: iob_cache_residency_range(path, 0, 0, ...). */
int iob_cache_residency(const char *path, uint64_t *resident_pages, uint64_t *total_pages);
/* Write back and evict one file from the page cache (fsync + fadvise). */
int iob_cache_evict(const char *path);
/* Drop one file's cached pages in [off, off + len) (len 0: to the end),
 * without waiting: dirty pages are sent to storage and dropped once written
 * (fadvise DONTNEED alone, what fio's invalidate does at each pass). */
int iob_cache_drop_range(const char *path, uint64_t off, uint64_t len);
/* Write back everything (sync(2)). */
void iob_sync_all(void);
/* Drop the whole page cache (writes /proc/sys/vm/drop_caches; needs root). */
int iob_drop_caches(void);

/* Bytes of holes (never written, read as zeros without reaching storage) in
 * the first len bytes of a regular file (len 0: all of it), found with
 * SEEK_HOLE/SEEK_DATA.  -ENOTSUP where the OS or file system cannot tell. */
int iob_file_holes(const char *path, uint64_t len, uint64_t *hole_bytes);
/* The same over the ranges next(arg, &off, &len) gives in turn (0 when
 * done), each counted as often as it comes: one handle for them all. */
int iob_file_holes_in(const char *path, int (*next)(void *arg, uint64_t *off, uint64_t *len), void *arg,
		      uint64_t *hole_bytes);
/* "Linux 6.1.0 x86_64" */
void iob_kernel(char *buf, size_t len);
/* The file system holding path: its type ("ext4", "tmpfs"), block size and
 * the device or source it is mounted from; "unknown" where not found. */
int iob_fs_facts(const char *path, char *fstype, size_t fslen, uint64_t *block_size, char *device, size_t devlen);
/* 0 when this user may read (write != 0: write) the existing path, else
 * -errno (access(2): the real user's rights). */
int iob_path_access(const char *path, int write);
/* Identity of the file system holding path (st_dev). */
int iob_path_device(const char *path, uint64_t *dev);
/* One line of f into *line (grown as needed, with its newline); its length,
 * or -1 at end of file or on error (getline). */
long iob_getline(char **line, size_t *cap, FILE *f);
/* Is f a terminal? */
int iob_is_terminal(FILE *f);
/* Write all len bytes to descriptor fd, going on after a signal interrupts
 * the write or after a partial write; 0 or -errno. */
int iob_write_all(int fd, const void *data, size_t len);
/* The descriptor under a stdio stream. */
int iob_stream_fd(FILE *f);
/* Is f a pipe (FIFO)?  0 on Windows. */
int iob_stream_is_pipe(FILE *f);
/* Wait up to timeout_ms for the reader of pipe f to go (every read end
 * closed); once it has, send SIGPIPE to the process, as a write to the pipe
 * would have raised it, and return 1; else 0.  Returns 0 at once when
 * wake_fd (-1: none) becomes readable (iob_wake_pipe: the watcher's owner
 * stops it without waiting out the timeout).  The calling thread (a
 * watcher) blocks the stop signals, so the handler runs in another thread.
 * 0 on Windows. */
int iob_stream_reader_gone(FILE *f, int wake_fd, int timeout_ms);
/* A pipe to wake a watcher with: fds[0] for iob_stream_reader_gone, a byte
 * written to fds[1] wakes it.  0, or -errno (-ENOTSUP on Windows). */
int iob_wake_pipe(int fds[2]);
void iob_wake_pipe_close(int fds[2]);
/* Standard input, output and error that are closed at start are opened on
 * the null device, so that no file the run opens later becomes one of them.
 * Returns a mask of those that were closed (1 stdin, 2 stdout, 4 stderr),
 * or -errno when one could not be opened.  0 on Windows. */
int iob_std_fds_reopen(void);
/* Run argv (looked up on PATH) with stdio on /dev/null; 0 when it exited 0. */
int iob_run_quiet(char *const argv[]);
/* Sleep ns nanoseconds; returns early once *stop is set (stop may be NULL). */
void iob_sleep_ns(uint64_t ns, volatile sig_atomic_t *stop);

/* Directories held open, so that a path swapped mid-run changes nothing:
 * runner_files.c opens a job's directory chain once and works relative to it. */
#define IOB_AT_CWD (-100) /* `at` meaning the current directory */
struct iob_identity {
	uint64_t dev, ino;
	enum iob_path_kind kind; /* IOB_PATH_SYMLINK for a link itself */
	uint32_t uid;		 /* owner */
};
/* Open directory `name` relative to the directory open on `at` (IOB_AT_CWD:
 * the current directory; an absolute name ignores at), following a final
 * symlink only when follow != 0.  Returns the descriptor (close-on-exec),
 * with what was opened in *id (may be NULL), or -errno: -ELOOP when name is
 * a symlink that was not followed, -ENOTDIR when it is not a directory. */
int iob_dir_open_at(int at, const char *name, int follow, struct iob_identity *id);
/* Create directory `name` (one level) in the directory open on `at`; -EEXIST
 * when anything is there already. */
int iob_mkdir_at(int at, const char *name);
/* Open `name` in the directory open on `at` for writing a run's own file
 * (an output, a live CSV, a log; outfile.c): never through a final symlink
 * (-ELOOP), never waiting on a FIFO, never truncated; created when missing
 * (*made = 1: this call created it).  append: opened for reading and
 * appending.  Returns the descriptor (close-on-exec) with what was opened
 * in *id (fstat on the descriptor), or -errno. */
int iob_out_open_at(int at, const char *name, int append, int *made, struct iob_identity *id);
/* Empty the file open on fd (ftruncate to 0). */
int iob_fd_truncate(int fd);
/* Up to len bytes from the start of the file open on fd; count or -errno. */
long iob_fd_read_head(int fd, char *buf, size_t len);
/* A stdio stream over fd (fdopen); NULL with errno. */
FILE *iob_fd_stream(int fd, const char *mode);
/* What `name` in the directory open on `at` is, without following a link. */
int iob_stat_at(int at, const char *name, struct iob_identity *id);
/* Remove the entry `name` of the directory open on `at` (unlinkat: a link
 * is removed itself, never followed); dir != 0 removes an empty directory. */
int iob_remove_at(int at, const char *name, int dir);
/* A path that reaches `name` inside the directory open on fd whatever later
 * happens to the directory's own path ("/proc/self/fd/N/name"), so code that
 * opens by path opens relative to what was checked.  -ENOTSUP where the OS
 * has no such path (then only the path remains: see docs/security.md). */
int iob_path_of_fd(int fd, const char *name, char *out, size_t outlen);
/* The effective user id. */
uint32_t iob_euid(void);

/* Dynamic loading. *//* Dynamic loading. */
void *iob_dl_open(const char *path, char *err, size_t errlen);
void *iob_dl_sym(void *handle, const char *name);
void iob_dl_close(void *handle);
/* Directory holding the running executable, or "" if unknown. */
void iob_exe_dir(char *buf, size_t len);
/* The plugin trust check (docs/security.md) on a plugin file or directory,
 * done on descriptors as iob_plugin_open does: 0, or -errno (-EPERM for an
 * untrusted owner or mode) with a one-line reason in why. */
int iob_check_trusted(const char *path, char *why, size_t whylen);
/* List entries of a directory: calls fn for every name (not . or ..). */
int iob_list_dir(const char *dir, void (*fn)(void *arg, const char *name), void *arg);

/* Write text to a new private temporary file; its path goes to path. */
int iob_write_temp(const char *text, size_t len, char *path, size_t pathlen);

/* Install handlers for SIGINT, SIGTERM, SIGHUP and SIGPIPE that set *flag
 * to the signal number (the first signal only), so the run stops at the next
 * check with partial results and exits 128 + n.  A second SIGINT, SIGTERM or
 * SIGHUP kills as usual.  SIGPIPE stays caught: a write to a closed pipe then
 * fails with EPIPE, which the outputs report, instead of killing the process
 * before it can finish its other outputs and remove its scratch files. */
void iob_install_stop_handlers(volatile sig_atomic_t *flag);

/* Identity of the file at path (stat, following symlinks): device, inode and
 * kind.  -errno when it cannot be stat()ed (-ENOENT: missing). */
int iob_file_identity(const char *path, uint64_t *dev, uint64_t *ino, enum iob_path_kind *kind);
/* The same for what an open stream refers to (e.g. stdout). */
int iob_stream_identity(FILE *f, uint64_t *dev, uint64_t *ino, enum iob_path_kind *kind);
/* Absolute path of an existing path with every symlink, "." and ".."
 * resolved (realpath); -errno on failure, -ENAMETOOLONG when out is short. */
int iob_real_path(const char *path, char *out, size_t outlen);

/* /proc/self/io rchar and wchar (bytes passed to read and write system
 * calls), read_bytes and write_bytes (bytes the kernel sent to or fetched
 * from storage for the process, all its threads: read_bytes when a read is
 * submitted to the block layer, write_bytes when a page is first dirtied or a
 * direct write submitted; UINT64_MAX when not counted); -ENOTSUP elsewhere.
 * Any pointer may be NULL. */
int iob_proc_io(uint64_t *rchar, uint64_t *wchar, uint64_t *read_bytes, uint64_t *write_bytes);

/* The offset and length alignment direct (O_DIRECT) I/O needs for files at
 * `path`: a regular file, or a directory where files would be created (probed
 * through an unnamed O_TMPFILE, so no name appears and nothing is left).
 * Returns 0, -EINVAL when that file system cannot do direct I/O at all or is
 * a memory file system (tmpfs, ramfs: its page cache is the storage), or
 * -ENOTSUP when the OS cannot tell. */
int iob_dio_alignment(const char *path, uint32_t *align);

/* Open plugin file `name` (no directory part) in directory `dir` for
 * loading: walk from / to dir one component at a time without following
 * links, checking each directory on its descriptor (owned by root or the
 * effective user; not writable by group or others, except a sticky ancestor
 * such as /tmp); open the file with O_NOFOLLOW (a symbolic link is refused)
 * and check it the same way on its descriptor.  Returns the descriptor
 * (close-on-exec) or -errno with a one-line reason in why. */
int iob_plugin_open(const char *dir, const char *name, char *why, size_t whylen);
/* dlopen the file open on *fd through /proc/self/fd/N, so what is loaded is
 * what was checked.  *fd may be replaced by a duplicate (the old one is then
 * closed); keep it open while the object stays loaded.  NULL with a reason. */
void *iob_dl_open_fd(int *fd, char *err, size_t errlen);
/* 1 when a symbol from iob_dl_sym is a function, 0 when it is data,
 * -ENOTSUP when the OS cannot tell. */
int iob_dl_sym_is_code(void *sym);
void iob_fd_close(int fd);
/* 1 when the file open on fd (a plugin, at most 256 MiB) holds the n bytes
 * of needle somewhere, 0 when not (or it cannot tell: Windows), -errno when
 * it cannot be read.  The file is mapped, not read: its offset is untouched
 * and /proc's read count does not grow. */
int iob_fd_contains(int fd, const void *needle, size_t n);
/* Run fn(arg, out, outlen) in a short-lived child process and copy what it
 * left in out back.  0 when fn returned; -ECHILD with a reason in why ("crashed
 * (signal 11, ...)", "exited (status 0)") when the child died
 * first; another -errno when no child could be started. */
int iob_run_isolated(void (*fn)(void *arg, void *out, size_t outlen), void *arg, void *out, size_t outlen,
		     char *why, size_t whylen);
/* fopen with a UTF-8 path ("e" in mode: close-on-exec / not inherited). */
FILE *iob_fopen(const char *path, const char *mode);
/* Make argv UTF-8 (Windows: from the UTF-16 command line; elsewhere it is
 * left as it is).  Call first in main. */
void iob_utf8_args(int *argc, char ***argv);
/* Wine's version when running under wine (Windows build), else NULL. */
const char *iob_wine_version(void);
/* Separator of directory lists such as IOBENCH_PLUGIN_PATH. */
#if defined(_WIN32)
#define IOB_PATH_LIST_SEP ";"
#else
#define IOB_PATH_LIST_SEP ":"
#endif
/* Page-cache residency of the bytes [off, off + len) of a regular file (len 0:
 * to its end), clipped to the file's size: *total_pages is the number of pages
 * the range touches, *resident_pages how many of them are in the page cache.
 * Counted by cachestat(2) where the kernel has it (Linux 6.5+; IOBENCH_NO_CACHESTAT
 * set skips it), else by mincore(2) on a mapping of the range.  Exact up to 4096
 * pages.  cachestat counts a larger range exactly, in growing chunks, for about
 * 20 us, and samples what is left then (64 runs of 16 pages, one in each equal
 * stratum); mincore samples it all (256 runs of 16 pages); *resident_pages is then
 * the scaled estimate: see os_posix_cache.c for its error.  At most about 0.1 ms
 * (cachestat) or 0.3 ms (mincore) whatever the range, where one cachestat call over
 * a GiB cached in 4 KiB pages took 0.4-2 ms and probing every page by mincore 10.  Returns 0, -ENOTSUP for a path that is not a
 * regular file or where the OS cannot tell, or another negative errno. */
int iob_cache_residency_range(const char *path, uint64_t off, uint64_t len, uint64_t *resident_pages,
			      uint64_t *total_pages);
/* Bytes of a regular file still not on storage: its pages in the page cache
 * that are dirty or under writeback, by cachestat(2) over the whole file (one
 * call, about 11 ns a cached page).  A symbolic link is not followed.
 * Returns 0, -ENOTSUP where the OS cannot tell (no cachestat: mincore cannot
 * see dirt; IOBENCH_NO_CACHESTAT set; not a regular file), or -errno. */
int iob_cache_unwritten(const char *path, uint64_t *bytes);

/* Threads (streams.c).  A thread runs fn(arg) once; join waits for it and
 * frees it.  0 or -errno. */
struct iob_thread;
int iob_thread_start(struct iob_thread **t, void (*fn)(void *arg), void *arg);
void iob_thread_join(struct iob_thread *t);
/* Ends a thread that polls *stop (atomically): sets it, then joins. */
static inline void iob_thread_stop(struct iob_thread *t, int *stop)
{
	__atomic_store_n(stop, 1, __ATOMIC_RELEASE);
	iob_thread_join(t);
}
/* A barrier for `count` threads: each waiter blocks until `count` have
 * arrived, then all go on; it may be used again for the next round. */
struct iob_barrier;
int iob_barrier_init(struct iob_barrier **b, unsigned count);
void iob_barrier_wait(struct iob_barrier *b);
/* Count as arrived without waiting (a thread that will never wait: a stream
 * that failed, or one that could not be started). */
void iob_barrier_arrive(struct iob_barrier *b);
/* Wait at most ns for b's first round to be over (`count` arrivals), without
 * arriving: 1 once it is, else 0 (the time ran out, or a spurious wake-up:
 * the caller asks again). */
int iob_barrier_await_ns(struct iob_barrier *b, uint64_t ns);
void iob_barrier_destroy(struct iob_barrier *b);
/* NUMA placement of the calling thread (numa.c; Linux, else -ENOTSUP).
 * iob_numa_sys_read reads /sys/devices/system/node/NAME ("online",
 * "has_cpu", "has_memory", "node3/cpulist") into buf, its first line
 * (-ENOENT: no such node or no NUMA in this kernel).  A place is a CPU
 * affinity (a mask of CPUs) and a memory policy (Linux's MPOL_* mode, as
 * set_mempolicy takes it, over a mask of nodes); iob_place_get reads the
 * calling thread's, iob_place_set sets what it holds (cpus when cpus_set,
 * the policy when mode >= 0): 0, or -errno with the call that failed in
 * *what. */
#define IOB_PLACE_WORDS 16 /* 1024 CPUs or nodes */
struct iob_place {
	int cpus_set;
	uint64_t cpus[IOB_PLACE_WORDS];
	int mode; /* -1: the policy is left as it is */
	uint64_t nodes[IOB_PLACE_WORDS];
};
int iob_numa_sys_read(const char *name, char *buf, size_t len);
int iob_place_get(struct iob_place *p);
int iob_place_set(const struct iob_place *p, const char **what);
/* Run fn exactly once in the process, however many threads call this with
 * the same *flag (initially 0); every caller returns after fn has run. */
void iob_once(int *flag, void (*fn)(void));
/* /proc/thread-self/io rchar and wchar of the calling thread (its own reads
 * of that file left out), and read_bytes and write_bytes as iob_proc_io's
 * (the calling thread's only), -ENOTSUP elsewhere.  Any pointer may be NULL. */
int iob_proc_thread_io(uint64_t *rchar, uint64_t *wchar, uint64_t *read_bytes, uint64_t *write_bytes);
/* CPU time used so far, user and system, in ns: of the calling thread
 * (thread != 0, RUSAGE_THREAD) or of the whole process. */
int iob_cpu_times_ns(int thread, uint64_t *user_ns, uint64_t *sys_ns);
/* The calling thread's I/O priority (Linux's ioprio_set and ioprio_get on
 * the thread: class << 13 | level), as ionice sets it.  0 or the value, or
 * -errno (-EPERM: class 1 without the privilege; -ENOTSUP off Linux). */
int iob_thread_ioprio_set(unsigned value);
int iob_thread_ioprio_get(void);

#endif
