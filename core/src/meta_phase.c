/*
 * meta_phase.c - one phase of a files job across its streams and ranks (the
 * barrier, the bound, the verdict), its records and the repeats' summary;
 * preparing the trees before the first phase and removing exactly what the
 * run made after the last (meta.c has the map).
 */
#include "meta_int.h"

/* The phase record.  cut: a stop that was another job's failure. */
void mt_emit_record(struct iob_run *run, const struct iob_job *job, enum iob_meta_op op, const struct part *p,
			uint64_t nranks, int dropped, uint32_t rep, int cut)
{
	struct iob_recbuf *rb = &run->rb;
	uint64_t G = mt_global_streams(job), ndirs = mt_tree_dirs(job->tree_depth, job->tree_branch, IOB_META_DIRS_MAX);
	double secs = p->end > p->start ? (double)(p->end - p->start) / 1e9 : 0;
	iob_rec_reset(rb, "meta");
	iob_rec_str(rb, "job", job->name);
	iob_rec_str(rb, "phase", iob_meta_op_name(op));
	iob_rec_str(rb, "dir", job->dir);
	iob_rec_u64(rb, "ranks", IOB_UNIT_COUNT, nranks);
	iob_rec_u64(rb, "streams", IOB_UNIT_COUNT, G);
	iob_rec_u64(rb, "files", IOB_UNIT_COUNT, job->files);
	iob_rec_u64(rb, "tree_depth", IOB_UNIT_COUNT, job->tree_depth);
	iob_rec_u64(rb, "tree_branch", IOB_UNIT_COUNT, job->tree_branch);
	iob_rec_u64(rb, "tree_dirs", IOB_UNIT_COUNT, ndirs);
	iob_rec_bool(rb, "dir_per_stream", job->dir_per_stream);
	iob_rec_u64(rb, "file_size_bytes", IOB_UNIT_BYTES, job->file_bytes);
	iob_rec_bool(rb, "fsync", job->file_fsync);
	iob_rec_u64(rb, "stat_other", IOB_UNIT_COUNT, job->stat_other);
	iob_rec_str(rb, "path_walk", job->path_walk ? "full" : "held");
	iob_rec_u64(rb, "ops", IOB_UNIT_OPS, p->ops);
	iob_rec_u64(rb, "bytes", IOB_UNIT_BYTES, p->bytes);
	iob_rec_f64(rb, "elapsed_s", IOB_UNIT_S, secs);
	if (secs > 0) {
		iob_rec_f64(rb, "ops_per_s", IOB_UNIT_OPS_PER_S, (double)p->ops / secs);
		iob_rec_f64(rb, "bw_bytes_per_s", IOB_UNIT_BYTES_PER_S, (double)p->bytes / secs);
	} else {
		iob_rec_absent(rb, "ops_per_s", IOB_UNIT_OPS_PER_S);
		iob_rec_absent(rb, "bw_bytes_per_s", IOB_UNIT_BYTES_PER_S);
	}
	if (p->h.count)
		iob_rec_lat(rb, "lat_ns", &p->h);
	else
		iob_rec_absent(rb, "lat_ns", IOB_UNIT_NS);
	if (p->smax > 0) {
		iob_rec_f64(rb, "stream_ops_min_per_s", IOB_UNIT_OPS_PER_S, p->smin);
		iob_rec_f64(rb, "stream_ops_max_per_s", IOB_UNIT_OPS_PER_S, p->smax);
	} else {
		iob_rec_absent(rb, "stream_ops_min_per_s", IOB_UNIT_OPS_PER_S);
		iob_rec_absent(rb, "stream_ops_max_per_s", IOB_UNIT_OPS_PER_S);
	}
	iob_rec_bool(rb, "caches_dropped", dropped);
	iob_rec_str(rb, "fs_type", strcmp(run->fs_type, "unknown") ? run->fs_type : NULL);
	iob_rec_str(rb, "status", p->status ? "error" : p->stop ? (cut ? "stopped" : "interrupted") : "ok");
	if (job->repeat > 1)
		iob_rec_u64(rb, "repeat", IOB_UNIT_COUNT, rep);
	iob_run_record(run, &rb->rec);
}

