#!/usr/bin/env python3
"""Streams (threads = N) through `iobench run`, JSON output:

- per-stream files <file>.<i>, or one shared file; nothing else created;
- one "stream" record per stream and one aggregate "phase" record: the
  aggregate's bytes and ops are the streams' sums, and equal the kernel's
  counts (the sums of each stream's /proc/thread-self/io deltas); its
  elapsed time spans every stream's (IOR's rule: last end - first start);
  its latency holds every stream's sample;
- threads = 1 gives no stream record and no aggregate keys;
- bad input: one line naming the value, exit 2, nothing created;
- ENOSPC in one of 8 streams (the fault backend: one write of the whole
  process fails, whichever stream makes it) ends the phase: exit 1, the
  error names the stream and the offset, the aggregate is marked partial;
- SIGINT during 8 streams: exit 130, records marked interrupted;
- SIGINT during 8 streams at iodepth 32 (io_uring, through the fault
  backend's tally, an outside count of the queued I/Os): exit 130, every
  submitted I/O reaped, and the bytes they moved are the records' bytes.

Usage: test_streams.py --bin DIR --plugin-dir DIR --fault-dir DIR --work DIR
Prints 'N passed, N failed'."""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import iobtest as iob  # noqa: E402
from iobtest import check  # noqa: E402

A = None


def iobench(profile, d, js=None, env_extra=None, timeout=300):
    args = [iob.binary(A, "iobench"), "run", profile, "--plugin-dir", A.plugin_dir]
    if js:
        args += ["--output", "json=" + js]
    return iob.run(args, cwd=d, env=iob.env(env_extra), timeout=timeout)


def profile(d, name, body):
    p = os.path.join(d, name + ".ini")
    with open(p, "w") as f:
        f.write(body)
    return p


def records(js):
    return iob.read_json(js)["records"]


def by_phase(recs, kind, phase):
    return [r for r in recs if r["kind"] == kind and r.get("phase") == phase]


def check_aggregate(name, recs, phase, n):
    streams = by_phase(recs, "stream", phase)
    agg = by_phase(recs, "phase", phase)
    check(name + ": one record per stream", len(streams) == n, f"{len(streams)} stream records")
    check(name + ": one aggregate", len(agg) == 1, f"{len(agg)} phase records")
    if len(streams) != n or len(agg) != 1:
        return None
    a = agg[0]
    check(name + ": stream indexes", sorted(s["stream"] for s in streams) == list(range(n)),
          str([s["stream"] for s in streams]))
    check(name + ": streams key", a["streams"] == n, str(a.get("streams")))
    for key in ("bytes", "ops"):
        total = sum(s[key] for s in streams)
        check(f"{name}: aggregate {key} = sum of streams", a[key] == total, f"{a[key]} != {total}")
    kernel = "os_write_bytes" if phase == "write" else "os_read_bytes"
    ksum = sum(s[kernel] for s in streams)
    check(f"{name}: each stream's {kernel} is its bytes",
          all(s[kernel] == s["bytes"] for s in streams), str([(s[kernel], s["bytes"]) for s in streams]))
    check(f"{name}: aggregate {kernel} = sum of the streams' = bytes", a[kernel] == ksum == a["bytes"],
          f"{a[kernel]}, {ksum}, {a['bytes']}")
    longest = max(s["elapsed_s"] for s in streams)
    check(name + ": the window spans every stream", a["elapsed_s"] >= longest * (1 - 1e-9),
          f"{a['elapsed_s']} < {longest}")
    if a["elapsed_s"] > 0:
        bw = a["bytes"] / a["elapsed_s"]
        check(name + ": bw = bytes / window", abs(a["bw_bytes_per_s"] - bw) <= 1e-6 * bw,
              f"{a['bw_bytes_per_s']} vs {bw}")
    check(name + ": stream bw spread", a["stream_bw_min_bytes_per_s"] <= a["stream_bw_max_bytes_per_s"] and
          a["stream_bw_min_bytes_per_s"] == min(s["bw_bytes_per_s"] for s in streams) and
          a["stream_bw_max_bytes_per_s"] == max(s["bw_bytes_per_s"] for s in streams), str(a))
    check(name + ": merged latency holds every sample",
          a["lat_ns"]["count"] == sum(s["lat_ns"]["count"] for s in streams) and
          a["lat_ns"]["min"] == min(s["lat_ns"]["min"] for s in streams) and
          a["lat_ns"]["max"] == max(s["lat_ns"]["max"] for s in streams),
          f"{a['lat_ns']['count']}, {[s['lat_ns']['count'] for s in streams]}")
    cpu = sum(s["cpu_user_s"] + s["cpu_sys_s"] for s in streams)
    check(name + ": CPU is the streams' sum", abs(a["cpu_user_s"] + a["cpu_sys_s"] - cpu) < 1e-6,
          f"{a['cpu_user_s'] + a['cpu_sys_s']} vs {cpu}")
    check(name + ": not partial", a["partial"] is False and a["status"] == "ok", str(a["status"]))
    return a


