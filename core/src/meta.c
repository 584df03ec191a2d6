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
 * the trees is touched.  What exists is known by counters: a stream's
 * files [removed, created) and a tree's directories [0, dirs) (made in
 * order, removed in reverse), so the cleanup, also after a stop, removes
 * exactly what the run made, in memory that does not grow with the items.
 *
 * Timing.  Each phase starts its streams at one barrier (across ranks: the
 * ranks' barrier first), each stream times itself from the barrier to its
 * last item and every operation (2 clock reads and a histogram record).
 * The phase's rate is IOR's rule: all operations / (latest end - earliest
 * start), every rank's times taken from the common barrier.
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

static const char *const OP_NAMES[IOB_META_NOPS] = {"mkdir", "create", "write",	 "stat",
						    "open",  "read",   "remove", "rmdir"};

const char *iob_meta_op_name(enum iob_meta_op op)
{
	return (unsigned)op < IOB_META_NOPS ? OP_NAMES[op] : "?";
}

#if defined(_WIN32)

int iob_meta_check(const struct iob_job *job, uint64_t *need, char *err, size_t errlen)
{
	*need = 0;
	snprintf(err, errlen, "[%s] workload = files is not available on Windows yet", job->name);
	return -ENOTSUP;
}

int iob_meta_run(struct iob_run *run, size_t j)
{
	iob_run_fail(run, 1, "[%s] workload = files is not available on Windows yet", run->suite->jobs[j].name);
	return -ENOTSUP;
}

int iob_meta_run_grouped(struct iob_run *run, size_t j, struct iob_meta_group *g)
{
	(void)run;
	(void)j;
	g->kept = NULL;
	return -ENOTSUP;
}

void iob_meta_group_emit(struct iob_run *run, size_t j, struct iob_meta_group *g, int cut, int first_failed)
{
	(void)g;
	(void)cut;
	(void)first_failed;
	iob_run_fail(run, 1, "[%s] workload = files is not available on Windows yet", run->suite->jobs[j].name);
}

void iob_meta_group_free(struct iob_meta_group *g)
{
	g->kept = NULL;
}

#else

#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* ---------------------------------------------------------------- shape */

/* Directories in a tree of depth d and branching b; 0 past max. */
static uint64_t tree_dirs(uint32_t d, uint32_t b, uint64_t max)
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

static uint64_t global_streams(const struct iob_job *job)
{
	return (uint64_t)(job->threads ? job->threads : 1) * (uint64_t)iob_coord_size();
}

static void root_name(const struct iob_job *job, uint64_t g, char *out, size_t len)
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
		snprintf(err, errlen, "[%s] meta_phases is empty: name at least one of mkdir, create, write, stat, open, "
				      "read, remove, rmdir", n);
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
	uint64_t dirs = tree_dirs(job->tree_depth, job->tree_branch, IOB_META_DIRS_MAX);
	if (!dirs) {
		snprintf(err, errlen, "[%s] tree_depth %u x tree_branch %u: more than %llu directories in a tree", n,
			 job->tree_depth, job->tree_branch, IOB_META_DIRS_MAX);
		return -EINVAL;
	}
	uint64_t G = global_streams(job);
	if (job->stat_other && job->stat_other % G == 0) {
		snprintf(err, errlen, "[%s] stat_other = %u: with %llu stream(s) in all, that is each stream's own files",
			 n, job->stat_other, (unsigned long long)G);
		return -EINVAL;
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
	struct stat st;
	if (stat(dir, &st) != 0) {
		int e = errno;
		snprintf(err, errlen, "[%s] dir '%s': %s", n, job->dir, strerror(e));
		return -e;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "[%s] dir '%s': not a directory", n, job->dir);
		return -ENOTDIR;
	}
	if (access(dir, W_OK | X_OK) != 0) {
		int e = errno;
		snprintf(err, errlen, "[%s] dir '%s': the trees cannot be made in it: %s", n, job->dir, strerror(e));
		return -e;
	}
	/* names: the root, a directory, a file; the deepest path */
	long name_max = pathconf(dir, _PC_NAME_MAX);
	if (name_max <= 0)
		name_max = 255;
	char root[IOB_NAME_MAX + 64], file[96];
	root_name(job, G - 1, root, sizeof root);
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
		root_name(job, g, r, sizeof r);
		snprintf(p, sizeof p, "%s/%s", dir, r);
		if (lstat(p, &st) == 0) {
			snprintf(err, errlen, "[%s] %s exists already (an earlier run's, kept?): remove it or choose another dir",
				 n, p);
			return -EEXIST;
		}
	}
	/* inodes and space, for every stream of every rank */
	struct statvfs vf;
	uint64_t items = job->files * G, alldirs = dirs * owners, inodes = items + alldirs;
	if (statvfs(dir, &vf) == 0) {
		uint64_t frag = vf.f_frsize ? vf.f_frsize : 4096;
		uint64_t per = job->file_bytes ? (job->file_bytes + frag - 1) / frag * frag : 0;
		uint64_t bytes = per && items > UINT64_MAX / per ? UINT64_MAX : per * items;
		uint64_t dbytes = alldirs * frag;
		*need = bytes + dbytes < bytes ? UINT64_MAX : bytes + dbytes;
		if (vf.f_files && inodes > (uint64_t)vf.f_favail) {
			snprintf(err, errlen,
				 "[%s] files = %llu x %llu stream(s) and %llu directories need %llu inodes; %s has %llu free",
				 n, (unsigned long long)job->files, (unsigned long long)G, (unsigned long long)alldirs,
				 (unsigned long long)inodes, job->dir, (unsigned long long)vf.f_favail);
			return -ENOSPC;
		}
		uint64_t avail = (uint64_t)vf.f_bavail * frag;
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

/* ------------------------------------------------------------- the run */

struct tree {
	int owner;		     /* this rank's stream made it (and removes it) */
	int rootfd;		     /* held root, or -1 */
	int made_root;		     /* the root is ours (identity below) */
	uint64_t dev, ino;	     /* the root as made */
	uint64_t dirs;		     /* directories [0, dirs) exist (made by us) */
	char root[IOB_NAME_MAX + 64];
};

struct mstream {
	struct mjob *m;
	uint64_t g; /* global index */
	struct tree *own;	/* the tree its files go in */
	struct tree *other;	/* stat_other: the tree of the stream it reads */
	uint64_t other_g;
	uint64_t created, removed; /* files [removed, created) exist (made by it) */
	/* the phase */
	enum iob_meta_op op;
	uint64_t count; /* items to do */
	struct iob_hist *h;
	uint64_t ops, bytes, t0, t1;
	int status;
	char err[512];
	struct iob_thread *th;
	int done; /* atomic: stream_main returned */
};

struct mjob {
	struct iob_run *run;
	const struct iob_job *job;
	int dirfd; /* the job's directory */
	uint64_t G, ndirs, per_dir;
	uint32_t nthreads;
	struct tree *trees; /* per stream of this rank (dir_per_stream), or one */
	size_t ntrees;
	struct mstream *s;
	struct iob_barrier *go;
	char *buf; /* file_bytes, per stream */
	volatile sig_atomic_t *stop; /* the run's, set by a signal handler: read by the runner's thread only */
	int phase_stop;		     /* atomic: the streams stop (the runner's thread raises it) */
	uint64_t epoch; /* the phase's common start (after the ranks' barrier) */
	uint64_t bound_ns;
	uint64_t made_min; /* the fewest files any stream (of every rank) has made */
	struct tree *others; /* stat_other: the trees read, per stream (not ours) */
	struct iob_meta_group *grp; /* in a group: what the run says is kept (grp->kept), not said */
};

/* ------------------------------------------------- what a group's job says */

/* What one rank sends rank 0 after a phase. */
struct part {
	uint64_t ops, bytes, start, end; /* ns from the common barrier */
	double smin, smax;		 /* the slowest and fastest stream's ops/s */
	int32_t status, stop, dropped, pad;
	uint64_t made_min; /* the fewest files any stream of the rank has made */
	char err[512];
	struct iob_hist h;
};

struct kept_rec {
	enum iob_meta_op op;
	uint32_t rep;
	uint64_t nranks;
	int dropped;
	struct part p;
};

struct iob_meta_kept {
	struct kept_rec *rec;
	size_t nrec;
	char **notes;
	size_t nnotes;
	int interrupted, failed;
	char error[2048];
};

static void m_fail(struct mjob *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void m_note(struct mjob *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* iob_run_fail, or kept (the first) in a group */
static void m_fail(struct mjob *m, const char *fmt, ...)
{
	char text[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	struct iob_meta_kept *k = m->grp ? m->grp->kept : NULL;
	if (!m->grp)
		iob_run_fail(m->run, 0, "%s", text);
	else if (k && !k->failed) {
		k->failed = 1;
		snprintf(k->error, sizeof k->error, "%s", text);
	}
}

/* iob_run_note, or kept in a group */
static void m_note(struct mjob *m, const char *fmt, ...)
{
	char text[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	struct iob_meta_kept *k = m->grp ? m->grp->kept : NULL;
	if (!m->grp) {
		iob_run_note(m->run, "%s", text);
		return;
	}
	char **nv = k ? realloc(k->notes, (k->nnotes + 1) * sizeof *nv) : NULL;
	if (!nv)
		return;
	k->notes = nv;
	if ((nv[k->nnotes] = strdup(text)) != NULL)
		k->nnotes++;
}

/* The directory k of tree t, opened from its root one component at a time
 * (never following a link); parent: its parent instead.  fd or -errno. */
static int dir_open(const struct mjob *m, const struct tree *t, uint64_t k)
{
	uint32_t chain[64];
	unsigned n = 0;
	uint64_t B = m->job->tree_branch;
	while (k > 0 && n < 64) {
		chain[n++] = (uint32_t)((k - 1) % B);
		k = (k - 1) / B;
	}
	int fd = dup(t->rootfd);
	if (fd < 0)
		return -errno;
	while (n-- > 0) {
		char name[24];
		snprintf(name, sizeof name, "d%u", chain[n]);
		int nfd = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int e = errno;
		close(fd);
		if (nfd < 0)
			return -e;
		fd = nfd;
	}
	return fd;
}

static void child_name(const struct mjob *m, uint64_t k, char *out, size_t len)
{
	snprintf(out, len, "d%llu", (unsigned long long)((k - 1) % m->job->tree_branch));
}

static int open_root(struct mjob *m, struct tree *t)
{
	if (t->rootfd >= 0)
		return 0;
	int fd = openat(m->dirfd, t->root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	t->rootfd = fd;
	return 0;
}

static inline void fail(struct mstream *s, int e, const char *what, const char *name)
{
	if (s->status)
		return;
	s->status = -e;
	snprintf(s->err, sizeof s->err, "stream %llu: %s %s: %s", (unsigned long long)s->g, what, name, strerror(e));
}

static int stopped(struct mstream *s)
{
	struct mjob *m = s->m;
	if (__atomic_load_n(&m->phase_stop, __ATOMIC_RELAXED))
		return 1;
	if (m->bound_ns && s->op == IOB_META_CREATE && ((s->ops & 63) == 0) && iob_now_ns() - s->t0 >= m->bound_ns)
		return 1;
	return 0;
}

/* One directory of tree t made (k = t->dirs), timed into s when s != NULL. */
static int make_dir(struct mjob *m, struct tree *t, struct mstream *s)
{
	uint64_t k = t->dirs;
	char name[IOB_NAME_MAX + 64];
	uint64_t a = iob_now_ns();
	int rc;
	if (k == 0) {
		snprintf(name, sizeof name, "%s", t->root);
		rc = mkdirat(m->dirfd, name, 0700) == 0 ? 0 : -errno;
		if (rc == 0) {
			struct stat st;
			t->made_root = 1;
			t->dirs = 1;
			int fd = openat(m->dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0 || fstat(fd, &st) != 0) {
				rc = -errno;
				if (fd >= 0)
					close(fd);
			} else {
				t->rootfd = fd;
				t->dev = (uint64_t)st.st_dev;
				t->ino = (uint64_t)st.st_ino;
			}
		}
	} else {
		int pfd = dir_open(m, t, (k - 1) / m->job->tree_branch);
		child_name(m, k, name, sizeof name);
		rc = pfd < 0 ? pfd : (mkdirat(pfd, name, 0700) == 0 ? 0 : -errno);
		if (pfd >= 0)
			close(pfd);
		if (rc == 0)
			t->dirs = k + 1;
	}
	if (s) {
		iob_hist_record(s->h, iob_now_ns() - a);
		if (rc == 0)
			s->ops++;
		else
			fail(s, -rc, "cannot make directory", name);
	}
	return rc;
}

/* The last directory of tree t removed (the root: only when it is still the
 * one made). */
static int remove_dir(struct mjob *m, struct tree *t, struct mstream *s)
{
	uint64_t k = t->dirs - 1;
	char name[IOB_NAME_MAX + 64];
	uint64_t a = iob_now_ns();
	int rc;
	if (k == 0) {
		struct stat st;
		snprintf(name, sizeof name, "%s", t->root);
		if (t->rootfd >= 0) {
			close(t->rootfd);
			t->rootfd = -1;
		}
		if (fstatat(m->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			rc = -errno;
		else if ((uint64_t)st.st_dev != t->dev || (uint64_t)st.st_ino != t->ino || !S_ISDIR(st.st_mode))
			rc = -ESTALE; /* replaced during the run: kept */
		else
			rc = unlinkat(m->dirfd, name, AT_REMOVEDIR) == 0 ? 0 : -errno;
	} else {
		int pfd = dir_open(m, t, (k - 1) / m->job->tree_branch);
		child_name(m, k, name, sizeof name);
		rc = pfd < 0 ? pfd : (unlinkat(pfd, name, AT_REMOVEDIR) == 0 ? 0 : -errno);
		if (pfd >= 0)
			close(pfd);
	}
	if (rc == 0 || rc == -ENOENT)
		t->dirs = k;
	if (s) {
		iob_hist_record(s->h, iob_now_ns() - a);
		if (rc == 0)
			s->ops++;
		else
			fail(s, -rc, "cannot remove directory", name);
	}
	return rc;
}

/* v in decimal at p; returns the end */
static char *put_dec(char *p, uint64_t v)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* "f.<g>.<i>" without printf: it runs once per operation */
static void file_name(char *out, uint64_t g, uint64_t i)
{
	char *p = out;
	*p++ = 'f';
	*p++ = '.';
	p = put_dec(p, g);
	*p++ = '.';
	p = put_dec(p, i);
	*p = '\0';
}

/* Do item i of the phase on file f.<g>.<i> of tree t, its directory open
 * on dfd. */
static int file_op(struct mstream *s, int dfd, uint64_t g, uint64_t i)
{
	struct mjob *m = s->m;
	const struct iob_job *job = m->job;
	char name[64];
	file_name(name, g, i);
	char *buf = m->buf + (size_t)(s - m->s) * (job->file_bytes ? job->file_bytes : 1);
	uint64_t a = iob_now_ns();
	int rc = 0, fd;
	uint64_t moved = 0;
	struct stat st;
	switch (s->op) {
	case IOB_META_CREATE:
	case IOB_META_WRITE:
		fd = openat(dfd, name,
			    s->op == IOB_META_CREATE ? O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC
						     : O_WRONLY | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		if (fd < 0) {
			rc = -errno;
			break;
		}
		if (s->op == IOB_META_CREATE)
			s->created = i + 1;
		while (moved < job->file_bytes) {
			ssize_t w = write(fd, buf + moved, (size_t)(job->file_bytes - moved));
			if (w <= 0) {
				rc = w < 0 ? -errno : -EIO;
				break;
			}
			moved += (uint64_t)w;
		}
		if (rc == 0 && job->file_fsync && fsync(fd) != 0)
			rc = -errno;
		if (close(fd) != 0 && rc == 0)
			rc = -errno;
		break;
	case IOB_META_STAT:
		rc = fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : -errno;
		if (rc == 0 && !S_ISREG(st.st_mode))
			rc = -EINVAL;
		break;
	case IOB_META_OPEN:
	case IOB_META_READ:
		fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			rc = -errno;
			break;
		}
		while (s->op == IOB_META_READ && moved < job->file_bytes) {
			ssize_t r = read(fd, buf + moved, (size_t)(job->file_bytes - moved));
			if (r < 0) {
				rc = -errno;
				break;
			}
			if (r == 0) {
				rc = -ENODATA; /* shorter than file_bytes */
				break;
			}
			moved += (uint64_t)r;
		}
		close(fd);
		break;
	case IOB_META_REMOVE:
		rc = unlinkat(dfd, name, 0) == 0 ? 0 : -errno;
		if (rc == 0 || rc == -ENOENT)
			s->removed = i + 1;
		break;
	default:
		rc = -EINVAL;
	}
	iob_hist_record(s->h, iob_now_ns() - a);
	if (rc == 0) {
		s->ops++;
		s->bytes += moved;
	} else {
		fail(s, -rc, OP_NAMES[s->op], name);
	}
	return rc;
}

/* Files [from, to) of stream g in tree t, directory by directory. */
static void file_range(struct mstream *s, struct tree *t, uint64_t g, uint64_t from, uint64_t to, int timed)
{
	struct mjob *m = s->m;
	int dfd = -1;
	uint64_t cur = UINT64_MAX;
	for (uint64_t i = from; i < to && !s->status; i++) {
		if (timed && stopped(s))
			break;
		uint64_t k = i / m->per_dir;
		if (k != cur) {
			if (dfd >= 0)
				close(dfd);
			dfd = dir_open(m, t, k);
			cur = k;
			if (dfd < 0) {
				char what[48];
				snprintf(what, sizeof what, "directory %llu of", (unsigned long long)k);
				fail(s, -dfd, "cannot open", what);
				fail(s, -dfd, "cannot open the tree", t->root);
				break;
			}
		}
		file_op(s, dfd, g, i);
	}
	if (dfd >= 0)
		close(dfd);
}

static void stream_main(void *arg)
{
	struct mstream *s = arg;
	struct mjob *m = s->m;
	iob_barrier_wait(m->go);
	s->t0 = iob_now_ns();
	switch (s->op) {
	case IOB_META_MKDIR:
		if (s->own->owner && (m->job->dir_per_stream || s->g == 0))
			while (s->own->dirs < m->ndirs && !s->status && !stopped(s))
				make_dir(m, s->own, s);
		break;
	case IOB_META_RMDIR:
		if (s->own->owner && (m->job->dir_per_stream || s->g == 0))
			while (s->own->dirs > 0 && !s->status && !stopped(s))
				remove_dir(m, s->own, s);
		break;
	case IOB_META_CREATE:
		file_range(s, s->own, s->g, s->created, s->count, 1);
		break;
	case IOB_META_REMOVE:
		file_range(s, s->own, s->g, s->removed, s->created, 1);
		break;
	default:
		if (s->other)
			file_range(s, s->other, s->other_g, 0, s->count, 1);
		else
			file_range(s, s->own, s->g, 0, s->count, 1);
	}
	s->t1 = iob_now_ns();
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
}

/* What rank 0 says back. */
struct verdict {
	int32_t status, stop;
	uint64_t made_min;
	char err[512];
};

/* The phase record.  cut: a stop that was another job's failure. */
static void emit_record(struct iob_run *run, const struct iob_job *job, enum iob_meta_op op, const struct part *p,
			uint64_t nranks, int dropped, uint32_t rep, int cut)
{
	struct iob_recbuf *rb = &run->rb;
	uint64_t G = global_streams(job), ndirs = tree_dirs(job->tree_depth, job->tree_branch, IOB_META_DIRS_MAX);
	double secs = p->end > p->start ? (double)(p->end - p->start) / 1e9 : 0;
	iob_rec_reset(rb, "meta");
	iob_rec_str(rb, "job", job->name);
	iob_rec_str(rb, "phase", OP_NAMES[op]);
	iob_rec_str(rb, "dir", job->dir);
	iob_rec_u64(rb, "ranks", IOB_UNIT_COUNT, nranks);
	iob_rec_u64(rb, "streams", IOB_UNIT_COUNT, G);
	iob_rec_u64(rb, "files", IOB_UNIT_COUNT, job->files);
	iob_rec_u64(rb, "tree_depth", IOB_UNIT_COUNT, job->tree_depth);
	iob_rec_u64(rb, "tree_branch", IOB_UNIT_COUNT, job->tree_branch);
	iob_rec_u64(rb, "tree_dirs", IOB_UNIT_COUNT, ndirs);
	iob_rec_bool(rb, "dir_per_stream", job->dir_per_stream);
	iob_rec_u64(rb, "file_size_bytes", IOB_UNIT_BYTES, job->file_bytes);
	iob_rec_bool(rb, "fsync", job->file_fsync);
	iob_rec_u64(rb, "stat_other", IOB_UNIT_COUNT, job->stat_other);
	iob_rec_u64(rb, "ops", IOB_UNIT_OPS, p->ops);
	iob_rec_u64(rb, "bytes", IOB_UNIT_BYTES, p->bytes);
	iob_rec_f64(rb, "elapsed_s", IOB_UNIT_S, secs);
	if (secs > 0) {
		iob_rec_f64(rb, "ops_per_s", IOB_UNIT_OPS_PER_S, (double)p->ops / secs);
		iob_rec_f64(rb, "bw_bytes_per_s", IOB_UNIT_BYTES_PER_S, (double)p->bytes / secs);
	} else {
		iob_rec_absent(rb, "ops_per_s", IOB_UNIT_OPS_PER_S);
		iob_rec_absent(rb, "bw_bytes_per_s", IOB_UNIT_BYTES_PER_S);
	}
	if (p->h.count)
		iob_rec_lat(rb, "lat_ns", &p->h);
	else
		iob_rec_absent(rb, "lat_ns", IOB_UNIT_NS);
	if (p->smax > 0) {
		iob_rec_f64(rb, "stream_ops_min_per_s", IOB_UNIT_OPS_PER_S, p->smin);
		iob_rec_f64(rb, "stream_ops_max_per_s", IOB_UNIT_OPS_PER_S, p->smax);
	} else {
		iob_rec_absent(rb, "stream_ops_min_per_s", IOB_UNIT_OPS_PER_S);
		iob_rec_absent(rb, "stream_ops_max_per_s", IOB_UNIT_OPS_PER_S);
	}
	iob_rec_bool(rb, "caches_dropped", dropped);
	iob_rec_str(rb, "fs_type", strcmp(run->fs_type, "unknown") ? run->fs_type : NULL);
	iob_rec_str(rb, "status", p->status ? "error" : p->stop ? (cut ? "stopped" : "interrupted") : "ok");
	if (job->repeat > 1)
		iob_rec_u64(rb, "repeat", IOB_UNIT_COUNT, rep);
	iob_run_record(run, &rb->rec);
}

/* The phase record now, or kept for the runner's thread in a group */
static void emit(struct mjob *m, enum iob_meta_op op, const struct part *p, uint64_t nranks, int dropped,
		 uint32_t rep)
{
	if (!m->grp) {
		emit_record(m->run, m->job, op, p, nranks, dropped, rep, 0);
		return;
	}
	struct iob_meta_kept *k = m->grp->kept;
	struct kept_rec *nv = realloc(k->rec, (k->nrec + 1) * sizeof *nv);
	if (!nv) {
		m_fail(m, "out of memory");
		return;
	}
	k->rec = nv;
	nv[k->nrec++] = (struct kept_rec){.op = op, .rep = rep, .nranks = nranks, .dropped = dropped, .p = *p};
}

/* Per op kind over the repeats: the rates for the summary. */
struct reps {
	double v[IOB_META_NOPS][1000];
	uint32_t n[IOB_META_NOPS];
};

static void emit_summary(struct mjob *m, const struct reps *r)
{
	struct iob_recbuf *rb = &m->run->rb;
	for (int op = 0; op < IOB_META_NOPS; op++) {
		uint32_t n = r->n[op];
		if (!n)
			continue;
		double mean = 0, mn = r->v[op][0], mx = r->v[op][0], ss = 0;
		for (uint32_t i = 0; i < n; i++) {
			mean += r->v[op][i];
			mn = r->v[op][i] < mn ? r->v[op][i] : mn;
			mx = r->v[op][i] > mx ? r->v[op][i] : mx;
		}
		mean /= n;
		for (uint32_t i = 0; i < n; i++)
			ss += (r->v[op][i] - mean) * (r->v[op][i] - mean);
		iob_rec_reset(rb, "meta_summary");
		iob_rec_str(rb, "job", m->job->name);
		iob_rec_str(rb, "phase", OP_NAMES[op]);
		iob_rec_u64(rb, "runs", IOB_UNIT_COUNT, n);
		iob_rec_f64(rb, "ops_per_s_mean", IOB_UNIT_OPS_PER_S, mean);
		iob_rec_f64(rb, "ops_per_s_min", IOB_UNIT_OPS_PER_S, mn);
		iob_rec_f64(rb, "ops_per_s_max", IOB_UNIT_OPS_PER_S, mx);
		if (n > 1)
			iob_rec_f64(rb, "ops_per_s_stddev", IOB_UNIT_OPS_PER_S, sqrt(ss / (n - 1)));
		else
			iob_rec_absent(rb, "ops_per_s_stddev", IOB_UNIT_OPS_PER_S);
		iob_run_record(m->run, &rb->rec);
	}
}

/* One phase on every stream of the rank, and across ranks: the verdict in
 * *v; the record (rank 0) when timed. */
static int run_op(struct mjob *m, enum iob_meta_op op, int dropped, uint32_t rep, struct reps *reps,
		  struct verdict *v)
{
	const struct iob_job *job = m->job;
	int rc = 0;
	for (uint32_t i = 0; i < m->nthreads; i++) {
		struct mstream *s = &m->s[i];
		s->op = op;
		s->done = 0;
		s->ops = s->bytes = 0;
		s->status = 0;
		s->err[0] = '\0';
		iob_hist_reset(s->h);
		s->count = op == IOB_META_CREATE ? job->files : s->created;
		if (op != IOB_META_MKDIR && op != IOB_META_RMDIR && s->own->rootfd < 0 && (rc = open_root(m, s->own)))
			fail(s, -rc, "cannot open the tree", s->own->root);
		if (s->other && op >= IOB_META_WRITE && op <= IOB_META_READ) {
			s->count = m->made_min;
			if (s->other->rootfd < 0 && (rc = open_root(m, s->other)) != 0)
				fail(s, -rc, "cannot open the tree", s->other->root);
		}
		if (op == IOB_META_RMDIR && !s->own->owner && s->own->rootfd >= 0) {
			close(s->own->rootfd);
			s->own->rootfd = -1;
		}
	}
	struct part *p = calloc(1, sizeof *p);
	if (!p || iob_barrier_init(&m->go, m->nthreads + 1) != 0) {
		free(p);
		m_fail(m, "out of memory");
		return -ENOMEM;
	}
	uint32_t started = 0;
	for (; started < m->nthreads; started++)
		if (iob_thread_start(&m->s[started].th, stream_main, &m->s[started]) != 0)
			break;
	if (iob_coord_active())
		iob_coord_barrier();
	if (m->grp && m->grp->ready) { /* the group's start: every job ready, no clock started */
		m->grp->ready(m->grp->ready_arg);
		m->grp->ready = NULL;
	}
	m->epoch = iob_now_ns();
	if (started < m->nthreads) { /* the threads that did start run with none of the others */
		for (uint32_t i = started; i < m->nthreads; i++)
			iob_barrier_arrive(m->go);
		fail(&m->s[started], EAGAIN, "cannot start a thread for", "the phase");
	}
	iob_barrier_wait(m->go);
	/* the stop signal reaches the streams through phase_stop (as streams.c
	 * does): the handler runs on this thread, the streams block signals.
	 * This thread naps 1 ms, then twice as long each time up to 32 ms: a
	 * wake-up every millisecond took the streams' cores from them (mdtest
	 * has no such thread); the signal ends a nap at once (EINTR), a group's
	 * stop within a nap. */
	uint64_t nap = 1000000;
	for (;;) {
		uint32_t done = 0;
		for (uint32_t i = 0; i < started; i++)
			done += __atomic_load_n(&m->s[i].done, __ATOMIC_ACQUIRE) != 0;
		if (done == started)
			break;
		int stop = __atomic_load_n(m->stop, __ATOMIC_RELAXED) != 0;
		if (stop)
			__atomic_store_n(&m->phase_stop, 1, __ATOMIC_RELAXED);
		/* alone, the handler sets *m->stop on this thread; in a group other
		 * threads set it (atomically) and no signal comes here */
		iob_sleep_ns(stop ? 1000000 : nap, stop || m->grp ? NULL : m->stop);
		nap = nap < 32000000 ? nap * 2 : nap;
	}
	for (uint32_t i = 0; i < started; i++)
		iob_thread_join(m->s[i].th);
	iob_barrier_destroy(m->go);
	m->go = NULL;
	/* this rank's part */
	p->start = UINT64_MAX;
	p->made_min = UINT64_MAX;
	p->stop = __atomic_load_n(m->stop, __ATOMIC_RELAXED) != 0;
	p->dropped = dropped;
	for (uint32_t i = 0; i < m->nthreads; i++) {
		struct mstream *s = &m->s[i];
		uint64_t a = s->t0 > m->epoch ? s->t0 - m->epoch : 0, e = s->t1 > m->epoch ? s->t1 - m->epoch : 0;
		if (i >= started)
			a = e = 0;
		p->ops += s->ops;
		p->bytes += s->bytes;
		p->start = a < p->start ? a : p->start;
		p->end = e > p->end ? e : p->end;
		double r = s->t1 > s->t0 && s->ops ? (double)s->ops / ((double)(s->t1 - s->t0) / 1e9) : 0;
		if (i == 0 || r < p->smin)
			p->smin = r;
		if (r > p->smax)
			p->smax = r;
		iob_hist_merge(&p->h, s->h);
		if (s->status && !p->status) {
			p->status = s->status;
			snprintf(p->err, sizeof p->err, "%s", s->err);
		}
		if (s->created < p->made_min)
			p->made_min = s->created;
	}
	if (p->start == UINT64_MAX)
		p->start = 0;
	uint64_t nranks = 1;
	if (iob_coord_active()) {
		void *all = NULL;
		uint64_t *lens = calloc((size_t)iob_coord_size(), sizeof *lens);
		int grc = lens ? iob_coord_gather(p, sizeof *p, &all, lens) : -ENOMEM;
		memset(v, 0, sizeof *v);
		if (grc == 0 && all) { /* rank 0 */
			struct part *q = all, *sum = p;
			nranks = (uint64_t)iob_coord_size();
			for (uint64_t r = 1; r < nranks; r++) {
				struct part *o = &q[r];
				sum->ops += o->ops;
				sum->bytes += o->bytes;
				sum->start = o->start < sum->start ? o->start : sum->start;
				sum->end = o->end > sum->end ? o->end : sum->end;
				sum->smin = o->smin < sum->smin ? o->smin : sum->smin;
				sum->smax = o->smax > sum->smax ? o->smax : sum->smax;
				sum->stop |= o->stop;
				sum->dropped &= o->dropped;
				sum->made_min = o->made_min < sum->made_min ? o->made_min : sum->made_min;
				iob_hist_merge(&sum->h, &o->h);
				if (o->status && !sum->status) {
					sum->status = o->status;
					snprintf(sum->err, sizeof sum->err, "rank %llu: %s", (unsigned long long)r, o->err);
				}
			}
		}
		free(all);
		free(lens);
		if (grc != 0 && !p->status) {
			p->status = grc;
			snprintf(p->err, sizeof p->err, "gathering the ranks' results: %s", strerror(-grc));
		}
		v->status = p->status;
		v->stop = p->stop;
		v->made_min = p->made_min;
		snprintf(v->err, sizeof v->err, "%s", p->err);
		iob_coord_bcast(v, sizeof *v);
	} else {
		v->status = p->status;
		v->stop = p->stop;
		v->made_min = p->made_min;
		snprintf(v->err, sizeof v->err, "%s", p->err);
	}
	m->made_min = v->made_min;
	if (iob_coord_rank() == 0 && (p->ops || !p->status)) {
		emit(m, op, p, nranks, p->dropped, rep);
		if (p->end > p->start && !p->status && !p->stop && reps->n[op] < 1000)
			reps->v[op][reps->n[op]++] = (double)p->ops / ((double)(p->end - p->start) / 1e9);
	}
	free(p);
	return v->status;
}

/* Remove what is left of what the run made: files, then (after every rank's
 * files) the directories, deepest first.  Untimed. */
static void cleanup(struct mjob *m)
{
	for (uint32_t i = 0; i < m->nthreads; i++) {
		struct mstream *s = &m->s[i];
		if (s->removed >= s->created)
			continue;
		s->op = IOB_META_REMOVE;
		s->status = 0;
		if (s->own->rootfd < 0 && open_root(m, s->own) != 0)
			continue;
		file_range(s, s->own, s->g, s->removed, s->created, 0);
		if (s->status)
			m_note(m, "job %s: kept %llu file(s) of stream %llu: %s", m->job->name,
				     (unsigned long long)(s->created - s->removed), (unsigned long long)s->g, s->err);
	}
	if (iob_coord_active())
		iob_coord_barrier();
	for (size_t t = 0; t < m->ntrees; t++) {
		struct tree *tr = &m->trees[t];
		if (!tr->owner) {
			if (tr->rootfd >= 0)
				close(tr->rootfd);
			tr->rootfd = -1;
			continue;
		}
		if (tr->dirs > 0 && tr->rootfd < 0 && open_root(m, tr) != 0 && tr->dirs > 1) {
			m_note(m, "job %s: kept the tree %s/%s: it cannot be opened", m->job->name, m->job->dir,
				     tr->root);
			continue;
		}
		while (tr->dirs > 0) {
			uint64_t k = tr->dirs - 1;
			int rc = remove_dir(m, tr, NULL);
			if (rc != 0 && rc != -ENOENT) {
				m_note(m, "job %s: kept %s/%s%s: %s", m->job->name, m->job->dir, tr->root,
					     k ? " (a directory inside)" : "",
					     rc == -ESTALE ? "it is no longer what this run created" : strerror(-rc));
				break;
			}
		}
	}
	for (uint32_t i = 0; m->others && i < m->nthreads; i++)
		if (m->others[i].rootfd >= 0) {
			close(m->others[i].rootfd);
			m->others[i].rootfd = -1;
		}
}

/* Make the trees untimed (no mkdir phase), then every rank waits. */
static int prepare(struct mjob *m)
{
	int rc = 0;
	for (size_t t = 0; t < m->ntrees && rc == 0; t++)
		while (m->trees[t].owner && m->trees[t].dirs < m->ndirs && rc == 0)
			rc = make_dir(m, &m->trees[t], NULL);
	if (rc)
		m_fail(m, "[%s] cannot make the tree in %s: %s", m->job->name, m->job->dir, strerror(-rc));
	if (iob_coord_active()) {
		char text[1024];
		int a = iob_coord_agree(rc, rc ? m->run->error : "", NULL, NULL, 0, text, sizeof text);
		if (a && !rc) {
			m_fail(m, "%s", text);
			rc = a;
		}
	}
	return rc;
}

static void mjob_free(struct mjob *m)
{
	for (size_t t = 0; m->trees && t < m->ntrees; t++)
		if (m->trees[t].rootfd >= 0)
			close(m->trees[t].rootfd);
	for (uint32_t i = 0; m->others && i < m->nthreads; i++)
		if (m->others[i].rootfd >= 0)
			close(m->others[i].rootfd);
	if (m->s)
		for (uint32_t i = 0; i < m->nthreads; i++)
			iob_hist_free(m->s[i].h);
	free(m->s);
	free(m->trees);
	free(m->others);
	free(m->buf);
	if (m->dirfd >= 0)
		close(m->dirfd);
}

static int mjob_init(struct mjob *m, struct iob_run *run, const struct iob_job *job, struct iob_meta_group *grp)
{
	memset(m, 0, sizeof *m);
	m->dirfd = -1;
	m->run = run;
	m->job = job;
	m->grp = grp;
	m->stop = grp ? grp->stop : run->live_stop;
	m->nthreads = job->threads ? job->threads : 1;
	m->G = global_streams(job);
	m->ndirs = tree_dirs(job->tree_depth, job->tree_branch, IOB_META_DIRS_MAX);
	m->per_dir = (job->files + m->ndirs - 1) / m->ndirs;
	m->bound_ns = job->stonewall_ns;
	if (job->runtime_ns && (!m->bound_ns || job->runtime_ns < m->bound_ns))
		m->bound_ns = job->runtime_ns;
	uint64_t rank = (uint64_t)iob_coord_rank(), g0 = rank * m->nthreads;
	char dir[IOB_PATH_MAX];
	iob_strip_slashes(job->dir, dir, sizeof dir);
	m->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (job->follow_symlinks ? 0 : O_NOFOLLOW));
	if (m->dirfd < 0) {
		int e = errno;
		m_fail(m, "[%s] cannot open dir '%s': %s", job->name, job->dir,
			     e == ELOOP ? "it became a symbolic link after the checks" : strerror(e));
		return -e;
	}
	m->ntrees = job->dir_per_stream ? m->nthreads : 1;
	m->trees = calloc(m->ntrees, sizeof *m->trees);
	m->s = calloc(m->nthreads, sizeof *m->s);
	m->buf = calloc(m->nthreads, job->file_bytes ? (size_t)job->file_bytes : 1);
	if (job->stat_other && job->dir_per_stream)
		m->others = calloc(m->nthreads, sizeof *m->others);
	if (!m->trees || !m->s || !m->buf || (job->stat_other && job->dir_per_stream && !m->others)) {
		m_fail(m, "out of memory");
		return -ENOMEM;
	}
	for (size_t t = 0; t < m->ntrees; t++) {
		m->trees[t].rootfd = -1;
		m->trees[t].owner = job->dir_per_stream || rank == 0;
		root_name(job, g0 + t, m->trees[t].root, sizeof m->trees[t].root);
	}
	for (size_t b = 0; b < (size_t)m->nthreads * (job->file_bytes ? job->file_bytes : 1); b++)
		m->buf[b] = (char)('a' + b % 26);
	for (uint32_t i = 0; i < m->nthreads; i++) {
		struct mstream *s = &m->s[i];
		s->m = m;
		s->g = g0 + i;
		s->own = &m->trees[job->dir_per_stream ? i : 0];
		if (!(s->h = iob_hist_new())) {
			m_fail(m, "out of memory");
			return -ENOMEM;
		}
		if (job->stat_other) {
			s->other_g = (s->g + job->stat_other) % m->G;
			if (!job->dir_per_stream) {
				s->other = s->own;
			} else {
				s->other = &m->others[i];
				s->other->rootfd = -1;
				root_name(job, s->other_g, s->other->root, sizeof s->other->root);
			}
		}
	}
	return 0;
}

/* The job: alone (grp NULL), or on a group's job thread. */
static int meta_main(struct iob_run *run, size_t j, struct iob_meta_group *grp)
{
	const struct iob_job *job = &run->suite->jobs[j];
	struct mjob m;
	if (!grp) /* in a group the runner's thread says it before the records */
		iob_fs_facts(job->dir, run->fs_type, sizeof run->fs_type, &run->fs_block_size, run->device,
			     sizeof run->device);
	int rc = mjob_init(&m, run, job, grp);
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
		m_fail(&m, "out of memory");
		rc = -ENOMEM;
	}
	int root = iob_euid() == 0, noted[IOB_META_NOPS] = {0}, stop = 0;
	uint32_t runs = job->repeat ? job->repeat : 1;
	for (uint32_t it = 0; it < runs && rc == 0 && !stop; it++) {
		int first = 1;
		if (!(job->meta_phases & (1u << IOB_META_MKDIR)))
			rc = prepare(&m);
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
			rc = run_op(&m, (enum iob_meta_op)op, dropped, it, reps, &v);
			first = 0;
			if (v.status) {
				m_fail(&m, "job %s, %s phase: %s", job->name, OP_NAMES[op], v.err);
				rc = v.status;
			}
			if (v.stop) {
				stop = 1;
				if (grp)
					grp->kept->interrupted = 1;
				else
					run->interrupted = 1;
			}
			int cacheable = op == IOB_META_STAT || op == IOB_META_OPEN || op == IOB_META_READ;
			if (cacheable && !dropped && !noted[op] && iob_coord_rank() == 0) {
				noted[op] = 1;
				m_note(&m,
					     "job %s, %s phase: the files were made moments before%s and caches were "
					     "not dropped, so the dentry and inode caches%s may have answered: the "
					     "rate is not the storage's (as root, drop_caches = true drops them)",
					     job->name, OP_NAMES[op], job->stat_other ? " (by another stream)" : "",
					     op == IOB_META_READ ? " and the page cache" : "");
			}
		}
		if (!job->keep_files || stop || rc || it + 1 < runs)
			cleanup(&m);
		else
			for (size_t t = 0; t < m.ntrees; t++)
				m.trees[t].dirs = 0; /* kept: never removed by mjob_free */
		for (uint32_t i = 0; rc == 0 && i < m.nthreads; i++) {
			m.s[i].created = m.s[i].removed = 0;
			for (size_t t = 0; t < m.ntrees; t++)
				m.trees[t].dirs = 0;
		}
	}
	if (job->drop_caches && !root && iob_coord_rank() == 0)
		m_note(&m, "job %s: drop_caches needs root: caches were not dropped", job->name);
	if (reps && runs > 1 && iob_coord_rank() == 0)
		emit_summary(&m, reps);
	free(reps);
	mjob_free(&m);
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
		emit_record(run, job, k->rec[i].op, &k->rec[i].p, k->rec[i].nranks, k->rec[i].dropped, k->rec[i].rep,
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

#endif
