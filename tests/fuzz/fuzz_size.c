/* Fuzz the size, number and boolean parsers: no crash, and every accepted
 * size re-parses from its decimal form to the same value. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), err[256];
	uint64_t v, w;
	double d;
	int b;
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (iob_parse_size(s, &v, err, sizeof err) == 0) {
		char back[32];
		snprintf(back, sizeof back, "%llu", (unsigned long long)v);
		if (iob_parse_size(back, &w, err, sizeof err) != 0 || w != v)
			abort();
	} else if (!err[0] || strchr(err, '\n')) {
		abort(); /* every refusal says why, on one line */
	}
	iob_parse_u64(s, &v, err, sizeof err);
	if (iob_parse_double(s, &d, err, sizeof err) == 0 && !(d == d && d - d == 0))
		abort(); /* never accepts nan or inf */
	iob_parse_bool(s, &b, err, sizeof err);
	free(s);
	return 0;
}
