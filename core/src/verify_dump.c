/*
 * verify_dump.c - verify_dump (verify_dump.h).
 */
#include "verify_dump.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/log.h"
#include "iobench/os.h"
#include "iobench/outfile.h"
#include "iobench/pattern.h"

static int dump_one(const char *path, const unsigned char *buf, size_t len)
{
	struct iob_outfile of = {0};
	char err[1024];
	int rc = iob_outfile_check("verify dump", path, 0, err, sizeof err);
	if (rc == 0)
		rc = iob_outfile_open(&of, "verify dump", path, 0, err, sizeof err);
	if (rc != 0) {
		iob_log(IOB_LOG_WARN, "verify_dump", "%s", err);
		return rc;
	}
	rc = iob_outfile_commit(&of);
	if (rc == 0 && len && fwrite(buf, 1, len, of.f) != len)
		rc = -EIO;
	int cr = iob_outfile_close(&of);
	if (rc == 0)
		rc = cr;
	if (rc != 0)
		iob_log(IOB_LOG_WARN, "verify_dump", "%s: %s", path, strerror(-rc));
	return rc;
}

void iob_verify_dump(const struct iob_pattern *pat, const struct iob_phase_result *r, uint64_t bs)
{
	if (!r->bad_file[0] || !bs || bs > (1ull << 31))
		return;
	uint64_t off = r->first_bad_offset - r->first_bad_offset % bs;
	unsigned char *exp = malloc((size_t)bs), *got = malloc((size_t)bs);
	FILE *f = exp && got ? iob_fopen(r->bad_file, "rb") : NULL;
	size_t n = 0;
	if (f) {
#ifdef _WIN32
		int sk = _fseeki64(f, (long long)off, SEEK_SET);
#else
		int sk = fseeko(f, (off_t)off, SEEK_SET);
#endif
		if (sk == 0)
			n = fread(got, 1, (size_t)bs, f);
		fclose(f);
	}
	if (!f || !n) {
		iob_log(IOB_LOG_WARN, "verify_dump", "could not read the block at offset %llu of %s again",
			(unsigned long long)off, r->bad_file);
	} else {
		struct iob_pattern p = *pat;
		p.block_size = bs;
		iob_pattern_fill(&p, exp, n, off);
		char pe[IOB_PATH_MAX + 64], pr[IOB_PATH_MAX + 64];
		snprintf(pe, sizeof pe, "%s.%llu.expected", r->bad_file, (unsigned long long)off);
		snprintf(pr, sizeof pr, "%s.%llu.received", r->bad_file, (unsigned long long)off);
		if (dump_one(pe, exp, n) == 0 && dump_one(pr, got, n) == 0)
			iob_log(IOB_LOG_WARN, "verify_dump", "the bad block at offset %llu: %s and %s",
				(unsigned long long)off, pe, pr);
	}
	free(exp);
	free(got);
}
