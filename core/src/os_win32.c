/*
 * os_win32.c - the Windows implementation of iobench/os.h (mingw-w64 build,
 * docs/windows.md).  Paths are UTF-8 everywhere in iobench; every file call
 * here converts them to UTF-16 and uses the wide API.  Paths handed back
 * (iob_exe_dir, iob_real_path) use '/' as separator, which Windows accepts.
 * Where Windows has no such probe (page-cache residency, dropping the cache,
 * per-thread I/O counters) the function says -ENOTSUP, which the run reports
 * as "not measured".
 */
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

static int errno_of(DWORD e)
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

static int last_err(void)
{
	return -errno_of(GetLastError());
}

/* UTF-8 -> UTF-16, malloc'd; NULL (errno set) for invalid UTF-8. */
static wchar_t *wide(const char *s)
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
static int narrow(const wchar_t *w, char *buf, size_t len, int slashes)
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

/* a path in another directory: dir + '/' + name (name absolute: name) */
static int is_absolute(const char *p)
{
	return p[0] == '/' || p[0] == '\\' || (p[0] && p[1] == ':');
}

/* ---- clocks ---- */

static uint64_t qpc_freq(void)
{
	static volatile LONG64 freq;
	if (!freq) {
		LARGE_INTEGER f;
		QueryPerformanceFrequency(&f);
		freq = f.QuadPart > 0 ? f.QuadPart : 1;
	}
	return (uint64_t)freq;
}

uint64_t iob_now_ns(void)
{
	LARGE_INTEGER c;
	QueryPerformanceCounter(&c);
	uint64_t f = qpc_freq(), v = (uint64_t)c.QuadPart;
	return v / f * 1000000000u + v % f * 1000000000u / f;
}

static uint64_t ft_ns(FILETIME ft)
{
	return (((uint64_t)ft.dwHighDateTime << 32) | ft.dwLowDateTime) * 100u;
}

static int times_of(HANDLE h, int thread, uint64_t *user, uint64_t *sys)
{
	FILETIME c, e, k, u;
	BOOL ok = thread ? GetThreadTimes(h, &c, &e, &k, &u) : GetProcessTimes(h, &c, &e, &k, &u);
	if (!ok)
		return last_err();
	*user = ft_ns(u);
	*sys = ft_ns(k);
	return 0;
}

uint64_t iob_clock_ns(enum iob_clock clock)
{
	uint64_t u = 0, s = 0;
	if (clock == IOB_CLOCK_WALL || times_of(GetCurrentProcess(), 0, &u, &s) != 0)
		return iob_now_ns();
	return clock == IOB_CLOCK_USER ? u : clock == IOB_CLOCK_SYSTEM ? s : u + s;
}

uint64_t iob_clock_resolution_ns(enum iob_clock clock)
{
	if (clock == IOB_CLOCK_WALL) {
		uint64_t r = 1000000000u / qpc_freq();
		return r ? r : 1;
	}
	/* CPU times advance by the clock interrupt, not by their 100 ns unit */
	DWORD adj = 0, inc = 0;
	BOOL off = TRUE;
	if (GetSystemTimeAdjustment(&adj, &inc, &off) && inc)
		return (uint64_t)inc * 100u;
	return 100;
}

void *iob_alloc_aligned(size_t alignment, size_t size)
{
	if (alignment < sizeof(void *))
		alignment = sizeof(void *);
	if (size == 0)
		size = alignment;
	return _aligned_malloc(size, alignment);
}

void iob_free_aligned(void *ptr)
{
	_aligned_free(ptr);
}

int iob_mem_populate(void *p, size_t len)
{
	(void)p;
	(void)len;
	return -ENOTSUP; /* the engine touches the pages instead */
}

/* ---- the system ---- */

static int memory_status(MEMORYSTATUSEX *m)
{
	memset(m, 0, sizeof *m);
	m->dwLength = sizeof *m;
	return GlobalMemoryStatusEx(m) ? 0 : -1;
}

