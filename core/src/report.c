/*
 * report.c - `iobench report RESULT [NEW] [-o FILE.html]` (report.h;
 * docs/outputs.md, "iobench report"): one self-contained HTML page from
 * saved results, made by the html output plugin, so it is the page
 * `--output html=FILE` writes at the end of a run.
 *
 * A result is iobench JSON (docs/outputs.md, schema 2: every binary writes
 * it) or fio's JSON (--output-format=json).  The file is read as a stream:
 * the top-level members one at a time, and the elements of its "records"
 * (iobench) or "jobs" (fio) array one at a time, each parsed with jsonread.c
 * and then forgotten, so memory does not grow with the file (the html output
 * keeps what its tables and pictures need: a row per phase, two numbers per
 * block or interval).  Each file is read twice: once to check all of it,
 * before anything is created; then to hand its records to the output.
 *
 * iobench records go to the output as they are (fields rebuilt from JSON:
 * numbers, strings, booleans, latency summaries); fio's jobs become one
 * "phase" record per direction that moved bytes.  With two files the page is
 * NEW's, with the comparison of `iobench compare BASE NEW` (compare.c) as
 * "comparison" records.
 *
 * Bad input - not JSON, cut short, JSON that is no result, another schema,
 * an output file that is one of the inputs (by device and inode) - is one
 * line naming the file, exit 2, and nothing is created or changed.
 *
 * Rooms (report_int.h): report_scan.c (the streaming reader), report_read.c
 * (one result file, the first pass), report_fields.c (JSON values to the
 * result model); here, the second pass (records to the output) and the
 * command.
 */
#include "report_int.h"

/* ---- the second pass: records to the output ------------------------------- */

struct render {
	struct result *r;
	struct iob_outputs *out;
	struct fields fs;
	int rc;
};

static int hand(struct render *x, const char *kind)
{
	if (x->fs.oom)
		return -ENOMEM;
	struct iob_record rec = {.kind = kind, .nfields = x->fs.n, .fields = x->fs.f};
	int rc = iob_outputs_record(x->out, &rec);
	rp_fields_reset(&x->fs);
	return rc;
}

static int render_record(struct render *x, const struct jv *v, const char *kind)
{
	if (!kind)
		kind = jv_str(v, "kind");
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->keys[i], "kind") != 0)
			rp_add_value(&x->fs, v->keys[i], &v->items[i]);
	return hand(x, kind ? kind : "record");
}

/* A fio job: one phase record per direction that moved bytes. */
static int render_fio_job(struct render *x, const struct jv *j)
{
	static const char *const dirs[3] = {"read", "write", "trim"};
	const char *name = jv_str(j, "jobname");
	const char *bs = jv_str(jv_get(j, "job options"), "bs");
	const char *gbs = jv_str(rp_result_get(x->r, "global options"), "bs");
	const struct jv *du = rp_result_get(x->r, "disk_util");
	const char *dev = du && du->type == JV_ARRAY && du->n ? jv_str(&du->items[0], "name") : NULL;
	int err = (int)jv_num(j, "error", 0);
	for (int d = 0; d < 3; d++) {
		const struct jv *o = jv_get(j, dirs[d]);
		if (!o || jv_num(o, "io_bytes", 0) <= 0)
			continue;
		rp_add_str(&x->fs, "job", name);
		rp_add_str(&x->fs, "phase", dirs[d]);
		rp_add_str(&x->fs, "backend", jv_str(jv_get(j, "job options"), "ioengine"));
		rp_add_num(&x->fs, "block_size_bytes", (double)iob_compare_fio_bs(bs ? bs : gbs, d == 1));
		rp_add_num(&x->fs, "bytes", jv_num(o, "io_bytes", 0));
		rp_add_num(&x->fs, "ops", jv_num(o, "total_ios", 0));
		rp_add_num(&x->fs, "elapsed_s", jv_num(o, "runtime", 0) / 1000.0);
		rp_add_num(&x->fs, "bw_bytes_per_s", jv_num(o, "bw_bytes", 0));
		rp_add_num(&x->fs, "ops_per_s", jv_num(o, "iops", 0));
		const struct jv *lat = jv_get(o, "clat_ns");
		if (!jv_get(lat, "percentile"))
			lat = jv_get(o, "lat_ns");
		struct iob_field *f;
		if (lat && (f = rp_fields_add(&x->fs, "lat_ns"))) {
			struct iob_latency *l = rp_lat_of(&x->fs, lat);
			if (l) {
				f->type = IOB_T_LAT;
				f->unit = IOB_UNIT_NS;
				f->v.lat = l;
			} else {
				x->fs.n--;
			}
		}
		rp_add_str(&x->fs, "device", dev);
		rp_add_str(&x->fs, "status", err ? "error" : "ok");
		int rc = hand(x, "phase");
		if (rc != 0)
			return rc;
	}
	return 0;
}

