/*
 * job.c - job spec defaults, validation and file layout (iobench/job.h).
 */
#include "iobench/job.h"
#include "iobench/steady.h"
#include "iobench/profile.h"
#include "iobench/shape.h"
#include "iobench/repeat.h"
#include "keys_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every key's default is applied from its row of the key table (keys.c):
 * the table's text is the only copy.  filename's default is derived from
 * the job's name when the job is built. */
/* The defaults, parsed from the key table once per process: a run applies
 * them to every job and again to the rules' comparison copy (0.19 M
 * instructions of a 1.4 M-instruction run, parsing the same 200 texts). */
static struct iob_job job_template;
static int job_template_once;

static void job_template_make(void)
{
	size_t n;
	const struct iob_key *k = iob_keys(&n);
	struct iob_job *job = &job_template;
	for (size_t i = 0; i < n; i++) {
		char err[256];
		if (k[i].width == 0 || strcmp(k[i].name, "filename") == 0)
			continue;
		if (iob_job_set_row(job, &k[i], k[i].def, err, sizeof err) != 0) { /* by its row: no lookup by name */
			/* a row whose default does not parse: unit_profile fails on it */
			fprintf(stderr, "iobench: internal error: default of key %s: %s\n", k[i].name, err);
			abort();
		}
	}
}

const struct iob_job *iob_job_template(void)
{
	iob_once(&job_template_once, job_template_make);
	return &job_template;
}

void iob_job_defaults(struct iob_job *job)
{
	memcpy(job, iob_job_template(), sizeof *job); /* the job holds no pointer: a copy is a job */
}

/* "k=v,k2=v2": keys of letters, digits, _ - . and no empty item.  What the
 * keys mean is the backend's to check. */
static int check_backend_options(const struct iob_job *job, char *err, size_t errlen)
{
	const char *o = job->backend_options;
	if (!memchr(o, '\0', sizeof job->backend_options)) {
		snprintf(err, errlen, "[%s] backend_options is not terminated", job->name);
		return -EINVAL;
	}
	while (*o) {
		size_t item = strcspn(o, ","), klen = strcspn(o, "=,");
		int ok = klen > 0 && klen < item;
		for (size_t i = 0; ok && i < klen; i++)
			ok = isalnum((unsigned char)o[i]) || o[i] == '_' || o[i] == '-' || o[i] == '.';
		for (size_t i = 0; ok && i < item; i++)
			ok = (unsigned char)o[i] >= 0x20 && o[i] != 0x7f;
		if (!ok) {
			snprintf(err, errlen,
				 "[%s] backend_options item '%.*s' is not key=value (write k=v,k2=v2; keys use letters, "
				 "digits, _ - .)",
				 job->name, (int)(item > 64 ? 64 : item), o);
			return -EINVAL;
		}
		o += item;
		if (*o == ',' && *++o == '\0') {
			snprintf(err, errlen, "[%s] backend_options ends with ',' (write k=v,k2=v2)", job->name);
			return -EINVAL;
		}
	}
	return 0;
}

static int validate_series_and_options(const struct iob_job *job, char *err, size_t errlen)
{
	const char *n = job->name;
	if ((unsigned)job->latency > (unsigned)IOB_LATENCY_OFF) {
		snprintf(err, errlen, "[%s] latency %d is not sampled, every or off", n, (int)job->latency);
		return -EINVAL;
	}
	if ((unsigned)job->series_clock > (unsigned)IOB_CLOCK_WALL) {
		snprintf(err, errlen, "[%s] series_clock %d is not a known clock", n, (int)job->series_clock);
		return -EINVAL;
	}
	return check_backend_options(job, err, errlen);
}

