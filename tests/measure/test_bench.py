#!/usr/bin/env python3
"""bench/run.py compares equal work or refuses to compare (issue 16).

  quick  runs bench/run.py --quick --selftest-unequal end to end: every ratio it
         gives compares equal work (the work figures are checked here against
         what each scenario asks for), and the deliberately unequal pair is
         INVALID, with no ratio.  fio contenders are skipped, with the reason
         printed, when fio is not installed.
  rule   the comparison itself on made-up samples: equal, within 0.1%, beyond
         0.1% in bytes or in I/O calls, a skipped contender; and the parsers of
         dd's and fio's own output.

Usage: test_bench.py --bench bench/run.py --build DIR --work DIR CASE"""
import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import iobtest as iob  # noqa: E402
from iobtest import expect  # noqa: E402

ARGS = None
MiB = 1 << 20


def load_bench():
    sys.dont_write_bytecode = True  # leave no __pycache__ in the source tree
    spec = importlib.util.spec_from_file_location("bench_run", ARGS.bench)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def case_quick(tmp):
    out = os.path.join(tmp, "quick.json")
    p = subprocess.run([sys.executable, ARGS.bench, "--build", ARGS.build, "--dir", tmp, "--quick",
                        "--selftest-unequal", "--json", out], capture_output=True, text=True, timeout=500)
    print(p.stdout[-6000:])
    expect(p.returncode == 0, f"run.py --quick: exit {p.returncode}\n{p.stderr[-3000:]}")
    doc = json.load(open(out))
    # the profiles the bench wrote for its scenarios are gone when it exits
    left = sorted(n for n in os.listdir(tmp) if n.endswith(".ini"))
    expect(not left, f"run.py left its profiles behind: {left}")
    res = doc["results"]
    sizes = doc["env"]["sizes"]
    expect(doc["env"]["quick"] and doc["env"]["rounds"] == 1, f"not a quick run: {doc['env']}")
    # the unequal pair is flagged, with both work figures and no value
    st = res["selftest_unequal"]["ratios"]["iobench/raw"]
    expect(st["valid"] is False and "value" not in st and "unequal work" in st["reason"],
           f"the deliberately unequal pair was not flagged: {st}")
    expect(doc["selftest_unequal_flagged"] is True and doc["invalid"] == [], f"invalid list: {doc['invalid']}")
    expect("INVALID, unequal work" in p.stdout, "no INVALID line printed for the unequal pair")
    # every other ratio compares equal work, or names why it was not made
    valid = skipped = 0
    for name, r in res.items():
        for label, v in r.get("ratios", {}).items():
            if name == "selftest_unequal":
                continue
            expect(v["valid"] is not False, f"{name} {label}: INVALID in the quick run: {v}")
            if v["valid"] is None:
                skipped += 1
                expect("fio not installed" in v["skipped"], f"{name} {label}: skipped for {v['skipped']}")
                continue
            valid += 1
            a, b = label.split()[0].split("/")
            for what in ("bytes", "ops"):
                wa, wb = r["work"][a][what], r["work"][b][what]
                expect(wa and wb and set(wa) == set(wb) and len(set(wa)) == 1,
                       f"{name} {label}: {what} {wa} against {wb}, yet compared")
    want = {"a_rand4k_cached": sizes["ops"] * 4096, "b_seq1m_read_cached": sizes["b_file"],
            "c_seq1m_write_fsync": sizes["c_bytes"], "d_mmap_seq1m_cached": sizes["a_file"] * sizes["d_loops"],
            "d_mmap_rand4k_cached": sizes["ops"] * 4096,
            "t_threads_rand4k_cached": (sizes["ops"] - sizes["ops"] % 2) * 4096}
    for name, nbytes in want.items():
        for c, w in res[name]["work"].items():
            expect(w["bytes"] == [nbytes], f"{name} {c}: did {w['bytes']} bytes, the scenario asks {nbytes}")
    # a runtime-limited phase never ends before its limit, and the process lasts longer
    rr = res["r_runtime"]
    expect(all(o >= 0 for o in rr["elapsed_minus_limit_ms"]), f"r_runtime: ended before its limit: {rr}")
    expect(all(w >= rr["limit_s"] for w in rr["process_wall_s"]), f"r_runtime: process shorter than the limit: {rr}")
    expect(valid >= 6, f"only {valid} equal-work ratios in the quick run")
    if shutil.which("fio"):
        expect(skipped == 0, "fio is installed, yet fio contenders were skipped")
        for name in ("a_rand4k_cached", "c_seq1m_write_fsync"):
            expect("fio" in res[name]["work"], f"{name}: fio did not run")
    else:
        expect(skipped > 0 and "fio not installed" in p.stdout, "fio missing, but not said so")
        print("fio contenders skipped: fio is not installed (tools/deps.sh fio installs it)")
    print(f"{valid} equal-work ratios, {skipped} not made (fio missing), 1 unequal pair flagged")


