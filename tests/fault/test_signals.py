#!/usr/bin/env python3
"""Signals: for each of the four binaries, start a run sized to last tens of
seconds, stop one with SIGINT, another with SIGTERM and a third with SIGHUP,
and check the guarantees (docs/architecture.md, "Exit codes"): the run stops
soon after the signal, exits 130, 143 or 129, prints its partial results marked interrupted (the
legacy marker on stdout and "interrupted": true in a json file written at the
same time), says why in one error line, and leaves no temporary file it
promised to remove (iobench with keep_files = false, io_profile --remove).
bigread is also stopped while its read waits on a silent pipe.  Each binary
is also run with its standard output a pipe whose reader is gone: SIGPIPE
ends the run the same way, with exit 141.

The stop time is measured from sending the signal to the exit of the process.
The target is one second; the assertion allows STOP_LIMIT (2 s, 8 s in a
sanitizer build) because this runs on small shared machines where a process
can wait that long for a CPU.
Every measured time is printed.  The runs work in the build tree (a real
disk); the iotest write run is sized from the free space found there, and the
long reads use sparse files, which take no space.

Usage: test_signals.py --bin DIR --work DIR [TOOL...]   (all four by default)
Prints 'N passed, N failed'."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import iobtest as iob  # noqa: E402
from iobtest import check  # noqa: E402

# seconds; the target is 1 s (see above).  A sanitizer build (IOB_SANITIZED, set
# by CMake) runs several times slower by design, ThreadSanitizer most: 8 s there.
STOP_LIMIT = 8.0 if os.environ.get("IOB_SANITIZED") else 2.0
SPARSE = 64 << 30  # bytes of a sparse file read for tens of seconds
A = None
stop_times = []


env = iob.env


def wait_for(cond, proc, limit=30.0):
    """Poll cond() until true (and the process still running)."""
    end = time.monotonic() + limit
    while time.monotonic() < end and proc.poll() is None:
        if cond(proc):
            return True
        time.sleep(0.02)
    return False


def read_bytes(proc):
    """What the kernel counted as read by the process (/proc/PID/io rchar)."""
    return iob.rchar(proc.pid)


def size_of(path):
    try:
        return os.path.getsize(path)
    except OSError:
        return -1


def interrupt(name, args, cwd, sig, ready, stdin=None):
    """Start args, wait until ready(proc) says the I/O is under way (plus half a
    second), send sig, and return (exit code, stdout, stderr, seconds from
    the signal to the exit)."""
    proc = iob.start(args, cwd=cwd, stdin=stdin if stdin is not None else subprocess.DEVNULL, env=env())
    started = wait_for(ready, proc)
    time.sleep(0.5)
    running = proc.poll() is None
    check(f"{name} still running when signalled", started and running,
          f"ready {started}, running {running}, exit {proc.poll()}")
    out, err, took = iob.stop(proc, sig, 15)
    stop_times.append((name, took))
    check(f"{name} stops in time", took <= STOP_LIMIT, f"took {took:.2f} s after the signal")
    want = 128 + sig
    check(f"{name} exit", proc.returncode == want, f"exit {proc.returncode}, want {want}: {err[-1500:]!r}")
    return proc.returncode, out, err


def check_error_line(name, tool, err, sig):
    lines = [l for l in err.splitlines() if l.startswith(f"{tool}: error: ")]
    check(f"{name} error line", lines == [f"{tool}: error: interrupted by signal {sig}"], err[-1500:])


def check_json(name, path, status_key="status", require_partial=True):
    """The json written beside the legacy output: interrupted, with the
    partial records; returns the records."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        check(f"{name} json", False, str(e))
        return []
    check(f"{name} json interrupted", doc["interrupted"] is True and doc["status"] == "error" and
          "interrupted by signal" in doc.get("error", ""), {k: doc[k] for k in doc if k != "records"})
    statuses = [r.get(status_key) for r in doc["records"] if status_key in r]
    if require_partial:
        check(f"{name} json partial record", "interrupted" in statuses, statuses)
    return doc["records"]


def fresh(tool, sig):
    return tempfile.mkdtemp(prefix=f"{tool}-{signal.Signals(sig).name}-", dir=A.work)


# ---- iobench ------------------------------------------------------------------------

