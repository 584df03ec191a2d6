#!/usr/bin/env python3
"""The Debian package, built and used as a user would.

  deb          cpack -G DEB builds the .deb (name, version, Depends on the
               iniparser runtime, and on the package of every library any
               binary or plugin in it needs: readelf -d's NEEDED, found with
               ldconfig -p and dpkg -S); dpkg -x unpacks it into a temporary
               directory; from there, with IOBENCH_PLUGIN_PATH unset,
               `iobench plugins` finds the unpacked plugins (and nothing from
               the build tree) and one short job runs; the man pages, docs
               and completions are in place
  manpages     every man page of the build tree is well-formed roff (groff
               -ww) and all have one .TH date, version and manual name
  completion   the bash completion, sourced in bash: `iobench ru` completes to
               run, `iobench rep` to report, `iotest --for` to --format
  portable     a second build, configured here with -DIOB_BUILTIN_PLUGINS=ON
               (iobench and io_profile only): each binary, copied alone into
               an empty directory, lists the in-tree plugins as built in and
               runs a job with them; an external .so (the template backend)
               still loads from --plugin-dir; a .so of a built-in's name wins
               from --plugin-dir and loses beside the binary

usage: test_package.py --build DIR --source DIR --work DIR CASE
"""
import glob
import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import iobtest as iob  # noqa: E402
from iobtest import report as check  # noqa: E402


def sh(cmd, **kw):
    return iob.run(cmd, env=iob.env(kw.pop("env", {})), timeout=300, **kw)


def case_deb(o):
    for tool in ("cpack", "dpkg", "dpkg-deb"):
        if not shutil.which(tool):
            iob.skip("%s not found (Debian's dpkg and CMake's cpack are needed)" % tool)
    p = sh(["cpack", "--config", os.path.join(o.build, "CPackConfig.cmake"), "-G", "DEB", "-B", o.work])
    debs = glob.glob(os.path.join(o.work, "*.deb"))
    if not check(p.returncode == 0 and len(debs) == 1, "cpack -G DEB builds one .deb (%s)" % p.stderr[-800:]):
        return
    deb = debs[0]
    info = sh(["dpkg-deb", "-f", deb, "Package", "Version", "Depends", "Maintainer"]).stdout
    check(re.search(r"^Package: iobench$", info, re.M) is not None, "package name iobench")
    check(re.search(r"^Depends: .*libiniparser1", info, re.M) is not None, "depends on libiniparser1: %s" % info)
    depends = sh(["dpkg-deb", "-f", deb, "Depends"]).stdout.strip()
    check(re.search(r"^Maintainer: \S", info, re.M) is not None, "has a maintainer")
    root = os.path.join(o.work, "root")
    p = sh(["dpkg", "-x", deb, root])
    check(p.returncode == 0, "dpkg -x unpacks it")
    check_depends(root, depends)
    iobench = os.path.join(root, "usr", "bin", "iobench")
    for b in ("iobench", "iotest", "io_profile", "bigread"):
        check(os.access(os.path.join(root, "usr", "bin", b), os.X_OK), "usr/bin/%s" % b)
    p = sh([iobench, "plugins"])
    check(p.returncode == 0, "iobench plugins runs from the unpacked tree (%s)" % p.stderr.strip())
    plug = os.path.realpath(os.path.join(root, "usr"))
    names = re.findall(r"^(backend|output)\s+(\S+)\s+\S+\s+(\S+)", p.stdout, re.M)
    got = {(k, n) for k, n, _ in names}
    want = {("backend", b) for b in ("posix", "stdio", "direct", "mmap")} | \
        {("output", x) for x in ("human", "csv", "json", "svg", "html")}
    check(want <= got, "every shipped plugin is found (%s)" % sorted(got))
    check(names and all(os.path.realpath(f).startswith(plug + os.sep) for _, _, f in names),
          "every plugin comes from the unpacked tree, none from the build tree")
    prof = os.path.join(o.work, "short.ini")
    with open(prof, "w") as f:
        f.write("[short]\nsize = 1M\nblock_size = 64K\nphases = write,read,verify\n")
    data = os.path.join(o.work, "data")
    os.makedirs(data)
    p = sh([iobench, "run", prof, "--dir", data, "--output", "human,json=" + os.path.join(o.work, "r.json")])
    check(p.returncode == 0 and "short" in p.stdout, "one short job runs (%s)" % p.stderr.strip()[-400:])
    check(os.listdir(data) == [], "and cleans up after itself")
    share = os.path.join(root, "usr", "share")
    for f in ("doc/iobench/profiles.md", "doc/iobench/outputs.md", "doc/iobench/architecture.md",
              "doc/iobench/plugin-guide.md", "doc/iobench/security.md", "doc/iobench/performance.md",
              "bash-completion/completions/iobench", "bash-completion/completions/iotest",
              "bash-completion/completions/io_profile", "bash-completion/completions/bigread",
              "iobench/configs/default.ini"):
        check(os.path.isfile(os.path.join(share, f)), "usr/share/" + f)
    pages = glob.glob(os.path.join(share, "man", "man1", "*.1*"))
    check(len(pages) == 4, "four man pages (%s)" % [os.path.basename(x) for x in pages])


