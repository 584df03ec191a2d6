/*
 * fiojob_read.c - the reader of fio job files (sections, includes, ${VAR})
 * and fio's values: sizes, times, numbers (fiojob_int.h, docs/fio.md).
 */
#include "fiojob_int.h"

static void fval_free(struct fval *v)
{
	free(v->value);
	v->value = NULL;
}

void fj_section_free(struct fsection *s)
{
	for (int k = 0; k < fj_nkeys; k++)
		fval_free(&s->v[k]);
}

static int section_copy(struct fsection *dst, const struct fsection *src)
{
	for (int k = 0; k < fj_nkeys; k++) {
		dst->v[k] = src->v[k];
		if (src->v[k].value && !(dst->v[k].value = strdup(src->v[k].value)))
			return -ENOMEM;
	}
	return 0;
}

int fj_fail(struct reader *r, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->err, r->errlen, fmt, ap);
	va_end(ap);
	return rc;
}

/* Add word to a "a, b" list unless it is there. */
void fj_list_add(char *list, size_t len, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = list; *p;) {
		size_t l = strcspn(p, ",");
		if (l == n && strncmp(p, word, n) == 0)
			return;
		p += l;
		while (*p == ',' || *p == ' ')
			p++;
	}
	size_t o = strlen(list);
	snprintf(list + o, len - o, "%s%s", o ? ", " : "", word);
}

static int in_list(const char *list, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = list ? list : ""; *p;) {
		size_t l = strcspn(p, ",");
		const char *s = p;
		size_t sl = l;
		while (sl && *s == ' ')
			s++, sl--;
		while (sl && s[sl - 1] == ' ')
			sl--;
		if (sl == n && strncmp(s, word, n) == 0)
			return 1;
		p += l;
		if (*p == ',')
			p++;
	}
	return 0;
}

char *fj_trim(char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
		s[--n] = '\0';
	return s;
}

/* fio's keywords, replaced where they stand in a value as fio does:
 * $pagesize (bytes), $mb_memory (physical memory in MiB, rounded down),
 * $ncpus (processors online), measured here when a value uses one. */
static const char *keyword_value(const char *p, size_t *len, char *buf, size_t buflen)
{
	static const char *const words[] = {"$pagesize", "$mb_memory", "$ncpus"};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
		size_t n = strlen(words[i]);
		if (strncmp(p, words[i], n) != 0)
			continue;
		uint64_t v = i == 0 ? iob_page_size() : i == 1 ? iob_physical_memory() / (1024 * 1024) : iob_cpus_online();
		snprintf(buf, buflen, "%llu", (unsigned long long)v);
		*len = n;
		return buf;
	}
	return NULL;
}

/* ${VAR} from the environment and fio's keywords; fio's arithmetic is
 * refused by name. */
static int expand(const char *in, char *out, size_t outlen, char *why, size_t whylen)
{
	size_t o = 0;
	char kw[32];
	if (in[0] == '(') {
		snprintf(why, whylen, "fio's arithmetic expressions are not supported: write the value");
		return -EINVAL;
	}
	for (const char *p = in; *p;) {
		const char *v = NULL;
		size_t vl = 1;
		char name[256];
		size_t kl = 0;
		if (p[0] == '$' && (v = keyword_value(p, &kl, kw, sizeof kw)) != NULL) {
			vl = strlen(v);
			p += kl;
		} else if (p[0] == '$' && p[1] == '{') {
			const char *end = strchr(p + 2, '}');
			size_t nl = end ? (size_t)(end - p - 2) : 0;
			if (!end || nl == 0 || nl >= sizeof name) {
				snprintf(why, whylen, "bad variable reference in '%s' (use ${NAME})", IOB_Q(in));
				return -EINVAL;
			}
			memcpy(name, p + 2, nl);
			name[nl] = '\0';
			for (const char *c = name; *c; c++)
				if (!(isalnum((unsigned char)*c) || *c == '_')) {
					snprintf(why, whylen, "bad variable name '%s' in '%s'", IOB_Q(name), IOB_Q(in));
					return -EINVAL;
				}
			v = getenv(name);
			if (!v) {
				snprintf(why, whylen, "environment variable %s is not set", name);
				return -ENOENT;
			}
			vl = strlen(v);
			p = end + 1;
		} else {
			v = p++;
		}
		if (o + vl >= outlen) {
			snprintf(why, whylen, "value too long after expanding '%s'", IOB_Q(in));
			return -E2BIG;
		}
		memcpy(out + o, v, vl);
		o += vl;
	}
	out[o] = '\0';
	return 0;
}


