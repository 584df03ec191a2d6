/*
 * meta_os_posix.c - meta_os.h on POSIX: every name reached from a held
 * descriptor with openat(..., O_NOFOLLOW), made and removed with mkdirat,
 * openat(O_CREAT | O_EXCL), unlinkat.
 */
#include "meta_os.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#if defined(__linux__)
#include <linux/openat2.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

int mo_top_open(const char *dir, int follow, mo_h *out)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
	if (fd < 0)
		return -errno;
	*out = fd;
	return 0;
}

int mo_dir_open(mo_h at, const char *name, mo_h *out)
{
	int fd = openat((int)at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*out = fd;
	return 0;
}

int mo_dup(mo_h h, mo_h *out)
{
	int fd = dup((int)h);
	if (fd < 0)
		return -errno;
	*out = fd;
	return 0;
}

void mo_close(mo_h h)
{
	if (h >= 0)
		close((int)h);
}

int mo_identity(mo_h h, uint64_t *dev, uint64_t *ino)
{
	struct stat st;
	if (fstat((int)h, &st) != 0)
		return -errno;
	*dev = (uint64_t)st.st_dev;
	*ino = (uint64_t)st.st_ino;
	return 0;
}

int mo_mkdir(mo_h at, const char *name)
{
	return mkdirat((int)at, name, 0700) == 0 ? 0 : -errno;
}

int mo_rmdir(mo_h at, const char *name)
{
	return unlinkat((int)at, name, AT_REMOVEDIR) == 0 ? 0 : -errno;
}

int mo_rmdir_same(mo_h at, const char *name, uint64_t dev, uint64_t ino)
{
	struct stat st;
	if (fstatat((int)at, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return -errno;
	if ((uint64_t)st.st_dev != dev || (uint64_t)st.st_ino != ino || !S_ISDIR(st.st_mode))
		return -ESTALE; /* replaced during the run: kept */
	return mo_rmdir(at, name);
}

int mo_file_open(mo_h at, const char *name, enum mo_how how, mo_h *out)
{
	int flags = how == MO_CREATE  ? O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC
		    : how == MO_WRITE ? O_WRONLY | O_NOFOLLOW | O_CLOEXEC
				      : O_RDONLY | O_NOFOLLOW | O_CLOEXEC;
	int fd = openat((int)at, name, flags, 0600);
	if (fd < 0)
		return -errno;
	*out = fd;
	return 0;
}

long mo_write(mo_h f, const void *buf, size_t len)
{
	ssize_t w = write((int)f, buf, len);
	return w < 0 ? -errno : (long)w;
}

long mo_read(mo_h f, void *buf, size_t len)
{
	ssize_t r = read((int)f, buf, len);
	return r < 0 ? -errno : (long)r;
}

int mo_fsync(mo_h f)
{
	return fsync((int)f) == 0 ? 0 : -errno;
}

int mo_file_close(mo_h f)
{
	return close((int)f) == 0 ? 0 : -errno;
}

int mo_stat_file(mo_h at, const char *name)
{
	struct stat st;
	if (fstatat((int)at, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return -errno;
	return S_ISREG(st.st_mode) ? 0 : -EINVAL;
}

/* what st is for dirstat: 0, -ELOOP, -ENOTDIR */
static int dir_kind(const struct stat *st)
{
	return S_ISDIR(st->st_mode) ? 0 : S_ISLNK(st->st_mode) ? -ELOOP : -ENOTDIR;
}

int mo_stat_dir(mo_h at, const char *name)
{
	struct stat st;
	if (fstatat((int)at, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return -errno;
	return dir_kind(&st);
}

int mo_unlink(mo_h at, const char *name)
{
	return unlinkat((int)at, name, 0) == 0 ? 0 : -errno;
}

/* openat2 from top, no link anywhere, nothing outside top; fd or -errno
 * (-ENOSYS: no openat2) */
static int beneath(mo_h top, const char *path, int flags, unsigned mode)
{
#if defined(__linux__) && defined(SYS_openat2)
	struct open_how how;
	memset(&how, 0, sizeof how);
	how.flags = (uint64_t)(unsigned)(flags | O_CLOEXEC);
	how.mode = (flags & O_CREAT) ? mode : 0;
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS;
	long fd = syscall(SYS_openat2, (int)top, path, &how, sizeof how);
	return fd < 0 ? -errno : (int)fd;
#else
	(void)top, (void)path, (void)flags, (void)mode;
	return -ENOSYS;
#endif
}

void mo_thread_private(void)
{
#if defined(__linux__)
	/* threads share one struct cred: each open takes a reference on it
	 * (the file's f_cred) and each close drops it, from both cores at once;
	 * PR_SET_KEEPCAPS commits a copy (prepare_creds, commit_creds) for this
	 * thread alone.  Refused (keepcaps locked: EPERM): shared, as before. */
	int keep = prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0);
	if (keep >= 0)
		(void)prctl(PR_SET_KEEPCAPS, (unsigned long)keep, 0, 0, 0);
#if !defined(__SANITIZE_THREAD__)
	/* ThreadSanitizer keeps one descriptor table a process: the same
	 * number in two threads' own tables would be a race to it */
	(void)unshare(CLONE_FILES);
#endif
#endif
}

int mo_full_probe(void)
{
	int fd = beneath(AT_FDCWD, ".", O_PATH | O_DIRECTORY, 0);
	if (fd >= 0)
		close(fd);
	return fd == -ENOSYS ? -ENOSYS : 0;
}

int mo_full_top(mo_h top, mo_h *out)
{
	int fd = openat((int)top, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*out = fd;
	return 0;
}

int mo_full_dir(mo_h top, const char *path, mo_h *out)
{
	int fd = beneath(top, path, O_PATH | O_DIRECTORY, 0);
	if (fd < 0)
		return fd;
	*out = fd;
	return 0;
}

int mo_full_file_open(mo_h top, const char *path, enum mo_how how, mo_h *out)
{
	int fl = how == MO_CREATE ? O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW
		 : how == MO_WRITE ? O_WRONLY | O_NOFOLLOW
				   : O_RDONLY | O_NOFOLLOW;
	int fd = beneath(top, path, fl, 0600);
	if (fd < 0)
		return fd;
	*out = fd;
	return 0;
}

/* path_walk = full's stat: one fstatat of the whole path from top, the last
 * component not followed, the ones in the middle followed as mdtest's stat
 * follows them (Linux has no stat that refuses them): nothing is opened, and
 * a result off the job's file system (dev) is refused here; the caller
 * checks the tree after the phase (docs/security.md) */
static int stat_beneath(mo_h top, const char *path, uint64_t dev, struct stat *st)
{
	if (fstatat((int)top, path, st, AT_SYMLINK_NOFOLLOW) != 0)
		return -errno;
	return (uint64_t)st->st_dev == dev ? 0 : -EXDEV;
}

int mo_full_stat_file(mo_h top, const char *path, uint64_t dev)
{
	struct stat st;
	int rc = stat_beneath(top, path, dev, &st);
	return rc == 0 && !S_ISREG(st.st_mode) ? -EINVAL : rc;
}

int mo_full_stat_dir(mo_h top, const char *path, uint64_t dev)
{
	struct stat st;
	int rc = stat_beneath(top, path, dev, &st);
	return rc == 0 ? dir_kind(&st) : rc;
}

int mo_path_dir(const char *dir)
{
	struct stat st;
	if (stat(dir, &st) != 0)
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : 1;
}

int mo_path_writable(const char *dir)
{
	return access(dir, W_OK | X_OK) == 0 ? 0 : -errno;
}

long mo_name_max(const char *dir)
{
	long n = pathconf(dir, _PC_NAME_MAX);
	return n > 0 ? n : 255;
}

int mo_path_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

int mo_room(const char *dir, struct mo_room *r)
{
	struct statvfs vf;
	if (statvfs(dir, &vf) != 0)
		return -errno;
	r->frag = vf.f_frsize ? vf.f_frsize : 4096;
	r->blocks_avail = (uint64_t)vf.f_bavail;
	r->files_total = (uint64_t)vf.f_files;
	r->files_avail = (uint64_t)vf.f_favail;
	r->item_bytes = 0;
	return 0;
}
