/* Fuzz the fio job file reader with arbitrary text: no crash, no leak, a
 * refusal is one line, and an accepted file gives jobs that iobench's own
 * validation and profile writer take (names, sizes, counts in range).  An
 * accepted file then goes through what `iobench check` does
 * (iob_run_check: every job's backend, options, directory, files, space),
 * against an empty directory that must stay empty: the check creates
 * nothing, and a refusal there is one line too. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iobench/fiojob.h"
#include "iobench/loader.h"
#include "iobench/runner.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct iob_registry *reg;
static char dir[256];

static void cleanup(void)
{
	rmdir(dir);
	iob_registry_unload(reg);
	free(reg);
}

/* The plugins beside the harness (build/lib/iobench/plugins: the build
 * tree's layout), and an empty directory of our own for the jobs' files. */
static void init_once(void)
{
	if (reg)
		return;
	reg = calloc(1, sizeof *reg);
	if (!reg)
		abort();
	iob_registry_load(reg, NULL, 0);
	const char *t = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/iob-fuzz-fio-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(dir))
		abort();
	atexit(cleanup);
}

static int dir_empty(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	if (!d)
		return 0;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	closedir(d);
	return n == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), err[2048];
	struct iob_suite a;
	static const char *const sets[] = {"size=1m", "filesize=1m"};
	init_once();
	const struct iob_fio_opts opts = {.dir = dir, .sets = sets, .nsets = 2, .ignore = "rate,exec_prerun"};
	if (!s || size > 65536) {
		free(s);
		return 0;
	}
	memcpy(s, data, size);
	s[size] = '\0';
	if (iob_fio_load_string("fuzz.fio", s, &opts, &a, err, sizeof err) == 0) {
		for (size_t i = 0; i < a.njobs; i++) {
			if (a.jobs[i].size != 1u << 20 && !(a.prepare && a.prepare[i]))
				abort(); /* --set is the last word */
			if (iob_job_validate(&a.jobs[i], err, sizeof err) != 0 && strchr(err, '\n'))
				abort();
		}
		FILE *f = fopen("/dev/null", "w");
		if (f && iob_profile_write(f, a.jobs, a.njobs, NULL) != 0)
			abort();
		if (f)
			fclose(f);
		/* `iobench check`: touches no file, one line when it refuses */
		const struct iob_output_spec none = {0};
		const struct iob_run_opts ro = {.tool = "iobench",
						.source = "fuzz.fio",
						.outputs = &none,
						.source_in_errors = 1,
						.protect = (const char *const *)a.sources,
						.nprotect = a.nsources};
		err[0] = '\0';
		if (iob_run_check(reg, &ro, &a, err, sizeof err) != 0 && (strchr(err, '\n') || !err[0]))
			abort();
		if (!dir_empty())
			abort(); /* the check made something */
		iob_suite_free(&a);
	} else if (strchr(err, '\n') || !err[0]) {
		abort();
	}
	free(s);
	return 0;
}
