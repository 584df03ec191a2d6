/* A tiny backend compiled many ways to make broken and hostile plugins for
 * the loader tests: another ABI major, no entry symbol, a missing required
 * op, an ops table from an older minor, a plugin that refuses to load, one
 * whose entry exits or crashes, one whose constructor crashes, one that
 * leaves a marker file when any of its code runs, one with a summary full of
 * control bytes, one that checks backend options, and async claims with and
 * without the ops. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iobench/plugin.h"

#ifndef FAKE_ABI_MAJOR
#define FAKE_ABI_MAJOR IOB_ABI_MAJOR
#endif
#ifndef FAKE_NAME
#define FAKE_NAME "fake"
#endif
#ifndef FAKE_SUMMARY
#define FAKE_SUMMARY "test plugin"
#endif

/* NULL, behind a volatile so the compiler cannot see the fault coming */
__attribute__((unused)) static int *volatile fake_nowhere;

#ifdef FAKE_MARKER
/* Leave a file named by IOB_TEST_MARKER: proof that this plugin's code ran. */
static void fake_mark(const char *what)
{
	const char *path = getenv("IOB_TEST_MARKER");
	if (!path)
		return;
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd >= 0) {
		if (write(fd, what, strlen(what)) < 0)
			fd = fd + 0; /* nothing to do: the file's existence is the signal */
		close(fd);
	}
}

__attribute__((constructor)) static void fake_ctor(void)
{
	fake_mark("constructor\n");
}
#endif

#ifdef FAKE_CTOR_CRASH
__attribute__((constructor)) static void fake_ctor_crash(void)
{
	*fake_nowhere = 1; /* a real fault, as a buggy plugin would make */
}
#endif

static int fake_open(const struct iob_open_args *args, void **handle)
{
	(void)args;
	*handle = malloc(1);
	return *handle ? 0 : -ENOMEM;
}

static int fake_close(void *handle)
{
	free(handle);
	return 0;
}

__attribute__((unused)) static int64_t fake_read_at(void *handle, void *buf, size_t len, uint64_t off)
{
	(void)handle;
	(void)off;
	memset(buf, 0, len);
	return (int64_t)len;
}

static int fake_info(void *handle, struct iob_file_info *info)
{
	(void)handle;
	info->mem_align = info->io_align = 1;
	return 0;
}

__attribute__((unused)) static const struct iob_host *fake_host;

__attribute__((unused)) static int fake_control(void *handle, int op, void *arg)
{
	(void)handle;
#ifdef FAKE_OPTIONS
	/* accepts "ok=N" keys only, like a real backend's option parser */
	if (op == IOB_CTL_CHECK_OPTIONS) {
		const char *text = arg;
		while (*text) {
			size_t n = strcspn(text, ",");
			if (strncmp(text, "ok=", 3) != 0 || n == 3) {
				fake_host->log(IOB_LOG_ERROR, FAKE_NAME, "unknown option '%.*s'", (int)n, text);
				return -EINVAL;
			}
			text += n + (text[n] == ',');
		}
		return 0;
	}
#endif
	(void)op;
	(void)arg;
	return -ENOTSUP;
}

#ifdef FAKE_ASYNC_OPS
static int fake_submit(void *handle, struct iob_io *const *ios, size_t n)
{
	(void)handle;
	(void)ios;
	(void)n;
	return -ENOTSUP;
}

static int fake_reap(void *handle, struct iob_io **done, size_t min, size_t max)
{
	(void)handle;
	(void)done;
	(void)min;
	(void)max;
	return -ENOTSUP;
}
#endif

static const struct iob_backend_ops fake_ops = {
	.open = fake_open,
	.close = fake_close,
#ifndef FAKE_NO_READ
	.read_at = fake_read_at,
#endif
	.info = fake_info,
#if defined(FAKE_OLD_OPS) || defined(FAKE_OPTIONS)
	/* FAKE_OLD_OPS: set, but past the ops_size this plugin declares: the
	 * core must ignore it */
	.control = fake_control,
#endif
#ifdef FAKE_ASYNC_OPS
	.submit = fake_submit,
	.reap = fake_reap,
#endif
};

#ifndef FAKE_CAPS
#define FAKE_CAPS IOB_CAP_READ
#endif

__attribute__((unused)) static const struct iob_plugin fake_plugin = {
	.abi_major = FAKE_ABI_MAJOR,
	.abi_minor = IOB_ABI_MINOR,
	.struct_size = sizeof(struct iob_plugin),
	.kind = IOB_PLUGIN_BACKEND,
	.caps = FAKE_CAPS,
	.name = FAKE_NAME,
	.summary = FAKE_SUMMARY,
#ifdef FAKE_OLD_OPS
	/* as if built when the table ended after info */
	.ops_size = offsetof(struct iob_backend_ops, info) + sizeof(void (*)(void)),
#else
	.ops_size = sizeof(struct iob_backend_ops),
#endif
	.backend = &fake_ops,
};

#ifndef FAKE_NO_ENTRY
IOB_PLUGIN_EXPORT const struct iob_plugin *iob_plugin_entry(const struct iob_host *host);
const struct iob_plugin *iob_plugin_entry(const struct iob_host *host)
{
	fake_host = host;
#ifdef FAKE_MARKER
	fake_mark("entry\n");
#endif
#ifdef FAKE_ENTRY_EXIT
	exit(0);
#endif
#ifdef FAKE_ENTRY_CRASH
	*fake_nowhere = 1; /* a real fault, as a buggy plugin would make */
#endif
#ifdef FAKE_REFUSE
	host->log(IOB_LOG_ERROR, "fake", "refusing to load in this test");
	return NULL;
#else
	return &fake_plugin;
#endif
}
#else
IOB_PLUGIN_EXPORT const struct iob_plugin *iob_something_else(void);
const struct iob_plugin *iob_something_else(void)
{
	return &fake_plugin;
}
#endif
