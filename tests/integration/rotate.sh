#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tracectl rotate: three rotations while a program runs; the chunks
# together hold every event exactly once, each chunk reads on its own with
# babeltrace2 (no warning), and automatic rotation by time makes chunks.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/out
new_session "$D" 'shmtrace_test:*'
# one program runs across the rotations, and one short one per chunk
gen_bg g ready -w -n 200000 -t 2 -s 4 -p 1000	# about 0.2 s or more
release_idle g
for i in 1 2 3; do
	"$GEN" -n 1000 -t 1 || fail "gen-events failed"
	sleep 0.1
	"$TRACECTL" rotate s >"$WORK/rot" || fail "rotation $i failed: $(cat "$WORK/rot")"
done
"$GEN" -n 1000 -t 1 || fail "gen-events failed"
wait "$IDLE_PID" || fail "gen-events failed"
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null
ls -d "$D"/chunk-* >"$WORK/chunks"
[ "$(wc -l <"$WORK/chunks")" -eq 4 ] || fail "$(wc -l <"$WORK/chunks") chunks, expected 4: $(ls "$D")"
left=$(find "$D" -mindepth 1 -maxdepth 1 ! -name 'chunk-*')
[ -z "$left" ] || fail "left outside the chunks: $left"
: >"$WORK/all"
while read -r c; do
	"$BT" "$c" >"$WORK/c.out" 2>"$WORK/c.err" || fail "babeltrace2 failed on $c: $(head -3 "$WORK/c.err")"
	[ ! -s "$WORK/c.err" ] || fail "babeltrace2 on $c: $(head -3 "$WORK/c.err")"
	seq_pairs "$WORK/c.out" >>"$WORK/all"
	echo "$(basename "$c"): $(grep -c 'shmtrace_test:event' "$WORK/c.out") events"
done <"$WORK/chunks"
n=$(wc -l <"$WORK/all")
# 400000 from the long program, 4 x 1000 from the short ones
[ "$n" -eq 404000 ] || fail "the chunks hold $n events, expected 404000"
"$TRACE_READ" --stats=count "$D" | grep -q "^ *404000  shmtrace_test:event$" || fail "trace-read of all chunks"
for g in $(ls -d "$D"/chunk-*/gen-events-* | sed 's|.*/||' | sort | uniq -c | awk '$1 > 1 { print $2 }'); do
	echo "process $g spans several chunks"
done
# automatic rotation every 300 ms
new_session "$WORK/auto" 'shmtrace_test:*'
"$TRACECTL" rotate -s s --every 300ms >/dev/null || fail "--every refused"
gen_bg h ready -w -n 20000 -t 1
release_idle h
wait "$IDLE_PID"
sleep 1
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null
[ "$(ls -d "$WORK/auto"/chunk-* | wc -l)" -ge 3 ] || fail "automatic rotation: $(ls "$WORK/auto")"
na=$(bt_count "$WORK/auto" shmtrace_test:event)
[ "$na" -eq 20000 ] || fail "automatic rotation: $na events, expected 20000"
echo "ok: $n events in 4 chunks"
