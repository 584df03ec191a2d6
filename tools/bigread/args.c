/*
 * args.c - bigread's command line (bigread.h): legacy keywords and
 * positional values, plus options for plugins and the cache.
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bigread.h"
#include "iobench/units.h"
#include "tool.h"

void bigread_usage(FILE *f)
{
	fprintf(f, "usage: bigread in=FILE [bufsize=GIB] [mode=N] [options]\n"
		   "       bigread FILE [GIB [N]] [options]\n"
		   "       command | bigread - [GIB [N]] [options]\n"
		   "\n"
		   "Reads FILE (or standard input, '-') from start to end in blocks of bufsize\n"
		   "and prints the speed of every block, a summary, and where the speed fell\n"
		   "for good if it did (a drive whose cache filled up).\n"
		   "\n"
		   "  in=FILE        file to read; '-' is standard input\n"
		   "  bufsize=GIB    block size in GiB (2^30 bytes), fractions allowed, the byte\n"
		   "                 count truncated: 0.1 is 107374182 bytes (default 1); a\n"
		   "                 number with a unit is taken as that size: 4M, 64KiB\n"
		   "  mode=N         clock for each block: 0 user CPU, 1 system CPU, 2 process\n"
		   "                 CPU (user + system), 3 wall clock (default); CPU clocks leave\n"
		   "                 out time spent waiting for the device\n"
		   "\n"
		   "  -b, --backend NAME   backend plugin (default: " IOB_STDIO_BACKEND " for '-', " IOB_DEFAULT_BACKEND " for a\n"
		   "                       file; also direct, mmap)\n"
		   "  -o, --output LIST    outputs, NAME[:ARGS][=FILE],... (default: bigread, the\n"
		   "                       legacy lines; also human, csv, json)\n"
		   "  -e, --evict          evict FILE from the page cache before reading it (no\n"
		   "                       root needed), so the read comes from the device\n"
		   "      --allow-devices  permit a block device as FILE (read only)\n"
		   "      --backend-options TEXT  k=v,... handed to the backend\n"
		   "      --progress=WHEN  a progress line on stderr: auto (when stderr is a terminal),\n"
		   "                       always or never\n"
		   "      --dump-profile   print the equivalent iobench profile and exit\n"
		   "  -P, --plugin-dir D   search D for plugins first (repeatable)\n"
		   "  -v, --verbose        more on stderr, including a rejected cliff candidate\n"
		   "  -h, --help           this text;  -V, --version  the version\n"
		   "\n"
		   "NEMO system keywords: debug=N (1 or more: as -v), help= (this text); yapp=,\n"
		   "error=, review=, tcl=, outkeys= and np= are refused with the reason.\n"
		   "\n"
		   "Speeds are MiB/s (2^20 bytes per second).  Exit status: 0 ok, 1 the read\n"
		   "failed, 2 bad input, 130/143 interrupted.  See bigread(1).\n");
}

int bigread_parse_mode(const char *text, enum iob_clock *clock, char *err, size_t errlen)
{
	static const struct {
		const char *name;
		enum iob_clock clock;
	} names[] = {
	    {"0", IOB_CLOCK_USER},	  {"1", IOB_CLOCK_SYSTEM},    {"2", IOB_CLOCK_PROCESS},
	    {"3", IOB_CLOCK_WALL},	  {"user", IOB_CLOCK_USER},   {"sys", IOB_CLOCK_SYSTEM},
	    {"system", IOB_CLOCK_SYSTEM}, {"cpu", IOB_CLOCK_PROCESS}, {"process", IOB_CLOCK_PROCESS},
	    {"wall", IOB_CLOCK_WALL},
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(text, names[i].name) == 0) {
			*clock = names[i].clock;
			return 0;
		}
	snprintf(err, errlen,
		 "mode '%s' is not one of 0 (user CPU), 1 (system CPU), 2 (process CPU), 3 (wall)",
		 IOB_Q(text));
	return -EINVAL;
}

static int has_letter(const char *s)
{
	for (; *s; s++)
		if (isalpha((unsigned char)*s))
			return 1;
	return 0;
}

int bigread_parse_bufsize(const char *text, uint64_t *bytes, char *err, size_t errlen)
{
	char why[256];
	double gib;
	uint64_t n;

	if (iob_parse_double(text, &gib, why, sizeof why) == 0) {
		if (!(gib > 0.0)) {
			snprintf(err, errlen, "bufsize must be more than 0 GiB (got '%s')", IOB_Q(text));
			return -EINVAL;
		}
		double b = gib * 1073741824.0; /* GiB, 2^30 */
		if (b >= (double)BIGREAD_MAX_BUFSIZE + 1.0) {
			snprintf(err, errlen, "bufsize %s GiB is more than one read can take (at most 2 GiB)",
				 IOB_Q(text));
			return -EINVAL;
		}
		n = (uint64_t)b; /* truncated, as the legacy tool did */
		if (n == 0) {
			snprintf(err, errlen, "bufsize %s GiB is less than one byte", IOB_Q(text));
			return -EINVAL;
		}
	} else if (has_letter(text) && (isdigit((unsigned char)text[0]) || text[0] == '.')) {
		if (iob_parse_size(text, &n, why, sizeof why) != 0) {
			snprintf(err, errlen, "bufsize: %s", why);
			return -EINVAL;
		}
		if (n == 0) {
			snprintf(err, errlen, "bufsize must be more than 0 bytes (got '%s')", IOB_Q(text));
			return -EINVAL;
		}
		if (n > BIGREAD_MAX_BUFSIZE) {
			snprintf(err, errlen, "bufsize %s is more than one read can take (at most 2 GiB)",
				 IOB_Q(text));
			return -EINVAL;
		}
	} else {
		snprintf(err, errlen, "bufsize '%s' is not a number (GiB, e.g. 0.1; or a size such as 64M)",
			 IOB_Q(text));
		return -EINVAL;
	}
	*bytes = n;
	return 0;
}

