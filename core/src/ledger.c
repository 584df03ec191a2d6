/*
 * ledger.c - what a run made, counted and removed (iobench/ledger.h).
 */
#include "iobench/ledger.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/os.h"
#include "iobench/runner.h"

int iob_ledger_init(struct iob_ledger *l, const struct iob_job *job)
{
	memset(l, 0, sizeof *l);
	if (iob_job_files(job, &l->fl) != 0)
		return -ENOMEM;
	l->made_file = calloc(l->fl.n, sizeof *l->made_file);
	l->made_dir = calloc(l->fl.ndirs + 1, sizeof *l->made_dir);
	if (!l->made_file || !l->made_dir)
		return -ENOMEM;
	for (size_t i = 0; i < l->fl.n; i++)
		l->made_file[i] = iob_path_kind(l->fl.paths[i], 0) == IOB_PATH_MISSING;
	for (size_t i = 0; i < l->fl.ndirs; i++)
		l->made_dir[i] = iob_path_kind(l->fl.dirs[i], 0) == IOB_PATH_MISSING;
	return 0;
}

void iob_ledger_count(struct iob_ledger *l, uint64_t size)
{
	l->present = l->short_files = l->present_bytes = 0;
	for (size_t i = 0; i < l->fl.n; i++) {
		uint64_t sz = 0;
		if (iob_path_kind(l->fl.paths[i], 0) != IOB_PATH_REGULAR)
			continue;
		l->present++;
		if (iob_file_size(l->fl.paths[i], &sz) == 0)
			l->present_bytes += sz;
		l->short_files += sz < size;
	}
}

void iob_ledger_remove(struct iob_ledger *l, struct iob_run *run)
{
	for (size_t i = 0; i < l->fl.n; i++)
		l->kept_files += !l->made_file[i];
	/* only what the run itself created, as it created it, through the
	 * directories it held open: never a path looked up again now */
	iob_run_remove_made(run, &l->removed_files, &l->removed_dirs);
}

void iob_ledger_free(struct iob_ledger *l)
{
	iob_filelist_free(&l->fl);
	free(l->made_file);
	free(l->made_dir);
	memset(l, 0, sizeof *l);
}
