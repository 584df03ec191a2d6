#!/usr/bin/env python3
"""One ordinary run of a binary under valgrind memcheck, as issue 7 asks:

  iobench run configs/default.ini --dir TMP
  iotest -s 8 -wr TMP/f
  io_profile -s -l 1M -n 50 -d TMP
  bigread in=FILE bufsize=0.001        (FILE: 8 MiB of random bytes)

with  valgrind --error-exitcode=9 --leak-check=full
               --errors-for-leak-kinds=definite,indirect
The test passes when the run exits 0: the tool succeeded and valgrind found
no error and no definite or indirect leak.  Prints the command and its exit
status.  Usage: run_valgrind.py --valgrind EXE --bin DIR --src DIR --work DIR TOOL"""
import os
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import iobtest as iob  # noqa: E402

VALGRIND_ARGS = ["--error-exitcode=9", "--leak-check=full", "--errors-for-leak-kinds=definite,indirect"]


def command(a, tool, tmp):
    exe = os.path.join(a.bin, tool)
    if tool == "iobench":
        return [exe, "run", os.path.join(a.src, "configs", "default.ini"), "--dir", tmp]
    if tool == "iotest":
        return [exe, "-s", "8", "-wr", os.path.join(tmp, "f")]
    if tool == "io_profile":
        return [exe, "-s", "-l", "1M", "-n", "50", "-d", tmp]
    data = os.path.join(tmp, "in.dat")
    with open(data, "wb") as f:
        f.write(os.urandom(8 << 20))
    return [exe, "in=" + data, "bufsize=0.001"]


def main():
    a = iob.arguments("--valgrind", "--bin", "--src", "--work",
                      optional={"tool": {"choices": ["iobench", "iotest", "io_profile", "bigread"]}})
    with iob.scratch(a.work, a.tool + "-") as tmp:
        cmd = [a.valgrind, *VALGRIND_ARGS, *command(a, a.tool, tmp)]
        print("$", shlex.join(cmd), flush=True)
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, env=iob.env(), timeout=1800)
        print(f"exit status {p.returncode}" + (" (valgrind found errors or leaks)" if p.returncode == 9 else ""))
        return 0 if p.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
