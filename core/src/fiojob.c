/*
 * fiojob.c - fio job files to a suite of jobs (iobench/fiojob.h,
 * docs/fio.md).
 *
 * Two steps.  The reader turns the file (and its includes) into sections,
 * each a set of fio keys with their last value and where it was written; a
 * job section starts from the [global] keys read so far.  Then each job's
 * keys are mapped onto one struct iob_job, all at once, so that keys that
 * depend on each other (ioengine and direct, size and kb_base, rw and
 * numjobs) give the same job in any order.  The table below is the one list
 * of fio keys: the reader looks keys up in it and `iobench keys --fio`
 * prints it.
 */
#include "iobench/fiojob.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "iobench/os.h"
#include "iobench/path.h"
#include "iobench/plugin.h"
#include "iobench/result.h"
#include "iobench/units.h"
#include "iobench/verify.h"

#define FIO_LINE_MAX 4096
#define FIO_WHERE_MAX 160

/* ---- the mapping table ---------------------------------------------------- */

enum fkey {
	K_NAME, K_DESCRIPTION, K_DIRECTORY, K_FILENAME, K_SIZE, K_FILESIZE, K_IO_SIZE, K_NRFILES, K_OFFSET,
	K_BS, K_BSRANGE, K_RW, K_RWMIXREAD, K_RWMIXWRITE, K_IOENGINE, K_IODEPTH, K_DIRECT, K_BUFFERED,
	K_NUMJOBS, K_THREAD, K_RUNTIME, K_TIME_BASED, K_RAMP_TIME, K_LOOPS, K_NUMBER_IOS, K_FSYNC,
	K_END_FSYNC, K_FSYNC_ON_CLOSE, K_RANDREPEAT, K_RANDSEED, K_NORANDOMMAP, K_STONEWALL, K_NEW_GROUP,
	K_GROUP_REPORTING, K_KB_BASE, K_INVALIDATE, K_UNLINK, K_WRITE_BW_LOG, K_WRITE_IOPS_LOG,
	K_WRITE_LAT_LOG, K_LOG_AVG_MSEC, K_SS, K_SS_DUR, K_SS_RAMP, K_GTOD_REDUCE, K_DISABLE_LAT,
	K_DISABLE_CLAT, K_DISABLE_SLAT,
	K_VERIFY, K_DO_VERIFY, K_VERIFY_INTERVAL, K_VERIFY_PATTERN, K_VERIFY_FATAL, K_VERIFY_DUMP, K_VERIFY_BACKLOG,
	K_BUFFER_PATTERN, K_COMPRESS_PCT, K_COMPRESS_CHUNK, K_DEDUPE_PCT, K_REFILL_BUFFERS, K_SCRAMBLE_BUFFERS,
	K_COUNT
};

struct fio_key {
	const char *name;
	const char *aliases; /* "a, b", or "" */
	const char *iobench; /* the iobench key(s) it sets */
	const char *how;     /* one line: what is accepted and what it does */
};

static const struct fio_key fio_keys[K_COUNT] = {
    [K_NAME] = {"name", "", "job name", "the job's name (the section name otherwise); letters, digits, _ - ."},
    [K_DESCRIPTION] = {"description", "", "(none)", "free text, ignored"},
    [K_DIRECTORY] = {"directory", "", "dir", "one directory (a ':' list is refused); --dir overrides it"},
    [K_FILENAME] = {"filename", "", "filename, dir, shared_file",
		    "one file (a ':' list is refused; '\\:' is a colon); a path sets dir too; with numjobs the "
		    "streams share it; default <job>.0.0, and <job>.0.0.<i> for stream i"},
    [K_SIZE] = {"size", "", "size, loops, ops",
		"bytes of I/O per stream, and the file size unless filesize is given; a percentage is refused"},
    [K_FILESIZE] = {"filesize", "", "size", "the file size (a range only with equal ends)"},
    [K_IO_SIZE] = {"io_size", "io_limit", "loops, ops",
		   "bytes of I/O per stream: random access, io_size / bs I/Os; sequential, whole passes over the "
		   "file only"},
    [K_NRFILES] = {"nrfiles", "nr_files", "(check)", "1 only: iobench jobs use one file per stream"},
    [K_OFFSET] = {"offset", "", "(check)", "0 only: iobench I/O starts at the start of the file"},
    [K_BS] = {"bs", "blocksize", "block_size",
	      "one size, or read,write[,trim] (an empty side is 4k): the size of the direction the job does; rw and "
	      "randrw need equal sizes"},
    [K_BSRANGE] = {"bsrange", "blocksize_range", "block_size", "a range with equal ends, as bs"},
    [K_RW] = {"rw", "readwrite",
	      "access, phases",
	      "read, write, randread, randwrite: one phase; rw (readwrite), randrw: phase mixed; a ':N' "
	      "suffix, trim and the rest are refused"},
    [K_RWMIXREAD] = {"rwmixread", "", "rwmix_read", "percent of reads in rw and randrw (default 50)"},
    [K_RWMIXWRITE] = {"rwmixwrite", "", "rwmix_read", "percent of writes: rwmix_read = 100 - rwmixwrite"},
    [K_IOENGINE] = {"ioengine", "", "backend, backend_options",
		    "psync (fio's default), sync, pvsync: posix (direct with direct=1); libaio: libaio, io_uring: "
		    "io_uring (backend option direct=1 with direct=1); mmap: mmap; null, cpp_null: null (no I/O, any iodepth); a changed "
		    "engine is noted"},
    [K_IODEPTH] = {"iodepth", "", "iodepth",
		   "I/Os in flight per stream with io_uring, libaio and null; the synchronous engines run depth 1, as fio does "
		   "(noted)"},
    [K_DIRECT] = {"direct", "", "backend, backend_options", "1: O_DIRECT (see ioengine); 0: through the page cache"},
    [K_BUFFERED] = {"buffered", "", "backend, backend_options", "the opposite of direct"},
    [K_NUMJOBS] = {"numjobs", "", "threads", "streams run at once, each on its own file unless filename is set"},
    [K_THREAD] = {"thread", "", "(none)", "accepted: iobench's streams are always threads"},
    [K_RUNTIME] = {"runtime", "timeout", "runtime",
		   "time limit of each phase, a bound (without time_based the job ends sooner when its size is done); a "
		   "bare number is seconds, units d h m s ms us (also sec, msec, usec)"},
    [K_TIME_BASED] = {"time_based", "", "time_based",
		      "run for the whole runtime, passing over the file again (needs runtime)"},
    [K_RAMP_TIME] = {"ramp_time", "", "ramp_time", "I/O before the measured window, as runtime's units"},
    [K_LOOPS] = {"loops", "", "loops, ops", "passes over the workload"},
    [K_NUMBER_IOS] = {"number_ios", "", "ops, loops",
		      "caps each loop's I/Os (per stream), as fio does; sequential access: only where the cap falls on a "
		      "whole pass"},
    [K_FSYNC] = {"fsync", "", "(check)", "0 only: a sync every N writes is not available in iobench"},
    [K_END_FSYNC] = {"end_fsync", "", "fsync", "1: sync the file at the end of the write phase (timed)"},
    [K_FSYNC_ON_CLOSE] = {"fsync_on_close", "", "fsync", "1: sync the file before closing it (timed)"},
    [K_RANDREPEAT] = {"randrepeat", "", "seed",
		      "1 (default): the same offsets every run; 0: a seed from the clock, noted so it can be given back"},
    [K_RANDSEED] = {"randseed", "", "seed", "the seed of random offsets"},
    [K_NORANDOMMAP] = {"norandommap", "", "random_map", "draw random offsets with replacement"},
    [K_STONEWALL] = {"stonewall", "wait_for_previous", "group",
		     "this job waits for the jobs before it: a new group starts (jobs of a group run at once)"},
    [K_NEW_GROUP] = {"new_group", "", "group",
		     "accepted: the job still runs with the jobs before it, so it is reported in their group (noted)"},
    [K_GROUP_REPORTING] = {"group_reporting", "", "(none)",
			   "accepted: iobench reports every group's aggregate and each stream anyway"},
    [K_KB_BASE] = {"kb_base", "", "(units)", "1024 (default: k = 1024, ki = 1000) or 1000 (k = 1000, ki = 1024)"},
    [K_INVALIDATE] = {"invalidate", "", "evict_before_read",
		      "1 (default): evict the files from the page cache before reading, and at every further pass"},
    [K_UNLINK] = {"unlink", "", "keep_files",
		  "0 (default): the files stay, as fio leaves them; 1: what the run made for the job (a laid-out file "
		  "too) is removed after it"},
    [K_WRITE_BW_LOG] = {"write_bw_log", "", "bw_log", "fio-style bandwidth log with this prefix (the job name when bare)"},
    [K_WRITE_IOPS_LOG] = {"write_iops_log", "", "iops_log", "fio-style IOPS log with this prefix (the job name when bare)"},
    [K_WRITE_LAT_LOG] = {"write_lat_log", "", "lat_log", "fio-style latency log with this prefix (the job name when bare)"},
    [K_LOG_AVG_MSEC] = {"log_avg_msec", "", "log_interval", "milliseconds each log line averages (at least 10)"},
    [K_SS] = {"steadystate", "ss", "steady_state, steady_rule, steady_limit",
	      "iops:X% or bw:X% (every 1 s round within X% of the window mean), iops_slope:X% or bw_slope:X% (the "
	      "slope below X% of the mean); an absolute limit is refused; needs ss_dur and runtime"},
    [K_SS_DUR] = {"steadystate_duration", "ss_dur", "steady_window, steady_round, steady_max_rounds",
		  "the window, in rounds of 1 s (fio's sampling); runtime / 1 s rounds at most"},
    [K_SS_RAMP] = {"steadystate_ramp_time", "ss_ramp", "steady_ramp", "time before rounds are judged, as runtime's units"},
    [K_GTOD_REDUCE] = {"gtod_reduce", "", "latency", "1: latency = off (no I/O timed, no latency figures); 0: as not given"},
    [K_DISABLE_LAT] = {"disable_lat", "", "latency",
		       "1 with disable_clat=1: latency = off (iobench's one latency, submission to completion, is "
		       "fio's lat and clat at once); alone: no effect (noted)"},
    [K_DISABLE_CLAT] = {"disable_clat", "", "latency", "1 with disable_lat=1: latency = off; alone: no effect (noted)"},
    [K_DISABLE_SLAT] = {"disable_slat", "", "(none)",
			"accepted: iobench has no submission latency of its own to turn off"},
    [K_VERIFY] = {"verify", "", "verify, phases",
		  "md5, crc32c (crc32c-intel), crc64, sha256, xxhash, meta, pattern (needs verify_pattern); 0 or none: "
		  "off.  A write job writes a 64-byte header in every block and verifies after it (do_verify); a read "
		  "job verifies what it reads.  Not fio's on-disk format; fio's other checksums are refused"},
    [K_DO_VERIFY] = {"do_verify", "", "phases", "1 (default): the verify phase runs; 0: the job only writes (or reads)"},
    [K_VERIFY_INTERVAL] = {"verify_interval", "", "verify_interval",
			   "a header every this many bytes (at least 64, dividing bs); default bs"},
    [K_VERIFY_PATTERN] = {"verify_pattern", "", "pattern",
			  "0xHEX (1 to 32 bytes, repeated) or a number up to 255: the data written and checked"},
    [K_VERIFY_FATAL] = {"verify_fatal", "", "verify_fatal",
			"accepted: iobench stops a fio job's verify at its first bad block either way, as fio does "
			"(fio 3.33 ends the job with EILSEQ)"},
    [K_VERIFY_DUMP] = {"verify_dump", "", "verify_dump",
		       "1: the first bad block to <file>.<offset>.expected and .received beside the file"},
    [K_VERIFY_BACKLOG] = {"verify_backlog", "", "(noted)",
			  "accepted (noted): iobench verifies after the whole write phase, not every N blocks"},
    [K_BUFFER_PATTERN] = {"buffer_pattern", "", "pattern",
			  "0xHEX (1 to 32 bytes, repeated) or a number up to 255: the data written (verify_pattern wins)"},
    [K_COMPRESS_PCT] = {"buffer_compress_percentage", "", "compress_percentage",
			"0 to 100: this share of every chunk is compressible (zeros, or buffer_pattern), the rest random"},
    [K_COMPRESS_CHUNK] = {"buffer_compress_chunk", "", "compress_chunk", "the chunk size (default 512, at most bs)"},
    [K_DEDUPE_PCT] = {"dedupe_percentage", "", "dedupe_percentage",
		      "0 to 100: this share of the blocks repeat one block (fio's dedupe_mode=repeat; other modes refused)"},
    [K_REFILL_BUFFERS] = {"refill_buffers", "", "(none)",
			  "accepted: iobench makes every block's content at its offset anyway"},
    [K_SCRAMBLE_BUFFERS] = {"scramble_buffers", "", "(none)",
			    "accepted: iobench's random data differs at every offset anyway"},
};

