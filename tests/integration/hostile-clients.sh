#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The session daemon's socket under hostile clients: a thousand idle
# connections, random, truncated, oversized and lying messages,
# registrations with descriptors of the wrong kind. Each is refused and
# logged, no descriptor leaks, and `tracectl list` answers within 100 ms
# (median of 5; 3 times its time alone when that is longer) all along.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 not installed: skipped"; exit 77; }
PY=$top_srcdir/tests/integration/hostile-clients.py
start_daemons
S=$SHMTRACE_HOME/sessiond.sock
fds() { ls "/proc/$SESSIOND_PID/fd" | wc -l; }

# median_list_ms: the median time of 5 `tracectl list`, in ms
median_list_ms() {
	local i t0 t1
	for i in 1 2 3 4 5; do
		t0=$(date +%s%N)
		timeout 60 "$TRACECTL" list >/dev/null || fail "tracectl list failed"
		t1=$(date +%s%N)
		echo $(((t1 - t0) / 1000000))
	done | sort -n | sed -n 3p
}

base=$(median_list_ms)
# a daemon served in turn answers within 100 ms, or 3 times its time alone
# when other load slows everything (a daemon blocked by a client takes
# seconds: the timeouts)
limit=$((3 * base > 100 ? 3 * base : 100))
before=$(fds)

# 1. a thousand connections that never send anything
ulimit -n 4096 2>/dev/null || true
mkfifo "$WORK/idle.in" "$WORK/idle.out"
python3 "$PY" "$S" idle 1000 <"$WORK/idle.in" >"$WORK/idle.out" &
idle=$!
exec {IDLE_IN}>"$WORK/idle.in"
exec {IDLE_OUT}<"$WORK/idle.out"
read -r -t 120 line <&"$IDLE_OUT" || true
[ "$line" = open ] || fail "the idle clients could not connect: '$line'"
ms=$(median_list_ms)
[ "$ms" -lt "$limit" ] || fail "tracectl list took $ms ms with 1000 idle connections (alone: $base)"
echo go >&"$IDLE_IN"
wait "$idle" || true
grep -q "sent nothing" "$SHMTRACE_HOME/sessiond.log" || fail "idle connections not logged"

# 2. junk of every kind, each on its own connection
n=$(python3 "$PY" "$S" junk) || fail "the junk client failed"
[ "$n" -eq 0 ] || fail "$n malformed messages were not refused"
ms2=$(median_list_ms)
[ "$ms2" -lt "$limit" ] || fail "tracectl list took $ms2 ms after the junk (alone: $base)"

# 3. registrations with descriptors of the wrong kind
n=$(python3 "$PY" "$S" fds 2>"$WORK/fds.err") || fail "the fds client failed"
[ "$n" -eq 0 ] || fail "$n registrations with wrong descriptors accepted: $(cat "$WORK/fds.err")"
grep -q "registration refused" "$SHMTRACE_HOME/sessiond.log" || fail "refusals not logged"

# nothing leaked, and the daemon still traces
sleep 0.5
after=$(fds)
[ "$after" -le "$before" ] || fail "the daemon holds $after descriptors, $before before"
kill -0 "$SESSIOND_PID" || fail "the session daemon died"
new_session "$WORK/out" 'shmtrace_test:*'
"$GEN" -n 100 -t 1 || fail "gen-events failed"
"$TRACECTL" stop s >/dev/null
[ "$(status_field s channel0 recorded)" = 100 ] || fail "status: $(cat "$WORK/status_field.json")"
echo "ok: list in $base ms alone, $ms ms with 1000 idle connections, $ms2 ms after junk"
