#!/usr/bin/env python3
"""workload = files (docs/metadata.md): the metadata job's phases, counts,
trees, cleanup, bad input, a stop, outputs and MPI ranks.  Small sizes
(hundreds of files); nothing depends on how fast the machine is: only
counts, names, what is left on disk and the records' own consistency are
asserted.

usage: test_meta.py --bin DIR --work DIR [--mpirun PATH] [--coord PATH] CASE"""
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
from iobtest import Skip, expect  # noqa: E402

A = None
PHASES = ["mkdir", "dirstat", "create", "write", "stat", "open", "read", "remove", "rmdir"]
# the .exe files under wine (tests/windows/CMakeLists.txt): what differs is said where it is tested
WINDOWS = os.environ.get("IOB_TEST_OS") == "windows"


def env():
    return iob.env(drop=("IOBENCH_PLUGIN_PATH", "PMI_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK"))


def traced_env():
    """env() for a run under strace: LeakSanitizer cannot run under ptrace (it stops the run at exit, "does
    not work under ptrace"), so an ASan build runs without it there; AddressSanitizer itself still checks."""
    e = env()
    e["ASAN_OPTIONS"] = (e.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":")
    return e


def iobench():
    return os.path.join(A.bin, "iobench")


def fresh(tmp, name):
    d = os.path.join(tmp, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    # a file of the user's that must survive every run
    with open(os.path.join(d, "keep.me"), "w") as f:
        f.write("mine")
    return d


def listing(d):
    out = []
    for root, dirs, files in os.walk(d):
        for n in dirs + files:
            out.append(os.path.relpath(os.path.join(root, n), d))
    return sorted(out)


def profile(tmp, text):
    return iob.write(os.path.join(tmp, "p.ini"), text)


def run(tmp, text, *args, rc=0, mpi=0):
    out = os.path.join(tmp, "out.json")
    if os.path.exists(out):
        os.unlink(out)
    argv = [iobench(), "run", profile(tmp, text), "--output", "json=" + out, *args]
    if mpi:
        argv = [A.mpirun, "-n", str(mpi)] + argv
    p = iob.run(argv, env=env(), timeout=240)
    expect(p.returncode == rc, f"{' '.join(argv)}: exit {p.returncode}, want {rc}\n{p.stdout[-2000:]}\n{p.stderr[-3000:]}")
    if rc:
        return None, p
    return iob.read_json(out)["records"], p


def meta(recs):
    return [r for r in recs if r["kind"] == "meta"]


def tree_dirs(depth, branch):
    return sum(branch ** l for l in range(depth + 1))


def check_record(r, ops, file_bytes):
    """One phase record: its counts, its rate from its own ops and time, its latency summary."""
    expect(r["status"] == "ok", r)
    expect(r["ops"] == ops, f"{r['phase']}: ops {r['ops']}, want {ops}")
    moves = r["phase"] in ("create", "write", "read")
    expect(r["bytes"] == (ops * file_bytes if moves else 0), f"{r['phase']}: bytes {r['bytes']}")
    lat = r["lat_ns"]
    expect(lat["count"] == ops, f"{r['phase']}: latency count {lat['count']}, want {ops}")
    expect(lat["min"] <= lat["mean"] <= lat["max"], lat)
    pct = lat["percentiles"] if "percentiles" in lat else lat.get("pct")
    expect(pct and len(pct) == 16, f"16 percentiles: {lat}")
    expect(r["elapsed_s"] > 0 and abs(r["ops_per_s"] - ops / r["elapsed_s"]) <= 1e-6 * r["ops_per_s"] + 1e-9,
           f"{r['phase']}: ops_per_s {r['ops_per_s']} is not ops / elapsed_s")


def case_phases(tmp):
    """Every phase on 2 streams, a tree of depth 2 and branching 3, 150 files of 100 bytes each: the
    counts of every record, the tree as made (kept), then a run that removes exactly what it made."""
    d = fresh(tmp, "phases")
    before = listing(d)
    base = (f"[m]\nworkload = files\ndir = {d}\nfiles = 150\ntree_depth = 2\ntree_branch = 3\nthreads = 2\n"
            "file_bytes = 100\n")
    recs, _ = run(tmp, base + "meta_phases = " + ",".join(PHASES) + "\n")
    m = meta(recs)
    expect([r["phase"] for r in m] == PHASES, [r["phase"] for r in m])
    nd = tree_dirs(2, 3)
    for r in m:
        check_record(r, 2 * nd if r["phase"] in ("mkdir", "dirstat", "rmdir") else 300, 100)
        expect(r["streams"] == 2 and r["tree_dirs"] == nd and r["ranks"] == 1, r)
    expect(listing(d) == before, f"left behind: {set(listing(d)) - set(before)}")
    # kept: the trees as the docs say (files spread in order over the 13 directories, 12 a directory)
    run(tmp, base + "meta_phases = mkdir,create\nkeep_files = true\n")
    for g in (0, 1):
        root = os.path.join(d, f"iobench.m.{g}")
        files = [p for p in listing(root) if os.path.basename(p).startswith("f.")]
        dirs = [p for p in listing(root) if os.path.isdir(os.path.join(root, p))]
        expect(len(dirs) == nd - 1 and len(files) == 150, f"stream {g}: {len(dirs)} dirs, {len(files)} files")
        expect(os.path.isfile(os.path.join(root, f"f.{g}.0")) and os.path.isfile(os.path.join(root, f"f.{g}.11")),
               "files 0..11 in the root")
        expect(os.path.isfile(os.path.join(root, "d0", f"f.{g}.12")), "file 12 in d0")
        expect(os.path.isfile(os.path.join(root, "d2", "d2", f"f.{g}.149")), "file 149 in the last directory")
        expect(all(os.path.getsize(os.path.join(root, p)) == 100 for p in files), "100 bytes each")
        if not WINDOWS:
            expect(os.stat(root).st_mode & 0o777 == 0o700, "trees are made 0700")
        else:  # a DACL for this user only, which wine turns into mode 0750 (docs/windows.md)
            expect(os.stat(root).st_mode & 0o007 == 0, f"others may enter a tree: {oct(os.stat(root).st_mode)}")
    # a kept tree is never reused: the next run refuses before it makes anything
    _, p = run(tmp, base, rc=2)
    expect("exists already" in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr)
    for g in (0, 1):
        shutil.rmtree(os.path.join(d, f"iobench.m.{g}"))


def case_shared(tmp):
    """One shared tree for 3 streams: the tree is made once (by stream 0), each stream makes and removes
    its own files in it; a phase list without mkdir and rmdir makes and removes the tree untimed."""
    d = fresh(tmp, "shared")
    before = listing(d)
    base = (f"[m]\nworkload = files\ndir = {d}\nfiles = 100\ntree_depth = 1\ntree_branch = 4\nthreads = 3\n"
            "dir_per_stream = false\n")
    recs, _ = run(tmp, base + "meta_phases = mkdir,create,stat,remove,rmdir\n")
    m = {r["phase"]: r for r in meta(recs)}
    expect(list(m) == ["mkdir", "create", "stat", "remove", "rmdir"], list(m))
    check_record(m["mkdir"], 5, 0)
    check_record(m["rmdir"], 5, 0)
    for ph in ("create", "stat", "remove"):
        check_record(m[ph], 300, 0)
    expect(listing(d) == before, listing(d))
    recs, _ = run(tmp, base + "meta_phases = create,remove\n")
    expect([r["phase"] for r in meta(recs)] == ["create", "remove"], recs)
    expect(listing(d) == before, listing(d))
    run(tmp, base + "meta_phases = create\nkeep_files = true\n")
    root = os.path.join(d, "iobench.m.shared")
    names = sorted(os.path.basename(p) for p in listing(root) if os.path.basename(p).startswith("f."))
    expect(len(names) == 300 and {n.split(".")[1] for n in names} == {"0", "1", "2"}, names[:5])
    shutil.rmtree(root)


def case_repeat(tmp):
    """repeat = 3: each phase three times (a record each, its index), then a summary per phase whose
    mean, min and max are those of the three records' rates."""
    d = fresh(tmp, "repeat")
    recs, _ = run(tmp, f"[m]\nworkload = files\ndir = {d}\nfiles = 50\nrepeat = 3\n"
                       "meta_phases = create,stat,remove\n")
    m = meta(recs)
    expect([(r["phase"], r["repeat"]) for r in m] ==
           [(p, i) for i in range(3) for p in ("create", "stat", "remove")], [(r["phase"], r["repeat"]) for r in m])
    for r in m:
        check_record(r, 50, 0)
    summ = {r["phase"]: r for r in recs if r["kind"] == "meta_summary"}
    expect(list(summ) == ["create", "stat", "remove"], summ)
    for ph, s in summ.items():
        rates = [r["ops_per_s"] for r in m if r["phase"] == ph]
        expect(s["runs"] == 3, s)
        expect(abs(s["ops_per_s_mean"] - sum(rates) / 3) <= 1e-6 * s["ops_per_s_mean"], (s, rates))
        expect(s["ops_per_s_min"] == min(rates) and s["ops_per_s_max"] == max(rates), (s, rates))
    expect(listing(d) == ["keep.me"], listing(d))


def case_stat_other(tmp):
    """stat_other = 1 on 2 streams with 64-byte files: each stream stats, opens and reads the other's
    files (the same counts; strace shows stream 0's thread stats only stream 1's files and the other way round)."""
    d = fresh(tmp, "other")
    text = (f"[m]\nworkload = files\ndir = {d}\nfiles = 40\nthreads = 2\nstat_other = 1\nfile_bytes = 64\n"
            "meta_phases = create,stat,open,read,remove\n")
    recs, p = run(tmp, text)
    m = {r["phase"]: r for r in meta(recs)}
    for ph in ("create", "stat", "open", "read", "remove"):
        check_record(m[ph], 80, 64)
        expect(m[ph]["stat_other"] == 1, m[ph])
    expect("(by another stream)" in p.stderr, p.stderr)
    strace = shutil.which("strace")
    if not strace or WINDOWS:  # (wine's threads do their calls through wineserver: no such trace)
        return
    log = os.path.join(tmp, "strace.log")
    argv = [strace, "-f", "-qq", "-e", "trace=newfstatat,clone,clone3", "-y", "-o", log, iobench(), "run",
            profile(tmp, text.replace("open,read,", "")), "--output", "json=" + os.path.join(tmp, "s.json")]
    sp = subprocess.run(argv, capture_output=True, text=True, env=env(), timeout=240)
    if sp.returncode != 0 and "ptrace" in sp.stderr:
        return  # no ptrace here (a container): the counts above stand alone
    expect(sp.returncode == 0, sp.stderr[-2000:])
    lines = open(log).read().splitlines()
    # the phases create, stat, remove each start stream 0's thread, then stream 1's
    tids = [int(l.rsplit("=", 1)[1]) for l in lines if "clone" in l and l.rsplit("=", 1)[-1].strip().isdigit()]
    stats = [l for l in lines if "newfstatat(" in l and '"f.' in l and "iobench.m." in l]
    expect(len(stats) == 80, f"{len(stats)} stats of the files")
    # the stat phase's two threads, in the order they were started (stream 0, then 1); other threads
    # (a sanitizer's own) stat no file
    statters = [t for t in tids if t in {int(l.split()[0]) for l in stats}]
    expect(len(statters) == 2, f"threads that stat the files: {statters} of {tids}")
    stream = {t: i for i, t in enumerate(statters)}
    for l in stats:
        tid = int(l.split()[0])
        name = l.split('"')[1]
        expect(int(name.split(".")[1]) == (stream[tid] + 1) % 2, f"stream {stream[tid]} stats {name}: {l}")


def case_bad_input(tmp):
    """Bad shapes: one line naming the value, exit 2, nothing created."""
    d = fresh(tmp, "bad")
    before = listing(d)
    st = os.statvfs(d)
    cases = [
        ("files = 0\n", "files = 0"),
        ("tree_depth = 2000\ntree_branch = 1\n", "past the limit"),
        ("tree_depth = 30\ntree_branch = 10\n", "directories in a tree"),
        ("tree_depth = 2\ntree_branch = 0\n", "tree_branch = 0"),
        ("meta_phases = stat,remove\n", "need create"),
        ("stat_other = 2\nthreads = 2\n", "stat_other = 2"),
        ("file_bytes = 2G\n", "file_bytes"),
        ("files = 100000000\nthreads = 4096\n", "inodes" if st.f_files and not WINDOWS else "bytes"),
        ("files = 100000\nthreads = 2\nfile_bytes = 1G\nmemory_limit = 4G\n", "free"),
        # a files job runs in a group, but one run again (repeat) runs alone, as a data job does
        (f"repeat = 2\ngroup = 1\n[n]\nworkload = files\ndir = {d}\ngroup = 1\n", "not in a group with other jobs"),
        ("meta_phases = rmdir,bogus\n", "bogus"),
        ("meta_phases = dirstat,bogus\n", "bogus"),
        ("meta_phases = dirstat,stat\n", "need create"),
        ("threads = 64\nfile_bytes = 1G\nmemory_limit = 1G\nfiles = 1\n", "memory"),
    ]
    for extra, word in cases:
        if word == "bytes" and not WINDOWS:  # (Windows: the files alone, by their file records)
            extra += "file_bytes = 1G\n"
        _, p = run(tmp, f"[m]\nworkload = files\ndir = {d}\n" + extra, rc=2)
        lines = p.stderr.strip().splitlines()
        expect(len(lines) == 1 and word in lines[0], f"{extra!r}: {p.stderr}")
        expect(listing(d) == before, f"{extra!r} left {listing(d)}")
    # a dir that is a file
    _, p = run(tmp, f"[m]\nworkload = files\ndir = {d}/keep.me\n", rc=2)
    expect("not a directory" in p.stderr, p.stderr)
    if os.geteuid() != 0:  # root may write anywhere
        ro = os.path.join(tmp, "ro")
        os.makedirs(ro, exist_ok=True)
        os.chmod(ro, 0o555)
        _, p = run(tmp, f"[m]\nworkload = files\ndir = {ro}\n", rc=2)
        expect("cannot be made in it" in p.stderr and os.listdir(ro) == [], p.stderr)
        os.chmod(ro, 0o755)
    _, p = run(tmp, f"[m]\nworkload = files\ndir = {d}/missing\n", rc=2)
    expect("No such file or directory" in p.stderr and not os.path.exists(f"{d}/missing"), p.stderr)


def interrupt_files(tmp, name, more, own):
    """Run a files job (mkdir,create,stat,remove,rmdir of as many files as the file system has inodes
    for, up to 2,000,000 a stream) in a fresh directory `name`, with the profile text `more` after its
    section, and send SIGINT once 20 files exist (`own` entries in the directory are not the run's):
    checks exit 130 and that nothing is left behind; (files a stream, the meta records).  Skip when
    the run ended before the signal."""
    d = fresh(tmp, name)
    before = listing(d)
    st = os.statvfs(d)
    files = 2000000
    if st.f_files and st.f_favail < 2 * files + 1000:
        files = max(1000, st.f_favail // 4)
    out = os.path.join(tmp, "int.json")
    prof = profile(tmp, f"[m]\nworkload = files\ndir = {d}\nfiles = {files}\ntree_depth = 1\ntree_branch = 5\n"
                        "threads = 2\nmeta_phases = mkdir,create,stat,remove,rmdir\n" + more.format(d=d))
    p = iob.start([iobench(), "run", prof, "--output", "json=" + out], env=env())
    deadline = time.time() + 60
    while time.time() < deadline:  # until some files exist
        n = sum(len(fs) for _, _, fs in os.walk(d)) - own
        if n >= 20 or p.poll() is not None:
            break
        time.sleep(0.05)
    p.send_signal(signal.SIGINT)
    so, se = p.communicate(timeout=240)
    if p.returncode == 0:
        raise Skip(f"the run of {files} files per stream ended before the signal (a very fast file system)")
    expect(p.returncode == 130, f"exit {p.returncode}: {se[-2000:]}")
    expect(listing(d) == before, f"left behind: {listing(d)[:10]}")
    return files, meta(iob.read_json(out)["records"])


def case_sigint(tmp):
    """SIGINT in the middle of create: exit 130, the create record says interrupted with what it did, and
    every file and directory the run made is gone (the user's file stays)."""
    files, m = interrupt_files(tmp, "sigint", "", 1)
    expect([r["phase"] for r in m][:2] == ["mkdir", "create"], m)
    c = m[1]
    expect(c["status"] == "interrupted" and 0 < c["ops"] < 2 * files, c)
    expect(len(m) == 2, "nothing runs after the stop")


def files_in(root):
    """The files and directories below root (itself not counted)."""
    nf = nd = 0
    for _, dirs, files in os.walk(root):
        nf += len(files)
        nd += len(dirs)
    return nf, nd


def case_group_files(tmp):
    """Two files jobs in one group (they run at once, as data jobs of a group do): each job's records with
    its own counts, no group record (no data phase), nothing left behind; then the same group keeping its
    trees: every tree holds exactly the files and directories its job made."""
    d = fresh(tmp, "gfiles")
    before = listing(d)
    a = (f"[a]\nworkload = files\ndir = {d}\nfiles = 120\nthreads = 2\ntree_depth = 1\ntree_branch = 3\n"
         "file_bytes = 10\ngroup = 1\n")
    b = (f"[b]\nworkload = files\ndir = {d}\nfiles = 90\nthreads = 2\ndir_per_stream = false\ngroup = 1\n")
    recs, p = run(tmp, a + "meta_phases = " + ",".join(PHASES) + "\n\n" + b +
                  "meta_phases = create,stat,open,remove\n")
    ma = [r for r in meta(recs) if r["job"] == "a"]
    mb = [r for r in meta(recs) if r["job"] == "b"]
    expect([r["phase"] for r in ma] == PHASES, [r["phase"] for r in ma])
    expect([r["phase"] for r in mb] == ["create", "stat", "open", "remove"], [r["phase"] for r in mb])
    for r in ma:
        check_record(r, 2 * 4 if r["phase"] in ("mkdir", "dirstat", "rmdir") else 240, 10)
    for r in mb:
        check_record(r, 180, 0)
        expect(r["streams"] == 2 and r["dir_per_stream"] is False and r["tree_dirs"] == 1, r)
    expect(not [r for r in recs if r["kind"] == "group"], "a group of files jobs has no data phase to sum")
    expect(listing(d) == before, f"left behind: {set(listing(d)) - set(before)}")
    # kept: what each job made, counted on disk
    run(tmp, a + "meta_phases = mkdir,create\nkeep_files = true\n\n" + b +
        "meta_phases = create\nkeep_files = true\n")
    for g in (0, 1):
        nf, nd = files_in(os.path.join(d, f"iobench.a.{g}"))
        expect((nf, nd) == (120, 3), f"job a stream {g}: {nf} files, {nd} directories, want 120 and 3")
    nf, nd = files_in(os.path.join(d, "iobench.b.shared"))
    expect((nf, nd) == (180, 0), f"job b: {nf} files, {nd} directories, want 180 and 0")
    expect(len(listing(d)) == len(before) + 2 * (1 + 3 + 120) + 1 + 180, "nothing else made")
    for t in ("iobench.a.0", "iobench.a.1", "iobench.b.shared"):
        shutil.rmtree(os.path.join(d, t))


def case_group_mixed(tmp):
    """A files job and a data job in one group, in one directory: the files job's records and counts,
    the data job's phase records and the group record (the data job alone: files jobs count ops, not
    bytes), every byte accounted for, nothing left behind."""
    d = fresh(tmp, "gmixed")
    before = listing(d)
    text = (f"[m]\nworkload = files\ndir = {d}\nfiles = 200\nthreads = 2\ntree_depth = 1\ntree_branch = 2\n"
            "meta_phases = mkdir,create,stat,remove,rmdir\ngroup = 7\n\n"
            f"[data]\ndir = {d}\nsize = 1M\nblock_size = 64k\nphases = write,read\ngroup = 7\n")
    recs, p = run(tmp, text)
    m = meta(recs)
    expect([r["phase"] for r in m] == ["mkdir", "create", "stat", "remove", "rmdir"], m)
    for r in m:
        check_record(r, 2 * 3 if r["phase"] in ("mkdir", "dirstat", "rmdir") else 400, 0)
        expect(r["job"] == "m", r)
    ph = [r for r in recs if r["kind"] == "phase"]
    expect([(r["job"], r["phase"]) for r in ph] == [("data", "write"), ("data", "read")], ph)
    for r in ph:
        expect(r["status"] == "ok" and r["bytes"] == 1 << 20, r)
    grp = [r for r in recs if r["kind"] == "group"]
    expect([(g["group"], g["phase"], g["jobs"]) for g in grp] == [(7, "write", 1), (7, "read", 1)], grp)
    expect(all(g["bytes"] == 1 << 20 for g in grp), grp)
    expect(listing(d) == before, f"left behind: {set(listing(d)) - set(before)}")


def case_group_sigint(tmp):
    """SIGINT while a files job and a data job of one group run: exit 130, the files job's create says
    interrupted with what it did, and nothing either job made is left."""
    files, m = interrupt_files(tmp, "gsigint", "group = 1\n\n[data]\ndir = {d}\nsize = 1M\nblock_size = 4k\n"
                               "phases = write\nruntime = 120s\ntime_based = true\ngroup = 1\n", 2)
    expect([r["phase"] for r in m] == ["mkdir", "create"], [r["phase"] for r in m])
    expect(m[1]["status"] == "interrupted" and 0 < m[1]["ops"] < 2 * files, m[1])


def case_outputs(tmp):
    """The phases in human (a row each), CSV (a side table r.meta.csv), svg (a bar per phase at its
    ops_per_s, a latency curve per phase) and fio-json: a job for create, stat and remove only (fio's
    filecreate, filestat, filedelete engines: each file one I/O, counted as a read), none for mkdir,
    dirstat, open and rmdir (fio 3.33 has no engine for them)."""
    d = fresh(tmp, "outputs")
    prof = profile(tmp, f"[m]\nworkload = files\ndir = {d}\nfiles = 30\n"
                        "meta_phases = mkdir,dirstat,create,stat,open,remove,rmdir\n")
    o = os.path.join(tmp, "o")
    shutil.rmtree(o, ignore_errors=True)
    os.makedirs(o)
    p = subprocess.run([iobench(), "run", prof, "-o",
                        f"human,csv={o}/r.csv,fio-json={o}/f.json,svg={o}/r.svg,json={o}/r.json"],
                       capture_output=True, text=True, env=env(), timeout=120)
    expect(p.returncode == 0, p.stderr)
    phases = ["mkdir", "dirstat", "create", "stat", "open", "remove", "rmdir"]
    with open(f"{o}/r.json") as f:
        recs = {r["phase"]: r for r in json.load(f)["records"] if r["kind"] == "meta"}
    expect(list(recs) == phases, list(recs))
    rows = [l.split() for l in p.stdout.splitlines()]
    for ph in phases:
        want = "1" if ph in ("mkdir", "dirstat", "rmdir") else "30"
        expect(any(len(r) > 3 and r[0] == "m" and r[1] == ph and r[3] == want for r in rows), p.stdout)
    side = os.path.join(o, "r.meta.csv")
    expect(os.path.isfile(side), os.listdir(o))
    with open(side) as f:
        rs = list(csv.DictReader(f))
    expect([r["phase"] for r in rs] == phases and [int(r["ops"]) for r in rs] == [1, 1, 30, 30, 30, 30, 1], rs)
    with open(os.path.join(o, "f.json")) as f:
        jobs = json.load(f)["jobs"]
    engines = [j["job options"]["ioengine"] for j in jobs]
    expect(engines == ["filecreate", "filestat", "filedelete"], engines)
    for j, ph in zip(jobs, ("create", "stat", "remove")):
        expect(j["read"]["total_ios"] == 30 and j["write"]["total_ios"] == 0, j)
        expect(j["read"]["clat_ns"]["N"] == 30 and j["job options"]["nrfiles"] == "30", j)
        expect(abs(j["read"]["iops"] - recs[ph]["ops_per_s"]) <= 1e-6 * recs[ph]["ops_per_s"] + 1e-6, (j, recs[ph]))
    with open(os.path.join(o, "r.svg")) as f:
        svg = f.read()
    bars = re.findall(r'class="bar" data-phase="([a-z]+)" data-ops-per-s="([0-9.e+]+)"', svg)
    expect([b[0] for b in bars] == phases, bars)
    for ph, v in bars:
        expect(abs(float(v) - recs[ph]["ops_per_s"]) <= 1e-6 * recs[ph]["ops_per_s"], (ph, v))
    expect(svg.count('class="latency"') == 7, "a latency curve per phase")


def case_drop_caches(tmp):
    """drop_caches = true: as root, every phase but the first says caches_dropped and no cache note is
    given for it; without root, the records say false, and a note says why."""
    d = fresh(tmp, "drop")
    recs, p = run(tmp, f"[m]\nworkload = files\ndir = {d}\nfiles = 20\ndrop_caches = true\n"
                       "meta_phases = create,stat,remove\n")
    m = {r["phase"]: r for r in meta(recs)}
    if os.geteuid() == 0:
        expect(not m["create"]["caches_dropped"] and m["stat"]["caches_dropped"] and m["remove"]["caches_dropped"],
               m)
        expect("stat phase" not in p.stderr, p.stderr)
    else:
        expect(not any(r["caches_dropped"] for r in m.values()), m)
        expect("drop_caches needs root" in p.stderr and "stat phase" in p.stderr, p.stderr)
    recs, p = run(tmp, f"[m]\nworkload = files\ndir = {d}\nfiles = 20\nmeta_phases = create,stat,remove\n")
    expect("job m, stat phase: the files were made moments before" in p.stderr, p.stderr)


def case_mpi(tmp):
    """mpirun -n 2, 2 threads each, one shared tree, stat_other = 1: 4 streams in all (dirstat: the tree's 3
    directories once in all); the records sum
    every rank's operations; everything is removed."""
    if not A.mpirun or not os.access(A.mpirun, os.X_OK):
        raise Skip("no mpirun")
    if not A.coord or not os.path.isfile(A.coord):
        raise Skip("the MPI coordinator was not built (no MPI development files)")
    d = fresh(tmp, "mpi")
    before = listing(d)
    recs, p = run(tmp, f"[m]\nworkload = files\ndir = {d}\nfiles = 60\nthreads = 2\ndir_per_stream = false\n"
                       "tree_depth = 1\ntree_branch = 2\nstat_other = 1\nfile_bytes = 10\n"
                       "meta_phases = mkdir,dirstat,create,stat,read,remove,rmdir\n", mpi=2)
    m = {r["phase"]: r for r in meta(recs)}
    expect(list(m) == ["mkdir", "dirstat", "create", "stat", "read", "remove", "rmdir"], list(m))
    check_record(m["mkdir"], 3, 0)
    # the shared tree's 3 directories split over the 4 streams of both ranks: each stat'ed once in all
    check_record(m["dirstat"], 3, 0)
    for ph in ("create", "stat", "read", "remove"):
        check_record(m[ph], 240, 10)
        expect(m[ph]["ranks"] == 2 and m[ph]["streams"] == 4, m[ph])
        # mdtest's rule (all items over the slowest rank's time from the common barrier), which IOR's
        # (earliest start to latest end) gives too: the window holds every stream's own, so with 60
        # items a stream the rate is at most 4 times the slowest stream's (a sum of the streams'
        # rates, or a mean of their times, would exceed it whenever the streams differ)
        r = m[ph]
        expect(0 < r["stream_ops_min_per_s"] <= r["stream_ops_max_per_s"], r)
        expect(r["ops_per_s"] <= 4 * r["stream_ops_min_per_s"] * (1 + 1e-9),
               f"{ph}: {r['ops_per_s']} ops/s over 4 streams, the slowest at {r['stream_ops_min_per_s']}")
    expect(listing(d) == before, listing(d))
    expect(len(recs) == len([r for r in recs if r["kind"] != "meta"]) + 7, "one record a phase (rank 0's)")
    # per-stream trees with ${RANK} in the dir
    for k in (0, 1):
        os.makedirs(os.path.join(d, f"r{k}"))
    recs, p = run(tmp, f"[m]\nworkload = files\ndir = {d}/r${{RANK}}\nfiles = 30\nmeta_phases = create,stat\n"
                       "keep_files = true\n", mpi=2)
    for k in (0, 1):
        root = os.path.join(d, f"r{k}", f"iobench.m.{k}")
        expect(len(os.listdir(root)) == 30, f"rank {k}: {os.listdir(os.path.join(d, f'r{k}'))}")
        shutil.rmtree(root)


def case_stonewall(tmp):
    """stonewall bounds the create phase only (checked every 64 files): with 1 ns every stream stops at
    its first check, having made no file; stat and remove then work on what was made (nothing), and
    nothing is left.  With 1 h nothing is cut."""
    d = fresh(tmp, "sw")
    base = f"[m]\nworkload = files\ndir = {d}\nfiles = 500\nthreads = 2\nmeta_phases = create,stat,remove\n"
    recs, _ = run(tmp, base + "stonewall = 1ns\n")
    m = {r["phase"]: r for r in meta(recs)}
    expect(m["create"]["ops"] == 0 and m["stat"]["ops"] == 0 and m["remove"]["ops"] == 0, m)
    expect(all(r["status"] == "ok" for r in m.values()), m)
    expect(listing(d) == ["keep.me"], listing(d))
    recs, _ = run(tmp, base + "stonewall = 1h\n")
    for r in meta(recs):
        check_record(r, 1000, 0)


def case_io_profile_tree_rates(tmp):
    """io_profile --tree-rates (an iobench addition): the stderr line and the io_profile_tree record say
    what the tree held (12 files, 3 directories by default: levels x files) and, with --remove, the 15
    entries removed, each rate its count over its time; the CSV on stdout has the same lines as without
    the option; without it no such record or line; refused with -s."""
    d = fresh(tmp, "iop")
    iop = os.path.join(A.bin, "io_profile")
    args = ["-d", d, "-l", "64K", "-M", "16", "-n", "5", "-q", "--remove"]
    plain = subprocess.run([iop] + args, capture_output=True, text=True, env=env(), timeout=120)
    rated = subprocess.run([iop, "--tree-rates"] + args, capture_output=True, text=True, env=env(), timeout=120)
    expect(plain.returncode == 0 and rated.returncode == 0, plain.stderr + rated.stderr)

    def shape(out):  # the CSV lines with their figures blanked: sizes and counts stay
        return [",".join(l.split(",")[:2]) if l[:1].isdigit() else l for l in out.splitlines()]
    expect(shape(plain.stdout) == shape(rated.stdout) and len(plain.stdout.splitlines()) > 4,
           plain.stdout + rated.stdout)
    expect("tree made" not in plain.stderr, plain.stderr)
    line = [l for l in rated.stderr.splitlines() if "tree made:" in l]
    expect(len(line) == 1 and "12 files of 65536 bytes and 3 directories" in line[0]
           and "removed: 15 entries" in line[0], rated.stderr)
    expect(listing(d) == ["keep.me"], listing(d))
    js = os.path.join(tmp, "iop.json")
    p = subprocess.run([iop, "--tree-rates", "-o", "json=" + js] + args, capture_output=True, text=True,
                       env=env(), timeout=120)
    expect(p.returncode == 0, p.stderr)
    with open(js) as f:
        tr = [r for r in json.load(f)["records"] if r["kind"] == "io_profile_tree"]
    expect(len(tr) == 1, tr)
    t = tr[0]
    expect(t["made_files"] == 12 and t["made_dirs"] == 3 and t["removed_entries"] == 15, t)
    expect(abs(t["create_files_per_s"] - 12 / t["create_s"]) <= 1e-6 * t["create_files_per_s"], t)
    expect(abs(t["remove_entries_per_s"] - 15 / t["remove_s"]) <= 1e-6 * t["remove_entries_per_s"], t)
    p = subprocess.run([iop, "--tree-rates", "-o", "json=" + js] + args[:-1] + ["-s"], capture_output=True,
                       text=True, env=env(), timeout=120)
    expect(p.returncode == 2 and "--tree-rates with -s" in p.stderr, p.stderr)
    for f in os.listdir(d):  # -s refused: nothing made
        expect(f == "keep.me", os.listdir(d))


def case_path_walk(tmp):
    """path_walk = full (every operation resolves its whole path from the job's directory): every phase on 2
    streams in a tree of depth 2 and branching 3 gives the counts held gives, the record says which walk, the
    tree kept is the same tree held makes (names, sizes), a run removes exactly what it made; a bad value is
    one line, exit 2, nothing made.  strace, where it runs: each file operation of full names the file by
    its path from the job's directory (create an openat2 refusing links, stat one fstatat as mdtest's),
    held by its name from a held directory; full's remove opens each directory once by its path (openat2
    refusing links: 13 for 150 files) and unlinks each name in it; after the stats the tree is checked
    (each directory below the root one fstatat(AT_SYMLINK_NOFOLLOW) from its parent).  mkdir and rmdir, both
    walks: each parent opened once for its children in a row (3 of depth 1, the root; not once a
    directory)."""
    d = fresh(tmp, "walk")
    before = listing(d)
    base = (f"[m]\nworkload = files\ndir = {d}\nfiles = 150\ntree_depth = 2\ntree_branch = 3\nthreads = 2\n"
            "file_bytes = 100\n")
    nd = tree_dirs(2, 3)
    for walk in ("held", "full"):
        recs, _ = run(tmp, base + f"path_walk = {walk}\nmeta_phases = " + ",".join(PHASES) + "\n")
        m = meta(recs)
        expect([r["phase"] for r in m] == PHASES, [r["phase"] for r in m])
        for r in m:
            check_record(r, 2 * nd if r["phase"] in ("mkdir", "dirstat", "rmdir") else 300, 100)
            expect(r["path_walk"] == walk, r)
        expect(listing(d) == before, f"{walk}: left behind: {set(listing(d)) - set(before)}")
    trees = {}
    for walk in ("held", "full"):
        run(tmp, base + f"path_walk = {walk}\nmeta_phases = mkdir,create\nkeep_files = true\n")
        trees[walk] = [(p, os.path.getsize(os.path.join(d, p)) if os.path.isfile(os.path.join(d, p)) else -1)
                       for p in listing(d)]
        for g in (0, 1):
            shutil.rmtree(os.path.join(d, f"iobench.m.{g}"))
    expect(trees["held"] == trees["full"], f"trees differ: {set(trees['held']) ^ set(trees['full'])}")
    expect(len([p for p, sz in trees["full"] if sz == 100]) == 300, "300 files of 100 bytes")
    for bad in ("sideways", "", "FULL1"):
        _, p = run(tmp, base + f"path_walk = {bad}\n", rc=2)
        lines = p.stderr.strip().splitlines()
        expect(len(lines) == 1 and "path_walk" in lines[0] and "held, full" in lines[0], p.stderr)
        expect(listing(d) == before, f"path_walk = {bad!r} left {listing(d)}")
    strace = shutil.which("strace")
    if not strace:
        return
    for walk in ("held", "full"):
        log = os.path.join(tmp, f"walk-{walk}.log")
        argv = [strace, "-f", "-qq", "-e", "trace=openat,openat2,newfstatat,unlinkat,mkdirat", "-o", log, iobench(),
                "run", profile(tmp, base.replace("threads = 2", "threads = 1") + f"path_walk = {walk}\n"
                                    "meta_phases = create,stat,remove\n"),
                "--output", "json=" + os.path.join(tmp, "w.json")]
        sp = subprocess.run(argv, capture_output=True, text=True, env=traced_env(), timeout=240)
        if sp.returncode != 0 and "ptrace" in sp.stderr:
            return  # no ptrace here (a container): the counts above stand alone
        expect(sp.returncode == 0, sp.stderr[-2000:])
        lines = [l for l in open(log).read().splitlines() if re.search(r'"[^"]*f\.0\.149"', l)]
        # file 149 is in d2/d2: create, stat, remove
        calls = [(l.split()[1].split("(")[0], l.split('"')[1]) for l in lines]
        if walk == "held":
            expect(calls == [("openat", "f.0.149"), ("newfstatat", "f.0.149"), ("unlinkat", "f.0.149")], calls)
        else:
            full = "iobench.m.0/d2/d2/f.0.149"
            expect(calls == [("openat2", full), ("newfstatat", full), ("unlinkat", "f.0.149")], calls)
            expect(all("RESOLVE_NO_SYMLINKS|RESOLVE_BENEATH" in l for l in lines if "openat2" in l), lines)
            text = open(log).read().splitlines()
            # stat: one fstatat of the whole path a file, the last component not followed; no file opened
            stats = [l for l in text if "newfstatat(" in l and re.search(r'"iobench\.m\.0/(d\d/)*f\.0\.\d+"', l)]
            expect(len(stats) == 150 and all("AT_SYMLINK_NOFOLLOW" in l and "S_IFREG" in l for l in stats),
                   f"{len(stats)} stats by the path: {stats[:2]}")
            expect(not [l for l in text if "openat2(" in l and "O_PATH" in l and '/f.0.' in l], "an O_PATH file")
            # remove: each of the 13 directories opened once by its path (O_PATH, refusing links), 150 unlinks
            dirs = [l.split('"')[1] for l in text if "openat2(" in l and "O_PATH" in l and "O_DIRECTORY" in l
                    and '"iobench.m.0' in l]
            expect(sorted(dirs) == sorted(dir_paths("iobench.m.0", 2, 3)), f"directories opened by path: {dirs}")
            expect(all("RESOLVE_NO_SYMLINKS|RESOLVE_BENEATH" in l for l in text if "openat2(" in l), "openat2")
            unl = [l for l in text if "unlinkat(" in l and re.search(r'"f\.0\.\d+", 0\)', l)]
            expect(len(unl) == 150, f"{len(unl)} unlinks")
            # the check after the stats: the 12 directories below the root, each by its name from its parent
            chk = [l for l in text if "newfstatat(" in l and re.search(r'"d[0-2]"', l)]
            expect(len(chk) == 12 and all("AT_SYMLINK_NOFOLLOW" in l and "S_IFDIR" in l for l in chk), chk)
    # mkdir and rmdir: each parent opened once for its children in a row (full: by its path, O_PATH, refusing
    # links; held: one component at a time from the held root), mkdir root first, rmdir deepest first; every
    # directory made and removed once
    kids = [f"iobench.m.0/d{b}" for b in range(3)]
    for walk in ("full", "held"):
        log = os.path.join(tmp, f"walk-dirs-{walk}.log")
        sp = subprocess.run([strace, "-f", "-qq", "-e", "trace=openat,openat2,unlinkat,mkdirat", "-o", log, iobench(),
                             "run", profile(tmp, base.replace("threads = 2", "threads = 1") + f"path_walk = {walk}\n"
                                                 "meta_phases = mkdir,rmdir\n"),
                             "--output", "json=" + os.path.join(tmp, "w.json")],
                            capture_output=True, text=True, env=traced_env(), timeout=240)
        expect(sp.returncode == 0, sp.stderr[-2000:])
        text = open(log).read().splitlines()
        made = [l for l in text if "mkdirat(" in l and "= 0" in l]
        gone = [l for l in text if "unlinkat(" in l and "AT_REMOVEDIR" in l and "= 0" in l]
        expect(len(made) == nd and len(gone) == nd, f"{walk}: {len(made)} mkdirat, {len(gone)} rmdir")
        if walk == "full":
            opened = [l.split('"')[1] for l in text if "openat2(" in l and "O_PATH" in l and "O_DIRECTORY" in l
                      and '"iobench.m.0' in l]
            want = ["iobench.m.0"] + kids + kids[::-1] + ["iobench.m.0"]
            expect(all("RESOLVE_NO_SYMLINKS|RESOLVE_BENEATH" in l for l in text if "openat2(" in l), "openat2")
        else:
            # the depth-1 parents by name from the root (O_NOFOLLOW); the root itself is the held one (dup)
            opened = ["iobench.m.0/" + l.split('"')[1] for l in text if "openat(" in l and "O_DIRECTORY" in l
                      and re.search(r'"d[0-2]"', l)]
            want = kids + kids[::-1]
            expect(all("O_NOFOLLOW" in l for l in text if "openat(" in l and re.search(r'"d[0-2]"', l)), "openat")
            expect(not [l for l in text if "openat2(" in l], "held: no openat2")
        expect(opened == want, f"{walk}: parents opened: {opened}")
        expect(listing(d) == before, f"mkdir,rmdir {walk}: left behind: {set(listing(d)) - set(before)}")


def clone3_count(strace, prof, log, json_out, run_env):
    """How many threads a run of prof left alone starts (strace's count of clone3 calls)."""
    sp = subprocess.run([strace, "-f", "-qq", "-o", log, "-e", "trace=clone3", iobench(), "run", prof,
                         "--output", "json=" + json_out], capture_output=True, text=True, env=run_env, timeout=240)
    if sp.returncode != 0 and "ptrace" in sp.stderr:
        raise Skip("no ptrace here (a container)")
    expect(sp.returncode == 0, sp.stderr[-2000:])
    return open(log).read().count("clone3(")


def stopped_at_thread(strace, prof, log, json_out, nth, trace, run_env, what):
    """Start a run of prof that strace stops (SIGSTOP) as it starts its nth thread; wait until every task
    is stopped (strace's log says when the signal has stopped the run: a state of 't' alone is also every
    tracing stop).  (the process, the run's pid)"""
    p = subprocess.Popen([strace, "-f", "-qq", "-o", log, "-e", trace,
                          "-e", f"inject=clone3:signal=SIGSTOP:when={nth}", iobench(), "run", prof,
                          "--output", "json=" + json_out], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=run_env)
    pid = None
    deadline = time.time() + 120
    while time.time() < deadline and p.poll() is None:
        text = open(log).read() if os.path.exists(log) else ""
        stopped = [ln for ln in text.splitlines() if "--- stopped by SIGSTOP ---" in ln]
        if stopped:
            pid = int(stopped[0].split()[0])
            states = []
            for t in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{t}/stat") as f:
                    st = f.read()
                states.append(st[st.rindex(")") + 2])
            if all(x in "tT" for x in states):
                break
        time.sleep(0.02)
    if p.poll() is not None:
        so, se = p.communicate()
        if "ptrace" in se:
            raise Skip("no ptrace here (a container)")
        expect(False, f"{what}: the run ended before it was stopped: exit {p.returncode}: {se[-2000:]}")
    expect(pid is not None, f"{what}: not stopped in 120 s")
    return p, pid


def links_profile(tmp, job):
    return profile(tmp, f"[m]\nworkload = files\ndir = {job}\nfiles = 20\ntree_depth = 1\ntree_branch = 2\n"
                        "path_walk = full\nmeta_phases = create,stat,remove\n")


def threads_before_phases(tmp, strace):
    """How many threads a links_profile run starts before its three phases' (one stream each, in order): a
    sanitizer's runtime may start threads of its own first, so they are counted in a run left alone."""
    d = fresh(tmp, "links")
    os.makedirs(os.path.join(d, "job"))
    count = clone3_count(strace, links_profile(tmp, os.path.join(d, "job")), os.path.join(tmp, "links-count.strace"),
                         os.path.join(tmp, "count.json"), traced_env())
    expect(count >= 3, f"fewer than 3 threads started: {count}")
    shutil.rmtree(d)
    return count - 3


def case_path_walk_links(tmp):
    """path_walk = full refuses a link in the middle of a path: the run is stopped (strace delivers SIGSTOP
    as it starts the create, stat or remove phase's thread), the tree's d0 moved out of the job's directory
    and a link to it put in its place, the run resumed: that phase fails with the link named (ELOOP), and
    nothing in the moved directory is made or removed; the rest of the tree is removed.  The stat (one
    fstatat of the path, as mdtest's) follows the link to the moved files, on the same file system, and
    the check of the tree after the phase finds it: the phase fails naming iobench.m.0/d0."""
    strace = shutil.which("strace")
    if not strace:
        raise Skip("no strace: it stops the run between phases")
    before = threads_before_phases(tmp, strace)
    for nth, phase in ((before + 1, "create"), (before + 2, "stat"), (before + 3, "remove")):
        d = fresh(tmp, "links")
        job, victim = os.path.join(d, "job"), os.path.join(d, "victim")
        os.makedirs(job)
        os.makedirs(victim)
        out = os.path.join(tmp, "links.json")
        prof = links_profile(tmp, job)
        p, pid = stopped_at_thread(strace, prof, os.path.join(tmp, f"links-{phase}.strace"), out, nth,
                                   "trace=clone3", traced_env(), phase)
        root = os.path.join(job, "iobench.m.0")
        made = sorted(n for n in os.listdir(os.path.join(root, "d0")) if n.startswith("f."))
        # 20 files over 3 directories, 7 each: d0 holds files 7 .. 13 once create is over
        want = [] if phase == "create" else sorted(f"f.0.{i}" for i in range(7, 14))
        expect(made == want, f"{phase}: d0 holds {made} when stopped")
        os.rename(os.path.join(root, "d0"), os.path.join(victim, "d0"))
        os.symlink(os.path.join(victim, "d0"), os.path.join(root, "d0"))
        os.kill(pid, signal.SIGCONT)
        so, se = p.communicate(timeout=240)
        expect(p.returncode == 1, f"{phase}: exit {p.returncode}: {se[-2000:]}")
        what = "the tree checked after the phase:" if phase == "stat" else phase
        expect(re.search(rf"{phase} phase: stream 0: {what} iobench\.m\.0/d0(/f\.0\.7)?: Too many levels of symbolic "
                         "links", se), f"{phase}: {se}")
        expect(sorted(os.listdir(os.path.join(victim, "d0"))) == want, f"{phase}: the moved d0 now holds "
               f"{sorted(os.listdir(os.path.join(victim, 'd0')))}, want {want}")
        recs = iob.read_json(out)["records"]
        m = {r["phase"]: r for r in meta(recs)}
        expect(m[phase]["status"] == "error", m[phase])
        # the stats went through the link (found after them), the others stopped at it
        expect(m[phase]["ops"] == (20 if phase == "stat" else 7), m[phase])
        # every file outside d0 was removed by the cleanup (or the remove phase) or, before d0 in order, ...
        left = sorted(n for _, _, fs in os.walk(root) for n in fs)
        expect(all(int(n.split(".")[2]) >= 7 for n in left), f"{phase}: files before d0 left: {left}")
        shutil.rmtree(d)


def case_path_walk_links_dev(tmp):
    """path_walk = full's stat (one fstatat of the path, as mdtest's) through a link to another file system
    is refused at once: the run stopped as it starts the stat phase's thread, the tree's d0 moved aside (in
    the test's own directory) and a link put in its place to a directory on another file system that holds
    files of the same names; resumed, the stat phase fails at the first of them (f.0.7, EXDEV: st_dev is not
    the job directory's) after 7 stats, and nothing there or in the moved d0 is touched."""
    strace = shutil.which("strace")
    if not strace:
        raise Skip("no strace: it stops the run between phases")
    d = fresh(tmp, "links")
    here = os.stat(d).st_dev
    others = [c for c in ("/dev/shm", "/run/user/%d" % os.getuid(), "/tmp", "/var/tmp")
              if os.path.isdir(c) and os.access(c, os.W_OK | os.X_OK) and os.stat(c).st_dev != here]
    if not others:
        raise Skip(f"no writable directory on another file system than {d}")
    before = threads_before_phases(tmp, strace)
    d = fresh(tmp, "links")
    job, aside = os.path.join(d, "job"), os.path.join(d, "aside")
    os.makedirs(job)
    os.makedirs(aside)
    far = os.path.join(others[0], f"iob-links-dev-{os.getpid()}")
    shutil.rmtree(far, ignore_errors=True)
    os.makedirs(far)
    try:
        names = sorted(f"f.0.{i}" for i in range(7, 14))
        for n in names:
            iob.write(os.path.join(far, n), "far")
        out = os.path.join(tmp, "links.json")
        p, pid = stopped_at_thread(strace, links_profile(tmp, job), os.path.join(tmp, "links-dev.strace"), out,
                                   before + 2, "trace=clone3", traced_env(), "stat")
        root = os.path.join(job, "iobench.m.0")
        os.rename(os.path.join(root, "d0"), os.path.join(aside, "d0"))
        os.symlink(far, os.path.join(root, "d0"))
        os.kill(pid, signal.SIGCONT)
        so, se = p.communicate(timeout=240)
        expect(p.returncode == 1, f"exit {p.returncode}: {se[-2000:]}")
        expect(re.search(r"stat phase: stream 0: stat iobench\.m\.0/d0/f\.0\.7: Invalid cross-device link", se), se)
        m = {r["phase"]: r for r in meta(iob.read_json(out)["records"])}
        expect(m["stat"]["status"] == "error" and m["stat"]["ops"] == 7, m["stat"])
        expect(sorted(os.listdir(far)) == names and all(open(os.path.join(far, n)).read() == "far" for n in names),
               f"the far directory now holds {sorted(os.listdir(far))}")
        expect(sorted(os.listdir(os.path.join(aside, "d0"))) == names, os.listdir(os.path.join(aside, "d0")))
    finally:
        shutil.rmtree(far, ignore_errors=True)
        shutil.rmtree(d, ignore_errors=True)


def case_path_walk_overlay(tmp):
    """path_walk = full's stats on overlayfs whose upper layer is on another file system than its lower one:
    there a file's st_dev is its layer's, a directory's the overlay's, so the stats are checked against the
    device of the stream's first file (taken the held way before the phase), not its directory's: create,
    stat, remove and dirstat of 2 streams all ok, nothing left.  Root only (it mounts the overlay)."""
    if os.geteuid() != 0 or WINDOWS:
        raise Skip("mounting an overlay needs root")
    d = fresh(tmp, "ovl")
    low = tempfile.mkdtemp(prefix="iob-ovl-", dir="/dev/shm") if os.path.isdir("/dev/shm") else None
    if not low or os.stat(low).st_dev == os.stat(d).st_dev:
        raise Skip("no tmpfs /dev/shm on another file system than the work directory for the lower layer")
    up, wk, mnt = (os.path.join(d, n) for n in ("upper", "work", "merged"))
    for x in (up, wk, mnt):
        os.makedirs(x)
    p = subprocess.run(["mount", "-t", "overlay", "overlay", "-o", f"lowerdir={low},upperdir={up},workdir={wk}", mnt],
                       capture_output=True, text=True)
    if p.returncode != 0:
        shutil.rmtree(low)
        raise Skip(f"cannot mount an overlay here: {p.stderr.strip()}")
    try:
        iob.write(os.path.join(mnt, "probe"), "x")
        if os.stat(os.path.join(mnt, "probe")).st_dev == os.stat(mnt).st_dev:
            raise Skip("this overlay gives files and directories one st_dev (xino): nothing to show")
        os.unlink(os.path.join(mnt, "probe"))
        recs, _ = run(tmp, f"[m]\nworkload = files\ndir = {mnt}\nfiles = 40\ntree_depth = 1\ntree_branch = 3\n"
                           "threads = 2\npath_walk = full\nmeta_phases = mkdir,dirstat,create,stat,remove,rmdir\n")
        m = {r["phase"]: r for r in meta(recs)}
        for ph in ("dirstat", "stat"):
            check_record(m[ph], 2 * (4 if ph == "dirstat" else 40), 0)
        expect(os.listdir(mnt) == [], f"left behind: {os.listdir(mnt)}")
    finally:
        subprocess.run(["umount", mnt], capture_output=True)
        shutil.rmtree(low, ignore_errors=True)


def dir_paths(root, depth, branch):
    """Every directory of a tree, root first, by its path from the job's directory (the run's order)."""
    out, level = [root], [root]
    for _ in range(depth):
        level = [f"{p}/d{b}" for p in level for b in range(branch)]
        out += level
    return out


def case_dirstat(tmp):
    """dirstat (a stat of each directory of the tree, mdtest's directory stat), in a tree of depth 2 and
    branching 3 (13 directories): 2 streams with a tree each stat 2 x 13, timed per operation (the latency
    count is the ops), after mkdir or alone (the trees then made and removed untimed: no mkdir record,
    nothing left); one shared tree for 3 streams: its 13 directories once in all, split over the streams;
    stat_other = 1 on 2 trees: each stream stats the other's 13 (strace: stream 0's thread stats only
    iobench.m.1's directories); the cache note names the directories.  strace, where it runs: held does one
    fstatat(AT_SYMLINK_NOFOLLOW) a directory, from its parent's descriptor (the root from the job's
    directory), and nothing else names a directory of the tree in the stream's thread; full one
    fstatat(AT_SYMLINK_NOFOLLOW) of the whole path from the job's directory (as mdtest's stat), then the
    check of the tree after the phase: the root opened by its name, each directory below it one
    fstatat(AT_SYMLINK_NOFOLLOW) from its parent (held's calls)."""
    d = fresh(tmp, "dirstat")
    before = listing(d)
    base = f"[m]\nworkload = files\ndir = {d}\nfiles = 30\ntree_depth = 2\ntree_branch = 3\n"
    nd = tree_dirs(2, 3)
    expect(nd == 13, nd)
    for walk in ("held", "full"):
        recs, p = run(tmp, base + f"threads = 2\npath_walk = {walk}\nmeta_phases = mkdir,dirstat,create,stat\n")
        m = {r["phase"]: r for r in meta(recs)}
        expect(list(m) == ["mkdir", "dirstat", "create", "stat"], list(m))
        check_record(m["dirstat"], 2 * nd, 0)
        expect(m["dirstat"]["path_walk"] == walk and m["dirstat"]["tree_dirs"] == nd, m["dirstat"])
        expect("job m, dirstat phase: the directories were made moments before" in p.stderr, p.stderr)
        expect(listing(d) == before, f"{walk}: left behind: {set(listing(d)) - set(before)}")
        recs, _ = run(tmp, base + f"threads = 2\npath_walk = {walk}\nmeta_phases = dirstat\n")
        m = meta(recs)
        expect([r["phase"] for r in m] == ["dirstat"], m)
        check_record(m[0], 2 * nd, 0)
        expect(listing(d) == before, f"{walk}, dirstat alone: left behind: {set(listing(d)) - set(before)}")
    recs, _ = run(tmp, base + "threads = 3\ndir_per_stream = false\nmeta_phases = mkdir,dirstat,rmdir\n")
    m = {r["phase"]: r for r in meta(recs)}
    for ph in ("mkdir", "dirstat", "rmdir"):
        check_record(m[ph], nd, 0)
    expect(m["dirstat"]["streams"] == 3, m["dirstat"])
    recs, _ = run(tmp, base + "threads = 2\nstat_other = 1\nmeta_phases = mkdir,dirstat,rmdir\n")
    m = {r["phase"]: r for r in meta(recs)}
    check_record(m["dirstat"], 2 * nd, 0)
    expect(listing(d) == before, f"left behind: {set(listing(d)) - set(before)}")
    strace = shutil.which("strace")
    if not strace:
        return
    for walk, more in (("held", "threads = 1\n"), ("full", "threads = 1\n"), ("other", "threads = 2\nstat_other = 1\n")):
        log = os.path.join(tmp, f"dirstat-{walk}.log")
        prof = profile(tmp, base + more + f"path_walk = {'full' if walk == 'full' else 'held'}\n"
                            "meta_phases = dirstat\n")
        sp = subprocess.run([strace, "-f", "-qq", "-e", "trace=openat,openat2,newfstatat,statx,clone3", "-o", log,
                             iobench(), "run", prof, "--output", "json=" + os.path.join(tmp, "ds.json")],
                            capture_output=True, text=True, env=traced_env(), timeout=240)
        if sp.returncode != 0 and "ptrace" in sp.stderr:
            return  # no ptrace here (a container): the counts above stand alone
        expect(sp.returncode == 0, sp.stderr[-2000:])
        lines = open(log).read().splitlines()
        main = lines[0].split()[0]
        # the streams' threads: every call of a thread that is not the runner's
        calls = [l.split(None, 1) for l in lines if l.split()[0] != main]
        tids = sorted({t for t, _ in calls})
        named = [(t, c) for t, c in calls if re.search(r'"iobench\.m\.[01](/d[0-2]){0,2}"|"d[0-2]"', c)]
        if walk == "held":
            stats = [c for _, c in named if c.startswith("newfstatat(")]
            expect(len(stats) == nd and all("AT_SYMLINK_NOFOLLOW" in c and "S_IFDIR" in c for c in stats), stats)
            names = sorted(c.split('"')[1] for c in stats)
            expect(names == sorted(["iobench.m.0"] + [f"d{b}" for b in range(3)] * 4), names)
            # the parents opened once each (the root's handle duplicated): d0, d1, d2 of the root
            opens = [c for _, c in named if c.startswith("openat(")]
            expect(sorted(c.split('"')[1] for c in opens) == ["d0", "d1", "d2"], opens)
            expect(len(named) == nd + 3, named)
        elif walk == "full":
            want = dir_paths("iobench.m.0", 2, 3)
            st = [c for _, c in named if c.startswith("newfstatat(") and '"iobench.m.0' in c]
            expect([c.split('"')[1] for c in st] == want, st)
            expect(all("AT_SYMLINK_NOFOLLOW" in c and "S_IFDIR" in c for c in st), st)
            expect(not [c for _, c in named if c.startswith("openat2(")], "no openat2")
            # the check: the root opened by its name, then d0, d1, d2 (parents); 12 stats by the name
            chk = [c for _, c in named if c.startswith("newfstatat(") and re.search(r'"d[0-2]"', c)]
            expect(len(chk) == nd - 1 and all("AT_SYMLINK_NOFOLLOW" in c and "S_IFDIR" in c for c in chk), chk)
            opens = sorted(c.split('"')[1] for _, c in named if c.startswith("openat("))
            expect(opens == ["d0", "d1", "d2", "iobench.m.0"], opens)
            expect(len(named) == nd + nd - 1 + 4, f"nothing else names a directory: {named}")
        else:
            # the phase's two threads are the last two the run starts: stream 0, then stream 1
            started = re.findall(r"clone3\(.*\) = (\d+)$", open(log).read(), re.M)
            expect(len(started) >= 2, started)
            for g, t in enumerate(started[-2:]):
                roots = {m.group(1) for tt, c in named if tt == t
                         for m in [re.search(r'"(iobench\.m\.[01])"', c)] if m}
                stats = [c for tt, c in named if tt == t and c.startswith("newfstatat(")]
                expect(len(stats) == nd and roots == {f"iobench.m.{1 - g}"}, (g, t, roots, stats))
        expect(listing(d) == before, f"strace {walk}: left behind: {set(listing(d)) - set(before)}")


def case_dirstat_links(tmp):
    """dirstat refuses a link swapped in for a directory, held and full: the run is stopped as it starts the
    dirstat phase's thread (strace delivers SIGSTOP; the trees were made untimed before), the tree's d0
    moved out of the job's directory and a link to it put in its place, the run resumed: the phase fails
    naming iobench.m.0/d0 (ELOOP), exit 1, and the link is not followed: the one call that names d0 is
    held's fstatat(dirfd, "d0", AT_SYMLINK_NOFOLLOW) or full's fstatat(job, "iobench.m.0/d0",
    AT_SYMLINK_NOFOLLOW), which sees the link itself (S_IFLNK); the moved directory keeps what it held."""
    strace = shutil.which("strace")
    if not strace:
        raise Skip("no strace: it stops the run between phases")
    for walk in ("held", "full"):
        d = fresh(tmp, "dlinks")
        job, victim = os.path.join(d, "job"), os.path.join(d, "victim")
        os.makedirs(job)
        os.makedirs(victim)
        prof = profile(tmp, f"[m]\nworkload = files\ndir = {job}\nfiles = 4\ntree_depth = 1\ntree_branch = 2\n"
                            f"path_walk = {walk}\nmeta_phases = dirstat\n")
        # the phase's thread is the last the run starts (a sanitizer's runtime may start its own first)
        nth = clone3_count(strace, prof, os.path.join(tmp, "dlinks-count.strace"), os.path.join(tmp, "count.json"),
                           traced_env())
        expect(nth >= 1, f"{walk}: no thread started")
        out = os.path.join(tmp, "dlinks.json")
        log = os.path.join(tmp, f"dlinks-{walk}.strace")
        p, pid = stopped_at_thread(strace, prof, log, out, nth, "trace=clone3,newfstatat,openat2", traced_env(), walk)
        root = os.path.join(job, "iobench.m.0")
        expect(sorted(os.listdir(root)) == ["d0", "d1"], os.listdir(root))
        iob.write(os.path.join(root, "d0", "inside"), "x")
        os.rename(os.path.join(root, "d0"), os.path.join(victim, "d0"))
        os.symlink(os.path.join(victim, "d0"), os.path.join(root, "d0"))
        os.kill(pid, signal.SIGCONT)
        so, se = p.communicate(timeout=240)
        expect(p.returncode == 1, f"{walk}: exit {p.returncode}: {se[-2000:]}")
        expect(re.search(r"dirstat phase: stream 0: dirstat iobench\.m\.0/d0: Too many levels of symbolic links", se),
               f"{walk}: {se}")
        m = {r["phase"]: r for r in meta(iob.read_json(out)["records"])}
        expect(m["dirstat"]["status"] == "error" and m["dirstat"]["ops"] == 1, m["dirstat"])
        expect(sorted(os.listdir(os.path.join(victim, "d0"))) == ["inside"], os.listdir(os.path.join(victim, "d0")))
        calls = [l for l in open(log).read().splitlines() if re.search(r'"(iobench\.m\.0/)?d0"', l)]
        expect(len(calls) == 1 and "newfstatat(" in calls[0] and "AT_SYMLINK_NOFOLLOW" in calls[0] and
               "S_IFLNK" in calls[0] and (walk == "held") == ('"d0"' in calls[0]), calls)
        shutil.rmtree(d)


CASES = {n[5:]: f for n, f in globals().items() if n.startswith("case_")}


if __name__ == "__main__":
    A = iob.arguments("--bin", "--work", optional={"--mpirun": "", "--coord": "",
                                                   "case": {"choices": sorted(CASES)}})
    sys.exit(iob.run_case(A, globals(), "meta."))
