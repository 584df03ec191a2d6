/*
 * profile.c - INI profiles to job specs (iobench/profile.h).
 *
 * The key table (iob_keys) is the one list of job keys: iob_job_set parses
 * by it, iob_profile_write writes by it, and `iobench keys` prints it.
 * iniparser reads the values; a light pre-scan of the raw text catches what
 * iniparser would silently accept: duplicate sections and keys, keys outside
 * any section, binary junk, and lines too long for it.
 */
#include "iobench/profile.h"
#include "iobench/coord.h"
#include "iobench/os.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <iniparser.h>

#include "iobench/plugin.h"
#include "iobench/units.h"
#include "iobench/repeat.h"
#include "iobench/steady.h"

#define MAX_LINE 1000 /* iniparser's own limit is 1024 */

/* ---- the key table --------------------------------------------------------- */

#define FIELD(f) offsetof(struct iob_job, f), sizeof(((struct iob_job *)0)->f)

_Static_assert(sizeof(enum iob_access) == sizeof(int) && sizeof(enum iob_layout) == sizeof(int) &&
		   sizeof(enum iob_clock) == sizeof(int),
	       "enum keys are stored as int");

static const struct iob_key_word layout_words[] = {
    {"file", IOB_LAYOUT_FILE}, {"tree", IOB_LAYOUT_TREE}, {NULL, 0}};
static const struct iob_key_word access_words[] = {{"seq", IOB_ACCESS_SEQ},
						   {"rand", IOB_ACCESS_RAND},
						   {"sequential", IOB_ACCESS_SEQ},
						   {"random", IOB_ACCESS_RAND},
						   {NULL, 0}};
static const struct iob_key_word phase_words[] = {{"write", IOB_PHASE_BIT(IOB_PHASE_WRITE)},
						  {"read", IOB_PHASE_BIT(IOB_PHASE_READ)},
						  {"verify", IOB_PHASE_BIT(IOB_PHASE_VERIFY)},
						  {"mixed", IOB_PHASE_BIT(IOB_PHASE_MIXED)},
						  {NULL, 0}};
static const struct iob_key_word workload_words[] = {{"data", 0}, {"files", 1}, {NULL, 0}};
static const struct iob_key_word meta_phase_words[] = {{"mkdir", 1u << 0},  {"create", 1u << 1}, {"write", 1u << 2},
						       {"stat", 1u << 3},   {"open", 1u << 4},	 {"read", 1u << 5},
						       {"remove", 1u << 6}, {"rmdir", 1u << 7},	 {NULL, 0}};
static const struct iob_key_word clock_words[] = {{"wall", IOB_CLOCK_WALL},
						  {"user", IOB_CLOCK_USER},
						  {"system", IOB_CLOCK_SYSTEM},
						  {"process", IOB_CLOCK_PROCESS},
						  {NULL, 0}};

static int set_seed(struct iob_job *job, const char *value, char *err, size_t errlen)
{
	uint64_t u;
	int rc = iob_parse_u64(value, &u, err, errlen);
	if (rc == 0)
		job->seed = job->pattern.seed = u;
	return rc;
}

static int set_log_interval(struct iob_job *job, const char *value, char *err, size_t errlen);
static int set_repeat(struct iob_job *job, const char *value, char *err, size_t errlen);
static int set_until_ci(struct iob_job *job, const char *value, char *err, size_t errlen);
static int set_repeat_max(struct iob_job *job, const char *value, char *err, size_t errlen);
static int set_steady_window(struct iob_job *job, const char *value, char *err, size_t errlen);
static int set_steady_max_rounds(struct iob_job *job, const char *value, char *err, size_t errlen);
static int set_steady_round(struct iob_job *job, const char *value, char *err, size_t errlen);
static int set_steady_pct(struct iob_job *job, const char *value, char *err, size_t errlen, char *dst,
			  size_t len, const char *key);
static int set_steady_range(struct iob_job *job, const char *value, char *err, size_t errlen)
{
	return set_steady_pct(job, value, err, errlen, job->steady_range, sizeof job->steady_range, "steady_range");
}
static int set_steady_slope(struct iob_job *job, const char *value, char *err, size_t errlen)
{
	return set_steady_pct(job, value, err, errlen, job->steady_slope, sizeof job->steady_slope, "steady_slope");
}
static int set_steady_limit(struct iob_job *job, const char *value, char *err, size_t errlen)
{
	return set_steady_pct(job, value, err, errlen, job->steady_limit, sizeof job->steady_limit, "steady_limit");
}

static const struct iob_key_word steady_words[] = {
    {"none", IOB_STEADY_NONE}, {"iops", IOB_STEADY_IOPS}, {"bw", IOB_STEADY_BW}, {NULL, 0}};
static const struct iob_key_word steady_rule_words[] = {
    {"snia", IOB_STEADY_SNIA}, {"deviation", IOB_STEADY_DEVIATION}, {"slope", IOB_STEADY_SLOPE}, {NULL, 0}};

