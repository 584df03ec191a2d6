/*
 * check.c - every check a run makes before anything is created
 * (iobench/runner.h: iob_suite_check, iob_job_check, iob_run_check): the
 * jobs, their backends and options, their targets, names, direct-I/O
 * alignment, the whole suite's space, and outputs that would overlap the
 * run's own files.  Touches no file.
 */
#include "iobench/fiojob.h"
#include "iobench/runner.h" /* declares iob_suite_check, iob_run_check, which this file defines */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/caveats.h"
#include "iobench/cli.h"
#include "iobench/coord.h"
#include "iobench/engine.h"
#include "iobench/meta.h"
#include "iobench/numa.h"
#include "iobench/fiolog.h"
#include "iobench/log.h"
#include "iobench/os.h"
#include "iobench/repeat.h"
#include "iobench/shape.h"
#include "iobench/units.h"
#include "check.h"


/* Phases that write: write, and mixed (its writes may create the file). */
#define WRITING_PHASES (IOB_PHASE_BIT(IOB_PHASE_WRITE) | IOB_PHASE_BIT(IOB_PHASE_MIXED))

int iob_target_size(const char *path, uint64_t *size)
{
	if (iob_path_kind(path, 1) != IOB_PATH_REGULAR)
		return -EINVAL;
	return iob_file_size(path, size);
}

int iob_is_stdin_path(const char *path)
{
	return strcmp(path, "-") == 0;
}

/* The directory that would hold path is the device file system: /dev's own
 * mount (devtmpfs, or the tmpfs a container mounts there; not /dev/shm, a
 * mount of its own).  A missing name there is a missing device, not a file
 * to create. */
static int in_dev_fs(const char *path)
{
	char parent[IOB_PATH_MAX];
	uint64_t pdev, ddev, rdev;
	const char *slash = strrchr(path, '/');
	if (!slash || (size_t)(slash - path) >= sizeof parent)
		return 0;
	size_t n = slash == path ? 1 : (size_t)(slash - path);
	memcpy(parent, path, n);
	parent[n] = '\0';
	return iob_path_device(parent, &pdev) == 0 && iob_path_device("/dev", &ddev) == 0 &&
	       iob_path_device("/", &rdev) == 0 && pdev == ddev && ddev != rdev;
}

/* Refuse what is not a plain file (devices only when allowed, symlinks only
 * when followed), check access and existence.  Adds to *existing the bytes
 * already there that a write reuses.  Touches nothing. */
static void refused(struct iob_target_refusal *t, enum iob_target_why why, const char *path)
{
	if (!t)
		return;
	t->why = why;
	snprintf(t->path, sizeof t->path, "%s", path);
}

static int check_target(const struct iob_job *job, const char *path, int writes, int may_be_missing,
			uint64_t *existing, struct iob_target_refusal *t, char *err, size_t errlen)
{
	enum iob_path_kind k = iob_path_kind(path, 1);
	enum iob_path_kind lk = iob_path_kind(path, 0);
	int device = k == IOB_PATH_BLOCKDEV || k == IOB_PATH_CHARDEV;
	int caller_refuses = k == IOB_PATH_CHARDEV && t && t->refuse_chardev;
	if (device && (!job->allow_devices || caller_refuses)) {
		snprintf(err, errlen, "[%s] %s is a %s device%s; refusing to touch it%s", job->name, path,
			 k == IOB_PATH_BLOCKDEV ? "block" : "character", lk == IOB_PATH_SYMLINK ? " behind a symlink" : "",
			 job->allow_devices ? "" : " (iobench --allow-device, or allow_devices = true in a profile)");
		refused(t, k == IOB_PATH_BLOCKDEV ? IOB_TARGET_BLOCKDEV : IOB_TARGET_CHARDEV, path);
		if (t)
			t->behind_link = lk == IOB_PATH_SYMLINK;
		return -EPERM;
	}
	if (lk == IOB_PATH_SYMLINK && k == IOB_PATH_MISSING) {
		snprintf(err, errlen, "[%s] %s is a dangling symlink", job->name, path);
		refused(t, IOB_TARGET_DANGLING, path);
		return -ENOENT;
	}
	if (lk == IOB_PATH_SYMLINK && !job->follow_symlinks) {
		snprintf(err, errlen,
			 "[%s] %s is a symbolic link; refusing to follow it (a link planted in a shared directory "
			 "could aim the job at another file; set follow_symlinks = true to allow it)",
			 job->name, path);
		return -ELOOP;
	}
	if (k == IOB_PATH_DIRECTORY || k == IOB_PATH_OTHER) {
		snprintf(err, errlen, "[%s] %s is %s, not a file", job->name, path,
			 k == IOB_PATH_DIRECTORY ? "a directory" : "a fifo or socket");
		refused(t, k == IOB_PATH_DIRECTORY ? IOB_TARGET_DIRECTORY : IOB_TARGET_OTHER, path);
		return -EISDIR;
	}
	if (k == IOB_PATH_MISSING && in_dev_fs(path)) {
		/* meant as a device: never made a file in the device file system */
		snprintf(err, errlen,
			 "[%s] %s does not exist (no such device; iobench creates no file in /dev's file system)",
			 job->name, path);
		refused(t, IOB_TARGET_MISSING, path);
		return -ENOENT;
	}
	if (k == IOB_PATH_MISSING) {
		/* a write phase makes the file; a mixed phase opens it as it is */
		if (!(job->phases & IOB_PHASE_BIT(IOB_PHASE_WRITE)) && !may_be_missing) {
			snprintf(err, errlen, "[%s] %s does not exist (no such file; %s)", job->name, path,
				 writes ? "a mixed phase reads and writes an existing file: put write before it"
					: "a read-only job reads existing files");
			refused(t, IOB_TARGET_MISSING, path);
			return -ENOENT;
		}
		return 0;
	}
	int acc = iob_path_access(path, writes);
	if (acc < 0) {
		snprintf(err, errlen, "[%s] cannot %s %s: %s", job->name, writes ? "write" : "read", path,
			 strerror(-acc));
		return -EACCES;
	}
	uint64_t sz = 0;
	if (device) {
		*existing += job->size; /* a device holds its own space, not its directory's */
	} else if (iob_file_size(path, &sz) == 0) {
		if (!writes && sz == 0 && !may_be_missing) {
			snprintf(err, errlen, "[%s] %s is empty: there is nothing to read", job->name, path);
			return -ENODATA;
		}
		*existing += sz < job->size ? sz : job->size;
	}
	return 0;
}

