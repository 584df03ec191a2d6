/*
 * asyncfault_backend.c - a test-only queued backend, "asyncfault" (never
 * installed), for the queued engine's fault tests (tests/fault/test_async.py).
 *
 * It keeps the ABI 1.1 submit/reap contract (plugin.h) to the letter, but
 * uses every freedom the contract leaves a backend, at random positions drawn
 * from a seed, and it checks the core's side of the contract:
 *   - submit takes a random part of what it is offered (0..n, 0 or -EAGAIN
 *     only while something is in flight), or fails: it queues a random first
 *     part k of the batch and returns k, and the next submit on the handle
 *     returns the error (k 0: this one does), as a ring that runs out of
 *     locked memory half way through a batch does;
 *   - reap hands back a random number of finished I/Os (min..max) in a
 *     random order, or refuses: 0 when min is 0, else -EAGAIN or -EINTR (the
 *     I/Os stay in flight);
 *   - a write may complete short (a random part of what was asked), which
 *     the core must resubmit for the rest.
 * The I/O itself is pread/pwrite done when reap picks the request.
 * Checked, and counted as violations: a submit of an I/O already in flight,
 * more in flight than queue_depth, n 0, a reap with min above what is in
 * flight, an I/O left in flight at close.
 *
 * Backend options ("k=v,..."):
 *     seed=N            the draws (default 1); each handle draws from
 *                       seed and the number of opens before it
 *     submit_fail=P     per mille of submit calls that fail part way (0)
 *     err=ENOMEM|EIO|ENOSPC   the error of a failing submit (ENOMEM)
 *     partial=P         per mille of submit calls that take only a part (0)
 *     reap_refuse=P     per mille of reap calls that refuse (0)
 *     refuse_with=both|EINTR  a refusing reap with min above 0 returns
 *                       -EAGAIN or -EINTR at random (both), or only -EINTR
 *     short=P           per mille of write completions that are short (0)
 *     write_pace_us=N   every write (write_at, or a queued one when reaped)
 *                       first sleeps N microseconds: a slow device, so that
 *                       a runtime ends a write phase early (0)
 *     depth_pace_us=N   a queued I/O completes N microseconds times the
 *                       most I/Os in flight while it is (from its submit
 *                       on: a later submit makes it later) after its
 *                       submit (reap sleeps until the first is due and
 *                       hands back those due, earliest first; no random
 *                       reap): a device whose latency grows with the
 *                       depth, for latency_target's search (0)
 *     depth_pow=K       with depth_pace_us: N times K to the power of the
 *                       I/Os in flight less one instead (K >= 2): each
 *                       depth K times slower than the one below (0: N times
 *                       the I/Os in flight)
 *     io_fail_every=K   every K-th queued I/O of io_fail_op on a handle,
 *                       counted as they complete, completes with the
 *                       error io_fail_err instead of moving data: a device
 *                       error on the queued path, for continue_on_error and
 *                       ignore_error (0: none)
 *     io_fail_op=read|write|io   which I/Os (default write)
 *     io_fail_err=EIO|ENOSPC|EILSEQ|ENOMEM   their error (default EIO)
 *     lose_every=K      every K-th queued write on a handle, counted as they
 *                       complete, reports every byte written and writes
 *                       none: a lost write, for verify (0: none)
 *     corrupt_every=K   every K-th queued write on a handle (the same count)
 *                       is written with the byte in its middle flipped: a
 *                       corrupted write, for verify (0: none)
 *     tally=PATH        at exit: one line "submitted S reaped R
 *                       submit_errors E refused F short H violations V
 *                       open_at_close C max_in_flight M io_failed X" over
 *                       the whole process (M: the most I/Os in flight on
 *                       one handle; X: the I/Os io_fail_every failed)
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "iobench/plugin.h"
#include "bopts.h"
#include "fdio.h"

#define AF_NAME "asyncfault"
#define AF_KEYS                                                                                                   \
	"seed, submit_fail, err, partial, reap_refuse, refuse_with, short, write_pace_us, depth_pace_us, depth_pow, " \
	"io_fail_every, io_fail_op, io_fail_err, lose_every, corrupt_every, tally"

static const struct iob_host *af_host;

struct af_cfg {
	uint64_t seed;
	unsigned submit_fail, partial, reap_refuse, shortw; /* per mille */
	uint64_t pace_us;
	uint64_t depth_pace_us;
	uint64_t depth_pow;
	int eintr_only; /* refuse_with=EINTR */
	int err;
	uint64_t fail_every; /* io_fail_every */
	int fail_ops;	     /* io_fail_op: bit 0 reads, bit 1 writes */
	int fail_err;	     /* io_fail_err, negative */
	uint64_t lose_every, corrupt_every;
	char tally[4096];
};

