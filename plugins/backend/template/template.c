/*
 * template.c - the "template" backend: the smallest complete backend, kept
 * working and passing the conformance suite so it can be copied.
 *
 * To start a new backend "foo":
 *   1. Copy this file to plugins/backend/foo.c (or foo/foo.c).
 *   2. Rename every template_ prefix to foo_ and TEMPLATE_NAME to "foo".
 *      Names are [a-z0-9_]+; the file is built as iob-backend-foo.so.
 *   3. Add `iob_add_plugin(backend foo foo.c)` to plugins/backend/CMakeLists.txt
 *      and `foo` to the backend list in tests/conformance/CMakeLists.txt.
 *   4. Build, then run: ctest -R conformance.foo --output-on-failure
 * An installed iobench ships this file as share/iobench/template/template.c
 * (it is never installed as a plugin).  Out of tree, build a copy against
 * the installed header:
 *   cc -shared $(pkg-config --cflags iobench-plugin) -o iob-backend-foo.so foo.c
 * and see docs/plugin-guide.md for the rules in full.
 *
 * What this one does: plain pread(2)/pwrite(2) on a file descriptor, through
 * the page cache.  No alignment, no streams, no size hint.
 *
 * The rules every backend follows (from iobench/plugin.h):
 *  - Include only "iobench/plugin.h" from iobench; link nothing from the
 *    core.  Everything the core offers arrives in the host table.
 *  - Export exactly one symbol, iob_plugin_entry.  Everything else is static.
 *  - Return negative errno values; put detail in host->log.  Never print,
 *    never exit or abort.
 *  - read_at and write_at are on the timed path: no allocation, formatting,
 *    locking or logging there unless something failed.
 */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* pread, pwrite, O_CLOEXEC under a strict -std=c11 */
#endif
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iobench/plugin.h"

#define TEMPLATE_NAME "template"

/* Per-open state.  The core treats the handle as opaque: whatever open()
 * stores in *handle comes back as the first argument of every other op. */
struct template_file {
	int fd;
};

/* The host table the core handed to iob_plugin_entry.  It stays valid until
 * the plugin is unloaded, so keeping the pointer is all that is needed. */
static const struct iob_host *template_host;

/*
 * open: required.  Map IOB_OPEN_* onto the system's flags, open the file and
 * hand back a handle.  args and args->path belong to the core and may vanish
 * after return: copy what you need to keep.  Fields added after ABI 1.0
 * would be read only when args->struct_size covers them.
 */
static int template_control(void *handle, int op, void *arg);

static int template_open(const struct iob_open_args *args, void **handle)
{
	struct template_file *f;
	uint32_t fl = args->flags;
	int oflags, fd, rc;

	/* ABI 1.1: options come with every open; this backend has none */
	if (args->struct_size > offsetof(struct iob_open_args, options) && args->options && *args->options)
		return template_control(NULL, IOB_CTL_CHECK_OPTIONS, (void *)args->options);
	if ((fl & IOB_OPEN_TRUNC) && !(fl & IOB_OPEN_WRITE)) {
		/* A log line tells the user what went wrong; the errno says what kind. */
		template_host->log(IOB_LOG_ERROR, TEMPLATE_NAME, "%s: truncate requested on a read-only open",
				   args->path);
		return -EINVAL;
	}
	/* IOB_OPEN_* onto open(2)'s flags (plugin.h): read, write or both;
	 * O_CREAT without O_TRUNC, so existing data survives a create; ABI 1.1's
	 * IOB_OPEN_NOFOLLOW as O_NOFOLLOW (a symlink as the last component fails
	 * with -ELOOP); O_CLOEXEC (tools may run helpers: no descriptor leaks) */
	oflags = IOB_OPEN_OFLAGS(fl);

	do {
		fd = open(args->path, oflags, (mode_t)args->mode);
	} while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return -errno; /* the core names the file and errno text itself */

	f = malloc(sizeof(*f)); /* allocating here is fine: open is not timed per I/O */
	if (!f) {
		rc = -ENOMEM;
		close(fd);
		return rc;
	}
	f->fd = fd;
	*handle = f;
	return 0;
}

/* close: required.  Free everything the handle owns, even when returning an
 * error (the core never calls close twice). */
static int template_close(void *handle)
{
	struct template_file *f = handle;
	int rc = 0;

	if (close(f->fd) < 0)
		rc = -errno; /* e.g. a deferred write error on a network file system */
	free(f);
	return rc;
}

/*
 * read_at: required with IOB_CAP_READ.  The contract: return len bytes, or
 * fewer only because the file ends (0 at or past the end), or -errno.  So a
 * kernel short read is retried until it gives 0.  Never fill past the end.
 */
