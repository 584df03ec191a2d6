/* Unit tests for the fio job file reader: the jobs it gives, field by field
 * (groups from stonewalls, engines and direct, numjobs and filename, the
 * amount of work, syncs, seeds), the preparing jobs that lay out what a
 * read job needs, several [global] sections, --set and --fio-ignore. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "iobench/fiojob.h"

#define SCRATCH_NAME "fiojob"
#include "scratch.h"

static char err[2048];

/* Load text with the files in tmpdir (and more options); 0 or the error. */
static int load(const char *text, struct iob_suite *s, const char *const *sets, size_t nsets, const char *ignore)
{
	const struct iob_fio_opts o = {.dir = tmpdir, .sets = sets, .nsets = nsets, .ignore = ignore};
	err[0] = '\0';
	return iob_fio_load_string("t.fio", text, &o, s, err, sizeof err);
}

static const struct iob_job *find(const struct iob_suite *s, const char *name)
{
	for (size_t i = 0; i < s->njobs; i++)
		if (strcmp(s->jobs[i].name, name) == 0)
			return &s->jobs[i];
	fail_msg("no job %s", name);
	return NULL;
}

static void test_groups(void **st)
{
	(void)st;
	struct iob_suite s;
	assert_int_equal(load("[global]\nsize=1m\nrw=write\n[a]\n[b]\n[c]\nstonewall\n[d]\n[e]\nwait_for_previous\n"
			      "[f]\nnew_group\n",
			      &s, NULL, 0, NULL),
			 0);
	assert_int_equal(s.njobs, 6);
	const char *names = "abcdef";
	const uint32_t groups[] = {1, 1, 2, 2, 3, 3};
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(s.jobs[i].name[0], names[i]);
		assert_int_equal(s.jobs[i].group, groups[i]);
	}
	assert_int_equal(s.nnotes, 1); /* new_group stays in its group, noted */
	assert_non_null(strstr(s.notes[0], "new_group without stonewall"));
	assert_non_null(strstr(s.notes[0], "(job f)"));
	iob_suite_free(&s);
}

static void test_engines(void **st)
{
	(void)st;
	struct iob_suite s;
	assert_int_equal(load("[global]\nsize=1m\nrw=write\n"
			      "[p]\n[pd]\ndirect=1\n[sy]\nioengine=sync\nbuffered=0\n[pv]\nioengine=pvsync\niodepth=8\n"
			      "[la]\nioengine=libaio\niodepth=16\ndirect=1\n[ur]\ndirect=1\nioengine=io_uring\n[mm]\n"
			      "ioengine=mmap\n",
			      &s, NULL, 0, NULL),
			 0);
	assert_string_equal(find(&s, "p")->backend, "posix");
	assert_string_equal(find(&s, "pd")->backend, "direct");
	assert_string_equal(find(&s, "sy")->backend, "direct");
	assert_string_equal(find(&s, "pv")->backend, "posix");
	assert_int_equal(find(&s, "pv")->iodepth, 1); /* a synchronous engine: depth 1, noted */
	assert_string_equal(find(&s, "la")->backend, "libaio");
	assert_string_equal(find(&s, "la")->backend_options, "direct=1");
	assert_int_equal(find(&s, "la")->iodepth, 16);
	assert_string_equal(find(&s, "ur")->backend_options, "direct=1"); /* direct before ioengine */
	assert_string_equal(find(&s, "mm")->backend, "mmap");
	int sync_note = 0, depth_note = 0, aio_note = 0;
	for (size_t i = 0; i < s.nnotes; i++) {
		sync_note += strstr(s.notes[i], "ioengine=sync runs on iobench's direct backend") != NULL &&
			     strstr(s.notes[i], "(job sy)") != NULL;
		depth_note += strstr(s.notes[i], "iodepth=8 has no effect with ioengine=pvsync") != NULL;
		aio_note += strstr(s.notes[i], "ioengine=libaio") != NULL; /* a backend of its own: no note */
	}
	assert_int_equal(sync_note + depth_note, 2);
	assert_int_equal(aio_note, 0);
	iob_suite_free(&s);
	assert_int_not_equal(load("[j]\nsize=1m\ndirect=1\nbuffered=1\n", &s, NULL, 0, NULL), 0);
	assert_non_null(strstr(err, "buffered=1: contradicts direct=1"));
}

/* ioengine=null: the null backend at the job's depth, and no layout job
 * before a read (it reads no file), as fio's null engine lays out nothing. */
static void test_engine_null(void **st)
{
	(void)st;
	struct iob_suite s;
	assert_int_equal(load("[n]\nioengine=null\nrw=randread\nbs=4k\nsize=1g\niodepth=32\n", &s, NULL, 0, NULL), 0);
	assert_int_equal(s.njobs, 1);
	assert_string_equal(s.jobs[0].backend, "null");
	assert_int_equal(s.jobs[0].iodepth, 32);
	for (size_t i = 0; i < s.nnotes; i++)
		assert_null(strstr(s.notes[i], "laid out"));
	iob_suite_free(&s);
}

