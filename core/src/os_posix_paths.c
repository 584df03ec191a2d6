/*
 * os_posix_paths.c - paths by name (os.h): what a path is, its size, the
 * free space under it, directories made and removed, access, identity, the
 * real path, the file system's facts, a file's holes, direct I/O alignment,
 * a directory's entries, temporary files.  A room of os_posix.c (its map).
 */
#include "os_posix_int.h"

enum iob_path_kind iob_path_kind(const char *path, int follow)
{
	struct stat st;
	int rc = follow ? stat(path, &st) : lstat(path, &st);
	if (rc != 0)
		return IOB_PATH_MISSING;
	return S_ISLNK(st.st_mode) ? IOB_PATH_SYMLINK : kind_of_mode(st.st_mode);
}

int iob_file_size(const char *path, uint64_t *size)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return -errno;
	*size = (uint64_t)st.st_size;
	return 0;
}

int iob_blockdev_size(const char *path, int follow, uint64_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (follow ? 0 : O_NOFOLLOW));
	if (fd < 0)
		return -errno;
	struct stat st;
	int rc = 0;
	if (fstat(fd, &st) != 0)
		rc = -errno;
	else if (!S_ISBLK(st.st_mode))
		rc = -ENOTBLK;
	else {
		off_t end = lseek(fd, 0, SEEK_END);
		if (end < 0)
			rc = -errno;
		else
			*size = (uint64_t)end;
	}
	close(fd);
	return rc;
}

int iob_fs_free_bytes(const char *path, uint64_t *bytes)
{
	struct statvfs sv;
	if (statvfs(path, &sv) != 0)
		return -errno;
	*bytes = (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
	return 0;
}

int iob_mkdir(const char *path)
{
	if (mkdir(path, 0755) == 0)
		return 0;
	if (errno == EEXIST && iob_path_kind(path, 1) == IOB_PATH_DIRECTORY)
		return 0;
	return -errno;
}

int iob_remove_file(const char *path)
{
	return unlink(path) == 0 ? 0 : -errno;
}

int iob_remove_dir(const char *path)
{
	return rmdir(path) == 0 ? 0 : -errno;
}

int iob_dir_writable(const char *dir)
{
	if (iob_path_kind(dir, 1) != IOB_PATH_DIRECTORY)
		return iob_path_kind(dir, 1) == IOB_PATH_MISSING ? -ENOENT : -ENOTDIR;
	return access(dir, W_OK | X_OK) == 0 ? 0 : -errno;
}

/* ---- facts about a run's targets and their file systems, holes ---- */

/* The holes of [off, end) of fd, added to *holes. */
static int holes_range(int fd, uint64_t off, uint64_t end, uint64_t *holes)
{
	while (off < end) {
		off_t hole = lseek(fd, (off_t)off, SEEK_HOLE);
		if (hole < 0)
			return errno == EINVAL ? -ENOTSUP : -errno;
		if ((uint64_t)hole >= end)
			break;
		off_t data = lseek(fd, hole, SEEK_DATA);
		uint64_t next = data < 0 ? end : (uint64_t)data < end ? (uint64_t)data : end;
		*holes += next - (uint64_t)hole;
		off = next;
	}
	return 0;
}

/* A regular file's handle (no link followed), and its size. */
static int holes_open(const char *path, uint64_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -ENOTSUP;
	}
	*size = (uint64_t)st.st_size;
	return fd;
}

int iob_file_holes(const char *path, uint64_t len, uint64_t *hole_bytes)
{
	uint64_t size = 0, holes = 0;
	*hole_bytes = 0;
	int fd = holes_open(path, &size), rc;
	if (fd < 0)
		return fd;
	rc = holes_range(fd, 0, len && len < size ? len : size, &holes);
	close(fd);
	*hole_bytes = holes;
	return rc;
}