/* dir without trailing slashes (a trailing slash would follow a final link) */
void iob_strip_slashes(const char *dir, char *out, size_t len)
{
	snprintf(out, len, "%s", dir);
	size_t n = strlen(out);
	while (n > 1 && out[n - 1] == '/')
		out[--n] = '\0';
}

/* A symlinked job directory is followed when the link is owned by root or
 * by the user running the job (so not planted by another user in a shared
 * directory), or with follow_symlinks. */
int iob_dir_link_trusted(const struct iob_job *job, const char *dir)
{
	struct iob_identity id;
	if (job->follow_symlinks)
		return 1;
	if (iob_stat_at(IOB_AT_CWD, dir, &id) != 0 || id.kind != IOB_PATH_SYMLINK)
		return 1;
	return id.uid == 0 || id.uid == iob_euid();
}

/* Show at most 48 bytes of a long name, escaped, ending in "..." */
static const char *short_name(const char *name, size_t n, char *out, size_t outlen)
{
	char head[64];
	snprintf(head, sizeof head, "%.*s%s", (int)(n > 48 ? 48 : n), name, n > 48 ? "..." : "");
	return iob_quote(head, out, outlen);
}

/* A name component over NAME_MAX or a path over PATH_MAX fails at open, as
 * ENAMETOOLONG, after earlier jobs ran: refuse it now. */
#define IOB_NAME_COMPONENT_MAX 255
static int check_name_lengths(const struct iob_job *job, const struct iob_filelist *fl, char *err,
			      size_t errlen)
{
	char shown[256];
	const char *names[2] = {job->dir, job->layout == IOB_LAYOUT_FILE ? job->filename : ""};
	for (int k = 0; k < 2; k++)
		for (const char *c = names[k]; *c;) {
			size_t n = strcspn(c, "/");
			if (n > IOB_NAME_COMPONENT_MAX) {
				snprintf(err, errlen,
					 "[%s] the name '%s' is %zu bytes, over the limit of %d bytes for one file "
					 "name; use a shorter %s",
					 job->name, short_name(c, n, shown, sizeof shown), n, IOB_NAME_COMPONENT_MAX,
					 k ? "filename" : "dir");
				return -ENAMETOOLONG;
			}
			c += n + (c[n] == '/');
		}
	for (size_t i = 0; i < fl->n; i++) {
		const char *slash = strrchr(fl->paths[i], '/');
		const char *last = slash ? slash + 1 : fl->paths[i];
		size_t n = strlen(last); /* a stream's ".<i>" may take a name over the limit */
		if (n > IOB_NAME_COMPONENT_MAX) {
			snprintf(err, errlen,
				 "[%s] the name '%s' is %zu bytes, over the limit of %d bytes for one file name; use a "
				 "shorter filename",
				 job->name, short_name(last, n, shown, sizeof shown), n, IOB_NAME_COMPONENT_MAX);
			return -ENAMETOOLONG;
		}
		n = strlen(fl->paths[i]);
		if (n >= IOB_PATH_MAX) {
			snprintf(err, errlen,
				 "[%s] the path '%s' is %zu bytes, over the limit of %d bytes for a path; use a "
				 "shorter dir",
				 job->name, short_name(fl->paths[i], n, shown, sizeof shown), n, IOB_PATH_MAX - 1);
			return -ENAMETOOLONG;
		}
	}
	return 0;
}