static void test_streams_and_files(void **st)
{
	(void)st;
	struct iob_suite s;
	assert_int_equal(load("[global]\nsize=1m\nrw=randwrite\nnumjobs=4\n[own]\n[shared]\nfilename=one.dat\n"
			      "[path]\nnumjobs=1\nfilename=sub/x.dat\ndirectory=/somewhere\n",
			      &s, NULL, 0, NULL),
			 0);
	const struct iob_job *own = find(&s, "own"), *sh = find(&s, "shared"), *p = find(&s, "path");
	assert_int_equal(own->threads, 4);
	assert_false(own->shared_file);
	assert_string_equal(own->filename, "own.0.0");
	assert_true(sh->shared_file);
	assert_string_equal(sh->filename, "one.dat");
	assert_string_equal(p->filename, "x.dat");
	assert_string_equal(p->dir, tmpdir); /* --dir wins over directory and the path */
	assert_true(own->keep_files && own->evict_before_read && !own->fsync && own->random_map);
	iob_suite_free(&s);
	const struct iob_fio_opts o = {0};
	assert_int_equal(iob_fio_load_string("t.fio", "[j]\nsize=1m\nrw=write\ndirectory=/a\\:b\nfilename=/x/y/z.dat\n",
					     &o, &s, err, sizeof err),
			 0);
	assert_string_equal(s.jobs[0].dir, "/x/y");
	assert_string_equal(s.jobs[0].filename, "z.dat");
	iob_suite_free(&s);
	assert_int_equal(iob_fio_load_string("t.fio", "[j]\nsize=1m\nrw=write\ndirectory=/a\\:b\nfilename=sub/z.dat\n", &o,
					     &s, err, sizeof err),
			 0);
	assert_string_equal(s.jobs[0].dir, "/a:b/sub");
	iob_suite_free(&s);
}

static void test_work(void **st)
{
	(void)st;
	struct iob_suite s;
	assert_int_equal(load("[global]\nbs=4k\n"
			      "[r]\nrw=randwrite\nsize=1m\n[rl]\nrw=randwrite\nsize=1m\nloops=3\n"
			      "[rn]\nrw=randwrite\nsize=1m\nnumber_ios=10\n[ri]\nrw=randwrite\nsize=1m\nio_size=64k\n"
			      "[rt]\nrw=randwrite\nsize=1m\nruntime=2\ntime_based\n[s]\nrw=write\nsize=1m\nio_size=3m\nloops=2\n"
			      "[sf]\nrw=write\nsize=2m\nfilesize=1m\n[st]\nrw=write\nsize=1m\ntime_based\nruntime=1m\n"
			      "[mix]\nrw=rw\nsize=1m\nrwmixwrite=30\n",
			      &s, NULL, 0, NULL),
			 0);
	assert_int_equal(find(&s, "r")->ops, 256);
	assert_int_equal(find(&s, "rl")->ops, 768);
	assert_int_equal(find(&s, "rn")->ops, 10);
	assert_int_equal(find(&s, "ri")->ops, 16);
	assert_int_equal(find(&s, "rt")->ops, 0); /* no end but the runtime */
	assert_int_equal(find(&s, "rt")->runtime_ns, 2000000000ull);
	assert_int_equal(find(&s, "s")->loops, 6);
	assert_int_equal(find(&s, "sf")->size, 1 << 20);
	assert_int_equal(find(&s, "sf")->loops, 2);
	assert_int_equal(find(&s, "st")->loops, UINT32_MAX);
	assert_int_equal(find(&s, "st")->runtime_ns, 60000000000ull);
	assert_int_equal(find(&s, "mix")->phases, IOB_PHASE_BIT(IOB_PHASE_MIXED));
	assert_int_equal(find(&s, "mix")->access, IOB_ACCESS_SEQ);
	assert_int_equal(find(&s, "mix")->rwmix_read, 70);
	iob_suite_free(&s);
}

/* fio's meaning of keys that read like something else (issue 24): the
 * per-direction bs, number_ios as a cap, loop counts that would wrap, and
 * unlink=1 reaching the laid-out file.  Figures from fio 3.33's own runs
 * (tests/fio, case fio_oracle, compares them live). */
