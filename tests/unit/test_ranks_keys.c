/* Unit test of what MPI ranks compare of a job (core/src/ranks.c): every
 * field of struct iob_job is a key row's (keys.c), one of ranks.c's extras,
 * or left out on purpose, so a field added to job.h without a key row is
 * caught here; the pattern key's struct likewise; and the parts fit
 * IOB_COORD_PARTS_MAX.
 *
 * The lists of fields below are written by hand from job.h and pattern.h;
 * test_lists_complete checks that they tile each struct (every byte of it
 * a listed field's or the padding its alignment forces), so a new field in
 * job.h is caught as a gap, or as a size that no longer adds up. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "iobench/coord.h"
#include "iobench/job.h"
#include "iobench/profile.h"
#include "ranks.h"

struct field {
	const char *name;
	size_t off, len, align;
};
#define J(f) {#f, offsetof(struct iob_job, f), sizeof(((struct iob_job *)0)->f), __alignof__(((struct iob_job *)0)->f)}
#define P(f)                                                                                                           \
	{#f, offsetof(struct iob_pattern, f), sizeof(((struct iob_pattern *)0)->f),                                    \
	 __alignof__(((struct iob_pattern *)0)->f)}

static const struct field job_fields[] = {
	J(name), J(backend), J(dir), J(filename), J(layout), J(tree_levels), J(tree_files), J(access), J(phases),
	J(block_size), J(block_size_max), J(size), J(ops), J(loops), J(offset_align), J(skip_past_end), J(pattern),
	J(seed), J(fsync), J(truncate), J(reopen), J(keep_files), J(allow_devices), J(evict_before_read),
	J(fill_once), J(random_map), J(series), J(series_clock), J(latency), J(follow_symlinks), J(backend_options),
	J(threads), J(numa_cpu_nodes), J(numa_mem_policy), J(shared_file), J(iodepth), J(memory_limit), J(runtime_ns), J(time_based), J(stonewall_ns),
	J(ramp_ns), J(rwmix_read), J(log_interval_ns), J(bw_log), J(iops_log), J(lat_log), J(log_offset), J(livecsv), J(group),
	J(repeat), J(until_ci), J(repeat_max), J(steady_state), J(steady_window), J(steady_round),
	J(steady_max_rounds), J(steady_ramp_ns), J(steady_rule), J(steady_range), J(steady_slope), J(steady_limit),
	J(verify_dump), J(workload), J(meta_phases), J(files), J(tree_depth), J(tree_branch),
	J(dir_per_stream), J(file_bytes), J(file_fsync), J(stat_other), J(drop_caches), J(path_walk), J(bssplit),
	J(random_distribution), J(random_sequence_stride), J(rate), J(rate_iops), J(rate_process), J(thinktime_ns), J(thinktime_spin_ns),
	J(thinktime_blocks), J(seq_add), J(rand_run), J(sprandom), J(spr_num_regions), J(spr_op), J(spr_cs), J(rate_min),
	J(rate_iops_min), J(start_delay_ns), J(shared_whole), J(continue_on_error), J(ignore_error), J(exit_others),
	J(report_group), J(exit_report),
	J(offset), J(offset_increment), J(zone_size), J(zone_range), J(zone_skip), J(percentiles),
	J(flow), J(flow_id), J(flow_sleep_ns), J(fill_device), J(cmdprio_percentage), J(cmdprio_class),
	J(cmdprio_level), J(cmdprio_bssplit), J(log_prio), J(load),
};
static const struct field pattern_fields[] = {
	P(kind), P(byte), P(complement), P(seed), P(hex), P(nhex), P(verify), P(verify_interval),
	P(verify_generation), P(block_size), P(compress_pct), P(compress_chunk), P(dedupe_pct),
	P(dedupe_mode), P(dedupe_ws_pct), P(dedupe_global), P(dedupe_member), P(dedupe_members), P(dedupe_blocks),
};
#define L(f)                                                                                                           \
	{#f, offsetof(struct iob_load, f), sizeof(((struct iob_load *)0)->f), __alignof__(((struct iob_load *)0)->f)}
/* load.h: every field is a key row's */
static const struct field load_fields[] = {
	L(verify_fatal), L(verify_backlog), L(verify_backlog_batch), L(fsync_every), L(prio_class), L(prio_level), L(seq_ops), L(latency_target), L(latency_window),
	L(latency_percentile), L(latency_run),
};
#define COUNT(a) (sizeof a / sizeof a[0])

/* The fields, in order, leave no gap but alignment's, and end where the
 * struct ends but for its own alignment. */
static void tiles(const struct field *f, size_t n, size_t size, size_t align, const char *what)
{
	size_t at = 0;
	for (size_t i = 0; i < n; i++) {
		size_t want = (at + f[i].align - 1) / f[i].align * f[i].align;
		if (f[i].off != want)
			fail_msg("%s: %s at %zu, expected at %zu: a field of %s is missing from this test's list (and "
				 "from ranks.c's settings?)",
				 what, f[i].name, f[i].off, want, what);
		at = f[i].off + f[i].len;
	}
	size_t end = (at + align - 1) / align * align;
	if (end != size)
		fail_msg("%s: the listed fields end at %zu (%zu aligned), the struct at %zu: a field is missing from "
			 "this test's list",
			 what, at, end, size);
}

