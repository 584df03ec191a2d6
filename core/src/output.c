/*
 * output.c - several outputs open at once for one run (iobench/output.h).
 */
#include "iobench/output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iobench/os.h"

struct sink_file {
	FILE *f;
	int own;
	int err; /* first write error, -errno */
};

struct iob_outputs {
	size_t n;
	const struct iob_loaded *plugin[IOB_MAX_OUTPUTS];
	void *state[IOB_MAX_OUTPUTS];
	struct sink_file file[IOB_MAX_OUTPUTS];
	struct iob_sink sink[IOB_MAX_OUTPUTS];
	char name[IOB_MAX_OUTPUTS][4096];
	int ended;
};

static int sink_write(void *ctx, const char *data, size_t len)
{
	struct sink_file *sf = ctx;
	if (sf->err)
		return sf->err;
	if (len && fwrite(data, 1, len, sf->f) != len) {
		sf->err = errno ? -errno : -EIO;
		return sf->err;
	}
	return 0;
}

int iob_output_spec_parse(const char *text, const struct iob_registry *reg, struct iob_output_spec *out,
			  char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	if (!text || !*text) {
		snprintf(err, errlen, "empty --output list");
		return -EINVAL;
	}
	const char *p = text;
	int stdout_used = 0;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char item[4096 + 512];
		if (len == 0 || len >= sizeof item) {
			snprintf(err, errlen, "bad --output list '%s': empty or overlong item", text);
			return -EINVAL;
		}
		if (out->n >= IOB_MAX_OUTPUTS) {
			snprintf(err, errlen, "too many outputs in '%s' (at most %d)", text, IOB_MAX_OUTPUTS);
			return -EINVAL;
		}
		memcpy(item, p, len);
		item[len] = '\0';
		struct iob_output_item *it = &out->item[out->n];
		char *eq = strchr(item, '=');
		if (eq) {
			*eq = '\0';
			if (!eq[1]) {
				snprintf(err, errlen, "output '%s' has '=' but no file name", item);
				return -EINVAL;
			}
			snprintf(it->file, sizeof it->file, "%s", eq + 1);
		}
		char *colon = strchr(item, ':');
		if (colon) {
			*colon = '\0';
			snprintf(it->args, sizeof it->args, "%s", colon + 1);
		}
		if (strlen(item) >= sizeof it->name) {
			snprintf(err, errlen, "unknown output '%s'", item);
			return -EINVAL;
		}
		snprintf(it->name, sizeof it->name, "%s", item);
		if (!iob_registry_find(reg, IOB_PLUGIN_OUTPUT, it->name)) {
			iob_registry_missing(reg, IOB_PLUGIN_OUTPUT, it->name, err, errlen);
			return -EINVAL;
		}
		if (!it->file[0] || strcmp(it->file, "-") == 0) {
			it->file[0] = '\0';
			if (stdout_used++) {
				snprintf(err, errlen, "more than one output writes to stdout in '%s': give the others =FILE",
					 text);
				return -EINVAL;
			}
		} else {
			/* the file's directory must exist; the file itself is not touched yet */
			char dir[4096];
			snprintf(dir, sizeof dir, "%s", it->file);
			char *slash = strrchr(dir, '/');
			if (slash == dir)
				dir[1] = '\0';
			else if (slash)
				*slash = '\0';
			else
				snprintf(dir, sizeof dir, ".");
			if (iob_path_kind(dir, 1) != IOB_PATH_DIRECTORY) {
				snprintf(err, errlen, "output file '%s': directory '%s' does not exist", it->file, dir);
				return -ENOENT;
			}
			enum iob_path_kind k = iob_path_kind(it->file, 1);
			if (k != IOB_PATH_MISSING && k != IOB_PATH_REGULAR && k != IOB_PATH_CHARDEV) {
				snprintf(err, errlen, "output file '%s' exists and is not a regular file", it->file);
				return -EINVAL;
			}
		}
		out->n++;
		if (!end)
			break;
		p = end + 1;
		if (!*p) {
			snprintf(err, errlen, "bad --output list '%s': trailing comma", text);
			return -EINVAL;
		}
	}
	return 0;
}

