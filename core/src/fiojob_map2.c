/*
 * fiojob_map2.c - one job's fio keys onto a struct iob_job: shape,
 * priorities, latency target, steady state, and map_job, which maps them
 * all (fiojob_int.h, docs/fio.md; the data's keys: fiojob_data.c).  From
 * the top:
 *   fio_sizes_list        fio's lists of sizes (bssplit, zoned), in bytes
 *   map_latency_target    latency_target and its keys
 *   map_random_generator  random_generator (lfsr: norandommap changes nothing)
 *   map_file_engine       the engines of workload = files (filecreate ...)
 *   map_shape             the shapes of load (shape.c's keys), flow
 *   map_prio              prio, prioclass, cmdprio*
 *   map_steady            ss, ss_dur, ss_ramp, ss_interval
 *   map_errors            ignore_error, continue_on_error's errnos, exitall
 *   map_wait_for, fj_map_job  one job: every key of its section, in order
 */
#include "fiojob_int.h"

/* A fio list of sides (',') of entries (':') of SIZE[/REST], each SIZE as fio
 * reads it (kb_base), written back in bytes; at most two sides kept (a
 * third, trims, is read and dropped: iobench does no trims).  SIZE is the
 * part before '/' (sizes_after: the part after it, zoned_abs). */
static int fio_sizes_list(struct mapper *m, enum fkey k, const char *in, int sizes_after, int plain, char *out,
			  size_t outlen)
{
	char a[FIO_LINE_MAX];
	size_t at = 0;
	snprintf(a, sizeof a, "%s", in);
	out[0] = '\0';
	int side = 0;
	for (char *t = a, *next; t; t = next, side++) {
		next = strchr(t, ',');
		if (next)
			*next++ = '\0';
		if (side == 3)
			return fj_bad(m, k, -EINVAL, "at most three sides (read,write,trim)");
		if (side == 2)
			break; /* trims: none are done */
		if (side)
			at += (size_t)snprintf(out + at, outlen - at, ",");
		int first = 1;
		for (char *e = t, *enext; e && *fj_trim(e); e = enext, first = 0) {
			enext = strchr(e, ':');
			if (enext)
				*enext++ = '\0';
			char *slash = strchr(e, '/');
			if (slash)
				*slash = '\0';
			char *sz = sizes_after ? (slash ? slash + 1 : NULL) : e;
			uint64_t v = 0;
			char num[32] = "";
			if (sz && *fj_trim(sz)) {
				if (plain ? fj_fio_uint(fj_trim(sz), UINT64_MAX, &v, m->why, sizeof m->why)
					  : fj_fio_size(fj_trim(sz), m->kb1000, &v, m->why, sizeof m->why))
					return fj_bad(m, k, -EINVAL, "%s", m->why);
				snprintf(num, sizeof num, "%llu", (unsigned long long)v);
			}
			const char *before = sizes_after ? fj_trim(e) : num, *after = sizes_after ? num : slash ? fj_trim(slash + 1) : "";
			at += (size_t)snprintf(out + at, at < outlen ? outlen - at : 0, "%s%s%s%s", first ? "" : ":", before,
					       slash ? "/" : "", after);
			if (at >= outlen)
				return fj_bad(m, k, -EINVAL, "too long");
		}
	}
	return 0;
}

/* bssplit, random_distribution, rate, rate_iops, rate_process, thinktime:
 * iobench's job keys of the same names (shape.c), sizes in bytes. */
static int map_errors(struct mapper *m);

/* latency_target and its keys (iobench's of the same names, lattarget.h);
 * without a target, fio ignores the others: noted. */
static int map_latency_target(struct mapper *m)
{
	uint64_t target = 0, window = 0;
	int run = 0, rc;
	if ((rc = fj_get_time(m, K_LATENCY_TARGET, 1000ull, &target)) ||
	    (rc = fj_get_time(m, K_LATENCY_WINDOW, 1000ull, &window)) || (rc = fj_get_bool(m, K_LATENCY_RUN, 0, &run)))
		return rc;
	if (!target) {
		for (enum fkey k = K_LATENCY_WINDOW; k <= K_LATENCY_RUN; k++)
			if (fj_get(m, k))
				fj_note_job(m->r, m->job->name, "%s has no effect without latency_target (as in fio)",
					    fj_keys[k].name);
		return 0;
	}
	const struct fval *pct = fj_get(m, K_LATENCY_PERCENTILE);
	if (pct && pct->bare)
		return fj_bad(m, K_LATENCY_PERCENTILE, -EINVAL, "needs a value");
	if ((rc = fj_set_iob_key(m, K_LATENCY_TARGET, "latency_target", "%lluns", (unsigned long long)target)) ||
	    (rc = fj_set_iob_key(m, K_LATENCY_WINDOW, "latency_window", "%lluns", (unsigned long long)window)) ||
	    (pct && (rc = fj_set_iob_key(m, K_LATENCY_PERCENTILE, "latency_percentile", "%s", pct->value))) ||
	    (rc = fj_set_iob_key(m, K_LATENCY_RUN, "latency_run", "%s", run ? "true" : "false")))
		return rc;
	return 0;
}

/* random_generator: iobench's random order is one keyed permutation of the
 * blocks (perm.h), each once a pass with random_map; fio's tausworthe and
 * tausworthe64 draw with replacement and keep a map of the blocks done
 * (norandommap drops the map), and its lfsr visits each block once a pass
 * with no map, so norandommap changes nothing with it. */
