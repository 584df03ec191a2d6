/* Fuzz the pattern parser, and fill/check with whatever parses: a pattern
 * always verifies against itself, with verify headers, data content and
 * their sizes taken from the input's first bytes too. */
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
		/* verify headers and content: any kind, interval and shares */
		struct iob_pattern v = p;
		unsigned char big[1024], sbig[1024];
		v.verify = (enum iob_verify_kind)(size ? data[0] % 7 : 0);
		v.block_size = 256;
		v.verify_interval = size > 1 ? (uint64_t)64 << (data[1] % 3) : 0;
		v.compress_pct = size > 2 ? data[2] % 101 : 0;
		v.compress_chunk = size > 3 ? 1 + data[3] % 256 : 512;
		v.dedupe_pct = size > 4 ? data[4] % 101 : 0;
		v.verify_generation = size;
		for (uint64_t o = 0; o < 2; o++) { /* whole blocks, then a part at an odd offset */
			uint64_t at = o ? off : 256 * (size % 5);
			size_t n = o ? sizeof big - 5 : sizeof big;
			iob_pattern_fill(&v, big, n, at);
			if (iob_pattern_check(&v, big, n, at, sbig, &first, &e, &f) != 0)
				abort();
		}
		char name[IOB_PATTERN_NAME_MAX];
		struct iob_pattern q = {.seed = 12345};
		iob_pattern_name(&p, name, sizeof name);
		if (iob_pattern_parse(name, &q, err, sizeof err) != 0 || memcmp(&p, &q, sizeof p) != 0)
			abort();
	}
	free(s);
	return 0;
}
