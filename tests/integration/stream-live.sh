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
t0=$(date +%s%N)
"$GEN" -n 500 -t 1 -e 10000 >/dev/null &
G=$!
seen=
for _ in $(seq 300); do
	if grep -q "shmtrace_test:event" "$WORK/live.out"; then
		seen=$(( ($(date +%s%N) - t0) / 1000000 ))
		break
	fi
	sleep 0.01
done
running=no
kill -0 "$G" 2>/dev/null && running=yes
kill "$VIEWER" 2>/dev/null || true
wait "$VIEWER" 2>/dev/null || true
wait "$G" || fail "gen-events failed"
[ -n "$seen" ] || fail "no event seen live in 3 s: $(head -5 "$WORK/live.err")"
[ "$running" = yes ] || fail "the first event was seen only after the program ended"
[ "$seen" -le 3000 ] || fail "first event seen after $seen ms"
"$TRACECTL" stop s >/dev/null || fail "stop failed"
"$TRACECTL" destroy s >/dev/null
n=$(bt_count "$RELAY_OUT" shmtrace_test:event)
[ "$n" -eq 500 ] || fail "the relay's output holds $n events, expected 500"
echo "ok: first event seen live after $seen ms, all 500 stored"
