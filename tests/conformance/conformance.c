/*
 * conformance.c - the one suite every backend must pass.
 *
 *   test_conformance BACKEND [OPTIONS [direct]]
 *                             run the suite against the backend plugin
 *                             BACKEND, loaded from the build tree's plugin
 *                             directory (ctest: conformance.BACKEND), with
 *                             backend options OPTIONS on every open; "direct"
 *                             says those options make every handle direct
 *                             (io_uring direct=1), and the suite then holds
 *                             the backend to IOB_CAP_DIRECT | IOB_CAP_ALIGNED
 *                             (on tmpfs such a run is skipped, saying why)
 *   test_conformance          check that every backend named at build time
 *                             (IOB_CONF_BACKENDS) loads from the build tree
 *
 * The suite drives the backend twice over: through its loaded ops table
 * (exact counts, exact bytes, edge cases) and through the engine
 * (iob_phase_run), the way the tools use it.  Files live in a fresh
 * directory made with mkdtemp under the current directory, which ctest sets
 * to the build tree, so O_DIRECT meets a real disk rather than a tmpfs /tmp.
 * A backend with IOB_CAP_DIRECT whose open is refused with EINVAL fails the
 * suite, unless IOB_NO_DIRECT=1 is set: then it is skipped (exit 77) with the
 * reason printed.
 *
 * A backend with IOB_CAP_ASYNC also meets the queued tests: submit/reap of
 * 4 x 32 requests at queue depth 32 (never more accepted than the ring's free
 * slots, each request back exactly once with its user pointer), results
 * tied to their own request whatever the completion order, a short read at
 * end of file, -EINVAL for a misaligned request on a direct handle, and close
 * with requests in flight.  The io_uring backend also meets its own: fixed
 * buffers (regbufs=1) and the refusal when the kernel forbids io_uring
 * (faked with a seccomp filter in a child).
 *
 * The ops-level checks compare against their own reference bytes
 * (ref_byte), not the core's pattern module, so a bug in one cannot hide a
 * bug in the other.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#ifdef __linux__
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/magic.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#if defined(__x86_64__)
#define IOB_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define IOB_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif
#if !defined(__NR_io_uring_setup)
#undef IOB_AUDIT_ARCH
#endif
#endif
#include <unistd.h>

#include <cmocka.h>

#include "iobench/engine.h"
#include "iobench/loader.h"
#include "iobench/log.h"
#include "iobench/pattern.h"

#ifndef IOB_PLUGIN_BUILD_DIR
#error "IOB_PLUGIN_BUILD_DIR must name the build tree's plugin directory"
#endif
#ifndef IOB_CONF_BACKENDS
#define IOB_CONF_BACKENDS "stdio,posix,direct,mmap,template"
#endif

#define SKIP_CODE 77
#define SENTINEL 0xa5
#define TAIL 64 /* bytes after every read buffer that must stay SENTINEL */
#define NLOG 64

/* ------------------------------------------------------------------------ */
/* State shared by the tests of one run.                                    */

static struct iob_registry g_reg; /* large: keep it off the stack */
static const char *g_name;
static const struct iob_loaded *g_be;
static const struct iob_backend_ops *g_ops;
static uint32_t g_caps;
static char g_dir[PATH_MAX];
static uint32_t g_mem_align = 1, g_io_align = 1;
static size_t g_bs;    /* block size for the tests: max(4096, io_align) */
static size_t g_balign; /* buffer alignment: max(4096, mem_align) */
/* The run's backend options (argv[2]), handed to every open and phase, and
 * whether they make every handle direct and aligned (argv[3] "direct"): a
 * backend whose O_DIRECT is an option (io_uring direct=1) is held to what
 * IOB_CAP_DIRECT | IOB_CAP_ALIGNED promise for a backend that always is. */
static const char *g_opts;
static int g_direct, g_aligned;

static char g_log[NLOG][1200];
static int g_log_level[NLOG];
static size_t g_nlog;

static void log_hook(int level, const char *line, void *arg)
{
	if (g_nlog < NLOG) {
		snprintf(g_log[g_nlog], sizeof g_log[0], "%s", line);
		g_log_level[g_nlog++] = level;
	}
	if (level <= IOB_LOG_INFO || getenv("IOB_CONF_DEBUG"))
		fprintf(stderr, "  [log] %s\n", line);
}

static void log_reset(void)
{
	g_nlog = 0;
}

/* Index of the first error/warning line containing all of a, b (b may be
 * NULL), or -1. */
static int log_find(const char *a, const char *b)
{
	for (size_t i = 0; i < g_nlog; i++)
		if (g_log_level[i] <= IOB_LOG_WARN && strstr(g_log[i], a) && (!b || strstr(g_log[i], b)))
			return (int)i;
	return -1;
}

/* ------------------------------------------------------------------------ */
/* Helpers.                                                                  */

static uint8_t ref_byte(uint64_t off, unsigned salt)
{
	uint64_t x = (off + 1) * 0x9e3779b97f4a7c15ull + salt * 0x632be59bd9b4e019ull;
	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ull;
	return (uint8_t)(x ^ (x >> 32));
}

static void ref_fill(void *buf, size_t len, uint64_t off, unsigned salt)
{
	uint8_t *b = buf;
	for (size_t i = 0; i < len; i++)
		b[i] = ref_byte(off + i, salt);
}

/* Offset of the first byte of buf that differs from the reference, or -1. */
static long long ref_diff(const void *buf, size_t len, uint64_t off, unsigned salt)
{
	const uint8_t *b = buf;
	for (size_t i = 0; i < len; i++)
		if (b[i] != ref_byte(off + i, salt))
			return (long long)(off + i);
	return -1;
}

static int all_bytes(const void *buf, size_t len, uint8_t v)
{
	const uint8_t *b = buf;
	for (size_t i = 0; i < len; i++)
		if (b[i] != v)
			return 0;
	return 1;
}

static char *path_of(const char *name)
{
	static char paths[8][PATH_MAX + 64];
	static unsigned next;
	char *p = paths[next++ % 8];
	snprintf(p, sizeof paths[0], "%s/%s", g_dir, name);
	return p;
}

/* A buffer of len bytes (plus TAIL) aligned for the backend, all SENTINEL. */
static uint8_t *buf_new(size_t len)
{
	void *p = NULL;
	assert_int_equal(posix_memalign(&p, g_balign, len + TAIL), 0);
	memset(p, SENTINEL, len + TAIL);
	return p;
}

/* Open through the backend: permission bits, size hint, queue depth (0:
 * synchronous) and backend options as given. */
static int be_open_with(const char *path, uint32_t flags, uint32_t mode, uint64_t hint, uint32_t qd,
			const char *opts, void **h)
{
	struct iob_open_args a = {
		.struct_size = sizeof a,
		.path = path,
		.flags = flags,
		.mode = mode,
		.size_hint = hint,
		.options = opts,
		.queue_depth = qd,
	};
	*h = NULL;
	return g_ops->open(&a, h);
}

static int be_open(const char *path, uint32_t flags, uint64_t hint, void **h)
{
	return be_open_with(path, flags, 0644, hint, 0, g_opts, h);
}

static void *be_open_ok(const char *path, uint32_t flags, uint64_t hint)
{
	void *h;
	assert_int_equal(be_open(path, flags, hint, &h), 0);
	assert_non_null(h);
	return h;
}

static void be_close_ok(void *h)
{
	assert_int_equal(g_ops->close(h), 0);
}

static void be_info(void *h, struct iob_file_info *fi)
{
	memset(fi, 0, sizeof *fi);
	fi->struct_size = sizeof *fi;
	assert_int_equal(g_ops->info(h, fi), 0);
}

static uint64_t be_size(void *h)
{
	struct iob_file_info fi;
	be_info(h, &fi);
	return fi.size;
}

static uint64_t disk_size(const char *path)
{
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	return (uint64_t)st.st_size;
}

static int has(uint32_t cap)
{
	return (g_caps & cap) != 0;
}

/* Write `size` reference bytes (salt) to a new file through the backend.
 * Aligned backends write whole blocks and truncate to the exact size. */
static void write_ref_file(const char *path, uint64_t size, unsigned salt)
{
	void *h = be_open_ok(path, IOB_OPEN_WRITE | IOB_OPEN_CREATE | IOB_OPEN_TRUNC, size);
	uint8_t *buf = buf_new(g_bs);
	for (uint64_t off = 0; off < size; off += g_bs) {
		size_t len = size - off < g_bs ? (size_t)(size - off) : g_bs;
		if (g_aligned)
			len = g_bs;
		ref_fill(buf, len, off, salt);
		assert_int_equal(g_ops->write_at(h, buf, len, off), (int64_t)len);
	}
	if (g_aligned && size % g_bs) {
		assert_true(has(IOB_CAP_TRUNCATE));
		assert_int_equal(g_ops->truncate(h, size), 0);
	}
	assert_int_equal(be_size(h), size);
	be_close_ok(h);
	assert_int_equal(disk_size(path), size);
	free(buf);
}

/* Read [off, off+len) through h and require exactly `expect` reference
 * bytes back.  Buffered backends must not touch the buffer past the count.
 * With O_DIRECT the kernel moves whole file-system blocks, so the part of
 * [count, len) inside the final block may be overwritten (ext4 zero-fills
 * it); only bytes past len must survive there. */
