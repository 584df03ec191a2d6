/*
 * fiojob_rows.h - the fio keys: one row each, the only place a fio key is
 * named (fiojob_int.h, docs/architecture.md "Adding a key").  Included twice,
 * with FJ_CODE and FJ_ROW defined by the includer: fiojob_int.h makes
 * enum fkey of the FJ_CODE rows, fiojob_keys.c the table fj_keys of all.
 *
 * FJ_CODE(K_NAME, name, aliases, iobench, how[, as, ikey, refuse]): a key
 * that mapping code (fiojob_map*.c) reads as fj_get(m, K_NAME) and the
 * like; these rows come first, and their order is enum fkey's (mapping code
 * walks a few runs of it, as K_LATENCY_WINDOW ... K_LATENCY_RUN).
 * FJ_ROW(name, aliases, iobench, how, as, ikey, refuse): a key that maps by
 * its row alone (fj_map_rows: `as` and `ikey` or `refuse`, struct fio_key),
 * with no name in the code; these follow every FJ_CODE row (an FJ_CODE row
 * after them takes an index one of them has: -Woverride-init fails the
 * build).  `iobench keys --fio` prints the rows in this order.
 */
/* no include guard: read once per expansion */
FJ_CODE(K_NAME, "name", "", "job name", "the job's name (the section name otherwise); letters, digits, _ - .")
FJ_CODE(K_DESCRIPTION, "description", "", "(none)", "free text, ignored")
FJ_CODE(K_DIRECTORY, "directory", "", "dir", "one directory (a ':' list is refused); --dir overrides it")
FJ_CODE(K_FILENAME, "filename", "", "filename, dir, shared_file",
	"one file (a ':' list is refused; '\\:' is a colon); a path sets dir too; with numjobs the "
	"streams share it; default <job>.0.0, and <job>.0.0.<i> for stream i")
FJ_CODE(K_SIZE, "size", "", "size, loops, ops",
	"bytes of I/O per stream (from offset), and the file size unless filesize is given; none given: the "
	"existing file's (or device's) size less offset, as fio takes it; a percentage is refused")
FJ_CODE(K_FILESIZE, "filesize", "", "size", "the file size (a range only with equal ends)")
FJ_CODE(K_IO_SIZE, "io_size", "io_limit", "loops, ops",
	"bytes of I/O per stream: random access, io_size / bs I/Os; sequential, whole passes over the "
	"file only")
FJ_CODE(K_NRFILES, "nrfiles", "nr_files", "(check), files",
	"1 only: iobench jobs use one file per stream; with the file and directory engines, the files (or "
	"directories) each stream makes")
FJ_CODE(K_OFFSET, "offset", "", "offset",
	"bytes, or N% of the existing file's (or device's) size aligned down to the block size: the I/O "
	"starts there, size bytes from there; sequential I/O only")
FJ_CODE(K_OFFSET_INCREMENT, "offset_increment", "", "offset_increment",
	"bytes or N% (as offset): clone N of numjobs starts at offset + N x this, each over size "
	"bytes from there; sequential I/O only")
FJ_CODE(
    K_BS, "bs", "blocksize", "block_size",
    "one size, or read,write[,trim] (an empty side is 4k): the size of the direction the job does; rw and "
    "randrw need equal sizes")
FJ_CODE(K_BSRANGE, "bsrange", "blocksize_range", "block_size", "a range with equal ends, as bs")
FJ_CODE(K_RW, "rw", "readwrite", "access, phases",
	"read, write, randread, randwrite: one phase; rw (readwrite), randrw: phase mixed; ':N' after a "
	"sequential one is seq_add (rw=read:-8k reads backwards), after a random one rand_run; trim and the "
	"rest are refused, but with ioengine=falloc (every direction a write phase: read = backend option "
	"write=keep, trim = write=punch) and ioengine=ftruncate and e4defrag (write and randwrite only)")
