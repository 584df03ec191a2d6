/*
 * os_posix.c - the POSIX (Linux) implementation of iobench/os.h.  The only
 * core file that makes system calls directly.
 */
#include "iobench/os.h"
#include "iobench/ticks.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <spawn.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <linux/magic.h> /* TMPFS_MAGIC, RAMFS_MAGIC */
#include <sys/vfs.h>
#endif

uint64_t iob_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

uint64_t iob_clock_ns(enum iob_clock clock)
{
	struct rusage ru;
	struct timespec ts;

	switch (clock) {
	case IOB_CLOCK_USER:
		getrusage(RUSAGE_SELF, &ru);
		return tv_ns(ru.ru_utime);
	case IOB_CLOCK_SYSTEM:
		getrusage(RUSAGE_SELF, &ru);
		return tv_ns(ru.ru_stime);
	case IOB_CLOCK_PROCESS:
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
		return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	case IOB_CLOCK_WALL:
	default:
		return iob_now_ns();
	}
}

uint64_t iob_clock_resolution_ns(enum iob_clock clock)
{
	struct timespec ts = {0, 0};
	switch (clock) {
	case IOB_CLOCK_USER:
	case IOB_CLOCK_SYSTEM:
		return 1000; /* getrusage reports microseconds */
	case IOB_CLOCK_PROCESS:
		clock_getres(CLOCK_PROCESS_CPUTIME_ID, &ts);
		break;
	case IOB_CLOCK_WALL:
	default:
		clock_getres(CLOCK_MONOTONIC, &ts);
		break;
	}
	uint64_t ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	return ns ? ns : 1;
}

void *iob_alloc_aligned(size_t alignment, size_t size)
{
	void *p = NULL;
	if (alignment < sizeof(void *))
		alignment = sizeof(void *);
	if (size == 0)
		size = alignment;
	if (posix_memalign(&p, alignment, size) != 0)
		return NULL;
	return p;
}

void iob_free_aligned(void *ptr)
{
	free(ptr);
}

int iob_mem_populate(void *p, size_t len)
{
#if defined(__linux__)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older headers lack it */
#endif
	uintptr_t ps = (uintptr_t)sysconf(_SC_PAGESIZE), a = (uintptr_t)p & ~(ps - 1);
	if (len == 0)
		return 0;
	return madvise((void *)a, (size_t)((uintptr_t)p + len - a), MADV_POPULATE_WRITE) == 0 ? 0 : -errno;
#else
	(void)p;
	(void)len;
	return -ENOTSUP;
#endif
}

uint64_t iob_physical_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES);
	long psize = sysconf(_SC_PAGESIZE);
	if (pages <= 0 || psize <= 0)
		return 0;
	return (uint64_t)pages * (uint64_t)psize;
}

uint64_t iob_free_memory(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[256];
	unsigned long long kb = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "MemFree: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb * 1024u;
}

uint64_t iob_available_memory(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[256];
	unsigned long long kb = 0;
	int found = 0;
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof line, f))
		found = sscanf(line, "MemAvailable: %llu kB", &kb) == 1;
	fclose(f);
	return found ? (uint64_t)kb * 1024u : 0;
}

void iob_hostname(char *buf, size_t len)
{
	if (len == 0)
		return;
	if (gethostname(buf, len) != 0)
		snprintf(buf, len, "unknown");
	buf[len - 1] = '\0';
	char *dot = strchr(buf, '.');
	if (dot)
		*dot = '\0';
}

void iob_time_iso8601(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	if (strftime(buf, len, "%Y-%m-%dT%H:%M:%S%z", &tm) == 0 && len)
		buf[0] = '\0';
}

void iob_time_stamp(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	if (strftime(buf, len, "%Y%m%d.%H%M%S", &tm) == 0 && len)
		buf[0] = '\0';
}

int iob_is_root(void)
{
	return geteuid() == 0;
}

enum iob_path_kind iob_path_kind(const char *path, int follow)
{
	struct stat st;
	int rc = follow ? stat(path, &st) : lstat(path, &st);
	if (rc != 0)
		return IOB_PATH_MISSING;
	if (S_ISREG(st.st_mode))
		return IOB_PATH_REGULAR;
	if (S_ISDIR(st.st_mode))
		return IOB_PATH_DIRECTORY;
	if (S_ISBLK(st.st_mode))
		return IOB_PATH_BLOCKDEV;
	if (S_ISCHR(st.st_mode))
		return IOB_PATH_CHARDEV;
	if (S_ISLNK(st.st_mode))
		return IOB_PATH_SYMLINK;
	return IOB_PATH_OTHER;
}

int iob_file_size(const char *path, uint64_t *size)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return -errno;
	*size = (uint64_t)st.st_size;
	return 0;
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

int iob_cache_residency(const char *path, uint64_t *resident_pages, uint64_t *total_pages)
{
	return iob_cache_residency_range(path, 0, 0, resident_pages, total_pages);
}

/* The file at path opened only to advise the kernel about its cache: never
 * a wait on a FIFO, never a controlling terminal, and only a regular file or
 * a block device (what else may have been swapped in at the name after the
 * checks is left alone).  A descriptor, or -errno. */