static void read_expect(void *h, uint64_t off, size_t len, int64_t expect, unsigned salt)
{
	uint8_t *buf = buf_new(len);
	int64_t n = g_ops->read_at(h, buf, len, off);
	size_t got = n > 0 ? (size_t)n : 0;

	assert_int_equal(n, expect);
	if (n > 0)
		assert_int_equal(ref_diff(buf, got, off, salt), -1);
	if (g_direct && n >= 0)
		assert_true(all_bytes(buf + len, TAIL, SENTINEL));
	else
		assert_true(all_bytes(buf + got, len - got + TAIL, SENTINEL));
	free(buf);
}

/* ------------------------------------------------------------------------ */
/* Ops-level tests.                                                          */

static void test_descriptor(void **state)
{
	const struct iob_plugin *d = &g_be->desc;

	assert_int_equal(d->kind, IOB_PLUGIN_BACKEND);
	assert_int_equal(d->abi_major, IOB_ABI_MAJOR);
	assert_string_equal(d->name, g_name);
	assert_non_null(d->summary);
	assert_true(strlen(d->summary) > 0 && strchr(d->summary, '\n') == NULL);
	assert_true(has(IOB_CAP_READ) && has(IOB_CAP_WRITE)); /* the suite needs both */
	assert_non_null(g_ops->open);
	assert_non_null(g_ops->close);
	assert_non_null(g_ops->info);
	assert_non_null(g_ops->read_at);
	assert_non_null(g_ops->write_at);
	if (has(IOB_CAP_SYNC))
		assert_non_null(g_ops->sync);
	if (has(IOB_CAP_TRUNCATE))
		assert_non_null(g_ops->truncate);
	if (has(IOB_CAP_ALIGNED))
		assert_true(has(IOB_CAP_DIRECT) || g_io_align > 1);
	if (g_ops->control)
		assert_int_equal(g_ops->control(NULL, 0x7fff0000, NULL), -ENOTSUP);
}

static void test_info_sanity(void **state)
{
	const char *p = path_of("info");
	struct iob_file_info fi;
	void *h = be_open_ok(p, IOB_OPEN_READ | IOB_OPEN_WRITE | IOB_OPEN_CREATE | IOB_OPEN_TRUNC, 0);

	be_info(h, &fi);
	assert_int_equal(fi.size, 0);
	assert_int_equal(fi.is_stream, 0);
	if (g_direct) {
		assert_int_equal(fi.direct, 1);
		assert_true(fi.mem_align >= 512 && fi.io_align >= 512);
		assert_int_equal(fi.mem_align & (fi.mem_align - 1), 0);
		assert_int_equal(fi.io_align & (fi.io_align - 1), 0);
	} else {
		assert_int_equal(fi.direct, 0);
	}
	if (!g_aligned) {
		assert_true(fi.mem_align <= 1 && fi.io_align <= 1);
	}
	be_close_ok(h);

	write_ref_file(p, 3 * g_bs, 1);
	h = be_open_ok(p, IOB_OPEN_READ, 0);
	be_info(h, &fi);
	assert_int_equal(fi.size, 3 * g_bs);
	be_close_ok(h);
}

/* ABI 1.1: what was opened, from fstat on the descriptor (not the path). */
static void test_info_identity(void **state)
{
	const char *p = path_of("identity");
	const char *alias = path_of("identity-link");
	struct iob_file_info fi;
	uint64_t dev, ino;
	void *h;

	write_ref_file(p, 2 * g_bs, 3);
#ifdef _WIN32 /* the CRT's stat has no file identity (st_ino is 16 bits): the OS layer's */
	enum iob_path_kind kind;
	assert_int_equal(iob_file_identity(p, &dev, &ino, &kind), 0);
#else
	struct stat st;
	assert_int_equal(stat(p, &st), 0);
	dev = (uint64_t)st.st_dev;
	ino = (uint64_t)st.st_ino;
#endif
	h = be_open_ok(p, IOB_OPEN_READ, 0);
	be_info(h, &fi);
	assert_int_equal(fi.file_type, IOB_FILE_REGULAR);
	assert_true(fi.dev == dev);
	assert_true(fi.ino == ino);
	/* the handle keeps naming the file it opened when the path moves on */
	assert_int_equal(rename(p, alias), 0);
	write_ref_file(p, g_bs, 4);
	be_info(h, &fi);
	assert_true(fi.ino == ino);
	be_close_ok(h);
	unlink(alias);
}

/* ABI 1.1: IOB_OPEN_NOFOLLOW refuses a symlink with -ELOOP, for reading and
 * for writing, and neither the link nor its target changes; without the flag
 * the link is followed. */
static void test_nofollow(void **state)
{
	const char *target = path_of("nofollow-target");
	const char *link_path = path_of("nofollow-link");
	const char *missing = path_of("nofollow-missing");
	const uint32_t wflags = IOB_OPEN_READ | IOB_OPEN_WRITE | IOB_OPEN_CREATE | IOB_OPEN_TRUNC;
	struct stat st;
	void *h;

	write_ref_file(target, 2 * g_bs, 5);
#ifdef _WIN32
	/* symbolic links need a privilege on Windows, and wine 8 only pretends
	 * to make them (tests/windows/compat/sys/wait.h checks) */
	if (symlink(target, link_path) != 0) {
		printf("  (no symbolic links can be made here: not tested)\n");
		skip();
	}
#else
	assert_int_equal(symlink(target, link_path), 0);
#endif
	assert_int_equal(be_open(link_path, IOB_OPEN_READ | IOB_OPEN_NOFOLLOW, 0, &h), -ELOOP);
	assert_int_equal(be_open(link_path, wflags | IOB_OPEN_NOFOLLOW, 0, &h), -ELOOP);
	assert_int_equal(disk_size(target), 2 * g_bs); /* not truncated */
	/* a dangling link is not created through either */
	assert_int_equal(symlink(missing, path_of("nofollow-dangling")), 0);
	assert_int_equal(be_open(path_of("nofollow-dangling"), wflags | IOB_OPEN_NOFOLLOW, 0, &h), -ELOOP);
	assert_int_equal(lstat(missing, &st), -1);
	/* a regular file opens as before with the flag */
	h = be_open_ok(target, IOB_OPEN_READ | IOB_OPEN_NOFOLLOW, 0);
	read_expect(h, 0, g_bs, (int64_t)g_bs, 5);
	be_close_ok(h);
	h = be_open_ok(link_path, IOB_OPEN_READ, 0);
	read_expect(h, g_bs, g_bs, (int64_t)g_bs, 5);
	be_close_ok(h);
	unlink(link_path);
	unlink(path_of("nofollow-dangling"));
}

static int open_with_options(const char *path, const char *options, void **h)
{
	struct iob_open_args a = {
		.struct_size = sizeof a, .path = path, .flags = IOB_OPEN_READ, .mode = 0644, .options = options};
	*h = NULL;
	return g_ops->open(&a, h);
}

/* ABI 1.1 backend options: an unknown key is refused with -EINVAL and one
 * error line naming it, by IOB_CTL_CHECK_OPTIONS (handle NULL) and by open;
 * an empty text and NULL are accepted. */
static void test_backend_options(void **state)
{
	const char *p = path_of("options");
	char text[] = "no_such_key_xyz=1";
	void *h;

	write_ref_file(p, g_bs, 6);
	if (g_ops->control) {
		char empty[] = "";
		log_reset();
		assert_int_equal(g_ops->control(NULL, IOB_CTL_CHECK_OPTIONS, text), -EINVAL);
		assert_true(log_find("no_such_key_xyz", NULL) >= 0);
		assert_int_equal(g_ops->control(NULL, IOB_CTL_CHECK_OPTIONS, empty), 0);
		assert_int_equal(g_ops->control(NULL, 0x7fff, empty), -ENOTSUP);
	}
	log_reset();
	assert_int_equal(open_with_options(p, text, &h), -EINVAL);
	assert_null(h);
	assert_true(log_find("no_such_key_xyz", NULL) >= 0);
	assert_int_equal(open_with_options(p, "", &h), 0);
	be_close_ok(h);
	assert_int_equal(open_with_options(p, NULL, &h), 0);
	be_close_ok(h);
}

/* Another process truncates the file under an open handle: reads then give
 * 0 (end of file) or a negative errno, never more than asked, and never
 * kill the process (mmap: SIGBUS on its mapping becomes -EIO). */
static void test_truncated_under_handle(void **state)
{
	const char *p = path_of("shrunk");
	uint8_t *buf = buf_new(g_bs);
	void *h;

	write_ref_file(p, 8 * g_bs, 7);
	h = be_open_ok(p, IOB_OPEN_READ, 0);
	read_expect(h, 0, g_bs, (int64_t)g_bs, 7);
	assert_int_equal(truncate(p, 0), 0);
	int64_t n = g_ops->read_at(h, buf, g_bs, 4 * g_bs);
	assert_true(n == 0 || (n < 0 && n >= -4095));
	assert_true(all_bytes(buf + g_bs, TAIL, SENTINEL));
	be_close_ok(h);
	free(buf);
}

static void test_roundtrip(void **state)
{
	const char *p = path_of("roundtrip");
	const uint64_t size = 8 * g_bs;
	void *h;

	write_ref_file(p, size, 2);
	h = be_open_ok(p, IOB_OPEN_READ, 0);
	for (uint64_t off = 0; off < size; off += g_bs)
		read_expect(h, off, g_bs, (int64_t)g_bs, 2);
	/* backwards and out of order: no backend may depend on sequence */
	for (uint64_t i = 8; i-- > 0;)
		read_expect(h, ((i * 5) % 8) * g_bs, g_bs, (int64_t)g_bs, 2);
	read_expect(h, 0, (size_t)size, (int64_t)size, 2); /* all of it in one call */
	be_close_ok(h);
}

