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
"$TRACECTL" record --output "$WORK/w" -- "$DAEMON" 20 50 "$WORK/w.pid" 2>"$WORK/w.err" || st=$?
[ "$st" -eq 0 ] || fail "record: status $st: $(cat "$WORK/w.err")"
pid=$(cat "$WORK/w.pid")
grep -q "record: daemonize exited, but 1 traced process it started still runs: daemonize\[$pid\]; tracing goes on" \
	"$WORK/w.err" || fail "no warning naming the daemon: $(cat "$WORK/w.err")"
! kill -0 "$pid" 2>/dev/null || fail "record returned while the daemon runs"
n=$(bt_count "$WORK/w/daemonize-$pid" shmtrace_test:event)
[ "$n" -eq 20 ] || fail "the daemon's trace has $n events, expected 20"
[ "$(seq_pairs "$WORK/bt.out" | sort -un -k2 | wc -l)" -eq 20 ] || fail "not every seq 0..19"
echo "waited for the daemon: its 20 events recorded"

# 2. --no-wait: named, not waited for
t0=$(date +%s%N)
"$TRACECTL" record --no-wait --output "$WORK/nw" -- "$DAEMON" 40 50 "$WORK/nw.pid" \
	2>"$WORK/nw.err" || fail "record --no-wait failed: $(cat "$WORK/nw.err")"
ms=$((($(date +%s%N) - t0) / 1000000))
pid=$(cat "$WORK/nw.pid")
kill -0 "$pid" 2>/dev/null || fail "--no-wait: the daemon is gone already (record took $ms ms)"
grep -q "still runs: daemonize\[$pid\]; no longer traced (--no-wait)" "$WORK/nw.err" ||
	fail "--no-wait: no warning: $(cat "$WORK/nw.err")"
[ "$ms" -lt 1500 ] || fail "--no-wait: record took $ms ms"
shmtrace_wait_gone "$pid" || fail "the daemon of --no-wait did not exit"
echo "--no-wait: named and left alone ($ms ms)"

# 3. interrupted while it waits: stops cleanly, the daemon keeps running
for sig in INT TERM; do
	"$TRACECTL" record --output "$WORK/i$sig" -- "$DAEMON" 0 20 "$WORK/i$sig.pid" \
		2>"$WORK/i$sig.err" &
	rec=$!
	for _ in $(seq 100); do
		grep -q "tracing goes on" "$WORK/i$sig.err" 2>/dev/null && break
		sleep 0.1
	done
	grep -q "tracing goes on" "$WORK/i$sig.err" || fail "$sig: record did not say it waits"
	sleep 0.3
	kill -"$sig" "$rec"
	st=0
	wait "$rec" || st=$?
	pid=$(cat "$WORK/i$sig.pid")
	kill -0 "$pid" 2>/dev/null || fail "$sig: the daemon was stopped too"
	kill -TERM "$pid"
	shmtrace_wait_gone "$pid" || fail "$sig: the daemon did not exit"
	[ "$st" -eq 0 ] || fail "$sig: record exited with $st: $(cat "$WORK/i$sig.err")"
	grep -q "interrupted (.*): no longer traced: daemonize\[$pid\]" "$WORK/i$sig.err" ||
		fail "$sig: not said: $(cat "$WORK/i$sig.err")"
	grep -q "record: trace in $WORK/i$sig" "$WORK/i$sig.err" || fail "$sig: no summary"
	n=$(bt_count "$WORK/i$sig/daemonize-$pid" shmtrace_test:event)
	[ "$n" -ge 5 ] || fail "$sig: $n events of the daemon recorded"
	[ "$(seq_pairs "$WORK/bt.out" | sort -un -k2 | wc -l)" -eq "$n" ] &&
		seq_pairs "$WORK/bt.out" | awk -v n="$n" '$2 >= n { exit 1 }' ||
		fail "$sig: the daemon's events are not seq 0..$((n - 1))"
	echo "SIG$sig while waiting: $n events written, the daemon left running"
done
"$TRACECTL" list | grep -q "No session" || fail "a session was left behind: $("$TRACECTL" list)"

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
