#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Overwrite (flight recorder) mode keeps the newest events: with the
# consumer stopped, each thread's events in the trace are the last ones it
# emitted, contiguous; packet numbers show readers what was overwritten;
# events recorded + overwritten == emitted; nothing is discarded.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/out
"$TRACECTL" create s --output "$D" --overwrite >/dev/null
"$TRACECTL" enable-event -s s 'shmtrace_test:*' >/dev/null
"$TRACECTL" start s >/dev/null
[ "$(status_field s channel0 mode)" = overwrite ] || fail "not in overwrite mode"
N=400000
gen_bg g ready -w -m -n $N -t 2
kill -STOP "$CONSUMERD_PID"
release_idle g
wait "$IDLE_PID" || { kill -CONT "$CONSUMERD_PID"; fail "gen-events failed"; }
kill -CONT "$CONSUMERD_PID"
"$TRACECTL" stop s >/dev/null
status_json "$WORK/status.json" s || fail "status failed"
"$TRACECTL" destroy s >/dev/null
"$BT" "$D" >"$WORK/bt.out" 2>"$WORK/bt.err" || fail "babeltrace2 failed: $(head -3 "$WORK/bt.err")"
grep -q "discarded [0-9]* event" "$WORK/bt.err" && fail "events discarded: $(head -2 "$WORK/bt.err")"
grep -q "packet" "$WORK/bt.err" || fail "babeltrace2 reports no lost packet"
rec=$(grep -c 'shmtrace_test:' "$WORK/bt.out" || true)
over=$(status_sum "$WORK/status.json" s overwritten)
echo "emitted $((2 * N + 1)), recorded $rec, overwritten $over"
[ "$over" -gt 0 ] || fail "nothing was overwritten"
[ $((rec + over)) -eq $((2 * N + 1)) ] || fail "$rec recorded + $over overwritten != $((2 * N + 1))"
[ "$(status_sum "$WORK/status.json" s discarded)" = 0 ] || fail "status: $(cat "$WORK/status.json")"
for t in 0 1; do
	seq_pairs "$WORK/bt.out" | awk -v T=$t -v N=$N '
		$1 == T { if (n++ && $2 != prev + 1) bad = "gap after " prev; if (!n0++) first = $2; prev = $2 }
		END {
			if (bad) { print "thread " T ": " bad; exit 1 }
			if (prev != N - 1) { print "thread " T ": ends at " prev; exit 1 }
			if (first == 0) { print "thread " T ": nothing was overwritten"; exit 1 }
			print "thread " T ": seq " first ".." prev
		}' || fail "thread $t does not hold its newest events"
done
echo "ok"
