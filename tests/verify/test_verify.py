#!/usr/bin/env python3
"""Verify headers (docs/profiles.md, "Verify"; docs/fio.md): a block changed,
a block at the wrong place, a block from an older write, each caught with its
own reason; verify_fatal and verify_dump; bad values refused; fio's
basic-verify.fio run by fio and by iobench unchanged but for --set.

usage: test_verify.py --bin DIR --src DIR --work DIR [--fio FIO] CASE"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import iobtest as iob  # noqa: E402
from iobtest import SKIP, expect  # noqa: E402
from odirect import direct_refused  # noqa: E402

ARGS = None
BS = 4096
SIZE = 256 * 1024
KINDS = ["crc32c", "crc64", "md5", "sha256", "xxhash", "meta"]



def fio_binary(skip_why=None):
    """fio as --fio names it or as PATH finds it, when it can be run; else
    None, or with skip_why the case is skipped saying that fio is missing
    and why that skips it."""
    fio = ARGS.fio or shutil.which("fio")
    if fio and os.access(fio, os.X_OK):
        return fio
    if skip_why:
        raise iob.Skip("fio is not installed: " + skip_why)
    return None

def iobench(*argv, rc=None):
    return iob.tool(ARGS, "iobench", *argv, rc=rc, timeout=None)


def profile(d, kind, extra=""):
    return iob.write(os.path.join(d, f"v-{kind}.ini"),
                     f"[v]\ndir = {d}\nfilename = f.dat\nsize = {SIZE}\nblock_size = {BS}\nphases = write,verify\n"
                     f"verify = {kind}\nkeep_files = true\nfsync = true\n{extra}")


def data(d):
    return os.path.join(d, "f.dat")


def patch(d, off, b):
    with open(data(d), "r+b") as f:
        f.seek(off)
        f.write(b)


def block(d, i):
    with open(data(d), "rb") as f:
        f.seek(i * BS)
        return f.read(BS)


def verify_only(prof, *extra, rc):
    return iobench("run", prof, "--set", "phases=verify", "--output", "human=-", *extra, rc=rc)


def crc_reflected(data, poly, width):
    """A reflected CRC with all-ones init and xorout (CRC-32C: 0x82F63B78, 32; crc64 Jones: 0x95AC9329AC4BC9B5, 64)"""
    mask = (1 << width) - 1
    crc = mask
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (poly if crc & 1 else 0)
    return crc ^ mask


def own_sum(kind, blk):
    """The checksum the header should hold, computed here (None: no way to compute it in Python: xxhash)."""
    import hashlib
    body = blk[:32] + blk[64:]
    if kind == "crc32c":
        return crc_reflected(body, 0x82F63B78, 32).to_bytes(4, "little")
    if kind == "crc64":
        return crc_reflected(body, 0x95AC9329AC4BC9B5, 64).to_bytes(8, "little")
    if kind in ("md5", "sha256"):
        return hashlib.new(kind, body).digest()
    return None


def case_checksum(d):
    """A byte changed in the data part of a block: a checksum error (meta: the bytes)."""
    for kind in KINDS:
        prof = profile(d, kind)
        iobench("run", prof, rc=0)
        blk = block(d, 2)
        expect(blk[:4] == b"iobV", f"{kind}: no header at the start of block 2: {blk[:8].hex()}")
        expect(int.from_bytes(blk[8:12], "little") == BS and int.from_bytes(blk[16:24], "little") == 2 * BS and
               int.from_bytes(blk[24:32], "little") == 1, f"{kind}: header {blk[:32].hex()}")
        want = own_sum(kind, blk)
        if want is not None:  # the documented checksum, computed independently
            expect(blk[32:32 + len(want)] == want and not any(blk[32 + len(want):64]),
                   f"{kind}: header holds {blk[32:64].hex()}, Python computes {want.hex()}")
        verify_only(prof, rc=0)
        off = 5 * BS + 1000
        old = block(d, 5)[1000]
        patch(d, off, bytes([old ^ 0x5a]))
        p = verify_only(prof, rc=3)
        err = p.stderr
        expect(f"first bad byte at offset {off} of {data(d)}: expected 0x{old:02x}, found 0x{old ^ 0x5a:02x}" in err,
               f"{kind}: the report does not name offset, expected and found:\n{err}")
        if kind != "meta":
            expect(f"{kind} checksum error in the block at offset {5 * BS}" in err, f"{kind}: no checksum error:\n{err}")
        expect("1 bad block(s)" in err, f"{kind}: not one bad block:\n{err}")
        os.unlink(data(d))
        print(f"{kind}: a changed byte caught")


def case_offset(d):
    """Two whole blocks swapped: each is self-consistent, its header names another place."""
    for kind in ("crc32c", "meta"):
        prof = profile(d, kind)
        iobench("run", prof, rc=0)
        a, b = block(d, 3), block(d, 7)
        patch(d, 3 * BS, b)
        patch(d, 7 * BS, a)
        err = verify_only(prof, rc=3).stderr
        expect(f"header offset error: the block at offset {3 * BS} was written for offset {7 * BS}" in err,
               f"{kind}: swapped blocks not named:\n{err}")
        expect("2 bad block(s)" in err, f"{kind}: not two bad blocks:\n{err}")
        os.unlink(data(d))
        print(f"{kind}: swapped blocks caught")


def case_sequence(d):
    """A block left from an earlier write (generation 1) in a file written again as generation 2."""
    prof = profile(d, "xxhash")
    iobench("run", prof, "--set", "verify_generation=1", rc=0)
    stale = block(d, 9)
    iobench("run", prof, "--set", "verify_generation=2", rc=0)
    verify_only(prof, "--set", "verify_generation=2", rc=0)
    patch(d, 9 * BS, stale)
    err = verify_only(prof, "--set", "verify_generation=2", rc=3).stderr
    expect(f"sequence error: the block at offset {9 * BS} is of generation 1, expected 2" in err,
           f"stale block not named:\n{err}")
    # the old generation verifies only where it still is
    err = verify_only(prof, "--set", "verify_generation=1", rc=3).stderr
    expect("is of generation 2, expected 1" in err, err)
    print("a stale block caught")


def case_fatal_dump(d):
    """verify_fatal stops at the first bad block; verify_dump writes it as expected and as found."""
    prof = profile(d, "sha256", "verify_dump = true\n")
    iobench("run", prof, rc=0)
    good = block(d, 4)
    patch(d, 4 * BS + 100, b"\x00\x01")
    patch(d, 40 * BS + 100, b"\x00\x01")
    out = os.path.join(d, "o.json")
    iobench("run", prof, "--set", "phases=verify", "--output", f"json={out}", rc=3)
    with open(out) as f:
        rec = [r for r in json.load(f)["records"] if r.get("kind") == "phase"][0]
    expect(rec["ops"] == SIZE // BS, f"without verify_fatal every block is read: {rec['ops']}")
    os.unlink(out)
    for ext in ("expected", "received"):
        os.unlink(f"{data(d)}.{4 * BS}.{ext}")
    iobench("run", prof, "--set", "phases=verify", "--set", "verify_fatal=true", "--output", f"json={out}", rc=3)
    with open(out) as f:
        rec = [r for r in json.load(f)["records"] if r.get("kind") == "phase"][0]
    expect(rec["ops"] == 5, f"verify_fatal: the phase read {rec['ops']} blocks, not 5 (stops at block 4)")
    expect(rec["status"] == "mismatch", rec["status"])
    with open(f"{data(d)}.{4 * BS}.expected", "rb") as f:
        expect(f.read() == good, "the expected dump is not the block as written")
    with open(f"{data(d)}.{4 * BS}.received", "rb") as f:
        expect(f.read() == block(d, 4), "the received dump is not the block as found")
    print("verify_fatal stops at block 4; dumps hold the written and the found block")


def case_bad_values(d):
    """Every new key refuses a bad value in one line, exit 2, nothing created."""
    bad = [("verify", "crc33"), ("verify", ""), ("verify_interval", "32"), ("verify_interval", "3000"),
           ("verify_interval", "lots"), ("verify_generation", "-1"), ("verify_fatal", "maybe"),
           ("verify_dump", "2"), ("pattern", "hex:abc"), ("pattern", "hex:" + "aa" * 33),
           ("compress_percentage", "101"), ("compress_percentage", "x"), ("dedupe_percentage", "200"),
           ("compress_chunk", "8K"), ("compress_chunk", "0")]
    for key, val in bad:
        sub = tempfile.mkdtemp(dir=d)
        prof = profile(sub, "crc32c", "compress_percentage = 50\n" if key != "compress_percentage" else "")
        p = iobench("run", prof, "--set", f"{key}={val}")
        lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
        expect(p.returncode == 2, f"{key}={val!r}: exit {p.returncode}\n{p.stderr}")
        expect(len(lines) == 1, f"{key}={val!r}: {len(lines)} lines:\n{p.stderr}")
        expect(sorted(os.listdir(sub)) == ["v-crc32c.ini"], f"{key}={val!r}: created {os.listdir(sub)}")
    # fio job files: the fio keys
    fbad = [("verify", "crc7"), ("verify", "pattern"), ("verify_pattern", "zz"), ("verify_interval", "100"),
            ("do_verify", "2"), ("verify_dump", "x"), ("verify_backlog", "-3"), ("buffer_pattern", "0xzz"),
            ("buffer_compress_percentage", "101"), ("buffer_compress_chunk", "8k"), ("dedupe_percentage", "-1"),
            ("refill_buffers", "2"), ("scramble_buffers", "yes-ish"), ("verify_async", "-1"),
            ("verify_async", "two"), ("error_dump", "2")]
    for key, val in fbad:
        sub = tempfile.mkdtemp(dir=d)
        job = os.path.join(sub, "j.fio")
        with open(job, "w") as f:
            f.write(f"[j]\nrw=write\nbs=4k\nsize=64k\nverify=crc32c\n{key}={val}\n")
        p = iobench("run", job, "--dir", sub)
        lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
        expect(p.returncode == 2 and len(lines) == 1 and key in p.stderr,
               f"fio {key}={val}: exit {p.returncode}:\n{p.stderr}")
        expect(os.listdir(sub) == ["j.fio"], f"fio {key}={val}: created {os.listdir(sub)}")
    # a mixed phase's writes are kept for the verify after it: their number
    # must be known before the run; and a mixed phase opens an existing file
    shapes = [("phases=write,mixed,verify", "time_based=true", "runtime=1s", "the job runs for a time"),
              ("phases=mixed", "", "", "a mixed phase reads and writes an existing file")]
    for sets in shapes:
        sub = tempfile.mkdtemp(dir=d)
        prof = profile(sub, "crc32c")
        p = iobench("run", prof, *[a for s_ in sets[:3] if s_ for a in ("--set", s_)])
        lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
        expect(p.returncode == 2 and len(lines) == 1 and sets[3] in p.stderr,
               f"{sets[:3]}: exit {p.returncode}:\n{p.stderr}")
        expect(sorted(os.listdir(sub)) == ["v-crc32c.ini"], f"{sets[:3]}: created {os.listdir(sub)}")
    print(f"{len(bad)} INI, {len(shapes)} shapes and {len(fbad)} fio bad values refused")


def fio_totals(doc):
    t = {"read_bytes": 0, "write_bytes": 0, "read_ios": 0, "write_ios": 0}
    for j in doc["jobs"]:
        for dd in ("read", "write"):
            t[dd + "_bytes"] += j[dd]["io_bytes"]
            t[dd + "_ios"] += j[dd]["total_ios"]
    return t


def iob_totals(doc):
    t = {"read_bytes": 0, "write_bytes": 0, "read_ios": 0, "write_ios": 0}
    for r in doc["records"]:
        if r.get("kind") != "phase":
            continue
        dd = "write" if r["phase"] == "write" else "read"
        t[dd + "_bytes"] += r["bytes"]
        t[dd + "_ios"] += r["ops"]
    return t


def example(name):
    d = os.environ.get("IOB_FIO_EXAMPLES") or os.path.join(ARGS.src, "..", "shared", "reference", "fio-examples")
    path = os.path.join(os.path.realpath(d), name)
    return path if os.path.isfile(path) else None


def case_fio_basic(d):
    """basic-verify.fio: iobench runs it unchanged (--set size, filename); fio runs it with the same values;
    both verify, with the same bytes and I/O counts; `iobench check` accepts it."""
    src = example("basic-verify.fio")
    if not src:
        print("basic-verify.fio is not there (../shared/reference/fio-examples or IOB_FIO_EXAMPLES)")
        return SKIP
    sets = [("size", "4m"), ("filename", os.path.join(d, "iob.dat")), ("direct", "0")]
    out = os.path.join(d, "iob.json")
    argv = ["run", src, "--output", f"json={out}"] + [a for k, v in sets for a in ("--set", f"{k}={v}")]
    iobench(*argv, rc=0)
    with open(out) as f:
        i = iob_totals(json.load(f))
    expect(i == {"read_bytes": 4 << 20, "write_bytes": 4 << 20, "read_ios": 1024, "write_ios": 1024}, i)
    iobench("check", src, *[a for k, v in sets for a in ("--set", f"{k}={v}")], rc=0)
    fio = fio_binary("iobench ran basic-verify.fio; nothing to compare with")
    copy = os.path.join(d, "basic-verify.fio")
    with open(src) as f, open(copy, "w") as g:
        # fio adds a second filename= to the first (two files), so the line is replaced, never appended
        text = "".join(ln for ln in f if not ln.strip().startswith(("filename", "direct", "size")))
        g.write(text + f"size=4m\nfilename={os.path.join(d, 'fio.dat')}\ndirect=0\n")
    expect("/dev/" not in open(copy).read().replace("# Use /dev/XXX", ""), "a device left in the copy")
    fout = os.path.join(d, "fio.json")
    p = subprocess.run([fio, "--output-format=json", "--output=" + fout, copy], capture_output=True, text=True,
                       cwd=d)
    expect(p.returncode == 0, f"fio: exit {p.returncode}\n{p.stderr}")
    expect(os.path.getsize(os.path.join(d, "fio.dat")) == 4 << 20, "fio did not write its one file whole")
    with open(fout) as f:
        fi = fio_totals(json.load(f))
    print(f"fio     {fi}\niobench {i}")
    expect(fi == i, f"fio and iobench differ: fio {fi}, iobench {i}")
    return 0


def case_fio_mismatch(d):
    """A fio job that reads and verifies a file whose block was changed: iobench exits 3 and stops at the
    first bad block (fio's way: fio 3.33 ends the job with EILSEQ and exits 1)."""
    w = os.path.join(d, "w.fio")
    with open(w, "w") as f:
        f.write(f"[w]\nrw=write\nbs=4k\nsize=256k\nverify=crc32c\ndo_verify=0\nfilename={d}/m.dat\n")
    r = os.path.join(d, "r.fio")
    with open(r, "w") as f:
        f.write(f"[r]\nrw=read\nbs=4k\nsize=256k\nverify=crc32c\nverify_dump=1\nfilename={d}/m.dat\n")
    iobench("run", w, rc=0)
    iobench("run", r, rc=0)
    with open(os.path.join(d, "m.dat"), "r+b") as f:
        f.seek(8192 + 77)
        f.write(b"\xee")
    out = os.path.join(d, "r.json")
    p = iobench("run", r, "--output", f"json={out}", rc=3)
    expect("crc32c checksum error in the block at offset 8192" in p.stderr, p.stderr)
    with open(out) as f:
        rec = [x for x in json.load(f)["records"] if x.get("kind") == "phase"][0]
    expect(rec["ops"] == 3 and rec["phase"] == "verify", f"stops at the third block: {rec['ops']} {rec['phase']}")
    expect(os.path.isfile(os.path.join(d, "m.dat.8192.received")), os.listdir(d))
    fio = fio_binary()
    if fio:
        # fio on a file of its own, corrupted the same way: non-zero too
        fw = os.path.join(d, "fw.fio")
        with open(fw, "w") as f:
            f.write(f"[w]\nrw=write\nbs=4k\nsize=256k\nverify=crc32c\ndo_verify=0\nfilename={d}/fio.dat\n"
                    f"[r]\nstonewall\nrw=read\nbs=4k\nsize=256k\nverify=crc32c\nfilename={d}/fio.dat\n")
        p = subprocess.run([fio, "--output-format=terse", fw], capture_output=True, text=True, cwd=d)
        expect(p.returncode == 0, p.stderr)
        with open(os.path.join(d, "fio.dat"), "r+b") as f:
            f.seek(8192 + 77)
            f.write(b"\xee")
        fr = os.path.join(d, "fr.fio")
        with open(fr, "w") as f:
            f.write(f"[r]\nrw=read\nbs=4k\nsize=256k\nverify=crc32c\nfilename={d}/fio.dat\n")
        p = subprocess.run([fio, "--output-format=terse", fr], capture_output=True, text=True, cwd=d)
        expect(p.returncode != 0, f"fio exited 0 on a changed block:\n{p.stdout}{p.stderr}")
        print(f"fio exits {p.returncode}, iobench 3")
    return 0


def case_periodic(d):
    """A periodic pattern (text, its complement, hex of several bytes) written in order is written from one
    buffer filled once, each block from where its offset falls in the period: the file holds the same bytes
    as a paced write (rate, far above what the machine does: each block filled before it is written) of the
    same job, and a verify phase passes; block sizes that do and do not divide the period, a short last
    block."""
    for pat in ("text", "~text", "hex:0a1b2c"):
        for bs, size in (("7000", "3000000"), ("4K", "1M"), ("1M", "3M")):
            files = {}
            for how, extra in (("seq", ""), ("paced", "rate = 1000G\n")):
                name = f"p.{how}.dat"
                prof = os.path.join(d, "p.ini")
                with open(prof, "w") as f:
                    f.write(f"[p]\ndir = {d}\nfilename = {name}\nsize = {size}\nblock_size = {bs}\n"
                            f"pattern = {pat}\nphases = write,verify\nkeep_files = true\nfsync = false\n{extra}")
                iobench("run", prof, rc=0)
                with open(os.path.join(d, name), "rb") as f:
                    files[how] = f.read()
                os.unlink(os.path.join(d, name))
            want = {"3000000": 3000000, "1M": 1 << 20, "3M": 3 << 20}[size]
            expect(len(files["seq"]) == want and len(files["paced"]) == want, f"sizes {len(files['seq'])}, "
                   f"{len(files['paced'])}, want {want}")
            expect(files["seq"] == files["paced"], f"pattern {pat}, block {bs}: the in-order write differs from "
                   f"the paced one")
            expect(len(set(files["seq"][:64])) > 1, f"pattern {pat}: not a periodic pattern")


def ratios(path, bs=4096, piece=64 << 10):
    """(compressed share saved by zlib over `piece`-byte pieces, deduplicated share of bs blocks)"""
    import hashlib
    import zlib
    with open(path, "rb") as f:
        buf = f.read()
    comp = sum(len(zlib.compress(buf[i:i + piece], 6)) for i in range(0, len(buf), piece))
    blocks = [hashlib.sha256(buf[i:i + bs]).digest() for i in range(0, len(buf), bs)]
    return 100.0 * (1 - comp / len(buf)), 100.0 * (1 - len(set(blocks)) / len(blocks))


def case_content(d):
    """compress_percentage and dedupe_percentage: zlib over 64 KiB pieces and a count of distinct 4 KiB blocks
    find the shares asked, within 2 points; the same through fio's keys; the content verifies."""
    for cp, dp in ((50, 0), (0, 30), (75, 20), (25, 60)):
        prof = os.path.join(d, "c.ini")
        with open(prof, "w") as f:
            f.write(f"[c]\ndir = {d}\nfilename = c.dat\nsize = 8M\nblock_size = 4K\nphases = write,verify\n"
                    f"compress_percentage = {cp}\ndedupe_percentage = {dp}\nkeep_files = true\n")
        iobench("run", prof, rc=0)
        c, u = ratios(os.path.join(d, "c.dat"))
        print(f"asked compress {cp}% dedupe {dp}%: zlib saves {c:.2f}%, dedupe finds {u:.2f}%")
        expect(abs(u - dp) <= 2, f"dedupe {u:.2f}% for {dp}%")
        if dp == 0:
            expect(abs(c - cp) <= 2, f"compress {c:.2f}% for {cp}%")
        else:  # zlib also finds some of the repeated blocks within its 32 KiB window: more, never less
            expect(c >= cp - 2, f"compress {c:.2f}% below {cp}%")
        os.unlink(os.path.join(d, "c.dat"))
    job = os.path.join(d, "c.fio")
    with open(job, "w") as f:
        f.write(f"[c]\nrw=write\nbs=4k\nsize=8m\nfilename={d}/f.dat\nbuffer_compress_percentage=60\n"
                "buffer_compress_chunk=1k\nrefill_buffers\nscramble_buffers=1\nverify=md5\n")
    iobench("run", job, rc=0)
    c, u = ratios(os.path.join(d, "f.dat"))
    print(f"fio keys, buffer_compress_percentage=60 with verify=md5: zlib saves {c:.2f}%")
    expect(abs(c - 60) <= 2, f"compress {c:.2f}% for 60%")
    fio = fio_binary()
    if fio:
        with open(job, "w") as f:
            f.write(f"[c]\nrw=write\nbs=4k\nsize=8m\nfilename={d}/fio.dat\nbuffer_compress_percentage=60\n"
                    "buffer_compress_chunk=1k\nrefill_buffers\n")
        subprocess.run([fio, "--output-format=terse", job], capture_output=True, check=True, cwd=d)
        fc, fu = ratios(os.path.join(d, "fio.dat"))
        print(f"fio itself, buffer_compress_percentage=60: zlib saves {fc:.2f}% (not asserted)")
    return 0


def block_hashes(path, bs=4096):
    import hashlib
    with open(path, "rb") as f:
        buf = f.read()
    return [hashlib.sha256(buf[i:i + bs]).digest() for i in range(0, len(buf), bs)]


def dedupe_share(hashes):
    return 100.0 * (1 - len(set(hashes)) / len(hashes))


def case_dedupe_modes(d):
    """dedupe_mode, dedupe_working_set, dedupe_global on two 8 MiB files (2,048 blocks each), half the blocks
    copies: repeat copies one block; working_set copies about as many distinct blocks as its working set holds;
    without dedupe_global the two files share no block, with it they do (each file alone dedupes less, both
    together by the share asked, within 2 points); every run verifies; fio's dedupe-global.fio the same."""
    def run(mode, ws, glob, extra=""):
        prof = os.path.join(d, "dd.ini")
        with open(prof, "w") as f:
            for name in ("a", "b"):
                f.write(f"[{name}]\ndir = {d}\nfilename = {name}.dat\nsize = 8M\nblock_size = 4K\n"
                        f"phases = write,verify\ndedupe_percentage = 50\ndedupe_mode = {mode}\n"
                        f"dedupe_working_set = {ws}\ndedupe_global = {glob}\nkeep_files = true\n{extra}")
        iobench("run", prof, rc=0)
        ha, hb = block_hashes(os.path.join(d, "a.dat")), block_hashes(os.path.join(d, "b.dat"))
        os.unlink(os.path.join(d, "a.dat"))
        os.unlink(os.path.join(d, "b.dat"))
        return ha, hb

    def copied(h):  # distinct contents that appear more than once
        seen = {}
        for x in h:
            seen[x] = seen.get(x, 0) + 1
        return sum(1 for n in seen.values() if n > 1)

    ha, hb = run("repeat", 5, "false")
    print(f"repeat: a {dedupe_share(ha):.2f}%, copied contents {copied(ha)}")
    expect(abs(dedupe_share(ha) - 50) <= 2 and copied(ha) == 1, f"repeat: {dedupe_share(ha):.2f}%, {copied(ha)}")
    ha, hb = run("working_set", 5, "false")
    w = 2048 * 5 // 100
    print(f"working_set 5%: a {dedupe_share(ha):.2f}%, copied contents {copied(ha)} (working set {w} blocks), "
          f"shared with b {len(set(ha) & set(hb))}")
    expect(abs(dedupe_share(ha) - 50) <= 2, f"working_set: {dedupe_share(ha):.2f}%")
    expect(0.8 * w <= copied(ha) <= 1.1 * w, f"working_set: {copied(ha)} contents copied for {w}")
    expect(not set(ha) & set(hb), "working_set without dedupe_global: the files share blocks")
    expect(abs(dedupe_share(ha + hb) - 50) <= 2, f"working_set, both files: {dedupe_share(ha + hb):.2f}%")
    for extra in ("", "compress_percentage = 50\n"):
        ha, hb = run("working_set", 50, "true", extra)
        both, sa, sb = dedupe_share(ha + hb), dedupe_share(ha), dedupe_share(hb)
        print(f"dedupe_global {extra.strip() or 'alone'}: a {sa:.2f}%, b {sb:.2f}%, both {both:.2f}%, "
              f"shared {len(set(ha) & set(hb))}")
        expect(abs(both - 50) <= 2, f"dedupe_global: both files {both:.2f}% for 50%")
        expect(sa < 42 and sb < 42, f"dedupe_global: a file alone {sa:.2f}%, {sb:.2f}%: no copies across files?")
        expect(len(set(ha) & set(hb)) > 300, "dedupe_global: the files share few blocks")
    prof = os.path.join(d, "bad.ini")
    for body, says in ((("dedupe_percentage = 50\ndedupe_working_set = 101\n",) * 2, "dedupe_working_set"),
                       (("dedupe_percentage = 50\ndedupe_global = true\n",) * 2, "needs dedupe_mode = working_set"),
                       (("dedupe_percentage = 50\ndedupe_mode = working_set\ndedupe_global = true\n",
                         "dedupe_percentage = 40\ndedupe_mode = working_set\ndedupe_global = true\n"),
                        "must be those of job a")):
        with open(prof, "w") as f:
            for name, extra in zip(("a", "b"), body):
                f.write(f"[{name}]\ndir = {d}\nfilename = {name}.dat\nsize = 1M\nblock_size = 4K\n"
                        f"phases = write\n{extra}")
        p = iobench("run", prof, rc=2)
        lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
        expect(len(lines) == 1 and says in lines[0], f"bad dedupe keys: {p.stderr}")
        expect(sorted(os.listdir(d)) == ["bad.ini", "dd.ini"], f"bad dedupe keys created {os.listdir(d)}")
        print(f"refused: {lines[0]}")
    src = example("dedupe-global.fio")
    if src:  # fio's example, scaled: the same shares through fio's keys
        iobench("run", src, "--dir", d, "--set", "size=8m", rc=0)
        ha, hb = block_hashes(os.path.join(d, "a.0.0")), block_hashes(os.path.join(d, "b.0.0"))
        both = dedupe_share(ha + hb)
        print(f"dedupe-global.fio: a {dedupe_share(ha):.2f}%, b {dedupe_share(hb):.2f}%, both {both:.2f}%")
        expect(abs(both - 50) <= 2 and dedupe_share(ha) < 42, f"dedupe-global.fio: both {both:.2f}%")
        fio = ARGS.fio or shutil.which("fio")
        if fio and os.access(fio, os.X_OK):
            fd = tempfile.mkdtemp(dir=d)
            with open(src) as f:
                text = f.read().replace("size=100m", "size=8m")
            with open(os.path.join(fd, "dg.fio"), "w") as f:
                f.write(text)
            subprocess.run([fio, "--output-format=terse", "dg.fio"], capture_output=True, check=True, cwd=fd)
            fa, fb = block_hashes(os.path.join(fd, "a.0.0")), block_hashes(os.path.join(fd, "b.0.0"))
            print(f"fio itself: a {dedupe_share(fa):.2f}%, b {dedupe_share(fb):.2f}%, "
                  f"both {dedupe_share(fa + fb):.2f}% (not asserted)")
    return 0


MINE = ("verify", "verify_interval", "verify_pattern", "verify_fatal", "verify_dump", "verify_backlog", "do_verify",
        "buffer_pattern", "buffer_compress_percentage", "buffer_compress_chunk", "dedupe_percentage", "dedupe_mode",
        "dedupe_global", "dedupe_working_set_percentage",
        "refill_buffers", "scramble_buffers")


def case_examples(d):
    """fio's verify and dedupe examples through `iobench check`: basic-verify.fio is accepted; any other is
    accepted or refused in one line that names none of the keys this work maps (verify, buffer_*, dedupe_...)."""
    names = ["basic-verify.fio", "cross-stripe-verify.fio", "surface-scan.fio", "dedupe-global.fio",
             "atomic-verify.fio"]
    if not example(names[0]):
        print("fio's examples are not there (../shared/reference/fio-examples or IOB_FIO_EXAMPLES)")
        return SKIP
    for name in names:
        src = example(name)
        if not src:
            continue
        sub = tempfile.mkdtemp(dir=d)
        p = iobench("check", src, "--dir", sub, "--set", "size=4m")
        lines = [ln for ln in p.stderr.splitlines() if ln.startswith("iobench: error")]
        no_direct = direct_refused(sub)
        if name == "basic-verify.fio" and not (no_direct and "cannot bypass the buffer cache" in p.stderr):
            expect(p.returncode == 0, f"{name}: exit {p.returncode}\n{p.stderr}")
        elif name == "basic-verify.fio":  # direct=1 where there is no direct I/O (tmpfs): refused, rightly
            print(f"note: {name}: refused here, as it must be: {no_direct}")
        if p.returncode != 0:
            expect(p.returncode == 2 and len(lines) == 1, f"{name}: exit {p.returncode}\n{p.stderr}")
            named = lines[0].split("does not support: ")[-1].split(" (")[0].split(", ")
            expect(not any(k in MINE for k in named), f"{name}: refused for a key mapped here: {lines[0]}")
        expect(os.listdir(sub) == [], f"{name}: check created {os.listdir(sub)}")
        print(f"{name}: {'accepted' if p.returncode == 0 else lines[0]}")
    return 0


def case_fio_surface_scan(d):
    """surface-scan.fio (verify=meta, verify_pattern, verify_interval=512, a write job and a read job with
    do_verify): iobench with --fio-ignore fill_device,create_serialize and size=4m, fio on a copy without
    fill_device (which would fill the disk) and the same size: the same bytes and I/O counts, both verified."""
    src = example("surface-scan.fio")
    if not src:
        print("surface-scan.fio is not there")
        return SKIP
    idir, fdir = os.path.join(d, "iob"), os.path.join(d, "fio")
    os.makedirs(idir)
    os.makedirs(fdir)
    no_direct = direct_refused(idir)
    if no_direct:  # its jobs are direct=1
        print(f"SKIP: surface-scan.fio uses direct=1: {no_direct}")
        return SKIP
    out = os.path.join(d, "iob.json")
    iobench("run", src, "--dir", idir, "--set", "size=4m", "--fio-ignore", "fill_device,create_serialize",
            "--output", f"json={out}", rc=0)
    with open(out) as f:
        doc = json.load(f)
    i = iob_totals(doc)
    ph = [(r["job"], r["phase"], r["status"]) for r in doc["records"] if r.get("kind") == "phase"]
    expect(ph == [("write-phase", "write", "ok"), ("verify-phase", "verify", "ok")], ph)
    with open(os.path.join(idir, "datafile.tmp"), "rb") as f:
        head = f.read(1024)
    expect(head[:4] == b"iobV" and head[512:516] == b"iobV" and head[64:68] == bytes.fromhex("aa555aa5"),
           f"a header every 512 bytes, the pattern between: {head[:80].hex()}")
    # a changed pattern byte: the verify job alone (do_verify) catches it, and says where
    with open(os.path.join(idir, "datafile.tmp"), "r+b") as f:
        f.seek(70000)
        f.write(b"\x00")
    job = os.path.join(d, "verify-only.fio")
    with open(src) as f:
        text = f.read()
    with open(job, "w") as f:
        f.write(text[:text.index("[write-phase]")] + text[text.index("[verify-phase]"):])
    p = iobench("run", job, "--dir", idir, "--set", "size=4m", "--fio-ignore", "fill_device,create_serialize", rc=3)
    expect("first bad byte at offset 70000" in p.stderr, p.stderr)
    fio = fio_binary("nothing to compare with")
    copy = os.path.join(fdir, "surface-scan.fio")
    with open(src) as f, open(copy, "w") as g:
        for line in f:
            if line.strip().startswith("fill_device"):
                continue
            g.write(line)
            if line.strip() == "[global]":
                g.write("size=4m\n")
    fout = os.path.join(d, "fio.json")
    p = subprocess.run([fio, "--output-format=json", "--output=" + fout, copy], capture_output=True, text=True,
                       cwd=fdir)
    expect(p.returncode == 0, f"fio: exit {p.returncode}\n{p.stderr}")
    with open(fout) as f:
        fi = fio_totals(json.load(f))
    print(f"fio     {fi}\niobench {i}")
    expect(fi == i, f"fio and iobench differ: fio {fi}, iobench {i}")
    return 0


# ---------------------------------------------------------------------------
# Verify with a mixed workload (rw=randrw, rw=readwrite; INI phases = mixed,verify)

def traced_io(argv, d, tag, inject=None, env=None):
    """argv under strace -f: [(pid, call, offset, injected)] of every 4 KiB-aligned pread64/pwrite64 in
    the order strace saw them (per thread: the order issued), and the completed process.  inject: the
    Nth pwrite64 of a thread returns 4096 without writing (strace --inject); or a string, strace's -e
    inject= argument itself."""
    if not shutil.which("strace"):
        raise iob.Skip("strace is not installed: the I/O cannot be seen from outside")
    log = os.path.join(d, f"strace-{tag}.log")
    env = dict(env or os.environ)  # LeakSanitizer cannot run under ptrace
    env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":")
    cmd = ["strace", "-f", "-qq", "-s", "0", "-e", "trace=pread64,pwrite64", "-o", log]
    if inject:  # a number: a lost write; a string: strace's own injection
        cmd += ["-e", f"inject=pwrite64:retval=4096:when={inject}" if isinstance(inject, int) else inject]
    p = subprocess.run(cmd + argv, capture_output=True, text=True, cwd=d, env=env, timeout=300)
    calls = []
    with open(log) as f:
        for line in f:
            m = re.match(r'(\d+)\s+(pread64|pwrite64)\(\d+, ""\.*, (\d+), (\d+)\)\s+= (\d+)( \(INJECTED\))?', line)
            if m and int(m.group(3)) == BS:
                calls.append((int(m.group(1)), m.group(2)[1:-2], int(m.group(4)), bool(m.group(6))))
    return calls, p


