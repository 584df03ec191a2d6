#!/usr/bin/env python3
"""Outside checks: what iobench, iotest and bigread report must agree with what an
observer outside the process sees (issue 16).

  syscall_counts        the I/O system calls strace counts on each file equal the
                        ops each record reports, and the bytes those calls returned
                        equal its bytes (iobench, sequential and random, write and
                        read; iotest write, read and verify)
  kernel_bytes_iotest   the kernel's per-process counters (/proc/PID/io wchar and
  kernel_bytes_bigread  rchar, added to ours when the tool's process is reaped)
                        agree with the bytes the records report; with strace also
                        the bytes per file
  elapsed_covers_io     each record's elapsed_s is at least the time strace sees from
  elapsed_covers_io_bigread  the start of its first I/O call to the end of its last
  repeat_gaps_untimed   with repeat = 3 and evict_before_read, each read run's
                        eviction between runs lies outside its reported time
  no_holes_seq_write    a file the job wrote has no hole before its end, so a later
  no_holes_rand_write   read of it reads data, not holes (SEEK_HOLE)
  latency_sampled_labelled  I/Os too cheap to time each (mmap, 4 KiB random reads
                        of a small cached file) give latency from a sample, and the
                        record says so: lat_sampled_every > 1, and lat_samples is
                        the latency count (skips until the record carries them;
                        unit_engine_sampling checks the engine's result directly)
  aio_close_untimed     the libaio backend's close keeps its AIO context (one
                        io_setup for a write and a read phase) and no io_destroy
                        comes before the last phase record is written
  fs_facts_one_mount    a record's fs_type and device are the mount table's for the
                        job directory (statmount where the kernel has it)

Correctness, not speed: every bound holds on a busy machine.  Records of kind
"phase" and "iotest" (to be renamed "phase") are both accepted.  A case skips
(exit 77) with a reason when strace is missing; tools/deps.sh should install it.

Usage: test_measure.py --bin DIR --work DIR CASE"""
import json
import os
import re
import tempfile
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import iobtest as iob  # noqa: E402
from iobtest import Skip, expect, write  # noqa: E402

ARGS = None
KIB = 1024
MIB = 1024 * KIB
IO_READ = {"read", "pread64", "readv", "preadv", "preadv2"}
IO_WRITE = {"write", "pwrite64", "writev", "pwritev", "pwritev2"}
SYNCS = {"fsync", "fdatasync", "sync_file_range"}
TRACED = IO_READ | IO_WRITE | SYNCS | {"openat", "open"}


def tool(name):
    return iob.binary(ARGS, name)


def run(cmd, **kw):
    p = iob.run(cmd, env=iob.env(), timeout=240, **kw)
    if p.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    return p


def need_strace():
    if not shutil.which("strace"):
        raise Skip("strace is not installed (tools/deps.sh should install it): "
                   "the system-call checks need an outside observer")


def records(doc):
    """The per-phase records of an iobench or iotest JSON document."""
    return [r for r in doc["records"] if r.get("kind") in ("phase", "iotest")]


def direction(rec):
    op = rec.get("phase", rec.get("op"))
    expect(op in ("write", "read", "verify"), f"record with unknown phase {op!r}: {rec}")
    return "write" if op == "write" else "read"


# --- strace ---------------------------------------------------------------

LINE = re.compile(r"^(?P<pid>\d+)\s+(?P<ts>\d+\.\d+)\s+(?P<rest>.*)$")
CALL = re.compile(r"^(?P<name>\w+)\((?P<args>.*)$")
RESULT = re.compile(r"\)\s+=\s+(?P<ret>-?\d+)(?:<(?P<retpath>[^>]*)>)?.*<(?P<dur>\d+\.\d+)>$")
RESUMED = re.compile(r"^<\.\.\. (?P<name>\w+) resumed>(?P<args>.*)$")
FDPATH = re.compile(r"^(?P<fd>-?\d+)<(?P<path>[^>]*)>")


class Call:
    def __init__(self, pid, ts, name, args):
        self.pid, self.start, self.name, self.args = pid, ts, name, args
        self.ret, self.dur, self.path = None, 0.0, None

    @property
    def end(self):
        return self.start + self.dur


def finish(call, tail):
    m = RESULT.search(tail)
    if not m:
        return None
    call.ret, call.dur = int(m.group("ret")), float(m.group("dur"))
    if call.name in ("openat", "open"):
        call.path = m.group("retpath")  # the new fd, decoded by -y
    else:
        fm = FDPATH.match(call.args)
        call.path = fm.group("path") if fm else None
    return call


def strace(cmd, out_path, traced=TRACED):
    """Run cmd under strace -f -y -ttt -T; return (completed process, [Call] in start order)."""
    log = out_path + ".strace"
    env = dict(os.environ)
    env.pop("IOBENCH_PLUGIN_PATH", None)
    # LeakSanitizer cannot run under ptrace: in a sanitizer build, no leak check here
    env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"), "detect_leaks=0"]))
    with open(out_path, "w") as out:
        p = subprocess.run(["strace", "-f", "-qq", "-y", "-ttt", "-T", "-e", "trace=" + ",".join(sorted(traced)),
                            "-o", log, *cmd], stdout=out, stderr=subprocess.PIPE, text=True, env=env, timeout=240)
    if p.returncode != 0:
        raise AssertionError(f"strace {' '.join(cmd)}: exit {p.returncode}: {p.stderr[-2000:]}")
    calls, pending = [], {}
    with open(log) as f:
        for line in f:
            m = LINE.match(line.rstrip("\n"))
            if not m:
                continue
            pid, ts, rest = int(m.group("pid")), float(m.group("ts")), m.group("rest")
            r = RESUMED.match(rest)
            if r:
                c = pending.pop(pid, None)
                if c and finish(c, r.group("args")):
                    calls.append(c)
                continue
            c = CALL.match(rest)
            if not c:
                continue
            call = Call(pid, ts, c.group("name"), c.group("args"))
            if rest.endswith("<unfinished ...>"):
                pending[pid] = call
            elif finish(call, rest):
                calls.append(call)
    calls.sort(key=lambda c: c.start)
    with open(out_path) as f:
        return p, calls, f.read()


