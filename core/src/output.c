/*
 * output.c - several outputs open at once for one run (iobench/output.h).
 */
#include "iobench/output.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iobench/os.h"

/* Results are buffered here, not in stdio: a stop signal interrupting a
 * write to a full pipe must neither cut nor lose a line (stdio's state after
 * an interrupted write is not something to build on). */
#define SINK_BUF 65536
struct sink_file {
	FILE *f;
	int own;
	int err; /* first write error, -errno; sticky */
	size_t used;
	uint64_t flushed_ns; /* when a batched record was last pushed out */
	char buf[SINK_BUF];
};

struct iob_outputs {
	size_t n;
	const struct iob_loaded *plugin[IOB_MAX_OUTPUTS];
	void *state[IOB_MAX_OUTPUTS];
	struct sink_file file[IOB_MAX_OUTPUTS];
	struct iob_sink sink[IOB_MAX_OUTPUTS];
	char name[IOB_MAX_OUTPUTS][4096];  /* sink name: "stdout" or the file */
	char oname[IOB_MAX_OUTPUTS][64];   /* output name, for messages */
	int ended;
	int status;      /* first error of any output, -errno; sticky */
	char error[4400]; /* its one-line message, "" while status == 0 */
};

/* Pieces are buffered in the sink, not written one by one.  The buffer is
 * written at the end of every call into the outputs (begin, record, end,
 * close).  iob_outputs_record_batch on a sink that is not a terminal writes
 * only when BATCH_NS or more passed since its last write: a series' block
 * records, one a block, would otherwise cost a write(2) each inside the
 * phase time when blocks are tiny, while a pipe's reader (tee, head) still
 * sees every block of BATCH_NS or more as it ends, and faster ones in
 * writes BATCH_NS apart.  Every write(2) is checked; the first error is kept
 * and the run fails with it.  Nothing is lost to an unchecked flush. */
#define BATCH_NS 10000000ull /* 10 ms: a write of a line costs ~2 us, < 0.1% */
/* Push out what the buffer holds (a write interrupted by a stop signal goes
 * on where it stopped); -errno or 0, sticky. */
static int sink_flush(struct sink_file *sf)
{
	if (sf->err || !sf->f || !sf->used)
		return sf->err;
	if (sf->f == stdout)
		fflush(stdout); /* anything printed through stdio goes first */
	int rc = iob_write_all(iob_stream_fd(sf->f), sf->buf, sf->used);
	sf->used = 0;
	if (rc < 0)
		sf->err = rc;
	return sf->err;
}

static int sink_write(void *ctx, const char *data, size_t len)
{
	struct sink_file *sf = ctx;
	if (sf->err)
		return sf->err;
	if (len > SINK_BUF - sf->used && sink_flush(sf) < 0)
		return sf->err;
	if (len >= SINK_BUF) {
		if (sf->f == stdout)
			fflush(stdout);
		int rc = iob_write_all(iob_stream_fd(sf->f), data, len);
		return rc < 0 ? (sf->err = rc) : 0;
	}
	memcpy(sf->buf + sf->used, data, len);
	sf->used += len;
	return 0;
}

/* Remember the first failure, with a message naming the output and its file. */
static void note_error(struct iob_outputs *o, size_t i, int rc)
{
	if (rc >= 0 || o->status)
		return;
	if (o->file[i].err)
		rc = o->file[i].err; /* the sink's own errno says more than a plugin's relay */
	o->status = rc;
	snprintf(o->error, sizeof o->error, "output %s to %s: %s", o->oname[i], o->name[i], strerror(-rc));
}

/* ------------------------------------------------------------------------ */
/* Which file a path names, to tell whether two paths are one file.          */

struct file_key {
	int exists;          /* dev and ino are valid */
	int chardev;         /* a character device: /dev/null may be shared */
	uint64_t dev, ino;
	char norm[4096 + 256]; /* realpath of the parent + "/" + name; "" if unknown */
};

static void file_key_of(const char *path, struct file_key *k)
{
	enum iob_path_kind kind;
	char dir[4096];
	const char *name;

	memset(k, 0, sizeof *k);
	if (iob_file_identity(path, &k->dev, &k->ino, &kind) == 0) {
		k->exists = 1;
		k->chardev = kind == IOB_PATH_CHARDEV;
	}
	name = path + iob_path_dir(path, dir, sizeof dir);
	char real[4096];
	if (iob_real_path(dir, real, sizeof real) == 0)
		snprintf(k->norm, sizeof k->norm, "%s%s%s", real, strcmp(real, "/") == 0 ? "" : "/", name);
}

/* One file: the same device and inode, or (for files still to be made) the
 * same normalised path.  Character devices are never "the same file". */