def owner(path):
    """The Debian package holding a library path ('' when none), trying the
    path, its target and its twin across /usr (merged /usr)."""
    tries = [path, os.path.realpath(path)]
    for t in list(tries):
        tries.append(t[4:] if t.startswith("/usr/") else "/usr" + t)
    for t in tries:
        p = sh(["dpkg", "-S", t])
        if p.returncode == 0 and p.stdout:
            return p.stdout.split(":")[0].split(",")[0].strip()
    return ""


def check_depends(root, depends):
    """Every NEEDED library of every ELF file in the package belongs to a
    package Depends names (or is in the package itself)."""
    if not shutil.which("readelf") or not shutil.which("ldconfig"):
        check(False, "readelf and ldconfig are needed to check Depends")
        return
    names = {re.sub(r"\s*\(.*?\)", "", d).strip() for d in depends.split(",") if d.strip()}
    cache = {}
    for line in sh(["ldconfig", "-p"]).stdout.splitlines()[1:]:
        m = re.match(r"^\s*(\S+) \(([^)]*)\) => (\S+)$", line)
        if m and ("x86-64" in m.group(2) or "64" in m.group(2) or m.group(1) not in cache):
            cache.setdefault(m.group(1), m.group(3))
    elves = []
    for d, _, files in os.walk(root):
        for f in files:
            fp = os.path.join(d, f)
            with open(fp, "rb") as fh:
                if fh.read(4) == b"\x7fELF":
                    elves.append(fp)
    shipped = {os.path.basename(e) for e in elves}
    check(len(elves) >= 14, "the package holds the 4 binaries and the plugins as ELF files (%d)" % len(elves))
    seen = {}
    for e in elves:
        out = sh(["readelf", "-d", e]).stdout
        for lib in re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out):
            if lib in shipped:
                continue
            pkg = seen.get(lib)
            if pkg is None:
                pkg = seen[lib] = owner(cache.get(lib, "")) if lib in cache else ""
            check(pkg != "" and pkg in names, "%s needs %s, from package %r: in Depends (%s)" % (
                os.path.relpath(e, root), lib, pkg, depends))
    check("liburing.so.2" in seen, "the io_uring plugin's liburing.so.2 was among the libraries checked")


def th_lines(pages):
    out = {}
    for p in pages:
        with open(p) as f:
            out[os.path.basename(p)] = f.readline().rstrip("\n")
    return out


