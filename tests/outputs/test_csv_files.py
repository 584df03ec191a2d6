#!/usr/bin/env python3
"""CSV that imports: the csv output of the real binaries, read back as a
spreadsheet or pandas would (docs/outputs.md, "csv").

  files    bigread, io_profile, iotest -c and iobench with csv=FILE: FILE holds
           the phase table, FILE.<kind>.csv each other kind; every file is one
           table (csv module: every row has the header's columns), read with
           pandas too when it is installed
  stdout   --output csv on stdout: only the phase table, and one stderr line
           naming what was left out
  append   csv:append=FILE adds rows under the same header; refuses another
           header (exit 1, file unchanged), a file that is not a CSV table and
           standard output (exit 2, file unchanged)

usage: test_csv_files.py --bin-dir DIR --work DIR CASE
"""
import csv
import glob
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import iobtest as iob  # noqa: E402
from iobtest import report as check  # noqa: E402


def run(o, tool, args, want=0):
    p = iob.run([os.path.join(o.bin_dir, tool)] + args, env=iob.env(), cwd=o.work)
    check(p.returncode == want, "%s %s exits %d (got %d: %s)" % (tool, " ".join(args), want, p.returncode,
                                                                 p.stderr[-600:]))
    return p


def table(path):
    """The header and rows of a CSV file that must be one table."""
    rows = iob.read_csv(path)
    check(len(rows) >= 2, "%s has a header and rows" % os.path.basename(path))
    if rows:
        bad = [i for i, r in enumerate(rows) if len(r) != len(rows[0])]
        check(not bad, "%s: every row has the header's %d columns (bad rows %s)" % (
            os.path.basename(path), len(rows[0]), bad[:5]))
        with open(path, newline="") as f:
            for d in csv.DictReader(f):
                if None in d or None in d.values():
                    check(False, "%s: DictReader puts every value under a header" % path)
                    break
    return rows


def pandas_check(paths):
    try:
        import pandas
    except ImportError:
        print("skipped: pandas is not installed, so the files were read with the csv module only")
        return
    for p in paths:
        try:
            df = pandas.read_csv(p)
            check(len(df) >= 1, "pandas reads %s (%d rows, %d columns)" % (p, len(df), len(df.columns)))
        except Exception as e:  # any parser error is the failure tested for
            check(False, "pandas reads %s: %s" % (p, e))


def files_of(o, stem):
    return sorted(glob.glob(os.path.join(o.work, stem + "*.csv")))


def case_files(o):
    data = os.path.join(o.work, "in.dat")
    with open(data, "wb") as f:
        f.write(os.urandom(4 << 20))
    runs = [
        # every run here reads back what it just wrote: the notes say so, and
        # their table (kind "note") goes beside the main one
        ("bigread", [data, "1M", "-o", "csv=b.csv"], "b", {"b.csv", "b.series.csv", "b.block.csv", "b.note.csv"}),
        ("io_profile", ["-s", "-l", "256K", "-M", "1024", "-n", "20", "--remove", "-o", "csv=p.csv"], "p",
         {"p.csv", "p.io_profile_test.csv", "p.io_profile_files.csv", "p.note.csv"}),
        ("iotest", ["-s", "1", "-b", "64", "-w", "-r", "-c", "a, \"quoted\" comment", "--format", "csv=t", "f"], "t",
         {"t", "t.comment.csv", "t.note.csv"}),
    ]
    for tool, args, stem, want in runs:
        p = run(o, tool, args)
        got = {os.path.basename(p) for p in glob.glob(os.path.join(o.work, stem + "*"))}
        check(got == want, "%s writes %s (got %s)" % (tool, sorted(want), sorted(got)))
        # the notes table holds the notes stderr gave (no person sees a csv file's)
        said = [l.split(": ", 2)[2] for l in p.stderr.splitlines()
                if l.startswith(tool + ": note: ") or l.startswith(tool + ": warning: ")]
        notes = table(os.path.join(o.work, stem + ".note.csv"))
        check(notes and notes[0] == ["note"] and [r[0] for r in notes[1:]] == said and
              any("came from memory, not storage" in r[0] for r in notes[1:]),
              "%s: the note table holds the notes stderr gave (%s; stderr %s)" % (tool, notes, said))
        paths = [os.path.join(o.work, n) for n in sorted(got)]
        for p in paths:
            table(p)
        main = table(os.path.join(o.work, stem + (".csv" if stem != "t" else "")))
        check(main and "phase" in main[0] and "bw_bytes_per_s" in main[0], "%s: the main file is the phase table" % tool)
        pandas_check(paths)
    blocks = table(os.path.join(o.work, "b.block.csv"))
    check(len(blocks) == 5 and blocks[0][:2] == ["index", "offset_bytes"], "bigread: one row per block")
    comment = table(os.path.join(o.work, "t.comment.csv"))
    check(comment == [["comment"], ['a, "quoted" comment']], "iotest: the comment survives quoting")