static void test_odd_size(void **state)
{
	const char *p = path_of("odd");
	const uint64_t size = 3 * g_bs + 1000;
	void *h;

	write_ref_file(p, size, 3);
	h = be_open_ok(p, IOB_OPEN_READ, 0);
	assert_int_equal(be_size(h), size);
	read_expect(h, 3 * g_bs, g_bs, 1000, 3);          /* short read at the end ... */
	read_expect(h, 4 * g_bs, g_bs, 0, 3);             /* ... then 0 */
	read_expect(h, 2 * g_bs, 2 * g_bs, (int64_t)g_bs + 1000, 3);
	read_expect(h, 64 * g_bs, g_bs, 0, 3);            /* far past the end */
	if (!g_aligned) {
		read_expect(h, size, 100, 0, 3);          /* exactly at the end */
		read_expect(h, size - 10, 100, 10, 3);
		read_expect(h, 17, 5000, 5000, 3);        /* unaligned inside the file */
		read_expect(h, size - 1, 1, 1, 3);
	}
	be_close_ok(h);
}

static void test_empty_file(void **state)
{
	const char *p = path_of("empty");
	void *h = be_open_ok(p, IOB_OPEN_WRITE | IOB_OPEN_CREATE | IOB_OPEN_TRUNC, 0);

	assert_int_equal(be_size(h), 0);
	be_close_ok(h);
	assert_int_equal(disk_size(p), 0);
	h = be_open_ok(p, IOB_OPEN_READ, 0);
	assert_int_equal(be_size(h), 0);
	read_expect(h, 0, g_bs, 0, 4);
	read_expect(h, 16 * g_bs, g_bs, 0, 4);
	be_close_ok(h);
	assert_int_equal(disk_size(p), 0);
}

static void test_missing_file(void **state)
{
	void *h;

	assert_int_equal(be_open(path_of("missing"), IOB_OPEN_READ, 0, &h), -ENOENT);
	assert_int_equal(be_open(path_of("missing"), IOB_OPEN_READ | IOB_OPEN_WRITE, 0, &h), -ENOENT);
	assert_int_equal(access(path_of("missing"), F_OK), -1);
	assert_int_equal(be_open(path_of("nodir/x"), IOB_OPEN_WRITE | IOB_OPEN_CREATE, 0, &h), -ENOENT);
}

/* CREATE without TRUNC keeps what is there; TRUNC empties it. */
static void test_create_keeps_data(void **state)
{
	const char *p = path_of("keep");
	const uint64_t size = 6 * g_bs;
	uint8_t *buf = buf_new(g_bs);
	void *h;

	write_ref_file(p, size, 5);
	h = be_open_ok(p, IOB_OPEN_WRITE | IOB_OPEN_CREATE, 2 * g_bs);
	assert_int_equal(be_size(h), size);
	ref_fill(buf, g_bs, g_bs, 6);
	assert_int_equal(g_ops->write_at(h, buf, g_bs, g_bs), (int64_t)g_bs);
	be_close_ok(h);
	assert_int_equal(disk_size(p), size);

	h = be_open_ok(p, IOB_OPEN_READ, 0);
	assert_int_equal(be_size(h), size);
	read_expect(h, 0, g_bs, (int64_t)g_bs, 5);
	read_expect(h, g_bs, g_bs, (int64_t)g_bs, 6);
	read_expect(h, 2 * g_bs, 4 * g_bs, 4 * (int64_t)g_bs, 5);
	be_close_ok(h);

	h = be_open_ok(p, IOB_OPEN_READ | IOB_OPEN_WRITE | IOB_OPEN_CREATE | IOB_OPEN_TRUNC, 0);
	assert_int_equal(be_size(h), 0);
	read_expect(h, 0, g_bs, 0, 5);
	be_close_ok(h);
	assert_int_equal(disk_size(p), 0);
	free(buf);
}

/* The start of a test of what cap gives (skipped without it): a buffer of
 * one block, and p opened with flags. */
static void *be_open_needing(uint32_t cap, const char *p, uint32_t flags, uint8_t **buf)
{
	if (!has(cap))
		skip();
	*buf = buf_new(g_bs);
	return be_open_ok(p, flags, 0);
}

static void test_truncate(void **state)
{
	const char *p = path_of("trunc");
	uint8_t *buf;
	void *h;

	write_ref_file(p, 4 * g_bs, 7);
	h = be_open_needing(IOB_CAP_TRUNCATE, p, IOB_OPEN_READ | IOB_OPEN_WRITE, &buf);
	assert_int_equal(g_ops->truncate(h, 2 * g_bs), 0);
	assert_int_equal(be_size(h), 2 * g_bs);
	read_expect(h, g_bs, g_bs, (int64_t)g_bs, 7);
	read_expect(h, 2 * g_bs, g_bs, 0, 7);
	assert_int_equal(g_ops->truncate(h, 3 * g_bs), 0); /* growing reads back zeros */
	assert_int_equal(be_size(h), 3 * g_bs);
	assert_int_equal(g_ops->read_at(h, buf, g_bs, 2 * g_bs), (int64_t)g_bs);
	assert_true(all_bytes(buf, g_bs, 0));
	be_close_ok(h);
	assert_int_equal(disk_size(p), 3 * g_bs);
	free(buf);
}

/* Writes and reads interleaved on one handle, and a hole left by a write
 * past the end. */
static void test_mixed_and_holes(void **state)
{
	const char *p = path_of("mixed");
	uint8_t *buf = buf_new(g_bs);
	void *h = be_open_ok(p, IOB_OPEN_READ | IOB_OPEN_WRITE | IOB_OPEN_CREATE | IOB_OPEN_TRUNC, 0);

	ref_fill(buf, g_bs, 0, 8);
	assert_int_equal(g_ops->write_at(h, buf, g_bs, 0), (int64_t)g_bs);
	read_expect(h, 0, g_bs, (int64_t)g_bs, 8);
	ref_fill(buf, g_bs, g_bs, 8);
	assert_int_equal(g_ops->write_at(h, buf, g_bs, g_bs), (int64_t)g_bs);
	read_expect(h, 0, 2 * g_bs, 2 * (int64_t)g_bs, 8);
	ref_fill(buf, g_bs, 5 * g_bs, 8);
	assert_int_equal(g_ops->write_at(h, buf, g_bs, 5 * g_bs), (int64_t)g_bs);
	assert_int_equal(be_size(h), 6 * g_bs);
	read_expect(h, 5 * g_bs, g_bs, (int64_t)g_bs, 8);
	memset(buf, SENTINEL, g_bs);
	assert_int_equal(g_ops->read_at(h, buf, g_bs, 3 * g_bs), (int64_t)g_bs);
	assert_true(all_bytes(buf, g_bs, 0));
	read_expect(h, 6 * g_bs, g_bs, 0, 8);
	if (has(IOB_CAP_SYNC))
		assert_int_equal(g_ops->sync(h), 0);
	be_close_ok(h);
	assert_int_equal(disk_size(p), 6 * g_bs);
	free(buf);
}

/* Small reads and writes alternating at adjacent offsets on one handle: a
 * buffered backend must switch direction without losing its place. */
static void test_interleaved_small(void **state)
{
	const char *p = path_of("interleaved");
	uint8_t *buf;
	void *h;

	if (g_aligned)
		skip();
	buf = buf_new(g_bs);
	write_ref_file(p, 4 * g_bs, 16);
	h = be_open_ok(p, IOB_OPEN_READ | IOB_OPEN_WRITE, 0);
	read_expect(h, 0, 100, 100, 16);
	ref_fill(buf, 100, 100, 17);
	assert_int_equal(g_ops->write_at(h, buf, 100, 100), 100);
	read_expect(h, 200, 100, 100, 16);
	ref_fill(buf, 50, 300, 17);
	assert_int_equal(g_ops->write_at(h, buf, 50, 300), 50);
	read_expect(h, 100, 100, 100, 17);
	read_expect(h, 350, 50, 50, 16);
	ref_fill(buf, 10, 4 * g_bs - 5, 17); /* straddles the end: grows the file */
	assert_int_equal(g_ops->write_at(h, buf, 10, 4 * g_bs - 5), 10);
	read_expect(h, 4 * g_bs - 5, 100, 10, 17);
	be_close_ok(h);

	assert_int_equal(disk_size(p), 4 * g_bs + 5);
	h = be_open_ok(p, IOB_OPEN_READ, 0);
	read_expect(h, 0, 100, 100, 16);
	read_expect(h, 100, 100, 100, 17);
	read_expect(h, 200, 100, 100, 16);
	read_expect(h, 300, 50, 50, 17);
	read_expect(h, 350, 4 * g_bs - 355, 4 * (int64_t)g_bs - 355, 16);
	read_expect(h, 4 * g_bs - 5, 100, 10, 17);
	be_close_ok(h);
	free(buf);
}

