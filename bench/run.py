#!/usr/bin/env python3
"""iobench's benchmark against its floor and its rivals, in one run.

For each scenario the contenders run in interleaved rounds, each reporting its
own figure; the script prints the median of each and the ratios the targets are
stated in, and writes the same as JSON.

  bench/run.py --build build [--dir DIR] [--rounds 5] [--json out.json] [--only a,b]
  bench/run.py --build build --quick [--selftest-unequal]   (tiny sizes, 1 round)

Equal work or no ratio: every contender's own output is parsed for the I/O calls
and bytes it really did (iobench's and iotest's JSON records, fio's JSON
io_bytes and total_ios, dd's "N bytes copied" and "records in/out", the raw
loops' own JSON; bigread, run with its own lines as a person runs it: its block
lines, and the bytes the kernel counted for its process).  Two contenders whose work differs by more than 0.1% in bytes
or in I/O calls are not compared: the pair is printed as INVALID with both work
figures, and the JSON says so.  Besides each tool's own figure, every sample
also gives the whole-process figure: its work over the wall time of the whole
process, as an observer outside it would time it.

Contenders run in rotating order (round i starts with contender i).
Scenarios (docs/performance.md):
  a  4 KiB random reads of a page-cached 64 MiB file, one thread, latency
     recorded: iobench posix vs raw pread loop vs fio psync (offsets drawn
     with replacement by all three: random_map = false, --norandommap)
  b  1 MiB sequential reads of a cached 1 GiB file (read into the cache before
     every run): bigread vs raw read loop vs dd,
     compared as whole processes (bigread's start-up, probe and block lines count)
  c  1 MiB sequential write of 1 GiB, fsync at the end: iotest vs dd conv=fsync vs fio
  d  mmap backend cached reads vs a raw copy-from-mapping loop (1 MiB sequential
     and 4 KiB random; the random one draws with replacement on both sides,
     random_map = false)
  e  direct backend 4 KiB random reads vs fio direct=1 (device-bound)
  q  io_uring backend (direct=1) 4 KiB random reads at iodepth 32 vs fio
     ioengine=io_uring iodepth=32 direct=1 (IOPS, and CPU time per I/O from
     each tool's own account), and io_uring at iodepth 1 vs the direct backend;
     prints "not runnable" when iobench does not know the iodepth key yet
  f  one fio job file (4 KiB random direct reads, psync) run unchanged by fio
     and by iobench (docs/fio.md): equal work from both outputs, IOPS within
     10%, CPU time per I/O from each tool's own account
  t  4 KiB random reads of a page-cached file: 2 streams (threads = 2, one
     shared file, half the ops each) vs 1 stream doing all the ops (scaling)
  n  the null backend (no I/O) vs fio ioengine=null, 4 KiB random, one thread,
     at iodepth 1, 32 and 128 (IOPS and CPU ns per I/O; fio also with
     gtod_reduce=1, latency off; iobench has no such switch), and 2 streams
     vs 1 on the null backend: the tools' own ceilings, beside the machine's
     (rawloop null-rand: the same per-I/O step on 2 threads vs 1, nothing shared)
  r  a runtime = 5s phase (cached 4 KiB random reads): how far the phase's own
     elapsed time and the whole process's wall time are from the limit
  startup  load every plugin and parse a profile (iobench check), median wall time
  rss      peak RSS of a 1 GiB run
  accuracy reported bytes vs /proc/self/io, reported rate vs bytes / wall time
fio contenders are skipped, with that reason printed, when fio is not installed
(tools/deps.sh fio installs it).  Exit status: 0, or 1 when a comparison was
INVALID (with --selftest-unequal: when its deliberately unequal pair was not
flagged).  Run it on an idle machine; only --quick is part of the test suite.
"""
import atexit
import argparse
import json
import math
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

A = None
RESULTS = {}
MiB = 1 << 20
WORK_TOLERANCE = 0.001  # contenders whose work differs by more are not compared

# Sizes of the full run, and of --quick (tiny: checks the script end to end, not speed).
SIZES = {
    "a_file": 64 * MiB, "ops": 500000, "direct_ops": 20000, "b_file": 1024 * MiB, "c_bytes": 1024 * MiB,
    "d_loops": 16, "e_file": 256 * MiB, "startup_runs": 30, "rss_file": 1024 * MiB, "uring_ops": 100000,
    "runtime_s": 5, "null_ops": 4000000, "null_big_ops": 100000000, "null_thread_ops": 400000000,
}
QUICK = {
    "a_file": 4 * MiB, "ops": 2000, "direct_ops": 300, "b_file": 16 * MiB, "c_bytes": 16 * MiB,
    "d_loops": 2, "e_file": 8 * MiB, "startup_runs": 3, "rss_file": 16 * MiB, "uring_ops": 300,
    "runtime_s": 1, "null_ops": 2000, "null_big_ops": 4000, "null_thread_ops": 4000,
}
S = dict(SIZES)


class Sample:
    """One run of one contender: its own figure and the work it says it did."""

    def __init__(self, value, nbytes, ops, wall_s):
        self.value, self.bytes, self.ops, self.wall_s = value, nbytes, ops, wall_s


def sh(cmd, **kw):
    env = dict(os.environ, LC_ALL="C")
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, **kw)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()[-800:]}")
    return p


def timed(cmd):
    """Run cmd; return (completed process, wall seconds of the whole process)."""
    t0 = time.perf_counter()
    p = sh(cmd)
    return p, time.perf_counter() - t0


def binp(name):
    return os.path.join(A.build, "bin", name)


# --- each contender's own account of its work -----------------------------

def parse_records(stdout, kinds=("phase", "iotest")):
    """The phase records of an iobench or iotest JSON document ("iotest" is the
    old name of iotest's records)."""
    return [r for r in json.loads(stdout)["records"] if r.get("kind") in kinds]


def parse_fio(stdout):
    """(bytes, ios, runtime_ms, job) from fio's --output-format=json."""
    job = json.loads(stdout[stdout.index("{"):])["jobs"][0]  # fio may print notes first
    nbytes = sum(job[d]["io_bytes"] for d in ("read", "write", "trim") if d in job)
    ios = sum(job[d]["total_ios"] for d in ("read", "write", "trim") if d in job)
    runtime = max(job[d]["runtime"] for d in ("read", "write") if d in job)
    return nbytes, ios, runtime, job


def parse_dd(stderr, direction):
    """(bytes, records, seconds) from dd's summary: "N+M records in/out" and
    "B bytes (...) copied, S s"."""
    rec = re.search(r"(\d+)\+(\d+) records " + ("in" if direction == "read" else "out"), stderr)
    m = re.search(r"(\d+) bytes .*copied, ([\d.]+) s", stderr)
    if not rec or not m:
        raise RuntimeError(f"dd: cannot read its summary: {stderr.strip()[-300:]}")
    return int(m.group(1)), int(rec.group(1)) + int(rec.group(2)), float(m.group(2))


