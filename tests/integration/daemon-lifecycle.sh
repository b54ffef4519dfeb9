#!/usr/bin/env bash
# The session daemon survives the death of a traced process (whose
# committed events are drained), and on SIGTERM flushes and closes active
# sessions, including the partly filled buffers of idle threads.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/out
"$TRACECTL" create s --output "$D" >/dev/null
"$TRACECTL" enable-event -s s 'shmtrace_test:*' >/dev/null
"$TRACECTL" start s >/dev/null

# a traced process killed while idle: its events are drained
mkfifo "$WORK/in1" "$WORK/out1"
"$GEN" -W -n 1000 -t 2 <"$WORK/in1" >"$WORK/out1" &
P1=$!
exec 7>"$WORK/in1"
read -r line <"$WORK/out1"
kill -KILL "$P1"
wait "$P1" 2>/dev/null || true
exec 7>&-
kill -0 "$SESSIOND_PID" || fail "the session daemon died with its process"
"$TRACECTL" list >/dev/null || fail "the session daemon does not answer"

# SIGTERM with an active session and an idle process
mkfifo "$WORK/in2" "$WORK/out2"
"$GEN" -W -n 777 -t 3 <"$WORK/in2" >"$WORK/out2" &
P2=$!
exec 8>"$WORK/in2"
read -r line <"$WORK/out2"
kill -TERM "$SESSIOND_PID"
wait_gone "$SESSIOND_PID" || fail "the session daemon did not exit on SIGTERM"
wait_gone "$CONSUMERD_PID" || fail "the consumer did not exit"
echo go >&8
exec 8>&-
wait "$P2" || fail "gen-events failed after the daemon went away"
n=$(bt_count "$D" shmtrace_test:event)
[ "$n" -eq $((2000 + 2331)) ] || fail "$n events on disk, expected 4331"
echo "ok"
