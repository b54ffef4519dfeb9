#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SIGTERM reaches the session daemon before a buffer segment that a
# process already writes into: the daemon takes in what processes sent
# before its final flush, so those events are on disk too.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/trace
# one buffer in the first segment: the program's two threads need another
"$TRACECTL" create s --output "$D" --pool-size 1 >/dev/null &&
	"$TRACECTL" enable-event -s s 'shmtrace_test:*' >/dev/null &&
	"$TRACECTL" start s >/dev/null || fail "cannot set up session s"
mkfifo "$WORK/gen.in" "$WORK/gen.out"
"$GEN" -w -m -W -n 1000 -t 2 <"$WORK/gen.in" >"$WORK/gen.out" &
gen=$!
exec {IN}>"$WORK/gen.in"
exec {OUT}<"$WORK/gen.out"
read -r -t 30 line <&"$OUT" || true
[ "$line" = ready ] || fail "gen-events said '$line'"
# the segment message is queued behind the SIGTERM
kill -STOP "$SESSIOND_PID"
kill -TERM "$SESSIOND_PID"
echo go >&"$IN"
read -r -t 30 line <&"$OUT" || true
[ "$line" = done ] || { kill -CONT "$SESSIOND_PID"; fail "gen-events said '$line'"; }
kill -CONT "$SESSIOND_PID"
shmtrace_wait_gone "$SESSIOND_PID" || fail "the session daemon does not exit"
shmtrace_wait_gone "$CONSUMERD_PID" || fail "the consumer does not exit"
echo go >&"$IN"
wait "$gen" || fail "gen-events failed"
n=$(bt_count "$D" shmtrace_test:event)
echo "$n of 2000 events on disk"
[ "$n" -eq 2000 ] || fail "$n events on disk, 2000 emitted"
echo "ok"
