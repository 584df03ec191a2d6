#!/usr/bin/env python3
"""Integration tests of the bigread binary.

Each case runs the built binary on files it writes into its own temporary
directory under the build tree (removed afterwards) and checks real outcomes:
the documented lines and nothing else, finite speeds, the summary recomputed
from the printed per-block lines, a planted cliff found where it was planted
(by the test-only backend "slowafter", which paces reads and slows down past
a set offset), silence on flat series, bounded memory, one-line refusals.

Timing cases run on a virtual clock: the test library vclock.c, preloaded,
answers every clock bigread reads (IOBENCH_NO_TSC=1 keeps the engine off the
TSC) and moves only when slowafter sleeps out its pace.  Each block then
lasts exactly what the pace says, whatever the machine is doing, and the
test asserts the exact lines that implies (model_* below replays slowafter).

usage: bigread_test.py --bin BIGREAD [--plugin-dir DIR --rss-probe PROBE --vclock LIB] --work DIR
                       [--sanitize] CASE
"""
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import iobtest as iob  # noqa: E402
from iobtest import SKIP  # noqa: E402
from iobtest import expect as check  # noqa: E402

MIB = 1 << 20
# a number as C's %g prints it (six significant digits, exponent form from 1e6)
G = r"(\d+(?:\.\d+)?(?:e[+-]\d\d+)?)"
BLOCK_RE = re.compile(r"^(\d+) %s$" % G)
SPEED_RE = re.compile(
    r"^Speed: n=(\d+) min={0} max={0} mean={0} median={0} rms={0} \((all|robust)\)$".format(G))
CLIFF_RE = re.compile(r"^Cliff: block=(\d+) offset=(\d+) before={0} after={0} ratio={0}$".format(G))
# IOB_TEST_OS=windows: the .exe under wine (tests/windows).  There is no
# virtual clock, no slowafter backend and no memory probe there (--vclock,
# --plugin-dir and --rss-probe left empty: the cases that need them are not
# registered, and the halves of others that do are said and left out), and
# standard input cannot be read (no stream backend is built).
WINDOWS = os.environ.get("IOB_TEST_OS") == "windows"
STDIN_REFUSAL_WINDOWS = "standard input needs a stream-capable backend"


class Ctx:
    def __init__(self, opts, tmp):
        self.bin = opts.bin
        self.plugin_dir = opts.plugin_dir
        self.sanitize = opts.sanitize
        self.rss_probe = opts.rss_probe
        self.vclock = opts.vclock
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

    def virtual(self, args, env, cpu="user"):
        """bigread through slowafter on the virtual clock; `cpu` says which
        CPU clock (user or sys) moves with it ("none": neither)."""
        e = dict(env, LD_PRELOAD=self.vclock, IOBENCH_NO_TSC="1", IOBTEST_VCLOCK_CPU=cpu)
        if self.sanitize:
            # the preloaded clock comes before the sanitizer runtime
            e["ASAN_OPTIONS"] = os.environ.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0"
        return self.slow(args, e)


class Parsed:
    """bigread's stdout (the legacy lines) and its stderr (the Note: lines)."""

    def __init__(self, out, err=""):
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
            else:
                raise AssertionError("unexpected line on stdout: %r" % line)
        shape = "".join(order)
        check(re.match(r"^Bb*SRC?$", shape) is not None, "lines out of order: " + shape)
        self.notes = [l[6:] for l in err.splitlines() if l.startswith("Note: ")]
        for i, (idx, speed) in enumerate(self.blocks):
            check(idx == i, "block %d printed as %d" % (i, idx))
            check(speed > 0 and math.isfinite(speed), "block %d speed %r" % (i, speed))


def ok_run(ctx, args, **kw):
    rc, out, err = ctx.run(args, **kw)
    check(rc == 0, "bigread %s: exit %d\nstderr: %s" % (" ".join(args), rc, err))
    return Parsed(out, err), err


PROCESS_REFUSAL_WINDOWS = (
    "bigread: error: the process CPU clock measured no time at all over %d block(s), so no speed can be given "
    "(this OS counts CPU time in scheduler ticks, and no tick fell there); time with the wall clock")


