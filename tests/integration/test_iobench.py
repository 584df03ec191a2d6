#!/usr/bin/env python3
"""Integration tests for the iobench binary: each case runs the real binary in a
temporary directory under the build tree and asserts on its output, exit code
and the files it leaves.  Usage: test_iobench.py --bin DIR --src DIR --work DIR CASE"""
import csv
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
from iobtest import SKIP, expect, write  # noqa: E402
from odirect import direct_refused  # noqa: E402

ARGS = None
# IOB_TEST_OS=windows: the .exe under wine (tests/windows): its backends are
# win32 and direct (unbuffered + write-through, on any file system), its
# plugins DLLs, and Windows has no eviction (docs/windows.md).
WINDOWS = os.environ.get("IOB_TEST_OS") == "windows"
BACKENDS = ("win32", "direct") if WINDOWS else ("stdio", "posix", "direct", "mmap")
PLUGIN_SUFFIX = ".dll" if WINDOWS else ".so"


def no_direct_io(tmp):
    """Why the direct backend cannot run in tmp (None: it can)."""
    return None if WINDOWS else direct_refused(tmp)


def iobench(*args, stdin=None, env=None, check_rc=None):
    return iob.tool(ARGS, "iobench", *args, rc=check_rc, env=env, input=stdin, timeout=240, tail=2000)


def case_plugin_options(tmp):
    """ABI 1.4: `iobench plugins --options` lists a backend's declared options,
    and the core refuses an undeclared or bad one, naming it, before any file."""
    p = iobench("plugins", "--options", "direct", check_rc=0)
    rows = [l.split() for l in p.stdout.splitlines()]
    expect(rows and rows[0][:3] == ["OPTION", "TYPE", "DEFAULT"], p.stdout)
    expect(["dsync", "bool", "0", "0|1"] in rows, p.stdout)
    p = iobench("plugins", "--options", "stdio", check_rc=0)
    expect("declares no options" in p.stdout, p.stdout)
    p = iobench("plugins", "--options", "nosuch", check_rc=2)
    expect(p.stdout == "" and "nosuch" in p.stderr, p.stderr)
    target = os.path.join(tmp, "data")
    for opts, want in [("dsync=1,bogus=2", "unknown backend option 'bogus' (direct takes: dsync)"),
                       ("dsync=7", "dsync=7: the value must be 0 or 1")]:
        prof = os.path.join(tmp, "p.ini")
        with open(prof, "w") as f:
            f.write(f"[j]\nbackend = direct\nbackend_options = {opts}\nfilename = data\nsize = 1M\n")
        p = iobench("check", prof, "--dir", tmp, check_rc=2)
        lines = p.stderr.strip().splitlines()
        expect(len(lines) == 1 and want in lines[0], p.stderr)
        expect(not os.path.exists(target), "a refused check created the data file")
    # every declared option is one the backend's own parser takes (the core asks
    # its control() after its own check): the declaration and the code agree
    listed = iobench("plugins", check_rc=0).stdout.splitlines()
    for b in [l.split()[1] for l in listed if l.startswith("backend ")]:
        out = iobench("plugins", "--options", b, check_rc=0).stdout
        if "declares no options" in out:
            continue
        for row in [l.split() for l in out.splitlines()[1:] if l and not l.startswith(" ")]:
            name, kind, values = row[0], row[1], row[-1]
            value = "0" if kind == "bool" else values.split("..")[0] if kind == "count" else values.split("|")[0]
            prof = os.path.join(tmp, "d.ini")
            with open(prof, "w") as f:
                f.write(f"[j]\nbackend = {b}\nbackend_options = {name}={value}\nfilename = data\nsize = 1M\n")
            p = iobench("check", prof, "--dir", tmp)
            expect("backend_options" not in p.stderr, f"{b}: declared {name}={value} refused: {p.stderr}")


# Profile keys set to a value other than their default, with the value the
# phase record must then carry (docs/outputs.md, "phase").
LOAD_KEYS = [
    ("threads", "2", 2),
    ("iodepth", "1", 1),
    ("rwmix_read", "70", 70),
    ("runtime", "30s", 30 * 10**9),
    ("time_based", "false", False),
    ("ramp_time", "1ms", 10**6),
    ("backend_options", "fadvise_random=1", "fadvise_random=1"),
    ("random_map", "false", False),
    ("offset_align", "4K", 4096),
    ("memory_limit", "1G", 1 << 30),
    ("ops", "8", 8),
    ("skip_past_end", "true", True),
    ("evict_before_read", "true", True),
    ("compress_percentage", "50", 50),
    ("compress_chunk", "4K", 4096),
]
# The keys of the table that name no phase record field, and why: the rest
# shape the load, and `iobench keys --tsv` must give each a record field.  A
# key added to the table is in neither list until its row says .record or
# this list says why it needs none: the test names it.
NOT_RECORDED = {
    # written by the phase record's base keys (result.c) under their own names
    **dict.fromkeys(("backend", "dir", "filename", "phases", "access", "block_size", "size", "pattern", "seed", "fsync",
                     "truncate", "group"), "a base key of the record"),
    "block_size_max": "a sweep: each phase's block_size_bytes is the size it ran at",
    # what the run keeps, names, allows or reports, not what it loads the target with
    **dict.fromkeys(("description", "keep_files", "allow_devices", "follow_symlinks", "log_interval", "livecsv",
                     "bw_log", "iops_log", "lat_log", "log_prio", "log_offset", "percentiles", "verify_dump",
                     "verify_fatal", "verify_generation"), "not the load: what is kept, allowed or reported"),
    # records of their own: a series' block records, repeats, steady state
    **dict.fromkeys(("series", "series_clock", "repeat", "until_ci", "repeat_max", "steady_state", "steady_window",
                     "steady_round", "steady_max_rounds", "steady_ramp", "steady_rule", "steady_range",
                     "steady_slope", "steady_limit"), "a record of its own (block, repeats, steady)"),
    # workload = files: its "meta" records say its shape (docs/metadata.md)
    **dict.fromkeys(("workload", "meta_phases", "files", "tree_depth", "tree_branch", "dir_per_stream",
                     "file_bytes", "file_fsync", "stat_other", "drop_caches", "path_walk"), "the meta record's"),
}
UNITS = {"": 1, "k": 1 << 10, "kib": 1 << 10, "kb": 10**3, "m": 1 << 20, "mib": 1 << 20, "mb": 10**6,
         "g": 1 << 30, "gib": 1 << 30, "gb": 10**9}