static void test_fio_meaning(void **st)
{
	(void)st;
	struct iob_suite s;
	assert_int_equal(load("[global]\nsize=64k\n"
			      "[rd]\nrw=read\nbs=,8k\n[wr]\nrw=write\nbs=,8k\n[rd2]\nrw=read\nbs=16k,\n"
			      "[wr2]\nrw=write\nbs=16k,\n[mix]\nrw=randrw\nbs=8k,8k,64k\n"
			      "[capover]\nrw=randread\nnumber_ios=100\n[cap]\nrw=randread\nnumber_ios=4\nloops=2\n"
			      "[seqcap]\nrw=write\nio_size=192k\nnumber_ios=32\n[seqover]\nrw=write\nnumber_ios=99\n"
			      "[keep]\nrw=read\n[gone]\nrw=read\nunlink=1\n",
			      &s, NULL, 0, NULL),
			 0);
	assert_int_equal(find(&s, "rd")->block_size, 4096);
	assert_int_equal(find(&s, "wr")->block_size, 8192);
	assert_int_equal(find(&s, "rd2")->block_size, 16384);
	assert_int_equal(find(&s, "wr2")->block_size, 4096);
	assert_int_equal(find(&s, "mix")->block_size, 8192);
	assert_int_equal(find(&s, "capover")->ops, 16);
	assert_int_equal(find(&s, "cap")->ops, 8);
	assert_int_equal(find(&s, "seqcap")->loops, 2);
	assert_int_equal(find(&s, "seqover")->loops, 1);
	assert_int_equal(find(&s, "gone")->keep_files, 0);
	int keep = -1, gone = -1;
	for (size_t i = 0; i < s.njobs; i++) {
		if (strcmp(s.jobs[i].name, "keep.layout") == 0)
			keep = s.prepare[i];
		if (strcmp(s.jobs[i].name, "gone.layout") == 0)
			gone = s.prepare[i];
	}
	assert_int_equal(keep, IOB_PREPARE_KEEP);
	assert_int_equal(gone, IOB_PREPARE_UNLINK);
	iob_suite_free(&s);
	/* refused, one line each */
	static const struct {
		const char *text, *want;
	} no[] = {
	    {"[j]\nsize=64k\nrw=randrw\nbs=4k,8k\n", "reads of 4096 and writes of 8192 bytes"},
	    {"[j]\nsize=64k\nrw=rw\nbs=,8k\n", "reads of 4096 and writes of 8192 bytes"},
	    {"[j]\nsize=64k\nbs=4k,4k,4k,4k\n", "at most three sizes"},
	    {"[j]\nsize=64k\nbs=,\n", "needs a size"},
	    {"[j]\nrw=write\nfilesize=2\nbs=1\nio_size=1t\nnumber_ios=8589934593\nloops=4294967295\n",
	     "4294967295 loops of 8589934593 I/Os is over 2^64 I/Os"},
	    {"[j]\nrw=write\nfilesize=1\nio_size=9223372036854775809\nbs=1\nloops=2\n", "over iobench's limit"},
	    {"[j]\nrw=write\nfilesize=1\nio_size=4294967296\nbs=1\n", "over iobench's limit"},
	    {"[j]\nrw=randwrite\nsize=9223372036854775809\nbs=1\nloops=2\n", "over 2^64 I/Os"},
	};
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
		int rc = load(no[i].text, &s, NULL, 0, NULL);
		if (rc == 0)
			iob_suite_free(&s);
		assert_int_not_equal(rc, 0);
		if (!strstr(err, no[i].want))
			fail_msg("%s: '%s' lacks '%s'", no[i].text, err, no[i].want);
		assert_null(strchr(err, '\n'));
	}
}

static void test_globals_add_up(void **st)
{
	(void)st;
	struct iob_suite s;
	/* the second [global] changes bs for the jobs after it only; kb_base
	 * applies to the job's sizes wherever it is written */
	assert_int_equal(load("[global]\nsize=1m\nrw=write\nbs=4k\n[a]\n[global]\nbs=8k\n[b]\n[c]\nkb_base=1000\n"
			      "; c: 8k is 8000\n",
			      &s, NULL, 0, NULL),
			 0);
	assert_int_equal(find(&s, "a")->block_size, 4096);
	assert_int_equal(find(&s, "b")->block_size, 8192);
	assert_int_equal(find(&s, "b")->size, 1 << 20);
	assert_int_equal(find(&s, "c")->block_size, 8000);
	assert_int_equal(find(&s, "c")->size, 1000000);
	iob_suite_free(&s);
}

