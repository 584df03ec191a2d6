#!/usr/bin/env python3
"""Integration tests of the bigread binary.

Each case runs the built binary on files it writes into its own temporary
directory under the build tree (removed afterwards) and checks real outcomes:
the documented lines and nothing else, finite speeds, the summary recomputed
from the printed per-block lines, a planted cliff found where it was planted
(by the test-only backend "slowafter", which paces reads and slows down past
a set offset), silence on flat series, bounded memory, one-line refusals.

usage: bigread_test.py --bin BIGREAD --plugin-dir DIR --rss-probe PROBE --work DIR [--sanitize] CASE
"""
import argparse
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

MIB = 1 << 20
BLOCK_RE = re.compile(r"^(\d+) (\d+\.\d{3})$")
SPEED_RE = re.compile(
    r"^Speed: n=(\d+) min=(\d+\.\d{3}) max=(\d+\.\d{3}) mean=(\d+\.\d{3}) "
    r"median=(\d+\.\d{3}) rms=(\d+\.\d{3}) \((all|robust)\)$")
CLIFF_RE = re.compile(
    r"^Cliff: block=(\d+) offset=(\d+) before=(\d+\.\d{3}) after=(\d+\.\d{3}) ratio=(\d+\.\d{3})$")
SKIP = 77


