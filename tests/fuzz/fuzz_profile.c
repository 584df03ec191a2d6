/* Fuzz the profile loader with arbitrary INI text: no crash, no leak, and a
 * refusal is one line.  An accepted profile is written back and re-read to
 * equal jobs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), err[2048];
	struct iob_suite a, b;
	if (!s || size > 65536) {
		free(s);
		return 0;
	}
	memcpy(s, data, size);
	s[size] = '\0';
	if (iob_profile_load_string("fuzz.ini", s, &a, err, sizeof err) == 0) {
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		/* a refused write (a name holding a line break) still closes the stream */
		int wrc = f ? iob_profile_write(f, a.jobs, a.njobs, NULL) : -1;
		if (f && fclose(f) == 0 && wrc == 0) {
			if (iob_profile_load_string("fuzz-back.ini", text, &b, err, sizeof err) != 0)
				abort();
			if (b.njobs != a.njobs || memcmp(a.jobs, b.jobs, a.njobs * sizeof *a.jobs) != 0)
				abort();
			iob_suite_free(&b);
		}
		free(text);
		iob_suite_free(&a);
	} else if (strchr(err, '\n') || !err[0]) {
		abort();
	}
	free(s);
	return 0;
}
