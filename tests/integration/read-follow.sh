#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# trace-read --follow on a session's output: started before the session,
# it prints an event of a program emitting one every 10 ms within 2 s of
# its emission, every event once and in order, and exits (0) when the
# session is stopped. tracectl view on a stopped session prints all and ends.
. "$(dirname "$0")/lib.sh"
start_daemons
D=$WORK/out
"$TRACECTL" create s --output "$D" >/dev/null
"$TRACECTL" enable-event -s s 'shmtrace_test:*' >/dev/null
"$TRACE_READ" --follow "$D" >"$WORK/follow.out" 2>"$WORK/follow.err" &
F=$!
"$TRACECTL" start s >/dev/null
first_event "$WORK/follow.out" 300
[ -n "$SEEN_MS" ] || fail "--follow printed nothing in 4 s: $(cat "$WORK/follow.err")"
[ "$GEN_RAN" = yes ] || fail "the first event came out only after the program ended"
[ "$SEEN_MS" -le 2000 ] || fail "the first event came out after $SEEN_MS ms"
wait "$GEN_PID" || fail "gen-events failed"
kill -0 "$F" 2>/dev/null || fail "--follow ended while the session was active"
t1=$(date +%s%N)
"$TRACECTL" stop s >/dev/null
rc=0
for _ in $(seq 50); do
	kill -0 "$F" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$F" 2>/dev/null && fail "--follow still runs 5 s after stop"
wait "$F" || rc=$?
[ "$rc" -eq 0 ] || fail "--follow exited $rc: $(cat "$WORK/follow.err")"
ended=$(( ($(date +%s%N) - t1) / 1000000 ))
n=$(grep -c "shmtrace_test:event" "$WORK/follow.out" || true)
[ "$n" -eq 300 ] || fail "--follow printed $n events, expected 300"
sed -n 's/.*seq = \([0-9]*\),.*/\1/p' "$WORK/follow.out" | awk '$1 != NR - 1 { exit 1 }' ||
	fail "--follow printed the events out of order"
[ -e "$D/.shmtrace-active" ] && fail "the marker stayed after stop"

# tracectl view on the stopped session: everything, then the end
"$TRACECTL" view s >"$WORK/again.out" || fail "tracectl view on a stopped session failed"
cmp -s "$WORK/follow.out" "$WORK/again.out" || fail "tracectl view printed other events"
"$TRACECTL" view -s s --format json >"$WORK/json.out" || fail "tracectl view -s s failed"
[ "$(grep -c '"event":"shmtrace_test:event"' "$WORK/json.out")" -eq 300 ] ||
	fail "tracectl view -s s --format json: $(head -3 "$WORK/json.out")"
"$TRACECTL" destroy s >/dev/null
echo "ok: first event after $SEEN_MS ms, all 300 in order, ended $ended ms after stop"
