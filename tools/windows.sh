#!/bin/sh
# The Windows leg: cross-build iobench for 64-bit Windows with mingw-w64 and
# run its test suite under wine (docs/windows.md).
#
#   tools/windows.sh [BUILD_DIR]        (default: build-win)
#
# 1. installs what it needs (mingw-w64, wine64, wine64-preloader, dpkg-dev,
#    groff-base, unzip) through tools/deps.sh;
# 2. fetches the iniparser and cmocka source packages with apt-get source,
#    through a private apt configuration whose deb-src lines reuse the
#    mirrors this machine's own apt configuration names (no host name is
#    written here), and cross-builds both into BUILD_DIR/deps;
# 3. configures iobench with cmake/toolchain-mingw64.cmake, builds every .exe
#    and plugin .dll, and runs ctest, whose tests run under wine.
set -eu
cd "$(dirname "$0")/.."
src=$(pwd)
bdir=${1:-build-win}
case $bdir in /*) ;; *) bdir="$src/$bdir" ;; esac
triple=x86_64-w64-mingw32
deps="$bdir/deps"
prefix="$deps/prefix"

# ---- 1. packages (apt may be locked by another run: wait and retry) ----
tries=0
# wine64-preloader: deps.sh installs without Recommends, and without the
# preloader wine64 (an EXEC linked at 0x7d000000) lets the kernel's randomised
# brk heap land on 0x7ffe0000, the page wine must map for Windows' shared user
# data; about 1 start in 4,000 then exits 1 with no output at all (strace of a
# failed start: brk at 0x7ffda000 grown to 0x7fffb000, then the mmap of
# 0x7ffe0000 with MAP_FIXED_NOREPLACE fails EEXIST).  The preloader reserves
# 0x7ff00000-0x7fff0000 before the dynamic loader and the heap exist.
until tools/deps.sh gcc-mingw-w64-x86-64 wine64 wine64-preloader dpkg-dev groff-base unzip; do
	tries=$((tries + 1))
	if [ "$tries" -ge 30 ]; then
		echo "windows.sh: could not install the packages" >&2
		exit 1
	fi
	echo "windows.sh: apt busy, retrying in 10 s" >&2
	sleep 10
done
cc=$(command -v "$triple-gcc-posix" || command -v "$triple-gcc")
ar=$triple-ar
wine=$(command -v wine64 || command -v wine || echo /usr/lib/wine/wine64)
[ -x "$wine" ] || { echo "windows.sh: wine not found after installing wine64" >&2; exit 1; }
[ -x "$(dirname "$wine")/wine64-preloader" ] || [ -x /usr/lib/wine/wine64-preloader ] ||
	{ echo "windows.sh: wine64-preloader not found after installing it (wine would fail 1 start in 4,000)" >&2; exit 1; }

# ---- 2. iniparser and cmocka from their Debian source packages ----
# mirror_uris: the archive URIs (not the security archive) of the machine's
# apt sources, deb822 (.sources) and one-line (sources.list) forms.
mirror_uris() {
	{
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -f "$f" ] || continue
			awk 'BEGIN { RS = ""; FS = "\n" }
			{
				uris = ""; suites = ""; types = ""
				for (i = 1; i <= NF; i++) {
					if ($i ~ /^URIs:/) { uris = $i; sub(/^URIs:[ \t]*/, "", uris) }
					if ($i ~ /^Suites:/) { suites = $i }
					if ($i ~ /^Types:/) { types = $i }
				}
				if (types ~ /deb/ && suites !~ /-security/ && uris != "") {
					n = split(uris, u, /[ \t]+/); for (j = 1; j <= n; j++) print u[j]
				}
			}' "$f"
		done
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[ -f "$f" ] || continue
			awk '$1 == "deb" || $1 == "deb-src" {
				i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
				if ($(i + 1) !~ /-security/) print $i
			}' "$f"
		done
	} | grep -v -e '^$' | grep -i -v security | awk '!seen[$0]++'
}

fetch_source() { # fetch_source PKG SUITE: unpacks into $deps/src, prints the directory
	pkg=$1
	suite=$2
	existing=$(find "$deps/src" -maxdepth 1 -type d -name "$pkg-[0-9]*" | head -n 1)
	if [ -n "$existing" ]; then
		echo "$existing"
		return 0
	fi
	(cd "$deps/src" && apt-get -q -o "Dir::Etc::SourceList=$apt/sources.list" \
		-o Dir::Etc::SourceParts=/nonexistent -o "Dir::State::Lists=$apt/lists" \
		-o "Dir::Cache=$apt/cache" -o Dir::State::status=/var/lib/dpkg/status \
		-o "APT::Sandbox::User=$sandbox" -o Acquire::Languages=none \
		source "$pkg/$suite" >"$deps/src/$pkg.log" 2>&1) || {
		cat "$deps/src/$pkg.log" >&2
		echo "windows.sh: apt-get source $pkg/$suite failed" >&2
		return 1
	}
	find "$deps/src" -maxdepth 1 -type d -name "$pkg-[0-9]*" | head -n 1
}

