#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An event trigger takes a snapshot (acceptance 2 of triggers): with
# add-trigger t1 --on-event shmtrace_test:event --filter 'seq == 4000'
# --action snapshot-session fr, while gen-events emits seq 0..4999,
# exactly one snapshot appears, readable, holding seq 4000 and every
# event before it; list-triggers counts one match and one firing, and
# names the snapshot.
. "$(dirname "$0")/lib.sh"
need_babeltrace
# the session's mode: a flight recorder, memory-only (FR_MODE=--overwrite:
# one that writes its trace too)
FR_MODE=${FR_MODE:---snapshot}
start_daemons
"$TRACECTL" create fr --output "$WORK/out" "$FR_MODE" >/dev/null &&
	"$TRACECTL" enable-event -s fr 'shmtrace_test:event' >/dev/null &&
	"$TRACECTL" start fr >/dev/null || fail "cannot set up session fr"
ctl_json "$WORK/add.json" add-trigger t1 --on-event 'shmtrace_test:event' --filter 'seq == 4000' \
	--action snapshot-session fr || fail "add-trigger failed: $(cat "$WORK/add.json")"
[ "$(jget "$WORK/add.json" triggers t1 action kind)" = snapshot-session ] || fail "$(cat "$WORK/add.json")"
"$GEN" -n 5000 -s 8 || fail "gen-events failed"
# the firing is acted on by the loop of the session daemon: wait for it
for _ in $(seq 100); do
	ctl_json "$WORK/list.json" list-triggers || fail "list-triggers failed"
	[ "$(jget "$WORK/list.json" triggers t1 fired)" -ge 1 ] && break
	sleep 0.1
done
[ "$(jget "$WORK/list.json" triggers t1 fired)" -eq 1 ] || fail "fired: $(cat "$WORK/list.json")"
[ "$(jget "$WORK/list.json" triggers t1 failed)" -eq 0 ] || fail "failed: $(cat "$WORK/list.json")"
snap=$(jget "$WORK/list.json" triggers t1 last_firing path)
# beside the output (a written session), or in it (a memory-only one)
mapfile -t snaps < <(find "$WORK" -maxdepth 1 -name 'out-snapshot-*'
	find "$WORK/out" -maxdepth 1 -name 'snapshot-*' 2>/dev/null)
[ "${#snaps[@]}" -eq 1 ] || fail "${#snaps[@]} snapshots: ${snaps[*]}"
[ "${snaps[0]}" = "$snap" ] || fail "the snapshot is ${snaps[0]}, the trigger says $snap"
bt_read "$snap"
seq_pairs "$WORK/bt.out" | awk '
	$1 != 0 { print "thread " $1; exit 1 }
	{ if (seen[$2]++) { print "seq " $2 " twice"; exit 1 } }
	END { for (i = 0; i <= 4000; i++) if (!(i in seen)) { print "seq " i " missing"; exit 1 } }' >&2 ||
	fail "the snapshot does not hold seq 0..4000 once each"
if [ "$FR_MODE" = --snapshot ]; then	# nothing written but the snapshot
	left=$(find "$WORK/out" -mindepth 1 -maxdepth 1 ! -path "$snap")
	[ -z "$left" ] || fail "a memory-only session wrote more than its snapshot: $left"
fi
"$TRACECTL" stop fr >/dev/null
"$TRACECTL" destroy fr >/dev/null
echo "ok: one snapshot, seq 0..4000 in it ($(seq_pairs "$WORK/bt.out" | wc -l) events)"
