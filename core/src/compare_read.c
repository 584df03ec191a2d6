/*
 * compare_read.c - `iobench compare`'s two result files read into the phases
 * and samples each side gives: iobench JSON (docs/outputs.md, schema 2) and
 * fio's own JSON.  A room of compare.c (its map).
 */
#include "compare_int.h"

#define MAX_INPUT (1ull << 30)

int add_sample(struct samples *s, double v)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		double *p = realloc(s->v, cap * sizeof *p);
		if (!p)
			return -ENOMEM;
		s->v = p;
		s->cap = cap;
	}
	s->v[s->n++] = v;
	return 0;
}

struct phase *find_phase(struct side *sd, const char *job, const char *phase, uint64_t bs, int create)
{
	for (size_t i = 0; i < sd->n; i++)
		if (strcmp(sd->ph[i].job, job) == 0 && strcmp(sd->ph[i].phase, phase) == 0 && sd->ph[i].bs == bs)
			return &sd->ph[i];
	if (!create)
		return NULL;
	if (sd->n == sd->cap) {
		size_t cap = sd->cap ? sd->cap * 2 : 16;
		struct phase *p = realloc(sd->ph, cap * sizeof *p);
		if (!p)
			return NULL;
		sd->ph = p;
		sd->cap = cap;
	}
	struct phase *p = &sd->ph[sd->n];
	memset(p, 0, sizeof *p);
	p->job = strdup(job);
	if (!p->job)
		return NULL;
	snprintf(p->phase, sizeof p->phase, "%s", phase);
	p->bs = bs;
	for (int f = 0; f < NFIG; f++)
		p->value[f] = NAN;
	sd->n++;
	return p;
}

void side_free(struct side *sd)
{
	for (size_t i = 0; i < sd->n; i++) {
		free(sd->ph[i].job);
		free(sd->ph[i].iv);
		for (int f = 0; f < NFIG; f++)
			free(sd->ph[i].rep[f].v);
	}
	free(sd->ph);
	sd->ph = NULL;
	sd->n = sd->cap = 0;
}

/* A number member, NAN when absent or null. */
static double num_or_nan(const struct jv *o, const char *key)
{
	const struct jv *m = jv_get(o, key);
	return m && m->type == JV_NUMBER ? m->num : NAN;
}

static double pct_of(const struct jv *lat, const char *rank)
{
	return num_or_nan(jv_get(lat, "percentiles"), rank);
}

/* ---- iobench JSON (docs/outputs.md, schema 2) ---------------------------- */

static int load_iobench(struct side *sd, const struct jv *root, char *err, size_t errlen)
{
	const struct jv *recs = jv_get(root, "records");
	for (size_t i = 0; i < recs->n; i++) {
		const struct jv *r = &recs->items[i];
		const char *kind = jv_str(r, "kind"), *job = jv_str(r, "job"), *phase = jv_str(r, "phase");
		double bs = jv_num(r, "block_size_bytes", -1);
		if (!kind || !job || !phase || bs < 0)
			continue; /* streams, groups, a tool's own records: not phases of a job */
		int is_phase = strcmp(kind, "phase") == 0, is_iv = strcmp(kind, "interval") == 0;
		if (!is_phase && !is_iv)
			continue;
		struct phase *p = find_phase(sd, job, phase, (uint64_t)bs, 1);
		if (!p) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		if (is_phase) {
			const struct jv *lat = jv_get(r, "lat_ns");
			double v[NFIG] = {num_or_nan(r, "bw_bytes_per_s"), num_or_nan(r, "ops_per_s"), pct_of(lat, "50"),
					  pct_of(lat, "99")};
			p->nrec++;
			p->with_repeat += jv_get(r, "repeat") && jv_get(r, "repeat")->type == JV_NUMBER;
			for (int f = 0; f < NFIG; f++) {
				p->value[f] = v[f];
				if (add_sample(&p->rep[f], v[f]) != 0) {
					snprintf(err, errlen, "out of memory");
					return -ENOMEM;
				}
			}
		} else {
			if (p->niv == p->ivcap) {
				size_t cap = p->ivcap ? p->ivcap * 2 : 16;
				struct interval *q = realloc(p->iv, cap * sizeof *q);
				if (!q) {
					snprintf(err, errlen, "out of memory");
					return -ENOMEM;
				}
				p->iv = q;
				p->ivcap = cap;
			}
			struct interval *it = &p->iv[p->niv++];
			it->len = num_or_nan(r, "interval_s");
			it->v[0] = num_or_nan(r, "bw_bytes_per_s");
			it->v[1] = num_or_nan(r, "ops_per_s");
			it->v[2] = num_or_nan(r, "lat_p50_ns");
			it->v[3] = num_or_nan(r, "lat_p99_ns");
		}
	}
	return 0;
}

