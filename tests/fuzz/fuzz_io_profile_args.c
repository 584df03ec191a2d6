/* Fuzz io_profile's command line (tools/io_profile/options.c,
 * iop_parse_args; it touches no file): no crash, no leak, nothing printed,
 * a refusal is one line. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_argv.h"
#include "io_profile.h"
#include "iobench/cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_argv a;
	struct fuzz_capture cap;
	struct iop_opts *o = malloc(sizeof *o);
	char err[2048] = "";
	if (!o || fuzz_argv_make(&a, "io_profile", data, size) != 0) {
		free(o);
		return 0;
	}
	fuzz_capture_begin(&cap);
	int rc = iop_parse_args(a.argc, a.argv, o, err, sizeof err);
	fuzz_capture_end(&cap);
	if (rc != 0) {
		if (rc != IOB_EXIT_USAGE)
			abort();
		fuzz_check_refusal(err);
	} else if (!o->help && !o->version &&
		   (!o->dir || o->nplugin_dirs > IOP_MAX_PLUGIN_DIRS ||
		    strlen(o->cmdline) >= sizeof o->cmdline || strpbrk(o->cmdline, "\n\r"))) {
		abort(); /* the command line is kept on one line for the profile comment */
	}
	fuzz_argv_free(&a);
	free(o);
	return 0;
}
