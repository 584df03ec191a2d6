#!/usr/bin/env python3
"""fio's examples as iobench sees them: `iobench check` on each job file of a
directory (fio's examples/, or ../shared/reference/fio-examples beside the
source tree), scaled only by --set size/runtime and --dir, with
--allow-device for the ones that name a device; one row per file: accepted,
or refused with iobench's one line.

  bench/fio_examples.py --bin build/bin [--examples DIR] [--markdown] [--json FILE]
  bench/fio_examples.py --bin build/bin --run [--dir DIR] [--rounds N] [--json FILE]

Without --run nothing is run: check creates nothing (the scratch directory
given to --dir is checked to stay empty).

--run: eight accepted examples (RUN below) run by fio (a copy of the file with
size and runtime added at the end of every job section, what --set does, in
a fresh directory) and by iobench (--set, --dir), in turns, N rounds.  Work
from both tools' own outputs: bytes and I/Os read and written (fio's JSON
io_bytes and total_ios over its jobs; iobench's phase records).  A pair whose
bytes or I/O counts differ by more than 0.1% is INVALID (both figures are
printed), never compared.  IOPS: I/Os over each tool's own time (per group
of jobs run at once, its longest job's time; the groups added up); the ratio
is iobench's median over fio's.  Exit 1 when a pair is INVALID or a tool
failed.  Needs fio (tools/deps.sh fio)."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

# the fio job file scaled for a run, as the fio reference tests scale it
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "support"))
from fioscale import scaled_copy  # noqa: E402

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


# The examples --run compares: size-based ones, so that both tools do a known amount of work; the fio
# keys added for fio alone where iobench's meaning is another (docs/fio.md): iobench draws bssplit's
# offsets with replacement (fio's norandommap)
# (never one that names a device: the scaled copy fio runs keeps its filename).  Eight: the other
# accepted examples are bounded by time (time_based, loops, a rate), name a device, or take no
# --set size=4M (waitfor.fio: a 128 MiB filesize), so the two
# tools' work could not be equal.  filestat-ioengine.fio: I/O counts only (fio counts filesize
# bytes per stat, iobench's files job moves none)
RUN = [("backwards-read.fio", []), ("basic-verify.fio", []), ("dedupe-global.fio", []),
       ("null.fio", []), ("rand-zones.fio", []),
       ("iometer-file-access-server.fio", [("norandommap", "1")]), ("ssd-test.fio", []),
       ("filestat-ioengine.fio", [])]
META_PHASE = {"filestat-ioengine.fio": "stat"}
RUN_SETS = [("size", "4M"), ("runtime", "5s")]


def fio_work(doc):
    """(bytes, I/Os, seconds) from fio's JSON: every job; the time per group is its longest job's."""
    b = n = 0
    groups = {}
    for j in doc["jobs"]:
        for d in ("read", "write"):
            b += j[d]["io_bytes"]
            n += j[d]["total_ios"]
        g = j.get("groupid", 0)
        groups[g] = max(groups.get(g, 0.0), j["job_runtime"] / 1000.0)
    return b, n, sum(groups.values())


def iob_work(doc):
    """(bytes, I/Os, seconds) from iobench's JSON phase records; a group's phases of one name at once."""
    b = n = 0
    groups = {}
    for r in doc["records"]:
        if r.get("kind") == "meta" and r["phase"] in META_PHASE.values():
            n += r["ops"]
            g = (r.get("group") or 0, "" if r.get("group") else r["job"], r["phase"])
            groups[g] = max(groups.get(g, 0.0), r["elapsed_s"])
            continue
        if r.get("kind") != "phase":
            continue
        b += r["bytes"]
        n += r["ops"]
        g = (r.get("group") or 0, "" if r.get("group") else r["job"], r["phase"])
        groups[g] = max(groups.get(g, 0.0), r["elapsed_s"])
    return b, n, sum(groups.values())


def run_one(iobench, fio, path, sets, fio_extra, scratch):
    """{"fio": (bytes, ios, s), "iobench": (...)} or {"error": text}"""
    res = {}
    for who in ("fio", "iobench"):
        data = tempfile.mkdtemp(dir=scratch)
        out = os.path.join(scratch, who + ".json")
        if who == "fio":
            copy = os.path.join(scratch, "scaled-" + os.path.basename(path))
            scaled_copy(path, copy, list(sets) + list(fio_extra), data)
            argv = [fio, "--output-format=json", "--output=" + out, copy]
        else:
            argv = [iobench, "run", path, "--dir", data, "--allow-device", "--output", "json=" + out]
            for k, v in sets:
                argv += ["--set", f"{k}={v}"]
        try:
            p = subprocess.run(argv, cwd=data, capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            shutil.rmtree(data, ignore_errors=True)
            return {"error": f"{who}: did not end within 300 s"}
        shutil.rmtree(data, ignore_errors=True)
        if p.returncode != 0:
            return {"error": f"{who}: exit {p.returncode}: {(p.stderr.strip().splitlines() or [''])[-1]}"}
        with open(out) as f:
            doc = json.load(f)
        res[who] = fio_work(doc) if who == "fio" else iob_work(doc)
    return res


def run_examples(a):
    import statistics
    fio = shutil.which("fio")
    if not fio:
        print("fio is not installed (tools/deps.sh fio): nothing to compare with")
        return 1
    iobench = os.path.abspath(os.path.join(a.bin, "iobench"))
    rows, bad = [], 0
    with tempfile.TemporaryDirectory(prefix="fio-run-", dir=a.dir) as scratch:
        for name, extra in RUN:
            path = os.path.join(a.examples, name)
            if not os.path.isfile(path):
                print(f"{name:34} not there")
                continue
            samples, row = [], {"file": name, "fio_extra": dict(extra)}
            for _ in range(a.rounds):
                r = run_one(iobench, fio, path, RUN_SETS, extra, scratch)
                if "error" in r:
                    row["error"] = r["error"]
                    break
                samples.append(r)
            rows.append(row)
            if "error" in row:
                bad += 1
                print(f"{name:34} FAILED {row['error']}")
                continue
            f, i = samples[0]["fio"], samples[0]["iobench"]
            row.update(fio_bytes=f[0], fio_ios=f[1], iobench_bytes=i[0], iobench_ios=i[1])
            pairs = ((f[1], i[1]),) if name in META_PHASE else ((f[0], i[0]), (f[1], i[1]))
            if not all(abs(x - y) <= 0.001 * max(x, y) for x, y in pairs):
                bad += 1
                row["valid"] = False
                print(f"{name:34} INVALID work differs: fio {f[0]} bytes {f[1]} I/Os, iobench {i[0]} bytes "
                      f"{i[1]} I/Os")
                continue
            fs = [s["fio"][1] / s["fio"][2] for s in samples if s["fio"][2]]
            ws = [s["iobench"][1] / s["iobench"][2] for s in samples if s["iobench"][2]]
            if not fs or not ws:  # fio gives whole milliseconds: 0 for a job that short
                row["valid"] = True
                row["ratio"] = None
                print(f"{name:34} {f[0]:>11} bytes {f[1]:>7} I/Os  equal work; no IOPS: a tool's time is 0 "
                      f"(fio {samples[0]['fio'][2]:.3f} s, iobench {samples[0]['iobench'][2]:.6f} s)")
                continue
            fi, ii = statistics.median(fs), statistics.median(ws)
            row.update(valid=True, fio_iops=fi, iobench_iops=ii, ratio=ii / fi)
            print(f"{name:34} {f[0]:>11} bytes {f[1]:>7} I/Os  fio {fi:10.0f} IOPS  iobench {ii:10.0f} IOPS  "
                  f"ratio {row['ratio']:.3f}")
    ok = [r for r in rows if r.get("valid")]
    within = sum(1 for r in ok if r["ratio"] and abs(r["ratio"] - 1) <= 0.10)
    print(f"{len(ok)} of {len(RUN)} with equal work; {within} within 10% of fio's IOPS "
          f"({' '.join(f'--set {k}={v}' for k, v in RUN_SETS)}, {a.rounds} round(s), medians)")
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