static int map_random_generator(struct mapper *m, int *norandommap)
{
	static const char *const gens[] = {"tausworthe", "lfsr", "tausworthe64"};
	const struct fval *v = fj_get(m, K_RANDOM_GENERATOR);
	if (!v)
		return 0;
	size_t i = 0;
	while (!v->bare && i < sizeof gens / sizeof gens[0] && strcasecmp(v->value, gens[i]) != 0)
		i++;
	if (v->bare || i == sizeof gens / sizeof gens[0])
		return fj_bad(m, K_RANDOM_GENERATOR, -EINVAL, "give tausworthe, lfsr or tausworthe64");
	int spr = 0;
	if (fj_get_bool(m, K_SPRANDOM, 0, &spr) == 0 && spr)
		return 0; /* sprandom's own order, with no map (map_sprandom) */
	if (i == 1 && *norandommap) {
		fj_note_job(m->r, m->job->name, "random_generator=lfsr visits each block once a pass whatever norandommap "
				"says (as in fio): random_map = true");
		*norandommap = 0;
	}
	return 0;
}

/* sprandom and its keys (iobench's of the same names, spr.h): fio refuses
 * norandommap=0 and a generator but lfsr given with it, and sets them when
 * not given; iobench's sprandom draws its own order, with no map.  Without
 * sprandom, fio ignores its keys: noted. */
static int map_sprandom(struct mapper *m, int *norandommap)
{
	int on, rc;
	if ((rc = fj_get_bool(m, K_SPRANDOM, 0, &on)))
		return rc;
	if (!on) {
		for (enum fkey k = K_SPR_NUM_REGIONS; k <= K_SPR_CS; k++)
			if (fj_get(m, k))
				fj_note_job(m->r, m->job->name, "%s has no effect without sprandom (as in fio)", fj_keys[k].name);
		return 0;
	}
	const struct fval *v = fj_get(m, K_NORANDOMMAP);
	int nomap = 1;
	if (v && ((rc = fj_get_bool(m, K_NORANDOMMAP, 1, &nomap)) || !nomap))
		return rc ? rc : fj_bad(m, K_NORANDOMMAP, -EINVAL, "sprandom needs norandommap=1 (as fio)");
	if ((v = fj_get(m, K_RANDOM_GENERATOR)) && (v->bare || strcasecmp(v->value, "lfsr") != 0))
		return fj_bad(m, K_RANDOM_GENERATOR, -EINVAL, "sprandom needs random_generator=lfsr (as fio)");
	uint64_t regions, cs;
	int cs_set;
	if ((rc = fj_get_uint(m, K_SPR_NUM_REGIONS, UINT32_MAX, 100, &regions)) ||
	    (rc = fj_get_size(m, K_SPR_CS, &cs, &cs_set)))
		return rc;
	if ((v = fj_get(m, K_SPR_OP)) && v->bare)
		return fj_bad(m, K_SPR_OP, -EINVAL, "needs a value");
	if ((rc = fj_set_iob_key(m, K_SPRANDOM, "sprandom", "%s", "true")) ||
	    (rc = fj_set_iob_key(m, K_SPR_NUM_REGIONS, "spr_num_regions", "%llu", (unsigned long long)regions)) ||
	    (v && (rc = fj_set_iob_key(m, K_SPR_OP, "spr_op", "%s", v->value))) ||
	    (rc = fj_set_iob_key(m, K_SPR_CS, "spr_cs", "%llu", (unsigned long long)(cs_set ? cs : 0))))
		return rc;
	*norandommap = 1; /* as fio sets it */
	return 0;
}

/* fio's file and directory engines as a files job (meta.c, docs/metadata.md):
 * each of fio's I/Os is one file (or directory) made, stat'ed or removed.
 * 1: mapped; 0: not one of them; < 0: refused. */
