#!/usr/bin/env python3
"""`iobench compare BASE NEW` (issue 25, stage 2).  iobench results come from
runs on the paced test backend `slowafter` under the virtual clock (each read
lasts exactly its bytes over IOB_SLOWAFTER_RATE times 1 + JITTER * u), so a
20% slower NEW is 20% slower whatever the machine; fio's results come from
fio itself (fio 3.x, --output-format=json).

- repeats: 5 runs a side, NEW paced 20% slower: MiB/s and IOPS "slower",
  change -20% within 1%, interval excluding 0, "regression", exit 1; with
  --threshold 30% still slower but no regression, exit 0; the same pace on
  both sides: no figure called significant, exit 0; JSON and svg written
  and well-formed, one svg mark per comparison;
- intervals: one real run a side with log_interval (real clock): basis
  "intervals" with every interval but the last, the note says they are not
  independent; on result files of known interval rates (NEW 20% below
  BASE): slower, -20%, a regression; one run a side without: "not
  tested", never a regression, exit 0 although NEW is slower;
- fio: two fio runs (fio writes the JSON): matched by job name and
  direction, figures equal fio's own bw_bytes and iops, basis intervals
  with fio's bw_samples; an iobench file against a fio file of other jobs:
  nothing in common, exit 2;
- refused: a truncated file, JSON of something else, plain text, an empty
  file, a missing file, schema 1, --threshold 5 (no %), --alpha 0.7, an
  output over an input, two outputs on one file, an output that is a
  symbolic link: one line naming the file or value, exit 2, no output file
  created and the input unchanged.

Usage: test_compare.py --bin DIR --plugin-dir DIR --slow-dir DIR --vclock LIB --work DIR --only CASE"""
import json
import os
import shutil
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import iobtest as iob  # noqa: E402
from iobtest import check  # noqa: E402

A = None
RATE = 64 << 20
BS = 64 << 10


def env(rate, seed, jitter=0.05):
    return iob.vclock_env(iob.env(IOB_SLOWAFTER_RATE=str(rate), IOB_SLOWAFTER_JITTER=str(jitter),
                              IOB_SLOWAFTER_RESEED="1", IOB_SLOWAFTER_SEED=str(seed)), A.vclock)


def real_env(rate):
    """The real clock (the observer that closes intervals sleeps in real
    time): each read lasts at least its pace, so a run is never faster than
    its pace says, only slower on a busy machine."""
    return iob.env(drop=("IOBENCH_PLUGIN_PATH", "LD_PRELOAD"), IOB_SLOWAFTER_RATE=str(rate))


def workdir():
    return iob.data_dir(A.work, {"r.dat": 4 * BS})


def result(d, name, rate, seed, extra, bs=BS, vclock=True):
    p = os.path.join(d, name + ".ini")
    with open(p, "w") as f:
        f.write(f"[seq]\nbackend = slowafter\ndir = {d}\nfilename = r.dat\nphases = read\nsize = {4 * BS}\n"
                f"block_size = {bs}\nkeep_files = true\n{extra}")
    out = os.path.join(d, name + ".json")
    r = iob.run([iob.binary(A, "iobench"), "run", p, "--plugin-dir", A.plugin_dir, "--plugin-dir", A.slow_dir,
               "--output", f"json={out}"], env=env(rate, seed) if vclock else real_env(rate))
    check(f"{name}: run exit 0", r.returncode == 0, r.stderr)
    return out


def compare(*args):
    return iob.run([iob.binary(A, "iobench"), "compare", *args], env=iob.env(drop=("LD_PRELOAD",)), timeout=60)


load = iob.read_json


def by_fig(doc):
    return {(c["job"], c["phase"], c["figure"]): c for c in doc["comparisons"]}


def case_repeats():
    d = workdir()
    base = result(d, "base", RATE, 1, "repeat = 5\n")
    new = result(d, "new", int(RATE * 0.8), 2, "repeat = 5\n")
    same = result(d, "same", RATE, 3, "repeat = 5\n")
    js, svg = os.path.join(d, "c.json"), os.path.join(d, "c.svg")
    r = compare(base, new, "--json", js, "--svg", svg)
    check("repeats: exit 1 (regressed)", r.returncode == 1, (r.returncode, r.stderr))
    check("repeats: a table on stdout", "REGRESSION" in r.stdout and "repeats 5/5" in r.stdout, r.stdout)
    doc = load(js)
    c = by_fig(doc)
    for fig in ("bw", "iops"):
        x = c.get(("seq", "read", fig))
        check(f"repeats: {fig} slower", x and x["verdict"] == "slower" and x["regression"], x)
        check(f"repeats: {fig} change about -20%", x and abs(x["change"] + 0.20) < 0.03, x and x["change"])
        check(f"repeats: {fig} interval holds the true -20%, excludes 0",
              x and x["ci_low"] <= -0.20 <= x["ci_high"] < 0 and x["ci_low"] <= x["change"] <= x["ci_high"], x)
        check(f"repeats: {fig} basis", x and x["basis"] == "repeats" and x["independent"] and x["n_base"] == 5, x)
    check("repeats: regressed", doc["regressed"] is True)
    root = ET.parse(svg).getroot()
    circles = [e for e in root.iter() if e.tag.endswith("circle")]
    check("repeats: svg, one mark per comparison", len(circles) == len(doc["comparisons"]) == 4,
          (len(circles), len(doc["comparisons"])))
    r = compare(base, new, "--threshold", "30%", "-o", js)
    doc = load(js)
    check("repeats: --threshold 30%: exit 0", r.returncode == 0, (r.returncode, r.stderr))
    x = by_fig(doc).get(("seq", "read", "bw"))
    check("repeats: --threshold 30%: slower, not a regression", x and x["verdict"] == "slower" and not x["regression"], x)
    r = compare(base, same, "--json", js)
    doc = load(js)
    check("repeats: same pace: exit 0", r.returncode == 0, (r.returncode, r.stdout))
    for fig in ("bw", "iops"):
        x = by_fig(doc).get(("seq", "read", fig))
        check(f"repeats: same pace: {fig} no significant difference",
              x and x["verdict"] == "no significant difference" and x["ci_low"] < 0 < x["ci_high"], x)


