/*
 * progress.c - the run's observer thread: the progress line and the
 * interval records (iobench/progress.h).
 */
#include "iobench/progress.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/intervals.h"
#include "iobench/log.h"
#include "iobench/os.h"
#include "iobench/units.h"

#define DRAW_NS 500000000ull  /* redraw the line this often */
#define NAP_NS 10000000ull    /* the thread looks at its stop flag this often */
#define ANSWER_NS 1000000000ull /* wait at most this for the streams' snapshots */

enum iob_progress_mode iob_progress_mode = IOB_PROGRESS_AUTO;

int iob_progress_parse(const char *text, enum iob_progress_mode *mode)
{
	static const char *const words[] = {"auto", "always", "never"};
	for (int i = 0; i < 3; i++)
		if (text && strcmp(text, words[i]) == 0) {
			*mode = (enum iob_progress_mode)i;
			return 0;
		}
	return -EINVAL;
}

int iob_progress_wanted(enum iob_progress_mode mode)
{
	return mode == IOB_PROGRESS_ALWAYS || (mode == IOB_PROGRESS_AUTO && iob_is_terminal(stderr));
}

/* The line on stderr: drawn by the observer, cleared by whoever prints
 * next.  `line_lock` is taken with an atomic exchange around each write;
 * `line_drawn` (atomic) lets a printer skip the lock when nothing is drawn. */
static int line_lock, line_drawn;

static void line_take(void)
{
	while (__atomic_exchange_n(&line_lock, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&line_lock, __ATOMIC_RELAXED))
			;
}

static void line_give(void)
{
	__atomic_store_n(&line_lock, 0, __ATOMIC_RELEASE);
}

void iob_progress_clear(void)
{
	if (!__atomic_load_n(&line_drawn, __ATOMIC_ACQUIRE))
		return;
	line_take();
	if (__atomic_load_n(&line_drawn, __ATOMIC_RELAXED)) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		__atomic_store_n(&line_drawn, 0, __ATOMIC_RELAXED);
	}
	line_give();
}

struct iob_observer {
	struct iob_observe_cfg cfg;
	struct iob_thread *thread;
	int stop;				/* atomic */
	uint64_t t0;				/* the observer's start */
	uint64_t last_ns, last_bytes, last_ops; /* the last draw */
};

/* "1:05", "1:02:03" */
static void fmt_eta(double s, char *buf, size_t len)
{
	unsigned long t = s > 0 ? (unsigned long)(s + 0.5) : 0;
	if (t >= 3600)
		snprintf(buf, len, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, len, "%lu:%02lu", t / 60, t % 60);
}

static void fmt_rate(double v, char *buf, size_t len)
{
	static const struct iob_scale_step steps[] = {{1e9, 2, "G"}, {1e6, 2, "M"}, {1e3, 1, "k"}, {1, 0, ""}};
	iob_format_scaled(v, steps, sizeof steps / sizeof steps[0], buf, len);
}

/* A name as the line draws it: every control character (C1 included) and
 * byte of invalid UTF-8 as \xNN (iob_quote), so no name can move the
 * cursor or start an escape sequence; cut with "..." to fit buf. */
static const char *draw_name(const char *name, char *buf, size_t len)
{
	return iob_quote(name, buf, len);
}

static void draw(struct iob_observer *o, uint64_t now)
{
	const struct iob_observe_cfg *c = &o->cfg;
	uint64_t bytes = 0, ops = 0, start = 0;
	int ramping = 0;
	for (size_t i = 0; i < c->nstreams; i++) {
		const struct iob_live *l = &c->live[i];
		uint64_t s = __atomic_load_n(&l->start_ns, __ATOMIC_RELAXED);
		ramping |= __atomic_load_n(&l->ramping, __ATOMIC_RELAXED);
		bytes += __atomic_load_n(&l->bytes, __ATOMIC_RELAXED);
		ops += __atomic_load_n(&l->ops, __ATOMIC_RELAXED);
		if (s && (!start || s < start))
			start = s;
	}
	double dt = (double)(now - o->last_ns) / 1e9;
	/* counters start again after a ramp: a drop is a new start */
	double bw = dt > 0 && bytes >= o->last_bytes ? (double)(bytes - o->last_bytes) / dt : 0;
	double iops = dt > 0 && ops >= o->last_ops ? (double)(ops - o->last_ops) / dt : 0;
	o->last_ns = now;
	o->last_bytes = bytes;
	o->last_ops = ops;
	if (!start || start > now)
		start = o->t0;
	double t = (double)(now - start) / 1e9, frac = -1, eta = -1;
	if (ramping) {
		frac = -2;
	} else {
		if (c->expect_bytes) {
			frac = (double)bytes / (double)c->expect_bytes;
			if (bytes && t > 0)
				eta = (double)(c->expect_bytes -
					       (bytes < c->expect_bytes ? bytes : c->expect_bytes)) /
				      ((double)bytes / t);
		}
		if (c->runtime_ns) {
			double ft = t / ((double)c->runtime_ns / 1e9), left = (double)c->runtime_ns / 1e9 - t;
			if (ft > frac)
				frac = ft;
			if (eta < 0 || left < eta)
				eta = left;
		}
	}
	char what[48], mib[32], io[32], e[32], line[256];
	if (frac == -2)
		snprintf(what, sizeof what, "ramp");
	else if (frac >= 0)
		snprintf(what, sizeof what, "%5.1f%%", frac > 0.999 ? 99.9 : frac * 100);
	else
		iob_format_bytes((double)bytes, what, sizeof what);
	snprintf(mib, sizeof mib, "%.1f MiB/s", bw / 1048576.0);
	fmt_rate(iops, io, sizeof io);
	if (eta >= 0)
		fmt_eta(eta, e, sizeof e);
	char tool[32], job[28], phase[16]; /* names escaped (draw_name); the job cut to about 24 */
	snprintf(line, sizeof line, "\r%s: %s %s %s  %s  %s IOPS%s%s\033[K", draw_name(c->tool, tool, sizeof tool),
		 draw_name(c->job, job, sizeof job), draw_name(c->phase, phase, sizeof phase), what, mib, io,
		 eta >= 0 ? "  ETA " : "", eta >= 0 ? e : "");
	line_take();
	fputs(line, stderr); /* one write: stderr is unbuffered */
	fflush(stderr);
	__atomic_store_n(&line_drawn, 1, __ATOMIC_RELEASE);
	line_give();
}

