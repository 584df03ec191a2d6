#!/usr/bin/env python3
"""Repeats (issue 25, stage 1 and until_ci) on the paced test backend
`slowafter` under the virtual clock (tests/bigread/vclock.c): every read lasts
exactly its bytes over IOB_SLOWAFTER_RATE times 1 + JITTER * u (u uniform in
[-1, 1), drawn anew at each open with IOB_SLOWAFTER_RESEED=1), so each run's
rate is RATE / (1 + JITTER * u), a known, right-skewed distribution whose
mean is RATE * ln((1 + J) / (1 - J)) / (2 J), whatever the machine's speed.

- records: repeat = 10 gives 10 phase records marked repeat 0..9 and one
  summary whose mean, median, stddev, cv, min, max and 95% interval equal
  those computed here from the records (Student's t, table value);
- calibration: 200 jobs of repeat = 10 (one read each run): the interval
  covers the true mean in 185 to 199 of the 200 summaries (with 5 runs this
  flat, skewed distribution is covered about 93% of the time: 20000
  simulated sets; docs/statistics.md);
- one: repeat = 1 (and no key) gives no repeat key and no summary;
- until_ci: 50% is reached in the minimum 3 runs; 0.01% with repeat_max 4
  runs 4 times, says ci_reached false, and a note gives the width;
- refused: repeat 0, 1001, abc, --repeat 0, until_ci 0%, 2, 100%, abc%,
  repeat_max 2: one line naming the value, exit 2, nothing created.

Usage: test_repeat.py --bin DIR --plugin-dir DIR --slow-dir DIR --vclock LIB --work DIR --only CASE"""
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import iobtest as iob  # noqa: E402
from iobtest import check  # noqa: E402

A = None
RATE = 64 << 20
BS = 64 << 10
J = 0.3
T975 = {2: 4.302653, 4: 2.776445, 9: 2.262157}


def env(seed=1):
    return iob.vclock_env(iob.env(IOB_SLOWAFTER_RATE=str(RATE), IOB_SLOWAFTER_JITTER=str(J), IOB_SLOWAFTER_RESEED="1",
                              IOB_SLOWAFTER_SEED=str(seed)), A.vclock)


def workdir():
    return iob.data_dir(A.work, {"r.dat": BS})


def job(name, d, extra=""):
    return (f"[{name}]\nbackend = slowafter\ndir = {d}\nfilename = r.dat\nphases = read\nsize = {BS}\n"
            f"block_size = {BS}\nkeep_files = true\n{extra}")


def run(d, body, args=(), seed=1):
    p = os.path.join(d, "p.ini")
    with open(p, "w") as f:
        f.write(body)
    out = os.path.join(d, "out.json")
    cmd = [os.path.join(A.bin, "iobench"), "run", p, "--plugin-dir", A.plugin_dir, "--plugin-dir", A.slow_dir,
           "--output", f"human,json={out}", *args]
    return iob.run(cmd, env=env(seed)), iob.read_json(out, optional=True)


recs = iob.records


def true_mean():
    return RATE * math.log((1 + J) / (1 - J)) / (2 * J)


def case_records():
    d = workdir()
    r, doc = run(d, job("rep", d, "repeat = 10\n"))
    check("records: exit 0", r.returncode == 0, r.stderr)
    ph = recs(doc, "phase")
    check("records: 10 phase records", len(ph) == 10, len(ph))
    check("records: repeat 0..9", [p.get("repeat") for p in ph] == list(range(10)), [p.get("repeat") for p in ph])
    bw = [p["bw_bytes_per_s"] for p in ph]
    check("records: the runs differ", len(set(bw)) == 10, bw)
    for b in bw:  # each run lasted exactly its pace: RATE / (1 + J u)
        check("records: rate within the pace's range", RATE / (1 + J) * 0.999 <= b <= RATE / (1 - J) * 1.001, b)
    sm = recs(doc, "repeats")
    check("records: one summary", len(sm) == 1, len(sm))
    if len(sm) != 1 or len(bw) != 10:
        return
    s = sm[0]
    check("records: summary after the runs", doc["records"].index(s) == len(doc["records"]) - 1)
    m, sd = statistics.mean(bw), statistics.stdev(bw)
    half = T975[9] * sd / math.sqrt(10)
    close = lambda a, b: abs(a - b) <= 1e-6 * abs(b)
    check("records: repeats", s["repeats"] == 10, s["repeats"])
    check("records: mean", close(s["bw_mean_bytes_per_s"], m), (s["bw_mean_bytes_per_s"], m))
    check("records: median", close(s["bw_median_bytes_per_s"], statistics.median(bw)))
    check("records: stddev", close(s["bw_stddev_bytes_per_s"], sd))
    check("records: cv", close(s["bw_cv"], sd / m))
    check("records: min/max", s["bw_min_bytes_per_s"] == min(bw) and s["bw_max_bytes_per_s"] == max(bw))
    check("records: half-width (Student's t)", close(s["bw_ci_half_bytes_per_s"], half),
          (s["bw_ci_half_bytes_per_s"], half))
    check("records: interval", close(s["bw_ci_low_bytes_per_s"], m - half) and
          close(s["bw_ci_high_bytes_per_s"], m + half))
    iops = [p["ops_per_s"] for p in ph]
    check("records: iops mean", close(s["iops_mean_per_s"], statistics.mean(iops)))
    p99 = [p["lat_ns"]["percentiles"]["99"] for p in ph]
    check("records: p99 mean", close(s["lat_p99_mean_ns"], statistics.mean(p99)), (s["lat_p99_mean_ns"], p99))
    check("records: human shows mean ± half-width", "\u00b1" in r.stdout and "[repeats]" in r.stdout, r.stdout[-800:])


