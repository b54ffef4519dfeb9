#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A consumer daemon that dies takes its relay connections with it: the
# restarted one streams each session into a new relay session (its path
# ends in -1) and the relay holds the events of before and after; when the
# relay cannot be reached then, status and stop say that streaming stopped
# and exit 1.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_relay a
start_daemons

# restart_consumer: SIGKILL the consumer, wait for the session daemon's new one
restart_consumer() {
	local old=$CONSUMERD_PID
	kill_daemon KILL "$old"
	shmtrace_daemons_wait "$SHMTRACE_HOME" 100 "$old" || fail "no new consumer daemon"
}

"$TRACECTL" create s --set-url "net://127.0.0.1:$RELAY_CTRL:$RELAY_DATA" >/dev/null || fail "create failed"
"$TRACECTL" enable-event -s s 'shmtrace_test:*' >/dev/null
"$TRACECTL" start s >/dev/null
"$GEN" -n 100 >/dev/null
sleep 0.5
restart_consumer
sleep 0.5
"$GEN" -n 100 >/dev/null
"$TRACECTL" stop s >"$WORK/stop.out" 2>&1 || fail "stop after a consumer restart failed: $(cat "$WORK/stop.out")"
status_json "$WORK/status.out" s || fail "status failed: $(cat "$WORK/status.out")"
[[ $(jget "$WORK/status.out" sessions s relay path) == */s-*-1 ]] ||
	fail "no new relay session: $(jget "$WORK/status.out" sessions s relay)"
n=$(bt_count "$RELAY_OUT" shmtrace_test:event)
[ "$n" -eq 200 ] || fail "the relay holds $n events of 200"
[ "$(find "$RELAY_OUT" -mindepth 2 -maxdepth 2 -name 's-*' | wc -l)" -eq 2 ] ||
	fail "not two relay sessions: $(find "$RELAY_OUT" -maxdepth 2)"

# the relay gone when the consumer restarts: said, exit 1
url="net://127\.0\.0\.1:$RELAY_CTRL:$RELAY_DATA"
expect_log "error: session s: streaming stopped after the consumer restarted: $url: " \
	"error: $url: streaming stopped: the relay closed "
"$TRACECTL" start s >/dev/null
stop_relays
restart_consumer
sleep 0.5
rc=0
status_json "$WORK/status.out" s 2>/dev/null || rc=$?
[ "$rc" -eq 1 ] || fail "status exited $rc with streaming stopped"
[ "$(jget "$WORK/status.out" sessions s relay stopped errno)" -gt 0 ] &&
	[[ $(jget "$WORK/status.out" sessions s relay stopped why) == "net://127.0.0.1:$RELAY_CTRL:$RELAY_DATA: "* ]] ||
	fail "status did not say it: $(cat "$WORK/status.out")"
rc=0
"$TRACECTL" stop s >"$WORK/stop.out" 2>&1 || rc=$?
[ "$rc" -eq 1 ] || fail "stop exited $rc with streaming stopped"
"$TRACECTL" destroy s >/dev/null 2>&1 || true
echo "ok: a restarted consumer streams into a new relay session; without the relay, said"
