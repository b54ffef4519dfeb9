#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SIGKILL of trace-consumerd, then of trace-sessiond, while a traced program
# runs: the program neither crashes nor hangs, and exits 0.
. "$(dirname "$0")/lib.sh"
start_daemons
new_session "$WORK/out" 'shmtrace_test:*'

timeout 120 "$GEN" -n 3000000 -t 2 &
GEN_PID=$!
sleep 0.2
kill_daemon KILL "$CONSUMERD_PID"
wait "$GEN_PID" || fail "gen-events exited with $? after the consumer was killed"

timeout 120 "$GEN" -n 3000000 -t 2 &
GEN_PID=$!
sleep 0.2
kill_daemon KILL "$SESSIOND_PID"
wait "$GEN_PID" || fail "gen-events exited with $? after the session daemon was killed"
# the consumer started again follows its session daemon out
c=$(shmtrace_daemon_pid consumerd)
[ -z "$c" ] || shmtrace_wait_gone "$c" || fail "the consumer outlived its session daemon"
echo "ok"
