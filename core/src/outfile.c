/*
 * outfile.c - the one checked open of every file a run writes that is not a
 * data file (iobench/outfile.h).
 */
#include "iobench/outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/path.h"
#include "iobench/units.h"

/* The paths the run reads or writes (no outfile may be one of them), and the
 * outfiles open now.  A run opens its outfiles from one thread at a time
 * (the run's open, then its outputs' calls, which the runner serialises). */
static char **guarded;
static size_t nguarded, capguarded;
static struct iob_outfile *open_list;

int iob_outfiles_guard(const char *path)
{
	if (!path || !path[0])
		return 0;
	if (nguarded == capguarded) {
		size_t cap = capguarded ? capguarded * 2 : 16;
		char **v = realloc(guarded, cap * sizeof *v);
		if (!v)
			return -ENOMEM;
		guarded = v;
		capguarded = cap;
	}
	if (!(guarded[nguarded] = strdup(path)))
		return -ENOMEM;
	nguarded++;
	return 0;
}

void iob_outfiles_guard_clear(void)
{
	for (size_t i = 0; i < nguarded; i++)
		free(guarded[i]);
	free(guarded);
	guarded = NULL;
	nguarded = capguarded = 0;
}

static void strip_slashes(char *dir)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		dir[--n] = '\0';
}

/* A symlinked directory is followed when the link is owned by root or by
 * the user running iobench (like a job's directory), so not planted there
 * by someone else. */
static int dir_follow(const char *what, const char *path, const char *dir, char *err, size_t errlen)
{
	struct iob_identity id;
	if (iob_stat_at(IOB_AT_CWD, dir, &id) != 0 || id.kind != IOB_PATH_SYMLINK)
		return 1;
	if (id.uid == 0 || id.uid == iob_euid())
		return 1;
	snprintf(err, errlen,
		 "%s %s: its directory %s is a symbolic link owned by another user (uid %u); refusing to follow "
		 "it (give the directory it points to)",
		 what, IOB_Q(path), IOB_Q(dir), (unsigned)id.uid);
	return 0;
}

static const char *kind_text(enum iob_path_kind k)
{
	switch (k) {
	case IOB_PATH_BLOCKDEV:
		return "a block device";
	case IOB_PATH_CHARDEV:
		return "a character device";
	case IOB_PATH_DIRECTORY:
		return "a directory";
	case IOB_PATH_SYMLINK:
		return "a symbolic link";
	default:
		return "a FIFO or socket";
	}
}

/* What may be written to: a regular file, a character device when allowed. */
static int kind_refused(const char *what, const char *path, enum iob_path_kind k, unsigned flags, char *err,
			size_t errlen)
{
	if (k == IOB_PATH_REGULAR || (k == IOB_PATH_CHARDEV && (flags & IOB_OUT_CHARDEV)))
		return 0;
	if (k == IOB_PATH_SYMLINK) {
		snprintf(err, errlen,
			 "%s %s is a symbolic link; refusing to follow it (a link planted in a shared directory "
			 "could aim it at another file): give the file it points to",
			 what, IOB_Q(path));
		return -ELOOP;
	}
	snprintf(err, errlen, "%s %s is %s, not a regular file; refusing to write to it%s", what, IOB_Q(path),
		 kind_text(k),
		 k == IOB_PATH_OTHER ? " (a FIFO without a reader would stop the run forever)"
		 : k == IOB_PATH_BLOCKDEV ? " (it would overwrite the disk)"
		 : k == IOB_PATH_CHARDEV ? " (set allow_devices = true for the job to allow it)"
					 : "");
	return k == IOB_PATH_DIRECTORY ? -EISDIR : -EPERM;
}

