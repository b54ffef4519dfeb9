#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tracectl snapshot on a flight-recorder session while its program runs:
# the snapshot is a readable trace holding, for each of the program's two
# threads, a contiguous run of its newest events (no gap, no duplicate),
# and tracing goes on: a second snapshot, at the default path, holds later
# runs, and every event of a program that emitted them all and waits
# (seq 0..N-1 of each thread: they fit in its buffers).
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
N=3000
# 4 sub-buffers of 64 KiB per thread: a snapshot copies up to 256 KiB of
# a thread's newest events (about 10,000), all N of the idle program's
"$TRACECTL" create s --output "$WORK/out" --overwrite >/dev/null &&
	"$TRACECTL" enable-channel -s s c --overwrite --subbuf-size 64k --num-subbuf 4 >/dev/null &&
	"$TRACECTL" enable-event -s s -c c 'shmtrace_test:event' >/dev/null &&
	"$TRACECTL" start s >/dev/null || fail "cannot set up session s"
# runs longer than the test (killed below); registered once it says ready
gen_bg g ready -w -n 400000000 -t 2 -s 8 -p 200
pid=$IDLE_PID
release_idle g
sleep 0.5
ctl_json "$WORK/snap.out" snapshot -s s --output "$WORK/snap1" || fail "snapshot failed"
[ "$(jget "$WORK/snap.out" snapshot path)" = "$WORK/snap1" ] || fail "$(cat "$WORK/snap.out")"
kill -0 "$pid" 2>/dev/null || fail "the program ended before the snapshot"
# every event emitted, its two threads idle
gen_idle i -n $N -t 2
idle=$IDLE_PID
ctl_json "$WORK/snap2.out" snapshot -s s || fail "second snapshot failed"
kill -0 "$pid" 2>/dev/null || fail "the program ended before the second snapshot"
kill "$pid"
wait "$pid" || true
release_idle i
wait "$idle" || fail "gen-events failed"
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null
snap2=$(find "$WORK" -maxdepth 1 -name 'out-snapshot-1-*')
[ -d "$snap2" ] && [ "$(jget "$WORK/snap2.out" snapshot path)" = "$snap2" ] ||
	fail "default snapshot path: $(cat "$WORK/snap2.out"), made: $(ls "$WORK")"

# runs SNAPSHOT PID: "thread lo hi" of PID's events in SNAPSHOT, each
# thread's seq contiguous and once; babeltrace2 reads it, its only
# complaints the packets and events that were overwritten before the copy
runs() {
	local t
	t=$(find "$1" -maxdepth 1 -name "gen-events-$2")
	[ -d "$t" ] || fail "$1: no trace of process $2"
	"$BT" "$t" >"$WORK/bt.out" 2>"$WORK/bt.err" || fail "babeltrace2 failed on $t: $(head -3 "$WORK/bt.err")"
	! grep -qv "packets between\|Tracer discarded" "$WORK/bt.err" || fail "babeltrace2: $(head -3 "$WORK/bt.err")"
	seq_pairs "$WORK/bt.out" | sort -k1,1n -k2,2n | awk '
		NR == 1 || $1 != t { if (NR > 1) check(); t = $1; lo = $2; cnt = 0; prev = -1 }
		{ if ($2 == prev) { print "thread " t ": seq " $2 " twice" >"/dev/stderr"; bad = 1 }
		  prev = $2; hi = $2; cnt++ }
		function check() {
			if (hi - lo + 1 != cnt) { print "thread " t ": " cnt " events for seq " lo ".." hi >"/dev/stderr"; bad = 1 }
			print t, lo, hi
		}
		END { if (NR) check(); exit bad }' || fail "$1: a thread's events are not contiguous"
}

runs "$WORK/snap1" "$pid" >"$WORK/runs1"
runs "$snap2" "$pid" >"$WORK/runs2"
[ "$(awk '{ print $1 }' "$WORK/runs1" | tr '\n' ' ')" = "0 1 " ] || fail "first snapshot: threads $(cat "$WORK/runs1")"
[ "$(awk '{ print $1 }' "$WORK/runs2" | tr '\n' ' ')" = "0 1 " ] || fail "second snapshot: threads $(cat "$WORK/runs2")"
# the program went on between the snapshots: newer events in the second
join "$WORK/runs1" "$WORK/runs2" | awk '$5 <= $3 { exit 1 }' ||
	fail "the second snapshot holds nothing newer: $(cat "$WORK/runs1") / $(cat "$WORK/runs2")"
# the idle program: everything, in the second snapshot only
runs "$snap2" "$idle" >"$WORK/runs3"
[ "$(cat "$WORK/runs3")" = "0 0 $((N - 1))
1 0 $((N - 1))" ] || fail "the idle program's threads in the second snapshot: $(cat "$WORK/runs3")"
[ -z "$(find "$WORK/snap1" -maxdepth 1 -name "gen-events-$idle")" ] ||
	fail "the first snapshot holds a program that started after it"
echo "ok: snapshot 1 $(tr '\n' ' ' <"$WORK/runs1"), snapshot 2 $(tr '\n' ' ' <"$WORK/runs2")(thread lo hi)"
