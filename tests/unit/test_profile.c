/* Unit tests for INI profiles: inheritance from [global], include, ${VAR},
 * round trip through iob_profile_write, one-line errors naming the file,
 * section and key, the key table, a BOM and the include-depth limit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <cmocka.h>

#include "iobench/profile.h"
#include "iobench/result.h"

#define SCRATCH_NAME "profile"
#include "scratch.h"

static const char *put(const char *name, const char *text)
{
	static char path[4][512];
	static int k;
	char *p = path[k++ % 4];
	snprintf(p, 512, "%s/%s", tmpdir, name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return p;
}

static void test_inheritance_and_order(void **s)
{
	(void)s;
	struct iob_suite suite;
	char err[1024] = "";
	const char *p = put("a.ini", "[global]\nsize = 1M\nblock_size = 8K\nbackend = stdio\n\n"
				     "[second]\naccess = rand\nops = 10\n\n"
				     "[first]\nblock_size = 64K\nphases = read, write ,verify\n");
	assert_int_equal(iob_profile_load(p, &suite, err, sizeof err), 0);
	assert_int_equal(suite.njobs, 2);
	assert_string_equal(suite.jobs[0].name, "second");
	assert_string_equal(suite.jobs[1].name, "first");
	assert_int_equal(suite.jobs[0].size, 1048576);
	assert_int_equal(suite.jobs[0].block_size, 8192);
	assert_int_equal(suite.jobs[0].access, IOB_ACCESS_RAND);
	assert_int_equal(suite.jobs[0].ops, 10);
	assert_string_equal(suite.jobs[0].backend, "stdio");
	assert_int_equal(suite.jobs[1].block_size, 65536);
	assert_int_equal(suite.jobs[1].phases, 7);
	assert_string_equal(suite.jobs[1].filename, "iobench.first.dat");
	iob_suite_free(&suite);
}

static void test_include_and_env(void **s)
{
	(void)s;
	struct iob_suite suite;
	char err[1024] = "";
	put("base.ini", "[global]\nsize = 2M\nblock_size = 4K\npattern = zero\n\n[base-job]\nphases = write\n");
	setenv("IOB_TEST_BS", "16K", 1);
	unsetenv("IOB_TEST_UNSET");
	const char *p = put("top.ini", "[global]\ninclude = base.ini\nblock_size = ${IOB_TEST_BS}\n"
				       "dir = ${IOB_TEST_UNSET:-/somewhere}\n\n[top-job]\n");
	assert_int_equal(iob_profile_load(p, &suite, err, sizeof err), 0);
	assert_int_equal(suite.njobs, 2);
	assert_string_equal(suite.jobs[0].name, "base-job");
	assert_string_equal(suite.jobs[1].name, "top-job");
	/* included job: its own globals only */
	assert_int_equal(suite.jobs[0].block_size, 4096);
	assert_string_equal(suite.jobs[0].dir, ".");
	/* including file: included globals below its own */
	assert_int_equal(suite.jobs[1].size, 2 * 1048576);
	assert_int_equal(suite.jobs[1].block_size, 16384);
	assert_int_equal(suite.jobs[1].pattern.kind, IOB_PAT_ZERO);
	assert_string_equal(suite.jobs[1].dir, "/somewhere");
	iob_suite_free(&suite);
}

static void test_round_trip(void **s)
{
	(void)s;
	struct iob_suite a, b;
	char err[1024] = "";
	const char *p = put("rt.ini", "[global]\nsize = 3M\n[x]\naccess = rand\nblock_size = 4K\nblock_size_max = 64K\n"
				      "ops = 77\nskip_past_end = yes\npattern = ~byte:0x0f\nseed = 9\nlayout = tree\n"
				      "tree_levels = 2\ntree_files = 3\nreopen = on\nkeep_files = 1\n"
				      "[y]\nphases = verify\nfsync = false\ntruncate = true\nloops = 3\n");
	assert_int_equal(iob_profile_load(p, &a, err, sizeof err), 0);
	char path[512];
	snprintf(path, sizeof path, "%s/dump.ini", tmpdir);
	FILE *f = fopen(path, "w");
	assert_int_equal(iob_profile_write(f, a.jobs, a.njobs, "dumped"), 0);
	fclose(f);
	assert_int_equal(iob_profile_load(path, &b, err, sizeof err), 0);
	assert_int_equal(a.njobs, b.njobs);
	for (size_t i = 0; i < a.njobs; i++)
		assert_memory_equal(&a.jobs[i], &b.jobs[i], sizeof a.jobs[i]);
	iob_suite_free(&a);
	iob_suite_free(&b);
}

/* A section's shorter value over a [global] one: the job equals, byte for
 * byte, the one read back from its dump (found by fuzz_profile). */
