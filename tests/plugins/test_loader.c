/* Loader tests: every refusal is one line naming the file and the reason;
 * a good plugin loads; an older minor's short ops table reads as NULL hooks;
 * search-order shadowing; untrusted permissions, owners and symbolic links;
 * no plugin code runs until the plugin is asked for; a file swapped while it
 * is loaded never gets its code run; the backend options check; async claims. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "iobench/loader.h"
#include "iobench/log.h"

static struct iob_registry *load(const char *dir)
{
	struct iob_registry *reg = calloc(1, sizeof *reg);
	const char *dirs[1] = {dir};
	assert_non_null(reg);
	unsetenv("IOBENCH_PLUGIN_PATH");
	assert_int_equal(iob_registry_load(reg, dirs, 1), 0);
	return reg;
}

static void done(struct iob_registry *reg)
{
	iob_registry_unload(reg);
	free(reg);
}

/* One error line mentioning both fragments. */
static void expect_error(struct iob_registry *reg, const char *a, const char *b)
{
	for (size_t i = 0; i < reg->nerrors; i++)
		if (strstr(reg->errors[i], a) && strstr(reg->errors[i], b)) {
			assert_null(strchr(reg->errors[i], '\n'));
			return;
		}
	for (size_t i = 0; i < reg->nerrors; i++)
		print_message("error: %s\n", reg->errors[i]);
	fail_msg("no loader error with '%s' and '%s'", a, b);
}

static void test_good(void **s)
{
	(void)s;
	struct iob_registry *reg = load(BAD_DIR "/good");
	const struct iob_loaded *l = iob_registry_find(reg, IOB_PLUGIN_BACKEND, "fake");
	assert_non_null(l);
	assert_non_null(strstr(l->path, BAD_DIR "/good/iob-backend-fake.so"));
	assert_non_null(l->backend.read_at);
	/* the search path starts with the explicit directory */
	assert_true(reg->ndirs >= 1);
	assert_non_null(strstr(reg->dirs[0], "good"));
	done(reg);
}

/* A refused plugin: find gives NULL, and iob_registry_missing names the file
 * and the reason in one line whenever it is asked for. */
static void expect_refused(struct iob_registry *reg, const char *name, const char *file, const char *why)
{
	char msg[1024];
	assert_null(iob_registry_find(reg, IOB_PLUGIN_BACKEND, name));
	expect_error(reg, file, why);
	iob_registry_missing(reg, IOB_PLUGIN_BACKEND, name, msg, sizeof msg);
	if (!strstr(msg, file) || !strstr(msg, why) || strchr(msg, '\n'))
		fail_msg("missing() said: %s", msg);
}

/* The plugin directory dir loaded: the plugin named name refused, as
 * expect_refused says. */
static void refused_in(const char *dir, const char *name, const char *file, const char *why)
{
	struct iob_registry *reg = load(dir);
	expect_refused(reg, name, file, why);
	done(reg);
}

static void test_bad_abi(void **s)
{
	(void)s;
	refused_in(BAD_DIR "/bad_abi", "fake", "bad_abi/iob-backend-fake.so",
		   "built for plugin ABI 99.5, this iobench speaks ABI 1.5");
}

static void test_no_entry(void **s)
{
	(void)s;
	refused_in(BAD_DIR "/no_entry", "fake", "no_entry/iob-backend-fake.so", "no entry symbol iob_plugin_entry");
}

static void test_missing_op(void **s)
{
	(void)s;
	refused_in(BAD_DIR "/no_op", "fake", "no_op/iob-backend-fake.so", "lacks the required op read_at");
}

/* The descriptor's name must be the file's: iob-backend-other.so calling
 * itself "fake" provides neither. */
static void test_misnamed(void **s)
{
	(void)s;
	struct iob_registry *reg = load(BAD_DIR "/misnamed");
	assert_null(iob_registry_find(reg, IOB_PLUGIN_BACKEND, "fake"));
	expect_refused(reg, "other", "iob-backend-other.so", "calls itself 'fake' but its file name says 'other'");
	done(reg);
}

