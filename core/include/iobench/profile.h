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
 *  - Each job is validated once (iob_job_validate), after all its keys.
 *
 * Every job key is one row of a table (iob_keys()): parsing (iob_job_set),
 * writing (iob_profile_write), the unknown-key hint, `iobench keys` and the
 * key table of docs/profiles.md all come from it.
 */
#ifndef IOBENCH_PROFILE_H
#define IOBENCH_PROFILE_H

#include <stddef.h>
#include <stdio.h>
#include "iobench/job.h"

#define IOB_MAX_JOBS 256
#define IOB_MAX_INCLUDE_DEPTH 16 /* 16 nested includes are read, a 17th is refused */

enum iob_key_type {
	IOB_KEY_SIZE,    /* bytes, optional unit suffix (docs/profiles.md, Units); uint64_t */
	IOB_KEY_COUNT,   /* plain non-negative decimal integer; uint32_t or uint64_t */
	IOB_KEY_BOOL,    /* true/false, yes/no, on/off, 1/0; int */
	IOB_KEY_ENUM,    /* one of `words`; an int-sized enum */
	IOB_KEY_LIST,    /* comma-separated `words`, OR-ed together; uint32_t */
	IOB_KEY_STRING,  /* free text, kept as written; char array */
	IOB_KEY_PATH,    /* a file or directory name (UTF-8); char array */
	IOB_KEY_PATTERN, /* a data pattern (iob_pattern_parse); struct iob_pattern */
	IOB_KEY_DURATION, /* a time with its unit: ns, us, ms, s, m, h ("5s", "500ms"); uint64_t ns */
};

struct iob_key_word {
	const char *word; /* NULL ends a list */
	int value;        /* the enum value, or the bit of a list */
};

struct iob_key {
	const char *name;    /* lower case, as written in a profile */
	enum iob_key_type type;
	const char *unit;    /* "bytes", "passes"...; "" when the type says it all */
	const char *def;     /* the default, as text ("" = empty) */
	const char *meaning; /* one line */
	/* enum and list: allowed words; the first word of a value is the one
	 * written back, later ones are accepted aliases */
	const struct iob_key_word *words;
	/* How it is set on struct iob_job: `width` bytes at `offset`, parsed by
	 * `type`; width 0 = the key sets nothing (description).  A non-NULL
	 * `set` replaces the generic store (keys_set.c: seed also sets
	 * pattern.seed, text is parsed before it is kept); it stores into the
	 * row's own field, so one setter serves many rows. */
	size_t offset, width;
	int (*set)(const struct iob_key *key, struct iob_job *job, const char *value, char *err, size_t errlen);
	/* count and size keys: the values a job may hold, min to max (max 0:
	 * no upper bound; both 0: no range).  iob_job_validate checks every
	 * job against them, however the job was built. */
	uint64_t min, max;
	/* the phase record's field that carries the job's value of a key that
	 * shapes the load (result.c writes every such row), or NULL */
	const char *record;
	/* Rules across keys that belong to one key (iob_keys_check_rules): when
	 * this key holds a value other than its default, every key named in
	 * `needs` must hold one too, and no key named in `excludes` may.  Each
	 * is a comma-separated list of KEY (any value but KEY's default) or
	 * KEY=WORD (that value; for a list key, a list holding WORD).  `why`,
	 * if any, ends the error line. */
	const char *needs, *excludes, *why;
};

/* Every row's range (min, max) checked on the job's values: 0, or -EINVAL
 * with one line naming the job, the key and its value. */
int iob_keys_check_ranges(const struct iob_job *job, char *err, size_t errlen);

/* Every row's needs and excludes checked on the job: 0, or -EINVAL with one
 * line naming the job, the key, its value and the key it needs or excludes. */
int iob_keys_check_rules(const struct iob_job *job, char *err, size_t errlen);

/* The job's value of a count, size, duration, bool or enum key's field, as
 * a number (0 for a key that sets nothing or holds text). */
uint64_t iob_key_value(const struct iob_key *key, const struct iob_job *job);

/* The table, in the order profiles are written and keys are listed. */
const struct iob_key *iob_keys(size_t *n);
/* The key named `name`, or NULL. */
const struct iob_key *iob_key_find(const char *name);
/* "size", "enum"...: the type's name as `iobench keys` prints it. */
const char *iob_key_type_name(enum iob_key_type type);
/* The job's value of `key` as profile text that iob_job_set reads back to
 * the same value.  -ENOENT for a key that sets nothing, -EINVAL for a value
 * out of the key's range, -ENOSPC when buf is too small. */
int iob_key_format(const struct iob_key *key, const struct iob_job *job, char *buf, size_t len);
/* Every key, one per line with type, unit, default and meaning, aligned;
 * with `markdown` IOB_KEYS_MARKDOWN, the table of docs/profiles.md instead;
 * IOB_KEYS_TSV, for scripts: a header line, then per key its name, type,
 * unit, default, phase record field (empty: none) and meaning, tab-separated.
 * -EIO on a write error. */
#define IOB_KEYS_MARKDOWN 1
#define IOB_KEYS_TSV 2
int iob_keys_print(FILE *f, int markdown);

#define IOB_PREPARE_KEEP 1
#define IOB_PREPARE_UNLINK 2
struct iob_suite {
	size_t njobs;
	struct iob_job *jobs; /* njobs entries, heap */
	/* the profile and every file it includes, as read (resolved paths,
	 * heap; none for a suite a tool built): a run must never write them
	 * (iob_run_opts.protect) */
	size_t nsources;
	char **sources;
	/* notes the loader has for the run (a fio file's mappings; heap, may be
	 * none): the runner adds them to the run's notes */
	size_t nnotes;
	char **notes;
	/* NULL, or njobs flags: job i only prepares files for a later job (a
	 * fio read job's missing file laid out) and runs unrecorded;
	 * IOB_PREPARE_UNLINK: what it made is removed once the job (or group)
	 * after it has run (fio's unlink=1 on the read job) */
	unsigned char *prepare;
	/* read from a fio job file: messages advise what such a file (or the
	 * command line) can say, not iobench's own keys (iob_fio_advice) */
	int from_fio;
};

int iob_profile_load(const char *path, struct iob_suite *suite, char *err, size_t errlen);
/* Parse from memory (tests, fuzzers); `name` is used in messages and as the
 * base for relative includes. */
int iob_profile_load_string(const char *name, const char *text, struct iob_suite *suite, char *err,
			    size_t errlen);
void iob_suite_free(struct iob_suite *suite);

/* Make job->dir absolute (symlinks resolved), so a dumped profile runs the
 * same from any directory.  0, or -errno with a one-line reason. */
int iob_job_resolve_dir(struct iob_job *job, char *err, size_t errlen);
/* Apply one KEY = VALUE to a job (the same table profiles use).  No
 * cross-key checks: those are iob_job_validate's.  -ENOENT for an unknown
 * key, with the nearest known key (or `iobench keys`) in err. */
int iob_job_set(struct iob_job *job, const char *key, const char *value, char *err, size_t errlen);
/* The same for a row of iob_keys(), without looking its name up. */
int iob_job_set_row(struct iob_job *job, const struct iob_key *k, const char *value, char *err, size_t errlen);
/* Write jobs as a profile that iob_profile_load reads back to equal jobs:
 * every key of the table that sets a field, in table order.  -EINVAL, with
 * nothing written, when a name or value holds a line break or a value is
 * out of its key's range. */
int iob_profile_write(FILE *f, const struct iob_job *jobs, size_t njobs, const char *comment);

#endif
