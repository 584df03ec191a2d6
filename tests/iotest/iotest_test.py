#!/usr/bin/env python3
"""Integration tests of the iotest binary: python3 iotest_test.py CASE.

Each case runs the built binary in a fresh directory under IOTEST_WORK (in the
build tree) and removes it afterwards.  Assertions are on outcomes: the exact
shape of every line, byte counts and file contents, offsets, exit codes.  No
timing thresholds: rates are only checked for consistency with the printed
size and time (or, with json, exactly against the same record).
Environment: IOTEST, IOBENCH (binaries), IOTEST_WORK (scratch parent).
"""
import argparse
import csv
import io
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import iobtest as iob  # noqa: E402
from iobtest import expect as check  # noqa: E402

IOTEST = os.environ["IOTEST"]
IOBENCH = os.environ.get("IOBENCH", "")
WORK = os.environ.get("IOTEST_WORK", tempfile.gettempdir())
MB = 1 << 20
HOST = socket.gethostname().split(".")[0]

NORMAL = re.compile(
    r"^(?P<host>\S+) (?P<verb>write|read|ver\.) (?P<mb>\d+\.\d) mb in (?P<kb>\d+) kb blocks "
    r"0x(?P<label>[0-9a-f]{2}) at (?P<rate>\d+\.\d\d) mb/s in (?P<secs>\d+\.\d) seconds: "
    r"(?P<stamp>\d{8}\.\d{6}) (?P<file>.+)$")
CURT = re.compile(
    r"^(?P<host>\S+) (?P<verb>write|read|ver\.) (?P<mb>\d+) mb (?P<kb>\d+) kb "
    r"0x(?P<label>[0-9a-f]{2}) (?P<rate>\d+\.\d\d) mb/s (?P<secs>\d+\.\d) secs$")
MEMFREE = re.compile(r"^MemFree: \d+\.\d{3} \d+\.\d{3}$")
ERROR = re.compile(r"^iotest: error: \S.*$")


class Run:
    def __init__(self, args, rc, out, err, t0, t1):
        self.args, self.rc, self.out, self.err, self.t0, self.t1 = args, rc, out, err, t0, t1
        self.lines = out.splitlines()

    def __repr__(self):
        return "iotest %s -> %d\n--- stdout\n%s--- stderr\n%s" % (" ".join(self.args), self.rc, self.out, self.err)


def run(args, cwd, expect=0, binary=None, env=None, preexec=None):
    t0 = time.time()
    p = subprocess.run([binary or IOTEST] + list(args), cwd=cwd, capture_output=True, text=True,
                       errors="replace", timeout=120, env=env)
    r = Run(list(args), p.returncode, p.stdout, p.stderr, t0, time.time())
    if expect is not None and r.rc != expect:
        raise AssertionError("expected exit %d: %r" % (expect, r))
    return r


def parse_line(line, curt, r):
    m = (CURT if curt else NORMAL).match(line)
    if not m:
        raise AssertionError("line %r is not a %s line: %r" % (line, "curt" if curt else "normal", r))
    return m


def check_pass(line, r, verb, mb, kb, label, curt=True, file="x"):
    """One result line: exact shape, host, figures, and rate x time = size."""
    m = parse_line(line, curt, r)
    check(m["host"] == HOST, "host %s != %s in %r" % (m["host"], HOST, line))
    check(m["verb"] == verb, "verb %s != %s in %r" % (m["verb"], verb, line))
    check(float(m["mb"]) == float(mb), "size %s != %s in %r" % (m["mb"], mb, line))
    if not curt:
        check(m["mb"] == "%.1f" % mb, "normal size has one decimal: %r" % line)
        check(m["file"] == file, "file %s != %s" % (m["file"], file))
        stamp = time.mktime(time.strptime(m["stamp"], "%Y%m%d.%H%M%S"))
        check(int(r.t0) - 1 <= stamp <= r.t1 + 1, "stamp %s outside the run %r" % (m["stamp"], line))
    check(int(m["kb"]) == kb, "block %s != %d in %r" % (m["kb"], kb, line))
    check(m["label"] == "%02x" % label, "label %s != %02x in %r" % (m["label"], label, line))
    rate, secs = float(m["rate"]), float(m["secs"])
    # rate = size / t with t unrounded; secs = round(t, 1): |rate*secs - size| <= rate*0.05 (+ rounding)
    check(rate > 0, "rate 0 in %r" % line)
    check(abs(rate * secs - mb) <= rate * 0.05 + secs * 0.005 + 1e-6,
          "rate %s x secs %s is not the size %s: %r" % (m["rate"], m["secs"], mb, line))
    return m


def results(r):
    """Lines that are not MemFree or comment lines."""
    return [l for l in r.lines if not MEMFREE.match(l)]