int iob_file_holes_in(const char *path, int (*next)(void *arg, uint64_t *off, uint64_t *len), void *arg,
		      uint64_t *hole_bytes)
{
	uint64_t size = 0, holes = 0, off, len;
	*hole_bytes = 0;
	int fd = holes_open(path, &size), rc = 0;
	if (fd < 0)
		return fd;
	while (rc == 0 && next(arg, &off, &len))
		if (off < size) /* past the end: read as nothing, no hole */
			rc = holes_range(fd, off, len < size - off ? off + len : size, &holes);
	close(fd);
	*hole_bytes = holes;
	return rc;
}

/* The last answer, by device: a run asks for its job's directory before the
 * job and again after each phase (its notes), and each answer read and
 * parsed the whole mount table (0.1 ms of a short run's CPU). */
static struct {
	pthread_mutex_t lock;
	int have;
	dev_t dev;
	uint64_t block_size;
	char fstype[64], device[4096]; /* IOB_PATH_MAX, phase.h */
} fs_seen = {.lock = PTHREAD_MUTEX_INITIALIZER};

static int fs_facts_read(const char *path, const struct stat *st, char *fstype, size_t fslen, uint64_t *block_size,
			 char *device, size_t devlen);

/* The mount holding path: file-system type and source, as the line of
 * /proc/self/mountinfo whose major:minor is the path's st_dev gives them
 * (statmount where the kernel has it, else that line). */
int iob_fs_facts(const char *path, char *fstype, size_t fslen, uint64_t *block_size, char *device, size_t devlen)
{
	struct stat st;
	snprintf(fstype, fslen, "unknown");
	snprintf(device, devlen, "unknown");
	*block_size = 0;
	if (stat(path, &st) != 0)
		return -errno;
	pthread_mutex_lock(&fs_seen.lock);
	int hit = fs_seen.have && fs_seen.dev == st.st_dev;
	if (hit) {
		snprintf(fstype, fslen, "%s", fs_seen.fstype);
		snprintf(device, devlen, "%s", fs_seen.device);
		*block_size = fs_seen.block_size;
	}
	pthread_mutex_unlock(&fs_seen.lock);
	if (hit)
		return 0;
	int rc = fs_facts_read(path, &st, fstype, fslen, block_size, device, devlen);
	if (rc != 0)
		return rc;
	pthread_mutex_lock(&fs_seen.lock);
	fs_seen.have = 1;
	fs_seen.dev = st.st_dev;
	fs_seen.block_size = *block_size;
	snprintf(fs_seen.fstype, sizeof fs_seen.fstype, "%s", fstype);
	snprintf(fs_seen.device, sizeof fs_seen.device, "%s", device);
	pthread_mutex_unlock(&fs_seen.lock);
	return 0;
}

#if defined(__linux__) && defined(STATX_BASIC_STATS)
/* statmount(2) (Linux 6.8; the source and subtype 6.13): the one mount's
 * facts, where /proc/self/mountinfo makes the kernel print every mount of
 * the namespace (its generation was about 3% of a 1 MiB run's CPU, `perf
 * record`).  The fixed part of the kernel's struct statmount up to the
 * fields read here (include/uapi/linux/mount.h), and its request. */
#ifndef SYS_statmount
#define SYS_statmount 457
#endif
#define IOB_STATX_MNT_ID_UNIQUE 0x4000U
#define IOB_SM_SB_BASIC 0x1U
#define IOB_SM_FS_TYPE 0x20U
#define IOB_SM_FS_SUBTYPE 0x100U
#define IOB_SM_SB_SOURCE 0x200U
struct iob_mnt_id_req {
	uint32_t size, spare;
	uint64_t mnt_id, param;
};
struct iob_statmount {
	uint32_t size, mnt_opts;
	uint64_t mask;
	uint32_t sb_dev_major, sb_dev_minor;
	uint64_t sb_magic;
	uint32_t sb_flags, fs_type;
	uint64_t mnt_id, mnt_parent_id;
	uint32_t mnt_id_old, mnt_parent_id_old;
	uint64_t mnt_attr, mnt_propagation, mnt_peer_group, mnt_master, propagate_from;
	uint32_t mnt_root, mnt_point;
	uint64_t mnt_ns_id;
	uint32_t fs_subtype, sb_source;
	uint64_t rest[48]; /* the other fields and spares: 512 bytes in all */
};
_Static_assert(sizeof(struct iob_statmount) == 512, "struct statmount's fixed part is 512 bytes");

