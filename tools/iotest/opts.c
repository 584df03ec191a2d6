/*
 * opts.c - iotest's command line (iotest.h).  The legacy letters keep their
 * man-page meanings; the letters the legacy synopsis lists without ever
 * explaining them are refused (except -H, help); the legacy spellings of -d,
 * a lone "-" and --drop_caches, are accepted.  Nothing here touches a
 * file: every value is checked so a run can refuse before creating anything.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/cli.h"
#include "iobench/units.h"
#include "iotest.h"
#include "tool.h"

enum {
	OPT_SEED = 256,
	OPT_BACKEND,
	OPT_FORMAT,
	OPT_PLUGIN_DIR,
	OPT_DUMP_PROFILE,
	OPT_ALLOW_DEVICE,
	OPT_BACKEND_OPTIONS,
	OPT_THREADS,
	OPT_IODEPTH,
	OPT_PROGRESS,
};

/* Letters of the legacy synopsis: H R T P: I: O: S: B: Z: have no documented
 * meaning; they are listed so they can be refused by name. */
static const char short_opts[] = ":hHCvVdDyYraRnwWetTp:P:i:I:o:O:s:S:b:B:c:z:Z:";

static const struct option long_opts[] = {
	{"read", no_argument, NULL, 'r'},
	{"write", no_argument, NULL, 'w'},
	{"no-sync", no_argument, NULL, 'n'},
	{"verify", no_argument, NULL, 'e'},
	{"all", no_argument, NULL, 'a'},
	{"truncate", no_argument, NULL, 't'},
	{"size-mb", required_argument, NULL, 's'},
	{"block-size", required_argument, NULL, 'b'},
	{"pattern", required_argument, NULL, 'p'},
	{"input", required_argument, NULL, 'i'},
	{"output", required_argument, NULL, 'o'},
	{"snooze", required_argument, NULL, 'z'},
	{"comment", required_argument, NULL, 'c'},
	{"curt", no_argument, NULL, 'C'},
	{"verbose", no_argument, NULL, 'v'},
	{"version", no_argument, NULL, 'V'},
	{"help", no_argument, NULL, 'h'},
	{"drop_caches", no_argument, NULL, 'd'},
	{"drop-caches", no_argument, NULL, 'd'},
	{"sudo-drop-caches", no_argument, NULL, 'D'},
	{"sync", no_argument, NULL, 'y'},
	{"sudo-sync", no_argument, NULL, 'Y'},
	{"seed", required_argument, NULL, OPT_SEED},
	{"format", required_argument, NULL, OPT_FORMAT},
	{"allow-device", no_argument, NULL, OPT_ALLOW_DEVICE},
	{"threads", required_argument, NULL, OPT_THREADS},
	{"iodepth", required_argument, NULL, OPT_IODEPTH},
	IOBT_LONGOPTS(OPT_BACKEND, OPT_PLUGIN_DIR, OPT_BACKEND_OPTIONS, OPT_PROGRESS, OPT_DUMP_PROFILE),
	{NULL, 0, NULL, 0},
};