static int skip_member(void *ctx, const char *key, const struct jv *v, char *err, size_t errlen)
{
	(void)ctx, (void)key, (void)v, (void)err, (void)errlen;
	return 0;
}

static int render_element(void *ctx, const char *key, size_t i, const struct jv *v, uint64_t at, char *err,
			  size_t errlen)
{
	struct render *x = ctx;
	(void)i, (void)at, (void)key;
	int rc = x->r->format == RF_FIO ? render_fio_job(x, v) : render_record(x, v, NULL);
	if (rc != 0 && x->rc == 0) {
		x->rc = rc;
		snprintf(err, errlen, "%s", iob_outputs_error(x->out) ? iob_outputs_error(x->out) : strerror(-rc));
	}
	return rc;
}

/* The comparison of compare.c, one "comparison" record per phase and figure. */
static int render_comparison(struct render *x, const char *json, char *err, size_t errlen)
{
	struct jv root;
	char why[256];
	if (jv_parse(json, strlen(json), &root, why, sizeof why) != 0) {
		snprintf(err, errlen, "the comparison could not be read back: %s", why);
		return -EINVAL;
	}
	const struct jv *cmp = jv_get(&root, "comparisons");
	int rc = 0;
	for (size_t i = 0; cmp && cmp->type == JV_ARRAY && i < cmp->n && rc == 0; i++)
		rc = render_record(x, &cmp->items[i], "comparison");
	jv_free(&root);
	if (rc != 0)
		snprintf(err, errlen, "%s", iob_outputs_error(x->out) ? iob_outputs_error(x->out) : strerror(-rc));
	return rc;
}

/* ---- the command ---------------------------------------------------------- */

