/*
 * meta_ops.c - a files job's stream at work on its tree (meta.c has the map
 * and the safety rules: every name reached from a held descriptor, nothing
 * followed; meta_os.h the calls to the OS): directories made and removed in
 * order, the file operations, a stream's thread.
 */
#include "meta_int.h"

/* The names of directory k's ancestors below the root, deepest first:
 * directory k is ROOT/d<chain[n-1]>/.../d<chain[0]>; n */
static unsigned dir_chain(const struct mjob *m, uint64_t k, uint32_t chain[64])
{
	unsigned n = 0;
	uint64_t B = m->job->tree_branch;
	while (k > 0 && n < 64) {
		chain[n++] = (uint32_t)((k - 1) % B);
		k = (k - 1) / B;
	}
	return n;
}

/* path_walk = full: the path of directory k of tree t from the job's
 * directory ("ROOT/dA/dB"); its length */
static size_t dir_path(const struct mjob *m, const struct tree *t, uint64_t k, char *out, size_t len)
{
	uint32_t chain[64];
	unsigned n = dir_chain(m, k, chain);
	size_t o = (size_t)snprintf(out, len, "%s", t->root);
	while (n-- > 0 && o < len)
		o += (size_t)snprintf(out + o, len - o, "/d%u", chain[n]);
	return o < len ? o : len - 1;
}

static mo_h dir_open(const struct mjob *m, const struct tree *t, uint64_t k);

/* Directory k of tree t, to make, remove or unlink names in, opened at the
 * first item a stream does in it and held for the ones after it (s->pfd):
 * items come in order, a directory's together (a parent's B children, a
 * directory's files).  full: by its whole path from the job's directory
 * (mo_full_dir: no link anywhere on it, nothing outside the job's
 * directory), walked once a directory where mdtest walks it once an item,
 * since mkdirat and unlinkat by a path would follow a link in the middle;
 * held: one component at a time from the held root (dir_open).  0 and *out
 * (the stream's), or -errno */
static int stream_dir(struct mstream *s, const struct tree *t, uint64_t k, mo_h *out)
{
	if (s->pfd < 0 || s->pt != t || s->pk != k) {
		mo_close(s->pfd);
		s->pfd = MO_NONE;
		int rc;
		if (s->m->job->path_walk) {
			char path[IOB_PATH_MAX + IOB_NAME_MAX + 64];
			dir_path(s->m, t, k, path, sizeof path);
			rc = mo_full_dir(s->m->dirfd, path, &s->pfd);
		} else {
			mo_h fd = dir_open(s->m, t, k);
			rc = fd < 0 ? (int)fd : 0;
			if (fd >= 0)
				s->pfd = fd;
		}
		if (rc < 0) {
			s->pfd = MO_NONE;
			return rc;
		}
		s->pt = t;
		s->pk = k;
	}
	*out = s->pfd;
	return 0;
}

/* The stream's held directory let go (before its root is removed) */
static void stream_dir_close(struct mstream *s)
{
	mo_close(s->pfd);
	s->pfd = MO_NONE;
}

/* A failure (the run's, or the first kept in a group) or a note (the
 * run's, or kept in a group), formatted: at most 2047 bytes of a failure,
 * 1023 of a note. */
IOB_PRINTF(3, 0) static void mt_say(struct mjob *m, int fail, const char *fmt, va_list ap)
{
	char text[2048];
	vsnprintf(text, fail ? sizeof text : 1024, fmt, ap);
	struct iob_meta_kept *k = m->grp ? m->grp->kept : NULL;
	if (!m->grp) {
		if (fail)
			iob_run_fail(m->run, 0, "%s", text);
		else
			iob_run_note(m->run, "%s", text);
		return;
	}
	if (fail) {
		if (k && !k->failed) {
			k->failed = 1;
			snprintf(k->error, sizeof k->error, "%s", text);
		}
		return;
	}
	char **nv = k ? realloc(k->notes, (k->nnotes + 1) * sizeof *nv) : NULL;
	if (!nv)
		return;
	k->notes = nv;
	if ((nv[k->nnotes] = strdup(text)) != NULL)
		k->nnotes++;
}

