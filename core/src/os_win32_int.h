/*
 * os_win32_int.h - what os_win32.c's rooms share (the map at os_win32.c's
 * top): the system headers, errors, UTF-8 and UTF-16, a path's attributes.
 */
#ifndef IOB_OS_WIN32_INT_H
#define IOB_OS_WIN32_INT_H

#include "iobench/os.h"
#include "iobench/ticks.h"

#include <windows.h>
#include <shellapi.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <limits.h>
#include <process.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- errors and strings ---- */

static inline int errno_of(DWORD e)
{
	switch (e) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
	case ERROR_INVALID_DRIVE:
	case ERROR_BAD_NETPATH:
	case ERROR_BAD_NET_NAME:
		return ENOENT;
	case ERROR_ACCESS_DENIED:
	case ERROR_SHARING_VIOLATION:
	case ERROR_LOCK_VIOLATION:
	case ERROR_WRITE_PROTECT:
		return EACCES;
	case ERROR_ALREADY_EXISTS:
	case ERROR_FILE_EXISTS:
		return EEXIST;
	case ERROR_DIR_NOT_EMPTY:
		return ENOTEMPTY;
	case ERROR_DIRECTORY:
		return ENOTDIR;
	case ERROR_NOT_ENOUGH_MEMORY:
	case ERROR_OUTOFMEMORY:
		return ENOMEM;
	case ERROR_DISK_FULL:
	case ERROR_HANDLE_DISK_FULL:
		return ENOSPC;
	case ERROR_FILENAME_EXCED_RANGE:
	case ERROR_BUFFER_OVERFLOW:
		return ENAMETOOLONG;
	case ERROR_NOT_SUPPORTED:
	case ERROR_CALL_NOT_IMPLEMENTED:
		return ENOTSUP;
	case ERROR_INVALID_NAME:
	case ERROR_INVALID_PARAMETER:
	default:
		return EINVAL;
	}
}

static inline int last_err(void)
{
	return -errno_of(GetLastError());
}

/* UTF-8 -> UTF-16, malloc'd; NULL (errno set) for invalid UTF-8. */
static inline wchar_t *wide(const char *s)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
	if (n <= 0) {
		errno = EINVAL;
		return NULL;
	}
	wchar_t *w = malloc((size_t)n * sizeof *w);
	if (!w) {
		errno = ENOMEM;
		return NULL;
	}
	MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n);
	return w;
}

/* UTF-16 -> UTF-8 into buf; 0 or -ENAMETOOLONG.  slashes != 0 turns '\' into '/'. */
static inline int narrow(const wchar_t *w, char *buf, size_t len, int slashes)
{
	if (len == 0)
		return -ENAMETOOLONG;
	int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, buf, len > INT_MAX ? INT_MAX : (int)len, NULL, NULL);
	if (n <= 0) {
		buf[0] = '\0';
		return -ENAMETOOLONG;
	}
	if (slashes)
		for (char *p = buf; *p; p++)
			if (*p == '\\')
				*p = '/';
	return 0;
}

/* ---- paths ---- */

/* Open path for its attributes (directories too); follow: through links. */
static inline HANDLE open_meta(const char *path, int follow)
{
	wchar_t *w = wide(path);
	if (!w) {
		SetLastError(ERROR_INVALID_NAME);
		return INVALID_HANDLE_VALUE;
	}
	HANDLE h = CreateFileW(w, FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
			       OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS | (follow ? 0 : FILE_FLAG_OPEN_REPARSE_POINT),
			       NULL);
	free(w);
	return h;
}

static inline enum iob_path_kind kind_of_handle(HANDLE h, BY_HANDLE_FILE_INFORMATION *info)
{
	DWORD type = GetFileType(h);
	if (type == FILE_TYPE_CHAR)
		return IOB_PATH_CHARDEV;
	if (type == FILE_TYPE_PIPE)
		return IOB_PATH_OTHER;
	BY_HANDLE_FILE_INFORMATION fi;
	if (!info)
		info = &fi;
	if (!GetFileInformationByHandle(h, info))
		return IOB_PATH_BLOCKDEV; /* a volume or disk (\\.\X:, \\.\PhysicalDriveN) */
	if (info->dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)
		return IOB_PATH_SYMLINK;
	if (info->dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)
		return IOB_PATH_DIRECTORY;
	return IOB_PATH_REGULAR;
}

#endif