NS = {"ns": 1, "us": 10**3, "ms": 10**6, "s": 10**9, "m": 60 * 10**9, "h": 3600 * 10**9}


def record_value(kind, text):
    """A key's default text as the phase record carries it (None: a form this test does not read)."""
    m = re.fullmatch(r"(\d+)([a-z]*)", text.lower())
    if kind in ("count", "size") and m and m.group(2) in UNITS:
        return int(m.group(1)) * UNITS[m.group(2)]
    if kind == "duration" and m and m.group(2) in NS:
        return int(m.group(1)) * NS[m.group(2)]
    if kind == "bool" and text in ("true", "false"):
        return text == "true"
    if kind.startswith(("enum", "string", "list")):
        return text
    return None


def case_phase_load_keys(tmp):
    """Every row of the key table that names a phase record field (`iobench keys
    --tsv`) is in every phase record, with the value the profile gave or the
    key's default; every other row says here why it needs none."""
    p = iobench("keys", "--tsv", check_rc=0)
    lines = p.stdout.splitlines()
    expect(lines and lines[0].split("\t") == ["key", "type", "unit", "default", "record", "meaning"], lines[:1])
    rows = {}
    for l in lines[1:]:
        cols = l.split("\t")
        expect(len(cols) == 6, f"not 6 columns: {l!r}")
        rows[cols[0]] = cols
    plain = iobench("keys", check_rc=0).stdout.splitlines()[1:]
    expect(sorted(rows) == sorted(l.split()[0] for l in plain), "--tsv and the plain list differ in keys")
    recorded = {k: c[4] for k, c in rows.items() if c[4]}
    missing = [key for key in rows if key not in recorded and key not in NOT_RECORDED]
    expect(not missing, f"keys naming no phase record field: {', '.join(missing)}: give each row .record (keys.c) "
                        f"when it shapes the load, else add it to NOT_RECORDED with why")
    for key in NOT_RECORDED:
        expect(key in rows and key not in recorded, f"NOT_RECORDED: {key} is not a key, or it is recorded")
    expect(len(recorded) >= 60 and "verify_backlog" in recorded and "verify_backlog_batch" in recorded, recorded)
    for key, _, _ in LOAD_KEYS:
        expect(key in recorded, f"{key} is not a recorded key of the table")
    prof = os.path.join(tmp, "p.ini")
    body = "".join(f"{k} = {v}\n" for k, v, _ in LOAD_KEYS)
    with open(prof, "w") as f:
        f.write("[w]\nfilename = d\nsize = 1M\nblock_size = 64K\nphases = write\nthreads = 2\nkeep_files = true\n"
                "[j]\nfilename = d\nsize = 1M\nblock_size = 64K\naccess = rand\nphases = mixed\n"
                "backend = posix\n" + body)
    out = os.path.join(tmp, "o.json")
    iobench("run", prof, "--dir", tmp, "--output", "json=" + out, check_rc=0)
    doc = json.load(open(out))
    given = {k: want for k, _, want in LOAD_KEYS}
    for job, set_here in (("j", given), ("w", {"threads": 2})):
        phases = [r for r in doc["records"] if r["kind"] == "phase" and r["job"] == job]
        expect(phases, f"no phase record of job {job}: {doc['records']}")
        for rec in phases:
            for key, field in recorded.items():
                got = rec.get(field, "absent")
                want = set_here[key] if key in set_here else record_value(rows[key][1], rows[key][3])
                expect(got != "absent", f"job {job}: {key}'s field {field} is not in the phase record")
                expect(want is None or got == want, f"job {job}: {key}: record {field} = {got!r}, want {want!r}")


def case_plugins_listing(tmp):
    p = iobench("plugins", check_rc=0)
    for kind, name in [("backend", b) for b in BACKENDS] + [("output", "human"), ("output", "csv"),
                                                            ("output", "json")]:
        line = [l for l in p.stdout.splitlines() if l.split()[:2] == [kind, name]]
        expect(line, f"{kind} {name} not listed:\n{p.stdout}")
        expect(" 1.5 " in line[0] and "iob-%s-%s%s" % (kind, name, PLUGIN_SUFFIX) in line[0], f"bad line: {line[0]}")
    expect("search path:" in p.stdout, "no search path shown")
    # a directory of broken plugins: listed as not loaded, one line each, the good ones still load
    bad = os.path.join(ARGS.work, "..", "plugins", "bad_abi")
    p = iobench("plugins", "--plugin-dir", bad, check_rc=0)
    expect("not loaded: plugin " in p.stdout and "ABI 99." in p.stdout, p.stdout)
    expect("backend  " + BACKENDS[1] in p.stdout, p.stdout)
    p = iobench("plugins", "--plugin-dir", os.path.join(tmp, "nope"), check_rc=0)
    expect("plugin directory does not exist" in p.stdout, p.stdout)


def case_version_help(tmp):
    p = iobench("--version", check_rc=0)
    expect(p.stdout.startswith("iobench ") and "plugin ABI 1.5" in p.stdout, p.stdout)
    p = iobench("--help", check_rc=0)
    expect("usage: iobench run PROFILE.ini" in p.stdout, p.stdout)
    p = iobench(check_rc=2)
    expect("usage:" in p.stderr, p.stderr)


