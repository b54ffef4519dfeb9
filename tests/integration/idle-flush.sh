#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A thread that emits 10 events then sleeps: its events are on disk within
# 2 s (the channel's flush interval is 1 s), before any stop. While the
# session is active and the program idle, neither the daemons nor the
# program spin: each uses under 50 ms of CPU in 2 s, and the program runs
# no thread of shmtrace's.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/out
new_session "$D" 'shmtrace_test:*'
start=$(date +%s%N)
gen_idle a -n 10 -t 1
found=0
while [ $(($(date +%s%N) - start)) -lt 2000000000 ]; do
	if [ -n "$(find "$D" -type f ! -name metadata -size +0 2>/dev/null)" ] &&
	   [ "$("$BT" "$D" 2>/dev/null | grep -c 'shmtrace_test:event: ')" -eq 10 ]; then
		found=1
		break
	fi
	sleep 0.1
done
took=$((($(date +%s%N) - start) / 1000000))
[ "$found" -eq 1 ] || fail "the 10 events were not on disk within 2 s"
echo "10 events on disk after $took ms"
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }	# clock ticks, user + system
t0="$(cpu "$CONSUMERD_PID") $(cpu "$SESSIOND_PID") $(cpu "$IDLE_PID")"
sleep 2
t1="$(cpu "$CONSUMERD_PID") $(cpu "$SESSIOND_PID") $(cpu "$IDLE_PID")"
hz=$(getconf CLK_TCK)
read -r c0 s0 g0 <<<"$t0"
read -r c1 s1 g1 <<<"$t1"
echo "CPU ticks in 2 s idle: consumerd $((c1 - c0)), sessiond $((s1 - s0)), program $((g1 - g0))"
for d in "consumerd $((c1 - c0))" "sessiond $((s1 - s0))" "program $((g1 - g0))"; do
	read -r who ticks <<<"$d"
	[ $((ticks * 1000 / hz)) -lt 50 ] || fail "$who spins while idle: $ticks ticks in 2 s"
done
[ "$(ls "/proc/$IDLE_PID/task" | wc -l)" -eq 2 ] ||
	fail "gen-events -t 1 runs $(ls "/proc/$IDLE_PID/task" | wc -l) threads"
release_idle a
wait "$IDLE_PID" || fail "gen-events failed"
echo "ok"
