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

void iob_fiolog_path(const struct iob_suite *suite, size_t j, enum iob_fiolog_kind kind, char *out,
		     size_t outlen)
{
	const char *prefix = prefix_of(&suite->jobs[j], kind);
	out[0] = '\0';
	if (!prefix[0])
		return;
	/* fio's <x>: the job's number among those logging to this prefix */
	unsigned x = 1;
	for (size_t i = 0; i < j; i++)
		if (strcmp(prefix_of(&suite->jobs[i], kind), prefix) == 0)
			x++;
	snprintf(out, outlen, "%s_%s.%u.log", prefix, kind_suffix[kind], x);
}

int iob_fiologs_check(const struct iob_suite *suite, char *err, size_t errlen)
{
	char path[IOB_FIOLOG_PATH_MAX], what[IOB_NAME_MAX + 32];
	for (size_t j = 0; j < suite->njobs; j++) {
		for (int k = 0; k < IOB_FIOLOG_KINDS; k++) {
			iob_fiolog_path(suite, j, (enum iob_fiolog_kind)k, path, sizeof path);
			if (!path[0])
				continue;
			snprintf(what, sizeof what, "[%s] %s", suite->jobs[j].name, key_of(k));
			int rc = iob_outfile_check(what, path, suite->jobs[j].allow_devices ? IOB_OUT_CHARDEV : 0, err,
						   errlen);
			if (rc)
				return rc;
		}
	}
	return 0;
}

static void fiologs_free(struct iob_fiologs *fl)
{
	for (size_t j = 0; fl->path && j < fl->njobs; j++)
		for (int k = 0; k < IOB_FIOLOG_KINDS; k++)
			free(fl->path[j][k]);
	free(fl->f);
	free(fl->path);
	free(fl->of);
	free(fl->t0_ns);
	free(fl->log_prio);
	memset(fl, 0, sizeof *fl);
}

static void close_all(struct iob_fiologs *fl)
{
	for (size_t j = 0; fl->f && j < fl->njobs; j++)
		for (int k = 0; k < IOB_FIOLOG_KINDS; k++)
			if (fl->f[j][k]) {
				iob_outfile_close(&fl->of[j][k]);
				fl->f[j][k] = NULL;
			}
}