static const struct iob_key key_table[] = {
    {"description", IOB_KEY_STRING, "", "", "free text, ignored", NULL, 0, 0, NULL},
    {"backend", IOB_KEY_STRING, "plugin name", IOB_DEFAULT_BACKEND,
     "backend plugin that moves the bytes ('iobench plugins' lists them)", NULL, FIELD(backend), NULL},
    {"backend_options", IOB_KEY_STRING, "k=v,...", "",
     "options handed to the backend's open; the backend refuses an unknown one before anything is created",
     NULL, FIELD(backend_options), NULL},
    {"dir", IOB_KEY_PATH, "", ".", "directory holding the job's files; must exist; --dir overrides it", NULL,
     FIELD(dir), NULL},
    {"filename", IOB_KEY_PATH, "", "iobench.<job>.dat",
     "the file in dir (layout file); - is standard input (read-only, stream backends)", NULL, FIELD(filename),
     NULL},
    {"layout", IOB_KEY_ENUM, "", "file", "one file, or a tree of files (tree_levels, tree_files)",
     layout_words, FIELD(layout), NULL},
    {"tree_levels", IOB_KEY_COUNT, "levels", "3",
     "layout tree: depth, dir/dir0, dir/dir0/dir1, ... (at most 64)", NULL, FIELD(tree_levels), NULL},
    {"tree_files", IOB_KEY_COUNT, "files", "4",
     "layout tree: files per level, file0 ... fileN-1 in each dirK", NULL, FIELD(tree_files), NULL},
    {"access", IOB_KEY_ENUM, "", "seq",
     "sequential offsets, or random ones (sequential and random are accepted too)", access_words,
     FIELD(access), NULL},
    {"phases", IOB_KEY_LIST, "", "write,read", "phases to run, always in the order write, read, verify, mixed (reads and writes: rwmix_read)",
     phase_words, FIELD(phases), NULL},
    {"block_size", IOB_KEY_SIZE, "bytes", "4K", "bytes per I/O (at most 2 GiB)", NULL, FIELD(block_size),
     NULL},
    {"block_size_max", IOB_KEY_SIZE, "bytes", "0",
     "sweep: every phase again at block_size, 2x, 4x ... up to this; 0 = no sweep", NULL,
     FIELD(block_size_max), NULL},
    {"size", IOB_KEY_SIZE, "bytes", "64M", "bytes per file", NULL, FIELD(size), NULL},
    {"ops", IOB_KEY_COUNT, "I/O calls", "0",
     "random access: I/O calls per phase (and block size); 0 = size / block_size x files", NULL, FIELD(ops),
     NULL},
    {"loops", IOB_KEY_COUNT, "passes", "1", "sequential access: passes over each file per phase", NULL,
     FIELD(loops), NULL},
    {"offset_align", IOB_KEY_SIZE, "bytes", "0",
     "random access: offsets are multiples of this; 0 = block_size", NULL, FIELD(offset_align), NULL},
    {"random_map", IOB_KEY_BOOL, "", "true",
     "random access: every slot once per pass, in a random order; false draws with replacement (holes), as "
     "io_profile did",
     NULL, FIELD(random_map), NULL},
    {"skip_past_end", IOB_KEY_BOOL, "", "false",
     "random access: draw offsets in [0, size) and skip (count, not do) an I/O crossing the end, as "
     "io_profile "
     "did",
     NULL, FIELD(skip_past_end), NULL},
    {"pattern", IOB_KEY_PATTERN, "", "random",
     "data written and expected by verify: zero, ones, text, random, byte:0xNN, char:C; ~ prefix = "
     "complement",
     NULL, FIELD(pattern), NULL},
    {"seed", IOB_KEY_COUNT, "", "280225732", "seeds random offsets and the random pattern", NULL, FIELD(seed),
     set_seed},
    {"fsync", IOB_KEY_BOOL, "", "true", "write phases sync each file before closing it; the time counts",
     NULL, FIELD(fsync), NULL},
    {"truncate", IOB_KEY_BOOL, "", "false", "write phases truncate the file when opening it", NULL,
     FIELD(truncate), NULL},
    {"reopen", IOB_KEY_BOOL, "", "false",
     "random access: open and close the file around every I/O (timed), as io_profile did", NULL,
     FIELD(reopen), NULL},
    {"keep_files", IOB_KEY_BOOL, "", "false",
     "leave the files behind; otherwise remove the files and directories the job created (never older ones)",
     NULL, FIELD(keep_files), NULL},
    {"allow_devices", IOB_KEY_BOOL, "", "false",
     "permit block and character devices as targets (refused otherwise, also behind symlinks)", NULL,
     FIELD(allow_devices), NULL},
    {"follow_symlinks", IOB_KEY_BOOL, "", "false",
     "a target that is a symbolic link is refused unless true; devices stay refused without allow_devices",
     NULL, FIELD(follow_symlinks), NULL},
    {"evict_before_read", IOB_KEY_BOOL, "", "false",
     "write back and evict the files from the page cache before read and verify phases; and every further "
     "pass of any phase (time_based, loops, ops beyond one pass) starts with the file's pages dropped (timed)",
     NULL, FIELD(evict_before_read), NULL},
    {"fill_once", IOB_KEY_BOOL, "", "false",
     "write phases write one buffer filled as at offset 0 everywhere, as io_profile did; verify is refused "
     "with it",
     NULL, FIELD(fill_once), NULL},
    {"series", IOB_KEY_BOOL, "", "false",
     "sequential reads: one block record per I/O, with block speeds, summary and cliff, as bigread reports",
     NULL, FIELD(series), NULL},
    {"series_clock", IOB_KEY_ENUM, "", "wall",
     "with series: the clock each block is timed with (user, system, process: this process's CPU time)",
     clock_words, FIELD(series_clock), NULL},
    {"threads", IOB_KEY_COUNT, "streams", "1",
     "streams run at once (1 to 4096), each on its own thread and its own files <file>.<i> unless shared_file; "
     "every phase gives one record per stream and one aggregate",
     NULL, FIELD(threads), NULL},
    {"shared_file", IOB_KEY_BOOL, "", "false",
     "all streams use the job's files: sequential streams each take an equal part of every file, random "
     "ones draw over the whole file",
     NULL, FIELD(shared_file), NULL},
    {"iodepth", IOB_KEY_COUNT, "I/Os", "1",
     "I/Os in flight per stream (1 to 65536); above 1 needs a backend that can queue (io_uring)", NULL,
     FIELD(iodepth), NULL},
    {"memory_limit", IOB_KEY_SIZE, "bytes", "0",
     "the memory the run may allocate at once (buffers: streams x iodepth x block size, histograms), checked "
     "before anything is created, for each job and each group; 0 = the memory available (MemAvailable)",
     NULL, FIELD(memory_limit), NULL},
    {"runtime", IOB_KEY_DURATION, "", "0s",
     "each phase ends at this time limit, or after its ops, loops or one pass, whichever comes first: a bound, "
     "never more work; 0s = no limit",
     NULL, FIELD(runtime_ns), NULL},
    {"time_based", IOB_KEY_BOOL, "", "false",
     "with runtime (required): each phase runs until the limit, passing over its files again and again (fio's "
     "time_based); ops and loops no longer end it",
     NULL, FIELD(time_based), NULL},
    {"stonewall", IOB_KEY_DURATION, "", "0s",
     "across MPI ranks: every rank stops each phase this long after the ranks' common start, its planned "
     "I/O unfinished (IOR's stonewalling; each rank's record says what it did); alone, a time limit; 0s = off",
     NULL, FIELD(stonewall_ns), NULL},
    {"ramp_time", IOB_KEY_DURATION, "", "0s", "I/O done in each phase before its measured window, not counted",
     NULL, FIELD(ramp_ns), NULL},
    {"rwmix_read", IOB_KEY_COUNT, "percent", "50",
     "phase mixed: each I/O is a read with this probability (0 to 100), a write otherwise", NULL,
     FIELD(rwmix_read), NULL},
    {"log_interval", IOB_KEY_DURATION, "", "0s",
     "an interval record (time, bytes, ops, MiB/s, IOPS, p50 and p99 latency) this often in every phase (at "
     "least 10ms); 0s = none",
     NULL, FIELD(log_interval_ns), set_log_interval},
    {"livecsv", IOB_KEY_PATH, "", "",
     "write the interval records also to this CSV file as the run goes (one header, a row per interval, "
     "flushed); needs log_interval",
     NULL, FIELD(livecsv), NULL},
    {"group", IOB_KEY_COUNT, "", "0",
     "jobs in a row with the same nonzero number run at the same time, as one group with one aggregate "
     "record per phase (1 to 1000000); 0 = this job runs alone, in file order",
     NULL, FIELD(group), NULL},
    {"bw_log", IOB_KEY_PATH, "", "",
     "fio's write_bw_log: PREFIX_bw.<x>.log, a row per interval (time ms, KiB/s, direction, 0, 0); needs "
     "log_interval (fio's log_avg_msec)",
     NULL, FIELD(bw_log), NULL},
    {"iops_log", IOB_KEY_PATH, "", "",
     "fio's write_iops_log: PREFIX_iops.<x>.log, a row per interval (time ms, IOPS, direction, 0, 0); needs "
     "log_interval",
     NULL, FIELD(iops_log), NULL},
    {"lat_log", IOB_KEY_PATH, "", "",
     "fio's write_lat_log: PREFIX_lat.<x>.log and PREFIX_clat.<x>.log, a row per interval with I/O (time ms, "
     "mean latency ns, direction, 0, 0); needs log_interval",
     NULL, FIELD(lat_log), NULL},
    {"repeat", IOB_KEY_COUNT, "runs", "1",
     "run each phase this many times (1 to 1000), each as the first; a record per run (its repeat index) and "
     "a summary record with mean, spread and 95% interval (docs/statistics.md)",
     NULL, FIELD(repeat), set_repeat},
    {"until_ci", IOB_KEY_STRING, "percent", "",
     "repeat each phase until the 95% interval of its mean MiB/s is at most this share of the mean (e.g. 2%), "
     "at least 3 runs and at most repeat_max; a note when not reached",
     NULL, FIELD(until_ci), set_until_ci},
    {"repeat_max", IOB_KEY_COUNT, "runs", "30", "until_ci: the most runs of a phase (3 to 1000)", NULL,
     FIELD(repeat_max), set_repeat_max},
    {"steady_state", IOB_KEY_ENUM, "", "none",
     "run each phase in rounds until the last steady_window rounds' IOPS or MiB/s are steady (steady_rule), "
     "at most steady_max_rounds; a record per round and a steady record (docs/statistics.md)",
     steady_words, FIELD(steady_state), NULL},
    {"steady_window", IOB_KEY_COUNT, "rounds", "5", "steady_state: the rounds judged together (2 to 1000)",
     NULL, FIELD(steady_window), set_steady_window},
    {"steady_round", IOB_KEY_STRING, "time or I/Os", "",
     "steady_state: one round is this long (10s, 500ms) or this many I/Os (2000: sequential rounds go on "
     "where the last ended); empty = one run of the phase as the job says",
     NULL, FIELD(steady_round), set_steady_round},
    {"steady_max_rounds", IOB_KEY_COUNT, "rounds", "25", "steady_state: the most rounds (2 to 100000)", NULL,
     FIELD(steady_max_rounds), set_steady_max_rounds},
    {"steady_ramp", IOB_KEY_DURATION, "", "0s",
     "steady_state: rounds that end within this time of the first round's start are run but never judged",
     NULL, FIELD(steady_ramp_ns), NULL},
    {"steady_rule", IOB_KEY_ENUM, "", "snia",
     "snia: range within steady_range and fitted line's excursion within steady_slope of the window mean; "
     "deviation: every round within steady_limit of the mean (fio's iops:X%); slope: the fitted slope per round below "
     "steady_limit of the mean (fio's iops_slope:X%)",
     steady_rule_words, FIELD(steady_rule), NULL},
    {"steady_range", IOB_KEY_STRING, "percent", "20%", "steady_rule snia: the largest range (max - min) as a share of the mean",
     NULL, FIELD(steady_range), set_steady_range},
    {"steady_slope", IOB_KEY_STRING, "percent", "10%",
     "steady_rule snia: the most the fitted line may move across the window, as a share of the mean", NULL,
     FIELD(steady_slope), set_steady_slope},
    {"steady_limit", IOB_KEY_STRING, "percent", "",
     "steady_rule deviation or slope: the limit, as a share of the mean", NULL, FIELD(steady_limit),
     set_steady_limit},
    /* workload = files: many small files (meta.c, docs/metadata.md) */
    {"workload", IOB_KEY_ENUM, "", "data",
     "data: the phases below move bytes through a backend; files: many small files in trees, phases from "
     "meta_phases (docs/metadata.md)",
     workload_words, FIELD(workload), NULL},
    {"meta_phases", IOB_KEY_LIST, "", "mkdir,create,stat,remove,rmdir",
     "workload files: phases to run, always in the order mkdir, create, write, stat, open, read, remove, rmdir; "
     "a tree not made by mkdir is made (and one not removed by rmdir removed) untimed",
     meta_phase_words, FIELD(meta_phases), NULL},
    {"files", IOB_KEY_COUNT, "items", "1000",
     "workload files: files each stream makes (1 to 100000000), spread evenly over its tree's directories", NULL,
     FIELD(files), NULL},
    {"tree_depth", IOB_KEY_COUNT, "levels", "0",
     "workload files: levels of directories below each tree's root (0 = every file in the root)", NULL,
     FIELD(tree_depth), NULL},
    {"tree_branch", IOB_KEY_COUNT, "dirs", "10",
     "workload files: subdirectories of each directory above the last level (at most 1000000 directories a "
     "tree)",
     NULL, FIELD(tree_branch), NULL},
    {"dir_per_stream", IOB_KEY_BOOL, "", "true",
     "workload files: a tree per stream (mdtest -u), or one tree every stream of every rank shares", NULL,
     FIELD(dir_per_stream), NULL},
    {"file_bytes", IOB_KEY_SIZE, "bytes", "0",
     "workload files: bytes written to each file at create and write (mdtest -w), read at read (-e); at most "
     "1 GiB",
     NULL, FIELD(file_bytes), NULL},
    {"file_fsync", IOB_KEY_BOOL, "", "false",
     "workload files: create and write sync each file before closing it (mdtest -y); the time counts", NULL,
     FIELD(file_fsync), NULL},
    {"stat_other", IOB_KEY_COUNT, "streams", "0",
     "workload files: write, stat, open and read the files of the stream N further on, across threads and "
     "ranks (mdtest -N); 0 = each stream its own",
     NULL, FIELD(stat_other), NULL},
    {"drop_caches", IOB_KEY_BOOL, "", "false",
     "workload files, as root: drop the page, dentry and inode caches before every phase but the first (the "
     "record says caches_dropped); without root, a note",
     NULL, FIELD(drop_caches), NULL},
};

