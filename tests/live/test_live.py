#!/usr/bin/env python3
"""What a run shows while it goes and keeps as a time series (issue 14,
parts 1 and 2), on the paced test backend `slowafter` (tests/bigread): every
read lasts at least its bytes over IOB_SLOWAFTER_RATE, so a phase lasts what
the pace says however fast the machine is, and nothing asserts an absolute
time but that lower bound.

- progress: --progress=always draws the line on stderr (carriage returns,
  MiB/s, IOPS, ETA) and never on stdout, which stays a clean JSON document;
  never draws nothing; auto draws nothing when stderr is a pipe and draws it
  on a terminal (a pty); bigread's block lines on stdout never hold it; the
  four binaries refuse a bad --progress with one line, exit 2;
- intervals: log_interval gives "interval" records, about the phase's
  elapsed time over the interval (one more for the last, shorter one);
  their bytes and ops add up exactly to the phase's, with one stream and
  with several; each has a latency at least the pace's; a ramp and a time
  limit give intervals of the measured window only, adding up to it;
- livecsv: the file is there and holds rows while the run still goes; at
  the end it is one table (csv module), a row per interval record;
- bad input: log_interval 0, -1s, abc, 5ms (profile and --log-interval),
  livecsv without log_interval, livecsv on the profile itself, livecsv in a
  missing directory: one line naming the value, exit 2, nothing created; a
  livecsv that cannot be written (a device node, as root) is refused and the
  node left where it was.

Usage: test_live.py --bin DIR --plugin-dir DIR --slow-dir DIR --work DIR [--only CASE]
Prints 'N passed, N failed'."""
import csv
import json
import os
import pty
import re
import select
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import iobtest as iob  # noqa: E402
from iobtest import check  # noqa: E402

A = None

RATE = 4 << 20  # bytes per second of the paced reads
BS = 64 << 10
SIZE = 8 << 20  # a 2 s read at RATE


def env():
    return iob.env(IOB_SLOWAFTER_RATE=str(RATE))


def plugin_args():
    return ["--plugin-dir", A.plugin_dir, "--plugin-dir", A.slow_dir]


def workdir():
    return iob.data_dir(A.work, {"r.dat": SIZE})


def profile(d, body, name="p.ini"):
    return iob.write(os.path.join(d, name), body)


def read_job(extra=""):
    return (f"[r]\nfilename = r.dat\nbackend = slowafter\nsize = {SIZE}\nblock_size = {BS}\n"
            f"phases = read\n{extra}")


def run(args, d):
    """As subprocess.run with text, but a carriage return stays one."""
    p = subprocess.run(args, cwd=d, env=env(), capture_output=True, timeout=300)
    p.stdout, p.stderr = p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    return p


def iobench(d, prof, *extra):
    return run([os.path.join(A.bin, "iobench"), "run", prof, "--dir", d, *plugin_args(), *extra], d)


def records(text, kind=None):
    recs = json.loads(text)["records"]
    return [r for r in recs if kind is None or r["kind"] == kind]


# ---------------------------------------------------------------- progress

def test_progress_always():
    d = workdir()
    p = iobench(d, profile(d, read_job()), "--output", "json", "--progress=always")
    check("always: exit", p.returncode == 0, p.stderr)
    check("always: the line on stderr", "\r" in p.stderr and "MiB/s" in p.stderr and "IOPS" in p.stderr
          and "ETA" in p.stderr and "r read" in p.stderr, repr(p.stderr[:300]))
    # then the run's notes, as warnings (no person sees the json's): after the line is gone
    line, _, notes = p.stderr.partition("iobench: warning: ")
    check("always: the line is cleared at the end", line.endswith("\r\033[K"), repr(line[-40:]))
    check("always: after it, the notes only", "\r" not in notes and
          all(l.startswith("iobench: warning: ") for l in ("iobench: warning: " + notes).splitlines()),
          repr(notes[-200:]))
    check("always: stdout is clean", "\r" not in p.stdout and "IOPS" not in p.stdout and "\033" not in p.stdout,
          repr(p.stdout[:200]))
    try:
        check("always: stdout is one JSON document", len(records(p.stdout, "phase")) == 1)
    except ValueError as e:
        check("always: stdout is one JSON document", False, str(e))
    # shares done only grow, and stay within 0..100
    # (of the progress line only: a note after it may hold a share too, e.g. "53% of the data read
    # came from memory", as in CI's unprivileged leg)
    pcts = [float(x.split("%")[0].split()[-1]) for x in line.split("\r") if "%" in x]
    check("always: share done grows", pcts == sorted(pcts) and pcts and 0 <= pcts[0] and pcts[-1] <= 100,
          str(pcts))