static void test_async_claims(void **s)
{
	(void)s;
	struct iob_registry *reg = load(BAD_DIR "/contract");
	expect_refused(reg, "async", "iob-backend-async.so", "lacks the required op submit and reap");
	const struct iob_loaded *l = iob_registry_find(reg, IOB_PLUGIN_BACKEND, "asyncok");
	assert_non_null(l);
	assert_true(l->desc.caps & IOB_CAP_ASYNC);
	assert_non_null(l->backend.submit);
	assert_non_null(l->backend.reap);
	done(reg);
}

static int g_logged;
static void count_log(int level, const char *line, void *arg)
{
	(void)arg;
	(void)level;
	(void)line;
	g_logged++;
}

static void test_check_options(void **s)
{
	(void)s;
	char err[512];
	struct iob_registry *reg = load(BAD_DIR "/contract");
	const struct iob_loaded *opts = iob_registry_find(reg, IOB_PLUGIN_BACKEND, "opts");
	assert_non_null(opts);
	assert_int_equal(iob_backend_check_options(opts, NULL, err, sizeof err), 0);
	assert_int_equal(iob_backend_check_options(opts, "", err, sizeof err), 0);
	assert_int_equal(iob_backend_check_options(opts, "ok=1,ok=2", err, sizeof err), 0);
	g_logged = 0;
	iob_log_set_hook(count_log, NULL);
	assert_int_equal(iob_backend_check_options(opts, "ok=1,bogus=3", err, sizeof err), -EINVAL);
	iob_log_set_hook(NULL, NULL);
	assert_int_equal(g_logged, 1); /* the backend's own line naming the key */
	assert_non_null(strstr(err, "backend opts: "));
	assert_non_null(strstr(err, "ok=1,bogus=3"));
	assert_null(strchr(err, '\n'));
	/* a backend without control refuses any text, naming it */
	struct iob_registry *reg2 = load(BAD_DIR "/good");
	const struct iob_loaded *fake = iob_registry_find(reg2, IOB_PLUGIN_BACKEND, "fake");
	assert_non_null(fake);
	assert_int_equal(iob_backend_check_options(fake, NULL, err, sizeof err), 0);
	assert_int_equal(iob_backend_check_options(fake, "x=1\nforged", err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "backend fake: takes no backend_options (got 'x=1\\x0aforged')"));
	done(reg2);
	/* the template shows the pattern: control refuses any key it lacks */
	reg2 = load(TEMPLATE_DIR);
	const struct iob_loaded *t = iob_registry_find(reg2, IOB_PLUGIN_BACKEND, "template");
	assert_non_null(t);
	iob_log_set_hook(count_log, NULL);
	assert_int_equal(iob_backend_check_options(t, "x=1", err, sizeof err), -EINVAL);
	iob_log_set_hook(NULL, NULL);
	assert_non_null(strstr(err, "backend template: backend_options 'x=1' refused"));
	assert_int_equal(iob_backend_check_options(t, "", err, sizeof err), 0);
	done(reg2);
	done(reg);
}

/* ABI 1.4: a backend that declares its options has them checked by the
 * core, which names the unknown or bad one; a malformed declaration is
 * refused at validation. */
static int decl_open(const struct iob_open_args *a, void **h)
{
	(void)a;
	*h = NULL;
	return -ENOTSUP;
}
static int decl_close(void *h)
{
	(void)h;
	return 0;
}
static int decl_info(void *h, struct iob_file_info *i)
{
	(void)h;
	(void)i;
	return 0;
}
static int64_t decl_read(void *h, void *buf, size_t len, uint64_t off)
{
	(void)h;
	(void)buf;
	(void)len;
	(void)off;
	return 0;
}
static const struct iob_backend_ops decl_ops = {
	.open = decl_open, .close = decl_close, .read_at = decl_read, .info = decl_info};
