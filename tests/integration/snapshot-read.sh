#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Snapshots are traces of their own: a new uuid per process trace, by
# default next to the session's output and not in it, so that reading the
# output reads every event once, and trace-read and babeltrace2 count the
# same events in the output, in a snapshot, and in an output that holds a
# snapshot (--output inside it). With no process to snapshot (none yet, or
# all gone): an error, and no directory made.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/out
# counts DIR: "trace-read babeltrace2" event counts of DIR
counts() {
	local tr
	tr=$("$TRACE_READ" --stats=count "$1" 2>"$WORK/tr.err" | awk '$2 == "total" { print $1 }') ||
		fail "trace-read $1: $(head -3 "$WORK/tr.err")"
	echo "$tr $(bt_count "$1" shmtrace_test:event)"
}
# nothing_to_snapshot ARGS: snapshot fails, makes no directory
nothing_to_snapshot() {
	local rc=0 before
	before=$(ls -d "$D"-snapshot-* "$D"/snapshot-* "$WORK/none" 2>/dev/null || true)
	"$TRACECTL" snapshot s "$@" --format json >"$WORK/o" 2>/dev/null || rc=$?
	[ "$rc" -eq 1 ] && [ "$(error_code "$WORK/o")" = snapshot-empty ] ||
		fail "snapshot with no process: exit status $rc: $(cat "$WORK/o")"
	[ "$(ls -d "$D"-snapshot-* "$D"/snapshot-* "$WORK/none" 2>/dev/null || true)" = "$before" ] ||
		fail "snapshot with no process made $(ls -d "$D"-snapshot-* "$D"/snapshot-* "$WORK/none" 2>/dev/null)"
}
"$TRACECTL" create s --output "$D" --overwrite >/dev/null
"$TRACECTL" enable-event -s s 'shmtrace_test:*' >/dev/null
"$TRACECTL" start s >/dev/null
nothing_to_snapshot
nothing_to_snapshot --output "$WORK/none"

gen_idle g -n 3000 -t 2
ctl_json "$WORK/snap.out" snapshot s || fail "snapshot failed"
S=$(jget "$WORK/snap.out" snapshot path)
[ "$(jget "$WORK/snap.out" snapshot inside_output)" = false ] || fail "$(cat "$WORK/snap.out")"
[ -d "$S" ] || fail "no snapshot: $(cat "$WORK/snap.out")"
case "$S/" in "$D"/*) fail "the default snapshot $S is inside the output $D" ;; esac
"$TRACECTL" snapshot s --output "$D/inside" >/dev/null || fail "snapshot --output failed"
release_idle g
wait "$IDLE_PID" || fail "gen-events failed"
"$TRACECTL" stop s >/dev/null || fail "stop failed"
nothing_to_snapshot
"$TRACECTL" destroy s >/dev/null

# every snapshot trace has a uuid of its own
uuids=$(for m in "$D"/gen-events-*/metadata "$D"/inside/*/metadata "$S"/*/metadata; do
	awk '/^trace \{/ { t = 1 } t && /uuid = / { print $3; exit }' "$m"
done)
[ "$(echo "$uuids" | wc -l)" -eq 3 ] || fail "not 3 traces: $uuids"
[ "$(echo "$uuids" | sort -u | wc -l)" -eq 3 ] || fail "traces share a uuid: $uuids"

read -r tr bt <<<"$(counts "$S")"
echo "default snapshot $S: trace-read $tr, babeltrace2 $bt"
[ "$tr" -eq "$bt" ] && [ "$tr" -gt 0 ] || fail "snapshot: trace-read $tr, babeltrace2 $bt"
read -r tr2 bt2 <<<"$(counts "$D/inside")"
[ "$tr2" -eq "$bt2" ] && [ "$tr2" -gt 0 ] || fail "snapshot inside: trace-read $tr2, babeltrace2 $bt2"
# the output: every event once, and the snapshot inside it on its own
read -r tr3 bt3 <<<"$(counts "$D")"
echo "output with a snapshot inside: trace-read $tr3, babeltrace2 $bt3"
[ "$tr3" -eq "$bt3" ] || fail "output: trace-read $tr3, babeltrace2 $bt3"
[ "$tr3" -eq $((6000 + tr2)) ] || fail "output: $tr3 events, expected 6000 + $tr2"
rm -rf "${D:?}/inside"
read -r tr4 bt4 <<<"$(counts "$D")"
[ "$tr4" -eq 6000 ] && [ "$bt4" -eq 6000 ] || fail "output: trace-read $tr4, babeltrace2 $bt4, emitted 6000"
echo "ok"
