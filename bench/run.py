#!/usr/bin/env python3
"""iobench's benchmark against its floor and its rivals, in one run.

For each scenario the contenders run in interleaved rounds (A B C A B C ...),
each reporting its own figure; the script prints the median of each and the
ratios the targets are stated in, and writes the same as JSON.

  bench/run.py --build build [--dir DIR] [--rounds 5] [--json out.json] [--only a,b]

Contenders run in rotating order (round i starts with contender i).
Scenarios (docs/performance.md):
  a  4 KiB random reads of a page-cached 64 MiB file, one thread, latency
     recorded: iobench posix vs raw pread loop vs fio psync
  b  1 MiB sequential reads of a cached 1 GiB file: bigread vs raw read loop vs dd
  c  1 MiB sequential write of 1 GiB, fsync at the end: iotest vs dd conv=fsync vs fio
  d  mmap backend cached reads vs a raw copy-from-mapping loop (1 MiB sequential
     and 4 KiB random)
  e  direct backend 4 KiB random reads vs fio direct=1 (device-bound)
  startup  load every plugin and parse a profile (iobench check), median wall time
  rss      peak RSS of a 1 GiB run
  accuracy reported bytes vs /proc/self/io, reported rate vs bytes / wall time
Needs fio and dd (tools/deps.sh fio installs fio).  Run it on an idle machine;
it is not part of the test suite.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

A = None
RESULTS = {}
MiB = 1 << 20


def sh(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()[-800:]}")
    return p


def binp(name):
    return os.path.join(A.build, "bin", name)


def rawloop(*args):
    return json.loads(sh([os.path.join(A.build, "bench", "rawloop"), *map(str, args)]).stdout)


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


def profile(text):
    fd, path = tempfile.mkstemp(suffix=".ini", dir=A.dir)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    return path


def iobench_json(prof):
    out = sh([binp("iobench"), "run", prof, "--dir", A.dir, "--output", "json"]).stdout
    return json.loads(out)["records"]


def fio_json(args):
    out = sh(["fio", "--output-format=json", *args]).stdout
    # fio may print notes before the document
    return json.loads(out[out.index("{"):])["jobs"][0]


def dd_rate(stderr):
    m = re.search(r"(\d+) bytes .* copied, ([\d.]+) s", stderr)
    return int(m.group(1)) / float(m.group(2))


def rounds(name, contenders, unit):
    """Run contenders interleaved; return {name: median} and record it."""
    vals = {c: [] for c in contenders}
    names = list(contenders)
    for i in range(A.rounds):
        # rotate who goes first, so no contender always follows the same one
        for c in names[i % len(names):] + names[:i % len(names)]:
            vals[c].append(contenders[c]())
    med = {c: statistics.median(v) for c, v in vals.items()}
    RESULTS[name] = {"unit": unit, "median": med, "samples": vals}
    return med


def ratio(name, a, b, lo=None, hi=None):
    r = RESULTS[name]["median"][a] / RESULTS[name]["median"][b]
    ok = (lo is None or r >= lo) and (hi is None or r <= hi)
    target = (f">= {lo}" if lo is not None else "") + (" and " if lo is not None and hi is not None else "") + \
        (f"<= {hi}" if hi is not None else "")
    RESULTS[name].setdefault("ratios", {})[f"{a}/{b}"] = {"value": r, "target": target, "met": ok}
    print(f"  {a}/{b} = {r:.3f}  (target {target}: {'met' if ok else 'MISSED'})")
    return r


def show(name):
    r = RESULTS[name]
    print(f"{name} [{r['unit']}]")
    for c, v in r["median"].items():
        print(f"  {c:10s} median {v:,.1f}   ({', '.join(f'{x:,.0f}' for x in r['samples'][c])})")


def scenario_a():
    f = make_file(os.path.join(A.dir, "a64.dat"), 64 * MiB)
    warm(f)
    ops = A.ops
    prof = profile(f"[a]\nfilename = a64.dat\naccess = rand\nblock_size = 4K\nsize = 64M\nops = {ops}\n"
                   "phases = read\n")
    med = rounds("a_rand4k_cached", {
        "iobench": lambda: iobench_json(prof)[0]["ops_per_s"],
        "raw": lambda: rawloop("pread-rand", f, 4096, ops, 7)["ops_per_s"],
        "fio": lambda: fio_json(["--name=a", f"--filename={f}", "--rw=randread", "--bs=4k", "--ioengine=psync",
                                 "--size=64m", f"--number_ios={ops}", "--invalidate=0"])["read"]["iops"],
    }, "IOPS")
    show("a_rand4k_cached")
    ratio("a_rand4k_cached", "iobench", "raw", lo=0.90)
    ratio("a_rand4k_cached", "iobench", "fio", lo=1.5)
    return med


def scenario_b():
    f = make_file(os.path.join(A.dir, "b1g.dat"), 1024 * MiB)
    warm(f)

    def bigread():
        out = sh([binp("bigread"), "--output", "json", f"in={f}", "bufsize=0.0009765625"]).stdout
        doc = json.loads(out)
        rec = [r for r in doc["records"] if r.get("kind") == "summary"][0]
        return rec["bytes"] / rec["elapsed_s"]

    rounds("b_seq1m_read_cached", {
        "bigread": bigread,
        "raw": lambda: rawloop("read-seq", f, MiB)["bw_bytes_per_s"],
        "dd": lambda: dd_rate(sh(["dd", f"if={f}", "of=/dev/null", "bs=1M"]).stderr),
    }, "bytes/s")
    show("b_seq1m_read_cached")
    ratio("b_seq1m_read_cached", "bigread", "raw", lo=0.95)
    ratio("b_seq1m_read_cached", "bigread", "dd")


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
    f = os.path.join(A.dir, "c1g.dat")

    def iotest():
        settle(f)
        out = sh([binp("iotest"), "--format", "json", "-s", "1024", "-b", "1024", "-p", "0", "-w", f]).stdout
        return json.loads(out)["records"][0]["bw_bytes_per_s"]

    def dd():
        settle(f)
        return dd_rate(sh(["dd", "if=/dev/zero", f"of={f}", "bs=1M", "count=1024", "conv=fsync"]).stderr)

    def fio():
        settle(f)
        j = fio_json(["--name=c", f"--filename={f}", "--rw=write", "--bs=1m", "--ioengine=psync", "--size=1g",
                      "--end_fsync=1"])
        return j["write"]["bw_bytes"]

    rounds("c_seq1m_write_fsync", {"iotest": iotest, "dd": dd, "fio": fio}, "bytes/s")
    show("c_seq1m_write_fsync")
    ratio("c_seq1m_write_fsync", "iotest", "dd", lo=0.97)
    ratio("c_seq1m_write_fsync", "iotest", "fio")
    if os.path.exists(f):
        os.unlink(f)


def scenario_d():
    f = make_file(os.path.join(A.dir, "a64.dat"), 64 * MiB)
    warm(f)
    seq = profile("[d]\nbackend = mmap\nfilename = a64.dat\nblock_size = 1M\nsize = 64M\nloops = 16\nphases = read\n")
    rounds("d_mmap_seq1m_cached", {
        "iobench": lambda: iobench_json(seq)[0]["bw_bytes_per_s"],
        "raw": lambda: rawloop("mmap-seq", f, MiB, 16)["bw_bytes_per_s"],
    }, "bytes/s")
    show("d_mmap_seq1m_cached")
    ratio("d_mmap_seq1m_cached", "iobench", "raw", lo=0.90)
    rnd = profile(f"[d]\nbackend = mmap\nfilename = a64.dat\naccess = rand\nblock_size = 4K\nsize = 64M\n"
                  f"ops = {A.ops}\nphases = read\n")
    rounds("d_mmap_rand4k_cached", {
        "iobench": lambda: iobench_json(rnd)[0]["ops_per_s"],
        "raw": lambda: rawloop("mmap-rand", f, 4096, A.ops, 7)["ops_per_s"],
    }, "IOPS")
    show("d_mmap_rand4k_cached")
    ratio("d_mmap_rand4k_cached", "iobench", "raw")


def scenario_e():
    f = make_file(os.path.join(A.dir, "e256.dat"), 256 * MiB)
    ops = A.direct_ops
    prof = profile(f"[e]\nbackend = direct\nfilename = e256.dat\naccess = rand\nblock_size = 4K\nsize = 256M\n"
                   f"ops = {ops}\nphases = read\n")
    rounds("e_direct_rand4k", {
        "iobench": lambda: iobench_json(prof)[0]["ops_per_s"],
        "fio": lambda: fio_json(["--name=e", f"--filename={f}", "--rw=randread", "--bs=4k", "--ioengine=psync",
                                 "--direct=1", "--size=256m", f"--number_ios={ops}"])["read"]["iops"],
        "raw": lambda: rawloop("direct-rand", f, 4096, ops, 7)["ops_per_s"],
    }, "IOPS")
    show("e_direct_rand4k")
    ratio("e_direct_rand4k", "iobench", "fio", lo=0.95, hi=1.05)
    ratio("e_direct_rand4k", "iobench", "raw")


def scenario_startup():
    prof = os.path.join(A.src, "configs", "default.ini")
    times = []
    for _ in range(max(30, A.rounds * 10)):
        t0 = time.perf_counter()
        sh([binp("iobench"), "check", prof, "--dir", A.dir])
        times.append((time.perf_counter() - t0) * 1e3)
    med = statistics.median(times)
    ok = med <= 5.0
    RESULTS["startup"] = {"unit": "ms", "median": {"iobench check": med}, "target": "<= 5 ms", "met": ok}
    print(f"startup [ms]\n  iobench check (load every plugin, parse default.ini): median {med:.2f} ms "
          f"(target <= 5 ms: {'met' if ok else 'MISSED'})")


def scenario_rss():
    f = make_file(os.path.join(A.dir, "b1g.dat"), 1024 * MiB)
    prof = profile("[r]\nfilename = b1g.dat\nblock_size = 1M\nsize = 1G\nphases = read\n")
    # measured by rawloop: a child forked from Python would count Python's own pages
    out = rawloop("rss", binp("iobench"), "run", prof, "--dir", A.dir, "--output", "json=/dev/null")
    status, kib = out["status"], out["maxrss_kib"]
    limit = 16 * 1024 + 1024
    ok = status == 0 and kib <= limit
    RESULTS["rss"] = {"unit": "KiB", "median": {"iobench 1 GiB read": kib}, "target": f"<= {limit} KiB", "met": ok}
    print(f"rss [KiB]\n  peak RSS of a 1 GiB read in 1 MiB blocks: {kib} KiB (target <= {limit}: "
          f"{'met' if ok else 'MISSED'})")
    del f


def scenario_accuracy():
    f = make_file(os.path.join(A.dir, "a64.dat"), 64 * MiB)
    warm(f)
    ops = 3 * A.ops
    prof = profile(f"[acc]\nfilename = a64.dat\naccess = rand\nblock_size = 4K\nsize = 64M\nops = {ops}\n"
                   "phases = read\n")
    t0 = time.perf_counter()
    rec = iobench_json(prof)[0]
    wall = time.perf_counter() - t0
    bytes_ok = rec["bytes"] == rec["os_read_bytes"]
    # the process wall time also holds start-up and exit: an upper bound on the phase time
    rate_ratio = rec["bw_bytes_per_s"] / (rec["os_read_bytes"] / wall)
    ok = bytes_ok and 1.0 <= rate_ratio <= 1.0 + max(0.01, 0.010 / wall * 1.0)
    RESULTS["accuracy"] = {"bytes": rec["bytes"], "os_read_bytes": rec["os_read_bytes"], "process_wall_s": wall,
                           "phase_s": rec["elapsed_s"], "reported_rate_over_bytes_per_wall": rate_ratio,
                           "met": ok}
    print(f"accuracy\n  bytes {rec['bytes']} vs /proc/self/io rchar {rec['os_read_bytes']} "
          f"({'equal' if bytes_ok else 'DIFFER'}); reported rate / (bytes / process wall time) = {rate_ratio:.4f} "
          f"(phase {rec['elapsed_s']:.3f} s of {wall:.3f} s wall)")


SCENARIOS = {"a": scenario_a, "b": scenario_b, "c": scenario_c, "d": scenario_d, "e": scenario_e,
             "startup": scenario_startup, "rss": scenario_rss, "accuracy": scenario_accuracy}


def main():
    global A
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--dir", help="where the data files go (default: a new directory under the build tree)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--ops", type=int, default=500000, help="I/O calls per cached random run")
    ap.add_argument("--direct-ops", type=int, default=20000, help="I/O calls per direct random run")
    ap.add_argument("--only", default=",".join(SCENARIOS), help="comma-separated scenarios")
    ap.add_argument("--json", help="also write the results here")
    ap.add_argument("--keep", action="store_true", help="keep the data files")
    A = ap.parse_args()
    A.build = os.path.abspath(A.build)
    A.src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for tool in ("fio", "dd"):
        if not shutil.which(tool):
            sys.exit(f"run.py: {tool} is not installed (tools/deps.sh fio)")
    made = A.dir is None
    A.dir = os.path.abspath(A.dir or tempfile.mkdtemp(prefix="bench-", dir=A.build))
    env = {"date": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "host": os.uname().nodename, "cpus": os.cpu_count(),
           "fio": sh(["fio", "--version"]).stdout.strip(), "rounds": A.rounds}
    print(f"# {env['date']} on {env['host']}, {env['cpus']} CPUs, {env['fio']}, {A.rounds} interleaved rounds")
    try:
        for name in A.only.split(","):
            SCENARIOS[name.strip()]()
    finally:
        if made and not A.keep:
            shutil.rmtree(A.dir, ignore_errors=True)
    if A.json:
        with open(A.json, "w") as f:
            json.dump({"env": env, "results": RESULTS}, f, indent=1)
    missed = [n for n, r in RESULTS.items() if not r.get("met", True) or
              any(not x["met"] for x in r.get("ratios", {}).values())]
    print("targets missed: " + (", ".join(missed) if missed else "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
