/*
 * human_layout.c - the human output's layout of a block: the narrow table,
 * which field goes where, the header, the rows, the latency and key=value
 * lines.  A room of human.c (its map).
 */
#include "human_int.h"

struct human_kindspec {
	const char *kind;
	struct human_colspec col[HUMAN_MAX_COLS];
};

#define C_JOB {"job", "job", 0, 0}
#define C_PHASE {"phase", "phase", 0, 6}
#define C_BS {"block_size_bytes", "bs", 0, 9}
#define C_BW {"bw_bytes_per_s", "bw", 0, 11}
#define C_OPS {"ops_per_s", "ops/s", 0, 6}
#define C_P50 {"lat_ns", "p50", 50.0, 8}
#define C_P99 {"lat_ns", "p99", 99.0, 8}
#define C_STATUS {"status", "status", 0, 11}

static const struct human_kindspec human_narrow[] = {
	{"phase", {C_JOB, C_PHASE, C_BS, C_BW, C_OPS, C_P50, C_P99, C_STATUS}},
	{"stream", {C_JOB, {"stream", "stream", 0, 6}, C_PHASE, C_BS, C_BW, C_OPS, C_P50, C_P99, C_STATUS}},
	{"rank", {{"rank", "rank", 0, 4}, C_JOB, C_PHASE, C_BS, C_BW, C_OPS, C_P50, C_P99, C_STATUS}},
	{"group",
	 {{"group", "group", 0, 5}, C_PHASE, {"jobs", "jobs", 0, 4}, C_BS, C_BW, C_OPS, C_P50, C_P99, C_STATUS}},
	{"interval",
	 {C_JOB, C_PHASE, C_BS, {"interval", "interval", 0, 8}, {"time_s", "time", 0, 9}, C_BW, C_OPS,
	  {"lat_p50_ns", "p50", 0, 8}, {"lat_p99_ns", "p99", 0, 8}}},
	{"meta",
	 {C_JOB, C_PHASE, {"streams", "streams", 0, 7}, {"ops", "ops", 0, 9}, {"elapsed_s", "time", 0, 8}, C_OPS,
	  C_P50, C_P99, {"caches_dropped", "dropped", 0, 7}, C_STATUS}},
	{"block",
	 {{"index", "block", 0, 6}, {"offset_bytes", "offset", 0, 9}, {"bytes", "bytes", 0, 9},
	  {"time_ns", "time", 0, 8}, {"speed_bytes_per_s", "speed", 0, 11}, {"merged", "merged", 0, 6}}},
};

/* ------------------------------------------------------------------------ */
/* Layout of a block.                                                        */

void human_layout_free(struct human_layout *lay)
{
	for (size_t i = 0; lay->label && i < lay->nfields; i++)
		free(lay->label[i]);
	free(lay->label);
	free(lay->sig);
	free(lay->place);
	free(lay->width);
	memset(lay, 0, sizeof(*lay));
}

/* Field types this output knows.  A field of another type (one a later ABI
 * adds) is skipped: the record is shown without it, as an older renderer
 * cannot know how to print it. */
static int human_known_type(const struct iob_field *f)
{
	return f->type <= IOB_T_LAT;
}

/* An absent value (a NULL string where other records of the kind carry a
 * number): it keeps its key, and the block's layout. */
int human_is_absent(const struct iob_field *f)
{
	return f->type == IOB_T_STR && !f->v.s;
}

/* Kind, then each key and unit (and whether it is a latency or a type this
 * output does not know): equal signatures share a layout.  A value's other
 * types do not count, so records that measured a value and records where
 * it is absent stay in one block. */
char *human_signature(const struct iob_record *rec)
{
	struct textbuf b = {0};
	textbuf_str(&b, rec->kind ? rec->kind : "");
	for (size_t i = 0; i < rec->nfields; i++) {
		const struct iob_field *f = &rec->fields[i];
		textbuf_printf(&b, "\n%c/%u:", f->type == IOB_T_LAT ? 'L' : human_known_type(f) ? 'v' : '?',
			       (unsigned)f->unit);
		textbuf_str(&b, f->key ? f->key : "");
	}
	if (b.oom) {
		textbuf_free(&b);
		return NULL;
	}
	return b.data ? b.data : strdup("");
}

/* Field j's column labelled by its whole key (when its label without the
 * unit clashes with another's); -ENOMEM. */
static int label_by_key(struct human_layout *lay, const struct iob_record *rec, size_t j)
{
	struct textbuf c = {0};
	human_buf_text(&c, rec->fields[j].key ? rec->fields[j].key : "");
	free(lay->label[j]);
	lay->label[j] = c.oom ? NULL : c.data ? c.data : strdup("");
	return lay->label[j] ? 0 : -ENOMEM;
}