def work_dirs(work):
    """A fresh directory under work, and its data/ directory."""
    d = tempfile.mkdtemp(dir=work)
    data = os.path.join(d, "data")
    os.mkdir(data)
    return d, data


def run_json(name, d, job, text):
    """iobench on the profile text (written as d's profile of job) with its
    JSON in d/out.json: that path, or None when it did not exit 0 (a failed
    check)."""
    p = profile(d, job, text)
    js = os.path.join(d, "out.json")
    r = iobench(p, d, js)
    check(name + ": exit 0", r.returncode == 0, r.stderr)
    return js if r.returncode == 0 else None


def four_streams(work, name, job, keys):
    """A job of 4 streams writing then reading, 64 KiB blocks, its files kept in a fresh data/ directory,
    with `keys` besides: each phase's aggregate checked; (its directory, data/, its records) or None when
    it failed."""
    d, data = work_dirs(work)
    js = run_json(name, d, job, f"[{job}]\ndir = {data}\n{keys}block_size = 64K\nthreads = 4\n"
                  "phases = write,read\nkeep_files = true\n")
    if not js:
        return None
    recs = records(js)
    for phase in ("write", "read"):
        check_aggregate(f"{name} {phase}", recs, phase, 4)
    return d, data, recs


def test_own_files(work):
    run = four_streams(work, "own files", "own", "filename = f.dat\nsize = 1M\n")
    if not run:
        return
    d, data, recs = run
    names = sorted(os.listdir(data))
    check("own files: <file>.<i> for i < 4, nothing else", names == [f"f.dat.{i}" for i in range(4)], str(names))
    check("own files: each of size", all(os.path.getsize(os.path.join(data, n)) == 1 << 20 for n in names),
          str([os.path.getsize(os.path.join(data, n)) for n in names]))
    files = sorted(s["file"] for s in recs if s["kind"] == "stream" and s["phase"] == "write")
    check("own files: stream records name their files",
          files == [os.path.join(data, f"f.dat.{i}") for i in range(4)], str(files))
    shutil.rmtree(d)


def test_shared(work):
    run = four_streams(work, "shared file", "shared", "filename = s.dat\nsize = 2M\nshared_file = true\n")
    if not run:
        return
    d, data, _ = run
    names = os.listdir(data)
    check("shared file: one file", names == ["s.dat"], str(names))
    check("shared file: of the job's size", os.path.getsize(os.path.join(data, "s.dat")) == 2 << 20,
          str(os.path.getsize(os.path.join(data, "s.dat"))))
    shutil.rmtree(d)


def test_one_thread(work):
    d = tempfile.mkdtemp(dir=work)
    js = run_json("threads = 1", d, "one", f"[one]\ndir = {d}\nsize = 256K\nblock_size = 64K\nphases = write,read\n")
    if not js:
        return
    recs = records(js)
    check("threads = 1: no stream records", not [x for x in recs if x["kind"] == "stream"],
          str([x["kind"] for x in recs]))
    ph = [x for x in recs if x["kind"] == "phase"]
    check("threads = 1: two phase records", len(ph) == 2, str(len(ph)))
    for x in ph:
        check("threads = 1: no aggregate keys", "streams" not in x and "partial" not in x, str(list(x)))
        check("threads = 1: cpu keys", all(k in x for k in ("cpu_user_s", "cpu_sys_s", "cpu_ns_per_io")) and
              x["cpu_ns_per_io"] is not None, str(x))
    shutil.rmtree(d)


