#!/usr/bin/env python3
"""The queued engine (iodepth > 1) on the test-only "asyncfault" backend
(asyncfault_backend.c), which keeps the submit/reap contract but uses every
freedom it leaves, at seeded random positions: submits that take a part of a
batch, submits that fail after an earlier part of the same batch was taken,
reaps that refuse (0, -EAGAIN, -EINTR) or hand back a random number of
completions in a random order, short writes.  The backend counts what the
engine submitted and reaped and any break of the core's side of the contract
(an I/O submitted while in flight, more in flight than the depth, an I/O
left in flight at close) and writes the tally at exit.

Asserted, in many seeded rounds (issue 24, problem 2: a submit failing part
way put the requests it had taken on the free list twice, and glibc aborted
with "corrupted size vs. prev_size"):
  - a failing submit ends the run with exit 1 and one error line naming the
    queued write and the errno text, no crash and no sanitizer report, every
    submitted I/O reaped exactly once, none left at close, no violation;
  - with partial submits, refused reaps and short writes (no error), random
    and sequential write,verify runs with 1 and 2 streams end with exit 0,
    the bytes of the size written and verified, every I/O reaped.
  - continue_on_error and ignore_error on the queued path: every K-th
    queued I/O completing with an error (io_fail_every) is counted in
    io_errors and the phase goes on, its ops and bytes the rest, at depths 2
    to 16, with partial submits and refused reaps; an errno not passed over
    still ends the run (exit 1, one line).
  - a mixed phase's write that failed and was passed over is not read back
    by the verify after it (fio drops it from its verify list).
Under -DIOB_SANITIZE=ON and -DIOB_TSAN=ON builds the same runs are checked
by the sanitizers (their reports fail the case).

Usage: test_async.py --bin DIR --fault-dir DIR --work DIR"""
import json
import os
import pwd
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import iobtest as iob  # noqa: E402
from iobtest import check  # noqa: E402

A = None
SANITIZER = re.compile(r"AddressSanitizer|LeakSanitizer|ThreadSanitizer|UndefinedBehaviorSanitizer|runtime error:|"
                       r"corrupted|double free|free\(\): ")


def tally(path):
    try:
        with open(path) as f:
            words = f.read().split()
    except OSError as e:
        return {"error": str(e)}
    return {words[i]: int(words[i + 1]) for i in range(0, len(words) - 1, 2)}


def run(d, profile):
    with open(os.path.join(d, "q.ini"), "w") as f:
        f.write(profile)
    return iob.run([iob.binary(A, "iobench"), "run", "q.ini", "--dir", d, "--output", "json"],
                 env=iob.env(IOBENCH_PLUGIN_PATH=A.fault_dir), cwd=d)


def profile(opts, access="rand", phases="write", threads=1, depth=16, size="1M"):
    return ("[q]\nbackend = asyncfault\n"
            f"size = {size}\nblock_size = 4K\naccess = {access}\nphases = {phases}\niodepth = {depth}\n"
            f"threads = {threads}\nbackend_options = {opts}\n")


def common(name, p, t):
    check(name + " no crash", p.returncode >= 0 and p.returncode not in (134, 139),
          f"exit {p.returncode}: {p.stderr[-2000:]}")
    check(name + " no sanitizer report", not SANITIZER.search(p.stderr), p.stderr[-3000:])
    check(name + " tally", "submitted" in t, f"no tally: {t}")
    if "submitted" not in t:
        return
    check(name + " every I/O reaped once", t["submitted"] == t["reaped"], f"tally {t}")
    check(name + " none left at close", t["open_at_close"] == 0, f"tally {t}")
    check(name + " core kept the contract", t["violations"] == 0, f"tally {t}; {p.stderr[-2000:]}")


