#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A process started before any daemon runs is picked up when one starts;
# events emitted while a session is stopped are not recorded.
. "$(dirname "$0")/lib.sh"
need_babeltrace
D=$WORK/out
mkfifo "$WORK/in"
"$GEN" -w -n 20000 -t 2 <"$WORK/in" &
GEN_PID=$!
exec 7>"$WORK/in"
for _ in $(seq 50); do [ -f "$SHMTRACE_HOME/apps/$GEN_PID" ] && break; sleep 0.1; done
[ -f "$SHMTRACE_HOME/apps/$GEN_PID" ] || fail "the process left no marker"
start_daemons
"$TRACECTL" create s --output "$D" >/dev/null
"$TRACECTL" enable-event -s s 'shmtrace_test:event' >/dev/null
"$TRACECTL" start s >/dev/null
for _ in $(seq 50); do
	registered "$GEN_PID" && break
	sleep 0.1
done
registered "$GEN_PID" || fail "the process did not register"
echo go >&7
exec 7>&-
wait "$GEN_PID" || fail "gen-events failed"

# stopped: nothing is recorded; started again: recorded
"$TRACECTL" stop s >/dev/null
"$GEN" -n 777 -t 1 || fail "gen-events failed"
"$TRACECTL" start s >/dev/null
"$GEN" -n 500 -t 3 || fail "gen-events failed"
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null
n=$(bt_count "$D" shmtrace_test:event)
[ "$n" -eq 41500 ] || fail "babeltrace2 read $n events, expected 40000 + 1500"
ls "$D" | grep -q "gen-events-$GEN_PID" || fail "no trace for the early process"
[ "$(ls "$D" | wc -l)" -eq 2 ] || fail "expected two process traces: $(ls "$D")"
echo "ok"
