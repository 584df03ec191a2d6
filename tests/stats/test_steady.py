#!/usr/bin/env python3
"""Steady state (issue 25, stage 4) on the paced test backend `slowafter`
under the virtual clock: each read of n bytes lasts exactly n / RATE times
1 + (TO - 1)(1 - exp(-B / SCALE)) (B: bytes read before it), so a round's
rate is known in advance and the test replays it here.

- decay: a drive that slows to a plateau; SNIA's two criteria (range within
  20% of the window mean, fitted line moving at most 10% across the window)
  computed here on the replayed rounds: iobench stops within one round of
  the first round where they hold, its round records' rates equal the
  replay, its window values and figures are those of its last 5 rounds;
  the svg draws the rounds, the window, its mean and the +-10%/+-20% bands;
  fio-json carries fio's steadystate member with the window's values;
- never: a device whose rounds swing +-30% runs steady_max_rounds, says
  reached false, and a note says so;
- rounds: steady_round = 3 (I/Os) gives 3 I/Os a round, going on where the
  last round ended; steady_round = 40ms rounds last 40 ms (at least, and
  less than one more read); steady_rule deviation (fio's iops:X%) stops at
  the first window whose rounds are all within the limit of its mean;
- lat: steady_state = lat judges each round's mean read time, replayed here;
- interval: fio's ss_interval on a fio job of our own paced by rate_iops
  under the virtual clock: rounds of the interval, a window of
  ss_dur / ss_interval, ss_ramp's rounds unjudged, runtime / interval at most;
- refused: steady_window 1, steady_state foo, steady_round 10x,
  steady_range 20, steady_max_rounds below the window, steady_rule
  deviation without steady_limit, steady_state with repeat, lat with latency
  off: one line, exit
  2, nothing created.

Usage: test_steady.py --bin DIR --plugin-dir DIR --slow-dir DIR --vclock LIB --work DIR --only CASE"""
import json
import math
import os
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import iobtest as iob  # noqa: E402
from iobtest import check  # noqa: E402

A = None
RATE = 64 << 20
BS = 64 << 10
SIZE = 4 * BS
SCALE = 2 << 20
TO = 4.0


def env(extra):
    e = iob.vclock_env(iob.env(IOB_SLOWAFTER_RATE=str(RATE)), A.vclock)
    e.update(extra)
    return e


def run(body, extra_env, args=()):
    d = iob.data_dir(A.work, {"s.dat": SIZE})
    p = os.path.join(d, "p.ini")
    with open(p, "w") as f:
        f.write(f"[ss]\nbackend = slowafter\ndir = {d}\nfilename = s.dat\nphases = read\nsize = {SIZE}\n"
                f"block_size = {BS}\nkeep_files = true\n{body}")
    out = os.path.join(d, "out.json")
    r = iob.run([iob.binary(A, "iobench"), "run", p, "--plugin-dir", A.plugin_dir, "--plugin-dir", A.slow_dir,
               "--output", f"human,json={out},svg={d}/out.svg,fio-json={d}/fio.json", *args], env=env(extra_env))
    return r, iob.read_json(out, optional=True), d


recs = iob.records


def snia(win):
    """SNIA's criteria, computed here: (range ok, slope ok)."""
    n = len(win)
    m = sum(win) / n
    xm = (n - 1) / 2
    slope = sum((i - xm) * (y - m) for i, y in enumerate(win)) / sum((i - xm) ** 2 for i in range(n))
    return max(win) - min(win) <= 0.20 * m, abs(slope) * (n - 1) <= 0.10 * m


def replay_decay(rounds, reads_per_round):
    """Each round's rate as the backend paces it."""
    total, out = 0, []
    for _ in range(rounds):
        ns = 0
        for _ in range(reads_per_round):
            t = BS * 1e9 / RATE * (1 + (TO - 1) * (1 - math.exp(-total / SCALE)))
            ns += int(t)
            total += BS
        out.append(reads_per_round * BS / (ns / 1e9))
    return out


DECAY = {"IOB_SLOWAFTER_DECAY_BYTES": str(SCALE), "IOB_SLOWAFTER_DECAY_TO": str(TO)}


