/*
 * meta_ops.c - a files job's stream at work on its tree (meta.c has the map
 * and the safety rules: every name reached from a held descriptor, nothing
 * followed): directories made and removed in order, the file operations,
 * a stream's thread.
 */
#include "meta_int.h"

#if defined(__linux__)
#include <linux/openat2.h>
#include <sys/syscall.h>
#endif

/* path_walk = full: path (relative) opened from top by the kernel in one
 * walk that follows no link, neither in the middle nor at the end, and
 * leaves nothing below top (openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS,
 * which implies no magic links).  fd or -errno; -ENOSYS where there is no
 * openat2 (iob_meta_check refuses full there first). */
int mt_openat2(int top, const char *path, int flags, unsigned mode)
{
#if defined(__linux__) && defined(SYS_openat2)
	struct open_how how;
	memset(&how, 0, sizeof how);
	how.flags = (uint64_t)(unsigned)(flags | O_CLOEXEC);
	how.mode = (flags & O_CREAT) ? mode : 0;
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS;
	long fd = syscall(SYS_openat2, top, path, &how, sizeof how);
	return fd < 0 ? -errno : (int)fd;
#else
	(void)top, (void)path, (void)flags, (void)mode;
	return -ENOSYS;
#endif
}

/* path_walk = full: the path of directory k of tree t from the job's
 * directory ("ROOT/dA/dB"); its length */
static size_t dir_path(const struct mjob *m, const struct tree *t, uint64_t k, char *out, size_t len)
{
	uint32_t chain[64];
	unsigned n = 0;
	uint64_t B = m->job->tree_branch;
	while (k > 0 && n < 64) {
		chain[n++] = (uint32_t)((k - 1) % B);
		k = (k - 1) / B;
	}
	size_t o = (size_t)snprintf(out, len, "%s", t->root);
	while (n-- > 0 && o < len)
		o += (size_t)snprintf(out + o, len - o, "/d%u", chain[n]);
	return o < len ? o : len - 1;
}

/* The parent of directory k (k > 0) as an O_PATH descriptor, its whole path
 * resolved from the job's directory (full), or -errno */
static int parent_full(const struct mjob *m, const struct tree *t, uint64_t k)
{
	char path[IOB_PATH_MAX + IOB_NAME_MAX + 64];
	dir_path(m, t, (k - 1) / m->job->tree_branch, path, sizeof path);
	return mt_openat2(m->dirfd, path, O_PATH | O_DIRECTORY, 0);
}

/* iob_run_fail, or kept (the first) in a group */
void mt_fail(struct mjob *m, const char *fmt, ...)
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
void mt_note(struct mjob *m, const char *fmt, ...)
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