def case_configs_run(tmp):
    cfgdir = ARGS.configs
    configs = sorted(f for f in os.listdir(cfgdir) if f.endswith(".ini"))
    expect(len(configs) >= (2 if WINDOWS else 5), f"too few configs: {configs}")
    no_direct = no_direct_io(tmp)
    for c in configs:
        with open(os.path.join(cfgdir, c)) as f:
            if no_direct and re.search(r"^\s*backend\s*=\s*direct\s*$", f.read(), re.MULTILINE):
                print(f"skipped {c}: {no_direct}")
                continue
        d = tempfile.mkdtemp(dir=tmp)
        out = os.path.join(d, "out.json")
        with open(os.path.join(cfgdir, c)) as f:  # many small files (docs/metadata.md): fewer here
            small = ["--set", "files=100"] if re.search(r"^\s*workload\s*=\s*files", f.read(), re.M) else []
        iobench("run", os.path.join(cfgdir, c), "--dir", d, "--output", "json=" + out, *small, check_rc=0)
        doc = json.load(open(out))
        expect(doc["status"] == "ok" and doc["records"], f"{c}: {doc.get('status')} {doc.get('error')}")
        for r in doc["records"]:
            if r["kind"] == "meta":  # bytes only where files are written or read
                moves = r["phase"] in ("create", "write", "read")
                moved = r["bytes"] == (r["file_size_bytes"] * r["ops"] if moves else 0)
            else:
                moved = r["bytes"] > 0
            expect(moved and r["ops"] > 0 and r["elapsed_s"] > 0, f"{c}: empty phase {r}")
            expect(r["status"] == "ok", f"{c}: {r}")
        left = [f for f in os.listdir(d) if f != "out.json"]
        expect(not left, f"{c}: files left behind: {left}")


def case_json_document(tmp):
    p = iobench("run", os.path.join(ARGS.configs, "default.ini"), "--dir", tmp, "--output", "json",
                check_rc=0)
    doc = json.loads(p.stdout)  # exactly one document, nothing else on stdout
    expect(doc["tool"] == "iobench" and doc["status"] == "ok", doc)
    phases = {(r["job"], r["phase"]) for r in doc["records"]}
    expect(("seq-write-read", "verify") in phases and ("rand-4k", "read") in phases, phases)
    pct_keys = ["1", "5", "10", "20", "30", "40", "50", "60", "70", "80", "90", "95", "99", "99.5", "99.9",
                "99.99"]
    for r in doc["records"]:
        lat = r["lat_ns"]
        for k in ("min", "max", "mean", "stddev", "count", "percentiles"):
            expect(k in lat, f"lat_ns lacks {k}")
        expect(list(lat["percentiles"].keys()) == pct_keys, lat["percentiles"].keys())
        vals = [lat["percentiles"][k] for k in pct_keys]
        expect(vals == sorted(vals) and vals[-1] <= lat["max"] and vals[0] >= lat["min"], lat)
        # latency may come from a uniform sample of the I/Os (docs/performance.md)
        expect(0 < lat["count"] <= r["ops"] and lat["count"] == r.get("lat_samples", lat["count"]),
               f"latency count {lat['count']} against ops {r['ops']}, lat_samples {r.get('lat_samples')}")
        bw = r["bytes"] / r["elapsed_s"]
        expect(abs(r["bw_bytes_per_s"] - bw) <= 0.01 * bw, f"bw {r['bw_bytes_per_s']} vs {bw}")
    seq = [r for r in doc["records"] if r["job"] == "seq-write-read"]
    expect(all(r["bytes"] == 64 << 20 and r["ops"] == 64 for r in seq), seq)
    rnd = [r for r in doc["records"] if r["job"] == "rand-4k"]
    # random writes cover every block of the file once: no hole for the reads
    expect(all(r["ops"] == 16384 and r["bytes"] == 16384 * 4096 for r in rnd), rnd)
    sweep = [r["block_size_bytes"] for r in doc["records"] if r["job"] == "seq-sweep" and r["phase"] == "read"]
    expect(sweep == [4096 << i for i in range(9)], sweep)
    reads = [r for r in doc["records"] if r["phase"] != "write"]
    if WINDOWS:
        # no eviction and no hole probe on Windows: said, never claimed
        expect(all(r["evicted"] is False and r["holes_pct"] is None for r in reads), reads)
        expect(any("cannot evict a file from its cache" in n for n in doc["notes"]), doc["notes"])
    else:
        # the main job measures the storage: every read starts evicted, none reads a hole
        expect(all(r["evicted"] is True and r["holes_pct"] == 0 for r in reads), reads)
        expect(not any("before the read" in n or "holes" in n for n in doc["notes"]), doc["notes"])
    expect(doc["schema"] == 2 and doc["kernel"], doc["kernel"])


def case_csv_and_two_outputs(tmp):
    prof = write(os.path.join(tmp, "p.ini"), "[a]\nsize = 1M\nblock_size = 64K\nphases = write,read\n")
    out = os.path.join(tmp, "o.csv")
    p = iobench("run", prof, "--dir", tmp, "--output", "human,csv=" + out, check_rc=0)
    human_bw = human_rates(p.stdout, "a")
    rows = list(csv.reader(open(out, newline="")))
    expect("job" in rows[0] and "phase" in rows[0] and "bw_bytes_per_s" in rows[0], rows[0])
    expect(len(rows) == 3, rows)
    hdr = rows[0]
    for row in rows[1:]:
        expect(len(row) == len(hdr), row)
        rec = dict(zip(hdr, row))
        expect(int(rec["bytes"]) == 1 << 20 and int(rec["ops"]) == 16, rec)
        expect("lat_ns_p99_9" in rec, hdr)
        # the human rate, whatever unit it chose, is the CSV's to its printed precision
        expect(rec["phase"] in human_bw, f"no human row for {rec['phase']}: {p.stdout}")
        shown, half_step = human_bw[rec["phase"]]
        bw = float(rec["bw_bytes_per_s"])
        expect(bw > 0 and abs(shown - bw) <= half_step + 1e-9 * bw,
               f"{rec['phase']}: human shows {shown:.0f} B/s, csv {bw} B/s\n{p.stdout}")


