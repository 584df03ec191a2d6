/*
 * iobench/profile.h - INI profiles (parsed with iniparser) to job specs.
 *
 *  - [global] holds defaults inherited by every job section after it.
 *  - Every other section is one job, run in file order.
 *  - include = a.ini[, b.ini] (in [global]): the included files' [global]
 *    keys become defaults below this file's own, and their jobs run first.
 *    Paths are relative to the including file.  Loops are refused.
 *  - ${VAR} and ${VAR:-default} expand from the environment; an unset
 *    variable without a default is an error.
 *  - An unknown key, a bad value, a duplicate section or key, an empty
 *    profile: one-line error "FILE: [SECTION] KEY: reason".
 *  - A UTF-8 byte order mark at the very start of a file is skipped.
 *  - Includes nest at most IOB_MAX_INCLUDE_DEPTH files below the profile.
 * Keys, units and defaults: docs/profiles.md.
 */
#ifndef IOBENCH_PROFILE_H
#define IOBENCH_PROFILE_H

#include <stddef.h>
#include <stdio.h>
#include "iobench/job.h"

#define IOB_MAX_JOBS 256
#define IOB_MAX_INCLUDE_DEPTH 16 /* 16 nested includes are read, a 17th is refused */

struct iob_suite {
	size_t njobs;
	struct iob_job *jobs; /* njobs entries, heap */
};

int iob_profile_load(const char *path, struct iob_suite *suite, char *err, size_t errlen);
/* Parse from memory (tests, fuzzers); `name` is used in messages and as the
 * base for relative includes. */
int iob_profile_load_string(const char *name, const char *text, struct iob_suite *suite, char *err,
			    size_t errlen);
void iob_suite_free(struct iob_suite *suite);

/* Apply one KEY = VALUE to a job (the same table profiles use). */
int iob_job_set(struct iob_job *job, const char *key, const char *value, char *err, size_t errlen);
/* Write jobs as a profile that iob_profile_load reads back to equal jobs.
 * -EINVAL, with nothing written, when a name or path holds a line break. */
int iob_profile_write(FILE *f, const struct iob_job *jobs, size_t njobs, const char *comment);

#endif
