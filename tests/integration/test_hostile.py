#!/usr/bin/env python3
"""Hostile input, table-driven, across the four binaries and INI profiles.

Each row: the binary, its arguments (with {d} for the scratch directory, {p}
for a profile written from the row's text, {bad_abi} for a directory holding a
plugin of another ABI major), optional standard input, the fragment the one
error line must contain, and the exit code.  For every row: exactly one line on
stderr containing the fragment, the exit code, and the scratch directory
unchanged (no file created; the 'victim' file neither truncated nor touched).
Prints 'N passed, N failed'."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import iobtest as iob  # noqa: E402

BIG = "x" * (10 << 20)
JUNK = "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\xff\xfe\x00\x01"

# (binary, args, profile text or None, stdin or None, fragment, exit code)
ROWS = [
    # --- iobench and profiles ---
    ("iobench", ["run", "{p}", "--dir", "{d}"], "", None, "no job sections", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[global]\nsize = 1M\n", None, "no job sections", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[a]\nsize = 0\n", None, "size must be at least 1 byte", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[a]\nsize = -1\n", None, "negative size '-1'", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[a]\nsize = 99999999999999999999\n", None, "too large", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[a]\nsize = 12 parsecs\n", None, "[a] size", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[a]\nsize = 4Q\n", None, "unknown unit 'Q'", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[a]\nsize = 4mb\n", None, "ambiguous unit", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[a]\nsize = nan\n", None, "'nan' is not a size", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[a]\nsize = inf\n", None, "'inf' is not a size", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[a]\nsize = 0.5\n", None, "not a whole number of bytes", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[a]\nblock_size = 0\n", None, "block_size must be at least", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[a]\nblock_size = 4G\n", None, "larger than the 2 GiB limit", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[a]\nops = -3\n", None, "[a] ops", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[a]\nloops = 0\n", None, "loops must be at least 1", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[a]\nseed = 99999999999999999999\n", None, "too large", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[a]\nbogus_key = 1\n", None, "[a] bogus_key: unknown key", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[global]\nwhat = 1\n[a]\n", None, "[global] what: unknown key", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[a]\n[a]\n", None, "duplicate section [a]", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[a]\nsize = 1M\nsize = 2M\n", None, "duplicate key", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[global]\ninclude = loop.ini\n[a]\n", None, "include loop", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[global]\ninclude = nowhere.ini\n[a]\n", None, "does not exist", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[a]\ndescription = " + BIG + "\n", None, "over the 1000-character limit", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], JUNK, None, "binary data", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[a]\nbackend = nosuch\n", None, "backend 'nosuch' is not loaded", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}", "--plugin-dir", "{bad_abi}"], "[a]\nbackend = fake\n", None,
     "built for plugin ABI 99.", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[a]\naccess = diagonal\n", None, "access 'diagonal'", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[a]\nphases = write,erase\n", None, "unknown phase 'erase'", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[a]\npattern = plaid\n", None, "unknown pattern 'plaid'", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[a]\nfsync = perhaps\n", None, "'perhaps' is not a boolean", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[a]\ndir = ${IOB_HOSTILE_UNSET}\n", None, "IOB_HOSTILE_UNSET is not set", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[a]\nfilename = victim\nallow_devices = false\nsize = 99T\n",
     None, "not enough space", 2),
    ("iobench", ["run", "{p}"], "[a]\ndir = /dev\nfilename = null\n", None, "is a character device", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "size = 1M\n[a]\n", None, "outside any section", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[a\n", None, "bad section header", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}", "--output", "xml"], "[a]\n", None, "unknown output 'xml'", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}", "--output", "json=/nonexistent/o.json"], "[a]\n", None,
     "does not exist", 2),
    ("iobench", ["run", "{p}", "--dir", "/nonexistent"], "[a]\n", None, "dir '/nonexistent' does not exist", 2),
    ("iobench", ["run", "{d}/missing.ini"], None, None, "no such profile", 2),
    ("iobench", ["explode"], None, None, "unknown command 'explode'", 2),
    ("iobench", ["run", "{p}", "--frobnicate"], "[a]\n", None, "unknown option '--frobnicate'", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}/new\nline"], "[a]\nphases = read\n", None, "new\\x0aline", 2),
    # --- issue 15: refused before anything is created ---
    ("iobench", ["run", "{p}"], "[a]\ndir = ..\nfilename = p.ini\nsize = 1M\n", None, "reads as its profile", 2),
    ("iobench", ["check", "{p}"], "[a]\ndir = ..\nfilename = p.ini\nsize = 1M\n", None, "reads as its profile", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}", "--output", "json={p}"], "[a]\nsize = 1M\n", None,
     "which this run reads or writes", 2),
    ("iobench", ["check", "{p}", "--dir", "{d}", "--output", "json={d}/victim"], "[a]\nfilename = victim\n", None,
     "which this run reads or writes", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}", "--output", "json:bogus"], "[a]\nsize = 1M\n", None,
     "takes no arguments", 2),
    # an output that refuses its arguments does so before its file is created or emptied
    ("iobench", ["run", "{p}", "--dir", "{d}", "--output", "csv:bogus={d}/victim"], "[a]\nsize = 1M\n", None,
     "refused to open with bogus", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}", "--output", "human,csv:bogus={d}/new.csv"], "[a]\nsize = 1M\n",
     None, "refused to open with bogus", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[a]\nfilename = " + "n" * 300 + "\n", None,
     "over the limit of 255 bytes for one file name; use a shorter filename", 2),
    ("iobench", ["check", "{p}", "--dir", "{d}/" + "d" * 256], "[a]\n", None, "use a shorter dir", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[a\udcff]\nsize = 1M\n", None, "'a\\xff'", 2),
    # --- iotest ---
    # one bad value of -s, -b or -p before a new file: (option, value, what the line says)
    *[("iotest", [opt, val, "{d}/new"], None, None, says, 2) for opt, val, says in (
        ("-s", "0", "size '0'"), ("-s", "-5", "size '-5' is negative"), ("-s", "99999999999999999999", "too large"),
        ("-s", "12x", "size '12x'"), ("-s", "nan", "size 'nan'"), ("-s", "", "size"),
        ("-b", "3", "block size '3'"), ("-b", "0", "block size '0'"), ("-b", "99999999999999999999", "block size"),
        ("-p", "9", "bad pattern '9'"), ("-p", "/zz", "bad pattern '/zz'"), ("-p", "=", "bad pattern '='"))],
    ("iotest", ["--bogus", "{d}/new"], None, None, "unknown option '--bogus'", 2),
    ("iotest", ["-Q", "{d}/new"], None, None, "unknown option '-Q'", 2),
    ("iotest", ["-s", "1", "/dev/null"], None, None, "is a character device", 2),
    ("iotest", ["-s", "1", "{d}"], None, None, "is a directory", 2),
    ("iotest", ["-z", "-1", "{d}/new"], None, None, "snooze '-1'", 2),
    ("iotest", ["-s", "1", "--backend", "nosuch", "{d}/new"], None, None, "backend 'nosuch' is not loaded", 2),
    ("iotest", ["-s", "1", "--plugin-dir", "{bad_abi}", "--backend", "fake", "{d}/new"], None, None,
     "built for plugin ABI 99.", 2),
    ("iotest", ["-s", "1", "--format", "xml", "{d}/new"], None, None, "unknown output 'xml'", 2),
    ("iotest", ["-s", "1", "-i"], None, None, "needs a value", 2),
    ("iotest", ["-s", "1", "--seed", "x", "{d}/new"], None, None, "seed", 2),
    ("iotest", ["-s", "1", "-r", "{d}/new\nline/f"], None, None, "new\\x0aline", 2),
    ("iotest", ["-e", "-s", "1", "--format", "iotest,json={d}/victim", "{d}/victim"], None, None,
     "which this run reads or writes", 2),
    ("iotest", ["-s", "1", "{d}/" + "n" * 300], None, None, "over the limit of 255 bytes", 2),
    # --- io_profile ---
    ("io_profile", ["-d", "{d}", "-m", "100", "-M", "10"], None, None, "-m 100 is above -M 10", 2),
    ("io_profile", ["-d", "{d}", "-n", "0"], None, None, "-n 0", 2),
    ("io_profile", ["-d", "{d}", "-l", "1000", "-M", "65536"], None, None, "-l 1000 is smaller", 2),
    ("io_profile", ["-d", "{d}", "-l", "abc"], None, None, "'abc' is not a size", 2),
    ("io_profile", ["-d", "{d}", "-m", "-1"], None, None, "negative size '-1'", 2),
    ("io_profile", ["-d", "{d}", "-M", "99999999999999999999"], None, None, "too large", 2),
    ("io_profile", ["-d", "{d}", "-n", "nan"], None, None, "'nan' is not a non-negative whole number", 2),
    ("io_profile", ["-d", "/nonexistent"], None, None, "does not exist", 2),
    ("io_profile", ["-d", "{d}", "--bogus"], None, None, "unknown option '--bogus'", 2),
    ("io_profile", ["-d", "{d}", "-b", "-m", "3"], None, None, "cannot bypass the buffer cache", 2),
    ("io_profile", ["-d", "{d}", "-r"], None, None, "does not exist", 2),
    ("io_profile", ["-d", "{d}", "--backend", "nosuch"], None, None, "backend 'nosuch' is not loaded", 2),
    ("io_profile", ["-d", "{d}", "-o", "xml"], None, None, "unknown output 'xml'", 2),
    ("io_profile", ["-d", "{d}", "-l", "99999999999999999999"], None, None, "too large", 2),
    ("io_profile", ["-d", "{d}", "-s", "-o", "csv={d}/io_profile_file.out"], None, None, "which this run reads or writes", 2),
]

BIGREAD_ROWS = [
    ("bigread", ["in={d}/victim", "bufsize=0"], None, None, "bufsize", 2),
    ("bigread", ["in={d}/victim", "bufsize=-1"], None, None, "bufsize", 2),
    ("bigread", ["in={d}/victim", "bufsize=abc"], None, None, "bufsize", 2),
    ("bigread", ["in={d}/victim", "bufsize=nan"], None, None, "bufsize", 2),
    ("bigread", ["in={d}/victim", "bufsize=99999999999999999999"], None, None, "bufsize", 2),
    ("bigread", ["in={d}/missing", "bufsize=0.001"], None, None, "missing", 2),
    ("bigread", ["in={d}/empty", "bufsize=0.001"], None, None, "empty", 2),
    ("bigread", ["in={d}", "bufsize=0.001"], None, None, "directory", 2),
    ("bigread", ["in={d}/victim", "bufsize=0.001", "mode=7"], None, None, "mode", 2),
    ("bigread", ["in={d}/victim", "bufsize=0.001", "colour=red"], None, None, "colour", 2),
    ("bigread", ["--bogus"], None, None, "--bogus", 2),
    ("bigread", ["-", "0.001"], None, "", "gave no data", 2),
]


# IOB_TEST_OS=windows: the .exe files under wine (tests/windows).  Standard
# input cannot be read there (no stream backend is built), and Windows names
# its own devices and drive paths.
WINDOWS = os.environ.get("IOB_TEST_OS") == "windows"
WINDOWS_STDIN_REFUSAL = "standard input needs a stream-capable backend"
WINDOWS_ROWS = [
    ("iotest", ["-s", "1", "NUL"], None, None, "'NUL' is a character device", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}"], "[a]\nfilename = NUL\n", None, "NUL is a character device", 2),
    ("iotest", ["-s", "1", "Z:\\nonexistent\\x"], None, None, "does not exist", 2),
    ("bigread", ["Z:\\nonexistent\\x", "1M"], None, None, "no such file", 2),
    ("iobench", ["run", "{p}", "--dir", "{d}", "--output", "json=Z:\\nonexistent\\o.json"], "[a]\n", None,
     "nonexistent does not exist", 2),
]


snapshot = iob.snapshot


def main():
    a = iob.arguments("--bin", "--work", "--bad-abi")
    rows = ROWS + (BIGREAD_ROWS if os.path.exists(os.path.join(a.bin, "bigread")) else [])
    if WINDOWS:
        rows = [r[:4] + (WINDOWS_STDIN_REFUSAL,) + r[5:] if r[1][:1] == ["-"] else r for r in rows] + WINDOWS_ROWS
    top = iob.tempdir(a.work, "hostile-")
    d = os.path.join(top, "scratch")
    os.mkdir(d)
    with open(os.path.join(d, "victim"), "w") as f:
        f.write("precious data\n" * 4096)
    open(os.path.join(d, "empty"), "w").close()
    os.mkdir(os.path.join(d, "new\nline"))  # a directory whose name holds a newline
    with open(os.path.join(top, "loop.ini"), "w") as f:
        f.write("[global]\ninclude = p.ini\n[b]\n")
    env = iob.env(drop=("IOBENCH_PLUGIN_PATH", "IOB_HOSTILE_UNSET"))
    for i, (tool, args, text, stdin, frag, code) in enumerate(rows):
        prof = os.path.join(top, "p.ini")
        if text is not None:
            with open(prof, "w", errors="surrogateescape") as f:
                f.write(text)
        before = snapshot(d)
        argv = [x.replace("{d}", d).replace("{p}", prof).replace("{bad_abi}", a.bad_abi) for x in args]
        p = iob.run([iob.binary(a, tool), *argv], errors="replace", input=stdin, env=env, cwd=d, timeout=60)
        lines = p.stderr.strip().splitlines()
        after = snapshot(d)
        problems = []
        if p.returncode != code:
            problems.append(f"exit {p.returncode}, want {code}")
        if len(lines) != 1 or frag not in lines[0]:
            problems.append(f"stderr {p.stderr.strip()[:400]!r} is not one line with {frag!r}")
        if after != before:
            problems.append(f"the directory changed: {sorted(set(after.items()) ^ set(before.items()))}")
        iob.check(f"row {i} {tool} {' '.join(args)[:80]}", not problems, "; ".join(problems))
    subprocess.run(["rm", "-rf", top])
    print(f"{len(rows)} hostile inputs")
    return iob.summary()


if __name__ == "__main__":
    sys.exit(main())