def test_progress_never_and_auto_pipe():
    d = workdir()
    for args in (["--progress=never"], []):
        p = iobench(d, profile(d, read_job()), "--output", "json", *args)
        check(f"{args or 'auto'} on a pipe: exit", p.returncode == 0, p.stderr)
        # no progress line: stderr holds the run's notes only (no person sees the json's)
        check(f"{args or 'auto'} on a pipe: nothing on stderr but the notes",
              "\r" not in p.stderr and all(l.startswith("iobench: warning: ") for l in p.stderr.splitlines()),
              repr(p.stderr[:200]))


def test_progress_auto_pty():
    d = workdir()
    master, slave = pty.openpty()
    args = [os.path.join(A.bin, "iobench"), "run", profile(d, read_job()), "--dir", d, *plugin_args(),
            "--output", "json"]
    proc = subprocess.Popen(args, cwd=d, env=env(), stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    got = b""
    while True:
        r, _, _ = select.select([master], [], [], 0.2)
        if r:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                chunk = b""
            if not chunk and proc.poll() is not None:
                break
            got += chunk
        elif proc.poll() is not None:
            break
    out = proc.stdout.read().decode(errors="replace")
    proc.wait()
    os.close(master)
    text = got.decode(errors="replace")
    check("auto on a terminal: exit", proc.returncode == 0, text)
    check("auto on a terminal: the line is drawn", "\r" in text and "MiB/s" in text, repr(text[:200]))
    check("auto on a terminal: stdout is clean", "\r" not in out and "IOPS" not in out, repr(out[:200]))


def test_progress_bigread():
    d = workdir()
    p = run([os.path.join(A.bin, "bigread"), "--progress=always", "-b", "slowafter", *sum(
        (["-P", x] for x in (A.plugin_dir, A.slow_dir)), []), "in=r.dat", "bufsize=64K"], d)
    check("bigread: exit", p.returncode == 0, p.stderr)
    lines = p.stdout.splitlines()
    check("bigread: every block line is whole", len([x for x in lines if x[:1].isdigit()]) == SIZE // BS
          and all("\r" not in x and "\033" not in x for x in lines), repr(p.stdout[:200]))
    check("bigread: the line on stderr", "MiB/s" in p.stderr and "\r" in p.stderr, repr(p.stderr[:200]))


GROUP_RE = re.compile(r"^(\w+): group (\d+), (\d+) jobs? \((\d+) running\)(?:  (?:ramp|\s*([\d.]+)%))?  "
                      r"([\d.]+ \w+)  ([\d.]+) MiB/s  (\S+) IOPS(?:  ETA (\d+):(\d\d))?\033\[K$")
UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def split_notes(err):
    """stderr: what the line drew, then the run's notes as warning lines."""
    line, sep, notes = err.partition("iobench: warning: ")
    return line, sep + notes


def group_lines(err):
    """The group lines drawn on stderr (before the notes), parsed: (tool,
    group, jobs, running, share %, bytes, MiB/s, ETA s); any other piece of
    the line is a failure."""
    got = []
    for piece in split_notes(err)[0].split("\r")[1:]:
        if piece == "\033[K" or not piece:
            continue  # the clearing of the line
        m = GROUP_RE.match(piece)
        if not m:
            got.append(None)
            continue
        num, unit = m.group(6).split()
        got.append((m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4)),
                    float(m.group(5)) if m.group(5) else None, float(num) * UNITS[unit], float(m.group(7)),
                    int(m.group(9)) * 60 + int(m.group(10)) if m.group(9) else None))
    return got