def case_manpages(o):
    pages = sorted(glob.glob(os.path.join(o.build, "man", "*.1")))
    check(sorted(os.path.basename(p) for p in pages) == ["bigread.1", "io_profile.1", "iobench.1", "iotest.1"],
          "the build tree holds the four man pages")
    ths = th_lines(pages)
    fields = set()
    for name, th in ths.items():
        m = re.match(r'^\.TH (\S+) 1 "(\d{4}-\d\d-\d\d)" "iobench (\d+\.\d+\.\d+)" "([^"@]+)"$', th)
        check(m is not None and m.group(1) == name[:-2].upper(), "%s: %s" % (name, th))
        if m:
            fields.add(m.groups()[1:])
    check(len(fields) == 1, "one date, version and manual name in every header: %s" % fields)
    version = open(os.path.join(o.source, "CMakeLists.txt")).read()
    v = re.search(r"project\(iobench VERSION (\S+)", version).group(1)
    check(all(f[1] == v for f in fields), "the version is the project's (%s)" % v)
    if shutil.which("groff"):
        for p in pages:
            r = sh(["groff", "-man", "-ww", "-z", p])
            check(r.returncode == 0 and r.stderr == "", "%s is well-formed roff %s" % (os.path.basename(p), r.stderr))
    else:
        print("skipped: groff not installed, roff not checked")
    text = open(os.path.join(o.build, "man", "iobench.1")).read()
    for sect in ("COMMANDS", "OPTIONS", "PROFILES", "OUTPUTS", "EXIT STATUS", "FILES", "SEE ALSO"):
        check(".SH " + sect in text, "iobench(1) has " + sect)
    for cmd in ("run", "check", "plugins", "keys"):
        check(re.search(r"^\.B(I)? %s\b" % cmd, text, re.M) is not None, "iobench(1) describes " + cmd)


def complete(o, fn, words):
    script = ('source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); %s; '
              'printf "%%s\\n" "${COMPREPLY[@]}"' % fn)
    env = {"PATH": os.path.join(o.build, "bin") + os.pathsep + os.environ.get("PATH", "")}
    p = sh(["bash", "--norc", "--noprofile", "-c", script, "bash",
            os.path.join(o.source, "tools", "completions", "iobench.bash")] + words, env=env, cwd=o.work)
    check(p.returncode == 0 and p.stderr == "", "bash sources the completion (%s)" % p.stderr.strip())
    return [l for l in p.stdout.split("\n") if l]


def case_completion(o):
    if not shutil.which("bash"):
        iob.skip("bash not found")
    got = complete(o, "_iobench", ["iobench", "ru"])
    check(got == ["run"], "iobench ru -> %s" % got)
    got = complete(o, "_iobench", ["iobench", "rep"])
    check(got == ["report"], "iobench rep -> %s" % got)
    got = complete(o, "_iobench_iotest", ["iotest", "--for"])
    check(got == ["--format"], "iotest --for -> %s" % got)
    got = complete(o, "_iobench", ["iobench", "run", "x.ini", "--output", "human,j"])
    check(got == ["human,json"], "an output list completes its last item -> %s" % got)
    got = complete(o, "_iobench_bigread", ["bigread", "--backend", "d"])
    check(got == ["direct"], "bigread --backend d -> %s" % got)
    got = complete(o, "_iobench_io_profile", ["io_profile", "--rem"])
    check(got == ["--remove"], "io_profile --rem -> %s" % got)
    out = sh(["bash", "--norc", "--noprofile", "-c", 'source "$1"; complete -p', "bash",
              os.path.join(o.source, "tools", "completions", "iobench.bash")]).stdout
    for b in ("iobench", "iotest", "io_profile", "bigread"):
        check(re.search(r"complete -F \S+ %s$" % b, out, re.M) is not None, "registered for " + b)