static int key_lookup(const char *name)
{
	for (int k = 0; k < K_COUNT; k++) {
		if (strcmp(fio_keys[k].name, name) == 0)
			return k;
		const char *a = fio_keys[k].aliases;
		size_t n = strlen(name);
		while (*a) {
			size_t len = strcspn(a, ",");
			if (len == n && strncmp(a, name, n) == 0)
				return k;
			a += len;
			while (*a == ',' || *a == ' ')
				a++;
		}
	}
	return -1;
}

int iob_fio_keys_print(FILE *f, int markdown)
{
	int w0 = 7, w1 = 7, w2 = 7;
	for (int k = 0; k < K_COUNT && !markdown; k++) {
		int l0 = (int)strlen(fio_keys[k].name), l1 = (int)strlen(fio_keys[k].aliases),
		    l2 = (int)strlen(fio_keys[k].iobench);
		w0 = l0 > w0 ? l0 : w0;
		w1 = l1 > w1 ? l1 : w1;
		w2 = l2 > w2 ? l2 : w2;
	}
	if (markdown)
		fprintf(f, "| fio key | aliases | iobench | what is accepted, what it does |\n|---|---|---|---|\n");
	else
		fprintf(f, "%-*s  %-*s  %-*s  %s\n", w0, "FIO KEY", w1, "ALIASES", w2, "IOBENCH", "WHAT IT DOES");
	for (int k = 0; k < K_COUNT; k++) {
		const struct fio_key *e = &fio_keys[k];
		if (markdown) {
			fprintf(f, "| `%s` | ", e->name);
			const char *a = e->aliases;
			while (*a) {
				size_t len = strcspn(a, ",");
				fprintf(f, "%s`%.*s`", a == e->aliases ? "" : ", ", (int)len, a);
				a += len;
				while (*a == ',' || *a == ' ')
					a++;
			}
			fprintf(f, " | %s | ", e->iobench);
			for (const char *c = e->how; *c; c++) /* a table cell: '|' escaped */
				fprintf(f, "%s%c", *c == '|' ? "\\" : "", *c);
			fprintf(f, " |\n");
		} else {
			fprintf(f, "%-*s  %-*s  %-*s  %s\n", w0, e->name, w1, e->aliases[0] ? e->aliases : "-", w2,
				e->iobench, e->how);
		}
	}
	return ferror(f) ? -EIO : 0;
}

int iob_fio_is_jobfile(const char *path)
{
	size_t n = strlen(path);
	return n > 4 && strcasecmp(path + n - 4, ".fio") == 0;
}

/* What a message says instead of a line of an included file: an include
 * may name any file the user can read (include /etc/shadow), and its text
 * must not reach a terminal or a log. */
#define INCLUDED_HIDDEN "the text of an included file is not shown"

/* ---- what the reader collects ---------------------------------------------- */

struct fval {
	char *value;  /* NULL: not set */
	int bare;     /* a flag without '=' */
	int included; /* from an included file: never echoed in a message */
	char where[FIO_WHERE_MAX];
};

struct fsection {
	char name[IOB_NAME_MAX + 64];
	char where[FIO_WHERE_MAX];
	struct fval v[K_COUNT];
};

struct reader {
	const struct iob_fio_opts *opts;
	struct iob_suite *suite;
	struct fsection global;
	struct fsection *jobs; /* IOB_MAX_JOBS */
	size_t njobs;
	struct fsection *cur;  /* the section being read, NULL before the first */
	char real_stack[IOB_MAX_INCLUDE_DEPTH + 1][4096];
	size_t depth;
	char unknown[1024];    /* "a, b": keys not in the table */
	char ignored[1024];    /* keys dropped as --fio-ignore asked */
	/* notes that name jobs: one note per text, its jobs listed */
	struct {
		char text[240], jobs[400];
	} agg[16];
	size_t nagg;
	char *err;
	size_t errlen;
};

static void fval_free(struct fval *v)
{
	free(v->value);
	v->value = NULL;
}

static void section_free(struct fsection *s)
{
	for (int k = 0; k < K_COUNT; k++)
		fval_free(&s->v[k]);
}

static int section_copy(struct fsection *dst, const struct fsection *src)
{
	for (int k = 0; k < K_COUNT; k++) {
		dst->v[k] = src->v[k];
		if (src->v[k].value && !(dst->v[k].value = strdup(src->v[k].value)))
			return -ENOMEM;
	}
	return 0;
}

static int fail(struct reader *r, int rc, const char *fmt, ...) IOB_PRINTF(3, 4);
static int fail(struct reader *r, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->err, r->errlen, fmt, ap);
	va_end(ap);
	return rc;
}

/* Add word to a "a, b" list unless it is there. */
static void list_add(char *list, size_t len, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = list; *p;) {
		size_t l = strcspn(p, ",");
		if (l == n && strncmp(p, word, n) == 0)
			return;
		p += l;
		while (*p == ',' || *p == ' ')
			p++;
	}
	size_t o = strlen(list);
	snprintf(list + o, len - o, "%s%s", o ? ", " : "", word);
}

static int in_list(const char *list, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = list ? list : ""; *p;) {
		size_t l = strcspn(p, ",");
		const char *s = p;
		size_t sl = l;
		while (sl && *s == ' ')
			s++, sl--;
		while (sl && s[sl - 1] == ' ')
			sl--;
		if (sl == n && strncmp(s, word, n) == 0)
			return 1;
		p += l;
		if (*p == ',')
			p++;
	}
	return 0;
}

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
		s[--n] = '\0';
	return s;
}

/* ${VAR} from the environment; fio's reserved $pagesize, $mb_memory,
 * $ncpus and arithmetic are refused by name. */
static int expand(const char *in, char *out, size_t outlen, char *why, size_t whylen)
{
	size_t o = 0;
	static const char *const reserved[] = {"$pagesize", "$mb_memory", "$ncpus"};
	for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
		if (strstr(in, reserved[i])) {
			snprintf(why, whylen, "fio's keyword %s is not supported: write the value", reserved[i]);
			return -EINVAL;
		}
	if (in[0] == '(') {
		snprintf(why, whylen, "fio's arithmetic expressions are not supported: write the value");
		return -EINVAL;
	}
	for (const char *p = in; *p;) {
		const char *v = NULL;
		size_t vl = 1;
		char name[256];
		if (p[0] == '$' && p[1] == '{') {
			const char *end = strchr(p + 2, '}');
			size_t nl = end ? (size_t)(end - p - 2) : 0;
			if (!end || nl == 0 || nl >= sizeof name) {
				snprintf(why, whylen, "bad variable reference in '%s' (use ${NAME})", IOB_Q(in));
				return -EINVAL;
			}
			memcpy(name, p + 2, nl);
			name[nl] = '\0';
			for (const char *c = name; *c; c++)
				if (!(isalnum((unsigned char)*c) || *c == '_')) {
					snprintf(why, whylen, "bad variable name '%s' in '%s'", IOB_Q(name), IOB_Q(in));
					return -EINVAL;
				}
			v = getenv(name);
			if (!v) {
				snprintf(why, whylen, "environment variable %s is not set", name);
				return -ENOENT;
			}
			vl = strlen(v);
			p = end + 1;
		} else {
			v = p++;
		}
		if (o + vl >= outlen) {
			snprintf(why, whylen, "value too long after expanding '%s'", IOB_Q(in));
			return -E2BIG;
		}
		memcpy(out + o, v, vl);
		o += vl;
	}
	out[o] = '\0';
	return 0;
}

