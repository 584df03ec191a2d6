/*
 * iobench - runs suites of jobs described by INI profiles.  A thin main:
 * it turns its command line into a suite, a registry and outputs, and lets
 * the core do the rest.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/log.h"
#include "iobench/output.h"
#include "iobench/profile.h"
#include "iobench/runner.h"
#include "iobench/version.h"
#include "iobench/cli.h"
#include "iobench/coord.h"
#include "iobench/fiojob.h"
#include "iobench/units.h"
#include "iobench/compare.h"
#include "iobench/report.h"
#include "tool.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: iobench run PROFILE.ini|JOBS.fio [--output LIST] [--dir DIR] [--set KEY=VALUE]...\n"
		"                   [--allow-device]\n"
		"       iobench check PROFILE.ini|JOBS.fio [--dir DIR] [--set KEY=VALUE]... [--allow-device]\n"
		"       iobench plugins [--plugin-dir DIR]... [--options BACKEND]\n"
		"       iobench keys [--fio] [--markdown | --tsv]\n"
		"       iobench compare BASE.json NEW.json [--threshold 5%%] [--alpha 0.05]\n"
		"                       [--json FILE] [--svg FILE]\n"
		"       iobench report RESULT.json [NEW.json] [-o FILE.html]\n"
		"       iobench --help | --version\n"
		"\n"
		"  run      run every job of the profile (or fio job file), in file order\n"
		"  check    load and check the profile and plugins; run nothing, create nothing\n"
		"  plugins  list the plugins found, where from, and their ABI version;\n"
		"           --options BACKEND: the options the backend declares\n"
		"  keys     list every profile key: type, unit, default, meaning (--fio: the fio keys\n"
		"           read from fio job files and what they map to; --tsv: tab-separated, with\n"
		"           the phase record field of each key)\n"
		"  compare  compare two results (iobench JSON or fio's JSON): per phase and figure the\n"
		"           change, its 95%% interval and a verdict; exit 1 when a figure regressed\n"
		"  report   one self-contained HTML page from a result (iobench JSON of any binary, or\n"
		"           fio's JSON); with NEW, NEW's page with the comparison against the first\n"
		"\n"
		"  -o, --output LIST   outputs, comma-separated NAME[:ARGS][=FILE] (default: human);\n"
		"                      e.g. --output human,json=run.json\n"
		"  -d, --dir DIR       directory for every job's files (overrides the profile's dir)\n"
		"  -P, --plugin-dir D  search D for plugins first (repeatable)\n"
		"  -s, --set KEY=VALUE set KEY in every job, after the file's own keys (repeatable;\n"
		"                      fio keys for a fio job file)\n"
		"  --fio               read the file as a fio job file (the default for *.fio)\n"
		"  --memory-limit SIZE the memory every job (and group) may allocate at once\n"
		"                      (overrides memory_limit; default: what is available)\n"
		"  --fio-ignore KEYS   accept these fio keys (comma-separated) and run without them;\n"
		"                      the run's notes say so\n"
		"  --allow-device      permit block and character devices as targets in every job\n"
		"                      (allow_devices = true; also for fio job files)\n"
		"  --progress=WHEN     a progress line on stderr: auto (when stderr is a terminal),\n"
		"                      always or never\n"
		"  --log-interval DUR  an interval record this often in every phase (e.g. 1s;\n"
		"                      overrides the profile's log_interval)\n"
		"  --livecsv FILE      the interval records also to FILE, as the run goes (CSV;\n"
		"                      log_interval 1s unless set)\n"
		"  --repeat N          run every phase N times (1 to 1000), then a summary with\n"
		"                      the mean and its 95%% interval (overrides the profile's repeat)\n"
		"  --wide              the human output's every field (human:wide); by default its\n"
		"                      tables show the columns read first, within 100 columns\n"
		"  -v, --verbose       more messages on stderr\n"
		"\n"
		"Exit status: 0 ok, 1 run failed (I/O error), 2 bad input, 3 verify mismatch,\n"
		"130/143 interrupted by SIGINT/SIGTERM.  Profile keys: iobench keys; the manual: iobench(1).\n");
}

/* A plugin's string for one line of `iobench plugins`: invalid UTF-8 bytes
 * become \xNN here, control bytes in iob_quote.  Returns out. */
