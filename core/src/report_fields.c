/*
 * report_fields.c - JSON values to the result model for `iobench report`
 * (report_int.h): numbers, strings, booleans and latency summaries as
 * struct iob_field.
 */
#include "report_int.h"

/* ---- JSON values to the result model --------------------------------------- */

struct iob_field *rp_fields_add(struct fields *fs, const char *key)
{
	if (iob_grow(&fs->f, &fs->cap, fs->n, sizeof *fs->f, 64) < 0) {
		fs->oom = 1;
		return NULL;
	}
	struct iob_field *f = &fs->f[fs->n++];
	memset(f, 0, sizeof *f);
	f->key = key;
	return f;
}

void rp_fields_reset(struct fields *fs)
{
	for (size_t i = 0; i < fs->nlat; i++) {
		free((void *)fs->lat[i]->pct);
		free((void *)fs->lat[i]->value);
		free(fs->lat[i]);
	}
	fs->nlat = 0;
	fs->n = 0;
}

void rp_fields_free(struct fields *fs)
{
	rp_fields_reset(fs);
	free(fs->f);
}

static uint32_t unit_of(const char *key)
{
	size_t n = strlen(key);
#define ENDS(s) (n >= sizeof(s) - 1 && strcmp(key + n - (sizeof(s) - 1), s) == 0)
	if (ENDS("_bytes_per_s"))
		return IOB_UNIT_BYTES_PER_S;
	if (ENDS("_per_s"))
		return IOB_UNIT_OPS_PER_S;
	if (ENDS("_bytes"))
		return IOB_UNIT_BYTES;
	if (ENDS("_ns"))
		return IOB_UNIT_NS;
	if (ENDS("_s"))
		return IOB_UNIT_S;
#undef ENDS
	return IOB_UNIT_NONE;
}

/* A latency summary from {"count","min","max","mean","stddev","percentiles":{rank:ns}}
 * (iobench) or fio's {"N","min","max","mean","stddev","percentile":{"50.000000":ns}}. */
struct iob_latency *rp_lat_of(struct fields *fs, const struct jv *o)
{
	const struct jv *pc = jv_get(o, "percentiles");
	if (!pc)
		pc = jv_get(o, "percentile");
	if (fs->nlat == sizeof fs->lat / sizeof fs->lat[0])
		return NULL;
	struct iob_latency *l = calloc(1, sizeof *l);
	size_t np = pc && pc->type == JV_OBJECT ? pc->n : 0;
	double *pct = calloc(np + 1, sizeof *pct);
	uint64_t *val = calloc(np + 1, sizeof *val);
	if (!l || !pct || !val) {
		free(l);
		free(pct);
		free(val);
		fs->oom = 1;
		return NULL;
	}
	size_t k = 0;
	for (size_t i = 0; i < np; i++) {
		char *end = NULL;
		double rank = strtod(pc->keys[i], &end);
		const struct jv *v = &pc->items[i];
		if (end == pc->keys[i] || v->type != JV_NUMBER || !(v->num >= 0) || !isfinite(rank))
			continue;
		size_t j = k++; /* insertion: ranks ascending */
		while (j > 0 && pct[j - 1] > rank) {
			pct[j] = pct[j - 1];
			val[j] = val[j - 1];
			j--;
		}
		pct[j] = rank;
		val[j] = (uint64_t)v->num;
	}
	double count = jv_num(o, "count", jv_num(o, "N", 0));
	l->count = count > 0 ? (uint64_t)count : 0;
	l->min = (uint64_t)fmax(0, jv_num(o, "min", 0));
	l->max = (uint64_t)fmax(0, jv_num(o, "max", 0));
	l->mean = jv_num(o, "mean", 0);
	l->stddev = jv_num(o, "stddev", 0);
	l->npct = k;
	l->pct = pct;
	l->value = val;
	fs->lat[fs->nlat++] = l;
	return l;
}

void rp_add_num(struct fields *fs, const char *key, double v)
{
	struct iob_field *f = rp_fields_add(fs, key);
	if (!f)
		return;
	f->unit = unit_of(key);
	if (isfinite(v) && v == floor(v) && v >= 0 && v < 9.2e18) {
		f->type = IOB_T_U64;
		f->v.u = (uint64_t)v;
	} else if (isfinite(v) && v == floor(v) && v < 0 && v > -9.2e18) {
		f->type = IOB_T_I64;
		f->v.i = (int64_t)v;
	} else {
		f->type = IOB_T_F64;
		f->v.f = isfinite(v) ? v : 0;
	}
}

void rp_add_str(struct fields *fs, const char *key, const char *s)
{
	struct iob_field *f = rp_fields_add(fs, key);
	if (f) {
		f->type = IOB_T_STR;
		f->v.s = s;
	}
}

/* One member of a record: a number, a string, null (an absent value), a
 * boolean, a latency summary; anything else is not a field of the model. */
void rp_add_value(struct fields *fs, const char *key, const struct jv *v)
{
	struct iob_field *f;
	switch (v->type) {
	case JV_NUMBER:
		rp_add_num(fs, key, v->num);
		break;
	case JV_STRING:
		rp_add_str(fs, key, v->str);
		break;
	case JV_NULL:
		rp_add_str(fs, key, NULL);
		break;
	case JV_TRUE:
	case JV_FALSE:
		if ((f = rp_fields_add(fs, key))) {
			f->type = IOB_T_BOOL;
			f->v.b = v->type == JV_TRUE;
		}
		break;
	case JV_OBJECT:
		if (jv_get(v, "percentiles") && (f = rp_fields_add(fs, key))) {
			struct iob_latency *l = rp_lat_of(fs, v);
			if (!l) {
				fs->n--;
				break;
			}
			f->type = IOB_T_LAT;
			f->unit = IOB_UNIT_NS;
			f->v.lat = l;
		}
		break;
	default:
		break;
	}
}
