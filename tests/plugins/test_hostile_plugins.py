#!/usr/bin/env python3
"""Hostile plugins on the search path: one whose entry exits, one whose entry
crashes, one whose entry symbol is data, one whose constructor crashes, one
whose summary holds control bytes and invalid UTF-8.  A run that does not ask
for them is untouched (same exit, same records); one that asks gets a
one-line refusal naming the file and the reason, exit 2; `iobench plugins`
lists every refusal and prints every string escaped.
Usage: test_hostile_plugins.py --bin DIR --work DIR --plugins DIR"""
import json
import re
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import iobtest as iob  # noqa: E402
from iobtest import check  # noqa: E402

HOSTILE = {
    "exit": r"called exit\(\) while loading",
    "crash": r"(crashed \(signal 11|exited \(status 1\)).* while loading",  # ASan turns SEGV into exit 1
    "ctor": r"(crashed \(signal 11|exited \(status 1\)).* while loading",
    "data": r"iob_plugin_entry is data, not a function",
}


def run(a, tool, *args):
    return subprocess.run([iob.binary(a, tool), *args], capture_output=True, env=iob.env(), timeout=240)


SANITIZER = re.compile(r"runtime error:|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer")


def one_error_line(p, tool):
    """The tool's one error line.  In a sanitizer build the trial child's report
    of the plugin's crash comes first: allowed only when it is one."""
    text = p.stderr.decode("utf-8", "replace")
    lines = text.splitlines()
    mine = [l for l in lines if l.startswith(tool + ": ")]
    if len(mine) != 1 or (len(lines) > 1 and not SANITIZER.search(text)):
        return None
    return mine[0]


