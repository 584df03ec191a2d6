#!/usr/bin/env python3
"""A real full disk: as root, mount a 4 MiB tmpfs and run the binaries into
ENOSPC.  The guarantees: a one-line error naming the operation, file, offset
and errno text; exit 1; the JSON document stays valid with an "error" member;
CSV rows and legacy lines stay whole; no partial file is reported as complete.
iobench runs a two-job profile; iotest and io_profile run with their legacy
output, json and csv.  Without root (or without the right to mount) it skips
and says why.  Prints 'N passed, N failed'.

The fault backend's err=fill lets each tool's up-front space check pass, then
fills the file system at the chosen write and forwards the call, so the
kernel itself answers ENOSPC.  On a tmpfs only a write that needs new space
can fail, so for io_profile the fill lands in its create job (its sweeps
rewrite blocks the create job already allocated)."""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import iobtest as iob  # noqa: E402
from iobtest import check  # noqa: E402

A = None


def run(tool, args, cwd, fill_after=10):
    """Run tool on the fault backend set to fill the file system after
    fill_after writes: the up-front space check passes, then the kernel
    itself answers ENOSPC."""
    opts = [] if tool == "iobench" else ["--backend-options", fault_options(fill_after)]
    return iob.run([iob.binary(A, tool), *opts, *args], cwd=cwd, env=iob.env(IOBENCH_PLUGIN_PATH=A.fault_dir))


def fault_options(fill_after):
    """The fault backend's options: wrap posix, fill the disk after fill_after writes."""
    posix = os.path.join(A.plugin_dir, "iob-backend-posix.so")
    return f"wrap={posix},op=write,err=fill,after_calls={fill_after}"


def iobench_case(mnt):
    prof = os.path.join(mnt, "..", "full.ini")
    with open(prof, "w") as f:
        f.write("[global]\nbackend = fault\nsize = 1M\nblock_size = 64K\nphases = write\nkeep_files = true\n"
                f"backend_options = {fault_options(20)}\n[one]\n[two]\n")
    p = run("iobench", ["run", prof, "--dir", mnt, "--output", "json"], mnt, fill_after=20)
    # one error line; the run's notes come before it as warnings (no person sees the json's)
    lines = [l for l in p.stderr.strip().splitlines() if not l.startswith("iobench: warning: ")]
    check("iobench exit", p.returncode == 1, f"exit {p.returncode}: {p.stderr}")
    check("iobench one line", len(lines) == 1 and re.search(
        r"job two: (write of 65536 bytes|short write \(\d+ of 65536 bytes\)) at offset 262144 of "
        r".*iobench\.two\.dat(:| failed:) No space left on device",
        lines[0]) is not None, p.stderr)
    try:
        doc = json.loads(p.stdout)
    except ValueError as e:
        check("iobench json", False, f"{e}: {p.stdout!r}")
        return
    check("iobench json", doc["status"] == "error" and "No space left" in doc["error"], doc)
    two = [r for r in doc["records"] if r["job"] == "two"]
    check("iobench partial not complete", len(two) == 1 and two[0]["status"] == "error" and
          two[0]["bytes"] < 1 << 20, two)
    one = [r for r in doc["records"] if r["job"] == "one"]
    check("iobench first job whole", len(one) == 1 and one[0]["status"] == "ok" and one[0]["bytes"] == 1 << 20, one)


def suite_space_case(mnt):
    """A suite whose jobs each fit but together do not: the whole suite's need
    is checked before anything is written (exit 2, nothing created), for
    `iobench check` and `iobench run` alike; the same jobs without keeping
    their files fit (each job's files are gone before the next)."""
    clear(mnt)
    prof = os.path.join(mnt, "..", "two.ini")
    for keep, want in (("true", 2), ("false", 0)):
        with open(prof, "w") as f:
            f.write(f"[global]\nsize = 3M\nblock_size = 1M\nphases = write\nkeep_files = {keep}\n"
                    "[one]\n[two]\n")
        for cmd in ("check", "run"):
            p = run("iobench", [cmd, prof, "--dir", mnt], mnt)
            name = f"suite space keep={keep} {cmd}"
            check(name + " exit", p.returncode == want, f"exit {p.returncode}, want {want}: {p.stderr}")
            if want:
                check(name + " says why", re.search(r"\[two\] not enough space in .*the suite needs 6\.00 MiB",
                                                    p.stderr) is not None and p.stderr.count("\n") == 1, p.stderr)
                check(name + " created nothing", files_under(mnt) == {}, files_under(mnt))
        clear(mnt)


