/*
 * options.c - io_profile's command line, and the jobs it becomes
 * (io_profile.h).  Every check that needs no file is made here, before
 * anything is created: a bad option is one line on stderr and exit 2.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_profile.h"
#include "iobench/cli.h"
#include "iobench/plugin.h"
#include "iobench/runner.h"
#include "iobench/units.h"
#include "iobench/version.h"
#include "tool.h"

enum {
	OPT_LEVELS = 256,
	OPT_FILES,
	OPT_BACKEND,
	OPT_SEED,
	OPT_WARMUP,
	OPT_REMOVE,
	OPT_DUMP,
	OPT_PLUGIN_DIR,
	OPT_BACKEND_OPTIONS,
	OPT_PROGRESS,
	OPT_REPEAT,
	OPT_TREE_RATES,
};

void iop_usage(FILE *f)
{
	struct iob_job defaults;
	iob_job_defaults(&defaults);
	fprintf(f,
		"usage: io_profile [-s] [-l SIZE] [-m SIZE] [-M SIZE] [-n COUNT] [-b] [-r] [-q] [OPTIONS]\n"
		"       io_profile -v | -h\n"
		"\n"
		"Random-access write and read sweeps: for every I/O size from -m to -M (doubling),\n"
		"COUNT operations each open a file, write (or read) SIZE bytes at a random offset and\n"
		"close it; one CSV row per size.  Files are made in the directory (default: the\n"
		"current one) and left behind unless --remove is given.\n"
		"\n"
		"  -s             one file, io_profile_file.out, instead of the tree\n"
		"                 DIR/dir0/{file0..}, DIR/dir0/dir1/{file0..}, ... (default)\n"
		"      --levels N tree depth (default %d)\n"
		"      --files N  files per tree level (default %d)\n"
		"  -l SIZE        bytes per file (default %llu)\n"
		"  -m SIZE        smallest I/O size (default %llu; with -b: the logical block size)\n"
		"  -M SIZE        largest I/O size (default %llu)\n"
		"  -n COUNT       repetitions per size (default %llu); an operation that would\n"
		"                 cross the end of its file is skipped, so a row may show fewer\n"
		"  -b             bypass the buffer cache: the direct backend (O_DIRECT), writes\n"
		"                 synchronous (O_DSYNC; --backend-options dsync=0 drops it);\n"
		"                 sizes must be multiples of the device's logical block size\n"
		"  -r             read-only: only the read sweep, on an existing file or tree\n"
		"  -q, --quiet    print only the CSV blocks (write, then read)\n"
		"  -k, --keep-open  open each file once per size instead of around every I/O\n"
		"      --remove   remove the files and directories this run created, at the end\n"
		"      --tree-rates  also report how fast the tree was made (and removed, with\n"
		"                 --remove), an iobench addition (stderr, and an io_profile_tree\n"
		"                 record in the other outputs); the CSV is unchanged\n"
		"  -d, --dir DIR  directory to work in (default: the current directory)\n"
		"      --backend NAME  backend plugin (default " IOB_STDIO_BACKEND "; direct with -b)\n"
		"  -o, --output LIST   outputs, e.g. io_profile (default), json, csv=rows.csv;\n"
		"                 comma-separated NAME[:ARGS][=FILE]\n"
		"      --seed N   seed of the random offsets and data (default %llu)\n"
		"      --warmup N untimed random reads before the sweeps (default %llu, 0: none)\n"
		"      --repeat N run every sweep row N times (1 to 1000): a row per run, and the\n"
		"                 mean, spread and 95%% interval in the other outputs (-o json, ...)\n"
		"      --dump-profile  print the equivalent iobench profile and exit\n"
		"      --plugin-dir DIR  search DIR for plugins first (repeatable)\n"
		"      --backend-options TEXT  k=v,... handed to the backend\n"
		"      --progress=WHEN  a progress line on stderr: auto (when stderr is a terminal),\n"
		"                     always or never\n"
		"  -v, --version  print the version and exit\n"
		"  -h, --help     print this help and exit\n"
		"\n"
		"Sizes take K, M, G (2^10, 2^20, 2^30) or KB, MB, GB (10^3, ...).  Exit status: 0 ok,\n"
		"1 the run failed, 2 bad input (nothing is created), 130/143 interrupted.\n"
		"See io_profile(1).\n",
		IOP_DEF_LEVELS, IOP_DEF_FILES, IOP_DEF_FILE_SIZE, IOP_DEF_MIN_IO, IOP_DEF_MAX_IO,
		IOP_DEF_REPS, (unsigned long long)defaults.seed, IOP_DEF_WARMUP);
}

static void join_cmdline(struct iop_opts *o, int argc, char **argv)
{
	size_t used = 0;
	o->cmdline[0] = '\0';
	for (int i = 0; i < argc && used < sizeof o->cmdline; i++) {
		const char *a = i == 0 ? IOP_TOOL : argv[i];
		int quote = a[0] == '\0' || strpbrk(a, " \t'\"") != NULL;
		int n = snprintf(o->cmdline + used, sizeof o->cmdline - used, "%s%s%s%s", i ? " " : "",
				 quote ? "'" : "", a, quote ? "'" : "");
		if (n < 0)
			break;
		used += (size_t)n;
	}
	for (char *c = o->cmdline; *c; c++) /* one line, also as a profile comment */
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
}

