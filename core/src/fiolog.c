/*
 * fiolog.c - fio-style logs of a run's intervals (iobench/fiolog.h).
 */
#include "iobench/fiolog.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/os.h"
#include "iobench/path.h"
#include "iobench/shape.h"
#include "iobench/steady.h"
#include "iobench/units.h"

static const char *const kind_suffix[IOB_FIOLOG_KINDS] = {"bw", "iops", "lat", "clat"};

static const char *prefix_of(const struct iob_job *job, enum iob_fiolog_kind kind)
{
	switch (kind) {
	case IOB_FIOLOG_BW:
		return job->bw_log;
	case IOB_FIOLOG_IOPS:
		return job->iops_log;
	default:
		return job->lat_log;
	}
}

static const char *key_of(enum iob_fiolog_kind kind)
{
	return kind == IOB_FIOLOG_BW ? "bw_log" : kind == IOB_FIOLOG_IOPS ? "iops_log" : "lat_log";
}

int iob_fiolog_wanted(const struct iob_job *job)
{
	return job->bw_log[0] || job->iops_log[0] || job->lat_log[0];
}

size_t iob_fiolog_clones(const struct iob_job *job)
{
	return job->threads > 1 ? job->threads : 1;
}

void iob_fiolog_path(const struct iob_suite *suite, size_t j, size_t clone, enum iob_fiolog_kind kind, char *out,
		     size_t outlen)
{
	const char *prefix = prefix_of(&suite->jobs[j], kind);
	out[0] = '\0';
	if (!prefix[0])
		return;
	/* fio's <x>, its thread number: the clones of every earlier job, then
	 * this one's (numjobs=N: N files, one per clone); a job that only lays
	 * out files for a later one is not a job of fio's */
	size_t x = clone + 1;
	for (size_t i = 0; i < j; i++)
		if (!suite->prepare || !suite->prepare[i])
			x += iob_fiolog_clones(&suite->jobs[i]);
	snprintf(out, outlen, "%s_%s.%zu.log", prefix, kind_suffix[kind], x);
}

int iob_fiologs_check(const struct iob_suite *suite, char *err, size_t errlen)
{
	char path[IOB_FIOLOG_PATH_MAX], what[IOB_NAME_MAX + 32];
	for (size_t j = 0; j < suite->njobs; j++) {
		for (size_t c = 0; c < iob_fiolog_clones(&suite->jobs[j]); c++)
			for (int k = 0; k < IOB_FIOLOG_KINDS; k++) {
				iob_fiolog_path(suite, j, c, (enum iob_fiolog_kind)k, path, sizeof path);
				if (!path[0])
					continue;
				snprintf(what, sizeof what, "[%s] %s", suite->jobs[j].name, key_of(k));
				int rc = iob_outfile_check(what, path, suite->jobs[j].allow_devices ? IOB_OUT_CHARDEV : 0,
							   err, errlen);
				if (rc)
					return rc;
			}
	}
	return 0;
}

static void fiologs_free(struct iob_fiologs *fl)
{
	for (size_t c = 0; fl->path && c < fl->nslots; c++)
		for (int k = 0; k < IOB_FIOLOG_KINDS; k++)
			free(fl->path[c][k]);
	IOB_FREE_EACH(fl->f, fl->path, fl->of, fl->t0_ns, fl->base, fl->nclones, fl->log_prio, fl->log_offset);
	memset(fl, 0, sizeof *fl);
}

static void close_all(struct iob_fiologs *fl)
{
	for (size_t c = 0; fl->f && c < fl->nslots; c++)
		for (int k = 0; k < IOB_FIOLOG_KINDS; k++)
			if (fl->f[c][k]) {
				iob_outfile_close(&fl->of[c][k]);
				fl->f[c][k] = NULL;
			}
}

