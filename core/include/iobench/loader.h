/*
 * iobench/loader.h - finding, checking and loading plugins.
 *
 * Search order (first directory that provides a kind and name wins; a later
 * file of the same kind and name is listed as shadowed and never loaded):
 *   1. every --plugin-dir given, in order
 *   2. IOBENCH_PLUGIN_PATH, a ':'-separated list
 *   3. the plugins compiled into the binary, in a build with the CMake option
 *      IOB_BUILTIN_PLUGINS (listed in the search path as "(built in)";
 *      registered loaded, their entries called at iob_registry_load: the
 *      code is the binary's own)
 *   4. <directory of the executable>/<relative installed plugin dir>
 *      (the build tree mirrors the installed layout, so a build-tree binary
 *      finds the build tree's plugins here, and an installed one the
 *      installed plugins; the build tree is never compiled in)
 *   5. the compiled-in install directory
 * So a plugin the user points at (1, 2) replaces a built-in one of the same
 * kind and name, and a built-in one replaces what lies beside the binary or
 * in the install directory (a portable binary copied onto a machine with
 * another iobench installed keeps its own).
 * Only files named iob-backend-NAME.so or iob-output-NAME.so (.dll on
 * Windows), NAME of [a-z0-9_], are considered; the current directory is never
 * searched unless named explicitly.
 *
 * Two steps (docs/security.md):
 *  - iob_registry_load only scans: it records each candidate by its file
 *    name.  No plugin code runs and no candidate is opened: its trust check
 *    is made when it is asked for (below), or, for every candidate, when the
 *    plugins are listed (iob_registry_missing, `iobench plugins`).
 *  - iob_registry_find loads the one plugin asked for, on first use: it
 *    reopens and rechecks the file, loads it first in a child process (a
 *    plugin that crashes or exits while loading is refused, not fatal), then
 *    dlopens the checked descriptor through /proc/self/fd, calls the entry
 *    and validates the descriptor (ABI, ops, name = file name).
 *
 * Every failure becomes one line naming the file and the reason; a failed
 * plugin is recorded (iobench plugins shows it; iob_registry_missing says it
 * whenever it is asked for) and skipped.
 */
#ifndef IOBENCH_LOADER_H
#define IOBENCH_LOADER_H

#include <stddef.h>
#include "iobench/plugin.h"

#define IOB_MAX_PLUGINS 64
#define IOB_MAX_PLUGIN_DIRS 16
#define IOB_MAX_LOAD_ERRORS 32

enum iob_plugin_state {
	IOB_PLUGIN_FOUND = 0,   /* scanned, not checked or loaded yet */
	IOB_PLUGIN_LOADED = 1,  /* loaded and valid: desc and ops are usable */
	IOB_PLUGIN_REFUSED = 2, /* refused; why says it */
};

/* A plugin of the registry.  desc.kind and desc.name are always valid (from
 * the file name); the rest of desc and the ops only when state is LOADED,
 * copied into full-size zeroed structs so every hook the plugin did not know
 * about reads NULL. */
struct iob_loaded {
	struct iob_plugin desc;
	struct iob_backend_ops backend; /* valid for loaded backends */
	struct iob_output_ops output;   /* valid for loaded outputs */
	char path[4096];                /* file it came from, or "(built in)" */
	void *dl;                       /* dlopen handle, NULL when built in */
	int state;                      /* enum iob_plugin_state */
	int fd;                         /* the checked file, open while loaded; -1 */
	char name[32];                  /* desc.name points here */
	char why[512];                  /* one-line reason when REFUSED */
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
	char exe_why[512]; /* why the directory beside the binary was not searched ("" when it was) */
};

/* The host table handed to every plugin. */
extern const struct iob_host iob_host_table;

/* Build the search path (extra_dirs may be NULL) and scan it: check each
 * directory and record every candidate by file name (checked when asked
 * for).  Runs no plugin code.  Returns 0; problems are recorded in
 * reg->errors. */
int iob_registry_load(struct iob_registry *reg, const char *const *extra_dirs, size_t nextra);
/* Add one plugin file (named iob-KIND-NAME.so) and load it now; returns 0
 * or -errno with a line in reg->errors. */
int iob_registry_load_file(struct iob_registry *reg, const char *path);
/* Register a plugin compiled into the binary (a tool's legacy renderer). */
int iob_registry_add_static(struct iob_registry *reg, const struct iob_plugin *p);
/* The plugin of that kind and name, loading it on first use; NULL when there
 * is none or it was refused (iob_registry_missing says why).  Loading
 * changes the registry although it is passed const: the registry is a cache
 * that is filled on demand, so a registry must never be defined const.  Not
 * thread-safe while a plugin is being loaded: resolve plugins from one
 * thread before starting others (the runner does). */
const struct iob_loaded *iob_registry_find(const struct iob_registry *reg, enum iob_plugin_kind kind,
					    const char *name);
void iob_registry_unload(struct iob_registry *reg);
/* For a process about to exit: closes the plugin files and forgets the
 * entries, but leaves the plugins' code loaded (the exit unmaps it; a
 * dlclose of each costs a walk of the loader's lists and an unmap). */
void iob_registry_leave(struct iob_registry *reg);
/* One line for a plugin that was asked for but is not available: why its
 * file was refused, if one was, else which plugins of that kind there are.
 * Loads the plugin first if nobody asked for it yet, and makes the trust
 * check of every candidate not checked yet (one refused is not listed). */
void iob_registry_missing(const struct iob_registry *reg, enum iob_plugin_kind kind, const char *name, char *msg,
			  size_t len);
/* Validate a descriptor against this core; 0 or -errno with a reason. */
int iob_plugin_validate(const struct iob_plugin *p, char *why, size_t whylen);
/* Check a job's backend_options text against backend b before anything is
 * opened: 0 when options is NULL or empty; for a backend that declares its
 * options (ABI 1.4), every key must be declared and its value of the
 * declared type and range (else the line names it); then, when b has
 * control(), control(NULL, IOB_CTL_CHECK_OPTIONS, text) must return 0.
 * Otherwise -EINVAL with one line "backend NAME: ..." in err (a backend
 * without declared options or control refuses any non-empty text). */
int iob_backend_check_options(const struct iob_loaded *b, const char *options, char *err, size_t errlen);
/* The core's own check of a backend's declared options (ABI 1.4; b declares
 * them): 0, or -EINVAL with the reason naming the unknown or bad option
 * (without the backend's name in front). */
int iob_backend_check_declared(const struct iob_loaded *b, const char *options, char *why, size_t whylen);

#endif
