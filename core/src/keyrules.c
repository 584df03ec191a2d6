/*
 * keyrules.c - the rules across keys that belong to one key: a row of the
 * key table (keys.c) may say which keys it needs and which it excludes
 * (iobench/profile.h).  iob_job_validate checks them on every job, however
 * it was built (INI, fio job file, --set, a legacy tool's options), right
 * after each key's own range; job.c keeps only the rules that compare
 * values across keys.
 */
#include "iobench/profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/job.h"
#include "keys_int.h"

/* The key's field differs between two jobs. */
static int differs(const struct iob_key *k, const struct iob_job *a, const struct iob_job *b)
{
	const char *x = (const char *)a + k->offset, *y = (const char *)b + k->offset;
	if (k->type == IOB_KEY_STRING || k->type == IOB_KEY_PATH)
		return strncmp(x, y, k->width) != 0;
	return memcmp(x, y, k->width) != 0;
}

/* One condition, "KEY" or "KEY=WORD", of `len` bytes at `cond`, on `job`:
 * 1 when it holds, 0 when not, -EINVAL when the table names no such key or
 * value (a defect of the table, said as such).  `tmp` is scratch space. */
static int holds(const char *cond, size_t len, const struct iob_job *job, const struct iob_job *defaults,
		 struct iob_job *tmp, const struct iob_key **key, char *err, size_t errlen)
{
	char name[64], word[64];
	const char *eq = memchr(cond, '=', len);
	size_t nlen = eq ? (size_t)(eq - cond) : len;
	if (nlen >= sizeof name || (eq && len - nlen - 1 >= sizeof word))
		goto bad;
	memcpy(name, cond, nlen);
	name[nlen] = '\0';
	if (!(*key = iob_key_find(name)) || (*key)->width == 0)
		goto bad;
	if (!eq)
		return differs(*key, job, defaults);
	memcpy(word, eq + 1, len - nlen - 1);
	word[len - nlen - 1] = '\0';
	memcpy(tmp, defaults, sizeof *tmp);
	char why[256];
	if (iob_job_set(tmp, name, word, why, sizeof why) != 0)
		goto bad;
	if ((*key)->type == IOB_KEY_LIST) {
		uint32_t have, want;
		memcpy(&have, (const char *)job + (*key)->offset, sizeof have);
		memcpy(&want, (const char *)tmp + (*key)->offset, sizeof want);
		return (have & want) == want;
	}
	return !differs(*key, job, tmp);
bad:
	snprintf(err, errlen, "key table: a rule names '%.*s', which is no key's value", (int)len, cond);
	return -EINVAL;
}

/* The key's value as text, for the error line. */
static void value_text(const struct iob_key *k, const struct iob_job *job, char *buf, size_t len)
{
	if (iob_key_format(k, job, buf, len) != 0)
		snprintf(buf, len, "?");
}

static int check_row(const struct iob_key *k, const struct iob_job *job, const struct iob_job *defaults,
		     struct iob_job *tmp, char *err, size_t errlen)
{
	char mine[128], theirs[128];
	for (int excl = 0; excl < 2; excl++) {
		const char *list = excl ? k->excludes : k->needs;
		for (const char *c = list; c && *c;) {
			size_t len = strcspn(c, ",");
			const struct iob_key *other = NULL;
			int h = holds(c, len, job, defaults, tmp, &other, err, errlen);
			if (h < 0)
				return h;
			if (h == excl) { /* a need missing, or an exclusion present */
				value_text(k, job, mine, sizeof mine);
				const char *eq = memchr(c, '=', len);
				if (excl)
					value_text(other, job, theirs, sizeof theirs);
				else if (eq)
					snprintf(theirs, sizeof theirs, "%.*s", (int)(len - (size_t)(eq - c) - 1), eq + 1);
				if (!excl && !eq)
					snprintf(err, errlen, "[%s] %s = %s needs %s%s%s", job->name, k->name, mine, other->name,
						 k->why ? ": " : "", k->why ? k->why : "");
				else
					snprintf(err, errlen, "[%s] %s = %s %s %s = %s%s%s", job->name, k->name, mine,
						 excl ? "cannot be used with" : "needs", other->name, theirs,
						 k->why ? ": " : "", k->why ? k->why : "");
				return -EINVAL;
			}
			c += len;
			if (*c == ',')
				c++;
		}
	}
	return 0;
}

int iob_keys_check_rules(const struct iob_job *job, char *err, size_t errlen)
{
	size_t n;
	const struct iob_key *keys = iob_keys(&n);
	const struct iob_job *defaults = iob_job_template();
	struct iob_job *tmp = NULL;
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		const struct iob_key *k = &keys[i];
		if ((!k->needs && !k->excludes) || !differs(k, job, defaults))
			continue;
		if (!tmp && !(tmp = malloc(sizeof *tmp))) {
			snprintf(err, errlen, "[%s] out of memory checking the keys' rules", job->name);
			rc = -ENOMEM;
			break;
		}
		rc = check_row(k, job, defaults, tmp, err, errlen);
	}
	free(tmp);
	return rc;
}
