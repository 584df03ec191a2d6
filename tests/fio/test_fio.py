#!/usr/bin/env python3
"""fio job files in iobench: the job files of tests/fio/jobs run scaled down
with --set, every key of the mapping table used, the files of
tests/fio/refused refused with their expected message (first line
"; expect: TEXT"), hostile input, fio's units, --set on INI profiles, and
docs/fio.md's table against `iobench keys --fio --markdown`.

usage: test_fio.py --bin DIR --src DIR --work DIR CASE"""
import glob
import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import iobtest as iob  # noqa: E402
from iobtest import expect  # noqa: E402
from odirect import direct_refused  # noqa: E402

ARGS = None
HERE = os.path.dirname(os.path.abspath(__file__))
LAYOUT_NOTE = "files laid out first (written whole, synced, not reported)"


def iobench(*args, env=None, rc=None):
    return iob.tool(ARGS, "iobench", *args, rc=rc, env=env, timeout=240)


def run_json(tmp, jobfile, *extra, env=None):
    """Run a job file into tmp/data with a JSON output; the document."""
    data = os.path.join(tmp, "data")
    os.makedirs(data, exist_ok=True)
    out = os.path.join(tmp, "out.json")
    iobench("run", jobfile, "--dir", data, "--output", "json=" + out, *extra, env=env, rc=0)
    return iob.read_json(out)


def phases(doc, job=None):
    return [r for r in doc["records"] if r.get("kind") == "phase" and (job is None or r["job"] == job)]


def job_file(name):
    return os.path.join(HERE, "jobs", name)


def have_backend(name):
    p = iobench("plugins", rc=0)
    return any(l.split()[:2] == ["backend", name] for l in p.stdout.splitlines())


# ---- the typical job files, scaled ------------------------------------------------------------


def case_seq_read(tmp):
    doc = run_json(tmp, job_file("seq-read.fio"), "--set", "size=4m")
    [r] = phases(doc)
    expect(r["job"] == "seq-read" and r["phase"] == "read" and r["access"] == "sequential", r)
    expect(r["bytes"] == 4 << 20 and r["block_size_bytes"] == 1 << 20 and r["backend"] == "posix", r)
    expect(r["evicted"] and r["holes_pct"] == 0.0, r)  # fio's invalidate=1; the layout left no hole
    expect(any(LAYOUT_NOTE in n for n in doc["notes"]), doc["notes"])
    # the file stays, as fio leaves it (unlink=0), at the size laid out
    path = os.path.join(tmp, "data", "seq-read.0.0")
    expect(os.path.getsize(path) == 4 << 20, os.listdir(os.path.join(tmp, "data")))
    # a second run finds it there: nothing laid out
    doc = run_json(tmp, job_file("seq-read.fio"), "--set", "size=4m")
    expect(not any(LAYOUT_NOTE in n for n in doc["notes"]), doc["notes"])
    # a larger size than the file: laid out again
    doc = run_json(tmp, job_file("seq-read.fio"), "--set", "size=6m")
    expect(any(LAYOUT_NOTE in n for n in doc["notes"]) and phases(doc)[0]["bytes"] == 6 << 20, doc)


def case_seq_write(tmp):
    doc = run_json(tmp, job_file("seq-write.fio"), "--set", "size=3m")
    [r] = phases(doc)
    expect(r["phase"] == "write" and r["bytes"] == 3 << 20 and r["block_size_bytes"] == 256 << 10, r)
    expect(r["fsync"] is True and r["ops"] == 12, r)
    expect(any("ioengine=sync runs on iobench's posix backend" in n for n in doc["notes"]), doc["notes"])


def case_rand_read(tmp):
    doc = run_json(tmp, job_file("rand-read.fio"), "--set", "size=2m", "--set", "runtime=300ms")
    [r] = phases(doc)
    expect(r["access"] == "random" and r["phase"] == "read" and r["seed"] == 42, r)
    expect(r["block_size_bytes"] == 4096 and r["bytes"] > 0 and r["bytes"] % 4096 == 0, r)


def case_rand_write(tmp):
    doc = run_json(tmp, job_file("rand-write.fio"), "--set", "size=1m")
    [r] = phases(doc)
    expect(r["access"] == "random" and r["phase"] == "write" and r["ops"] == 256 and r["fsync"] is True, r)
    expect(not doc["notes"] or not any(LAYOUT_NOTE in n for n in doc["notes"]), doc["notes"])


def case_randrw_numjobs(tmp):
    doc = run_json(tmp, job_file("randrw-numjobs.fio"), "--set", "size=2m", "--set", "runtime=300ms")
    [r] = phases(doc)
    expect(r["phase"] == "mixed" and r["streams"] == 4 and r["file"].endswith("/oltp.dat"), r)
    expect(r["bytes_read"] + r["bytes_written"] == r["bytes"] and r["bytes_read"] > 0, r)
    streams = [s for s in doc["records"] if s.get("kind") == "stream"]
    expect(len(streams) == 4 and all(s["file"].endswith("/oltp.dat") for s in streams), streams)
    expect(os.listdir(os.path.join(tmp, "data")) == ["oltp.dat"], os.listdir(os.path.join(tmp, "data")))


def case_ssd(tmp):
    if not have_backend("libaio"):
        print("SKIP: the libaio backend is not built here (libaio-dev)")
        return 77
    why = direct_refused(tmp)
    if why:
        print(f"SKIP: {why}")
        return 77
    doc = run_json(tmp, job_file("ssd.fio"), "--set", "size=2m", "--set", "runtime=200ms", "--set",
                   "ramp_time=50ms")
    rs = phases(doc)
    expect([r["job"] for r in rs] == ["seq-read", "rand-read", "seq-write", "rand-write"], rs)
    expect(all(r["backend"] == "libaio" and r["direct"] is True and r["backend_options"] == "direct=1" for r in rs), rs)
    expect(not any("io_uring" in n for n in doc["notes"]), doc["notes"])  # libaio is libaio, not a stand-in
    return 0


