#!/usr/bin/env python3
"""Groups (`group = N`: jobs in a row that run at once) through `iobench run`,
JSON output, on the paced test backend slowafter (tests/bigread), whose every
read lasts at least its pace (bytes / IOB_SLOWAFTER_RATE): a lower bound on
time that a busy machine can only lengthen.  No case asserts a speed.

Cases (--only CASE runs one):
- overlap: two paced read jobs in one group; each alone lasts at least its
  pace, so run one after the other the group's window (last end - first
  start) would be at least the sum of the two jobs' times: it is less.  Every
  phase record carries `group`; the "group" record's bytes, ops and streams
  are the jobs' sums, its job_bw_min/max the jobs' rates, its rate its bytes
  over its window; threads = 2 in one job gives its stream records too;
- sequential: the same two jobs with group 0 run one after the other: the
  run takes at least the sum of their paced times, and no "group" record;
- phases: a group of a write+read+verify job and a read job: each job's
  phases in order (verify passes), one group record per phase name, with the
  jobs that ran it (read: 2, write: 1);
- intervals: log_interval in a group gives each job its interval records;
- refused: bad group values and layouts: one line naming the value, exit 2,
  nothing created;
- space: two jobs that each fit the free space but not together are refused
  in one group (exit 2, nothing created) and accepted one after the other;
- error: an I/O error (ENOSPC, fault backend) in one job of a group stops the
  group: exit 1, the error names that job, the other job's phase is
  "stopped", the group record partial, every file removed;
- exitall: exit_others = group on a short job stops a long paced job of its
  group (its phase "stopped", less than asked: the pace alone would take
  16 s), the next group still runs; exit_others = all: the next group does
  not run; the notes name the job whose end stopped the others;
- exitall_count: the stop comes when the exiting job's last I/O is done,
  counted, not timed: job a (flow = 1, 256 reads paced by slowafter,
  exit_others) beside job b (flow = 8, unpaced posix reads of a 64 MiB file):
  while a is in the flow b does at most 8 x a's + 10 reads (the flow admits
  b's read while 9 x b's admitted <= 8 x (all admitted + 1): 8 x a's + 9,
  and one more of b's, 8a + 10 with a's 1, 2, 4 and 256 reads), and a stays
  in it until it has stopped b, so b's whole count is at most
  8 x 256 + 10 = 2,058 (and at least 8 x 255 - 1: they ran together); a
  stop raised after a left the flow (after its phase was summed up, or seen
  by b's 16 ms look) lets b's unpaced reads run on by hundreds; three rounds;
- exitall_streams: exit_others on a job of two streams (fio's numjobs clones):
  the first stream to end stops its sibling stream and the group (paced by
  slowafter: stream 1's reads 20 times slower than stream 0's);
- files_error: a files job (workload = files) in a group with a job whose
  write fails: exit 1, the files job's create "stopped", nothing left;
- sigint: SIGINT during a group of two long paced jobs: exit 130 within
  seconds (the pace would take 16 s), both jobs' records interrupted and the
  group record too.

Usage: test_groups.py --bin DIR --plugin-dir DIR --slow-dir DIR --fault-dir DIR --work DIR [--only CASE]
Prints 'N passed, N failed'."""
import json
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import iobtest as iob  # noqa: E402
from iobtest import check  # noqa: E402

A = None
RATE = 4 << 20          # the pace: 4 MiB/s
SIZE = 2 << 20          # 2 MiB per job: at least 0.5 s each
BS = 64 << 10


def env(extra=None):
    return iob.env(extra, IOB_SLOWAFTER_RATE=str(RATE))


def workdir(files=("a.dat", "b.dat"), size=SIZE):
    return iob.data_dir(A.work, {n: size for n in files})


def profile(d, body, name="p.ini"):
    return iob.write(os.path.join(d, name), body)


def read_job(name, group, extra=""):
    return (f"[{name}]\nfilename = {name}.dat\nbackend = slowafter\nsize = {SIZE}\nblock_size = {BS}\n"
            f"phases = read\ngroup = {group}\n{extra}")