static void test_layout(void **st)
{
	(void)st;
	struct iob_suite s;
	/* w writes and keeps w.dat: r (a later group) reads it as it is; q's
	 * file is missing, so a preparing job comes before q's group (q runs
	 * with p, and the layout goes before p) */
	assert_int_equal(load("[global]\nsize=1m\n[w]\nrw=write\nfilename=w.dat\n[r]\nstonewall\nrw=read\nfilename=w.dat\n"
			      "[p]\nstonewall\nrw=write\n[q]\nrw=randread\n",
			      &s, NULL, 0, NULL),
			 0);
	assert_int_equal(s.njobs, 5);
	assert_string_equal(s.jobs[2].name, "q.layout");
	assert_true(s.prepare[2]);
	assert_int_equal(s.jobs[2].group, 0);
	assert_int_equal(s.jobs[2].phases, IOB_PHASE_BIT(IOB_PHASE_WRITE));
	assert_true(s.jobs[2].keep_files && s.jobs[2].fsync);
	assert_string_equal(s.jobs[2].filename, "q.0.0");
	assert_string_equal(s.jobs[3].name, "p");
	assert_string_equal(s.jobs[4].name, "q");
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(s.prepare[i], i == 2);
	iob_suite_free(&s);
	/* a file that is there and long enough is not laid out; a shorter one is */
	char path[512];
	snprintf(path, sizeof path, "%s/there.dat", tmpdir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(ftruncate(fileno(f), 1 << 20), 0);
	fclose(f);
	assert_int_equal(load("[r]\nrw=read\nsize=1m\nfilename=there.dat\n", &s, NULL, 0, NULL), 0);
	assert_int_equal(s.njobs, 1);
	iob_suite_free(&s);
	assert_int_equal(load("[r]\nrw=read\nsize=2m\nfilename=there.dat\n", &s, NULL, 0, NULL), 0);
	assert_int_equal(s.njobs, 2);
	assert_true(s.prepare[0]);
	iob_suite_free(&s);
}

static void test_set_and_ignore(void **st)
{
	(void)st;
	struct iob_suite s;
	const char *const sets[] = {"size=2m", "timeout=3", "rw=randread"};
	assert_int_equal(load("[global]\nsize=1g\nruntime=900\ncpuload=1m\n[a]\nrw=write\nsize=10g\nexec_prerun=x\n", &s, sets,
			      3, "cpuload,exec_prerun"),
			 0);
	const struct iob_job *a = find(&s, "a");
	assert_int_equal(a->size, 2 << 20);
	assert_int_equal(a->runtime_ns, 3000000000ull);
	assert_int_equal(a->access, IOB_ACCESS_RAND);
	int ignored = 0;
	for (size_t i = 0; i < s.nnotes; i++)
		ignored += strstr(s.notes[i], "--fio-ignore asked (the run differs from fio's there): cpuload, exec_prerun") != NULL;
	assert_int_equal(ignored, 1);
	iob_suite_free(&s);
	/* every unknown key in one line, in file order, once each */
	assert_int_not_equal(load("[global]\ncpuload=1m\nsize=1m\n[a]\nexec_prerun=x\ncpuload=2m\n[b]\nread_beyond_wp=0\n", &s, NULL, 0,
				  NULL),
			     0);
	assert_non_null(strstr(err, "fio keys iobench does not support: cpuload, exec_prerun, read_beyond_wp ("));
	assert_null(strchr(err, '\n'));
	assert_int_equal(s.njobs, 0);
}

static void test_seeds(void **st)
{
	(void)st;
	struct iob_suite s;
	assert_int_equal(load("[global]\nsize=1m\nrw=randread\n[a]\n[b]\nrandseed=99\n[c]\nrandrepeat=0\n", &s, NULL, 0,
			      NULL),
			 0);
	struct iob_job def;
	iob_job_defaults(&def);
	/* jobs 0..2 are the preparing jobs, one for each reader's missing file */
	assert_int_equal(find(&s, "a")->seed, def.seed);
	assert_int_equal(find(&s, "b")->seed, 99);
	assert_int_equal(find(&s, "b")->pattern.seed, 99);
	char want[64];
	snprintf(want, sizeof want, "randseed=%llu repeats this run", (unsigned long long)find(&s, "c")->seed);
	int found = 0;
	for (size_t i = 0; i < s.nnotes; i++)
		found += strstr(s.notes[i], want) != NULL;
	assert_int_equal(found, 1);
	iob_suite_free(&s);
}

static void test_keys_print(void **st)
{
	(void)st;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_int_equal(iob_fio_keys_print(f, 1), 0);
	fclose(f);
	assert_non_null(strstr(text, "| `rw` | `readwrite` | access, phases |"));
	assert_non_null(strstr(text, "| `runtime` | `timeout` | runtime |"));
	assert_non_null(strstr(text, "| `stonewall` | `wait_for_previous` | group |"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_groups),	    cmocka_unit_test(test_engines), cmocka_unit_test(test_engine_null),
	    cmocka_unit_test(test_streams_and_files), cmocka_unit_test(test_work), cmocka_unit_test(test_fio_meaning),
	    cmocka_unit_test(test_globals_add_up),  cmocka_unit_test(test_layout),
	    cmocka_unit_test(test_set_and_ignore),  cmocka_unit_test(test_seeds),
	    cmocka_unit_test(test_keys_print),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