FJ_CODE(K_RWMIXREAD, "rwmixread", "", "rwmix_read", "percent of reads in rw and randrw (default 50)")
FJ_CODE(K_RWMIXWRITE, "rwmixwrite", "", "rwmix_read", "percent of writes: rwmix_read = 100 - rwmixwrite")
FJ_CODE(K_IOENGINE, "ioengine", "", "backend, backend_options",
	"psync (fio's default), sync, pvsync: posix (direct with direct=1); libaio: libaio, io_uring: "
	"io_uring (backend option direct=1 with direct=1); mmap: mmap; null, cpp_null: null (no I/O, any "
	"iodepth); a changed "
	"engine is noted; filecreate, filestat, filedelete, dircreate, dirstat, dirdelete: workload = files "
	"(meta_phases create; create,stat; create,remove; mkdir; dirstat; mkdir,rmdir); falloc: falloc (each "
	"I/O one fallocate(2)), ftruncate: ftruncate (each write one ftruncate(2) to its offset), e4defrag: "
	"e4defrag (each write one EXT4_IOC_MOVE_EXT of its range, ext4 only; files laid out first), direct "
	"noted")
FJ_CODE(K_IODEPTH, "iodepth", "", "iodepth",
	"I/Os in flight per stream with io_uring, libaio and null; the synchronous engines run depth 1, as "
	"fio does "
	"(noted)")
FJ_CODE(K_DIRECT, "direct", "", "backend, backend_options",
	"1: O_DIRECT (see ioengine); 0: through the page cache")
FJ_CODE(K_BUFFERED, "buffered", "", "backend, backend_options", "the opposite of direct")
FJ_CODE(K_NUMJOBS, "numjobs", "", "threads, shared_whole",
	"streams run at once, each on its own file unless filename is set; sharing it with sequential I/O, "
	"each goes over the whole file, as fio's clones do")
FJ_CODE(K_THREAD, "thread", "threads", "(none)", "accepted: iobench's streams are always threads")
FJ_CODE(K_RUNTIME, "runtime", "timeout", "runtime",
	"time limit of each phase, a bound (without time_based the job ends sooner when its size is done); a "
	"bare number is seconds, units d h m s ms us (also sec, msec, usec)")
FJ_CODE(
    K_TIME_BASED, "time_based", "", "time_based",
    "run for the whole runtime, passing over the file again (without runtime: ignored with a note, as fio)")
FJ_CODE(K_RAMP_TIME, "ramp_time", "", "ramp_time", "I/O before the measured window, as runtime's units")
FJ_CODE(K_LOOPS, "loops", "", "loops, ops", "passes over the workload")
FJ_CODE(K_NUMBER_IOS, "number_ios", "", "ops, loops, seq_ops",
	"caps each loop's I/Os (per stream), as fio does; sequential access: loops x number_ios I/Os in a "
	"row (seq_ops; fio's next loop goes on where the last stopped), a pass cut short where they end; "
	"no effect with time_based (as in fio 3.33)")
FJ_CODE(K_FSYNC, "fsync", "", "fsync_every",
	"N: a sync of the file after every N writes, before the next one (none after the last: end_fsync=1 "
	"syncs at the end); write jobs with iodepth 1; 0 (default): none",
	FJ_AS_UINT, "fsync_every", NULL)
FJ_CODE(K_END_FSYNC, "end_fsync", "", "fsync", "1: sync the file at the end of the write phase (timed)")
FJ_CODE(K_FSYNC_ON_CLOSE, "fsync_on_close", "", "fsync", "1: sync the file before closing it (timed)")
FJ_CODE(K_RANDREPEAT, "randrepeat", "", "seed",
	"1 (default): the same offsets every run; 0: a seed from the clock, noted so it can be given back")
FJ_CODE(K_RANDSEED, "randseed", "", "seed", "the seed of random offsets")
FJ_CODE(K_NORANDOMMAP, "norandommap", "", "random_map", "draw random offsets with replacement")
FJ_CODE(K_STONEWALL, "stonewall", "wait_for_previous", "group",
	"this job waits for the jobs before it: a new group starts (jobs of a group run at once)")
FJ_CODE(K_NEW_GROUP, "new_group", "", "group",
	"accepted: the job still runs with the jobs before it, so it is reported in their group (noted)")
FJ_CODE(K_WAIT_FOR, "wait_for", "", "group",
	"the job starts when the named earlier job has finished: a new group when that job is in the group "
	"running last (with others in it the job waits for them too, noted); none when it finished earlier")
