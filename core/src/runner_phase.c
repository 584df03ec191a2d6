/*
 * runner_phase.c - one phase of a job run alone, and a job's phases in
 * order (runner.c's map).
 *
 * Sections: series blocks and the read plan; the phase on several streams
 * (run_streams); what reached storage, the caveats after a phase; what a
 * write leaves for the reads after it (iob_runner_written_keep, _apply,
 * _note); the engine's spec of a phase (iob_runner_phase_spec); run_phase
 * and its repeats; iob_runner_run_job.
 */
#include "runner_int.h"
#include "iobench/repeat.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/aggregate.h"
#include "iobench/blocks.h"
#include "iobench/coord.h"
#include "iobench/engine.h"
#include "iobench/shape.h"
#include "iobench/meta.h"
#include "iobench/os.h"
#include "iobench/progress.h"
#include "iobench/streams.h"
#include "check.h"
#include "verify_dump.h"

/* --------------------------------------------------------------- running */

static void on_block(void *arg, const struct iob_series *s)
{
	struct phase_run *pr = arg;
	iob_progress_clear(); /* a block line never lands inside the progress line */
	iob_blocks_stream(&pr->blocks, s, pr->run->quiet ? NULL : pr->run->out);
}

/* What a read phase is about to read, for the caveats. */
void iob_runner_read_plan(const struct iob_job *job, const struct job_files *jf, uint64_t bs,
			  struct iob_read_plan *plan)
{
	uint64_t per_pass = job->size * jf->fl.n;
	/* saturated: a time-limited job may ask for loops without end */
	uint64_t passes = job->loops && per_pass > UINT64_MAX / job->loops ? UINT64_MAX : per_pass * job->loops;
	uint64_t reads = job->access == IOB_ACCESS_RAND ? (job->ops ? job->ops * bs : per_pass) : passes;
	*plan = (struct iob_read_plan){
		.files = (const char *const *)jf->open, /* probe what is opened */
		.nfiles = jf->fl.n,
		.len = job->series ? 0 : job->size, /* a series read goes to the end */
		.reads = job->series ? 0 : reads,
		.evicted = job->evict_before_read,
		.clock = job->series ? job->series_clock : IOB_CLOCK_WALL,
	};
}

/* A verify that reads back the writes logged (iob_runner_written_apply):
 * its holes are those of the writes it reads, not of the files (a write
 * that failed and was passed over is not read back). */
static void read_plan_wlog(const struct iob_job *job, const struct job_files *jf, enum iob_phase phase,
			   struct iob_read_plan *plan)
{
	if (phase != IOB_PHASE_VERIFY || !jf->wlog)
		return;
	plan->wlog = jf->wlog;
	plan->nwlog = jf->nwlog;
	plan->wlog_files = iob_job_stream_files(job) ? jf->fl.n / jf->nwlog : 0;
}

/* The phase on job->threads streams: their records, then the aggregate in
 * *r (its histograms borrowed from *agg). */
