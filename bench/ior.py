#!/usr/bin/env python3
"""Write and read bandwidth against IOR, file per process, under mpirun -n 2, in one run.

  bench/ior.py --build build [--ior DIR] [--dir DIR] [--mib 64] [--rounds 5] [--json out.json]

The shape of `mpirun -n 2 ior -a POSIX -F -b 64m -t 1m -w -r` (a file per rank, 64 MiB each in
1 MiB transfers, written then read back, no fsync: IOR's default without -e) run three ways on the same
file system (--dir, default /var/tmp/iobench-ior), in interleaved rounds:
  ior      mpirun -n 2 ior -a POSIX -F -b 64m -t 1m -w -r -o DIR/ior.dat
  iobench  mpirun -n 2 iobench run (size = 64M, block_size = 1M, fsync = false, phases = write,read,
           dir = DIR/${RANK}, fill_once = true: one buffer written everywhere, as IOR writes its
           transfer buffer, filled once; without it iobench makes fresh random data for every
           block, which costs it CPU that IOR does not spend)
  iotest   mpirun -n 2 iotest DIR/iotest -s 64 -b 1024 -W -w -r   (each rank its NAME.RANK)
Rates by IOR's rule (all bytes over latest end - earliest start, from the ranks' barrier) are what
each tool prints: IOR's summary Max(MiB) of one iteration, iobench's aggregate phase record
(bw_bytes_per_s, ranks 2), iotest's aggregate record in its JSON.  Equal bytes or no ratio: IOR's
"aggregate filesize", iobench's and iotest's records' bytes must all be 2 x 64 MiB per phase.

IOR comes from ../shared/reference/build-ior.sh (built into --ior when missing); exit 77, saying
why, when it cannot be built.  Without fsync and on a cached file the figures measure the page cache,
for all three alike.
"""
import json
import os
import re
import shutil
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mdtest as md  # noqa: E402  (ensure_mdtest builds IOR and mdtest together)

MiB = 1 << 20


def mpirun(argv):
    p = subprocess.run(["mpirun", "-n", "2"] + argv, capture_output=True, text=True, timeout=3600)
    if p.returncode != 0:
        raise RuntimeError(f"mpirun -n 2 {' '.join(argv)}: exit {p.returncode}\n{p.stdout[-1500:]}{p.stderr[-1500:]}")
    return p


def run_ior(a, ior, d):
    md.clean(d)
    p = mpirun([ior, "-a", "POSIX", "-F", "-b", f"{a.mib}m", "-t", "1m", "-w", "-r", "-o", os.path.join(d, "ior.dat")])
    agg = re.search(r"aggregate filesize\s*[:=]\s*([\d.]+)\s*(MiB|GiB|bytes)", p.stdout)
    size = float(agg.group(1)) * {"MiB": MiB, "GiB": 1024 * MiB, "bytes": 1}[agg.group(2)] if agg else None
    rates = {}
    summary = p.stdout.split("Summary of all tests:", 1)[-1]
    for ph in ("write", "read"):  # Max(MiB) of the summary: one iteration
        m = re.search(r"^" + ph + r"\s+([\d.]+)\s", summary, re.M)
        if m:
            rates[ph] = float(m.group(1)) * MiB
    return rates, {ph: int(size) for ph in rates} if size else {}


def run_iobench(a, d):
    md.clean(d)
    for k in (0, 1):
        os.makedirs(os.path.join(d, str(k)))
    prof = os.path.join(a.tmp, "bw.ini")
    with open(prof, "w") as f:
        f.write(f"[bw]\ndir = {d}/${{RANK}}\nfilename = f\nsize = {a.mib}M\nblock_size = 1M\nfsync = false\n"
                "phases = write,read\nfill_once = true\n")
    out = os.path.join(a.tmp, "bw.json")
    mpirun([os.path.join(a.build, "bin", "iobench"), "run", prof, "-o", "json=" + out])
    return phase_rates(out)


def run_iotest(a, d):
    md.clean(d)
    out = os.path.join(a.tmp, "it.json")
    mpirun([os.path.join(a.build, "bin", "iotest"), os.path.join(d, "iotest"), "-s", str(a.mib), "-b", "1024",
            "-W", "-w", "-r", "--format", "json=" + out])
    return phase_rates(out)


def phase_rates(path):
    with open(path) as f:
        recs = json.load(f)["records"]
    rates, work = {}, {}
    for r in recs:
        if r.get("kind") == "phase" and r.get("ranks") == 2 and r["phase"] in ("write", "read"):
            rates[r["phase"]] = r["bw_bytes_per_s"]
            work[r["phase"]] = r["bytes"]
    return rates, work


def main():
    ap = md.bench_args(__doc__, "/var/tmp/iobench-ior")
    ap.add_argument("--mib", type=int, default=64)
    a = ap.parse_args()
    md.bench_setup(a, "no mpirun (MPICH)")
    ior = os.path.join(a.ior, "bin", "ior")
    d = os.path.join(a.dir, "w")
    who = {"ior": lambda: run_ior(a, ior, d), "iobench": lambda: run_iobench(a, d), "iotest": lambda: run_iotest(a, d)}
    names = list(who)
    samples = {n: [] for n in names}
    works = {}
    for rnd in range(a.rounds):
        for n in names[rnd % 3:] + names[:rnd % 3]:
            rates, work = who[n]()
            samples[n].append(rates)
            works.setdefault(n, work)
            if works[n] != work:
                works[n] = None
    shutil.rmtree(d, ignore_errors=True)
    shutil.rmtree(a.tmp, ignore_errors=True)
    want = {ph: 2 * a.mib * MiB for ph in ("write", "read")}
    print(f"mpirun -n 2, a file per rank, {a.mib} MiB in 1 MiB transfers, {a.rounds} round(s), {a.dir}")
    bad = 0
    for n in names:
        if works[n] != want:
            bad += 1
            print(f"  INVALID: {n} did {works[n]}, not {want}")
    res = {"work": works, "phases": {}}
    for ph in ("write", "read"):
        med = {n: statistics.median([s[ph] for s in samples[n] if ph in s]) for n in names}
        res["phases"][ph] = {n: [s.get(ph) for s in samples[n]] for n in names}
        line = "  ".join(f"{n} {med[n] / MiB:10.1f} MiB/s" for n in names)
        ratios = "" if bad else f"   iobench/ior {med['iobench'] / med['ior']:.3f}   iotest/ior {med['iotest'] / med['ior']:.3f}"
        print(f"  {ph:5s}  {line}{ratios}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
