/*
 * engine_io.c - what every loop of the engine shares (engine.c has the map of
 * the engine's files).
 *
 * Sections: a phase's first error (fail); files: a further pass's eviction,
 * the check of what was opened, open, close, sync; buffers touched and the
 * first file queried before the clock (touch, prepare, open_all); one I/O's
 * result: verification, a broken backend contract, after_io's slow part,
 * short reads, the mixed and queued loops' accounting.
 */

#include "engine_int.h"

int iob_eng_fail(struct phase *ph, int err, const char *what, const char *file, uint64_t off, size_t len)
{
	struct iob_phase_result *r = ph->r;
	if (r->status < 0)
		return r->status; /* keep the first error */
	r->status = err;
	if (off == UINT64_MAX)
		snprintf(r->error, sizeof r->error, "%s %s failed: %s", what, file, strerror(-err));
	else
		snprintf(r->error, sizeof r->error, "%s of %zu bytes at offset %llu of %s failed: %s", what, len,
			 (unsigned long long)off, file, strerror(-err));
	return err;
}

/* A further pass over file fi starts uncached (spec.evict_passes): the
 * pass's range [off, off + len) of its cached pages dropped (len 0: to the
 * end), as fio's invalidate does at each wrap.  Inside the timed window: a
 * reported time never leaves out what the tool itself did to get it. */
void iob_eng_pass_evict(const struct phase *ph, size_t fi, uint64_t off, uint64_t len)
{
	if (ph->spec->evict_passes && !ph->r->direct)
		(void)iob_cache_drop_range(ph->spec->files[fi], off, len);
}

/* Every file's pass starts over (random access: the whole file; mixed and
 * queued sequential: each file's region). */
void iob_eng_pass_evict_all(const struct phase *ph)
{
	const struct iob_phase_spec *s = ph->spec;
	const int region = s->access == IOB_ACCESS_SEQ && ph->fstart && ph->fend;
	for (size_t i = 0; s->evict_passes && i < s->nfiles; i++)
		iob_eng_pass_evict(ph, i, region ? ph->fstart[i] : 0, region ? ph->fend[i] - ph->fstart[i] : 0);
}

/* Decide on what was opened, not on a path: a device swapped in for the
 * checked file after the checks is refused here, before any I/O. */
static int check_opened(struct phase *ph, size_t i)
{
	const struct iob_phase_spec *s = ph->spec;
	struct iob_file_info info = {.struct_size = sizeof info};
	ph->checked[i] = 1;
	if (s->allow_devices || ph->ops->info(ph->handles[i], &info) < 0)
		return 0;
	if (info.file_type != IOB_FILE_BLOCKDEV && info.file_type != IOB_FILE_CHARDEV)
		return 0;
	ph->ops->close(ph->handles[i]);
	ph->handles[i] = NULL;
	iob_eng_fail(ph, -EPERM, "open of", s->files[i], UINT64_MAX, 0);
	snprintf(ph->r->error, sizeof ph->r->error,
		 "%s turned out to be a %s device when opened; refusing to touch it (allow devices to test one)",
		 s->files[i], info.file_type == IOB_FILE_BLOCKDEV ? "block" : "character");
	return -EPERM;
}

int iob_eng_open_one(struct phase *ph, size_t i)
{
	const struct iob_phase_spec *s = ph->spec;
	struct iob_open_args a = {
		.struct_size = sizeof a,
		.path = s->files[i],
		.flags = ph->open_flags | (s->follow_symlinks ? 0 : IOB_OPEN_NOFOLLOW),
		.mode = 0644,
		.size_hint = ph->write && !s->fill_device ? s->file_size : 0,
		.options = s->backend_options && *s->backend_options ? s->backend_options : NULL,
		.queue_depth = ph->queued ? s->iodepth : 1,
	};
	if (ph->write && !ph->created[i] && strcmp(s->files[i], "-") != 0)
		ph->created[i] = iob_path_kind(s->files[i], 0) == IOB_PATH_MISSING ? 1 : ph->created[i];
	int rc = ph->ops->open(&a, &ph->handles[i]);
	if (rc < 0) {
		ph->handles[i] = NULL;
		if (rc == -ELOOP && !s->follow_symlinks) {
			iob_eng_fail(ph, rc, "open of", s->files[i], UINT64_MAX, 0);
			snprintf(ph->r->error, sizeof ph->r->error,
				 "open of %s refused: it is a symbolic link (set follow_symlinks = true to allow it)",
				 s->files[i]);
			return rc;
		}
		return iob_eng_fail(ph, rc, "open of", s->files[i], UINT64_MAX, 0);
	}
	return ph->checked[i] ? 0 : check_opened(ph, i);
}

