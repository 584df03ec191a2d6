/*
 * keys_set.c - the key table's setters (keys_int.h): a value's text parsed
 * into the job field its row (keys.c) names.
 *
 * Sections: the setters a row names for its kind of key (a seeded count,
 * log_interval, bounded counts, checked text, the load's shape); the setters
 * of each type (enum, list, count, text, duration); iob_key_set, which picks
 * one by the row.
 */
#include "keys_int.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "iobench/numa.h"
#include "iobench/hist.h"
#include "iobench/repeat.h"
#include "iobench/cmdprio.h"
#include "iobench/shape.h"
#include "iobench/steady.h"
#include "iobench/units.h"

static int set_count(const struct iob_key *k, const char *value, void *dst, char *err, size_t errlen);
static int set_duration(const struct iob_key *k, const char *value, uint64_t *dst, char *err, size_t errlen);

/* ---- the setters rows name ---------------------------------------------- */

int iob_set_seed(const struct iob_key *k, struct iob_job *job, const char *value, char *err, size_t errlen)
{
	int rc = set_count(k, value, (char *)job + k->offset, err, errlen);
	if (rc == 0)
		job->pattern.seed = job->seed;
	return rc;
}

#define LOG_INTERVAL_MIN_NS 10000000ull

int iob_set_log_interval(const struct iob_key *k, struct iob_job *job, const char *value, char *err, size_t errlen)
{
	uint64_t ns = 0;
	int rc = set_duration(k, value, &ns, err, errlen);
	if (rc == 0 && ns && ns < LOG_INTERVAL_MIN_NS) {
		snprintf(err, errlen, "log_interval '%s' is shorter than 10ms: give 0s (no intervals) or at least 10ms",
			 IOB_Q(value));
		return -ERANGE;
	}
	if (rc == 0)
		job->log_interval_ns = ns;
	return rc;
}

/* The counts held to bounds of their own as they are set ("runs": the
 * error's word after the bounds). */
static const struct {
	const char *key;
	uint32_t lo, hi;
	const char *what;
} bounds[] = {
    {"repeat", 1, IOB_REPEAT_MAX, " runs"},
    {"repeat_max", IOB_UNTIL_CI_MIN_RUNS, IOB_REPEAT_MAX, " runs"},
    {"steady_window", 2, 1000, ""},
    {"steady_max_rounds", 2, 100000, ""},
};

int iob_set_bounded(const struct iob_key *k, struct iob_job *job, const char *value, char *err, size_t errlen)
{
	size_t i = 0;
	while (i < sizeof bounds / sizeof bounds[0] && strcmp(bounds[i].key, k->name) != 0)
		i++;
	if (i == sizeof bounds / sizeof bounds[0]) {
		snprintf(err, errlen, "%s: key without bounds", k->name);
		return -EINVAL;
	}
	uint64_t u;
	int rc = iob_parse_u64(value, &u, err, errlen);
	if (rc == 0 && (u < bounds[i].lo || u > bounds[i].hi)) {
		snprintf(err, errlen, "%s '%s' is out of range: give %u to %u%s", k->name, IOB_Q(value), bounds[i].lo,
			 bounds[i].hi, bounds[i].what);
		return -ERANGE;
	}
	if (rc == 0) {
		uint32_t v = (uint32_t)u;
		memcpy((char *)job + k->offset, &v, sizeof v);
	}
	return rc;
}

/* The whole field zeroed, then the value: jobs with equal settings are equal
 * byte for byte. */
static void keep_text(char *dst, size_t width, const char *value)
{
	memset(dst, 0, width);
	memcpy(dst, value, strlen(value));
}

/* latency_percentile: one rank, above 0 and at most 100 */
static int lat_pct_check(const char *value, char *err, size_t errlen)
{
	double pct[IOB_PCT_MAX];
	size_t n = 0;
	if (iob_pct_parse(value, pct, &n, err, errlen) != 0 || n != 1) {
		snprintf(err, errlen, "latency_percentile '%s' is not one percent above 0 and at most 100", IOB_Q(value));
		return -EINVAL;
	}
	return 0;
}