def case_tiobench(tmp):
    doc = run_json(tmp, job_file("tiobench.fio"), "--set", "size=1m", "--set", "runtime=5s")
    rs = phases(doc)
    expect([(r["job"], r["phase"]) for r in rs] == [("seq-write", "write"), ("rand-write", "write"),
                                                     ("seq-read", "read"), ("rand-read", "read")], rs)
    expect(all(r["streams"] == 4 and r["bytes"] == 4 << 20 for r in rs), rs)
    # the layouts of the two read jobs are not recorded: no record names them
    streams = [r for r in doc["records"] if r.get("kind") == "stream"]
    expect(len(streams) == 16 and not any("layout" in r.get("job", "") for r in doc["records"]), doc["records"])
    expect(any(n.endswith("(jobs seq-read, rand-read)") and LAYOUT_NOTE in n for n in doc["notes"]), doc["notes"])
    files = sorted(os.listdir(os.path.join(tmp, "data")))
    expect(files == sorted(f"{j}.0.0.{i}" for j in ("seq-write", "rand-write", "seq-read", "rand-read")
                           for i in range(4)), files)


# ---- every key, the refused set, hostile input ------------------------------------------------


def case_every_key(tmp):
    env = {"IOB_FIO_DIR": os.path.join(tmp, "data")}
    os.makedirs(env["IOB_FIO_DIR"])
    p = iobench("check", job_file("every-key.fio"), env=env, rc=0)
    expect(p.stdout.startswith(job_file("every-key.fio") + ": 14 job(s) OK"), p.stdout)
    doc = run_json(tmp, job_file("every-key.fio"), env=env)
    by = {r["job"]: r for r in phases(doc)}
    expect(sorted(by) == ["content", "mixer", "pattern-verifier", "prio-split", "prioritized", "reader", "shaped",
                          "shaped-alias", "steady", "steady-long", "timed", "verifier", "writer"], by)
    # I/O priorities: the thread's idle/6; a quarter of the reads at best effort 1 (0x4001), counted per
    # priority (64 reads in all); by size: every 4k read at best effort 3, every 8k one at the thread's
    pr, ps = by["prioritized"], by["prio-split"]
    expect((pr["prio_class"], pr["prio_level"], pr["cmdprio_percentage"], pr["cmdprio_class"], pr["cmdprio_level"])
           == (3, 6, "25,50", "2", "1"), pr)
    got = {e.split(":")[0]: int(e.split(":")[1]) for e in pr["prio_ios"].split()}
    expect(set(got) <= {"0x4001", "0x6006"} and sum(got.values()) == pr["ops"] == 64 and 0 < got["0x4001"] < 40, pr)
    split = {int(e.split(":")[0]): int(e.split(":")[1]) for e in ps["bs_hist"].split()}
    got = {e.split(":")[0]: int(e.split(":")[1]) for e in ps["prio_ios"].split()}
    expect(got.get("0x4003", 0) == split.get(4096, 0) and got.get("0x0000", 0) == split.get(8192, 0), (ps, got))
    expect(by["content"]["bytes"] == 256 << 10, by["content"])
    c = by["content"]
    made = [(r["job"], r["phase"], r["ops"]) for r in doc["records"] if r.get("kind") == "meta"]
    expect(made == [("files", "create", 20)], made)  # ioengine=filecreate: a files job
    expect((c["dedupe_pct"], c["dedupe_mode"], c["dedupe_working_set_pct"], c["dedupe_global"], c["exit_others"]) ==
           (10, "working_set", 20, False, "group"), c)
    expect((by["shaped-alias"]["continue_on_error"], by["shaped-alias"]["ignore_error"]) == ("read", "EIO:ENOSPC,"),
           by["shaped-alias"])
    # fio's continue_on_error alone passes over its non-fatal errors only (EIO, EILSEQ: fio 3.33 stops at
    # ENOSPC on /dev/full with continue_on_error=write); a direction with an ignore_error list keeps it
    coe = os.path.join(tmp, "coe.fio")
    with open(coe, "w") as f:
        f.write("[a]\nrw=randrw\nbs=4k\nsize=256k\ncontinue_on_error=all\n"
                "[b]\nstonewall\nrw=randrw\nbs=4k\nsize=256k\ncontinue_on_error=io\nignore_error=,ENOSPC\n")
    got = [(r["job"], r["continue_on_error"], r["ignore_error"]) for r in phases(run_json(tmp, coe))]
    expect(got == [("a", "io", "EIO:EILSEQ,EIO:EILSEQ"), ("b", "io", "EIO:EILSEQ,ENOSPC")], got)
    # verify: a write, then a verify of what it wrote (docs/fio.md, "Verify"); verify_backlog=64: the
    # write reads back every 64 blocks while it runs (its 256 in four batches), none left for the verify
    ver = [(r["job"], r["phase"], r["ops"], r["status"], r.get("backlog_verified_ops"))
           for r in phases(doc) if "verifier" in r["job"]]
    expect(ver == [("verifier", "write", 256, "ok", 256), ("verifier", "verify", 0, "ok", None),
                   ("pattern-verifier", "write", 64, "ok", None), ("pattern-verifier", "verify", 64, "ok", None)], ver)
    # the shapes of load: 1 MiB of a split (reads 4k and 16k, writes 64k), zoned, rated; zipf by 8k
    sh, sa = by["shaped"], by["shaped-alias"]
    expect(sh["bssplit"] == "4096/50:16384/,65536/100" and sh["rate"] == "8388608,"
           and sh["rate_iops"] == "1000,500" and sh["rate_process"] == "poisson"
           and sh["random_distribution"] == "zoned:60/10:40/" and sh["thinktime_ns"] == 100000
           and sh["thinktime_blocks"] == 8 and sh["thinktime_spin_ns"] == 10000 and sh["offset_align_bytes"] == 4096, sh)
    sizes = {int(e.split(":")[0]): e for e in sh["bs_hist"].split()}
    expect(set(sizes) <= {4096, 16384, 65536} and sh["bytes"] >= 1 << 20, sh)
    expect(all(e.split(":")[3] == "0" for z, e in sizes.items() if z != 65536), sh)  # writes are 64k only
    expect(sa["random_distribution"] == "zipf:1.1" and sa["ops"] == 32 and sa["offset_align_bytes"] == 8192, sa)
    # ss and steadystate: rounds of 1 s judged by fio's rule (docs/statistics.md)
    st = {r["job"]: r for r in doc["records"] if r.get("kind") == "steady"}
    expect(st["steady"]["rule"] == "deviation" and st["steady"]["limit_pct"] == 90 and st["steady"]["window"] == 2
           and 2 <= st["steady"]["rounds"] <= 2, st)
    expect(st["steady-long"]["rule"] == "slope" and st["steady-long"]["steady_state"] == "bw", st)
    w, r, m, t = by["writer"], by["reader"], by["mixer"], by["timed"]
    expect(w["bytes"] == 8 << 20 and w["block_size_bytes"] == 64 << 10 and w["fsync"] is True, w)
    expect(r["latency"] == "off" and r["lat_samples"] == 0 and w["latency"] == "sampled", (r, w))
    expect(r["file"] == w["file"] and r["ops"] == 64 and r["seed"] == 7 and r["block_size_bytes"] == 16 << 10, r)
    expect((r["zone_size_bytes"], r["zone_range_bytes"], r["zone_skip_bytes"]) == (64 << 10, 128 << 10, 128 << 10)
           and w["zone_size_bytes"] == 0, r)
    expect(m["ops"] == 128 and m["phase"] == "mixed", m)
    expect(t["backend"] == "mmap" and t["access"] == "sequential" and t["bytes"] >= 4 << 20, t)
    # the writer's file was not laid out again for the reader; the mixer's, the timed and the prioritized job's were
    notes = doc["notes"]
    expect(any(n.endswith("to read (jobs mixer, timed, prioritized)") and LAYOUT_NOTE in n for n in notes), notes)
    expect(any("new_group without stonewall" in n and n.endswith("(job mixer)") for n in notes), notes)
    # every key of the table appears in the file (or its include), by name or alias
    table = iobench("keys", "--fio", rc=0).stdout.splitlines()[1:]
    text = open(job_file("every-key.fio")).read() + open(job_file("common.inc")).read()
    logs = ("write_bw_log", "write_iops_log", "write_lat_log")
    for line in table:
        key, alias = line.split()[:2]
        if key in logs:
            continue  # case_logs
        if key in ("donorname", "inplace"):
            continue  # ioengine=e4defrag's, on ext4 only: tests/fio/test_e4defrag.py
        if key in ("sprandom", "spr_num_regions", "spr_op", "spr_cs"):
            continue  # a randwrite job of their own: test_fio_ref.py, case_sprandom and case_sprandom_refused
        for name in [key] + ([alias] if alias != "-" else []):
            expect(re.search(rf"^{name}(=|$)", text, re.M), f"{name} is not used in every-key.fio")


