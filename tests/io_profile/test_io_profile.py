#!/usr/bin/env python3
"""Integration tests for io_profile: each case runs the real binary in a fresh
directory under the build tree (a real disk: O_DIRECT needs one) and asserts on
its output, exit status and the files it leaves.  No assertion depends on how
fast anything ran.

Usage: test_io_profile.py --bin DIR --build DIR --work DIR [--cmake EXE] CASE"""
import json
import math
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
from iobtest import Skip, expect  # noqa: E402

ARGS = None
HEADER = "I/O size [bytes], operations, time [s], throughput [bytes/s], I/O rate [1/s]"
ROW = re.compile(r"^(\d+),(\d+),(\d+\.\d{6}),(\d+\.\d{6}),(\d+\.\d{6})$")
# the row a stop signal cut short: the five fields, then the documented mark
ROW_INTERRUPTED = re.compile(r"^(\d+),(\d+),(\d+\.\d{6}),(\d+\.\d{6}),(\d+\.\d{6}),interrupted$")
DEFAULT_SIZES = [2 << k for k in range(16)]  # 2 .. 65536


def run(tool, *args, cwd, rc=None, env=None, timeout=120):
    return iob.tool(ARGS, tool, *args, cwd=cwd, rc=rc, env=env, timeout=timeout)


def iop(*args, cwd, rc=0, **kw):
    return run("io_profile", *args, cwd=cwd, rc=rc, **kw)


def listing(d):
    """Every path under d, relative, with the size of files."""
    out = {}
    for root, dirs, files in os.walk(d):
        for name in dirs:
            out[os.path.relpath(os.path.join(root, name), d) + "/"] = None
        for name in files:
            p = os.path.join(root, name)
            out[os.path.relpath(p, d)] = os.path.getsize(p)
    return out


def tree_paths(levels, files):
    """The documented tree: dir0/{file0..}, dir0/dir1/{file0..}, ..."""
    paths, d = [], ""
    for level in range(levels):
        d = f"{d}dir{level}/"
        paths.append(d)
        paths += [f"{d}file{f}" for f in range(files)]
    return paths


# ---- the legacy output ---------------------------------------------------------

def check_row(size, ops, t, thr, rate):
    """throughput = ops x size / time and rate = ops / time, recomputed from the
    printed fields: time is rounded to 1e-6 s, so the exact quotients lie between
    the values for time +- 5e-7; the printed rates are rounded to 1e-6 too."""
    half = 5e-7
    expect(ops > 0 and t >= 0 and thr > 0 and rate > 0, f"bad row {size},{ops},{t},{thr},{rate}")
    # the two rates come from the same time: their quotient is the size
    expect(abs(thr - rate * size) <= size * half + half + thr * 1e-12,
           f"row {size}: throughput {thr} != rate {rate} x size")
    lo_t, hi_t = max(t - half, 0.0), t + half
    work = ops * size
    expect(thr >= work / hi_t * (1 - 1e-12) - half, f"row {size}: throughput {thr} < {ops}x{size}/{hi_t}")
    expect(rate >= ops / hi_t * (1 - 1e-12) - half, f"row {size}: rate {rate} < {ops}/{hi_t}")
    if lo_t > 0:
        expect(thr <= work / lo_t * (1 + 1e-12) + half, f"row {size}: throughput {thr} > {ops}x{size}/{lo_t}")
        expect(rate <= ops / lo_t * (1 + 1e-12) + half, f"row {size}: rate {rate} > {ops}/{lo_t}")


def parse_rows(lines):
    rows = []
    for line in lines:
        m = ROW.match(line)
        expect(m, f"not a %d,%d,%f,%f,%f row: {line!r}")
        size, ops = int(m.group(1)), int(m.group(2))
        t, thr, rate = float(m.group(3)), float(m.group(4)), float(m.group(5))
        check_row(size, ops, t, thr, rate)
        rows.append((size, ops, t, thr, rate))
    return rows


def parse_legacy(text):
    """Split the legacy layout into its parameter lines, the rows of each test
    and the lines after the last test."""
    lines = text.split("\n")
    expect(lines[-1] == "", "output does not end with a newline")
    lines = lines[:-1]
    params, tests, trailer, i = {}, {}, [], 0
    if lines and lines[0] == "IO profile test parameters":
        expect(lines[1] == "--------------------------", lines[1])
        i = 2
        while lines[i]:
            key, _, value = lines[i].partition(": ")
            if lines[i].startswith("Reads (Writes) from "):
                key, value = "Reads (Writes)", lines[i]
            params[key] = value
            i += 1
        i += 1
    while i < len(lines):
        m = re.match(r"^Conducting (write|read) test\.\.\.$", lines[i])
        if not m:
            break
        test = m.group(1)
        expect(lines[i + 1] == HEADER, f"bad CSV header {lines[i + 1]!r}")
        j = i + 2
        while j < len(lines) and ROW.match(lines[j]):
            j += 1
        tests[test] = parse_rows(lines[i + 2:j])
        expect(j < len(lines) and lines[j] == f"Done with {test} test", f"no 'Done with {test} test': {lines[j:]}")
        i = j + 1
        if i < len(lines) and lines[i] == "":
            i += 1
    trailer = lines[i:]
    return params, tests, trailer


