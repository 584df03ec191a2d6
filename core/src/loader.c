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

#ifndef IOB_PLUGIN_RELDIR
#define IOB_PLUGIN_RELDIR "../lib/iobench/plugins"
#endif
#ifndef IOB_PLUGIN_INSTALL_FULLDIR
#define IOB_PLUGIN_INSTALL_FULLDIR ""
#endif
#ifndef IOB_PLUGIN_BUILD_DIR
#define IOB_PLUGIN_BUILD_DIR ""
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

/* Copy a validated descriptor into the registry; -EEXIST on a duplicate. */
static int registry_add(struct iob_registry *reg, const struct iob_plugin *p, const char *path, void *dl)
{
	const struct iob_loaded *prev = iob_registry_find(reg, (enum iob_plugin_kind)p->kind, p->name);
	if (prev) {
		char why[512];
		if (prev->dl && strcmp(prev->path, path) != 0) {
			/* same directory: a real duplicate; earlier directory: shadowed */
			const char *a = strrchr(prev->path, '/'), *b = strrchr(path, '/');
			size_t la = a ? (size_t)(a - prev->path) : 0, lb = b ? (size_t)(b - path) : 0;
			if (la != lb || strncmp(prev->path, path, la) != 0) {
				if (reg->nshadowed < IOB_MAX_LOAD_ERRORS) {
					snprintf(why, sizeof why, "%s %s from %s is shadowed by %s", kind_name(p->kind),
						 p->name, path, prev->path);
					memcpy(reg->shadowed[reg->nshadowed++], why, sizeof reg->shadowed[0]);
				}
				return -EEXIST;
			}
		}
		snprintf(why, sizeof why, "duplicate %s name '%s' (already loaded from %s)", kind_name(p->kind),
			 p->name, prev->path);
		add_error(reg, path, why);
		return -EEXIST;
	}
	if (reg->nplugins >= IOB_MAX_PLUGINS) {
		add_error(reg, path, "too many plugins loaded");
		return -ENOSPC;
	}
	struct iob_loaded *l = &reg->plugins[reg->nplugins];
	memset(l, 0, sizeof *l);
	memcpy(&l->desc, p, p->struct_size < sizeof l->desc ? p->struct_size : sizeof l->desc);
	size_t n = p->ops_size;
	if (p->kind == IOB_PLUGIN_BACKEND)
		memcpy(&l->backend, p->backend, n < sizeof l->backend ? n : sizeof l->backend);
	else
		memcpy(&l->output, p->output, n < sizeof l->output ? n : sizeof l->output);
	l->desc.backend = p->kind == IOB_PLUGIN_BACKEND ? &l->backend : NULL;
	l->desc.output = p->kind == IOB_PLUGIN_OUTPUT ? &l->output : NULL;
	snprintf(l->path, sizeof l->path, "%s", path);
	l->dl = dl;
	reg->nplugins++;
	return 0;
}

int iob_registry_add_static(struct iob_registry *reg, const struct iob_plugin *p)
{
	char why[512];
	if (iob_plugin_validate(p, why, sizeof why) != 0) {
		add_error(reg, "(built in)", why);
		return -EINVAL;
	}
	return registry_add(reg, p, "(built in)", NULL);
}

int iob_registry_load_file(struct iob_registry *reg, const char *path)
{
	char why[1024];
	enum iob_path_kind k = iob_path_kind(path, 1);
	if (k == IOB_PATH_MISSING) {
		add_error(reg, path, "no such file");
		return -ENOENT;
	}
	if (k != IOB_PATH_REGULAR) {
		add_error(reg, path, "not a regular file");
		return -EINVAL;
	}
	if (iob_check_trusted(path, why, sizeof why) != 0) {
		add_error(reg, path, why);
		return -EPERM;
	}
	void *dl = iob_dl_open(path, why, sizeof why);
	if (!dl) {
		char msg[1100];
		snprintf(msg, sizeof msg, "not a loadable shared object (%s)", why);
		add_error(reg, path, msg);
		return -ENOEXEC;
	}
	iob_plugin_entry_fn entry;
	void *sym = iob_dl_sym(dl, IOB_PLUGIN_ENTRY_NAME);
	memcpy(&entry, &sym, sizeof entry);
	if (!sym) {
		add_error(reg, path, "no entry symbol " IOB_PLUGIN_ENTRY_NAME " (not an iobench plugin?)");
		iob_dl_close(dl);
		return -ENOEXEC;
	}
	const struct iob_plugin *p = entry(&iob_host_table);
	if (!p) {
		add_error(reg, path, "the plugin refused to load (its entry returned NULL)");
		iob_dl_close(dl);
		return -ECANCELED;
	}
	int rc = iob_plugin_validate(p, why, sizeof why);
	if (rc != 0) {
		add_error_named(reg, path, p->kind, p->name && strlen(p->name) < 32 ? p->name : NULL, why);
		iob_dl_close(dl);
		return rc;
	}
	rc = registry_add(reg, p, path, dl);
	if (rc != 0)
		iob_dl_close(dl);
	return rc;
}

