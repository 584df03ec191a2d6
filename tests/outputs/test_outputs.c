/*
 * test_outputs.c - the human, csv and json output plugins, loaded from the
 * build tree through the core's loader, rendering hand-built records into a
 * memory sink.  CSV is compared byte for byte; JSON documents are parsed by
 * python3 (strict: no NaN, no duplicate keys, UTF-8 only, nothing after the
 * document) and specific values checked; human output is searched for its
 * scaled units and end-of-run lines.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iobench/loader.h"
#include "iobench/plugin.h"

#ifndef IOB_TEST_PLUGIN_DIR
#error "IOB_TEST_PLUGIN_DIR must name the build tree's plugin directory"
#endif
#ifndef IOB_TEST_PYTHON3
#define IOB_TEST_PYTHON3 ""
#endif

/* ------------------------------------------------------------------------ */
/* A sink appending to memory, optionally failing from its Nth write on.      */

struct memsink {
	char *data;
	size_t len, cap;
	int calls;   /* writes attempted */
	int fail_at; /* 1-based write from which every write fails; 0 = never */
	int fail_rc; /* what a failing write returns, e.g. -ENOSPC */
};

static int memsink_write(void *ctx, const char *data, size_t len)
{
	struct memsink *m = ctx;
	m->calls++;
	if (m->fail_at && m->calls >= m->fail_at)
		return m->fail_rc;
	if (m->len + len + 1 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 4096;
		while (cap < m->len + len + 1)
			cap *= 2;
		char *p = realloc(m->data, cap);
		if (!p)
			return -ENOMEM;
		m->data = p;
		m->cap = cap;
	}
	memcpy(m->data + m->len, data, len);
	m->len += len;
	m->data[m->len] = '\0';
	return 0;
}

static void memsink_free(struct memsink *m)
{
	free(m->data);
	memset(m, 0, sizeof(*m));
}

static const char *memsink_text(const struct memsink *m)
{
	return m->data ? m->data : "";
}

static struct iob_sink sink_of(struct memsink *m)
{
	struct iob_sink s = {.ctx = m, .write = memsink_write, .name = "memory", .is_terminal = 0};
	return s;
}

/* ------------------------------------------------------------------------ */
/* The plugins, through the core's loader.                                    */

static struct iob_registry *registry;

static int group_setup(void **state)
{
	static const char *const dirs[] = {IOB_TEST_PLUGIN_DIR};
	registry = calloc(1, sizeof(*registry));
	if (!registry)
		return -1;
	return iob_registry_load(registry, dirs, 1);
}

static int group_teardown(void **state)
{
	if (registry)
		iob_registry_unload(registry);
	free(registry);
	registry = NULL;
	return 0;
}

static const struct iob_output_ops *output(const char *name)
{
	const struct iob_loaded *p = iob_registry_find(registry, IOB_PLUGIN_OUTPUT, name);
	if (!p) {
		for (size_t i = 0; i < registry->nerrors; i++)
			print_message("loader: %s\n", registry->errors[i]);
		fail_msg("output plugin \"%s\" not found in %s", name, IOB_TEST_PLUGIN_DIR);
	}
	assert_int_equal(p->desc.kind, IOB_PLUGIN_OUTPUT);
	assert_string_equal(p->desc.name, name);
	assert_non_null(p->output.open);
	assert_non_null(p->output.begin_run);
	assert_non_null(p->output.record);
	assert_non_null(p->output.end_run);
	assert_non_null(p->output.close);
	return &p->output;
}

/* ------------------------------------------------------------------------ */
/* Test data.                                                                */

static const double ranks[] = {50.0, 90.0, 99.0, 99.9, 99.99};
static const uint64_t values1[] = {1000, 2000, 5000, 12000, 40000};
static const uint64_t values2[] = {777, 777, 777, 777, 777};

static const struct iob_latency lat1 = {
	.count = 1000, .min = 500, .max = 50000, .mean = 1500.25, .stddev = 812.5,
	.npct = 5, .pct = ranks, .value = values1,
};
static const struct iob_latency lat2 = {
	.count = 1, .min = 777, .max = 777, .mean = 777.0, .stddev = 0.0,
	.npct = 5, .pct = ranks, .value = values2,
};

/* Strings that need quoting or escaping, and UTF-8 (e-acute, u-umlaut, a CJK
 * ideograph, an emoji outside the BMP). */
#define FILE1 "/tmp/iobench \"q\" test/seq.dat"
#define JOB2 "line1\nline2"
#define BACKEND2 "back\\slash"
#define FILE2 "ctl\x01\x1f tab\t \xc3\xa9 \xc3\xbc \xe6\xbc\xa2 \xf0\x9f\x98\x80"
/* FILE2 in a CSV cell: its two C0 controls as U+FFFD, TAB kept */
#define FILE2_CSV "ctl\xef\xbf\xbd\xef\xbf\xbd tab\t \xc3\xa9 \xc3\xbc \xe6\xbc\xa2 \xf0\x9f\x98\x80"
#define ERROR_MSG "write /tmp/x: No space left on device (\"q\" \\ \xc3\xa9)"
#define NOTE1 "page cache: 100% of seq.dat was resident before the read"
#define NOTE2 "O_DIRECT not in effect, comma, \"quote\""

#define PHASE_FIELDS(job, phase, backend, file, bs, bytes, ops, el, bw, iops, l, direct, status)       \
	{                                                                                              \
		{.key = "job", .type = IOB_T_STR, .v.s = (job)},                                       \
		{.key = "phase", .type = IOB_T_STR, .v.s = (phase)},                                   \
		{.key = "backend", .type = IOB_T_STR, .v.s = (backend)},                               \
		{.key = "file", .type = IOB_T_STR, .v.s = (file)},                                     \
		{.key = "block_size_bytes", .type = IOB_T_U64, .unit = IOB_UNIT_BYTES, .v.u = (bs)},   \
		{.key = "bytes", .type = IOB_T_U64, .unit = IOB_UNIT_BYTES, .v.u = (bytes)},           \
		{.key = "ops", .type = IOB_T_U64, .unit = IOB_UNIT_OPS, .v.u = (ops)},                 \
		{.key = "elapsed_s", .type = IOB_T_F64, .unit = IOB_UNIT_S, .v.f = (el)},              \
		{.key = "bw_bytes_per_s", .type = IOB_T_F64, .unit = IOB_UNIT_BYTES_PER_S, .v.f = (bw)}, \
		{.key = "ops_per_s", .type = IOB_T_F64, .unit = IOB_UNIT_OPS_PER_S, .v.f = (iops)},    \
		{.key = "lat_ns", .type = IOB_T_LAT, .unit = IOB_UNIT_NS, .v.lat = (l)},               \
		{.key = "direct", .type = IOB_T_BOOL, .v.b = (direct)},                                \
		{.key = "status", .type = IOB_T_I64, .v.i = (status)},                                 \
	}

static const struct iob_field phase1[] = PHASE_FIELDS("seq,1", "write", "posix", FILE1, 4096, 1073741824,
						      262144, 2.5, 429496729.6, 104857.6, &lat1, 0, 0);
static const struct iob_field phase2[] =
	PHASE_FIELDS(JOB2, "read", BACKEND2, FILE2, 1048576, 1048576, 1, 1.0, 1048576.0, 1.0, &lat2, 1, -5);

