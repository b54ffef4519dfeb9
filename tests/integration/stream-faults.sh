#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Faults of the relay never reach the traced program:
# - relay stopped (SIGSTOP) while a program emits: the program takes the
#   time it takes untraced, a session writing files in the same daemons
#   loses nothing, what the relay could not take is counted as discarded,
#   and once the relay runs again the rest arrives: the relay's output
#   holds exactly the events said sent;
# - relay killed (SIGKILL) mid-run: the program takes the time it takes
#   untraced and exits 0, stop says that streaming stopped and exits 1,
#   status shows the loss, and emitted == sent + discarded + lost, with the
#   relay's output holding at least the events it confirmed; start then
#   fails, saying why.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
N=150000
EMITTED=$((2 * N))

# run_gen: gen-events emitting EMITTED events in about 1.5 s; sets GEN_MS
run_gen() {
	local t0
	t0=$(date +%s%N)
	"$GEN" -n "$N" -t 2 -p 10000 >/dev/null || fail "gen-events failed"
	GEN_MS=$(( ($(date +%s%N) - t0) / 1000000 ))
}

# stat NAME: a counter of the last status (summed over channels)
stat() {
	jsum "$WORK/status.out" sessions '*' channels '*' "$1"
}

# the untraced time, the best of three
best=
for _ in 1 2 3; do
	run_gen
	[ -z "$best" ] || [ "$GEN_MS" -lt "$best" ] && best=$GEN_MS
done
slow_ok() {
	[ "$1" -le $((best * 3 / 2 + 300)) ] || fail "$2: the program took $1 ms, untraced $best ms"
}

# --- relay stopped, then continued -----------------------------------------
start_relay stopped
"$TRACECTL" create s --set-url "net://127.0.0.1:$RELAY_CTRL:$RELAY_DATA" >/dev/null ||
	fail "create failed"
"$TRACECTL" enable-channel -s s small --subbuf-size 16k --num-subbuf 4 >/dev/null
"$TRACECTL" enable-event -s s -c small 'shmtrace_test:*' >/dev/null
"$TRACECTL" start s >/dev/null
"$TRACECTL" create local --output "$WORK/local" >/dev/null
"$TRACECTL" enable-event -s local 'shmtrace_test:*' >/dev/null
"$TRACECTL" start local >/dev/null
kill -STOP "$RELAY_PID"
run_gen
slow_ok "$GEN_MS" "relay stopped"
kill -CONT "$RELAY_PID"
"$TRACECTL" stop local >/dev/null || fail "stop of the local session failed"
n=$(bt_count "$WORK/local" shmtrace_test:event)
[ "$n" -eq "$EMITTED" ] || fail "the local session holds $n events of $EMITTED"
"$TRACECTL" stop s >"$WORK/stop.out" 2>&1 || fail "stop failed: $(cat "$WORK/stop.out")"
status_json "$WORK/status.out" s || fail "status failed: $(cat "$WORK/status.out")"
sent=$(stat recorded)
disc=$(stat discarded)
[ "$disc" -gt 0 ] || fail "nothing discarded while the relay was stopped"
[ $((sent + disc)) -eq "$EMITTED" ] || fail "sent $sent + discarded $disc != $EMITTED"
"$TRACECTL" destroy s >/dev/null
"$TRACECTL" destroy local >/dev/null
bt_read "$RELAY_OUT"
n=$(grep -c " shmtrace_test:event: " "$WORK/bt.out" || true)
[ "$n" -eq "$sent" ] || fail "the relay stored $n events of $sent sent"
[ "$BT_DISC" -eq "$disc" ] || fail "the relay's trace says $BT_DISC discarded, status $disc"
check_seqs_lossy "$WORK/bt.out" 2 "$N" "$disc"
echo "ok: relay stopped: program in $GEN_MS ms (untraced $best), $sent sent, $disc discarded"

# --- relay killed ------------------------------------------------------------
start_relay killed
url="net://127\.0\.0\.1:$RELAY_CTRL:$RELAY_DATA"
expect_log "error: $url: streaming stopped: " "error: cannot write $url/[^ ]*: "
"$TRACECTL" create k --set-url "net://127.0.0.1:$RELAY_CTRL:$RELAY_DATA" >/dev/null ||
	fail "create failed"
"$TRACECTL" enable-event -s k 'shmtrace_test:*' >/dev/null
"$TRACECTL" start k >/dev/null
( sleep 0.5; kill -KILL "$RELAY_PID" ) &
killer=$!
run_gen
wait "$killer"
slow_ok "$GEN_MS" "relay killed"
rc=0
ctl_json "$WORK/stop.out" stop k 2>/dev/null || rc=$?
[ "$rc" -eq 1 ] || fail "stop exited $rc after the relay was killed: $(cat "$WORK/stop.out")"
[[ $(jget "$WORK/stop.out" error path) == "net://127.0.0.1:$RELAY_CTRL:$RELAY_DATA"* ]] ||
	fail "stop did not name the relay: $(cat "$WORK/stop.out")"
status_json "$WORK/status.out" k 2>/dev/null && fail "status exited 0 after the relay was killed"
rc=0
"$TRACECTL" start k >"$WORK/start.out" 2>&1 || rc=$?
[ "$rc" -eq 1 ] || fail "start with the relay gone exited $rc: $(cat "$WORK/start.out")"
sent=$(stat recorded)
disc=$(stat discarded)
lost=$(stat lost_to_write_errors)
unconf=$(stat unconfirmed)
[ $((sent + disc + lost)) -eq "$EMITTED" ] ||
	fail "sent $sent + discarded $disc + lost $lost != $EMITTED"
[ "$lost" -gt 0 ] || fail "no loss reported after the relay was killed"
"$TRACECTL" destroy k >/dev/null 2>&1 || true
# what the killed relay stored: read whole (0), or damaged at its end (3)
rc=0
"$TRACE_READ" --stats=count "$RELAY_OUT" >"$WORK/count.out" 2>"$WORK/count.err" || rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || fail "trace-read of the relay's output: status $rc: $(head -3 "$WORK/count.err")"
n=$(awk '$2 == "shmtrace_test:event" { print $1 }' "$WORK/count.out")
n=${n:-0}
[ "$n" -ge $((sent - unconf)) ] && [ "$n" -le "$sent" ] ||
	fail "the relay's output holds $n events; sent $sent, $unconf of them unconfirmed"
echo "ok: relay killed: program in $GEN_MS ms, sent $sent ($unconf unconfirmed, $n stored), discarded $disc, lost $lost"