enum param { P_IN = 0, P_BUFSIZE = 1, P_MODE = 2, P_COUNT = 3 };
static const char *const param_names[P_COUNT] = {"in", "bufsize", "mode"};

static int set_param(struct bigread_args *a, enum param p, const char *v, char *err, size_t errlen)
{
	switch (p) {
	case P_IN:
		if (!*v) {
			snprintf(err, errlen, "in= needs a file name, or - for standard input");
			return -EINVAL;
		}
		if (strlen(v) >= sizeof a->in) {
			snprintf(err, errlen, "input path is too long (%zu bytes)", strlen(v));
			return -EINVAL;
		}
		snprintf(a->in, sizeof a->in, "%s", v);
		a->have_in = 1;
		return 0;
	case P_BUFSIZE:
		snprintf(a->bufsize_text, sizeof a->bufsize_text, "%s", v);
		return bigread_parse_bufsize(v, &a->bufsize, err, errlen);
	case P_MODE:
	default:
		return bigread_parse_mode(v, &a->clock, err, errlen);
	}
}

/* "-5", "-.5": a value (a negative bufsize), not an option. */
static int looks_numeric(const char *s)
{
	return s[0] == '-' && (isdigit((unsigned char)s[1]) || (s[1] == '.' && isdigit((unsigned char)s[2])));
}

struct optdef {
	char short_name;
	const char *long_name;
	int takes_value;
};

static const struct optdef optdefs[] = {
    {'b', "backend", 1}, {'o', "output", 1}, {'P', "plugin-dir", 1}, {'e', "evict", 0},
    {'v', "verbose", 0}, {'h', "help", 0},   {'V', "version", 0},    {0, "allow-devices", 0},
    {1, "dump-profile", 0}, {2, "backend-options", 1}, {3, "progress", 1},
};

/* The options stored as they are given (by optdefs' short_name). */
#define BIGREAD_FLAG(c, m) IOBT_FLAG(struct bigread_args, c, m)
#define BIGREAD_TEXT(c, m) IOBT_TEXT(struct bigread_args, c, m)
static const struct iobt_plain bigread_plain[] = {
    BIGREAD_FLAG('e', evict),	BIGREAD_FLAG('v', verbose),	   BIGREAD_FLAG('h', help),
    BIGREAD_FLAG('V', version), BIGREAD_FLAG(0, allow_devices), BIGREAD_FLAG(1, dump_profile),
    BIGREAD_TEXT('b', backend), BIGREAD_TEXT('o', outspec),	   BIGREAD_TEXT(2, backend_options),
};

