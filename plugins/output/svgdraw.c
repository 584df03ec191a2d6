/*
 * svgdraw.c - the pictures of the svg output, shared with the html output
 * (svgdraw.h).  What is drawn, and the marks a test can find, are described
 * in svg.c and docs/outputs.md ("svg").  This file and its rooms share
 * svgdraw_int.h:
 *
 *   svgdraw.c           the records kept (phases, series, intervals, steady
 *                       state) and their fields; what both outputs do alike
 *                       around a run (svgd_out_*)
 *   svgdraw_axes.c      text and axes: coordinates, labels, lines, ticks,
 *                       frames, polylines, dots, legends
 *   svgdraw_pictures.c  the pictures: io_profile's sweep, series, latency,
 *                       files jobs, intervals, steady state; which are drawn
 */
#include "svgdraw_int.h"

/* ------------------------------------------------------------------------ */
/* Keeping the records.                                                      */

static int svg_grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 16;
	while (c < need)
		c *= 2;
	void *q = realloc(*p, c * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

/* A new zeroed element at the end of the array *p of *n (capacity *cap),
 * or NULL with st->oom set. */
static void *svg_new(struct svgd *st, void **p, size_t *cap, size_t *n, size_t size)
{
	if (svg_grow(p, cap, *n + 1, size) < 0) {
		st->oom = 1;
		return NULL;
	}
	char *e = (char *)*p + (*n)++ * size;
	memset(e, 0, size);
	return e;
}

static void svg_pts_put(struct svgd *st, struct svg_pts *p, double x, double y)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 256;
		double *nx = realloc(p->x, cap * sizeof(double));
		if (nx)
			p->x = nx;
		double *ny = nx ? realloc(p->y, cap * sizeof(double)) : NULL;
		if (!nx || !ny) {
			st->oom = 1;
			return;
		}
		p->y = ny;
		p->cap = cap;
	}
	p->x[p->n] = x;
	p->y[p->n] = y;
	p->n++;
}

/* Points a, b (indexes) as a bucket's two: the lower and the higher y of
 * those given, in x order, at dst and dst + 1. */
static void svg_pts_pair(struct svg_pts *p, size_t dst, const size_t *idx, size_t k)
{
	size_t lo = idx[0], hi = idx[0];
	for (size_t i = 1; i < k; i++) {
		if (p->y[idx[i]] < p->y[lo])
			lo = idx[i];
		if (p->y[idx[i]] > p->y[hi])
			hi = idx[i];
	}
	size_t a = p->x[lo] <= p->x[hi] ? lo : hi, b = a == lo ? hi : lo;
	double ax = p->x[a], ay = p->y[a], bx = p->x[b], by = p->y[b];
	p->x[dst] = ax;
	p->y[dst] = ay;
	p->x[dst + 1] = bx;
	p->y[dst + 1] = by;
}

/* Halve the points kept: every two buckets (four points) become one. */
static void svg_pts_merge(struct svg_pts *p)
{
	size_t m = p->n / 4;
	for (size_t j = 0; j < m; j++) {
		size_t idx[4] = {4 * j, 4 * j + 1, 4 * j + 2, 4 * j + 3};
		svg_pts_pair(p, 2 * j, idx, 4);
	}
	p->n = 2 * m;
	p->per *= 2;
}

static void svg_pts_add(struct svgd *st, struct svg_pts *p, double x, double y)
{
	p->total++;
	if (!p->per) {
		svg_pts_put(st, p, x, y);
		if (p->n == SVGD_KEEP_POINTS) { /* every two points a bucket, then merged */
			p->per = 2;
			svg_pts_merge(p);
		}
		return;
	}
	if (!p->fill) { /* a new bucket: the point twice */
		svg_pts_put(st, p, x, y);
		svg_pts_put(st, p, x, y);
		if (st->oom)
			return;
	} else {
		svg_pts_put(st, p, x, y);
		if (st->oom)
			return;
		size_t idx[3] = {p->n - 3, p->n - 2, p->n - 1};
		svg_pts_pair(p, p->n - 3, idx, 3);
		p->n--;
	}
	if (++p->fill == p->per) {
		p->fill = 0;
		if (p->n >= SVGD_KEEP_POINTS)
			svg_pts_merge(p);
	}
}

static const struct iob_field *svg_field(const struct iob_record *rec, const char *key)
{
	for (size_t i = 0; i < rec->nfields; i++)
		if (rec->fields[i].key && strcmp(rec->fields[i].key, key) == 0)
			return &rec->fields[i];
	return NULL;
}