def mixed_then_verify(calls):
    """Split one thread's calls, a mixed phase and a verify of as many reads as it wrote blocks: (the
    mixed phase's writes, its reads, the last calls, reads only, as many as the writes; [] if any of
    those is a write)."""
    w = [c[2] for c in calls if c[1] == "write"]
    cut = len(calls) - len(w)
    tail = calls[cut:]
    return (w, [c[2] for c in calls[:cut] if c[1] == "read"],
            [c[2] for c in tail] if all(c[1] == "read" for c in tail) else [])


def phase_recs(path):
    with open(path) as f:
        return [r for r in json.load(f)["records"] if r.get("kind") == "phase"]


def mixed_job(d, name, rw, extra=""):
    return iob.write(os.path.join(d, f"{name}.fio"),
                     f"[{name}]\nfilename={os.path.join(d, name + '.dat')}\nsize=1m\nbs=4k\nrw={rw}\n"
                     f"verify=md5\nioengine=psync\n{extra}")


def case_mixed_fio(d):
    """rw=randrw and rw=readwrite with verify, by iobench and by fio 3.33, both traced: the mixed phase
    reads and writes one pass (256 blocks of 4 KiB) and checks none of its reads; then a verify reads
    exactly the blocks it wrote, in the order it wrote them; the JSON counts agree with the trace.
    rwmixread=0 and 100 give the same counts by both tools."""
    fio = fio_binary()
    cases = [("randrw", ""), ("readwrite", "rwmixread=30\n"), ("randrw", "rwmixread=0\n"),
             ("randrw", "rwmixread=100\n")]
    for k, (rw, extra) in enumerate(cases):
        job = mixed_job(d, f"m{k}", rw, extra)
        out = os.path.join(d, f"m{k}.json")
        calls, p = traced_io([os.path.join(ARGS.bin, "iobench"), "run", job, "--output", f"json={out}"], d, f"i{k}")
        expect(p.returncode == 0, f"{rw} {extra!r}: exit {p.returncode}: {p.stderr}")
        recs = phase_recs(out)
        mixed = [r for r in recs if r["phase"] == "mixed"][0]
        ver = [r for r in recs if r["phase"] == "verify"]
        w, r, tail = mixed_then_verify(calls[-(256 + mixed["ops_written"]):])  # after the layout
        expect(mixed["ops"] == 256 and len(w) + len(r) == 256, f"{rw}: mixed {mixed['ops']}, traced {len(w)}+{len(r)}")
        expect(len(w) == mixed["ops_written"], f"{rw}: {len(w)} writes traced, the record says {mixed['ops_written']}")
        expect(tail == w, f"{rw} {extra!r}: the reads after the mixed phase are not its writes in order")
        if w:
            expect(len(ver) == 1 and ver[0]["ops"] == len(w) and ver[0]["bytes"] == len(w) * BS
                   and ver[0]["status"] == "ok", f"{rw}: verify record {ver}")
        else:
            expect(not ver or ver[0]["ops"] == 0, f"{rw} {extra!r}: nothing written, yet verified {ver}")
        line = f"{rw} {extra.strip() or 'rwmixread=50'}: iobench mixed {len(w)} writes + {len(r)} reads, " \
               f"verify {len(tail)}"
        if fio:
            fcalls, fp = traced_io([fio, "--output-format=json", job], d, f"f{k}")
            expect(fp.returncode == 0, f"fio {rw}: exit {fp.returncode}: {fp.stderr}")
            doc = json.loads(fp.stdout[fp.stdout.index("{"):])["jobs"][0]
            fw, fr, ftail = mixed_then_verify(fcalls)
            expect(len(fw) == doc["write"]["total_ios"] and len(fr) + len(ftail) == doc["read"]["total_ios"],
                   f"fio {rw}: trace {len(fw)}/{len(fr)}+{len(ftail)}, JSON {doc['write']['total_ios']}/"
                   f"{doc['read']['total_ios']}")
            expect(ftail == fw, f"fio {rw}: its verify reads are not its writes in order")
            # fio's sequential readwrite keeps a position per direction, so its pass is size bytes of
            # both; iobench's one position; random: every block once by either
            expect(len(fw) + len(fr) == 256, f"fio {rw}: {len(fw)} + {len(fr)} I/Os in its mixed phase")
            if extra in ("rwmixread=0\n", "rwmixread=100\n"):
                expect((len(fw), len(fr), len(ftail)) == (len(w), len(r), len(tail)),
                       f"{rw} {extra!r}: fio {len(fw)}/{len(fr)}/{len(ftail)}, iobench {len(w)}/{len(r)}/{len(tail)}")
            line += f"; fio {len(fw)} + {len(fr)}, verify {len(ftail)}"
        print(line)
    # verify_async: the same verify, noted; error_dump=1 where errors are passed over: noted
    job = mixed_job(d, "va", "randrw", "verify_async=4\n[k]\nstonewall\nrw=write\nsize=64k\n"
                    "continue_on_error=write\nerror_dump=1\n")
    p = iobench("check", job, rc=0)
    expect("verify_async=4: iobench checks each block in the stream that read it" in p.stdout + p.stderr and
           "error_dump=1: iobench counts the errors it passes over" in p.stdout + p.stderr, p.stdout + p.stderr)
    # time_based: fio 3.33 verifies nothing after the time ends; iobench runs no verify phase, noted
    job = mixed_job(d, "tb", "randrw", "time_based=1\nruntime=300ms\n")
    out = os.path.join(d, "tb.json")
    p = iobench("run", job, "--output", f"json={out}", rc=0)
    expect("no verify phase" in p.stderr and [r["phase"] for r in phase_recs(out)] == ["mixed"],
           f"time_based: {p.stderr}")
    return 0