static int read_file(struct reader *r, const char *path, int included);

/* `include NAME` (the rest of the line): NAME relative to the including file. */
static int do_include(struct reader *r, const char *path, const char *where, char *arg)
{
	char name[FIO_LINE_MAX], why[512], dir[4096], inc[8192];
	int rc = expand(trim(arg), name, sizeof name, why, sizeof why);
	if (rc && r->depth > 1)
		return fail(r, -EINVAL, "%s: include: a bad file name (%s)", where, INCLUDED_HIDDEN);
	if (rc)
		return fail(r, -EINVAL, "%s: include: %s", where, why);
	if (!name[0])
		return fail(r, -EINVAL, "%s: include: no file named", where);
	if (!r->cur)
		return fail(r, -EINVAL, "%s: include outside any section (put it under [global] or a job)", where);
	iob_path_dir(path, dir, sizeof dir);
	if (iob_path_absolute(name))
		snprintf(inc, sizeof inc, "%s", name);
	else
		snprintf(inc, sizeof inc, "%s/%s", dir, name);
	enum iob_path_kind k = iob_path_kind(inc, 1);
	if (k != IOB_PATH_REGULAR && r->depth > 1)
		return fail(r, -ENOENT, "%s: include: the file named %s (%s)",
			    where, k == IOB_PATH_MISSING ? "does not exist" : "is not a regular file", INCLUDED_HIDDEN);
	if (k != IOB_PATH_REGULAR)
		return fail(r, -ENOENT, "%s: include: '%s' %s", where, IOB_Q(inc),
			    k == IOB_PATH_MISSING ? "does not exist" : "is not a regular file");
	return read_file(r, inc, 1);
}

static int new_section(struct reader *r, const char *name, const char *where, int included)
{
	if (included)
		return fail(r, -EINVAL, "%s: an included file may not hold sections (fio's rule; %s)", where,
			    INCLUDED_HIDDEN);
	if (!*name)
		return fail(r, -EINVAL, "%s: the section name is empty", where);
	if (strcmp(name, "global") == 0) {
		r->cur = &r->global;
		return 0;
	}
	if (r->njobs >= IOB_MAX_JOBS)
		return fail(r, -E2BIG, "%s: more than %d jobs", where, IOB_MAX_JOBS);
	struct fsection *s = &r->jobs[r->njobs];
	memset(s, 0, sizeof *s);
	if (strlen(name) >= sizeof s->name)
		return fail(r, -ENAMETOOLONG, "%s: [%s]: section name too long", where, IOB_Q(name));
	snprintf(s->name, sizeof s->name, "%s", name);
	snprintf(s->where, sizeof s->where, "%s", where);
	r->njobs++;
	if (section_copy(s, &r->global) != 0)
		return fail(r, -ENOMEM, "out of memory");
	r->cur = s;
	return 0;
}

/* One KEY[=VALUE] into the current section (or every job: --set). */
static int set_key(struct reader *r, struct fsection *s, const char *key, const char *value, const char *where)
{
	char val[FIO_LINE_MAX], why[512];
	int k = key_lookup(key);
	if (r->opts && in_list(r->opts->ignore, key)) {
		list_add(r->ignored, sizeof r->ignored, key);
		return 0;
	}
	/* a line of an included file may be anything (include /etc/shadow):
	 * its messages name the file and line, never its text */
	int included = r->depth > 1;
	if (k < 0 && included)
		return fail(r, -EINVAL, "%s: not a fio key iobench maps (%s)", where, INCLUDED_HIDDEN);
	if (k < 0) {
		char q[128];
		list_add(r->unknown, sizeof r->unknown, iob_quote(key, q, sizeof q));
		return 0;
	}
	if (value) {
		int rc = expand(value, val, sizeof val, why, sizeof why);
		if (rc && included)
			return fail(r, rc, "%s: %s: a bad value (%s)", where, fio_keys[k].name, INCLUDED_HIDDEN);
		if (rc)
			return fail(r, rc, "%s: %s: %s", where, key, why);
	}
	struct fval *v = &s->v[k];
	fval_free(v);
	if (!(v->value = strdup(value ? val : "")))
		return fail(r, -ENOMEM, "out of memory");
	v->bare = value == NULL;
	v->included = included;
	snprintf(v->where, sizeof v->where, "%s", where);
	return 0;
}

static int parse_line(struct reader *r, const char *path, size_t lineno, char *line, int included)
{
	char where[FIO_WHERE_MAX], shown[128];
	snprintf(where, sizeof where, "%.120s:%zu", path, lineno);
	line[strcspn(line, ";#")] = '\0'; /* a comment, anywhere on the line, as fio reads it */
	char *t = trim(line);
	if (!*t)
		return 0;
	if (included) /* its text is never shown */
		snprintf(shown, sizeof shown, "(%s)", INCLUDED_HIDDEN);
	else
		iob_quote(t, shown, sizeof shown);
	if (*t == '[') {
		char *close = strchr(t, ']');
		if (!close || *trim(close + 1))
			return fail(r, -EINVAL, "%s: bad section header %s%s%s", where, included ? "" : "'", shown,
				    included ? "" : "'");
		*close = '\0';
		return new_section(r, trim(t + 1), where, included);
	}
	if (strncmp(t, "include", 7) == 0 && (t[7] == ' ' || t[7] == '\t'))
		return do_include(r, path, where, t + 8);
	if (!r->cur)
		return fail(r, -EINVAL, "%s: '%s' outside any section (put it under [global] or a job)", where, shown);
	char *eq = strchr(t, '=');
	char *value = NULL;
	if (eq) {
		*eq = '\0';
		value = trim(eq + 1);
	}
	char *key = trim(t);
	if (!*key)
		return fail(r, -EINVAL, "%s: a value without a key", where);
	for (const char *c = key; *c; c++)
		if (!(isalnum((unsigned char)*c) || *c == '_')) {
			if (included)
				return fail(r, -EINVAL, "%s: not a key (letters, digits and _) %s", where, shown);
			return fail(r, -EINVAL, "%s: '%s' is not a key (letters, digits and _)", where, IOB_Q(key));
		}
	return set_key(r, r->cur, key, value, where);
}