static int map_file_engine(struct mapper *m)
{
	static const struct {
		const char *name, *phases;
		int dirs;
	} engines[] = {{"filecreate", "create", 0}, {"filestat", "create,stat", 0}, {"filedelete", "create,remove", 0},
		       {"dircreate", "mkdir", 1},     {"dirstat", "dirstat", 1},
		       {"dirdelete", "mkdir,rmdir", 1}};
	struct iob_job *job = m->job;
	const struct fval *v = fj_get(m, K_IOENGINE);
	int e = -1, rc, flag;
	for (size_t i = 0; v && !v->bare && i < sizeof engines / sizeof engines[0]; i++)
		if (strcmp(v->value, engines[i].name) == 0)
			e = (int)i;
	const struct fval *fa = fj_get(m, K_FALLOCATE);
	if (fa && (fa->bare || strcmp(fa->value, "none") != 0))
		return fj_bad(m, K_FALLOCATE, -EINVAL, "iobench does not preallocate files: give none");
	if (e < 0) {
		/* a data job: create_on_open=1 is fio's "no layout" (fiojob.c, add_layouts);
		 * iobench creates a written file at its open anyway */
		if ((rc = fj_get_bool(m, K_CREATE_ON_OPEN, 0, &m->s->create_on_open)))
			return rc;
		if (fj_get(m, K_OPENFILES))
			return fj_bad(m, K_OPENFILES, -EINVAL,
				      "only with the file and directory engines (filecreate, filestat, filedelete, "
				      "dircreate, dirstat, dirdelete)");
		return 0;
	}
	uint64_t nfiles, openfiles, bs, fsize, size;
	int fsize_set, size_set;
	if ((rc = fj_get_uint(m, K_NRFILES, 100000000, 1, &nfiles)) ||
	    (rc = fj_get_uint(m, K_OPENFILES, UINT32_MAX, 1, &openfiles)) ||
	    (rc = fj_get_bool(m, K_CREATE_ON_OPEN, 0, &flag)) || (rc = fj_get_range(m, K_FILESIZE, &fsize, &fsize_set)) ||
	    (rc = fj_get_size(m, K_SIZE, &size, &size_set)))
		return rc;
	if (!nfiles || !openfiles)
		return fj_bad(m, !nfiles ? K_NRFILES : K_OPENFILES, -EINVAL, "give at least 1");
	/* fio counts an I/O of bs per filesize (filesize, or size / nrfiles): one
	 * operation a file only when they are equal */
	bs = 4096;
	const struct fval *b = fj_get(m, K_BS);
	if (b && (b->bare || fj_fio_size(b->value, m->kb1000, &bs, m->why, sizeof m->why)))
		return fj_bad(m, K_BS, -EINVAL, "one size with the file and directory engines");
	if (!fsize_set && size_set)
		fsize = size / nfiles;
	if ((!fsize_set && !size_set) || fsize != bs) /* a larger size: fio stops at nrfiles x filesize */
		return fj_bad(m, fsize_set ? K_FILESIZE : K_SIZE, -EINVAL,
			      "with ioengine=%s fio counts filesize / bs operations a file: iobench does one, so give "
			      "filesize equal to bs (%llu)",
			      v->value, (unsigned long long)bs);
	uint64_t loops; /* fio repeats each file's operation every loop */
	if ((rc = fj_get_uint(m, K_LOOPS, UINT32_MAX, 1, &loops)))
		return rc;
	if (loops > 1)
		return fj_bad(m, K_LOOPS, -EINVAL,
			      "with ioengine=%s fio repeats every file's operation each loop: iobench's files workload "
			      "does it once a file, so give loops=1 (or more nrfiles)",
			      v->value);
	if ((rc = fj_set_iob_key(m, K_IOENGINE, "workload", "files")) ||
	    (rc = fj_set_iob_key(m, K_IOENGINE, "meta_phases", "%s", engines[e].phases)) ||
	    (rc = fj_set_iob_key(m, K_NRFILES, "files", "%llu", engines[e].dirs ? 1ull : (unsigned long long)nfiles)) ||
	    (rc = fj_set_iob_key(m, K_NRFILES, "file_bytes", "0")))
		return rc;
	if (engines[e].dirs) { /* nrfiles directories: the tree's root and nrfiles - 1 below it */
		if (nfiles > 1000000)
			return fj_bad(m, K_NRFILES, -EINVAL, "at most 1000000 directories a stream");
		if ((rc = fj_set_iob_key(m, K_NRFILES, "tree_depth", "%d", nfiles > 1)) ||
		    (nfiles > 1 && (rc = fj_set_iob_key(m, K_NRFILES, "tree_branch", "%llu", (unsigned long long)nfiles - 1))))
			return rc;
	}
	if (openfiles > 1)
		fj_note_job(m->r, job->name, "openfiles=%llu: iobench's stream has one file open at a time",
			    (unsigned long long)openfiles);
	fj_note_job(m->r, job->name,
		    "ioengine=%s is the files workload (meta_phases = %s): each stream works in a tree of its own "
		    "(iobench.%s.<stream>)%s",
		    v->value, engines[e].phases, job->name,
		    strchr(engines[e].phases, ',') ? "; what it works on is made in a timed phase of its own first, "
						     "where fio lays it out untimed"
		    : strcmp(engines[e].phases, "dirstat") == 0 ? "; its directories are made untimed first, as fio "
								   "lays them out"
								 : "");
	return 1;
}

