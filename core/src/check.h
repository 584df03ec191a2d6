/*
 * check.h - helpers the runner's checks (check.c) share with the run itself
 * (runner.c).  Private to the core.
 */
#ifndef IOBENCH_CHECK_PRIVATE_H
#define IOBENCH_CHECK_PRIVATE_H

#include <stddef.h>
#include "iobench/job.h"

/* "-": standard input. */
int iob_is_stdin_path(const char *path);
/* dir without trailing slashes ("/" stays). */
void iob_strip_slashes(const char *dir, char *out, size_t len);
/* A symlinked job directory is followed when the link is owned by root or by
 * the user running the job, or with follow_symlinks. */
int iob_dir_link_trusted(const struct iob_job *job, const char *dir);

#endif