struct af_file {
	int fd;
	uint64_t rng;
	struct af_cfg cfg;
	uint32_t depth;
	struct iob_io **infl; /* in flight, depth of them */
	uint64_t *due;	      /* depth_pace_us: when each of infl[] completes (ns) */
	uint64_t *sub;	      /* and when it was submitted */
	size_t n;
	int fail_next; /* the rest of a failed batch: the next submit fails */
	uint64_t nfail_op; /* completions of io_fail_op so far */
	uint64_t nwrites;  /* queued writes completed so far (lose_every, corrupt_every) */
};

static unsigned long long t_max_in_flight;
static unsigned long long t_submitted, t_reaped, t_errors, t_refused, t_short, t_violations, t_open_at_close,
	t_opens, t_io_failed;
static char tally_path[4096];
static pthread_mutex_t tally_lock = PTHREAD_MUTEX_INITIALIZER;

#define COUNT(v, k) __atomic_add_fetch(&(v), (unsigned long long)(k), __ATOMIC_RELAXED)

__attribute__((destructor)) static void af_tally(void)
{
	pthread_mutex_lock(&tally_lock);
	int none = !tally_path[0];
	pthread_mutex_unlock(&tally_lock);
	if (none)
		return;
	FILE *f = fopen(tally_path, "we");
	if (!f)
		return;
	fprintf(f, "submitted %llu reaped %llu submit_errors %llu refused %llu short %llu violations %llu "
		   "open_at_close %llu max_in_flight %llu io_failed %llu\n",
		__atomic_load_n(&t_submitted, __ATOMIC_RELAXED), __atomic_load_n(&t_reaped, __ATOMIC_RELAXED),
		__atomic_load_n(&t_errors, __ATOMIC_RELAXED), __atomic_load_n(&t_refused, __ATOMIC_RELAXED),
		__atomic_load_n(&t_short, __ATOMIC_RELAXED), __atomic_load_n(&t_violations, __ATOMIC_RELAXED),
		__atomic_load_n(&t_open_at_close, __ATOMIC_RELAXED), __atomic_load_n(&t_max_in_flight, __ATOMIC_RELAXED),
		__atomic_load_n(&t_io_failed, __ATOMIC_RELAXED));
	fclose(f);
}

static void violation(const char *what)
{
	COUNT(t_violations, 1);
	af_host->log(IOB_LOG_ERROR, AF_NAME, "the core broke the queued contract: %s", what);
}