SAMPLING = {}  # scenario label -> the latency sampling iobench's records reported


def iobench(prof, key):
    p, wall = timed([binp("iobench"), "run", prof, "--dir", A.dir, "--output", "json"])
    recs = parse_records(p.stdout)
    r = recs[0]
    if "lat_sampled_every" in r:
        SAMPLING.setdefault(prof, []).append((r["lat_sampled_every"], r.get("lat_samples")))
    return Sample(r[key], sum(x["bytes"] for x in recs), sum(x["ops"] for x in recs), wall)


def show_sampling(name, prof):
    """Say how iobench's latency was sampled in this scenario (1 = every I/O timed)."""
    got = SAMPLING.get(prof)
    if got:
        ks = sorted({k for k, _ in got})
        RESULTS[name]["lat_sampled_every"] = [k for k, _ in got]
        RESULTS[name]["lat_samples"] = [n for _, n in got]
        print(f"  iobench latency: 1 in {'/'.join(map(str, ks))} I/Os timed "
              f"({', '.join(f'{n:,}' for _, n in got if n is not None)} samples)")


def own_rchar():
    """This process's rchar (/proc/self/io): bytes passed to read system calls,
    its reaped children's included (the kernel adds a child's counters to its
    parent's when it is reaped)."""
    with open("/proc/self/io") as f:
        return int(re.search(r"^rchar: (\d+)$", f.read(), re.M).group(1))


def rawloop(key, *args):
    p, wall = timed([os.path.join(A.build, "bench", "rawloop"), *map(str, args)])
    r = json.loads(p.stdout)
    return Sample(r[key], r["bytes"], r["ops"], wall)


def fio(key, args):
    p, wall = timed(["fio", "--output-format=json", *args])
    nbytes, ios, runtime, job = parse_fio(p.stdout)
    d = "write" if job["write"]["io_bytes"] else "read"
    if runtime < 100:
        print(f"  (fio ran {runtime} ms: its figure is rounded to whole milliseconds)")
    return Sample(job[d][key], nbytes, ios, wall)


def dd(direction, args):
    p, wall = timed(["dd", *args])
    nbytes, records, secs = parse_dd(p.stderr, direction)
    return Sample(nbytes / secs, nbytes, records, wall)


# --- the equal-work rule --------------------------------------------------

def work_differs(a, b, tol=WORK_TOLERANCE):
    """None when the two contenders' samples did the same work (bytes, and I/O
    calls where both report them) within tol; otherwise the reason, naming both
    work figures.  a and b: {"bytes": [...], "ops": [...]} over their samples."""
    for what in ("bytes", "ops"):
        va = [v for v in a.get(what, []) if v is not None]
        vb = [v for v in b.get(what, []) if v is not None]
        if not va or not vb:
            if what == "bytes":
                return "no work figure reported"
            continue
        lo, hi = min(va + vb), max(va + vb)
        if hi - lo > tol * hi:
            return f"{what} differ: {fmt_work(va)} against {fmt_work(vb)}"
    return None


def fmt_work(values):
    lo, hi = min(values), max(values)
    return f"{lo:,}" if lo == hi else f"{lo:,}..{hi:,}"


def rounds(name, contenders, unit):
    """Run contenders interleaved.  contenders: {name: callable returning a Sample,
    or a string saying why it is skipped}.  Records and returns the medians."""
    skipped = {c: f for c, f in contenders.items() if isinstance(f, str)}
    run = {c: f for c, f in contenders.items() if not isinstance(f, str)}
    samples = {c: [] for c in run}
    names = list(run)
    for i in range(A.rounds):
        # rotate who goes first, so no contender always follows the same one
        for c in names[i % len(names):] + names[:i % len(names)]:
            samples[c].append(run[c]())
    per_op = unit == "IOPS"
    RESULTS[name] = {
        "unit": unit,
        "median": {c: statistics.median(s.value for s in v) for c, v in samples.items()},
        "samples": {c: [s.value for s in v] for c, v in samples.items()},
        "work": {c: {"bytes": [s.bytes for s in v], "ops": [s.ops for s in v]} for c, v in samples.items()},
        "process_median": {c: statistics.median((s.ops if per_op else s.bytes) / s.wall_s for s in v)
                           for c, v in samples.items()},
        "process_wall_s": {c: [s.wall_s for s in v] for c, v in samples.items()},
        "skipped": skipped,
    }
    show(name)
    return RESULTS[name]["median"]


def target_text(lo, hi):
    parts = ([f">= {lo}"] if lo is not None else []) + ([f"<= {hi}"] if hi is not None else [])
    return " and ".join(parts)


def ratio(name, a, b, lo=None, hi=None, process=False):
    """Ratio of a's median to b's when they did equal work; else INVALID."""
    res = RESULTS[name]
    label = f"{a}/{b}" + (" whole process" if process else "")
    out = res.setdefault("ratios", {})
    missing = [c for c in (a, b) if c in res["skipped"]]
    if missing:
        out[label] = {"valid": None, "skipped": f"{missing[0]}: {res['skipped'][missing[0]]}"}
        print(f"  {label}: not compared ({out[label]['skipped']})")
        return None
    why = work_differs(res["work"][a], res["work"][b])
    if why:
        out[label] = {"valid": False, "reason": f"unequal work: {why}",
                      "work": {a: res["work"][a], b: res["work"][b]}}
        print(f"  {label}: INVALID, unequal work: {a} {work_line(res['work'][a])}; "
              f"{b} {work_line(res['work'][b])}")
        return None
    med = res["process_median"] if process else res["median"]
    r = med[a] / med[b]
    target = target_text(lo, hi)
    ok = (lo is None or r >= lo) and (hi is None or r <= hi)
    # the median of the rounds' own ratios (a round's two runs are adjacent,
    # so a device whose speed drifts over minutes moves both): shown beside
    # the ratio of medians, which alone decides the target
    def per_round(c):
        if not process:
            return res["samples"][c]
        work = res["work"][c]["ops"] if res["unit"] == "IOPS" else res["work"][c]["bytes"]
        return None if None in work else [x / w for x, w in zip(work, res["process_wall_s"][c])]
    pa, pb = per_round(a), per_round(b)
    rr = sorted(x / y for x, y in zip(pa, pb) if y) if pa and pb and len(pa) == len(pb) else []
    paired = statistics.median(rr) if rr else None
    ci = median_ci(rr)
    out[label] = {"valid": True, "value": r, "paired_median": paired, "paired_ci95": ci, "target": target,
                  "met": ok}
    print(f"  {label} = {r:.3f}" + (f"  (target {target}: {'met' if ok else 'MISSED'})" if target else "")
          + (f"  [median of the rounds' ratios {paired:.3f}" if paired is not None else "")
          + (f", 95% CI {ci[0]:.3f}-{ci[1]:.3f}{ci_side(ci, lo, hi)}" if ci else "")
          + ("]" if paired is not None else ""))
    return r