static int map_shape(struct mapper *m)
{
	struct iob_job *job = m->job;
	char text[FIO_LINE_MAX];
	const struct fval *v;
	static const struct {
		enum fkey k;
		const char *ikey;
		int plain;
	} lists[] = {{K_BSSPLIT, "bssplit", 0},	     {K_RATE, "rate", 0},
		     {K_RATE_IOPS, "rate_iops", 1},	     {K_RATE_MIN, "rate_min", 0},
		     {K_RATE_IOPS_MIN, "rate_iops_min", 1}};
	for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
		if (!(v = fj_get(m, lists[i].k)))
			continue;
		if (v->bare)
			return fj_bad(m, lists[i].k, -EINVAL, "needs a value");
		int rc = fio_sizes_list(m, lists[i].k, v->value, 0, lists[i].plain, text, sizeof text);
		if (rc)
			return rc;
		if (iob_job_set(job, lists[i].ikey, text, m->why, sizeof m->why))
			return fj_bad(m, lists[i].k, -EINVAL, "%s", m->why);
	}
	if ((v = fj_get(m, K_RANDOM_DISTRIBUTION))) {
		const char *val = v->bare ? "" : v->value;
		snprintf(text, sizeof text, "%s", val);
		if (strncmp(val, "zoned_abs:", 10) == 0) { /* its sizes as fio reads them */
			int rc = fio_sizes_list(m, K_RANDOM_DISTRIBUTION, val + 10, 1, 0, text + 10, sizeof text - 10);
			if (rc)
				return rc;
			memcpy(text, "zoned_abs:", 10);
		}
		if (!text[0] || iob_job_set(job, "random_distribution", text, m->why, sizeof m->why))
			return fj_bad(m, K_RANDOM_DISTRIBUTION, -EINVAL, "%s", text[0] ? m->why : "needs a value");
		if (job->access != IOB_ACCESS_RAND && strcmp(text, "random") != 0)
			return fj_bad(m, K_RANDOM_DISTRIBUTION, -EINVAL, "needs random I/O (rw=randread, randwrite or randrw)");
	}
	if ((v = fj_get(m, K_RATE_PROCESS)) && iob_job_set(job, "rate_process", v->bare ? "" : v->value, m->why, sizeof m->why))
		return fj_bad(m, K_RATE_PROCESS, -EINVAL, "give linear or poisson");
	uint64_t think, spin, blocks, ba, delay;
	int rc, ba_set;
	if ((v = fj_get(m, K_STARTDELAY)) && !v->bare && strpbrk(v->value, "-:"))
		return fj_bad(m, K_STARTDELAY, -EINVAL, "a range (a random delay) is not available: give one time");
	if ((rc = fj_get_time(m, K_STARTDELAY, 1000000000ull, &delay)))
		return rc;
	job->start_delay_ns = delay;
	if ((rc = fj_get_range(m, K_BLOCKALIGN, &ba, &ba_set)))
		return rc;
	if (ba_set) {
		if (!ba)
			return fj_bad(m, K_BLOCKALIGN, -EINVAL, "give at least 1 byte");
		job->offset_align = ba;
	}
	if ((v = fj_get(m, K_CONTINUE_ON_ERROR))) {
		const char *c = v->bare ? "1" : v->value;
		if (strcmp(c, "verify") == 0)
			return fj_bad(m, K_CONTINUE_ON_ERROR, -EINVAL, "verify errors are not passed over: give none, read, write, io or all");
		if (iob_job_set(job, "continue_on_error", c, m->why, sizeof m->why))
			return fj_bad(m, K_CONTINUE_ON_ERROR, -EINVAL, "give none, read, write, io, all, 0 or 1");
	}
	if ((rc = map_errors(m)))
		return rc;
	int dump_all;
	if ((rc = fj_get_bool(m, K_ERROR_DUMP, 1, &dump_all)))
		return rc;
	if (dump_all && fj_get(m, K_ERROR_DUMP) && (fj_get(m, K_CONTINUE_ON_ERROR) || fj_get(m, K_IGNORE_ERROR)))
		fj_note_job(m->r, job->name,
			    "error_dump=1: iobench counts the errors it passes over (io_errors) and prints none of them, "
			    "where fio prints each");
	if (fj_get(m, K_FLOW) || fj_get(m, K_FLOW_ID) || fj_get(m, K_FLOW_SLEEP)) { /* fio's flow */
		uint64_t w, id, nap;
		if ((v = fj_get(m, K_FLOW)) && !v->bare && v->value[0] == '-')
			return fj_bad(m, K_FLOW, -EINVAL, "a negative weight is not available: give 1 or more");
		int rc2;
		if ((rc2 = fj_get_uint(m, K_FLOW, 1000000, 0, &w)) || (rc2 = fj_get_uint(m, K_FLOW_ID, 63, 0, &id)) ||
		    (rc2 = fj_get_time(m, K_FLOW_SLEEP, 1000ull, &nap)))
			return rc2;
		if ((rc2 = fj_set_iob_key(m, K_FLOW, "flow", "%llu", (unsigned long long)w)) ||
		    (w && ((rc2 = fj_set_iob_key(m, K_FLOW_ID, "flow_id", "%llu", (unsigned long long)id)) ||
			   (rc2 = fj_set_iob_key(m, K_FLOW_SLEEP, "flow_sleep", "%lluns", (unsigned long long)nap)))))
			return rc2;
	}
	if ((v = fj_get(m, K_PERCENTILE_LIST))) { /* fio's ':'-separated list of ranks */
		if (v->bare || !v->value[0])
			return fj_bad(m, K_PERCENTILE_LIST, -EINVAL, "needs a list, e.g. 99:99.9");
		if (iob_job_set(job, "percentiles", v->value, m->why, sizeof m->why) != 0)
			return fj_bad(m, K_PERCENTILE_LIST, -EINVAL, "%s", m->why);
	}
	if ((v = fj_get(m, K_IO_SUBMIT_MODE))) {
		if (v->bare || (strcmp(v->value, "inline") != 0 && strcmp(v->value, "offload") != 0))
			return fj_bad(m, K_IO_SUBMIT_MODE, -EINVAL, "give inline or offload");
		if (strcmp(v->value, "offload") == 0)
			fj_note_job(m->r, job->name,
				 "io_submit_mode=offload: iobench's stream submits its own I/O (inline), where fio hands "
				 "submission to a helper thread");
	}
	if ((rc = fj_get_time(m, K_THINKTIME, 1000ull, &think)) || (rc = fj_get_time(m, K_THINKTIME_SPIN, 1000ull, &spin)) ||
	    (rc = fj_get_uint(m, K_THINKTIME_BLOCKS, UINT32_MAX, 1, &blocks)))
		return rc;
	if (!blocks)
		return fj_bad(m, K_THINKTIME_BLOCKS, -EINVAL, "give at least 1");
	if (spin > think)
		return fj_bad(m, fj_get(m, K_THINKTIME_SPIN) ? K_THINKTIME_SPIN : K_THINKTIME, -EINVAL,
			   "thinktime_spin is longer than thinktime");
	job->thinktime_ns = think;
	job->thinktime_spin_ns = spin;
	job->thinktime_blocks = (uint32_t)blocks;
	return 0;
}

/* prio, prioclass: the thread's priority; cmdprio_*: fio's libaio and
 * io_uring options, a priority per I/O. */
static int map_prio(struct mapper *m, int file_engine)
{
	struct iob_job *job = m->job;
	const struct fval *v;
	uint64_t level, cls;
	int rc;
	if ((rc = fj_get_uint(m, K_PRIO, 7, 0, &level)) || (rc = fj_get_uint(m, K_PRIOCLASS, 3, 0, &cls)))
		return rc;
	if (fj_get(m, K_PRIO) || fj_get(m, K_PRIOCLASS)) {
		enum fkey k = fj_get(m, K_PRIOCLASS) ? K_PRIOCLASS : K_PRIO;
		if (file_engine)
			return fj_bad(m, k, -EINVAL, "not with the file and directory engines");
		if ((rc = fj_set_iob_key(m, k, "prio_class", "%llu", (unsigned long long)(cls ? cls : 2))) ||
		    (rc = fj_set_iob_key(m, k, "prio_level", "%llu", (unsigned long long)level)))
			return rc;
	}
	static const struct {
		enum fkey k;
		const char *ikey;
	} per_io[] = {{K_CMDPRIO_PCT, "cmdprio_percentage"},
		      {K_CMDPRIO_CLASS, "cmdprio_class"},
		      {K_CMDPRIO, "cmdprio_level"},
		      {K_CMDPRIO_BSSPLIT, "cmdprio_bssplit"}};
	char text[FIO_LINE_MAX];
	for (size_t i = 0; i < sizeof per_io / sizeof per_io[0]; i++) {
		if (!(v = fj_get(m, per_io[i].k)))
			continue;
		if (file_engine || (strcmp(job->backend, "libaio") != 0 && strcmp(job->backend, "io_uring") != 0))
			return fj_bad(m, per_io[i].k, -EINVAL,
				      "is an option of fio's libaio and io_uring engines (a priority per I/O), not of "
				      "ioengine=%s",
				      (v = fj_get(m, K_IOENGINE)) && !v->bare ? v->value : "psync");
		if (v->bare)
			return fj_bad(m, per_io[i].k, -EINVAL, "needs a value");
		snprintf(text, sizeof text, "%s", v->value);
		if (per_io[i].k == K_CMDPRIO_BSSPLIT && (rc = fio_sizes_list(m, per_io[i].k, v->value, 0, 0, text, sizeof text)))
			return rc;
		if ((rc = fj_set_iob_key(m, per_io[i].k, per_io[i].ikey, "%s", text)))
			return rc;
	}
	return 0;
}