/* The phase record now, or kept for the runner's thread in a group */
static void emit(struct mjob *m, enum iob_meta_op op, const struct part *p, uint64_t nranks, int dropped,
		 uint32_t rep)
{
	if (!m->grp) {
		mt_emit_record(m->run, m->job, op, p, nranks, dropped, rep, 0);
		return;
	}
	struct iob_meta_kept *k = m->grp->kept;
	struct kept_rec *nv = realloc(k->rec, (k->nrec + 1) * sizeof *nv);
	if (!nv) {
		mt_fail(m, "out of memory");
		return;
	}
	k->rec = nv;
	nv[k->nrec++] = (struct kept_rec){.op = op, .rep = rep, .nranks = nranks, .dropped = dropped, .p = *p};
}


void mt_emit_summary(struct mjob *m, const struct reps *r)
{
	struct iob_recbuf *rb = &m->run->rb;
	for (int op = 0; op < IOB_META_NOPS; op++) {
		uint32_t n = r->n[op];
		if (!n)
			continue;
		double mean = 0, mn = r->v[op][0], mx = r->v[op][0], ss = 0;
		for (uint32_t i = 0; i < n; i++) {
			mean += r->v[op][i];
			mn = r->v[op][i] < mn ? r->v[op][i] : mn;
			mx = r->v[op][i] > mx ? r->v[op][i] : mx;
		}
		mean /= n;
		for (uint32_t i = 0; i < n; i++)
			ss += (r->v[op][i] - mean) * (r->v[op][i] - mean);
		iob_rec_reset(rb, "meta_summary");
		iob_rec_str(rb, "job", m->job->name);
		iob_rec_str(rb, "phase", iob_meta_op_name(op));
		iob_rec_u64(rb, "runs", IOB_UNIT_COUNT, n);
		iob_rec_f64(rb, "ops_per_s_mean", IOB_UNIT_OPS_PER_S, mean);
		iob_rec_f64(rb, "ops_per_s_min", IOB_UNIT_OPS_PER_S, mn);
		iob_rec_f64(rb, "ops_per_s_max", IOB_UNIT_OPS_PER_S, mx);
		if (n > 1)
			iob_rec_f64(rb, "ops_per_s_stddev", IOB_UNIT_OPS_PER_S, sqrt(ss / (n - 1)));
		else
			iob_rec_absent(rb, "ops_per_s_stddev", IOB_UNIT_OPS_PER_S);
		iob_run_record(m->run, &rb->rec);
	}
}

/* One phase on every stream of the rank, and across ranks: the verdict in
 * *v; the record (rank 0) when timed. */
