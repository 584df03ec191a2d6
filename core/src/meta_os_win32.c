/*
 * meta_os_win32.c - meta_os.h on Windows.  Every name below the job's
 * directory is reached from a held directory handle with NtCreateFile and
 * RootDirectory (Windows' openat), one component at a time, with
 * FILE_OPEN_REPARSE_POINT: a symbolic link or junction is opened itself,
 * never followed, and its attributes on the handle
 * (GetFileInformationByHandle) refuse it.  Directories are made with
 * FILE_CREATE and removed, as files are, by FILE_DISPOSITION_INFO on a
 * handle opened for DELETE (what DeleteFileW and RemoveDirectoryW do, but
 * relative to the held handle and on what was checked).  Handles are held
 * with every share mode, so a run can remove what it made while a stream
 * still holds a directory.
 */
#include "meta_os.h"

#include "os_win32_int.h"

#include <sddl.h>
#include <winternl.h>

#define SHARE_ALL (FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE)

static int nt_err(NTSTATUS st)
{
	return -errno_of(RtlNtStatusToDosError(st));
}

/* What mode 0700 is on POSIX: a protected DACL that lets only this user
 * (the token's user SID) in, inherited by everything below (wine keeps no
 * DACL but sets the Linux mode from it: 0750 there); NULL where it cannot
 * be made (then the directory's inherited ACL applies). */
static PSECURITY_DESCRIPTOR private_sd;
static int private_once;
static void private_make(void)
{
	HANDLE tok;
	union {
		TOKEN_USER tu;
		char buf[256];
	} u;
	DWORD n = 0;
	wchar_t *sid = NULL, sddl[512];
	private_sd = NULL;
	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &tok))
		return;
	BOOL ok = GetTokenInformation(tok, TokenUser, &u, sizeof u, &n) && ConvertSidToStringSidW(u.tu.User.Sid, &sid);
	CloseHandle(tok);
	if (!ok)
		return;
	swprintf(sddl, sizeof sddl / sizeof *sddl, L"D:P(A;OICI;FA;;;%ls)", sid);
	LocalFree(sid);
	if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(sddl, SDDL_REVISION_1, &private_sd, NULL))
		private_sd = NULL;
}

/* name (one component: no separator, not . or ..) relative to the
 * directory held on at; options besides synchronous I/O and
 * FILE_OPEN_REPARSE_POINT, which every open here takes; sd: the security
 * of what FILE_CREATE makes (NULL: inherited) */
static int nt_make(mo_h at, const char *name, ACCESS_MASK access, ULONG disposition, ULONG options,
		   PSECURITY_DESCRIPTOR sd, HANDLE *out)
{
	wchar_t w[512];
	if (!name[0] || strpbrk(name, "/\\:") || !strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, name, -1, w, (int)(sizeof w / sizeof *w));
	if (n <= 1)
		return -EINVAL;
	UNICODE_STRING us;
	us.Buffer = w;
	us.Length = us.MaximumLength = (USHORT)((n - 1) * sizeof(wchar_t));
	OBJECT_ATTRIBUTES oa;
	InitializeObjectAttributes(&oa, &us, OBJ_CASE_INSENSITIVE, (HANDLE)at, sd);
	IO_STATUS_BLOCK io;
	HANDLE h = NULL;
	NTSTATUS st = NtCreateFile(&h, access | SYNCHRONIZE, &oa, &io, NULL, FILE_ATTRIBUTE_NORMAL, SHARE_ALL,
				   disposition,
				   options | FILE_SYNCHRONOUS_IO_NONALERT | FILE_OPEN_REPARSE_POINT |
					   FILE_OPEN_FOR_BACKUP_INTENT,
				   NULL, 0);
	if (st < 0)
		return nt_err(st);
	*out = h;
	return 0;
}

static int nt_open(mo_h at, const char *name, ACCESS_MASK access, ULONG disposition, ULONG options, HANDLE *out)
{
	return nt_make(at, name, access, disposition, options, NULL, out);
}

/* what h is, from its attributes on the handle */
static enum iob_path_kind kind_on(HANDLE h, BY_HANDLE_FILE_INFORMATION *fi)
{
	memset(fi, 0, sizeof *fi);
	if (!GetFileInformationByHandle(h, fi))
		return IOB_PATH_MISSING;
	if (fi->dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)
		return IOB_PATH_SYMLINK;
	return fi->dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY ? IOB_PATH_DIRECTORY : IOB_PATH_REGULAR;
}

/* h kept in out when it is a directory (no reparse point); else closed and
 * -ELOOP or -ENOTDIR */
static int keep_dir(HANDLE h, mo_h *out)
{
	BY_HANDLE_FILE_INFORMATION fi;
	enum iob_path_kind k = kind_on(h, &fi);
	if (k != IOB_PATH_DIRECTORY) {
		CloseHandle(h);
		return k == IOB_PATH_SYMLINK ? -ELOOP : -ENOTDIR;
	}
	*out = (mo_h)h;
	return 0;
}