def synthetic(path, job, bw):
    """An iobench JSON result of one read phase with interval records of the
    given rates (bytes/s; one I/O of 4 KiB each), the last one shorter."""
    recs = [{"kind": "interval", "job": job, "phase": "read", "block_size_bytes": 4096, "interval": i,
             "time_s": 0.1 * (i + 1), "interval_s": 0.1, "bytes": int(b * 0.1), "ops": int(b * 0.1 / 4096),
             "bw_bytes_per_s": b, "ops_per_s": b / 4096, "lat_samples": 1, "lat_p50_ns": 4096e9 / b,
             "lat_p99_ns": 4096e9 / b} for i, b in enumerate(bw)]
    recs[-1]["interval_s"] = 0.01
    total = sum(r["bytes"] for r in recs)
    recs.append({"kind": "phase", "job": job, "phase": "read", "block_size_bytes": 4096, "bytes": total,
                 "bw_bytes_per_s": sum(bw) / len(bw), "ops_per_s": sum(bw) / len(bw) / 4096,
                 "lat_ns": {"count": 1, "percentiles": {"50": 1000, "99": 2000}}})
    with open(path, "w") as f:
        json.dump({"tool": "iobench", "schema": 2, "records": recs, "notes": [], "status": "ok"}, f)
    return path