/* Permission bits come from args->mode (less the umask, never more). */
static void test_create_mode(void **state)
{
	const char *p = path_of("mode");
	struct stat st;
	void *h = NULL;

#ifdef _WIN32
	printf("  (Windows files have no POSIX permission bits: not tested)\n");
	skip();
#endif
	assert_int_equal(be_open_with(p, IOB_OPEN_WRITE | IOB_OPEN_CREATE, 0600, 0, 0, NULL, &h), 0);
	be_close_ok(h);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
}

static void test_sync(void **state)
{
	const char *p = path_of("sync");
	uint8_t *buf;
	void *h;

	h = be_open_needing(IOB_CAP_SYNC, p, IOB_OPEN_WRITE | IOB_OPEN_CREATE | IOB_OPEN_TRUNC, &buf);
	assert_int_equal(g_ops->sync(h), 0); /* nothing written yet */
	ref_fill(buf, g_bs, 0, 9);
	assert_int_equal(g_ops->write_at(h, buf, g_bs, 0), (int64_t)g_bs);
	assert_int_equal(g_ops->sync(h), 0);
	assert_int_equal(disk_size(p), g_bs); /* visible to others after sync */
	assert_int_equal(g_ops->sync(h), 0);
	be_close_ok(h);
	free(buf);
}

/* size_hint is a hint: the file ends where the data ends. */
static void test_size_hint(void **state)
{
	const char *p = path_of("hint");
	const uint64_t size = g_aligned ? 3 * g_bs : 3 * g_bs + 123;
	uint8_t *buf = buf_new(4 * g_bs);
	void *h = be_open_ok(p, IOB_OPEN_READ | IOB_OPEN_WRITE | IOB_OPEN_CREATE | IOB_OPEN_TRUNC, 1 << 20);

	ref_fill(buf, (size_t)size, 0, 10);
	assert_int_equal(g_ops->write_at(h, buf, (size_t)size, 0), (int64_t)size);
	assert_int_equal(be_size(h), size);
	read_expect(h, 0, 4 * g_bs, (int64_t)size, 10);
	be_close_ok(h);
	assert_int_equal(disk_size(p), size);
	/* growth well beyond any hint */
	h = be_open_ok(p, IOB_OPEN_READ | IOB_OPEN_WRITE, 0);
	ref_fill(buf, g_bs, 300 * g_bs, 10);
	assert_int_equal(g_ops->write_at(h, buf, g_bs, 300 * g_bs), (int64_t)g_bs);
	assert_int_equal(be_size(h), 301 * g_bs);
	read_expect(h, 300 * g_bs, 2 * g_bs, (int64_t)g_bs, 10);
	be_close_ok(h);
	assert_int_equal(disk_size(p), 301 * g_bs);
	free(buf);
}

/* Each of address, offset and length misaligned: -EINVAL, a log line naming
 * the value and the alignment, and the buffer (or file) untouched. */
static void test_misaligned(void **state)
{
	const char *p = path_of("misaligned");
	const uint32_t half = g_io_align / 2;
	char num[64], al[32];
	uint8_t *buf;
	void *h;

	if (!g_aligned)
		skip();
	buf = buf_new(3 * g_bs);
	write_ref_file(p, 2 * g_bs, 11);
	h = be_open_ok(p, IOB_OPEN_READ | IOB_OPEN_WRITE, 0);
	snprintf(al, sizeof al, "%u", g_io_align);

	log_reset();
	assert_int_equal(g_ops->read_at(h, buf + 1, g_bs, 0), -EINVAL);
	snprintf(num, sizeof num, "%p", (void *)(buf + 1));
	assert_true(log_find(num, NULL) >= 0);
	assert_true(all_bytes(buf, 3 * g_bs + TAIL, SENTINEL));

	log_reset();
	assert_int_equal(g_ops->read_at(h, buf, g_bs, half), -EINVAL);
	snprintf(num, sizeof num, "%u", half);
	assert_true(log_find(num, al) >= 0);
	assert_true(all_bytes(buf, 3 * g_bs + TAIL, SENTINEL));

	log_reset();
	assert_int_equal(g_ops->read_at(h, buf, g_bs + half, 0), -EINVAL);
	snprintf(num, sizeof num, "%zu", g_bs + half);
	assert_true(log_find(num, al) >= 0);
	assert_true(all_bytes(buf, 3 * g_bs + TAIL, SENTINEL));

	/* writes are refused the same way and leave the file alone */
	ref_fill(buf, 3 * g_bs, 0, 12);
	log_reset();
	assert_int_equal(g_ops->write_at(h, buf + 1, g_bs, 0), -EINVAL);
	assert_int_equal(g_ops->write_at(h, buf, g_bs, half), -EINVAL);
	assert_int_equal(g_ops->write_at(h, buf, g_bs + half, 0), -EINVAL);
	assert_int_equal(g_nlog >= 3, 1);
	be_close_ok(h);
	assert_int_equal(disk_size(p), 2 * g_bs);
	h = be_open_ok(p, IOB_OPEN_READ, 0);
	read_expect(h, 0, 2 * g_bs, 2 * (int64_t)g_bs, 11);
	be_close_ok(h);
	free(buf);
}

/* A direct backend must not pretend on a memory file system: the open is
 * refused with -EINVAL and the standard message, and nothing is created. */
static void test_direct_memory_fs(void **state)
{
#if defined(__linux__) && defined(TMPFS_MAGIC)
	char tmpl[] = "/dev/shm/iob-conformance-XXXXXX", file[64];
	struct statfs sf;
	void *h;

	if (!g_direct || statfs("/dev/shm", &sf) != 0 || sf.f_type != TMPFS_MAGIC ||
	    !mkdtemp(tmpl))
		skip();
	snprintf(file, sizeof file, "%s/f", tmpl);
	log_reset();
	assert_int_equal(be_open(file, IOB_OPEN_WRITE | IOB_OPEN_CREATE | IOB_OPEN_TRUNC, 0, &h), -EINVAL);
	assert_true(log_find("O_DIRECT not supported on", file) >= 0);
	assert_int_equal(access(file, F_OK), -1);
	assert_int_equal(rmdir(tmpl), 0);
#else
	skip();
#endif
}

/* A child feeds `size` reference bytes into fd in small, spaced chunks, so
 * a reader sees many short read(2) results before end of file. */
static pid_t feed_slowly(int fd, const uint8_t *src, size_t size)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	for (size_t off = 0; off < size; off += 700) {
		size_t n = size - off < 700 ? size - off : 700;
		if (write(fd, src + off, n) != (ssize_t)n)
			_exit(1);
		usleep(2000);
	}
	_exit(0);
}

/* Path "-" reads standard input strictly forwards; a short count only at
 * the end, however the data trickles in. */
static void test_stream(void **state)
{
	const size_t size = 10000;
	uint8_t *src;
	struct iob_file_info fi;
	int pfd[2], saved, status;
	pid_t child;
	void *h;

	if (!has(IOB_CAP_STREAM))
		skip();
	src = buf_new(size);
	ref_fill(src, size, 0, 13);
	assert_int_equal(pipe(pfd), 0);
	child = feed_slowly(pfd[1], src, size);
	assert_true(child > 0);
	close(pfd[1]);
	saved = dup(STDIN_FILENO);
	assert_true(saved >= 0);
	assert_int_equal(dup2(pfd[0], STDIN_FILENO), STDIN_FILENO);
	close(pfd[0]);
	clearerr(stdin);

	assert_true(be_open("-", IOB_OPEN_WRITE, 0, &h) < 0);
	h = be_open_ok("-", IOB_OPEN_READ, 0);
	be_info(h, &fi);
	assert_int_equal(fi.is_stream, 1);
	assert_int_equal(fi.size, 0);
	read_expect(h, 0, 4096, 4096, 13);    /* at the current position */
	read_expect(h, 4096, 1000, 1000, 13); /* again */
	read_expect(h, 6000, 2000, 2000, 13); /* forwards over a gap */
	read_expect(h, 0, 100, -ESPIPE, 13);  /* backwards: refused */
	read_expect(h, 8000, 4096, 2000, 13); /* short at the end ... */
	read_expect(h, 10000, 4096, 0, 13);   /* ... then 0 */
	be_close_ok(h);

	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(dup2(saved, STDIN_FILENO), STDIN_FILENO);
	close(saved);
	clearerr(stdin);
	free(src);
}

/* ------------------------------------------------------------------------ */
/* Queued I/O (IOB_CAP_ASYNC): submit and reap.                              */

#define QD 32

static int be_open_qd(const char *path, uint32_t flags, uint32_t qd, const char *opts, void **h)
{
	return be_open_with(path, flags, 0644, 0, qd, opts, h);
}

/* Submit all n (as the ring takes them) and reap them all, min 1 at a time;
 * every I/O must come back exactly once, with its user pointer intact. */
static void submit_reap_all(void *h, struct iob_io *ios, size_t n, size_t qd)
{
	struct iob_io **ptrs = calloc(n, sizeof *ptrs), **done = calloc(n, sizeof *done);
	unsigned char *back = calloc(n, 1);
	size_t next = 0, inflight = 0, reaped = 0;

	assert_true(ptrs && done && back);
	for (size_t i = 0; i < n; i++) {
		ptrs[i] = &ios[i];
		ios[i].user = &back[i];
		ios[i].result = INT64_MIN;
	}
	while (reaped < n) {
		if (next < n && inflight < qd) {
			int k = g_ops->submit(h, ptrs + next, n - next);
			assert_true(k > 0);
			assert_true((size_t)k <= qd - inflight); /* never more than the ring's free slots */
			next += (size_t)k;
			inflight += (size_t)k;
		}
		int got = g_ops->reap(h, done, 1, n);
		assert_true(got >= 1 && (size_t)got <= inflight);
		for (int j = 0; j < got; j++) {
			unsigned char *mark = done[j]->user;
			assert_true(mark >= back && mark < back + n);
			assert_ptr_equal(done[j], &ios[mark - back]); /* user untouched */
			assert_int_equal(*mark, 0);                    /* reaped once */
			*mark = 1;
			assert_true(done[j]->result != INT64_MIN);
		}
		inflight -= (size_t)got;
		reaped += (size_t)got;
	}
	assert_int_equal(g_ops->reap(h, done, 0, n), 0); /* nothing left */
	free(ptrs);
	free(done);
	free(back);
}