def median_ci(xs, level=0.95):
    """A distribution-free interval for the median of the sorted values xs
    (the rounds' own ratios): order statistics k and n+1-k, with k the largest
    for which Binomial(n, 1/2) leaves at most (1-level)/2 below k.  None under
    6 values, where no such interval reaches 95%."""
    n = len(xs)
    tail, k, cum = (1 - level) / 2, 0, 0.0
    for j in range(n + 1):
        cum += math.comb(n, j) / 2 ** n
        if cum > tail:
            break
        k = j + 1
    if k < 1:
        return None
    return (xs[k - 1], xs[n - k])


def ci_side(ci, lo, hi):
    """Where the interval lies against the target: wholly on one side, or across it."""
    if lo is None and hi is None:
        return ""
    if (lo is None or ci[0] >= lo) and (hi is None or ci[1] <= hi):
        return ": all of it meets the target"
    if (lo is not None and ci[1] < lo) or (hi is not None and ci[0] > hi):
        return ": all of it misses the target"
    return ": across the target"


def work_line(w):
    ops = [o for o in w["ops"] if o is not None]
    return f"{fmt_work(w['bytes'])} bytes" + (f" in {fmt_work(ops)} I/Os" if ops else "")


def show(name):
    r = RESULTS[name]
    print(f"{name} [{r['unit']}; whole process: work / process wall time]")
    for c, v in r["median"].items():
        print(f"  {c:10s} median {v:,.1f}   whole process {r['process_median'][c]:,.1f}   "
              f"({', '.join(f'{x:,.0f}' for x in r['samples'][c])}; {work_line(r['work'][c])})")
    for c, why in r["skipped"].items():
        print(f"  {c:10s} skipped: {why}")


# --- scenarios ------------------------------------------------------------

