#!/bin/sh
# Install what building and testing iobench needs, from Debian packages, when
# it is missing.  Safe to run again: it installs nothing that is present.
set -eu

need=""
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
# mpich and libmpich-dev: the MPI coordinator and the mpi tests (docs/mpi.md)
# fio, python3-six and gnuplot-nox: fio's own tools read our fio-json and logs
# in the outputs.fio tests (fio_jsonplus_clat2csv imports six; fio2gnuplot
# renders with gnuplot)
# autoconf, automake: build mdtest for meta.mdtest_equal_work and bench/mdtest.py
# (../shared/reference/build-ior.sh; the test skips without them)
# time: GNU time measures the peak RSS of `iobench report` (report.memory)
# nettle-dev, libxxhash-dev, libisal-dev: the checksums of verify (core/src/verify.c)
# dpkg-dev: dpkg-shlibdeps computes the .deb's Depends (cpack); binutils: readelf in tests/package
for pkg in build-essential dpkg-dev binutils cmake pkg-config libiniparser-dev libcmocka-dev liburing-dev libaio-dev python3 strace librsvg2-bin libxml2-utils mpich libmpich-dev fio python3-six gnuplot-nox time nettle-dev libxxhash-dev libisal-dev autoconf automake $*; do
	have_pkg "$pkg" || need="$need $pkg"
done
# Optional: chromium, for the report.browser test (it loads `iobench report`
# pages in headless Chromium, and skips, 77, where chromium cannot be had).
optional=""
for pkg in chromium; do
	have_pkg "$pkg" || optional="$optional $pkg"
done
[ -z "$need" ] && [ -z "$optional" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
	SUDO=""
elif command -v sudo >/dev/null 2>&1; then
	SUDO="sudo"
else
	if [ -z "$need" ]; then
		echo "deps.sh: optional packages not installed:$optional (run as root for them): the tests that need them skip" >&2
		exit 0
	fi
	echo "deps.sh: missing packages:$need (run as root or install them)" >&2
	exit 1
fi
echo "deps.sh: installing$need$optional" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
[ -z "$need" ] || $SUDO apt-get install -y -qq --no-install-recommends $need >/dev/null
for pkg in $optional; do
	$SUDO apt-get install -y -qq --no-install-recommends "$pkg" >/dev/null ||
		echo "deps.sh: optional package $pkg not installed: the tests that need it skip" >&2
done
