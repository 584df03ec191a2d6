/*
 * fault_backend.c - a test-only backend, "fault", that wraps another backend
 * and injects failures, for the reliability tests (never installed).
 *
 * Configured by its backend options (profile key backend_options, the tools'
 * --backend-options), checked by IOB_CTL_CHECK_OPTIONS and applied at every
 * open.  The counters below run over the whole process; they start again
 * only when an open brings another option text.
 *     wrap=PATH                       the backend .so to wrap (required)
 *     op=read|write|sync|open|close   which operation fails (default write)
 *     err=EIO|ENOSPC|EINTR|short|fill errno to return, "short": move half, or
 *                                     "fill": fill the file system holding the
 *                                     file (a side file .iob-filler next to it),
 *                                     then forward the call, which then meets
 *                                     the kernel's own ENOSPC, or
 *                                     "truncate": cut the file to zero bytes
 *                                     (truncate(2) on its path, as another
 *                                     process would), then forward the call, or
 *                                     "over": forward the call, then claim
 *                                     one byte more than was asked (a backend
 *                                     breaking its contract)
 *     after_calls=N                   fail from the (N+1)-th call of op on
 *     after_bytes=N                   fail once op has moved N bytes
 *     persist=0|1                     every call after that (1, default) or once
 *     tally=PATH                      at exit, write to PATH one line
 *                                     "submitted S reaped R bytes B": the
 *                                     queued I/Os the engine submitted, those
 *                                     it reaped and the bytes they moved, over
 *                                     the whole process (an outside check that
 *                                     nothing was left in flight)
 * The environment's IOB_FAULT_AFTER_CALLS=N, when set, overrides after_calls
 * (so one MPI rank can fail while every rank runs the same suite).
 * It forwards everything else to the wrapped backend unchanged (without
 * options).  Its capabilities are those of the posix backend without
 * IOB_CAP_STREAM, plus IOB_CAP_ASYNC: submit and reap are forwarded when the
 * wrapped backend has them (io_uring) and refused with -ENOTSUP when it has
 * not.  A wrapped backend needing more (direct) is not supported.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/plugin.h"
#include "bopts.h"

#define FAULT_NAME "fault"
#define FAULT_KEYS "wrap, op, err, after_calls, after_bytes, persist, tally"

enum fault_op { F_READ, F_WRITE, F_SYNC, F_OPEN, F_CLOSE };

static const struct iob_host *fault_host;
static const struct iob_plugin *inner;
static struct iob_backend_ops inner_ops;
static char inner_path[4096]; /* the .so inner came from */

struct fault_cfg {
	enum fault_op op;
	int err; /* negative errno, or 0 for a short transfer */
	unsigned long long after_calls, after_bytes;
	int persist;
	unsigned long long calls, bytes;
	int fired;
	int fill;     /* err=fill; 2 once filled */
	int truncate; /* err=truncate */
	int over;     /* err=over */
	char wrap[4096];
	char last_path[4096];
	char tally[4096];
};
static const struct fault_cfg cfg_default = {.op = F_WRITE, .err = -EIO, .persist = 1};
static struct fault_cfg cfg = {.op = F_WRITE, .err = -EIO, .persist = 1};
static char cfg_text[BOPTS_MAX_TEXT]; /* the option text cfg was made from */
static int cfg_set;

/* Streams call the backend from several threads: the counters are the
 * process's, kept under one lock. */
static pthread_mutex_t cfg_lock = PTHREAD_MUTEX_INITIALIZER;

static int should_fail_locked(enum fault_op op, size_t len);

/* Should this call of `op` fail?  Counts it either way. */
static int should_fail(enum fault_op op, size_t len)
{
	pthread_mutex_lock(&cfg_lock);
	int rc = should_fail_locked(op, len);
	pthread_mutex_unlock(&cfg_lock);
	return rc;
}

