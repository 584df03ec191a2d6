/*
 * compare.h - `iobench compare BASE NEW` (docs/statistics.md, "compare"):
 * argv after "compare"; returns the exit code (0 nothing regressed, 1 some
 * figure regressed, 2 bad input).
 */
#ifndef IOBENCH_COMPARE_H
#define IOBENCH_COMPARE_H

#include <stddef.h>
#include <stdint.h>

int iob_compare_main(int argc, char **argv);
/* For `iobench report BASE NEW` (report.c): compare the two result files as
 * `iobench compare` does and hand back its JSON document (--json's, malloc'd
 * into *json).  0, or -1 with one line in err (a bad input, no memory). */
int iob_compare_to_json(const char *base, const char *new_, double alpha, double threshold, char **json,
			char *err, size_t errlen);
/* The block size of direction d (0 read, 1 write) in fio's "bs" text ("4k",
 * "4k,64k"), as compare reads it; fio's default 4096 when text is NULL. */
uint64_t iob_compare_fio_bs(const char *text, int d);

#endif