def case_mixed_mismatch(d):
    """A write of the mixed phase that never reached the file (strace makes the third pwrite64 return
    4096 without writing) is caught by the verify after it: iobench names that block's offset and exits
    3, fio 3.33 names it too and exits 1.  The file holds zeros first, so the lost block has no header."""
    offs = {}
    ini = os.path.join(d, "mv.ini")
    with open(ini, "w") as f:
        f.write(f"[mk]\ndir = {d}\nfilename = z.dat\nsize = 1M\nblock_size = 4K\nphases = write\n"
                f"pattern = zero\nkeep_files = true\n")
    iobench("run", ini, rc=0)
    with open(ini, "w") as f:
        f.write(f"[mv]\ndir = {d}\nfilename = z.dat\nsize = 1M\nblock_size = 4K\naccess = rand\n"
                f"phases = mixed,verify\nrwmix_read = 50\nverify = crc32c\nkeep_files = true\n")
    out = os.path.join(d, "mv.json")
    calls, p = traced_io([os.path.join(ARGS.bin, "iobench"), "run", ini, "--output", f"json={out}"], d, "inj", 3)
    lost = [c[2] for c in calls if c[3]]
    expect(len(lost) == 1, f"strace injected {lost}")
    expect(p.returncode == 3, f"exit {p.returncode}: {p.stderr}")
    err = [ln for ln in p.stderr.splitlines() if "error:" in ln]
    expect(len(err) == 1 and f"offset {lost[0]} of" in err[0] and f"block at offset {lost[0]}" in err[0], err)
    ver = [r for r in phase_recs(out) if r["phase"] == "verify"][0]
    expect(ver["status"] == "mismatch" and ver["verify_bad_blocks"] == 1, ver)
    offs["iobench"] = lost[0]
    fio = fio_binary()
    if fio:
        with open(os.path.join(d, "fz.dat"), "wb") as f:
            f.write(bytes(1 << 20))
        job = os.path.join(d, "mv.fio")
        with open(job, "w") as f:
            f.write(f"[mv]\nfilename={os.path.join(d, 'fz.dat')}\nsize=1m\nbs=4k\nrw=randrw\nverify=crc32c\n"
                    f"ioengine=psync\n")
        fcalls, fp = traced_io([fio, "--output-format=json", job], d, "finj", 3)
        flost = [c[2] for c in fcalls if c[3]]
        expect(len(flost) == 1 and fp.returncode == 1 and f"offset {flost[0]}," in fp.stderr,
               f"fio: exit {fp.returncode}, injected {flost}: {fp.stderr}")
        offs["fio"] = flost[0]
    print(f"the lost write's block reported at {offs}; iobench exits 3" + (", fio 1" if fio else ""))
    return 0


