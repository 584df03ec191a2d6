/*
 * fiojob_data.c - one job's fio keys onto a struct iob_job: iobench's keys
 * set by name and by row, and the data's keys: pattern, content, verify
 * (fiojob_int.h, docs/fio.md).  From the top:
 *   fj_set_iob_key              an iobench key by name, through its setter
 *   fj_map_row, fj_map_rows     the keys that map by their row alone
 *   map_pattern, fj_map_content buffer_pattern, compression, dedupe
 *   map_verify_passes, fj_map_verify  verify and its keys
 */
#include "fiojob_int.h"

/* Set iobench's key `key` from fio's key k through the key table's own
 * setter, so a fio value gets exactly the checks an INI value gets; a
 * refusal names fio's key and value. */
int fj_set_iob_key(struct mapper *m, enum fkey k, const char *key, const char *fmt, ...)
{
	char text[128];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	if (iob_job_set(m->job, key, text, m->why, sizeof m->why) != 0)
		return fj_bad(m, k, -EINVAL, "%s", m->why);
	return 0;
}

/* Key k by row e (fio_key.as, fiojob_int.h), when the job file gives it:
 * its value read as fio reads it, then refused (`refuse`) unless it is
 * fio's default, or set on iobench's key `ikey` through iob_job_set. */
int fj_map_row(struct mapper *m, enum fkey k, const struct fio_key *e)
{
	const struct fval *v = fj_get(m, k);
	if (e->as == FJ_AS_CODE || !v)
		return 0;
	char text[FIO_LINE_MAX];
	uint64_t u = 0;
	int rc = 0, flag = 0, set;
	switch (e->as) {
	case FJ_AS_UINT:
		rc = fj_get_uint(m, k, UINT64_MAX, 0, &u);
		break;
	case FJ_AS_BOOL:
		rc = fj_get_bool(m, k, 0, &flag);
		u = (uint64_t)flag;
		break;
	case FJ_AS_SIZE:
		rc = fj_get_size(m, k, &u, &set);
		break;
	case FJ_AS_TIME_S:
	case FJ_AS_TIME_US:
		rc = fj_get_time(m, k, e->as == FJ_AS_TIME_S ? 1000000000ull : 1000ull, &u);
		break;
	default: /* FJ_AS_TEXT */
		if (v->bare)
			return fj_bad(m, k, -EINVAL, "needs a value");
		u = v->value[0] != '\0';
		break;
	}
	if (rc)
		return rc;
	if (e->refuse && u)
		return fj_bad(m, k, -EINVAL, "%s", e->refuse);
	if (!e->ikey)
		return 0; /* fio's default, or a key accepted with no effect */
	if (e->as == FJ_AS_TEXT)
		snprintf(text, sizeof text, "%s", v->value);
	else if (e->as == FJ_AS_BOOL)
		snprintf(text, sizeof text, "%s", u ? "true" : "false");
	else
		snprintf(text, sizeof text, "%llu%s", (unsigned long long)u,
			 e->as == FJ_AS_TIME_S || e->as == FJ_AS_TIME_US ? "ns" : "");
	if (iob_job_set(m->job, e->ikey, text, m->why, sizeof m->why) != 0)
		return fj_bad(m, k, -EINVAL, "%s", m->why);
	return 0;
}

/* Every key that maps by its row. */
int fj_map_rows(struct mapper *m)
{
	for (int i = 0; i < fj_nkeys; i++) {
		int rc = fj_map_row(m, (enum fkey)i, &fj_keys[i]);
		if (rc)
			return rc;
	}
	return 0;
}

/* A pattern given as fio's 0xHEX or a number up to 255 (verify_pattern,
 * buffer_pattern) into job->pattern. */
