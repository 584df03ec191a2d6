/*
 * mmap.c - the "mmap" backend: the file is mapped MAP_SHARED and I/O is a
 * memcpy out of (read) or into (write) the mapping; sync is msync(MS_SYNC).
 * It measures page-fault driven I/O through the page cache.
 *
 * Two sizes are kept apart:
 *   size     the logical size: the file's size at open, moved by writes
 *            past it and by truncate.  Reads never see past it.
 *   map_len  the size of the mapping, which is also the file's size on disk
 *            while open.  It may be larger than `size`: at open, a writable
 *            handle extends the file to args->size_hint (so a write phase
 *            maps once), and a write past map_len grows the file geometrically
 *            (ftruncate, then a new mapping).  close truncates the file back
 *            to `size` when it was over-extended.
 *
 * Edges:
 *  - An empty file has no mapping (mmap of 0 bytes is an error); reads
 *    return 0 and the first write creates the mapping.
 *  - A read running past `size` returns the bytes up to it; at or past it, 0.
 *  - Only a write that crosses map_len makes system calls (amortised by the
 *    geometric growth, and avoided entirely when size_hint is given).
 *  - A page the kernel cannot back makes it raise SIGBUS on access: the file
 *    was truncated under the mapping (by another process), the disk is full
 *    when a written page of a sparse extension needs a block, or the device
 *    failed.  Every copy runs under a guard that turns a fault inside the
 *    mapping being copied into an error: read_at returns -EIO; write_at
 *    returns -EIO when the file is now shorter than the write's end, else
 *    -ENOSPC.  The guard is a per-thread pointer to the handle being copied,
 *    set before the memcpy and cleared after it, and a process-wide SIGBUS
 *    handler (put in place at every open).  For a fault inside that handle's
 *    mapping, the handler puts a page of zeros (anonymous, MAP_FIXED) where
 *    the faulting page was, counts the fault and returns, so the copy runs
 *    to its end; the copy then sees the count, maps the file back over the
 *    pages it touched (so the next access faults again, as the file is) and
 *    returns the error.  Per call that is two stores and a test: no
 *    sigsetjmp, no system call.  A SIGBUS anywhere else, or one whose page
 *    cannot be replaced (the kernel refuses the mapping), goes to the
 *    handler that was there before (the default one kills the process, as
 *    without this backend).
 *  - sync does not shrink an over-extended file; close does.
 *  - IOB_OPEN_NOFOLLOW opens with O_NOFOLLOW: a symlink fails with -ELOOP.
 *    info() takes file_type, dev and ino from fstat on the open descriptor.
 *  - Backend options: populate=0|1 (default 0).  populate=1 maps with
 *    MAP_POPULATE: the kernel reads the file and fills the page tables when
 *    the mapping is made (at open and at each growth), so a later read phase
 *    measures copies from memory rather than page faults.  Other keys are
 *    refused with -EINVAL.
 */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* the build defines _GNU_SOURCE; a lone -std=c11 compile may not */
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iobench/plugin.h"
#include "bopts.h"
#include "fdio.h"

#define MMAP_NAME "mmap"

struct mmap_file {
	int fd;
	int writable;
	int populate;       /* backend option populate=1: MAP_POPULATE */
	char *path;         /* for messages */
	unsigned char *map; /* NULL when map_len == 0 */
	uint64_t map_len;   /* bytes mapped == bytes in the file on disk */
	uint64_t size;      /* logical size */
	uint64_t page;      /* page size, for rounding growth */
};

static const struct iob_host *mmap_host;

/* ------------------------------------------------------------------------ */
/* The SIGBUS guard.                                                         */

/* One per thread: the handle whose mapping a copy is touching (NULL outside
 * a copy), and the faults the handler turned into pages of zeros during it.
 * initial-exec TLS: reading it from the signal handler allocates nothing. */
struct mmap_guard {
	struct mmap_file *cur;
	volatile sig_atomic_t faults;
	int writing;	/* the copy in progress: what mmap_copy_faulted needs */
	uint64_t off;
	size_t n;
};

#if defined(__GNUC__)
#define MMAP_TLS __thread __attribute__((tls_model("initial-exec")))
#else
#define MMAP_TLS _Thread_local
#endif
static MMAP_TLS struct mmap_guard mmap_guard;
static struct sigaction mmap_old_bus;
static int mmap_bus_installed;

