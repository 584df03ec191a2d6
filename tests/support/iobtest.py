"""iobtest: the one harness every Python test script shares.

Import it the way the scripts import odirect.py (this directory on the path):

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
    import iobtest as iob  # noqa: E402

A whole script then is its cases and two lines (docs/testing.md, "The Python
harness"):

    if __name__ == "__main__":
        A = iob.arguments("--bin", "--work", case=True)
        sys.exit(iob.run_case(A, globals(), "mine-"))

What it gives:

- arguments: `iob.arguments("--bin", "--plugin-dir", "--work", case=True,
  optional={"--fio": ""})`: each named option is required; those in
  `optional` have a default (or a dict of argparse keywords); `case=True`
  adds the positional CASE, `only=True` a required `--only CASE`, `tools=`
  positional tool names.  The work directory is created.
- checks, one style per script:
  - raising: `iob.expect(cond, msg)` raises AssertionError;
    `iob.run_case(A, globals(), prefix)` runs `case_<CASE>(tmp)` in a fresh
    directory under --work (removed after), prints `ok: CASE` or
    `FAIL CASE: msg`, and returns the exit code;
  - counted: `iob.check(name, cond, detail)` and `iob.soft(cond, msg)` count
    each check and go on; `iob.cases(A.only, {"name": fn, ...})` or
    `iob.summary()` at the end prints each failure as `FAIL ...`, then
    `N passed, N failed`, and returns 1 when any failed;
  - verbose: `iob.report(ok, msg)` prints `ok: msg` or `FAIL: msg` at once and
    counts the same way; `iob.must(ok, msg)` prints it too, and ends the
    test at the first failure (`iob.fail(msg)`: exit 1).
- skips: `iob.skip(reason)` prints `SKIP: reason` and exits 77 (`iob.SKIP`,
  the tests' SKIP_RETURN_CODE); in a case `raise iob.Skip(reason)` does the
  same through run_case or cases; `iob.need_program("strace", "what it
  shows")` raises Skip when a program is not installed, else its path.
- running: `iob.run(argv, timeout=120, ...)` is subprocess.run with the
  output captured as text and a timeout; `iob.tool(A, "iobench", *args,
  rc=0)` runs a built binary in `iob.env()` (this environment without
  IOBENCH_PLUGIN_PATH: a plugin path of the caller's must not change what
  the binary loads) and fails the case when the exit status is not rc;
  `iob.refusal(p, want, what)` checks a refusal of bad input (exit 2, one
  line holding want);
  `iob.start(argv)` starts one with its output piped, `iob.rchar(pid)` what
  it has read so far (wait for that before signalling it), `iob.stop(proc, sig,
  timeout)` signals it and waits (killing it after timeout), `iob.wait`
  waits, `iob.interrupted(name, argv, limit)` checks a run stopped by
  SIGINT; `iob.vclock_env(env, lib)` adds the virtual clock
  (tests/bigread/vclock.c).
- files: `iob.tempdir(parent, prefix)`, `iob.data_dir(parent, {"r.dat":
  size})` (random files), `with iob.scratch(parent, prefix) as d:` (removed
  at the end of the block), `iob.case_dir(work, case)` (work/case, emptied)
  and `iob.in_case_dir(o, fn)` (fn run there, the directory kept only on
  failure), `iob.write(path, text)`, `iob.read_json(path, optional=True)`
  (None when there is no such file), `iob.read_csv(path)` (rows as lists),
  `iob.records(doc, kind)`, `iob.snapshot(top)` (every entry under top, to
  compare before and after), `iob.png_pixels(path)` (a screenshot's pixels),
  `with iob.held_in_cache(path):` (the file's pages read in and kept mapped,
  so a drop_caches elsewhere cannot take them until the block ends).
"""
import argparse
import contextlib
import csv
import json
import mmap
import os
import signal
import shutil
import subprocess
import sys
import struct
import tempfile
import time
import traceback
import zlib

SKIP = 77

# Line by line, not in blocks: when ctest kills a test at its TIMEOUT, what it
# printed up to then is in the log (a pipe is otherwise block-buffered, and a
# killed test showed nothing at all).
sys.stdout.reconfigure(line_buffering=True)

failures = []
passed = 0


class Skip(Exception):
    """Raised by a case that cannot run here; its text is the reason."""


