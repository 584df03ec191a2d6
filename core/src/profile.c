/*
 * profile.c - INI profiles to job specs (iobench/profile.h).
 *
 * The key table (iob_keys, keys.c) is the one list of job keys: this file
 * reads INI text into them, and iob_profile_write writes them back.
 * iniparser reads the values; a light pre-scan of the raw text catches what
 * iniparser would silently accept: duplicate sections and keys, keys outside
 * any section, binary junk, and lines too long for it.
 */
#include "iobench/profile.h"
#include "iobench/coord.h"
#include "iobench/os.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <iniparser.h>

#include "iobench/plugin.h"
#include "iobench/units.h"

#define MAX_LINE 1000 /* iniparser's own limit is 1024 */

/* ---- the raw pre-scan ---------------------------------------------------- */

struct kv {
	char *key, *value, *file; /* value already expanded */
};

struct kvlist {
	size_t n, cap;
	struct kv *v;
};

static void kvlist_free(struct kvlist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].key);
		free(l->v[i].value);
		free(l->v[i].file);
	}
	free(l->v);
	memset(l, 0, sizeof *l);
}

static int kvlist_add(struct kvlist *l, const char *key, const char *value, const char *file)
{
	if (iob_grow(&l->v, &l->cap, l->n, sizeof *l->v, 16) < 0)
		return -ENOMEM;
	struct kv *e = &l->v[l->n];
	e->key = strdup(key);
	e->value = strdup(value);
	e->file = strdup(file);
	if (!e->key || !e->value || !e->file) {
		free(e->key);
		free(e->value);
		free(e->file);
		return -ENOMEM;
	}
	l->n++;
	return 0;
}