def iobench_case(sig):
    """Random 4 KiB writes, far more than can finish; keep_files = false: the
    data file goes when the run stops.  The file is 4 MiB, not more: its
    dirty pages are thrown away when it is removed, inside the measured stop,
    and 64 MiB of them took 0.2 s on an idle disk and waited on writeback on a
    busy one (a CI stop of 3.3 s); the ops bound alone keeps the run endless."""
    d = fresh("iobench", sig)
    data = os.path.join(d, "data")
    os.mkdir(data)
    prof = os.path.join(d, "long.ini")
    with open(prof, "w") as f:
        f.write("[long]\naccess = rand\nsize = 4M\nblock_size = 4K\nops = 200000000\nphases = write\n"
                "fsync = false\nkeep_files = false\n")
    js = os.path.join(d, "o.json")
    target = os.path.join(data, "iobench.long.dat")
    name = f"iobench {signal.Signals(sig).name}"
    _, out, err = interrupt(name, [os.path.join(A.bin, "iobench"), "run", prof, "--dir", data, "--output",
                                   "human,json=" + js], d, sig, lambda p: size_of(target) > 0)
    check(f"{name} human marked", out.rstrip("\n").endswith("(interrupted)") and "interrupted" in out, out[-800:])
    check_error_line(name, "iobench", err, sig)
    recs = check_json(name, js)
    ops = [r["ops"] for r in recs if r.get("status") == "interrupted"]
    check(f"{name} partial ops", len(ops) == 1 and 0 < ops[0] < 200000000, ops)
    check(f"{name} no temporary file", os.listdir(data) == [], os.listdir(data))
    shutil.rmtree(d, ignore_errors=True)


# ---- iotest -------------------------------------------------------------------------

IOTEST_LINE = re.compile(r"^\S+ (write|ver\.) \d+\.\d mb in 1 kb blocks 0x[0-9a-f]{2} at \d+\.\d\d mb/s in "
                         r"\d+\.\d seconds: \d{8}\.\d{6} f( \(interrupted\))?$")