def run_decaying(name, body):
    """The profile on a drive that slows to a plateau (replay_decay): checks it exits 0 with one steady
    record; its document, directory and that record (None when there is not exactly one)."""
    r, doc, d = run(body, DECAY)
    check(f"{name}: exit 0", r.returncode == 0, r.stderr)
    st = recs(doc, "steady")
    check(f"{name}: one steady record", len(st) == 1, st)
    return doc, d, st[0] if len(st) == 1 else None


def first_within(want, window, limit):
    """The first round closing a window whose rounds are all within limit of its mean (the deviation
    rule), computed here."""
    def holds(win):
        m = sum(win) / window
        return max(abs(v - m) for v in win) <= limit * m
    return next(i for i in range(window - 1, len(want)) if holds(want[i - window + 1:i + 1]))


def case_decay():
    doc, d, s = run_decaying("decay", "steady_state = bw\n")
    ph = recs(doc, "phase")
    if s is None:
        return
    want = replay_decay(25, 4)
    first = next(i for i in range(4, 25) if all(snia(want[i - 4:i + 1])))
    print(f"decay: SNIA's criteria first hold at round {first} (computed here); iobench stopped at round "
          f"{s['reached_round']}")
    check("decay: reached", s["reached"] is True, s)
    check("decay: within one round of the first window that holds", abs(s["reached_round"] - first) <= 1,
          (s["reached_round"], first))
    check("decay: stopped there", s["rounds"] == s["reached_round"] + 1 == len(ph), (s["rounds"], len(ph)))
    check("decay: round records marked", [p.get("round") for p in ph] == list(range(len(ph))))
    got = [p["bw_bytes_per_s"] for p in ph]
    check("decay: the rounds are the paced ones",
          all(abs(a - b) <= 1e-6 * b for a, b in zip(got, want)), list(zip(got, want))[:4])
    win = [float(v) for v in s["window_values"].split(",")]
    check("decay: window values are the last 5 rounds", win == got[-5:], (win, got[-5:]))
    m = sum(win) / 5
    check("decay: window mean and range", abs(s["window_mean_bytes_per_s"] - m) <= 1e-9 * m and
          abs(s["window_range_bytes_per_s"] - (max(win) - min(win))) <= 1e-6 * m, s)
    check("decay: the criteria hold on its window", all(snia(win)))
    if len(got) >= 6:
        check("decay: not on the window before", not all(snia(got[-6:-1])))
    check("decay: limits", s["range_limit_pct"] == 20 and s["slope_limit_pct"] == 10, s)
    # svg: the rounds, the window, its mean and the bands
    root = ET.parse(os.path.join(d, "out.svg")).getroot()
    cls = lambda c: [e for e in root.iter() if e.get("class") == c]
    check("decay: svg window", len(cls("steady-window")) == 1)
    mean = cls("steady-mean")
    check("decay: svg mean line", len(mean) == 1 and abs(float(mean[0].get("data-value")) - m) <= 1e-5 * m,
          [e.get("data-value") for e in mean])
    b10, b20 = cls("steady-band10"), cls("steady-band20")
    check("decay: svg bands", len(b10) == 2 and len(b20) == 2 and
          sorted(round(float(e.get("data-value")) / m, 4) for e in b10 + b20) == [0.8, 0.9, 1.1, 1.2],
          [e.get("data-value") for e in b10 + b20])
    pts = cls("steady-rounds")
    check("decay: svg rounds", len(pts) == 1 and len(pts[0].get("points").split()) == len(got))
    # fio-json: fio's steadystate member on the last round's job
    fj = json.load(open(os.path.join(d, "fio.json")))
    ss = fj["jobs"][-1].get("steadystate")
    check("decay: fio-json steadystate", ss and ss["attained"] == 1 and ss["duration"] == 5 and
          ss["data"]["bw"] == [round(v) for v in got[-5:]] and ss["ss"].startswith("bw_snia:"), ss)


def case_never():
    r, doc, _ = run("steady_state = iops\nsteady_max_rounds = 12\n", {"IOB_SLOWAFTER_SWING": "0.3"})
    check("never: exit 0", r.returncode == 0, r.stderr)
    st = recs(doc, "steady")
    check("never: 12 rounds, not reached", st and st[0]["rounds"] == 12 and st[0]["reached"] is False and
          st[0]["reached_round"] is None and len(recs(doc, "phase")) == 12, st)
    check("never: a note says so", any("steady state (snia) not reached in 12 rounds" in n for n in doc["notes"]),
          doc["notes"])


