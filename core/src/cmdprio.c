/*
 * cmdprio.c - I/O priorities per I/O (iobench/cmdprio.h; docs/profiles.md,
 * "I/O priority"): the job keys' texts parsed, the draw of each I/O's
 * priority, and the count of I/Os at each priority a phase record carries.
 */
#include "iobench/cmdprio.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/perm.h"
#include "iobench/units.h"

#define TEXT_MAX 512

/* A whole number from lo to hi, named for the message. */
static int number(const char *key, const char *what, const char *s, unsigned lo, unsigned hi, unsigned *out,
		  char *err, size_t errlen)
{
	uint64_t v;
	char why[160];
	if (iob_parse_u64(s, &v, why, sizeof why) != 0 || v < lo || v > hi) {
		snprintf(err, errlen, "%s: %s '%s' is not a whole number from %u to %u", key, what, s, lo, hi);
		return -EINVAL;
	}
	*out = (unsigned)v;
	return 0;
}

/* "A" (both directions) or "A,B" (an empty side keeps dflt) into out[2]. */
static int pair(const char *key, const char *what, const char *text, unsigned lo, unsigned hi, unsigned dflt,
		unsigned out[2], char *err, size_t errlen)
{
	char buf[64];
	out[0] = out[1] = dflt;
	if (!text[0])
		return 0;
	if (strlen(text) >= sizeof buf) {
		snprintf(err, errlen, "%s '%s' is too long", key, text);
		return -EINVAL;
	}
	strcpy(buf, text);
	char *comma = strchr(buf, ',');
	if (comma) {
		*comma = '\0';
		if (strchr(comma + 1, ',')) {
			snprintf(err, errlen, "%s '%s': give one value, or reads,writes", key, text);
			return -EINVAL;
		}
	}
	int rc = buf[0] ? number(key, what, buf, lo, hi, &out[0], err, errlen) : 0;
	if (rc == 0 && comma && comma[1])
		rc = number(key, what, comma + 1, lo, hi, &out[1], err, errlen);
	else if (rc == 0 && !comma)
		out[1] = out[0];
	return rc;
}

/* One direction's cmdprio_bssplit: SIZE/PCT[/CLASS/LEVEL[/HINT]]:... */
static int split_dir(char *list, int dir, unsigned cls, unsigned level, struct iob_cmdprio *c, char *err,
		     size_t errlen)
{
	const char *key = "cmdprio_bssplit";
	char *save = NULL;
	for (char *e = strtok_r(list, ":", &save); e; e = strtok_r(NULL, ":", &save)) {
		char *f[6];
		int nf = 0;
		for (char *s2 = NULL, *p = strtok_r(e, "/", &s2); p; p = strtok_r(NULL, "/", &s2)) {
			if (nf == 5) {
				snprintf(err, errlen, "%s: an entry has more than SIZE/PCT/CLASS/LEVEL/HINT", key);
				return -EINVAL;
			}
			f[nf++] = p;
		}
		if (nf != 2 && nf != 4 && nf != 5) {
			snprintf(err, errlen, "%s entry '%s' needs SIZE/PCT, SIZE/PCT/CLASS/LEVEL or SIZE/PCT/CLASS/LEVEL/HINT",
				 key, e);
			return -EINVAL;
		}
		if (c->n[dir] == IOB_CMDPRIO_MAX) {
			snprintf(err, errlen, "%s: more than %d entries in one direction", key, IOB_CMDPRIO_MAX);
			return -EINVAL;
		}
		struct iob_cmdprio_entry *x = &c->e[dir][c->n[dir]];
		unsigned pct, ecls = cls, elevel = level, hint = 0;
		char why[160];
		if (iob_parse_size(f[0], &x->bs, why, sizeof why) != 0 || x->bs == 0) {
			snprintf(err, errlen, "%s: size '%s' is not a block size", key, f[0]);
			return -EINVAL;
		}
		int rc = number(key, "percentage", f[1], 0, 100, &pct, err, errlen);
		if (rc == 0 && nf >= 4)
			rc = number(key, "class", f[2], 0, 3, &ecls, err, errlen);
		if (rc == 0 && nf >= 4)
			rc = number(key, "level", f[3], 0, 7, &elevel, err, errlen);
		if (rc == 0 && nf == 5)
			rc = number(key, "hint", f[4], 0, IOB_PRIO_HINT_MAX, &hint, err, errlen);
		if (rc)
			return rc;
		uint32_t sum = pct;
		for (uint32_t i = 0; i < c->n[dir]; i++)
			if (c->e[dir][i].bs == x->bs)
				sum += c->e[dir][i].pct;
		if (sum > 100) {
			snprintf(err, errlen, "%s: the %s entries of size %s add up to %u%%, more than 100", key,
				 dir ? "write" : "read", f[0], sum);
			return -EINVAL;
		}
		x->pct = pct;
		x->prio = iob_prio_value(ecls, elevel, hint);
		c->n[dir]++;
	}
	return 0;
}