static const struct iob_option_decl decl_options[] = {
	{.name = "flag", .type = IOB_OPT_BOOL, .def = "0", .help = "a switch"},
	{.name = "depth", .type = IOB_OPT_COUNT, .def = "4", .min = 1, .max = 64, .help = "a count"},
	{.name = "mode", .type = IOB_OPT_WORD, .def = "a", .words = "a|bb|c", .help = "a word"},
	{.name = "donor", .type = IOB_OPT_NAME, .def = "d", .help = "a file name (ABI 1.5)"},
};

static void test_declared_options(void **s)
{
	(void)s;
	char err[512];
	struct iob_plugin p = {IOB_PLUGIN_HEADER, .kind = IOB_PLUGIN_BACKEND, .caps = IOB_CAP_READ, .name = "decl",
			       .summary = "declares options", .ops_size = sizeof decl_ops, .backend = &decl_ops,
			       .options = decl_options, .noptions = 4};
	struct iob_registry *reg = calloc(1, sizeof *reg);
	assert_non_null(reg);
	assert_int_equal(iob_registry_add_static(reg, &p), 0);
	const struct iob_loaded *l = iob_registry_find(reg, IOB_PLUGIN_BACKEND, "decl");
	assert_non_null(l);
	assert_int_equal(l->desc.noptions, 4);
	assert_int_equal(iob_backend_check_options(l, "flag=1,depth=64,mode=bb,donor=d.x", err, sizeof err), 0);
	assert_int_equal(iob_backend_check_options(l, "depth=1", err, sizeof err), 0);
	/* refused, in one line saying (where given) this */
	static const struct {
		const char *text, *says;
	} refused[] = {
	    {"flag=1,nope=2", "backend decl: unknown backend option 'nope' (decl takes: flag, depth, mode, donor)"},
	    {"donor=a/b", "donor=a/b: the value must be a file name in the job's directory"},
	    {"donor=", NULL},
	    {"donor=..", NULL},
	    {"flag=2", "flag=2: the value must be 0 or 1"},
	    {"depth=65", "depth=65: the value must be a whole number from 1 to 64"},
	    {"depth=0", NULL},
	    {"depth=99999999999999999999999", NULL},
	    {"mode=b", "mode=b: the value must be one of a|bb|c"},
	    {"flag", "'flag' is not key=value"},
	    {"flag=1,", NULL},
	};
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		err[0] = '\0';
		assert_int_equal(iob_backend_check_options(l, refused[i].text, err, sizeof err), -EINVAL);
		if (refused[i].says && !strstr(err, refused[i].says))
			fail_msg("%s: \"%s\", want \"%s\"", refused[i].text, err, refused[i].says);
		assert_null(strchr(err, '\n'));
	}
	done(reg);
	/* a malformed declaration: a word option without words */
	static const struct iob_option_decl bad[] = {{.name = "mode", .type = IOB_OPT_WORD}};
	p.options = bad;
	p.noptions = 1;
	assert_int_equal(iob_plugin_validate(&p, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "malformed option (number 1)"));
	/* a 1.3 descriptor (no options member) still validates, options unread */
	p.struct_size = offsetof(struct iob_plugin, options);
	assert_int_equal(iob_plugin_validate(&p, err, sizeof err), 0);
}

static void test_old_minor(void **s)
{
	(void)s;
	struct iob_registry *reg = load(BAD_DIR "/old_minor");
	const struct iob_loaded *l = iob_registry_find(reg, IOB_PLUGIN_BACKEND, "fake");
	assert_non_null(l);
	assert_non_null(l->backend.info);
	assert_null(l->backend.truncate); /* past the plugin's table: zeroed */
	assert_null(l->backend.control);
	done(reg);
}

static void test_refuse(void **s)
{
	(void)s;
	iob_log_set_hook(NULL, NULL);
	struct iob_registry *reg = load(BAD_DIR "/refuse");
	expect_refused(reg, "fake", "refuse/iob-backend-fake.so", "refused to load");
	done(reg);
}