int iob_outputs_open(struct iob_outputs **out, const struct iob_registry *reg, const struct iob_output_spec *spec,
		     char *err, size_t errlen)
{
	struct iob_outputs *o = calloc(1, sizeof *o);
	*out = NULL;
	if (!o) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < spec->n; i++) {
		const struct iob_output_item *it = &spec->item[i];
		const struct iob_loaded *pl = iob_registry_find(reg, IOB_PLUGIN_OUTPUT, it->name);
		struct sink_file *sf = &o->file[i];
		if (!pl) {
			snprintf(err, errlen, "unknown output '%s'", it->name);
			iob_outputs_close(o);
			return -EINVAL;
		}
		if (it->file[0]) {
			sf->f = fopen(it->file, "we");
			if (!sf->f) {
				int e = errno;
				snprintf(err, errlen, "cannot create output file '%s': %s", it->file, strerror(e));
				iob_outputs_close(o);
				return -e;
			}
			sf->own = 1;
			snprintf(o->name[i], sizeof o->name[i], "%s", it->file);
		} else {
			sf->f = stdout;
			snprintf(o->name[i], sizeof o->name[i], "stdout");
		}
		o->sink[i] = (struct iob_sink){
			.ctx = sf,
			.write = sink_write,
			.name = o->name[i],
			.is_terminal = isatty(fileno(sf->f)),
		};
		o->plugin[i] = pl;
		o->n = i + 1;
		int rc = pl->output.open(&o->sink[i], it->args[0] ? it->args : NULL, &o->state[i]);
		if (rc < 0) {
			snprintf(err, errlen, "output '%s' refused to open%s%s: %s", it->name, it->args[0] ? " with " : "",
				 it->args, strerror(-rc));
			o->plugin[i] = NULL;
			iob_outputs_close(o);
			return rc;
		}
	}
	*out = o;
	return 0;
}

#define EACH(o, call)                                                                                        \
	int first = 0;                                                                                       \
	for (size_t i = 0; o && i < o->n; i++) {                                                             \
		if (!o->plugin[i])                                                                           \
			continue;                                                                            \
		int rc = o->plugin[i]->output.call;                                                          \
		if (rc < 0 && !first)                                                                        \
			first = rc;                                                                          \
	}                                                                                                    \
	return first

int iob_outputs_begin(struct iob_outputs *o, const struct iob_run_info *run)
{
	EACH(o, begin_run(o->state[i], run));
}

int iob_outputs_record(struct iob_outputs *o, const struct iob_record *rec)
{
	int first = 0;
	for (size_t i = 0; o && i < o->n; i++) {
		if (!o->plugin[i])
			continue;
		int rc = o->plugin[i]->output.record(o->state[i], rec);
		if (rc < 0 && !first)
			first = rc;
		/* records come between phases or between blocks, never inside a timed
		 * call: push each out, so a pipe sees it now and a kill loses none */
		if (o->file[i].f)
			fflush(o->file[i].f);
	}
	return first;
}

int iob_outputs_end(struct iob_outputs *o, const struct iob_run_end *end)
{
	if (o)
		o->ended = 1;
	EACH(o, end_run(o->state[i], end));
}

int iob_outputs_close(struct iob_outputs *o)
{
	int first = 0;
	if (!o)
		return 0;
	for (size_t i = 0; i < o->n; i++) {
		if (o->plugin[i]) {
			int rc = o->plugin[i]->output.close(o->state[i]);
			if (rc < 0 && !first)
				first = rc;
		}
		struct sink_file *sf = &o->file[i];
		if (sf->f && fflush(sf->f) != 0 && !first)
			first = -errno;
		if (sf->own && sf->f && fclose(sf->f) != 0 && !first)
			first = -errno;
		if (sf->err && !first)
			first = sf->err;
	}
	free(o);
	return first;
}