def seq(r):
    """The run's stdout as a sequence: M (MemFree), W, R, V."""
    out = ""
    for l in r.lines:
        if MEMFREE.match(l):
            out += "M"
        else:
            m = CURT.match(l) or NORMAL.match(l)
            check(m, "unexpected stdout line %r: %r" % (l, r))
            out += {"write": "W", "read": "R", "ver.": "V"}[m["verb"]]
    return out


def content(path):
    with open(path, "rb") as f:
        return f.read()


def all_bytes(path, value, size):
    data = content(path)
    check(len(data) == size, "%s has %d bytes, want %d" % (path, len(data), size))
    check(data == bytes([value]) * size, "%s is not all 0x%02x" % (path, value))


def check_text(data):
    check(len(data) % 64 == 0, "text pattern: whole 64-byte lines")
    for i in range(0, len(data), 64):
        line = data[i:i + 64]
        check(line[0:1] == b"E" and line[-1:] == b"\n", "text line at %d: %r" % (i, line))
        check(all(0x20 <= c < 0x7f for c in line[:-1]), "text line at %d not printable" % i)


def listing(d):
    return sorted(os.listdir(d))


# ---- the man page's examples, scaled down ---------------------------------


def case_example_write(d):
    r = run(["-s", "2", "x"], d)
    check(len(r.lines) == 1, "one line: %r" % r)
    check_pass(r.lines[0], r, "write", 2.0, 1, 0x45, curt=False)
    data = content(os.path.join(d, "x"))
    check(len(data) == 2 * MB, "2 mb written")
    check_text(data)


def case_example_five_passes(d):
    run(["-s", "1", "x"], d)
    os.remove(os.path.join(d, "x"))  # "rm x; iotest -Cp 013/0f4 -s 1024 x"
    r = run(["-Cp", "013/0f4", "-s", "2", "x"], d)
    check(seq(r) == "WWWWW", "five writes: %r" % r)
    for line, label in zip(r.lines, [0x00, 0xff, 0x30, 0x0f, 0xf0]):
        check_pass(line, r, "write", 2, 1, label)
    all_bytes(os.path.join(d, "x"), 0xf0, 2 * MB)


def case_example_sync_read(d):
    run(["-Cp", "013/0f4", "-s", "2", "x"], d)
    r = run(["-Cp", "013/0f4", "-s", "2", "x", "-Yr"], d)
    check(seq(r) == "WWWWWR", "five writes and a read: %r" % r)
    for line, label in zip(r.lines, [0x00, 0xff, 0x30, 0x0f, 0xf0]):
        check_pass(line, r, "write", 2, 1, label)
    check_pass(r.lines[5], r, "read", 2, 1, 0xf0)
    # the read came from memory, and iotest says so on stderr only
    check("page cache" in r.err, "cache warning on stderr: %r" % r)
    check(all(l.startswith("iotest: warning: ") for l in r.err.splitlines()), "stderr is warnings: %r" % r)


def case_example_drop_read(d):
    r = run(["-Cp", "013/0f4", "-s", "2", "x", "-Dr"], d)
    check(seq(r) == "MMWMWMWMWMWMR", "MemFree lines as in the man page: %r" % r)
    res = results(r)
    for line, label in zip(res, [0x00, 0xff, 0x30, 0x0f, 0xf0]):
        check_pass(line, r, "write", 2, 1, label)
    check_pass(res[5], r, "read", 2, 1, 0xf0)
    if os.geteuid() == 0:
        check("evicting only" not in r.err, "root drops the whole cache: %r" % r)


def write_read(d, args, want, kb=1):
    """iotest with args writes then reads x (4 MB in kb KiB blocks, the default pattern 0x45): its
    lines in the order want (M for MemFree), the write and read lines checked."""
    r = run(args, d)
    check(seq(r) == want, "lines %s, want %s: %r" % (seq(r), want, r))
    for line, verb in zip(results(r), ("write", "read")):
        check_pass(line, r, verb, 4, kb, 0x45)


def case_example_rw(d):
    write_read(d, ["-C", "-s", "4", "x", "-rw"], "WR")


def case_example_rw_drop(d):
    write_read(d, ["-C", "-s", "4", "x", "-rw", "-D"], "MMWMR")


def case_example_rw_sync(d):
    write_read(d, ["-C", "-s", "4", "x", "-rw", "-Y"], "WR")


def case_example_verify_all(d):
    r = run(["-C", "-p01", "-s", "4", "x", "-wa"], d)
    check(seq(r) == "WVWV", "two passes verified: %r" % r)
    for line, verb, label in zip(r.lines, ["write", "ver.", "write", "ver."], [0, 0, 0xff, 0xff]):
        check_pass(line, r, verb, 4, 1, label)
    r = run(["-C", "-p1", "-s", "4", "x", "-er"], d)  # re-verify, must give the right pattern
    check(seq(r) == "V", "verify only: %r" % r)
    check_pass(r.lines[0], r, "ver.", 4, 1, 0xff)
    all_bytes(os.path.join(d, "x"), 0xff, 4 * MB)


