#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The traced program dies in full flight (SIGKILL, SIGSEGV, abort), its
# threads anywhere, even between reserving an event and committing it.
# Each thread counted the events that returned, in a file that outlives
# the program: its trace holds exactly seq 0..count-1, plus the event it
# may have finished just before dying, in order, and babeltrace2 reads the
# trace without complaint. Should the machine be too slow for the consumer
# to keep up, the trace says how many events were discarded (as status
# does): every thread's seq is still increasing and never beyond what
# returned, and the gaps and the events recorded add up with them.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
ulimit -c 0
i=0
for run in "kill 60" "segv 120" "abort 180" "kill 240"; do
	read -r how ms <<<"$run"
	i=$((i + 1))
	D=$WORK/out$i
	"$TRACECTL" create c$i --output "$D" >/dev/null &&
		"$TRACECTL" enable-event -s c$i 'shmtrace_test:*' >/dev/null &&
		"$TRACECTL" start c$i >/dev/null || fail "cannot set up session c$i"
	"$B/tests/apps/crash-events" 4 "$how" "$WORK/counts$i" "$ms" 2>/dev/null &&
		fail "crash-events did not die ($how)"
	"$TRACECTL" stop c$i >/dev/null
	status_json "$WORK/status$i.json" c$i || fail "status c$i failed"
	"$TRACECTL" destroy c$i >/dev/null
	disc=$(jget "$WORK/status$i.json" sessions c$i channels channel0 discarded)
	nobuf=$(jget "$WORK/status$i.json" sessions c$i channels channel0 lost_without_buffer)
	bt_read "$D"
	[ "$BT_DISC" -eq $((disc + nobuf)) ] ||
		fail "run $i: the trace says $BT_DISC discarded, status $disc (+ $nobuf without a buffer)"
	disc=$BT_DISC
	n=$(grep -c " shmtrace_test:event: " "$WORK/bt.out" || true)
	od -An -v -tu8 -w8 "$WORK/counts$i" | awk '{ print NR - 1, $1 }' >"$WORK/c$i"
	[ "$(wc -l <"$WORK/c$i")" -eq 4 ] || fail "count file of run $i"
	# per thread: events in time order, count, highest seq, order kept
	seq_pairs "$WORK/bt.out" | awk '
		{ if ($1 in n && $2 <= last[$1]) bad[$1] = 1
		  n[$1]++; last[$1] = $2 }
		END { for (t = 0; t < 4; t++) print t, n[t] + 0, (t in last) ? last[t] : -1, bad[t] + 0 }' \
		>"$WORK/t$i"
	[ "$(awk '{ s += $2 } END { print s + 0 }' "$WORK/t$i")" -eq "$n" ] ||
		fail "run $i: events of threads other than 0-3"
	# per thread: increasing seq (so each at most once), none beyond the
	# one in flight (seq c); gaps below the highest only where discarded
	total=0 gaps=0 extra=0
	while read -r t c; do
		read -r _ got top disorder < <(awk -v t="$t" '$1 == t' "$WORK/t$i")
		[ "$c" -gt 1000 ] || fail "run $i thread $t: only $c events before the $how"
		[ "$disorder" -eq 0 ] || fail "run $i thread $t: seq not increasing"
		[ "$top" -le "$c" ] || fail "run $i thread $t: seq $top recorded, only $c returned"
		[ "$top" -ne "$c" ] || extra=$((extra + 1))
		gaps=$((gaps + top + 1 - got))
		if [ "$disc" -eq 0 ]; then
			[ "$got" -eq "$c" ] || [ "$got" -eq $((c + 1)) ] ||
				fail "run $i thread $t: $got events in the trace, $c returned ($how)"
		fi
		total=$((total + c))
	done <"$WORK/c$i"
	[ "$gaps" -le "$disc" ] || fail "run $i: $gaps events missing below the threads' last, $disc discarded"
	# what returned, and the events in flight that were recorded, are all
	# recorded or discarded; at most one more per thread may be discarded
	[ $((n + disc)) -ge $((total + extra)) ] && [ $((n + disc)) -le $((total + 4)) ] ||
		fail "run $i: $n recorded + $disc discarded, $total returned, $extra in flight recorded"
	echo "run $i ($how after $ms ms): $n events recorded, $disc discarded, $total returned"
done
echo "ok"
