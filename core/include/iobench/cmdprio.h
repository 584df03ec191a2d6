/*
 * iobench/cmdprio.h - I/O priorities (docs/profiles.md, "I/O priority"):
 * a priority per I/O on the queued backends that can carry one
 * (IOB_CAP_IOPRIO: libaio's aio_reqprio, io_uring's sqe ioprio), drawn by
 * cmdprio_percentage or cmdprio_bssplit, and what a phase counted at each
 * priority.  A priority value is Linux's: class << 13 | hint << 3 | level.
 */
#ifndef IOBENCH_CMDPRIO_H
#define IOBENCH_CMDPRIO_H

#include <stddef.h>
#include <stdint.h>

#define IOB_PRIO_CLASS_SHIFT 13
#define IOB_PRIO_HINT_SHIFT 3
#define IOB_PRIO_HINT_MAX 1023u
#define IOB_CMDPRIO_MAX 16 /* cmdprio_bssplit entries in one direction */

/* Linux's value of a class (0: best effort, as fio takes it), level and hint. */
static inline uint16_t iob_prio_value(unsigned cls, unsigned level, unsigned hint)
{
	return (uint16_t)(((cls ? cls : 2u) << IOB_PRIO_CLASS_SHIFT) | (hint << IOB_PRIO_HINT_SHIFT) | level);
}

struct iob_cmdprio_entry {
	uint64_t bs;   /* the block size it applies to */
	uint32_t pct;  /* percent of that size's I/Os */
	uint16_t prio; /* the value they carry */
};

struct iob_cmdprio {
	int on;		 /* a per-I/O priority is drawn */
	uint32_t pct[2]; /* cmdprio_percentage: [0] reads, [1] writes */
	uint16_t prio[2];
	uint32_t n[2];	 /* cmdprio_bssplit: entries per direction (n: 0, the percentage) */
	struct iob_cmdprio_entry e[2][IOB_CMDPRIO_MAX];
	uint16_t dflt;	 /* the thread's own (prio_class, prio_level), 0: not set */
};

/* The job's texts (each "" when not given) into *c: 0, or -EINVAL with one
 * line naming the bad value.  Sizes in bssplit are bytes with iobench's
 * units. */
int iob_cmdprio_parse(const char *pct, const char *cls, const char *level, const char *bssplit,
		      struct iob_cmdprio *c, char *err, size_t errlen);
/* One key's text checked alone (key: cmdprio_percentage, _class, _level,
 * _bssplit). */
int iob_cmdprio_check_key(const char *key, const char *text, char *err, size_t errlen);
/* Does any priority drawn (or the thread's) have class 1 (real time)? */
int iob_cmdprio_wants_rt(const struct iob_cmdprio *c);

/* The priority of the next I/O of direction w and len bytes: an entry's
 * value, or 0 (the thread's).  *rng is the stream's own. */
uint16_t iob_cmdprio_draw(const struct iob_cmdprio *c, uint64_t *rng, int w, uint64_t len);

/* I/Os by the priority they went at (0: the thread's, none set), by direction. */
#define IOB_PRIO_HIST_MAX (2 * IOB_CMDPRIO_MAX + 2)
struct iob_prio_hist {
	uint32_t n;
	uint16_t prio[IOB_PRIO_HIST_MAX];
	uint64_t ios[2][IOB_PRIO_HIST_MAX];
};
void iob_prio_hist_add(struct iob_prio_hist *h, int write, uint16_t prio, uint64_t ios);
/* "0xPPPP:READ_IOS:WRITE_IOS ..." by priority, ascending */
void iob_prio_hist_text(const struct iob_prio_hist *h, char *out, size_t len);

#endif /* IOBENCH_CMDPRIO_H */