def parse_quiet(text):
    blocks = text.split("\n\n")
    out = []
    for b in blocks:
        lines = b.strip("\n").split("\n")
        expect(lines[0] == HEADER, f"quiet block without the CSV header: {lines[0]!r}")
        out.append(parse_rows(lines[1:]))
    return out


def sizes(rows):
    return [r[0] for r in rows]


def skip_bounds(n, size, file_size):
    """Operations done out of n when an offset in [0, file_size) is skipped if
    size bytes from it cross the end: binomial, p = (size - 1) / file_size.
    The run is deterministic for its seed, so wide bounds cannot flake."""
    p = (size - 1) / file_size
    sd = math.sqrt(n * p * (1 - p))
    return max(0, math.floor(n * (1 - p) - 8 * sd - 1)), min(n, math.ceil(n * (1 - p) + 8 * sd + 1))


def json_doc(p):
    doc = json.loads(p.stdout)
    expect(doc["status"] == "ok", f"status {doc['status']}: {doc.get('error')}")
    return doc


def phase_records(doc, phase):
    return [r for r in doc["records"] if r["kind"] == "phase" and r["phase"] == phase]


def read_bytes():
    with open("/proc/self/io") as f:
        return int(re.search(r"^read_bytes: (\d+)$", f.read(), re.M).group(1))


# ---- cases -----------------------------------------------------------------------

def case_defaults(d):
    """No options: the documented header, 16 sizes 2..65536 per sweep, 1000
    repetitions with skipped ops near the end of the 4 MiB files, the 3x4 tree."""
    p = iop(cwd=d)
    params, tests, trailer = parse_legacy(p.stdout)
    expect(re.fullmatch(r"\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}", params["Date"]), params["Date"])
    host = socket.gethostname().split(".")[0]
    expect(params["Location"] == f"{host}:{os.path.realpath(d)}", params["Location"])
    expect(params["File mode"] == "Multi-file filesystem, 3 levels, 4 files per level", params["File mode"])
    expect(params["Synch mode"].startswith("Using libc streams (stdio) through the buffer cache; open, seek, "
                                           "write and flush (or read), close per operation"), params["Synch mode"])
    expect(params["File size"] == "4194304 bytes", params["File size"])
    expect(params["Reads (Writes)"] == "Reads (Writes) from 2 to 65536 bytes", params["Reads (Writes)"])
    expect(params["Repetitions per read (write) size"] == "1000", params)
    expect(list(tests) == ["write", "read"], f"tests in order {list(tests)}")
    for test, rows in tests.items():
        expect(sizes(rows) == DEFAULT_SIZES, f"{test}: sizes {sizes(rows)}")
        for size, ops, *_ in rows:
            lo, hi = skip_bounds(1000, size, 4194304)
            expect(lo <= ops <= hi, f"{test} {size}: {ops} operations, expected {lo}..{hi}")
        expect(rows[-1][1] < 1000, f"{test}: no skipped op at 65536 bytes: {rows[-1]}")
    expect(sorted(listing(d)) == sorted(tree_paths(3, 4)), f"tree: {sorted(listing(d))}")
    expect(all(v in (None, 4194304) for v in listing(d).values()), listing(d))
    # the last line is the original's; where the files are goes to stderr
    expect(trailer == [] and p.stdout.endswith("\nDone with read test\n"), (trailer, p.stdout[-100:]))
    files_line = ("io_profile: Test files left behind: 12 files of 4194304 bytes in the tree "
                  f"{os.path.realpath(d)}/dir0")
    # caveats go to stderr, as iotest's do; the data set is 48 MiB
    errs = p.stderr.splitlines()
    expect(errs and errs[-1] == files_line, p.stderr)
    errs = errs[:-1]
    expect(all(l.startswith("io_profile: warning: ") for l in errs), p.stderr)
    mem = int(re.search(r"^MemTotal:\s+(\d+) kB", open("/proc/meminfo").read(), re.M).group(1)) * 1024
    if 48 << 20 < 2 * mem:
        # measured after each read phase (the kernel's count of bytes fetched from
        # storage), which replaces the prediction from the data set's size
        expect(any(re.search(r"read phase: \d+% of the data read came from memory, not storage", l) for l in errs),
               f"no cache warning: {errs}")
    expect(any("the write sweep does not sync" in l for l in errs), errs)


def case_single_file(d):
    """-s: one file, io_profile_file.out, of -l bytes; -l takes units."""
    p = iop("-s", "-l", "256K", "-n", "20", "-M", "4096", cwd=d)
    params, tests, trailer = parse_legacy(p.stdout)
    expect(params["File mode"] == "Single file, io_profile_file.out", params["File mode"])
    expect(params["File size"] == "262144 bytes", params["File size"])
    expect(listing(d) == {"io_profile_file.out": 262144}, listing(d))
    for rows in tests.values():
        expect(sizes(rows) == [2 << k for k in range(12)], sizes(rows))
    path = os.path.join(os.path.realpath(d), "io_profile_file.out")
    expect(trailer == [] and p.stdout.endswith("\nDone with read test\n"), trailer)
    expect(f"io_profile: Test file left behind: {path} (262144 bytes)\n" in p.stderr, p.stderr)