def iobench(d, prof, *extra, cmd="run", env_extra=None):
    args = [iob.binary(A, "iobench"), cmd, prof, "--dir", d, "--plugin-dir", A.plugin_dir,
            "--plugin-dir", A.slow_dir, *extra]
    return iob.run(args, cwd=d, env=env(env_extra), timeout=300)


def records(path):
    return iob.read_json(path)["records"]


def kind(recs, k, job=None, phase=None):
    return [r for r in recs if r["kind"] == k and (job is None or r.get("job") == job)
            and (phase is None or r.get("phase") == phase)]


def close(a, b):
    return abs(a - b) <= 1e-6 * max(abs(a), abs(b), 1.0)


# ---------------------------------------------------------------- cases

def test_overlap():
    d = workdir()
    js = os.path.join(d, "out.json")
    p = profile(d, read_job("a", 1) + read_job("b", 1, "threads = 2\nshared_file = true\n"))
    r = iobench(d, p, "--output", "json=" + js)
    check("overlap: exit 0", r.returncode == 0, r.stderr)
    if r.returncode != 0:
        return
    recs = records(js)
    a, b = kind(recs, "phase", "a", "read"), kind(recs, "phase", "b", "read")
    g = kind(recs, "group")
    check("overlap: one phase record per job and one group record", len(a) == 1 and len(b) == 1 and len(g) == 1,
          f"{len(a)} {len(b)} {len(g)}")
    if len(a) != 1 or len(b) != 1 or len(g) != 1:
        return
    a, b, g = a[0], b[0], g[0]
    pace = SIZE / RATE  # b's two streams each read half the shared file
    check("overlap: each job lasted at least its pace", a["elapsed_s"] >= pace * 0.999 and
          b["elapsed_s"] >= pace / 2 * 0.999, f"{a['elapsed_s']} {b['elapsed_s']}")
    print(f"overlap: a {a['elapsed_s']:.3f} s, b {b['elapsed_s']:.3f} s, group window {g['elapsed_s']:.3f} s")
    check("overlap: the jobs ran at the same time (window < sum of the jobs' times)",
          g["elapsed_s"] < a["elapsed_s"] + b["elapsed_s"], f"{g['elapsed_s']} vs {a['elapsed_s']} + {b['elapsed_s']}")
    check("overlap: group field in every phase and stream record",
          all(x.get("group") == 1 for x in recs if x["kind"] in ("phase", "stream")), "")
    check("overlap: job b's two stream records", len(kind(recs, "stream", "b", "read")) == 2, "")
    check("overlap: group record's group, phase, jobs, streams",
          g["group"] == 1 and g["phase"] == "read" and g["jobs"] == 2 and g["streams"] == 3, str(g))
    check("overlap: group bytes = sum of the jobs'", g["bytes"] == a["bytes"] + b["bytes"] == 2 * SIZE,
          f"{g['bytes']} {a['bytes']} {b['bytes']}")
    check("overlap: group ops = sum of the jobs'", g["ops"] == a["ops"] + b["ops"], f"{g['ops']}")
    check("overlap: group rate = bytes / window", close(g["bw_bytes_per_s"], g["bytes"] / g["elapsed_s"]),
          f"{g['bw_bytes_per_s']}")
    rates = sorted([a["bw_bytes_per_s"], b["bw_bytes_per_s"]])
    check("overlap: job_bw_min/max are the jobs' rates", close(g["job_bw_min_bytes_per_s"], rates[0]) and
          close(g["job_bw_max_bytes_per_s"], rates[1]), f"{g} {rates}")
    check("overlap: window at least the longest job", g["elapsed_s"] >= max(a["elapsed_s"], b["elapsed_s"]) - 1e-9,
          "")
    check("overlap: latency samples of every stream", g["lat_samples"] == a["lat_samples"] + b["lat_samples"],
          f"{g['lat_samples']} {a['lat_samples']} {b['lat_samples']}")
    check("overlap: status ok, not partial", g["status"] == "ok" and g["partial"] is False, str(g))
    shutil.rmtree(d)