const struct iob_key *iob_keys(size_t *n)
{
	*n = sizeof key_table / sizeof key_table[0];
	return key_table;
}

const struct iob_key *iob_key_find(const char *name)
{
	for (size_t i = 0; i < sizeof key_table / sizeof key_table[0]; i++)
		if (strcmp(key_table[i].name, name) == 0)
			return &key_table[i];
	return NULL;
}

const char *iob_key_type_name(enum iob_key_type type)
{
	switch (type) {
	case IOB_KEY_SIZE:
		return "size";
	case IOB_KEY_COUNT:
		return "count";
	case IOB_KEY_BOOL:
		return "bool";
	case IOB_KEY_ENUM:
		return "enum";
	case IOB_KEY_LIST:
		return "list";
	case IOB_KEY_STRING:
		return "string";
	case IOB_KEY_PATH:
		return "path";
	case IOB_KEY_PATTERN:
		return "pattern";
	case IOB_KEY_DURATION:
		return "duration";
	}
	return "?";
}

#define LOG_INTERVAL_MIN_NS 10000000ull

static int set_duration(const struct iob_key *k, const char *value, uint64_t *dst, char *err, size_t errlen);

static int set_log_interval(struct iob_job *job, const char *value, char *err, size_t errlen)
{
	uint64_t ns = 0;
	int rc = set_duration(iob_key_find("log_interval"), value, &ns, err, errlen);
	if (rc == 0 && ns && ns < LOG_INTERVAL_MIN_NS) {
		snprintf(err, errlen, "log_interval '%s' is shorter than 10ms: give 0s (no intervals) or at least 10ms",
			 IOB_Q(value));
		return -ERANGE;
	}
	if (rc == 0)
		job->log_interval_ns = ns;
	return rc;
}

static int set_repeat(struct iob_job *job, const char *value, char *err, size_t errlen)
{
	uint64_t u;
	int rc = iob_parse_u64(value, &u, err, errlen);
	if (rc == 0 && (u < 1 || u > IOB_REPEAT_MAX)) {
		snprintf(err, errlen, "repeat '%s' is out of range: give 1 to %u runs", IOB_Q(value), IOB_REPEAT_MAX);
		return -ERANGE;
	}
	if (rc == 0)
		job->repeat = (uint32_t)u;
	return rc;
}

static int set_repeat_max(struct iob_job *job, const char *value, char *err, size_t errlen)
{
	uint64_t u;
	int rc = iob_parse_u64(value, &u, err, errlen);
	if (rc == 0 && (u < IOB_UNTIL_CI_MIN_RUNS || u > IOB_REPEAT_MAX)) {
		snprintf(err, errlen, "repeat_max '%s' is out of range: give %u to %u runs", IOB_Q(value),
			 IOB_UNTIL_CI_MIN_RUNS, IOB_REPEAT_MAX);
		return -ERANGE;
	}
	if (rc == 0)
		job->repeat_max = (uint32_t)u;
	return rc;
}

static int set_until_ci(struct iob_job *job, const char *value, char *err, size_t errlen)
{
	double share;
	if (!*value) { /* "": off */
		job->until_ci[0] = '\0';
		return 0;
	}
	int rc = iob_until_ci_parse(value, &share, err, errlen);
	if (rc == 0 && strlen(value) >= sizeof job->until_ci) {
		snprintf(err, errlen, "until_ci '%s' is too long", IOB_Q(value));
		rc = -EINVAL;
	}
	if (rc == 0) {
		memset(job->until_ci, 0, sizeof job->until_ci);
		memcpy(job->until_ci, value, strlen(value));
	}
	return rc;
}

