#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tracectl record of a program that daemonizes (forks twice, its parents
# exit at once): record names the process that outlives the command and
# traces it until it exits, every event in the trace; with --no-wait it
# names it and stops at once; interrupted while waiting, it stops the
# session cleanly, everything recorded so far readable, and leaves the
# process alone.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
DAEMON=$B/tests/apps/daemonize

# 1. waits for the daemon: its 20 events, one every 50 ms, all in the trace
st=0
"$TRACECTL" record --format json --output "$WORK/w" -- "$DAEMON" 20 50 "$WORK/w.pid" 2>"$WORK/w.err" ||
	st=$?
[ "$st" -eq 0 ] || fail "record: status $st: $(cat "$WORK/w.err")"
pid=$(cat "$WORK/w.pid")
[ "$(jget "$WORK/w.err" left_running)" = "[{\"pid\":$pid,\"name\":\"daemonize\"}]" ] &&
	[ "$(jget "$WORK/w.err" waited_for_them)" = true ] ||
	fail "the daemon is not named: $(cat "$WORK/w.err")"
! kill -0 "$pid" 2>/dev/null || fail "record returned while the daemon runs"
n=$(bt_count "$WORK/w/daemonize-$pid" shmtrace_test:event)
[ "$n" -eq 20 ] || fail "the daemon's trace has $n events, expected 20"
[ "$(seq_pairs "$WORK/bt.out" | sort -un -k2 | wc -l)" -eq 20 ] || fail "not every seq 0..19"
echo "waited for the daemon: its 20 events recorded"

# 2. --no-wait: named, not waited for
t0=$(date +%s%N)
"$TRACECTL" record --format json --no-wait --output "$WORK/nw" -- "$DAEMON" 40 50 "$WORK/nw.pid" \
	2>"$WORK/nw.err" || fail "record --no-wait failed: $(cat "$WORK/nw.err")"
ms=$((($(date +%s%N) - t0) / 1000000))
pid=$(cat "$WORK/nw.pid")
kill -0 "$pid" 2>/dev/null || fail "--no-wait: the daemon is gone already (record took $ms ms)"
[ "$(jget "$WORK/nw.err" left_running @0 pid)" = "$pid" ] &&
	[ "$(jget "$WORK/nw.err" waited_for_them)" = false ] || fail "--no-wait: not named: $(cat "$WORK/nw.err")"
[ "$ms" -lt 1500 ] || fail "--no-wait: record took $ms ms"
shmtrace_wait_gone "$pid" || fail "the daemon of --no-wait did not exit"
echo "--no-wait: named and left alone ($ms ms)"

# catches PID SIG: does process PID catch signal SIG (a handler, SigCgt)?
catches() {
	local mask
	mask=$(awk '$1 == "SigCgt:" { print $2 }' "/proc/$1/status" 2>/dev/null) || return 1
	[ -n "$mask" ] && (((0x$mask >> ($2 - 1)) & 1))
}

# 3. interrupted while it waits: stops cleanly, the daemon keeps running
for sig in INT TERM; do
	"$TRACECTL" record --format json --output "$WORK/i$sig" -- "$DAEMON" 0 20 "$WORK/i$sig.pid" \
		2>"$WORK/i$sig.err" &
	rec=$!
	# record waits for the daemon once it catches SIGINT (while the command
	# runs it ignores it: the terminal sends it to the command)
	for _ in $(seq 100); do
		catches "$rec" 2 && [ -s "$WORK/i$sig.pid" ] && break
		sleep 0.1
	done
	catches "$rec" 2 || fail "$sig: record does not wait"
	sleep 0.3
	kill -"$sig" "$rec"
	st=0
	wait "$rec" || st=$?
	pid=$(cat "$WORK/i$sig.pid")
	kill -0 "$pid" 2>/dev/null || fail "$sig: the daemon was stopped too"
	kill -TERM "$pid"
	shmtrace_wait_gone "$pid" || fail "$sig: the daemon did not exit"
	[ "$st" -eq 0 ] || fail "$sig: record exited with $st: $(cat "$WORK/i$sig.err")"
	n=$(kill -l "$sig")
	[ "$(jget "$WORK/i$sig.err" interrupted_by)" = "$n" ] &&
		[ "$(jget "$WORK/i$sig.err" left_running @0 pid)" = "$pid" ] ||
		fail "$sig: not said: $(cat "$WORK/i$sig.err")"
	[ "$(jget "$WORK/i$sig.err" trace path)" = "$WORK/i$sig" ] || fail "$sig: no summary"
	n=$(bt_count "$WORK/i$sig/daemonize-$pid" shmtrace_test:event)
	[ "$n" -ge 5 ] || fail "$sig: $n events of the daemon recorded"
	[ "$(seq_pairs "$WORK/bt.out" | sort -un -k2 | wc -l)" -eq "$n" ] &&
		seq_pairs "$WORK/bt.out" | awk -v n="$n" '$2 >= n { exit 1 }' ||
		fail "$sig: the daemon's events are not seq 0..$((n - 1))"
	echo "SIG$sig while waiting: $n events written, the daemon left running"
done
ctl_json "$WORK/list.json" list || fail "list failed"
[ "$(jget "$WORK/list.json" sessions '#')" = 0 ] || fail "a session was left behind: $(cat "$WORK/list.json")"

# 4. orphans that exit while the command runs are reaped at once (record is
# their subreaper): no zombie piles up under record
if command -v ps >/dev/null; then
	"$TRACECTL" record --output "$WORK/z" -- sh -c \
		'for i in 1 2 3; do (sleep 0.05 &); done; sleep 0.5; ps -o stat= --ppid $PPID' \
		>"$WORK/z.out" 2>"$WORK/z.err" || fail "record of the orphans failed: $(cat "$WORK/z.err")"
	! grep -q Z "$WORK/z.out" || fail "zombies under record: $(cat "$WORK/z.out")"
	echo "orphans reaped while the command runs"
fi
echo "ok"
