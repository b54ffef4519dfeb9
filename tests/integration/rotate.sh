#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tracectl rotate: three rotations while programs run; the chunks together
# hold every event of every process exactly once, each chunk reads on its
# own with babeltrace2 (no warning); a program that waits at each rotation
# has in each chunk exactly the events it emitted between two rotations;
# automatic rotation by time makes chunks, and loses nothing either.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/out
K=5000	# harsh-app's events per chunk
new_session "$D" 'shmtrace_test:*'
# one program emits at full speed across the rotations (about 0.2 s or
# more), one emits K events and waits before each rotation, one short
# one runs in each chunk
gen_bg g ready -w -n 100000 -t 2 -s 4 -p 2000
LONG=$IDLE_PID
harsh_start h emit:$K ready emit:$K ready emit:$K ready emit:$K done
release_idle g
short=
for i in 1 2 3; do
	harsh_expect h ready
	"$GEN" -n 1000 -t 1 & short="$short $!"
	wait $!	|| fail "gen-events failed"
	sleep 0.1
	ctl_json "$WORK/rot" rotate s || fail "rotation $i failed: $(cat "$WORK/rot")"
	[ "$(jget "$WORK/rot" rotation chunk)" = $((i - 1)) ] &&
		[ "$(jget "$WORK/rot" rotation path)" = "$D/chunk-$((i - 1))" ] &&
		[ -d "$D/chunk-$((i - 1))" ] || fail "rotation $i: $(cat "$WORK/rot")"
	harsh_go h
done
harsh_expect h done
"$GEN" -n 1000 -t 1 & short="$short $!"
wait $! || fail "gen-events failed"
wait "$LONG" || fail "gen-events failed"
harsh_go h
harsh_expect h "emitted $((4 * K))"
harsh_wait h
[ "$HSTATUS" -eq 0 ] || fail "harsh-app exited $HSTATUS"
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null
ls -d "$D"/chunk-* | awk -F'chunk-' '{ print $NF, $0 }' | sort -n | cut -d' ' -f2- >"$WORK/chunks"
[ "$(wc -l <"$WORK/chunks")" -eq 4 ] || fail "$(wc -l <"$WORK/chunks") chunks, expected 4: $(ls "$D")"
left=$(find "$D" -mindepth 1 -maxdepth 1 ! -name 'chunk-*')
[ -z "$left" ] || fail "left outside the chunks: $left"

# chunk pid thread seq of every event, chunk by chunk
: >"$WORK/all"
k=0
while read -r c; do
	k=$((k + 1))
	"$BT" "$c" >"$WORK/c.out" 2>"$WORK/c.err" || fail "babeltrace2 failed on $c: $(head -3 "$WORK/c.err")"
	[ ! -s "$WORK/c.err" ] || fail "babeltrace2 on $c: $(head -3 "$WORK/c.err")"
	"$TRACE_READ" --format json -e shmtrace_test:event "$c" >"$WORK/c.json" 2>"$WORK/c.err" ||
		fail "trace-read failed on $c: $(head -3 "$WORK/c.err")"
	[ "$(grep -c 'shmtrace_test:event' "$WORK/c.out" || true)" -eq "$(wc -l <"$WORK/c.json")" ] ||
		fail "$c: babeltrace2 and trace-read disagree"
	sed 's/.*"pid":\([0-9]*\),.*"fields":{"seq":\([0-9]*\),"thread":\([0-9]*\),.*/\1 \3 \2/' \
		"$WORK/c.json" | awk -v k=$k '{ print k, $0 }' >>"$WORK/all"
	echo "$(basename "$c"): $(wc -l <"$WORK/c.json") events"
done <"$WORK/chunks"

# each (pid, thread, seq) once; each process's threads complete
n=$(wc -l <"$WORK/all")
[ "$n" -eq $((200000 + 4000 + 4 * K)) ] || fail "the chunks hold $n events, expected $((200000 + 4000 + 4 * K))"
[ "$(awk '{ print $2, $3, $4 }' "$WORK/all" | sort -u | wc -l)" -eq "$n" ] ||
	fail "events repeated across the chunks"
expect_all() {	# PID THREADS COUNT
	awk -v p="$1" -v T="$2" -v C="$3" '
		$2 == p { if ($3 >= T || $4 >= C) bad = 1; n++ }
		END { exit bad || n != T * C }' "$WORK/all" ||
		fail "process $1: not threads 0..$(($2 - 1)) with seq 0..$(($3 - 1)) each"
}
expect_all "$LONG" 2 100000
for p in $short; do
	expect_all "$p" 1 1000
done
expect_all "$HPID_h" 1 $((4 * K))
# the program that waited: chunk k holds its seq (k-1)K..kK-1, nothing else
awk -v p="$HPID_h" -v K=$K '$2 == p && int($4 / K) + 1 != $1 { exit 1 }' "$WORK/all" ||
	fail "harsh-app's events are not in the chunk of their rotation"
"$TRACE_READ" --stats=count "$D" >"$WORK/count" || fail "trace-read of all chunks failed"
[ "$(awk '$2 == "shmtrace_test:event" { print $1 }' "$WORK/count")" = "$n" ] ||
	fail "trace-read of all chunks: $(cat "$WORK/count")"
spans=$(awk -v p="$LONG" '$2 == p { c[$1] = 1 } END { print length(c) }' "$WORK/all")
echo "the program at full speed spans $spans chunks, the one that waited 4"

# automatic rotation every 300 ms
new_session "$WORK/auto" 'shmtrace_test:*'
"$TRACECTL" rotate -s s --every 300ms >/dev/null || fail "--every refused"
gen_bg a ready -w -n 20000 -t 1
release_idle a
wait "$IDLE_PID"
sleep 1
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null
[ "$(ls -d "$WORK/auto"/chunk-* | wc -l)" -ge 3 ] || fail "automatic rotation: $(ls "$WORK/auto")"
na=$(bt_count "$WORK/auto" shmtrace_test:event)
[ "$na" -eq 20000 ] || fail "automatic rotation: $na events, expected 20000"
check_seqs "$WORK/bt.out" 1 20000
echo "ok: $n events in 4 chunks, each once"
