#!/usr/bin/env python3
"""Whole-process bigread against dd on one cached file, interleaved.

    python3 bench/bigread_dd.py FILE --bufsize 0.5 --dd-bs 512M --rounds 11 \
        --bigread build/bin/bigread [--bigread OTHER/bin/bigread ...]

Each round runs every bigread given and dd once, in an order that rotates
from round to round, after one untimed read that leaves FILE in the page
cache.  Printed per command: the median wall time, user and system CPU (the
child's rusage), and for each bigread the median of the rounds' own ratios
dd wall / bigread wall (its speed against dd).  Equal work is checked from
both sides' own output every round: bigread's JSON `bytes` and dd's
"N bytes copied" line must both be FILE's size.
"""
import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def timed(cmd):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"bigread_dd: {cmd[0]} exited {p.returncode}: {p.stderr.strip()}")
    return p, (wall, r1.ru_utime - r0.ru_utime, r1.ru_stime - r0.ru_stime)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--bigread", action="append", required=True, help="a bigread binary (repeatable)")
    ap.add_argument("--bufsize", default="0.5", help="bigread's bufsize= in GB (default 0.5)")
    ap.add_argument("--dd-bs", default="512M", help="dd's bs= (default 512M)")
    ap.add_argument("--rounds", type=int, default=11)
    a = ap.parse_args()
    size = os.path.getsize(a.file)
    with open(a.file, "rb") as f:  # cached before the first round
        while f.read(1 << 24):
            pass
    tmp = tempfile.mkdtemp(prefix="bigread_dd.")
    cmds = {}
    for i, b in enumerate(a.bigread):
        js = os.path.join(tmp, f"b{i}.json")
        cmds[f"bigread[{i}] {b}"] = ("bigread", js,
                                     [b, f"in={a.file}", f"bufsize={a.bufsize}", "-o", f"json={js}"])
    cmds["dd"] = ("dd", None, ["dd", f"if={a.file}", "of=/dev/null", f"bs={a.dd_bs}"])
    names = list(cmds)
    res = {k: [] for k in names}
    for r in range(a.rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for k in order:
            kind, js, cmd = cmds[k]
            if js and os.path.exists(js):
                os.unlink(js)
            p, t = timed(cmd)
            if kind == "dd":
                m = re.search(r"^(\d+) bytes", p.stderr, re.M)
                got = int(m.group(1)) if m else -1
            else:
                with open(js) as f:
                    got = sum(x["bytes"] for x in json.load(f)["records"] if x.get("kind") == "phase")
            if got != size:
                sys.exit(f"bigread_dd: round {r}: {k} moved {got} bytes, the file has {size}")
            res[k].append(t)
    print(f"{a.rounds} rounds over {a.file} ({size} bytes), equal bytes checked every round; "
          f"load average {os.getloadavg()[0]:.1f}")
    for k in names:
        v = res[k]
        print(f"{k}: wall median {statistics.median(x[0] for x in v):.3f} s, user {statistics.median(x[1] for x in v):.3f} s, "
              f"sys {statistics.median(x[2] for x in v):.3f} s")
    for k in names[:-1]:
        ratio = statistics.median(d[0] / b[0] for b, d in zip(res[k], res["dd"]))
        print(f"{k}: speed against dd, median of the rounds' ratios {ratio:.3f}")


if __name__ == "__main__":
    main()
