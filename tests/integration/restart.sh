#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Both daemons killed with SIGKILL and started again: a program that was
# running all along registers again and is traced by a new session.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
gen_bg g ready -w -n 5000 -t 2
GEN_PID=$IDLE_PID
registered "$GEN_PID" || fail "not registered"
kill_daemon KILL "$SESSIOND_PID"
kill_daemon KILL "$CONSUMERD_PID"
shmtrace_wait_gone "$SESSIOND_PID"
shmtrace_wait_gone "$CONSUMERD_PID"
rm -f "$SHMTRACE_HOME/sessiond.pid" "$SHMTRACE_HOME/consumerd.pid"
start_daemons
for _ in $(seq 50); do
	registered "$GEN_PID" && break
	sleep 0.1
done
registered "$GEN_PID" || fail "the program did not register again"
new_session "$WORK/out" 'shmtrace_test:*'
release_idle g
wait "$GEN_PID" || fail "gen-events failed"
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null
n=$(bt_count "$WORK/out" shmtrace_test:event)
[ "$n" -eq 10000 ] || fail "$n events, expected 10000"
echo "ok"
