#!/usr/bin/env python3
"""latency_target's depth search on a device whose latency grows with the
depth: the test-only asyncfault backend's depth_pace_us=1000,depth_pow=4
completes each queued I/O 1 ms times 4 to the power of the most I/Os in
flight since its submit, less one, later (the backend sleeps for it), so
depths 1, 2, 3, 4 take 1, 4, 16, 64 ms on any machine (a slower or busier
one only adds to it; and a submitter late to refill the queue cannot make
a deeper window look faster: an I/O's time is set by the deepest queue it
was in, not by the queue at its own submit).  With latency_target 32 ms, depths 1 to 3 are within it and 4
and above are over it, whatever the machine's speed: the search (iodepth 8)
must settle at depth 3.  The margins are wide (depth 3's I/Os would have to
be 16 ms late, half of them: latency_percentile 50) so that a busy machine's
late wake-ups do not fail a window that should pass; a late wake-up can only
make an I/O slower, so no window that should fail can pass.

Asserted, from the result and from the backend's own tally: exit 0; the
phase record's latency_depth 3, latency_settled true; every window's
max_in_flight at most its depth; the last window is the final one, at depth
3 with 3 in flight; every window at depth 4 or more is over the target; the
backend never had more in flight than the deepest window's depth; the human
output says the search in one line under the phase.  latency_percentile 100
with depth 1 over the target fails the phase (exit 1, one line).  Bad values
refused in one line, exit 2, nothing created.

Usage: test_lattarget.py --bin DIR --fault-dir DIR --work DIR"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import iobtest as iob  # noqa: E402
from iobtest import check  # noqa: E402

A = None
PROFILE = ("[q]\nbackend = asyncfault\nbackend_options = depth_pace_us=1000,depth_pow=4,tally={tally}\nsize = 1M\n"
           "block_size = 4K\naccess = rand\nphases = write,read\niodepth = 8\nruntime = 20s\ntime_based = true\n"
           "latency_target = 32ms\nlatency_window = 300ms\nlatency_percentile = 50\n")


def tally(path):
    with open(path) as f:
        words = f.read().split()
    return {words[i]: int(words[i + 1]) for i in range(0, len(words) - 1, 2)}


def search(tmp):
    d = os.path.join(tmp, "search")
    os.makedirs(d)
    t = os.path.join(d, "tally")
    with open(os.path.join(d, "q.ini"), "w") as f:
        f.write(PROFILE.format(tally=t).replace("phases = write,read", "phases = read"))
    with open(os.path.join(d, "iobench.q.dat"), "wb") as f:
        f.write(b"\0" * (1 << 20))
    p = iob.run([iob.binary(A, "iobench"), "run", "q.ini", "--dir", d, "--output", "human,json=r.json"],
                env=iob.env(IOBENCH_PLUGIN_PATH=A.fault_dir), cwd=d)
    check("search exit 0", p.returncode == 0, f"exit {p.returncode}: {p.stderr.strip()[-600:]}")
    if p.returncode != 0:
        return
    with open(os.path.join(d, "r.json")) as f:
        recs = json.load(f)["records"]
    ph = [r for r in recs if r.get("kind") == "phase"]
    wins = [r for r in recs if r.get("kind") == "latency_window"]
    check("one phase record", len(ph) == 1, str(ph))
    ph = ph[0]
    depths = [w["depth"] for w in wins]
    check("the search settles at depth 3", ph.get("latency_depth") == 3 and ph.get("latency_settled") is True,
          f"{ph.get('latency_depth')} settled={ph.get('latency_settled')} windows {depths}")
    check("latency_windows counts the window records", ph.get("latency_windows") == len(wins), str(len(wins)))
    check("every window within its depth", all(w["max_in_flight"] <= w["depth"] for w in wins),
          str([(w["depth"], w["max_in_flight"]) for w in wins]))
    check("the last window is the final one at depth 3, 3 in flight",
          wins and wins[-1]["final"] and wins[-1]["depth"] == 3 and wins[-1]["max_in_flight"] == 3
          and wins[-1]["verdict"] == "within", str(wins[-1:]))
    check("depths of 4 and more are over the target",
          all(w["verdict"] == "over" for w in wins if w["depth"] >= 4) and any(w["depth"] >= 4 for w in wins),
          str([(w["depth"], w["verdict"], w["lat_pct_ns"]) for w in wins]))
    check("the first window runs at depth 1", depths[:1] == [1], str(depths))
    tl = tally(t)
    check("the backend never had more in flight than the deepest window",
          tl.get("max_in_flight") == max(depths), f"tally {tl}, windows {depths}")
    check("the backend reaped all it took", tl.get("submitted") == tl.get("reaped") and tl.get("violations") == 0,
          str(tl))
    check("the phase's figures are the final window's", ph["ops"] >= wins[-1]["ios"] and
          ph["ops"] <= wins[-1]["ios"] + 3, f"{ph['ops']} vs {wins[-1]['ios']}")
    lines = [ln for ln in p.stdout.splitlines() if "latency_target" in ln]
    check("the human output says it in one line",
          len(lines) == 1 and "depth 3, settled after" in lines[0] and "p50" in lines[0], p.stdout[-800:])


def refused(tmp):
    for name, extra, want in (
            ("iodepth 1", ["iodepth=1"], "needs iodepth"),
            ("percentile 0", ["latency_percentile=0"], "latency_percentile '0' is not one percent"),
            ("percentile list", ["latency_percentile=50:99"], "latency_percentile '50:99' is not one percent"),
            ("latency off", ["latency=off"], "cannot be used with latency = off"),
            ("window alone", ["latency_target=0s"], "latency_window = 300ms needs latency_target")):
        d = os.path.join(tmp, "bad-" + name.replace(" ", "-"))
        os.makedirs(d)
        with open(os.path.join(d, "q.ini"), "w") as f:
            f.write(PROFILE.format(tally="t"))
        sets = [a for kv in extra for a in ("--set", kv)]
        p = iob.run([iob.binary(A, "iobench"), "run", "q.ini", "--dir", d] + sets,
                    env=iob.env(IOBENCH_PLUGIN_PATH=A.fault_dir), cwd=d)
        err = p.stderr.strip().splitlines()
        check(f"{name}: refused in one line, exit 2", p.returncode == 2 and len(err) == 1 and want in err[0],
              f"exit {p.returncode}: {p.stderr.strip()[-400:]}")
        check(f"{name}: nothing created", sorted(os.listdir(d)) == ["q.ini"], str(os.listdir(d)))


def fatal(tmp):
    """latency_percentile 100 at depth 1: the first I/O (at least 1 ms on the paced backend) over a 500 us
    target fails the phase, as fio's job fails: exit 1, the error naming the target and the I/O's time."""
    d = os.path.join(tmp, "fatal")
    os.makedirs(d)
    with open(os.path.join(d, "q.ini"), "w") as f:
        f.write(PROFILE.format(tally=os.path.join(d, "tally")).replace("phases = write,read", "phases = read"))
    with open(os.path.join(d, "iobench.q.dat"), "wb") as f:
        f.write(b"\0" * (1 << 20))
    p = iob.run([iob.binary(A, "iobench"), "run", "q.ini", "--dir", d, "--set", "latency_target=500us",
                 "--set", "latency_percentile=100", "--output", "json=r.json"],
                env=iob.env(IOBENCH_PLUGIN_PATH=A.fault_dir), cwd=d)
    errs = [ln for ln in p.stderr.splitlines() if "error:" in ln]
    check("depth 1 over the target at p100: exit 1, one error line",
          p.returncode == 1 and len(errs) == 1 and "latency_target 500000 ns exceeded at depth 1" in errs[0],
          f"exit {p.returncode}: {p.stderr[-600:]}")
    m = re.search(r"took (\d+) ns", errs[0]) if errs else None
    check("the error says the I/O's time, at least the backend's 1 ms", m and int(m.group(1)) >= 1000000,
          errs)
    tl = tally(os.path.join(d, "tally"))
    check("one I/O was all it took", tl.get("max_in_flight") == 1, str(tl))


def main():
    global A
    A = iob.arguments("--bin", "--fault-dir", "--work")
    with iob.scratch(A.work, "lattarget-") as tmp:
        refused(tmp)
        search(tmp)
        fatal(tmp)
    return iob.summary()


if __name__ == "__main__":
    sys.exit(main())
