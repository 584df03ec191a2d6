#!/usr/bin/env python3
"""I/O priorities (docs/profiles.md, "I/O priority"; docs/fio.md): fio's prio, prioclass and its
libaio/io_uring options cmdprio_percentage, cmdprio_class, cmdprio, cmdprio_bssplit, and iobench's keys
of the same meaning in an INI profile.

Each case writes its own small job file or profile.  fio 3.33 runs the same job where the keys are
fio's: the I/O counts must be equal, and each tool's share of I/Os at the priority asked within 4.5
standard deviations of the percentage (each draws per I/O with its own generator, so the counts differ
by chance: 1024 I/Os at 30% are 307 +- 66).  What went out is checked from outside: strace decodes
libaio's iocbs (aio_reqprio) in io_submit and the thread's ioprio_set; the record's prio_ios must
equal those counts.  Class 1 (real time) needs root: as root it runs, otherwise it is refused in one
line; both are checked, whichever this run is.
"""
import json
import math
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import iobtest as iob  # noqa: E402
from iobtest import Skip, expect  # noqa: E402
from odirect import direct_refused  # noqa: E402

RT, BE, IDLE = 1, 2, 3


def prio(cls, level, hint=0):
    """Linux's priority value, as fio's log_prio and the record's prio_ios write it."""
    return "0x%04x" % (cls << 13 | hint << 3 | level)


def fio_bin():
    return os.environ.get("FIO", "/usr/bin/fio")


def have_backend(name):
    p = iob.tool(A, "iobench", "plugins")
    return any(line.split()[:2] == ["backend", name] for line in p.stdout.splitlines())


def need_libaio_direct(d):
    if not have_backend("libaio"):
        raise Skip("the libaio backend is not built here (libaio-dev)")
    why = direct_refused(d)
    if why:  # buffered Linux AIO runs at depth 1, where no per-I/O priority is set
        raise Skip(why)


def iob_run(tmp, path, *args, rc=0):
    out = os.path.join(tmp, "iob.json")
    p = iob.tool(A, "iobench", "run", path, "--output", "json=" + out, *args, rc=rc, timeout=300)
    if rc != 0:
        return p, None
    with open(out) as f:
        doc = json.load(f)
    return p, [r for r in doc["records"] if r.get("kind") == "phase"]


def prio_ios(rec):
    """The record's prio_ios: {priority: (reads, writes)}."""
    return {e.split(":")[0]: (int(e.split(":")[1]), int(e.split(":")[2])) for e in rec["prio_ios"].split()}


def within(count, n, pct, what):
    """count of n I/Os is a draw of pct percent: within 4.5 standard deviations."""
    p = pct / 100.0
    sd = math.sqrt(n * p * (1 - p))
    expect(abs(count - n * p) <= 4.5 * sd + 1, f"{what}: {count} of {n}, want {n * p:.0f} +- {4.5 * sd:.0f}")


def traced(tmp, argv):
    """argv under strace -f: (the I/Os io_submit took, as (opcode, priority or None), the
    ioprio_set calls as (tid, text), the completed process)."""
    pre = os.path.join(tmp, "st")
    env = dict(iob.env())
    env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":")  # no LSan under ptrace
    # -ff: a file per thread, so no call is split by another thread's
    p = subprocess.run(["strace", "-ff", "-qq", "-v", "-o", pre, "-e", "trace=io_submit,ioprio_set"] + argv,
                       env=env, capture_output=True, text=True, timeout=300)
    ios, sets = [], []
    lines = []
    for name in sorted(os.listdir(tmp)):
        if name.startswith("st."):
            with open(os.path.join(tmp, name)) as f:
                lines += f.readlines()
            os.remove(os.path.join(tmp, name))
    for line in lines:
            m = re.match(r"ioprio_set\(IOPRIO_WHO_PROCESS, (\d+), (.*)\) = 0$", line.strip())
            if m:
                sets.append((m.group(1), m.group(2)))
            m = re.search(r"io_submit\(0x[0-9a-f]+, \d+, \[(.*)\]\) = (\d+)$", line.strip())
            if not m:
                continue
            cbs = m.group(1).split("}, {")
            for cb in cbs[:int(m.group(2))]:  # only those the kernel took
                op = re.search(r"aio_lio_opcode=(\w+)", cb).group(1)
                pr = re.search(r"aio_reqprio=IOPRIO_PRIO_VALUE\(IOPRIO_CLASS_(\w+), (\d+)\)", cb)
                ios.append((op, (pr.group(1), int(pr.group(2))) if pr else None))
    return ios, sets, p


