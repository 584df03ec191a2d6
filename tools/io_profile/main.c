/*
 * io_profile - random-access size sweeps over one file or a tree of files,
 * the legacy io_profile's measurements on the iobench core.  A thin main over
 * the io_profile_tool library: options become jobs (options.c), the core runs
 * them (run.c), the compiled-in "io_profile" output prints the legacy layout
 * (render.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_profile.h"
#include "iobench/cli.h"
#include "iobench/log.h"

/* --output as given, -q turning the legacy layout into its CSV-only form. */
static int output_spec(const struct iop_opts *o, const struct iob_registry *reg, struct iob_output_spec *spec)
{
	char err[2048];
	if (iob_output_spec_parse(o->outspec ? o->outspec : "io_profile", reg, spec, err, sizeof err) != 0)
		return iob_cli_fail(IOB_EXIT_USAGE, "%s", err);
	for (size_t i = 0; o->quiet && i < spec->n; i++)
		if (strcmp(spec->item[i].name, "io_profile") == 0 && !spec->item[i].args[0])
			snprintf(spec->item[i].args, sizeof spec->item[i].args, "quiet");
	return 0;
}

int main(int argc, char **argv)
{
	struct iop_opts o;
	struct iob_output_spec spec;
	char err[2048];
	int rc;

	iob_utf8_args(&argc, &argv);
	iob_log_set_program(IOP_TOOL);
	if ((rc = iob_cli_std_fds()) != 0 || (rc = iob_cli_refuse_mpi(IOP_TOOL)) != 0)
		return rc;
	rc = iop_parse_args(argc, argv, &o, err, sizeof err);
	if (rc)
		return iob_cli_fail(rc, "%s", err);
	if (o.version || o.help) {
		if (o.version)
			iop_version(stdout);
		else
			iop_usage(stdout);
		return IOB_EXIT_OK;
	}
	struct iob_registry *reg = calloc(1, sizeof *reg);
	struct iop_plan *plan = calloc(1, sizeof *plan);
	if (!reg || !plan) {
		free(reg);
		free(plan);
		return iob_cli_fail(IOB_EXIT_FAIL, "out of memory");
	}
	iob_registry_add_static(reg, &iop_render_plugin);
	iob_registry_load(reg, o.plugin_dirs, o.nplugin_dirs);
	iob_cli_report_load_errors(reg);
	rc = iop_plan(&o, reg, plan);
	if (rc == 0 && o.dump)
		rc = iop_dump_profile(&o, plan);
	else if (rc == 0 && (rc = output_spec(&o, reg, &spec)) == 0)
		rc = iop_run(&o, plan, reg, &spec);
	iob_registry_unload(reg);
	free(reg);
	free(plan);
	return rc;
}