def case_mixed_clones(d):
    """numjobs=4 on one file, rw=randrw, verify: each stream verifies the blocks it wrote (its verify ops
    are its mixed ops_written) and none is bad: another stream's rewrite of a block holds the same bytes.
    fio 3.33 reports its clones' rewrites as bad blocks ("bad header rand_seed"): printed, not asserted
    (it depends on which clone writes a block last)."""
    job = mixed_job(d, "nj", "randrw", "numjobs=4\n")
    out = os.path.join(d, "nj.json")
    iobench("run", job, "--output", f"json={out}", rc=0)
    with open(out) as f:
        st = [r for r in json.load(f)["records"] if r.get("kind") == "stream"]
    w = {r["stream"]: r["ops_written"] for r in st if r["phase"] == "mixed"}
    v = {r["stream"]: r["ops"] for r in st if r["phase"] == "verify"}
    bad = sum(r.get("verify_bad_blocks", 0) for r in st)
    expect(len(w) == 4 and w == v and bad == 0, f"writes {w}, verified {v}, bad {bad}")
    line = f"iobench: 4 streams wrote {sum(w.values())} blocks, verified each, none bad"
    fio = fio_binary()
    if fio:
        p = subprocess.run([fio, "--output-format=json", job], capture_output=True, text=True, cwd=d, timeout=300)
        line += f"; fio: exit {p.returncode}, {p.stderr.count('bad header rand_seed')} rand_seed errors"
    print(line)
    return 0


def case_mixed_reserved(d):
    """The list of a mixed phase's writes that the verify after it reads back is reserved whole before
    the clock (core/src/runner_files.c, wlog_reserve: iob_job_ios_bound's I/Os a stream) and never
    grown in the timed loop: a write past the reserved entries fails the phase.  Every shape of mixed
    phase runs with its verify ok, and the verify reads exactly the window's writes (ops_written; the
    ramp's are not logged)."""
    cases = [("rand", ""), ("rand", "ramp_time = 100ms\n"), ("rand", "ops = 700\n"),
             ("rand", "bssplit = 4k/50:16k/50\n"), ("rand", "threads = 3\nshared_file = true\n"),
             ("rand", "threads = 2\n"), ("rand", "iodepth = 8\nbackend = io_uring\nbssplit = 4k/50:16k/50\n"),
             ("seq", ""), ("seq", "loops = 2\n"), ("seq", "threads = 2\nshared_file = true\n"),
             ("seq", "rwmix_read = 0\nloops = 3\n")]
    for k, (acc, extra) in enumerate(cases):
        ini = os.path.join(d, f"r{k}.ini")
        with open(ini, "w") as f:
            f.write(f"[r{k}]\ndir = {d}\nfilename = r{k}.dat\nsize = 1M\nblock_size = 4K\naccess = {acc}\n"
                    f"phases = write,mixed,verify\nverify = crc32c\n{extra}")
        out = os.path.join(d, f"r{k}.json")
        p = iobench("run", ini, "--output", f"json={out}")
        if p.returncode != 0 and "io_uring" in extra and "io_uring" in p.stderr:
            print(f"{acc} {extra!r}: io_uring unavailable here, not run")
            continue
        expect(p.returncode == 0, f"{acc} {extra!r}: exit {p.returncode}: {p.stderr}")
        recs = phase_recs(out)
        mixed = [r for r in recs if r["phase"] == "mixed"][0]
        ver = [r for r in recs if r["phase"] == "verify"][0]
        expect(mixed["ops_written"] > 0 and ver["ops"] == mixed["ops_written"] and ver["status"] == "ok",
               f"{acc} {extra!r}: mixed wrote {mixed['ops_written']}, verify {ver['ops']} {ver['status']}")
    print(f"{len(cases)} mixed phases: each verify read exactly its phase's writes, from the list reserved before it")
    return 0


def backlog_check(calls, every, batch, pass_ios=0, passes=1):
    """fio's verify_backlog rule (its HOWTO and io_u.c's check_get_verify, written here apart from both
    tools): after a write, when the blocks written and not yet read back are a multiple of every (or a
    batch is under way), read back the oldest, one after another, until batch of them are done or none
    waits (a batch left short goes on after each later write).  Checks a thread's calls against it;
    returns (the blocks read back inside the phase, the reads after it, the writes left then) or raises
    with the first call that breaks it.  Reads that are not read-backs (a mixed phase's) are passed over
    while no batch is under way.  pass_ios: the phase is passes passes of pass_ios I/Os (fio's loops),
    and at the end of each but the last every block still waiting is read back (fio verifies after each
    loop)."""
    pending, inside, left, k, ios = [], 0, 0, 0, 0

    def read_back(what):
        nonlocal k, inside
        expect(k < len(calls) and calls[k][1] == "read" and calls[k][2] == pending[0],
               f"call {k}: {calls[k][:3] if k < len(calls) else 'the end'}, want the read-back of offset "
               f"{pending[0]} ({len(pending)} waiting, {what})")
        pending.pop(0)
        inside += 1
        k += 1
    while k < len(calls):
        _, call, off, _ = calls[k]
        k += 1
        ios += 1
        if call == "write":
            pending.append(off)
            if left == 0 and len(pending) % every == 0:
                left = batch
            while left and pending:
                read_back("a batch")
                left -= 1
        if pass_ios and ios % pass_ios == 0 and ios < pass_ios * passes:
            while pending:
                read_back(f"the end of pass {ios // pass_ios}")
    return inside, pending