/* A numeric field as a double; 0 when absent or not a number. */
static int svg_num(const struct iob_record *rec, const char *key, double *v)
{
	const struct iob_field *f = svg_field(rec, key);
	*v = 0;
	if (!f)
		return 0;
	switch (f->type) {
	case IOB_T_U64:
		*v = (double)f->v.u;
		return 1;
	case IOB_T_I64:
		*v = (double)f->v.i;
		return 1;
	case IOB_T_F64:
		*v = isfinite(f->v.f) ? f->v.f : 0;
		return isfinite(f->v.f);
	default:
		return 0;
	}
}

static const char *svg_str(const struct iob_record *rec, const char *key)
{
	const struct iob_field *f = svg_field(rec, key);
	return f && f->type == IOB_T_STR && f->v.s ? f->v.s : "";
}

static int svg_bool(const struct iob_record *rec, const char *key)
{
	const struct iob_field *f = svg_field(rec, key);
	return f && f->type == IOB_T_BOOL && f->v.b;
}

/* The job, phase and block size a record names, kept. */
static void svg_keep_names(struct svgd *st, const struct iob_record *rec, char **job, char **phase, double *bs)
{
	*job = svgd_strdup(&st->oom, svg_str(rec, "job"));
	*phase = svgd_strdup(&st->oom, svg_str(rec, "phase"));
	svg_num(rec, "block_size_bytes", bs);
}

static void svg_keep_phase(struct svgd *st, const struct iob_record *rec)
{
	struct svg_phase *p = svg_new(st, (void **)&st->ph, &st->capph, &st->nph, sizeof(*st->ph));
	if (!p)
		return;
	svg_keep_names(st, rec, &p->job, &p->phase, &p->bs);
	svg_num(rec, "bw_bytes_per_s", &p->bw);
	svg_num(rec, "ops_per_s", &p->iops);
	const struct iob_field *f = svg_field(rec, "lat_ns");
	const struct iob_latency *lat = f && f->type == IOB_T_LAT ? f->v.lat : NULL;
	if (lat && lat->count && lat->pct && lat->value && lat->npct) {
		p->pct = calloc(lat->npct, sizeof(double));
		p->val = calloc(lat->npct, sizeof(double));
		if (!p->pct || !p->val) {
			st->oom = 1;
			return;
		}
		for (size_t i = 0; i < lat->npct; i++) {
			p->pct[i] = lat->pct[i];
			p->val[i] = (double)lat->value[i];
		}
		p->npct = lat->npct;
	}
	/* the summary of a series goes with the last series of this job */
	double blocks;
	if (!svg_num(rec, "blocks", &blocks))
		return;
	for (size_t i = st->nse; i-- > 0;) {
		struct svg_series *s = &st->se[i];
		if (s->summary || strcmp(s->job, p->job ? p->job : "") != 0)
			continue;
		s->summary = 1;
		s->cliff = svg_bool(rec, "cliff") && svg_num(rec, "cliff_offset_bytes", &s->cliff_offset);
		svg_num(rec, "cliff_before_bytes_per_s", &s->cliff_before);
		svg_num(rec, "cliff_after_bytes_per_s", &s->cliff_after);
		svg_num(rec, "robust_median_bytes_per_s", &s->median);
		break;
	}
}

/* An interval record: a point of the current phase's lines, or the first
 * of a new phase's (interval 0, or another job, phase or block size). */
static void svg_keep_interval(struct svgd *st, const struct iob_record *rec)
{
	double idx = 0, t, bw, iops, bs = 0;
	const char *job = svg_str(rec, "job"), *phase = svg_str(rec, "phase");
	if (!svg_num(rec, "time_s", &t) || !svg_num(rec, "bw_bytes_per_s", &bw) || !svg_num(rec, "ops_per_s", &iops))
		return;
	svg_num(rec, "interval", &idx);
	svg_num(rec, "block_size_bytes", &bs);
	struct svg_ivs *g = st->niv ? &st->iv[st->niv - 1] : NULL;
	if (!g || idx == 0 || !svg_same(g->job, job) || !svg_same(g->phase, phase) || g->bs != bs) {
		g = svg_new(st, (void **)&st->iv, &st->capiv, &st->niv, sizeof(*st->iv));
		if (!g)
			return;
		g->job = svgd_strdup(&st->oom, job);
		g->phase = svgd_strdup(&st->oom, phase);
		g->bs = bs;
	}
	svg_pts_add(st, &g->bw, t, bw);
	svg_pts_add(st, &g->iops, t, iops);
}

