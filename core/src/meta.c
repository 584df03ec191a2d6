/*
 * meta.c - the metadata job, workload = files (iobench/meta.h,
 * docs/metadata.md).
 *
 * Shape.  Every stream (thread) of every MPI rank is one global stream g of
 * G.  With dir_per_stream each owns a tree rooted at
 * <dir>/iobench.<job>.<g>; otherwise global stream 0 owns the one tree
 * <dir>/iobench.<job>.shared and every stream works in it.  A tree has
 * depth tree_depth and branching tree_branch: directory k (0 is the root)
 * has children k*B+1 .. k*B+B, named d0 .. d<B-1>.  A stream's files
 * f.<g>.<i> (i = 0 .. files-1) are spread in order over the tree's
 * directories, ceil(files / dirs) to a directory.
 *
 * Safety (docs/security.md).  The job's directory is held open; the root of
 * a tree is made in it with mkdirat (mode 0700) and its identity kept;
 * everything below is reached from held descriptors with openat(...,
 * O_NOFOLLOW) one component at a time, and made or removed with mkdirat,
 * openat(O_CREAT | O_EXCL), unlinkat: nothing is followed, nothing outside
 * the trees is touched.  path_walk = full names items by their whole path
 * with openat2 refusing links; only its stats (fstatat of the path, as
 * mdtest's) follow a link in the middle, reading metadata only, and the
 * tree is checked after them (meta_ops.c, full_check).  What exists is
 * known by counters: a stream's files [removed, created) and a tree's
 * directories [0, dirs) (made in order, removed in reverse), so the
 * cleanup, also after a stop, removes exactly what the run made, in memory
 * that does not grow with the items.
 * On Windows the same through meta_os_win32.c: NtCreateFile relative to the
 * held handles with FILE_OPEN_REPARSE_POINT, the attributes checked on each
 * handle, a DACL for the user alone instead of mode 0700.
 *
 * Timing.  Each phase starts its streams at one barrier (across ranks: the
 * ranks' barrier first), each stream times itself from the barrier to its
 * last item and every operation (2 clock reads and a histogram record).
 * The phase's rate is IOR's rule: all operations / (latest end - earliest
 * start), every rank's times taken from the common barrier.
 *
 * Rooms, sharing meta_int.h:
 *   meta.c        the shape, iob_meta_check, and the entry points (a job
 *                 alone or in a group)
 *   meta_ops.c    a stream's operations: directories made and removed, the
 *                 file operations, a stream's thread
 *   meta_phase.c  one phase across streams and ranks, its records and
 *                 summary, preparing the trees and cleaning up
 *   meta_os.h     the calls to the OS, in meta_os_posix.c and
 *                 meta_os_win32.c: nothing else here calls the OS
 */
#include "iobench/meta.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/coord.h"
#include "iobench/hist.h"
#include "iobench/os.h"
#include "iobench/result.h"
#include "iobench/runner.h"
#include "check.h"

static const char *const OP_NAMES[IOB_META_NOPS] = {"mkdir", "dirstat", "create", "write", "stat",
						    "open",  "read",	"remove", "rmdir"};

const char *iob_meta_op_name(enum iob_meta_op op)
{
	return (unsigned)op < IOB_META_NOPS ? OP_NAMES[op] : "?";
}

#include "meta_int.h"

/* ---------------------------------------------------------------- shape */

/* Directories in a tree of depth d and branching b; 0 past max. */
uint64_t mt_tree_dirs(uint32_t d, uint32_t b, uint64_t max)
{
	uint64_t n = 1, level = 1;
	for (uint32_t l = 0; l < d; l++) {
		if (b && level > max / b)
			return 0;
		level *= b;
		n += level;
		if (n > max)
			return 0;
	}
	return n;
}