int iob_fiologs_open(struct iob_fiologs *fl, const struct iob_suite *suite, char *err, size_t errlen)
{
	memset(fl, 0, sizeof *fl);
	size_t n = suite->njobs, slots = 0;
	if (!n)
		return 0;
	for (size_t j = 0; j < n; j++)
		slots += iob_fiolog_clones(&suite->jobs[j]);
	fl->njobs = n;
	fl->nslots = slots;
	fl->f = calloc(slots, sizeof *fl->f);
	fl->path = calloc(slots, sizeof *fl->path);
	fl->of = calloc(slots, sizeof *fl->of);
	fl->t0_ns = calloc(slots, sizeof *fl->t0_ns);
	fl->base = calloc(n, sizeof *fl->base);
	fl->nclones = calloc(n, sizeof *fl->nclones);
	fl->log_prio = calloc(n, sizeof *fl->log_prio);
	fl->log_offset = calloc(n, sizeof *fl->log_offset);
	if (!fl->f || !fl->path || !fl->of || !fl->t0_ns || !fl->base || !fl->nclones || !fl->log_prio ||
	    !fl->log_offset) {
		fiologs_free(fl);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	char path[IOB_FIOLOG_PATH_MAX], what[IOB_NAME_MAX + 32];
	for (size_t j = 0, slot = 0; j < n; j++) {
		fl->log_prio[j] = suite->jobs[j].log_prio;
		fl->log_offset[j] = suite->jobs[j].log_offset;
		fl->base[j] = slot;
		fl->nclones[j] = iob_fiolog_clones(&suite->jobs[j]);
		for (size_t c = 0; c < fl->nclones[j]; c++, slot++)
			for (int k = 0; k < IOB_FIOLOG_KINDS; k++) {
				iob_fiolog_path(suite, j, c, (enum iob_fiolog_kind)k, path, sizeof path);
				if (!path[0])
					continue;
				/* checked, created when missing, emptied only when the run
				 * starts (iob_fiologs_commit): only what it made is removed */
				snprintf(what, sizeof what, "[%s] %s", suite->jobs[j].name, key_of(k));
				int rc = iob_outfile_open(&fl->of[slot][k], what, path,
							  suite->jobs[j].allow_devices ? IOB_OUT_CHARDEV : 0, err, errlen);
				if (rc == 0) {
					fl->f[slot][k] = fl->of[slot][k].f;
					if (!(fl->path[slot][k] = strdup(path))) {
						snprintf(err, errlen, "out of memory");
						rc = -ENOMEM;
					}
				}
				if (rc) {
					iob_fiologs_unmake(fl);
					close_all(fl);
					fiologs_free(fl);
					return rc;
				}
			}
	}
	return 0;
}

int iob_fiologs_commit(struct iob_fiologs *fl, char *err, size_t errlen)
{
	for (size_t c = 0; fl && fl->f && c < fl->nslots; c++)
		for (int k = 0; k < IOB_FIOLOG_KINDS; k++) {
			int rc = fl->f[c][k] ? iob_outfile_commit(&fl->of[c][k]) : 0;
			if (rc) {
				snprintf(err, errlen, "fio-style log %s: %s", IOB_Q(fl->path[c][k]), strerror(-rc));
				return rc;
			}
		}
	return 0;
}

/* time, value, direction, block size, the offset where log_offset asks,
 * and fio's last column, the priority (cmdprio.h's value): with log_prio
 * as fio prints it, 0xPPPP, else 1 for the real-time class and 0 for any
 * other.  A row of an interval has block size, offset and priority 0, as
 * fio writes them when it averages over log_avg_msec. */
static void put_row(struct iob_fiologs *fl, size_t j, size_t c, int k, uint64_t ms, uint64_t value, int dir,
		    uint64_t bs, uint64_t off, unsigned prio)
{
	FILE *f = fl->f[c][k];
	/* (a group's jobs' writers run at once: the first failure is kept) */
	if (!f || __atomic_load_n(&fl->error, __ATOMIC_RELAXED))
		return;
	char pr[16];
	if (fl->log_prio[j])
		snprintf(pr, sizeof pr, "0x%04x", prio & 0xffffu);
	else
		snprintf(pr, sizeof pr, "%d", (prio >> IOB_PRIO_CLASS_SHIFT) == 1);
	int rc = fl->log_offset[j] ? fprintf(f, "%llu, %llu, %d, %llu, %llu, %s\n", (unsigned long long)ms,
					     (unsigned long long)value, dir, (unsigned long long)bs,
					     (unsigned long long)off, pr)
				   : fprintf(f, "%llu, %llu, %d, %llu, %s\n", (unsigned long long)ms,
					     (unsigned long long)value, dir, (unsigned long long)bs, pr);
	int none = 0;
	if (rc < 0 && __atomic_compare_exchange_n(&fl->error, &none, errno ? errno : EIO, 0, __ATOMIC_RELAXED,
						  __ATOMIC_RELAXED))
		fl->error_path = fl->path[c][k];
}

/* The slot of job j's clone c (SIZE_MAX: it writes no log). */
static size_t slot_of(const struct iob_fiologs *fl, size_t j, size_t c)
{
	if (!fl || !fl->f || j >= fl->njobs || c >= fl->nclones[j])
		return SIZE_MAX;
	size_t slot = fl->base[j] + c;
	for (int k = 0; k < IOB_FIOLOG_KINDS; k++)
		if (fl->f[slot][k])
			return slot;
	return SIZE_MAX;
}

static uint64_t per_s(double what, uint64_t len_ns)
{
	return len_ns ? (uint64_t)llround(what * 1e9 / (double)len_ns) : 0;
}

void iob_fiologs_phase(struct iob_fiologs *fl, size_t j, size_t clone, enum iob_phase phase,
		       const struct iob_intervals *iv)
{
	size_t c = slot_of(fl, j, clone);
	if (c == SIZE_MAX || !iv->n)
		return;
	if (!fl->t0_ns[c])
		fl->t0_ns[c] = iv->window_ns;
	uint64_t base = iv->window_ns > fl->t0_ns[c] ? iv->window_ns - fl->t0_ns[c] : 0;
	int mixed = phase == IOB_PHASE_MIXED && iv->split;
	for (size_t i = 0; i < iv->n; i++) {
		const struct iob_interval *in = &iv->v[i];
		uint64_t ms = (uint64_t)llround((double)(base + in->end_ns) / 1e6);
		/* per direction: 0 read, 1 write */
		for (int d = 0; d < 2; d++) {
			uint64_t bytes, ops, nlat;
			double mean;
			if (mixed) {
				uint64_t bw = in->bytes_w, ow = in->ops_w, lw = in->lat_samples_w;
				bytes = d ? bw : (in->bytes > bw ? in->bytes - bw : 0);
				ops = d ? ow : (in->ops > ow ? in->ops - ow : 0);
				nlat = d ? lw : (in->lat_samples > lw ? in->lat_samples - lw : 0);
				/* the reads' mean from the whole and the writes' sums */
				double all = in->lat_mean_ns * (double)in->lat_samples;
				double w = in->lat_mean_w_ns * (double)lw;
				mean = d ? in->lat_mean_w_ns : nlat ? (all - w) / (double)nlat : 0.0;
			} else {
				if (d != (phase == IOB_PHASE_WRITE))
					continue;
				bytes = in->bytes;
				ops = in->ops;
				nlat = in->lat_samples;
				mean = in->lat_mean_ns;
			}
			put_row(fl, j, c, IOB_FIOLOG_BW, ms, per_s((double)bytes / 1024.0, in->len_ns), d, 0, 0, 0);
			put_row(fl, j, c, IOB_FIOLOG_IOPS, ms, per_s((double)ops, in->len_ns), d, 0, 0, 0);
			if (nlat) {
				uint64_t m = mean > 0 ? (uint64_t)llround(mean) : 0;
				put_row(fl, j, c, IOB_FIOLOG_LAT, ms, m, d, 0, 0, 0);
				put_row(fl, j, c, IOB_FIOLOG_CLAT, ms, m, d, 0, 0, 0);
			}
		}
	}
}

/* A row per I/O of clone c's events [from, to) of its log l (a ring when
 * l->ring: index modulo cap), its ticks converted with ns_per_tick. */
static void put_events(struct iob_fiologs *fl, size_t j, size_t c, const struct iob_iolog *l, uint64_t from,
		       uint64_t to, double ns_per_tick)
{
	if (!fl->t0_ns[c])
		fl->t0_ns[c] = l->t0_ns;
	for (uint64_t i = from; i < to; i++) {
		const struct iob_io_event *e = &l->ev[i % l->cap];
		/* its completion, CLOCK_MONOTONIC ns */
		uint64_t t = l->t0_ns + (uint64_t)llround((double)(e->end_tick - l->t0_tick) * ns_per_tick);
		uint64_t ms = (t > fl->t0_ns[c] ? t - fl->t0_ns[c] : 0) / 1000000u;
		uint64_t lat = (uint64_t)llround((double)e->lat_tick * ns_per_tick);
		int d = e->write ? 1 : 0;
		/* fio's figure for one I/O: its bytes x 10^6 / its latency in ns */
		put_row(fl, j, c, IOB_FIOLOG_BW, ms, lat ? (uint64_t)e->len * 1000000u / lat : 0, d, e->len, e->off,
			e->prio);
		put_row(fl, j, c, IOB_FIOLOG_IOPS, ms, 1, d, e->len, e->off, e->prio);
		put_row(fl, j, c, IOB_FIOLOG_LAT, ms, lat, d, e->len, e->off, e->prio);
		put_row(fl, j, c, IOB_FIOLOG_CLAT, ms, lat, d, e->len, e->off, e->prio);
	}
}

void iob_fiologs_drain(struct iob_fiologs *fl, size_t j, size_t clone, struct iob_iolog *l, double ns_per_tick)
{
	uint64_t to = __atomic_load_n(&l->n, __ATOMIC_ACQUIRE), from = l->tail;
	if (!l->ring && to > l->cap)
		to = l->cap;
	size_t c = slot_of(fl, j, clone);
	if (c != SIZE_MAX && to > from)
		put_events(fl, j, c, l, from, to, ns_per_tick);
	/* written (or nowhere to write): the ring's room again */
	__atomic_store_n(&l->tail, to, __ATOMIC_RELEASE);
}

uint64_t iob_fiologs_ios(struct iob_fiologs *fl, size_t j, struct iob_iolog *logs, size_t n)
{
	uint64_t lost = 0;
	for (size_t s = 0; s < n; s++) {
		lost += logs[s].lost;
		iob_fiologs_drain(fl, j, s, &logs[s], logs[s].ns_per_tick);
	}
	return lost;
}

void iob_fiologs_unmake(struct iob_fiologs *fl)
{
	for (size_t c = 0; fl->f && c < fl->nslots; c++)
		for (int k = 0; k < IOB_FIOLOG_KINDS; k++)
			if (fl->f[c][k])
				iob_outfile_unmake(&fl->of[c][k]);
}

int iob_fiologs_close(struct iob_fiologs *fl, char *err, size_t errlen)
{
	int e = fl->error;
	const char *path = fl->error_path;
	for (size_t c = 0; fl->f && c < fl->nslots; c++)
		for (int k = 0; k < IOB_FIOLOG_KINDS; k++) {
			FILE *f = fl->f[c][k];
			if (!f)
				continue;
			int bad = ferror(f) != 0;
			int crc = iob_outfile_close(&fl->of[c][k]);
			if ((crc < 0 || bad) && !e) {
				e = crc < 0 ? -crc : EIO;
				path = fl->path[c][k];
			}
			fl->f[c][k] = NULL;
		}
	int rc = 0;
	if (e) {
		rc = -e;
		snprintf(err, errlen, "fio-style log %s: writing failed: %s", IOB_Q(path ? path : "?"),
			 strerror(e));
	}
	fiologs_free(fl);
	return rc;
}

uint64_t iob_fiolog_ios_bound(const struct iob_job *job, uint64_t file_size)
{
	if (!iob_fiolog_wanted(job) || job->log_interval_ns)
		return 0;
	return iob_job_ios_bound(job, file_size);
}
