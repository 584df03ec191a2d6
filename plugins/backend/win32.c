/*
 * win32.c - the "win32" backend (Windows only): a file HANDLE from
 * CreateFileW, driven with ReadFile/WriteFile at OVERLAPPED offsets,
 * FlushFileBuffers (sync) and SetFilePointerEx + SetEndOfFile (truncate).
 * Built a second time as "direct" (IOB_WIN32_AS_DIRECT): unbuffered plus
 * write-through always on, as the Win32 io_profile -b did.
 *
 * Backend options (backend_options = k=v,...):
 *   unbuffered=0|1     FILE_FLAG_NO_BUFFERING: offsets, lengths and buffer
 *                      addresses must be multiples of the volume's sector
 *                      size (GetDiskFreeSpaceW), reported by info() as
 *                      io_align and mem_align.  The backend itself refuses a
 *                      misaligned request with -EINVAL and one log line,
 *                      before Windows sees it: wine ignores the flag and would
 *                      serve it, Windows fails it, and both must behave alike.
 *   write_through=0|1  FILE_FLAG_WRITE_THROUGH.
 *   access=sequential|random|normal
 *                      FILE_FLAG_SEQUENTIAL_SCAN / FILE_FLAG_RANDOM_ACCESS.
 * The direct build takes access= and dsync=0|1 (write-through, Windows'
 * counterpart of O_DSYNC; on by default there, so io_profile -b's dsync=1
 * changes nothing and dsync=0 turns it off).
 *
 * Edges:
 *  - read_at loops until len bytes or end of file (ERROR_HANDLE_EOF or a
 *    zero count), so a short count means end of file.
 *  - write_at returns the bytes the first WriteFile wrote; an error after
 *    some bytes returns those bytes.
 *  - IOB_OPEN_NOFOLLOW opens with FILE_FLAG_OPEN_REPARSE_POINT and refuses a
 *    reparse point (a symbolic link or junction) with -ELOOP.
 *  - Paths are UTF-8, converted to UTF-16 for CreateFileW.
 *  - Under wine, NO_BUFFERING and WRITE_THROUGH change nothing: its files go
 *    through Linux's page cache (docs/windows.md).
 */
#include <windows.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/plugin.h"
#include "bopts.h"

#ifdef IOB_WIN32_AS_DIRECT
#define W32_NAME "direct"
#define W32_KNOWN "access,dsync"
#else
#define W32_NAME "win32"
#define W32_KNOWN "unbuffered,write_through,access"
#endif

struct w32_opts {
	int unbuffered, write_through;
	DWORD access_hint;
};

struct w32_file {
	HANDLE h;
	struct w32_opts o;
	uint32_t align; /* sector size when unbuffered, else 1 */
};

static const struct iob_host *w32_host;

static int w32_errno(DWORD e)
{
	switch (e) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
		return ENOENT;
	case ERROR_ACCESS_DENIED:
	case ERROR_SHARING_VIOLATION:
	case ERROR_LOCK_VIOLATION:
	case ERROR_WRITE_PROTECT:
		return EACCES;
	case ERROR_FILE_EXISTS:
	case ERROR_ALREADY_EXISTS:
		return EEXIST;
	case ERROR_DISK_FULL:
	case ERROR_HANDLE_DISK_FULL:
		return ENOSPC;
	case ERROR_NOT_ENOUGH_MEMORY:
	case ERROR_OUTOFMEMORY:
		return ENOMEM;
	case ERROR_DIRECTORY:
		return EISDIR;
	case ERROR_CANT_RESOLVE_FILENAME:
	case ERROR_CANT_ACCESS_FILE:
		return ELOOP;
	default:
		return EIO;
	}
}

static void w32_defaults(struct w32_opts *o)
{
	memset(o, 0, sizeof *o);
#ifdef IOB_WIN32_AS_DIRECT
	o->unbuffered = 1;
	o->write_through = 1;
#endif
}

static int w32_option(void *ctx, const char *key, const char *val)
{
	struct w32_opts *o = ctx;
#ifndef IOB_WIN32_AS_DIRECT
	if (strcmp(key, "unbuffered") == 0)
		return bopts_bool(w32_host, W32_NAME, key, val, &o->unbuffered);
	if (strcmp(key, "write_through") == 0)
		return bopts_bool(w32_host, W32_NAME, key, val, &o->write_through);
#else
	if (strcmp(key, "dsync") == 0)
		return bopts_bool(w32_host, W32_NAME, key, val, &o->write_through);
#endif
	if (strcmp(key, "access") == 0) {
		if (strcmp(val, "sequential") == 0)
			o->access_hint = FILE_FLAG_SEQUENTIAL_SCAN;
		else if (strcmp(val, "random") == 0)
			o->access_hint = FILE_FLAG_RANDOM_ACCESS;
		else if (strcmp(val, "normal") == 0)
			o->access_hint = 0;
		else {
			w32_host->log(IOB_LOG_ERROR, W32_NAME,
				      "backend option access='%s' is not sequential, random or normal", val);
			return -EINVAL;
		}
		return 0;
	}
	return bopts_unknown(w32_host, W32_NAME, key, W32_KNOWN);
}