int mo_top_open(const char *dir, int follow, mo_h *out)
{
	wchar_t *w = wide(dir);
	if (!w)
		return -errno;
	HANDLE h = CreateFileW(w, FILE_LIST_DIRECTORY | FILE_TRAVERSE | FILE_READ_ATTRIBUTES | SYNCHRONIZE, SHARE_ALL,
			       NULL, OPEN_EXISTING,
			       FILE_FLAG_BACKUP_SEMANTICS | (follow ? 0 : FILE_FLAG_OPEN_REPARSE_POINT), NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE)
		return last_err();
	return keep_dir(h, out);
}

int mo_dir_open(mo_h at, const char *name, mo_h *out)
{
	HANDLE h;
	int rc = nt_open(at, name, FILE_LIST_DIRECTORY | FILE_TRAVERSE | FILE_READ_ATTRIBUTES, FILE_OPEN,
			 FILE_DIRECTORY_FILE, &h);
	if (rc)
		return rc;
	return keep_dir(h, out);
}

int mo_dup(mo_h h, mo_h *out)
{
	HANDLE n;
	if (!DuplicateHandle(GetCurrentProcess(), (HANDLE)h, GetCurrentProcess(), &n, 0, FALSE,
			     DUPLICATE_SAME_ACCESS))
		return last_err();
	*out = (mo_h)n;
	return 0;
}

void mo_close(mo_h h)
{
	if (h >= 0)
		CloseHandle((HANDLE)h);
}

int mo_identity(mo_h h, uint64_t *dev, uint64_t *ino)
{
	BY_HANDLE_FILE_INFORMATION fi;
	if (kind_on((HANDLE)h, &fi) == IOB_PATH_MISSING)
		return last_err();
	*dev = fi.dwVolumeSerialNumber;
	*ino = ((uint64_t)fi.nFileIndexHigh << 32) | fi.nFileIndexLow;
	return 0;
}

int mo_mkdir(mo_h at, const char *name)
{
	HANDLE h;
	iob_once(&private_once, private_make);
	int rc = nt_make(at, name, FILE_LIST_DIRECTORY, FILE_CREATE, FILE_DIRECTORY_FILE, private_sd, &h);
	if (rc == 0)
		CloseHandle(h);
	return rc;
}

/* delete-on-close set on h, then h closed */
static int dispose(HANDLE h)
{
	FILE_DISPOSITION_INFO d = {TRUE};
	int rc = SetFileInformationByHandle(h, FileDispositionInfo, &d, sizeof d) ? 0 : last_err();
	CloseHandle(h);
	return rc;
}

/* directory name of at opened for removal: never a reparse point */
static int rmdir_open(mo_h at, const char *name, HANDLE *h, BY_HANDLE_FILE_INFORMATION *fi)
{
	int rc = nt_open(at, name, DELETE | FILE_READ_ATTRIBUTES, FILE_OPEN, FILE_DIRECTORY_FILE, h);
	if (rc)
		return rc;
	if (kind_on(*h, fi) != IOB_PATH_DIRECTORY) {
		CloseHandle(*h);
		return -ENOTDIR;
	}
	return 0;
}

int mo_rmdir(mo_h at, const char *name)
{
	HANDLE h;
	BY_HANDLE_FILE_INFORMATION fi;
	int rc = rmdir_open(at, name, &h, &fi);
	return rc ? rc : dispose(h);
}

int mo_rmdir_same(mo_h at, const char *name, uint64_t dev, uint64_t ino)
{
	HANDLE h;
	BY_HANDLE_FILE_INFORMATION fi;
	int rc = rmdir_open(at, name, &h, &fi);
	if (rc)
		return rc == -ENOTDIR ? -ESTALE : rc;
	if (fi.dwVolumeSerialNumber != dev || (((uint64_t)fi.nFileIndexHigh << 32) | fi.nFileIndexLow) != ino) {
		CloseHandle(h);
		return -ESTALE; /* replaced during the run: kept */
	}
	return dispose(h);
}

int mo_file_open(mo_h at, const char *name, enum mo_how how, mo_h *out)
{
	HANDLE h;
	int rc = nt_open(at, name, how == MO_READ ? GENERIC_READ : GENERIC_WRITE,
			 how == MO_CREATE ? FILE_CREATE : FILE_OPEN, FILE_NON_DIRECTORY_FILE, &h);
	if (rc)
		return rc;
	if (how != MO_CREATE) { /* made just now by this call: nothing to check */
		BY_HANDLE_FILE_INFORMATION fi;
		enum iob_path_kind k = kind_on(h, &fi);
		if (k != IOB_PATH_REGULAR) {
			CloseHandle(h);
			return k == IOB_PATH_SYMLINK ? -ELOOP : k == IOB_PATH_MISSING ? -EIO : -EISDIR;
		}
	}
	*out = (mo_h)h;
	return 0;
}

long mo_write(mo_h f, const void *buf, size_t len)
{
	DWORD n = 0;
	if (!WriteFile((HANDLE)f, buf, len > 0x40000000 ? 0x40000000 : (DWORD)len, &n, NULL))
		return last_err();
	return (long)n;
}

