#!/usr/bin/env python3
"""A real full disk: as root, mount a 4 MiB tmpfs and run the binaries into
ENOSPC.  The guarantees: a one-line error naming the operation, file, offset
and errno text; exit 1; the JSON document stays valid with an "error" member;
no partial file is reported as complete.  Without root (or without the right
to mount) it skips and says why.  Prints 'N passed, N failed'."""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

A = None
failures = []
passed = 0


def check(name, cond, detail):
    global passed
    if cond:
        passed += 1
    else:
        failures.append(f"{name}: {detail}")


def run(tool, args, cwd, fill_after=10):
    """Run tool on the fault backend set to fill the file system after
    fill_after writes: the up-front space check passes, then the kernel
    itself answers ENOSPC."""
    env = dict(os.environ)
    env["IOB_FAULT_WRAP"] = os.path.join(A.plugin_dir, "iob-backend-posix.so")
    env["IOB_FAULT"] = f"op=write,err=fill,after_calls={fill_after}"
    env["IOBENCH_PLUGIN_PATH"] = A.fault_dir
    return subprocess.run([os.path.join(A.bin, tool), *args], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=120)


def iobench_case(mnt):
    prof = os.path.join(mnt, "..", "full.ini")
    with open(prof, "w") as f:
        f.write("[global]\nbackend = fault\nsize = 1M\nblock_size = 64K\nphases = write\nkeep_files = true\n"
                "[one]\n[two]\n")
    p = run("iobench", ["run", prof, "--dir", mnt, "--output", "json"], mnt, fill_after=20)
    lines = p.stderr.strip().splitlines()
    check("iobench exit", p.returncode == 1, f"exit {p.returncode}: {p.stderr}")
    check("iobench one line", len(lines) == 1 and re.search(
        r"job two: (write of 65536 bytes|short write \(\d+ of 65536 bytes\)) at offset 262144 of "
        r".*iobench\.two\.dat(:| failed:) No space left on device",
        lines[0]) is not None, p.stderr)
    try:
        doc = json.loads(p.stdout)
    except ValueError as e:
        check("iobench json", False, f"{e}: {p.stdout!r}")
        return
    check("iobench json", doc["status"] == "error" and "No space left" in doc["error"], doc)
    two = [r for r in doc["records"] if r["job"] == "two"]
    check("iobench partial not complete", len(two) == 1 and two[0]["status"] == "error" and
          two[0]["bytes"] < 1 << 20, two)
    one = [r for r in doc["records"] if r["job"] == "one"]
    check("iobench first job whole", len(one) == 1 and one[0]["status"] == "ok" and one[0]["bytes"] == 1 << 20, one)


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--fault-dir", required=True)
    ap.add_argument("--plugin-dir", required=True)
    A = ap.parse_args()
    if os.geteuid() != 0:
        print("SKIP: needs root to mount a small tmpfs (CI runs as root)")
        print("0 passed, 0 failed, 1 skipped")
        return 0
    os.makedirs(A.work, exist_ok=True)
    top = tempfile.mkdtemp(prefix="diskfull-", dir=A.work)
    mnt = os.path.join(top, "mnt")
    os.mkdir(mnt)
    m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", mnt], capture_output=True, text=True)
    if m.returncode != 0:
        print(f"SKIP: cannot mount a tmpfs here: {m.stderr.strip()}")
        print("0 passed, 0 failed, 1 skipped")
        os.rmdir(mnt)
        os.rmdir(top)
        return 0
    try:
        iobench_case(mnt)
    finally:
        subprocess.run(["umount", mnt])
        subprocess.run(["rm", "-rf", top])
    for f in failures:
        print("FAIL", f)
    print(f"{passed} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