int iob_set_checked_text(const struct iob_key *k, struct iob_job *job, const char *value, char *err, size_t errlen)
{
	double share;
	uint64_t ns, ios;
	int rc = 0;
	if (strcmp(k->name, "steady_round") == 0)
		rc = iob_steady_round_parse(value, &ns, &ios, err, errlen);
	else if (strcmp(k->name, "latency_percentile") == 0)
		rc = lat_pct_check(value, err, errlen);
	else if (!*value) /* "": off */
		rc = 0;
	else if (strcmp(k->name, "until_ci") == 0)
		rc = iob_until_ci_parse(value, &share, err, errlen);
	else if (strcmp(k->name, "numa_cpu_nodes") == 0 || strcmp(k->name, "numa_mem_policy") == 0) {
		struct iob_numa numa;
		int cpu = k->name[5] == 'c';
		rc = iob_numa_parse(cpu ? value : "", cpu ? "" : value, &numa, err, errlen);
	}
	else
		rc = iob_steady_pct_parse(k->name, value, &share, err, errlen);
	if (rc == 0 && strlen(value) >= k->width) {
		snprintf(err, errlen, "%s '%s' is too long", k->name, IOB_Q(value));
		rc = -EINVAL;
	}
	if (rc == 0)
		keep_text((char *)job + k->offset, k->width, value);
	return rc;
}

int iob_set_cmdprio_text(const struct iob_key *k, struct iob_job *job, const char *value, char *err, size_t errlen)
{
	if (strlen(value) >= k->width) {
		snprintf(err, errlen, "%s '%s' is too long (at most %zu characters)", k->name, IOB_Q(value), k->width - 1);
		return -EINVAL;
	}
	int rc = iob_cmdprio_check_key(k->name, value, err, errlen);
	if (rc == 0)
		keep_text((char *)job + k->offset, k->width, value);
	return rc;
}

int iob_set_shape_text(const struct iob_key *k, struct iob_job *job, const char *value, char *err, size_t errlen)
{
	const char *key = k->name;
	struct iob_shape sh;
	int rc = 0;
	memset(&sh, 0, sizeof sh);
	if (strlen(value) >= k->width) {
		snprintf(err, errlen, "%s '%s' is too long (at most %zu characters)", key, IOB_Q(value), k->width - 1);
		return -EINVAL;
	}
	if (strcmp(key, "bssplit") == 0)
		rc = iob_bssplit_parse(value, sh.split, err, errlen);
	else if (strcmp(key, "random_distribution") == 0)
		rc = iob_dist_parse(value, &sh, err, errlen);
	else if (strcmp(key, "seq_add") == 0)
		rc = iob_seq_add_parse(value, &sh.seq_add, err, errlen);
	else if (strcmp(key, "ignore_error") == 0)
		rc = iob_ignore_error_parse(value, &sh, err, errlen);
	else if (strcmp(key, "spr_op") == 0)
		rc = iob_spr_op_parse(value, &sh.spr_op, err, errlen);
	else
		rc = iob_rate_parse(key, value, sh.rate, err, errlen);
	if (rc == 0)
		keep_text((char *)job + k->offset, k->width, value);
	return rc;
}

/* ---- the setters of each type --------------------------------------------- */

