/*
 * loader.c - find, load and validate plugins (iobench/loader.h).
 */
#include "iobench/loader.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/log.h"
#include "iobench/os.h"
#include "iobench/units.h"

#ifndef IOB_PLUGIN_RELDIR
#define IOB_PLUGIN_RELDIR "../lib/iobench/plugins"
#endif
#ifndef IOB_PLUGIN_INSTALL_FULLDIR
#define IOB_PLUGIN_INSTALL_FULLDIR ""
#endif

/* The search path's entry for the plugins compiled into the binary. */
#define BUILTIN_DIR "(built in)"

#ifdef IOB_BUILTIN_PLUGINS
/* The in-tree plugins' entry points, renamed at compile time and listed by
 * the generated table (CMake option IOB_BUILTIN_PLUGINS), NULL-terminated. */
typedef const struct iob_plugin *(*iob_builtin_entry)(const struct iob_host *host);
extern const iob_builtin_entry iob_builtin_plugins[];
#endif

#if defined(_WIN32)
#define PLUGIN_SUFFIX ".dll"
#else
#define PLUGIN_SUFFIX ".so"
#endif

const struct iob_host iob_host_table = {
	.abi_major = IOB_ABI_MAJOR,
	.abi_minor = IOB_ABI_MINOR,
	.struct_size = sizeof(struct iob_host),
	.log = iob_log,
	.alloc_aligned = iob_alloc_aligned,
	.free_aligned = iob_free_aligned,
	.now_ns = iob_now_ns,
};

static void add_error_named(struct iob_registry *reg, const char *path, uint32_t kind, const char *name,
			    const char *why)
{
	if (reg->nerrors >= IOB_MAX_LOAD_ERRORS)
		return;
	size_t i = reg->nerrors++;
	snprintf(reg->errors[i], sizeof reg->errors[0], "plugin %s: %s", path, why);
	reg->error_kind[i] = kind;
	snprintf(reg->error_name[i], sizeof reg->error_name[0], "%s", name ? name : "");
	if (kind || (name && *name))
		return;
	/* guess from the file name: iob-backend-NAME.so, iob-output-NAME.so */
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	static const struct {
		const char *prefix;
		uint32_t kind;
	} kinds[] = {{"iob-backend-", IOB_PLUGIN_BACKEND}, {"iob-output-", IOB_PLUGIN_OUTPUT}};
	for (size_t k = 0; k < 2; k++) {
		size_t pl = strlen(kinds[k].prefix);
		if (strncmp(base, kinds[k].prefix, pl) == 0) {
			reg->error_kind[i] = kinds[k].kind;
			snprintf(reg->error_name[i], sizeof reg->error_name[0], "%.*s", (int)strcspn(base + pl, "."),
				 base + pl);
		}
	}
}

static void add_error(struct iob_registry *reg, const char *path, const char *why)
{
	add_error_named(reg, path, 0, NULL, why);
}