def make_file(path, size):
    if os.path.exists(path) and os.path.getsize(path) == size:
        return path
    with open(path, "wb") as f:
        chunk = os.urandom(MiB)
        for _ in range(size // MiB):
            f.write(chunk)
        f.flush()
        os.fsync(f.fileno())
    return path


def warm(path):
    with open(path, "rb") as f:
        while f.read(8 * MiB):
            pass


def warmed(path, fn):
    """fn, with path read into the page cache just before each run (outside
    the run's process and time): on a shared machine another session may
    drop the caches between rounds, and a cached-read scenario must not time
    whichever contender comes next reading from storage."""
    def run():
        warm(path)
        return fn()
    return run


_profiles = []


def _remove_profiles():
    for p in _profiles:
        try:
            os.unlink(p)
        except FileNotFoundError:
            pass


atexit.register(_remove_profiles)


def profile(text):
    """a profile file in the bench directory, removed when the bench exits
    (however it exits, short of a signal that kills it)"""
    fd, path = tempfile.mkstemp(suffix=".ini", dir=A.dir)
    _profiles.append(path)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    return path


def fio_or(reason_or_fn):
    return reason_or_fn if A.fio else "fio not installed (tools/deps.sh fio)"


def fio_rand_args(f, size, ops, bs=4096, engine="psync"):
    """fio stops at number_ios only if nothing stops it sooner: io_size (which
    defaults to size) is set to twice the work, so number_ios is what ends the
    job; its total_ios then says whether it did."""
    return [f"--filename={f}", "--rw=randread", f"--bs={bs}", f"--ioengine={engine}", f"--size={size}",
            f"--io_size={2 * ops * bs}", f"--number_ios={ops}"]


def scenario_a():
    f = make_file(os.path.join(A.dir, "a.dat"), S["a_file"])
    warm(f)
    ops = S["ops"]
    # every contender draws its offsets with replacement, as the raw loop
    # does: iobench's and fio's default orders (every block once per pass)
    # would miss the CPU cache on every copy while the raw loop's draws find
    # a page still cached about as often as the cache holds a share of the
    # file (docs/performance.md)
    prof = profile(f"[a]\nfilename = a.dat\naccess = rand\nblock_size = 4K\nsize = {S['a_file']}\nops = {ops}\n"
                   "random_map = false\nphases = read\n")
    rounds("a_rand4k_cached", {
        "iobench": lambda: iobench(prof, "ops_per_s"),
        "raw": lambda: rawloop("ops_per_s", "pread-rand", f, 4096, ops, 7),
        "fio": fio_or(lambda: fio("iops", ["--name=a", *fio_rand_args(f, S["a_file"], ops), "--invalidate=0",
                                           "--norandommap"])),
    }, "IOPS")
    show_sampling("a_rand4k_cached", prof)
    ratio("a_rand4k_cached", "iobench", "raw", lo=0.90)
    ratio("a_rand4k_cached", "iobench", "fio", lo=1.5)
    ratio("a_rand4k_cached", "iobench", "fio", process=True)


def scenario_b():
    f = make_file(os.path.join(A.dir, "b.dat"), S["b_file"])
    warm(f)

    def bigread_read(path):
        """(bytes the kernel counted for a bigread of path, its block lines, its
        block size, wall s)"""
        io0 = own_rchar()
        p, wall = timed([binp("bigread"), f"in={path}", "bufsize=1M"])
        nbytes = own_rchar() - io0 - len(p.stdout.encode()) - len(p.stderr.encode())
        bs = int(re.search(r"^BufSize: (\d+) bytes$", p.stdout, re.M).group(1))
        # block lines "INDEX SPEED", SPEED printed with %g as the legacy tool did
        return nbytes, len(re.findall(r"^\d+ \d+(?:\.\d+)?(?:e[+-]\d+)?$", p.stdout, re.M)), bs, wall

    # what bigread reads besides its input (its configuration, /proc, plugin
    # headers): the kernel's count for a one-block file, less that block
    one = make_file(os.path.join(A.dir, "b1.dat"), MiB)
    own = bigread_read(one)[0] - MiB

    def bigread():
        # as a person runs it, with its own lines (JSON block records cost far
        # more to format than these): the blocks it read are its "INDEX SPEED"
        # lines, each a whole block here (the file is whole blocks); those bytes
        # stand when the kernel's count, less bigread's own reads, agrees within
        # the work tolerance, else the kernel's count stands (and will differ)
        nbytes, blocks, bs, wall = bigread_read(f)
        kernel = nbytes - own
        said = blocks * bs
        work = said if abs(kernel - said) <= WORK_TOLERANCE * said else kernel
        return Sample(work / wall, work, blocks, wall)

    # the same read as an iobench job (one phase record, no line per block)
    seq = profile(f"[b]\nfilename = b.dat\naccess = seq\nblock_size = 1M\nsize = {S['b_file']}\n"
                  "phases = read\n")
    rounds("b_seq1m_read_cached", {
        "bigread": warmed(f, bigread),
        "iobench": warmed(f, lambda: iobench(seq, "bw_bytes_per_s")),
        "raw": warmed(f, lambda: rawloop("bw_bytes_per_s", "read-seq", f, MiB)),
        "dd": warmed(f, lambda: dd("read", [f"if={f}", "of=/dev/null", "bs=1M"])),
    }, "bytes/s")
    # whole processes: the tools' own costs (start-up, the residency probe, a
    # line per block) count, as an outside observer timing them would see them
    ratio("b_seq1m_read_cached", "bigread", "raw", lo=0.95, process=True)
    ratio("b_seq1m_read_cached", "bigread", "dd", lo=0.97, process=True)
    ratio("b_seq1m_read_cached", "iobench", "dd", lo=0.97, process=True)


def settle(path):
    """Same starting state for every write contender: no old file, nothing
    dirty, and (as root) an empty page cache."""
    if os.path.exists(path):
        os.unlink(path)
    os.sync()
    if os.geteuid() == 0:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")


def scenario_c():
    f = os.path.join(A.dir, "c.dat")
    mib = S["c_bytes"] // MiB

    def iotest():
        settle(f)
        p, wall = timed([binp("iotest"), "--format", "json", "-s", str(mib), "-b", "1024", "-p", "0", "-w", f])
        recs = parse_records(p.stdout)
        return Sample(recs[0]["bw_bytes_per_s"], sum(r["bytes"] for r in recs), sum(r["ops"] for r in recs), wall)

    def dd_c():
        settle(f)
        return dd("write", ["if=/dev/zero", f"of={f}", "bs=1M", f"count={mib}", "conv=fsync"])

    def fio_c():
        settle(f)
        return fio("bw_bytes", ["--name=c", f"--filename={f}", "--rw=write", "--bs=1m", "--ioengine=psync",
                                f"--size={S['c_bytes']}", "--end_fsync=1"])

    rounds("c_seq1m_write_fsync", {"iotest": iotest, "dd": dd_c, "fio": fio_or(fio_c)}, "bytes/s")
    ratio("c_seq1m_write_fsync", "iotest", "dd", lo=0.97)
    ratio("c_seq1m_write_fsync", "iotest", "fio")
    if os.path.exists(f):
        os.unlink(f)


def scenario_d():
    f = make_file(os.path.join(A.dir, "a.dat"), S["a_file"])
    warm(f)
    loops = S["d_loops"]
    seq = profile(f"[d]\nbackend = mmap\nfilename = a.dat\nblock_size = 1M\nsize = {S['a_file']}\n"
                  f"loops = {loops}\nphases = read\n")
    rounds("d_mmap_seq1m_cached", {
        "iobench": lambda: iobench(seq, "bw_bytes_per_s"),
        "raw": lambda: rawloop("bw_bytes_per_s", "mmap-seq", f, MiB, loops),
    }, "bytes/s")
    ratio("d_mmap_seq1m_cached", "iobench", "raw", lo=0.90)
    # offsets drawn with replacement, as the raw loop draws them: with the
    # default permutation (every block once per pass) every copy misses the
    # CPU cache, while the raw loop's draws find a block still cached about
    # as often as the cache holds a share of the file (docs/performance.md)
    rnd = profile(f"[d]\nbackend = mmap\nfilename = a.dat\naccess = rand\nblock_size = 4K\nsize = {S['a_file']}\n"
                  f"ops = {S['ops']}\nrandom_map = false\nphases = read\n")
    rounds("d_mmap_rand4k_cached", {
        "iobench": lambda: iobench(rnd, "ops_per_s"),
        "raw": lambda: rawloop("ops_per_s", "mmap-rand", f, 4096, S["ops"], 7),
    }, "IOPS")
    show_sampling("d_mmap_rand4k_cached", rnd)
    ratio("d_mmap_rand4k_cached", "iobench", "raw", lo=0.90)


def direct_works(path):
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    except OSError as e:
        return str(e)
    os.close(fd)
    return None


def direct_file(result, label=None):
    """The direct scenarios' file (e.dat, S["e_file"] bytes), or None when
    O_DIRECT does not work under --dir: then RESULTS[result] says skipped and
    a line says so (as label, else result)."""
    f = make_file(os.path.join(A.dir, "e.dat"), S["e_file"])
    why = direct_works(f)
    if why:
        print(f"{label or result}: skipped: O_DIRECT does not work under {A.dir} ({why})")
        RESULTS[result] = {"skipped": f"O_DIRECT does not work under {A.dir}: {why}"}
        return None
    return f


def scenario_e():
    f = direct_file("e_direct_rand4k")
    if not f:
        return
    ops = S["direct_ops"]
    prof = profile(f"[e]\nbackend = direct\nfilename = e.dat\naccess = rand\nblock_size = 4K\nsize = {S['e_file']}\n"
                   f"ops = {ops}\nphases = read\n")
    # iobench's own policy decides too: it refuses a memory file system (tmpfs
    # opens with O_DIRECT since Linux 6.6, but its page cache is the storage)
    chk = subprocess.run([binp("iobench"), "check", prof, "--dir", A.dir], capture_output=True, text=True)
    if chk.returncode != 0:
        why = chk.stderr.strip().splitlines()[-1] if chk.stderr.strip() else f"exit {chk.returncode}"
        print(f"e_direct_rand4k: skipped: iobench refuses direct I/O under {A.dir} ({why})")
        RESULTS["e_direct_rand4k"] = {"skipped": f"iobench refuses direct I/O under {A.dir}: {why}"}
        return
    rounds("e_direct_rand4k", {
        "iobench": lambda: iobench(prof, "ops_per_s"),
        "fio": fio_or(lambda: fio("iops", ["--name=e", *fio_rand_args(f, S["e_file"], ops), "--direct=1"])),
        "raw": lambda: rawloop("ops_per_s", "direct-rand", f, 4096, ops, 7),
    }, "IOPS")
    ratio("e_direct_rand4k", "iobench", "fio", lo=0.95, hi=1.05)
    ratio("e_direct_rand4k", "iobench", "raw")


CPU = {}  # scenario -> contender -> [CPU ns per I/O, one per sample]


def iobench_cpu(name, prof):
    """iobench's IOPS, noting the CPU time per I/O its phase record states."""
    p, wall = timed([binp("iobench"), "run", prof, "--dir", A.dir, "--output", "json"])
    r = parse_records(p.stdout)[0]
    if r.get("cpu_ns_per_io") is not None:
        CPU.setdefault(name, {}).setdefault("iobench", []).append(r["cpu_ns_per_io"])
    return Sample(r["ops_per_s"], r["bytes"], r["ops"], wall)


def fio_cpu(name, args):
    """fio's IOPS, noting its CPU time per I/O: (usr_cpu + sys_cpu) % of its
    job_runtime, over its total_ios."""
    p, wall = timed(["fio", "--output-format=json", *args])
    nbytes, ios, _, job = parse_fio(p.stdout)
    cpu_s = (job["usr_cpu"] + job["sys_cpu"]) / 100.0 * job["job_runtime"] / 1e3
    CPU.setdefault(name, {}).setdefault("fio", []).append(cpu_s * 1e9 / ios if ios else 0.0)
    return Sample(job["read"]["iops"], nbytes, ios, wall)


def cpu_ratio(name, a, b, hi):
    """Ratio of the median CPU time per I/O of a to b's (equal work is
    checked by the IOPS comparison of the same samples)."""
    got = CPU.get(name, {})
    if a not in got or b not in got:
        print(f"  {a}/{b} CPU per I/O: not compared ({a if a not in got else b} stated no CPU time)")
        return None
    ma, mb = statistics.median(got[a]), statistics.median(got[b])
    r = ma / mb if mb else 0.0
    ok = None if hi is None else r <= hi  # no target: reported only
    RESULTS[name].setdefault("cpu_ns_per_io", {}).update({a: got[a], b: got[b]})
    RESULTS[name].setdefault("ratios", {})[f"{a}/{b} cpu_ns_per_io"] = {
        "valid": True, "value": r, "target": None if hi is None else f"<= {hi}", "met": ok}
    fmt = ",.2f" if max(ma, mb) < 100 else ",.0f"  # a few ns: their hundredths matter
    print(f"  CPU per I/O: {a} {ma:{fmt}} ns, {b} {mb:{fmt}} ns; {a}/{b} = {r:.3f}" +
          ("" if hi is None else f"  (target <= {hi}: {'met' if ok else 'MISSED'})"))
    return r


def scenario_q():
    f = direct_file("q_uring_rand4k_qd32", "q_uring")
    if not f:
        return
    ops = S["uring_ops"]
    base = (f"filename = e.dat\naccess = rand\nblock_size = 4K\nsize = {S['e_file']}\nops = {ops}\n"
            "phases = read\n")
    q32 = profile(f"[q32]\nbackend = io_uring\nbackend_options = direct=1\niodepth = 32\n{base}")
    q1 = profile(f"[q1]\nbackend = io_uring\nbackend_options = direct=1\niodepth = 1\n{base}")
    d1 = profile(f"[d1]\nbackend = direct\n{base}")
    # iobench's own policy on direct I/O there (the direct backend's check: a
    # memory file system is refused, as io_uring's direct=1 refuses it at open)
    p = subprocess.run([binp("iobench"), "check", d1, "--dir", A.dir], capture_output=True, text=True)
    if p.returncode == 0:
        p = subprocess.run([binp("iobench"), "check", q32, "--dir", A.dir], capture_output=True, text=True)
    if p.returncode != 0:
        why = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}"
        msg = ("not runnable: iobench refuses iodepth" if "iodepth" in p.stderr
               else "not runnable: iobench refuses the io_uring profile")
        print(f"q_uring_rand4k_qd32: {msg} ({why})")
        RESULTS["q_uring_rand4k_qd32"] = {"skipped": f"{msg}: {why}"}
        return
    name = "q_uring_rand4k_qd32"
    rounds(name, {
        "iobench": lambda: iobench_cpu(name, q32),
        "fio": fio_or(lambda: fio_cpu(name, ["--name=q", *fio_rand_args(f, S["e_file"], ops, engine="io_uring"),
                                             "--direct=1", "--iodepth=32"])),
    }, "IOPS")
    ratio(name, "iobench", "fio", lo=0.97)
    if "fio" in CPU.get(name, {}):
        cpu_ratio(name, "iobench", "fio", hi=0.7)
    rounds("q_uring_qd1_vs_direct", {
        "uring": lambda: iobench(q1, "ops_per_s"),
        "direct": lambda: iobench(d1, "ops_per_s"),
    }, "IOPS")
    ratio("q_uring_qd1_vs_direct", "uring", "direct", lo=0.95, hi=1.05)