static int file_key_same(const struct file_key *a, const struct file_key *b)
{
	if (a->chardev || b->chardev)
		return 0;
	if (a->exists && b->exists)
		return a->dev == b->dev && a->ino == b->ino;
	return !a->exists && !b->exists && a->norm[0] && strcmp(a->norm, b->norm) == 0;
}

/* Identity of standard output when it is a regular file (redirected). */
static int stdout_key(struct file_key *k)
{
	enum iob_path_kind kind;
	memset(k, 0, sizeof *k);
	if (iob_stream_identity(stdout, &k->dev, &k->ino, &kind) != 0 || kind != IOB_PATH_REGULAR)
		return 0;
	k->exists = 1;
	return 1;
}

/* Two outputs on one file (or on the file stdout goes to) would interleave
 * and leave neither valid. */
static int spec_check_overlap(const struct iob_output_spec *spec, char *err, size_t errlen)
{
	struct file_key *keys = calloc(spec->n + 1, sizeof *keys);
	const struct iob_output_item *to_stdout = NULL;
	int rc = 0;

	if (!keys) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < spec->n; i++) {
		if (spec->item[i].file[0])
			file_key_of(spec->item[i].file, &keys[i]);
		else
			to_stdout = &spec->item[i];
	}
	int have_stdout = to_stdout && stdout_key(&keys[spec->n]);
	for (size_t i = 0; i < spec->n && !rc; i++) {
		const struct iob_output_item *a = &spec->item[i];
		if (!a->file[0])
			continue;
		for (size_t j = 0; j < i && !rc; j++) {
			const struct iob_output_item *b = &spec->item[j];
			if (b->file[0] && file_key_same(&keys[i], &keys[j])) {
				snprintf(err, errlen,
					 "outputs %s and %s write to the same file ('%s' and '%s'): "
					 "give each its own file",
					 b->name, a->name, b->file, a->file);
				rc = -EINVAL;
			}
		}
		if (!rc && have_stdout && file_key_same(&keys[i], &keys[spec->n])) {
			snprintf(err, errlen,
				 "output %s file '%s' is where standard output (output %s) goes: "
				 "give it another file",
				 a->name, a->file, to_stdout->name);
			rc = -EINVAL;
		}
	}
	free(keys);
	return rc;
}

int iob_output_spec_check_paths(const struct iob_output_spec *spec, const char *const *protect, size_t nprotect,
				char *err, size_t errlen)
{
	struct file_key *out = calloc(1, sizeof *out), *prot = calloc(1, sizeof *prot);
	int rc = 0;

	if (!out || !prot) {
		free(out);
		free(prot);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < spec->n && !rc; i++) {
		const struct iob_output_item *it = &spec->item[i];
		int is_stdout = !it->file[0];
		if (!is_stdout)
			file_key_of(it->file, out);
		else if (!stdout_key(out))
			continue; /* a terminal or a pipe: nothing to overwrite */
		for (size_t j = 0; j < nprotect && !rc; j++) {
			if (!protect[j] || !protect[j][0])
				continue;
			file_key_of(protect[j], prot);
			if (!file_key_same(out, prot))
				continue;
			if (is_stdout)
				snprintf(err, errlen,
					 "standard output (output %s) goes to '%s', which this run reads or writes: "
					 "send it elsewhere",
					 it->name, protect[j]);
			else
				snprintf(err, errlen,
					 "output %s file '%s' is '%s', which this run reads or writes: choose another "
					 "output file",
					 it->name, it->file, protect[j]);
			rc = -EINVAL;
		}
	}
	free(out);
	free(prot);
	return rc;
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
		/* plugin names are [a-z0-9_]: fio-json is the plugin fio_json */
		for (char *c = it->name; *c; c++)
			if (*c == '-')
				*c = '_';
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
			iob_path_dir(it->file, dir, sizeof dir);
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
			return spec_check_overlap(out, err, errlen);
		p = end + 1;
		if (!*p) {
			snprintf(err, errlen, "bad --output list '%s': trailing comma", text);
			return -EINVAL;
		}
	}
	return spec_check_overlap(out, err, errlen);
}

static int discard_write(void *ctx, const char *data, size_t len)
{
	(void)ctx;
	(void)data;
	(void)len;
	return 0;
}

/* Every output accepts its arguments, tried on a sink that keeps nothing:
 * a refusal must come before any file is created or emptied. */