def test_progress_group():
    """A group's jobs run at once: one line for the group as a whole, with
    its job count, share done, bytes, rate and time left.  Two jobs read 8 MiB
    each at the pace of 4 MiB/s: 2 s at least, so 3 draws at least."""
    d = workdir()
    with open(os.path.join(d, "s.dat"), "wb") as f:
        f.write(os.urandom(SIZE))
    body = read_job("group = 1\n") + read_job("group = 1\n").replace("[r]", "[s]").replace("r.dat", "s.dat")
    p = iobench(d, profile(d, body), "--output", "json", "--progress=always")
    check("group: exit", p.returncode == 0, p.stderr)
    lines = group_lines(p.stderr)
    check("group: only group lines on stderr", lines and None not in lines, repr(p.stderr[:400]))
    lines = [x for x in lines if x]
    check("group: 3 draws at least in 2 s", len(lines) >= 3, repr(p.stderr[:400]))
    check("group: names the group and its jobs", all(x[:3] == ("iobench", 1, 2) and x[3] <= 2 for x in lines),
          str(lines))
    pcts = [x[4] for x in lines]
    check("group: share done grows within 0..100", None not in pcts and pcts == sorted(pcts)
          and 0 <= pcts[0] and pcts[-1] <= 100, str(pcts))
    moved = [x[5] for x in lines]
    check("group: bytes of both jobs, growing", moved == sorted(moved) and moved[-1] <= 2 * SIZE
          and moved[-1] > SIZE / 2, str(moved))
    check("group: a rate and a time left", any(x[6] > 0 for x in lines) and all(x[7] is not None for x in lines),
          str(lines))
    line, notes = split_notes(p.stderr)
    check("group: the line is cleared at the end", line.endswith("\r\033[K"), repr(line[-40:]))
    check("group: after it, the notes only", "\r" not in notes and
          all(x.startswith("iobench: warning: ") for x in notes.splitlines()), repr(notes[-200:]))
    try:
        check("group: stdout is one JSON document", len(records(p.stdout, "phase")) == 2)
    except ValueError as e:
        check("group: stdout is one JSON document", False, str(e))
    p = iobench(d, profile(d, body), "--output", "json", "--progress=never")
    check("group: never draws nothing", p.returncode == 0 and "\r" not in p.stderr and "\033" not in p.stderr
          and split_notes(p.stderr)[0] == "", repr(p.stderr[:200]))


def test_progress_fio():
    """A fio job file: every job is in a group, and the group's line is drawn.
    Two time_based jobs of 1.5 s on the posix backend (fio files choose their
    engine): 1.5 s at least however fast the machine, so 2 draws at least."""
    d = workdir()
    fio = os.path.join(d, "t.fio")
    with open(fio, "w") as f:
        f.write("[global]\nrw=randread\nbs=4k\nsize=1m\nruntime=1500ms\ntime_based\n"
                "[a]\nfilename=a.dat\n[b]\nfilename=b.dat\n")
    for n in ("a.dat", "b.dat"):
        with open(os.path.join(d, n), "wb") as f:
            f.write(os.urandom(1 << 20))
    p = run([os.path.join(A.bin, "iobench"), "run", fio, "--dir", d, "--plugin-dir", A.plugin_dir,
             "--output", "json", "--progress=always"], d)
    check("fio: exit", p.returncode == 0, p.stderr)
    lines = group_lines(p.stderr)
    check("fio: only group lines on stderr", lines and None not in lines, repr(p.stderr[:400]))
    lines = [x for x in lines if x]
    check("fio: 2 draws at least in 1.5 s", len(lines) >= 2, repr(p.stderr[:400]))
    check("fio: the group of both jobs", all(x[2] == 2 for x in lines), str(lines))
    check("fio: time left at most the runtime, and falling",
          all(x[7] is not None and x[7] <= 2 for x in lines) and [x[7] for x in lines] == sorted(
              [x[7] for x in lines], reverse=True), str(lines))
    check("fio: share done from the time", all(x[4] is not None and 0 <= x[4] <= 100 for x in lines), str(lines))