static int set_bounded(const char *key, const char *value, uint32_t lo, uint32_t hi, uint32_t *dst, char *err,
		       size_t errlen)
{
	uint64_t u;
	int rc = iob_parse_u64(value, &u, err, errlen);
	if (rc == 0 && (u < lo || u > hi)) {
		snprintf(err, errlen, "%s '%s' is out of range: give %u to %u", key, IOB_Q(value), lo, hi);
		return -ERANGE;
	}
	if (rc == 0)
		*dst = (uint32_t)u;
	return rc;
}

static int set_steady_window(struct iob_job *job, const char *value, char *err, size_t errlen)
{
	return set_bounded("steady_window", value, 2, 1000, &job->steady_window, err, errlen);
}

static int set_steady_max_rounds(struct iob_job *job, const char *value, char *err, size_t errlen)
{
	return set_bounded("steady_max_rounds", value, 2, 100000, &job->steady_max_rounds, err, errlen);
}

static int set_steady_round(struct iob_job *job, const char *value, char *err, size_t errlen)
{
	uint64_t ns, ios;
	int rc = iob_steady_round_parse(value, &ns, &ios, err, errlen);
	if (rc == 0 && strlen(value) >= sizeof job->steady_round) {
		snprintf(err, errlen, "steady_round '%s' is too long", IOB_Q(value));
		rc = -EINVAL;
	}
	if (rc == 0) {
		memset(job->steady_round, 0, sizeof job->steady_round);
		memcpy(job->steady_round, value, strlen(value));
	}
	return rc;
}

static int set_steady_pct(struct iob_job *job, const char *value, char *err, size_t errlen, char *dst,
			  size_t len, const char *key)
{
	(void)job;
	double share;
	int rc = *value ? iob_steady_pct_parse(key, value, &share, err, errlen) : 0;
	if (rc == 0 && strlen(value) >= len) {
		snprintf(err, errlen, "%s '%s' is too long", key, IOB_Q(value));
		rc = -EINVAL;
	}
	if (rc == 0) {
		memset(dst, 0, len);
		memcpy(dst, value, strlen(value));
	}
	return rc;
}

/* "a, b, c": the allowed words of an enum or list key. */
static void word_list(const struct iob_key *k, const char *sep, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	for (const struct iob_key_word *w = k->words; w && w->word && o < len; w++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", w == k->words ? "" : sep, w->word);
}

static int set_enum(const struct iob_key *k, const char *value, int *dst, char *err, size_t errlen)
{
	for (const struct iob_key_word *w = k->words; w->word; w++)
		if (strcmp(value, w->word) == 0) {
			*dst = w->value;
			return 0;
		}
	char words[160];
	word_list(k, ", ", words, sizeof words);
	snprintf(err, errlen, "%s '%s' is not one of %s", k->name, IOB_Q(value), words);
	return -EINVAL;
}

static int set_list(const struct iob_key *k, const char *value, uint32_t *dst, char *err, size_t errlen)
{
	uint32_t bits = 0;
	char buf[128];
	if (strlen(value) >= sizeof buf) {
		snprintf(err, errlen, "%s '%s' is too long", k->name, IOB_Q(value));
		return -EINVAL;
	}
	snprintf(buf, sizeof buf, "%s", value);
	char *save = NULL;
	for (char *t = strtok_r(buf, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save)) {
		const struct iob_key_word *w = k->words;
		while (w->word && strcmp(t, w->word) != 0)
			w++;
		if (!w->word) {
			char words[160];
			word_list(k, ", ", words, sizeof words);
			size_t nl = strlen(k->name); /* "phases": "unknown phase" */
			snprintf(err, errlen, "unknown %.*s '%s' in '%s' (use %s)",
				 (int)(nl > 1 && k->name[nl - 1] == 's' ? nl - 1 : nl), k->name, IOB_Q(t),
				 IOB_Q(value), words);
			return -EINVAL;
		}
		bits |= (uint32_t)w->value;
	}
	if (!bits) {
		snprintf(err, errlen, "%s is empty", k->name);
		return -EINVAL;
	}
	*dst = bits;
	return 0;
}

static int set_count(const struct iob_key *k, const char *value, void *dst, char *err, size_t errlen)
{
	uint64_t v;
	int rc = iob_parse_u64(value, &v, err, errlen);
	if (rc)
		return rc;
	if (k->width == sizeof(uint32_t)) {
		if (v > UINT32_MAX) {
			snprintf(err, errlen, "%s '%s' is too large (limit %u)", k->name, IOB_Q(value),
				 UINT32_MAX);
			return -ERANGE;
		}
		uint32_t v32 = (uint32_t)v;
		memcpy(dst, &v32, sizeof v32);
	} else {
		memcpy(dst, &v, sizeof v);
	}
	return 0;
}

static int set_text(const struct iob_key *k, const char *value, char *dst, char *err, size_t errlen)
{
	size_t n = strlen(value);
	if (n >= k->width) {
		snprintf(err, errlen, "%s is longer than %zu characters", k->name, k->width - 1);
		return -ENAMETOOLONG;
	}
	/* zero the rest too: a shorter value over a [global] one leaves no stale
	 * bytes, so jobs with equal settings are equal byte for byte */
	memset(dst, 0, k->width);
	memcpy(dst, value, n);
	return 0;
}

static const struct {
	const char *unit;
	uint64_t ns;
} duration_units[] = {{"h", 3600000000000ull}, {"m", 60000000000ull}, {"s", 1000000000ull},
		      {"ms", 1000000ull},	   {"us", 1000ull},	   {"ns", 1}};

/* "5s", "500ms", "2m", "1h", "100us", "7ns": a whole number and its unit. */
static int set_duration(const struct iob_key *k, const char *value, uint64_t *dst, char *err, size_t errlen)
{
	const char *p = value;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '-') {
		snprintf(err, errlen, "%s '%s' is negative: give a duration such as 5s or 500ms", k->name,
			 IOB_Q(value));
		return -ERANGE;
	}
	uint64_t v = 0;
	const char *d = p;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10) {
			snprintf(err, errlen, "%s '%s' is too large", k->name, IOB_Q(value));
			return -ERANGE;
		}
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p == d) {
		snprintf(err, errlen, "%s '%s' is not a duration (write a whole number and a unit: 5s, 500ms, 2m, 1h, "
				      "100us)",
			 k->name, IOB_Q(value));
		return -EINVAL;
	}
	if (!*p) {
		snprintf(err, errlen, "%s '%s' has no unit (write %s followed by h, m, s, ms, us or ns, e.g. %ss)",
			 k->name, IOB_Q(value), IOB_Q(value), IOB_Q(value));
		return -EINVAL;
	}
	for (size_t i = 0; i < sizeof duration_units / sizeof duration_units[0]; i++)
		if (strcmp(p, duration_units[i].unit) == 0) {
			if (v > UINT64_MAX / duration_units[i].ns) {
				snprintf(err, errlen, "%s '%s' is too large", k->name, IOB_Q(value));
				return -ERANGE;
			}
			*dst = v * duration_units[i].ns;
			return 0;
		}
	snprintf(err, errlen, "%s '%s' has an unknown unit (use h, m, s, ms, us or ns)", k->name, IOB_Q(value));
	return -EINVAL;
}

static int key_set(const struct iob_key *k, struct iob_job *job, const char *value, char *err, size_t errlen)
{
	void *dst = (char *)job + k->offset;
	if (k->set)
		return k->set(job, value, err, errlen);
	if (k->width == 0)
		return 0;
	switch (k->type) {
	case IOB_KEY_SIZE:
		return iob_parse_size(value, dst, err, errlen);
	case IOB_KEY_COUNT:
		return set_count(k, value, dst, err, errlen);
	case IOB_KEY_BOOL:
		return iob_parse_bool(value, dst, err, errlen);
	case IOB_KEY_ENUM:
		return set_enum(k, value, dst, err, errlen);
	case IOB_KEY_LIST:
		return set_list(k, value, dst, err, errlen);
	case IOB_KEY_STRING:
	case IOB_KEY_PATH:
		return set_text(k, value, dst, err, errlen);
	case IOB_KEY_PATTERN:
		return iob_pattern_parse(value, dst, err, errlen);
	case IOB_KEY_DURATION:
		return set_duration(k, value, dst, err, errlen);
	}
	snprintf(err, errlen, "%s: key of unknown type", k->name);
	return -EINVAL;
}

