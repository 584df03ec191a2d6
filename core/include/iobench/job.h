/*
 * iobench/job.h - the job spec: the one description of work that an INI
 * profile section and every legacy command line are turned into.  The
 * engine runs it; nothing else decides what I/O happens.  Defaults and keys
 * are listed in docs/profiles.md.
 */
#ifndef IOBENCH_JOB_H
#define IOBENCH_JOB_H

#include <stddef.h>
#include <stdint.h>
#include "iobench/load.h"
#include "iobench/os.h"
#include "iobench/pattern.h"
#include "iobench/phase.h"

/* The backend a job uses unless it names one, and the buffered one the legacy
 * tools default to: posix and stdio; on Windows both are win32 (posix and
 * stdio are not built there, docs/windows.md). */
#if defined(_WIN32)
#define IOB_DEFAULT_BACKEND "win32"
#define IOB_STDIO_BACKEND "win32"
#else
#define IOB_DEFAULT_BACKEND "posix"
#define IOB_STDIO_BACKEND "stdio"
#endif

enum iob_layout {
	IOB_LAYOUT_FILE = 0, /* one file: dir/filename */
	IOB_LAYOUT_TREE = 1, /* dir/dir0/{file0..}, dir/dir0/dir1/{file0..}, ... */
};

/* A field added here is a key row's (keys.c), or one of core/src/ranks.c's
 * extras: across MPI ranks every setting is compared (docs/mpi.md), and
 * unit_ranks_keys (whose list of these fields gets the new one) checks it. */
/* exit_others (fio's exitall, exit_what): what a job's end stops */
enum { IOB_EXIT_NONE = 0, IOB_EXIT_GROUP = 1, IOB_EXIT_ALL = 2 };