/* Directories of a tree: missing (made by the job) or real directories;
 * a symlink only with follow_symlinks. */
static int check_tree_dirs(const struct iob_job *job, const struct iob_filelist *fl, char *err, size_t errlen)
{
	for (size_t i = 0; i < fl->ndirs; i++) {
		enum iob_path_kind lk = iob_path_kind(fl->dirs[i], 0);
		if (lk == IOB_PATH_MISSING || lk == IOB_PATH_DIRECTORY)
			continue;
		if (lk == IOB_PATH_SYMLINK && job->follow_symlinks &&
		    iob_path_kind(fl->dirs[i], 1) == IOB_PATH_DIRECTORY)
			continue;
		char q[IOB_PATH_MAX + 64];
		if (lk == IOB_PATH_SYMLINK)
			snprintf(err, errlen,
				 "[%s] %s is a symbolic link; refusing to follow it (a link planted in a shared "
				 "directory could aim the job elsewhere; set follow_symlinks = true to allow it)",
				 job->name, iob_quote(fl->dirs[i], q, sizeof q));
		else
			snprintf(err, errlen, "[%s] %s is in the way: the tree needs a directory there", job->name,
				 iob_quote(fl->dirs[i], q, sizeof q));
		return lk == IOB_PATH_SYMLINK ? -ELOOP : -ENOTDIR;
	}
	return 0;
}

static int check_targets(const struct iob_job *job, const struct iob_filelist *fl, int may_be_missing,
			 uint64_t *need, struct iob_target_refusal *t, char *err, size_t errlen)
{
	int writes = (job->phases & WRITING_PHASES) != 0;
	*need = 0;
	if (iob_is_stdin_path(fl->paths[0]))
		return 0;
	int rc = check_name_lengths(job, fl, err, errlen);
	if (rc)
		return rc;
	enum iob_path_kind dk = iob_path_kind(job->dir, 1);
	if (dk != IOB_PATH_DIRECTORY) {
		snprintf(err, errlen, "[%s] dir '%s' %s", job->name, job->dir,
			 dk == IOB_PATH_MISSING ? "does not exist" : "is not a directory");
		if (dk == IOB_PATH_MISSING)
			refused(t, IOB_TARGET_DIR_MISSING, fl->paths[0]);
		return -ENOENT;
	}
	char dir[IOB_PATH_MAX];
	iob_strip_slashes(job->dir, dir, sizeof dir);
	if (!iob_dir_link_trusted(job, dir)) {
		snprintf(err, errlen,
			 "[%s] dir '%s' is a symbolic link owned by another user; refusing to follow it (set "
			 "follow_symlinks = true to allow it)",
			 job->name, job->dir);
		return -ELOOP;
	}
	if ((rc = check_tree_dirs(job, fl, err, errlen)) != 0)
		return rc;
	uint64_t existing = 0;
	int all_devices = 1;
	for (size_t i = 0; i < fl->n; i++) {
		rc = check_target(job, fl->paths[i], writes, may_be_missing, &existing, t, err, errlen);
		if (rc)
			return rc;
		enum iob_path_kind k = iob_path_kind(fl->paths[i], 1);
		all_devices &= k == IOB_PATH_BLOCKDEV || k == IOB_PATH_CHARDEV;
	}
	/* a device is written in place: its directory need not be writable */
	if (writes && !all_devices && iob_dir_writable(job->dir) != 0) {
		snprintf(err, errlen, "[%s] dir '%s' is not writable", job->name, job->dir);
		return -EACCES;
	}
	if (writes) {
		uint64_t total = job->size > UINT64_MAX / fl->n ? UINT64_MAX : job->size * fl->n;
		*need = total > existing ? total - existing : 0;
	}
	return 0;
}

/* I/O priorities: a backend that sets one per I/O for cmdprio_*, and the
 * privilege class 1 (real time) needs, tried on this thread and put back. */