def case_calibration():
    d = workdir()
    body = "".join(job(f"j{i}", d, "repeat = 10\n") for i in range(200))
    r, doc = run(d, body, seed=7)
    check("calibration: exit 0", r.returncode == 0, r.stderr[-500:])
    sm = recs(doc, "repeats")
    check("calibration: 200 summaries", len(sm) == 200, len(sm))
    mu = true_mean()
    cover = sum(1 for s in sm if s["bw_ci_low_bytes_per_s"] <= mu <= s["bw_ci_high_bytes_per_s"])
    print(f"calibration: the 95% interval of 10 runs covers the true mean {mu / 2**20:.4f} MiB/s in "
          f"{cover}/200 summaries")
    check("calibration: coverage in 185..199", 185 <= cover <= 199, cover)


def case_one():
    d = workdir()
    for extra in ("", "repeat = 1\n"):
        r, doc = run(d, job("one", d, extra))
        check("one: exit 0", r.returncode == 0, r.stderr)
        ph = recs(doc, "phase")
        check("one: no repeat key", len(ph) == 1 and "repeat" not in ph[0], ph)
        check("one: no summary", not recs(doc, "repeats"))
        check("one: human has no summary", "[repeats]" not in r.stdout)


def case_until_ci():
    d = workdir()
    r, doc = run(d, job("u", d, "until_ci = 50%\n"))
    sm = recs(doc, "repeats")
    check("until_ci: exit 0", r.returncode == 0, r.stderr)
    check("until_ci: 3 runs reach 50%", len(recs(doc, "phase")) == 3 and sm and sm[0]["ci_reached"] is True,
          (len(recs(doc, "phase")), sm))
    if sm:
        bw = [p["bw_bytes_per_s"] for p in recs(doc, "phase")]
        half = T975[2] * statistics.stdev(bw) / math.sqrt(3)
        check("until_ci: the rule holds", half <= 0.5 * statistics.mean(bw))
    r, doc = run(d, job("u", d, "until_ci = 0.01%\nrepeat_max = 4\n"))
    sm = recs(doc, "repeats")
    check("until_ci: repeat_max runs", len(recs(doc, "phase")) == 4, len(recs(doc, "phase")))
    check("until_ci: not reached", sm and sm[0]["ci_reached"] is False and sm[0]["until_ci_pct"] == 0.01, sm)
    check("until_ci: a note says how wide", any("until_ci 0.01% not reached in 4 runs" in n for n in doc["notes"]),
          doc["notes"])


def case_refused():
    d = workdir()
    bad = [("repeat = 0\n", (), "repeat '0'"), ("repeat = 1001\n", (), "repeat '1001'"),
           ("repeat = abc\n", (), "abc"), ("", ("--repeat", "0"), "--repeat: repeat '0'"),
           ("until_ci = 0%\n", (), "until_ci '0%'"), ("until_ci = 2\n", (), "until_ci '2'"),
           ("until_ci = 100%\n", (), "until_ci '100%'"), ("until_ci = abc%\n", (), "until_ci 'abc%'"),
           ("repeat_max = 2\n", (), "repeat_max '2'")]
    with open(os.path.join(d, "p.ini"), "w"):
        pass
    for extra, args, word in bad:
        before = sorted(os.listdir(d))
        r, doc = run(d, job("bad", d, extra), args)
        lines = r.stderr.strip().splitlines()
        check(f"refused {extra.strip() or args}: exit 2", r.returncode == 2, (r.returncode, r.stderr))
        check(f"refused {extra.strip() or args}: one line naming it", len(lines) == 1 and word in lines[0], lines)
        check(f"refused {extra.strip() or args}: nothing created", doc is None and
              sorted(os.listdir(d)) == before, os.listdir(d))


def main():
    global A
    A = iob.arguments("--bin", "--plugin-dir", "--slow-dir", "--vclock", "--work", only=True)
    return iob.cases(A.only, {"records": case_records, "calibration": case_calibration, "one": case_one,
                            "until_ci": case_until_ci, "refused": case_refused})


if __name__ == "__main__":
    sys.exit(main())