def test_sequential():
    d = workdir()
    js = os.path.join(d, "out.json")
    p = profile(d, read_job("a", 0) + read_job("b", 0))
    t0 = time.monotonic()
    r = iobench(d, p, "--output", "json=" + js)
    took = time.monotonic() - t0
    check("sequential: exit 0", r.returncode == 0, r.stderr)
    if r.returncode != 0:
        return
    recs = records(js)
    a, b = kind(recs, "phase", "a"), kind(recs, "phase", "b")
    check("sequential: no group record", kind(recs, "group") == [], "")
    check("sequential: group 0 in the records", all(x["group"] == 0 for x in a + b), "")
    check("sequential: a's record before b's", recs.index(a[0]) < recs.index(b[0]), "")
    # run one after the other, the run lasts at least both jobs' times
    check("sequential: the run took at least the sum of the jobs' times",
          took >= a[0]["elapsed_s"] + b[0]["elapsed_s"], f"{took} < {a[0]['elapsed_s']} + {b[0]['elapsed_s']}")
    shutil.rmtree(d)


def test_phases():
    d = workdir(files=("b.dat",))
    js = os.path.join(d, "out.json")
    p = profile(d, f"[w]\nfilename = w.dat\nsize = 1M\nblock_size = 64K\nphases = write,read,verify\ngroup = 3\n"
                + read_job("b", 3))
    r = iobench(d, p, "--output", "json=" + js)
    check("phases: exit 0", r.returncode == 0, r.stderr)
    if r.returncode != 0:
        return
    recs = records(js)
    w = [x["phase"] for x in kind(recs, "phase", "w")]
    check("phases: w's phases in order", w == ["write", "read", "verify"], str(w))
    check("phases: verify ok", kind(recs, "phase", "w", "verify")[0]["status"] == "ok", "")
    g = {x["phase"]: x for x in kind(recs, "group")}
    check("phases: one group record per phase name", sorted(g) == ["read", "verify", "write"], str(sorted(g)))
    if sorted(g) == ["read", "verify", "write"]:
        check("phases: write by one job, read by two", g["write"]["jobs"] == 1 and g["read"]["jobs"] == 2, "")
        check("phases: read bytes = both jobs' reads",
              g["read"]["bytes"] == sum(x["bytes"] for x in kind(recs, "phase", phase="read")), "")
        check("phases: group records after the jobs' records",
              recs.index(g["write"]) > max(recs.index(x) for x in kind(recs, "phase")), "")
    check("phases: the written file is removed", not os.path.exists(os.path.join(d, "w.dat")), "")
    shutil.rmtree(d)


def test_intervals():
    d = workdir()
    js = os.path.join(d, "out.json")
    csv = os.path.join(d, "live.csv")
    p = profile(d, read_job("a", 1, f"log_interval = 100ms\nlivecsv = {csv}\n") +
                read_job("b", 1, f"log_interval = 100ms\nlivecsv = {csv}\n"))
    r = iobench(d, p, "--output", "json=" + js)
    check("intervals: exit 0", r.returncode == 0, r.stderr)
    if r.returncode != 0:
        return
    recs = records(js)
    for j in ("a", "b"):
        iv = kind(recs, "interval", j)
        ph = kind(recs, "phase", j)[0]
        check(f"intervals: job {j} has its intervals", len(iv) >= 2, str(len(iv)))
        check(f"intervals: job {j}'s intervals add up to its bytes", sum(x["bytes"] for x in iv) == ph["bytes"],
              f"{sum(x['bytes'] for x in iv)} {ph['bytes']}")
    with open(csv) as f:
        rows = f.read().splitlines()
    check("intervals: the live CSV has both jobs' rows, whole",
          {x.split(",")[0] for x in rows[1:]} == {"a", "b"} and all(x.count(",") == 12 for x in rows), str(rows[:4]))
    shutil.rmtree(d)


