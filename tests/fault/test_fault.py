#!/usr/bin/env python3
"""Fault injection: run the binaries on the test-only "fault" backend (which
wraps posix) under each injected failure, and check the guarantees: a one-line
error naming the operation, file, offset and errno text; the documented exit
code; output already printed stays well formed (one JSON document with an
"error" member; whole CSV rows; whole legacy lines, a failed pass never shown
as a whole one).  iobench runs with json and csv; iotest, io_profile and
bigread with their legacy output, json and csv.  Prints 'N passed, N failed'.

Usage: test_fault.py --bin DIR --fault-dir DIR --plugin-dir DIR --work DIR [TOOL...]
(TOOL: iobench iotest io_profile bigread; all when none is named)."""
import csv
import io
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import iobtest as iob  # noqa: E402
from iobtest import check  # noqa: E402

A = None


def fault_options(fault, wrap="posix"):
    """The fault backend's option text: the backend to wrap, then the fault."""
    return f"wrap={os.path.join(A.plugin_dir, f'iob-backend-{wrap}.so')},{fault}"


def run(tool, args, fault, tmp, stdin=None, wrap="posix"):
    """Run a legacy tool on the fault backend, configured through
    --backend-options (iobench takes backend_options in its profile)."""
    opts = ["--backend-options", fault_options(fault, wrap)] if tool != "iobench" else []
    return iob.run([iob.binary(A, tool), *opts, *args], env=iob.env(IOBENCH_PLUGIN_PATH=A.fault_dir), cwd=tmp, input=stdin)


def iobench_cases(tmp):
    cases = [
        # fault, exit, regex for the stderr line, phases with a record and their statuses
        ("op=write,err=EIO,after_calls=3", 1, r"write of 65536 bytes at offset 196608 of .*iobench\.f\.dat failed: Input/output error",
         [("write", "error")]),
        ("op=write,err=ENOSPC,after_bytes=524288", 1, r"write of 65536 bytes at offset 524288 of .* failed: No space left on device",
         [("write", "error")]),
        ("op=write,err=short,after_calls=2", 1, r"short write \(32768 of 65536 bytes\) at offset 131072 of .*iobench\.f\.dat",
         [("write", "error")]),
        ("op=read,err=EIO,after_calls=5", 1, r"read of 65536 bytes at offset 327680 of .* failed: Input/output error",
         [("write", "ok"), ("read", "error")]),
        ("op=read,err=short,after_calls=1,persist=0", 1, r"short read \(32768 of 65536 bytes\) at offset 65536 of .*before its end",
         [("write", "ok"), ("read", "error")]),
        ("op=sync,err=EIO", 1, r"sync of .*iobench\.f\.dat failed: Input/output error", [("write", "error")]),
        # a phase that fails before its first I/O completes leaves no record
        ("op=open,err=EIO,after_calls=1", 1, r"open of .*iobench\.f\.dat failed: Input/output error",
         [("write", "ok")]),
        ("op=write,err=EIO,after_calls=0,persist=0", 1, r"write of 65536 bytes at offset 0 of", []),
        # a backend that claims more than it was asked for is a backend error, never a memory error
        ("op=read,err=over,after_calls=2", 1,
         r"backend fault broke its contract: read of 65536 bytes at offset 131072 of .*iobench\.f\.dat returned 65537",
         [("write", "ok"), ("read", "error")]),
        ("op=write,err=over,after_calls=1", 1,
         r"backend fault broke its contract: write of 65536 bytes at offset 65536 of .*iobench\.f\.dat returned 65537",
         [("write", "error")]),
    ]
    for fault, code, pattern, phases in cases:
        for out in ("json", "csv"):
            d = tempfile.mkdtemp(dir=tmp)
            with open(os.path.join(d, "f.ini"), "w") as f:
                f.write("[f]\nbackend = fault\nsize = 1M\nblock_size = 64K\nphases = write,read,verify\n"
                        f"backend_options = {fault_options(fault)}\n")
            p = run("iobench", ["run", "f.ini", "--dir", d, "--output", out], fault, d)
            name = f"iobench [{fault}] {out}"
            # one error line; the run's notes come before it as warnings (no
            # person sees the json's or the csv's), and csv names what it left out
            lines = [l for l in p.stderr.strip().splitlines() if not l.startswith("iobench: warning: ") and
                     not l.startswith("iobench: csv: warning: ")]
            check(name + " exit", p.returncode == code, f"exit {p.returncode}, want {code}: {p.stderr}")
            check(name + " one line", len(lines) == 1 and re.search(pattern, lines[0]) is not None,
                  f"stderr {p.stderr!r} !~ {pattern}")
            if out == "json":
                try:
                    doc = json.loads(p.stdout)
                    ok = doc["status"] == "error" and re.search(pattern, doc["error"]) is not None
                    got = [(r.get("phase"), r.get("status")) for r in doc["records"]]
                except ValueError as e:
                    ok, doc, got = False, str(e), None
                check(name + " json", ok, f"document {doc!r}")
                check(name + " json records", got == phases, f"records {got}, want {phases}")
            else:
                rows = list(csv.reader(p.stdout.splitlines()))
                if phases:  # a header and one whole row per record
                    whole = len(rows) >= 2 and all(len(r) == len(rows[0]) for r in rows) and p.stdout.endswith("\n")
                else:  # no record: csv writes nothing at all (no header)
                    whole = p.stdout == ""
                check(name + " csv", whole, p.stdout)
                got = [(r.get("phase"), r.get("status")) for r in (dict(zip(rows[0], r)) for r in rows[1:])] \
                    if rows else []
                check(name + " csv rows", got == phases, f"rows {got}, want {phases}")
            check(name + " no temp file", os.listdir(d) == ["f.ini"], f"left behind: {os.listdir(d)}")


