/*
 * io_uring.c - the "io_uring" backend: reads, writes and fsync through a
 * Linux io_uring (liburing), one ring per handle.
 *
 * Two ways in, on the same ring:
 *  - read_at/write_at (what the synchronous engine calls): one request
 *    submitted and waited for in a single io_uring_enter; a short count is
 *    resubmitted for the rest, with the same rules as posix (a read is short
 *    only at end of file; a write returns what went out before an error).
 *  - submit/reap (IOB_CAP_ASYNC, for the queued engine): submit queues up to
 *    the ring's free slots in the SQ and returns how many it took, without a
 *    system call; reap enters the ring once to submit them and wait (or, when
 *    enough completions are ready already, only to submit), until at least
 *    `min` completions are ready, and hands back up to `max`, each with
 *    iob_io.result set to what the kernel said (bytes, a short count as it
 *    is, or -errno) and iob_io.user untouched.  Completions come back in the
 *    order the kernel finished them.  Nothing is consumed from the ring
 *    before the wait succeeds, so -EINTR leaves every I/O in flight.
 *  The two must not overlap: read_at/write_at/sync with I/Os in flight
 *  return -EBUSY.  The ring has open_args.queue_depth entries (0 or 1 -> 1,
 *  rounded up to a power of two, at most 4096; a larger depth is clamped, and
 *  submit never accepts more than the ring holds).
 *
 * Options (backend_options, "k=v,..."; IOB_CTL_CHECK_OPTIONS checks them):
 *  - direct=0|1   O_DIRECT.  Caps are per plugin, so the plugin does not
 *                 claim IOB_CAP_DIRECT/ALIGNED: info() reports direct = 1 and
 *                 the alignment per handle, worked out as the direct backend
 *                 does (statx STATX_DIOALIGN, else BLKSSZGET, else 4096); tmpfs
 *                 and ramfs are refused before anything is created; misaligned
 *                 requests get -EINVAL and one log line, the kernel uncalled.
 *  - fadvise_random=0|1  posix_fadvise POSIX_FADV_RANDOM on the descriptor
 *                 after open: the kernel's readahead off for it (fio's
 *                 fadvise_hint for random jobs).
 *  - regfiles=0|1 register the descriptor (io_uring_register_files) and use
 *                 IOSQE_FIXED_FILE.  Not given: registered where the kernel
 *                 lets us, plain otherwise (a debug line says so).
 *  - regbufs=0|1  fixed buffers (not given: as regfiles, where the kernel
 *                 lets us, and a refused registration leaves that buffer and
 *                 any new one unregistered, with a debug line).  The core owns the buffers, so they are
 *                 registered on first use: the first I/O from a buffer address
 *                 not yet known registers [buf, buf+len) in a slot of a sparse
 *                 table (2 x ring entries + 2 slots; that one I/O pays a
 *                 registration system call), later I/O inside a registered
 *                 range uses READ_FIXED/WRITE_FIXED.  When the table is full,
 *                 further new buffers go unregistered (one warning per
 *                 handle).  Registration pins the pages, so a caller using
 *                 regbufs must keep every buffer it passes allocated until it
 *                 closes the handle: the engine does (it frees its buffers
 *                 after closing its files).  Pinned pages count against
 *                 RLIMIT_MEMLOCK for an unprivileged user; a refused
 *                 registration fails that I/O with its -errno and one line.
 *  - sqpoll=0|1   IORING_SETUP_SQPOLL: a kernel thread polls the submission
 *                 queue (idle after 50 ms), which costs a CPU while it spins.
 *  - submit_batch=N  (default 4) submit pushes the SQ to the kernel (one
 *                 io_uring_enter, no wait) each time N requests are queued in
 *                 it; the rest go with reap's enter, which also waits.  0 =
 *                 all of them at reap; 1 = each on its own (fio's default,
 *                 iodepth_batch_submit=1).  A device that starts work as soon
 *                 as it is told (a virtio disk) keeps more requests in flight
 *                 when told early, and every enter costs CPU
 *                 (docs/performance.md, scenario q, measured N = 0, 1, 2, 4,
 *                 8, 16).
 *
 * Refusal: when the kernel refuses io_uring (io_uring_setup fails with EPERM,
 * because /proc/sys/kernel/io_uring_disabled is 2, or 1 for a user outside
 * kernel.io_uring_group; or with ENOSYS, a kernel without io_uring or a
 * filter forbidding it), open returns that -errno after one line saying so
 * and what to use instead.  The ring is set up before the file is opened, so
 * a refused open creates nothing.  There is no fallback to another method.
 *
 * The ring is set up with IORING_SETUP_COOP_TASKRUN where the kernel has it
 * (5.19): completion work runs when the thread next enters the ring instead
 * of interrupting it.
 *
 * sync is IORING_OP_FSYNC on the ring.  info() takes file_type, dev and ino
 * from fstat on the descriptor; IOB_OPEN_NOFOLLOW is O_NOFOLLOW (-ELOOP).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_DIRECT, statx; the build defines it, a lone compile may not */
