/*
 * fiojob_map.c - one job's fio keys onto a struct iob_job: the getters, the
 * notes, and the engine, files and work (fiojob_int.h, docs/fio.md).
 */
#include "fiojob_int.h"

const struct fval *fj_get(const struct mapper *m, enum fkey k)
{
	return m->s->v[k].value ? &m->s->v[k] : NULL;
}

/* "FILE:LINE: [job] key=value: why" */
int fj_bad(struct mapper *m, enum fkey k, int rc, const char *fmt, ...)
{
	char why[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	const struct fval *v = &m->s->v[k];
	if (v->value && v->included) /* neither the value nor what was said of it */
		return fj_fail(m->r, rc, "%s: [%s] %s: a bad value (%s)", v->where, m->s->name, fj_keys[k].name,
			    INCLUDED_HIDDEN);
	if (v->value && v->bare)
		return fj_fail(m->r, rc, "%s: [%s] %s: %s", v->where, m->s->name, fj_keys[k].name, why);
	if (v->value)
		return fj_fail(m->r, rc, "%s: [%s] %s=%s: %s", v->where, m->s->name, fj_keys[k].name, IOB_Q(v->value), why);
	return fj_fail(m->r, rc, "%s: [%s] %s", m->s->where, m->s->name, why);
}

int fj_get_bool(struct mapper *m, enum fkey k, int def, int *out)
{
	const struct fval *v = fj_get(m, k);
	*out = def;
	if (!v)
		return 0;
	if (v->bare) {
		*out = 1;
		return 0;
	}
	if (strcmp(v->value, "1") == 0 || strcasecmp(v->value, "true") == 0)
		*out = 1;
	else if (strcmp(v->value, "0") == 0 || strcasecmp(v->value, "false") == 0)
		*out = 0;
	else
		return fj_bad(m, k, -EINVAL, "give 1 or 0");
	return 0;
}

/* A key read by conv (fj_fio_uint, fj_fio_time: arg is their max or default
 * unit) into *out, which keeps what the caller set there when the key is
 * not given. */
static int get_number(struct mapper *m, enum fkey k, int (*conv)(const char *, uint64_t, uint64_t *, char *, size_t),
		      uint64_t arg, uint64_t *out)
{
	const struct fval *v = fj_get(m, k);
	if (!v)
		return 0;
	if (v->bare)
		return fj_bad(m, k, -EINVAL, "needs a value");
	return conv(v->value, arg, out, m->why, sizeof m->why) ? fj_bad(m, k, -EINVAL, "%s", m->why) : 0;
}

int fj_get_uint(struct mapper *m, enum fkey k, uint64_t max, uint64_t def, uint64_t *out)
{
	*out = def;
	return get_number(m, k, fj_fio_uint, max, out);
}

int fj_get_size(struct mapper *m, enum fkey k, uint64_t *out, int *set)
{
	const struct fval *v = fj_get(m, k);
	*set = v != NULL;
	if (!v)
		return 0;
	if (v->bare)
		return fj_bad(m, k, -EINVAL, "needs a value");
	return fj_fio_size(v->value, m->kb1000, out, m->why, sizeof m->why) ? fj_bad(m, k, -EINVAL, "%s", m->why) : 0;
}

/* A range "a-b" or "a:b" with equal ends (or one value). */
int fj_get_range(struct mapper *m, enum fkey k, uint64_t *out, int *set)
{
	const struct fval *v = fj_get(m, k);
	*set = v != NULL;
	if (!v)
		return 0;
	char a[FIO_LINE_MAX];
	snprintf(a, sizeof a, "%s", v->value);
	char *sep = strpbrk(a, "-:");
	uint64_t lo, hi;
	if (sep)
		*sep = '\0';
	if (fj_fio_size(fj_trim(a), m->kb1000, &lo, m->why, sizeof m->why) ||
	    (sep && fj_fio_size(fj_trim(sep + 1), m->kb1000, &hi, m->why, sizeof m->why)))
		return fj_bad(m, k, -EINVAL, "%s", m->why);
	if (sep && hi != lo)
		return fj_bad(m, k, -EINVAL, "a range of sizes is not supported: give equal ends (iobench does one size per job)");
	*out = lo;
	return 0;
}

/* bs: one size for every direction, or fio's "READ,WRITE[,TRIM]", where an
 * empty side keeps fio's default (4k) for that direction: bs=,8k reads 4k
 * and writes 8k.  Trim is a direction only of ioengine=falloc (a punched
 * hole, *tbs); elsewhere its size is checked, then ignored. */
static int get_bs(struct mapper *m, uint64_t *rbs, uint64_t *wbs, uint64_t *tbs, int *set)
{
	const struct fval *v = fj_get(m, K_BS);
	*set = v != NULL;
	if (!v)
		return 0;
	if (v->bare)
		return fj_bad(m, K_BS, -EINVAL, "needs a size");
	char a[FIO_LINE_MAX];
	snprintf(a, sizeof a, "%s", v->value);
	uint64_t dir[3] = {4096, 4096, 4096};
	int n = 0, given = 0;
	for (char *t = a, *next; t && n < 4; t = next, n++) {
		next = strchr(t, ',');
		if (next)
			*next++ = '\0';
		if (n == 3)
			return fj_bad(m, K_BS, -EINVAL, "at most three sizes (read,write,trim)");
		if (!*fj_trim(t))
			continue;
		if (fj_fio_size(fj_trim(t), m->kb1000, &dir[n], m->why, sizeof m->why))
			return fj_bad(m, K_BS, -EINVAL, "%s", m->why);
		given++;
	}
	if (!given)
		return fj_bad(m, K_BS, -EINVAL, "needs a size");
	if (n == 1) /* one size: every direction */
		dir[1] = dir[2] = dir[0];
	*rbs = dir[0];
	*wbs = dir[1];
	*tbs = dir[2];
	return 0;
}

int fj_get_time(struct mapper *m, enum fkey k, uint64_t def_ns, uint64_t *out)
{
	*out = 0;
	return get_number(m, k, fj_fio_time, def_ns, out);
}

void fj_note(struct reader *r, const char *fmt, ...)
{
	char text[320];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	struct iob_suite *s = r->suite;
	for (size_t i = 0; i < s->nnotes; i++)
		if (strcmp(s->notes[i], text) == 0)
			return;
	if (s->nnotes >= IOB_MAX_NOTES / 2)
		return; /* leave room for the run's own caveats */
	char **n = realloc(s->notes, (s->nnotes + 1) * sizeof *n);
	if (!n)
		return;
	s->notes = n;
	if ((n[s->nnotes] = strdup(text)) != NULL)
		s->nnotes++;
}

/* A note about a job: jobs with the same note share one, listing them. */
void fj_note_job(struct reader *r, const char *job, const char *fmt, ...)
{
	char text[240];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	size_t i = 0;
	while (i < r->nagg && strcmp(r->agg[i].text, text) != 0)
		i++;
	if (i == r->nagg) {
		if (r->nagg == sizeof r->agg / sizeof r->agg[0])
			return;
		snprintf(r->agg[i].text, sizeof r->agg[i].text, "%s", text);
		r->agg[i].jobs[0] = '\0';
		r->nagg++;
	}
	fj_list_add(r->agg[i].jobs, sizeof r->agg[i].jobs, job);
}

void fj_notes_flush(struct reader *r)
{
	for (size_t i = 0; i < r->nagg; i++)
		fj_note(r, "%s (%s %s)", r->agg[i].text, strchr(r->agg[i].jobs, ',') ? "jobs" : "job", r->agg[i].jobs);
}

/* A path with fio's '\:' for a colon; a bare ':' separates several names,
 * which is refused. */
static int one_name(struct mapper *m, enum fkey k, const char *in, char *out, size_t len)
{
	size_t o = 0;
	for (const char *p = in; *p; p++) {
		if (*p == '\\' && p[1] == ':')
			p++;
		else if (*p == ':')
			return fj_bad(m, k, -EINVAL, "several names (':') are not supported: give one");
		if (o + 1 >= len)
			return fj_bad(m, k, -ENAMETOOLONG, "too long");
		out[o++] = *p;
	}
	out[o] = '\0';
	return 0;
}

enum engine { ENG_PSYNC, ENG_SYNC, ENG_PVSYNC, ENG_LIBAIO, ENG_IO_URING, ENG_MMAP, ENG_NULL, ENG_FALLOC, ENG_FTRUNCATE,
	      ENG_E4DEFRAG };

/* ioengine=e4defrag's options (donorname, inplace) into backend_options.
 * In a job of another engine they are refused (fio: "Bad option"), unless
 * the job inherits them from a [global] whose engine is e4defrag (fio lets
 * them be there). */
static int map_e4defrag(struct mapper *m, int e4, const char *engine)
{
	const struct fval *ge = &m->r->global.v[K_IOENGINE];
	int global_e4 = ge->value && strcmp(ge->value, "e4defrag") == 0;
	for (enum fkey k = K_DONORNAME; !e4 && k <= K_INPLACE; k++) {
		const struct fval *v = fj_get(m, k), *g = &m->r->global.v[k];
		if (v && !(global_e4 && g->value && strcmp(g->where, v->where) == 0))
			return fj_bad(m, k, -EINVAL, "is an option of ioengine=e4defrag, not of ioengine=%s", engine);
	}
	if (!e4)
		return 0;
	const struct fval *d = fj_get(m, K_DONORNAME);
	uint64_t inplace;
	int rc;
	if ((rc = fj_get_uint(m, K_INPLACE, 1, 0, &inplace)))
		return rc;
	if (!d || d->bare || !d->value[0])
		return fj_fail(m->r, -EINVAL, "%s: [%s]: ioengine=e4defrag needs donorname= (the donor file), as fio does",
			       m->s->where, m->job->name);
	if (strchr(d->value, '/') || strchr(d->value, ',') || strcmp(d->value, ".") == 0 || strcmp(d->value, "..") == 0)
		return fj_bad(m, K_DONORNAME, -EINVAL, "give a file name for the job's directory (no '/' or ',')");
	char opts[sizeof m->job->backend_options];
	snprintf(opts, sizeof opts, "donorname=%s,inplace=%llu", d->value, (unsigned long long)inplace);
	if ((rc = iob_job_set(m->job, "backend_options", opts, m->why, sizeof m->why)) != 0)
		return fj_bad(m, K_DONORNAME, rc, "%s", m->why);
	return 0;
}

int fj_refuse_needs(struct reader *r, struct fsection *s)
{
	struct mapper m = {.r = r, .s = s};
	const struct fval *v = fj_get(&m, K_IOENGINE), *z = fj_get(&m, K_ZONEMODE);
	if (v && strcmp(v->value, "cpuio") == 0)
		return fj_bad(&m, K_IOENGINE, -EINVAL,
			      "burns CPU (cpuload, cpumode) and moves no bytes: not a storage engine, and not in iobench");
	if (v && strcmp(v->value, "exec") == 0)
		return fj_bad(&m, K_IOENGINE, -EINVAL,
			      "runs a program (program, arguments) beside the jobs and moves no bytes: not a storage "
			      "engine, and not in iobench");
	if (z && strcmp(z->value, "zbd") == 0)
		return fj_bad(&m, K_ZONEMODE, -EINVAL,
			      "needs a zoned block device (host-managed or host-aware: zone reports, write pointers, "
			      "zone resets) and iobench has no zone management");
	return 0;
}

int fj_map_engine(struct mapper *m, uint32_t *iodepth)
{
	static const struct {
		const char *name;
		enum engine e;
	} engines[] = {{"psync", ENG_PSYNC}, {"sync", ENG_SYNC},	 {"pvsync", ENG_PVSYNC},
		       {"libaio", ENG_LIBAIO}, {"io_uring", ENG_IO_URING}, {"mmap", ENG_MMAP},
		       {"null", ENG_NULL}, {"cpp_null", ENG_NULL}, {"falloc", ENG_FALLOC}, {"ftruncate", ENG_FTRUNCATE},
		       {"e4defrag", ENG_E4DEFRAG}};
	struct iob_job *job = m->job;
	const struct fval *v = fj_get(m, K_IOENGINE);
	enum engine e = ENG_PSYNC; /* fio's default */
	int found = !v;
	for (size_t i = 0; v && i < sizeof engines / sizeof engines[0]; i++)
		if (strcmp(v->value, engines[i].name) == 0) {
			e = engines[i].e;
			found = 1;
		}
	if (!found && strcmp(v->value, "page_fault") == 0)
		return fj_bad(m, K_IOENGINE, -EINVAL,
			      "copies to and from anonymous memory (an mmap of no file: page faults, no storage; newer "
			      "than fio 3.33): not a storage engine, and not in iobench");
	if (!found)
		return fj_bad(m, K_IOENGINE, -EINVAL,
			      "not supported (psync, sync, pvsync, libaio, io_uring, mmap, null, falloc, ftruncate or "
			      "e4defrag)");
	int direct, buffered, rc;
	if ((rc = fj_get_bool(m, K_DIRECT, 0, &direct)) || (rc = fj_get_bool(m, K_BUFFERED, 1, &buffered)))
		return rc;
	/* falloc, ftruncate, e4defrag: no data passes through the job's descriptor, so bypassing the cache does not apply */
	int nocache = e == ENG_FALLOC || e == ENG_FTRUNCATE || e == ENG_E4DEFRAG;
	if (fj_get(m, K_BUFFERED) && fj_get(m, K_DIRECT) && direct == buffered && !nocache)
		return fj_bad(m, K_BUFFERED, -EINVAL, "contradicts direct=%d", direct);
	if (fj_get(m, K_BUFFERED) && !fj_get(m, K_DIRECT))
		direct = !buffered;
	const char *name = v ? v->value : "psync";
	if ((rc = map_e4defrag(m, e == ENG_E4DEFRAG, name)))
		return rc;
	switch (e) {
	case ENG_PSYNC:
	case ENG_SYNC:
	case ENG_PVSYNC:
		snprintf(job->backend, sizeof job->backend, "%s", direct ? "direct" : IOB_DEFAULT_BACKEND);
		if (e != ENG_PSYNC)
			fj_note_job(m->r, job->name,
				 "ioengine=%s runs on iobench's %s backend (pread/pwrite, one system call per I/O)", name,
				 job->backend);
		break;
	case ENG_LIBAIO:
	case ENG_IO_URING:
		snprintf(job->backend, sizeof job->backend, "%s", e == ENG_LIBAIO ? "libaio" : "io_uring");
		if (direct)
			snprintf(job->backend_options, sizeof job->backend_options, "direct=1");
		break;
	case ENG_MMAP:
		if (direct)
			return fj_bad(m, fj_get(m, K_DIRECT) ? K_DIRECT : K_BUFFERED, -EINVAL,
				   "direct I/O does not apply to ioengine=mmap");
		snprintf(job->backend, sizeof job->backend, "mmap");
		break;
	case ENG_NULL: /* no I/O at all, at any depth, as fio's null engine */
		snprintf(job->backend, sizeof job->backend, "null");
		break;
	case ENG_FALLOC: /* each I/O one fallocate(2), each ftruncate(2): no data, so no cache to bypass */
	case ENG_FTRUNCATE:
		snprintf(job->backend, sizeof job->backend, "%s", e == ENG_FALLOC ? "falloc" : "ftruncate");
		if (direct)
			fj_note_job(m->r, job->name, "direct=1 has no effect with ioengine=%s: no data moves", name);
		break;
	case ENG_E4DEFRAG: /* each write one EXT4_IOC_MOVE_EXT: the kernel copies the data, not through the descriptor */
		snprintf(job->backend, sizeof job->backend, "e4defrag");
		if (direct)
			fj_note_job(m->r, job->name,
				    "direct=1 has no effect with ioengine=e4defrag: the kernel moves the data inside the ioctl");
		break;
	}
	if (*iodepth > 1 && e == ENG_LIBAIO && !direct) {
		fj_note_job(m->r, job->name,
			 "iodepth=%u has no effect with ioengine=libaio and direct=0: Linux AIO does a buffered I/O "
			 "inside io_submit, so fio has one I/O in progress, and iobench's libaio backend runs at depth 1",
			 *iodepth);
		*iodepth = 1;
	}
	if (*iodepth > 1 && e != ENG_LIBAIO && e != ENG_IO_URING && e != ENG_NULL) { /* falloc, ftruncate: sync engines */
		fj_note_job(m->r, job->name, "iodepth=%u has no effect with ioengine=%s: it runs one I/O at a time, as fio does",
			 *iodepth, name);
		*iodepth = 1;
	}
	return 0;
}

int fj_valid_name(const char *n)
{
	if (!*n)
		return 0;
	for (const char *c = n; *c; c++)
		if (!(isalnum((unsigned char)*c) || *c == '_' || *c == '-' || *c == '.'))
			return 0;
	return 1;
}

/* Logs go through the job keys of the fio-json work (bw_log, iops_log,
 * lat_log): until those exist, a log is refused with its reason. */
int fj_map_log(struct mapper *m, enum fkey k, const char *ikey)
{
	const struct fval *v = fj_get(m, k);
	if (!v)
		return 0;
	if (!v->bare && (strcmp(v->value, "0") == 0 || !v->value[0]))
		return 0;
	const char *prefix = v->bare || strcmp(v->value, "1") == 0 ? m->job->name : v->value;
	int rc = iob_job_set(m->job, ikey, prefix, m->why, sizeof m->why);
	if (rc == -ENOENT)
		return fj_bad(m, k, -ENOTSUP, "fio-style logs are not available in this build of iobench");
	return rc ? fj_bad(m, k, rc, "%s", m->why) : 0;
}

int fj_map_files(struct mapper *m, uint64_t numjobs)
{
	struct iob_job *job = m->job;
	char dir[IOB_PATH_MAX], name[IOB_PATH_MAX];
	const struct fval *d = fj_get(m, K_DIRECTORY), *f = fj_get(m, K_FILENAME);
	int rc;
	snprintf(dir, sizeof dir, ".");
	if (d && d->value[0] && (rc = one_name(m, K_DIRECTORY, d->value, dir, sizeof dir)) != 0)
		return rc;
	if (f && f->value[0]) {
		if ((rc = one_name(m, K_FILENAME, f->value, name, sizeof name)) != 0)
			return rc;
		size_t dlen, base = iob_path_split(name, &dlen);
		if (base) { /* a path: its directory joins (or replaces) directory */
			char joined[IOB_PATH_MAX * 2];
			if (iob_path_absolute(name))
				snprintf(joined, sizeof joined, "%.*s", (int)dlen, name);
			else
				snprintf(joined, sizeof joined, "%s/%.*s", dir, (int)dlen, name);
			if (strlen(joined) >= sizeof dir)
				return fj_bad(m, K_FILENAME, -ENAMETOOLONG, "the path is too long");
			snprintf(dir, sizeof dir, "%s", joined);
			memmove(name, name + base, strlen(name + base) + 1);
		}
		if (!name[0])
			return fj_bad(m, K_FILENAME, -EINVAL, "names a directory, not a file");
		job->shared_file = numjobs > 1;
	} else {
		snprintf(name, sizeof name, "%s.0.0", job->name);
	}
	if (m->r->opts && m->r->opts->dir)
		snprintf(dir, sizeof dir, "%s", m->r->opts->dir);
	if (strlen(dir) >= sizeof job->dir || strlen(name) >= sizeof job->filename)
		return fj_bad(m, f ? K_FILENAME : K_DIRECTORY, -ENAMETOOLONG, "the path is too long");
	snprintf(job->dir, sizeof job->dir, "%s", dir);
	snprintf(job->filename, sizeof job->filename, "%s", name);
	return 0;
}

/* An earlier job of the file filled the file system through this job's file. */
static int fill_before(const struct mapper *m)
{
	const struct iob_suite *suite = m->r->suite;
	for (size_t i = 0; i < suite->njobs && &suite->jobs[i] != m->job; i++)
		if (suite->jobs[i].fill_device && strcmp(suite->jobs[i].dir, m->job->dir) == 0 &&
		    strcmp(suite->jobs[i].filename, m->job->filename) == 0)
			return 1;
	return 0;
}

/* The size of the job's (first) file as it is now: a regular file's length,
 * a block device's (read by seeking to its end, as fio asks the device).
 * -ENOENT when there is none to read. */
static int target_size(const struct iob_job *job, uint64_t *size)
{
	struct iob_filelist fl;
	int rc = -ENOENT;
	if (iob_job_files(job, &fl) != 0)
		return rc;
	enum iob_path_kind k = fl.n ? iob_path_kind(fl.paths[0], job->follow_symlinks) : IOB_PATH_MISSING;
	if (k == IOB_PATH_REGULAR) {
		rc = iob_file_size(fl.paths[0], size);
	} else if (k == IOB_PATH_BLOCKDEV) {
		rc = iob_blockdev_size(fl.paths[0], job->follow_symlinks, size);
	}
	iob_filelist_free(&fl);
	return rc == 0 && *size == 0 ? -ENOENT : rc;
}

/* offset and offset_increment: bytes, or a share of the existing file's
 * size (fio's N%), aligned down to the block size as fio aligns it. */
static int fio_offset(struct mapper *m, enum fkey k, uint64_t bs, uint64_t *out)
{
	const struct fval *v = fj_get(m, k);
	*out = 0;
	if (!v)
		return 0;
	size_t n = strlen(v->value);
	if (!v->bare && n > 1 && v->value[n - 1] == '%') {
		char num[32], *end;
		uint64_t tsize;
		if (n >= sizeof num)
			return fj_bad(m, k, -EINVAL, "give bytes (120k) or a share of the file's size (50%%)");
		snprintf(num, sizeof num, "%.*s", (int)(n - 1), v->value);
		errno = 0;
		double pct = strtod(num, &end);
		if (end == num || *end || errno || !(pct >= 0 && pct <= 100))
			return fj_bad(m, k, -EINVAL, "a share of the file's size from 0%% to 100%%");
		if (target_size(m->job, &tsize) != 0)
			return fj_bad(m, k, -EINVAL,
				      "a share of the file's size needs an existing file or device (give bytes instead)");
		*out = (uint64_t)((double)tsize * pct / 100.0) / bs * bs;
		return 0;
	}
	if (v->bare || fj_fio_size(v->value, m->kb1000, out, m->why, sizeof m->why))
		return fj_bad(m, k, -EINVAL, "give bytes (120k) or a share of the file's size (50%%)");
	return 0;
}

/* rw, sizes and the amount of work: access, phases, size, loops, ops. */
int fj_map_work(struct mapper *m, int time_based, uint64_t runtime_ns)
{
	struct iob_job *job = m->job;
	const struct fval *rw = fj_get(m, K_RW);
	int mixed = 0, rc;
	char wbuf[64];
	snprintf(wbuf, sizeof wbuf, "%s", rw ? rw->value : "read"); /* fio's default */
	const char *w = wbuf;
	char *mod = strchr(wbuf, ':');
	if (mod)
		*mod++ = '\0';
	/* falloc and ftruncate change the file whatever the direction: every
	 * one is a write phase, the direction a falloc backend option */
	int falloc = strcmp(job->backend, "falloc") == 0, ftrunc = strcmp(job->backend, "ftruncate") == 0;
	int e4 = strcmp(job->backend, "e4defrag") == 0;
	const char *fmode = NULL;
	if (falloc || ftrunc || e4) {
		int trim = strcmp(w, "trim") == 0 || strcmp(w, "randtrim") == 0;
		int rd = strcmp(w, "read") == 0 || strcmp(w, "randread") == 0;
		int wr = strcmp(w, "write") == 0 || strcmp(w, "randwrite") == 0;
		if ((ftrunc || e4) && !wr)
			return fj_bad(m, K_RW, -EINVAL,
				      "ioengine=%s does writes only (write, randwrite): fio fails its other I/O with EINVAL",
				      job->backend);
		if (falloc && !trim && !rd && !wr)
			return fj_bad(m, K_RW, -EINVAL,
				      "ioengine=falloc takes one direction per job in iobench (read, write, trim, "
				      "randread, randwrite, randtrim)");
		fmode = trim ? "punch" : rd ? "keep" : "alloc";
		if (falloc && (rc = iob_job_set(job, "backend_options", fmode[0] == 'a' ? "" : fmode[0] == 'p' ? "write=punch" : "write=keep",
						m->why, sizeof m->why)) != 0)
			return fj_bad(m, K_RW, rc, "%s", m->why);
		job->access = w[0] == 'r' && w[1] == 'a' ? IOB_ACCESS_RAND : IOB_ACCESS_SEQ;
	} else if (strcmp(w, "read") == 0 || strcmp(w, "write") == 0) {
		job->access = IOB_ACCESS_SEQ;
	} else if (strcmp(w, "randread") == 0 || strcmp(w, "randwrite") == 0) {
		job->access = IOB_ACCESS_RAND;
	} else if (strcmp(w, "rw") == 0 || strcmp(w, "readwrite") == 0 || strcmp(w, "randrw") == 0) {
		job->access = w[0] == 'r' && w[1] == 'a' ? IOB_ACCESS_RAND : IOB_ACCESS_SEQ;
		mixed = 1;
	} else if (strstr(w, "trim")) { /* fio's HOWTO: Linux block devices and SCSI character devices only */
		return fj_bad(m, K_RW, -EINVAL,
			      "trims are not supported (but with ioengine=falloc, which punches holes): fio trims a "
			      "block device with BLKDISCARD (a regular file fails it: fio 3.33 ends the job with "
			      "ENOTTY at its first trim)");
	} else {
		return fj_bad(m, K_RW, -EINVAL, "not supported (read, write, randread, randwrite, rw, readwrite, randrw)");
	}
	if (mod) { /* rw=read:8k (sequential: bytes added after each I/O), rw=randread:8 (I/Os per offset) */
		int neg = mod[0] == '-';
		uint64_t v;
		if (job->access == IOB_ACCESS_SEQ) {
			if (!*mod || fj_fio_size(mod + neg, m->kb1000, &v, m->why, sizeof m->why) || v > ((uint64_t)1 << 40))
				return fj_bad(m, K_RW, -EINVAL, "the ':N' modifier of sequential I/O needs a size (8k, -8k)");
			snprintf(job->seq_add, sizeof job->seq_add, "%s%llu", neg && v ? "-" : "", (unsigned long long)v);
		} else {
			if (neg || fj_fio_uint(mod, UINT32_MAX, &v, m->why, sizeof m->why))
				return fj_bad(m, K_RW, -EINVAL, "the ':N' modifier of random I/O needs a count of I/Os");
			job->rand_run = (uint32_t)v;
		}
	}
	job->phases = mixed ? IOB_PHASE_BIT(IOB_PHASE_MIXED)
		      : fmode || strstr(w, "write") ? IOB_PHASE_BIT(IOB_PHASE_WRITE)
					   : IOB_PHASE_BIT(IOB_PHASE_READ);
	uint64_t u;
	if ((rc = fj_get_uint(m, K_RWMIXREAD, 100, 50, &u)) != 0)
		return rc;
	job->rwmix_read = (uint32_t)u;
	if (fj_get(m, K_RWMIXWRITE)) {
		if ((rc = fj_get_uint(m, K_RWMIXWRITE, 100, 50, &u)) != 0)
			return rc;
		if (fj_get(m, K_RWMIXREAD) && job->rwmix_read != 100 - u)
			return fj_bad(m, K_RWMIXWRITE, -EINVAL, "contradicts rwmixread=%u", job->rwmix_read);
		job->rwmix_read = (uint32_t)(100 - u);
	}

	uint64_t bs = 4096, rbs = 4096, wbs = 4096, tbs = 4096, size = 0, filesize = 0, io_size = 0, x;
	int bs_set, range_set, size_set, filesize_set, io_set;
	if ((rc = get_bs(m, &rbs, &wbs, &tbs, &bs_set)) || (rc = fj_get_range(m, K_BSRANGE, &x, &range_set)))
		return rc;
	/* the size of the direction the job uses; both: they must agree */
	if (mixed && rbs != wbs && !fj_get(m, K_BSSPLIT))
		return fj_bad(m, K_BS, -EINVAL,
			   "reads of %llu and writes of %llu bytes: rw=%s does both, and iobench does one block size "
			   "per job",
			   (unsigned long long)rbs, (unsigned long long)wbs, w);
	bs = fmode ? (fmode[0] == 'p' ? tbs : fmode[0] == 'k' ? rbs : wbs)
	     : job->phases & IOB_PHASE_BIT(IOB_PHASE_WRITE) ? wbs : rbs;
	if (range_set) {
		if (bs_set && x != bs)
			return fj_bad(m, K_BSRANGE, -EINVAL, "contradicts bs");
		bs = x;
	}
	if (!bs)
		return fj_bad(m, bs_set ? K_BS : K_BSRANGE, -EINVAL, "the block size must be at least 1 byte");
	job->block_size = bs;
	if ((rc = fj_get_size(m, K_SIZE, &size, &size_set)) || (rc = fj_get_range(m, K_FILESIZE, &filesize, &filesize_set)) ||
	    (rc = fj_get_size(m, K_IO_SIZE, &io_size, &io_set)))
		return rc;
	int fill, serial;
	if ((rc = fj_get_bool(m, K_FILL_DEVICE, 0, &fill)) || (rc = fj_get_bool(m, K_CREATE_SERIALIZE, 1, &serial)))
		return rc;
	if (!fill && !size_set && !filesize_set && fill_before(m)) { /* fio: the file's size, once written */
		fill = 1;
		fj_note_job(m->r, job->name, "no size: reads the file an earlier fill_device job wrote, to its end");
	}
	job->fill_device = fill;
	(void)serial; /* create_serialize: one file per job, nothing to serialize */
	if (fill && !size_set && !filesize_set) /* not used: the file system's room or the file's end bounds it */
		size_set = 1, size = job->size;
	uint64_t offset, offset_inc;
	if ((rc = fio_offset(m, K_OFFSET, bs, &offset)) || (rc = fio_offset(m, K_OFFSET_INCREMENT, bs, &offset_inc)))
		return rc;
	if ((offset || offset_inc) && job->access != IOB_ACCESS_SEQ)
		return fj_bad(m, offset ? K_OFFSET : K_OFFSET_INCREMENT, -EINVAL,
			      "with random I/O is not supported: iobench draws random offsets over the whole file");
	if (!size_set && !filesize_set) { /* fio: the existing file's (or device's) size, less the offset */
		uint64_t tsize;
		if (target_size(job, &tsize) != 0)
			return fj_bad(m, K_SIZE, -EINVAL,
				      "no size: give size, or name an existing file or device (fio takes its size)");
		if (tsize <= offset)
			return fj_bad(m, K_OFFSET, -EINVAL, "is at or past the end of the file (%llu bytes)",
				      (unsigned long long)tsize);
		size = tsize - offset;
		size_set = 1;
	}
	if (offset || offset_inc) {
		char text[32];
		snprintf(text, sizeof text, "%llu", (unsigned long long)offset);
		if (iob_job_set(job, "offset", text, m->why, sizeof m->why) != 0)
			return fj_bad(m, K_OFFSET, -EINVAL, "%s", m->why);
		snprintf(text, sizeof text, "%llu", (unsigned long long)offset_inc);
		if (iob_job_set(job, "offset_increment", text, m->why, sizeof m->why) != 0)
			return fj_bad(m, K_OFFSET_INCREMENT, -EINVAL, "%s", m->why);
	}
	uint64_t fsize = filesize_set ? filesize : size;
	uint64_t amount = io_set ? io_size : size_set ? size : filesize;
	if (!fsize || !amount)
		return fj_bad(m, filesize_set ? K_FILESIZE : K_SIZE, -EINVAL, "must be at least 1 byte");
	job->size = fsize;

	uint64_t nfiles, loops, nios;
	if ((rc = fj_get_uint(m, K_NRFILES, UINT32_MAX, 1, &nfiles)) || (rc = fj_get_uint(m, K_LOOPS, UINT32_MAX, 1, &loops)) ||
	    (rc = fj_get_uint(m, K_NUMBER_IOS, UINT64_MAX, 0, &nios)))
		return rc;
	if (nfiles != 1)
		return fj_bad(m, K_NRFILES, -EINVAL, "iobench jobs use one file per stream: give nrfiles=1 (or numjobs)");
	if (!loops)
		return fj_bad(m, K_LOOPS, -EINVAL, "give at least 1");
	/* fio: each loop does io_size (or size) of I/O, capped at number_ios
	 * I/Os: whichever comes first */
	if (job->access == IOB_ACCESS_RAND) {
		uint64_t per = amount / bs;
		if (!per)
			return fj_bad(m, io_set ? K_IO_SIZE : K_SIZE, -EINVAL, "is smaller than one block (bs %llu)",
				   (unsigned long long)bs);
		if (nios && nios < per)
			per = nios;
		if (per > UINT64_MAX / loops)
			return fj_bad(m, K_LOOPS, -ERANGE, "%llu loops of %llu I/Os is over 2^64 I/Os",
				   (unsigned long long)loops, (unsigned long long)per);
		per *= loops;
		job->ops = time_based ? 0 : per; /* 0 with a runtime: no end but the time */
	} else {
		/* time_based: fio 3.33 goes on past number_ios (it counts loops, and
		 * a time_based job's passes are one loop), so the time ends it */
		if (nios && nios < amount / bs && !time_based) { /* the cap cuts each loop short */
			if (nios <= UINT64_MAX / bs && nios * bs % fsize == 0) {
				amount = nios * bs; /* whole passes */
			} else {
				/* part way through a pass: fio's next loop goes on from
				 * there, so the job is loops x number_ios I/Os in a row,
				 * over as many passes as they take */
				if (nios > UINT64_MAX / loops)
					return fj_bad(m, K_LOOPS, -ERANGE, "%llu loops of %llu I/Os is over 2^64 I/Os",
						   (unsigned long long)loops, (unsigned long long)nios);
				/* fewer passes than loops: number_ios is below a pass's I/Os */
				uint64_t total = nios * loops, per_pass = fsize / bs ? fsize / bs : 1;
				uint64_t passes = total / per_pass + (total % per_pass != 0);
				char text[32];
				snprintf(text, sizeof text, "%llu", (unsigned long long)total);
				if (iob_job_set(job, "seq_ops", text, m->why, sizeof m->why) != 0)
					return fj_bad(m, K_NUMBER_IOS, -EINVAL, "%s", m->why);
				job->loops = (uint32_t)passes;
				return 0;
			}
		}
		if (amount % fsize)
			return fj_bad(m, io_set ? K_IO_SIZE : K_SIZE, -EINVAL,
				   "is not a whole number of passes over the file (%llu bytes): iobench repeats "
				   "sequential passes whole",
				   (unsigned long long)fsize);
		uint64_t per = amount / fsize, passes = UINT32_MAX; /* time_based: the runtime stops it */
		if (!time_based) {
			if (per > UINT32_MAX / loops)
				return fj_bad(m, K_LOOPS, -ERANGE,
					   "%llu loops of %llu passes over the file is over iobench's limit of %u passes",
					   (unsigned long long)loops, (unsigned long long)per, UINT32_MAX);
			passes = per * loops;
		}
		job->loops = (uint32_t)passes;
	}
	return 0;
}