struct iob_job {
	char name[IOB_NAME_MAX];      /* section name */
	char backend[IOB_NAME_MAX];   /* backend plugin name, default IOB_DEFAULT_BACKEND */
	char dir[IOB_PATH_MAX];       /* directory holding the files */
	char filename[IOB_PATH_MAX];  /* file name within dir (layout file) */
	enum iob_layout layout;
	uint32_t tree_levels;         /* layout tree: nesting depth */
	uint32_t tree_files;          /* layout tree: files per level */
	enum iob_access access;
	uint32_t phases;              /* IOB_PHASE_BIT set; run in write, read, verify order */
	uint64_t block_size;          /* bytes per I/O */
	uint64_t block_size_max;      /* sweep: doubling from block_size up to this */
	uint64_t size;                /* bytes per file */
	uint64_t ops;                 /* random: operations per block size, 0 = size / bs */
	uint32_t loops;               /* sequential: passes per phase */
	uint64_t offset_align;        /* random: offsets are multiples, 0 = block size */
	int skip_past_end;            /* random: draw in [0,size) and skip ops crossing the end */
	struct iob_pattern pattern;
	uint64_t seed;                /* random offsets (and default pattern seed) */
	int fsync;                    /* write phase: sync before close (counted in time) */
	int truncate;                 /* write phase: truncate the file on open */
	int reopen;                   /* open and close around every I/O (io_profile) */
	int keep_files;               /* leave the files behind (default 0: remove what the job made) */
	int allow_devices;            /* permit block/char devices as targets */
	int evict_before_read;        /* evict the files from page cache before read phases */
	int fill_once;                /* write phases: one buffer, filled as at offset 0, written everywhere */
	int random_map;               /* random: every slot once per pass, in a random order (default 1);
				       * 0 draws with replacement (io_profile's way), leaving holes */
	int series;                   /* sequential reads: one "block" record per I/O, with block
				       * speeds, summary and cliff (bigread) */
	enum iob_clock series_clock;  /* with series: the clock each block is timed with */
	enum iob_lat_timing latency;     /* which I/Os are timed (default sampled) */
	int follow_symlinks;          /* a symlinked target is followed (default 0: refused) */
	char backend_options[256];    /* "k=v,..." handed to the backend's open */
	/* streams and queue depth (docs/profiles.md) */
	uint32_t threads;             /* streams run at once (default 1) */
	char numa_cpu_nodes[64];      /* "", or the nodes whose CPUs the streams run on (numa.h) */
	char numa_mem_policy[64];     /* "", or the streams' memory policy: default, prefer:N, bind:..., ... */
	int shared_file;              /* streams share the job's files (default: <file>.<i> each) */
	uint32_t iodepth;             /* I/Os in flight per stream (default 1) */
	uint64_t memory_limit;        /* bytes the run may allocate at once; 0 = what the OS says is
				       * available (check.c, the memory budget) */
	uint64_t runtime_ns;          /* 0, or each phase ends at this time limit (a bound only) */
	int time_based;               /* with runtime: each phase passes over its files until the limit */
	uint64_t stonewall_ns;        /* 0, or every rank stops each phase this long after the common start */
	uint64_t ramp_ns;             /* I/O before the measured window, not counted */
	uint32_t rwmix_read;          /* phase mixed: % reads (default 50) */
	/* time series (docs/profiles.md, "Time series") */
	uint64_t log_interval_ns;     /* 0, or an "interval" record this often */
	/* fio-style logs of the intervals (docs/profiles.md, "fio-style logs"):
	 * "", or the PREFIX of PREFIX_bw.<x>.log, _iops, _lat and _clat */
	char bw_log[IOB_PATH_MAX], iops_log[IOB_PATH_MAX], lat_log[IOB_PATH_MAX];
	int log_offset;               /* the logs' rows carry the I/O's offset (fio's log_offset) */
	char livecsv[IOB_PATH_MAX];   /* "", or a CSV of the intervals written as they come */
	uint32_t group;              /* 0, or jobs in a row with the same group run at once */
	/* repeats (docs/statistics.md): repeat.c */
	uint32_t repeat;             /* runs of each phase, 1 to 1000 (default 1) */
	char until_ci[16];           /* "", or "2%": repeat until the interval is that narrow */
	uint32_t repeat_max;         /* until_ci: at most this many runs (default 30) */
	/* steady state (docs/statistics.md): steady.c */
	int steady_state;            /* 0 none, 1 iops, 2 bw (enum iob_steady_metric) */
	uint32_t steady_window;      /* rounds in the window (default 5, at least 2) */
	char steady_round[32];       /* "": one run of the phase; "10s": a time; "2000": I/Os */
	uint32_t steady_max_rounds;  /* at most this many rounds (default 25) */
	uint64_t steady_ramp_ns;     /* rounds within this time from the start are not judged */
	int steady_rule;             /* 0 snia, 1 deviation, 2 slope (enum iob_steady_rule) */
	char steady_range[16];       /* snia: data excursion (default "20%") */
	char steady_slope[16];       /* snia: slope excursion (default "10%") */
	char steady_limit[16];       /* deviation, slope: fio's limit ("10%") */
	/* verify (docs/profiles.md, "Verify"; the headers' kind, interval and
	 * generation are in pattern) */
	int verify_dump;             /* the first bad block's expected and found bytes to files */
	/* workload = files (meta.c, docs/metadata.md) */
	int workload;                /* IOB_WORKLOAD_DATA (0) or IOB_WORKLOAD_FILES (meta.h) */
	uint32_t meta_phases;        /* 1 << enum iob_meta_op, run in that order */
	uint64_t files;              /* items per stream */
	uint32_t tree_depth;         /* levels below each stream's (or the shared) directory */
	uint32_t tree_branch;        /* subdirectories per directory */
	int dir_per_stream;          /* a tree per stream (default 1), or one shared tree */
	uint64_t file_bytes;         /* bytes written at create (and write), read at read */
	int file_fsync;              /* create and write sync each file before closing it */
	uint32_t stat_other;         /* write, stat, open, read the files of stream (g + N) mod streams */
	int drop_caches;             /* root: drop the caches between phases */
	int path_walk;               /* 0 held (a name from a held directory), 1 full (the whole path each time) */
	/* shapes of load (docs/profiles.md, "Shapes of load"): shape.c parses them */
	char bssplit[512];           /* "", or SIZE/PCT:...[,SIZE/PCT:...] (reads,writes) */
	char random_distribution[768]; /* "", random, zipf:T, pareto:H, normal:S, zoned:..., zoned_abs:...,
					* sequence:B,... (IOB_DIST_TEXT_MAX) */
	int random_sequence_stride;  /* sequence: each pass over it starts its blocks a sequence's length on */
	char rate[64], rate_iops[64]; /* "", or R[,W]: bytes or I/Os per second */
	int rate_process;            /* 0 linear, 1 poisson */
	uint64_t thinktime_ns, thinktime_spin_ns;
	uint32_t thinktime_blocks;
	char seq_add[32];            /* sequential: "", or bytes added after each I/O ("-8k": backwards) */
	uint32_t rand_run;           /* random: I/Os in a row from each offset drawn (0, 1: one) */
	int sprandom;                /* random writes in fio's sprandom order (spr.h) */
	uint32_t spr_num_regions;    /* sprandom: its regions */
	char spr_op[32];             /* sprandom: over-provisioning, a fraction in (0, 1) */
	uint64_t spr_cs;             /* sprandom: cache bytes (0: none): repeats wait for a region's end */
	char rate_min[64], rate_iops_min[64]; /* "", or R[,W]: the least a phase must reach */
	uint64_t start_delay_ns;     /* the job's first phase waits this long, outside its window */
	int shared_whole;            /* shared_file, sequential: each stream over the whole file (fio's clones) */
	int continue_on_error;       /* 0 none, 1 read, 2 write, 3 io: failed I/Os counted, the phase goes on */
	char ignore_error[192];      /* "", or READS,WRITES: ':' lists of errnos passed over (continue_on_error) */
	int exit_others;             /* IOB_EXIT_*: when this job ends, the others of its group stop (fio's exitall) */
	/* fio job files only (no key): fio's reporting group (a count that
	 * stonewall and new_group move on), and exit_report: exit_others =
	 * group stops only the jobs of the job's reporting group (fio's
	 * exit_what=group), not every job running (stonewall, all) */
	uint32_t report_group;
	int exit_report;
	/* sequential: stream i works on [offset + i*offset_increment, + size) of
	 * its file (fio's offset, offset_increment); both 0: the whole file */
	uint64_t offset, offset_increment;
	/* strided zones (fio's zonemode=strided): after zone_size bytes of I/O
	 * in a zone, the next zone starts zone_range + zone_skip bytes on (back
	 * at the file's start past its end); the I/O stays in the zone's first
	 * zone_range bytes (0: zone_size).  zone_size 0: none */
	uint64_t zone_size, zone_range, zone_skip;
	char percentiles[256];       /* "", or the latency percentiles reported (iob_pct_parse) */
	uint32_t flow, flow_id;      /* flow: a weight (0: none) in flow id flow_id's share of I/Os */
	uint64_t flow_sleep_ns;      /* flow: the wait before a stream ahead of its share tries again */
	int fill_device;             /* sequential: writes go on until ENOSPC (its end), reads to the file's end */
	/* a priority per I/O (cmdprio.h, docs/profiles.md "I/O priority"): "", or R[,W] */
	char cmdprio_percentage[16], cmdprio_class[16], cmdprio_level[16];
	char cmdprio_bssplit[512];   /* "", or SIZE/PCT[/CLASS/LEVEL[/HINT]]:...[,...] */
	int log_prio;                /* lat_log's fifth column: the priority value (fio's log_prio) */
	/* the keys the engine reads as they are set (load.h): the runner copies
	 * them into every phase's spec as they are */
	struct iob_load load;
};