def case_example_big_blocks(d):
    write_read(d, ["x", "-b", "1024", "-s", "4", "-wrC"], "WR", 1024)


def case_example_sanitize(d):
    r = run(["-s", "2", "-p", "01/f04", "file1gb"], d)
    check(seq(r) == "WWWW", "four passes: %r" % r)
    for line, label in zip(r.lines, [0x00, 0xff, 0xf0, 0x0f]):
        check_pass(line, r, "write", 2.0, 1, label, curt=False, file="file1gb")
    all_bytes(os.path.join(d, "file1gb"), 0x0f, 2 * MB)


# ---- verify -------------------------------------------------------------------


def flip(path, offset):
    with open(path, "r+b") as f:
        f.seek(offset)
        old = f.read(1)[0]
        f.seek(offset)
        f.write(bytes([old ^ 0x5a]))
    return old, old ^ 0x5a


def case_verify_flipped_byte(d):
    x = os.path.join(d, "x")
    run(["-C", "-p3", "-s", "1", "x"], d)
    old, new = flip(x, 123457)
    r = run(["-C", "-p3", "-s", "1", "x", "-er"], d, expect=3)
    check(seq(r) == "V", "the verify line is still printed: %r" % r)
    errs = [l for l in r.err.splitlines() if l.startswith("iotest: error:")]
    check(len(errs) == 1 and ERROR.match(errs[0]), "one error line: %r" % r)
    e = errs[0]
    check("offset 123457:" in e, "first bad offset: %r" % e)
    check("expected 0x%02x, found 0x%02x" % (old, new) in e, "bytes: %r" % e)
    check("1 bad block(s)" in e, "bad blocks: %r" % e)
    # text pattern, two flips in different blocks, with -e after a write
    r = run(["-C", "-s", "1", "x", "-e"], d)
    check(seq(r) == "WV", "write and verify: %r" % r)
    flip(x, 5000)
    old2, new2 = flip(x, 700001)
    r = run(["-C", "-s", "1", "x", "-er"], d, expect=3)
    check("2 bad block(s)" in r.err and "offset 5000:" in r.err, "two bad blocks, first at 5000: %r" % r)
    # -a stops at the first failing pass; a file shorter than the size fails too
    os.truncate(x, 1000)
    r = run(["-C", "-s", "1", "x", "-er"], d, expect=3)
    check("holds only 1000 of the 1048576 bytes" in r.err, "short file: %r" % r)


def case_verify_other_pattern(d):
    run(["-C", "-p0", "-s", "1", "x"], d)
    r = run(["-C", "-p1", "-s", "1", "x", "-er"], d, expect=3)
    check("1024 bad block(s)" in r.err and "offset 0:" in r.err, "all blocks bad: %r" % r)
    check("expected 0xff, found 0x00" in r.err, "bytes: %r" % r)
    run(["-C", "-p0", "-s", "1", "x", "-er"], d)
    # every pattern kind verifies after writing it (text and characters too)
    r = run(["-C", "-p", "0123=Z/a54", "-s", "1", "x", "-a"], d)
    check(seq(r) == "WV" * 7, "seven verified passes: %r" % r)


def case_random_seed(d):
    r = run(["-v", "-C", "-p3", "--seed", "7", "-s", "1", "x"], d)
    check(re.search(r"^iotest: seed 7,", r.out, re.M), "-v prints the seed: %r" % r)
    run(["-C", "-p3", "-s", "1", "x", "-er"], d, expect=3)  # default seed: other data
    run(["-C", "-p3", "--seed", "7", "-s", "1", "x", "-er"], d)
    r = run(["-v", "-C", "-p3", "-s", "1", "y"], d)
    check(re.search(r"^iotest: seed 281374660,", r.out, re.M), "default seed printed: %r" % r)
    run(["-C", "-p3", "-s", "1", "z"], d)
    check(content(os.path.join(d, "y")) == content(os.path.join(d, "z")), "same seed, same data")
    check(content(os.path.join(d, "x")) != content(os.path.join(d, "y")), "other seed, other data")
    run(["-C", "-p3", "-s", "1", "z", "-er"], d)
    # complement of random verifies too
    run(["-C", "-p34", "--seed", "9", "-s", "1", "z", "-a"], d)
    data = content(os.path.join(d, "z"))
    run(["-C", "-p3", "--seed", "9", "-s", "1", "w"], d)
    check(bytes(b ^ 0xff for b in content(os.path.join(d, "w"))) == data, "4 is the complement of 3")


# ---- options ----------------------------------------------------------------------