def case_rounds():
    r, doc, _ = run("steady_state = bw\nsteady_round = 3\nsteady_max_rounds = 6\n", {})
    ph = recs(doc, "phase")
    check("rounds: I/O count: exit 0", r.returncode == 0, r.stderr)
    check("rounds: 3 I/Os a round (at the file's end, what is left)", [p["ops"] for p in ph][:2] == [3, 1] and
          len(ph) == 5, [p["ops"] for p in ph])
    r, doc, _ = run("steady_state = bw\nsteady_round = 40ms\nsteady_max_rounds = 6\n", {})
    ph = recs(doc, "phase")
    read_s = BS / RATE
    check("rounds: time: 40 ms each", ph and all(0.040 <= p["elapsed_s"] < 0.040 + read_s + 1e-6 for p in ph),
          [p["elapsed_s"] for p in ph])
    check("rounds: time: the rounds keep reading", ph and all(p["ops"] >= 40 for p in ph), [p["ops"] for p in ph])
    r, doc, _ = run("steady_state = iops\nsteady_rule = deviation\nsteady_limit = 10%\nsteady_window = 3\n", DECAY)
    st = recs(doc, "steady")
    first = first_within([v / BS for v in replay_decay(25, 4)], 3, 0.10)
    check("rounds: deviation rule stops at its first window", st and st[0]["reached"] and
          abs(st[0]["reached_round"] - first) <= 1 and st[0]["rule"] == "deviation", (st, first))


def replay_lat(rounds, reads_per_round):
    """Each round's mean read time (ns) as the backend paces it."""
    total, out = 0, []
    for _ in range(rounds):
        ts = []
        for _ in range(reads_per_round):
            ts.append(int(BS * 1e9 / RATE * (1 + (TO - 1) * (1 - math.exp(-total / SCALE)))))
            total += BS
        out.append(sum(ts) / len(ts))
    return out


def case_lat():
    """steady_state = lat (fio's ss=lat:X%): each round's value is its reads' mean latency; the deviation
    rule stops at the first window of 3 whose rounds are all within 10% of their mean."""
    _, d, s = run_decaying("lat",
                           "steady_state = lat\nsteady_rule = deviation\nsteady_limit = 10%\nsteady_window = 3\n")
    if s is None:
        return
    want = replay_lat(25, 4)
    first = first_within(want, 3, 0.10)
    check("lat: the latency grows (the replay is no constant)", want[first] > 1.5 * want[0], want[:first + 1])
    check("lat: reached at the first window that holds", s["reached"] is True and s["reached_round"] == first and
          s["rounds"] == first + 1 and s["steady_state"] == "lat", (s, first))
    win = [float(v) for v in s["window_values"].split(",")]
    check("lat: window values are the rounds' mean latencies",
          len(win) == 3 and all(abs(a - b) <= 1e-6 * b for a, b in zip(win, want[first - 2:first + 1])),
          (win, want[first - 2:first + 1]))
    m = sum(win) / 3
    check("lat: window mean in ns", abs(s["window_mean_ns"] - m) <= 1e-9 * m, s)
    fj = json.load(open(os.path.join(d, "fio.json")))
    ss = fj["jobs"][-1].get("steadystate")
    check("lat: fio-json steadystate", ss and ss["ss"].startswith("lat:") and ss["duration"] == 3 and
          ss["data"]["lat_ns"] == [round(v) for v in win] and ss["data"]["lat_mean"] == round(m), ss)


def fio_paced(name, body):
    """A fio job of our own, paced by its own rate_iops under the virtual clock (100 reads of 4 KiB a
    virtual second), run by iobench; its JSON."""
    d = os.path.join(A.work, name)
    os.makedirs(d, exist_ok=True)
    p = os.path.join(d, "ss.fio")
    with open(p, "w") as f:
        f.write(f"[paced]\nfilename=ss.dat\nrw=randread\nbs=4k\nsize=1m\nrate_iops=100\ntime_based=1\n{body}")
    out = os.path.join(d, "out.json")
    r = iob.run([iob.binary(A, "iobench"), "run", p, "--dir", d, "--output", f"json={out},fio-json={d}/fio.json"],
                env=iob.vclock_env(iob.env(), A.vclock))
    check(f"{name}: exit 0", r.returncode == 0, r.stderr)
    return iob.read_json(out, optional=True), d