static int should_fail_locked(enum fault_op op, size_t len)
{
	if (op != cfg.op)
		return 0;
	int trip = cfg.calls >= cfg.after_calls && cfg.bytes >= cfg.after_bytes;
	cfg.calls++;
	if (!trip || (cfg.fired && !cfg.persist)) {
		cfg.bytes += len;
		return 0;
	}
	cfg.fired = 1;
	return 1;
}

/* Take every free byte of the file system that holds cfg.last_path. */
static void fill_disk(void)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", cfg.last_path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		snprintf(dir, sizeof dir, ".");
	char side[4200];
	snprintf(side, sizeof side, "%s/.iob-filler", dir);
	int fd = open(side, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	static char zeros[65536];
	struct statvfs sv;
	if (statvfs(dir, &sv) == 0 && posix_fallocate(fd, 0, (off_t)(sv.f_bavail * sv.f_frsize)) == 0) {
		close(fd);
		return;
	}
	while (write(fd, zeros, sizeof zeros) > 0)
		;
	while (write(fd, zeros, 512) > 0)
		;
	close(fd);
}

static int fault_configure(const char *text);

static int fault_open(const struct iob_open_args *a, void **h)
{
	pthread_mutex_lock(&cfg_lock);
	int rc = fault_configure(bopts_of(a));
	if (rc == 0)
		snprintf(cfg.last_path, sizeof cfg.last_path, "%s", a->path);
	pthread_mutex_unlock(&cfg_lock);
	if (rc < 0)
		return rc;
	if (should_fail(F_OPEN, 0))
		return cfg.err ? cfg.err : -EIO;
	struct iob_open_args inner_args = *a;
	inner_args.options = NULL;
	return inner_ops.open(&inner_args, h);
}

static int fault_close(void *h)
{
	int rc = inner_ops.close(h);
	if (should_fail(F_CLOSE, 0))
		return cfg.err ? cfg.err : -EIO;
	return rc;
}

/* The wrapped backend's read (write 0) or write (1). */
static int64_t inner_rw(void *h, int write, char *buf, size_t len, uint64_t off)
{
	return write ? inner_ops.write_at(h, buf, len, off) : inner_ops.read_at(h, buf, len, off);
}

/* A read or write, failed as configured: a count past len (over), the disk
 * filled first (fill, writes, once), the file truncated under it, the error,
 * or half of it done. */
static int64_t fault_rw(void *h, int write, char *buf, size_t len, uint64_t off)
{
	if (!should_fail(write ? F_WRITE : F_READ, len))
		return inner_rw(h, write, buf, len, off);
	if (cfg.over) {
		int64_t n = inner_rw(h, write, buf, len, off);
		return n < 0 ? n : (int64_t)len + 1;
	}
	if (write && cfg.fill) {
		fill_disk();
		cfg.fill = 2; /* once */
		return inner_rw(h, write, buf, len, off);
	}
	if (cfg.truncate) {
		if (truncate(cfg.last_path, 0) < 0)
			return -errno;
		return inner_rw(h, write, buf, len, off);
	}
	if (cfg.err)
		return cfg.err;
	return inner_rw(h, write, buf, len / 2, off);
}

static int64_t fault_read_at(void *h, void *buf, size_t len, uint64_t off)
{
	return fault_rw(h, 0, buf, len, off);
}

static int64_t fault_write_at(void *h, const void *buf, size_t len, uint64_t off)
{
	return fault_rw(h, 1, (char *)(uintptr_t)buf, len, off);
}

static int fault_sync(void *h)
{
	if (should_fail(F_SYNC, 0))
		return cfg.err ? cfg.err : -EIO;
	return inner_ops.sync ? inner_ops.sync(h) : 0;
}

static int fault_info(void *h, struct iob_file_info *info)
{
	return inner_ops.info(h, info);
}

static int fault_truncate(void *h, uint64_t size)
{
	return inner_ops.truncate ? inner_ops.truncate(h, size) : -ENOTSUP;
}