/* splitmix64 */
static uint64_t draw(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int roll(struct af_file *f, unsigned per_mille)
{
	return per_mille && draw(&f->rng) % 1000 < per_mille;
}

static int af_option(void *ctx, const char *key, const char *val)
{
	struct af_cfg *c = ctx;
	if (strcmp(key, "tally") == 0) {
		if (!*val || strlen(val) >= sizeof c->tally) {
			af_host->log(IOB_LOG_ERROR, AF_NAME, "backend option tally='%s': give a file path", val);
			return -EINVAL;
		}
		snprintf(c->tally, sizeof c->tally, "%s", val);
		return 0;
	}
	if (strcmp(key, "refuse_with") == 0) {
		if (strcmp(val, "both") && strcmp(val, "EINTR")) {
			af_host->log(IOB_LOG_ERROR, AF_NAME, "backend option refuse_with=%s: both or EINTR", val);
			return -EINVAL;
		}
		c->eintr_only = strcmp(val, "EINTR") == 0;
		return 0;
	}
	if (strcmp(key, "io_fail_op") == 0) {
		c->fail_ops = strcmp(val, "read") == 0 ? 1 : strcmp(val, "write") == 0 ? 2 : strcmp(val, "io") == 0 ? 3 : 0;
		if (!c->fail_ops) {
			af_host->log(IOB_LOG_ERROR, AF_NAME, "backend option io_fail_op=%s: read, write or io", val);
			return -EINVAL;
		}
		return 0;
	}
	if (strcmp(key, "err") == 0 || strcmp(key, "io_fail_err") == 0) { /* a submit's error, or an I/O's */
		static const struct {
			const char *name;
			int err;
		} errs[] = {{"ENOMEM", -ENOMEM}, {"EIO", -EIO}, {"ENOSPC", -ENOSPC}, {"EILSEQ", -EILSEQ}};
		int *to = key[0] == 'e' ? &c->err : &c->fail_err;
		size_t n = key[0] == 'e' ? 3 : 4; /* a submit fails with ENOMEM, EIO or ENOSPC */
		for (size_t i = 0; i < n; i++)
			if (strcmp(val, errs[i].name) == 0) {
				*to = errs[i].err;
				return 0;
			}
		af_host->log(IOB_LOG_ERROR, AF_NAME, "backend option %s=%s: one of ENOMEM, EIO, ENOSPC%s", key, val,
			     n == 4 ? ", EILSEQ" : "");
		return -EINVAL;
	}
	unsigned *pm = strcmp(key, "submit_fail") == 0 ? &c->submit_fail
		       : strcmp(key, "partial") == 0   ? &c->partial
		       : strcmp(key, "reap_refuse") == 0 ? &c->reap_refuse
		       : strcmp(key, "short") == 0     ? &c->shortw
							: NULL;
	if (!pm && strcmp(key, "seed") != 0 && strcmp(key, "write_pace_us") != 0 && strcmp(key, "depth_pace_us") != 0 &&
	    strcmp(key, "depth_pow") != 0 && strcmp(key, "io_fail_every") != 0 && strcmp(key, "lose_every") != 0 &&
	    strcmp(key, "corrupt_every") != 0)
		return bopts_unknown(af_host, AF_NAME, key, AF_KEYS);
	char *end;
	unsigned long long v = strtoull(val, &end, 10);
	if (!*val || *end || (pm && v > 1000)) {
		af_host->log(IOB_LOG_ERROR, AF_NAME, "backend option %s=%s: %s", key, val,
			  pm ? "a per mille, 0 to 1000" : "not a count");
		return -EINVAL;
	}
	if (pm)
		*pm = (unsigned)v;
	else if (key[0] == 'w')
		c->pace_us = v;
	else if (strcmp(key, "depth_pow") == 0)
		c->depth_pow = v;
	else if (strcmp(key, "io_fail_every") == 0)
		c->fail_every = v;
	else if (strcmp(key, "lose_every") == 0)
		c->lose_every = v;
	else if (strcmp(key, "corrupt_every") == 0)
		c->corrupt_every = v;
	else if (key[0] == 'd')
		c->depth_pace_us = v;
	else
		c->seed = v;
	return 0;
}

static int af_parse(const char *text, struct af_cfg *c)
{
	memset(c, 0, sizeof *c);
	c->seed = 1;
	c->err = -ENOMEM;
	c->fail_ops = 2;
	c->fail_err = -EIO;
	return bopts_each(text ? text : "", af_host, AF_NAME, af_option, c);
}

static int af_open(const struct iob_open_args *a, void **h)
{
	struct af_cfg c;
	int rc = af_parse(bopts_of(a), &c), oflags;
	if (rc < 0)
		return rc;
	if (fdio_oflags(a->flags, &oflags) < 0)
		return -EINVAL;
	struct af_file *f = calloc(1, sizeof *f);
	uint32_t depth = a->queue_depth > 1 ? a->queue_depth : 1;
	if (!f || !(f->infl = calloc(depth, sizeof *f->infl)) || !(f->due = calloc(depth, sizeof *f->due)) ||
	    !(f->sub = calloc(depth, sizeof *f->sub))) {
		if (f) {
			free(f->infl);
			free(f->due);
		}
		free(f);
		return -ENOMEM;
	}
	f->fd = fdio_open(a->path, oflags, a->mode);
	if (f->fd < 0) {
		rc = f->fd;
		free(f->infl);
		free(f->due);
		free(f->sub);
		free(f);
		return rc;
	}
	f->cfg = c;
	f->depth = depth;
	f->rng = c.seed * 0x2545f4914f6cdd1dull + COUNT(t_opens, 1);
	pthread_mutex_lock(&tally_lock); /* streams open their handles at once */
	if (c.tally[0] && !tally_path[0])
		snprintf(tally_path, sizeof tally_path, "%s", c.tally);
	pthread_mutex_unlock(&tally_lock);
	*h = f;
	return 0;
}

static int af_close(void *h)
{
	struct af_file *f = h;
	if (f->n) { /* the contract lets close cancel them; the engine never needs it here */
		COUNT(t_open_at_close, f->n);
		for (size_t i = 0; i < f->n; i++)
			f->infl[i]->result = -ECANCELED;
	}
	int rc = close(f->fd) < 0 ? -errno : 0;
	free(f->infl);
	free(f->due);
	free(f->sub);
	free(f);
	return rc;
}

static int64_t af_read_at(void *h, void *buf, size_t len, uint64_t off)
{
	return fdio_pread_full(((struct af_file *)h)->fd, buf, len, off, 0);
}

static uint64_t af_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void af_pace(const struct af_file *f)
{
	if (f->cfg.pace_us) {
		struct timespec ts = {(time_t)(f->cfg.pace_us / 1000000), (long)(f->cfg.pace_us % 1000000) * 1000};
		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
	}
}

static int64_t af_write_at(void *h, const void *buf, size_t len, uint64_t off)
{
	af_pace(h);
	return fdio_pwrite_full(((struct af_file *)h)->fd, buf, len, off, 0);
}

static int af_sync(void *h)
{
	return fdio_sync(((struct af_file *)h)->fd);
}

static int af_info(void *h, struct iob_file_info *info)
{
	struct af_file *f = h;
	uint32_t stream = 0;
	int rc = fdio_size(f->fd, &info->size, &stream);
	if (rc < 0)
		return rc;
	info->mem_align = 1;
	info->io_align = 1;
	info->is_stream = stream;
	return fdio_identity(f->fd, info, 0);
}

/* depth_pace_us's multiple for n in flight: n, or depth_pow^(n - 1). */
static uint64_t af_depth_factor(const struct af_cfg *c, size_t n)
{
	if (c->depth_pow < 2)
		return n;
	uint64_t m = 1;
	for (size_t i = 1; i < n && m < (1ull << 40); i++)
		m *= c->depth_pow;
	return m;
}

static int af_submit(void *h, struct iob_io *const *ios, size_t n)
{
	struct af_file *f = h;
	if (n == 0 || f->n + n > f->depth) {
		violation(n ? "more I/Os in flight than queue_depth" : "a submit of no I/O");
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < f->n; k++)
			if (f->infl[k] == ios[i]) {
				violation("an I/O submitted while it was in flight");
				return -EINVAL;
			}
		for (size_t k = 0; k < i; k++)
			if (ios[k] == ios[i]) {
				violation("one I/O twice in a submit");
				return -EINVAL;
			}
	}
	if (f->fail_next) {
		f->fail_next = 0;
		COUNT(t_errors, 1);
		return f->cfg.err;
	}
	size_t take = n;
	if (roll(f, f->cfg.submit_fail)) {
		take = (size_t)(draw(&f->rng) % n); /* the first part goes in, the rest fails */
		if (take == 0) {
			COUNT(t_errors, 1);
			return f->cfg.err;
		}
		f->fail_next = 1;
	} else if (roll(f, f->cfg.partial)) {
		take = (size_t)(draw(&f->rng) % (n + 1));
		if (take == 0 && f->n == 0)
			take = 1; /* nothing in flight: it must take one */
		if (take == 0)
			return draw(&f->rng) & 1 ? -EAGAIN : 0;
	}
	const uint64_t now = af_now_ns();
	for (size_t i = 0; i < take; i++) {
		ios[i]->result = 0;
		f->sub[f->n] = now;
		f->due[f->n] = 0;
		f->infl[f->n++] = ios[i];
	}
	/* each I/O in flight takes as long as the deepest queue it has been in:
	 * a submitter late to refill (a busy machine) cannot make the deeper
	 * depths look faster than they are */
	const uint64_t lat = f->cfg.depth_pace_us * 1000u * af_depth_factor(&f->cfg, f->n);
	for (size_t k = 0; f->cfg.depth_pace_us && k < f->n; k++)
		if (f->due[k] < f->sub[k] + lat)
			f->due[k] = f->sub[k] + lat;
	unsigned long long seen = __atomic_load_n(&t_max_in_flight, __ATOMIC_RELAXED);
	while (f->n > seen && !__atomic_compare_exchange_n(&t_max_in_flight, &seen, f->n, 0, __ATOMIC_RELAXED,
							   __ATOMIC_RELAXED))
		;
	COUNT(t_submitted, take);
	return (int)take;
}