#endif
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/fs.h>    /* BLKSSZGET */
#include <linux/magic.h> /* TMPFS_MAGIC, RAMFS_MAGIC */
#include <sys/vfs.h>

#include <liburing.h>

#include "iobench/plugin.h"
#include "bopts.h"
#include "fdio.h"

#define URING_NAME "io_uring"
#define URING_MAX_ENTRIES 4096u
#define URING_SQPOLL_IDLE_MS 50u
#define URING_KNOWN "direct, regfiles, regbufs, sqpoll, submit_batch, fadvise_random"
#define URING_SYNC_TAG 0 /* user_data of a read_at/write_at/sync request */

struct uring_opts {
	int direct, regfiles, regbufs, sqpoll, fadvise_random;
	unsigned submit_batch; /* push the SQ at this many queued requests; 0: at reap */
};

/* The defaults (docs/performance.md, scenario q, has the measurements):
 * requests pushed to the kernel 4 at a time, and the descriptor and the
 * buffers registered where the kernel lets us (URING_AUTO: a refusal falls
 * back to plain descriptors and buffers instead of failing). */
#define URING_BATCH_DEFAULT 4u
#define URING_AUTO 2

struct uring_regbuf {
	uintptr_t base;
	size_t len;
};

struct uring_file {
	struct io_uring ring;
	int ring_ok;
	int fd;
	int sqe_fd;         /* fd, or 0 (the fixed-file index) with regfiles */
	uint8_t sqe_flags;  /* IOSQE_FIXED_FILE with regfiles */
	struct uring_opts o;
	uint32_t entries;   /* ring size: the most I/Os in flight */
	uint32_t inflight;  /* submitted and not yet reaped */
	uint32_t mem_align; /* direct: buffer alignment; else 1 */
	uint32_t io_align;  /* direct: offset and length alignment; else 1 */
	/* regbufs: slots[0..nreg) registered; hash maps a base address to its
	 * slot + 1 (0 = empty), open addressing, hmask + 1 entries */
	struct uring_regbuf *slots;
	uint32_t nslots, nreg, hmask, last;
	uint32_t *hash;
	int full_warned;
};

static const struct iob_host *uring_host;

/* ------------------------------------------------------------------------ */
/* Options.                                                                  */

static const struct bopts_field uring_fields[] = {
    BOPTS_BOOL(struct uring_opts, direct),  BOPTS_BOOL(struct uring_opts, fadvise_random),
    BOPTS_BOOL(struct uring_opts, regfiles), BOPTS_BOOL(struct uring_opts, regbufs),
    BOPTS_BOOL(struct uring_opts, sqpoll),  BOPTS_COUNT(struct uring_opts, submit_batch, URING_MAX_ENTRIES),
};

