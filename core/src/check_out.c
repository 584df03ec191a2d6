/*
 * check_out.c - the checks, made before anything is created, on the files a
 * run writes besides its data (outfile.h: the outputs' files and their side
 * files, the live CSV files, the fio-style logs), and on two jobs of a group
 * sharing a data file.  Touches no file; called by iob_run_check, so
 * `iobench check` refuses the same way.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/fiolog.h"
#include "iobench/meta.h"
#include "iobench/outfile.h"
#include "iobench/path.h"
#include "iobench/runner.h"
#include "iobench/units.h"
#include "check.h"

/* Which file a path names: device and inode when it exists, and the real
 * path of its directory plus its name. */
struct key {
	int exists, chardev;
	uint64_t dev, ino;
	char dir[4096];
	const char *name;
};

static void key_of(const char *path, struct key *k)
{
	enum iob_path_kind kind;
	char dir[4096];
	k->exists = k->chardev = 0; /* field by field: dir is 4 KiB, only its string is read */
	k->dev = k->ino = 0;
	if (iob_file_identity(path, &k->dev, &k->ino, &kind) == 0) {
		k->exists = 1;
		k->chardev = kind == IOB_PATH_CHARDEV;
	}
	k->name = path + iob_path_dir(path, dir, sizeof dir);
	if (iob_real_path(dir, k->dir, sizeof k->dir) != 0)
		k->dir[0] = '\0';
}

/* One file (character devices never are: /dev/null keeps nothing). */
static int key_same(const struct key *a, const struct key *b)
{
	if (a->chardev || b->chardev)
		return 0;
	if (a->exists && b->exists)
		return a->dev == b->dev && a->ino == b->ino;
	return !a->exists && !b->exists && a->dir[0] && strcmp(a->dir, b->dir) == 0 && strcmp(a->name, b->name) == 0;
}

/* A file the run writes besides its data. */
struct written {
	char what[IOB_NAME_MAX + 64];
	const char *path;
	unsigned flags;
	const char *side_ext; /* an output's side files */
	struct key key;
};

static int written_list(const struct iob_registry *reg, const struct iob_run_opts *opts,
			const struct iob_suite *suite, char (*logs)[IOB_FIOLOG_PATH_MAX], struct written *w)
{
	size_t n = 0, nlogs = 0;
	for (size_t i = 0; opts->outputs && i < opts->outputs->n; i++) {
		const struct iob_output_item *it = &opts->outputs->item[i];
		if (!it->file[0])
			continue;
		const struct iob_loaded *pl = iob_registry_find(reg, IOB_PLUGIN_OUTPUT, it->name);
		snprintf(w[n].what, sizeof w[n].what, "output %s file", it->name);
		w[n].path = it->file;
		w[n].flags = IOB_OUT_CHARDEV | (strcmp(it->args, "append") == 0 ? IOB_OUT_APPEND : 0);
		w[n].side_ext = pl ? pl->output.side_ext : NULL;
		n++;
	}
	for (size_t j = 0; j < suite->njobs; j++) {
		const struct iob_job *job = &suite->jobs[j];
		int seen = !job->livecsv[0];
		for (size_t k = 0; k < j && !seen; k++)
			seen = strcmp(suite->jobs[k].livecsv, job->livecsv) == 0; /* one file for those jobs */
		if (!seen) {
			snprintf(w[n].what, sizeof w[n].what, "livecsv");
			w[n].path = job->livecsv;
			w[n].flags = job->allow_devices ? IOB_OUT_CHARDEV : 0;
			w[n].side_ext = NULL;
			n++;
		}
		for (size_t c = 0; c < iob_fiolog_clones(job); c++)
			for (int k = 0; k < IOB_FIOLOG_KINDS; k++) {
				char *path = logs[nlogs];
				iob_fiolog_path(suite, j, c, (enum iob_fiolog_kind)k, path, IOB_FIOLOG_PATH_MAX);
				if (!path[0])
					continue;
				nlogs++;
				snprintf(w[n].what, sizeof w[n].what, "[%s] %s", job->name,
					 k == IOB_FIOLOG_BW ? "bw_log" : k == IOB_FIOLOG_IOPS ? "iops_log" : "lat_log");
				w[n].path = path;
				w[n].flags = job->allow_devices ? IOB_OUT_CHARDEV : 0;
				w[n].side_ext = NULL;
				n++;
			}
	}
	return (int)n;
}