def case_rule(tmp):
    del tmp
    b = load_bench()
    w = lambda nbytes, ops: {"bytes": nbytes, "ops": ops}  # noqa: E731
    expect(b.work_differs(w([4096000], [1000]), w([4096000], [1000])) is None, "equal work flagged")
    expect(b.work_differs(w([1000000], [1000]), w([1000999], [1000])) is None, "0.0999% apart flagged")
    why = b.work_differs(w([1000000], [1000]), w([1001100], [1000]))
    expect(why and "1,000,000" in why and "1,001,100" in why, f"0.11% apart in bytes not flagged: {why}")
    why = b.work_differs(w([4096000], [1000]), w([4096000], [500]))
    expect(why and "ops" in why and "500" in why, f"equal bytes in half the calls not flagged: {why}")
    expect(b.work_differs(w([4096000], [None]), w([4096000], [1000])) is None, "a tool without a call count")
    expect(b.work_differs(w([], []), w([4096000], [1000])), "a contender without a work figure compared")
    why = b.work_differs(w([4096000, 4096000], [1000, 1000]), w([4096000, 2048000], [1000, 500]))
    expect(why, "one unequal round among equal ones not flagged")

    # ratio(): refuses, or compares, or names the missing contender
    b.A = argparse.Namespace(rounds=2, fio=False)
    b.RESULTS.clear()
    samples = {"x": [b.Sample(10.0, 4096, 1, 1.0)] * 2, "y": [b.Sample(5.0, 4096, 1, 2.0)] * 2,
               "z": [b.Sample(1.0, 8192, 2, 1.0)] * 2}
    b.rounds("t", {"x": iter(samples["x"]).__next__, "y": iter(samples["y"]).__next__,
                   "z": iter(samples["z"]).__next__, "fio": b.fio_or(lambda: None)}, "bytes/s")
    expect(b.ratio("t", "x", "y") == 2.0, "equal work: ratio of the medians")
    expect(b.ratio("t", "x", "y", process=True) == 2.0, "whole process: bytes over wall time")
    expect(b.ratio("t", "x", "z") is None, "unequal work compared")
    r = b.RESULTS["t"]["ratios"]
    expect(r["x/z"]["valid"] is False and "value" not in r["x/z"], f"x/z: {r['x/z']}")
    expect(b.ratio("t", "x", "fio") is None and "fio not installed" in r["x/fio"]["skipped"], f"{r}")
    expect(list(b.invalid_ratios()) == ["t: x/z"], f"invalid: {b.invalid_ratios()}")

    # the parsers read each tool's own account of its work
    nbytes, recs, secs = b.parse_dd("16+0 records in\n16+0 records out\n16777216 bytes (17 MB, 16 MiB) copied, "
                                    "0.00523 s, 3.2 GB/s\n", "read")
    expect((nbytes, recs, secs) == (16777216, 16, 0.00523), f"dd: {(nbytes, recs, secs)}")
    expect(b.parse_dd("3+1 records in\n3+1 records out\n13000 bytes (13 kB) copied, 0.1 s, 130 kB/s\n",
                      "write")[1] == 4, "dd: a partial record is an I/O")
    fio = {"jobs": [{"read": {"io_bytes": 8192000, "total_ios": 2000, "runtime": 3, "iops": 666666.7},
                     "write": {"io_bytes": 0, "total_ios": 0, "runtime": 0}}]}
    nbytes, ios, runtime, _ = b.parse_fio("note: both iodepth >= 1 and synchronous I/O engine\n" + json.dumps(fio))
    expect((nbytes, ios, runtime) == (8192000, 2000, 3), f"fio: {(nbytes, ios, runtime)}")
    args = b.fio_rand_args("f", 64 * MiB, 500000)
    expect("--io_size=4096000000" in args and "--number_ios=500000" in args,
           f"fio's io_size must exceed number_ios x bs, so number_ios ends the job: {args}")
    print("ok: equal work compared, 0.1% and more refused, missing contenders named, parsers read the work")


if __name__ == "__main__":
    ARGS = iob.arguments("--bench", "--build", "--work", case=True)
    sys.exit(iob.run_case(ARGS, globals(), "bench-"))