BAD = [
    ("threads = 0", "threads 0"),
    ("threads = 4097", "threads 4097"),
    ("iodepth = 0", "iodepth 0"),
    ("iodepth = 65537", "iodepth 65537"),
    ("iodepth = 2", "posix"),
    ("runtime = 5", "'5'"),
    ("runtime = -5s", "'-5s'"),
    ("ramp_time = 10", "'10'"),
    ("rwmix_read = 101", "rwmix_read 101"),
    ("phases = write,sideways", "sideways"),
]


# the io_uring backend's submit_batch option, checked before anything is created
BAD_URING = [
    ("backend = io_uring\niodepth = 4\nbackend_options = submit_batch=x", "submit_batch=x"),
    ("backend = io_uring\niodepth = 4\nbackend_options = submit_batch=4097", "submit_batch=4097"),
    ("backend = io_uring\niodepth = 4\nbackend_options = submit_batch=-1", "submit_batch=-1"),
    ("backend = io_uring\niodepth = 4\nbackend_options = submit_batch=", "submit_batch="),
]


def test_bad_input(work):
    bad = BAD + (BAD_URING if os.path.exists(os.path.join(A.plugin_dir, "iob-backend-io_uring.so")) else [])
    for line, named in bad:
        d, data = work_dirs(work)
        extra = "" if line.startswith("threads") else "threads = 2\n"
        p = profile(d, "bad", f"[bad]\ndir = {data}\nsize = 64K\n{extra}{line}\n")
        r = iobench(p, d, os.path.join(d, "out.json"))
        err = r.stderr.strip().split("\n")
        check(f"bad {line}: exit 2", r.returncode == 2, f"{r.returncode}: {r.stderr}")
        check(f"bad {line}: one line naming the value", len(err) == 1 and named in err[0], r.stderr)
        check(f"bad {line}: nothing created", os.listdir(data) == [] and not os.path.exists(
            os.path.join(d, "out.json")), str(os.listdir(data)))
        shutil.rmtree(d)
    # more streams than the free space holds, for the whole suite
    d, data = work_dirs(work)
    st = os.statvfs(data)
    free = st.f_bavail * st.f_frsize
    size = free // 1000 + (1 << 20)  # 1000 streams of it do not fit; one does
    p = profile(d, "space", f"[fits]\ndir = {data}\nsize = {size}\nkeep_files = false\n"
                f"[toomany]\ndir = {data}\nsize = {size}\nthreads = 1000\n")
    r = iobench(p, d)
    check("threads over the free space: exit 2", r.returncode == 2, f"{r.returncode}: {r.stderr}")
    check("threads over the free space: says so, naming the job",
          "not enough space" in r.stderr and "[toomany]" in r.stderr and len(r.stderr.strip().split("\n")) == 1,
          r.stderr)
    check("threads over the free space: nothing created", os.listdir(data) == [], str(os.listdir(data)))
    p = profile(d, "shared", f"[shared]\ndir = {data}\nsize = {size}\nthreads = 1000\nshared_file = true\n"
                "phases = write\n")
    r = subprocess.run([os.path.join(A.bin, "iobench"), "check", p, "--plugin-dir", A.plugin_dir],
                       capture_output=True, text=True)
    check("a shared file needs room once", r.returncode == 0, r.stderr)
    shutil.rmtree(d)


