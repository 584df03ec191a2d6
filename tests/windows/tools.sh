#!/bin/sh
# The Windows binaries run under wine (tests/windows/CMakeLists.txt):
#   tools.sh WINE BINDIR WORKDIR CASE
# Windows writes text with CRLF line ends; they are stripped before matching.
set -u
wine=$1
bin=$2
work=$3
case=$4
rm -rf "$work/$case"
mkdir -p "$work/$case" || exit 1
cd "$work/$case" || exit 1
fail() {
	printf 'FAIL (%s): %s\n' "$case" "$*" >&2
	echo "--- stdout"; cat out 2>/dev/null
	echo "--- stderr"; cat err 2>/dev/null
	exit 1
}
# run EXE ARGS...: out, err (CR removed), rc
run() {
	exe=$1
	shift
	"$wine" "$bin/$exe.exe" "$@" >out.raw 2>err.raw </dev/null
	rc=$?
	tr -d '\r' <out.raw >out
	tr -d '\r' <err.raw >err
}

case $case in
curt)
	# the legacy curt line: host write 4 mb 1 kb 0x45 RATE mb/s TIME secs
	run iotest -C -s 4 x
	[ "$rc" -eq 0 ] || fail "exit $rc"
	[ "$(wc -l <out)" -eq 1 ] || fail "not one line"
	grep -Eq '^[^ ]+ write 4 mb 1 kb 0x45 [0-9]+\.[0-9]+ mb/s [0-9]+\.[0-9]+ secs$' out || fail "not the curt line"
	[ "$(wc -c <x)" -eq 4194304 ] || fail "x is not 4 MiB"
	grep -q 'measured under wine' err || fail "no wine note on stderr"
	;;
plugins)
	run iobench plugins
	[ "$rc" -eq 0 ] || fail "exit $rc"
	grep -Eq '^  .*/bin/plugins$' out || fail "the search path is not bin/plugins next to the .exe"
	grep -Eq '^backend +win32 +1\.[0-9]+ ' out || fail "win32 backend not listed"
	grep -Eq '^backend +direct +1\.[0-9]+ ' out || fail "direct backend not listed"
	grep -Eq '^output +json ' out || fail "json output not listed"
	;;
io_profile_bypass)
	# -b: the direct backend, which is unbuffered + write-through here
	run io_profile -b -n 4 -m 4k -M 8k -l 1m
	[ "$rc" -eq 0 ] || fail "exit $rc"
	grep -q '^Synch mode: Bypassing the buffer cache (unbuffered + write-through, backend direct)' out ||
		fail "not unbuffered + write-through"
	[ "$(grep -c '^[48][0-9]*,4,' out)" -eq 4 ] || fail "not two sizes written and read"
	;;
utf8_run)
	# a profile run in a directory with a non-ASCII name given on the command
	# line, unbuffered, with a JSON document beside the human output
	d='d\303\257r-\342\202\254'
	d=$(printf "$d")
	mkdir "$d"
	prof="$d/pr\303\266fil.ini"
	prof=$(printf "$prof")
	printf '[global]\nbackend = win32\nbackend_options = unbuffered=1,write_through=1\nsize = 1M\n[seq]\naccess = seq\nblock_size = 64K\nphases = write,read,verify\n' >"$prof"
	run iobench run "$prof" --dir "$d" --output human,json=out.json
	[ "$rc" -eq 0 ] || fail "exit $rc"
	grep -q "\"file\":\"$d/iobench.seq.dat\"" out.json || fail "the UTF-8 path is not in the JSON"
	grep -q '"direct":true' out.json || fail "unbuffered not reported as direct"
	grep -q '(wine ' out.json || fail "the kernel line does not say wine"
	grep -q 'not Windows figures' out.json || fail "no wine note in the JSON"
	[ "$(grep -o '"kind":"phase"' out.json | wc -l)" -eq 3 ] || fail "not three phases"
	! grep -o '"status":"[^"]*"' out.json | grep -qv '"ok"' || fail "a phase or the run is not ok"
	;;
misaligned)
	# unbuffered with a block that is no multiple of the sector size: refused
	printf '[global]\nbackend = win32\nbackend_options = unbuffered=1\nsize = 1M\n[odd]\naccess = seq\nblock_size = 1000\nphases = write\n' >p.ini
	run iobench run p.ini
	[ "$rc" -ne 0 ] || fail "a misaligned unbuffered job ran"
	[ "$(grep -c . err)" -ge 1 ] || fail "no message"
	grep -q '1000' err || fail "the message does not name the block size"
	;;
