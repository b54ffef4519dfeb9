#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A memory-only session (create --snapshot): its channels overwrite (the
# default channel too; --discard is refused, and so are chunks), and
# nothing is written (the output absent or empty) until a snapshot, which
# holds the newest events of every thread in order, the last of each
# idle thread included (its open packet), read alike by trace-read and
# babeltrace2, as many as status said the buffers held. clear: the next
# snapshot holds only newer events (none: nothing to snapshot). A
# process that exited just before a snapshot is in it; after its
# channel's flush interval it is not. --max-size: the files of the
# snapshot hold at most SIZE bytes, the newest packets first, each
# thread's a contiguous run up to its newest event; too small: refused.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/out

# no_output: nothing of the session in D yet
no_output() {
	[ ! -e "$D" ] || [ -z "$(find "$D" -mindepth 1 -maxdepth 1 ! -name 'snapshot-*' -print -quit)" ] ||
		fail "$1: the output holds $(find "$D" -mindepth 1 | head -5 | tr '\n' ' ')"
}

# counts DIR: "trace-read babeltrace2" counts of shmtrace_test:event in DIR
counts() {
	local tr
	tr=$("$TRACE_READ" --stats=count "$1" 2>"$WORK/tr.err" |
		awk '$2 == "shmtrace_test:event" { print $1 }') || fail "trace-read $1: $(head -3 "$WORK/tr.err")"
	echo "${tr:-0} $(bt_count "$1" shmtrace_test:event)"
}

# runs DIR PID: "thread lo hi count" per thread of PID's events in DIR, in
# the time order trace-read gives: each thread's seq one more than its last
runs() {
	"$TRACE_READ" --pid "$2" "$1" >"$WORK/runs.txt" 2>"$WORK/tr.err" ||
		fail "trace-read $1: $(head -3 "$WORK/tr.err")"
	seq_pairs "$WORK/runs.txt" | awk '
		($1 in hi) && $2 != hi[$1] + 1 { print "thread " $1 ": seq " $2 " after " hi[$1] >"/dev/stderr"; bad = 1 }
		!($1 in lo) { lo[$1] = $2 }
		{ hi[$1] = $2; n[$1]++ }
		END { for (t in lo) print t, lo[t], hi[t], n[t]; exit bad }' | sort -n ||
		fail "$1: the events of process $2 are not in order"
}

# memory_field SESSION CHANNEL FIELD: FIELD of the channel's memory, from a status now
memory_field() {
	status_json "$WORK/memory_field.json" "$1" || fail "status $1 failed"
	jget "$WORK/memory_field.json" sessions "$1" channels "$2" memory "$3"
}

# bytes DIR: bytes of the files under DIR
bytes() {
	find "$1" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'
}

"$TRACECTL" create fr --snapshot --output "$D" >/dev/null || fail "create --snapshot failed"
status_json "$WORK/st.json" fr || fail "status failed"
[ "$(jget "$WORK/st.json" sessions fr memory_only)" = true ] &&
	[ "$(jget "$WORK/st.json" sessions fr defaults mode)" = overwrite ] ||
	fail "not a memory-only session of overwrite channels: $(cat "$WORK/st.json")"
rc=0
ctl_json "$WORK/o.json" enable-channel -s fr c --discard || rc=$?
[ "$rc" -eq 1 ] && [ "$(error_code "$WORK/o.json")" = memory-only-discard ] ||
	fail "a discard channel in a memory-only session: exit $rc: $(cat "$WORK/o.json")"
"$TRACECTL" create fr --snapshot --discard >/dev/null 2>&1 && fail "create --snapshot --discard taken"
# a channel of its own (4 sub-buffers of 64 KiB per thread; the buffers of
# a process gone kept 30 s), and the default channel of another session
ctl_json "$WORK/c.json" enable-channel -s fr c --subbuf-size 64k --num-subbuf 4 --flush-interval 30s ||
	fail "enable-channel failed: $(cat "$WORK/c.json")"
[ "$(jget "$WORK/c.json" channels @0 mode)" = overwrite ] || fail "channel c: $(cat "$WORK/c.json")"
"$TRACECTL" create fr0 --snapshot --output "$WORK/out0" >/dev/null &&
	"$TRACECTL" enable-event -s fr0 'shmtrace_test:*' >/dev/null || fail "session fr0"
[ "$(status_field fr0 channel0 mode)" = overwrite ] || fail "fr0's channel0 does not overwrite"
"$TRACECTL" destroy fr0 >/dev/null
"$TRACECTL" enable-event -s fr -c c 'shmtrace_test:*' >/dev/null &&
	"$TRACECTL" start fr >/dev/null || fail "cannot start fr"
rc=0
ctl_json "$WORK/o.json" rotate fr || rc=$?
[ "$rc" -eq 1 ] && [ "$(error_code "$WORK/o.json")" = memory-only ] ||
	fail "rotate of a memory-only session: exit $rc: $(cat "$WORK/o.json")"
