#!/usr/bin/env python3
"""The memory budget (issue 24, problem 7): streams x depth x buffer, plus
histograms, against the memory available (or memory_limit), checked before
anything is created, for each job and for each group's jobs together.

  python3 test_memory.py --bin DIR --work DIR CASE

Cases (exit 0 pass, 1 fail):
  refused       a job whose buffers are far above any machine's memory
                (4096 streams x iodepth 65536 x 4 KiB = 1 TiB) is refused by
                `iobench check` and by `iobench run`: exit 2, one line with the
                figure, the limit and the memory_limit to raise it; no file
                or directory created (the old check said OK)
  limit_raises  memory_limit below a small job's need (2 streams x 33 buffers
                of 1 MiB, and 12 histograms of 58 KiB a stream) refuses it; the value the
                refusal names lets the same job pass, and lets the 1 TiB job
                pass the check (it is not run)
  fio           a fio job file (which has no memory_limit key) over the budget
                passes with the --memory-limit the refusal names
  small_read    a sequential read of a file smaller than its block counts the
                file's size, as the engine allocates (bigread's default)
  group         two jobs that each fit run one after another, but not as one
                group (their buffers are held at once)"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import iobtest as iob  # noqa: E402
from iobtest import soft as expect  # noqa: E402

BIN = ""
LINE = re.compile(r"^iobench: error: .*\[(\w+)\] memory: (.*) need ([\d.]+ [KMGT]iB) at once \(buffers and "
                  r"histograms\), more than the ([\d.]+ [KMGT]iB) (available \(MemAvailable\)|of memory_limit); "
                  r"lower threads, iodepth or block_size, or set memory_limit = (\d+)M \(iobench --memory-limit "
                  r"\6M\) to allow it$")


def iobench(d, *args):
    return iob.run([os.path.join(BIN, "iobench"), *args], cwd=d)


def profile(d, text):
    return iob.write(os.path.join(d, "p.ini"), text)


def tree(d):
    return sorted(os.path.relpath(os.path.join(r, n), d) for r, ds, fs in os.walk(d) for n in ds + fs)


def refusal(p, name):
    lines = p.stderr.strip().splitlines()
    m = LINE.match(lines[0]) if len(lines) == 1 else None
    expect(p.returncode == 2, f"{name}: exit {p.returncode}, want 2: {p.stderr}")
    expect(m is not None, f"{name}: stderr is not the one budget line: {p.stderr!r}")
    return m


HUGE = "[huge]\nsize = 64K\nblock_size = 4K\nthreads = 4096\niodepth = 65536\nbackend = io_uring\nphases = write\n"


def case_refused(tmp):
    d = os.path.join(tmp, "data")
    os.mkdir(d)
    p = profile(tmp, HUGE + f"dir = {d}\n")
    for cmd in (["check", p], ["run", p]):
        r = iobench(tmp, *cmd)
        m = refusal(r, " ".join(cmd[:1]))
        if m:
            expect(m.group(1) == "huge" and m.group(2) == "4096 stream(s) x iodepth 65536 x 4.00 KiB blocks",
                   f"names: {m.groups()}")
            expect(m.group(5).startswith("available"), f"limit: {m.groups()}")
            need = float(m.group(3).split()[0]) * {"G": 2**30, "T": 2**40}[m.group(3).split()[1][0]]
            expect(need >= 2**40, f"figure {m.group(3)}: 4096 x 65536 x 4 KiB is 1 TiB of buffers alone")
            with open("/proc/meminfo") as f:
                avail = [int(x.split()[1]) * 1024 for x in f if x.startswith("MemAvailable:")][0]
            lim = float(m.group(4).split()[0]) * {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}[m.group(4).split()[1][0]]
            expect(abs(lim - avail) < max(avail * 0.1, 2**28), f"limit {m.group(4)} is not MemAvailable {avail}")
        expect(tree(d) == [], f"{cmd[0]} created {tree(d)}")
    return 0


def case_limit_raises(tmp):
    d = os.path.join(tmp, "data")
    os.mkdir(d)
    small = f"[small]\nsize = 1M\nblock_size = 1M\nthreads = 2\niodepth = 32\nbackend = io_uring\ndir = {d}\n"
    r = iobench(tmp, "check", profile(tmp, small + "memory_limit = 32M\n"))
    m = refusal(r, "small under 32M")
    if not m:
        return 0
    expect(m.group(5) == "of memory_limit" and m.group(4) == "32.00 MiB", f"limit: {m.groups()}")
    # 2 streams x (32 + 1) x 1 MiB, plus the histograms
    mib = float(m.group(3).split()[0])
    expect(m.group(3).endswith("MiB") and 66 < mib < 68, f"figure {m.group(3)}, want 66 MiB and 12 histograms a stream")
    r = iobench(tmp, "check", profile(tmp, small + f"memory_limit = {m.group(6)}M\n"))
    expect(r.returncode == 0, f"memory_limit = {m.group(6)}M: exit {r.returncode}: {r.stderr}")
    r = iobench(tmp, "check", profile(tmp, small + f"memory_limit = {int(m.group(6)) - 2}M\n"))
    expect(r.returncode == 2, f"memory_limit 2 MiB under the figure passed: {r.stderr}")
    r = iobench(tmp, "check", profile(tmp, HUGE + f"dir = {d}\n"))
    m = refusal(r, "huge")
    if m:
        r = iobench(tmp, "check", profile(tmp, HUGE + f"dir = {d}\nmemory_limit = {m.group(6)}M\n"))
        expect(r.returncode == 0, f"huge with memory_limit = {m.group(6)}M: exit {r.returncode}: {r.stderr}")
    expect(tree(d) == [], f"check created {tree(d)}")
    return 0


def case_group(tmp):
    d = os.path.join(tmp, "data")
    os.mkdir(d)

    def two(group):
        return "".join(f"[j{i}]\nsize = 1M\nblock_size = 1M\niodepth = 32\nbackend = io_uring\ndir = {d}\n"
                       f"filename = f{i}\nmemory_limit = 48M\ngroup = {group}\n" for i in (1, 2))
    r = iobench(tmp, "check", profile(tmp, two(0)))
    expect(r.returncode == 0, f"one after another: exit {r.returncode}: {r.stderr}")
    r = iobench(tmp, "check", profile(tmp, two(7)))
    m = refusal(r, "group")
    if m:
        expect(m.group(2).startswith("group 7 (2 jobs at once;"), f"names: {m.groups()}")
        mib = float(m.group(3).split()[0])
        expect(m.group(3).endswith("MiB") and 66 < mib < 68, f"figure {m.group(3)}: 2 x 33 MiB and histograms")
    expect(tree(d) == [], f"check created {tree(d)}")
    return 0


def case_fio(tmp):
    """A fio job file cannot set memory_limit: --memory-limit does, for it
    and for an INI profile."""
    d = os.path.join(tmp, "data")
    os.mkdir(d)
    fio = iob.write(os.path.join(tmp, "j.fio"), f"[global]\nioengine=io_uring\nsize=64k\nbs=4k\ndirectory={d}\n"
                    "[big]\nrw=randwrite\nnumjobs=4096\niodepth=65536\n")
    m = refusal(iobench(tmp, "check", fio), "fio")
    if m:
        r = iobench(tmp, "check", fio, "--memory-limit", f"{m.group(6)}M")
        expect(r.returncode == 0, f"fio with --memory-limit {m.group(6)}M: exit {r.returncode}: {r.stderr}")
        r = iobench(tmp, "check", profile(tmp, HUGE + f"dir = {d}\n"), "--memory-limit", f"{m.group(6)}M")
        expect(r.returncode == 0, f"ini with --memory-limit: exit {r.returncode}: {r.stderr}")
    r = iobench(tmp, "check", fio, "--memory-limit", "lots")
    expect(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "--memory-limit" in r.stderr,
           f"--memory-limit lots: exit {r.returncode}: {r.stderr}")
    expect(tree(d) == [], f"check created {tree(d)}")
    return 0


def case_small_read(tmp):
    """A sequential read of one file smaller than its block allocates the
    file's size (the engine's buffer), as bigread's 1 GiB default block over a
    small file does: counted so, it fits 16 MiB; a verify (whole blocks) does
    not."""
    d = os.path.join(tmp, "data")
    os.mkdir(d)
    with open(os.path.join(d, "small.dat"), "wb") as f:
        f.write(b"\0" * (1 << 20))
    body = f"[r]\nsize = 1M\nblock_size = 1G\nfilename = small.dat\ndir = {d}\nmemory_limit = 16M\n"
    r = iobench(tmp, "check", profile(tmp, body + "phases = read\n"))
    expect(r.returncode == 0, f"read of 1 MiB with 1 GiB blocks under 16M: exit {r.returncode}: {r.stderr}")
    m = refusal(iobench(tmp, "check", profile(tmp, body + "phases = read,verify\n")), "verify")
    if m:
        expect(m.group(3).startswith("2.00 GiB"), f"figure {m.group(3)}: verify holds 2 buffers of 1 GiB")
    return 0


CASES = {"fio": case_fio, "small_read": case_small_read, "refused": case_refused, "limit_raises": case_limit_raises, "group": case_group}


if __name__ == "__main__":
    a = iob.arguments("--bin", "--work", case=True)
    BIN = a.bin
    sys.exit(iob.run_case(a, {"case_" + k: fn for k, fn in CASES.items()}, "memory-"))