# ---- the legacy tools: shared checks ----------------------------------------------

OUTPUTS = ("legacy", "json", "csv")


def check_stderr(name, tool, stderr, pattern):
    """Exactly one error line, matching pattern; every other line a warning
    (or io_profile's line saying where its files are, or bigread's notes)."""
    lines = stderr.splitlines()
    errors = [l for l in lines if l.startswith(f"{tool}: error: ")]
    others = [l for l in lines if l not in errors and not l.startswith(f"{tool}: warning: ")
              and not (tool == "io_profile" and l.startswith("io_profile: Test file"))
              and not (tool == "bigread" and l.startswith("Note: "))]
    check(name + " one error line", len(errors) == 1 and re.search(pattern, errors[0]) is not None,
          f"stderr {stderr!r} !~ {pattern}")
    check(name + " nothing else on stderr", not others, f"unexpected stderr lines {others!r}")


def check_json(name, stdout, pattern):
    """One document, status error with the message; returns it (or None)."""
    try:
        doc = json.loads(stdout)
    except ValueError as e:
        check(name + " json", False, f"{e}: {stdout[-2000:]!r}")
        return None
    check(name + " json", doc.get("status") == "error" and doc.get("interrupted") is False and
          re.search(pattern, doc.get("error", "")) is not None, f"document tail {stdout[-600:]!r}")
    return doc


def csv_fmt(out, fmt):
    """The output option of a legacy tool: csv goes to a file in a directory
    of its own (one file per table, docs/outputs.md), the others to stdout.
    Returns (args, csv directory or None)."""
    if out != "csv":
        return fmt, None
    d = tempfile.mkdtemp(dir=A.work)
    return [fmt[0], "csv=" + os.path.join(d, "o.csv")], d


def check_csv(name, csvdir):
    """Every file the csv output wrote (o.csv and o.<kind>.csv) is one table:
    one header, the same number of cells on every row.  Returns the rows of
    all of them as dicts."""
    rows = []
    for fn in sorted(os.listdir(csvdir)):
        text = open(os.path.join(csvdir, fn), newline="").read()
        table = list(csv.reader(io.StringIO(text)))
        whole = all(len(r) == len(table[0]) for r in table)
        check(name + " csv " + fn, (not text or text.endswith("\n")) and whole, text[-2000:])
        rows += [dict(zip(table[0], r)) for r in table[1:]]
    return rows