uint64_t iob_physical_memory(void)
{
	MEMORYSTATUSEX m;
	return memory_status(&m) == 0 ? m.ullTotalPhys : 0;
}

uint64_t iob_free_memory(void)
{
	MEMORYSTATUSEX m; /* available: free, zeroed and standby (cache) pages */
	return memory_status(&m) == 0 ? m.ullAvailPhys : 0;
}

uint64_t iob_available_memory(void)
{
	return iob_free_memory(); /* ullAvailPhys: free, zeroed and standby pages */
}

void iob_hostname(char *buf, size_t len)
{
	wchar_t w[256];
	DWORD n = sizeof w / sizeof w[0];
	if (len == 0)
		return;
	if (!GetComputerNameExW(ComputerNameDnsHostname, w, &n) || narrow(w, buf, len, 0) != 0)
		snprintf(buf, len, "unknown");
	char *dot = strchr(buf, '.');
	if (dot)
		*dot = '\0';
}

void iob_time_iso8601(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm lt, gt;
	localtime_s(&lt, &now);
	gmtime_s(&gt, &now);
	/* msvcrt's %z is a zone name: the offset is worked out here */
	long days = lt.tm_year != gt.tm_year ? (lt.tm_year > gt.tm_year ? 1 : -1) : lt.tm_yday - gt.tm_yday;
	long off = days * 1440 + (lt.tm_hour - gt.tm_hour) * 60 + (lt.tm_min - gt.tm_min);
	char date[32];
	if (strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &lt) == 0) {
		if (len)
			buf[0] = '\0';
		return;
	}
	long a = off < 0 ? -off : off;
	snprintf(buf, len, "%s%c%02ld%02ld", date, off < 0 ? '-' : '+', a / 60, a % 60);
}

void iob_time_stamp(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;
	localtime_s(&tm, &now);
	if (strftime(buf, len, "%Y%m%d.%H%M%S", &tm) == 0 && len)
		buf[0] = '\0';
}

/* An elevated token is Windows' nearest thing to root. */
int iob_is_root(void)
{
	HANDLE tok;
	TOKEN_ELEVATION el = {0};
	DWORD n = 0;
	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &tok))
		return 0;
	BOOL ok = GetTokenInformation(tok, TokenElevation, &el, sizeof el, &n);
	CloseHandle(tok);
	return ok && el.TokenIsElevated;
}

/* No owners are compared on Windows: every file counts as the user's own. */
uint32_t iob_euid(void)
{
	return iob_is_root() ? 0 : 1000;
}

/* ---- paths ---- */

/* Open path for its attributes (directories too); follow: through links. */
static HANDLE open_meta(const char *path, int follow)
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

static enum iob_path_kind kind_of_handle(HANDLE h, BY_HANDLE_FILE_INFORMATION *info)
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

FILE *iob_fopen(const char *path, const char *mode)
{
	wchar_t wmode[16];
	size_t n = 0;
	for (const char *m = mode; *m && n + 2 < sizeof wmode / sizeof wmode[0]; m++)
		if (*m != 'e') /* close-on-exec: 'N' (not inherited) below */
			wmode[n++] = (wchar_t)*m;
	wmode[n++] = L'N';
	wmode[n] = 0;
	wchar_t *w = wide(path);
	if (!w)
		return NULL;
	FILE *f = _wfopen(w, wmode);
	free(w);
	return f;
}

/* ---- the page cache: Windows has no residency probe nor a drop ---- */

int iob_cache_residency(const char *path, uint64_t *resident_pages, uint64_t *total_pages)
{
	return iob_cache_residency_range(path, 0, 0, resident_pages, total_pages);
}

int iob_cache_unwritten(const char *path, uint64_t *bytes)
{
	(void)path;
	*bytes = 0;
	return -ENOTSUP;
}