/* Writes then reads of N = 4 x QD blocks at depth QD, offsets shuffled: every
 * byte lands where its I/O said and every read returns its own block. */
static void test_async_depth(void **state)
{
	const char *p = path_of("async");
	const size_t n = 4 * QD;
	struct iob_io *ios, *probe_io[QD + 8];
	uint8_t *bufs;
	void *h;

	if (!has(IOB_CAP_ASYNC))
		skip();
	ios = calloc(n, sizeof *ios);
	bufs = buf_new(n * g_bs);
	assert_non_null(ios);
	assert_int_equal(be_open_qd(p, IOB_OPEN_READ | IOB_OPEN_WRITE | IOB_OPEN_CREATE | IOB_OPEN_TRUNC, QD,
				    g_opts, &h),
			 0);
	for (size_t i = 0; i < n; i++) {
		uint64_t blk = (i * 37) % n; /* a permutation: 37 and 128 are coprime */
		ios[i] = (struct iob_io){.buf = bufs + i * g_bs, .len = g_bs, .off = blk * g_bs, .write = 1};
		ref_fill(ios[i].buf, g_bs, ios[i].off, 20);
	}
	/* the ring takes no more than its depth at once */
	for (size_t i = 0; i < QD + 8; i++)
		probe_io[i] = &ios[i];
	assert_int_equal(g_ops->submit(h, probe_io, QD + 8), QD);
	assert_int_equal(g_ops->submit(h, probe_io + QD, 8), -EAGAIN);
	{
		struct iob_io *done[QD + 8];
		size_t got = 0;
		while (got < QD) {
			int k = g_ops->reap(h, done, QD - got, QD + 8);
			assert_true(k >= (int)(QD - got) && k <= QD);
			got += (size_t)k;
		}
		for (size_t i = 0; i < QD; i++)
			assert_int_equal(ios[i].result, (int64_t)g_bs);
	}
	submit_reap_all(h, ios + QD, n - QD, QD);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(ios[i].result, (int64_t)g_bs);
	assert_int_equal(be_size(h), n * g_bs);

	memset(bufs, SENTINEL, n * g_bs + TAIL);
	for (size_t i = 0; i < n; i++)
		ios[i].write = 0;
	submit_reap_all(h, ios, n, QD);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(ios[i].result, (int64_t)g_bs);
		assert_int_equal(ref_diff(ios[i].buf, g_bs, ios[i].off, 20), -1);
	}
	assert_true(all_bytes(bufs + n * g_bs, TAIL, SENTINEL));
	be_close_ok(h);
	/* the plain read path sees the same file */
	h = be_open_ok(p, IOB_OPEN_READ, 0);
	read_expect(h, 0, 8 * g_bs, 8 * (int64_t)g_bs, 20);
	be_close_ok(h);
	free(ios);
	free(bufs);
}

/* Requests of different lengths in flight together: each completion's count
 * is its own request's, whatever order they finish in, and the totals add up. */
static void test_async_accounting(void **state)
{
	const char *p = path_of("async-acct");
	const size_t n = 3 * QD, blocks = 3;
	struct iob_io *ios;
	uint8_t *bufs;
	uint64_t want = 0, got = 0, off = 0;
	void *h;

	if (!has(IOB_CAP_ASYNC))
		skip();
	ios = calloc(n, sizeof *ios);
	assert_non_null(ios);
	bufs = buf_new(n * blocks * g_bs);
	write_ref_file(p, n * blocks * g_bs, 21);
	assert_int_equal(be_open_qd(p, IOB_OPEN_READ, QD, g_opts, &h), 0);
	for (size_t i = 0; i < n; i++) {
		size_t len = (1 + (i * 7) % blocks) * g_bs; /* 1, 2 or 3 blocks */
		ios[i] = (struct iob_io){.buf = bufs + off, .len = len, .off = off};
		off += len;
		want += len;
	}
	submit_reap_all(h, ios, n, QD);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(ios[i].result, (int64_t)ios[i].len);
		assert_int_equal(ref_diff(ios[i].buf, ios[i].len, ios[i].off, 21), -1);
		got += (uint64_t)ios[i].result;
	}
	assert_true(got == want);
	be_close_ok(h);
	free(ios);
	free(bufs);
}

/* A queued read across the end of the file comes back short, as it is; one
 * at or past the end gives 0. */
static void test_async_short_read(void **state)
{
	const char *p = path_of("async-short");
	const uint64_t size = 3 * g_bs + 1000;
	uint8_t *bufs;
	struct iob_io ios[2], *ptrs[2] = {&ios[0], &ios[1]}, *done[2];
	int k, got = 0;
	void *h;

	if (!has(IOB_CAP_ASYNC))
		skip();
	bufs = buf_new(4 * g_bs);
	write_ref_file(p, size, 22);
	assert_int_equal(be_open_qd(p, IOB_OPEN_READ, 4, g_opts, &h), 0);
	ios[0] = (struct iob_io){.buf = bufs, .len = 2 * g_bs, .off = 2 * g_bs};
	ios[1] = (struct iob_io){.buf = bufs + 2 * g_bs, .len = g_bs, .off = 4 * g_bs};
	k = g_ops->submit(h, ptrs, 2);
	assert_int_equal(k, 2);
	while (got < 2) {
		k = g_ops->reap(h, done + got, 1, 2 - (size_t)got);
		assert_true(k >= 1);
		got += k;
	}
	assert_int_equal(ios[0].result, (int64_t)g_bs + 1000);
	assert_int_equal(ref_diff(bufs, g_bs + 1000, 2 * g_bs, 22), -1);
	assert_int_equal(ios[1].result, 0);
	be_close_ok(h);
	free(bufs);
}

/* Direct handles refuse a misaligned queued request with -EINVAL and a log
 * line, and queue nothing of it; an aligned request before it in the same
 * call is queued and completes. */
static void test_async_misaligned(void **state)
{
	const char *p = path_of("async-misaligned");
	uint8_t *buf;
	struct iob_io good, bad, *ptrs[2] = {&good, &bad}, *done[2];
	void *h;

	if (!has(IOB_CAP_ASYNC) || !g_direct)
		skip();
	buf = buf_new(3 * g_bs);
	write_ref_file(p, 2 * g_bs, 23);
	assert_int_equal(be_open_qd(p, IOB_OPEN_READ, 8, g_opts, &h), 0);
	bad = (struct iob_io){.buf = buf + 1, .len = g_bs, .off = 0};
	log_reset();
	assert_int_equal(g_ops->submit(h, &ptrs[1], 1), -EINVAL);
	assert_true(g_nlog >= 1);
	bad = (struct iob_io){.buf = buf, .len = g_bs, .off = g_io_align / 2};
	assert_int_equal(g_ops->submit(h, &ptrs[1], 1), -EINVAL);
	bad = (struct iob_io){.buf = buf, .len = g_bs + g_io_align / 2, .off = 0};
	assert_int_equal(g_ops->submit(h, &ptrs[1], 1), -EINVAL);
	assert_int_equal(g_ops->reap(h, done, 0, 2), 0); /* none of them is in flight */
	assert_true(all_bytes(buf, 3 * g_bs + TAIL, SENTINEL));

	good = (struct iob_io){.buf = buf + g_bs, .len = g_bs, .off = g_bs};
	assert_int_equal(g_ops->submit(h, ptrs, 2), 1);
	assert_int_equal(g_ops->reap(h, done, 1, 2), 1);
	assert_ptr_equal(done[0], &good);
	assert_int_equal(good.result, (int64_t)g_bs);
	assert_int_equal(ref_diff(buf + g_bs, g_bs, g_bs, 23), -1);
	be_close_ok(h);
	free(buf);
}

/* Closing a handle with requests in flight waits for them (nothing writes
 * into a buffer after close returns; ASan and the data check would see it),
 * and a depth of 0 or 1 holds one request at a time. */
static void test_async_close_inflight(void **state)
{
	const char *p = path_of("async-close");
	const size_t n = 8;
	struct iob_io ios[8], *ptrs[8];
	uint8_t *bufs;
	void *h;

	if (!has(IOB_CAP_ASYNC))
		skip();
	bufs = buf_new(n * g_bs);
	write_ref_file(p, n * g_bs, 24);
	assert_int_equal(be_open_qd(p, IOB_OPEN_READ, 0, g_opts, &h), 0);
	for (size_t i = 0; i < n; i++) {
		ios[i] = (struct iob_io){.buf = bufs + i * g_bs, .len = g_bs, .off = i * g_bs};
		ptrs[i] = &ios[i];
	}
	assert_int_equal(g_ops->submit(h, ptrs, 2), 1);
	be_close_ok(h);
	assert_int_equal(ref_diff(bufs, g_bs, 0, 24), -1);

	assert_int_equal(be_open_qd(p, IOB_OPEN_READ, n, g_opts, &h), 0);
	assert_int_equal(g_ops->submit(h, ptrs, n), (int)n);
	be_close_ok(h);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(ref_diff(ios[i].buf, g_bs, ios[i].off, 24), -1);
	assert_true(all_bytes(bufs + n * g_bs, TAIL, SENTINEL));
	free(bufs);
}

