#!/usr/bin/env python3
"""Is splitting a C file into rooms a pure move?

usage: tools/pure_move.py [--prefix P] OLD NEW...

OLD is the file before the split (a path, or REV:PATH read with git show);
NEW are the files after it (the old file's name, its rooms and their shared
_int.h).  Checks that every function, struct, enum and #define of OLD is
defined in exactly one NEW file with the same text, but for `static` dropped
and the prefix P (e.g. rp_) added to a name a room now exports; that NEW
defines nothing OLD did not (but an _INT_H include guard); and that every
line of OLD, comments too, is still there.  Exit 0 and one line when it is,
else 1 and a line per difference."""
import re
import subprocess
import sys
from collections import Counter

args = sys.argv[1:]
prefix = ""
if args[:1] == ["--prefix"]:
    prefix, args = args[1], args[2:]
if len(args) < 2:
    sys.exit(__doc__)
old_arg = args[0]
if ":" in old_arg and not old_arg.startswith("/"):
    old = subprocess.run(["git", "show", old_arg], capture_output=True, text=True, check=True).stdout
else:
    old = open(old_arg).read()
new = {p: open(p).read() for p in args[1:]}


def items(text):
    """Top-level definitions: name -> [text] (functions with bodies, structs, enums, defines)."""
    out = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        f = re.match(r"^(?:static )?(?:inline )?[A-Za-z][\w \*]*?\b(\w+)\(", line)
        s = re.match(r"^(struct|enum) (\w+) \{", line)
        d = re.match(r"^#define (\w+)", line)
        if (f and not line.rstrip().endswith(";") and not line.startswith("#")) or (s and not line.rstrip().endswith(";")):
            j = i
            while j < len(lines) and not lines[j].startswith("}"):
                j += 1
            name = f.group(1) if f else s.group(1) + " " + s.group(2)
            out.setdefault(name, []).append("\n".join(lines[i:j + 1]))
            i = j + 1
            continue
        if s:
            out.setdefault(s.group(1) + " " + s.group(2), []).append(line)
        if d:
            out.setdefault("#define " + d.group(1), []).append(line)
        i += 1
    return out


o = items(old)
names = set(o)


def norm(t):
    if prefix:
        t = re.sub(r"\b" + re.escape(prefix) + r"(\w+)\(",
                   lambda m: m.group(1) + "(" if m.group(1) in names else m.group(0), t)
    return re.sub(r"^static ", "", t, flags=re.M)


found = {}
for p, t in new.items():
    for name, defs in items(norm(t)).items():
        for d in defs:
            found.setdefault(name, []).append((p, d))
bad = []
for name, defs in o.items():
    got = found.get(name, [])
    if len(got) != 1:
        bad.append(f"{name}: defined {len(got)} times in the new files {[g[0] for g in got]}")
    elif norm(defs[0]) != got[0][1]:
        bad.append(f"{name}: its text changed in {got[0][0]}")
for name in found:
    if name not in o and not re.match(r"#define IOB\w*_INT_H$", name):
        bad.append(f"{name}: new in {[g[0] for g in found[name]]}")
have = Counter(line for t in new.values() for line in norm(t).split("\n"))
for line, n in Counter(norm(old).split("\n")).items():
    if line.strip() and have[line] < n:
        bad.append(f"line lost ({n - have[line]} of {n}): {line!r}")
for b in bad:
    print(b)
print(f"{old_arg}: {len(o)} definitions: " +
      ("each in exactly one new file, unchanged; no line lost" if not bad else "NOT a pure move"))
sys.exit(1 if bad else 0)
