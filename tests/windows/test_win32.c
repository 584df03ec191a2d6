/* Windows (run under wine by ctest): os_win32.c and the win32 / direct
 * backends, loaded from the plugin directory next to the .exe files the way
 * the tools load them.  UTF-8 paths with non-ASCII characters, misaligned
 * unbuffered requests refused by the backend itself, options, truncate, the
 * held-directory calls, threads, and the probes Windows does not have. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include "iobench/loader.h"
#include "iobench/os.h"

static struct iob_registry reg;
static char work[4096]; /* a fresh directory with a non-ASCII name */

static int setup(void **state)
{
	(void)state;
	char exe[4096], dir[4096 + 32];
	iob_exe_dir(exe, sizeof exe);
	if (!exe[0])
		return -1;
	/* tests/ beside bin/plugins/ in the build tree */
	snprintf(dir, sizeof dir, "%s/../bin/plugins", exe);
	const char *dirs[] = {dir};
	if (iob_registry_load(&reg, dirs, 1) != 0)
		return -1;
	snprintf(work, sizeof work, "%s/w\xc3\xa4rk-\xe2\x82\xac-%llu", exe, (unsigned long long)iob_now_ns());
	return iob_mkdir(work);
}

static void list_rm(void *arg, const char *name)
{
	char p[8192];
	snprintf(p, sizeof p, "%s/%s", (const char *)arg, name);
	iob_remove_file(p);
}

static int teardown(void **state)
{
	(void)state;
	iob_list_dir(work, list_rm, work);
	iob_remove_dir(work);
	iob_registry_unload(&reg);
	return 0;
}

static const struct iob_loaded *backend(const char *name)
{
	const struct iob_loaded *l = iob_registry_find(&reg, IOB_PLUGIN_BACKEND, name);
	assert_non_null(l);
	assert_int_equal(l->state, IOB_PLUGIN_LOADED);
	return l;
}

static void *open_file(const struct iob_loaded *b, const char *path, const char *options, uint32_t flags)
{
	struct iob_open_args a = {.struct_size = sizeof a, .path = path, .flags = flags, .mode = 0644,
				  .options = options};
	void *h = NULL;
	assert_int_equal(b->backend.open(&a, &h), 0);
	return h;
}

/* the plugin directory is next to the .exe, and both backends are there */
static void test_plugins_found(void **state)
{
	(void)state;
	assert_string_equal(IOB_PATH_LIST_SEP, ";");
	assert_true(reg.ndirs >= 1);
	assert_non_null(strstr(reg.dirs[0], "/bin/plugins"));
	assert_null(strchr(reg.dirs[0], '\\'));
	const struct iob_loaded *d = backend("direct");
	assert_true(d->desc.caps & IOB_CAP_DIRECT);
	assert_true(d->desc.caps & IOB_CAP_ALIGNED);
	assert_false(backend("win32")->desc.caps & IOB_CAP_DIRECT);
	assert_null(iob_registry_find(&reg, IOB_PLUGIN_BACKEND, "posix"));
}

struct seen {
	const char *want;
	int found;
};
static void list_find(void *arg, const char *name)
{
	struct seen *s = arg;
	s->found += strcmp(name, s->want) == 0;
}