static void test_not_a_shared_object_and_missing(void **s)
{
	(void)s;
	char dir[] = BAD_DIR "/junkXXXXXX";
	assert_non_null(mkdtemp(dir));
	chmod(dir, 0755);
	char path[600];
	snprintf(path, sizeof path, "%s/iob-backend-junk.so", dir);
	FILE *f = fopen(path, "w");
	fputs("this is not ELF\n", f);
	fclose(f);
	chmod(path, 0644);
	struct iob_registry *reg = load(dir);
	expect_refused(reg, "junk", "iob-backend-junk.so", "not a loadable shared object");
	assert_int_equal(iob_registry_load_file(reg, "/nonexistent/iob-backend-x.so"), -ENOENT);
	expect_error(reg, "/nonexistent/iob-backend-x.so", "no such file");
	done(reg);
	/* a file writable by others is refused, as ssh does for keys: when it
	 * is asked for, and in a list of what there is (the scan opens no file) */
	chmod(path, 0666);
	reg = load(dir);
	assert_int_equal(reg->nerrors, 0);
	expect_refused(reg, "junk", "iob-backend-junk.so", "writable by anyone");
	done(reg);
	reg = load(dir);
	char msg[1024];
	iob_registry_missing(reg, IOB_PLUGIN_BACKEND, "other", msg, sizeof msg);
	expect_error(reg, "iob-backend-junk.so", "writable by anyone");
	if (strstr(msg, "junk"))
		fail_msg("a refused plugin listed as available: %s", msg);
	done(reg);
	/* and a directory writable by others */
	chmod(path, 0644);
	chmod(dir, 0777);
	reg = load(dir);
	expect_error(reg, dir, "writable by anyone");
	done(reg);
	unlink(path);
	rmdir(dir);
}

static void test_shadowing(void **s)
{
	(void)s;
	struct iob_registry *reg = calloc(1, sizeof *reg);
	const char *dirs[2] = {BAD_DIR "/good", BAD_DIR "/old_minor"};
	unsetenv("IOBENCH_PLUGIN_PATH");
	iob_registry_load(reg, dirs, 2);
	const struct iob_loaded *l = iob_registry_find(reg, IOB_PLUGIN_BACKEND, "fake");
	assert_non_null(l);
	assert_non_null(strstr(l->path, "/good/"));
	assert_true(reg->nshadowed >= 1);
	assert_non_null(strstr(reg->shadowed[0], "shadowed by"));
	/* the real plugins come from the build tree, after the explicit dirs */
	assert_non_null(iob_registry_find(reg, IOB_PLUGIN_BACKEND, "posix"));
	assert_non_null(iob_registry_find(reg, IOB_PLUGIN_OUTPUT, "json"));
	done(reg);
}

static void test_env_path(void **s)
{
	(void)s;
	struct iob_registry *reg = calloc(1, sizeof *reg);
	setenv("IOBENCH_PLUGIN_PATH", "/nonexistent:" BAD_DIR "/good", 1);
	iob_registry_load(reg, NULL, 0);
	unsetenv("IOBENCH_PLUGIN_PATH");
	assert_non_null(iob_registry_find(reg, IOB_PLUGIN_BACKEND, "fake"));
	done(reg);
}

/* ---- trust: what is checked is what is loaded ---------------------------- */

#define RACE_GOOD BAD_DIR "/race_good/iob-backend-race.so"
#define RACE_HOSTILE BAD_DIR "/race_hostile/iob-backend-race.so"
#define OTHER_UID 65534 /* nobody */

static void copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC);
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(in >= 0 && out >= 0);
	for (ssize_t n; (n = read(in, buf, sizeof buf)) > 0;)
		assert_int_equal(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
	assert_int_equal(chmod(to, mode), 0);
}

static void make_dir(char *tmpl, mode_t mode)
{
	assert_non_null(mkdtemp(tmpl));
	assert_int_equal(chmod(tmpl, mode), 0);
}