int iob_eng_close_one(struct phase *ph, size_t i)
{
	if (!ph->handles[i])
		return 0;
	int rc = ph->ops->close(ph->handles[i]);
	ph->handles[i] = NULL;
	if (rc < 0)
		return iob_eng_fail(ph, rc, "close of", ph->spec->files[i], UINT64_MAX, 0);
	return 0;
}

int iob_eng_sync_one(struct phase *ph, size_t i)
{
	uint64_t t0 = iob_now_ns();
	int rc = ph->ops->sync ? ph->ops->sync(ph->handles[i]) : -ENOTSUP;
	ph->r->sync_ns += iob_now_ns() - t0;
	if (rc < 0)
		return iob_eng_fail(ph, rc, "sync of", ph->spec->files[i], UINT64_MAX, 0);
	return 0;
}

/* Make a buffer the phase allocated present before the clock starts: a copy
 * of `from`, else the pattern as at offset 0 (pattern 1), else (a buffer
 * reads fill) one byte written per 4 KiB, which faults every page in without
 * filling it, or where the OS can, its pages made present in one call
 * (iob_mem_populate; bigread bufsize=0.5 over a cached 1 GiB:
 * docs/performance.md).  In pieces, looking at the stop flag before each:
 * GiBs of buffers take seconds to touch, and SIGTERM must not wait for them
 * (issue 24).  0, or 1 when a stop came (the phase ends interrupted). */
#define TOUCH_PIECE ((size_t)64 << 20)
int iob_eng_touch(struct phase *ph, unsigned char *buf, size_t len, const unsigned char *from, int pattern)
{
	for (size_t at = 0; at < len; at += TOUCH_PIECE) {
		if (stopped(ph->spec->stop)) {
			ph->r->interrupted = 1;
			return 1;
		}
		size_t n = len - at < TOUCH_PIECE ? len - at : TOUCH_PIECE;
		if (from)
			memcpy(buf + at, from + at, n);
		else if (pattern)
			iob_pattern_fill(&ph->spec->pattern, buf + at, n, at);
		else if (iob_mem_populate(buf + at, n) != 0)
			for (size_t p = 0; p < n; p += 4096)
				buf[at + p] = 0;
	}
	return 0;
}