static int valid_name(const char *s)
{
	if (!s || !*s || strlen(s) >= 32)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

int iob_plugin_validate(const struct iob_plugin *p, char *why, size_t whylen)
{
	if (p->abi_major != IOB_ABI_MAJOR) {
		snprintf(why, whylen, "built for plugin ABI %u.%u, this iobench speaks ABI %u.%u (major versions differ)",
			 p->abi_major, p->abi_minor, IOB_ABI_MAJOR, IOB_ABI_MINOR);
		return -EPROTO;
	}
	if (p->struct_size < offsetof(struct iob_plugin, output) + sizeof(p->output)) {
		snprintf(why, whylen, "descriptor too small (%zu bytes) for ABI %u", p->struct_size, IOB_ABI_MAJOR);
		return -EPROTO;
	}
	if (!valid_name(p->name)) {
		snprintf(why, whylen, "invalid plugin name '%s' (use 1-31 of [a-z0-9_])", p->name ? p->name : "(null)");
		return -EINVAL;
	}
	if (p->struct_size >= offsetof(struct iob_plugin, noptions) + sizeof(p->noptions) && p->noptions) {
		if (!p->options || p->noptions > 64) {
			snprintf(why, whylen, "plugin '%s' declares %zu options but no list of at most 64", p->name,
				 p->noptions);
			return -EINVAL;
		}
		for (size_t i = 0; i < p->noptions; i++) {
			const struct iob_option_decl *d = &p->options[i];
			if (!valid_name(d->name) || d->type < IOB_OPT_BOOL || d->type > IOB_OPT_NAME ||
			    (d->type == IOB_OPT_WORD && (!d->words || !*d->words)) ||
			    (d->type == IOB_OPT_COUNT && d->min > d->max)) {
				snprintf(why, whylen, "plugin '%s' declares a malformed option (number %zu)", p->name,
					 i + 1);
				return -EINVAL;
			}
		}
	}
	if (p->kind == IOB_PLUGIN_BACKEND) {
		const struct iob_backend_ops *o = p->backend;
		if (!o || p->ops_size < offsetof(struct iob_backend_ops, info) + sizeof(o->info)) {
			snprintf(why, whylen, "backend '%s' has no ops table", p->name);
			return -EINVAL;
		}
		const char *missing = !o->open ? "open" : !o->close ? "close" : !o->info ? "info"
			: ((p->caps & IOB_CAP_READ) && !o->read_at) ? "read_at"
			: ((p->caps & IOB_CAP_WRITE) && !o->write_at) ? "write_at"
			: ((p->caps & IOB_CAP_SYNC) && !o->sync) ? "sync"
			: ((p->caps & IOB_CAP_TRUNCATE) && (p->ops_size < offsetof(struct iob_backend_ops, truncate) +
							   sizeof(o->truncate) || !o->truncate)) ? "truncate"
			: ((p->caps & IOB_CAP_ASYNC) && (p->ops_size < offsetof(struct iob_backend_ops, reap) +
							sizeof(o->reap) || !o->submit || !o->reap))
				? "submit and reap (it claims IOB_CAP_ASYNC)"
			: NULL;
		if (!(p->caps & (IOB_CAP_READ | IOB_CAP_WRITE)) && !missing)
			missing = "read_at or write_at";
		if (missing) {
			snprintf(why, whylen, "backend '%s' lacks the required op %s", p->name, missing);
			return -EINVAL;
		}
	} else if (p->kind == IOB_PLUGIN_OUTPUT) {
		const struct iob_output_ops *o = p->output;
		if (!o || p->ops_size < offsetof(struct iob_output_ops, close) + sizeof(o->close)) {
			snprintf(why, whylen, "output '%s' has no ops table", p->name);
			return -EINVAL;
		}
		const char *missing = !o->open ? "open" : !o->begin_run ? "begin_run" : !o->record ? "record"
			: !o->end_run ? "end_run" : !o->close ? "close" : NULL;
		if (missing) {
			snprintf(why, whylen, "output '%s' lacks the required op %s", p->name, missing);
			return -EINVAL;
		}
	} else {
		snprintf(why, whylen, "unknown plugin kind %u", p->kind);
		return -EINVAL;
	}
	return 0;
}

static const char *kind_name(uint32_t kind)
{
	return kind == IOB_PLUGIN_BACKEND ? "backend" : kind == IOB_PLUGIN_OUTPUT ? "output" : "plugin";
}

/* Append n bytes of s to dst at `at`, cut as snprintf cuts (dst holds cap
 * bytes with its terminator); the new length.  Every file of the plugin
 * directory passes four copies: snprintf's "%s" cost some 700 instructions
 * each. */
static size_t put(char *dst, size_t cap, size_t at, const char *s, size_t n)
{
	if (at + n >= cap)
		n = at < cap - 1 ? cap - 1 - at : 0;
	memcpy(dst + at, s, n);
	dst[at + n] = '\0';
	return at + n;
}

/* iob-backend-NAME.so / iob-output-NAME.so: kind and name, or 0. */
static uint32_t parse_file_name(const char *base, char *name, size_t namelen)
{
	static const struct {
		const char *prefix;
		uint32_t kind;
	} kinds[] = {{"iob-backend-", IOB_PLUGIN_BACKEND}, {"iob-output-", IOB_PLUGIN_OUTPUT}};
	size_t len = strlen(base), sl = strlen(PLUGIN_SUFFIX);
	for (size_t k = 0; k < 2; k++) {
		size_t pl = strlen(kinds[k].prefix);
		if (len <= pl + sl || strncmp(base, kinds[k].prefix, pl) != 0 ||
		    strcmp(base + len - sl, PLUGIN_SUFFIX) != 0 || len - pl - sl >= namelen)
			continue;
		put(name, namelen, 0, base + pl, len - pl - sl);
		return valid_name(name) ? kinds[k].kind : 0;
	}
	return 0;
}

/* The registry's plugin of that kind and name, in any state. */
static struct iob_loaded *entry_of(const struct iob_registry *reg, uint32_t kind, const char *name)
{
	/* the registry is a cache filled on demand (see loader.h) */
	struct iob_registry *r = (struct iob_registry *)reg;
	for (size_t i = 0; i < r->nplugins; i++)
		if (r->plugins[i].desc.kind == kind && strcmp(r->plugins[i].name, name) == 0)
			return &r->plugins[i];
	return NULL;
}

static struct iob_loaded *new_entry(struct iob_registry *reg, uint32_t kind, const char *name, const char *path)
{
	if (reg->nplugins >= IOB_MAX_PLUGINS) {
		add_error_named(reg, path, kind, name, "too many plugins on the search path");
		return NULL;
	}
	struct iob_loaded *l = &reg->plugins[reg->nplugins++];
	/* the descriptor and the ops zeroed, the rest set field by field: an
	 * entry is some 5 KiB, mostly its path, and zeroing all of it touched
	 * every page of the table (2 a plugin, 32 page faults for 16 files) */
	memset(l, 0, offsetof(struct iob_loaded, path));
	l->dl = NULL;
	l->state = IOB_PLUGIN_FOUND;
	l->why[0] = '\0';
	l->fd = -1;
	l->desc.kind = kind;
	put(l->name, sizeof l->name, 0, name, strlen(name));
	l->desc.name = l->name;
	put(l->path, sizeof l->path, 0, path, strlen(path));
	return l;
}

static int refuse(struct iob_registry *reg, struct iob_loaded *l, const char *why, int rc)
{
	l->state = IOB_PLUGIN_REFUSED;
	snprintf(l->why, sizeof l->why, "%s", why);
	add_error_named(reg, l->path, l->desc.kind, l->name, why);
	return rc;
}

/* Copy a validated descriptor and its ops into l. */
static void adopt(struct iob_loaded *l, const struct iob_plugin *p, void *dl, int fd)
{
	memset(&l->desc, 0, sizeof l->desc);
	memset(&l->backend, 0, sizeof l->backend);
	memset(&l->output, 0, sizeof l->output);
	memcpy(&l->desc, p, p->struct_size < sizeof l->desc ? p->struct_size : sizeof l->desc);
	size_t n = p->ops_size;
	if (p->kind == IOB_PLUGIN_BACKEND)
		memcpy(&l->backend, p->backend, n < sizeof l->backend ? n : sizeof l->backend);
	else
		memcpy(&l->output, p->output, n < sizeof l->output ? n : sizeof l->output);
	l->desc.name = l->name;
	l->desc.backend = p->kind == IOB_PLUGIN_BACKEND ? &l->backend : NULL;
	l->desc.output = p->kind == IOB_PLUGIN_OUTPUT ? &l->output : NULL;
	l->dl = dl;
	l->fd = fd;
	l->state = IOB_PLUGIN_LOADED;
}

int iob_registry_add_static(struct iob_registry *reg, const struct iob_plugin *p)
{
	char why[512];
	if (iob_plugin_validate(p, why, sizeof why) != 0) {
		add_error(reg, BUILTIN_DIR, why);
		return -EINVAL;
	}
	const struct iob_loaded *prev = entry_of(reg, p->kind, p->name);
	if (prev) {
		snprintf(why, sizeof why, "duplicate %s name '%s' (already found in %s)", kind_name(p->kind), p->name,
			 prev->path);
		add_error(reg, BUILTIN_DIR, why);
		return -EEXIST;
	}
	struct iob_loaded *l = new_entry(reg, p->kind, p->name, BUILTIN_DIR);
	if (!l)
		return -ENOSPC;
	adopt(l, p, NULL, -1);
	return 0;
}

/* Load the checked file open on *fd, run its entry and validate what it
 * returns against the kind and name of its file name.  On success *dl and *p
 * are set; else -errno with a reason. */
static int dl_load(int *fd, uint32_t kind, const char *name, void **dl, const struct iob_plugin **p, char *why,
		   size_t whylen)
{
	char err[1024];
	*dl = iob_dl_open_fd(fd, err, sizeof err);
	if (!*dl) {
		snprintf(why, whylen, "not a loadable shared object (%s)", err);
		return -ENOEXEC;
	}
	int rc = 0;
	void *sym = iob_dl_sym(*dl, IOB_PLUGIN_ENTRY_NAME);
	if (!sym) {
		snprintf(why, whylen, "no entry symbol " IOB_PLUGIN_ENTRY_NAME " (not an iobench plugin?)");
		rc = -ENOEXEC;
	} else if (iob_dl_sym_is_code(sym) == 0) {
		snprintf(why, whylen, IOB_PLUGIN_ENTRY_NAME " is data, not a function (not an iobench plugin?)");
		rc = -ENOEXEC;
	}
	if (rc == 0) {
		iob_plugin_entry_fn entry;
		memcpy(&entry, &sym, sizeof entry);
		*p = entry(&iob_host_table);
		if (!*p) {
			snprintf(why, whylen, "the plugin refused to load (its entry returned NULL)");
			rc = -ECANCELED;
		} else if ((rc = iob_plugin_validate(*p, why, whylen)) == 0) {
			if ((*p)->kind != kind) {
				snprintf(why, whylen, "the file name says %s but the plugin is a %s", kind_name(kind),
					 kind_name((*p)->kind));
				rc = -EINVAL;
			} else if (strcmp((*p)->name, name) != 0) {
				snprintf(why, whylen, "the plugin calls itself '%s' but its file name says '%s' "
						      "(rename the file iob-%s-%s%s)",
					 (*p)->name, name, kind_name(kind), (*p)->name, PLUGIN_SUFFIX);
				rc = -EINVAL;
			}
		}
	}
	if (rc != 0) {
		iob_dl_close(*dl);
		*dl = NULL;
	}
	return rc;
}

/* What the trial load in a child process reports back. */
struct trial {
	int fd;
	uint32_t kind;
	const char *name;
};
/* The child only has to survive loading: a plugin that fails to load
 * gracefully fails the same way in this process, with its reason; the
 * child passes nothing back, so it writes no byte a measurement could see. */
static void trial_load(void *arg, void *out, size_t outlen)
{
	const struct trial *t = arg;
	void *dl;
	const struct iob_plugin *p;
	char why[512];
	int fd = t->fd;
	(void)out;
	(void)outlen;
	dl_load(&fd, t->kind, t->name, &dl, &p, why, sizeof why);
}

/* Nonzero when the plugin file open on fd carries this build's stamp (see
 * CMakeLists.txt). */
static int own_build(int fd, const char *name)
{
#ifdef IOB_BUILD_STAMP
	static const char stamp[] = "iobench-build-stamp:" IOB_BUILD_STAMP;
	if (iob_fd_contains(fd, stamp, sizeof stamp) == 1) { /* the stamp and its NUL */
		iob_log(IOB_LOG_DEBUG, "loader", "plugin %s: built with this binary; loaded without a trial child",
			name);
		return 1;
	}
#endif
	(void)fd;
	(void)name;
	return 0;
}

static int load_entry(struct iob_registry *reg, struct iob_loaded *l)
{
	char why[1024], dir[4096];
	const char *slash = strrchr(l->path, '/');
	snprintf(dir, sizeof dir, "%.*s", (int)(slash - l->path), l->path);
	int fd = iob_plugin_open(dir[0] ? dir : "/", slash + 1, why, sizeof why);
	if (fd < 0)
		return refuse(reg, l, why, fd);
	/* a trial run in a child first: a plugin that crashes or exits while it
	 * loads is refused instead of taking the run down.  A plugin that holds
	 * this build's stamp was built, and tested, with this binary: it needs
	 * no trial (the child costs a fork and a wait in every run, far more on
	 * a busy machine).  The trust checks above apply to it all the same. */
	int rc = 0;
	if (!own_build(fd, l->name)) {
		struct trial t = {fd, l->desc.kind, l->name};
		rc = iob_run_isolated(trial_load, &t, NULL, 0, why, sizeof why);
	}
	if (rc == -ECHILD) {
		char msg[1100];
		snprintf(msg, sizeof msg, "%s while loading (a plugin must never crash or exit)", why);
		iob_fd_close(fd);
		return refuse(reg, l, msg, -ENOEXEC);
	}
	/* (no child could be started: load in this process, as the run asked) */
	void *dl;
	const struct iob_plugin *p;
	rc = dl_load(&fd, l->desc.kind, l->name, &dl, &p, why, sizeof why);
	if (rc != 0) {
		iob_fd_close(fd);
		return refuse(reg, l, why, rc);
	}
	adopt(l, p, dl, fd);
	return 0;
}

/* Record candidate `base` in directory `dir` (a real path): its kind and
 * name from the file name.  No plugin code runs, and no file is opened: the
 * trust check is made when the plugin is asked for (load_entry reopens and
 * checks it anyway), or by trust_found when the plugins are listed. */
static struct iob_loaded *add_candidate(struct iob_registry *reg, const char *dir, const char *base, int *rc)
{
	char path[4096 + 256], name[64], why[1024];
	size_t at = put(path, sizeof path, 0, dir, strlen(dir));
	if (strcmp(dir, "/") != 0)
		at = put(path, sizeof path, at, "/", 1);
	put(path, sizeof path, at, base, strlen(base));
	uint32_t kind = parse_file_name(base, name, sizeof name);
	*rc = -EINVAL;
	if (!kind) {
		add_error(reg, path, "not named iob-backend-NAME" PLUGIN_SUFFIX " or iob-output-NAME" PLUGIN_SUFFIX
				     " with NAME of 1-31 of [a-z0-9_]; not loaded");
		return NULL;
	}
	struct iob_loaded *prev = entry_of(reg, kind, name);
	if (prev) {
		*rc = -EEXIST;
		if (reg->nshadowed < IOB_MAX_LOAD_ERRORS) {
			snprintf(why, sizeof why, "%s %s from %s is shadowed by %s", kind_name(kind), name, path,
				 prev->path);
			snprintf(reg->shadowed[reg->nshadowed++], sizeof reg->shadowed[0], "%s", why);
		}
		return NULL;
	}
	struct iob_loaded *l = new_entry(reg, kind, name, path);
	if (!l) {
		*rc = -ENOSPC;
		return NULL;
	}
	*rc = 0;
	return l;
}

/* The trust check of every candidate not asked for yet: a file that fails
 * it is refused with the reason, as at its load, so that a list of the
 * plugins there are never names one the loader would refuse. */
static void trust_found(struct iob_registry *reg)
{
	char dir[4096], why[1024];
	for (size_t i = 0; i < reg->nplugins; i++) {
		struct iob_loaded *l = &reg->plugins[i];
		const char *slash = strrchr(l->path, '/');
		if (l->state != IOB_PLUGIN_FOUND || !slash)
			continue;
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - l->path), l->path);
		int fd = iob_plugin_open(dir[0] ? dir : "/", slash + 1, why, sizeof why);
		if (fd < 0)
			refuse(reg, l, why, fd);
		else
			iob_fd_close(fd);
	}
}

