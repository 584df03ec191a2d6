#!/usr/bin/env python3
"""Verify knows what was written (issue 24, problem 8).  A random write cut
short by its time limit wrote only the first draws of its order; the read and
verify phases after it must read exactly those blocks (the same order, as far
as the write got), never a block it did not write and never past the end of
the file it left short.  The old engine read the whole order: verify found
0x00 where nothing was written (exit 3), or a read ran past the end of the
short file (exit 1, EIO), in every round.

The write is slowed by the test backend, not by the machine: asyncfault's
write_pace_us=10000 makes each write take at least 10 ms, so a 0.5 s runtime
ends it after at most 50 of the file's 256 blocks on any machine (a slower
machine only stops it sooner).  Rounds: seeds x iodepth 1 and 4 (the
synchronous random loop and the queued one), with and without ops, 2
streams, random_map false (draws with replacement), a ramp_time (the read
and verify get none: a ramp draws another order, over blocks the write never
wrote), a group of two jobs; sequential writes cut short with 2 streams
sharing the file (each wrote a prefix of its region: holes between), over a
file of other bytes that was there before, and on new files (which the write
leaves as long as it wrote: the read ends there by itself, with no note).
Asserted: exit 0; the write moved fewer bytes than the file (it was cut) and
more than 0; the read and the verify moved exactly what the write moved,
stream by stream (with ops, or sequential), or, random with no end but the
time limit, went over the written blocks until it (whole blocks, at least
what the write moved); no bad block; the note saying the read and verify
read only what was written.

Usage: test_written.py --bin DIR --fault-dir DIR --work DIR"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import iobtest as iob  # noqa: E402
from iobtest import check  # noqa: E402

A = None
SIZE = 1 << 20


def run_case(tmp, name, extra, access="rand", before=None, note=True, no_ramp=False):
    """exact: the phases after the write have an end of their own (ops, one
    pass, or sequential: runtime only bounds them), so they move exactly what
    the write moved; else (random with time_based: no end but the time limit)
    they go over the written blocks again and again until the limit: a whole
    number of blocks, at least what the write moved."""
    exact = access == "seq" or "time_based" not in extra
    d = tempfile.mkdtemp(dir=tmp)
    if before is not None:  # a file there before the run, of other bytes than the pattern
        with open(os.path.join(d, "iobench.w.dat"), "wb") as f:
            f.write(before)
    with open(os.path.join(d, "w.ini"), "w") as f:
        f.write("[w]\nbackend = asyncfault\nbackend_options = write_pace_us=10000\nsize = 1M\nblock_size = 4K\n"
                f"access = {access}\nphases = write,read,verify\nruntime = 500ms\n" + extra)
    p = iob.run([iob.binary(A, "iobench"), "run", "w.ini", "--dir", d, "--output", "json"],
              env=iob.env(IOBENCH_PLUGIN_PATH=A.fault_dir), cwd=d)
    check(name + " exit 0", p.returncode == 0, f"exit {p.returncode}: {p.stderr.strip()[-600:]}")
    try:
        doc = json.loads(p.stdout)
    except ValueError as e:
        check(name + " json", False, str(e))
        return
    # per stream (stream records with threads > 1, else the phase records)
    recs = [r for r in doc["records"] if r.get("kind") == "stream"] or \
        [r for r in doc["records"] if r.get("kind") == "phase"]
    by = {}
    for r in recs:
        by.setdefault((r["job"], r.get("stream", 0)), {})[r["phase"]] = r
    for s, ph in sorted(by.items()):
        w = ph.get("write", {}).get("bytes", -1)
        check(f"{name} stream {s} write cut short", 0 < w < SIZE, f"write moved {w} of {SIZE}")
        for other in ("read", "verify"):
            got = ph.get(other, {}).get("bytes", -1)
            ok = got == w if exact else got >= w and got % 4096 == 0
            check(f"{name} stream {s} {other} {'=' if exact else '>='} write", ok, f"{other} moved {got}, the write {w}")
        bad = ph.get("verify", {}).get("verify_bad_blocks")
        check(f"{name} stream {s} no bad block", bad == 0, f"verify_bad_blocks {bad}")
    notes = " ".join(doc.get("notes", []))
    for other in ("read", "verify"):
        said = f"{other} phase: the write phase before it completed only part" in notes
        check(f"{name} note for {other}", said == note, f"note {'missing' if note else 'not expected'}: "
              f"{notes[:800]!r}")
        said = f"{other} phase: no ramp_time: the write phase before it did not write every block" in notes
        check(f"{name} ramp note for {other}", said == no_ramp, f"{notes[:800]!r}")


def main():
    global A
    A = iob.arguments("--bin", "--fault-dir", "--work")
    with iob.scratch(A.work, "written-") as tmp:
        for seed in (1, 2, 3):
            for depth in (1, 4):
                run_case(tmp, f"seed={seed} iodepth={depth}", f"seed = {seed}\niodepth = {depth}\n")
            run_case(tmp, f"seed={seed} ops=256", f"seed = {seed}\niodepth = {1 + seed % 2 * 3}\nops = 256\n")
        run_case(tmp, "threads=2", "threads = 2\niodepth = 4\n")
        for depth in (1, 4):  # no end but the time: the written blocks again and again
            run_case(tmp, f"time_based iodepth={depth}", f"time_based = true\niodepth = {depth}\n")
        run_case(tmp, "random_map=false", "random_map = false\n")
        # a ramp would read another order's blocks: none after a cut write
        run_case(tmp, "ramp_time", "ramp_time = 100ms\niodepth = 4\n", no_ramp=True)
        run_case(tmp, "group", "group = 1\niodepth = 4\n[w2]\nbackend = asyncfault\n"
                 "backend_options = write_pace_us=10000\nsize = 1M\nblock_size = 4K\naccess = rand\n"
                 "phases = write,read,verify\nruntime = 500ms\ngroup = 1\nfilename = other.dat\nseed = 9\n")
        # sequential: streams sharing a file each write a prefix of their
        # region (the file's size says nothing of the holes between them),
        # and a file there before the run holds other bytes past the prefix
        for depth in (1, 4):
            run_case(tmp, f"seq shared_file iodepth={depth}", f"threads = 2\nshared_file = true\niodepth = {depth}\n",
                     access="seq")
            run_case(tmp, f"seq over an older file iodepth={depth}", f"iodepth = {depth}\n", access="seq",
                     before=b"\x55" * SIZE)
        run_case(tmp, "seq new files", "threads = 2\n", access="seq", note=False)
    return iob.summary()


if __name__ == "__main__":
    sys.exit(main())