static void af_do(struct af_file *f, struct iob_io *io)
{
	size_t len = io->len;
	if (f->cfg.fail_every && (f->cfg.fail_ops >> (io->write ? 1 : 0) & 1) &&
	    ++f->nfail_op % f->cfg.fail_every == 0) { /* io_fail_every: this one fails, nothing moved */
		io->result = f->cfg.fail_err;
		COUNT(t_io_failed, 1);
		return;
	}
	if (io->write)
		af_pace(f);
	if (io->write && len > 1 && roll(f, f->cfg.shortw)) {
		len = 1 + (size_t)(draw(&f->rng) % (len - 1));
		COUNT(t_short, 1);
	}
	const uint64_t nw = io->write ? ++f->nwrites : 0;
	if (nw && f->cfg.lose_every && nw % f->cfg.lose_every == 0) { /* lose_every: said done, not written */
		io->result = (int64_t)len;
		return;
	}
	io->result = io->write ? fdio_pwrite_full(f->fd, io->buf, len, io->off, 0)
			       : fdio_pread_full(f->fd, io->buf, len, io->off, 0);
	if (nw && f->cfg.corrupt_every && nw % f->cfg.corrupt_every == 0 && io->result > 0) { /* one byte flipped */
		const size_t mid = (size_t)io->result / 2;
		unsigned char b = (unsigned char)(((const unsigned char *)io->buf)[mid] ^ 0xff);
		if (fdio_pwrite_full(f->fd, &b, 1, io->off + mid, 0) != 1)
			io->result = -EIO;
	}
}

