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
  logs       bw_log, iops_log and lat_log with log_interval: fio's file names
             and columns, a row per interval and direction (a mixed phase
             both), values that are the interval records' figures, rows
             whose times step by the intervals' lengths, the bw log
             integrating to each phase's bytes (to its values' rounding), each
             clone's logs to its own stream's ops and bytes (to the rounding of
             the log's times and values, whatever the intervals' lengths);
             refusals (exit 2, nothing created): a missing directory,
             a log file that is a directory, a per-I/O log of a time-based job; `iobench keys`
             lists the keys
  fio2gnuplot  fio2gnuplot accepts our bw and iops logs and renders its plots
             (PNG files); skips (77) when fio2gnuplot or gnuplot is missing

usage: test_fio_json.py --bin-dir DIR --work DIR CASE
"""
import glob
import json
import math
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import iobtest as iob  # noqa: E402
from iobtest import report as check  # noqa: E402

RUN_LIMIT = 540  # seconds a run may take; ctest's TIMEOUT for these cases is 600


def run(o, args, want=0, cwd=None):
    # RUN_LIMIT, not iob.run's 120 s: how long a run of a fixed count of I/Os
    # (the logs case's mixlog) takes is the machine's business, and the
    # sanitizers' (the bound is not what these cases check)
    p = iob.run([os.path.join(o.bin_dir, "iobench")] + args, env=iob.env(), cwd=cwd or o.work,
                timeout=RUN_LIMIT)
    check(p.returncode == want, "iobench %s exits %d (got %d: %s)" % (" ".join(args), want, p.returncode,
                                                                      p.stderr[-600:]))
    return p


PROFILE = """
[seqrw]
size = 2MiB
block_size = 4KiB
phases = write,read
loops = 4
log_interval = 10ms
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

[g1]
size = 1MiB
block_size = 4KiB
phases = write
group = 1
backend = posix

[g2]
size = 1MiB
block_size = 8KiB
phases = write
group = 1
backend = posix
"""


def profile(o, name="fio.ini", text=PROFILE):
    return iob.write(os.path.join(o.work, name), text)


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
    check(sorted(j["groupid"] for j in fio["jobs"]) == [0, 0, 0, 0, 1, 1], "groupid is the record's group")
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
            ivs = [r for r in ours["records"] if r["kind"] == "interval" and r["job"] == rec["job"] and
                   r["phase"] == rec["phase"]]
            if rec["phase"] == "mixed" or not ivs:
                check(x["bw_samples"] == 0 and x["iops_samples"] == 0 and x["bw_min"] == 0,
                      "%s %s: no bw or iops samples" % (what, d))
            else:
                bws = [iv["bw_bytes_per_s"] / 1024 for iv in ivs]
                ios = [iv["ops_per_s"] for iv in ivs]
                mean = sum(bws) / len(bws)
                dev = math.sqrt(sum((v - mean) ** 2 for v in bws) / (len(bws) - 1)) if len(bws) > 1 else 0.0
                check(x["bw_samples"] == len(ivs) and x["iops_samples"] == len(ivs) and
                      abs(x["bw_min"] - min(bws)) <= 0.5 and abs(x["bw_max"] - max(bws)) <= 0.5 and
                      abs(x["iops_min"] - min(ios)) <= 0.5 and abs(x["iops_max"] - max(ios)) <= 0.5 and
                      abs(x["bw_mean"] - mean) <= 1e-6 * mean + 1e-6 and
                      abs(x["bw_dev"] - dev) <= 1e-6 * dev + 1e-3 and
                      abs(x["iops_mean"] - sum(ios) / len(ios)) <= 1e-6 * x["iops_mean"] + 1e-6,
                      "%s %s: bw and iops samples are the %d interval records" % (what, d, len(ivs)))
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
    p = run(o, ["run", profile(o), "--dir", o.work, "--output", "fio-json:bogus=" + b], want=2)
    check("plus" in p.stderr and len(p.stderr.strip().split("\n")) == 1, "an unknown argument: one line naming plus")
    if os.path.exists("/dev/full"):
        p = run(o, ["run", profile(o), "--dir", o.work, "--output", "fio-json=/dev/full"], want=1)
        check("No space left" in p.stderr, "a sink that fails makes the run fail: %s" % p.stderr.strip())
    # on standard output, the plugin's own name works too
    p = run(o, ["run", profile(o), "--dir", o.work, "--output", "fio_json"])
    check(len(json.loads(p.stdout)["jobs"]) == 6, "fio_json on stdout: one document")


def case_clat2csv(o):
    tool = shutil.which("fio_jsonplus_clat2csv")
    if not tool:
        iob.skip("fio_jsonplus_clat2csv not installed (Debian package fio; tools/deps.sh installs it)")
    ours, fio = both_runs(o)
    src = os.path.join(o.work, "fio.json")
    dest = os.path.join(o.work, "clat.csv")
    for old in glob.glob(os.path.join(o.work, "clat_job*.csv")):
        os.remove(old)
    p = iob.run([tool, src, dest])
    check(p.returncode == 0 and not p.stderr, "fio_jsonplus_clat2csv converts our json+ (%s)" % p.stderr[-400:])
    p = iob.run([tool, src, dest, "--validate"])
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


def ini(*sections):
    """A profile's text from (section, {key: value}) pairs, in order."""
    return "".join(f"[{name}]\n" + "".join(f"{k} = {v}\n" for k, v in keys.items()) + "\n"
                   for name, keys in sections)