int mt_run_op(struct mjob *m, enum iob_meta_op op, int dropped, uint32_t rep, struct reps *reps,
		  struct verdict *v)
{
	const struct iob_job *job = m->job;
	int rc = 0;
	for (uint32_t i = 0; i < m->nthreads; i++) {
		struct mstream *s = &m->s[i];
		s->op = op;
		s->done = 0;
		s->ops = s->bytes = 0;
		s->status = 0;
		s->err[0] = '\0';
		s->walkt = NULL;
		iob_hist_reset(s->h);
		s->count = op == IOB_META_CREATE ? job->files : s->created;
		if (op != IOB_META_MKDIR && op != IOB_META_RMDIR && s->own->rootfd < 0 && (rc = mt_open_root(m, s->own)))
			fail(s, -rc, "cannot open the tree", s->own->root);
		if (s->other && ((op >= IOB_META_WRITE && op <= IOB_META_READ) || op == IOB_META_DIRSTAT)) {
			s->count = m->made_min;
			if (s->other->rootfd < 0 && (rc = mt_open_root(m, s->other)) != 0)
				fail(s, -rc, "cannot open the tree", s->other->root);
		}
		if (op == IOB_META_RMDIR && !s->own->owner && s->own->rootfd >= 0) {
			mo_close(s->own->rootfd);
			s->own->rootfd = -1;
		}
	}
	struct part *p = calloc(1, sizeof *p);
	if (!p || iob_barrier_init(&m->go, m->nthreads + 1) != 0) {
		free(p);
		mt_fail(m, "out of memory");
		return -ENOMEM;
	}
	uint32_t started = 0;
	for (; started < m->nthreads; started++)
		if (iob_thread_start(&m->s[started].th, mt_stream_main, &m->s[started]) != 0)
			break;
	if (iob_coord_active())
		iob_coord_barrier();
	if (m->grp && m->grp->ready) { /* the group's start: every job ready, no clock started */
		m->grp->ready(m->grp->ready_arg);
		m->grp->ready = NULL;
	}
	m->epoch = iob_now_ns();
	if (started < m->nthreads) { /* the threads that did start run with none of the others */
		for (uint32_t i = started; i < m->nthreads; i++)
			iob_barrier_arrive(m->go);
		fail(&m->s[started], EAGAIN, "cannot start a thread for", "the phase");
	}
	iob_barrier_wait(m->go);
	/* the stop signal reaches the streams through phase_stop (as streams.c
	 * does): the handler runs on this thread, the streams block signals.
	 * This thread naps 1 ms, then twice as long each time up to 32 ms: a
	 * wake-up every millisecond took the streams' cores from them (mdtest
	 * has no such thread); the signal ends a nap at once (EINTR), a group's
	 * stop within a nap. */
	uint64_t nap = 1000000;
	for (;;) {
		uint32_t done = 0;
		for (uint32_t i = 0; i < started; i++)
			done += __atomic_load_n(&m->s[i].done, __ATOMIC_ACQUIRE) != 0;
		if (done == started)
			break;
		int stop = __atomic_load_n(m->stop, __ATOMIC_RELAXED) != 0;
		if (stop)
			__atomic_store_n(&m->phase_stop, 1, __ATOMIC_RELAXED);
		/* alone, the handler sets *m->stop on this thread; in a group other
		 * threads set it (atomically) and no signal comes here */
		iob_sleep_ns(stop ? 1000000 : nap, stop || m->grp ? NULL : m->stop);
		nap = nap < 32000000 ? nap * 2 : nap;
	}
	for (uint32_t i = 0; i < started; i++)
		iob_thread_join(m->s[i].th);
	iob_barrier_destroy(m->go);
	m->go = NULL;
	/* this rank's part */
	p->start = UINT64_MAX;
	p->made_min = UINT64_MAX;
	p->stop = __atomic_load_n(m->stop, __ATOMIC_RELAXED) != 0;
	p->dropped = dropped;
	for (uint32_t i = 0; i < m->nthreads; i++) {
		struct mstream *s = &m->s[i];
		uint64_t a = s->t0 > m->epoch ? s->t0 - m->epoch : 0, e = s->t1 > m->epoch ? s->t1 - m->epoch : 0;
		if (i >= started)
			a = e = 0;
		p->ops += s->ops;
		p->bytes += s->bytes;
		p->start = a < p->start ? a : p->start;
		p->end = e > p->end ? e : p->end;
		double r = s->t1 > s->t0 && s->ops ? (double)s->ops / ((double)(s->t1 - s->t0) / 1e9) : 0;
		if (i == 0 || r < p->smin)
			p->smin = r;
		if (r > p->smax)
			p->smax = r;
		iob_hist_merge(&p->h, s->h);
		if (s->status && !p->status) {
			p->status = s->status;
			snprintf(p->err, sizeof p->err, "%s", s->err);
		}
		if (s->created < p->made_min)
			p->made_min = s->created;
	}
	if (p->start == UINT64_MAX)
		p->start = 0;
	uint64_t nranks = 1;
	if (iob_coord_active()) {
		void *all = NULL;
		uint64_t *lens = calloc((size_t)iob_coord_size(), sizeof *lens);
		int grc = lens ? iob_coord_gather(p, sizeof *p, &all, lens) : -ENOMEM;
		memset(v, 0, sizeof *v);
		if (grc == 0 && all) { /* rank 0 */
			struct part *q = all, *sum = p;
			nranks = (uint64_t)iob_coord_size();
			for (uint64_t r = 1; r < nranks; r++) {
				struct part *o = &q[r];
				sum->ops += o->ops;
				sum->bytes += o->bytes;
				sum->start = o->start < sum->start ? o->start : sum->start;
				sum->end = o->end > sum->end ? o->end : sum->end;
				sum->smin = o->smin < sum->smin ? o->smin : sum->smin;
				sum->smax = o->smax > sum->smax ? o->smax : sum->smax;
				sum->stop |= o->stop;
				sum->dropped &= o->dropped;
				sum->made_min = o->made_min < sum->made_min ? o->made_min : sum->made_min;
				iob_hist_merge(&sum->h, &o->h);
				if (o->status && !sum->status) {
					sum->status = o->status;
					snprintf(sum->err, sizeof sum->err, "rank %llu: %s", (unsigned long long)r, o->err);
				}
			}
		}
		free(all);
		free(lens);
		if (grc != 0 && !p->status) {
			p->status = grc;
			snprintf(p->err, sizeof p->err, "gathering the ranks' results: %s", strerror(-grc));
		}
		v->status = p->status;
		v->stop = p->stop;
		v->made_min = p->made_min;
		snprintf(v->err, sizeof v->err, "%s", p->err);
		iob_coord_bcast(v, sizeof *v);
	} else {
		v->status = p->status;
		v->stop = p->stop;
		v->made_min = p->made_min;
		snprintf(v->err, sizeof v->err, "%s", p->err);
	}
	m->made_min = v->made_min;
	if (iob_coord_rank() == 0 && (p->ops || !p->status)) {
		emit(m, op, p, nranks, p->dropped, rep);
		if (p->end > p->start && !p->status && !p->stop && reps->n[op] < 1000)
			reps->v[op][reps->n[op]++] = (double)p->ops / ((double)(p->end - p->start) / 1e9);
	}
	free(p);
	return v->status;
}