class Failure(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Failure(msg)


class Ctx:
    def __init__(self, opts, tmp):
        self.bin = opts.bin
        self.plugin_dir = opts.plugin_dir
        self.sanitize = opts.sanitize
        self.rss_probe = opts.rss_probe
        self.tmp = tmp

    def path(self, name):
        return os.path.join(self.tmp, name)

    def make_file(self, name, size):
        """A file of `size` bytes of varied content."""
        pattern = bytes((i * 131 + 7) & 0xFF for i in range(65536))
        p = self.path(name)
        with open(p, "wb") as f:
            left = size
            while left:
                chunk = pattern[: min(left, len(pattern))]
                f.write(chunk)
                left -= len(chunk)
        return p

    def run(self, args, stdin=None, env=None, shell=False):
        e = dict(os.environ)
        if env:
            e.update(env)
        cmd = args if shell else [self.bin] + args
        p = subprocess.run(cmd, stdin=stdin if stdin is not None else subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e, shell=shell,
                           timeout=50)
        return p.returncode, p.stdout.decode(), p.stderr.decode()

    def slow(self, args, env):
        return self.run(["--plugin-dir", self.plugin_dir, "-b", "slowafter"] + args, env=env)


class Parsed:
    def __init__(self, out):
        self.bufsize = None
        self.blocks = []
        self.all = None
        self.robust = None
        self.cliff = None
        self.notes = []
        check(re.search(r"\b(inf|nan)\b", out, re.IGNORECASE) is None, "output holds inf or nan:\n" + out)
        order = []
        for line in out.splitlines():
            m = BLOCK_RE.match(line)
            if line.startswith("BufSize: "):
                m2 = re.match(r"^BufSize: (\d+) bytes$", line)
                check(m2 is not None, "bad BufSize line: " + line)
                self.bufsize = int(m2.group(1))
                order.append("B")
            elif m:
                self.blocks.append((int(m.group(1)), float(m.group(2))))
                order.append("b")
            elif line.startswith("Speed: "):
                m2 = SPEED_RE.match(line)
                check(m2 is not None, "bad Speed line: " + line)
                fig = {"n": int(m2.group(1)), "min": float(m2.group(2)), "max": float(m2.group(3)),
                       "mean": float(m2.group(4)), "median": float(m2.group(5)),
                       "rms": float(m2.group(6))}
                if m2.group(7) == "all":
                    self.all = fig
                    order.append("S")
                else:
                    self.robust = fig
                    order.append("R")
            elif line.startswith("Cliff: "):
                m2 = CLIFF_RE.match(line)
                check(m2 is not None, "bad Cliff line: " + line)
                self.cliff = {"block": int(m2.group(1)), "offset": int(m2.group(2)),
                              "before": float(m2.group(3)), "after": float(m2.group(4)),
                              "ratio": float(m2.group(5))}
                order.append("C")
            elif line.startswith("Note: "):
                self.notes.append(line[6:])
                order.append("N")
            else:
                raise Failure("unexpected line: %r" % line)
        shape = "".join(order)
        check(re.match(r"^Bb*SRC?N*$", shape) is not None, "lines out of order: " + shape)
        for i, (idx, speed) in enumerate(self.blocks):
            check(idx == i, "block %d printed as %d" % (i, idx))
            check(speed > 0 and math.isfinite(speed), "block %d speed %r" % (i, speed))


def ok_run(ctx, args, **kw):
    rc, out, err = ctx.run(args, **kw)
    check(rc == 0, "bigread %s: exit %d\nstderr: %s" % (" ".join(args), rc, err))
    return Parsed(out), err


# ---- statistics, recomputed from the printed lines ----

def quantile(s, p):
    """Linear between order statistics (type 7), as series.h defines it."""
    h = (len(s) - 1) * p
    j = int(math.floor(h))
    if j + 1 >= len(s):
        return s[-1]
    return s[j] + (h - j) * (s[j + 1] - s[j])


def figures(v):
    s = sorted(v)
    n = len(s)
    mean = sum(s) / n
    return {"n": n, "min": s[0], "max": s[-1], "mean": mean, "median": quantile(s, 0.5),
            "rms": math.sqrt(sum((x - mean) ** 2 for x in s) / n)}


def close(a, b, scale):
    return abs(a - b) <= 0.0011 + 1e-12 * scale


def check_summary(p, label):
    speeds = [s for _, s in p.blocks]
    check(p.all is not None and p.robust is not None, label + ": no Speed lines")
    want = figures(speeds)
    check(p.all["n"] == want["n"] == len(p.blocks), label + ": n %d vs %d blocks" % (p.all["n"], len(p.blocks)))
    for k in ("min", "max", "mean", "median", "rms"):
        check(close(p.all[k], want[k], want["max"]),
              "%s: (all) %s printed %.3f, recomputed %.6f" % (label, k, p.all[k], want[k]))
    s = sorted(speeds)
    q1, q3 = quantile(s, 0.25), quantile(s, 0.75)
    lo, hi = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
    if any(abs(x - lo) < 0.002 or abs(x - hi) < 0.002 for x in s):
        return  # a value sits on a fence within printing precision: either side is right
    rob = [x for x in speeds if lo <= x <= hi]
    want = figures(rob)
    check(p.robust["n"] == want["n"], "%s: (robust) n %d, recomputed %d" % (label, p.robust["n"], want["n"]))
    for k in ("min", "max", "mean", "median", "rms"):
        check(close(p.robust[k], want[k], want["max"]),
              "%s: (robust) %s printed %.3f, recomputed %.6f" % (label, k, p.robust[k], want[k]))


# ---- cases ----

def case_keyword(ctx):
    f = ctx.make_file("k.dat", 24 * MIB)
    for args in (["in=" + f, "bufsize=0.01"], ["bufsize=0.01", "mode=3", "in=" + f]):
        p, _ = ok_run(ctx, args)
        check(p.bufsize == 10737418, "BufSize %r" % p.bufsize)
        check(len(p.blocks) == 3, "%d blocks, wanted 3 (the short last one counts)" % len(p.blocks))
        check(p.cliff is None, "a cliff on 3 blocks")
        check_summary(p, " ".join(args))


def case_positional(ctx):
    f = ctx.make_file("p.dat", 24 * MIB)
    p, _ = ok_run(ctx, [f, "0.01"])
    check(p.bufsize == 10737418 and len(p.blocks) == 3, "positional: %r %d" % (p.bufsize, len(p.blocks)))
    p, _ = ok_run(ctx, [f, "0.1"])
    check(p.bufsize == 107374182 and len(p.blocks) == 1, "0.1 GiB: %r %d" % (p.bufsize, len(p.blocks)))
    p, _ = ok_run(ctx, [f, "0.01", "2"])
    check(len(p.blocks) == 3, "mode 2: %d blocks" % len(p.blocks))
    check(any("process CPU clock" in n for n in p.notes), "mode 2 without its caveat: %r" % p.notes)


def case_stdin(ctx):
    f = ctx.make_file("s.dat", 24 * MIB)
    rc, out, err = ctx.run("cat '%s' | '%s' - 0.01" % (f, ctx.bin), shell=True)
    check(rc == 0, "cat | bigread - 0.01: exit %d: %s" % (rc, err))
    p = Parsed(out)
    check(p.bufsize == 10737418 and len(p.blocks) == 3, "pipe: %r %d" % (p.bufsize, len(p.blocks)))
    check(any(n.startswith("standard input") for n in p.notes), "no standard input caveat: %r" % p.notes)
    check_summary(p, "pipe")
    for extra in ([], ["-b", "posix"]):
        with open(f, "rb") as fin:
            p, _ = ok_run(ctx, ["in=-", "bufsize=0.01"] + extra, stdin=fin)
        check(len(p.blocks) == 3, "redirected stdin %r: %d blocks" % (extra, len(p.blocks)))
    # a pipe that ends exactly on a block boundary: no empty block
    rc, out, err = ctx.run("head -c %d '%s' | '%s' - 4M" % (8 * MIB, f, ctx.bin), shell=True)
    check(rc == 0, "exact pipe: exit %d: %s" % (rc, err))
    check(len(Parsed(out).blocks) == 2, "exact pipe: %d blocks, wanted 2" % len(Parsed(out).blocks))


def split_clock_run(ctx, args):
    """mode=0 and 1 read the kernel's user/system split, which it samples at
    the scheduler tick: a short run may see no time at all in one of them.
    Then bigread must refuse with its one documented line; else print
    well-formed lines.  Returns the parsed output or None."""
    rc, out, err = ctx.run(args)
    if rc == 0:
        return Parsed(out)
    check(rc == 1 and "measured no time at all" in err and len(err.splitlines()) == 1,
          "%s: exit %d, %r" % (" ".join(args), rc, err))
    check(re.search(r"\b(inf|nan)\b", out, re.IGNORECASE) is None, "printed inf/nan")
    check(not any(BLOCK_RE.match(l) for l in out.splitlines()), "block lines without speeds")
    print("note: %s: the clock saw no time" % " ".join(args))
    return None


def case_summary(ctx):
    f = ctx.make_file("sum.dat", 4 * MIB)
    for mode in ("3", "2", "1"):
        args = [f, str(2.0 ** -16), mode]  # 16 KiB blocks
        p = split_clock_run(ctx, args) if mode == "1" else ok_run(ctx, args)[0]
        if p is None:
            continue
        check(p.bufsize == 16384 and len(p.blocks) == 256, "mode %s: %r %d" % (mode, p.bufsize, len(p.blocks)))
        check_summary(p, "mode " + mode)
    # a noisy paced series with stalls: the robust subset leaves them out
    g = ctx.make_file("noisy.dat", 64 * 65536)
    rc, out, err = ctx.slow([g, "64K"], {"IOB_SLOWAFTER_RATE": str(64 * MIB), "IOB_SLOWAFTER_JITTER": "0.2",
                                          "IOB_SLOWAFTER_OUTLIER": "0.08", "IOB_SLOWAFTER_SEED": "3"})
    check(rc == 0, "slowafter noisy: exit %d: %s" % (rc, err))
    p = Parsed(out)
    check(len(p.blocks) == 64, "noisy: %d blocks" % len(p.blocks))
    check_summary(p, "noisy")
    check(p.robust["n"] < p.all["n"], "noisy: the stalls stayed in the robust subset")


def expect_refusal(ctx, args, needle, stdin=None, shell=False, as_user=None):
    if as_user is not None:
        cmd = ["setpriv", "--reuid=%d" % as_user, "--regid=%d" % as_user, "--clear-groups", ctx.bin] + args
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=50)
        rc, out, err = p.returncode, p.stdout.decode(), p.stderr.decode()
    else:
        rc, out, err = ctx.run(args, stdin=stdin, shell=shell)
    label = args if isinstance(args, str) else " ".join(args)
    check(rc == 2, "%s: exit %d, wanted 2 (stderr %r)" % (label, rc, err))
    check(out == "", "%s: printed on stdout: %r" % (label, out))
    lines = err.splitlines()
    check(len(lines) == 1 and lines[0].startswith("bigread: error: "), "%s: not one error line: %r" % (label, err))
    check(needle in lines[0], "%s: %r does not say %r" % (label, lines[0], needle))


