#!/usr/bin/env python3
"""iobench's metadata job (workload = files, docs/metadata.md) against mdtest, in one run.

  bench/mdtest.py --build build [--ior DIR] [--dir DIR] [--files N] [--rounds 5] [--json out.json]
                  [--only s1,s2,m2] [--cpu] [--mdtest-path rel|abs] [--no-held] [--dirs]
                  [--quick [--selftest-unequal]]

mdtest comes from ../shared/reference/build-ior.sh (IOR and mdtest from the source kept there); it is
built into --ior (default BUILD/build-ior) when DIR/bin/mdtest is missing.  Exit 77, saying why, when it
cannot be built or run here.

Scenarios, the same shape on the same file system (--dir, default /var/tmp/iobench-mdtest), N empty files
per stream in a directory per stream (mdtest -F -u, tree depth 0), phases create, stat, remove:
  s1  one stream: mdtest (one process) vs iobench threads = 1
  s2  two streams: mdtest under mpirun -n 2 (mdtest has no threads) vs iobench threads = 2 (one process)
  m2  two ranks: mdtest under mpirun -n 2 vs iobench under mpirun -n 2 (threads = 1)
The contenders run in interleaved rounds (rotating which goes first); the median of each tool's own rate
per phase is printed with the ratio iobench / mdtest.

--dirs: directories as the items, mdtest -D (its "Directory creation", "Directory stat", "Directory
removal": mkdir, stat and rmdir of N directories dir.mdtest.R.I in the rank's tree directory, each by its
whole path) against iobench's mkdir, dirstat and rmdir phases over a tree of depth 1 and branching N - 1
per stream: N directories, the root and N - 1 in it (files = 1, never made).  The counts are equal, and
N - 1 of the N directories sit in one directory as mdtest's N do; the one left over is iobench's root,
made, stat'ed and removed in the work directory where mdtest makes its tree directory in its own
untimed "Tree creation".

Equal work or no ratio: mdtest's "N tasks, M files" line and the summary's phases, iobench's JSON "meta"
records (ops, streams): the files each made, statted and removed must be equal, else the pair is INVALID.
Both tools give a phase's rate as IOR's rule has it: all items / (latest end - earliest start) over the
ranks, from a common barrier.

The same walk: mdtest reaches each file by its whole path on every operation, so iobench runs with
path_walk = full (create and open resolve ROOT/f.G.I from the job's directory with openat2 refusing
links, stat is one fstatat of it as mdtest's; remove unlinks in the directory opened by its path once for
its files, docs/metadata.md "Path walk"), and mdtest runs in the work directory with -d . (--mdtest-path rel, the default), so that both give the
kernel a relative path of about the same depth (mdtest ./test-dir.0-0/mdtest_tree.R.0/file.mdtest.R.I,
iobench iobench.md.G/f.G.I); --mdtest-path abs gives mdtest the absolute work directory instead, as it
is usually run (more components to walk).  iobench's own way, path_walk = held (one name from a held
directory), runs in the same rounds and is printed beside ("held"), with its ratio to mdtest.

--cpu: on a shared machine the wall-clock rates measure the scheduler's share as much as the tools; the
CPU time (user + system, getrusage of the children: every rank and thread) is steadier.  Each round then
also runs each tool with 2N files per stream, and the CPU time per item is (cpu(2N) - cpu(N)) / (N x
streams), which cancels start-up (mpirun, plugin loading) and tree setup: the cost of one file's create,
stat and remove together, median over the rounds.
"""
import argparse
import json
import os
import resource
import re
import shutil
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD_IOR = os.path.join(HERE, "..", "..", "shared", "reference", "build-ior.sh")
FILE_PHASES = {"create": "File creation", "stat": "File stat", "remove": "File removal"}
DIR_PHASES = {"mkdir": "Directory creation", "dirstat": "Directory stat", "rmdir": "Directory removal"}
MD_PHASES = FILE_PHASES  # --dirs: DIR_PHASES
SKIP = 77