# ---- arguments ----

def arguments(*required, optional=None, case=False, only=False, tools=None, argv=None):
    """Parse the test's command line: each option in `required` must be
    given, those in `optional` (option: default, or option: a dict of
    argparse keywords) may be; `case` adds the
    positional CASE, `only` a required --only CASE, `tools` (the names
    allowed) positional names of tools to test, none meaning all.  Creates
    --work when there is one."""
    ap = argparse.ArgumentParser()
    for o in required:
        ap.add_argument(o, required=True)
    for o, default in (optional or {}).items():
        if isinstance(default, dict):  # argparse's own keywords
            ap.add_argument(o, **default)
        else:
            ap.add_argument(o, default=default)
    if only:
        ap.add_argument("--only", required=True)
    if case:
        ap.add_argument("case")
    if tools is not None:
        ap.add_argument("tools", nargs="*", default=[])
    a = ap.parse_args(argv)
    for name in getattr(a, "tools", None) or []:
        if name not in tools:
            ap.error(f"unknown tool {name!r} (one of {', '.join(tools)})")
    if getattr(a, "work", None):
        os.makedirs(a.work, exist_ok=True)
    return a


# ---- checks ----

def check(name, cond, detail=""):
    """Count one check; a failed one is printed by summary().  Returns cond."""
    global passed
    if cond:
        passed += 1
    else:
        failures.append(f"{name}: {detail}")
    return cond


def report(ok, msg):
    """Count one check and print it at once (`ok: msg` / `FAIL: msg`)."""
    global passed
    print(("ok: " if ok else "FAIL: ") + msg)
    if ok:
        passed += 1
    else:
        failures.append(msg)
    return ok


def soft(cond, msg, width=800):
    """Count one check; a failed one (its message cut to `width`) is
    printed by summary(), and the case goes on.  Returns cond."""
    global passed
    if cond:
        passed += 1
    else:
        failures.append(str(msg)[:width])
    return cond


def fail(msg):
    """Print `FAIL: msg` and end the test now, exit 1."""
    print("FAIL: " + msg)
    sys.stdout.flush()
    sys.exit(1)


def must(ok, msg):
    """Print `ok: msg`, or fail(msg) when not ok."""
    if not ok:
        fail(msg)
    print("ok: " + msg)


def expect(cond, msg):
    """Fail the case now (AssertionError) unless cond."""
    if not cond:
        raise AssertionError(msg)


def summary(skipped=0, width=None):
    """Print the failures (each cut to `width` characters when given) and
    the closing count; 1 when any check failed."""
    for f in failures:
        print("FAIL", f[:width] if width else f)
    tail = f", {skipped} skipped" if skipped else ""
    print(f"{passed} passed, {len(failures)} failed{tail}")
    return 1 if failures else 0


def skip(reason, counted=False):
    """Print why this test cannot run here and exit SKIP (77).  With counted,
    a closing `0 passed, 0 failed, 1 skipped` line follows."""
    print(f"SKIP: {reason}")
    if counted:
        print("0 passed, 0 failed, 1 skipped")
    sys.stdout.flush()
    sys.exit(SKIP)


def need_program(name, what=""):
    """The path of program name on PATH; when it is not installed, Skip with
    `NAME is not installed: WHAT` (without what, just the first part)."""
    path = shutil.which(name)
    if not path:
        raise Skip(f"{name} is not installed" + (f": {what}" if what else ""))
    return path


def cases(name, table):
    """Run table[name]() (counted checks), then the summary; the exit code."""
    fn = table.get(name)
    if fn is None:
        print(f"unknown case {name}", file=sys.stderr)
        return 2
    try:
        fn()
    except Skip as e:
        print(f"SKIP: {e}")
        return SKIP
    return summary()


