#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A traced process writes over events it emitted before the consumer wrote
# them out: the consumer does not copy what is not whole events (its
# stream is closed there, counted, and status names the process), so the
# session's traces read to the end, with trace-read and babeltrace2, and
# the other process's 400000 events are all there.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
expect_log "error: .*/liar-[0-9]+: stream channel0_[0-9]+: packet [0-9]+ holds no valid events from byte [0-9]+ \(its process writes over its own buffers\)"
D=$WORK/out
new_session "$D" 'shmtrace_test:*'
PROG=$B/tests/apps/liar gen_bg l done 100 events
liar=$IDLE_PID
"$GEN" -n 200000 -t 2 || fail "gen-events failed"
release_idle l
wait "$liar" || fail "the liar failed"
"$TRACECTL" stop s >/dev/null || fail "stop failed"
status_json "$WORK/status.json" s || fail "status failed"
field() { jget "$WORK/status.json" sessions s channels channel0 "$1"; }
[ "$(field damaged_streams)" = 1 ] && [ "$(field damaged_pid)" = "$liar" ] &&
	[ "$(field damaged_events)" -gt 0 ] ||
	fail "status does not name the damage: $(field damaged_streams) streams closed, the first of pid $(field damaged_pid), $(field damaged_events) events"
st=0
"$TRACE_READ" "$D" >"$WORK/all.txt" 2>"$WORK/tr.err" || st=$?
[ "$st" -eq 0 ] || fail "trace-read on the session: status $st: $(head -3 "$WORK/tr.err")"
n=$(grep -c " gen-events:[0-9]*:[0-9]* shmtrace_test:event:" "$WORK/all.txt" || true)
[ "$n" -eq 400000 ] || fail "$n events of the other process, 400000 emitted"
"$BT" "$D" >"$WORK/bt.out" 2>"$WORK/bt.err" || fail "babeltrace2 failed: $(head -3 "$WORK/bt.err")"
! grep -v "^WARNING: Tracer discarded [0-9]* events between" "$WORK/bt.err" ||
	fail "babeltrace2 complained"
[ "$(grep -c " shmtrace_test:event: " "$WORK/bt.out")" -eq 400000 ] || fail "babeltrace2 count"
echo "ok"