FJ_CODE(K_GROUP_REPORTING, "group_reporting", "", "(none)",
	"accepted: iobench reports every group's aggregate and each stream anyway")
FJ_CODE(K_KB_BASE, "kb_base", "", "(units)",
	"1024 (default: k = 1024, ki = 1000) or 1000 (k = 1000, ki = 1024)")
FJ_CODE(K_INVALIDATE, "invalidate", "", "evict_before_read",
	"1 (default): evict the files from the page cache before reading, and at every further pass")
FJ_CODE(K_UNLINK, "unlink", "", "keep_files",
	"0 (default): the files stay, as fio leaves them; 1: what the run made for the job (a laid-out file "
	"too) is removed after it")
FJ_CODE(K_WRITE_BW_LOG, "write_bw_log", "", "bw_log",
	"fio-style bandwidth log with this prefix (the job name when bare)")
FJ_CODE(K_WRITE_IOPS_LOG, "write_iops_log", "", "iops_log",
	"fio-style IOPS log with this prefix (the job name when bare)")
FJ_CODE(K_WRITE_LAT_LOG, "write_lat_log", "", "lat_log",
	"fio-style latency log with this prefix (the job name when bare)")
FJ_CODE(K_LOG_AVG_MSEC, "log_avg_msec", "", "log_interval",
	"milliseconds each log line averages (at least 10); 0 (fio's default): a line per I/O")
FJ_CODE(K_LOG_OFFSET, "log_offset", "", "log_offset", "1: the logs' rows carry each I/O's offset", FJ_AS_BOOL,
	"log_offset", NULL)
FJ_CODE(
    K_SS, "steadystate", "ss", "steady_state, steady_rule, steady_limit",
    "iops:X%, bw:X% or lat:X% (every round within X% of the window mean; lat: each round's mean "
    "completion latency), iops_slope:X%, bw_slope:X% or lat_slope:X% (the slope below X% of the mean); an "
    "absolute limit is refused; needs ss_dur and runtime")
FJ_CODE(K_SS_DUR, "steadystate_duration", "ss_dur", "steady_window, steady_round, steady_max_rounds",
	"the window, in rounds of ss_interval (fio's sampling, 1 s by default): a whole number of them, at "
	"least 2; runtime / ss_interval rounds at most")
FJ_CODE(K_SS_RAMP, "steadystate_ramp_time", "ss_ramp", "steady_ramp",
	"time before rounds are judged, as runtime's units")
FJ_CODE(K_SS_INTERVAL, "steadystate_check_interval", "ss_interval", "steady_round, steady_window",
	"how often fio samples and judges: each round lasts this long (at least 1 s, default 1 s; a bare "
	"number is seconds) and the window holds ss_dur / ss_interval rounds")
FJ_CODE(K_GTOD_REDUCE, "gtod_reduce", "", "latency",
	"1: latency = off (no I/O timed, no latency figures); 0: as not given")
FJ_CODE(K_DISABLE_LAT, "disable_lat", "", "latency",
	"1 with disable_clat=1: latency = off (iobench's one latency, submission to completion, is "
	"fio's lat and clat at once); alone: no effect (noted)")
FJ_CODE(K_DISABLE_CLAT, "disable_clat", "", "latency",
	"1 with disable_lat=1: latency = off; alone: no effect (noted)")
FJ_CODE(K_DISABLE_SLAT, "disable_slat", "", "(none)",
	"accepted: iobench has no submission latency of its own to turn off")
FJ_CODE(
    K_VERIFY, "verify", "", "verify, phases",
    "md5, crc32c (crc32c-intel), crc64, sha256, xxhash, meta, pattern (needs verify_pattern); 0 or none: "
    "off.  A write job writes a 64-byte header in every block and verifies after it (do_verify); a mixed "
    "job (rw, randrw) verifies the blocks it wrote after its mixed phase (time_based, either: none after, "
    "as fio 3.33); "
    "a read job verifies what it reads.  Not fio's on-disk format; fio's other checksums are refused")
FJ_CODE(K_DO_VERIFY, "do_verify", "", "phases",
	"1 (default): the verify phase runs; 0: the job only writes (or reads)")
