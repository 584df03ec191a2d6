/*
 * log.c - the core's logging channel (iobench/log.h).  Safe from stream
 * threads: the level, program name and hook are set by the runner's thread
 * before any stream starts and only read after; each line is formatted on
 * the caller's stack and written with one stdio call (stdio locks the
 * stream), so lines from two threads never interleave.
 */
#include "iobench/log.h"
#include "iobench/units.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int log_level = IOB_LOG_WARN;
static const char *log_program = "iobench";
static void (*log_hook)(int, const char *, void *);
static void *log_hook_arg;
static void (*log_before)(void);

void iob_log_set_before_line(void (*fn)(void))
{
	__atomic_store_n(&log_before, fn, __ATOMIC_RELEASE); /* stream threads may be logging */
}

/* never inside a line another module draws (the progress line) */
static void before_line(void)
{
	void (*fn)(void) = __atomic_load_n(&log_before, __ATOMIC_ACQUIRE);
	if (fn)
		fn();
}

void iob_log_set_level(int level)
{
	log_level = level;
}

void iob_log_set_program(const char *name)
{
	log_program = name;
}

const char *iob_log_program(void)
{
	return log_program;
}

void iob_log_set_hook(void (*hook)(int level, const char *line, void *arg), void *arg)
{
	log_hook = hook;
	log_hook_arg = arg;
}

void iob_log(int level, const char *who, const char *fmt, ...)
{
	static const char *names[] = {"error", "warning", "info", "debug"};
	char msg[1024], line[1200];
	va_list ap;

	if (level > log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	size_t n = strlen(msg);
	while (n && msg[n - 1] == '\n')
		msg[--n] = '\0';
	const char *lvl = level >= 0 && level <= IOB_LOG_DEBUG ? names[level] : "log";
	char one[sizeof msg + 256];
	iob_quote(msg, one, sizeof one); /* one line, whatever a path in it holds */
	if (who && *who && strcmp(who, log_program) != 0)
		snprintf(line, sizeof line, "%s: %s: %s: %s", log_program, who, lvl, one);
	else
		snprintf(line, sizeof line, "%s: %s: %s", log_program, lvl, one);
	if (log_hook) {
		log_hook(level, line, log_hook_arg);
		return;
	}
	before_line();
	fprintf(stderr, "%s\n", line);
}

void iob_log_hold(int level, const char *line, void *arg)
{
	struct iob_log_held *h = arg;
	const char *why = strstr(line, "error: ");
	if (level != IOB_LOG_ERROR || h->reason[0] || !why) {
		before_line();
		fprintf(stderr, "%s\n", line);
		return;
	}
	snprintf(h->line, sizeof h->line, "%s", line);
	snprintf(h->reason, sizeof h->reason, "%s", why + 7);
}
