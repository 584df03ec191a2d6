/*
 * human.c - the "human" output: results for people to read at a glance.
 *
 * The wide layout (docs/outputs.md has examples of both):
 *
 *   iobench 0.1.0 on node1, started 2024-05-01T10:00:00+02:00
 *   source: seq.ini
 *
 *   [phase]
 *   job  phase  backend  block_size     bytes  elapsed           bw   ops/s
 *   seq  write  posix      4.00 KiB  1.00 GiB  2.345 s  436.7 MiB/s  111.8k
 *     lat  mean  12.35 us  p50  10.10 us  p99  45.60 us  p99.9  120.0 us  max   1.23 ms
 *     file=/tmp/seq.dat  ops=262144  skipped_ops=0  direct=no  status=0
 *
 *   note: ...
 *   error: ...
 *   (interrupted)
 *
 * Records are printed as they arrive (a long suite shows progress).  Each
 * block of records of one kind and key set starts with "[kind]" and a header
 * line; every record is then one aligned row.
 *
 * Default (narrow): for the core's kinds (human_narrow: phase, stream,
 * rank, group, interval, block) the row is the columns a person reads
 * first (job, phase, bs, bw, ops/s, p50, p99, status...) within HUMAN_COLS
 * columns, and nothing else; the job column is HUMAN_NAME_MIN to
 * HUMAN_NAME_MAX wide, a longer name cut in the middle with '~'.  Other
 * kinds are laid out as in the wide table, the row stopping before
 * HUMAN_COLS columns and the key=value line wrapped there.
 *
 * Wide ("human:wide", iobench run --wide): every field; the row, plus one
 * line per latency field and one "key=value" line for everything else.
 * Which field goes where is decided from the first record of a block, by
 * type and unit only:
 *  - row: strings of at most HUMAN_SHORT_STR characters (job, phase,
 *    backend), and numbers measured in bytes, bytes/s, ns, s or ops/s;
 *  - latency line: each LAT field, mean, p50, p99, p99.9 (the ranks the record
 *    has) and max;
 *  - key=value line: longer strings (file paths), booleans and plain counts;
 *  - nowhere: a field of a type this output does not know (from a later
 *    ABI) is skipped.
 * Column labels are the keys without the unit suffix the value now shows
 * (block_size_bytes -> block_size, bw_bytes_per_s -> bw, ops_per_s -> ops/s),
 * or the whole key where two fields of the block would share a label.
 * Strings are shown for a terminal: control characters (C1 included) and
 * bytes of invalid UTF-8 as \xNN (textbuf_term).
 *
 * Units, exact: bytes in B, KiB (2^10), MiB (2^20), GiB, TiB, PiB, EiB, the
 * largest unit keeping the number below 1024, with 3-4 significant digits
 * (1.00 MiB, 43.67 MiB, 436.7 MiB, 1023 MiB); bytes/s the same with "/s";
 * ns as ns/us/ms/s in steps of 1000; seconds with 3 decimals ("2.345 s");
 * ops/s with k (10^3), M (10^6), G (10^9) once at least 1000.  Nothing is
 * computed here beyond this scaling.
 *
 * This file and its rooms share human_int.h:
 *
 *   human.c         the ops: a run begun, a record placed in its block,
 *                   the summary, the run's end, the one write per flush
 *   human_values.c  text cells and their widths, numbers scaled for display
 *                   (bytes, ns, ops/s), a field's value and label
 *   human_layout.c  the layout of a block: which field goes where, the
 *                   narrow table, its header, rows, latency and key=value
 *                   lines
 */
#include "human_int.h"

#define HUMAN_RUN_INFO_V1_SIZE (offsetof(struct iob_run_info, source) + sizeof(const char *))
#define HUMAN_RUN_END_V1_SIZE (offsetof(struct iob_run_end, notes) + sizeof(const char *const *))

static const struct iob_host *human_host;