static int run_streams(struct iob_run *run, const struct iob_job *job, struct job_files *jf,
		       const struct iob_phase_spec *spec, struct iob_streams *st, struct iob_aggregate *agg,
		       struct iob_phase_result *r, struct observed *ob)
{
	size_t n = job->threads, per = iob_job_stream_files(job);
	size_t nfiles = per ? jf->fl.n / n : jf->fl.n;
	/* a backend whose I/O kernel workers may do: the threads' own storage
	 * counts miss it, the process's (only this phase runs) do not */
	uint64_t rb0 = UINT64_MAX, wb0 = UINT64_MAX, rb1 = UINT64_MAX, wb1 = UINT64_MAX;
	int workers = (spec->backend->desc.caps & IOB_CAP_WORKERS) && !spec->ramp_ns &&
		      iob_proc_io(NULL, NULL, &rb0, &wb0) == 0;
	int rc = iob_streams_run(spec, n, (const char *const *)jf->open, nfiles, per, run->live_stop, st);
	workers = workers && iob_proc_io(NULL, NULL, &rb1, &wb1) == 0 && rb0 != UINT64_MAX && rb1 != UINT64_MAX &&
		  wb0 != UINT64_MAX && wb1 != UINT64_MAX;
	iob_observer_stop(ob->obs); /* before the stream records: nothing prints inside the line */
	ob->obs = NULL;
	if (rc == 0)
		rc = iob_runner_streams_aggregate(st, agg);
	if (rc != 0) {
		iob_streams_free(st);
		iob_phase_result_init(r);
		r->phase = spec->phase;
		r->status = rc;
		snprintf(r->error, sizeof r->error, "cannot start %zu streams: %s", n, strerror(-rc));
		return rc;
	}
	for (size_t i = 0; i < n; i++) {
		iob_runner_unmask(st->r[i].error, sizeof st->r[i].error, jf);
		iob_runner_unmask(st->r[i].bad_file, sizeof st->r[i].bad_file, jf);
		if (!run->quiet)
			iob_runner_emit_stream(run, job, jf, i, st);
	}
	iob_runner_streams_result(st, agg, r);
	if (workers) {
		r->storage_read_bytes = rb1 - rb0;
		r->storage_write_bytes = wb1 - wb0;
	}
	return r->status;
}

/* ------------------------------------------ what reached storage (caveats.h) */

/* File systems whose I/O the kernel's per-task storage counts (/proc's
 * read_bytes, write_bytes) see: block file systems, where the block layer
 * counts a read for the task that submits it and a write when the task
 * dirties a page or submits a direct write; and memory ones, where nothing
 * reaches storage and the count of 0 is the truth.  Elsewhere (NFS, FUSE,
 * 9p, ZFS, ...) other threads or other accounting do the I/O. */
static const char *const COUNTED_FS[] = {"ext2",  "ext3",  "ext4", "xfs",	  "btrfs", "f2fs",  "vfat",
					 "exfat", "ntfs3", "jfs",  "nilfs2", "bcachefs", "tmpfs", "ramfs"};

/* Why the storage counts of a phase on the job's files mean nothing, or NULL. */
static const char *storage_uncounted(const struct iob_job *job, const struct iob_filelist *fl, char *why,
				     size_t len, int *memory_fs)
{
	*memory_fs = 0;
	if (iob_is_stdin_path(fl->paths[0]))
		return "standard input: the kernel counts no storage behind it for this process";
	if (iob_proc_io(NULL, NULL, NULL, NULL) == -ENOTSUP)
		return "this OS gives no per-process storage counts like Linux's /proc/self/io";
	if (iob_path_kind(fl->paths[0], 1) == IOB_PATH_BLOCKDEV)
		return NULL;
	char fs[64], dev[IOB_PATH_MAX];
	uint64_t bsz;
	iob_fs_facts(job->dir, fs, sizeof fs, &bsz, dev, sizeof dev);
	*memory_fs = strcmp(fs, "tmpfs") == 0 || strcmp(fs, "ramfs") == 0;
	for (size_t i = 0; i < sizeof COUNTED_FS / sizeof COUNTED_FS[0]; i++)
		if (strcmp(fs, COUNTED_FS[i]) == 0)
			return NULL;
	snprintf(why, len, "file system %s: the kernel's per-process storage counts are not known to see its I/O", fs);
	return why;
}

/* Right after a phase that wrote: what of it is still dirty or under
 * writeback in the page cache (r->unwritten_bytes; UINT64_MAX: unknown). */
void iob_runner_measure_unwritten(const struct job_files *jf, struct iob_phase_result *r)
{
	uint64_t sum = 0;
	r->unwritten_bytes = UINT64_MAX;
	if (!r->bytes_written || iob_is_stdin_path(jf->fl.paths[0]))
		return;
	for (size_t i = 0; i < jf->fl.n; i++) {
		uint64_t u = 0;
		if (iob_cache_unwritten(jf->open[i], &u) != 0)
			return;
		sum += u;
	}
	r->unwritten_bytes = sum;
}