static int open_for_advice(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) < 0 || !(S_ISREG(st.st_mode) || S_ISBLK(st.st_mode))) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

int iob_cache_evict(const char *path)
{
	int fd = open_for_advice(path);
	if (fd < 0)
		return fd;
	fdatasync(fd);
	int rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	return -rc;
}

int iob_cache_drop_range(const char *path, uint64_t off, uint64_t len)
{
	int fd = open_for_advice(path);
	if (fd < 0)
		return fd;
	int rc = posix_fadvise(fd, (off_t)off, (off_t)len, POSIX_FADV_DONTNEED);
	close(fd);
	return -rc;
}

void iob_sync_all(void)
{
	sync();
}

int iob_drop_caches(void)
{
	sync();
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, "3\n", 2);
	int rc = n == 2 ? 0 : (n < 0 ? -errno : -EIO);
	close(fd);
	return rc;
}

/* ---- facts about a run's system and targets, holes, quiet commands ---- */

int iob_file_holes(const char *path, uint64_t len, uint64_t *hole_bytes)
{
	*hole_bytes = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -ENOTSUP;
	}
	uint64_t end = len && len < (uint64_t)st.st_size ? len : (uint64_t)st.st_size;
	uint64_t off = 0, holes = 0;
	while (off < end) {
		off_t hole = lseek(fd, (off_t)off, SEEK_HOLE);
		if (hole < 0) {
			int e = errno;
			close(fd);
			return e == EINVAL ? -ENOTSUP : -e;
		}
		if ((uint64_t)hole >= end)
			break;
		off_t data = lseek(fd, hole, SEEK_DATA);
		uint64_t next = data < 0 ? end : (uint64_t)data < end ? (uint64_t)data : end;
		holes += next - (uint64_t)hole;
		off = next;
	}
	close(fd);
	*hole_bytes = holes;
	return 0;
}

void iob_kernel(char *buf, size_t len)
{
	struct utsname u;
	if (uname(&u) == 0)
		snprintf(buf, len, "%s %s %s", u.sysname, u.release, u.machine);
	else
		snprintf(buf, len, "unknown");
}

/* The mount holding path: file-system type and source, from the line of
 * /proc/self/mountinfo whose major:minor is the path's st_dev. */
int iob_fs_facts(const char *path, char *fstype, size_t fslen, uint64_t *block_size, char *device, size_t devlen)
{
	struct stat st;
	struct statvfs vfs;
	snprintf(fstype, fslen, "unknown");
	snprintf(device, devlen, "unknown");
	*block_size = 0;
	if (stat(path, &st) != 0)
		return -errno;
	if (statvfs(path, &vfs) == 0)
		*block_size = vfs.f_bsize;
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

long iob_getline(char **line, size_t *cap, FILE *f)
{
	ssize_t n = getline(line, cap, f);
	return n < 0 ? -1 : (long)n;
}

int iob_is_terminal(FILE *f)
{
	return isatty(fileno(f));
}

int iob_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int iob_stream_fd(FILE *f)
{
	return fileno(f);
}

int iob_stream_is_pipe(FILE *f)
{
	struct stat st;
	return fstat(fileno(f), &st) == 0 && S_ISFIFO(st.st_mode);
}

int iob_wake_pipe(int fds[2])
{
	return pipe2(fds, O_CLOEXEC) == 0 ? 0 : -errno;
}

void iob_wake_pipe_close(int fds[2])
{
	close(fds[0]);
	close(fds[1]);
}

int iob_stream_reader_gone(FILE *f, int wake_fd, int timeout_ms)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	/* no event asked for: a pipe's writer gets POLLERR when no reader is left */
	struct pollfd p[2] = {{.fd = fileno(f), .events = 0}, {.fd = wake_fd, .events = POLLIN}};
	int n = poll(p, wake_fd >= 0 ? 2 : 1, timeout_ms);
	if (n <= 0 || !(p[0].revents & POLLERR))
		return 0;
	kill(getpid(), SIGPIPE);
	return 1;
}

int iob_std_fds_reopen(void)
{
	int mask = 0;
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
			continue;
		/* the lowest free descriptor is fd: the ones below are open */
		int got = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
		if (got < 0)
			return -errno;
		if (got != fd) {
			close(got);
			return -EBADF;
		}
		mask |= 1 << fd;
	}
	return mask;
}

FILE *iob_fopen(const char *path, const char *mode)
{
	return fopen(path, mode);
}

const char *iob_wine_version(void)
{
	return NULL;
}

void iob_utf8_args(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
}

extern char **environ;

int iob_run_quiet(char *const argv[])
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status = 0, rc;

	if (posix_spawn_file_actions_init(&fa) != 0)
		return -ENOMEM;
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0)
		return -rc;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EPERM;
}

void iob_sleep_ns(uint64_t ns, volatile sig_atomic_t *stop)
{
	struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u)};
	while ((ts.tv_sec > 0 || ts.tv_nsec > 0) && !(stop && *stop))
		if (nanosleep(&ts, &ts) == 0)
			break;
}

/* ---- directories held open (runner_files.c, ledger.c): decide on what was opened */