struct iob_shape;
/* The job's shapes of load (shape.h) in *sh; 1 when the job has any, 0
 * when none; negative with one line in err for a bad value. */
int iob_job_shape(const struct iob_job *job, struct iob_shape *sh, char *err, size_t errlen);

/* Defaults shared by profiles and tools (docs/profiles.md). */
void iob_job_defaults(struct iob_job *job);
/* Check a job for consistency; a one-line reason in err.  No file is touched. */
int iob_job_validate(const struct iob_job *job, char *err, size_t errlen);
/* The verify keys of a job (verify_job.c): the kind's checksum is in this
 * build, the interval holds a header and divides every block size. */
int iob_job_check_verify(const struct iob_job *job, char *err, size_t errlen);

#define IOB_THREADS_MAX 4096u
/* the largest group number, and the most jobs one group may hold */
#define IOB_GROUP_MAX 1000000u
#define IOB_GROUP_JOBS_MAX 256u
#define IOB_IODEPTH_MAX 65536u

/* The files a job touches, as full paths (tree order: level 0 first).  With
 * threads = N > 1 and no shared_file, every stream has its own copy of each
 * file, "<file>.<i>" (i = 0..N-1), listed stream by stream: stream i's are
 * paths[i * n / N] to paths[(i + 1) * n / N - 1]. */
struct iob_filelist {
	size_t n;
	char **paths;  /* n paths */
	size_t ndirs;
	char **dirs;   /* directories the layout needs, parents first */
};
int iob_job_files(const struct iob_job *job, struct iob_filelist *out);
/* The most I/Os one stream's phase of the job may do, known before the run
 * from its size (file_size: its existing target's, when it gives none), its
 * smallest block size, ops, loops or a steady-state round of I/Os;
 * UINT64_MAX when it is not (it runs for a time, or no size is known). */
uint64_t iob_job_ios_bound(const struct iob_job *job, uint64_t file_size);
/* The I/O calls a random phase of the job asks for, as its record's
 * ops_asked says: ops, except a sprandom job's, which ends with its order:
 * the plan's writes (size x (1 + spr_op) in blocks, spr.h). */
uint64_t iob_job_ops_asked(const struct iob_job *job);
void iob_filelist_free(struct iob_filelist *fl);
/* Nonzero when each stream has files of its own (threads > 1, no
 * shared_file). */
int iob_job_stream_files(const struct iob_job *job);

#endif