CLASS_NAMES = {"RT": RT, "BE": BE, "IDLE": IDLE}


def job_text(d, engine, extra):
    direct = "direct=1\n" if engine == "libaio" else ""
    return (f"[global]\ndirectory={d}\nfilename=prio.dat\nsize=4m\nbs=4k\nrw=randread\nioengine={engine}\n"
            f"iodepth=8\n{direct}randseed=3\n\n[p]\n{extra}")


# ---- fio and iobench on the same job ---------------------------------------------------------------


def case_fio_counts(tmp):
    """cmdprio_percentage=30 (best effort 1) under a thread at idle 5, on libaio: fio 3.33's JSON and
    iobench's record each do 1024 reads, each's reads at best effort 1 within the bound of 30%, the
    others at the thread's idle 5; then cmdprio_bssplit on a 64k/40:1024k/60 split (all 64k reads at
    best effort 2, none of the 1 MiB ones): in each tool the reads at best effort 2 are 40% of its reads
    within the bound, and in iobench exactly its 64k reads (how many I/Os a split's size takes is each
    tool's own draw: docs/fio.md)."""
    if not os.access(fio_bin(), os.X_OK):
        raise Skip(f"fio is not installed ({fio_bin()}): nothing to compare with")
    d = os.path.join(tmp, "data")
    os.makedirs(d)
    need_libaio_direct(d)
    jobs = {"pct": "prio=5\nprioclass=3\ncmdprio_percentage=30\ncmdprio_class=2\ncmdprio=1\n",
            "split": "size=32m\nbssplit=64k/40:1024k/60\ncmdprio_bssplit=64k/100/2/2:1024k/0\n"}
    for name, extra in jobs.items():
        path = iob.write(os.path.join(tmp, name + ".fio"), job_text(d, "libaio", extra))
        out = os.path.join(tmp, "fio.json")
        p = iob.run([fio_bin(), "--output-format=json", "--output=" + out, path], timeout=300)
        expect(p.returncode == 0, f"fio {name}: {p.stderr[-2000:]}")
        with open(out) as f:
            fr = json.load(f)["jobs"][0]["read"]
        fio_prios = {prio(x["prioclass"], x["prio"]): x["clat_ns"]["N"] for x in fr.get("prios", [])}
        _, recs = iob_run(tmp, path)
        rec = recs[0]
        got = {k: r for k, (r, w) in prio_ios(rec).items()}
        print(f"{name}: fio {fr['total_ios']} reads {fio_prios}; iobench {rec['ops']} reads {got}")
        expect(sum(got.values()) == rec["ops"], rec)
        if name == "pct":
            expect(fr["total_ios"] == rec["ops"] == 1024, (fr["total_ios"], rec["ops"]))
            expect(set(got) == {prio(BE, 1), prio(IDLE, 5)} and set(fio_prios) == set(got), (fio_prios, got))
            within(fio_prios[prio(BE, 1)], 1024, 30, "fio's reads at best effort 1")
            within(got[prio(BE, 1)], 1024, 30, "iobench's reads at best effort 1")
        else:
            # the split's sizes are each tool's draw: the I/O counts within the split's bound, and in each
            # tool the reads at best effort 2 are exactly its 64k reads (iobench: bs_hist)
            sizes = {int(e.split(":")[0]): int(e.split(":")[1]) for e in rec["bs_hist"].split()}
            expect(got.get(prio(BE, 2), 0) == sizes.get(65536, 0) and got.get("0x0000", 0) == sizes.get(1 << 20, 0),
                   (got, sizes))
            n = rec["ops"]
            within(got.get(prio(BE, 2), 0), n, 40, "iobench's 64k reads")
            within(fio_prios.get(prio(BE, 2), 0), fr["total_ios"], 40, "fio's reads at best effort 2")