static int check_prio(const struct iob_job *job, const struct iob_loaded *b, char *err, size_t errlen)
{
	struct iob_shape sh;
	char why[400];
	if (iob_job_shape(job, &sh, why, sizeof why) < 0)
		return 0; /* validation says why */
	if (sh.cmdprio.on && !(b->desc.caps & IOB_CAP_IOPRIO)) {
		snprintf(err, errlen,
			 "[%s] cmdprio_percentage and cmdprio_bssplit need a backend that sets a priority per I/O "
			 "(libaio, io_uring); backend '%s' cannot",
			 job->name, b->desc.name);
		return -ENOTSUP;
	}
	if (!job->load.prio_class && !sh.cmdprio.on)
		return 0;
	int old = iob_thread_ioprio_get();
	if (old == -ENOTSUP) {
		snprintf(err, errlen, "[%s] I/O priorities (prio_class, cmdprio_*) are Linux's: this system has none",
			 job->name);
		return -ENOTSUP;
	}
	if (!iob_cmdprio_wants_rt(&sh.cmdprio))
		return 0;
	int rc = old < 0 ? old : iob_thread_ioprio_set(1u << IOB_PRIO_CLASS_SHIFT | 7u);
	if (rc == 0)
		iob_thread_ioprio_set((unsigned)old);
	if (rc == -EPERM) {
		snprintf(err, errlen,
			 "[%s] I/O priority class 1 (real time) needs root (CAP_SYS_ADMIN or CAP_SYS_NICE): run as "
			 "root, or ask for class 2 (best effort) or 3 (idle)",
			 job->name);
		return -EPERM;
	}
	return 0;
}

/* control(NULL, op, arg) of a backend that has control(), its log lines
 * held: the backend says why through the log, and that reason goes into
 * the one error line instead of a line of its own */
static int ask_held(const struct iob_loaded *b, int op, void *arg, struct iob_log_held *held)
{
	memset(held, 0, sizeof *held);
	iob_log_set_hook(iob_log_hold, held);
	int rc = b->backend.control(NULL, op, arg);
	iob_log_set_hook(NULL, NULL);
	return rc;
}

static int check_backend(const struct iob_job *job, const struct iob_loaded *b, char *err, size_t errlen)
{
	if (!job->backend_options[0])
		return 0;
	/* declared options (ABI 1.4): the core's own check names the bad one */
	char why[768];
	if (b->desc.options && iob_backend_check_declared(b, job->backend_options, why, sizeof why) != 0) {
		snprintf(err, errlen, "[%s] backend %s refuses backend_options '%s': %s", job->name, b->desc.name,
			 job->backend_options, why);
		return -EINVAL;
	}
	if (b->desc.options && !b->backend.control)
		return 0;
	struct iob_log_held held;
	int rc = b->backend.control ? ask_held(b, IOB_CTL_CHECK_OPTIONS, (void *)job->backend_options, &held) : -EINVAL;
	if (rc < 0)
		snprintf(err, errlen, "[%s] backend %s refuses backend_options '%s'%s%s", job->name, b->desc.name,
			 job->backend_options, b->backend.control ? "" : " (it takes no options)",
			 held.reason[0] ? ": " : "");
	if (rc < 0 && held.reason[0]) {
		size_t n = strlen(err);
		snprintf(err + n, errlen - n, "%s", held.reason);
	}
	return rc < 0 ? -EINVAL : 0;
}

/* The backend's own look at where the job's files go (ABI 1.5,
 * IOB_CTL_CHECK_TARGET; e4defrag: the file system, its donor file). */
static int check_backend_target(const struct iob_job *job, const struct iob_loaded *b, const struct iob_filelist *fl,
			char *err, size_t errlen)
{
	if (!b->backend.control || !fl->n)
		return 0;
	uint32_t wflags = IOB_OPEN_WRITE | IOB_OPEN_CREATE | (job->truncate ? IOB_OPEN_TRUNC : 0);
	struct iob_target_check q = {.struct_size = sizeof q, .options = job->backend_options, .dir = job->dir,
				     .path = fl->paths[0], .open_flags = (job->phases & WRITING_PHASES) ? wflags : 0};
	struct iob_log_held held;
	int rc = ask_held(b, IOB_CTL_CHECK_TARGET, &q, &held);
	if (rc >= 0 || rc == -ENOTSUP)
		return 0;
	snprintf(err, errlen, "[%s] backend %s: %s", job->name, b->desc.name,
		 held.reason[0] ? held.reason : strerror(-rc));
	return rc;
}

/* Direct I/O: the file system must be able to bypass its cache, and the
 * block size, random offset alignment and written size must be multiples of
 * its alignment.  Found here rather than at open, after earlier jobs ran. */
