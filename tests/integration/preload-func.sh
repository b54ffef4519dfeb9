#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# libshmtrace-func.so preloaded into preload-func (built with
# -finstrument-functions, recursion, 2 threads): per thread, entry and
# exit events balance and nest (each exit is that of the latest entry not
# yet exited, and nothing is left open); every call of fib, walk, leaf and
# the thread routine is there; babeltrace2 reads the trace without a
# warning; trace-read names every address of fib, walk and leaf
# (`0x... <fib>`) from the state dump.
. "$(dirname "$0")/lib.sh"
need_babeltrace
DEPTH=18
ROUNDS=2
APP=$B/tests/apps/preload-func
PRE=$B/.libs/libshmtrace.so:$B/.libs/libshmtrace-func.so
[ -f "$B/.libs/libshmtrace-func.so" ] || fail "no libshmtrace-func.so"

start_daemons
D=$WORK/out
# the state dump (loaded objects) lets trace-read name the functions
new_session "$D" 'shmtrace_func:*' 'shmtrace_statedump:*'
SHMTRACE_REGISTER_TIMEOUT=10000 LD_PRELOAD=$PRE "$APP" $DEPTH $ROUNDS 0 >"$WORK/app.out" ||
	fail "preload-func failed: $(cat "$WORK/app.out")"
"$TRACECTL" stop s >/dev/null
status_json "$WORK/status.json" s || fail "status failed"
"$TRACECTL" destroy s >/dev/null
[ "$(status_sum "$WORK/status.json" s discarded)" = 0 ] || fail "events discarded: $(cat "$WORK/status.json")"

val() { sed -n "s/^$1 0x\\(.*\\)/\\1/p" "$WORK/app.out" | tr 'a-f' 'A-F'; }
fib=$(val fib)
walk=$(val walk)
leaf=$(val leaf)
thread_main=$(val thread_main)
calls=$(sed -n 's/^fib_calls //p' "$WORK/app.out")
[ -n "$fib" ] && [ -n "$calls" ] || fail "program output: $(cat "$WORK/app.out")"

n=$(bt_count "$D" 'shmtrace_func:entry')
"$TRACE_READ" "$D" >"$WORK/tr.out" 2>"$WORK/tr.err" || fail "trace-read failed: $(head -3 "$WORK/tr.err")"
[ "$(grep -c ' shmtrace_func:entry: ' "$WORK/tr.out")" -eq "$n" ] || fail "trace-read and babeltrace2 disagree"

# per thread (procname:pid:tid): a stack of open entries
got=$(awk '
	/ shmtrace_func:(entry|exit): / {
		split($3, who, ":")
		tid = who[3]
		match($0, /addr = 0x[0-9A-Fa-f]*/)
		addr = toupper(substr($0, RSTART + 9, RLENGTH - 9))
		if ($4 == "shmtrace_func:entry:") {
			stack[tid, ++depth[tid]] = addr
			entries[addr]++
			threads[tid] = 1
		} else {
			if (depth[tid] == 0) {
				print "thread " tid ": exit of " addr " with nothing open"
				exit 1
			}
			if (stack[tid, depth[tid]] != addr) {
				print "thread " tid ": exit of " addr " while " stack[tid, depth[tid]] " is open"
				exit 1
			}
			depth[tid]--
			exits[addr]++
		}
	}
	END {
		nt = 0
		for (t in threads) {
			nt++
			if (depth[t]) {
				print "thread " t ": " depth[t] " entries never exited"
				exit 1
			}
		}
		print nt, entries["'"$fib"'"] + 0, exits["'"$fib"'"] + 0, \
			entries["'"$walk"'"] + 0, entries["'"$leaf"'"] + 0, \
			entries["'"$thread_main"'"] + 0
	}' "$WORK/tr.out") || fail "$got"
# main and 2 threads; fib, walk (17 levels) and leaf per round and thread
want="3 $((2 * ROUNDS * calls)) $((2 * ROUNDS * calls)) $((2 * ROUNDS * 17)) $((2 * ROUNDS)) 2"
[ "$got" = "$want" ] ||
	fail "threads, fib entries, fib exits, walk, leaf, thread_main: $got, expected $want"

# names, from the state dump and the program's symbols: every entry and
# exit of fib, walk and leaf names its function (as many as the counts
# above); recursive calls come from inside fib
for f in fib walk leaf; do
	a=$(eval echo "\$$f")
	all=$(grep -ci " shmtrace_func:e[a-z]*: { addr = 0x$a[ ,]" "$WORK/tr.out" || true)
	named=$(grep -ci " shmtrace_func:e[a-z]*: { addr = 0x$a <$f>, " "$WORK/tr.out" || true)
	[ "$all" -gt 0 ] && [ "$named" -eq "$all" ] ||
		fail "$f named in $named of its $all events: $(grep -i -m1 "addr = 0x$a[ ,]" "$WORK/tr.out")"
done
grep -qi " shmtrace_func:entry: { addr = 0x$fib <fib>, call_site = 0x[0-9A-F]* <fib+0x[0-9a-f]*> }" \
	"$WORK/tr.out" || fail "no recursive call of fib named"
grep -qi " shmtrace_func:entry: { addr = 0x$walk <walk>, call_site = 0x[0-9A-F]* <thread_main+0x[0-9a-f]*> }" \
	"$WORK/tr.out" || fail "walk called from thread_main not named"
echo "ok: $n entries, balanced and nested in 3 threads, named"