int iob_cmdprio_parse(const char *pct, const char *cls, const char *level, const char *bssplit,
		      struct iob_cmdprio *c, char *err, size_t errlen)
{
	unsigned p[2], k[2], l[2];
	memset(c, 0, sizeof *c);
	int rc = pair("cmdprio_percentage", "percentage", pct, 0, 100, 0, p, err, errlen);
	if (rc == 0)
		rc = pair("cmdprio_class", "class", cls, 1, 3, 1, k, err, errlen); /* fio: the highest class */
	if (rc == 0)
		rc = pair("cmdprio_level", "level", level, 0, 7, 0, l, err, errlen);
	if (rc)
		return rc;
	if (bssplit[0] && (p[0] || p[1])) {
		snprintf(err, errlen, "cmdprio_bssplit and cmdprio_percentage cannot both be given (as in fio)");
		return -EINVAL;
	}
	for (int d = 0; d < 2; d++) {
		c->pct[d] = p[d];
		c->prio[d] = iob_prio_value(k[d], l[d], 0);
	}
	if (bssplit[0]) {
		char buf[TEXT_MAX];
		if (strlen(bssplit) >= sizeof buf) {
			snprintf(err, errlen, "cmdprio_bssplit is longer than %d characters", TEXT_MAX - 1);
			return -EINVAL;
		}
		strcpy(buf, bssplit);
		char *comma = strchr(buf, ','), *third = comma ? strchr(comma + 1, ',') : NULL;
		if (third)
			*third = '\0'; /* trims: none are done, as fio ignores them here */
		if (comma)
			*comma = '\0';
		rc = split_dir(buf, 0, k[0], l[0], c, err, errlen);
		if (rc == 0 && comma)
			rc = split_dir(comma + 1, 1, k[1], l[1], c, err, errlen);
		else if (rc == 0) {
			c->n[1] = c->n[0];
			memcpy(c->e[1], c->e[0], sizeof c->e[0]);
		}
		if (rc)
			return rc;
	}
	for (int d = 0; d < 2; d++)
		for (uint32_t i = 0; i < c->n[d]; i++)
			c->on |= c->e[d][i].pct > 0;
	c->on |= c->pct[0] > 0 || c->pct[1] > 0;
	return 0;
}

int iob_cmdprio_check_key(const char *key, const char *text, char *err, size_t errlen)
{
	struct iob_cmdprio c;
	int bs = strcmp(key, "cmdprio_bssplit") == 0, pc = strcmp(key, "cmdprio_percentage") == 0;
	int cl = strcmp(key, "cmdprio_class") == 0;
	return iob_cmdprio_parse(pc ? text : "", cl ? text : "", !bs && !pc && !cl ? text : "", bs ? text : "", &c, err,
				 errlen);
}

int iob_cmdprio_wants_rt(const struct iob_cmdprio *c)
{
	int rt = (c->dflt >> IOB_PRIO_CLASS_SHIFT) == 1;
	for (int d = 0; d < 2; d++) {
		rt |= c->pct[d] && (c->prio[d] >> IOB_PRIO_CLASS_SHIFT) == 1;
		for (uint32_t i = 0; i < c->n[d]; i++)
			rt |= c->e[d][i].pct && (c->e[d][i].prio >> IOB_PRIO_CLASS_SHIFT) == 1;
	}
	return rt;
}

uint16_t iob_cmdprio_draw(const struct iob_cmdprio *c, uint64_t *rng, int w, uint64_t len)
{
	uint32_t u = (uint32_t)(iob_splitmix64(rng) % 100);
	if (!c->n[w])
		return u < c->pct[w] ? c->prio[w] : 0;
	uint32_t cum = 0;
	for (uint32_t i = 0; i < c->n[w]; i++)
		if (c->e[w][i].bs == len && u < (cum += c->e[w][i].pct))
			return c->e[w][i].prio;
	return 0;
}

void iob_prio_hist_add(struct iob_prio_hist *h, int write, uint16_t prio, uint64_t ios)
{
	uint32_t i = 0;
	while (i < h->n && h->prio[i] != prio)
		i++;
	if (i == h->n) {
		if (h->n == IOB_PRIO_HIST_MAX)
			return; /* cannot happen: at most every entry of both directions and the thread's */
		h->prio[h->n++] = prio;
	}
	h->ios[write != 0][i] += ios;
}

void iob_prio_hist_text(const struct iob_prio_hist *h, char *out, size_t len)
{
	size_t at = 0;
	int prev = -1;
	out[0] = '\0';
	for (uint32_t k = 0; k < h->n; k++) { /* ascending: the smallest above the last written */
		uint32_t best = h->n;
		for (uint32_t i = 0; i < h->n; i++)
			if ((int)h->prio[i] > prev && (best == h->n || h->prio[i] < h->prio[best]))
				best = i;
		if (best == h->n)
			break;
		prev = h->prio[best];
		int n = snprintf(out + at, len - at, "%s0x%04x:%" PRIu64 ":%" PRIu64, at ? " " : "", h->prio[best],
				 h->ios[0][best], h->ios[1][best]);
		if (n < 0 || (size_t)n >= len - at)
			return;
		at += (size_t)n;
	}
}