static void mmap_on_bus(int sig, siginfo_t *si, void *uc)
{
	struct mmap_guard *g = &mmap_guard;
	const struct mmap_file *f = __atomic_load_n(&g->cur, __ATOMIC_RELAXED);
	struct sigaction dfl;

	if (f && si && (const unsigned char *)si->si_addr >= f->map &&
	    (const unsigned char *)si->si_addr < f->map + f->map_len) {
		/* a page of zeros where the file's page could not be: the copy
		 * goes on; mmap_copy_faulted maps the file back */
		uintptr_t pg = (uintptr_t)si->si_addr & ~(uintptr_t)(f->page - 1);
		if (mmap((void *)pg, (size_t)f->page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			 -1, 0) != MAP_FAILED) {
			g->faults++;
			return;
		}
	}
	if (mmap_old_bus.sa_flags & SA_SIGINFO) {
		mmap_old_bus.sa_sigaction(sig, si, uc);
		return;
	}
	if (mmap_old_bus.sa_handler != SIG_DFL && mmap_old_bus.sa_handler != SIG_IGN) {
		mmap_old_bus.sa_handler(sig);
		return;
	}
	/* not ours and nobody else's: die of it, as without this backend (an
	 * ignored SIGBUS from a fault would repeat forever) */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(SIGBUS, &dfl, NULL);
	raise(SIGBUS);
}

/* Make mmap_on_bus the SIGBUS handler, chaining to the one found there.
 * Called at every open (not per I/O): whoever installed a handler after us
 * (a test harness, a library) is chained to rather than left to swallow our
 * faults.  A spin lock keeps opens on several threads from racing here. */
static void mmap_install_guard(void)
{
	static atomic_flag lock = ATOMIC_FLAG_INIT;
	struct sigaction sa, cur;

	while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
		;
	if (sigaction(SIGBUS, NULL, &cur) == 0 &&
	    !((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == mmap_on_bus)) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = mmap_on_bus;
		sa.sa_flags = SA_SIGINFO | SA_NODEFER;
		sigemptyset(&sa.sa_mask);
		mmap_old_bus = cur; /* set before ours can run */
		if (sigaction(SIGBUS, &sa, NULL) == 0)
			mmap_bus_installed = 1;
	}
	atomic_flag_clear_explicit(&lock, memory_order_release);
}

/* dlclose: hand SIGBUS back, unless someone replaced our handler since. */
__attribute__((destructor)) static void mmap_uninstall_guard(void)
{
	struct sigaction cur;

	if (!mmap_bus_installed || sigaction(SIGBUS, NULL, &cur) != 0)
		return;
	if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == mmap_on_bus)
		sigaction(SIGBUS, &mmap_old_bus, NULL);
	mmap_bus_installed = 0;
}

/* What a fault during a copy of [off, end) means. */
static int mmap_fault_error(const struct mmap_file *f, int writing, uint64_t off, uint64_t end)
{
	struct stat st;
	int rc = -EIO;

	if (writing && fstat(f->fd, &st) == 0 && (uint64_t)st.st_size >= end)
		rc = -ENOSPC; /* the file covers the range: no block to back a page */
	mmap_host->log(IOB_LOG_INFO, MMAP_NAME,
		       "%s: the mapping faulted (SIGBUS) %s bytes %" PRIu64 "..%" PRIu64 ": %s", f->path,
		       writing ? "writing" : "reading", off, end,
		       rc == -EIO ? "the file is shorter than its mapping (truncated under it?) or unreadable"
				  : "the file system could not back the written pages (full?)");
	return rc;
}

/* The copy of [off, off + n) faulted: map the file back over the pages the
 * handler replaced (every page of the range), then say what the fault
 * means.  Should the kernel refuse even that, the handle gives up its
 * mapping (reads see an empty file, writes fail) rather than serve zeros. */
__attribute__((noinline, cold)) static int mmap_copy_faulted(void)
{
	struct mmap_file *f = mmap_guard.cur;
	const int writing = mmap_guard.writing;
	const uint64_t off = mmap_guard.off;
	const size_t n = mmap_guard.n;
	uint64_t lo = off & ~(f->page - 1), hi = off + n < f->map_len ? off + n : f->map_len;
	int prot = PROT_READ | (f->writable ? PROT_WRITE : 0);

	mmap_guard.faults = 0;
	mmap_guard.cur = NULL;
	if (hi > lo && mmap(f->map + lo, (size_t)(hi - lo), prot, MAP_SHARED | MAP_FIXED, f->fd, (off_t)lo) ==
			       MAP_FAILED) {
		mmap_host->log(IOB_LOG_ERROR, MMAP_NAME, "%s: cannot map the file back after a fault: %s; "
			       "giving up the mapping", f->path, strerror(errno));
		munmap(f->map, (size_t)f->map_len);
		f->map = NULL;
		f->map_len = 0;
		f->size = 0;
		f->writable = 0;
	}
	return mmap_fault_error(f, writing, off, off + n);
}

