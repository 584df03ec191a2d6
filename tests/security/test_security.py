#!/usr/bin/env python3
"""Security and reliability cases of issue 15, one per cause, run as whoever
runs ctest (root in CI) and, where it matters, as an unprivileged user too
(setpriv to 'nobody'; skipped with the reason when not root).

  python3 test_security.py --bin DIR --work DIR CASE

Exit 0 pass, 1 fail, 77 skip.  Race cases are bounded loops: the assertion
is about what must never happen (a file outside the run's directory changed
or removed), never about timing."""
import os
import pwd
import shutil
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import iobtest as iob  # noqa: E402
from iobtest import SKIP  # noqa: E402

BIN = ""


def expect(cond, what):
    iob.soft(cond, what, 600)


def run(tool, *args, user=None, cwd=None, env=None, input=None, timeout=120):
    argv = [os.path.join(BIN, tool), *args]
    if user is not None:
        argv = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups", *argv]
    return iob.run(argv, errors="replace", cwd=cwd, env=iob.env(env), input=input, timeout=timeout)


def write(path, text, mode="w"):
    with open(path, mode) as f:
        f.write(text)
    return path


snapshot = iob.snapshot


def nobody():
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        return None
    try:
        return pwd.getpwnam("nobody")
    except KeyError:
        return None


def chown_tree(top, user):
    for root, dirs, files in os.walk(top):
        for n in dirs + files:
            os.lchown(os.path.join(root, n), user.pw_uid, user.pw_gid)
    os.chown(top, user.pw_uid, user.pw_gid)


def make_victims(out, levels=2, files=2):
    """A tree shaped like io_profile's, full of data that must not change."""
    p = out
    for lvl in range(levels):
        if lvl:
            p = os.path.join(p, f"dir{lvl}")
        os.makedirs(p, exist_ok=True)
        for f in range(files):
            write(os.path.join(p, f"file{f}"), b"precious" * 8192, "wb")


IOP_ARGS = ["--levels", "2", "--files", "2", "-l", "64K", "-m", "4K", "-M", "16K", "-n", "200", "--warmup",
            "10", "--remove", "-q"]


def race_io_profile(tmp, user, rounds):
    """Swap dir0 for a symlink to a victim tree, back and forth, while
    io_profile creates, sweeps and removes.  Nothing outside -d may change."""
    d = os.path.join(tmp, "d")
    out = os.path.join(tmp, "outside")
    make_victims(out)
    if user:
        chown_tree(out, user)  # the victim is the user's own: only the path aims it
        os.chmod(tmp, 0o755)
    before = snapshot(out)
    hit = {"swaps": 0}
    codes = {}
    for i in range(rounds):
        shutil.rmtree(d, ignore_errors=True)
        os.mkdir(d)
        if user:
            os.chown(d, user.pw_uid, user.pw_gid)
        stop = threading.Event()

        def swapper():
            while not stop.is_set():
                try:
                    os.rename(os.path.join(d, "dir0"), os.path.join(d, "dir0.real"))
                except OSError:
                    time.sleep(0.0005)
                    continue
                try:
                    os.symlink(out, os.path.join(d, "dir0"))
                    hit["swaps"] += 1
                    time.sleep(0.002)
                    os.unlink(os.path.join(d, "dir0"))
                finally:
                    os.rename(os.path.join(d, "dir0.real"), os.path.join(d, "dir0"))
                time.sleep(0.001)

        t = threading.Thread(target=swapper)
        t.start()
        try:
            p = run("io_profile", "-d", d, *IOP_ARGS, user=user)
        finally:
            stop.set()
            t.join()
        codes[p.returncode] = codes.get(p.returncode, 0) + 1
        expect(p.returncode in (0, 1, 2), f"round {i}: exit {p.returncode}: {p.stderr[-300:]}")
        now = snapshot(out)
        if now != before:
            changed = sorted(k for k in set(now) | set(before) if now.get(k) != before.get(k))
            expect(False, f"round {i}: files outside -d changed or went: {changed}")
            break
    print(f"{rounds} rounds, {hit['swaps']} swaps, exit codes {codes}")


def case_race_io_profile_root(tmp):
    race_io_profile(tmp, None, 100)


def case_race_io_profile_user(tmp):
    u = nobody()
    if not u:
        print("skipped: needs root and setpriv to run as 'nobody'")
        return SKIP
    race_io_profile(tmp, u, 50)


def wait_for(path, proc, limit=60.0):
    t0 = time.monotonic()
    while not os.path.exists(path):
        if proc.poll() is not None or time.monotonic() - t0 > limit:
            return False
        time.sleep(0.002)
    return True