static void lower(char *s)
{
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* Structure checks iniparser does not make.  Fills sections in file order;
 * *bom says the file starts with a UTF-8 byte order mark (skipped here). */
static int prescan(const char *path, char ***sections, size_t *nsec, int *bom, char *err, size_t errlen)
{
	FILE *f = iob_fopen(path, "re");
	char *line = NULL, cur[256] = "";
	size_t cap = 0, lineno = 0;
	long len;
	int rc = 0, cont = 0;
	struct kvlist seen = {0};

	*sections = NULL;
	*nsec = 0;
	*bom = 0;
	if (!f) {
		int e = errno;
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(e));
		return -e;
	}
	while (rc == 0 && (len = iob_getline(&line, &cap, f)) != -1) {
		lineno++;
		if (lineno == 1 && len >= 3 && memcmp(line, "\xef\xbb\xbf", 3) == 0) {
			memmove(line, line + 3, (size_t)len - 2); /* the terminating NUL too */
			len -= 3;
			*bom = 1;
		}
		if (memchr(line, '\0', (size_t)len) || (len > 0 && memchr(line, '\x7f', (size_t)len))) {
			snprintf(err, errlen, "%s:%zu: binary data (not a text profile)", path, lineno);
			rc = -EINVAL;
			break;
		}
		for (ssize_t i = 0; i < len; i++)
			if ((unsigned char)line[i] < 0x20 && line[i] != '\t' && line[i] != '\n' && line[i] != '\r') {
				snprintf(err, errlen, "%s:%zu: control character 0x%02x (not a text profile)", path,
					 lineno, (unsigned char)line[i]);
				rc = -EINVAL;
				break;
			}
		if (rc)
			break;
		if (len > MAX_LINE) {
			snprintf(err, errlen, "%s:%zu: line is %ld characters long, over the %d-character limit", path,
				 lineno, len, MAX_LINE);
			rc = -E2BIG;
			break;
		}
		char *t = trim(line);
		int was_cont = cont;
		size_t tl = strlen(t);
		cont = tl && t[tl - 1] == '\\';
		if (was_cont || !*t || *t == ';' || *t == '#')
			continue;
		if (*t == '[') {
			char *close = strchr(t, ']');
			if (!close || close == t + 1) {
				snprintf(err, errlen, "%s:%zu: bad section header '%s'", path, lineno, IOB_Q(t));
				rc = -EINVAL;
				break;
			}
			const char *after = close + 1;
			while (isspace((unsigned char)*after))
				after++;
			if (*after && *after != ';' && *after != '#') {
				snprintf(err, errlen, "%s:%zu: text after the section header '%s'", path, lineno, IOB_Q(t));
				rc = -EINVAL;
				break;
			}
			*close = '\0';
			char *name = trim(t + 1);
			if (!*name) { /* "[  ]": no name, as "[]" (a job must be named) */
				snprintf(err, errlen, "%s:%zu: bad section header: the name is empty", path,
					 lineno);
				rc = -EINVAL;
				break;
			}
			lower(name);
			for (const char *c = name; *c; c++)
				if (!(isalnum((unsigned char)*c) || *c == '_' || *c == '-' || *c == '.')) {
					snprintf(err, errlen, "%s:%zu: section name '%s' may only use letters, digits, _ - .",
						 path, lineno, name);
					rc = -EINVAL;
					break;
				}
			if (rc)
				break;
			for (size_t i = 0; i < *nsec; i++)
				if (strcmp((*sections)[i], name) == 0) {
					snprintf(err, errlen, "%s:%zu: duplicate section [%s]", path, lineno, name);
					rc = -EEXIST;
				}
			if (rc)
				break;
			char **ns = realloc(*sections, (*nsec + 1) * sizeof *ns);
			if (!ns || !(ns[*nsec] = strdup(name))) {
				if (ns)
					*sections = ns;
				rc = -ENOMEM;
				break;
			}
			*sections = ns;
			(*nsec)++;
			snprintf(cur, sizeof cur, "%s", name);
			kvlist_free(&seen);
			continue;
		}
		char *eq = strchr(t, '=');
		if (!eq) {
			snprintf(err, errlen, "%s:%zu: expected 'key = value', got '%s'", path, lineno, IOB_Q(t));
			rc = -EINVAL;
			break;
		}
		*eq = '\0';
		char *key = trim(t);
		lower(key);
		if (!cur[0]) {
			snprintf(err, errlen, "%s:%zu: key '%s' outside any section (put it under [global])", path, lineno,
				 key);
			rc = -EINVAL;
			break;
		}
		for (size_t i = 0; i < seen.n; i++)
			if (strcmp(seen.v[i].key, key) == 0) {
				snprintf(err, errlen, "%s: [%s] %s: duplicate key (line %zu)", path, cur, key, lineno);
				rc = -EEXIST;
			}
		if (rc == 0)
			rc = kvlist_add(&seen, key, "", "");
	}
	if (rc == 0 && ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		rc = -EIO;
	}
	free(line);
	kvlist_free(&seen);
	fclose(f);
	if (rc != 0) {
		for (size_t i = 0; i < *nsec; i++)
			free((*sections)[i]);
		free(*sections);
		*sections = NULL;
		*nsec = 0;
	}
	return rc;
}

/* ---- ${VAR} expansion ------------------------------------------------------ */

static int expand(const char *in, char *out, size_t outlen, char *err, size_t errlen)
{
	size_t o = 0;
	for (const char *p = in; *p;) {
		if (p[0] == '$' && p[1] == '$') { /* "$$" is a literal "$" */
			if (o + 1 >= outlen) {
				snprintf(err, errlen, "value too long: '%s'", IOB_Q(in));
				return -E2BIG;
			}
			out[o++] = '$';
			p += 2;
			continue;
		}
		if (p[0] == '$' && p[1] == '{') {
			const char *end = strchr(p + 2, '}');
			char name[256], *def = NULL;
			if (!end || (size_t)(end - p - 2) >= sizeof name || end == p + 2) {
				snprintf(err, errlen, "bad variable reference in '%s' (use ${NAME} or ${NAME:-default})", IOB_Q(in));
				return -EINVAL;
			}
			memcpy(name, p + 2, (size_t)(end - p - 2));
			name[end - p - 2] = '\0';
			char *dflt = strstr(name, ":-");
			if (dflt) {
				*dflt = '\0';
				def = dflt + 2;
			}
			for (const char *c = name; *c; c++)
				if (!(isalnum((unsigned char)*c) || *c == '_')) {
					snprintf(err, errlen, "bad variable name '%s' in '%s'", IOB_Q(name), IOB_Q(in));
					return -EINVAL;
				}
			const char *v = getenv(name);
			char rank[16];
			/* ${RANK}: the MPI rank under mpirun, else the variable, else 0 (docs/mpi.md) */
			if (strcmp(name, "RANK") == 0 && (iob_coord_active() || !v)) {
				snprintf(rank, sizeof rank, "%d", iob_coord_rank());
				v = rank;
			}
			if (!v || (!*v && def))
				v = def;
			if (!v) {
				snprintf(err, errlen, "environment variable %s is not set (in '%s')", name, IOB_Q(in));
				return -ENOENT;
			}
			size_t vl = strlen(v);
			if (o + vl >= outlen) {
				snprintf(err, errlen, "value too long after expanding '%s'", IOB_Q(in));
				return -E2BIG;
			}
			memcpy(out + o, v, vl);
			o += vl;
			p = end + 1;
			continue;
		}
		if (o + 1 >= outlen) {
			snprintf(err, errlen, "value too long: '%s'", IOB_Q(in));
			return -E2BIG;
		}
		out[o++] = *p++;
	}
	out[o] = '\0';
	return 0;
}