static int human_is_right(const struct iob_field *f);
static void human_cell(struct textbuf *b, const struct iob_field *f, double pct);

/* Each field's label: the key without its unit suffix, or the whole key
 * where two fields of the block would otherwise share a label
 * (first_done_bytes and first_done_s; interval and interval_s). */
static int human_labels(struct human_state *st, const struct iob_record *rec)
{
	struct human_layout *lay = &st->lay;
	lay->label = calloc(rec->nfields + 1, sizeof(*lay->label));
	if (!lay->label)
		return -ENOMEM;
	for (size_t i = 0; i < rec->nfields; i++) {
		struct textbuf c = {0};
		human_label(&c, &rec->fields[i]);
		lay->label[i] = c.oom ? NULL : c.data ? c.data : strdup("");
		if (!lay->label[i]) {
			textbuf_free(&c);
			return -ENOMEM;
		}
	}
	for (size_t i = 0; i < rec->nfields; i++) {
		int clash = 0;
		for (size_t j = 0; j < rec->nfields && !clash; j++)
			clash = j != i && strcmp(lay->label[i], lay->label[j]) == 0;
		if (!clash)
			continue;
		for (size_t j = 0; j < rec->nfields; j++)
			if (j != i && strcmp(lay->label[i], lay->label[j]) == 0 && label_by_key(lay, rec, j) < 0)
				return -ENOMEM;
		if (label_by_key(lay, rec, i) < 0)
			return -ENOMEM;
	}
	return 0;
}

static const struct iob_field *human_find(const struct iob_record *rec, const char *key, size_t *at)
{
	for (size_t i = 0; i < rec->nfields; i++)
		if (rec->fields[i].key && strcmp(rec->fields[i].key, key) == 0 && human_known_type(&rec->fields[i])) {
			*at = i;
			return &rec->fields[i];
		}
	return NULL;
}

/* The narrow row of a kind that has one (human_narrow): its columns that
 * the record has, the name column as wide as the rest leaves within
 * HUMAN_COLS.  0 when the kind has none. */
static void human_narrow_make(struct human_state *st, const struct iob_record *rec)
{
	struct human_layout *lay = &st->lay;
	const struct human_kindspec *k = NULL;
	for (size_t i = 0; i < sizeof(human_narrow) / sizeof(human_narrow[0]) && !k; i++)
		if (rec->kind && strcmp(rec->kind, human_narrow[i].kind) == 0)
			k = &human_narrow[i];
	if (!k)
		return;
	size_t used = 0, name = HUMAN_MAX_COLS;
	for (size_t c = 0; c < HUMAN_MAX_COLS && k->col[c].key; c++) {
		const struct human_colspec *cs = &k->col[c];
		size_t at;
		const struct iob_field *f = human_find(rec, cs->key, &at);
		if (!f || (cs->pct > 0) != (f->type == IOB_T_LAT))
			continue;
		struct human_col *col = &lay->col[lay->ncol];
		col->field = at;
		col->label = cs->label;
		col->pct = cs->pct;
		col->right = cs->pct > 0 || human_is_right(f);
		col->width = cs->width > strlen(cs->label) ? cs->width : strlen(cs->label);
		if (!cs->width) {
			name = lay->ncol;
			col->cut = 1;
		}
		used += (lay->ncol ? strlen(HUMAN_GAP) : 0) + (cs->width ? col->width : 0);
		lay->ncol++;
	}
	if (name < lay->ncol) {
		struct human_col *col = &lay->col[name];
		struct textbuf *c = &st->cell;
		textbuf_clear(c);
		human_cell(c, &rec->fields[col->field], 0);
		size_t w = c->data ? human_width(c->data) : 0, room = used < HUMAN_COLS ? HUMAN_COLS - used : 0;
		if (w < HUMAN_NAME_MIN)
			w = HUMAN_NAME_MIN;
		if (w > HUMAN_NAME_MAX)
			w = HUMAN_NAME_MAX;
		if (w > room)
			w = room;
		col->width = w > strlen(col->label) ? w : strlen(col->label);
	}
}