def cpu_run(ctx, args, nblocks):
    """ok_run for a run that may be timed with the process CPU clock.  On
    Windows that clock counts whole scheduler ticks, so a short run may
    measure nothing: then it must give the documented refusal (exit 1, no
    speeds) and None is returned."""
    rc, out, err = ctx.run(args)
    if WINDOWS and rc == 1:
        lines = err.splitlines()
        check(lines and lines[-1] == PROCESS_REFUSAL_WINDOWS % nblocks, "%s: stderr %r" % (args, err))
        check(not any(BLOCK_RE.match(l) or l.startswith(("Speed:", "Cliff:")) for l in out.splitlines()),
              "%s: speeds printed with the refusal: %r" % (args, out))
        print("note: %s: the process CPU clock saw no tick (the documented refusal)" % " ".join(args[1:]))
        return None
    check(rc == 0, "bigread %s: exit %d\nstderr: %s" % (" ".join(args), rc, err))
    return Parsed(out, err)


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
    """Equal within what %g's six significant digits leave of the printed
    block speeds and of the printed figure."""
    return abs(a - b) <= 2e-5 * scale


def check_summary(p, label):
    speeds = [s for _, s in p.blocks]
    check(p.all is not None and p.robust is not None, label + ": no Speed lines")
    want = figures(speeds)
    check(p.all["n"] == want["n"] == len(p.blocks), label + ": n %d vs %d blocks" % (p.all["n"], len(p.blocks)))
    for k in ("min", "max", "mean", "median", "rms"):
        check(close(p.all[k], want[k], want["max"]),
              "%s: (all) %s printed %g, recomputed %.6f" % (label, k, p.all[k], want[k]))
    s = sorted(speeds)
    q1, q3 = quantile(s, 0.25), quantile(s, 0.75)
    lo, hi = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
    if any(abs(x - lo) < 2e-5 * s[-1] or abs(x - hi) < 2e-5 * s[-1] for x in s):
        return  # a value sits on a fence within printing precision: either side is right
    rob = [x for x in speeds if lo <= x <= hi]
    want = figures(rob)
    check(p.robust["n"] == want["n"], "%s: (robust) n %d, recomputed %d" % (label, p.robust["n"], want["n"]))
    for k in ("min", "max", "mean", "median", "rms"):
        check(close(p.robust[k], want[k], want["max"]),
              "%s: (robust) %s printed %g, recomputed %.6f" % (label, k, p.robust[k], want[k]))


# ---- the virtual clock's model: what slowafter's pace makes every block last ----

def model_u01(state):
    """slowafter's generator (splitmix64): (u in [0, 1), new state)."""
    state = (state + 0x9e3779b97f4a7c15) & 0xFFFFFFFFFFFFFFFF
    z = state
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & 0xFFFFFFFFFFFFFFFF
    z ^= z >> 31
    return (z >> 11) / 9007199254740992.0, state


def model_ns(sizes, rate, after=None, factor=5.0, jitter=0.0, outlier=0.0, seed=1):
    """The nanoseconds each read lasts, as slowafter computes its pace."""
    out, off, rng = [], 0, seed
    for n in sizes:
        ns = n * 1e9 / rate
        if after is not None and off >= after:
            ns *= factor
        if jitter > 0.0:
            u, rng = model_u01(rng)
            ns *= 1.0 + jitter * (2.0 * u - 1.0)
        if outlier > 0.0:
            u, rng = model_u01(rng)
            if u < outlier:
                ns *= 10.0
        out.append(int(ns))
        off += n
    return out


def model_stats(s):
    """series.c's figures of a sorted list, in its order of operations."""
    n, total = len(s), 0.0
    for x in s:
        total += x
    mean = total / n
    ss = 0.0
    for x in s:
        ss += (x - mean) * (x - mean)
    return {"n": n, "min": s[0], "max": s[-1], "mean": mean, "median": quantile(s, 0.5),
            "rms": math.sqrt(ss / n), "q1": quantile(s, 0.25), "q3": quantile(s, 0.75)}


def model_lines(sizes, ns, cliff=None):
    """bigread's exact lines for blocks of `sizes` bytes lasting `ns` each;
    `cliff` (block, before, after) when the series has one."""
    speeds = [b * 1e9 / t for b, t in zip(sizes, ns)]
    lines = ["BufSize: %d bytes" % sizes[0]] + ["%d %g" % (i, v / MIB) for i, v in enumerate(speeds)]
    s = sorted(speeds)
    a = model_stats(s)
    lo, hi = a["q1"] - 1.5 * (a["q3"] - a["q1"]), a["q3"] + 1.5 * (a["q3"] - a["q1"])
    r = model_stats([x for x in s if lo <= x <= hi])
    for fig, label in ((a, "all"), (r, "robust")):
        lines.append("Speed: n=%d min=%g max=%g mean=%g median=%g rms=%g (%s)" % (
            fig["n"], fig["min"] / MIB, fig["max"] / MIB, fig["mean"] / MIB, fig["median"] / MIB,
            fig["rms"] / MIB, label))
    if cliff is not None:
        block, before, after = cliff
        lines.append("Cliff: block=%d offset=%d before=%g after=%g ratio=%g" % (
            block, sum(sizes[:block]), before / MIB, after / MIB, after / before))
    return lines, speeds


