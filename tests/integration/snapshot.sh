#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tracectl snapshot on a flight-recorder session while its program runs:
# the snapshot is a readable trace holding, for every thread, a contiguous
# run of its newest events (no gap, no duplicate), and tracing goes on.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
"$TRACECTL" create s --output "$WORK/out" --overwrite >/dev/null
"$TRACECTL" enable-event -s s 'shmtrace_test:event' >/dev/null
"$TRACECTL" start s >/dev/null
# runs longer than the test (killed below); registered once it says ready
gen_bg g ready -w -n 400000000 -t 2 -s 8 -p 200
pid=$IDLE_PID
release_idle g
sleep 0.5
"$TRACECTL" snapshot -s s --output "$WORK/snap1" >"$WORK/snap.out" || fail "snapshot failed"
grep -q "written to $WORK/snap1" "$WORK/snap.out" || fail "$(cat "$WORK/snap.out")"
kill -0 "$pid" 2>/dev/null || fail "the program ended before the snapshot"
"$TRACECTL" snapshot -s s >"$WORK/snap2.out" || fail "second snapshot failed"
kill "$pid"
wait "$pid" || true
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null
grep -q "snapshot-1-" "$WORK/snap2.out" || fail "default snapshot path: $(cat "$WORK/snap2.out")"
"$BT" "$WORK/snap1" >"$WORK/bt.out" 2>"$WORK/bt.err" || fail "babeltrace2 failed: $(head -3 "$WORK/bt.err")"
grep -v "packets between\|Tracer discarded" "$WORK/bt.err" | grep -q . && fail "babeltrace2: $(head -3 "$WORK/bt.err")"
n=$(grep -c 'shmtrace_test:event: ' "$WORK/bt.out" || true)
[ "$n" -gt 1000 ] || fail "the snapshot holds $n events"
seq_pairs "$WORK/bt.out" | sort -k1,1n -k2,2n | awk '
	NR == 1 || $1 != t { if (NR > 1) check(); t = $1; lo = $2; cnt = 0; prev = -1 }
	{ if ($2 == prev) { print "thread " t ": seq " $2 " twice"; bad = 1 } prev = $2; hi = $2; cnt++ }
	function check() { if (hi - lo + 1 != cnt) { print "thread " t ": " cnt " events for seq " lo ".." hi; bad = 1 } }
	END { check(); exit bad }' >&2 || fail "a thread's events are not contiguous in the snapshot"
threads=$(seq_pairs "$WORK/bt.out" | awk '{ print $1 }' | sort -u | wc -l)
[ "$threads" -ge 1 ] || fail "no thread in the snapshot"
echo "ok: $n events, contiguous for each of the $threads threads; $(seq_pairs "$WORK/bt.out" | sort -k2,2n | tail -1)"