/* s into out as mountinfo prints it: space, tab, newline and backslash as
 * \ooo (the kernel's mangle()); 0, or -1 when it does not fit. */
static int mangled(const char *s, char *out, size_t len)
{
	size_t k = 0;
	for (; *s; s++) {
		int esc = *s == ' ' || *s == '\t' || *s == '\n' || *s == '\\';
		if (k + (esc ? 4 : 1) >= len)
			return -1;
		if (esc)
			k += (size_t)snprintf(out + k, len - k, "\\%03o", (unsigned char)*s);
		else
			out[k++] = *s;
	}
	out[k] = 0;
	return 0;
}

/* 0 with the facts mountinfo's line for path's mount gives, or -1 (no
 * statmount, a mount whose device is not st_dev, an answer that does not
 * fit): then the table is read. */
static int fs_facts_statmount(const char *path, const struct stat *st, char *fstype, size_t fslen, char *device,
			      size_t devlen)
{
	struct statx sx;
	if (statx(AT_FDCWD, path, 0, IOB_STATX_MNT_ID_UNIQUE, &sx) != 0 || !(sx.stx_mask & IOB_STATX_MNT_ID_UNIQUE))
		return -1;
	union {
		struct iob_statmount sm;
		char bytes[8192];
	} *buf = malloc(sizeof *buf);
	if (!buf)
		return -1;
	struct iob_mnt_id_req req = {.size = 24, .mnt_id = sx.stx_mnt_id,
				     .param = IOB_SM_SB_BASIC | IOB_SM_FS_TYPE | IOB_SM_FS_SUBTYPE | IOB_SM_SB_SOURCE};
	const struct iob_statmount *sm = &buf->sm;
	uint64_t want = IOB_SM_SB_BASIC | IOB_SM_FS_TYPE | IOB_SM_SB_SOURCE;
	int rc = -1;
	if (syscall(SYS_statmount, &req, buf, sizeof *buf, 0) == 0 && (sm->mask & want) == want &&
	    sm->size <= sizeof *buf && makedev(sm->sb_dev_major, sm->sb_dev_minor) == st->st_dev) {
		const char *str = buf->bytes + sizeof *sm, *end = buf->bytes + sm->size;
		const char *type = str + sm->fs_type, *src = str + sm->sb_source;
		const char *sub = (sm->mask & IOB_SM_FS_SUBTYPE) ? str + sm->fs_subtype : "";
		char t[64], u[64], d[4096];
		if (type < end && src < end && sub < end && memchr(type, 0, (size_t)(end - type)) &&
		    memchr(src, 0, (size_t)(end - src)) && memchr(sub, 0, (size_t)(end - sub)) &&
		    mangled(type, t, sizeof t) == 0 && mangled(sub, u, sizeof u) == 0 &&
		    mangled(*src ? src : "none", d, sizeof d) == 0) {
			snprintf(fstype, fslen, "%s%s%s", t, *u ? "." : "", u);
			snprintf(device, devlen, "%s", d);
			rc = 0;
		}
	}
	free(buf);
	return rc;
}
#endif