static wchar_t *w32_wide(const char *s)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
	if (n <= 0)
		return NULL;
	wchar_t *w = malloc((size_t)n * sizeof *w);
	if (w)
		MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n);
	return w;
}

/* The sector size of the volume holding wpath: what NO_BUFFERING needs. */
static uint32_t w32_sector_size(const wchar_t *wpath)
{
	wchar_t vol[MAX_PATH + 1];
	DWORD spc, bps = 0, fc, tc;
	if (GetVolumePathNameW(wpath, vol, MAX_PATH) && GetDiskFreeSpaceW(vol, &spc, &bps, &fc, &tc) && bps >= 512)
		return bps;
	return 4096; /* covers 512 and 4096-byte sectors */
}

static int w32_open(const struct iob_open_args *args, void **handle)
{
	struct w32_opts o;
	w32_defaults(&o);
	int rc = bopts_each(bopts_of(args), w32_host, W32_NAME, w32_option, &o);
	if (rc < 0)
		return rc;
	if ((args->flags & IOB_OPEN_TRUNC) && !(args->flags & IOB_OPEN_WRITE)) {
		w32_host->log(IOB_LOG_ERROR, W32_NAME, "%s: truncate requested on a read-only open", args->path);
		return -EINVAL;
	}
	wchar_t *w = w32_wide(args->path);
	if (!w) {
		w32_host->log(IOB_LOG_ERROR, W32_NAME, "%s: not a valid UTF-8 path", args->path);
		return -EINVAL;
	}
	DWORD access = ((args->flags & IOB_OPEN_READ) || !(args->flags & IOB_OPEN_WRITE) ? GENERIC_READ : 0) |
		       ((args->flags & IOB_OPEN_WRITE) ? GENERIC_WRITE : 0);
	DWORD disp = (args->flags & IOB_OPEN_CREATE) ? ((args->flags & IOB_OPEN_TRUNC) ? CREATE_ALWAYS : OPEN_ALWAYS)
						     : ((args->flags & IOB_OPEN_TRUNC) ? TRUNCATE_EXISTING : OPEN_EXISTING);
	DWORD flags = FILE_ATTRIBUTE_NORMAL | o.access_hint | (o.unbuffered ? FILE_FLAG_NO_BUFFERING : 0) |
		      (o.write_through ? FILE_FLAG_WRITE_THROUGH : 0) |
		      ((args->flags & IOB_OPEN_NOFOLLOW) ? FILE_FLAG_OPEN_REPARSE_POINT : 0);
	HANDLE h = CreateFileW(w, access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, disp, flags,
			       NULL);
	DWORD e = GetLastError();
	struct w32_file *f = h == INVALID_HANDLE_VALUE ? NULL : calloc(1, sizeof *f);
	if (f) {
		f->h = h;
		f->o = o;
		f->align = o.unbuffered ? w32_sector_size(w) : 1;
	}
	free(w);
	if (h == INVALID_HANDLE_VALUE)
		return -w32_errno(e);
	if (!f) {
		CloseHandle(h);
		return -ENOMEM;
	}
	BY_HANDLE_FILE_INFORMATION fi;
	if ((args->flags & IOB_OPEN_NOFOLLOW) && GetFileInformationByHandle(h, &fi) &&
	    (fi.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)) {
		CloseHandle(h);
		free(f);
		return -ELOOP;
	}
	*handle = f;
	return 0;
}

static int w32_close(void *handle)
{
	struct w32_file *f = handle;
	int rc = CloseHandle(f->h) ? 0 : -w32_errno(GetLastError());
	free(f);
	return rc;
}

/* unbuffered: refuse what Windows would refuse, the same under wine */
static int w32_check(const struct w32_file *f, const void *buf, size_t len, uint64_t off, const char *what)
{
	uint32_t a = f->align;
	if (a <= 1)
		return 0;
	if (off % a || len % a || (uintptr_t)buf % a) {
		w32_host->log(IOB_LOG_ERROR, W32_NAME,
			      "unbuffered %s refused: offset %" PRIu64 ", length %zu and buffer address %p must "
			      "be multiples of the sector size %" PRIu32,
			      what, off, len, buf, a);
		return -EINVAL;
	}
	return 0;
}

static OVERLAPPED w32_at(uint64_t off)
{
	OVERLAPPED ov;
	memset(&ov, 0, sizeof ov);
	ov.Offset = (DWORD)off;
	ov.OffsetHigh = (DWORD)(off >> 32);
	return ov;
}