static int map_pattern(struct mapper *m, enum fkey k)
{
	const struct fval *vp = fj_get(m, k);
	char text[96];
	uint64_t byte;
	if (!vp)
		return 0;
	const char *p = vp->value;
	if (vp->bare || !p[0])
		return fj_bad(m, k, -EINVAL, "needs a value (0xHEX or a number up to 255)");
	if (strlen(p) > 2 + 2 * IOB_PAT_HEX_MAX + 1)
		return fj_bad(m, k, -EINVAL, "give 0xHEX (1 to 32 bytes) or a number up to 255");
	if (strncasecmp(p, "0x", 2) == 0 && strlen(p) % 2 == 1) /* 0xabc: an odd digit count, a leading 0 */
		snprintf(text, sizeof text, "hex:0%s", p + 2);
	else if (strncasecmp(p, "0x", 2) == 0)
		snprintf(text, sizeof text, "hex:%s", p + 2);
	else if (fj_fio_uint(p, 255, &byte, m->why, sizeof m->why) == 0)
		snprintf(text, sizeof text, "byte:0x%02x", (unsigned)byte);
	else
		return fj_bad(m, k, -EINVAL, "give 0xHEX (1 to 32 bytes) or a number up to 255");
	if (iob_pattern_parse(text, &m->job->pattern, m->why, sizeof m->why))
		return fj_bad(m, k, -EINVAL, "give 0xHEX (1 to 32 bytes) or a number up to 255");
	return 0;
}

/* buffer_pattern, buffer_compress_*, dedupe_percentage: the data written. */
int fj_map_content(struct mapper *m)
{
	uint64_t cpct, dpct, chunk;
	int set, flag, rc;
	if ((rc = map_pattern(m, K_BUFFER_PATTERN)) || (rc = fj_get_uint(m, K_COMPRESS_PCT, 100, 0, &cpct)) ||
	    (rc = fj_get_uint(m, K_DEDUPE_PCT, 100, 0, &dpct)) || (rc = fj_get_size(m, K_COMPRESS_CHUNK, &chunk, &set)) ||
	    (rc = fj_get_bool(m, K_REFILL_BUFFERS, 0, &flag)) || (rc = fj_get_bool(m, K_SCRAMBLE_BUFFERS, 1, &flag)))
		return rc;
	if (set && (!chunk || chunk > m->job->block_size))
		return fj_bad(m, K_COMPRESS_CHUNK, -EINVAL, "give 1 byte to bs (%llu)", (unsigned long long)m->job->block_size);
	if (!set && m->job->pattern.compress_chunk > m->job->block_size) /* fio's 512 on a smaller bs */
		chunk = m->job->block_size;
	else if (!set)
		chunk = m->job->pattern.compress_chunk;
	if ((fj_get(m, K_COMPRESS_PCT) && (rc = fj_set_iob_key(m, K_COMPRESS_PCT, "compress_percentage", "%llu",
							 (unsigned long long)cpct))) ||
	    (fj_get(m, K_DEDUPE_PCT) &&
	     (rc = fj_set_iob_key(m, K_DEDUPE_PCT, "dedupe_percentage", "%llu", (unsigned long long)dpct))) ||
	    (rc = fj_set_iob_key(m, K_COMPRESS_CHUNK, "compress_chunk", "%llu", (unsigned long long)chunk)))
		return rc;
	const struct fval *v = fj_get(m, K_DEDUPE_MODE);
	uint64_t ws;
	if (v && (v->bare || (strcmp(v->value, "repeat") != 0 && strcmp(v->value, "working_set") != 0)))
		return fj_bad(m, K_DEDUPE_MODE, -EINVAL, "give repeat or working_set");
	if ((v && (rc = fj_set_iob_key(m, K_DEDUPE_MODE, "dedupe_mode", "%s", v->value))) ||
	    (rc = fj_get_uint(m, K_DEDUPE_WS_PCT, 100, 5, &ws)) || (rc = fj_get_bool(m, K_DEDUPE_GLOBAL, 0, &flag)))
		return rc;
	if (!ws)
		return fj_bad(m, K_DEDUPE_WS_PCT, -EINVAL, "give 1 to 100");
	m->job->pattern.dedupe_ws_pct = (uint32_t)ws;
	m->job->pattern.dedupe_global = flag;
	if (flag && m->job->pattern.dedupe_mode != IOB_DEDUPE_WORKING_SET && dpct)
		return fj_bad(m, K_DEDUPE_GLOBAL, -EINVAL, "needs dedupe_mode=working_set");
	return 0;
}

