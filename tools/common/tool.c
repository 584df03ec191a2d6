/*
 * tool.c - what the binaries' command lines share (tool.h).
 */
#include <errno.h>
#include <stdio.h>

#include "iobench/progress.h"
#include "iobench/units.h"
#include "tool.h"

int iobt_set_plain(const struct iobt_plain *plain, size_t n, int code, const char *arg, void *opts)
{
	for (size_t i = 0; i < n; i++) {
		if (plain[i].code != code)
			continue;
		void *at = (char *)opts + plain[i].at;
		if (plain[i].text)
			*(const char **)at = arg;
		else
			*(int *)at = 1;
		return 1;
	}
	return 0;
}

int iobt_plugin_dir(const char **dirs, size_t *n, size_t max, const char *dir, char *err, size_t errlen)
{
	if (*n >= max) {
		snprintf(err, errlen, "too many --plugin-dir options (at most %zu)", max);
		return -E2BIG;
	}
	dirs[(*n)++] = dir;
	return 0;
}

int iobt_progress(const char *when, char *err, size_t errlen)
{
	if (iob_progress_parse(when, &iob_progress_mode) == 0)
		return 0;
	snprintf(err, errlen, "--progress '%s': give auto, always or never", IOB_Q(when));
	return -EINVAL;
}