FJ_CODE(K_VERIFY_INTERVAL, "verify_interval", "", "verify_interval",
	"a header every this many bytes (at least 64, dividing bs); default bs")
FJ_CODE(K_VERIFY_PATTERN, "verify_pattern", "", "pattern",
	"0xHEX (1 to 32 bytes, repeated) or a number up to 255: the data written and checked")
FJ_CODE(K_VERIFY_FATAL, "verify_fatal", "", "verify_fatal",
	"accepted: iobench stops a fio job's verify at its first bad block either way, as fio does "
	"(fio 3.33 ends the job with EILSEQ)")
FJ_CODE(K_VERIFY_DUMP, "verify_dump", "", "verify_dump",
	"1: the first bad block to <file>.<offset>.expected and .received beside the file")
FJ_CODE(K_VERIFY_BACKLOG, "verify_backlog", "", "verify_backlog",
	"N: after every N blocks written (and not yet verified) the write or mixed phase reads back "
	"and checks the oldest (verify_backlog_batch of them), inside its time, as fio; the rest after "
	"it (time_based: none, as fio); at any iodepth, by fio's rule there (read-backs take free "
	"requests)")
FJ_CODE(K_BUFFER_PATTERN, "buffer_pattern", "", "pattern",
	"0xHEX (1 to 32 bytes, repeated) or a number up to 255: the data written (verify_pattern wins)")
FJ_CODE(K_COMPRESS_PCT, "buffer_compress_percentage", "", "compress_percentage",
	"0 to 100: this share of every chunk is compressible (zeros, or buffer_pattern), the rest random")
FJ_CODE(K_COMPRESS_CHUNK, "buffer_compress_chunk", "", "compress_chunk",
	"the chunk size (default 512, at most bs)")
FJ_CODE(K_DEDUPE_PCT, "dedupe_percentage", "", "dedupe_percentage",
	"0 to 100: this share of the blocks repeat another block (dedupe_mode says which)")
FJ_CODE(K_REFILL_BUFFERS, "refill_buffers", "", "(none)",
	"accepted: iobench makes every block's content at its offset anyway (docs/profiles.md \"Data "
	"content\": each 4 KiB a slice of a random table XORed with a word, both keyed by the seed "
	"and the offset)")
FJ_CODE(K_SCRAMBLE_BUFFERS, "scramble_buffers", "", "(none)",
	"accepted: iobench's random data differs at every offset anyway (no two 4 KiB units "
	"alike: each its own key)")
FJ_CODE(K_BSSPLIT, "bssplit", "", "bssplit",
	"SIZE/PCT:... (an empty PCT shares the rest), or READS,WRITES[,TRIMS] (trims ignored: none are "
	"done); each I/O draws its size; random offsets are drawn with replacement")
FJ_CODE(K_RANDOM_DISTRIBUTION, "random_distribution", "", "random_distribution",
	"random, zipf:THETA, pareto:H, normal:SIGMA, zoned:ACCESS/SIZE%:..., zoned_abs:ACCESS/SIZE:...; "
	"one list for both directions; no center; drawn with replacement; sequence:B,... (at most 64 "
	"block indices, each inside the file): each direction's I/O k at block B[k mod n]")
FJ_CODE(K_RATE, "rate", "", "rate",
	"bytes per second per stream: R or R,W[,T] (an empty side: no limit; trims none)")
FJ_CODE(K_RATE_IOPS, "rate_iops", "", "rate_iops", "I/Os per second per stream, as rate")
FJ_CODE(K_RATE_PROCESS, "rate_process", "", "rate_process", "linear (default) or poisson")
FJ_CODE(K_THINKTIME, "thinktime", "", "thinktime", "a pause before an I/O; a bare number is microseconds")
FJ_CODE(K_THINKTIME_BLOCKS, "thinktime_blocks", "", "thinktime_blocks",
	"think once every this many I/Os (default 1)")
FJ_CODE(K_THINKTIME_SPIN, "thinktime_spin", "", "thinktime_spin",
	"of thinktime, this long busy (spinning), the rest asleep; a bare number is microseconds")