def check_lines(name, stdout, patterns):
    """Legacy output: whole lines, each matching one of the patterns."""
    lines = stdout.split("\n")
    bad = [l for l in lines[:-1] if not any(re.match(p, l) for p in patterns)]
    check(name + " whole lines", (not stdout or stdout.endswith("\n")) and not bad,
          f"bad lines {bad!r} in {stdout[-2000:]!r}")
    return lines[:-1]


def run_tool(tool, args, fault, d, out):
    p = run(tool, args, fault, d)
    name = f"{tool} [{fault}] {out}"
    return p, name


# ---- iotest ------------------------------------------------------------------------

IOTEST_LINE = (r"^\S+ (write|read|ver\.) \d+\.\d mb in 64 kb blocks 0x[0-9a-f]{2} at \d+\.\d\d mb/s in "
               r"\d+\.\d seconds: \d{8}\.\d{6} f( \((interrupted|failed)\))?$")


def iotest_cases(tmp):
    # fault, extra args, passes printed ("ok"/"failed"), regex for the error
    cases = [
        ("op=write,err=EIO,after_calls=3", ["-w"], ["failed"],
         r"write pass 1: write of 65536 bytes at offset 196608 of \./f failed: Input/output error$"),
        ("op=write,err=ENOSPC,after_bytes=524288", ["-w"], ["failed"],
         r"write pass 1: write of 65536 bytes at offset 524288 of \./f failed: No space left on device$"),
        ("op=write,err=short,after_calls=2", ["-w"], ["failed"],
         r"write pass 1: short write \(32768 of 65536 bytes\) at offset 131072 of \./f: Input/output error"),
        ("op=write,err=EIO,after_calls=0,persist=0", ["-w"], [],
         r"write pass 1: write of 65536 bytes at offset 0 of \./f failed: Input/output error$"),
        ("op=sync,err=EIO", ["-w"], ["failed"], r"write pass 1: sync of \./f failed: Input/output error$"),
        ("op=close,err=EIO", ["-w"], ["failed"], r"write pass 1: close of \./f failed: Input/output error$"),
        ("op=read,err=EIO,after_calls=5", ["-wr"], ["ok", "failed"],
         r"read pass 2: read of 65536 bytes at offset 327680 of \./f failed: Input/output error$"),
        ("op=read,err=short,after_calls=1,persist=0", ["-we"], ["ok", "failed"],
         r"verify pass 2: short read \(32768 of 65536 bytes\) at offset 65536 of \./f, before its end at "
         r"1048576 bytes: Input/output error"),
        ("op=open,err=EIO,after_calls=1", ["-wr"], ["ok"],
         r"read pass 2: open of \./f failed: Input/output error$"),
    ]
    for fault, extra, passes, pattern in cases:
        for out in OUTPUTS:
            d = tempfile.mkdtemp(dir=tmp)
            fmt, csvdir = csv_fmt(out, [] if out == "legacy" else ["--format", out])
            p, name = run_tool("iotest", ["--backend", "fault", "-s", "1", "-b", "64", *extra, *fmt, "f"], fault,
                               d, out)
            check(name + " exit", p.returncode == 1, f"exit {p.returncode}, want 1: {p.stderr}")
            check_stderr(name, "iotest", p.stderr, r"^iotest: error: " + pattern)
            if out == "legacy":
                lines = check_lines(name, p.stdout, [IOTEST_LINE])
                got = ["failed" if l.endswith(" (failed)") else "ok" for l in lines]
                whole = [l for l in lines if not l.endswith(" (failed)")]
                check(name + " failed pass marked", got == passes and
                      all(" 1.0 mb in " in l for l in whole), f"passes {got}, want {passes}: {p.stdout!r}")
            elif out == "json":
                doc = check_json(name, p.stdout, pattern)
                got = [r["status"] for r in doc["records"]] if doc else None
                want = [s if s == "ok" else "error" for s in passes]
                check(name + " records", got == want, f"statuses {got}, want {want}")
            else:
                rows = check_csv(name, csvdir)
                got = [r.get("status") for r in rows if "note" not in r]  # o.note.csv: the notes
                want = [s if s == "ok" else "error" for s in passes]
                check(name + " rows", got == want, f"statuses {got}, want {want}")