struct scan {
	struct iob_registry *reg;
	char names[IOB_MAX_PLUGINS * 2][256];
	size_t n;
};

static void collect(void *arg, const char *name)
{
	struct scan *s = arg;
	size_t len = strlen(name), sl = strlen(PLUGIN_SUFFIX);
	if (len <= 4 + sl || strncmp(name, "iob-", 4) != 0 || strcmp(name + len - sl, PLUGIN_SUFFIX) != 0)
		return;
	if (s->n < sizeof s->names / sizeof s->names[0] && len < sizeof s->names[0])
		snprintf(s->names[s->n++], sizeof s->names[0], "%s", name);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(a, b);
}

static void load_dir(struct iob_registry *reg, const char *dir)
{
	char why[512];
	if (iob_check_trusted(dir, why, sizeof why) != 0) {
		add_error(reg, dir, why);
		return;
	}
	struct scan *s = calloc(1, sizeof *s);
	if (!s)
		return;
	s->reg = reg;
	if (iob_list_dir(dir, collect, s) == 0) {
		qsort(s->names, s->n, sizeof s->names[0], cmp_names); /* deterministic order */
		for (size_t i = 0; i < s->n; i++) {
			char path[4096 + 256];
			snprintf(path, sizeof path, "%s/%s", dir, s->names[i]);
			iob_registry_load_file(reg, path);
		}
	}
	free(s);
}

static void add_dir(struct iob_registry *reg, const char *dir)
{
	if (!dir || !*dir || reg->ndirs >= IOB_MAX_PLUGIN_DIRS)
		return;
	char real[4096];
	if (!realpath(dir, real))
		snprintf(real, sizeof real, "%s", dir);
	for (size_t i = 0; i < reg->ndirs; i++)
		if (strcmp(reg->dirs[i], real) == 0)
			return;
	snprintf(reg->dirs[reg->ndirs++], sizeof reg->dirs[0], "%s", real);
}

int iob_registry_load(struct iob_registry *reg, const char *const *extra_dirs, size_t nextra)
{
	char buf[4096];

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
		for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d; d = strtok_r(NULL, ":", &save))
			if (iob_path_kind(d, 1) == IOB_PATH_DIRECTORY)
				add_dir(reg, d);
		free(copy);
	}
	iob_exe_dir(buf, sizeof buf);
	if (buf[0]) {
		char rel[4096 + 256];
		snprintf(rel, sizeof rel, "%s/%s", buf, IOB_PLUGIN_RELDIR);
		if (iob_path_kind(rel, 1) == IOB_PATH_DIRECTORY)
			add_dir(reg, rel);
	}
	if (iob_path_kind(IOB_PLUGIN_INSTALL_FULLDIR, 1) == IOB_PATH_DIRECTORY)
		add_dir(reg, IOB_PLUGIN_INSTALL_FULLDIR);
	if (iob_path_kind(IOB_PLUGIN_BUILD_DIR, 1) == IOB_PATH_DIRECTORY)
		add_dir(reg, IOB_PLUGIN_BUILD_DIR);
	for (size_t i = 0; i < reg->ndirs; i++)
		load_dir(reg, reg->dirs[i]);
	return 0;
}

const struct iob_loaded *iob_registry_find(const struct iob_registry *reg, enum iob_plugin_kind kind,
					    const char *name)
{
	for (size_t i = 0; i < reg->nplugins; i++)
		if (reg->plugins[i].desc.kind == (uint32_t)kind && strcmp(reg->plugins[i].desc.name, name) == 0)
			return &reg->plugins[i];
	return NULL;
}

void iob_registry_missing(const struct iob_registry *reg, enum iob_plugin_kind kind, const char *name, char *msg,
			  size_t len)
{
	const char *kname = kind == IOB_PLUGIN_BACKEND ? "backend" : "output";
	for (size_t i = 0; i < reg->nerrors; i++)
		if (reg->error_kind[i] == (uint32_t)kind && strcmp(reg->error_name[i], name) == 0) {
			snprintf(msg, len, "%s '%s' could not be loaded: %s", kname, name, reg->errors[i]);
			return;
		}
	char names[512] = "";
	for (size_t i = 0; i < reg->nplugins; i++)
		if (reg->plugins[i].desc.kind == (uint32_t)kind) {
			size_t l = strlen(names);
			snprintf(names + l, sizeof names - l, "%s%s", l ? ", " : "", reg->plugins[i].desc.name);
		}
	snprintf(msg, len, kind == IOB_PLUGIN_BACKEND ? "%s '%s' is not loaded (available: %s)"
						       : "unknown %s '%s' (available: %s)",
		 kname, name, names[0] ? names : "none; see 'iobench plugins'");
}

void iob_registry_unload(struct iob_registry *reg)
{
	for (size_t i = 0; i < reg->nplugins; i++)
		iob_dl_close(reg->plugins[i].dl);
	reg->nplugins = 0;
}