def check_exact(out, want, label):
    """The printed lines (stdout, the notes being on stderr) are exactly `want`."""
    got = out.splitlines()
    for i, (g, w) in enumerate(zip(got, want)):
        check(g == w, "%s: line %d is %r, the virtual clock implies %r" % (label, i + 1, g, w))
    check(len(got) == len(want), "%s: %d lines, wanted %d:\n%s" % (label, len(got), len(want), out))


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
    p = cpu_run(ctx, [f, "0.01", "2"], 3)
    if p is None:
        return
    check(len(p.blocks) == 3, "mode 2: %d blocks" % len(p.blocks))
    check(any("process CPU clock" in n for n in p.notes), "mode 2 without its caveat: %r" % p.notes)


def case_stdin(ctx):
    f = ctx.make_file("s.dat", 24 * MIB)
    rc, out, err = ctx.run("cat '%s' | '%s' - 0.01" % (f, ctx.bin), shell=True)
    check(rc == 0, "cat | bigread - 0.01: exit %d: %s" % (rc, err))
    p = Parsed(out, err)
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


CPU_REFUSAL = ("bigread: error: the %s CPU clock measured no time at all over %d block(s), so no speed can "
               "be given (the kernel splits CPU time into user and system at its scheduler tick, and no "
               "tick fell there); time with the process or wall clock")


def no_vclock(ctx, what):
    """True (and says so) when the virtual clock is not there to run `what`."""
    if ctx.vclock:
        return False
    print("note: %s not run: no virtual clock and paced backend here" % what)
    return True


def case_summary(ctx):
    # real reads: the summary is what the printed blocks imply
    f = ctx.make_file("sum.dat", 4 * MIB)
    for mode in ("3", "2"):
        p = cpu_run(ctx, [f, str(2.0 ** -16), mode], 256)  # 16 KiB blocks
        if p is None:
            continue
        check(p.bufsize == 16384 and len(p.blocks) == 256, "mode %s: %r %d" % (mode, p.bufsize, len(p.blocks)))
        check_summary(p, "mode " + mode)
    if no_vclock(ctx, "the paced noisy series"):
        return
    # a noisy paced series with stalls, on the virtual clock: exact figures,
    # and the robust subset leaves the stalls out
    g = ctx.make_file("noisy.dat", 64 * 65536)
    pace = {"rate": 64 * MIB, "jitter": 0.2, "outlier": 0.08, "seed": 3}
    env = {"IOB_SLOWAFTER_RATE": str(pace["rate"]), "IOB_SLOWAFTER_JITTER": str(pace["jitter"]),
           "IOB_SLOWAFTER_OUTLIER": str(pace["outlier"]), "IOB_SLOWAFTER_SEED": str(pace["seed"])}
    sizes = [65536] * 64
    want, speeds = model_lines(sizes, model_ns(sizes, **pace))
    stalls = sum(1 for v in speeds if v < 0.2 * 64 * MIB)
    check(stalls >= 2, "the model planted %d stalls; pick another seed" % stalls)
    for mode, cpu in (("3", "user"), ("2", "user"), ("2", "sys")):
        rc, out, err = ctx.virtual([g, "64K", mode], env, cpu=cpu)
        check(rc == 0, "noisy mode %s: exit %d: %s" % (mode, rc, err))
        check_exact(out, want, "noisy mode %s (%s)" % (mode, cpu))
        p = Parsed(out)
        check_summary(p, "noisy")
        check(p.robust["n"] == p.all["n"] - stalls, "noisy: robust n %d, %d blocks and %d stalls" % (
            p.robust["n"], p.all["n"], stalls))


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
    expect_refusal(ctx, "printf '' | '%s' - 0.01" % ctx.bin,
                   STDIN_REFUSAL_WINDOWS if WINDOWS else "standard input gave no data", shell=True)
    expect_refusal(ctx, [f, "0.01", "--bogus"], "unknown option")
    expect_refusal(ctx, [f, "0.01", "-b", "nosuch"], "not loaded")
    # unreadable: as an unprivileged user when we are root, else by mode
    locked = ctx.make_file("locked.dat", MIB)
    if WINDOWS:
        print("note: the unreadable-file check is not run: no POSIX permissions under wine")
        return
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