static int check_direct(const struct iob_job *job, const struct iob_loaded *b, const struct iob_filelist *fl,
			char *err, size_t errlen)
{
	uint32_t caps = b->desc.caps;
	if (b->backend.control && job->backend_options[0]) { /* options may make it direct (io_uring's direct=1) */
		struct iob_option_caps q = {.options = job->backend_options, .caps = caps};
		if (b->backend.control(NULL, IOB_CTL_OPTION_CAPS, &q) == 0)
			caps = q.caps;
	}
	if (!(caps & IOB_CAP_DIRECT))
		return 0;
	const char *probe = iob_path_kind(fl->paths[0], 1) == IOB_PATH_REGULAR ? fl->paths[0] : job->dir;
	uint32_t align = 0;
	int rc = iob_dio_alignment(probe, &align);
	if (rc == -EINVAL) {
		char why[IOB_PATH_MAX + 256];
		iob_caveat_direct_alignment(probe, &align, why, sizeof why);
		snprintf(err, errlen, "[%s] backend %s: %s; use a backend that goes through the cache, or a disk", job->name,
			 b->desc.name, why);
		return -EINVAL;
	}
	if (rc != 0 || align <= 1 || !(caps & IOB_CAP_ALIGNED))
		return 0;
	int writes = (job->phases & WRITING_PHASES) != 0;
	const char *bad = NULL;
	uint64_t val = 0;
	if (job->block_size % align) {
		bad = "block size";
		val = job->block_size;
	} else if (job->access == IOB_ACCESS_RAND && job->offset_align && job->offset_align % align) {
		bad = "offset alignment";
		val = job->offset_align;
	} else if (writes && job->size % align) {
		bad = "file size";
		val = job->size;
	}
	if (!bad)
		return 0;
	snprintf(err, errlen,
		 "[%s] %s %llu is not a multiple of %u bytes, the alignment direct I/O needs on the file system "
		 "of %s (backend %s cannot serve it through the cache)",
		 job->name, bad, (unsigned long long)val, align, probe, b->desc.name);
	return -EINVAL;
}

static int job_check(const struct iob_job *job, const struct iob_registry *reg, int may_be_missing, uint64_t *need,
		     struct iob_target_refusal *t, char *err, size_t errlen)
{
	if (job->workload == IOB_WORKLOAD_FILES) /* meta.c: no backend, no data file */
		return iob_meta_check(job, need, err, errlen);
	const struct iob_loaded *b = iob_registry_find(reg, IOB_PLUGIN_BACKEND, job->backend);
	*need = 0;
	if (!b) {
		char why[1024];
		iob_registry_missing(reg, IOB_PLUGIN_BACKEND, job->backend, why, sizeof why);
		snprintf(err, errlen, "[%s] %s", job->name, why);
		return -ENOENT;
	}
	if ((job->phases & WRITING_PHASES) && !(b->desc.caps & IOB_CAP_WRITE)) {
		snprintf(err, errlen, "[%s] backend '%s' cannot write", job->name, job->backend);
		return -ENOTSUP;
	}
	if ((job->phases & ~IOB_PHASE_BIT(IOB_PHASE_WRITE)) && !(b->desc.caps & IOB_CAP_READ)) {
		snprintf(err, errlen, "[%s] backend '%s' cannot read", job->name, job->backend);
		return -ENOTSUP;
	}
	int rc = check_backend(job, b, err, errlen);
	if (rc)
		return rc;
	if (job->iodepth > 1 && !(b->desc.caps & IOB_CAP_ASYNC)) {
		snprintf(err, errlen,
			 "[%s] iodepth %u needs a backend that can keep I/Os in flight; backend '%s' does one at a "
			 "time (set iodepth = 1, or use io_uring)",
			 job->name, job->iodepth, b->desc.name);
		return -ENOTSUP;
	}
	char why[320]; /* NUMA: the nodes named exist on this machine */
	if ((rc = iob_numa_check(job->numa_cpu_nodes, job->numa_mem_policy, why, sizeof why)) != 0) {
		snprintf(err, errlen, "[%s] %s", job->name, why);
		return rc;
	}
	if ((rc = check_prio(job, b, err, errlen)))
		return rc;
	if (iob_is_stdin_path(job->filename)) {
		if (iob_cli_stdin_closed) {
			snprintf(err, errlen, "[%s] standard input is closed (started with <&-): there is nothing to read",
				 job->name);
			return -EINVAL;
		}
		if (job->group) {
			snprintf(err, errlen, "[%s] group %u: standard input is read by a job alone; set group = 0",
				 job->name, job->group);
			return -EINVAL;
		}
		if (job->threads != 1) {
			snprintf(err, errlen, "[%s] threads %u: standard input can be read by one stream only (threads = 1)",
				 job->name, job->threads);
			return -EINVAL;
		}
		if (!(b->desc.caps & IOB_CAP_STREAM) || (job->phases & WRITING_PHASES) ||
		    job->access != IOB_ACCESS_SEQ) {
			snprintf(err, errlen, "[%s] standard input needs a stream-capable backend, sequential reads only",
				 job->name);
			return -EINVAL;
		}
		return 0;
	}
	struct iob_filelist fl;
	if ((rc = iob_job_validate(job, err, errlen)) != 0)
		return rc;
	if ((rc = iob_job_files(job, &fl)) != 0) {
		snprintf(err, errlen, "[%s] out of memory listing files", job->name);
		return rc;
	}
	if (b->desc.caps & IOB_CAP_NOSTORAGE) { /* null: the files are names only, never made or read */
		rc = check_targets(job, &fl, 1, need, t, err, errlen);
		*need = 0;
	} else {
		rc = check_targets(job, &fl, may_be_missing, need, t, err, errlen);
		if (rc == 0)
			rc = check_direct(job, b, &fl, err, errlen);
		if (rc == 0)
			rc = check_backend_target(job, b, &fl, err, errlen);
	}
	iob_filelist_free(&fl);
	return rc;
}