static void test_round_trip_global_override(void **s)
{
	(void)s;
	struct iob_suite a, b;
	char err[1024] = "", *text = NULL;
	size_t len = 0;
	assert_int_equal(iob_profile_load_string("ov", "[global]\nbackend = poirot\ndir = /tmp/long/dir\n"
						       "filename = a-long-file-name\n[x]\nbackend = pos\n"
						       "dir = /t\nfilename = f\n",
						 &a, err, sizeof err),
			 0);
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(iob_profile_write(f, a.jobs, a.njobs, NULL), 0);
	fclose(f);
	assert_int_equal(iob_profile_load_string("ov-back", text, &b, err, sizeof err), 0);
	assert_int_equal(b.njobs, 1);
	assert_memory_equal(&a.jobs[0], &b.jobs[0], sizeof a.jobs[0]);
	free(text);
	iob_suite_free(&a);
	iob_suite_free(&b);
}

static void test_round_trip_awkward_text(void **s)
{
	(void)s;
	const char *dirs[] = {" lead", "trail ", "semi;colon", "hash#mark", "dollar$sign ${NOT_EXPANDED}",
			      "\"quoted\"", "it's", "mixed \" and ; ", ""};
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		struct iob_suite a = {.njobs = 1}, b;
		struct iob_job job;
		char err[1024] = "", path[512];
		iob_job_defaults(&job);
		snprintf(job.name, sizeof job.name, "j");
		snprintf(job.filename, sizeof job.filename, "f.dat");
		snprintf(job.dir, sizeof job.dir, "%s", dirs[i][0] ? dirs[i] : "x");
		a.jobs = &job;
		snprintf(path, sizeof path, "%s/awk.ini", tmpdir);
		FILE *f = fopen(path, "w");
		assert_int_equal(iob_profile_write(f, a.jobs, 1, NULL), 0);
		fclose(f);
		if (iob_profile_load(path, &b, err, sizeof err) != 0)
			fail_msg("dir '%s': %s", dirs[i], err);
		assert_string_equal(b.jobs[0].dir, job.dir);
		iob_suite_free(&b);
	}
}

/* Each bad profile fails with a message containing every fragment: when it
 * is loaded, or (a job whose keys contradict each other) when its jobs are
 * validated, which the runner's checks do once per job. */
static void expect_error(const char *text, const char *frag1, const char *frag2)
{
	struct iob_suite suite;
	char err[1024] = "";
	const char *p = put("bad.ini", text);
	int rc = iob_profile_load(p, &suite, err, sizeof err);
	if (rc == 0) {
		for (size_t i = 0; rc == 0 && i < suite.njobs; i++)
			rc = iob_job_validate(&suite.jobs[i], err, sizeof err);
		iob_suite_free(&suite);
	}
	if (rc == 0)
		fail_msg("profile loaded but should fail: %s", text);
	if (!strstr(err, frag1) || (frag2 && !strstr(err, frag2)))
		fail_msg("error '%s' lacks '%s' / '%s'", err, frag1, frag2 ? frag2 : "");
	if (strchr(err, '\n'))
		fail_msg("error is more than one line: '%s'", err);
}

static void test_errors(void **s)
{
	(void)s;
	expect_error("[global]\nsize = 1M\n", "no job sections", NULL);
	expect_error("", "no job sections", NULL);
	expect_error("[j]\nblcok_size = 4K\n", "[j] blcok_size", "unknown key");
	expect_error("[j]\nblock_size = 4kb\n", "[j] block_size", "ambiguous");
	expect_error("[j]\nsize = -5\n", "[j] size", "negative");
	expect_error("[j]\nsize = 99999999999999999999\n", "[j] size", "too large");
	expect_error("[j]\nsize = nan\n", "[j] size", "not a size");
	expect_error("[j]\nsize = 0\n", "size must be at least", NULL);
	expect_error("[j]\nblock_size = 0\n", "block_size must be", NULL);
	expect_error("[j]\naccess = sideways\n", "[j] access", "sideways");
	expect_error("[j]\nphases = write,erase\n", "[j] phases", "erase");
	expect_error("[j]\nfsync = maybe\n", "[j] fsync", "maybe");
	expect_error("[j]\npattern = plaid\n", "[j] pattern", "plaid");
	expect_error("[j]\nsize=1M\n[j]\nsize=2M\n", "duplicate section [j]", NULL);
	expect_error("[   ]\nsize=1M\n", "bad section header", "empty"); /* found by fuzz_profile */
	expect_error("[j]\nsize=1M\nsize=2M\n", "[j] size", "duplicate key");
	expect_error("size = 1M\n[j]\n", "outside any section", NULL);
	expect_error("[global]\nblcok = 1\n[j]\n", "[global] blcok", "unknown key");
	expect_error("[j]\ndir = ${IOB_SURELY_NOT_SET_VAR}\n", "[j] dir", "IOB_SURELY_NOT_SET_VAR");
	expect_error("[j]\ninclude = x.ini\n", "only allowed in [global]", NULL);
	expect_error("[global]\ninclude = missing.ini\n[j]\n", "missing.ini", "does not exist");
	expect_error("[j]\nblock_size = 1M\nblock_size_max = 4K\n", "block_size_max", "below");
	expect_error("[j]\naccess = rand\nsize = 4K\nblock_size = 8K\n", "smaller than the largest block", NULL);
	expect_error("[j]\nfilename = a/b\n", "plain file name", NULL);
	expect_error("[j]\nsize 1M\n", "expected 'key = value'", NULL);
	expect_error("[j\nsize = 1M\n", "bad section header", NULL);
	expect_error("[j]\nsize = 1M\x01\n", "control character", NULL);
	/* a 10 MB line */
	size_t n = 10u << 20;
	char *big = malloc(n + 32);
	assert_non_null(big);
	memcpy(big, "[j]\ndescription = ", 18);
	memset(big + 18, 'x', n);
	memcpy(big + 18 + n, "\n", 2);
	expect_error(big, "over the 1000-character limit", NULL);
	free(big);
}