/* fio's steady state (ss, ss_dur, ss_ramp, ss_interval) with fio's meaning:
 * rounds of ss_interval (fio's sampling interval, 1 s by default), each a
 * sample judged when it ends; a window of ss_dur / ss_interval rounds; at
 * most runtime. */
static int map_steady(struct mapper *m, uint64_t runtime_ns)
{
	const struct fval *ss = fj_get(m, K_SS);
	uint64_t dur_ns, ramp_ns, every_ns;
	int rc;
	if ((rc = fj_get_time(m, K_SS_DUR, 1000000000ull, &dur_ns)) ||
	    (rc = fj_get_time(m, K_SS_RAMP, 1000000000ull, &ramp_ns)) ||
	    (rc = fj_get_time(m, K_SS_INTERVAL, 1000000000ull, &every_ns)))
		return rc;
	if (!ss) {
		enum fkey set = fj_get(m, K_SS_DUR) ? K_SS_DUR : fj_get(m, K_SS_RAMP) ? K_SS_RAMP : K_SS_INTERVAL;
		return fj_get(m, set) ? fj_bad(m, set, -EINVAL, "needs ss (e.g. ss=iops:10%%)") : 0;
	}
	if (!fj_get(m, K_SS_INTERVAL))
		every_ns = 1000000000ull; /* fio's default */
	char metric[16] = "", limit[32];
	const char *colon = strchr(ss->value, ':');
	size_t ml = colon ? (size_t)(colon - ss->value) : 0;
	static const char kinds[] = "give iops:X%, bw:X% or lat:X%, or iops_slope:X%, bw_slope:X% or lat_slope:X%";
	if (!colon || ml >= sizeof metric)
		return fj_bad(m, K_SS, -EINVAL, "%s", kinds);
	memcpy(metric, ss->value, ml);
	int slope = ml > 6 && strcmp(metric + ml - 6, "_slope") == 0;
	if (slope)
		metric[ml - 6] = '\0';
	if ((strcmp(metric, "iops") != 0 && strcmp(metric, "bw") != 0 && strcmp(metric, "lat") != 0) ||
	    !strchr(colon + 1, '%'))
		return fj_bad(m, K_SS, -EINVAL, "%s (a limit in units, not a percent, is not available)", kinds);
	snprintf(limit, sizeof limit, "%s", colon + 1);
	if (every_ns < 1000000000ull)
		return fj_bad(m, K_SS_INTERVAL, -EINVAL, "give at least 1 s, as fio requires");
	if (!dur_ns || dur_ns % every_ns || dur_ns / every_ns < 2)
		return fj_bad(m, K_SS_DUR, -EINVAL, "give ss_dur as a whole number of ss_interval (%.3f s), at least 2: the window of rounds",
			   (double)every_ns / 1e9);
	if (!runtime_ns || runtime_ns < dur_ns)
		return fj_bad(m, K_SS, -EINVAL, "needs runtime (at least ss_dur): rounds of ss_interval run until steady or runtime");
	if (m->job->ramp_ns)
		return fj_bad(m, K_SS, -EINVAL, "with ramp_time, every round would ramp: use ss_ramp");
	char text[32];
	struct iob_job *job = m->job;
	snprintf(text, sizeof text, "%llu", (unsigned long long)(dur_ns / every_ns));
	if (iob_job_set(job, "steady_state", metric, m->why, sizeof m->why) ||
	    iob_job_set(job, "steady_rule", slope ? "slope" : "deviation", m->why, sizeof m->why) ||
	    iob_job_set(job, "steady_limit", limit, m->why, sizeof m->why))
		return fj_bad(m, K_SS, -EINVAL, "%s", m->why);
	uint64_t rounds = runtime_ns / every_ns;
	if (iob_job_set(job, "steady_window", text, m->why, sizeof m->why))
		return fj_bad(m, K_SS_DUR, -EINVAL, "%s", m->why);
	snprintf(text, sizeof text, "%llu", (unsigned long long)(rounds > 100000 ? 100000 : rounds));
	if (iob_job_set(job, "steady_max_rounds", text, m->why, sizeof m->why))
		return fj_bad(m, K_SS, -EINVAL, "runtime: %s", m->why);
	/* the round in the largest unit that holds it whole */
	int s_ok = every_ns % 1000000000ull == 0, ms_ok = every_ns % 1000000ull == 0;
	snprintf(text, sizeof text, "%llu%s",
		 (unsigned long long)(every_ns / (s_ok ? 1000000000ull : ms_ok ? 1000000ull : 1000ull)),
		 s_ok ? "s" : ms_ok ? "ms" : "us");
	if (iob_job_set(job, "steady_round", text, m->why, sizeof m->why))
		return fj_bad(m, K_SS_INTERVAL, -EINVAL, "%s", m->why);
	job->steady_ramp_ns = ramp_ns;
	fj_note_job(m->r, job->name,
		 "ss: iobench judges rounds of %s, each a run of the phase of its own (files reopened, sequential I/O "
		 "from the start), where fio samples one running job every ss_interval",
		 job->steady_round);
	return 0;
}

/* ignore_error, and continue_on_error's errnos: fio passes over only EIO and
 * EILSEQ (its non-fatal errors) in a direction ignore_error gives no list
 * for; exitall and exit_what. */