static const char *plugin_text(const char *text, char *out, size_t outlen)
{
	char utf8[4096];
	size_t o = 0;
	for (const unsigned char *p = (const unsigned char *)text; *p && o + 5 < sizeof utf8;) {
		size_t n = *p < 0x80 ? 1 : *p >= 0xc2 && *p <= 0xdf ? 2 : *p >= 0xe0 && *p <= 0xef ? 3
			 : *p >= 0xf0 && *p <= 0xf4 ? 4 : 0;
		size_t k = 1;
		while (k < n && (p[k] & 0xc0) == 0x80)
			k++;
		/* no overlong forms, no surrogates, nothing above U+10FFFF, and no
		 * C1 controls (U+0080-U+009F: some terminals obey them) */
		int ok = n && k == n && !(p[0] == 0xe0 && p[1] < 0xa0) && !(p[0] == 0xed && p[1] > 0x9f) &&
			 !(p[0] == 0xf0 && p[1] < 0x90) && !(p[0] == 0xf4 && p[1] > 0x8f) &&
			 !(p[0] == 0xc2 && p[1] < 0xa0);
		if (ok && o + n < sizeof utf8) {
			memcpy(utf8 + o, p, n);
			o += n;
			p += n;
		} else {
			o += (size_t)snprintf(utf8 + o, sizeof utf8 - o, "\\x%02x", *p++);
		}
	}
	utf8[o] = '\0';
	return iob_quote(utf8, out, outlen);
}

static int list_plugins(const struct iob_registry *reg)
{
	char a[1024], b[4200], c[1024];
	/* load everything (each plugin is tried in a child first, so a broken
	 * one is listed, not fatal) */
	for (size_t i = 0; i < reg->nplugins; i++)
		iob_registry_find(reg, (enum iob_plugin_kind)reg->plugins[i].desc.kind, reg->plugins[i].name);
	printf("search path:\n");
	for (size_t i = 0; i < reg->ndirs; i++)
		printf("  %s\n", plugin_text(reg->dirs[i], b, sizeof b));
	if (reg->exe_why[0])
		printf("  (not searched: %s)\n", reg->exe_why);
	printf("%-8s %-10s %-5s %-s\n", "KIND", "NAME", "ABI", "FROM / SUMMARY");
	for (int kind = IOB_PLUGIN_BACKEND; kind <= IOB_PLUGIN_OUTPUT; kind++)
		for (size_t i = 0; i < reg->nplugins; i++) {
			const struct iob_loaded *l = &reg->plugins[i];
			if (l->desc.kind != (uint32_t)kind || l->state != IOB_PLUGIN_LOADED)
				continue;
			printf("%-8s %-10s %u.%-3u %s\n%-26s %s\n", kind == IOB_PLUGIN_BACKEND ? "backend" : "output",
			       plugin_text(l->name, a, sizeof a), l->desc.abi_major, l->desc.abi_minor,
			       plugin_text(l->path, b, sizeof b), "",
			       plugin_text(l->desc.summary ? l->desc.summary : "", c, sizeof c));
		}
	for (size_t i = 0; i < reg->nshadowed; i++)
		printf("shadowed: %s\n", plugin_text(reg->shadowed[i], b, sizeof b));
	for (size_t i = 0; i < reg->nerrors; i++)
		printf("not loaded: %s\n", plugin_text(reg->errors[i], b, sizeof b));
	return 0;
}