/* The last earlier job of the suite that writes and keeps the files job i
 * uses, or NULL. */
static const struct iob_job *writer_before(const struct iob_suite *suite, size_t i)
{
	const struct iob_job *j = &suite->jobs[i], *found = NULL;
	for (size_t k = 0; k < i; k++) {
		const struct iob_job *w = &suite->jobs[k];
		if (j->group && w->group == j->group)
			continue; /* runs at the same time: its files may not be there yet */
		/* the same files: per-stream copies only for the same number of streams */
		int same_streams = iob_job_stream_files(w) == iob_job_stream_files(j) &&
				   (!iob_job_stream_files(j) || w->threads == j->threads);
		if ((w->phases & IOB_PHASE_BIT(IOB_PHASE_WRITE)) && w->keep_files && w->layout == j->layout &&
		    same_streams &&
		    strcmp(w->dir, j->dir) == 0 &&
		    (j->layout == IOB_LAYOUT_FILE ? strcmp(w->filename, j->filename) == 0
						  : w->tree_levels == j->tree_levels && w->tree_files == j->tree_files))
			found = w;
	}
	return found;
}


/* Space for the whole suite: the files kept by earlier jobs stay, the files
 * of a job that removes them are gone after it.  The jobs of a group run at
 * the same time, so their files are all there at once: a group needs the sum
 * of its jobs' space.  Per file system. */
struct space {
	uint64_t dev, kept, avail, group; /* group: what the group being checked needs here */
	int known;
};


/* The end of the run of jobs that starts at i: one job, or its group. */
size_t iob_check_group_end(const struct iob_suite *suite, size_t i)
{
	size_t e = i + 1;
	while (suite->jobs[i].group && e < suite->njobs && suite->jobs[e].group == suite->jobs[i].group)
		e++;
	return e;
}

static int check_space(const struct iob_suite *suite, const uint64_t *need, char *err, size_t errlen)
{
	struct space fs[16];
	size_t nfs = 0, *at = calloc(suite->njobs ? suite->njobs : 1, sizeof *at);
	if (!at) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t a = 0, e; a < suite->njobs; a = e) {
		e = iob_check_group_end(suite, a);
		for (size_t f = 0; f < nfs; f++)
			fs[f].group = 0;
		for (size_t i = a; i < e; i++) {
			const struct iob_job *j = &suite->jobs[i];
			uint64_t dev = 0;
			at[i] = SIZE_MAX;
			if (!need[i] || iob_path_device(j->dir, &dev) != 0)
				continue;
			size_t f = 0;
			while (f < nfs && fs[f].dev != dev)
				f++;
			if (f == nfs) {
				if (nfs == sizeof fs / sizeof fs[0])
					continue;
				fs[nfs] = (struct space){.dev = dev};
				fs[nfs].known = iob_fs_free_bytes(j->dir, &fs[nfs].avail) == 0;
				nfs++;
			}
			at[i] = f;
			fs[f].group = iob_add_sat(fs[f].group, need[i]);
			uint64_t total = iob_add_sat(fs[f].kept, fs[f].group);
			if (fs[f].known && total > fs[f].avail) {
				char x[32], y[32];
				iob_format_bytes((double)total, x, sizeof x);
				iob_format_bytes((double)fs[f].avail, y, sizeof y);
				snprintf(err, errlen,
					 "[%s] not enough space in %s: the suite needs %s there by the end of this %s, %s "
					 "is free",
					 j->name, j->dir, x, j->group ? "group" : "job", y);
				free(at);
				return -ENOSPC;
			}
		}
		for (size_t i = a; i < e; i++)
			if (suite->jobs[i].keep_files && at[i] != SIZE_MAX)
				fs[at[i]].kept = iob_add_sat(fs[at[i]].kept, need[i]);
	}
	free(at);
	return 0;
}