FJ_CODE(K_BLOCKALIGN, "blockalign", "ba", "offset_align",
	"random offsets are multiples of it (one size, or equal sides); default the block size (with "
	"bssplit, the smallest)")
FJ_CODE(K_IO_SUBMIT_MODE, "io_submit_mode", "", "(none)",
	"inline (default); offload is accepted and runs inline, with a note: the stream submits "
	"its own I/O at the same rate")
FJ_CODE(K_RATE_MIN, "rate_min", "ratemin", "rate_min",
	"bytes per second a job must reach, R or R,W[,T]: checked over the whole window (fio: every "
	"ratecycle); below it the job fails")
FJ_CODE(K_RATE_IOPS_MIN, "rate_iops_min", "", "rate_iops_min", "as rate_min, in I/Os per second")
FJ_CODE(K_STARTDELAY, "startdelay", "", "start_delay",
	"the job starts this long after the others of its group (a bare number is seconds); a range "
	"is refused")
FJ_CODE(K_PERCENTILE_LIST, "percentile_list", "", "percentiles",
	"the latency percentiles reported (':' between, at most 20, each above 0 and at most 100): the "
	"records, fio-json's clat_ns.percentile and the human output carry those, ascending")
FJ_CODE(K_CONTINUE_ON_ERROR, "continue_on_error", "", "continue_on_error",
	"none, read, write, io, all (= io), 0, 1: failed I/Os counted in io_errors, the job goes on, "
	"for EIO and EILSEQ (fio's non-fatal errors) unless ignore_error lists others; verify is "
	"refused; any iodepth")
FJ_CODE(K_IGNORE_ERROR, "ignore_error", "", "ignore_error",
	"READS,WRITES[,VERIFY]: ':' lists of errno names or numbers passed over (counted in io_errors); "
	"a verify list is refused; any iodepth")
FJ_CODE(
    K_EXITALL, "exitall", "", "exit_others",
    "1 in any job: every job's end (its first clone's) stops the jobs running with it, as fio's one flag "
    "(exit_others = group, or all with the ending job's exit_what=all)")
FJ_CODE(K_EXIT_WHAT, "exit_what", "", "exit_others",
	"with exitall in the file: group (default) stops the job's reporting group (new_group, stonewall), "
	"stonewall the jobs running at once; all also skips the jobs after them")
FJ_CODE(K_DEDUPE_MODE, "dedupe_mode", "", "dedupe_mode",
	"repeat (default: a copy is of one earlier block) or working_set (of a block of the working set)")
FJ_CODE(K_DEDUPE_WS_PCT, "dedupe_working_set_percentage", "", "dedupe_working_set",
	"1 to 100 (default 5): the working set, a share of the file's blocks")
FJ_CODE(K_DEDUPE_GLOBAL, "dedupe_global", "", "dedupe_global",
	"1: the jobs with it share one working set (needs working_set; equal size, bs and dedupe keys)")
FJ_CODE(K_CREATE_ON_OPEN, "create_on_open", "", "(none)",
	"1: no layout, as fio: a write job makes its file at its open (as iobench always does, never "
	"preallocating); a read or mixed job reads a file that exists or an earlier job writes, a "
	"missing one is refused (fio creates it empty); with the file and directory engines, iobench "
	"makes each file as it opens it")
FJ_CODE(K_OPENFILES, "openfiles", "", "(none)",
	"accepted with the file and directory engines (a stream has one file open at a time; above 1 "
	"noted); refused with the others")
FJ_CODE(K_FALLOCATE, "fallocate", "", "(check)", "none only: iobench does not preallocate files")
FJ_CODE(K_FLOW, "flow", "", "flow",
	"a weight of 1 or more: the jobs of one flow_id running at once do their I/Os in proportion to their "
	"weights (a job ahead of its share waits), as fio counts them; a negative weight is refused")
FJ_CODE(K_FLOW_ID, "flow_id", "", "flow_id", "0 to 63: the flow group (default 0)")
FJ_CODE(K_FLOW_SLEEP, "flow_sleep", "", "flow_sleep",
	"microseconds when bare: the wait of a job ahead of its share before it tries again (0: 10 us, "
	"where fio tries again at once)")