/* The caveats of a phase that ran (plan: what a read phase read, else NULL). */
void iob_runner_phase_notes(struct iob_run *run, const struct iob_job *job, const struct iob_loaded *b,
			    const struct iob_filelist *fl, enum iob_phase phase,
			    const struct iob_read_plan *plan, struct iob_read_facts *facts,
			    struct iob_phase_result *r, int evict_failed)
{
	char what[160], whybuf[160];
	snprintf(what, sizeof what, "job %s, %s phase", job->name, iob_phase_name(phase));
	int memory_fs;
	const char *why = storage_uncounted(job, fl, whybuf, sizeof whybuf, &memory_fs);
	if (b->desc.caps & IOB_CAP_NOSTORAGE) {
		why = "the backend moves no bytes";
		iob_notes_add(&run->notes, "%s: backend %s moves no bytes and touches no file: these figures measure "
					   "the tool, not storage", what, b->desc.name);
	}
	if (!why && (b->desc.caps & IOB_CAP_NODATA))
		why = "the backend's writes move no data: they change the file's space or length";
	if (why)
		r->storage_read_bytes = r->storage_write_bytes = UINT64_MAX;
	else if (r->storage_read_bytes == UINT64_MAX && (b->desc.caps & IOB_CAP_WORKERS))
		why = "kernel worker threads do part of this backend's I/O, which a thread's own counts miss, and "
		      "other jobs share the process's";
	facts->storage_known = iob_storage_cached_read_pct(r) >= 0;
	if (plan) /* the handles' own word on the cache decides, not the plugin's caps */
		iob_caveat_read_notes(&run->notes, what, plan, facts,
				      r->direct || (r->ops == 0 && (b->desc.caps & IOB_CAP_DIRECT)));
	if (r->ops)
		iob_caveat_storage_notes(&run->notes, what, r, why, memory_fs);
	iob_caveat_after_phase(&run->notes, what, r, b->desc.name, (b->desc.caps & IOB_CAP_DIRECT) != 0);
	if (evict_failed)
		iob_notes_add(&run->notes, "%s: evict_before_read: this OS cannot evict a file from its cache, so the "
					   "read may be served from memory", what);
}

/* After a write phase: each stream's draws of its order (random) or bytes
 * of it (sequential; UINT64_MAX: a whole pass), which the read and verify
 * phases after it replay (engine.h, written_draws).  A
 * write that failed keeps nothing (the job ends). */
void iob_runner_written_keep(struct job_files *jf, const struct iob_job *job, enum iob_phase phase,
			     uint64_t bs, const struct iob_phase_result *r, size_t n)
{
	if (phase != IOB_PHASE_WRITE)
		return;
	free(jf->written);
	jf->written = calloc(n, sizeof *jf->written);
	jf->written_bs = jf->written ? bs : 0;
	for (size_t i = 0; jf->written && i < n; i++)
		jf->written[i] = r[i].draws;
}

/* A read or verify after that write: it reads where the write wrote.  A
 * random one has no ramp unless the write covered every block: a ramp draws
 * another order, which would read blocks the write never wrote (past the
 * end of a file it left short).  Returns 1 when it took the ramp away.  A
 * job with a mixed and a verify phase (jf->wlog): the mixed phase logs its
 * writes, and the verify after it reads exactly those, with no ramp. */