/* A group's jobs are consecutive, and a group holds at most
 * IOB_GROUP_JOBS_MAX jobs; runs across MPI ranks have no groups. */
static int check_groups(const struct iob_suite *suite, char *err, size_t errlen)
{
	for (size_t a = 0, e; a < suite->njobs; a = e) {
		const struct iob_job *j = &suite->jobs[a];
		e = iob_check_group_end(suite, a);
		for (size_t k = a; k < e; k++) /* repeat.c: a job run again runs alone */
			if (iob_job_runs_again(&suite->jobs[k]) && (e - a > 1 || iob_coord_active())) {
				snprintf(err, errlen, "[%s] repeat, until_ci and steady_state run a job's phases again, "
						      "alone: %s",
					 suite->jobs[k].name,
					 iob_coord_active() ? "not across MPI ranks" : "not in a group with other jobs");
				return -EINVAL;
			}
		if (!j->group)
			continue;
		if (iob_coord_active() && e - a > 1) { /* a group of one runs as a lone job */
			snprintf(err, errlen, "[%s] group %u: jobs cannot run at once across MPI ranks; set group = 0",
				 j->name, j->group);
			return -EINVAL;
		}
		if (e - a > IOB_GROUP_JOBS_MAX) {
			snprintf(err, errlen, "[%s] group %u has %zu jobs: at most %u run at once", j->name, j->group,
				 e - a, IOB_GROUP_JOBS_MAX);
			return -EINVAL;
		}
		for (size_t k = 0; k < a; k++)
			if (suite->jobs[k].group == j->group) {
				snprintf(err, errlen,
					 "[%s] group %u was used before, by job %s: the jobs of a group must be "
					 "consecutive",
					 j->name, j->group, suite->jobs[k].name);
				return -EINVAL;
			}
	}
	return 0;
}

/* dedupe_global (fill.c): the jobs sharing a working set draw each other's
 * blocks by their own size, so they must be alike. */
static int check_dedupe_global(const struct iob_suite *suite, char *err, size_t errlen)
{
	const struct iob_job *first = NULL;
	for (size_t i = 0; i < suite->njobs; i++) {
		const struct iob_job *j = &suite->jobs[i];
		const struct iob_pattern *p = &j->pattern;
		if (!p->dedupe_global || !p->dedupe_pct)
			continue;
		if (p->dedupe_mode != IOB_DEDUPE_WORKING_SET) {
			snprintf(err, errlen, "[%s] dedupe_global needs dedupe_mode = working_set", j->name);
			return -EINVAL;
		}
		if (!first) {
			first = j;
			continue;
		}
		const struct iob_pattern *q = &first->pattern;
		if (j->size != first->size || j->block_size != first->block_size || p->dedupe_pct != q->dedupe_pct ||
		    p->dedupe_ws_pct != q->dedupe_ws_pct || p->seed != q->seed) {
			snprintf(err, errlen,
				 "[%s] dedupe_global: size, block_size, seed, dedupe_percentage and dedupe_working_set "
				 "must be those of job %s, which shares the working set",
				 j->name, first->name);
			return -EINVAL;
		}
	}
	return 0;
}

/* ------------------------------------------------------ the memory budget */

int iob_job_check(const struct iob_job *job, const struct iob_registry *reg, char *err, size_t errlen)
{
	struct iob_suite one = {.njobs = 1, .jobs = (struct iob_job *)job};
	return iob_suite_check(&one, reg, err, errlen);
}

int iob_suite_check(const struct iob_suite *suite, const struct iob_registry *reg, char *err, size_t errlen)
{
	return iob_suite_check_target(suite, reg, NULL, err, errlen);
}

