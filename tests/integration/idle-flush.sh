#!/usr/bin/env bash
# A thread that emits 10 events then sleeps: its events are on disk within
# 2 s (the channel's flush interval is 1 s), before any stop.
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
release_idle a
wait "$IDLE_PID" || fail "gen-events failed"
echo "ok"