def case_latency(tmp):
    """gtod_reduce and disable_lat/disable_clat map onto latency = off; fio's
    null.fio and cpp_null.fio examples (gtod_reduce=1, size=100g) run as
    they are (cpp_null.fio, time_based with no runtime, runs until stopped
    in fio too: given one with --set)."""
    cases = {"gtod_reduce=1\n": ("off", None), "disable_lat=1\ndisable_clat=1\n": ("off", None),
             "disable_lat=1\n": ("sampled", "disable_lat=1 alone has no effect"),
             "disable_clat=1\ndisable_slat=1\n": ("sampled", "disable_clat=1 alone has no effect"),
             "gtod_reduce=0\n": ("sampled", None)}
    for i, (keys, (want, note)) in enumerate(cases.items()):
        path = os.path.join(tmp, f"lat{i}.fio")
        with open(path, "w") as f:
            f.write(f"[global]\nbs=4k\n{keys}\n[j]\nioengine=null\nsize=1g\nrw=randread\nnumber_ios=5000\n")
        doc = run_json(tmp, path)
        r = phases(doc)[0]
        expect(r["latency"] == want and r["ops"] == 5000, (keys, r))
        if want == "off":
            expect(r["lat_samples"] == 0 and r["lat_sampled_every"] == 0 and r["lat_ns"]["count"] == 0, r)
        else:
            expect(r["lat_samples"] > 0 and r["lat_sampled_every"] >= 1, r)
        notes = doc["notes"]
        expect((note is None) == (not any("alone has no effect" in n for n in notes)), (keys, notes))
        expect(note is None or any(note in n for n in notes), (keys, notes))
    bad = os.path.join(tmp, "latbad.fio")
    with open(bad, "w") as f:
        f.write("[j]\nioengine=null\nsize=1m\nrw=read\ngtod_reduce=maybe\n")
    p = iobench("check", bad, rc=2)
    expect(len(p.stderr.strip().splitlines()) == 1 and "gtod_reduce" in p.stderr, p.stderr)
    ex = examples_dir()
    if ex is None:
        print("fio's examples not found: null.fio and cpp_null.fio not run")
        return
    # null.fio unchanged (100g of nothing: 26,214,400 I/Os, a fraction of a second); cpp_null.fio
    # given a runtime
    for name, extra in (("null.fio", []), ("cpp_null.fio", ["--set", "runtime=200ms"])):
        doc = run_json(tmp, os.path.join(ex, name), *extra)
        r = phases(doc)[0]
        expect(r["backend"] == "null" and r["latency"] == "off" and r["random_map"] is False and r["ops"] > 0
               and r["block_size_bytes"] == 4096, (name, r))
        if name == "null.fio":
            expect(r["ops"] == 100 * 1024 * 1024 // 4 and r["bytes"] == 100 << 30, r)


def examples_dir():
    """fio's examples beside the source tree (../shared/reference/fio-examples), or IOB_FIO_EXAMPLES."""
    d = os.environ.get("IOB_FIO_EXAMPLES") or os.path.join(ARGS.src, "..", "shared", "reference", "fio-examples")
    return d if os.path.isfile(os.path.join(d, "null.fio")) else None


def case_logs(tmp):
    """write_*_log map onto bw_log etc.: refused with a reason until those keys exist."""
    have = "bw_log" in iobench("keys", rc=0).stdout.split()
    for key in ("write_bw_log", "write_iops_log", "write_lat_log"):
        path = os.path.join(tmp, key + ".fio")
        with open(path, "w") as f:
            f.write(f"[j]\nrw=write\nsize=1m\nlog_avg_msec=100\n{key}=pre\n")
        os.makedirs(os.path.join(tmp, "data"), exist_ok=True)
        p = iobench("check", path, "--dir", os.path.join(tmp, "data"))
        if have:
            expect(p.returncode == 0, p.stderr)
        else:
            expect(p.returncode == 2 and "fio-style logs are not available in this build" in p.stderr and
                   p.stderr.count("\n") == 1, p.stderr)


def refused_one(tmp, path, want, *extra, env=None):
    data = os.path.join(tmp, "data")
    shutil.rmtree(data, ignore_errors=True)
    os.makedirs(data)
    p = iobench("run", path, "--dir", data, "--output", "json=" + os.path.join(data, "o.json"), *extra, env=env)
    expect(p.returncode == 2, f"{path}: exit {p.returncode}, want 2\n{p.stderr}")
    expect(p.stderr.count("\n") == 1 and p.stderr.startswith("iobench: error: "), f"{path}: {p.stderr!r}")
    expect(want in p.stderr, f"{path}: {p.stderr!r} lacks {want!r}")
    expect(os.listdir(data) == [], f"{path}: made {os.listdir(data)}")
    expect(p.stdout == "", p.stdout)


def case_refused(tmp):
    files = sorted(glob.glob(os.path.join(HERE, "refused", "*.fio")))
    expect(len(files) >= 30, files)
    for path in files:
        first = open(path).readline()
        expect(first.startswith("; expect: "), f"{path}: no '; expect:' line")
        refused_one(tmp, path, first[len("; expect: "):].rstrip("\n"))
    # --fio-ignore names the keys: the run goes on and says so
    data = os.path.join(tmp, "data")
    p = iobench("run", os.path.join(HERE, "refused", "unknown-keys.fio"), "--dir", data, "--fio-ignore",
                "cpuload,exec_prerun,read_beyond_wp", rc=0)
    expect("fio keys ignored as --fio-ignore asked (the run differs from fio's there): cpuload, exec_prerun, read_beyond_wp"
           in p.stdout, p.stdout)
    # naming only some of them: the rest still refused
    refused_one(tmp, os.path.join(HERE, "refused", "unknown-keys.fio"), "not support: read_beyond_wp ",
                "--fio-ignore", "cpuload, exec_prerun")
    # --set takes fio keys in a fio file: an unknown one, a bad value
    refused_one(tmp, job_file("seq-read.fio"), "fio keys iobench does not support: block_size", "--set",
                "block_size=4k")
    refused_one(tmp, job_file("seq-read.fio"), "--set: [seq-read] size=1q: '1q' has an unknown unit", "--set",
                "size=1q")
    refused_one(tmp, job_file("seq-read.fio"), "--set 'size': give KEY=VALUE", "--set", "size")


def case_hostile(tmp):
    def job(name, data):
        path = os.path.join(tmp, name)
        with open(path, "wb") as f:
            f.write(data)
        return path
    refused_one(tmp, job("long.fio", b"[j]\nsize=" + b"1" * 5000 + b"\n"), "long.fio:2: line is 5005 characters")
    # 4096 characters is the limit: read (then refused for its value), one more is not
    refused_one(tmp, job("edge.fio", b"[j]\nrw=" + b"r" * 4093 + b"\r\n"), "rw=rrrr")
    refused_one(tmp, job("edge.fio", b"[j]\nrw=" + b"r" * 4094 + b"\n"), "line is 4097 characters long")
    refused_one(tmp, job("nul.fio", b"[j]\nsize=1m\x00\n"), "nul.fio:2: binary data (byte 0x00")
    refused_one(tmp, job("elf.fio", b"\x7fELF\x02\x01\x01\x00" + os.urandom(200)), "elf.fio:1: binary data")
    refused_one(tmp, job("ctl.fio", b"[j]\nrw=read\x1b[2J\n"), "ctl.fio:2: binary data (byte 0x1b")
    refused_one(tmp, job("sect.fio", b"[j\nsize=1m\n"), "sect.fio:1: bad section header '[j'")
    refused_one(tmp, job("nokey.fio", b"[j]\n=1m\n"), "nokey.fio:2: a value without a key")
    refused_one(tmp, job("badkey.fio", b"[j]\nsi ze=1m\n"), "badkey.fio:2: 'si ze' is not a key")
    refused_one(tmp, job("empty.fio", b""), "no job sections")
    # includes: a chain 16 deep is read, 17 is refused; a file including itself
    for n in range(18):
        job(f"inc{n}.inc", (f"include inc{n + 1}.inc\n" if n < 17 else "size=1m\n").encode())
    refused_one(tmp, job("deep.fio", b"[j]\nrw=write\ninclude inc0.inc\n"), "includes nested more than 16 deep")
    job("inc15.inc", b"size=1m\n")
    data = os.path.join(tmp, "data")
    iobench("check", job("deep.fio", b"[j]\nrw=write\ninclude inc0.inc\n"), "--dir", data, rc=0)
    refused_one(tmp, job("self.fio", b"[j]\nsize=1m\ninclude self.fio\n"), "include loop")
    # a variable's value is not read again as syntax
    env = {"IOB_FIO_V": "1m\n[x]"}
    refused_one(tmp, job("var.fio", b"[j]\nsize=${IOB_FIO_V}\n"), "size=1m\\x0a[x]: '1m\\x0a[x]' has an unknown unit",
                env=env)
    # a set but empty variable is empty, as fio substitutes it
    refused_one(tmp, job("emptyvar.fio", b"[j]\nsize=${IOB_FIO_E}\n"), "size=: '' is not a size",
                env={"IOB_FIO_E": ""})
    # an included file's text never reaches a message (include /etc/shadow): its file and line are named
    for n, line in enumerate([b"root:$6$SECRETHASH.x/y:19000:0:99999:7:::", b"SECRETWORD", b"size=SECRET1",
                              b"[SECRET]", b"size=${SECRETVAR}", b"rw=SECRETRW", b"bs=4k,SECRET",
                              b"size=1\x01SECRET", b"include SECRETMISSING", b"'SECRET' = x",
                              b"name=SECRET/x"]):
        job(f"secret{n}.inc", b"size=1m\n" + line + b"\n")
        p = iobench("check", job(f"inc-secret{n}.fio", f"[j]\nrw=write\ninclude secret{n}.inc\n".encode()),
                    "--dir", data)
        expect(p.returncode == 2 and p.stderr.count("\n") == 1, (line, p.returncode, p.stderr))
        expect("SECRET" not in p.stderr and "secret" not in p.stderr.replace(f"secret{n}.inc:2", ""),
               (line, p.stderr))
        expect(f"secret{n}.inc:2: " in p.stderr and "not shown" in p.stderr, (line, p.stderr))
    # advice a fio job file can follow: the command line's --allow-device, not iobench's allow_devices
    p = iobench("check", job("dev.fio", b"[j]\nrw=write\nsize=1m\nfilename=/dev/null\n"))
    expect(p.returncode == 2 and p.stderr.count("\n") == 1 and "--allow-device" in p.stderr
           and "allow_devices" not in p.stderr, p.stderr)
    # the job file the user gave is still quoted
    refused_one(tmp, job("own.fio", b"[j]\nrw=write\nsize=1m\nrw=OWNRW\n"), "rw=OWNRW")
    # a byte order mark is skipped; CRLF line ends are read
    iobench("check", job("bom.fio", b"\xef\xbb\xbf[j]\r\nrw=write\r\nsize=1m\r\n"), "--dir", data, rc=0)


# ---- against fio itself --------------------------------------------------------------------------

ORACLE = [
    # (name, job lines): tiny jobs whose per-direction bytes and I/Os fio and iobench must agree on
    ("bs-read-emptyread", "rw=read\nbs=,8k\n"),      # reads keep fio's default 4k
    ("bs-write-emptyread", "rw=write\nbs=,8k\n"),    # writes 8k
    ("bs-read-emptywrite", "rw=read\nbs=16k,\n"),    # reads 16k
    ("bs-write-emptywrite", "rw=write\nbs=16k,\n"),  # writes keep 4k
    ("bs-write-three", "rw=write\nbs=8k,16k,32k\n"),
    ("nios-over", "rw=randread\nnumber_ios=100\n"),  # a cap above the work: 16 I/Os
    ("nios-loops", "rw=randread\nnumber_ios=4\nloops=2\n"),
    ("nios-write-loops", "rw=randwrite\nnumber_ios=10\nloops=2\n"),
    ("nios-seq-pass", "rw=write\nio_size=192k\nnumber_ios=32\n"),  # the cap falls on 2 whole passes
    ("nios-seq-over", "rw=read\nnumber_ios=1000\nloops=2\n"),
    ("nios-seq-cut", "rw=read\nnumber_ios=5\n"),  # part way through the pass: 5 I/Os
    ("nios-seq-cut-loops", "rw=write\nnumber_ios=5\nloops=4\n"),  # 20 in a row, past the file's end
    ("nios-seq-cut-io-size", "rw=read\nio_size=192k\nnumber_ios=20\n"),  # between passes
    ("time-based-no-runtime", "rw=read\ntime_based\n"),  # fio warns, turns time_based off: 16 I/Os
    ("time-based-no-runtime-rand", "rw=randwrite\ntime_based=1\nloops=2\n"),
]


def fio_json(tmp, name, body):
    d = os.path.join(tmp, "fio-" + name)
    os.makedirs(d)
    path = os.path.join(tmp, name + ".fio")
    with open(path, "w") as f:
        f.write(f"[{name}]\ndirectory={d}\nfilename=f\nsize=64k\n{body}")
    p = iob.run([ARGS.fio, "--output-format=json", path])
    expect(p.returncode == 0, f"fio {path}: exit {p.returncode}: {p.stderr}")
    j = json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]
    return path, d, {k: (j[k]["io_bytes"], j[k]["total_ios"]) for k in ("read", "write")}