/* what streams, groups and steady state cannot do together */
static int validate_streams(const struct iob_job *job, char *err, size_t errlen)
{
	const char *n = job->name;
	if (job->threads > 1 && strcmp(job->filename, "-") == 0) {
		snprintf(err, errlen, "[%s] threads %u: standard input can be read by one stream only (threads = 1)", n,
			 job->threads);
		return -EINVAL;
	}
	if (job->steady_state && job->steady_window > job->steady_max_rounds) {
		snprintf(err, errlen, "[%s] steady_window %u is more than steady_max_rounds %u: no window could be judged",
			 n, job->steady_window, job->steady_max_rounds);
		return -EINVAL;
	}
	if (job->steady_state && job->steady_rule != 0 && !job->steady_limit[0]) {
		snprintf(err, errlen, "[%s] steady_rule %s needs steady_limit (e.g. 10%%)", n,
			 job->steady_rule == 1 ? "deviation" : "slope");
		return -EINVAL;
	}
	if (job->steady_state == IOB_STEADY_LAT && job->latency == IOB_LATENCY_OFF) {
		snprintf(err, errlen, "[%s] steady_state lat needs the I/Os timed: latency off leaves no latency to judge", n);
		return -EINVAL;
	}
	return 0;
}

int iob_job_shape(const struct iob_job *job, struct iob_shape *sh, char *err, size_t errlen)
{
	char why[400];
	int rc;
	memset(sh, 0, sizeof *sh);
	if ((rc = iob_bssplit_parse(job->bssplit, sh->split, why, sizeof why)) ||
	    (rc = iob_dist_parse(job->random_distribution, sh, why, sizeof why)) ||
	    (rc = iob_rate_parse("rate", job->rate, sh->rate, why, sizeof why)) ||
	    (rc = iob_rate_parse("rate_iops", job->rate_iops, sh->rate_iops, why, sizeof why)) ||
	    (rc = iob_seq_add_parse(job->seq_add, &sh->seq_add, why, sizeof why)) ||
	    (rc = iob_rate_parse("rate_min", job->rate_min, sh->rate_min, why, sizeof why)) ||
	    (rc = iob_rate_parse("rate_iops_min", job->rate_iops_min, sh->rate_iops_min, why, sizeof why))) {
		snprintf(err, errlen, "[%s] %s", job->name, why);
		return rc;
	}
	if (job->sprandom) {
		if ((rc = iob_spr_op_parse(job->spr_op, &sh->spr_op, why, sizeof why))) {
			snprintf(err, errlen, "[%s] %s", job->name, why);
			return rc;
		}
		sh->sprandom = 1;
		sh->spr_regions = job->spr_num_regions;
		sh->spr_cs = job->spr_cs;
	}
	sh->poisson = job->rate_process == 1;
	sh->think_ns = job->thinktime_ns;
	sh->think_spin_ns = job->thinktime_spin_ns;
	sh->think_blocks = job->thinktime_blocks;
	sh->rand_run = job->rand_run;
	sh->seq_stride = job->random_sequence_stride;
	sh->zone_size = job->zone_size;
	sh->zone_range = job->zone_range ? job->zone_range : job->zone_size;
	sh->zone_skip = job->zone_skip;
	sh->zone_map = job->random_map;
	sh->start_delay_ns = job->start_delay_ns;
	sh->continue_mask = (uint32_t)job->continue_on_error;
	if (job->ignore_error[0] && iob_ignore_error_parse(job->ignore_error, sh, why, sizeof why) != 0) {
		snprintf(err, errlen, "[%s] %s", job->name, why);
		return -EINVAL;
	}
	sh->flow = job->flow ? iob_flow_of(job->flow_id) : NULL;
	sh->flow_weight = job->flow;
	sh->flow_sleep_ns = job->flow_sleep_ns;
	if (iob_cmdprio_parse(job->cmdprio_percentage, job->cmdprio_class, job->cmdprio_level, job->cmdprio_bssplit,
			      &sh->cmdprio, why, sizeof why) != 0) {
		snprintf(err, errlen, "[%s] %s", job->name, why);
		return -EINVAL;
	}
	if (job->load.prio_class)
		sh->cmdprio.dflt = iob_prio_value((unsigned)job->load.prio_class, (unsigned)job->load.prio_level, 0);
	return sh->cmdprio.on || sh->continue_mask || iob_shape_draws(sh) || iob_shape_paces(sh) || sh->rate_min[0] || sh->rate_min[1] || sh->rate_iops_min[0] ||
	       sh->rate_iops_min[1] || sh->start_delay_ns;
}