/* Query the first file for alignment and direct I/O; check the spec fits. */
int iob_eng_prepare(struct phase *ph)
{
	const struct iob_phase_spec *s = ph->spec;
	struct iob_file_info info;
	int rc;

	if (iob_eng_open_one(ph, 0) < 0)
		return ph->r->status;
	memset(&info, 0, sizeof info);
	info.struct_size = sizeof info;
	rc = ph->ops->info(ph->handles[0], &info);
	if (rc < 0)
		return iob_eng_fail(ph, rc, "query of", s->files[0], UINT64_MAX, 0);
	ph->r->direct = info.direct != 0;
	ph->io_align = info.io_align ? info.io_align : 1;
	size_t mem_align = info.mem_align > 4096 ? info.mem_align : 4096;
	ph->mem_align = mem_align;
	uint64_t bs = s->block_size;
	if (ph->io_align > 1) {
		uint64_t oa = s->offset_align ? s->offset_align : bs;
		const char *bad = NULL;
		uint64_t val = 0;
		if (bs % ph->io_align) {
			bad = "block size";
			val = bs;
		} else if (s->access == IOB_ACCESS_RAND && oa % ph->io_align) {
			bad = "offset alignment";
			val = oa;
		} else if (s->shape && (val = iob_shape_misaligned(s->shape, ph->io_align)) != 0) {
			bad = "bssplit block size";
		} else if ((ph->write || ph->mixed) && s->file_size % ph->io_align) {
			bad = "file size";
			val = s->file_size;
		}
		if (bad) {
			ph->r->status = -EINVAL;
			snprintf(ph->r->error, sizeof ph->r->error,
				 "%s %llu is not a multiple of %u bytes, the alignment %s requires for %s "
				 "(direct I/O cannot serve it; refusing rather than reading through the cache)",
				 bad, (unsigned long long)val, ph->io_align, s->backend->desc.name, s->files[0]);
			return -EINVAL;
		}
	}
	ph->buflen = (size_t)bs;
	/* a file (not a stream) is open: the series' header can go out now */
	if (s->record_series && s->on_sample && !info.is_stream && ph->r->series.n == 0)
		s->on_sample(s->sample_arg, &ph->r->series);
	if (s->phase == IOB_PHASE_READ && s->access == IOB_ACCESS_SEQ && s->nfiles == 1 && !info.is_stream &&
	    info.size < bs) {
		/* a file smaller than the block needs no larger buffer: the reads
		 * are the same (a 1 GiB bigread block over a 4 KiB file) */
		uint64_t unit = ph->io_align > 4096 ? ph->io_align : 4096;
		uint64_t need = info.size ? (info.size + unit - 1) / unit * unit : unit;
		if (need < bs)
			ph->buflen = (size_t)need;
	}
	/* a series read: its pieces reuse one piece's buffer (engine_int.h) */
	ph->piece_reuse = s->record_series && s->phase == IOB_PHASE_READ;
	ph->bufmem = ph->piece_reuse && ph->buflen > SERIES_PIECE ? SERIES_PIECE : ph->buflen;
	/* A periodic pattern (iotest's text, hex of several bytes) written in
	 * order: the buffer holds a period more, filled once, and each block is
	 * written from where its offset falls in the period (the same bytes, no
	 * copy of a block before each write); not where the backend needs its
	 * buffers aligned (direct I/O) */
	ph->period = ph->write && ph->fill_each && !ph->mixed && !ph->queued && !ph->shaped &&
				     s->access == IOB_ACCESS_SEQ && info.mem_align <= 1
			     ? iob_pattern_period(&s->pattern)
			     : 0;
	ph->buf = iob_alloc_aligned(mem_align, ph->bufmem + ph->period);
	if (ph->period) {
		ph->bufbase = ph->buf;
		ph->fill_each = 0;
	}
	if (s->load.verify_backlog && (ph->write || ph->mixed)) { /* its ring: the runner's, reserved */
		const char *why = s->nfiles > 1 ? "a stream reads back through its one file, and has several"
				  : !s->wlog_out || s->wlog_out->cap < s->load.verify_backlog ? "no list of the blocks written"
											       : NULL;
		if (why) {
			ph->r->status = -EINVAL;
			snprintf(ph->r->error, sizeof ph->r->error, "verify_backlog %llu: %s",
				 (unsigned long long)s->load.verify_backlog, why);
			return -EINVAL;
		}
		ph->bl = s->wlog_out;
		ph->bl_head = 0;
		ph->bl_last_read = 1; /* fio's last_ddir starts at DDIR_READ: no batch before a write completes */
		ph->blbuf = iob_alloc_aligned(mem_align, ph->buflen);
		if (!ph->blbuf || iob_eng_touch(ph, ph->blbuf, ph->buflen, NULL, 0))
			return ph->blbuf ? 1 : iob_eng_fail(ph, -ENOMEM, "buffer allocation for", s->files[0], UINT64_MAX, 0);
	}
	ph->scratch = ph->verify || ph->bl ? iob_alloc_aligned(mem_align, ph->buflen) : NULL;
	const int rb = (ph->mixed || ph->shaped || ph->replay) && !ph->queued;
	ph->rbuf = rb ? iob_alloc_aligned(mem_align, ph->buflen) : NULL;
	if (!ph->buf || ((ph->verify || ph->bl) && !ph->scratch) || (rb && !ph->rbuf))
		return iob_eng_fail(ph, -ENOMEM, "buffer allocation for", s->files[0], UINT64_MAX, 0);
	if (iob_eng_touch(ph, ph->buf, ph->bufmem + ph->period, NULL, ph->write || ph->mixed) ||
	    (ph->rbuf && iob_eng_touch(ph, ph->rbuf, ph->buflen, NULL, 0)))
		return 1;
	return 0;
}

