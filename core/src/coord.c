/*
 * coord.c - finding and starting the MPI coordinator module, and the few
 * collective steps the runner takes with it (iobench/coord.h).
 */
#include "iobench/coord.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/cli.h"
#include "iobench/os.h"

#ifndef IOB_COORD_RELDIR
#define IOB_COORD_RELDIR "../lib/iobench/coord"
#endif
#ifndef IOB_COORD_INSTALL_FULLDIR
#define IOB_COORD_INSTALL_FULLDIR ""
#endif
#define COORD_FILE "iob-coord-mpi.so"

static struct {
	const struct iob_coord_ops *ops;
	void *dl;
	int fd;
	int rank, size;
	int serialized;
	int finished;
	char host[256];
} C = {.size = 1, .fd = -1};

const char *iob_coord_launcher(void)
{
	static const char *const vars[] = {"PMI_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK"};
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i]);
		if (v && *v)
			return vars[i];
	}
	return NULL;
}

/* Load the module from dir: the plugin trust check, then dlopen of what was
 * checked.  0, or -errno with the reason in why. */
static int load_from(const char *dir, char *why, size_t whylen)
{
	int fd = iob_plugin_open(dir, COORD_FILE, why, whylen);
	if (fd < 0)
		return fd;
	char err[1024];
	void *dl = iob_dl_open_fd(&fd, err, sizeof err);
	if (!dl) {
		iob_fd_close(fd);
		snprintf(why, whylen, "%s/%s: not a loadable shared object (%s)", dir, COORD_FILE, err);
		return -ENOEXEC;
	}
	void *sym = iob_dl_sym(dl, IOB_COORD_ENTRY_NAME);
	iob_coord_entry_fn entry = NULL;
	if (sym && iob_dl_sym_is_code(sym) != 0)
		memcpy(&entry, &sym, sizeof entry);
	const struct iob_coord_ops *ops = entry ? entry() : NULL;
	if (!ops || ops->abi != IOB_COORD_ABI || ops->struct_size < sizeof *ops) {
		iob_dl_close(dl);
		iob_fd_close(fd);
		snprintf(why, whylen, "%s/%s: not an iobench coordinator of this version", dir, COORD_FILE);
		return -ENOEXEC;
	}
	C.ops = ops;
	C.dl = dl;
	C.fd = fd;
	return 0;
}

int iob_coord_start(char *err, size_t errlen)
{
	const char *var = iob_coord_launcher();
	if (!var || C.ops)
		return 0;
	char exe[4096], dir[4200], why[2048] = "";
	iob_exe_dir(exe, sizeof exe);
	snprintf(dir, sizeof dir, "%s/%s", exe, IOB_COORD_RELDIR);
	int rc = -ENOENT;
	if (exe[0] && iob_path_kind(dir, 1) == IOB_PATH_DIRECTORY)
		rc = load_from(dir, why, sizeof why);
	static const char installed[] = IOB_COORD_INSTALL_FULLDIR; /* "" when not built with one */
	if (rc == -ENOENT && installed[0] && iob_path_kind(installed, 1) == IOB_PATH_DIRECTORY)
		rc = load_from(installed, why, sizeof why);
	if (rc == -ENOENT) {
		snprintf(err, errlen,
			 "started by an MPI launcher (%s is set) but this build has no MPI coordinator (%s: it is "
			 "built only where MPI was found); run without mpirun",
			 var, COORD_FILE);
		return rc;
	}
	if (rc != 0) {
		snprintf(err, errlen, "started by an MPI launcher (%s is set): %s", var, why);
		return rc;
	}
	rc = C.ops->init(&C.rank, &C.size, &C.serialized, why, sizeof why);
	if (rc != 0) {
		snprintf(err, errlen, "%s", why);
		C.ops = NULL;
		return rc;
	}
	iob_hostname(C.host, sizeof C.host);
	C.ops->watch_stop(&iob_cli_stop);
	return 0;
}

int iob_coord_active(void)
{
	return C.ops != NULL && !C.finished;
}

int iob_coord_rank(void)
{
	return iob_coord_active() ? C.rank : 0;
}

int iob_coord_size(void)
{
	return iob_coord_active() ? C.size : 1;
}

int iob_coord_serialized(void)
{
	return iob_coord_active() && C.serialized;
}

int iob_coord_barrier(void)
{
	return iob_coord_active() ? C.ops->barrier() : 0;
}

int iob_coord_gather(const void *buf, uint64_t len, void **all, uint64_t *lens)
{
	if (!iob_coord_active()) {
		*all = malloc(len ? len : 1);
		if (!*all)
			return -ENOMEM;
		memcpy(*all, buf, len);
		lens[0] = len;
		return 0;
	}
	return C.ops->gather(buf, len, all, lens);
}

int iob_coord_bcast(void *buf, uint64_t len)
{
	return iob_coord_active() ? C.ops->bcast(buf, len) : 0;
}

int iob_coord_stop_post(int tag)
{
	return iob_coord_active() ? C.ops->stop_post(tag) : 0;
}

int iob_coord_stop_test(int *from)
{
	return iob_coord_active() ? C.ops->stop_test(from) : 0;
}

int iob_coord_stop_send(int tag, int msg, int to)
{
	return iob_coord_active() ? C.ops->stop_send(tag, msg, to) : 0;
}

void iob_coord_stop_cancel(void)
{
	if (iob_coord_active())
		C.ops->stop_cancel();
}