static int read_file(struct reader *r, const char *path, int included)
{
	char real[4096];
	if (iob_real_path(path, real, sizeof real) != 0)
		snprintf(real, sizeof real, "%s", path);
	for (size_t i = 0; i < r->depth; i++)
		if (strcmp(r->real_stack[i], real) == 0)
			return fail(r, -ELOOP, "%s: include loop: %s is already being read", path, real);
	if (r->depth > IOB_MAX_INCLUDE_DEPTH)
		return fail(r, -ELOOP, "%s: includes nested more than %d deep", path, IOB_MAX_INCLUDE_DEPTH);
	FILE *f = iob_fopen(path, "re");
	if (!f) {
		int e = errno;
		return fail(r, -e, "%s: cannot open: %s", path, strerror(e));
	}
	char **src = realloc(r->suite->sources, (r->suite->nsources + 1) * sizeof *src);
	if (src) {
		r->suite->sources = src;
		if ((src[r->suite->nsources] = strdup(real)) != NULL)
			r->suite->nsources++;
	}
	snprintf(r->real_stack[r->depth++], sizeof r->real_stack[0], "%s", real);
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	long len;
	int rc = 0;
	while (rc == 0 && (len = iob_getline(&line, &cap, f)) != -1) {
		lineno++;
		char *l = line;
		if (lineno == 1 && len >= 3 && memcmp(l, "\xef\xbb\xbf", 3) == 0) {
			l += 3;
			len -= 3;
		}
		long text = len; /* without its line end */
		while (text > 0 && (l[text - 1] == '\n' || l[text - 1] == '\r'))
			text--;
		if (text > FIO_LINE_MAX) {
			rc = fail(r, -E2BIG, "%s:%zu: line is %ld characters long, over the %d-character limit", path, lineno,
				  text, FIO_LINE_MAX);
			break;
		}
		for (long i = 0; i < len && rc == 0; i++) {
			unsigned char c = (unsigned char)l[i];
			if (((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) && included)
				rc = fail(r, -EINVAL, "%s:%zu: binary data (not a text job file; %s)", path, lineno,
					  INCLUDED_HIDDEN);
			else if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
				rc = fail(r, -EINVAL, "%s:%zu: binary data (byte 0x%02x; not a text job file)", path,
					  lineno, c);
		}
		if (rc == 0)
			rc = parse_line(r, path, lineno, l, included);
	}
	if (rc == 0 && ferror(f))
		rc = fail(r, -EIO, "%s: read error", path);
	free(line);
	fclose(f);
	r->depth--;
	return rc;
}

/* ---- values --------------------------------------------------------------- */

/* fio's sizes: [0x]digits, then an optional prefix k m g t p (any case),
 * 'i' after it for the other base, and an optional b.  With kb_base 1024
 * (fio's default) k = 1024 and ki = 1000; with 1000 the other way round. */
static int fio_size(const char *text, int kb1000, uint64_t *out, char *why, size_t whylen)
{
	const char *p = text;
	uint64_t v = 0;
	int base = 10, digits = 0;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	for (; isxdigit((unsigned char)*p) && (base == 16 || isdigit((unsigned char)*p)); p++, digits++) {
		unsigned d = isdigit((unsigned char)*p) ? (unsigned)(*p - '0') : (unsigned)(tolower((unsigned char)*p) - 'a' + 10);
		if (v > (UINT64_MAX - d) / (unsigned)base) {
			snprintf(why, whylen, "'%s' is too large", IOB_Q(text));
			return -ERANGE;
		}
		v = v * (unsigned)base + d;
	}
	if (!digits) {
		snprintf(why, whylen, "'%s' is not a size (a whole number and an optional unit: 4k, 1m, 10g)", IOB_Q(text));
		return -EINVAL;
	}
	if (*p == '%') {
		snprintf(why, whylen, "'%s': a size as a percentage is not supported", IOB_Q(text));
		return -EINVAL;
	}
	if (*p == '.') {
		snprintf(why, whylen, "'%s': a fraction is not supported (write 1536k, not 1.5m)", IOB_Q(text));
		return -EINVAL;
	}
	static const char prefixes[] = "kmgtp";
	int power = 0, iec = 0;
	const char *pre = *p ? strchr(prefixes, tolower((unsigned char)*p)) : NULL;
	if (pre) {
		power = (int)(pre - prefixes) + 1;
		p++;
		if (*p == 'i' || *p == 'I') {
			iec = 1;
			p++;
		}
	}
	if (*p == 'b' || *p == 'B')
		p++;
	if (*p) {
		snprintf(why, whylen, "'%s' has an unknown unit (use k, m, g, t, p, with i and b as fio allows)", IOB_Q(text));
		return -EINVAL;
	}
	uint64_t mult = (iec ? kb1000 : !kb1000) ? 1024 : 1000;
	for (int i = 0; i < power; i++) {
		if (v > UINT64_MAX / mult) {
			snprintf(why, whylen, "'%s' is too large", IOB_Q(text));
			return -ERANGE;
		}
		v *= mult;
	}
	*out = v;
	return 0;
}

/* fio's times: a whole number and an optional unit (any case): d h m s sec
 * ms msec us usec; none = def_ns per unit (seconds or milliseconds). */
static int fio_time(const char *text, uint64_t def_ns, uint64_t *out, char *why, size_t whylen)
{
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = {{"d", 86400000000000ull}, {"h", 3600000000000ull}, {"m", 60000000000ull}, {"s", 1000000000ull},
		     {"sec", 1000000000ull},	   {"ms", 1000000ull},	      {"msec", 1000000ull},  {"us", 1000ull},
		     {"usec", 1000ull}};
	const char *p = text;
	uint64_t v = 0;
	for (; isdigit((unsigned char)*p); p++) {
		if (v > (UINT64_MAX - 9) / 10) {
			snprintf(why, whylen, "'%s' is too large", IOB_Q(text));
			return -ERANGE;
		}
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p == text) {
		snprintf(why, whylen, "'%s' is not a time (a whole number and an optional unit: 30, 30s, 500ms, 2m)",
			 IOB_Q(text));
		return -EINVAL;
	}
	uint64_t mult = def_ns;
	if (*p) {
		mult = 0;
		for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
			if (strcasecmp(p, units[i].unit) == 0)
				mult = units[i].ns;
		if (!mult) {
			snprintf(why, whylen, "'%s' has an unknown unit (use d, h, m, s, ms or us)", IOB_Q(text));
			return -EINVAL;
		}
	}
	if (v > UINT64_MAX / mult) {
		snprintf(why, whylen, "'%s' is too large", IOB_Q(text));
		return -ERANGE;
	}
	*out = v * mult;
	return 0;
}

static int fio_uint(const char *text, uint64_t max, uint64_t *out, char *why, size_t whylen)
{
	int rc = iob_parse_u64(text, out, why, whylen);
	if (rc == 0 && *out > max) {
		snprintf(why, whylen, "'%s' is over the limit of %llu", IOB_Q(text), (unsigned long long)max);
		return -ERANGE;
	}
	return rc;
}

/* ---- one job ---------------------------------------------------------------- */

struct compiled {
	int time_based, new_group_only;
	uint32_t stonewall;
};

struct mapper {
	struct reader *r;
	struct fsection *s;
	struct iob_job *job;
	int kb1000;
	char why[512];
};

static const struct fval *get(const struct mapper *m, enum fkey k)
{
	return m->s->v[k].value ? &m->s->v[k] : NULL;
}

/* "FILE:LINE: [job] key=value: why" */
static int bad(struct mapper *m, enum fkey k, int rc, const char *fmt, ...) IOB_PRINTF(4, 5);
static int bad(struct mapper *m, enum fkey k, int rc, const char *fmt, ...)
{
	char why[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	const struct fval *v = &m->s->v[k];
	if (v->value && v->included) /* neither the value nor what was said of it */
		return fail(m->r, rc, "%s: [%s] %s: a bad value (%s)", v->where, m->s->name, fio_keys[k].name,
			    INCLUDED_HIDDEN);
	if (v->value && v->bare)
		return fail(m->r, rc, "%s: [%s] %s: %s", v->where, m->s->name, fio_keys[k].name, why);
	if (v->value)
		return fail(m->r, rc, "%s: [%s] %s=%s: %s", v->where, m->s->name, fio_keys[k].name, IOB_Q(v->value), why);
	return fail(m->r, rc, "%s: [%s] %s", m->s->where, m->s->name, why);
}

static int get_bool(struct mapper *m, enum fkey k, int def, int *out)
{
	const struct fval *v = get(m, k);
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
		return bad(m, k, -EINVAL, "give 1 or 0");
	return 0;
}

static int get_uint(struct mapper *m, enum fkey k, uint64_t max, uint64_t def, uint64_t *out)
{
	const struct fval *v = get(m, k);
	*out = def;
	if (!v)
		return 0;
	if (v->bare)
		return bad(m, k, -EINVAL, "needs a value");
	return fio_uint(v->value, max, out, m->why, sizeof m->why) ? bad(m, k, -EINVAL, "%s", m->why) : 0;
}

static int get_size(struct mapper *m, enum fkey k, uint64_t *out, int *set)
{
	const struct fval *v = get(m, k);
	*set = v != NULL;
	if (!v)
		return 0;
	if (v->bare)
		return bad(m, k, -EINVAL, "needs a value");
	return fio_size(v->value, m->kb1000, out, m->why, sizeof m->why) ? bad(m, k, -EINVAL, "%s", m->why) : 0;
}

/* A range "a-b" or "a:b" with equal ends (or one value). */
static int get_range(struct mapper *m, enum fkey k, uint64_t *out, int *set)
{
	const struct fval *v = get(m, k);
	*set = v != NULL;
	if (!v)
		return 0;
	char a[FIO_LINE_MAX];
	snprintf(a, sizeof a, "%s", v->value);
	char *sep = strpbrk(a, "-:");
	uint64_t lo, hi;
	if (sep)
		*sep = '\0';
	if (fio_size(trim(a), m->kb1000, &lo, m->why, sizeof m->why) ||
	    (sep && fio_size(trim(sep + 1), m->kb1000, &hi, m->why, sizeof m->why)))
		return bad(m, k, -EINVAL, "%s", m->why);
	if (sep && hi != lo)
		return bad(m, k, -EINVAL, "a range of sizes is not supported: give equal ends (iobench does one size per job)");
	*out = lo;
	return 0;
}

/* bs: one size for every direction, or fio's "READ,WRITE[,TRIM]", where an
 * empty side keeps fio's default (4k) for that direction: bs=,8k reads 4k
 * and writes 8k.  Trim is not a direction iobench runs: its size is
 * checked, then ignored. */
static int get_bs(struct mapper *m, uint64_t *rbs, uint64_t *wbs, int *set)
{
	const struct fval *v = get(m, K_BS);
	*set = v != NULL;
	if (!v)
		return 0;
	if (v->bare)
		return bad(m, K_BS, -EINVAL, "needs a size");
	char a[FIO_LINE_MAX];
	snprintf(a, sizeof a, "%s", v->value);
	uint64_t dir[3] = {4096, 4096, 4096};
	int n = 0, given = 0;
	for (char *t = a, *next; t && n < 4; t = next, n++) {
		next = strchr(t, ',');
		if (next)
			*next++ = '\0';
		if (n == 3)
			return bad(m, K_BS, -EINVAL, "at most three sizes (read,write,trim)");
		if (!*trim(t))
			continue;
		if (fio_size(trim(t), m->kb1000, &dir[n], m->why, sizeof m->why))
			return bad(m, K_BS, -EINVAL, "%s", m->why);
		given++;
	}
	if (!given)
		return bad(m, K_BS, -EINVAL, "needs a size");
	if (n == 1) /* one size: every direction */
		dir[1] = dir[0];
	*rbs = dir[0];
	*wbs = dir[1];
	return 0;
}

static int get_time(struct mapper *m, enum fkey k, uint64_t def_ns, uint64_t *out)
{
	const struct fval *v = get(m, k);
	*out = 0;
	if (!v)
		return 0;
	if (v->bare)
		return bad(m, k, -EINVAL, "needs a value");
	return fio_time(v->value, def_ns, out, m->why, sizeof m->why) ? bad(m, k, -EINVAL, "%s", m->why) : 0;
}

static void note(struct reader *r, const char *fmt, ...) IOB_PRINTF(2, 3);
static void note(struct reader *r, const char *fmt, ...)
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
static void note_job(struct reader *r, const char *job, const char *fmt, ...) IOB_PRINTF(3, 4);
static void note_job(struct reader *r, const char *job, const char *fmt, ...)
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
	list_add(r->agg[i].jobs, sizeof r->agg[i].jobs, job);
}

static void notes_flush(struct reader *r)
{
	for (size_t i = 0; i < r->nagg; i++)
		note(r, "%s (%s %s)", r->agg[i].text, strchr(r->agg[i].jobs, ',') ? "jobs" : "job", r->agg[i].jobs);
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
			return bad(m, k, -EINVAL, "several names (':') are not supported: give one");
		if (o + 1 >= len)
			return bad(m, k, -ENAMETOOLONG, "too long");
		out[o++] = *p;
	}
	out[o] = '\0';
	return 0;
}

enum engine { ENG_PSYNC, ENG_SYNC, ENG_PVSYNC, ENG_LIBAIO, ENG_IO_URING, ENG_MMAP, ENG_NULL };

