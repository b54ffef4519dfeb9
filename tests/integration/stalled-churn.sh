#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Threads come and go while the consumer is stopped: the pool does not grow
# without bound (threads take full buffers and discard, counted), and
# recorded + discarded == emitted once the consumer goes on. Buffers of 16
# KiB: the 200 MB the threads emit cannot fit in the pool, however many
# exiting threads still own theirs (the pool grows while half its buffers
# are owned), so that something is discarded on any machine.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/out
"$TRACECTL" create s --output "$D" >/dev/null &&
	"$TRACECTL" enable-channel -s s small --subbuf-size 4k --num-subbuf 4 >/dev/null &&
	"$TRACECTL" enable-event -s s -c small 'shmtrace_test:*' >/dev/null &&
	"$TRACECTL" start s >/dev/null || fail "cannot set up session s"
PROG=$B/tests/apps/thread-churn gen_bg g ready 400 4 20000 wait
kill -STOP "$CONSUMERD_PID"
sleep 0.3	# longer than the library waits before it calls a consumer stalled
release_idle g
wait "$IDLE_PID" || { kill -CONT "$CONSUMERD_PID"; fail "thread-churn failed"; }
kill -CONT "$CONSUMERD_PID"
"$TRACECTL" stop s >/dev/null
status_json "$WORK/status.json" s || fail "status failed"
"$TRACECTL" destroy s >/dev/null
buffers=$(status_sum "$WORK/status.json" s buffers)
nobuf=$(status_sum "$WORK/status.json" s lost_without_buffer)
"$BT" "$D" >"$WORK/bt.out" 2>"$WORK/bt.err" || fail "babeltrace2 failed: $(head -3 "$WORK/bt.err")"
disc=$(sed -n 's/.*Tracer discarded \([0-9]*\) event.*/\1/p' "$WORK/bt.err" | awk '{ s += $1 } END { print s + 0 }')
rec=$(grep -c 'shmtrace_test:' "$WORK/bt.out" || true)
emitted=$((400 * 20000 + 1))
echo "buffers $buffers, emitted $emitted, recorded $rec, discarded $disc (without a buffer $nobuf)"
[ "$buffers" -le 100 ] || fail "the pool grew to $buffers buffers"
[ "$disc" -gt 0 ] || fail "nothing discarded: the test proves nothing"
[ $((rec + disc)) -eq "$emitted" ] || fail "$rec recorded + $disc discarded != $emitted"
echo "ok"
