/*
 * os_win32_paths.c - paths by name (os.h): what a path is, its size, the
 * free space under it, directories made and removed, access, identity, the
 * real path, the volume's facts, holes, direct I/O alignment, a directory's
 * entries, temporary files.  A room of os_win32.c (its map); the twin of
 * os_posix_paths.c.
 */
#include "os_win32_int.h"

static int identity_of(const char *path, int follow, uint64_t *dev, uint64_t *ino, enum iob_path_kind *kind)
{
	HANDLE h = open_meta(path, follow);
	if (h == INVALID_HANDLE_VALUE)
		return last_err();
	BY_HANDLE_FILE_INFORMATION fi;
	memset(&fi, 0, sizeof fi);
	enum iob_path_kind k = kind_of_handle(h, &fi);
	CloseHandle(h);
	if (dev)
		*dev = fi.dwVolumeSerialNumber;
	if (ino)
		*ino = ((uint64_t)fi.nFileIndexHigh << 32) | fi.nFileIndexLow;
	if (kind)
		*kind = k;
	return 0;
}

enum iob_path_kind iob_path_kind(const char *path, int follow)
{
	enum iob_path_kind k = IOB_PATH_MISSING;
	return identity_of(path, follow, NULL, NULL, &k) == 0 ? k : IOB_PATH_MISSING;
}

int iob_blockdev_size(const char *path, int follow, uint64_t *size)
{
	(void)path;
	(void)follow;
	(void)size;
	return -ENOTSUP;
}

int iob_file_size(const char *path, uint64_t *size)
{
	wchar_t *w = wide(path);
	WIN32_FILE_ATTRIBUTE_DATA a;
	if (!w)
		return -errno;
	BOOL ok = GetFileAttributesExW(w, GetFileExInfoStandard, &a);
	free(w);
	if (!ok)
		return last_err();
	*size = ((uint64_t)a.nFileSizeHigh << 32) | a.nFileSizeLow;
	return 0;
}

/* The directory holding path (path itself when it is one), wide. */
static wchar_t *dir_of(const char *path)
{
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", path);
	if (iob_path_kind(buf, 1) != IOB_PATH_DIRECTORY) {
		char *s1 = strrchr(buf, '/'), *s2 = strrchr(buf, '\\');
		char *s = s1 > s2 ? s1 : s2;
		if (s)
			s[1] = '\0';
		else
			snprintf(buf, sizeof buf, ".");
	}
	return wide(buf);
}

int iob_fs_free_bytes(const char *path, uint64_t *bytes)
{
	wchar_t *w = dir_of(path);
	ULARGE_INTEGER avail;
	if (!w)
		return -errno;
	BOOL ok = GetDiskFreeSpaceExW(w, &avail, NULL, NULL);
	free(w);
	if (!ok)
		return last_err();
	*bytes = avail.QuadPart;
	return 0;
}

int iob_mkdir(const char *path)
{
	wchar_t *w = wide(path);
	if (!w)
		return -errno;
	BOOL ok = CreateDirectoryW(w, NULL);
	DWORD e = GetLastError();
	free(w);
	if (ok)
		return 0;
	if ((e == ERROR_ALREADY_EXISTS) && iob_path_kind(path, 1) == IOB_PATH_DIRECTORY)
		return 0;
	return -errno_of(e);
}

/* remove (DeleteFileW or RemoveDirectoryW) on path: 0 or -errno. */
static int remove_wide(const char *path, BOOL(WINAPI *remove)(LPCWSTR))
{
	wchar_t *w = wide(path);
	if (!w)
		return -errno;
	BOOL ok = remove(w);
	free(w);
	return ok ? 0 : last_err();
}

int iob_remove_file(const char *path)
{
	return remove_wide(path, DeleteFileW);
}

int iob_remove_dir(const char *path)
{
	return remove_wide(path, RemoveDirectoryW);
}

/* Writable when a file can really be created there (ACLs decide, not modes). */
int iob_dir_writable(const char *dir)
{
	enum iob_path_kind k = iob_path_kind(dir, 1);
	if (k != IOB_PATH_DIRECTORY)
		return k == IOB_PATH_MISSING ? -ENOENT : -ENOTDIR;
	char probe[4096];
	snprintf(probe, sizeof probe, "%s/.iobench-probe-%lu-%llu", dir, (unsigned long)GetCurrentProcessId(),
		 (unsigned long long)iob_now_ns());
	wchar_t *w = wide(probe);
	if (!w)
		return -errno;
	HANDLE h = CreateFileW(w, GENERIC_WRITE, 0, NULL, CREATE_NEW,
			       FILE_ATTRIBUTE_TEMPORARY | FILE_FLAG_DELETE_ON_CLOSE, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE)
		return last_err();
	CloseHandle(h);
	return 0;
}

int iob_path_access(const char *path, int write)
{
	wchar_t *w = wide(path);
	if (!w)
		return -errno;
	int rc = _waccess(w, write ? 2 : 4);
	free(w);
	return rc == 0 ? 0 : -errno;
}

int iob_path_device(const char *path, uint64_t *dev)
{
	return identity_of(path, 1, dev, NULL, NULL);
}

int iob_file_identity(const char *path, uint64_t *dev, uint64_t *ino, enum iob_path_kind *kind)
{
	return identity_of(path, 1, dev, ino, kind);
}

int iob_stream_identity(FILE *f, uint64_t *dev, uint64_t *ino, enum iob_path_kind *kind)
{
	int fd = _fileno(f);
	HANDLE h = fd < 0 ? INVALID_HANDLE_VALUE : (HANDLE)_get_osfhandle(fd);
	if (h == INVALID_HANDLE_VALUE)
		return -EBADF;
	BY_HANDLE_FILE_INFORMATION fi;
	memset(&fi, 0, sizeof fi);
	*kind = kind_of_handle(h, &fi);
	*dev = fi.dwVolumeSerialNumber;
	*ino = ((uint64_t)fi.nFileIndexHigh << 32) | fi.nFileIndexLow;
	return 0;
}