static int map_errors(struct mapper *m)
{
	struct iob_job *job = m->job;
	const struct fval *v = fj_get(m, K_IGNORE_ERROR);
	char list[3][FIO_LINE_MAX / 2], text[FIO_LINE_MAX];
	memset(list, 0, sizeof list);
	if (v && !v->bare) {
		const char *p = v->value;
		for (int d = 0; d < 3 && p; d++) {
			const char *c = strchr(p, ',');
			size_t n = c ? (size_t)(c - p) : strlen(p);
			if (n >= sizeof list[d])
				return fj_bad(m, K_IGNORE_ERROR, -EINVAL, "a list is too long");
			memcpy(list[d], p, n);
			p = c ? c + 1 : NULL;
		}
		if (p) /* a fourth list */
			return fj_bad(m, K_IGNORE_ERROR, -EINVAL, "give READS,WRITES[,VERIFY], ':' lists of errnos");
	} else if (v) {
		return fj_bad(m, K_IGNORE_ERROR, -EINVAL, "needs READS,WRITES[,VERIFY], ':' lists of errnos");
	}
	for (int d = 0; d < 2; d++)
		if ((job->continue_on_error >> d & 1) && !list[d][0])
			snprintf(list[d], sizeof list[d], "EIO:EILSEQ");
	if (list[0][0] || list[1][0] || list[2][0]) {
		snprintf(text, sizeof text, "%s,%s%s%s", list[0], list[1], list[2][0] ? "," : "", list[2]);
		if (iob_job_set(job, "ignore_error", text, m->why, sizeof m->why))
			return fj_bad(m, v ? K_IGNORE_ERROR : K_CONTINUE_ON_ERROR, -EINVAL, "%s", m->why);
	}
	int exitall, rc;
	if ((rc = fj_get_bool(m, K_EXITALL, 0, &exitall)))
		return rc;
	const struct fval *w = fj_get(m, K_EXIT_WHAT);
	const char *what = w && !w->bare ? w->value : "group";
	if (w && strcmp(what, "group") != 0 && strcmp(what, "stonewall") != 0 && strcmp(what, "all") != 0)
		return fj_bad(m, K_EXIT_WHAT, -EINVAL, "give group, stonewall or all");
	/* the file's jobs are mapped in order: this one is the suite's next */
	size_t at = m->r->suite->njobs;
	m->r->exit_what[at] = strcmp(what, "all") == 0 ? IOB_EXIT_ALL : IOB_EXIT_GROUP;
	m->r->exit_what_given[at] = !w ? 0 : what[0] == 'g' ? 1 : what[0] == 's' ? 2 : 3;
	if (exitall && !m->r->exitall_job[0])
		snprintf(m->r->exitall_job, sizeof m->r->exitall_job, "%s", job->name);
	return 0; /* exit_others: fj_exitall, once every job is mapped */
}

/* fio's exitall sets one flag for the whole run (exitall_on_terminate):
 * with it, the end of any job (exitall=1 or not) stops its group, by that
 * job's own exit_what.  So every job of the file gets exit_others when one
 * job has exitall=1; without any, exit_what has no effect. */
void fj_exitall(struct reader *r)
{
	struct iob_suite *s = r->suite;
	int others = 0;
	for (size_t j = 0; j < s->njobs; j++) {
		if (r->exitall_job[0]) {
			s->jobs[j].exit_others = r->exit_what[j];
			s->jobs[j].exit_report = r->exit_what_given[j] <= 1; /* group (the default): its reporting group */
		}
		else if (r->exit_what_given[j])
			fj_note_job(r, s->jobs[j].name, "exit_what=%s without exitall: no effect, as in fio",
				    r->exit_what_given[j] == 1 ? "group" : r->exit_what_given[j] == 2 ? "stonewall" : "all");
		others |= r->exitall_job[0] && strcmp(s->jobs[j].name, r->exitall_job) != 0;
	}
	if (others)
		fj_note(r, "exitall=1 (job %s) is fio's flag for the whole file: every job's end stops its group "
			   "(exit_others, by the job's own exit_what), a job without exitall too, as in fio",
			r->exitall_job);
}

/* fio's wait_for=NAME: the job starts once the earlier job NAME has
 * finished.  iobench runs its groups one after another, so NAME in the group
 * running last means a new group (*stonewall), and NAME in an earlier group
 * has finished before this job's group starts: nothing changes. */
static int map_wait_for(struct mapper *m, const char *name, uint32_t group, size_t index, int *stonewall)
{
	const struct iob_job *jobs = m->r->suite->jobs;
	size_t found = index, others = 0;
	for (size_t i = 0; i < index; i++)
		if (strcmp(jobs[i].name, name) == 0)
			found = i;
	if (found == index)
		return fj_bad(m, K_WAIT_FOR, -EINVAL, "no job named '%s' before this one (a job waits for an earlier one)",
			      IOB_Q(name));
	if (jobs[found].group != group)
		return 0;
	for (size_t i = 0; i < index; i++)
		others += jobs[i].group == group && strcmp(jobs[i].name, name) != 0;
	if (others && !*stonewall)
		fj_note_job(m->r, m->job->name,
			    "wait_for=%s: the job also waits for the %zu other job(s) running with it (iobench starts it "
			    "after their whole group)",
			    name, others);
	*stonewall = 1;
	return 0;
}

/* zonemode=strided and its keys: iobench's zone_size, zone_range, zone_skip
 * (zbd is refused before: fj_refuse_needs) */