def case_swap_then_remove(tmp):
    """Stop io_profile once its tree exists, swap dir0 for a link to a victim
    tree, let it go on and stop it: the sweeps and --remove work on the
    directory that was opened; the link and the victim stay."""
    d = os.path.join(tmp, "d")
    out = os.path.join(tmp, "outside")
    os.mkdir(d)
    make_victims(out)
    before = snapshot(out)
    argv = [os.path.join(BIN, "io_profile"), "-d", d, "--levels", "2", "--files", "2", "-l", "64K", "-m", "4K",
            "-M", "16K", "-n", "2000000", "--warmup", "0", "--remove", "-q"]
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    e = swap_tree(p, d, out, os.path.join("dir0", "dir1", "file1"), "io_profile")
    if e is None:
        return
    expect(snapshot(out) == before, "the victim tree changed")
    expect(os.path.islink(os.path.join(d, "dir0")), "the planted link was removed")
    expect("no longer what this run created" in e, f"no note about the replaced directory: {e!r}")
    # what the run made in the directory it held is gone: only the emptied directory stays
    left = sorted(os.listdir(os.path.join(d, "moved")))
    expect(left == [], f"files the run made were left: {left}")


def swap_tree(p, d, out, first, tool):
    """Once the run p made d/first, swap d/dir0 for a link to out while p is
    stopped, then end p with SIGTERM: its stderr (None when it never made
    its tree)."""
    if not wait_for(os.path.join(d, first), p):
        p.kill()
        p.communicate()
        expect(False, f"{tool} never made its tree")
        return None
    os.kill(p.pid, signal.SIGSTOP)
    os.rename(os.path.join(d, "dir0"), os.path.join(d, "moved"))
    os.symlink(out, os.path.join(d, "dir0"))
    os.kill(p.pid, signal.SIGCONT)
    time.sleep(0.05)
    p.send_signal(signal.SIGTERM)
    return p.communicate(timeout=120)[1]


