#!/usr/bin/env python3
"""Fault injection: run the binaries on the test-only "fault" backend (which
wraps posix) under each injected failure, and check the guarantees: a one-line
error naming the operation, file, offset and errno text; the documented exit
code; output already printed stays well formed (one JSON document with an
"error" member; whole CSV rows).  Prints 'N passed, N failed'."""
import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

A = None
failures = []
passed = 0


def run(tool, args, fault, tmp, stdin=None):
    env = dict(os.environ)
    env["IOB_FAULT_WRAP"] = os.path.join(A.plugin_dir, "iob-backend-posix.so")
    env["IOB_FAULT"] = fault
    env["IOBENCH_PLUGIN_PATH"] = A.fault_dir
    return subprocess.run([os.path.join(A.bin, tool), *args], capture_output=True, text=True, env=env,
                          cwd=tmp, input=stdin, timeout=120)


def check(name, cond, detail):
    global passed
    if cond:
        passed += 1
    else:
        failures.append(f"{name}: {detail}")


def iobench_cases(tmp):
    prof = os.path.join(tmp, "f.ini")
    with open(prof, "w") as f:
        f.write("[f]\nbackend = fault\nsize = 1M\nblock_size = 64K\nphases = write,read,verify\n")
    file = os.path.join(tmp, "iobench.f.dat")
    cases = [
        # fault, exit, regex for the stderr line
        ("op=write,err=EIO,after_calls=3", 1, r"write of 65536 bytes at offset 196608 of .*iobench\.f\.dat failed: Input/output error"),
        ("op=write,err=ENOSPC,after_bytes=524288", 1, r"write of 65536 bytes at offset 524288 of .* failed: No space left on device"),
        ("op=write,err=short,after_calls=2", 1, r"short write \(32768 of 65536 bytes\) at offset 131072 of .*iobench\.f\.dat"),
        ("op=read,err=EIO,after_calls=5", 1, r"read of 65536 bytes at offset 327680 of .* failed: Input/output error"),
        ("op=read,err=short,after_calls=1,persist=0", 1, r"short read \(32768 of 65536 bytes\) at offset 65536 of .*before its end"),
        ("op=sync,err=EIO", 1, r"sync of .*iobench\.f\.dat failed: Input/output error"),
        ("op=open,err=EIO,after_calls=1", 1, r"open of .*iobench\.f\.dat failed: Input/output error"),
        ("op=write,err=EIO,after_calls=0,persist=0", 1, r"write of 65536 bytes at offset 0 of"),
    ]
    for fault, code, pattern in cases:
        for out in ("json", "csv"):
            d = tempfile.mkdtemp(dir=tmp)
            shutil.copy(prof, d)
            p = run("iobench", ["run", "f.ini", "--dir", d, "--output", out], fault, d)
            name = f"iobench [{fault}] {out}"
            lines = p.stderr.strip().splitlines()
            check(name + " exit", p.returncode == code, f"exit {p.returncode}, want {code}: {p.stderr}")
            check(name + " one line", len(lines) == 1 and re.search(pattern, lines[0]) is not None,
                  f"stderr {p.stderr!r} !~ {pattern}")
            if out == "json":
                try:
                    doc = json.loads(p.stdout)
                    ok = doc["status"] == "error" and re.search(pattern, doc["error"]) is not None
                except ValueError as e:
                    ok, doc = False, str(e)
                check(name + " json", ok, f"document {doc!r}")
            else:
                rows = list(csv.reader(p.stdout.splitlines()))
                ok = all(len(r) == len(rows[0]) for r in rows) if rows else True
                check(name + " csv", ok and p.stdout.endswith("\n") if rows else True, p.stdout)
            check(name + " no temp file", not os.path.exists(os.path.join(d, "iobench.f.dat")),
                  f"left behind: {os.listdir(d)}")


def main():
    global A
    ap = argparse.ArgumentParser()
    for a in ("--bin", "--fault-dir", "--plugin-dir", "--work"):
        ap.add_argument(a, required=True)
    A = ap.parse_args()
    os.makedirs(A.work, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="fault-", dir=A.work)
    try:
        iobench_cases(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print("FAIL", f)
    print(f"{passed} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