def scenario_f():
    """The same fio job file through fio and through iobench (device-bound:
    direct I/O, so the IOPS should agree within 10%)."""
    name = "f_fio_jobfile_direct_rand4k"
    f = direct_file(name)
    if not f:
        return
    ops = S["direct_ops"]
    # number_ios ends the job on both sides: io_size is twice the work (as in
    # fio_rand_args), and each side's output says how many I/Os it did
    job = os.path.join(A.dir, "f.fio")
    with open(job, "w") as out:
        out.write(f"[global]\ndirectory={A.dir}\nfilename=e.dat\nioengine=psync\ndirect=1\nbs=4k\n"
                  f"size={S['e_file']}\n\n[f]\nrw=randread\nio_size={2 * ops * 4096}\nnumber_ios={ops}\n")
    p = subprocess.run([binp("iobench"), "check", job, "--dir", A.dir], capture_output=True, text=True)
    if p.returncode != 0:
        why = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}"
        print(f"{name}: skipped: iobench refuses the job file under {A.dir} ({why})")
        RESULTS[name] = {"skipped": f"iobench refuses the job file: {why}"}
        return
    rounds(name, {
        "iobench": lambda: iobench_cpu(name, job),
        "fio": fio_or(lambda: fio_cpu(name, [job])),
    }, "IOPS")
    ratio(name, "iobench", "fio", lo=0.9, hi=1.1)
    if "fio" in CPU.get(name, {}):
        cpu_ratio(name, "iobench", "fio", hi=None)  # reported: the issue sets no target here


def scenario_t():
    f = make_file(os.path.join(A.dir, "a.dat"), S["a_file"])
    warm(f)
    ops = S["ops"] - S["ops"] % 2
    base = f"filename = a.dat\naccess = rand\nblock_size = 4K\nsize = {S['a_file']}\nphases = read\n"
    one = profile(f"[t1]\n{base}ops = {ops}\n")
    two = profile(f"[t2]\n{base}threads = 2\nshared_file = true\nops = {ops // 2}\n")
    rounds("t_threads_rand4k_cached", {
        "streams2": lambda: iobench(two, "ops_per_s"),
        "streams1": lambda: iobench(one, "ops_per_s"),
    }, "IOPS")
    ratio("t_threads_rand4k_cached", "streams2", "streams1", lo=1.8)


