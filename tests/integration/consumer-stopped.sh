#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Discard mode with the consumer stopped (SIGSTOP): the program never
# waits; after SIGCONT, events recorded + events reported discarded ==
# events emitted, exactly, and babeltrace2 reports the discarded events.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/out
new_session "$D" 'shmtrace_test:*'
N=400000
gen_bg g ready -w -m -n $N -t 2
kill -STOP "$CONSUMERD_PID"
start=$(date +%s%N)
release_idle g
wait "$IDLE_PID" || { kill -CONT "$CONSUMERD_PID"; fail "gen-events failed"; }
elapsed=$((($(date +%s%N) - start) / 1000000))
kill -CONT "$CONSUMERD_PID"
"$TRACECTL" stop s >/dev/null
status_json "$WORK/status.json" s || fail "status failed"
"$TRACECTL" destroy s >/dev/null
"$BT" "$D" >"$WORK/bt.out" 2>"$WORK/bt.err" || fail "babeltrace2 failed: $(head -3 "$WORK/bt.err")"
disc=$(sed -n 's/.*Tracer discarded \([0-9]*\) event.*/\1/p' "$WORK/bt.err" | awk '{ s += $1 } END { print s + 0 }')
rec=$(grep -c 'shmtrace_test:' "$WORK/bt.out" || true)
emitted=$((2 * N + 1))
echo "emitted $emitted, recorded $rec, discarded $disc, in $elapsed ms with the consumer stopped"
[ "$disc" -gt 0 ] || fail "nothing was discarded: the test proves nothing"
[ $((rec + disc)) -eq "$emitted" ] || fail "$rec recorded + $disc discarded != $emitted emitted"
# the trace reports, in stream 0, the events lost for want of any buffer too
st=$(($(status_sum "$WORK/status.json" s discarded) + $(status_sum "$WORK/status.json" s lost_without_buffer)))
[ "$st" -eq "$disc" ] || fail "status disagrees: $st discarded or lost without a buffer"
[ "$(status_sum "$WORK/status.json" s recorded)" -eq "$rec" ] ||
	fail "status disagrees: $(status_sum "$WORK/status.json" s recorded) recorded"
[ "$elapsed" -lt 20000 ] || fail "the program took $elapsed ms: it waited"
echo "ok"