static int map_engine(struct mapper *m, uint32_t *iodepth)
{
	static const struct {
		const char *name;
		enum engine e;
	} engines[] = {{"psync", ENG_PSYNC}, {"sync", ENG_SYNC},	 {"pvsync", ENG_PVSYNC},
		       {"libaio", ENG_LIBAIO}, {"io_uring", ENG_IO_URING}, {"mmap", ENG_MMAP},
		       {"null", ENG_NULL}, {"cpp_null", ENG_NULL}};
	struct iob_job *job = m->job;
	const struct fval *v = get(m, K_IOENGINE);
	enum engine e = ENG_PSYNC; /* fio's default */
	int found = !v;
	for (size_t i = 0; v && i < sizeof engines / sizeof engines[0]; i++)
		if (strcmp(v->value, engines[i].name) == 0) {
			e = engines[i].e;
			found = 1;
		}
	if (!found)
		return bad(m, K_IOENGINE, -EINVAL, "not supported (psync, sync, pvsync, libaio, io_uring, mmap or null)");
	int direct, buffered, rc;
	if ((rc = get_bool(m, K_DIRECT, 0, &direct)) || (rc = get_bool(m, K_BUFFERED, 1, &buffered)))
		return rc;
	if (get(m, K_BUFFERED) && get(m, K_DIRECT) && direct == buffered)
		return bad(m, K_BUFFERED, -EINVAL, "contradicts direct=%d", direct);
	if (get(m, K_BUFFERED) && !get(m, K_DIRECT))
		direct = !buffered;
	const char *name = v ? v->value : "psync";
	switch (e) {
	case ENG_PSYNC:
	case ENG_SYNC:
	case ENG_PVSYNC:
		snprintf(job->backend, sizeof job->backend, "%s", direct ? "direct" : IOB_DEFAULT_BACKEND);
		if (e != ENG_PSYNC)
			note_job(m->r, job->name,
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
			return bad(m, get(m, K_DIRECT) ? K_DIRECT : K_BUFFERED, -EINVAL,
				   "direct I/O does not apply to ioengine=mmap");
		snprintf(job->backend, sizeof job->backend, "mmap");
		break;
	case ENG_NULL: /* no I/O at all, at any depth, as fio's null engine */
		snprintf(job->backend, sizeof job->backend, "null");
		break;
	}
	if (*iodepth > 1 && e == ENG_LIBAIO && !direct) {
		note_job(m->r, job->name,
			 "iodepth=%u has no effect with ioengine=libaio and direct=0: Linux AIO does a buffered I/O "
			 "inside io_submit, so fio has one I/O in progress, and iobench's libaio backend runs at depth 1",
			 *iodepth);
		*iodepth = 1;
	}
	if (*iodepth > 1 && e != ENG_LIBAIO && e != ENG_IO_URING && e != ENG_NULL) {
		note_job(m->r, job->name, "iodepth=%u has no effect with ioengine=%s: it runs one I/O at a time, as fio does",
			 *iodepth, name);
		*iodepth = 1;
	}
	return 0;
}

static int valid_name(const char *n)
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
static int map_log(struct mapper *m, enum fkey k, const char *ikey)
{
	const struct fval *v = get(m, k);
	if (!v)
		return 0;
	if (!v->bare && (strcmp(v->value, "0") == 0 || !v->value[0]))
		return 0;
	const char *prefix = v->bare || strcmp(v->value, "1") == 0 ? m->job->name : v->value;
	int rc = iob_job_set(m->job, ikey, prefix, m->why, sizeof m->why);
	if (rc == -ENOENT)
		return bad(m, k, -ENOTSUP, "fio-style logs are not available in this build of iobench");
	return rc ? bad(m, k, rc, "%s", m->why) : 0;
}

static int map_files(struct mapper *m, uint64_t numjobs)
{
	struct iob_job *job = m->job;
	char dir[IOB_PATH_MAX], name[IOB_PATH_MAX];
	const struct fval *d = get(m, K_DIRECTORY), *f = get(m, K_FILENAME);
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
				return bad(m, K_FILENAME, -ENAMETOOLONG, "the path is too long");
			snprintf(dir, sizeof dir, "%s", joined);
			memmove(name, name + base, strlen(name + base) + 1);
		}
		if (!name[0])
			return bad(m, K_FILENAME, -EINVAL, "names a directory, not a file");
		job->shared_file = numjobs > 1;
	} else {
		snprintf(name, sizeof name, "%s.0.0", job->name);
	}
	if (m->r->opts && m->r->opts->dir)
		snprintf(dir, sizeof dir, "%s", m->r->opts->dir);
	if (strlen(dir) >= sizeof job->dir || strlen(name) >= sizeof job->filename)
		return bad(m, f ? K_FILENAME : K_DIRECTORY, -ENAMETOOLONG, "the path is too long");
	snprintf(job->dir, sizeof job->dir, "%s", dir);
	snprintf(job->filename, sizeof job->filename, "%s", name);
	return 0;
}

/* rw, sizes and the amount of work: access, phases, size, loops, ops. */
static int map_work(struct mapper *m, int time_based, uint64_t runtime_ns)
{
	struct iob_job *job = m->job;
	const struct fval *rw = get(m, K_RW);
	int mixed = 0, rc;
	const char *w = rw ? rw->value : "read"; /* fio's default */
	if (strchr(w, ':'))
		return bad(m, K_RW, -EINVAL, "the ':N' offset modifier is not supported");
	if (strcmp(w, "read") == 0 || strcmp(w, "write") == 0) {
		job->access = IOB_ACCESS_SEQ;
	} else if (strcmp(w, "randread") == 0 || strcmp(w, "randwrite") == 0) {
		job->access = IOB_ACCESS_RAND;
	} else if (strcmp(w, "rw") == 0 || strcmp(w, "readwrite") == 0 || strcmp(w, "randrw") == 0) {
		job->access = w[0] == 'r' && w[1] == 'a' ? IOB_ACCESS_RAND : IOB_ACCESS_SEQ;
		mixed = 1;
	} else {
		return bad(m, K_RW, -EINVAL, "not supported (read, write, randread, randwrite, rw, readwrite, randrw)");
	}
	job->phases = mixed ? IOB_PHASE_BIT(IOB_PHASE_MIXED)
		      : strstr(w, "write") ? IOB_PHASE_BIT(IOB_PHASE_WRITE)
					   : IOB_PHASE_BIT(IOB_PHASE_READ);
	uint64_t u;
	if ((rc = get_uint(m, K_RWMIXREAD, 100, 50, &u)) != 0)
		return rc;
	job->rwmix_read = (uint32_t)u;
	if (get(m, K_RWMIXWRITE)) {
		if ((rc = get_uint(m, K_RWMIXWRITE, 100, 50, &u)) != 0)
			return rc;
		if (get(m, K_RWMIXREAD) && job->rwmix_read != 100 - u)
			return bad(m, K_RWMIXWRITE, -EINVAL, "contradicts rwmixread=%u", job->rwmix_read);
		job->rwmix_read = (uint32_t)(100 - u);
	}

	uint64_t bs = 4096, rbs = 4096, wbs = 4096, size = 0, filesize = 0, io_size = 0, x;
	int bs_set, range_set, size_set, filesize_set, io_set;
	if ((rc = get_bs(m, &rbs, &wbs, &bs_set)) || (rc = get_range(m, K_BSRANGE, &x, &range_set)))
		return rc;
	/* the size of the direction the job uses; both: they must agree */
	if (mixed && rbs != wbs)
		return bad(m, K_BS, -EINVAL,
			   "reads of %llu and writes of %llu bytes: rw=%s does both, and iobench does one block size "
			   "per job",
			   (unsigned long long)rbs, (unsigned long long)wbs, w);
	bs = job->phases & IOB_PHASE_BIT(IOB_PHASE_WRITE) ? wbs : rbs;
	if (range_set) {
		if (bs_set && x != bs)
			return bad(m, K_BSRANGE, -EINVAL, "contradicts bs");
		bs = x;
	}
	if (!bs)
		return bad(m, bs_set ? K_BS : K_BSRANGE, -EINVAL, "the block size must be at least 1 byte");
	job->block_size = bs;
	if ((rc = get_size(m, K_SIZE, &size, &size_set)) || (rc = get_range(m, K_FILESIZE, &filesize, &filesize_set)) ||
	    (rc = get_size(m, K_IO_SIZE, &io_size, &io_set)))
		return rc;
	if (!size_set && !filesize_set)
		return bad(m, K_SIZE, -EINVAL, "no size: give size (fio would take an existing file's size)");
	uint64_t fsize = filesize_set ? filesize : size;
	uint64_t amount = io_set ? io_size : size_set ? size : filesize;
	if (!fsize || !amount)
		return bad(m, filesize_set ? K_FILESIZE : K_SIZE, -EINVAL, "must be at least 1 byte");
	job->size = fsize;

	uint64_t nfiles, offset, loops, nios;
	if ((rc = get_uint(m, K_NRFILES, UINT32_MAX, 1, &nfiles)) || (rc = get_uint(m, K_LOOPS, UINT32_MAX, 1, &loops)) ||
	    (rc = get_uint(m, K_NUMBER_IOS, UINT64_MAX, 0, &nios)))
		return rc;
	if (nfiles != 1)
		return bad(m, K_NRFILES, -EINVAL, "iobench jobs use one file per stream: give nrfiles=1 (or numjobs)");
	if (!loops)
		return bad(m, K_LOOPS, -EINVAL, "give at least 1");
	const struct fval *off = get(m, K_OFFSET);
	if (off) {
		if (off->bare || fio_size(off->value, m->kb1000, &offset, m->why, sizeof m->why) || offset != 0)
			return bad(m, K_OFFSET, -EINVAL, "only 0: iobench does its I/O from the start of the file");
	}
	if (time_based && !runtime_ns)
		return bad(m, K_TIME_BASED, -EINVAL, "needs runtime");
	/* fio: each loop does io_size (or size) of I/O, capped at number_ios
	 * I/Os: whichever comes first */
	if (job->access == IOB_ACCESS_RAND) {
		uint64_t per = amount / bs;
		if (!per)
			return bad(m, io_set ? K_IO_SIZE : K_SIZE, -EINVAL, "is smaller than one block (bs %llu)",
				   (unsigned long long)bs);
		if (nios && nios < per)
			per = nios;
		if (per > UINT64_MAX / loops)
			return bad(m, K_LOOPS, -ERANGE, "%llu loops of %llu I/Os is over 2^64 I/Os",
				   (unsigned long long)loops, (unsigned long long)per);
		per *= loops;
		job->ops = time_based ? 0 : per; /* 0 with a runtime: no end but the time */
	} else {
		if (nios && nios < amount / bs) { /* the cap cuts each loop short */
			if (nios > UINT64_MAX / bs || nios * bs % fsize)
				return bad(m, K_NUMBER_IOS, -EINVAL,
					   "stops each loop after %llu I/Os of %llu bytes, not after whole passes over "
					   "the file (%llu bytes): iobench repeats sequential passes whole",
					   (unsigned long long)nios, (unsigned long long)bs, (unsigned long long)fsize);
			amount = nios * bs;
		}
		if (amount % fsize)
			return bad(m, io_set ? K_IO_SIZE : K_SIZE, -EINVAL,
				   "is not a whole number of passes over the file (%llu bytes): iobench repeats "
				   "sequential passes whole",
				   (unsigned long long)fsize);
		uint64_t per = amount / fsize, passes = UINT32_MAX; /* time_based: the runtime stops it */
		if (!time_based) {
			if (per > UINT32_MAX / loops)
				return bad(m, K_LOOPS, -ERANGE,
					   "%llu loops of %llu passes over the file is over iobench's limit of %u passes",
					   (unsigned long long)loops, (unsigned long long)per, UINT32_MAX);
			passes = per * loops;
		}
		job->loops = (uint32_t)passes;
	}
	return 0;
}