static enum iob_path_kind kind_of_mode(mode_t m);

static int at_fd(int at)
{
	return at == IOB_AT_CWD ? AT_FDCWD : at;
}

static void fill_identity(const struct stat *st, struct iob_identity *id)
{
	if (!id)
		return;
	id->dev = (uint64_t)st->st_dev;
	id->ino = (uint64_t)st->st_ino;
	id->kind = S_ISLNK(st->st_mode) ? IOB_PATH_SYMLINK : kind_of_mode(st->st_mode);
	id->uid = (uint32_t)st->st_uid;
}

int iob_dir_open_at(int at, const char *name, int follow, struct iob_identity *id)
{
	int fd = openat(at_fd(at), name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
	if (fd < 0) {
		int e = errno;
		struct stat st;
		/* O_NOFOLLOW on a link gives ELOOP, or ENOTDIR with O_DIRECTORY */
		if (!follow && fstatat(at_fd(at), name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
			return -ELOOP;
		return -e;
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	fill_identity(&st, id);
	return fd;
}

int iob_out_open_at(int at, const char *name, int append, int *made, struct iob_identity *id)
{
	/* never a link (O_NOFOLLOW), never a wait on a FIFO without a reader
	 * (O_NONBLOCK: ENXIO), never a controlling terminal, never truncated */
	int base = (append ? O_RDWR | O_APPEND : O_WRONLY) | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	int fd = openat(at_fd(at), name, base | O_CREAT | O_EXCL, 0666);
	*made = fd >= 0;
	if (fd < 0 && errno == EEXIST)
		fd = openat(at_fd(at), name, base);
	if (fd < 0) {
		int e = errno;
		struct stat st;
		if (fstatat(at_fd(at), name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
			return -ELOOP;
		return -e;
	}
	struct stat st;
	int fl = fcntl(fd, F_GETFL);
	if (fstat(fd, &st) != 0 || fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	fill_identity(&st, id);
	return fd;
}

int iob_fd_truncate(int fd)
{
	while (ftruncate(fd, 0) != 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

long iob_fd_read_head(int fd, char *buf, size_t len)
{
	ssize_t n;
	do
		n = pread(fd, buf, len, 0);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : (long)n;
}

FILE *iob_fd_stream(int fd, const char *mode)
{
	return fdopen(fd, mode);
}

int iob_mkdir_at(int at, const char *name)
{
	return mkdirat(at_fd(at), name, 0755) == 0 ? 0 : -errno;
}

int iob_stat_at(int at, const char *name, struct iob_identity *id)
{
	struct stat st;
	if (fstatat(at_fd(at), name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return -errno;
	fill_identity(&st, id);
	return 0;
}

int iob_remove_at(int at, const char *name, int dir)
{
	return unlinkat(at_fd(at), name, dir ? AT_REMOVEDIR : 0) == 0 ? 0 : -errno;
}

int iob_path_of_fd(int fd, const char *name, char *out, size_t outlen)
{
#if defined(__linux__)
	char probe[64];
	struct stat a, b;
	snprintf(probe, sizeof probe, "/proc/self/fd/%d", fd);
	/* the magic link must lead to the very directory held open */
	if (stat(probe, &a) != 0 || fstat(fd, &b) != 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		return -ENOTSUP;
	int n = snprintf(out, outlen, "%s/%s", probe, name);
	return n < 0 || (size_t)n >= outlen ? -ENAMETOOLONG : 0;
#else
	(void)fd;
	(void)name;
	(void)out;
	(void)outlen;
	return -ENOTSUP;
#endif
}

uint32_t iob_euid(void)
{
	return (uint32_t)geteuid();
}

void *iob_dl_open(const char *path, char *err, size_t errlen)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h && err && errlen) {
		const char *e = dlerror();
		snprintf(err, errlen, "%s", e ? e : "unknown dlopen error");
	}
	return h;
}

void *iob_dl_sym(void *handle, const char *name)
{
	return dlsym(handle, name);
}

void iob_dl_close(void *handle)
{
	if (handle)
		dlclose(handle);
}

void iob_exe_dir(char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
	if (len == 0)
		return;
	buf[0] = '\0';
	if (n <= 0)
		return;
	path[n] = '\0';
	char *slash = strrchr(path, '/');
	if (!slash)
		return;
	*slash = '\0';
	snprintf(buf, len, "%s", path);
}

/* The plugin trust rules, applied to an opened descriptor (see
 * docs/security.md): owned by root or the effective user; a plugin file, and
 * the directory holding it (`leaf`), writable by nobody else; an ancestor
 * directory writable by others only when sticky (like /tmp), since then
 * nobody else can rename or remove the entry below it that we checked. */
static int check_trusted_fd(int fd, const char *shown, int leaf, char *why, size_t whylen)
{
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		snprintf(why, whylen, "%s: %s", shown, strerror(e));
		return -e;
	}
	int dir = S_ISDIR(st.st_mode);
	if (!dir && !S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "%s is not a regular file; refusing to load it", shown);
		return -EINVAL;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		snprintf(why, whylen, "%s %s is owned by uid %u, neither root nor you; refusing to load %s",
			 dir ? "directory" : "file", shown, (unsigned)st.st_uid, dir ? "plugins from it" : "it");
		return -EPERM;
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && (!dir || leaf || !(st.st_mode & S_ISVTX))) {
		snprintf(why, whylen, "%s %s is writable by %s (mode %04o); refusing to load %s",
			 dir ? "directory" : "file", shown, (st.st_mode & S_IWOTH) ? "anyone" : "its group",
			 (unsigned)(st.st_mode & 07777), dir ? "plugins from it" : "it");
		return -EPERM;
	}
	return 0;
}

#ifdef O_PATH
#define DIR_WALK_FLAGS (O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#else
#define DIR_WALK_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#endif

/* Open directory `dir` by walking from / one component at a time, never
 * following a link, and check every directory on the way.  Returns the
 * directory's descriptor or -errno with a reason in why. */
static int open_dir_checked(const char *dir, char *why, size_t whylen)
{
	char real[PATH_MAX], shown[PATH_MAX];
	if (!realpath(dir, real)) {
		int e = errno;
		snprintf(why, whylen, "%s: %s", dir, e == ENOENT ? "no such file or directory" : strerror(e));
		return -e;
	}
	int fd = open("/", DIR_WALK_FLAGS);
	if (fd < 0) {
		int e = errno;
		snprintf(why, whylen, "/: %s", strerror(e));
		return -e;
	}
	int rc = check_trusted_fd(fd, "/", strcmp(real, "/") == 0, why, whylen);
	size_t len = 0;
	shown[0] = '\0';
	for (char *save = NULL, *c = strtok_r(real, "/", &save); c && rc == 0; c = strtok_r(NULL, "/", &save)) {
		len += (size_t)snprintf(shown + len, sizeof shown - len, "/%s", c);
		if (len >= sizeof shown)
			len = sizeof shown - 1;
		int next = openat(fd, c, DIR_WALK_FLAGS);
		if (next < 0) {
			int e = errno;
			snprintf(why, whylen, "%s: %s", shown,
				 e == ELOOP || e == ENOTDIR ? "no longer a directory (a symbolic link now?)"
							    : strerror(e));
			rc = -e;
			break;
		}
		close(fd);
		fd = next;
		const char *rest = save && *save ? save : NULL;
		rc = check_trusted_fd(fd, shown, rest == NULL, why, whylen);
	}
	if (rc != 0) {
		close(fd);
		return rc;
	}
	return fd;
}

/* The last plugin directory walked and checked, kept open: the plugins of
 * one directory (every candidate at the scan, then the one loaded) are
 * opened relative to the same checked directory, not walked to again.
 * Plugins are listed and loaded by the thread that starts the run only. */
static struct {
	char dir[PATH_MAX];
	int fd;
} walked = {"", -1};

/* Open plugin file `name` in `dir` on checked descriptors (see
 * iob_plugin_open); the directory alone when name is NULL. */
static int open_checked(const char *dir, const char *name, char *why, size_t whylen)
{
	if (!name)
		return open_dir_checked(dir, why, whylen);
	if (walked.fd < 0 || strcmp(walked.dir, dir) != 0) {
		int dfd = open_dir_checked(dir, why, whylen);
		if (dfd < 0)
			return dfd;
		if (walked.fd >= 0)
			close(walked.fd);
		walked.fd = dfd;
		snprintf(walked.dir, sizeof walked.dir, "%s", dir);
	}
	int fd = openat(walked.fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	int e = errno;
	if (fd < 0) {
		snprintf(why, whylen, "%s",
			 e == ELOOP ? "is a symbolic link; plugins are loaded only from real files (name the file it "
				      "points to)"
			 : e == ENOENT ? "no such file"
				       : strerror(e));
		return -e;
	}
	char shown[PATH_MAX + 256];
	snprintf(shown, sizeof shown, "%s/%s", dir, name);
	int rc = check_trusted_fd(fd, shown, 1, why, whylen);
	if (rc != 0) {
		close(fd);
		return rc;
	}
	return fd;
}

int iob_check_trusted(const char *path, char *why, size_t whylen)
{
	int fd;
	if (iob_path_kind(path, 1) == IOB_PATH_DIRECTORY) {
		fd = open_checked(path, NULL, why, whylen);
	} else {
		char dir[PATH_MAX];
		const char *slash = strrchr(path, '/');
		snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
		if (slash == path)
			snprintf(dir, sizeof dir, "/");
		fd = open_checked(dir, slash ? slash + 1 : path, why, whylen);
	}
	if (fd < 0)
		return fd;
	close(fd);
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

/* Parse the text of /proc/.../io: rchar (less `self`, our own reads of these
 * files), wchar, read_bytes and write_bytes (UINT64_MAX when the kernel does
 * not count them: no CONFIG_TASK_IO_ACCOUNTING).  Each pointer may be NULL.
 * Returns which of rchar (1) and wchar (2) were found. */
static int parse_proc_io(const char *buf, uint64_t self, uint64_t *rchar, uint64_t *wchar, uint64_t *read_bytes,
			 uint64_t *write_bytes)
{
	unsigned long long v;
	int found = 0;
	if (read_bytes)
		*read_bytes = UINT64_MAX;
	if (write_bytes)
		*write_bytes = UINT64_MAX;
	for (const char *line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		if (sscanf(line, "rchar: %llu", &v) == 1) {
			if (rchar)
				*rchar = v - self;
			found |= 1;
		} else if (sscanf(line, "wchar: %llu", &v) == 1) {
			if (wchar)
				*wchar = v;
			found |= 2;
		} else if (sscanf(line, "read_bytes: %llu", &v) == 1 && read_bytes) {
			*read_bytes = v;
		} else if (sscanf(line, "write_bytes: %llu", &v) == 1 && write_bytes) {
			*write_bytes = v;
		}
	}
	return found;
}

/* A small /proc file read whole into buf (NUL-terminated): its length, or
 * -ENOTSUP when it cannot be read. */
static ssize_t read_proc_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ENOTSUP;
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -ENOTSUP;
	buf[n] = '\0';
	return n;
}

int iob_proc_io(uint64_t *rchar, uint64_t *wchar, uint64_t *read_bytes, uint64_t *write_bytes)
{
	/* Our own reads of /proc/self/io count in rchar too: remember them and
	 * leave them out, so callers see only the I/O they did. */
	static uint64_t self_read; /* every thread's reads of it: atomic */
	extern _Thread_local uint64_t iob_thread_self_read;
	char buf[1024];
	ssize_t n = read_proc_file("/proc/self/io", buf, sizeof buf);
	if (n < 0)
		return (int)n;
	parse_proc_io(buf, __atomic_load_n(&self_read, __ATOMIC_RELAXED), rchar, wchar, read_bytes, write_bytes);
	__atomic_add_fetch(&self_read, (uint64_t)n, __ATOMIC_RELAXED);
	iob_thread_self_read += (uint64_t)n; /* it counts in this thread's rchar too */
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

static volatile sig_atomic_t *stop_flag;

static void on_stop_signal(int sig)
{
	int saved = errno; /* the interrupted code's errno stays its own */
	if (stop_flag && !*stop_flag)
		*stop_flag = sig;
	/* a second signal ends the process the default way; SIGPIPE stays
	 * caught, so every later write to the closed pipe fails with EPIPE */
	if (sig != SIGPIPE)
		signal(sig, SIG_DFL);
	errno = saved;
}

void iob_install_stop_handlers(volatile sig_atomic_t *flag)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	stop_flag = flag;
	sigset_t set;
	sigemptyset(&set);
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		sigaction(sigs[i], &sa, NULL);
		sigaddset(&set, sigs[i]);
	}
	/* blocked by whoever started us, they would never stop the run: a
	 * blocked SIGPIPE leaves a write to a gone reader failing with EPIPE
	 * while the read goes on */
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

static enum iob_path_kind kind_of_mode(mode_t m)
{
	if (S_ISREG(m))
		return IOB_PATH_REGULAR;
	if (S_ISDIR(m))
		return IOB_PATH_DIRECTORY;
	if (S_ISBLK(m))
		return IOB_PATH_BLOCKDEV;
	if (S_ISCHR(m))
		return IOB_PATH_CHARDEV;
	return IOB_PATH_OTHER;
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

int iob_ticks_tsc;

static void ticks_decide(void)
{
#ifdef IOB_HAVE_TSC
	/* The kernel only picks "tsc" as its clock source when the TSC is
	 * invariant and synchronized across CPUs: trust its judgement. */
	char src[32] = "";
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");
	if (f) {
		if (fgets(src, sizeof src, f))
			src[strcspn(src, "\n")] = '\0';
		fclose(f);
	}
	iob_ticks_tsc = strcmp(src, "tsc") == 0 && !getenv("IOBENCH_NO_TSC");
#endif
}

/* Safe from any number of streams at once: decided once, before any of
 * them reads iob_ticks_tsc. */
void iob_ticks_init(void)
{
	static int once;
	iob_once(&once, ticks_decide);
}

/* ------------------------------------------------------------------------ */
/* Plugin loading on checked descriptors (loader.c).                        */

int iob_plugin_open(const char *dir, const char *name, char *why, size_t whylen)
{
	return open_checked(dir, name, why, whylen);
}

void *iob_dl_open_fd(int *fd, char *err, size_t errlen)
{
	char name[64];
	snprintf(name, sizeof name, "/proc/self/fd/%d", *fd);
	/* The dynamic linker knows objects by the name they were opened under.
	 * One still mapped under this name (a plugin that could not be unloaded)
	 * would be handed back instead of ours: move to another number then. */
	void *old = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
	if (old) {
		dlclose(old);
		int nfd = fcntl(*fd, F_DUPFD_CLOEXEC, *fd + 1);
		if (nfd < 0) {
			snprintf(err, errlen, "%s", strerror(errno));
			return NULL;
		}
		close(*fd);
		*fd = nfd;
		snprintf(name, sizeof name, "/proc/self/fd/%d", *fd);
	}
	void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		if (access("/proc/self/fd", X_OK) != 0)
			snprintf(err, errlen, "cannot load through /proc/self/fd (is /proc mounted?)");
		else
			snprintf(err, errlen, "%s", e ? e : "unknown dlopen error");
	}
	return h;
}

int iob_dl_sym_is_code(void *sym)
{
#if defined(__GLIBC__)
	Dl_info info;
	const ElfW(Sym) *es = NULL;
	if (!dladdr1(sym, &info, (void **)&es, RTLD_DL_SYMENT) || !es)
		return -ENOTSUP;
	int t = es->st_info & 0xf; /* ELF32_ST_TYPE and ELF64_ST_TYPE agree */
	return t == STT_FUNC || t == STT_GNU_IFUNC;
#else
	(void)sym;
	return -ENOTSUP;
#endif
}

int iob_fd_contains(int fd, const void *needle, size_t n)
{
	struct stat st;
	if (n == 0)
		return 0;
	if (fstat(fd, &st) != 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_size > ((off_t)256 << 20) || (uint64_t)st.st_size < n)
		return 0;
	/* mapped, not read: the look costs page faults on a file the loader
	 * maps next anyway, and no byte of the process's read count (which the
	 * measurement checks compare with the bytes a run reports) */
	void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	int found = memmem(map, (size_t)st.st_size, needle, n) != NULL;
	munmap(map, (size_t)st.st_size);
	return found;
}

void iob_fd_close(int fd)
{
	if (fd >= 0)
		close(fd);
}

/* In the child: code that calls exit() lands here and is told apart from a
 * clean return (which leaves by _exit(0), running no atexit handler). */
static void isolated_exit_trap(void)
{
	_exit(125);
}

int iob_run_isolated(void (*fn)(void *arg, void *out, size_t outlen), void *arg, void *out, size_t outlen,
		     char *why, size_t whylen)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0)
		return -errno;
	fflush(stdout); /* a child that exits must not flush our buffers twice */
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(p[0]);
		close(p[1]);
		return -e;
	}
	if (pid == 0) {
		close(p[0]);
		atexit(isolated_exit_trap);
		fn(arg, out, outlen);
		const char *b = out;
		size_t done = 0;
		while (done < outlen) {
			ssize_t n = write(p[1], b + done, outlen - done);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				_exit(127);
			done += (size_t)n;
		}
		_exit(0);
	}
	close(p[1]);
	size_t got = 0;
	while (got < outlen) {
		ssize_t n = read(p[0], (char *)out + got, outlen - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(p[0]);
	int status = 0;
	pid_t w;
	while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (got == outlen && (w < 0 || (WIFEXITED(status) && WEXITSTATUS(status) == 0)))
		return 0; /* (w < 0: SIGCHLD ignored, the status is gone; the result came) */
	if (WIFSIGNALED(status))
		snprintf(why, whylen, "crashed (signal %d, %s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 125)
		snprintf(why, whylen, "called exit()");
	else
		snprintf(why, whylen, "exited (status %d)", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return -ECHILD;
}


/*
 * Page-cache residency of a byte range.  cachestat(2) (Linux 6.5+) counts the
 * cached pages of a range in one call; its argument layouts are declared here
 * from the man page because older headers lack them.  Where the kernel has no
 * cachestat (ENOSYS), refuses it (EPERM, EOPNOTSUPP) or IOBENCH_NO_CACHESTAT
 * is set, mincore(2) probes a mapping of the range instead.
 *
 * A range is one cachestat call, exact (strace -T: about 40 us for a cached
 * GiB, against 256 sampled calls before).  mincore walks every page it is
 * asked about (about 30 ns a page: 10 ms for a cached GiB), so where
 * cachestat is not to be had a range of more than IOB_RES_EXACT pages is
 * sampled: IOB_RES_RUNS runs of IOB_RES_RUN_PAGES
 * consecutive pages, one at the centre of each of IOB_RES_RUNS equal strata,
 * and the resident count is scaled to the range (about 0.1 ms whatever its
 * size).  The estimate is off by at most 1/IOB_RES_RUNS (0.4%) of the range
 * per boundary between resident and evicted stretches when those are long,
 * as after sequential reads; for resident pieces of k pages scattered with
 * probability p its standard error is about sqrt(p(1-p) min(k,16) / 4096),
 * at most 3.1% of the range.  Ranges up to IOB_RES_EXACT pages are exact.
 */
#define IOB_RES_RUNS 256u
#define IOB_RES_RUN_PAGES 16u
#define IOB_RES_EXACT (IOB_RES_RUNS * IOB_RES_RUN_PAGES)

struct iob_cachestat_range {
	uint64_t off;
	uint64_t len;
};

struct iob_cachestat {
	uint64_t nr_cache;
	uint64_t nr_dirty;
	uint64_t nr_writeback;
	uint64_t nr_evicted;
	uint64_t nr_recently_evicted;
};

/* Its number where we know it (the same in both tables); elsewhere mincore. */
#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#define IOB_NR_CACHESTAT 451
#endif

struct res_probe {
	int fd;
	int cachestat; /* still worth trying */
	uint64_t psize;
	uint64_t end_page;  /* one past the last page of the range */
	unsigned char *map; /* mincore: the mapped window, or NULL */
	uint64_t map_first, map_pages;
	unsigned char vec[IOB_RES_EXACT];
};

/* Cached pages among pages [first, first + n) by cachestat, or -errno. */
static int res_cachestat(struct res_probe *p, uint64_t first, uint64_t n, uint64_t *hits)
{
#ifdef IOB_NR_CACHESTAT
	struct iob_cachestat_range range = {first * p->psize, n * p->psize};
	struct iob_cachestat cs;

	memset(&cs, 0, sizeof cs);
	if (syscall(IOB_NR_CACHESTAT, (unsigned int)p->fd, &range, &cs, 0u) != 0)
		return -errno;
	*hits += cs.nr_cache < n ? cs.nr_cache : n;
	return 0;
#else
	(void)p;
	(void)first;
	(void)n;
	(void)hits;
	return -ENOSYS;
#endif
}

/* The same by mincore on a window of at most 1 GiB mapped around them. */
static int res_mincore(struct res_probe *p, uint64_t first, uint64_t n, uint64_t *hits)
{
	if (!p->map || first < p->map_first || first + n > p->map_first + p->map_pages) {
		uint64_t window = ((uint64_t)1 << 30) / p->psize;
		if (p->map)
			munmap(p->map, (size_t)(p->map_pages * p->psize));
		p->map_first = first;
		p->map_pages = p->end_page - first < window ? p->end_page - first : window;
		p->map = mmap(NULL, (size_t)(p->map_pages * p->psize), PROT_READ, MAP_SHARED, p->fd,
			      (off_t)(first * p->psize));
		if (p->map == MAP_FAILED) {
			p->map = NULL;
			return -errno;
		}
	}
	if (mincore(p->map + (first - p->map_first) * p->psize, (size_t)(n * p->psize), p->vec) != 0)
		return -errno;
	for (uint64_t i = 0; i < n; i++)
		*hits += p->vec[i] & 1u;
	return 0;
}

/* Resident pages among [first, first + n), n <= IOB_RES_EXACT. */
static int res_count(struct res_probe *p, uint64_t first, uint64_t n, uint64_t *hits)
{
	if (p->cachestat) {
		int rc = res_cachestat(p, first, n, hits);
		if (rc == 0 || !(rc == -ENOSYS || rc == -EPERM || rc == -EOPNOTSUPP || rc == -EINVAL))
			return rc;
		p->cachestat = 0;
	}
	return res_mincore(p, first, n, hits);
}

int iob_cache_residency_range(const char *path, uint64_t off, uint64_t len, uint64_t *resident_pages,
			      uint64_t *total_pages)
{
	struct stat st;
	const char *no = getenv("IOBENCH_NO_CACHESTAT");
	struct res_probe *p;
	uint64_t hits = 0;
	int fd, rc = 0;

	*resident_pages = *total_pages = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -ENOTSUP;
	}
	uint64_t size = (uint64_t)st.st_size, psize = (uint64_t)sysconf(_SC_PAGESIZE);
	if (off >= size) {
		close(fd);
		return 0;
	}
	uint64_t end = len == 0 || len > size - off ? size : off + len;
	uint64_t first = off / psize, npages = (end - 1) / psize - first + 1;
	if (!(p = calloc(1, sizeof *p))) {
		close(fd);
		return -ENOMEM;
	}
	p->fd = fd;
	p->cachestat = !(no && *no);
	p->psize = psize;
	p->end_page = first + npages;
	if (npages <= IOB_RES_EXACT) {
		rc = res_count(p, first, npages, &hits);
	} else if (p->cachestat && res_cachestat(p, first, npages, &hits) == 0) {
		/* one cachestat call counts the whole range exactly */
	} else {
		p->cachestat = 0; /* refused or failed: sample the range by mincore */
		hits = 0;
		/* run i at the centre of stratum i; a stratum holds at least IOB_RES_RUN_PAGES pages */
		for (uint64_t i = 0; rc == 0 && i < IOB_RES_RUNS; i++) {
			uint64_t s0 = i * npages / IOB_RES_RUNS, s1 = (i + 1) * npages / IOB_RES_RUNS;
			rc = res_count(p, first + s0 + (s1 - s0 - IOB_RES_RUN_PAGES) / 2, IOB_RES_RUN_PAGES, &hits);
		}
		hits = (hits * npages + IOB_RES_EXACT / 2) / IOB_RES_EXACT;
	}
	if (p->map)
		munmap(p->map, (size_t)(p->map_pages * psize));
	free(p);
	close(fd);
	if (rc != 0)
		return rc;
	*resident_pages = hits < npages ? hits : npages;
	*total_pages = npages;
	return 0;
}

int iob_cache_unwritten(const char *path, uint64_t *bytes)
{
	*bytes = 0;
#ifdef IOB_NR_CACHESTAT
	const char *no = getenv("IOBENCH_NO_CACHESTAT");
	struct stat st;
	if (no && *no)
		return -ENOTSUP;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -ENOTSUP;
	}
	/* len 0: from off to the end of the file, whatever its size now */
	struct iob_cachestat_range range = {0, 0};
	struct iob_cachestat cs;
	memset(&cs, 0, sizeof cs);
	int rc = syscall(IOB_NR_CACHESTAT, (unsigned int)fd, &range, &cs, 0u) == 0 ? 0 : -errno;
	close(fd);
	if (rc == -ENOSYS || rc == -EPERM || rc == -EOPNOTSUPP || rc == -EINVAL)
		return -ENOTSUP;
	if (rc != 0)
		return rc;
	*bytes = (cs.nr_dirty + cs.nr_writeback) * (uint64_t)sysconf(_SC_PAGESIZE);
	return 0;
#else
	(void)path;
	return -ENOTSUP;
#endif
}

/* ------------------------------------------------------------------------ */
/* Threads, barriers, once, per-thread accounting (streams.c).              */

struct iob_thread {
	pthread_t id;
	void (*fn)(void *);
	void *arg;
};

static void *thread_main(void *p)
{
	struct iob_thread *t = p;
	t->fn(t->arg);
	return NULL;
}

int iob_thread_start(struct iob_thread **out, void (*fn)(void *arg), void *arg)
{
	struct iob_thread *t = calloc(1, sizeof *t);
	if (!t)
		return -ENOMEM;
	t->fn = fn;
	t->arg = arg;
	/* stop signals are handled by the thread that started the streams */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int rc = pthread_create(&t->id, NULL, thread_main, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		free(t);
		return -rc;
	}
	*out = t;
	return 0;
}

void iob_thread_join(struct iob_thread *t)
{
	if (!t)
		return;
	pthread_join(t->id, NULL);
	free(t);
}

struct iob_barrier {
	pthread_mutex_t lock;
	pthread_cond_t all_here;
	unsigned count, here;
	unsigned long round;
};

int iob_barrier_init(struct iob_barrier **out, unsigned count)
{
	struct iob_barrier *b = calloc(1, sizeof *b);
	if (!b)
		return -ENOMEM;
	int rc = pthread_mutex_init(&b->lock, NULL);
	if (rc == 0 && (rc = pthread_cond_init(&b->all_here, NULL)) != 0)
		pthread_mutex_destroy(&b->lock);
	if (rc != 0) {
		free(b);
		return -rc;
	}
	b->count = count ? count : 1;
	*out = b;
	return 0;
}

/* one arrival; the last of a round releases it.  Called with the lock. */
static int barrier_arrive_locked(struct iob_barrier *b)
{
	if (++b->here < b->count)
		return 0;
	b->here = 0;
	b->round++;
	pthread_cond_broadcast(&b->all_here);
	return 1;
}

void iob_barrier_wait(struct iob_barrier *b)
{
	pthread_mutex_lock(&b->lock);
	unsigned long round = b->round;
	if (!barrier_arrive_locked(b))
		while (b->round == round)
			pthread_cond_wait(&b->all_here, &b->lock);
	pthread_mutex_unlock(&b->lock);
}

void iob_barrier_arrive(struct iob_barrier *b)
{
	pthread_mutex_lock(&b->lock);
	barrier_arrive_locked(b);
	pthread_mutex_unlock(&b->lock);
}

void iob_barrier_destroy(struct iob_barrier *b)
{
	if (!b)
		return;
	pthread_cond_destroy(&b->all_here);
	pthread_mutex_destroy(&b->lock);
	free(b);
}

static pthread_mutex_t once_lock = PTHREAD_MUTEX_INITIALIZER;

/* fn must not call iob_once itself (one lock serves every flag) */
void iob_once(int *flag, void (*fn)(void))
{
	if (__atomic_load_n(flag, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&once_lock);
	if (!__atomic_load_n(flag, __ATOMIC_RELAXED)) {
		fn();
		__atomic_store_n(flag, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&once_lock);
}

/* this thread's reads of /proc/self/io and /proc/thread-self/io, which
 * count in its rchar: left out of what iob_proc_thread_io reports */
_Thread_local uint64_t iob_thread_self_read;

int iob_proc_thread_io(uint64_t *rchar, uint64_t *wchar, uint64_t *read_bytes, uint64_t *write_bytes)
{
	uint64_t *self_read = &iob_thread_self_read;
	char buf[1024];
	ssize_t n = read_proc_file("/proc/thread-self/io", buf, sizeof buf);
	if (n < 0)
		return (int)n;
	int found = parse_proc_io(buf, *self_read, rchar, wchar, read_bytes, write_bytes);
	*self_read += (uint64_t)n;
	return found == 3 ? 0 : -ENOTSUP;
}

int iob_cpu_times_ns(int thread, uint64_t *user_ns, uint64_t *sys_ns)
{
	struct rusage ru;
#ifdef RUSAGE_THREAD
	int who = thread ? RUSAGE_THREAD : RUSAGE_SELF;
#else
	int who = RUSAGE_SELF;
	if (thread)
		return -ENOTSUP;
#endif
	if (getrusage(who, &ru) != 0)
		return -errno;
	*user_ns = (uint64_t)ru.ru_utime.tv_sec * 1000000000ull + (uint64_t)ru.ru_utime.tv_usec * 1000ull;
	*sys_ns = (uint64_t)ru.ru_stime.tv_sec * 1000000000ull + (uint64_t)ru.ru_stime.tv_usec * 1000ull;
	return 0;
}