/* not DIRECT or ALIGNED: those depend on direct=1, reported per handle by info() */
static const struct iob_option_decl uring_options[] = {
	{.name = "direct", .type = IOB_OPT_BOOL, .def = "0", .help = "open with O_DIRECT, bypassing the page cache"},
	{.name = "fadvise_random", .type = IOB_OPT_BOOL, .def = "0",
	 .help = "posix_fadvise(POSIX_FADV_RANDOM) after open: no readahead"},
	{.name = "regfiles", .type = IOB_OPT_BOOL, .def = "where allowed",
	 .help = "register the descriptor (IOSQE_FIXED_FILE); not given: where the kernel lets the process"},
	{.name = "regbufs", .type = IOB_OPT_BOOL, .def = "where allowed",
	 .help = "fixed buffers, registered on first use; not given: where the kernel lets the process"},
	{.name = "sqpoll", .type = IOB_OPT_BOOL, .def = "0",
	 .help = "IORING_SETUP_SQPOLL: a kernel thread polls the queue (costs a CPU while it spins)"},
	{.name = "submit_batch", .type = IOB_OPT_COUNT, .def = "4", .min = 0, .max = URING_MAX_ENTRIES,
	 .help = "push the queued requests to the kernel each time this many are queued; 0: at the wait"},
};

static int uring_option(void *ctx, const char *key, const char *val)
{
	return bopts_set(uring_host, URING_NAME, uring_fields, sizeof(uring_fields) / sizeof(uring_fields[0]), ctx,
			 key, val, URING_KNOWN);
}

/* ------------------------------------------------------------------------ */
/* O_DIRECT: memory file systems and alignment (fdio.c, shared with direct.c). */

/* Refuse what O_DIRECT cannot do; one log line on refusal. */
static int uring_check(const struct uring_file *f, int write, const void *buf, size_t len, uint64_t off)
{
	if (off > (uint64_t)INT64_MAX || len > (size_t)INT64_MAX - off || len > UINT32_MAX)
		return -EINVAL;
	if (f->io_align <= 1)
		return 0;
	return fdio_dio_check(uring_host, URING_NAME, write ? "io_uring write" : "io_uring read", f->mem_align,
			      f->io_align, buf, len, off);
}

/* ------------------------------------------------------------------------ */
/* Registered buffers.                                                       */

static uint32_t uring_hash_of(const struct uring_file *f, uintptr_t base)
{
	return (uint32_t)(((uint64_t)base >> 4) * 0x9e3779b97f4a7c15ull >> 32) & f->hmask;
}

static int uring_regbufs_init(struct uring_file *f)
{
	uint32_t hsize = 1;
	int rc;

	f->nslots = 2 * f->entries + 2;
	while (hsize < 2 * f->nslots)
		hsize <<= 1;
	f->hmask = hsize - 1;
	f->slots = calloc(f->nslots, sizeof(*f->slots));
	f->hash = calloc(hsize, sizeof(*f->hash));
	if (!f->slots || !f->hash)
		return -ENOMEM;
	rc = io_uring_register_buffers_sparse(&f->ring, f->nslots);
	if (rc < 0 && f->o.regbufs == URING_AUTO) {
		uring_host->log(IOB_LOG_DEBUG, URING_NAME, "no buffer table (%s): buffers go unregistered",
				strerror(-rc));
		f->o.regbufs = 0;
		return 0;
	}
	if (rc < 0)
		uring_host->log(IOB_LOG_ERROR, URING_NAME,
				"regbufs=1: registering a table of %" PRIu32 " buffers failed: %s", f->nslots,
				strerror(-rc));
	return rc;
}

/* The slot holding [buf, buf+len), registering it on first use; -1 when it
 * goes unregistered (table full), or -errno. */