static void test_include_loop(void **s)
{
	(void)s;
	struct iob_suite suite;
	char err[1024] = "";
	put("loop-a.ini", "[global]\ninclude = loop-b.ini\n[a]\n");
	put("loop-b.ini", "[global]\ninclude = loop-a.ini\n[b]\n");
	char path[512];
	snprintf(path, sizeof path, "%s/loop-a.ini", tmpdir);
	assert_int_equal(iob_profile_load(path, &suite, err, sizeof err), -ELOOP);
	assert_non_null(strstr(err, "include loop"));
}

static void test_binary_junk(void **s)
{
	(void)s;
	struct iob_suite suite;
	char err[1024] = "", path[512];
	snprintf(path, sizeof path, "%s/junk.ini", tmpdir);
	FILE *f = fopen(path, "wb");
	const unsigned char junk[] = {0x7f, 'E', 'L', 'F', 0, 1, 2, 3, 0xff, '\n'};
	fwrite(junk, 1, sizeof junk, f);
	fclose(f);
	assert_int_equal(iob_profile_load(path, &suite, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "binary data"));
	assert_int_equal(iob_profile_load("/nonexistent/p.ini", &suite, err, sizeof err), -ENOENT);
	assert_non_null(strstr(err, "no such profile"));
}

static void test_load_string(void **s)
{
	(void)s;
	struct iob_suite suite;
	char err[1024] = "";
	assert_int_equal(iob_profile_load_string("mem", "[m]\nsize = 1K\nblock_size = 512\n", &suite, err, sizeof err),
			 0);
	assert_int_equal(suite.njobs, 1);
	assert_int_equal(suite.jobs[0].block_size, 512);
	iob_suite_free(&suite);
}

/* ---- the key table ------------------------------------------------------- */

static void test_key_table(void **s)
{
	(void)s;
	size_t n;
	const struct iob_key *k = iob_keys(&n);
	struct iob_job dflt, job;
	char err[1024], a[512], b[512];
	iob_job_defaults(&dflt);
	assert_true(n >= 30);
	for (size_t i = 0; i < n; i++) {
		const char *name = k[i].name;
		assert_ptr_equal(iob_key_find(name), &k[i]);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(k[j].name, name);
		for (const char *c = name; *c; c++)
			assert_true((*c >= 'a' && *c <= 'z') || *c == '_');
		/* one line, and safe inside a markdown table cell */
		assert_true(k[i].meaning[0] && !strpbrk(k[i].meaning, "|\n") && !strpbrk(k[i].def, "|\n"));
		assert_true((k[i].type == IOB_KEY_ENUM || k[i].type == IOB_KEY_LIST) == (k[i].words != NULL));
		if (k[i].width == 0) {
			assert_int_equal(iob_key_format(&k[i], &dflt, a, sizeof a), -ENOENT);
			continue;
		}
		/* the default's text is what a defaults job holds (filename's
		 * default is derived from the section name when the job is built) */
		job = dflt;
		assert_int_equal(iob_key_format(&k[i], &dflt, a, sizeof a), 0);
		if (strcmp(name, "filename") != 0) {
			if (iob_job_set(&job, name, k[i].def, err, sizeof err) != 0)
				fail_msg("%s: default '%s' does not parse: %s", name, k[i].def, err);
			assert_memory_equal(&job, &dflt, sizeof job);
		}
		/* the formatted default parses back to the same job */
		assert_int_equal(iob_job_set(&job, name, a, err, sizeof err), 0);
		assert_int_equal(iob_key_format(&k[i], &job, b, sizeof b), 0);
		assert_string_equal(a, b);
	}
	assert_null(iob_key_find("include"));
	assert_null(iob_key_find("BLOCK_SIZE"));
	assert_string_equal(iob_key_type_name(IOB_KEY_SIZE), "size");
	assert_int_equal(iob_key_format(iob_key_find("size"), &dflt, a, 3), -ENOSPC);
	job = dflt;
	job.access = (enum iob_access)7;
	assert_int_equal(iob_key_format(iob_key_find("access"), &job, a, sizeof a), -EINVAL);
}

/* Two jobs that between them set every key to a value other than its
 * default; both read back from their dump equal, byte for byte. */
