/*
 * os_win32_open.c - what is held open (os.h): directories and plugin files
 * in the slot table and the *_at calls on them, plugins loaded.  A room of
 * os_win32.c (its map); the twin of os_posix_open.c.
 */
#include "os_win32_int.h"

/* a path in another directory: dir + '/' + name (name absolute: name) */
static int is_absolute(const char *p)
{
	return p[0] == '/' || p[0] == '\\' || (p[0] && p[1] == ':');
}

/* ---- directories and plugin files held open ----
 * A descriptor here is a slot in a table of handles with the path they were
 * opened under.  Directories are held with every share mode, so a run can
 * still remove what it made; the *_at calls work on the slot's path (Windows
 * has no openat).  A plugin file is
 * held with FILE_SHARE_READ only: nobody can change or replace it between the
 * check and LoadLibrary, which loads it by the same path. */
#define SLOT_BASE 1000
#define SLOTS 512
static struct slot {
	HANDLE h;
	char *path;
} slots[SLOTS];

static SRWLOCK slots_lock = SRWLOCK_INIT;

static int slot_new(HANDLE h, const char *path)
{
	char *copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	AcquireSRWLockExclusive(&slots_lock);
	for (int i = 0; i < SLOTS; i++)
		if (!slots[i].path) {
			slots[i].h = h;
			slots[i].path = copy;
			ReleaseSRWLockExclusive(&slots_lock);
			return SLOT_BASE + i;
		}
	ReleaseSRWLockExclusive(&slots_lock);
	free(copy);
	return -EMFILE;
}

/* the path of slot fd (a copy in buf), or -EBADF */
static int slot_path(int fd, char *buf, size_t len)
{
	int rc = -EBADF;
	AcquireSRWLockShared(&slots_lock);
	if (fd >= SLOT_BASE && fd < SLOT_BASE + SLOTS && slots[fd - SLOT_BASE].path) {
		snprintf(buf, len, "%s", slots[fd - SLOT_BASE].path);
		rc = 0;
	}
	ReleaseSRWLockShared(&slots_lock);
	return rc;
}

int iob_fd_contains(int fd, const void *needle, size_t n)
{
	(void)fd;
	(void)needle;
	(void)n;
	return 0; /* (no trial child on Windows either: nothing to spare) */
}

void iob_fd_close(int fd)
{
	if (fd < SLOT_BASE || fd >= SLOT_BASE + SLOTS)
		return;
	AcquireSRWLockExclusive(&slots_lock);
	struct slot s = slots[fd - SLOT_BASE];
	slots[fd - SLOT_BASE].path = NULL;
	slots[fd - SLOT_BASE].h = NULL;
	ReleaseSRWLockExclusive(&slots_lock);
	if (s.h && s.h != INVALID_HANDLE_VALUE)
		CloseHandle(s.h);
	free(s.path);
}

/* name relative to the slot `at` (or the current directory) into out */
static int at_path(int at, const char *name, char *out, size_t outlen)
{
	char dir[4096];
	if (is_absolute(name) || at == IOB_AT_CWD) {
		snprintf(out, outlen, "%s", name);
		return 0;
	}
	int rc = slot_path(at, dir, sizeof dir);
	if (rc != 0)
		return rc;
	int n = snprintf(out, outlen, "%s/%s", dir, name);
	return n < 0 || (size_t)n >= outlen ? -ENAMETOOLONG : 0;
}

/* at_path as UTF-16 in *w (malloc'd); 0, at_path's error, or -errno of
 * wide (-EINVAL: name is not UTF-8; -ENOMEM). */
static int at_wide(int at, const char *name, wchar_t **w)
{
	char path[4096];
	int rc = at_path(at, name, path, sizeof path);
	if (rc != 0)
		return rc;
	*w = wide(path);
	return *w ? 0 : -errno;
}

static void fill_identity(HANDLE h, struct iob_identity *id)
{
	BY_HANDLE_FILE_INFORMATION fi;
	memset(&fi, 0, sizeof fi);
	id->kind = kind_of_handle(h, &fi);
	id->dev = fi.dwVolumeSerialNumber;
	id->ino = ((uint64_t)fi.nFileIndexHigh << 32) | fi.nFileIndexLow;
	id->uid = iob_euid();
}

