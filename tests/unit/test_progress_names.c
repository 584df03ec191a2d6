/* The progress line draws names escaped: a job name holding a C1 CSI
 * (U+009B), an ESC sequence or bytes of invalid UTF-8 reaches stderr as
 * \xNN, never raw.  The line is drawn by the real observer thread onto a
 * file that stands in for stderr. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "iobench/live.h"
#include "iobench/progress.h"

static void test_names_escaped(void **state)
{
	(void)state;
	char path[] = "/tmp/iob-test-progress-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	fflush(stderr);
	int saved = dup(2);
	assert_true(saved >= 0);
	assert_int_equal(dup2(fd, 2), 2);

	static struct iob_live live; /* a stream that has moved 1 MiB */
	live.bytes = 1048576;
	live.ops = 16;
	struct iob_observe_cfg cfg = {
		.tool = "iobench",
		.job = "j\xc2\x9b" "2J\x1b[31m\x9b\xed\xa0\x80x",
		.phase = "read\x85",
		.live = &live,
		.nstreams = 1,
		.progress = 1,
		.expect_bytes = 4194304,
	};
	struct iob_observer *o = iob_observer_start(&cfg);
	assert_non_null(o);
	/* the first line comes after half a second: wait for it, however slow the machine */
	struct stat st = {0};
	for (int i = 0; i < 600 && (fstat(fd, &st) != 0 || st.st_size == 0); i++)
		nanosleep(&(struct timespec){.tv_nsec = 50000000}, NULL);
	iob_observer_stop(o);
	fflush(stderr);
	assert_int_equal(dup2(saved, 2), 2);
	close(saved);

	char text[4096];
	ssize_t n = pread(fd, text, sizeof text - 1, 0);
	close(fd);
	unlink(path);
	assert_true(n > 0);
	text[n] = '\0';
	/* the line's own escapes are "\r" at its start and "\033[K" at its end (and
	 * the clear); every other byte is printable ASCII here */
	/* (the job cut with "..." to fit the line's 28 bytes for it) */
	if (!strstr(text, "iobench: j\\xc2\\x9b2J\\x1b[31m\\x9b... read\\x85 "))
		fail_msg("the names are not escaped in: %s", text);
	for (ssize_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c == '\r' || (c == 0x1b && text[i + 1] == '['))
			continue;
		if (c < 0x20 || c >= 0x7f)
			fail_msg("raw byte 0x%02x at %zd in the progress line", c, i);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_escaped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