/* iob_run_fail, or kept (the first) in a group */
void mt_fail(struct mjob *m, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	mt_say(m, 1, fmt, ap);
	va_end(ap);
}

/* iob_run_note, or kept in a group */
void mt_note(struct mjob *m, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	mt_say(m, 0, fmt, ap);
	va_end(ap);
}

/* The end of a directory operation begun at a (s: a stream's, timed and
 * counted; NULL: unmeasured): its latency, and one op or the failure. */
static int dir_op_done(struct mstream *s, uint64_t a, int rc, const char *what, const char *name)
{
	if (s) {
		iob_hist_record(s->h, iob_now_ns() - a);
		if (rc == 0)
			s->ops++;
		else
			fail(s, -rc, what, name);
	}
	return rc;
}

/* The directory k of tree t, opened from its root one component at a time
 * (never following a link); parent: its parent instead.  fd or -errno. */
static mo_h dir_open(const struct mjob *m, const struct tree *t, uint64_t k)
{
	uint32_t chain[64];
	unsigned n = dir_chain(m, k, chain);
	mo_h fd;
	int rc = mo_dup(t->rootfd, &fd);
	if (rc < 0)
		return rc;
	while (n-- > 0) {
		char name[24];
		mo_h nfd;
		snprintf(name, sizeof name, "d%u", chain[n]);
		rc = mo_dir_open(fd, name, &nfd);
		mo_close(fd);
		if (rc < 0)
			return rc;
		fd = nfd;
	}
	return fd;
}

static void child_name(const struct mjob *m, uint64_t k, char *out, size_t len)
{
	snprintf(out, len, "d%llu", (unsigned long long)((k - 1) % m->job->tree_branch));
}

int mt_open_root(struct mjob *m, struct tree *t)
{
	if (t->rootfd >= 0)
		return 0;
	return mo_dir_open(m->dirfd, t->root, &t->rootfd);
}

int mt_stopped(struct mstream *s)
{
	struct mjob *m = s->m;
	if (__atomic_load_n(&m->phase_stop, __ATOMIC_RELAXED))
		return 1;
	if (m->bound_ns && s->op == IOB_META_CREATE && ((s->ops & 63) == 0) && iob_now_ns() - s->t0 >= m->bound_ns)
		return 1;
	return 0;
}

/* One directory of tree t made (k = t->dirs), timed into s when s != NULL. */
int mt_make_dir(struct mjob *m, struct tree *t, struct mstream *s)
{
	uint64_t k = t->dirs;
	char name[IOB_NAME_MAX + 64];
	uint64_t a = iob_now_ns();
	int rc;
	if (k == 0) {
		snprintf(name, sizeof name, "%s", t->root);
		rc = mo_mkdir(m->dirfd, name);
		if (rc == 0) {
			mo_h fd;
			t->made_root = 1;
			t->dirs = 1;
			rc = mo_dir_open(m->dirfd, name, &fd);
			if (rc == 0 && (rc = mo_identity(fd, &t->dev, &t->ino)) != 0)
				mo_close(fd);
			else if (rc == 0)
				t->rootfd = fd;
		}
	} else {
		/* a stream (timed): the parent held for its B children in a row;
		 * untimed (before the first phase): opened for each */
		mo_h pfd = MO_NONE;
		child_name(m, k, name, sizeof name);
		if (s) {
			rc = stream_dir(s, t, (k - 1) / m->job->tree_branch, &pfd);
		} else {
			pfd = dir_open(m, t, (k - 1) / m->job->tree_branch);
			rc = pfd < 0 ? (int)pfd : 0;
		}
		if (rc == 0)
			rc = mo_mkdir(pfd, name);
		if (!s)
			mo_close(pfd);
		if (rc == 0)
			t->dirs = k + 1;
	}
	return dir_op_done(s, a, rc, "cannot make directory", name);
}

