/* Test-only POSIX shims for building the conformance suite with mingw-w64
 * (tests/windows/CMakeLists.txt puts this directory on its include path, so
 * the suite's own #include <sys/wait.h> brings them in).  The suite forks
 * only for the stdin (IOB_CAP_STREAM) and io_uring tests, which skip for the
 * Windows backends before reaching fork.  Buffers from posix_memalign come
 * from _aligned_malloc, so free() is routed through a table that knows them. */
#ifndef IOB_TEST_COMPAT_SYS_WAIT_H
#define IOB_TEST_COMPAT_SYS_WAIT_H

#include <direct.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/stat.h>
#include <windows.h>

#define WIFEXITED(s) (((s) & 0x7f) == 0)
#define WEXITSTATUS(s) (((s) >> 8) & 0xff)

static inline pid_t fork(void)
{
	errno = ENOSYS;
	return -1;
}

static inline pid_t waitpid(pid_t pid, int *status, int options)
{
	(void)pid;
	(void)options;
	if (status)
		*status = 0;
	errno = ECHILD;
	return -1;
}

static inline int pipe(int fd[2])
{
	return _pipe(fd, 65536, _O_BINARY);
}

static inline char *mkdtemp(char *tmpl)
{
	if (!_mktemp(tmpl) || _mkdir(tmpl) != 0)
		return NULL;
	return tmpl;
}

static inline char *realpath(const char *path, char *resolved)
{
	char *r = _fullpath(resolved, path, 4096);
	if (r)
		for (char *p = r; *p; p++)
			if (*p == '\\')
				*p = '/';
	return r;
}

static inline int symlink(const char *target, const char *link_path)
{
	wchar_t t[4096], l[4096];
	if (!MultiByteToWideChar(CP_UTF8, 0, target, -1, t, 4096) ||
	    !MultiByteToWideChar(CP_UTF8, 0, link_path, -1, l, 4096))
		return -1;
	for (wchar_t *p = t; *p; p++)
		if (*p == L'/')
			*p = L'\\';
	/* wine 8 says yes and makes nothing: believe only what is there */
	if (!CreateSymbolicLinkW(l, t, SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE) ||
	    GetFileAttributesW(l) == INVALID_FILE_ATTRIBUTES) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

static inline int lstat(const char *path, struct stat *st)
{
	wchar_t w[4096];
	if (!MultiByteToWideChar(CP_UTF8, 0, path, -1, w, 4096) || GetFileAttributesW(w) == INVALID_FILE_ATTRIBUTES) {
		errno = ENOENT;
		return -1;
	}
	return stat(path, st);
}

static inline ssize_t pread(int fd, void *buf, size_t len, off_t off)
{
	if (_lseeki64(fd, off, SEEK_SET) < 0)
		return -1;
	return _read(fd, buf, (unsigned)len);
}

static inline ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	if (_lseeki64(fd, off, SEEK_SET) < 0)
		return -1;
	return _write(fd, buf, (unsigned)len);
}

static inline int fsync(int fd)
{
	return _commit(fd);
}

/* files are binary, as on POSIX (the CRT's default is text mode) */
__attribute__((constructor)) static void iob_compat_binary_mode(void)
{
	_fmode = _O_BINARY;
}

#define IOB_COMPAT_ALIGNED_MAX 4096
static void *iob_compat_aligned[IOB_COMPAT_ALIGNED_MAX];

static inline int posix_memalign(void **out, size_t align, size_t size)
{
	void *p = _aligned_malloc(size ? size : 1, align);
	if (!p)
		return ENOMEM;
	for (size_t i = 0; i < IOB_COMPAT_ALIGNED_MAX; i++)
		if (!iob_compat_aligned[i]) {
			iob_compat_aligned[i] = p;
			*out = p;
			return 0;
		}
	_aligned_free(p);
	return ENOMEM;
}

static inline void iob_compat_free(void *p)
{
	for (size_t i = 0; p && i < IOB_COMPAT_ALIGNED_MAX; i++)
		if (iob_compat_aligned[i] == p) {
			iob_compat_aligned[i] = NULL;
			_aligned_free(p);
			return;
		}
	(free)(p);
}
#define free(p) iob_compat_free(p)

#endif