/* a UTF-8 name goes through the backend, the size, the listing and realpath */
static void test_utf8_paths(void **state)
{
	(void)state;
	const char *base = "d\xc3\xa4t\xc3\xa4-\xe6\x97\xa5\xe6\x9c\xac.bin"; /* dätä-日本.bin */
	char path[8192], real[8192];
	snprintf(path, sizeof path, "%s/%s", work, base);
	const struct iob_loaded *b = backend("win32");
	void *h = open_file(b, path, NULL, IOB_OPEN_READ | IOB_OPEN_WRITE | IOB_OPEN_CREATE | IOB_OPEN_TRUNC);
	char buf[3000], back[3000];
	memset(buf, 0x5a, sizeof buf);
	assert_int_equal(b->backend.write_at(h, buf, sizeof buf, 1000), sizeof buf);
	assert_int_equal(b->backend.read_at(h, back, sizeof back, 1000), sizeof back);
	assert_memory_equal(buf, back, sizeof buf);
	/* short at end of file, 0 past it */
	assert_int_equal(b->backend.read_at(h, back, sizeof back, 3000), 1000);
	assert_int_equal(b->backend.read_at(h, back, sizeof back, 5000), 0);
	assert_int_equal(b->backend.close(h), 0);

	uint64_t size = 0;
	assert_int_equal(iob_file_size(path, &size), 0);
	assert_int_equal(size, 4000);
	assert_int_equal(iob_path_kind(path, 1), IOB_PATH_REGULAR);
	assert_int_equal(iob_path_kind(work, 1), IOB_PATH_DIRECTORY);
	struct seen s = {base, 0};
	assert_int_equal(iob_list_dir(work, list_find, &s), 0);
	assert_int_equal(s.found, 1);
	assert_int_equal(iob_real_path(path, real, sizeof real), 0);
	assert_non_null(strstr(real, base));
	assert_null(strchr(real, '\\'));
	FILE *f = iob_fopen(path, "rbe");
	assert_non_null(f);
	assert_int_equal(fgetc(f), 0);
	fclose(f);
	assert_int_equal(iob_remove_file(path), 0);
	assert_int_equal(iob_path_kind(path, 1), IOB_PATH_MISSING);
	/* invalid UTF-8 is refused, not guessed at */
	assert_int_equal(iob_path_kind("bad-\xff-name", 1), IOB_PATH_MISSING);
	assert_true(iob_mkdir("bad-\xff-name") < 0);
}

/* unbuffered: the backend refuses what Windows would refuse, even where wine
 * would serve it */
static void test_unbuffered_alignment(void **state)
{
	(void)state;
	char path[8192];
	snprintf(path, sizeof path, "%s/unbuffered.bin", work);
	const struct iob_loaded *b = backend("win32");
	void *h = open_file(b, path, "unbuffered=1,write_through=1,access=random",
			    IOB_OPEN_READ | IOB_OPEN_WRITE | IOB_OPEN_CREATE | IOB_OPEN_TRUNC);
	struct iob_file_info info = {.struct_size = sizeof info};
	assert_int_equal(b->backend.info(h, &info), 0);
	assert_true(info.direct);
	uint32_t a = info.io_align;
	assert_true(a >= 512 && (a & (a - 1)) == 0);
	assert_int_equal(info.mem_align, a);
	char *buf = iob_alloc_aligned(a, 2 * (size_t)a);
	assert_non_null(buf);
	memset(buf, 0x33, 2 * (size_t)a);
	assert_int_equal(b->backend.write_at(h, buf, a, 0), a);
	assert_int_equal(b->backend.write_at(h, buf, a, 100), -EINVAL);     /* offset */
	assert_int_equal(b->backend.write_at(h, buf, a - 1, a), -EINVAL);   /* length */
	assert_int_equal(b->backend.write_at(h, buf + 1, a, a), -EINVAL);   /* address */
	assert_int_equal(b->backend.read_at(h, buf, a, 7), -EINVAL);
	assert_int_equal(b->backend.read_at(h, buf + 8, a, 0), -EINVAL);
	assert_int_equal(b->backend.read_at(h, buf, a, 0), a);
	assert_int_equal(b->backend.sync(h), 0);
	/* nothing misaligned reached the file */
	assert_int_equal(b->backend.info(h, &info), 0);
	assert_int_equal(info.size, a);
	assert_int_equal(b->backend.close(h), 0);
	iob_free_aligned(buf);

	/* direct: the same backend with both flags always on */
	const struct iob_loaded *d = backend("direct");
	h = open_file(d, path, NULL, IOB_OPEN_READ);
	struct iob_file_info di = {.struct_size = sizeof di};
	assert_int_equal(d->backend.info(h, &di), 0);
	assert_true(di.direct);
	assert_int_equal(di.io_align, a);
	char small[16];
	assert_int_equal(d->backend.read_at(h, small, sizeof small, 0), -EINVAL);
	assert_int_equal(d->backend.close(h), 0);
	assert_int_equal(iob_remove_file(path), 0);
}