static int fs_facts_read(const char *path, const struct stat *pst, char *fstype, size_t fslen, uint64_t *block_size,
			 char *device, size_t devlen)
{
	struct stat st = *pst;
	struct statvfs vfs;
	if (statvfs(path, &vfs) == 0)
		*block_size = vfs.f_bsize;
#if defined(__linux__) && defined(STATX_BASIC_STATS)
	if (fs_facts_statmount(path, &st, fstype, fslen, device, devlen) == 0)
		return 0;
#endif
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -ENOTSUP;
	char line[4096];
	char want[32];
	snprintf(want, sizeof want, "%u:%u", major(st.st_dev), minor(st.st_dev));
	while (fgets(line, sizeof line, f)) {
		/* id parent major:minor root mountpoint opts [tags] - fstype source superopts */
		char *save = NULL, *tok = strtok_r(line, " ", &save);
		int field = 0, match = 0;
		for (; tok; tok = strtok_r(NULL, " ", &save), field++)
			if (field == 2) {
				match = strcmp(tok, want) == 0;
				break;
			}
		if (!match)
			continue;
		char *sep = strstr(save ? save : "", " - ");
		if (!sep)
			continue;
		char *type = strtok_r(sep + 3, " ", &save);
		char *src = type ? strtok_r(NULL, " \n", &save) : NULL;
		if (type)
			snprintf(fstype, fslen, "%s", type);
		if (src)
			snprintf(device, devlen, "%s", src);
	}
	fclose(f);
	return 0;
}

int iob_path_access(const char *path, int write)
{
	return access(path, write ? W_OK : R_OK) == 0 ? 0 : -errno;
}

int iob_path_device(const char *path, uint64_t *dev)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return -errno;
	*dev = (uint64_t)st.st_dev;
	return 0;
}

int iob_list_dir(const char *dir, void (*fn)(void *arg, const char *name), void *arg)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	if (!d)
		return -errno;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		fn(arg, e->d_name);
	}
	closedir(d);
	return 0;
}

int iob_write_temp(const char *text, size_t len, char *path, size_t pathlen)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(path, pathlen, "%s/iobench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	int fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	size_t done = 0;
	while (done < len) {
		ssize_t n = write(fd, text + done, len - done);
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;
			close(fd);
			unlink(path);
			return -e;
		}
		done += (size_t)n;
	}
	close(fd);
	return 0;
}

int iob_file_identity(const char *path, uint64_t *dev, uint64_t *ino, enum iob_path_kind *kind)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return -errno;
	*dev = (uint64_t)st.st_dev;
	*ino = (uint64_t)st.st_ino;
	*kind = kind_of_mode(st.st_mode);
	return 0;
}

int iob_stream_identity(FILE *f, uint64_t *dev, uint64_t *ino, enum iob_path_kind *kind)
{
	struct stat st;
	int fd = fileno(f);
	if (fd < 0 || fstat(fd, &st) != 0)
		return -errno;
	*dev = (uint64_t)st.st_dev;
	*ino = (uint64_t)st.st_ino;
	*kind = kind_of_mode(st.st_mode);
	return 0;
}

int iob_real_path(const char *path, char *out, size_t outlen)
{
	char *r = realpath(path, NULL);
	if (!r)
		return -errno;
	size_t n = strlen(r);
	if (n >= outlen) {
		free(r);
		return -ENAMETOOLONG;
	}
	memcpy(out, r, n + 1);
	free(r);
	return 0;
}

int iob_dio_alignment(const char *path, uint32_t *align)
{
#if defined(__linux__) && defined(STATX_DIOALIGN) && defined(O_TMPFILE)
	struct statfs sf;
	struct statx sx;
	int fd, rc;

	/* a memory file system's page cache is its storage: nothing to bypass */
	if (statfs(path, &sf) == 0 && (sf.f_type == TMPFS_MAGIC || sf.f_type == RAMFS_MAGIC))
		return -EINVAL;
	if (iob_path_kind(path, 1) == IOB_PATH_DIRECTORY)
		fd = open(path, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	else
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ENOTSUP;
	rc = statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx);
	close(fd);
	if (rc != 0 || !(sx.stx_mask & STATX_DIOALIGN))
		return -ENOTSUP;
	if (sx.stx_dio_offset_align == 0)
		return -EINVAL; /* the file system has no direct I/O */
	*align = sx.stx_dio_offset_align;
	return 0;
#else
	(void)path;
	(void)align;
	return -ENOTSUP;
#endif
}