/* `include NAME` (the rest of the line): NAME relative to the including file. */
static int do_include(struct reader *r, const char *path, const char *where, char *arg)
{
	char name[FIO_LINE_MAX], why[512], dir[4096], inc[8192];
	int rc = expand(fj_trim(arg), name, sizeof name, why, sizeof why);
	if (rc && r->depth > 1)
		return fj_fail(r, -EINVAL, "%s: include: a bad file name (%s)", where, INCLUDED_HIDDEN);
	if (rc)
		return fj_fail(r, -EINVAL, "%s: include: %s", where, why);
	if (!name[0])
		return fj_fail(r, -EINVAL, "%s: include: no file named", where);
	if (!r->cur)
		return fj_fail(r, -EINVAL, "%s: include outside any section (put it under [global] or a job)", where);
	iob_path_dir(path, dir, sizeof dir);
	if (iob_path_absolute(name))
		snprintf(inc, sizeof inc, "%s", name);
	else
		snprintf(inc, sizeof inc, "%s/%s", dir, name);
	enum iob_path_kind k = iob_path_kind(inc, 1);
	if (k != IOB_PATH_REGULAR && r->depth > 1)
		return fj_fail(r, -ENOENT, "%s: include: the file named %s (%s)",
			    where, k == IOB_PATH_MISSING ? "does not exist" : "is not a regular file", INCLUDED_HIDDEN);
	if (k != IOB_PATH_REGULAR)
		return fj_fail(r, -ENOENT, "%s: include: '%s' %s", where, IOB_Q(inc),
			    k == IOB_PATH_MISSING ? "does not exist" : "is not a regular file");
	return fj_read_file(r, inc, 1);
}

static int new_section(struct reader *r, const char *name, const char *where, int included)
{
	if (included)
		return fj_fail(r, -EINVAL, "%s: an included file may not hold sections (fio's rule; %s)", where,
			    INCLUDED_HIDDEN);
	if (!*name)
		return fj_fail(r, -EINVAL, "%s: the section name is empty", where);
	if (strcmp(name, "global") == 0) {
		r->cur = &r->global;
		return 0;
	}
	if (r->njobs >= IOB_MAX_JOBS)
		return fj_fail(r, -E2BIG, "%s: more than %d jobs", where, IOB_MAX_JOBS);
	struct fsection *s = &r->jobs[r->njobs];
	memset(s, 0, sizeof *s);
	if (strlen(name) >= sizeof s->name)
		return fj_fail(r, -ENAMETOOLONG, "%s: [%s]: section name too long", where, IOB_Q(name));
	snprintf(s->name, sizeof s->name, "%s", name);
	snprintf(s->where, sizeof s->where, "%s", where);
	r->njobs++;
	if (section_copy(s, &r->global) != 0)
		return fj_fail(r, -ENOMEM, "out of memory");
	r->cur = s;
	return 0;
}

/* One KEY[=VALUE] into the current section (or every job: --set). */
int fj_set_key(struct reader *r, struct fsection *s, const char *key, const char *value, const char *where)
{
	char val[FIO_LINE_MAX], why[512];
	int k = fj_key_lookup(key);
	if (r->opts && in_list(r->opts->ignore, key)) {
		fj_list_add(r->ignored, sizeof r->ignored, key);
		return 0;
	}
	/* a line of an included file may be anything (include /etc/shadow):
	 * its messages name the file and line, never its text */
	int included = r->depth > 1;
	if (k < 0 && included)
		return fj_fail(r, -EINVAL, "%s: not a fio key iobench maps (%s)", where, INCLUDED_HIDDEN);
	if (k < 0) {
		char q[128];
		fj_list_add(r->unknown, sizeof r->unknown, iob_quote(key, q, sizeof q));
		return 0;
	}
	if (value) {
		int rc = expand(value, val, sizeof val, why, sizeof why);
		if (rc && included)
			return fj_fail(r, rc, "%s: %s: a bad value (%s)", where, fj_keys[k].name, INCLUDED_HIDDEN);
		if (rc)
			return fj_fail(r, rc, "%s: %s: %s", where, key, why);
	}
	struct fval *v = &s->v[k];
	fval_free(v);
	if (!(v->value = strdup(value ? val : "")))
		return fj_fail(r, -ENOMEM, "out of memory");
	v->bare = value == NULL;
	v->included = included;
	snprintf(v->where, sizeof v->where, "%s", where);
	return 0;
}