void iop_version(FILE *f)
{
	fprintf(f, "io_profile %s (iobench, plugin ABI %d.%d): io_profile V1.00 sweeps on the iobench core\n",
		IOB_VERSION, IOB_ABI_MAJOR, IOB_ABI_MINOR);
}

static int usage_error(char *err, size_t errlen, const char *fmt, ...) IOB_PRINTF(3, 4);
static int usage_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return IOB_EXIT_USAGE;
}

static int parse_size(const char *opt, const char *text, uint64_t *out, char *err, size_t errlen)
{
	char why[256];
	if (iob_parse_size(text, out, why, sizeof why) != 0)
		return usage_error(err, errlen, "%s: %s", opt, why);
	return 0;
}

static int parse_count(const char *opt, const char *text, uint64_t *out, char *err, size_t errlen)
{
	char why[256];
	if (iob_parse_u64(text, out, why, sizeof why) != 0)
		return usage_error(err, errlen, "%s: %s", opt, why);
	return 0;
}

static int parse_u32(const char *opt, const char *text, uint32_t *out, char *err, size_t errlen)
{
	uint64_t v;
	int rc = parse_count(opt, text, &v, err, errlen);
	if (rc)
		return rc;
	if (v > UINT32_MAX)
		return usage_error(err, errlen, "%s: %s is too large", opt, IOB_Q(text));
	*out = (uint32_t)v;
	return 0;
}

/* The options that take a number: a size (units.h), a count, or a count
 * that fits 32 bits. */
enum iop_num { IOP_SIZE, IOP_COUNT, IOP_U32 };
#define IOP_NUM(c, name, kind, m) {c, name, kind, offsetof(struct iop_opts, m)}
static const struct {
	int code;
	const char *name;
	enum iop_num kind;
	size_t at;
} iop_numbers[] = {
    IOP_NUM('l', "-l", IOP_SIZE, file_size),	     IOP_NUM('m', "-m", IOP_SIZE, min_io),
    IOP_NUM('M', "-M", IOP_SIZE, max_io),	     IOP_NUM('n', "-n", IOP_COUNT, reps),
    IOP_NUM(OPT_LEVELS, "--levels", IOP_U32, levels), IOP_NUM(OPT_FILES, "--files", IOP_U32, files),
    IOP_NUM(OPT_SEED, "--seed", IOP_COUNT, seed),    IOP_NUM(OPT_WARMUP, "--warmup", IOP_COUNT, warmup),
};