/* One option into *c; -EINVAL (logged) for a bad key or value. */
static int fault_option(void *ctx, const char *key, const char *val)
{
	struct fault_cfg *c = ctx;
	if (strcmp(key, "wrap") == 0) {
		if (!*val || strlen(val) >= sizeof c->wrap) {
			fault_host->log(IOB_LOG_ERROR, FAULT_NAME, "backend option wrap='%s': give the path of a backend .so",
				  val);
			return -EINVAL;
		}
		snprintf(c->wrap, sizeof c->wrap, "%s", val);
	} else if (strcmp(key, "op") == 0) {
		static const char *const names[] = {"read", "write", "sync", "open", "close"};
		int found = 0;
		for (int i = 0; i < 5; i++)
			if (strcmp(val, names[i]) == 0) {
				c->op = (enum fault_op)i;
				found = 1;
			}
		if (!found) {
			fault_host->log(IOB_LOG_ERROR, FAULT_NAME,
				  "backend option op=%s: one of read, write, sync, open, close", val);
			return -EINVAL;
		}
	} else if (strcmp(key, "err") == 0) {
		c->err = strcmp(val, "EIO") == 0      ? -EIO
			 : strcmp(val, "ENOSPC") == 0 ? -ENOSPC
			 : strcmp(val, "EINTR") == 0  ? -EINTR
			 : strcmp(val, "short") == 0  ? 0
			 : strcmp(val, "fill") == 0   ? -ENOSPC
			 : strcmp(val, "truncate") == 0 ? -EIO
			 : strcmp(val, "over") == 0   ? -EIO
							: 1;
		c->fill = strcmp(val, "fill") == 0;
		c->over = strcmp(val, "over") == 0;
		c->truncate = strcmp(val, "truncate") == 0;
		if (c->err == 1) {
			fault_host->log(IOB_LOG_ERROR, FAULT_NAME,
				  "backend option err=%s: one of EIO, ENOSPC, EINTR, short, fill, truncate, over", val);
			return -EINVAL;
		}
	} else if (strcmp(key, "after_calls") == 0 || strcmp(key, "after_bytes") == 0) {
		char *end;
		unsigned long long v = strtoull(val, &end, 10);
		if (!*val || *end) {
			fault_host->log(IOB_LOG_ERROR, FAULT_NAME, "backend option %s=%s: not a count", key, val);
			return -EINVAL;
		}
		*(key[6] == 'c' ? &c->after_calls : &c->after_bytes) = v;
	} else if (strcmp(key, "tally") == 0) {
		if (!*val || strlen(val) >= sizeof c->tally) {
			fault_host->log(IOB_LOG_ERROR, FAULT_NAME, "backend option tally='%s': give a file path", val);
			return -EINVAL;
		}
		snprintf(c->tally, sizeof c->tally, "%s", val);
	} else if (strcmp(key, "persist") == 0) {
		return bopts_bool(fault_host, FAULT_NAME, key, val, &c->persist);
	} else {
		return bopts_unknown(fault_host, FAULT_NAME, key, FAULT_KEYS);
	}
	return 0;
}

/* Parse text into *c; wrap= is required. */
static int fault_parse(const char *text, struct fault_cfg *c)
{
	*c = cfg_default;
	int rc = bopts_each(text, fault_host, FAULT_NAME, fault_option, c);
	if (rc < 0)
		return rc;
	/* IOB_FAULT_AFTER_CALLS=N in the environment overrides after_calls: one
	 * MPI rank fails while the suite stays the same on every rank */
	const char *ac = getenv("IOB_FAULT_AFTER_CALLS");
	if (ac && *ac)
		c->after_calls = strtoull(ac, NULL, 10);
	if (!c->wrap[0]) {
		fault_host->log(IOB_LOG_ERROR, FAULT_NAME,
			  "backend option wrap= is required: the path of the backend .so to wrap");
		return -EINVAL;
	}
	return 0;
}