# 1 MiB blocks at 250 MiB/s: 4 ms each, 20 ms past 24 MiB.  Whole
# microseconds, so the user and system clocks (getrusage) see them exactly.
PLANT_RATE = 250 * MIB
PLANT_ENV = {"IOB_SLOWAFTER_RATE": str(PLANT_RATE), "IOB_SLOWAFTER_BYTES": str(24 * MIB),
             "IOB_SLOWAFTER_FACTOR": "5"}


def case_cliff(ctx):
    f = ctx.make_file("cliff.dat", 64 * MIB)
    sizes = [MIB] * 64
    ns = model_ns(sizes, PLANT_RATE, after=24 * MIB, factor=5.0)
    check(ns[:24] == [4000000] * 24 and ns[24:] == [20000000] * 40, "model %r" % ns)
    want, _ = model_lines(sizes, ns, cliff=(24, 250.0 * MIB, 50.0 * MIB))
    check(want[-1] == "Cliff: block=24 offset=25165824 before=250 after=50 ratio=0.2", want[-1])
    check(want[-3] == "Speed: n=64 min=50 max=250 mean=125 median=50 rms=96.8246 (all)", want[-3])
    # every clock: wall, process CPU, and user or system CPU time when the
    # virtual clock moves that one
    for mode, cpu in (("3", "none"), ("wall", "user"), ("2", "user"), ("cpu", "sys"), ("0", "user"),
                      ("user", "user"), ("1", "sys"), ("sys", "sys")):
        rc, out, err = ctx.virtual(["in=" + f, "bufsize=0.0009765625", "mode=" + mode], PLANT_ENV, cpu=cpu)
        check(rc == 0, "planted, mode %s: exit %d: %s" % (mode, rc, err))
        check_exact(out, want, "planted, mode %s (%s time moves)" % (mode, cpu))
        check_summary(Parsed(out), "planted, mode " + mode)


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
    raise AssertionError("a cliff reported on a flat series in %d runs of %s" % (tries, " ".join(args)))


def case_flat(ctx):
    f = ctx.make_file("flat.dat", 16 * MIB)
    p = no_cliff(ctx, [f, "256K"])
    check(len(p.blocks) == 64, "flat file: %d blocks" % len(p.blocks))
    if no_vclock(ctx, "the paced flat series"):
        return
    # paced at 2 ms a block, +-30% jitter, 5% of blocks stalled tenfold, on
    # the virtual clock: exactly these series, and no cliff in any of them
    g = ctx.make_file("flat64.dat", 64 * MIB)
    sizes = [MIB] * 64
    for seed in (1, 2, 3):
        env = {"IOB_SLOWAFTER_RATE": str(512 * MIB), "IOB_SLOWAFTER_JITTER": "0.3",
               "IOB_SLOWAFTER_OUTLIER": "0.05", "IOB_SLOWAFTER_SEED": str(seed)}
        want, _ = model_lines(sizes, model_ns(sizes, 512 * MIB, jitter=0.3, outlier=0.05, seed=seed))
        rc, out, err = ctx.virtual([g, "1M"], env)
        check(rc == 0, "paced flat, seed %d: exit %d: %s" % (seed, rc, err))
        check_exact(out, want, "paced flat, seed %d" % seed)


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
    if ctx.sanitize or os.environ.get("IOB_TSAN"):
        print("note: memory growth is not measured under the sanitizers")
        return SKIP
    if not ctx.rss_probe:
        print("note: memory growth is not measured here: no memory probe")
        return
    few = min(max_rss_kib(ctx, [small, "512B"]) for _ in range(2))
    many = min(max_rss_kib(ctx, [big, "512B"]) for _ in range(2))
    per_block = (many - few) * 1024.0 / (big_n - 16)
    print("max RSS: %d KiB for 16 blocks, %d KiB for %d: %.1f bytes a block" % (few, many, big_n, per_block))
    check(per_block <= 128, "memory grows by %.1f bytes a block (limit 128)" % per_block)
    # a block above 64 MiB is read in pieces into one 64 MiB buffer: a
    # 192 MiB block (a sparse file: no disk space) holds 64 MiB, not 192
    huge = ctx.path("huge.dat")
    with open(huge, "wb") as f:
        f.truncate(192 * MIB)
    p, _ = ok_run(ctx, [huge, "192M"])
    check(len(p.blocks) == 1 and p.all["n"] == 1, "192 MiB block: %d printed" % len(p.blocks))
    peak = min(max_rss_kib(ctx, [huge, "192M"]) for _ in range(2))
    print("max RSS: %d KiB for one 192 MiB block" % peak)
    check(peak < 96 * 1024, "a 192 MiB block took %d KiB at its peak (want below 96 MiB: one 64 MiB piece)" % peak)