def clear(mnt):
    """Empty the file system between runs (the filler file too)."""
    for name in os.listdir(mnt):
        path = os.path.join(mnt, name)
        if os.path.isdir(path) and not os.path.islink(path):
            subprocess.run(["rm", "-rf", path])
        else:
            os.unlink(path)


def files_under(mnt):
    """{relative path: size} of the files a run left (the filler left out)."""
    out = {}
    for root, _, names in os.walk(mnt):
        for n in names:
            if n != ".iob-filler":
                p = os.path.join(root, n)
                out[os.path.relpath(p, mnt)] = os.path.getsize(p)
    return out


def check_stderr(name, tool, stderr, pattern):
    lines = stderr.splitlines()
    errors = [l for l in lines if l.startswith(f"{tool}: error: ")]
    others = [l for l in lines if l not in errors and not l.startswith(f"{tool}: warning: ")
              and not l.startswith(f"{tool}: Test file")]
    check(f"{name} one error line", len(errors) == 1 and re.search(pattern, errors[0]) is not None,
          f"{stderr!r} !~ {pattern}")
    check(f"{name} nothing else on stderr", not others, others)


def csv_fmt(out, fmt):
    """csv goes to files outside the full disk, one per table (docs/outputs.md);
    returns (args, directory or None)."""
    if out != "csv":
        return fmt, None
    d = tempfile.mkdtemp(dir=A.work)
    return [fmt[0], "csv=" + os.path.join(d, "o.csv")], d


def csv_text(name, d):
    """The csv files of directory d, each checked to be one table, as the
    blank-line-separated text parse_output reads."""
    texts = []
    for fn in sorted(os.listdir(d)):
        t = open(os.path.join(d, fn), newline="").read()
        check(f"{name} {fn} one table", "\n\n" not in t, t[-400:])
        texts.append(t)
    return "\n".join(texts)


def parse_output(name, out, stdout, patterns, error):
    """The records of a json or csv output, or the lines of a legacy one;
    checks each is whole (and the json document's error)."""
    if out == "json":
        try:
            doc = json.loads(stdout)
        except ValueError as e:
            check(f"{name} json", False, f"{e}: {stdout[-1000:]!r}")
            return []
        check(f"{name} json", doc["status"] == "error" and doc["interrupted"] is False and
              re.search(error, doc.get("error", "")) is not None, stdout[-800:])
        return doc["records"]
    if out == "csv":
        rows, header = [], None
        for line in stdout.split("\n")[:-1]:
            if not line:
                header = None
                continue
            cells = next(csv.reader([line]))
            if header is None:
                header = cells
            else:
                check(f"{name} csv row whole", len(cells) == len(header), line)
                rows.append(dict(zip(header, cells)))
        check(f"{name} csv ends a line", not stdout or stdout.endswith("\n"), stdout[-200:])
        return rows
    lines = stdout.split("\n")
    bad = [l for l in lines[:-1] if not any(re.match(p, l) for p in patterns)]
    check(f"{name} whole lines", not bad and (not stdout or stdout.endswith("\n")), bad)
    return lines[:-1]


IOTEST_LINE = (r"^\S+ write \d+\.\d mb in 64 kb blocks 0x45 at \d+\.\d\d mb/s in \d+\.\d seconds: "
               r"\d{8}\.\d{6} f( \(failed\))?$")


def iotest_cases(mnt):
    """-s 2 into a full disk: once on a new file (the fill lands on the 11th
    write), once rewriting a 1 MiB file in place (filled at the 5th write,
    the kernel refuses only the first write past the old end)."""
    for existing, fill_after, offset in ((0, 10, 655360), (1 << 20, 4, 1 << 20)):
        for out in ("legacy", "json", "csv"):
            clear(mnt)
            if existing:
                with open(os.path.join(mnt, "f"), "wb") as f:
                    f.write(b"\0" * existing)
            fmt, csvdir = csv_fmt(out, [] if out == "legacy" else ["--format", out])
            p = run("iotest", ["--backend", "fault", "-s", "2", "-b", "64", *fmt, "f"], mnt, fill_after)
            name = f"iotest existing={existing} {out}"
            err = (rf"write pass 1: (write of 65536 bytes|short write \(\d+ of 65536 bytes\)) at offset {offset} of "
                   r"\./f(:| failed:) No space left on device")
            check(f"{name} exit", p.returncode == 1, f"exit {p.returncode}: {p.stderr}")
            check_stderr(name, "iotest", p.stderr, r"^iotest: error: " + err)
            got = parse_output(name, out, csv_text(name, csvdir) if csvdir else p.stdout, [IOTEST_LINE], err)
            if out == "csv":  # o.note.csv: the notes, not a pass
                got = [r for r in got if "note" not in r]
            if out == "legacy":
                check(f"{name} partial pass marked", len(got) == 1 and got[0].endswith(" (failed)") and
                      " 2.0 mb " not in got[0], got)
            else:
                check(f"{name} partial pass not complete", len(got) == 1 and got[0]["status"] == "error" and
                      int(got[0]["bytes"]) == offset and int(got[0]["size_bytes"]) == 2 << 20, got)
            left = files_under(mnt)
            check(f"{name} file", left.get("f", 0) < 2 << 20, left)