/* `iobench plugins --options NAME`: the options a backend declares. */
static int list_options(const struct iob_registry *reg, const char *name)
{
	char a[1024], b[1024], c[1024];
	const struct iob_loaded *l = iob_registry_find(reg, IOB_PLUGIN_BACKEND, name);
	if (!l) {
		iob_registry_missing(reg, IOB_PLUGIN_BACKEND, name, b, sizeof b);
		return iob_cli_fail(IOB_EXIT_USAGE, "%s", plugin_text(b, a, sizeof a));
	}
	if (!l->desc.options) {
		printf("backend %s declares no options (plugin ABI %u.%u); it checks its backend_options itself\n",
		       plugin_text(l->name, a, sizeof a), l->desc.abi_major, l->desc.abi_minor);
		return 0;
	}
	printf("%-14s %-6s %-14s %-s\n", "OPTION", "TYPE", "DEFAULT", "VALUES / MEANING");
	for (size_t i = 0; i < l->desc.noptions; i++) {
		const struct iob_option_decl *d = &l->desc.options[i];
		char values[256];
		if (d->type == IOB_OPT_BOOL)
			snprintf(values, sizeof values, "0|1");
		else if (d->type == IOB_OPT_COUNT)
			snprintf(values, sizeof values, "%llu..%llu", (unsigned long long)d->min, (unsigned long long)d->max);
		else if (d->type == IOB_OPT_NAME)
			snprintf(values, sizeof values, "a file name (no /)");
		else
			snprintf(values, sizeof values, "%s", d->words);
		printf("%-14s %-6s %-14s %s\n%-36s %s\n", plugin_text(d->name, a, sizeof a),
		       d->type == IOB_OPT_BOOL    ? "bool"
		       : d->type == IOB_OPT_COUNT ? "count"
		       : d->type == IOB_OPT_NAME  ? "name"
						  : "word",
		       plugin_text(d->def ? d->def : "", b, sizeof b), values, "",
		       d->help ? plugin_text(d->help, c, sizeof c) : "");
	}
	return 0;
}

/* `iobench keys [--fio] [--markdown | --tsv]`: the key table; loads no plugin. */
static int list_keys(int argc, char **argv)
{
	int markdown = 0, fio = 0;
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--markdown") == 0 && !markdown)
			markdown = IOB_KEYS_MARKDOWN;
		else if (strcmp(argv[i], "--tsv") == 0 && !markdown)
			markdown = IOB_KEYS_TSV;
		else if (strcmp(argv[i], "--fio") == 0 && !fio)
			fio = 1;
		else
			return iob_cli_fail(IOB_EXIT_USAGE, "'keys' takes only --fio and --markdown or --tsv (got '%s')", argv[i]);
	}
	if (fio && markdown == IOB_KEYS_TSV)
		return iob_cli_fail(IOB_EXIT_USAGE, "'keys --tsv' lists the profile keys only (not with --fio)");
	if ((fio ? iob_fio_keys_print(stdout, markdown) : iob_keys_print(stdout, markdown)) != 0 || fflush(stdout) != 0)
		return iob_cli_fail(IOB_EXIT_FAIL, "cannot write the key list to standard output");
	return IOB_EXIT_OK;
}

/* The option getopt just refused, as the user typed it. */
static const char *bad_option(char **argv)
{
	static char buf[8];
	if (optopt && !(optind > 0 && argv[optind - 1][0] == '-' && argv[optind - 1][1] == '-')) {
		snprintf(buf, sizeof buf, "-%c", optopt);
		return buf;
	}
	return argv[optind - 1];
}

enum { OPT_PROGRESS = 256, OPT_LOG_INTERVAL, OPT_LIVECSV, OPT_FIO, OPT_FIO_IGNORE, OPT_WIDE, OPT_MEMORY_LIMIT,
       OPT_REPEAT, OPT_ALLOW_DEVICE, OPT_OPTIONS };