static int parse_line(struct reader *r, const char *path, size_t lineno, char *line, int included)
{
	char where[FIO_WHERE_MAX], shown[128];
	snprintf(where, sizeof where, "%.120s:%zu", path, lineno);
	line[strcspn(line, ";#")] = '\0'; /* a comment, anywhere on the line, as fio reads it */
	char *t = fj_trim(line);
	if (!*t)
		return 0;
	if (included) /* its text is never shown */
		snprintf(shown, sizeof shown, "(%s)", INCLUDED_HIDDEN);
	else
		iob_quote(t, shown, sizeof shown);
	if (*t == '[') {
		char *close = strchr(t, ']');
		if (!close || *fj_trim(close + 1))
			return fj_fail(r, -EINVAL, "%s: bad section header %s%s%s", where, included ? "" : "'", shown,
				    included ? "" : "'");
		*close = '\0';
		return new_section(r, fj_trim(t + 1), where, included);
	}
	if (strncmp(t, "include", 7) == 0 && (t[7] == ' ' || t[7] == '\t'))
		return do_include(r, path, where, t + 8);
	if (!r->cur)
		return fj_fail(r, -EINVAL, "%s: '%s' outside any section (put it under [global] or a job)", where, shown);
	char *eq = strchr(t, '=');
	char *value = NULL;
	if (eq) {
		*eq = '\0';
		value = fj_trim(eq + 1);
	}
	char *key = fj_trim(t);
	if (!*key)
		return fj_fail(r, -EINVAL, "%s: a value without a key", where);
	for (const char *c = key; *c; c++)
		if (!(isalnum((unsigned char)*c) || *c == '_')) {
			if (included)
				return fj_fail(r, -EINVAL, "%s: not a key (letters, digits and _) %s", where, shown);
			return fj_fail(r, -EINVAL, "%s: '%s' is not a key (letters, digits and _)", where, IOB_Q(key));
		}
	return fj_set_key(r, r->cur, key, value, where);
}