HUMAN_RATE = re.compile(r"(?<![\d.])(\d+(?:\.(\d+))?) (B|KiB|MiB|GiB|TiB|PiB|EiB)/s(?!\S)")


def human_rates(text, job):
    """{phase: (bytes/s shown, half its last digit in bytes/s)} from the
    human output's rows of `job`, whichever binary unit each rate uses."""
    rates = {}
    for line in text.splitlines():
        cols = line.split()
        if len(cols) < 3 or cols[0] != job:
            continue
        m = HUMAN_RATE.search(line)
        expect(m is not None, f"no rate with a byte unit in {line!r}")
        scale = 1024 ** ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"].index(m.group(3))
        decimals = len(m.group(2) or "")
        rates[cols[1]] = (float(m.group(1)) * scale, 0.5 * 10 ** -decimals * scale)
    return rates


def table_blocks(text):
    """[(kind, header line, [row lines])] of a human output's tables."""
    blocks, lines = [], text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("[") and line.endswith("]") and i + 1 < len(lines):
            rows = []
            for row in lines[i + 2:]:
                if not row or row.startswith("["):
                    break
                rows.append(row)
            blocks.append((line[1:-1], lines[i + 1], rows))
    return blocks


def case_human_width(tmp):
    """The human output fits 100 columns by default (the default profile,
    a group of streams and intervals), with unique headers; --wide (and
    human:wide) shows every field; --wide without a human output is bad
    input."""
    grp = write(os.path.join(tmp, "g.ini"), "[a]\ngroup = 1\nsize = 1M\nblock_size = 64K\nphases = write,read\n"
                "threads = 2\n[b]\ngroup = 1\nsize = 1M\nblock_size = 64K\nphases = write,read\n"
                "log_interval = 10ms\n")
    runs = [(os.path.join(ARGS.configs, "default.ini"), ["--set", "size=1M"]), (grp, [])]
    kinds = set()
    for prof, extra in runs:
        narrow = iobench("run", prof, "--dir", tmp, *extra, check_rc=0).stdout
        wide = iobench("run", prof, "--dir", tmp, *extra, "--wide", check_rc=0).stdout
        wide2 = iobench("run", prof, "--dir", tmp, *extra, "--output", "human:wide", check_rc=0).stdout
        for text, name in ((narrow, "default"), (wide, "--wide"), (wide2, "human:wide")):
            for kind, header, rows in table_blocks(text):
                kinds.add(kind)
                labels = header.split()
                expect(len(labels) == len(set(labels)), f"{name}: [{kind}] header repeats a label: {header}")
        for line in narrow.splitlines():
            if not line.startswith(("note: ", "error: ", "source: ")):
                expect(len(line) <= 100, f"a line of {len(line)} columns by default: {line!r}")
        expect(max(len(line) for line in wide.splitlines()) > 100, "--wide shows the wide table")
        expect(len(table_blocks(narrow)) == len(table_blocks(wide)), "the same blocks either way")
        for key in ("file=", "os_read", "cpu_ns_per_io", "  lat  mean ", "lat_sampled_every="):
            expect(key in wide and key not in narrow, f"{key!r} only in the wide table")
        for key in ("bs", "bw", "ops/s", "p50", "p99", "status"):
            expect(f" {key} " in narrow.replace("\n", " \n"), f"the default table shows {key}")
    expect({"phase", "stream", "group", "interval"} <= kinds, kinds)
    # every block of the group run's wide table has its own labels
    gw = iobench("run", grp, "--dir", tmp, "--wide", check_rc=0).stdout
    hdr = [h for k, h, _ in table_blocks(gw) if k == "group"][0]
    expect("first_done_bytes" in hdr.split() and "first_done_s" in hdr.split(), hdr)
    out = os.path.join(tmp, "never.json")
    p = iobench("run", grp, "--dir", tmp, "--wide", "--output", "json=" + out, check_rc=2)
    expect("--wide" in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr)
    expect(not os.path.exists(out), "nothing created")


def unsafe_for_terminal(data, allow=b"\n"):
    """Offset of the first byte a terminal must not get raw in `data`
    (bytes): a control character (C0, DEL, C1) other than those in
    `allow`, or invalid UTF-8; None when there is none."""
    i = 0
    while i < len(data):
        c = data[i]
        if c < 0x80:
            if (c < 0x20 or c == 0x7f) and bytes([c]) not in allow:
                return i
            i += 1
            continue
        n = 2 if 0xc2 <= c <= 0xdf else 3 if 0xe0 <= c <= 0xef else 4 if 0xf0 <= c <= 0xf4 else 0
        try:
            ch = data[i:i + n].decode("utf-8") if n else None
        except UnicodeDecodeError:
            ch = None
        if ch is None or len(ch) != 1 or 0x80 <= ord(ch) <= 0x9f:
            return i
        i += n
    return None