static int map_zones(struct mapper *m)
{
	const struct fval *mode = fj_get(m, K_ZONEMODE);
	const int strided = mode && strcmp(mode->value, "strided") == 0;
	uint64_t zsize = 0, zrange = 0, zskip = 0;
	int set_size, set_range, set_skip, rc;
	if (mode && !strided && strcmp(mode->value, "none") != 0)
		return fj_bad(m, K_ZONEMODE, -EINVAL, "give none or strided (zbd needs a zoned block device)");
	if ((rc = fj_get_size(m, K_ZONESIZE, &zsize, &set_size)) || (rc = fj_get_size(m, K_ZONERANGE, &zrange, &set_range)) ||
	    (rc = fj_get_size(m, K_ZONESKIP, &zskip, &set_skip)))
		return rc;
	if (!strided) {
		if (zsize) /* fio 3.33: "--zonemode=none and --zonesize are not compatible" */
			return fj_bad(m, K_ZONESIZE, -EINVAL, "needs zonemode=strided (with zonemode=none fio refuses it too)");
		return 0;
	}
	if (!zsize)
		return fj_bad(m, set_size ? K_ZONESIZE : K_ZONEMODE, -EINVAL,
			      "zonemode=strided needs zonesize above 0 (the bytes of I/O in a zone)");
	if ((rc = fj_set_iob_key(m, K_ZONESIZE, "zone_size", "%llu", (unsigned long long)zsize)) ||
	    (zrange && (rc = fj_set_iob_key(m, K_ZONERANGE, "zone_range", "%llu", (unsigned long long)zrange))) ||
	    (zskip && (rc = fj_set_iob_key(m, K_ZONESKIP, "zone_skip", "%llu", (unsigned long long)zskip))))
		return rc;
	return 0;
}

