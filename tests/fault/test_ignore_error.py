#!/usr/bin/env python3
"""ignore_error (docs/profiles.md, "Errors"): I/Os failing with a listed errno
are counted in io_errors and passed over (in neither ops nor the latency
count); another errno still ends the phase;
continue_on_error passes over any errno in a direction without a list; a
write job's verify reads back the writes but those that failed and were passed
over (at iodepth 1 and 8), and its holes_pct measures only what it reads back (not
the failed write's hole, also after a mixed phase); a bad list is refused in one line, exit 2, nothing created.  Injected by the
test-only fault backend wrapping posix (never real disk errors).  Prints 'N passed, N failed'.

Usage: test_ignore_error.py --bin DIR --fault-dir DIR --plugin-dir DIR --work DIR"""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import iobtest as iob  # noqa: E402
from iobtest import check  # noqa: E402

A = None
BLOCKS = 16  # 1 MiB in 64 KiB I/Os


def iobench(d, job, *args):
    return iob.run([iob.binary(A, "iobench"), "run", job, "--dir", d, *args],
                   env=iob.env(IOBENCH_PLUGIN_PATH=A.fault_dir), cwd=d)


def profile(d, fault, keys, phases="write"):
    wrap = os.path.join(A.plugin_dir, "iob-backend-posix.so")
    return iob.write(os.path.join(d, "f.ini"),
                     f"[f]\nbackend = fault\nsize = 1M\nblock_size = 64K\nphases = {phases}\nlatency = every\n"
                     f"backend_options = wrap={wrap},{fault}\n{keys}")


def phase(stdout, name):
    doc = json.loads(stdout)
    return [r for r in doc["records"] if r["kind"] == "phase" and r["phase"] == name]