def case_backlog_fio(d):
    """verify_backlog=16 (and verify_backlog_batch 4, 40) on 1 MiB of 4 KiB blocks, randwrite, write and
    randrw: iobench's reads and writes (strace, one thread) follow fio's rule exactly, the read-backs in
    the phase's record (backlog_verified_ops) and the blocks left read by the verify phase after it, in
    the order written; fio 3.33's own trace is checked against the same rule where fio is installed (the
    rule is fio's: W16 R16 sixteen times; batch 4: W16 R4, then W4 R4; batch 40: W16 R16, then W1 R1 24
    times).  With loops=2 (randrw at 8, randwrite and write at 100) every block still waiting at the first
    pass's end is read back then, by both (fio verifies after each loop): randwrite 200 + 56 a pass."""
    fio = fio_binary()
    for k, (rw, extra, every, batch) in enumerate([("randwrite", "", 16, 16), ("write", "", 16, 16),
                                                   ("randwrite", "verify_backlog_batch=4\n", 16, 4),
                                                   ("randwrite", "verify_backlog_batch=40\n", 16, 40),
                                                   ("randrw", "", 16, 16), ("randrw", "loops=2\n", 8, 8),
                                                   ("randwrite", "loops=2\n", 100, 100),
                                                   ("write", "loops=2\n", 100, 100)]):
        passes = 2 if "loops=2" in extra else 1
        job = mixed_job(d, f"b{k}", rw, f"verify_backlog={every}\n{extra}")
        out = os.path.join(d, f"b{k}.json")
        calls, p = traced_io([os.path.join(ARGS.bin, "iobench"), "run", job, "--output", f"json={out}"], d, f"ib{k}")
        expect(p.returncode == 0, f"{rw} {extra!r}: exit {p.returncode}: {p.stderr}")
        recs = phase_recs(out)
        main_rec = recs[0]
        ver = [r for r in recs if r["phase"] == "verify"]
        writes = main_rec.get("ops_written", main_rec["ops"])
        calls = calls[-(main_rec["ops"] + writes):]  # after a layout: the phase's I/Os, then its writes read back
        inside, pending = backlog_check(calls, every, batch, 256 * (passes > 1), passes)
        tail = [c[2] for c in calls[len(calls) - len(pending):]]
        expect(main_rec["backlog_verified_ops"] == inside and main_rec["backlog_left"] == len(pending) and
               main_rec["verify_backlog"] == every, f"{rw} {extra!r}: record {main_rec}, traced {inside} + {len(pending)}")
        expect(len(ver) == 1 and ver[0]["ops"] == len(pending) and tail == pending and ver[0]["status"] == "ok",
               f"{rw} {extra!r}: verify {ver}, the last reads {tail}, left {pending}")
        expect(inside + len(pending) == writes, f"{rw}: {inside} + {len(pending)} checked of {writes} written")
        line = f"{rw} verify_backlog={every} batch={batch} loops={passes}: iobench {writes} writes, {inside} read back inside, " \
               f"{len(pending)} after"
        if fio:
            fcalls, fp = traced_io([fio, "--output-format=json", job], d, f"fb{k}")
            expect(fp.returncode == 0, f"fio {rw}: exit {fp.returncode}: {fp.stderr}")
            finside, fpending = backlog_check(fcalls, every, batch, 256 * (passes > 1), passes)
            fw = sum(1 for c in fcalls if c[1] == "write")
            expect(finside + len(fpending) == fw, f"fio {rw}: {finside} + {len(fpending)} of {fw}")
            if rw != "randrw":
                expect((fw, finside, len(fpending)) == (writes, inside, len(pending)),
                       f"{rw} {extra!r}: fio {fw}/{finside}/{len(fpending)}, iobench {writes}/{inside}/{len(pending)}")
            line += f"; fio {fw} writes, {finside} inside, {len(fpending)} after"
        print(line)
    return 0


def aio_trace(argv, d, tag):
    """argv under strace -f (io_submit and io_getevents): [("S", "write"|"read", offset, aio_data)] for
    every 4 KiB iocb submitted and [("C", aio_data, ...)] for every io_getevents with the data of each
    completion, in the order the calls returned; and the completed process."""
    if not shutil.which("strace"):
        raise iob.Skip("strace is not installed: the I/O cannot be seen from outside")
    log = os.path.join(d, f"strace-{tag}.log")
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":")
    p = subprocess.run(["strace", "-f", "-qq", "-s", "64", "-e", "trace=io_submit,io_getevents", "-o", log] + argv,
                       capture_output=True, text=True, cwd=d, env=env, timeout=300)
    ev = []
    with open(log) as f:
        for line in f:
            if " io_submit(" in line:
                for m in re.finditer(r"aio_data=(\w+), aio_lio_opcode=IOCB_CMD_P(READ|WRITE),.*?aio_nbytes=(\d+), "
                                     r"aio_offset=(\d+)", line):
                    if int(m.group(3)) == BS:
                        ev.append(("S", m.group(2).lower(), int(m.group(4)), m.group(1)))
            elif " io_getevents(" in line and re.search(r"\) = [1-9]", line):
                ev.append(("C",) + tuple(re.findall(r"\{data=(\w+),", line)))
    return ev, p


def fio_io_trace(fio, job, d, tag):
    """fio runs job with --debug=io (the order of its I/Os as its loop queues and completes them, each
    naming its io_u: libaio's completions carry no aio_data of fio's, strace cannot pair them): the
    events as aio_trace gives them, one completion each, and the completed process; None when this fio
    has no debug output (built without it)."""
    p = subprocess.run([fio, "--debug=io", job], capture_output=True, text=True, cwd=d, timeout=300)
    with open(os.path.join(d, f"fio-debug-{tag}.log"), "w") as f:
        f.write(p.stdout)
    ev = []
    for m in re.finditer(r" (queue|complete): io_u (0x[0-9a-f]+): off=0x([0-9a-f]+),len=0x([0-9a-f]+),ddir=(\d)",
                         p.stdout):
        if int(m.group(4), 16) != BS or m.group(5) not in "01":
            continue
        if m.group(1) == "queue":
            ev.append(("S", "write" if m.group(5) == "1" else "read", int(m.group(3), 16), m.group(2)))
        else:
            ev.append(("C", m.group(2)))
    return (ev if ev else None), p


def aio_runs(ev):
    """The submitted I/Os as runs of one direction: "W16 R16 ..."."""
    out = []
    for e in ev:
        if e[0] == "S":
            if out and out[-1][0] == e[1]:
                out[-1][1] += 1
            else:
                out.append([e[1], 1])
    return " ".join(f"{c[0].upper()}{n}" for c, n in out)


def backlog_queued_check(ev, every, batch, ops, depth=0, pass_ios=0):
    """fio 3.33's verify_backlog rule at an iodepth above 1 (docs/fio.md, "verify_backlog."; io_u.c's
    check_get_verify and verify.c's get_next_verify, written here apart from both tools), checked I/O by I/O
    on a trace whose completions name their request (aio_data): a write is listed as it goes out; a free
    request is a read-back of the oldest listed block while a batch is under way, one starting when the
    blocks listed are a multiple of every and the last completion was not a read; a listed block whose
    write is in flight is not read back (the next I/O of the order goes); the phase ends with its ops-th
    I/O, and the I/Os after it are the verify phase's, reading what is left in order.  Each completion is
    followed by the one I/O that takes its request (fio reaps one at a time).  pass_ios: the phase is
    passes of that many I/Os (fio's loops) and, at iodepth depth, each pass but the last ends as fio's
    do_io and do_verify end a loop: read-backs by the rule while it gives one for a free request; at the
    first free request it gives none, no new I/O until none is in flight; then every block still listed
    read back in order; none new again until none is in flight; then the next pass.  Returns (read-backs
    inside, the blocks left, the verify's reads) or raises at the first I/O that breaks the rule."""
    listed, infl, sent = [], set(), {}  # listed: [offset], oldest first; infl: offsets written, not completed
    live_batch, last_read, issued, inside, after, k = 0, True, 0, 0, [], 0
    mode = "run"  # at a pass's end: "tail", "drain", "check", "redrain" (above)

    def rule():
        """The read-back fio's rule gives a free request now, or None (a batch may start, as fio's)."""
        nonlocal live_batch
        if listed:
            if not live_batch and len(listed) % every == 0 and not last_read:
                live_batch = batch
            if live_batch and listed[0] not in infl:
                return listed[0]
        return None

    def read_back(e, want, why):
        nonlocal inside
        expect(e[1] == "read" and e[2] == want, f"I/O {k}: {e[1]} at {e[2]}, want the read-back of {want} "
               f"({len(listed)} listed, {why})")
        listed.pop(0)
        inside += 1
        sent[e[3]] = ("read", e[2])

    def submit(e):
        nonlocal live_batch, issued, mode
        if issued >= ops:  # the verify phase's
            after.append(e[2])
            sent[e[3]] = ("verify", e[2])
            return
        expect(mode not in ("drain", "redrain"), f"I/O {k}: {e[1]} at {e[2]} while the pass's end drains "
               f"({len(sent)} in flight)")
        if mode == "check":
            read_back(e, listed[0], "the pass's end")
            if not listed:
                mode = "redrain"
            return
        want = rule()
        if mode == "tail":
            expect(want is not None, f"I/O {k}: {e[1]} at {e[2]} at the pass's end, where the rule gives no "
                   f"read-back ({len(listed)} listed): the queue drains first")
        if want is not None:
            read_back(e, want, "a batch")
            live_batch -= 1
            return
        issued += 1
        if e[1] == "write":
            listed.append(e[2])
            infl.add(e[2])
        sent[e[3]] = (e[1], e[2])
        if pass_ios and issued % pass_ios == 0 and issued < ops:
            mode = "tail"

    def free_request(taken):
        """A request is free (taken: the next event is an I/O): at a pass's end, when the rule gives no
        read-back, the queue drains (no I/O takes it); a read-back it gives, or one of the list after the
        drain, takes it."""
        nonlocal mode
        if mode == "tail":
            want = rule()
            if want is None:
                mode = "drain"
            else:
                expect(taken, f"event {k}: no I/O took a free request at the pass's end, where the rule gives "
                       f"the read-back of {want}")
        elif mode == "check":
            expect(taken, f"event {k}: no I/O took a free request at the pass's end, {len(listed)} blocks "
                   f"listed to read back")

    def settled():
        nonlocal mode
        if mode == "drain" and not sent:
            mode = "check" if listed else "run"
        elif mode == "redrain" and not sent:
            mode = "run"
    while k < len(ev):
        e = ev[k]
        k += 1
        if e[0] == "S":
            submit(e)
            continue
        if len(sent) < depth and issued < ops:  # a free request before this completion, and no I/O took it
            free_request(False)
        for data in e[1:]:
            kind, off = sent.pop(data)
            last_read = kind == "read"
            infl.discard(off) if kind == "write" else None
            taken = k < len(ev) and ev[k][0] == "S"
            if issued < ops:
                free_request(taken)
            settled()
            if taken and issued < ops and mode not in ("drain", "redrain"):  # the I/O that takes its request
                submit(ev[k])
                k += 1
    expect(mode == "run", f"the trace ends at a pass's end ({mode})")
    return inside, listed, after


def queued_job(d, name, rw, depth, extra):
    """iobench runs a fio job of 256 KiB in 4 KiB blocks, verify=crc32c, verify_backlog=16 and extra, on
    libaio with direct=1 at iodepth depth, under aio_trace; exit 0 expected: (the job file, the trace, the
    write or mixed phase's record, the verify records, its writes)."""
    job = iob.write(os.path.join(d, f"{name}.fio"),
                    f"[{name}]\nfilename={os.path.join(d, name + '.dat')}\nsize=256k\nbs=4k\nrw={rw}\nverify=crc32c\n"
                    f"verify_backlog=16\n{extra}ioengine=libaio\ndirect=1\niodepth={depth}\n")
    out = os.path.join(d, f"{name}.json")
    ev, p = aio_trace([os.path.join(ARGS.bin, "iobench"), "run", job, "--output", f"json={out}"], d, f"i{name}")
    expect(p.returncode == 0, f"{rw} iodepth={depth} {extra!r}: exit {p.returncode}: {p.stderr}")
    recs = phase_recs(out)
    main_rec = recs[0]
    return job, ev, main_rec, [r for r in recs if r["phase"] == "verify"], main_rec.get("ops_written", main_rec["ops"])