static int apply_option(struct bigread_args *a, const struct optdef *o, const char *v, char *err,
			size_t errlen)
{
	if (iobt_set_plain(bigread_plain, sizeof bigread_plain / sizeof bigread_plain[0], o->short_name, v, a))
		return 0;
	if (o->short_name == 'P')
		return iobt_plugin_dir(a->plugin_dirs, &a->nplugin_dirs, IOB_MAX_PLUGIN_DIRS, v, err, errlen) ? -EINVAL
													       : 0;
	return iobt_progress(v, err, errlen); /* 3: --progress */
}

/* One option at argv[*i]; advances *i past a separate value. */
static int parse_option(int argc, char **argv, int *i, struct bigread_args *a, char *err, size_t errlen)
{
	const char *arg = argv[*i];
	const struct optdef *o = NULL;
	const char *value = NULL;
	size_t nopt = sizeof optdefs / sizeof optdefs[0];

	if (arg[1] == '-') {
		const char *name = arg + 2, *eq = strchr(name, '=');
		size_t len = eq ? (size_t)(eq - name) : strlen(name);
		for (size_t k = 0; k < nopt && !o; k++)
			if (strlen(optdefs[k].long_name) == len &&
			    strncmp(optdefs[k].long_name, name, len) == 0)
				o = &optdefs[k];
		if (o && eq) {
			if (!o->takes_value) {
				snprintf(err, errlen, "option --%s takes no value", o->long_name);
				return -EINVAL;
			}
			value = eq + 1;
		}
	} else {
		for (size_t k = 0; k < nopt && !o; k++)
			if (optdefs[k].short_name && optdefs[k].short_name == arg[1])
				o = &optdefs[k];
		if (o && arg[2]) {
			if (!o->takes_value) {
				snprintf(err, errlen, "unknown option '%s' (options are not bundled)",
					 IOB_Q(arg));
				return -EINVAL;
			}
			value = arg + 2;
		}
	}
	if (!o) {
		snprintf(err, errlen, "unknown option '%s'", IOB_Q(arg));
		return -EINVAL;
	}
	if (o->takes_value && !value) {
		if (*i + 1 >= argc) {
			snprintf(err, errlen, "option '%s' needs a value", IOB_Q(arg));
			return -EINVAL;
		}
		value = argv[++*i];
	}
	return apply_option(a, o, value, err, errlen);
}

/* NEMO's system keywords, which every NEMO program takes: the ones bigread
 * honours, and for the others why not (docs/man/bigread.1). */
static const struct {
	const char *name;
	const char *why; /* NULL: honoured */
} nemo_keys[] = {
    {"debug", NULL},
    {"help", NULL},
    {"yapp", "bigread draws no plots with NEMO's yapp; for a picture of the block speeds use -o "
	     "bigread,svg=FILE"},
    {"error", "bigread does not go on past errors: it stops at the first failed read and reports the "
	      "blocks read before it"},
    {"review", "bigread has no interactive review of its parameters; give them on the command line"},
    {"tcl", "bigread has no Tcl interpreter; give the parameters on the command line"},
    {"outkeys", "bigread keeps no NEMO output keywords; for machine-readable figures use -o json=FILE"},
    {"np", "bigread reads with one stream, so there are no threads for np= to set"},
};

/* debug=N: 0 quiet, 1 or more as -v (NEMO's levels go to 9). */
static int set_debug(struct bigread_args *a, const char *v, char *err, size_t errlen)
{
	char *end;
	long n = strtol(v, &end, 10);
	if (!*v || *end || n < 0 || n > 9) {
		snprintf(err, errlen, "debug='%s' is not a level from 0 to 9", IOB_Q(v));
		return -EINVAL;
	}
	if (n >= 1)
		a->verbose = 1;
	return 0;
}

/* A NEMO system keyword in arg: 1 when handled, 0 when arg is none, or
 * -EINVAL (a refused keyword, a bad debug level) with err set. */