def test_refused():
    cases = [
        ("group = -1", "'-1'"),
        ("group = abc", "'abc'"),
        ("group = 1000001", "1000001"),
        ("group = 4294967296", "4294967296"),
        ("group = 1\nseries = true", "series"),
        ("group = 1\nfilename = -\nbackend = stdio\nphases = read", "standard input"),
    ]
    for body, word in cases:
        d = iob.tempdir(A.work)
        p = profile(d, f"[a]\nsize = 1M\n{body}\n[b]\nsize = 1M\ngroup = 1\n")
        r = iobench(d, p)
        lines = r.stderr.strip().split("\n")
        check(f"refused '{body}': exit 2", r.returncode == 2, f"{r.returncode}: {r.stderr}")
        check(f"refused '{body}': one line naming it", len(lines) == 1 and word in lines[0] and "group" in lines[0],
              r.stderr)
        check(f"refused '{body}': nothing created", sorted(os.listdir(d)) == ["p.ini"], str(os.listdir(d)))
        shutil.rmtree(d)
    d = iob.tempdir(A.work)
    p = profile(d, "[a]\nsize = 1M\ngroup = 2\n[b]\nsize = 1M\n[c]\nsize = 1M\ngroup = 2\n")
    r = iobench(d, p)
    check("refused: a group split by another job: exit 2, one line naming both jobs",
          r.returncode == 2 and r.stderr.count("\n") == 1 and "[c] group 2" in r.stderr and "job a" in r.stderr,
          r.stderr)
    check("refused: split group: nothing created", sorted(os.listdir(d)) == ["p.ini"], str(os.listdir(d)))
    shutil.rmtree(d)