def log_rows(path):
    """A fio-style log's rows: (time ms, value, direction, block size, fifth column)."""
    with open(path) as f:
        return [tuple(x.strip() for x in line.split(",")) for line in f if line.strip()]


def case_lat_log(tmp):
    """write_lat_log without log_avg_msec, with log_prio=1 and then 0, on the cmdprio_percentage job:
    fio 3.33 and iobench each write a line per I/O (1024), reads of 4096 bytes, whose fifth column is
    the priority each I/O went at: per value, fio's lines equal its JSON's prios, iobench's its
    record's prio_ios; with log_prio=0 the column is 0 on every line (no real-time I/O) in both."""
    if not os.access(fio_bin(), os.X_OK):
        raise Skip(f"fio is not installed ({fio_bin()}): nothing to compare with")
    d = os.path.join(tmp, "data")
    os.makedirs(d)
    need_libaio_direct(d)
    for log_prio in (1, 0):
        extra = (f"prio=5\nprioclass=3\ncmdprio_percentage=30\ncmdprio_class=2\ncmdprio=1\n"
                 f"write_lat_log={tmp}/f\nlog_prio={log_prio}\n")
        path = iob.write(os.path.join(tmp, "l.fio"), job_text(d, "libaio", extra))
        out = os.path.join(tmp, "fio.json")
        p = iob.run([fio_bin(), "--output-format=json", "--output=" + out, path], timeout=300)
        expect(p.returncode == 0, p.stderr[-2000:])
        with open(out) as f:
            fr = json.load(f)["jobs"][0]["read"]
        fio_rows = log_rows(os.path.join(tmp, "f_lat.1.log"))
        for name in os.listdir(tmp):
            if name.startswith("f_"):
                os.remove(os.path.join(tmp, name))
        _, recs = iob_run(tmp, path)
        iob_rows = log_rows(os.path.join(tmp, "f_lat.1.log"))
        expect(log_rows(os.path.join(tmp, "f_clat.1.log")) == iob_rows, "the clat log differs from the lat log")
        for who, rows in (("fio", fio_rows), ("iobench", iob_rows)):
            expect(len(rows) == 1024 and all(r[2] == "0" and r[3] == "4096" for r in rows), (who, rows[:3]))
        col = lambda rows: {v: sum(1 for r in rows if r[4] == v) for v in {r[4] for r in rows}}  # noqa: E731
        print(f"log_prio={log_prio}: fio {col(fio_rows)}, iobench {col(iob_rows)}")
        if log_prio:
            expect(col(fio_rows) == {prio(x["prioclass"], x["prio"]): x["clat_ns"]["N"] for x in fr["prios"]},
                   (col(fio_rows), fr["prios"]))
            expect(col(iob_rows) == {k: r for k, (r, w) in prio_ios(recs[0]).items()}, (col(iob_rows), recs[0]))
        else:
            expect(col(fio_rows) == col(iob_rows) == {"0": 1024}, (col(fio_rows), col(iob_rows)))


# ---- what the kernel was asked, from outside --------------------------------------------------------


