/*
 * runner.c - the one run path (iobench/runner.h): checks, jobs, phases,
 * records, and the run's life from outputs opened to exit code.
 */
#include "iobench/runner.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/blocks.h"
#include "iobench/cli.h"
#include "iobench/engine.h"
#include "iobench/log.h"
#include "iobench/os.h"
#include "iobench/units.h"
#include "iobench/version.h"

const char *iob_error_without_job(const char *msg)
{
	if (msg[0] == '[' && strstr(msg, "] "))
		return strstr(msg, "] ") + 2;
	if (strncmp(msg, "job ", 4) == 0 && strstr(msg, ": "))
		return strstr(msg, ": ") + 2;
	return msg;
}

/* ------------------------------------------------------------------ checks */

int iob_target_size(const char *path, uint64_t *size)
{
	if (iob_path_kind(path, 1) != IOB_PATH_REGULAR)
		return -EINVAL;
	return iob_file_size(path, size);
}

static int is_stdin(const char *path)
{
	return strcmp(path, "-") == 0;
}

/* Refuse what is not a plain file (devices only when allowed, symlinks only
 * when followed), check access and existence.  Adds to *existing the bytes
 * already there that a write reuses.  Touches nothing. */
static int check_target(const struct iob_job *job, const char *path, int writes, int may_be_missing,
			uint64_t *existing, char *err, size_t errlen)
{
	enum iob_path_kind k = iob_path_kind(path, 1);
	enum iob_path_kind lk = iob_path_kind(path, 0);
	int device = k == IOB_PATH_BLOCKDEV || k == IOB_PATH_CHARDEV;
	if (device && !job->allow_devices) {
		snprintf(err, errlen, "[%s] %s is a %s device%s; refusing to touch it (set allow_devices = true)",
			 job->name, path, k == IOB_PATH_BLOCKDEV ? "block" : "character",
			 lk == IOB_PATH_SYMLINK ? " behind a symlink" : "");
		return -EPERM;
	}
	if (lk == IOB_PATH_SYMLINK && k == IOB_PATH_MISSING) {
		snprintf(err, errlen, "[%s] %s is a dangling symlink", job->name, path);
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
		return -EISDIR;
	}
	if (k == IOB_PATH_MISSING) {
		if (!writes && !may_be_missing) {
			snprintf(err, errlen,
				 "[%s] %s does not exist (no such file; a read-only job reads existing files)",
				 job->name, path);
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
static void strip_slashes(const char *dir, char *out, size_t len)
{
	snprintf(out, len, "%s", dir);
	size_t n = strlen(out);
	while (n > 1 && out[n - 1] == '/')
		out[--n] = '\0';
}

/* A symlinked job directory is followed when the link is owned by root or
 * by the user running the job (so not planted by another user in a shared
 * directory), or with follow_symlinks. */
static int dir_link_trusted(const struct iob_job *job, const char *dir)
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
		size_t n = strlen(fl->paths[i]);
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
			 uint64_t *need, char *err, size_t errlen)
{
	int writes = (job->phases & IOB_PHASE_BIT(IOB_PHASE_WRITE)) != 0;
	*need = 0;
	if (is_stdin(fl->paths[0]))
		return 0;
	int rc = check_name_lengths(job, fl, err, errlen);
	if (rc)
		return rc;
	enum iob_path_kind dk = iob_path_kind(job->dir, 1);
	if (dk != IOB_PATH_DIRECTORY) {
		snprintf(err, errlen, "[%s] dir '%s' %s", job->name, job->dir,
			 dk == IOB_PATH_MISSING ? "does not exist" : "is not a directory");
		return -ENOENT;
	}
	char dir[IOB_PATH_MAX];
	strip_slashes(job->dir, dir, sizeof dir);
	if (!dir_link_trusted(job, dir)) {
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
		rc = check_target(job, fl->paths[i], writes, may_be_missing, &existing, err, errlen);
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

static int check_backend(const struct iob_job *job, const struct iob_loaded *b, char *err, size_t errlen)
{
	if (!job->backend_options[0])
		return 0;
	int rc = b->backend.control ? b->backend.control(NULL, IOB_CTL_CHECK_OPTIONS, (void *)job->backend_options)
				    : -EINVAL;
	if (rc < 0)
		snprintf(err, errlen, "[%s] backend %s refuses backend_options '%s'%s", job->name, b->desc.name,
			 job->backend_options, b->backend.control ? "" : " (it takes no options)");
	return rc < 0 ? -EINVAL : 0;
}

/* Direct I/O: the file system must be able to bypass its cache, and the
 * block size, random offset alignment and written size must be multiples of
 * its alignment.  Found here rather than at open, after earlier jobs ran. */
static int check_direct(const struct iob_job *job, const struct iob_loaded *b, const struct iob_filelist *fl,
			char *err, size_t errlen)
{
	if (!(b->desc.caps & IOB_CAP_DIRECT))
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
	if (rc != 0 || align <= 1 || !(b->desc.caps & IOB_CAP_ALIGNED))
		return 0;
	int writes = (job->phases & IOB_PHASE_BIT(IOB_PHASE_WRITE)) != 0;
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
		     char *err, size_t errlen)
{
	const struct iob_loaded *b = iob_registry_find(reg, IOB_PLUGIN_BACKEND, job->backend);
	*need = 0;
	if (!b) {
		char why[1024];
		iob_registry_missing(reg, IOB_PLUGIN_BACKEND, job->backend, why, sizeof why);
		snprintf(err, errlen, "[%s] %s", job->name, why);
		return -ENOENT;
	}
	if ((job->phases & IOB_PHASE_BIT(IOB_PHASE_WRITE)) && !(b->desc.caps & IOB_CAP_WRITE)) {
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
	if (is_stdin(job->filename)) {
		if (!(b->desc.caps & IOB_CAP_STREAM) || (job->phases & IOB_PHASE_BIT(IOB_PHASE_WRITE)) ||
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
	rc = check_targets(job, &fl, may_be_missing, need, err, errlen);
	if (rc == 0)
		rc = check_direct(job, b, &fl, err, errlen);
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
		if ((w->phases & IOB_PHASE_BIT(IOB_PHASE_WRITE)) && w->keep_files && w->layout == j->layout &&
		    strcmp(w->dir, j->dir) == 0 &&
		    (j->layout == IOB_LAYOUT_FILE ? strcmp(w->filename, j->filename) == 0
						  : w->tree_levels == j->tree_levels && w->tree_files == j->tree_files))
			found = w;
	}
	return found;
}


/* Space for the whole suite: the files kept by earlier jobs stay, the files
 * of a job that removes them are gone after it.  Per file system. */
struct space {
	uint64_t dev, kept, avail;
	int known;
};

static int check_space(const struct iob_suite *suite, const uint64_t *need, char *err, size_t errlen)
{
	struct space fs[16];
	size_t nfs = 0;
	for (size_t i = 0; i < suite->njobs; i++) {
		const struct iob_job *j = &suite->jobs[i];
		uint64_t dev = 0;
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
		uint64_t total = fs[f].kept + need[i];
		if (total < need[i])
			total = UINT64_MAX;
		if (fs[f].known && total > fs[f].avail) {
			char a[32], b[32];
			iob_format_bytes((double)total, a, sizeof a);
			iob_format_bytes((double)fs[f].avail, b, sizeof b);
			snprintf(err, errlen,
				 "[%s] not enough space in %s: the suite needs %s there by the end of this job, %s is "
				 "free",
				 j->name, j->dir, a, b);
			return -ENOSPC;
		}
		if (j->keep_files)
			fs[f].kept = total;
	}
	return 0;
}

int iob_job_check(const struct iob_job *job, const struct iob_registry *reg, char *err, size_t errlen)
{
	struct iob_suite one = {.njobs = 1, .jobs = (struct iob_job *)job};
	return iob_suite_check(&one, reg, err, errlen);
}

int iob_suite_check(const struct iob_suite *suite, const struct iob_registry *reg, char *err, size_t errlen)
{
	uint64_t *need = calloc(suite->njobs ? suite->njobs : 1, sizeof *need);
	int rc = 0;
	if (!need) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < suite->njobs && rc == 0; i++) {
		const struct iob_job *w = writer_before(suite, i), *j = &suite->jobs[i];
		rc = job_check(j, reg, w != NULL, &need[i], err, errlen);
		if (w && need[i]) /* those files are there by then: only growth needs room */
			need[i] = j->size > w->size ? (need[i] / j->size) * (j->size - w->size) : 0;
	}
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
			if (is_stdin(fl.paths[f]))
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
			if (is_stdin(fl.paths[f]) || iob_file_identity(fl.paths[f], &dev, &ino, &k) != 0)
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
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	free(all);
	return rc;
}

/* -------------------------------------------------------------- lifecycle */

static void pins_free(struct iob_pins *ps);

static void print_live_notes(struct iob_run *run)
{
	if (!run->opts.warn_live || run->notes_printed == run->notes.n)
		return;
	fflush(stdout);
	for (; run->notes_printed < run->notes.n; run->notes_printed++)
		fprintf(stderr, "%s: warning: %s\n", iob_log_program(), run->notes.text[run->notes_printed]);
}

void iob_run_note(struct iob_run *run, const char *fmt, ...)
{
	char text[sizeof run->notes.text[0]];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	if (run->quiet)
		return;
	iob_notes_add(&run->notes, "%s", text);
	print_live_notes(run);
}

void iob_run_fail(struct iob_run *run, int usage, const char *fmt, ...)
{
	va_list ap;
	if (run->error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(run->error, sizeof run->error, fmt, ap);
	va_end(ap);
	run->usage = usage;
}

int iob_run_stopped(const struct iob_run *run)
{
	return *run->stop != 0;
}

void iob_run_sleep(struct iob_run *run, double seconds)
{
	if (seconds > 0)
		iob_sleep_ns((uint64_t)(seconds * 1e9), run->stop);
}

void iob_run_record(struct iob_run *run, const struct iob_record *rec)
{
	if (!run->quiet)
		iob_outputs_record(run->out, rec);
}

/* Log lines while the outputs open: the first error is held, the rest
 * printed as usual. */
struct held_log {
	char line[1200];  /* the held error line */
	char reason[1200]; /* its text after "error: " */
};

static void hold_log(int level, const char *line, void *arg)
{
	struct held_log *h = arg;
	const char *why = strstr(line, "error: ");
	if (level != IOB_LOG_ERROR || h->reason[0] || !why) {
		fprintf(stderr, "%s\n", line);
		return;
	}
	snprintf(h->line, sizeof h->line, "%s", line);
	snprintf(h->reason, sizeof h->reason, "%s", why + 7);
}

struct iob_run *iob_run_open(const struct iob_registry *reg, const struct iob_run_opts *opts,
			     const struct iob_suite *suite, int *code)
{
	char err[2048];
	if (iob_run_check(reg, opts, suite, err, sizeof err) != 0) {
		const char *msg = opts->hide_job_names ? iob_error_without_job(err) : err;
		if (opts->source_in_errors && opts->source)
			*code = iob_cli_fail(IOB_EXIT_USAGE, "%s: %s", opts->source, msg);
		else
			*code = iob_cli_fail(IOB_EXIT_USAGE, "%s", msg);
		return NULL;
	}
	struct iob_run *run = calloc(1, sizeof *run);
	if (!run) {
		*code = iob_cli_fail(IOB_EXIT_FAIL, "out of memory");
		return NULL;
	}
	run->suite = suite;
	run->reg = reg;
	run->opts = *opts;
	run->stop = &iob_cli_stop;
	/* an output that refuses its arguments says why through the log: that
	 * reason goes into the one error line instead of a line of its own */
	struct held_log held;
	memset(&held, 0, sizeof held);
	iob_log_set_hook(hold_log, &held);
	int orc = iob_outputs_open(&run->out, reg, opts->outputs, err, sizeof err);
	iob_log_set_hook(NULL, NULL);
	if (orc != 0) {
		free(run);
		char *tail = held.reason[0] ? strrchr(err, ':') : NULL;
		if (tail)
			*tail = '\0';
		*code = iob_cli_fail(IOB_EXIT_USAGE, "%s%s%s", err, tail ? ": " : "", tail ? held.reason : "");
		return NULL;
	}
	if (held.reason[0])
		fprintf(stderr, "%s\n", held.line);
	iob_cli_trap_signals();
	iob_hostname(run->host, sizeof run->host);
	iob_time_iso8601(run->started, sizeof run->started);
	iob_kernel(run->kernel, sizeof run->kernel);
	run->info = (struct iob_run_info){
		.struct_size = sizeof run->info,
		.tool = opts->tool,
		.version = IOB_VERSION,
		.host = run->host,
		.started = run->started,
		.source = opts->source,
		.kernel = run->kernel,
		.schema = IOB_SCHEMA_VERSION,
	};
	iob_outputs_begin(run->out, &run->info);
	*code = 0;
	return run;
}

int iob_run_finish(struct iob_run *run, int status)
{
	int sig = (int)*run->stop;
	if (sig && !run->error[0])
		snprintf(run->error, sizeof run->error, "interrupted by signal %d", sig);
	if (status != 0 && !run->error[0])
		snprintf(run->error, sizeof run->error, "the run failed");
	const char *error = run->opts.hide_job_names ? iob_error_without_job(run->error) : run->error;
	/* with nothing measured because the input was bad, the caveats have
	 * nothing to qualify */
	iob_cli_end_run(run->out, run->usage ? NULL : &run->notes, status, sig != 0 || run->interrupted, error);
	int crc = iob_outputs_close(run->out);
	print_live_notes(run);
	int code = run->usage && status != 0 ? IOB_EXIT_USAGE : iob_cli_exit_code(status, sig);
	if (status != 0 || sig)
		iob_cli_fail(code, "%s", error);
	else if (crc < 0)
		code = iob_cli_fail(IOB_EXIT_FAIL, "writing the results failed: %s", strerror(-crc));
	pins_free(run->pins);
	free(run);
	return code;
}

int iob_run_main(const struct iob_registry *reg, const struct iob_run_opts *opts, const struct iob_suite *suite)
{
	int code;
	struct iob_run *run = iob_run_open(reg, opts, suite, &code);
	if (!run)
		return code;
	return iob_run_finish(run, iob_run_suite(run));
}

/* ------------------------------------------- what the run holds and made */

/* Every directory a job works in is opened once, without following links
 * it was not allowed to follow, and held for the whole run; the engine and
 * the backends open the job's files through "/proc/self/fd/N/name" of that
 * descriptor, so a directory swapped for a link (or renamed) mid-run changes
 * nothing: the files opened are those in the directory that was checked.
 * Cleanup works the same way (unlinkat in the held directories). */
struct pin {
	char *path; /* as the jobs name it */
	int fd;	    /* -1 once closed (the directory was removed) */
};

struct made {
	size_t pin; /* the held directory holding it */
	char *name;
	struct iob_identity id; /* what was created, as first seen */
	int dir;		/* a directory; its own pin is dirpin */
	size_t dirpin;
	int gone;
};

struct iob_pins {
	struct pin *pin;
	size_t npin, cappin;
	struct made *made;
	size_t nmade, capmade;
};

static int grow(void **v, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 16;
	void *nv = realloc(*v, nc * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = nc;
	return 0;
}

static int pins_add(struct iob_pins *ps, const char *path, int fd, size_t *at)
{
	char *copy = strdup(path);
	if (!copy || grow((void **)&ps->pin, &ps->cappin, ps->npin, sizeof *ps->pin) != 0) {
		free(copy);
		return -ENOMEM;
	}
	ps->pin[ps->npin] = (struct pin){.path = copy, .fd = fd};
	*at = ps->npin++;
	return 0;
}

static int made_add(struct iob_pins *ps, size_t pin, const char *name, const struct iob_identity *id, int dir,
		    size_t dirpin)
{
	char *copy = strdup(name);
	if (!copy || grow((void **)&ps->made, &ps->capmade, ps->nmade, sizeof *ps->made) != 0) {
		free(copy);
		return -ENOMEM;
	}
	ps->made[ps->nmade++] = (struct made){.pin = pin, .name = copy, .id = *id, .dir = dir, .dirpin = dirpin};
	return 0;
}

static void pins_free(struct iob_pins *ps)
{
	if (!ps)
		return;
	for (size_t i = 0; i < ps->npin; i++) {
		if (ps->pin[i].fd >= 0)
			iob_fd_close(ps->pin[i].fd);
		free(ps->pin[i].path);
	}
	for (size_t i = 0; i < ps->nmade; i++)
		free(ps->made[i].name);
	free(ps->pin);
	free(ps->made);
	free(ps);
}

static int pins_find(const struct iob_pins *ps, const char *path, size_t *at)
{
	for (size_t i = ps->npin; i-- > 0;)
		if (ps->pin[i].fd >= 0 && strcmp(ps->pin[i].path, path) == 0) {
			*at = i;
			return 1;
		}
	return 0;
}

/* The job's own directory, held open.  A final symlink is followed only as
 * the checks allowed it (dir_link_trusted). */
static int pin_job_dir(struct iob_run *run, const struct iob_job *job, size_t *at)
{
	char dir[IOB_PATH_MAX];
	strip_slashes(job->dir, dir, sizeof dir);
	if (pins_find(run->pins, dir, at))
		return 0;
	int fd = iob_dir_open_at(IOB_AT_CWD, dir, 0, NULL);
	if (fd == -ELOOP && dir_link_trusted(job, dir))
		fd = iob_dir_open_at(IOB_AT_CWD, dir, 1, NULL);
	if (fd < 0) {
		iob_run_fail(run, fd == -ELOOP, "[%s] cannot open dir '%s': %s", job->name, job->dir,
			     fd == -ELOOP ? "it became a symbolic link after the checks" : strerror(-fd));
		return fd;
	}
	int rc = pins_add(run->pins, dir, fd, at);
	if (rc) {
		iob_fd_close(fd);
		iob_run_fail(run, 0, "out of memory");
	}
	return rc;
}

/* Tree directory `path` (named `name` in held directory `parent`): made when
 * missing, then opened without following a link (unless follow_symlinks). */
static int pin_tree_dir(struct iob_run *run, const struct iob_job *job, size_t parent, const char *path,
			const char *name, size_t *at)
{
	struct iob_pins *ps = run->pins;
	struct iob_identity id;
	if (pins_find(ps, path, at))
		return 0;
	int pfd = ps->pin[parent].fd, made = 0;
	int rc = iob_mkdir_at(pfd, name);
	if (rc == 0)
		made = 1;
	else if (rc != -EEXIST) {
		iob_run_fail(run, 0, "[%s] cannot create directory %s: %s", job->name, path, strerror(-rc));
		return rc;
	}
	int fd = iob_dir_open_at(pfd, name, job->follow_symlinks, &id);
	if (fd < 0) {
		iob_run_fail(run, 0, "[%s] cannot open directory %s: %s", job->name, path,
			     fd == -ELOOP ? "it is a symbolic link (it was replaced after the checks)" : strerror(-fd));
		return fd;
	}
	if ((rc = pins_add(ps, path, fd, at)) != 0) {
		iob_fd_close(fd);
		iob_run_fail(run, 0, "out of memory");
		return rc;
	}
	if (made && (rc = made_add(ps, parent, name, &id, 1, *at)) != 0)
		iob_run_fail(run, 0, "out of memory");
	return rc;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* The job's files as the engine opens them: each through its held
 * directory. */
struct job_files {
	struct iob_filelist fl; /* as the job names them (records, messages) */
	char **open;		/* as they are opened */
	size_t *pin;		/* the held directory of each file */
	int *state;		/* 0 existed before the job, 1 missing then, 2 made and recorded */
};

static void job_files_free(struct job_files *jf)
{
	for (size_t i = 0; jf->open && i < jf->fl.n; i++)
		free(jf->open[i]);
	free(jf->open);
	free(jf->pin);
	free(jf->state);
	iob_filelist_free(&jf->fl);
}

static int job_files_open(struct iob_run *run, const struct iob_job *job, struct job_files *jf)
{
	int rc;
	memset(jf, 0, sizeof *jf);
	if ((rc = iob_job_files(job, &jf->fl)) != 0) {
		iob_run_fail(run, 0, "out of memory listing the job's files");
		return rc;
	}
	size_t n = jf->fl.n;
	jf->open = calloc(n, sizeof *jf->open);
	jf->pin = calloc(n, sizeof *jf->pin);
	jf->state = calloc(n, sizeof *jf->state);
	size_t *dirpin = calloc(jf->fl.ndirs + 1, sizeof *dirpin);
	if (!jf->open || !jf->pin || !jf->state || !dirpin) {
		free(dirpin);
		iob_run_fail(run, 0, "out of memory");
		return -ENOMEM;
	}
	if (is_stdin(jf->fl.paths[0])) {
		free(dirpin);
		jf->open[0] = strdup("-");
		return jf->open[0] ? 0 : -ENOMEM;
	}
	size_t top = 0;
	rc = pin_job_dir(run, job, &top);
	for (size_t i = 0; i < jf->fl.ndirs && rc == 0; i++)
		rc = pin_tree_dir(run, job, i ? dirpin[i - 1] : top, jf->fl.dirs[i], base_name(jf->fl.dirs[i]),
				  &dirpin[i]);
	for (size_t i = 0; i < n && rc == 0; i++) {
		char p[IOB_PATH_MAX + 64];
		jf->pin[i] = job->layout == IOB_LAYOUT_TREE ? dirpin[i / job->tree_files] : top;
		int fd = run->pins->pin[jf->pin[i]].fd;
		const char *name = base_name(jf->fl.paths[i]);
		/* where the OS has no such path, only the path itself remains */
		jf->open[i] = strdup(iob_path_of_fd(fd, name, p, sizeof p) == 0 ? p : jf->fl.paths[i]);
		jf->state[i] = iob_stat_at(fd, name, NULL) == -ENOENT;
		if (!jf->open[i]) {
			iob_run_fail(run, 0, "out of memory");
			rc = -ENOMEM;
		}
	}
	free(dirpin);
	return rc;
}

/* Record what the job created, as it is right after the phase that made it. */
static void note_made(struct iob_run *run, struct job_files *jf)
{
	for (size_t i = 0; i < jf->fl.n; i++) {
		struct iob_identity id;
		if (jf->state[i] != 1)
			continue;
		const char *name = base_name(jf->fl.paths[i]);
		if (iob_stat_at(run->pins->pin[jf->pin[i]].fd, name, &id) != 0 || id.kind != IOB_PATH_REGULAR)
			continue;
		if (made_add(run->pins, jf->pin[i], name, &id, 0, 0) == 0)
			jf->state[i] = 2;
	}
}

static void cleanup_note(struct iob_run *run, const struct made *m, const char *what, const char *why)
{
	char path[IOB_PATH_MAX + 300], q[IOB_PATH_MAX + 1200];
	snprintf(path, sizeof path, "%s/%s", run->pins->pin[m->pin].path, m->name);
	iob_notes_add(&run->notes, "%s %s: %s", what, iob_quote(path, q, sizeof q), why);
	print_live_notes(run);
}

/* Remove what the run made from entry `from` on, newest first. */
static void remove_made_from(struct iob_run *run, size_t from, uint64_t *files, uint64_t *dirs)
{
	struct iob_pins *ps = run->pins;
	for (size_t k = ps->nmade; k-- > from;) {
		struct made *m = &ps->made[k];
		int at = ps->pin[m->pin].fd;
		struct iob_identity now;
		if (m->gone || at < 0)
			continue;
		m->gone = 1;
		int rc = iob_stat_at(at, m->name, &now);
		if (rc == -ENOENT)
			continue;
		if (rc != 0 || now.dev != m->id.dev || now.ino != m->id.ino || now.kind != m->id.kind) {
			cleanup_note(run, m, "kept", "it is no longer what this run created (replaced during the run)");
			continue;
		}
		rc = iob_remove_at(at, m->name, m->dir);
		if (rc != 0) {
			cleanup_note(run, m, m->dir ? "kept directory" : "could not remove", strerror(-rc));
			continue;
		}
		if (m->dir) {
			iob_fd_close(ps->pin[m->dirpin].fd);
			ps->pin[m->dirpin].fd = -1;
			++*dirs;
		} else {
			++*files;
		}
	}
}

void iob_run_remove_made(struct iob_run *run, uint64_t *files, uint64_t *dirs)
{
	if (run->pins)
		remove_made_from(run, 0, files, dirs);
}

/* msg with every opened path put back as the job names it */
static void unmask(char *msg, size_t len, const struct job_files *jf)
{
	for (size_t i = 0; i < jf->fl.n; i++) {
		const char *o = jf->open[i];
		char *at = strcmp(o, jf->fl.paths[i]) ? strstr(msg, o) : NULL;
		if (!at)
			continue;
		char tail[4096];
		snprintf(tail, sizeof tail, "%s", at + strlen(o));
		snprintf(at, len - (size_t)(at - msg), "%s%s", jf->fl.paths[i], tail);
		return;
	}
}

/* --------------------------------------------------------------- running */

struct phase_run {
	struct iob_run *run;
	const struct iob_job *job;
	size_t j;
	struct iob_blocks blocks; /* series jobs: block records as they come */
};

static void on_block(void *arg, const struct iob_series *s)
{
	struct phase_run *pr = arg;
	iob_blocks_stream(&pr->blocks, s, pr->run->quiet ? NULL : pr->run->out);
}

/* What a read phase is about to read, for the caveats. */
static void read_plan(const struct iob_job *job, const struct job_files *jf, uint64_t bs,
		      struct iob_read_plan *plan)
{
	uint64_t per_pass = job->size * jf->fl.n;
	uint64_t reads = job->access == IOB_ACCESS_RAND ? (job->ops ? job->ops * bs : per_pass)
							: per_pass * job->loops;
	*plan = (struct iob_read_plan){
		.files = (const char *const *)jf->open, /* probe what is opened */
		.nfiles = jf->fl.n,
		.len = job->series ? 0 : job->size, /* a series read goes to the end */
		.reads = job->series ? 0 : reads,
		.evicted = job->evict_before_read,
		.clock = job->series ? job->series_clock : IOB_CLOCK_WALL,
	};
}

/* The phase record; a series' summary may fail (returned). */
static int emit_phase(struct phase_run *pr, const struct iob_filelist *fl, struct iob_phase_result *r,
		      const struct iob_read_facts *facts)
{
	struct iob_run *run = pr->run;
	const struct iob_job *job = pr->job;
	const struct iob_run_hooks *h = run->opts.hooks;
	struct iob_recbuf *rb = &run->rb;
	char file[IOB_PATH_MAX];
	snprintf(file, sizeof file, "%s", job->layout == IOB_LAYOUT_TREE ? job->dir : fl->paths[0]);
	iob_rec_phase(rb, job, file, r);
	int fs = !is_stdin(file);
	iob_rec_str(rb, "fs_type", fs && strcmp(run->fs_type, "unknown") ? run->fs_type : NULL);
	if (fs && run->fs_block_size)
		iob_rec_u64(rb, "fs_block_size_bytes", IOB_UNIT_BYTES, run->fs_block_size);
	else
		iob_rec_absent(rb, "fs_block_size_bytes", IOB_UNIT_BYTES);
	iob_rec_str(rb, "device", fs && strcmp(run->device, "unknown") ? run->device : NULL);
	iob_rec_bool(rb, "evicted", r->phase != IOB_PHASE_WRITE && job->evict_before_read);
	if (facts->resident_known)
		iob_rec_f64(rb, "resident_before_pct", IOB_UNIT_NONE, facts->resident_pct);
	else
		iob_rec_absent(rb, "resident_before_pct", IOB_UNIT_NONE);
	if (facts->holes_known)
		iob_rec_f64(rb, "holes_pct", IOB_UNIT_NONE, facts->hole_pct);
	else
		iob_rec_absent(rb, "holes_pct", IOB_UNIT_NONE);
	iob_rec_str(rb, "status", iob_phase_status_name(r));
	int rc = 0;
	if (pr->blocks.rb) {
		char err[1024];
		rc = iob_blocks_summary(&pr->blocks, r, rb, run->quiet ? NULL : run->out, &run->notes, err,
					sizeof err);
		if (rc < 0)
			iob_run_fail(run, 0, "[%s] %s", job->name, err);
	}
	if (rc < 0)
		return rc; /* no figures to give: the error says why */
	if (h && h->record_fields)
		h->record_fields(h->arg, run, pr->j, r, rb);
	iob_run_record(run, &rb->rec);
	return 0;
}

static int run_phase(struct iob_run *run, size_t j, const struct iob_loaded *b, struct job_files *jf,
		     enum iob_phase phase, uint64_t bs)
{
	const struct iob_filelist *fl = &jf->fl;
	const struct iob_job *job = &run->suite->jobs[j];
	const struct iob_run_hooks *h = run->opts.hooks;
	struct phase_run pr = {.run = run, .job = job, .j = j};
	struct iob_phase_spec spec = {
		.backend = b,
		.files = (const char *const *)jf->open,
		.nfiles = fl->n,
		.phase = phase,
		.access = job->access,
		.block_size = bs,
		.file_size = job->series ? 0 : job->size,
		.ops = job->ops,
		.loops = job->loops,
		.offset_align = job->offset_align,
		.skip_past_end = job->skip_past_end,
		.random_map = job->random_map,
		.pattern = job->pattern,
		.seed = job->seed,
		.fsync = job->fsync,
		.truncate = job->truncate,
		.reopen = job->reopen,
		.stop = run->stop,
		.fill_once = job->fill_once,
		.backend_options = job->backend_options,
		.follow_symlinks = job->follow_symlinks,
		.allow_devices = job->allow_devices,
	};
	struct iob_phase_result r;
	struct iob_read_facts facts;
	char what[160];

	if (job->series && phase == IOB_PHASE_READ) {
		spec.record_series = 1;
		spec.series_clock = job->series_clock;
		spec.on_sample = on_block;
		spec.sample_arg = &pr;
		if (iob_blocks_init(&pr.blocks, job->series_clock, job->name, fl->paths[0], bs) < 0) {
			iob_run_fail(run, 0, "out of memory");
			return -ENOMEM;
		}
	}
	if (phase != IOB_PHASE_WRITE && job->evict_before_read)
		for (size_t i = 0; i < fl->n; i++)
			if (!is_stdin(fl->paths[i]))
				iob_cache_evict(jf->open[i]);
	struct iob_read_plan plan;
	int reads = phase != IOB_PHASE_WRITE && !run->quiet;
	memset(&facts, 0, sizeof facts);
	read_plan(job, jf, bs, &plan);
	if (reads)
		iob_caveat_measure_read(&plan, &facts);
	int rc = iob_phase_run(&spec, &r);
	unmask(r.error, sizeof r.error, jf);
	unmask(r.bad_file, sizeof r.bad_file, jf);
	if (rc >= 0 && !r.interrupted && is_stdin(fl->paths[0]) && r.bytes == 0) {
		iob_run_fail(run, 1, "standard input gave no data: there is nothing to read");
		iob_phase_result_free(&r);
		iob_blocks_free(&pr.blocks);
		return -ENODATA;
	}
	if (h && h->end_phase) {
		int hr = h->end_phase(h->arg, run, j, &r);
		if (hr != 0 && rc == 0)
			rc = hr;
	}
	if (r.interrupted)
		run->interrupted = 1;
	if (!run->quiet) {
		snprintf(what, sizeof what, "job %s, %s phase", job->name, iob_phase_name(phase));
		if (reads) /* the handles' own word on the cache decides, not the plugin's caps */
			iob_caveat_read_notes(&run->notes, what, &plan, &facts,
					      r.direct || (r.ops == 0 && (b->desc.caps & IOB_CAP_DIRECT)));
		iob_caveat_after_phase(&run->notes, what, &r, b->desc.name, (b->desc.caps & IOB_CAP_DIRECT) != 0);
	}
	if (r.ops || rc == 0 || r.interrupted || rc == IOB_STATUS_MISMATCH) {
		int er = emit_phase(&pr, fl, &r, &facts);
		if (er < 0 && rc >= 0)
			rc = er;
	}
	print_live_notes(run);
	if (rc == IOB_STATUS_MISMATCH && !run->error[0])
		snprintf(run->error, sizeof run->error,
			 "verify failed in job %s: %llu bad block(s); first bad byte at offset %llu of %s: expected "
			 "0x%02x, found 0x%02x",
			 job->name, (unsigned long long)r.bad_blocks, (unsigned long long)r.first_bad_offset, r.bad_file,
			 r.expected, r.found);
	else if (rc < 0)
		iob_run_fail(run, rc == -EINVAL && r.ops == 0, "job %s: %s", job->name, r.error);
	if (h && h->after_phase)
		h->after_phase(h->arg, run, j, &r);
	iob_phase_result_free(&r);
	iob_blocks_free(&pr.blocks);
	return rc;
}

static int run_job(struct iob_run *run, size_t j)
{
	const struct iob_job *job = &run->suite->jobs[j];
	const struct iob_run_hooks *h = run->opts.hooks;
	const struct iob_loaded *b = iob_registry_find(run->reg, IOB_PLUGIN_BACKEND, job->backend);
	struct job_files jf;
	int rc;

	run->quiet = 0;
	if (h && h->before_job) {
		rc = h->before_job(h->arg, run, j);
		if (rc < 0)
			return rc;
		run->quiet = rc == 1;
	}
	iob_fs_facts(job->dir, run->fs_type, sizeof run->fs_type, &run->fs_block_size, run->device,
		     sizeof run->device);
	if (!run->pins && !(run->pins = calloc(1, sizeof *run->pins))) {
		iob_run_fail(run, 0, "out of memory");
		return -ENOMEM;
	}
	size_t mark = run->pins->nmade;
	rc = job_files_open(run, job, &jf);
	uint64_t top = job->block_size_max ? job->block_size_max : job->block_size;
	for (uint64_t bs = job->block_size; rc == 0 && bs <= top && !*run->stop; bs *= 2) {
		for (int p = IOB_PHASE_WRITE; p <= IOB_PHASE_VERIFY && rc == 0 && !*run->stop; p++)
			if (job->phases & IOB_PHASE_BIT(p)) {
				rc = run_phase(run, j, b, &jf, (enum iob_phase)p, bs);
				note_made(run, &jf);
			}
		if (bs > UINT64_MAX / 2)
			break;
	}
	if (!job->keep_files) {
		uint64_t files = 0, dirs = 0;
		remove_made_from(run, mark, &files, &dirs);
	}
	job_files_free(&jf);
	run->quiet = 0;
	return rc;
}

int iob_run_suite(struct iob_run *run)
{
	const struct iob_suite *suite = run->suite;
	int rc = 0;
	for (size_t i = 0; i < suite->njobs && rc == 0 && !*run->stop; i++) {
		run->suite_job = i;
		rc = run_job(run, i);
	}
	return rc;
}