def portable_build(o):
    """Configure and build iobench and io_profile with IOB_BUILTIN_PLUGINS=ON
    in a directory kept between runs (a rerun only rebuilds what changed),
    with the --define settings of the build under test (its build type and
    sanitizer: the external plugins loaded into the copies carry it)."""
    bdir = os.path.join(os.path.dirname(o.work), "portable-build")
    cfg = [o.cmake, "-S", o.source, "-B", bdir, "-DIOB_BUILTIN_PLUGINS=ON", "-DBUILD_TESTING=OFF",
           "-DIOB_WERROR=ON"] + ["-D" + d for d in o.define]
    if o.generator:
        cfg += ["-G", o.generator]
    if o.compiler:
        cfg += ["-DCMAKE_C_COMPILER=" + o.compiler]
    env = {"CFLAGS": "", "LDFLAGS": ""}
    p = sh(cfg, env=env)
    if not check(p.returncode == 0, "configure with -DIOB_BUILTIN_PLUGINS=ON (%s)" % p.stderr[-1500:]):
        return None
    p = sh([o.cmake, "--build", bdir, "-j2", "--target", "iobench", "io_profile"], env=env)
    if not check(p.returncode == 0, "build iobench and io_profile (%s)" % (p.stdout[-1500:] + p.stderr[-1500:])):
        return None
    return os.path.join(bdir, "bin")


def plugin_rows(out):
    """`iobench plugins`: {(kind, name): from}, the shadowed lines."""
    rows = dict(((m.group(1), m.group(2)), m.group(3))
                for m in re.finditer(r"^(backend|output)\s+(\S+)\s+\d+\.\d+\s+(.+)$", out, re.M))
    return rows, re.findall(r"^shadowed: (.+)$", out, re.M)


