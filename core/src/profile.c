/*
 * profile.c - INI profiles to job specs (iobench/profile.h).
 *
 * iniparser reads the values; a light pre-scan of the raw text catches what
 * iniparser would silently accept: duplicate sections and keys, keys outside
 * any section, binary junk, and lines too long for it.
 */
#include "iobench/profile.h"

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

#define MAX_INCLUDE_DEPTH 16
#define MAX_LINE 1000 /* iniparser's own limit is 1024 */

/* ---- job keys ------------------------------------------------------------ */

static int set_u32(const char *key, const char *value, uint32_t *dst, char *err, size_t errlen)
{
	uint64_t v;
	int rc = iob_parse_u64(value, &v, err, errlen);
	if (rc == 0 && v > UINT32_MAX) {
		snprintf(err, errlen, "%s '%s' is too large", key, IOB_Q(value));
		rc = -ERANGE;
	}
	if (rc == 0)
		*dst = (uint32_t)v;
	return rc;
}

static int set_str(const char *key, const char *value, char *dst, size_t dstlen, char *err, size_t errlen)
{
	if (strlen(value) >= dstlen) {
		snprintf(err, errlen, "%s is longer than %zu characters", key, dstlen - 1);
		return -ENAMETOOLONG;
	}
	/* zero the rest too: a shorter value over a [global] one leaves no stale
	 * bytes, so jobs with equal settings are equal byte for byte */
	memset(dst, 0, dstlen);
	memcpy(dst, value, strlen(value));
	return 0;
}

static int set_phases(const char *value, uint32_t *dst, char *err, size_t errlen)
{
	uint32_t bits = 0;
	char buf[128];
	if (strlen(value) >= sizeof buf) {
		snprintf(err, errlen, "phases '%s' is too long", IOB_Q(value));
		return -EINVAL;
	}
	snprintf(buf, sizeof buf, "%s", value);
	char *save = NULL;
	for (char *t = strtok_r(buf, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save)) {
		uint32_t bit = strcmp(t, "write") == 0 ? IOB_PHASE_BIT(IOB_PHASE_WRITE)
			: strcmp(t, "read") == 0 ? IOB_PHASE_BIT(IOB_PHASE_READ)
			: strcmp(t, "verify") == 0 ? IOB_PHASE_BIT(IOB_PHASE_VERIFY) : 0;
		if (!bit) {
			snprintf(err, errlen, "unknown phase '%s' in '%s' (use write, read, verify)", IOB_Q(t), IOB_Q(value));
			return -EINVAL;
		}
		bits |= bit;
	}
	if (!bits) {
		snprintf(err, errlen, "phases is empty");
		return -EINVAL;
	}
	*dst = bits;
	return 0;
}