def case_terminal_escapes(tmp):
    """A directory and a profile whose names hold a C1 CSI (U+009B), ESC, a
    raw 0x9b and a lone surrogate: `iobench check`, the human output (both
    tables) and the progress line show them as \\xNN, never raw."""
    bad = b"d\xc2\x9b2J\x1b[31m\x9b\xed\xa0\x80"
    shown = "d\\xc2\\x9b2J\\x1b[31m\\x9b\\xed\\xa0\\x80"
    wd = os.path.join(os.fsencode(tmp), bad)
    os.mkdir(wd)
    prof = os.path.join(wd, b"p" + bad + b".ini")
    with open(prof, "wb") as f:
        f.write(b"[a]\nsize = 256K\nblock_size = 64K\nphases = write,read\nevict_before_read = false\n")
    exe = os.path.join(ARGS.bin, "iobench")
    env = dict(os.environ)
    env.pop("IOBENCH_PLUGIN_PATH", None)
    # the progress line: a read of 256 KiB paced at 256 KiB/s by the test backend slowafter
    paced = os.path.join(wd, b"paced" + bad + b".ini")
    with open(paced, "wb") as f:
        f.write(b"[a]\nbackend = slowafter\nfilename = in.dat\nsize = 256K\nblock_size = 16K\nphases = read\n")
    with open(os.path.join(wd, b"in.dat"), "wb") as f:
        f.write(os.urandom(256 << 10))
    plugins = os.path.join(os.path.dirname(os.path.abspath(ARGS.bin)), "tests", "bigread", "plugins")
    if not os.path.isdir(plugins):
        print(f"note: no test plugins in {plugins}: the progress line is not checked")
    for args in ([b"check", prof], [b"run", prof, b"--dir", wd], [b"run", prof, b"--dir", wd, b"--wide"],
                 [b"run", paced, b"--dir", wd, b"--progress=always", b"--plugin-dir", os.fsencode(plugins)]):
        if b"--progress=always" in args and not os.path.isdir(plugins):
            continue
        p = subprocess.run([os.fsencode(exe), *args], capture_output=True, timeout=120,
                           env=dict(env, IOB_SLOWAFTER_RATE=str(256 << 10)))
        what = b" ".join(a for a in args if a.startswith(b"-") or a in (b"check", b"run")).decode()
        expect(p.returncode == 0, f"{what}: exit {p.returncode} {p.stderr[-500:]!r}")
        at = unsafe_for_terminal(p.stdout)
        expect(at is None, f"{what}: raw byte in stdout at {at}: {p.stdout[max(0, (at or 0) - 40):(at or 0) + 40]!r}")
        # the progress line's own \r and its erase-line ESC [ K are the only controls on stderr
        err = p.stderr.replace(b"\033[K", b"")
        at = unsafe_for_terminal(err, allow=b"\n\r")
        expect(at is None, f"{what}: raw byte in stderr at {at}: {err[max(0, (at or 0) - 40):(at or 0) + 40]!r}")
        if args[0] == b"check":
            expect(shown in p.stdout.decode(), f"check names the profile escaped: {p.stdout!r}")
        elif b"--wide" in args:
            expect(f"file={os.fsdecode(os.fsencode(tmp))}/{shown}/iobench.a.dat" in p.stdout.decode(),
                   f"the wide table shows the file escaped: {p.stdout!r}")
        elif b"--progress=always" in args:
            expect(b"\riobench: a read " in p.stderr, f"a progress line was drawn: {p.stderr[-300:]!r}")


def case_bad_input_table(tmp):
    """Bad input: a one-line error naming the bad value, exit 2, nothing created."""
    good = write(os.path.join(tmp, "good.ini"), "[a]\nsize = 1M\n")
    cases = [
        (["run"], "needs a profile"),
        (["frobnicate"], "unknown command 'frobnicate'"),
        (["run", good, "--bogus"], "unknown option '--bogus'"),
        (["run", os.path.join(tmp, "missing.ini")], "no such profile"),
        (["run", good, "--output", "xml"], "unknown output 'xml'"),
        (["run", good, "--output", "json,csv"], "more than one output writes to stdout"),
        (["run", good, "--output", "json=" + os.path.join(tmp, "nodir", "o.json")], "does not exist"),
        (["run", good, "--dir", os.path.join(tmp, "nodir")], "does not exist"),
        (["run", write(os.path.join(tmp, "b1.ini"), "[a]\nbackend = nosuch\n")], "backend 'nosuch' is not loaded"),
        (["run", write(os.path.join(tmp, "b2.ini"), "[a]\nsize = 0\n")], "size must be at least"),
        (["run", write(os.path.join(tmp, "b3.ini"), "[a]\nsize = 99999999999999999999\n")], "too large"),
        (["run", write(os.path.join(tmp, "b4.ini"), "[a]\nsize = 10 bananas\n")], "[a] size"),
        (["run", write(os.path.join(tmp, "b5.ini"), "[a]\nwat = 1\n")], "[a] wat: unknown key"),
        (["run", write(os.path.join(tmp, "b6.ini"), "[global]\ninclude = b6.ini\n[a]\n")], "include loop"),
    ]
    before = sorted(os.listdir(tmp))
    for args, frag in cases:
        args = [a if a != "--dir" else a for a in args]
        full = list(args)
        if "--dir" not in full and len(full) > 1 and full[0] == "run":
            full += ["--dir", tmp]
        p = iobench(*full)
        expect(p.returncode == 2, f"{full}: exit {p.returncode}, want 2; stderr {p.stderr}")
        lines = p.stderr.strip().splitlines()
        expect(len(lines) == 1 and frag in lines[0], f"{full}: stderr {p.stderr!r}, want one line with {frag!r}")
        expect(p.stdout == "", f"{full}: stdout not empty: {p.stdout!r}")
        expect(sorted(os.listdir(tmp)) == before, f"{full}: created {set(os.listdir(tmp)) - set(before)}")


def case_device_refused(tmp):
    prof = write(os.path.join(tmp, "dev.ini"), "[a]\ndir = /dev\nfilename = null\nsize = 1M\n")
    p = iobench("run", prof, check_rc=2)
    expect("/dev/null is a character device" in p.stderr and "allow_devices" in p.stderr, p.stderr)
    if WINDOWS:
        print("note: the symlink half is not run: wine shows a Linux symlink as its target")
    else:
        device_behind_link(tmp)
    prof = write(os.path.join(tmp, "dev3.ini"), f"[a]\ndir = {tmp}\nfilename = sub\nsize = 1M\n")
    os.mkdir(os.path.join(tmp, "sub"))
    p = iobench("run", prof, check_rc=2)
    expect("is a directory" in p.stderr, p.stderr)


