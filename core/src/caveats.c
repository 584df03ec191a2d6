/*
 * caveats.c - measurement-truth policy in one place (iobench/caveats.h).
 */
#include "iobench/caveats.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "iobench/os.h"
#include "iobench/units.h"

/* Resident share of the first len bytes of path (len 0: whole file). */
static int residency(const char *path, uint64_t len, uint64_t *res, uint64_t *tot)
{
	return iob_cache_residency_range(path, 0, len, res, tot);
}

static void memory_note(struct iob_notes *notes, const char *what, uint64_t total_bytes, const char *why)
{
	uint64_t mem = iob_physical_memory();
	if (mem && total_bytes < IOB_MEMORY_NOTE_FACTOR * mem) {
		char a[32], b[32];
		iob_format_bytes((double)total_bytes, a, sizeof a);
		iob_format_bytes((double)mem, b, sizeof b);
		iob_notes_add(notes, "%s: the data set (%s) is smaller than twice physical memory (%s): %s", what, a, b,
			      why);
	}
}

/* The logged writes of the plan's file `file` (a verify reads them back):
 * each in turn, skipping those that failed (len 0); bytes sums them. */
struct wlog_walk {
	const struct iob_read_plan *p;
	size_t file, stream, pos;
	uint64_t bytes;
};

static int wlog_next(void *arg, uint64_t *off, uint64_t *len)
{
	struct wlog_walk *w = arg;
	const struct iob_read_plan *p = w->p;
	for (; w->stream < p->nwlog; w->stream++, w->pos = 0)
		while (w->pos < p->wlog[w->stream].n) {
			const struct iob_wlog_ent *e = &p->wlog[w->stream].v[w->pos++];
			if (e->len && w->stream * p->wlog_files + e->fi == w->file) {
				*off = e->off;
				*len = e->len;
				w->bytes += e->len;
				return 1;
			}
		}
	return 0;
}

/* The holes of the bytes file i's read covers: its range, or with a log
 * the writes a verify reads back.  0 with *holes and *bytes. */
static int read_holes(const struct iob_read_plan *p, size_t i, uint64_t size, uint64_t *holes, uint64_t *bytes)
{
	if (!p->wlog) {
		*bytes = p->len && p->len < size ? p->len : size;
		return iob_file_holes(p->files[i], p->len, holes);
	}
	struct wlog_walk w = {.p = p, .file = i};
	int rc = iob_file_holes_in(p->files[i], wlog_next, &w, holes);
	*bytes = w.bytes;
	return rc;
}

void iob_caveat_measure_read(const struct iob_read_plan *p, struct iob_read_facts *facts)
{
	uint64_t res = 0, tot = 0, holes = 0, bytes = 0, read = 0;
	int rknown = 0, hknown = 0;
	memset(facts, 0, sizeof *facts);
	for (size_t i = 0; i < p->nfiles; i++) {
		uint64_t r = 0, t = 0, h = 0, sz = 0, b = 0;
		if (strcmp(p->files[i], "-") == 0) {
			facts->stream = 1;
			continue;
		}
		if (residency(p->files[i], p->len, &r, &t) == 0) {
			res += r;
			tot += t;
			rknown = 1;
		}
		if (iob_file_size(p->files[i], &sz) == 0 && read_holes(p, i, sz, &h, &b) == 0) {
			holes += h;
			read += b;
			bytes += p->len && p->len < sz ? p->len : sz;
			hknown = 1;
		}
	}
	if (rknown && tot) {
		facts->resident_known = 1;
		facts->resident_pct = 100.0 * (double)res / (double)tot;
	}
	if (hknown && read) {
		facts->holes_known = 1;
		facts->hole_pct = 100.0 * (double)holes / (double)read;
	}
	facts->bytes = bytes;
}