int iob_dir_open_at(int at, const char *name, int follow, struct iob_identity *id)
{
	char path[4096];
	int rc = at_path(at, name, path, sizeof path);
	if (rc != 0)
		return rc;
	HANDLE h = open_meta(path, follow);
	if (h == INVALID_HANDLE_VALUE)
		return last_err();
	struct iob_identity me;
	fill_identity(h, &me);
	if (me.kind != IOB_PATH_DIRECTORY) {
		CloseHandle(h);
		return me.kind == IOB_PATH_SYMLINK ? -ELOOP : -ENOTDIR;
	}
	if (id)
		*id = me;
	rc = slot_new(h, path);
	if (rc < 0)
		CloseHandle(h);
	return rc;
}

int iob_out_open_at(int at, const char *name, int append, int *made, struct iob_identity *id)
{
	wchar_t *w;
	int rc = at_wide(at, name, &w);
	if (rc != 0)
		return rc;
	/* a reparse point (a link) is opened itself, never followed, and refused */
	DWORD access = GENERIC_WRITE | (append ? GENERIC_READ : 0);
	DWORD share = FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE;
	HANDLE h = CreateFileW(w, access, share, NULL, CREATE_NEW, FILE_FLAG_OPEN_REPARSE_POINT, NULL);
	*made = h != INVALID_HANDLE_VALUE;
	if (h == INVALID_HANDLE_VALUE && GetLastError() == ERROR_FILE_EXISTS)
		h = CreateFileW(w, access, share, NULL, OPEN_EXISTING, FILE_FLAG_OPEN_REPARSE_POINT, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE)
		return last_err();
	struct iob_identity me;
	fill_identity(h, &me);
	if (me.kind == IOB_PATH_SYMLINK) {
		CloseHandle(h);
		return -ELOOP;
	}
	int fd = _open_osfhandle((intptr_t)h, (append ? _O_APPEND : 0) | _O_BINARY | _O_NOINHERIT);
	if (fd < 0) {
		CloseHandle(h);
		return -EMFILE;
	}
	if (id)
		*id = me;
	return fd;
}

int iob_fd_truncate(int fd)
{
	return _chsize_s(fd, 0) == 0 ? 0 : -errno;
}

long iob_fd_read_head(int fd, char *buf, size_t len)
{
	if (_lseeki64(fd, 0, SEEK_SET) < 0)
		return -errno;
	int n = _read(fd, buf, (unsigned)(len > 65536 ? 65536 : len));
	return n < 0 ? -errno : (long)n;
}

FILE *iob_fd_stream(int fd, const char *mode)
{
	return _fdopen(fd, mode);
}

int iob_mkdir_at(int at, const char *name)
{
	wchar_t *w;
	int rc = at_wide(at, name, &w);
	if (rc != 0)
		return rc;
	BOOL ok = CreateDirectoryW(w, NULL);
	free(w);
	return ok ? 0 : last_err();
}

int iob_stat_at(int at, const char *name, struct iob_identity *id)
{
	char path[4096];
	int rc = at_path(at, name, path, sizeof path);
	if (rc != 0)
		return rc;
	HANDLE h = open_meta(path, 0);
	if (h == INVALID_HANDLE_VALUE)
		return last_err();
	if (id)
		fill_identity(h, id);
	CloseHandle(h);
	return 0;
}

int iob_remove_at(int at, const char *name, int dir)
{
	char path[4096];
	int rc = at_path(at, name, path, sizeof path);
	if (rc != 0)
		return rc;
	return dir ? iob_remove_dir(path) : iob_remove_file(path);
}

/* Windows has no path that leads through an open handle: only the path
 * remains (docs/windows.md). */
int iob_path_of_fd(int fd, const char *name, char *out, size_t outlen)
{
	(void)fd;
	(void)name;
	(void)out;
	(void)outlen;
	return -ENOTSUP;
}

/* ---- plugins ---- */

void *iob_dl_open(const char *path, char *err, size_t errlen)
{
	wchar_t *w = wide(path);
	if (!w) {
		snprintf(err, errlen, "not a UTF-8 path");
		return NULL;
	}
	HMODULE h = LoadLibraryExW(w, NULL, LOAD_WITH_ALTERED_SEARCH_PATH);
	DWORD e = GetLastError();
	free(w);
	if (!h && err && errlen) {
		wchar_t msg[512];
		if (FormatMessageW(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, e, 0, msg,
				   sizeof msg / sizeof msg[0], NULL) &&
		    narrow(msg, err, errlen, 0) == 0)
			err[strcspn(err, "\r\n")] = '\0';
		else
			snprintf(err, errlen, "LoadLibrary error %lu", (unsigned long)e);
	}
	return (void *)h;
}

void *iob_dl_sym(void *handle, const char *name)
{
	FARPROC p = GetProcAddress((HMODULE)handle, name);
	void *v;
	memcpy(&v, &p, sizeof v);
	return v;
}