def iotest_case(sig):
    """SIGINT: 64 write passes of 1 KiB blocks, without fsync, sized from the
    free space (256 MiB when there is room: about half a second a pass).
    SIGTERM: a verify of zeros over a 64 GiB sparse file, 1 KiB at a time."""
    d = fresh("iotest", sig)
    f = os.path.join(d, "f")
    js = os.path.join(d, "o.json")
    name = f"iotest {signal.Signals(sig).name}"
    if sig == signal.SIGINT:
        st = os.statvfs(d)
        mb = min(256, st.f_bavail * st.f_frsize // (4 << 20))
        if mb < 8:
            print(f"note: {name} skipped: only {mb * 4} MiB free in {d}")
            return
        args = ["-W", "-s", str(mb), "-b", "1", "-p", "0" * 64]
        ready = lambda p: size_of(f) > 0
    else:
        with open(f, "wb") as fh:
            fh.truncate(SPARSE)
        args = ["-p", "0", "-er", "-s", str(SPARSE >> 20), "-b", "1"]
        ready = lambda p: read_bytes(p) > 64 << 20
    _, out, err = interrupt(name, [os.path.join(A.bin, "iotest"), *args, "--format", "iotest,json=" + js, "f"], d,
                            sig, ready)
    lines = out.splitlines()
    check(f"{name} whole lines", out.endswith("\n") and all(IOTEST_LINE.match(l) for l in lines), out[-800:])
    check_error_line(name, "iotest", err, sig)
    recs = check_json(name, js, require_partial=False)
    # The signal stops a pass (its line and record marked interrupted), or, on
    # fast storage, it can land between two passes: then every pass printed is
    # whole and unmarked, and the run still ends interrupted (exit and json).
    between = bool(recs) and recs[-1]["status"] == "ok"
    if between:
        check(f"{name} between passes: nothing marked", not any(l.endswith("(interrupted)") for l in lines) and
              len(lines) == len(recs), out[-800:])
    else:
        check(f"{name} last pass marked", lines and lines[-1].endswith(" (interrupted)") and
              not any(l.endswith("(interrupted)") for l in lines[:-1]), out[-800:])
        # the pass the signal stopped: partial; a signal landing as a pass
        # begins leaves it at 0 bytes, and then the pass before it is whole
        check(f"{name} partial record", recs and recs[-1]["status"] == "interrupted" and
              recs[-1]["bytes"] < recs[-1]["size_bytes"] and
              (recs[-1]["bytes"] > 0 or (len(recs) > 1 and recs[-2]["status"] == "ok")), recs[-2:] if recs else recs)
    check(f"{name} no other file", sorted(os.listdir(d)) == ["f", "o.json"], os.listdir(d))
    shutil.rmtree(d, ignore_errors=True)


# ---- io_profile ---------------------------------------------------------------------

def io_profile_case(sig):
    """A billion operations per size, --remove: SIGINT on one file, SIGTERM on
    a tree; every file and directory the run made goes."""
    d = fresh("io_profile", sig)
    data = os.path.join(d, "data")
    os.mkdir(data)
    js = os.path.join(d, "o.json")
    if sig == signal.SIGINT:
        layout, first = ["-s", "-l", "1M"], os.path.join(data, "io_profile_file.out")
        size = 1 << 20
    else:
        layout, first = ["--levels", "2", "--files", "2", "-l", "256K"], os.path.join(data, "dir0", "dir1", "file1")
        size = 256 << 10
    name = f"io_profile {signal.Signals(sig).name}"
    args = [os.path.join(A.bin, "io_profile"), *layout, "-n", "1000000000", "--warmup", "0", "--remove", "-d", data,
            "-o", "io_profile,json=" + js]
    _, out, err = interrupt(name, args, d, sig, lambda p: size_of(first) == size)
    check(f"{name} legacy marked", "Conducting write test..." in out and out.endswith("(interrupted)\n") and
          "Done with write test" not in out, out[-800:])
    # the one row the signal cut short, marked as io_profile(1) documents
    rows = [l for l in out.splitlines() if re.match(r"^\d+,\d+,\d+\.\d{6},\d+\.\d{6},\d+\.\d{6}(,|$)", l)]
    check(f"{name} partial row", len(rows) == 1 and rows[0].endswith(",interrupted"), rows)
    check_error_line(name, "io_profile", err, sig)
    recs = check_json(name, js)
    fl = [r for r in recs if r["kind"] == "io_profile_files"]
    check(f"{name} removal said", len(fl) == 1 and fl[0]["removed"] is True and fl[0]["removed_files"] > 0, fl)
    check(f"{name} no temporary file", os.listdir(data) == [], os.listdir(data))
    shutil.rmtree(d, ignore_errors=True)


# ---- bigread ------------------------------------------------------------------------

def bigread_case(sig, stalled=False):
    """SIGINT: standard input from a pipe that never ends; SIGTERM: a 64 GiB
    sparse file; 1 MiB blocks either way.  stalled: a pipe that goes silent
    after 3 MiB (the read waits in the kernel when the signal comes)."""
    d = fresh("bigread", sig)
    js = os.path.join(d, "o.json")
    name = f"bigread {signal.Signals(sig).name}{' stalled pipe' if stalled else ''}"
    feeder = None
    if stalled:
        feeder = subprocess.Popen(["sh", "-c", "head -c 3145728 /dev/zero; exec sleep 120"], stdout=subprocess.PIPE)
        src, stdin, ready = "-", feeder.stdout, lambda p: read_bytes(p) >= 3 << 20
    elif sig == signal.SIGINT:
        feeder = subprocess.Popen(["cat", "/dev/zero"], stdout=subprocess.PIPE)
        src, stdin, ready = "-", feeder.stdout, lambda p: read_bytes(p) > 64 << 20
    else:
        src, stdin, ready = os.path.join(d, "sparse.dat"), None, lambda p: read_bytes(p) > 64 << 20
        with open(src, "wb") as fh:
            fh.truncate(SPARSE)
    try:
        _, out, err = interrupt(name, [os.path.join(A.bin, "bigread"), src, "1M", "-o", "bigread,json=" + js], d,
                                sig, ready, stdin=stdin)
    finally:
        if feeder:
            feeder.stdout.close()
            feeder.kill()
            feeder.wait()
    blocks = [l for l in out.splitlines() if re.match(r"^\d+ \d+(\.\d+)?(e[+-]\d+)?$", l)]
    check(f"{name} partial blocks", len(blocks) > 0 and out.startswith("BufSize: 1048576 bytes\n") and
          (not stalled or len(blocks) == 3), out[:300])
    # the note on stderr (bigread's notes go there), stdout the legacy lines alone
    check(f"{name} legacy marked", any(l.startswith("Note: interrupted: ") for l in err.splitlines()) and
          "Note:" not in out and out.endswith("\n"), (out[-300:], err[-500:]))
    check_error_line(name, "bigread", err, sig)
    recs = check_json(name, js)
    check(f"{name} json blocks", len([r for r in recs if r["kind"] == "block"]) == len(blocks),
          (len([r for r in recs if r["kind"] == "block"]), len(blocks)))
    want = ["o.json"] + ([] if feeder else ["sparse.dat"])
    check(f"{name} no other file", sorted(os.listdir(d)) == want, os.listdir(d))
    shutil.rmtree(d, ignore_errors=True)


# ---- a closed standard output ---------------------------------------------------

def closed_pipe_case(tool):
    """Standard output is a pipe nobody reads any more (its read end is
    closed before the run starts, as after `| head -c 1`): the first write
    raises SIGPIPE, which must end the run like SIGTERM - exit 141, one error
    line, the json file complete and marked interrupted, the run's own
    scratch files removed - never a silent exit 0 or a death mid-document."""
    d = tempfile.mkdtemp(prefix=f"{tool}-closed-pipe-", dir=A.work)
    data = os.path.join(d, "data")
    os.mkdir(data)
    js = os.path.join(d, "o.json")
    b = os.path.join(A.bin, tool)
    if tool == "iobench":
        prof = os.path.join(d, "p.ini")
        with open(prof, "w") as f:
            f.write("[p]\nsize = 1M\nblock_size = 64K\nphases = write,read\nkeep_files = false\n")
        args = [b, "run", prof, "--dir", data, "--output", "human,json=" + js]
    elif tool == "iotest":
        args = [b, "-s", "1", "-b", "64", "-wr", "--format", "iotest,json=" + js, "f"]
    elif tool == "io_profile":
        args = [b, "-s", "-l", "256K", "-m", "4K", "-M", "8K", "-n", "4", "--warmup", "0", "--remove", "-d", data,
                "-o", "io_profile,json=" + js]
    else:
        src = os.path.join(data, "in.dat")
        with open(src, "wb") as f:
            f.write(b"\0" * (1 << 20))
        args = [b, src, "64K", "-o", "bigread,json=" + js]
    r, w = os.pipe()
    os.close(r)
    try:
        p = subprocess.run(args, cwd=data, stdin=subprocess.DEVNULL, stdout=w, stderr=subprocess.PIPE, text=True,
                           env=env(), timeout=60)
    finally:
        os.close(w)
    name = f"{tool} closed stdout"
    check(f"{name} exit", p.returncode == 128 + signal.SIGPIPE, f"exit {p.returncode}, want 141: {p.stderr[-1500:]!r}")
    check_error_line(name, tool, p.stderr, int(signal.SIGPIPE))
    try:
        with open(js) as f:
            doc = json.load(f)
        ok = doc["interrupted"] is True and doc["status"] == "error" and "signal 13" in doc.get("error", "")
    except (OSError, ValueError) as e:
        ok, doc = False, str(e)
    check(f"{name} json complete and interrupted", ok, doc)
    left = sorted(os.listdir(data))
    want = {"iobench": [], "iotest": ["f"], "io_profile": [], "bigread": ["in.dat"]}[tool]
    # the pipe's reader is gone from the start: the run's watcher of it
    # (runner.c) may stop iotest before it makes f, which it keeps once made
    ok = left == want or (tool == "iotest" and left == [])
    check(f"{name} scratch files removed", ok, f"left {left}, want {want}")
    shutil.rmtree(d, ignore_errors=True)


TOOLS = {"iobench": iobench_case, "iotest": iotest_case, "io_profile": io_profile_case, "bigread": bigread_case}


def main():
    global A
    A = iob.arguments("--bin", "--work", tools=TOOLS)
    A.work = os.path.join(os.path.abspath(A.work), "signals")
    os.makedirs(A.work, exist_ok=True)
    for tool in A.tools or TOOLS:
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            TOOLS[tool](sig)
        if tool == "bigread":
            bigread_case(signal.SIGINT, stalled=True)
        closed_pipe_case(tool)
    for name, took in stop_times:
        print(f"stop time: {name}: {took:.3f} s")
    return iob.summary()


if __name__ == "__main__":
    sys.exit(main())