int iob_suite_check_target(const struct iob_suite *suite, const struct iob_registry *reg,
			   struct iob_target_refusal *t, char *err, size_t errlen)
{
	if (t) {
		t->why = IOB_TARGET_FINE;
		t->behind_link = 0;
		t->job = 0;
		t->path[0] = '\0';
	}
	uint64_t *need = calloc(suite->njobs ? suite->njobs : 1, sizeof *need);
	int rc = 0;
	if (!need) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < suite->njobs && rc == 0; i++) {
		const struct iob_job *w = writer_before(suite, i), *j = &suite->jobs[i];
		rc = job_check(j, reg, w != NULL, &need[i], t, err, errlen);
		if (rc == 0)
			rc = iob_check_job_logs(j, err, errlen);
		if (rc && t)
			t->job = i;
		if (w && need[i]) /* those files are there by then: only growth needs room */
			need[i] = j->size > w->size ? (need[i] / j->size) * (j->size - w->size) : 0;
		if (j->fill_device) /* it writes what is free, and ENOSPC is its end: nothing to check */
			need[i] = 0;
	}
	if (rc == 0)
		rc = check_groups(suite, err, errlen);
	if (rc == 0)
		rc = check_dedupe_global(suite, err, errlen);
	if (rc == 0)
		rc = iob_check_memory(suite, err, errlen);
	if (rc == 0)
		rc = iob_check_group_files(reg, suite, err, errlen, NULL);
	if (rc == 0)
		rc = check_space(suite, need, err, errlen);
	free(need);
	return rc;
}

/* Files a job reads or writes, and the protected ones, as one list (owned
 * strings; *n entries). */
static char **run_paths(const struct iob_suite *suite, size_t *n)
{
	size_t cap = 16, k = 0;
	char **v = malloc(cap * sizeof *v);
	for (size_t i = 0; v && i < suite->njobs; i++) {
		struct iob_filelist fl;
		if (iob_job_files(&suite->jobs[i], &fl) != 0)
			goto fail;
		for (size_t f = 0; f < fl.n; f++) {
			if (iob_is_stdin_path(fl.paths[f]))
				continue;
			if (k == cap) {
				char **nv = realloc(v, (cap *= 2) * sizeof *v);
				if (!nv) {
					iob_filelist_free(&fl);
					goto fail;
				}
				v = nv;
			}
			v[k++] = fl.paths[f];
			fl.paths[f] = NULL;
		}
		iob_filelist_free(&fl);
	}
	*n = k;
	return v;
fail:
	for (size_t i = 0; i < k; i++)
		free(v[i]);
	free(v);
	return NULL;
}

/* A job's data file that is the profile or one of its includes. */
static int check_protected(const struct iob_suite *suite, const struct iob_run_opts *opts, char *err,
			   size_t errlen)
{
	for (size_t i = 0; i < suite->njobs; i++) {
		struct iob_filelist fl;
		const struct iob_job *job = &suite->jobs[i];
		if (iob_job_files(job, &fl) != 0) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		int rc = 0;
		for (size_t f = 0; f < fl.n && !rc; f++) {
			uint64_t dev, ino, pdev, pino;
			enum iob_path_kind k, pk;
			if (iob_is_stdin_path(fl.paths[f]) || iob_file_identity(fl.paths[f], &dev, &ino, &k) != 0)
				continue;
			for (size_t p = 0; p < opts->nprotect && !rc; p++)
				if (opts->protect[p] && iob_file_identity(opts->protect[p], &pdev, &pino, &pk) == 0 &&
				    pdev == dev && pino == ino) {
					snprintf(err, errlen,
						 "[%s] the data file %s is %s, which this run reads as its profile: "
						 "choose another filename",
						 job->name, fl.paths[f], opts->protect[p]);
					rc = -EINVAL;
				}
		}
		iob_filelist_free(&fl);
		if (rc)
			return rc;
	}
	return 0;
}

int iob_run_check(const struct iob_registry *reg, const struct iob_run_opts *opts, const struct iob_suite *suite,
		  char *err, size_t errlen)
{
	int rc = iob_suite_check(suite, reg, err, errlen);
	if (rc == 0)
		rc = check_protected(suite, opts, err, errlen);
	if (rc == 0)
		rc = iob_fiologs_check(suite, err, errlen);
	if (rc && suite->from_fio)
		iob_fio_advice(err, errlen);
	if (rc || !opts->outputs)
		return rc;
	size_t n = 0;
	char **paths = run_paths(suite, &n);
	const char **all = paths ? malloc((n + opts->nprotect + 1) * sizeof *all) : NULL;
	if (!all) {
		free(paths);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		all[i] = paths[i];
	for (size_t i = 0; i < opts->nprotect; i++)
		all[n + i] = opts->protect[i];
	rc = iob_output_spec_check_paths(opts->outputs, all, n + opts->nprotect, err, errlen);
	if (rc == 0)
		rc = iob_check_written(reg, opts, suite, all, n + opts->nprotect, err, errlen);
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	free(all);
	return rc;
}