/* Decide where each field of a block goes, from the block's first record. */
int human_layout_make(struct human_state *st, const struct iob_record *rec, char *sig)
{
	struct human_layout *lay = &st->lay;
	human_layout_free(lay);
	lay->sig = sig;
	lay->nfields = rec->nfields;
	lay->place = calloc(rec->nfields + 1, sizeof(*lay->place));
	lay->width = calloc(rec->nfields + 1, sizeof(*lay->width));
	if (!lay->place || !lay->width || human_labels(st, rec) != 0)
		return -ENOMEM;
	if (!st->wide) {
		human_narrow_make(st, rec);
		if (lay->ncol)
			return st->cell.oom ? -ENOMEM : 0;
	}
	size_t row = 0; /* columns the row takes so far */
	for (size_t i = 0; i < rec->nfields; i++) {
		const struct iob_field *f = &rec->fields[i];
		struct textbuf *c = &st->cell;
		size_t label_w = human_width(lay->label[i]);
		textbuf_clear(c);
		human_value(c, f);
		size_t value_w = c->data ? human_width(c->data) : 0;
		size_t w = label_w > value_w ? label_w : value_w;
		if (!human_known_type(f)) {
			lay->place[i] = HUMAN_SKIP;
		} else if (f->type == IOB_T_LAT) {
			lay->place[i] = HUMAN_LATLINE;
			if (label_w > lay->latlabel_width)
				lay->latlabel_width = label_w;
		} else if ((human_is_scaled(f) || (human_is_absent(f) && f->unit != IOB_UNIT_NONE &&
						   f->unit != IOB_UNIT_COUNT) ||
			    (f->type == IOB_T_STR && !human_is_absent(f) && value_w <= HUMAN_SHORT_STR)) &&
			   (st->wide || row + (row ? strlen(HUMAN_GAP) : 0) + w <= HUMAN_COLS)) {
			lay->place[i] = HUMAN_ROW;
			lay->width[i] = w;
			row += (row ? strlen(HUMAN_GAP) : 0) + w;
		} else {
			lay->place[i] = HUMAN_DETAIL;
		}
	}
	return st->cell.oom ? -ENOMEM : 0;
}

static int human_is_right(const struct iob_field *f)
{
	return f->type != IOB_T_STR;
}

/* The value of a narrow column: a field's value, or one percentile of a
 * latency ("-" when it has no samples or not that rank). */
static void human_cell(struct textbuf *b, const struct iob_field *f, double pct)
{
	if (pct <= 0) {
		human_value(b, f);
		return;
	}
	const struct iob_latency *lat = f->type == IOB_T_LAT ? f->v.lat : NULL;
	size_t n = lat && lat->count && lat->pct && lat->value ? lat->npct : 0;
	for (size_t k = 0; k < n; k++)
		if (fabs(lat->pct[k] - pct) < 1e-9) {
			human_ns(b, (double)lat->value[k]);
			return;
		}
	textbuf_str(b, "-");
}

/* Bytes of the unit of escaped text at t, its columns in *cols: a \xNN
 * escape (a cut never splits one), or one UTF-8 character. */
static size_t human_unit(const char *t, size_t *cols)
{
	if (t[0] == '\\' && t[1] == 'x' && t[2] && t[3]) {
		*cols = 4;
		return 4;
	}
	size_t n = 1;
	while (t[n] && ((unsigned char)t[n] & 0xc0u) == 0x80u)
		n++;
	*cols = 1;
	return n;
}

/* Cut text (escaped, valid UTF-8) to at most `width` columns: its start,
 * '~' and its end, in whole units, so names that differ at either end
 * stay apart. */
static void human_cut(struct textbuf *c, size_t width)
{
	size_t w = c->data ? human_width(c->data) : 0;
	if (w <= width || width < 3)
		return;
	const char *t = c->data;
	size_t head = width - 1 - (width - 1) / 2, h = 0, hc = 0, uc = 0;
	for (size_t u; t[h] && (u = human_unit(t + h, &uc), hc + uc <= head); h += u)
		hc += uc;
	/* the tail: as many whole units from the end as the rest of the width takes */
	size_t room = width - 1 - hc, e = c->len, ec = 0, ns = 0;
	size_t *start = malloc((c->len - h + 1) * sizeof(*start));
	if (!start) {
		c->oom = 1;
		return;
	}
	for (size_t i = h; t[i]; i += human_unit(t + i, &uc))
		start[ns++] = i;
	while (ns > 0) {
		human_unit(t + start[ns - 1], &uc);
		if (ec + uc > room)
			break;
		ec += uc;
		e = start[--ns];
	}
	free(start);
	struct textbuf out = {0};
	textbuf_add(&out, t, h);
	textbuf_str(&out, "~");
	textbuf_add(&out, t + e, c->len - e);
	textbuf_clear(c);
	if (out.oom)
		c->oom = 1;
	else
		textbuf_add(c, out.data, out.len);
	textbuf_free(&out);
}