/* The time-series options, given on the command line for every job. */
static const char *log_interval, *livecsv;
/* --set KEY=VALUE (every job), --fio, --fio-ignore */
static const char *sets[IOB_FIO_MAX_SETS];
static size_t nsets;
static int force_fio;
static const char *fio_ignore;
static const char *repeat; /* --repeat N: every job's repeat */
/* --wide: the human output shows every field (human:wide) */
static int wide;
/* --memory-limit SIZE (every job's memory_limit; a fio job file has no such key) */
static const char *memory_limit;
static int allow_device; /* --allow-device: allow_devices = true in every job */
/* plugins --options NAME: the backend whose declared options are listed */
static const char *options_of;

/* --progress, --log-interval, --livecsv: checked as soon as they are read
 * (one line, exit 2, nothing created); any other option is unknown.
 * Returns 0 or the exit code. */
static int time_option(int c, const char *arg, char **argv)
{
	char err[1024];
	struct iob_job scratch;
	iob_job_defaults(&scratch);
	if (c == OPT_PROGRESS) {
		if (iobt_progress(arg, err, sizeof err) != 0)
			return iob_cli_fail(IOB_EXIT_USAGE, "%s", err);
	} else if (c == 's') {
		if (nsets == IOB_FIO_MAX_SETS)
			return iob_cli_fail(IOB_EXIT_USAGE, "more than %d --set options", IOB_FIO_MAX_SETS);
		if (!strchr(arg, '=') || arg[0] == '=')
			return iob_cli_fail(IOB_EXIT_USAGE, "--set '%s': give KEY=VALUE", IOB_Q(arg));
		sets[nsets++] = arg;
	} else if (c == OPT_REPEAT) {
		if (iob_job_set(&scratch, "repeat", arg, err, sizeof err) != 0)
			return iob_cli_fail(IOB_EXIT_USAGE, "--repeat: %s", err);
		repeat = arg;
	} else if (c == OPT_OPTIONS) {
		options_of = arg;
	} else if (c == OPT_FIO) {
		force_fio = 1;
	} else if (c == OPT_WIDE) {
		wide = 1;
	} else if (c == OPT_ALLOW_DEVICE) {
		allow_device = 1;
	} else if (c == OPT_FIO_IGNORE) {
		if (!*arg)
			return iob_cli_fail(IOB_EXIT_USAGE, "--fio-ignore needs fio keys, comma-separated");
		fio_ignore = arg;
	} else if (c == OPT_MEMORY_LIMIT) {
		if (iob_job_set(&scratch, "memory_limit", arg, err, sizeof err) != 0)
			return iob_cli_fail(IOB_EXIT_USAGE, "--memory-limit: %s", err);
		memory_limit = arg;
	} else if (c != OPT_LOG_INTERVAL && c != OPT_LIVECSV) {
		return iob_cli_fail(IOB_EXIT_USAGE, "unknown option '%s' (see iobench --help)", bad_option(argv));
	} else if (c == OPT_LOG_INTERVAL) {
		if (iob_job_set(&scratch, "log_interval", arg, err, sizeof err) != 0)
			return iob_cli_fail(IOB_EXIT_USAGE, "--log-interval: %s", err);
		log_interval = arg;
	} else {
		if (!*arg)
			return iob_cli_fail(IOB_EXIT_USAGE, "--livecsv needs a file name");
		if (iob_job_set(&scratch, "livecsv", arg, err, sizeof err) != 0)
			return iob_cli_fail(IOB_EXIT_USAGE, "--livecsv: %s", err);
		livecsv = arg;
	}
	return 0;
}

/* --set on an INI profile: iobench keys, applied to every job as the
 * profile's own are (a bad key or value: the same message). */