int iob_runner_written_apply(const struct job_files *jf, const struct iob_job *job, enum iob_phase phase,
			     uint64_t bs, struct iob_phase_spec *spec)
{
	const int mixed = (job->phases & IOB_PHASE_BIT(IOB_PHASE_MIXED)) != 0;
	/* every write of the mixed phase, or of a write phase with no mixed one after it
	 * (failed writes passed over: iob_check_wlog_writes), or a backlog's ring (verify_backlog) */
	if (jf->wlog && (phase == IOB_PHASE_MIXED || (phase == IOB_PHASE_WRITE && (job->load.verify_backlog || !mixed))))
		spec->wlog_out = jf->wlog;
	if (jf->wlog && phase == IOB_PHASE_VERIFY) { /* what the mixed (or write) phase wrote, all of it */
		spec->wlog_in = jf->wlog;
		spec->ramp_ns = 0;
		return 0;
	}
	if ((phase != IOB_PHASE_READ && phase != IOB_PHASE_VERIFY) || !jf->written || jf->written_bs != bs)
		return 0;
	spec->written_draws = jf->written;
	size_t n = job->threads > 1 ? job->threads : 1;
	for (size_t i = 0; job->access == IOB_ACCESS_RAND && spec->ramp_ns && i < n; i++)
		if (jf->written[i] != UINT64_MAX) {
			spec->ramp_ns = 0;
			return 1;
		}
	return 0;
}

/* Say so when a read or verify read less than its own order because the
 * write before it wrote less (results: one per stream). */
void iob_runner_written_note(struct iob_run *run, const struct iob_job *job, enum iob_phase phase,
			     const struct iob_phase_result *r, size_t n, int no_ramp)
{
	if (no_ramp)
		iob_notes_add(&run->notes,
			      "job %s, %s phase: no ramp_time: the write phase before it did not write every block, "
			      "and a ramp reads other blocks than the ones it wrote",
			      job->name, iob_phase_name(phase));
	for (size_t i = 0; i < n; i++)
		if (r[i].written_cut) {
			iob_notes_add(&run->notes,
				      "job %s, %s phase: the write phase before it completed only part of its "
				      "order (a time limit or a stop), so this phase read only the blocks it wrote, "
				      "in the order it wrote them",
				      job->name, iob_phase_name(phase));
			return;
		}
}

/* The engine's spec of one phase of a job. */
void iob_runner_phase_spec(const struct iob_run *run, const struct iob_job *job, const struct iob_loaded *b,
			   const struct job_files *jf, enum iob_phase phase, uint64_t bs,
			   struct iob_phase_spec *spec, struct iob_shape *shape)
{
	char why[16];
	int shaped = iob_job_shape(job, shape, why, sizeof why) > 0; /* validated: never negative here */
	if (shaped) { /* the buffers hold the largest size; random access ends after ops x block_size bytes */
		shape->io_bytes = job->ops ? job->ops * job->block_size : 0;
		shape->bs = bs;
		/* start_delay: the job's first phase (of its first block size) only */
		if (phase != (enum iob_phase)__builtin_ctz(job->phases) || bs != job->block_size)
			shape->start_delay_ns = 0;
		bs = iob_shape_bs_max(shape, bs);
	}
	*spec = (struct iob_phase_spec){
		.backend = b,
		.files = (const char *const *)jf->open,
		.nfiles = jf->fl.n,
		.phase = phase,
		.access = job->access,
		.block_size = bs,
		/* fill_device: writes bounded only by ENOSPC, reads to the file's end */
		.file_size = job->fill_device ? (phase == IOB_PHASE_WRITE ? IOB_FILL_DEVICE_BOUND : 0)
			     : job->series ? 0 : job->size,
		.ops = job->ops,
		.loops = job->loops,
		.offset_align = job->offset_align,
		.skip_past_end = job->skip_past_end,
		.random_map = job->random_map,
		.pattern = job->pattern,
		.seed = job->seed,
		.fsync = job->fsync,
		.truncate = job->truncate,
		.reopen = job->reopen,
		.stop = run->live_stop,
		.fill_once = job->fill_once,
		.backend_options = job->backend_options,
		.follow_symlinks = job->follow_symlinks,
		.allow_devices = job->allow_devices,
		.iodepth = job->iodepth,
		.runtime_ns = job->runtime_ns,
		.time_based = job->time_based,
		.evict_passes = job->evict_before_read,
		.ramp_ns = job->ramp_ns,
		.rwmix_read = job->rwmix_read,
		.latency = job->latency,
		.shape = shaped ? shape : NULL,
		.shared_whole = job->shared_whole,
		.fill_device = job->fill_device,
		.load = job->load, /* load.h: every key the engine reads as it is set */
	};
	char bad[256]; /* checked before the run (check.c): it parses */
	if (iob_numa_parse(job->numa_cpu_nodes, job->numa_mem_policy, &spec->numa, bad, sizeof bad) != 0)
		memset(&spec->numa, 0, sizeof spec->numa);
	if (job->offset || job->offset_increment) { /* the job's region: offset, size bytes from there */
		spec->region_off = job->offset;
		spec->region_len = job->size;
		spec->region_step = job->offset_increment;
		spec->region_fixed = 1;
		spec->file_size = job->offset + job->size;
	}
	spec->pattern.block_size = bs; /* what verify_interval 0 means */
	iob_runner_fill_bind(run, job, &spec->pattern, bs);
}

