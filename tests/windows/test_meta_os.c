/* Windows (run under wine by ctest): meta_os_win32.c, the calls a files job
 * makes (core/src/meta_os.h): names made, opened, stat'ed and removed
 * relative to a held directory handle, one component at a time; directories
 * made private to this user (what mode 0700 is on POSIX); made only
 * where nothing was; a directory removed only when it is still the one
 * made; names that would leave the directory refused; and a reparse point
 * (junction, symbolic link) never followed, when this system can make one
 * (wine 8 cannot: that test skips, saying so). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include <windows.h>
#include <aclapi.h>
#include <winioctl.h>

#include "iobench/os.h"
#include "meta_os.h"

static char work[4096];

static int setup(void **state)
{
	(void)state;
	char exe[4096];
	iob_exe_dir(exe, sizeof exe);
	if (!exe[0])
		return -1;
	snprintf(work, sizeof work, "%s/meta-os-%llu", exe, (unsigned long long)iob_now_ns());
	return iob_mkdir(work);
}

static int teardown(void **state)
{
	(void)state;
	return iob_remove_dir(work); /* fails (and so the test) when anything is left */
}

static void write_file(mo_h at, const char *name, const char *text)
{
	mo_h f;
	assert_int_equal(mo_file_open(at, name, MO_CREATE, &f), 0);
	assert_int_equal(mo_write(f, text, strlen(text)), (long)strlen(text));
	assert_int_equal(mo_file_close(f), 0);
}

/* what mode 0700 is on POSIX: the directory at path lets this user in and
 * nobody else: no ACE allows Everyone, Authenticated Users or Users (wine
 * keeps no DACL: it shows one made from the Linux mode, which the DACL made
 * it set) */
static void check_private(const char *path)
{
	wchar_t w[4200];
	MultiByteToWideChar(CP_UTF8, 0, path, -1, w, 4200);
	PACL dacl = NULL;
	PSECURITY_DESCRIPTOR sd = NULL;
	assert_int_equal(GetNamedSecurityInfoW(w, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL, &dacl, NULL,
					       &sd),
			 ERROR_SUCCESS);
	assert_non_null(dacl);
	HANDLE tok;
	union {
		TOKEN_USER tu;
		char buf[256];
	} u;
	DWORD n;
	assert_true(OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &tok));
	assert_true(GetTokenInformation(tok, TokenUser, &u, sizeof u, &n));
	CloseHandle(tok);
	BYTE others[3][SECURITY_MAX_SID_SIZE];
	WELL_KNOWN_SID_TYPE kinds[3] = {WinWorldSid, WinAuthenticatedUserSid, WinBuiltinUsersSid};
	for (int k = 0; k < 3; k++) {
		n = SECURITY_MAX_SID_SIZE;
		assert_true(CreateWellKnownSid(kinds[k], NULL, others[k], &n));
	}
	int mine = 0;
	for (DWORD i = 0; i < dacl->AceCount; i++) {
		ACCESS_ALLOWED_ACE *ace = NULL;
		assert_true(GetAce(dacl, i, (void **)&ace));
		if (ace->Header.AceType != ACCESS_ALLOWED_ACE_TYPE || !ace->Mask)
			continue;
		mine |= EqualSid((PSID)&ace->SidStart, u.tu.User.Sid);
		for (int k = 0; k < 3; k++)
			assert_false(EqualSid((PSID)&ace->SidStart, (PSID)others[k]));
	}
	assert_true(mine);
	LocalFree(sd);
}