bad_input)
	run iotest -s 0 x
	[ "$rc" -eq 2 ] || fail "iotest -s 0: exit $rc"
	[ "$(wc -l <err)" -eq 1 ] || fail "iotest -s 0: not one line"
	[ ! -e x ] || fail "iotest -s 0 created x"
	printf '[global]\nbackend = win32\nbackend_options = unbuffered=2\nsize = 1M\n[j]\nphases = write\n' >p.ini
	run iobench run p.ini
	[ "$rc" -eq 2 ] || fail "unbuffered=2: exit $rc"
	grep -q "unbuffered" err || fail "unbuffered=2: the message does not name the option"
	[ -z "$(ls | grep -v -e '^p.ini$' -e '^out' -e '^err')" ] || fail "unbuffered=2 created files"
	run iobench run missing.ini
	[ "$rc" -eq 2 ] || fail "missing profile: exit $rc"
	run bigread
	[ "$rc" -eq 2 ] || fail "bigread without a file: exit $rc"
	;;
numa_refused)
	# numa_cpu_nodes and numa_mem_policy: no NUMA placement in Windows builds,
	# refused in one line naming the key, nothing created (INI and fio files)
	printf '[j]\nsize = 1M\nphases = write\nnuma_cpu_nodes = 0\n' >n.ini
	printf '[j]\nrw=write\nsize=1m\nnuma_mem_policy=local\n' >n.fio
	for f in n.ini:numa_cpu_nodes=0 n.fio:numa_mem_policy=local; do
		run iobench run "${f%%:*}"
		[ "$rc" -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] || fail "${f#*:}: exit $rc, $(wc -l <err) lines"
		grep -q "${f#*:}: NUMA placement is not available in Windows builds" err || fail "${f#*:}: not said"
	done
	[ -z "$(ls | grep -v -e '^n.ini$' -e '^n.fio$' -e '^out' -e '^err')" ] || fail "created files"
	;;
bigread)
	run iotest -C -s 2 data
	[ "$rc" -eq 0 ] || fail "iotest: exit $rc"
	run bigread data
	[ "$rc" -eq 0 ] || fail "exit $rc"
	grep -q . out || fail "no output"
	;;
drive_path)
	# a Windows path with a drive letter and backslashes, as a user types it:
	# iotest writes the file there and bigread reads it back
	w=$(printf 'Z:%s\\dr.dat' "$(pwd)" | tr / '\\\\')
	run iotest -C -s 2 "$w"
	[ "$rc" -eq 0 ] || fail "iotest $w: exit $rc"
	[ "$(wc -c <dr.dat)" -eq 2097152 ] || fail "iotest did not write dr.dat in $(pwd)"
	run bigread "$w" 1M
	[ "$rc" -eq 0 ] || fail "bigread $w: exit $rc"
	[ "$(grep -c '^[0-9]* ' out)" -eq 2 ] || fail "bigread did not read two blocks"
	# a profile named that way finds its include beside it, and a JSON
	# output named that way is written there
	mkdir sub
	printf '[global]\nsize = 1M\n' >sub/inc.ini
	printf '[global]\ninclude = inc.ini\n[a]\nphases = write\n' >sub/p.ini
	wd=$(printf 'Z:%s\\sub' "$(pwd)" | tr / '\\\\')
	run iobench run "$wd\\p.ini" --dir "$wd" --output "json=$wd\\o.json"
	[ "$rc" -eq 0 ] || fail "iobench run $wd\\p.ini: exit $rc"
	grep -q '"bytes":1048576' sub/o.json || fail "the JSON output is not in sub, or the include was not read"
	;;
not_measured)
	# no eviction, no residency probe on Windows: said, never claimed
	printf '[global]\nbackend = win32\nsize = 1M\nevict_before_read = true\n[seq]\naccess = seq\nblock_size = 64K\nphases = write,read\n' >p.ini
	run iobench run p.ini --output json=o.json
	[ "$rc" -eq 0 ] || fail "exit $rc"
	grep -q '"evicted":true' o.json && fail "claims an eviction that did not happen"
	grep -q '"phase":"read".*"evicted":false' o.json || fail "the read does not say evicted false"
	grep -q '"resident_before_pct":null' o.json || fail "a residency figure was made up"
	grep -q 'cannot evict a file from its cache' o.json || fail "no note about the eviction"
	run iotest -C -s 2 -d y
	[ "$rc" -eq 0 ] || fail "iotest -d: exit $rc"
	grep -q 'could not be evicted either (not supported on this OS)' err || fail "iotest -d does not say it"
	;;