def device_behind_link(tmp):
    os.symlink("/dev/null", os.path.join(tmp, "link"))
    prof = write(os.path.join(tmp, "dev2.ini"), f"[a]\ndir = {tmp}\nfilename = link\nsize = 1M\n")
    p = iobench("run", prof, check_rc=2)
    expect("behind a symlink" in p.stderr, p.stderr)


def case_verify_mismatch(tmp):
    prof = write(os.path.join(tmp, "v.ini"),
                 "[global]\nfilename = shared.dat\nsize = 1M\nblock_size = 64K\nkeep_files = true\n"
                 "[w]\npattern = zero\nphases = write\n[v]\npattern = ones\nphases = verify\n")
    p = iobench("run", prof, "--dir", tmp, "--output", "json")
    expect(p.returncode == 3, f"exit {p.returncode}: {p.stderr}")
    doc = json.loads(p.stdout)
    expect(doc["status"] == "error" and "verify failed" in doc["error"], doc)
    expect("offset 0 of" in doc["error"] and "expected 0xff, found 0x00" in doc["error"], doc["error"])
    v = [r for r in doc["records"] if r["phase"] == "verify"][0]
    expect(v["verify_bad_blocks"] == 16 and v["status"] == "mismatch", v)
    # flip one byte at a known offset and verify again with the right pattern
    path = os.path.join(tmp, "shared.dat")
    with open(path, "r+b") as f:
        f.seek(200000)
        f.write(b"\x01")
    prof2 = write(os.path.join(tmp, "v2.ini"),
                  "[v2]\nfilename = shared.dat\nsize = 1M\nblock_size = 64K\npattern = zero\nphases = verify\n")
    p = iobench("run", prof2, "--dir", tmp)
    expect(p.returncode == 3 and "offset 200000" in p.stderr and "1 bad block" in p.stderr, p.stderr)
    expect(os.path.exists(path), "the user's file was removed")


def traced_pid(proc, binary, limit=120):
    """The pid of binary run by strace (proc): strace's child, once it has
    exec'd binary."""
    def kids():
        # /proc/PID/task/TID/children needs CONFIG_PROC_CHILDREN: else each
        # process's parent, from its stat line (after the name's last ')')
        found, listed = [], False
        try:
            tasks = os.listdir(f"/proc/{proc.pid}/task")
        except OSError:
            tasks = []
        for task in tasks:
            try:
                with open(f"/proc/{proc.pid}/task/{task}/children") as f:
                    found += [int(k) for k in f.read().split()]
                listed = True
            except OSError:
                continue
        if listed:
            return found
        for d in os.listdir("/proc"):
            try:
                with open(f"/proc/{d}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == proc.pid:
                        found.append(int(d))
            except (OSError, ValueError, IndexError):
                continue
        return found

    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and proc.poll() is None:
        for k in kids():
            try:
                if os.path.realpath(f"/proc/{k}/exe") == os.path.realpath(binary):
                    return k
            except OSError:
                pass
        time.sleep(0.02)
    return None


def writes_after_stop(log, data):
    """From strace's log of a run stopped by SIGINT: (the stamp at which the
    stop handler had raised the run's stop flag: the entry of its
    rt_sigaction(SIGINT, SIG_DFL), which the handler makes after the flag,
    [the pwrite64 calls on data entered after it, by thread])."""
    line_re = re.compile(r"^(\d+)\s+(\d+\.\d+)\s+(.*)$")
    flagged, after, signalled = None, {}, False
    with open(log) as f:
        for line in f:
            m = line_re.match(line.rstrip("\n"))
            if not m:
                continue
            pid, ts, rest = int(m.group(1)), float(m.group(2)), m.group(3)
            if rest.startswith("--- SIGINT "):
                signalled = True
            elif signalled and flagged is None and rest.startswith("rt_sigaction(SIGINT, {sa_handler=SIG_DFL"):
                flagged = ts
            elif flagged is not None and rest.startswith("pwrite64(") and f"<{data}>" in rest.split(",", 1)[0]:
                after[pid] = after.get(pid, 0) + 1
    return flagged, after


def case_interrupted(tmp):
    """SIGINT during a write phase planned to last for hours: exit 130, the
    partial record marked interrupted, the temporary file removed, and the
    run stopped at once: under strace, no stream enters more than the one
    write it may have been about to make when the stop handler raised the
    flag (each I/O is gated on the flag).  A count, not a time: how long the
    stop then takes (the output, removing 64 MiB of dirty pages) is the
    machine's and the disk's, printed.  Without strace (or under wine) the
    stop is timed, 5 s at most."""
    prof = write(os.path.join(tmp, "long.ini"),
                 "[long]\naccess = rand\nsize = 64M\nblock_size = 4K\nops = 200000000\nphases = write\n"
                 "fsync = false\n")
    out = os.path.join(tmp, "o.json")
    binary = os.path.join(ARGS.bin, "iobench")
    argv = [binary, "run", prof, "--dir", tmp, "--output", "human,json=" + out]
    strace = None if WINDOWS else shutil.which("strace")
    log = os.path.join(tmp, "stop.strace")
    e = dict(os.environ)  # LeakSanitizer cannot run under ptrace
    if strace:
        e["ASAN_OPTIONS"] = ":".join(filter(None, [e.get("ASAN_OPTIONS"), "detect_leaks=0"]))
        argv = [strace, "-f", "-qq", "-y", "-ttt", "-e", "trace=pwrite64,rt_sigaction", "-o", log] + argv
    else:
        print("note: no strace (or wine): the stop is timed, not counted")
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e)
    target = traced_pid(proc, binary) if strace else proc.pid
    # signal once the write phase has written (its file has blocks), however slow the start
    data = os.path.join(tmp, "iobench.long.dat")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if os.stat(data).st_size > 0:
                break
        except FileNotFoundError:
            pass
        time.sleep(0.02)
    expect(proc.poll() is None and target, f"the run ended before it was signalled (pid {target})")
    time.sleep(0.1)
    t0 = time.monotonic()
    os.kill(target, signal.SIGINT)
    so, se = proc.communicate(timeout=120)
    waited = time.monotonic() - t0
    expect(proc.returncode == 130, f"exit {proc.returncode}: {se}")
    print(f"stopped {waited:.2f} s after SIGINT")
    if strace:
        flagged, after = writes_after_stop(log, os.path.realpath(data))
        expect(flagged is not None, f"{log}: no SIGINT, or no rt_sigaction(SIGINT, SIG_DFL) from the handler after it")
        expect(all(n <= 1 for n in after.values()),
               f"writes entered after the stop flag was raised, by thread: {after}: the run went on after SIGINT")
        print(f"writes entered after the stop flag, by thread: {after or 'none'}")
    else:
        expect(waited < 5, f"took {waited:.1f}s to stop")
    doc = json.load(open(out))
    expect(doc["interrupted"] is True and doc["status"] == "error", doc)
    expect(doc["records"] and doc["records"][0]["status"] == "interrupted", doc["records"])
    expect(0 < doc["records"][0]["ops"] < 200000000, doc["records"])
    expect("interrupted" in so and "interrupted" in se, (so, se))
    expect(not os.path.exists(os.path.join(tmp, "iobench.long.dat")), "temporary file left behind")