/* fio's steady state (ss, ss_dur, ss_ramp) with fio's meaning: rounds of
 * 1 s, fio's sampling interval; a window of ss_dur; at most runtime. */
static int map_steady(struct mapper *m, uint64_t runtime_ns)
{
	const struct fval *ss = get(m, K_SS);
	uint64_t dur_ns, ramp_ns;
	int rc;
	if ((rc = get_time(m, K_SS_DUR, 1000000000ull, &dur_ns)) || (rc = get_time(m, K_SS_RAMP, 1000000000ull, &ramp_ns)))
		return rc;
	if (!ss)
		return get(m, K_SS_DUR) || get(m, K_SS_RAMP) ? bad(m, get(m, K_SS_DUR) ? K_SS_DUR : K_SS_RAMP, -EINVAL,
								    "needs ss (e.g. ss=iops:10%%)")
							  : 0;
	char metric[16] = "", limit[32];
	const char *colon = strchr(ss->value, ':');
	size_t ml = colon ? (size_t)(colon - ss->value) : 0;
	if (!colon || ml >= sizeof metric)
		return bad(m, K_SS, -EINVAL, "give iops:X%%, iops_slope:X%%, bw:X%% or bw_slope:X%%");
	memcpy(metric, ss->value, ml);
	int slope = ml > 6 && strcmp(metric + ml - 6, "_slope") == 0;
	if (slope)
		metric[ml - 6] = '\0';
	if ((strcmp(metric, "iops") != 0 && strcmp(metric, "bw") != 0) || !strchr(colon + 1, '%'))
		return bad(m, K_SS, -EINVAL,
			   "give iops:X%%, iops_slope:X%%, bw:X%% or bw_slope:X%% (a limit in units, not a percent, is not "
			   "available)");
	snprintf(limit, sizeof limit, "%s", colon + 1);
	if (!dur_ns || dur_ns % 1000000000ull || dur_ns < 2000000000ull)
		return bad(m, K_SS_DUR, -EINVAL, "give ss_dur in whole seconds, at least 2 (a window of 1 s rounds)");
	if (!runtime_ns || runtime_ns < dur_ns)
		return bad(m, K_SS, -EINVAL, "needs runtime (at least ss_dur): rounds of 1 s run until steady or runtime");
	if (m->job->ramp_ns)
		return bad(m, K_SS, -EINVAL, "with ramp_time, every 1 s round would ramp: use ss_ramp");
	char text[32];
	struct iob_job *job = m->job;
	snprintf(text, sizeof text, "%llu", (unsigned long long)(dur_ns / 1000000000ull));
	if (iob_job_set(job, "steady_state", metric, m->why, sizeof m->why) ||
	    iob_job_set(job, "steady_rule", slope ? "slope" : "deviation", m->why, sizeof m->why) ||
	    iob_job_set(job, "steady_limit", limit, m->why, sizeof m->why))
		return bad(m, K_SS, -EINVAL, "%s", m->why);
	uint64_t rounds = runtime_ns / 1000000000ull;
	if (iob_job_set(job, "steady_window", text, m->why, sizeof m->why))
		return bad(m, K_SS_DUR, -EINVAL, "%s", m->why);
	snprintf(text, sizeof text, "%llu", (unsigned long long)(rounds > 100000 ? 100000 : rounds));
	if (iob_job_set(job, "steady_max_rounds", text, m->why, sizeof m->why))
		return bad(m, K_SS, -EINVAL, "runtime: %s", m->why);
	snprintf(job->steady_round, sizeof job->steady_round, "1s");
	job->steady_ramp_ns = ramp_ns;
	note_job(m->r, job->name,
		 "ss: iobench judges rounds of 1 s, each a run of the phase of its own (files reopened, sequential I/O "
		 "from the start), where fio samples one running job every second");
	return 0;
}

/* Set iobench's key `key` from fio's key k through the key table's own
 * setter, so a fio value gets exactly the checks an INI value gets; a
 * refusal names fio's key and value. */
static int set_iob_key(struct mapper *m, enum fkey k, const char *key, const char *fmt, ...) IOB_PRINTF(4, 5);
static int set_iob_key(struct mapper *m, enum fkey k, const char *key, const char *fmt, ...)
{
	char text[128];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	if (iob_job_set(m->job, key, text, m->why, sizeof m->why) != 0)
		return bad(m, k, -EINVAL, "%s", m->why);
	return 0;
}

/* A pattern given as fio's 0xHEX or a number up to 255 (verify_pattern,
 * buffer_pattern) into job->pattern. */
static int map_pattern(struct mapper *m, enum fkey k)
{
	const struct fval *vp = get(m, k);
	char text[96];
	uint64_t byte;
	if (!vp)
		return 0;
	const char *p = vp->value;
	if (vp->bare || !p[0])
		return bad(m, k, -EINVAL, "needs a value (0xHEX or a number up to 255)");
	if (strlen(p) > 2 + 2 * IOB_PAT_HEX_MAX + 1)
		return bad(m, k, -EINVAL, "give 0xHEX (1 to 32 bytes) or a number up to 255");
	if (strncasecmp(p, "0x", 2) == 0 && strlen(p) % 2 == 1) /* 0xabc: an odd digit count, a leading 0 */
		snprintf(text, sizeof text, "hex:0%s", p + 2);
	else if (strncasecmp(p, "0x", 2) == 0)
		snprintf(text, sizeof text, "hex:%s", p + 2);
	else if (fio_uint(p, 255, &byte, m->why, sizeof m->why) == 0)
		snprintf(text, sizeof text, "byte:0x%02x", (unsigned)byte);
	else
		return bad(m, k, -EINVAL, "give 0xHEX (1 to 32 bytes) or a number up to 255");
	if (iob_pattern_parse(text, &m->job->pattern, m->why, sizeof m->why))
		return bad(m, k, -EINVAL, "give 0xHEX (1 to 32 bytes) or a number up to 255");
	return 0;
}

/* buffer_pattern, buffer_compress_*, dedupe_percentage: the data written. */
static int map_content(struct mapper *m)
{
	uint64_t cpct, dpct, chunk;
	int set, flag, rc;
	if ((rc = map_pattern(m, K_BUFFER_PATTERN)) || (rc = get_uint(m, K_COMPRESS_PCT, 100, 0, &cpct)) ||
	    (rc = get_uint(m, K_DEDUPE_PCT, 100, 0, &dpct)) || (rc = get_size(m, K_COMPRESS_CHUNK, &chunk, &set)) ||
	    (rc = get_bool(m, K_REFILL_BUFFERS, 0, &flag)) || (rc = get_bool(m, K_SCRAMBLE_BUFFERS, 1, &flag)))
		return rc;
	if (set && (!chunk || chunk > m->job->block_size))
		return bad(m, K_COMPRESS_CHUNK, -EINVAL, "give 1 byte to bs (%llu)", (unsigned long long)m->job->block_size);
	if (!set && m->job->pattern.compress_chunk > m->job->block_size) /* fio's 512 on a smaller bs */
		chunk = m->job->block_size;
	else if (!set)
		chunk = m->job->pattern.compress_chunk;
	if ((get(m, K_COMPRESS_PCT) && (rc = set_iob_key(m, K_COMPRESS_PCT, "compress_percentage", "%llu",
							 (unsigned long long)cpct))) ||
	    (get(m, K_DEDUPE_PCT) &&
	     (rc = set_iob_key(m, K_DEDUPE_PCT, "dedupe_percentage", "%llu", (unsigned long long)dpct))) ||
	    (rc = set_iob_key(m, K_COMPRESS_CHUNK, "compress_chunk", "%llu", (unsigned long long)chunk)))
		return rc;
	return 0;
}