def case_fio_oracle(tmp):
    """The keys fio means otherwise than they read, against fio's own run (fio's JSON)."""
    if not ARGS.fio or not os.path.exists(ARGS.fio):
        print("SKIP: fio is not installed: nothing to compare iobench's reading of fio keys with")
        return 77
    for name, body in ORACLE:
        path, fdir, want = fio_json(tmp, name, body)
        data = os.path.join(tmp, "iob-" + name)
        os.makedirs(data)
        out = os.path.join(tmp, name + ".json")
        iobench("run", path, "--dir", data, "--output", "json=" + out, rc=0)
        [r] = [x for x in json.load(open(out))["records"] if x.get("kind") == "phase"]
        got = {"read": (0, 0), "write": (0, 0)}
        got[r["phase"]] = (r["bytes"], r["ops"])
        print(f"{name}: fio {want} iobench {got}")
        expect(got == want, f"{name} ({body!r}): fio {want}, iobench {got}")
    # rw=randrw with equal sizes: the same total; with different sizes: refused, one line
    path, fdir, want = fio_json(tmp, "mixed", "rw=randrw\nbs=16k,16k\n")
    data = os.path.join(tmp, "iob-mixed")
    os.makedirs(data)
    doc = run_json(tmp, path, "--dir", data)
    [r] = phases(doc)
    total = (want["read"][0] + want["write"][0], want["read"][1] + want["write"][1])
    expect((r["bytes"], r["ops"]) == total and r["block_size_bytes"] == 16384, (r, want))
    # unlink=1 on a read job: fio lays the file out and removes it; so does iobench
    path, fdir, want = fio_json(tmp, "unlink", "rw=read\nunlink=1\n")
    expect(os.listdir(fdir) == [], f"fio left {os.listdir(fdir)}")
    data = os.path.join(tmp, "iob-unlink")
    os.makedirs(data)
    doc = run_json(tmp, path, "--dir", data)
    [r] = phases(doc)
    expect(r["bytes"] == want["read"][0] and os.listdir(data) == [], (r["bytes"], want, os.listdir(data)))
    expect(any("removed after the job (unlink=1)" in n for n in doc["notes"]), doc["notes"])
    # a file that was there before the run stays, unlink=1 or not
    with open(os.path.join(data, "f"), "wb") as f:
        f.write(b"\x11" * 65536)
    run_json(tmp, path, "--dir", data)
    expect(os.listdir(data) == ["f"] and open(os.path.join(data, "f"), "rb").read() == b"\x11" * 65536,
           os.listdir(data))