/* loops=N with verify on a write or mixed job: fio verifies after each pass,
 * reading that pass's writes in the order written (traced: W256 R256 W256 R256
 * on 1 MiB of 4 KiB blocks, randwrite or write; randrw 256 mixed I/Os then
 * its 124 writes, twice), which is verify_backlog = a pass's blocks: a write
 * job's pass fills it as the pass ends; a mixed phase reads back what waits
 * at each pass's end (engine_order.c, iob_eng_gen_pass_ends), the last pass's in
 * the verify phase.  Only where a pass is a fixed number of blocks: one block
 * size, no shape, the random map, whole passes, iodepth 1, not time_based,
 * not rw=readwrite (traced: fio's first loop wrote all 256 blocks and read
 * 113, its second wrote 95 and read 47: its pass ends at the end of the
 * file for the writes, iobench's shares one position); else one verify after
 * every pass (noted). */
static int map_verify_passes(struct mapper *m)
{
	struct iob_job *job = m->job;
	const int mixed = (job->phases & IOB_PHASE_BIT(IOB_PHASE_MIXED)) != 0;
	uint64_t loops;
	int rc;
	if ((rc = fj_get_uint(m, K_LOOPS, UINT32_MAX, 1, &loops)) || loops < 2 ||
	    !(job->phases & (IOB_PHASE_BIT(IOB_PHASE_WRITE) | IOB_PHASE_BIT(IOB_PHASE_MIXED))) || job->time_based)
		return rc;
	const uint64_t bs = job->block_size, pass = bs ? job->size / bs : 0;
	const int whole = job->access == IOB_ACCESS_SEQ ? job->loops == loops && !job->ops && !job->load.seq_ops
							: job->random_map && job->ops == loops * pass;
	if (job->iodepth > 1 || !pass || job->size % bs || !whole || pass > IOB_VERIFY_BACKLOG_MAX || job->bssplit[0] ||
	    (mixed && job->access == IOB_ACCESS_SEQ) || /* fio's readwrite: a position per direction, no fixed pass */
	    (job->random_distribution[0] && strcmp(job->random_distribution, "random") != 0) || job->seq_add[0] || job->rand_run > 1 ||
	    (job->threads > 1 && job->shared_file && !job->shared_whole)) {
		fj_note_job(m->r, job->name,
			    "loops=%llu with verify: iobench verifies once after all the passes, where fio verifies after "
			    "each (here a pass is not a fixed number of blocks, or iodepth is above 1): the same blocks, "
			    "later",
			    (unsigned long long)loops);
		return 0;
	}
	if (mixed)
		fj_note_job(m->r, job->name,
			    "loops=%llu with verify: each pass's writes read back and checked in the order written as it "
			    "ends (verify_backlog = %llu, a pass's I/Os), inside the mixed phase, the last pass's by the "
			    "verify phase after it, as fio verifies after each pass",
			    (unsigned long long)loops, (unsigned long long)pass);
	else
		fj_note_job(m->r, job->name,
			    "loops=%llu with verify: each pass's %llu blocks read back and checked as it ends, inside the "
			    "write phase (verify_backlog = %llu), as fio verifies after each pass",
			    (unsigned long long)loops, (unsigned long long)pass, (unsigned long long)pass);
	return fj_set_iob_key(m, K_LOOPS, "verify_backlog", "%llu", (unsigned long long)pass);
}