# four jobs on fio's logs: every log of one, bw and iops of two streams (mixed), bw of a group's job
# beside one without logs; size, block size and backend from [global]
LOG_KEYS = {"log_interval": "20ms", "bw_log": "{d}/lg"}
LOGS = ini(("global", {"size": "4MiB", "block_size": "4KiB", "backend": "posix"}),
           ("seqlog", {"phases": "write,read", "loops": 100000, "runtime": "300ms", **LOG_KEYS,
                       "iops_log": "{d}/lg", "lat_log": "{d}/lg"}),
           ("mixlog", {"size": "2MiB", "access": "random", "ops": 40000, "phases": "write,mixed", "rwmix_read": 60,
                       "threads": 2, **LOG_KEYS, "iops_log": "{d}/lg"}),
           ("grouped", {"phases": "write", "loops": 100000, "runtime": "200ms", **LOG_KEYS, "group": 1}),
           ("grouped2", {"phases": "write", "loops": 100000, "runtime": "200ms", "group": 1}))


def read_log(path):
    rows = []
    with open(path) as f:
        for line in f:
            cells = line.rstrip("\n").split(", ")
            check(len(cells) == 5 and all(c.isdigit() for c in cells),
                  "%s: fio's five integer columns: %r" % (os.path.basename(path), line))
            rows.append([int(c) for c in cells])
    return rows


def check_clone_logs(o, doc, job, xs):
    """A job of several streams: a file per clone (fio's numjobs), each with its own stream's figures, not the
    job's (twice as many): each phase's iops rows, each times the time since the row before, add up to its
    stream's ops in that phase, and its bw rows to its bytes.  The log's times are each interval's end in
    ms since the clone's first phase began, so a phase begins its stream's elapsed_s before its last row;
    rounded to the ms, each row's length is off by up to 1 ms and its value by half a unit a second: the
    bound is those, summed over the rows (about 5% of the phase at 20 ms intervals), whatever their
    lengths."""
    for c, x in enumerate(xs):
        streams = {r["phase"]: r for r in doc["records"] if r["kind"] == "stream" and r["job"] == job and
                   r["stream"] == c}
        for kind, field, unit in (("iops", "ops", 1), ("bw", "bytes", 1024)):
            rows = read_log(os.path.join(o.work, "lg_%s.%d.log" % (kind, x)))
            check([r[0] for r in rows] == sorted(r[0] for r in rows), "%s clone %d: times in order" % (job, c))
            check(all(r[3] == 0 and r[4] == 0 for r in rows), "%s clone %d: block size and 5th column 0" % (job, c))
            # the write phase's rows are writes only; the mixed phase's start at its first read row
            mixed_at = next((i for i, r in enumerate(rows) if r[2] == 0), len(rows))
            check(0 < mixed_at < len(rows) and sorted(streams) == ["mixed", "write"],
                  "%s clone %d: write rows, then mixed rows (%d of %d), a stream record of each: %s" % (
                      job, c, mixed_at, len(rows), sorted(streams)))
            for phase, part in (("write", rows[:mixed_at]), ("mixed", rows[mixed_at:])):
                st = streams.get(phase)
                if not st or not part:
                    continue
                start = part[-1][0] - st["elapsed_s"] * 1000  # ms, the phase's start in the log's time
                total, bound, prev = 0.0, 0.5 * st["elapsed_s"] * unit * len({r[2] for r in part}), {}
                for r in part:
                    total += r[1] * unit * (r[0] - prev.get(r[2], start)) / 1000
                    bound += r[1] * unit * 0.001
                    prev[r[2]] = r[0]
                bound += part[-1][1] * unit * 0.001 + unit
                want = st[field]
                check(abs(total - want) <= bound, "%s clone %d %s: the %s log adds up to %d, its stream did %d "
                      "(the log's rounding: %d)" % (job, c, phase, kind, total, want, bound))


