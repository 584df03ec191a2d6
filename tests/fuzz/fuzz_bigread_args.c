/* Fuzz bigread's command line (tools/bigread/args.c, keywords, bare values
 * and options): no crash, no leak, nothing printed, a refusal is one line,
 * and an accepted bufsize is within its documented range. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "bigread.h"
#include "fuzz_argv.h"

static int bad(const struct bigread_args *ba)
{
	return ba->bufsize < 1 || ba->bufsize > BIGREAD_MAX_BUFSIZE || ba->nplugin_dirs > IOB_MAX_PLUGIN_DIRS ||
	       (ba->have_in && !ba->in[0]);
}

FUZZ_PARSER_ENTRY("bigread", struct bigread_args, bigread_parse_args, -EINVAL, bad)
