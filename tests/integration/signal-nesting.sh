#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A ~10 kHz timer signal emits events from its handler while the main
# thread emits in a loop: the trace decodes fully, every recorded event is
# intact, and recorded + discarded == emitted for both kinds.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/out
new_session "$D" 'shmtrace_test:*'
"$B/tests/apps/sig-events" 400000 500 >"$WORK/counts" || fail "sig-events failed"
read -r _ main _ sig <"$WORK/counts"
"$TRACECTL" stop s >/dev/null
status_json "$WORK/status.json" s || fail "status failed"
"$TRACECTL" destroy s >/dev/null
"$BT" "$D" >"$WORK/bt.out" 2>"$WORK/bt.err" || fail "babeltrace2 failed: $(head -3 "$WORK/bt.err")"
disc=$(sed -n 's/.*Tracer discarded \([0-9]*\) event.*/\1/p' "$WORK/bt.err" | awk '{ s += $1 } END { print s + 0 }')
grep -v "Tracer discarded" "$WORK/bt.err" | grep -q . && fail "babeltrace2: $(head -3 "$WORK/bt.err")"
m=$(grep -c 'shmtrace_test:event: ' "$WORK/bt.out" || true)
s=$(grep -c 'shmtrace_test:sig: ' "$WORK/bt.out" || true)
echo "main: emitted $main, recorded $m; signal: emitted $sig, recorded $s, discarded $disc"
[ "$sig" -gt 100 ] || fail "the timer hardly fired ($sig)"
[ "$disc" -gt 0 ] || fail "no signal interrupted an event: the test proves nothing"
[ "$m" -eq "$main" ] || fail "main events: $m recorded of $main"
[ $((s + disc)) -eq "$sig" ] || fail "signal events: $s recorded + $disc discarded != $sig emitted"
# the trace reports, in stream 0, the events lost for want of any buffer too
st=$(($(status_sum "$WORK/status.json" s discarded) + $(status_sum "$WORK/status.json" s lost_without_buffer)))
[ "$st" -eq "$disc" ] || fail "status disagrees: $st discarded or lost without a buffer"
# intact: every main seq once, every handler event's fields as written
[ "$(sed -n 's/.*shmtrace_test:event: .*seq = \([0-9]*\),.*/\1/p' "$WORK/bt.out" | sort -un | wc -l)" -eq "$main" ] ||
	fail "main events damaged"
[ "$(grep 'shmtrace_test:sig: ' "$WORK/bt.out" | grep -vc 'payload = "from a signal handler" }')" -eq 0 ] ||
	fail "signal events damaged"
[ "$(grep 'shmtrace_test:event: ' "$WORK/bt.out" | grep -vc 'thread = 0, payload = "main loop event" }')" -eq 0 ] ||
	fail "main events damaged"
"$TRACE_READ" "$D" >/dev/null || fail "trace-read failed"
echo "ok"
