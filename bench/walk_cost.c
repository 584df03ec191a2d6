/*
 * walk_cost.c - what the kernel charges for one file's create, stat and
 * remove, made the way mdtest makes them, the way iobench's files job does
 * with path_walk = full, the ways full could have taken, and with
 * path_walk = held (docs/metadata.md, "Against mdtest").  Built into
 * BUILD/bench/walk_cost (Linux); run by hand:
 *
 *   build/bench/walk_cost DIR [N] [REPS] [PER_DIR]
 *
 * In DIR (made empty for it: tmpfs is where the walk weighs most) it makes
 * the directories both tools make for one stream (mdtest -u -d .:
 * test-dir.0-0/mdtest_tree.0.0; iobench: iobench.md.0), then, REPS times
 * (default 7), N files (default 20000) each way and prints the fastest
 * round's time per file of each call sequence: the least a busy machine
 * disturbed, so the figures compare the calls, not the scheduler.
 *
 *   mdtest     openat(cwd, "./test-dir.0-0/mdtest_tree.0.0/file.mdtest.0.I",
 *              O_RDWR|O_CREAT, 0664) + close; newfstatat(cwd, path, 0);
 *              unlink(path)
 *   full       openat2(top, "iobench.md.0/f.0.I", O_CREAT|O_EXCL|O_WRONLY|
 *              O_NOFOLLOW, RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS) + close;
 *              newfstatat(top, path, AT_SYMLINK_NOFOLLOW) (and st_dev
 *              compared); unlinkat(pdir, name), pdir = openat2(top,
 *              "iobench.md.0", O_PATH|O_DIRECTORY, the same resolve) once
 *              for the round's N files (one directory, as mdtest -u has)
 *   held       openat(dirfd, "f.0.I", O_CREAT|O_EXCL|...) + close;
 *              fstatat(dirfd, name, AT_SYMLINK_NOFOLLOW); unlinkat(dirfd, name)
 * and the other ways full's stat and remove could go (or went before):
 *   statx      statx(top, path, AT_SYMLINK_NOFOLLOW, STATX_TYPE)
 *   o_path     openat2(top, path, O_PATH|O_NOFOLLOW) + fstat + close (the
 *              stat that refuses every link); remove: openat2 of the
 *              directory (O_PATH) + unlinkat + close for every file
 *   rm o_path/D, rm rdonly/D: the directory opened again every PER_DIR
 *              files (default 16: a small tree's directory), O_PATH or
 *              O_RDONLY, + unlinkat a file
 *
 * Linux only (openat2, 5.6).  It removes what it made.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int open2(int dir, const char *path, int flags, unsigned mode)
{
	struct open_how how;
	memset(&how, 0, sizeof how);
	how.flags = (unsigned)(flags | O_CLOEXEC);
	how.mode = (flags & O_CREAT) ? mode : 0;
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS;
	return (int)syscall(SYS_openat2, dir, path, &how, sizeof how);
}

enum { MD_C, MD_S, MD_R, FU_C, FU_S, FU_R, HE_C, HE_S, HE_R, SX_S, OP_S, OP_R, PD_R, RD_R, NCASE };
static const char *names[NCASE] = {"mdtest create", "mdtest stat",  "mdtest remove", "full create",
				   "full stat",	    "full remove",  "held create",   "held stat",
				   "held remove",   "statx stat",   "o_path stat",   "o_path remove",
				   "rm o_path/D",   "rm rdonly/D"};

static void die(const char *what, const char *name)
{
	fprintf(stderr, "walk_cost: %s %s: %s\n", what, name, strerror(errno));
	exit(1);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: walk_cost DIR [N] [REPS]\n");
		return 2;
	}
	int n = argc > 2 ? atoi(argv[2]) : 20000, reps = argc > 3 ? atoi(argv[3]) : 7;
	int per = argc > 4 ? atoi(argv[4]) : 16;
	if (n <= 0 || reps <= 0 || per <= 0) {
		fprintf(stderr, "walk_cost: N, REPS and PER_DIR must be positive\n");
		return 2;
	}
	if (chdir(argv[1]) != 0)
		die("cannot enter", argv[1]);
	int top = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (top < 0 || mkdir("test-dir.0-0", 0700) != 0 || mkdir("test-dir.0-0/mdtest_tree.0.0", 0700) != 0 ||
	    mkdir("iobench.md.0", 0700) != 0)
		die("cannot make the directories in", argv[1]);
	int dfd = open("iobench.md.0", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		die("cannot open", "iobench.md.0");
	double best[NCASE], t;
	for (int c = 0; c < NCASE; c++)
		best[c] = 1e30;
	char p[256];
	struct stat st, tst;
	struct statx sx;
	if (fstat(top, &tst) != 0)
		die("cannot stat", argv[1]);
	int pd = -1;
#define ROUND(c, body)                                                                                               \
	do {                                                                                                         \
		t = now();                                                                                           \
		for (int i = 0; i < n; i++) {                                                                        \
			body;                                                                                        \
		}                                                                                                    \
		t = now() - t;                                                                                       \
		if (t < best[c])                                                                                     \
			best[c] = t;                                                                                 \
	} while (0)
#define MDPATH snprintf(p, sizeof p, "./test-dir.0-0/mdtest_tree.0.0/file.mdtest.0.%d", i)
#define FULLPATH snprintf(p, sizeof p, "iobench.md.0/f.0.%d", i)
#define NAME snprintf(p, sizeof p, "f.0.%d", i)
	/* the files again (untimed) for the next way of removing them */
