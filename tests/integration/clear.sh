#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tracectl clear of a session written to files: the traces of its current
# chunk are removed (the chunks of earlier rotations stay), counted in
# `cleared`, and recording goes on into new traces. While a program
# traces at full speed through two clears, every event it emitted is on
# disk once, or counted (cleared, discarded, lost): on disk = recorded -
# cleared, and recorded + discarded + lost = emitted. A clear before
# anything was written writes nothing.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/out

# on_disk: events trace-read and babeltrace2 read in D (the same, or fail)
on_disk() {
	local tr bt
	tr=$("$TRACE_READ" --stats=count "$D" 2>"$WORK/tr.err" | awk '$2 == "total" { print $1 }') ||
		fail "trace-read: $(head -3 "$WORK/tr.err")"
	bt_read "$D"
	bt=$(grep -c " shmtrace_test:event: " "$WORK/bt.out" || true)
	[ "$tr" -eq "$bt" ] || fail "trace-read $tr, babeltrace2 $bt"
	echo "$tr"
}

# recorded_is N: wait (5 s at most) until channel c counts N events recorded
recorded_is() {
	for _ in $(seq 50); do
		[ "$(status_field s c recorded)" -eq "$1" ] && return 0
		sleep 0.1
	done
	fail "recorded $(status_field s c recorded), expected $1"
}

"$TRACECTL" create s --output "$D" >/dev/null &&
	"$TRACECTL" enable-channel -s s c --subbuf-size 64k --num-subbuf 8 >/dev/null &&
	"$TRACECTL" enable-event -s s -c c 'shmtrace_test:*' >/dev/null || fail "cannot set up s"
ctl_json "$WORK/c0.json" clear s || fail "clear of a new session failed"
[ ! -e "$D" ] || fail "clear of a session that wrote nothing made $(ls -A "$D")"
"$TRACECTL" start s >/dev/null || fail "start failed"

# a chunk closed, then a program alive and idle whose events are on disk
"$GEN" -n 3000 -t 2 || fail "gen-events failed"
recorded_is 6000
"$TRACECTL" rotate s >/dev/null || fail "rotate failed"
gen_idle g -n 3000 -t 2
recorded_is 12000
[ -n "$(find "$D" -maxdepth 1 -name 'gen-events-*')" ] || fail "no trace in the output"

ctl_json "$WORK/c1.json" clear s || fail "clear failed: $(cat "$WORK/c1.json")"
[ "$(jget "$WORK/c1.json" sessions s channels c cleared)" -eq 6000 ] ||
	fail "cleared $(jget "$WORK/c1.json" sessions s channels c cleared), expected 6000"
[ -z "$(find "$D" -mindepth 1 -maxdepth 1 ! -name chunk-0 ! -name '.shmtrace-active')" ] ||
	fail "after clear the output holds $(ls -A "$D")"
[ "$(on_disk)" -eq 6000 ] || fail "the chunk closed before the clear is not whole"
release_idle g
wait "$IDLE_PID" || fail "gen-events failed"

# more_recorded: wait (5 s at most) until channel c counts more events recorded
more_recorded() {
	local base
	base=$(status_field s c recorded)
	for _ in $(seq 100); do
		[ "$(status_field s c recorded)" -gt "$base" ] && return 0
		sleep 0.05
	done
	fail "nothing more recorded than $base"
}

# a program at full speed (in bursts) through two clears, each once some
# of its events were written
N=200000
"$GEN" -n $N -t 2 -p 20000 &
busy=$!
more_recorded
"$TRACECTL" clear s >/dev/null || fail "clear 2 failed"
more_recorded
"$TRACECTL" clear s >/dev/null || fail "clear 3 failed"
after=0
kill -0 "$busy" 2>/dev/null && after=1	# it still emits: some after the clears
wait "$busy" || fail "gen-events failed"
"$TRACECTL" stop s >/dev/null || fail "stop failed"
status_json "$WORK/st.json" s || fail "status failed"
rec=$(jget "$WORK/st.json" sessions s channels c recorded)
clr=$(jget "$WORK/st.json" sessions s channels c cleared)
disc=$(jget "$WORK/st.json" sessions s channels c discarded)
lost=$(($(jget "$WORK/st.json" sessions s channels c lost_without_buffer) +
	$(jget "$WORK/st.json" sessions s channels c lost_to_write_errors)))
disk=$(on_disk)
emitted=$((12000 + 2 * N))
echo "emitted $emitted: recorded $rec (on disk $disk, cleared $clr), discarded $disc, lost $lost"
[ "$disk" -eq $((rec - clr)) ] || fail "on disk $disk, recorded $rec - cleared $clr"
[ $((rec + disc + lost)) -eq "$emitted" ] || fail "recorded $rec + discarded $disc + lost $lost != $emitted"
[ "$clr" -gt 6000 ] || fail "the clears during the program discarded nothing"
[ "$after" -eq 0 ] || [ "$disk" -gt 6000 ] || fail "nothing of the program after the clears is on disk"
# what is on disk of the busy program: each thread's events in order, once
seq_pairs "$WORK/bt.out" | awk -v N=$N '
	$2 >= N { exit 1 }
	($1 in last) && $2 <= last[$1] { exit 1 }
	{ last[$1] = $2 }' || fail "events repeated or out of order on disk"
[ ! -e "$D/.shmtrace-clear" ] || fail "the clear's directory is left"
"$TRACECTL" destroy s >/dev/null || fail "destroy failed"
echo "ok"