def phases_on(calls, path):
    """Split the calls on path into phases: a new phase at each open of the path.
    Returns [(direction, [I/O calls], [sync calls])], phases without I/O left out."""
    groups, cur = [], None
    for c in calls:
        if c.path != path:
            continue
        if c.name in ("openat", "open"):
            cur = None
            continue
        if cur is None:
            cur = {"read": [], "write": [], "sync": []}
            groups.append(cur)
        key = "read" if c.name in IO_READ else "write" if c.name in IO_WRITE else "sync"
        cur[key].append(c)
    out = []
    for g in groups:
        expect(not (g["read"] and g["write"]), f"{path}: one open both read and wrote: cannot tell phases apart")
        if g["read"] or g["write"]:
            d = "read" if g["read"] else "write"
            out.append((d, g[d], g["sync"]))
    return out


def match_records(recs, calls):
    """Pair each record with the phase strace saw on its file, in order."""
    pairs, by_file = [], {}
    for r in recs:
        by_file.setdefault(os.path.realpath(r["file"]), []).append(r)
    for path, rs in by_file.items():
        seen = phases_on(calls, path)
        expect(len(seen) == len(rs), f"{path}: {len(rs)} records but strace saw {len(seen)} phases of I/O on it: "
               f"{[(d, len(io)) for d, io, _ in seen]}")
        for r, (d, io, syncs) in zip(rs, seen):
            expect(direction(r) == d, f"{path}: record {direction(r)} but strace saw {d} calls")
            pairs.append((r, io, syncs))
    return pairs


def check_counts(label, recs, calls):
    pairs = match_records(recs, calls)
    expect(pairs, f"{label}: no records")
    for r, io, _ in pairs:
        what = f"{label} {r.get('job', '')} {r.get('phase', r.get('op'))} {r['file']}"
        failed = [c for c in io if c.ret < 0]
        expect(not failed, f"{what}: failed calls {[(c.name, c.ret) for c in failed[:3]]}")
        expect(len(io) == r["ops"], f"{what}: strace counted {len(io)} I/O calls, the record reports {r['ops']} ops")
        done = sum(c.ret for c in io)
        expect(done == r["bytes"], f"{what}: the calls moved {done} bytes, the record reports {r['bytes']}")
        print(f"ok {what}: {len(io)} calls = {r['ops']} ops, {done} bytes")
    return pairs


# --- cases ----------------------------------------------------------------

PROFILE = ("[global]\nbackend = posix\nsize = 4M\n"
           "[seq]\nblock_size = 64K\nphases = write,read\n"
           "[rnd]\naccess = rand\nblock_size = 4K\nops = 777\nphases = write,read\n")


def iobench_traced(tmp, profile=PROFILE):
    prof = write(os.path.join(tmp, "p.ini"), profile)
    _, calls, out = strace([tool("iobench"), "run", prof, "--dir", tmp, "--output", "json"],
                           os.path.join(tmp, "iobench.json"))
    return records(json.loads(out)), calls


def iotest_traced(tmp):
    f = os.path.join(tmp, "iotest.dat")
    _, calls, out = strace([tool("iotest"), "--format", "json", "-s", "4", "-b", "64", "-p", "03", "-w", "-r", "-e",
                            f], os.path.join(tmp, "iotest.json"))
    return records(json.loads(out)), calls


def case_syscall_counts(tmp):
    need_strace()
    recs, calls = iobench_traced(tmp)
    expect({(r["job"], r["phase"]) for r in recs} == {("seq", "write"), ("seq", "read"), ("rnd", "write"),
                                                      ("rnd", "read")}, f"unexpected records {recs}")
    check_counts("iobench", recs, calls)
    recs, calls = iotest_traced(tmp)
    expect([r.get("op", r.get("phase")) for r in recs] == ["write", "write", "verify"],
           f"iotest records: {[r.get('op') for r in recs]}")
    check_counts("iotest", recs, calls)


def own_io():
    with open("/proc/self/io") as f:
        return {k: int(v) for k, v in (line.split(":") for line in f)}


def run_counted(cmd, tmp):
    """Run cmd; return (stdout, stderr, the kernel's I/O counters of that process).
    When a child is reaped the kernel adds its /proc/PID/io counters to its parent's
    (as it does with CPU times), so the difference of our own /proc/self/io around
    the run is the child's, plus our own reading of /proc/self/io (a hundred bytes of
    rchar).  Its output goes to files: we read and write nothing in between."""
    env = dict(os.environ)
    env.pop("IOBENCH_PLUGIN_PATH", None)
    out_path, err_path = os.path.join(tmp, "out"), os.path.join(tmp, "err")
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        before = own_io()
        p = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env)
        rc = p.wait()
        after = own_io()
    io = {k: after[k] - before[k] for k in after}
    with open(out_path, "rb") as f:
        stdout = f.read()
    with open(err_path, "rb") as f:
        stderr = f.read()
    expect(rc == 0, f"{' '.join(cmd)}: exit {rc}: {stderr[-2000:]!r}")
    return stdout, stderr, io


