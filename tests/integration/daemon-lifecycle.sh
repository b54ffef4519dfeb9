#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The session daemon survives the death of a traced process (whose
# committed events are drained), and on SIGTERM flushes and closes active
# sessions, including the partly filled buffers of idle threads.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/out
new_session "$D" 'shmtrace_test:*'

# a traced process killed while idle: its events are drained
gen_idle a -n 1000 -t 2
kill -KILL "$IDLE_PID"
wait "$IDLE_PID" 2>/dev/null || true
kill -0 "$SESSIOND_PID" || fail "the session daemon died with its process"
"$TRACECTL" list >/dev/null || fail "the session daemon does not answer"

# SIGTERM with an active session and an idle process
gen_idle b -n 777 -t 3
kill -TERM "$SESSIOND_PID"
shmtrace_wait_gone "$SESSIOND_PID" || fail "the session daemon did not exit on SIGTERM"
shmtrace_wait_gone "$CONSUMERD_PID" || fail "the consumer did not exit"
release_idle b
wait "$IDLE_PID" || fail "gen-events failed after the daemon went away"
n=$(bt_count "$D" shmtrace_test:event)
[ "$n" -eq $((2000 + 2331)) ] || fail "$n events on disk, expected 4331"
echo "ok"