static int sets_apply(struct iob_suite *suite, char *err, size_t errlen)
{
	for (size_t s = 0; s < nsets; s++) {
		char key[256], why[1024];
		const char *eq = strchr(sets[s], '=');
		size_t kl = (size_t)(eq - sets[s]);
		if (kl >= sizeof key) {
			snprintf(err, errlen, "--set: key too long");
			return -EINVAL;
		}
		memcpy(key, sets[s], kl);
		key[kl] = '\0';
		for (size_t i = 0; i < suite->njobs; i++)
			if (iob_job_set(&suite->jobs[i], key, eq + 1, why, sizeof why) != 0) {
				snprintf(err, errlen, "--set %s: %s", IOB_Q(sets[s]), why);
				return -EINVAL;
			}
	}
	return 0;
}

/* Apply the command line's time-series options to every job. */
static int time_options_apply(struct iob_suite *suite, char *err, size_t errlen)
{
	for (size_t i = 0; i < suite->njobs; i++) {
		struct iob_job *j = &suite->jobs[i];
		if (log_interval && iob_job_set(j, "log_interval", log_interval, err, errlen) != 0)
			return -EINVAL;
		if (livecsv && iob_job_set(j, "livecsv", livecsv, err, errlen) != 0)
			return -EINVAL;
		if (memory_limit && iob_job_set(j, "memory_limit", memory_limit, err, errlen) != 0)
			return -EINVAL;
		if (repeat && iob_job_set(j, "repeat", repeat, err, errlen) != 0)
			return -EINVAL;
		if (livecsv && !j->log_interval_ns)
			j->log_interval_ns = 1000000000ull;
	}
	return 0;
}

/* `iobench check`'s answer: the jobs (a fio file's preparing jobs apart)
 * and the loader's notes. */
static int check_report(const char *profile, const struct iob_suite *suite)
{
	size_t n = 0;
	for (size_t i = 0; i < suite->njobs; i++)
		n += !(suite->prepare && suite->prepare[i]);
	static char shown[4 * 4096 + 8]; /* the path's bytes escaped for a terminal (iob_quote) */
	int bad = printf("%s: %zu job(s) OK\n", iob_quote(profile, shown, sizeof shown), n) < 0;
	for (size_t i = 0; i < suite->nnotes; i++)
		bad |= printf("note: %s\n", iob_quote(suite->notes[i], shown, sizeof shown)) < 0;
	return bad || fflush(stdout) != 0 ? IOB_EXIT_FAIL : IOB_EXIT_OK;
}

/* --wide: every human output without arguments becomes human:wide.
 * -ENOENT when the spec has no human output at all. */
static int widen(struct iob_output_spec *spec)
{
	int any = 0;
	for (size_t i = 0; i < spec->n; i++) {
		struct iob_output_item *it = &spec->item[i];
		if (strcmp(it->name, "human") != 0)
			continue;
		any = 1;
		if (!it->args[0])
			snprintf(it->args, sizeof it->args, "wide");
	}
	return any ? 0 : -ENOENT;
}