int mt_open_root(struct mjob *m, struct tree *t)
{
	if (t->rootfd >= 0)
		return 0;
	int fd = openat(m->dirfd, t->root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	t->rootfd = fd;
	return 0;
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
		int pfd = s && m->job->path_walk ? parent_full(m, t, k) : dir_open(m, t, (k - 1) / m->job->tree_branch);
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
int mt_remove_dir(struct mjob *m, struct tree *t, struct mstream *s)
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
		int pfd = s && m->job->path_walk ? parent_full(m, t, k) : dir_open(m, t, (k - 1) / m->job->tree_branch);
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

/* Do item i of the phase on file f.<g>.<i> of tree t: held, from its
 * directory open on dfd; full (dir != NULL), by its whole path dir/f.<g>.<i>
 * from the job's directory, resolved by the kernel at every operation as
 * mdtest resolves its path (mt_openat2: no link followed anywhere on it,
 * nothing outside the job's directory).  Linux has no stat or unlink that
 * refuses links in the middle of a path, so stat opens the file O_PATH by
 * the path and fstats that, and remove opens the directory O_PATH by its
 * path and unlinks the name in it: the kernel resolves the same names. */
static int file_op(struct mstream *s, int dfd, char *dir, size_t dlen, uint64_t g, uint64_t i)
{
	struct mjob *m = s->m;
	const struct iob_job *job = m->job;
	char held[64];
	char *name = held, *path = held;
	if (dir) { /* dfd: the stream's own descriptor of the job's directory */
		dir[dlen] = '/';
		name = dir + dlen + 1;
		path = dir;
	}
	file_name(name, g, i);
	char *buf = m->buf + (size_t)(s - m->s) * (job->file_bytes ? job->file_bytes : 1);
	uint64_t a = iob_now_ns();
	int rc = 0, fd;
	uint64_t moved = 0;
	struct stat st;
	switch (s->op) {
	case IOB_META_CREATE:
	case IOB_META_WRITE: {
		int fl = s->op == IOB_META_CREATE ? O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW : O_WRONLY | O_NOFOLLOW;
		fd = dir ? mt_openat2(dfd, path, fl, 0600) : openat(dfd, name, fl | O_CLOEXEC, 0600);
		if (fd < 0) {
			rc = dir ? fd : -errno;
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
	}
	case IOB_META_STAT:
		if (dir) {
			fd = mt_openat2(dfd, path, O_PATH | O_NOFOLLOW, 0);
			rc = fd < 0 ? fd : fstat(fd, &st) == 0 ? 0 : -errno;
			if (fd >= 0)
				close(fd);
		} else {
			rc = fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : -errno;
		}
		if (rc == 0 && !S_ISREG(st.st_mode))
			rc = -EINVAL;
		break;
	case IOB_META_OPEN:
	case IOB_META_READ:
		fd = dir ? mt_openat2(dfd, path, O_RDONLY | O_NOFOLLOW, 0) : openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			rc = dir ? fd : -errno;
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
		if (dir) {
			dir[dlen] = '\0';
			int pfd = mt_openat2(dfd, dir, O_PATH | O_DIRECTORY, 0);
			rc = pfd < 0 ? pfd : unlinkat(pfd, name, 0) == 0 ? 0 : -errno;
			if (pfd >= 0)
				close(pfd);
			dir[dlen] = '/';
		} else {
			rc = unlinkat(dfd, name, 0) == 0 ? 0 : -errno;
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
 * each directory's descriptor; full (timed phases with path_walk = full), by
 * the whole path every time. */
void mt_file_range(struct mstream *s, struct tree *t, uint64_t g, uint64_t from, uint64_t to, int timed)
{
	struct mjob *m = s->m;
	int full = timed && m->job->path_walk;
	int dfd = -1;
	/* full: the job's directory opened again for this stream ("." of it, no
	 * name that could be a link), so that the streams' walks do not all
	 * count references on one open file (threads share one table, so the
	 * kernel does on every call) */
	if (full && (dfd = openat(m->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		fail(s, errno, "cannot open", "the job's directory");
		return;
	}
	char dir[IOB_PATH_MAX + IOB_NAME_MAX + 64];
	size_t dlen = 0;
	uint64_t cur = UINT64_MAX;
	for (uint64_t i = from; i < to && !s->status; i++) {
		if (timed && mt_stopped(s))
			break;
		uint64_t k = i / m->per_dir;
		if (k != cur && full) {
			dlen = dir_path(m, t, k, dir, sizeof dir - 64);
			cur = k;
		} else if (k != cur) {
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
		file_op(s, dfd, full ? dir : NULL, dlen, g, i);
	}
	if (dfd >= 0)
		close(dfd);
}

void mt_stream_main(void *arg)
{
	struct mstream *s = arg;
	struct mjob *m = s->m;
	iob_barrier_wait(m->go);
	s->t0 = iob_now_ns();
	switch (s->op) {
	case IOB_META_MKDIR:
		if (s->own->owner && (m->job->dir_per_stream || s->g == 0))
			while (s->own->dirs < m->ndirs && !s->status && !mt_stopped(s))
				mt_make_dir(m, s->own, s);
		break;
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
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
}

/* What rank 0 says back. */