def case_interval():
    """fio's steadystate_check_interval (ss_interval): a sample every interval, the window holding
    ss_dur / ss_interval of them, ss_ramp's samples never judged, at most runtime / interval samples."""
    doc, d = fio_paced("interval", "runtime=30\nss=iops:5%\nss_dur=6\nss_ramp=4\nss_interval=2\n")
    ph, st = recs(doc, "phase"), recs(doc, "steady")
    check("interval: rounds of 2 s, 200 reads each", ph and all(p["elapsed_s"] == 2.0 and p["ops"] == 200 for p in ph),
          [(p["elapsed_s"], p["ops"]) for p in ph])
    check("interval: a window of 6 s / 2 s = 3 samples after 2 ramp samples, judged at the 5th",
          len(st) == 1 and st[0]["window"] == 3 and st[0]["ramp_rounds"] == 2 and st[0]["reached"] is True and
          st[0]["reached_round"] == 4 and st[0]["rounds"] == 5 == len(ph), st)
    check("interval: window values are IOPS over 2 s", st and st[0]["window_values"] == "100,100,100", st)
    ss = json.load(open(os.path.join(d, "fio.json")))["jobs"][-1].get("steadystate")
    check("interval: fio-json duration in samples", ss and ss["duration"] == 3 and ss["data"]["iops"] == [100] * 3, ss)
    # without it, fio's 1 s: the same 6 s window holds 6 samples of 100 reads
    doc, _ = fio_paced("interval1", "runtime=30\nss=iops:5%\nss_dur=6\n")
    ph, st = recs(doc, "phase"), recs(doc, "steady")
    check("interval: default 1 s", st and st[0]["window"] == 6 and st[0]["rounds"] == 6 and
          all(p["elapsed_s"] == 1.0 and p["ops"] == 100 for p in ph), (st, [p["ops"] for p in ph]))
    # a runtime of 9 s: at most 4 samples of 2 s; a window of 3 after 2 ramp samples is never judged
    doc, _ = fio_paced("interval_max", "runtime=9\nss=iops:5%\nss_dur=6\nss_ramp=4\nss_interval=2\n")
    st = recs(doc, "steady")
    check("interval: runtime / interval samples at most", st and st[0]["rounds"] == 4 and st[0]["reached"] is False,
          st)


def case_refused():
    bad = [("steady_state = bw\nsteady_window = 1\n", "steady_window '1'"),
           ("steady_state = foo\n", "steady_state 'foo'"),
           ("steady_state = bw\nsteady_round = 10x\n", "steady_round '10x'"),
           ("steady_state = bw\nsteady_range = 20\n", "steady_range '20'"),
           ("steady_state = bw\nsteady_max_rounds = 4\n", "steady_window 5 is more than steady_max_rounds 4"),
           ("steady_state = bw\nsteady_rule = deviation\n", "needs steady_limit"),
           ("steady_state = bw\nrepeat = 3\n", "cannot be used with repeat = 3"),
           ("steady_state = lat\nlatency = off\n", "steady_state lat needs the I/Os timed")]
    for body, word in bad:
        r, doc, d = run(body, {})
        lines = r.stderr.strip().splitlines()
        check(f"refused {body.strip()!r}: exit 2", r.returncode == 2, (r.returncode, r.stderr))
        check(f"refused {body.strip()!r}: one line naming it", len(lines) == 1 and word in lines[0], lines)
        check(f"refused {body.strip()!r}: nothing created", doc is None and sorted(os.listdir(d)) == ["p.ini", "s.dat"],
              os.listdir(d))


if __name__ == "__main__":
    A = iob.arguments("--bin", "--plugin-dir", "--slow-dir", "--vclock", "--work", only=True)
    sys.exit(iob.cases(A.only, {"decay": case_decay, "never": case_never, "rounds": case_rounds, "lat": case_lat,
                                   "interval": case_interval, "refused": case_refused}))