static void rm_dir(const char *dir)
{
	const char *names[] = {"iob-backend-race.so", "swap", "plugins/iob-backend-race.so"};
	char p[600];
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, names[i]);
		unlink(p);
	}
	snprintf(p, sizeof p, "%s/plugins", dir);
	rmdir(p);
	rmdir(dir);
}

static char g_marker[600];

static int marker_exists(void)
{
	return access(g_marker, F_OK) == 0;
}

static void set_marker(const char *dir)
{
	snprintf(g_marker, sizeof g_marker, "%s.marker", dir);
	unlink(g_marker);
	setenv("IOB_TEST_MARKER", g_marker, 1);
}

/* Scanning runs no plugin code; asking for the plugin does (which also
 * shows the marker works, so the race test below can fail). */
static void test_lazy_load(void **s)
{
	(void)s;
	char dir[] = BAD_DIR "/lazyXXXXXX", path[600];
	make_dir(dir, 0755);
	set_marker(dir);
	snprintf(path, sizeof path, "%s/iob-backend-race.so", dir);
	copy_file(RACE_HOSTILE, path, 0644);
	struct iob_registry *reg = load(dir);
	assert_false(marker_exists());
	assert_null(iob_registry_find(reg, IOB_PLUGIN_BACKEND, "nosuch"));
	assert_false(marker_exists());
	const struct iob_loaded *l = iob_registry_find(reg, IOB_PLUGIN_BACKEND, "race");
	assert_non_null(l);
	assert_string_equal(l->desc.summary, "hostile race plugin");
	assert_true(marker_exists());
	done(reg);
	unlink(g_marker);
	rm_dir(dir);
}

/* Static refusals: a symlinked plugin (even to a good file), a file others
 * may write, a file or an ancestor directory owned by someone else, a
 * plugin directory under a world-writable parent that is not sticky. */