void iob_coord_finish(void)
{
	if (!iob_coord_active())
		return;
	C.ops->finalize();
	C.finished = 1;
}

/* 128 bits of a part: FNV-1a and a multiply-xorshift, each over the
 * length first and then every byte (NUL bytes included). */
static void hash_part(const void *p, size_t len, uint64_t h[2])
{
	const unsigned char *b = p;
	uint64_t a = 0xcbf29ce484222325ull, c = 0x9e3779b97f4a7c15ull;
	uint64_t n = len;
	for (int i = 0; i < 8; i++) {
		unsigned char x = (unsigned char)(n >> (8 * i));
		a = (a ^ x) * 0x100000001b3ull;
		c = (c + x + 1) * 0xff51afd7ed558ccdull;
		c ^= c >> 29;
	}
	for (size_t i = 0; b && i < len; i++) {
		a = (a ^ b[i]) * 0x100000001b3ull;
		c = (c + b[i] + 1) * 0xff51afd7ed558ccdull;
		c ^= c >> 29;
	}
	h[0] = a;
	h[1] = c;
}

struct vote {
	int32_t status;
	uint32_t nparts;
	uint64_t same[IOB_COORD_PARTS_MAX][2];
	char host[256];
	char reason[1536];
};

struct verdict {
	int32_t status;
	char text[2048];
};

/* Rank 0: rank k's parts against its own (mine); the one line in v. */
static void compare_parts(const struct vote *k_vote, int k, const struct vote *mine, const char *what,
			  const struct iob_coord_part *parts, struct verdict *v)
{
	char diff[1024] = "";
	size_t at = 0, shown = 0;
	uint32_t n = k_vote->nparts < mine->nparts ? k_vote->nparts : mine->nparts;
	for (uint32_t i = 0; i < n; i++) {
		if (memcmp(k_vote->same[i], mine->same[i], sizeof mine->same[i]) == 0)
			continue;
		if (shown++ == 4) {
			snprintf(diff + at, sizeof diff - at, ", ...");
			break;
		}
		int w = snprintf(diff + at, sizeof diff - at, "%s%s", at ? ", " : "",
				 parts && parts[i].what ? parts[i].what : "?");
		if (w < 0 || (size_t)w >= sizeof diff - at)
			break;
		at += (size_t)w;
	}
	if (!diff[0] && k_vote->nparts != mine->nparts)
		snprintf(diff, sizeof diff, "%u parts to compare against %u", k_vote->nparts, mine->nparts);
	if (!diff[0])
		return;
	v->status = -EINVAL;
	snprintf(v->text, sizeof v->text,
		 "rank %d (%s) runs a different %s than rank 0 (differs: %s): every rank must run the same", k,
		 k_vote->host, what ? what : "suite", diff);
}

int iob_coord_agree(int status, const char *reason, const char *what, const struct iob_coord_part *parts,
		    size_t nparts, char *out, size_t outlen)
{
	static struct vote mine; /* the runner's thread only: 3 KiB off its stack */
	struct verdict v;
	memset(&mine, 0, sizeof mine);
	memset(&v, 0, sizeof v);
	if (nparts > IOB_COORD_PARTS_MAX && !status) {
		status = -E2BIG;
		reason = "too many parts to compare across ranks";
	}
	mine.status = status;
	mine.nparts = nparts > IOB_COORD_PARTS_MAX ? 0 : (uint32_t)nparts;
	for (uint32_t i = 0; i < mine.nparts; i++)
		hash_part(parts[i].p, parts[i].len, mine.same[i]);
	snprintf(mine.host, sizeof mine.host, "%s", C.host);
	snprintf(mine.reason, sizeof mine.reason, "%s", reason ? reason : "");
	if (!iob_coord_active()) {
		if (status)
			snprintf(out, outlen, "%s", mine.reason);
		return status;
	}
	void *all = NULL;
	uint64_t *lens = calloc((size_t)C.size, sizeof *lens);
	int rc = lens ? iob_coord_gather(&mine, sizeof mine, &all, lens) : -ENOMEM;
	if (C.rank == 0) {
		const struct vote *vs = all;
		if (rc != 0) {
			v.status = rc;
			snprintf(v.text, sizeof v.text, "rank 0 (%s): gathering the ranks' states failed: %s", C.host,
				 strerror(-rc));
		}
		for (int k = 1; rc == 0 && k < C.size && !v.status; k++)
			if (lens[k] != sizeof mine) { /* before reading its vote */
				v.status = -EINVAL;
				snprintf(v.text, sizeof v.text,
					 "rank %d runs another build of iobench than rank 0 (its agreement is %llu bytes, not "
					 "%zu): every rank must run the same",
					 k, (unsigned long long)lens[k], sizeof mine);
			}
		for (int k = 0; rc == 0 && k < C.size && !v.status; k++)
			if (vs[k].status) {
				v.status = vs[k].status;
				snprintf(v.text, sizeof v.text, "rank %d (%s): %s", k, vs[k].host, vs[k].reason);
			}
		for (int k = 1; rc == 0 && k < C.size && !v.status; k++)
			compare_parts(&vs[k], k, &vs[0], what, parts, &v);
	}
	free(all);
	free(lens);
	int brc = iob_coord_bcast(&v, sizeof v);
	if (brc != 0) {
		snprintf(out, outlen, "rank %d (%s): the MPI broadcast failed", C.rank, C.host);
		return brc;
	}
	if (v.status)
		snprintf(out, outlen, "%s", v.text);
	return v.status;
}