int iob_cache_residency_range(const char *path, uint64_t off, uint64_t len, uint64_t *resident_pages,
			      uint64_t *total_pages)
{
	(void)path;
	(void)off;
	(void)len;
	*resident_pages = *total_pages = 0;
	return -ENOTSUP;
}

int iob_cache_evict(const char *path)
{
	(void)path;
	return -ENOTSUP;
}

int iob_cache_drop_range(const char *path, uint64_t off, uint64_t len)
{
	(void)path;
	(void)off;
	(void)len;
	return -ENOTSUP;
}

void iob_sync_all(void)
{
	/* flushing a whole volume needs administrator rights: nothing here */
}

int iob_drop_caches(void)
{
	return -ENOTSUP;
}

int iob_file_holes(const char *path, uint64_t len, uint64_t *hole_bytes)
{
	(void)path;
	(void)len;
	*hole_bytes = 0;
	return -ENOTSUP;
}

/* "Windows 10.0.19045 x86_64", with " (wine 8.0)" under wine. */
void iob_kernel(char *buf, size_t len)
{
	typedef LONG(WINAPI * rtl_version_fn)(OSVERSIONINFOW *);
	HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
	OSVERSIONINFOW v;
	memset(&v, 0, sizeof v);
	v.dwOSVersionInfoSize = sizeof v;
	FARPROC rtl = ntdll ? GetProcAddress(ntdll, "RtlGetVersion") : NULL;
	rtl_version_fn fn;
	memcpy(&fn, &rtl, sizeof fn);
	if (!rtl || fn(&v) != 0)
		v.dwMajorVersion = v.dwMinorVersion = v.dwBuildNumber = 0;
	const char *wine = iob_wine_version();
	snprintf(buf, len, "Windows %lu.%lu.%lu x86_64%s%s%s", (unsigned long)v.dwMajorVersion,
		 (unsigned long)v.dwMinorVersion, (unsigned long)v.dwBuildNumber, wine ? " (wine " : "",
		 wine ? wine : "", wine ? ")" : "");
}

const char *iob_wine_version(void)
{
	typedef const char *(CDECL * wine_version_fn)(void);
	HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
	FARPROC p = ntdll ? GetProcAddress(ntdll, "wine_get_version") : NULL;
	wine_version_fn fn;
	if (!p)
		return NULL;
	memcpy(&fn, &p, sizeof fn);
	return fn();
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

/* ---- streams and descriptors ---- */

long iob_getline(char **line, size_t *cap, FILE *f)
{
	size_t n = 0;
	int c;
	if (!*line || *cap < 2) {
		char *p = realloc(*line, 128);
		if (!p)
			return -1;
		*line = p;
		*cap = 128;
	}
	while ((c = fgetc(f)) != EOF) {
		if (n + 2 > *cap) {
			char *p = realloc(*line, *cap * 2);
			if (!p)
				return -1;
			*line = p;
			*cap *= 2;
		}
		(*line)[n++] = (char)c;
		if (c == '\n')
			break;
	}
	(*line)[n] = '\0';
	return n == 0 ? -1 : (long)n;
}

#ifndef ENABLE_VIRTUAL_TERMINAL_PROCESSING
#define ENABLE_VIRTUAL_TERMINAL_PROCESSING 0x0004
#endif

/* A console also gets virtual-terminal processing turned on (Windows 10 and
 * later), so the progress line's "\r" and erase-to-end work there. */
int iob_stream_is_pipe(FILE *f)
{
	(void)f;
	return 0;
}

int iob_stream_reader_gone(FILE *f, int wake_fd, int timeout_ms)
{
	(void)f;
	(void)wake_fd;
	(void)timeout_ms;
	return 0;
}

int iob_wake_pipe(int fds[2])
{
	fds[0] = fds[1] = -1;
	return -ENOTSUP;
}

void iob_wake_pipe_close(int fds[2])
{
	(void)fds;
}

int iob_std_fds_reopen(void)
{
	return 0;
}

int iob_is_terminal(FILE *f)
{
	int fd = _fileno(f);
	if (!_isatty(fd))
		return 0;
	HANDLE h = (HANDLE)_get_osfhandle(fd);
	DWORD mode;
	if (h != INVALID_HANDLE_VALUE && GetConsoleMode(h, &mode) && !(mode & ENABLE_VIRTUAL_TERMINAL_PROCESSING))
		SetConsoleMode(h, mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING);
	return 1;
}

int iob_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len) {
		unsigned chunk = len > (1u << 30) ? (1u << 30) : (unsigned)len;
		int n = _write(fd, p, chunk);
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
	return _fileno(f);
}