def skip(why):
    print(f"skip: {why}")
    sys.exit(SKIP)


def ensure_mdtest(ior_dir):
    md = os.path.join(ior_dir, "bin", "mdtest")
    if os.access(md, os.X_OK):
        return md
    script = os.path.normpath(BUILD_IOR)
    if not os.path.isfile(script):
        skip(f"no {script}: mdtest's source is not kept here")
    if not shutil.which("mpicc"):
        skip("no mpicc (MPICH's libmpich-dev): mdtest cannot be built")
    for tool in ("autoconf", "automake", "make"):
        if not shutil.which(tool):
            skip(f"no {tool}: mdtest cannot be built")
    p = subprocess.run(["sh", script, os.path.abspath(ior_dir)], capture_output=True, text=True)
    if p.returncode != 0 or not os.access(md, os.X_OK):
        skip(f"build-ior.sh failed (exit {p.returncode}): {(p.stderr or p.stdout).strip()[-300:]}")
    return md


def bench_args(doc, dir_default):
    """The arguments bench/ior.py and this script share: --build, --ior (where IOR and mdtest are
    built, BUILD/build-ior by default), --dir (the work directory), --rounds and --json; each adds its
    own."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True)
    ap.add_argument("--ior", default=None)
    ap.add_argument("--dir", default=dir_default)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json", default=None)
    return ap


def bench_setup(a, no_mpirun):
    """After the arguments: the build directory absolute, IOR and mdtest built (or exit 77 saying
    why; without mpirun, no_mpirun), DIR/.bench made (a.tmp).  mdtest's path."""
    a.build = os.path.abspath(a.build)
    a.ior = a.ior or os.path.join(a.build, "build-ior")
    if not shutil.which("mpirun"):
        skip(no_mpirun)
    md = ensure_mdtest(a.ior)
    a.tmp = os.path.join(a.dir, ".bench")
    os.makedirs(a.tmp, exist_ok=True)
    return md


def parse_mdtest(text):
    """Rates (Mean of the rate summary) per phase and the work: tasks x files per task."""
    m = re.search(r"^(\d+) tasks, (\d+) (files|directories)", text, re.M)
    if not m:
        raise RuntimeError(f"mdtest: no 'N tasks, M files' (or directories) line:\n{text[-2000:]}")
    tasks, files = int(m.group(1)), int(m.group(2))
    rates = {}
    summary = text.split("SUMMARY rate", 1)[1] if "SUMMARY rate" in text else ""
    summary = summary.split("SUMMARY time", 1)[0]
    for ph, label in MD_PHASES.items():
        r = re.search(r"^\s*" + re.escape(label) + r"\s*:?\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)", summary, re.M)
        if r:
            rates[ph] = float(r.group(3))
    # mdtest's "files" is the whole run's; every phase handles all of them
    return rates, {ph: files for ph in rates}, tasks


def parse_iobench(path, walk):
    with open(path) as f:
        recs = json.load(f)["records"]
    rates, work, streams = {}, {}, None
    for r in recs:
        if r.get("kind") == "meta" and r["phase"] in MD_PHASES and r["status"] == "ok":
            if r.get("path_walk") != walk:
                raise RuntimeError(f"{path}: the {r['phase']} record says path_walk {r.get('path_walk')}, want {walk}")
            rates[r["phase"]] = r["ops_per_s"]
            work[r["phase"]] = r["ops"]
            streams = r["streams"]
    return rates, work, streams


def clean(d):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)