int iob_registry_load_file(struct iob_registry *reg, const char *path)
{
	char dir[4096], real[4096];
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
	if (slash == path)
		snprintf(dir, sizeof dir, "/");
	if (iob_real_path(dir, real, sizeof real) != 0) {
		add_error(reg, path, "no such file");
		return -ENOENT;
	}
	int rc;
	struct iob_loaded *l = add_candidate(reg, real, base, &rc);
	if (!l || rc != 0)
		return rc;
	return load_entry(reg, l);
}

/* The candidates' names, each its own copy (a table of 128 fixed 256-byte
 * names was 32 KiB cleared, 7 page faults, for the 16 of a build). */
struct scan {
	char *names[IOB_MAX_PLUGINS * 2];
	size_t n;
};

static void collect(void *arg, const char *name)
{
	struct scan *s = arg;
	size_t len = strlen(name), sl = strlen(PLUGIN_SUFFIX);
	if (len <= 4 + sl || strncmp(name, "iob-", 4) != 0 || strcmp(name + len - sl, PLUGIN_SUFFIX) != 0)
		return;
	if (s->n < sizeof s->names / sizeof s->names[0] && len < 256 && (s->names[s->n] = strdup(name)) != NULL)
		s->n++;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void scan_dir(struct iob_registry *reg, const char *dir)
{
	char why[1024];
	if (iob_check_trusted(dir, why, sizeof why) != 0) {
		add_error(reg, dir, why);
		return;
	}
	struct scan *s = calloc(1, sizeof *s);
	if (!s)
		return;
	if (iob_list_dir(dir, collect, s) == 0) {
		qsort(s->names, s->n, sizeof s->names[0], cmp_names); /* deterministic order */
		for (size_t i = 0; i < s->n; i++) {
			int rc;
			add_candidate(reg, dir, s->names[i], &rc);
		}
	}
	for (size_t i = 0; i < s->n; i++)
		free(s->names[i]);
	free(s);
}

static void add_dir(struct iob_registry *reg, const char *dir)
{
	if (!dir || !*dir || reg->ndirs >= IOB_MAX_PLUGIN_DIRS)
		return;
	char real[4096];
	if (iob_real_path(dir, real, sizeof real) != 0)
		snprintf(real, sizeof real, "%s", dir);
	for (size_t i = 0; i < reg->ndirs; i++)
		if (strcmp(reg->dirs[i], real) == 0)
			return;
	snprintf(reg->dirs[reg->ndirs++], sizeof reg->dirs[0], "%s", real);
}

/* The plugins compiled into the binary, registered as loaded (their code is
 * this binary's own: there is no file to check or try in a child).  A plugin
 * of the same kind and name already found, in a directory the user named,
 * wins; the built-in one is listed as shadowed. */
static void add_builtins(struct iob_registry *reg)
{
#ifdef IOB_BUILTIN_PLUGINS
	for (const iob_builtin_entry *e = iob_builtin_plugins; *e; e++) {
		const struct iob_plugin *p = (*e)(&iob_host_table);
		char why[512];
		if (!p) {
			add_error(reg, BUILTIN_DIR, "a built-in plugin's entry returned no descriptor");
			continue;
		}
		if (iob_plugin_validate(p, why, sizeof why) != 0) {
			add_error(reg, BUILTIN_DIR, why);
			continue;
		}
		const struct iob_loaded *prev = entry_of(reg, p->kind, p->name);
		if (prev) {
			snprintf(why, sizeof why, "%s %s " BUILTIN_DIR " is shadowed by %s", kind_name(p->kind),
				 p->name, prev->path);
			if (reg->nshadowed < IOB_MAX_LOAD_ERRORS)
				snprintf(reg->shadowed[reg->nshadowed++], sizeof reg->shadowed[0], "%s", why);
			continue;
		}
		struct iob_loaded *l = new_entry(reg, p->kind, p->name, BUILTIN_DIR);
		if (l)
			adopt(l, p, NULL, -1);
	}
#else
	(void)reg;
#endif
}

static int have_builtins(void)
{
#ifdef IOB_BUILTIN_PLUGINS
	return iob_builtin_plugins[0] != NULL;
#else
	return 0;
#endif
}

/* The entries a registry's load usually fills (16 plugin files in the
 * install), made present in one call before they are written: otherwise each
 * entry's first write (its head and its path, some 5 KiB) took page faults
 * of its own, 18 a run, about 9 us each on a VM that traps them
 * (docs/performance.md).  Where the OS cannot, the writes fault them in. */
#define REG_PREFAULT 24

int iob_registry_load(struct iob_registry *reg, const char *const *extra_dirs, size_t nextra)
{
	char buf[4096];

	(void)iob_mem_populate(&reg->plugins[reg->nplugins],
			       sizeof reg->plugins[0] *
				       (IOB_MAX_PLUGINS - reg->nplugins < REG_PREFAULT ? IOB_MAX_PLUGINS - reg->nplugins
										: REG_PREFAULT));

	for (size_t i = 0; i < nextra; i++) {
		if (iob_path_kind(extra_dirs[i], 1) != IOB_PATH_DIRECTORY) {
			add_error(reg, extra_dirs[i], "plugin directory does not exist");
			continue;
		}
		add_dir(reg, extra_dirs[i]);
	}
	const char *env = getenv("IOBENCH_PLUGIN_PATH");
	if (env && *env) {
		char *copy = strdup(env), *save = NULL;
		for (char *d = copy ? strtok_r(copy, IOB_PATH_LIST_SEP, &save) : NULL; d;
		     d = strtok_r(NULL, IOB_PATH_LIST_SEP, &save))
			if (iob_path_kind(d, 1) == IOB_PATH_DIRECTORY)
				add_dir(reg, d);
		free(copy);
	}
	/* the directories the user named, then the built-in plugins, then the
	 * ones beside the binary and the install directory */
	if (have_builtins() && reg->ndirs < IOB_MAX_PLUGIN_DIRS)
		snprintf(reg->dirs[reg->ndirs++], sizeof reg->dirs[0], "%s", BUILTIN_DIR);
	errno = 0;
	iob_exe_dir(buf, sizeof buf);
	if (!buf[0]) /* the plugins beside the binary cannot be found: say why, where a plugin is missed */
		snprintf(reg->exe_why, sizeof reg->exe_why,
			 "the directory of this program is unknown (%s), so the plugins installed beside it were not "
			 "searched; give --plugin-dir",
			 errno == ENOENT || errno == 0 ? "/proc/self/exe cannot be read: is /proc mounted?" : strerror(errno));
	if (buf[0]) {
		char rel[4096 + 256];
		snprintf(rel, sizeof rel, "%s/%s", buf, IOB_PLUGIN_RELDIR);
		if (iob_path_kind(rel, 1) == IOB_PATH_DIRECTORY)
			add_dir(reg, rel);
	}
	if (iob_path_kind(IOB_PLUGIN_INSTALL_FULLDIR, 1) == IOB_PATH_DIRECTORY)
		add_dir(reg, IOB_PLUGIN_INSTALL_FULLDIR);
	for (size_t i = 0; i < reg->ndirs; i++) {
		if (strcmp(reg->dirs[i], BUILTIN_DIR) == 0)
			add_builtins(reg);
		else
			scan_dir(reg, reg->dirs[i]);
	}
	return 0;
}

const struct iob_loaded *iob_registry_find(const struct iob_registry *reg, enum iob_plugin_kind kind,
					    const char *name)
{
	if (!name)
		return NULL;
	struct iob_loaded *l = entry_of(reg, (uint32_t)kind, name);
	if (l && l->state == IOB_PLUGIN_FOUND)
		load_entry((struct iob_registry *)reg, l); /* the registry is a cache: see loader.h */
	return l && l->state == IOB_PLUGIN_LOADED ? l : NULL;
}

void iob_registry_missing(const struct iob_registry *reg, enum iob_plugin_kind kind, const char *name, char *msg,
			  size_t len)
{
	const char *kname = kind_name(kind);
	iob_registry_find(reg, kind, name);
	trust_found((struct iob_registry *)reg); /* the registry is a cache: see loader.h */
	const struct iob_loaded *l = name ? entry_of(reg, (uint32_t)kind, name) : NULL;
	if (l && l->state == IOB_PLUGIN_REFUSED) {
		snprintf(msg, len, "%s '%s' could not be loaded: plugin %s: %s", kname, name, l->path, l->why);
		return;
	}
	for (size_t i = 0; name && i < reg->nerrors; i++)
		if (reg->error_kind[i] == (uint32_t)kind && strcmp(reg->error_name[i], name) == 0) {
			snprintf(msg, len, "%s '%s' could not be loaded: %s", kname, name, reg->errors[i]);
			return;
		}
	char names[512] = "";
	for (size_t i = 0; i < reg->nplugins; i++)
		if (reg->plugins[i].desc.kind == (uint32_t)kind && reg->plugins[i].state != IOB_PLUGIN_REFUSED) {
			size_t n = strlen(names);
			snprintf(names + n, sizeof names - n, "%s%s", n ? ", " : "", reg->plugins[i].name);
		}
	if (!names[0] && reg->exe_why[0]) {
		snprintf(msg, len, "%s '%s' is not loaded: no %s plugin was found: %s", kname, name ? name : "", kname,
			 reg->exe_why);
		return;
	}
	snprintf(msg, len, kind == IOB_PLUGIN_BACKEND ? "%s '%s' is not loaded (available: %s)"
						       : "unknown %s '%s' (available: %s)",
		 kname, name ? name : "", names[0] ? names : "none; see 'iobench plugins'");
}

/* One declared option's value: 0, or -EINVAL with the line in err. */
static int check_declared(const struct iob_loaded *b, const struct iob_option_decl *d, const char *val, char *err,
			  size_t errlen)
{
	char q[128];
	iob_quote(val, q, sizeof q);
	if (d->type == IOB_OPT_BOOL) {
		if (strcmp(val, "0") == 0 || strcmp(val, "1") == 0)
			return 0;
		snprintf(err, errlen, "backend option %s=%s: the value must be 0 or 1", d->name, q);
	} else if (d->type == IOB_OPT_COUNT) {
		uint64_t v = 0;
		const char *c = val;
		int over = 0;
		for (; *c >= '0' && *c <= '9'; c++) {
			over |= v > (UINT64_MAX - 9) / 10;
			v = v * 10 + (uint64_t)(*c - '0');
		}
		if (c != val && !*c && !over && v >= d->min && v <= d->max)
			return 0;
		snprintf(err, errlen, "backend option %s=%s: the value must be a whole number from %llu to %llu",
			 d->name, q, (unsigned long long)d->min, (unsigned long long)d->max);
	} else if (d->type == IOB_OPT_NAME) {
		size_t n = strlen(val);
		if (n && n <= 255 && !strchr(val, '/') && strcmp(val, ".") != 0 && strcmp(val, "..") != 0)
			return 0;
		snprintf(err, errlen,
			 "backend option %s=%s: the value must be a file name in the job's directory (1 to 255 bytes, "
			 "no '/', not . or ..)",
			 d->name, q);
	} else {
		size_t n = strlen(val);
		for (const char *w = d->words; *w;) {
			const char *bar = strchr(w, '|');
			size_t len = bar ? (size_t)(bar - w) : strlen(w);
			if (len == n && n && strncmp(w, val, n) == 0)
				return 0;
			w += len + (bar != NULL);
		}
		snprintf(err, errlen, "backend option %s=%s: the value must be one of %s", d->name, q,
			 d->words);
	}
	return -EINVAL;
}

int iob_backend_check_declared(const struct iob_loaded *b, const char *options, char *err, size_t errlen)
{
	char buf[1024], q[256];
	if (strlen(options) >= sizeof buf) {
		snprintf(err, errlen, "backend_options are %zu bytes long; at most %zu are accepted",
			 strlen(options), sizeof buf - 1);
		return -EINVAL;
	}
	snprintf(buf, sizeof buf, "%s", options);
	for (char *p = buf, *next; p; p = next) {
		char *comma = strchr(p, ',');
		next = comma ? comma + 1 : NULL;
		if (comma)
			*comma = '\0';
		char *eq = strchr(p, '=');
		iob_quote(p, q, sizeof q);
		if (!*p || !eq || eq == p) {
			snprintf(err, errlen, "backend option '%s' is not key=value (write key=value,...)", q);
			return -EINVAL;
		}
		*eq = '\0';
		const struct iob_option_decl *d = NULL;
		for (size_t i = 0; i < b->desc.noptions && !d; i++)
			if (strcmp(b->desc.options[i].name, p) == 0)
				d = &b->desc.options[i];
		if (!d) {
			char known[512] = "";
			for (size_t i = 0; i < b->desc.noptions; i++) {
				size_t l = strlen(known);
				snprintf(known + l, sizeof known - l, "%s%s", i ? ", " : "", b->desc.options[i].name);
			}
			iob_quote(p, q, sizeof q);
			snprintf(err, errlen, "unknown backend option '%s' (%s takes: %s)", q, b->name, known);
			return -EINVAL;
		}
		if (check_declared(b, d, eq + 1, err, errlen) != 0)
			return -EINVAL;
	}
	return 0;
}

int iob_backend_check_options(const struct iob_loaded *b, const char *options, char *err, size_t errlen)
{
	if (!options || !*options)
		return 0;
	char q[256];
	iob_quote(options, q, sizeof q);
	if (b->desc.options) {
		char why[768];
		if (iob_backend_check_declared(b, options, why, sizeof why) != 0) {
			snprintf(err, errlen, "backend %s: %s", b->name, why);
			return -EINVAL;
		}
	}
	if (b->desc.options && !b->backend.control)
		return 0;
	if (!b->backend.control) {
		snprintf(err, errlen, "backend %s: takes no backend_options (got '%s'); remove them", b->name, q);
		return -EINVAL;
	}
	/* the backend gets its own copy: control's argument is not const */
	char *copy = strdup(options);
	if (!copy) {
		snprintf(err, errlen, "backend %s: out of memory checking backend_options", b->name);
		return -ENOMEM;
	}
	int rc = b->backend.control(NULL, IOB_CTL_CHECK_OPTIONS, copy);
	free(copy);
	if (rc == 0)
		return 0;
	if (rc == -ENOTSUP)
		snprintf(err, errlen, "backend %s: takes no backend_options (got '%s'); remove them", b->name, q);
	else
		snprintf(err, errlen, "backend %s: backend_options '%s' refused (%s); see its log line above", b->name,
			 q, rc < 0 && rc > -4096 ? strerror(-rc) : "bad return value");
	return -EINVAL;
}

void iob_registry_leave(struct iob_registry *reg)
{
	for (size_t i = 0; i < reg->nplugins; i++) {
		iob_fd_close(reg->plugins[i].fd);
		reg->plugins[i].dl = NULL;
		reg->plugins[i].fd = -1;
	}
	reg->nplugins = 0;
}

void iob_registry_unload(struct iob_registry *reg)
{
	for (size_t i = 0; i < reg->nplugins; i++)
		iob_dl_close(reg->plugins[i].dl);
	iob_registry_leave(reg);
}