IOP_LINES = [r"^$"]  # nothing before the sweeps; the files line is on stderr


def io_profile_cases(mnt):
    """A tree of 4 files of 512 KiB filled at the create job's 3rd write; one
    3 MiB file filled at its 2nd 1 MiB write; the tree again with --remove."""
    tree = ["--levels", "2", "--files", "2", "-l", "512K"]
    cases = [
        (tree, [], 2, r"write of 524288 bytes|short write \(\d+ of 524288 bytes\)", r"\./dir0/dir1/file0",
         r"offset 0", {"dir0/file0": 524288, "dir0/file1": 524288}, "dir0/dir1/file0"),
        (["-s", "-l", "3M"], [], 1, r"write of 1048576 bytes|short write \(\d+ of 1048576 bytes\)",
         r"\./io_profile_file\.out", r"offset 1048576", {}, "io_profile_file.out"),
        (tree, ["--remove"], 2, r"write of 524288 bytes|short write \(\d+ of 524288 bytes\)",
         r"\./dir0/dir1/file0", r"offset 0", None, None),
    ]
    for layout, extra, fill_after, what, file, offset, whole, partial in cases:
        for out in ("legacy", "json", "csv"):
            clear(mnt)
            fmt, csvdir = csv_fmt(out, [] if out == "legacy" else ["-o", out])
            args = ["--backend", "fault", *layout, "-m", "4K", "-M", "64K", "-n", "20", *extra, *fmt]
            p = run("io_profile", args, mnt, fill_after)
            name = f"io_profile {' '.join(layout + extra)} {out}"
            err = rf"job io_profile-create: ({what}) at {offset} of {file}(:| failed:) No space left on device"
            check(f"{name} exit", p.returncode == 1, f"exit {p.returncode}: {p.stderr}")
            check_stderr(name, "io_profile", p.stderr, r"^io_profile: error: " + err)
            got = parse_output(name, out, csv_text(name, csvdir) if csvdir else p.stdout, IOP_LINES, err)
            left = files_under(mnt)
            if whole is None:  # --remove: everything the run made is gone
                check(f"{name} removed", left == {}, left)
                continue
            check(f"{name} files left", all(left.get(k) == v for k, v in whole.items()) and
                  left.get(partial, 0) < (3 << 20 if "-s" in layout else 512 << 10), left)
            if out == "legacy":
                # the legacy layout keeps stdout to its own lines: the files line is on stderr
                check(f"{name} no files line on stdout", not any(l.startswith("Test file") for l in got), got)
                said = [l for l in p.stderr.splitlines() if l.startswith("io_profile: Test file")]
                check(f"{name} incomplete said", len(said) == 1 and "incomplete" in said[0], p.stderr)
                check(f"{name} no rows", not any(l.startswith("Conducting") for l in got), got)
            else:
                fl = [r for r in got if "removed_files" in r]
                complete = [r.get("complete") for r in fl]
                check(f"{name} files record incomplete", complete in ([False], ["false"]), fl)
                phases = [r for r in got if r.get("kind", "phase") == "phase" and "ops_per_s" in r]
                check(f"{name} no sweep reported", phases == [], phases)


def main():
    global A
    A = iob.arguments("--bin", "--work", "--fault-dir", "--plugin-dir")
    if os.geteuid() != 0:
        print("SKIP: needs root to mount a small tmpfs (CI runs as root)")
        print("0 passed, 0 failed, 1 skipped")
        return 0
    top = iob.tempdir(A.work, "diskfull-")
    mnt = os.path.join(top, "mnt")
    os.mkdir(mnt)
    m = iob.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", mnt])
    if m.returncode != 0:
        print(f"SKIP: cannot mount a tmpfs here: {m.stderr.strip()}")
        print("0 passed, 0 failed, 1 skipped")
        os.rmdir(mnt)
        os.rmdir(top)
        return 0
    try:
        iobench_case(mnt)
        suite_space_case(mnt)
        iotest_cases(mnt)
        io_profile_cases(mnt)
    finally:
        subprocess.run(["umount", mnt])
        subprocess.run(["rm", "-rf", top])
    return iob.summary()


if __name__ == "__main__":
    sys.exit(main())