def case_modes(ctx):
    f = ctx.make_file("m.dat", 8 * MIB)
    for mode in ("2", "3", "cpu", "wall"):
        p = cpu_run(ctx, [f, "1M", mode], 8)
        if p is None:
            continue
        check(len(p.blocks) == 8, "mode %s: %d blocks" % (mode, len(p.blocks)))
        check_summary(p, "mode " + mode)
    if no_vclock(ctx, "the user and system clocks on the paced series"):
        return
    # The user and system clocks (mode 0 and 1) on the virtual clock: the
    # one that moves gives exact speeds; the one that does not gives the
    # documented refusal, exit 1 and no block line; mode 2 (their sum) is
    # exact either way.  Every mode is named in its caveat.
    sizes = [MIB] * 8
    want, _ = model_lines(sizes, model_ns(sizes, PLANT_RATE, after=24 * MIB, factor=5.0))
    for cpu, measured, idle in (("user", ("0", "user"), ("1", "sys")), ("sys", ("1", "sys"), ("0", "user"))):
        other = "system" if cpu == "user" else "user"
        for mode in measured + ("2",):
            rc, out, err = ctx.virtual([f, "1M", mode], PLANT_ENV, cpu=cpu)
            check(rc == 0, "mode %s with %s time moving: exit %d: %s" % (mode, cpu, rc, err))
            check_exact(out, want, "mode %s (%s time moves)" % (mode, cpu))
            clock = "process" if mode == "2" else "user" if cpu == "user" else "system"
            check(any("timed with the %s CPU clock" % clock in n for n in Parsed(out, err).notes),
                  "mode %s: no CPU clock caveat: %r" % (mode, out))
        for mode in idle:
            rc, out, err = ctx.virtual([f, "1M", mode], PLANT_ENV, cpu=cpu)
            label = "mode %s with only %s time moving" % (mode, cpu)
            check(rc == 1, "%s: exit %d, wanted 1 (%r)" % (label, rc, err))
            lines = err.splitlines()
            check(lines and lines[-1] == CPU_REFUSAL % (other, 8) and
                  all(l.startswith("Note: ") for l in lines[:-1]), "%s: stderr %r" % (label, err))
            check(not any(BLOCK_RE.match(l) or l.startswith(("Speed:", "Cliff:")) for l in out.splitlines()),
                  "%s: speeds printed: %r" % (label, out))
            check(re.search(r"\b(inf|nan)\b", out, re.IGNORECASE) is None, "%s: inf/nan: %r" % (label, out))


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
    # the pages stay mapped through the run: another test dropping every cache as
    # root while bigread starts (slowly, on a loaded machine) cannot take them
    with iob.held_in_cache(f):
        p, _ = ok_run(ctx, [f, "1M"])
    # measured after the read (the kernel's count of bytes fetched from storage)
    check(any("% of the data read came from memory, not storage" in n and
              ("evict the file first" in n or "a memory file system" in n)
              for n in p.notes), "a cached file was not called cached: %r" % p.notes)
    jf = ctx.path("c.json")
    p, _ = ok_run(ctx, [f, "1M", "--evict", "-o", "bigread,json=" + jf])
    # (on a memory file system every read comes from memory, and the note says why)
    check(not any("before the read" in n or ("came from memory" in n and "memory file system" not in n)
                  for n in p.notes), "--evict still says cached: %r" % p.notes)
    with open(jf) as fh:
        inp = json.load(fh)["records"][-1]
    check(inp["kind"] == "phase" and inp["evicted"] is True, "phase record %r" % inp)
    if inp["resident_before_pct"] is not None and inp["resident_before_pct"] >= 10:
        # measured after the read, or (storage not counted) predicted before it
        check(any("still in the page cache after eviction" in n or "came from memory, not storage" in n
                  for n in p.notes), "eviction failure unsaid: %r" % p.notes)