void iob_runner_fill_bind(const struct iob_run *run, const struct iob_job *job, struct iob_pattern *p, uint64_t bs)
{
	const struct iob_suite *su = run->suite;
	uint32_t place = 0, members = 0;
	for (size_t i = 0; i < su->njobs; i++) {
		const struct iob_job *o = &su->jobs[i];
		int shares = o->pattern.dedupe_global && o->pattern.dedupe_mode == IOB_DEDUPE_WORKING_SET;
		if (o == job)
			place = job->pattern.dedupe_global ? members : (uint32_t)(su->njobs + i);
		members += shares;
	}
	iob_fill_bind(p, job->series ? 0 : job->size, bs, place, members);
}

static int run_phase(struct iob_run *run, size_t j, const struct iob_loaded *b, struct job_files *jf,
		     enum iob_phase phase, uint64_t bs)
{
	const struct iob_filelist *fl = &jf->fl;
	const struct iob_job *job = &run->suite->jobs[j];
	const struct iob_run_hooks *h = run->opts.hooks;
	struct phase_run pr = {.run = run, .job = job, .j = j};
	struct iob_phase_spec spec;
	struct iob_shape shape;
	iob_runner_phase_spec(run, job, b, jf, phase, bs, &spec, &shape);
	if (run->rep) /* a steady state round: its time or its I/Os */
		iob_repeats_spec(run->rep, job, &spec);
	struct iob_phase_result r;
	struct iob_read_facts facts;
	struct iob_streams st = {0};
	struct iob_aggregate agg = {0};
	int streams = job->threads > 1;
	struct rank_start rs = {0};
	int built = 0;