#define human_log(level, ...) textbuf_log(human_host, HUMAN_NAME, level, __VA_ARGS__)

/* ------------------------------------------------------------------------ */
/* Ops.                                                                      */

static int human_flush(struct human_state *st)
{
	int rc;
	if (st->err)
		rc = st->err;
	else if (st->out.oom || st->line.oom || st->cell.oom)
		rc = -ENOMEM;
	else if (st->out.len == 0)
		rc = 0;
	else
		rc = st->sink.write(st->sink.ctx, st->out.data, st->out.len);
	if (rc == -ENOMEM && !st->err)
		human_log(IOB_LOG_ERROR, "out of memory formatting output for %s", st->sink.name);
	else if (rc < 0)
		st->err = rc;
	if (rc > 0)
		rc = 0;
	textbuf_clear(&st->out);
	textbuf_clear(&st->line);
	textbuf_clear(&st->cell);
	return rc;
}

static int human_open(const struct iob_sink *sink, const char *args, void **state)
{
	if (!sink || !sink->write || !state)
		return -EINVAL;
	int wide = args && strcmp(args, "wide") == 0;
	if (args && *args && !wide) {
		struct textbuf shown = {0};
		textbuf_term(&shown, args);
		human_log(IOB_LOG_ERROR, "unknown argument \"%s\"; use --output human, human:wide or human=FILE",
			  shown.oom || !shown.data ? "?" : shown.data);
		textbuf_free(&shown);
		return -EINVAL;
	}
	struct human_state *st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->wide = wide;
	st->sink = *sink;
	if (!st->sink.name)
		st->sink.name = "output";
	*state = st;
	return 0;
}

static int human_begin_run(void *state, const struct iob_run_info *run)
{
	struct human_state *st = state;
	if (textbuf_begin(human_host, HUMAN_NAME, st->sink.name, &st->begun))
		return -EINVAL;
	if (!run || run->struct_size < HUMAN_RUN_INFO_V1_SIZE)
		return 0;
	struct textbuf *out = &st->out;
	human_buf_text(out, run->tool);
	textbuf_str(out, " ");
	human_buf_text(out, run->version);
	textbuf_str(out, " on ");
	human_buf_text(out, run->host);
	textbuf_str(out, ", started ");
	human_buf_text(out, run->started);
	textbuf_str(out, "\n");
	if (run->source) {
		textbuf_str(out, "source: ");
		human_buf_text(out, run->source);
		textbuf_str(out, "\n");
	}
	return human_flush(st);
}

/* A "repeats" record (the summary of repeats, docs/statistics.md): a head line, then one
 * line per figure F from its F_mean_*, F_ci_half_*, F_median_*, F_stddev_*,
 * F_cv, F_min_*, F_max_* fields: "bw  412.3 MiB/s ± 5.10 MiB/s  sd ...  cv ...  min
 * ...  max ..." within HUMAN_COLS; wide: the median before sd. */
static const struct iob_field *human_sfind(const struct iob_record *rec, const char *prefix, const char *what)
{
	size_t pl = strlen(prefix), wl = strlen(what);
	for (size_t i = 0; i < rec->nfields; i++) {
		const char *k = rec->fields[i].key;
		if (k && strncmp(k, prefix, pl) == 0 && strncmp(k + pl, what, wl) == 0 &&
		    (k[pl + wl] == '\0' || k[pl + wl] == '_'))
			return &rec->fields[i];
	}
	return NULL;
}

