#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Triggers survive the session daemon: killed (SIGKILL), the next daemon
# has every trigger (the same ids, definitions, counters and the keys an
# aggregation trigger met) and they fire as before. The first producer
# lives past its firing and ends before the kill: the counts of a process
# that went are the state's alone then, and are saved; its aggregation
# results are the consumer's alone, which waits for the next daemon.
. "$(dirname "$0")/lib.sh"
start_daemons
"$TRACECTL" create s --output "$WORK/out" >/dev/null &&
	"$TRACECTL" aggregate -s s lat 'shmtrace_test:event' --quantize seq >/dev/null &&
	"$TRACECTL" start s >/dev/null || fail "cannot set up session s"
"$TRACECTL" add-trigger ev --on-event 'shmtrace_test:event' --filter 'seq == 10' \
	--action notify >/dev/null || fail "add-trigger ev"
"$TRACECTL" add-trigger agg --on-aggregation lat -s s --when 'count > 100' --every 100ms \
	--action notify >/dev/null || fail "add-trigger agg"
gen_idle g -n 200
for _ in $(seq 100); do
	ctl_json "$WORK/before.json" list-triggers || fail "list-triggers"
	[ "$(jget "$WORK/before.json" triggers agg fired)" -eq 1 ] &&
		[ "$(jget "$WORK/before.json" triggers ev fired)" -eq 1 ] && break
	sleep 0.1
done
[ "$(jget "$WORK/before.json" triggers agg fired)" -eq 1 ] &&
	[ "$(jget "$WORK/before.json" triggers ev fired)" -eq 1 ] || fail "$(cat "$WORK/before.json")"
release_idle g
wait "$IDLE_PID" || fail "gen-events failed"
for _ in $(seq 100); do
	status_json "$WORK/st.json" s
	[ "$(jget "$WORK/st.json" sessions s processes '#')" -eq 0 ] && break
	sleep 0.1
done
[ "$(jget "$WORK/st.json" sessions s processes '#')" -eq 0 ] || fail "gen-events still listed"
ctl_json "$WORK/before.json" list-triggers || fail "list-triggers"
[ "$(jget "$WORK/before.json" triggers ev matches)" -eq 1 ] || fail "matches: $(cat "$WORK/before.json")"

old=$SESSIOND_PID
kill -KILL "$old"
shmtrace_wait_gone "$old" || fail "session daemon $old still runs"
# the consumer, orphaned with no process left, looks once a second: it
# holds the aggregation's results of the process gone and waits for us
sleep 2.5
kill -0 "$CONSUMERD_PID" 2>/dev/null || fail "the consumer exited with results only it held"
ctl_json "$WORK/after.json" list-triggers || fail "list-triggers after the restart"
ctl_json "$WORK/aggs.json" show-aggregations -s s lat || fail "show-aggregations after the restart"
[ "$(jget "$WORK/aggs.json" results lat updates)" -eq 200 ] ||
	fail "the aggregation lost its results: $(cat "$WORK/aggs.json")"
SESSIOND_PID=$(shmtrace_daemon_pid sessiond)
[ -n "$SESSIOND_PID" ] && [ "$SESSIOND_PID" != "$old" ] || fail "no new session daemon"
for t in ev agg; do
	for f in id fired matches condition action; do
		[ "$(jget "$WORK/after.json" triggers "$t" "$f")" = "$(jget "$WORK/before.json" triggers "$t" "$f")" ] ||
			fail "trigger $t: $f differs after the restart: $(cat "$WORK/after.json")"
	done
done
# the key that met the condition before is not fired again; the event trigger fires on
sleep 0.5
"$GEN" -n 200 || fail "gen-events failed"
for _ in $(seq 50); do
	ctl_json "$WORK/again.json" list-triggers || fail "list-triggers"
	[ "$(jget "$WORK/again.json" triggers ev fired)" -eq 2 ] && break
	sleep 0.1
done
[ "$(jget "$WORK/again.json" triggers ev fired)" -eq 2 ] || fail "ev after the restart: $(cat "$WORK/again.json")"
[ "$(jget "$WORK/again.json" triggers agg fired)" -eq 1 ] || fail "agg fired again: $(cat "$WORK/again.json")"
"$TRACECTL" destroy s >/dev/null
echo "ok: triggers kept across a session daemon's restart"
