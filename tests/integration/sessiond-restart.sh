#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The session daemon killed (SIGKILL) while programs are traced: the
# consumer goes on writing their traces meanwhile, and the next session
# daemon (started by the next tracectl command) resumes every session
# where it was, takes the consumer and the processes over, and the trace
# holds every event once or counts it. Killed with its consumer, the
# next daemons continue the same traces.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons

# kill_sessiond: SIGKILL to the session daemon, a tracectl command starts
# the next one; SESSIOND_PID is the new one's
kill_sessiond() {
	restart_sessiond "$WORK/status.after" s
	[ "$(jget "$WORK/status.after" daemon pid)" = "$SESSIOND_PID" ] || fail "status by another daemon"
	[ "$(jget "$WORK/status.after" sessions s active)" = true ] || fail "session s not resumed active"
}

# 1. two programs at full speed; the session daemon down for a while
D=$WORK/out
"$TRACECTL" create s --output "$D" >/dev/null
"$TRACECTL" enable-channel -s s c --subbuf-size 64k --num-subbuf 8 >/dev/null
"$TRACECTL" enable-event -s s -c c 'shmtrace_test:*' >/dev/null
"$TRACECTL" start s >/dev/null
N=200000
"$GEN" -n $N -t 2 -p 30000 &
g1=$!
"$GEN" -n $N -t 1 -p 30000 &
g2=$!
sleep 0.5
consumer=$CONSUMERD_PID
kill -KILL "$SESSIOND_PID"
# while no session daemon runs, the consumer drains on
sleep 1
kill -0 "$consumer" 2>/dev/null || fail "the consumer did not outlive its session daemon"
kill_sessiond
[ "$(shmtrace_daemon_pid consumerd)" = "$consumer" ] || fail "the consumer was not taken over"
# the resumed session takes commands
"$TRACECTL" enable-event -s s -c c 'shmtrace_proc:*' >/dev/null || fail "enable-event failed"
wait "$g1" || fail "gen-events failed"
wait "$g2" || fail "gen-events failed"
"$TRACECTL" stop s >/dev/null || fail "stop failed"
status_json "$WORK/status.json" s || fail "status failed"
"$TRACE_READ" "$D" >"$WORK/t1.txt" 2>"$WORK/t1.err" || fail "trace-read: $(head -3 "$WORK/t1.err")"
total=$(seq_pairs "$WORK/t1.txt" | wc -l)
uniq=$(sed -n 's/.*:\([0-9]*\):[0-9]* shmtrace_test:event: { seq = \([0-9]*\), thread = \([0-9]*\),.*/\1 \3 \2/p' \
	"$WORK/t1.txt" | sort -u | wc -l)
disc=$(jget "$WORK/status.json" sessions s channels c discarded)
nobuf=$(jget "$WORK/status.json" sessions s channels c lost_without_buffer)
rec=$(jget "$WORK/status.json" sessions s channels c recorded)
echo "emitted $((3 * N)): on disk $total ($uniq distinct), discarded $disc, no buffer $nobuf"
[ "$total" -eq "$uniq" ] || fail "$((total - uniq)) events twice"
[ $((total + disc + nobuf)) -eq $((3 * N)) ] || fail "$total + $disc + $nobuf != $((3 * N))"
all=$(grep -c '^\[' "$WORK/t1.txt")
[ "$rec" -eq "$all" ] || fail "status says $rec recorded, $all on disk"
[ "$(find "$D" -mindepth 1 -maxdepth 1 -type d | wc -l)" -eq 2 ] || fail "not one directory per process"
"$TRACECTL" destroy s >/dev/null || fail "destroy of the resumed session failed"

# 2. both daemons killed while a program is idle with events in its buffers
D=$WORK/out2
new_session "$D" 'shmtrace_test:*'
gen_idle g -n 4000 -t 2
pid=$IDLE_PID
kill -KILL "$SESSIOND_PID"
shmtrace_wait_gone "$SESSIOND_PID" || fail "session daemon still runs"
kill -KILL "$CONSUMERD_PID"
shmtrace_wait_gone "$CONSUMERD_PID" || fail "consumer still runs"
kill_sessiond
# the program registers again (its marker is rung) and its trace goes on
traced() {	# traced PID: does status s list process PID?
	status_json "$WORK/traced.json" s &&
		[ "$(jget_or none "$WORK/traced.json" sessions s processes "pid=$1" pid)" = "$1" ]
}
for _ in $(seq 100); do
	traced "$pid" && break
	sleep 0.1
done
traced "$pid" || fail "the program did not register again"
release_idle g
wait "$pid" || fail "gen-events failed"
"$TRACECTL" stop s >/dev/null || fail "stop failed"
"$TRACE_READ" "$D" >"$WORK/t2.txt" || fail "trace-read failed"
check_seqs "$WORK/t2.txt" 2 4000
[ "$(find "$D" -mindepth 1 -maxdepth 1 -type d | wc -l)" -eq 1 ] || fail "not one directory"
[ "$(bt_count "$D" shmtrace_test:event)" -eq 8000 ] || fail "babeltrace2 does not read 8000"
"$TRACECTL" destroy s >/dev/null
echo "ok"