/* Remove what is left of what the run made: files, then (after every rank's
 * files) the directories, deepest first.  Untimed. */
void mt_cleanup(struct mjob *m)
{
	for (uint32_t i = 0; i < m->nthreads; i++) {
		struct mstream *s = &m->s[i];
		if (s->removed >= s->created)
			continue;
		s->op = IOB_META_REMOVE;
		s->status = 0;
		if (s->own->rootfd < 0 && mt_open_root(m, s->own) != 0)
			continue;
		mt_file_range(s, s->own, s->g, s->removed, s->created, 0);
		if (s->status)
			mt_note(m, "job %s: kept %llu file(s) of stream %llu: %s", m->job->name,
				     (unsigned long long)(s->created - s->removed), (unsigned long long)s->g, s->err);
	}
	if (iob_coord_active())
		iob_coord_barrier();
	for (size_t t = 0; t < m->ntrees; t++) {
		struct tree *tr = &m->trees[t];
		if (!tr->owner) {
			if (tr->rootfd >= 0)
				mo_close(tr->rootfd);
			tr->rootfd = -1;
			continue;
		}
		if (tr->dirs > 0 && tr->rootfd < 0 && mt_open_root(m, tr) != 0 && tr->dirs > 1) {
			mt_note(m, "job %s: kept the tree %s/%s: it cannot be opened", m->job->name, m->job->dir,
				     tr->root);
			continue;
		}
		while (tr->dirs > 0) {
			uint64_t k = tr->dirs - 1;
			int rc = mt_remove_dir(m, tr, NULL);
			if (rc != 0 && rc != -ENOENT) {
				mt_note(m, "job %s: kept %s/%s%s: %s", m->job->name, m->job->dir, tr->root,
					     k ? " (a directory inside)" : "",
					     rc == -ESTALE ? "it is no longer what this run created" : strerror(-rc));
				break;
			}
		}
	}
	for (uint32_t i = 0; m->others && i < m->nthreads; i++)
		if (m->others[i].rootfd >= 0) {
			mo_close(m->others[i].rootfd);
			m->others[i].rootfd = -1;
		}
}

/* Make the trees untimed (no mkdir phase), then every rank waits. */
int mt_prepare(struct mjob *m)
{
	int rc = 0;
	for (size_t t = 0; t < m->ntrees && rc == 0; t++)
		while (m->trees[t].owner && m->trees[t].dirs < m->ndirs && rc == 0)
			rc = mt_make_dir(m, &m->trees[t], NULL);
	if (rc)
		mt_fail(m, "[%s] cannot make the tree in %s: %s", m->job->name, m->job->dir, strerror(-rc));
	if (iob_coord_active()) {
		char text[1024];
		int a = iob_coord_agree(rc, rc ? m->run->error : "", NULL, NULL, 0, text, sizeof text);
		if (a && !rc) {
			mt_fail(m, "%s", text);
			rc = a;
		}
	}
	return rc;
}