/* Edit distance with adjacent transpositions, for the unknown-key hint. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d[34][34];
	if (la > 32 || lb > 32)
		return SIZE_MAX;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < v)
				v = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

static void unknown_key(const char *key, char *err, size_t errlen)
{
	const char *best = NULL;
	size_t bestd = SIZE_MAX, n = strlen(key);
	for (size_t i = 0; i <= sizeof key_table / sizeof key_table[0]; i++) {
		const char *name = i < sizeof key_table / sizeof key_table[0] ? key_table[i].name : "include";
		size_t dd = distance(key, name);
		if (dd < bestd) {
			bestd = dd;
			best = name;
		}
	}
	if (best && bestd <= 2 && bestd < n)
		snprintf(err, errlen, "unknown key (did you mean %s? 'iobench keys' lists every key)", best);
	else
		snprintf(err, errlen, "unknown key ('iobench keys' lists every key)");
}

int iob_job_set(struct iob_job *job, const char *key, const char *value, char *err, size_t errlen)
{
	const struct iob_key *k = iob_key_find(key);
	if (!k) {
		unknown_key(key, err, errlen);
		return -ENOENT;
	}
	return key_set(k, job, value, err, errlen);
}

static int put(char *buf, size_t len, const char *fmt, ...) IOB_PRINTF(3, 4);
static int put(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

int iob_key_format(const struct iob_key *k, const struct iob_job *job, char *buf, size_t len)
{
	const void *src = (const char *)job + k->offset;
	int iv;
	uint32_t u32;
	uint64_t u64;
	if (k->width == 0)
		return -ENOENT;
	switch (k->type) {
	case IOB_KEY_SIZE:
		memcpy(&u64, src, sizeof u64);
		return put(buf, len, "%llu", (unsigned long long)u64);
	case IOB_KEY_COUNT:
		if (k->width == sizeof u32) {
			memcpy(&u32, src, sizeof u32);
			return put(buf, len, "%u", u32);
		}
		memcpy(&u64, src, sizeof u64);
		return put(buf, len, "%llu", (unsigned long long)u64);
	case IOB_KEY_BOOL:
		memcpy(&iv, src, sizeof iv);
		return put(buf, len, "%s", iv ? "true" : "false");
	case IOB_KEY_ENUM:
		memcpy(&iv, src, sizeof iv);
		for (const struct iob_key_word *w = k->words; w->word; w++)
			if (w->value == iv)
				return put(buf, len, "%s", w->word);
		return -EINVAL;
	case IOB_KEY_LIST: {
		memcpy(&u32, src, sizeof u32);
		size_t o = 0;
		uint32_t left = u32;
		if (len)
			buf[0] = '\0';
		for (const struct iob_key_word *w = k->words; w->word; w++)
			if (left & (uint32_t)w->value) {
				if (put(buf + o, len - o, "%s%s", o ? "," : "", w->word))
					return -ENOSPC;
				o += strlen(buf + o);
				left &= ~(uint32_t)w->value;
			}
		return left || !u32 ? -EINVAL : 0;
	}
	case IOB_KEY_STRING:
	case IOB_KEY_PATH:
		if (!memchr(src, '\0', k->width))
			return -EINVAL;
		return put(buf, len, "%s", (const char *)src);
	case IOB_KEY_PATTERN:
		iob_pattern_name(src, buf, len);
		return 0;
	case IOB_KEY_DURATION: /* the largest unit that says it exactly */
		memcpy(&u64, src, sizeof u64);
		if (u64 == 0)
			return put(buf, len, "0s");
		for (size_t i = 0; i < sizeof duration_units / sizeof duration_units[0]; i++)
			if (u64 % duration_units[i].ns == 0)
				return put(buf, len, "%llu%s", (unsigned long long)(u64 / duration_units[i].ns),
					   duration_units[i].unit);
		return -EINVAL;
	}
	return -EINVAL;
}

/* The type column: "enum: seq|rand", "list: write,read,verify". */
static void type_text(const struct iob_key *k, const char *sep, char *buf, size_t len)
{
	char words[160];
	if (k->type != IOB_KEY_ENUM && k->type != IOB_KEY_LIST) {
		snprintf(buf, len, "%s", iob_key_type_name(k->type));
		return;
	}
	if (k->type == IOB_KEY_LIST) /* "list: write,read,verify"; markdown: `write`, `read` */
		sep = strchr(sep, '`') ? "`, `" : ",";
	/* the spellings written back, not the aliases */
	size_t o = 0;
	words[0] = '\0';
	for (const struct iob_key_word *w = k->words; w->word; w++) {
		const struct iob_key_word *first = k->words;
		while (first->value != w->value)
			first++;
		if (first == w)
			o += (size_t)snprintf(words + o, sizeof words - o, "%s%s", o ? sep : "", w->word);
	}
	snprintf(buf, len, "%s: %s", iob_key_type_name(k->type), words);
}

int iob_keys_print(FILE *f, int markdown)
{
	const size_t n = sizeof key_table / sizeof key_table[0];
	char type[200];
	int wname = 3, wtype = 4, wunit = 4, wdef = 7;
	for (size_t i = 0; i < n && !markdown; i++) {
		type_text(&key_table[i], "|", type, sizeof type);
		const char *def = key_table[i].def[0] ? key_table[i].def : "(empty)";
		wname = (int)strlen(key_table[i].name) > wname ? (int)strlen(key_table[i].name) : wname;
		wtype = (int)strlen(type) > wtype ? (int)strlen(type) : wtype;
		wunit = (int)strlen(key_table[i].unit) > wunit ? (int)strlen(key_table[i].unit) : wunit;
		wdef = (int)strlen(def) > wdef ? (int)strlen(def) : wdef;
	}
	if (markdown)
		fprintf(f, "| key | type | unit | default | meaning |\n|---|---|---|---|---|\n");
	else
		fprintf(f, "%-*s  %-*s  %-*s  %-*s  %s\n", wname, "KEY", wtype, "TYPE", wunit, "UNIT", wdef,
			"DEFAULT", "MEANING");
	for (size_t i = 0; i < n; i++) {
		const struct iob_key *k = &key_table[i];
		if (markdown) {
			type_text(k, "` \\| `", type, sizeof type);
			char *colon = strchr(type, ':');
			if (colon) /* "enum: `seq` \| `rand`" */
				fprintf(f, "| `%s` | %.*s: `%s` | %s | %s%s%s | %s |\n", k->name,
					(int)(colon - type), type, colon + 2, k->unit, k->def[0] ? "`" : "",
					k->def[0] ? k->def : "(empty)", k->def[0] ? "`" : "", k->meaning);
			else
				fprintf(f, "| `%s` | %s | %s | %s%s%s | %s |\n", k->name, type, k->unit,
					k->def[0] ? "`" : "", k->def[0] ? k->def : "(empty)",
					k->def[0] ? "`" : "", k->meaning);
		} else {
			type_text(k, "|", type, sizeof type);
			fprintf(f, "%-*s  %-*s  %-*s  %-*s  %s\n", wname, k->name, wtype, type, wunit,
				k->unit[0] ? k->unit : "-", wdef, k->def[0] ? k->def : "(empty)", k->meaning);
		}
	}
	return ferror(f) ? -EIO : 0;
}

/* ---- the raw pre-scan ---------------------------------------------------- */

struct kv {
	char *key, *value, *file; /* value already expanded */
};

struct kvlist {
	size_t n, cap;
	struct kv *v;
};

static void kvlist_free(struct kvlist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].key);
		free(l->v[i].value);
		free(l->v[i].file);
	}
	free(l->v);
	memset(l, 0, sizeof *l);
}