def case_strace_iocbs(tmp):
    """libaio, two streams (numjobs=2) at idle 5, 30% of the reads and 60% of the writes (randrw) at
    best effort 1, 3: strace shows one ioprio_set of idle 5 per stream thread, and io_submit's iocbs
    carry aio_reqprio in exactly the numbers the record's prio_ios gives for each direction."""
    iob.need_program("strace")
    d = os.path.join(tmp, "data")
    os.makedirs(d)
    need_libaio_direct(d)
    path = iob.write(os.path.join(tmp, "t.fio"), job_text(
        d, "libaio", "rw=randrw\nnumjobs=2\nprio=5\nprioclass=3\ncmdprio_percentage=30,60\ncmdprio_class=2\n"
        "cmdprio=1,3\n"))
    iob_run(tmp, path)  # lays out the files, then runs once untraced
    out = os.path.join(tmp, "t.json")
    ios, sets, p = traced(tmp, [iob.binary(A, "iobench"), "run", path, "--output", "json=" + out])
    expect(p.returncode == 0, p.stderr[-2000:])
    with open(out) as f:
        recs = [r for r in json.load(f)["records"] if r.get("kind") == "phase" and "stream" not in r]
    want = {}
    for r in recs:
        for k, (rd, wr) in prio_ios(r).items():
            want[k] = (want.get(k, (0, 0))[0] + rd, want.get(k, (0, 0))[1] + wr)
    seen = {}
    for op, pr in ios:
        k = prio(CLASS_NAMES[pr[0]], pr[1]) if pr else prio(IDLE, 5)  # no aio_reqprio: the thread's
        w = op == "IOCB_CMD_PWRITE"
        seen[k] = (seen.get(k, (0, 0))[0] + (not w), seen.get(k, (0, 0))[1] + w)
    print(f"strace: {len(ios)} iocbs {seen}; records {want}; ioprio_set {sets}")
    expect(seen == want, (seen, want))
    expect(sum(rd + wr for rd, wr in want.values()) == sum(r["ops"] for r in recs) == 2048, (want, recs))
    idle5 = [t for t, v in sets if v == "IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 5)"]
    expect(len(set(idle5)) == 2, sets)  # each stream's own thread


def case_strace_depth1(tmp):
    """cmdprio at depth 1, as fio applies it at any depth: libaio with direct=0 (iodepth=8 runs at depth 1,
    docs/fio.md) and libaio with direct=1 at iodepth=1, randrw with 40% of the reads at best effort 1 and
    60% of the writes at best effort 3.  Under strace, fio 3.33 and iobench each submit 256 iocbs (iobench's
    record at iodepth 1), and the iocbs carrying aio_reqprio are, per direction and priority, exactly what
    the tool's own output counts (fio's JSON prios, iobench's prio_ios), each share within the bound."""
    iob.need_program("strace")
    if not os.access(fio_bin(), os.X_OK):
        raise Skip(f"fio is not installed ({fio_bin()}): nothing to compare with")
    if not have_backend("libaio"):
        raise Skip("the libaio backend is not built here (libaio-dev)")
    d = os.path.join(tmp, "data")
    os.makedirs(d)
    jobs = {"buffered": "iodepth=8\n", "direct": "iodepth=1\ndirect=1\n"}
    for name, extra in jobs.items():
        if "direct=1" in extra and direct_refused(d):
            print(f"{name}: left out ({direct_refused(d)})")
            continue
        path = iob.write(os.path.join(tmp, name + ".fio"), (
            f"[global]\ndirectory={d}\nfilename={name}.dat\nsize=1m\nbs=4k\nrw=randrw\nioengine=libaio\n"
            f"randseed=3\n{extra}\n[p]\ncmdprio_percentage=40,60\ncmdprio_class=2\ncmdprio=1,3\n"))
        for who in ("fio", "iobench"):
            out = os.path.join(tmp, who + ".json")
            argv = ([fio_bin(), "--output-format=json", "--output=" + out, path] if who == "fio" else
                    [iob.binary(A, "iobench"), "run", path, "--output", "json=" + out])
            ios, _, p = traced(tmp, argv)
            expect(p.returncode == 0, f"{who} {name}: {p.stderr[-2000:]}")
            with open(out) as f:
                doc = json.load(f)
            want = {}
            if who == "fio":
                j = doc["jobs"][0]
                for di, dname in enumerate(("read", "write")):
                    for x in j[dname].get("prios", []):
                        k = prio(x["prioclass"], x["prio"])
                        c = want.get(k, [0, 0])
                        c[di] += x["clat_ns"]["N"]
                        want[k] = c
            else:
                [rec] = [r for r in doc["records"] if r.get("kind") == "phase" and r["phase"] == "mixed"]
                expect(rec["iodepth"] == 1, f"{name}: iodepth {rec['iodepth']}")
                want = {k: list(v) for k, v in prio_ios(rec).items()}
            seen = {}
            for op, pr in ios:
                k = prio(CLASS_NAMES[pr[0]], pr[1]) if pr else "0x0000"
                c = seen.setdefault(k, [0, 0])
                c[op == "IOCB_CMD_PWRITE"] += 1
            print(f"{name}: {who}: {len(ios)} iocbs {seen}; its output {want}")
            expect(len(ios) == 256 and sum(a + b for a, b in want.values()) == 256, f"{name} {who}: {len(ios)}")
            expect(seen == want, f"{name} {who}: strace {seen}, output {want}")
            reads, writes = sum(v[0] for v in seen.values()), sum(v[1] for v in seen.values())
            within(seen.get(prio(BE, 1), [0, 0])[0], reads, 40, f"{name} {who}: reads at best effort 1")
            within(seen.get(prio(BE, 3), [0, 0])[1], writes, 60, f"{name} {who}: writes at best effort 3")