static void svg_keep_steady(struct svgd *st, const struct iob_record *rec)
{
	const char *metric = svg_str(rec, "steady_state"), *vals = svg_str(rec, "round_values");
	if (!metric || !vals)
		return;
	struct svg_steady *d = svg_new(st, (void **)&st->sd, &st->capsd, &st->nsd, sizeof(*st->sd));
	if (!d)
		return;
	svg_keep_names(st, rec, &d->job, &d->phase, &d->bs);
	d->bw = strcmp(metric, "bw") == 0;
	d->lat = strcmp(metric, "lat") == 0;
	d->reached = svg_bool(rec, "reached");
	svg_num(rec, "window", &d->window);
	svg_num(rec, svgd_steady_mean_key(metric), &d->mean);
	double i = 0;
	for (const char *p = vals; *p;) {
		char *end = NULL;
		double v = strtod(p, &end);
		if (end == p)
			break;
		svg_pts_add(st, &d->rounds, i++, v);
		p = *end == ',' ? end + 1 : end;
	}
	d->last = i - 1;
	if (d->reached)
		svg_num(rec, "reached_round", &d->last);
}

static void svg_keep(struct svgd *st, const struct iob_record *rec)
{
	const char *kind = rec->kind ? rec->kind : "";
	if (strcmp(kind, "io_profile_test") == 0) {
		st->profile = 1;
	} else if (strcmp(kind, "series") == 0) {
		struct svg_series *s = svg_new(st, (void **)&st->se, &st->capse, &st->nse, sizeof(*st->se));
		if (!s)
			return;
		s->job = svgd_strdup(&st->oom, svg_str(rec, "job"));
		s->file = svgd_strdup(&st->oom, svg_str(rec, "file"));
		svg_num(rec, "block_size_bytes", &s->block_size);
	} else if (strcmp(kind, "block") == 0 && st->nse) {
		struct svg_series *s = &st->se[st->nse - 1];
		double off, bytes, speed;
		if (svg_num(rec, "offset_bytes", &off) && svg_num(rec, "speed_bytes_per_s", &speed)) {
			svg_num(rec, "bytes", &bytes);
			svg_pts_add(st, &s->blocks, off, speed);
			if (off + bytes > s->end)
				s->end = off + bytes;
		}
	} else if (strcmp(kind, "phase") == 0) {
		svg_keep_phase(st, rec);
	} else if (strcmp(kind, "meta") == 0) { /* its latency curve too, named by the operation */
		svg_keep_phase(st, rec);
		if (st->nph && !st->oom) {
			st->ph[st->nph - 1].meta = 1;
			st->nmeta++;
		}
	} else if (strcmp(kind, "interval") == 0) {
		svg_keep_interval(st, rec);
	} else if (strcmp(kind, "steady") == 0) {
		svg_keep_steady(st, rec);
	}
}