def test_progress_refused():
    d = workdir()
    for tool, args in (("iobench", ["run", "x.ini", "--progress=sometimes"]), ("iotest", ["--progress=sometimes"]),
                       ("io_profile", ["--progress=sometimes"]), ("bigread", ["--progress=sometimes", "in=r.dat"])):
        before = sorted(os.listdir(d))
        p = run([os.path.join(A.bin, tool), *args], d)
        check(f"{tool} --progress=sometimes: exit 2", p.returncode == 2, f"{p.returncode} {p.stderr}")
        check(f"{tool} --progress=sometimes: one line naming it",
              p.stderr.count("\n") == 1 and "sometimes" in p.stderr, repr(p.stderr))
        check(f"{tool} --progress=sometimes: nothing created", sorted(os.listdir(d)) == before)


# ---------------------------------------------------------------- intervals

def interval_sums(recs, name, phase_rec, interval_s):
    iv = [r for r in recs if r["kind"] == "interval"]
    check(f"{name}: indexes", [r["interval"] for r in iv] == list(range(len(iv))), str(len(iv)))
    want = phase_rec["elapsed_s"] / interval_s
    # one interval per log_interval of the window, the last one shorter; an
    # interval ends when the stream answers the observer (after the I/O in
    # progress), so a machine busy enough to delay the answer past the next
    # interval's end merges two.  The observer's ticks count from its own
    # start, not the window's: after a ramp the window can begin just before a
    # tick, so a short interval at each end: at most two over; lengths vary
    lens = sorted(r["interval_s"] for r in iv)
    check(f"{name}: count about elapsed / interval", want / 2 <= len(iv) <= want + 2,
          f"{len(iv)} intervals over {phase_rec['elapsed_s']:.3f} s at {interval_s} s")
    check(f"{name}: most intervals last log_interval", lens and abs(lens[len(lens) // 2] - interval_s) < interval_s / 4,
          str(lens))
    check(f"{name}: the intervals cover the window", iv and abs(iv[-1]["time_s"] - phase_rec["elapsed_s"]) < 0.05
          and abs(sum(lens) - iv[-1]["time_s"]) < 1e-6, f"{iv[-1]['time_s'] if iv else None} {sum(lens)}")
    check(f"{name}: bytes add up", sum(r["bytes"] for r in iv) == phase_rec["bytes"],
          f"{[r['bytes'] for r in iv]} vs {phase_rec['bytes']}")
    check(f"{name}: ops add up", sum(r["ops"] for r in iv) == phase_rec["ops"])
    times = [r["time_s"] for r in iv]
    check(f"{name}: times grow", times == sorted(times) and all(r["interval_s"] > 0 for r in iv), str(times))
    return iv


def test_intervals():
    d = workdir()
    js = os.path.join(d, "o.json")
    p = iobench(d, profile(d, read_job("log_interval = 250ms\n")), "--output", "json=" + js)
    check("intervals: exit", p.returncode == 0, p.stderr)
    with open(js) as f:
        recs = records(f.read())
    ph = [r for r in recs if r["kind"] == "phase"][0]
    check("intervals: the phase lasts the pace", ph["elapsed_s"] >= SIZE / RATE, str(ph["elapsed_s"]))
    iv = interval_sums(recs, "intervals", ph, 0.25)
    pace_ns = BS / RATE * 1e9
    lat = [r for r in iv if r["lat_samples"]]
    check("intervals: latency where there was I/O", all((r["lat_samples"] > 0) == (r["ops"] > 0) for r in iv))
    check("intervals: p50 <= p99, both at least the pace",
          lat and all(pace_ns * 0.99 <= r["lat_p50_ns"] <= r["lat_p99_ns"] for r in lat),
          str([(r["lat_p50_ns"], r["lat_p99_ns"]) for r in lat]))
    rates = [r["bw_bytes_per_s"] for r in iv if r["interval_s"] > 0.1]
    check("intervals: rates at most the pace", rates and max(rates) <= RATE * 1.05, str(rates))
    # the CLI flag does the same for a profile without the key
    js2 = os.path.join(d, "o2.json")
    p = iobench(d, profile(d, read_job(), "q.ini"), "--output", "json=" + js2, "--log-interval", "500ms")
    with open(js2) as f:
        recs = records(f.read())
    interval_sums(recs, "--log-interval", [r for r in recs if r["kind"] == "phase"][0], 0.5)


def test_intervals_streams_ramp():
    d = workdir()
    js = os.path.join(d, "o.json")
    body = read_job("threads = 2\nshared_file = true\nlog_interval = 250ms\n")
    p = iobench(d, profile(d, body), "--output", "json=" + js)
    check("streams: exit", p.returncode == 0, p.stderr)
    with open(js) as f:
        recs = records(f.read())
    interval_sums(recs, "streams", [r for r in recs if r["kind"] == "phase"][0], 0.25)
    # random reads with a ramp and a time limit: the intervals cover the window
    js = os.path.join(d, "o2.json")
    body = read_job("access = rand\nruntime = 1500ms\ntime_based = true\nramp_time = 500ms\nlog_interval = 250ms\n")
    p = iobench(d, profile(d, body, "q.ini"), "--output", "json=" + js)
    check("ramp: exit", p.returncode == 0, p.stderr)
    with open(js) as f:
        recs = records(f.read())
    ph = [r for r in recs if r["kind"] == "phase"][0]
    interval_sums(recs, "ramp", ph, 0.25)


def test_livecsv():
    d = workdir()
    live = os.path.join(d, "live.csv")
    js = os.path.join(d, "o.json")
    prof = profile(d, read_job(f"log_interval = 100ms\nlivecsv = {live}\n"))
    args = [os.path.join(A.bin, "iobench"), "run", prof, "--dir", d, *plugin_args(), "--output", "json=" + js]
    proc = iob.start(args, cwd=d, env=env())
    seen, running = 0, False
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if os.path.exists(live):
            with open(live) as f:
                rows = list(csv.reader(f))
            if len(rows) >= 3:
                seen, running = len(rows) - 1, proc.poll() is None
                break
        time.sleep(0.02)
    out, err = proc.communicate(timeout=300)
    check("livecsv: exit", proc.returncode == 0, err)
    check("livecsv: rows there while the run goes", seen >= 2 and running, f"{seen} rows, running {running}")
    with open(live) as f:
        rows = list(csv.DictReader(f))
    with open(live) as f:
        lines = f.read().splitlines()
    with open(js) as f:
        iv = records(f.read(), "interval")
    check("livecsv: one table", lines[0].startswith("job,phase,") and all(
        len(next(csv.reader([x]))) == len(lines[0].split(",")) for x in lines), lines[0])
    check("livecsv: a row per interval record", len(rows) == len(iv) and all(
        int(a["bytes"]) == b["bytes"] and int(a["ops"]) == b["ops"] and int(a["interval"]) == b["interval"]
        for a, b in zip(rows, iv)), f"{len(rows)} rows, {len(iv)} records")


# ---------------------------------------------------------------- bad input

def test_refused():
    for value in ("0", "-1s", "abc", "5ms"):
        d = workdir()
        before = sorted(os.listdir(d))
        live = os.path.join(d, "live.csv")
        p = iobench(d, profile(d, read_job(f"log_interval = {value}\nlivecsv = {live}\n")), "--output",
                    "json=" + os.path.join(d, "o.json"))
        check(f"log_interval = {value}: exit 2", p.returncode == 2, f"{p.returncode} {p.stderr}")
        check(f"log_interval = {value}: one line naming it", p.stderr.count("\n") == 1 and value in p.stderr
              and "log_interval" in p.stderr, repr(p.stderr))
        check(f"log_interval = {value}: nothing created", sorted(os.listdir(d)) == sorted(before + ["p.ini"]),
              str(os.listdir(d)))
        p = iobench(d, profile(d, read_job(), "q.ini"), "--log-interval", value, "--livecsv", live)
        check(f"--log-interval {value}: exit 2, one line", p.returncode == 2 and p.stderr.count("\n") == 1
              and value in p.stderr, f"{p.returncode} {p.stderr!r}")
        check(f"--log-interval {value}: nothing created", not os.path.exists(live))
    d = workdir()
    cases = {
        "livecsv without log_interval": (read_job(f"livecsv = {d}/live.csv\n"), "log_interval"),
        "livecsv on the profile": (read_job(f"log_interval = 1s\nlivecsv = {d}/p.ini\n"), "p.ini"),
        "livecsv on the data": (read_job(f"log_interval = 1s\nlivecsv = {d}/r.dat\n"), "r.dat"),
        "livecsv in a missing directory": (read_job(f"log_interval = 1s\nlivecsv = {d}/no/live.csv\n"), "no/live.csv"),
    }
    for name, (body, word) in cases.items():
        prof = profile(d, body)
        with open(prof) as f:
            text = f.read()
        before = {x: os.path.getsize(os.path.join(d, x)) for x in os.listdir(d)}
        p = iobench(d, prof, "--output", "json=" + os.path.join(d, "o.json"))
        check(f"{name}: exit 2", p.returncode == 2, f"{p.returncode} {p.stderr}")
        check(f"{name}: one line naming it", p.stderr.count("\n") == 1 and word in p.stderr, repr(p.stderr))
        after = {x: os.path.getsize(os.path.join(d, x)) for x in os.listdir(d)}
        with open(prof) as f:
            check(f"{name}: nothing created or changed", after == before and f.read() == text, str(after))


def test_livecsv_device():
    """A livecsv that cannot be written at creation (a copy of /dev/full):
    one line, exit 2, no output created, and the file that was there (the
    device node) is left alone: only what the run made is ever removed."""
    if os.geteuid() != 0:
        print("livecsv on a device: not run: making a device node needs root")
        return "skip"
    d = workdir()
    node = os.path.join(d, "full")
    os.mknod(node, 0o666 | 0o020000, os.makedev(1, 7))
    p = iobench(d, profile(d, read_job()), "--livecsv", node, "--output", "json=" + os.path.join(d, "o.json"))
    check("livecsv on a device: exit 2, one line", p.returncode == 2 and p.stderr.count("\n") == 1
          and "full" in p.stderr, f"{p.returncode} {p.stderr!r}")
    check("livecsv on a device: the node stays", os.path.exists(node) and not os.path.isfile(node))
    check("livecsv on a device: no output created", not os.path.exists(os.path.join(d, "o.json")))


CASES = {
    "progress_always": test_progress_always,
    "progress_off": test_progress_never_and_auto_pipe,
    "progress_pty": test_progress_auto_pty,
    "progress_bigread": test_progress_bigread,
    "progress_refused": test_progress_refused,
    "progress_group": test_progress_group,
    "progress_fio": test_progress_fio,
    "intervals": test_intervals,
    "intervals_streams_ramp": test_intervals_streams_ramp,
    "livecsv": test_livecsv,
    "refused": test_refused,
    "livecsv_device": test_livecsv_device,
}


def main():
    global A
    A = iob.arguments("--bin", "--plugin-dir", "--slow-dir", "--work", optional={"--only": None})
    for name, fn in CASES.items():
        if (not A.only or A.only == name) and fn() == "skip" and A.only:
            return iob.SKIP
    rc = iob.summary()
    return rc or (0 if iob.passed else 1)


if __name__ == "__main__":
    sys.exit(main())