def case_help_version(d):
    for opt in ["-h", "-H", "-?", "--help"]:
        r = run([opt], d)
        check(r.out.startswith("usage: iotest"), "%s prints usage: %r" % (opt, r))
        check("mb = 2^20 bytes, kb = 2^10 bytes" in r.out, "units in --help")
    for opt in ["-V", "--version"]:
        r = run([opt], d)
        check(re.match(r"^iotest \(iobench\) \d+\.\d+\.\d+\n$", r.out), "%s: %r" % (opt, r))
    check(listing(d) == [], "nothing created")


def case_truncate_rewrite(d):
    big = os.path.join(d, "big")
    tail = os.urandom(3000000)
    with open(big, "wb") as f:
        f.write(tail)
    run(["-C", "-s", "1", "big"], d)  # rewrite in place: the size and the tail stay
    data = content(big)
    check(len(data) == 3000000, "rewritten in place, size kept")
    check_text(data[:MB])
    check(data[MB:] == tail[MB:], "bytes past the size untouched")
    r = run(["-C", "-t", "-p01", "-s", "1", "big"], d)  # truncate on the first pass only
    check(seq(r) == "WW", "two passes: %r" % r)
    all_bytes(big, 0xff, MB)
    r = run(["--truncate", "-C", "-s", "1", "big", "--format", "json"], d)
    rec = json.loads(r.out)["records"][0]
    check(rec["truncate"] is True and os.path.getsize(big) == MB, "truncate recorded")


def case_no_sync(d):
    for opt in ["-W", "-n", "--no-sync"]:
        r = run([opt, "-s", "1", "x", "--format", "json"], d)
        rec = json.loads(r.out)["records"][0]
        check(rec["phase"] == "write" and rec["fsync"] is False, "%s: no fsync: %r" % (opt, r))
        check("without fsync" in r.err, "%s warns: %r" % (opt, r))
    r = run(["-s", "1", "x", "--format", "json"], d)
    check(json.loads(r.out)["records"][0]["fsync"] is True, "fsync by default")


def case_input_output(d):
    run(["-C", "-p1", "-s", "1", "-o", "in"], d)
    r = run(["-i", "in", "-p1", "-s", "1"], d)  # -i reads
    check(seq(r) == "R", "read only: %r" % r)
    check_pass(r.lines[0], r, "read", 1.0, 1, 0xff, curt=False, file="in")
    r = run(["--input", "in", "-e", "-p1", "-s", "1"], d)
    check(seq(r) == "V", "verify the input: %r" % r)
    r = run(["-i", "in", "--output", "out", "-w", "-p0", "-s", "1"], d)
    check(seq(r) == "WR", "write out, read in: %r" % r)
    check(NORMAL.match(r.lines[0])["file"] == "out" and NORMAL.match(r.lines[1])["file"] == "in", "%r" % r)
    all_bytes(os.path.join(d, "out"), 0, MB)
    all_bytes(os.path.join(d, "in"), 0xff, MB)


def case_comment_snooze_verbose(d):
    r = run(["-c", "nightly scrub #4", "-z", "0.2", "-v", "-s", "1", "x"], d)
    check(r.lines[0] == "nightly scrub #4", "comment first: %r" % r)
    check(re.match(r"^iotest: version \S+ on \S+: 1 pass of 1048576 bytes in 1024-byte blocks: write text$",
                   r.lines[1]), "settings: %r" % r)
    check(re.match(r"^iotest: seed 281374660, fsync on, backend posix, drop caches no, sync no, snooze 0.2 s$",
                   r.lines[2]), "settings: %r" % r)
    check_pass(r.lines[3], r, "write", 1.0, 1, 0x45, curt=False)
    check(re.match(r"^iotest: pass 1 write text: 1048576 bytes in 1024 I/O calls, \d+\.\d{6} s, sync \d+\.\d{6} s; "
                   r"latency mean .+, p99 .+, max .+$", r.lines[4]), "pass details: %r" % r)
    check(len(r.lines) == 5, "five lines: %r" % r)
    r = run(["--comment", "c2", "--snooze", "0.1", "--curt", "-s", "1", "x", "--format", "json"], d)
    doc = json.loads(r.out)
    check(doc["records"][0] == {"kind": "comment", "comment": "c2"}, "comment record: %r" % r)
    check(doc["records"][1]["comment"] == "c2", "comment in the pass record")