def case_errors(ctx):
    f = ctx.make_file("e.dat", MIB)
    empty = ctx.make_file("empty.dat", 0)
    os.mkdir(ctx.path("adir"))
    expect_refusal(ctx, [f, "bufsize=0"], "more than 0")
    expect_refusal(ctx, [f, "0"], "more than 0")
    expect_refusal(ctx, [f, "-0.1"], "more than 0")
    expect_refusal(ctx, ["in=" + f, "bufsize=-1"], "more than 0")
    expect_refusal(ctx, [f, "bufsize=abc"], "not a number")
    expect_refusal(ctx, [f, "0.1x"], "bufsize")
    expect_refusal(ctx, [f, "0.1", "mode=7"], "mode '7'")
    expect_refusal(ctx, [f, "0.1", "mode=7\n8"], "mode '7\\x0a8'")  # one line, whatever the text
    expect_refusal(ctx, [f, "\nn=x"], "unknown keyword in '\\x0an=x'")
    expect_refusal(ctx, ["bufsize=0.1"], "no input")
    expect_refusal(ctx, [ctx.path("missing.dat"), "0.01"], "no such file")
    expect_refusal(ctx, [ctx.path("adir"), "0.01"], "is a directory")
    expect_refusal(ctx, [empty, "0.01"], "is empty")
    expect_refusal(ctx, "printf '' | '%s' - 0.01" % ctx.bin, "standard input gave no data", shell=True)
    expect_refusal(ctx, [f, "0.01", "--bogus"], "unknown option")
    expect_refusal(ctx, [f, "0.01", "-b", "nosuch"], "not loaded")
    # unreadable: as an unprivileged user when we are root, else by mode
    locked = ctx.make_file("locked.dat", MIB)
    if os.geteuid() == 0:
        if not shutil.which("setpriv"):
            print("note: setpriv missing, the unreadable-file check is skipped")
            return
        os.chmod(ctx.tmp, 0o755)
        os.chmod(locked, 0o600)
        expect_refusal(ctx, [locked, "0.01"], "Permission denied", as_user=65534)
    else:
        os.chmod(locked, 0)
        expect_refusal(ctx, [locked, "0.01"], "Permission denied")


