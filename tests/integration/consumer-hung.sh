#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A consumer that does not answer (SIGSTOP) is killed and replaced at the
# stop that needs it: stop then succeeds with every event on disk once,
# and the old consumer, let go again, writes nothing more. When no
# consumer can be had, stop fails (exit status 1) and says how many
# events the channel's buffers still hold.
. "$(dirname "$0")/lib.sh"
need_babeltrace
export SHMTRACE_CONSUMER_TIMEOUT=2000
start_daemons
# what the session daemon says of the consumers it gives up
expect_log "error: consumer daemon [0-9]+ does not answer request [0-9]+ in 2000 ms$" \
	"error: consumer daemon [0-9]+ killed: a new one continues its traces$" \
	"error: session s: channel channel0: 5000 events in 2 buffers not written out \(no consumer\)$"

# 1. the stopped consumer is replaced: everything on disk, once
D=$WORK/out
new_session "$D" 'shmtrace_test:*'
gen_idle g -n 10000 -t 2
pid=$IDLE_PID
old=$CONSUMERD_PID
kill_daemon STOP "$old"
rc=0
"$TRACECTL" stop s >"$WORK/stop.out" 2>"$WORK/stop.err" || rc=$?
kill -CONT "$old" 2>/dev/null || true
[ "$rc" -eq 0 ] || fail "stop with a stopped consumer: exit status $rc: $(cat "$WORK/stop.err")"
shmtrace_wait_gone "$old" 50 || fail "the stopped consumer $old still runs"
release_idle g
wait "$pid" || fail "gen-events failed"
status_json "$WORK/status.json" s || fail "status failed"
"$TRACE_READ" "$D" >"$WORK/out.txt" || fail "trace-read failed"
check_seqs "$WORK/out.txt" 2 10000
[ "$(bt_count "$D" shmtrace_test:event)" -eq 20000 ] || fail "babeltrace2 does not read 20000"
rec=$(jget "$WORK/status.json" sessions s channels channel0 recorded)
[ "$rec" = 20000 ] || fail "status says $rec events recorded"
"$TRACECTL" destroy s >/dev/null || fail "destroy failed"
shmtrace_daemons_wait "$SHMTRACE_HOME" 50 || fail "no consumer runs"

# 2. no consumer can be had: every one started from now on hangs
stop_daemons
printf '#!/bin/sh\n[ -e "%s" ] && exec sleep 600\nexec "%s" "$@"\n' \
	"$WORK/hang-now" "$B/trace-consumerd" >"$WORK/consumer"
chmod +x "$WORK/consumer"
SHMTRACE_CONSUMERD=$WORK/consumer "$B/trace-sessiond" --daemonize || fail "no session daemon"
shmtrace_daemons_wait "$SHMTRACE_HOME" || fail "no consumer"
D=$WORK/out2
new_session "$D" 'shmtrace_test:*'
gen_idle h -n 2500 -t 2
pid=$IDLE_PID
touch "$WORK/hang-now"
kill_daemon STOP "$CONSUMERD_PID"
rc=0
"$TRACECTL" stop s --format json >"$WORK/stop.json" 2>"$WORK/stop.err" || rc=$?
kill -CONT "$CONSUMERD_PID" 2>/dev/null || true
release_idle h
wait "$pid" || fail "gen-events failed"
echo "stop said: $(cat "$WORK/stop.err")"
[ "$rc" -eq 1 ] || fail "stop with no consumer to be had: exit status $rc"
# the error, and the channel's record, say what is not written out
[ "$(error_code "$WORK/stop.json")" = not-written ] &&
	[ "$(jget "$WORK/stop.json" error channel)" = channel0 ] &&
	[ "$(jget "$WORK/stop.json" error events)" = 5000 ] &&
	[ "$(jget "$WORK/stop.json" error buffers)" = 2 ] &&
	[ "$(jget "$WORK/stop.json" sessions s channels channel0 not_written events)" = 5000 ] ||
	fail "stop does not say what is not written out: $(cat "$WORK/stop.json")"
rm -f "$WORK/hang-now"
echo "ok"
