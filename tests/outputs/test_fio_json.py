#!/usr/bin/env python3
"""fio's shapes: the fio-json output and the fio-style logs, checked against
iobench's own json output of the same run and read by fio's own tools
(docs/outputs.md, "fio-json"; docs/profiles.md, "fio-style logs").

  json       one run with json=FILE and fio-json:plus=FILE: every job of the
             fio document carries the phase record's figures, in fio's
             members and units (KiB, KiB/s, ms), percentile keys as fio
             formats them, bins that add up to the latency's sample count
  clat2csv   fio_jsonplus_clat2csv (Debian's fio package) converts the json+
             document without error, its --validate agrees, and its CSV's
             cumulative fractions put each of our percentiles in the bin the
             percentile names (nearest rank); skips (77) when the tool is missing

usage: test_fio_json.py --bin-dir DIR --work DIR CASE
"""
import argparse
import glob
import json
import math
import os
import shutil
import subprocess
import sys

failures = []
SKIP = 77


def check(ok, msg):
    print(("ok: " if ok else "FAIL: ") + msg)
    if not ok:
        failures.append(msg)


def run(o, args, want=0, cwd=None):
    env = dict(os.environ)
    env.pop("IOBENCH_PLUGIN_PATH", None)
    p = subprocess.run([os.path.join(o.bin_dir, "iobench")] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, env=env, cwd=cwd or o.work, timeout=120)
    check(p.returncode == want, "iobench %s exits %d (got %d: %s)" % (" ".join(args), want, p.returncode,
                                                                      p.stderr[-600:]))
    return p


PROFILE = """
[seqrw]
size = 2MiB
block_size = 4KiB
phases = write,read
backend = posix

[mix]
size = 2MiB
block_size = 4KiB
access = random
ops = 1024
phases = write,mixed
rwmix_read = 70
threads = 2
backend = posix
"""