def case_drop_and_sync(d):
    r = run(["-d", "-C", "-s", "1", "x", "-rw"], d)  # lower case: as this user
    check(seq(r) == "MMWMR", "drop at the start and after each pass: %r" % r)
    r = run(["-d", "-C", "-s", "1", "x", "-r"], d)
    check(seq(r) == "MMR", "drop before and after the read: %r" % r)
    # the legacy man page's other spellings of -d: a lone - and --drop_caches
    for spelling in (["-"], ["--drop_caches"]):
        r = run(spelling + ["-C", "-s", "1", "x", "-rw"], d)
        check(seq(r) == "MMWMR", "%s drops as -d does: %r" % (spelling, r))
    r = run(["-C", "-s", "1", "./-"], d, expect=2)  # a file called - cannot be used
    check(not os.path.exists(os.path.join(d, "-")) and len(r.err.splitlines()) == 1, "./-: %r" % r)
    dropped = run(["--drop-caches", "-y", "-C", "-s", "1", "x", "-w", "--format", "json"], d)
    doc = json.loads(dropped.out)
    check([x["kind"] for x in doc["records"]] == ["cache_drop", "phase"], "records: %r" % dropped)
    rec = doc["records"][1]
    check(rec["cache_dropped"] is True and rec["mem_free_before_bytes"] > 0, "drop figures: %r" % rec)
    check(rec["sync_s"] > 0, "sync time counted in the pass")
    r = run(["--sync", "-C", "-s", "1", "x"], d)
    check(seq(r) == "W", "sync: %r" % r)
    method = doc["records"][0]["method"]
    fallback = [n for n in doc["notes"] if "evicting only x from the page cache" in n]
    if os.geteuid() == 0:
        check(method == "drop_caches", "root writes drop_caches: %r" % doc)
        check("evicting only" not in dropped.err and not fallback, "no fallback as root: %r" % dropped)
    else:
        check(method == "evict the file only", "without root only the file is evicted: %r" % doc)
        check("evicting only x from the page cache" in dropped.err and fallback,
              "the fallback is said, on stderr and in the notes: %r" % dropped)


def as_nobody():
    """Run as user nobody (root with setpriv), or as the current non-root user."""
    if os.geteuid() != 0:
        return []
    sp = shutil.which("setpriv")
    if not sp:
        return None
    return [sp, "--reuid=65534", "--regid=65534", "--clear-groups"]


def case_drop_without_root(d):
    prefix = as_nobody()
    if prefix is None:
        print("skipped: root without setpriv")
        return
    os.chmod(d, 0o777)
    for opt in ["-d", "-D"]:
        p = subprocess.run(prefix + [IOTEST, opt, "-C", "-s", "1", "x", "-rw"], cwd=d, capture_output=True,
                           text=True, timeout=120)
        r = Run([opt], p.returncode, p.stdout, p.stderr, 0, 0)
        check(r.rc == 0, "runs without root: %r" % r)
        check(seq(r) == "MMWMR", "MemFree lines still printed: %r" % r)
        check("evicting only x from the page cache" in r.err, "says it evicts only the file: %r" % r)
    p = subprocess.run(prefix + [IOTEST, "-Y", "-C", "-s", "1", "x"], cwd=d, capture_output=True, text=True,
                       timeout=120)
    check(p.returncode == 0 and "write" in p.stdout, "-Y without root: %s %s" % (p.stdout, p.stderr))


def case_grouped_options(d):
    r = run(["-wrC", "-s", "1", "x"], d)
    check(seq(r) == "WR", "-wrC: %r" % r)
    r = run(["-Cp", "02", "-s", "1", "x", "-er"], d)
    check(seq(r) == "V", "-Cp 02 -er: %r" % r)
    r = run(["-Ctnp01", "-s", "1", "x"], d)
    check(seq(r) == "WW", "-Ctnp01: %r" % r)
    r = run(["-Ceap", "3=q", "-s1", "-b2", "x"], d)
    check(seq(r) == "WVWV", "-Ceap: %r" % r)
    check_pass(r.lines[3], r, "ver.", 1, 2, ord("q"))


def case_block_sizes(d):
    for kb in [1, 2, 4, 8, 64, 512, 1024]:
        r = run(["-C", "-b", str(kb), "-s", "1", "x", "-e"], d)
        check_pass(r.lines[0], r, "write", 1, kb, 0x45)
    r = run(["-C", "-b", "2048", "-s", "3", "x", "-t"], d)  # rounded up to whole blocks
    check_pass(r.lines[0], r, "write", 4, 2048, 0x45)
    check(os.path.getsize(os.path.join(d, "x")) == 4 * MB, "4 mb written")


def case_backends(d):
    for be in ["posix", "stdio", "mmap"]:
        r = run(["--backend", be, "-C", "-p3", "-s", "1", be, "-a"], d)
        check(seq(r) == "WV", "%s: %r" % (be, r))
    os.mkdir(os.path.join(d, "plugins"))  # searched first; empty, so the built plugins still serve
    r = run(["--plugin-dir", "plugins", "-C", "-s", "1", "x"], d)
    check(seq(r) == "W" and r.err == "", "--plugin-dir: %r" % r)