def test_enospc(work):
    d, data = work_dirs(work)
    wrap = os.path.join(A.plugin_dir, "iob-backend-posix.so")
    # 8 streams of 1 MiB in 64 KiB writes: the write after 3 MiB in all fails, once
    p = profile(d, "full", f"[full]\ndir = {data}\nbackend = fault\nsize = 1M\nblock_size = 64K\n"
                f"threads = 8\nphases = write\n"
                f"backend_options = wrap={wrap},op=write,err=ENOSPC,after_bytes=3145728,persist=0\n")
    js = os.path.join(d, "out.json")
    r = iobench(p, d, js, {"IOBENCH_PLUGIN_PATH": A.fault_dir})
    err = r.stderr.strip().split("\n")
    check("ENOSPC in one stream: exit 1", r.returncode == 1, f"{r.returncode}: {r.stderr}")
    check("ENOSPC: the error names a stream, the offset and the reason",
          any("stream " in e and "at offset " in e and "No space left on device" in e for e in err), r.stderr)
    recs = records(js)
    streams = by_phase(recs, "stream", "write")
    agg = by_phase(recs, "phase", "write")
    check("ENOSPC: 8 stream records and an aggregate", len(streams) == 8 and len(agg) == 1,
          f"{len(streams)}, {len(agg)}")
    if len(streams) == 8 and len(agg) == 1:
        a = agg[0]
        bad = [s for s in streams if s["status"] == "error"]
        check("ENOSPC: one stream failed", len(bad) == 1, str([s["status"] for s in streams]))
        check("ENOSPC: the aggregate is partial and names it",
              a["partial"] is True and a["status"] == "error" and bad and a["failed_stream"] == bad[0]["stream"],
              str(a))
        check("ENOSPC: the error names the failed stream", bad and f"stream {bad[0]['stream']}:" in r.stderr,
              r.stderr)
        check("ENOSPC: the others are ok or stopped",
              all(s["status"] in ("ok", "stopped") for s in streams if s not in bad), str(streams))
        check("ENOSPC: the aggregate's bytes are the streams'", a["bytes"] == sum(s["bytes"] for s in streams),
              str(a["bytes"]))
        check("ENOSPC: less than everything was written", a["bytes"] < 8 << 20, str(a["bytes"]))
    check("ENOSPC: the job's files are removed", os.listdir(data) == [], str(os.listdir(data)))
    shutil.rmtree(d)


def test_sigint(work):
    d, data = work_dirs(work)
    big = os.path.join(data, "sparse.dat")
    with open(big, "wb") as f:
        f.truncate(64 << 30)  # a sparse file, no space; time_based: the read goes on until the signal
        # (on tmpfs its holes are read in about a second)
    p = profile(d, "long", f"[long]\ndir = {data}\nfilename = sparse.dat\nsize = 64G\nblock_size = 4K\n"
                "threads = 8\nshared_file = true\nphases = read\nruntime = 300s\ntime_based = true\n")
    js = os.path.join(d, "out.json")
    if iob.interrupted("SIGINT with 8 streams", [iob.binary(A, "iobench"), "run", p, "--plugin-dir", A.plugin_dir,
                                                 "--output", "json=" + js], 10, cwd=d, env=iob.env()):
        recs = records(js)
        streams = by_phase(recs, "stream", "read")
        agg = by_phase(recs, "phase", "read")
        check("SIGINT: every stream recorded, interrupted", len(streams) == 8 and
              all(s["status"] == "interrupted" for s in streams), str([s["status"] for s in streams]))
        check("SIGINT: the aggregate is interrupted and partial", len(agg) == 1 and
              agg[0]["status"] == "interrupted" and agg[0]["partial"] is True, str(agg))
    shutil.rmtree(d)


def uring_usable():
    try:
        with open("/proc/sys/kernel/io_uring_disabled") as f:
            return f.read().strip() in ("0", "")
    except OSError:
        return True


