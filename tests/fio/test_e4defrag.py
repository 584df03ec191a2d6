#!/usr/bin/env python3
"""ioengine=e4defrag and the e4defrag backend (docs/fio.md, docs/plugin-guide.md):
each write moves its range of the file into fresh blocks with ext4's
EXT4_IOC_MOVE_EXT, through a donor file.

What happened is read from the kernel, not from the tools: the file's
extents (FIEMAP, the ioctl `filefrag -v` uses) before and after, the
physical blocks the file gave up and the ones its donor holds after, the
file's SHA-256 (defragmenting moves data, never changes it), and, where
strace is installed, the EXT4_IOC_MOVE_EXT calls made.  The file is
fragmented on purpose first: two files written a 4 KiB block each in turn,
each block synced, so their blocks interleave.

Cases: ref (a job of our own by fio 3.33 and by iobench: the same bytes and
I/Os, contents intact, fragmentation reduced for both), ini (the backend from
an INI profile: FIEMAP against the record, the donor kept and marked, a
second run reusing it, inplace=1), refused (bad values: one line, exit 2,
nothing created or changed).  A directory that is not on ext4 (tmpfs in CI's
tmpfs leg) makes ref and ini skip with iobench's own one-line refusal, which
names the file system; refused checks that line on /dev/shm where it is a
tmpfs.

usage: test_e4defrag.py --bin DIR --work DIR CASE"""
import fcntl
import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import iobtest as iob  # noqa: E402
from iobtest import Skip, expect  # noqa: E402
from odirect import fs_type  # noqa: E402

A = None
MiB = 1 << 20
BLOCK = 4096
FS_IOC_FIEMAP = 0xC020660B  # _IOWR('f', 11, struct fiemap)
FIEMAP_FLAG_SYNC = 1


def iobench(*args, **kw):
    return iob.tool(A, "iobench", *args, **kw)


def fio_bin():
    return os.environ.get("FIO", "/usr/bin/fio")


def fiemap(path):
    """The file's extents as the kernel maps them: [(logical, physical, length)] in bytes."""
    fd = os.open(path, os.O_RDONLY)
    try:
        n = 4096
        buf = bytearray(struct.pack("=QQIIII", 0, (1 << 64) - 1, FIEMAP_FLAG_SYNC, 0, n, 0) + bytes(56 * n))
        fcntl.ioctl(fd, FS_IOC_FIEMAP, buf)
        mapped = struct.unpack_from("=I", buf, 20)[0]
        return [struct.unpack_from("=QQQ", buf, 32 + 56 * i) for i in range(mapped)]
    finally:
        os.close(fd)


def extent_count(ext):
    """Extents, the ones that continue each other on disk counted as one (as filefrag counts them)."""
    count, prev = 0, None
    for lo, ph, ln in ext:
        if not (prev and prev[0] + prev[2] == lo and prev[1] + prev[2] == ph):
            count += 1
        prev = (lo, ph, ln)
    return count


