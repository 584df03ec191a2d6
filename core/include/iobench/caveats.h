/*
 * iobench/caveats.h - the one owner of measurement-truth policy: what could
 * make a figure lie, when it is worth a note, and how the note is worded.
 * The runner asks it before and after every phase; tools never word a
 * caveat themselves.  It owns:
 *   - page-cache residency of the range a read phase covers (threshold 10%);
 *   - the memory-size note (data set under twice physical memory);
 *   - holes in a file about to be read (reads of holes never reach storage);
 *   - "direct I/O was not in effect" for a backend that should bypass;
 *   - phases too short to time well;
 *   - the memory-file-system refusal and the alignment policy of direct I/O;
 *   - dropping the page cache and syncing, as this user or through sudo -n;
 *   - after each phase, what reached storage: the share of the bytes read
 *     that came from memory, and of the bytes written still not on storage
 *     at the phase's end (threshold 10% each), or that it was not measured.
 */
#ifndef IOBENCH_CAVEATS_H
#define IOBENCH_CAVEATS_H

#include <stddef.h>
#include <stdint.h>
#include "iobench/engine.h"
#include "iobench/result.h"

/* A read is worth a note when this share of its range is already cached. */
#define IOB_RESIDENT_NOTE_PCT 10.0
/* A phase is worth a note when more than this share of the bytes it read
 * came from memory, or of the bytes it wrote was not on storage at its end. */
#define IOB_STORAGE_NOTE_PCT 10.0
/* A data set under this many times physical memory may be served from it. */
#define IOB_MEMORY_NOTE_FACTOR 2
/* A phase shorter than this many times (the wall clock's resolution + the
 * cost of one clock read) is too short to time to 0.1%. */
#define IOB_SHORT_PHASE_FACTOR 1000u

/* What was measured about the data just before a read phase. */
struct iob_read_facts {
	int resident_known;
	double resident_pct; /* of the bytes the phase reads */
	int holes_known;
	double hole_pct;     /* of the bytes the phase reads */
	int stream;	     /* standard input is read */
	uint64_t bytes;	     /* of the files' ranges read, measured */
	int storage_known;   /* after the phase: what reached storage was measured, so
			      * the predictions (resident, memory size) give no note */
};

/* What a read phase is about to do, for the notes before it. */
struct iob_read_plan {
	const char *const *files;
	size_t nfiles;
	uint64_t len;	   /* bytes read from the start of each file; 0: to the end */
	uint64_t reads;	   /* bytes the phase reads in all (0: unknown) */
	int evicted;	   /* the files were just evicted from the page cache */
	enum iob_clock clock; /* what the phase's figures are timed with */
	/* a verify that reads back the writes logged (engine.h: nwlog logs, one
	 * a stream; wlog_files: each stream's own files, 0 when they share
	 * them): its holes are measured in those ranges only, not the files' */
	const struct iob_wlog *wlog;
	size_t nwlog, wlog_files;
};
/* Just before a read or verify: measure residency and holes of the range
 * read (the holes of the writes a verify reads back, with wlog; skipped
 * for "-").  Measures only: the notes come after the phase,
 * when it is known whether its handles bypassed the page cache. */
void iob_caveat_measure_read(const struct iob_read_plan *plan, struct iob_read_facts *facts);
/* After it: the notes the facts call for: data already cached (or still
 * cached after eviction) unless the reads bypassed the cache (`direct`),
 * holes, standard input, a CPU clock, and a data set small enough that a
 * phase reading it more than once is served from memory (or whose residency
 * could not be measured). */
void iob_caveat_read_notes(struct iob_notes *notes, const char *what, const struct iob_read_plan *plan,
			   const struct iob_read_facts *facts, int direct);
/* After a phase: direct I/O not in effect, too short to time. */
void iob_caveat_after_phase(struct iob_notes *notes, const char *what, const struct iob_phase_result *r,
			    const char *backend, int backend_bypasses);
/* After a phase, from the kernel's counts in r (storage_read_bytes,
 * storage_write_bytes, unwritten_bytes): the share of the bytes read that
 * came from memory rather than storage, and of the bytes written that were
 * not on storage at the phase's end, in %; -1 when not measured (or no
 * bytes in that direction). */
double iob_storage_cached_read_pct(const struct iob_phase_result *r);
double iob_storage_unwritten_pct(const struct iob_phase_result *r);
/* Their notes: above IOB_STORAGE_NOTE_PCT, or "not measured" (why: the
 * reason, or NULL to say the OS cannot tell).  memory_fs: the files are on a
 * memory file system (tmpfs), whose data never reaches storage. */
void iob_caveat_storage_notes(struct iob_notes *notes, const char *what, const struct iob_phase_result *r,
			      const char *why, int memory_fs);
/* The shortest phase the wall clock times to 0.1% here (measured once). */
uint64_t iob_caveat_short_phase_ns(void);

/* Direct I/O at `path` (a file, or the directory files go in): the offset
 * and length alignment it needs, or -EINVAL with a one-line reason when the
 * file system cannot bypass its cache (no O_DIRECT, or a memory file system
 * whose page cache is the storage).  An unknown alignment is 4096. */
int iob_caveat_direct_alignment(const char *path, uint32_t *align, char *why, size_t whylen);

/* How a privileged cache operation is carried out. */
enum iob_priv {
	IOB_PRIV_NONE = 0,
	IOB_PRIV_SELF = 1, /* as this user */
	IOB_PRIV_SUDO = 2, /* through `sudo -n` unless already root */
};
/* Drop the whole page cache (needs root, or sudo -n with IOB_PRIV_SUDO);
 * otherwise write back and evict only `path`.  *how says what was done.
 * Returns 0 when the whole cache was dropped, 1 when only path was evicted,
 * -errno when even that failed. */
int iob_cache_drop(enum iob_priv mode, const char *path, const char **how);
/* sync(2), or `sudo -n sync` with IOB_PRIV_SUDO when not root (falling back
 * to sync(2), which needs no privilege).  Returns 0, or 1 after a fallback,
 * with *how saying what was done. */
int iob_cache_sync(enum iob_priv mode, const char **how);
/* iob_cache_sync, its time added to the phase r (elapsed and sync time): a
 * tool that syncs after a write as part of the timed work. */
int iob_phase_sync(struct iob_phase_result *r, enum iob_priv mode, const char **how);
/* Evict one file from the page cache (write back first).  0 or -errno. */
int iob_cache_evict_file(const char *path);
/* Free memory (bytes; 0 when unknown), for the before/after of a drop. */
uint64_t iob_cache_free_memory(void);

#endif