uint64_t iob_job_ios_bound(const struct iob_job *job, uint64_t file_size)
{
	uint64_t round_ns = 0, round_ios = 0;
	char why[8];
	if (job->steady_state && iob_steady_round_parse(job->steady_round, &round_ns, &round_ios, why, sizeof why) != 0)
		return UINT64_MAX;
	if (round_ios)
		return round_ios; /* a steady state round of so many I/Os */
	if (job->time_based || round_ns)
		return UINT64_MAX; /* as many I/Os as the time allows */
	uint64_t size = job->size ? job->size : file_size, bs = job->block_size;
	struct iob_shape sh;
	if (iob_job_shape(job, &sh, why, sizeof why) > 0)
		bs = iob_shape_bs_min(&sh, bs); /* bssplit: its smallest size, the most I/Os */
	if (!size || !bs)
		return UINT64_MAX;
	uint64_t per = size / bs + 1; /* and a short last one */
	struct iob_spr_plan plan;
	if (job->sprandom && iob_spr_plan(size, bs, sh.spr_regions, sh.spr_op, sh.spr_cs, &plan, why, sizeof why) == 0)
		per = plan.writes; /* the over-provisioning's share too */
	if (job->access == IOB_ACCESS_RAND && job->ops > per)
		per = job->ops;
	uint64_t loops = job->loops ? job->loops : 1;
	return per > UINT64_MAX / loops ? UINT64_MAX : per * loops;
}

uint64_t iob_job_ops_asked(const struct iob_job *job)
{
	struct iob_shape sh;
	struct iob_spr_plan plan;
	char why[300];
	if (job->sprandom && job->size && iob_job_shape(job, &sh, why, sizeof why) > 0 &&
	    iob_spr_plan(job->size, job->block_size, sh.spr_regions, sh.spr_op, sh.spr_cs, &plan, why, sizeof why) == 0)
		return plan.writes; /* its own end, whatever ops says */
	return job->ops;
}

/* random_distribution=sequence: every block index inside the file (fio
 * fails the job at the first that is not), one offset a draw */
static int validate_sequence(const struct iob_job *job, const struct iob_shape *sh, char *err, size_t errlen)
{
	uint64_t unit = iob_shape_bs_min(sh, job->block_size), blocks = job->size / unit;
	for (uint32_t i = 0; i < sh->nseq; i++)
		if (sh->seq[i] >= blocks) {
			snprintf(err, errlen,
				 "[%s] random_distribution=%s: block %u is past the file's last (size %llu holds %llu "
				 "blocks of %llu bytes)",
				 job->name, job->random_distribution, sh->seq[i], (unsigned long long)job->size,
				 (unsigned long long)blocks, (unsigned long long)unit);
			return -EINVAL;
		}
	if (job->rand_run > 1) {
		snprintf(err, errlen, "[%s] random_distribution=sequence gives every I/O's block: rand_run %u cannot be used with it",
			 job->name, job->rand_run);
		return -EINVAL;
	}
	return 0;
}

/* strided zones: one direction a phase, whole blocks, and every zone the
 * job visits inside the file (fio 3.33 ends the job at the first I/O past
 * its end) */
static int validate_zones(const struct iob_job *job, const struct iob_shape *sh, char *err, size_t errlen)
{
	const char *n = job->name;
	const uint64_t bs = job->block_size;
	if (job->phases & IOB_PHASE_BIT(IOB_PHASE_MIXED)) {
		snprintf(err, errlen, "[%s] zone_size %llu with phases mixed: strided zones take one direction a phase "
			 "(read or write), not a mix", n, (unsigned long long)sh->zone_size);
		return -EINVAL;
	}
	if (job->phases & IOB_PHASE_BIT(IOB_PHASE_VERIFY)) {
		snprintf(err, errlen, "[%s] zone_size %llu with a verify phase: not done (the zones write a block again "
			 "as they come round, and the verify reads back by the order written)", n,
			 (unsigned long long)sh->zone_size);
		return -EINVAL;
	}
	if (!bs || sh->zone_range % bs || sh->zone_skip % bs) {
		snprintf(err, errlen, "[%s] zone_range %llu and zone_skip %llu must be multiples of block_size %llu", n,
			 (unsigned long long)sh->zone_range, (unsigned long long)sh->zone_skip, (unsigned long long)bs);
		return -EINVAL;
	}
	if (job->threads > 1 && job->shared_file && !job->shared_whole) {
		snprintf(err, errlen, "[%s] zone_size %llu with shared_file: each stream walks the zones over the whole file "
			 "(shared_whole = true, fio's clones), not a part of it each", n, (unsigned long long)sh->zone_size);
		return -EINVAL;
	}
	const int seq = job->access == IOB_ACCESS_SEQ;
	uint64_t budget = UINT64_MAX, loops = job->loops ? job->loops : 1;
	if (!job->time_based)
		budget = !seq && job->ops ? (job->ops > UINT64_MAX / bs ? UINT64_MAX : job->ops * bs)
			 : seq && job->size > UINT64_MAX / loops ? UINT64_MAX
			 : seq ? job->size * loops : job->size;
	uint64_t past = iob_shape_zones_past(sh, job->size, bs, budget, seq);
	if (past) {
		snprintf(err, errlen, "[%s] zone_size %llu, zone_range %llu, zone_skip %llu: the zones reach byte %llu, past "
			 "the file's end (size %llu), where fio ends the job; give a larger size or smaller zones", n,
			 (unsigned long long)sh->zone_size, (unsigned long long)sh->zone_range,
			 (unsigned long long)sh->zone_skip, (unsigned long long)past, (unsigned long long)job->size);
		return -EINVAL;
	}
	return 0;
}