FJ_CODE(K_FILL_DEVICE, "fill_device", "", "fill_device",
	"1: rw=write writes until the file system is full (ENOSPC ends the job, not as an error; the "
	"record says device_full) and size is not needed; a later job reading the same file with no "
	"size reads it to its end.  Sequential, one file, numjobs=1, iodepth 1; a read job with "
	"fill_device reads the file to its end (fio fills the file system first)")
FJ_CODE(K_CREATE_SERIALIZE, "create_serialize", "", "(none)",
	"accepted, no effect: iobench jobs have one file each, laid out before the run")
FJ_CODE(K_ATOMIC, "atomic", "", "(check)",
	"0 only: no iobench backend issues RWF_ATOMIC writes (1 is refused)")
FJ_CODE(K_LATENCY_TARGET, "latency_target", "", "latency_target",
	"the search for the highest depth, up to iodepth, within the target (a bare number is "
	"microseconds, as fio's); needs iodepth above 1; each window a latency_window record")
FJ_CODE(K_LATENCY_WINDOW, "latency_window", "", "latency_window",
	"with latency_target (a bare number is microseconds); without it accepted, no effect (noted), as fio")
FJ_CODE(K_LATENCY_PERCENTILE, "latency_percentile", "", "latency_percentile",
	"with latency_target; without it accepted, no effect (noted), as fio")
FJ_CODE(K_LATENCY_RUN, "latency_run", "", "latency_run",
	"with latency_target; without it accepted, no effect (noted), as fio")
FJ_CODE(K_PRIO, "prio", "", "prio_level, prio_class",
	"0 to 7: the level of each stream's thread's I/O priority (ioprio_set on the thread); with prio or "
	"prioclass given the class is prioclass, or 2 (best effort) when 0 or not given, as fio sets it")
FJ_CODE(K_PRIOCLASS, "prioclass", "", "prio_class",
	"0 to 3: the class of that priority (1 real time: root only, 2 best effort, 3 idle; 0: best "
	"effort)")
FJ_CODE(K_CMDPRIO_PCT, "cmdprio_percentage", "", "cmdprio_percentage",
	"R or R,W, 0 to 100: this share of the I/Os, drawn per I/O, carries cmdprio_class and cmdprio "
	"(libaio: aio_reqprio; io_uring: the sqe's ioprio); libaio and io_uring only, at any iodepth; "
	"the record's prio_ios counts the I/Os per priority")
FJ_CODE(K_CMDPRIO_CLASS, "cmdprio_class", "", "cmdprio_class",
	"R or R,W, 1 to 3 (default 1, real time: root only): the class of those I/Os")
FJ_CODE(K_CMDPRIO, "cmdprio", "", "cmdprio_level", "R or R,W, 0 to 7 (default 0): their level")
FJ_CODE(K_CMDPRIO_BSSPLIT, "cmdprio_bssplit", "", "cmdprio_bssplit",
	"SIZE/PCT:... (with cmdprio_class and cmdprio) or SIZE/PCT/CLASS/LEVEL[/HINT]:..., "
	"READS,WRITES (trims ignored): this share of each block size's I/Os carries a priority; "
	"HINT (0 to 1023) goes in the priority's hint bits, which fio 3.33 drops; not with "
	"cmdprio_percentage")
FJ_CODE(K_DONORNAME, "donorname", "", "backend_options",
	"with ioengine=e4defrag: the backend option donorname, the donor file beside the job's file (a "
	"name, no '/'); with another engine refused, but inherited from an e4defrag [global], ignored "
	"(as fio)")
FJ_CODE(K_INPLACE, "inplace", "", "backend_options",
	"with ioengine=e4defrag: the backend option inplace, 0 (default: the donor's blocks allocated at the "
	"start) or 1 (for each write, freed after it); another engine as donorname")
FJ_CODE(K_RANDOM_GENERATOR, "random_generator", "", "random_map",
	"tausworthe, tausworthe64: fio's default generator, over its map of blocks done (norandommap "
	"as without it); lfsr: random_map = true whatever norandommap says (each block once a pass, "
	"as fio's LFSR): iobench's random order is one keyed permutation of the blocks for all three; "
	"another value refused")