def case_interrupt(ctx):
    f = ctx.make_file("i.dat", 64 * MIB)
    env = dict(os.environ, IOB_SLOWAFTER_RATE=str(4 * MIB))  # 250 ms a block, 16 s in all
    proc = subprocess.Popen([ctx.bin, "--plugin-dir", ctx.plugin_dir, "-b", "slowafter", f, "1M"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    # signalled once two blocks were read (the kernel's count of the process's
    # reads), not after a fixed 0.6 s: a loaded machine or a sanitizer build
    # may not have read one block by then, and the case wants one or more
    end = time.monotonic() + 30
    while proc.poll() is None and time.monotonic() < end and iob.rchar(proc.pid) < 2 * MIB:
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    check(proc.returncode == 130, "interrupted: exit %d, wanted 130 (%r)" % (proc.returncode, err))
    p = Parsed(out.decode(), err.decode())
    check(1 <= len(p.blocks) < 64, "interrupted: %d blocks" % len(p.blocks))
    check(any(n.startswith("interrupted") for n in p.notes), "no interrupted note: %r" % p.notes)
    check_summary(p, "interrupted")


def sparse_file(ctx, name, size):
    p = ctx.path(name)
    with open(p, "wb") as f:
        f.truncate(size)
    return p


def json_phase(path):
    with open(path) as f:
        recs = json.load(f)["records"]
    blocks = [r for r in recs if r["kind"] == "block"]
    phases = [r for r in recs if r["kind"] == "phase"]
    check(len(phases) == 1, "%s: %d phase records" % (path, len(phases)))
    return phases[0], blocks


def block_sigpipe():
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGPIPE})


def head_one(ctx, args, env=None, lines=1, blocked=False):
    """bigread ARGS | head -LINES: head's lines, bigread's exit, its stderr
    and the wall time, measured here.  blocked: bigread starts with SIGPIPE
    blocked (so a write to the gone reader would only fail with EPIPE)."""
    t0 = time.monotonic()
    p1 = subprocess.Popen([ctx.bin] + args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, env=env, preexec_fn=block_sigpipe if blocked else None)
    p2 = subprocess.Popen(["head", "-%d" % lines], stdin=p1.stdout, stdout=subprocess.PIPE)
    p1.stdout.close()  # head holds the only read end
    line = p2.communicate(timeout=50)[0].decode()
    err = p1.communicate(timeout=50)[1].decode()
    return line, p1.returncode, err, time.monotonic() - t0


def case_pipe_head(ctx):
    """bigread FILE | head -1 on a 4 GiB sparse file: the header comes before
    the first block, and head's exit stops the read at once (exit 141, the
    blocks read so far in the JSON file), not after the whole file."""
    size = 4 << 30
    f = sparse_file(ctx, "h.dat", size)
    j = ctx.path("h.json")
    line, rc, err, secs = head_one(ctx, [f, "-o", "bigread,json=" + j])
    check(line == "BufSize: 1073741824 bytes\n", "head -1 got %r" % line)
    check(rc == 128 + signal.SIGPIPE, "exit %d, wanted 141: %r" % (rc, err))
    ph, blocks = json_phase(j)
    check(ph["status"] == "interrupted", "phase %r" % ph)
    check(ph["bytes"] == sum(b["bytes"] for b in blocks) == ph["size_bytes"], "bytes %r vs blocks %r" % (ph, blocks))
    check(ph["bytes"] < size, "the whole file was read: %d bytes" % ph["bytes"])
    print("posix: %d of %d bytes read, %.2f s" % (ph["bytes"], size, secs))
    # started with SIGPIPE blocked: the same (the stop signals are unblocked)
    line, rc, err, secs = head_one(ctx, [f, "-o", "bigread,json=" + j], blocked=True)
    ph, blocks = json_phase(j)
    check(line == "BufSize: 1073741824 bytes\n" and rc == 141 and ph["status"] == "interrupted"
          and ph["bytes"] < size, "SIGPIPE blocked at start: %r, exit %d, %r, %r" % (line, rc, ph, err))
    if WINDOWS or not ctx.plugin_dir:
        return
    # head -2 takes the header and block 0's line (blocks of 256 MiB), which is
    # final once block 1 is read.  Paced to 1 GiB/s (slowafter sleeps 64 ms
    # per 64 MiB piece), head has left long before block 2 could end, however
    # busy the machine is: the read stops inside block 2, at the end of a piece.
    env = dict(os.environ, IOB_SLOWAFTER_RATE=str(1 << 30))
    got, rc, err, secs = head_one(ctx, ["--plugin-dir", ctx.plugin_dir, "-b", "slowafter", f, "0.25", "-o",
                                        "bigread,json=" + j], env=env, lines=2)
    check(got.startswith("BufSize: 268435456 bytes\n0 ") and rc == 141, "paced: %r, exit %d, %r" % (got, rc, err))
    ph, blocks = json_phase(j)
    check(ph["status"] == "interrupted" and (512 << 20) <= ph["bytes"] < (768 << 20),
          "paced: not stopped inside block 2: %r %r" % (ph, blocks))
    check(ph["bytes"] == sum(b["bytes"] for b in blocks) and ph["bytes"] % (64 << 20) == 0,
          "paced: %d bytes is not whole 64 MiB pieces, or not the blocks' %r" % (ph["bytes"], blocks))
    print("slowafter at 1 GiB/s, head -2: %d bytes read, %.2f s" % (ph["bytes"], secs))