static int nemo_keyword(struct bigread_args *a, const char *arg, char *err, size_t errlen)
{
	const char *eq = strchr(arg, '=');
	if (!eq)
		return 0;
	for (size_t k = 0; k < sizeof nemo_keys / sizeof nemo_keys[0]; k++) {
		if (strlen(nemo_keys[k].name) != (size_t)(eq - arg) ||
		    strncmp(nemo_keys[k].name, arg, (size_t)(eq - arg)) != 0)
			continue;
		if (nemo_keys[k].why) {
			snprintf(err, errlen, "NEMO keyword %s= is not supported: %s", nemo_keys[k].name,
				 nemo_keys[k].why);
			return -EINVAL;
		}
		if (strcmp(nemo_keys[k].name, "help") == 0) {
			a->help = 1; /* any value: NEMO's help= levels all print the keywords */
			return 1;
		}
		return set_debug(a, eq + 1, err, errlen) == 0 ? 1 : -EINVAL;
	}
	return 0;
}

/* name=value for a known keyword: which, or P_COUNT. */
static enum param keyword_of(const char *arg, const char **value)
{
	const char *eq = strchr(arg, '=');
	if (!eq)
		return P_COUNT;
	for (int p = 0; p < P_COUNT; p++)
		if (strlen(param_names[p]) == (size_t)(eq - arg) &&
		    strncmp(param_names[p], arg, (size_t)(eq - arg)) == 0) {
			*value = eq + 1;
			return (enum param)p;
		}
	return P_COUNT;
}

int bigread_parse_args(int argc, char **argv, struct bigread_args *a, char *err, size_t errlen)
{
	const char *given[P_COUNT] = {NULL, NULL, NULL};
	const char *bare[P_COUNT + 1];
	size_t nbare = 0;
	int options_done = 0;

	memset(a, 0, sizeof *a);
	a->bufsize = BIGREAD_DEFAULT_BUFSIZE;
	snprintf(a->bufsize_text, sizeof a->bufsize_text, "1");
	a->clock = IOB_CLOCK_WALL;
	a->outspec = "bigread";

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *value = NULL;
		if (!options_done && strcmp(arg, "--") == 0) {
			options_done = 1;
			continue;
		}
		if (!options_done && arg[0] == '-' && arg[1] && !looks_numeric(arg)) {
			if (parse_option(argc, argv, &i, a, err, errlen) != 0)
				return -EINVAL;
			continue;
		}
		enum param p = keyword_of(arg, &value);
		if (p != P_COUNT) {
			if (given[p]) {
				snprintf(err, errlen, "%s= is given twice ('%s' and '%s')", param_names[p],
					 IOB_Q(given[p]), IOB_Q(arg));
				return -EINVAL;
			}
			given[p] = arg;
			if (set_param(a, p, value, err, errlen) != 0)
				return -EINVAL;
			continue;
		}
		if (!options_done) {
			int rc = nemo_keyword(a, arg, err, errlen);
			if (rc < 0)
				return -EINVAL;
			if (rc > 0)
				continue;
		}
		if (strchr(arg, '=') && !options_done) {
			snprintf(
			    err, errlen,
			    "unknown keyword in '%s' (known: in=, bufsize=, mode=, debug=, help=; a file name "
			    "holding '=' goes after --)",
			    IOB_Q(arg));
			return -EINVAL;
		}
		if (nbare == P_COUNT) {
			snprintf(err, errlen, "too many arguments: '%s' (expected at most FILE BUFSIZE MODE)",
				 IOB_Q(arg));
			return -EINVAL;
		}
		bare[nbare++] = arg;
	}
	/* bare values fill the parameters no keyword named, in order */
	size_t next = 0;
	for (size_t b = 0; b < nbare; b++) {
		while (next < P_COUNT && given[next])
			next++;
		if (next == P_COUNT) {
			snprintf(err, errlen,
				 "too many arguments: '%s' (in=, bufsize= and mode= are all given)",
				 IOB_Q(bare[b]));
			return -EINVAL;
		}
		given[next] = bare[b];
		if (set_param(a, (enum param)next, bare[b], err, errlen) != 0)
			return -EINVAL;
	}
	return 0;
}
