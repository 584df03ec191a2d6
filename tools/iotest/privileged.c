/*
 * privileged.c - iotest's -d/-D (drop caches) and -y/-Y (sync).
 *
 * Lower case acts as this user, upper case goes through `sudo -n` (never a
 * password prompt) unless the user is already root.  Dropping the whole page
 * cache needs root; when neither root nor a working `sudo -n` is available,
 * only the test file is written back and evicted (posix_fadvise DONTNEED), and
 * the caller says so on stderr.  sync(2) needs no privilege, so a failed
 * `sudo -n sync` falls back to it.  POSIX only (posix_spawn), like the rest of
 * this legacy tool's privileged helpers.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include "iobench/os.h"
#include "iotest.h"

extern char **environ;

/* Run `sudo -n ARGS...` with its stdio on /dev/null; 0 when it exited 0. */
static int run_sudo(char *const argv[])
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status = 0, rc;

	if (posix_spawn_file_actions_init(&fa) != 0)
		return -ENOMEM;
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	rc = posix_spawnp(&pid, "sudo", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0)
		return -rc;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EPERM;
}

int iotest_sync(enum iotest_priv mode, const char **how)
{
	if (mode == IOTEST_PRIV_SUDO && !iob_is_root()) {
		char *argv[] = {"sudo", "-n", "sync", NULL};
		if (run_sudo(argv) == 0) {
			*how = "sudo sync";
			return 0;
		}
		iob_sync_all();
		*how = "'sudo -n sync' did not work: ran sync(2) directly instead (it needs no privilege)";
		return 1;
	}
	iob_sync_all();
	*how = "sync(2)";
	return 0;
}

int iotest_drop_caches(enum iotest_priv mode, const char *path, const char **how)
{
	if (iob_is_root()) {
		if (iob_drop_caches() == 0) {
			*how = "drop_caches";
			return 0;
		}
	} else if (mode == IOTEST_PRIV_SUDO) {
		char *argv[] = {"sudo", "-n", "sh", "-c", "sync && echo 3 > /proc/sys/vm/drop_caches", NULL};
		if (run_sudo(argv) == 0) {
			*how = "sudo drop_caches";
			return 0;
		}
	}
	*how = "evict the file only";
	int rc = iob_cache_evict(path);
	return rc < 0 ? rc : 1;
}
