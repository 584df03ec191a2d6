/*
 * scratch.h - a unit test's scratch directory: made under $TMPDIR (or /tmp)
 * by the group setup, removed with all it holds by the group teardown.
 * Define SCRATCH_NAME (a word for the directory's name) before including.
 */
#ifndef IOBTEST_SCRATCH_H
#define IOBTEST_SCRATCH_H

#include <stdio.h>
#include <stdlib.h>

static char tmpdir[256];

static int setup(void **s)
{
	(void)s;
	snprintf(tmpdir, sizeof tmpdir, "%s/iob-" SCRATCH_NAME "-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **s)
{
	(void)s;
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	return system(cmd);
}

#endif