def case_cleanup_swap_iobench(tmp):
    """iobench's own cleanup (keep_files = false) after the tree's directory
    was swapped for a link: the victim stays, the link stays."""
    d = os.path.join(tmp, "d")
    out = os.path.join(tmp, "outside")
    os.mkdir(d)
    make_victims(out, levels=1, files=2)
    before = snapshot(out)
    prof = write(os.path.join(tmp, "t.ini"),
                 "[t]\nlayout = tree\ntree_levels = 1\ntree_files = 2\nsize = 64K\nblock_size = 4K\n"
                 "access = rand\nops = 200000000\nphases = write,read\nfsync = false\n")
    p = subprocess.Popen([os.path.join(BIN, "iobench"), "run", prof, "--dir", d], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    e = swap_tree(p, d, out, os.path.join("dir0", "file1"), "iobench")
    if e is None:
        return
    expect(p.returncode == 143, f"exit {p.returncode}: {e[-300:]}")
    expect(snapshot(out) == before, "the victim tree changed")
    expect(os.path.islink(os.path.join(d, "dir0")), "the planted link was removed")
    expect(sorted(os.listdir(os.path.join(d, "moved"))) == [], "files the job made were left")


def case_planted_tree_link(tmp):
    """A dir0 that is already a symlink is refused before anything runs, by
    io_profile and by iobench (and by `iobench check`)."""
    d = os.path.join(tmp, "d")
    out = os.path.join(tmp, "outside")
    os.mkdir(d)
    make_victims(out)
    os.symlink(out, os.path.join(d, "dir0"))
    before, dbefore = snapshot(out), snapshot(d)
    p = run("io_profile", "-d", d, *IOP_ARGS)
    expect(p.returncode == 2 and "symbolic link" in p.stderr, f"io_profile: {p.returncode} {p.stderr!r}")
    prof = write(os.path.join(tmp, "t.ini"), "[t]\nlayout = tree\ntree_levels = 2\ntree_files = 2\nsize = 64K\n")
    for cmd in ("check", "run"):
        p = run("iobench", cmd, prof, "--dir", d)
        expect(p.returncode == 2 and "symbolic link" in p.stderr, f"iobench {cmd}: {p.returncode} {p.stderr!r}")
    expect(snapshot(out) == before and snapshot(d) == dbefore, "something changed")


def case_job_dir_link_owner(tmp):
    """A symlinked dir is followed when root or the user owns the link, and
    refused when another user planted it (unless follow_symlinks)."""
    real = os.path.join(tmp, "real")
    os.mkdir(real)
    link = os.path.join(tmp, "link")
    os.symlink(real, link)
    prof = write(os.path.join(tmp, "p.ini"), "[a]\nsize = 64K\n")
    p = run("iobench", "check", prof, "--dir", link)
    expect(p.returncode == 0, f"own link refused: {p.stderr!r}")
    u = nobody()
    if not u:
        print("skipped the planted-link half: needs root to own a link as 'nobody'")
        return
    os.lchown(link, u.pw_uid, u.pw_gid)
    p = run("iobench", "check", prof, "--dir", link)
    expect(p.returncode == 2 and "owned by another user" in p.stderr, f"{p.returncode} {p.stderr!r}")
    p = run("iobench", "run", prof, "--dir", link)
    expect(p.returncode == 2 and os.listdir(real) == [], f"{p.returncode} {p.stderr!r} {os.listdir(real)}")
    write(prof, "[a]\nsize = 64K\nfollow_symlinks = true\n")
    p = run("iobench", "check", prof, "--dir", link)
    expect(p.returncode == 0, f"follow_symlinks did not allow it: {p.stderr!r}")


def case_profile_is_data(tmp):
    """A job whose data file is its own profile or an include is refused by
    run and by check; the files are untouched."""
    write(os.path.join(tmp, "inc.ini"), "[global]\nsize = 64K\n")
    for target in ("self.ini", "inc.ini"):
        prof = write(os.path.join(tmp, "self.ini"),
                     f"[global]\ninclude = inc.ini\n[a]\ndir = {tmp}\nfilename = {target}\n")
        before = snapshot(tmp)
        for cmd in ("check", "run"):
            p = run("iobench", cmd, prof)
            expect(p.returncode == 2 and "reads as its profile" in p.stderr and len(p.stderr.splitlines()) == 1,
                   f"{cmd} {target}: {p.returncode} {p.stderr!r}")
        expect(snapshot(tmp) == before, f"{target}: something changed")


def case_output_overlaps(tmp):
    """An output on the data file, on the profile or an include, or two on
    one file: refused before anything is written (exit 2)."""
    data = write(os.path.join(tmp, "f"), "data" * 1024)
    before = snapshot(tmp)
    p = run("iotest", "-e", "-s", "1", "--format", f"iotest,json={data}", data)
    expect(p.returncode == 2 and "which this run reads or writes" in p.stderr, f"iotest: {p.returncode} {p.stderr!r}")
    os.unlink(data)
    p = run("iotest", "-e", "-s", "1", "--format", "iotest,json=f", "f", cwd=tmp)
    expect(p.returncode == 2 and not os.path.exists(data), f"iotest new: {p.returncode} {p.stderr!r}")
    write(data, "data" * 1024)
    write(os.path.join(tmp, "inc.ini"), "[global]\nsize = 64K\n")
    prof = write(os.path.join(tmp, "p.ini"), "[global]\ninclude = inc.ini\n[a]\nfilename = f\n")
    before = snapshot(tmp)
    for out in ("json=p.ini", "csv=inc.ini", "json=f", "json=x,csv=x"):
        for cmd in ("check", "run"):
            p = run("iobench", cmd, "p.ini", "--dir", tmp, "--output", out, cwd=tmp)
            expect(p.returncode == 2 and len(p.stderr.splitlines()) == 1, f"{cmd} {out}: {p.returncode} {p.stderr!r}")
    p = run("io_profile", "-d", tmp, "-s", "-l", "64K", "-M", "16K", "-o", f"csv={tmp}/io_profile_file.out")
    expect(p.returncode == 2, f"io_profile: {p.returncode} {p.stderr!r}")
    expect(snapshot(tmp) == before, "something changed")


def direct_ok(tmp):
    p = run("iobench", "check", write(os.path.join(tmp, "probe.ini"), "[a]\nbackend = direct\nsize = 1M\n"),
            "--dir", tmp)
    os.unlink(os.path.join(tmp, "probe.ini"))
    return p.returncode == 0


def case_direct_alignment_at_check(tmp):
    """Misaligned direct I/O is found by check and before any job runs: an
    earlier job of the suite does not run first."""
    if not direct_ok(tmp):
        print("skipped: this file system cannot do direct I/O")
        return SKIP
    prof = write(os.path.join(tmp, "d.ini"),
                 "[first]\nsize = 64K\nkeep_files = true\nfilename = first\n"
                 "[d]\nbackend = direct\nsize = 1M\nblock_size = 1000\n")
    for cmd in ("check", "run"):
        p = run("iobench", cmd, prof, "--dir", tmp)
        expect(p.returncode == 2 and "not a multiple of" in p.stderr, f"{cmd}: {p.returncode} {p.stderr!r}")
    expect(sorted(os.listdir(tmp)) == ["d.ini"], os.listdir(tmp))
    p = run("iotest", "--backend", "direct", "-s", "1", "-b", "512", os.path.join(tmp, "x"))
    expect(p.returncode in (0, 2), f"iotest: {p.returncode} {p.stderr!r}")
    if p.returncode == 2:
        expect("not a multiple of" in p.stderr and not os.path.exists(os.path.join(tmp, "x")), p.stderr)


def case_long_names(tmp):
    """A name over NAME_MAX or a path over PATH_MAX is refused by check and by
    every tool, exit 2, with a whole message (not cut mid-word)."""
    long = "n" * 300
    prof = write(os.path.join(tmp, "p.ini"), f"[a]\nfilename = {long}\nsize = 64K\n")
    for cmd in ("check", "run"):
        p = run("iobench", cmd, prof, "--dir", tmp)
        expect(p.returncode == 2 and p.stderr.rstrip().endswith("use a shorter filename"),
               f"{cmd}: {p.returncode} {p.stderr!r}")
    p = run("iotest", "-s", "1", os.path.join(tmp, long))
    expect(p.returncode == 2 and "over the limit of 255 bytes" in p.stderr, f"iotest: {p.returncode} {p.stderr!r}")
    deep = tmp + ("/" + "d" * 200) * 22
    p = run("iobench", "check", prof, "--dir", deep)
    expect(p.returncode == 2 and len(p.stderr.splitlines()) == 1, f"deep: {p.returncode} {p.stderr!r}")
    p = run("io_profile", "-d", os.path.join(tmp, long))
    expect(p.returncode == 2 and "over the limit" in p.stderr, f"io_profile: {p.returncode} {p.stderr!r}")
    expect(sorted(os.listdir(tmp)) == ["p.ini"], os.listdir(tmp))


def case_permission_user(tmp):
    """As an unprivileged user: a target without permission is bad input,
    found by check and by every tool before anything is created."""
    u = nobody()
    if not u:
        print("skipped: needs root and setpriv to run as 'nobody'")
        return SKIP
    os.chmod(tmp, 0o755)
    secret = write(os.path.join(tmp, "secret"), "root only\n" * 100)
    os.chmod(secret, 0o600)
    prof = write(os.path.join(tmp, "p.ini"), "[a]\nfilename = secret\nsize = 4K\n")
    os.chmod(prof, 0o644)
    before = snapshot(tmp)
    p = run("iobench", "check", prof, "--dir", tmp, user=u)
    expect(p.returncode == 2 and "cannot write" in p.stderr, f"check: {p.returncode} {p.stderr!r}")
    p = run("iotest", "-s", "1", secret, user=u)
    expect(p.returncode == 2, f"iotest: {p.returncode} {p.stderr!r}")
    p = run("iotest", "-r", "-s", "1", secret, user=u)
    expect(p.returncode == 2 and "cannot read" in p.stderr, f"iotest -r: {p.returncode} {p.stderr!r}")
    p = run("io_profile", "-d", tmp, "-s", user=u)
    expect(p.returncode == 2, f"io_profile in a root directory: {p.returncode} {p.stderr!r}")
    expect(snapshot(tmp) == before, "something changed")


def case_io_profile_escapes(tmp):
    """io_profile's legacy lines and its files line escape names: a newline
    or ESC in the directory never forges a line or reaches the terminal."""
    d = os.path.join(tmp, "a\nForged: 1\x1b[31m")
    os.mkdir(d)
    p = run("io_profile", "-d", d, "-s", "-l", "64K", "-m", "4K", "-M", "8K", "-n", "10", "--warmup", "0")
    expect(p.returncode == 0, f"{p.returncode} {p.stderr!r}")
    expect("\x1b" not in p.stdout + p.stderr, "ESC reached the output")
    expect(not any(l.startswith("Forged") for l in (p.stdout + p.stderr).splitlines()), "a line was forged")
    expect(any(l.startswith("Location:") and "\\x0a" in l for l in p.stdout.splitlines()), p.stdout[:400])
    expect("\\x1b" in p.stdout + p.stderr, "the left-behind line does not show the escaped name")


def case_device_swap_snooze(tmp):
    """iotest's snooze between two passes: the file is swapped for a
    character device node (as root) or a link to a file (anyone).  The second
    pass opens what is there now and refuses it, exit 1, writing nothing."""
    f = os.path.join(tmp, "f")
    other = write(os.path.join(tmp, "other"), "keep me\n" * 512)
    for kind in ("link", "device"):
        if kind == "device" and os.geteuid() != 0:
            print("skipped the device half: needs root to make a device node")
            continue
        before = snapshot(tmp)
        p = subprocess.Popen([os.path.join(BIN, "iotest"), "-s", "1", "-p", "01", "-z", "3", f],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = p.stdout.readline()  # the first pass's line: its snooze has begun
        os.kill(p.pid, signal.SIGSTOP)
        expect(first, f"{kind}: no first pass line")
        os.unlink(f)
        if kind == "link":
            os.symlink(other, f)
        else:
            os.mknod(f, 0o600 | 0o020000, os.makedev(1, 3))  # like /dev/null
        os.kill(p.pid, signal.SIGCONT)
        o, e = p.communicate(timeout=120)
        want = "symbolic link" if kind == "link" else "character device"
        expect(p.returncode == 1 and want in e, f"{kind}: {p.returncode} {e!r}")
        with open(other) as fh:
            expect(fh.read() == "keep me\n" * 512, f"{kind}: the other file changed")
        os.unlink(f)
        expect(snapshot(tmp) == {k: v for k, v in before.items() if k != "f"}, f"{kind}: something changed")


def case_planted_target_link(tmp):
    """A link planted where the data file goes (aimed at a root-only file) is
    refused before anything is written, by iotest, iobench and io_profile."""
    secret = write(os.path.join(tmp, "secret"), "root only\n" * 100)
    os.chmod(secret, 0o600)
    os.symlink(secret, os.path.join(tmp, "f"))
    os.symlink(secret, os.path.join(tmp, "io_profile_file.out"))
    before = snapshot(tmp)
    p = run("iotest", "-s", "1", "-t", os.path.join(tmp, "f"))
    expect(p.returncode == 2 and "symbolic link" in p.stderr, f"iotest: {p.returncode} {p.stderr!r}")
    prof = write(os.path.join(tmp, "p.ini"), "[a]\nfilename = f\nsize = 4K\ntruncate = true\n")
    before = snapshot(tmp)
    for cmd in ("check", "run"):
        p = run("iobench", cmd, prof, "--dir", tmp)
        expect(p.returncode == 2 and "symbolic link" in p.stderr, f"iobench {cmd}: {p.returncode} {p.stderr!r}")
    p = run("io_profile", "-d", tmp, "-s", "-l", "64K", "-M", "16K")
    expect(p.returncode == 2 and "symbolic link" in p.stderr, f"io_profile: {p.returncode} {p.stderr!r}")
    expect(snapshot(tmp) == before, "something changed")


def case_empty_stdin(tmp):
    """Empty standard input is bad input, not a measurement of 0 bytes."""
    prof = write(os.path.join(tmp, "s.ini"), "[s]\nfilename = -\nphases = read\nblock_size = 64K\n")
    p = run("iobench", "run", prof, "--output", "json", input="")
    expect(p.returncode == 2 and "gave no data" in p.stderr and len(p.stderr.splitlines()) == 1,
           f"{p.returncode} {p.stderr!r}")


# ---------------------------------------------------------------- issue 24
# Every file the run writes besides its data (--output files, their side
# files, livecsv, the fio-style logs) is opened the checked way.

LOGGED = "[a]\nfilename = f\nsize = 64K\nlog_interval = 100ms\n"


def one_line(p):
    return len(p.stderr.splitlines()) == 1


def file_state(path):
    """Bytes and mtime of a file, or None when missing (never follows a link)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if not os.path.isfile(path) or os.path.islink(path):
        return ("other", st.st_mode, st.st_mtime_ns)
    with open(path, "rb") as f:
        return (f.read(), st.st_mtime_ns)


def case_output_planted_links(tmp):
    """Problem 3: a symbolic link planted (owned by another user when root
    runs) where an --output file, a live CSV, a CSV side file or a fio-style
    log goes, aimed at a root-only 0600 file, is refused by check and run
    (exit 2, one line) and the victim is untouched.  In a sticky shared
    directory and in another user's plain directory; as root, and as
    'nobody' with the victim its own and the links root's."""
    u = nobody()
    users = [None] + ([u] if u else [])
    if not u:
        print("skipped the 'nobody' half: needs root and setpriv")
    os.chmod(tmp, 0o755)
    for who in users:
        for sticky in (True, False):
            d = os.path.join(tmp, f"{'user' if who else 'root'}-{'sticky' if sticky else 'plain'}")
            os.mkdir(d)
            os.chmod(d, 0o1777 if sticky else 0o777)
            victim = write(os.path.join(tmp, f"victim-{os.path.basename(d)}"), "secret\n" * 64)
            os.chmod(victim, 0o600)
            if who:
                os.chown(victim, who.pw_uid, who.pw_gid)
            prof = write(os.path.join(d, "p.ini"), LOGGED + "bw_log = lg\n")
            os.chmod(prof, 0o644)
            planted = {
                "output": (["--output", "json=out.json"], "out.json"),
                "livecsv": (["--output", "json", "--livecsv", "live.csv"], "live.csv"),
                "side file": (["--output", "csv=out.csv"], "out.interval.csv"),
                "fio log": (["--output", "json"], "lg_bw.1.log"),
            }
            for what, (args, name) in planted.items():
                link = os.path.join(d, name)
                if os.path.lexists(link):
                    os.unlink(link)  # left by an earlier case that failed
                os.symlink(victim, link)
                if os.geteuid() == 0:
                    # root runs: the link is another user's; nobody runs: root's
                    owner = (0, 0) if who else ((u.pw_uid, u.pw_gid) if u else (0, 0))
                    os.lchown(link, *owner)
                before = file_state(victim)
                for cmd in ("check", "run"):
                    p = run("iobench", cmd, "p.ini", "--dir", d, *args, cwd=d, user=who)
                    expect(p.returncode == 2 and "symbolic link" in p.stderr and name in p.stderr and one_line(p),
                           f"{d} {what} {cmd}: {p.returncode} {p.stderr!r}")
                expect(file_state(victim) == before, f"{d} {what}: the victim changed")
                expect(os.path.islink(link), f"{d} {what}: the link is gone")
                os.unlink(link)
                for left in ("out.json", "out.csv", "live.csv", "lg_bw.1.log", "f"):
                    expect(not os.path.lexists(os.path.join(d, left)), f"{d} {what}: {left} was created")
                    if os.path.lexists(os.path.join(d, left)):
                        os.unlink(os.path.join(d, left))
    if u:
        # a directory link another user planted is not followed either
        real = os.path.join(tmp, "real")
        os.mkdir(real)
        link = os.path.join(tmp, "root-plain", "outdir")
        os.symlink(real, link)
        os.lchown(link, u.pw_uid, u.pw_gid)
        for cmd in ("check", "run"):
            p = run("iobench", cmd, "p.ini", "--output", "json=outdir/out.json", cwd=os.path.dirname(link))
            expect(p.returncode == 2 and "owned by another user" in p.stderr and one_line(p),
                   f"directory link {cmd}: {p.returncode} {p.stderr!r}")
        expect(os.listdir(real) == [], "something was written through the directory link")


def loop_device(tmp):
    """A 1 MiB file on a loop device (root only): (device, backing file)."""
    if os.geteuid() != 0 or not shutil.which("losetup"):
        return None, None
    back = os.path.join(tmp, "disk.img")
    with open(back, "wb") as f:
        f.write(os.urandom(1 << 20))
    p = subprocess.run(["losetup", "--find", "--show", back], capture_output=True, text=True)
    if p.returncode != 0:
        return None, back
    return p.stdout.strip(), back


def case_livecsv_device_fifo(tmp):
    """Problem 1: a live CSV or a fio-style log on a block device (a loop
    device over a 1 MiB file, as root), on a character device without
    allow_devices, or on a FIFO is refused by check and run (exit 2, one
    line, nothing written, no hang); --output json=/dev/null still works, a
    FIFO as --output file is refused too."""
    dev, back = loop_device(tmp)
    try:
        if dev:
            before = file_state(back)
            prof = write(os.path.join(tmp, "p.ini"), LOGGED + f"livecsv = {dev}\n")
            for cmd in ("check", "run"):
                p = run("iobench", cmd, prof, "--dir", tmp, "--output", "json")
                expect(p.returncode == 2 and "block device" in p.stderr and one_line(p),
                       f"livecsv {dev} {cmd}: {p.returncode} {p.stderr!r}")
                p = run("iobench", cmd, os.path.join(tmp, "q.ini") if False else prof, "--dir", tmp, "--output",
                        "json", "--livecsv", dev)
                expect(p.returncode == 2 and "block device" in p.stderr, f"--livecsv {dev} {cmd}: {p.stderr!r}")
            subprocess.run(["sync"])
            expect(file_state(back)[0] == before[0], f"the disk behind {dev} changed")
        else:
            print("skipped the block device half: needs root and losetup")
    finally:
        if dev:
            subprocess.run(["losetup", "-d", dev])
    prof = write(os.path.join(tmp, "n.ini"), LOGGED + "livecsv = /dev/null\n")
    for cmd in ("check", "run"):
        p = run("iobench", cmd, prof, "--dir", tmp, "--output", "json")
        expect(p.returncode == 2 and "character device" in p.stderr and "allow_devices" in p.stderr and one_line(p),
               f"livecsv /dev/null {cmd}: {p.returncode} {p.stderr!r}")
    fifo = os.path.join(tmp, "pipe")
    os.mkfifo(fifo)
    prof = write(os.path.join(tmp, "f.ini"), LOGGED + f"livecsv = {fifo}\n")
    for cmd in ("check", "run"):
        try:
            p = run("iobench", cmd, prof, "--dir", tmp, "--output", "json", timeout=60)
        except subprocess.TimeoutExpired:
            expect(False, f"livecsv fifo {cmd}: still waiting on the FIFO after 60 s")
            continue
        expect(p.returncode == 2 and "FIFO" in p.stderr and one_line(p), f"livecsv fifo {cmd}: {p.returncode} {p.stderr!r}")
    os.rename(fifo, os.path.join(tmp, "lg_bw.1.log"))
    prof = write(os.path.join(tmp, "g.ini"), LOGGED + "bw_log = lg\n")
    for cmd in ("check", "run"):
        p = run("iobench", cmd, "g.ini", "--output", "json", cwd=tmp, timeout=60)
        expect(p.returncode == 2 and "FIFO" in p.stderr and "bw_log" in p.stderr and one_line(p),
               f"bw_log fifo {cmd}: {p.returncode} {p.stderr!r}")
        p = run("iobench", cmd, "n.ini", "--output", "json=lg_bw.1.log", cwd=tmp, timeout=60)
        expect(p.returncode == 2 and "FIFO" in p.stderr and one_line(p), f"--output fifo {cmd}: {p.returncode} {p.stderr!r}")
    os.unlink(os.path.join(tmp, "lg_bw.1.log"))
    p = run("iobench", "run", "g.ini", "--output", "json=/dev/null", cwd=tmp)
    expect(p.returncode == 0 and "error" not in p.stderr, f"json=/dev/null: {p.returncode} {p.stderr!r}")
    p = run("iobench", "run", "n.ini", "--set", "allow_devices=true", "--output", "json=/dev/null", cwd=tmp)
    expect(p.returncode == 0, f"livecsv /dev/null with allow_devices: {p.returncode} {p.stderr!r}")


def case_side_file_is_data(tmp):
    """Problem 4: a CSV side file (out.interval.csv) that is the job's data
    file is refused by check and run before anything is written (exit 2);
    the same file reached through a hard link is found when the side file is
    opened: refused there (exit 1, naming it), the data file kept whole."""
    prof = write(os.path.join(tmp, "p.ini"),
                 "[a]\nfilename = out.interval.csv\nsize = 64K\nlog_interval = 100ms\nphases = write,verify\n"
                 "keep_files = true\n")
    data = os.path.join(tmp, "out.interval.csv")
    write(data, "x" * 65536)
    before = file_state(data)
    for cmd in ("check", "run"):
        p = run("iobench", cmd, "p.ini", "--output", "csv=out.csv", cwd=tmp)
        expect(p.returncode == 2 and "side file" in p.stderr and "out.interval.csv" in p.stderr and one_line(p),
               f"{cmd}: {p.returncode} {p.stderr!r}")
    expect(file_state(data) == before and not os.path.exists(os.path.join(tmp, "out.csv")), "something changed")
    os.mkdir(os.path.join(tmp, "o"))
    os.link(data, os.path.join(tmp, "o", "out.interval.csv"))
    p = run("iobench", "run", "p.ini", "--output", "csv=o/out.csv", cwd=tmp)
    expect(p.returncode == 1 and "side file o/out.interval.csv is" in p.stderr and "reads or writes" in p.stderr,
           f"hard link: {p.returncode} {p.stderr!r}")
    with open(data, "rb") as f:
        expect(len(f.read()) == 65536, "the data file was emptied")
    expect("verify failed" not in p.stderr, p.stderr)


def case_two_writers_one_file(tmp):
    """Problem 5: a live CSV and a bw log on one path, a live CSV on an
    output's file, two jobs of one group writing and verifying one data
    file with other bytes (patterns), a writer of other bytes beside a
    reader that verifies it (named through an alias of the directory) and a
    truncating writer are refused by check and run (exit 2, one line naming
    both); a writer beside a plain reader runs (fio's flow.fio), and so do
    two writers that verify nothing, noted."""
    cases = [
        (LOGGED + "livecsv = x_bw.1.log\nbw_log = x\n", [], ["livecsv", "bw_log", "x_bw.1.log"]),
        (LOGGED + "livecsv = o.json\n", ["--output", "json=o.json"], ["livecsv", "o.json"]),
        ("[global]\nsize = 1M\nfilename = g\nphases = write,verify\ngroup = 1\n[a]\n[b]\npattern = ones\n", [],
         ["group 1", "jobs a and b", "g"]),
        (f"[global]\nsize = 1M\ngroup = 1\nfilename = g\n[a]\nphases = write\npattern = ones\n[b]\ndir = {tmp}/.\n"
         f"phases = read,verify\n", [], ["jobs a and b", "a writes it"]),
        (f"[global]\nsize = 64K\ngroup = 1\nfilename = g\n[a]\nphases = write\ntruncate = true\n[b]\n"
         f"dir = {tmp}/.\nphases = read\n", [], ["jobs a and b", "a writes it"]),
    ]
    write(os.path.join(tmp, "g"), "g" * 65536)  # there already: the reader's check passes
    for text, args, want in cases:
        prof = write(os.path.join(tmp, "p.ini"), text)
        before = snapshot(tmp)
        for cmd in ("check", "run"):
            p = run("iobench", cmd, "p.ini", *args, cwd=tmp)
            expect(p.returncode == 2 and one_line(p) and all(w in p.stderr for w in want),
                   f"{text!r} {cmd}: {p.returncode} {p.stderr!r}")
        expect(snapshot(tmp) == before, f"{text!r}: something changed")
    # a writer beside a reader that checks nothing runs
    prof = write(os.path.join(tmp, "p.ini"),
                 f"[global]\nsize = 64K\ngroup = 1\nfilename = g\n[a]\nphases = write\n[b]\ndir = {tmp}/.\n"
                 f"phases = read\n")
    p = run("iobench", "run", "p.ini", "--output", "json", cwd=tmp)
    expect(p.returncode == 0, f"writer beside reader: {p.returncode} {p.stderr!r}")
    # two writers that verify nothing run, racing as fio's do: noted
    prof = write(os.path.join(tmp, "p.ini"), "[global]\nsize = 64K\nfilename = g\nphases = write\ngroup = 1\n[a]\n[b]\n")
    p = run("iobench", "run", "p.ini", "--output", "json", cwd=tmp)
    expect(p.returncode == 0 and "jobs a and b (group 1) both write" in p.stderr and "overlap" in p.stderr,
           f"two writers: {p.returncode} {p.stderr!r}")
    # readers sharing a file in a group stay allowed
    write(os.path.join(tmp, "r"), "r" * 65536)
    prof = write(os.path.join(tmp, "p.ini"), "[global]\nfilename = r\nphases = read\ngroup = 1\n[a]\n[b]\n")
    p = run("iobench", "run", "p.ini", "--output", "json", cwd=tmp)
    expect(p.returncode == 0, f"two readers: {p.returncode} {p.stderr!r}")


def case_refused_run_keeps_outputs(tmp):
    """Problem 6: a run refused with exit 2 leaves every existing output
    file as it was (bytes and mtime): the live CSV, the fio-style log, the
    --output files and a CSV side file, whether the refusal comes from the
    checks or from an output refusing its arguments once every file was
    open.  A file the refused run would have created is not left behind."""
    names = ["live.csv", "lg_bw.1.log", "out.json", "out.csv", "out.interval.csv"]
    for n in names:
        write(os.path.join(tmp, n), f"keep {n}\n" * 10)
        os.utime(os.path.join(tmp, n), (1_000_000_000, 1_000_000_000))
    prof = write(os.path.join(tmp, "p.ini"), LOGGED + "livecsv = live.csv\nbw_log = lg\n")
    before = {n: file_state(os.path.join(tmp, n)) for n in names}
    refusals = [
        (["--output", "json=out.json,csv=out.csv,human:bogus=new.txt"], "bogus"),   # an output's own refusal
        (["--output", "json=out.json,csv=out.csv,human=missing/new.txt"], "does not exist"),  # the checks
        (["--output", "json=out.json,csv=out.csv", "--set", "size=-1"], None),      # bad input
    ]
    for args, want in refusals:
        p = run("iobench", "run", "p.ini", *args, cwd=tmp)
        expect(p.returncode == 2 and (want is None or want in p.stderr), f"{args}: {p.returncode} {p.stderr!r}")
        for n in names:
            expect(file_state(os.path.join(tmp, n)) == before[n], f"{args}: {n} changed")
        expect(not os.path.exists(os.path.join(tmp, "new.txt")), f"{args}: new.txt left behind")
    p = run("iobench", "run", "p.ini", "--output", "json=out.json,csv=out.csv", cwd=tmp)
    expect(p.returncode == 0, f"the good run: {p.returncode} {p.stderr!r}")
    for n in names:
        expect(file_state(os.path.join(tmp, n)) != before[n], f"the good run did not write {n}")


def case_output_error_named(tmp):
    """Problem 11: a failed output write names the output and its file in
    the one error line (exit 1)."""
    if not os.path.exists("/dev/full"):
        print("skipped: no /dev/full")
        return SKIP
    prof = write(os.path.join(tmp, "p.ini"), LOGGED)
    for out in ("json", "csv", "human"):
        p = run("iobench", "run", prof, "--dir", tmp, "--output", f"{out}=/dev/full")
        err = p.stderr.splitlines()
        expect(p.returncode == 1 and err and
               err[-1] == f"iobench: error: writing the results failed: output {out} to /dev/full: No space left on device",
               f"{out}: {p.returncode} {p.stderr!r}")


def case_proc_missing(tmp):
    """Problem 11: with /proc missing (a private mount namespace, as root),
    the error says so instead of 'unknown output human'."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        print("skipped: needs root and unshare for a mount namespace without /proc")
        return SKIP
    if os.environ.get("IOB_SANITIZED"):
        print("skipped: the sanitizer runtimes need /proc themselves (the plain build runs this case)")
        return SKIP
    prof = write(os.path.join(tmp, "p.ini"), LOGGED)
    p = subprocess.run(["unshare", "-m", "sh", "-c", f"umount -l /proc && exec {os.path.join(BIN, 'iobench')} run {prof}"],
                       capture_output=True, text=True, cwd=tmp, timeout=60)
    if "umount" in p.stderr:
        print(f"skipped: cannot unmount /proc here: {p.stderr.strip()}")
        return SKIP
    expect(p.returncode == 2 and "/proc" in p.stderr and "unknown output" not in p.stderr and one_line(p),
           f"{p.returncode} {p.stderr!r}")


CASES = {n[5:]: f for n, f in globals().items() if n.startswith("case_")}


if __name__ == "__main__":
    a = iob.arguments("--bin", "--work", case=True)
    BIN = a.bin
    sys.exit(iob.run_case(a, {"case_" + k: fn for k, fn in CASES.items()},
                        cleanup=lambda tmp: subprocess.run(["rm", "-rf", tmp])))