/* Could output file `o` (with side files) write a side file at key p? */
static int side_hits(const struct written *o, const struct key *p)
{
	char odir[4096];
	const char *oname = o->path + iob_path_dir(o->path, odir, sizeof odir);
	return o->side_ext && !o->key.chardev && o->key.dir[0] && strcmp(o->key.dir, p->dir) == 0 &&
	       iob_outfile_is_side_name(oname, o->side_ext, p->name);
}

/* Entries already beside an output that match its side files' names must
 * pass the same checks (a link planted at run.interval.csv is refused now,
 * not when the first interval record arrives). */
struct side_scan {
	const struct written *o;
	char dir[4096];
	char *err;
	size_t errlen;
	int rc;
};

static void side_entry(void *arg, const char *name)
{
	struct side_scan *sc = arg;
	char oname_dir[4096], path[4096 + 256], what[IOB_NAME_MAX + 96];
	const char *oname = sc->o->path + iob_path_dir(sc->o->path, oname_dir, sizeof oname_dir);
	if (sc->rc || strcmp(name, oname) == 0 || !iob_outfile_is_side_name(oname, sc->o->side_ext, name))
		return;
	snprintf(path, sizeof path, "%s%s%s", sc->dir, strcmp(sc->dir, "/") == 0 ? "" : "/", name);
	snprintf(what, sizeof what, "%s %s: its side file", sc->o->what, IOB_Q(sc->o->path));
	sc->rc = iob_outfile_check(what, path, sc->o->flags & IOB_OUT_APPEND, sc->err, sc->errlen);
}

static int check_side_entries(const struct written *o, char *err, size_t errlen)
{
	struct side_scan sc = {.o = o, .err = err, .errlen = errlen};
	if (!o->side_ext || o->key.chardev)
		return 0;
	iob_path_dir(o->path, sc.dir, sizeof sc.dir);
	if (iob_list_dir(sc.dir, side_entry, &sc) != 0)
		return 0; /* the directory's own check says why */
	return sc.rc;
}