static int uring_regbuf_slot(struct uring_file *f, void *buf, size_t len)
{
	const uintptr_t b = (uintptr_t)buf;
	const struct uring_regbuf *last = &f->slots[f->last];
	uint32_t h = uring_hash_of(f, b);
	struct iovec iov;
	int rc;

	if (f->nreg && b >= last->base && b + len <= last->base + last->len)
		return (int)f->last;
	for (; f->hash[h]; h = (h + 1) & f->hmask) {
		const struct uring_regbuf *s = &f->slots[f->hash[h] - 1];
		if (s->base == b && len <= s->len) {
			f->last = f->hash[h] - 1;
			return (int)f->last;
		}
	}
	if (f->nreg == f->nslots) {
		if (!f->full_warned)
			uring_host->log(f->o.regbufs == URING_AUTO ? IOB_LOG_DEBUG : IOB_LOG_WARN, URING_NAME,
					"regbufs=1: all %" PRIu32 " buffer slots are in use; new buffers from "
					"here on are used unregistered",
					f->nslots);
		f->full_warned = 1;
		return -1;
	}
	iov.iov_base = buf;
	iov.iov_len = len;
	rc = io_uring_register_buffers_update_tag(&f->ring, f->nreg, &iov, NULL, 1);
	if (rc < 0 && f->o.regbufs == URING_AUTO) {
		/* not asked for: this buffer and any new one go unregistered */
		uring_host->log(IOB_LOG_DEBUG, URING_NAME,
				"registering a %zu-byte buffer was refused (%s): new buffers go unregistered", len,
				strerror(-rc));
		f->nslots = f->nreg;
		f->full_warned = 1;
		return -1;
	}
	if (rc < 0) {
		uring_host->log(IOB_LOG_ERROR, URING_NAME,
				"regbufs=1: registering a %zu-byte buffer failed: %s (pinned buffers count "
				"against RLIMIT_MEMLOCK; raise it or drop regbufs)",
				len, strerror(-rc));
		return rc;
	}
	f->slots[f->nreg].base = b;
	f->slots[f->nreg].len = len;
	f->hash[h] = f->nreg + 1;
	f->last = f->nreg++;
	return (int)f->last;
}

/* ------------------------------------------------------------------------ */
/* Open and close.                                                           */

static uint32_t uring_entries(const struct iob_open_args *args)
{
	uint32_t qd = fdio_queue_depth(uring_host, URING_NAME, args, URING_MAX_ENTRIES, "the ring");
	uint32_t e = 1;

	while (e < qd)
		e <<= 1;
	return e;
}

static int uring_disabled_value(void)
{
	FILE *fp = fopen("/proc/sys/kernel/io_uring_disabled", "re");
	int v = -1;

	if (fp) {
		if (fscanf(fp, "%d", &v) != 1)
			v = -1;
		fclose(fp);
	}
	return v;
}

static void uring_log_refusal(int rc)
{
	int v = uring_disabled_value();

	if (rc == -EPERM && v >= 1)
		uring_host->log(IOB_LOG_ERROR, URING_NAME,
				"io_uring is disabled for this process (/proc/sys/kernel/io_uring_disabled = %d%s); "
				"use backend posix or direct, or ask the administrator to enable it",
				v, v == 1 ? ", and this user is not in kernel.io_uring_group" : "");
	else
		uring_host->log(IOB_LOG_ERROR, URING_NAME,
				"io_uring is refused here: io_uring_setup failed with %s (a kernel without "
				"io_uring, or a sandbox forbidding it); use backend posix or direct",
				strerror(-rc));
}

static int uring_ring_init(struct uring_file *f)
{
	struct io_uring_params p;
	int rc;

	memset(&p, 0, sizeof(p));
	if (f->o.sqpoll) {
		p.flags |= IORING_SETUP_SQPOLL;
		p.sq_thread_idle = URING_SQPOLL_IDLE_MS;
		rc = io_uring_queue_init_params(f->entries, &f->ring, &p);
	} else {
		/* The kernel runs completion work when the thread next enters
		 * the ring rather than interrupting it to do so (Linux 5.19; an
		 * older kernel refuses the flag with EINVAL and gets a plain
		 * ring).  DEFER_TASKRUN was measured too: it charged the thread
		 * more CPU per I/O, not less (docs/performance.md). */
		p.flags = IORING_SETUP_COOP_TASKRUN;
		rc = io_uring_queue_init_params(f->entries, &f->ring, &p);
		if (rc == -EINVAL) {
			memset(&p, 0, sizeof(p));
			rc = io_uring_queue_init_params(f->entries, &f->ring, &p);
		}
	}
	if (rc < 0) {
		if (rc == -EPERM || rc == -ENOSYS)
			uring_log_refusal(rc);
		else
			uring_host->log(IOB_LOG_ERROR, URING_NAME,
					"io_uring_setup of a %" PRIu32 "-entry ring failed: %s", f->entries,
					strerror(-rc));
		return rc;
	}
	f->ring_ok = 1;
	return 0;
}