def case_cleanup_keeps_user_files(tmp):
    user = os.path.join(tmp, "mine.dat")
    write(user, "precious\n" * 1000)
    prof = write(os.path.join(tmp, "c.ini"),
                 "[t]\nlayout = tree\ntree_levels = 2\ntree_files = 2\nsize = 64K\nblock_size = 4K\n"
                 "[u]\nfilename = mine.dat\nsize = 64K\nblock_size = 4K\nphases = read\n")
    iobench("run", prof, "--dir", tmp, check_rc=0)
    expect(sorted(os.listdir(tmp)) == ["c.ini", "mine.dat"], os.listdir(tmp))
    expect(open(user).read() == "precious\n" * 1000, "user file changed")
    # keep_files leaves the tree as documented
    prof = write(os.path.join(tmp, "k.ini"),
                 "[t]\nlayout = tree\ntree_levels = 2\ntree_files = 2\nsize = 64K\nkeep_files = true\n")
    iobench("run", prof, "--dir", tmp, check_rc=0)
    for rel in ["dir0/file0", "dir0/file1", "dir0/dir1/file0", "dir0/dir1/file1"]:
        expect(os.path.getsize(os.path.join(tmp, rel)) == 65536, rel)


def case_read_only_job(tmp):
    prof = write(os.path.join(tmp, "r.ini"), "[r]\nfilename = absent.dat\nphases = read\n")
    p = iobench("run", prof, "--dir", tmp, check_rc=2)
    expect("absent.dat does not exist" in p.stderr, p.stderr)
    # a read job after a write job that keeps the file is fine
    prof = write(os.path.join(tmp, "r2.ini"),
                 "[global]\nfilename = f.dat\nsize = 1M\n[w]\nphases = write\nkeep_files = true\n"
                 "[r]\nphases = read\n")
    p = iobench("run", prof, "--dir", tmp, "--output", "json", check_rc=0)
    doc = json.loads(p.stdout)
    expect([r["phase"] for r in doc["records"]] == ["write", "read"], doc["records"])
    expect(doc["records"][1]["bytes"] == 1 << 20, doc["records"][1])



def case_null_backend(tmp):
    """backend = null: a read job on a file that does not exist runs, nothing is
    created, every storage count is null (not 0), and the run notes that it
    measured the tool; queued at depth 32 too."""
    before = sorted(os.listdir(tmp))
    prof = write(os.path.join(tmp, "n.ini"),
                 "[global]\nbackend = null\nfilename = nothing.dat\nsize = 64M\nblock_size = 4K\n"
                 "access = rand\nops = 20000\n[r]\nphases = read\n[w]\nphases = write\niodepth = 32\n")
    p = iobench("run", prof, "--dir", tmp, "--output", "json", check_rc=0)
    doc = json.loads(p.stdout)
    expect([(r["phase"], r["ops"], r["bytes"]) for r in doc["records"]] ==
           [("read", 20000, 20000 * 4096), ("write", 20000, 20000 * 4096)], doc["records"])
    for r in doc["records"]:
        for k in ("os_read_bytes", "os_write_bytes", "storage_read_bytes", "storage_write_bytes"):
            expect(r[k] is None, f"{k} = {r[k]!r}, want null")
        expect(r["backend"] == "null", r)
    expect(sum("measure the tool, not storage" in n for n in doc["notes"]) == 2, doc["notes"])
    expect(sorted(os.listdir(tmp)) == sorted(before + ["n.ini"]), os.listdir(tmp))
    # the same backend refuses an option it does not have, naming it, exit 2
    p = iobench("run", prof, "--dir", tmp, "--set", "backend_options=depth=3", check_rc=2)
    expect("depth" in p.stderr, p.stderr)

