/*
 * iobench/loader.h - finding, loading and validating plugins.
 *
 * Search order (first directory that provides a name wins; a later plugin of
 * the same kind and name is listed as shadowed and not loaded):
 *   1. every --plugin-dir given, in order
 *   2. IOBENCH_PLUGIN_PATH, a ':'-separated list
 *   3. <directory of the executable>/<relative installed plugin dir>
 *      (the build tree uses the installed layout, so this also finds it)
 *   4. the compiled-in install directory
 *   5. the compiled-in build-tree directory
 * Only files named iob-*.so (iob-*.dll on Windows) are considered; the
 * current directory is never searched unless named explicitly.
 *
 * Every failure becomes one line naming the file and the reason; a failed
 * plugin is recorded (iobench plugins shows it) and skipped.
 */
#ifndef IOBENCH_LOADER_H
#define IOBENCH_LOADER_H

#include <stddef.h>
#include "iobench/plugin.h"

#define IOB_MAX_PLUGINS 64
#define IOB_MAX_PLUGIN_DIRS 16
#define IOB_MAX_LOAD_ERRORS 32

/* A loaded plugin, with the descriptor and ops copied into full-size zeroed
 * structs so every hook the plugin did not know about reads NULL. */
struct iob_loaded {
	struct iob_plugin desc;
	struct iob_backend_ops backend; /* valid for backends */
	struct iob_output_ops output;   /* valid for outputs */
	char path[4096];                /* file it came from, or "(built in)" */
	void *dl;                       /* dlopen handle, NULL when built in */
};

struct iob_registry {
	size_t nplugins;
	struct iob_loaded plugins[IOB_MAX_PLUGINS];
	size_t nerrors;
	char errors[IOB_MAX_LOAD_ERRORS][512]; /* one line each */
	/* what each failed file would have provided: kind (0 if unknown) and
	 * name (from its descriptor, else from its iob-KIND-NAME file name) */
	uint32_t error_kind[IOB_MAX_LOAD_ERRORS];
	char error_name[IOB_MAX_LOAD_ERRORS][32];
	size_t nshadowed;
	char shadowed[IOB_MAX_LOAD_ERRORS][512];
	size_t ndirs;
	char dirs[IOB_MAX_PLUGIN_DIRS][4096]; /* search path actually used */
};

/* The host table handed to every plugin. */
extern const struct iob_host iob_host_table;

/* Build the search path (extra_dirs may be NULL) and load every plugin on
 * it.  Returns 0; problems are recorded in reg->errors. */
int iob_registry_load(struct iob_registry *reg, const char *const *extra_dirs, size_t nextra);
/* Load one plugin file; returns 0 or -errno with a line in reg->errors. */
int iob_registry_load_file(struct iob_registry *reg, const char *path);
/* Register a plugin compiled into the binary (a tool's legacy renderer). */
int iob_registry_add_static(struct iob_registry *reg, const struct iob_plugin *p);
const struct iob_loaded *iob_registry_find(const struct iob_registry *reg, enum iob_plugin_kind kind,
					    const char *name);
void iob_registry_unload(struct iob_registry *reg);
/* One line for a plugin that was asked for but is not loaded: why its file
 * failed to load, if one did, else which plugins of that kind there are. */
void iob_registry_missing(const struct iob_registry *reg, enum iob_plugin_kind kind, const char *name, char *msg,
			  size_t len);
/* Validate a descriptor against this core; 0 or -errno with a reason. */
int iob_plugin_validate(const struct iob_plugin *p, char *why, size_t whylen);

#endif