def case_intervals():
    d = workdir()
    # real runs (real clock: the observer that closes intervals sleeps in real
    # time), one a side with log_interval: compare uses the intervals and says
    # they are not independent; the verdict is not asserted (a busy machine
    # moves single intervals)
    # paced to last 0.25 s and 0.5 s: 25 and more intervals even when the
    # observer's wake-ups come late on a busy machine
    base = result(d, "base", RATE // 64, 1, "log_interval = 10ms\n", bs=4096, vclock=False)
    new = result(d, "new", RATE // 128, 2, "log_interval = 10ms\n", bs=4096, vclock=False)
    js = os.path.join(d, "c.json")
    r = compare(base, new, "--json", js)
    doc = load(js)
    x = by_fig(doc).get(("seq", "read", "bw"))
    nb = len([q for q in load(base)["records"] if q["kind"] == "interval"]) - 1
    check("intervals: basis intervals, not independent", x and x["basis"] == "intervals" and not x["independent"]
          and x["n_base"] == nb >= 2, (x, nb))
    check("intervals: the note says so", "not independent" in r.stdout, r.stdout)
    # the verdict, on intervals of known rates: NEW 20% below BASE (the last,
    # shorter interval of each, an outlier, left out)
    sb = synthetic(os.path.join(d, "sb.json"), "s", [100e6, 101e6, 99e6, 100.5e6, 99.5e6, 10e6])
    sn = synthetic(os.path.join(d, "sn.json"), "s", [80e6, 81e6, 79e6, 80.5e6, 79.5e6, 300e6])
    r = compare(sb, sn, "--json", js)
    x = by_fig(load(js)).get(("s", "read", "bw"))
    check("intervals: known rates: slower by 20%, a regression, exit 1", r.returncode == 1 and x and
          x["verdict"] == "slower" and abs(x["change"] + 0.2) < 1e-9 and x["n_base"] == 5 and x["regression"], x)
    one_b = result(d, "oneb", RATE, 1, "")
    one_n = result(d, "onen", RATE // 2, 2, "")
    r = compare(one_b, one_n, "--json", js)
    doc = load(js)
    x = by_fig(doc).get(("seq", "read", "bw"))
    check("none: exit 0 though NEW is half as fast", r.returncode == 0, (r.returncode, r.stdout))
    check("none: not tested, the change shown", x and x["verdict"] == "not tested" and abs(x["change"] + 0.5) < 0.01
          and x["ci_low"] is None and not x["regression"], x)
    check("none: says why", "no change is called significant" in r.stdout and "log_interval" in r.stdout, r.stdout)


def fio_run(d, name, rate):
    out = os.path.join(d, name + ".json")
    r = iob.run(["fio", "--name=seqr", f"--filename={d}/f.dat", "--size=1m", "--bs=64k", "--rw=read",
               f"--rate={rate}", "--time_based", "--runtime=2", "--output-format=json", f"--output={out}"], timeout=60)
    check(f"fio {name}: exit 0", r.returncode == 0, r.stderr)
    return out


def case_fio():
    if not shutil.which("fio"):
        print("fio is not installed: skipped")
        sys.exit(77)
    d = workdir()
    a, b = fio_run(d, "fa", "4m"), fio_run(d, "fb", "2m")
    js = os.path.join(d, "c.json")
    r = compare(a, b, "--json", js)
    check("fio: exit 0 or 1", r.returncode in (0, 1), (r.returncode, r.stderr))
    doc = load(js)
    fa, fb = load(a)["jobs"][0]["read"], load(b)["jobs"][0]["read"]
    c = by_fig(doc)
    x, y = c.get(("seqr", "read", "bw")), c.get(("seqr", "read", "iops"))
    check("fio: matched by job and direction, block size from bs", x and doc["comparisons"][0]["block_size_bytes"] == 65536, doc)
    check("fio: fio's samples, not independent", x and x["basis"] == "intervals" and x["n_base"] == fa["bw_samples"]
          and not x["independent"], x)
    check("fio: fio's own mean", x and abs(x["base"] - fa["bw_mean"] * 1024) < 1e-6 * x["base"], (x, fa["bw_mean"]))
    check("fio: iops", y and abs(y["new"] - fb["iops_mean"]) < 1e-6 * y["new"], (y, fb["iops_mean"]))
    p = c.get(("seqr", "read", "lat_p99"))
    check("fio: p99 from clat", p and p["base"] == fa["clat_ns"]["percentile"]["99.000000"] and
          p["verdict"] == "not tested", p)
    other = result(d, "ib", RATE, 1, "")
    r = compare(a, other, "--json", os.path.join(d, "none.json"))
    check("fio: nothing in common: exit 2, one line naming both", r.returncode == 2 and
          len(r.stderr.strip().splitlines()) == 1 and a in r.stderr and other in r.stderr, (r.returncode, r.stderr))
    check("fio: nothing in common: nothing written", not os.path.exists(os.path.join(d, "none.json")))


def case_refused():
    d = workdir()
    good = result(d, "good", RATE, 1, "repeat = 3\n")
    text = open(good).read()
    files = {"trunc.json": text[: len(text) // 2], "other.json": '{"a": [1, 2, 3]}', "text.json": "hello\n",
             "empty.json": "", "schema1.json": json.dumps({"tool": "iobench", "schema": 1, "records": []})}
    for name, body in files.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(body)
    out = os.path.join(d, "out.json")
    fifo = os.path.join(d, "fifo.json")  # no writer: reading it would wait for ever
    os.mkfifo(fifo)
    cases = [((os.path.join(d, n), good), os.path.join(d, n)) for n in files] + \
            [((fifo, good), "'" + fifo + "' is not a regular file"),
             ((os.path.join(d, "missing.json"), good), "missing.json"),
             ((good, good, "--threshold", "5"), "--threshold '5'"),
             ((good, good, "--alpha", "0.7"), "--alpha '0.7'"),
             ((good, good, "--json", out, "--alpha"), "--alpha needs a value"),  # (no --json added)
             ((good,), "two result files")]
    for args, word in cases:
        r = compare(*args) if args[-1] == "--alpha" else compare(*args, "--json", out)
        lines = r.stderr.strip().splitlines()
        check(f"refused {args[0]} {args[2:]}: exit 2", r.returncode == 2, (r.returncode, r.stderr))
        check(f"refused {args[0]} {args[2:]}: one line naming it", len(lines) == 1 and word in lines[0], lines)
        check(f"refused {args[0]} {args[2:]}: nothing written", not os.path.exists(out) and r.stdout == "", r.stdout)
    before = open(good).read()
    r = compare(good, good, "--json", good)
    check("refused: output over an input: exit 2", r.returncode == 2 and good in r.stderr, r.stderr)
    check("refused: output over an input: input unchanged", open(good).read() == before)
    r = compare(good, good, "--json", out, "--svg", out)
    check("refused: two outputs on one file", r.returncode == 2 and not os.path.exists(out), r.stderr)
    link = os.path.join(d, "link.json")
    os.symlink(os.path.join(d, "aimed.json"), link)
    r = compare(good, good, "--json", link)
    check("refused: an output that is a symbolic link", r.returncode == 2 and "symbolic link" in r.stderr and
          not os.path.exists(os.path.join(d, "aimed.json")), r.stderr)
    r = compare(good, good)
    check("good against itself: exit 0", r.returncode == 0, r.stderr)


if __name__ == "__main__":
    A = iob.arguments("--bin", "--plugin-dir", "--slow-dir", "--vclock", "--work", only=True)
    sys.exit(iob.cases(A.only, {"repeats": case_repeats, "intervals": case_intervals, "fio": case_fio, "refused": case_refused}))