def case_portable(o):
    bindir = portable_build(o)
    if not bindir:
        return
    main_plugins = os.path.join(o.build, "lib", "iobench", "plugins")
    intree = sorted(tuple(re.match(r"iob-(backend|output)-(\w+)\.so$", f).groups())
                    for f in os.listdir(main_plugins) if re.match(r"iob-(backend|output)-\w+\.so$", f))
    check(len(intree) >= 8, "the main build has its in-tree plugins: %s" % intree)
    # each binary alone in an empty directory: no lib/ beside it, no plugin path
    alone = os.path.join(o.work, "alone")
    os.makedirs(alone)
    for b in ("iobench", "io_profile"):
        shutil.copy2(os.path.join(bindir, b), alone)
    iobench = os.path.join(alone, "iobench")
    p = sh([iobench, "plugins"], cwd=alone)
    rows, shadowed = plugin_rows(p.stdout)
    check(p.returncode == 0 and sorted(rows) == intree and set(rows.values()) == {"(built in)"},
          "the copied iobench lists every in-tree plugin as built in: %s" % p.stdout[-1500:])
    check(re.search(r"^search path:\n  \(built in\)\n", p.stdout, re.M) is not None and not shadowed,
          "its search path is the built-in plugins alone: %s" % p.stdout[:300])
    prof = os.path.join(alone, "p.ini")
    with open(prof, "w") as f:
        f.write("[j]\nsize = 2M\nblock_size = 64K\nphases = write,read\nbackend = posix\n")
    js = os.path.join(alone, "r.json")
    p = sh([iobench, "run", prof, "--dir", alone, "--output", "json=" + js + ",csv"], cwd=alone)
    ok = p.returncode == 0 and os.path.exists(js)
    doc = json.load(open(js)) if ok else {}
    phases = [r for r in doc.get("records", []) if r.get("kind") == "phase"]
    check(ok and doc.get("status") == "ok" and [r["phase"] for r in phases] == ["write", "read"] and
          all(r["bytes"] == 2 << 20 for r in phases) and "bytes" in p.stdout,
          "a job runs with the built-in posix, json and csv: %s %s" % (
              p.stderr[-800:], [(r["phase"], r["bytes"], r["status"]) for r in phases]))
    # the static iniparser and liburing, when the build found them, leave
    # only the C library's own to need
    cache = open(os.path.join(os.path.dirname(bindir), "CMakeCache.txt")).read()
    static = [lib for var, lib in (("IOB_INIPARSER_STATIC_LIBRARY", "libiniparser"),
                                   ("IOB_URING_STATIC_LIBRARY", "liburing"))
              if re.search(r"^%s:FILEPATH=/\S+\.a$" % var, cache, re.M)]
    if shutil.which("readelf"):
        needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", sh(["readelf", "-d", iobench]).stdout)
        check(needed and not any(n.startswith(tuple(static)) for n in needed),
              "linked statically: %s; the copy needs only %s" % (static, needed))
    p = sh([os.path.join(alone, "io_profile"), "-s", "-l", "256K", "-M", "64", "-n", "5", "--remove"], cwd=alone)
    check(p.returncode == 0 and p.stdout.endswith("\nDone with read test\n"),
          "the copied io_profile runs with its built-in stdio backend: %s" % p.stderr[-800:])
    # an external plugin still loads: the template backend, from --plugin-dir
    if o.template_dir and os.path.isdir(o.template_dir):
        with open(prof, "w") as f:
            f.write("[t]\nsize = 1M\nblock_size = 64K\nphases = write,read\nbackend = template\n")
        p = sh([iobench, "run", prof, "--dir", alone, "--plugin-dir", o.template_dir, "--output", "json"],
               cwd=alone)
        recs = json.loads(p.stdout)["records"] if p.returncode == 0 else []
        check(p.returncode == 0 and [r.get("backend") for r in recs if r["kind"] == "phase"] == ["template"] * 2,
              "an external .so backend loads beside the built-in ones: %s" % p.stderr[-800:])
    else:
        check(False, "the template backend's directory is given (--template-dir)")
    # precedence: --plugin-dir (and IOBENCH_PLUGIN_PATH) before the built-in
    # plugins, the built-in ones before the directory beside the binary
    p = sh([iobench, "plugins", "--plugin-dir", main_plugins], cwd=alone)
    rows, shadowed = plugin_rows(p.stdout)
    real = os.path.realpath(main_plugins)
    check(rows.get(("output", "json")) == os.path.join(real, "iob-output-json.so") and
          "output json (built in) is shadowed by %s/iob-output-json.so" % real in shadowed,
          "a .so from --plugin-dir replaces the built-in one of its name: %s" % p.stdout[-1500:])
    p = sh([iobench, "plugins"], cwd=alone, env={"IOBENCH_PLUGIN_PATH": main_plugins})
    rows, _ = plugin_rows(p.stdout)
    check(rows.get(("backend", "posix")) == os.path.join(real, "iob-backend-posix.so"),
          "so does one from IOBENCH_PLUGIN_PATH: %s" % p.stdout[-800:])
    beside = os.path.join(o.work, "beside")
    os.makedirs(os.path.join(beside, "bin"))
    os.makedirs(os.path.join(beside, "lib", "iobench", "plugins"))
    shutil.copy2(iobench, os.path.join(beside, "bin"))
    shutil.copy2(os.path.join(main_plugins, "iob-output-json.so"), os.path.join(beside, "lib", "iobench", "plugins"))
    p = sh([os.path.join(beside, "bin", "iobench"), "plugins"], cwd=beside)
    rows, shadowed = plugin_rows(p.stdout)
    near = os.path.realpath(os.path.join(beside, "lib", "iobench", "plugins", "iob-output-json.so"))
    check(rows.get(("output", "json")) == "(built in)" and
          "output json from %s is shadowed by (built in)" % near in shadowed,
          "the built-in json wins over the .so beside the binary: %s" % p.stdout[-1500:])


def main():
    o = iob.arguments("--build", "--source", "--work", optional={
        "--cmake": "cmake", "--generator": "", "--compiler": "", "--template-dir": "",
        "--define": {"action": "append", "default": [], "help": "NAME=VALUE for the portable build"},
        "case": {"choices": ["deb", "manpages", "completion", "portable"]}})
    return iob.in_case_dir(o, globals()["case_" + o.case])


if __name__ == "__main__":
    sys.exit(main())
