/*
 * output.c - several outputs open at once for one run (iobench/output.h).
 */
#include "iobench/output.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iobench/os.h"
#include "iobench/outfile.h"
#include "iobench/units.h"

/* Results are buffered here, not in stdio: a stop signal interrupting a
 * write to a full pipe must neither cut nor lose a line (stdio's state after
 * an interrupted write is not something to build on). */
#define SINK_BUF 65536
struct side_file {
	struct iob_outfile of;
	int err; /* first write error, -errno; sticky */
	struct sink_file *main;
	struct iob_sink sink;
	struct side_file *next;
};

struct sink_file {
	FILE *f;
	struct iob_outfile of; /* a file (of.f == f); stdout otherwise */
	int own;
	int pending; /* opened, not emptied yet: nothing reaches the file */
	int err; /* first write error, -errno; sticky */
	const char *oname;    /* the output's name */
	const char *side_ext; /* its side files' ending, NULL: none */
	struct side_file *sides;
	char side_error[1024]; /* the first failure of a side file, one line */
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
	int committed;
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
	if (sf->err || !sf->f || !sf->used || sf->pending)
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
	if (len > SINK_BUF - sf->used && sf->pending)
		return sf->err = -ENOBUFS; /* an output's open() wrote more than the buffer holds */
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
	if (!o->file[i].err && o->file[i].side_error[0]) /* a side file failed: its own line names it */
		snprintf(o->error, sizeof o->error, "%s", o->file[i].side_error);
	else
		snprintf(o->error, sizeof o->error, "output %s to %s: %s", o->oname[i], o->name[i], strerror(-rc));
}

/* ------------------------------------------------------------------------ */
/* Side files (struct iob_sink's open_side): opened by the host, checked as  */
/* the output's own file is.                                                 */

/* Keep the first failure of a side file as the output's one line. */
static void side_fail(struct sink_file *sf, const char *line)
{
	if (!sf->side_error[0])
		snprintf(sf->side_error, sizeof sf->side_error, "%s", line);
}

static int side_write(void *ctx, const char *data, size_t len)
{
	struct side_file *sd = ctx;
	if (sd->err)
		return sd->err;
	int rc = iob_write_all(sd->of.fd, data, len);
	if (rc < 0) {
		char line[1024];
		sd->err = rc;
		snprintf(line, sizeof line, "output %s to %s: %s", sd->main->oname, IOB_Q(sd->of.path), strerror(-rc));
		side_fail(sd->main, line);
	}
	return rc;
}

static long side_read_head(void *ctx, char *buf, size_t len)
{
	struct side_file *sd = ctx;
	return iob_fd_read_head(sd->of.fd, buf, len);
}

static long sink_read_head(void *ctx, char *buf, size_t len)
{
	struct sink_file *sf = ctx;
	return sf->of.f ? iob_fd_read_head(sf->of.fd, buf, len) : -EBADF;
}

static int sink_open_side(void *ctx, const char *tag, unsigned flags, struct iob_sink *side)
{
	struct sink_file *sf = ctx;
	char path[4096 + 256], err[1024], what[96];
	if (!sf->of.f || !sf->side_ext) {
		snprintf(err, sizeof err, "output %s opens a side file but declares none (side_ext)", sf->oname);
		side_fail(sf, err);
		return -EPERM;
	}
	if (!tag || iob_outfile_side_path(sf->of.path, tag, sf->side_ext, path, sizeof path) != 0) {
		snprintf(err, sizeof err, "output %s: bad side file tag %s", sf->oname, IOB_Q(tag ? tag : ""));
		side_fail(sf, err);
		return -EINVAL;
	}
	struct side_file *sd = calloc(1, sizeof *sd);
	if (!sd)
		return -ENOMEM;
	snprintf(what, sizeof what, "output %s side file", sf->oname);
	unsigned of_flags = (flags & IOB_SIDE_APPEND) ? IOB_OUT_APPEND : 0;
	int rc = iob_outfile_check(what, path, of_flags, err, sizeof err);
	if (rc == 0)
		rc = iob_outfile_open(&sd->of, what, path, of_flags, err, sizeof err);
	if (rc == 0 && !sf->pending)
		rc = iob_outfile_commit(&sd->of); /* the run is going: emptied now */
	if (rc < 0) {
		if (sd->of.f) { /* opened, could not be emptied */
			snprintf(err, sizeof err, "%s %s: %s", what, IOB_Q(path), strerror(-rc));
			iob_outfile_close(&sd->of);
		}
		side_fail(sf, err);
		free(sd);
		return rc;
	}
	sd->main = sf;
	sd->sink = (struct iob_sink){
		.ctx = sd,
		.write = side_write,
		.name = sd->of.path,
		.is_terminal = 0,
		.struct_size = sizeof(struct iob_sink),
		.read_head = side_read_head,
	};
	sd->next = sf->sides;
	sf->sides = sd;
	*side = sd->sink;
	return 0;
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

	/* field by field: norm is 4 KiB, and only its string is read */
	k->exists = k->chardev = 0;
	k->dev = k->ino = 0;
	k->norm[0] = '\0';
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
	k->exists = k->chardev = 0;
	k->dev = k->ino = 0;
	k->norm[0] = '\0';
	if (iob_stream_identity(stdout, &k->dev, &k->ino, &kind) != 0 || kind != IOB_PATH_REGULAR)
		return 0;
	k->exists = 1;
	return 1;
}

/* Two outputs on one file (or on the file stdout goes to) would interleave
 * and leave neither valid. */