def profile(o, name="fio.ini", text=PROFILE):
    path = os.path.join(o.work, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def both_runs(o):
    """One run, with iobench's json and fio-json:plus: (our doc, fio doc)."""
    ini = profile(o)
    a, b = os.path.join(o.work, "run.json"), os.path.join(o.work, "fio.json")
    run(o, ["run", ini, "--dir", o.work, "--output", "json=%s,fio-json:plus=%s" % (a, b)])
    with open(a) as f:
        ours = json.load(f)
    with open(b) as f:
        fio = json.load(f)
    return ours, fio


def direction_of(rec):
    return {"write": ["write"], "read": ["read"], "verify": ["read"], "mixed": ["read", "write"]}[rec["phase"]]


def case_json(o):
    ours, fio = both_runs(o)
    phases = [r for r in ours["records"] if r["kind"] == "phase"]
    check(fio["fio version"] == "iobench-" + ours["version"], "fio version names iobench's")
    check(isinstance(fio["timestamp"], int) and fio["timestamp_ms"] == fio["timestamp"] * 1000,
          "timestamp and timestamp_ms")
    check(isinstance(fio["time"], str) and len(fio["time"].split()) == 5, "time as fio writes it: %r" % fio["time"])
    check(len(fio["jobs"]) == len(phases), "one job per phase record (%d, %d)" % (len(fio["jobs"]), len(phases)))
    check(fio["iobench"]["status"] == "ok" and fio["iobench"]["notes"] == ours["notes"], "the run's notes and status")
    for job, rec in zip(fio["jobs"], phases):
        what = "%s %s" % (rec["job"], rec["phase"])
        check(job["jobname"] == rec["job"] and job["groupid"] == rec.get("group", 0) and job["error"] == 0,
              "%s: jobname, groupid, error" % what)
        check({k: v for k, v in rec.items() if k != "kind"} == job["iobench"], "%s: the record in iobench" % what)
        check(job["job options"]["name"] == rec["job"] and job["job options"]["bs"] == str(rec["block_size_bytes"]),
              "%s: job options" % what)
        el = rec["elapsed_s"]
        dirs = direction_of(rec)
        for d in ("read", "write", "trim"):
            x = job[d]
            if d not in dirs:
                check(x["io_bytes"] == 0 and x["total_ios"] == 0 and x["clat_ns"]["N"] == 0,
                      "%s: %s is empty" % (what, d))
                continue
            if rec["phase"] == "mixed":
                nb = rec["bytes_read" if d == "read" else "bytes_written"]
                no = rec["ops_read" if d == "read" else "ops_written"]
                lat = rec["lat_ns" if d == "read" else "lat_write_ns"]
            else:
                nb, no, lat = rec["bytes"], rec["ops"], rec["lat_ns"]
            check(x["io_bytes"] == nb and x["io_kbytes"] == nb // 1024 and x["total_ios"] == no,
                  "%s %s: io_bytes %d, io_kbytes, total_ios %d" % (what, d, nb, no))
            check(x["bw_bytes"] == int(nb / el) and x["bw"] == int(nb / el / 1024),
                  "%s %s: bw_bytes %d and bw %d KiB/s are bytes over elapsed_s" % (what, d, x["bw_bytes"], x["bw"]))
            check(abs(x["iops"] - no / el) <= 1e-6 * max(1, no / el) + 1e-6, "%s %s: iops" % (what, d))
            check(x["runtime"] == round(el * 1000), "%s %s: runtime %d ms" % (what, d, x["runtime"]))
            check(x["short_ios"] == rec["short_ops"] and x["drop_ios"] == 0 and x["slat_ns"]["N"] == 0,
                  "%s %s: short_ios, drop_ios, slat_ns" % (what, d))
            for key in ("clat_ns", "lat_ns"):
                c = x[key]
                check(c["N"] == lat["count"] and c["min"] == lat["min"] and c["max"] == lat["max"] and
                      abs(c["mean"] - lat["mean"]) <= 1e-6 * lat["mean"] + 1e-6 and
                      abs(c["stddev"] - lat["stddev"]) <= 1e-6 * lat["stddev"] + 1e-6,
                      "%s %s %s: N, min, max, mean, stddev" % (what, d, key))
                want = {"%f" % float(k): v for k, v in lat["percentiles"].items()}
                check(c["percentile"] == want, "%s %s %s: percentile keys as fio writes them (%s)" % (
                    what, d, key, sorted(c["percentile"])[:3]))
            bins = x["clat_ns"].get("bins")
            check(isinstance(bins, dict) and sum(bins.values()) == lat["count"],
                  "%s %s: bins add up to N (%s)" % (what, d, sum(bins.values()) if bins else None))
            keys = sorted(int(k) for k in bins)
            check(keys[0] >= lat["min"] and keys[-1] <= lat["max"], "%s %s: bins within [min, max]" % (what, d))
            check(all(str(k) in bins for k in keys), "%s %s: bin keys are plain integers" % (what, d))
    # without plus: no bins
    b = os.path.join(o.work, "plain.json")
    run(o, ["run", profile(o), "--dir", o.work, "--output", "fio-json=" + b])
    with open(b) as f:
        plain = json.load(f)
    check(all("bins" not in j[d]["clat_ns"] for j in plain["jobs"] for d in ("read", "write")),
          "fio-json without plus has no bins")
    run(o, ["run", profile(o), "--dir", o.work, "--output", "fio-json:bogus=" + b], want=2)


def case_clat2csv(o):
    tool = shutil.which("fio_jsonplus_clat2csv")
    if not tool:
        print("skip: fio_jsonplus_clat2csv not installed (Debian package fio; tools/deps.sh installs it)")
        sys.exit(SKIP)
    ours, fio = both_runs(o)
    src = os.path.join(o.work, "fio.json")
    dest = os.path.join(o.work, "clat.csv")
    for old in glob.glob(os.path.join(o.work, "clat_job*.csv")):
        os.remove(old)
    p = subprocess.run([tool, src, dest], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    check(p.returncode == 0 and not p.stderr, "fio_jsonplus_clat2csv converts our json+ (%s)" % p.stderr[-400:])
    p = subprocess.run([tool, src, dest, "--validate"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=120)
    check(p.returncode == 0 and p.stdout.count("validated") == len(fio["jobs"]),
          "fio_jsonplus_clat2csv --validate: %s" % (p.stdout + p.stderr)[-400:])
    for n, job in enumerate(fio["jobs"]):
        path = os.path.join(o.work, "clat_job%d.csv" % n)
        check(os.path.exists(path), "%s written" % os.path.basename(path))
        if not os.path.exists(path):
            continue
        with open(path) as f:
            lines = [l.rstrip("\n") for l in f if l.strip()]
        cols = [c.strip() for c in lines[0].split(",")]
        rows = [[c.strip() for c in l.split(",")] for l in lines[1:]]
        for d in ("read", "write"):
            lat = job[d]["clat_ns"]
            if not lat["N"]:
                continue
            ic, icum = cols.index(d + "_clat_ns_count"), cols.index(d + "_clat_ns_cumulative")
            ip = cols.index(d + "_clat_ns_percentile")
            cum = [(int(r[0]), int(r[icum]), float(r[ip])) for r in rows if r[ic]]
            check(sum(int(r[ic]) for r in rows if r[ic]) == lat["N"] and cum[-1][1] == lat["N"] and
                  cum[-1][2] == 1.0, "job%d %s: the CSV counts N" % (n, d))
            for key, v in lat["percentile"].items():
                # nearest rank: the first bin whose cumulative count reaches
                # ceil(p/100 * N); on an exact product either side is allowed
                # (the core's long double may round it up)
                r = float(key) / 100 * lat["N"]
                ranks = {round(r), round(r) + 1} if abs(r - round(r)) < 1e-6 else {math.ceil(r)}
                at = {next((ns for ns, c, _ in cum if c >= k), None) for k in ranks}
                check(v in at, "job%d %s: p%s is %d in our percentiles and %s in the CSV" % (n, d, key, v, at))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin-dir", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("case", choices=["json", "clat2csv"])
    o = ap.parse_args()
    o.work = os.path.join(o.work, o.case)
    shutil.rmtree(o.work, ignore_errors=True)
    os.makedirs(o.work)
    {"json": case_json, "clat2csv": case_clat2csv}[o.case](o)
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    shutil.rmtree(o.work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