rc=0
"$TRACECTL" view fr >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 1 ] || fail "view of a memory-only session: exit $rc"

# 1. four threads, more events than their buffers hold, then idle
N=20000
gen_idle a -n $N -t 4
A=$IDLE_PID
no_output "after the events"
status_json "$WORK/st.json" fr || fail "status failed"
held=$(jget "$WORK/st.json" sessions fr channels c memory held_events)
over=$(jget "$WORK/st.json" sessions fr channels c overwritten)
[ "$(jget "$WORK/st.json" sessions fr channels c recorded)" -eq 0 ] &&
	[ "$(jget "$WORK/st.json" sessions fr channels c bytes)" -eq 0 ] || fail "something was written"
[ "$held" -gt 0 ] && [ "$over" -gt 0 ] && [ $((held + over)) -eq $((4 * N)) ] ||
	fail "held $held + overwritten $over != $((4 * N))"
[ "$(jget "$WORK/st.json" sessions fr channels c memory resident_bytes)" -gt 0 ] ||
	fail "no memory held: $(cat "$WORK/st.json")"
b=$(jget "$WORK/st.json" sessions fr channels c memory window_begin_ns)
e=$(jget "$WORK/st.json" sessions fr channels c memory window_end_ns)
now=$(date +%s%N)
[ "$b" -le "$e" ] && [ "$e" -le $((now + 1000000000)) ] && [ "$b" -ge $((now - 600000000000)) ] ||
	fail "window $b..$e (now $now)"
[ "$(jget "$WORK/st.json" sessions fr channels c memory window_ns)" -eq $((e - b)) ] || fail "window_ns"
"$TRACECTL" status fr | grep -q 'window: ' || fail "status text: no window"

ctl_json "$WORK/s1.json" snapshot fr || fail "snapshot failed: $(cat "$WORK/s1.json")"
S1=$(jget "$WORK/s1.json" snapshot path)
case $S1 in "$D"/snapshot-1-*) ;; *) fail "snapshot 1 at $S1" ;; esac
[ "$(jget "$WORK/s1.json" snapshot inside_output)" = false ] || fail "$(cat "$WORK/s1.json")"
read -r tr bt <<<"$(counts "$S1")"
echo "snapshot 1: trace-read $tr, babeltrace2 $bt, status said $held held, $over overwritten"
[ "$tr" -eq "$bt" ] && [ "$tr" -eq "$held" ] || fail "snapshot 1: trace-read $tr, babeltrace2 $bt, held $held"
runs "$S1" "$A" >"$WORK/runs1"
[ "$(awk '{ print $1 ":" $3 }' "$WORK/runs1" | tr '\n' ' ')" = "0:$((N - 1)) 1:$((N - 1)) 2:$((N - 1)) 3:$((N - 1)) " ] ||
	fail "snapshot 1: not every thread up to its last event: $(cat "$WORK/runs1")"
no_output "after snapshot 1"

# 2. clear: nothing older in the next snapshot
ctl_json "$WORK/clear.json" clear fr || fail "clear failed: $(cat "$WORK/clear.json")"
cleared=$(jget "$WORK/clear.json" sessions fr channels c cleared)
[ "$cleared" -gt 0 ] && [ "$cleared" -le "$held" ] || fail "cleared $cleared of $held"
[ "$(status_field fr c cleared)" -eq "$cleared" ] ||
	fail "status: cleared $(status_field fr c cleared)"
status_json "$WORK/st.json" fr || fail "status failed"
[ "$(jget "$WORK/st.json" sessions fr channels c memory held_events)" -eq 0 ] &&
	[ "$(jget "$WORK/st.json" sessions fr channels c memory window_ns)" = null ] ||
	fail "the buffers still hold events after clear: $(cat "$WORK/st.json")"
rc=0
ctl_json "$WORK/o.json" snapshot fr --output "$WORK/none" || rc=$?
[ "$rc" -eq 1 ] && [ "$(error_code "$WORK/o.json")" = snapshot-empty ] && [ ! -e "$WORK/none" ] ||
	fail "snapshot after clear, nothing new: exit $rc: $(cat "$WORK/o.json")"
# a process that runs and exits: in the next snapshot, alone
"$GEN" -n 1000 -t 2 || fail "gen-events failed"
ctl_json "$WORK/s2.json" snapshot fr --output "$WORK/after" || fail "snapshot 2 failed: $(cat "$WORK/s2.json")"
traces=$(cd "$WORK/after" && echo *)
case $traces in gen-events-*) [ "$traces" != "gen-events-$A" ] ;; *) false ;; esac ||
	fail "snapshot 2 holds $traces, not only the process that exited"