static void uring_free(struct uring_file *f)
{
	if (f->ring_ok)
		io_uring_queue_exit(&f->ring);
	if (f->fd >= 0)
		close(f->fd);
	free(f->slots);
	free(f->hash);
	free(f);
}

static int uring_open_file(struct uring_file *f, const struct iob_open_args *args)
{
	int oflags, rc;

	if (fdio_open_flags(uring_host, URING_NAME, args, &oflags) < 0)
		return -EINVAL;
	rc = fdio_open_file(uring_host, URING_NAME, args, oflags, f->o.direct, f->o.fadvise_random);
	if (rc < 0)
		return rc;
	f->fd = rc;
	return 0;
}

static int uring_open(const struct iob_open_args *args, void **handle)
{
	struct uring_file *f;
	int rc;

	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->fd = -1;
	f->mem_align = f->io_align = 1;
	f->o.submit_batch = URING_BATCH_DEFAULT;
	f->o.regfiles = f->o.regbufs = URING_AUTO;
	rc = bopts_each(bopts_of(args), uring_host, URING_NAME, uring_option, &f->o);
	if (rc == 0 && f->o.direct)
		rc = fdio_direct_refused(uring_host, URING_NAME, args);
	if (rc == 0) {
		f->entries = uring_entries(args);
		rc = uring_ring_init(f); /* before the file: a refusal creates nothing */
	}
	if (rc == 0)
		rc = uring_open_file(f, args);
	if (rc == 0 && f->o.regfiles) {
		rc = io_uring_register_files(&f->ring, &f->fd, 1);
		if (rc < 0 && f->o.regfiles == URING_AUTO) {
			uring_host->log(IOB_LOG_DEBUG, URING_NAME, "%s: descriptor not registered (%s)", args->path,
					strerror(-rc));
			f->o.regfiles = 0;
			rc = 0;
		} else if (rc < 0) {
			uring_host->log(IOB_LOG_ERROR, URING_NAME, "regfiles=1: registering %s failed: %s",
					args->path, strerror(-rc));
		}
	}
	if (rc == 0 && f->o.regbufs)
		rc = uring_regbufs_init(f);
	if (rc < 0) {
		uring_free(f);
		return rc;
	}
	f->sqe_fd = f->o.regfiles ? 0 : f->fd;
	f->sqe_flags = f->o.regfiles ? IOSQE_FIXED_FILE : 0;
	if (f->o.direct)
		fdio_find_alignment(uring_host, URING_NAME, f->fd, args->path, &f->mem_align, &f->io_align);
	*handle = f;
	return 0;
}

/* Wait for every I/O still in flight and drop its completion (close must not
 * return while the kernel may still write into a buffer).  submit_and_wait,
 * not wait_cqe: requests a transient failure left in the SQ must go first. */
static int uring_drain(struct uring_file *f)
{
	struct io_uring_cqe *cqe;
	unsigned head, seen;
	int rc;

	while (f->inflight > 0) {
		rc = io_uring_submit_and_wait(&f->ring, 1);
		if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY)
			return rc;
		seen = 0;
		io_uring_for_each_cqe(&f->ring, head, cqe)
		{
			if (io_uring_cqe_get_data(cqe) != NULL)
				f->inflight--;
			seen++;
		}
		io_uring_cq_advance(&f->ring, seen);
	}
	return 0;
}

static int uring_close(void *handle)
{
	struct uring_file *f = handle;
	int rc = uring_drain(f);

	io_uring_queue_exit(&f->ring);
	f->ring_ok = 0;
	if (close(f->fd) < 0 && rc == 0)
		rc = -errno;
	f->fd = -1;
	uring_free(f);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Preparing a request.                                                      */

/* A free SQE.  Fewer requests are in flight than the ring has entries, so a
 * full SQ only holds requests the kernel has not taken yet: push them, then
 * try once more.  With sqpoll, wait for the polling thread instead: it may
 * post a completion before it moves the SQ head, and the kernel's "SQ
 * wait" can return once it has fetched an entry but before the head the
 * ring shows has moved (seen under ThreadSanitizer: a synchronous write
 * right after the one before found the one-entry SQ still full), so wait
 * and yield until the head moves, a bounded number of times. */
#define URING_SQ_WAIT_TRIES 100000
static struct io_uring_sqe *uring_get_sqe(struct uring_file *f)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&f->ring);

	if (sqe)
		return sqe;
	if (!f->o.sqpoll) {
		io_uring_submit(&f->ring);
		return io_uring_get_sqe(&f->ring);
	}
	for (int tries = 0; !sqe && tries < URING_SQ_WAIT_TRIES; tries++) {
		if (tries)
			sched_yield();
		io_uring_sqring_wait(&f->ring);
		sqe = io_uring_get_sqe(&f->ring);
	}
	return sqe;
}

