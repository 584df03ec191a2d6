/*
 * keys_int.h - what the key table (keys.c) and its setters (keys_set.c)
 * share, and what keyrules.c and job.c read of them.  Not an API.
 *
 * A row's `set` stores the value into the row's own field (k->offset,
 * k->width), so one setter serves every key of its kind; iob_key_set parses
 * a row without one by its type.
 */
#ifndef IOB_KEYS_INT_H
#define IOB_KEYS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "iobench/profile.h"

/* A duration's units, largest first: the setter reads them, the formatter
 * writes the largest that says a value exactly. */
#define IOB_DURATION_UNITS 6
struct iob_duration_unit {
	const char *unit;
	uint64_t ns;
};
extern const struct iob_duration_unit iob_duration_units[IOB_DURATION_UNITS];

/* Every key at its default (job.c: made once per process, read in place:
 * the rules compare a job with it without a 28 KB copy). */
const struct iob_job *iob_job_template(void);

/* The value of key k parsed into job: 0, or -errno with one line in err. */
int iob_key_set(const struct iob_key *k, struct iob_job *job, const char *value, char *err, size_t errlen);

/* seed: a count that seeds the pattern too */
int iob_set_seed(const struct iob_key *k, struct iob_job *job, const char *value, char *err, size_t errlen);
/* log_interval: a duration, 0 or at least 10 ms */
int iob_set_log_interval(const struct iob_key *k, struct iob_job *job, const char *value, char *err, size_t errlen);
/* a 32-bit count held to the bounds keys_set.c lists for its key */
int iob_set_bounded(const struct iob_key *k, struct iob_job *job, const char *value, char *err, size_t errlen);
/* text kept once its parser accepts it: until_ci, steady_round,
 * steady_range/slope/limit and numa_cpu_nodes, numa_mem_policy (checked_text); the load's shape, bssplit,
 * random_distribution, rate*, seq_add (shape_text) */
int iob_set_checked_text(const struct iob_key *k, struct iob_job *job, const char *value, char *err, size_t errlen);
int iob_set_shape_text(const struct iob_key *k, struct iob_job *job, const char *value, char *err, size_t errlen);
int iob_set_cmdprio_text(const struct iob_key *k, struct iob_job *job, const char *value, char *err, size_t errlen);

#endif /* IOB_KEYS_INT_H */