/* sprandom: random writes of one stream, and a plan its sizes allow (a
 * size taken from the target: checked once it is known, check_memory.c) */
static int validate_sprandom(const struct iob_job *job, const struct iob_shape *sh, char *err, size_t errlen)
{
	char why[300];
	struct iob_spr_plan plan;
	if (job->access != IOB_ACCESS_RAND || job->phases != IOB_PHASE_BIT(IOB_PHASE_WRITE)) {
		snprintf(err, errlen, "[%s] sprandom needs phases = write and access = random (fio's rw=randwrite)",
			 job->name);
		return -EINVAL;
	}
	if (job->threads > 1 || job->layout != IOB_LAYOUT_FILE) {
		snprintf(err, errlen, "[%s] sprandom writes one file from one stream: %s is not available with it",
			 job->name, job->threads > 1 ? "threads above 1 (fio's numjobs)" : "layout = tree (many files)");
		return -EINVAL;
	}
	if (job->size && iob_spr_plan(job->size, job->block_size, sh->spr_regions, sh->spr_op, sh->spr_cs, &plan, why,
				      sizeof why) != 0) {
		snprintf(err, errlen, "[%s] %s", job->name, why);
		return -EINVAL;
	}
	return 0;
}

/* the shapes of load, and what they cannot be used with */
static int validate_shape(const struct iob_job *job, char *err, size_t errlen)
{
	struct iob_shape sh;
	const char *n = job->name;
	int rc = iob_job_shape(job, &sh, err, errlen);
	if (rc < 0)
		return rc;
	if (job->thinktime_spin_ns > job->thinktime_ns) {
		snprintf(err, errlen, "[%s] thinktime_spin is longer than thinktime", n);
		return -EINVAL;
	}
	if (job->random_sequence_stride && sh.dist != IOB_DIST_SEQUENCE) {
		snprintf(err, errlen, "[%s] random_sequence_stride needs random_distribution=sequence:B,... (it has %s)", n,
			 job->random_distribution[0] ? job->random_distribution : "random");
		return -EINVAL;
	}
	if (rc == 0)
		return 0;
	const char *with = job->reopen		   ? "reopening the file around every I/O (reopen)"
			   : job->series	   ? "a per-block series (series)"
			   : job->block_size_max   ? "a block-size sweep (block_size_max)"
						   : NULL;
	if (with) {
		snprintf(err, errlen, "[%s] bssplit, random_distribution, rate, rate_iops and thinktime cannot be used with %s",
			 n, with);
		return -EINVAL;
	}
	if ((sh.seq_add && job->access != IOB_ACCESS_SEQ) || (sh.rand_run > 1 && job->access != IOB_ACCESS_RAND)) {
		snprintf(err, errlen, "[%s] %s needs access = %s", n, sh.seq_add ? "seq_add" : "rand_run",
			 sh.seq_add ? "sequential" : "random");
		return -EINVAL;
	}
	if (sh.dist != IOB_DIST_RANDOM && job->access != IOB_ACCESS_RAND) {
		snprintf(err, errlen, "[%s] random_distribution=%s needs access = random", n, job->random_distribution);
		return -EINVAL;
	}
	uint64_t top = iob_shape_bs_max(&sh, job->block_size);
	if (top > job->size) {
		snprintf(err, errlen, "[%s] size %llu is smaller than the largest bssplit block size %llu", n,
			 (unsigned long long)job->size, (unsigned long long)top);
		return -EINVAL;
	}
	if (sh.dist == IOB_DIST_SEQUENCE && (rc = validate_sequence(job, &sh, err, errlen)) != 0)
		return rc;
	if (sh.zone_size && sh.sprandom) {
		snprintf(err, errlen, "[%s] sprandom with zone_size: sprandom draws over the whole file, not in zones", n);
		return -EINVAL;
	}
	if (sh.zone_size && (rc = validate_zones(job, &sh, err, errlen)) != 0)
		return rc;
	if (sh.sprandom && (rc = validate_sprandom(job, &sh, err, errlen)) != 0)
		return rc;
	if (sh.dist == IOB_DIST_ZONED_ABS) {
		uint64_t sum = 0;
		for (uint32_t i = 0; i < sh.nzones; i++)
			sum += sh.zones[i].size == UINT64_MAX ? 0 : sh.zones[i].size;
		if (sum > job->size) {
			snprintf(err, errlen, "[%s] random_distribution zones add up to %llu bytes, more than size %llu", n,
				 (unsigned long long)sum, (unsigned long long)job->size);
			return -EINVAL;
		}
	}
	return 0;
}

