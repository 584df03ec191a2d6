/* A tiny backend compiled several ways to make broken plugins for the
 * loader tests: another ABI major, no entry symbol, a missing required op,
 * an ops table from an older minor, a plugin that refuses to load. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/plugin.h"

#ifndef FAKE_ABI_MAJOR
#define FAKE_ABI_MAJOR IOB_ABI_MAJOR
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

__attribute__((unused)) static int fake_control(void *handle, int op, void *arg)
{
	(void)handle;
	(void)op;
	(void)arg;
	return -ENOTSUP;
}

static const struct iob_backend_ops fake_ops = {
	.open = fake_open,
	.close = fake_close,
#ifndef FAKE_NO_READ
	.read_at = fake_read_at,
#endif
	.info = fake_info,
#ifdef FAKE_OLD_OPS
	/* set, but past the ops_size this plugin declares: the core must ignore it */
	.control = fake_control,
#endif
};

__attribute__((unused)) static const struct iob_plugin fake_plugin = {
	.abi_major = FAKE_ABI_MAJOR,
	.abi_minor = IOB_ABI_MINOR,
	.struct_size = sizeof(struct iob_plugin),
	.kind = IOB_PLUGIN_BACKEND,
	.caps = IOB_CAP_READ,
	.name = "fake",
	.summary = "test plugin",
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
#ifdef FAKE_REFUSE
	host->log(IOB_LOG_ERROR, "fake", "refusing to load in this test");
	return NULL;
#else
	(void)host;
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