int iob_job_set(struct iob_job *job, const char *key, const char *value, char *err, size_t errlen)
{
	uint64_t u;
	int rc;

	if (strcmp(key, "description") == 0)
		return 0;
	if (strcmp(key, "backend") == 0)
		return set_str(key, value, job->backend, sizeof job->backend, err, errlen);
	if (strcmp(key, "dir") == 0)
		return set_str(key, value, job->dir, sizeof job->dir, err, errlen);
	if (strcmp(key, "filename") == 0)
		return set_str(key, value, job->filename, sizeof job->filename, err, errlen);
	if (strcmp(key, "layout") == 0) {
		if (strcmp(value, "file") == 0)
			job->layout = IOB_LAYOUT_FILE;
		else if (strcmp(value, "tree") == 0)
			job->layout = IOB_LAYOUT_TREE;
		else {
			snprintf(err, errlen, "layout '%s' is neither file nor tree", IOB_Q(value));
			return -EINVAL;
		}
		return 0;
	}
	if (strcmp(key, "tree_levels") == 0)
		return set_u32(key, value, &job->tree_levels, err, errlen);
	if (strcmp(key, "tree_files") == 0)
		return set_u32(key, value, &job->tree_files, err, errlen);
	if (strcmp(key, "access") == 0) {
		if (strcmp(value, "seq") == 0 || strcmp(value, "sequential") == 0)
			job->access = IOB_ACCESS_SEQ;
		else if (strcmp(value, "rand") == 0 || strcmp(value, "random") == 0)
			job->access = IOB_ACCESS_RAND;
		else {
			snprintf(err, errlen, "access '%s' is neither seq nor rand", IOB_Q(value));
			return -EINVAL;
		}
		return 0;
	}
	if (strcmp(key, "phases") == 0)
		return set_phases(value, &job->phases, err, errlen);
	if (strcmp(key, "block_size") == 0)
		return iob_parse_size(value, &job->block_size, err, errlen);
	if (strcmp(key, "block_size_max") == 0)
		return iob_parse_size(value, &job->block_size_max, err, errlen);
	if (strcmp(key, "size") == 0)
		return iob_parse_size(value, &job->size, err, errlen);
	if (strcmp(key, "offset_align") == 0)
		return iob_parse_size(value, &job->offset_align, err, errlen);
	if (strcmp(key, "ops") == 0)
		return iob_parse_u64(value, &job->ops, err, errlen);
	if (strcmp(key, "loops") == 0)
		return set_u32(key, value, &job->loops, err, errlen);
	if (strcmp(key, "pattern") == 0)
		return iob_pattern_parse(value, &job->pattern, err, errlen);
	if (strcmp(key, "seed") == 0) {
		rc = iob_parse_u64(value, &u, err, errlen);
		if (rc == 0)
			job->seed = job->pattern.seed = u;
		return rc;
	}
	static const struct {
		const char *key;
		size_t off;
	} bools[] = {
		{"skip_past_end", offsetof(struct iob_job, skip_past_end)},
		{"fsync", offsetof(struct iob_job, fsync)},
		{"truncate", offsetof(struct iob_job, truncate)},
		{"reopen", offsetof(struct iob_job, reopen)},
		{"keep_files", offsetof(struct iob_job, keep_files)},
		{"allow_devices", offsetof(struct iob_job, allow_devices)},
		{"evict_before_read", offsetof(struct iob_job, evict_before_read)},
		{"fill_once", offsetof(struct iob_job, fill_once)},
	};
	for (size_t i = 0; i < sizeof bools / sizeof bools[0]; i++)
		if (strcmp(key, bools[i].key) == 0)
			return iob_parse_bool(value, (int *)((char *)job + bools[i].off), err, errlen);
	snprintf(err, errlen, "unknown key");
	return -ENOENT;
}

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
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct kv *v = realloc(l->v, cap * sizeof *v);
		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
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
	FILE *f = fopen(path, "re");
	char *line = NULL, cur[256] = "";
	size_t cap = 0, lineno = 0;
	ssize_t len;
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
	while (rc == 0 && (len = getline(&line, &cap, f)) != -1) {
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
			snprintf(err, errlen, "%s:%zu: line is %zd characters long, over the %d-character limit", path,
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

/* A private copy of the file without its byte order mark, for iniparser. */
static int copy_without_bom(const char *path, char *tmp, size_t tmplen)
{
	FILE *f = fopen(path, "rbe");
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
	if (rc == 0 && (len < 3 || memcmp(text, "\xef\xbb\xbf", 3) != 0))
		rc = -EAGAIN; /* changed since the pre-scan */
	if (rc == 0)
		rc = iob_write_temp(text + 3, len - 3, tmp, tmplen);
	free(text);
	return rc;
}

/* iniparser's dictionary of path (of a copy without its BOM), or NULL with
 * a one-line reason naming path. */
static dictionary *parse_ini(const char *path, int bom, char *err, size_t errlen)
{
	char tmp[4096];
	const char *src = path;
	if (bom) {
		int rc = copy_without_bom(path, tmp, sizeof tmp);
		if (rc) {
			snprintf(err, errlen, "%s: cannot read it again: %s", path, strerror(-rc));
			return NULL;
		}
		src = tmp;
	}
	iniparser_msg[0] = '\0';
	iniparser_set_error_callback(capture_iniparser_error);
	dictionary *d = iniparser_load(src);
	if (bom)
		iob_remove_file(tmp);
	if (!d) {
		char *at = bom ? strstr(iniparser_msg, tmp) : NULL;
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

static void dir_of(const char *path, char *dir, size_t len)
{
	snprintf(dir, len, "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash == dir)
		dir[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		snprintf(dir, len, ".");
}

static int do_includes(struct loadctx *ctx, const char *path, const char *list, struct kvlist *globals, char *err,
		       size_t errlen)
{
	char buf[4096], dir[4096];
	if (strlen(list) >= sizeof buf) {
		snprintf(err, errlen, "%s: [global] include: list too long", path);
		return -E2BIG;
	}
	snprintf(buf, sizeof buf, "%s", list);
	dir_of(path, dir, sizeof dir);
	char *save = NULL;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *name = trim(t), inc[8192];
		if (!*name) {
			snprintf(err, errlen, "%s: [global] include: empty file name in '%s'", path, IOB_Q(list));
			return -EINVAL;
		}
		if (name[0] == '/')
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
	if (iob_job_validate(job, why, sizeof why) != 0) {
		snprintf(err, errlen, "%s: %s", path, why);
		return -EINVAL;
	}
	return 0;
}

static int load_file(struct loadctx *ctx, const char *path, struct kvlist *globals, char *err, size_t errlen)
{
	char real[4096], val[4096], why[600];
	char **sections = NULL;
	size_t nsec = 0;
	int rc;

	if (!realpath(path, real))
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

static void write_size(FILE *f, const char *key, uint64_t v)
{
	fprintf(f, "%s = %llu\n", key, (unsigned long long)v);
}

int iob_profile_write(FILE *f, const struct iob_job *jobs, size_t njobs, const char *comment)
{
	char pat[64];
	/* a profile value is one line: refuse before writing anything */
	for (size_t i = 0; i < njobs; i++)
		if (strpbrk(jobs[i].backend, "\r\n") || strpbrk(jobs[i].dir, "\r\n") || strpbrk(jobs[i].filename, "\r\n"))
			return -EINVAL;
	if (comment)
		fprintf(f, "; %s\n", comment);
	for (size_t i = 0; i < njobs; i++) {
		const struct iob_job *j = &jobs[i];
		fprintf(f, "%s[%s]\n", i || comment ? "\n" : "", j->name);
		write_text(f, "backend", j->backend);
		write_text(f, "dir", j->dir);
		fprintf(f, "layout = %s\n", j->layout == IOB_LAYOUT_TREE ? "tree" : "file");
		if (j->layout == IOB_LAYOUT_TREE)
			fprintf(f, "tree_levels = %u\ntree_files = %u\n", j->tree_levels, j->tree_files);
		else
			write_text(f, "filename", j->filename);
		fprintf(f, "access = %s\n", j->access == IOB_ACCESS_RAND ? "rand" : "seq");
		fprintf(f, "phases = %s%s%s%s%s\n", (j->phases & IOB_PHASE_BIT(IOB_PHASE_WRITE)) ? "write" : "",
			(j->phases & IOB_PHASE_BIT(IOB_PHASE_WRITE)) && (j->phases & ~IOB_PHASE_BIT(IOB_PHASE_WRITE)) ? "," : "",
			(j->phases & IOB_PHASE_BIT(IOB_PHASE_READ)) ? "read" : "",
			(j->phases & IOB_PHASE_BIT(IOB_PHASE_READ)) && (j->phases & IOB_PHASE_BIT(IOB_PHASE_VERIFY)) ? "," : "",
			(j->phases & IOB_PHASE_BIT(IOB_PHASE_VERIFY)) ? "verify" : "");
		write_size(f, "block_size", j->block_size);
		if (j->block_size_max)
			write_size(f, "block_size_max", j->block_size_max);
		write_size(f, "size", j->size);
		if (j->ops)
			fprintf(f, "ops = %llu\n", (unsigned long long)j->ops);
		fprintf(f, "loops = %u\n", j->loops);
		if (j->offset_align)
			write_size(f, "offset_align", j->offset_align);
		fprintf(f, "skip_past_end = %s\n", j->skip_past_end ? "true" : "false");
		iob_pattern_name(&j->pattern, pat, sizeof pat);
		fprintf(f, "pattern = %s\n", pat);
		fprintf(f, "seed = %llu\n", (unsigned long long)j->seed);
		fprintf(f, "fsync = %s\n", j->fsync ? "true" : "false");
		fprintf(f, "truncate = %s\n", j->truncate ? "true" : "false");
		fprintf(f, "reopen = %s\n", j->reopen ? "true" : "false");
		fprintf(f, "keep_files = %s\n", j->keep_files ? "true" : "false");
		fprintf(f, "allow_devices = %s\n", j->allow_devices ? "true" : "false");
		fprintf(f, "evict_before_read = %s\n", j->evict_before_read ? "true" : "false");
		if (j->fill_once)
			fprintf(f, "fill_once = true\n");
	}
	return ferror(f) ? -EIO : 0;
}