static int64_t template_read_at(void *handle, void *buf, size_t len, uint64_t off)
{
	struct template_file *f = handle;
	size_t done = 0;
	ssize_t n;

	if (off > (uint64_t)INT64_MAX || len > (size_t)INT64_MAX - off)
		return -EINVAL; /* would not fit in off_t */
	while (done < len) {
		n = pread(f->fd, (char *)buf + done, len - done, (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue; /* a signal is not an I/O error */
		if (n < 0)
			return -errno;
		if (n == 0)
			break; /* end of file */
		done += (size_t)n;
	}
	return (int64_t)done;
}

/*
 * write_at: required with IOB_CAP_WRITE.  Write while the kernel makes
 * progress; when it stops (or fails after some bytes), return the short count
 * and let the next call report the error.  The core does not retry.
 */
static int64_t template_write_at(void *handle, const void *buf, size_t len, uint64_t off)
{
	struct template_file *f = handle;
	size_t done = 0;
	ssize_t n;

	if (off > (uint64_t)INT64_MAX || len > (size_t)INT64_MAX - off)
		return -EINVAL;
	while (done < len) {
		n = pwrite(f->fd, (const char *)buf + done, len - done, (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return done > 0 ? (int64_t)done : -errno;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (int64_t)done;
}

/* sync: required with IOB_CAP_SYNC.  Make written data durable. */
static int template_sync(void *handle)
{
	struct template_file *f = handle;

	return fsync(f->fd) < 0 ? -errno : 0;
}

/*
 * info: required.  The core zeroes *info and sets struct_size before the
 * call; fill what applies.  mem_align/io_align of 1 mean "no constraint";
 * a backend with IOB_CAP_ALIGNED reports its real alignment here and the core
 * allocates buffers and picks offsets to match.
 */
static int template_info(void *handle, struct iob_file_info *info)
{
	struct template_file *f = handle;
	struct stat st;

	if (fstat(f->fd, &st) < 0)
		return -errno;
	info->size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
	info->mem_align = 1;
	info->io_align = 1;
	info->direct = 0;    /* this backend goes through the page cache */
	info->is_stream = 0; /* no IOB_CAP_STREAM, so never a pipe */
	/* ABI 1.1: what was opened, from the descriptor (only when the core's
	 * struct has the members) */
	if (info->struct_size >= offsetof(struct iob_file_info, ino) + sizeof info->ino) {
		info->file_type = S_ISREG(st.st_mode)	? IOB_FILE_REGULAR
				  : S_ISBLK(st.st_mode) ? IOB_FILE_BLOCKDEV
				  : S_ISCHR(st.st_mode) ? IOB_FILE_CHARDEV
				  : S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) ? IOB_FILE_STREAM
										 : IOB_FILE_OTHER;
		info->dev = (uint64_t)st.st_dev;
		info->ino = (uint64_t)st.st_ino;
	}
	return 0;
}

/* truncate: required with IOB_CAP_TRUNCATE.  Set the file size exactly. */
static int template_truncate(void *handle, uint64_t size)
{
	struct template_file *f = handle;

	if (size > (uint64_t)INT64_MAX)
		return -EFBIG;
	return ftruncate(f->fd, (off_t)size) < 0 ? -errno : 0;
}

/* control: optional escape hatch.  Every op this backend does not know
 * returns -ENOTSUP.  The one the core makes is IOB_CTL_CHECK_OPTIONS, with
 * handle NULL and the job's backend_options text ("k=v,...") as arg, before
 * anything is opened: this backend has no options, so any key is refused,
 * named in one log line.  A backend with options parses them here and again
 * from args->options in open. */
static int template_control(void *handle, int op, void *arg)
{
	(void)handle;
	if (op == IOB_CTL_CHECK_OPTIONS) {
		const char *text = arg;
		if (!*text)
			return 0;
		template_host->log(IOB_LOG_ERROR, TEMPLATE_NAME, "unknown option '%.*s' (this backend has none)",
				   (int)strcspn(text, ","), text);
		return -EINVAL;
	}
	return -ENOTSUP;
}

/* The ops table.  Designated initialisers keep it right if members are
 * added; IOB_BACKEND_OPS_OF(template) (plugin.h) names the six common ones,
 * template_open ... template_info.  The descriptor's ops_size tells the core
 * how much of the table this build knows. */
static const struct iob_backend_ops template_ops = {
	IOB_BACKEND_OPS_OF(template),
	.truncate = template_truncate,
	.control = template_control,
};

/*
 * The registration: IOB_BACKEND_PLUGIN (plugin.h) defines the descriptor and
 * the one exported symbol, iob_plugin_entry, which refuses a host of another
 * ABI major, keeps the host pointer in template_host and returns the
 * descriptor.  caps must promise only what the ops deliver: the conformance
 * suite holds a backend to every capability it claims.
 */
IOB_BACKEND_PLUGIN(template_host, TEMPLATE_NAME, "minimal pread/pwrite backend to copy when writing a new one",
		   IOB_CAP_READ | IOB_CAP_WRITE | IOB_CAP_SYNC | IOB_CAP_TRUNCATE, &template_ops);
