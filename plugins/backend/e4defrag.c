/*
 * e4defrag.c - a backend whose writes move a file's blocks, for fio's
 * ioengine=e4defrag (docs/fio.md): every write_at(buf, len, off) hands the
 * blocks covering [off, off + len) to ext4's EXT4_IOC_MOVE_EXT ioctl, which
 * copies that part of the file into blocks freshly allocated to a donor file
 * and swaps the two files' blocks, so the range ends up in the donor's
 * (contiguous) blocks and the donor holds the old ones.  The data never
 * changes; its place on disk does.
 *
 *  - Options: donorname=NAME (required): the donor file, in the directory of
 *    the job's file; inplace=0|1 (default 0): 0 allocates the donor's blocks
 *    for the whole file when the file is opened, 1 allocates them for each
 *    write's range just before it and frees them (truncates the donor to 0)
 *    after it.
 *  - ext4 only (the ioctl is ext4's): the check (IOB_CTL_CHECK_TARGET,
 *    before anything is created) refuses another file system, naming it.
 *  - The donor: made here (an unnamed O_TMPFILE, marked with the extended
 *    attribute user.iobench = "e4defrag donor", then linked in under its
 *    name, so no one sees it unmarked); an existing one is used only when it
 *    is ours: a regular file (not a link) with one name, owned by the
 *    effective user, carrying the mark.  Anything else is refused at check
 *    time.  It is emptied at open (truncated to 0, before any I/O of the
 *    streams sharing it), so its blocks are fresh ones: a donor kept from an
 *    earlier run holds that run's file's old blocks (fio reuses them, and so
 *    fragments the file again).  It is kept after the run, as fio keeps its
 *    donor file: it then holds the blocks the file had before (a copy of its
 *    data).
 *  - A write returns the bytes moved: the ioctl's moved_len in file-system
 *    blocks, at most len (a short count when the kernel moved part of the
 *    range, as at the file's end); -errno of the ioctl, or -ENODATA when it
 *    moved nothing (the range is past the file's end).  No byte passes
 *    through read(2) or write(2): IOB_CAP_UNCOUNTED.
 *  - The file's cached pages are written back and dropped at open, and a
 *    range the kernel refuses with EBUSY once more before it is tried again
 *    (e4_drop: the move cannot take pages cached in large folios).
 *  - The file is opened read-write (the ioctl needs both) and never
 *    truncated: IOB_OPEN_TRUNC is refused (at check time, and at open),
 *    since an empty file has no blocks to move.  sync is fsync(2) of the file; info from fstat.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fallocate, O_TMPFILE */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "iobench/plugin.h"
#include "bopts.h"
#include "fdio.h"

#define E4_NAME "e4defrag"
#define E4_KNOWN "donorname, inplace"
#define E4_MARK "user.iobench"
#define E4_MARK_VALUE "e4defrag donor"
#define E4_EXT4_MAGIC 0xEF53 /* ext2, ext3 and ext4 share it */

/* The kernel's argument of EXT4_IOC_MOVE_EXT (include/uapi/linux/ext4.h in
 * newer kernels): offsets and lengths in file-system blocks. */
struct e4_move {
	uint32_t reserved; /* 0 */
	uint32_t donor_fd;
	uint64_t orig_start;
	uint64_t donor_start;
	uint64_t len;
	uint64_t moved_len; /* out */
};
#define E4_IOC_MOVE_EXT _IOWR('f', 15, struct e4_move)

struct e4_opts {
	char donor[256];
	int inplace;
};

struct e4_file {
	int fd, donor_fd;
	uint64_t bsz; /* the file system's block size */
	int inplace;
};

static const struct iob_host *e4_host;

static const struct iob_option_decl e4_options[] = {
    {.name = "donorname", .type = IOB_OPT_NAME, .def = "(required)",
     .help = "the donor file, beside the file: made and marked if missing, kept after the run (as fio keeps it)"},
    {.name = "inplace", .type = IOB_OPT_BOOL, .def = "0",
     .help = "0: the donor's blocks allocated for the whole file at open; 1: for each write's range, freed after it"},
};

static int e4_option(void *ctx, const char *key, const char *val)
{
	struct e4_opts scratch, *o = ctx ? ctx : &scratch;
	if (strcmp(key, "donorname") == 0) {
		size_t n = strlen(val);
		if (!n || n >= sizeof o->donor || strchr(val, '/') || strcmp(val, ".") == 0 || strcmp(val, "..") == 0) {
			e4_host->log(IOB_LOG_ERROR, E4_NAME,
				     "backend option donorname='%s' is not a file name in the job's directory", val);
			return -EINVAL;
		}
		memcpy(o->donor, val, n + 1);
		return 0;
	}
	if (strcmp(key, "inplace") == 0)
		return bopts_bool(e4_host, E4_NAME, key, val, &o->inplace);
	return bopts_unknown(e4_host, E4_NAME, key, E4_KNOWN);
}