/* verify, do_verify, verify_*: the job's verify keys and its phases. */
static int map_verify(struct mapper *m)
{
	static const struct {
		const char *fio;
		const char *iob;
	} kinds[] = {{"md5", "md5"},	   {"crc32c", "crc32c"}, {"crc32c-intel", "crc32c"}, {"crc64", "crc64"},
		     {"sha256", "sha256"}, {"xxhash", "xxhash"}, {"meta", "meta"},		  {"pattern", "pattern"}};
	struct iob_job *job = m->job;
	const struct fval *v = get(m, K_VERIFY), *vp = get(m, K_VERIFY_PATTERN);
	int rc, do_verify, fatal, dump;
	uint64_t u;
	if ((rc = get_bool(m, K_DO_VERIFY, 1, &do_verify)) || (rc = get_bool(m, K_VERIFY_FATAL, 0, &fatal)) ||
	    (rc = get_bool(m, K_VERIFY_DUMP, 0, &dump)) || (rc = get_uint(m, K_VERIFY_BACKLOG, UINT64_MAX, 0, &u)))
		return rc;
	const char *kind = NULL;
	if (v && (v->bare || !v->value[0]))
		return bad(m, K_VERIFY, -EINVAL, "needs a value (md5, crc32c, crc64, sha256, xxhash, meta, pattern)");
	if (v && strcmp(v->value, "0") != 0 && strcmp(v->value, "none") != 0) {
		for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
			if (strcmp(v->value, kinds[i].fio) == 0)
				kind = kinds[i].iob;
		if (!kind)
			return bad(m, K_VERIFY, -EINVAL, "not supported (md5, crc32c, crc64, sha256, xxhash, meta, pattern)");
	}
	if ((rc = map_pattern(m, K_VERIFY_PATTERN)) != 0)
		return rc;
	if (!kind) {
		if (get(m, K_VERIFY_INTERVAL) || vp || get(m, K_VERIFY_DUMP) || get(m, K_VERIFY_BACKLOG))
			return bad(m, get(m, K_VERIFY_INTERVAL) ? K_VERIFY_INTERVAL : vp ? K_VERIFY_PATTERN
					: get(m, K_VERIFY_DUMP)	    ? K_VERIFY_DUMP
									    : K_VERIFY_BACKLOG,
				   -EINVAL, "needs verify (md5, crc32c, crc64, sha256, xxhash, meta, pattern)");
		return 0;
	}
	if (strcmp(kind, "pattern") == 0 && !vp)
		return bad(m, K_VERIFY, -EINVAL, "verify=pattern needs verify_pattern");
	if (job->phases & IOB_PHASE_BIT(IOB_PHASE_MIXED))
		return bad(m, K_VERIFY, -EINVAL, "verify with a mixed workload (rw, randrw) is not available: write, then "
						 "verify in a job of its own");
	if (iob_job_set(job, "verify", kind, m->why, sizeof m->why))
		return bad(m, K_VERIFY, -EINVAL, "%s", m->why);
	uint64_t iv;
	int set;
	if ((rc = get_size(m, K_VERIFY_INTERVAL, &iv, &set)) != 0)
		return rc;
	if (set && !iv)
		return bad(m, K_VERIFY_INTERVAL, -EINVAL, "give at least 64 bytes");
	if (set && strcmp(kind, "pattern") != 0 && /* verify=pattern: no header, the interval changes nothing */
	    (rc = set_iob_key(m, K_VERIFY_INTERVAL, "verify_interval", "%llu", (unsigned long long)iv)))
		return rc;
	/* fio ends the job at its first bad block, whatever verify_fatal says */
	if ((rc = set_iob_key(m, K_VERIFY_FATAL, "verify_fatal", "true")) ||
	    (rc = set_iob_key(m, K_VERIFY_DUMP, "verify_dump", "%s", dump ? "true" : "false")))
		return rc;
	if (job->phases & IOB_PHASE_BIT(IOB_PHASE_WRITE))
		job->phases |= do_verify ? IOB_PHASE_BIT(IOB_PHASE_VERIFY) : 0;
	else if (do_verify)
		job->phases = IOB_PHASE_BIT(IOB_PHASE_VERIFY);
	if (get(m, K_VERIFY_BACKLOG))
		note_job(m->r, job->name,
			 "verify_backlog=%llu: iobench verifies after the whole write phase, not every %llu blocks",
			 (unsigned long long)u, (unsigned long long)u);
	char err[512];
	if ((rc = iob_job_check_verify(job, err, sizeof err)) != 0)
		return bad(m, K_VERIFY, rc, "%s", strchr(err, ']') ? strchr(err, ']') + 2 : err);
	return 0;
}

static int map_job(struct reader *r, struct fsection *s, struct iob_job *job, uint32_t *group, size_t index)
{
	struct mapper m = {.r = r, .s = s, .job = job};
	int rc;
	uint64_t u;
	iob_job_defaults(job);
	const struct fval *kb = get(&m, K_KB_BASE);
	if (kb && strcmp(kb->value, "1000") != 0 && strcmp(kb->value, "1024") != 0)
		return bad(&m, K_KB_BASE, -EINVAL, "give 1024 or 1000");
	m.kb1000 = kb && strcmp(kb->value, "1000") == 0;

	const struct fval *nm = get(&m, K_NAME);
	const char *name = nm && nm->value[0] ? nm->value : s->name;
	if (!valid_name(name) || strlen(name) >= sizeof job->name)
		return nm ? bad(&m, K_NAME, -EINVAL, "a job name may only use letters, digits, _ - . (it names files)")
			  : fail(r, -EINVAL, "%s: [%s]: a job name may only use letters, digits, _ - . (it names files)",
				 s->where, IOB_Q(s->name));
	snprintf(job->name, sizeof job->name, "%s", name);

	uint64_t numjobs, iodepth, runtime_ns, ramp_ns;
	int time_based, flag;
	if ((rc = get_uint(&m, K_NUMJOBS, IOB_THREADS_MAX, 1, &numjobs)) ||
	    (rc = get_uint(&m, K_IODEPTH, IOB_IODEPTH_MAX, 1, &iodepth)) ||
	    (rc = get_time(&m, K_RUNTIME, 1000000000ull, &runtime_ns)) ||
	    (rc = get_time(&m, K_RAMP_TIME, 1000000000ull, &ramp_ns)) || (rc = get_bool(&m, K_TIME_BASED, 0, &time_based)) ||
	    (rc = get_bool(&m, K_THREAD, 0, &flag)) || (rc = get_bool(&m, K_GROUP_REPORTING, 0, &flag)))
		return rc;
	if (!numjobs || !iodepth)
		return bad(&m, !numjobs ? K_NUMJOBS : K_IODEPTH, -EINVAL, "give at least 1");
	if ((rc = set_iob_key(&m, K_NUMJOBS, "threads", "%llu", (unsigned long long)numjobs)) ||
	    (rc = set_iob_key(&m, K_IODEPTH, "iodepth", "%llu", (unsigned long long)iodepth)) ||
	    (rc = set_iob_key(&m, K_RUNTIME, "runtime", "%lluns", (unsigned long long)runtime_ns)) ||
	    (rc = set_iob_key(&m, K_TIME_BASED, "time_based", "%s", time_based ? "true" : "false")) ||
	    (rc = set_iob_key(&m, K_RAMP_TIME, "ramp_time", "%lluns", (unsigned long long)ramp_ns)))
		return rc;
	if ((rc = map_engine(&m, &job->iodepth)) || (rc = map_files(&m, numjobs)) ||
	    (rc = map_work(&m, time_based, runtime_ns)))
		return rc;
	/* fio advises the kernel of random access (its fadvise_hint=1), which
	 * turns readahead off: the buffered posix and io_uring backends do too */
	if (job->access == IOB_ACCESS_RAND && !job->backend_options[0] &&
	    (strcmp(job->backend, "posix") == 0 || strcmp(job->backend, "io_uring") == 0 ||
	     strcmp(job->backend, "libaio") == 0))
		snprintf(job->backend_options, sizeof job->backend_options, "fadvise_random=1");
	if (job->shared_file && job->threads > 1 && job->access == IOB_ACCESS_SEQ)
		return bad(&m, K_FILENAME, -EINVAL,
			   "with numjobs=%u and sequential I/O, fio's clones each go over the whole file while "
			   "iobench's streams split it: drop filename (a file per stream) or use numjobs=1",
			   job->threads);

	int end_fsync, on_close, randrepeat, norandommap, invalidate, unlink_files;
	if ((rc = get_uint(&m, K_FSYNC, UINT32_MAX, 0, &u)))
		return rc;
	if (u)
		return bad(&m, K_FSYNC, -EINVAL,
			   "a sync every N writes is not available in iobench (end_fsync=1 syncs at the end)");
	if ((rc = get_bool(&m, K_END_FSYNC, 0, &end_fsync)) || (rc = get_bool(&m, K_FSYNC_ON_CLOSE, 0, &on_close)) ||
	    (rc = get_bool(&m, K_RANDREPEAT, 1, &randrepeat)) || (rc = get_bool(&m, K_NORANDOMMAP, 0, &norandommap)) ||
	    (rc = get_bool(&m, K_INVALIDATE, 1, &invalidate)) || (rc = get_bool(&m, K_UNLINK, 0, &unlink_files)))
		return rc;
	if ((rc = set_iob_key(&m, on_close ? K_FSYNC_ON_CLOSE : K_END_FSYNC, "fsync", "%s",
			  end_fsync || on_close ? "true" : "false")) ||
	    (rc = set_iob_key(&m, K_NORANDOMMAP, "random_map", "%s", norandommap ? "false" : "true")) ||
	    (rc = set_iob_key(&m, K_INVALIDATE, "evict_before_read", "%s", invalidate ? "true" : "false")) ||
	    (rc = set_iob_key(&m, K_UNLINK, "keep_files", "%s", unlink_files ? "false" : "true")))
		return rc;
	int gtod_reduce, no_lat, no_clat;
	if ((rc = get_bool(&m, K_GTOD_REDUCE, 0, &gtod_reduce)) || (rc = get_bool(&m, K_DISABLE_LAT, 0, &no_lat)) ||
	    (rc = get_bool(&m, K_DISABLE_CLAT, 0, &no_clat)) || (rc = get_bool(&m, K_DISABLE_SLAT, 0, &flag)))
		return rc;
	if (gtod_reduce || (no_lat && no_clat)) {
		if ((rc = set_iob_key(&m, gtod_reduce ? K_GTOD_REDUCE : K_DISABLE_CLAT, "latency", "%s", "off")))
			return rc;
	} else if (no_lat || no_clat) {
		note_job(r, job->name,
			 "%s=1 alone has no effect: iobench times each I/O once, submission to completion (fio's lat and "
			 "clat at once); give disable_lat=1 and disable_clat=1, or gtod_reduce=1, to turn it off",
			 no_lat ? "disable_lat" : "disable_clat");
	}
	if (get(&m, K_RANDSEED)) {
		if ((rc = get_uint(&m, K_RANDSEED, UINT64_MAX, 0, &u)) ||
		    (rc = set_iob_key(&m, K_RANDSEED, "seed", "%llu", (unsigned long long)u)))
			return rc;
	} else if (!randrepeat) {
		if ((rc = set_iob_key(&m, K_RANDREPEAT, "seed", "%llu",
				  (unsigned long long)(iob_now_ns() ^ ((uint64_t)index << 48)))))
			return rc;
		note(r, "job %s: randrepeat=0: seed %llu, taken from the clock (randseed=%llu repeats this run)", job->name,
		     (unsigned long long)job->seed, (unsigned long long)job->seed);
	}

	int stonewall, new_group;
	if ((rc = get_bool(&m, K_STONEWALL, 0, &stonewall)) || (rc = get_bool(&m, K_NEW_GROUP, 0, &new_group)))
		return rc;
	if (*group == 0)
		*group = 1;
	else if (stonewall)
		(*group)++;
	else if (new_group)
		note_job(r, job->name,
			 "new_group without stonewall: the job runs at once with the jobs before it, so iobench reports it "
			 "in their group");
	job->group = *group;

	if (get(&m, K_LOG_AVG_MSEC)) {
		uint64_t ms;
		char text[32];
		if ((rc = get_uint(&m, K_LOG_AVG_MSEC, UINT64_MAX / 1000000, 0, &ms)))
			return rc;
		snprintf(text, sizeof text, "%llums", (unsigned long long)ms);
		if (iob_job_set(job, "log_interval", text, m.why, sizeof m.why) != 0)
			return bad(&m, K_LOG_AVG_MSEC, -EINVAL, "%s", m.why);
	}
	if ((rc = map_log(&m, K_WRITE_BW_LOG, "bw_log")) || (rc = map_log(&m, K_WRITE_IOPS_LOG, "iops_log")) ||
	    (rc = map_log(&m, K_WRITE_LAT_LOG, "lat_log")) || (rc = map_content(&m)) || (rc = map_verify(&m)))
		return rc;
	return map_steady(&m, runtime_ns);
}

