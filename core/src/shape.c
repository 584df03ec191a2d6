/*
 * shape.c - shapes of load inside a phase (iobench/shape.h): the parsers of
 * bssplit, random_distribution and rate, and the per-stream drawing of
 * lengths and offsets and pacing the engine calls once per I/O.
 *
 * Zipf ranks are drawn by rejection-inversion (Hoermann and Derflinger,
 * "Rejection-inversion to generate variates from monotone discrete
 * distributions", 1996): O(1) a draw, no table, for any number of blocks.
 */
#include "iobench/shape.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/os.h"
#include "iobench/units.h"


/* uniform in [0, 1), 53 bits */
static double unit01(uint64_t *s)
{
	return (double)(iob_splitmix64(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* ---- parsers ------------------------------------------------------------------ */

/* One direction: SIZE/PCT[:SIZE/PCT...]; an empty PCT shares what is left
 * equally among the empty ones. */
static int split_one(const char *text, size_t len, struct iob_bssplit *out, char *err, size_t errlen)
{
	char buf[512], *save = NULL;
	uint32_t sum = 0, blanks = 0;
	if (len >= sizeof buf) {
		snprintf(err, errlen, "bssplit '%.*s' is too long", (int)(len > 60 ? 60 : len), text);
		return -EINVAL;
	}
	memcpy(buf, text, len);
	buf[len] = '\0';
	out->n = 0;
	for (char *e = strtok_r(buf, ":", &save); e; e = strtok_r(NULL, ":", &save)) {
		char *slash = strchr(e, '/');
		char why[160];
		uint64_t bs, pct = 0;
		if (out->n == IOB_SPLIT_MAX) {
			snprintf(err, errlen, "bssplit '%s': more than %d block sizes", buf, IOB_SPLIT_MAX);
			return -EINVAL;
		}
		if (!slash) {
			snprintf(err, errlen, "bssplit entry '%s' needs SIZE/PERCENT (e.g. 4k/50)", e);
			return -EINVAL;
		}
		*slash = '\0';
		if (iob_parse_size(e, &bs, why, sizeof why) != 0 || bs == 0 || bs > ((uint64_t)1 << 31)) {
			snprintf(err, errlen, "bssplit block size '%s' is not a size from 1 byte to 2g", e);
			return -EINVAL;
		}
		if (slash[1] == '\0') {
			blanks++;
			pct = UINT32_MAX;
		} else if (iob_parse_u64(slash + 1, &pct, why, sizeof why) != 0 || pct > 100) {
			snprintf(err, errlen, "bssplit percentage '%s' (of %s) is not a whole number from 0 to 100", slash + 1,
				 e);
			return -EINVAL;
		} else {
			sum += (uint32_t)pct;
		}
		out->bs[out->n] = bs;
		out->pct[out->n++] = (uint32_t)pct;
	}
	if (out->n == 0) {
		snprintf(err, errlen, "bssplit '%s' has no SIZE/PERCENT entry", buf);
		return -EINVAL;
	}
	if (sum > 100 || (!blanks && sum != 100)) {
		snprintf(err, errlen, "bssplit percentages add up to %u, not 100", sum);
		return -EINVAL;
	}
	uint32_t left = 100 - sum;
	for (uint32_t i = 0, k = 0; i < out->n; i++)
		if (out->pct[i] == UINT32_MAX) { /* the rest, shared; the first ones get the remainder */
			out->pct[i] = left / blanks + (k < left % blanks);
			k++;
		}
	return 0;
}

int iob_bssplit_parse(const char *text, struct iob_bssplit out[2], char *err, size_t errlen)
{
	memset(out, 0, 2 * sizeof *out);
	if (!text[0])
		return 0;
	const char *comma = strchr(text, ',');
	if (comma && strchr(comma + 1, ',')) {
		snprintf(err, errlen, "bssplit '%s': give one split, or reads,writes (iobench does no trims)", text);
		return -EINVAL;
	}
	size_t rl = comma ? (size_t)(comma - text) : strlen(text);
	int rc = rl ? split_one(text, rl, &out[0], err, errlen) : 0;
	if (rc == 0 && comma && comma[1])
		rc = split_one(comma + 1, strlen(comma + 1), &out[1], err, errlen);
	else if (rc == 0 && !comma)
		out[1] = out[0];
	if (rc == 0 && !out[0].n && !out[1].n) {
		snprintf(err, errlen, "bssplit '%s' has no SIZE/PERCENT entry", text);
		rc = -EINVAL;
	}
	return rc;
}

static int zones_parse(char *list, int abs_sizes, struct iob_shape *sh, char *err, size_t errlen)
{
	char *save = NULL, why[160];
	uint32_t access = 0, blanks = 0;
	uint64_t size_sum = 0;
	sh->nzones = 0;
	for (char *e = strtok_r(list, ":", &save); e; e = strtok_r(NULL, ":", &save)) {
		char *slash = strchr(e, '/');
		uint64_t a, z = 0;
		if (sh->nzones == IOB_ZONES_MAX) {
			snprintf(err, errlen, "random_distribution: more than %d zones", IOB_ZONES_MAX);
			return -EINVAL;
		}
		if (!slash) {
			snprintf(err, errlen, "random_distribution zone '%s' needs ACCESS%%/SIZE (e.g. 50/10)", e);
			return -EINVAL;
		}
		*slash = '\0';
		if (iob_parse_u64(e, &a, why, sizeof why) != 0 || a > 100) {
			snprintf(err, errlen, "random_distribution zone access '%s' is not a whole percentage (0 to 100)", e);
			return -EINVAL;
		}
		if (slash[1] == '\0') {
			blanks++;
			z = UINT64_MAX; /* the rest of the file */
		} else if (abs_sizes ? iob_parse_size(slash + 1, &z, why, sizeof why) != 0 || z == 0
				     : iob_parse_u64(slash + 1, &z, why, sizeof why) != 0 || z > 100) {
			snprintf(err, errlen, "random_distribution zone size '%s' is not %s", slash + 1,
				 abs_sizes ? "a size of at least 1 byte" : "a whole percentage (0 to 100)");
			return -EINVAL;
		} else if (size_sum > UINT64_MAX - z) {
			snprintf(err, errlen, "random_distribution zone sizes overflow");
			return -ERANGE;
		} else {
			size_sum += z;
		}
		access += (uint32_t)a;
		sh->zones[sh->nzones].access_pct = (uint32_t)a;
		sh->zones[sh->nzones++].size = z;
	}
	if (!sh->nzones) {
		snprintf(err, errlen, "random_distribution: zoned needs at least one ACCESS/SIZE zone");
		return -EINVAL;
	}
	if (access != 100) {
		snprintf(err, errlen, "random_distribution zone accesses add up to %u%%, not 100%%", access);
		return -EINVAL;
	}
	if (blanks > 1 || (blanks && sh->zones[sh->nzones - 1].size != UINT64_MAX)) {
		snprintf(err, errlen, "random_distribution: only the last zone's size may be left empty (the rest)");
		return -EINVAL;
	}
	if (!abs_sizes) {
		if (size_sum > 100 || (!blanks && size_sum != 100)) {
			snprintf(err, errlen, "random_distribution zone sizes add up to %llu%%, not 100%%",
				 (unsigned long long)size_sum);
			return -EINVAL;
		}
		if (blanks)
			sh->zones[sh->nzones - 1].size = 100 - size_sum;
	}
	return 0;
}

/* sequence:B,B,...: block indices, digits only (blanks around each
 * allowed), at most IOB_SEQ_MAX of them */
static int sequence_parse(char *list, struct iob_shape *sh, char *err, size_t errlen)
{
	sh->nseq = 0;
	for (char *e = list, *next; e; e = next) {
		next = strchr(e, ',');
		if (next)
			*next++ = '\0';
		while (*e == ' ' || *e == '\t')
			e++;
		size_t len = strlen(e);
		while (len && (e[len - 1] == ' ' || e[len - 1] == '\t'))
			e[--len] = '\0';
		char why[160];
		uint64_t b;
		if (!len || strspn(e, "0123456789") != len || iob_parse_u64(e, &b, why, sizeof why) != 0 ||
		    b > UINT32_MAX) {
			snprintf(err, errlen, "random_distribution sequence element '%s' is not a block index (0 to %u)", e,
				 UINT32_MAX);
			return -EINVAL;
		}
		if (sh->nseq == IOB_SEQ_MAX) {
			snprintf(err, errlen, "random_distribution: a sequence holds at most %d block indices", IOB_SEQ_MAX);
			return -EINVAL;
		}
		sh->seq[sh->nseq++] = (uint32_t)b;
	}
	return 0;
}

int iob_dist_parse(const char *text, struct iob_shape *sh, char *err, size_t errlen)
{
	char buf[IOB_DIST_TEXT_MAX];
	sh->dist = IOB_DIST_RANDOM;
	sh->dist_param = 0;
	sh->nzones = 0;
	sh->nseq = 0;
	if (!text[0] || strcmp(text, "random") == 0)
		return 0;
	if (strlen(text) >= sizeof buf) {
		snprintf(err, errlen, "random_distribution '%.60s...' is too long", text);
		return -EINVAL;
	}
	snprintf(buf, sizeof buf, "%s", text);
	char *colon = strchr(buf, ':');
	char *arg = colon ? colon + 1 : NULL;
	if (colon)
		*colon = '\0';
	if (strcmp(buf, "zoned") == 0 || strcmp(buf, "zoned_abs") == 0) {
		int abs_sizes = buf[5] == '_';
		if (!arg || !*arg) {
			snprintf(err, errlen, "random_distribution=%s needs zones, e.g. %s:50/%s:50/", buf, buf,
				 abs_sizes ? "1g" : "10");
			return -EINVAL;
		}
		if (strchr(arg, ',')) {
			snprintf(err, errlen, "random_distribution '%s': zones per direction (',') are not available: give "
					      "one list for reads and writes", text);
			return -EINVAL;
		}
		sh->dist = abs_sizes ? IOB_DIST_ZONED_ABS : IOB_DIST_ZONED;
		return zones_parse(arg, abs_sizes, sh, err, errlen);
	}
	if (strcmp(buf, "sequence") == 0) {
		if (!arg || !*arg) {
			snprintf(err, errlen, "random_distribution=sequence needs block indices, e.g. sequence:2,0,1");
			return -EINVAL;
		}
		sh->dist = IOB_DIST_SEQUENCE;
		return sequence_parse(arg, sh, err, errlen);
	}
	enum iob_dist d = strcmp(buf, "zipf") == 0     ? IOB_DIST_ZIPF
			  : strcmp(buf, "pareto") == 0 ? IOB_DIST_PARETO
			  : strcmp(buf, "normal") == 0 ? IOB_DIST_NORMAL
						       : IOB_DIST_RANDOM;
	if (d == IOB_DIST_RANDOM) {
		snprintf(err, errlen,
			 "random_distribution '%s' is not one of random, zipf:THETA, pareto:H, normal:SIGMA, zoned:..., "
			 "zoned_abs:..., sequence:B,...",
			 text);
		return -EINVAL;
	}
	double v;
	char why[160];
	if (!arg || strchr(arg, ':') || iob_parse_double(arg, &v, why, sizeof why) != 0) {
		snprintf(err, errlen, "random_distribution '%s' needs one number after '%s:'%s", text, buf,
			 arg && strchr(arg, ':') ? " (a center is not available)" : "");
		return -EINVAL;
	}
	const char *bad = d == IOB_DIST_ZIPF && (!(v > 0) || v == 1.0 || v > 100) ? "zipf's theta must be above 0, not 1, "
										     "at most 100"
			  : d == IOB_DIST_PARETO && !(v > 0 && v < 1)		    ? "pareto's h must be between 0 and 1"
			  : d == IOB_DIST_NORMAL && !(v > 0 && v <= 100)		    ? "normal's sigma must be a percentage "
											      "above 0, at most 100"
										    : NULL;
	if (bad) {
		snprintf(err, errlen, "random_distribution '%s': %s", text, bad);
		return -EINVAL;
	}
	sh->dist = d;
	sh->dist_param = v;
	return 0;
}

int iob_rate_parse(const char *key, const char *text, uint64_t out[2], char *err, size_t errlen)
{
	char buf[128], why[160];
	out[0] = out[1] = 0;
	if (!text[0])
		return 0;
	if (strlen(text) >= sizeof buf || strchr(strchr(text, ',') ? strchr(text, ',') + 1 : "", ',')) {
		snprintf(err, errlen, "%s '%.60s': give one value, or reads,writes", key, text);
		return -EINVAL;
	}
	snprintf(buf, sizeof buf, "%s", text);
	char *comma = strchr(buf, ',');
	if (comma)
		*comma = '\0';
	const char *side[2] = {buf, comma ? comma + 1 : buf};
	for (int d = 0; d < 2; d++) {
		if (!side[d][0])
			continue; /* no limit that way */
		if (iob_parse_size(side[d], &out[d], why, sizeof why) != 0) {
			snprintf(err, errlen, "%s '%s' is not a number per second (%s)", key, side[d], why);
			return -EINVAL;
		}
	}
	return 0;
}

int iob_seq_add_parse(const char *text, int64_t *out, char *err, size_t errlen)
{
	uint64_t v = 0;
	char why[160];
	*out = 0;
	if (!text[0])
		return 0;
	int neg = text[0] == '-';
	if (iob_parse_size(text + neg, &v, why, sizeof why) != 0 || v > ((uint64_t)1 << 40)) {
		snprintf(err, errlen, "seq_add '%s' is not a size (an optional '-' and a size up to 1t: -8k, 64k)",
			 IOB_Q(text));
		return -EINVAL;
	}
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

/* errno names ignore_error reads (those this platform has) */
static const struct {
	const char *name;
	int value;
} errno_names[] = {
    {"EPERM", EPERM},	    {"ENOENT", ENOENT},	      {"EINTR", EINTR},		{"EIO", EIO},
    {"ENXIO", ENXIO},	    {"EBADF", EBADF},	      {"EAGAIN", EAGAIN},	{"ENOMEM", ENOMEM},
    {"EACCES", EACCES},	    {"EFAULT", EFAULT},	      {"EBUSY", EBUSY},		{"EEXIST", EEXIST},
    {"ENODEV", ENODEV},	    {"EINVAL", EINVAL},	      {"EFBIG", EFBIG},		{"ENOSPC", ENOSPC},
    {"ESPIPE", ESPIPE},	    {"EROFS", EROFS},	      {"EILSEQ", EILSEQ},	{"ERANGE", ERANGE},
#ifdef ENOTSUP
    {"ENOTSUP", ENOTSUP},
#endif
#ifdef EOVERFLOW
    {"EOVERFLOW", EOVERFLOW},
#endif
#ifdef ETIMEDOUT
    {"ETIMEDOUT", ETIMEDOUT},
#endif
#ifdef ECANCELED
    {"ECANCELED", ECANCELED},
#endif
#ifdef EDQUOT
    {"EDQUOT", EDQUOT},
#endif
#ifdef EOPNOTSUPP
    {"EOPNOTSUPP", EOPNOTSUPP},
#endif
#ifdef EWOULDBLOCK
    {"EWOULDBLOCK", EWOULDBLOCK},
#endif
#ifdef ENODATA
    {"ENODATA", ENODATA},
#endif
#ifdef ENOMEDIUM
    {"ENOMEDIUM", ENOMEDIUM},
#endif
#ifdef EREMOTEIO
    {"EREMOTEIO", EREMOTEIO},
#endif
#ifdef EBADMSG
    {"EBADMSG", EBADMSG},
#endif
};

static int errno_of(const char *t, size_t n)
{
	for (size_t i = 0; i < sizeof errno_names / sizeof errno_names[0]; i++)
		if (strlen(errno_names[i].name) == n && strncmp(errno_names[i].name, t, n) == 0)
			return errno_names[i].value;
	int v = 0;
	for (size_t i = 0; i < n; i++) {
		if (t[i] < '0' || t[i] > '9' || v > 4095)
			return 0;
		v = v * 10 + (t[i] - '0');
	}
	return n && v <= 4095 ? v : 0;
}

int iob_ignore_error_parse(const char *text, struct iob_shape *sh, char *err, size_t errlen)
{
	sh->nignore[0] = sh->nignore[1] = 0;
	const char *p = text;
	for (int d = 0; *text; d++) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (d >= 3) {
			snprintf(err, errlen, "ignore_error '%s': give READS,WRITES[,VERIFY], ':' lists of errnos",
				 IOB_Q(text));
			return -EINVAL;
		}
		if (d == 2 && len) {
			snprintf(err, errlen, "ignore_error '%s': verify errors (the third list) are not passed over: a "
					      "verify stops at its first bad block",
				 IOB_Q(text));
			return -EINVAL;
		}
		for (const char *q = p; q < p + len;) {
			const char *c = memchr(q, ':', (size_t)(p + len - q));
			size_t n = c ? (size_t)(c - q) : (size_t)(p + len - q);
			int e = c && c + 1 == p + len ? 0 : errno_of(q, n); /* "EIO:": an empty one after it */
			if (!e) {
				snprintf(err, errlen, "ignore_error '%s': '%.*s' is not an errno (a name such as EIO, "
						      "ENOSPC, or a number 1 to 4095)",
					 IOB_Q(text), (int)(n > 32 ? 32 : n), q);
				return -EINVAL;
			}
			if (d < 2) {
				if (sh->nignore[d] >= IOB_IGNORE_MAX) {
					snprintf(err, errlen, "ignore_error '%s': at most %d errnos per direction",
						 IOB_Q(text), IOB_IGNORE_MAX);
					return -EINVAL;
				}
				sh->ignore[d][sh->nignore[d]++] = e;
			}
			q += n + (c != NULL);
		}
		if (!end)
			break;
		p = end + 1;
	}
	for (int d = 0; d < 2; d++)
		if (sh->nignore[d])
			sh->continue_mask |= 1u << d;
	return 0;
}

int iob_shape_passes_error(const struct iob_shape *sh, int w, int e)
{
	if (!(sh->continue_mask >> w & 1))
		return 0;
	if (!sh->nignore[w])
		return 1; /* continue_on_error alone: any error */
	for (uint32_t i = 0; i < sh->nignore[w]; i++)
		if (sh->ignore[w][i] == e)
			return 1;
	return 0;
}

/* ---- what a shape does --------------------------------------------------------- */

int iob_shape_draws(const struct iob_shape *sh)
{
	return sh && (sh->split[0].n || sh->split[1].n || sh->dist != IOB_DIST_RANDOM || sh->seq_add || sh->sprandom ||
		      sh->rand_run > 1 || sh->zone_size);
}

int iob_shape_paces(const struct iob_shape *sh)
{
	return sh && (sh->rate[0] || sh->rate[1] || sh->rate_iops[0] || sh->rate_iops[1] || sh->think_ns || sh->flow);
}

static struct iob_flow flows[IOB_FLOW_IDS];

struct iob_flow *iob_flow_of(uint32_t id)
{
	return id < IOB_FLOW_IDS ? &flows[id] : NULL;
}

uint64_t iob_shape_bs_max(const struct iob_shape *sh, uint64_t bs)
{
	uint64_t m = 0;
	for (int d = 0; sh && d < 2; d++) {
		if (!sh->split[d].n && bs > m)
			m = bs;
		for (uint32_t i = 0; i < sh->split[d].n; i++)
			if (sh->split[d].pct[i] && sh->split[d].bs[i] > m)
				m = sh->split[d].bs[i];
	}
	return m ? m : bs;
}

uint64_t iob_shape_bs_min(const struct iob_shape *sh, uint64_t bs)
{
	uint64_t m = UINT64_MAX;
	for (int d = 0; sh && d < 2; d++) {
		if (!sh->split[d].n && bs < m)
			m = bs;
		for (uint32_t i = 0; i < sh->split[d].n; i++)
			if (sh->split[d].pct[i] && sh->split[d].bs[i] < m)
				m = sh->split[d].bs[i];
	}
	return m != UINT64_MAX ? m : bs;
}

uint64_t iob_shape_misaligned(const struct iob_shape *sh, uint64_t align)
{
	for (int d = 0; align > 1 && d < 2; d++)
		for (uint32_t i = 0; i < sh->split[d].n; i++)
			if (sh->split[d].bs[i] % align)
				return sh->split[d].bs[i];
	return 0;
}

/* ---- drawing ------------------------------------------------------------------ */

/* zipf by rejection-inversion: H is the integral of x^-s, h the density */
static double zh(double s, double x)
{
	return exp(-s * log(x));
}

static double zH(double s, double x)
{
	double lx = log(x), t = (1.0 - s) * lx;
	return fabs(t) > 1e-8 ? expm1(t) / (1.0 - s) : lx * (1.0 + t / 2.0);
}

static double zHinv(double s, double x)
{
	double t = x * (1.0 - s);
	if (t < -1.0)
		t = -1.0;
	return fabs(t) > 1e-8 ? exp(log1p(t) / (1.0 - s)) : exp(x * (1.0 - t / 2.0));
}

uint64_t iob_shape_scatter(const struct iob_shape_run *run, uint64_t x)
{
	return iob_perm_at(&run->scatter, x);
}

void iob_shape_run_init(struct iob_shape_run *run, const struct iob_shape *sh, uint64_t seed, uint64_t bs,
			uint64_t fsize, uint64_t unit, uint64_t budget)
{
	memset(run, 0, sizeof *run);
	run->budget = budget ? budget : UINT64_MAX;
	run->sh = sh;
	run->seed = seed ^ 0x7f4a7c159e3779b9ull;
	run->bs = bs;
	run->unit = unit ? unit : iob_shape_bs_min(sh, bs);
	run->fsize = fsize;
	uint64_t minbs = iob_shape_bs_min(sh, bs);
	run->nunits = fsize >= minbs ? (fsize - minbs) / run->unit + 1 : 1;
	if (sh->dist == IOB_DIST_ZIPF) {
		double s = sh->dist_param;
		run->z_hx1 = zH(s, 1.5) - 1.0;
		run->z_hn = zH(s, (double)run->nunits + 0.5);
		run->z_s = 2.0 - zHinv(s, zH(s, 2.5) - zh(s, 2.0));
	}
	iob_perm_init(&run->scatter, run->nunits, run->seed ^ 0x2545f4914f6cdd1dull);
	run->prio_rng = run->seed ^ 0x6a09e667f3bcc909ull;
	iob_shape_run_reset(run);
	if (sh->flow && sh->flow_weight) { /* before the runner's barrier: every weight is in before any I/O */
		__atomic_add_fetch(&sh->flow->weight, sh->flow_weight, __ATOMIC_RELAXED);
		run->flow_in = 1;
	}
}

int iob_shape_run_spr(struct iob_shape_run *run, uint64_t logical, uint64_t bs, char *err, size_t errlen)
{
	const struct iob_shape *sh = run->sh;
	struct iob_spr_plan plan;
	int rc = iob_spr_plan(logical, bs, sh->spr_regions, sh->spr_op, sh->spr_cs, &plan, err, errlen);
	if (rc == 0 && (rc = iob_spr_init(&run->spr, &plan, run->seed ^ 0x452821e638d01377ull)) != 0)
		snprintf(err, errlen, "sprandom: no memory for its order (%llu bytes)",
			 (unsigned long long)iob_spr_bytes(&plan));
	return rc;
}

void iob_shape_run_end(struct iob_shape_run *run)
{
	iob_spr_free(&run->spr);
	if (!run->flow_in)
		return;
	__atomic_sub_fetch(&run->sh->flow->ios, run->flow_ios, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&run->sh->flow->weight, run->sh->flow_weight, __ATOMIC_RELAXED);
	run->flow_in = 0;
	run->flow_ios = 0;
}

/* The stop flag, raised by a signal handler or by another thread (the
 * streams' supervisor): read atomically. */
static int stop_seen(const volatile sig_atomic_t *stop)
{
	return stop && __atomic_load_n(stop, __ATOMIC_RELAXED);
}

/* flow: wait while this stream's share of the flow's I/Os is above its
 * weight's share; 1 when the deadline or a stop came first. */
static int flow_wait(struct iob_shape_run *run, uint64_t deadline_ns, volatile sig_atomic_t *stop)
{
	const struct iob_shape *sh = run->sh;
	struct iob_flow *f = sh->flow;
	uint64_t nap = sh->flow_sleep_ns ? sh->flow_sleep_ns : 10000;
	for (;;) {
		uint64_t ios = __atomic_load_n(&f->ios, __ATOMIC_RELAXED);
		uint64_t weight = __atomic_load_n(&f->weight, __ATOMIC_RELAXED);
		/* mine / (ios + 1) > my weight / weight (fio counts from 1), without division */
		if (!weight || (double)run->flow_ios * (double)weight <= (double)sh->flow_weight * (double)(ios + 1))
			break;
		if (stop_seen(stop) || (deadline_ns && iob_now_ns() >= deadline_ns))
			return 1;
		iob_sleep_ns(nap, stop);
	}
	__atomic_add_fetch(&f->ios, 1, __ATOMIC_RELAXED);
	run->flow_ios++;
	return 0;
}
void iob_shape_run_reset(struct iob_shape_run *run)
{
	run->rng = run->seed;
	run->bytes_left = run->budget;
	run->run_left = 0;
	run->seq_ios[0] = run->seq_ios[1] = 0;
	run->zone_start = run->zone_bytes = run->zone_pos = run->zone_slot = 0;
	if (run->spr.pct)
		iob_spr_reset(&run->spr);
}

size_t iob_shape_len(struct iob_shape_run *run, int write)
{
	const struct iob_bssplit *sp = &run->sh->split[write ? 1 : 0];
	if (!sp->n)
		return (size_t)run->bs;
	uint32_t x = (uint32_t)(((iob_splitmix64(&run->rng) >> 32) * 100u) >> 32), acc = 0; /* 0..99 */
	for (uint32_t i = 0; i < sp->n; i++) {
		acc += sp->pct[i];
		if (x < acc)
			return (size_t)sp->bs[i];
	}
	return (size_t)sp->bs[sp->n - 1];
}

/* a rank 0 .. n-1 by the distribution (hottest first) */
static uint64_t draw_rank(struct iob_shape_run *run)
{
	const struct iob_shape *sh = run->sh;
	const uint64_t n = run->nunits;
	switch (sh->dist) {
	case IOB_DIST_ZIPF: {
		const double s = sh->dist_param;
		for (;;) {
			double u = run->z_hn + unit01(&run->rng) * (run->z_hx1 - run->z_hn);
			double x = zHinv(s, u);
			double kd = floor(x + 0.5);
			if (kd < 1)
				kd = 1;
			if (kd > (double)n)
				kd = (double)n;
			if (kd - x <= run->z_s || u >= zH(s, kd + 0.5) - zh(s, kd))
				return (uint64_t)kd - 1;
		}
	}
	case IOB_DIST_PARETO: {
		const double p = log(sh->dist_param) / log(1.0 - sh->dist_param);
		uint64_t k = (uint64_t)((double)(n - 1) * pow(unit01(&run->rng), p));
		return k < n ? k : n - 1;
	}
	case IOB_DIST_NORMAL: {
		const double sigma = sh->dist_param / 100.0 * (double)n, mid = (double)n / 2.0;
		for (;;) { /* Box-Muller, redrawn outside the file */
			double u1 = unit01(&run->rng), u2 = unit01(&run->rng);
			double z = sqrt(-2.0 * log(1.0 - u1)) * cos(6.283185307179586 * u2);
			double x = floor(mid + sigma * z);
			if (x >= 0 && x < (double)n)
				return (uint64_t)x;
		}
	}
	default:
		return iob_splitmix64(&run->rng) % n;
	}
}

static uint64_t random_offset(struct iob_shape_run *run, size_t len, uint64_t last, uint64_t unit);

/* sequence: the block of the direction's next I/O (fio's sequence
 * distribution: blocks of the smallest size, offsets in units); UINT64_MAX
 * past the file's last block */
static uint64_t sequence_offset(struct iob_shape_run *run, uint64_t last, int write)
{
	const struct iob_shape *sh = run->sh;
	const uint64_t k = run->seq_ios[write ? 1 : 0]++;
	uint64_t b = sh->seq[k % sh->nseq];
	if (sh->seq_stride)
		b += (k / sh->nseq) * sh->nseq;
	uint64_t minbs = iob_shape_bs_min(sh, run->bs);
	if (b >= run->fsize / minbs)
		return UINT64_MAX;
	return (b > last ? last : b) * run->unit;
}

uint64_t iob_shape_offset(struct iob_shape_run *run, size_t len, int write)
{
	const struct iob_shape *sh = run->sh;
	const uint64_t unit = run->unit;
	/* the last unit an I/O of len bytes may start at */
	uint64_t last = run->fsize >= len ? (run->fsize - len) / unit : 0;
	if (sh->sprandom && write) { /* its own order; UINT64_MAX: done */
		uint64_t b;
		return iob_spr_next(&run->spr, &b) ? b * unit : UINT64_MAX;
	}
	if (run->run_left && run->run_next + len <= run->fsize) { /* rand_run: the run goes on */
		run->run_left--;
		uint64_t off = run->run_next;
		run->run_next += len;
		return off;
	}
	if (sh->dist == IOB_DIST_SEQUENCE)
		return sequence_offset(run, last, write);
	if (sh->zone_size)
		return iob_shape_zone_offset(run, len, 0);
	uint64_t off = random_offset(run, len, last, unit);
	if (sh->rand_run > 1) {
		run->run_left = sh->rand_run - 1;
		run->run_next = off + len;
	}
	return off;
}

/* ---- strided zones ------------------------------------------------------------ */

/* fio 3.33 (io_u.c, setup_strided_zone_mode), traced: before each I/O, once
 * zone_size bytes are done in the zone, the next starts zone_range +
 * zone_skip on (at or past the file's end: at its start) and the I/O goes
 * on from its start; every zone_range bytes in a zone the sequential
 * position and the random map start over.  The zones go on across passes
 * (loops), as fio's do. */
uint64_t iob_shape_zone_offset(struct iob_shape_run *run, size_t len, int seq)
{
	const struct iob_shape *sh = run->sh;
	if (run->zone_bytes >= sh->zone_size) {
		run->zone_bytes = 0;
		run->zone_start += sh->zone_range + sh->zone_skip;
		if (run->zone_start >= run->fsize)
			run->zone_start = 0;
	}
	if (run->zone_bytes % sh->zone_range == 0) { /* the range starts over */
		run->zone_pos = 0;
		run->zone_slot = 0;
		if (!seq && sh->zone_map)
			iob_perm_init(&run->zone_perm, sh->zone_range >= len ? (sh->zone_range - len) / run->unit + 1 : 1,
				      iob_splitmix64(&run->rng));
	}
	uint64_t off;
	if (seq) {
		if (run->zone_pos >= sh->zone_range)
			run->zone_pos = 0;
		off = run->zone_start + run->zone_pos;
		run->zone_pos += len;
	} else {
		uint64_t n = sh->zone_range >= len ? (sh->zone_range - len) / run->unit + 1 : 1;
		uint64_t u;
		if (sh->zone_map) {
			if (run->zone_slot == run->zone_perm.n) /* a short I/O left room for more: another walk */
				iob_perm_init(&run->zone_perm, n, iob_splitmix64(&run->rng)), run->zone_slot = 0;
			u = iob_perm_at(&run->zone_perm, run->zone_slot++);
		} else {
			u = iob_splitmix64(&run->rng) % n;
		}
		off = run->zone_start + u * run->unit;
	}
	run->zone_bytes += len;
	return off;
}

uint64_t iob_shape_zones_past(const struct iob_shape *sh, uint64_t fsize, uint64_t bs, uint64_t budget, int seq)
{
	if (!sh->zone_size || !bs || !fsize)
		return 0; /* no file size to hold the zones to (none is done) */
	/* each zone before the walk comes back to the start ends before the
	 * next begins; only the last one before that may reach past the file */
	const uint64_t step = sh->zone_range + sh->zone_skip;
	const uint64_t zones = fsize / step + (fsize % step != 0); /* starts below fsize: 0, step, ... */
	const uint64_t per = (sh->zone_size + bs - 1) / bs * bs;  /* bytes done in a zone: whole I/Os */
	const uint64_t last = (zones - 1) * step;
	if (budget != UINT64_MAX && (budget + per - 1) / per < zones)
		return 0; /* the budget ends before that zone */
	uint64_t in = per;
	if (budget != UINT64_MAX && (budget + per - 1) / per == zones)
		in = budget - (zones - 1) * per; /* what the budget leaves for it */
	uint64_t reach = seq ? (in < sh->zone_range ? in : sh->zone_range) : sh->zone_range;
	return last + reach > fsize ? last + reach : 0;
}

static uint64_t random_offset(struct iob_shape_run *run, size_t len, uint64_t last, uint64_t unit)
{
	const struct iob_shape *sh = run->sh;
	uint64_t u;
	(void)len;
	if (sh->dist == IOB_DIST_ZONED || sh->dist == IOB_DIST_ZONED_ABS) {
		uint32_t x = (uint32_t)(((iob_splitmix64(&run->rng) >> 32) * 100u) >> 32), acc = 0;
		uint64_t zstart = 0, zlen = 0;
		for (uint32_t i = 0; i < sh->nzones; i++) {
			uint64_t bytes = sh->dist == IOB_DIST_ZONED
						 ? (uint64_t)((double)run->fsize * (double)sh->zones[i].size / 100.0)
						 : sh->zones[i].size;
			if (sh->zones[i].size == UINT64_MAX || zstart + bytes > run->fsize || i + 1 == sh->nzones)
				bytes = sh->dist == IOB_DIST_ZONED && i + 1 == sh->nzones ? run->fsize - zstart
					: bytes > run->fsize - zstart ? run->fsize - zstart : bytes;
			acc += sh->zones[i].access_pct;
			zlen = bytes;
			if (x < acc)
				break;
			zstart += bytes;
		}
		uint64_t first = zstart / unit, nz = zlen / unit;
		u = first + (nz ? iob_splitmix64(&run->rng) % nz : 0);
	} else if (sh->dist == IOB_DIST_RANDOM) {
		u = iob_splitmix64(&run->rng) % (last + 1);
	} else {
		u = iob_shape_scatter(run, draw_rank(run));
	}
	if (u > last)
		u = last; /* a long block near the end: it ends at the file's end */
	return u * unit;
}

/* ---- pacing ------------------------------------------------------------------- */

void iob_shape_window(struct iob_shape_run *run, uint64_t now_ns)
{
	run->t0_ns = now_ns;
	run->due_ns[0] = run->due_ns[1] = 0;
	run->ios = 0;
	run->prng = run->seed ^ 0x3c6ef372fe94f82bull;
}

int iob_shape_rate_min_missed(const struct iob_shape *sh, uint64_t rbytes, uint64_t wbytes, uint64_t rios,
			      uint64_t wios, uint64_t elapsed_ns, char *err, size_t errlen)
{
	const uint64_t bytes[2] = {rbytes, wbytes}, ios[2] = {rios, wios};
	const double secs = (double)(elapsed_ns ? elapsed_ns : 1) / 1e9;
	for (int d = 0; d < 2; d++) {
		if (!ios[d])
			continue; /* this direction did nothing: nothing to hold to a minimum */
		double bw = (double)bytes[d] / secs, iops = (double)ios[d] / secs;
		if (sh->rate_min[d] && bw < (double)sh->rate_min[d]) {
			snprintf(err, errlen, "%s at %.0f bytes/s over %.3f s, below rate_min %llu bytes/s",
				 d ? "writes" : "reads", bw, secs, (unsigned long long)sh->rate_min[d]);
			return 1;
		}
		if (sh->rate_iops_min[d] && iops < (double)sh->rate_iops_min[d]) {
			snprintf(err, errlen, "%s at %.1f I/Os per second over %.3f s, below rate_iops_min %llu",
				 d ? "writes" : "reads", iops, secs, (unsigned long long)sh->rate_iops_min[d]);
			return 1;
		}
	}
	return 0;
}

int iob_shape_dir(struct iob_shape_run *run, int write)
{
	const struct iob_shape *sh = run->sh;
	const int d = write ? 1 : 0, o = 1 - d;
	if (!sh->rate[d] && !sh->rate_iops[d])
		return write; /* not held back */
	uint64_t now = iob_now_ns() - run->t0_ns;
	double due_o = sh->rate[o] || sh->rate_iops[o] ? run->due_ns[o] : (double)now;
	if (run->due_ns[d] > (double)now && due_o < run->due_ns[d])
		return !write; /* this way must wait, the other's turn comes first */
	return write;
}

#define SLEEP_PIECE_NS 100000000ull

/* sleep until t (absolute ns), in pieces so a stop is seen; spin the last
 * spin_ns (think time's busy part) */
static void wait_until(uint64_t t, volatile sig_atomic_t *stop)
{
	for (uint64_t now = iob_now_ns(); now < t && !stop_seen(stop); now = iob_now_ns()) {
		uint64_t d = t - now;
		iob_sleep_ns(d < SLEEP_PIECE_NS ? d : SLEEP_PIECE_NS, stop);
	}
}

int iob_shape_pace(struct iob_shape_run *run, int write, size_t len, uint64_t deadline_ns,
		   volatile sig_atomic_t *stop)
{
	const struct iob_shape *sh = run->sh;
	const int d = write ? 1 : 0;
	if (run->flow_in && flow_wait(run, deadline_ns, stop))
		return 1;
	if (sh->think_ns && run->ios && run->ios % (sh->think_blocks ? sh->think_blocks : 1) == 0) {
		uint64_t start = iob_now_ns();
		uint64_t spin = sh->think_spin_ns < sh->think_ns ? sh->think_spin_ns : sh->think_ns;
		while (iob_now_ns() - start < spin && !stop_seen(stop))
			; /* busy: thinktime_spin */
		uint64_t t = start + sh->think_ns;
		if (deadline_ns && t >= deadline_ns) {
			wait_until(deadline_ns, stop);
			return 1;
		}
		wait_until(t, stop);
		if (stop_seen(stop))
			return 1; /* stopped while it thought: no I/O after the stop */
	}
	run->ios++;
	if (!sh->rate[d] && !sh->rate_iops[d])
		return 0;
	/* this I/O may start at due_ns: an even spacing (linear) or exponential
	 * gaps of the same mean (poisson), by bytes and by I/Os, the later one */
	double gap_b = sh->rate[d] ? (double)len * 1e9 / (double)sh->rate[d] : 0;
	double gap_i = sh->rate_iops[d] ? 1e9 / (double)sh->rate_iops[d] : 0;
	double gap = gap_b > gap_i ? gap_b : gap_i;
	double due = run->due_ns[d];
	if (sh->poisson)
		run->due_ns[d] += -log(1.0 - unit01(&run->prng)) * gap;
	else
		run->due_ns[d] += gap;
	/* linear: the first I/O at the start, each next one gap later; poisson:
	 * the first after an exponential gap, as a Poisson process's arrivals */
	uint64_t t = run->t0_ns + (uint64_t)(sh->poisson ? run->due_ns[d] : due);
	if (deadline_ns && t >= deadline_ns) {
		wait_until(deadline_ns, stop);
		return 1;
	}
	wait_until(t, stop);
	return stop_seen(stop); /* stopped while it waited: no I/O after the stop */
}

/* ---- the block-size histogram ----------------------------------------------------- */

void iob_bs_hist_add(struct iob_bs_hist *h, int write, uint64_t size, uint64_t ios, uint64_t bytes)
{
	uint32_t i = 0;
	while (i < h->n && h->size[i] != size)
		i++;
	if (i == h->n) {
		if (h->n == IOB_BS_HIST_MAX)
			return; /* a split has at most 2 x IOB_SPLIT_MAX sizes */
		h->size[h->n++] = size;
	}
	h->ios[write ? 1 : 0][i] += ios;
	h->bytes[write ? 1 : 0][i] += bytes;
}

void iob_bs_hist_text(const struct iob_bs_hist *h, char *out, size_t len)
{
	size_t at = 0;
	uint64_t prev = 0;
	out[0] = '\0';
	for (uint32_t k = 0; k < h->n; k++) { /* ascending: the next larger size each time */
		uint32_t best = UINT32_MAX;
		for (uint32_t i = 0; i < h->n; i++)
			if (h->size[i] > prev && (best == UINT32_MAX || h->size[i] < h->size[best]))
				best = i;
		if (best == UINT32_MAX)
			break;
		prev = h->size[best];
		int w = snprintf(out + at, at < len ? len - at : 0, "%s%llu:%llu:%llu:%llu:%llu", k ? " " : "",
				 (unsigned long long)h->size[best], (unsigned long long)h->ios[0][best],
				 (unsigned long long)h->bytes[0][best], (unsigned long long)h->ios[1][best],
				 (unsigned long long)h->bytes[1][best]);
		if (w < 0 || (size_t)w >= (at < len ? len - at : 0))
			break;
		at += (size_t)w;
	}
}