static void test_options(void **state)
{
	(void)state;
	const struct iob_loaded *b = backend("win32"), *d = backend("direct");
	char text[64];
	snprintf(text, sizeof text, "unbuffered=1");
	assert_int_equal(b->backend.control(NULL, IOB_CTL_CHECK_OPTIONS, text), 0);
	snprintf(text, sizeof text, "unbuffered=2");
	assert_int_equal(b->backend.control(NULL, IOB_CTL_CHECK_OPTIONS, text), -EINVAL);
	snprintf(text, sizeof text, "access=sideways");
	assert_int_equal(b->backend.control(NULL, IOB_CTL_CHECK_OPTIONS, text), -EINVAL);
	snprintf(text, sizeof text, "o_direct=1");
	assert_int_equal(b->backend.control(NULL, IOB_CTL_CHECK_OPTIONS, text), -EINVAL);
	snprintf(text, sizeof text, "access=sequential");
	assert_int_equal(d->backend.control(NULL, IOB_CTL_CHECK_OPTIONS, text), 0);
	snprintf(text, sizeof text, "unbuffered=0");
	assert_int_equal(d->backend.control(NULL, IOB_CTL_CHECK_OPTIONS, text), -EINVAL);
	struct iob_option_caps q = {.options = "unbuffered=1", .caps = b->desc.caps};
	assert_int_equal(b->backend.control(NULL, IOB_CTL_OPTION_CAPS, &q), 0);
	assert_true(q.caps & IOB_CAP_DIRECT);
	q.options = "write_through=1";
	q.caps = b->desc.caps;
	assert_int_equal(b->backend.control(NULL, IOB_CTL_OPTION_CAPS, &q), 0);
	assert_false(q.caps & IOB_CAP_DIRECT);
}

static void test_truncate_and_missing(void **state)
{
	(void)state;
	char path[8192];
	snprintf(path, sizeof path, "%s/trunc.bin", work);
	const struct iob_loaded *b = backend("win32");
	struct iob_open_args a = {.struct_size = sizeof a, .path = path, .flags = IOB_OPEN_READ};
	void *h = NULL;
	assert_int_equal(b->backend.open(&a, &h), -ENOENT);
	a.flags = IOB_OPEN_READ | IOB_OPEN_TRUNC;
	assert_int_equal(b->backend.open(&a, &h), -EINVAL);
	assert_int_equal(iob_path_kind(path, 0), IOB_PATH_MISSING);
	h = open_file(b, path, NULL, IOB_OPEN_WRITE | IOB_OPEN_CREATE);
	assert_int_equal(b->backend.truncate(h, 12345), 0);
	struct iob_file_info info = {.struct_size = sizeof info};
	assert_int_equal(b->backend.info(h, &info), 0);
	assert_int_equal(info.size, 12345);
	assert_int_equal(info.file_type, IOB_FILE_REGULAR);
	uint64_t dev = 0, ino = 0;
	enum iob_path_kind k;
	assert_int_equal(iob_file_identity(path, &dev, &ino, &k), 0);
	assert_int_equal(k, IOB_PATH_REGULAR);
	assert_true(dev == info.dev && ino == info.ino);
	assert_int_equal(b->backend.close(h), 0);
}

/* the held-directory calls runner_files.c uses */
static void test_dir_at(void **state)
{
	(void)state;
	struct iob_identity id;
	int fd = iob_dir_open_at(IOB_AT_CWD, work, 0, &id);
	assert_true(fd >= 0);
	assert_int_equal(id.kind, IOB_PATH_DIRECTORY);
	assert_int_equal(iob_mkdir_at(fd, "sub\xc3\xb6"), 0);
	assert_int_equal(iob_mkdir_at(fd, "sub\xc3\xb6"), -EEXIST);
	assert_int_equal(iob_stat_at(fd, "sub\xc3\xb6", &id), 0);
	assert_int_equal(id.kind, IOB_PATH_DIRECTORY);
	assert_int_equal(iob_stat_at(fd, "none", &id), -ENOENT);
	char p[64];
	assert_int_equal(iob_path_of_fd(fd, "x", p, sizeof p), -ENOTSUP);
	assert_int_equal(iob_dir_open_at(fd, "none", 1, NULL), -ENOENT);
	assert_int_equal(iob_remove_at(fd, "sub\xc3\xb6", 1), 0);
	assert_int_equal(iob_stat_at(fd, "sub\xc3\xb6", &id), -ENOENT);
	iob_fd_close(fd);
	assert_int_equal(iob_dir_writable(work), 0);
	assert_int_equal(iob_dir_writable("Z:/no/such/dir"), -ENOENT);
}