int iob_outfile_check(const char *what, const char *path, unsigned flags, char *err, size_t errlen)
{
	char dir[4096];
	if (!path[0]) {
		snprintf(err, errlen, "%s: empty file name", what);
		return -EINVAL;
	}
	size_t base = iob_path_dir(path, dir, sizeof dir);
	strip_slashes(dir);
	if (!path[base]) {
		snprintf(err, errlen, "%s %s: names a directory, not a file", what, IOB_Q(path));
		return -EISDIR;
	}
	if (iob_path_kind(dir, 1) != IOB_PATH_DIRECTORY) {
		snprintf(err, errlen, "%s %s: directory %s does not exist", what, IOB_Q(path), IOB_Q(dir));
		return -ENOENT;
	}
	if (!dir_follow(what, path, dir, err, errlen))
		return -ELOOP;
	enum iob_path_kind k = iob_path_kind(path, 0);
	if (k == IOB_PATH_MISSING) {
		if (iob_dir_writable(dir) != 0) {
			snprintf(err, errlen, "%s %s: cannot be created: directory %s is not writable", what, IOB_Q(path),
				 IOB_Q(dir));
			return -EACCES;
		}
		return 0;
	}
	int rc = kind_refused(what, path, k, flags, err, errlen);
	if (rc)
		return rc;
	if (iob_path_access(path, 1) != 0) {
		snprintf(err, errlen, "%s %s: exists and is not writable", what, IOB_Q(path));
		return -EACCES;
	}
	return 0;
}

/* The file just opened must be none of the run's own files. */
static int same_as_run_file(const struct iob_outfile *of, char *err, size_t errlen)
{
	if (of->id.kind == IOB_PATH_CHARDEV)
		return 0; /* /dev/null keeps nothing */
	for (size_t i = 0; i < nguarded; i++) {
		uint64_t dev, ino;
		enum iob_path_kind k;
		if (iob_file_identity(guarded[i], &dev, &ino, &k) == 0 && dev == of->id.dev && ino == of->id.ino) {
			snprintf(err, errlen, "%s %s is %s, which this run reads or writes: choose another file", of->what,
				 IOB_Q(of->path), IOB_Q(guarded[i]));
			return -EINVAL;
		}
	}
	for (const struct iob_outfile *o = open_list; o; o = o->next)
		if (o != of && o->id.dev == of->id.dev && o->id.ino == of->id.ino) {
			snprintf(err, errlen, "%s %s is the file of %s %s too: give each its own file", of->what,
				 IOB_Q(of->path), o->what, IOB_Q(o->path));
			return -EINVAL;
		}
	return 0;
}

static void list_remove(struct iob_outfile *of)
{
	for (struct iob_outfile **p = &open_list; *p; p = &(*p)->next)
		if (*p == of) {
			*p = of->next;
			break;
		}
	of->next = NULL;
}

static void release(struct iob_outfile *of)
{
	list_remove(of);
	if (of->dirfd >= 0)
		iob_fd_close(of->dirfd);
	free(of->name);
	free(of->path);
	of->dirfd = -1;
	of->name = of->path = NULL;
	of->f = NULL;
}

void iob_outfile_unmake(struct iob_outfile *of)
{
	struct iob_identity now;
	if (!of->made || of->committed || !of->name || of->dirfd < 0)
		return;
	/* only what this run created, as it created it */
	if (iob_stat_at(of->dirfd, of->name, &now) == 0 && now.kind == IOB_PATH_REGULAR && now.dev == of->id.dev &&
	    now.ino == of->id.ino)
		iob_remove_at(of->dirfd, of->name, 0);
	of->made = 0;
}