int iob_fiologs_open(struct iob_fiologs *fl, const struct iob_suite *suite, char *err, size_t errlen)
{
	memset(fl, 0, sizeof *fl);
	size_t n = suite->njobs;
	if (!n)
		return 0;
	fl->njobs = n;
	fl->f = calloc(n, sizeof *fl->f);
	fl->path = calloc(n, sizeof *fl->path);
	fl->of = calloc(n, sizeof *fl->of);
	fl->t0_ns = calloc(n, sizeof *fl->t0_ns);
	fl->log_prio = calloc(n, sizeof *fl->log_prio);
	if (!fl->f || !fl->path || !fl->of || !fl->t0_ns || !fl->log_prio) {
		fiologs_free(fl);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	char path[IOB_FIOLOG_PATH_MAX], what[IOB_NAME_MAX + 32];
	for (size_t j = 0; j < n; j++) {
		fl->log_prio[j] = suite->jobs[j].log_prio;
		for (int k = 0; k < IOB_FIOLOG_KINDS; k++) {
			iob_fiolog_path(suite, j, (enum iob_fiolog_kind)k, path, sizeof path);
			if (!path[0])
				continue;
			/* checked, created when missing, emptied only when the run
			 * starts (iob_fiologs_commit): only what it made is removed */
			snprintf(what, sizeof what, "[%s] %s", suite->jobs[j].name, key_of(k));
			int rc = iob_outfile_open(&fl->of[j][k], what, path,
						  suite->jobs[j].allow_devices ? IOB_OUT_CHARDEV : 0, err, errlen);
			if (rc == 0) {
				fl->f[j][k] = fl->of[j][k].f;
				if (!(fl->path[j][k] = strdup(path))) {
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
	for (size_t j = 0; fl && fl->f && j < fl->njobs; j++)
		for (int k = 0; k < IOB_FIOLOG_KINDS; k++) {
			int rc = fl->f[j][k] ? iob_outfile_commit(&fl->of[j][k]) : 0;
			if (rc) {
				snprintf(err, errlen, "fio-style log %s: %s", IOB_Q(fl->path[j][k]), strerror(-rc));
				return rc;
			}
		}
	return 0;
}

static void put_row(struct iob_fiologs *fl, size_t j, int k, uint64_t ms, uint64_t value, int dir)
{
	FILE *f = fl->f[j][k];
	if (!f || fl->error)
		return;
	/* time, value, direction, block size, and fio's 5th column: 0 and 0,
	 * as fio writes them when it averages over log_avg_msec (with log_prio
	 * the priority column is 0x0000 there: an average has no priority) */
	if (fprintf(f, "%llu, %llu, %d, 0, %s\n", (unsigned long long)ms, (unsigned long long)value, dir,
		    fl->log_prio[j] ? "0x0000" : "0") < 0) {
		fl->error = errno ? errno : EIO;
		fl->error_path = fl->path[j][k];
	}
}

static uint64_t per_s(double what, uint64_t len_ns)
{
	return len_ns ? (uint64_t)llround(what * 1e9 / (double)len_ns) : 0;
}

struct io_row {
	uint64_t at_ns; /* after the job's first window */
	const struct iob_io_rec *e;
};

static int row_cmp(const void *a, const void *b)
{
	const struct io_row *x = a, *y = b;
	return x->at_ns < y->at_ns ? -1 : x->at_ns > y->at_ns;
}

int iob_fiologs_ios(struct iob_fiologs *fl, size_t j, const struct iob_phase_result *r, size_t n)
{
	if (!fl || j >= fl->njobs || (!fl->f[j][IOB_FIOLOG_LAT] && !fl->f[j][IOB_FIOLOG_CLAT]))
		return 0;
	size_t total = 0;
	for (size_t i = 0; i < n; i++) {
		total += r[i].io_log.n;
		if (r[i].start_ns && (!fl->t0_ns[j] || r[i].start_ns < fl->t0_ns[j]))
			fl->t0_ns[j] = r[i].start_ns;
	}
	if (!total)
		return 0;
	struct io_row *rows = malloc(total * sizeof *rows);
	if (!rows)
		return -ENOMEM;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t e = 0; e < r[i].io_log.n; e++) {
			uint64_t at = r[i].start_ns + r[i].io_log.v[e].t_ns;
			rows[k++] = (struct io_row){at > fl->t0_ns[j] ? at - fl->t0_ns[j] : 0, &r[i].io_log.v[e]};
		}
	qsort(rows, total, sizeof *rows, row_cmp);
	for (int kind = IOB_FIOLOG_LAT; kind <= IOB_FIOLOG_CLAT; kind++) {
		FILE *f = fl->f[j][kind];
		for (size_t i = 0; f && !fl->error && i < total; i++) {
			const struct iob_io_rec *e = rows[i].e;
			/* fio's fifth column: the priority (log_prio), else 1 for the real-time class */
			char pr[16];
			if (fl->log_prio[j])
				snprintf(pr, sizeof pr, "0x%04x", e->prio);
			else
				snprintf(pr, sizeof pr, "%d", (e->prio >> IOB_PRIO_CLASS_SHIFT) == 1);
			if (fprintf(f, "%llu, %llu, %d, %u, %s\n", (unsigned long long)(rows[i].at_ns / 1000000),
				    (unsigned long long)e->lat_ns, e->write, e->len, pr) < 0) {
				fl->error = errno ? errno : EIO;
				fl->error_path = fl->path[j][kind];
			}
		}
	}
	free(rows);
	return 0;
}

void iob_fiologs_phase(struct iob_fiologs *fl, size_t j, enum iob_phase phase, const struct iob_intervals *iv)
{
	if (!fl || j >= fl->njobs || !iv->n)
		return;
	int any = 0;
	for (int k = 0; k < IOB_FIOLOG_KINDS; k++)
		any |= fl->f[j][k] != NULL;
	if (!any)
		return;
	if (!fl->t0_ns[j])
		fl->t0_ns[j] = iv->window_ns;
	uint64_t base = iv->window_ns > fl->t0_ns[j] ? iv->window_ns - fl->t0_ns[j] : 0;
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
			put_row(fl, j, IOB_FIOLOG_BW, ms, per_s((double)bytes / 1024.0, in->len_ns), d);
			put_row(fl, j, IOB_FIOLOG_IOPS, ms, per_s((double)ops, in->len_ns), d);
			if (nlat) {
				uint64_t m = mean > 0 ? (uint64_t)llround(mean) : 0;
				put_row(fl, j, IOB_FIOLOG_LAT, ms, m, d);
				put_row(fl, j, IOB_FIOLOG_CLAT, ms, m, d);
			}
		}
	}
}

void iob_fiologs_unmake(struct iob_fiologs *fl)
{
	for (size_t j = 0; fl->f && j < fl->njobs; j++)
		for (int k = 0; k < IOB_FIOLOG_KINDS; k++)
			if (fl->f[j][k])
				iob_outfile_unmake(&fl->of[j][k]);
}

int iob_fiologs_close(struct iob_fiologs *fl, char *err, size_t errlen)
{
	int e = fl->error;
	const char *path = fl->error_path;
	for (size_t j = 0; fl->f && j < fl->njobs; j++)
		for (int k = 0; k < IOB_FIOLOG_KINDS; k++) {
			FILE *f = fl->f[j][k];
			if (!f)
				continue;
			int bad = ferror(f) != 0;
			int crc = iob_outfile_close(&fl->of[j][k]);
			if ((crc < 0 || bad) && !e) {
				e = crc < 0 ? -crc : EIO;
				path = fl->path[j][k];
			}
			fl->f[j][k] = NULL;
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
