#!/usr/bin/env python3
"""io_uring backend options against fio at queue depth 32, interleaved rounds.

Each round runs fio (ioengine=io_uring, iodepth=32, direct=1, 4 KiB random reads,
every block once per pass) and then iobench once per option set given, in a
rotating order, on the same file.  Every run's own output is parsed for its
work (equal work is checked, as in bench/run.py), IOPS and CPU time per I/O
(iobench's cpu_ns_per_io; fio's usr_cpu + sys_cpu over its job runtime).
Printed per option set: the ratio of medians to fio's, the median of the
rounds' own ratios, and the CPU ratio.  docs/performance.md ("Start-up,
submission and the quiet-machine runs") has the figures.

  python3 bench/uring_options.py --build build --dir /var/tmp --rounds 25 \\
      "" submit_batch=0 submit_batch=1 "submit_batch=4,regfiles=0,regbufs=0"
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

SIZE = 256 << 20


def fio(path, ops):
    p = subprocess.run(["fio", "--output-format=json", "--name=q", f"--filename={path}", "--rw=randread",
                        "--bs=4k", f"--size={SIZE}", "--ioengine=io_uring", "--direct=1", "--iodepth=32",
                        f"--number_ios={ops}", f"--io_size={2 * ops * 4096}"],
                       capture_output=True, text=True, check=True)
    job = json.loads(p.stdout)["jobs"][0]
    r = job["read"]
    cpu = (job["usr_cpu"] + job["sys_cpu"]) / 100.0 * job["job_runtime"] / 1e3
    return r["iops"], r["io_bytes"], r["total_ios"], cpu * 1e9 / r["total_ios"]


def iobench(a, options, ops):
    prof = os.path.join(a.dir, "uring_options.ini")
    with open(prof, "w") as f:
        f.write(f"[q]\nbackend = io_uring\nbackend_options = direct=1{',' + options if options else ''}\n"
                f"iodepth = 32\nfilename = uring_options.dat\naccess = rand\nblock_size = 4K\n"
                f"size = {SIZE}\nops = {ops}\nphases = read\n")
    p = subprocess.run([os.path.join(a.build, "bin", "iobench"), "run", prof, "--dir", a.dir, "--output", "json"],
                       capture_output=True, text=True, check=True)
    r = [x for x in json.loads(p.stdout)["records"] if x.get("kind") == "phase"][0]
    return r["ops_per_s"], r["bytes"], r["ops"], r["cpu_ns_per_io"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--dir", default="/var/tmp")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--ops", type=int, default=100000)
    ap.add_argument("options", nargs="*", default=[""])
    a = ap.parse_args()
    path = os.path.join(a.dir, "uring_options.dat")
    if not os.path.exists(path) or os.path.getsize(path) != SIZE:
        with open(path, "wb") as f:
            for _ in range(SIZE >> 20):
                f.write(os.urandom(1 << 20))
    names = ["fio"] + list(a.options)
    got = {n: [] for n in names}
    for i in range(a.rounds):
        for n in names[i % len(names):] + names[:i % len(names)]:
            got[n].append(fio(path, a.ops) if n == "fio" else iobench(a, n, a.ops))
    ref = got["fio"]
    for n in names:
        works = {(b, o) for _, b, o, _ in got[n]} | {(b, o) for _, b, o, _ in ref}
        if len(works) != 1:
            print(f"{n or '(defaults)'}: INVALID, unequal work: {sorted(works)}")
            continue
        iops = statistics.median(x[0] for x in got[n])
        ratio = iops / statistics.median(x[0] for x in ref)
        paired = statistics.median(x[0] / y[0] for x, y in zip(got[n], ref))
        cpu = statistics.median(x[3] for x in got[n]) / statistics.median(y[3] for y in ref)
        print(f"{n or '(defaults)':40s} IOPS {iops:10,.0f}  / fio {ratio:.3f}  rounds' ratios {paired:.3f}  "
              f"CPU per I/O / fio {cpu:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
