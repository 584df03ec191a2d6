/*
 * cli.c - shared pieces of the binaries' mains (iobench/cli.h).
 */
#include "iobench/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/coord.h"
#include "iobench/log.h"
#include "iobench/os.h"
#include "iobench/progress.h"
#include "iobench/units.h"

volatile sig_atomic_t iob_cli_stop;
int iob_cli_stdin_closed;

int iob_cli_std_fds(void)
{
	int mask = iob_std_fds_reopen();
	if (mask < 0)
		return iob_cli_fail(IOB_EXIT_FAIL,
				    "standard input, output or error is closed, and the null device cannot be opened "
				    "in its place: %s",
				    strerror(-mask));
	iob_cli_stdin_closed = (mask & 1) != 0;
	if (mask & 2)
		return iob_cli_fail(IOB_EXIT_USAGE, "standard output is closed (started with >&-); give it a file, "
						    "or /dev/null to throw the results away");
	return 0;
}

int iob_cli_fail(int code, const char *fmt, ...)
{
	char msg[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	iob_progress_clear();
	fflush(stdout);
	/* one line whatever a path or value in it holds: control characters escaped */
	char line[sizeof msg + 1024];
	iob_quote(msg, line, sizeof line);
	/* across MPI ranks the error is agreed first, and rank 0 says it */
	if (iob_coord_rank() == 0)
		fprintf(stderr, "%s: error: %s\n", iob_log_program(), line);
	return code;
}

void iob_cli_report_load_errors(const struct iob_registry *reg)
{
	/* a broken plugin nobody asked for does not stop a run; it is named when
	 * asked for (iob_registry_missing), in 'iobench plugins', and here with -v;
	 * a plugin directory that is missing or untrusted is always worth a warning */
	for (size_t i = 0; i < reg->nerrors; i++)
		iob_log(reg->error_kind[i] || reg->error_name[i][0] ? IOB_LOG_INFO : IOB_LOG_WARN, NULL, "%s",
			reg->errors[i]);
}

int iob_cli_exit_code(int status, int signal_number)
{
	if (signal_number)
		return 128 + signal_number;
	if (status == 0)
		return IOB_EXIT_OK;
	if (status > 0)
		return IOB_EXIT_MISMATCH;
	return IOB_EXIT_FAIL;
}

void iob_cli_trap_signals(void)
{
	iob_install_stop_handlers(&iob_cli_stop);
}

int iob_cli_end_run(struct iob_outputs *out, const struct iob_notes *notes, int status, int interrupted,
		    const char *error)
{
	struct iob_run_end end = {
		.struct_size = sizeof end,
		.status = status > 0 ? -1 : status ? status : interrupted ? -EINTR : 0,
		.interrupted = interrupted,
		.error = status || interrupted ? (error && *error ? error : interrupted ? "interrupted" : "failed")
					      : NULL,
		.nnotes = notes ? notes->n : 0,
		.notes = notes ? notes->ptr : NULL,
	};
	return iob_outputs_end(out, &end);
}

int iob_cli_refuse_mpi(const char *tool)
{
	const char *var = iob_coord_launcher();
	if (!var)
		return 0;
	const char *rank = getenv(var);
	if (rank && strcmp(rank, "0") == 0)
		fprintf(stderr, "%s: error: %s does not run across MPI ranks (started by an MPI launcher: %s is set); "
				"run it without mpirun, or use iotest or iobench run under mpirun\n",
			iob_log_program(), tool, var);
	return IOB_EXIT_USAGE;
}