/* depth_pace_us: the earliest due, slept for, then every one due, earliest first. */
static int af_reap_due(struct af_file *f, struct iob_io **done, size_t max)
{
	size_t cnt = 0;
	while (cnt < max && f->n) {
		size_t k = 0;
		for (size_t i = 1; i < f->n; i++)
			if (f->due[i] < f->due[k])
				k = i;
		uint64_t now = af_now_ns();
		if (f->due[k] > now) {
			if (cnt)
				break;
			uint64_t left = f->due[k] - now;
			struct timespec ts = {(time_t)(left / 1000000000u), (long)(left % 1000000000u)};
			while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
				;
		}
		struct iob_io *io = f->infl[k];
		f->infl[k] = f->infl[--f->n];
		f->due[k] = f->due[f->n];
		f->sub[k] = f->sub[f->n];
		af_do(f, io);
		done[cnt++] = io;
	}
	COUNT(t_reaped, cnt);
	return (int)cnt;
}

static int af_reap(void *h, struct iob_io **done, size_t min, size_t max)
{
	struct af_file *f = h;
	if (min > f->n || max == 0) {
		violation(max ? "a reap waiting for more than is in flight" : "a reap with no room");
		return -EINVAL;
	}
	if (roll(f, f->cfg.reap_refuse)) {
		COUNT(t_refused, 1);
		if (min == 0)
			return 0;
		return draw(&f->rng) & 1 && !f->cfg.eintr_only ? -EAGAIN : -EINTR;
	}
	if (f->cfg.depth_pace_us)
		return af_reap_due(f, done, max);
	size_t hi = max < f->n ? max : f->n, lo = min;
	size_t cnt = lo + (size_t)(draw(&f->rng) % (hi - lo + 1));
	for (size_t i = 0; i < cnt; i++) {
		size_t k = (size_t)(draw(&f->rng) % f->n);
		struct iob_io *io = f->infl[k];
		f->infl[k] = f->infl[--f->n];
		f->due[k] = f->due[f->n];
		f->sub[k] = f->sub[f->n];
		af_do(f, io);
		done[i] = io;
	}
	COUNT(t_reaped, cnt);
	return (int)cnt;
}

static int af_control(void *h, int op, void *arg)
{
	if (!h && op == IOB_CTL_CHECK_OPTIONS && arg) {
		struct af_cfg c;
		return af_parse(arg, &c);
	}
	return -ENOTSUP;
}

static const struct iob_backend_ops af_ops = {IOB_BACKEND_OPS_OF(af), .control = af_control, .submit = af_submit,
					       .reap = af_reap};

IOB_BACKEND_PLUGIN(af_host, AF_NAME, "test only: queued I/O with submits failing part way, refused reaps, short writes",
		   IOB_CAP_READ | IOB_CAP_WRITE | IOB_CAP_SYNC | IOB_CAP_ASYNC, &af_ops);
