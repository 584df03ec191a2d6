/*
 * report.h - `iobench report RESULT [NEW] [-o FILE.html]` (report.c;
 * docs/outputs.md, "iobench report"): one self-contained HTML page from
 * saved results, by the html output.  argv after "report"; returns the exit
 * code (0 written, 1 the page could not be written, 2 bad input).
 */
#ifndef IOBENCH_REPORT_H
#define IOBENCH_REPORT_H

#include "iobench/loader.h"

int iob_report_main(const struct iob_registry *reg, int argc, char **argv);

#endif