static int kvlist_add(struct kvlist *l, const char *key, const char *value, const char *file)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct kv *v = realloc(l->v, cap * sizeof *v);
		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	struct kv *e = &l->v[l->n];
	e->key = strdup(key);
	e->value = strdup(value);
	e->file = strdup(file);
	if (!e->key || !e->value || !e->file) {
		free(e->key);
		free(e->value);
		free(e->file);
		return -ENOMEM;
	}
	l->n++;
	return 0;
}

static void lower(char *s)
{
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* Structure checks iniparser does not make.  Fills sections in file order;
 * *bom says the file starts with a UTF-8 byte order mark (skipped here). */
static int prescan(const char *path, char ***sections, size_t *nsec, int *bom, char *err, size_t errlen)
{
	FILE *f = iob_fopen(path, "re");
	char *line = NULL, cur[256] = "";
	size_t cap = 0, lineno = 0;
	long len;
	int rc = 0, cont = 0;
	struct kvlist seen = {0};

	*sections = NULL;
	*nsec = 0;
	*bom = 0;
	if (!f) {
		int e = errno;
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(e));
		return -e;
	}
	while (rc == 0 && (len = iob_getline(&line, &cap, f)) != -1) {
		lineno++;
		if (lineno == 1 && len >= 3 && memcmp(line, "\xef\xbb\xbf", 3) == 0) {
			memmove(line, line + 3, (size_t)len - 2); /* the terminating NUL too */
			len -= 3;
			*bom = 1;
		}
		if (memchr(line, '\0', (size_t)len) || (len > 0 && memchr(line, '\x7f', (size_t)len))) {
			snprintf(err, errlen, "%s:%zu: binary data (not a text profile)", path, lineno);
			rc = -EINVAL;
			break;
		}
		for (ssize_t i = 0; i < len; i++)
			if ((unsigned char)line[i] < 0x20 && line[i] != '\t' && line[i] != '\n' && line[i] != '\r') {
				snprintf(err, errlen, "%s:%zu: control character 0x%02x (not a text profile)", path,
					 lineno, (unsigned char)line[i]);
				rc = -EINVAL;
				break;
			}
		if (rc)
			break;
		if (len > MAX_LINE) {
			snprintf(err, errlen, "%s:%zu: line is %ld characters long, over the %d-character limit", path,
				 lineno, len, MAX_LINE);
			rc = -E2BIG;
			break;
		}
		char *t = trim(line);
		int was_cont = cont;
		size_t tl = strlen(t);
		cont = tl && t[tl - 1] == '\\';
		if (was_cont || !*t || *t == ';' || *t == '#')
			continue;
		if (*t == '[') {
			char *close = strchr(t, ']');
			if (!close || close == t + 1) {
				snprintf(err, errlen, "%s:%zu: bad section header '%s'", path, lineno, IOB_Q(t));
				rc = -EINVAL;
				break;
			}
			const char *after = close + 1;
			while (isspace((unsigned char)*after))
				after++;
			if (*after && *after != ';' && *after != '#') {
				snprintf(err, errlen, "%s:%zu: text after the section header '%s'", path, lineno, IOB_Q(t));
				rc = -EINVAL;
				break;
			}
			*close = '\0';
			char *name = trim(t + 1);
			if (!*name) { /* "[  ]": no name, as "[]" (a job must be named) */
				snprintf(err, errlen, "%s:%zu: bad section header: the name is empty", path,
					 lineno);
				rc = -EINVAL;
				break;
			}
			lower(name);
			for (const char *c = name; *c; c++)
				if (!(isalnum((unsigned char)*c) || *c == '_' || *c == '-' || *c == '.')) {
					snprintf(err, errlen, "%s:%zu: section name '%s' may only use letters, digits, _ - .",
						 path, lineno, name);
					rc = -EINVAL;
					break;
				}
			if (rc)
				break;
			for (size_t i = 0; i < *nsec; i++)
				if (strcmp((*sections)[i], name) == 0) {
					snprintf(err, errlen, "%s:%zu: duplicate section [%s]", path, lineno, name);
					rc = -EEXIST;
				}
			if (rc)
				break;
			char **ns = realloc(*sections, (*nsec + 1) * sizeof *ns);
			if (!ns || !(ns[*nsec] = strdup(name))) {
				if (ns)
					*sections = ns;
				rc = -ENOMEM;
				break;
			}
			*sections = ns;
			(*nsec)++;
			snprintf(cur, sizeof cur, "%s", name);
			kvlist_free(&seen);
			continue;
		}
		char *eq = strchr(t, '=');
		if (!eq) {
			snprintf(err, errlen, "%s:%zu: expected 'key = value', got '%s'", path, lineno, IOB_Q(t));
			rc = -EINVAL;
			break;
		}
		*eq = '\0';
		char *key = trim(t);
		lower(key);
		if (!cur[0]) {
			snprintf(err, errlen, "%s:%zu: key '%s' outside any section (put it under [global])", path, lineno,
				 key);
			rc = -EINVAL;
			break;
		}
		for (size_t i = 0; i < seen.n; i++)
			if (strcmp(seen.v[i].key, key) == 0) {
				snprintf(err, errlen, "%s: [%s] %s: duplicate key (line %zu)", path, cur, key, lineno);
				rc = -EEXIST;
			}
		if (rc == 0)
			rc = kvlist_add(&seen, key, "", "");
	}
	if (rc == 0 && ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		rc = -EIO;
	}
	free(line);
	kvlist_free(&seen);
	fclose(f);
	if (rc != 0) {
		for (size_t i = 0; i < *nsec; i++)
			free((*sections)[i]);
		free(*sections);
		*sections = NULL;
		*nsec = 0;
	}
	return rc;
}

/* ---- ${VAR} expansion ------------------------------------------------------ */

static int expand(const char *in, char *out, size_t outlen, char *err, size_t errlen)
{
	size_t o = 0;
	for (const char *p = in; *p;) {
		if (p[0] == '$' && p[1] == '$') { /* "$$" is a literal "$" */
			if (o + 1 >= outlen) {
				snprintf(err, errlen, "value too long: '%s'", IOB_Q(in));
				return -E2BIG;
			}
			out[o++] = '$';
			p += 2;
			continue;
		}
		if (p[0] == '$' && p[1] == '{') {
			const char *end = strchr(p + 2, '}');
			char name[256], *def = NULL;
			if (!end || (size_t)(end - p - 2) >= sizeof name || end == p + 2) {
				snprintf(err, errlen, "bad variable reference in '%s' (use ${NAME} or ${NAME:-default})", IOB_Q(in));
				return -EINVAL;
			}
			memcpy(name, p + 2, (size_t)(end - p - 2));
			name[end - p - 2] = '\0';
			char *dflt = strstr(name, ":-");
			if (dflt) {
				*dflt = '\0';
				def = dflt + 2;
			}
			for (const char *c = name; *c; c++)
				if (!(isalnum((unsigned char)*c) || *c == '_')) {
					snprintf(err, errlen, "bad variable name '%s' in '%s'", IOB_Q(name), IOB_Q(in));
					return -EINVAL;
				}
			const char *v = getenv(name);
			char rank[16];
			/* ${RANK}: the MPI rank under mpirun, else the variable, else 0 (docs/mpi.md) */
			if (strcmp(name, "RANK") == 0 && (iob_coord_active() || !v)) {
				snprintf(rank, sizeof rank, "%d", iob_coord_rank());
				v = rank;
			}
			if (!v || (!*v && def))
				v = def;
			if (!v) {
				snprintf(err, errlen, "environment variable %s is not set (in '%s')", name, IOB_Q(in));
				return -ENOENT;
			}
			size_t vl = strlen(v);
			if (o + vl >= outlen) {
				snprintf(err, errlen, "value too long after expanding '%s'", IOB_Q(in));
				return -E2BIG;
			}
			memcpy(out + o, v, vl);
			o += vl;
			p = end + 1;
			continue;
		}
		if (o + 1 >= outlen) {
			snprintf(err, errlen, "value too long: '%s'", IOB_Q(in));
			return -E2BIG;
		}
		out[o++] = *p++;
	}
	out[o] = '\0';
	return 0;
}