/* ---- fio JSON (fio 3.x --output-format=json) ----------------------------- */

/* fio's size: a number with an optional k, m, g, t (powers of 1024, fio's
 * default kb_base), i and b allowed after it; 0 when not understood. */
static uint64_t fio_size(const char *s)
{
	char *end = NULL;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s)
		return 0;
	uint64_t m = 1;
	switch (*end | 0x20) {
	case 'k': m = 1ull << 10; end++; break;
	case 'm': m = 1ull << 20; end++; break;
	case 'g': m = 1ull << 30; end++; break;
	case 't': m = 1ull << 40; end++; break;
	default: break;
	}
	if ((*end | 0x20) == 'i')
		end++;
	if ((*end | 0x20) == 'b')
		end++;
	return *end == '\0' || *end == ',' ? (uint64_t)v * m : 0;
}

/* The block size of direction d (0 read, 1 write) from fio's "bs" text
 * ("4k", or "4k,64k" for reads and writes); fio's default 4096 when none. */
uint64_t fio_bs(const char *text, int d)
{
	if (!text)
		return 4096;
	const char *p = text;
	if (d == 1 && strchr(text, ','))
		p = strchr(text, ',') + 1;
	return fio_size(p);
}

static int load_fio(struct side *sd, const struct jv *root, char *err, size_t errlen)
{
	const struct jv *jobs = jv_get(root, "jobs");
	const char *gbs = jv_str(jv_get(root, "global options"), "bs");
	for (size_t i = 0; i < jobs->n; i++) {
		const struct jv *j = &jobs->items[i];
		const char *name = jv_str(j, "jobname");
		if (!name)
			continue;
		const char *bs = jv_str(jv_get(j, "job options"), "bs");
		static const char *const dirs[2] = {"read", "write"};
		for (int d = 0; d < 2; d++) {
			const struct jv *o = jv_get(j, dirs[d]);
			if (!o || jv_num(o, "io_bytes", 0) <= 0)
				continue;
			uint64_t b = fio_bs(bs ? bs : gbs, d);
			struct phase *p = find_phase(sd, name, dirs[d], b, 0);
			if (p) {
				p->dup = 1;
				continue;
			}
			if (!(p = find_phase(sd, name, dirs[d], b, 1))) {
				snprintf(err, errlen, "out of memory");
				return -ENOMEM;
			}
			const struct jv *lat = jv_get(o, "clat_ns");
			if (!jv_get(lat, "percentile"))
				lat = jv_get(o, "lat_ns");
			const struct jv *pc = jv_get(lat, "percentile");
			p->nrec = 1;
			p->value[0] = num_or_nan(o, "bw_bytes");
			p->value[1] = num_or_nan(o, "iops");
			p->value[2] = num_or_nan(pc, "50.000000");
			p->value[3] = num_or_nan(pc, "99.000000");
			/* fio's own samples of the job (one per log_avg_msec, 500 ms by default) */
			double bn = jv_num(o, "bw_samples", 0), in = jv_num(o, "iops_samples", 0);
			if (bn >= 2) {
				p->have_sum[0] = 1;
				p->sum_mean[0] = jv_num(o, "bw_mean", 0) * 1024.0; /* KiB/s */
				p->sum_sd[0] = jv_num(o, "bw_dev", 0) * 1024.0;
				p->sum_n[0] = bn;
			}
			if (in >= 2) {
				p->have_sum[1] = 1;
				p->sum_mean[1] = jv_num(o, "iops_mean", 0);
				p->sum_sd[1] = jv_num(o, "iops_stddev", 0);
				p->sum_n[1] = in;
			}
		}
	}
	return 0;
}