def case_threads(d):
    """--threads N: N streams, each on its own FILE.<i>; one line per pass with
    their total and the aggregate rate (the json aggregate's figures); the
    default output is unchanged.  --iodepth maps onto the job key."""
    # without --threads (or with 1): the one file and the legacy line
    for extra in ([], ["--threads", "1", "--iodepth", "1"]):
        r = run(extra + ["-s", "2", "-b", "64", "x"], d)
        check(len(r.lines) == 1 and listing(d) == ["x"], "%s: %r" % (extra, r))
        check_pass(r.lines[0], r, "write", 2.0, 64, 0x45, curt=False)
        os.unlink(os.path.join(d, "x"))
    r = run(["--threads", "3", "-s", "2", "-b", "64", "--format", "iotest,json=t.json", "x", "-e"], d)
    check(listing(d) == ["t.json", "x.0", "x.1", "x.2"], "files: %s" % listing(d))
    check(all(os.path.getsize(os.path.join(d, "x.%d" % i)) == 2 * MB for i in range(3)), "sizes")
    check(len(r.lines) == 2, "two pass lines: %r" % r)
    doc = json.load(open(os.path.join(d, "t.json")))
    kinds = [x["kind"] for x in doc["records"]]
    check(kinds == ["stream"] * 3 + ["phase"] + ["stream"] * 3 + ["phase"], "records: %s" % kinds)
    phases = [x for x in doc["records"] if x["kind"] == "phase"]
    for line, verb, rec in zip(r.lines, ("write", "ver."), phases):
        m = check_pass(line, r, verb, 6.0, 64, 0x45, curt=False, file="x.{0..2}")
        check(rec["streams"] == 3 and rec["bytes"] == 6 * MB, "aggregate: %r" % rec)
        check(m["rate"] == "%.2f" % (rec["bw_bytes_per_s"] / MB), "line rate is the aggregate's: %s" % line)
    streams = [x for x in doc["records"] if x["kind"] == "stream"]
    check(sorted(os.path.basename(x["file"]) for x in streams[:3]) == ["x.0", "x.1", "x.2"], "stream files")
    check(all(x["bytes"] == 2 * MB for x in streams), "each stream moved its file")
    # verbose: a line per stream before its pass line
    r = run(["--threads", "2", "-s", "1", "-C", "-v", "x", "-r"], d)
    lines = [l for l in r.lines if l.startswith("iotest: pass 1 stream ")]
    check(len(lines) == 2 and all(l.endswith(("x.0", "x.1")) for l in lines), "stream lines: %r" % r)
    # a verify failure names the stream's file
    flip(os.path.join(d, "x.1"), 70000)
    r = run(["--threads", "3", "-s", "2", "-b", "64", "-C", "x", "-er"], d, expect=3)
    check("x.1" in r.err and "offset 70000" in r.err, "the bad stream's file: %r" % r)
    # --iodepth above 1 needs a backend that queues; refused before anything is made
    e = os.path.join(d, "e")
    os.mkdir(e)
    r = run(["--threads", "2", "--iodepth", "8", "-s", "1", "y"], e, expect=2)
    check("posix" in r.err and listing(e) == [], "iodepth on posix: %r" % r)
    plugins = subprocess.run([IOBENCH, "plugins"], capture_output=True, text=True).stdout if IOBENCH else ""
    if "io_uring" not in plugins:
        print("note: no io_uring backend built: --iodepth 8 is not run")
        return
    r = run(["--backend", "io_uring", "--threads", "2", "--iodepth", "8", "-s", "2", "-b", "4", "-C",
             "--format", "iotest,json=q.json", "y", "-e"], e, expect=None)
    if r.rc == 2 and "io_uring" in r.err and "disabled" in r.err:
        print("note: io_uring is disabled here: %s" % r.err.strip())
        return
    check(r.rc == 0 and seq(r) == "WV", "io_uring, depth 8: %r" % r)
    doc = json.load(open(os.path.join(e, "q.json")))
    recs = [x for x in doc["records"] if x["kind"] == "phase"]
    check(all(x["streams"] == 2 and x["bytes"] == 4 * MB for x in recs), "io_uring aggregate: %r" % recs)
    check("iodepth = 8" in run(["--backend", "io_uring", "--iodepth", "8", "-s", "1", "y", "--dump-profile"],
                                e).out, "the profile carries iodepth")


# ---- outputs ----------------------------------------------------------------------