static const char *every_key[][3] = {
    /* key, value in [a], value in [b] (NULL: left at its default) */
    {"description", "any text", "x"},
    {"backend", "stdio", "mmap"},
    {"backend_options", "fail_at=4096,errno=eio", "a.b-c_d="},
    {"dir", "/tmp/it's $$ here", "rel/dir"},
    {"filename", "data.bin", "-"},
    {"layout", "tree", NULL},
    {"tree_levels", "2", NULL},
    {"tree_files", "5", NULL},
    {"access", "random", "sequential"},
    {"phases", "read,write,mixed", "verify,read"},
    {"block_size", "8K", "1M"},
    {"block_size_max", "64K", NULL},
    {"size", "1.5M", "2G"},
    {"ops", "77", NULL},
    {"loops", NULL, "3"},
    {"seq_ops", "100", NULL},
    {"offset_align", "512", NULL},
    {"random_map", "false", NULL},
    {"skip_past_end", "yes", NULL},
    {"pattern", "~byte:0x0f", "text"},
    {"seed", "9", "18446744073709551615"},
    {"fsync", "off", NULL},
    {"fsync_every", "8", NULL},
    {"latency_target", "500us", "2ms"},
    {"latency_window", "1s", NULL},
    {"latency_percentile", "99.9", NULL},
    {"latency_run", "true", NULL},
    {"truncate", "on", NULL},
    {"reopen", "1", NULL},
    {"keep_files", "true", "true"},
    {"allow_devices", "true", NULL},
    {"follow_symlinks", NULL, "true"},
    {"evict_before_read", NULL, "true"},
    {"fill_once", "true", NULL},
    {"fill_device", "true", NULL},
    {"series", NULL, "true"},
    {"series_clock", NULL, "process"},
    {"latency", "off", "every"},
    {"threads", "3", NULL},
    {"numa_cpu_nodes", "0", "all"},
    {"numa_mem_policy", "bind:0-1,3", "interleave"},
    {"shared_file", "true", NULL},
    {"iodepth", "8", "65536"},
    {"memory_limit", "64M", "1T"},
    {"runtime", "90s", "2m"},
    {"time_based", "true", NULL},
    {"stonewall", "5s", "1m"},
    {"ramp_time", "500ms", "100us"},
    {"rwmix_read", "70", "0"},
    {"bssplit", "4k/60:64k/40", "512/:1k/,8k/100"},
    {"random_distribution", "zipf:1.2", "zoned:50/5:30/15:20/"},
    {"random_sequence_stride", "true", NULL},
    {"rate", "1m", "1m,"},
    {"rate_iops", ",500", "100"},
    {"rate_process", "poisson", NULL},
    {"thinktime", "2ms", NULL},
    {"thinktime_spin", "1ms", NULL},
    {"thinktime_blocks", "4", NULL},
    {"seq_add", NULL, "-8k"},
    {"rand_run", "4", NULL},
    {"sprandom", NULL, "true"},
    {"spr_num_regions", NULL, "40"},
    {"spr_op", NULL, "0.3"},
    {"spr_cs", NULL, "64K"},
    {"rate_min", "1k", ",2k"},
    {"rate_iops_min", "10", NULL},
    {"start_delay", "4s", NULL},
    {"shared_whole", "true", NULL},
    {"continue_on_error", "read", "io"},
    {"exit_others", "group", "all"},
    {"ignore_error", "EIO:5,ENOSPC", ",EDQUOT"},
    {"offset", "4096", "1099511627776"},
    {"offset_increment", "65536", NULL},
    {"zone_size", "262144", "1M"},
    {"zone_range", NULL, "2M"},
    {"zone_skip", "65536", NULL},
    {"percentiles", "50:99.9", "1,99.99"},
    {"flow", "8", NULL},
    {"flow_id", "5", NULL},
    {"flow_sleep", "1ms", NULL},
    {"log_interval", "250ms", "1h"},
    {"livecsv", "/tmp/live a,b.csv", NULL},
    {"group", "7", "4294967295"},
    {"bw_log", "/tmp/logs/run a", NULL},
    {"iops_log", "/tmp/logs/iops;x", NULL},
    {"lat_log", "lat", NULL},
    {"log_offset", "true", NULL},
    {"repeat", "7", "1000"},
    {"until_ci", "2%", "0.5%"},
    {"repeat_max", "50", "3"},
    {"steady_state", "iops", "bw"},
    {"steady_window", "3", "1000"},
    {"steady_round", "10s", "2000"},
    {"steady_max_rounds", "40", "100000"},
    {"steady_ramp", "5s", NULL},
    {"steady_rule", "deviation", "slope"},
    {"steady_range", "15%", "2.5%"},
    {"steady_slope", "5%", NULL},
    {"steady_limit", "0.1%", "10%"},
    {"compress_percentage", "40", "0"},
    {"compress_chunk", "1024", NULL},
    {"dedupe_percentage", "25", NULL},
    {"dedupe_mode", "working_set", "repeat"},
    {"dedupe_working_set", "50", "100"},
    {"dedupe_global", "true", NULL},
    {"verify", "crc32c", "meta"},
    {"verify_interval", "512", NULL},
    {"verify_generation", "7", "0"},
    {"verify_fatal", "true", NULL},
    {"verify_backlog", "16", NULL},
    {"verify_backlog_batch", "4", NULL},
    {"verify_dump", "true", NULL},
    {"workload", "files", NULL},
    {"meta_phases", "rmdir,create,stat", "write,open,read,remove"},
    {"files", "1000000", "1"},
    {"tree_depth", "3", NULL},
    {"tree_branch", "4", NULL},
    {"dir_per_stream", "false", NULL},
    {"file_bytes", "3901", "4K"},
    {"file_fsync", "true", NULL},
    {"stat_other", "1", NULL},
    {"drop_caches", "true", NULL},
    {"path_walk", "full", NULL},
    {"prio_class", "3", "1"},
    {"prio_level", "7", NULL},
    {"cmdprio_percentage", "10,20", NULL},
    {"cmdprio_class", "2", "3,1"},
    {"cmdprio_level", "1,", "7"},
    {"cmdprio_bssplit", NULL, "4k/50/2/1/3:4k/50,8k/10"},
    {"log_prio", "true", NULL},
};