def main():
    a = iob.arguments("--bin", "--work", "--plugins")
    hostile = os.path.join(a.plugins, "hostile")
    with tempfile.TemporaryDirectory(dir=a.work, prefix="hostile-plugins-") as d:
        prof = os.path.join(d, "p.ini")
        with open(prof, "w") as f:
            f.write("[a]\nbackend = posix\nsize = 1M\nblock_size = 64K\nphases = write,read\n")
        # 1. runs that do not ask for them: the same result with and without them on the path
        base = run(a, "iobench", "run", prof, "--dir", d, "--output", "json")
        p = run(a, "iobench", "run", prof, "--dir", d, "--output", "json", "--plugin-dir", hostile)
        check("iobench run, not asked", p.returncode == 0 and base.returncode == 0,
              f"exit {p.returncode} (without them {base.returncode}): {p.stderr[-500:]!r}")
        if p.returncode == 0:
            doc = json.loads(p.stdout)
            phases = [r["phase"] for r in doc["records"]]
            check("iobench run, records", doc["status"] == "ok" and phases == ["write", "read"], phases)
        p = run(a, "iobench", "check", prof, "--plugin-dir", hostile)
        check("iobench check, not asked", p.returncode == 0 and b"OK" in p.stdout, p.stderr[-500:])
        p = run(a, "iotest", "-s", "1", "--plugin-dir", hostile, os.path.join(d, "f"))
        check("iotest, not asked", p.returncode == 0 and p.stdout.count(b"\n") >= 1,
              f"exit {p.returncode}: {p.stderr[-500:]!r}")
        # 2. asking for one: a one-line refusal naming the file and why, exit 2
        for name, why in HOSTILE.items():
            p = run(a, "iotest", "-s", "1", "--plugin-dir", hostile, "--backend", name, os.path.join(d, "g"))
            line = one_error_line(p, "iotest")
            check(f"iotest --backend {name}", p.returncode == 2 and line is not None
                  and f"iob-backend-{name}.so" in line and re.search(why, line) is not None,
                  f"exit {p.returncode}, stderr {p.stderr[-800:]!r}")
            check(f"iotest --backend {name} created nothing", not os.path.exists(os.path.join(d, "g")))
            with open(prof, "w") as f:
                f.write(f"[a]\nbackend = {name}\nsize = 1M\n")
            p = run(a, "iobench", "check", prof, "--plugin-dir", hostile)
            line = one_error_line(p, "iobench")
            check(f"iobench check backend={name}", p.returncode == 2 and line is not None
                  and re.search(why, line) is not None, f"exit {p.returncode}, stderr {p.stderr[-800:]!r}")
        # 3. the listing: every refusal, every string escaped
        p = run(a, "iobench", "plugins", "--plugin-dir", hostile)
        out = p.stdout
        check("plugins exit", p.returncode == 0, f"exit {p.returncode}: {p.stderr[-500:]!r}")
        for name, why in HOSTILE.items():
            lines = [l for l in out.decode("utf-8", "replace").splitlines()
                     if l.startswith("not loaded: ") and f"iob-backend-{name}.so" in l]
            check(f"plugins lists {name}", len(lines) == 1 and re.search(why, lines[0]) is not None, out[-2000:])
        check("plugins escapes control bytes", b"\x1b" not in out and b"\\x1b[31m" in out, out[-2000:])
        check("plugins escapes newlines", not any(l.startswith(b"forged") for l in out.splitlines())
              and b"evil\\x0aforged" in out, out[-2000:])
        try:
            out.decode("utf-8")
            check("plugins escapes invalid UTF-8", b"\\xff\\xfe end" in out, out[-2000:])
        except UnicodeDecodeError as e:
            check("plugins prints valid UTF-8", False, str(e))
        check("plugins lists the good ones", b"backend  posix" in out and b"backend  escape" in out, out[-2000:])
        # 4. a binary away from the build tree (as an installed one is) never searches the build
        # tree: copied into <tmp>/bin with no plugins beside it, it finds nothing
        os.mkdir(os.path.join(d, "bin"))
        exe = os.path.join(d, "bin", "iobench")
        shutil.copy2(os.path.join(a.bin, "iobench"), exe)
        p = subprocess.run([exe, "plugins"], capture_output=True, env=iob.env(), timeout=240)
        build = os.path.dirname(os.path.realpath(a.bin)).encode()
        check("copied binary searches no build tree", p.returncode == 0 and build not in p.stdout
              and b"backend  posix" not in p.stdout, p.stdout[-2000:])
        # 5. the trial child: a plugin of this build (its stamp) is loaded without one; the same
        # plugin with another stamp, as one built elsewhere, gets the trial and still runs
        with open(prof, "w") as f:
            f.write("[a]\nbackend = posix\nsize = 1M\nblock_size = 64K\nphases = write,read\n")
        p = run(a, "iobench", "-v", "run", prof, "--dir", d, "--output", "json")
        own = b"plugin posix: built with this binary; loaded without a trial child"
        check("own plugin: no trial child", p.returncode == 0 and own in p.stderr, p.stderr[-800:])
        with open(os.path.join(a.bin, "..", "lib", "iobench", "plugins", "iob-backend-posix.so"), "rb") as f:
            image = f.read()
        stamp = re.search(rb"iobench-build-stamp:([0-9a-f]{32})\x00", image)
        check("own plugin carries the stamp", stamp is not None)
        if stamp:
            other = os.path.join(d, "elsewhere")
            os.mkdir(other, 0o755)
            moved = bytes(b"0123456789abcdef"[(int(chr(c), 16) + 1) % 16] for c in stamp.group(1))
            forged = image.replace(stamp.group(1), moved)
            with open(os.path.join(other, "iob-backend-posix.so"), "wb") as f:
                f.write(forged)
            os.chmod(os.path.join(other, "iob-backend-posix.so"), 0o755)
            p = run(a, "iobench", "-v", "run", prof, "--dir", d, "--output", "json", "--plugin-dir", other)
            check("a plugin from another build: tried in a child, then run",
                  p.returncode == 0 and own not in p.stderr and json.loads(p.stdout)["status"] == "ok",
                  f"exit {p.returncode}: {p.stderr[-800:]!r}")
    return iob.summary()


if __name__ == "__main__":
    sys.exit(main())
