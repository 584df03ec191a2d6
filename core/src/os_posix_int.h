/*
 * os_posix_int.h - what os_posix.c's rooms share (the map at os_posix.c's
 * top): the system headers and the helpers more than one room calls.
 */
#ifndef IOB_OS_POSIX_INT_H
#define IOB_OS_POSIX_INT_H

#include "iobench/os.h"
#include "iobench/ticks.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <spawn.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sched.h>	 /* sched_setaffinity */
#include <sys/syscall.h> /* SYS_set_mempolicy */
#include <linux/magic.h> /* TMPFS_MAGIC, RAMFS_MAGIC */
#include <sys/vfs.h>
#endif

static inline enum iob_path_kind kind_of_mode(mode_t m)
{
	if (S_ISREG(m))
		return IOB_PATH_REGULAR;
	if (S_ISDIR(m))
		return IOB_PATH_DIRECTORY;
	if (S_ISBLK(m))
		return IOB_PATH_BLOCKDEV;
	if (S_ISCHR(m))
		return IOB_PATH_CHARDEV;
	return IOB_PATH_OTHER;
}

#endif