def case_keywords(tmp):
    """fio's $pagesize, $mb_memory and $ncpus: the values measured from the system, equal to fio's own
    reading of the same file (its JSON "job options"), also inside a value ($ncpusk)."""
    meminfo = open("/proc/meminfo").read()
    mem_mib = int(re.search(r"^MemTotal:\s+(\d+) kB", meminfo, re.M).group(1)) // 1024
    page, ncpus = os.sysconf("SC_PAGESIZE"), os.sysconf("SC_NPROCESSORS_ONLN")
    data = os.path.join(tmp, "data")
    os.makedirs(data)
    path = os.path.join(tmp, "kw.fio")
    with open(path, "w") as f:
        f.write(f"[global]\nioengine=null\nrw=read\ndirectory={data}\n"
                "[a]\nfilename=a\nbs=$pagesize\nsize=$mb_memory\nnumjobs=$ncpus\n"
                "[b]\nfilename=b\nbs=$ncpusk\nsize=$pagesizek\n")
    want = {"a": (page, mem_mib, ncpus), "b": (ncpus * 1024, page * 1024, 1)}
    if ARGS.fio and os.path.exists(ARGS.fio):
        p = iob.run([ARGS.fio, "--output-format=json", path])
        expect(p.returncode == 0, f"fio {path}: exit {p.returncode}: {p.stderr}")
        jobs = json.loads(p.stdout[p.stdout.index("{"):])["jobs"]
        for j in jobs:
            o = j["job options"]
            size = {"a": lambda v: int(v), "b": lambda v: int(v.rstrip("k")) * 1024}[j["jobname"]]
            fio = (size(o["bs"]), size(o["size"]), int(o.get("numjobs", "1")))
            print(f"fio {j['jobname']}: {o}")
            expect(fio == want[j["jobname"]], f"fio read {fio}, measured {want[j['jobname']]}")
        expect(len(jobs) == ncpus + 1, len(jobs))
    else:
        print("fio is not installed: the values are compared with the system's figures only")
    doc = run_json(tmp, path)
    for name, (bs, size, threads) in want.items():
        [r] = phases(doc, name)
        got = (r["block_size_bytes"], r["size_bytes"], r["threads"])
        print(f"iobench {name}: {got}, measured {(bs, size, threads)}")
        expect(got == (bs, size, threads), (name, got, (bs, size, threads)))
    # arithmetic stays refused, keyword or not
    refused_one(tmp, job_in(tmp, "arith.fio", "[j]\nsize=($mb_memory*2)\n"),
                "fio's arithmetic expressions are not supported")