int load(struct side *sd, const char *path, char *err, size_t errlen)
{
	char why[256];
	/* a result is a regular file (a link to one is fine): never a wait on a
	 * FIFO, never a device; decided on the path, then on what was opened */
	enum iob_path_kind kind = iob_path_kind(path, 1);
	if (kind != IOB_PATH_REGULAR && kind != IOB_PATH_MISSING) {
		snprintf(err, errlen, "'%s' is not a regular file: a result is read from a file", path);
		return -EINVAL;
	}
	FILE *f = iob_fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		return -EINVAL;
	}
	uint64_t dev, ino;
	if (iob_stream_identity(f, &dev, &ino, &kind) == 0 && kind != IOB_PATH_REGULAR) {
		fclose(f);
		snprintf(err, errlen, "'%s' is not a regular file: a result is read from a file", path);
		return -EINVAL;
	}
	struct buf b = {0};
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && !b.oom) {
		if (b.len + n > MAX_INPUT) {
			fclose(f);
			free(b.d);
			snprintf(err, errlen, "'%s' is larger than 1 GiB: not a result file", path);
			return -EINVAL;
		}
		if (b.len + n + 1 > b.cap) {
			size_t cap = (b.cap ? b.cap * 2 : 65536) + n + 1;
			char *d = realloc(b.d, cap);
			if (!d) {
				b.oom = 1;
				break;
			}
			b.d = d;
			b.cap = cap;
		}
		memcpy(b.d + b.len, chunk, n);
		b.len += n;
	}
	int rerr = ferror(f);
	fclose(f);
	if (rerr || b.oom) {
		free(b.d);
		snprintf(err, errlen, "cannot read '%s': %s", path, rerr ? "read error" : "out of memory");
		return -EINVAL;
	}
	struct jv root;
	if (b.len == 0) {
		snprintf(err, errlen, "'%s' is empty: not an iobench or fio JSON result", path);
		free(b.d);
		return -EINVAL;
	}
	if (jv_parse(b.d, b.len, &root, why, sizeof why) != 0) {
		snprintf(err, errlen, "'%s' is not a whole JSON document: %s", path, why);
		free(b.d);
		return -EINVAL;
	}
	free(b.d);
	const struct jv *schema = jv_get(&root, "schema"), *recs = jv_get(&root, "records"),
			*fio = jv_get(&root, "fio version"), *jobs = jv_get(&root, "jobs");
	int rc;
	sd->path = path;
	if (schema && recs && recs->type == JV_ARRAY) {
		if (schema->type != JV_NUMBER || schema->num != 2) {
			snprintf(err, errlen, "'%s' has record schema %g: compare reads iobench's schema 2", path,
				 schema->type == JV_NUMBER ? schema->num : -1.0);
			jv_free(&root);
			return -EINVAL;
		}
		rc = load_iobench(sd, &root, err, errlen);
	} else if (fio && fio->type == JV_STRING && jobs && jobs->type == JV_ARRAY) {
		sd->fio = 1;
		rc = load_fio(sd, &root, err, errlen);
	} else {
		snprintf(err, errlen, "'%s' is neither an iobench JSON result (schema 2) nor fio's JSON output", path);
		rc = -EINVAL;
	}
	jv_free(&root);
	if (rc == 0) { /* interval records without a phase record: no phase */
		size_t k = 0;
		for (size_t i = 0; i < sd->n; i++) {
			if (sd->ph[i].nrec) {
				sd->ph[k++] = sd->ph[i];
				continue;
			}
			free(sd->ph[i].job);
			free(sd->ph[i].iv);
			for (int g = 0; g < NFIG; g++)
				free(sd->ph[i].rep[g].v);
		}
		sd->n = k;
		if (sd->n == 0) {
			snprintf(err, errlen, "'%s' holds no phase results", path);
			rc = -EINVAL;
		}
	}
	return rc;
}