def case_backlog_queued(d):
    """verify_backlog at an iodepth above 1 (libaio, direct=1; 256 KiB of 4 KiB blocks, verify_backlog=16):
    iobench's queued loop follows fio 3.33's rule I/O by I/O (backlog_queued_check on its strace, each
    completion named by its aio_data), its record's backlog_verified_ops and backlog_left those of the
    trace, the verify phase reading the rest in order.  fio 3.33's own trace: the same writes, every block
    read back once in the order written; its runs are printed, not compared: which I/O comes when depends
    on when the device completes them, for both tools (at iodepth 8 with the batch whole both give W16 R16
    four times on a quiet machine; under load a block's write is at times still in flight when its
    read-back is due, and fio's runs vary as iobench's do).  io_uring (strace cannot see its I/Os): the
    same counts by the record and by fio's JSON."""
    fio = fio_binary()
    why = direct_refused(d)
    if why:
        raise iob.Skip(f"direct I/O is needed for libaio to keep I/Os in flight: {why}")
    cases = [("randwrite", 8, ""), ("write", 8, ""), ("randwrite", 32, ""), ("randwrite", 8, "verify_backlog_batch=4\n"),
             ("randwrite", 8, "verify_backlog_batch=40\n"), ("randrw", 8, "")]
    for k, (rw, depth, extra) in enumerate(cases):
        batch = int(extra.split("=")[1]) if extra else 16
        job, ev, main_rec, ver, writes = queued_job(d, f"q{k}", rw, depth, extra)
        inside, left, after = backlog_queued_check(ev, 16, batch, main_rec["ops"])
        expect(main_rec["backlog_verified_ops"] == inside and main_rec["backlog_left"] == len(left) and
               inside + len(left) == writes, f"{rw} {extra!r}: record {main_rec}, traced {inside} + {len(left)}")
        expect(len(ver) == 1 and ver[0]["ops"] == len(left) and ver[0]["status"] == "ok" and after == left,
               f"{rw} {extra!r}: verify {ver}, read {after}, left {left}")
        runs = aio_runs(ev)
        line = f"{rw} iodepth={depth} batch={batch}: iobench {writes} writes, {inside} read back inside, " \
               f"{len(left)} after: {runs}"
        if fio:
            fev, fp = aio_trace([fio, "--output-format=json", job], d, f"fq{k}")
            expect(fp.returncode == 0, f"fio {rw}: exit {fp.returncode}: {fp.stderr}")
            fw = [e[2] for e in fev if e[0] == "S" and e[1] == "write"]
            ir = [e[2] for e in ev if e[0] == "S" and e[1] == "read"]
            fr = [e[2] for e in fev if e[0] == "S" and e[1] == "read"]
            if rw != "randrw":
                expect(fr == fw and len(fw) == writes, f"fio {rw}: {len(fw)} writes, its reads not those in order")
                expect(ir == [e[2] for e in ev if e[0] == "S" and e[1] == "write"], f"{rw}: iobench's reads")
            line += f"; fio {len(fw)} writes: {aio_runs(fev)}"
        print(line)
    # io_uring: its I/Os are out of strace's sight; the counts
    job = iob.write(os.path.join(d, "qu.fio"), f"[qu]\nfilename={os.path.join(d, 'qu.dat')}\nsize=256k\nbs=4k\n"
                    f"rw=randwrite\nverify=crc32c\nverify_backlog=16\nioengine=io_uring\ndirect=1\niodepth=8\n")
    out = os.path.join(d, "qu.json")
    p = iobench("run", job, "--output", f"json={out}")
    if p.returncode != 0 and "io_uring" in p.stderr:
        print(f"io_uring unavailable here, not run: {p.stderr.strip()}")
        return 0
    expect(p.returncode == 0, f"io_uring: exit {p.returncode}: {p.stderr}")
    w, v = phase_recs(out)
    expect(w["ops"] == 64 and w["backlog_verified_ops"] + w["backlog_left"] == 64 and
           v["ops"] == w["backlog_left"] and v["status"] == "ok" and w["status"] == "ok",
           f"io_uring: write {w['ops']} ops, {w['backlog_verified_ops']} read back, {w['backlog_left']} left, "
           f"{w['status']}; verify {v['ops']} {v['status']}")
    line = f"io_uring iodepth=8: iobench 64 writes, {w['backlog_verified_ops']} read back inside, {v['ops']} after"
    if fio:
        fp = subprocess.run([fio, "--output-format=json", job], capture_output=True, text=True, cwd=d, timeout=300)
        doc = json.loads(fp.stdout[fp.stdout.index("{"):])["jobs"][0]
        expect(fp.returncode == 0 and doc["write"]["total_ios"] == 64 and doc["read"]["total_ios"] == 64,
               f"fio io_uring: exit {fp.returncode}, {doc['write']['total_ios']} writes, {doc['read']['total_ios']} reads")
        line += "; fio 64 writes, 64 reads"
    print(line)
    return 0


def case_backlog_queued_loops(d):
    """verify_backlog=16 with loops=2 at an iodepth above 1 (libaio, direct=1; 256 KiB of 4 KiB blocks:
    write and randwrite at iodepth 8 and 32, randrw at 8 and 32): each pass but the last ends as fio 3.33
    ends a loop (backlog_queued_check with pass_ios: read-backs by the rule while it gives one, then the
    queue drained, every block still listed read back in order, drained again, then the next pass), I/O
    by I/O on iobench's strace and on fio's own order of queued and completed I/Os (--debug=io); the
    record's backlog_verified_ops and backlog_left are the trace's, the verify phase reads the last pass's
    rest in order.  The write jobs: fio's writes and blocks read back are iobench's (128, each once); the
    runs are printed (they follow when the device completes the I/Os, for both tools)."""
    fio = fio_binary()
    why = direct_refused(d)
    if why:
        raise iob.Skip(f"direct I/O is needed for libaio to keep I/Os in flight: {why}")
    for k, (rw, depth) in enumerate([("write", 8), ("write", 32), ("randwrite", 8), ("randwrite", 32),
                                     ("randrw", 8), ("randrw", 32)]):
        job, ev, main_rec, ver, writes = queued_job(d, f"ql{k}", rw, depth, "loops=2\n")
        expect(main_rec["ops"] == 128, f"{rw} iodepth={depth}: {main_rec['ops']} I/Os, want 2 passes of 64")
        inside, left, after = backlog_queued_check(ev, 16, 16, 128, depth, 64)
        expect(main_rec["backlog_verified_ops"] == inside and main_rec["backlog_left"] == len(left) and
               inside + len(left) == writes, f"{rw} iodepth={depth}: record {main_rec}, traced {inside} + {len(left)}")
        expect(len(ver) == 1 and ver[0]["ops"] == len(left) and ver[0]["status"] == "ok" and after == left,
               f"{rw} iodepth={depth}: verify {ver}, read {after}, left {left}")
        line = f"{rw} iodepth={depth} loops=2: iobench {writes} writes, {inside} read back inside, {len(left)} after: " \
               f"{aio_runs(ev)}"
        if fio:
            fev, fp = fio_io_trace(fio, job, d, f"fql{k}")
            expect(fp.returncode == 0, f"fio {rw} iodepth={depth}: exit {fp.returncode}: {fp.stderr}")
            if fev is None:
                line += "; fio: no --debug=io output (built without it), its order not checked"
            else:
                finside, fleft, fafter = backlog_queued_check(fev, 16, 16, 128, depth, 64)
                fw = sum(1 for e in fev if e[0] == "S" and e[1] == "write")
                expect(finside + len(fleft) == fw and fafter == fleft, f"fio {rw}: {finside} + {len(fleft)} of {fw}")
                if rw != "randrw":
                    expect(fw == writes, f"fio {rw} iodepth={depth}: {fw} writes, iobench {writes}")
                line += f"; fio {fw} writes, {finside} inside, {len(fleft)} after: {aio_runs(fev)}"
        print(line)
    return 0


def case_backlog_queued_bad(d):
    """A lost write and a corrupted one at iodepth 8 (the asyncfault test backend: every 20th queued write
    reports itself done and writes nothing, or is written with a byte flipped; it also takes part of what
    it is offered and completes writes short, at seeded random places) are caught by a read-back inside
    the write phase, with verify_fatal: the write record says mismatch at that block, no verify phase
    runs, exit 3.  Without the fault, every block is read back, inside or after, and found good."""
    plugins = os.path.join(ARGS.bin, "..", "tests", "fault", "plugins")
    if not os.path.exists(os.path.join(plugins, "iob-backend-asyncfault.so")):
        raise iob.Skip(f"the asyncfault test backend is not built ({plugins})")
    env = iob.env(IOBENCH_PLUGIN_PATH=plugins)
    for fault in ("lose_every=20", "corrupt_every=20", ""):
        ini = iob.write(os.path.join(d, "af.ini"),
                        f"[af]\nbackend = asyncfault\nbackend_options = seed=3,partial=200,short=100"
                        f"{',' + fault if fault else ''}\ndir = {d}\nfilename = af.dat\nsize = 1M\nblock_size = 4K\n"
                        f"access = rand\niodepth = 8\nphases = write,verify\nverify = crc32c\nverify_backlog = 16\n"
                        f"verify_fatal = true\nfsync = true\n")
        out = os.path.join(d, "af.json")
        p = subprocess.run([os.path.join(ARGS.bin, "iobench"), "run", ini, "--output", f"json={out}"],
                           capture_output=True, text=True, env=env, cwd=d, timeout=300)
        recs = phase_recs(out)
        if not fault:
            expect(p.returncode == 0 and [r["phase"] for r in recs] == ["write", "verify"] and
                   recs[0]["backlog_verified_ops"] + recs[1]["ops"] == 256 and recs[1]["status"] == "ok",
                   f"no fault: exit {p.returncode}: {recs} {p.stderr}")
            print(f"no fault: {recs[0]['backlog_verified_ops']} read back inside, {recs[1]['ops']} after, all good")
            continue
        err = [ln for ln in p.stderr.splitlines() if "error:" in ln]
        w = recs[0]
        expect(p.returncode == 3 and [r["phase"] for r in recs] == ["write"] and w["status"] == "mismatch" and
               w["verify_bad_blocks"] == 1 and w["ops"] < 256 and len(err) == 1 and
               f"offset {w['first_bad_offset']} of" in err[0], f"{fault}: exit {p.returncode}: {recs} {p.stderr}")
        print(f"{fault}: caught inside the write phase after {w['ops']} writes, {w['backlog_verified_ops']} read "
              f"back: {err[0].split('error: ')[1][:100]}")
    return 0


def case_backlog_bad(d):
    """A write that never reached the file (strace makes the third pwrite64 return 4096 without writing,
    on a file of zeros) is caught by the read-back inside the write phase, with verify_fatal: the write
    phase stops there (16 writes, its first batch), its record says mismatch at that block, no verify
    phase runs, exit 3 and one line naming the offset."""
    ini = os.path.join(d, "z.ini")
    with open(ini, "w") as f:
        f.write(f"[mk]\ndir = {d}\nfilename = z.dat\nsize = 1M\nblock_size = 4K\nphases = write\n"
                f"pattern = zero\nkeep_files = true\n")
    iobench("run", ini, rc=0)
    for access in ("rand", "seq"):
        with open(ini, "w") as f:
            f.write(f"[bb]\ndir = {d}\nfilename = z.dat\nsize = 1M\nblock_size = 4K\naccess = {access}\n"
                    f"phases = write,verify\nverify = crc32c\nverify_backlog = 16\nverify_fatal = true\n"
                    f"keep_files = true\n")
        out = os.path.join(d, f"bb-{access}.json")
        calls, p = traced_io([os.path.join(ARGS.bin, "iobench"), "run", ini, "--output", f"json={out}"], d,
                             f"bb-{access}", 3)
        lost = [c[2] for c in calls if c[3]]
        expect(len(lost) == 1, f"strace injected {lost}")
        expect(p.returncode == 3, f"{access}: exit {p.returncode}: {p.stderr}")
        err = [ln for ln in p.stderr.splitlines() if "error:" in ln]
        expect(len(err) == 1 and f"offset {lost[0]} of" in err[0], err)
        recs = phase_recs(out)
        expect([r["phase"] for r in recs] == ["write"], f"{access}: phases {[r['phase'] for r in recs]}")
        w = recs[0]
        expect(w["status"] == "mismatch" and w["verify_bad_blocks"] == 1 and w["first_bad_offset"] == lost[0] and
               w["ops"] == 16 and w["backlog_verified_ops"] == 3, f"{access}: {w}")
        expect(sum(1 for c in calls if c[1] == "write") == 16, f"{access}: writes after the bad block")
    print(f"a lost write caught inside the write phase at its first read-back, at the block's offset; exit 3")
    return 0