/* "a, b, c": the allowed words of an enum or list key. */
static void word_list(const struct iob_key *k, const char *sep, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	for (const struct iob_key_word *w = k->words; w && w->word && o < len; w++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", w == k->words ? "" : sep, w->word);
}

static int set_enum(const struct iob_key *k, const char *value, int *dst, char *err, size_t errlen)
{
	for (const struct iob_key_word *w = k->words; w->word; w++)
		if (strcmp(value, w->word) == 0) {
			*dst = w->value;
			return 0;
		}
	char words[160];
	word_list(k, ", ", words, sizeof words);
	snprintf(err, errlen, "%s '%s' is not one of %s", k->name, IOB_Q(value), words);
	return -EINVAL;
}

static int set_list(const struct iob_key *k, const char *value, uint32_t *dst, char *err, size_t errlen)
{
	uint32_t bits = 0;
	char buf[128];
	if (strlen(value) >= sizeof buf) {
		snprintf(err, errlen, "%s '%s' is too long", k->name, IOB_Q(value));
		return -EINVAL;
	}
	snprintf(buf, sizeof buf, "%s", value);
	char *save = NULL;
	for (char *t = strtok_r(buf, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save)) {
		const struct iob_key_word *w = k->words;
		while (w->word && strcmp(t, w->word) != 0)
			w++;
		if (!w->word) {
			char words[160];
			word_list(k, ", ", words, sizeof words);
			size_t nl = strlen(k->name); /* "phases": "unknown phase" */
			snprintf(err, errlen, "unknown %.*s '%s' in '%s' (use %s)",
				 (int)(nl > 1 && k->name[nl - 1] == 's' ? nl - 1 : nl), k->name, IOB_Q(t),
				 IOB_Q(value), words);
			return -EINVAL;
		}
		bits |= (uint32_t)w->value;
	}
	if (!bits) {
		snprintf(err, errlen, "%s is empty", k->name);
		return -EINVAL;
	}
	*dst = bits;
	return 0;
}

static int set_count(const struct iob_key *k, const char *value, void *dst, char *err, size_t errlen)
{
	uint64_t v;
	int rc = iob_parse_u64(value, &v, err, errlen);
	if (rc)
		return rc;
	if (k->width == sizeof(uint32_t)) {
		if (v > UINT32_MAX) {
			snprintf(err, errlen, "%s '%s' is too large (limit %u)", k->name, IOB_Q(value),
				 UINT32_MAX);
			return -ERANGE;
		}
		uint32_t v32 = (uint32_t)v;
		memcpy(dst, &v32, sizeof v32);
	} else {
		memcpy(dst, &v, sizeof v);
	}
	return 0;
}

static int set_text(const struct iob_key *k, const char *value, char *dst, char *err, size_t errlen)
{
	size_t n = strlen(value);
	if (n >= k->width) {
		snprintf(err, errlen, "%s is longer than %zu characters", k->name, k->width - 1);
		return -ENAMETOOLONG;
	}
	/* a shorter value over a [global] one leaves no stale bytes */
	keep_text(dst, k->width, value);
	return 0;
}

const struct iob_duration_unit iob_duration_units[IOB_DURATION_UNITS] = {{"h", 3600000000000ull}, {"m", 60000000000ull}, {"s", 1000000000ull},
		      {"ms", 1000000ull},	   {"us", 1000ull},	   {"ns", 1}};

/* "5s", "500ms", "2m", "1h", "100us", "7ns": a whole number and its unit. */
static int set_duration(const struct iob_key *k, const char *value, uint64_t *dst, char *err, size_t errlen)
{
	const char *p = value;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '-') {
		snprintf(err, errlen, "%s '%s' is negative: give a duration such as 5s or 500ms", k->name,
			 IOB_Q(value));
		return -ERANGE;
	}
	uint64_t v = 0;
	const char *d = p;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10) {
			snprintf(err, errlen, "%s '%s' is too large", k->name, IOB_Q(value));
			return -ERANGE;
		}
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p == d) {
		snprintf(err, errlen, "%s '%s' is not a duration (write a whole number and a unit: 5s, 500ms, 2m, 1h, "
				      "100us)",
			 k->name, IOB_Q(value));
		return -EINVAL;
	}
	if (!*p) {
		snprintf(err, errlen, "%s '%s' has no unit (write %s followed by h, m, s, ms, us or ns, e.g. %ss)",
			 k->name, IOB_Q(value), IOB_Q(value), IOB_Q(value));
		return -EINVAL;
	}
	for (size_t i = 0; i < IOB_DURATION_UNITS; i++)
		if (strcmp(p, iob_duration_units[i].unit) == 0) {
			if (v > UINT64_MAX / iob_duration_units[i].ns) {
				snprintf(err, errlen, "%s '%s' is too large", k->name, IOB_Q(value));
				return -ERANGE;
			}
			*dst = v * iob_duration_units[i].ns;
			return 0;
		}
	snprintf(err, errlen, "%s '%s' has an unknown unit (use h, m, s, ms, us or ns)", k->name, IOB_Q(value));
	return -EINVAL;
}

int iob_key_set(const struct iob_key *k, struct iob_job *job, const char *value, char *err, size_t errlen)
{
	void *dst = (char *)job + k->offset;
	if (k->set)
		return k->set(k, job, value, err, errlen);
	if (k->width == 0)
		return 0;
	switch (k->type) {
	case IOB_KEY_SIZE:
		return iob_parse_size(value, dst, err, errlen);
	case IOB_KEY_COUNT:
		return set_count(k, value, dst, err, errlen);
	case IOB_KEY_BOOL:
		return iob_parse_bool(value, dst, err, errlen);
	case IOB_KEY_ENUM:
		return set_enum(k, value, dst, err, errlen);
	case IOB_KEY_LIST:
		return set_list(k, value, dst, err, errlen);
	case IOB_KEY_STRING:
	case IOB_KEY_PATH:
		return set_text(k, value, dst, err, errlen);
	case IOB_KEY_PATTERN:
		return iob_pattern_parse(value, dst, err, errlen);
	case IOB_KEY_DURATION:
		return set_duration(k, value, dst, err, errlen);
	}
	snprintf(err, errlen, "%s: key of unknown type", k->name);
	return -EINVAL;
}