/* offset, offset_increment: the last stream's region ends within 2^64 bytes
 * (what they need and exclude: their rows of the key table) */
static int validate_region(const struct iob_job *job, char *err, size_t errlen)
{
	uint64_t n = job->threads ? job->threads - 1 : 0;
	if ((job->offset_increment && n > (UINT64_MAX - job->size) / job->offset_increment) ||
	    job->offset > UINT64_MAX - job->size - n * job->offset_increment) {
		snprintf(err, errlen, "[%s] offset + offset_increment x (threads - 1) + size is over 2^64 bytes", job->name);
		return -ERANGE;
	}
	return 0;
}

int iob_job_validate(const struct iob_job *job, char *err, size_t errlen)
{
	const char *n = job->name;
	/* each key's own range and its needs and excludes, from its row of the
	 * key table; what follows are the rules that compare values across keys */
	int rc = iob_keys_check_ranges(job, err, errlen);
	if (rc || (rc = iob_keys_check_rules(job, err, errlen)) != 0)
		return rc;
	rc = validate_streams(job, err, errlen);
	if (rc)
		return rc;
	if ((rc = validate_shape(job, err, errlen)) != 0 || (rc = validate_region(job, err, errlen)) != 0)
		return rc;
	if (job->block_size > (1ull << 31)) {
		snprintf(err, errlen, "[%s] block_size %llu is larger than the 2 GiB limit", n,
			 (unsigned long long)job->block_size);
		return -EINVAL;
	}
	if (job->block_size_max && job->block_size_max < job->block_size) {
		snprintf(err, errlen, "[%s] block_size_max %llu is below block_size %llu", n,
			 (unsigned long long)job->block_size_max, (unsigned long long)job->block_size);
		return -EINVAL;
	}
	if (job->block_size_max > (1ull << 31)) {
		snprintf(err, errlen, "[%s] block_size_max %llu is larger than the 2 GiB limit", n,
			 (unsigned long long)job->block_size_max);
		return -EINVAL;
	}
	uint64_t top = job->block_size_max ? job->block_size_max : job->block_size;
	if (job->access == IOB_ACCESS_RAND && job->size < top) {
		snprintf(err, errlen, "[%s] size %llu is smaller than the largest block size %llu", n,
			 (unsigned long long)job->size, (unsigned long long)top);
		return -EINVAL;
	}
	if (job->phases == 0) {
		snprintf(err, errlen, "[%s] phases is empty", n);
		return -EINVAL;
	}
	if (job->layout == IOB_LAYOUT_TREE && (job->tree_levels == 0 || job->tree_files == 0)) {
		snprintf(err, errlen, "[%s] tree_levels and tree_files must be at least 1", n);
		return -EINVAL;
	}
	if (job->layout == IOB_LAYOUT_TREE && (uint64_t)job->tree_levels * job->tree_files > 100000) {
		snprintf(err, errlen, "[%s] a tree of %u levels x %u files is over the 100000-file limit", n,
			 job->tree_levels, job->tree_files);
		return -EINVAL;
	}
	if (job->layout == IOB_LAYOUT_TREE && job->tree_levels > 64) {
		snprintf(err, errlen, "[%s] tree_levels %u is over the limit of 64", n, job->tree_levels);
		return -EINVAL;
	}
	if (job->layout == IOB_LAYOUT_FILE && (!job->filename[0] || strchr(job->filename, '/'))) {
		snprintf(err, errlen, "[%s] filename '%s' must be a plain file name (directories go in dir)", n,
			 job->filename);
		return -EINVAL;
	}
	if (!job->dir[0]) {
		snprintf(err, errlen, "[%s] dir is empty", n);
		return -EINVAL;
	}
	if ((rc = iob_job_check_verify(job, err, errlen)) != 0)
		return rc;
	return validate_series_and_options(job, err, errlen);
}