void iob_dl_close(void *handle)
{
	if (handle)
		FreeLibrary((HMODULE)handle);
}

void iob_exe_dir(char *buf, size_t len)
{
	wchar_t w[32768];
	if (len == 0)
		return;
	buf[0] = '\0';
	DWORD n = GetModuleFileNameW(NULL, w, sizeof w / sizeof w[0]);
	if (n == 0 || n >= sizeof w / sizeof w[0])
		return;
	if (narrow(w, buf, len, 1) != 0)
		return;
	char *slash = strrchr(buf, '/');
	if (slash)
		*slash = '\0';
	else
		buf[0] = '\0';
}

/* Trust on Windows: a plugin must be a real file (no reparse point) in a
 * real directory; owners and ACLs are not checked (docs/windows.md). */
static int open_plugin_handle(const char *path, int dir, HANDLE *out, char *why, size_t whylen)
{
	wchar_t *w = wide(path);
	if (!w) {
		snprintf(why, whylen, "%s: not a UTF-8 path", path);
		return -EINVAL;
	}
	HANDLE h = CreateFileW(w, dir ? FILE_READ_ATTRIBUTES : GENERIC_READ,
			       dir ? FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE : FILE_SHARE_READ, NULL,
			       OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
	DWORD e = GetLastError();
	free(w);
	if (h == INVALID_HANDLE_VALUE) {
		snprintf(why, whylen, "%s: %s", path, e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND
							      ? "no such file"
							      : strerror(errno_of(e)));
		return -errno_of(e);
	}
	struct iob_identity id;
	fill_identity(h, &id);
	if (id.kind == IOB_PATH_SYMLINK) {
		CloseHandle(h);
		snprintf(why, whylen, "%s is a symbolic link or junction; plugins are loaded only from real %s", path,
			 dir ? "directories" : "files (name the file it points to)");
		return -ELOOP;
	}
	if (id.kind != (dir ? IOB_PATH_DIRECTORY : IOB_PATH_REGULAR)) {
		CloseHandle(h);
		snprintf(why, whylen, "%s is not a %s; refusing to load %s", path, dir ? "directory" : "regular file",
			 dir ? "plugins from it" : "it");
		return dir ? -ENOTDIR : -EINVAL;
	}
	*out = h;
	return 0;
}

int iob_check_trusted(const char *path, char *why, size_t whylen)
{
	HANDLE h;
	int rc = open_plugin_handle(path, iob_path_kind(path, 1) == IOB_PATH_DIRECTORY, &h, why, whylen);
	if (rc == 0)
		CloseHandle(h);
	return rc;
}

int iob_plugin_open(const char *dir, const char *name, char *why, size_t whylen)
{
	HANDLE dh, fh;
	char path[4096 + 256];
	int rc = open_plugin_handle(dir, 1, &dh, why, whylen);
	if (rc != 0)
		return rc;
	CloseHandle(dh);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	rc = open_plugin_handle(path, 0, &fh, why, whylen);
	if (rc != 0)
		return rc;
	rc = slot_new(fh, path);
	if (rc < 0) {
		CloseHandle(fh);
		snprintf(why, whylen, "%s: %s", path, strerror(-rc));
	}
	return rc;
}

void *iob_dl_open_fd(int *fd, char *err, size_t errlen)
{
	char path[4096 + 256];
	if (slot_path(*fd, path, sizeof path) != 0) {
		snprintf(err, errlen, "not an open plugin file");
		return NULL;
	}
	return iob_dl_open(path, err, errlen);
}

/* code lives in executable pages */
int iob_dl_sym_is_code(void *sym)
{
	MEMORY_BASIC_INFORMATION mi;
	if (!sym || VirtualQuery(sym, &mi, sizeof mi) == 0)
		return -ENOTSUP;
	DWORD x = PAGE_EXECUTE | PAGE_EXECUTE_READ | PAGE_EXECUTE_READWRITE | PAGE_EXECUTE_WRITECOPY;
	return (mi.Protect & x) != 0;
}

/* No fork on Windows: no child can be started, so the loader loads in
 * this process (its documented fallback). */
int iob_run_isolated(void (*fn)(void *arg, void *out, size_t outlen), void *arg, void *out, size_t outlen,
		     char *why, size_t whylen)
{
	(void)fn;
	(void)arg;
	(void)out;
	(void)outlen;
	snprintf(why, whylen, "no child processes on Windows");
	return -ENOSYS;
}