def planted(ctx, mode, clock, rate):
    f = ctx.make_file("cliff.dat", 64 * MIB)
    env = {"IOB_SLOWAFTER_RATE": str(rate), "IOB_SLOWAFTER_BYTES": str(24 * MIB),
           "IOB_SLOWAFTER_FACTOR": "5", "IOB_SLOWAFTER_CLOCK": clock}
    rc, out, err = ctx.slow(["in=" + f, "bufsize=0.0009765625", "mode=" + mode], env)  # 1 MiB
    check(rc == 0, "planted (%s): exit %d: %s" % (clock, rc, err))
    p = Parsed(out)
    check(len(p.blocks) == 64, "planted: %d blocks" % len(p.blocks))
    check(p.cliff is not None, "planted cliff at block 24 not found (%s clock):\n%s" % (clock, out))
    c = p.cliff
    check(abs(c["block"] - 24) <= 2, "cliff at block %d, planted at 24" % c["block"])
    check(c["offset"] == c["block"] * MIB, "cliff offset %d for block %d" % (c["offset"], c["block"]))
    check(c["after"] < c["before"] and 0.1 <= c["ratio"] <= 0.6, "cliff levels %r" % c)
    check(abs(c["ratio"] - c["after"] / c["before"]) < 0.002, "cliff ratio %r" % c)
    check_summary(p, "planted")


