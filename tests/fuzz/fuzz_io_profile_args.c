/* Fuzz io_profile's command line (tools/io_profile/options.c,
 * iop_parse_args; it touches no file): no crash, no leak, nothing printed,
 * a refusal is one line. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_argv.h"
#include "io_profile.h"
#include "iobench/cli.h"

/* the command line is kept on one line for the profile comment */
static int bad(const struct iop_opts *o)
{
	return !o->help && !o->version &&
	       (!o->dir || o->nplugin_dirs > IOP_MAX_PLUGIN_DIRS || strlen(o->cmdline) >= sizeof o->cmdline ||
		strpbrk(o->cmdline, "\n\r"));
}

FUZZ_PARSER_ENTRY("io_profile", struct iop_opts, iop_parse_args, IOB_EXIT_USAGE, bad)