static int outputs_try(const struct iob_registry *reg, const struct iob_output_spec *spec, char *err, size_t errlen)
{
	for (size_t i = 0; i < spec->n; i++) {
		const struct iob_output_item *it = &spec->item[i];
		const struct iob_loaded *pl = iob_registry_find(reg, IOB_PLUGIN_OUTPUT, it->name);
		const struct iob_sink trial = {.ctx = NULL,
					       .write = discard_write,
					       .name = it->file[0] ? it->file : "stdout",
					       .struct_size = sizeof(struct iob_sink)};
		void *st = NULL;
		if (!pl) {
			snprintf(err, errlen, "unknown output '%s'", it->name);
			return -EINVAL;
		}
		int rc = pl->output.open(&trial, it->args[0] ? it->args : NULL, &st);
		if (rc < 0) {
			snprintf(err, errlen, "output '%s' refused to open%s%s: %s", it->name, it->args[0] ? " with " : "",
				 it->args, strerror(-rc));
			return rc;
		}
		pl->output.close(st);
	}
	return 0;
}

int iob_outputs_open(struct iob_outputs **out, const struct iob_registry *reg, const struct iob_output_spec *spec,
		     char *err, size_t errlen)
{
	*out = NULL;
	int trc = outputs_try(reg, spec, err, errlen);
	if (trc < 0)
		return trc;
	struct iob_outputs *o = calloc(1, sizeof *o);
	if (!o) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < spec->n; i++) {
		const struct iob_output_item *it = &spec->item[i];
		const struct iob_loaded *pl = iob_registry_find(reg, IOB_PLUGIN_OUTPUT, it->name);
		struct sink_file *sf = &o->file[i];
		snprintf(o->oname[i], sizeof o->oname[i], "%s", it->name);
		if (!pl) {
			snprintf(err, errlen, "unknown output '%s'", it->name);
			iob_outputs_close(o);
			return -EINVAL;
		}
		if (it->file[0]) {
			/* "append" (csv:append=FILE) keeps what the file holds */
			sf->f = iob_fopen(it->file, strcmp(it->args, "append") == 0 ? "ae" : "we");
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
			.is_terminal = iob_is_terminal(sf->f),
			.struct_size = sizeof(struct iob_sink),
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
	for (size_t i = 0; o && i < o->n; i++) {                                                             \
		if (!o->plugin[i])                                                                           \
			continue;                                                                            \
		note_error(o, i, o->plugin[i]->output.call);                                                 \
		note_error(o, i, sink_flush(&o->file[i]));                                                   \
	}                                                                                                    \
	return o ? o->status : 0

int iob_outputs_begin(struct iob_outputs *o, const struct iob_run_info *run)
{
	EACH(o, begin_run(o->state[i], run));
}

int iob_outputs_record(struct iob_outputs *o, const struct iob_record *rec)
{
	EACH(o, record(o->state[i], rec));
}

int iob_outputs_record_batch(struct iob_outputs *o, const struct iob_record *rec)
{
	for (size_t i = 0; o && i < o->n; i++) {
		if (!o->plugin[i])
			continue;
		note_error(o, i, o->plugin[i]->output.record(o->state[i], rec));
		struct sink_file *sf = &o->file[i];
		if (o->sink[i].is_terminal) {
			sink_flush(sf);
		} else {
			uint64_t now = iob_now_ns();
			if (now - sf->flushed_ns >= BATCH_NS) {
				sink_flush(sf);
				sf->flushed_ns = now;
			}
		}
		note_error(o, i, o->file[i].err);
	}
	return o ? o->status : 0;
}

int iob_outputs_end(struct iob_outputs *o, const struct iob_run_end *end)
{
	if (o)
		o->ended = 1;
	EACH(o, end_run(o->state[i], end));
}

int iob_outputs_show_notes(const struct iob_outputs *o)
{
	for (size_t i = 0; o && i < o->n; i++) {
		const char *name = o->plugin[i]->desc.name;
		/* bigread's own lines put their notes on stderr whatever stdout is */
		if ((strcmp(name, "human") == 0 && o->sink[i].is_terminal) || strcmp(name, "bigread") == 0)
			return 1;
	}
	return 0;
}

const char *iob_outputs_error(const struct iob_outputs *o)
{
	return o && o->status ? o->error : NULL;
}

/* Flush and, for a file, close what output i wrote to; -errno or 0. */
static int close_file(struct sink_file *sf)
{
	if (!sf->f)
		return 0;
	int rc = sink_flush(sf);
	if (sf->own) {
		errno = 0;
		if (fclose(sf->f) != 0 && !rc)
			rc = errno ? -errno : -EIO;
	}
	sf->f = NULL;
	return rc;
}

int iob_outputs_close_err(struct iob_outputs *o, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!o)
		return 0;
	for (size_t i = 0; i < o->n; i++) {
		if (o->plugin[i])
			note_error(o, i, o->plugin[i]->output.close(o->state[i]));
		note_error(o, i, o->file[i].err);
		note_error(o, i, close_file(&o->file[i]));
	}
	int rc = o->status;
	if (rc && err && errlen)
		snprintf(err, errlen, "%s", o->error);
	free(o);
	return rc;
}

int iob_outputs_close(struct iob_outputs *o)
{
	return iob_outputs_close_err(o, NULL, 0);
}