long mo_read(mo_h f, void *buf, size_t len)
{
	DWORD n = 0;
	if (!ReadFile((HANDLE)f, buf, len > 0x40000000 ? 0x40000000 : (DWORD)len, &n, NULL))
		return last_err();
	return (long)n;
}

int mo_fsync(mo_h f)
{
	return FlushFileBuffers((HANDLE)f) ? 0 : last_err();
}

int mo_file_close(mo_h f)
{
	return CloseHandle((HANDLE)f) ? 0 : last_err();
}

/* Open name under at for its attributes alone and check that it is a want (a regular file or a
 * directory): 0, the open's error, -ELOOP for a link where a directory is wanted, -ENOTDIR for
 * anything else there, -EINVAL for anything but a regular file where one is wanted. */
static int stat_kind(mo_h at, const char *name, enum iob_path_kind want)
{
	HANDLE h;
	int rc = nt_open(at, name, FILE_READ_ATTRIBUTES, FILE_OPEN, 0, &h);
	if (rc)
		return rc;
	BY_HANDLE_FILE_INFORMATION fi;
	enum iob_path_kind k = kind_on(h, &fi);
	rc = k == want			     ? 0
	     : k == IOB_PATH_MISSING	     ? last_err()
	     : want == IOB_PATH_REGULAR	     ? -EINVAL
	     : k == IOB_PATH_SYMLINK	     ? -ELOOP
					     : -ENOTDIR;
	CloseHandle(h);
	return rc;
}

int mo_stat_file(mo_h at, const char *name)
{
	return stat_kind(at, name, IOB_PATH_REGULAR);
}

int mo_stat_dir(mo_h at, const char *name)
{
	return stat_kind(at, name, IOB_PATH_DIRECTORY);
}

int mo_unlink(mo_h at, const char *name)
{
	HANDLE h;
	int rc = nt_open(at, name, DELETE, FILE_OPEN, FILE_NON_DIRECTORY_FILE, &h);
	return rc ? rc : dispose(h); /* a link there: the link itself */
}

/* a thread's handles and token are the process's: nothing to copy */
void mo_thread_private(void)
{
}

/* path_walk = full: no walk of a whole path that refuses every link (the
 * check refuses full with one line) */
int mo_full_probe(void)
{
	return -ENOSYS;
}

int mo_full_top(mo_h top, mo_h *out)
{
	(void)top, (void)out;
	return -ENOSYS;
}

int mo_full_dir(mo_h top, const char *path, mo_h *out)
{
	(void)top, (void)path, (void)out;
	return -ENOSYS;
}

int mo_full_file_open(mo_h top, const char *path, enum mo_how how, mo_h *out)
{
	(void)top, (void)path, (void)how, (void)out;
	return -ENOSYS;
}

int mo_full_stat_file(mo_h top, const char *path, uint64_t dev)
{
	(void)top, (void)path, (void)dev;
	return -ENOSYS;
}

int mo_full_stat_dir(mo_h top, const char *path, uint64_t dev)
{
	(void)top, (void)path, (void)dev;
	return -ENOSYS;
}

int mo_path_dir(const char *dir)
{
	HANDLE h = open_meta(dir, 1);
	if (h == INVALID_HANDLE_VALUE)
		return last_err();
	enum iob_path_kind k = kind_of_handle(h, NULL);
	CloseHandle(h);
	return k == IOB_PATH_DIRECTORY ? 0 : 1;
}

int mo_path_writable(const char *dir)
{
	return iob_dir_writable(dir);
}

long mo_name_max(const char *dir)
{
	DWORD max = 0;
	HANDLE h = open_meta(dir, 1);
	if (h == INVALID_HANDLE_VALUE)
		return 255;
	if (!GetVolumeInformationByHandleW(h, NULL, 0, NULL, &max, NULL, NULL, 0) || max == 0)
		max = 255;
	CloseHandle(h);
	return (long)max;
}

int mo_path_exists(const char *path)
{
	return iob_path_kind(path, 0) != IOB_PATH_MISSING;
}

int mo_room(const char *dir, struct mo_room *r)
{
	wchar_t *w = wide(dir), vol[MAX_PATH + 1];
	if (!w)
		return -errno;
	ULARGE_INTEGER avail;
	DWORD spc = 0, bps = 0, nf, nt;
	int rc = GetDiskFreeSpaceExW(w, &avail, NULL, NULL) ? 0 : last_err();
	r->frag = 4096;
	if (rc == 0 && GetVolumePathNameW(w, vol, MAX_PATH + 1) && GetDiskFreeSpaceW(vol, &spc, &bps, &nf, &nt) &&
	    spc && bps)
		r->frag = (uint64_t)spc * bps;
	free(w);
	if (rc)
		return rc;
	r->blocks_avail = avail.QuadPart / r->frag;
	r->files_total = r->files_avail = 0; /* NTFS does not count inodes: */
	r->item_bytes = 1024;		     /* each name takes a file record of the MFT */
	return 0;
}