def failing_submits(tmp, rounds):
    """Submits failing part way: exit 1, one line, nothing corrupted."""
    fired = 0
    for seed in range(1, rounds + 1):
        d = tempfile.mkdtemp(dir=tmp)
        tp = os.path.join(d, "tally")
        # odd rounds refuse reaps only as ABI 1.1 first allowed (0, -EINTR)
        refuse = "EINTR" if seed % 2 else "both"
        opts = f"seed={seed},submit_fail=150,partial=200,reap_refuse=200,refuse_with={refuse},tally={tp}"
        p = run(d, profile(opts, depth=16 + seed % 17))
        name = f"submit_fail seed={seed}"
        t = tally(tp)
        common(name, p, t)
        # the run's notes come first, as warning lines; then the one error line
        lines = [ln for ln in p.stderr.strip().splitlines() if not ln.startswith("iobench: warning: ")]
        if t.get("submit_errors", 0) == 0:
            check(name + " ran clean", p.returncode == 0, f"exit {p.returncode}: {p.stderr}")
            continue
        fired += 1
        check(name + " exit 1", p.returncode == 1, f"exit {p.returncode}: {p.stderr[-2000:]}")
        check(name + " one error line",
              len(lines) == 1 and re.search(r"queued write of 4096 bytes at offset \d+ of .*iobench\.q\.dat "
                                            r"failed: Cannot allocate memory", lines[0]) is not None,
              f"stderr {p.stderr[-2000:]!r}")
        try:
            doc = json.loads(p.stdout)
            ok = doc["status"] == "error" and [r.get("status") for r in doc["records"]] == ["error"]
        except (ValueError, KeyError) as e:
            ok, doc = False, str(e)
        check(name + " json", ok, f"document {str(doc)[:1000]}")
    check("submit_fail fired", fired >= rounds // 2, f"a submit failed in only {fired} of {rounds} rounds")


def no_errors(tmp, rounds):
    """Partial submits, refused reaps, short writes, random completion order:
    the run is right, and verify finds the pattern everywhere."""
    for seed in range(1, rounds + 1):
        for access, threads in (("rand", 1), ("seq", 1), ("rand", 2)):
            d = tempfile.mkdtemp(dir=tmp)
            tp = os.path.join(d, "tally")
            opts = f"seed={seed},partial=300,reap_refuse=300,short=100,tally={tp}"
            p = run(d, profile(opts, access=access, phases="write,verify", threads=threads, depth=8 + seed))
            name = f"no_errors seed={seed} {access} threads={threads}"
            t = tally(tp)
            common(name, p, t)
            check(name + " exit 0", p.returncode == 0, f"exit {p.returncode}: {p.stderr[-2000:]}")
            try:
                doc = json.loads(p.stdout)
                got = {r["phase"]: (r["bytes"], r.get("verify_bad_blocks")) for r in doc["records"]
                       if r.get("kind") == "phase"}
            except (ValueError, KeyError) as e:
                got = str(e)
            want_bytes = threads * 1048576
            ok = isinstance(got, dict) and got.get("write", (0,))[0] == want_bytes and \
                got.get("verify", (0, 1)) == (want_bytes, 0)
            check(name + " bytes written and verified", ok, f"records {got}; {p.stdout[-1500:]}")
            if "short" in t:
                check(name + " faults fired", t["refused"] > 0 and t["short"] > 0, f"tally {t}")


def uring_regbufs(tmp):
    """The issue's own reproducer: io_uring with regbufs=1 as an unprivileged
    user under an 8 MiB locked-memory limit, 64 buffers of 128 KiB: the
    registration fails part way through a batch.  A clean exit 1 naming the
    queued write and ENOMEM (or 0 where the kernel does not count the pinned
    pages), never an abort.  Skipped (said) without the io_uring backend,
    prlimit, or, as root, setpriv and the user nobody."""
    plugin = os.path.join(A.bin, "..", "lib", "iobench", "plugins", "iob-backend-io_uring.so")
    if not os.path.exists(plugin) or not shutil.which("prlimit"):
        print("note: uring_regbufs skipped: no io_uring backend or no prlimit")
        return
    argv = ["prlimit", f"--memlock={8 << 20}"]
    d = tempfile.mkdtemp(dir=tmp)
    if os.geteuid() == 0:
        try:
            nobody = pwd.getpwnam("nobody")
        except KeyError:
            nobody = None
        if nobody is None or not shutil.which("setpriv"):
            print("note: uring_regbufs skipped: root without setpriv or the user nobody")
            return
        os.chmod(tmp, 0o755)
        os.chown(d, nobody.pw_uid, nobody.pw_gid)
        argv = ["setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups", *argv]
    prof = os.path.join(d, "u.ini")
    with open(prof, "w") as f:
        f.write("[u]\nbackend = io_uring\nbackend_options = regbufs=1\niodepth = 64\nblock_size = 128K\n"
                "size = 64M\naccess = rand\nphases = write,read\n")
    os.chmod(prof, 0o644)
    p = iob.run([*argv, iob.binary(A, "iobench"), "run", prof, "--dir", d], cwd=d)
    if "io_uring" in p.stderr and re.search(r"setup|not permitted|disabled", p.stderr) and p.returncode == 2:
        print(f"note: uring_regbufs skipped: io_uring refused here: {p.stderr.strip()[:200]}")
        return
    name = "uring regbufs=1 under memlock 8 MiB"
    check(name + " no crash", p.returncode in (0, 1), f"exit {p.returncode}: {p.stderr[-2000:]}")
    check(name + " no sanitizer report", not SANITIZER.search(p.stderr), p.stderr[-3000:])
    if p.returncode == 1:
        check(name + " says what failed",
              re.search(r"queued (write|read) of 131072 bytes at offset \d+ of .* failed: Cannot allocate memory",
                        p.stderr) is not None, p.stderr[-2000:])


def queued_errors(tmp):
    """continue_on_error / ignore_error at iodepth > 1: the failed completions counted, the rest done."""
    cases = [
        # keys, phases, io_fail options, exit, the phase checked, its I/Os (256 asked), failures
        ("continue_on_error = write\n", "write", "io_fail_every=4", 0, "write", 256, 64),
        ("continue_on_error = io\n", "write", "io_fail_every=5,io_fail_err=EILSEQ", 0, "write", 256, 51),
        ("ignore_error = ,ENOSPC\n", "write", "io_fail_every=8,io_fail_err=ENOSPC", 0, "write", 256, 32),
        ("continue_on_error = read\n", "write,read", "io_fail_every=4,io_fail_op=read", 0, "read", 256, 64),
        # the errno is not in the list: the first failure ends the run
        ("ignore_error = ,ENOSPC\n", "write", "io_fail_every=4,io_fail_err=EIO", 1, None, None, None),
        # the direction is not passed over
        ("continue_on_error = read\n", "write", "io_fail_every=4", 1, None, None, None),
    ]
    for k, (keys, phases, fail, code, name, ios, failed) in enumerate(cases):
        for depth, threads in ((2, 1), (16, 1), (8, 2)):
            d = tempfile.mkdtemp(dir=tmp)
            tp = os.path.join(d, "tally")
            opts = f"seed={k + depth},partial=200,reap_refuse=200,{fail},tally={tp}"
            p = run(d, profile(opts, phases=phases, threads=threads, depth=depth) + keys + "latency = every\n")
            label = f"queued errors [{fail}] {keys.strip()!r} depth={depth} threads={threads}"
            t = tally(tp)
            common(label, p, t)
            check(label + f" exit {code}", p.returncode == code, f"exit {p.returncode}: {p.stderr[-1500:]}")
            if code == 1:
                lines = [ln for ln in p.stderr.strip().splitlines() if not ln.startswith("iobench: warning: ")]
                check(label + " one error line naming the errno", len(lines) == 1 and "failed:" in lines[0],
                      p.stderr[-1500:])
                continue
            if p.returncode != 0:
                continue
            recs = [r for r in json.loads(p.stdout)["records"] if r.get("kind") == "phase" and r["phase"] == name]
            got = [(r.get("io_errors"), r["ops"], r["bytes"]) for r in recs]
            want = [(threads * failed, threads * (ios - failed), threads * (ios - failed) * 4096)]
            check(label + f" io_errors {threads * failed}, ops {threads * (ios - failed)}", got == want,
                  f"{got}, want {want}")
            check(label + " failures fired", t.get("io_failed") == threads * failed, f"tally {t}")
            lat = [r["lat_ns"]["count"] for r in recs]
            check(label + " lat_ns counts the I/Os done only", lat == [threads * (ios - failed)], f"{lat}")


def queued_verify_errors(tmp):
    """continue_on_error = write with a mixed phase and verify at iodepth > 1: a write that failed and was
    passed over (it moved no data: the file holds zeros there) is dropped from the list the verify reads
    back, as fio drops a failed write from its verify list; the verify reads the others and finds them
    good.  Before, it read the failed blocks too and reported the first bad (exit 3)."""
    for depth in (2, 8, 16):
        d = tempfile.mkdtemp(dir=tmp)
        tp = os.path.join(d, "tally")
        with open(os.path.join(d, "z.dat"), "wb") as f:
            f.write(bytes(1 << 20))
        p = run(d, profile(f"seed={depth},partial=200,reap_refuse=200,io_fail_every=4,tally={tp}",
                           phases="mixed,verify", depth=depth) +
                "filename = z.dat\nverify = crc32c\ncontinue_on_error = write\nkeep_files = true\n")
        label = f"queued verify after failed writes depth={depth}"
        t = tally(tp)
        common(label, p, t)
        check(label + " exit 0", p.returncode == 0, f"exit {p.returncode}: {p.stderr[-1500:]}")
        if p.returncode != 0:
            continue
        recs = [r for r in json.loads(p.stdout)["records"] if r.get("kind") == "phase"]
        mixed = [r for r in recs if r["phase"] == "mixed"]
        ver = [r for r in recs if r["phase"] == "verify"]
        check(label + " failures fired and counted", len(mixed) == 1 and t.get("io_failed", 0) > 0 and
              mixed[0].get("io_errors") == t.get("io_failed"), f"{mixed} tally {t}")
        check(label + " verify read the writes that succeeded, all good",
              len(ver) == 1 and ver[0]["status"] == "ok" and ver[0]["ops"] == mixed[0]["ops_written"] and
              ver[0]["verify_bad_blocks"] == 0, f"{ver} {mixed}")


def main():
    global A
    A = iob.arguments("--bin", "--fault-dir", "--work", optional={"--rounds": 20})
    A.rounds = int(A.rounds)
    with iob.scratch(A.work, "queued-") as tmp:
        failing_submits(tmp, A.rounds)
        uring_regbufs(tmp)
        no_errors(tmp, max(2, A.rounds // 5))
        queued_errors(tmp)
        queued_verify_errors(tmp)
    return iob.summary(width=400)


if __name__ == "__main__":
    sys.exit(main())