/* ---- loading --------------------------------------------------------------- */

static char iniparser_msg[512];

static int capture_iniparser_error(const char *fmt, ...) IOB_PRINTF(1, 2);
static int capture_iniparser_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(iniparser_msg, sizeof iniparser_msg, fmt, ap);
	va_end(ap);
	char *nl = strchr(iniparser_msg, '\n');
	if (nl)
		*nl = '\0'; /* one line: iniparser adds the offending text on a second */
	return 0;
}

/* A private copy of the file for iniparser, without its byte order mark
 * when bom != 0. */
static int copy_without_bom(const char *path, char *tmp, size_t tmplen, int bom)
{
	FILE *f = iob_fopen(path, "rbe");
	char *text = NULL;
	size_t len = 0, cap = 0;
	int rc = 0;
	if (!f)
		return -errno;
	for (;;) {
		if (len == cap) {
			char *t = realloc(text, cap = cap ? cap * 2 : 65536);
			if (!t) {
				rc = -ENOMEM;
				break;
			}
			text = t;
		}
		size_t got = fread(text + len, 1, cap - len, f);
		len += got;
		if (got == 0) {
			rc = ferror(f) ? -EIO : 0;
			break;
		}
	}
	fclose(f);
	if (rc == 0 && bom && (len < 3 || memcmp(text, "\xef\xbb\xbf", 3) != 0))
		rc = -EAGAIN; /* changed since the pre-scan */
	if (rc == 0)
		rc = iob_write_temp(text + (bom ? 3 : 0), len - (bom ? 3 : 0), tmp, tmplen);
	free(text);
	return rc;
}

/* iniparser's dictionary of path (of a copy without its BOM), or NULL with
 * a one-line reason naming path. */
static dictionary *parse_ini(const char *path, int bom, char *err, size_t errlen)
{
	char tmp[4096];
	const char *src = path;
	int copy = bom;
#ifdef _WIN32
	copy = 1; /* iniparser opens by name in the ANSI code page: a copy under TEMP */
#endif
	if (copy) {
		int rc = copy_without_bom(path, tmp, sizeof tmp, bom);
		if (rc) {
			snprintf(err, errlen, "%s: cannot read it again: %s", path, strerror(-rc));
			return NULL;
		}
		src = tmp;
	}
	iniparser_msg[0] = '\0';
	iniparser_set_error_callback(capture_iniparser_error);
	dictionary *d = iniparser_load(src);
	if (copy)
		iob_remove_file(tmp);
	if (!d) {
		char *at = copy ? strstr(iniparser_msg, tmp) : NULL;
		if (at) /* name the user's file, not the copy */
			snprintf(err, errlen, "%s: %.*s%s%s", path, (int)(at - iniparser_msg), iniparser_msg, path,
				 at + strlen(tmp));
		else
			snprintf(err, errlen, "%s: %s", path, iniparser_msg[0] ? iniparser_msg : "cannot be parsed");
	}
	return d;
}

struct loadctx {
	const char *stack[IOB_MAX_INCLUDE_DEPTH + 1]; /* the profile, then its nested includes */
	size_t depth;
	struct iob_suite *suite;
};

static int load_file(struct loadctx *ctx, const char *path, struct kvlist *globals, char *err, size_t errlen);