def run_case(a, scope, prefix="", counted=False, cleanup=None, realpath=False):
    """Run scope["case_" + a.case](tmp) (raising checks) in a new directory
    under a.work (its real path with realpath), removed afterwards
    (`cleanup(tmp)` first when given).  A case returning SKIP or raising
    Skip skips; an AssertionError fails it with its message, and so does
    any failed soft() or check() (then the summary is printed).  With
    counted, closing count lines are printed too."""
    fn = scope.get("case_" + a.case)
    if fn is None:
        print(f"unknown case {a.case}", file=sys.stderr)
        return 2
    os.makedirs(a.work, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=prefix + a.case + "-", dir=a.work)
    if realpath:
        tmp = os.path.realpath(tmp)
    try:
        rc = fn(tmp) or 0
    except Skip as e:
        print(f"SKIP: {e}")
        return SKIP
    except AssertionError as e:
        traceback.print_exc()
        print(f"FAIL {a.case}: {e}")
        if counted:
            print("0 passed, 1 failed")
        return 1
    finally:
        if cleanup:
            cleanup(tmp)
        shutil.rmtree(tmp, ignore_errors=True)
    if rc == 0 and failures:
        return summary()
    if rc == 0:
        print(f"ok: {a.case}")
        if counted:
            print("1 passed, 0 failed")
    return rc


# ---- running binaries ----

def env(extra=None, drop=("IOBENCH_PLUGIN_PATH",), **more):
    """A copy of this environment without the variables in `drop`, updated
    with `extra` and the keyword arguments."""
    e = dict(os.environ)
    for k in drop:
        e.pop(k, None)
    if extra:
        e.update(extra)
    e.update(more)
    return e


clean_env = env


def vclock_env(e, lib, cpu="none"):
    """Put the virtual clock (LD_PRELOAD of `lib`, no TSC, the CPU clock
    `cpu` moving with it) into the environment `e`; the sanitizer runtime
    is told the clock comes first.  Returns e."""
    e.update(LD_PRELOAD=lib, IOBENCH_NO_TSC="1", IOBTEST_VCLOCK_CPU=cpu)
    e["ASAN_OPTIONS"] = e.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0"
    return e


def run(argv, timeout=120, **kw):
    """subprocess.run with the output captured as text and a timeout."""
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, **kw)


def start(argv, **kw):
    """subprocess.Popen with stdout and stderr piped, as text."""
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def wait(proc, timeout):
    """Wait for proc's end, killing it after timeout seconds: (stdout,
    stderr, True when it had to be killed)."""
    try:
        out, err = proc.communicate(timeout=timeout)
        return out, err, False
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        return out, err, True


def stop(proc, sig, timeout=60):
    """Send sig to proc, then wait(proc, timeout): (stdout, stderr, seconds
    from the signal to the end)."""
    t0 = time.monotonic()
    proc.send_signal(sig)
    out, err, _ = wait(proc, timeout)
    return out, err, time.monotonic() - t0