/* The last directory of tree t removed (the root: only when it is still the
 * one made). */
int mt_remove_dir(struct mjob *m, struct tree *t, struct mstream *s)
{
	uint64_t k = t->dirs - 1;
	char name[IOB_NAME_MAX + 64];
	uint64_t a = iob_now_ns();
	int rc;
	if (k == 0) {
		snprintf(name, sizeof name, "%s", t->root);
		if (s)
			stream_dir_close(s); /* nothing of the tree held as it goes */
		if (t->rootfd >= 0) {
			mo_close(t->rootfd);
			t->rootfd = MO_NONE;
		}
		rc = mo_rmdir_same(m->dirfd, name, t->dev, t->ino); /* replaced during the run: -ESTALE, kept */
	} else if (s) {
		mo_h pfd;
		child_name(m, k, name, sizeof name);
		rc = stream_dir(s, t, (k - 1) / m->job->tree_branch, &pfd);
		if (rc == 0)
			rc = mo_rmdir(pfd, name);
	} else {
		mo_h pfd = dir_open(m, t, (k - 1) / m->job->tree_branch);
		child_name(m, k, name, sizeof name);
		rc = pfd < 0 ? (int)pfd : mo_rmdir(pfd, name);
		mo_close(pfd);
	}
	if (rc == 0 || rc == -ENOENT)
		t->dirs = k;
	return dir_op_done(s, a, rc, "cannot remove directory", name);
}

/* held: the parent of directory k (> 0) of tree t open on *pfd (directory
 * *cur), opened again one component at a time from the root only when it
 * changes (directories come B to a parent, in order).  0 or -errno */
static int parent_held(const struct mjob *m, const struct tree *t, uint64_t k, uint64_t *cur, mo_h *pfd)
{
	uint64_t p = (k - 1) / m->job->tree_branch;
	if (p == *cur && *pfd >= 0)
		return 0;
	mo_close(*pfd);
	*cur = p;
	*pfd = dir_open(m, t, p);
	return *pfd < 0 ? (int)*pfd : 0;
}

/* dirstat: directories [from, to) of tree t, each one stat (a link there is
 * not followed; something else than a directory fails, naming it), timed
 * into s.  held: from its parent's descriptor (the root from the job's
 * directory), the parent opened again only when it changes (directories
 * come B to a parent), as the file phases hold their directory; full: its
 * whole path from the job's directory (the stream's own handle of it), one
 * fstatat as mdtest's stat, the tree checked after the phase (full_check). */