static void human_put_summary(struct human_state *st, const struct iob_record *rec)
{
	struct textbuf *out = &st->out, *c = &st->cell;
	if (!st->lay.sig || strcmp(st->lay.sig, "\x01repeats") != 0) {
		human_layout_free(&st->lay);
		st->lay.sig = strdup("\x01repeats");
		textbuf_str(out, "\n[repeats]\n");
	}
	const struct iob_field *job = human_sfind(rec, "job", ""), *phase = human_sfind(rec, "phase", ""),
			       *bs = human_sfind(rec, "block_size", ""), *n = human_sfind(rec, "repeats", ""),
			       *conf = human_sfind(rec, "confidence", "");
	if (job)
		human_value(out, job);
	if (phase) {
		textbuf_str(out, HUMAN_GAP);
		human_value(out, phase);
	}
	if (bs) {
		textbuf_str(out, HUMAN_GAP);
		human_value(out, bs);
	}
	if (n) {
		textbuf_str(out, HUMAN_GAP);
		human_value(out, n);
		textbuf_str(out, " runs");
	}
	if (conf && conf->type == IOB_T_F64)
		textbuf_printf(out, "  mean %s %.0f%% interval half-width", "\xc2\xb1", conf->v.f * 100.0);
	for (size_t i = 0; i < rec->nfields; i++) {
		const struct iob_field *f = &rec->fields[i];
		const char *k = f->key, *m = k ? strstr(k, "_mean") : NULL;
		if (!m || (m[5] != '_' && m[5] != '\0'))
			continue;
		char prefix[64];
		size_t pl = (size_t)(m - k) + 1; /* "bw_" */
		if (pl >= sizeof prefix)
			continue;
		memcpy(prefix, k, pl);
		prefix[pl] = '\0';
		textbuf_printf(out, "\n%s%-10.*s", HUMAN_INDENT, (int)(pl - 1), prefix);
		if (human_is_absent(f)) {
			textbuf_str(out, "  -");
			continue;
		}
		textbuf_clear(c);
		human_value(c, f);
		textbuf_printf(out, "%12s", c->data ? c->data : "");
		const struct iob_field *h = human_sfind(rec, prefix, "ci_half");
		if (h && !human_is_absent(h)) {
			textbuf_clear(c);
			human_value(c, h);
			textbuf_printf(out, " \xc2\xb1 %-12s", c->data ? c->data : "");
		} else {
			textbuf_printf(out, " \xc2\xb1 %-12s", "-");
		}
		static const char *const more[][2] = {{"median", "median"}, {"stddev", "sd"}, {"cv", "cv"},
						      {"min", "min"},	    {"max", "max"}};
		/* the narrow layout stays within HUMAN_COLS: the median only when wide */
		for (size_t j = st->wide ? 0 : 1; j < sizeof more / sizeof more[0]; j++) {
			const struct iob_field *g = human_sfind(rec, prefix, more[j][0]);
			if (!g)
				continue;
			textbuf_clear(c);
			if (human_is_absent(g))
				textbuf_str(c, "-");
			else if (strcmp(more[j][0], "cv") == 0)
				textbuf_printf(c, "%.1f%%", human_number(g) * 100.0);
			else
				human_value(c, g);
			textbuf_printf(out, strcmp(more[j][0], "cv") == 0 ? "  %s %6s" : "  %s %10s", more[j][1],
				       c->data ? c->data : "");
		}
	}
	const struct iob_field *reached = human_sfind(rec, "ci_reached", "");
	if (reached && reached->type == IOB_T_BOOL)
		textbuf_printf(out, "\n%suntil_ci %s", HUMAN_INDENT, reached->v.b ? "reached" : "not reached");
	textbuf_str(out, "\n");
}

/* latency_target's search, one line under its phase's row (its windows are
 * records of their own: the json and csv outputs carry them). */