static struct iob_phase_spec spec_for(const char *const *files, enum iob_phase phase, uint64_t size);
static void run_ok(const struct iob_phase_spec *s, struct iob_phase_result *r);

/* io_uring regbufs=1 (with regfiles=1): buffers are registered on first use
 * and must stay allocated until close, so this test keeps them so.  Data
 * goes and comes back right through read_at/write_at and submit/reap; with a
 * depth of 1 the table holds 2 x 1 + 2 = 4 buffers, and a fifth and sixth
 * buffer go unregistered after exactly one warning. */
static void test_uring_regbufs(void **state)
{
	const char *p = path_of("regbufs");
	const char *opts = g_direct ? "direct=1,regfiles=1,regbufs=1" : "regfiles=1,regbufs=1";
	const size_t n = 8;
	uint8_t *bufs;
	struct iob_io ios[8], *ptrs[8], *done[8];
	size_t got = 0;
	void *h;

	if (strcmp(g_name, "io_uring") != 0)
		skip();
	bufs = buf_new(n * g_bs);
	write_ref_file(p, n * g_bs, 25);

	assert_int_equal(be_open_qd(p, IOB_OPEN_READ | IOB_OPEN_WRITE, 1, opts, &h), 0);
	log_reset();
	for (size_t i = 0; i < 6; i++) /* six buffers, four slots */
		assert_int_equal(g_ops->read_at(h, bufs + i * g_bs, g_bs, i * g_bs), (int64_t)g_bs);
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(ref_diff(bufs + i * g_bs, g_bs, i * g_bs, 25), -1);
	assert_int_equal(g_nlog, 1);
	assert_true(log_find("regbufs=1", "unregistered") >= 0);
	ref_fill(bufs, g_bs, 0, 26);
	assert_int_equal(g_ops->write_at(h, bufs, g_bs, 0), (int64_t)g_bs); /* a registered one */
	ref_fill(bufs + 5 * g_bs, g_bs, 5 * g_bs, 26);
	assert_int_equal(g_ops->write_at(h, bufs + 5 * g_bs, g_bs, 5 * g_bs), (int64_t)g_bs); /* not */
	assert_int_equal(g_ops->sync(h), 0);
	be_close_ok(h);

	memset(bufs, SENTINEL, n * g_bs);
	assert_int_equal(be_open_qd(p, IOB_OPEN_READ, n, opts, &h), 0);
	for (size_t i = 0; i < n; i++) {
		ios[i] = (struct iob_io){.buf = bufs + i * g_bs, .len = g_bs, .off = i * g_bs};
		ptrs[i] = &ios[i];
	}
	assert_int_equal(g_ops->submit(h, ptrs, n), (int)n);
	while (got < n) {
		int k = g_ops->reap(h, done, 1, n);
		assert_true(k >= 1);
		got += (size_t)k;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned salt = i == 0 || i == 5 ? 26 : 25;
		assert_int_equal(ios[i].result, (int64_t)g_bs);
		assert_int_equal(ref_diff(ios[i].buf, g_bs, ios[i].off, salt), -1);
	}
	be_close_ok(h);
	free(bufs);

	/* through the engine, which frees its buffers after closing its files */
	{
		const char *files[] = {path_of("regbufs-engine")};
		struct iob_phase_spec s = spec_for(files, IOB_PHASE_WRITE, 16 * g_bs);
		struct iob_phase_result r;

		s.backend_options = opts;
		run_ok(&s, &r);
		iob_phase_result_free(&r);
		s.phase = IOB_PHASE_VERIFY;
		s.access = IOB_ACCESS_RAND;
		s.ops = 32;
		run_ok(&s, &r);
		assert_int_equal(r.ops, 32);
		assert_int_equal(r.bad_blocks, 0);
		iob_phase_result_free(&r);
	}
}

/* io_uring refused by the kernel: in a child whose seccomp filter makes
 * io_uring_setup fail with EPERM (what io_uring_disabled gives) or ENOSYS (a
 * kernel without it), open returns that error after one line saying so, and
 * creates nothing.  Child exit: 0 ok, 1 wrong return, 2 no such line, 3 file
 * created, 4 the filter could not be installed. */
#if defined(__linux__) && defined(IOB_AUDIT_ARCH)
static int refused_child(int err, const char *file)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IOB_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof f / sizeof f[0], .filter = f};
	void *h;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
		return 4;
	log_reset();
	if (be_open(file, IOB_OPEN_WRITE | IOB_OPEN_CREATE | IOB_OPEN_TRUNC, 0, &h) != -err)
		return 1;
	if (g_nlog != 1 || log_find("io_uring", "use backend posix or direct") < 0)
		return 2;
	return access(file, F_OK) == 0 ? 3 : 0;
}
#endif

static void test_uring_refused(void **state)
{
#if defined(__linux__) && defined(IOB_AUDIT_ARCH)
	const int errs[] = {EPERM, ENOSYS};
	const char *file = path_of("refused");

	if (strcmp(g_name, "io_uring") != 0)
		skip();
	for (size_t i = 0; i < 2; i++) {
		int status;
		pid_t pid;

		fflush(NULL);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0)
			_exit(refused_child(errs[i], file));
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		if (WEXITSTATUS(status) == 4) {
			printf("  (io_uring refusal not tested: a seccomp filter cannot be installed here)\n");
			skip();
		}
		assert_int_equal(WEXITSTATUS(status), 0);
		assert_int_equal(access(file, F_OK), -1);
	}
#else
	skip();
#endif
}

/* ------------------------------------------------------------------------ */
/* Through the engine.                                                       */

static struct iob_phase_spec spec_for(const char *const *files, enum iob_phase phase, uint64_t size)
{
	struct iob_phase_spec s = {
		.backend = g_be,
		.files = files,
		.nfiles = 1,
		.phase = phase,
		.access = IOB_ACCESS_SEQ,
		.block_size = g_bs,
		.file_size = size,
		.pattern = {.kind = IOB_PAT_RANDOM, .seed = 42},
		.seed = 7,
		.truncate = 1,
		.backend_options = g_opts,
	};
	return s;
}

static void run_ok(const struct iob_phase_spec *s, struct iob_phase_result *r)
{
	int rc = iob_phase_run(s, r);
	if (rc != 0)
		print_error("phase %s: status %d: %s\n", iob_phase_name(s->phase), rc, r->error);
	assert_int_equal(rc, 0);
	assert_int_equal(r->status, 0);
	assert_int_equal(r->interrupted, 0);
	assert_int_equal(r->direct, g_direct ? 1 : 0);
}

/* The file on disk, read with plain read(2), holds the pattern. */
static void disk_matches_pattern(const char *path, const struct iob_pattern *pat, uint64_t size)
{
	uint8_t *got = malloc((size_t)size), *want = malloc((size_t)size);
	int fd = open(path, O_RDONLY);

	assert_true(got && want && fd >= 0);
	assert_int_equal(read(fd, got, (size_t)size), (ssize_t)size);
	iob_pattern_fill(pat, want, (size_t)size, 0);
	assert_memory_equal(got, want, (size_t)size);
	close(fd);
	free(got);
	free(want);
}

static void corrupt(const char *path, uint64_t off, uint8_t *old, uint8_t *new)
{
	int fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, old, 1, (off_t)off), 1);
	*new = (uint8_t)~*old;
	assert_int_equal(pwrite(fd, new, 1, (off_t)off), 1);
	assert_int_equal(fsync(fd), 0);
	close(fd);
}

/* Phase s, which must succeed, moved size bytes in ops I/Os. */
static void run_moves(const struct iob_phase_spec *s, uint64_t size, uint64_t ops)
{
	struct iob_phase_result r;
	run_ok(s, &r);
	assert_int_equal(r.bytes, size);
	assert_int_equal(r.ops, ops);
	iob_phase_result_free(&r);
}

/* After a write phase with spec s: the file holds size bytes, its pattern. */
static void disk_written(const char *path, const struct iob_phase_spec *s, uint64_t size)
{
	assert_int_equal(disk_size(path), size);
	disk_matches_pattern(path, &s->pattern, size);
}

/* A verify phase over files (its spec left in *s): size bytes read, none bad. */
static void verify_clean(struct iob_phase_spec *s, const char *const *files, uint64_t size)
{
	struct iob_phase_result r;
	*s = spec_for(files, IOB_PHASE_VERIFY, 0);
	run_ok(s, &r);
	assert_int_equal(r.bytes, size);
	assert_int_equal(r.bad_blocks, 0);
	iob_phase_result_free(&r);
}

