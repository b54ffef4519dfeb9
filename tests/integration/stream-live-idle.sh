#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A live viewer whose streams are all idle hears of a new process: the
# relay tells viewers of new streams only in its reply for a packet's
# index, and idle streams send beacons, so in a period that announced
# streams they send an empty packet instead. babeltrace2's lttng-live
# source follows a session where gen-events emitted 20 events and stays
# alive, idle; then gen-events emits 30 events and ends: within 20 s the
# viewer prints all 30, while the first one is still idle.
. "$(dirname "$0")/lib.sh"
need_babeltrace
command -v stdbuf >/dev/null 2>&1 || { echo "stdbuf not installed: skipped"; exit 77; }
start_relay a
start_daemons
VIEWER=
on_exit() {
	local rc=$?
	set +e
	if [ -n "$VIEWER" ]; then
		kill "$VIEWER" 2>/dev/null
		wait "$VIEWER" 2>/dev/null
	fi
	(exit "$rc")
	cleanup
}
trap on_exit EXIT

"$TRACECTL" create lv --live=200ms --set-url "net://127.0.0.1:$RELAY_CTRL:$RELAY_DATA" \
	>/dev/null || fail "create --live failed"
"$TRACECTL" enable-event -s lv 'shmtrace_test:*' >/dev/null
"$TRACECTL" start lv >/dev/null
stdbuf -oL "$BT" -i lttng-live "net://127.0.0.1:$RELAY_LIVE/host/$(hostname)/lv" \
	>"$WORK/live.out" 2>"$WORK/live.err" &
VIEWER=$!
# until the viewer follows: an idle program's events printed (one started
# before the viewer attached is not)
n=0
for try in $(seq 10); do
	gen_idle "i$try" -n 20 -t 1
	IDLE=$IDLE_PID
	for _ in $(seq 50); do
		n=$(grep -c "($IDLE) shmtrace_test:event" "$WORK/live.out" || true)
		[ "$n" -eq 20 ] && break
		sleep 0.1
	done
	[ "$n" -eq 20 ] && break
	kill -0 "$VIEWER" 2>/dev/null || fail "the viewer stopped: $(head -3 "$WORK/live.err")"
done
[ "$n" -eq 20 ] || fail "the viewer printed none of 10 idle programs' 20 events"

"$GEN" -n 30 -t 1 >/dev/null &
NEW=$!
wait "$NEW" || fail "gen-events failed"
n=0
for _ in $(seq 200); do
	n=$(grep -c "($NEW) shmtrace_test:event" "$WORK/live.out" || true)
	[ "$n" -eq 30 ] && break
	kill -0 "$VIEWER" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$IDLE" 2>/dev/null || fail "the idle program ended"
[ "$n" -eq 30 ] || fail "the viewer printed $n of the new program's 30 events: $(grep -m3 -i error "$WORK/live.err")"
grep -qi error "$WORK/live.err" && fail "the viewer complained: $(grep -m3 -i error "$WORK/live.err")"
echo "ok: the viewer, its streams idle, printed all 30 events of a new program"
