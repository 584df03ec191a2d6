/*
 * iobench/blocks.h - what a series phase reports (a job with series = true,
 * bigread's way of reading): one "block" record per I/O as the read goes
 * on, each with its final speed (iobench/series.h's speed stream, one block
 * behind), and at the end the summary fields of the phase record: block
 * speeds over all blocks and over the robust subset, and the cliff.  Every
 * figure is computed here, in the core; renderers only format.
 *
 * Records:
 *   "series"  once, before the first block: job, file, block_size_bytes,
 *             series_clock, clock_resolution_ns
 *   "block"   index, offset_bytes, bytes, time_ns, speed_bytes_per_s, merged
 */
#ifndef IOBENCH_BLOCKS_H
#define IOBENCH_BLOCKS_H

#include "iobench/engine.h"
#include "iobench/output.h"
#include "iobench/result.h"
#include "iobench/series.h"

struct iob_blocks {
	enum iob_clock clock;
	uint64_t resolution_ns;
	struct iob_speed_stream stream;
	size_t emitted;		/* blocks [0, emitted) have their records out */
	uint64_t emitted_off;	/* and their bytes */
	int header;		/* the "series" record is out */
	const char *job, *file;
	uint64_t block_size;
	struct iob_recbuf *rb;	/* for block records, while the phase record is built elsewhere */
};

/* "user", "system", "process", "wall" */
const char *iob_clock_name(enum iob_clock clock);

int iob_blocks_init(struct iob_blocks *b, enum iob_clock clock, const char *job, const char *file,
		    uint64_t block_size);
/* The engine's per-sample hook: emit every block whose speed is final; with
 * no sample yet (the file is open), the "series" header. */
void iob_blocks_stream(struct iob_blocks *b, const struct iob_series *s, struct iob_outputs *out);
/* After the phase: the blocks not out yet, then the summary fields appended
 * to the phase record rb, and the notes they call for.  Returns 0, or
 * -ERANGE when the clock measured no time at all (message in err). */
int iob_blocks_summary(struct iob_blocks *b, struct iob_phase_result *r, struct iob_recbuf *rb,
		       struct iob_outputs *out, struct iob_notes *notes, char *err, size_t errlen);
void iob_blocks_free(struct iob_blocks *b);

#endif