def case_backlog_time(d):
    """time_based with verify_backlog: the read-backs run while the time does (the record's
    backlog_verified_ops, a multiple of 16 up to the last batch), the rest (under 16) by the verify
    phase after an INI job's write; a fio job runs no verify phase after the time (as fio 3.33, noted),
    its rest counted in backlog_left.  Bad verify_backlog values are refused in one line, nothing made."""
    ini = os.path.join(d, "t.ini")
    with open(ini, "w") as f:
        f.write(f"[t]\ndir = {d}\nfilename = t.dat\nsize = 256K\nblock_size = 4K\naccess = rand\n"
                f"phases = write,verify\nverify = md5\nverify_backlog = 16\ntime_based = true\nruntime = 200ms\n")
    out = os.path.join(d, "t.json")
    iobench("run", ini, "--output", f"json={out}", rc=0)
    w, v = phase_recs(out)
    expect(w["ops"] > 0 and w["backlog_verified_ops"] + w["backlog_left"] == w["ops"] and
           w["backlog_verified_ops"] % 16 == 0 and w["backlog_left"] < 16, w)
    expect(v["phase"] == "verify" and v["ops"] == w["backlog_left"] and v["status"] == "ok", v)
    for rw in ("randwrite", "randrw"):
        job = mixed_job(d, f"tb{rw}", rw, "verify_backlog=16\ntime_based=1\nruntime=200ms\n")
        out = os.path.join(d, f"tb{rw}.json")
        p = iobench("run", job, "--output", f"json={out}", rc=0)
        recs = phase_recs(out)
        expect(len(recs) == 1 and recs[0]["backlog_verified_ops"] > 0 and recs[0]["status"] == "ok" and
               "no verify phase" in p.stderr + p.stdout, f"{rw}: {recs} {p.stderr}")
        wr = recs[0].get("ops_written", recs[0]["ops"])
        expect(recs[0]["backlog_verified_ops"] + recs[0]["backlog_left"] == wr, recs[0])
    # bad values: one line, exit 2, nothing created
    for text, says in (("verify_backlog = -1\n", "verify_backlog"), ("verify_backlog = 99999999\n", "above"),
                       ("verify_backlog_batch = 4\n", "needs verify_backlog"),
                       ("verify_backlog = 8\nphases = read\n", "reads back the blocks a write")):
        data = os.path.join(d, "bad")
        shutil.rmtree(data, ignore_errors=True)
        os.makedirs(data)
        with open(ini, "w") as f:
            f.write(f"[x]\ndir = {data}\nsize = 64K\nverify = crc32c\n{text}")
        p = iobench("run", ini)
        expect(p.returncode == 2 and p.stderr.count("\n") == 1 and says in p.stderr and os.listdir(data) == [],
               f"{text!r}: exit {p.returncode}: {p.stderr!r} {os.listdir(data)}")
    for text, says in (("verify_backlog=-1\n", "verify_backlog"), ("verify_backlog_batch=4\n", "needs verify_backlog"),
                       ("verify_backlog=99999999\n", "at most")):
        data = os.path.join(d, "bad")
        shutil.rmtree(data, ignore_errors=True)
        os.makedirs(data)
        job = os.path.join(d, "bad.fio")
        with open(job, "w") as f:
            f.write(f"[x]\nsize=64k\nrw=randwrite\nverify=crc32c\n{text}")
        p = iobench("run", job, "--dir", data)
        expect(p.returncode == 2 and p.stderr.count("\n") == 1 and says in p.stderr and os.listdir(data) == [],
               f"{text!r}: exit {p.returncode}: {p.stderr!r} {os.listdir(data)}")
    print(f"time_based: {w['backlog_verified_ops']} read back while writing, {v['ops']} after")
    return 0


def traced_job(d, name, rw, extra):
    """iobench runs mixed_job(name, rw, extra) under strace (traced_io): (calls, its JSON file); exit 0 expected."""
    job = mixed_job(d, name, rw, extra)
    out = os.path.join(d, f"{name}.json")
    calls, p = traced_io([os.path.join(ARGS.bin, "iobench"), "run", job, "--output", f"json={out}"], d, f"i{name}")
    expect(p.returncode == 0, f"{rw}: exit {p.returncode}: {p.stderr}")
    return job, calls, out


def case_time_fio(d):
    """A time_based write job (randwrite, write) with verify and no verify_backlog: fio 3.33 reads none
    of its blocks back once the time ends (traced: thousands of writes, no read); iobench maps it to a
    write phase alone, notes that nothing is verified, and reads nothing either (traced).  The INI job
    with phases = write,verify and time_based keeps its verify phase, which reads the file for its own
    runtime (docs/profiles.md)."""
    fio = fio_binary()
    for k, rw in enumerate(("randwrite", "write")):
        job, calls, out = traced_job(d, f"t{k}", rw, "time_based=1\nruntime=200ms\n")
        recs = phase_recs(out)
        with open(out) as f:
            notes = json.load(f)["notes"]
        expect([r["phase"] for r in recs] == ["write"] and recs[0]["ops"] > 0 and
               any("nothing is verified" in str(n) for n in notes), f"{rw}: {recs} {notes}")
        writes = sum(1 for c in calls if c[1] == "write")
        reads = sum(1 for c in calls if c[1] == "read")
        expect(writes >= recs[0]["ops"] and reads == 0, f"{rw}: iobench wrote {writes}, read {reads}")
        line = f"{rw} time_based: iobench {writes} writes, {reads} reads"
        if fio:
            fcalls, fp = traced_io([fio, "--output-format=json", job], d, f"ft{k}")
            fw = sum(1 for c in fcalls if c[1] == "write")
            fr = sum(1 for c in fcalls if c[1] == "read")
            # however few writes a loaded machine lets fio make in 200 ms, none is read back
            expect(fp.returncode == 0 and fw > 0 and fr == 0, f"fio {rw}: exit {fp.returncode}, {fw} writes, {fr} reads")
            line += f"; fio {fw} writes, {fr} reads"
        print(line)
    ini = iob.write(os.path.join(d, "t.ini"), f"[t]\ndir = {d}\nfilename = ti.dat\nsize = 256K\nblock_size = 4K\n"
                    "access = rand\nphases = write,verify\nverify = md5\ntime_based = true\nruntime = 200ms\n")
    out = os.path.join(d, "ti.json")
    iobench("run", ini, "--output", f"json={out}", rc=0)
    w, v = phase_recs(out)
    expect(w["phase"] == "write" and v["phase"] == "verify" and v["ops"] > 0 and v["status"] == "ok",
           f"INI: {w['phase']} {v['phase']} {v['ops']} {v['status']}")
    return 0


def case_continue_fio(d):
    """continue_on_error=write on a randrw job (rwmixread=0: the reads after the last write are the
    verify's) with verify (1 MiB of zeros first, so a write that moved no
    data leaves a block with no header): strace makes the third pwrite64 fail with EIO.  iobench counts
    it (io_errors 1), goes on, and its verify reads back the other writes, in order, not the failed
    block: exit 0, verify ops = ops_written.  Before, the verify read the failed block and reported it
    (exit 3).  fio 3.33 (psync) does not read it either: its verify stops there (the failed write's
    entry stays in flight in its list), exit 0."""
    fio = fio_binary()
    inject = "inject=pwrite64:error=EIO:when=3"

    def failed(tag):
        with open(os.path.join(d, f"strace-{tag}.log")) as f:
            return [int(m.group(1)) for m in re.finditer(r'pwrite64\(\d+, ""\.*, 4096, (\d+)\)\s+= -1 EIO', f.read())]

    def after_writes(calls):
        last = max((i for i, c in enumerate(calls) if c[1] == "write"), default=-1)
        return [c[2] for c in calls[last + 1:]]
    tools = [("iobench", [os.path.join(ARGS.bin, "iobench"), "run"], "--output")] + \
        ([("fio", [fio, "--output-format=json"], None)] if fio else [])
    for tool, argv, out_opt in tools:
        job = mixed_job(d, f"c{tool}", "randrw", "continue_on_error=write\nrwmixread=0\n")
        with open(os.path.join(d, f"c{tool}.dat"), "wb") as f:
            f.write(bytes(1 << 20))
        out = os.path.join(d, f"c{tool}.json")
        calls, p = traced_io(argv + [job] + ([out_opt, f"json={out}"] if out_opt else []), d, f"c{tool}", inject)
        bad = failed(f"c{tool}")
        expect(len(bad) == 1, f"{tool}: strace failed {bad}")
        expect(p.returncode == 0, f"{tool}: exit {p.returncode}: {p.stderr[-1500:]}")
        writes = [c[2] for c in calls if c[1] == "write"]
        tail = after_writes(calls)
        expect(bad[0] not in tail and len(set(tail)) == len(tail) and tail == writes[:len(tail)],
               f"{tool}: verify read {len(tail)} blocks (failed {bad[0]}): not the writes in order without it")
        if tool == "iobench":
            recs = phase_recs(out)
            mixed, ver = recs[0], recs[1]
            expect(mixed["phase"] == "mixed" and mixed.get("io_errors") == 1 and ver["phase"] == "verify" and
                   ver["status"] == "ok" and ver["ops"] == mixed["ops_written"] == len(writes) == len(tail),
                   f"iobench: mixed {mixed.get('io_errors')} errors, {mixed['ops_written']} written; verify "
                   f"{ver['ops']} {ver['status']}; traced {len(writes)} writes, {len(tail)} read back")
        print(f"{tool}: {len(writes)} writes, the one at {bad[0]} failed (EIO) and passed over; "
              f"{len(tail)} read back after, not it")
    return 0