/* Option c when it takes a number: 0 or the exit code; -1 for another. */
static int iop_number(int c, const char *text, struct iop_opts *o, char *err, size_t errlen)
{
	for (size_t i = 0; i < sizeof iop_numbers / sizeof iop_numbers[0]; i++) {
		if (iop_numbers[i].code != c)
			continue;
		void *at = (char *)o + iop_numbers[i].at;
		if (iop_numbers[i].kind == IOP_SIZE)
			return parse_size(iop_numbers[i].name, text, at, err, errlen);
		if (iop_numbers[i].kind == IOP_COUNT)
			return parse_count(iop_numbers[i].name, text, at, err, errlen);
		return parse_u32(iop_numbers[i].name, text, at, err, errlen);
	}
	return -1;
}

/* The options stored as they are given. */
#define IOP_FLAG(c, m) IOBT_FLAG(struct iop_opts, c, m)
#define IOP_TEXT(c, m) IOBT_TEXT(struct iop_opts, c, m)
static const struct iobt_plain iop_plain[] = {
    IOP_FLAG('s', single),	    IOP_FLAG('b', bypass),	    IOP_FLAG('r', read_only),
    IOP_FLAG('q', quiet),	    IOP_FLAG('k', keep_open),	    IOP_FLAG(OPT_REMOVE, remove),
    IOP_FLAG(OPT_TREE_RATES, tree_rates), IOP_FLAG(OPT_DUMP, dump),   IOP_TEXT('d', dir),
    IOP_TEXT('o', outspec),	    IOP_TEXT(OPT_BACKEND, backend),
};