def iotest_mmap_cases(tmp):
    """The mmap backend with its file truncated under the mapping (the fault
    backend truncates it, as another process would, then forwards the call):
    the access raises SIGBUS, which mmap must turn into an I/O error - exit 1,
    the failed pass marked, complete JSON - never a crash."""
    cases = [
        ("op=read,err=truncate,after_calls=3", ["-wr"], ["ok", "failed"],
         r"read pass 2: read of 65536 bytes at offset 196608 of \./f failed: Input/output error$"),
        ("op=write,err=truncate,after_calls=3", ["-w"], ["failed"],
         r"write pass 1: write of 65536 bytes at offset 196608 of \./f failed: Input/output error$"),
    ]
    for fault, extra, passes, pattern in cases:
        d = tempfile.mkdtemp(dir=tmp)
        js = os.path.join(d, "o.json")
        p = run("iotest", ["--backend", "fault", "-s", "1", "-b", "64", *extra, "--format", "iotest,json=" + js, "f"],
                fault, d, wrap="mmap")
        name = f"iotest mmap [{fault}]"
        check(name + " exit", p.returncode == 1, f"exit {p.returncode}, want 1: {p.stderr}")
        check_stderr(name, "iotest", p.stderr, r"^iotest: error: " + pattern)
        lines = check_lines(name, p.stdout, [IOTEST_LINE])
        got = ["failed" if l.endswith(" (failed)") else "ok" for l in lines]
        check(name + " failed pass marked", got == passes, f"passes {got}, want {passes}: {p.stdout!r}")
        with open(js) as f:
            doc = check_json(name, f.read(), pattern)
        got = [r["status"] for r in doc["records"]] if doc else None
        want = [s if s == "ok" else "error" for s in passes]
        check(name + " records", got == want, f"statuses {got}, want {want}")


# ---- io_profile ----------------------------------------------------------------------

IOP_LINES = [r"^$", r"^IO profile test parameters$", r"^-+$", r"^Date: .+$", r"^Location: \S+:/.*$",
             r"^File mode: .+$", r"^Synch mode: .+$", r"^File size: \d+ bytes$",
             r"^Reads \(Writes\) from \d+ to \d+ bytes$", r"^Repetitions per read \(write\) size: \d+$",
             r"^Conducting (write|read) test\.\.\.$", r"^Done with (write|read) test$",
             r"^I/O size \[bytes\], operations, time \[s\], throughput \[bytes/s\], I/O rate \[1/s\]$",
             r"^\d+,\d+,\d+\.\d{6},\d+\.\d{6},\d+\.\d{6}$"]
IOP_ROW = re.compile(r"^(\d+),(\d+),")


def iop_legacy_tests(lines):
    """{test: (rows, done)} from the legacy lines."""
    tests, cur = {}, None
    for l in lines:
        m = re.match(r"^Conducting (\w+) test", l)
        if m:
            cur = m.group(1)
            tests[cur] = [[], False]
        elif cur and IOP_ROW.match(l):
            tests[cur][0].append(int(IOP_ROW.match(l).group(1)))
        elif cur and l == f"Done with {cur} test":
            tests[cur][1] = True
    return {k: (v[0], v[1]) for k, v in tests.items()}


def iop_phase_records(tests, sizes):
    """(job, block size, status) of the phase records a run with these legacy
    tests gives: each size done is ok; an unfinished test ends with the size
    that failed."""
    out = []
    for test, (rows, done) in tests.items():
        out += [(f"io_profile-{test}", size, "ok") for size in rows]
        if not done:
            out.append((f"io_profile-{test}", sizes[len(rows)], "error"))
    return out