/* memcpy between the mapping (at off) and a caller buffer, under the guard.
 * Returns n or the error of a fault.  The signal fences keep the compiler
 * from moving the guard's stores across the copy.  What the slow path needs
 * goes in the guard rather than in registers saved across the memcpy. */
static inline int64_t mmap_copy(struct mmap_file *f, void *dst, const void *src, size_t n, int writing, uint64_t off)
{
	struct mmap_guard *g = &mmap_guard;

	g->writing = writing;
	g->off = off;
	g->n = n;
	__atomic_store_n(&g->cur, f, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	memcpy(dst, src, n);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__builtin_expect(g->faults != 0, 0))
		return mmap_copy_faulted();
	__atomic_store_n(&g->cur, NULL, __ATOMIC_RELAXED);
	return (int64_t)g->n;
}

/* ------------------------------------------------------------------------ */
/* Mapping.                                                                  */

/* Replace the mapping with one of new_len bytes (none for 0).  The file must
 * already be at least new_len bytes long. */
static int mmap_remap(struct mmap_file *f, uint64_t new_len)
{
	void *p = NULL;

	if (new_len > SIZE_MAX)
		return -EFBIG;
	if (new_len > 0) {
		int prot = PROT_READ | (f->writable ? PROT_WRITE : 0);
		int flags = MAP_SHARED;
#ifdef MAP_POPULATE
		if (f->populate)
			flags |= MAP_POPULATE;
#endif
		p = mmap(NULL, (size_t)new_len, prot, flags, f->fd, 0);
		if (p == MAP_FAILED)
			return -errno;
	}
	if (f->map)
		munmap(f->map, (size_t)f->map_len);
	f->map = p;
	f->map_len = new_len;
	return 0;
}

/* Set the on-disk size to `len` and map all of it. */
static int mmap_resize(struct mmap_file *f, uint64_t len)
{
	int rc;

	if (len > (uint64_t)INT64_MAX)
		return -EFBIG;
	do {
		rc = ftruncate(f->fd, (off_t)len);
	} while (rc < 0 && errno == EINTR);
	if (rc < 0)
		return -errno;
	return mmap_remap(f, len);
}

/* Make room for `need` bytes: double the mapping (at least a page) until it
 * covers them, rounded up to a page. */
static int mmap_grow(struct mmap_file *f, uint64_t need)
{
	uint64_t len = f->map_len > f->page ? f->map_len : f->page;

	while (len < need) {
		if (len > UINT64_MAX / 2)
			return -EFBIG;
		len *= 2;
	}
	len = (len + f->page - 1) / f->page * f->page;
	return mmap_resize(f, len);
}

static int mmap_setup(struct mmap_file *f, const struct iob_open_args *args)
{
	struct stat st;
	uint64_t on_disk;

	if (fstat(f->fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode)) {
		mmap_host->log(IOB_LOG_ERROR, MMAP_NAME, "%s: only regular files can be mapped", args->path);
		return -EINVAL;
	}
	on_disk = (uint64_t)st.st_size;
	f->size = on_disk;
	if (f->writable && args->size_hint > on_disk)
		return mmap_resize(f, args->size_hint);
	return mmap_remap(f, on_disk);
}

static const struct iob_option_decl mmap_options[] = {
	{.name = "populate", .type = IOB_OPT_BOOL, .def = "0",
	 .help = "map with MAP_POPULATE: the kernel reads the file when the mapping is made"},
};

static int mmap_option(void *ctx, const char *key, const char *val)
{
	int *populate = ctx;

	if (strcmp(key, "populate") != 0)
		return bopts_unknown(mmap_host, MMAP_NAME, key, "populate");
	if (bopts_bool(mmap_host, MMAP_NAME, key, val, populate) < 0)
		return -EINVAL;
#ifndef MAP_POPULATE
	if (*populate) {
		mmap_host->log(IOB_LOG_ERROR, MMAP_NAME, "backend option populate=1: this OS has no MAP_POPULATE");
		return -EINVAL;
	}
#endif
	return 0;
}

static void mmap_free(struct mmap_file *f)
{
	free(f->path);
	free(f);
}