int iop_parse_args(int argc, char **argv, struct iop_opts *o, char *err, size_t errlen)
{
	static const struct option longopts[] = {
	    {"levels", required_argument, NULL, OPT_LEVELS},
	    {"files", required_argument, NULL, OPT_FILES},
	    {"output", required_argument, NULL, 'o'},
	    {"seed", required_argument, NULL, OPT_SEED},
	    {"warmup", required_argument, NULL, OPT_WARMUP},
	    {"keep-open", no_argument, NULL, 'k'},
	    {"remove", no_argument, NULL, OPT_REMOVE},
	    {"dir", required_argument, NULL, 'd'},
	    {"repeat", required_argument, NULL, OPT_REPEAT},
	    {"tree-rates", no_argument, NULL, OPT_TREE_RATES},
	    {"quiet", no_argument, NULL, 'q'},
	    {"version", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    IOBT_LONGOPTS(OPT_BACKEND, OPT_PLUGIN_DIR, OPT_BACKEND_OPTIONS, OPT_PROGRESS, OPT_DUMP),
	    {NULL, 0, NULL, 0},
	};
	int c, rc = 0;

	memset(o, 0, sizeof *o);
	o->levels = IOP_DEF_LEVELS;
	o->files = IOP_DEF_FILES;
	o->file_size = IOP_DEF_FILE_SIZE;
	o->min_io = IOP_DEF_MIN_IO;
	o->max_io = IOP_DEF_MAX_IO;
	o->reps = IOP_DEF_REPS;
	o->warmup = IOP_DEF_WARMUP;
	o->repeat = 1;
	o->dir = ".";
	struct iob_job defaults;
	iob_job_defaults(&defaults);
	o->seed = defaults.seed;
	join_cmdline(o, argc, argv);

	optind = 0; /* full reset: the parser may run more than once (tests, fuzzers) */
	opterr = 0;
	while (rc == 0 && (c = getopt_long(argc, argv, ":sl:m:M:n:brqkd:o:vh", longopts, NULL)) != -1) {
		if (iobt_set_plain(iop_plain, sizeof iop_plain / sizeof iop_plain[0], c, optarg, o))
			continue;
		int nrc = iop_number(c, optarg, o, err, errlen);
		if (nrc >= 0) {
			rc = nrc;
			o->file_size_set |= c == 'l';
			o->min_io_set |= c == 'm';
			continue;
		}
		switch (c) {
		case OPT_BACKEND_OPTIONS:
			o->backend_options = optarg;
			if (strlen(optarg) > IOP_MAX_BACKEND_OPTIONS)
				rc = usage_error(err, errlen, "--backend-options is too long (%zu bytes, at most %d)",
						 strlen(optarg), IOP_MAX_BACKEND_OPTIONS);
			break;
		case OPT_PROGRESS:
			rc = iobt_progress(optarg, err, errlen) ? IOB_EXIT_USAGE : 0;
			break;
		case OPT_REPEAT: { /* the key's own check: 1 to 1000 */
			char why[256];
			if (iob_job_set(&defaults, "repeat", optarg, why, sizeof why) != 0)
				rc = usage_error(err, errlen, "--repeat: %s", why);
			else
				o->repeat = defaults.repeat;
			break;
		}
		case OPT_PLUGIN_DIR:
			if (iobt_plugin_dir(o->plugin_dirs, &o->nplugin_dirs, IOP_MAX_PLUGIN_DIRS, optarg, err, errlen))
				return IOB_EXIT_USAGE;
			break;
		case 'v':
			o->version = 1; /* as before: the rest of the line is not looked at */
			return 0;
		case 'h':
			o->help = 1;
			return 0;
		case ':':
			return usage_error(err, errlen, "option '%s' needs a value (see io_profile -h)",
					   IOB_Q(argv[optind - 1]));
		default:
			if (optopt) {
				char name[3] = {'-', (char)optopt, '\0'};
				return usage_error(err, errlen, "unknown option '%s' (see io_profile -h)",
						   IOB_Q(name));
			}
			return usage_error(err, errlen, "unknown option '%s' (see io_profile -h)",
					   IOB_Q(argv[optind - 1]));
		}
	}
	if (rc)
		return rc;
	if (optind < argc)
		return usage_error(err, errlen, "unexpected argument '%s' (io_profile takes options only)",
				   IOB_Q(argv[optind]));
	return 0;
}

/* ---- from options to jobs ------------------------------------------------ */

/* Drop the "[job] " prefix of a core message: the user named no job. */
static const char *plain(const char *msg)
{
	if (msg[0] == '[') {
		const char *e = strstr(msg, "] ");
		if (e)
			return e + 2;
	}
	return msg;
}

static void base_job(const struct iop_opts *o, const char *backend, struct iob_job *j, const char *name)
{
	iob_job_defaults(j);
	snprintf(j->name, sizeof j->name, "io_profile-%s", name);
	snprintf(j->backend, sizeof j->backend, "%s", backend);
	/* -b: writes synchronous as the original's were (O_DSYNC with O_DIRECT);
	 * the user's options come after, so dsync=0 there turns it off */
	const char *user = o->backend_options ? o->backend_options : "";
	snprintf(j->backend_options, sizeof j->backend_options, "%s%s%s", o->bypass ? "dsync=1" : "",
		 o->bypass && *user ? "," : "", user);
	snprintf(j->dir, sizeof j->dir, "%s", o->dir);
	if (o->single) {
		j->layout = IOB_LAYOUT_FILE;
		snprintf(j->filename, sizeof j->filename, "%s", IOP_SINGLE_FILE);
	} else {
		j->layout = IOB_LAYOUT_TREE;
		j->tree_levels = o->levels;
		j->tree_files = o->files;
	}
	j->size = o->file_size;
	j->seed = j->pattern.seed = o->seed;
	j->fsync = 0;	   /* as the original: writes are flushed to the kernel, not synced */
	j->fill_once = 1;  /* writes: one random buffer, written everywhere */
	j->keep_files = 1; /* the tool removes what the run made, on --remove only */
}

/* A sweep job: random offsets drawn in [0, size), ops crossing the end skipped. */
static void sweep_job(const struct iop_opts *o, const struct iop_plan *p, struct iob_job *j,
		      const char *backend, const char *name, enum iob_phase phase)
{
	base_job(o, backend, j, name);
	j->access = IOB_ACCESS_RAND;
	j->phases = IOB_PHASE_BIT(phase);
	j->block_size = o->min_io;
	j->block_size_max = o->max_io > o->min_io ? o->max_io : 0;
	j->ops = o->reps;
	j->offset_align = p->dio_align;
	j->skip_past_end = 1;
	j->reopen = !o->keep_open;
	j->fill_once = phase == IOB_PHASE_WRITE;
}

static void build_jobs(const struct iop_opts *o, struct iop_plan *p, const char *backend)
{
	struct iob_job *c = &p->job[IOP_JOB_CREATE], *w = &p->job[IOP_JOB_WARMUP];

	base_job(o, backend, c, "create");
	c->access = IOB_ACCESS_SEQ;
	c->phases = IOB_PHASE_BIT(IOB_PHASE_WRITE);
	c->block_size = o->file_size < IOP_CREATE_CHUNK ? o->file_size : IOP_CREATE_CHUNK;
	c->fsync = 1; /* the creation's writeback must not land inside the sweeps */
	p->use[IOP_JOB_CREATE] = !o->read_only;

	sweep_job(o, p, w, backend, "warmup", IOB_PHASE_READ);
	w->block_size = p->top_io;
	w->block_size_max = 0;
	w->ops = o->warmup;
	p->use[IOP_JOB_WARMUP] = o->warmup > 0;

	sweep_job(o, p, &p->job[IOP_JOB_WRITE], backend, "write", IOB_PHASE_WRITE);
	p->use[IOP_JOB_WRITE] = !o->read_only;
	sweep_job(o, p, &p->job[IOP_JOB_READ], backend, "read", IOB_PHASE_READ);
	p->job[IOP_JOB_WRITE].repeat = p->job[IOP_JOB_READ].repeat = o->repeat; /* --repeat: the sweep rows */
	p->use[IOP_JOB_READ] = 1;
}

#ifdef _WIN32
#define IOP_SYNC_WRITES "synchronous writes (write-through)"
#else
#define IOP_SYNC_WRITES "synchronous writes (O_DSYNC)"
#endif

/* Does the backend option text leave dsync on?  Its last dsync= item says. */
static int dsync_on(const char *opts)
{
	int on = 0;
	for (const char *q = opts; q && *q;) {
		if (strncmp(q, "dsync=", 6) == 0)
			on = q[6] == '1' && (q[7] == ',' || q[7] == '\0');
		q = strchr(q, ',');
		if (q)
			q++;
	}
	return on;
}

static void describe_io(const struct iop_opts *o, struct iop_plan *p, const char *backend)
{
	int stdio = strcmp(backend, "stdio") == 0;
	char how[128];
	if (p->bypass)
		snprintf(how, sizeof how, "Bypassing the buffer cache (%s, backend %s)",
#if defined(_WIN32)
			 "unbuffered + write-through",
#else
			 "O_DIRECT",
#endif
			 backend);
	else if (stdio)
		snprintf(how, sizeof how, "Using libc streams (stdio) through the buffer cache");
	else
		snprintf(how, sizeof how, "Using backend %s through the buffer cache", backend);
	snprintf(p->io_method, sizeof p->io_method, "%s; %s; %s", how,
		 o->keep_open ? "each file opened once per size"
		 : stdio      ? "open, seek, write and flush (or read), close per operation"
			      : "open, I/O, close per operation",
		 dsync_on(p->job[IOP_JOB_WRITE].backend_options) ? IOP_SYNC_WRITES : "no fsync");
}

/* -r without -l: the smallest existing file sets the size. */
static int read_only_size(const struct iop_opts *o, struct iop_plan *p, uint64_t *size)
{
	struct iob_filelist fl;
	uint64_t least = UINT64_MAX;
	if (iob_job_files(&p->job[IOP_JOB_READ], &fl) != 0)
		return iob_cli_fail(IOB_EXIT_FAIL, "out of memory");
	for (size_t i = 0; i < fl.n; i++) {
		uint64_t sz;
		if (iob_target_size(fl.paths[i], &sz) != 0)
			continue; /* the target checks name what is wrong with it */
		if (o->file_size_set && sz < o->file_size) {
			int rc = iob_cli_fail(IOB_EXIT_USAGE, "-r: %s has %llu bytes, fewer than -l %llu",
					      fl.paths[i], (unsigned long long)sz,
					      (unsigned long long)o->file_size);
			iob_filelist_free(&fl);
			return rc;
		}
		least = sz < least ? sz : least;
	}
	iob_filelist_free(&fl);
	*size = o->file_size_set || least == UINT64_MAX ? o->file_size : least;
	return 0;
}

/* Direct I/O: find the alignment before anything is created; adapt the
 * default smallest size to it and refuse sizes that cannot bypass. */
static int direct_alignment(struct iop_opts *o, struct iop_plan *p)
{
	struct iob_filelist fl;
	uint32_t a = 0;
	uint64_t sz;
	char why[IOB_PATH_MAX + 200];
	const char *probe = o->dir;
	if (iob_job_files(&p->job[IOP_JOB_READ], &fl) != 0)
		return iob_cli_fail(IOB_EXIT_FAIL, "out of memory");
	if (iob_target_size(fl.paths[0], &sz) == 0)
		probe = fl.paths[0];
	/* the core's policy: 4096 where the OS cannot tell */
	int rc = iob_caveat_direct_alignment(probe, &a, why, sizeof why);
	iob_filelist_free(&fl);
	if (rc == -EINVAL)
		return iob_cli_fail(IOB_EXIT_USAGE, "-b: %s; run without -b, or in a directory on a disk", why);
	p->dio_align = a;
	if (!o->min_io_set) {
		o->min_io = a;
		if (o->min_io > o->max_io)
			return iob_cli_fail(
			    IOB_EXIT_USAGE,
			    "-b: the smallest direct I/O here is %u bytes (the logical block size), "
			    "above -M %llu",
			    a, (unsigned long long)o->max_io);
	}
	if (o->min_io % a)
		return iob_cli_fail(
		    IOB_EXIT_USAGE,
		    "-b: -m %llu cannot bypass the buffer cache: direct I/O moves whole logical blocks "
		    "of %u bytes here, so every size must be a multiple of %u; use -m %u or larger, "
		    "or drop -b",
		    (unsigned long long)o->min_io, a, a, a);
	if (!o->read_only && o->file_size % a)
		return iob_cli_fail(
		    IOB_EXIT_USAGE,
		    "-b: -l %llu is not a multiple of the %u-byte logical block size; direct I/O "
		    "cannot write such a file",
		    (unsigned long long)o->file_size, a);
	return 0;
}

static uint64_t largest_size(uint64_t min, uint64_t max)
{
	uint64_t bs = min;
	while (bs <= max / 2)
		bs *= 2;
	return bs;
}

static int too_small(const struct iop_opts *o, const struct iop_plan *p)
{
	return iob_cli_fail(
	    IOB_EXIT_USAGE,
	    "-l %llu is smaller than the largest I/O size %llu (-M): no operation would fit in a file",
	    (unsigned long long)o->file_size, (unsigned long long)p->top_io);
}

static int check_suite(const struct iop_plan *p, const struct iob_registry *reg)
{
	struct iob_job jobs[4];
	struct iob_suite suite = {.njobs = 0, .jobs = jobs};
	char err[2048];
	for (int i = 0; i < 4; i++)
		if (p->use[i])
			jobs[suite.njobs++] = p->job[i];
	if (iob_suite_check(&suite, reg, err, sizeof err) != 0)
		return iob_cli_fail(IOB_EXIT_USAGE, "%s", plain(err));
	return 0;
}

int iop_plan(const struct iop_opts *opts, const struct iob_registry *reg, struct iop_plan *p)
{
	struct iop_opts o = *opts;
	const char *backend = o.backend ? o.backend : o.bypass ? "direct" : IOB_STDIO_BACKEND;
	int rc;

	memset(p, 0, sizeof *p);
	p->dio_align = 1;
	if (o.bypass && o.backend && strcmp(o.backend, "direct") != 0)
		return iob_cli_fail(IOB_EXIT_USAGE,
				    "-b means the direct backend; it cannot be combined with --backend %s",
				    o.backend);
	const struct iob_loaded *b = iob_registry_find(reg, IOB_PLUGIN_BACKEND, backend);
	if (!b) {
		char why[1024];
		iob_registry_missing(reg, IOB_PLUGIN_BACKEND, backend, why, sizeof why);
		return iob_cli_fail(IOB_EXIT_USAGE, "%s", why);
	}
	p->bypass = (b->desc.caps & IOB_CAP_DIRECT) != 0;
	if (o.reps == 0)
		return iob_cli_fail(IOB_EXIT_USAGE, "-n 0: every size needs at least one repetition");
	if (!o.single && (o.levels == 0 || o.files == 0))
		return iob_cli_fail(IOB_EXIT_USAGE,
				    "the tree needs at least one level and one file per level (got "
				    "--levels %u --files %u)",
				    o.levels, o.files);
	if (o.remove && o.read_only)
		return iob_cli_fail(IOB_EXIT_USAGE,
				    "--remove with -r: a read-only run creates nothing to remove");
	if (o.tree_rates && (o.single || o.read_only))
		return iob_cli_fail(IOB_EXIT_USAGE, "--tree-rates with %s: the run makes no tree to time",
				    o.single ? "-s" : "-r");
	if (o.min_io == 0)
		return iob_cli_fail(IOB_EXIT_USAGE, "-m 0: the smallest I/O size must be at least 1 byte");
	if (o.min_io_set && o.min_io > o.max_io)
		return iob_cli_fail(IOB_EXIT_USAGE, "-m %llu is above -M %llu: the sweep would be empty",
				    (unsigned long long)o.min_io, (unsigned long long)o.max_io);
	if (o.max_io > (1ull << 31))
		return iob_cli_fail(IOB_EXIT_USAGE, "-M %llu is above the 2 GiB limit of one I/O",
				    (unsigned long long)o.max_io);
	p->top_io = largest_size(o.min_io, o.max_io);
	if ((!o.read_only || o.file_size_set) && o.file_size < p->top_io)
		return too_small(&o, p);
	build_jobs(&o, p, backend); /* provisional: the file list is all the checks below need */
	char err[1024];
	if (iob_job_validate(&p->job[IOP_JOB_READ], err, sizeof err) != 0) /* e.g. a tree too large to list */
		return iob_cli_fail(IOB_EXIT_USAGE, "%s", plain(err));
	if (o.read_only && (rc = read_only_size(&o, p, &o.file_size)) != 0)
		return rc;
	if ((b->desc.caps & (IOB_CAP_DIRECT | IOB_CAP_ALIGNED)) && (rc = direct_alignment(&o, p)) != 0)
		return rc;
	if (o.min_io > o.max_io)
		return iob_cli_fail(IOB_EXIT_USAGE, "-m %llu is above -M %llu: the sweep would be empty",
				    (unsigned long long)o.min_io, (unsigned long long)o.max_io);
	p->top_io = largest_size(o.min_io, o.max_io);
	if (o.file_size < p->top_io)
		return too_small(&o, p);
	build_jobs(&o, p, backend);
	describe_io(&o, p, backend);
	struct iob_job where = p->job[IOP_JOB_READ];
	char why[512];
	snprintf(p->absdir, sizeof p->absdir, "%s",
		 iob_job_resolve_dir(&where, why, sizeof why) == 0 ? where.dir : o.dir);
	return check_suite(p, reg);
}