static const struct iob_field summary1[] = {
	{.key = "jobs", .type = IOB_T_U64, .unit = IOB_UNIT_COUNT, .v.u = 2},
	{.key = "total_bytes", .type = IOB_T_U64, .unit = IOB_UNIT_BYTES, .v.u = 2147483648u},
	{.key = "note", .type = IOB_T_STR, .v.s = NULL},
	{.key = "ratio", .type = IOB_T_F64, .v.f = 0.1},
	{.key = "tail_ns", .type = IOB_T_LAT, .unit = IOB_UNIT_NS, .v.lat = NULL},
};
static const struct iob_field summary2[] = {
	{.key = "jobs", .type = IOB_T_U64, .unit = IOB_UNIT_COUNT, .v.u = 3},
	{.key = "total_bytes", .type = IOB_T_U64, .unit = IOB_UNIT_BYTES, .v.u = 0},
	{.key = "note", .type = IOB_T_STR, .v.s = "a,b"},
	{.key = "ratio", .type = IOB_T_F64, .v.f = 1.0 / 3.0},
	{.key = "tail_ns", .type = IOB_T_LAT, .unit = IOB_UNIT_NS, .v.lat = NULL},
};

#define NFIELDS(a) (sizeof(a) / sizeof((a)[0]))
static const struct iob_record records[] = {
	{.kind = "phase", .nfields = NFIELDS(phase1), .fields = phase1},
	{.kind = "phase", .nfields = NFIELDS(phase2), .fields = phase2},
	{.kind = "summary", .nfields = NFIELDS(summary1), .fields = summary1},
	{.kind = "other", .nfields = NFIELDS(summary2), .fields = summary2}, /* same keys, other kind */
	{.kind = "phase", .nfields = NFIELDS(phase1), .fields = phase1},
};

static const struct iob_run_info run_info = {
	.struct_size = sizeof(struct iob_run_info),
	.tool = "iobench",
	.version = "0.1.0",
	.host = "node1",
	.started = "2024-05-01T10:00:00+02:00",
	.source = "profiles/seq.ini",
};

static const char *const notes[] = {NOTE1, NOTE2};

static const struct iob_run_end end_error = {
	.struct_size = sizeof(struct iob_run_end),
	.status = -ENOSPC,
	.interrupted = 1,
	.error = ERROR_MSG,
	.nnotes = 2,
	.notes = notes,
};

static const struct iob_run_end end_ok = {
	.struct_size = sizeof(struct iob_run_end),
	.status = 0,
	.interrupted = 0,
	.error = NULL,
	.nnotes = 0,
	.notes = NULL,
};

/* open (with args), begin_run, every record, end_run (unless end is NULL),
 * close. */
static void render_args(const struct iob_output_ops *ops, const char *args, struct memsink *m,
			const struct iob_record *recs, size_t nrecs, const struct iob_run_end *end)
{
	struct iob_sink sink = sink_of(m);
	void *st = NULL;
	assert_int_equal(ops->open(&sink, args, &st), 0);
	assert_int_equal(ops->begin_run(st, &run_info), 0);
	for (size_t i = 0; i < nrecs; i++)
		assert_int_equal(ops->record(st, &recs[i]), 0);
	if (end)
		assert_int_equal(ops->end_run(st, end), 0);
	assert_int_equal(ops->close(st), 0);
}

static void render(const struct iob_output_ops *ops, struct memsink *m, const struct iob_record *recs,
		   size_t nrecs, const struct iob_run_end *end)
{
	render_args(ops, NULL, m, recs, nrecs, end);
}

/* Text a terminal shows as it is: valid UTF-8, no control character (C0,
 * DEL or C1) but the newline.  Returns the offset of the first bad byte, or
 * -1. */