def blocks(ext):
    """The physical 4 KiB blocks of the extents."""
    return {b for _, ph, ln in ext for b in range(ph // BLOCK, (ph + ln) // BLOCK)}


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def fragmented(path, size=MiB):
    """path written a block at a time in turn with another file, each block synced: its blocks interleave
    with the other's.  The allocator may still give one file runs of blocks (4 extents were seen once on
    a busy machine): written again, up to 4 times, until it has 8 extents or more.  (sha256, extents)."""
    for _ in range(4):
        sha, ext = fragmented_once(path, size)
        if extent_count(ext) >= 8:
            break
    return sha, ext


def fragmented_once(path, size):
    other = path + ".other"
    a = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    b = os.open(other, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        for i in range(size // BLOCK):
            for fd in (a, b):
                os.pwrite(fd, os.urandom(BLOCK), i * BLOCK)
                os.fdatasync(fd)
    finally:
        os.close(a)
        os.close(b)
    os.remove(other)
    return sha256(path), fiemap(path)


def need_ext4(d):
    """Skip with iobench's own refusal where d is not on ext4."""
    prof = iob.write(os.path.join(d, "..", "probe.ini"),
                     f"[p]\ndir = {d}\nbackend = e4defrag\nbackend_options = donorname=d\nphases = write\n"
                     "size = 64K\n")
    p = iobench("check", prof)
    if p.returncode == 2 and "not ext4" in p.stderr:
        raise Skip(p.stderr.strip().splitlines()[-1])
    expect(p.returncode == 0, f"check: exit {p.returncode}: {p.stderr}")
    expect(os.listdir(d) == [], f"check created {os.listdir(d)}")
    need_move_ext(d)


EXT4_IOC_MOVE_EXT = 0xC028660F  # _IOWR('f', 15, struct move_extent), 40 bytes


def need_move_ext(d):
    """Skip where this kernel refuses EXT4_IOC_MOVE_EXT itself (6.18 here answers EPERM for every
    move, fio's e4defrag engine alike): one block of a scratch file moved into a donor, both removed."""
    probe = os.path.join(d, "..", "move-probe")
    a = os.open(probe, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    b = os.open(probe + ".donor", os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.pwrite(a, b"\x5a" * BLOCK, 0)
        os.fsync(a)
        os.posix_fallocate(b, 0, BLOCK)
        arg = bytearray(struct.pack("=IIQQQQ", 0, b, 0, 0, 1, 0))
        try:
            fcntl.ioctl(a, EXT4_IOC_MOVE_EXT, arg)
        except OSError as e:
            raise Skip(f"this kernel ({os.uname().release}) refuses EXT4_IOC_MOVE_EXT on "
                       f"{os.path.dirname(os.path.abspath(d))}: {e.strerror} (errno {e.errno})")
    finally:
        os.close(a)
        os.close(b)
        os.remove(probe)
        os.remove(probe + ".donor")


def moves(trace):
    """EXT4_IOC_MOVE_EXT calls in an strace -f log (strace 6.1 shows the request undecoded)."""
    with open(trace) as f:
        return sum(1 for ln in f if "ioctl(" in ln and ("EXT4_IOC_MOVE_EXT" in ln or "0x66, 0xf, 0x28" in ln))


def traced(argv, trace):
    """argv under strace -f (ioctl only) when strace is installed; (process, traced).  LeakSanitizer cannot
    run under ptrace: an ASan build runs without it there (the ini case runs the backend untraced)."""
    strace = shutil.which("strace")
    env = iob.env()
    if strace:
        argv = [strace, "-f", "-qq", "-e", "trace=ioctl", "-o", trace] + argv
        env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":")
    return iob.run(argv, timeout=300, env=env), bool(strace)


def defragged(name, path, donor, before, nbytes):
    """What the kernel shows after a run moved nbytes of path (inplace=0): the contents unchanged, one or
    two extents (fewer than before, at least two), exactly nbytes of blocks given up by the file, and those very blocks in the donor."""
    sha, ext = before
    after = fiemap(path)
    gone = blocks(ext) - blocks(after)
    dblocks = blocks(fiemap(donor))
    print(f"{name}: {extent_count(ext)} extents before, {extent_count(after)} after; {len(gone)} blocks moved "
          f"({len(gone) * BLOCK} bytes), the donor holds {len(dblocks)}")
    expect(sha256(path) == sha, f"{name}: the file's contents changed")
    expect(extent_count(ext) >= 2 and extent_count(after) <= 2 and extent_count(after) < extent_count(ext),
           f"{name}: {extent_count(ext)} extents before, {extent_count(after)} after")
    expect(len(gone) * BLOCK == nbytes, f"{name}: {len(gone)} blocks moved, the record says {nbytes} bytes")
    expect(dblocks == blocks(ext), f"{name}: the donor does not hold the file's former blocks")


# ---- fio and iobench on the same job --------------------------------------------------------------

JOB = """[global]
ioengine=e4defrag
filename=frag
filesize=1m
size=1m
bs=64k
[defrag]
donorname=frag.donor
inplace=0
rw=write
buffered=0
"""


def case_ref(tmp):
    """A job of our own (1 MiB in 64 KiB moves, inplace=0) by fio and by iobench, each on a file made
    fragmented the same way: 16 moves of 1 MiB in all for both (fio's JSON, iobench's record, and
    strace's count of EXT4_IOC_MOVE_EXT), the same SHA-256 after, one or two extents after, and the
    blocks the file gave up exactly the record's bytes, now the donor's.  fio keeps its donor file;
    so does iobench."""
    if not os.access(fio_bin(), os.X_OK):
        raise Skip(f"fio is not installed ({fio_bin()}): nothing to compare with")
    fdir, idir = os.path.join(tmp, "fio"), os.path.join(tmp, "iob")
    for d in (fdir, idir):
        os.makedirs(d)
    need_ext4(idir)
    job = iob.write(os.path.join(tmp, "defrag.fio"), JOB)
    fjob = iob.write(os.path.join(tmp, "defrag-fio.fio"), JOB.replace("[global]\n", f"[global]\ndirectory={fdir}\n"))
    got = {}
    for who, d in (("fio", fdir), ("iobench", idir)):
        before = fragmented(os.path.join(d, "frag"))
        trace = os.path.join(tmp, who + ".strace")
        if who == "fio":
            p, st = traced([fio_bin(), "--output-format=json", fjob], trace)
            expect(p.returncode == 0, f"fio: exit {p.returncode}: {p.stderr[-2000:]}")
            j = json.loads(p.stdout[p.stdout.index("{"):])["jobs"][0]
            got[who] = (j["write"]["io_bytes"], j["write"]["total_ios"], j["error"])
        else:
            js = os.path.join(tmp, "iob.json")
            p, st = traced([iob.binary(A, "iobench"), "run", job, "--dir", d, "--output", "json=" + js], trace)
            expect(p.returncode == 0, f"iobench: exit {p.returncode}: {p.stderr[-2000:]}")
            r = [r for r in iob.read_json(js)["records"] if r.get("kind") == "phase"]
            expect(len(r) == 1 and r[0]["backend"] == "e4defrag" and r[0]["status"] == "ok", r)
            got[who] = (r[0]["bytes"], r[0]["ops"], 0)
            expect(r[0]["os_write_bytes"] is None, f"no write(2) carries the data: {r[0]['os_write_bytes']}")
            expect("laid out" not in p.stderr, f"the file was there, whole: no layout ({p.stderr})")
        if st:
            print(f"{who}: strace counts {moves(trace)} EXT4_IOC_MOVE_EXT")
            expect(moves(trace) == got[who][1], f"{who}: {moves(trace)} moves traced, {got[who][1]} I/Os counted")
        defragged(who, os.path.join(d, "frag"), os.path.join(d, "frag.donor"), before, got[who][0])
        expect(sorted(os.listdir(d)) == ["frag", "frag.donor"], f"{who} left {os.listdir(d)}")
    print(f"fio {got['fio']}, iobench {got['iobench']} (bytes, I/Os, error)")
    expect(got["fio"] == got["iobench"] == (MiB, 16, 0), got)


# ---- the backend from an INI profile ---------------------------------------------------------------

def case_ini(tmp):
    """backend = e4defrag in a profile: the record's bytes are the blocks FIEMAP shows moved into the
    donor, the contents unchanged; the donor is kept, marked user.iobench, and a second run reuses it;
    inplace=1 (random 64 KiB moves over a contiguous file): 16 moves of 1 MiB, the contents the same,
    the donor left empty."""
    d = os.path.join(tmp, "data")
    os.makedirs(d)
    need_ext4(d)
    path, donor = os.path.join(d, "f"), os.path.join(d, "don")
    before = fragmented(path)
    prof = iob.write(os.path.join(tmp, "p.ini"),
                     f"[d]\ndir = {d}\nfilename = f\nbackend = e4defrag\nbackend_options = donorname=don\n"
                     "phases = write\nsize = 1M\nblock_size = 64K\n")
    js = os.path.join(tmp, "p.json")
    iobench("run", prof, "--output", "json=" + js, rc=0)
    r = [r for r in iob.read_json(js)["records"] if r.get("kind") == "phase"]
    expect([(x["bytes"], x["ops"], x["status"]) for x in r] == [(MiB, 16, "ok")], r)
    defragged("ini", path, donor, before, r[0]["bytes"])
    expect(os.getxattr(donor, "user.iobench") == b"e4defrag donor", "the donor is not marked")
    expect(os.stat(donor).st_size == MiB, f"donor: {os.stat(donor)}")
    # again: the donor is ours, so it is used; the file stays whole and the same
    before = (sha256(path), fiemap(path))
    iobench("run", prof, "--output", "json=" + js, rc=0)
    r = [r for r in iob.read_json(js)["records"] if r.get("kind") == "phase"]
    expect([(x["bytes"], x["ops"]) for x in r] == [(MiB, 16)], r)
    expect(sha256(path) == before[0] and extent_count(fiemap(path)) <= 2, "second run")
    # inplace=1, random: each move allocates the donor's blocks for its range and frees them after
    prof = iob.write(os.path.join(tmp, "p.ini"),
                     f"[d]\ndir = {d}\nfilename = f\nbackend = e4defrag\nbackend_options = donorname=don,inplace=1\n"
                     "phases = write\naccess = random\nsize = 1M\nblock_size = 64K\n")
    sha, old = sha256(path), blocks(fiemap(path))
    iobench("run", prof, "--output", "json=" + js, rc=0)
    r = [r for r in iob.read_json(js)["records"] if r.get("kind") == "phase"]
    new = blocks(fiemap(path))
    print(f"inplace=1: {r[0]['ops']} moves of {r[0]['bytes']} bytes; {len(old - new)} blocks moved; "
          f"{extent_count(fiemap(path))} extents after; donor {os.stat(donor).st_size} bytes")
    expect([(x["bytes"], x["ops"]) for x in r] == [(MiB, 16)], r)
    # (the blocks a move frees may be the next move's fresh ones: which blocks changed proves nothing here)
    expect(sha256(path) == sha, "inplace=1: the file's contents changed")
    expect(os.stat(donor).st_size == 0 and fiemap(donor) == [], "inplace=1: the donor keeps blocks")
    expect(sorted(os.listdir(d)) == ["don", "f"], os.listdir(d))


def case_verify_beside(tmp):
    """e4defrag.fio's shape, in a job file of our own: an e4defrag job and a libaio randrw job with
    verify=md5 (numjobs=2) on one file at once.  Accepted (e4defrag leaves the bytes as they were); each
    stream verifies exactly the blocks its mixed phase wrote, none bad, the e4defrag job moves its
    bytes.  Beside a writer of other bytes (buffer_pattern) the same verify job is refused, in one line,
    nothing created."""
    d = os.path.join(tmp, "data")
    os.makedirs(d)
    need_ext4(d)
    job = ("[global]\ndirectory={d}\nfilename=f\nsize=2M\nbs=64k\n"
           "[lay]\nrw=write\n"
           "[defrag]\nstonewall\nioengine=e4defrag\ndonorname=f.def\ninplace=1\nrw=randwrite\n"
           "[mix]\nioengine=libaio\ndirect=1\niodepth=8\nrw=randrw\nverify=md5\nnumjobs=2\n{extra}")
    path = iob.write(os.path.join(tmp, "v.fio"), job.format(d=d, extra=""))
    iobench("check", path, rc=0)
    expect(os.listdir(d) == [], f"check created {os.listdir(d)}")
    js = os.path.join(tmp, "v.json")
    iobench("run", path, "--output", "json=" + js, rc=0)
    recs = iob.read_json(js)["records"]
    st = [r for r in recs if r.get("kind") == "stream" and r["job"] == "mix"]
    w = {r["stream"]: r["ops_written"] for r in st if r["phase"] == "mixed"}
    v = {r["stream"]: (r["ops"], r["status"], r.get("verify_bad_blocks", 0)) for r in st if r["phase"] == "verify"}
    expect(len(w) == 2 and v == {k: (n, "ok", 0) for k, n in w.items()}, f"mixed writes {w}, verify {v}")
    dj = [r for r in recs if r.get("kind") == "phase" and r["job"] == "defrag"]
    expect(len(dj) == 1 and dj[0]["bytes"] == 2 * MiB and dj[0]["status"] == "ok", dj)
    print(f"e4defrag beside randrw + verify: streams wrote {w}, verified each, none bad; e4defrag moved "
          f"{dj[0]['bytes']} bytes")
    empty = os.path.join(tmp, "empty")
    os.makedirs(empty)
    other = iob.write(os.path.join(tmp, "o.fio"), job.format(d=empty, extra="") +
                      "[other]\nrw=randwrite\nbuffer_pattern=0xff\n")
    p = iobench("check", other)
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    expect(p.returncode == 2 and len(lines) == 1 and "both use the data file" in lines[0], f"{p.returncode}: {lines}")
    expect(os.listdir(empty) == [], f"created {os.listdir(empty)}")


# ---- bad values -------------------------------------------------------------------------------------

def case_refused(tmp):
    """Bad values refused in one line, exit 2, nothing created or changed: inplace=2, a donorname with a
    slash, a donor that is a link or a file iobench did not make, no donorname (INI profiles and fio job
    files), truncate = true, donorname in a job of another engine, a read with e4defrag; and a directory
    on tmpfs, named in the line (/dev/shm, where it is a tmpfs)."""
    d = os.path.join(tmp, "data")
    os.makedirs(d)
    ext4 = fs_type(d) == "ext4"
    if ext4:
        with open(os.path.join(d, "f"), "wb") as f:
            f.write(os.urandom(256 << 10))
        os.symlink("f", os.path.join(d, "link"))
        with open(os.path.join(d, "mine"), "wb") as f:
            f.write(b"not a donor")
    snap = iob.snapshot(d)
    sums = {n: sha256(os.path.join(d, n)) for n in os.listdir(d) if not os.path.islink(os.path.join(d, n))}
    prof = os.path.join(tmp, "p.ini")
    ini = [("donorname=x,inplace=2", "inplace=2"), ("donorname=a/b", "donorname=a/b"),
           ("inplace=0", "needs backend option donorname")]
    if ext4:  # looked at on ext4 only (elsewhere the file system is refused first)
        ini += [("donorname=link", "is a symbolic link"), ("donorname=mine", "is not a donor iobench made"),
                ("donorname=f", "names the job's own file"),
                ("donorname=x\ntruncate = true", "truncating it first would leave no blocks")]
    for opts, want in ini:
        iob.write(prof, f"[a]\ndir = {d}\nfilename = f\nbackend = e4defrag\nbackend_options = {opts}\n"
                        "phases = write\nsize = 256K\n")
        for verb in ("check", "run"):
            iob.refusal(iobench(verb, prof), want, f"INI {verb} {opts}")
            expect(iob.snapshot(d) == snap, f"INI {opts}: {verb} changed {d}")
    job = os.path.join(tmp, "j.fio")
    head = f"[global]\ndirectory={d}\nfilename=f\nsize=256k\n"
    fio = [("ioengine=e4defrag\ndonorname=x\ninplace=2\nrw=write\n", "inplace=2"),
           ("ioengine=e4defrag\ndonorname=a/b\nrw=write\n", "donorname=a/b"),
           ("ioengine=e4defrag\nrw=write\n", "needs donorname="),
           ("ioengine=e4defrag\ndonorname=x\nrw=read\n", "does writes only"),
           ("ioengine=psync\ndonorname=x\nrw=write\n", "is an option of ioengine=e4defrag")]
    if ext4:
        fio += [("ioengine=e4defrag\ndonorname=mine\nrw=write\n", "is not a donor iobench made")]
    for text, want in fio:
        iob.write(job, head + "[j]\n" + text)
        for verb in ("check", "run"):
            iob.refusal(iobench(verb, job), want, f"fio {verb} {text!r}")
            expect(iob.snapshot(d) == snap, f"fio {text!r}: {verb} changed {d}")
    # an e4defrag [global] lends its keys to a job of another engine, as in fio
    iob.write(job, head + "ioengine=e4defrag\ndonorname=x\ninplace=1\n[j]\nioengine=psync\nrw=write\n")
    p = iobench("check", job)
    expect(p.returncode == 0, f"inherited donorname: exit {p.returncode}: {p.stderr}")
    expect(iob.snapshot(d) == snap and all(sha256(os.path.join(d, n)) == s for n, s in sums.items()),
           "a file changed")
    shm = "/dev/shm"
    if fs_type(shm) == "tmpfs" and os.access(shm, os.W_OK):
        with iob.scratch(shm, "e4defrag-") as s:
            iob.write(prof, f"[a]\ndir = {s}\nbackend = e4defrag\nbackend_options = donorname=x\n"
                            "phases = write\nsize = 256K\n")
            iob.refusal(iobench("run", prof), ("is on tmpfs, not ext4",), "tmpfs")
            expect(os.listdir(s) == [], f"tmpfs: created {os.listdir(s)}")
    else:
        print(f"note: {shm} is not a writable tmpfs here: the tmpfs refusal is left to CI's tmpfs leg")


if __name__ == "__main__":
    A = iob.arguments("--bin", "--work", case=True)
    sys.exit(iob.run_case(A, globals(), "e4defrag-"))