def test_space():
    d = iob.tempdir(A.work)
    st = os.statvfs(d)
    free = st.f_bavail * st.f_frsize
    each = (free * 6 // 10) >> 20 << 20
    if each < 1 << 20:
        print("space: skipped, the work directory's file system is full")
        return
    body = "[a]\nsize = {0}\ngroup = {1}\n[b]\nsize = {0}\ngroup = {1}\n"
    p = profile(d, body.format(each, 1))
    r = iobench(d, p, cmd="check")
    check("space: a group needing more than the free space together is refused",
          r.returncode == 2 and "not enough space" in r.stderr and "this group" in r.stderr and
          r.stderr.count("\n") == 1, f"{r.returncode}: {r.stderr}")
    r = iobench(d, p)
    check("space: refused by run too, nothing created", r.returncode == 2 and sorted(os.listdir(d)) == ["p.ini"],
          f"{r.returncode}: {os.listdir(d)}")
    p = profile(d, body.format(each, 0))
    r = iobench(d, p, cmd="check")
    check("space: the same jobs one after the other fit", r.returncode == 0, f"{r.returncode}: {r.stderr}")
    shutil.rmtree(d)


def test_error():
    d = workdir(files=("b.dat",))
    data = os.path.join(d, "data")
    os.mkdir(data)
    js = os.path.join(d, "out.json")
    wrap = os.path.join(A.plugin_dir, "iob-backend-posix.so")
    # job full writes 1 MiB in 64 KiB writes; the write after 256 KiB fails with ENOSPC
    p = profile(d, f"[full]\ndir = {data}\nbackend = fault\nsize = 1M\nblock_size = 64K\nphases = write,read\n"
                f"group = 1\nbackend_options = wrap={wrap},op=write,err=ENOSPC,after_bytes=262144\n"
                + read_job("b", 1, "loops = 8\n"))
    r = iobench(d, p, "--output", "json=" + js, env_extra={"IOBENCH_PLUGIN_PATH": A.fault_dir})
    lines = r.stderr.strip().split("\n")
    check("error: exit 1", r.returncode == 1, f"{r.returncode}: {r.stderr}")
    check("error: one error line naming the job and the reason",
          any("job full:" in x and "No space left on device" in x for x in lines), r.stderr)
    recs = records(js)
    f, b, g = kind(recs, "phase", "full"), kind(recs, "phase", "b"), kind(recs, "group")
    check("error: the failed job's write phase, status error, and no read phase",
          [x["status"] for x in f] == ["error"], str(f))
    check("error: the other job was stopped, not finished", [x["status"] for x in b] == ["stopped"] and
          b[0]["bytes"] < 8 * SIZE, str(b))
    check("error: group records partial", g and all(x["partial"] is True for x in g) and
          {x["phase"]: x["status"] for x in g} == {"write": "error", "read": "stopped"}, str(g))
    check("error: the failed job's file is removed", os.listdir(data) == [], str(os.listdir(data)))
    shutil.rmtree(d)


def test_exitall():
    d = iob.tempdir(A.work)
    for n, size in (("a.dat", 256 << 10), ("b.dat", 64 << 20), ("c.dat", 256 << 10)):
        with open(os.path.join(d, n), "wb") as f:
            f.write(os.urandom(4096))
            f.truncate(size)
    for mode in ("group", "all"):
        js = os.path.join(d, f"out-{mode}.json")
        p = profile(d, read_job("a", 1, f"exit_others = {mode}\n").replace(f"size = {SIZE}", "size = 256K") +
                    read_job("b", 1).replace(f"size = {SIZE}", "size = 64M") +
                    read_job("c", 2).replace(f"size = {SIZE}", "size = 256K"))
        r = iobench(d, p, "--output", "json=" + js)
        check(f"exitall {mode}: exit 0", r.returncode == 0, f"{r.returncode}: {r.stderr}")
        doc = iob.read_json(js)
        recs = doc["records"]
        a, b, c = kind(recs, "phase", "a"), kind(recs, "phase", "b"), kind(recs, "phase", "c")
        check(f"exitall {mode}: job a did all its reads", [(x["status"], x["bytes"]) for x in a] == [("ok", 256 << 10)],
              str([(x["status"], x["bytes"]) for x in a]))
        check(f"exitall {mode}: job b was stopped, less than asked", [x["status"] for x in b] == ["stopped"] and
              b[0]["bytes"] < 64 << 20, str([(x["status"], x["bytes"]) for x in b]))
        g = kind(recs, "group")
        check(f"exitall {mode}: group 1's record says stopped and partial", any(
            x["group"] == 1 and x["status"] == "stopped" and x["partial"] is True for x in g), str(g))
        notes = " ".join(doc.get("notes", [])) + r.stderr
        check(f"exitall {mode}: a note names job a", f"job a ended first: exit_others = {mode}" in notes, notes)
        if mode == "group":
            check("exitall group: the next group ran", [x["status"] for x in c] == ["ok"], str(c))
        else:
            check("exitall all: the next group did not run", c == [] and "the jobs after it do not run" in notes,
                  str(c))
def test_exitall_count():
    d = iob.tempdir(A.work)
    for n, size in (("a.dat", 1 << 20), ("b.dat", 64 << 20)):
        with open(os.path.join(d, n), "wb") as f:
            f.write(os.urandom(4096))
            f.truncate(size)
    n_a = (1 << 20) // 4096
    for rnd in range(3):
        js = os.path.join(d, f"out{rnd}.json")
        p = profile(d, read_job("a", 1, "exit_others = group\nflow = 1\n")
                    .replace(f"size = {SIZE}", "size = 1M").replace(f"block_size = {BS}", "block_size = 4K") +
                    read_job("b", 1, "flow = 8\n").replace("backend = slowafter", "backend = posix")
                    .replace(f"size = {SIZE}", "size = 64M").replace(f"block_size = {BS}", "block_size = 4K"))
        r = iobench(d, p, "--output", "json=" + js)
        check(f"exitall_count {rnd}: exit 0", r.returncode == 0, f"{r.returncode}: {r.stderr}")
        if r.returncode != 0:
            continue
        recs = records(js)
        a, b = kind(recs, "phase", "a"), kind(recs, "phase", "b")
        ops = {"a": [(x["status"], x["ops"]) for x in a], "b": [(x["status"], x["ops"]) for x in b]}
        print(f"exitall_count {rnd}: a {ops['a']}, b {ops['b']} (b - 8a = {b[0]['ops'] - 8 * n_a if b else '-'})")
        check(f"exitall_count {rnd}: a did its {n_a} reads", ops["a"] == [("ok", n_a)], str(ops))
        check(f"exitall_count {rnd}: b stopped within the flow's bound, 8 x {n_a} + 10 reads",
              len(b) == 1 and b[0]["status"] == "stopped" and 8 * (n_a - 1) - 1 <= b[0]["ops"] <= 8 * n_a + 10,
              str(ops))
    shutil.rmtree(d)


def test_exitall_streams():
    """exit_others on a job of two streams (fio's numjobs=2, whose clones are jobs to fio): the first
    stream to end stops its sibling and the group.  Job a's streams read 1 MiB each of a file of
    their own, stream 1 from 1 MiB on (offset_increment = 1M); slowafter paces reads past 1 MiB 20 times slower, so stream 0 takes
    0.25 s and stream 1 would take 5 s: paced, not timed by the machine.  Stream 0 does its 256
    reads (ok), stream 1 and job b (64 MiB, 16 s at the pace) are stopped short, a's phase and
    the group say stopped, the note names a and its other streams."""
    d = iob.tempdir(A.work)
    for n, size in (("a.dat.0", 2 << 20), ("a.dat.1", 2 << 20), ("b.dat", 64 << 20)):
        with open(os.path.join(d, n), "wb") as f:
            f.write(os.urandom(4096))
            f.truncate(size)
    js = os.path.join(d, "out.json")
    p = profile(d, read_job("a", 1, "exit_others = group\nthreads = 2\noffset_increment = 1M\n")
                .replace(f"size = {SIZE}", "size = 1M").replace(f"block_size = {BS}", "block_size = 4K") +
                read_job("b", 1).replace(f"size = {SIZE}", "size = 64M"))
    r = iobench(d, p, "--output", "json=" + js,
                env_extra={"IOB_SLOWAFTER_BYTES": str(1 << 20), "IOB_SLOWAFTER_FACTOR": "20"})
    check("exitall_streams: exit 0", r.returncode == 0, f"{r.returncode}: {r.stderr}")
    if r.returncode != 0:
        shutil.rmtree(d)
        return
    doc = iob.read_json(js)
    recs = doc["records"]
    st = sorted(((x["stream"], x["status"], x["bytes"]) for x in kind(recs, "stream", "a")))
    print(f"exitall_streams: a's streams {st}")
    check("exitall_streams: stream 0 did its 1 MiB", st[:1] == [(0, "ok", 1 << 20)], str(st))
    check("exitall_streams: stream 1 was stopped, less than a third of its 1 MiB",
          len(st) == 2 and st[1][1] == "stopped" and st[1][2] < (1 << 20) // 3, str(st))
    a, b = kind(recs, "phase", "a"), kind(recs, "phase", "b")
    check("exitall_streams: a's phase says stopped", [x["status"] for x in a] == ["stopped"], str(a))
    check("exitall_streams: b was stopped short", [x["status"] for x in b] == ["stopped"] and
          b[0]["bytes"] < 16 << 20, str([(x["status"], x["bytes"]) for x in b]))
    g = kind(recs, "group")
    check("exitall_streams: the group is partial", g and all(x["partial"] is True for x in g), str(g))
    notes = " ".join(doc.get("notes", []))
    check("exitall_streams: the note names a and its other streams",
          "job a ended first (its first stream to end)" in notes and "and the job's other streams" in notes, notes)
    shutil.rmtree(d)


def test_files_error():
    """A files job (workload = files) in a group with a job whose write fails: the group stops, the
    error names the failed job, the files job's phase in progress says stopped (no later phase), and
    nothing either job made is left."""
    d = iob.tempdir(A.work)
    data, tree = os.path.join(d, "data"), os.path.join(d, "tree")
    os.mkdir(data)
    os.mkdir(tree)
    js = os.path.join(d, "out.json")
    st = os.statvfs(tree)
    files = 2000000
    if st.f_files and st.f_favail < files + 1000:
        files = max(1000, st.f_favail // 4)
    wrap = os.path.join(A.plugin_dir, "iob-backend-posix.so")
    p = profile(d, f"[full]\ndir = {data}\nbackend = fault\nsize = 1M\nblock_size = 64K\nphases = write\n"
                f"group = 1\nbackend_options = wrap={wrap},op=write,err=ENOSPC,after_bytes=262144\n"
                f"[many]\nworkload = files\ndir = {tree}\nfiles = {files}\nmeta_phases = create,stat,remove\n"
                "group = 1\n")
    r = iobench(d, p, "--output", "json=" + js, env_extra={"IOBENCH_PLUGIN_PATH": A.fault_dir})
    lines = r.stderr.strip().split("\n")
    check("files_error: exit 1", r.returncode == 1, f"{r.returncode}: {r.stderr}")
    check("files_error: the error names the failed job", any("job full:" in x and "No space left" in x
                                                            for x in lines), r.stderr)
    recs = records(js)
    m = [x for x in recs if x["kind"] == "meta"]
    check("files_error: the files job's create was cut short, nothing after it",
          [(x["phase"], x["status"]) for x in m] == [("create", "stopped")] and m[0]["ops"] < files, str(m))
    check("files_error: nothing left", os.listdir(data) == [] and os.listdir(tree) == [],
          f"{os.listdir(data)} {os.listdir(tree)[:5]}")
    shutil.rmtree(d)


def test_sigint():
    d = iob.tempdir(A.work)
    for n in ("a.dat", "b.dat"):
        with open(os.path.join(d, n), "wb") as f:
            f.truncate(64 << 20)  # 16 s each at the pace
    js = os.path.join(d, "out.json")
    p = profile(d, read_job("a", 1).replace(f"size = {SIZE}", "size = 64M") +
                read_job("b", 1, "threads = 2\nshared_file = true\n").replace(f"size = {SIZE}", "size = 64M"))
    args = [os.path.join(A.bin, "iobench"), "run", p, "--dir", d, "--plugin-dir", A.plugin_dir,
            "--plugin-dir", A.slow_dir, "--output", "json=" + js]
    # stopped within seconds, not the 16 s of the pace
    if iob.interrupted("sigint: a group of 2 jobs (3 streams)", args, 8, cwd=d, env=env()):
        recs = records(js)
        ph = kind(recs, "phase")
        check("sigint: both jobs' records, interrupted", sorted(x["job"] for x in ph) == ["a", "b"] and
              all(x["status"] == "interrupted" for x in ph), str([(x["job"], x["status"]) for x in ph]))
        check("sigint: some bytes, less than asked", all(0 < x["bytes"] < 64 << 20 for x in ph), "")
        g = kind(recs, "group")
        check("sigint: the group record is interrupted and partial", len(g) == 1 and
              g[0]["status"] == "interrupted" and g[0]["partial"] is True, str(g))
        check("sigint: the run is marked interrupted", json.load(open(js))["interrupted"] is True, "")
    shutil.rmtree(d)


CASES = {n[5:]: f for n, f in globals().items() if n.startswith("test_")}


def main():
    global A
    A = iob.arguments("--bin", "--plugin-dir", "--slow-dir", "--fault-dir", "--work", optional={"--only": None})
    for name, fn in CASES.items():
        if A.only and name != A.only:
            continue
        fn()
    return iob.summary()


if __name__ == "__main__":
    sys.exit(main())
