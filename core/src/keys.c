/*
 * keys.c - the key table (iobench/profile.h): the one list of job keys.
 *
 * Each row names a key, its type, unit, default (as text), meaning and the
 * job field it sets.  iob_job_set parses by it, iob_job_defaults applies its
 * defaults (job.c), iob_profile_write and `iobench keys` write by it, and the
 * fio reader sets fio's keys through iob_job_set by name.  profile.c reads
 * INI files into these keys.
 *
 * Sections: the table (a row's setter, when it has one, is keys_set.c's,
 * as are the setters of each type); finding a key and setting it by name;
 * formatting a value back to text; `iobench keys`.
 */
#include "iobench/meta.h"
#include "iobench/profile.h"
#include "iobench/verify.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "iobench/hist.h"
#include "iobench/plugin.h"
#include "iobench/units.h"
#include "iobench/repeat.h"
#include "iobench/steady.h"
#include "iobench/shape.h"

#include "keys_int.h"

/* ---- the key table --------------------------------------------------------- */

#define FIELD(f) offsetof(struct iob_job, f), sizeof(((struct iob_job *)0)->f)

_Static_assert(sizeof(enum iob_access) == sizeof(int) && sizeof(enum iob_layout) == sizeof(int) &&
		   sizeof(enum iob_clock) == sizeof(int) && sizeof(enum iob_lat_timing) == sizeof(int),
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
static const struct iob_key_word path_walk_words[] = {{"held", 0}, {"full", 1}, {NULL, 0}};
static const struct iob_key_word meta_phase_words[] = {
    {"mkdir", 1u << IOB_META_MKDIR}, {"dirstat", 1u << IOB_META_DIRSTAT}, {"create", 1u << IOB_META_CREATE},
    {"write", 1u << IOB_META_WRITE}, {"stat", 1u << IOB_META_STAT},	  {"open", 1u << IOB_META_OPEN},
    {"read", 1u << IOB_META_READ},   {"remove", 1u << IOB_META_REMOVE}, {"rmdir", 1u << IOB_META_RMDIR},
    {NULL, 0}};
static const struct iob_key_word clock_words[] = {{"wall", IOB_CLOCK_WALL},
						  {"user", IOB_CLOCK_USER},
						  {"system", IOB_CLOCK_SYSTEM},
						  {"process", IOB_CLOCK_PROCESS},
						  {NULL, 0}};
static const struct iob_key_word latency_words[] = {{"sampled", IOB_LATENCY_SAMPLED},
						    {"every", IOB_LATENCY_EVERY},
						    {"off", IOB_LATENCY_OFF},
						    {NULL, 0}};

static const struct iob_key_word verify_words[] = {
    {"pattern", IOB_VERIFY_PATTERN}, {"meta", IOB_VERIFY_META},	  {"crc32c", IOB_VERIFY_CRC32C},
    {"crc64", IOB_VERIFY_CRC64},     {"md5", IOB_VERIFY_MD5},	  {"sha256", IOB_VERIFY_SHA256},
    {"xxhash", IOB_VERIFY_XXHASH},   {NULL, 0}};
_Static_assert(sizeof(enum iob_verify_kind) == sizeof(int), "enum keys are stored as int");

static const struct iob_key_word rate_process_words[] = {{"linear", 0}, {"poisson", 1}, {NULL, 0}};

static const struct iob_key_word dedupe_mode_words[] = {
    {"repeat", IOB_DEDUPE_REPEAT}, {"working_set", IOB_DEDUPE_WORKING_SET}, {NULL, 0}};
static const struct iob_key_word exit_words[] = {
    {"none", IOB_EXIT_NONE}, {"group", IOB_EXIT_GROUP}, {"all", IOB_EXIT_ALL}, {NULL, 0}};
static int set_percentiles(const struct iob_key *k, struct iob_job *job, const char *value, char *err, size_t errlen)
{
	(void)k;
	double pct[IOB_PCT_MAX];
	size_t n;
	if (strlen(value) >= sizeof job->percentiles) {
		snprintf(err, errlen, "percentiles is too long (at most %zu characters)", sizeof job->percentiles - 1);
		return -EINVAL;
	}
	int rc = iob_pct_parse(value, pct, &n, err, errlen);
	if (rc == 0)
		snprintf(job->percentiles, sizeof job->percentiles, "%s", value);
	return rc;
}

static const struct iob_key_word continue_words[] = {
    {"none", 0}, {"read", 1}, {"write", 2}, {"io", 3}, {"all", 3}, {"0", 0}, {"1", 3}, {NULL, 0}};
static const struct iob_key_word steady_words[] = {
    {"none", IOB_STEADY_NONE}, {"iops", IOB_STEADY_IOPS}, {"bw", IOB_STEADY_BW}, {"lat", IOB_STEADY_LAT}, {NULL, 0}};
static const struct iob_key_word steady_rule_words[] = {
    {"snia", IOB_STEADY_SNIA}, {"deviation", IOB_STEADY_DEVIATION}, {"slope", IOB_STEADY_SLOPE}, {NULL, 0}};

/* numa_cpu_nodes and numa_mem_policy: what they cannot be used with */
#define NUMA_ROW .excludes = "workload=files", .why = "the files workload's streams are not placed"

/* A row without a range leaves min and max at 0: the trailing fields are
 * left out on purpose. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const struct iob_key key_table[] = {
    {"description", IOB_KEY_STRING, "", "", "free text, ignored", NULL, 0, 0, NULL},
    {"backend", IOB_KEY_STRING, "plugin name", IOB_DEFAULT_BACKEND,
     "backend plugin that moves the bytes ('iobench plugins' lists them)", NULL, FIELD(backend), NULL},
    {"backend_options", IOB_KEY_STRING, "k=v,...", "",
     "options handed to the backend's open; the backend refuses an unknown one before anything is created",
     NULL, FIELD(backend_options), NULL, .record = "backend_options"},
    {"dir", IOB_KEY_PATH, "", ".", "directory holding the job's files; must exist; --dir overrides it", NULL,
     FIELD(dir), NULL},
    {"filename", IOB_KEY_PATH, "", "iobench.<job>.dat",
     "the file in dir (layout file); - is standard input (read-only, stream backends)", NULL, FIELD(filename),
     NULL},
    {"layout", IOB_KEY_ENUM, "", "file", "one file, or a tree of files (tree_levels, tree_files)",
     layout_words, FIELD(layout), NULL, .record = "layout"},
    {"tree_levels", IOB_KEY_COUNT, "levels", "3",
     "layout tree: depth, dir/dir0, dir/dir0/dir1, ... (at most 64)", NULL, FIELD(tree_levels), NULL, .record = "tree_levels"},
    {"tree_files", IOB_KEY_COUNT, "files", "4",
     "layout tree: files per level, file0 ... fileN-1 in each dirK", NULL, FIELD(tree_files), NULL, .record = "tree_files"},
    {"access", IOB_KEY_ENUM, "", "seq",
     "sequential offsets, or random ones (sequential and random are accepted too)", access_words,
     FIELD(access), NULL},
    {"phases", IOB_KEY_LIST, "", "write,read", "phases to run, always in the order write, read, verify, mixed (reads and writes: rwmix_read); with mixed, "
     "verify after it (it reads back the blocks mixed wrote)",
     phase_words, FIELD(phases), NULL},
    {"block_size", IOB_KEY_SIZE, "bytes", "4K", "bytes per I/O (at most 2 GiB)", NULL, FIELD(block_size),
     NULL, 1, 0},
    {"block_size_max", IOB_KEY_SIZE, "bytes", "0",
     "sweep: every phase again at block_size, 2x, 4x ... up to this; 0 = no sweep", NULL,
     FIELD(block_size_max), NULL},
    {"size", IOB_KEY_SIZE, "bytes", "64M", "bytes per file", NULL, FIELD(size), NULL, 1, 0},
    {"ops", IOB_KEY_COUNT, "I/O calls", "0",
     "random access: I/O calls per phase (and block size); 0 = size / block_size x files", NULL, FIELD(ops),
     NULL, .record = "ops_asked"},
    {"loops", IOB_KEY_COUNT, "passes", "1", "sequential access: passes over each file per phase", NULL,
     FIELD(loops), NULL, 1, 0, .record = "loops"},
    {"seq_ops", IOB_KEY_COUNT, "I/O calls", "0",
     "sequential access: each stream's phase ends after this many I/O calls, part way through a pass if they "
     "come first (passes follow one another as loops allows: fio's number_ios); the record's pass_cut says a pass "
     "was cut short so; 0 = after the loops", NULL, FIELD(load.seq_ops), NULL, .record = "seq_ops"},
    {"offset_align", IOB_KEY_SIZE, "bytes", "0",
     "random access: offsets are multiples of this; 0 = block_size", NULL, FIELD(offset_align), NULL, .record = "offset_align_bytes"},
    {"random_map", IOB_KEY_BOOL, "", "true",
     "random access: every slot once per pass, in a random order; false draws with replacement (holes), as "
     "io_profile did",
     NULL, FIELD(random_map), NULL, .record = "random_map"},
    {"skip_past_end", IOB_KEY_BOOL, "", "false",
     "random access: draw offsets in [0, size) and skip (count, not do) an I/O crossing the end, as "
     "io_profile "
     "did",
     NULL, FIELD(skip_past_end), NULL, .record = "skip_past_end"},
    {"pattern", IOB_KEY_PATTERN, "", "random",
     "data written and expected by verify: zero, ones, text, random, byte:0xNN, char:C, hex:HH... (1 to 32 "
     "bytes, repeated); ~ prefix = complement",
     NULL, FIELD(pattern), NULL},
    {"seed", IOB_KEY_COUNT, "", "280225732", "seeds random offsets and the random pattern", NULL, FIELD(seed),
     iob_set_seed},
    {"fsync", IOB_KEY_BOOL, "", "true", "write phases sync each file before closing it; the time counts",
     NULL, FIELD(fsync), NULL},
    {"fsync_every", IOB_KEY_COUNT, "writes", "0",
     "write phases sync every file the stream has open after every this many writes, before the next one (as "
     "fio's fsync=N: none after the last write; fsync syncs at the close); the time counts; 0 = never",
     NULL, FIELD(load.fsync_every), NULL, .record = "fsync_every", .needs = "iodepth=1",
     .excludes = "phases=mixed", .why = "fsync_every counts the writes of write phases, one I/O at a time"},
    {"truncate", IOB_KEY_BOOL, "", "false", "write phases truncate the file when opening it", NULL,
     FIELD(truncate), NULL},
    {"reopen", IOB_KEY_BOOL, "", "false",
     "random access: open and close the file around every I/O (timed), as io_profile did", NULL,
     FIELD(reopen), NULL, .record = "reopen", .needs = "access=rand"},
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
     NULL, FIELD(evict_before_read), NULL, .record = "evict_before_read"},
    {"fill_once", IOB_KEY_BOOL, "", "false",
     "write phases write one buffer filled as at offset 0 everywhere, as io_profile did; verify is refused "
     "with it",
     NULL, FIELD(fill_once), NULL, .record = "fill_once", .excludes = "phases=verify", .why = "it writes data verify cannot check"},
    {"fill_device", IOB_KEY_BOOL, "", "false",
     "sequential, one file, one stream: a write phase writes until the file system is full (ENOSPC ends it, "
     "not as an error; the record says device_full) and size is not used; read and verify phases read the "
     "file to its end",
     NULL, FIELD(fill_device), NULL, .record = "fill_device", .needs = "access=seq,iodepth=1",
     .excludes = "phases=mixed,threads,time_based,layout=tree,series",
     .why = "fill_device writes one file in order until the file system is full"},
    {"series", IOB_KEY_BOOL, "", "false",
     "sequential reads: one block record per I/O, with block speeds, summary and cliff, as bigread reports",
     NULL, FIELD(series), NULL, .needs = "access=seq", .excludes = "phases=write,latency=off,group,threads",
     .why = "series times one stream's sequential reads, a record per block"},
    {"series_clock", IOB_KEY_ENUM, "", "wall",
     "with series: the clock each block is timed with (user, system, process: this process's CPU time)",
     clock_words, FIELD(series_clock), NULL, .needs = "series=true"},
    {"latency", IOB_KEY_ENUM, "", "sampled",
     "which I/Os are timed for the latency figures: sampled (every I/O, or a uniform 1 in k when timing would "
     "cost more than 2% of the I/O), every (each I/O, whatever it costs), off (none: no latency figures, no "
     "clock read per I/O); the record's latency says which",
     latency_words, FIELD(latency), NULL, .record = "latency"},
    {"threads", IOB_KEY_COUNT, "streams", "1",
     "streams run at once (1 to 4096), each on its own thread and its own files <file>.<i> unless shared_file; "
     "every phase gives one record per stream and one aggregate",
     NULL, FIELD(threads), NULL, 1, IOB_THREADS_MAX, .record = "threads"},
    {"numa_cpu_nodes", IOB_KEY_STRING, "nodes", "", "each stream runs on the CPUs of these NUMA nodes (N, A-B, "
     "lists with ',', or all; sched_setaffinity on its thread before its files and buffers); empty: where it was "
     "started", NULL, FIELD(numa_cpu_nodes), iob_set_checked_text, 0, 0, .record = "numa_cpu_nodes", NUMA_ROW},
    {"numa_mem_policy", IOB_KEY_STRING, "", "", "each stream's memory policy (set_mempolicy on its thread, before "
     "its buffers): default, prefer:NODE, bind:NODES, interleave[:NODES] (no nodes: all with memory) or local; "
     "empty: as it was", NULL, FIELD(numa_mem_policy), iob_set_checked_text, 0, 0, .record = "numa_mem_policy",
     NUMA_ROW},
    {"shared_file", IOB_KEY_BOOL, "", "false",
     "all streams use the job's files: sequential streams each take an equal part of every file, random "
     "ones draw over the whole file",
     NULL, FIELD(shared_file), NULL, .record = "shared_file"},
    {"shared_whole", IOB_KEY_BOOL, "", "false",
     "shared_file with sequential access: each stream goes over the whole file, as fio's numjobs clones do (its "
     "bytes are threads x size), instead of a part each",
     NULL, FIELD(shared_whole), NULL, 0, 0, .record = "shared_whole", .needs = "shared_file", .why = "streams with files of their own each go over their whole file anyway"},
    {"iodepth", IOB_KEY_COUNT, "I/Os", "1",
     "I/Os in flight per stream (1 to 65536); above 1 needs a backend that can queue (io_uring)", NULL,
     FIELD(iodepth), NULL, 1, IOB_IODEPTH_MAX, .record = "iodepth"},
    {"latency_target", IOB_KEY_DURATION, "", "0s",
     "search for the highest depth, up to iodepth, at which latency_percentile of each latency_window's "
     "completions take at most this (fio's latency_target): from depth 1, doubled while windows pass, halved "
     "towards the last passing depth when one fails; settled, one last window at the depth found is the "
     "phase's figures and the phase ends (unless latency_run); each window is a latency_window record; 0s = off",
     NULL, FIELD(load.latency_target), NULL, .record = "latency_target_ns", .needs = "iodepth",
     .excludes = "series,latency=off", .why = "the search times every I/O of one queue"},
    {"latency_window", IOB_KEY_DURATION, "", "0s",
     "latency_target: each window of the search lasts this long (it ends at its first completion after it)",
     NULL, FIELD(load.latency_window), NULL, .record = "latency_window_ns", .needs = "latency_target"},
    {"latency_percentile", IOB_KEY_STRING, "percent", "100",
     "latency_target: the share of a window's I/Os that must take at most latency_target (above 0, at most "
     "100; at 100 one I/O over the target fails its window at once, and fails the phase at depth 1)",
     NULL, FIELD(load.latency_percentile), iob_set_checked_text, .record = "latency_percentile",
     .needs = "latency_target"},
    {"latency_run", IOB_KEY_BOOL, "", "false",
     "latency_target: keep adjusting the depth for the whole phase instead of settling", NULL,
     FIELD(load.latency_run), NULL, .record = "latency_run", .needs = "latency_target"},
    {"memory_limit", IOB_KEY_SIZE, "bytes", "0",
     "the memory the run may allocate at once (buffers: streams x iodepth x block size, histograms), checked "
     "before anything is created, for each job and each group; 0 = the memory available (MemAvailable)",
     NULL, FIELD(memory_limit), NULL, .record = "memory_limit_bytes"},
    {"runtime", IOB_KEY_DURATION, "", "0s",
     "each phase ends at this time limit, or after its ops, loops or one pass, whichever comes first: a bound, "
     "never more work; 0s = no limit",
     NULL, FIELD(runtime_ns), NULL, .record = "runtime_ns"},
    {"time_based", IOB_KEY_BOOL, "", "false",
     "with runtime (required): each phase runs until the limit, passing over its files again and again (fio's "
     "time_based); ops and loops no longer end it",
     NULL, FIELD(time_based), NULL, .record = "time_based", .needs = "runtime", .why = "the time limit it runs to"},
    {"stonewall", IOB_KEY_DURATION, "", "0s",
     "across MPI ranks: every rank stops each phase this long after the ranks' common start, its planned "
     "I/O unfinished (IOR's stonewalling; each rank's record says what it did); alone, a time limit; 0s = off",
     NULL, FIELD(stonewall_ns), NULL, .record = "stonewall_ns"},
    {"ramp_time", IOB_KEY_DURATION, "", "0s", "I/O done in each phase before its measured window, not counted",
     NULL, FIELD(ramp_ns), NULL, .record = "ramp_time_ns"},
    {"rwmix_read", IOB_KEY_COUNT, "percent", "50",
     "phase mixed: each I/O is a read with this probability (0 to 100), a write otherwise", NULL,
     FIELD(rwmix_read), NULL, 0, 100, .record = "rwmix_read_pct"},
    {"log_interval", IOB_KEY_DURATION, "", "0s",
     "an interval record (time, bytes, ops, MiB/s, IOPS, p50 and p99 latency) this often in every phase (at "
     "least 10ms); 0s = none",
     NULL, FIELD(log_interval_ns), iob_set_log_interval},
    {"livecsv", IOB_KEY_PATH, "", "",
     "write the interval records also to this CSV file as the run goes (one header, a row per interval, "
     "flushed); needs log_interval",
     NULL, FIELD(livecsv), NULL, .needs = "log_interval", .why = "the CSV holds the interval records"},
    {"group", IOB_KEY_COUNT, "", "0",
     "jobs in a row with the same nonzero number run at the same time, as one group with one aggregate "
     "record per phase (1 to 1000000); 0 = this job runs alone, in file order",
     NULL, FIELD(group), NULL, 0, IOB_GROUP_MAX},
    {"bw_log", IOB_KEY_PATH, "", "",
     "fio's write_bw_log: PREFIX_bw.<x>.log, a row per interval of log_interval (time ms, KiB/s, direction, 0, "
     "0), or without log_interval a row per I/O (time ms, the I/O's bytes x 10^6 / its latency in ns, "
     "direction, bytes, priority), as fio writes them",
     NULL, FIELD(bw_log), NULL},
    {"iops_log", IOB_KEY_PATH, "", "",
     "fio's write_iops_log: PREFIX_iops.<x>.log, a row per interval (time ms, IOPS, direction, 0, 0), or "
     "without log_interval a row per I/O (time ms, 1, direction, bytes, priority)",
     NULL, FIELD(iops_log), NULL},
    {"lat_log", IOB_KEY_PATH, "", "",
     "fio's write_lat_log: PREFIX_lat.<x>.log and PREFIX_clat.<x>.log, a row per interval with I/O (time ms, "
     "mean latency ns, direction, 0, 0), or without log_interval a row per I/O (time ms, its latency ns, "
     "direction, bytes, priority)",
     NULL, FIELD(lat_log), NULL},
    {"log_prio", IOB_KEY_BOOL, "", "false",
     "the fio-style logs' last column is the priority as 0xPPPP (fio's log_prio): each I/O's in a row per "
     "I/O, 0x0000 on a row averaging an interval, as fio writes them; false: 1 for an I/O of the real-time "
     "class, else 0",
     NULL, FIELD(log_prio), NULL},
    {"log_offset", IOB_KEY_BOOL, "", "false",
     "bw_log, iops_log, lat_log: each row carries the I/O's offset in bytes before its last column (0 in a "
     "row of an interval), as fio's log_offset",
     NULL, FIELD(log_offset), NULL},
    {"repeat", IOB_KEY_COUNT, "runs", "1",
     "run each phase this many times (1 to 1000), each as the first; a record per run (its repeat index) and "
     "a summary record with mean, spread and 95% interval (docs/statistics.md)",
     NULL, FIELD(repeat), iob_set_bounded},
    {"until_ci", IOB_KEY_STRING, "percent", "",
     "repeat each phase until the 95% interval of its mean MiB/s is at most this share of the mean (e.g. 2%), "
     "at least 3 runs and at most repeat_max; a note when not reached",
     NULL, FIELD(until_ci), iob_set_checked_text},
    {"repeat_max", IOB_KEY_COUNT, "runs", "30", "until_ci: the most runs of a phase (3 to 1000)", NULL,
     FIELD(repeat_max), iob_set_bounded},
    {"steady_state", IOB_KEY_ENUM, "", "none",
     "run each phase in rounds until the last steady_window rounds' IOPS, MiB/s or (lat) mean latency are steady "
     "(steady_rule), "
     "at most steady_max_rounds; a record per round and a steady record (docs/statistics.md)",
     steady_words, FIELD(steady_state), NULL, .excludes = "repeat,until_ci,series",
     .why = "it runs a phase in rounds of its own"},
    {"steady_window", IOB_KEY_COUNT, "rounds", "5", "steady_state: the rounds judged together (2 to 1000)",
     NULL, FIELD(steady_window), iob_set_bounded},
    {"steady_round", IOB_KEY_STRING, "time or I/Os", "",
     "steady_state: one round is this long (10s, 500ms) or this many I/Os (2000: sequential rounds go on "
     "where the last ended); empty = one run of the phase as the job says",
     NULL, FIELD(steady_round), iob_set_checked_text},
    {"steady_max_rounds", IOB_KEY_COUNT, "rounds", "25", "steady_state: the most rounds (2 to 100000)", NULL,
     FIELD(steady_max_rounds), iob_set_bounded},
    {"steady_ramp", IOB_KEY_DURATION, "", "0s",
     "steady_state: rounds that end within this time of the first round's start are run but never judged",
     NULL, FIELD(steady_ramp_ns), NULL},
    {"steady_rule", IOB_KEY_ENUM, "", "snia",
     "snia: range within steady_range and fitted line's excursion within steady_slope of the window mean; "
     "deviation: every round within steady_limit of the mean (fio's iops:X%); slope: the fitted slope per round below "
     "steady_limit of the mean (fio's iops_slope:X%)",
     steady_rule_words, FIELD(steady_rule), NULL},
    {"steady_range", IOB_KEY_STRING, "percent", "20%", "steady_rule snia: the largest range (max - min) as a share of the mean",
     NULL, FIELD(steady_range), iob_set_checked_text},
    {"steady_slope", IOB_KEY_STRING, "percent", "10%",
     "steady_rule snia: the most the fitted line may move across the window, as a share of the mean", NULL,
     FIELD(steady_slope), iob_set_checked_text},
    {"steady_limit", IOB_KEY_STRING, "percent", "",
     "steady_rule deviation or slope: the limit, as a share of the mean", NULL, FIELD(steady_limit),
     iob_set_checked_text},
    {"compress_percentage", IOB_KEY_COUNT, "percent", "0",
     "data content: this share of every compress_chunk of each block is compressible (the pattern's bytes, zeros "
     "for random), the rest random (0 to 100)",
     NULL, FIELD(pattern.compress_pct), NULL, 0, 100, .record = "compress_pct"},
    {"compress_chunk", IOB_KEY_SIZE, "bytes", "512",
     "with compress_percentage: the chunk each block is made of (1 to block_size)", NULL,
     FIELD(pattern.compress_chunk), NULL, .record = "compress_chunk_bytes"},
    {"dedupe_percentage", IOB_KEY_COUNT, "percent", "0",
     "data content: this share of the blocks are a copy of another block (dedupe_mode says which) (0 to 100)",
     NULL, FIELD(pattern.dedupe_pct), NULL, 0, 100, .record = "dedupe_pct"},
    {"dedupe_mode", IOB_KEY_ENUM, "", "repeat",
     "with dedupe_percentage: repeat (a copy is of block 0) or working_set (a copy is of one of the file's first "
     "unique blocks, dedupe_working_set percent of its blocks, drawn for each copy)",
     dedupe_mode_words, FIELD(pattern.dedupe_mode), NULL, 0, 0, .record = "dedupe_mode"},
    {"dedupe_working_set", IOB_KEY_COUNT, "percent", "5",
     "dedupe_mode = working_set: the working set, a share of the file's blocks (1 to 100; 0 is the default, 5)",
     NULL, FIELD(pattern.dedupe_ws_pct), NULL, 0, 100, .record = "dedupe_working_set_pct"},
    {"dedupe_global", IOB_KEY_BOOL, "", "false",
     "dedupe_mode = working_set: the jobs with dedupe_global share one working set, spread evenly over their "
     "files (they need equal size, block_size and dedupe keys)",
     NULL, FIELD(pattern.dedupe_global), NULL, 0, 0, .record = "dedupe_global"},
    {"verify", IOB_KEY_ENUM, "", "pattern",
     "what verify checks: pattern (every byte against the pattern); meta (a 64-byte header in every block: "
     "offset, length, generation; and the bytes); crc32c, crc64, md5, sha256, xxhash (the header and a checksum "
     "of the block)",
     verify_words, FIELD(pattern.verify), NULL, .record = "verify"},
    {"verify_interval", IOB_KEY_SIZE, "bytes", "0",
     "with verify headers: a header every this many bytes (at least 64, dividing block_size); 0 = block_size",
     NULL, FIELD(pattern.verify_interval), NULL, .record = "verify_interval_bytes"},
    {"verify_generation", IOB_KEY_COUNT, "", "1",
     "with verify headers: the generation written in every header and expected back; give a new one each time "
     "the file is written again, and a block left from an older write is caught",
     NULL, FIELD(pattern.verify_generation), NULL},
    {"verify_fatal", IOB_KEY_BOOL, "", "false", "verify phases stop at the first bad block", NULL,
     FIELD(load.verify_fatal), NULL},
    {"verify_backlog", IOB_KEY_COUNT, "blocks", "0",
     "write and mixed phases: after every this many blocks written (and not yet verified), read back and check "
     "the oldest unverified ones, verify_backlog_batch of them, inside the phase and its time (fio's "
     "verify_backlog); a verify phase after it checks the rest; 0 = off",
     NULL, FIELD(load.verify_backlog), NULL, .record = "verify_backlog"},
    {"verify_backlog_batch", IOB_KEY_COUNT, "blocks", "0",
     "with verify_backlog: how many blocks each read-back checks (fio's verify_backlog_batch); one that finds "
     "fewer waiting checks each block written after until it has done them all; 0 = verify_backlog",
     NULL, FIELD(load.verify_backlog_batch), NULL, .record = "verify_backlog_batch", .needs = "verify_backlog"},
    {"verify_dump", IOB_KEY_BOOL, "", "false",
     "the first bad block of a verify phase is written to <file>.<offset>.expected and <file>.<offset>.received "
     "beside the file",
     NULL, FIELD(verify_dump), NULL},
    /* workload = files: many small files (meta.c, docs/metadata.md) */
    {"workload", IOB_KEY_ENUM, "", "data",
     "data: the phases below move bytes through a backend; files: many small files in trees, phases from "
     "meta_phases (docs/metadata.md)",
     workload_words, FIELD(workload), NULL},
    {"meta_phases", IOB_KEY_LIST, "", "mkdir,create,stat,remove,rmdir",
     "workload files: phases to run, always in the order mkdir, dirstat, create, write, stat, open, read, remove, "
     "rmdir (dirstat: a stat of each directory of the trees); a tree not made by mkdir is made (and one not "
     "removed by rmdir removed) untimed",
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
    {"path_walk", IOB_KEY_ENUM, "", "held",
     "workload files: held: each file reached by its name from its directory's held descriptor; full: every "
     "operation resolves the item's whole path from the job's directory, as mdtest does (opens: openat2, no "
     "link followed, nothing outside the job's directory; stat: one fstatat, the tree checked after; remove: "
     "in its directory opened by its path)",
     path_walk_words, FIELD(path_walk), NULL},
    {"bssplit", IOB_KEY_STRING, "SIZE/PCT:...", "",
     "a mix of block sizes, e.g. 4k/60:64k/40 (an empty PCT shares the rest), or READS,WRITES; each I/O draws its "
     "size; block_size is then the size of a direction without a split; the record's bs_hist counts I/Os and "
     "bytes per size; random access ends after ops x block_size bytes (size when ops is 0)",
     NULL, FIELD(bssplit), iob_set_shape_text, 0, 0, .record = "bssplit"},
    {"prio_class", IOB_KEY_COUNT, "", "0",
     "each stream's thread's I/O priority class (ioprio_set, as ionice): 1 real time (root only), 2 best effort, "
     "3 idle; 0 = left as it is",
     NULL, FIELD(load.prio_class), NULL, 0, 3, .record = "prio_class"},
    {"prio_level", IOB_KEY_COUNT, "", "0",
     "the level within prio_class, 0 (highest) to 7", NULL, FIELD(load.prio_level), NULL, 0, 7,
     .record = "prio_level", .needs = "prio_class", .why = "a level is of a class"},
    {"cmdprio_percentage", IOB_KEY_STRING, "percent", "",
     "R or R,W: this share of each direction's I/Os (drawn per I/O) carries the priority of cmdprio_class and "
     "cmdprio_level; the others go at the thread's; libaio and io_uring, at any iodepth (each I/O queued, "
     "at depth 1 one at a time); the record's prio_ios counts I/Os per priority",
     NULL, FIELD(cmdprio_percentage), iob_set_cmdprio_text, .record = "cmdprio_percentage"},
    {"cmdprio_class", IOB_KEY_STRING, "", "",
     "R or R,W: the class of the I/Os cmdprio_percentage or cmdprio_bssplit picks, 1 to 3 (default 1, real "
     "time: root only)",
     NULL, FIELD(cmdprio_class), iob_set_cmdprio_text, .record = "cmdprio_class"},
    {"cmdprio_level", IOB_KEY_STRING, "", "",
     "R or R,W: their level, 0 (default, highest) to 7", NULL, FIELD(cmdprio_level), iob_set_cmdprio_text,
     .record = "cmdprio_level"},
    {"cmdprio_bssplit", IOB_KEY_STRING, "", "",
     "SIZE/PCT:... or SIZE/PCT/CLASS/LEVEL[/HINT]:..., READS,WRITES: this share of the I/Os of each block size "
     "carries a priority (cmdprio_class and cmdprio_level, or the entry's own; HINT, 0 to 1023, goes in the "
     "priority's hint bits for the device, e.g. a command duration limit); not with cmdprio_percentage",
     NULL, FIELD(cmdprio_bssplit), iob_set_cmdprio_text, .record = "cmdprio_bssplit"},
    {"random_distribution", IOB_KEY_STRING, "", "random",
     "random access: the offsets' distribution: random (uniform), zipf:THETA, pareto:H, normal:SIGMA% (around the "
     "middle), zoned:ACCESS%/SIZE%:... (uniform inside each zone; an empty last SIZE is the rest), "
     "zoned_abs:ACCESS%/SIZE:...; drawn with replacement; hot blocks spread over the file; or sequence:B,B,... "
     "(at most 64 block indices, no draw: a direction's I/O k is at block B[k mod n] x the smallest block size, "
     "the list over and over, fio's sequence)",
     NULL, FIELD(random_distribution), iob_set_shape_text, 0, 0, .record = "random_distribution"},
    {"random_sequence_stride", IOB_KEY_BOOL, "", "false",
     "random_distribution=sequence: each pass over the list adds its length to its blocks (2,0,1 then 5,3,4, "
     "8,6,7, ...: fio's random_sequence_stride); the order ends at the first block past the file's end",
     NULL, FIELD(random_sequence_stride), NULL, 0, 0, .record = "random_sequence_stride"},
    {"rate", IOB_KEY_STRING, "bytes/s", "",
     "hold each stream to this many bytes per second: R (reads and writes), or R,W (an empty side: no limit); "
     "each I/O waits for its turn (rate_process)",
     NULL, FIELD(rate), iob_set_shape_text, 0, 0, .record = "rate"},
    {"rate_iops", IOB_KEY_STRING, "I/Os per s", "", "as rate, in I/Os per second (with rate: the later turn)",
     NULL, FIELD(rate_iops), iob_set_shape_text, 0, 0, .record = "rate_iops"},
    {"rate_min", IOB_KEY_STRING, "bytes/s", "",
     "the least each stream's phase must reach, R or R,W, over its window: a phase below it fails (exit 1), saying "
     "its rate",
     NULL, FIELD(rate_min), iob_set_shape_text, 0, 0, .record = "rate_min"},
    {"rate_iops_min", IOB_KEY_STRING, "I/Os per s", "", "as rate_min, in I/Os per second", NULL,
     FIELD(rate_iops_min), iob_set_shape_text, 0, 0, .record = "rate_iops_min"},
    {"start_delay", IOB_KEY_DURATION, "", "0s",
     "the job's first phase waits this long after its group starts, outside its measured window (fio's "
     "startdelay)",
     NULL, FIELD(start_delay_ns), NULL, 0, 0, .record = "start_delay_ns"},
    {"rate_process", IOB_KEY_ENUM, "", "linear",
     "linear: I/Os evenly spaced; poisson: exponential gaps of the same mean (a Poisson process)",
     rate_process_words, FIELD(rate_process), NULL, 0, 0, .record = "rate_process"},
    {"thinktime", IOB_KEY_DURATION, "", "0s",
     "a pause before every thinktime_blocks-th I/O after the first (inside the measured time); 0s = none", NULL,
     FIELD(thinktime_ns), NULL, 0, 0, .record = "thinktime_ns"},
    {"thinktime_spin", IOB_KEY_DURATION, "", "0s", "of thinktime, this long is spent busy (the CPU spins), the "
     "rest asleep", NULL, FIELD(thinktime_spin_ns), NULL, 0, 0, .record = "thinktime_spin_ns", .needs = "thinktime"},
    {"thinktime_blocks", IOB_KEY_COUNT, "I/Os", "1", "thinktime comes once every this many I/Os", NULL,
     FIELD(thinktime_blocks), NULL, 1, 0, .record = "thinktime_blocks", .needs = "thinktime"},
    {"seq_add", IOB_KEY_STRING, "bytes", "",
     "sequential: each I/O starts this many bytes after the last one's end (fio's rw=read:8k), or before it with a "
     "'-' (-8k: backwards; below the start it goes on at the end less that much); a pass is a file's worth of "
     "block_size I/Os, or ends at the file's end",
     NULL, FIELD(seq_add), iob_set_shape_text, 0, 0, .record = "seq_add"},
    {"rand_run", IOB_KEY_COUNT, "I/Os", "0",
     "random: this many I/Os in a row from each offset drawn (fio's rw=randread:N); 0 or 1: a new offset every I/O",
     NULL, FIELD(rand_run), NULL, 0, 0, .record = "rand_run"},
    {"sprandom", IOB_KEY_BOOL, "", "false",
     "random writes in fio's sprandom order (docs/fio.md, \"sprandom\"): the file's blocks once each in a random "
     "order, with the share of them a steady-state flash device holds invalid written again, region by region, "
     "size x (1 + spr_op) bytes in all; phases = write, access = random, one stream, one block size",
     NULL, FIELD(sprandom), NULL, 0, 0, .record = "sprandom", .excludes = "bssplit,random_distribution,rand_run",
     .why = "(sprandom draws every offset itself)"},
    {"spr_num_regions", IOB_KEY_COUNT, "regions", "100",
     "sprandom: the regions the writes are cut into (at most one per block written)", NULL, FIELD(spr_num_regions),
     NULL, 1, UINT32_MAX, .record = "spr_num_regions", .needs = "sprandom"},
    {"spr_op", IOB_KEY_STRING, "", "0.15",
     "sprandom: the device's over-provisioning, a fraction strictly between 0 and 1: size x spr_op more bytes are "
     "written than the file holds",
     NULL, FIELD(spr_op), iob_set_shape_text, 0, 0, .record = "spr_op", .needs = "sprandom"},
    {"spr_cs", IOB_KEY_SIZE, "bytes", "0",
     "sprandom: the device's cache size: a region's blocks to write again wait for the end of the next region "
     "(0: they start it); at most a region's bytes",
     NULL, FIELD(spr_cs), NULL, 0, 0, .record = "spr_cs", .needs = "sprandom"},
    {"continue_on_error", IOB_KEY_ENUM, "", "none",
     "an I/O that fails in these directions (read, write, io: both) is counted in the record's io_errors and the "
     "phase goes on to the next I/O (not in ops or bytes), at any iodepth (a queued I/O's slot is reused); none: the "
     "first error ends the phase",
     continue_words, FIELD(continue_on_error), NULL, 0, 0, .record = "continue_on_error"},
    {"ignore_error", IOB_KEY_STRING, "", "",
     "READS,WRITES: ':' lists of errnos (EIO, ENOSPC, ... or numbers); an I/O failing that way with one of them is "
     "counted in io_errors and passed over, as continue_on_error (which then passes over only those); any iodepth",
     NULL, FIELD(ignore_error), iob_set_shape_text, 0, 0, .record = "ignore_error"},
    {"exit_others", IOB_KEY_ENUM, "", "none",
     "when this job has done all its phases (its first stream to end, in a group): group (the other jobs of its group stop, their records say "
     "stopped; fio's exitall), all (and the jobs after its group do not run); none: the others go on",
     exit_words, FIELD(exit_others), NULL, 0, 0, .record = "exit_others"},
    {"offset", IOB_KEY_SIZE, "bytes", "0",
     "sequential: the I/O starts this far into the file, and size bytes from there are the job's region "
     "(the file reaches offset + size); 0 = from the start",
     NULL, FIELD(offset), NULL, 0, 0, .record = "offset_bytes",
     .needs = "access=seq", .excludes = "series,steady_state,workload=files", .why = "a stream's region of the file: random offsets are drawn over the whole file, series and steady state rounds choose their own part"},
    {"offset_increment", IOB_KEY_SIZE, "bytes", "0",
     "sequential: stream i starts at offset + i x this (fio's clones of numjobs), each over its own size bytes "
     "from there, instead of a part of the file each",
     NULL, FIELD(offset_increment), NULL, 0, 0, .record = "offset_increment_bytes",
     .needs = "access=seq", .excludes = "series,steady_state,workload=files", .why = "a stream's region of the file: random offsets are drawn over the whole file, series and steady state rounds choose their own part"},
    {"zone_size", IOB_KEY_SIZE, "bytes", "0",
     "strided zones (fio's zonemode=strided): after this many bytes of I/O in a zone the I/O moves on to the next "
     "zone, zone_range + zone_skip bytes after this one's start (past the file's end: back at its start); "
     "sequential I/O goes through the zone's range from its start (again while zone_size is not done), random I/O "
     "draws in it (random_map: each block once per zone_range bytes); 0 = none",
     NULL, FIELD(zone_size), NULL, 0, 0, .record = "zone_size_bytes",
     .excludes = "offset,offset_increment,seq_add,rand_run,bssplit,random_distribution,series,steady_state,"
		 "workload=files,block_size_max,skip_past_end,fill_device",
     .why = "the zones give every I/O's offset"},
    {"zone_range", IOB_KEY_SIZE, "bytes", "0",
     "strided zones: the bytes of a zone the I/O stays in (fio's zonerange), a multiple of block_size; below "
     "zone_size the I/O goes over them again until zone_size bytes are done; 0 = zone_size",
     NULL, FIELD(zone_range), NULL, 0, 0, .record = "zone_range_bytes", .needs = "zone_size"},
    {"zone_skip", IOB_KEY_SIZE, "bytes", "0",
     "strided zones: the bytes passed over between one zone's range and the next zone (fio's zoneskip), a "
     "multiple of block_size",
     NULL, FIELD(zone_skip), NULL, 0, 0, .record = "zone_skip_bytes", .needs = "zone_size"},
    {"percentiles", IOB_KEY_STRING, "ranks", "",
     "the latency percentiles every record of the job reports, e.g. 50:99:99.9 (':' or ',' between, each above 0 "
     "and at most 100, at most 20, ascending in the records); empty: the 16 ranks 1 5 10 20 30 40 50 60 70 80 90 "
     "95 99 99.5 99.9 99.99",
     NULL, FIELD(percentiles), set_percentiles},
    {"flow", IOB_KEY_COUNT, "weight", "0",
     "the streams of every job with the same flow_id that run at once share their I/Os in proportion to their "
     "weights (fio's flow): a stream ahead of its share waits; 0: none",
     NULL, FIELD(flow), NULL, 0, 1000000, .record = "flow"},
    {"flow_id", IOB_KEY_COUNT, "", "0", "the flow group of flow (0 to 63)", NULL, FIELD(flow_id), NULL, 0, 63,
     .record = "flow_id", .needs = "flow"},
    {"flow_sleep", IOB_KEY_DURATION, "", "0s",
     "flow: how long a stream ahead of its share waits before it tries again (0: 10 us)", NULL,
     FIELD(flow_sleep_ns), NULL, 0, 0, .record = "flow_sleep_ns", .needs = "flow"},
};
#pragma GCC diagnostic pop

const struct iob_key *iob_keys(size_t *n)
{
	*n = sizeof key_table / sizeof key_table[0];
	return key_table;
}

uint64_t iob_key_value(const struct iob_key *k, const struct iob_job *job)
{
	const char *at = (const char *)job + k->offset;
	if (k->type == IOB_KEY_STRING || k->type == IOB_KEY_PATH || k->type == IOB_KEY_PATTERN)
		return 0;
	if (k->width == sizeof(uint32_t)) {
		uint32_t v32;
		memcpy(&v32, at, sizeof v32);
		return v32;
	}
	if (k->width == sizeof(uint64_t)) {
		uint64_t v;
		memcpy(&v, at, sizeof v);
		return v;
	}
	return 0;
}

int iob_keys_check_ranges(const struct iob_job *job, char *err, size_t errlen)
{
	for (size_t i = 0; i < sizeof key_table / sizeof key_table[0]; i++) {
		const struct iob_key *k = &key_table[i];
		if ((!k->min && !k->max) || (k->type != IOB_KEY_COUNT && k->type != IOB_KEY_SIZE))
			continue;
		uint64_t v = iob_key_value(k, job);
		if (k->max && (v < k->min || v > k->max)) {
			snprintf(err, errlen, "[%s] %s %llu is out of range: give %llu to %llu", job->name, k->name,
				 (unsigned long long)v, (unsigned long long)k->min, (unsigned long long)k->max);
			return -EINVAL;
		}
		if (v < k->min) {
			snprintf(err, errlen, "[%s] %s must be at least %llu%s", job->name, k->name,
				 (unsigned long long)k->min,
				 k->type != IOB_KEY_SIZE ? "" : k->min == 1 ? " byte" : " bytes");
			return -EINVAL;
		}
	}
	return 0;
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
	return iob_key_set(k, job, value, err, errlen);
}

int iob_job_set_row(struct iob_job *job, const struct iob_key *k, const char *value, char *err, size_t errlen)
{
	return iob_key_set(k, job, value, err, errlen);
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
		for (size_t i = 0; i < IOB_DURATION_UNITS; i++)
			if (u64 % iob_duration_units[i].ns == 0)
				return put(buf, len, "%llu%s", (unsigned long long)(u64 / iob_duration_units[i].ns),
					   iob_duration_units[i].unit);
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
	if (markdown == IOB_KEYS_TSV) { /* for scripts and tests: the record field too */
		fprintf(f, "key\ttype\tunit\tdefault\trecord\tmeaning\n");
		for (size_t i = 0; i < n; i++) {
			const struct iob_key *k = &key_table[i];
			type_text(k, "|", type, sizeof type);
			fprintf(f, "%s\t%s\t%s\t%s\t%s\t%s\n", k->name, type, k->unit, k->def,
				k->record ? k->record : "", k->meaning);
		}
		return ferror(f) ? -EIO : 0;
	}
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