def timed(argv, cwd=None):
    """subprocess.run, and the CPU time (user + system) its process tree took."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(argv, capture_output=True, text=True, timeout=3600, cwd=cwd)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p.cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return p


def run_mdtest(a, md, d, n, ranks):
    clean(d)
    rel = a.mdtest_path == "rel"
    items = "-D" if MD_PHASES is DIR_PHASES else "-F"
    argv = [md, "-n", str(n), items, "-u", "-C", "-T", "-r", "-d", "." if rel else d]
    if ranks > 1:
        argv = ["mpirun", "-n", str(ranks)] + argv
    p = timed(argv, cwd=d if rel else None)
    a.last_cpu = p.cpu
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: exit {p.returncode}\n{p.stdout[-1500:]}{p.stderr[-1500:]}")
    rates, work, tasks = parse_mdtest(p.stdout)
    return rates, work, tasks, (f"(cd {d} && " if rel else "") + " ".join(argv) + (")" if rel else "")


def run_iobench(a, d, n, threads, ranks, walk="full"):
    clean(d)
    prof = os.path.join(a.tmp, f"meta-{walk}.ini")
    with open(prof, "w") as f:
        if MD_PHASES is DIR_PHASES:  # n directories: the root and n - 1 in it
            f.write(f"[md]\nworkload = files\ndir = {d}\nfiles = 1\ntree_depth = 1\ntree_branch = {n - 1}\n"
                    f"threads = {threads}\nmeta_phases = mkdir,dirstat,rmdir\npath_walk = {walk}\n")
        else:
            f.write(f"[md]\nworkload = files\ndir = {d}\nfiles = {n}\nthreads = {threads}\n"
                    f"meta_phases = create,stat,remove\npath_walk = {walk}\n")
    out = os.path.join(a.tmp, "meta.json")
    argv = [os.path.join(a.build, "bin", "iobench"), "run", prof, "-o", "json=" + out]
    if ranks > 1:
        argv = ["mpirun", "-n", str(ranks)] + argv
    p = timed(argv)
    a.last_cpu = p.cpu
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: exit {p.returncode}\n{p.stderr[-1500:]}")
    rates, work, streams = parse_iobench(out, walk)
    shape = f"tree_depth = 1, tree_branch = {n - 1}" if MD_PHASES is DIR_PHASES else f"files = {n}"
    return rates, work, streams, " ".join(argv) + f"   ({prof}: {shape}, threads = {threads}, path_walk = {walk})"


SCEN = {
    "s1": ("one stream", 1, 1, 1),  # (title, mdtest ranks, iobench threads, iobench ranks)
    "s2": ("two streams: mdtest 2 ranks, iobench 2 threads", 2, 2, 1),
    "m2": ("two ranks each", 2, 1, 2),
}


def main():
    ap = bench_args(__doc__, "/var/tmp/iobench-mdtest")
    ap.add_argument("--files", type=int, default=20000)
    ap.add_argument("--only", default="s1,s2,m2")
    ap.add_argument("--quick", action="store_true", help="200 files, 1 round: the figures mean nothing")
    ap.add_argument("--cpu", action="store_true",
                    help="also the CPU time per item, from runs of N and 2N files per stream (above)")
    ap.add_argument("--mdtest-path", choices=("rel", "abs"), default="rel",
                    help="mdtest's -d: rel runs it in the work directory with -d . (the walk iobench's path_walk = "
                         "full makes), abs gives it the absolute work directory")
    ap.add_argument("--no-held", action="store_true", help="leave out iobench's held-directory runs")
    ap.add_argument("--dirs", action="store_true",
                    help="directories as the items: mdtest -D against iobench's mkdir, dirstat, rmdir (above)")
    ap.add_argument("--selftest-unequal", action="store_true",
                    help="iobench makes one file fewer per stream: every pair must come out INVALID")
    a = ap.parse_args()
    global MD_PHASES
    if a.dirs:
        MD_PHASES = DIR_PHASES
    if a.quick:
        a.files, a.rounds = 200, 1
    md = bench_setup(a, "no mpirun (MPICH): mdtest needs it for two streams")
    work_dir = os.path.join(a.dir, "w")
    out, bad = {}, 0
    try:
        with open("/proc/sys/kernel/sched_autogroup_enabled") as f:
            autogroup = f.read().strip() == "1"
    except OSError:
        autogroup = False
    if autogroup and "s2" in a.only.split(","):
        print("note: sched_autogroup_enabled = 1: mpirun starts each rank in a session (an autogroup) of its own,\n"
              "      iobench's threads share one, so on a busy machine s2's wall-clock rates compare the\n"
              "      scheduler's shares (two groups' against one), not the tools; see the CPU time per item (--cpu)")
    tools = ["mdtest", "iobench"] + ([] if a.no_held else ["held"])
    for key in a.only.split(","):
        title, md_ranks, threads, ranks = SCEN[key]
        samples = {t: [] for t in tools}
        cpu = {t: [] for t in tools}
        cmds = {}
        works = {}

        def one(who, n):
            if who == "mdtest":
                return run_mdtest(a, md, work_dir, n, md_ranks)
            return run_iobench(a, work_dir, n - a.selftest_unequal, threads, ranks,
                               "full" if who == "iobench" else "held")

        for rnd in range(a.rounds):
            k = rnd % len(tools)
            for who in tools[k:] + tools[:k]:  # rotating which goes first
                rates, work, n, cmd = one(who, a.files)
                samples[who].append(rates)
                if a.cpu:
                    c1 = a.last_cpu
                    one(who, 2 * a.files)
                    cpu[who].append((a.last_cpu - c1) / ((a.files - (who != "mdtest") * a.selftest_unequal)
                                                         * max(md_ranks, threads * ranks)))
                cmds[who] = cmd
                works.setdefault(who, work)
                if work != works[who]:
                    works[who] = None
        shutil.rmtree(work_dir, ignore_errors=True)
        equal = {t: works["mdtest"] is not None and works["mdtest"] == works[t] for t in tools[1:]}
        res = {"title": title, "commands": cmds, "work": works, "equal_work": equal, "phases": {}}
        print(f"\n[{key}] {title}, {a.files} {'directories' if a.dirs else 'files'} per stream, {a.rounds} round(s)")
        for who, c in cmds.items():
            print(f"  {who}: {c}")
        for t in tools[1:]:
            if not equal[t]:
                bad += 1
                print(f"  INVALID: unequal work: mdtest {works['mdtest']}, {t} {works[t]}")
        for ph in MD_PHASES:
            med, ratio = {}, {}
            for t in tools:
                v = [s[ph] for s in samples[t] if ph in s]
                med[t] = statistics.median(v) if v else None
            if med["mdtest"] is None or med["iobench"] is None:
                continue
            for t in tools[1:]:
                ratio[t] = med[t] / med["mdtest"] if med["mdtest"] and med[t] and equal[t] else None
            res["phases"][ph] = {f"{t}_ops_per_s": [s[ph] for s in samples[t] if ph in s] for t in tools}
            res["phases"][ph].update({f"{t}_median": med[t] for t in tools})
            res["phases"][ph].update({"ratio" if t == "iobench" else "held_ratio": ratio[t] for t in tools[1:]})
            rs = {t: f"{ratio[t]:.3f}" if ratio[t] is not None else "INVALID" for t in tools[1:]}
            line = (f"  {ph:7s} mdtest {med['mdtest']:12.1f} ops/s   iobench {med['iobench']:12.1f} ops/s   "
                    f"iobench/mdtest {rs['iobench']}")
            if "held" in tools:
                line += f"   (held {med['held']:12.1f} ops/s, held/mdtest {rs['held']})"
            print(line)
        if a.cpu and all(cpu[t] for t in tools):
            mc = statistics.median(cpu["mdtest"])
            res["cpu_s_per_item"] = {t: cpu[t] for t in tools}
            line = f"  CPU per item ({' + '.join(MD_PHASES)}): mdtest {mc * 1e9:7.0f} ns"
            for t in tools[1:]:
                c = statistics.median(cpu[t])
                cr = f"{c / mc:.3f}" if mc > 0 and equal[t] else "INVALID"
                line += f"   {t} {c * 1e9:7.0f} ns ({t}/mdtest {cr})"
            print(line)
        res["load_average"] = os.getloadavg()
        print(f"  load average after: {' '.join('%.2f' % x for x in os.getloadavg())}")
        out[key] = res
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
    shutil.rmtree(a.tmp, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