void iob_progress_draw_group(struct iob_group_line *st, const struct iob_group_view *v, uint64_t now)
{
	double dt = st->last_ns && now > st->last_ns ? (double)(now - st->last_ns) / 1e9 : 0;
	/* counters start again after a ramp: a drop is a new start */
	double bw = dt > 0 && v->bytes >= st->last_bytes ? (double)(v->bytes - st->last_bytes) / dt : 0;
	double iops = dt > 0 && v->ops >= st->last_ops ? (double)(v->ops - st->last_ops) / dt : 0;
	st->last_ns = now;
	st->last_bytes = v->bytes;
	st->last_ops = v->ops;
	char what[48] = "", moved[32], io[32], e[32] = "", line[256];
	if (v->ramping)
		snprintf(what, sizeof what, "  ramp");
	else if (v->frac >= 0)
		snprintf(what, sizeof what, "  %5.1f%%", v->frac > 0.999 ? 99.9 : v->frac * 100);
	iob_format_bytes((double)v->bytes, moved, sizeof moved);
	fmt_rate(iops, io, sizeof io);
	if (!v->ramping && v->left_s >= 0) {
		memcpy(e, "  ETA ", 7);
		fmt_eta(v->left_s, e + 6, sizeof e - 6);
	}
	snprintf(line, sizeof line, "\r%s: group %u, %zu job%s (%zu running)%s  %s  %.1f MiB/s  %s IOPS%s\033[K", v->tool,
		 v->group, v->njobs, v->njobs == 1 ? "" : "s", v->running, what, moved, bw / 1048576.0, io, e);
	line_take();
	fputs(line, stderr); /* one write: stderr is unbuffered */
	fflush(stderr);
	__atomic_store_n(&line_drawn, 1, __ATOMIC_RELEASE);
	line_give();
}

/* Close an interval: ask for the streams' snapshots and give them time to
 * answer (a stream answers at its next look at the clock: after the I/O in
 * progress), up to half an interval, at most ANSWER_NS. */
static void close_interval(struct iob_observer *o)
{
	struct iob_intervals *iv = o->cfg.iv;
	uint64_t wait = o->cfg.interval_ns / 2 < ANSWER_NS ? o->cfg.interval_ns / 2 : ANSWER_NS;
	iob_intervals_ask(iv);
	uint64_t until = iob_now_ns() + wait;
	while (!iob_intervals_answered(iv) && !__atomic_load_n(&o->stop, __ATOMIC_ACQUIRE) &&
	       iob_now_ns() < until)
		iob_sleep_ns(1000000, NULL);
	if (!__atomic_load_n(&o->stop, __ATOMIC_ACQUIRE))
		iob_intervals_take(iv, iob_now_ns(), 0);
}

static void observe(void *arg)
{
	struct iob_observer *o = arg;
	const struct iob_observe_cfg *c = &o->cfg;
	uint64_t next_draw = o->t0 + DRAW_NS, next_iv = c->interval_ns ? o->t0 + c->interval_ns : UINT64_MAX;
	while (!__atomic_load_n(&o->stop, __ATOMIC_ACQUIRE)) {
		uint64_t now = iob_now_ns();
		if (now >= next_iv) {
			close_interval(o);
			while (next_iv <= now)
				next_iv += c->interval_ns;
			now = iob_now_ns();
		}
		if (c->progress && now >= next_draw) {
			draw(o, now);
			while (next_draw <= now)
				next_draw += DRAW_NS;
		}
		uint64_t wake = c->progress && next_draw < next_iv ? next_draw : next_iv;
		uint64_t nap = wake > now ? wake - now : 0;
		iob_sleep_ns(nap < NAP_NS ? nap : NAP_NS, NULL);
	}
}

struct iob_observer *iob_observer_start(const struct iob_observe_cfg *cfg)
{
	struct iob_observer *o = calloc(1, sizeof *o);
	if (!o)
		return NULL;
	o->cfg = *cfg;
	iob_log_set_before_line(iob_progress_clear); /* a log line never lands inside the line */
	o->t0 = o->last_ns = iob_now_ns();
	if (iob_thread_start(&o->thread, observe, o) != 0) {
		free(o);
		return NULL;
	}
	return o;
}

void iob_observer_stop(struct iob_observer *o)
{
	if (!o)
		return;
	iob_thread_stop(o->thread, &o->stop);
	iob_progress_clear();
	free(o);
}