static long first_unsafe_byte(const char *text, size_t len)
{
	const unsigned char *p = (const unsigned char *)text;
	for (size_t i = 0; i < len;) {
		unsigned c = p[i], cp, n;
		if (c < 0x80) {
			if ((c < 0x20 && c != '\n') || c == 0x7f)
				return (long)i;
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			n = 2, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			n = 3, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 4, cp = c & 0x07;
		else
			return (long)i;
		if (i + n > len)
			return (long)i;
		for (unsigned k = 1; k < n; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				return (long)i;
			cp = (cp << 6) | (p[i + k] & 0x3f);
		}
		if ((n == 2 && cp < 0xa0) || (n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
		    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
			return (long)i; /* C1 control, overlong, surrogate, beyond U+10FFFF */
		i += n;
	}
	return -1;
}

/* No line of text wider than `cols` columns. */
static void assert_lines_within(const char *t, size_t cols)
{
	size_t col = 0;
	for (const unsigned char *p = (const unsigned char *)t; *p; p++) {
		if (*p == '\n') {
			col = 0;
			continue;
		}
		if ((*p & 0xc0u) != 0x80u)
			col++;
		if (col > cols)
			fail_msg("a line wider than %zu columns in:\n%s", cols, t);
	}
}

/* Hostile bytes: a C1 CSI (U+009B), an ANSI colour sequence, a lone
 * surrogate (ED A0 80), U+FFFE, an overlong '/' (C0 AF), raw 0x9b and 0x85
 * bytes, DEL. */
#define HOSTILE "a\xc2\x9b" "1m\x1b[31mred\xed\xa0\x80\xef\xbf\xbe\xc0\xaf\x9b\x85\x7fz"
#define HOSTILE_SHOWN                                                                              \
	"a\\xc2\\x9b1m\\x1b[31mred\\xed\\xa0\\x80\xef\xbf\xbe\\xc0\\xaf\\x9b\\x85\\x7fz"

static const struct iob_field hostile_phase[] =
	PHASE_FIELDS(HOSTILE, "read", HOSTILE, "/tmp/" HOSTILE "/f.dat", 4096, 4096, 1, 1.0, 4096.0, 1.0, &lat1, 0, 0);

/* The hostile phase record through output `name` (a run that ended well)
 * into m: its text, which holds no unsafe byte (first_unsafe_byte). */
static const char *render_hostile(const char *name, struct memsink *m)
{
	static const struct iob_record rec = {.kind = "phase", .nfields = NFIELDS(hostile_phase),
					      .fields = hostile_phase};
	render(output(name), m, &rec, 1, &end_ok);
	const char *t = memsink_text(m);
	assert_int_equal(first_unsafe_byte(t, m->len), -1);
	return t;
}

/* ------------------------------------------------------------------------ */
/* JSON, parsed by python3.                                                  */

/* Strict load into `d`, then each of `checks`, a Python expression that must
 * hold.  Returns only when python3 accepted everything. */
static void check_json(const struct memsink *m, const char *const *checks, size_t nchecks)
{
	if (IOB_TEST_PYTHON3[0] == '\0')
		skip();
	char dir[] = "/tmp/iob-test-outputs-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char doc[64], script[64], cmd[512];
	snprintf(doc, sizeof(doc), "%s/doc.json", dir);
	snprintf(script, sizeof(script), "%s/check.py", dir);

	FILE *f = fopen(doc, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(memsink_text(m), 1, m->len, f), m->len);
	assert_int_equal(fclose(f), 0);

	f = fopen(script, "w");
	assert_non_null(f);
	fputs("import json, sys\n"
	      "def no_constant(name):\n"
	      "    raise ValueError('non-standard constant ' + name)\n"
	      "def no_duplicates(pairs):\n"
	      "    keys = [k for k, _ in pairs]\n"
	      "    if len(keys) != len(set(keys)):\n"
	      "        raise ValueError('duplicate key in ' + repr(keys))\n"
	      "    return dict(pairs)\n"
	      "with open(sys.argv[1], encoding='utf-8', errors='strict') as f:\n"
	      "    d = json.load(f, parse_constant=no_constant, object_pairs_hook=no_duplicates)\n"
	      "failed = 0\n",
	      f);
	for (size_t i = 0; i < nchecks; i++)
		fprintf(f, "if not (%s):\n"
			   "    print('json check %zu failed', file=sys.stderr)\n"
			   "    failed = 1\n",
			checks[i], i);
	fputs("sys.exit(failed)\n", f);
	assert_int_equal(fclose(f), 0);

	snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s'", IOB_TEST_PYTHON3, script, doc);
	int rc = system(cmd);
	if (rc != 0) {
		print_message("document:\n%s\n", memsink_text(m));
		for (size_t i = 0; i < nchecks; i++)
			print_message("check %zu: %s\n", i, checks[i]);
	}
	assert_int_equal(rc, 0);
	unlink(doc);
	unlink(script);
	rmdir(dir);
}

static void test_json_full_run_with_error(void **state)
{
	struct memsink m = {0};
	render(output("json"), &m, records, NFIELDS(records), &end_error);
	static const char *const checks[] = {
		"d['tool'] == 'iobench' and d['version'] == '0.1.0' and d['host'] == 'node1'",
		"d['started'] == '2024-05-01T10:00:00+02:00' and d['source'] == 'profiles/seq.ini'",
		"list(d.keys()) == ['tool','version','host','started','source','kernel','schema','records','notes',"
		"'status','interrupted','error']",
		"[r['kind'] for r in d['records']] == ['phase','phase','summary','other','phase']",
		"d['records'][0]['job'] == 'seq,1'",
		"d['records'][0]['file'] == '/tmp/iobench \"q\" test/seq.dat'",
		"d['records'][1]['job'] == 'line1\\nline2' and d['records'][1]['backend'] == 'back\\\\slash'",
		"d['records'][1]['file'] == 'ctl\\x01\\x1f tab\\t \\u00e9 \\u00fc \\u6f22 \\U0001F600'",
		"d['records'][0]['block_size_bytes'] == 4096 and type(d['records'][0]['bytes']) is int",
		"d['records'][0]['bytes'] == 1073741824 and d['records'][0]['ops'] == 262144",
		"d['records'][0]['elapsed_s'] == 2.5 and d['records'][0]['bw_bytes_per_s'] == 429496729.6",
		"d['records'][0]['ops_per_s'] == 104857.6 and type(d['records'][1]['elapsed_s']) is float",
		"d['records'][0]['direct'] is False and d['records'][1]['direct'] is True",
		"d['records'][0]['status'] == 0 and d['records'][1]['status'] == -5",
		"d['records'][0]['lat_ns'] == {'count': 1000, 'min': 500, 'max': 50000, 'mean': 1500.25, "
		"'stddev': 812.5, 'percentiles': {'50': 1000, '90': 2000, '99': 5000, '99.9': 12000, "
		"'99.99': 40000}}",
		"list(d['records'][1]['lat_ns']['percentiles'].keys()) == ['50','90','99','99.9','99.99']",
		"d['records'][1]['lat_ns']['percentiles']['99.9'] == 777",
		"d['records'][2] == {'kind': 'summary', 'jobs': 2, 'total_bytes': 2147483648, 'note': None, "
		"'ratio': 0.1, 'tail_ns': None}",
		"d['records'][3]['ratio'] == 1.0 / 3.0 and d['records'][3]['note'] == 'a,b'",
		"d['records'][4] == d['records'][0]",
		"d['notes'] == ['page cache: 100% of seq.dat was resident before the read', "
		"'O_DIRECT not in effect, comma, \"quote\"']",
		"d['status'] == 'error' and d['interrupted'] is True",
		"d['error'] == 'write /tmp/x: No space left on device (\"q\" \\\\ \\u00e9)'",
	};
	check_json(&m, checks, NFIELDS(checks));
	memsink_free(&m);
}

/* C1 controls are escaped like C0 (\u009b), and invalid UTF-8 is U+FFFD:
 * the document is valid UTF-8 and safe on a terminal. */
static void test_json_escapes_c1_and_invalid(void **state)
{
	struct memsink m = {0};
	const char *t = render_hostile("json", &m);
	assert_non_null(strstr(t, "\"a\\u009b1m\\u001b[31mred\\ufffd\\ufffd\\ufffd\xef\xbf\xbe\\ufffd\\ufffd\\ufffd\\ufffd"
				  "\\u007fz\""));
	static const char *const checks[] = {
		"d['records'][0]['job'] == 'a\\x9b1m\\x1b[31mred\\ufffd\\ufffd\\ufffd\\ufffe\\ufffd\\ufffd\\ufffd\\ufffd"
		"\\x7fz'",
	};
	check_json(&m, checks, NFIELDS(checks));
	memsink_free(&m);
}

/* A CSV cell is valid UTF-8 without terminal controls: a CSV reader that
 * decodes UTF-8 takes any file name, and `cat` of the file is safe. */
static void test_csv_cells_clean(void **state)
{
	struct memsink m = {0};
	const char *t = render_hostile("csv", &m);
	assert_non_null(strstr(t, "\na\xef\xbf\xbd" "1m\xef\xbf\xbd[31mred\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbe"
				  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdz,read,"));
	memsink_free(&m);
}

static void test_json_ok_run_has_no_error_member(void **state)
{
	struct memsink m = {0};
	render(output("json"), &m, NULL, 0, &end_ok);
	static const char *const checks[] = {
		"d['records'] == [] and d['notes'] == []",
		"d['status'] == 'ok' and d['interrupted'] is False and 'error' not in d",
	};
	check_json(&m, checks, NFIELDS(checks));
	memsink_free(&m);
}

/* The document for a tiny run, byte for byte: the shape docs/outputs.md shows. */
static void test_json_exact_shape(void **state)
{
	static const double pct[] = {50.0, 99.9};
	static const uint64_t val[] = {10, 20};
	static const struct iob_latency lat = {
		.count = 2, .min = 10, .max = 20, .mean = 15.0, .stddev = 5.0,
		.npct = 2, .pct = pct, .value = val,
	};
	static const struct iob_field fields[] = {
		{.key = "job", .type = IOB_T_STR, .v.s = "j"},
		{.key = "bytes", .type = IOB_T_U64, .unit = IOB_UNIT_BYTES, .v.u = 4096},
		{.key = "elapsed_s", .type = IOB_T_F64, .unit = IOB_UNIT_S, .v.f = 2.0},
		{.key = "ok", .type = IOB_T_BOOL, .v.b = 1},
		{.key = "delta", .type = IOB_T_I64, .v.i = -3},
		{.key = "lat_ns", .type = IOB_T_LAT, .unit = IOB_UNIT_NS, .v.lat = &lat},
	};
	static const struct iob_record rec = {.kind = "phase", .nfields = NFIELDS(fields), .fields = fields};
	static const char *const one_note[] = {"n1"};
	struct iob_run_info run = run_info;
	run.source = NULL;
	struct iob_run_end end = end_ok;
	end.nnotes = 1;
	end.notes = one_note;

	struct memsink m = {0};
	struct iob_sink sink = sink_of(&m);
	const struct iob_output_ops *ops = output("json");
	void *st = NULL;
	assert_int_equal(ops->open(&sink, NULL, &st), 0);
	assert_int_equal(ops->begin_run(st, &run), 0);
	assert_int_equal(ops->record(st, &rec), 0);
	assert_int_equal(ops->end_run(st, &end), 0);
	assert_int_equal(ops->close(st), 0);
	assert_string_equal(memsink_text(&m),
			    "{\"tool\":\"iobench\",\"version\":\"0.1.0\",\"host\":\"node1\","
			    "\"started\":\"2024-05-01T10:00:00+02:00\",\"source\":null,\"kernel\":null,\"schema\":1,\n"
			    "\"records\":[\n"
			    "{\"kind\":\"phase\",\"job\":\"j\",\"bytes\":4096,\"elapsed_s\":2.0,\"ok\":true,"
			    "\"delta\":-3,\"lat_ns\":{\"count\":2,\"min\":10,\"max\":20,\"mean\":15.0,"
			    "\"stddev\":5.0,\"percentiles\":{\"50\":10,\"99.9\":20}}}\n"
			    "],\n"
			    "\"notes\":[\"n1\"],\n"
			    "\"status\":\"ok\",\"interrupted\":false}\n");
	memsink_free(&m);
}

static void test_json_close_without_end_run(void **state)
{
	struct memsink m = {0};
	render(output("json"), &m, records, 1, NULL);
	static const char *const checks[] = {
		"len(d['records']) == 1 and d['records'][0]['job'] == 'seq,1'",
		"d['status'] == 'error' and d['error'] == 'run ended without a result'",
		"d['interrupted'] is False and d['notes'] == [] and d['tool'] == 'iobench'",
	};
	check_json(&m, checks, NFIELDS(checks));
	memsink_free(&m);
}

static void test_json_close_right_after_open(void **state)
{
	const struct iob_output_ops *ops = output("json");
	struct memsink m = {0};
	struct iob_sink sink = sink_of(&m);
	void *st = NULL;
	assert_int_equal(ops->open(&sink, NULL, &st), 0);
	assert_int_equal(ops->close(st), 0);
	static const char *const checks[] = {
		"d['tool'] is None and d['records'] == []",
		"d['status'] == 'error' and d['error'] == 'run ended without a result'",
	};
	check_json(&m, checks, NFIELDS(checks));
	memsink_free(&m);
}

/* Defensive paths: inf and nan become 0.0, invalid UTF-8 becomes U+FFFD, DEL
 * is escaped, and doubles round-trip through their shortest form. */
static void test_json_nonfinite_and_bad_utf8(void **state)
{
	static const struct iob_field fields[] = {
		{.key = "inf", .type = IOB_T_F64, .v.f = INFINITY},
		{.key = "nan", .type = IOB_T_F64, .v.f = NAN},
		{.key = "big", .type = IOB_T_F64, .v.f = 1e300},
		{.key = "tiny", .type = IOB_T_F64, .v.f = 5e-324},
		{.key = "third", .type = IOB_T_F64, .v.f = 1.0 / 3.0},
		{.key = "max_u64", .type = IOB_T_U64, .v.u = UINT64_MAX},
		{.key = "min_i64", .type = IOB_T_I64, .v.i = INT64_MIN},
		{.key = "bad", .type = IOB_T_STR, .v.s = "a\xff" "b\xc3(\xed\xa0\x80\xc0\xaf\x7f" "c"},
		{.key = "cut", .type = IOB_T_STR, .v.s = "x\xe6\xbc"},
	};
	static const struct iob_record rec = {.kind = "k\"ind", .nfields = NFIELDS(fields), .fields = fields};
	struct memsink m = {0};
	render(output("json"), &m, &rec, 1, &end_ok);
	assert_non_null(strstr(memsink_text(&m), "\"inf\":0.0,\"nan\":0.0,\"big\":1e+300,"));
	assert_non_null(strstr(memsink_text(&m), "\"third\":0.3333333333333333,"));
	static const char *const checks[] = {
		"d['records'][0]['kind'] == 'k\"ind'",
		"d['records'][0]['inf'] == 0.0 and d['records'][0]['nan'] == 0.0",
		"d['records'][0]['big'] == 1e300 and d['records'][0]['tiny'] == 5e-324",
		"d['records'][0]['third'] == 1.0 / 3.0",
		"d['records'][0]['max_u64'] == 2**64 - 1 and d['records'][0]['min_i64'] == -2**63",
		"d['records'][0]['bad'] == 'a\\ufffdb\\ufffd(\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\x7fc'",
		"d['records'][0]['cut'] == 'x\\ufffd\\ufffd'",
	};
	check_json(&m, checks, NFIELDS(checks));
	memsink_free(&m);
}

/* ------------------------------------------------------------------------ */
/* CSV, byte for byte.                                                       */

#define CSV_PHASE_HEADER                                                                               \
	"job,phase,backend,file,block_size_bytes,bytes,ops,elapsed_s,bw_bytes_per_s,ops_per_s,"        \
	"lat_ns_count,lat_ns_min,lat_ns_max,lat_ns_mean,lat_ns_stddev,"                                \
	"lat_ns_p50,lat_ns_p90,lat_ns_p99,lat_ns_p99_9,lat_ns_p99_99,direct,status\n"
#define CSV_PHASE_ROW1                                                                                 \
	"\"seq,1\",write,posix,\"/tmp/iobench \"\"q\"\" test/seq.dat\","                               \
	"4096,1073741824,262144,2.5,429496729.6,104857.6,"                                             \
	"1000,500,50000,1500.25,812.5,1000,2000,5000,12000,40000,false,0\n"

static void test_csv_exact(void **state)
{
	struct memsink m = {0};
	render(output("csv"), &m, records, NFIELDS(records), &end_error);
	assert_string_equal(memsink_text(&m),
			    CSV_PHASE_HEADER CSV_PHASE_ROW1
			    "\"line1\nline2\",read,back\\slash," FILE2_CSV ",1048576,1048576,1,1,1048576,1,"
			    "1,777,777,777,0,777,777,777,777,777,true,-5\n" CSV_PHASE_ROW1);
	memsink_free(&m);
}

static void test_csv_empty_run_writes_nothing(void **state)
{
	struct memsink m = {0};
	render(output("csv"), &m, NULL, 0, &end_error);
	assert_int_equal(m.len, 0);
	assert_int_equal(m.calls, 0);
	memsink_free(&m);
}

/* The header and each row is one write: 1 header + 3 phase rows (the
 * summary and other records are not phase rows: left out of a sink that is
 * not a regular file). */
static void test_csv_one_write_per_row(void **state)
{
	struct memsink m = {0};
	render(output("csv"), &m, records, NFIELDS(records), &end_ok);
	assert_int_equal(m.calls, 4);
	memsink_free(&m);
}

static void test_csv_keys_needing_quotes(void **state)
{
	static const struct iob_field fields[] = {
		{.key = "a,b", .type = IOB_T_U64, .v.u = 1},
		{.key = "say \"hi\"", .type = IOB_T_STR, .v.s = "\r"},
		{.key = "plain", .type = IOB_T_STR, .v.s = ""},
	};
	static const struct iob_record rec = {.kind = "phase", .nfields = NFIELDS(fields), .fields = fields};
	struct memsink m = {0};
	render(output("csv"), &m, &rec, 1, &end_ok);
	assert_string_equal(memsink_text(&m), "\"a,b\",\"say \"\"hi\"\"\",plain\n1,\"\r\",\n");
	memsink_free(&m);
}

/* ------------------------------------------------------------------------ */
/* SVG: the document's frame and its failures (tests/svg draws real runs).   */

static void assert_svg_document(const struct memsink *m)
{
	const char *t = memsink_text(m);
	assert_int_equal(strncmp(t, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 44), 0);
	assert_true(m->len > 7 && strcmp(t + m->len - 7, "</svg>\n") == 0);
	assert_int_equal(m->calls, 1); /* the whole picture in one write, at the end */
}

/* The phases' latency curves, the labels escaped (the job holds a newline,
 * the file control bytes), the error in the picture. */
static void test_svg_latency_and_escaping(void **state)
{
	static const struct iob_field f[] = {
		{.key = "job", .type = IOB_T_STR, .v.s = "a<b>&\"c\"\xff"},
		{.key = "phase", .type = IOB_T_STR, .v.s = "read"},
		{.key = "block_size_bytes", .type = IOB_T_U64, .v.u = 4096},
		{.key = "lat_ns", .type = IOB_T_LAT, .v.lat = &lat1},
	};
	static const struct iob_record recs[] = {
		{.kind = "phase", .nfields = NFIELDS(phase1), .fields = phase1},
		{.kind = "phase", .nfields = NFIELDS(f), .fields = f},
	};
	struct memsink m = {0};
	render(output("svg"), &m, recs, NFIELDS(recs), &end_error);
	assert_svg_document(&m);
	const char *t = memsink_text(&m);
	/* a panel per job, its title naming the job, the legend the phase */
	assert_non_null(strstr(t, ">Latency percentiles: job a&lt;b&gt;&amp;&quot;c&quot;\xef\xbf\xbd</text>"));
	assert_non_null(strstr(t, ">Latency percentiles: job seq,1</text>"));
	assert_non_null(strstr(t, ">read 4 KiB</text>"));
	assert_non_null(strstr(t, ">write 4 KiB</text>"));
	assert_non_null(strstr(t, "(interrupted) error: write /tmp/x: No space left on device"));
	assert_null(strstr(t, "\xff"));
	size_t curves = 0;
	for (const char *p = strstr(t, "class=\"latency\""); p; p = strstr(p + 1, "class=\"latency\""))
		curves++;
	assert_int_equal(curves, 2);
	memsink_free(&m);
}

/* Any bytes in a name: the picture is well-formed XML 1.0 (python's
 * strict parser, and xmllint where installed), with U+FFFD in place of
 * what XML forbids. */
static void test_svg_hostile_bytes_well_formed(void **state)
{
	static const struct iob_record recs[] = {
		{.kind = "phase", .nfields = NFIELDS(hostile_phase), .fields = hostile_phase},
	};
	struct iob_run_end end = end_error;
	end.error = "bad \x01\xc2\x85\xef\xbf\xbf\xf4\x90\x80\x80 end";
	struct memsink m = {0};
	render(output("svg"), &m, recs, NFIELDS(recs), &end);
	assert_svg_document(&m);
	const char *t = memsink_text(&m);
	assert_null(strstr(t, "\xed\xa0\x80"));
	assert_null(strstr(t, "\xef\xbf\xbe"));
	assert_null(strstr(t, "\xc0\xaf"));
	assert_null(strstr(t, "\xc2\x9b"));
	assert_non_null(strstr(t, "job a\xef\xbf\xbd" "1m\xef\xbf\xbd[31mred"));
	if (IOB_TEST_PYTHON3[0] == '\0')
		skip();
	char dir[] = "/tmp/iob-test-svg-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char doc[64], cmd[512];
	snprintf(doc, sizeof doc, "%s/h.svg", dir);
	FILE *f = fopen(doc, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(t, 1, m.len, f), m.len);
	assert_int_equal(fclose(f), 0);
	snprintf(cmd, sizeof cmd,
		 "'%s' -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' '%s'", IOB_TEST_PYTHON3, doc);
	assert_int_equal(system(cmd), 0);
	if (system("command -v xmllint >/dev/null 2>&1") == 0) {
		snprintf(cmd, sizeof cmd, "xmllint --noout '%s'", doc);
		assert_int_equal(system(cmd), 0);
	}
	unlink(doc);
	rmdir(dir);
	memsink_free(&m);
}

/* 25 phases of one job, one phase, 25 block sizes: two panels (18 and 7
 * curves), "(1 of 2)" and "(2 of 2)", every curve named, no "more". */
static void test_svg_many_series_all_named(void **state)
{
	enum { N = 25 };
	static struct iob_field f[N][4];
	static struct iob_record recs[N];
	for (size_t i = 0; i < N; i++) {
		f[i][0] = (struct iob_field){.key = "job", .type = IOB_T_STR, .v.s = "many"};
		f[i][1] = (struct iob_field){.key = "phase", .type = IOB_T_STR, .v.s = "read"};
		f[i][2] = (struct iob_field){.key = "block_size_bytes", .type = IOB_T_U64, .v.u = 512 * (i + 1)};
		f[i][3] = (struct iob_field){.key = "lat_ns", .type = IOB_T_LAT, .v.lat = &lat1};
		recs[i] = (struct iob_record){.kind = "phase", .nfields = 4, .fields = f[i]};
	}
	struct memsink m = {0};
	render(output("svg"), &m, recs, N, &end_ok);
	assert_svg_document(&m);
	const char *t = memsink_text(&m);
	assert_non_null(strstr(t, ">Latency percentiles: job many, read (1 of 2)</text>"));
	assert_non_null(strstr(t, ">Latency percentiles: job many, read (2 of 2)</text>"));
	assert_null(strstr(t, "more, not named"));
	static const char *const names[] = {">read 512 B</text>", ">read 1 KiB</text>", ">read 8.5 KiB</text>",
					    ">read 9 KiB</text>", ">read 12.5 KiB</text>"};
	for (size_t i = 0; i < NFIELDS(names); i++)
		assert_non_null(strstr(t, names[i]));
	size_t legends = 0;
	for (const char *p = strstr(t, "class=\"legend\""); p; p = strstr(p + 1, "class=\"legend\""))
		legends++;
	assert_int_equal(legends, N);
	memsink_free(&m);
}

/* An empty run and a run closed without its end still leave a whole
 * document (checked by whole), saying so (empty, and the unended line). */
static void check_empty_and_unended(const char *name, void (*whole)(const struct memsink *), const char *empty)
{
	struct memsink m = {0};
	render(output(name), &m, NULL, 0, &end_ok);
	whole(&m);
	assert_non_null(strstr(memsink_text(&m), empty));
	memsink_free(&m);
	render(output(name), &m, records, 1, NULL);
	whole(&m);
	assert_non_null(strstr(memsink_text(&m), "run ended without a result"));
	memsink_free(&m);
}

static void test_svg_empty_and_unended(void **state)
{
	check_empty_and_unended("svg", assert_svg_document, "no latency was recorded");
}

/* The failed write is returned, from end_run and later calls (a record
 * after the end is refused); arguments are refused. */
static void check_sink_fails_and_args(const char *name)
{
	const struct iob_output_ops *ops = output(name);
	struct memsink m = {.fail_at = 1, .fail_rc = -ENOSPC};
	struct iob_sink sink = sink_of(&m);
	void *st = NULL;
	assert_int_equal(ops->open(&sink, "x", &st), -EINVAL);
	assert_int_equal(ops->open(&sink, NULL, &st), 0);
	assert_int_equal(ops->begin_run(st, &run_info), 0);
	assert_int_equal(ops->record(st, &records[0]), 0);
	assert_int_equal(ops->end_run(st, &end_ok), -ENOSPC);
	assert_int_equal(ops->record(st, &records[0]), -EINVAL); /* after the end */
	assert_int_equal(ops->close(st), 0);
	assert_int_equal(m.calls, 1);
	memsink_free(&m);
}

static void test_svg_sink_fails_and_args(void **state)
{
	check_sink_fails_and_args("svg");
}

/* ------------------------------------------------------------------------ */
/* Html.                                                                     */

/* A whole page: the doctype first, </html> last, one script (its own). */
static void assert_html_page(const struct memsink *m)
{
	const char *t = memsink_text(m);
	assert_true(strncmp(t, "<!DOCTYPE html>\n", 16) == 0);
	assert_true(m->len > 8 && strcmp(t + m->len - 8, "</html>\n") == 0);
	const char *s = strstr(t, "<script");
	assert_non_null(s);
	assert_null(strstr(s + 1, "<script"));
}

/* The notes come first, before the facts, and the error is shown. */
static void test_html_notes_first_and_error(void **state)
{
	struct memsink m = {0};
	render(output("html"), &m, records, NFIELDS(records), &end_error);
	assert_html_page(&m);
	const char *t = memsink_text(&m), *n = strstr(t, NOTE1), *f = strstr(t, "id=\"facts\"");
	assert_non_null(n);
	assert_non_null(f);
	assert_true(n < f);
	assert_non_null(strstr(t, "id=\"error\""));
	assert_non_null(strstr(t, "node1"));
	memsink_free(&m);
}

static void test_html_empty_and_unended(void **state)
{
	check_empty_and_unended("html", assert_html_page, "No phase was recorded.");
}

static void test_html_sink_fails_and_args(void **state)
{
	check_sink_fails_and_args("html");
}

/* ------------------------------------------------------------------------ */
/* Human.                                                                    */

static void assert_contains(const char *text, const char *needle)
{
	if (!strstr(text, needle))
		fail_msg("expected \"%s\" in:\n%s", needle, text);
}

/* human:wide: every field, in a row, a latency line or a key=value line. */
static void test_human_units_and_end_lines(void **state)
{
	struct memsink m = {0};
	render_args(output("human"), "wide", &m, records, NFIELDS(records), &end_error);
	const char *t = memsink_text(&m);
	assert_contains(t, "iobench 0.1.0 on node1, started 2024-05-01T10:00:00+02:00\n");
	assert_contains(t, "source: profiles/seq.ini\n");
	assert_contains(t, "\n[phase]\n");
	assert_contains(t, "\n[summary]\n");
	assert_contains(t, "\n[other]\n");
	/* labels lose the unit suffix their values now show */
	assert_contains(t, "block_size");
	assert_null(strstr(t, "block_size_bytes"));
	assert_contains(t, " bw ");
	assert_contains(t, "ops/s");
	/* units, exact binary multiples */
	assert_contains(t, "4.00 KiB");
	assert_contains(t, "1.00 GiB");
	assert_contains(t, "409.6 MiB/s"); /* 429496729.6 B/s */
	assert_contains(t, "1.00 MiB/s");  /* 1048576 B/s */
	assert_contains(t, "1.00 MiB ");
	assert_contains(t, "2.00 GiB");
	assert_contains(t, "0 B");
	assert_contains(t, "2.500 s");
	assert_contains(t, "1.000 s");
	assert_contains(t, "104.9k");
	/* latency line: mean, p50, p99, p99.9, max */
	assert_contains(t, "  lat  mean   1.50 us  p50   1.00 us  p99   5.00 us"
			   "  p99.9  12.00 us  max  50.00 us\n");
	assert_contains(t, "mean    777 ns");
	assert_contains(t, "  tail  (no samples)\n");
	/* the rest as key=value; control characters shown as \xNN */
	assert_contains(t, "  file=" FILE1 "  ops=262144  direct=no  status=0\n");
	assert_contains(t, "  file=ctl\\x01\\x1f tab\\x09 \xc3\xa9 \xc3\xbc \xe6\xbc\xa2 \xf0\x9f\x98\x80"
			   "  ops=1  direct=yes  status=-5\n");
	assert_contains(t, "line1\\x0aline2");
	/* end of run */
	assert_contains(t, "\nnote: " NOTE1 "\nnote: " NOTE2 "\nerror: " ERROR_MSG "\n(interrupted)\n");
	/* nothing but text and newlines, no line wider than 100 columns */
	size_t col = 0;
	for (const unsigned char *p = (const unsigned char *)t; *p; p++) {
		if (*p == '\n') {
			col = 0;
			continue;
		}
		assert_true(*p >= 0x20 && *p != 0x7f);
		if ((*p & 0xc0u) != 0x80u)
			col++;
		assert_in_range(col, 0, 100);
	}
	memsink_free(&m);
}

/* Rows of one block line up: every row ends its bandwidth column at the same
 * place as the header's "bw". */
static void test_human_rows_align(void **state)
{
	struct memsink m = {0};
	render(output("human"), &m, records, 2, &end_ok);
	const char *t = memsink_text(&m);
	const char *hdr = strstr(t, "[phase]\n");
	assert_non_null(hdr);
	hdr += strlen("[phase]\n");
	const char *row1 = strchr(hdr, '\n') + 1;
	const char *bw = strstr(hdr, " bw ");
	const char *r1 = strstr(row1, "MiB/s");
	assert_non_null(bw);
	assert_non_null(r1);
	assert_int_equal((bw + 3) - hdr, (r1 + 5) - row1);
	/* an ok run with no notes ends with the last record */
	assert_null(strstr(t, "error:"));
	assert_null(strstr(t, "note:"));
	assert_int_equal(t[m.len - 1], '\n');
	assert_int_not_equal(t[m.len - 2], '\n');
	memsink_free(&m);
}

/* The default (narrow) table: one row per phase record, of job, phase, bs,
 * bw, ops/s, p50, p99 and status, within 100 columns; a long job name cut
 * in the middle; no latency or key=value line. */
static void test_human_narrow_table(void **state)
{
	static const struct iob_field longjob[] = PHASE_FIELDS(
		"a-job-name-that-is-far-longer-than-its-column-ends-in-x", "write", "posix", FILE1, 4096, 1073741824,
		262144, 2.5, 429496729.6, 104857.6, &lat1, 0, 0);
	static const struct iob_record recs[] = {
		{.kind = "phase", .nfields = NFIELDS(phase1), .fields = phase1},
		{.kind = "phase", .nfields = NFIELDS(phase2), .fields = phase2},
		{.kind = "phase", .nfields = NFIELDS(longjob), .fields = longjob},
	};
	struct memsink m = {0};
	render(output("human"), &m, recs, NFIELDS(recs), &end_ok);
	const char *t = memsink_text(&m);
	assert_contains(t, "\n[phase]\njob               phase          bs           bw   ops/s       p50"
			   "       p99       status\n");
	/* the first row: p50 1000 ns and p99 5000 ns of lat1 */
	assert_contains(t, "\nseq,1             write    4.00 KiB  409.6 MiB/s  104.9k   1.00 us   5.00 us"
			   "            0\n");
	assert_contains(t, "\nline1\\x0aline2    read     1.00 MiB   1.00 MiB/s    1.00    777 ns    777 ns"
			   "           -5\n");
	/* cut to the column's 16, its start and its end kept */
	assert_contains(t, "\na-job-na~ds-in-x  write    4.00 KiB");
	assert_null(strstr(t, "file="));
	assert_null(strstr(t, "  lat  "));
	assert_null(strstr(t, "backend"));
	assert_lines_within(t, 100);
	memsink_free(&m);
}

/* Column labels are unique in a block: two keys whose unit suffix would
 * leave one label (first_done_bytes, first_done_s; interval, interval_s)
 * keep their whole key. */
static void test_human_labels_unique(void **state)
{
	static const struct iob_field f[] = {
		{.key = "group", .type = IOB_T_U64, .v.u = 1},
		{.key = "first_done_bw_bytes_per_s", .type = IOB_T_F64, .unit = IOB_UNIT_BYTES_PER_S, .v.f = 1048576},
		{.key = "first_done_bytes", .type = IOB_T_U64, .unit = IOB_UNIT_BYTES, .v.u = 4096},
		{.key = "first_done_s", .type = IOB_T_F64, .unit = IOB_UNIT_S, .v.f = 1.5},
		{.key = "interval", .type = IOB_T_U64, .unit = IOB_UNIT_COUNT, .v.u = 3},
		{.key = "interval_s", .type = IOB_T_F64, .unit = IOB_UNIT_S, .v.f = 0.5},
		{.key = "bytes", .type = IOB_T_U64, .unit = IOB_UNIT_BYTES, .v.u = 4096},
	};
	static const struct iob_record rec = {.kind = "group", .nfields = NFIELDS(f), .fields = f};
	struct memsink m = {0};
	render_args(output("human"), "wide", &m, &rec, 1, &end_ok);
	const char *t = memsink_text(&m);
	const char *hdr = strstr(t, "[group]\n");
	assert_non_null(hdr);
	hdr += strlen("[group]\n");
	char line[512];
	size_t n = (size_t)(strchr(hdr, '\n') - hdr);
	assert_true(n < sizeof line);
	memcpy(line, hdr, n);
	line[n] = '\0';
	assert_contains(line, "first_done_bw ");
	assert_contains(line, " first_done_bytes ");
	assert_contains(line, " first_done_s ");
	assert_contains(line, " interval_s ");
	assert_contains(t, "  group=1  interval=3\n");
	/* every label once, in the header and on the key=value line */
	char *words[32], *save = NULL;
	size_t nw = 0;
	for (char *w = strtok_r(line, " ", &save); w && nw < 32; w = strtok_r(NULL, " ", &save))
		words[nw++] = w;
	words[nw++] = "group";
	words[nw++] = "interval";
	for (size_t i = 0; i < nw; i++)
		for (size_t j = i + 1; j < nw; j++)
			if (strcmp(words[i], words[j]) == 0)
				fail_msg("label %s twice in the [group] block:\n%s", words[i], t);
	memsink_free(&m);
}

/* Control characters (C1 included) and invalid UTF-8 never reach the
 * terminal raw, in the narrow and the wide table: each byte shown as \xNN. */
static void test_human_escapes_controls(void **state)
{
	static const struct iob_record rec = {.kind = "phase", .nfields = NFIELDS(hostile_phase),
					      .fields = hostile_phase};
	static const char *const hnotes[] = {"note about " HOSTILE};
	struct iob_run_end end = end_error;
	end.error = HOSTILE;
	end.notes = hnotes;
	end.nnotes = 1;
	static const char *const modes[] = {NULL, "wide"};
	for (size_t k = 0; k < NFIELDS(modes); k++) {
		struct memsink m = {0};
		render_args(output("human"), modes[k], &m, &rec, 1, &end);
		const char *t = memsink_text(&m);
		long bad = first_unsafe_byte(t, m.len);
		if (bad >= 0)
			fail_msg("%s: unsafe byte 0x%02x at %ld in:\n%s", modes[k] ? modes[k] : "narrow",
				 (unsigned char)t[bad], bad, t);
		assert_contains(t, "\nnote: note about " HOSTILE_SHOWN "\n");
		assert_contains(t, "\nerror: " HOSTILE_SHOWN "\n");
		if (modes[k])
			assert_contains(t, "  file=/tmp/" HOSTILE_SHOWN "/f.dat");
		else
			assert_contains(t, "\na\\xc2\\x9b1m~\\x85\\x7fz     read"); /* cut, escapes whole */
		memsink_free(&m);
	}
}

static void test_human_error_without_message(void **state)
{
	struct iob_run_end end = end_ok;
	end.status = -EIO;
	struct memsink m = {0};
	render(output("human"), &m, NULL, 0, &end);
	assert_contains(memsink_text(&m), "\nerror: run failed (status -5)\n");
	assert_null(strstr(memsink_text(&m), "(interrupted)"));
	memsink_free(&m);
}

/* ------------------------------------------------------------------------ */
/* Every output: sink failures and bad arguments.                            */

static const char *const all_outputs[] = {"human", "csv", "json"};

/* The first write fails: the call that made it returns the sink's error, and
 * so does every later call, without writing again. */
static void test_sink_fails_at_once(void **state)
{
	for (size_t i = 0; i < NFIELDS(all_outputs); i++) {
		const struct iob_output_ops *ops = output(all_outputs[i]);
		struct memsink m = {.fail_at = 1, .fail_rc = -ENOSPC};
		struct iob_sink sink = sink_of(&m);
		void *st = NULL;
		assert_int_equal(ops->open(&sink, NULL, &st), 0);
		int rc = ops->begin_run(st, &run_info);
		if (strcmp(all_outputs[i], "csv") == 0)
			assert_int_equal(rc, 0); /* csv writes nothing before the first record */
		else
			assert_int_equal(rc, -ENOSPC);
		assert_int_equal(ops->record(st, &records[0]), -ENOSPC);
		assert_int_equal(ops->record(st, &records[1]), -ENOSPC);
		assert_int_equal(ops->end_run(st, &end_error), -ENOSPC);
		assert_int_equal(m.calls, 1);
		assert_int_equal(ops->close(st), 0);
		assert_int_equal(m.calls, 1);
		assert_int_equal(m.len, 0);
		memsink_free(&m);
	}
}

/* The third write fails mid-run. */
static void test_sink_fails_midway(void **state)
{
	for (size_t i = 0; i < NFIELDS(all_outputs); i++) {
		const struct iob_output_ops *ops = output(all_outputs[i]);
		struct memsink m = {.fail_at = 3, .fail_rc = -EIO};
		struct iob_sink sink = sink_of(&m);
		void *st = NULL;
		int rc = 0;
		assert_int_equal(ops->open(&sink, NULL, &st), 0);
		assert_int_equal(ops->begin_run(st, &run_info), 0);
		for (size_t r = 0; r < NFIELDS(records) && rc == 0; r++)
			rc = ops->record(st, &records[r]);
		assert_int_equal(rc, -EIO);
		int calls = m.calls;
		assert_int_equal(ops->record(st, &records[0]), -EIO);
		assert_int_equal(ops->end_run(st, &end_ok), -EIO);
		assert_int_equal(ops->close(st), 0);
		assert_int_equal(m.calls, calls);
		memsink_free(&m);
	}
}

/* json: a failed write in close() (the document's tail) is reported. */
static void test_json_close_reports_write_error(void **state)
{
	const struct iob_output_ops *ops = output("json");
	struct memsink m = {.fail_at = 2, .fail_rc = -EPIPE};
	struct iob_sink sink = sink_of(&m);
	void *st = NULL;
	assert_int_equal(ops->open(&sink, NULL, &st), 0);
	assert_int_equal(ops->begin_run(st, &run_info), 0);
	assert_int_equal(ops->close(st), -EPIPE);
	memsink_free(&m);
}

static void test_outputs_refuse_arguments(void **state)
{
	for (size_t i = 0; i < NFIELDS(all_outputs); i++) {
		const struct iob_output_ops *ops = output(all_outputs[i]);
		struct memsink m = {0};
		struct iob_sink sink = sink_of(&m);
		void *st = NULL;
		assert_int_equal(ops->open(&sink, "pretty", &st), -EINVAL);
		assert_int_equal(ops->open(&sink, "", &st), 0);
		assert_int_equal(ops->close(st), 0);
		memsink_free(&m);
	}
}

/* A field of a type from a later ABI (99 here) is skipped, key and all: the
 * output is byte for byte what the same records give without it, wherever it
 * sits (first, middle, last), and the json stays a valid document. */
#define FUTURE_FIELD {.key = "future", .type = 99, .unit = IOB_UNIT_BYTES, .v.u = 7}
static void test_outputs_skip_unknown_field_types(void **state)
{
	static const struct iob_field plain[] = {
		{.key = "job", .type = IOB_T_STR, .v.s = "j"},
		{.key = "bytes", .type = IOB_T_U64, .unit = IOB_UNIT_BYTES, .v.u = 4096},
		{.key = "lat_ns", .type = IOB_T_LAT, .unit = IOB_UNIT_NS, .v.lat = &lat1},
		{.key = "ok", .type = IOB_T_BOOL, .v.b = 1},
	};
	static const struct iob_field with_future[] = {
		FUTURE_FIELD,
		{.key = "job", .type = IOB_T_STR, .v.s = "j"},
		{.key = "bytes", .type = IOB_T_U64, .unit = IOB_UNIT_BYTES, .v.u = 4096},
		FUTURE_FIELD,
		{.key = "lat_ns", .type = IOB_T_LAT, .unit = IOB_UNIT_NS, .v.lat = &lat1},
		{.key = "ok", .type = IOB_T_BOOL, .v.b = 1},
		FUTURE_FIELD,
	};
	static const struct iob_record plain_recs[] = {
		{.kind = "phase", .nfields = NFIELDS(plain), .fields = plain},
		{.kind = "phase", .nfields = NFIELDS(plain), .fields = plain},
	};
	static const struct iob_record future_recs[] = {
		{.kind = "phase", .nfields = NFIELDS(with_future), .fields = with_future},
		{.kind = "phase", .nfields = NFIELDS(with_future), .fields = with_future},
	};
	for (size_t i = 0; i < NFIELDS(all_outputs); i++) {
		struct memsink want = {0}, got = {0};
		render(output(all_outputs[i]), &want, plain_recs, NFIELDS(plain_recs), &end_ok);
		render(output(all_outputs[i]), &got, future_recs, NFIELDS(future_recs), &end_ok);
		assert_true(want.len > 0);
		assert_null(strstr(memsink_text(&got), "future"));
		assert_string_equal(memsink_text(&got), memsink_text(&want));
		if (strcmp(all_outputs[i], "json") == 0) {
			static const char *const checks[] = {
				"[list(r.keys()) for r in d['records']] == [['kind','job','bytes','lat_ns','ok']] * 2",
			};
			check_json(&got, checks, NFIELDS(checks));
		}
		memsink_free(&want);
		memsink_free(&got);
	}
}

/* Calls out of order are refused, not rendered. */
static void test_outputs_refuse_calls_out_of_order(void **state)
{
	for (size_t i = 0; i < NFIELDS(all_outputs); i++) {
		const struct iob_output_ops *ops = output(all_outputs[i]);
		struct memsink m = {0};
		struct iob_sink sink = sink_of(&m);
		void *st = NULL;
		assert_int_equal(ops->open(&sink, NULL, &st), 0);
		assert_int_equal(ops->record(st, &records[0]), -EINVAL);
		assert_int_equal(ops->end_run(st, &end_ok), -EINVAL);
		assert_int_equal(ops->begin_run(st, &run_info), 0);
		assert_int_equal(ops->begin_run(st, &run_info), -EINVAL);
		assert_int_equal(ops->end_run(st, &end_ok), 0);
		assert_int_equal(ops->record(st, &records[0]), -EINVAL);
		assert_int_equal(ops->end_run(st, &end_ok), -EINVAL);
		assert_int_equal(ops->close(st), 0);
		memsink_free(&m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_full_run_with_error),
		cmocka_unit_test(test_json_ok_run_has_no_error_member),
		cmocka_unit_test(test_json_escapes_c1_and_invalid),
		cmocka_unit_test(test_csv_cells_clean),
		cmocka_unit_test(test_json_exact_shape),
		cmocka_unit_test(test_json_close_without_end_run),
		cmocka_unit_test(test_json_close_right_after_open),
		cmocka_unit_test(test_json_nonfinite_and_bad_utf8),
		cmocka_unit_test(test_json_close_reports_write_error),
		cmocka_unit_test(test_svg_latency_and_escaping),
		cmocka_unit_test(test_svg_empty_and_unended),
		cmocka_unit_test(test_svg_hostile_bytes_well_formed),
		cmocka_unit_test(test_svg_many_series_all_named),
		cmocka_unit_test(test_svg_sink_fails_and_args),
		cmocka_unit_test(test_html_notes_first_and_error),
		cmocka_unit_test(test_html_empty_and_unended),
		cmocka_unit_test(test_html_sink_fails_and_args),
		cmocka_unit_test(test_csv_exact),
		cmocka_unit_test(test_csv_empty_run_writes_nothing),
		cmocka_unit_test(test_csv_one_write_per_row),
		cmocka_unit_test(test_csv_keys_needing_quotes),
		cmocka_unit_test(test_human_units_and_end_lines),
		cmocka_unit_test(test_human_rows_align),
		cmocka_unit_test(test_human_error_without_message),
		cmocka_unit_test(test_human_narrow_table),
		cmocka_unit_test(test_human_labels_unique),
		cmocka_unit_test(test_human_escapes_controls),
		cmocka_unit_test(test_sink_fails_at_once),
		cmocka_unit_test(test_sink_fails_midway),
		cmocka_unit_test(test_outputs_refuse_arguments),
		cmocka_unit_test(test_outputs_refuse_calls_out_of_order),
		cmocka_unit_test(test_outputs_skip_unknown_field_types),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
