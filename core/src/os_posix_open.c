/*
 * os_posix_open.c - what is held open (os.h): directories held open and the
 * *_at calls on them (runner_files.c, ledger.c), plugin files opened on
 * checked descriptors and loaded (loader.c), the isolated probe.  A room of
 * os_posix.c (its map).
 */
#include "os_posix_int.h"

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
#ifdef __linux__
	/* ext4 marks a file truncated to 0 (auto_da_alloc) and starts writing
	 * it back at its next close, so that a rewrite survives a crash; the
	 * next run's truncation of the same output then waited for that
	 * writeback (0.4-3.6 ms, at times 40 ms, in bigread's JSON file run
	 * after run).  The mark goes at the close of any description of the
	 * file: one opened and closed here, while the file is still empty,
	 * takes it with nothing to write; the run's output is then written back
	 * as any other (by the kernel's periodic writeback, or an fsync).  A
	 * file this process may not read keeps the mark: nothing else changes. */
	char self[64];
	snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
	int other = open(self, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (other >= 0)
		close(other);
#endif
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
static int walk_dir_checked(char *real, char *why, size_t whylen);

/* An absolute path as realpath writes one (no empty, "." or ".." component,
 * no "/" at its end): its walk below meets the same directories as its
 * realpath's, unless one of them is a link, which the walk refuses */
static int plain_absolute(const char *p, size_t len)
{
	if (p[0] != '/' || len >= PATH_MAX || (len > 1 && p[len - 1] == '/'))
		return 0;
	for (const char *c = p; *c;) {
		while (*c == '/')
			c++;
		size_t n = strcspn(c, "/");
		if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return 0;
		c += n;
		if (*c == '/' && c[1] == '/')
			return 0;
	}
	return 1;
}

static int open_dir_checked(const char *dir, char *why, size_t whylen)
{
	char real[PATH_MAX];
	size_t len = strlen(dir);
	/* the loader's directories are realpaths already (loader.c, add_dir):
	 * walked as they are, with no second realpath (a readlink a component);
	 * where that walk fails (a link on the way, a check refused), the
	 * realpath's walk decides and says why, as before */
	if (plain_absolute(dir, len)) {
		memcpy(real, dir, len + 1);
		int fd = walk_dir_checked(real, why, whylen);
		if (fd >= 0)
			return fd;
	}
	if (!realpath(dir, real)) {
		int e = errno;
		snprintf(why, whylen, "%s: %s", dir, e == ENOENT ? "no such file or directory" : strerror(e));
		return -e;
	}
	return walk_dir_checked(real, why, whylen);
}

/* The walk from / of the canonical path `real` (cut up in place). */
static int walk_dir_checked(char *real, char *why, size_t whylen)
{
	char shown[PATH_MAX];
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
/* Make `walked` the checked directory dir: walked to and checked now when
 * it is another (or always, with fresh), kept when it is the same. */
static int walk_to(const char *dir, int fresh, char *why, size_t whylen)
{
	if (!fresh && walked.fd >= 0 && strcmp(walked.dir, dir) == 0)
		return 0;
	int dfd = open_dir_checked(dir, why, whylen);
	if (dfd < 0)
		return dfd;
	if (walked.fd >= 0)
		close(walked.fd);
	walked.fd = dfd;
	snprintf(walked.dir, sizeof walked.dir, "%s", dir);
	return 0;
}

static int open_checked(const char *dir, const char *name, char *why, size_t whylen)
{
	if (!name)
		return open_dir_checked(dir, why, whylen);
	int rc = walk_to(dir, 0, why, whylen);
	if (rc != 0)
		return rc;
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
	rc = check_trusted_fd(fd, shown, 1, why, whylen);
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
		/* checked now, and kept as the walked directory: the loader
		 * checks a plugin directory, then opens its candidates in it
		 * (open_checked), which walked to it a second time (25 calls) */
		return walk_to(path, 1, why, whylen);
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

/* ------------------------------------------------------------------------ */
/* Plugin loading on checked descriptors (loader.c).                        */

int iob_plugin_open(const char *dir, const char *name, char *why, size_t whylen)
{
	return open_checked(dir, name, why, whylen);
}

/* dl_iterate_phdr: nonzero (and the walk stops) at an object loaded under name arg. */
static int loaded_as(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	return info->dlpi_name && strcmp(info->dlpi_name, arg) == 0;
}

void *iob_dl_open_fd(int *fd, char *err, size_t errlen)
{
	char name[64];
	snprintf(name, sizeof name, "/proc/self/fd/%d", *fd);
	/* The dynamic linker knows objects by the name they were opened under.
	 * One still mapped under this name (a plugin that could not be unloaded)
	 * would be handed back instead of ours: move to another number then. */
	if (dl_iterate_phdr(loaded_as, name)) { /* not dlopen(RTLD_NOLOAD): it opened and read the file */
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
