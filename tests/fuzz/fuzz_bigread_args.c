/* Fuzz bigread's command line (tools/bigread/args.c, keywords, bare values
 * and options): no crash, no leak, nothing printed, a refusal is one line,
 * and an accepted bufsize is within its documented range. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "bigread.h"
#include "fuzz_argv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_argv a;
	struct fuzz_capture cap;
	struct bigread_args *ba = malloc(sizeof *ba);
	char err[1024] = "";
	if (!ba || fuzz_argv_make(&a, "bigread", data, size) != 0) {
		free(ba);
		return 0;
	}
	fuzz_capture_begin(&cap);
	int rc = bigread_parse_args(a.argc, a.argv, ba, err, sizeof err);
	fuzz_capture_end(&cap);
	if (rc != 0) {
		if (rc != -EINVAL)
			abort();
		fuzz_check_refusal(err);
	} else if (ba->bufsize < 1 || ba->bufsize > BIGREAD_MAX_BUFSIZE ||
		   ba->nplugin_dirs > IOB_MAX_PLUGIN_DIRS || (ba->have_in && !ba->in[0])) {
		abort();
	}
	fuzz_argv_free(&a);
	free(ba);
	return 0;
}