/* Mixed and queued phases: every file open before the clock starts, each
 * one's region (sequential access; random access draws over file_size). */
int iob_eng_open_all(struct phase *ph)
{
	const struct iob_phase_spec *s = ph->spec;
	ph->fstart = calloc(s->nfiles, sizeof *ph->fstart);
	ph->fend = calloc(s->nfiles, sizeof *ph->fend);
	if (!ph->fstart || !ph->fend)
		return iob_eng_fail(ph, -ENOMEM, "region table for", s->files[0], UINT64_MAX, 0);
	for (size_t i = 0; i < s->nfiles; i++) {
		struct iob_file_info info = {.struct_size = sizeof info};
		if (!ph->handles[i] && iob_eng_open_one(ph, i) < 0)
			return ph->r->status;
		int rc = ph->ops->info(ph->handles[i], &info);
		if (rc < 0)
			return iob_eng_fail(ph, rc, "query of", s->files[i], UINT64_MAX, 0);
		if (info.is_stream) {
			iob_eng_fail(ph, -EINVAL, "open of", s->files[i], UINT64_MAX, 0);
			snprintf(ph->r->error, sizeof ph->r->error,
				 "%s is a stream: a %s phase needs a file it can seek in (use iodepth = 1 and a read "
				 "phase for a stream)",
				 s->files[i], ph->queued ? "queued" : "mixed");
			return -EINVAL;
		}
		uint64_t size = s->file_size;
		if (!ph->write && (size == 0 || (!ph->mixed && info.size < size)))
			size = info.size; /* reads: to the end of the file as it is now */
		if (s->access == IOB_ACCESS_RAND) {
			ph->fstart[i] = 0;
			ph->fend[i] = s->file_size;
			continue;
		}
		uint64_t a = s->region_off < size ? s->region_off : size, e = size;
		if (s->region_len && s->region_len < size - a)
			e = a + s->region_len;
		ph->fstart[i] = a;
		ph->fend[i] = e;
	}
	return 0;
}

/* Check n bytes read into buf from offset off of file fi against the pattern. */
static int verify_piece(struct phase *ph, size_t fi, const unsigned char *buf, size_t n, uint64_t off)
{
	struct iob_phase_result *r = ph->r;
	size_t first = 0;
	uint8_t exp = 0, got = 0;
	char why[sizeof r->verify_why];
	if (iob_pattern_check_why(&ph->spec->pattern, buf, n, off, ph->scratch, &first, &exp, &got, why, sizeof why)) {
		if (r->bad_blocks++ == 0) {
			r->first_bad_offset = off + first;
			r->expected = exp;
			r->found = got;
			snprintf(r->bad_file, sizeof r->bad_file, "%s", ph->spec->files[fi]);
			snprintf(r->verify_why, sizeof r->verify_why, "%s", why);
		}
		if (ph->spec->load.verify_fatal && r->status == 0) { /* ends the loops as an error would; a mismatch at the end */
			ph->verify_halt = 1;
			r->status = -ECANCELED;
			snprintf(r->error, sizeof r->error, "verify stopped at the first bad block (verify_fatal)");
		}
	}
	return r->status == -ECANCELED ? -ECANCELED : 0;
}

/* Read back and check the oldest block waiting in the backlog's ring. */
static int backlog_read_oldest(struct phase *ph)
{
	struct iob_wlog *l = ph->bl;
	const struct iob_wlog_ent e = l->v[ph->bl_head];
	ph->bl_head = (ph->bl_head + 1) % l->cap;
	l->n--;
	int64_t n = ph->ops->read_at(ph->handles[e.fi], ph->blbuf, e.len, e.off);
	return iob_eng_backlog_check(ph, e.fi, e.off, e.len, ph->blbuf, n) < 0 ? ph->r->status : 0;
}