def case_tree_shape(d):
    """--levels and --files: exactly the documented tree, every file -l bytes."""
    p = iop("--levels", "2", "--files", "3", "-l", "64K", "-n", "5", "-M", "64", cwd=d)
    params, tests, _ = parse_legacy(p.stdout)
    expect(params["File mode"] == "Multi-file filesystem, 2 levels, 3 files per level", params["File mode"])
    got = listing(d)
    expect(sorted(got) == sorted(tree_paths(2, 3)), f"tree {sorted(got)}")
    expect(all(v in (None, 65536) for v in got.values()), got)
    d2 = tempfile.mkdtemp(dir=d)
    iop("--levels", "1", "--files", "1", "-l", "4K", "-n", "2", "-M", "8", cwd=d2)
    expect(sorted(listing(d2)) == ["dir0/", "dir0/file0"], sorted(listing(d2)))


def case_sizes_and_reps(d):
    """-m, -M (a bound that is not a power of two), -n: the sizes and counts."""
    p = iop("-s", "-l", "64K", "-m", "16", "-M", "1000", "-n", "7", cwd=d)
    params, tests, _ = parse_legacy(p.stdout)
    expect(params["Reads (Writes)"] == "Reads (Writes) from 16 to 512 bytes", params["Reads (Writes)"])
    expect(params["Repetitions per read (write) size"] == "7", params)
    for rows in tests.values():
        expect(sizes(rows) == [16, 32, 64, 128, 256, 512], sizes(rows))
        expect(all(ops <= 7 for _, ops, *_ in rows), rows)
    p = iop("-s", "-l", "64K", "-m", "3", "-M", "24", "-n", "3", cwd=d)
    _, tests, _ = parse_legacy(p.stdout)
    expect(sizes(tests["read"]) == [3, 6, 12, 24], sizes(tests["read"]))