def case_stdout(o):
    p = run(o, "io_profile", ["-s", "-l", "256K", "-M", "64", "-n", "10", "--remove", "-q", "-o", "csv"])
    rows = list(csv.reader(p.stdout.splitlines()))
    check(len(rows) == 1 + 2 * 6 and all(len(r) == len(rows[0]) for r in rows) and "" not in p.stdout.split("\n")[:-1],
          "stdout is one table: the header and 12 phase rows")
    said = [l for l in p.stderr.splitlines() if "left out" in l]
    check(len(said) == 1 and "io_profile_test" in said[0] and "io_profile_files" in said[0],
          "one stderr line names what was left out: %s" % said)
    check(os.listdir(o.work) == [], "nothing else was written (%s)" % os.listdir(o.work))


def case_append(o):
    prof = os.path.join(o.work, "a.ini")
    with open(prof, "w") as f:
        f.write("[a]\nsize = 1M\nblock_size = 256K\nphases = write,read\n")
    out = os.path.join(o.work, "runs.csv")
    for i in range(2):
        run(o, "iobench", ["run", prof, "--dir", o.work, "--output", "csv:append=" + out])
    rows = table(out)
    check(len(rows) == 5 and rows.count(rows[0]) == 1, "two runs appended: one header, 4 rows (%d rows)" % len(rows))
    before = open(out, "rb").read()
    # another table (bigread's phase rows carry the series keys): refused, file unchanged
    data = os.path.join(o.work, "in.dat")
    with open(data, "wb") as f:
        f.write(os.urandom(1 << 20))
    p = run(o, "bigread", [data, "1M", "-o", "csv:append=" + out], want=1)
    errs = [l for l in p.stderr.splitlines() if "error" in l]
    check(len(errs) >= 1 and "other columns" in p.stderr and "runs.csv" in p.stderr,
          "a different header is refused, naming the file: %s" % errs)
    check(open(out, "rb").read() == before, "the refused append left the file as it was")
    # not a CSV table: refused before the run
    bad = os.path.join(o.work, "notes.txt")
    with open(bad, "w") as f:
        f.write("\nsome text\n")
    p = run(o, "iobench", ["run", prof, "--dir", o.work, "--output", "csv:append=" + bad], want=2)
    check(len(p.stderr.strip().splitlines()) >= 1 and "notes.txt" in p.stderr, "a non-CSV file is refused: %s" % p.stderr)
    check(open(bad).read() == "\nsome text\n", "and left as it was")
    p = run(o, "iobench", ["run", prof, "--dir", o.work, "--output", "csv:append"], want=2)
    check("regular file" in p.stderr, "append to standard output is refused: %s" % p.stderr.strip())
    # a fresh file: the header is written
    fresh = os.path.join(o.work, "fresh.csv")
    run(o, "iobench", ["run", prof, "--dir", o.work, "--output", "csv:append=" + fresh])
    check(len(table(fresh)) == 3, "append to a new file writes the header")


def main():
    o = iob.arguments("--bin-dir", "--work", optional={"case": {"choices": ["files", "stdout", "append"]}})
    return iob.in_case_dir(o, globals()["case_" + o.case])


if __name__ == "__main__":
    sys.exit(main())
