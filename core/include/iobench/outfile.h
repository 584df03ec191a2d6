/*
 * iobench/outfile.h - the one way a run opens a file it writes that is not a
 * data file: an --output file, a live CSV, an output's side file (the csv
 * output's run.block.csv), a fio-style log (docs/security.md, "Files the run
 * writes").  Data files have their own path (runner_files.c's held directories);
 * everything else goes through here.
 *
 *   iob_outfile_check   at check time, touches nothing: the directory exists
 *                       (a symlinked one only when the link is owned by root
 *                       or the user), the name is no symbolic link, what is
 *                       there is a regular file (a character device only
 *                       where allowed; never a block device, a FIFO, a
 *                       socket or a directory), and it may be written;
 *   iob_outfile_open    after every check of the run: the directory opened
 *                       once, the file opened in it with O_NOFOLLOW, without
 *                       truncating, created when missing; fstat on the
 *                       descriptor decides again (a regular file, or an
 *                       allowed character device), and the file must not be
 *                       one the run reads or writes (the guarded paths: the
 *                       profile, its includes, the jobs' data files) nor a
 *                       file another open outfile holds (device and inode);
 *   iob_outfile_commit  the run starts: emptied now (unless appending);
 *   iob_outfile_unmake  the run could not start: removed if this run
 *                       created it (and it is still what was created), and
 *                       nothing that was there before is changed;
 *   iob_outfile_close   closed, with the error of the final flush.
 */
#ifndef IOBENCH_OUTFILE_H
#define IOBENCH_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

#include "iobench/os.h"

#define IOB_OUT_CHARDEV 0x1u /* a character device is accepted (/dev/null, /dev/full) */
#define IOB_OUT_APPEND 0x2u  /* keep what the file holds; write at its end; readable */

struct iob_outfile {
	FILE *f;	 /* NULL: not open */
	int fd;		 /* under f */
	int dirfd;	 /* the directory it is in, held open */
	char *name;	 /* its name in dirfd */
	char *path;	 /* as given, for messages */
	char what[64];	 /* "livecsv", "output json file": for messages */
	unsigned flags;
	int made;	 /* this run created it */
	int committed;
	struct iob_identity id;
	struct iob_outfile *next; /* the open outfiles (outfile.c) */
};

/* Check-time rules (see the top); `what` names the file in the one-line
 * reason ("livecsv", "output json file").  0 or -errno. */
int iob_outfile_check(const char *what, const char *path, unsigned flags, char *err, size_t errlen);

/* Open after every check (see the top); on failure nothing is left open,
 * a file this call created is removed, and err holds one line naming
 * `what` and the file.  A stdio stream is in of->f ("a" or "w" mode; no
 * truncation happens before iob_outfile_commit). */
int iob_outfile_open(struct iob_outfile *of, const char *what, const char *path, unsigned flags, char *err,
		     size_t errlen);
/* Empty it (a regular file not opened for appending); 0 or -errno. */
int iob_outfile_commit(struct iob_outfile *of);
/* The run could not start: remove it when this run made it. */
void iob_outfile_unmake(struct iob_outfile *of);
/* fclose (its error as -errno), release everything. */
int iob_outfile_close(struct iob_outfile *of);

/* A path the run reads or writes (the profile, an include, a data file):
 * no outfile may be that file.  Compared by device and inode when an
 * outfile is opened, so a data file a job creates later counts too.
 * iob_outfiles_guard_clear forgets them all. */
int iob_outfiles_guard(const char *path);
void iob_outfiles_guard_clear(void);

/* Is `name` (a file name in the same directory) one of the side files an
 * output on `main` with side files ending in `ext` may create:
 * "<main without ext>.<anything>ext"?  For the checks. */
int iob_outfile_is_side_name(const char *main, const char *ext, const char *name);
/* The side file of `main` for `tag`: main without a trailing ext, then
 * ".", tag, ext (run.csv, "block", ".csv" -> run.block.csv).  -EINVAL for a
 * tag that is empty, starts with '.', or holds anything but [0-9A-Za-z_.-]. */
int iob_outfile_side_path(const char *main, const char *tag, const char *ext, char *out, size_t outlen);

#endif