def check_kernel_bytes(label, cmd, tmp, read_bytes, write_bytes, block):
    """rchar and wchar of the whole process against the reported bytes.  wchar is
    exact: the data plus what the tool printed.  rchar also counts the tool's own
    reads (shared objects, /proc, /sys: a few KiB), so it may exceed the data by
    less than half a block, and never fall short: a block counted twice, or once
    too few, fails."""
    stdout, stderr, io = run_counted(cmd, tmp)
    doc = json.loads(stdout)
    rb, wb = read_bytes(doc), write_bytes(doc)
    printed = len(stdout) + len(stderr)
    if os.environ.get("IOB_TSAN"):
        # ThreadSanitizer's runtime writes 512 KiB of its own at start (seen
        # with strace: one write of 0xff bytes to its own descriptor), so the
        # whole process's counters are not the tool's.  The per-file strace
        # counts and the records' own per-thread counters are still checked.
        print(f"{label}: process totals not compared under ThreadSanitizer (its runtime does I/O of its own)")
        return doc
    expect(io["wchar"] == wb + printed,
           f"{label}: kernel wchar {io['wchar']} != reported written {wb} + printed {printed}")
    extra = io["rchar"] - rb
    expect(0 <= extra < block // 2,
           f"{label}: kernel rchar {io['rchar']} vs reported read {rb}: {extra} bytes apart (block {block})")
    print(f"ok {label}: wchar {io['wchar']} = {wb} written + {printed} printed; rchar {io['rchar']} = {rb} read "
          f"+ {extra} of the tool's own")
    return doc


def own_counters(doc):
    """Where a record carries what the tool itself read from /proc/self/io, it must agree."""
    for r in records(doc):
        if "os_read_bytes" in r:
            d = direction(r)
            got = r["os_write_bytes"] if d == "write" else r["os_read_bytes"]
            expect(got == r["bytes"], f"record {r}: os bytes {got} != bytes {r['bytes']}")


