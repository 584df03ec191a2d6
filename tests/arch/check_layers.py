#!/usr/bin/env python3
"""Check the layering rules of docs/layers.txt (docs/architecture.md, "Layers")
against the sources' #include lines and calls.  Prints one line per rule with
what it checked; on a break, prints FILE:LINE: and the rule, and exits 1.

usage: check_layers.py SOURCE_ROOT [RULES]   (RULES: SOURCE_ROOT/docs/layers.txt)
"""
import fnmatch
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"(?:iobench/)?([^"]+)"')
COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')


def sources(root):
    out = []
    for top in ("core", "plugins", "tools"):
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if f.endswith((".c", ".h")):
                    out.append(os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/"))
    return sorted(out)


def match(path, pattern):
    if pattern.endswith("/**"):
        return path.startswith(pattern[:-2])
    return fnmatch.fnmatchcase(path, pattern)


def select(files, spec):
    words = spec.split()
    keep, drop = words, []
    if "except" in words:
        i = words.index("except")
        keep, drop = words[:i], words[i + 1:]
    return [f for f in files if any(match(f, p) for p in keep) and not any(match(f, p) for p in drop)]


def code_lines(text):
    """The text with comments and string literals blanked, newlines kept."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return COMMENT.sub(blank, STRING.sub(blank, text)).split("\n")


MODULES = {}


def module(path):
    base = os.path.splitext(os.path.basename(path))[0]
    return MODULES.get(base, base)


def main():
    root = sys.argv[1]
    rules_path = sys.argv[2] if len(sys.argv) > 2 else os.path.join(root, "docs", "layers.txt")
    files = sources(root)
    text = {f: open(os.path.join(root, f), encoding="utf-8", errors="replace").read() for f in files}
    includes = {}
    for f in files:
        includes[f] = [(n + 1, m.group(1)) for n, l in enumerate(text[f].split("\n"))
                       for m in [INCLUDE.match(l)] if m]
    breaks = 0
    nrules = 0

    def fail(f, line, rule, what):
        nonlocal breaks
        breaks += 1
        print(f"{f}:{line}: {what} (rule: {rule})")

    for lineno, raw in enumerate(open(rules_path, encoding="utf-8"), 1):
        rule = raw.split("#", 1)[0].strip()
        if not rule:
            continue
        nrules += 1
        kind, _, rest = rule.partition(" ")
        rest = rest.strip()
        before = breaks
        if kind in ("forbid-include", "only-include", "forbid-call"):
            lhs, _, rhs = rest.partition(":")
            chosen = select(files, lhs)
            names = rhs.split()
            if not chosen or not names:
                print(f"{rules_path}:{lineno}: rule names no file or no header/function: {rule}")
                return 2
            for f in chosen:
                if kind == "forbid-include":
                    for n, h in includes[f]:
                        if os.path.basename(h) in names:
                            fail(f, n, rule, f'includes "{h}"')
                elif kind == "only-include":
                    for n, h in includes[f]:
                        if os.path.basename(h) not in names and os.path.basename(h) != os.path.basename(f).replace(".c", ".h"):
                            fail(f, n, rule, f'includes "{h}", not one of {" ".join(names)}')
                else:
                    for n, l in enumerate(code_lines(text[f]), 1):
                        for m in re.finditer(r"\b(iob_[A-Za-z0-9_]*)\s*\(", l):
                            name = m.group(1)
                            if any(name.startswith(x) if x.endswith("_") else name == x for x in names):
                                # a definition is not a call
                                if re.match(r"^[a-z].*\b" + name + r"\s*\(", l) and not l.startswith((" ", "\t")):
                                    continue
                                fail(f, n, rule, f"calls {name}")
            what = f"{len(chosen)} files"
        elif kind == "define-beside":
            hdr, _, src = rest.partition(":")
            hdr, src = hdr.strip(), src.strip()
            hpath = f"core/include/iobench/{hdr}"
            decls = set(re.findall(r"\b(iob_[a-z0-9_]+)\s*\(", "\n".join(
                l for l in code_lines(text[hpath]) if not l.startswith((" ", "\t", "#")))))
            for name in sorted(decls):
                defined = [(f, n) for f in files if f.endswith(".c")
                           for n, l in enumerate(code_lines(text[f]), 1)
                           if re.match(r"^[a-z][^;=]*\b" + name + r"\s*\([^;]*$", l)]
                if not any(f == src for f, _ in defined):
                    fail(hpath, 1, rule, f"{name} is not defined in {src}")
                for f, n in defined:
                    if f != src:
                        fail(f, n, rule, f"{name} (declared in {hpath}) is defined here, not in {src}")
            what = f"{len(decls)} functions"
        elif kind == "module":
            name, _, stems = rest.partition(":")
            for stem in stems.split():
                MODULES[stem] = name.strip()
            what = f"{len(stems.split())} stems"
        elif kind == "no-cycle":
            mods = rest.split()
            graph = {}
            for f in files:
                if f.startswith("core/"):
                    for n, h in includes[f]:
                        graph.setdefault(module(f), {}).setdefault(module(h), (f, n))
            for start in mods:
                # a path from start back to itself through any modules
                seen, stack = {}, [start]
                while stack:
                    m = stack.pop()
                    for nxt, where in graph.get(m, {}).items():
                        if nxt != m and nxt not in seen:
                            seen[nxt] = (m, where)
                            stack.append(nxt)
                if start in seen:
                    path, m = [start], start
                    while True:
                        m = seen[m][0]
                        if m == start:
                            break
                        path.append(m)
                    path.append(start)
                    path = list(reversed(path))
                    f, n = graph[path[0]][path[1]]
                    fail(f, n, rule, "include circle " + " -> ".join(path))
            what = f"{len(mods)} modules"
        else:
            print(f"{rules_path}:{lineno}: unknown rule kind '{kind}'")
            return 2
        print(f"{'ok  ' if breaks == before else 'FAIL'} {rule}  [{what}]")
    print(f"{nrules} rules, {len(files)} files, {breaks} break(s)")
    return 1 if breaks else 0


if __name__ == "__main__":
    sys.exit(main())