def case_format_json_csv(d):
    r = run(["--format", "iotest,json=r.json", "-p", "01", "-s", "2", "x", "-a"], d)
    doc = json.load(open(os.path.join(d, "r.json")))
    check(doc["tool"] == "iotest" and doc["status"] == "ok", "json document: %r" % doc)
    recs = [x for x in doc["records"] if x["kind"] == "phase"]
    check([x["phase"] for x in recs] == ["write", "verify", "write", "verify"], "ops: %r" % recs)
    check(len(doc["notes"]) >= 1, "json carries the caveats")
    for line, rec in zip(r.lines, recs):
        check(rec["bytes"] == 2 * MB and rec["block_size_bytes"] == 1024, "sizes: %r" % rec)
        check(abs(rec["bw_bytes_per_s"] * rec["elapsed_s"] - rec["bytes"]) <= 1e-6 * rec["bytes"], "bw = bytes/s")
        m = NORMAL.match(line)
        check(m and m["rate"] == "%.2f" % (rec["bw_bytes_per_s"] / MB), "line rate from the record: %s" % line)
        check(m["secs"] == "%.1f" % rec["elapsed_s"] and m["stamp"] == rec["stamp"], "line time: %s" % line)
        check(int(m["label"], 16) == rec["pattern_label"] and m["host"] == doc["host"], "label/host")
    r = run(["--format", "csv", "-s", "1", "x", "-rw"], d)
    rows = list(csv.DictReader(io.StringIO(r.out)))
    check(len(rows) == 2 and all(k in rows[0] for k in ("phase", "file", "bytes", "pass")), "csv: %r" % r)
    check([row["phase"] for row in rows] == ["write", "read"], "csv ops")
    check(all(row["bytes"] == str(MB) for row in rows), "csv bytes")
    check("page cache" in r.err and "page cache" not in r.out, "caveats on stderr only")
    r = run(["--format", "human", "-s", "1", "x"], d)
    check("[phase]" in r.out, "human: %r" % r)
    r = run(["--format", "iotest:curt", "-s", "1", "x"], d)
    check(CURT.match(r.lines[0]), "iotest:curt: %r" % r)


# ---- errors -----------------------------------------------------------------------

BAD = [
    (["-s", "0", "x"], "'0'"),
    (["-s", "-5", "x"], "'-5'"),
    (["-s", "99999999999999999999", "x"], "99999999999999999999"),
    (["-s", "1000000000", "x"], "not enough space"),
    (["-s", "abc", "x"], "'abc'"),
    (["-p", "5", "x"], "'5'"),
    (["-p", "/zz", "x"], "'/zz'"),
    (["-p", "4", "x"], "'4'"),
    (["-p", "=", "x"], "'='"),
    (["-p", "", "x"], "empty pattern"),
    (["-b", "3", "x"], "'3'"),
    (["-b", "0", "x"], "'0'"),
    (["-b", "1000", "x"], "'1000'"),
    (["-x", "x"], "'-x'"),
    (["--bogus", "x"], "'--bogus'"),
    (["x", "-s"], "-s needs a value"),
    (["x", "y"], "'y'"),
    (["-z", "-1", "x"], "'-1'"),
    (["--seed", "abc", "x"], "'abc'"),
    (["--backend", "nope", "x"], "'nope'"),
    (["--format", "nope", "x"], "'nope'"),
    (["--format", "json=no/such/r.json", "x"], "no/such"),
    (["-r", "missing"], "'missing'"),
    (["-i", "missing"], "'missing'"),
    (["-s", "1"], "no file given"),
    (["-r"], "no file given to read"),
    (["-er", "-p", "1"], "no file given to read"),
    (["-s", "1\n2", "x"], "'1\\x0a2'"),
    (["-o", "a\nb", "c"], "'a\\x0ab' and 'c'"),
    (["no/such/dir/x"], "no/such/dir"),
    (["sub"], "'sub' is a directory"),
    (["/dev/null"], "--allow-device"),
    (["-"], "no file given"),
    (["--threads", "0", "x"], "--threads '0'"),
    (["--threads", "4097", "x"], "--threads '4097'"),
    (["--threads", "two", "x"], "--threads 'two'"),
    (["--iodepth", "0", "x"], "--iodepth '0'"),
    (["--iodepth", "65537", "x"], "--iodepth '65537'"),  # a lone - is -d (the legacy spelling): still no file
]
# the letters the legacy synopsis lists but never explains: refused by name, alone or with a value
BAD += [([f"-{c}", "x"], f"-{c}") for c in "RT"]
BAD += [([f"-{c}", v, "x"], f"-{c}") for c, v in (("S", "4"), ("P", "0"), ("I", "f"), ("O", "f"), ("B", "1"),
                                                  ("Z", "1"))]


def case_bad_input(d):
    os.mkdir(os.path.join(d, "sub"))
    for args, needle in BAD:
        r = run(args, d, expect=2)
        errs = r.err.splitlines()
        check(len(errs) == 1 and ERROR.match(errs[0]), "one error line for %s: %r" % (args, r))
        check(needle in errs[0], "%s: message names %r: %r" % (args, needle, errs[0]))
        check(r.out == "", "nothing on stdout for %s" % args)
        check(listing(d) == ["sub"], "no file created by %s: %s" % (args, listing(d)))
        check(listing(os.path.join(d, "sub")) == [], "nothing created in sub")