int iob_eng_backlog(struct phase *ph, size_t fi, uint64_t off, size_t len)
{
	struct iob_wlog *l = ph->bl;
	struct iob_phase_result *r = ph->r;
	const uint64_t every = ph->spec->load.verify_backlog;
	if (ph->ramping)
		return 0; /* the ramp's writes are not checked (nor listed) */
	if (l->n == l->cap) /* never: a batch starts whenever verify_backlog are waiting */
		return iob_eng_fail(ph, -EOVERFLOW, "verify_backlog list of", ph->spec->files[fi], off, len);
	l->v[(ph->bl_head + l->n++) % l->cap] = (struct iob_wlog_ent){.off = off, .fi = (uint32_t)fi, .len = (uint32_t)len};
	/* fio's rule: a batch starts when the blocks waiting are a multiple of
	 * verify_backlog; one that found too few waiting goes on after each
	 * later write, until it has checked verify_backlog_batch */
	if (!ph->bl_batch) {
		if (l->n % every)
			return 0;
		ph->bl_batch = ph->spec->load.verify_backlog_batch ? ph->spec->load.verify_backlog_batch : every;
	}
	while (ph->bl_batch && l->n) {
		ph->bl_batch--;
		if (backlog_read_oldest(ph) < 0)
			return r->status;
	}
	return 0;
}

int iob_eng_backlog_pass(struct phase *ph)
{
	while (ph->bl->n)
		if (backlog_read_oldest(ph) < 0)
			return ph->r->status;
	return 0;
}

int iob_eng_backlog_check(struct phase *ph, size_t fi, uint64_t off, size_t len, const unsigned char *buf, int64_t n)
{
	struct iob_phase_result *r = ph->r;
	if (n < 0 && n >= -4095)
		return iob_eng_fail(ph, (int)n, "verify_backlog read", ph->spec->files[fi], off, len);
	if (n != (int64_t)len) {
		iob_eng_fail(ph, -EIO, "verify_backlog read", ph->spec->files[fi], off, len);
		snprintf(r->error, sizeof r->error,
			 "short read (%lld of %zu bytes) at offset %llu of %s, reading back a block this phase wrote "
			 "(verify_backlog): %s",
			 (long long)n, len, (unsigned long long)off, ph->spec->files[fi], strerror(EIO));
		return -EIO;
	}
	r->backlog_ops++;
	r->backlog_bytes += (uint64_t)n;
	return verify_piece(ph, fi, buf, (size_t)n, off) ? -ECANCELED : 0;
}

void iob_eng_backlog_end(struct phase *ph)
{
	struct iob_wlog *l = ph->bl;
	if (!l)
		return;
	/* rotate v[0, cap) left by bl_head (three reversals, nothing allocated):
	 * the ring's n blocks then start at v[0], oldest first */
	size_t h = ph->bl_head, c = l->cap;
	struct iob_wlog_ent *v = l->v, t;
	if (h != 0 && c != 0) {
		for (size_t a = 0, b = h - 1; a < b; a++, b--)
			t = v[a], v[a] = v[b], v[b] = t;
		for (size_t a = h, b = c - 1; a < b; a++, b--)
			t = v[a], v[a] = v[b], v[b] = t;
		for (size_t a = 0, b = c - 1; a < b; a++, b--)
			t = v[a], v[a] = v[b], v[b] = t;
		ph->bl_head = 0;
	}
	/* the queued loop's marks: a write dropped from the list leaves it */
	size_t k = 0;
	for (size_t i = 0; i < l->n; i++)
		if (!(v[i].fi & BL_DROP))
			v[k++] = (struct iob_wlog_ent){.off = v[i].off, .fi = v[i].fi & ~BL_INFL, .len = v[i].len};
	l->n = k;
	ph->r->backlog_left = l->n;
}

/* A backend returned what it may not: more than asked, or no errno. */
int iob_eng_broke_contract(struct phase *ph, size_t fi, int write, int64_t n, size_t len, uint64_t off)
{
	const char *what = write ? "write" : "read";
	iob_eng_fail(ph, -EPROTO, what, ph->spec->files[fi], off, len);
	snprintf(ph->r->error, sizeof ph->r->error,
		 "backend %s broke its contract: %s of %zu bytes at offset %llu of %s returned %lld",
		 ph->spec->backend->desc.name, what, len, (unsigned long long)off, ph->spec->files[fi], (long long)n);
	return -EPROTO;
}

/* After an I/O returned n: verify, account; returns 0 to go on, 1 at EOF,
 * negative on error.  The out-of-line part of after_io. */
