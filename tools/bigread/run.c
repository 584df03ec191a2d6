/*
 * run.c - one bigread run (bigread.h): the command line becomes one job (a
 * sequential read with series = true, timed with the clock mode= names) and
 * goes through the core runner, which streams a "block" record per block,
 * summarises the blocks and finds the cliff.  What is left here is the
 * legacy tool's wording of a bad input, and --dump-profile.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bigread.h"
#include "iobench/cli.h"
#include "iobench/log.h"
#include "iobench/path.h"
#include "iobench/profile.h"
#include "iobench/runner.h"
#include "iobench/units.h"
#include "iobench/version.h"

static void join_args(int argc, char **argv, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < argc && used + 1 < len; i++) {
		int n = snprintf(buf + used, len - used, "%s%s", i ? " " : "", argv[i]);
		if (n < 0)
			break;
		used += (size_t)n < len - used ? (size_t)n : len - used - 1;
	}
}

/* The core's refusal of the input, worded as bigread words it: a file, or
 * a block device when allowed (bigread refuses a character device even
 * then).  IOB_EXIT_OK when the refusal, if any, was not about the input:
 * the core's own line follows. */
static int word_input(const struct bigread_args *a, const struct iob_target_refusal *t)
{
	const char *path = a->in;
	switch (t->why) {
	case IOB_TARGET_MISSING:
	case IOB_TARGET_DIR_MISSING:
	case IOB_TARGET_DANGLING:
		return iob_cli_fail(IOB_EXIT_USAGE, "%s: no such file", path);
	case IOB_TARGET_DIRECTORY:
		return iob_cli_fail(IOB_EXIT_USAGE, "%s is a directory, not a file", path);
	case IOB_TARGET_CHARDEV:
		return iob_cli_fail(IOB_EXIT_USAGE, "%s is a character device; bigread reads files and block devices",
				    path);
	case IOB_TARGET_OTHER:
		return iob_cli_fail(IOB_EXIT_USAGE, "%s is a fifo or socket; read it as standard input: bigread - < %s",
				    path, path);
	case IOB_TARGET_BLOCKDEV:
		return iob_cli_fail(IOB_EXIT_USAGE,
				    "%s is a block device; reading one needs --allow-devices (bigread only reads)", path);
	case IOB_TARGET_FINE:
		break;
	}
	return IOB_EXIT_OK;
}

/* The one job: read in (or standard input) to its end in bufsize blocks. */
static int build_job(const struct bigread_args *a, int is_stdin, struct iob_job *j)
{
	iob_job_defaults(j);
	snprintf(j->name, sizeof j->name, "bigread");
	const char *backend = a->backend ? a->backend : is_stdin ? IOB_STDIO_BACKEND : IOB_DEFAULT_BACKEND;
	if (strlen(backend) >= sizeof j->backend)
		return iob_cli_fail(IOB_EXIT_USAGE, "backend name '%s' is too long", IOB_Q(backend));
	snprintf(j->backend, sizeof j->backend, "%s", backend);
	if (a->backend_options && strlen(a->backend_options) >= sizeof j->backend_options)
		return iob_cli_fail(IOB_EXIT_USAGE, "--backend-options '%s' is too long", IOB_Q(a->backend_options));
	snprintf(j->backend_options, sizeof j->backend_options, "%s", a->backend_options ? a->backend_options : "");
	if (is_stdin) {
		snprintf(j->filename, sizeof j->filename, "-");
	} else {
		snprintf(j->filename, sizeof j->filename, "%s", a->in + iob_path_dir(a->in, j->dir, sizeof j->dir));
		/* the read goes to the end of the file: its size, for --dump-profile (the
		 * phase record gives the bytes read) */
		uint64_t size;
		if (iob_target_size(a->in, &size) == 0 && size)
			j->size = size;
	}
	j->access = IOB_ACCESS_SEQ;
	j->phases = IOB_PHASE_BIT(IOB_PHASE_READ);
	j->block_size = a->bufsize;
	j->loops = 1;
	j->series = 1;
	j->series_clock = a->clock;
	j->evict_before_read = a->evict;
	j->allow_devices = a->allow_devices;
	j->follow_symlinks = 1; /* bigread only reads: a link to a file is read as the file */
	j->keep_files = 1;
	return IOB_EXIT_OK;
}

