#!/usr/bin/env python3
"""docs/profiles.md's key table is `iobench keys --markdown`, byte for byte.

usage: check_profiles_doc.py IOBENCH DOC

Compares the lines between the keys:begin and keys:end marker comments of
DOC with the command's output; on a difference, prints a unified diff and
how to regenerate the table, and exits 1.
"""
import difflib
import subprocess
import sys

BEGIN = "<!-- keys:begin"
END = "<!-- keys:end -->"


def doc_table(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    starts = [i for i, l in enumerate(lines) if l.startswith(BEGIN)]
    ends = [i for i, l in enumerate(lines) if l == END]
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        sys.exit(f"{path}: expected one '{BEGIN} ...' line and, after it, one '{END}' line")
    return "\n".join(lines[starts[0] + 1:ends[0]]) + "\n"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().split("\n")[2])
    iobench, doc = sys.argv[1:]
    run = subprocess.run([iobench, "keys", "--markdown"], capture_output=True, text=True)
    if run.returncode != 0 or run.stderr or not run.stdout:
        sys.exit(f"iobench keys --markdown: exit {run.returncode}, stderr {run.stderr!r}")
    want, have = run.stdout, doc_table(doc)
    if want == have:
        print(f"{doc}: key table matches iobench keys --markdown ({want.count(chr(10)) - 2} keys)")
        return 0
    sys.stdout.writelines(difflib.unified_diff(have.splitlines(True), want.splitlines(True),
                                               f"{doc} (between the markers)", "iobench keys --markdown"))
    print(f"FAIL: {doc} differs from the key table; paste `iobench keys --markdown` between the markers")
    return 1


if __name__ == "__main__":
    sys.exit(main())