static void test_every_key_round_trips(void **s)
{
	(void)s;
	size_t n, nrows = sizeof every_key / sizeof every_key[0];
	const struct iob_key *k = iob_keys(&n);
	struct iob_suite a, b;
	struct iob_job dflt;
	char err[1024] = "", text[8192], x[512], y[512];
	iob_job_defaults(&dflt);
	/* every key of the table has a row: a new key needs one here */
	for (size_t i = 0; i < n; i++) {
		size_t r = 0;
		while (r < nrows && strcmp(every_key[r][0], k[i].name) != 0)
			r++;
		if (r == nrows)
			fail_msg("key %s is not in every_key[]", k[i].name);
	}
	size_t o = (size_t)snprintf(text, sizeof text, "[a]\n");
	for (size_t r = 0; r < nrows; r++)
		if (every_key[r][1])
			o += (size_t)snprintf(text + o, sizeof text - o, "%s = %s\n", every_key[r][0],
					      every_key[r][1]);
	o += (size_t)snprintf(text + o, sizeof text - o, "[b]\n");
	for (size_t r = 0; r < nrows; r++)
		if (every_key[r][2])
			o += (size_t)snprintf(text + o, sizeof text - o, "%s = %s\n", every_key[r][0],
					      every_key[r][2]);
	if (iob_profile_load_string("every", text, &a, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(a.njobs, 2);
	/* each key with a field moved off its default in at least one job */
	for (size_t i = 0; i < n; i++) {
		if (k[i].width == 0)
			continue;
		assert_int_equal(iob_key_format(&k[i], &dflt, x, sizeof x), 0);
		int moved = 0;
		for (size_t j = 0; j < 2; j++) {
			assert_int_equal(iob_key_format(&k[i], &a.jobs[j], y, sizeof y), 0);
			moved |= strcmp(x, y) != 0;
		}
		if (!moved)
			fail_msg("key %s keeps its default '%s' in both jobs", k[i].name, x);
	}
	assert_int_equal(a.jobs[0].seed, 9);
	assert_int_equal(a.jobs[0].pattern.seed, 9);
	assert_int_equal(a.jobs[0].size, 1572864);
	assert_int_equal(a.jobs[1].series_clock, IOB_CLOCK_PROCESS);
	assert_int_equal(a.jobs[0].latency, IOB_LATENCY_OFF);
	assert_int_equal(a.jobs[1].latency, IOB_LATENCY_EVERY);
	assert_string_equal(a.jobs[0].dir, "/tmp/it's $ here");
	char *dump = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&dump, &len);
	assert_non_null(f);
	assert_int_equal(iob_profile_write(f, a.jobs, a.njobs, "every key"), 0);
	fclose(f);
	if (iob_profile_load_string("every-back", dump, &b, err, sizeof err) != 0)
		fail_msg("%s\n%s", err, dump);
	assert_int_equal(b.njobs, 2);
	for (size_t j = 0; j < 2; j++)
		assert_memory_equal(&a.jobs[j], &b.jobs[j], sizeof a.jobs[j]);
	assert_null(strstr(dump, "description"));
	free(dump);
	iob_suite_free(&b);
	/* a section name that could not be read back is refused, nothing written */
	snprintf(a.jobs[0].name, sizeof a.jobs[0].name, "a]b");
	dump = NULL;
	f = open_memstream(&dump, &len);
	assert_int_equal(iob_profile_write(f, a.jobs, a.njobs, NULL), -EINVAL);
	fclose(f);
	assert_int_equal(len, 0);
	free(dump);
	iob_suite_free(&a);
}

static void test_unknown_key_hint(void **s)
{
	(void)s;
	struct iob_job job;
	char err[1024];
	iob_job_defaults(&job);
	assert_int_equal(iob_job_set(&job, "blcok_size", "4K", err, sizeof err), -ENOENT);
	assert_non_null(strstr(err, "unknown key (did you mean block_size?"));
	assert_int_equal(iob_job_set(&job, "serie", "1", err, sizeof err), -ENOENT);
	assert_non_null(strstr(err, "did you mean series?"));
	assert_int_equal(iob_job_set(&job, "xyzzy_plugh", "1", err, sizeof err), -ENOENT);
	assert_non_null(strstr(err, "unknown key ('iobench keys' lists every key)"));
	assert_int_equal(iob_job_set(&job, "a", "1", err, sizeof err), -ENOENT);
	assert_null(strstr(err, "did you mean"));
	expect_error("[global]\nincldue = x.ini\n[j]\n", "[global] incldue", "did you mean include?");
	expect_error("[j]\nseries_clok = wall\n", "[j] series_clok", "did you mean series_clock?");
}

static void test_new_keys(void **s)
{
	(void)s;
	struct iob_suite suite;
	char err[1024] = "";
	assert_int_equal(iob_profile_load_string("d", "[j]\n", &suite, err, sizeof err), 0);
	assert_int_equal(suite.jobs[0].random_map, 1);
	assert_int_equal(suite.jobs[0].series, 0);
	assert_int_equal(suite.jobs[0].series_clock, IOB_CLOCK_WALL);
	assert_int_equal(suite.jobs[0].follow_symlinks, 0);
	assert_string_equal(suite.jobs[0].backend_options, "");
	iob_suite_free(&suite);
	const char *clocks[][2] = {{"wall", "3"}, {"user", "0"}, {"system", "1"}, {"process", "2"}};
	for (size_t i = 0; i < 4; i++) {
		char text[128];
		snprintf(text, sizeof text, "[j]\nphases = read\nseries = true\nseries_clock = %s\n",
			 clocks[i][0]);
		assert_int_equal(iob_profile_load_string("c", text, &suite, err, sizeof err), 0);
		assert_int_equal(suite.jobs[0].series_clock, atoi(clocks[i][1]));
		iob_suite_free(&suite);
	}
	assert_int_equal(iob_profile_load_string("o",
						 "[j]\nbackend_options = fail_at=4096,errno=eio,flag=\n"
						 "random_map = no\nfollow_symlinks = yes\naccess = rand\n",
						 &suite, err, sizeof err),
			 0);
	assert_string_equal(suite.jobs[0].backend_options, "fail_at=4096,errno=eio,flag=");
	assert_int_equal(suite.jobs[0].random_map, 0);
	assert_int_equal(suite.jobs[0].follow_symlinks, 1);
	iob_suite_free(&suite);
	expect_error("[j]\nseries = true\nphases = read\naccess = rand\n", "series", "access = seq");
	expect_error("[j]\nseries = true\n", "series = true cannot be used with phases = write,read", NULL);
	expect_error("[j]\nseries_clock = user\nphases = read\n", "series_clock = user needs series = true",
		     NULL);
	expect_error("[j]\nseries_clock = sys\n", "[j] series_clock",
		     "not one of wall, user, system, process");
	expect_error("[j]\nseries = sometimes\n", "[j] series", "not a boolean");
	expect_error("[j]\nrandom_map = 2\n", "[j] random_map", "not a boolean");
	expect_error("[j]\nfollow_symlinks = maybe\n", "[j] follow_symlinks", "not a boolean");
	expect_error("[j]\nbackend_options = a=1,,b=2\n", "backend_options item ''", "key=value");
	expect_error("[j]\nbackend_options = =1\n", "backend_options item '=1'", NULL);
	expect_error("[j]\nbackend_options = novalue\n", "backend_options item 'novalue'", NULL);
	expect_error("[j]\nbackend_options = a=1,\n", "backend_options ends with ','", NULL);
	expect_error("[j]\nbackend_options = a b=1\n", "backend_options item 'a b=1'", NULL);
}

/* The rules the rows carry: every key and value they name is real (a rule
 * naming a misspelt key would never fire), and each fires with one line
 * that names both keys and both values. */
static void test_key_rules(void **s)
{
	(void)s;
	size_t n, rules = 0;
	const struct iob_key *keys = iob_keys(&n);
	struct iob_job job;
	char err[512];
	for (size_t i = 0; i < n; i++)
		for (int ex = 0; ex < 2; ex++) {
			const char *list = ex ? keys[i].excludes : keys[i].needs;
			for (const char *c = list; c && *c;) {
				size_t len = strcspn(c, ",");
				char cond[128], *eq;
				assert_true(len < sizeof cond);
				memcpy(cond, c, len);
				cond[len] = '\0';
				if ((eq = strchr(cond, '=')) != NULL)
					*eq = '\0';
				const struct iob_key *other = iob_key_find(cond);
				if (!other || other->width == 0)
					fail_msg("row %s names key '%s', which sets nothing", keys[i].name, cond);
				iob_job_defaults(&job);
				if (eq && iob_job_set(&job, cond, eq + 1, err, sizeof err) != 0)
					fail_msg("row %s names %s=%s: %s", keys[i].name, cond, eq + 1, err);
				rules++;
				c += len + (c[len] == ',');
			}
		}
	assert_true(rules >= 15);
	expect_error("[j]\nphases = read\ntime_based = true\n",
		     "[j] time_based = true needs runtime: the time limit it runs to", NULL);
	expect_error("[j]\nphases = read\nseries = true\nthreads = 2\n",
		     "[j] series = true cannot be used with threads = 2: series times", NULL);
	expect_error("[j]\nfill_once = true\nphases = write,verify\n",
		     "[j] fill_once = true cannot be used with phases = write,verify", NULL);
	expect_error("[j]\nfill_device = true\naccess = rand\n",
		     "[j] fill_device = true needs access = seq: fill_device writes one file in order", NULL);
	expect_error("[j]\nfill_device = true\nthreads = 2\n",
		     "[j] fill_device = true cannot be used with threads = 2", NULL);
	expect_error("[j]\nfsync_every = 8\niodepth = 4\nbackend = io_uring\n",
		     "[j] fsync_every = 8 needs iodepth = 1: fsync_every counts the writes", NULL);
	expect_error("[j]\nthinktime_spin = 1ms\n", "[j] thinktime_spin = 1ms needs thinktime", NULL);
	expect_error("[j]\nshared_whole = true\n", "[j] shared_whole = true needs shared_file", NULL);
	expect_error("[j]\nlivecsv = x.csv\n", "[j] livecsv = x.csv needs log_interval", NULL);
	expect_error("[j]\nsteady_state = iops\nuntil_ci = 5%\n",
		     "[j] steady_state = iops cannot be used with until_ci = 5%", NULL);
	/* a value other than the default that the rule allows passes */
	/* and continue_on_error and ignore_error at any iodepth (the queued loop passes over them too) */
	static const char *const allowed[] = {
	    "[j]\nphases = read\ntime_based = true\nruntime = 1s\naccess = rand\nreopen = true\nfill_once = true\n",
	    "[j]\naccess = rand\ncontinue_on_error = read\nignore_error = EIO,EIO\niodepth = 4\nbackend = io_uring\n"};
	for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++) {
		struct iob_suite suite;
		assert_int_equal(iob_profile_load_string("ok", allowed[i], &suite, err, sizeof err), 0);
		assert_int_equal(iob_job_validate(&suite.jobs[0], err, sizeof err), 0);
		iob_suite_free(&suite);
	}
}