# ---- refusals and root ------------------------------------------------------------------------------


def case_refused(tmp):
    """Bad values in one line, exit 2, nothing created: class 4, level 8, a percentage over 100, a
    cmdprio_bssplit size over 100%, a bssplit not summing to 100, cmdprio with cmdprio_bssplit, and
    cmdprio on an engine (or backend) that cannot set a priority per I/O."""
    d = os.path.join(tmp, "data")
    os.makedirs(d)
    bad = {"prioclass=4\n": "prioclass", "prio=8\n": "prio", "cmdprio_class=4\ncmdprio_percentage=5\n": "cmdprio_class",
           "cmdprio=8\ncmdprio_percentage=5\n": "cmdprio", "cmdprio_percentage=101\n": "101",
           "cmdprio_percentage=10,120\n": "120", "cmdprio_class=0\ncmdprio_percentage=5\n": "'0'",
           "bssplit=4k/50:8k/60\n": "bssplit", "bssplit=4k/50:8k/50\ncmdprio_bssplit=4k/60/2/1:4k/50/3/1\n": "110%",
           "cmdprio_bssplit=4k/50/2/9\n": "level '9'", "cmdprio_bssplit=4k/50/5/1\n": "class '5'",
           "cmdprio_percentage=5\ncmdprio_bssplit=4k/50\n": "cannot both"}
    for extra, want in bad.items():
        path = iob.write(os.path.join(tmp, "bad.fio"), job_text(d, "io_uring", extra))
        before = sorted(os.listdir(d))
        iob.refusal(iob.tool(A, "iobench", "run", path), want, extra.strip())
        expect(sorted(os.listdir(d)) == before, f"{extra}: created {os.listdir(d)}")
    # fio's cmdprio_* are options of its libaio and io_uring engines
    path = iob.write(os.path.join(tmp, "psync.fio"), job_text(d, "psync", "cmdprio_percentage=20\n"))
    iob.refusal(iob.tool(A, "iobench", "run", path), ("cmdprio_percentage", "libaio and io_uring"), "psync")
    # an INI profile on a backend that cannot: the core's one line
    ini = iob.write(os.path.join(tmp, "p.ini"), f"[a]\ndir = {d}\nbackend = null\nsize = 1m\naccess = random\n"
                    "phases = read\niodepth = 4\ncmdprio_percentage = 20\n")
    iob.refusal(iob.tool(A, "iobench", "run", ini), ("cmdprio", "'null'"), "null backend")
    expect(os.listdir(d) == [], os.listdir(d))