def case_cliff(ctx):
    planted(ctx, "3", "wall", 256 * MIB)   # 4 ms a block, 20 ms past 24 MiB
    planted(ctx, "2", "cpu", 1024 * MIB)   # 1 ms of CPU a block, 5 ms past 24 MiB


def no_cliff(ctx, args, env=None, tries=3):
    """Flat input: no Cliff line.  A shared machine can really slow down for
    good in the middle of a run, so a run is repeated before failing."""
    for attempt in range(tries):
        rc, out, err = ctx.slow(args, env) if env is not None else ctx.run(args)
        check(rc == 0, "%s: exit %d: %s" % (" ".join(args), rc, err))
        p = Parsed(out)
        if p.cliff is None:
            return p
        print("note: attempt %d saw a cliff: %r" % (attempt + 1, p.cliff))
    raise Failure("a cliff reported on a flat series in %d runs of %s" % (tries, " ".join(args)))


def case_flat(ctx):
    f = ctx.make_file("flat.dat", 16 * MIB)
    p = no_cliff(ctx, [f, "256K"])
    check(len(p.blocks) == 64, "flat file: %d blocks" % len(p.blocks))
    # paced at 2 ms a block, +-30% jitter, 5% of blocks stalled tenfold
    g = ctx.make_file("flat64.dat", 64 * MIB)
    for seed in ("1", "2", "3"):
        p = no_cliff(ctx, [g, "1M"], env={"IOB_SLOWAFTER_RATE": str(512 * MIB), "IOB_SLOWAFTER_JITTER": "0.3",
                                          "IOB_SLOWAFTER_OUTLIER": "0.05", "IOB_SLOWAFTER_SEED": seed})
        check(len(p.blocks) == 64, "paced flat: %d blocks" % len(p.blocks))


def max_rss_kib(ctx, args):
    out = subprocess.run([ctx.rss_probe, ctx.bin] + args, stdout=subprocess.PIPE,
                         timeout=50).stdout.decode().split()
    check(out and out[0] == "0", "memory run %r failed: %r" % (args, out))
    return int(out[1])


def case_memory(ctx):
    big_n = 40000  # past the legacy tool's limit of 10000 blocks
    small = ctx.make_file("few.dat", 16 * 512)
    big = ctx.make_file("many.dat", big_n * 512)
    p, _ = ok_run(ctx, [big, "512B"])
    check(len(p.blocks) == big_n and p.all["n"] == big_n, "many blocks: %d printed" % len(p.blocks))
    if ctx.sanitize:
        print("note: memory growth is not measured under the sanitizers")
        return SKIP
    few = min(max_rss_kib(ctx, [small, "512B"]) for _ in range(2))
    many = min(max_rss_kib(ctx, [big, "512B"]) for _ in range(2))
    per_block = (many - few) * 1024.0 / (big_n - 16)
    print("max RSS: %d KiB for 16 blocks, %d KiB for %d: %.1f bytes a block" % (few, many, big_n, per_block))
    check(per_block <= 128, "memory grows by %.1f bytes a block (limit 128)" % per_block)


def case_modes(ctx):
    f = ctx.make_file("m.dat", 8 * MIB)
    for mode in ("2", "3", "cpu", "wall"):
        p, _ = ok_run(ctx, [f, "1M", mode])
        check(len(p.blocks) == 8, "mode %s: %d blocks" % (mode, len(p.blocks)))
        check_summary(p, "mode " + mode)
    for mode in ("0", "1", "user", "sys"):
        p = split_clock_run(ctx, [f, "1M", mode])
        if p is not None:
            check(len(p.blocks) == 8, "mode %s: %d blocks" % (mode, len(p.blocks)))
            check_summary(p, "mode " + mode)