void iotest_usage(FILE *f)
{
	fprintf(f,
		"usage: iotest [options] [file]\n"
		"Write and/or read a file, timing the I/O (benchmark), or rewrite it in place (scrub).\n"
		"Sizes: mb = 2^20 bytes, kb = 2^10 bytes.\n"
		"\n"
		"  -w, --write          write (implied when neither -r nor -w is given)\n"
		"  -r, --read           read (after the writes when -w is also given)\n"
		"  -W, -n, --no-sync    write without fsync() before close\n"
		"  -e, --verify         read back and verify the last pattern written\n"
		"  -a, --all            read back and verify after every write pass\n"
		"  -t, --truncate       truncate the file on the first pass (default: rewrite in place)\n"
		"  -s, --size-mb MB     size in mb, a whole number >= 1 (default 128)\n"
		"  -b, --block-size KB  block size in kb: a divisor of 1024 or a multiple of 1024 (default 1);\n"
		"                       above 1024 the size is rounded up to whole blocks\n"
		"  -p, --pattern PATS   one pass per pattern: 0 zeros, 1 ones, 2 text (default), 3 random,\n"
		"                       4 complement of the previous, =c the character c, /hh the hex byte hh;\n"
		"                       e.g. -p 013/0f4 is five passes; repeated -p options add passes\n"
		"  -i, --input FILE     file read and verified (implies -r)\n"
		"  -o, --output FILE    file written (or give it as the argument)\n"
		"  -z, --snooze SECS    sleep after each write pass is closed\n"
		"  -c, --comment TEXT   print TEXT on a line of its own before the results\n"
		"  -C, --curt           curt result lines\n"
		"  -v, --verbose        also print the settings (with the random seed) and per-pass details\n"
		"  -d, -, --drop-caches, --drop_caches\n"
		"                       drop the page cache at the start and after each pass, printing\n"
		"                       MemFree before and after (GiB); without root only the file is evicted\n"
		"  -D                   the same, through 'sudo -n' when not root\n"
		"  -y, --sync           sync(2) after each write pass, counted in its time\n"
		"  -Y                   the same, through 'sudo -n sync' when not root\n"
		"  -V, --version        print the version and exit\n"
		"  -h, -H, -?, --help   print this help and exit\n"
		"\n"
		"iobench additions:\n"
		"  --seed N             seed of the random pattern (default %llu)\n"
		"  --backend NAME       backend plugin moving the bytes (default " IOB_DEFAULT_BACKEND ")\n"
		"  --format LIST        outputs, comma-separated NAME[:ARGS][=FILE]: iotest (the legacy\n"
		"                       lines, default), human, csv, json; e.g. --format iotest,json=run.json\n"
		"  --plugin-dir DIR     search DIR for plugins first (repeatable)\n"
		"  --allow-device       permit a block or character device as the file\n"
		"  --backend-options TEXT  k=v,... handed to the backend\n"
		"  --dump-profile       print the equivalent iobench profile and exit (creates nothing)\n"
		"  --threads N          N streams at once, each on its own file FILE.<i> (1 to 4096);\n"
		"                       each pass line gives their total and aggregate rate\n"
		"  --iodepth N          I/Os in flight per stream (1 to 65536); above 1 needs a\n"
		"                       backend that queues (--backend io_uring)\n"
		"  --progress=WHEN      a progress line on stderr while a pass runs: auto (when stderr\n"
		"                       is a terminal), always or never\n"
		"\n"
		"Exit status: 0 ok, 1 I/O failure, 2 bad input, 3 verify mismatch, 128+N stopped by signal N.\n"
		"See iotest(1).\n",
		IOTEST_DEFAULT_SEED);
}

int iotest_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return IOB_EXIT_USAGE;
}