static void stat_dirs(struct mstream *s, const struct tree *t, uint64_t from, uint64_t to)
{
	struct mjob *m = s->m;
	uint64_t cur = UINT64_MAX;
	int full = m->job->path_walk, rc;
	mo_h top = MO_NONE, pfd = MO_NONE;
	char path[IOB_PATH_MAX + IOB_NAME_MAX + 64], name[IOB_NAME_MAX + 64];
	if (full && (rc = mo_full_top(m->dirfd, &top)) != 0) {
		fail(s, -rc, "cannot open", "the job's directory");
		return;
	}
	s->walkt = t;
	s->walk1 = 0;
	for (uint64_t k = from; k < to && !s->status && !mt_stopped(s); k++) {
		mo_h at = m->dirfd;
		if (full) {
			dir_path(m, t, k, path, sizeof path);
		} else if (k == 0) {
			snprintf(name, sizeof name, "%s", t->root);
		} else {
			if ((rc = parent_held(m, t, k, &cur, &pfd)) != 0) {
				dir_path(m, t, cur, path, sizeof path);
				fail(s, -rc, "cannot open the directory", path);
				break;
			}
			at = pfd;
			child_name(m, k, name, sizeof name);
		}
		uint64_t a = iob_now_ns();
		rc = full ? mo_full_stat_dir(top, path, s->sdev) : mo_stat_dir(at, name);
		iob_hist_record(s->h, iob_now_ns() - a);
		if (full)
			s->walk1 = k + 1;
		if (rc == 0) {
			s->ops++;
		} else {
			if (!full)
				dir_path(m, t, k, path, sizeof path);
			fail(s, -rc, "dirstat", path);
		}
	}
	mo_close(pfd);
	mo_close(top);
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

/* Do item i of the phase on file f.<g>.<i> of tree t, in its directory k:
 * held, from the directory open on dfd; full (dir != NULL), by its whole
 * path dir/f.<g>.<i> from the job's directory, resolved at every operation
 * as mdtest resolves its path (mo_full_*: no link followed anywhere on it,
 * nothing outside the job's directory).  A stat is one fstatat of the path
 * (a link in the middle followed, as mdtest's: the tree is checked after
 * the phase, full_check); a remove unlinks the name in the directory opened
 * by its path at the first file removed in it (stream_dir). */
static int file_op(struct mstream *s, mo_h dfd, char *dir, size_t dlen, const struct tree *t, uint64_t k,
		   uint64_t g, uint64_t i)
{
	struct mjob *m = s->m;
	const struct iob_job *job = m->job;
	char held[64];
	char *name = held, *path = held;
	if (dir) { /* dfd: the stream's own handle of the job's directory */
		dir[dlen] = '/';
		name = dir + dlen + 1;
		path = dir;
	}
	file_name(name, g, i);
	char *buf = m->buf + (size_t)(s - m->s) * (job->file_bytes ? job->file_bytes : 1);
	uint64_t a = iob_now_ns();
	int rc = 0, c;
	mo_h fd;
	uint64_t moved = 0;
	switch (s->op) {
	case IOB_META_CREATE:
	case IOB_META_WRITE:
		rc = dir ? mo_full_file_open(dfd, path, s->op == IOB_META_CREATE ? MO_CREATE : MO_WRITE, &fd)
			 : mo_file_open(dfd, name, s->op == IOB_META_CREATE ? MO_CREATE : MO_WRITE, &fd);
		if (rc < 0)
			break;
		if (s->op == IOB_META_CREATE)
			s->created = i + 1;
		while (moved < job->file_bytes) {
			long w = mo_write(fd, buf + moved, (size_t)(job->file_bytes - moved));
			if (w <= 0) {
				rc = w < 0 ? (int)w : -EIO;
				break;
			}
			moved += (uint64_t)w;
		}
		if (rc == 0 && job->file_fsync)
			rc = mo_fsync(fd);
		if ((c = mo_file_close(fd)) != 0 && rc == 0)
			rc = c;
		break;
	case IOB_META_STAT:
		rc = dir ? mo_full_stat_file(dfd, path, s->sdev) : mo_stat_file(dfd, name);
		break;
	case IOB_META_OPEN:
	case IOB_META_READ:
		rc = dir ? mo_full_file_open(dfd, path, MO_READ, &fd) : mo_file_open(dfd, name, MO_READ, &fd);
		if (rc < 0)
			break;
		while (s->op == IOB_META_READ && moved < job->file_bytes) {
			long r = mo_read(fd, buf + moved, (size_t)(job->file_bytes - moved));
			if (r < 0) {
				rc = (int)r;
				break;
			}
			if (r == 0) {
				rc = -ENODATA; /* shorter than file_bytes */
				break;
			}
			moved += (uint64_t)r;
		}
		mo_file_close(fd);
		break;
	case IOB_META_REMOVE:
		if (dir) {
			mo_h pfd;
			rc = stream_dir(s, t, k, &pfd);
			if (rc == 0)
				rc = mo_unlink(pfd, name);
		} else {
			rc = mo_unlink(dfd, name);
		}
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
		fail(s, -rc, iob_meta_op_name(s->op), path);
	}
	return rc;
}

/* Files [from, to) of stream g in tree t, directory by directory: held, from
 * each directory's handle; full (timed phases with path_walk = full), by
 * the whole path every time. */
void mt_file_range(struct mstream *s, struct tree *t, uint64_t g, uint64_t from, uint64_t to, int timed)
{
	struct mjob *m = s->m;
	int full = timed && m->job->path_walk;
	mo_h dfd = MO_NONE;
	/* full: the job's directory opened again for this stream ("." of it, no
	 * name that could be a link), so that the streams' walks do not all
	 * count references on one open file (threads share one table, so the
	 * kernel does on every call) */
	int e;
	if (full && (e = mo_full_top(m->dirfd, &dfd)) != 0) {
		fail(s, -e, "cannot open", "the job's directory");
		return;
	}
	char dir[IOB_PATH_MAX + IOB_NAME_MAX + 64];
	size_t dlen = 0;
	uint64_t cur = UINT64_MAX;
	s->walkt = t;
	s->walk1 = 0;
	for (uint64_t i = from; i < to && !s->status; i++) {
		if (timed && mt_stopped(s))
			break;
		uint64_t k = i / m->per_dir;
		if (k != cur && full) {
			dlen = dir_path(m, t, k, dir, sizeof dir - 64);
			cur = k;
		} else if (k != cur) {
			mo_close(dfd);
			dfd = dir_open(m, t, k);
			cur = k;
			if (dfd < 0) {
				char what[48];
				snprintf(what, sizeof what, "directory %llu of", (unsigned long long)k);
				fail(s, (int)-dfd, "cannot open", what);
				fail(s, (int)-dfd, "cannot open the tree", t->root);
				break;
			}
		}
		file_op(s, dfd, full ? dir : NULL, dlen, t, k, g, i);
		if (full && s->op == IOB_META_STAT)
			s->walk1 = k + 1;
	}
	mo_close(dfd);
}

/* After a stat or dirstat phase with path_walk = full (untimed): the tree
 * the stats walked is the tree the run holds, with no link in it.  Its root
 * by its name in the job's directory is the root held (same identity, not a
 * link), and every directory below it up to the last walked is a directory,
 * not a link, stat'ed from its parent opened from the held root one
 * component at a time.  A stat by the whole path follows a
 * link in the middle as mdtest's does (docs/security.md: nothing is opened,
 * made or removed through it); a link found here fails the phase, naming
 * it, so its figure is never silently about another tree. */
static void full_check(struct mstream *s)
{
	struct mjob *m = s->m;
	const struct tree *t = s->walkt;
	char path[IOB_PATH_MAX + IOB_NAME_MAX + 64], name[IOB_NAME_MAX + 64];
	uint64_t dev, ino, dev2, ino2, cur = UINT64_MAX;
	mo_h fd = MO_NONE;
	int rc = mo_dir_open(m->dirfd, t->root, &fd);
	if (rc == 0) {
		rc = mo_identity(fd, &dev, &ino);
		if (rc == 0 && (rc = mo_identity(t->rootfd, &dev2, &ino2)) == 0 && (dev != dev2 || ino != ino2))
			rc = -ESTALE; /* another directory by the root's name */
		mo_close(fd);
		fd = MO_NONE;
	}
	if (rc != 0)
		fail(s, -rc, "the tree checked after the phase:", t->root);
	/* every directory up to the last walked, parents first: each walked
	 * one's ancestors too, and a link is named where it is (ELOOP) */
	for (uint64_t k = 1; k < s->walk1 && !s->status; k++) {
		child_name(m, k, name, sizeof name);
		if ((rc = parent_held(m, t, k, &cur, &fd)) == 0)
			rc = mo_stat_dir(fd, name);
		if (rc != 0) {
			dir_path(m, t, k, path, sizeof path);
			fail(s, -rc, "the tree checked after the phase:", path);
		}
	}
	mo_close(fd);
}

/* path_walk = full, stat and dirstat, before the phase's start (untimed):
 * the file system the stats must land on (s->sdev), as this node sees it:
 * the held root's for dirstat, for stat that of the first file stat'ed
 * (f.G.0, in the root), opened the held way, since files need not be on
 * the device their directories are on (overlayfs with its layers on other
 * file systems gives a file its layer's st_dev, a directory its own). */
static void stat_reference(struct mstream *s)
{
	const struct tree *t = s->other ? s->other : s->own;
	char name[64];
	uint64_t ino;
	mo_h fd;
	if (s->status)
		return;
	int rc = mo_identity(t->rootfd, &s->sdev, &ino);
	if (rc == 0 && s->op == IOB_META_STAT && s->count > 0) {
		file_name(name, s->other ? s->other_g : s->g, 0);
		if ((rc = mo_file_open(t->rootfd, name, MO_READ, &fd)) == 0) {
			rc = mo_identity(fd, &s->sdev, &ino);
			mo_file_close(fd);
		}
	}
	if (rc != 0)
		fail(s, -rc, "cannot tell the file system of", t->root);
}

void mt_stream_main(void *arg)
{
	struct mstream *s = arg;
	struct mjob *m = s->m;
	/* the file phases open and close everything on this thread, so it can
	 * have a descriptor table and credentials of its own, as mdtest's
	 * ranks (processes) do (docs/metadata.md, "Threads against processes");
	 * mkdir opens the tree's root for the run, so not there */
	if (s->op >= IOB_META_CREATE && s->op <= IOB_META_REMOVE)
		mo_thread_private();
	if (m->job->path_walk && (s->op == IOB_META_STAT || s->op == IOB_META_DIRSTAT))
		stat_reference(s);
	iob_barrier_wait(m->go);
	s->t0 = iob_now_ns();
	switch (s->op) {
	case IOB_META_MKDIR:
		if (s->own->owner && (m->job->dir_per_stream || s->g == 0))
			while (s->own->dirs < m->ndirs && !s->status && !mt_stopped(s))
				mt_make_dir(m, s->own, s);
		break;
	case IOB_META_DIRSTAT: {
		/* a tree per stream: all of its directories (stat_other: the other
		 * stream's tree); one shared tree: its directories split in order
		 * over the streams of every rank (stat_other: the part of stream
		 * other_g), so the tree's directories are stat'ed once in all */
		const struct tree *t = s->other ? s->other : s->own;
		uint64_t q = s->other ? s->other_g : s->g;
		if (m->job->dir_per_stream)
			stat_dirs(s, t, 0, m->ndirs);
		else
			stat_dirs(s, t, m->ndirs * q / m->G, m->ndirs * (q + 1) / m->G);
		break;
	}
	case IOB_META_RMDIR:
		if (s->own->owner && (m->job->dir_per_stream || s->g == 0))
			while (s->own->dirs > 0 && !s->status && !mt_stopped(s))
				mt_remove_dir(m, s->own, s);
		break;
	case IOB_META_CREATE:
		mt_file_range(s, s->own, s->g, s->created, s->count, 1);
		break;
	case IOB_META_REMOVE:
		mt_file_range(s, s->own, s->g, s->removed, s->created, 1);
		break;
	default:
		if (s->other)
			mt_file_range(s, s->other, s->other_g, 0, s->count, 1);
		else
			mt_file_range(s, s->own, s->g, 0, s->count, 1);
	}
	s->t1 = iob_now_ns();
	stream_dir_close(s);
	if (m->job->path_walk && (s->op == IOB_META_STAT || s->op == IOB_META_DIRSTAT) && !s->status && s->walkt)
		full_check(s);
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
}

/* What rank 0 says back. */