def case_real_time(tmp):
    """Class 1 (real time), per I/O and for the thread: as root it runs (the record counts the I/Os
    at 0x2000, and the per-I/O bw, iops and lat logs' last column is 1 on exactly those rows, 0x2000
    with log_prio); as another user it is refused in one line naming root, before anything is made.
    Root's run is also made refused by running it as nobody when root can (setpriv)."""
    d = os.path.join(tmp, "data")
    os.makedirs(d)
    os.chmod(tmp, 0o777)
    os.chmod(d, 0o777)
    ini = iob.write(os.path.join(tmp, "rt.ini"), f"[a]\ndir = {d}\nbackend = io_uring\nsize = 1m\nblock_size = 4k\n"
                    "access = random\nphases = write\niodepth = 4\ncmdprio_percentage = 50\n")
    thread = iob.write(os.path.join(tmp, "rt2.ini"), f"[a]\ndir = {d}\nbackend = io_uring\nsize = 1m\n"
                       "phases = write\nprio_class = 1\nprio_level = 2\n")
    if not have_backend("io_uring"):
        raise Skip("the io_uring backend is not built here (liburing)")
    if os.geteuid() == 0:
        _, recs = iob_run(tmp, ini)
        got = prio_ios(recs[0])
        expect(set(got) == {prio(RT, 0), "0x0000"} and sum(w for _, w in got.values()) == 256, got)
        within(got[prio(RT, 0)][1], 256, 50, "writes at real time 0")
        # per-I/O bw, iops and lat logs (no log_interval): each row's last column is the I/O's
        # priority, 1 for real time without log_prio, 0x2000 with it; as many as prio_ios counts
        for log_prio, rt, other in (("false", "1", "0"), ("true", prio(RT, 0), "0x0000")):
            logged = iob.write(os.path.join(tmp, "rt3.ini"), open(ini).read() +
                               f"bw_log = {tmp}/g\niops_log = {tmp}/g\nlat_log = {tmp}/g\nlog_prio = {log_prio}\n")
            _, recs = iob_run(tmp, logged)
            got = prio_ios(recs[0])
            for kind in ("bw", "iops", "lat", "clat"):
                rows = log_rows(os.path.join(tmp, f"g_{kind}.1.log"))
                last = [r[-1] for r in rows]
                expect(len(rows) == 256 and all(r[2] == "1" and r[3] == "4096" for r in rows), (kind, rows[:3]))
                expect(last.count(rt) == got[prio(RT, 0)][1] and last.count(other) == got["0x0000"][1],
                       (kind, log_prio, {v: last.count(v) for v in set(last)}, got))
            print(f"log_prio={log_prio}: every log's last column {rt} x {last.count(rt)}, {other} x {last.count(other)}")
        iob_run(tmp, thread)
        if not shutil.which("setpriv"):
            return 0
        for path in (ini, thread):
            p = iob.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", iob.binary(A, "iobench"),
                         "run", path], env=iob.env(), timeout=120)
            iob.refusal(p, ("class 1 (real time) needs root",), "as nobody")
    else:
        for path in (ini, thread):
            iob.refusal(iob.tool(A, "iobench", "run", path), ("class 1 (real time) needs root",), "not root")
    expect(os.listdir(d) == [], os.listdir(d))


def case_ini(tmp):
    """iobench's own keys in an INI profile, io_uring: prio_class/prio_level for the thread,
    cmdprio_bssplit by size with a hint (class 2, level 0, hint 1: 0x4008): the record counts each
    4k write at 0x4008 and each 16k one at 0x6007 (the thread's idle 7); the keys are listed by
    `iobench keys`."""
    if not have_backend("io_uring"):
        raise Skip("the io_uring backend is not built here (liburing)")
    d = os.path.join(tmp, "data")
    os.makedirs(d)
    ini = iob.write(os.path.join(tmp, "p.ini"), f"[a]\ndir = {d}\nbackend = io_uring\nsize = 2m\naccess = random\n"
                    "phases = write\niodepth = 4\nbssplit = 4k/50:16k/50\nprio_class = 3\nprio_level = 7\n"
                    "cmdprio_bssplit = 4k/100/2/0/1:16k/0\n")
    _, recs = iob_run(tmp, ini)
    r = recs[0]
    sizes = {int(e.split(":")[0]): int(e.split(":")[3]) for e in r["bs_hist"].split()}
    got = prio_ios(r)
    expect(got == {prio(BE, 0, 1): (0, sizes[4096]), prio(IDLE, 7): (0, sizes[16384])}, (got, sizes))
    keys = iob.tool(A, "iobench", "keys", rc=0).stdout
    for k in ("prio_class", "prio_level", "cmdprio_percentage", "cmdprio_class", "cmdprio_level", "cmdprio_bssplit",
              "log_prio"):
        expect(re.search(rf"^{k}\b", keys, re.M), f"{k} not in iobench keys")


if __name__ == "__main__":
    A = iob.arguments("--bin", "--work", case=True)
    sys.exit(iob.run_case(A, globals(), "cmdprio-"))