/* a tree made, used and removed through the held handles */
static void test_tree(void **state)
{
	(void)state;
	mo_h top, sub, f;
	uint64_t dev, ino, dev2, ino2;
	char buf[16];
	assert_int_equal(mo_top_open(work, 0, &top), 0);
	assert_int_equal(mo_mkdir(top, "iobench.m.0"), 0);
	assert_int_equal(mo_mkdir(top, "iobench.m.0"), -EEXIST);
	char rootp[4200];
	snprintf(rootp, sizeof rootp, "%s/iobench.m.0", work);
	check_private(rootp);
	assert_int_equal(mo_dir_open(top, "iobench.m.0", &sub), 0);
	assert_int_equal(mo_identity(sub, &dev, &ino), 0);
	assert_int_equal(mo_mkdir(sub, "d0"), 0);
	write_file(sub, "f.0.0", "hello");
	/* made only where nothing was */
	assert_int_equal(mo_file_open(sub, "f.0.0", MO_CREATE, &f), -EEXIST);
	assert_int_equal(mo_file_open(sub, "d0", MO_CREATE, &f), -EEXIST);
	/* stat: a regular file, and nothing else */
	assert_int_equal(mo_stat_file(sub, "f.0.0"), 0);
	assert_int_equal(mo_stat_file(sub, "d0"), -EINVAL);
	assert_int_equal(mo_stat_file(sub, "none"), -ENOENT);
	/* dirstat: a directory, and nothing else */
	assert_int_equal(mo_stat_dir(sub, "d0"), 0);
	assert_int_equal(mo_stat_dir(top, "iobench.m.0"), 0);
	assert_int_equal(mo_stat_dir(sub, "f.0.0"), -ENOTDIR);
	assert_int_equal(mo_stat_dir(sub, "none"), -ENOENT);
	/* read back what was written, then the end */
	assert_int_equal(mo_file_open(sub, "f.0.0", MO_READ, &f), 0);
	assert_int_equal(mo_read(f, buf, sizeof buf), 5);
	assert_memory_equal(buf, "hello", 5);
	assert_int_equal(mo_read(f, buf, sizeof buf), 0);
	assert_int_equal(mo_file_close(f), 0);
	assert_int_equal(mo_file_open(sub, "f.0.0", MO_WRITE, &f), 0);
	assert_int_equal(mo_write(f, "HE", 2), 2);
	assert_int_equal(mo_fsync(f), 0);
	assert_int_equal(mo_file_close(f), 0);
	assert_int_equal(mo_file_open(sub, "none", MO_READ, &f), -ENOENT);
	assert_int_equal(mo_file_open(sub, "d0", MO_READ, &f) < 0, 1);
	/* a directory is not opened as a file, nor a file as a directory */
	mo_h x;
	assert_int_equal(mo_dir_open(sub, "f.0.0", &x), -ENOTDIR);
	/* names that would leave the directory: refused, nothing made */
	assert_int_equal(mo_mkdir(sub, "..\\esc"), -EINVAL);
	assert_int_equal(mo_mkdir(sub, "../esc"), -EINVAL);
	assert_int_equal(mo_dir_open(sub, "..", &x), -EINVAL);
	assert_int_equal(mo_file_open(sub, "C:x", MO_CREATE, &f), -EINVAL);
	assert_int_equal(mo_path_exists(work), 1);
	char esc[4200];
	snprintf(esc, sizeof esc, "%s/esc", work);
	assert_int_equal(mo_path_exists(esc), 0);
	/* a duplicate reaches the same directory */
	mo_h d2;
	assert_int_equal(mo_dup(sub, &d2), 0);
	assert_int_equal(mo_identity(d2, &dev2, &ino2), 0);
	assert_true(dev2 == dev && ino2 == ino);
	assert_int_equal(mo_stat_file(d2, "f.0.0"), 0);
	mo_close(d2);
	/* a directory that is not empty stays; the file is removed by name */
	assert_int_equal(mo_rmdir(top, "iobench.m.0") < 0, 1);
	assert_int_equal(mo_unlink(sub, "f.0.0"), 0);
	assert_int_equal(mo_unlink(sub, "f.0.0"), -ENOENT);
	assert_int_equal(mo_rmdir(sub, "d0"), 0);
	assert_int_equal(mo_rmdir(sub, "d0"), -ENOENT);
	mo_close(sub);
	/* removed only when it is still the directory made */
	assert_int_equal(mo_rmdir_same(top, "iobench.m.0", dev, ino + 1), -ESTALE);
	assert_int_equal(mo_dir_open(top, "iobench.m.0", &sub), 0);
	mo_close(sub);
	assert_int_equal(mo_rmdir_same(top, "iobench.m.0", dev, ino), 0);
	assert_int_equal(mo_dir_open(top, "iobench.m.0", &sub), -ENOENT);
	/* a file in the directory's place is not removed as it */
	write_file(top, "iobench.m.1", "x");
	assert_int_equal(mo_rmdir_same(top, "iobench.m.1", dev, ino), -ESTALE);
	assert_int_equal(mo_stat_file(top, "iobench.m.1"), 0);
	assert_int_equal(mo_unlink(top, "iobench.m.1"), 0);
	/* the checks by path */
	assert_int_equal(mo_path_dir(work), 0);
	assert_int_equal(mo_path_writable(work), 0);
	assert_true(mo_name_max(work) >= 255);
	struct mo_room r;
	assert_int_equal(mo_room(work, &r), 0);
	assert_true(r.frag >= 512 && r.blocks_avail > 0 && r.files_total == 0);
	mo_close(top);
}

