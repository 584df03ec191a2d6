/*
 * runner_files.c - what the run holds and made (runner.c's map): the
 * directories held open for the whole run (struct iob_pins), what the run
 * created in them and its removal, and a job's files as the engine opens
 * them (struct job_files).
 *
 * Sections: growing the lists; the held directories (pin_job_dir,
 * pin_tree_dir); a job's files (iob_runner_job_files_open, _free,
 * iob_runner_note_made); removal (iob_runner_remove_made_range,
 * iob_run_remove_made); iob_runner_unmask.
 */
#include "runner_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/os.h"
#include "iobench/units.h"
#include "check.h"

/* ------------------------------------------- what the run holds and made */

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

void iob_runner_pins_free(struct iob_pins *ps)
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
 * the checks allowed it (iob_dir_link_trusted). */
static int pin_job_dir(struct iob_run *run, const struct iob_job *job, size_t *at)
{
	char dir[IOB_PATH_MAX];
	iob_strip_slashes(job->dir, dir, sizeof dir);
	if (pins_find(run->pins, dir, at))
		return 0;
	int fd = iob_dir_open_at(IOB_AT_CWD, dir, 0, NULL);
	if (fd == -ELOOP && iob_dir_link_trusted(job, dir))
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

void iob_runner_job_files_free(struct job_files *jf)
{
	for (size_t i = 0; jf->open && i < jf->fl.n; i++)
		free(jf->open[i]);
	free(jf->open);
	free(jf->pin);
	free(jf->state);
	free(jf->written);
	for (size_t i = 0; jf->wlog && i < jf->nwlog; i++)
		free(jf->wlog[i].v);
	free(jf->wlog);
	iob_filelist_free(&jf->fl);
}

/* Each stream's list of the mixed phase's writes, whole before the clock
 * (iob_check_wlog_writes: at most the phase's I/Os, budgeted by
 * check_memory.c) and touched, so the timed loop neither allocates nor
 * faults a page in for it; the engine never grows it. */
static int wlog_reserve(const struct iob_job *job, struct job_files *jf)
{
	uint64_t n = iob_check_wlog_writes(job);
	if (n == 0 || n == UINT64_MAX || n > SIZE_MAX / sizeof(struct iob_wlog_ent))
		return -ENOMEM;
	for (size_t i = 0; i < jf->nwlog; i++) {
		if (!(jf->wlog[i].v = malloc((size_t)n * sizeof *jf->wlog[i].v))) {
			while (i--)
				free(jf->wlog[i].v);
			return -ENOMEM;
		}
		memset(jf->wlog[i].v, 0, (size_t)n * sizeof *jf->wlog[i].v);
		jf->wlog[i].cap = (size_t)n;
	}
	return 0;
}

int iob_runner_job_files_open(struct iob_run *run, const struct iob_job *job, struct job_files *jf)
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
	if (iob_check_wlog_writes(job)) /* each stream's writes (or backlog), for the verify */
		jf->wlog = calloc(jf->nwlog = job->threads > 1 ? job->threads : 1, sizeof *jf->wlog);
	size_t *dirpin = calloc(jf->fl.ndirs + 1, sizeof *dirpin);
	if (jf->wlog && wlog_reserve(job, jf) != 0) { /* reported as out of memory below */
		free(jf->wlog);
		jf->wlog = NULL;
	}
	if (!jf->open || !jf->pin || !jf->state || !dirpin || (jf->nwlog && !jf->wlog)) {
		free(dirpin);
		iob_run_fail(run, 0, "out of memory");
		return -ENOMEM;
	}
	if (iob_is_stdin_path(jf->fl.paths[0])) {
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
		size_t nbase = n / (iob_job_stream_files(job) ? job->threads : 1); /* stream copies: stream-major */
		jf->pin[i] = job->layout == IOB_LAYOUT_TREE ? dirpin[(i % nbase) / job->tree_files] : top;
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
void iob_runner_note_made(struct iob_run *run, struct job_files *jf)
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
	iob_runner_print_live_notes(run);
}

/* Remove what the run made from entry `from` to entry `to`, newest first. */
void iob_runner_remove_made_range(struct iob_run *run, size_t from, size_t to, uint64_t *files,
				  uint64_t *dirs)
{
	struct iob_pins *ps = run->pins;
	for (size_t k = to; k-- > from;) {
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
		iob_runner_remove_made_range(run, 0, run->pins->nmade, files, dirs);
}

/* msg with every opened path put back as the job names it */
void iob_runner_unmask(char *msg, size_t len, const struct job_files *jf)
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