if [ ! -f "$prefix/lib/libiniparser.a" ] || [ ! -f "$prefix/lib/libcmocka.a" ]; then
	mkdir -p "$deps/src" "$prefix/lib" "$prefix/include"
	apt="$deps/apt"
	# apt run as root downloads as _apt, which cannot write this private
	# directory: download as the user running this script
	sandbox=$(id -un)
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
	uris=$(mirror_uris)
	if [ -z "$uris" ]; then
		echo "windows.sh: no Debian archive found in /etc/apt to fetch source packages from" >&2
		exit 1
	fi
	: >"$apt/sources.list"
	for u in $uris; do
		# iniparser from trixie (bookworm's 4.1 tarball was missing), cmocka from bookworm
		for s in trixie bookworm; do
			echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $u $s main" >>"$apt/sources.list"
		done
	done
	apt-get -qq -o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent \
		-o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" \
		-o "APT::Sandbox::User=$sandbox" -o Acquire::Languages=none update

	# iniparser: two C files, built straight into a static library.
	ini=$(fetch_source iniparser trixie)
	mkdir -p "$deps/obj/iniparser" "$prefix/include/iniparser"
	for c in dictionary iniparser; do
		"$cc" -O2 -c "$ini/src/$c.c" -I"$ini/src" -o "$deps/obj/iniparser/$c.o"
	done
	rm -f "$prefix/lib/libiniparser.a"
	"$ar" rcs "$prefix/lib/libiniparser.a" "$deps/obj/iniparser/dictionary.o" "$deps/obj/iniparser/iniparser.o"
	cp "$ini/src/iniparser.h" "$ini/src/dictionary.h" "$prefix/include/iniparser/"

	# cmocka: its own CMake build, static, with the same toolchain.
	cmk=$(fetch_source cmocka bookworm)
	cmake -S "$cmk" -B "$deps/obj/cmocka" -DCMAKE_TOOLCHAIN_FILE="$src/cmake/toolchain-mingw64.cmake" \
		-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" -DWITH_STATIC_LIB=ON \
		-DBUILD_SHARED_LIBS=OFF -DWITH_EXAMPLES=OFF -DUNIT_TESTING=OFF >"$deps/obj/cmocka.log" 2>&1 ||
		{ cat "$deps/obj/cmocka.log" >&2; exit 1; }
	cmake --build "$deps/obj/cmocka" -j2 >>"$deps/obj/cmocka.log" 2>&1 ||
		{ cat "$deps/obj/cmocka.log" >&2; exit 1; }
	lib=$(find "$deps/obj/cmocka" -name 'libcmocka-static.a' | head -n 1)
	[ -n "$lib" ] || { echo "windows.sh: the cmocka build made no static library" >&2; exit 1; }
	cp "$lib" "$prefix/lib/libcmocka.a"
	cp "$cmk/include/cmocka.h" "$prefix/include/"
fi

# ---- 3. iobench for Windows, and its tests under wine ----
cmake -S "$src" -B "$bdir" -DCMAKE_TOOLCHAIN_FILE="$src/cmake/toolchain-mingw64.cmake" -DIOB_WERROR=ON \
	-DIOB_WINE="$wine" \
	-DINIPARSER_INCLUDE_DIR="$prefix/include/iniparser" -DINIPARSER_LIBRARY="$prefix/lib/libiniparser.a" \
	-DCMOCKA_INCLUDE_DIR="$prefix/include" -DCMOCKA_LIBRARY="$prefix/lib/libcmocka.a"
cmake --build "$bdir" -j2

# wine's own processes: a wineserver started first, with its stdio on
# /dev/null, keeps every test from waiting ~2.4 s for wine to settle.
export WINEPREFIX="$bdir/wineprefix"
export WINEDEBUG=-all
server=$(dirname "$wine")/wineserver
[ -x "$server" ] || server=$(command -v wineserver || echo wineserver)
"$server" -p </dev/null >/dev/null 2>&1 &
"$wine" wineboot </dev/null >/dev/null 2>&1 || true
# what wine waited on in a run that passed 100 s (tests/windows/wine_watch.sh)
hangs="$bdir/wine-hangs.log"
rm -f "$hangs"
rc=0
ctest --test-dir "$bdir" --output-on-failure -j2 || rc=$?
if [ -s "$hangs" ]; then
	echo "windows.sh: runs under wine that passed 100 s ($hangs):"
	cat "$hangs"
fi
"$server" -k </dev/null >/dev/null 2>&1 || true
exit "$rc"
