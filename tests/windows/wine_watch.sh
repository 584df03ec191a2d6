#!/bin/sh
# wine_watch.sh PID LOG SECONDS: started in the background by each
# build-win/wine-bin/NAME wrapper before it execs wine (PID is the wrapper's,
# then wine's).  While PID lives it polls once a second; if PID is still
# alive after SECONDS, it appends to LOG what every wine process and thread
# is doing (state, kernel wait channel, current system call, kernel stack
# where readable), once, and goes on waiting for PID to end.  It never kills
# or signals anything: the test's own timeout decides.  tools/windows.sh
# prints LOG after the suite.  Why: a CI run saw iotest.exe under wine make
# no progress for 120 s once (2026-12-04), and 1,200 starts afterwards did
# not repeat it; the next one must say where it waited.
pid=$1
log=$2
limit=$3
n=0
while kill -0 "$pid" 2>/dev/null; do
	sleep 1
	n=$((n + 1))
	[ "$n" -eq "$limit" ] || continue
	kill -0 "$pid" 2>/dev/null || break
	{
		echo "=== $(date -u +%Y-%m-%dT%H:%M:%SZ) pid $pid alive after ${limit} s: $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"
		ps -eLo pid,ppid,tid,stat,wchan:32,etime,args 2>/dev/null | awk 'NR == 1 || /wine|\.exe/'
		for p in $(pgrep -f 'wine|\.exe' 2>/dev/null); do
			for t in /proc/"$p"/task/*; do
				[ -d "$t" ] || continue
				echo "--- $t $(cat "$t/comm" 2>/dev/null) state $(awk '{print $3}' "$t/stat" 2>/dev/null) wchan $(cat "$t/wchan" 2>/dev/null) syscall $(cat "$t/syscall" 2>/dev/null)"
				cat "$t/stack" 2>/dev/null
			done
		done
	} >>"$log" 2>&1
done