/* verify, do_verify, verify_*: the job's verify keys and its phases. */
int fj_map_verify(struct mapper *m)
{
	static const struct {
		const char *fio;
		const char *iob;
	} kinds[] = {{"md5", "md5"},	   {"crc32c", "crc32c"}, {"crc32c-intel", "crc32c"}, {"crc64", "crc64"},
		     {"sha256", "sha256"}, {"xxhash", "xxhash"}, {"meta", "meta"},		  {"pattern", "pattern"}};
	struct iob_job *job = m->job;
	const struct fval *v = fj_get(m, K_VERIFY), *vp = fj_get(m, K_VERIFY_PATTERN);
	int rc, do_verify, fatal, dump;
	uint64_t u, async, batch;
	if ((rc = fj_get_bool(m, K_DO_VERIFY, 1, &do_verify)) || (rc = fj_get_bool(m, K_VERIFY_FATAL, 0, &fatal)) ||
	    (rc = fj_get_bool(m, K_VERIFY_DUMP, 0, &dump)) || (rc = fj_get_uint(m, K_VERIFY_BACKLOG, UINT64_MAX, 0, &u)) ||
	    (rc = fj_get_uint(m, K_VERIFY_ASYNC, INT32_MAX, 0, &async)) ||
	    (rc = fj_get_uint(m, K_VERIFY_BACKLOG_BATCH, IOB_VERIFY_BACKLOG_MAX, 0, &batch)))
		return rc;
	if (u > IOB_VERIFY_BACKLOG_MAX)
		return fj_bad(m, K_VERIFY_BACKLOG, -EINVAL, "at most %u blocks (each stream keeps them to read back)",
			      IOB_VERIFY_BACKLOG_MAX);
	if (fj_get(m, K_VERIFY_BACKLOG_BATCH) && !u)
		return fj_bad(m, K_VERIFY_BACKLOG_BATCH, -EINVAL, "needs verify_backlog");
	const char *kind = NULL;
	if (v && (v->bare || !v->value[0]))
		return fj_bad(m, K_VERIFY, -EINVAL, "needs a value (md5, crc32c, crc64, sha256, xxhash, meta, pattern)");
	if (v && strcmp(v->value, "0") != 0 && strcmp(v->value, "none") != 0) {
		for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
			if (strcmp(v->value, kinds[i].fio) == 0)
				kind = kinds[i].iob;
		if (!kind)
			return fj_bad(m, K_VERIFY, -EINVAL, "not supported (md5, crc32c, crc64, sha256, xxhash, meta, pattern)");
	}
	if ((rc = map_pattern(m, K_VERIFY_PATTERN)) != 0)
		return rc;
	if (!kind) {
		if (fj_get(m, K_VERIFY_INTERVAL) || vp || fj_get(m, K_VERIFY_DUMP) || fj_get(m, K_VERIFY_BACKLOG) ||
		    fj_get(m, K_VERIFY_ASYNC) || fj_get(m, K_VERIFY_BACKLOG_BATCH))
			return fj_bad(m, fj_get(m, K_VERIFY_INTERVAL) ? K_VERIFY_INTERVAL : vp ? K_VERIFY_PATTERN
					: fj_get(m, K_VERIFY_DUMP)	    ? K_VERIFY_DUMP
					: fj_get(m, K_VERIFY_BACKLOG)	    ? K_VERIFY_BACKLOG
					: fj_get(m, K_VERIFY_ASYNC)	    ? K_VERIFY_ASYNC
									    : K_VERIFY_BACKLOG_BATCH,
				   -EINVAL, "needs verify (md5, crc32c, crc64, sha256, xxhash, meta, pattern)");
		return 0;
	}
	if (strcmp(kind, "pattern") == 0 && !vp)
		return fj_bad(m, K_VERIFY, -EINVAL, "verify=pattern needs verify_pattern");
	if (job->load.seq_ops && job->block_size && job->load.seq_ops > job->size / job->block_size)
		return fj_bad(m, K_NUMBER_IOS, -EINVAL,
			      "with loops and verify: %llu I/Os in a row go past one pass over the file, where fio 3.33 "
			      "writes and verifies one pass at most",
			      (unsigned long long)job->load.seq_ops);
	if (iob_job_set(job, "verify", kind, m->why, sizeof m->why))
		return fj_bad(m, K_VERIFY, -EINVAL, "%s", m->why);
	uint64_t iv;
	int set;
	if ((rc = fj_get_size(m, K_VERIFY_INTERVAL, &iv, &set)) != 0)
		return rc;
	if (set && !iv)
		return fj_bad(m, K_VERIFY_INTERVAL, -EINVAL, "give at least 64 bytes");
	if (set && strcmp(kind, "pattern") != 0 && /* verify=pattern: no header, the interval changes nothing */
	    (rc = fj_set_iob_key(m, K_VERIFY_INTERVAL, "verify_interval", "%llu", (unsigned long long)iv)))
		return rc;
	/* fio ends the job at its first bad block, whatever verify_fatal says */
	if ((rc = fj_set_iob_key(m, K_VERIFY_FATAL, "verify_fatal", "true")) ||
	    (rc = fj_set_iob_key(m, K_VERIFY_DUMP, "verify_dump", "%s", dump ? "true" : "false")))
		return rc;
	const int mixed = (job->phases & IOB_PHASE_BIT(IOB_PHASE_MIXED)) != 0;
	const int writes = (job->phases & (IOB_PHASE_BIT(IOB_PHASE_WRITE) | IOB_PHASE_BIT(IOB_PHASE_MIXED))) != 0;
	const int backlog = u && writes; /* read back inside the phase */
	if (mixed && job->time_based && do_verify) /* fio 3.33: the time ends the job, no verify pass after it */
		fj_note_job(m->r, job->name,
			    "verify with a time_based mixed job: no verify phase (fio 3.33 runs none after the time "
			    "ends); the writes carry their headers%s",
			    backlog ? ", and every verify_backlog of them are read back and checked while it runs" : "");
	else if (backlog && job->time_based && do_verify)
		fj_note_job(m->r, job->name,
			    "verify_backlog with a time_based write job: checked while it runs, and no verify phase after "
			    "it (fio 3.33 runs none after the time ends): the blocks written since the last read-back "
			    "(the record's backlog_left) stay unchecked");
	else if (writes && job->time_based && do_verify) /* fio 3.33: no read of a time_based write job's blocks */
		fj_note_job(m->r, job->name,
			    "verify with a time_based write job: no verify phase, nothing is verified (fio 3.33 runs "
			    "none after the time ends); the writes carry their headers");
	else if (job->phases & (IOB_PHASE_BIT(IOB_PHASE_WRITE) | IOB_PHASE_BIT(IOB_PHASE_MIXED)))
		job->phases |= do_verify ? IOB_PHASE_BIT(IOB_PHASE_VERIFY) : 0;
	else if (do_verify)
		job->phases = IOB_PHASE_BIT(IOB_PHASE_VERIFY);
	if (backlog && ((rc = fj_set_iob_key(m, K_VERIFY_BACKLOG, "verify_backlog", "%llu", (unsigned long long)u)) ||
			(batch && (rc = fj_set_iob_key(m, K_VERIFY_BACKLOG_BATCH, "verify_backlog_batch", "%llu",
						       (unsigned long long)batch)))))
		return rc;
	else if (!u && do_verify && (rc = map_verify_passes(m)))
		return rc;
	if (async)
		fj_note_job(m->r, job->name,
			    "verify_async=%llu: iobench checks each block in the stream that read it, not in %llu threads of "
			    "its own: the same blocks and outcome, the check's time in the stream's",
			    (unsigned long long)async, (unsigned long long)async);
	char err[512];
	if ((rc = iob_job_check_verify(job, err, sizeof err)) != 0)
		return fj_bad(m, K_VERIFY, rc, "%s", strchr(err, ']') ? strchr(err, ']') + 2 : err);
	return 0;
}