static void test_trust_rules(void **s)
{
	(void)s;
	char dir[] = BAD_DIR "/trustXXXXXX", path[600], swap[600], sub[600];
	make_dir(dir, 0755);
	set_marker(dir);
	snprintf(path, sizeof path, "%s/iob-backend-race.so", dir);
	snprintf(swap, sizeof swap, "%s/swap", dir);
	assert_int_equal(symlink(RACE_GOOD, path), 0);
	struct iob_registry *reg = load(dir);
	expect_refused(reg, "race", "iob-backend-race.so", "is a symbolic link");
	done(reg);
	unlink(path);

	copy_file(RACE_HOSTILE, path, 0666);
	reg = load(dir);
	expect_refused(reg, "race", "iob-backend-race.so", "writable by anyone");
	done(reg);
	assert_int_equal(chmod(path, 0664), 0);
	reg = load(dir);
	expect_refused(reg, "race", "iob-backend-race.so", "writable by its group");
	done(reg);
	assert_false(marker_exists());
	unlink(path);

	/* a plugin directory inside a world-writable parent: refused unless the
	 * parent is sticky (then nobody else can rename what we checked) */
	snprintf(sub, sizeof sub, "%s/plugins", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(path, sizeof path, "%s/plugins/iob-backend-race.so", dir);
	copy_file(RACE_GOOD, path, 0644);
	assert_int_equal(chmod(dir, 0777), 0);
	reg = load(sub);
	assert_null(iob_registry_find(reg, IOB_PLUGIN_BACKEND, "race"));
	expect_error(reg, dir, "writable by anyone");
	done(reg);
	assert_int_equal(chmod(dir, 01777), 0);
	reg = load(sub);
	assert_non_null(iob_registry_find(reg, IOB_PLUGIN_BACKEND, "race"));
	done(reg);
	assert_int_equal(chmod(dir, 0755), 0);

	if (geteuid() != 0) {
		print_message("skipped: the ownership rules need root to make files owned by another user\n");
	} else {
		assert_int_equal(chown(path, OTHER_UID, OTHER_UID), 0);
		reg = load(sub);
		expect_refused(reg, "race", "iob-backend-race.so", "owned by uid 65534, neither root nor you");
		done(reg);
		assert_int_equal(chown(path, 0, 0), 0);
		assert_int_equal(chown(sub, OTHER_UID, OTHER_UID), 0);
		reg = load(sub);
		assert_null(iob_registry_find(reg, IOB_PLUGIN_BACKEND, "race"));
		expect_error(reg, sub, "owned by uid 65534, neither root nor you");
		done(reg);
		assert_int_equal(chown(sub, 0, 0), 0);
	}
	/* and a file named on its own is held to the same rules */
	reg = calloc(1, sizeof *reg);
	assert_non_null(reg);
	assert_int_equal(chmod(path, 0666), 0);
	assert_int_equal(iob_registry_load_file(reg, path), -EPERM);
	expect_error(reg, path, "writable by anyone");
	done(reg);
	rm_dir(dir);
}

/* A child keeps exchanging the plugin's directory entry with `other` (a
 * symbolic link to the hostile build, or a hostile file the rules refuse)
 * while the loader scans and loads it, 200 times.  Each load must end with
 * the good plugin or a refusal; the hostile code must never run. */
static void race_against(const char *dir, const char *other, const char *label)
{
	char path[600];
	snprintf(path, sizeof path, "%s/iob-backend-race.so", dir);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		for (;;)
			renameat2(AT_FDCWD, path, AT_FDCWD, other, RENAME_EXCHANGE);
	}
	int good = 0, refused = 0;
	for (int i = 0; i < 200; i++) {
		struct iob_registry *reg = load(dir);
		const struct iob_loaded *l = iob_registry_find(reg, IOB_PLUGIN_BACKEND, "race");
		if (l) {
			assert_string_equal(l->desc.summary, "good race plugin");
			good++;
		} else {
			refused++;
		}
		done(reg);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	print_message("%s: %d good loads, %d refusals, hostile code ran: %s\n", label, good, refused,
		      marker_exists() ? "YES" : "no");
	assert_false(marker_exists());
	assert_int_equal(good + refused, 200);
}

static void test_swap_race(void **s)
{
	(void)s;
	char dir[] = BAD_DIR "/raceXXXXXX", path[600], swap[600];
	make_dir(dir, 0755);
	set_marker(dir);
	snprintf(path, sizeof path, "%s/iob-backend-race.so", dir);
	snprintf(swap, sizeof swap, "%s/swap", dir);
	copy_file(RACE_GOOD, path, 0644);

	assert_int_equal(symlink(RACE_HOSTILE, swap), 0);
	race_against(dir, swap, "symlink swap");
	unlink(path);
	unlink(swap);

	copy_file(RACE_GOOD, path, 0644);
	copy_file(RACE_HOSTILE, swap, 0666);
	race_against(dir, swap, "world-writable file swap");
	unlink(path);
	unlink(swap);

	if (geteuid() != 0) {
		print_message("skipped: the swap to a file owned by another user needs root to make one\n");
	} else {
		copy_file(RACE_GOOD, path, 0644);
		copy_file(RACE_HOSTILE, swap, 0644);
		assert_int_equal(chown(swap, OTHER_UID, OTHER_UID), 0);
		race_against(dir, swap, "foreign-owner file swap");
	}
	rm_dir(dir);
	unsetenv("IOB_TEST_MARKER");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad_abi),
		cmocka_unit_test(test_no_entry),
		cmocka_unit_test(test_missing_op),
		cmocka_unit_test(test_misnamed),
		cmocka_unit_test(test_async_claims),
		cmocka_unit_test(test_check_options),
		cmocka_unit_test(test_old_minor),
		cmocka_unit_test(test_refuse),
		cmocka_unit_test(test_not_a_shared_object_and_missing),
		cmocka_unit_test(test_shadowing),
		cmocka_unit_test(test_env_path),
		cmocka_unit_test(test_lazy_load),
		cmocka_unit_test(test_declared_options),
		cmocka_unit_test(test_trust_rules),
		cmocka_unit_test(test_swap_race),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