/* A plain decimal whole number: digits only, no sign, no overflow. */
static int parse_whole(const char *text, uint64_t *out)
{
	uint64_t v = 0;
	if (!*text)
		return -EINVAL;
	for (const char *p = text; *p; p++) {
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* A whole number of units from 1 to max (-s, -b): each refusal is
 * "WHAT 'TEXT' " and the words for what is wrong. */
struct whole_units {
	const char *what, *unit;
	uint64_t max;
	const char *not_whole, *negative, *over; /* negative: NULL, as not_whole */
};

static const struct whole_units size_units = {"size", "mb", UINT64_MAX >> 21,
					      "is not a whole number of mb (e.g. -s 128)",
					      "is negative: give a whole number of mb, at least 1",
					      "mb is too large (over 2^43 mb)"};
static const struct whole_units block_units = {"block size", "kb", 2097152u,
					       "is not a whole number of kb (e.g. -b 1, -b 4, -b 1024)", NULL,
					       "kb is over the limit of 2097152 kb (2 GiB)"};

static int parse_units(const char *text, const struct whole_units *u, uint64_t *out, char *err, size_t errlen)
{
	uint64_t v = 0;
	int rc = parse_whole(text, &v);
	const char *wrong = NULL;
	if (rc == -EINVAL)
		wrong = text[0] == '-' && u->negative ? u->negative : u->not_whole;
	else if (rc == -ERANGE || v > u->max)
		wrong = u->over;
	if (wrong)
		return iotest_fail(err, errlen, "%s '%s' %s", u->what, IOB_Q(text), wrong);
	if (v == 0)
		return iotest_fail(err, errlen, "%s '%s' %s: give at least 1 %s", u->what, IOB_Q(text), u->unit, u->unit);
	*out = v;
	return 0;
}

static int parse_block(const char *text, struct iotest_opts *o, char *err, size_t errlen)
{
	uint64_t v = 0;
	int rc = parse_units(text, &block_units, &v, err, errlen);
	if (rc)
		return rc;
	if (1024 % v != 0 && v % 1024 != 0)
		return iotest_fail(err, errlen,
			    "block size '%s' kb is neither a divisor of 1024 (1, 2, 4 ... 512) nor a multiple of "
			    "1024 (1024, 2048, 3072 ...)",
			    IOB_Q(text));
	o->block_kb = v;
	return 0;
}

/* --threads, --iodepth: a whole number from 1 to max. */
static int parse_count(const char *opt, const char *text, uint32_t max, uint32_t *out, char *err, size_t errlen)
{
	uint64_t v;
	if (parse_whole(text, &v) != 0 || v < 1 || v > max)
		return iotest_fail(err, errlen, "%s '%s' is not a whole number from 1 to %u", opt, IOB_Q(text), max);
	*out = (uint32_t)v;
	return 0;
}

static int parse_snooze(const char *text, struct iotest_opts *o, char *err, size_t errlen)
{
	char *end = NULL;
	errno = 0;
	double v = strtod(text, &end);
	if (!*text || end == text || *end || errno || !isfinite(v) || v < 0 || v > IOTEST_MAX_SNOOZE_S ||
	    !(isdigit((unsigned char)text[0]) || text[0] == '.'))
		return iotest_fail(err, errlen, "snooze '%s' is not a number of seconds from 0 to 86400", IOB_Q(text));
	o->snooze_s = v;
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int iotest_parse_patterns(const char *text, struct iotest_opts *o, char *err, size_t errlen)
{
	if (!*text) {
		snprintf(err, errlen, "empty pattern: use 0 1 2 3 4 =c or /hh (e.g. -p 013/0f4)");
		return IOB_EXIT_USAGE;
	}
	for (size_t i = 0; text[i];) {
		struct iob_pattern p = {0};
		size_t at = i;
		char c = text[i++];
		switch (c) {
		case '0':
			p.kind = IOB_PAT_ZERO;
			break;
		case '1':
			p.kind = IOB_PAT_ONES;
			break;
		case '2':
			p.kind = IOB_PAT_TEXT;
			break;
		case '3':
			p.kind = IOB_PAT_RANDOM;
			break;
		case '4':
			if (o->npatterns == 0) {
				snprintf(err, errlen,
					 "bad pattern '%s': 4 (complement of the previous pattern) has no previous "
					 "pattern",
					 IOB_Q(text));
				return IOB_EXIT_USAGE;
			}
			p = o->patterns[o->npatterns - 1];
			p.complement = !p.complement;
			break;
		case '=':
			if (!text[i]) {
				snprintf(err, errlen, "bad pattern '%s': '=' at the end needs a character (e.g. =A)",
					 IOB_Q(text));
				return IOB_EXIT_USAGE;
			}
			p.kind = IOB_PAT_BYTE;
			p.byte = (uint8_t)text[i++];
			break;
		case '/': {
			int hi = text[i] ? hexval((unsigned char)text[i]) : -1;
			int lo = hi >= 0 && text[i + 1] ? hexval((unsigned char)text[i + 1]) : -1;
			if (hi < 0 || lo < 0) {
				snprintf(err, errlen, "bad pattern '%s': '/' at position %zu needs two hex digits (e.g. /0f)",
					 IOB_Q(text), at + 1);
				return IOB_EXIT_USAGE;
			}
			p.kind = IOB_PAT_BYTE;
			p.byte = (uint8_t)(hi << 4 | lo);
			i += 2;
			break;
		}
		default:
			snprintf(err, errlen,
				 "bad pattern '%s': '%c' at position %zu is not one of 0 1 2 3 4 =c /hh", IOB_Q(text),
				 isprint((unsigned char)c) ? c : '?', at + 1);
			return IOB_EXIT_USAGE;
		}
		if (o->npatterns >= IOTEST_MAX_PATTERNS) {
			snprintf(err, errlen, "too many patterns (at most %d passes)", IOTEST_MAX_PATTERNS);
			return IOB_EXIT_USAGE;
		}
		o->patterns[o->npatterns++] = p;
	}
	return 0;
}

static int undocumented(int c, char *err, size_t errlen)
{
	snprintf(err, errlen,
		 "option -%c is listed in the legacy synopsis but was never documented; iotest does not guess "
		 "what it did (did you mean -%c?)",
		 c, tolower(c));
	return IOB_EXIT_USAGE;
}

/* The options stored as they are given. */
#define IOTEST_FLAG(c, m) IOBT_FLAG(struct iotest_opts, c, m)
#define IOTEST_TEXT(c, m) IOBT_TEXT(struct iotest_opts, c, m)
static const struct iobt_plain iotest_plain[] = {
    IOTEST_FLAG('r', read),	   IOTEST_FLAG('w', write),	  IOTEST_FLAG('e', verify_last),
    IOTEST_FLAG('a', verify_all),  IOTEST_FLAG('t', truncate),	  IOTEST_FLAG('C', curt),
    IOTEST_FLAG('v', verbose),	   IOTEST_FLAG('V', version),	  IOTEST_FLAG('h', help),
    IOTEST_FLAG('H', help),	   IOTEST_FLAG(OPT_DUMP_PROFILE, dump_profile),
    IOTEST_FLAG(OPT_ALLOW_DEVICE, allow_device),
    IOTEST_TEXT('c', comment),	   IOTEST_TEXT(OPT_BACKEND, backend), IOTEST_TEXT(OPT_FORMAT, format),
    IOTEST_TEXT(OPT_BACKEND_OPTIONS, backend_options),
};

/* -d and -y ask for the privilege of their own user; -D and -Y for sudo's,
 * which a later -d or -y does not take back. */
static void raise_priv(enum iob_priv *priv, enum iob_priv to)
{
	*priv = *priv == IOB_PRIV_SUDO ? IOB_PRIV_SUDO : to;
}

static int one_option(int c, const char *arg, struct iotest_opts *o, char *err, size_t errlen)
{
	uint64_t v;
	if (iobt_set_plain(iotest_plain, sizeof iotest_plain / sizeof iotest_plain[0], c, arg, o))
		return 0;
	switch (c) {
	case 'W':
	case 'n':
		o->write = 1;
		o->nosync = 1;
		return 0;
	case 's':
		return parse_units(arg, &size_units, &o->size_mb, err, errlen);
	case 'b':
		return parse_block(arg, o, err, errlen);
	case 'p':
		return iotest_parse_patterns(arg, o, err, errlen);
	case 'i':
		if (!*arg)
			return iotest_fail(err, errlen, "-i needs a file name");
		o->input = arg;
		return 0;
	case 'o':
		if (!*arg)
			return iotest_fail(err, errlen, "-o needs a file name");
		if (o->output)
			return iotest_fail(err, errlen, "two files to write: '%s' and '%s' (give one)",
				    IOTEST_QPATH(o->output), IOTEST_QPATH(arg));
		o->output = arg;
		return 0;
	case 'z':
		return parse_snooze(arg, o, err, errlen);
	case 'd':
	case 'D':
		raise_priv(&o->drop, c == 'D' ? IOB_PRIV_SUDO : IOB_PRIV_SELF);
		return 0;
	case 'y':
	case 'Y':
		raise_priv(&o->sync, c == 'Y' ? IOB_PRIV_SUDO : IOB_PRIV_SELF);
		return 0;
	case 'R':
	case 'T':
	case 'P':
	case 'I':
	case 'O':
	case 'S':
	case 'B':
	case 'Z':
		return undocumented(c, err, errlen);
	case OPT_SEED:
		if (parse_whole(arg, &v) != 0)
			return iotest_fail(err, errlen, "seed '%s' is not a whole number from 0 to 18446744073709551615",
				    IOB_Q(arg));
		o->seed = v;
		return 0;
	case OPT_PLUGIN_DIR:
		return iobt_plugin_dir(o->plugin_dirs, &o->nplugin_dirs, IOB_MAX_PLUGIN_DIRS, arg, err, errlen)
			   ? IOB_EXIT_USAGE
			   : 0;
	case OPT_THREADS:
		return parse_count("--threads", arg, IOB_THREADS_MAX, &o->threads, err, errlen);
	case OPT_IODEPTH:
		return parse_count("--iodepth", arg, IOB_IODEPTH_MAX, &o->iodepth, err, errlen);
	case OPT_PROGRESS:
		return iobt_progress(arg, err, errlen) ? IOB_EXIT_USAGE : 0;
	}
	return iotest_fail(err, errlen, "internal error: option not handled");
}

static void defaults(struct iotest_opts *o)
{
	memset(o, 0, sizeof *o);
	o->size_mb = IOTEST_DEFAULT_SIZE_MB;
	o->block_kb = IOTEST_DEFAULT_BLOCK_KB;
	o->seed = IOTEST_DEFAULT_SEED;
	o->backend = IOB_DEFAULT_BACKEND;
	o->threads = 1;
	o->iodepth = 1;
}

int iotest_parse_args(int argc, char **argv, struct iotest_opts *o, char *err, size_t errlen)
{
	int c, rc;
	defaults(o);
	optind = 0; /* full reset: the parser may run more than once (tests) */
	opterr = 0;
	while ((c = getopt_long(argc, argv, short_opts, long_opts, NULL)) != -1) {
		const char *self = argv[optind - 1];
		if (c == '?') {
			if (optopt == '?') {
				o->help = 1;
				continue;
			}
			char name[8];
			if (optopt > 0 && optopt < 256)
				snprintf(name, sizeof name, "-%c", optopt);
			snprintf(err, errlen, "unknown option '%s' (see iotest --help)",
				 IOB_Q(optopt > 0 && optopt < 256 ? name : self));
			return IOB_EXIT_USAGE;
		}
		if (c == ':') {
			if (optopt > 0 && optopt < 256)
				snprintf(err, errlen, "option -%c needs a value (see iotest --help)", optopt);
			else
				snprintf(err, errlen, "option '%s' needs a value (see iotest --help)", IOB_Q(self));
			return IOB_EXIT_USAGE;
		}
		if ((rc = one_option(c, optarg, o, err, errlen)) != 0)
			return rc;
	}
	if (o->help || o->version)
		return 0;
	for (int i = optind; i < argc; i++) {
		if (strcmp(argv[i], "-") == 0) { /* the legacy "-D | - | --drop_caches": -d */
			if ((rc = one_option('d', NULL, o, err, errlen)) != 0)
				return rc;
			continue;
		}
		if (!argv[i][0])
			return iotest_fail(err, errlen, "empty file name");
		if (o->output)
			return iotest_fail(err, errlen, "two files to write: '%s' and '%s' (give one)",
				    IOTEST_QPATH(o->output), IOTEST_QPATH(argv[i]));
		o->output = argv[i];
	}
	return 0;
}