static void test_engine_write_read_verify(void **state)
{
	const char *files[] = {path_of("engine")};
	const uint64_t size = 16 * g_bs, bad = 5 * g_bs + 17;
	struct iob_phase_spec s = spec_for(files, IOB_PHASE_WRITE, size);
	struct iob_phase_result r;
	uint8_t old, new;

	s.fsync = has(IOB_CAP_SYNC);
	run_ok(&s, &r);
	assert_int_equal(r.bytes, size);
	assert_int_equal(r.ops, 16);
	assert_int_equal(r.short_ops, 0);
	iob_phase_result_free(&r);
	disk_written(files[0], &s, size);

	s = spec_for(files, IOB_PHASE_READ, 0);
	run_moves(&s, size, 16);
	verify_clean(&s, files, size);

	corrupt(files[0], bad, &old, &new);
	assert_int_equal(iob_phase_run(&s, &r), IOB_STATUS_MISMATCH);
	assert_int_equal(r.bad_blocks, 1);
	assert_int_equal(r.first_bad_offset, bad);
	assert_int_equal(r.expected, old);
	assert_int_equal(r.found, new);
	assert_string_equal(r.bad_file, files[0]);
	iob_phase_result_free(&r);
}

static void test_engine_odd_size(void **state)
{
	const char *files[] = {path_of("engine-odd")};
	const uint64_t size = 5 * g_bs + 123;
	struct iob_phase_spec s = spec_for(files, IOB_PHASE_WRITE, size);
	struct iob_phase_result r;

	if (g_aligned) {
		/* the engine refuses what the backend could not write, and leaves
		 * no file behind; an odd-sized file made otherwise still reads */
		assert_int_equal(iob_phase_run(&s, &r), -EINVAL);
		assert_int_equal(r.ops, 0);
		assert_int_equal(access(files[0], F_OK), -1);
		iob_phase_result_free(&r);
		write_ref_file(files[0], size, 14);
		s = spec_for(files, IOB_PHASE_READ, 0);
		run_ok(&s, &r);
		assert_int_equal(r.bytes, size);
		assert_int_equal(r.ops, 6);
		assert_int_equal(r.short_ops, 1);
		iob_phase_result_free(&r);
		return;
	}
	run_moves(&s, size, 6);
	disk_written(files[0], &s, size);
	verify_clean(&s, files, size);
}

static void test_engine_empty(void **state)
{
	const char *files[] = {path_of("engine-empty")};
	struct iob_phase_spec s = spec_for(files, IOB_PHASE_READ, 0);
	struct iob_phase_result r;
	int fd = open(files[0], O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	close(fd);
	run_ok(&s, &r);
	assert_int_equal(r.bytes, 0);
	iob_phase_result_free(&r);
}

/* A write phase without truncate rewrites in place and keeps the tail. */
static void test_engine_no_truncate(void **state)
{
	const char *files[] = {path_of("engine-keep")};
	struct iob_phase_spec s = spec_for(files, IOB_PHASE_WRITE, 4 * g_bs);
	struct iob_phase_result r;
	void *h;

	write_ref_file(files[0], 8 * g_bs, 15);
	s.truncate = 0;
	run_ok(&s, &r);
	assert_int_equal(r.bytes, 4 * g_bs);
	iob_phase_result_free(&r);
	assert_int_equal(disk_size(files[0]), 8 * g_bs);
	disk_matches_pattern(files[0], &s.pattern, 4 * g_bs);
	h = be_open_ok(files[0], IOB_OPEN_READ, 0);
	read_expect(h, 4 * g_bs, 4 * g_bs, 4 * (int64_t)g_bs, 15);
	be_close_ok(h);

	s.truncate = 1;
	run_ok(&s, &r);
	iob_phase_result_free(&r);
	assert_int_equal(disk_size(files[0]), 4 * g_bs);
}

static void test_engine_random(void **state)
{
	const char *files[] = {path_of("engine-rand")};
	const uint64_t size = 32 * g_bs;
	struct iob_phase_spec s = spec_for(files, IOB_PHASE_WRITE, size);
	struct iob_phase_result r;

	run_ok(&s, &r);
	iob_phase_result_free(&r);

	s = spec_for(files, IOB_PHASE_READ, size);
	s.access = IOB_ACCESS_RAND;
	s.ops = 64;
	run_ok(&s, &r);
	assert_int_equal(r.ops, 64);
	assert_int_equal(r.bytes, 64 * g_bs);
	iob_phase_result_free(&r);

	s.phase = IOB_PHASE_VERIFY;
	run_ok(&s, &r);
	assert_int_equal(r.ops, 64);
	assert_int_equal(r.bad_blocks, 0);
	iob_phase_result_free(&r);

	/* random writes of a fresh pattern, then a full sequential verify */
	s.phase = IOB_PHASE_WRITE;
	s.truncate = 0;
	s.pattern.seed = 43;
	s.ops = 0; /* size / bs operations */
	run_ok(&s, &r);
	assert_int_equal(r.ops, 32);
	iob_phase_result_free(&r);
	assert_int_equal(disk_size(files[0]), size);
}

/* ------------------------------------------------------------------------ */
/* Setup and the command line.                                               */


/* ---------------------------------------------------------- null backend */
/* IOB_CAP_NOSTORAGE (the null backend): no data moves, so the data tests
 * above cannot apply; these hold it to what it promises instead. */

/* read_at/write_at: the full length, the buffer untouched, no file made. */
static void test_nostorage_sync(void **state)
{
	(void)state;
	char *path = path_of("never-made");
	struct iob_file_info fi;
	uint8_t *buf = buf_new(g_bs);
	void *h = be_open_ok(path, IOB_OPEN_READ | IOB_OPEN_WRITE | IOB_OPEN_CREATE | IOB_OPEN_TRUNC, 0);
	memset(buf, 0xA5, g_bs);
	assert_int_equal(g_ops->read_at(h, buf, g_bs, 12345), (int64_t)g_bs);
	assert_true(all_bytes(buf, g_bs, 0xA5));
	assert_int_equal(g_ops->write_at(h, buf, g_bs, (uint64_t)1 << 40), (int64_t)g_bs);
	assert_int_equal(g_ops->sync(h), 0);
	be_info(h, &fi);
	assert_true(fi.size >= (uint64_t)1 << 40); /* a read phase covers any job size */
	be_close_ok(h);
	assert_int_equal(access(path, F_OK), -1); /* nothing created */
	assert_int_equal(errno, ENOENT);
	/* an option it does not have is refused, at the check and at open */
	assert_int_equal(g_ops->control(NULL, IOB_CTL_CHECK_OPTIONS, (void *)"depth=3"), -EINVAL);
	assert_int_equal(g_ops->control(NULL, IOB_CTL_CHECK_OPTIONS, (void *)""), 0);
	assert_int_equal(be_open_qd(path, IOB_OPEN_READ, 1, "bogus=1", &h), -EINVAL);
	free(buf);
}

/* submit/reap at depths 1, 32 and 128: every I/O back exactly once with its
 * full length, submit never takes more than the free slots, reap never waits. */
static void test_nostorage_async(void **state)
{
	(void)state;
	static const uint32_t depths[] = {1, 32, 128};
	char *path = path_of("never-made-async");
	uint8_t *buf = buf_new(g_bs);
	for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++) {
		size_t qd = depths[d], n = 4 * qd + 3;
		struct iob_io *ios = calloc(n, sizeof *ios);
		struct iob_io **ptrs = calloc(n, sizeof *ptrs), **done = calloc(n, sizeof *done);
		void *h;
		assert_true(ios && ptrs && done);
		assert_int_equal(be_open_qd(path, IOB_OPEN_READ | IOB_OPEN_WRITE | IOB_OPEN_CREATE, (uint32_t)qd,
					    g_opts, &h),
				 0);
		for (size_t i = 0; i < n; i++) {
			ios[i] = (struct iob_io){.buf = buf, .len = g_bs - (i % 7), .off = i * g_bs, .write = i & 1};
			ptrs[i] = &ios[i];
		}
		/* more than the depth at once: only the depth is taken */
		assert_int_equal(g_ops->submit(h, ptrs, n), (int)qd);
		assert_int_equal(g_ops->submit(h, ptrs + qd, 1), 0);
		assert_int_equal(g_ops->reap(h, done, 0, n), (int)qd); /* min 0: all finished already */
		submit_reap_all(h, ios, n, qd);
		for (size_t i = 0; i < n; i++)
			assert_int_equal(ios[i].result, (int64_t)ios[i].len);
		be_close_ok(h);
		free(ios);
		free(ptrs);
		free(done);
	}
	assert_int_equal(access(path, F_OK), -1);
	free(buf);
}

/* The engine: write and read phases, sync and queued, random and
 * sequential, every I/O counted, and the file never made. */
static void test_nostorage_engine(void **state)
{
	(void)state;
	char *path = path_of("engine-never-made");
	const char *files[] = {path};
	static const enum iob_phase phases[] = {IOB_PHASE_WRITE, IOB_PHASE_READ};
	static const uint32_t depths[] = {1, 32};
	for (size_t p = 0; p < 2; p++)
		for (size_t d = 0; d < 2; d++)
			for (int rnd = 0; rnd < 2; rnd++) {
				struct iob_phase_spec s = spec_for(files, phases[p], 64 * (uint64_t)g_bs);
				struct iob_phase_result r;
				s.iodepth = depths[d];
				s.access = rnd ? IOB_ACCESS_RAND : IOB_ACCESS_SEQ;
				s.truncate = 0;
				run_ok(&s, &r);
				assert_int_equal(r.ops, 64);
				assert_int_equal(phases[p] == IOB_PHASE_WRITE ? r.bytes_written : r.bytes_read,
						 64 * (uint64_t)g_bs);
				iob_phase_result_free(&r);
			}
	assert_int_equal(access(path, F_OK), -1);
}