	if (job->series && phase == IOB_PHASE_READ) {
		spec.record_series = 1;
		spec.series_clock = job->series_clock;
		spec.on_sample = on_block;
		spec.sample_arg = &pr;
		if (iob_blocks_init(&pr.blocks, job->series_clock, job->name, fl->paths[0], bs) < 0) {
			iob_run_fail(run, 0, "out of memory");
			return -ENOMEM;
		}
	}
	if (phase != IOB_PHASE_WRITE && job->evict_before_read)
		for (size_t i = 0; i < fl->n; i++)
			if (!iob_is_stdin_path(fl->paths[i]) && iob_cache_evict(jf->open[i]) == -ENOTSUP)
				pr.evict_failed = 1;
	struct iob_read_plan plan;
	int reads = phase != IOB_PHASE_WRITE && !run->quiet;
	memset(&facts, 0, sizeof facts);
	iob_runner_read_plan(job, jf, bs, &plan);
	read_plan_wlog(job, jf, phase, &plan);
	if (reads)
		iob_caveat_measure_read(&plan, &facts);
	struct observed ob;
	if (iob_coord_size() > 1) { /* what the rank's watcher reads (rank_start) */
		rs.nlive = job->threads > 1 ? job->threads : 1;
		rs.live = calloc(rs.nlive, sizeof *rs.live);
		spec.live = rs.live;
	}
	iob_runner_observe_start(run, job, fl, phase, bs, &spec, &ob);
	size_t nstreams = streams ? job->threads : 1;
	int iolog_oom = 0;
	spec.iolog = iob_runner_iolog_start(run, job, phase, spec.file_size, nstreams, &iolog_oom);
	int rc;
	int no_ramp = iob_runner_written_apply(jf, job, phase, bs, &spec);
	iob_runner_stonewall(job, &spec);
	if (iob_coord_active())
		iob_runner_rank_phase_spec(job, &spec, &rs, streams);
	if (streams) {
		rc = run_streams(run, job, jf, &spec, &st, &agg, &r, &ob);
	} else {
		rc = iob_phase_run(&spec, &r);
		iob_runner_unmask(r.error, sizeof r.error, jf);
		iob_runner_unmask(r.bad_file, sizeof r.bad_file, jf);
	}
	iob_runner_measure_unwritten(jf, &r); /* at once: writeback goes on */
	iob_runner_observe_end(&ob, &r);
	iob_runner_observe_emit(run, run->suite_job, job, phase, &ob);
	iob_runner_iolog_emit(run, run->suite_job, job, phase, spec.iolog, nstreams, iolog_oom);
	if (rc >= 0 && !r.interrupted && iob_is_stdin_path(fl->paths[0]) && r.bytes == 0) {
		iob_run_fail(run, 1, "standard input gave no data: there is nothing to read");
		iob_phase_result_free(&r);
		iob_blocks_free(&pr.blocks);
		free(rs.live);
		return -ENODATA;
	}
	if (h && h->end_phase) {
		int hr = h->end_phase(h->arg, run, j, &r);
		if (hr != 0 && rc == 0)
			rc = hr;
	}
	if (r.interrupted)
		run->interrupted = 1;
	if (rc == 0 && streams && st.n == job->threads)
		iob_runner_written_keep(jf, job, phase, bs, st.r, st.n);
	else if (rc == 0 && !streams)
		iob_runner_written_keep(jf, job, phase, bs, &r, 1);
	if (!run->quiet) {
		iob_runner_phase_notes(run, job, b, fl, phase, reads ? &plan : NULL, &facts, &r,
				       pr.evict_failed);
		iob_runner_written_note(run, job, phase, streams ? st.r : &r, streams ? st.n : 1, no_ramp);
	}
	if (r.ops || rc == 0 || r.interrupted || rc == IOB_STATUS_MISMATCH || (streams && st.n)) {
		int er = iob_runner_emit_phase(&pr, fl, &r, &facts, streams && st.n ? &agg : NULL);
		if (er < 0 && rc >= 0)
			rc = er;
		built = er == 1;
	}
	iob_runner_print_live_notes(run);
	char sw[48] = "";
	if (streams && agg.status)
		snprintf(sw, sizeof sw, " (first in stream %zu)", agg.failed_stream);
	if (rc == IOB_STATUS_MISMATCH && !run->error[0])
		snprintf(run->error, sizeof run->error,
			 "verify failed in job %s: %llu bad block(s)%s; first bad byte at offset %llu of %s: expected "
			 "0x%02x, found 0x%02x%s%s",
			 job->name, (unsigned long long)r.bad_blocks, sw,
			 (unsigned long long)r.first_bad_offset, r.bad_file, r.expected, r.found,
			 r.verify_why[0] ? "; " : "", r.verify_why);
	if (rc == IOB_STATUS_MISMATCH && job->verify_dump) {
		struct iob_pattern vp = job->pattern;
		iob_runner_fill_bind(run, job, &vp, bs);
		iob_verify_dump(&vp, &r, bs);
	}
	else if (rc < 0)
		iob_run_fail(run, rc == -EINVAL && r.ops == 0, "job %s: %s", job->name, r.error);
	if (iob_coord_active()) { /* every rank, whatever happened to it */
		char file[IOB_PATH_MAX + 64];
		iob_runner_record_file(job, fl, file, sizeof file);
		rc = iob_runner_rank_phase_end(run, j, file, built ? &run->rb.rec : NULL, &r, &rs, rc);
	}
	if (h && h->after_phase)
		h->after_phase(h->arg, run, j, &r);
	if (run->rep && rc == 0 && !r.interrupted && iob_repeats_add(run->rep, &r) != 0)
		rc = -ENOMEM, iob_run_fail(run, 0, "out of memory");
	if (streams) { /* r borrowed the aggregate's histograms */
		iob_aggregate_free(&agg);
		iob_streams_free(&st);
	} else {
		iob_phase_result_free(&r);
	}
	iob_blocks_free(&pr.blocks);
	free(rs.live);
	return rc;
}