/* The options of text into *o; a missing donorname is refused (fio's engine
 * refuses to start without one). */
static int e4_parse(const char *text, struct e4_opts *o)
{
	memset(o, 0, sizeof *o);
	int rc = bopts_each(text, e4_host, E4_NAME, e4_option, o);
	if (rc == 0 && !o->donor[0]) {
		e4_host->log(IOB_LOG_ERROR, E4_NAME, "needs backend option donorname=NAME (the donor file, beside the file)");
		rc = -EINVAL;
	}
	return rc;
}

/* The name of the file system holding device dev (its type in
 * /proc/self/mountinfo), else "a file system of type 0x<magic>". */
static void e4_fs_name(dev_t dev, long magic, char *out, size_t len)
{
	FILE *mi = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	snprintf(out, len, "a file system of type 0x%lx", magic);
	while (mi && fgets(line, sizeof line, mi)) {
		unsigned maj, min;
		const char *dash = strstr(line, " - ");
		char type[64];
		if (sscanf(line, "%*u %*u %u:%u", &maj, &min) == 2 && maj == major(dev) && min == minor(dev) && dash &&
		    sscanf(dash + 3, "%63s", type) == 1) {
			snprintf(out, len, "%s", type);
			break;
		}
	}
	if (mi)
		fclose(mi);
}

/* 0 when fd (or path, when fd < 0) is on ext4; else -EOPNOTSUPP, logged
 * naming the file system. */
static int e4_on_ext4(int fd, const char *path)
{
	struct statfs sf;
	struct stat st;
	char name[96];
	if (fd >= 0 ? fstatfs(fd, &sf) != 0 || fstat(fd, &st) != 0 : statfs(path, &sf) != 0 || stat(path, &st) != 0) {
		int rc = -errno;
		e4_host->log(IOB_LOG_ERROR, E4_NAME, "%s: %s", path, strerror(-rc));
		return rc;
	}
	e4_fs_name(st.st_dev, (long)sf.f_type, name, sizeof name);
	if ((unsigned long)sf.f_type == E4_EXT4_MAGIC && (strcmp(name, "ext4") == 0 || strncmp(name, "a file", 6) == 0))
		return 0;
	e4_host->log(IOB_LOG_ERROR, E4_NAME, "%s is on %s, not ext4: EXT4_IOC_MOVE_EXT is ext4's", path, name);
	return -EOPNOTSUPP;
}

/* 0 when the donor st (and its mark, read by getmark) is ours, else
 * -EEXIST, logged naming path and why not. */
static int e4_ours(const char *path, const struct stat *st, ssize_t mark_len, const char *mark)
{
	const char *why = S_ISLNK(st->st_mode)			     ? "is a symbolic link"
			  : !S_ISREG(st->st_mode)		     ? "is not a regular file"
			  : st->st_nlink != 1			     ? "has more than one name (a hard link)"
			  : st->st_uid != geteuid()		     ? "belongs to another user"
			  : mark_len != (ssize_t)strlen(E4_MARK_VALUE) ||
				    memcmp(mark, E4_MARK_VALUE, (size_t)mark_len) != 0
				  ? "exists and is not a donor iobench made (no " E4_MARK " mark)"
				  : NULL;
	if (!why)
		return 0;
	e4_host->log(IOB_LOG_ERROR, E4_NAME, "donor file %s %s: remove it or give another donorname", path, why);
	return -EEXIST;
}