/* ---- loading --------------------------------------------------------------- */

static char iniparser_msg[512];

static int capture_iniparser_error(const char *fmt, ...) IOB_PRINTF(1, 2);
static int capture_iniparser_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(iniparser_msg, sizeof iniparser_msg, fmt, ap);
	va_end(ap);
	char *nl = strchr(iniparser_msg, '\n');
	if (nl)
		*nl = '\0'; /* one line: iniparser adds the offending text on a second */
	return 0;
}

/* A private copy of the file for iniparser, without its byte order mark
 * when bom != 0. */
static int copy_without_bom(const char *path, char *tmp, size_t tmplen, int bom)
{
	FILE *f = iob_fopen(path, "rbe");
	char *text = NULL;
	size_t len = 0, cap = 0;
	int rc = 0;
	if (!f)
		return -errno;
	for (;;) {
		if (len == cap) {
			char *t = realloc(text, cap = cap ? cap * 2 : 65536);
			if (!t) {
				rc = -ENOMEM;
				break;
			}
			text = t;
		}
		size_t got = fread(text + len, 1, cap - len, f);
		len += got;
		if (got == 0) {
			rc = ferror(f) ? -EIO : 0;
			break;
		}
	}
	fclose(f);
	if (rc == 0 && bom && (len < 3 || memcmp(text, "\xef\xbb\xbf", 3) != 0))
		rc = -EAGAIN; /* changed since the pre-scan */
	if (rc == 0)
		rc = iob_write_temp(text + (bom ? 3 : 0), len - (bom ? 3 : 0), tmp, tmplen);
	free(text);
	return rc;
}

/* iniparser's dictionary of path (of a copy without its BOM), or NULL with
 * a one-line reason naming path. */
static dictionary *parse_ini(const char *path, int bom, char *err, size_t errlen)
{
	char tmp[4096];
	const char *src = path;
	int copy = bom;
#ifdef _WIN32
	copy = 1; /* iniparser opens by name in the ANSI code page: a copy under TEMP */
#endif
	if (copy) {
		int rc = copy_without_bom(path, tmp, sizeof tmp, bom);
		if (rc) {
			snprintf(err, errlen, "%s: cannot read it again: %s", path, strerror(-rc));
			return NULL;
		}
		src = tmp;
	}
	iniparser_msg[0] = '\0';
	iniparser_set_error_callback(capture_iniparser_error);
	dictionary *d = iniparser_load(src);
	if (copy)
		iob_remove_file(tmp);
	if (!d) {
		char *at = copy ? strstr(iniparser_msg, tmp) : NULL;
		if (at) /* name the user's file, not the copy */
			snprintf(err, errlen, "%s: %.*s%s%s", path, (int)(at - iniparser_msg), iniparser_msg, path,
				 at + strlen(tmp));
		else
			snprintf(err, errlen, "%s: %s", path, iniparser_msg[0] ? iniparser_msg : "cannot be parsed");
	}
	return d;
}

struct loadctx {
	const char *stack[IOB_MAX_INCLUDE_DEPTH + 1]; /* the profile, then its nested includes */
	size_t depth;
	struct iob_suite *suite;
};

static int load_file(struct loadctx *ctx, const char *path, struct kvlist *globals, char *err, size_t errlen);