/* A phase and its repeats (repeat.c): each run as the first (its own
 * eviction, files, window), then the summary record, made between runs. */
static int run_phase_repeats(struct iob_run *run, size_t j, const struct iob_loaded *b, struct job_files *jf,
			     enum iob_phase phase, uint64_t bs)
{
	const struct iob_job *job = &run->suite->jobs[j];
	struct iob_repeats rep;
	int rc;
	iob_repeats_begin(&rep, job);
	run->rep = rep.active ? &rep : NULL; /* repeats, or steady state rounds */
	do {
		rc = run_phase(run, j, b, jf, phase, bs);
		iob_runner_note_made(run, jf);
		rep.index++;
	} while (rep.active && rc == 0 && !*run->stop && iob_repeats_more(&rep));
	run->rep = NULL;
	if (rep.active && rep.n && !run->quiet) {
		iob_rec_summary(&run->rb, job, phase, bs, &rep, &run->notes);
		iob_run_record(run, &run->rb.rec);
	}
	iob_repeats_free(&rep);
	return rc;
}

int iob_runner_run_job(struct iob_run *run, size_t j)
{
	const struct iob_job *job = &run->suite->jobs[j];
	const struct iob_run_hooks *h = run->opts.hooks;
	const struct iob_loaded *b = iob_registry_find(run->reg, IOB_PLUGIN_BACKEND, job->backend);
	struct job_files jf;
	int rc;

	if (job->workload == IOB_WORKLOAD_FILES) /* meta.c */
		return iob_meta_run(run, j);
	/* a job that only prepares files for a later one is not recorded */
	run->quiet = run->suite->prepare && run->suite->prepare[j];
	if (!run->quiet && h && h->before_job) {
		rc = h->before_job(h->arg, run, j);
		if (rc < 0)
			return iob_coord_active() ? iob_runner_rank_job_start(run, rc) : rc;
		run->quiet = rc == 1;
	}
	iob_fs_facts(job->dir, run->fs_type, sizeof run->fs_type, &run->fs_block_size, run->device,
		     sizeof run->device);
	if (!run->pins && !(run->pins = calloc(1, sizeof *run->pins))) {
		iob_run_fail(run, 0, "out of memory");
		return -ENOMEM;
	}
	size_t mark = run->pins->nmade;
	rc = iob_runner_job_files_open(run, job, &jf);
	if (iob_coord_active())
		rc = iob_runner_rank_job_start(run, rc);
	uint64_t top = job->block_size_max ? job->block_size_max : job->block_size;
	for (uint64_t bs = job->block_size; rc == 0 && bs <= top && !*run->stop; bs *= 2) {
		enum iob_phase order[4];
		size_t np = iob_phase_order(job->phases, order);
		for (size_t p = 0; p < np && rc == 0 && !*run->stop; p++)
			rc = run_phase_repeats(run, j, b, &jf, order[p], bs);
		if (bs > UINT64_MAX / 2)
			break;
	}
	if (!job->keep_files) {
		uint64_t files = 0, dirs = 0;
		iob_runner_remove_made_range(run, mark, run->pins->nmade, &files, &dirs);
	}
	iob_runner_job_files_free(&jf);
	run->quiet = 0;
	return rc;
}