interrupt)
	# Ctrl-C: wine turns SIGINT into CTRL_C_EVENT for the console handler;
	# the run stops with partial results, removes its file and exits 130
	printf '[global]\nbackend = win32\nsize = 16M\nruntime = 60s\ntime_based = true\n[w]\naccess = rand\nblock_size = 4K\nphases = write\n' >p.ini
	"$wine" "$bin/iobench.exe" run p.ini --output human,json=o.json >out.raw 2>err.raw </dev/null &
	pid=$!
	n=0
	until [ -e iobench.w.dat ] || [ "$n" -ge 300 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	[ -e iobench.w.dat ] || { kill -KILL "$pid"; fail "the run did not start"; }
	sleep 0.5
	kill -INT "$pid"
	wait "$pid"
	rc=$?
	tr -d '\r' <out.raw >out
	tr -d '\r' <err.raw >err
	[ "$rc" -eq 130 ] || fail "exit $rc, not 130"
	grep -q '"interrupted":true' o.json || fail "the JSON does not say interrupted"
	grep -q '"kind":"phase"' o.json || fail "no partial results"
	# one error line; the notes come before it as warning lines (no human
	# output on a terminal)
	[ "$(grep -c 'error:' err)" -eq 1 ] || fail "not one error line on stderr"
	[ "$(grep -vc -e 'error:' -e 'warning:' err)" -eq 0 ] || fail "stderr holds more than the error and the notes"
	[ ! -e iobench.w.dat ] || fail "the run left its file behind"
	;;
files_path_walk)
	# a files job with path_walk = full: Windows has no walk of a whole path
	# that refuses every link (openat2): one line, exit 2, nothing created
	mkdir d
	printf '[m]\nworkload = files\ndir = d\nfiles = 10\npath_walk = full\n' >p.ini
	run iobench run p.ini
	[ "$rc" -eq 2 ] || fail "exit $rc, not 2"
	[ "$(wc -l <err)" -eq 1 ] || fail "not one line"
	grep -q 'path_walk = full' err || fail "the message does not name path_walk = full"
	[ -z "$(ls d)" ] || fail "path_walk = full made $(ls d)"
	;;
package)
	# the zip (cpack in the build directory), unpacked and run from there
	(cd "$IOB_BUILD_DIR" && "$IOB_CPACK" -G ZIP) >cpack.log 2>&1 || { cat cpack.log; fail "cpack failed"; }
	zip=$(ls "$IOB_BUILD_DIR"/iobench-*-win64.zip)
	unzip -q "$zip" -d unz || fail "cannot unzip $zip"
	top=$(ls -d unz/iobench-*-win64)
	for f in bin/iobench.exe bin/iotest.exe bin/io_profile.exe bin/bigread.exe \
		bin/plugins/iob-backend-win32.dll bin/plugins/iob-backend-direct.dll bin/plugins/iob-output-json.dll \
		configs/default.ini configs/direct.ini include/iobench/plugin.h doc/windows.md doc/README.md \
		doc/man/iobench.1.txt doc/man/iotest.1.txt doc/man/io_profile.1.txt doc/man/bigread.1.txt; do
		[ -s "$top/$f" ] || fail "$f missing from the zip"
	done
	grep -q '^NAME' "$top/doc/man/iotest.1.txt" || fail "the iotest manual is not plain text"
	! grep -q "$(printf '\010')" "$top/doc/man/iotest.1.txt" || fail "the manual has overstrikes"
	grep -q '^backend = win32$' "$top/configs/default.ini" || fail "default.ini does not use win32"
	bin="$top/bin"
	run iobench plugins
	[ "$rc" -eq 0 ] || fail "plugins: exit $rc"
	grep -Eq "^  .*/unz/iobench-[^/]*-win64/bin/plugins\$" out || fail "plugins not found next to the unpacked .exe"
	grep -Eq '^backend +win32 ' out || fail "win32 not listed from the zip"
	run iobench check "$top/configs/default.ini" --dir .
	[ "$rc" -eq 0 ] || fail "check default.ini: exit $rc"
	;;
*)
	fail "unknown case"
	;;
esac
echo "ok ($case)"