def rchar(pid):
    """Bytes the process read so far (/proc/PID/io rchar; 0 where it cannot
    be read): what a test waits for before signalling a run, never a fixed
    sleep (docs/testing.md)."""
    try:
        with open(f"/proc/{pid}/io") as f:
            for line in f:
                if line.startswith("rchar:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def interrupted(name, argv, limit, after=1.5, sig=signal.SIGINT, **kw):
    """Start argv (iob.start's keywords), send sig `after` seconds later;
    check that it was still running then and that it exited 128 + sig
    within `limit` seconds of the signal.  True when it was running and
    exited so (then what it wrote can be read)."""
    proc = start(argv, **kw)
    time.sleep(after)
    running = proc.poll() is None
    check(f"{name}: the run was still going", running, "it ended before the signal")
    out, err, took = stop(proc, sig)
    print(f"{name}: stopped in {took:.3f} s")
    check(f"{name}: exit {128 + sig}", proc.returncode == 128 + sig, f"{proc.returncode}: {err}")
    check(f"{name}: stopped within {limit} s", took < limit, f"{took:.1f} s")
    return running and proc.returncode == 128 + sig


def refusal(p, want, what):
    """The one-line refusal of bad input (docs/security.md) in the finished
    run p: exit 2 and one non-empty line on stderr holding want (each of
    want when it is a tuple); AssertionError naming `what` otherwise.
    Returns the line."""
    wants = want if isinstance(want, tuple) else (want,)
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    expect(p.returncode == 2 and len(lines) == 1 and all(w in lines[0] for w in wants),
           f"{what}: exit {p.returncode}, want one line with {want!r}: {lines}")
    return lines[0]


def binary(a, name):
    """The path of the built binary `name` (a.bin is the binaries' directory)."""
    return os.path.join(a.bin, name)


def tool(a, name, *args, rc=None, env=None, timeout=120, tail=3000, **kw):
    """Run the built binary `name` with args in env(env) (so without
    IOBENCH_PLUGIN_PATH); with rc, a different exit status fails the case
    (AssertionError with the last `tail` characters of each output)."""
    p = run([binary(a, name), *args], timeout=timeout, env=clean_env(env), **kw)
    if rc is not None and p.returncode != rc:
        raise AssertionError(f"{name} {' '.join(args)}: exit {p.returncode}, want {rc}\n"
                             f"stdout: {p.stdout[-tail:]}\nstderr: {p.stderr[-tail:]}")
    return p


# ---- files ----

def tempdir(parent, prefix=""):
    """A new directory under parent (which is created if needed)."""
    os.makedirs(parent, exist_ok=True)
    return tempfile.mkdtemp(prefix=prefix, dir=parent)


def case_dir(work, case):
    """work/case, emptied (a previous run's files removed) and created."""
    d = os.path.join(work, case)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def in_case_dir(o, fn):
    """o.work becomes o.work/o.case, emptied; fn(o) runs; the directory is
    removed unless a check failed (then it stays, to be looked at).
    Returns summary()."""
    o.work = case_dir(o.work, o.case)
    fn(o)
    if not failures:
        shutil.rmtree(o.work, ignore_errors=True)
    return summary()


@contextlib.contextmanager
def scratch(parent, prefix=""):
    """with iob.scratch(A.work, "name-") as d: a new directory, removed with
    all it holds when the block ends, however it ends."""
    d = tempdir(parent, prefix)
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


@contextlib.contextmanager
def held_in_cache(path):
    """with iob.held_in_cache(path): every page of the file read into the
    page cache and kept there until the block ends: mapped and touched, so
    another test (or helper) writing drop_caches meanwhile leaves them alone,
    however long the machine takes to get to the read that needs them."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        m = mmap.mmap(f.fileno(), size, prot=mmap.PROT_READ) if size else None
    try:
        for off in range(0, size, mmap.PAGESIZE):
            m[off]
        yield
    finally:
        if m is not None:
            m.close()


def data_dir(parent, files):
    """A new directory under parent holding files of random bytes:
    `files` maps each name to its size."""
    d = tempdir(parent)
    for name, size in files.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(os.urandom(size))
    return d


def snapshot(top):
    """Every entry under top: its mode, size, mtime and first 64 bytes, by
    path relative to top (to show that a run changed nothing there)."""
    out = {}
    for root, dirs, files in os.walk(top):
        for n in dirs + files:
            p = os.path.join(root, n)
            st = os.lstat(p)
            head = b""
            if os.path.isfile(p) and not os.path.islink(p):
                with open(p, "rb") as f:
                    head = f.read(64)
            out[os.path.relpath(p, top)] = (st.st_mode, st.st_size, st.st_mtime_ns, head)
    return out


def png_pixels(path):
    """(width, height, bytes a pixel, rows of pixel bytes) of an 8-bit RGB
    or RGBA PNG (what rsvg-convert and Chromium write); AssertionError for
    anything else."""
    with open(path, "rb") as f:
        data = f.read()
    expect(data[:8] == b"\x89PNG\r\n\x1a\n", path + " is not a PNG")
    pos, idat, w, h, bpp = 8, b"", 0, 0, 4
    while pos < len(data):
        n, typ = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if typ == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            expect(depth == 8 and ctype in (2, 6) and not interlace,
                   "unexpected PNG format depth %d type %d interlace %d" % (depth, ctype, interlace))
            bpp = 4 if ctype == 6 else 3
        elif typ == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):  # undo the row's filter (PNG spec, section 9)
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def write(path, text):
    """Write text to path (created or truncated); returns path."""
    with open(path, "w") as f:
        f.write(text)
    return path


def read_json(path, optional=False):
    """The JSON document in path; with optional, None when there is no
    such file."""
    if optional and not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def read_csv(path):
    """The rows of the CSV file in path, as lists of strings."""
    with open(path, newline="") as f:
        return list(csv.reader(f))


def records(doc, kind=None):
    """The records of an iobench JSON result (of one kind when given)."""
    if not doc:
        return []
    return [r for r in doc["records"] if kind is None or r.get("kind") == kind]
