#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A traced process that writes impossible counters into the memory it
# shares with the consumer (discards of 2^33, 2^63, overwrites of 2^32,
# losses without a buffer of 2^47, then a count moving backwards): what
# the session believes stays bounded, status names the process, and the
# traces, its own included, read as before; another process's trace is
# exact.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/out
new_session "$D" 'shmtrace_test:*'
PROG=$B/tests/apps/liar gen_bg l done 2000
liar=$IDLE_PID
"$GEN" -n 5000 -t 1 || fail "gen-events failed"
release_idle l
wait "$liar" || fail "the liar failed"
"$TRACECTL" stop s >/dev/null || fail "stop failed"
status_json "$WORK/status.json" s || fail "status failed"
field() { jget "$WORK/status.json" sessions s channels channel0 "$1"; }
disc=$(field discarded)
over=$(field overwritten)
nobuf=$(field lost_without_buffer)
rec=$(field recorded)
echo "status: recorded $rec, discarded $disc, overwritten $over, lost without a buffer $nobuf"
[ "$rec" -eq 11000 ] || fail "$rec events recorded, 11000 emitted"
for v in "$disc" "$over" "$nobuf"; do
	[ "$v" -lt 1000000 ] || fail "a count of the liar was believed: $v"
done
[ "$(field liar_processes)" = 1 ] && [ "$(field liar_pid)" = "$liar" ] ||
	fail "status does not name the liar: $(field liar_processes) liars, the first $(field liar_pid)"
"$BT" "$D" >"$WORK/bt.out" 2>"$WORK/bt.err" || fail "babeltrace2 failed"
max=$(sed -n 's/.*Tracer discarded \([0-9]*\) event.*/\1/p' "$WORK/bt.err" | sort -n | tail -1)
[ "${max:-0}" -lt 1000000 ] || fail "the trace reports $max events discarded"
"$TRACE_READ" "$D/gen-events-"* >"$WORK/honest.txt" || fail "trace-read failed"
check_seqs "$WORK/honest.txt" 1 5000
echo "ok"