void iob_caveat_read_notes(struct iob_notes *notes, const char *what, const struct iob_read_plan *p,
			   const struct iob_read_facts *facts, int direct)
{
	if (facts->stream)
		iob_notes_add(notes,
			      "standard input: the speed is that of whatever feeds it (a pipe includes its writer and "
			      "the cache behind it), not of one device, and its cache state is unknown");
	if (p->clock != IOB_CLOCK_WALL)
		iob_notes_add(notes,
			      "%s: timed with the %s CPU clock, which leaves out time spent waiting for the device, so "
			      "a slow device can look fast; the wall clock does not",
			      what, p->clock == IOB_CLOCK_USER ? "user" : p->clock == IOB_CLOCK_SYSTEM ? "system"
												: "process");
	/* a prediction: what reached storage, when measured, has the word instead */
	if (!direct && !facts->storage_known && facts->resident_known && facts->resident_pct >= IOB_RESIDENT_NOTE_PCT)
		iob_notes_add(notes,
			      p->evicted ? "%s: %.0f%% of the data was still in the page cache after eviction (a "
					   "memory file system, or pages held elsewhere): its rate measures memory, "
					   "not storage"
					 : "%s: %.0f%% of the data was in the page cache before the read: its rate "
					   "measures memory, not storage (evict it first, or use the direct backend)",
			      what, facts->resident_pct);
	if (facts->holes_known && facts->hole_pct > 0)
		iob_notes_add(notes,
			      "%s: %.1f%% of the bytes read are holes (never written): reading a hole returns zeros "
			      "without reaching storage, so its rate is not the device's",
			      what, facts->hole_pct);
	if (direct || facts->stream || !facts->bytes || facts->storage_known)
		return;
	if (!facts->resident_known)
		memory_note(notes, what, facts->bytes,
			    "its residency could not be measured, so reads may be served from the page cache");
	else if (p->reads > facts->bytes)
		memory_note(notes, what, facts->bytes,
			    "the phase reads it more than once, so the later reads may be served from the page cache");
}

double iob_storage_cached_read_pct(const struct iob_phase_result *r)
{
	if (r->storage_read_bytes == UINT64_MAX || !r->bytes_read)
		return -1;
	uint64_t got = r->storage_read_bytes < r->bytes_read ? r->storage_read_bytes : r->bytes_read;
	return 100.0 * (double)(r->bytes_read - got) / (double)r->bytes_read;
}

double iob_storage_unwritten_pct(const struct iob_phase_result *r)
{
	if (r->unwritten_bytes == UINT64_MAX || !r->bytes_written)
		return -1;
	uint64_t left = r->unwritten_bytes < r->bytes_written ? r->unwritten_bytes : r->bytes_written;
	return 100.0 * (double)left / (double)r->bytes_written;
}

void iob_caveat_storage_notes(struct iob_notes *notes, const char *what, const struct iob_phase_result *r,
			      const char *why, int memory_fs)
{
	double cached = iob_storage_cached_read_pct(r), left = iob_storage_unwritten_pct(r);
	char a[32], b[32];
	if (r->bytes_read && cached < 0)
		iob_notes_add(notes, "%s: how much of the data read came from storage was not measured (%s)", what,
			      why ? why : "this OS does not count the bytes it fetches from storage for a process");
	else if (cached > IOB_STORAGE_NOTE_PCT) {
		iob_format_bytes((double)r->bytes_read, a, sizeof a);
		iob_format_bytes((double)(r->storage_read_bytes < r->bytes_read ? r->storage_read_bytes : r->bytes_read),
				 b, sizeof b);
		iob_notes_add(notes,
			      "%s: %.0f%% of the data read came from memory, not storage (the kernel fetched %s from "
			      "storage for the %s read): its rate measures the page cache (%s)",
			      what, cached, b, a,
			      memory_fs ? "a memory file system: its data is never on storage"
					: "evict the file first, or use the direct backend");
	}
	if (memory_fs)
		return; /* what it writes stays in memory: nothing to say that the read's note does not */
	if (r->bytes_written && left < 0)
		iob_notes_add(notes, "%s: how much of the data written reached storage was not measured (%s)", what,
			      why ? why : "this OS cannot tell which cached pages are still unwritten");
	else if (left > IOB_STORAGE_NOTE_PCT) {
		iob_format_bytes((double)r->bytes_written, a, sizeof a);
		iob_notes_add(notes,
			      "%s: %.0f%% of the %s written was still in the page cache, not on storage, at the "
			      "phase's end: its rate measures the page cache (set fsync = true to include the flush)",
			      what, left, a);
	} else if (left >= 0 && r->storage_write_bytes != UINT64_MAX && !r->direct &&
		   r->storage_write_bytes < r->bytes_written &&
		   100.0 * (double)(r->bytes_written - r->storage_write_bytes) / (double)r->bytes_written >
			   IOB_STORAGE_NOTE_PCT) {
		/* flushed, but most writes landed on pages still dirty from earlier ones */
		iob_format_bytes((double)r->bytes_written, a, sizeof a);
		iob_format_bytes((double)r->storage_write_bytes, b, sizeof b);
		iob_notes_add(notes,
			      "%s: of the %s written, the kernel sent only %s towards storage: the rest overwrote "
			      "data still in the page cache, so its rate measures the page cache",
			      what, a, b);
	}
}

