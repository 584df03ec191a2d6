/*
 * meta_os.h - the operating system under a files job (meta.c has the map):
 * the job's directory held, directories and files reached one name at a
 * time from a held directory without following a link, made, opened,
 * stat'ed and removed.  meta_os_posix.c (openat, mkdirat, unlinkat with
 * O_NOFOLLOW) and meta_os_win32.c (NtCreateFile relative to a held handle
 * with FILE_OPEN_REPARSE_POINT, the attributes checked on the handle) are
 * its two rooms; meta_ops.c and meta_phase.c call nothing else of the OS.
 * Every call returns 0 (or a count) or a negative errno.  Not installed.
 */
#ifndef IOB_META_OS_H
#define IOB_META_OS_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#ifndef ESTALE
#define ESTALE 116 /* (mingw has none) */
#endif

/* A held directory or an open file: a descriptor (POSIX) or a handle
 * (Windows); every one held is >= 0, none is MO_NONE. */
typedef intptr_t mo_h;
#define MO_NONE ((mo_h)-1)

/* The job's directory by its path, checked a directory (a link is followed
 * only when follow != 0: else -ELOOP). */
int mo_top_open(const char *dir, int follow, mo_h *out);
/* Directory `name` (one component) in the directory held on at, never
 * through a link: -ELOOP or -ENOTDIR (POSIX: whatever openat says). */
int mo_dir_open(mo_h at, const char *name, mo_h *out);
/* Another handle on the same directory. */
int mo_dup(mo_h h, mo_h *out);
void mo_close(mo_h h);
/* The identity (device, inode; Windows: volume serial, file index) of what
 * is held on h. */
int mo_identity(mo_h h, uint64_t *dev, uint64_t *ino);
/* Directory `name` made in at (mode 0700); -EEXIST when anything is there. */
int mo_mkdir(mo_h at, const char *name);
/* Directory `name` of at removed when empty (a link there: removed itself
 * on POSIX, as unlinkat does; -ENOTDIR on Windows). */
int mo_rmdir(mo_h at, const char *name);
/* The same, only when it is still the directory (dev, ino) and no link:
 * else -ESTALE and nothing removed. */
int mo_rmdir_same(mo_h at, const char *name, uint64_t dev, uint64_t ino);

/* A file `name` of at: MO_CREATE makes it (never there before) for
 * writing, MO_WRITE opens it for writing, MO_READ for reading; never
 * through a link. */
enum mo_how { MO_CREATE, MO_WRITE, MO_READ };
int mo_file_open(mo_h at, const char *name, enum mo_how how, mo_h *out);
/* Bytes moved (> 0), 0 (read: the end; write: nothing written), -errno. */
long mo_write(mo_h f, const void *buf, size_t len);
long mo_read(mo_h f, void *buf, size_t len);
int mo_fsync(mo_h f);
/* Closed; what closing said. */
int mo_file_close(mo_h f);
/* 0 when `name` of at is a regular file (not followed), -EINVAL when it is
 * something else. */
int mo_stat_file(mo_h at, const char *name);
/* dirstat: 0 when `name` of at is a directory (not followed; POSIX: one
 * fstatat(AT_SYMLINK_NOFOLLOW)), -ELOOP when it is a link (or a reparse
 * point), -ENOTDIR when it is something else. */
int mo_stat_dir(mo_h at, const char *name);
/* File `name` of at removed (a link there: the link). */
int mo_unlink(mo_h at, const char *name);

/* The calling thread given its own copy of what the threads of a process
 * share and processes do not, where each open and close writes to it: the
 * descriptor table and the credentials (Linux: unshare(CLONE_FILES), and
 * prctl(PR_SET_KEEPCAPS) with the value it has, which makes the thread a
 * copy of its credentials and changes nothing in them).  Nothing opened in
 * the thread after it is seen by other threads.  Best effort: where it is
 * refused or not possible (elsewhere: nothing done), the thread goes on with
 * the shared ones.  Under ThreadSanitizer the table stays shared (it knows
 * one table a process). */
void mo_thread_private(void);

/* path_walk = full: path (relative: "ROOT/dA/dB" or ".../f.G.I") resolved
 * from the job's directory held on top in one walk that follows no link,
 * neither in the middle nor at the end, and leaves nothing below top (Linux:
 * openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), except the stats below.
 * -ENOSYS where there is no such walk (Windows: iob_meta_check refuses full
 * there first). */
int mo_full_probe(void); /* 0 when this system has the walk */
/* The job's directory opened again ("." of top), a stream's own. */
int mo_full_top(mo_h top, mo_h *out);
/* A directory by its path, to make or remove names in (O_PATH): a stream
 * opens it once for all the items in it it removes in a row (meta_ops.c). */
int mo_full_dir(mo_h top, const char *path, mo_h *out);
/* mo_file_open by the whole path. */
int mo_full_file_open(mo_h top, const char *path, enum mo_how how, mo_h *out);
/* mo_stat_file and mo_stat_dir by the whole path, as mdtest's stat walks it:
 * one fstatat(AT_SYMLINK_NOFOLLOW) from top, so a link at the end is seen
 * itself, but one in the middle is followed (Linux has no stat that refuses
 * it; nothing is opened).  -EXDEV when what was reached is not on the file
 * system dev (the tree's, as the stream saw it before the phase): the caller
 * checks after the phase that no link was in the tree (meta_ops.c,
 * docs/security.md). */
int mo_full_stat_file(mo_h top, const char *path, uint64_t dev);
int mo_full_stat_dir(mo_h top, const char *path, uint64_t dev);

/* The checks before anything is made (iob_meta_check), by path. */
/* 0 for a directory (followed), 1 for something else, or what stat says. */
int mo_path_dir(const char *dir);
/* 0 when names can be made in dir (access W_OK | X_OK; Windows: a probe
 * file made and removed at once, iob_dir_writable, as for data jobs). */
int mo_path_writable(const char *dir);
/* The longest name in dir; 255 when it cannot be told. */
long mo_name_max(const char *dir);
/* 1 when something (a link too) is at path, 0 when not. */
int mo_path_exists(const char *path);
/* Room on the file system of dir: the block (fragment) size, the free
 * blocks an unprivileged user may use, the free inodes (files_total 0: the
 * file system does not count them), and the bytes of free space each file
 * or directory takes besides its data where inodes are not counted
 * (Windows: 1024, an NTFS file record; POSIX: 0). */
struct mo_room {
	uint64_t frag, blocks_avail, files_total, files_avail, item_bytes;
};
int mo_room(const char *dir, struct mo_room *r);

#endif