/* Everything after option parsing; owns no memory the caller must free. */
static int command(struct iob_registry *reg, const char *cmd, const char *profile, const char *dir,
		   const char *outspec)
{
	if (strcmp(cmd, "plugins") == 0) {
		if (profile)
			return iob_cli_fail(IOB_EXIT_USAGE, "'plugins' takes no argument (got '%s')", profile);
		return options_of ? list_options(reg, options_of) : list_plugins(reg);
	}
	if (options_of)
		return iob_cli_fail(IOB_EXIT_USAGE, "--options NAME belongs to 'iobench plugins'");
	if (strcmp(cmd, "run") != 0 && strcmp(cmd, "check") != 0)
		return iob_cli_fail(IOB_EXIT_USAGE, "unknown command '%s' (use run, check or plugins)", cmd);
	if (!profile)
		return iob_cli_fail(IOB_EXIT_USAGE, "'%s' needs a profile: iobench %s PROFILE.ini", cmd, cmd);
	iob_cli_report_load_errors(reg);

	struct iob_suite suite;
	struct iob_output_spec spec;
	char err[2048];
	int rc;
	int fio = force_fio || iob_fio_is_jobfile(profile);
	if (fio_ignore && !fio)
		return iob_cli_fail(IOB_EXIT_USAGE, "--fio-ignore applies to fio job files (*.fio, or --fio)");
	const struct iob_fio_opts fo = {.dir = dir, .sets = sets, .nsets = nsets, .ignore = fio_ignore};
	if ((fio ? iob_fio_load(profile, &fo, &suite, err, sizeof err) : iob_profile_load(profile, &suite, err, sizeof err)) !=
	    0) {
		char shown[sizeof err * 4];
		/* a section name or value may hold invalid UTF-8: shown as \xNN */
		return iob_cli_fail(IOB_EXIT_USAGE, "%s", plugin_text(err, shown, sizeof shown));
	}
	if (dir)
		for (size_t i = 0; i < suite.njobs; i++)
			snprintf(suite.jobs[i].dir, sizeof suite.jobs[i].dir, "%s", dir);
	if (!fio && sets_apply(&suite, err, sizeof err) != 0) {
		iob_suite_free(&suite);
		return iob_cli_fail(IOB_EXIT_USAGE, "%s", err);
	}
	for (size_t i = 0; allow_device && i < suite.njobs; i++)
		suite.jobs[i].allow_devices = 1; /* a fio file's preparing jobs too */
	if (time_options_apply(&suite, err, sizeof err) != 0) {
		iob_suite_free(&suite);
		return iob_cli_fail(IOB_EXIT_USAGE, "%s", err);
	}
	if (iob_output_spec_parse(outspec, reg, &spec, err, sizeof err) != 0) {
		rc = iob_cli_fail(IOB_EXIT_USAGE, "%s", err);
	} else if (wide && widen(&spec) != 0) {
		rc = iob_cli_fail(IOB_EXIT_USAGE, "--wide: no human output to widen (--output %s)", IOB_Q(outspec));
	} else {
		/* the profile and its includes are never written: not as data, not as output */
		struct iob_run_opts ro = {.tool = "iobench",
					  .source = profile,
					  .outputs = &spec,
					  .source_in_errors = 1,
					  .protect = (const char *const *)suite.sources,
					  .nprotect = suite.nsources};
		if (strcmp(cmd, "run") == 0)
			rc = iob_run_main(reg, &ro, &suite);
		else if (iob_run_check(reg, &ro, &suite, err, sizeof err) != 0)
			rc = iob_cli_fail(IOB_EXIT_USAGE, "%s: %s", profile, err);
		else
			rc = check_report(profile, &suite);
	}
	iob_suite_free(&suite);
	return rc;
}

/* One option of main's, before the command or (version_ok 0: no -V) after
 * it: the exit status to end with at once, or -1 to go on. */