static int mmap_open(const struct iob_open_args *args, void **handle)
{
	struct mmap_file *f;
	uint32_t fl = args->flags;
	int oflags, rc, populate = 0;

	rc = bopts_each(bopts_of(args), mmap_host, MMAP_NAME, mmap_option, &populate);
	if (rc < 0)
		return rc;
	mmap_install_guard();
	rc = fdio_open_flags(mmap_host, MMAP_NAME, args, &oflags);
	if (rc < 0)
		return rc;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->writable = (fl & IOB_OPEN_WRITE) != 0;
	f->populate = populate;
	f->path = strdup(args->path);
	if (!f->path) {
		free(f);
		return -ENOMEM;
	}
	f->page = (uint64_t)sysconf(_SC_PAGESIZE);
	if (f->page == 0 || f->page > (1u << 30))
		f->page = 4096;
	/* A shared writable mapping needs a descriptor open for reading too. */
	if (f->writable)
		oflags = (oflags & ~O_ACCMODE) | O_RDWR;
	f->fd = fdio_open(args->path, oflags, args->mode);
	if (f->fd < 0) {
		rc = f->fd;
		mmap_free(f);
		return rc;
	}
	rc = mmap_setup(f, args);
	if (rc < 0) {
		mmap_host->log(IOB_LOG_ERROR, MMAP_NAME, "%s: cannot map: %s", args->path, strerror(-rc));
		if (f->map)
			munmap(f->map, (size_t)f->map_len);
		close(f->fd);
		mmap_free(f);
		return rc;
	}
	*handle = f;
	return 0;
}

static int mmap_close(void *handle)
{
	struct mmap_file *f = handle;
	int rc = 0;

	if (f->map && munmap(f->map, (size_t)f->map_len) < 0)
		rc = -errno;
	if (f->writable && f->map_len > f->size && ftruncate(f->fd, (off_t)f->size) < 0 && rc == 0) {
		rc = -errno;
		mmap_host->log(IOB_LOG_ERROR, MMAP_NAME, "cannot trim the file back to %" PRIu64 " bytes: %s",
			       f->size, strerror(-rc));
	}
	if (close(f->fd) < 0 && rc == 0)
		rc = -errno;
	mmap_free(f);
	return rc;
}

static int64_t mmap_read_at(void *handle, void *buf, size_t len, uint64_t off)
{
	struct mmap_file *f = handle;
	uint64_t n;

	if (off >= f->size)
		return 0;
	n = f->size - off;
	if (n > len)
		n = len;
	if (n > (uint64_t)INT64_MAX)
		n = (uint64_t)INT64_MAX;
	return mmap_copy(f, buf, f->map + off, (size_t)n, 0, off);
}

static int64_t mmap_write_at(void *handle, const void *buf, size_t len, uint64_t off)
{
	struct mmap_file *f = handle;
	uint64_t end;
	int64_t n;
	int rc;

	if (!f->writable)
		return -EBADF;
	if (len > (size_t)INT64_MAX || off > (uint64_t)INT64_MAX - len)
		return -EFBIG;
	if (len == 0)
		return 0;
	end = off + len;
	if (end > f->map_len) {
		rc = mmap_grow(f, end);
		if (rc < 0)
			return rc;
	}
	n = mmap_copy(f, f->map + off, buf, len, 1, off);
	if (n < 0)
		return n;
	if (end > f->size)
		f->size = end;
	return n;
}

static int mmap_sync(void *handle)
{
	struct mmap_file *f = handle;

	if (f->map && msync(f->map, (size_t)f->map_len, MS_SYNC) < 0)
		return -errno;
	return 0;
}

static int mmap_info(void *handle, struct iob_file_info *info)
{
	struct mmap_file *f = handle;

	info->size = f->size; /* the logical size: the file on disk may run past it until close */
	return fdio_buffered_info(f->fd, info, 0);
}

static int mmap_truncate(void *handle, uint64_t size)
{
	struct mmap_file *f = handle;
	int rc;

	if (!f->writable)
		return -EBADF;
	rc = mmap_resize(f, size);
	if (rc < 0)
		return rc;
	f->size = size;
	return 0;
}

static int mmap_control(void *handle, int op, void *arg)
{
	int populate = 0;

	return bopts_control(handle, op, arg, mmap_host, MMAP_NAME, mmap_option, &populate, NULL);
}

BOPTS_PLUGIN(mmap, MMAP_NAME, "memcpy to and from a MAP_SHARED mapping; sync is msync",
	     IOB_CAP_READ | IOB_CAP_WRITE | IOB_CAP_SYNC | IOB_CAP_TRUNCATE | IOB_CAP_SIZE_HINT |
		 IOB_CAP_UNCOUNTED,
	     BOPTS_FILE_OPS(mmap));
