#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A live session: babeltrace2's lttng-live source, attached to the relay
# before the program starts, prints the first event of a program emitting
# one every 10 ms within 3 s, while the program still runs; the relay's
# output then holds every event.
. "$(dirname "$0")/lib.sh"
need_babeltrace
command -v stdbuf >/dev/null 2>&1 || { echo "stdbuf not installed: skipped"; exit 77; }
start_relay a
start_daemons
"$TRACECTL" create s --live=100000 --set-url "net://127.0.0.1:$RELAY_CTRL:$RELAY_DATA" \
	>/dev/null || fail "create --live failed"
"$TRACECTL" enable-event -s s 'shmtrace_test:*' >/dev/null
"$TRACECTL" start s >/dev/null
host=$(hostname)
stdbuf -oL "$BT" -i lttng-live "net://127.0.0.1:$RELAY_LIVE/host/$host/s" \
	>"$WORK/live.out" 2>"$WORK/live.err" &
VIEWER=$!
sleep 0.5
first_event "$WORK/live.out" 500
kill "$VIEWER" 2>/dev/null || true
wait "$VIEWER" 2>/dev/null || true
wait "$GEN_PID" || fail "gen-events failed"
[ -n "$SEEN_MS" ] || fail "no event seen live in 4 s: $(head -5 "$WORK/live.err")"
[ "$GEN_RAN" = yes ] || fail "the first event was seen only after the program ended"
[ "$SEEN_MS" -le 3000 ] || fail "first event seen after $SEEN_MS ms"
"$TRACECTL" view s >"$WORK/view.out" || fail "tracectl view failed"
grep -q "babeltrace2 -i lttng-live net://127.0.0.1:5344/host/$host/s" "$WORK/view.out" ||
	fail "tracectl view: $(cat "$WORK/view.out")"
"$TRACECTL" stop s >/dev/null || fail "stop failed"
"$TRACECTL" destroy s >/dev/null
n=$(bt_count "$RELAY_OUT" shmtrace_test:event)
[ "$n" -eq 500 ] || fail "the relay's output holds $n events, expected 500"
echo "ok: first event seen live after $SEEN_MS ms, all 500 stored"