uint64_t iob_caveat_short_phase_ns(void)
{
	static uint64_t floor;
	if (!floor) {
		/* the cost of one clock read, the cheapest of a few tries */
		uint64_t best = UINT64_MAX;
		for (int t = 0; t < 8; t++) {
			uint64_t t0 = iob_now_ns();
			for (int i = 0; i < 63; i++)
				(void)iob_now_ns();
			uint64_t per = (iob_now_ns() - t0) / 64;
			best = per < best ? per : best;
		}
		floor = IOB_SHORT_PHASE_FACTOR * (iob_clock_resolution_ns(IOB_CLOCK_WALL) + best);
	}
	return floor;
}

void iob_caveat_after_phase(struct iob_notes *notes, const char *what, const struct iob_phase_result *r,
			    const char *backend, int backend_bypasses)
{
	if (backend_bypasses && !r->direct && r->ops)
		iob_notes_add(notes, "%s: backend %s did not report direct I/O in effect", what, backend);
	uint64_t floor = iob_caveat_short_phase_ns();
	if (r->ops && r->status >= 0 && !r->interrupted && r->elapsed_ns < floor) {
		char need[32];
		iob_format_ns((double)floor, need, sizeof need);
		iob_notes_add(notes,
			      "%s: took under %s (1000 clock reads), too short for this machine's clock to time it to "
			      "0.1%%: make it larger",
			      what, need);
	}
}

int iob_caveat_direct_alignment(const char *path, uint32_t *align, char *why, size_t whylen)
{
	uint32_t a = 0;
	int rc = iob_dio_alignment(path, &a);
	if (rc == -EINVAL) {
		snprintf(why, whylen,
			 "the file system holding %s cannot bypass the buffer cache (no O_DIRECT, or a memory file "
			 "system such as tmpfs)",
			 path);
		return -EINVAL;
	}
	*align = rc != 0 || a == 0 ? 4096 : a;
	return 0;
}

int iob_cache_sync(enum iob_priv mode, const char **how)
{
	if (mode == IOB_PRIV_SUDO && !iob_is_root()) {
		char *argv[] = {"sudo", "-n", "sync", NULL};
		if (iob_run_quiet(argv) == 0) {
			*how = "sudo sync";
			return 0;
		}
		iob_sync_all();
		*how = "'sudo -n sync' did not work: ran sync(2) directly instead (it needs no privilege)";
		return 1;
	}
	iob_sync_all();
	*how = "sync(2)";
	return 0;
}

int iob_cache_drop(enum iob_priv mode, const char *path, const char **how)
{
	if (iob_is_root()) {
		if (iob_drop_caches() == 0) {
			*how = "drop_caches";
			return 0;
		}
	} else if (mode == IOB_PRIV_SUDO) {
		char *argv[] = {"sudo", "-n", "sh", "-c", "sync && echo 3 > /proc/sys/vm/drop_caches", NULL};
		if (iob_run_quiet(argv) == 0) {
			*how = "sudo drop_caches";
			return 0;
		}
	}
	*how = "evict the file only";
	int rc = iob_cache_evict(path);
	return rc < 0 ? rc : 1;
}

int iob_phase_sync(struct iob_phase_result *r, enum iob_priv mode, const char **how)
{
	uint64_t t0 = iob_now_ns();
	int rc = iob_cache_sync(mode, how);
	uint64_t dt = iob_now_ns() - t0;
	r->elapsed_ns += dt;
	r->sync_ns += dt;
	return rc;
}

int iob_cache_evict_file(const char *path)
{
	return iob_cache_evict(path);
}

uint64_t iob_cache_free_memory(void)
{
	return iob_free_memory();
}