def case_kernel_bytes_iotest(tmp):
    f = os.path.join(tmp, "k.dat")
    block = 256 * KIB
    cmd = [tool("iotest"), "--format", "json", "-s", "8", "-b", str(block // KIB), "-p", "03", "-w", "-r", "-e", f]

    def moved(doc, d):
        return sum(r["bytes"] for r in records(doc) if direction(r) == d)

    doc = check_kernel_bytes("iotest", cmd, tmp, lambda d: moved(d, "read"), lambda d: moved(d, "write"), block)
    expect(moved(doc, "write") == 2 * 8 * MIB and moved(doc, "read") == 8 * MIB,
           f"iotest reported {moved(doc, 'write')} written, {moved(doc, 'read')} read; want 16 and 8 MiB")
    own_counters(doc)
    if shutil.which("strace"):
        check_counts("iotest", *iotest_traced(tmp))
    else:
        print("strace not installed: per-file byte counts not checked (tools/deps.sh should install strace)")


def bigread_file(tmp, size):
    f = os.path.join(tmp, "b.dat")
    with open(f, "wb") as out:
        out.write(os.urandom(MIB) * (size // MIB))
    return f


def bigread_bytes(doc):
    summ = [r for r in doc["records"] if r.get("kind") in ("summary", "phase")]
    blocks = [r for r in doc["records"] if r.get("kind") == "block"]
    expect(len(summ) == 1, f"bigread: {len(summ)} summary records")
    expect(sum(b["bytes"] for b in blocks) == summ[0]["bytes"],
           f"bigread: blocks add up to {sum(b['bytes'] for b in blocks)}, summary says {summ[0]['bytes']}")
    return summ[0]


def case_kernel_bytes_bigread(tmp):
    block = 256 * KIB
    f = bigread_file(tmp, 8 * MIB)
    cmd = [tool("bigread"), "-o", "json", f"in={f}", f"bufsize={block // KIB}K"]
    doc = check_kernel_bytes("bigread", cmd, tmp, lambda d: bigread_bytes(d)["bytes"], lambda d: 0, block)
    expect(bigread_bytes(doc)["bytes"] == 8 * MIB, f"bigread reported {bigread_bytes(doc)['bytes']}, want 8 MiB")
    if shutil.which("strace"):
        _, calls, out = strace(cmd, os.path.join(tmp, "bigread.json"))
        summ = bigread_bytes(json.loads(out))
        seen = phases_on(calls, os.path.realpath(f))
        expect(len(seen) == 1 and seen[0][0] == "read", f"bigread: strace saw {[(d, len(io)) for d, io, _ in seen]}")
        done = sum(c.ret for c in seen[0][1])
        expect(done == summ["bytes"] and len(seen[0][1]) == summ["blocks"],
               f"bigread: {len(seen[0][1])} calls moved {done} bytes; reported {summ['blocks']} blocks, "
               f"{summ['bytes']} bytes")
        print(f"ok bigread under strace: {len(seen[0][1])} calls, {done} bytes")
    else:
        print("strace not installed: per-file byte counts not checked (tools/deps.sh should install strace)")


def check_elapsed(label, rec, io, syncs):
    """The reported time holds every I/O call of the phase: from the start of the first
    to the end of the last, as strace saw them (its -ttt and -T, microseconds; 0.1% for
    a clock being slewed).  The upper bound is loose: a phase may also hold an fsync, an
    open and the engine's own work, all slowed by strace on a busy machine."""
    observed = max(c.end for c in io) - min(c.start for c in io)
    outer = max(c.end for c in io + syncs) - min(c.start for c in io)
    reported = rec["elapsed_s"]
    expect(reported >= observed * 0.999 - 20e-6,
           f"{label}: reported elapsed {reported:.6f} s < {observed:.6f} s from its first I/O to its last "
           "as strace saw them: the phase time leaves out part of the phase")
    expect(reported <= outer + 1.0, f"{label}: reported elapsed {reported:.6f} s, strace saw {outer:.6f} s")
    print(f"ok {label}: reported {reported:.6f} s >= observed {observed:.6f} s ({len(io)} calls)")


def case_elapsed_covers_io(tmp):
    need_strace()
    for label, (recs, calls) in (("iobench", iobench_traced(tmp)), ("iotest", iotest_traced(tmp))):
        for r, io, syncs in check_counts(label, recs, calls):
            check_elapsed(f"{label} {r.get('job', '')} {r.get('phase', r.get('op'))}", r, io, syncs)


def case_elapsed_covers_io_bigread(tmp):
    need_strace()
    f = bigread_file(tmp, 8 * MIB)
    _, calls, out = strace([tool("bigread"), "-o", "json", f"in={f}", "bufsize=64K"], os.path.join(tmp, "b.json"))
    summ = bigread_bytes(json.loads(out))
    seen = phases_on(calls, os.path.realpath(f))
    expect(len(seen) == 1, f"bigread: strace saw {len(seen)} phases")
    check_elapsed("bigread", summ, seen[0][1], seen[0][2])


def case_repeat_gaps_untimed(tmp):
    """repeat = 3 with evict_before_read: each read run's eviction (the runner's
    fdatasync and fadvise(DONTNEED) on the file, between runs) lies outside that
    run's reported time: elapsed_s is at most the time from the end of the
    eviction's fadvise to the entry of the next system call after the run's
    close of the file (the clock stops after that close returns).  Each
    run also holds all its I/O calls (the elapsed_covers_io bound)."""
    need_strace()
    prof = write(os.path.join(tmp, "p.ini"), "[rep]\nbackend = posix\nsize = 4M\nblock_size = 64K\n"
                 "phases = write,read\nevict_before_read = true\nrepeat = 3\n")
    _, calls, out = strace([tool("iobench"), "run", prof, "--dir", tmp, "--output", "json"],
                           os.path.join(tmp, "iobench.json"), TRACED | {"fadvise64", "close"})
    recs = records(json.loads(out))
    expect([(r["phase"], r["repeat"]) for r in recs] == [("write", i) for i in range(3)] + [("read", i) for i in range(3)],
           [(r["phase"], r.get("repeat")) for r in recs])
    pairs = check_counts("iobench repeat", recs, calls)
    path = os.path.realpath(recs[0]["file"])
    on = [c for c in calls if c.path == path]
    for r, io, syncs in pairs:
        label = f"iobench repeat {r['phase']} run {r['repeat']}"
        check_elapsed(label, r, io, syncs)
        if r["phase"] != "read":
            continue
        first = min(c.start for c in io)
        evict = [c for c in on if c.name == "fadvise64" and c.end <= first]
        expect(evict, f"{label}: no eviction (fadvise64) on the file before the run")
        closes = [c for c in on if c.name == "close" and c.start >= max(c2.end for c2 in io)]
        expect(closes, f"{label}: no close of the file after the run's I/O")
        # the run's clock stops after its close returns: strace stamps that return
        # before it lets the process go on, so the bound is the next call the same
        # thread makes (the /proc/self/io read after the clock), as strace stamps its entry
        after = [c for c in calls if c.pid == closes[0].pid and c.start >= closes[0].end]
        expect(after, f"{label}: no system call after the run's close")
        span = after[0].start - evict[-1].end
        expect(r["elapsed_s"] <= span * 1.001 + 20e-6,
               f"{label}: reported elapsed {r['elapsed_s']:.6f} s > {span:.6f} s from the end of its eviction "
               f"to the {after[0].name} after its close: the eviction between runs was timed into the run")
        print(f"ok {label}: elapsed {r['elapsed_s']:.6f} s <= {span:.6f} s from eviction's end to the call after close")


def holes(path, want=None):
    """[(start, end)] of the holes before the end of the file, or before `want`
    when the file is shorter (its missing tail counts as a hole)."""
    out = []
    with open(path, "rb") as f:
        fd, size, pos = f.fileno(), os.fstat(f.fileno()).st_size, 0
        while pos < size:
            h = os.lseek(fd, pos, os.SEEK_HOLE)
            if h >= size:
                break
            try:
                d = os.lseek(fd, h, os.SEEK_DATA)
            except OSError:
                d = size  # a hole to the end
            out.append((h, d))
            pos = d
    if want is not None and size < want:
        out.append((size, want))
    return out


def reports_holes(tmp):
    """Does this file system report holes at all?  A file with one byte at 1 MiB."""
    p = os.path.join(tmp, "sparse.probe")
    with open(p, "wb") as f:
        f.seek(MIB)
        f.write(b"x")
    try:
        return bool(holes(p))
    finally:
        os.unlink(p)


def written_file_holes(tmp, access):
    if not reports_holes(tmp):
        raise Skip(f"the file system under {tmp} does not report holes (SEEK_HOLE): nothing to check")
    prof = write(os.path.join(tmp, "h.ini"),
                 f"[h]\nbackend = posix\naccess = {access}\nblock_size = 4K\nsize = 8M\nkeep_files = true\n"
                 "phases = write,read\n")
    doc = json.loads(run([tool("iobench"), "run", prof, "--dir", tmp, "--output", "json"]).stdout)
    recs = records(doc)
    expect([r["phase"] for r in recs] == ["write", "read"], f"records: {recs}")
    f = recs[0]["file"]
    return f, holes(f, 8 * MIB)


def describe(hs):
    total = sum(e - s for s, e in hs)
    return f"{total} bytes in {len(hs)} holes (first at {hs[0][0]})" if hs else "no holes"


def case_no_holes_seq_write(tmp):
    f, hs = written_file_holes(tmp, "seq")
    expect(not hs, f"{f} after a sequential write phase: {describe(hs)}")
    print(f"ok {f}: {describe(hs)}")


def case_no_holes_rand_write(tmp):
    f, hs = written_file_holes(tmp, "rand")
    if hs:
        # Until the engine writes every block once (profile key random_map, issue 8),
        # random writes draw with replacement and leave about 1/e of the blocks unwritten.
        probe = write(os.path.join(tmp, "m.ini"), "[m]\naccess = rand\nsize = 1M\nrandom_map = true\nphases = write\n")
        env = dict(os.environ)
        env.pop("IOBENCH_PLUGIN_PATH", None)
        p = subprocess.run([tool("iobench"), "check", probe, "--dir", tmp], capture_output=True, text=True, env=env)
        if p.returncode != 0 and "random_map" in p.stderr:
            raise Skip(f"{f} after a random write phase: {describe(hs)}; expected until the engine's "
                       "random_map (issue 8) lands, after which this case must pass")
    expect(not hs, f"{f} after a random write phase: {describe(hs)}: a later read of it reads holes")
    print(f"ok {f}: {describe(hs)}")


def case_latency_sampled_labelled(tmp):
    f = os.path.join(tmp, "small.dat")
    with open(f, "wb") as out:
        out.write(os.urandom(4 * MIB))
    with open(f, "rb") as src:  # cached: each read is a copy from memory
        while src.read(MIB):
            pass
    ops = 200000
    prof = write(os.path.join(tmp, "p.ini"), "[cheap]\nbackend = mmap\nfilename = small.dat\naccess = rand\n"
                 f"block_size = 4K\nsize = 4M\nops = {ops}\nphases = read\n")
    p = run([tool("iobench"), "run", prof, "--dir", tmp, "--output", "json"])
    rec = records(json.loads(p.stdout))[0]
    if "lat_sampled_every" not in rec:
        raise Skip("the phase record carries no lat_sampled_every yet (the runner is to add the engine's "
                   "lat_sample_every and lat_samples to it)")
    k, n, lat = rec["lat_sampled_every"], rec["lat_samples"], rec["lat_ns"]
    expect(rec["ops"] == ops and rec["bytes"] == ops * 4 * KIB, f"work: {rec['ops']} ops, {rec['bytes']} bytes")
    expect(k > 1 and k & (k - 1) == 0, f"lat_sampled_every = {k}: 4 KiB copies from memory cost less than "
           "fifty times two clock reads, so they must be sampled, 1 in a power of two")
    expect(lat["count"] == n and 0 < n < ops, f"latency count {lat['count']}, lat_samples {n}, ops {ops}")
    expect(0.5 * ops / k - 20 < n < 1.5 * ops / k + 20, f"{n} samples for 1 in {k} of {ops} I/Os")
    print(f"ok: latency from 1 in {k} I/Os, {n} samples of {ops}")


# issue 27's target: start-up to the first I/O, and the last I/O to exit, each at most 5 ms.  The
# figures are printed, not asserted: an absolute time on this shared machine is a benchmark's
# figure, not a test's (CI saw 6.3 ms beside a browser test; at load 20 here the least of 7 tries
# of start-up was 76 ms once in 20 runs, failing the 50 ms bound this test had).  What is asserted
# is what a stall is: the main thread held up by a wait that ends by its timer (the stdout
# watcher's 100 ms poll, joined at exit, was one), seen by strace in either gap of every try,
# which no machine's speed adds or takes away.
STARTUP_MS = 5.0
# the calls that can wait on a timer, and how strace shows that one ended by it
WAITS = ("poll", "ppoll", "select", "pselect6", "epoll_wait", "epoll_pwait", "epoll_pwait2", "nanosleep",
         "clock_nanosleep", "futex")
TIMED_OUT = re.compile(r"=\s+(?:0 \(Timeout\)|-1 ETIMEDOUT\b)")


def startup_exit_once(tmp, data, prof, out):
    """One traced run: (ms from execve to the start of the first read of the
    data file, ms from the end of its last read to exit_group, the timed
    waits that held up the main thread in either gap), from strace's own
    timestamps.  A timed wait is a sleep, or a poll, select, epoll wait or
    futex that returned by its timeout, as strace shows it, placed by its
    return's stamp (a resumed line's, or a whole line's stamp plus its time).  out: a file for the
    JSON output, or None: the JSON on standard output, a pipe.
    --seccomp-bpf: only the traced calls stop the process, so strace adds
    little to the calls between."""
    log = os.path.join(tmp, "startup.strace")
    env = iob.env()
    env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"), "detect_leaks=0"]))
    cmd = ["strace", "-f", "-qq", "-y", "-ttt", "-T", "--seccomp-bpf", "-e",
           "trace=execve,read,pread64,readv,preadv,preadv2,exit,exit_group," + ",".join(WAITS), "-o", log,
           tool("iobench"), "run", prof, "--dir", tmp, "--output", "json=" + out if out else "json"]
    p = iob.run(cmd, env=env, timeout=240)
    if p.returncode != 0 and "seccomp" in p.stderr:
        raise Skip(f"strace cannot filter with seccomp-bpf here: {p.stderr.strip()[-200:]}")
    expect(p.returncode == 0, f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr[-2000:]}")
    execve = exit_at = main = None
    ios, waits, pending = [], [], {}
    with open(log) as f:
        for line in f:
            m = LINE.match(line.rstrip("\n"))
            if not m:
                continue
            pid, ts, rest = int(m.group("pid")), float(m.group("ts")), m.group("rest")
            if rest.startswith("execve(") and execve is None:
                execve, main = ts, pid
            elif rest.startswith("exit_group("):
                exit_at = ts
            elif rest.startswith("exit("):
                waits.append((pid, ts, ts, None, "exit"))  # a thread's end
            elif rest.endswith("<unfinished ...>"):
                pending[pid] = ts  # the entry's stamp; the return comes on a resumed line
            else:
                c = CALL.match(rest) or RESUMED.match(rest)
                name = c.group("name") if c else None
                if name in WAITS:
                    dur = re.search(r"<(\d+\.\d+)>$", rest)
                    entry = pending.pop(pid, ts) if rest.startswith("<...") else ts
                    ret = ts if rest.startswith("<...") else ts + (float(dur.group(1)) if dur else 0.0)
                    timer = name in ("nanosleep", "clock_nanosleep") or bool(TIMED_OUT.search(rest))
                    waits.append((pid, entry, ret, timer, f"{name} {rest[:120]}"))
                elif name in IO_READ and c is not None and not rest.startswith("<..."):
                    fm = FDPATH.match(c.group("args"))
                    r = RESULT.search(rest)
                    if fm and fm.group("path") == data and r:
                        ios.append((ts, ts + float(r.group("dur"))))
    expect(execve is not None and exit_at is not None and ios, f"strace log {log}: execve, reads of {data}, exit_group")

    def in_gap(t):
        return execve <= t <= ios[0][0] or ios[-1][1] <= t <= exit_at

    # a stall holds up the main thread: its own wait that ended by the timer, or
    # another thread's that ended (return stamp) while the main thread waited in a
    # call it had entered before (entry stamp), after which that thread ended (its
    # next call is exit): the main thread was joining a thread that left its wait
    # only when the time was up.  Another thread's tick alone (the watcher's 100 ms
    # poll, timing out while a slow start-up goes on, then polling again) holds
    # nothing up, however long a loaded machine makes the main thread's own waits.
    held = [(e, r) for p, e, r, timer, _ in waits if p == main and timer is not None and in_gap(e)]

    def then_ended(i, pid):
        return next((w for p, _, _, _, w in waits[i + 1:] if p == pid), None) == "exit"

    stalls = [w for i, (p, e, r, timer, w) in enumerate(waits) if timer and in_gap(r) and
              (p == main or (then_ended(i, p) and any(he <= r <= hr for he, hr in held)))]
    return (ios[0][0] - execve) * 1e3, (exit_at - ios[-1][1]) * 1e3, stalls


def case_startup_exit_gaps(tmp):
    """Nothing but I/O between start and exit: from execve to the first read
    of the data file, and from the last read to exit_group (strace's
    timestamps; the least of 7 tries, as a busy machine only adds time) for a
    small cached read with an output that writes a summary.  Printed against
    the 5 ms target, not asserted (the machine's speed and load set them);
    asserted in every try, in every build: in either gap no wait that holds
    up the main thread ends by its timer (a sleep, a poll, select, epoll or
    futex wait that timed out, in the main thread, or in a thread that ended
    after it while the main thread waited), so nothing there waits for time
    to pass."""
    need_strace()
    data = os.path.join(tmp, "s.dat")
    with open(data, "wb") as f:
        f.write(os.urandom(4 * MIB))
    with open(data, "rb") as f:  # cached
        while f.read(MIB):
            pass
    prof = write(os.path.join(tmp, "s.ini"), "[s]\nfilename = s.dat\nblock_size = 64K\nsize = 4M\nphases = read\n")
    out = os.path.join(tmp, "out.json")
    # the summary to a file, and on standard output to a pipe (a watcher
    # thread then waits for the pipe's reader to go: it must not hold up the exit)
    for where in (out, None):
        tries = [startup_exit_once(tmp, data, prof, where) for _ in range(7)]
        if where:
            with open(out) as f:
                recs = records(json.load(f))
            expect(len(recs) == 1 and recs[0]["bytes"] == 4 * MIB, recs)
        start, end = min(t[0] for t in tries), min(t[1] for t in tries)
        what = "a file" if where else "a pipe"
        print(f"output to {what}: start-up to first read: {start:.2f} ms; last read to exit: {end:.2f} ms "
              f"(least of {len(tries)}: {', '.join(f'{a:.2f}/{b:.2f}' for a, b, _ in tries)})")
        stalls = [w for t in tries for w in t[2]]
        expect(not stalls, f"output to {what}: the main thread held up by a wait that ended by its timer "
               f"between start-up and the first read or between the last read and exit, in {sum(1 for t in tries if t[2])} of {len(tries)} "
               f"tries: {stalls[:3]}")
        if os.environ.get("IOB_SANITIZED"):
            continue
        for gap, took in (("start-up to the first read", start), ("the last read to exit", end)):
            if took > STARTUP_MS:
                print(f"note: output to {what}: {gap} took {took:.2f} ms, above the {STARTUP_MS} ms target")


def case_checksum_libs_when_needed(tmp):
    """The checksum libraries this build loads by soname (IOB_LOADED_SONAMES,
    from CMake) are opened by no run that does not verify with them, and by
    the run of a job that does (whose verify then passes): strace's openat."""
    need_strace()
    sonames = [s for s in os.environ.get("IOB_LOADED_SONAMES", "").split(":") if s]
    if not sonames:
        raise Skip("this build links its checksum libraries (or has none): nothing is loaded when needed")
    data = os.path.join(tmp, "c.dat")
    with open(data, "wb") as f:
        f.write(os.urandom(MIB))
    kinds = {"libnettle": "md5", "libxxhash": "xxhash", "libisal": "crc32c"}

    def opened(prof):
        log = os.path.join(tmp, "open.strace")
        cmd = ["strace", "-f", "-qq", "-e", "trace=open,openat", "-o", log,
               tool("iobench"), "run", prof, "--dir", tmp, "--output", "json=" + os.path.join(tmp, "o.json")]
        env = iob.env()  # LeakSanitizer cannot run under ptrace
        env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"), "detect_leaks=0"]))
        p = iob.run(cmd, env=env, timeout=240)
        expect(p.returncode == 0, f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr[-2000:]}")
        with open(log) as f:
            text = f.read()
        return {s for s in sonames if re.search(r'open(at)?\(.*/' + re.escape(s) + r'"', text)}

    plain = write(os.path.join(tmp, "p.ini"), "[p]\nfilename = c.dat\nblock_size = 64K\nsize = 1M\nphases = read\n")
    got = opened(plain)
    expect(not got, f"a plain read opened {sorted(got)}")
    for soname in sonames:
        kind = next((k for pre, k in kinds.items() if soname.startswith(pre + ".so")), None)
        expect(kind is not None, f"no verify kind known for {soname}")
        prof = write(os.path.join(tmp, kind + ".ini"),
                     f"[v]\nfilename = v.dat\nblock_size = 64K\nsize = 1M\nverify = {kind}\nphases = write,verify\n")
        got = opened(prof)
        expect(got == {soname}, f"verify = {kind} opened {sorted(got)}, not just {soname}")
        with open(os.path.join(tmp, "o.json")) as f:
            recs = records(json.load(f))
        expect([r["phase"] for r in recs] == ["write", "verify"] and all(r["status"] == "ok" for r in recs),
               f"verify = {kind}: {[(r.get('phase'), r.get('status')) for r in recs]}")
        print(f"verify = {kind}: {soname} opened only then")


def mountinfo_facts(path):
    """(fs type, source) of the /proc/self/mountinfo line whose major:minor is
    path's st_dev (the last such line), as iobench read them before statmount."""
    st = os.stat(path)
    want = f"{os.major(st.st_dev)}:{os.minor(st.st_dev)}"
    got = ("unknown", "unknown")
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split(" ")
            if len(fields) > 2 and fields[2] == want and " - " in line:
                tail = line.split(" - ", 1)[1].split()
                if tail:
                    got = (tail[0], tail[1] if len(tail) > 1 else "unknown")
    return got


def case_fs_facts_one_mount(tmp):
    """A record's fs_type and device are those of the mount table's line for
    the job directory's device, however iobench learns them (statmount(2),
    where the kernel has it, for the one mount; else the table), on this
    directory's file system and on tmpfs; and where the kernel has statmount
    with the mount's source (Linux 6.13), the table is not read (strace)."""
    if not os.path.exists("/proc/self/mountinfo"):
        raise Skip("no /proc/self/mountinfo here")
    dirs = [tmp]
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        dirs.append(tempfile.mkdtemp(dir="/dev/shm", prefix="iob-fs-facts-"))
    try:
        for d in dirs:
            prof = write(os.path.join(tmp, "f.ini"), "[f]\nfilename = f.dat\nblock_size = 64K\nsize = 256K\n"
                         "phases = write,read\n")
            p = run([tool("iobench"), "run", prof, "--dir", d, "--output", "json"])
            recs = records(json.loads(p.stdout))
            want = mountinfo_facts(d)
            expect(len(recs) == 2 and all((r["fs_type"], r["device"]) == want for r in recs),
                   f"{d}: records say {[(r.get('fs_type'), r.get('device')) for r in recs]}, the mount table {want}")
            print(f"{d}: fs_type {want[0]}, device {want[1]}: as the mount table says")
    finally:
        for d in dirs[1:]:
            shutil.rmtree(d, ignore_errors=True)
    rel = re.match(r"(\d+)\.(\d+)", os.uname().release)
    if not rel or (int(rel.group(1)), int(rel.group(2))) < (6, 13) or not shutil.which("strace"):
        print("the mount table's reads not checked: needs Linux 6.13 and strace")
        return
    log = os.path.join(tmp, "facts.strace")
    cmd = ["strace", "-f", "-qq", "-e", "trace=open,openat", "-o", log, tool("iobench"), "run", prof, "--dir", tmp,
           "--output", "json=" + os.path.join(tmp, "o.json")]
    env = iob.env()  # LeakSanitizer cannot run under ptrace
    env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"), "detect_leaks=0"]))
    p = iob.run(cmd, env=env, timeout=240)
    expect(p.returncode == 0, f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr[-2000:]}")
    with open(log) as f:
        opened = [line for line in f if "mountinfo" in line]
    expect(not opened, f"the mount table was read: {opened[:2]}")
    print("the mount table was not read (statmount)")


RSS_MARGIN_KIB = 512  # the peak RSS of 1e6 I/Os may exceed that of 1e3 by at most this


def case_aio_close_untimed(tmp):
    """The libaio backend's close keeps its AIO context for the next open:
    io_destroy waits for an RCU grace period (31 ms on this project's VM),
    and a phase ends at its last close, so a destroy there was timed.  A
    paced job (rate_iops 1000, 32 I/Os a phase) writes then reads with the
    libaio backend under strace: one io_setup serves both phases (the read's
    open reuses the write's context), and every io_destroy starts after the
    last phase record was written (at the plugin's unload).  An order of
    system calls, not a time: it holds on any machine."""
    need_strace()
    prof = write(os.path.join(tmp, "a.ini"), "[a]\nfilename = a.dat\nbackend = libaio\niodepth = 4\n"
                 "block_size = 4K\nsize = 128K\nrate_iops = 1000\nphases = write,read\n")
    chk = iob.run([tool("iobench"), "check", prof, "--dir", tmp], env=iob.env(), timeout=60)
    if chk.returncode != 0 and "libaio" in chk.stderr:
        raise Skip(f"no libaio backend in this build: {chk.stderr.strip()[:200]}")
    log, out = os.path.join(tmp, "aio.strace"), os.path.join(tmp, "aio.json")
    cmd = ["strace", "-f", "-qq", "-ttt", "-y", "-s", "48", "-e", "trace=io_setup,io_destroy,io_submit,write",
           "-o", log, tool("iobench"), "run", prof, "--dir", tmp, "--output", "json=" + out]
    env = iob.env()  # LeakSanitizer cannot run under ptrace
    env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"), "detect_leaks=0"]))
    p = iob.run(cmd, env=env, timeout=240)
    if p.returncode != 0 and "io_setup" in p.stderr:
        raise Skip(f"Linux AIO is not available here: {p.stderr.strip()[:200]}")
    expect(p.returncode == 0, f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr[-2000:]}")
    with open(out) as f:
        recs = records(json.load(f))
    expect([r["phase"] for r in recs] == ["write", "read"] and all(r["ops"] == 32 for r in recs), recs)
    setups, destroys, submits, recs_at = [], [], [], []
    with open(log) as f:
        for line in f:
            m = re.match(r"\d+\s+(\d+\.\d+) (\w+)\((.*)", line)
            if not m:
                continue
            ts, name, rest = float(m.group(1)), m.group(2), m.group(3)
            if name == "io_setup":
                setups.append(ts)
            elif name == "io_destroy":
                destroys.append(ts)
            elif name == "io_submit":
                submits.append(ts)
            elif name == "write" and "aio.json>" in rest and '\\"kind\\":\\"phase\\"' in rest:
                recs_at.append(ts)
    expect(len(recs_at) == 2 and len(submits) >= 2, f"strace log {log}: {len(recs_at)} phase records written, "
           f"{len(submits)} io_submit calls")
    expect(len(setups) == 1, f"{len(setups)} io_setup calls for two phases of one stream at one depth: "
           "the read's open did not reuse the write's context")
    early = [t for t in destroys if t < recs_at[-1]]
    expect(not early, f"{len(early)} io_destroy call(s) before the last phase record was written (first at "
           f"{early[0] - submits[0] if early else 0:.6f} s after the first io_submit): a close destroyed its context")
    took = ", ".join("%.4f" % r["elapsed_s"] for r in recs)
    print(f"io_setup {len(setups)}, io_destroy {len(destroys)} (all after the records); phases' elapsed "
          f"{took} s for 32 I/Os paced at 1000 per second")


def peak_rss_kib(rawloop, prof, tmp):
    """The least peak RSS (KiB) of 3 runs of `iobench run prof` with a JSON
    output, and that output's first phase record."""
    kib = []
    for _ in range(3):
        p = run([rawloop, "rss", tool("iobench"), "run", prof, "--dir", tmp, "--output",
                 "json=" + os.path.join(tmp, "out.json")])
        got = json.loads(p.stdout)
        expect(got["status"] == 0, got)
        kib.append(got["maxrss_kib"])
    with open(os.path.join(tmp, "out.json")) as f:
        return min(kib), records(json.load(f))[0]


def case_rss_flat(tmp):
    """Memory does not grow with the work: the peak RSS of 1,000,000 null
    reads (depth 1, and depth 32) is within 512 KiB of that of 1,000 (the
    kernel's ru_maxrss of the process, from bench/rawloop rss, which forks
    from a small process so none of Python's pages count; least of 3 runs
    each, both sides the same way).  A sanitizer build prints the figures."""
    rawloop = os.path.join(ARGS.bin, "..", "bench", "rawloop")
    if not os.access(rawloop, os.X_OK):
        raise Skip(f"{rawloop} is not built (bench/CMakeLists.txt): it measures the peak RSS")
    res = {}
    for depth in (1, 32):
        for ops in (1000, 1000000):
            prof = write(os.path.join(tmp, f"r{depth}_{ops}.ini"),
                         "[r]\nbackend = null\nfilename = none.dat\naccess = rand\nblock_size = 4K\nsize = 1G\n"
                         f"phases = read\nops = {ops}\niodepth = {depth}\n")
            kib, rec = peak_rss_kib(rawloop, prof, tmp)
            expect(rec["ops"] == ops, "ops")
            res[(depth, ops)] = kib
    print(", ".join(f"depth {d}, {o:,} I/Os: {k} KiB" for (d, o), k in sorted(res.items())))
    if os.environ.get("IOB_SANITIZED"):
        return
    for depth in (1, 32):
        small, big = res[(depth, 1000)], res[(depth, 1000000)]
        expect(big <= small + RSS_MARGIN_KIB,
               f"depth {depth}: peak RSS {big} KiB at 1,000,000 I/Os against {small} KiB at 1,000: grows with the work")


def case_series_memory_budgeted(tmp):
    """The memory budget covers a series: reading a sparse 1 GiB file in
    262,144 blocks of 4 KiB instead of 1,024 of 1 MiB raises the peak RSS
    (the kernel's ru_maxrss, as rss_flat measures it) by no more than it
    raises the memory the checks say the job needs (their refusal at
    --memory-limit 1M names it).  The series' samples and the block
    summary's sort at the phase's end are about 65 bytes a block."""
    rawloop = os.path.join(ARGS.bin, "..", "bench", "rawloop")
    if not os.access(rawloop, os.X_OK):
        raise Skip(f"{rawloop} is not built (bench/CMakeLists.txt): it measures the peak RSS")
    data = os.path.join(tmp, "s.dat")
    with open(data, "wb") as f:
        f.truncate(1 << 30)
    units = {"KiB": 1024, "MiB": 1 << 20, "GiB": 1 << 30}
    need, rss = {}, {}
    for bs in ("1M", "4K"):
        prof = write(os.path.join(tmp, f"s{bs}.ini"), "[s]\nfilename = s.dat\naccess = seq\n"
                     f"block_size = {bs}\nsize = 1G\nseries = true\nphases = read\n")
        p = iob.run([tool("iobench"), "run", prof, "--dir", tmp, "--memory-limit", "1M", "--output", "human"],
                    env=iob.env(), timeout=240)
        m = re.search(r"need ([0-9.]+) (KiB|MiB|GiB) at once", p.stderr)
        expect(p.returncode == 2 and m, f"block_size {bs}: no refusal naming the need: {p.returncode} {p.stderr}")
        need[bs] = float(m.group(1)) * units[m.group(2)]
        kib, rec = peak_rss_kib(rawloop, prof, tmp)
        expect(rec["blocks"] == (1024 if bs == "1M" else 262144), f"block_size {bs}: {rec['blocks']} blocks")
        rss[bs] = kib * 1024
    grew, budgeted = rss["4K"] - rss["1M"], need["4K"] - need["1M"]
    print(f"262,144 blocks against 1,024: peak RSS +{grew / 1048576:.2f} MiB, "
          f"budgeted +{budgeted / 1048576:.2f} MiB")
    if os.environ.get("IOB_SANITIZED"):
        return
    expect(grew <= budgeted, f"the peak RSS grew {grew} bytes, more than the {budgeted} bytes the budget added")


if __name__ == "__main__":
    ARGS = iob.arguments("--bin", "--work", case=True)
    sys.exit(iob.run_case(ARGS, globals(), realpath=True))
