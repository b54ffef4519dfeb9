#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A live viewer gets every event of a process that ended and of a process
# still running past its flush interval, not only the packets before the
# last one. A live session (period 500 ms) and a session writing files
# record the same events; babeltrace2's lttng-live source follows the live
# one (a program emitting an event every 100 ms tells when it does). Then:
# - a shell, traced with the I/O helper, writes a file six times, 200 ms
#   apart, running sleep (traced too, each shorter than the period)
#   between, and ends;
# - gen-events emits 50 events and stays alive, idle.
# Within 30 s, while the live session runs and gen-events still lives, the
# viewer prints exactly the events of those processes that the local
# session holds (the same lines), their last open, write and close and
# shmtrace_proc:exit included, and it never stops on an error.
. "$(dirname "$0")/lib.sh"
need_babeltrace
command -v stdbuf >/dev/null 2>&1 || { echo "stdbuf not installed: skipped"; exit 77; }
PRE=$B/.libs/libshmtrace.so:$B/.libs/libshmtrace-io.so
[ -f "$B/.libs/libshmtrace-io.so" ] || fail "no libshmtrace-io.so"
PATTERNS=('shmtrace_io:*' 'shmtrace_proc:*' 'shmtrace_test:*')
start_relay a
start_daemons
"$TRACECTL" create lv --live=500ms --set-url "net://127.0.0.1:$RELAY_CTRL:$RELAY_DATA" \
	>/dev/null || fail "create --live failed"
"$TRACECTL" enable-event -s lv "${PATTERNS[@]}" >/dev/null
"$TRACECTL" start lv >/dev/null
"$TRACECTL" create f --output "$WORK/f" >/dev/null || fail "create of the local session failed"
"$TRACECTL" enable-event -s f "${PATTERNS[@]}" >/dev/null
"$TRACECTL" start f >/dev/null

# the heartbeat: an event every 100 ms for 10 minutes at most
"$GEN" -n 6000 -t 1 -e 100000 >/dev/null &
HB=$!
stop_heartbeat() {
	kill "$HB" 2>/dev/null || true
	wait "$HB" 2>/dev/null || true
}
# ours ended by pid, then lib.sh's cleanup, with the test's exit status
on_exit() {
	local rc=$?
	set +e
	stop_heartbeat
	if [ -n "${VIEWER:-}" ]; then
		kill "$VIEWER" 2>/dev/null || true
		wait "$VIEWER" 2>/dev/null || true
	fi
	(exit "$rc")
	cleanup
}
trap on_exit EXIT

stdbuf -oL "$BT" -i lttng-live "net://127.0.0.1:$RELAY_LIVE/host/$(hostname)/lv" \
	>"$WORK/live.out" 2>"$WORK/live.err" &
VIEWER=$!
for _ in $(seq 300); do
	grep -q "($HB) shmtrace_test:event" "$WORK/live.out" && break
	kill -0 "$VIEWER" 2>/dev/null || break
	sleep 0.1
done
grep -q "($HB) shmtrace_test:event" "$WORK/live.out" ||
	fail "the viewer printed nothing of the heartbeat in 30 s: $(head -5 "$WORK/live.err")"

gen_idle idle -n 50 -t 1
export SHMTRACE_REGISTER_TIMEOUT=10000
LD_PRELOAD=$PRE sh -c 'for i in 1 2 3 4 5 6; do echo "$i" >>"$1"; sleep 0.2; done' sh "$WORK/file" ||
	fail "the traced shell failed"
unset SHMTRACE_REGISTER_TIMEOUT
[ "$(wc -l <"$WORK/file")" -eq 6 ] || fail "the shell wrote $(wc -l <"$WORK/file") lines"

# the events of those processes, as the local session recorded them
"$TRACECTL" stop f >/dev/null || fail "stop of the local session failed"
bt_count "$WORK/f" x >/dev/null
# lines without their times (the first event of a thread in a channel is
# stamped when it gets the channel's buffer), the heartbeat's left out
events_of() {
	sed 's/^\[[0-9:.]*\] ([^)]*) //' "$1" |
		awk -v hb="($HB) " 'index($0, hb) == 0 && $2 ~ /^shmtrace_/' | sort
}
events_of "$WORK/bt.out" >"$WORK/want"
want=$(wc -l <"$WORK/want")
grep -q "($IDLE_PID) shmtrace_test:event: .*seq = 49," "$WORK/want" ||
	fail "the local session misses the idle program's last event"
grep -q ") shmtrace_io:close: " "$WORK/want" || fail "the local session holds no close"

got=0
for _ in $(seq 300); do
	got=$(events_of "$WORK/live.out" | wc -l)
	[ "$got" -ge "$want" ] && break
	kill -0 "$VIEWER" 2>/dev/null || break
	sleep 0.1
done
# (babeltrace2 logs the first cause first: its first warning and error lines)
kill -0 "$VIEWER" 2>/dev/null || fail "the viewer stopped: $(grep -m6 ' [EW] ' "$WORK/live.err" | cut -c1-300)"
kill -0 "$IDLE_PID" 2>/dev/null || fail "the idle program ended before the viewer had its events"
events_of "$WORK/live.out" >"$WORK/got"
if ! cmp -s "$WORK/want" "$WORK/got"; then
	diff "$WORK/want" "$WORK/got" | head -20 >&2 || true
	fail "the viewer printed $got events of the $want recorded; the last it missed: $(diff "$WORK/want" "$WORK/got" | grep '^<' | tail -1)"
fi
grep -qi error "$WORK/live.err" && fail "the viewer complained: $(grep -m6 ' [EW] ' "$WORK/live.err" | cut -c1-300)"

release_idle idle
wait "$IDLE_PID" || fail "gen-events failed"
stop_heartbeat
"$TRACECTL" stop lv >/dev/null || fail "stop of the live session failed"
"$TRACECTL" destroy lv >/dev/null
"$TRACECTL" destroy f >/dev/null
echo "ok: the viewer printed all $want events of the processes, as recorded"