def case_latency_key(tmp):
    """latency = sampled | every | off: the record says which; every times each
    I/O (lat_samples = ops, 1 in 1), off none (0 samples, 0 = none timed, an
    empty histogram), also queued and over 2 streams; a bad value is one
    line, exit 2, nothing created."""
    base = ("[global]\nbackend = null\nfilename = nothing.dat\nsize = 64M\nblock_size = 4K\naccess = rand\n"
            "ops = 50000\nphases = read\n")
    prof = write(os.path.join(tmp, "l.ini"), base + "[s]\n[e]\nlatency = every\n[o]\nlatency = off\n"
                 "[q]\nlatency = off\niodepth = 32\n[qe]\nlatency = every\niodepth = 8\n"
                 "[t]\nlatency = off\nthreads = 2\n")
    p = iobench("run", prof, "--dir", tmp, "--output", "json", check_rc=0)
    recs = [r for r in json.loads(p.stdout)["records"] if r.get("kind") in ("phase", "aggregate")]
    by = {}
    for r in recs:
        by.setdefault(r["job"], []).append(r)
    expect(sorted(by) == ["e", "o", "q", "qe", "s", "t"], sorted(by))
    for job, want in (("s", "sampled"), ("e", "every"), ("o", "off"), ("q", "off"), ("qe", "every"), ("t", "off")):
        for r in by[job]:
            expect(r["latency"] == want and r["ops"] > 0, (job, r))
            if want == "every":
                expect(r["lat_sampled_every"] == 1 and r["lat_samples"] == r["ops"] == r["lat_ns"]["count"], r)
            elif want == "off":
                expect(r["lat_sampled_every"] == 0 and r["lat_samples"] == 0 and r["lat_ns"]["count"] == 0, r)
            else:
                expect(r["lat_samples"] >= 1 and r["lat_sampled_every"] >= 1, r)
    expect(len(by["t"]) == 1 and by["t"][0]["streams"] == 2, by["t"])  # the streams' aggregate
    before = sorted(os.listdir(tmp))
    bad = write(os.path.join(tmp, "bad.ini"), "[b]\nfilename = b.dat\nsize = 1M\nlatency = seldom\n")
    p = iobench("run", bad, "--dir", tmp, check_rc=2)
    expect(len(p.stderr.strip().splitlines()) == 1 and "latency" in p.stderr and "seldom" in p.stderr, p.stderr)
    p = iobench("run", write(os.path.join(tmp, "bad2.ini"), "[b]\nfilename = b.dat\nsize = 1M\nseries = true\n"
                             "phases = read\nlatency = off\n"), "--dir", tmp, check_rc=2)
    expect(len(p.stderr.strip().splitlines()) == 1 and "latency = off" in p.stderr, p.stderr)
    expect(sorted(os.listdir(tmp)) == sorted(before + ["bad.ini", "bad2.ini"]), os.listdir(tmp))


def case_stdin_stream(tmp):
    prof = write(os.path.join(tmp, "s.ini"), "[s]\nfilename = -\nphases = read\nblock_size = 64K\n")
    data = "x" * 1000000
    p = iobench("run", prof, "--output", "json", stdin=data, check_rc=0)
    doc = json.loads(p.stdout)
    expect(doc["records"][0]["bytes"] == 1000000, doc["records"][0])


def case_direct_refuses_misaligned(tmp):
    why = no_direct_io(tmp)
    if why:
        print(f"skipped: {why}")
        return SKIP
    prof = write(os.path.join(tmp, "d.ini"), "[d]\nbackend = direct\nsize = 1M\nblock_size = 1000\n")
    p = iobench("run", prof, "--dir", tmp)
    expect(p.returncode != 0 and "block size 1000 is not a multiple of" in p.stderr, p.stderr)
    expect(sorted(os.listdir(tmp)) == ["d.ini"], os.listdir(tmp))


def case_kernel_byte_counts(tmp):
    """The bytes a run reports equal what the kernel counted (/proc/self/io)."""
    no_direct = direct_refused(tmp)
    for backend in ("posix", "stdio", "direct"):
        if backend == "direct" and no_direct:
            print(f"skipped the direct backend: {no_direct}")
            continue
        prof = write(os.path.join(tmp, backend + ".ini"),
                     f"[global]\nbackend = {backend}\nsize = 4M\n"
                     "[s]\nblock_size = 64K\nphases = write,read,verify\n"
                     "[r]\naccess = rand\nblock_size = 4K\nops = 777\nphases = write,read\n")
        p = iobench("run", prof, "--dir", tmp, "--output", "json", check_rc=0)
        for r in json.loads(p.stdout)["records"]:
            got = r["os_write_bytes"] if r["phase"] == "write" else r["os_read_bytes"]
            other = r["os_read_bytes"] if r["phase"] == "write" else r["os_write_bytes"]
            expect(got == r["bytes"] and other == 0,
                   f"{backend} {r['job']} {r['phase']}: reported {r['bytes']}, kernel {got}/{other}")
            want = 4 << 20 if r["job"] == "s" else 777 * 4096
            expect(r["bytes"] == want, f"{backend} {r['job']} {r['phase']}: {r['bytes']} != {want}")
    # a mapping and a ring move bytes the kernel's read/write counts never see: not measured, not 0
    for backend in ("mmap", "io_uring"):
        if not os.path.exists(os.path.join(ARGS.bin, "..", "lib", "iobench", "plugins", f"iob-backend-{backend}.so")):
            print(f"skipped the {backend} backend: not built")
            continue
        prof = write(os.path.join(tmp, backend + ".ini"),
                     f"[s]\nbackend = {backend}\nsize = 1M\nblock_size = 64K\nphases = write,read\n")
        p = iobench("run", prof, "--dir", tmp, "--output", "json", check_rc=0)
        for r in json.loads(p.stdout)["records"]:
            expect(r["bytes"] == 1 << 20 and r["os_read_bytes"] is None and r["os_write_bytes"] is None,
                   f"{backend} {r['phase']}: bytes {r['bytes']}, kernel {r['os_read_bytes']}/{r['os_write_bytes']}")


if __name__ == "__main__":
    # --configs: the example profiles (default: SRC/configs)
    ARGS = iob.arguments("--bin", "--src", "--work", optional={"--configs": None}, case=True)
    ARGS.configs = ARGS.configs or os.path.join(ARGS.src, "configs")
    sys.exit(iob.run_case(ARGS, globals(), counted=True))