__attribute__((noinline)) int iob_eng_after_io_slow(struct phase *ph, size_t fi, int64_t n, size_t len,
						    uint64_t off)
{
	struct iob_phase_result *r = ph->r;
	const char *what = ph->write ? "write" : "read";
	if (n > (int64_t)len || n < -4095)
		return iob_eng_broke_contract(ph, fi, ph->write, n, len, off);
	if (n == -ENOSPC && ph->write && ph->spec->fill_device) {
		r->device_full = 1; /* fill_device: the file system is full, the phase's end */
		return 1;
	}
	if (n < 0)
		return iob_eng_fail(ph, (int)n, what, ph->spec->files[fi], off, len);
	r->bytes += (uint64_t)n;
	r->ops++;
	if (ph->verify && n > 0 && verify_piece(ph, fi, ph->buf, (size_t)n, off))
		return -ECANCELED;
	if ((size_t)n < len) {
		r->short_ops++;
		if (ph->write) {
			/* ask for the rest once, untimed, to learn why the kernel stopped */
			int64_t why = ph->ops->write_at(ph->handles[fi], ph->buf + n, len - (size_t)n, off + (uint64_t)n);
			int err = why < 0 ? (int)why : -EIO;
			if (err == -ENOSPC && ph->spec->fill_device) {
				r->device_full = 1; /* the part written is kept: the file system is full */
				return 1;
			}
			iob_eng_fail(ph, err, "write", ph->spec->files[fi], off, len);
			snprintf(r->error, sizeof r->error,
				 "short write (%lld of %zu bytes) at offset %llu of %s: %s%s", (long long)n, len,
				 (unsigned long long)off, ph->spec->files[fi], strerror(-err),
				 why < 0 ? "" : " (the backend wrote part of the block and gave no reason)");
			return err;
		}
		return 1;
	}
	return 0;
}

/* A read came back short before the size the file had when the phase began. */
int iob_eng_short_read(struct phase *ph, size_t fi, int64_t n, size_t len, uint64_t off, uint64_t size)
{
	struct iob_phase_result *r = ph->r;
	iob_eng_fail(ph, -EIO, "read", ph->spec->files[fi], off, len);
	snprintf(r->error, sizeof r->error,
		 "short read (%lld of %zu bytes) at offset %llu of %s, before its end at %llu bytes: %s (the "
		 "file shrank or the backend misbehaved)",
		 (long long)n, len, (unsigned long long)off, ph->spec->files[fi], (unsigned long long)size,
		 strerror(EIO));
	return -EIO;
}

/* Account n bytes moved by one transfer of the mixed and queued loops (len
 * asked at off of file fi, in buf): bytes by direction, verification.
 * Returns 0 for a whole transfer, 1 for a short one, negative on error.
 * Operations are counted by the caller, once per request. */
int iob_eng_account(struct phase *ph, size_t fi, int write, const unsigned char *buf, int64_t n, size_t len,
		    uint64_t off)
{
	struct iob_phase_result *r = ph->r;
	if (n > (int64_t)len || n < -4095)
		return iob_eng_broke_contract(ph, fi, write, n, len, off);
	if (n < 0)
		return iob_eng_fail(ph, (int)n, write ? "write" : "read", ph->spec->files[fi], off, len);
	r->bytes += (uint64_t)n;
	if (write)
		r->bytes_written += (uint64_t)n;
	else
		r->bytes_read += (uint64_t)n;
	if (ph->verify && n > 0 && verify_piece(ph, fi, buf, (size_t)n, off))
		return -ECANCELED;
	return (size_t)n < len;
}

/* A transfer made no progress before the end of the file. */
int iob_eng_no_progress(struct phase *ph, size_t fi, int write, int64_t n, size_t len, uint64_t off)
{
	if (!write)
		return iob_eng_short_read(ph, fi, n, len, off, ph->fend[fi]);
	iob_eng_fail(ph, -EIO, "write", ph->spec->files[fi], off, len);
	snprintf(ph->r->error, sizeof ph->r->error,
		 "short write (%lld of %zu bytes) at offset %llu of %s: %s (the backend stopped early and gave "
		 "no reason)",
		 (long long)n, len, (unsigned long long)off, ph->spec->files[fi], strerror(EIO));
	return -EIO;
}
