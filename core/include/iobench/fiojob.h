/*
 * iobench/fiojob.h - fio job files read into the same suite of jobs an INI
 * profile gives (docs/fio.md).
 *
 *  - [global] sections set defaults for the job sections below them (several
 *    [global] sections add up, each affecting only the jobs after it); every
 *    other section is one job.
 *  - key=value and bare flags (time_based); ';' and '#' start a comment,
 *    anywhere on a line, as in fio; `include FILE` inside a section reads
 *    FILE's lines into it (relative to the including file; loops refused).
 *  - ${VAR} expands from the environment (an unset variable is refused).
 *  - fio's size units (k = 1024 unless kb_base=1000, KiB = 1000 with the
 *    default kb_base=1024, as fio reads them) and time units (a bare number
 *    of seconds).
 *  - Every fio key is one row of one table (iob_fio_keys_print): parsing and
 *    `iobench keys --fio` come from it.  A key not in the table is refused,
 *    all such keys named in one line, unless the options ignore it.
 */
#ifndef IOBENCH_FIOJOB_H
#define IOBENCH_FIOJOB_H

#include <stddef.h>
#include <stdio.h>
#include "iobench/profile.h"

#define IOB_FIO_MAX_SETS 64

struct iob_fio_opts {
	const char *dir;           /* NULL, or the directory of every job's files (--dir) */
	const char *const *sets;   /* "KEY=VALUE" fio keys set last in every job (--set) */
	size_t nsets;
	const char *ignore;        /* NULL, or "KEY,KEY": keys accepted and dropped (--fio-ignore) */
};

/* Nonzero when path names a fio job file by its extension (".fio"). */
int iob_fio_is_jobfile(const char *path);
/* Read a fio job file into suite (jobs, sources and notes; files a read job
 * needs and that are missing are laid out by a preparing job, flagged in
 * suite->prepare).  0, or -errno with one line in err. */
int iob_fio_load(const char *path, const struct iob_fio_opts *opts, struct iob_suite *suite, char *err,
		 size_t errlen);
/* The same from memory (tests, fuzzers); `name` names it in messages and is
 * the base of relative includes. */
int iob_fio_load_string(const char *name, const char *text, const struct iob_fio_opts *opts,
			struct iob_suite *suite, char *err, size_t errlen);
/* The mapping table, one fio key a line (aligned), or as the markdown table
 * of docs/fio.md.  -EIO on a write error. */
int iob_fio_keys_print(FILE *f, int markdown);
/* A refusal of the checks for a suite read from a fio job file
 * (suite->from_fio): advice to set an iobench key, which a fio job file
 * cannot set (allow_devices, follow_symlinks, group), becomes what its
 * user can do (a command-line option, a fio key).  err is rewritten in
 * place. */
void iob_fio_advice(char *err, size_t errlen);

#endif