void mt_mjob_free(struct mjob *m)
{
	for (size_t t = 0; m->trees && t < m->ntrees; t++)
		if (m->trees[t].rootfd >= 0)
			mo_close(m->trees[t].rootfd);
	for (uint32_t i = 0; m->others && i < m->nthreads; i++)
		if (m->others[i].rootfd >= 0)
			mo_close(m->others[i].rootfd);
	if (m->s)
		for (uint32_t i = 0; i < m->nthreads; i++)
			iob_hist_free(m->s[i].h);
	free(m->s);
	free(m->trees);
	free(m->others);
	free(m->buf);
	if (m->dirfd >= 0)
		mo_close(m->dirfd);
}

int mt_mjob_init(struct mjob *m, struct iob_run *run, const struct iob_job *job, struct iob_meta_group *grp)
{
	memset(m, 0, sizeof *m);
	m->dirfd = -1;
	m->run = run;
	m->job = job;
	m->grp = grp;
	m->stop = grp ? grp->stop : run->live_stop;
	m->nthreads = job->threads ? job->threads : 1;
	m->G = mt_global_streams(job);
	m->ndirs = mt_tree_dirs(job->tree_depth, job->tree_branch, IOB_META_DIRS_MAX);
	m->per_dir = (job->files + m->ndirs - 1) / m->ndirs;
	m->bound_ns = job->stonewall_ns;
	if (job->runtime_ns && (!m->bound_ns || job->runtime_ns < m->bound_ns))
		m->bound_ns = job->runtime_ns;
	uint64_t rank = (uint64_t)iob_coord_rank(), g0 = rank * m->nthreads;
	char dir[IOB_PATH_MAX];
	iob_strip_slashes(job->dir, dir, sizeof dir);
	int e = -mo_top_open(dir, job->follow_symlinks, &m->dirfd);
	if (e) {
		mt_fail(m, "[%s] cannot open dir '%s': %s", job->name, job->dir,
			     e == ELOOP ? "it became a symbolic link after the checks" : strerror(e));
		return -e;
	}
	m->ntrees = job->dir_per_stream ? m->nthreads : 1;
	m->trees = calloc(m->ntrees, sizeof *m->trees);
	m->s = calloc(m->nthreads, sizeof *m->s);
	m->buf = calloc(m->nthreads, job->file_bytes ? (size_t)job->file_bytes : 1);
	if (job->stat_other && job->dir_per_stream)
		m->others = calloc(m->nthreads, sizeof *m->others);
	if (!m->trees || !m->s || !m->buf || (job->stat_other && job->dir_per_stream && !m->others)) {
		mt_fail(m, "out of memory");
		return -ENOMEM;
	}
	for (size_t t = 0; t < m->ntrees; t++) {
		m->trees[t].rootfd = -1;
		m->trees[t].owner = job->dir_per_stream || rank == 0;
		mt_root_name(job, g0 + t, m->trees[t].root, sizeof m->trees[t].root);
	}
	for (size_t b = 0; b < (size_t)m->nthreads * (job->file_bytes ? job->file_bytes : 1); b++)
		m->buf[b] = (char)('a' + b % 26);
	for (uint32_t i = 0; i < m->nthreads; i++) {
		struct mstream *s = &m->s[i];
		s->m = m;
		s->g = g0 + i;
		s->pfd = MO_NONE;
		s->own = &m->trees[job->dir_per_stream ? i : 0];
		if (!(s->h = iob_hist_new())) {
			mt_fail(m, "out of memory");
			return -ENOMEM;
		}
		if (job->stat_other) {
			s->other_g = (s->g + job->stat_other) % m->G;
			if (!job->dir_per_stream) {
				s->other = s->own;
			} else {
				s->other = &m->others[i];
				s->other->rootfd = -1;
				mt_root_name(job, s->other_g, s->other->root, sizeof s->other->root);
			}
		}
	}
	return 0;
}

/* The job: alone (grp NULL), or on a group's job thread. */