int iob_check_written(const struct iob_registry *reg, const struct iob_run_opts *opts, const struct iob_suite *suite,
		      const char *const *runfiles, size_t nrun, char *err, size_t errlen)
{
	size_t clones = 0;
	for (size_t j = 0; j < suite->njobs; j++)
		clones += iob_fiolog_clones(&suite->jobs[j]);
	size_t cap = (opts->outputs ? opts->outputs->n : 0) + suite->njobs + clones * IOB_FIOLOG_KINDS + 1;
	/* not zeroed: written_list sets every field of the n entries it lists
	 * (key_of their keys), and a run file's key is read only once key_of set it */
	struct written *w = malloc(cap * sizeof *w);
	char(*logs)[IOB_FIOLOG_PATH_MAX] = malloc((clones * IOB_FIOLOG_KINDS + 1) * sizeof *logs);
	struct key *rk = malloc((nrun + 1) * sizeof *rk);
	int rc = 0;
	if (!w || !logs || !rk) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	size_t n = (size_t)written_list(reg, opts, suite, logs, w);
	for (size_t i = 0; i < n && !rc; i++) {
		rc = iob_outfile_check(w[i].what, w[i].path, w[i].flags, err, errlen);
		key_of(w[i].path, &w[i].key);
	}
	for (size_t i = 0; i < n && !rc; i++)
		rc = check_side_entries(&w[i], err, errlen);
	for (size_t r = 0; r < nrun && !rc; r++)
		if (runfiles[r] && runfiles[r][0])
			key_of(runfiles[r], &rk[r]);
	/* never a file the run reads or writes, never another's file */
	for (size_t i = 0; i < n && !rc; i++) {
		for (size_t r = 0; r < nrun && !rc; r++) {
			if (!runfiles[r] || !runfiles[r][0])
				continue;
			if (key_same(&w[i].key, &rk[r])) {
				snprintf(err, errlen, "%s %s is %s, which this run reads or writes: choose another file",
					 w[i].what, IOB_Q(w[i].path), IOB_Q(runfiles[r]));
				rc = -EINVAL;
			} else if (side_hits(&w[i], &rk[r])) {
				snprintf(err, errlen,
					 "%s is where %s %s may write a side file (its other tables, '<name>.<kind>%s'), "
					 "and this run reads or writes it: choose another file",
					 IOB_Q(runfiles[r]), w[i].what, IOB_Q(w[i].path), w[i].side_ext);
				rc = -EINVAL;
			}
		}
		for (size_t k = 0; k < n && !rc; k++) {
			if (k < i && key_same(&w[i].key, &w[k].key)) {
				snprintf(err, errlen, "%s %s and %s %s are one file: give each its own file", w[k].what,
					 IOB_Q(w[k].path), w[i].what, IOB_Q(w[i].path));
				rc = -EINVAL;
			} else if (k != i && side_hits(&w[i], &w[k].key)) {
				snprintf(err, errlen,
					 "%s %s is where %s %s may write a side file (its other tables, "
					 "'<name>.<kind>%s'): give it another name",
					 w[k].what, IOB_Q(w[k].path), w[i].what, IOB_Q(w[i].path), w[i].side_ext);
				rc = -EINVAL;
			}
		}
	}
out:
	free(w);
	free(logs);
	free(rk);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Two jobs of one group on one data file, one of them writing it: they run */
/* at once, so each would see the other's bytes (a false "verify failed").   */

struct gfile {
	char *key; /* real directory + "/" + name */
	size_t job;
	const char *path;
};

static int gfile_cmp(const void *a, const void *b)
{
	const struct gfile *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	return c ? c : (x->job > y->job) - (x->job < y->job);
}

#define WRITES(job) (((job)->phases & (IOB_PHASE_BIT(IOB_PHASE_WRITE) | IOB_PHASE_BIT(IOB_PHASE_MIXED))) != 0)

/* Whether the job's backend has the capability cap. */
static int backend_has(const struct iob_registry *reg, const struct iob_job *job, uint32_t cap)
{
	const struct iob_loaded *b = reg ? iob_registry_find(reg, IOB_PLUGIN_BACKEND, job->backend) : NULL;
	return b && (b->desc.caps & cap);
}

/* A job whose backend moves no data (falloc, ftruncate: IOB_CAP_NODATA): it
 * changes a file's space or length, so another such job changing the same
 * file at the same time makes nothing it reads or checks wrong. */
static int nodata(const struct iob_registry *reg, const struct iob_job *job)
{
	return backend_has(reg, job, IOB_CAP_NODATA);
}

/* Two jobs that write the same bytes at every offset: the same block size,
 * the same pattern and verify headers, and no content key that depends on
 * the job (dedupe) or writes one buffer everywhere (fill_once). */
static int same_bytes(const struct iob_job *x, const struct iob_job *y)
{
	const struct iob_pattern *p = &x->pattern, *q = &y->pattern;
	return x->block_size == y->block_size && !x->block_size_max && !y->block_size_max && p->kind == q->kind &&
	       p->byte == q->byte && p->complement == q->complement && p->seed == q->seed && p->nhex == q->nhex &&
	       memcmp(p->hex, q->hex, sizeof p->hex) == 0 && p->verify == q->verify &&
	       p->verify_interval == q->verify_interval && p->verify_generation == q->verify_generation &&
	       p->compress_pct == q->compress_pct && p->compress_chunk == q->compress_chunk && !p->dedupe_pct &&
	       !q->dedupe_pct && !x->fill_once && !y->fill_once;
}

/* Jobs of a group on one file, at once: what fio does with flow.fio's
 * reader beside a writer, and with exitwhat.fio's writers.  Safe when no
 * writer truncates (the file stays as long as it was laid out before the
 * group) and a job that checks what it reads (verify) sees only bytes it
 * expects: the other job writes nothing (reads), keeps the bytes as they
 * are (e4defrag: IOB_CAP_SAMEDATA), or writes the same bytes at every
 * offset (same_bytes: a block the other rewrote is the block this one
 * wrote; e4defrag.fio's jobs).  Two writers race, as fio's do: each counts
 * its own I/Os, and the file holds whichever came last. */
static int may_share(const struct iob_registry *reg, const struct iob_job *x, const struct iob_job *y)
{
	const uint32_t verify = IOB_PHASE_BIT(IOB_PHASE_VERIFY);
	if ((WRITES(x) && x->truncate) || (WRITES(y) && y->truncate))
		return 0;
	for (int k = 0; k < 2; k++) {
		const struct iob_job *v = k ? y : x, *o = k ? x : y;
		if ((v->phases & verify) && WRITES(o) && !backend_has(reg, o, IOB_CAP_SAMEDATA) && !same_bytes(v, o))
			return 0;
	}
	return 1;
}

/* The group's jobs a .. e-1 and their data files: -EINVAL (err) when two
 * may not share one; else, with notes, a note for each pair of jobs that
 * write one file at once. */
static int group_files(const struct iob_registry *reg, const struct iob_suite *suite, size_t a, size_t e, char *err,
		       size_t errlen, struct iob_notes *notes)
{
	struct gfile *v = NULL;
	struct iob_filelist *fl = calloc(e - a, sizeof *fl);
	size_t n = 0, cap = 0;
	int rc = fl ? 0 : -ENOMEM;
	for (size_t i = a; i < e && !rc; i++) {
		if (suite->jobs[i].workload == IOB_WORKLOAD_FILES)
			continue; /* no data file: its trees are named by its job (meta.c) */
		if ((rc = iob_job_files(&suite->jobs[i], &fl[i - a])) != 0)
			break;
		for (size_t f = 0; f < fl[i - a].n && !rc; f++) {
			const char *p = fl[i - a].paths[f];
			char dir[4096], real[4096];
			if (iob_is_stdin_path(p))
				continue;
			const char *name = p + iob_path_dir(p, dir, sizeof dir);
			if (iob_real_path(dir, real, sizeof real) != 0)
				snprintf(real, sizeof real, "%s", dir);
			if (n == cap) {
				struct gfile *nv = realloc(v, (cap = cap ? cap * 2 : 64) * sizeof *v);
				if (!nv) {
					rc = -ENOMEM;
					break;
				}
				v = nv;
			}
			size_t len = strlen(real) + strlen(name) + 2;
			if (!(v[n].key = malloc(len))) {
				rc = -ENOMEM;
				break;
			}
			snprintf(v[n].key, len, "%s/%s", real, name);
			v[n].job = i;
			v[n].path = p;
			n++;
		}
	}
	if (rc)
		snprintf(err, errlen, "out of memory");
	if (!rc && n > 1)
		qsort(v, n, sizeof *v, gfile_cmp);
	for (size_t i = 0; !rc && i + 1 < n; i++) {
		/* all entries of one key are together: compare the first with each */
		for (size_t k = i + 1; !rc && k < n && strcmp(v[i].key, v[k].key) == 0; k++) {
			const struct iob_job *x = &suite->jobs[v[i].job], *y = &suite->jobs[v[k].job];
			if (v[i].job == v[k].job || (!WRITES(x) && !WRITES(y)) || (nodata(reg, x) && nodata(reg, y)))
				continue;
			if (may_share(reg, x, y)) {
				if (notes && WRITES(x) && WRITES(y))
					iob_notes_add(notes,
						      "jobs %s and %s (group %u) both write %s at once: their writes "
						      "overlap, as fio's do (each job's bytes and ops are its own I/Os; "
						      "the file holds whichever write came last)",
						      x->name, y->name, y->group, IOB_Q(v[i].path));
				continue;
			}
			snprintf(err, errlen,
				 "[%s] group %u: jobs %s and %s both use the data file %s and %s writes it; the jobs "
				 "of a group run at once, and may share a file only when no writer truncates and a "
				 "job that verifies sees no other bytes than its own: give each its own filename",
				 y->name, y->group, x->name, y->name, IOB_Q(v[i].path), WRITES(x) ? x->name : y->name);
			rc = -EINVAL;
		}
	}
	for (size_t i = 0; i < n; i++)
		free(v[i].key);
	free(v);
	for (size_t i = a; fl && i < e; i++)
		iob_filelist_free(&fl[i - a]);
	free(fl);
	return rc;
}

int iob_check_group_files(const struct iob_registry *reg, const struct iob_suite *suite, char *err, size_t errlen,
			  struct iob_notes *notes)
{
	for (size_t a = 0, e; a < suite->njobs; a = e) {
		e = a + 1;
		while (suite->jobs[a].group && e < suite->njobs && suite->jobs[e].group == suite->jobs[a].group)
			e++;
		if (e - a > 1) {
			int rc = group_files(reg, suite, a, e, err, errlen, notes);
			if (rc)
				return rc;
		}
	}
	return 0;
}