FILL_JOB = """[global]
thread
bs=64k
ioengine=sync
verify=meta
verify_pattern=0xaa555aa5
verify_interval=512
[write-phase]
filename=datafile.tmp
rw=write
fill_device=1
do_verify=0
[verify-phase]
stonewall
create_serialize=0
filename=datafile.tmp
rw=read
do_verify=1
"""


def tmpfs(path, size):
    os.makedirs(path)
    p = iob.run(["mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", path])
    expect(p.returncode == 0, f"mount tmpfs on {path}: {p.stderr}")


def case_create_on_open(tmp):
    """create_on_open=1 on a data job is fio's "no layout" (strace of fio 3.33: no fallocate of the write
    job's file, its open O_CREAT at the job's start; a read job of a missing file opens it O_CREAT, empty).
    A write job runs and makes its file; a read job of an existing file or of one an earlier job writes
    runs with nothing laid out; a read job of a missing file is refused (docs/fio.md; refused/)."""
    d = os.path.join(tmp, "coo")
    os.makedirs(d)
    def run(name, text, *extra):
        path = os.path.join(tmp, name + ".fio")
        with open(path, "w") as f:
            f.write(text)
        out = os.path.join(tmp, name + ".json")
        p = iobench("run", path, "--dir", d, "--output", "json=" + out, *extra, rc=0)
        return p, iob.read_json(out)
    p, doc = run("w", "[w]\nsize=256k\nbs=4k\nrw=randwrite\ncreate_on_open=1\nfilename=c.dat\n")
    expect([(r["phase"], r["ops"]) for r in phases(doc)] == [("write", 64)], phases(doc))
    expect(os.path.getsize(os.path.join(d, "c.dat")) == 256 << 10, os.listdir(d))
    # the file is there now: read with create_on_open=1, nothing laid out
    p, doc = run("r", "[r]\nsize=256k\nbs=4k\nrw=randread\ncreate_on_open=1\nfilename=c.dat\n")
    expect([(r["job"], r["phase"], r["ops"]) for r in phases(doc)] == [("r", "read", 64)], phases(doc))
    expect("laid out" not in p.stdout + p.stderr, p.stdout + p.stderr)
    # a missing file that an earlier job writes: runs as fio does (the writer's group first)
    p, doc = run("wr", "[a]\nsize=256k\nbs=4k\nrw=write\nfilename=n.dat\n[b]\nstonewall\nsize=256k\nbs=4k\n"
                 "rw=randrw\ncreate_on_open=1\nfilename=n.dat\n")
    expect([(r["job"], r["phase"]) for r in phases(doc)] == [("a", "write"), ("b", "mixed")], phases(doc))
    expect("laid out" not in p.stdout + p.stderr, p.stdout + p.stderr)
    # without create_on_open the same missing file is laid out first; with it, refused (nothing made)
    refused_one(tmp, os.path.join(HERE, "refused", "create-on-open.fio"), "fio lays out no file then")
    print("create_on_open=1: the write job made its file, the reads ran with nothing laid out, a missing "
          "file's read refused")


