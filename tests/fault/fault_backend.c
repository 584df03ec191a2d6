/*
 * fault_backend.c - a test-only backend, "fault", that wraps another backend
 * and injects failures, for the reliability tests (never installed).
 *
 * Configured from the environment when the plugin is loaded:
 *   IOB_FAULT_WRAP  path of the backend .so to wrap (required)
 *   IOB_FAULT       comma-separated settings:
 *     op=read|write|sync|open|close   which operation fails (default write)
 *     err=EIO|ENOSPC|EINTR|short|fill errno to return, "short": move half, or
 *                                     "fill": fill the file system holding the
 *                                     file (a side file .iob-filler next to it),
 *                                     then forward the call, which then meets
 *                                     the kernel's own ENOSPC
 *     after_calls=N                   fail from the (N+1)-th call of op on
 *     after_bytes=N                   fail once op has moved N bytes
 *     persist=0|1                     every call after that (1, default) or once
 * It forwards everything else to the wrapped backend unchanged.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/plugin.h"

enum fault_op { F_READ, F_WRITE, F_SYNC, F_OPEN, F_CLOSE };

static const struct iob_host *host;
static const struct iob_plugin *inner;
static struct iob_backend_ops inner_ops;
static struct {
	enum fault_op op;
	int err; /* negative errno, or 0 for a short transfer */
	unsigned long long after_calls, after_bytes;
	int persist;
	unsigned long long calls, bytes;
	int fired;
	int fill;
	char last_path[4096];
} cfg = {.op = F_WRITE, .err = -EIO, .persist = 1};

/* Should this call of `op` fail?  Counts it either way. */
static int should_fail(enum fault_op op, size_t len)
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

static int fault_open(const struct iob_open_args *a, void **h)
{
	snprintf(cfg.last_path, sizeof cfg.last_path, "%s", a->path);
	if (should_fail(F_OPEN, 0))
		return cfg.err ? cfg.err : -EIO;
	return inner_ops.open(a, h);
}

static int fault_close(void *h)
{
	int rc = inner_ops.close(h);
	if (should_fail(F_CLOSE, 0))
		return cfg.err ? cfg.err : -EIO;
	return rc;
}

static int64_t fault_read_at(void *h, void *buf, size_t len, uint64_t off)
{
	if (should_fail(F_READ, len)) {
		if (cfg.err)
			return cfg.err;
		return inner_ops.read_at(h, buf, len / 2, off);
	}
	return inner_ops.read_at(h, buf, len, off);
}

static int64_t fault_write_at(void *h, const void *buf, size_t len, uint64_t off)
{
	if (should_fail(F_WRITE, len)) {
		if (cfg.fill) {
			fill_disk();
			cfg.fill = 2; /* once */
			return inner_ops.write_at(h, buf, len, off);
		}
		if (cfg.err)
			return cfg.err;
		return inner_ops.write_at(h, buf, len / 2, off);
	}
	return inner_ops.write_at(h, buf, len, off);
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

static const struct iob_backend_ops fault_ops = {
	.open = fault_open,
	.close = fault_close,
	.read_at = fault_read_at,
	.write_at = fault_write_at,
	.sync = fault_sync,
	.info = fault_info,
	.truncate = fault_truncate,
};

static struct iob_plugin fault_plugin = {
	IOB_PLUGIN_HEADER,
	.kind = IOB_PLUGIN_BACKEND,
	.name = "fault",
	.summary = "test only: wraps a backend and injects errors, short reads and writes",
	.ops_size = sizeof(struct iob_backend_ops),
	.backend = &fault_ops,
};

static int parse_cfg(const char *text)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s", text ? text : "");
	char *save = NULL;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '=');
		if (!eq)
			return -1;
		*eq++ = '\0';
		if (strcmp(t, "op") == 0) {
			static const char *names[] = {"read", "write", "sync", "open", "close"};
			int found = 0;
			for (int i = 0; i < 5; i++)
				if (strcmp(eq, names[i]) == 0) {
					cfg.op = (enum fault_op)i;
					found = 1;
				}
			if (!found)
				return -1;
		} else if (strcmp(t, "err") == 0) {
			cfg.err = strcmp(eq, "EIO") == 0      ? -EIO
				  : strcmp(eq, "ENOSPC") == 0 ? -ENOSPC
				  : strcmp(eq, "EINTR") == 0  ? -EINTR
				  : strcmp(eq, "short") == 0  ? 0
				  : strcmp(eq, "fill") == 0   ? -ENOSPC
							      : 1;
			cfg.fill = strcmp(eq, "fill") == 0;
			if (cfg.err == 1)
				return -1;
		} else if (strcmp(t, "after_calls") == 0) {
			cfg.after_calls = strtoull(eq, NULL, 10);
		} else if (strcmp(t, "after_bytes") == 0) {
			cfg.after_bytes = strtoull(eq, NULL, 10);
		} else if (strcmp(t, "persist") == 0) {
			cfg.persist = atoi(eq) != 0;
		} else {
			return -1;
		}
	}
	return 0;
}

const struct iob_plugin *iob_plugin_entry(const struct iob_host *h)
{
	host = h;
	const char *wrap = getenv("IOB_FAULT_WRAP");
	if (!wrap || parse_cfg(getenv("IOB_FAULT")) != 0) {
		host->log(IOB_LOG_ERROR, "fault", "set IOB_FAULT_WRAP=<backend .so> and a valid IOB_FAULT");
		return NULL;
	}
	void *dl = dlopen(wrap, RTLD_NOW | RTLD_LOCAL);
	iob_plugin_entry_fn entry = NULL;
	void *sym = dl ? dlsym(dl, IOB_PLUGIN_ENTRY_NAME) : NULL;
	memcpy(&entry, &sym, sizeof entry);
	inner = entry ? entry(h) : NULL;
	if (!inner || inner->kind != IOB_PLUGIN_BACKEND) {
		host->log(IOB_LOG_ERROR, "fault", "cannot wrap %s", wrap);
		return NULL;
	}
	memcpy(&inner_ops, inner->backend,
	       inner->ops_size < sizeof inner_ops ? inner->ops_size : sizeof inner_ops);
	fault_plugin.caps = inner->caps & ~IOB_CAP_STREAM;
	return &fault_plugin;
}