/* Take an SQE and fill it for one read or write: the registered-buffer
 * lookup comes first, so a failure leaves the SQ untouched.  Returns the SQE,
 * or NULL with *err set (-EBUSY: the SQ is full; or a registration -errno). */
static struct io_uring_sqe *uring_prep(struct uring_file *f, int write, void *buf, size_t len, uint64_t off,
				       int *err)
{
	struct io_uring_sqe *sqe;
	int slot = -1;

	if (f->o.regbufs) {
		slot = uring_regbuf_slot(f, buf, len);
		if (slot < -1) {
			*err = slot;
			return NULL;
		}
	}
	sqe = uring_get_sqe(f);
	if (!sqe) {
		*err = -EBUSY;
		return NULL;
	}
	if (slot >= 0 && write)
		io_uring_prep_write_fixed(sqe, f->sqe_fd, buf, (unsigned)len, off, slot);
	else if (slot >= 0)
		io_uring_prep_read_fixed(sqe, f->sqe_fd, buf, (unsigned)len, off, slot);
	else if (write)
		io_uring_prep_write(sqe, f->sqe_fd, buf, (unsigned)len, off);
	else
		io_uring_prep_read(sqe, f->sqe_fd, buf, (unsigned)len, off);
	sqe->flags |= f->sqe_flags;
	return sqe;
}

/* Submit what is in the SQ and wait for the one synchronous completion. */
static int uring_wait_one(struct uring_file *f)
{
	struct io_uring_cqe *cqe;
	int rc, res;

	/* retried until the request is in: returning with it still in the SQ
	 * would leave a completion behind for the next call to mistake */
	do {
		rc = io_uring_submit_and_wait(&f->ring, 1);
	} while (rc == -EINTR || rc == -EAGAIN || rc == -EBUSY);
	if (rc < 0)
		return rc;
	do {
		rc = io_uring_wait_cqe(&f->ring, &cqe);
	} while (rc == -EINTR);
	if (rc < 0)
		return rc;
	res = cqe->res;
	io_uring_cqe_seen(&f->ring, cqe);
	return res;
}

/* ------------------------------------------------------------------------ */
/* Synchronous ops: one request, submitted and waited for in one enter.     */

static int64_t uring_one(void *file, int write, char *buf, size_t len, uint64_t off)
{
	struct uring_file *f = file;
	int err = 0;
	struct io_uring_sqe *sqe = uring_prep(f, write, buf, len, off, &err);

	if (!sqe)
		return err;
	io_uring_sqe_set_data(sqe, URING_SYNC_TAG);
	int64_t n = uring_wait_one(f);
	return n == -EAGAIN ? -EINTR : n; /* both: try again */
}

FDIO_QUEUED_FILE(uring, struct uring_file);

static int uring_sync(void *handle)
{
	struct uring_file *f = handle;
	struct io_uring_sqe *sqe;
	int res;

	if (f->inflight)
		return -EBUSY;
	sqe = uring_get_sqe(f);
	if (!sqe)
		return -EBUSY;
	io_uring_prep_fsync(sqe, f->sqe_fd, 0);
	sqe->flags |= f->sqe_flags;
	io_uring_sqe_set_data(sqe, URING_SYNC_TAG);
	res = uring_wait_one(f);
	return res < 0 ? res : 0;
}

/* ------------------------------------------------------------------------ */
/* Queued ops.                                                               */