def case_fill_device(tmp):
    """fill_device=1 (fio's surface-scan.fio, buffered): the write job writes until a small tmpfs is full, ENOSPC
    its end, not an error; the verify job reads and checks all of it; bytes and files as fio's own run."""
    if os.geteuid() != 0:
        print("SKIP: fill_device is tested on its own small tmpfs mount, and mounting needs root")
        return 77
    have_fio = ARGS.fio and os.path.exists(ARGS.fio)
    if not have_fio:
        print("fio is not installed: iobench's run is checked against the file system's own figures only")
    path = os.path.join(tmp, "fill.fio")
    with open(path, "w") as f:
        f.write(FILL_JOB)
    mounts = []
    try:
        # 8 MiB: a whole number of blocks; 8196k: the last write is short (4k of 64k), then ENOSPC
        for size in ("8m", "8196k"):
            mi, mf = os.path.join(tmp, "iob-" + size), os.path.join(tmp, "fio-" + size)
            tmpfs(mi, size)
            mounts.append(mi)
            st = os.statvfs(mi)
            room = st.f_bfree * st.f_frsize
            out = os.path.join(tmp, "fill-" + size + ".json")
            iobench("run", path, "--dir", mi, "--output", "json=" + out, rc=0)
            doc = iob.read_json(out)
            [w] = phases(doc, "write-phase")
            [v] = phases(doc, "verify-phase")
            fsize = os.stat(os.path.join(mi, "datafile.tmp")).st_size
            print(f"{size}: iobench wrote {w['bytes']} in {w['ops']} I/Os, verified {v['bytes']}; file {fsize}, "
                  f"room {room}")
            expect(w["status"] == "ok" and w["device_full"] is True and w["fill_device"] is True, w)
            expect(w["bytes"] == fsize == room, (w["bytes"], fsize, room))
            expect(v["phase"] == "verify" and v["status"] == "ok" and v["bytes"] == fsize, v)
            expect(v["verify"] == "meta" and "device_full" not in v, v)
            expect(os.statvfs(mi).f_bfree == 0, "the file system is not full")
            if not have_fio:
                continue
            tmpfs(mf, size)
            mounts.append(mf)
            p = iob.run([ARGS.fio, "--output-format=json", path], cwd=mf)
            expect(p.returncode == 0, f"fio: exit {p.returncode}: {p.stderr}")
            jobs = {j["jobname"]: j for j in json.loads(p.stdout[p.stdout.index("{"):])["jobs"]}
            fio_file = os.stat(os.path.join(mf, "datafile.tmp")).st_size
            fw, fr = jobs["write-phase"]["write"]["io_bytes"], jobs["verify-phase"]["read"]["io_bytes"]
            print(f"{size}: fio wrote {fw}, read {fr}; its file {fio_file}; it left {sorted(os.listdir(mf))}")
            expect(fio_file == fsize, f"fio's file {fio_file}, iobench's {fsize}")
            expect(jobs["write-phase"]["error"] == 0 and jobs["verify-phase"]["error"] == 0, jobs)
            if size == "8m":
                expect(fw == w["bytes"] and fr == v["bytes"], (fw, fr, w["bytes"], v["bytes"]))
            else:  # fio counts the short last write out of io_bytes (and verifies whole blocks only)
                expect(fw == fr == fsize - 4096 and w["short_ops"] == 1, (fw, fr, w))
            expect(set(os.listdir(mi)) <= set(os.listdir(mf)), (os.listdir(mi), os.listdir(mf)))
        # from an INI profile: write, then verify in one job
        mi = os.path.join(tmp, "ini")
        tmpfs(mi, "4m")
        mounts.append(mi)
        prof = iob.write(os.path.join(tmp, "fill.ini"),
                         f"[fill]\ndir = {mi}\nfilename = f\naccess = seq\nphases = write,verify\n"
                         "block_size = 64K\nfill_device = true\nverify = crc32c\nkeep_files = true\n")
        out = os.path.join(tmp, "ini.json")
        iobench("run", prof, "--output", "json=" + out, rc=0)
        w, v = phases(iob.read_json(out))
        expect(w["device_full"] is True and w["bytes"] == 4 << 20 == v["bytes"] and v["status"] == "ok", (w, v))
        expect(os.listdir(mi) == ["f"] and os.stat(os.path.join(mi, "f")).st_size == 4 << 20, os.listdir(mi))
    finally:
        for m in reversed(mounts):
            iob.run(["umount", m])