def case_write_continue_fio(d):
    """continue_on_error=write on a write job (rw=write, randwrite; 64 KiB of 4 KiB blocks over zeros) with
    verify: strace makes the third pwrite64 fail with EIO.  iobench passes it over (io_errors 1), and its
    verify reads back the 15 other writes, in the order written, not the failed block: exit 0, as fio 3.33
    exits, with the same 60 KiB written.  Before, the verify replayed the write's order, read the failed
    block and reported it bad (exit 3).  fio 3.33 drops the failed write from its verify list too; with
    psync it reads back only the writes before it (the entry stays marked in flight, its verify stops
    there: 2 reads), with an async engine (posixaio, iodepth 1 and 8) the 15 others.  At iodepth 8 iobench
    runs the asyncfault test backend (its pwrite64 done at the reap, strace fails the third): the 15
    others read back, as fio's posixaio at iodepth 8."""
    fio = fio_binary()
    inject = "inject=pwrite64:error=EIO:when=3"
    plugins = os.path.join(ARGS.bin, "..", "tests", "fault", "plugins")

    def io_seq(tag):
        """The 4 KiB pread64/pwrite64 calls in the order strace saw them: (call, offset, failed)."""
        with open(os.path.join(d, f"strace-{tag}.log")) as f:
            return [(m.group(1)[1:-2], int(m.group(2)), m.group(3) == "-1") for m in
                    re.finditer(r'(pread64|pwrite64)\(\d+, ""\.*, 4096, (\d+)\)\s+= (-?\d+)', f.read())]
    runs = [("iobench", "write", 1, "psync"), ("iobench", "randwrite", 1, "psync")]
    if os.path.exists(os.path.join(plugins, "iob-backend-asyncfault.so")):
        runs.append(("iobench", "randwrite", 8, "asyncfault"))
    else:
        print(f"the asyncfault test backend is not built ({plugins}): iodepth 8 not run by iobench")
    if fio:
        runs += [("fio", "write", 1, "psync"), ("fio", "randwrite", 1, "psync"), ("fio", "randwrite", 1, "posixaio"),
                 ("fio", "randwrite", 8, "posixaio")]
    for k, (tool, rw, depth, engine) in enumerate(runs):
        tag = f"wc{k}"
        dat = os.path.join(d, f"{tag}.dat")
        with open(dat, "wb") as f:
            f.write(bytes(64 << 10))
        out = os.path.join(d, f"{tag}.json")
        env = None
        if engine == "asyncfault":
            job = iob.write(os.path.join(d, f"{tag}.ini"),
                            f"[{tag}]\nbackend = asyncfault\nbackend_options = seed=3\ndir = {d}\nfilename = {tag}.dat\n"
                            f"size = 64K\nblock_size = 4K\naccess = rand\niodepth = {depth}\nphases = write,verify\n"
                            "verify = crc32c\ncontinue_on_error = write\n")
            env = iob.env(IOBENCH_PLUGIN_PATH=plugins)
        else:
            job = iob.write(os.path.join(d, f"{tag}.fio"),
                            f"[{tag}]\nfilename={dat}\nsize=64k\nbs=4k\nrw={rw}\nverify=crc32c\n"
                            f"continue_on_error=write\nioengine={engine}\niodepth={depth}\n")
        argv = ([os.path.join(ARGS.bin, "iobench"), "run", job, "--output", f"json={out}"] if tool == "iobench"
                else [fio, "--output-format=json", f"--output={out}", job])
        _, p = traced_io(argv, d, tag, inject, env)
        seq = io_seq(tag)
        label = f"{tool} {rw} {engine} iodepth={depth}"
        bad = [c[1] for c in seq if c[2]]
        if len(bad) != 1:  # strace counts calls per thread: posixaio's helper threads may see none fail
            print(f"{label}: strace failed {len(bad)} writes, not compared")
            continue
        at = next(i for i, c in enumerate(seq) if c[2])
        last = max(i for i, c in enumerate(seq) if c[0] == "write")
        written = [c[1] for c in seq if c[0] == "write" and not c[2]]
        back = [c[1] for c in seq[last + 1:] if c[0] == "read"]
        expect(p.returncode == 0, f"{label}: exit {p.returncode}: {p.stderr[-1500:]}")
        expect(len(written) == 15 and bad[0] not in back and len(set(back)) == len(back) and set(back) <= set(written),
               f"{label}: read back {back}, failed {bad[0]}, written {written}")
        with open(out) as f:
            doc = json.load(f)
        if tool == "iobench":
            recs = [r for r in doc["records"] if r.get("kind") == "phase"]
            w, v = recs[0], recs[1]
            # in the order written at iodepth 1; asyncfault does its I/Os at the reap, in a random order
            expect(w["phase"] == "write" and w.get("io_errors") == 1 and w["bytes"] == 15 * BS and
                   v["phase"] == "verify" and v["status"] == "ok" and v["ops"] == 15 == len(back) and
                   (depth > 1 or back == written), f"{label}: write {w.get('io_errors')} errors, {w['bytes']} "
                   f"bytes; verify {v['ops']} {v['status']}; traced {back}, written {written}")
        else:
            j = doc["jobs"][0]
            expect(j["error"] == 5 and j["write"]["io_bytes"] == 15 * BS,
                   f"{label}: error {j['error']}, {j['write']['io_bytes']} bytes written")
            before = [c[1] for c in seq[:at] if c[0] == "write"]
            if engine == "psync":  # 3.33: the verify stops at the failed write's entry, still in flight
                expect(back == before, f"{label}: read back {back}, want the writes before the failed one {before}")
            else:
                expect(len(back) == 15, f"{label}: read back {len(back)}, want the 15 others")
        print(f"{label}: wrote 15, the one at {bad[0]} failed (EIO) and was passed over; exit {p.returncode}; "
              f"read back {len(back)}, not it")
    return 0


def pass_runs(calls, passes, per=256):
    """calls as passes passes of per mixed I/Os, each followed by the reads of that pass's writes in the
    order written (fio's verify after each loop); [(writes, mixed reads, read back)] a pass, or raises
    where the calls break it."""
    k, out = 0, []
    for p in range(passes):
        mixed = calls[k:k + per]
        expect(len(mixed) == per, f"pass {p + 1}: {len(mixed)} I/Os, want {per}")
        w = [c[2] for c in mixed if c[1] == "write"]
        k += per
        back = calls[k:k + len(w)]
        expect(all(c[1] == "read" for c in back) and [c[2] for c in back] == w,
               f"pass {p + 1}: the {len(w)} calls after its {per} I/Os are not its writes read back in order: "
               f"{[c[1][0].upper() for c in back]}")
        k += len(w)
        out.append((len(w), per - len(w), len(back)))
    expect(k == len(calls), f"{len(calls) - k} calls after the last pass's read-back")
    return out


def case_loops_fio(d):
    """loops=2 with verify on a write job (1 MiB of 4 KiB blocks, randwrite and write): fio 3.33 writes a
    pass and verifies it, twice (W256 R256 W256 R256, traced); iobench does the same calls, each pass read
    back in the order written as it ends (verify_backlog = a pass's blocks: the write record's
    backlog_verified_ops 512, nothing left for the verify phase).  A mixed job (randrw, randrw with
    rwmixread=0): fio 3.33 does a pass's 256 mixed I/Os and then reads that
    pass's writes in the order written, twice; iobench the same calls (traced), the first pass's
    read-back inside the mixed phase (backlog_verified_ops), the last pass's by the verify phase
    (backlog_left).  readwrite: no fixed pass (fio's first loop writes the whole file), one verify after
    both passes, noted.  verify_backlog with loops=2: verify.backlog_fio."""
    def runs(calls):
        out = []
        for c in calls:
            if out and out[-1][0] == c[1]:
                out[-1][1].append(c[2])
            else:
                out.append((c[1], [c[2]]))
        return out
    fio = fio_binary()
    for k, rw in enumerate(("randwrite", "write")):
        job, calls, out = traced_job(d, f"l{k}", rw, "loops=2\n")
        r = runs(calls)
        expect([(c, len(o)) for c, o in r] == [("write", 256), ("read", 256)] * 2 and r[0][1] == r[1][1] and
               r[2][1] == r[3][1], f"{rw}: iobench's runs {[(c, len(o)) for c, o in r]}")
        w, v = phase_recs(out)
        expect(w["ops"] == 512 and w["backlog_verified_ops"] == 512 and v["ops"] == 0 and v["status"] == "ok",
               f"{rw}: {w} {v}")
        line = f"{rw} loops=2: iobench " + " ".join(f"{c[0].upper()}{len(o)}" for c, o in r)
        if fio:
            fcalls, fp = traced_io([fio, "--output-format=json", job], d, f"fl{k}")
            fr = runs(fcalls)
            expect(fp.returncode == 0 and [(c, len(o)) for c, o in fr] == [("write", 256), ("read", 256)] * 2,
                   f"fio {rw}: exit {fp.returncode}, runs {[(c, len(o)) for c, o in fr]}")
            line += "; fio " + " ".join(f"{c[0].upper()}{len(o)}" for c, o in fr)
        print(line)
    for k, (rw, extra) in enumerate([("randrw", ""), ("randrw", "rwmixread=0\n")]):
        job, calls, out = traced_job(d, f"lm{k}", rw, "loops=2\n" + extra)
        m, v = phase_recs(out)
        calls = calls[-(512 + m["ops_written"]):]  # after the layout
        ps = pass_runs(calls, 2)
        last_in = ps[1][0] if ps[1][0] == 256 else 0  # a pass of writes alone fills the backlog as it ends
        expect(m["phase"] == "mixed" and m["ops"] == 512 and m["ops_written"] == ps[0][0] + ps[1][0] and
               m["backlog_verified_ops"] == ps[0][0] + last_in and m["backlog_left"] == ps[1][0] - last_in and
               v["phase"] == "verify" and v["ops"] == ps[1][0] - last_in and v["status"] == "ok",
               f"{rw} {extra!r}: {m} {v}, traced {ps}")
        line = f"{rw} {extra.strip() or 'rwmixread=50'} loops=2 (writes, reads, read back a pass): iobench {ps}"
        if fio:
            fcalls, fp = traced_io([fio, "--output-format=json", job], d, f"flm{k}")
            expect(fp.returncode == 0, f"fio {rw}: exit {fp.returncode}: {fp.stderr}")
            fps = pass_runs(fcalls, 2)
            doc = json.loads(fp.stdout[fp.stdout.index("{"):])["jobs"][0]
            expect(doc["write"]["total_ios"] == fps[0][0] + fps[1][0], f"fio {rw}: JSON {doc['write']}, traced {fps}")
            if extra == "rwmixread=0\n":
                expect(fps == ps, f"{rw} {extra!r}: fio {fps}, iobench {ps}")
            line += f"; fio {fps}"
        print(line)
    # INI, sequential: phases = write,mixed,verify with loops = 2 and verify_backlog = a pass's 64 blocks: each
    # phase reads back what waits at its first pass's end, the mixed phase's last pass by the verify phase
    ini = iob.write(os.path.join(d, "ls.ini"), f"[s]\ndir = {d}\nfilename = ls.dat\nsize = 256K\nblock_size = 4K\n"
                    "access = seq\nphases = write,mixed,verify\nloops = 2\nverify = md5\nverify_backlog = 64\n")
    out = os.path.join(d, "ls.json")
    calls, p = traced_io([os.path.join(ARGS.bin, "iobench"), "run", ini, "--output", f"json={out}"], d, "ils")
    wr, m, v = phase_recs(out)
    ps = pass_runs(calls[-(128 + m["ops_written"]):], 2, 64)
    expect(p.returncode == 0 and wr["backlog_verified_ops"] == 128 and m["ops"] == 128 and
           m["backlog_verified_ops"] == ps[0][0] and m["backlog_left"] == v["ops"] == ps[1][0] and ps[1][0] < 64,
           f"INI sequential loops = 2: exit {p.returncode}, {wr['backlog_verified_ops']}, {m} {v}, traced {ps}")
    print(f"INI access = seq, loops = 2, phases = write,mixed,verify: mixed {ps}")
    # readwrite: fio's pass is no fixed number of I/Os (a position per direction: its first loop writes every
    # block), so iobench verifies once after both passes, noted; fio's read-backs are still its writes
    job, calls, out = traced_job(d, "lr", "readwrite", "loops=2\nrwmixread=30\n")
    m, v = phase_recs(out)
    with open(out) as f:
        notes = str(json.load(f)["notes"])
    w, r, tail = mixed_then_verify(calls[-(512 + m["ops_written"]):])
    expect("verifies once after all the passes" in notes and "backlog_verified_ops" not in m and tail == w and
           len(w) + len(r) == 512 and v["ops"] == len(w), f"readwrite loops=2: {m} {v} {notes}")
    line = f"readwrite rwmixread=30 loops=2: iobench {len(w)} writes + {len(r)} reads, then {len(tail)} read back"
    if fio:
        fcalls, fp = traced_io([fio, "--output-format=json", job], d, "flr")
        fw = [c[2] for c in fcalls if c[1] == "write"]
        expect(fp.returncode == 0 and fw, f"fio readwrite: exit {fp.returncode}, {len(fw)} writes")
        line += f"; fio {len(fw)} writes, {len(fcalls) - len(fw)} reads (its verify after each loop included)"
    print(line)
    return 0


if __name__ == "__main__":
    ARGS = iob.arguments("--bin", "--src", "--work", optional={"--fio": ""}, case=True)
    sys.exit(iob.run_case(ARGS, globals(), "verify-"))