/* ---- exactness: BOM, include depth ---------------------------------------- */

static void test_bom(void **s)
{
	(void)s;
	struct iob_suite suite;
	char err[1024] = "";
	put("bom-inc.ini", "\xef\xbb\xbf[global]\nblock_size = 8K\n\n[inc-job]\n");
	const char *p = put("bom.ini", "\xef\xbb\xbf[global]\ninclude = bom-inc.ini\nsize = 1M\n[top-job]\n");
	if (iob_profile_load(p, &suite, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(suite.njobs, 2);
	assert_string_equal(suite.jobs[0].name, "inc-job");
	assert_int_equal(suite.jobs[0].block_size, 8192);
	assert_string_equal(suite.jobs[1].name, "top-job");
	assert_int_equal(suite.jobs[1].size, 1048576);
	assert_int_equal(suite.jobs[1].block_size, 8192);
	iob_suite_free(&suite);
	assert_int_equal(
	    iob_profile_load_string("m", "\xef\xbb\xbf[m]\nsize = 4K\n", &suite, err, sizeof err), 0);
	assert_string_equal(suite.jobs[0].name, "m");
	iob_suite_free(&suite);
	/* a first key line works too; an error still names the user's file */
	p = put("bom-key.ini", "\xef\xbb\xbf[j]\nsize = 2K\n");
	assert_int_equal(iob_profile_load(p, &suite, err, sizeof err), 0);
	assert_int_equal(suite.jobs[0].size, 2048);
	iob_suite_free(&suite);
	expect_error("\xef\xbb\xbf[j]\nsize = 2X\n", "bad.ini: [j] size", "unknown unit");
	/* only at the very start: elsewhere it is not skipped */
	expect_error("[j]\n\xef\xbb\xbfsize = 1M\n", "unknown key", NULL);
	expect_error(" \xef\xbb\xbf[j]\n", "expected 'key = value'", NULL);
}

/* inc1.ini includes inc2.ini ... incN.ini: `levels` nested includes below
 * the profile. */
static int load_nested(int levels, char *err, size_t errlen)
{
	char name[32], text[128];
	for (int i = 1; i <= levels; i++) {
		snprintf(name, sizeof name, "inc%d.ini", i);
		if (i < levels)
			snprintf(text, sizeof text, "[global]\ninclude = inc%d.ini\n", i + 1);
		else
			snprintf(text, sizeof text, "[global]\nsize = 12K\n");
		put(name, text);
	}
	const char *p = put("nest.ini", "[global]\ninclude = inc1.ini\n[j]\n");
	struct iob_suite suite;
	int rc = iob_profile_load(p, &suite, err, errlen);
	if (rc == 0) {
		assert_int_equal(suite.jobs[0].size, 12288);
		iob_suite_free(&suite);
	}
	return rc;
}

static void test_include_depth(void **s)
{
	(void)s;
	char err[1024] = "";
	if (load_nested(IOB_MAX_INCLUDE_DEPTH, err, sizeof err) != 0)
		fail_msg("16 nested includes refused: %s", err);
	assert_int_equal(IOB_MAX_INCLUDE_DEPTH, 16); /* docs/profiles.md says 16 */
	assert_int_equal(load_nested(IOB_MAX_INCLUDE_DEPTH + 1, err, sizeof err), -ELOOP);
	assert_non_null(strstr(err, "inc17.ini: includes nested more than 16 deep"));
	assert_null(strchr(err, '\n'));
}

/* Each row's range is checked on a job however it was built: the defaults
 * pass, a value one past either end fails naming the key and the value. */
static void test_key_ranges(void **s)
{
	(void)s;
	size_t n, ranged = 0;
	const struct iob_key *k = iob_keys(&n);
	struct iob_job dflt, job;
	char err[512], want[128];
	iob_job_defaults(&dflt);
	snprintf(dflt.name, sizeof dflt.name, "r");
	assert_int_equal(iob_keys_check_ranges(&dflt, err, sizeof err), 0);
	for (size_t i = 0; i < n; i++) {
		if (!k[i].min && !k[i].max)
			continue;
		ranged++;
		assert_true(k[i].width == 4 || k[i].width == 8);
		assert_true(!k[i].max || k[i].min <= k[i].max);
		uint64_t bad[2] = {k[i].min - 1, k[i].max + 1};
		for (int e = 0; e < 2; e++) {
			if ((e == 0 && k[i].min == 0) || (e == 1 && !k[i].max))
				continue;
			job = dflt;
			if (k[i].width == 4) {
				uint32_t v = (uint32_t)bad[e];
				memcpy((char *)&job + k[i].offset, &v, 4);
			} else {
				memcpy((char *)&job + k[i].offset, &bad[e], 8);
			}
			err[0] = '\0';
			assert_int_equal(iob_keys_check_ranges(&job, err, sizeof err), -EINVAL);
			assert_int_equal(iob_job_validate(&job, err, sizeof err), -EINVAL);
			snprintf(want, sizeof want, "[r] %s ", k[i].name);
			if (!strstr(err, want))
				fail_msg("%s: '%s'", k[i].name, err);
		}
	}
	assert_true(ranged >= 7);
}

/* Every row that names a record field is in a phase record (result.c
 * writes them from the table), and the keys that change the load name one. */
static void test_keys_recorded(void **s)
{
	(void)s;
	size_t n, recorded = 0;
	const struct iob_key *k = iob_keys(&n);
	static struct iob_recbuf b;
	struct iob_phase_result r;
	struct iob_job job;
	memset(&r, 0, sizeof r);
	r.phase = IOB_PHASE_READ;
	r.block_size = 4096;
	iob_job_defaults(&job);
	snprintf(job.name, sizeof job.name, "rec");
	iob_rec_phase(&b, &job, "f", &r);
	for (size_t i = 0; i < n; i++) {
		if (!k[i].record)
			continue;
		recorded++;
		if (!iob_rec_get(&b.rec, k[i].record))
			fail_msg("key %s: record field %s is not in the phase record", k[i].name, k[i].record);
	}
	const char *load[] = {"threads",	 "iodepth",	"rwmix_read",	"runtime",	"time_based",
			      "ramp_time",	 "backend_options", "random_map", "offset_align", "memory_limit",
			      "ops",		 "loops",	"shared_file",	"stonewall",	"evict_before_read"};
	for (size_t i = 0; i < sizeof load / sizeof load[0]; i++) {
		const struct iob_key *key = iob_key_find(load[i]);
		assert_non_null(key);
		if (!key->record)
			fail_msg("key %s changes the load but names no record field", load[i]);
	}
	assert_true(recorded >= sizeof load / sizeof load[0]);
}

static void test_keys_print(void **s)
{
	(void)s;
	size_t n;
	const struct iob_key *k = iob_keys(&n);
	for (int md = 0; md <= 1; md++) {
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		assert_non_null(f);
		assert_int_equal(iob_keys_print(f, md), 0);
		fclose(f);
		/* a header (two lines for markdown), then one line per key, in order */
		char *line = text;
		size_t lines = 0;
		for (char *nl; (nl = strchr(line, '\n')); line = nl + 1, lines++) {
			*nl = '\0';
			size_t row = lines - (md ? 2 : 1);
			if (lines < (md ? 2u : 1u))
				continue;
			assert_true(row < n);
			char want[64];
			snprintf(want, sizeof want, md ? "| `%s` | " : "%s ", k[row].name);
			if (strncmp(line, want, strlen(want)) != 0)
				fail_msg("line '%s' does not start with '%s'", line, want);
			assert_non_null(strstr(line, k[row].meaning));
			if (md)
				assert_true(line[strlen(line) - 1] == '|');
		}
		assert_int_equal(lines, n + (md ? 2 : 1));
		free(text);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_inheritance_and_order),
	    cmocka_unit_test(test_include_and_env),
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_key_ranges),
	    cmocka_unit_test(test_keys_recorded),
	    cmocka_unit_test(test_round_trip_global_override),
	    cmocka_unit_test(test_round_trip_awkward_text),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_include_loop),
	    cmocka_unit_test(test_binary_junk),
	    cmocka_unit_test(test_load_string),
	    cmocka_unit_test(test_key_table),
	    cmocka_unit_test(test_every_key_round_trips),
	    cmocka_unit_test(test_unknown_key_hint),
	    cmocka_unit_test(test_new_keys),
	    cmocka_unit_test(test_key_rules),
	    cmocka_unit_test(test_bom),
	    cmocka_unit_test(test_include_depth),
	    cmocka_unit_test(test_keys_print),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