def test_uring_direct_checked(work):
    """io_uring with direct=1 is a direct-I/O backend to the checks: a job on a
    memory file system, or with a block size direct I/O cannot serve, is refused
    before the suite's first job runs, and nothing is created."""
    if not os.path.exists(os.path.join(A.plugin_dir, "iob-backend-io_uring.so")):
        print("io_uring direct=1 checks: not run: no io_uring backend")
        return
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
    import odirect
    cases = []
    shm = "/dev/shm"
    if os.path.isdir(shm) and os.access(shm, os.W_OK) and odirect.fs_type(shm) in odirect.MEMORY_FS:
        cases.append((shm, "block_size = 4K", "cannot bypass the buffer cache"))
    if not odirect.direct_refused(work):
        cases.append((work, "block_size = 1000", "block size 1000"))
    if not cases:
        print("io_uring direct=1 checks: not run: no memory file system and no direct I/O here")
    for where, bs, named in cases:
        d = tempfile.mkdtemp(dir=where)
        data = os.path.join(d, "data")
        os.mkdir(data)
        # a first job that would write, so a refusal at open would come too late
        p = profile(d, "udirect", f"[first]\ndir = {data}\nsize = 64K\nphases = write\n"
                    f"[deep]\ndir = {data}\nsize = 64K\n{bs}\nbackend = io_uring\nbackend_options = direct=1\n"
                    "iodepth = 4\nphases = write,read\n")
        r = iobench(p, d, os.path.join(d, "out.json"))
        err = r.stderr.strip().split("\n")
        check(f"io_uring direct=1 in {where} ({bs}): exit 2", r.returncode == 2, f"{r.returncode}: {r.stderr}")
        check(f"io_uring direct=1 in {where} ({bs}): one line naming it",
              len(err) == 1 and named in err[0] and "[deep]" in err[0], r.stderr)
        check(f"io_uring direct=1 in {where} ({bs}): nothing created, not even the first job's file",
              os.listdir(data) == [] and not os.path.exists(os.path.join(d, "out.json")), str(os.listdir(data)))
        shutil.rmtree(d)


def test_sigint_queued(work):
    wrap = os.path.join(A.plugin_dir, "iob-backend-io_uring.so")
    if not os.path.exists(wrap) or not uring_usable():
        print("SIGINT at iodepth 32: not run: no io_uring backend, or io_uring is disabled here")
        return
    d, data = work_dirs(work)
    with open(os.path.join(data, "sparse.dat"), "wb") as f:
        f.truncate(64 << 30)
    tally = os.path.join(d, "tally")
    p = profile(d, "deep", f"[deep]\ndir = {data}\nfilename = sparse.dat\nsize = 64G\nblock_size = 4K\n"
                "threads = 8\nshared_file = true\niodepth = 32\naccess = random\nphases = read\n"
                f"backend = fault\nbackend_options = wrap={wrap},op=open,after_calls=1000000,tally={tally}\n")
    js = os.path.join(d, "out.json")
    if iob.interrupted("SIGINT with 8 streams at iodepth 32", [iob.binary(A, "iobench"), "run", p, "--plugin-dir",
                                                               A.plugin_dir, "--output", "json=" + js], 5,
                       cwd=d, env=dict(os.environ, IOBENCH_PLUGIN_PATH=A.fault_dir)):
        recs = records(js)
        streams = by_phase(recs, "stream", "read")
        agg = by_phase(recs, "phase", "read")
        check("SIGINT at iodepth 32: 8 interrupted streams", len(streams) == 8 and
              all(s["status"] == "interrupted" for s in streams), str([s["status"] for s in streams]))
        try:
            with open(tally) as f:
                words = f.read().split()
            t = dict(zip(words[0::2], (int(w) for w in words[1::2])))
        except (OSError, ValueError) as e:
            t = {}
            check("SIGINT at iodepth 32: the backend's tally", False, str(e))
        if t and len(agg) == 1:
            a = agg[0]
            check("SIGINT at iodepth 32: every submitted I/O was reaped", t["submitted"] == t["reaped"] > 0, str(t))
            check("SIGINT at iodepth 32: the bytes reaped are the records' bytes",
                  t["bytes"] == a["bytes"] == sum(s["bytes"] for s in streams), f"{t} vs {a['bytes']}")
            check("SIGINT at iodepth 32: ops are whole 4 KiB reads", a["bytes"] == a["ops"] * 4096,
                  f"{a['bytes']} vs {a['ops']}")
    shutil.rmtree(d)


def main():
    global A
    A = iob.arguments("--bin", "--plugin-dir", "--fault-dir", "--work")
    for t in (test_own_files, test_shared, test_one_thread, test_bad_input, test_enospc, test_sigint,
              test_sigint_queued, test_uring_direct_checked):
        t(A.work)
    return iob.summary()


if __name__ == "__main__":
    sys.exit(main())