static void human_put_lat_search(struct human_state *st, const struct iob_record *rec)
{
	const struct iob_field *depth = human_sfind(rec, "latency_depth", ""),
			       *target = human_sfind(rec, "latency_target", ""),
			       *pct = human_sfind(rec, "latency_percentile", ""),
			       *n = human_sfind(rec, "latency_windows", ""), *settled = human_sfind(rec, "latency_settled", "");
	if (!depth || depth->type != IOB_T_U64 || !target || !pct || pct->type != IOB_T_STR || !n ||
	    n->type != IOB_T_U64 || !settled || settled->type != IOB_T_BOOL)
		return;
	textbuf_clear(&st->cell);
	human_value(&st->cell, target);
	textbuf_printf(&st->out, "%slatency_target %s at p%s: depth %llu, %s after %llu windows\n", HUMAN_INDENT,
		       st->cell.data ? st->cell.data : "", pct->v.s, (unsigned long long)depth->v.u,
		       settled->v.b ? "settled" : "not settled", (unsigned long long)n->v.u);
}

static int human_record(void *state, const struct iob_record *rec)
{
	struct human_state *st = state;
	int rc = textbuf_record_ok(human_host, HUMAN_NAME, st->sink.name, st->begun, st->ended, st->err, rec);
	if (rc)
		return rc;
	if (rec->kind && strcmp(rec->kind, "repeats") == 0) {
		human_put_summary(st, rec);
		return human_flush(st);
	}
	if (rec->kind && strcmp(rec->kind, "latency_window") == 0)
		return 0; /* said in one line under the phase (human_put_lat_search) */
	char *sig = human_signature(rec);
	if (!sig)
		return -ENOMEM;
	if (st->lay.sig && strcmp(sig, st->lay.sig) == 0) {
		free(sig);
	} else {
		rc = human_layout_make(st, rec, sig);
		if (rc) {
			human_layout_free(&st->lay);
			textbuf_clear(&st->cell);
			human_log(IOB_LOG_ERROR, "out of memory laying out a record for %s", st->sink.name);
			return rc;
		}
		human_put_header(st, rec);
	}
	human_put_row(st, rec);
	for (size_t i = 0; !st->lay.ncol && i < rec->nfields; i++)
		if (st->lay.place[i] == HUMAN_LATLINE)
			human_put_lat(st, rec, &rec->fields[i]);
	if (!st->lay.ncol)
		human_put_detail(st, rec);
	human_put_lat_search(st, rec);
	return human_flush(st);
}

static int human_end_run(void *state, const struct iob_run_end *end)
{
	struct human_state *st = state;
	if (textbuf_end_ok(human_host, HUMAN_NAME, st->sink.name, st->begun, st->ended))
		return -EINVAL;
	st->ended = 1;
	if (!end || end->struct_size < HUMAN_RUN_END_V1_SIZE) {
		human_log(IOB_LOG_ERROR, "end_run on %s got no valid run end", st->sink.name);
		return st->err ? st->err : -EINVAL;
	}
	struct textbuf *out = &st->out;
	textbuf_str(out, "\n");
	for (size_t i = 0; end->notes && i < end->nnotes; i++) {
		if (!end->notes[i])
			continue;
		textbuf_str(out, "note: ");
		human_buf_text(out, end->notes[i]);
		textbuf_str(out, "\n");
	}
	if (end->status != 0) {
		textbuf_str(out, "error: ");
		if (end->error)
			human_buf_text(out, end->error);
		else
			textbuf_printf(out, "run failed (status %d)", end->status);
		textbuf_str(out, "\n");
	}
	if (end->interrupted)
		textbuf_str(out, "(interrupted)\n");
	if (out->len == 1)
		textbuf_clear(out); /* nothing to say: no blank line either */
	return human_flush(st);
}

static int human_close(void *state)
{
	struct human_state *st = state;
	if (!st)
		return 0;
	human_layout_free(&st->lay);
	textbuf_free(&st->out);
	textbuf_free(&st->cell);
	textbuf_free(&st->line);
	free(st);
	return 0;
}

static const struct iob_output_ops human_ops = {IOB_OUTPUT_OPS_OF(human)};

IOB_OUTPUT_PLUGIN(human_host, HUMAN_NAME, "aligned tables for people, with KiB/MiB/GiB, MiB/s, us/ms units", &human_ops);
