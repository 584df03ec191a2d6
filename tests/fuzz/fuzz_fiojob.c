/* Fuzz the fio job file reader with arbitrary text: no crash, no leak, a
 * refusal is one line, and an accepted file gives jobs that iobench's own
 * validation and profile writer take (names, sizes, counts in range). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/fiojob.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), err[2048];
	struct iob_suite a;
	static const char *const sets[] = {"size=1m"};
	/* the files go nowhere: a directory that does not exist */
	const struct iob_fio_opts opts = {.dir = "/nonexistent-iobench-fuzz", .sets = sets, .nsets = 1,
					  .ignore = "rate,verify"};
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
		iob_suite_free(&a);
	} else if (strchr(err, '\n') || !err[0]) {
		abort();
	}
	free(s);
	return 0;
}