/* dir/name into out; -ENAMETOOLONG when it does not fit. */
static int e4_join(char *out, size_t len, const char *dir, size_t dirlen, const char *name)
{
	int n = snprintf(out, len, "%.*s/%s", (int)dirlen, dir, name);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* -EINVAL, logged: an emptied file has no blocks to move. */
static int e4_no_trunc(const char *path)
{
	e4_host->log(IOB_LOG_ERROR, E4_NAME, "%s: truncating it first would leave no blocks to move (truncate = false)",
		     path);
	return -EINVAL;
}

/* Before anything is made: options, file system, donor, truncate. */
static int e4_check_target(const struct iob_target_check *q)
{
	struct e4_opts o;
	char path[4352];
	int rc = e4_parse(q->options, &o);
	if (rc < 0)
		return rc;
	if (e4_on_ext4(-1, q->dir) < 0)
		return -EINVAL; /* not -EOPNOTSUPP: that is -ENOTSUP, "nothing to check", on Linux */
	if (q->struct_size >= offsetof(struct iob_target_check, open_flags) + sizeof q->open_flags &&
	    (q->open_flags & IOB_OPEN_TRUNC))
		return e4_no_trunc(q->path);
	const char *base = strrchr(q->path, '/');
	if (strcmp(base ? base + 1 : q->path, o.donor) == 0) {
		e4_host->log(IOB_LOG_ERROR, E4_NAME, "donorname=%s names the job's own file", o.donor);
		return -EINVAL;
	}
	if ((rc = e4_join(path, sizeof path, q->dir, strlen(q->dir), o.donor)) < 0)
		return rc;
	struct stat st;
	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : -errno;
	char mark[64];
	ssize_t n = S_ISREG(st.st_mode) ? lgetxattr(path, E4_MARK, mark, sizeof mark) : -1;
	return e4_ours(path, &st, n, mark);
}

/* The donor file dir/name for writing: ours if it exists, else made
 * (unnamed, marked, then linked in).  The descriptor or -errno, logged. */
static int e4_donor(const char *dir, size_t dirlen, const char *name)
{
	char path[4352], dpath[4352], proc[64];
	int rc;
	if ((rc = e4_join(path, sizeof path, dir, dirlen, name)) < 0 || (rc = e4_join(dpath, sizeof dpath, dir, dirlen, ".")) < 0)
		return rc;
	for (int tries = 0; tries < 2; tries++) {
		int fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			struct stat st;
			char mark[64];
			ssize_t n = fgetxattr(fd, E4_MARK, mark, sizeof mark);
			rc = fstat(fd, &st) != 0 ? -errno : e4_ours(path, &st, n, mark);
			if (rc == 0)
				return fd;
			close(fd);
			return rc;
		}
		if (errno != ENOENT) {
			rc = -errno;
			e4_host->log(IOB_LOG_ERROR, E4_NAME, "donor file %s: %s", path, strerror(-rc));
			return rc;
		}
		fd = open(dpath, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
		if (fd < 0 || fsetxattr(fd, E4_MARK, E4_MARK_VALUE, strlen(E4_MARK_VALUE), 0) != 0) {
			rc = -errno;
			e4_host->log(IOB_LOG_ERROR, E4_NAME, "donor file %s: cannot make it: %s", path, strerror(-rc));
			if (fd >= 0)
				close(fd);
			return rc;
		}
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
		if (linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0)
			return fd;
		rc = -errno;
		close(fd);
		if (rc != -EEXIST) { /* EEXIST: another stream made it first; use that one */
			e4_host->log(IOB_LOG_ERROR, E4_NAME, "donor file %s: cannot link it in: %s", path, strerror(-rc));
			return rc;
		}
	}
	return -EEXIST;
}

/* Write back and drop the file's cached pages of [off, off + len) (len 0:
 * to the end).  On Linux 6.18 (measured; docs/plugin-guide.md) a range
 * written in writes of more than a page and still cached fails the move
 * with EBUSY until its pages are dropped (ext4 caches it in large folios;
 * the move takes pages one to a folio); fio's invalidate at the job's start
 * drops them too.  0 or -errno. */
static int e4_drop(int fd, uint64_t off, uint64_t len)
{
	int rc;
	if (fdatasync(fd) != 0)
		return -errno;
	rc = posix_fadvise(fd, (off_t)off, (off_t)len, POSIX_FADV_DONTNEED);
	return -rc;
}

static int e4_open(const struct iob_open_args *args, void **handle)
{
	struct e4_opts o;
	struct stat st;
	int oflags, fd, rc = e4_parse(bopts_of(args), &o);
	if (rc < 0)
		return rc;
	if (args->path[0] == '-' && args->path[1] == '\0') {
		e4_host->log(IOB_LOG_ERROR, E4_NAME, "\"-\" (standard input) has no blocks to move");
		return -EINVAL;
	}
	if (args->flags & IOB_OPEN_TRUNC)
		return e4_no_trunc(args->path);
	if ((rc = fdio_open_flags(e4_host, E4_NAME, args, &oflags)) < 0)
		return rc;
	oflags = (oflags & ~O_ACCMODE) | O_RDWR; /* the ioctl needs the file open for reading and writing */
	if ((fd = fdio_open(args->path, oflags, args->mode)) < 0)
		return fd;
	struct e4_file *f = calloc(1, sizeof *f);
	const char *slash = strrchr(args->path, '/');
	if (!f)
		rc = -ENOMEM;
	else if ((rc = e4_on_ext4(fd, args->path)) == 0 && fstat(fd, &st) != 0)
		rc = -errno;
	if (f)
		f->donor_fd = -1;
	if (rc == 0)
		rc = e4_drop(fd, 0, 0);
	if (rc == 0) {
		f->fd = fd;
		f->bsz = st.st_blksize > 0 ? (uint64_t)st.st_blksize : 4096;
		f->inplace = o.inplace;
		f->donor_fd = slash ? e4_donor(args->path, (size_t)(slash - args->path), o.donor) : e4_donor(".", 1, o.donor);
		rc = f->donor_fd < 0 ? f->donor_fd : 0;
	}
	/* emptied, so that its blocks are fresh: a donor kept from an earlier run
	 * holds that run's file's old blocks; then, with inplace=0, the donor's
	 * blocks for the whole file (fio preallocates them at its start) */
	if (rc == 0 && ftruncate(f->donor_fd, 0) != 0)
		rc = -errno;
	if (rc == 0 && !o.inplace && st.st_size > 0)
		while ((rc = fallocate(f->donor_fd, 0, 0, st.st_size) < 0 ? -errno : 0) == -EINTR)
			;
	if (rc < 0) {
		if (f && f->donor_fd >= 0)
			close(f->donor_fd);
		free(f);
		close(fd);
		return rc;
	}
	*handle = f;
	return 0;
}

static int e4_close(void *handle)
{
	struct e4_file *f = handle;
	int rc = close(f->fd) < 0 ? -errno : 0; /* not retried on EINTR: on Linux the descriptor is gone */
	close(f->donor_fd);                    /* the donor stays, as fio's does */
	free(f);
	return rc;
}

static int64_t e4_write_at(void *handle, const void *buf, size_t len, uint64_t off)
{
	struct e4_file *f = handle;
	(void)buf;
	if (off > (uint64_t)INT64_MAX || len > (size_t)INT64_MAX - off)
		return -EINVAL;
	if (len == 0)
		return 0;
	int err = 0;
	if (f->inplace)
		while ((err = fallocate(f->donor_fd, 0, (off_t)off, (off_t)len) < 0 ? -errno : 0) == -EINTR)
			;
	/* the blocks covering the range, moved while the kernel makes progress */
	uint64_t first = off / f->bsz, end = (off + len + f->bsz - 1) / f->bsz, moved = 0;
	int dropped = 0;
	while (err == 0 && first + moved < end) {
		struct e4_move me = {.donor_fd = (uint32_t)f->donor_fd, .orig_start = first + moved,
				     .donor_start = first + moved, .len = end - first - moved};
		if (ioctl(f->fd, E4_IOC_MOVE_EXT, &me) < 0) {
			if (errno == EBUSY && !dropped++) /* pages cached in large folios since: drop them, once */
				err = e4_drop(f->fd, (first + moved) * f->bsz, (end - first - moved) * f->bsz);
			else if (errno != EINTR)
				err = -errno;
			continue;
		}
		if (!me.moved_len)
			break;
		moved += me.moved_len;
	}
	if (f->inplace) /* the donor's blocks go again, as in fio */
		while (ftruncate(f->donor_fd, 0) < 0 && errno == EINTR)
			;
	uint64_t bytes = moved * f->bsz - (off - first * f->bsz); /* from off: the first block may start before it */
	if (moved && bytes > 0)
		return (int64_t)(bytes < len ? bytes : len);
	return err ? err : -ENODATA;
}

FDIO_WRITE_ONLY_FILE(e4, struct e4_file);

static int e4_control(void *handle, int op, void *arg)
{
	if (op == IOB_CTL_CHECK_TARGET && !handle && arg) {
		const struct iob_target_check *q = arg;
		if (q->struct_size < offsetof(struct iob_target_check, path) + sizeof q->path)
			return -ENOTSUP;
		return e4_check_target(q);
	}
	return bopts_control(handle, op, arg, e4_host, E4_NAME, e4_option, NULL, NULL);
}

BOPTS_PLUGIN(e4, E4_NAME,
	     "each write moves its range into fresh blocks with EXT4_IOC_MOVE_EXT (fio's ioengine=e4defrag)",
	     IOB_CAP_WRITE | IOB_CAP_SYNC | IOB_CAP_TRUNCATE | IOB_CAP_UNCOUNTED | IOB_CAP_SAMEDATA,
	     BOPTS_FILE_OPS(e4));