def case_logs(o):
    ini = profile(o, "logs.ini", LOGS.format(d=o.work))
    js = os.path.join(o.work, "logs.json")
    run(o, ["run", ini, "--dir", o.work, "--output", "json=" + js])
    with open(js) as f:
        doc = json.load(f)
    names = sorted(os.path.basename(p) for p in glob.glob(os.path.join(o.work, "lg_*")))
    want = ["lg_bw.1.log", "lg_bw.2.log", "lg_bw.3.log", "lg_bw.4.log", "lg_clat.1.log", "lg_iops.1.log",
            "lg_iops.2.log", "lg_iops.3.log", "lg_lat.1.log"]
    check(names == want, "fio's file names, <x> fio's thread number (mixlog's two clones are 2 and 3): %s" % names)
    check_clone_logs(o, doc, "mixlog", (2, 3))
    for x, job in ((1, "seqlog"), (4, "grouped")):
        bw = read_log(os.path.join(o.work, "lg_bw.%d.log" % x))
        iops = read_log(os.path.join(o.work, "lg_iops.%d.log" % x)) if x < 4 else []
        check([r[0] for r in bw] == sorted(r[0] for r in bw), "%s: times in order" % job)
        check(all(r[3] == 0 and r[4] == 0 for r in bw + iops), "%s: block size and 5th column 0" % job)
        used = 0
        for rec in (r for r in doc["records"] if r["kind"] == "phase" and r["job"] == job):
            ivs = [r for r in doc["records"] if r["kind"] == "interval" and r["job"] == job and
                   r["phase"] == rec["phase"]]
            dirs = [0, 1] if rec["phase"] == "mixed" else [1 if rec["phase"] == "write" else 0]
            rows = bw[used:used + len(ivs) * len(dirs)]
            used += len(rows)
            check(len(rows) == len(ivs) * len(dirs), "%s %s: a row per interval and direction (%d, %d)" % (
                job, rec["phase"], len(rows), len(ivs) * len(dirs)))
            for d in dirs:
                mine = [r for r in rows if r[2] == d]
                if rec["phase"] == "mixed":
                    nb = rec["bytes_read" if d == 0 else "bytes_written"]
                else:
                    nb = rec["bytes"]
                if rec["phase"] != "mixed":
                    vals = [round(iv["bytes"] / iv["interval_s"] / 1024) if iv["interval_s"] else 0 for iv in ivs]
                    check(all(abs(a[1] - b) <= 1 for a, b in zip(mine, vals)),
                          "%s %s: the bw values are the intervals' bytes over their lengths" % (job, rec["phase"]))
                # a row at each interval's end: the log's times step by the intervals' lengths (each
                # time rounded to the ms), and the values times those lengths add up to the phase's
                # bytes, to the rounding of each value to a KiB/s (half a KiB over each second)
                steps = [(b[0] - a[0]) / 1000 for a, b in zip(mine, mine[1:])]
                check(all(abs(t - iv["interval_s"]) <= 0.001 + 1e-9 for t, iv in zip(steps, ivs[1:])),
                      "%s %s dir %d: the rows' times step by the intervals' lengths: %s, %s" % (
                          job, rec["phase"], d, steps, [iv["interval_s"] for iv in ivs[1:]]))
                total = sum(r[1] * 1024 * iv["interval_s"] for r, iv in zip(mine, ivs))
                slack = 512 * sum(iv["interval_s"] for iv in ivs) + 1
                check(abs(total - nb) <= slack, "%s %s dir %d: the bw log integrates to %d bytes, the phase "
                      "moved %d (values rounded to a KiB/s: %d)" % (job, rec["phase"], d, total, nb, slack))
            if rec["phase"] == "mixed":
                check(sum(iv["ops"] for iv in ivs) == rec["ops"], "mixlog: the intervals add up to the ops")
                check([r[0] for r in rows[::2]] == [r[0] for r in rows[1::2]] and
                      [r[2] for r in rows] == [0, 1] * len(ivs), "mixlog: a read and a write row per interval")
        check(used == len(bw), "%s: every row is one phase's (%d of %d)" % (job, used, len(bw)))
        if x == 1:
            lat = read_log(os.path.join(o.work, "lg_lat.1.log"))
            clat = read_log(os.path.join(o.work, "lg_clat.1.log"))
            check(lat == clat and lat, "lat and clat logs hold the same rows")
            ivs = [r for r in doc["records"] if r["kind"] == "interval" and r["job"] == job]
            check(all(iv["lat_p50_ns"] is None or iv["lat_p50_ns"] > 0 for iv in ivs) and
                  len(lat) == sum(1 for iv in ivs if iv["lat_samples"]), "a lat row per interval with samples")
            check(all(r[1] > 0 for r in lat), "mean latencies are positive")
    # refusals: one line, exit 2, nothing created
    bad = os.path.join(o.work, "bad")
    os.makedirs(bad)
    os.makedirs(os.path.join(bad, "d_bw.1.log"))
    for key, val, extra, what in (("bw_log", os.path.join(bad, "nodir", "p"), "log_interval = 1s\n", "does not exist"),
                                  ("bw_log", os.path.join(bad, "d"), "log_interval = 1s\n", "not a regular file"),
                                  ("lat_log", os.path.join(bad, "p"), "latency = off\n",
                                   "without log_interval keeps a row per I/O, but latency = off times no I/O")):
        ini = profile(o, "bad.ini", "[b]\nsize = 64KiB\nbackend = posix\n%s = %s\n%s" % (key, val, extra))
        before = sorted(os.listdir(bad))
        p = run(o, ["run", ini, "--dir", bad, "--output", "json=" + os.path.join(bad, "out.json")], want=2)
        check(len(p.stderr.strip().split("\n")) == 1 and what in p.stderr, "refused in one line: %s" % p.stderr)
        check(sorted(os.listdir(bad)) == before, "nothing created: %s" % sorted(os.listdir(bad)))
    p = run(o, ["keys"])
    check(all(k in p.stdout for k in ("bw_log", "iops_log", "lat_log")), "iobench keys lists the log keys")
    # a fio job file's write_*_log and log_avg_msec (docs/fio.md) give the same files
    fio = os.path.join(o.work, "logs.fio")
    with open(fio, "w") as f:
        f.write("[j]\nrw=write\nsize=4m\nbs=4k\nloops=50\nruntime=200ms\ntime_based\nlog_avg_msec=20\n"
                "write_bw_log=%s/fiopre\nwrite_iops_log=%s/fiopre\nwrite_lat_log=%s/fiopre\n" % ((o.work,) * 3))
    data = os.path.join(o.work, "fiodata")
    os.makedirs(data)
    js = os.path.join(o.work, "fio-run-iob.json")
    run(o, ["run", fio, "--dir", data, "--output", "fio-json=%s,json=%s" % (os.path.join(o.work, "fio-run.json"), js)])
    with open(js) as f:
        ivs = [r for r in json.load(f)["records"] if r["kind"] == "interval"]
    # a row at each interval's end (lat and clat: each interval with latency samples), as an INI job's: how
    # many intervals 200 ms make, and which of them the I/Os fall in, is the machine's (under ASan at load
    # 20 a stream blocked for 170 ms put every I/O in the last of six)
    for kind in ("bw", "iops", "lat", "clat"):
        path = os.path.join(o.work, "fiopre_%s.1.log" % kind)
        rows = read_log(path) if os.path.exists(path) else []
        mine = [iv for iv in ivs if kind in ("bw", "iops") or iv["lat_samples"]]
        check(len(rows) == len(mine) >= 1 and all(r[2] == 1 for r in rows) and
              all(abs(r[0] - iv["time_s"] * 1000) <= 0.5 + 1e-6 for r, iv in zip(rows, mine)),
              "a fio job file's %s log: %d write rows, at the ends of its %d intervals" % (kind, len(rows), len(mine)))


