/* mo_thread_private (core/src/meta_os.h, Linux): a files job's stream thread
 * gets a descriptor table and credentials of its own, and nothing else
 * changes.  The table is seen to be its own (a descriptor it opens is not
 * one of the process's other threads; one opened before is still there); the
 * credentials are seen to be the same (its /proc/self/task/TID/status lines
 * for ids, groups, capabilities, no_new_privs and seccomp, its keepcaps bit
 * and securebits, before and after, with the keepcaps bit clear and set).
 * As root and as any other user. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "meta_os.h"

/* what the thread's credentials say, one line each */
static void creds(char *out, size_t len)
{
	char path[64], line[256];
	size_t used = 0;
	snprintf(path, sizeof path, "/proc/self/task/%ld/status", (long)syscall(SYS_gettid));
	FILE *f = fopen(path, "re");
	assert_non_null(f);
	out[0] = '\0';
	while (fgets(line, sizeof line, f)) {
		static const char *keep[] = {"Uid:", "Gid:", "Groups:", "CapInh:", "CapPrm:", "CapEff:",
					     "CapBnd:", "CapAmb:", "NoNewPrivs:", "Seccomp:"};
		for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
			if (strncmp(line, keep[i], strlen(keep[i])) == 0 && used + strlen(line) < len) {
				memcpy(out + used, line, strlen(line) + 1);
				used += strlen(line);
			}
	}
	fclose(f);
	used += (size_t)snprintf(out + used, len - used, "keepcaps %d securebits %d\n",
				 prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0), prctl(PR_GET_SECUREBITS, 0, 0, 0, 0));
}

struct probe {
	int keepcaps;     /* set first */
	int inherited;    /* a descriptor of the process, opened before */
	int inherited_ok; /* still open in the thread after */
	int opened;       /* opened by the thread after */
	char before[2048], after[2048];
};

static void *stream(void *arg)
{
	struct probe *p = arg;
	if (prctl(PR_SET_KEEPCAPS, (unsigned long)p->keepcaps, 0, 0, 0) != 0)
		return NULL;
	creds(p->before, sizeof p->before);
	mo_thread_private();
	creds(p->after, sizeof p->after);
	p->inherited_ok = fcntl(p->inherited, F_GETFD) >= 0;
	p->opened = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return NULL;
}

static void one(int keepcaps)
{
	struct probe p = {.keepcaps = keepcaps, .opened = -1};
	p.inherited = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(p.inherited >= 0);
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, stream, &p), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_true(p.before[0] != '\0');
	assert_string_equal(p.before, p.after);
	assert_non_null(strstr(p.after, keepcaps ? "keepcaps 1" : "keepcaps 0"));
	assert_true(p.inherited_ok);
	assert_true(p.opened >= 0);
#if !defined(__SANITIZE_THREAD__)
	/* the thread's own table: what it opened is not the process's (its
	 * copy went with it), what the process had is still there */
	errno = 0;
	assert_int_equal(fcntl(p.opened, F_GETFD), -1);
	assert_int_equal(errno, EBADF);
#else
	/* ThreadSanitizer's build keeps the shared table (meta_os.h) */
	assert_true(fcntl(p.opened, F_GETFD) >= 0);
	close(p.opened);
#endif
	assert_true(fcntl(p.inherited, F_GETFD) >= 0);
	close(p.inherited);
}

static void test_keepcaps_clear(void **state)
{
	(void)state;
	one(0);
}

static void test_keepcaps_set(void **state)
{
	(void)state;
	one(1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keepcaps_clear),
		cmocka_unit_test(test_keepcaps_set),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
