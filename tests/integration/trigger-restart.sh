#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Triggers survive the session daemon: killed (SIGKILL), the next daemon
# has every trigger (the same ids, definitions, counters and the keys an
# aggregation trigger met) and they fire as before.
. "$(dirname "$0")/lib.sh"
start_daemons
"$TRACECTL" create s --output "$WORK/out" >/dev/null &&
	"$TRACECTL" aggregate -s s lat 'shmtrace_test:event' --quantize seq >/dev/null &&
	"$TRACECTL" start s >/dev/null || fail "cannot set up session s"
"$TRACECTL" add-trigger ev --on-event 'shmtrace_test:event' --filter 'seq == 10' \
	--action notify >/dev/null || fail "add-trigger ev"
"$TRACECTL" add-trigger agg --on-aggregation lat -s s --when 'count > 100' --every 100ms \
	--action notify >/dev/null || fail "add-trigger agg"
"$GEN" -n 200 || fail "gen-events failed"
for _ in $(seq 50); do
	ctl_json "$WORK/before.json" list-triggers || fail "list-triggers"
	[ "$(jget "$WORK/before.json" triggers agg fired)" -eq 1 ] &&
		[ "$(jget "$WORK/before.json" triggers ev fired)" -eq 1 ] && break
	sleep 0.1
done
[ "$(jget "$WORK/before.json" triggers agg fired)" -eq 1 ] || fail "$(cat "$WORK/before.json")"

old=$SESSIOND_PID
kill -KILL "$old"
shmtrace_wait_gone "$old" || fail "session daemon $old still runs"
ctl_json "$WORK/after.json" list-triggers || fail "list-triggers after the restart"
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