def case_outputs(ctx):
    f = ctx.make_file("o.dat", 8 * MIB)
    rc, out, err = ctx.run([f, "1M", "--output", "json"])
    check(rc == 0, "json: exit %d %s" % (rc, err))
    doc = json.loads(out)
    recs = doc["records"]
    kinds = [r["kind"] for r in recs]
    check(kinds == ["series"] + ["block"] * 8 + ["phase"], "json kinds %r" % kinds)
    speeds = [r["speed_bytes_per_s"] for r in recs if r["kind"] == "block"]
    s = recs[-1]
    check(abs(s["speed_mean_bytes_per_s"] - sum(speeds) / len(speeds)) <= 1e-9 * max(speeds), "json mean")
    check(s["speed_median_bytes_per_s"] == quantile(sorted(speeds), 0.5), "json median")
    check(s["bytes"] == 8 * MIB and s["blocks"] == 8 and s["cliff"] is False, "json summary %r" % s)
    offs = [r["offset_bytes"] for r in recs if r["kind"] == "block"]
    check(offs == [i * MIB for i in range(8)], "json offsets %r" % offs)
    jf = ctx.path("run.json")
    p, _ = ok_run(ctx, [f, "1M", "-o", "bigread,json=" + jf])
    check(len(p.blocks) == 8, "bigread+json: %d lines" % len(p.blocks))
    with open(jf) as fh:
        check(len(json.load(fh)["records"]) == 10, "json file records")
    rc, out, err = ctx.run([f, "1M", "-o", "human"])
    check(rc == 0 and "[block]" in out and "[phase]" in out, "human output: %d %r" % (rc, err))


def case_cache(ctx):
    f = ctx.make_file("c.dat", 8 * MIB)
    with open(f, "rb") as fh:
        while fh.read(MIB):
            pass
    p, _ = ok_run(ctx, [f, "1M"])
    check(any("in the page cache before the read" in n and "evict it first" in n for n in p.notes),
          "a cached file was not called cached: %r" % p.notes)
    jf = ctx.path("c.json")
    p, _ = ok_run(ctx, [f, "1M", "--evict", "-o", "bigread,json=" + jf])
    check(not any("before the read" in n for n in p.notes), "--evict still says cached before: %r" % p.notes)
    with open(jf) as fh:
        inp = json.load(fh)["records"][-1]
    check(inp["kind"] == "phase" and inp["evicted"] is True, "phase record %r" % inp)
    if inp["resident_before_pct"] is not None and inp["resident_before_pct"] >= 10:
        check(any("still in the page cache after eviction" in n for n in p.notes), "eviction failure unsaid")


def case_interrupt(ctx):
    f = ctx.make_file("i.dat", 64 * MIB)
    env = dict(os.environ, IOB_SLOWAFTER_RATE=str(20 * MIB))  # 50 ms a block, 3.2 s in all
    proc = subprocess.Popen([ctx.bin, "--plugin-dir", ctx.plugin_dir, "-b", "slowafter", f, "1M"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    time.sleep(0.6)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    check(proc.returncode == 130, "interrupted: exit %d, wanted 130 (%r)" % (proc.returncode, err))
    p = Parsed(out.decode())
    check(1 <= len(p.blocks) < 64, "interrupted: %d blocks" % len(p.blocks))
    check(any(n.startswith("interrupted") for n in p.notes), "no interrupted note: %r" % p.notes)
    check_summary(p, "interrupted")


def case_help(ctx):
    rc, out, err = ctx.run(["--help"])
    check(rc == 0 and out.startswith("usage: bigread") and "bufsize=GIB" in out, "--help: %d %r" % (rc, err))
    rc, out, err = ctx.run(["-V"])
    check(rc == 0 and out.startswith("bigread"), "--version: %d %r" % (rc, out))


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--plugin-dir", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--rss-probe", required=True)
    ap.add_argument("--sanitize", action="store_true")
    ap.add_argument("case", choices=sorted(CASES))
    opts = ap.parse_args()
    os.makedirs(opts.work, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=opts.case + "-", dir=opts.work)
    try:
        rc = CASES[opts.case](Ctx(opts, tmp))
    except Failure as e:
        print("FAIL (%s): %s" % (opts.case, e))
        return 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if rc == SKIP:
        return SKIP
    print("ok (%s)" % opts.case)
    return 0


if __name__ == "__main__":
    sys.exit(main())