static unsigned digits(uint64_t v)
{
	unsigned n = 1;
	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

uint64_t mt_global_streams(const struct iob_job *job)
{
	return (uint64_t)(job->threads ? job->threads : 1) * (uint64_t)iob_coord_size();
}

void mt_root_name(const struct iob_job *job, uint64_t g, char *out, size_t len)
{
	if (job->dir_per_stream)
		snprintf(out, len, "iobench.%s.%llu", job->name, (unsigned long long)g);
	else
		snprintf(out, len, "iobench.%s.shared", job->name);
}

/* Phases that touch files this stream made */
#define NEEDS_FILES                                                                                              \
	((1u << IOB_META_WRITE) | (1u << IOB_META_STAT) | (1u << IOB_META_OPEN) | (1u << IOB_META_READ) |        \
	 (1u << IOB_META_REMOVE))

int iob_meta_check(const struct iob_job *job, uint64_t *need, char *err, size_t errlen)
{
	const char *n = job->name;
	*need = 0;
	if (job->until_ci[0] || job->steady_state) {
		snprintf(err, errlen, "[%s] workload = files takes repeat, not until_ci or steady_state", n);
		return -EINVAL;
	}
	if (!job->meta_phases) {
		snprintf(err, errlen, "[%s] meta_phases is empty: name at least one of mkdir, dirstat, create, write, "
				      "stat, open, read, remove, rmdir", n);
		return -EINVAL;
	}
	if ((job->meta_phases & NEEDS_FILES) && !(job->meta_phases & (1u << IOB_META_CREATE))) {
		snprintf(err, errlen, "[%s] meta_phases: write, stat, open, read and remove need create in the same job "
				      "(a run touches only files it made)", n);
		return -EINVAL;
	}
	if (job->files == 0 || job->files > IOB_META_FILES_MAX) {
		snprintf(err, errlen, "[%s] files = %llu: items per stream must be 1 to %llu", n,
			 (unsigned long long)job->files, IOB_META_FILES_MAX);
		return -EINVAL;
	}
	if (job->tree_depth && job->tree_branch == 0) {
		snprintf(err, errlen, "[%s] tree_branch = 0 with tree_depth = %u: a tree needs at least one branch", n,
			 job->tree_depth);
		return -EINVAL;
	}
	uint64_t dirs = mt_tree_dirs(job->tree_depth, job->tree_branch, IOB_META_DIRS_MAX);
	if (!dirs) {
		snprintf(err, errlen, "[%s] tree_depth %u x tree_branch %u: more than %llu directories in a tree", n,
			 job->tree_depth, job->tree_branch, IOB_META_DIRS_MAX);
		return -EINVAL;
	}
	uint64_t G = mt_global_streams(job);
	if (job->stat_other && job->stat_other % G == 0) {
		snprintf(err, errlen, "[%s] stat_other = %u: with %llu stream(s) in all, that is each stream's own files",
			 n, job->stat_other, (unsigned long long)G);
		return -EINVAL;
	}
	if (job->path_walk) { /* full: openat2 (Linux 5.6), probed on the working directory */
		if (mo_full_probe() == -ENOSYS) {
			snprintf(err, errlen, "[%s] path_walk = full: this system has no openat2 (Linux 5.6 or later), "
					      "which walks a path refusing every link; use path_walk = held", n);
			return -ENOSYS;
		}
	}
	if (job->file_bytes > (1ull << 30)) {
		snprintf(err, errlen, "[%s] file_bytes: at most 1 GiB per file", n);
		return -EINVAL;
	}
	uint64_t bufs = (uint64_t)(job->threads ? job->threads : 1) * job->file_bytes, mem = iob_available_memory();
	uint64_t cap = job->memory_limit ? job->memory_limit : mem;
	if (cap && bufs > cap) {
		snprintf(err, errlen, "[%s] memory: %u stream(s) x file_bytes %llu need %llu bytes at once, more than the "
				      "%llu %s", n, job->threads, (unsigned long long)job->file_bytes,
			 (unsigned long long)bufs, (unsigned long long)cap,
			 job->memory_limit ? "of memory_limit" : "available (MemAvailable)");
		return -ENOMEM;
	}
	char dir[IOB_PATH_MAX];
	iob_strip_slashes(job->dir, dir, sizeof dir);
	int e = mo_path_dir(dir);
	if (e < 0) {
		snprintf(err, errlen, "[%s] dir '%s': %s", n, job->dir, strerror(-e));
		return e;
	}
	if (e) {
		snprintf(err, errlen, "[%s] dir '%s': not a directory", n, job->dir);
		return -ENOTDIR;
	}
	if ((e = -mo_path_writable(dir)) != 0) {
		snprintf(err, errlen, "[%s] dir '%s': the trees cannot be made in it: %s", n, job->dir, strerror(e));
		return -e;
	}
	/* names: the root, a directory, a file; the deepest path */
	long name_max = mo_name_max(dir);
	char root[IOB_NAME_MAX + 64], file[96];
	mt_root_name(job, G - 1, root, sizeof root);
	snprintf(file, sizeof file, "f.%llu.%llu", (unsigned long long)(G - 1), (unsigned long long)(job->files - 1));
	if ((long)strlen(root) > name_max || (long)strlen(file) > name_max) {
		snprintf(err, errlen, "[%s] the name '%s' would be longer than the %ld bytes a name may have in '%s'", n,
			 (long)strlen(root) > name_max ? root : file, name_max, job->dir);
		return -ENAMETOOLONG;
	}
	uint64_t deepest = strlen(dir) + 1 + strlen(root) + (uint64_t)job->tree_depth * (2 + digits(job->tree_branch ? job->tree_branch - 1 : 0)) +
			   1 + strlen(file);
	if (deepest >= IOB_PATH_MAX) {
		snprintf(err, errlen, "[%s] tree_depth %u: the deepest path would be %llu bytes, past the limit of %d", n,
			 job->tree_depth, (unsigned long long)deepest, IOB_PATH_MAX - 1);
		return -ENAMETOOLONG;
	}
	/* an earlier run's tree (kept, or another run now): never reused */
	uint64_t owners = job->dir_per_stream ? G : 1;
	for (uint64_t g = 0; g < owners && g < 64; g++) {
		char r[IOB_NAME_MAX + 64], p[IOB_PATH_MAX + 128];
		mt_root_name(job, g, r, sizeof r);
		snprintf(p, sizeof p, "%s/%s", dir, r);
		if (mo_path_exists(p)) {
			snprintf(err, errlen, "[%s] %s exists already (an earlier run's, kept?): remove it or choose another dir",
				 n, p);
			return -EEXIST;
		}
	}
	/* inodes and space, for every stream of every rank */
	struct mo_room vf;
	uint64_t items = job->files * G, alldirs = dirs * owners, inodes = items + alldirs;
	if (mo_room(dir, &vf) == 0) {
		uint64_t frag = vf.frag;
		uint64_t per = (job->file_bytes ? (job->file_bytes + frag - 1) / frag * frag : 0) + vf.item_bytes;
		uint64_t bytes = per && items > UINT64_MAX / per ? UINT64_MAX : per * items;
		uint64_t dbytes = alldirs * (frag + vf.item_bytes);
		*need = bytes + dbytes < bytes ? UINT64_MAX : bytes + dbytes;
		if (vf.files_total && inodes > vf.files_avail) {
			snprintf(err, errlen,
				 "[%s] files = %llu x %llu stream(s) and %llu directories need %llu inodes; %s has %llu free",
				 n, (unsigned long long)job->files, (unsigned long long)G, (unsigned long long)alldirs,
				 (unsigned long long)inodes, job->dir, (unsigned long long)vf.files_avail);
			return -ENOSPC;
		}
		uint64_t avail = vf.blocks_avail * frag;
		if (*need > avail) {
			snprintf(err, errlen, "[%s] files = %llu x %llu stream(s) of %llu bytes need %llu bytes; %s has %llu free",
				 n, (unsigned long long)job->files, (unsigned long long)G,
				 (unsigned long long)job->file_bytes, (unsigned long long)*need, job->dir,
				 (unsigned long long)avail);
			return -ENOSPC;
		}
	}
	return 0;
}


static int meta_main(struct iob_run *run, size_t j, struct iob_meta_group *grp)
{
	const struct iob_job *job = &run->suite->jobs[j];
	struct mjob m;
	if (!grp) /* in a group the runner's thread says it before the records */
		iob_fs_facts(job->dir, run->fs_type, sizeof run->fs_type, &run->fs_block_size, run->device,
			     sizeof run->device);
	int rc = mt_mjob_init(&m, run, job, grp);
	if (iob_coord_active()) {
		char text[1024];
		int a = iob_coord_agree(rc, rc ? run->error : "", NULL, NULL, 0, text, sizeof text);
		if (a && !rc) {
			snprintf(run->error, sizeof run->error, "%s", text);
			rc = a;
		}
	}
	struct reps *reps = rc ? NULL : calloc(1, sizeof *reps);
	if (!rc && !reps) {
		mt_fail(&m, "out of memory");
		rc = -ENOMEM;
	}
	int root = iob_euid() == 0, noted[IOB_META_NOPS] = {0}, stop = 0;
	uint32_t runs = job->repeat ? job->repeat : 1;
	for (uint32_t it = 0; it < runs && rc == 0 && !stop; it++) {
		int first = 1;
		if (!(job->meta_phases & (1u << IOB_META_MKDIR)))
			rc = mt_prepare(&m);
		for (int op = 0; op < IOB_META_NOPS && rc == 0 && !stop; op++) {
			if (!(job->meta_phases & (1u << op)))
				continue;
			if (grp && __atomic_load_n(m.stop, __ATOMIC_RELAXED)) { /* between phases: cut */
				stop = 1;
				break;
			}
			int dropped = 0;
			if (job->drop_caches && !first && root)
				dropped = iob_drop_caches() == 0;
			struct verdict v;
			rc = mt_run_op(&m, (enum iob_meta_op)op, dropped, it, reps, &v);
			first = 0;
			if (v.status) {
				mt_fail(&m, "job %s, %s phase: %s", job->name, OP_NAMES[op], v.err);
				rc = v.status;
			}
			if (v.stop) {
				stop = 1;
				if (grp)
					grp->kept->interrupted = 1;
				else
					run->interrupted = 1;
			}
			int cacheable = op == IOB_META_DIRSTAT || op == IOB_META_STAT || op == IOB_META_OPEN ||
					op == IOB_META_READ;
			int by_other = job->stat_other && (op != IOB_META_DIRSTAT || job->dir_per_stream);
			if (cacheable && !dropped && !noted[op] && iob_coord_rank() == 0) {
				noted[op] = 1;
				mt_note(&m,
					     "job %s, %s phase: the %s were made moments before%s and caches were "
					     "not dropped, so the dentry and inode caches%s may have answered: the "
					     "rate is not the storage's (as root, drop_caches = true drops them)",
					     job->name, OP_NAMES[op], op == IOB_META_DIRSTAT ? "directories" : "files",
					     by_other ? " (by another stream)" : "",
					     op == IOB_META_READ ? " and the page cache" : "");
			}
		}
		if (!job->keep_files || stop || rc || it + 1 < runs)
			mt_cleanup(&m);
		else
			for (size_t t = 0; t < m.ntrees; t++)
				m.trees[t].dirs = 0; /* kept: never removed by mt_mjob_free */
		for (uint32_t i = 0; rc == 0 && i < m.nthreads; i++) {
			m.s[i].created = m.s[i].removed = 0;
			for (size_t t = 0; t < m.ntrees; t++)
				m.trees[t].dirs = 0;
		}
	}
	if (job->drop_caches && !root && iob_coord_rank() == 0)
		mt_note(&m, "job %s: drop_caches needs root: caches were not dropped", job->name);
	if (reps && runs > 1 && iob_coord_rank() == 0)
		mt_emit_summary(&m, reps);
	free(reps);
	mt_mjob_free(&m);
	return rc;
}

int iob_meta_run(struct iob_run *run, size_t j)
{
	return meta_main(run, j, NULL);
}

int iob_meta_run_grouped(struct iob_run *run, size_t j, struct iob_meta_group *g)
{
	if (!(g->kept = calloc(1, sizeof *g->kept)))
		return -ENOMEM;
	int rc = meta_main(run, j, g);
	if (rc && !g->kept->failed) {
		g->kept->failed = 1;
		snprintf(g->kept->error, sizeof g->kept->error, "job %s: %s", run->suite->jobs[j].name, strerror(-rc));
	}
	return rc;
}

void iob_meta_group_emit(struct iob_run *run, size_t j, struct iob_meta_group *g, int cut, int first_failed)
{
	const struct iob_job *job = &run->suite->jobs[j];
	struct iob_meta_kept *k = g->kept;
	if (!k) {
		iob_run_fail(run, 0, "out of memory");
		return;
	}
	for (size_t i = 0; i < k->nrec; i++)
		mt_emit_record(run, job, k->rec[i].op, &k->rec[i].p, k->rec[i].nranks, k->rec[i].dropped, k->rec[i].rep,
			    cut);
	for (size_t i = 0; i < k->nnotes; i++)
		iob_run_note(run, "%s", k->notes[i]);
	if (k->interrupted && !cut)
		run->interrupted = 1;
	if (k->failed) {
		if (first_failed) { /* the group's first failure says why, whatever came before */
			run->error[0] = '\0';
			run->usage = 0;
		}
		iob_run_fail(run, 0, "%s", k->error);
	}
}

void iob_meta_group_free(struct iob_meta_group *g)
{
	struct iob_meta_kept *k = g->kept;
	if (!k)
		return;
	for (size_t i = 0; i < k->nnotes; i++)
		free(k->notes[i]);
	free(k->notes);
	free(k->rec);
	free(k);
	g->kept = NULL;
}