static int run_or_dump(const struct bigread_args *a, const struct iob_registry *reg, const char *source)
{
	int is_stdin = strcmp(a->in, "-") == 0;
	struct iob_job job;
	struct iob_suite suite = {.njobs = 1, .jobs = &job};
	struct iob_output_spec spec;
	char err[2048];
	int code;

	if (is_stdin && a->evict)
		return iob_cli_fail(IOB_EXIT_USAGE, "--evict needs a file; standard input has no page cache to drop");
	if ((code = build_job(a, is_stdin, &job)) != IOB_EXIT_OK)
		return code;
	struct iob_target_refusal t = {.refuse_chardev = 1};
	int crc = iob_suite_check_target(&suite, reg, &t, err, sizeof err);
	if (crc != 0 && !is_stdin && (code = word_input(a, &t)) != IOB_EXIT_OK)
		return code;
	if (a->dump_profile) {
		if (crc != 0)
			return iob_cli_fail(IOB_EXIT_USAGE, "%s", iob_error_without_job(err));
		if (!is_stdin && iob_job_resolve_dir(&job, err, sizeof err) != 0)
			return iob_cli_fail(IOB_EXIT_USAGE, "%s", err);
		printf("; %s\n; The same read for 'iobench run FILE'.\n", source);
		if (is_stdin) /* nothing tells its size before the read */
			printf("; Standard input is read to its end: size is not used.\n");
		if (iob_profile_write(stdout, &job, 1, "bigread's one job") != 0 || fflush(stdout) != 0)
			return iob_cli_fail(IOB_EXIT_FAIL, "writing the profile failed");
		return IOB_EXIT_OK;
	}
	if (iob_output_spec_parse(a->outspec, reg, &spec, err, sizeof err) != 0)
		return iob_cli_fail(IOB_EXIT_USAGE, "%s", err);
	const struct iob_run_opts ro = {
		.tool = "bigread",
		.source = source,
		.outputs = &spec,
		.hide_job_names = 1,
	};
	return iob_run_main(reg, &ro, &suite);
}

int bigread_main(int argc, char **argv)
{
	char err[1024], source[1024];
	struct bigread_args *a = calloc(1, sizeof *a);
	int code;

	iob_log_set_program("bigread");
	if ((code = iob_cli_std_fds()) != 0 || (code = iob_cli_refuse_mpi("bigread")) != 0) {
		free(a);
		return code;
	}
	if (!a)
		return iob_cli_fail(IOB_EXIT_FAIL, "out of memory");
	if (bigread_parse_args(argc, argv, a, err, sizeof err) != 0) {
		free(a);
		return iob_cli_fail(IOB_EXIT_USAGE, "%s (see bigread --help)", err);
	}
	if (a->help || a->version) {
		if (a->help)
			bigread_usage(stdout);
		else
			printf("bigread (iobench) %s (plugin ABI %d.%d)\n", IOB_VERSION, IOB_ABI_MAJOR, IOB_ABI_MINOR);
		free(a);
		return IOB_EXIT_OK;
	}
	if (!a->have_in) {
		free(a);
		return iob_cli_fail(IOB_EXIT_USAGE, "no input: give in=FILE, or - for standard input (see bigread --help)");
	}
	if (a->verbose)
		iob_log_set_level(IOB_LOG_DEBUG);
	join_args(argc, argv, source, sizeof source);
	struct iob_registry *reg = calloc(1, sizeof *reg);
	if (!reg) {
		free(a);
		return iob_cli_fail(IOB_EXIT_FAIL, "out of memory");
	}
	/* from here a signal stops the run and is reported */
	iob_cli_trap_signals();
	iob_registry_load(reg, a->plugin_dirs, a->nplugin_dirs);
	iob_registry_add_static(reg, &bigread_legacy_plugin);
	iob_cli_report_load_errors(reg);
	code = run_or_dump(a, reg, source);
	iob_registry_leave(reg);
	free(reg);
	free(a);
	return code;
}