def case_iologs(o):
    """An INI job's bw_log and lat_log without log_interval: a file per stream (fio's clones: pfx_bw.1.log and
    pfx_bw.2.log), each a row per I/O of its own stream's write phase and mixed phase (as many per direction
    as the stream's records count), in time order, with log_offset each row's offset (a whole block inside
    the file) and size; bw = bytes x 10^6 / the lat row's latency; every I/O timed (lat_sampled_every 1)."""
    d = os.path.join(o.work, "io")
    os.makedirs(d)
    ini = profile(o, "io.ini", "[m]\nphases = write,mixed\naccess = rand\nsize = 256KiB\nblock_size = 4KiB\n"
                                "threads = 2\nbackend = posix\nbw_log = %s/pfx\nlat_log = %s/pfx\n"
                                "log_offset = true\n" % (d, d))
    out = os.path.join(d, "out.json")
    run(o, ["run", ini, "--dir", d, "--output", "json=" + out])
    recs = json.load(open(out))["records"]
    for r in recs:
        if r.get("kind") == "phase":
            check(r["lat_sampled_every"] == 1, "every I/O timed: %r" % r["lat_sampled_every"])
    names = sorted(n for n in os.listdir(d) if n.startswith("pfx_"))
    check(names == ["pfx_bw.1.log", "pfx_bw.2.log", "pfx_clat.1.log", "pfx_clat.2.log", "pfx_lat.1.log",
                    "pfx_lat.2.log"], "a file per clone: %s" % names)
    for c in (0, 1):
        want = {0: 0, 1: 0}
        for r in recs:
            if r.get("kind") == "stream" and r["stream"] == c:
                mixed = r["phase"] == "mixed"
                want[0] += r.get("ops_read", 0) if mixed else 0
                want[1] += r.get("ops_written", 0) if mixed else r["ops"]
        rows = {}
        for k in ("bw", "lat"):
            with open(os.path.join(d, "pfx_%s.%d.log" % (k, c + 1))) as f:
                rows[k] = [[int(x) for x in line.split(", ")] for line in f]
            check(all(len(r) == 6 for r in rows[k]), "%s: six columns" % k)
            got = {x: sum(1 for r in rows[k] if r[2] == x) for x in (0, 1)}
            check(got == want and sum(want.values()) == 128, "clone %d %s: a row per I/O of its stream: %r, its "
                  "records %r" % (c, k, got, want))
            check([r[0] for r in rows[k]] == sorted(r[0] for r in rows[k]), "%s: in time order" % k)
            check(all(r[3] == 4096 and r[4] % 4096 == 0 and r[4] < 256 << 10 and r[5] == 0 for r in rows[k]),
                  "%s: size, offset, priority: %r" % (k, rows[k][:2]))
        check(all(b[1] == b[3] * 1000000 // l[1] for b, l in zip(rows["bw"], rows["lat"]) if l[1]),
              "bw is bytes x 10^6 / latency")
        # its write phase's blocks: every one once in its own file (random map)
        w = sorted(r[4] for r in rows["lat"][:64])
        check(w == list(range(0, 256 << 10, 4096)), "clone %d's write phase: each block of its file once" % c)


def case_fio2gnuplot(o):
    tool = shutil.which("fio2gnuplot")
    if not tool or not shutil.which("gnuplot"):
        iob.skip("fio2gnuplot or gnuplot not installed (Debian packages fio and gnuplot-nox; tools/deps.sh "
                 "installs them)")
    ini = profile(o, "logs.ini", LOGS.format(d=o.work))
    run(o, ["run", ini, "--dir", o.work, "--output", "json=" + os.path.join(o.work, "logs.json")])
    for kind, flag in (("bw", "-b"), ("iops", "-i")):
        pdir = os.path.join(o.work, kind)
        os.makedirs(pdir)
        shutil.copy(os.path.join(o.work, "lg_%s.1.log" % kind), pdir)
        p = iob.run([tool, flag, "-g"], cwd=pdir, timeout=300)
        check(p.returncode == 0 and "Rendering traces are available" in p.stdout,
              "fio2gnuplot %s accepts lg_%s.1.log: %s" % (flag, kind, (p.stdout + p.stderr)[-500:]))
        pngs = sorted(os.path.basename(f) for f in glob.glob(os.path.join(pdir, "*.png")))
        want = ["lg_%s.1-2D%s.png" % (kind, s) for s in ("raw", "smooth", "trend")]
        check(all(w in pngs for w in want) and all(os.path.getsize(os.path.join(pdir, f)) > 1000 for f in pngs),
              "fio2gnuplot rendered its plots: %s" % pngs)
        with open(os.path.join(pdir, "result.global")) if os.path.exists(os.path.join(pdir, "result.global")) \
                else open(os.devnull) as f:
            glob_txt = f.read()
        if glob_txt:
            count = [l for l in glob_txt.split("\n") if l.startswith("values_count=")]
            rows = read_log(os.path.join(pdir, "lg_%s.1.log" % kind))
            check(count == ["values_count=%d" % len(rows)], "fio2gnuplot read every row: %s" % count)


def main():
    cases = {"json": case_json, "clat2csv": case_clat2csv, "logs": case_logs, "iologs": case_iologs,
             "fio2gnuplot": case_fio2gnuplot}
    o = iob.arguments("--bin-dir", "--work", optional={"case": {"choices": list(cases)}})
    return iob.in_case_dir(o, cases[o.case])


if __name__ == "__main__":
    sys.exit(main())