def case_skipped_ops(d):
    """Near the end of the file: an op crossing it is skipped, not done; ops +
    skipped = -n exactly, and the counts follow (size - 1) / file size."""
    n = 400
    p = iop("-s", "-l", "8192", "-m", "1024", "-M", "8192", "-n", str(n), "-o", "json", cwd=d)
    doc = json_doc(p)
    for phase in ("write", "read"):
        recs = phase_records(doc, phase)
        expect([r["block_size_bytes"] for r in recs] == [1024, 2048, 4096, 8192], recs)
        for r in recs:
            expect(r["ops"] + r["skipped_ops"] == n, f"{phase} {r['block_size_bytes']}: {r['ops']} + "
                                                      f"{r['skipped_ops']} != {n}")
            lo, hi = skip_bounds(n, r["block_size_bytes"], 8192)
            expect(lo <= r["ops"] <= hi, f"{phase} {r['block_size_bytes']}: {r['ops']} ops, expected {lo}..{hi}")
            expect(r["bytes"] == r["ops"] * r["block_size_bytes"], r)
        # 8192 bytes fit only at offset 0: almost every op is skipped, but they are counted
        expect(recs[-1]["skipped_ops"] > n // 2, recs[-1])
    # the legacy rows show the operations done, from the same core fields
    p = iop("-s", "-l", "8192", "-m", "4096", "-M", "4096", "-n", str(n), "-q", cwd=d)
    for rows in parse_quiet(p.stdout):
        lo, hi = skip_bounds(n, 4096, 8192)
        expect(len(rows) == 1 and lo <= rows[0][1] <= hi < n, rows)


def case_row_arithmetic(d):
    """The printed rows against the core's unrounded figures: throughput is
    operations x size / time, rate is operations / time."""
    p = iop("-s", "-l", "1M", "-m", "512", "-M", "65536", "-n", "50", "-o", "json", cwd=d)
    doc = json_doc(p)
    recs = phase_records(doc, "write") + phase_records(doc, "read")
    expect(len(recs) == 16, len(recs))
    for r in recs:
        t = r["elapsed_s"]
        expect(t > 0, r)
        want_bw = r["ops"] * r["block_size_bytes"] / t
        expect(abs(r["bw_bytes_per_s"] - want_bw) <= want_bw * 1e-9, f"bw {r['bw_bytes_per_s']} != {want_bw}")
        want_rate = r["ops"] / t
        expect(abs(r["ops_per_s"] - want_rate) <= want_rate * 1e-9, f"rate {r['ops_per_s']} != {want_rate}")
        lat = r["lat_ns"]
        expect(lat["count"] == r["ops"] and len(lat["percentiles"]) == 16, lat)
        vals = list(lat["percentiles"].values())
        expect(vals == sorted(vals) and vals[-1] <= lat["max"], lat)
    # and the legacy renderer prints those same figures, 6 decimals
    p = iop("-s", "-l", "1M", "-m", "512", "-M", "65536", "-n", "50", "-o", "io_profile,json=run.json", cwd=d)
    _, tests, _ = parse_legacy(p.stdout)
    doc = json.load(open(os.path.join(d, "run.json")))
    legacy = tests["write"] + tests["read"]
    recs = phase_records(doc, "write") + phase_records(doc, "read")
    for row, r in zip(legacy, recs):
        want = "%d,%d,%f,%f,%f" % (r["block_size_bytes"], r["ops"], r["elapsed_s"], r["bw_bytes_per_s"],
                                   r["ops_per_s"])
        expect("%d,%d,%f,%f,%f" % row == want, f"row {row} != record {want}")


def direct_or_skip(d):
    p = iop("-s", "-b", "-l", "64K", "-n", "1", "-M", "65536", "--warmup", "0", "--dump-profile", cwd=d, rc=None)
    if p.returncode == 2 and "cannot bypass the buffer cache" in p.stderr and "file system" in p.stderr:
        raise Skip(f"no direct I/O under {d}: {p.stderr.strip()}")
    expect(p.returncode == 0, p.stderr)
    write_job = p.stdout[p.stdout.index("[io_profile-write]"):]
    return int(re.search(r"^block_size = (\d+)$", write_job, re.M).group(1))


def case_bypass(d):
    """-b: O_DIRECT from the logical block size up; a read sweep on the file
    just written reaches the device: the child's read_bytes (added to ours when
    it is reaped) covers every byte the sweep read.  The sweep reads the 4 MiB
    file many times over, so a cached read could not reach that count even if
    another process dropped the page cache meanwhile.  Without -b the same
    sweep comes from the page cache: read_bytes stays well below it."""
    block = direct_or_skip(d)
    file_size = 4 << 20
    args = ["-s", "-l", str(file_size), "-n", "300", "--warmup", "0", "-q"]
    before = read_bytes()
    p = iop("-b", *args, cwd=d)
    direct_read = read_bytes() - before
    write_rows, read_rows = parse_quiet(p.stdout)
    expect(sizes(read_rows) == [block << k for k in range(17) if block << k <= 65536], sizes(read_rows))
    swept = sum(size * ops for size, ops, *_ in read_rows)
    expect(swept > 4 * file_size, f"the sweep reads only {swept} bytes: no proof")
    expect(direct_read >= swept, f"-b read sweep: {direct_read} bytes from the device, {swept} read")
    expect(not any(",not bypassed" in l for l in p.stdout.splitlines()), p.stdout)
    expect("page cache" not in p.stderr, f"cache warnings with -b: {p.stderr}")

    before = read_bytes()
    p = iop("-m", str(block), *args, cwd=d)
    cached_read = read_bytes() - before
    _, read_rows = parse_quiet(p.stdout)
    swept = sum(size * ops for size, ops, *_ in read_rows)
    expect(cached_read < swept // 2, f"control without -b: {cached_read} bytes from the device of {swept}")

    p = iop("-b", "-s", "-l", "1M", "-n", "5", "-o", "json", cwd=d)
    doc = json_doc(p)
    recs = phase_records(doc, "write") + phase_records(doc, "read")
    expect(recs and all(r["direct"] is True and r["backend"] == "direct" for r in recs), recs)
    p = iop("-b", "-s", "-l", "1M", "-n", "5", cwd=d)
    params, _, _ = parse_legacy(p.stdout)
    expect(params["Synch mode"].startswith("Bypassing the buffer cache (O_DIRECT, backend direct)"), params)
    expect(params["Synch mode"].endswith("; synchronous writes (O_DSYNC)"), params)
    expect(params["Reads (Writes)"] == f"Reads (Writes) from {block} to 65536 bytes", params)
    bypass_writes_synchronous(d, block)


def bypass_writes_synchronous(d, block):
    """-b writes are synchronous, as the original's README says: every open of
    the file for writing asks for O_DIRECT and O_DSYNC (strace sees the flags
    the kernel got); --backend-options dsync=0 turns O_DSYNC off, and the
    header says which."""
    if not shutil.which("strace"):
        print("note: strace is missing: the O_DSYNC flags are not checked from outside")
        return
    e = dict(os.environ)
    e.pop("IOBENCH_PLUGIN_PATH", None)
    # LeakSanitizer cannot run under a tracer (it uses ptrace itself)
    e["ASAN_OPTIONS"] = e.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
    for extra, dsync in (([], True), (["--backend-options", "dsync=0"], False)):
        trace = os.path.join(d, "openat.trace")
        p = subprocess.run(["strace", "-f", "-e", "trace=open,openat", "-o", trace,
                            os.path.join(ARGS.bin, "io_profile"), "-b", "-s", "-l", "1M", "-M", str(block * 2),
                            "-n", "5", "--warmup", "0", *extra], cwd=d, capture_output=True, text=True, env=e,
                           timeout=120)
        expect(p.returncode == 0, f"strace io_profile -b {extra}: {p.returncode} {p.stderr[-1000:]}")
        with open(trace) as f:
            opens = [l for l in f if "io_profile_file.out" in l and ("O_WRONLY" in l or "O_RDWR" in l)]
        os.unlink(trace)
        expect(opens and all("O_DIRECT" in l and ("O_DSYNC" in l) == dsync for l in opens),
               f"-b {extra}: opens for writing {opens[:3]}")
        mode = parse_legacy(p.stdout)[0]["Synch mode"]
        expect(mode.endswith("synchronous writes (O_DSYNC)" if dsync else "; no fsync"), mode)


def case_bypass_refusals(d):
    """-b refuses what cannot bypass the cache, with the block size named, before
    creating anything."""
    block = direct_or_skip(d)
    for args, text in [
        (["-m", "2"], f"-b: -m 2 cannot bypass the buffer cache: direct I/O moves whole logical blocks of {block} bytes"),
        (["-m", str(block + block // 2)], "must be a multiple of"),
        (["-l", str(4 * block + 1), "-M", str(block)], f"is not a multiple of the {block}-byte logical block size"),
        (["--backend", "stdio"], "-b means the direct backend"),
        (["-M", str(block // 2)], "above -M"),
    ]:
        p = iop("-b", *args, cwd=d, rc=2)
        expect(p.stdout == "" and p.stderr.count("\n") == 1 and text in p.stderr, f"{args}: {p.stderr!r}")
        expect(listing(d) == {}, f"{args}: created {listing(d)}")
    # the direct backend's dsync option takes 0 or 1 only
    p = iop("-b", "-s", "--backend-options", "dsync=2", cwd=d, rc=2)
    expect(p.stdout == "" and "dsync=2: the value must be 0 or 1" in p.stderr, p.stderr)
    expect(listing(d) == {}, f"dsync=2: created {listing(d)}")


def case_read_only(d):
    """-r: only the read sweep, on what an earlier run left; nothing changes."""
    iop("-l", "64K", "-n", "5", "-M", "64", "--levels", "2", "--files", "2", cwd=d)
    before = {p: open(os.path.join(d, p), "rb").read() for p, s in listing(d).items() if s is not None}
    stamps = {p: os.stat(os.path.join(d, p)).st_mtime_ns for p in before}
    p = iop("-r", "-n", "5", "-M", "64", "--levels", "2", "--files", "2", cwd=d)
    params, tests, trailer = parse_legacy(p.stdout)
    expect(list(tests) == ["read"] and "Conducting write test..." not in p.stdout, p.stdout)
    expect(params["File size"] == "65536 bytes", params)  # from the files, no -l given
    expect(not any("left behind" in l for l in trailer), trailer)
    after = {p: open(os.path.join(d, p), "rb").read() for p in before}
    expect(after == before and stamps == {p: os.stat(os.path.join(d, p)).st_mtime_ns for p in before},
           "-r changed the files")
    p = iop("-r", "-l", "1M", "--levels", "2", "--files", "2", cwd=d, rc=2)
    expect("fewer than -l 1048576" in p.stderr, p.stderr)
    e = tempfile.mkdtemp(dir=d)
    p = iop("-r", "-s", cwd=e, rc=2)
    expect("does not exist" in p.stderr and listing(e) == {}, p.stderr)


def case_quiet(d):
    """-q: only the two CSV blocks on stdout; where the files are and the notes
    go to stderr."""
    p = iop("-s", "-l", "64K", "-n", "4", "-M", "16", "-q", cwd=d)
    blocks = p.stdout.split("\n\n")
    expect(len(blocks) == 2, p.stdout)
    w, r = parse_quiet(p.stdout)
    expect(sizes(w) == sizes(r) == [2, 4, 8, 16], p.stdout)
    expect(len(p.stdout.strip().splitlines()) == 2 + 1 + 8, p.stdout)
    expect("io_profile: Test file left behind: " in p.stderr and "io_profile: warning: " in p.stderr, p.stderr)


def case_repeat(d):
    """--repeat 3: every sweep row three times, in the legacy row format, each
    run's phase record marked repeat 0..2, then a repeats record whose mean
    is the mean of the rows' throughput; --repeat 0 and 1001 refused (one
    line, exit 2, nothing created)."""
    p = iop("-s", "-l", "64K", "-n", "4", "-M", "16", "-q", "--repeat", "3", cwd=d)
    w, r = parse_quiet(p.stdout)
    expect(sizes(w) == sizes(r) == [2, 2, 2, 4, 4, 4, 8, 8, 8, 16, 16, 16], p.stdout)
    p = iop("-s", "-l", "64K", "-n", "4", "-M", "8", "--repeat", "3", "-o", "json", cwd=d)
    doc = json_doc(p)
    for phase in ("write", "read"):
        ph = phase_records(doc, phase)
        expect([x["repeat"] for x in ph] == [0, 1, 2] * 3, ph)
        reps = [x for x in doc["records"] if x["kind"] == "repeats" and x["phase"] == phase]
        expect([x["block_size_bytes"] for x in reps] == [2, 4, 8] and all(x["repeats"] == 3 for x in reps), reps)
        for x in reps:
            bw = [y["bw_bytes_per_s"] for y in ph if y["block_size_bytes"] == x["block_size_bytes"]]
            expect(abs(x["bw_mean_bytes_per_s"] - sum(bw) / 3) <= 1e-9 * x["bw_mean_bytes_per_s"], (x, bw))
    for bad in ("0", "1001"):
        e = tempfile.mkdtemp(dir=d)
        p = iop("-s", "--repeat", bad, cwd=e, rc=2)
        expect(p.stderr.count("\n") == 1 and f"--repeat: repeat '{bad}' is out of range" in p.stderr, p.stderr)
        expect(os.listdir(e) == [], os.listdir(e))


def case_keep_open(d):
    """--keep-open: files opened once per size, in the header and the profile."""
    p = iop("-s", "-l", "64K", "-n", "10", "-M", "64", "-k", cwd=d)
    params, tests, _ = parse_legacy(p.stdout)
    expect("each file opened once per size" in params["Synch mode"], params["Synch mode"])
    expect(sizes(tests["read"]) == [2, 4, 8, 16, 32, 64], tests)
    p = iop("-s", "-l", "64K", "--keep-open", "--dump-profile", cwd=d)
    expect(p.stdout.count("reopen = false") == 4, p.stdout)
    p = iop("-s", "-l", "64K", "--dump-profile", cwd=d)
    expect(p.stdout.count("reopen = true") == 3, p.stdout)  # every random-access job


def case_remove(d):
    """--remove: takes away exactly what the run created."""
    p = iop("-l", "64K", "-n", "3", "-M", "64", "--remove", cwd=d)
    expect(listing(d) == {}, listing(d))
    expect("Test files removed: 12 files and 3 directories this run created" not in p.stdout and
           "io_profile: Test files removed: 12 files and 3 directories this run created" in p.stderr, p.stderr)
    # dir0, a file of the tree and a file of the user's exist before: they stay;
    # the rest goes
    os.makedirs(os.path.join(d, "dir0"))
    for name in ("dir0/file1", "dir0/mine.txt"):
        with open(os.path.join(d, name), "w") as f:
            f.write("keep me")
    p = iop("-l", "64K", "-n", "3", "-M", "64", "--remove", cwd=d)
    expect(sorted(listing(d)) == ["dir0/", "dir0/file1", "dir0/mine.txt"], sorted(listing(d)))
    expect(open(os.path.join(d, "dir0/mine.txt")).read() == "keep me", "user file changed")
    expect("11 files and 2 directories this run created" in p.stderr and
           "1 file that existed before the run kept" in p.stderr, p.stderr)


def case_dump_profile(d):
    """--dump-profile: creates nothing; `iobench run` on it does the same
    operations (same sizes, counts and skipped ops, from the same seed)."""
    args = ["--levels", "2", "--files", "2", "-l", "32K", "-m", "512", "-M", "16K", "-n", "60", "--seed", "7"]
    p = iop(*args, "--dump-profile", cwd=d)
    expect(listing(d) == {}, listing(d))
    expect(p.stdout.startswith("; io_profile --levels 2"), p.stdout[:200])
    for key in ("[io_profile-create]", "[io_profile-warmup]", "[io_profile-write]", "[io_profile-read]",
                "skip_past_end = true", "reopen = true", "block_size = 512", "block_size_max = 16384",
                "ops = 60", "seed = 7", "offset_align = 1", "fill_once = true", "backend = stdio"):
        expect(key in p.stdout, f"{key} not in the profile:\n{p.stdout}")
    prof = os.path.join(tempfile.mkdtemp(dir=d), "io_profile.ini")
    with open(prof, "w") as f:
        f.write(p.stdout)
    a, b = tempfile.mkdtemp(dir=d), tempfile.mkdtemp(dir=d)
    run("iobench", "check", prof, cwd=a, rc=0)
    mine = json_doc(iop(*args, "-o", "json", cwd=a))
    theirs = json_doc(run("iobench", "run", prof, "--output", "json", cwd=b, rc=0))
    for phase in ("write", "read"):
        m = [(r["block_size_bytes"], r["ops"], r["skipped_ops"], r["bytes"]) for r in phase_records(mine, phase)]
        t = [(r["block_size_bytes"], r["ops"], r["skipped_ops"], r["bytes"]) for r in phase_records(theirs, phase)
             if r["job"] == f"io_profile-{phase}"]
        expect(len(m) == 6 and m == t, f"{phase}: io_profile {m} != iobench {t}")
    expect(sorted(listing(a)) == sorted(listing(b)), "different files")
    p = iop("-s", "-l", "64K", "--warmup", "0", "--dump-profile", cwd=d)
    expect("[io_profile-warmup]" not in p.stdout, p.stdout)
    p = iop("-s", "-l", "64K", "--warmup", "5", "--dump-profile", cwd=d)
    warm = p.stdout[p.stdout.index("[io_profile-warmup]"):p.stdout.index("[io_profile-write]")]
    expect("ops = 5\n" in warm and "block_size = 65536\n" in warm and "phases = read\n" in warm, warm)
    # a line break in an argument cannot add a line to the profile: in the
    # comment it is shown as '?'; in a value it is refused
    os.mkdir(os.path.join(d, "x\n[evil]"))
    p = iop("-s", "-l", "64K", "-d", "x\n[evil]", "--dump-profile", cwd=d, rc=2)
    expect(p.stdout == "" and "line break" in p.stderr and p.stderr.count("\n") == 1, p.stderr)
    p = iop("-s", "-l", "64K", "--plugin-dir", "x\n[evil]", "--dump-profile", cwd=d)
    expect(p.stdout.startswith("; io_profile -s -l 64K --plugin-dir x?[evil] --dump-profile\n") and
           "\n[evil]" not in p.stdout, p.stdout[:200])
    p = iop("-s", "-l", "64K", "--output", "io_profile", "--dump-profile", "-q", cwd=d)
    expect(p.stdout.startswith("; io_profile -s -l 64K --output io_profile --dump-profile -q\n"), p.stdout[:200])
    e = tempfile.mkdtemp(dir=d)
    p = iop("-s", "-l", "64K", "-r", "--dump-profile", cwd=e, rc=2)  # -r: there is no file to read yet
    expect("does not exist" in p.stderr and listing(e) == {}, p.stderr)


def case_seed(d):
    """--seed: the same seed repeats the operations, another changes them."""
    args = ["-s", "-l", "8K", "-m", "1024", "-M", "4096", "-n", "200", "-o", "json"]

    def counts(seed):
        doc = json_doc(iop(*args, "--seed", str(seed), cwd=d))
        return [(r["phase"], r["ops"]) for r in doc["records"] if r["kind"] == "phase"]
    expect(counts(1) == counts(1), "same seed, other operations")
    expect(counts(1) != counts(2), "seeds 1 and 2 give the same operations")


def case_outputs(d):
    """--output: json and csv carry the rows (with latency percentiles), human
    works, an unknown output is refused."""
    doc = json_doc(iop("-s", "-l", "64K", "-n", "5", "-M", "64", "-o", "json", cwd=d))
    kinds = [r["kind"] for r in doc["records"]]
    expect(kinds == ["io_profile_test"] + ["phase"] * 6 + ["io_profile_test"] + ["phase"] * 6 +
           ["io_profile_files"], kinds)
    test = doc["records"][0]
    expect(test["test"] == "write" and test["file_size_bytes"] == 65536 and test["repetitions"] == 5 and
           test["io_size_min_bytes"] == 2 and test["io_size_max_bytes"] == 64, test)
    expect(doc["tool"] == "io_profile" and "-o json" in doc["source"], doc)
    # measured after each read (the kernel's count of bytes fetched from storage)
    expect(any(re.search(r"read phase: \d+% of the data read came from memory", n) for n in doc["notes"]),
           doc["notes"])
    p = iop("-s", "-l", "64K", "-n", "5", "-M", "64", "-o", "csv", cwd=d)
    expect("block_size_bytes" in p.stdout and "lat_ns_p99_9" in p.stdout, p.stdout[:500])
    p = iop("-s", "-l", "64K", "-n", "5", "-M", "64", "-o", "human", cwd=d)
    expect("[phase]" in p.stdout and "io_profile-write" in p.stdout, p.stdout[:500])
    p = iop("-o", "nope", cwd=d, rc=2)
    expect("unknown output 'nope'" in p.stderr, p.stderr)


def case_version_help(d):
    p = iop("-v", cwd=d)
    expect(re.match(r"^io_profile \d+\.\d+\.\d+ ", p.stdout), p.stdout)
    p = iop("--version", cwd=d)
    expect(p.stdout.startswith("io_profile "), p.stdout)
    p = iop("-h", cwd=d)
    for opt in ("-s", "-l SIZE", "-m SIZE", "-M SIZE", "-n COUNT", "-b", "-r", "-q", "--levels", "--files",
                "--keep-open", "--remove", "--backend", "--output", "--seed", "--warmup", "--dump-profile", "--dir",
                "--plugin-dir", "-v", "-h"):
        expect(opt in p.stdout, f"{opt} not in the help")
    expect(listing(d) == {}, listing(d))


def case_options_misc(d):
    """--dir, --backend, --warmup, --plugin-dir."""
    sub = os.path.join(d, "sub")
    os.mkdir(sub)
    p = iop("-d", sub, "-s", "-l", "64K", "-n", "3", "-M", "64", cwd=d)
    params, _, _ = parse_legacy(p.stdout)
    expect(params["Location"].endswith(":" + os.path.realpath(sub)), params["Location"])
    expect(sorted(listing(d)) == ["sub/", "sub/io_profile_file.out"], sorted(listing(d)))
    p = iop("--dir", sub, "-s", "-l", "64K", "-n", "3", "-M", "64", "--backend", "posix", "--warmup", "0", cwd=d)
    params, tests, _ = parse_legacy(p.stdout)
    expect(params["Synch mode"].startswith("Using backend posix through the buffer cache"), params)
    expect(len(tests["read"]) == 6, tests)
    p = iop("-s", "-l", "64K", "-n", "3", "-M", "64", "--backend", "nope", cwd=sub, rc=2)
    expect("backend 'nope' is not loaded" in p.stderr, p.stderr)
    p = iop("--plugin-dir", os.path.join(d, "none"), "-s", "-l", "64K", "-n", "3", "-M", "64", "-q", cwd=sub)
    expect("warning:" in p.stderr and "none" in p.stderr, p.stderr)


def make_unwritable(path):
    if os.geteuid() != 0:
        os.chmod(path, 0o555)
        return lambda: os.chmod(path, 0o755)
    if shutil.which("chattr") and subprocess.run(["chattr", "+i", path], capture_output=True).returncode == 0:
        return lambda: subprocess.run(["chattr", "-i", path], capture_output=True)
    return None


def case_bad_input(d):
    """Bad input: one line on stderr, exit 2, nothing created."""
    cases = [
        (["-m", "8", "-M", "4"], "-m 8 is above -M 4"),
        (["-n", "0"], "-n 0: every size needs at least one repetition"),
        (["-l", "1000", "-M", "4096"], "-l 1000 is smaller than the largest I/O size 4096"),
        (["-s", "-l", "32K"], "-l 32768 is smaller than the largest I/O size 65536"),
        (["-l", "abc"], "-l: 'abc' is not a size"),
        (["-l", "4mb"], "-l: ambiguous unit"),
        (["-m", "1x"], "-m: unknown unit"),
        (["-n", "ten"], "-n: 'ten' is not a non-negative whole number"),
        (["-n", "-5"], "-n: '-5' is not a non-negative whole number"),
        (["--seed", "1.5"], "--seed: '1.5' is not a non-negative whole number"),
        (["--levels", "0"], "at least one level and one file per level"),
        (["--levels", "65"], "tree_levels 65 is over the limit of 64"),
        (["--levels", "60", "--files", "4000000000"], "over the 100000-file limit"),
        (["-m", "0"], "-m 0"),
        (["-M", "4G"], "above the 2 GiB limit"),
        (["-r", "--remove"], "--remove with -r"),
        (["-x"], "unknown option '-x'"),
        (["--bogus"], "unknown option '--bogus'"),
        (["-l"], "option '-l' needs a value"),
        (["extra"], "unexpected argument 'extra'"),
        (["extra\nline"], "unexpected argument 'extra\\x0aline'"),
        (["--levels", "5\n"], "--levels: '5\\x0a' is not a non-negative whole number"),
        (["-d", os.path.join(d, "missing")], "does not exist"),
        (["-l", "1T"], "not enough space"),
        (["-o", "json=" + os.path.join(d, "no", "x.json")], "does not exist"),
    ]
    for args, text in cases:
        p = iop(*args, cwd=d, rc=2)
        expect(p.stdout == "", f"{args}: stdout {p.stdout!r}")
        expect(p.stderr.startswith("io_profile: error: ") and p.stderr.count("\n") == 1 and text in p.stderr,
               f"{args}: stderr {p.stderr!r}, want {text!r}")
        expect(listing(d) == {}, f"{args}: created {listing(d)}")
    ro = os.path.join(d, "ro")
    os.mkdir(ro)
    undo = make_unwritable(ro)
    if undo is None:
        print("unwritable directory: skipped (root without chattr)")
        return
    try:
        p = iop("-s", "-l", "64K", cwd=ro, rc=2)
        expect(p.stderr.count("\n") == 1 and "is not writable" in p.stderr, p.stderr)
        p = iop("-d", ro, cwd=d, rc=2)
        expect(p.stderr.count("\n") == 1 and "is not writable" in p.stderr, p.stderr)
        expect(os.listdir(ro) == [], os.listdir(ro))
    finally:
        undo()


def case_interrupted(d):
    """SIGINT during the write sweep: the rows so far, (interrupted), exit 130,
    files left and said so."""
    e = dict(os.environ)
    e.pop("IOBENCH_PLUGIN_PATH", None)
    proc = subprocess.Popen([os.path.join(ARGS.bin, "io_profile"), "-s", "-l", "64K", "-M", "64", "-n",
                             "1000000000", "--warmup", "0"], cwd=d, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=e)
    target = os.path.join(d, "io_profile_file.out")
    for _ in range(1000):  # the file is whole before the sweeps start
        if os.path.exists(target) and os.path.getsize(target) == 65536:
            break
        time.sleep(0.01)
    time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    expect(proc.returncode == 130, f"exit {proc.returncode}: {err}")
    expect("Conducting write test..." in out and "(interrupted)" in out, out)
    expect("Done with write test" not in out and "Conducting read test" not in out, out)
    expect(err.strip().endswith("io_profile: error: interrupted by signal 2"), err)
    rows = [l for l in out.splitlines() if ROW.match(l)]
    expect(not rows, rows)  # the first size, stopped partway: marked
    cut = [l for l in out.splitlines() if ROW_INTERRUPTED.match(l)]
    expect(len(cut) == 1 and cut[0].startswith("2,"), out)
    m = ROW_INTERRUPTED.match(cut[0])
    check_row(int(m.group(1)), int(m.group(2)), float(m.group(3)), float(m.group(4)), float(m.group(5)))
    expect(0 < int(m.group(2)) < 1000000000, cut)
    expect(out.endswith(cut[0] + "\n(interrupted)\n"), out[-200:])
    expect("Test file left behind" not in out, out)
    expect("io_profile: Test file left behind: " in err and os.path.exists(target), err)


def case_install(d):
    """The binary and its man page are installed."""
    prefix = os.path.join(d, "prefix")
    p = subprocess.run([ARGS.cmake, "--install", ARGS.build, "--prefix", prefix], capture_output=True, text=True,
                       timeout=120)
    expect(p.returncode == 0, p.stdout + p.stderr)
    expect(os.access(os.path.join(prefix, "bin", "io_profile"), os.X_OK), "no bin/io_profile")
    man = [os.path.join(r, f) for r, _, fs in os.walk(prefix) for f in fs if f == "io_profile.1"]
    expect(len(man) == 1 and "/man/man1/" in man[0], man)
    text = open(man[0]).read()
    expect(".TH IO_PROFILE 1" in text and "dir0/dir1" in text, "bad man page")
    p = subprocess.run([os.path.join(prefix, "bin", "io_profile"), "-v"], capture_output=True, text=True)
    expect(p.returncode == 0 and p.stdout.startswith("io_profile "), p.stdout + p.stderr)


def main():
    global ARGS
    ARGS = iob.arguments("--bin", "--build", "--work", optional={"--cmake": "cmake"}, case=True)
    return iob.run_case(ARGS, globals(), "iop-", cleanup=writable_tree)


def writable_tree(d):
    """A failed case may leave a directory unwritable."""
    for root, dirs, _ in os.walk(d):
        for name in dirs:
            make_writable(os.path.join(root, name))


def make_writable(path):
    if os.geteuid() == 0 and shutil.which("chattr"):
        subprocess.run(["chattr", "-i", path], capture_output=True)
    else:
        os.chmod(path, 0o755)


if __name__ == "__main__":
    sys.exit(main())