static int spec_check_overlap(const struct iob_output_spec *spec, char *err, size_t errlen)
{
	/* each key is set before it is read (stdout's slot by stdout_key) */
	struct file_key *keys = malloc((spec->n + 1) * sizeof *keys);
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
	struct file_key *out = malloc(sizeof *out), *prot = malloc(sizeof *prot); /* set before read */
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
	/* only the items parsed are read (n of them): each is cleared as it
	 * comes, not the whole 35 KB spec */
	out->n = 0;
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
		it->name[0] = it->args[0] = it->file[0] = '\0';
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
			/* the directory must exist, the file be no link, no block
			 * device, no FIFO ...: checked, not touched yet */
			char what[96];
			snprintf(what, sizeof what, "output %s file", it->name);
			int rc = iob_outfile_check(what, it->file,
						   IOB_OUT_CHARDEV | (strcmp(it->args, "append") == 0 ? IOB_OUT_APPEND : 0),
						   err, errlen);
			if (rc < 0)
				return rc;
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

int iob_outputs_open(struct iob_outputs **out, const struct iob_registry *reg, const struct iob_output_spec *spec,
		     char *err, size_t errlen)
{
	*out = NULL;
	struct iob_outputs *o = calloc(1, sizeof *o);
	if (!o) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* Every file is opened (checked, created when missing, not emptied) and
	 * every output opened on its sink before anything reaches a file: an
	 * output that refuses its arguments leaves every file as it was. */
	for (size_t i = 0; i < spec->n; i++) {
		const struct iob_output_item *it = &spec->item[i];
		const struct iob_loaded *pl = iob_registry_find(reg, IOB_PLUGIN_OUTPUT, it->name);
		struct sink_file *sf = &o->file[i];
		snprintf(o->oname[i], sizeof o->oname[i], "%s", it->name);
		sf->oname = o->oname[i];
		if (!pl) {
			snprintf(err, errlen, "unknown output '%s'", it->name);
			iob_outputs_close(o);
			return -EINVAL;
		}
		sf->side_ext = pl->output.side_ext;
		int regular = 0;
		if (it->file[0]) {
			char what[96];
			/* "append" (csv:append=FILE) keeps what the file holds */
			unsigned flags = IOB_OUT_CHARDEV | (strcmp(it->args, "append") == 0 ? IOB_OUT_APPEND : 0);
			snprintf(what, sizeof what, "output %s file", it->name);
			o->n = i + 1;
			int rc = iob_outfile_open(&sf->of, what, it->file, flags, err, errlen);
			if (rc < 0) {
				iob_outputs_close(o);
				return rc;
			}
			sf->f = sf->of.f;
			sf->own = 1;
			sf->pending = 1;
			regular = sf->of.id.kind == IOB_PATH_REGULAR;
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
			.open_side = regular ? sink_open_side : NULL,
			.read_head = regular ? sink_read_head : NULL,
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

int iob_outputs_commit(struct iob_outputs *o, char *err, size_t errlen)
{
	if (!o || o->committed)
		return 0;
	o->committed = 1;
	for (size_t i = 0; i < o->n; i++) {
		struct sink_file *sf = &o->file[i];
		int rc = iob_outfile_commit(&sf->of);
		for (struct side_file *sd = sf->sides; sd && rc == 0; sd = sd->next)
			rc = iob_outfile_commit(&sd->of);
		sf->pending = 0;
		if (rc < 0) {
			snprintf(err, errlen, "output %s file %s: cannot empty it: %s", o->oname[i], IOB_Q(o->name[i]),
				 strerror(-rc));
			note_error(o, i, rc);
			return rc;
		}
	}
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
	char err[16];
	if (o && !o->committed && iob_outputs_commit(o, err, sizeof err) < 0)
		return o->status;
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

/* Flush and, for a file, close what output i wrote to, its side files
 * too; -errno or 0.  Files of outputs that never started (not committed)
 * are removed when the run made them. */
static int close_file(struct sink_file *sf, int committed)
{
	int rc = 0;
	while (sf->sides) {
		struct side_file *sd = sf->sides;
		sf->sides = sd->next;
		if (!committed)
			iob_outfile_unmake(&sd->of);
		int crc = iob_outfile_close(&sd->of);
		if (crc < 0 && !sd->err) {
			char line[1024];
			snprintf(line, sizeof line, "output %s to %s: %s", sf->oname, IOB_Q(sd->of.path), strerror(-crc));
			side_fail(sf, line);
			if (!rc)
				rc = crc;
		}
		if (sd->err && !rc)
			rc = sd->err;
		free(sd);
	}
	if (!sf->f)
		return rc;
	int frc = committed ? sink_flush(sf) : 0;
	if (sf->own) {
		if (!committed)
			iob_outfile_unmake(&sf->of);
		int crc = iob_outfile_close(&sf->of);
		if (crc < 0 && !frc)
			frc = crc;
	}
	sf->f = NULL;
	if (frc < 0) {
		sf->side_error[0] = '\0'; /* the main file's own failure comes first */
		if (!sf->err)
			sf->err = frc;
	}
	return frc < 0 ? frc : rc;
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
		note_error(o, i, close_file(&o->file[i], o->committed));
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

int iob_sink_printf(const struct iob_sink *sink, int *err, size_t cap, const char *fmt, ...)
{
	char line[16384];
	va_list ap;
	if (*err)
		return *err;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return *err = -EINVAL;
	if (cap > sizeof line)
		cap = sizeof line;
	size_t len = (size_t)n < cap ? (size_t)n : cap - 1;
	int rc = sink->write(sink->ctx, line, len);
	if (rc < 0)
		*err = rc;
	return rc < 0 ? rc : 0;
}