static int do_includes(struct loadctx *ctx, const char *path, const char *list, struct kvlist *globals, char *err,
		       size_t errlen)
{
	char buf[4096], dir[4096];
	if (strlen(list) >= sizeof buf) {
		snprintf(err, errlen, "%s: [global] include: list too long", path);
		return -E2BIG;
	}
	snprintf(buf, sizeof buf, "%s", list);
	iob_path_dir(path, dir, sizeof dir);
	char *save = NULL;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *name = trim(t), inc[8192];
		if (!*name) {
			snprintf(err, errlen, "%s: [global] include: empty file name in '%s'", path, IOB_Q(list));
			return -EINVAL;
		}
		if (iob_path_absolute(name))
			snprintf(inc, sizeof inc, "%s", name);
		else
			snprintf(inc, sizeof inc, "%s/%s", dir, name);
		if (iob_path_kind(inc, 1) != IOB_PATH_REGULAR) {
			snprintf(err, errlen, "%s: [global] include: '%s' %s", path, IOB_Q(inc),
				 iob_path_kind(inc, 1) == IOB_PATH_MISSING ? "does not exist" : "is not a regular file");
			return -ENOENT;
		}
		int rc = load_file(ctx, inc, globals, err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

static int build_job(const char *path, const char *sec, const struct kvlist *globals, dictionary *d,
		     struct iob_job *job, char *err, size_t errlen)
{
	char why[600], val[4096];
	iob_job_defaults(job);
	if (strlen(sec) >= sizeof job->name) {
		snprintf(err, errlen, "%s: [%s]: section name longer than %zu characters", path, sec, sizeof job->name - 1);
		return -ENAMETOOLONG;
	}
	snprintf(job->name, sizeof job->name, "%s", sec);
	for (size_t i = 0; i < globals->n; i++) {
		const struct kv *g = &globals->v[i];
		if (iob_job_set(job, g->key, g->value, why, sizeof why) != 0) {
			snprintf(err, errlen, "%s: [global] %s: %s", g->file, g->key, why);
			return -EINVAL;
		}
	}
	int nkeys = iniparser_getsecnkeys(d, sec);
	const char **keys = nkeys > 0 ? calloc((size_t)nkeys, sizeof *keys) : NULL;
	if (nkeys > 0 && (!keys || !iniparser_getseckeys(d, sec, keys))) {
		free(keys);
		snprintf(err, errlen, "%s: [%s]: out of memory", path, sec);
		return -ENOMEM;
	}
	int rc = 0;
	for (int i = 0; i < nkeys && rc == 0; i++) {
		const char *key = strchr(keys[i], ':') ? strchr(keys[i], ':') + 1 : keys[i];
		const char *raw = iniparser_getstring(d, keys[i], "");
		if (strcmp(key, "include") == 0) {
			snprintf(err, errlen, "%s: [%s] include: only allowed in [global]", path, sec);
			rc = -EINVAL;
		} else if ((rc = expand(raw, val, sizeof val, why, sizeof why)) != 0 ||
			   (rc = iob_job_set(job, key, val, why, sizeof why)) != 0) {
			snprintf(err, errlen, "%s: [%s] %s: %s", path, sec, key, why);
		}
	}
	free(keys);
	if (rc)
		return rc;
	if (!job->filename[0])
		snprintf(job->filename, sizeof job->filename, "iobench.%s.dat", job->name);
	/* the job as a whole (keys that contradict each other) is validated once,
	 * by the runner's checks (iob_suite_check), for profiles and legacy
	 * command lines alike */
	return 0;
}

static int load_file(struct loadctx *ctx, const char *path, struct kvlist *globals, char *err, size_t errlen)
{
	char real[4096], val[4096], why[600];
	char **sections = NULL;
	size_t nsec = 0;
	int rc;

	if (iob_real_path(path, real, sizeof real) != 0)
		snprintf(real, sizeof real, "%s", path);
	for (size_t i = 0; i < ctx->depth; i++)
		if (strcmp(ctx->stack[i], real) == 0) {
			snprintf(err, errlen, "%s: include loop: %s is already being read", path, real);
			return -ELOOP;
		}
	if (ctx->depth > IOB_MAX_INCLUDE_DEPTH) {
		snprintf(err, errlen, "%s: includes nested more than %d deep", path, IOB_MAX_INCLUDE_DEPTH);
		return -ELOOP;
	}
	int bom;
	rc = prescan(path, &sections, &nsec, &bom, err, errlen);
	if (rc)
		return rc;
	dictionary *d = parse_ini(path, bom, err, errlen);
	if (!d) {
		rc = -EINVAL;
		goto out;
	}
	ctx->stack[ctx->depth++] = real;
	char **src = realloc(ctx->suite->sources, (ctx->suite->nsources + 1) * sizeof *src);
	if (src && (src[ctx->suite->nsources] = strdup(real)) != NULL)
		ctx->suite->nsources++;
	if (src)
		ctx->suite->sources = src;

	/* [global]: includes first, then this file's own keys on top */
	struct kvlist mine = {0};
	for (size_t s = 0; s < nsec && rc == 0; s++) {
		if (strcmp(sections[s], "global") != 0)
			continue;
		int nkeys = iniparser_getsecnkeys(d, "global");
		const char **keys = nkeys > 0 ? calloc((size_t)nkeys, sizeof *keys) : NULL;
		if (nkeys > 0 && (!keys || !iniparser_getseckeys(d, "global", keys)))
			rc = -ENOMEM;
		const char *inc = iniparser_getstring(d, "global:include", NULL);
		if (rc == 0 && inc) {
			if ((rc = expand(inc, val, sizeof val, why, sizeof why)) != 0)
				snprintf(err, errlen, "%s: [global] include: %s", path, why);
			else
				rc = do_includes(ctx, path, val, globals, err, errlen);
		}
		for (int i = 0; i < nkeys && rc == 0; i++) {
			const char *key = strchr(keys[i], ':') ? strchr(keys[i], ':') + 1 : keys[i];
			if (strcmp(key, "include") == 0)
				continue;
			struct iob_job probe;
			iob_job_defaults(&probe);
			if ((rc = expand(iniparser_getstring(d, keys[i], ""), val, sizeof val, why, sizeof why)) != 0 ||
			    (rc = iob_job_set(&probe, key, val, why, sizeof why)) != 0)
				snprintf(err, errlen, "%s: [global] %s: %s", path, key, why);
			else
				rc = kvlist_add(&mine, key, val, path);
		}
		free(keys);
	}
	for (size_t i = 0; i < mine.n && rc == 0; i++)
		rc = kvlist_add(globals, mine.v[i].key, mine.v[i].value, mine.v[i].file);
	kvlist_free(&mine);

	for (size_t s = 0; s < nsec && rc == 0; s++) {
		if (strcmp(sections[s], "global") == 0)
			continue;
		if (ctx->suite->njobs >= IOB_MAX_JOBS) {
			snprintf(err, errlen, "%s: more than %d jobs", path, IOB_MAX_JOBS);
			rc = -E2BIG;
			break;
		}
		for (size_t j = 0; j < ctx->suite->njobs; j++)
			if (strcmp(ctx->suite->jobs[j].name, sections[s]) == 0) {
				snprintf(err, errlen, "%s: [%s]: a job of that name was already included", path, sections[s]);
				rc = -EEXIST;
			}
		if (rc)
			break;
		rc = build_job(path, sections[s], globals, d, &ctx->suite->jobs[ctx->suite->njobs], err, errlen);
		if (rc == 0)
			ctx->suite->njobs++;
	}
	ctx->depth--;
	iniparser_freedict(d);
out:
	for (size_t i = 0; i < nsec; i++)
		free(sections[i]);
	free(sections);
	return rc;
}

int iob_profile_load(const char *path, struct iob_suite *suite, char *err, size_t errlen)
{
	struct loadctx ctx = {.suite = suite};
	struct kvlist globals = {0};
	memset(suite, 0, sizeof *suite);
	if (iob_path_kind(path, 1) != IOB_PATH_REGULAR) {
		snprintf(err, errlen, "%s: %s", path,
			 iob_path_kind(path, 1) == IOB_PATH_MISSING ? "no such profile" : "not a regular file");
		return -ENOENT;
	}
	suite->jobs = calloc(IOB_MAX_JOBS, sizeof *suite->jobs);
	if (!suite->jobs) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	int rc = load_file(&ctx, path, &globals, err, errlen);
	kvlist_free(&globals);
	if (rc == 0 && suite->njobs == 0) {
		snprintf(err, errlen, "%s: no job sections (add a section such as [seq-read] below [global])", path);
		rc = -EINVAL;
	}
	if (rc)
		iob_suite_free(suite);
	return rc;
}

int iob_profile_load_string(const char *name, const char *text, struct iob_suite *suite, char *err, size_t errlen)
{
	char path[4096];
	int rc = iob_write_temp(text, strlen(text), path, sizeof path);
	if (rc) {
		snprintf(err, errlen, "%s: cannot write a temporary copy: %s", name, strerror(-rc));
		return rc;
	}
	rc = iob_profile_load(path, suite, err, errlen);
	iob_remove_file(path);
	return rc;
}

void iob_suite_free(struct iob_suite *suite)
{
	for (size_t i = 0; i < suite->nsources; i++)
		free(suite->sources[i]);
	free(suite->sources);
	for (size_t i = 0; i < suite->nnotes; i++)
		free(suite->notes[i]);
	free(suite->notes);
	free(suite->prepare);
	free(suite->jobs);
	memset(suite, 0, sizeof *suite);
}

/* A free-text value that iniparser and expand() read back unchanged: '$'
 * doubled, and quoted when it has edge spaces, ';', '#' or a leading quote. */
static void write_text(FILE *f, const char *key, const char *v)
{
	size_t n = strlen(v);
	int quote = n == 0 || isspace((unsigned char)v[0]) || isspace((unsigned char)v[n - 1]) ||
		    strpbrk(v, ";#") || v[0] == '"' || v[0] == '\'';
	char q = strchr(v, '"') ? '\'' : '"';
	fprintf(f, "%s = ", key);
	if (quote)
		fputc(q, f);
	for (const char *p = v; *p; p++) {
		if (*p == '$')
			fputc('$', f);
		fputc(*p, f);
	}
	if (quote)
		fputc(q, f);
	fputc('\n', f);
}

/* Every value of the job as text, checked before anything is written. */
static int job_writable(const struct iob_job *j)
{
	char buf[IOB_PATH_MAX + 64];
	size_t n;
	const struct iob_key *k = iob_keys(&n);
	if (!memchr(j->name, '\0', sizeof j->name) || strpbrk(j->name, "\r\n[]"))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		int rc = iob_key_format(&k[i], j, buf, sizeof buf);
		if (rc == -ENOENT)
			continue;
		if (rc || strpbrk(buf, "\r\n")) /* a profile value is one line */
			return -EINVAL;
	}
	return 0;
}

int iob_profile_write(FILE *f, const struct iob_job *jobs, size_t njobs, const char *comment)
{
	char buf[IOB_PATH_MAX + 64];
	size_t n;
	const struct iob_key *k = iob_keys(&n);
	for (size_t i = 0; i < njobs; i++)
		if (job_writable(&jobs[i]) != 0)
			return -EINVAL;
	if (comment)
		fprintf(f, "; %s\n", comment);
	for (size_t i = 0; i < njobs; i++) {
		fprintf(f, "%s[%s]\n", i || comment ? "\n" : "", jobs[i].name);
		for (size_t x = 0; x < n; x++) {
			if (iob_key_format(&k[x], &jobs[i], buf, sizeof buf) != 0)
				continue; /* a key that sets nothing */
			if (k[x].type == IOB_KEY_STRING || k[x].type == IOB_KEY_PATH)
				write_text(f, k[x].name, buf);
			else
				fprintf(f, "%s = %s\n", k[x].name, buf);
		}
	}
	return ferror(f) ? -EIO : 0;
}

int iob_job_resolve_dir(struct iob_job *job, char *err, size_t errlen)
{
	char real[IOB_PATH_MAX];
	int rc = iob_real_path(job->dir, real, sizeof real);
	if (rc != 0) {
		snprintf(err, errlen, "cannot resolve directory '%s': %s", job->dir, strerror(-rc));
		return rc;
	}
	snprintf(job->dir, sizeof job->dir, "%s", real);
	return 0;
}