static void test_lists_complete(void **st)
{
	(void)st;
	tiles(job_fields, COUNT(job_fields), sizeof(struct iob_job), __alignof__(struct iob_job), "struct iob_job");
	tiles(pattern_fields, COUNT(pattern_fields), sizeof(struct iob_pattern), __alignof__(struct iob_pattern),
	      "struct iob_pattern");
	tiles(load_fields, COUNT(load_fields), sizeof(struct iob_load), __alignof__(struct iob_load), "struct iob_load");
}

/* [off, off + len) lies within one of the fields. */
static const char *within(const struct iob_ranks_field *f, size_t n, size_t base, size_t off, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (off >= base + f[i].off && off + len <= base + f[i].off + f[i].len)
			return f[i].name;
	return NULL;
}

/* The key row (with a field) that holds [off, off + len), or NULL. */
static const struct iob_key *row_of(size_t off, size_t len, int pattern_too)
{
	size_t n;
	const struct iob_key *keys = iob_keys(&n);
	for (size_t i = 0; i < n; i++) {
		if (!keys[i].width || (!pattern_too && keys[i].type == IOB_KEY_PATTERN))
			continue;
		if (off >= keys[i].offset && off + len <= keys[i].offset + keys[i].width)
			return &keys[i];
	}
	return NULL;
}

static void test_every_field_compared(void **st)
{
	(void)st;
	size_t nx, nu, np, nk;
	const struct iob_ranks_field *x = iob_ranks_extras(&nx), *u = iob_ranks_unshared(&nu),
				     *pf = iob_ranks_pattern_fields(&np);
	const struct iob_key *keys = iob_keys(&nk);
	const struct iob_key *pat = NULL;
	for (size_t i = 0; i < nk; i++)
		if (keys[i].type == IOB_KEY_PATTERN)
			pat = &keys[i];
	assert_non_null(pat);
	assert_int_equal(pat->offset, offsetof(struct iob_job, pattern));
	assert_int_equal(pat->width, sizeof(struct iob_pattern));
	for (size_t i = 0; i < COUNT(job_fields); i++) {
		const struct field *f = &job_fields[i];
		if (f->off == pat->offset || f->off == offsetof(struct iob_job, load))
			continue; /* field by field below */
		const struct iob_key *k = row_of(f->off, f->len, 0);
		const char *e = within(x, nx, 0, f->off, f->len), *l = within(u, nu, 0, f->off, f->len);
		if (!k && !e && !l)
			fail_msg("struct iob_job's %s is no key's field, nor one of ranks.c's extras: MPI ranks would "
				 "not compare it",
				 f->name);
		if (k && e)
			fail_msg("%s is key %s's field and an extra of ranks.c", f->name, k->name);
	}
	/* the pattern: the pattern key's own fields, other keys' or left out */
	for (size_t i = 0; i < COUNT(pattern_fields); i++) {
		const struct field *f = &pattern_fields[i];
		size_t off = pat->offset + f->off;
		const struct iob_key *k = row_of(off, f->len, 0);
		const char *p = within(pf, np, 0, f->off, f->len), *l = within(u, nu, 0, off, f->len);
		if (!k && !p && !l)
			fail_msg("struct iob_pattern's %s is no key's field, nor compared with the pattern key: MPI "
				 "ranks would not compare it",
				 f->name);
	}
	/* the keys the engine reads as they are set (load.h): each a key row's */
	for (size_t i = 0; i < COUNT(load_fields); i++) {
		const struct field *f = &load_fields[i];
		if (!row_of(offsetof(struct iob_job, load) + f->off, f->len, 0))
			fail_msg("struct iob_load's %s is no key's field: add its row to keys.c (FIELD(load.%s))", f->name,
				 f->name);
	}
	/* and the extras and left-out fields are real fields of the job */
	for (size_t i = 0; i < nx + nu; i++) {
		const struct iob_ranks_field *f = i < nx ? &x[i] : &u[i - nx];
		assert_true(f->off + f->len <= sizeof(struct iob_job));
		assert_null(row_of(f->off, f->len, 0));
	}
	for (size_t i = 0; i < np; i++)
		assert_true(pf[i].off + pf[i].len <= sizeof(struct iob_pattern));
}

/* A part per compared key and extra (a refusal names the key), and they fit
 * IOB_COORD_PARTS_MAX with room for jobs' own parts. */
static void test_parts_fit(void **st)
{
	(void)st;
	size_t nk, n = iob_ranks_setting_parts();
	const struct iob_key *keys = iob_keys(&nk);
	size_t with = 0;
	for (size_t i = 0; i < nk; i++)
		with += keys[i].width != 0;
	size_t nx;
	(void)iob_ranks_extras(&nx);
	assert_true(n >= nx + 1 && n <= with + nx);
	/* 3 parts before the settings, and room for 16 jobs' own parts after */
	if (3 + n + 16 > IOB_COORD_PARTS_MAX)
		fail_msg("%zu settings leave fewer than 16 parts for jobs of %d: raise IOB_COORD_PARTS_MAX (coord.h)", n,
			 IOB_COORD_PARTS_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lists_complete),
	    cmocka_unit_test(test_every_field_compared),
	    cmocka_unit_test(test_parts_fit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