static int64_t w32_read_at(void *handle, void *buf, size_t len, uint64_t off)
{
	struct w32_file *f = handle;
	int rc = w32_check(f, buf, len, off, "read");
	if (rc < 0)
		return rc;
	size_t done = 0;
	while (done < len) {
		DWORD want = len - done > 0x40000000u ? 0x40000000u : (DWORD)(len - done), got = 0;
		OVERLAPPED ov = w32_at(off + done);
		if (!ReadFile(f->h, (char *)buf + done, want, &got, &ov)) {
			DWORD e = GetLastError();
			if (e == ERROR_HANDLE_EOF)
				break;
			return done ? (int64_t)done : -w32_errno(e);
		}
		if (got == 0)
			break;
		done += got;
	}
	return (int64_t)done;
}

static int64_t w32_write_at(void *handle, const void *buf, size_t len, uint64_t off)
{
	struct w32_file *f = handle;
	int rc = w32_check(f, buf, len, off, "write");
	if (rc < 0)
		return rc;
	DWORD want = len > 0x40000000u ? 0x40000000u : (DWORD)len, put = 0;
	OVERLAPPED ov = w32_at(off);
	if (!WriteFile(f->h, buf, want, &put, &ov))
		return -w32_errno(GetLastError());
	return (int64_t)put;
}

static int w32_sync(void *handle)
{
	struct w32_file *f = handle;
	return FlushFileBuffers(f->h) ? 0 : -w32_errno(GetLastError());
}

static int w32_info(void *handle, struct iob_file_info *info)
{
	struct w32_file *f = handle;
	info->mem_align = f->align;
	info->io_align = f->align;
	info->direct = f->o.unbuffered;
	DWORD type = GetFileType(f->h);
	if (type == FILE_TYPE_PIPE || type == FILE_TYPE_CHAR) {
		info->is_stream = 1;
		info->file_type = type == FILE_TYPE_PIPE ? IOB_FILE_STREAM : IOB_FILE_CHARDEV;
		return 0;
	}
	BY_HANDLE_FILE_INFORMATION fi;
	if (!GetFileInformationByHandle(f->h, &fi))
		return -w32_errno(GetLastError());
	info->file_type = IOB_FILE_REGULAR;
	info->dev = fi.dwVolumeSerialNumber;
	info->ino = ((uint64_t)fi.nFileIndexHigh << 32) | fi.nFileIndexLow;
	info->size = ((uint64_t)fi.nFileSizeHigh << 32) | fi.nFileSizeLow;
	return 0;
}

static int w32_truncate(void *handle, uint64_t size)
{
	struct w32_file *f = handle;
	LARGE_INTEGER at;
	at.QuadPart = (LONGLONG)size;
	if (!SetFilePointerEx(f->h, at, NULL, FILE_BEGIN) || !SetEndOfFile(f->h))
		return -w32_errno(GetLastError());
	return 0;
}

static int w32_control(void *handle, int op, void *arg)
{
	struct w32_opts o;
	w32_defaults(&o);
	return bopts_control(handle, op, arg, w32_host, W32_NAME, w32_option, &o, &o.unbuffered);
}

static const struct iob_backend_ops w32_ops = {BOPTS_FILE_OPS(w32)};

static const struct iob_option_decl w32_options[] = {
#ifdef IOB_WIN32_AS_DIRECT
	{.name = "dsync", .type = IOB_OPT_BOOL, .def = "1", .help = "FILE_FLAG_WRITE_THROUGH (0 turns it off)"},
#else
	{.name = "unbuffered", .type = IOB_OPT_BOOL, .def = "0", .help = "FILE_FLAG_NO_BUFFERING: bypass the cache"},
	{.name = "write_through", .type = IOB_OPT_BOOL, .def = "0", .help = "FILE_FLAG_WRITE_THROUGH"},
#endif
	{.name = "access", .type = IOB_OPT_WORD, .def = "normal", .words = "sequential|random|normal",
	 .help = "the access hint given to CreateFile"},
};

#ifdef IOB_WIN32_AS_DIRECT
IOB_BACKEND_PLUGIN_OPTIONS(w32_host, W32_NAME, "Windows unbuffered + write-through (the win32 backend with both on)",
		   IOB_CAP_READ | IOB_CAP_WRITE | IOB_CAP_SYNC | IOB_CAP_TRUNCATE | IOB_CAP_DIRECT | IOB_CAP_ALIGNED,
		   &w32_ops, w32_options);
#else
IOB_BACKEND_PLUGIN_OPTIONS(w32_host, W32_NAME, "Windows ReadFile/WriteFile at offsets; options unbuffered, write_through, access",
		   IOB_CAP_READ | IOB_CAP_WRITE | IOB_CAP_SYNC | IOB_CAP_TRUNCATE, &w32_ops, w32_options);
#endif
