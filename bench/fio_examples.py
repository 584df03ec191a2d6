#!/usr/bin/env python3
"""fio's examples as iobench sees them: `iobench check` on each job file of a
directory (fio's examples/, or ../shared/reference/fio-examples beside the
source tree), scaled only by --set size/runtime and --dir, with
--allow-device for the ones that name a device; one row per file: accepted,
or refused with iobench's one line.

  bench/fio_examples.py --bin build/bin [--examples DIR] [--markdown] [--json FILE]

Nothing is run: check creates nothing (the scratch directory given to --dir
is checked to stay empty)."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

SETS = [("size", "16M"), ("runtime", "2s")]


def default_examples():
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.realpath(os.path.join(here, "..", "..", "shared", "reference", "fio-examples"))


def check(iobench, path, scratch, sets=SETS):
    """(accepted, exit code, stderr lines, files created in scratch)"""
    argv = [iobench, "check", path, "--dir", scratch, "--allow-device"]
    for k, v in sets:
        argv += ["--set", f"{k}={v}"]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
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
            own = False
            if not ok:
                # refused for the scaling only (a runtime shorter than a steady-state window, a size
                # that is no whole number of passes over the job's filesize): checked as written
                ok2, rc2, errs2, more = check(iobench, os.path.join(examples, name), scratch, [])
                made += more
                if ok2:
                    own, ok, rc, errs = True, ok2, rc2, errs2
            why = "" if ok else (errs[0] if errs else f"exit {rc}, no message")
            prefix = "iobench: error: " + os.path.join(examples, name)
            if why.startswith(prefix):
                why = why[len(prefix):].lstrip(": ")
            rows.append({"file": name, "accepted": ok, "exit": rc, "reason": why, "lines": len(errs) if not ok else 0,
                         "created": made, "as_written": own})
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True, help="directory holding the iobench binary")
    ap.add_argument("--examples", default=default_examples())
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--json")
    a = ap.parse_args()
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