int iob_real_path(const char *path, char *out, size_t outlen)
{
	HANDLE h = open_meta(path, 1);
	if (h == INVALID_HANDLE_VALUE)
		return last_err();
	wchar_t w[32768];
	DWORD n = GetFinalPathNameByHandleW(h, w, sizeof w / sizeof w[0], FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
	CloseHandle(h);
	if (n == 0 || n >= sizeof w / sizeof w[0])
		return -ENAMETOOLONG;
	const wchar_t *p = w;
	if (wcsncmp(p, L"\\\\?\\UNC\\", 8) == 0) {
		p += 6; /* keep "\\server\share" */
		w[6] = L'\\';
	} else if (wcsncmp(p, L"\\\\?\\", 4) == 0) {
		p += 4;
	}
	return narrow(p, out, outlen, 1);
}

int iob_file_holes(const char *path, uint64_t len, uint64_t *hole_bytes)
{
	(void)path;
	(void)len;
	*hole_bytes = 0;
	return -ENOTSUP;
}

int iob_file_holes_in(const char *path, int (*next)(void *arg, uint64_t *off, uint64_t *len), void *arg,
		      uint64_t *hole_bytes)
{
	(void)path;
	(void)next;
	(void)arg;
	*hole_bytes = 0;
	return -ENOTSUP;
}

int iob_fs_facts(const char *path, char *fstype, size_t fslen, uint64_t *block_size, char *device, size_t devlen)
{
	snprintf(fstype, fslen, "unknown");
	snprintf(device, devlen, "unknown");
	*block_size = 0;
	wchar_t *w = wide(path);
	if (!w)
		return -errno;
	wchar_t vol[MAX_PATH + 1], fs[MAX_PATH + 1];
	BOOL ok = GetVolumePathNameW(w, vol, MAX_PATH);
	free(w);
	if (!ok)
		return last_err();
	/* under wine the volume is a Linux directory: its type is not Windows' to tell */
	if (!iob_wine_version() && GetVolumeInformationW(vol, NULL, 0, NULL, NULL, NULL, fs, MAX_PATH))
		narrow(fs, fstype, fslen, 0);
	narrow(vol, device, devlen, 0);
	DWORD spc, bps, fc, tc;
	if (GetDiskFreeSpaceW(vol, &spc, &bps, &fc, &tc))
		*block_size = (uint64_t)spc * bps;
	return 0;
}

/* The volume's sector size: what FILE_FLAG_NO_BUFFERING needs. */
int iob_dio_alignment(const char *path, uint32_t *align)
{
	wchar_t *w = wide(path);
	if (!w)
		return -errno;
	wchar_t vol[MAX_PATH + 1];
	BOOL ok = GetVolumePathNameW(w, vol, MAX_PATH);
	free(w);
	DWORD spc, bps, fc, tc;
	if (!ok || !GetDiskFreeSpaceW(vol, &spc, &bps, &fc, &tc) || bps == 0)
		return -ENOTSUP;
	*align = bps;
	return 0;
}

int iob_list_dir(const char *dir, void (*fn)(void *arg, const char *name), void *arg)
{
	char pattern[4096];
	snprintf(pattern, sizeof pattern, "%s/*", dir);
	wchar_t *w = wide(pattern);
	if (!w)
		return -errno;
	WIN32_FIND_DATAW fd;
	HANDLE h = FindFirstFileW(w, &fd);
	free(w);
	if (h == INVALID_HANDLE_VALUE) {
		DWORD e = GetLastError();
		return e == ERROR_FILE_NOT_FOUND ? 0 : -errno_of(e);
	}
	do {
		char name[1024];
		if (wcscmp(fd.cFileName, L".") == 0 || wcscmp(fd.cFileName, L"..") == 0)
			continue;
		if (narrow(fd.cFileName, name, sizeof name, 0) == 0)
			fn(arg, name);
	} while (FindNextFileW(h, &fd));
	FindClose(h);
	return 0;
}

int iob_write_temp(const char *text, size_t len, char *path, size_t pathlen)
{
	wchar_t dir[MAX_PATH + 1], file[MAX_PATH + 1];
	const char *tmp = getenv("TMPDIR");
	wchar_t *wt = tmp && *tmp ? wide(tmp) : NULL;
	if (wt) {
		wcsncpy(dir, wt, MAX_PATH);
		dir[MAX_PATH] = 0;
		free(wt);
	} else if (GetTempPathW(MAX_PATH, dir) == 0) {
		return last_err();
	}
	if (GetTempFileNameW(dir, L"iob", 0, file) == 0) /* creates it, empty */
		return last_err();
	HANDLE h = CreateFileW(file, GENERIC_WRITE, 0, NULL, TRUNCATE_EXISTING, FILE_ATTRIBUTE_TEMPORARY, NULL);
	if (h == INVALID_HANDLE_VALUE) {
		int e = last_err();
		DeleteFileW(file);
		return e;
	}
	size_t done = 0;
	while (done < len) {
		DWORD n = 0, want = len - done > (1u << 30) ? (1u << 30) : (DWORD)(len - done);
		if (!WriteFile(h, text + done, want, &n, NULL) || n == 0) {
			int e = last_err();
			CloseHandle(h);
			DeleteFileW(file);
			return e ? e : -EIO;
		}
		done += n;
	}
	CloseHandle(h);
	return narrow(file, path, pathlen, 1);
}