/* ---- laying out what read jobs need ----------------------------------------- */

static int same_files(const struct iob_job *a, const struct iob_job *b)
{
	struct iob_filelist fa, fb;
	int same = 0;
	if (iob_job_files(a, &fa) != 0)
		return 0;
	if (iob_job_files(b, &fb) == 0) {
		same = fa.n == fb.n;
		for (size_t i = 0; same && i < fa.n; i++)
			same = strcmp(fa.paths[i], fb.paths[i]) == 0;
		iob_filelist_free(&fb);
	}
	iob_filelist_free(&fa);
	return same;
}

/* Every file of the job is there, a regular file at least job->size long. */
static int files_ready(const struct iob_job *job)
{
	struct iob_filelist fl;
	int ok = 1;
	if (iob_job_files(job, &fl) != 0)
		return 0;
	for (size_t i = 0; ok && i < fl.n; i++) {
		uint64_t size = 0;
		ok = iob_path_kind(fl.paths[i], 1) == IOB_PATH_REGULAR && iob_file_size(fl.paths[i], &size) == 0 &&
		     size >= job->size;
	}
	iob_filelist_free(&fl);
	return ok;
}

/* fio lays out a missing (or short) file before a job reads it: here a
 * preparing job, run unrecorded before the read job's group, writes it
 * whole (sequential, buffered, synced) and keeps it. */
static int add_layouts(struct reader *r, struct iob_job *jobs, size_t *njobs, unsigned char *prepare)
{
	for (size_t j = 0; j < *njobs; j++) {
		struct iob_job *job = &jobs[j];
		if (prepare[j] || !(job->phases & (IOB_PHASE_BIT(IOB_PHASE_READ) | IOB_PHASE_BIT(IOB_PHASE_MIXED))) ||
		    strcmp(job->filename, "-") == 0 || strcmp(job->backend, "null") == 0) /* null reads no file */
			continue;
		size_t first = j; /* the group's first job: the layout goes before it */
		while (first > 0 && job->group && jobs[first - 1].group == job->group && !prepare[first - 1])
			first--;
		int ready = files_ready(job);
		for (size_t w = 0; w < first && !ready; w++)
			ready = (jobs[w].phases & IOB_PHASE_BIT(IOB_PHASE_WRITE)) && jobs[w].keep_files &&
				jobs[w].size >= job->size && same_files(&jobs[w], job);
		if (ready)
			continue;
		if (*njobs >= IOB_MAX_JOBS)
			return fail(r, -E2BIG, "more than %d jobs with the files laid out for the read jobs", IOB_MAX_JOBS);
		memmove(&jobs[first + 1], &jobs[first], (*njobs - first) * sizeof *jobs);
		memmove(&prepare[first + 1], &prepare[first], *njobs - first);
		(*njobs)++;
		job = &jobs[j + 1];
		struct iob_job *lay = &jobs[first];
		char name[IOB_NAME_MAX];
		snprintf(name, sizeof name, "%.*s.layout", (int)(sizeof name - 8), job->name);
		iob_job_defaults(lay);
		snprintf(lay->name, sizeof lay->name, "%s", name);
		memcpy(lay->dir, job->dir, sizeof lay->dir);
		memcpy(lay->filename, job->filename, sizeof lay->filename);
		lay->size = job->size;
		lay->threads = job->threads;
		lay->shared_file = job->shared_file;
		lay->allow_devices = job->allow_devices;
		lay->follow_symlinks = job->follow_symlinks;
		lay->phases = IOB_PHASE_BIT(IOB_PHASE_WRITE);
		lay->access = IOB_ACCESS_SEQ;
		lay->block_size = job->size < (1u << 20) ? job->size : 1u << 20;
		lay->fsync = 1;
		lay->keep_files = 1;
		lay->group = 0;
		/* unlink=1: what the layout made goes once the read job has run */
		prepare[first] = job->keep_files ? IOB_PREPARE_KEEP : IOB_PREPARE_UNLINK;
		note_job(r, job->name,
			 job->keep_files ? "files laid out first (written whole, synced, not reported), as fio lays out a "
					   "file it is to read"
					 : "files laid out first (written whole, synced, not reported), as fio lays out a "
					   "file it is to read, and removed after the job (unlink=1)");
		j++; /* job moved one up */
	}
	return 0;
}

/* ---- loading ----------------------------------------------------------------- */

static int load(const char *path, const struct iob_fio_opts *opts, struct iob_suite *suite, char *err, size_t errlen)
{
	struct reader r = {.opts = opts, .suite = suite, .err = err, .errlen = errlen};
	int rc = 0;
	memset(suite, 0, sizeof *suite);
	if (opts && opts->nsets > IOB_FIO_MAX_SETS) {
		snprintf(err, errlen, "more than %d --set options", IOB_FIO_MAX_SETS);
		return -E2BIG;
	}
	enum iob_path_kind k = iob_path_kind(path, 1);
	if (k != IOB_PATH_REGULAR) {
		snprintf(err, errlen, "%s: %s", path, k == IOB_PATH_MISSING ? "no such job file" : "not a regular file");
		return -ENOENT;
	}
	r.jobs = calloc(IOB_MAX_JOBS, sizeof *r.jobs);
	suite->jobs = calloc(IOB_MAX_JOBS, sizeof *suite->jobs);
	suite->prepare = calloc(IOB_MAX_JOBS, 1);
	if (!r.jobs || !suite->jobs || !suite->prepare) {
		free(r.jobs);
		snprintf(err, errlen, "out of memory");
		iob_suite_free(suite);
		return -ENOMEM;
	}
	rc = read_file(&r, path, 0);
	if (rc == 0 && r.njobs == 0)
		rc = fail(&r, -EINVAL, "%s: no job sections (fio runs one job per section other than [global])", path);
	/* --set: the last word in every job */
	for (size_t i = 0; rc == 0 && opts && i < opts->nsets; i++) {
		char kv[FIO_LINE_MAX], where[64];
		snprintf(kv, sizeof kv, "%s", opts->sets[i]);
		snprintf(where, sizeof where, "--set");
		char *eq = strchr(kv, '=');
		if (!eq || eq == kv) {
			rc = fail(&r, -EINVAL, "--set '%s': give KEY=VALUE", IOB_Q(opts->sets[i]));
			break;
		}
		*eq = '\0';
		for (size_t j = 0; rc == 0 && j < r.njobs; j++)
			rc = set_key(&r, &r.jobs[j], trim(kv), trim(eq + 1), where);
	}
	if (rc == 0 && r.unknown[0])
		rc = fail(&r, -EINVAL,
			  "%s: fio keys iobench does not support: %s ('iobench keys --fio' lists what it maps; "
			  "--fio-ignore KEY,... runs without them)",
			  path, r.unknown);
	uint32_t group = 0;
	for (size_t j = 0; rc == 0 && j < r.njobs; j++) {
		rc = map_job(&r, &r.jobs[j], &suite->jobs[j], &group, j);
		for (size_t i = 0; rc == 0 && i < j; i++)
			if (strcmp(suite->jobs[i].name, suite->jobs[j].name) == 0)
				rc = fail(&r, -EEXIST, "%s: [%s]: a second job of that name (iobench names records and files by it)",
					  r.jobs[j].where, suite->jobs[j].name);
		if (rc == 0)
			suite->njobs++;
	}
	if (rc == 0 && r.ignored[0])
		note(&r, "fio keys ignored as --fio-ignore asked (the run differs from fio's there): %s", r.ignored);
	if (rc == 0)
		rc = add_layouts(&r, suite->jobs, &suite->njobs, suite->prepare);
	if (rc == 0)
		notes_flush(&r);
	section_free(&r.global);
	for (size_t j = 0; j < r.njobs; j++)
		section_free(&r.jobs[j]);
	free(r.jobs);
	if (rc)
		iob_suite_free(suite);
	else
		suite->from_fio = 1;
	return rc;
}

int iob_fio_load(const char *path, const struct iob_fio_opts *opts, struct iob_suite *suite, char *err, size_t errlen)
{
	return load(path, opts, suite, err, errlen);
}

void iob_fio_advice(char *err, size_t errlen)
{
	static const struct {
		const char *iob, *fio;
	} advice[] = {
	    {"iobench --allow-device, or allow_devices = true in a profile",
	     "run with --allow-device: a fio job file has no key for it"},
	    {"set follow_symlinks = true to allow it", "name the link's target: a fio job file has no key to follow it"},
	    {"set group = 0", "put stonewall in every job after the first, so that each runs alone"},
	};
	for (size_t i = 0; i < sizeof advice / sizeof advice[0]; i++) {
		char *at = strstr(err, advice[i].iob);
		if (!at)
			continue;
		char tail[2048];
		snprintf(tail, sizeof tail, "%s", at + strlen(advice[i].iob));
		snprintf(at, errlen - (size_t)(at - err), "%s%s", advice[i].fio, tail);
	}
}

int iob_fio_load_string(const char *name, const char *text, const struct iob_fio_opts *opts, struct iob_suite *suite,
			char *err, size_t errlen)
{
	char path[4096];
	int rc = iob_write_temp(text, strlen(text), path, sizeof path);
	if (rc) {
		snprintf(err, errlen, "%s: cannot write a temporary copy: %s", name, strerror(-rc));
		return rc;
	}
	rc = load(path, opts, suite, err, errlen);
	iob_remove_file(path);
	return rc;
}
