/*
 * compare.h - `iobench compare BASE NEW` (docs/statistics.md, "compare"):
 * argv after "compare"; returns the exit code (0 nothing regressed, 1 some
 * figure regressed, 2 bad input).
 */
#ifndef IOBENCH_COMPARE_H
#define IOBENCH_COMPARE_H

int iob_compare_main(int argc, char **argv);

#endif