def case_pipe_live(ctx):
    """Block lines reach a pipe while the read goes on: slowafter makes the
    first 8 blocks fast (16 ms) and every later one 3.2 s, so lines 0 to 6
    must come through the pipe long before the read could end (they are
    final once the next block is read); then SIGINT ends it."""
    f = ctx.make_file("l.dat", 64 * MIB)
    env = dict(os.environ, IOB_SLOWAFTER_RATE=str(64 * MIB), IOB_SLOWAFTER_BYTES=str(8 * MIB),
               IOB_SLOWAFTER_FACTOR="200")
    proc = subprocess.Popen([ctx.bin, "--plugin-dir", ctx.plugin_dir, "-b", "slowafter", f, "1M"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    got = []
    try:
        while len(got) < 8:
            line = proc.stdout.readline().decode()
            check(line, "pipe closed after %r" % got)
            got.append(line)
        alive = proc.poll() is None
    finally:
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=50)
    check(alive, "bigread had ended when line 6 came: the lines were held to the end")
    check(got[0].startswith("BufSize: ") and [l.split()[0] for l in got[1:]] == [str(i) for i in range(7)],
          "lines %r" % got)
    check(proc.returncode == 130, "exit %d after SIGINT: %r" % (proc.returncode, err))
    p = Parsed("".join(got) + rest.decode(), err.decode())
    check(len(p.blocks) >= 7 and p.all is not None, "partial summary: %d blocks" % len(p.blocks))


def case_closed_fds(ctx):
    """A closed standard descriptor is opened on /dev/null before anything
    else: reading a closed standard input is refused, so is a closed standard
    output; a closed stdin or stderr does not matter to a file read."""
    f = ctx.make_file("c.dat", 4 * MIB)
    sh = lambda redir, args: "exec %s %s %s" % (ctx.bin, " ".join(args), redir)
    expect_refusal(ctx, sh("<&-", ["-", "0.001"]), "standard input is closed", shell=True)
    expect_refusal(ctx, sh("<&-", ["in=-", "1M", "-o", "json"]), "standard input is closed", shell=True)
    rc, out, err = ctx.run(sh(">&-", [f, "1M"]), shell=True)
    check(rc == 2 and "standard output is closed" in err and len(err.splitlines()) == 1, "stdout closed: %d %r" % (rc, err))
    for redir in ("<&-", "2>&-"):
        rc, out, err = ctx.run(sh(redir, [f, "1M"]), shell=True)
        check(rc == 0 and err == "" if redir == "2>&-" else rc == 0, "%s: exit %d %r" % (redir, rc, err))
        check(len(Parsed(out).blocks) == 4, "%s: %r" % (redir, out))
    # the same guard in every binary
    for tool in ("iobench", "iotest", "io_profile"):
        b = os.path.join(os.path.dirname(ctx.bin), tool)
        rc, out, err = ctx.run("exec %s --version >&-" % b, shell=True)
        check(rc == 2 and "standard output is closed" in err, "%s, stdout closed: %d %r" % (tool, rc, err))


def same_file(a, b):
    """Two paths the tools printed name the same file; under wine a resolved
    path starts with the drive (Z:) that holds Linux's root."""
    if WINDOWS:
        a, b = (re.sub(r"^[A-Za-z]:", "", x.replace("\\", "/")) for x in (a, b))
    return a == b


def case_dump_profile(ctx):
    """--dump-profile prints the one job bigread runs; iobench run on it, from
    another directory, gives the same records as bigread itself."""
    f = ctx.make_file("d.dat", 8 * MIB)
    rc, prof, err = ctx.run([f, "1M", "--dump-profile"])
    check(rc == 0 and "series = true" in prof and "phases = read" in prof, "dump: %d %r %r" % (rc, prof, err))
    ini = ctx.path("d.ini")
    with open(ini, "w") as fh:
        fh.write(prof)
    iobench = os.path.join(os.path.dirname(ctx.bin), "iobench")
    p = subprocess.run([iobench, "run", ini, "--output", "json"], cwd="/", stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=50)
    check(p.returncode == 0, "iobench run on the dump: %d %r" % (p.returncode, p.stderr))
    via = json.loads(p.stdout)["records"]
    rc, out, err = ctx.run([f, "1M", "-o", "json"])
    check(rc == 0, "bigread json: %d %r" % (rc, err))
    own = json.loads(out)["records"]
    check(("size = %d\n" % (8 * MIB)) in prof.replace("\r\n", "\n"), "the dump's size is not the file's: %r" % prof)
    check([r["kind"] for r in via] == [r["kind"] for r in own], "kinds %r vs %r" % (via, own))
    check([list(r.keys()) for r in via] == [list(r.keys()) for r in own], "keys differ")
    for a, b in zip(via, own):
        if a["kind"] == "block":
            check((a["index"], a["offset_bytes"], a["bytes"]) == (b["index"], b["offset_bytes"], b["bytes"]),
                  "block %r vs %r" % (a, b))
        if a["kind"] == "phase":
            check(a["bytes"] == b["bytes"] == 8 * MIB and a["blocks"] == b["blocks"] == 8, "phase %r vs %r" % (a, b))
            check(a["size_bytes"] == b["size_bytes"] == 8 * MIB, "size_bytes %r vs %r" % (a, b))
            check(same_file(a["file"], b["file"]) and a["series_clock"] == b["series_clock"] == "wall", "phase %r" % a)
    rc, prof, err = ctx.run(["-", "1M", "--dump-profile"])
    if WINDOWS:
        check(rc == 2 and STDIN_REFUSAL_WINDOWS in err, "stdin dump: %d %r" % (rc, err))
        return
    check(rc == 0 and "filename = -" in prof and "backend = stdio" in prof, "stdin dump: %r %r" % (prof, err))


def case_nemo(ctx):
    """NEMO's system keywords: debug= and help= honoured, the others refused
    with the reason; the notes on stderr, stdout the legacy lines alone."""
    f = ctx.make_file("n.dat", 8 * MIB)
    for level in ("0", "1", "2"):
        # the candidate line is said only when no cliff was found: a shared
        # machine can slow down for good mid-run, so such a run is repeated
        for attempt in range(3):
            p, err = ok_run(ctx, [f, "1M", "debug=" + level])
            if p.cliff is None:
                break
            print("note: debug=%s, attempt %d saw a cliff: %r" % (level, attempt + 1, p.cliff))
        check(len(p.blocks) == 8, "debug=%s: %d blocks" % (level, len(p.blocks)))
        said = "best candidate" in err
        check(said == (level != "0"), "debug=%s: the cliff candidate %s on stderr: %r" % (
            level, "missing" if not said else "printed", err))
        check(p.notes and all(l.startswith(("Note: ", "bigread: ")) for l in err.splitlines()),
              "debug=%s: stderr %r" % (level, err))
    for args in (["help="], ["help=h"], [f, "help=1"], ["debug=1", "help="]):
        rc, out, err = ctx.run(args)
        check(rc == 0 and out.startswith("usage: bigread") and "debug=N" in out and err == "",
              "%s: %d %r %r" % (args, rc, out[:40], err))
    expect_refusal(ctx, [f, "debug=x"], "debug='x' is not a level")
    expect_refusal(ctx, [f, "debug=10"], "debug='10' is not a level")
    for key in ("yapp", "error", "review", "tcl", "outkeys", "np"):
        expect_refusal(ctx, [f, "1M", key + "=1"], "NEMO keyword %s= is not supported: bigread " % key)


def case_help(ctx):
    rc, out, err = ctx.run(["--help"])
    check(rc == 0 and out.startswith("usage: bigread") and "bufsize=GIB" in out, "--help: %d %r" % (rc, err))
    rc, out, err = ctx.run(["-V"])
    check(rc == 0 and out.startswith("bigread"), "--version: %d %r" % (rc, out))


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}


def main():
    opts = iob.arguments("--bin", "--work", optional={"--plugin-dir": "", "--rss-probe": "", "--vclock": "",
                                                      "--sanitize": {"action": "store_true"},
                                                      "case": {"choices": sorted(CASES)}})
    return iob.run_case(opts, {"case_" + opts.case: lambda tmp: CASES[opts.case](Ctx(opts, tmp))})


if __name__ == "__main__":
    sys.exit(main())
