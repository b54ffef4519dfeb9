#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The consumer killed (SIGKILL) and started again by the session daemon
# continues the same traces exactly: a program alive across it has every
# event once (not the flushed prefix of its open packet twice), in one
# directory (not a "-1" copy), and status counts what is on disk; killed
# again and again while two threads write at full speed, no event is on
# disk twice, no packet is left cut short, and every event is on disk or
# counted as discarded.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons

# kill_consumer: SIGKILL to the consumer, then wait for its successor
kill_consumer() {
	local old=$CONSUMERD_PID
	kill_daemon KILL "$old"
	shmtrace_wait_gone "$old" || fail "consumer $old still runs"
	shmtrace_daemons_wait "$SHMTRACE_HOME" 200 "$old" || fail "no new consumer after $old"
}

# on_disk DIR: events of shmtrace_test:event that trace-read finds in DIR
on_disk() {
	"$TRACE_READ" "$1" 2>/dev/null | grep -c "shmtrace_test:event" || true
}

# 1. a program idle across the kill, its open packet flushed before it,
# and one that ended before it
D=$WORK/idle
new_session "$D" 'shmtrace_test:*'
"$GEN" -n 3000 -t 1 || fail "gen-events failed"
gen_idle g -n 5000 -t 1
pid=$IDLE_PID
# the flush interval (1 s) writes the open packet's committed prefix
for _ in $(seq 100); do
	[ "$(on_disk "$D")" -eq 8000 ] && break
	sleep 0.1
done
[ "$(on_disk "$D")" -eq 8000 ] || fail "the flush did not write the open packet"
kill_consumer
release_idle g
wait "$pid" || fail "gen-events failed"
"$TRACECTL" stop s >/dev/null || fail "stop failed"
status_json "$WORK/status.json" s || fail "status failed"
"$TRACE_READ" "$D/gen-events-$pid" >"$WORK/idle.txt" ||
	fail "trace-read failed on the continued trace"
check_seqs "$WORK/idle.txt" 1 5000
dirs=$(find "$D" -mindepth 1 -maxdepth 1 -type d | wc -l)
[ "$dirs" -eq 2 ] || fail "$dirs trace directories for two processes: $(ls "$D")"
[ "$(bt_count "$D" shmtrace_test:event)" -eq 8000 ] || fail "babeltrace2 does not read 8000 events"
rec=$(status_sum "$WORK/status.json" s recorded)
[ "$rec" = 8000 ] || fail "status says $rec events recorded, 8000 are on disk"
"$TRACECTL" destroy s >/dev/null

# 2. killed again and again while two threads write at full speed
D=$WORK/busy
"$TRACECTL" create b --output "$D" >/dev/null
"$TRACECTL" enable-channel -s b c --subbuf-size 64k --num-subbuf 4 >/dev/null
"$TRACECTL" enable-event -s b -c c 'shmtrace_test:*' >/dev/null
"$TRACECTL" start b >/dev/null
N=1000000
"$GEN" -n $N -t 2 -p 1000 &
gen=$!
for _ in 1 2 3; do
	sleep 0.4
	kill -0 "$gen" 2>/dev/null || break
	kill_consumer
done
wait "$gen" || fail "gen-events failed"
"$TRACECTL" stop b >/dev/null || fail "stop failed"
status_json "$WORK/status.json" b || fail "status failed"
"$TRACE_READ" "$D" >"$WORK/busy.txt" 2>"$WORK/busy.err" ||
	fail "trace-read failed: $(head -3 "$WORK/busy.err")"
total=$(seq_pairs "$WORK/busy.txt" | wc -l)
uniq=$(seq_pairs "$WORK/busy.txt" | sort -u | wc -l)
[ "$total" -eq "$uniq" ] || fail "$((total - uniq)) events on disk twice"
dirs=$(find "$D" -mindepth 1 -maxdepth 1 -type d | wc -l)
[ "$dirs" -eq 1 ] || fail "$dirs trace directories for one process"
disc=$(jget "$WORK/status.json" sessions b channels c discarded)
rec=$(jget "$WORK/status.json" sessions b channels c recorded)
echo "emitted $((2 * N)): on disk $total, discarded $disc, status recorded $rec"
[ "$rec" -eq "$total" ] || fail "status says $rec recorded, $total on disk"
[ $((total + disc)) -eq $((2 * N)) ] || fail "$total on disk + $disc discarded != $((2 * N))"
"$BT" "$D" >"$WORK/bt.out" 2>"$WORK/bt.err" || fail "babeltrace2 failed: $(head -3 "$WORK/bt.err")"
! grep -v "^WARNING: Tracer discarded [0-9]* events between" "$WORK/bt.err" ||
	fail "babeltrace2 complained"
n=$(grep -c " shmtrace_test:event: " "$WORK/bt.out" || true)
[ "$n" -eq "$total" ] || fail "babeltrace2 reads $n events, trace-read $total"
"$TRACECTL" destroy b >/dev/null
echo "ok"
