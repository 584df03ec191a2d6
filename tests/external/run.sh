#!/bin/sh
# run.sh BUILD_DIR - build a backend out of tree against an installed iobench
# and run it, as a plugin author outside the project would:
#   1. cmake --install BUILD_DIR into a temporary prefix;
#   2. compile example/example_backend.c with `pkg-config --cflags
#      iobench-plugin`, PKG_CONFIG_PATH pointing into that prefix;
#   3. the INSTALLED iobench lists it (`iobench plugins --plugin-dir DIR`);
#   4. the INSTALLED iobench runs a profile with `backend = example` and
#      `--output json`; the JSON must parse and show bytes moved.
# Everything happens under one mktemp directory, removed on exit.  Exits
# non-zero with a message on the first failure.  Needs cc, pkg-config, python3.
set -eu

fail() {
	echo "external.plugin: FAIL: $*" >&2
	exit 1
}

here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 1 ] || fail "usage: run.sh BUILD_DIR"
build=$(cd "$1" 2>/dev/null && pwd) || fail "no build directory $1"
[ -f "$build/cmake_install.cmake" ] || fail "$build is not a configured build tree"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/iob-external.XXXXXX") || fail "mktemp failed"
tmp=$(cd "$tmp" && pwd -P)
cleanup() { rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
show() { # show FILE: put a log where ctest --output-on-failure shows it
	sed 's/^/  | /' "$1" >&2
}

for tool in ${CC:-cc} pkg-config python3; do
	command -v "$tool" >/dev/null 2>&1 || fail "$tool is not installed"
done

# 1. install
prefix="$tmp/prefix"
if ! cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1; then
	show "$tmp/install.log"
	fail "cmake --install $build --prefix $prefix failed"
fi
iobench="$prefix/bin/iobench"
[ -x "$iobench" ] || fail "the install has no bin/iobench"

# 2. build the example out of tree
pc=$(find "$prefix" -path '*/pkgconfig/iobench-plugin.pc' | head -n 1)
[ -n "$pc" ] || fail "no iobench-plugin.pc under $prefix"
PKG_CONFIG_PATH=$(dirname "$pc")
export PKG_CONFIG_PATH
cflags=$(pkg-config --cflags iobench-plugin) || fail "pkg-config --cflags iobench-plugin failed"
# The .pc names the prefix given at configure time; an install elsewhere
# (as here) must be relocated, or the compiler would find another header.
incdir=$(pkg-config --variable=includedir iobench-plugin)
case "$(cd "$incdir" 2>/dev/null && pwd -P)" in
"$prefix"/*) ;;
*)
	echo "external.plugin: note: iobench-plugin.pc names $incdir, not a directory in $prefix;" \
		"relocating with pkg-config --define-prefix" >&2
	cflags=$(pkg-config --define-prefix --cflags iobench-plugin) || fail "pkg-config --define-prefix failed"
	;;
esac
case "$cflags" in
*"-I$prefix/"*) ;;
*) fail "pkg-config gives '$cflags', which does not point into the install prefix $prefix" ;;
esac
[ -f "$prefix/include/iobench/plugin.h" ] || [ -n "$(find "$prefix" -path '*/iobench/plugin.h')" ] ||
	fail "the install has no iobench/plugin.h"

plugins="$tmp/plugins"
mkdir "$plugins"
# shellcheck disable=SC2086 # cflags is a list of words
if ! ${CC:-cc} -shared -O2 -Wall -Wextra -Werror $cflags -o "$plugins/iob-backend-example.so" \
	"$here/example/example_backend.c" >"$tmp/cc.log" 2>&1; then
	show "$tmp/cc.log"
	fail "the example backend did not compile out of tree"
fi
if command -v nm >/dev/null 2>&1; then
	exported=$(nm -D --defined-only "$plugins/iob-backend-example.so" | awk '$2 == "T" { print $3 }')
	[ "$exported" = iob_plugin_entry ] || fail "the example exports [$exported], not just iob_plugin_entry"
fi

# 3. the installed iobench lists it
if ! "$iobench" plugins --plugin-dir "$plugins" >"$tmp/plugins.txt" 2>&1; then
	show "$tmp/plugins.txt"
	fail "iobench plugins --plugin-dir $plugins failed"
fi
if ! grep -Eq "^backend +example +" "$tmp/plugins.txt"; then
	show "$tmp/plugins.txt"
	fail "iobench plugins does not list the example backend"
fi
grep -q "$plugins/iob-backend-example.so" "$tmp/plugins.txt" ||
	fail "iobench plugins does not show where the example came from"

# 4. the installed iobench runs it
work="$tmp/work"
mkdir "$work"
cat >"$tmp/example.ini" <<EOF
[example]
backend = example
dir = $work
size = 1M
block_size = 64K
phases = write,read,verify
EOF
if ! "$iobench" run "$tmp/example.ini" --output json --plugin-dir "$plugins" >"$tmp/run.json" 2>"$tmp/run.err"; then
	show "$tmp/run.err"
	show "$tmp/run.json"
	fail "iobench run with backend = example failed"
fi
if ! python3 -c '
import json, sys
doc = json.load(sys.stdin)
recs = [r for r in doc.get("records", []) if r.get("backend") == "example"]
if not recs:
    sys.exit("no record names backend example")
moved = sum(r.get("bytes", 0) for r in recs)
if moved <= 0:
    sys.exit("records show %d bytes moved" % moved)
if doc.get("status") != "ok":
    sys.exit("run status is %r" % doc.get("status"))
print("external.plugin: %d records, %d bytes moved by the example backend" % (len(recs), moved))
' <"$tmp/run.json"; then
	show "$tmp/run.json"
	fail "the JSON output does not show the example backend at work"
fi
echo "external.plugin: ok"