B=${traces#gen-events-}
read -r tr bt <<<"$(counts "$WORK/after")"
[ "$tr" -eq 2000 ] && [ "$bt" -eq 2000 ] || fail "snapshot 2: trace-read $tr, babeltrace2 $bt, 2000 emitted"
[ "$(runs "$WORK/after" "$B" | tr '\n' ' ')" = "0 0 999 1000 1 0 999 1000 " ] ||
	fail "snapshot 2: $(runs "$WORK/after" "$B")"
# (the session daemon may see it go after the snapshot: it is in it either way)
for _ in $(seq 50); do
	[ "$(memory_field fr c processes_gone_kept)" -ge 1 ] && break
	sleep 0.1
done
[ "$(memory_field fr c processes_gone_kept)" -ge 1 ] || fail "no process gone kept"
echo "clear: $cleared events discarded; snapshot 2: the $tr events of process $B, which exited"

# 3. --max-size: two programs, one after the other; the bound takes the
# newer one's events first
"$TRACECTL" clear fr >/dev/null || fail "clear failed"
gen_idle c1 -n 2000 -t 2
C1=$IDLE_PID
sleep 0.2
gen_idle c2 -n 2000 -t 2
C2=$IDLE_PID
ctl_json "$WORK/full.json" snapshot fr --output "$WORK/full" || fail "full snapshot failed"
max=$(($(bytes "$WORK/full/gen-events-$C2") + 4096))
ctl_json "$WORK/small.json" snapshot fr --output "$WORK/small" --max-size "$max" ||
	fail "snapshot --max-size $max failed: $(cat "$WORK/small.json")"
got=$(bytes "$WORK/small")
[ "$got" -le "$max" ] || fail "snapshot --max-size $max: $got bytes"
read -r tr bt <<<"$(counts "$WORK/small")"
[ "$tr" -eq "$bt" ] || fail "bounded snapshot: trace-read $tr, babeltrace2 $bt"
[ "$(runs "$WORK/small" "$C2" | tr '\n' ' ')" = "0 0 1999 2000 1 0 1999 2000 " ] ||
	fail "the newer program is not whole in the bounded snapshot: $(runs "$WORK/small" "$C2")"
c1=0
if [ -d "$WORK/small/gen-events-$C1" ]; then
	runs "$WORK/small" "$C1" >"$WORK/runs.c1"
	awk '$3 != 1999 { exit 1 }' "$WORK/runs.c1" || fail "the older program's newest events missing: $(cat "$WORK/runs.c1")"
	c1=$(awk '{ s += $4 } END { print s + 0 }' "$WORK/runs.c1")
fi
[ "$c1" -lt 4000 ] || fail "the older program is whole in a snapshot bounded by the newer one's size"
[ -z "$(find "$WORK/small" -mindepth 1 -maxdepth 1 ! -name "gen-events-$C1" ! -name "gen-events-$C2")" ] ||
	fail "the bounded snapshot holds $(ls "$WORK/small")"
echo "--max-size $max: $got bytes, $tr events: all 4000 of the newer program, $c1 of the older"
rc=0
ctl_json "$WORK/o.json" snapshot fr --output "$WORK/tiny" --max-size 1k || rc=$?
[ "$rc" -eq 1 ] && [ "$(error_code "$WORK/o.json")" = snapshot-too-small ] && [ ! -e "$WORK/tiny" ] ||
	fail "snapshot --max-size 1k: exit $rc: $(cat "$WORK/o.json")"
"$TRACECTL" snapshot fr --max-size 0 >/dev/null 2>&1 && fail "--max-size 0 taken"

# 4. a process gone is kept for its channel's flush interval (200 ms: at
# least 1 s), not longer
"$TRACECTL" create ex --snapshot --output "$WORK/ex" >/dev/null &&
	"$TRACECTL" enable-channel -s ex e --subbuf-size 64k --num-subbuf 4 --flush-interval 200ms >/dev/null &&
	"$TRACECTL" enable-event -s ex -c e 'shmtrace_test:*' >/dev/null &&
	"$TRACECTL" start ex >/dev/null || fail "session ex"
"$GEN" -n 100 -t 1 || fail "gen-events failed"
sleep 2.5
rc=0
ctl_json "$WORK/o.json" snapshot ex || rc=$?
[ "$rc" -eq 1 ] && [ "$(error_code "$WORK/o.json")" = snapshot-empty ] ||
	fail "a process gone 2.5 s ago, kept 1 s, still in a snapshot: exit $rc: $(cat "$WORK/o.json")"
[ "$(memory_field ex e processes_gone_kept)" -eq 0 ] || fail "still kept"

for t in a c1 c2; do
	release_idle $t
done
wait || true
"$TRACECTL" stop fr >/dev/null && "$TRACECTL" destroy fr >/dev/null && "$TRACECTL" destroy ex >/dev/null ||
	fail "stop, destroy failed"
# the output: the snapshots, and nothing else
[ "$(ls -A "$D")" = "$(basename "$S1")" ] || fail "the output holds $(ls -A "$D")"
[ ! -e "$WORK/ex" ] || fail "session ex wrote $(ls -A "$WORK/ex")"
echo "ok"