/* Hand the queued requests to the kernel without waiting.  Any it does not
 * take (EAGAIN, EBUSY, EINTR) stay in the SQ for the next enter; another
 * failure is logged and retried there too. */
static void uring_push(struct uring_file *f)
{
	int rc = io_uring_submit(&f->ring);

	if (rc < 0 && rc != -EAGAIN && rc != -EBUSY && rc != -EINTR)
		uring_host->log(IOB_LOG_WARN, URING_NAME, "io_uring_enter failed: %s (retried at the next reap)",
				strerror(-rc));
}

/* One queued I/O into the SQ (fdio_submit_each's prep): checked, an SQE
 * filled, pushed when submit_batch are waiting. */
static int uring_submit_one(void *file, size_t k, struct iob_io *io)
{
	struct uring_file *f = file;
	struct io_uring_sqe *sqe;
	int rc = uring_check(f, io->write != 0, io->buf, io->len, io->off);

	(void)k;
	if (rc < 0)
		return rc;
	sqe = uring_prep(f, io->write != 0, io->buf, io->len, io->off, &rc);
	if (!sqe)
		return rc;
	io_uring_sqe_set_data(sqe, io);
	sqe->ioprio = (uint16_t)io->ioprio; /* IOB_CAP_IOPRIO; 0: the thread's */
	if (f->o.submit_batch && io_uring_sq_ready(&f->ring) >= f->o.submit_batch)
		uring_push(f);
	return 0;
}

static int uring_submit(void *handle, struct iob_io *const *ios, size_t n)
{
	struct uring_file *f = handle;
	/* no room: the ring is full, reap first */
	int k = fdio_submit_each(f, ios, n, f->entries - f->inflight, uring_submit_one);

	if (k > 0)
		f->inflight += (uint32_t)k;
	/* The requests wait in the SQ for the next enter, in reap, which
	 * submits them and waits for completions in one system call.  Any the
	 * kernel does not take then (EAGAIN, EBUSY, EINTR) stay there for the
	 * one after: they count as queued. */
	return k;
}

static int uring_reap(void *handle, struct iob_io **done, size_t min, size_t max)
{
	struct uring_file *f = handle;
	struct io_uring_cqe *cqe;
	unsigned head, seen = 0;
	size_t got = 0;
	int rc;

	if (min > f->inflight)
		min = f->inflight; /* never wait for what cannot come */
	if (min > max)
		min = max;
	if (io_uring_cq_ready(&f->ring) >= min && io_uring_sq_ready(&f->ring) > 0)
		uring_push(f); /* no wait: push what submit queued (the wait below does both) */
	while (io_uring_cq_ready(&f->ring) < min) {
		/* nothing is consumed before this succeeds: -EINTR loses nothing */
		rc = io_uring_submit_and_wait(&f->ring, (unsigned)min);
		if (rc < 0 && rc != -EAGAIN && rc != -EBUSY)
			return rc;
	}
	io_uring_for_each_cqe(&f->ring, head, cqe)
	{
		struct iob_io *io = io_uring_cqe_get_data(cqe);

		if (got == max)
			break;
		seen++;
		if (!io)
			continue; /* not a queued request's */
		io->result = cqe->res;
		done[got++] = io;
	}
	io_uring_cq_advance(&f->ring, seen);
	f->inflight -= (uint32_t)got;
	return (int)got;
}

/* ------------------------------------------------------------------------ */
/* Options (info and truncate: FDIO_QUEUED_FILE above).                      */

static int uring_control(void *handle, int op, void *arg)
{
	struct uring_opts o = {0};

	return bopts_control(handle, op, arg, uring_host, URING_NAME, uring_option, &o, &o.direct);
}

BOPTS_PLUGIN(uring, URING_NAME, "Linux io_uring (liburing): queued reads and writes; O_DIRECT with direct=1",
	     IOB_CAP_READ | IOB_CAP_WRITE | IOB_CAP_SYNC | IOB_CAP_TRUNCATE | IOB_CAP_ASYNC |
		 IOB_CAP_UNCOUNTED | IOB_CAP_WORKERS | IOB_CAP_IOPRIO,
	     BOPTS_QUEUED_OPS(uring));
