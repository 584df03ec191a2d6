/* Fuzz the pattern parser, and fill/check with whatever parses: a pattern
 * always verifies against itself. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/pattern.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), err[256];
	unsigned char buf[300], scratch[300];
	struct iob_pattern p = {.seed = 12345};
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (iob_pattern_parse(s, &p, err, sizeof err) == 0) {
		uint64_t off = size * 7919u;
		size_t first;
		uint8_t e, f;
		iob_pattern_fill(&p, buf, sizeof buf, off);
		if (iob_pattern_check(&p, buf, sizeof buf, off, scratch, &first, &e, &f) != 0)
			abort();
		char name[64];
		struct iob_pattern q = {.seed = 12345};
		iob_pattern_name(&p, name, sizeof name);
		if (iob_pattern_parse(name, &q, err, sizeof err) != 0 || memcmp(&p, &q, sizeof p) != 0)
			abort();
	}
	free(s);
	return 0;
}
