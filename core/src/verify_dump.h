/*
 * verify_dump.h - verify_dump: the first bad block of a verify phase, as
 * expected and as found, to files beside the data file (the runner's).
 */
#ifndef IOBENCH_VERIFY_DUMP_H
#define IOBENCH_VERIFY_DUMP_H

#include <stdint.h>

#include "iobench/engine.h"
#include "iobench/job.h"

/* <file>.<offset>.expected and <file>.<offset>.received for the block of bs
 * bytes holding r->first_bad_offset of r->bad_file: the expected one made
 * from the job's pattern, the received one read again from the file.  Both
 * opened the checked way (outfile.c); a failure is a warning, the run's
 * outcome stays the mismatch. */
void iob_verify_dump(const struct iob_pattern *pat, const struct iob_phase_result *r, uint64_t bs);

#endif
