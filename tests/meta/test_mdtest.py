#!/usr/bin/env python3
"""bench/mdtest.py --quick at 1 stream, 2 streams and under mpirun -n 2: the work both tools report
(files made, statted, removed) is equal, so every phase gets a ratio; with --selftest-unequal (iobench
one file short per stream) every pair is INVALID and the script exits 1; with --dirs at 1 stream (mdtest -D
against iobench's mkdir, dirstat and rmdir) the directories both made, stat'ed and removed are equal too.  Rates are not asserted: on a
shared machine they are the machine's.  Exit 77 (the script's reason printed) without mpirun or when
mdtest cannot be built.

usage: test_mdtest.py --bench PATH --build DIR --work DIR"""
import argparse
import os
import shutil
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    base = [sys.executable, a.bench, "--build", a.build, "--ior", os.path.join(a.build, "build-ior"),
            "--dir", a.work, "--quick"]
    p = subprocess.run(base, capture_output=True, text=True, timeout=550)
    print(p.stdout[-3000:], p.stderr[-2000:])
    if p.returncode == 77:
        return 77
    assert p.returncode == 0, f"exit {p.returncode}"
    for key in ("[s1]", "[s2]", "[m2]"):
        block = p.stdout.split(key, 1)[1].split("\n[", 1)[0]
        for ph in ("create", "stat", "remove"):
            line = [l for l in block.splitlines() if l.strip().startswith(ph + " ")]
            assert len(line) == 1 and "iobench/mdtest" in line[0] and "INVALID" not in line[0], (key, ph, block)
    p = subprocess.run(base + ["--only", "s1", "--dirs"], capture_output=True, text=True, timeout=550)
    print(p.stdout[-1500:], p.stderr[-1000:])
    assert p.returncode == 0, f"--dirs: exit {p.returncode}"
    block = p.stdout.split("[s1]", 1)[1]
    for ph in ("mkdir", "dirstat", "rmdir"):
        line = [l for l in block.splitlines() if l.strip().startswith(ph + " ")]
        assert len(line) == 1 and "iobench/mdtest" in line[0] and "INVALID" not in line[0], ("--dirs", ph, block)
    p = subprocess.run(base + ["--only", "s1", "--selftest-unequal"], capture_output=True, text=True, timeout=550)
    print(p.stdout[-1500:])
    assert p.returncode == 1 and "INVALID: unequal work" in p.stdout, (p.returncode, p.stdout, p.stderr)
    assert all("INVALID" in l for l in p.stdout.splitlines() if "iobench/mdtest" in l), p.stdout
    shutil.rmtree(a.work, ignore_errors=True)
    print("ok: equal work at 1 and 2 streams and 2 ranks, and for directories at 1 stream; an unequal pair is INVALID")
    return 0


if __name__ == "__main__":
    sys.exit(main())
