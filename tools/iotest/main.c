/*
 * iotest - the legacy command on the iobench core.  A thin main: options to
 * a plan of passes (one core job each), checks before anything is created,
 * then the passes (run.c) or the equivalent profile (--dump-profile).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/cli.h"
#include "iobench/coord.h"
#include "iobench/log.h"
#include "iobench/version.h"
#include "iotest.h"

/* The command line, for the run facts and the dumped profile. */
static void join_args(int argc, char **argv, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < argc && used + 1 < len; i++) {
		const char *a = i == 0 ? "iotest" : argv[i];
		int quote = !*a || strpbrk(a, " \t'\"\\$;#") != NULL;
		int n = snprintf(buf + used, len - used, "%s%s%s%s", i ? " " : "", quote ? "'" : "", a, quote ? "'" : "");
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

/* Under mpirun each rank writes and reads its own file, NAME.RANK, as the
 * original's MPI build did (docs/man/iotest.1, "MPI"). */
static int rank_files(struct iotest_opts *o, char *err, size_t errlen)
{
	static char out[4096], in[4096];
	int k = iob_coord_rank();
	if (o->dump_profile)
		return iotest_fail(err, errlen, "--dump-profile cannot run under mpirun: dump the profile without it");
	if (o->output && snprintf(out, sizeof out, "%s.%d", o->output, k) >= (int)sizeof out)
		return iotest_fail(err, errlen, "file name too long: %s", IOTEST_QPATH(o->output));
	if (o->input && snprintf(in, sizeof in, "%s.%d", o->input, k) >= (int)sizeof in)
		return iotest_fail(err, errlen, "file name too long: %s", IOTEST_QPATH(o->input));
	if (o->output)
		o->output = out;
	if (o->input)
		o->input = in;
	return 0;
}

int main(int argc, char **argv)
{
	struct iotest_opts *o = calloc(1, sizeof *o);
	struct iob_registry *reg = calloc(1, sizeof *reg);
	struct iotest_plan plan;
	char err[2048], cmdline[4096];
	int code;

	iob_utf8_args(&argc, &argv);
	iob_log_set_program("iotest");
	if ((code = iob_cli_std_fds()) != 0)
		goto out;
	if (!o || !reg)
		return iob_cli_fail(IOB_EXIT_FAIL, "out of memory");
	/* under mpirun: MPI_Init before anything can exit (docs/mpi.md) */
	if (iob_coord_start(err, sizeof err) != 0) {
		code = iob_cli_fail(IOB_EXIT_USAGE, "%s", err);
		goto out;
	}
	join_args(argc, argv, cmdline, sizeof cmdline); /* before getopt permutes argv */
	if ((code = iotest_parse_args(argc, argv, o, err, sizeof err)) != 0) {
		iob_cli_fail(code, "%s", err);
		goto out;
	}
	if (o->help || o->version) {
		if (o->help)
			iotest_usage(stdout);
		else
			printf("iotest (iobench) %s\n", IOB_VERSION);
		goto out;
	}
	if (iob_coord_active() && (code = rank_files(o, err, sizeof err)) != 0) {
		iob_cli_fail(code, "%s", err);
		goto out;
	}
	if ((code = iotest_plan_build(o, &plan, err, sizeof err)) != 0) {
		iob_cli_fail(code, "%s", err);
		goto out;
	}
	iob_registry_load(reg, o->plugin_dirs, o->nplugin_dirs);
	iob_registry_add_static(reg, &iotest_render_plugin);
	iob_cli_report_load_errors(reg);
	code = iotest_plan_check(o, &plan, reg, err, sizeof err);
	if (iob_coord_active()) { /* every rank's files checked, or all stop naming the first */
		char why[sizeof err];
		snprintf(why, sizeof why, "%s", code ? err : "");
		const struct iob_coord_part same = {"command line", cmdline, strlen(cmdline)};
		if (iob_coord_agree(code, why, "command line", &same, 1, err, sizeof err) != 0)
			code = IOB_EXIT_USAGE;
	}
	if (code != 0)
		iob_cli_fail(code, "%s", err);
	else if (!o->dump_profile)
		code = iotest_run(o, &plan, reg, cmdline);
	else if ((code = iotest_plan_dump(stdout, o, &plan, cmdline, err, sizeof err)) != 0)
		iob_cli_fail(code, "%s", err);
	iotest_plan_free(&plan);
	iob_registry_leave(reg);
	iob_coord_finish(); /* when the run did not (a refusal every rank agreed on) */
out:
	free(o);
	free(reg);
	return code;
}