int fj_map_job(struct reader *r, struct fsection *s, struct iob_job *job, uint32_t *group, size_t index)
{
	struct mapper m = {.r = r, .s = s, .job = job};
	int rc;
	uint64_t u;
	iob_job_defaults(job);
	const struct fval *kb = fj_get(&m, K_KB_BASE);
	if (kb && strcmp(kb->value, "1000") != 0 && strcmp(kb->value, "1024") != 0)
		return fj_bad(&m, K_KB_BASE, -EINVAL, "give 1024 or 1000");
	m.kb1000 = kb && strcmp(kb->value, "1000") == 0;

	const struct fval *nm = fj_get(&m, K_NAME);
	char spaced[sizeof job->name];
	const char *name = nm && nm->value[0] ? nm->value : s->name;
	if (strchr(name, ' ') && strlen(name) < sizeof spaced) { /* fio allows spaces; a name here names files */
		snprintf(spaced, sizeof spaced, "%s", name);
		for (char *c = spaced; *c; c++)
			*c = *c == ' ' ? '_' : *c;
		if (fj_valid_name(spaced)) {
			fj_note(r, "job '%s' is named %s in iobench (a job's name names its files: no spaces)", name, spaced);
			name = spaced;
		}
	}
	if (!fj_valid_name(name) || strlen(name) >= sizeof job->name)
		return nm ? fj_bad(&m, K_NAME, -EINVAL, "a job name may only use letters, digits, _ - . (it names files)")
			  : fj_fail(r, -EINVAL, "%s: [%s]: a job name may only use letters, digits, _ - . (it names files)",
				 s->where, IOB_Q(s->name));
	snprintf(job->name, sizeof job->name, "%s", name);

	uint64_t numjobs, iodepth, runtime_ns, ramp_ns;
	int time_based, flag;
	if ((rc = fj_get_uint(&m, K_NUMJOBS, IOB_THREADS_MAX, 1, &numjobs)) ||
	    (rc = fj_get_uint(&m, K_IODEPTH, IOB_IODEPTH_MAX, 1, &iodepth)) ||
	    (rc = fj_get_time(&m, K_RUNTIME, 1000000000ull, &runtime_ns)) ||
	    (rc = fj_get_time(&m, K_RAMP_TIME, 1000000000ull, &ramp_ns)) || (rc = fj_get_bool(&m, K_TIME_BASED, 0, &time_based)) ||
	    (rc = fj_get_bool(&m, K_THREAD, 0, &flag)) || (rc = fj_get_bool(&m, K_GROUP_REPORTING, 0, &flag)))
		return rc;
	if (!numjobs || !iodepth)
		return fj_bad(&m, !numjobs ? K_NUMJOBS : K_IODEPTH, -EINVAL, "give at least 1");
	if (time_based && !runtime_ns) { /* fio warns and turns time_based off */
		fj_note_job(r, job->name, "time_based without runtime is ignored, as fio ignores it (with a warning): "
					  "the job ends after its size");
		time_based = 0;
	}
	if ((rc = fj_set_iob_key(&m, K_NUMJOBS, "threads", "%llu", (unsigned long long)numjobs)) ||
	    (rc = fj_set_iob_key(&m, K_IODEPTH, "iodepth", "%llu", (unsigned long long)iodepth)) ||
	    (rc = fj_set_iob_key(&m, K_RUNTIME, "runtime", "%lluns", (unsigned long long)runtime_ns)) ||
	    (rc = fj_set_iob_key(&m, K_TIME_BASED, "time_based", "%s", time_based ? "true" : "false")) ||
	    (rc = fj_set_iob_key(&m, K_RAMP_TIME, "ramp_time", "%lluns", (unsigned long long)ramp_ns)))
		return rc;
	int fe = map_file_engine(&m);
	if (fe < 0)
		return fe;
	if (fe && (rc = fj_map_files(&m, numjobs))) /* the directory (--dir) */
		return rc;
	if (!fe && ((rc = fj_map_engine(&m, &job->iodepth)) || (rc = fj_map_files(&m, numjobs)) ||
		    (rc = fj_map_work(&m, time_based, runtime_ns)) || (rc = map_shape(&m))))
		return rc;
	if ((rc = map_prio(&m, fe)) || (rc = map_zones(&m)))
		return rc;
	/* fio advises the kernel of random access (its fadvise_hint=1), which
	 * turns readahead off: the buffered posix and io_uring backends do too */
	if (job->access == IOB_ACCESS_RAND && !job->backend_options[0] &&
	    (strcmp(job->backend, "posix") == 0 || strcmp(job->backend, "io_uring") == 0 ||
	     strcmp(job->backend, "libaio") == 0))
		snprintf(job->backend_options, sizeof job->backend_options, "fadvise_random=1");
	if (job->shared_file && job->threads > 1 && job->access == IOB_ACCESS_SEQ)
		job->shared_whole = 1; /* fio's clones each go over the whole file */

	int atomic;
	if ((rc = fj_get_bool(&m, K_ATOMIC, 0, &atomic)))
		return rc;
	if (atomic)
		return fj_bad(&m, K_ATOMIC, -ENOTSUP,
			      "RWF_ATOMIC writes are not issued by any iobench backend (a write is not made untorn)");
	if ((rc = map_latency_target(&m)))
		return rc;
	int end_fsync, on_close, randrepeat, norandommap, invalidate, unlink_files;
	if ((rc = fj_map_rows(&m))) /* the keys that map by their row */
		return rc;
	if ((rc = fj_get_bool(&m, K_END_FSYNC, 0, &end_fsync)) || (rc = fj_get_bool(&m, K_FSYNC_ON_CLOSE, 0, &on_close)) ||
	    (rc = fj_get_bool(&m, K_RANDREPEAT, 1, &randrepeat)) || (rc = fj_get_bool(&m, K_NORANDOMMAP, 0, &norandommap)) ||
	    (rc = fj_get_bool(&m, K_INVALIDATE, 1, &invalidate)) || (rc = fj_get_bool(&m, K_UNLINK, 0, &unlink_files)))
		return rc;
	if ((rc = fj_set_iob_key(&m, on_close ? K_FSYNC_ON_CLOSE : K_END_FSYNC, "fsync", "%s",
			  end_fsync || on_close ? "true" : "false")) ||
	    (rc = map_sprandom(&m, &norandommap)) ||
	    (rc = map_random_generator(&m, &norandommap)) ||
	    (rc = fj_set_iob_key(&m, K_NORANDOMMAP, "random_map", "%s", norandommap ? "false" : "true")) ||
	    (rc = fj_set_iob_key(&m, K_INVALIDATE, "evict_before_read", "%s", invalidate ? "true" : "false")) ||
	    (rc = fj_set_iob_key(&m, K_UNLINK, "keep_files", "%s", unlink_files ? "false" : "true")))
		return rc;
	int gtod_reduce, no_lat, no_clat;
	if ((rc = fj_get_bool(&m, K_GTOD_REDUCE, 0, &gtod_reduce)) || (rc = fj_get_bool(&m, K_DISABLE_LAT, 0, &no_lat)) ||
	    (rc = fj_get_bool(&m, K_DISABLE_CLAT, 0, &no_clat)) || (rc = fj_get_bool(&m, K_DISABLE_SLAT, 0, &flag)))
		return rc;
	if (gtod_reduce || (no_lat && no_clat)) {
		if ((rc = fj_set_iob_key(&m, gtod_reduce ? K_GTOD_REDUCE : K_DISABLE_CLAT, "latency", "%s", "off")))
			return rc;
	} else if (no_lat || no_clat) {
		fj_note_job(r, job->name,
			 "%s=1 alone has no effect: iobench times each I/O once, submission to completion (fio's lat and "
			 "clat at once); give disable_lat=1 and disable_clat=1, or gtod_reduce=1, to turn it off",
			 no_lat ? "disable_lat" : "disable_clat");
	}
	if (fj_get(&m, K_RANDSEED)) {
		if ((rc = fj_get_uint(&m, K_RANDSEED, UINT64_MAX, 0, &u)) ||
		    (rc = fj_set_iob_key(&m, K_RANDSEED, "seed", "%llu", (unsigned long long)u)))
			return rc;
	} else if (!randrepeat) {
		if ((rc = fj_set_iob_key(&m, K_RANDREPEAT, "seed", "%llu",
				  (unsigned long long)(iob_now_ns() ^ ((uint64_t)index << 48)))))
			return rc;
		fj_note(r, "job %s: randrepeat=0: seed %llu, taken from the clock (randseed=%llu repeats this run)", job->name,
		     (unsigned long long)job->seed, (unsigned long long)job->seed);
	}

	int stonewall, new_group;
	if ((rc = fj_get_bool(&m, K_STONEWALL, 0, &stonewall)) || (rc = fj_get_bool(&m, K_NEW_GROUP, 0, &new_group)))
		return rc;
	const struct fval *wait = fj_get(&m, K_WAIT_FOR);
	if (wait && (rc = map_wait_for(&m, wait->value, *group, index, &stonewall)))
		return rc;
	if (*group == 0)
		*group = 1;
	else if (stonewall)
		(*group)++;
	else if (new_group)
		fj_note_job(r, job->name,
			 "new_group without stonewall: the job runs at once with the jobs before it, so iobench reports it "
			 "in their group");
	job->group = *group;
	if (!m.r->report_group || stonewall || new_group) /* fio's reporting group: groupid */
		m.r->report_group++;
	job->report_group = m.r->report_group;

	if (fj_get(&m, K_LOG_AVG_MSEC)) {
		uint64_t ms;
		char text[32];
		if ((rc = fj_get_uint(&m, K_LOG_AVG_MSEC, UINT64_MAX / 1000000, 0, &ms)))
			return rc;
		snprintf(text, sizeof text, "%llums", (unsigned long long)ms);
		if (iob_job_set(job, "log_interval", text, m.why, sizeof m.why) != 0)
			return fj_bad(&m, K_LOG_AVG_MSEC, -EINVAL, "%s", m.why);
	}
	if ((rc = fj_map_log(&m, K_WRITE_BW_LOG, "bw_log")) || (rc = fj_map_log(&m, K_WRITE_IOPS_LOG, "iops_log")) ||
	    (rc = fj_map_log(&m, K_WRITE_LAT_LOG, "lat_log")) || (rc = fj_map_content(&m)) || (rc = fj_map_verify(&m)))
		return rc;
	return map_steady(&m, runtime_ns);
}