int iob_outfile_open(struct iob_outfile *of, const char *what, const char *path, unsigned flags, char *err,
		     size_t errlen)
{
	char dir[4096];
	memset(of, 0, sizeof *of);
	of->fd = of->dirfd = -1;
	of->flags = flags;
	snprintf(of->what, sizeof of->what, "%s", what);
	size_t base = iob_path_dir(path, dir, sizeof dir);
	strip_slashes(dir);
	of->path = strdup(path);
	of->name = strdup(path + base);
	if (!of->path || !of->name) {
		release(of);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (!of->name[0]) {
		snprintf(err, errlen, "%s %s: names a directory, not a file", what, IOB_Q(path));
		release(of);
		return -EISDIR;
	}
	if (!dir_follow(what, path, dir, err, errlen)) {
		release(of);
		return -ELOOP;
	}
	int rc = iob_dir_open_at(IOB_AT_CWD, dir, 1, NULL);
	if (rc < 0) {
		snprintf(err, errlen, "%s %s: cannot open its directory %s: %s", what, IOB_Q(path), IOB_Q(dir),
			 strerror(-rc));
		release(of);
		return rc;
	}
	of->dirfd = rc;
	/* refused without opening what is plainly not ours to write (a device
	 * is not even opened); the descriptor decides again below */
	struct iob_identity pre;
	if (iob_stat_at(of->dirfd, of->name, &pre) == 0 && (rc = kind_refused(what, path, pre.kind, flags, err, errlen))) {
		release(of);
		return rc;
	}
	rc = iob_out_open_at(of->dirfd, of->name, (flags & IOB_OUT_APPEND) != 0, &of->made, &of->id);
	if (rc < 0) {
		if (rc == -ELOOP)
			kind_refused(what, path, IOB_PATH_SYMLINK, flags, err, errlen);
		else if (rc == -ENXIO)
			kind_refused(what, path, IOB_PATH_OTHER, flags, err, errlen);
		else
			snprintf(err, errlen, "%s %s: cannot create it: %s", what, IOB_Q(path), strerror(-rc));
		release(of);
		return rc;
	}
	of->fd = rc;
	if ((rc = kind_refused(what, path, of->id.kind, flags, err, errlen)) == 0)
		rc = same_as_run_file(of, err, errlen);
	if (rc == 0 && !(of->f = iob_fd_stream(of->fd, (flags & IOB_OUT_APPEND) ? "a+" : "w"))) {
		rc = -(errno ? errno : ENOMEM);
		snprintf(err, errlen, "%s %s: %s", what, IOB_Q(path), strerror(-rc));
	}
	if (rc) {
		iob_outfile_unmake(of);
		if (of->f) {
			fclose(of->f);
		} else {
			FILE *tmp = iob_fd_stream(of->fd, "w"); /* only to close the descriptor; nothing is written */
			if (tmp)
				fclose(tmp);
		}
		release(of);
		return rc;
	}
	of->next = open_list;
	open_list = of;
	return 0;
}

int iob_outfile_commit(struct iob_outfile *of)
{
	if (!of->f)
		return 0;
	of->committed = 1;
	if ((of->flags & IOB_OUT_APPEND) || of->id.kind != IOB_PATH_REGULAR || of->made)
		return 0;
	return iob_fd_truncate(of->fd);
}

int iob_outfile_close(struct iob_outfile *of)
{
	int rc = 0;
	if (of->f) {
		errno = 0;
		if (fclose(of->f) != 0)
			rc = errno ? -errno : -EIO;
	}
	release(of);
	return rc;
}

int iob_outfile_side_path(const char *main, const char *tag, const char *ext, char *out, size_t outlen)
{
	size_t ml = strlen(main), el = strlen(ext);
	if (!tag[0] || tag[0] == '.')
		return -EINVAL;
	for (const char *c = tag; *c; c++)
		if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '_' ||
		      *c == '-' || *c == '.'))
			return -EINVAL;
	if (el && ml > el && strcmp(main + ml - el, ext) == 0)
		ml -= el;
	int n = snprintf(out, outlen, "%.*s.%s%s", (int)ml, main, tag, ext);
	return n < 0 || (size_t)n >= outlen ? -ENAMETOOLONG : 0;
}

int iob_outfile_is_side_name(const char *main, const char *ext, const char *name)
{
	size_t ml = strlen(main), el = strlen(ext), nl = strlen(name);
	if (el && ml > el && strcmp(main + ml - el, ext) == 0)
		ml -= el;
	/* "<stem>." + at least one byte + ext */
	return nl > ml + 1 + el && strncmp(name, main, ml) == 0 && name[ml] == '.' && name[ml + 1] != '.' &&
	       strcmp(name + nl - el, ext) == 0;
}
