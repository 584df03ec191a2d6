/* Fuzz iotest's command line (tools/iotest/opts.c) and, when it is
 * accepted, the plan of passes built from it (plan.c; neither touches a
 * file): no crash, no leak, nothing printed, a refusal is one line, and
 * what is accepted holds the documented limits. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_argv.h"
#include "iobench/cli.h"
#include "iotest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_opts(const struct iotest_opts *o)
{
	if (o->size_mb < 1 || o->block_kb < 1 || o->block_kb > 2097152 ||
	    (1024 % o->block_kb != 0 && o->block_kb % 1024 != 0) || o->npatterns > IOTEST_MAX_PATTERNS ||
	    o->snooze_s < 0 || o->snooze_s > IOTEST_MAX_SNOOZE_S)
		abort();
}

static void check_plan(const struct iotest_opts *o, const struct iotest_plan *plan)
{
	if (plan->njobs < 1 || plan->njobs > IOTEST_MAX_STEPS || plan->block != o->block_kb << 10 ||
	    plan->size < o->size_mb << 20 || plan->size % plan->block)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_argv a;
	struct fuzz_capture cap;
	struct iotest_plan plan;
	struct iotest_opts *o = malloc(sizeof *o);
	char err[2048] = "", perr[2048] = "";
	int prc = -1;
	if (!o || fuzz_argv_make(&a, "iotest", data, size) != 0) {
		free(o);
		return 0;
	}
	fuzz_capture_begin(&cap);
	int rc = iotest_parse_args(a.argc, a.argv, o, err, sizeof err);
	if (rc == 0 && !o->help && !o->version)
		prc = iotest_plan_build(o, &plan, perr, sizeof perr);
	fuzz_capture_end(&cap);
	if (rc != 0) {
		if (rc != IOB_EXIT_USAGE)
			abort();
		fuzz_check_refusal(err);
	} else if (prc >= 0) {
		check_opts(o);
		if (prc == 0) {
			check_plan(o, &plan);
			iotest_plan_free(&plan);
		} else if (prc != IOB_EXIT_USAGE) {
			abort();
		} else {
			fuzz_check_refusal(perr);
		}
	}
	fuzz_argv_free(&a);
	free(o);
	return 0;
}