def io_profile_cases(tmp):
    sizes = [4096, 8192, 16384, 32768, 65536]
    single = ["-s", "-l", "1M"]
    tree = ["--levels", "1", "--files", "3", "-l", "1M"]
    F = r"\./io_profile_file\.out"
    # fault, layout args, {test: (rows, done)} of the legacy output, files
    # ("whole", "incomplete" or None: no file left), regex for the error
    cases = [
        ("op=write,err=EIO,after_calls=30", single, {"write": (sizes[:1], False)}, "whole",
         rf"job io_profile-write: write of 8192 bytes at offset \d+ of {F} failed: Input/output error$"),
        ("op=write,err=short,after_calls=30", single, {"write": (sizes[:1], False)}, "whole",
         rf"job io_profile-write: short write \(4096 of 8192 bytes\) at offset \d+ of {F}: Input/output error"),
        ("op=write,err=ENOSPC,after_calls=0", single, {}, None,
         rf"job io_profile-create: write of 1048576 bytes at offset 0 of {F} failed: No space left on device$"),
        ("op=write,err=ENOSPC,after_calls=1", tree, {}, "incomplete",
         r"job io_profile-create: write of 1048576 bytes at offset 0 of \./dir0/file1 failed: No space left on "
         r"device$"),
        ("op=sync,err=EIO", single, {}, "incomplete",
         rf"job io_profile-create: sync of {F} failed: Input/output error$"),
        ("op=read,err=EIO,after_calls=60", single, {"write": (sizes, True), "read": (sizes[:2], False)}, "whole",
         rf"job io_profile-read: read of 16384 bytes at offset \d+ of {F} failed: Input/output error$"),
        ("op=read,err=short,after_calls=60,persist=0", single,
         {"write": (sizes, True), "read": (sizes[:2], False)}, "whole",
         rf"job io_profile-read: short read \(8192 of 16384 bytes\) at offset \d+ of {F}, inside its size of "
         r"1048576 bytes: Input/output error"),
        ("op=open,err=EIO,after_calls=5", single, {}, "whole",
         rf"job io_profile-warmup: open of {F} failed: Input/output error$"),
        ("op=close,err=EIO,after_calls=40", single, {"write": (sizes[:1], False)}, "whole",
         rf"job io_profile-write: close of {F} failed: Input/output error$"),
    ]
    for fault, layout, tests, files, pattern in cases:
        for out in OUTPUTS:
            d = tempfile.mkdtemp(dir=tmp)
            fmt, csvdir = csv_fmt(out, [] if out == "legacy" else ["-o", out])
            args = ["--backend", "fault", *layout, "-m", "4K", "-M", "64K", "-n", "20", "--warmup", "10", *fmt]
            p, name = run_tool("io_profile", args, fault, d, out)
            check(name + " exit", p.returncode == 1, f"exit {p.returncode}, want 1: {p.stderr}")
            check_stderr(name, "io_profile", p.stderr, r"^io_profile: error: " + pattern)
            left = sorted(os.listdir(d))
            check(name + " files", (files is None) == (left == []), f"left {left}, want {files}")
            if out == "legacy":
                lines = check_lines(name, p.stdout, IOP_LINES)
                got = iop_legacy_tests(lines)
                check(name + " tests", got == tests, f"tests {got}, want {tests}: {p.stdout!r}")
                # the legacy layout ends at "Done with read test": the files line is on stderr
                check(name + " no files line on stdout", not any(l.startswith("Test file") for l in lines), lines)
                said = [l for l in p.stderr.splitlines() if l.startswith("io_profile: Test file")]
                want = [] if files is None else ["incomplete" if files == "incomplete" else "whole"]
                check(name + " files line", [("incomplete" if "incomplete" in l else "whole") for l in said] == want,
                      f"files line {said}, want {want}")
            elif out == "json":
                doc = check_json(name, p.stdout, pattern)
                recs = doc["records"] if doc else []
                got = [(r.get("job"), r.get("block_size_bytes"), r.get("status")) for r in recs
                       if r["kind"] == "phase"]
                want = iop_phase_records(tests, sizes)
                check(name + " records", got == want, f"phase records {got}, want {want}")
                fl = [r for r in recs if r["kind"] == "io_profile_files"]
                check(name + " files record", (files is None and not fl) or
                      (len(fl) == 1 and fl[0].get("complete") == (files == "whole")), fl)
            else:
                rows = check_csv(name, csvdir)
                got = [(r.get("job"), int(r["block_size_bytes"]), r.get("status")) for r in rows
                       if "block_size_bytes" in r and "status" in r]
                want = iop_phase_records(tests, sizes)
                check(name + " rows", got == want, f"phase rows {got}, want {want}")
                fl = [r for r in rows if "removed_files" in r]
                check(name + " files row", (files is None and not fl) or
                      (len(fl) == 1 and fl[0].get("complete") == ("true" if files == "whole" else "false")), fl)


