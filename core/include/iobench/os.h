/*
 * iobench/os.h - the operating-system seam.  Every POSIX (later Win32) call the
 * core makes goes through here; only os_posix.c (later os_win32.c) implements
 * it.  Functions return 0 or a negative errno unless stated otherwise.
 */
#ifndef IOBENCH_OS_H
#define IOBENCH_OS_H

#include <stddef.h>
#include <stdint.h>
#include <signal.h>

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

/* Physical memory in bytes, 0 if unknown. */
uint64_t iob_physical_memory(void);
/* Free memory in bytes (MemFree), 0 if unknown. */
uint64_t iob_free_memory(void);
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
/* Write back everything (sync(2)). */
void iob_sync_all(void);
/* Drop the whole page cache (writes /proc/sys/vm/drop_caches; needs root). */
int iob_drop_caches(void);

/* Dynamic loading. */
void *iob_dl_open(const char *path, char *err, size_t errlen);
void *iob_dl_sym(void *handle, const char *name);
void iob_dl_close(void *handle);
/* Directory holding the running executable, or "" if unknown. */
void iob_exe_dir(char *buf, size_t len);
/* Owner-and-mode check for a plugin file or directory: -EPERM (with a reason
 * in why) when writable by anyone but its owner and root. */
int iob_check_trusted(const char *path, char *why, size_t whylen);
/* List entries of a directory: calls fn for every name (not . or ..). */
int iob_list_dir(const char *dir, void (*fn)(void *arg, const char *name), void *arg);

/* Write text to a new private temporary file; its path goes to path. */
int iob_write_temp(const char *text, size_t len, char *path, size_t pathlen);

/* Install SIGINT/SIGTERM handlers that set *flag to the signal number (the
 * first signal only; a second one of the same kind kills as usual). */
void iob_install_stop_handlers(volatile sig_atomic_t *flag);

/* /proc/self/io rchar and wchar, -ENOTSUP elsewhere. */
int iob_proc_io(uint64_t *rchar, uint64_t *wchar, uint64_t *read_bytes);

/* The offset and length alignment direct (O_DIRECT) I/O needs for files at
 * `path`: a regular file, or a directory where files would be created (probed
 * through an unnamed O_TMPFILE, so no name appears and nothing is left).
 * Returns 0, -EINVAL when that file system cannot do direct I/O at all or is
 * a memory file system (tmpfs, ramfs: its page cache is the storage), or
 * -ENOTSUP when the OS cannot tell. */
int iob_dio_alignment(const char *path, uint32_t *align);

/* Page-cache residency of the bytes [off, off + len) of a regular file (len 0:
 * to its end), clipped to the file's size: *total_pages is the number of pages
 * the range touches, *resident_pages how many of them are in the page cache.
 * Counted by cachestat(2) where the kernel has it (Linux 6.5+; IOBENCH_NO_CACHESTAT
 * set skips it), else by mincore(2) on a mapping of the range.  Exact up to 4096
 * pages; a larger range is sampled (256 runs of 16 pages, one in each equal
 * stratum) and *resident_pages is the scaled estimate: see os_posix.c for its
 * error.  About 0.06 ms (cachestat) or 0.3 ms (mincore) for a cached GiB, where
 * probing every page took 10.  Returns 0, -ENOTSUP for a path that is not a
 * regular file or where the OS cannot tell, or another negative errno. */
int iob_cache_residency_range(const char *path, uint64_t off, uint64_t len, uint64_t *resident_pages,
			      uint64_t *total_pages);

#endif