int iob_report_main(const struct iob_registry *reg, int argc, char **argv)
{
	const char *paths[2] = {NULL, NULL}, *outpath = NULL;
	size_t npaths = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
			if (i + 1 >= argc || !*argv[i + 1])
				return iob_cli_fail(IOB_EXIT_USAGE, "report: %s needs a file name", a);
			if (outpath)
				return iob_cli_fail(IOB_EXIT_USAGE, "report: give one output file (-o FILE.html)");
			outpath = argv[++i];
		} else if (a[0] == '-' && a[1]) {
			return iob_cli_fail(IOB_EXIT_USAGE, "report: unknown option '%s' (see iobench --help)", a);
		} else if (npaths < 2) {
			paths[npaths++] = a;
		} else {
			return iob_cli_fail(IOB_EXIT_USAGE, "report: unexpected argument '%s': give RESULT, or BASE and NEW",
					    a);
		}
	}
	if (npaths == 0)
		return iob_cli_fail(IOB_EXIT_USAGE, "report needs a result file: iobench report RESULT.json [-o FILE.html]");
	char err[2048];
	struct iob_output_spec *spec = calloc(1, sizeof *spec);
	if (!spec)
		return iob_cli_fail(IOB_EXIT_FAIL, "report: out of memory");
	spec->n = 1;
	snprintf(spec->item[0].name, sizeof spec->item[0].name, "html");
	if (outpath && snprintf(spec->item[0].file, sizeof spec->item[0].file, "%s", outpath) >=
			   (int)sizeof spec->item[0].file) {
		free(spec);
		return iob_cli_fail(IOB_EXIT_USAGE, "report: output file name too long");
	}
	/* the output: never over an input (same device and inode, or the same
	 * file still to be made), checked before anything is read or created */
	int rc = iob_output_spec_check_paths(spec, paths, npaths, err, sizeof err);
	if (rc == 0 && outpath)
		rc = iob_outfile_check("report html file", outpath, IOB_OUT_CHARDEV, err, sizeof err);
	if (rc == 0 && !iob_registry_find(reg, IOB_PLUGIN_OUTPUT, "html")) {
		char why[512];
		iob_registry_missing(reg, IOB_PLUGIN_OUTPUT, "html", why, sizeof why);
		snprintf(err, sizeof err, "%s", why);
		rc = -1;
	}
	if (rc != 0) {
		free(spec);
		return iob_cli_fail(IOB_EXIT_USAGE, "report: %s", err);
	}
	/* the first pass: every input read whole and checked */
	struct result res[2];
	memset(res, 0, sizeof res);
	for (size_t i = 0; i < npaths && rc == 0; i++)
		rc = rp_read_result(&res[i], paths[i], err, sizeof err);
	char *cmp = NULL;
	if (rc == 0 && npaths == 2 && iob_compare_to_json(paths[0], paths[1], 0.05, 0.05, &cmp, err, sizeof err) != 0)
		rc = -1;
	for (size_t i = 0; rc == 0 && i < npaths; i++)
		if (iob_outfiles_guard(paths[i]) != 0) {
			snprintf(err, sizeof err, "out of memory");
			rc = -1;
		}
	if (rc != 0) {
		for (size_t i = 0; i < npaths; i++)
			rp_result_free(&res[i]);
		free(cmp);
		free(spec);
		return iob_cli_fail(IOB_EXIT_USAGE, "report: %s", err);
	}
	/* the page is NEW's (the only file's) */
	struct result *r = &res[npaths - 1];
	struct iob_outputs *out = NULL;
	if (iob_outputs_open(&out, reg, spec, err, sizeof err) != 0) {
		for (size_t i = 0; i < npaths; i++)
			rp_result_free(&res[i]);
		free(cmp);
		free(spec);
		return iob_cli_fail(IOB_EXIT_USAGE, "report: %s", err);
	}
	free(spec);
	const struct jv *sch = rp_result_get(r, "schema");
	struct iob_run_info info = {
	    .struct_size = sizeof info,
	    .tool = r->format == RF_FIO ? "fio" : rp_result_str(r, "tool"),
	    .version = r->format == RF_FIO ? rp_result_str(r, "fio version") : rp_result_str(r, "version"),
	    .host = rp_result_str(r, "host"),
	    .started = r->format == RF_FIO ? rp_result_str(r, "time") : rp_result_str(r, "started"),
	    .source = rp_result_str(r, "source"),
	    .kernel = rp_result_str(r, "kernel"),
	    .schema = sch && sch->type == JV_NUMBER ? (uint32_t)sch->num : 0,
	};
	err[0] = '\0';
	rc = iob_outputs_commit(out, err, sizeof err);
	if (rc == 0)
		rc = iob_outputs_begin(out, &info);
	struct render x = {.r = r, .out = out};
	/* which files the page is made from */
	rp_add_str(&x.fs, "input", r->path);
	rp_add_str(&x.fs, "format", r->format == RF_FIO ? "fio" : "iobench");
	if (npaths == 2)
		rp_add_str(&x.fs, "base", res[0].path);
	if (rc == 0)
		rc = hand(&x, "report");
	if (rc == 0) {
		struct scan *s = calloc(1, sizeof *s);
		if (!s) {
			rc = -ENOMEM;
		} else {
			s->path = r->path;
			if (!(s->f = rp_open_result(r->path, err, sizeof err))) {
				rc = -EIO;
			} else {
				struct walker w = {skip_member, render_element, &x};
				rc = rp_walk(s, &w, err, sizeof err);
				fclose(s->f);
			}
			free(s->val.d);
			free(s);
		}
	}
	if (rc == 0 && cmp)
		rc = render_comparison(&x, cmp, err, sizeof err);
	free(cmp);
	/* how the run ended, and its notes */
	const struct jv *notes = rp_result_get(r, "notes");
	size_t nn = notes && notes->type == JV_ARRAY ? notes->n : 0;
	const char **nv = calloc(nn + 1, sizeof *nv);
	size_t k = 0;
	for (size_t i = 0; nv && i < nn; i++)
		if (notes->items[i].type == JV_STRING)
			nv[k++] = notes->items[i].str;
	const char *status = rp_result_str(r, "status");
	const struct jv *intr = rp_result_get(r, "interrupted");
	struct iob_run_end end = {
	    .struct_size = sizeof end,
	    .status = status && strcmp(status, "ok") != 0 ? -1 : 0,
	    .interrupted = intr && intr->type == JV_TRUE,
	    .error = status && strcmp(status, "ok") != 0 ? rp_result_str(r, "error") : NULL,
	    .nnotes = k,
	    .notes = nv,
	};
	if (r->format == RF_FIO) {
		end.status = 0;
		end.error = NULL;
	}
	int erc = iob_outputs_end(out, &end);
	if (rc == 0)
		rc = erc;
	free(nv);
	rp_fields_free(&x.fs);
	char cerr[1024];
	int crc = iob_outputs_close_err(out, cerr, sizeof cerr);
	for (size_t i = 0; i < npaths; i++)
		rp_result_free(&res[i]);
	if (rc == 0 && crc != 0)
		return iob_cli_fail(IOB_EXIT_FAIL, "report: %s", cerr);
	if (rc != 0)
		return iob_cli_fail(IOB_EXIT_FAIL, "report: %s", err[0] ? err : cerr[0] ? cerr : strerror(rc < 0 ? -rc : EIO));
	return 0;
}