static int do_includes(struct loadctx *ctx, const char *path, const char *list, struct kvlist *globals, char *err,
		       size_t errlen)
{
	char buf[4096], dir[4096];
	if (strlen(list) >= sizeof buf) {
		snprintf(err, errlen, "%s: [global] include: list too long", path);
		return -E2BIG;
	}
	snprintf(buf, sizeof buf, "%s", list);
	iob_path_dir(path, dir, sizeof dir);
	char *save = NULL;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *name = trim(t), inc[8192];
		if (!*name) {
			snprintf(err, errlen, "%s: [global] include: empty file name in '%s'", path, IOB_Q(list));
			return -EINVAL;
		}
		if (iob_path_absolute(name))
			snprintf(inc, sizeof inc, "%s", name);
		else
			snprintf(inc, sizeof inc, "%s/%s", dir, name);
		if (iob_path_kind(inc, 1) != IOB_PATH_REGULAR) {
			snprintf(err, errlen, "%s: [global] include: '%s' %s", path, IOB_Q(inc),
				 iob_path_kind(inc, 1) == IOB_PATH_MISSING ? "does not exist" : "is not a regular file");
			return -ENOENT;
		}
		int rc = load_file(ctx, inc, globals, err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

static int build_job(const char *path, const char *sec, const struct kvlist *globals, dictionary *d,
		     struct iob_job *job, char *err, size_t errlen)
{
	char why[600], val[4096];
	iob_job_defaults(job);
	if (strlen(sec) >= sizeof job->name) {
		snprintf(err, errlen, "%s: [%s]: section name longer than %zu characters", path, sec, sizeof job->name - 1);
		return -ENAMETOOLONG;
	}
	snprintf(job->name, sizeof job->name, "%s", sec);
	for (size_t i = 0; i < globals->n; i++) {
		const struct kv *g = &globals->v[i];
		if (iob_job_set(job, g->key, g->value, why, sizeof why) != 0) {
			snprintf(err, errlen, "%s: [global] %s: %s", g->file, g->key, why);
			return -EINVAL;
		}
	}
	int nkeys = iniparser_getsecnkeys(d, sec);
	const char **keys = nkeys > 0 ? calloc((size_t)nkeys, sizeof *keys) : NULL;
	if (nkeys > 0 && (!keys || !iniparser_getseckeys(d, sec, keys))) {
		free(keys);
		snprintf(err, errlen, "%s: [%s]: out of memory", path, sec);
		return -ENOMEM;
	}
	int rc = 0;
	for (int i = 0; i < nkeys && rc == 0; i++) {
		const char *key = strchr(keys[i], ':') ? strchr(keys[i], ':') + 1 : keys[i];
		const char *raw = iniparser_getstring(d, keys[i], "");
		if (strcmp(key, "include") == 0) {
			snprintf(err, errlen, "%s: [%s] include: only allowed in [global]", path, sec);
			rc = -EINVAL;
		} else if ((rc = expand(raw, val, sizeof val, why, sizeof why)) != 0 ||
			   (rc = iob_job_set(job, key, val, why, sizeof why)) != 0) {
			snprintf(err, errlen, "%s: [%s] %s: %s", path, sec, key, why);
		}
	}
	free(keys);
	if (rc)
		return rc;
	if (!job->filename[0])
		snprintf(job->filename, sizeof job->filename, "iobench.%s.dat", job->name);
	/* the job as a whole (keys that contradict each other) is validated once,
	 * by the runner's checks (iob_suite_check), for profiles and legacy
	 * command lines alike */
	return 0;
}

static int load_file(struct loadctx *ctx, const char *path, struct kvlist *globals, char *err, size_t errlen)
{
	char real[4096], val[4096], why[600];
	char **sections = NULL;
	size_t nsec = 0;
	int rc;

	if (iob_real_path(path, real, sizeof real) != 0)
		snprintf(real, sizeof real, "%s", path);
	for (size_t i = 0; i < ctx->depth; i++)
		if (strcmp(ctx->stack[i], real) == 0) {
			snprintf(err, errlen, "%s: include loop: %s is already being read", path, real);
			return -ELOOP;
		}
	if (ctx->depth > IOB_MAX_INCLUDE_DEPTH) {
		snprintf(err, errlen, "%s: includes nested more than %d deep", path, IOB_MAX_INCLUDE_DEPTH);
		return -ELOOP;
	}
	int bom;
	rc = prescan(path, &sections, &nsec, &bom, err, errlen);
	if (rc)
		return rc;
	dictionary *d = parse_ini(path, bom, err, errlen);
	if (!d) {
		rc = -EINVAL;
		goto out;
	}
	ctx->stack[ctx->depth++] = real;
	char **src = realloc(ctx->suite->sources, (ctx->suite->nsources + 1) * sizeof *src);
	if (src && (src[ctx->suite->nsources] = strdup(real)) != NULL)
		ctx->suite->nsources++;
	if (src)
		ctx->suite->sources = src;

	/* [global]: includes first, then this file's own keys on top */
	struct kvlist mine = {0};
	for (size_t s = 0; s < nsec && rc == 0; s++) {
		if (strcmp(sections[s], "global") != 0)
			continue;
		int nkeys = iniparser_getsecnkeys(d, "global");
		const char **keys = nkeys > 0 ? calloc((size_t)nkeys, sizeof *keys) : NULL;
		if (nkeys > 0 && (!keys || !iniparser_getseckeys(d, "global", keys)))
			rc = -ENOMEM;
		const char *inc = iniparser_getstring(d, "global:include", NULL);
		if (rc == 0 && inc) {
			if ((rc = expand(inc, val, sizeof val, why, sizeof why)) != 0)
				snprintf(err, errlen, "%s: [global] include: %s", path, why);
			else
				rc = do_includes(ctx, path, val, globals, err, errlen);
		}
		for (int i = 0; i < nkeys && rc == 0; i++) {
			const char *key = strchr(keys[i], ':') ? strchr(keys[i], ':') + 1 : keys[i];
			if (strcmp(key, "include") == 0)
				continue;
			struct iob_job probe;
			iob_job_defaults(&probe);
			if ((rc = expand(iniparser_getstring(d, keys[i], ""), val, sizeof val, why, sizeof why)) != 0 ||
			    (rc = iob_job_set(&probe, key, val, why, sizeof why)) != 0)
				snprintf(err, errlen, "%s: [global] %s: %s", path, key, why);
			else
				rc = kvlist_add(&mine, key, val, path);
		}
		free(keys);
	}
	for (size_t i = 0; i < mine.n && rc == 0; i++)
		rc = kvlist_add(globals, mine.v[i].key, mine.v[i].value, mine.v[i].file);
	kvlist_free(&mine);

	for (size_t s = 0; s < nsec && rc == 0; s++) {
		if (strcmp(sections[s], "global") == 0)
			continue;
		if (ctx->suite->njobs >= IOB_MAX_JOBS) {
			snprintf(err, errlen, "%s: more than %d jobs", path, IOB_MAX_JOBS);
			rc = -E2BIG;
			break;
		}
		for (size_t j = 0; j < ctx->suite->njobs; j++)
			if (strcmp(ctx->suite->jobs[j].name, sections[s]) == 0) {
				snprintf(err, errlen, "%s: [%s]: a job of that name was already included", path, sections[s]);
				rc = -EEXIST;
			}
		if (rc)
			break;
		rc = build_job(path, sections[s], globals, d, &ctx->suite->jobs[ctx->suite->njobs], err, errlen);
		if (rc == 0)
			ctx->suite->njobs++;
	}
	ctx->depth--;
	iniparser_freedict(d);
out:
	for (size_t i = 0; i < nsec; i++)
		free(sections[i]);
	free(sections);
	return rc;
}

int iob_profile_load(const char *path, struct iob_suite *suite, char *err, size_t errlen)
{
	struct loadctx ctx = {.suite = suite};
	struct kvlist globals = {0};
	memset(suite, 0, sizeof *suite);
	if (iob_path_kind(path, 1) != IOB_PATH_REGULAR) {
		snprintf(err, errlen, "%s: %s", path,
			 iob_path_kind(path, 1) == IOB_PATH_MISSING ? "no such profile" : "not a regular file");
		return -ENOENT;
	}
	suite->jobs = calloc(IOB_MAX_JOBS, sizeof *suite->jobs);
	if (!suite->jobs) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	int rc = load_file(&ctx, path, &globals, err, errlen);
	kvlist_free(&globals);
	if (rc == 0 && suite->njobs == 0) {
		snprintf(err, errlen, "%s: no job sections (add a section such as [seq-read] below [global])", path);
		rc = -EINVAL;
	}
	if (rc)
		iob_suite_free(suite);
	return rc;
}

int iob_profile_load_string(const char *name, const char *text, struct iob_suite *suite, char *err, size_t errlen)
{
	char path[4096];
	int rc = iob_write_temp(text, strlen(text), path, sizeof path);
	if (rc) {
		snprintf(err, errlen, "%s: cannot write a temporary copy: %s", name, strerror(-rc));
		return rc;
	}
	rc = iob_profile_load(path, suite, err, errlen);
	iob_remove_file(path);
	return rc;
}

void iob_suite_free(struct iob_suite *suite)
{
	for (size_t i = 0; i < suite->nsources; i++)
		free(suite->sources[i]);
	free(suite->sources);
	for (size_t i = 0; i < suite->nnotes; i++)
		free(suite->notes[i]);
	free(suite->notes);
	free(suite->prepare);
	free(suite->jobs);
	memset(suite, 0, sizeof *suite);
}

/* A free-text value that iniparser and expand() read back unchanged: '$'
 * doubled, and quoted when it has edge spaces, ';', '#' or a leading quote. */
static void write_text(FILE *f, const char *key, const char *v)
{
	size_t n = strlen(v);
	int quote = n == 0 || isspace((unsigned char)v[0]) || isspace((unsigned char)v[n - 1]) ||
		    strpbrk(v, ";#") || v[0] == '"' || v[0] == '\'';
	char q = strchr(v, '"') ? '\'' : '"';
	fprintf(f, "%s = ", key);
	if (quote)
		fputc(q, f);
	for (const char *p = v; *p; p++) {
		if (*p == '$')
			fputc('$', f);
		fputc(*p, f);
	}
	if (quote)
		fputc(q, f);
	fputc('\n', f);
}

/* Every value of the job as text, checked before anything is written. */
static int job_writable(const struct iob_job *j)
{
	char buf[IOB_PATH_MAX + 64];
	size_t n;
	const struct iob_key *k = iob_keys(&n);
	if (!memchr(j->name, '\0', sizeof j->name) || strpbrk(j->name, "\r\n[]"))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		int rc = iob_key_format(&k[i], j, buf, sizeof buf);
		if (rc == -ENOENT)
			continue;
		if (rc || strpbrk(buf, "\r\n")) /* a profile value is one line */
			return -EINVAL;
	}
	return 0;
}

int iob_profile_write(FILE *f, const struct iob_job *jobs, size_t njobs, const char *comment)
{
	char buf[IOB_PATH_MAX + 64];
	size_t n;
	const struct iob_key *k = iob_keys(&n);
	for (size_t i = 0; i < njobs; i++)
		if (job_writable(&jobs[i]) != 0)
			return -EINVAL;
	if (comment)
		fprintf(f, "; %s\n", comment);
	for (size_t i = 0; i < njobs; i++) {
		fprintf(f, "%s[%s]\n", i || comment ? "\n" : "", jobs[i].name);
		for (size_t x = 0; x < n; x++) {
			if (iob_key_format(&k[x], &jobs[i], buf, sizeof buf) != 0)
				continue; /* a key that sets nothing */
			if (k[x].type == IOB_KEY_STRING || k[x].type == IOB_KEY_PATH)
				write_text(f, k[x].name, buf);
			else
				fprintf(f, "%s = %s\n", k[x].name, buf);
		}
	}
	return ferror(f) ? -EIO : 0;
}

int iob_job_resolve_dir(struct iob_job *job, char *err, size_t errlen)
{
	char real[IOB_PATH_MAX];
	int rc = iob_real_path(job->dir, real, sizeof real);
	if (rc != 0) {
		snprintf(err, errlen, "cannot resolve directory '%s': %s", job->dir, strerror(-rc));
		return rc;
	}
	snprintf(job->dir, sizeof job->dir, "%s", real);
	return 0;
}