/* Windows has no page-cache residency probe and no cache drop: "not
 * measured", never a made-up figure */
static void test_probes(void **state)
{
	(void)state;
	char path[8192];
	snprintf(path, sizeof path, "%s/probe.bin", work);
	const struct iob_loaded *b = backend("win32");
	void *h = open_file(b, path, NULL, IOB_OPEN_WRITE | IOB_OPEN_CREATE);
	assert_int_equal(b->backend.write_at(h, "abc", 3, 0), 3);
	assert_int_equal(b->backend.close(h), 0);
	uint64_t res = 1, tot = 1, holes = 1, r = 0, w = 0;
	assert_int_equal(iob_cache_residency(path, &res, &tot), -ENOTSUP);
	assert_int_equal(res + tot, 0);
	assert_int_equal(iob_drop_caches(), -ENOTSUP);
	assert_int_equal(iob_file_holes(path, 0, &holes), -ENOTSUP);
	assert_int_equal(iob_proc_thread_io(&r, &w, NULL, NULL), -ENOTSUP);
	assert_true(iob_physical_memory() > 0);
	assert_true(iob_free_memory() > 0 && iob_free_memory() <= iob_physical_memory());
	char k[128];
	iob_kernel(k, sizeof k);
	assert_int_equal(strncmp(k, "Windows ", 8), 0);
	if (iob_wine_version())
		assert_non_null(strstr(k, "(wine "));
	uint32_t align = 0;
	assert_int_equal(iob_dio_alignment(work, &align), 0);
	assert_true(align >= 512);
	uint64_t t0 = iob_now_ns();
	iob_sleep_ns(2000000, NULL);
	assert_true(iob_now_ns() - t0 >= 2000000);
	assert_true(iob_clock_resolution_ns(IOB_CLOCK_WALL) >= 1);
	uint64_t u = 0, s = 0;
	assert_int_equal(iob_cpu_times_ns(1, &u, &s), 0);
	assert_int_equal(iob_remove_file(path), 0);
}

static struct iob_barrier *bar;
static int once_flag, once_runs, rounds_seen[4];
static void once_fn(void)
{
	once_runs++;
}
static void worker(void *arg)
{
	int *mine = arg;
	for (int r = 0; r < 50; r++) {
		iob_once(&once_flag, once_fn);
		(*mine)++;
		iob_barrier_wait(bar);
	}
}

/* Paths split at '\\' and after a drive as well as at '/'. */
static void test_path_split(void **state)
{
	(void)state;
	static const struct {
		const char *path, *dir, *name;
		int absolute;
	} cases[] = {
		{"x", ".", "x", 0},
		{"d/x", "d", "x", 0},
		{"d\\x", "d", "x", 0},
		{"/x", "/", "x", 1},
		{"\\x", "\\", "x", 1},
		{"C:\\x", "C:\\", "x", 1},
		{"C:/x", "C:/", "x", 1},
		{"C:x", "C:", "x", 1},
		{"C:\\data\\sub/x.dat", "C:\\data\\sub", "x.dat", 1},
		{"Z:\\tmp\\", "Z:\\tmp", "", 1},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char dir[64];
		size_t base = iob_path_dir(cases[i].path, dir, sizeof dir);
		assert_string_equal(dir, cases[i].dir);
		assert_string_equal(cases[i].path + base, cases[i].name);
		assert_int_equal(iob_path_absolute(cases[i].path), cases[i].absolute);
	}
}

static void test_threads(void **state)
{
	(void)state;
	struct iob_thread *t[4];
	assert_int_equal(iob_barrier_init(&bar, 4), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(iob_thread_start(&t[i], worker, &rounds_seen[i]), 0);
	for (int i = 0; i < 4; i++)
		iob_thread_join(t[i]);
	iob_barrier_destroy(bar);
	assert_int_equal(once_runs, 1);
	for (int i = 0; i < 4; i++)
		assert_int_equal(rounds_seen[i], 50);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plugins_found),	   cmocka_unit_test(test_utf8_paths),
		cmocka_unit_test(test_unbuffered_alignment), cmocka_unit_test(test_options),
		cmocka_unit_test(test_truncate_and_missing), cmocka_unit_test(test_dir_at),
		cmocka_unit_test(test_probes),		   cmocka_unit_test(test_threads),
		cmocka_unit_test(test_path_split),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
