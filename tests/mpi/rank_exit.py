#!/usr/bin/env python3
"""Run one rank's command and write its exit code to STATUS % rank.

Usage (under mpirun): rank_exit.py STATUS ARGV...

MPICH's mpiexec (hydra) does not always keep its ranks' exit codes after it
forwards a Ctrl-C: it records 0 for some ranks, and returns 0 when it did for all
(test_mpi.py's sigint case saw it about once in 20 runs, while strace showed
every rank's exit_group(130)).  This wrapper lets the test read each rank's
own code.  hydra signals the rank's process group, so the command gets the
signal directly; the wrapper only waits for it."""
import os
import signal
import subprocess
import sys

signal.signal(signal.SIGINT, lambda *_: None)  # keep waiting for the rank
signal.signal(signal.SIGTERM, lambda *_: None)
# the PMI descriptor mpiexec gave this process goes on to the rank: close_fds=False
proc = subprocess.Popen(sys.argv[2:], close_fds=False, preexec_fn=lambda: (signal.signal(signal.SIGINT, signal.SIG_DFL),
                                                          signal.signal(signal.SIGTERM, signal.SIG_DFL)))
rc = proc.wait()
code = rc if rc >= 0 else 128 - rc
rank = os.environ.get("PMI_RANK", "x")
with open(sys.argv[1] % rank, "w") as f:
    f.write(f"{code}\n")
sys.exit(code)