def job_in(tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


# ---- units, --fio, --set on INI profiles ------------------------------------------------------


def block_size(tmp, text, *extra):
    path = os.path.join(tmp, "u.fio")
    with open(path, "w") as f:
        f.write("[j]\nrw=write\nsize=1m\n" + text)
    doc = run_json(tmp, path, *extra)
    return phases(doc)[0]["block_size_bytes"]


def case_units(tmp):
    # kb_base=1024 (fio's default): k = 1024, ki = 1000; b is bytes, any case
    for text, want in [("bs=4k\n", 4096), ("bs=4KB\n", 4096), ("bs=4kib\n", 4000), ("bs=4Ki\n", 4000),
                       ("bs=4096b\n", 4096), ("bs=0x1000\n", 4096), ("bs=1m\n", 1 << 20), ("bs=1mi\n", 10 ** 6)]:
        expect(block_size(tmp, text) == want, f"{text!r}: want {want}")
    for text, want in [("bs=4k\n", 4000), ("bs=4KiB\n", 4096), ("bs=1m\n", 10 ** 6), ("bs=1Mi\n", 1 << 20)]:
        expect(block_size(tmp, "kb_base=1000\n" + text) == want, f"kb_base=1000 {text!r}: want {want}")
    # kb_base written after the size still applies (fio reads it first), and a [global] one reaches the jobs
    expect(block_size(tmp, "bs=4k\nkb_base=1000\n") == 4000, "kb_base after bs")
    # times: a bare number is seconds; units in any case
    for runtime in ("1", "1s", "1000ms", "1000MSEC", "1sec"):
        path = os.path.join(tmp, "t.fio")
        with open(path, "w") as f:
            f.write(f"[j]\nrw=randwrite\nsize=1m\nruntime={runtime}\ntime_based\n")
        os.makedirs(os.path.join(tmp, "data"), exist_ok=True)
        iobench("check", path, "--dir", os.path.join(tmp, "data"), rc=0)
    refused_one(tmp, path, "runtime=1y: '1y' has an unknown unit", "--set", "runtime=1y")


def case_fio_flag(tmp):
    data = os.path.join(tmp, "data")
    os.makedirs(data)
    plain = os.path.join(tmp, "jobs.txt")
    shutil.copy(job_file("rand-write.fio"), plain)
    iobench("check", plain, "--fio", "--dir", data, rc=0)
    p = iobench("check", plain, "--dir", data)  # read as an INI profile: not one
    expect(p.returncode == 2, p.stderr)
    upper = os.path.join(tmp, "JOBS.FIO")
    shutil.copy(job_file("rand-write.fio"), upper)
    iobench("check", upper, "--dir", data, rc=0)
    p = iobench("check", os.path.join(ARGS.src, "configs", "default.ini"), "--fio-ignore", "rate", "--dir", data)
    expect(p.returncode == 2 and "--fio-ignore applies to fio job files" in p.stderr, p.stderr)


def case_set_ini(tmp):
    prof = os.path.join(tmp, "p.ini")
    with open(prof, "w") as f:
        f.write("[global]\nsize = 64M\nblock_size = 1M\n[a]\nphases = write\n[b]\nphases = write,read\n")
    doc = run_json(tmp, prof, "--set", "size=2M", "--set", "block_size=64K")
    rs = phases(doc)
    expect(len(rs) == 3 and all(r["size_bytes"] == 2 << 20 and r["block_size_bytes"] == 64 << 10 for r in rs), rs)
    refused_one(tmp, prof, "--set blok_size=4K: unknown key (did you mean block_size?", "--set", "blok_size=4K")
    refused_one(tmp, prof, "--set size=big: ", "--set", "size=big")


# ---- the mapping table in docs/fio.md -----------------------------------------------------------


def case_doc_table(tmp):
    p = iobench("keys", "--fio", "--markdown", rc=0)
    doc = os.path.join(ARGS.src, "docs", "fio.md")
    lines = open(doc, encoding="utf-8").read().split("\n")
    b = [i for i, l in enumerate(lines) if l.startswith("<!-- fio-keys:begin")]
    e = [i for i, l in enumerate(lines) if l == "<!-- fio-keys:end -->"]
    expect(len(b) == 1 and len(e) == 1 and b[0] < e[0], f"{doc}: markers")
    have = "\n".join(lines[b[0] + 1:e[0]]) + "\n"
    expect(have == p.stdout, f"{doc}: the table differs from `iobench keys --fio --markdown`; paste it between "
                             f"the markers\n--- doc\n{have}\n--- iobench\n{p.stdout}")
    plain = iobench("keys", "--fio", rc=0).stdout.splitlines()
    expect(plain[0].split()[:3] == ["FIO", "KEY", "ALIASES"] and len(plain) == p.stdout.count("\n") - 1, plain)
    for key in ("name", "filename", "directory", "size", "io_size", "filesize", "nrfiles", "offset", "bs",
                "bsrange", "rw", "rwmixread", "rwmixwrite", "ioengine", "iodepth", "direct", "buffered",
                "numjobs", "thread", "runtime", "time_based", "ramp_time", "loops", "number_ios", "fsync",
                "end_fsync", "fsync_on_close", "randrepeat", "randseed", "norandommap", "stonewall",
                "new_group", "group_reporting"):
        expect(any(l.split()[0] == key for l in plain[1:]), f"{key} not in keys --fio")
    for alias in ("timeout", "readwrite", "blocksize", "wait_for_previous", "io_limit"):
        expect(any(alias in l.split()[1].split(",") for l in plain[1:]), f"alias {alias} not listed")
    p = iobench("keys", "--fio", "--bogus")
    expect(p.returncode == 2 and "'keys' takes only --fio and --markdown" in p.stderr, p.stderr)


if __name__ == "__main__":
    ARGS = iob.arguments("--bin", "--src", "--work", optional={"--fio": ""}, case=True)
    sys.exit(iob.run_case(ARGS, globals(), "fio-"))