int svg_same(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

/* ------------------------------------------------------------------------ */
/* The shared interface (svgdraw.h).                                         */

void svgd_keep(struct svgd *st, const struct iob_record *rec)
{
	svg_keep(st, rec);
}

const struct iob_field *svgd_field(const struct iob_record *rec, const char *key)
{
	return svg_field(rec, key);
}

int svgd_num(const struct iob_record *rec, const char *key, double *v)
{
	return svg_num(rec, key, v);
}

const char *svgd_str(const struct iob_record *rec, const char *key)
{
	return svg_str(rec, key);
}

int svgd_bool(const struct iob_record *rec, const char *key)
{
	return svg_bool(rec, key);
}

const char *svgd_steady_mean_key(const char *metric)
{
	return !metric ? "window_mean_per_s"
	       : strcmp(metric, "bw") == 0 ? "window_mean_bytes_per_s"
	       : strcmp(metric, "lat") == 0 ? "window_mean_ns"
				       : "window_mean_per_s";
}

static void svg_free_pts(struct svg_pts *p)
{
	free(p->x);
	free(p->y);
}

void svgd_free(struct svgd *st)
{
	for (size_t i = 0; i < st->nph; i++) {
		free(st->ph[i].job);
		free(st->ph[i].phase);
		free(st->ph[i].pct);
		free(st->ph[i].val);
	}
	for (size_t i = 0; i < st->nse; i++) {
		free(st->se[i].job);
		free(st->se[i].file);
		svg_free_pts(&st->se[i].blocks);
	}
	for (size_t i = 0; i < st->niv; i++) {
		free(st->iv[i].job);
		free(st->iv[i].phase);
		svg_free_pts(&st->iv[i].bw);
		svg_free_pts(&st->iv[i].iops);
	}
	for (size_t i = 0; i < st->nsd; i++) {
		free(st->sd[i].job);
		free(st->sd[i].phase);
		svg_free_pts(&st->sd[i].rounds);
	}
	free(st->sd);
	free(st->iv);
	free(st->ph);
	free(st->se);
	memset(st, 0, sizeof(*st));
}

/* ------------------------------------------------------------------------ */
/* What the svg and html outputs do alike around a run (svgdraw.h).         */

/* The smallest run info holding ABI 1.0's members and 1.1's (kernel, schema), and
 * the smallest run end (ABI 1.0's). */
#define SVGD_RUN_INFO_V1_SIZE (offsetof(struct iob_run_info, source) + sizeof(const char *))
#define SVGD_RUN_INFO_V2_SIZE (offsetof(struct iob_run_info, schema) + sizeof(uint32_t))
#define SVGD_RUN_END_V1_SIZE (offsetof(struct iob_run_end, notes) + sizeof(const char *const *))
#define SVGD_NO_RESULT "run ended without a result"

int svgd_out_open(const struct iob_sink *sink, const char *args, void **state, const struct iob_host *host,
		  const struct svgd_hooks *hooks)
{
	if (!sink || !sink->write || !state)
		return -EINVAL;
	if (args && *args) {
		svgd_log(host, hooks->name, IOB_LOG_ERROR, "takes no arguments (got \"%s\"); use --output %s", args,
			 hooks->use);
		return -EINVAL;
	}
	struct svgd_out *o = calloc(1, hooks->size);
	if (!o)
		return -ENOMEM;
	o->sink = *sink;
	if (!o->sink.name)
		o->sink.name = "output";
	o->host = host;
	o->hooks = hooks;
	*state = o;
	return 0;
}

int svgd_out_begin_run(void *state, const struct iob_run_info *run)
{
	struct svgd_out *o = state;
	int rc = textbuf_begin(o->host, o->hooks->name, o->sink.name, &o->begun);
	if (rc)
		return rc;
	if (run && run->struct_size >= SVGD_RUN_INFO_V1_SIZE) {
		const char *given[] = {run->tool, run->version, run->host, run->started, run->source};
		char **kept[] = {&o->tool, &o->version, &o->machine, &o->started, &o->source};
		for (size_t i = 0; i < sizeof(given) / sizeof(given[0]); i++)
			*kept[i] = given[i] ? svgd_strdup(&o->oom, given[i]) : NULL;
	}
	if (run && run->struct_size >= SVGD_RUN_INFO_V2_SIZE) {
		o->kernel = run->kernel ? svgd_strdup(&o->oom, run->kernel) : NULL;
		o->schema = run->schema;
	}
	return o->oom ? -ENOMEM : 0;
}

int svgd_out_record(void *state, const struct iob_record *rec)
{
	struct svgd_out *o = state;
	int rc = textbuf_record_ok(o->host, o->hooks->name, o->sink.name, o->begun, o->ended, 0, rec);
	if (rc)
		return rc;
	svgd_keep(&o->d, rec);
	int oom = o->hooks->keep ? o->hooks->keep(state, rec) : 0;
	if (oom || o->d.oom) {
		svgd_log(o->host, o->hooks->name, IOB_LOG_ERROR, "out of memory keeping a record for %s", o->sink.name);
		return -ENOMEM;
	}
	return o->err;
}

int svgd_out_end_run(void *state, const struct iob_run_end *end)
{
	struct svgd_out *o = state;
	if (textbuf_end_ok(o->host, o->hooks->name, o->sink.name, o->begun, o->ended))
		return -EINVAL;
	o->ended = 1;
	o->drawn = 1;
	if (!end || end->struct_size < SVGD_RUN_END_V1_SIZE)
		return o->hooks->render(state, NULL, -1, 0, SVGD_NO_RESULT);
	return o->hooks->render(state, end, end->status, end->interrupted, end->error);
}

int svgd_out_close(void *state)
{
	struct svgd_out *o = state;
	if (!o)
		return 0;
	int rc = 0;
	if (o->begun && !o->drawn) {
		o->drawn = 1;
		rc = o->hooks->render(state, NULL, -1, 0, SVGD_NO_RESULT);
	}
	if (o->hooks->free)
		o->hooks->free(state);
	svgd_free(&o->d);
	char *facts[] = {o->tool, o->version, o->machine, o->started, o->source, o->kernel};
	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++)
		free(facts[i]);
	free(o);
	return rc;
}

int svgd_out_write(struct svgd_out *o, const struct textbuf *b, int oom, const char *what)
{
	if (oom) {
		svgd_log(o->host, o->hooks->name, IOB_LOG_ERROR, "out of memory %s for %s", what, o->sink.name);
		return -ENOMEM;
	}
	if (o->err)
		return o->err;
	int rc = o->sink.write(o->sink.ctx, b->data, b->len);
	if (rc < 0)
		o->err = rc;
	return rc < 0 ? rc : 0;
}

char *svgd_strdup(int *oom, const char *s)
{
	char *c = strdup(s ? s : "");
	if (!c)
		*oom = 1;
	return c;
}