static void remove_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[PATH_MAX + 256];

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		unlink(p);
	}
	closedir(d);
	rmdir(dir);
}

static int on_memory_fs(const char *dir)
{
#if defined(__linux__) && defined(TMPFS_MAGIC) && defined(RAMFS_MAGIC)
	struct statfs sf;

	return statfs(dir, &sf) == 0 && (sf.f_type == TMPFS_MAGIC || sf.f_type == RAMFS_MAGIC);
#else
	(void)dir;
	return 0;
#endif
}

static int load_registry(void)
{
	/* the template is built into a test-only directory, not the plugin dir */
	const char *dirs[] = {IOB_PLUGIN_BUILD_DIR, IOB_TEMPLATE_PLUGIN_DIR};

	memset(&g_reg, 0, sizeof g_reg);
	iob_registry_load(&g_reg, dirs, 2);
	for (size_t i = 0; i < g_reg.nerrors; i++)
		fprintf(stderr, "load error: %s\n", g_reg.errors[i]);
	return 0;
}

/* The plugin must come from the build tree, not from an installed copy. */
static int from_build_tree(const struct iob_loaded *l)
{
	char want[PATH_MAX], got[PATH_MAX];

	if (!realpath(IOB_PLUGIN_BUILD_DIR, want) || !realpath(l->path, got))
		return 0;
	if (strncmp(got, want, strlen(want)) == 0 && got[strlen(want)] == '/')
		return 1;
	if (!realpath(IOB_TEMPLATE_PLUGIN_DIR, want))
		return 0;
	return strncmp(got, want, strlen(want)) == 0 && got[strlen(want)] == '/';
}

/* Open a probe file to learn the alignment; -EINVAL from a direct backend
 * means the file system refuses O_DIRECT. */
static int probe(void)
{
	struct iob_file_info fi;
	void *h;
	int rc = be_open(path_of("probe"), IOB_OPEN_WRITE | IOB_OPEN_CREATE | IOB_OPEN_TRUNC, 0, &h);

	if (rc < 0)
		return rc;
	memset(&fi, 0, sizeof fi);
	fi.struct_size = sizeof fi;
	rc = g_ops->info(h, &fi);
	g_ops->close(h);
	unlink(path_of("probe"));
	if (rc < 0)
		return rc;
	g_mem_align = fi.mem_align ? fi.mem_align : 1;
	g_io_align = fi.io_align ? fi.io_align : 1;
	g_bs = g_io_align > 4096 ? g_io_align : 4096;
	g_balign = g_mem_align > 4096 ? g_mem_align : 4096;
	return 0;
}

static int check_all_backends(void)
{
	char list[] = IOB_CONF_BACKENDS, *save = NULL;
	int bad = 0;

	load_registry();
	for (char *n = strtok_r(list, ",", &save); n; n = strtok_r(NULL, ",", &save)) {
		const struct iob_loaded *l = iob_registry_find(&g_reg, IOB_PLUGIN_BACKEND, n);
		if (!l) {
			fprintf(stderr, "FAIL: backend %s not loaded from %s\n", n, IOB_PLUGIN_BUILD_DIR);
			bad = 1;
		} else if (!from_build_tree(l)) {
			fprintf(stderr, "FAIL: backend %s loaded from %s, not the build tree\n", n, l->path);
			bad = 1;
		} else {
			printf("ok: backend %-10s caps 0x%02x  %s\n", n, l->desc.caps, l->path);
		}
	}
	if (g_reg.nerrors) {
		fprintf(stderr, "FAIL: %zu plugin load error(s)\n", g_reg.nerrors);
		bad = 1;
	}
	iob_registry_unload(&g_reg);
	return bad;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_descriptor),
		cmocka_unit_test(test_info_sanity),
		cmocka_unit_test(test_info_identity),
		cmocka_unit_test(test_nofollow),
		cmocka_unit_test(test_backend_options),
		cmocka_unit_test(test_truncated_under_handle),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_odd_size),
		cmocka_unit_test(test_empty_file),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_create_keeps_data),
		cmocka_unit_test(test_truncate),
		cmocka_unit_test(test_mixed_and_holes),
		cmocka_unit_test(test_interleaved_small),
		cmocka_unit_test(test_create_mode),
		cmocka_unit_test(test_sync),
		cmocka_unit_test(test_size_hint),
		cmocka_unit_test(test_misaligned),
		cmocka_unit_test(test_direct_memory_fs),
		cmocka_unit_test(test_stream),
		cmocka_unit_test(test_async_depth),
		cmocka_unit_test(test_async_accounting),
		cmocka_unit_test(test_async_short_read),
		cmocka_unit_test(test_async_misaligned),
		cmocka_unit_test(test_async_close_inflight),
		cmocka_unit_test(test_uring_regbufs),
		cmocka_unit_test(test_uring_refused),
		cmocka_unit_test(test_engine_write_read_verify),
		cmocka_unit_test(test_engine_odd_size),
		cmocka_unit_test(test_engine_empty),
		cmocka_unit_test(test_engine_no_truncate),
		cmocka_unit_test(test_engine_random),
	};
	char tmpl[PATH_MAX];
	const char *name;
	int rc;

	iob_log_set_program("conformance");
	iob_log_set_level(IOB_LOG_DEBUG);
	iob_log_set_hook(log_hook, NULL);
	if (argc < 2)
		return check_all_backends();
	name = g_name = argv[1];

	load_registry();
	g_be = iob_registry_find(&g_reg, IOB_PLUGIN_BACKEND, name);
	if (!g_be) {
		fprintf(stderr, "FAIL: backend '%s' not found in %s\n", name, IOB_PLUGIN_BUILD_DIR);
		return 1;
	}
	if (!from_build_tree(g_be)) {
		fprintf(stderr, "FAIL: backend '%s' came from %s, not the build tree %s\n", name, g_be->path,
			IOB_PLUGIN_BUILD_DIR);
		return 1;
	}
	g_ops = &g_be->backend;
	g_caps = g_be->desc.caps;
	g_opts = argc > 2 && argv[2][0] ? argv[2] : NULL;
	g_direct = has(IOB_CAP_DIRECT) || (argc > 3 && strcmp(argv[3], "direct") == 0);
	g_aligned = has(IOB_CAP_ALIGNED) || g_direct;

	snprintf(tmpl, sizeof tmpl, "conformance-%s-XXXXXX", name);
	if (!mkdtemp(tmpl) || !realpath(tmpl, g_dir)) {
		fprintf(stderr, "FAIL: cannot make a test directory here: %s\n", strerror(errno));
		return 1;
	}
	rc = probe();
	if (rc == -EINVAL && g_direct && !has(IOB_CAP_DIRECT) && on_memory_fs(g_dir)) {
		/* O_DIRECT as an option: on tmpfs it is refused by design, and the
		 * option's other runs cover the backend here */
		remove_tree(g_dir);
		printf("SKIP: backend %s with '%s': the test directory is on a memory file system "
		       "(tmpfs/ramfs), where O_DIRECT is refused by design\n",
		       name, g_opts ? g_opts : "");
		return SKIP_CODE;
	}
	if (rc == -EINVAL && g_direct) {
		const char *env = getenv("IOB_NO_DIRECT");
		remove_tree(g_dir);
		if (env && strcmp(env, "1") == 0) {
			printf(
			    "SKIP: backend %s: the file system under %s refuses O_DIRECT (IOB_NO_DIRECT=1)\n",
			    name, g_dir);
			return SKIP_CODE;
		}
		fprintf(stderr,
			"FAIL: backend %s: the file system under %s refuses O_DIRECT; run the build on a "
			"disk-backed file system, or set IOB_NO_DIRECT=1 to skip\n",
			name, g_dir);
		return 1;
	}
	if (rc < 0) {
		fprintf(stderr, "FAIL: backend %s cannot open a file in %s: %s\n", name, g_dir,
			strerror(-rc));
		remove_tree(g_dir);
		return 1;
	}
	printf("backend %s from %s: caps 0x%02x, options '%s', mem_align %u, io_align %u, block %zu, dir %s\n",
	       name, g_be->path, g_caps, g_opts ? g_opts : "", g_mem_align, g_io_align, g_bs, g_dir);
	if (g_direct && g_mem_align <= 1) {
		fprintf(stderr, "FAIL: backend %s with '%s' was to be direct but reports no alignment\n", name,
			g_opts ? g_opts : "");
		remove_tree(g_dir);
		return 1;
	}

	if (has(IOB_CAP_NOSTORAGE)) {
		/* no data moves: the data tests cannot apply (skipped, not run) */
		const struct CMUnitTest nostorage[] = {
			cmocka_unit_test(test_descriptor),
			cmocka_unit_test(test_nostorage_sync),
			cmocka_unit_test(test_nostorage_async),
			cmocka_unit_test(test_nostorage_engine),
		};
		printf("SKIPPED for a backend that moves no bytes (IOB_CAP_NOSTORAGE): the %zu data tests\n",
		       sizeof tests / sizeof tests[0] - 1);
		rc = cmocka_run_group_tests_name(name, nostorage, NULL, NULL);
	} else {
		rc = cmocka_run_group_tests_name(name, tests, NULL, NULL);
	}
	remove_tree(g_dir);
	iob_registry_unload(&g_reg);
	return rc == 0 ? 0 : 1;
}