static int main_option(int c, int version_ok, const char **outspec, const char **dir, const char **plugin_dirs,
		       size_t *nplugin_dirs, char **argv)
{
	switch (c) {
	case 'o':
		*outspec = optarg;
		return -1;
	case 'd':
		*dir = optarg;
		return -1;
	case 'P': {
		char err[128];
		if (iobt_plugin_dir(plugin_dirs, nplugin_dirs, IOB_MAX_PLUGIN_DIRS, optarg, err, sizeof err))
			return iob_cli_fail(IOB_EXIT_USAGE, "%s", err);
		return -1;
	}
	case 'v':
		iob_log_set_level(IOB_LOG_DEBUG);
		return -1;
	case 'h':
		usage(stdout);
		return 0;
	case 'V':
		if (version_ok) {
			printf("iobench %s (plugin ABI %d.%d)\n", IOB_VERSION, IOB_ABI_MAJOR, IOB_ABI_MINOR);
			return 0;
		}
		break;
	default:
		break;
	}
	/* --progress, --log-interval, --livecsv, --set, --fio, --fio-ignore, --wide, --memory-limit, or unknown */
	c = time_option(c, optarg, argv);
	return c != 0 ? c : -1;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'}, {"dir", required_argument, NULL, 'd'},
		{"plugin-dir", required_argument, NULL, 'P'}, {"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'}, {"version", no_argument, NULL, 'V'},
		{"progress", required_argument, NULL, OPT_PROGRESS}, {"log-interval", required_argument, NULL, OPT_LOG_INTERVAL},
		{"livecsv", required_argument, NULL, OPT_LIVECSV}, {"set", required_argument, NULL, 's'},
		{"fio", no_argument, NULL, OPT_FIO}, {"fio-ignore", required_argument, NULL, OPT_FIO_IGNORE},
		{"wide", no_argument, NULL, OPT_WIDE}, {"memory-limit", required_argument, NULL, OPT_MEMORY_LIMIT},
		{"repeat", required_argument, NULL, OPT_REPEAT},
		{"allow-device", no_argument, NULL, OPT_ALLOW_DEVICE}, {"options", required_argument, NULL, OPT_OPTIONS},
		{NULL, 0, NULL, 0},
	};
	const char *outspec = "human", *dir = NULL;
	const char *plugin_dirs[IOB_MAX_PLUGIN_DIRS];
	size_t nplugin_dirs = 0;
	int c;

	iob_utf8_args(&argc, &argv);
	iob_log_set_program("iobench");
	int sfd = iob_cli_std_fds();
	if (sfd != 0)
		return sfd;
	char cerr[2048];
	/* under mpirun: MPI_Init before anything can exit (docs/mpi.md) */
	if (iob_coord_start(cerr, sizeof cerr) != 0)
		return iob_cli_fail(IOB_EXIT_USAGE, "%s", cerr);
	opterr = 0; /* our own one-line messages */
	while ((c = getopt_long(argc, argv, "+o:d:P:s:vhV", longopts, NULL)) != -1) {
		int stop = main_option(c, 1, &outspec, &dir, plugin_dirs, &nplugin_dirs, argv);
		if (stop >= 0)
			return stop;
	}
	if (optind >= argc) {
		usage(stderr);
		return IOB_EXIT_USAGE;
	}
	const char *cmd = argv[optind++];
	if (strcmp(cmd, "keys") == 0)
		return list_keys(argc - optind, argv + optind);
	if (strcmp(cmd, "compare") == 0) /* core/src/compare.c */
		return iob_compare_main(argc - optind, argv + optind);
	if (strcmp(cmd, "report") == 0) { /* core/src/report.c: the html output plugin */
		struct iob_registry *rreg = calloc(1, sizeof *rreg);
		if (!rreg)
			return iob_cli_fail(IOB_EXIT_FAIL, "out of memory");
		iob_registry_load(rreg, plugin_dirs, nplugin_dirs);
		int rrc = iob_report_main(rreg, argc - optind, argv + optind);
		iob_registry_unload(rreg);
		free(rreg);
		return rrc;
	}
	/* options may also follow the command and the profile */
	const char *profile = NULL;
	while (optind < argc) {
		if ((c = getopt_long(argc, argv, "+o:d:P:s:vhV", longopts, NULL)) == -1) {
			if (profile)
				return iob_cli_fail(IOB_EXIT_USAGE, "unexpected argument '%s'", argv[optind]);
			profile = argv[optind++];
			continue;
		}
		int stop = main_option(c, 0, &outspec, &dir, plugin_dirs, &nplugin_dirs, argv);
		if (stop >= 0)
			return stop;
	}

	struct iob_registry *reg = calloc(1, sizeof *reg);
	if (!reg)
		return iob_cli_fail(IOB_EXIT_FAIL, "out of memory");
	iob_registry_load(reg, plugin_dirs, nplugin_dirs);
	int rc = command(reg, cmd, profile, dir, outspec);
	iob_registry_leave(reg);
	free(reg);
	return rc;
}
