#!/usr/bin/env python3
"""fio's examples as iobench sees them: `iobench check` on each job file of a
directory (fio's examples/, or ../shared/reference/fio-examples beside the
source tree), scaled only by --set size/runtime and --dir, with
--allow-device for the ones that name a device; one row per file: accepted,
or refused with iobench's one line.

  bench/fio_examples.py --bin build/bin [--examples DIR] [--markdown] [--json FILE]
  bench/fio_examples.py --bin build/bin --run [--memory] [--dir DIR] [--rounds N] [--set K=V]...
                        [--only A,B] [--json FILE]

Without --run nothing is run: check creates nothing (the scratch directory
given to --dir is checked to stay empty).

--run: sixteen accepted examples (RUN below) run by fio (a copy of the file
with the example's scaling keys added at the end of every job section, what
iobench's --set does, in a fresh directory) and by iobench (--set, --dir),
N rounds, the two tools in turns (fio first in odd rounds, iobench in even
ones).  Work from both tools' own outputs: bytes and I/Os read and written
(fio's JSON io_bytes and total_ios over its jobs; iobench's phase records),
and the block sizes (fio's bytes / I/Os of each job and direction, iobench's
bs_hist: the same sizes with the same I/Os; bssplit examples: iobench's
histogram a draw of the split).  A pair whose bytes, I/O counts or sizes
differ by more than 0.1% (bssplit examples: see RUN) in any round is INVALID
(both figures are printed), never compared.
IOPS: I/Os over each tool's own time (per group of jobs run at once, its
longest job's time; the groups added up); the ratio is iobench's median over
fio's.  Each row gives the shortest time of either tool (a figure from a few
milliseconds is fio's whole-millisecond clock more than the tools) and the
load average before and after.  --set K=V adds a key for both tools to every
example (direct=0 with --dir on tmpfs, where direct I/O is refused).
fio alone also runs its jobs as threads (thread=1, FIO_ALWAYS), as iobench's
streams are: a fio job process is a session of its own, which an autogroup
scheduler gives a share of its own.
--memory: data on tmpfs (--dir, /dev/shm by default), direct=0 for both
tools, and MEMORY's scaling: each example long enough (half a second or more
in fio) that the tools' own costs, not the disk's noise, set the ratio.  Exit 1
when a pair is INVALID or a tool failed.  Needs fio (tools/deps.sh fio)."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

# the fio job file scaled for a run, as the fio reference tests scale it
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "support"))
from fioscale import scaled_copy  # noqa: E402

SETS = [("size", "16M"), ("runtime", "2s")]
# The environment the examples name (fio expands ${VAR} in a job file, as iobench does): sprandom.fio's
# FIO_BS, the device's indirection unit, 4 KiB; both tools get it.
EXAMPLE_ENV = {"FIO_BS": "4096"}


def example_env():
    return dict(os.environ, **EXAMPLE_ENV)


def default_examples():
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.realpath(os.path.join(here, "..", "..", "shared", "reference", "fio-examples"))


def check(iobench, path, scratch, sets=SETS):
    """(accepted, exit code, stderr lines, files created in scratch)"""
    argv = [iobench, "check", path, "--dir", scratch, "--allow-device"]
    for k, v in sets:
        argv += ["--set", f"{k}={v}"]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=example_env())
    made = sorted(os.listdir(scratch))
    for m in made:  # nothing may be created; leave the next check a clean directory anyway
        q = os.path.join(scratch, m)
        shutil.rmtree(q) if os.path.isdir(q) else os.remove(q)
    errs = [ln for ln in p.stderr.splitlines() if ln.strip()]
    return p.returncode == 0, p.returncode, errs, made


def table(iobench, examples):
    rows = []
    with tempfile.TemporaryDirectory(prefix="fio-examples-") as scratch:
        for name in sorted(os.listdir(examples)):
            if not name.endswith(".fio"):
                continue
            ok, rc, errs, made = check(iobench, os.path.join(examples, name), scratch)
            own, written = False, ""
            if not ok:
                # refused for the scaling only (a runtime shorter than a steady-state window, a size
                # that is no whole number of passes over the job's filesize): checked as written
                ok2, rc2, errs2, more = check(iobench, os.path.join(examples, name), scratch, [])
                made += more
                if ok2:
                    own, ok, rc, errs = True, ok2, rc2, errs2
                elif errs2:
                    written = errs2[0]
            why = "" if ok else (errs[0] if errs else f"exit {rc}, no message")
            prefix = "iobench: error: " + os.path.join(examples, name)
            if why.startswith(prefix):
                why = why[len(prefix):].lstrip(": ")
            rows.append({"file": name, "accepted": ok, "exit": rc, "reason": why, "lines": len(errs) if not ok else 0,
                         "created": made, "as_written": own, "reason_as_written": written})
    return rows


# The examples --run compares, each with its scaling (--set for iobench, the same keys at the end of
# every job section of fio's copy) and the keys added for fio alone (docs/fio.md says why each).
# Scaling: a size (or loops, nrfiles, filesize) that fits a few hundred MiB of tmpfs and lasts a few
# tenths of a second or more per job on both sides; the file a job names (a device, /tmp/...) moved
# into the run's directory (filename=, relative: both tools run in a fresh directory); time_based=0
# where the example runs for a time (its pattern over its size, once: the work is then equal).
# kind "meta": fio's file engines, compared by I/O counts (fio counts filesize bytes per stat,
# iobench's files job moves none).  "split": bssplit examples, whose I/O count for a given size is a
# draw (fio's generator is not iobench's): equal bytes, the I/O counts within 4 standard deviations of
# the count that size gives (split_sd), and the IOPS ratio also given per byte.
RUN = [
    ("backwards-read.fio", [("size", "24M")], [], ""),
    ("basic-verify.fio", [("filename", "basic-verify.dat"), ("size", "48M")], [], ""),
    ("dedupe-global.fio", [("size", "64M"), ("loops", "4")], [], ""),
    ("null.fio", [], [], ""),
    ("rand-zones.fio", [("size", "24M")], [], ""),
    ("iometer-file-access-server.fio", [("size", "256M")], [("norandommap", "1")], "split"),
    ("ssd-test.fio", [("size", "48M")], [], ""),
    ("filestat-ioengine.fio", [("nrfiles", "4000")], [], "meta"),
    ("fio-seq-read.fio", [("size", "256M"), ("time_based", "0"), ("loops", "3")], [], ""),
    ("fio-seq-write.fio", [("size", "128M"), ("time_based", "0"), ("loops", "12")], [], ""),
    ("fio-rand-write.fio", [("size", "32M"), ("time_based", "0"), ("loops", "8")], [], ""),
    ("fio-rand-RW.fio", [("size", "32M"), ("time_based", "0"), ("loops", "4")], [], ""),
    ("fixed-rate-submission.fio", [("size", "4M")], [("io_submit_mode", "inline")], ""),
    ("fsx.fio", [("loops", "200")], [], ""),
    ("jesd219.fio", [("filename", "jesd219.dat"), ("size", "64M")], [], "split"),
    ("waitfor.fio", [("filename", "waitfor.dat"), ("filesize", "32M")], [], ""),
]
META_PHASE = {"filestat-ioengine.fio": "stat"}

# --memory: the same examples on tmpfs (direct=0 for both tools), each scaled (loops, size) to last at
# least half a second in fio there; an example not named keeps RUN's scaling (docs/fio.md says why).
MEMORY = {
    "backwards-read.fio": [("size", "128M"), ("loops", "12")],
    "basic-verify.fio": [("filename", "basic-verify.dat"), ("size", "512M")],
    "dedupe-global.fio": [("size", "64M"), ("loops", "8")],
    "rand-zones.fio": [("size", "256M"), ("loops", "12")],
    "iometer-file-access-server.fio": [("size", "1G")],
    "ssd-test.fio": [("size", "256M")],
    "fio-seq-read.fio": [("size", "256M"), ("time_based", "0"), ("loops", "4")],
    "fio-seq-write.fio": [("size", "128M"), ("time_based", "0"), ("loops", "8")],
    "fio-rand-write.fio": [("size", "32M"), ("time_based", "0"), ("loops", "8")],
    "fio-rand-RW.fio": [("size", "32M"), ("time_based", "0"), ("loops", "8")],
    "filestat-ioengine.fio": [("nrfiles", "20000")],
    "fsx.fio": [("loops", "10000")],
    "jesd219.fio": [("filename", "jesd219.dat"), ("size", "512M")],
    "waitfor.fio": [("filename", "waitfor.dat"), ("filesize", "128M")],
}


def tmpfs(path):
    """True when path is on tmpfs (/proc/mounts: the longest mount point holding it)."""
    real, best = os.path.realpath(path), ("", "")
    try:
        with open("/proc/mounts") as f:
            for ln in f:
                m = ln.split()
                mp = m[1].replace("\\040", " ")
                if (real == mp or real.startswith(mp.rstrip("/") + "/")) and len(mp) > len(best[0]):
                    best = (mp, m[2])
    except OSError:
        return False
    return best[1] == "tmpfs"

def fio_work(doc, merged=False):
    """(bytes, I/Os, seconds, block sizes) from fio's JSON: every job; the time per group is its longest
    job's.  merged (group_reporting): one entry per group, whose job_runtime is the sum of its jobs' times
    (fio 3.33: 2337 ms for four jobs of 588 ms); its directions' runtime is the longest job's.  Block
    sizes: {bytes / I/Os of each job and direction: I/Os} (fio's JSON has no histogram of sizes; with one
    block size a direction, that is the size).  CPU seconds: each entry's usr_cpu + sys_cpu percent of
    its job_runtime (merged: of the jobs' summed time, as fio adds both up)."""
    b = n = 0
    cpu = 0.0
    groups, sizes = {}, {}
    for j in doc["jobs"]:
        cpu += (j["usr_cpu"] + j["sys_cpu"]) / 100.0 * j["job_runtime"] / 1000.0
        for d in ("read", "write"):
            b += j[d]["io_bytes"]
            n += j[d]["total_ios"]
            if j[d]["total_ios"]:
                bs = j[d]["io_bytes"] / j[d]["total_ios"]
                bs = int(bs) if bs == int(bs) else round(bs, 1)
                sizes[bs] = sizes.get(bs, 0) + j[d]["total_ios"]
        g = j.get("groupid", 0)
        ms = max(j[d]["runtime"] for d in ("read", "write")) if merged else j["job_runtime"]
        groups[g] = max(groups.get(g, 0.0), ms / 1000.0)
    return b, n, sum(groups.values()), sizes, cpu


def iob_sizes(r, sizes):
    """Add a phase record's block sizes to {size: I/Os}: its bs_hist (SIZE:READ_IOS:READ_BYTES:WRITE_IOS:
    WRITE_BYTES ...), or without one bytes / I/Os."""
    if r.get("bs_hist"):
        for e in r["bs_hist"].split():
            f = [int(x) for x in e.split(":")]
            if f[1] + f[3]:
                sizes[f[0]] = sizes.get(f[0], 0) + f[1] + f[3]
    elif r["ops"]:
        bs = r["bytes"] / r["ops"]
        bs = int(bs) if bs == int(bs) else round(bs, 1)
        sizes[bs] = sizes.get(bs, 0) + r["ops"]


def iob_work(doc, meta_phase=None):
    """(bytes, I/Os, seconds, block sizes, CPU seconds) from iobench's JSON phase records; a group's phases
    of one name at once; block sizes {size: I/Os} from the records' bs_hist; CPU: cpu_user_s + cpu_sys_s
    (None for a meta phase: its records have none)."""
    b = n = 0
    cpu = 0.0
    groups, sizes = {}, {}
    for r in doc["records"]:
        if r.get("kind") == "phase" and cpu is not None:
            cpu += r["cpu_user_s"] + r["cpu_sys_s"]
        if r.get("kind") == "meta" and r["phase"] == meta_phase:
            cpu = None  # a meta record has no CPU figure
            n += r["ops"]
            # a meta record names no group: RUN's files examples have no stonewall, so their jobs run at
            # once (docs/fio.md, "File and directory engines"), the longest one's phase their time
            g = (r.get("group") or 0, "", r["phase"])
            groups[g] = max(groups.get(g, 0.0), r["elapsed_s"])
            continue
        if r.get("kind") != "phase":
            continue
        b += r["bytes"]
        n += r["ops"]
        iob_sizes(r, sizes)
        g = (r.get("group") or 0, "" if r.get("group") else r["job"], r["phase"])
        groups[g] = max(groups.get(g, 0.0), r["elapsed_s"])
    return b, n, sum(groups.values()), sizes, cpu


def split_sd(path):
    """(mean, standard deviation) of the block size of the first bssplit= of the job file (the I/O
    count that B bytes take is about B / mean, with variance B sd^2 / mean^3: a renewal count), its
    largest block times the numjobs (fio's last I/O of a job may end past its size), and the split
    {size: share of the I/Os}."""
    mult = {"": 1, "k": 1024, "m": 1 << 20}
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*bssplit\s*=\s*(\S+)", line)
            if m:
                break
        else:
            return None
    ents = []
    for e in m.group(1).split(",")[0].split(":"):
        bs, _, pct = e.partition("/")
        n = re.match(r"(\d+)([kKmM]?)", bs)
        ents.append((int(n.group(1)) * mult[n.group(2).lower()], float(pct) if pct else None))
    given = sum(p for _, p in ents if p is not None)
    free = [e for e in ents if e[1] is None]
    ents = [(b, p if p is not None else (100.0 - given) / len(free)) for b, p in ents]
    tot = sum(p for _, p in ents)
    mean = sum(b * p for b, p in ents) / tot
    var = sum(b * b * p for b, p in ents) / tot - mean * mean
    with open(path) as f:
        jobs = [int(m.group(1)) for m in (re.match(r"\s*numjobs\s*=\s*(\d+)", ln) for ln in f) if m]
    return mean, var ** 0.5, max(b for b, _ in ents) * (jobs[0] if jobs else 1), {b: p / tot for b, p in ents}


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return float(f.read().split()[0])
    except OSError:
        return float("nan")


# For fio alone in every example: its jobs as threads of one process, as iobench's streams are.  A fio job
# process calls setsid(), so where the kernel schedules by autogroup (sched_autogroup_enabled=1) each one
# is a session of its own, with a session's share of the CPU on a loaded machine, where iobench's
# threads share one (docs/fio.md, "IOPS against fio on its own examples").
FIO_ALWAYS = [("thread", "1")]


def run_tool(who, iobench, fio, path, sets, fio_extra, scratch, meta_phase):
    """(bytes, I/Os, seconds, block sizes, CPU seconds) of one run by one tool in a fresh directory, or an
    error text."""
    data = tempfile.mkdtemp(dir=scratch)
    out = os.path.join(scratch, who + ".json")
    if who == "fio":
        copy = os.path.join(scratch, "scaled-" + os.path.basename(path))
        scaled_copy(path, copy, list(sets) + list(fio_extra) + FIO_ALWAYS, data)
        argv = [fio, "--output-format=json", "--output=" + out, copy]
    else:
        argv = [iobench, "run", path, "--dir", data, "--allow-device", "--output", "json=" + out]
        for k, v in sets:
            argv += ["--set", f"{k}={v}"]
    try:
        p = subprocess.run(argv, cwd=data, capture_output=True, text=True, timeout=300, env=example_env())
    except subprocess.TimeoutExpired:
        return f"{who}: did not end within 300 s"
    finally:
        shutil.rmtree(data, ignore_errors=True)
    if p.returncode != 0:
        return f"{who}: exit {p.returncode}: {(p.stderr.strip().splitlines() or [''])[-1]}"
    with open(out) as f:
        doc = json.load(f)
    if who == "fio":
        with open(path) as f:
            merged = any(re.match(r"\s*group_reporting\b", ln) for ln in f)
        return fio_work(doc, merged)
    return iob_work(doc, meta_phase)


def split_sizes(split, sizes):
    """None when iobench's {size: I/Os} is a draw of the split {size: share} (each size's count within
    4 standard deviations of its share), else why not."""
    n = sum(sizes.values())
    for bs in sorted(set(split) | set(sizes)):
        p, got = split.get(bs, 0.0), sizes.get(bs, 0)
        if abs(got - n * p) > 4 * (n * p * (1 - p)) ** 0.5 + (0 if p else 0.5):
            return f"block size {bs}: {got} of {n} I/Os, the split gives {100 * p:g}%"
    return None


def equal_sizes(kind, f, i, sd):
    """None when the block sizes agree: the same sizes, each with the same I/Os (fio's per job and
    direction, so a mixed direction's sizes must be equal); bssplit: iobench's histogram a draw of
    the split; meta: none.  A (bytes, I/Os) pair without sizes is not checked."""
    if len(f) < 4 or len(i) < 4 or kind == "meta":
        return None
    if kind == "split":
        return split_sizes(sd[3], i[3])
    if sorted(f[3]) != sorted(i[3]) or any(abs(f[3][k] - i[3][k]) > 0.001 * f[3][k] for k in f[3]):
        return f"block sizes {{size: I/Os}} fio {f[3]}, iobench {i[3]}"
    return None


def equal_work(kind, f, i, sd):
    """None when fio's (bytes, I/Os[, seconds, sizes]) f and iobench's i are the same work, else why not."""
    if kind == "meta":
        pairs = ((f[1], i[1]),)
    elif kind == "split":
        pairs = ()
        if abs(f[0] - i[0]) > max(sd[2], 0.001 * max(f[0], i[0])):
            return f"fio {f[0]} bytes, iobench {i[0]}: more apart than a largest block a job ({sd[2]})"
        lim = 4 * (2 * f[0] * sd[1] ** 2 / sd[0] ** 3) ** 0.5
        if abs(f[1] - i[1]) > lim:
            return f"I/O counts {f[1]} and {i[1]} differ by more than {lim:.0f} (4 sd of the split's draw)"
    else:
        pairs = ((f[0], i[0]), (f[1], i[1]))
    if not all(abs(x - y) <= 0.001 * max(x, y) for x, y in pairs):
        return f"fio {f[0]} bytes {f[1]} I/Os, iobench {i[0]} bytes {i[1]} I/Os"
    return equal_sizes(kind, f, i, sd)


def run_examples(a):
    import statistics
    fio = shutil.which("fio")
    if not fio:
        print("fio is not installed (tools/deps.sh fio): nothing to compare with")
        return 1
    iobench = os.path.abspath(os.path.join(a.bin, "iobench"))
    only = set(a.only.split(",")) if a.only else None
    if a.memory:
        a.dir = a.dir or "/dev/shm"
    if a.dir:
        a.dir = os.path.abspath(a.dir)  # the tools run in their data directory: a relative path would move
    if a.memory:
        if not tmpfs(a.dir):
            print(f"--memory: {a.dir} is not on tmpfs")
            return 2
    rows, bad = [], 0
    with tempfile.TemporaryDirectory(prefix="fio-run-", dir=a.dir) as scratch:
        for name, sets, extra, kind in RUN:
            if only and name not in only and name[:-4] not in only:
                continue
            if a.memory:
                sets = list(MEMORY.get(name, sets)) + [("direct", "0")]
            sets = list(sets) + [tuple(kv.split("=", 1)) for kv in a.set]
            path = os.path.join(a.examples, name)
            if not os.path.isfile(path):
                print(f"{name:34} not there")
                continue
            sd = split_sd(path) if kind == "split" else None
            row = {"file": name, "sets": dict(sets), "fio_extra": dict(extra), "kind": kind,
                   "load_before": loadavg()}
            samples = {"fio": [], "iobench": []}
            for rnd in range(a.rounds):  # fio, iobench, iobench, fio, ...: each tool first in turn
                for who in (("fio", "iobench") if rnd % 2 == 0 else ("iobench", "fio")):
                    r = run_tool(who, iobench, fio, path, sets, extra, scratch, META_PHASE.get(name))
                    if isinstance(r, str):
                        row["error"] = r
                        break
                    samples[who].append(r)
                if "error" in row:
                    break
                why = equal_work(kind, samples["fio"][-1], samples["iobench"][-1], sd)
                if why:
                    row["invalid"] = why
                    break
            row["load_after"] = loadavg()
            rows.append(row)
            load = f"load {row['load_before']:.1f}-{row['load_after']:.1f}"
            if "error" in row:
                bad += 1
                print(f"{name:34} FAILED {row['error']}")
                continue
            f, i = samples["fio"][0], samples["iobench"][0]
            row.update(fio_bytes=f[0], fio_ios=f[1], iobench_bytes=i[0], iobench_ios=i[1])
            if "invalid" in row:
                bad += 1
                row["valid"] = False
                print(f"{name:34} INVALID work differs: {row['invalid']}")
                continue
            row["valid"] = True
            fs = [s[1] / s[2] for s in samples["fio"] if s[2]]
            ws = [s[1] / s[2] for s in samples["iobench"] if s[2]]
            row["fio_s"] = [s[2] for s in samples["fio"]]
            row["iobench_s"] = [s[2] for s in samples["iobench"]]
            short = min(row["fio_s"] + row["iobench_s"])
            if not fs or not ws:  # fio gives whole milliseconds: 0 for a job that short
                row["ratio"] = None
                print(f"{name:34} {f[0]:>11} B {f[1]:>8} I/Os  equal work; no IOPS: a tool's time is 0 "
                      f"(fio {samples['fio'][0][2]:.3f} s, iobench {samples['iobench'][0][2]:.6f} s)  {load}")
                continue
            fi, ii = statistics.median(fs), statistics.median(ws)
            row.update(fio_iops=fi, iobench_iops=ii, ratio=ii / fi, shortest_s=short)
            # CPU per I/O (user + system), each tool's own figure: less moved by other load than the time
            fc = statistics.median(s[4] / s[1] * 1e6 for s in samples["fio"])
            ic = None if samples["iobench"][0][4] is None else \
                statistics.median(s[4] / s[1] * 1e6 for s in samples["iobench"])
            row.update(fio_cpu_us_per_io=fc, iobench_cpu_us_per_io=ic)
            cpu_txt = f"  CPU/I/O fio {fc:.3f} iobench {'n/a' if ic is None else f'{ic:.3f}'} us"
            extra_txt = ""
            if kind == "split":  # the I/O counts are draws: the same bytes' time compared too
                fb = statistics.median(s[0] / s[2] for s in samples["fio"])
                ib = statistics.median(s[0] / s[2] for s in samples["iobench"])
                row["bytes_ratio"] = ib / fb
                extra_txt = f" (I/Os {f[1]} vs {i[1]}; per byte {ib / fb:.3f})"
            print(f"{name:34} {f[0]:>11} B {f[1]:>8} I/Os  fio {fi:9.0f} IOPS  iobench {ii:9.0f} IOPS  "
                  f"ratio {row['ratio']:.3f}{extra_txt}{cpu_txt}  shortest {short:.2f} s  {load}")
    ok = [r for r in rows if r.get("valid")]
    within = sum(1 for r in ok if r["ratio"] and abs(r["ratio"] - 1) <= 0.10)
    print(f"{len(ok)} of {len(rows)} with equal work; {within} within 10% of fio's IOPS "
          f"({a.rounds} round(s) each, interleaved, medians; data in {a.dir or tempfile.gettempdir()}"
          f"{' (--memory: tmpfs, direct=0, MEMORY scaling)' if a.memory else ''}"
          f"{''.join(' --set ' + kv for kv in a.set)})")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True, help="directory holding the iobench binary")
    ap.add_argument("--examples", default=default_examples())
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--run", action="store_true", help="run RUN's examples by fio and iobench, compare")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--dir", default=None, help="where --run puts its data (default: TMPDIR)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="--run: KEY=VALUE for both tools in every example (e.g. direct=0 on tmpfs)")
    ap.add_argument("--only", help="--run: these examples only (comma-separated, with or without .fio)")
    ap.add_argument("--memory", action="store_true",
                    help="--run: data on tmpfs (--dir, default /dev/shm), direct=0, MEMORY's scaling (0.5 s or more)")
    a = ap.parse_args()
    if a.run:
        return run_examples(a)
    rows = table(os.path.join(a.bin, "iobench"), a.examples)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    n_ok = sum(r["accepted"] for r in rows)
    if a.markdown:
        print("| example | result | what it needs |")
        print("|---|---|---|")
        for r in rows:
            res = ("accepted (as written)" if r["as_written"] else "accepted") if r["accepted"] else "refused"
            print(f"| {r['file']} | {res} | {r['reason'].replace('|', '/')} |")
    else:
        for r in rows:
            res = "accepted" if r["accepted"] else "refused "
            print(f"{r['file']:36} {res:8} {r['reason'] or ('(as written: refused only for the scaling)' if r['as_written'] else '')}")
    print(f"{n_ok} of {len(rows)} accepted ({' '.join(f'--set {k}={v}' for k, v in SETS)}, --dir, --allow-device; "
          "or as written where only the scaling is refused)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