/* A junction made in dir `name` towards target (full path); 0, or the
 * Windows error when this system cannot make one. */
static DWORD make_junction(const char *dir, const char *name, const char *target)
{
	char p[4200];
	wchar_t wp[4200], wt[4200], sub[4300];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	MultiByteToWideChar(CP_UTF8, 0, p, -1, wp, 4200);
	MultiByteToWideChar(CP_UTF8, 0, target, -1, wt, 4200);
	for (wchar_t *c = wt; *c; c++)
		if (*c == L'/')
			*c = L'\\';
	if (!CreateDirectoryW(wp, NULL))
		return GetLastError();
	HANDLE h = CreateFileW(wp, GENERIC_WRITE, 7, NULL, OPEN_EXISTING,
			       FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
	if (h == INVALID_HANDLE_VALUE)
		return GetLastError();
	swprintf(sub, 4300, L"\\??\\%ls", wt);
	struct {
		DWORD tag;
		WORD len, res, so, sl, po, pl;
		WCHAR buf[8600];
	} m;
	memset(&m, 0, sizeof m);
	size_t sl = wcslen(sub) * 2, pl = wcslen(wt) * 2;
	m.tag = IO_REPARSE_TAG_MOUNT_POINT;
	memcpy(m.buf, sub, sl);
	m.sl = (WORD)sl;
	m.po = (WORD)(sl + 2);
	memcpy((char *)m.buf + sl + 2, wt, pl);
	m.pl = (WORD)pl;
	m.len = (WORD)(8 + sl + 2 + pl + 2);
	DWORD n, e = 0;
	if (!DeviceIoControl(h, FSCTL_SET_REPARSE_POINT, &m, 8u + m.len, NULL, 0, &n, NULL))
		e = GetLastError();
	CloseHandle(h);
	if (e) {
		RemoveDirectoryW(wp);
		return e;
	}
	/* made as the attributes say, or not at all */
	DWORD a = GetFileAttributesW(wp);
	if (a == INVALID_FILE_ATTRIBUTES || !(a & FILE_ATTRIBUTE_REPARSE_POINT)) {
		RemoveDirectoryW(wp);
		return ERROR_NOT_SUPPORTED;
	}
	return 0;
}

/* a junction inside the tree, towards a directory outside it: never entered,
 * nothing made or removed through it, the link itself refused as a file, a
 * directory, and as the tree's root */
static void test_reparse_not_followed(void **state)
{
	(void)state;
	char out[4200], secret[4300];
	snprintf(out, sizeof out, "%s/outside", work);
	assert_int_equal(iob_mkdir(out), 0);
	snprintf(secret, sizeof secret, "%s/f.0.0", out);
	FILE *sf = iob_fopen(secret, "wb");
	assert_non_null(sf);
	fputs("mine", sf);
	fclose(sf);
	DWORD e = make_junction(work, "d0", out);
	if (e) {
		iob_remove_file(secret);
		iob_remove_dir(out);
		print_message("skipped: this system cannot make a reparse point (junction: error %lu; wine 8 "
			      "implements none and shows a Linux symbolic link as its target)\n",
			      (unsigned long)e);
		skip();
		return;
	}
	mo_h top, x, f;
	assert_int_equal(mo_top_open(work, 0, &top), 0);
	assert_int_equal(mo_dir_open(top, "d0", &x), -ELOOP);
	assert_int_equal(mo_file_open(top, "d0", MO_READ, &f) < 0, 1);
	assert_int_equal(mo_stat_file(top, "d0"), -EINVAL);
	assert_int_equal(mo_stat_dir(top, "d0"), -ELOOP); /* the junction itself, not followed */
	assert_int_equal(mo_rmdir(top, "d0"), -ENOTDIR);
	assert_int_equal(mo_rmdir_same(top, "d0", 0, 0), -ESTALE);
	char j[4300];
	snprintf(j, sizeof j, "%s/d0", work);
	assert_int_equal(mo_top_open(j, 0, &x), -ELOOP);
	/* the file beyond it is untouched */
	assert_int_equal(iob_path_kind(secret, 0), IOB_PATH_REGULAR);
	mo_close(top);
	wchar_t wj[4300];
	MultiByteToWideChar(CP_UTF8, 0, j, -1, wj, 4300);
	assert_true(RemoveDirectoryW(wj));
	assert_int_equal(iob_remove_file(secret), 0);
	assert_int_equal(iob_remove_dir(out), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_reparse_not_followed),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