FJ_CODE(K_VERIFY_ASYNC, "verify_async", "", "(noted)",
	"accepted (noted with N above 0): fio checks the blocks read in N threads of its own, iobench in "
	"the stream that read them: the same blocks, the same outcome; the check's time is in the stream's")
FJ_CODE(K_ERROR_DUMP, "error_dump", "", "(noted)",
	"0: only an error that ends the job is printed, as iobench does; 1 (fio's default): fio prints every "
	"error, also those continue_on_error passes over, which iobench counts (io_errors) and prints none "
	"of (noted where errors are passed over)")
FJ_CODE(K_VERIFY_BACKLOG_BATCH, "verify_backlog_batch", "", "verify_backlog_batch",
	"with verify_backlog: the blocks each read-back checks (default verify_backlog); a "
	"batch that finds fewer waiting checks each block written after it until done, as "
	"fio 3.33 does (none twice)")
FJ_CODE(K_ZONEMODE, "zonemode", "", "zone_size",
	"none (default) or strided (zonesize, zonerange, zoneskip); zbd is refused: it needs a zoned block "
	"device (host-managed or host-aware) and iobench has no zone management")
FJ_CODE(K_ZONESIZE, "zonesize", "", "zone_size",
	"with zonemode=strided (needed, above 0): the bytes of I/O in a zone before the next, as fio 3.33 "
	"moves on (traced); not with zonemode=none")
FJ_CODE(K_ZONERANGE, "zonerange", "", "zone_range",
	"with zonemode=strided: the bytes of a zone the I/O stays in (default zonesize), a multiple of bs")
FJ_CODE(K_ZONESKIP, "zoneskip", "", "zone_skip",
	"with zonemode=strided: the bytes passed over after a zone's range, a multiple of bs; zones reaching "
	"past the file's end (where fio ends the job) are refused")
FJ_CODE(K_SPRANDOM, "sprandom", "", "sprandom",
	"1: rw=randwrite's offsets in fio's sprandom order (newer than fio 3.33; docs/fio.md, \"sprandom\"): "
	"random_generator=lfsr and norandommap=1 are implied, another value given is refused; one job, numjobs=1")
FJ_CODE(K_SPR_NUM_REGIONS, "spr_num_regions", "", "spr_num_regions",
	"with sprandom: its regions (default 100), at most one per block written")
FJ_CODE(K_SPR_OP, "spr_op", "", "spr_op",
	"with sprandom: the over-provisioning, strictly between 0 and 1 (default 0.15)")
FJ_CODE(K_SPR_CS, "spr_cs", "", "spr_cs",
	"with sprandom: the cache size in bytes (default 0), at most a region's: a region's blocks to write again "
	"wait for the next region's end")
/* The rows of keys that map by their row alone. */
FJ_ROW("random_sequence_stride", "", "random_sequence_stride",
       "1 with random_distribution=sequence: each pass over the list adds its length to its blocks "
       "(2,0,1, 5,3,4, ...), the job ending at the first block past the file's end; 0 (default): the same "
       "blocks again",
       FJ_AS_BOOL, "random_sequence_stride", NULL)
FJ_ROW("numa_cpu_nodes", "", "numa_cpu_nodes",
       "N, A-B, lists of them with ',', or all: each stream's thread runs on those nodes' CPUs "
       "(sched_setaffinity); "
       "a node this machine does not have is refused; not in Windows builds",
       FJ_AS_TEXT, "numa_cpu_nodes", NULL)
FJ_ROW(
    "numa_mem_policy", "", "numa_mem_policy",
    "default, prefer:N, bind:NODES, interleave[:NODES] or local: each stream's thread's memory policy "
    "(set_mempolicy, before its buffers; default is set, where fio 3.33 leaves the policy as it was); a node "
    "this machine does not have is refused; not in Windows builds",
    FJ_AS_TEXT, "numa_mem_policy", NULL)
FJ_ROW("log_prio", "", "log_prio",
       "1: the logs' fifth column is the priority as 0xPPPP: each I/O's in a latency log of every I/O "
       "(no log_avg_msec), 0x0000 on a line averaging log_avg_msec, as fio writes them; 0: 1 for the "
       "real-time class, else 0",
       FJ_AS_BOOL, "log_prio", NULL)