def iobench_stopwatch(prof):
    """A whole iobench process timed from outside by a stopwatch around it,
    beside what its record says: (ops, own IOPS, own cpu_ns_per_io, wall s).
    The caller takes the kernel's CPU account of the reaped child
    (getrusage RUSAGE_CHILDREN, before and after)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([binp("iobench"), "run", prof, "--dir", A.dir, "--output", "json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, LC_ALL="C"))
    out, err = proc.communicate()
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"iobench run {prof} failed ({proc.returncode}): {err.strip()[-800:]}")
    r = parse_records(out)[0]
    return r["ops"], r["ops_per_s"], r.get("cpu_ns_per_io"), wall


def scenario_n():
    """The null backend against fio's ioengine=null: the tools' own cost, no
    storage under either (4 KiB random reads over a nominal 1 GiB; each run
    does exactly `null_ops` I/Os, checked from both outputs).  Latency on:
    iobench's default (latency = sampled: every I/O, or 1 in k when timing
    would cost more than 2%; shown) against fio's (every I/O timed); off:
    iobench latency = off against fio gtod_reduce=1.  Then one whole process
    of `null_big_ops` timed from outside (stopwatch and rusage) against what
    its record says, and 2 streams against 1 with seconds-long phases."""
    ops, size = S["null_ops"], 1024 * MiB
    base = f"[n]\nbackend = null\nfilename = null.dat\naccess = rand\nblock_size = 4K\nsize = {size}\nphases = read\n"
    fio_base = ["--name=n", "--ioengine=null", "--filename=null.dat", f"--directory={A.dir}", "--rw=randread",
                "--bs=4096", f"--size={size}", f"--io_size={2 * ops * 4096}", f"--number_ios={ops}"]
    for depth in (1, 32, 128):
        prof = profile(f"{base}iodepth = {depth}\nops = {ops}\n")
        prof_off = profile(f"{base}iodepth = {depth}\nops = {ops}\nlatency = off\n")
        name = f"n_null_rand4k_qd{depth}"
        fargs = [*fio_base, f"--iodepth={depth}"]
        rounds(name, {
            "iobench": lambda prof=prof, name=name: iobench_cpu(name, prof),
            "iobench_off": lambda prof=prof_off, name=name: iobench_cpu(name + "_off", prof),
            "fio": fio_or(lambda name=name, fargs=fargs: fio_cpu(name, fargs)),
            "fio_nolat": fio_or(lambda name=name, fargs=fargs: fio_cpu(name + "_nolat", [*fargs, "--gtod_reduce=1"])),
        }, "IOPS")
        show_sampling(name, prof)
        ratio(name, "iobench", "fio", lo=1.5)
        ratio(name, "iobench_off", "fio_nolat", lo=1.5)
        if name + "_off" in CPU:
            CPU[name]["iobench_off"] = CPU[name + "_off"]["iobench"]
        if "fio" in CPU.get(name, {}):
            cpu_ratio(name, "iobench", "fio", hi=0.5)
        if "fio" in CPU.get(name + "_nolat", {}):
            CPU[name]["fio_nolat"] = CPU[name + "_nolat"]["fio"]
            cpu_ratio(name, "iobench_off", "fio_nolat", hi=0.5)
    # from outside: a stopwatch and the kernel's CPU account around whole processes
    big = S["null_big_ops"]
    rows = []
    for lat in ("sampled", "off"):
        prof = profile(f"{base}ops = {big}\nlatency = {lat}\n")
        for _ in range(A.rounds):
            c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            n, own, cpu_ns, wall = iobench_stopwatch(prof)
            c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime)
            rows.append({"latency": lat, "ops": n, "own_iops": own, "own_cpu_ns_per_io": cpu_ns,
                         "process_wall_s": wall, "process_iops": n / wall, "process_cpu_s": cpu,
                         "process_cpu_ns_per_io": cpu * 1e9 / n if n else None})
    RESULTS["n_null_stopwatch"] = {"ops_asked": big, "samples": rows, "loadavg": os.getloadavg()}
    print(f"n_null_stopwatch [{big:,} I/Os, depth 1, whole processes; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}]")
    for lat in ("sampled", "off"):
        rs = [r for r in rows if r["latency"] == lat]
        med = lambda k: statistics.median(r[k] for r in rs)  # noqa: E731
        ok = all(r["ops"] == big for r in rs)
        print(f"  latency = {lat}: ops {'all ' + format(big, ',') if ok else 'SHORT: ' + str([r['ops'] for r in rs])}; "
              f"own {med('own_iops') / 1e6:,.1f} M IOPS, {med('own_cpu_ns_per_io'):.2f} ns CPU/I/O; "
              f"stopwatch {med('process_wall_s'):.3f} s = {med('process_iops') / 1e6:,.1f} M IOPS, rusage "
              f"{med('process_cpu_s'):.3f} s CPU = {med('process_cpu_ns_per_io'):.2f} ns/I/O")
    # 2 streams against 1, phases of seconds (4e8 I/Os at about 3 ns each)
    tops = S["null_thread_ops"] - S["null_thread_ops"] % 2
    one = profile(f"{base}ops = {tops}\n")
    two = profile(f"{base}threads = 2\nshared_file = true\nops = {tops // 2}\n")
    # beside them, in the same rounds, the machine's own ceiling: rawloop
    # null-rand, the same per-I/O step (an offset drawn, a call through a
    # pointer, two counters) on 2 threads against 1, nothing shared
    def raw_null(threads):
        p, wall = timed([os.path.join(A.build, "bench", "rawloop"), "null-rand", "4096", str(tops), str(threads), "7"])
        r = json.loads(p.stdout)
        CPU.setdefault("n_null_threads", {}).setdefault(f"raw{threads}", []).append(r["cpu_ns_per_op"])
        return Sample(r["ops_per_s"], r["bytes"], r["ops"], wall)
    rounds("n_null_threads", {
        "streams2": lambda: iobench_cpu("n_null_threads", two),
        "streams1": lambda: iobench_cpu("n_null_threads_1", one),
        "raw2": lambda: raw_null(2),
        "raw1": lambda: raw_null(1),
    }, "IOPS")
    ratio("n_null_threads", "streams2", "streams1", lo=1.8)
    ratio("n_null_threads", "raw2", "raw1")  # the machine's ceiling for the ratio above
    if "n_null_threads_1" in CPU and "n_null_threads" in CPU:
        CPU["n_null_threads"]["streams2"] = CPU["n_null_threads"].pop("iobench")
        CPU["n_null_threads"]["streams1"] = CPU["n_null_threads_1"]["iobench"]
        cpu_ratio("n_null_threads", "streams2", "streams1", hi=None)
        cpu_ratio("n_null_threads", "raw2", "raw1", hi=None)
    print(f"  load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")


def scenario_w():
    """Whole processes against dd on cached files (issue 27): bigread at its
    seed's default buffer (bufsize=1: 1 GiB blocks) over a 2 GiB file against
    dd bs=1G; bigread bufsize=0.001 (1,073,741-byte blocks) over 1 GiB against
    dd with the same block; an `iobench run` of a 256 MiB sequential read in
    1 MiB blocks against dd bs=1M.  The files are sparse (holes read as zeros
    from the page cache on both sides), read into the cache before every run;
    equal bytes and calls are checked from each tool's own output (bigread's
    and iobench's JSON records, dd's summary).  bigread writes its block lines
    to its stdout (a pipe, as dd's summary) and its JSON document (1,001 block
    records, 145 KB, for the 1 GiB case) to a file on a memory file system
    where there is one: the side file the bench reads, not the data read, so
    truncating last round's copy on ext4 (about 0.2 ms) is left out of both
    tools' storage."""
    shm = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else A.dir
    js = os.path.join(shm, f"iob-bench-w-{os.getpid()}.json")

    def bigread_json(path, bufsize):
        p, wall = timed([binp("bigread"), f"in={path}", f"bufsize={bufsize}", "-o", f"json={js}"])
        with open(js) as f:
            recs = parse_records(f.read())
        nbytes, ops = sum(r["bytes"] for r in recs), sum(r["ops"] for r in recs)
        return Sample(nbytes / wall, nbytes, ops, wall)

    def sparse(name, size):
        path = os.path.join(A.dir, name)
        with open(path, "wb") as f:
            f.truncate(size)
        warm(path)
        return path

    proc_cpu = {}  # scenario -> contender -> [user + system CPU s of the whole process]

    def cpu_of(name, who, fn):
        """fn's Sample, noting the CPU time (user + system) of the process it
        ran, from the kernel's account of reaped children: on a busy machine
        wall time waits for a CPU, CPU time does not."""
        def run():
            c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            smp = fn()
            c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            proc_cpu.setdefault(name, {}).setdefault(who, []).append(
                (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime))
            return smp
        return run

    def cpu_line(name, a, b):
        got = proc_cpu.get(name, {})
        if a in got and b in got:
            ma, mb = statistics.median(got[a]), statistics.median(got[b])
            RESULTS[name]["process_cpu_s"] = {a: got[a], b: got[b]}
            print(f"  whole-process CPU (user + system), medians: {a} {ma:.3f} s, {b} {mb:.3f} s; "
                  f"{b}/{a} = {mb / ma if ma else 0:.3f} (work per CPU second, {a} against {b})")

    def against_dd(name, who, path, run, bs, lo):
        """who's run against dd reading path in bs-byte blocks, in
        interleaved rounds, each process's CPU noted; who/dd at least lo."""
        rounds(name, {
            who: cpu_of(name, who, warmed(path, run)),
            "dd": cpu_of(name, "dd", warmed(path, lambda: dd("read", [f"if={path}", "of=/dev/null", f"bs={bs}"]))),
        }, "bytes/s")
        ratio(name, who, "dd", lo=lo, process=True)
        cpu_line(name, who, "dd")

    scale = 1 if not A.quick else 64
    f2 = sparse("w2g.dat", 2048 * MiB // scale)
    bs2 = 1024 * MiB // scale
    against_dd("w_bigread_buf1g_2g", "bigread", f2,
               lambda: bigread_json(f2, "1" if not A.quick else f"{bs2 // MiB}M"), bs2, 0.97)
    f1 = sparse("w1g.dat", 1024 * MiB // scale)
    against_dd("w_bigread_buf0.001_1g", "bigread", f1, lambda: bigread_json(f1, "0.001"), 1073741, 0.97)
    if os.path.exists(js):
        os.unlink(js)
    f256 = sparse("w256.dat", 256 * MiB // scale)
    prof = profile(f"[w]\nfilename = w256.dat\naccess = seq\nblock_size = 1M\nsize = {256 * MiB // scale}\n"
                   "phases = read\n")
    against_dd("w_iobench_seq256m", "iobench", f256, lambda: iobench(prof, "bw_bytes_per_s"), "1M", 0.95)
    print(f"  load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")


def scenario_r():
    """runtime = 5s: the aggregate phase's elapsed_s against the limit (target:
    within 10 ms), and the whole process's wall time, which must cover it."""
    f = make_file(os.path.join(A.dir, "a.dat"), S["a_file"])
    warm(f)
    limit = S["runtime_s"]
    prof = profile(f"[r]\nfilename = a.dat\naccess = rand\nblock_size = 4K\nsize = {S['a_file']}\n"
                   f"ops = 1000000000000\nruntime = {limit}s\nphases = read\n")
    over, walls = [], []
    for _ in range(A.rounds):
        p, wall = timed([binp("iobench"), "run", prof, "--dir", A.dir, "--output", "json"])
        rec = parse_records(p.stdout)[0]
        over.append((rec["elapsed_s"] - limit) * 1e3)
        walls.append(wall)
    worst = max(over, key=abs)
    covers = all(w >= limit + o / 1e3 for w, o in zip(walls, over))
    ok = abs(worst) <= 10.0 and covers
    RESULTS["r_runtime"] = {"unit": "ms past the limit", "limit_s": limit, "elapsed_minus_limit_ms": over,
                            "process_wall_s": walls, "target": "within 10 ms", "met": ok}
    print(f"r_runtime [runtime = {limit}s]\n  phase elapsed - limit: "
          f"{', '.join(f'{o:+.3f}' for o in over)} ms; whole process {', '.join(f'{w:.3f}' for w in walls)} s "
          f"(target within 10 ms: {'met' if ok else 'MISSED'})")


def scenario_startup():
    prof = os.path.join(A.src, "configs", "default.ini")
    times = []
    for _ in range(max(S["startup_runs"], A.rounds * 10 if not A.quick else 0)):
        times.append(timed([binp("iobench"), "check", prof, "--dir", A.dir])[1] * 1e3)
    med = statistics.median(times)
    ok = med <= 5.0
    RESULTS["startup"] = {"unit": "ms", "median": {"iobench check": med}, "target": "<= 5 ms", "met": ok}
    print(f"startup [ms]\n  iobench check (load every plugin, parse default.ini): median {med:.2f} ms "
          f"(target <= 5 ms: {'met' if ok else 'MISSED'})")


def scenario_rss():
    make_file(os.path.join(A.dir, "r.dat"), S["rss_file"])
    prof = profile(f"[r]\nfilename = r.dat\nblock_size = 1M\nsize = {S['rss_file']}\nphases = read\n")
    # measured by rawloop: a child forked from Python would count Python's own pages
    p = sh([os.path.join(A.build, "bench", "rawloop"), "rss", binp("iobench"), "run", prof, "--dir", A.dir,
            "--output", "json=/dev/null"])
    out = json.loads(p.stdout)
    status, kib = out["status"], out["maxrss_kib"]
    limit = 16 * 1024 + 1024
    ok = status == 0 and kib <= limit
    RESULTS["rss"] = {"unit": "KiB", "median": {"iobench read": kib}, "file_bytes": S["rss_file"],
                      "target": f"<= {limit} KiB", "met": ok}
    print(f"rss [KiB]\n  peak RSS of a {S['rss_file'] // MiB} MiB read in 1 MiB blocks: {kib} KiB "
          f"(target <= {limit}: {'met' if ok else 'MISSED'})")


def scenario_accuracy():
    f = make_file(os.path.join(A.dir, "a.dat"), S["a_file"])
    warm(f)
    ops = 3 * S["ops"]
    prof = profile(f"[acc]\nfilename = a.dat\naccess = rand\nblock_size = 4K\nsize = {S['a_file']}\nops = {ops}\n"
                   "phases = read\n")
    p, wall = timed([binp("iobench"), "run", prof, "--dir", A.dir, "--output", "json"])
    rec = parse_records(p.stdout)[0]
    bytes_ok = rec["bytes"] == rec["os_read_bytes"] == ops * 4096
    # the process wall time also holds start-up and exit: an upper bound on the phase time
    rate_ratio = rec["bw_bytes_per_s"] / (rec["os_read_bytes"] / wall)
    ok = bytes_ok and rate_ratio >= 1.0
    RESULTS["accuracy"] = {"bytes": rec["bytes"], "os_read_bytes": rec["os_read_bytes"], "process_wall_s": wall,
                           "phase_s": rec["elapsed_s"], "reported_rate_over_bytes_per_wall": rate_ratio,
                           "met": ok}
    print(f"accuracy\n  bytes {rec['bytes']} vs /proc/self/io rchar {rec['os_read_bytes']} "
          f"({'equal' if bytes_ok else 'DIFFER'}); reported rate / (bytes / process wall time) = {rate_ratio:.4f} "
          f"(phase {rec['elapsed_s']:.3f} s of {wall:.3f} s wall)")


def scenario_selftest_unequal():
    """A deliberately unequal pair: iobench does 1% fewer reads than the raw loop.
    The equal-work rule must refuse to compare them."""
    f = make_file(os.path.join(A.dir, "a.dat"), S["a_file"])
    ops = S["ops"]
    prof = profile(f"[u]\nfilename = a.dat\naccess = rand\nblock_size = 4K\nsize = {S['a_file']}\n"
                   f"ops = {ops - ops // 100}\nphases = read\n")
    rounds("selftest_unequal", {
        "iobench": lambda: iobench(prof, "ops_per_s"),
        "raw": lambda: rawloop("ops_per_s", "pread-rand", f, 4096, ops, 7),
    }, "IOPS")
    ratio("selftest_unequal", "iobench", "raw")


SCENARIOS = {"a": scenario_a, "b": scenario_b, "c": scenario_c, "d": scenario_d, "e": scenario_e,
             "q": scenario_q, "f": scenario_f, "t": scenario_t, "n": scenario_n, "w": scenario_w, "r": scenario_r, "startup": scenario_startup, "rss": scenario_rss, "accuracy": scenario_accuracy}


def invalid_ratios():
    return {f"{n}: {k}": v for n, r in RESULTS.items() for k, v in r.get("ratios", {}).items()
            if v.get("valid") is False}


def main():
    global A
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--dir", help="where the data files go (default: a new directory under the build tree)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--ops", type=int, help=f"I/O calls per cached random run (default {SIZES['ops']})")
    ap.add_argument("--direct-ops", type=int, help=f"I/O calls per direct random run (default {SIZES['direct_ops']})")
    ap.add_argument("--only", default=",".join(SCENARIOS), help="comma-separated scenarios")
    ap.add_argument("--json", help="also write the results here")
    ap.add_argument("--keep", action="store_true", help="keep the data files")
    ap.add_argument("--quick", action="store_true", help="tiny sizes and 1 round: checks the script, not speed")
    ap.add_argument("--selftest-unequal", action="store_true",
                    help="also run a deliberately unequal pair, which must be reported INVALID")
    A = ap.parse_args()
    if A.quick:
        S.update(QUICK)
        A.rounds = 1
    if A.ops:
        S["ops"] = A.ops
    if A.direct_ops:
        S["direct_ops"] = A.direct_ops
    names = [n.strip() for n in A.only.split(",") if n.strip()]
    bad = [n for n in names if n not in SCENARIOS]
    if bad or A.rounds < 1:
        print(f"run.py: unknown scenario {bad[0]!r} (choose from {', '.join(SCENARIOS)})" if bad else
              f"run.py: --rounds {A.rounds}: give at least 1", file=sys.stderr)
        return 2
    A.build = os.path.abspath(A.build)
    A.src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    A.fio = shutil.which("fio") is not None
    made = A.dir is None
    A.dir = os.path.abspath(A.dir or tempfile.mkdtemp(prefix="bench-", dir=A.build))
    env = {"date": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "host": os.uname().nodename, "cpus": os.cpu_count(),
           "fio": sh(["fio", "--version"]).stdout.strip() if A.fio else None, "rounds": A.rounds,
           "quick": A.quick, "sizes": dict(S), "work_tolerance": WORK_TOLERANCE}
    print(f"# {env['date']} on {env['host']}, {env['cpus']} CPUs, {env['fio'] or 'fio not installed'}, "
          f"{A.rounds} interleaved rounds{' (quick: tiny sizes, figures mean nothing)' if A.quick else ''}")
    try:
        for name in names:
            SCENARIOS[name]()
        if A.selftest_unequal:
            scenario_selftest_unequal()
    finally:
        if made and not A.keep:
            shutil.rmtree(A.dir, ignore_errors=True)
    invalid = invalid_ratios()
    selftest = {k: v for k, v in invalid.items() if k.startswith("selftest_unequal:")}
    real_invalid = {k: v for k, v in invalid.items() if k not in selftest}
    selftest_ok = not A.selftest_unequal or bool(selftest)
    if A.json:
        with open(A.json, "w") as f:
            json.dump({"env": env, "results": RESULTS, "invalid": sorted(real_invalid),
                       "selftest_unequal_flagged": bool(selftest) if A.selftest_unequal else None}, f, indent=1)
    missed = [n for n, r in RESULTS.items() if r.get("met") is False or
              any(x.get("met") is False for x in r.get("ratios", {}).values())]
    print("targets missed: " + (", ".join(missed) if missed else "none"))
    if real_invalid:
        print("INVALID comparisons (unequal work, no ratio given): " + "; ".join(sorted(real_invalid)))
    if not selftest_ok:
        print("selftest: the deliberately unequal pair was NOT flagged: the equal-work rule is broken")
    return 1 if real_invalid or not selftest_ok else 0


if __name__ == "__main__":
    sys.exit(main())