def main():
    global A
    A = iob.arguments("--bin", "--fault-dir", "--plugin-dir", "--work")
    os.makedirs(A.work, exist_ok=True)
    cases = [
        # fault, keys, phases, exit, the phase checked, its io_errors and ops (None: no record checked)
        ("op=write,err=ENOSPC,after_calls=4", "ignore_error = ,ENOSPC\n", "write", 0, "write", 12, 4),
        ("op=write,err=ENOSPC,after_calls=4", "ignore_error = ,EIO:EDQUOT\n", "write", 1, None, None, None),
        ("op=write,err=ENOSPC,after_calls=4", "ignore_error = ,28\n", "write", 0, "write", 12, 4),
        # the list is for reads: writes pass over any errno under continue_on_error
        ("op=write,err=ENOSPC,after_calls=4", "continue_on_error = write\nignore_error = EIO\n", "write", 0,
         "write", 12, 4),
        # a list for writes overrides continue_on_error there: ENOSPC is not in it
        ("op=write,err=ENOSPC,after_calls=4", "continue_on_error = write\nignore_error = ,EIO\n", "write", 1,
         None, None, None),
        ("op=read,err=EIO,after_calls=2", "ignore_error = EIO\n", "write,read", 0, "read", 14, 2),
        ("op=read,err=EIO,after_calls=2", "ignore_error = ,EIO\n", "write,read", 1, None, None, None),
    ]
    for fault, keys, phases, code, name, errors, ops in cases:
        d = iob.tempdir(A.work)
        label = f"[{fault}] {keys.strip()!r}"
        p = iobench(d, profile(d, fault, keys, phases), "--output", "json")
        check(f"{label}: exit {code}", p.returncode == code, f"exit {p.returncode}: {p.stderr}")
        if code == 1:
            err = [ln for ln in p.stderr.splitlines() if ln.startswith("iobench: error")]
            check(f"{label}: the error names the errno", len(err) == 1 and
                  ("No space left" in err[0] or "Input/output error" in err[0]), p.stderr)
        if name and p.returncode == 0:
            recs = phase(p.stdout, name)
            got = [(r.get("io_errors"), r["ops"], r["bytes"]) for r in recs]
            check(f"{label}: io_errors {errors}, ops {ops}", got == [(errors, ops, ops * 65536)], str(got))
            # a failed I/O passed over is no I/O done: not timed into lat_ns (fio's clat)
            lat = [r["lat_ns"]["count"] for r in recs]
            check(f"{label}: lat_ns counts the {ops} I/Os done", lat == [ops], str(lat))
        shutil.rmtree(d)
    # a write job with verify: the write that failed and was passed over is not read back (fio drops it
    # from its verify list); the others are, and found good.  Depth 1: the fault backend fails the third
    # write once; iodepth 8: the asyncfault backend fails every 5th queued write as it completes.
    for access in ("seq", "rand"):
        for fault, depth, failed in (("fault", 1, 1), ("asyncfault", 8, 12)):
            d = iob.tempdir(A.work)
            if fault == "fault":
                wrap = os.path.join(A.plugin_dir, "iob-backend-posix.so")
                opts = f"wrap={wrap},op=write,err=EIO,after_calls=2,persist=0"
            else:
                opts = "seed=3,io_fail_every=5"
            job = iob.write(os.path.join(d, "v.ini"),
                            f"[v]\nbackend = {fault}\nbackend_options = {opts}\nsize = 256K\nblock_size = 4K\n"
                            f"access = {access}\niodepth = {depth}\nphases = write,verify\nverify = crc32c\n"
                            "continue_on_error = write\n")
            p = iobench(d, job, "--output", "json")
            label = f"write,verify, {access}, iodepth {depth}, {failed} failed write(s) passed over"
            check(f"{label}: exit 0", p.returncode == 0, f"exit {p.returncode}: {p.stderr}")
            if p.returncode == 0:
                w, v = phase(p.stdout, "write"), phase(p.stdout, "verify")
                got = [(r.get("io_errors"), r["ops"]) for r in w] + [(r["ops"], r["status"], r.get("verify_bad_blocks", 0))
                                                                     for r in v]
                check(f"{label}: the verify reads the {64 - failed} others, all good",
                      got == [(failed, 64 - failed), (64 - failed, "ok", 0)], str(got))
            shutil.rmtree(d)
    # the write that failed and was passed over leaves a hole (4 KiB of 256 KiB: 1 block of 64),
    # which a read of the whole file meets and says; a verify reads back only the writes that were done (after
    # a mixed phase, only its writes), so none of its bytes are holes: it claims none
    wrap = os.path.join(A.plugin_dir, "iob-backend-posix.so")
    for middle, keys in (("read", ""), ("mixed", "rwmix_read = 90\n")):
        d = iob.tempdir(A.work)
        job = iob.write(os.path.join(d, "h.ini"),
                        f"[h]\nbackend = fault\nbackend_options = wrap={wrap},op=write,err=EIO,after_calls=2,persist=0\n"
                        f"size = 256K\nblock_size = 4K\naccess = random\nphases = write,{middle},verify\n"
                        f"verify = crc32c\ncontinue_on_error = write\n{keys}")
        p = iobench(d, job, "--output", "json")
        label = f"write,{middle},verify, 1 failed write passed over"
        check(f"{label}: exit 0", p.returncode == 0, f"exit {p.returncode}: {p.stderr}")
        if p.returncode == 0:
            got = [(r.get("holes_pct"), r.get("verify_bad_blocks", 0)) for r in phase(p.stdout, middle)]
            check(f"{label}: the {middle} phase's whole file holds the failed write's hole (1 block of 64)",
                  got == [(100 / 64, 0)], str(got))
            got = [(r.get("holes_pct"), r["status"], r.get("verify_bad_blocks", 0)) for r in phase(p.stdout, "verify")]
            check(f"{label}: the verify's bytes hold no hole", got == [(0.0, "ok", 0)], str(got))
            notes = [n for n in json.loads(p.stdout)["notes"] if "verify phase" in n and "holes" in n]
            check(f"{label}: no note of holes in the verify", notes == [], str(notes))
        shutil.rmtree(d)
    # bad lists: one line, exit 2, nothing created
    for bad, says in (("EFOO", "'EFOO' is not an errno"), (",,EIO", "verify errors"), ("EIO:", "not an errno"),
                      ("a,b,c,d", "not an errno")):
        d = iob.tempdir(A.work)
        data = os.path.join(d, "data")
        os.mkdir(data)
        job = profile(d, "op=write,err=EIO", f"ignore_error = {bad}\ndir = {data}\n")
        p = iobench(d, job)
        lines = p.stderr.strip().splitlines()
        check(f"refused {bad!r}: exit 2, one line", p.returncode == 2 and len(lines) == 1 and says in lines[0],
              f"exit {p.returncode}: {p.stderr}")
        check(f"refused {bad!r}: nothing created", os.listdir(data) == [], str(os.listdir(data)))
        shutil.rmtree(d)
    return iob.summary()


if __name__ == "__main__":
    sys.exit(main())