int fj_read_file(struct reader *r, const char *path, int included)
{
	char real[4096];
	if (iob_real_path(path, real, sizeof real) != 0)
		snprintf(real, sizeof real, "%s", path);
	for (size_t i = 0; i < r->depth; i++)
		if (strcmp(r->real_stack[i], real) == 0)
			return fj_fail(r, -ELOOP, "%s: include loop: %s is already being read", path, real);
	if (r->depth > IOB_MAX_INCLUDE_DEPTH)
		return fj_fail(r, -ELOOP, "%s: includes nested more than %d deep", path, IOB_MAX_INCLUDE_DEPTH);
	FILE *f = iob_fopen(path, "re");
	if (!f) {
		int e = errno;
		return fj_fail(r, -e, "%s: cannot open: %s", path, strerror(e));
	}
	char **src = realloc(r->suite->sources, (r->suite->nsources + 1) * sizeof *src);
	if (src) {
		r->suite->sources = src;
		if ((src[r->suite->nsources] = strdup(real)) != NULL)
			r->suite->nsources++;
	}
	snprintf(r->real_stack[r->depth++], sizeof r->real_stack[0], "%s", real);
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	long len;
	int rc = 0;
	while (rc == 0 && (len = iob_getline(&line, &cap, f)) != -1) {
		lineno++;
		char *l = line;
		if (lineno == 1 && len >= 3 && memcmp(l, "\xef\xbb\xbf", 3) == 0) {
			l += 3;
			len -= 3;
		}
		long text = len; /* without its line end */
		while (text > 0 && (l[text - 1] == '\n' || l[text - 1] == '\r'))
			text--;
		if (text > FIO_LINE_MAX) {
			rc = fj_fail(r, -E2BIG, "%s:%zu: line is %ld characters long, over the %d-character limit", path, lineno,
				  text, FIO_LINE_MAX);
			break;
		}
		for (long i = 0; i < len && rc == 0; i++) {
			unsigned char c = (unsigned char)l[i];
			if (((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) && included)
				rc = fj_fail(r, -EINVAL, "%s:%zu: binary data (not a text job file; %s)", path, lineno,
					  INCLUDED_HIDDEN);
			else if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
				rc = fj_fail(r, -EINVAL, "%s:%zu: binary data (byte 0x%02x; not a text job file)", path,
					  lineno, c);
		}
		if (rc == 0)
			rc = parse_line(r, path, lineno, l, included);
	}
	if (rc == 0 && ferror(f))
		rc = fj_fail(r, -EIO, "%s: read error", path);
	free(line);
	fclose(f);
	r->depth--;
	return rc;
}

/* ---- values --------------------------------------------------------------- */

/* fio's sizes: [0x]digits, then an optional prefix k m g t p (any case),
 * 'i' after it for the other base, and an optional b.  With kb_base 1024
 * (fio's default) k = 1024 and ki = 1000; with 1000 the other way round. */
int fj_fio_size(const char *text, int kb1000, uint64_t *out, char *why, size_t whylen)
{
	const char *p = text;
	uint64_t v = 0;
	int base = 10, digits = 0;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	for (; isxdigit((unsigned char)*p) && (base == 16 || isdigit((unsigned char)*p)); p++, digits++) {
		unsigned d = isdigit((unsigned char)*p) ? (unsigned)(*p - '0') : (unsigned)(tolower((unsigned char)*p) - 'a' + 10);
		if (v > (UINT64_MAX - d) / (unsigned)base) {
			snprintf(why, whylen, "'%s' is too large", IOB_Q(text));
			return -ERANGE;
		}
		v = v * (unsigned)base + d;
	}
	if (!digits) {
		snprintf(why, whylen, "'%s' is not a size (a whole number and an optional unit: 4k, 1m, 10g)", IOB_Q(text));
		return -EINVAL;
	}
	if (*p == '%') {
		snprintf(why, whylen, "'%s': a size as a percentage is not supported", IOB_Q(text));
		return -EINVAL;
	}
	if (*p == '.') {
		snprintf(why, whylen, "'%s': a fraction is not supported (write 1536k, not 1.5m)", IOB_Q(text));
		return -EINVAL;
	}
	static const char prefixes[] = "kmgtp";
	int power = 0, iec = 0;
	const char *pre = *p ? strchr(prefixes, tolower((unsigned char)*p)) : NULL;
	if (pre) {
		power = (int)(pre - prefixes) + 1;
		p++;
		if (*p == 'i' || *p == 'I') {
			iec = 1;
			p++;
		}
	}
	if (*p == 'b' || *p == 'B')
		p++;
	if (*p) {
		snprintf(why, whylen, "'%s' has an unknown unit (use k, m, g, t, p, with i and b as fio allows)", IOB_Q(text));
		return -EINVAL;
	}
	uint64_t mult = (iec ? kb1000 : !kb1000) ? 1024 : 1000;
	for (int i = 0; i < power; i++) {
		if (v > UINT64_MAX / mult) {
			snprintf(why, whylen, "'%s' is too large", IOB_Q(text));
			return -ERANGE;
		}
		v *= mult;
	}
	*out = v;
	return 0;
}

/* fio's times: a whole number and an optional unit (any case): d h m s sec
 * ms msec us usec; none = def_ns per unit (seconds or milliseconds). */
int fj_fio_time(const char *text, uint64_t def_ns, uint64_t *out, char *why, size_t whylen)
{
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = {{"d", 86400000000000ull}, {"h", 3600000000000ull}, {"m", 60000000000ull}, {"s", 1000000000ull},
		     {"sec", 1000000000ull},	   {"ms", 1000000ull},	      {"msec", 1000000ull},  {"us", 1000ull},
		     {"usec", 1000ull}};
	const char *p = text;
	uint64_t v = 0;
	for (; isdigit((unsigned char)*p); p++) {
		if (v > (UINT64_MAX - 9) / 10) {
			snprintf(why, whylen, "'%s' is too large", IOB_Q(text));
			return -ERANGE;
		}
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p == text) {
		snprintf(why, whylen, "'%s' is not a time (a whole number and an optional unit: 30, 30s, 500ms, 2m)",
			 IOB_Q(text));
		return -EINVAL;
	}
	uint64_t mult = def_ns;
	if (*p) {
		mult = 0;
		for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
			if (strcasecmp(p, units[i].unit) == 0)
				mult = units[i].ns;
		if (!mult) {
			snprintf(why, whylen, "'%s' has an unknown unit (use d, h, m, s, ms or us)", IOB_Q(text));
			return -EINVAL;
		}
	}
	if (v > UINT64_MAX / mult) {
		snprintf(why, whylen, "'%s' is too large", IOB_Q(text));
		return -ERANGE;
	}
	*out = v * mult;
	return 0;
}

int fj_fio_uint(const char *text, uint64_t max, uint64_t *out, char *why, size_t whylen)
{
	int rc = iob_parse_u64(text, out, why, whylen);
	if (rc == 0 && *out > max) {
		snprintf(why, whylen, "'%s' is over the limit of %llu", IOB_Q(text), (unsigned long long)max);
		return -ERANGE;
	}
	return rc;
}