#define REFILL                                                                                                       \
	for (int i = 0; i < n; i++) {                                                                                \
		NAME;                                                                                                \
		int fd = openat(dfd, p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);                              \
		if (fd < 0)                                                                                          \
			die("create", p);                                                                            \
		close(fd);                                                                                           \
	}
	for (int r = 0; r < reps; r++) {
		ROUND(MD_C, MDPATH; int fd = openat(AT_FDCWD, p, O_RDWR | O_CREAT, 0664); if (fd < 0) die("create", p);
		      close(fd));
		ROUND(MD_S, MDPATH; if (fstatat(AT_FDCWD, p, &st, 0) != 0) die("stat", p));
		ROUND(MD_R, MDPATH; if (unlink(p) != 0) die("unlink", p));
		ROUND(FU_C, FULLPATH; int fd = open2(top, p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
		      if (fd < 0) die("create", p); close(fd));
		ROUND(FU_S, FULLPATH; if (fstatat(top, p, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_dev != tst.st_dev)
			      die("stat", p));
		ROUND(SX_S, FULLPATH; if (statx(top, p, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &sx) != 0) die("statx", p));
		ROUND(OP_S, FULLPATH; int fd = open2(top, p, O_PATH | O_NOFOLLOW, 0);
		      if (fd < 0 || fstat(fd, &st) != 0) die("stat", p); close(fd));
		ROUND(FU_R, NAME; if (i == 0 && (pd = open2(top, "iobench.md.0", O_PATH | O_DIRECTORY, 0)) < 0)
			      die("open", "iobench.md.0");
		      if (unlinkat(pd, p, 0) != 0) die("unlink", p); if (i == n - 1) close(pd));
		REFILL;
		ROUND(OP_R, NAME; int pfd = open2(top, "iobench.md.0", O_PATH | O_DIRECTORY, 0);
		      if (pfd < 0 || unlinkat(pfd, p, 0) != 0) die("unlink", p); close(pfd));
		REFILL;
		ROUND(PD_R, NAME; if (i % per == 0 && (pd = open2(top, "iobench.md.0", O_PATH | O_DIRECTORY, 0)) < 0)
			      die("open", "iobench.md.0");
		      if (unlinkat(pd, p, 0) != 0) die("unlink", p); if (i % per == per - 1 || i == n - 1) close(pd));
		REFILL;
		ROUND(RD_R, NAME; if (i % per == 0 && (pd = open2(top, "iobench.md.0", O_RDONLY | O_DIRECTORY, 0)) < 0)
			      die("open", "iobench.md.0");
		      if (unlinkat(pd, p, 0) != 0) die("unlink", p); if (i % per == per - 1 || i == n - 1) close(pd));
		ROUND(HE_C, NAME; int fd = openat(dfd, p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		      if (fd < 0) die("create", p); close(fd));
		ROUND(HE_S, NAME; if (fstatat(dfd, p, &st, AT_SYMLINK_NOFOLLOW) != 0) die("stat", p));
		ROUND(HE_R, NAME; if (unlinkat(dfd, p, 0) != 0) die("unlink", p));
	}
	printf("%d files, fastest of %d rounds, ns per file (D = %d files a directory)\n", n, reps, per);
	for (int c = 0; c < NCASE; c++)
		printf("  %-14s %7.0f\n", names[c], best[c] / n * 1e9);
	for (int k = 0; k < 3; k++)
		printf("  %s time per file: full/mdtest %.3f   held/mdtest %.3f\n", k == 0 ? "create" : k == 1 ? "stat  " : "remove",
		       best[FU_C + k] / best[MD_C + k], best[HE_C + k] / best[MD_C + k]);
	printf("  stat   time per file: statx/mdtest %.3f   o_path/mdtest %.3f\n", best[SX_S] / best[MD_S],
	       best[OP_S] / best[MD_S]);
	printf("  remove time per file: o_path/mdtest %.3f   rm o_path/D/mdtest %.3f   rm rdonly/D/mdtest %.3f\n",
	       best[OP_R] / best[MD_R], best[PD_R] / best[MD_R], best[RD_R] / best[MD_R]);
	close(dfd);
	rmdir("iobench.md.0");
	rmdir("test-dir.0-0/mdtest_tree.0.0");
	rmdir("test-dir.0-0");
	return 0;
}