static char *join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "%s/%s", a, b);
	return s;
}

int iob_job_stream_files(const struct iob_job *job)
{
	return job->threads > 1 && !job->shared_file && strcmp(job->filename, "-") != 0;
}

/* Stream i's copy of every file, "<file>.<i>", stream-major. */
static int stream_copies(const struct iob_job *job, struct iob_filelist *out)
{
	size_t nbase = out->n, n = nbase * job->threads;
	char **paths = calloc(n, sizeof *paths);
	if (!paths)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *base = out->paths[i % nbase];
		size_t len = strlen(base) + 16;
		if ((paths[i] = malloc(len)) == NULL) {
			for (size_t k = 0; k < i; k++)
				free(paths[k]);
			free(paths);
			return -ENOMEM;
		}
		snprintf(paths[i], len, "%s.%zu", base, i / nbase);
	}
	for (size_t i = 0; i < nbase; i++)
		free(out->paths[i]);
	free(out->paths);
	out->paths = paths;
	out->n = n;
	return 0;
}

static int job_base_files(const struct iob_job *job, struct iob_filelist *out);

int iob_job_files(const struct iob_job *job, struct iob_filelist *out)
{
	int rc = job_base_files(job, out);
	if (rc == 0 && iob_job_stream_files(job) && (rc = stream_copies(job, out)) != 0)
		iob_filelist_free(out);
	return rc;
}

static int job_base_files(const struct iob_job *job, struct iob_filelist *out)
{
	memset(out, 0, sizeof *out);
	if (job->layout == IOB_LAYOUT_FILE) {
		out->paths = calloc(1, sizeof(char *));
		if (!out->paths)
			return -ENOMEM;
		if (strcmp(job->filename, "-") == 0)
			out->paths[0] = strdup("-");
		else
			out->paths[0] = join(job->dir, job->filename);
		out->n = 1;
		return out->paths[0] ? 0 : -ENOMEM;
	}
	size_t nfiles = (size_t)job->tree_levels * job->tree_files;
	out->paths = calloc(nfiles, sizeof(char *));
	out->dirs = calloc(job->tree_levels, sizeof(char *));
	if (!out->paths || !out->dirs) {
		iob_filelist_free(out);
		return -ENOMEM;
	}
	char *parent = strdup(job->dir);
	for (uint32_t level = 0; parent && level < job->tree_levels; level++) {
		char name[32];
		snprintf(name, sizeof name, "dir%u", level);
		char *d = join(parent, name);
		free(parent);
		parent = d ? strdup(d) : NULL;
		if (!d)
			break;
		out->dirs[out->ndirs++] = d;
		for (uint32_t f = 0; f < job->tree_files; f++) {
			snprintf(name, sizeof name, "file%u", f);
			char *p = join(d, name);
			if (!p)
				break;
			out->paths[out->n++] = p;
		}
	}
	free(parent);
	if (out->n != nfiles) {
		iob_filelist_free(out);
		return -ENOMEM;
	}
	return 0;
}

void iob_filelist_free(struct iob_filelist *fl)
{
	for (size_t i = 0; i < fl->n; i++)
		free(fl->paths[i]);
	for (size_t i = 0; i < fl->ndirs; i++)
		free(fl->dirs[i]);
	free(fl->paths);
	free(fl->dirs);
	memset(fl, 0, sizeof *fl);
}