def case_exit_codes(d):
    check(run(["-C", "-s", "1", "x"], d).rc == 0, "0 ok")
    check(run(["-s", "0", "x"], d, expect=None).rc == 2, "2 bad input")
    check(run(["-C", "-p0", "-s", "1", "x", "-er"], d, expect=None).rc == 3, "3 mismatch")
    r = run(["--allow-device", "-W", "-C", "-s", "1", "/dev/full"], d, expect=None)
    check(r.rc == 1 and "No space left on device" in r.err, "1 I/O failure: %r" % r)
    # a signal during the snooze after the write: 128 + 2, the pass line printed
    p = subprocess.Popen([IOTEST, "-C", "-s", "1", "-z", "60", "y"], cwd=d, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    first = p.stdout.readline()
    p.send_signal(signal.SIGINT)
    rest, err = p.communicate(timeout=60)
    check(p.returncode == 130, "130 after SIGINT: %d %s" % (p.returncode, err))
    check(CURT.match(first.rstrip("\n")) and rest == "", "the finished pass was printed: %r" % first)
    check("interrupted by signal 2" in err, "says why: %r" % err)


def case_devices(d):
    r = run(["-C", "-s", "1", "/dev/null"], d, expect=2)
    check("character device" in r.err and "--allow-device" in r.err, "refused: %r" % r)
    r = run(["--allow-device", "-W", "-C", "-s", "1", "/dev/null"], d)
    check(seq(r) == "W", "allowed: %r" % r)
    os.symlink("/dev/null", os.path.join(d, "link"))
    r = run(["-C", "-s", "1", "link"], d, expect=2)
    check("character device" in r.err, "device behind a symlink refused: %r" % r)
    os.remove(os.path.join(d, "link"))
    check(listing(d) == [], "nothing created")


def case_dump_profile(d):
    r = run(["--dump-profile", "-Cp", "013/0f4", "-t", "-s", "2", "x", "-a", "-d"], d)
    check(listing(d) == [], "--dump-profile creates nothing")
    prof = os.path.join(d, "p.ini")
    with open(prof, "w") as f:
        f.write(r.out)
    sections = re.findall(r"^\[(.+)\]$", r.out, re.M)
    want = []
    for i in range(5):
        want += ["pass%d-write" % (2 * i + 1), "pass%d-verify" % (2 * i + 2)]
    check(sections == want, "one section per pass, in order: %s" % sections)
    check(r.out.count("keep_files = true") == 10, "files kept")
    check(re.findall(r"^truncate = (\w+)$", r.out, re.M) == ["true"] + ["false"] * 9, "truncate first only")
    check(re.findall(r"^pattern = (.+)$", r.out, re.M)[::2] ==
          ["zero", "ones", "random", "byte:0x0f", "~byte:0x0f"], "patterns")
    check("dir = %s\n" % os.path.realpath(d) in r.out, "absolute dir")
    check("-d (drop caches) has no profile key" in r.out, "says what is left out")
    if not IOBENCH:
        return
    c = run(["check", prof], d, binary=IOBENCH)
    check("10 job(s) OK" in c.out, "iobench check: %r" % c)
    run(["run", prof, "--output", "json=run.json"], d, binary=IOBENCH)
    doc = json.load(open(os.path.join(d, "run.json")))
    got = [(x["job"], x["phase"], x["bytes"], x["status"]) for x in doc["records"]]
    check(got == [(n, n.split("-")[1], 2 * MB, "ok") for n in want], "iobench ran the same passes: %s" % got)
    # one record schema: iotest's own records are iobench's phase records, the
    # same base keys in the same order, with iotest's fields after them
    own = json.loads(run(["-p", "013/0f4", "-t", "-s", "2", "x", "-a", "--format", "json"], d).out)
    mine = [x for x in own["records"] if x["kind"] == "phase"]
    check(len(mine) == len(doc["records"]), "iotest records: %r" % own["records"])
    for a, b in zip(mine, doc["records"]):
        base = list(b.keys())
        check(list(a.keys())[:len(base)] == base and a["phase"] == b["phase"] and a["bytes"] == b["bytes"],
              "iotest record %r vs iobench's %r" % (list(a.keys()), base))
        check(all(k in a for k in ("direct", "os_read_bytes", "os_write_bytes", "ops_per_s", "pass", "stamp")),
              "checkable fields: %r" % a)
    run(["-C", "-p", "013/0f4", "-s", "2", "x", "-er"], d)  # and wrote what iotest expects
    all_bytes(os.path.join(d, "x"), 0xf0, 2 * MB)
    # a random pass with a seed round-trips too
    r = run(["--dump-profile", "-p3", "--seed", "99", "-s", "1", "y"], d)
    with open(prof, "w") as f:
        f.write(r.out)
    run(["run", prof], d, binary=IOBENCH)
    run(["-C", "-p3", "--seed", "99", "-s", "1", "y", "-er"], d)
    run(["-C", "-p3", "-s", "1", "y", "-er"], d, expect=3)


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in CASES:
        print("usage: iotest_test.py CASE\ncases: " + " ".join(sorted(CASES)))
        return 2
    return iob.run_case(argparse.Namespace(case=sys.argv[1], work=WORK), globals(), "iotest-")


if __name__ == "__main__":
    sys.exit(main())