/* Load the backend at path (once per process; another path is refused). */
static int fault_load_inner(const char *path)
{
	if (inner)
		return strcmp(path, inner_path) == 0 ? 0 : -EINVAL;
	void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	iob_plugin_entry_fn entry = NULL;
	void *sym = dl ? dlsym(dl, IOB_PLUGIN_ENTRY_NAME) : NULL;
	memcpy(&entry, &sym, sizeof entry);
	const struct iob_plugin *p = entry ? entry(fault_host) : NULL;
	if (!p || p->kind != IOB_PLUGIN_BACKEND || !p->backend) {
		fault_host->log(IOB_LOG_ERROR, FAULT_NAME, "backend option wrap=%s: cannot load a backend from it", path);
		if (dl)
			dlclose(dl);
		return -EINVAL;
	}
	memset(&inner_ops, 0, sizeof inner_ops);
	memcpy(&inner_ops, p->backend, p->ops_size < sizeof inner_ops ? p->ops_size : sizeof inner_ops);
	snprintf(inner_path, sizeof inner_path, "%s", path);
	inner = p;
	return 0;
}

/* Queued I/O, counted for tally=. */
static unsigned long long tally_submitted, tally_reaped, tally_bytes;
static char tally_path[4096];

/* A destructor, not atexit(): it runs when the plugin is unloaded or at
 * exit, whichever comes first (ThreadSanitizer's atexit would call it after
 * an unload). */
__attribute__((destructor)) static void tally_write(void)
{
	if (!tally_path[0])
		return;
	FILE *f = fopen(tally_path, "we");
	if (!f)
		return;
	fprintf(f, "submitted %llu reaped %llu bytes %llu\n", __atomic_load_n(&tally_submitted, __ATOMIC_RELAXED),
		__atomic_load_n(&tally_reaped, __ATOMIC_RELAXED), __atomic_load_n(&tally_bytes, __ATOMIC_RELAXED));
	fclose(f);
}

/* Apply the option text of an open: a text seen before keeps the counters. */
static int fault_configure(const char *text)
{
	struct fault_cfg c;
	if (!text)
		text = "";
	if (cfg_set && strcmp(text, cfg_text) == 0)
		return 0;
	int rc = fault_parse(text, &c);
	if (rc == 0)
		rc = fault_load_inner(c.wrap);
	if (rc < 0)
		return rc;
	cfg = c;
	snprintf(cfg_text, sizeof cfg_text, "%s", text);
	cfg_set = 1;
	if (c.tally[0] && !tally_path[0])
		snprintf(tally_path, sizeof tally_path, "%s", c.tally);
	return 0;
}

static int fault_submit(void *h, struct iob_io *const *ios, size_t n)
{
	if (!inner_ops.submit)
		return -ENOTSUP;
	int rc = inner_ops.submit(h, ios, n);
	if (rc > 0)
		__atomic_add_fetch(&tally_submitted, (unsigned long long)rc, __ATOMIC_RELAXED);
	return rc;
}

static int fault_reap(void *h, struct iob_io **done, size_t min, size_t max)
{
	if (!inner_ops.reap)
		return -ENOTSUP;
	int rc = inner_ops.reap(h, done, min, max);
	for (int i = 0; i < rc; i++)
		if (done[i]->result > 0)
			__atomic_add_fetch(&tally_bytes, (unsigned long long)done[i]->result, __ATOMIC_RELAXED);
	if (rc > 0)
		__atomic_add_fetch(&tally_reaped, (unsigned long long)rc, __ATOMIC_RELAXED);
	return rc;
}

static int fault_control(void *h, int op, void *arg)
{
	if (!h && op == IOB_CTL_CHECK_OPTIONS && arg) {
		struct fault_cfg c;
		int rc = fault_parse(arg, &c);
		return rc < 0 ? rc : fault_load_inner(c.wrap);
	}
	if (h && inner_ops.control)
		return inner_ops.control(h, op, arg);
	return -ENOTSUP;
}

static const struct iob_backend_ops fault_ops = {BOPTS_QUEUED_OPS(fault)};

IOB_BACKEND_PLUGIN(fault_host, FAULT_NAME, "test only: wraps a backend and injects errors, short reads and writes",
		   IOB_CAP_READ | IOB_CAP_WRITE | IOB_CAP_SYNC | IOB_CAP_TRUNCATE | IOB_CAP_ASYNC, &fault_ops);