# ---- bigread -------------------------------------------------------------------------

BIGREAD_LINES = [r"^BufSize: 65536 bytes$", r"^\d+ \d+(\.\d+)?(e[+-]\d+)?$",
                 r"^Speed: n=\d+ min=\S+ max=\S+ mean=\S+ median=\S+ rms=\S+ \((all|robust)\)$",
                 r"^Cliff: .*$"]


def bigread_cases(tmp):
    data = os.path.join(tmp, "in.dat")
    with open(data, "wb") as f:
        f.write(os.urandom(4 << 20))
    IN = r"\S*in\.dat"
    # fault, blocks reported (None: any), regex for the error
    cases = [
        ("op=read,err=EIO,after_calls=5", 5,
         rf"read of 65536 bytes at offset 327680 of {IN} failed: Input/output error$"),
        ("op=read,err=EIO,after_bytes=1048576", 16,
         rf"read of 65536 bytes at offset 1048576 of {IN} failed: Input/output error$"),
        ("op=read,err=short,after_calls=5,persist=0", 6,
         rf"short read \(32768 of 65536 bytes\) at offset 327680 of {IN}, before its end at 4194304 bytes: "
         r"Input/output error"),
        ("op=read,err=EIO,after_calls=0", 0, rf"read of 65536 bytes at offset 0 of {IN} failed: Input/output error$"),
        ("op=open,err=EIO,after_calls=0", 0, rf"open of {IN} failed: Input/output error$"),
        ("op=close,err=EIO,after_calls=0", 64, rf"close of {IN} failed: Input/output error$"),
    ]
    for fault, blocks, pattern in cases:
        for out in OUTPUTS:
            fmt, csvdir = csv_fmt(out, [] if out == "legacy" else ["-o", out])
            p, name = run_tool("bigread", ["-b", "fault", data, "64K", *fmt], fault, tmp, out)
            check(name + " exit", p.returncode == 1, f"exit {p.returncode}, want 1: {p.stderr}")
            check_stderr(name, "bigread", p.stderr, r"^bigread: error: " + pattern)
            if out == "legacy":
                lines = check_lines(name, p.stdout, BIGREAD_LINES)
                got = len([l for l in lines if re.match(r"^\d+ ", l)])
                noted = any(l.startswith("Note: the read failed") for l in p.stderr.splitlines())
                check(name + " blocks", got == blocks and noted == (blocks > 0),
                      f"{got} blocks (want {blocks}), failure noted {noted}: {p.stdout!r}")
            elif out == "json":
                doc = check_json(name, p.stdout, pattern)
                recs = doc["records"] if doc else []
                got = len([r for r in recs if r["kind"] == "block"])
                summ = [r["status"] for r in recs if r["kind"] == "phase"]
                check(name + " records", got == blocks and summ == (["error"] if blocks else []),
                      f"{got} blocks, summary {summ}")
            else:
                rows = check_csv(name, csvdir)
                got = len([r for r in rows if "speed_bytes_per_s" in r and "index" in r])
                check(name + " rows", got == blocks, f"{got} block rows, want {blocks}")


TOOLS = {"iobench": iobench_cases, "iotest": lambda tmp: (iotest_cases(tmp), iotest_mmap_cases(tmp)), "io_profile": io_profile_cases,
         "bigread": bigread_cases}


def main():
    global A
    A = iob.arguments("--bin", "--fault-dir", "--plugin-dir", "--work", tools=TOOLS)
    with iob.scratch(A.work, "fault-") as tmp:
        for tool in A.tools or TOOLS:
            TOOLS[tool](tmp)
    return iob.summary()


if __name__ == "__main__":
    sys.exit(main())