/* The tools caveats.c asks (Linux utilities) do not exist here. */
int iob_run_quiet(char *const argv[])
{
	(void)argv;
	return -ENOTSUP;
}

void iob_sleep_ns(uint64_t ns, volatile sig_atomic_t *stop)
{
	uint64_t end = iob_now_ns() + ns;
	for (;;) {
		uint64_t now = iob_now_ns();
		if (now >= end || (stop && *stop))
			return;
		uint64_t ms = (end - now) / 1000000u;
		Sleep(ms > 10 ? 10 : ms ? (DWORD)ms : 0);
	}
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
	char path[4096];
	int rc = at_path(at, name, path, sizeof path);
	if (rc != 0)
		return rc;
	wchar_t *w = wide(path);
	if (!w)
		return -EINVAL;
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
	char path[4096];
	int rc = at_path(at, name, path, sizeof path);
	if (rc != 0)
		return rc;
	wchar_t *w = wide(path);
	if (!w)
		return -errno;
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

/* Windows counts a process's I/O (GetProcessIoCounters) but not the way
 * /proc/self/io does: not used. */
int iob_proc_io(uint64_t *rchar, uint64_t *wchar, uint64_t *read_bytes, uint64_t *write_bytes)
{
	(void)rchar;
	(void)wchar;
	(void)read_bytes;
	(void)write_bytes;
	return -ENOTSUP;
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

/* main's argv is in the ANSI code page: rebuild it from the UTF-16 command
 * line.  The strings live as long as the process. */
void iob_utf8_args(int *argc, char ***argv)
{
	int n = 0;
	wchar_t **w = CommandLineToArgvW(GetCommandLineW(), &n);
	if (!w || n <= 0)
		return;
	char **out = calloc((size_t)n + 1, sizeof *out);
	for (int i = 0; out && i < n; i++) {
		int len = WideCharToMultiByte(CP_UTF8, 0, w[i], -1, NULL, 0, NULL, NULL);
		out[i] = len > 0 ? malloc((size_t)len) : NULL;
		if (!out[i]) {
			out = NULL; /* keep the original argv (a leak of what was made, once) */
			break;
		}
		WideCharToMultiByte(CP_UTF8, 0, w[i], -1, out[i], len, NULL, NULL);
	}
	LocalFree(w);
	if (!out)
		return;
	*argc = n;
	*argv = out;
}

/* ---- Ctrl-C, Ctrl-Break, closing the console ---- */

static volatile sig_atomic_t *stop_flag;
static volatile LONG stop_seen;

static BOOL WINAPI on_console_event(DWORD ev)
{
	int sig;
	switch (ev) {
	case CTRL_C_EVENT:
		sig = SIGINT; /* 2: exit 130 as on Linux */
		break;
	case CTRL_BREAK_EVENT:
	case CTRL_SHUTDOWN_EVENT:
		sig = SIGTERM; /* 15: exit 143 */
		break;
	case CTRL_CLOSE_EVENT:
	case CTRL_LOGOFF_EVENT:
		sig = 1; /* SIGHUP: exit 129 */
		break;
	default:
		return FALSE;
	}
	/* a second event ends the process the default way */
	if (InterlockedExchange(&stop_seen, 1))
		return FALSE;
	if (stop_flag && !*stop_flag)
		*stop_flag = sig;
	return TRUE;
}

void iob_install_stop_handlers(volatile sig_atomic_t *flag)
{
	stop_flag = flag;
	SetConsoleCtrlHandler(on_console_event, TRUE);
}

/* ---- the per-I/O clock: QueryPerformanceCounter (iob_now_ns), no TSC ---- */

int iob_ticks_tsc;

void iob_ticks_init(void)
{
	iob_ticks_tsc = 0;
}

/* ---- threads ---- */

struct iob_thread {
	HANDLE h;
	void (*fn)(void *);
	void *arg;
};

static unsigned __stdcall thread_main(void *p)
{
	struct iob_thread *t = p;
	t->fn(t->arg);
	return 0;
}

int iob_thread_start(struct iob_thread **out, void (*fn)(void *arg), void *arg)
{
	struct iob_thread *t = calloc(1, sizeof *t);
	if (!t)
		return -ENOMEM;
	t->fn = fn;
	t->arg = arg;
	uintptr_t h = _beginthreadex(NULL, 0, thread_main, t, 0, NULL);
	if (h == 0) {
		int e = errno;
		free(t);
		return -(e ? e : EAGAIN);
	}
	t->h = (HANDLE)h;
	*out = t;
	return 0;
}

void iob_thread_join(struct iob_thread *t)
{
	if (!t)
		return;
	WaitForSingleObject(t->h, INFINITE);
	CloseHandle(t->h);
	free(t);
}

struct iob_barrier {
	SRWLOCK lock;
	CONDITION_VARIABLE all_here;
	unsigned count, here;
	unsigned long round;
};

int iob_barrier_init(struct iob_barrier **out, unsigned count)
{
	struct iob_barrier *b = calloc(1, sizeof *b);
	if (!b)
		return -ENOMEM;
	InitializeSRWLock(&b->lock);
	InitializeConditionVariable(&b->all_here);
	b->count = count ? count : 1;
	*out = b;
	return 0;
}

static int barrier_arrive_locked(struct iob_barrier *b)
{
	if (++b->here < b->count)
		return 0;
	b->here = 0;
	b->round++;
	WakeAllConditionVariable(&b->all_here);
	return 1;
}

void iob_barrier_wait(struct iob_barrier *b)
{
	AcquireSRWLockExclusive(&b->lock);
	unsigned long round = b->round;
	if (!barrier_arrive_locked(b))
		while (b->round == round)
			SleepConditionVariableSRW(&b->all_here, &b->lock, INFINITE, 0);
	ReleaseSRWLockExclusive(&b->lock);
}

void iob_barrier_arrive(struct iob_barrier *b)
{
	AcquireSRWLockExclusive(&b->lock);
	barrier_arrive_locked(b);
	ReleaseSRWLockExclusive(&b->lock);
}

void iob_barrier_destroy(struct iob_barrier *b)
{
	free(b);
}

static SRWLOCK once_lock = SRWLOCK_INIT;

void iob_once(int *flag, void (*fn)(void))
{
	if (__atomic_load_n(flag, __ATOMIC_ACQUIRE))
		return;
	AcquireSRWLockExclusive(&once_lock);
	if (!__atomic_load_n(flag, __ATOMIC_RELAXED)) {
		fn();
		__atomic_store_n(flag, 1, __ATOMIC_RELEASE);
	}
	ReleaseSRWLockExclusive(&once_lock);
}

int iob_proc_thread_io(uint64_t *rchar, uint64_t *wchar, uint64_t *read_bytes, uint64_t *write_bytes)
{
	(void)rchar;
	(void)wchar;
	(void)read_bytes;
	(void)write_bytes;
	return -ENOTSUP;
}

int iob_cpu_times_ns(int thread, uint64_t *user_ns, uint64_t *sys_ns)
{
	return times_of(thread ? GetCurrentThread() : GetCurrentProcess(), thread, user_ns, sys_ns);
}