/* "\n[kind]\n" and the header line of the row columns. */
void human_put_header(struct human_state *st, const struct iob_record *rec)
{
	struct textbuf *out = &st->out, *line = &st->line;
	const struct human_layout *lay = &st->lay;
	textbuf_str(out, "\n[");
	human_buf_text(out, rec->kind ? rec->kind : "");
	textbuf_str(out, "]\n");
	int any = 0;
	for (size_t c = 0; c < lay->ncol; c++) {
		if (any++)
			textbuf_str(line, HUMAN_GAP);
		human_put_cell(line, lay->col[c].label, lay->col[c].width, lay->col[c].right);
	}
	for (size_t i = 0; !lay->ncol && i < rec->nfields; i++) {
		if (lay->place[i] != HUMAN_ROW)
			continue;
		if (any++)
			textbuf_str(line, HUMAN_GAP);
		human_put_cell(line, lay->label[i], lay->width[i], human_is_right(&rec->fields[i]));
	}
	if (any)
		human_end_line(out, line);
}

void human_put_row(struct human_state *st, const struct iob_record *rec)
{
	struct textbuf *line = &st->line, *c = &st->cell;
	const struct human_layout *lay = &st->lay;
	int any = 0;
	for (size_t k = 0; k < lay->ncol; k++) {
		const struct human_col *col = &lay->col[k];
		textbuf_clear(c);
		human_cell(c, &rec->fields[col->field], col->pct);
		if (col->cut)
			human_cut(c, col->width);
		if (any++)
			textbuf_str(line, HUMAN_GAP);
		human_put_cell(line, c->data ? c->data : "", col->width, col->right);
	}
	for (size_t i = 0; !lay->ncol && i < rec->nfields; i++) {
		if (lay->place[i] != HUMAN_ROW)
			continue;
		textbuf_clear(c);
		human_value(c, &rec->fields[i]);
		if (any++)
			textbuf_str(line, HUMAN_GAP);
		human_put_cell(line, c->data ? c->data : "", lay->width[i], human_is_right(&rec->fields[i]));
	}
	if (any)
		human_end_line(&st->out, line);
}

/* One latency item: "p99  45.60 us", the value in a fixed width. */
static void human_lat_item(struct textbuf *line, struct textbuf *c, const char *label, double ns)
{
	textbuf_clear(c);
	human_ns(c, ns);
	textbuf_str(line, HUMAN_GAP);
	textbuf_str(line, label);
	textbuf_str(line, " ");
	human_put_cell(line, c->data ? c->data : "", 9, 1);
}

void human_put_lat(struct human_state *st, const struct iob_record *rec, const struct iob_field *f)
{
	static const double ranks[] = {50.0, 99.0, 99.9};
	static const char *const names[] = {"p50", "p99", "p99.9"};
	struct textbuf *line = &st->line, *c = &st->cell;
	const struct iob_latency *lat = f->v.lat;
	textbuf_str(line, HUMAN_INDENT);
	human_put_cell(line, st->lay.label[(size_t)(f - rec->fields)], st->lay.latlabel_width, 0);
	if (!lat || lat->count == 0) {
		textbuf_str(line, HUMAN_GAP "(no samples)");
		human_end_line(&st->out, line);
		return;
	}
	human_lat_item(line, c, "mean", isfinite(lat->mean) ? lat->mean : 0.0);
	size_t n = (lat->pct && lat->value) ? lat->npct : 0;
	for (size_t r = 0; r < sizeof(ranks) / sizeof(ranks[0]); r++)
		for (size_t k = 0; k < n; k++)
			if (fabs(lat->pct[k] - ranks[r]) < 1e-9)
				human_lat_item(line, c, names[r], (double)lat->value[k]);
	human_lat_item(line, c, "max", (double)lat->max);
	human_end_line(&st->out, line);
}

/* The key=value line; narrow: wrapped before HUMAN_COLS columns (an item
 * wider than that alone on its line). */
void human_put_detail(struct human_state *st, const struct iob_record *rec)
{
	struct textbuf *line = &st->line, *c = &st->cell;
	size_t cols = 0;
	for (size_t i = 0; i < rec->nfields; i++) {
		if (st->lay.place[i] != HUMAN_DETAIL)
			continue;
		textbuf_clear(c);
		textbuf_str(c, st->lay.label[i]);
		textbuf_str(c, "=");
		human_value(c, &rec->fields[i]);
		size_t w = c->data ? human_width(c->data) : 0;
		if (cols && !st->wide && cols + strlen(HUMAN_GAP) + w > HUMAN_COLS) {
			human_end_line(&st->out, line);
			cols = 0;
		}
		textbuf_str(line, cols ? HUMAN_GAP : HUMAN_INDENT);
		cols += strlen(HUMAN_GAP) + w;
		textbuf_str(line, c->data ? c->data : "");
	}
	if (cols)
		human_end_line(&st->out, line);
}
