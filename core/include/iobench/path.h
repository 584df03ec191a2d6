/*
 * path.h - splitting a path given on a command line, by its text alone (no
 * file system call): the directory part, the file name, whether it is taken
 * as it is.  Windows separates with '\\' and drive letters as well as '/'.
 * The OS layer (os.h) includes it; the tools may include it too.
 */
#ifndef IOBENCH_PATH_H
#define IOBENCH_PATH_H

#include <stddef.h>
#include <stdio.h>

/* Split a path given on a command line into directory and file name: returns
 * the offset of the file name, and in *dirlen how much of path names the
 * directory (0: none, the current directory).  A root keeps its separator
 * ("/x": "/"; Windows "C:\x": "C:\", "C:x": "C:").  Windows separates with
 * '\' as well as '/'. */
static inline size_t iob_path_split(const char *path, size_t *dirlen)
{
	size_t sep = (size_t)-1;
	for (size_t i = 0; path[i]; i++) {
#if defined(_WIN32)
		if (path[i] == '/' || path[i] == '\\' || (i == 1 && path[i] == ':'))
#else
		if (path[i] == '/')
#endif
			sep = i;
	}
	if (sep == (size_t)-1) {
		*dirlen = 0;
		return 0;
	}
	*dirlen = sep;
	if (sep == 0)
		*dirlen = 1;
#if defined(_WIN32)
	if (path[sep] == ':' || (sep == 2 && path[1] == ':'))
		*dirlen = sep + 1;
#endif
	return sep + 1;
}
/* The directory part of path into dir ("." when there is none, as
 * iob_path_split says); returns the offset of the file name. */
static inline size_t iob_path_dir(const char *path, char *dir, size_t len)
{
	size_t dlen, base = iob_path_split(path, &dlen);
	if (dlen == 0)
		snprintf(dir, len, ".");
	else
		snprintf(dir, len, "%.*s", (int)dlen, path);
	return base;
}
/* Is path taken as it is, never joined to a directory (Windows: also "\x", "C:x", "C:\x")? */
static inline int iob_path_absolute(const char *path)
{
#if defined(_WIN32)
	return path[0] == '/' || path[0] == '\\' || (path[0] && path[1] == ':');
#else
	return path[0] == '/';
#endif
}

#endif
