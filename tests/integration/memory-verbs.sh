#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The session verbs on a memory-only session: regenerate statedump puts a
# whole state dump again in its buffers (a snapshot holds both);
# disable-channel stops a channel's recording, and what its buffers held
# stays in the snapshots; after a clear, regenerate gives the next
# snapshot the state dump that the clear discarded. A trigger acting on
# the cleared session: its snapshot holds the triggering event and the
# events after the clear only; fired by a process the session does not
# record, with nothing held since the clear, its action fails and says
# so (failed, last_firing's errno), and it fires again once there is.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/out

# wait_field FILE TRIGGER FIELD WANT: list-triggers until FIELD of TRIGGER is WANT (10 s)
wait_field() {
	for _ in $(seq 100); do
		ctl_json "$1" list-triggers || fail "list-triggers failed"
		[ "$(jget_or none "$1" triggers "$2" "$3")" = "$4" ] && return 0
		sleep 0.1
	done
	fail "trigger $2: $3 is not $4: $(cat "$1")"
}
# count DIR NAME: events NAME in DIR, as trace-read and babeltrace2 both count them
count() {
	local tr bt
	tr=$("$TRACE_READ" --stats=count "$1" 2>"$WORK/tr.err" | awk -v e="$2" '$2 == e { print $1 }') ||
		fail "trace-read $1: $(head -3 "$WORK/tr.err")"
	bt=$(bt_count "$1" "$2")
	[ "${tr:-0}" -eq "$bt" ] || fail "$1: $2: trace-read ${tr:-0}, babeltrace2 $bt"
	echo "$bt"
}
# dumps_whole DIR: each state dump in DIR is whole (start, bin_info..., end)
dumps_whole() {
	"$TRACE_READ" --event 'shmtrace_statedump:*' "$1" | awk '
		/ shmtrace_statedump:start:/ { if (open) exit 1; open = 1; n = 0; next }
		/ shmtrace_statedump:bin_info:/ { if (!open) exit 1; n++; next }
		/ shmtrace_statedump:end:/ { if (!open || n == 0) exit 1; open = 0; d++ }
		END { if (open || d == 0) exit 1 }' || fail "$1: a state dump not whole"
}
# seqs DIR: "lo hi" of the shmtrace_test:event seqs in DIR
seqs() {
	"$TRACE_READ" --event 'shmtrace_test:event' "$1" >"$WORK/seqs.txt" || fail "trace-read $1"
	sed -n 's/.*seq = \([0-9]*\).*/\1/p' "$WORK/seqs.txt" | sort -n | sed -n '1p;$p' | tr '\n' ' '
}

# hot records the test events and the state dumps; cold the test events too
"$TRACECTL" create fr --snapshot --output "$D" >/dev/null &&
	"$TRACECTL" enable-channel -s fr hot --flush-interval 30s >/dev/null &&
	"$TRACECTL" enable-channel -s fr cold --flush-interval 30s >/dev/null &&
	"$TRACECTL" enable-event -s fr -c hot 'shmtrace_test:*' 'shmtrace_statedump:*' >/dev/null &&
	"$TRACECTL" enable-event -s fr -c cold 'shmtrace_test:event' >/dev/null &&
	"$TRACECTL" start fr >/dev/null || fail "cannot set up session fr"
harsh_start a emit:10 ready emit:10 ready emit:10 ready emit:10 ready emit:10 done
harsh_expect a ready
A=$HPID_a

# 1. regenerate statedump: a second dump, whole, in the next snapshot
ctl_json "$WORK/r.json" regenerate statedump -s fr || fail "regenerate failed: $(cat "$WORK/r.json")"
jget "$WORK/r.json" sessions fr processes "pid=$A" pid >/dev/null
[ "$(jget_or '' "$WORK/r.json" notes '#')" = "" ] || fail "a note: $(cat "$WORK/r.json")"
harsh_go a
harsh_expect a ready
ctl_json "$WORK/s1.json" snapshot fr --output "$WORK/s1" || fail "snapshot 1: $(cat "$WORK/s1.json")"
[ "$(count "$WORK/s1" shmtrace_statedump:start)" -eq 2 ] || fail "snapshot 1: not 2 state dumps"
dumps_whole "$WORK/s1"
[ "$(count "$WORK/s1" shmtrace_test:event)" -eq 40 ] || fail "snapshot 1: not 20 events in each channel"

# 2. disable-channel cold: it records nothing more, what it held stays
ctl_json "$WORK/dc.json" disable-channel -s fr cold || fail "disable-channel: $(cat "$WORK/dc.json")"
[ "$(jget "$WORK/dc.json" channels cold enabled)" = false ] || fail "$(cat "$WORK/dc.json")"
harsh_go a
harsh_expect a ready
status_json "$WORK/st.json" fr || fail "status failed"
[ "$(jget "$WORK/st.json" sessions fr channels cold memory held_events)" -eq 20 ] &&
	[ "$(jget "$WORK/st.json" sessions fr channels hot enabled)" = true ] ||
	fail "status after disable-channel: $(cat "$WORK/st.json")"
ctl_json "$WORK/s2.json" snapshot fr --output "$WORK/s2" || fail "snapshot 2: $(cat "$WORK/s2.json")"
[ "$(count "$WORK/s2" shmtrace_test:event)" -eq 50 ] || fail "snapshot 2: not 30 in hot and 20 in cold"

# 3. clear, regenerate, and a trigger acting on the session: its snapshot
# holds the dump asked for after the clear, the triggering event (the
# fifth after the clear) and nothing from before the clear
ctl_json "$WORK/c.json" clear fr || fail "clear failed: $(cat "$WORK/c.json")"
"$TRACECTL" regenerate statedump -s fr >/dev/null || fail "regenerate failed"
"$TRACECTL" add-trigger t5 --on-event 'shmtrace_test:event' --filter 'seq == 34' \
	--action snapshot-session fr >/dev/null || fail "add-trigger t5"
harsh_go a
harsh_expect a ready
wait_field "$WORK/l.json" t5 fired 1
[ "$(jget "$WORK/l.json" triggers t5 failed)" -eq 0 ] || fail "t5: $(cat "$WORK/l.json")"
S3=$(jget "$WORK/l.json" triggers t5 last_firing path)
[ "$(count "$S3" shmtrace_statedump:start)" -eq 1 ] || fail "snapshot 3: not the one dump asked for"
dumps_whole "$S3"
read -r lo hi <<<"$(seqs "$S3")"
[ "$lo" -eq 30 ] && [ "$hi" -ge 34 ] && [ "$(count "$S3" shmtrace_test:event)" -eq $((hi - 29)) ] ||
	fail "snapshot 3: seqs $lo..$hi, not from 30 (after the clear) to 34 at least"

# 4. cleared again; a process the session does not record fires a
# trigger acting on it: nothing to snapshot, said; once the session holds
# an event, the same trigger's snapshot is made
"$TRACECTL" track -s fr --pid "$A" >/dev/null || fail "track failed"
"$TRACECTL" clear fr >/dev/null || fail "clear failed"
"$TRACECTL" add-trigger u --on-event 'shmtrace_test:event' --filter 'seq == 5 || seq == 45' \
	--action snapshot-session fr >/dev/null || fail "add-trigger u"
"$GEN" -n 10 -t 1 || fail "gen-events failed"
wait_field "$WORK/l.json" u failed 1
[ "$(jget "$WORK/l.json" triggers u fired)" -eq 0 ] &&
	[ "$(jget "$WORK/l.json" triggers u last_firing errno)" -ne 0 ] &&
	[ "$(jget "$WORK/l.json" triggers u last_firing path)" = null ] || fail "u: $(cat "$WORK/l.json")"
[ -z "$(find "$D" -mindepth 1 -maxdepth 1 ! -path "$S3")" ] || fail "the output holds $(ls -A "$D")"
"$TRACECTL" remove-trigger t5 >/dev/null || fail "remove-trigger t5"
harsh_go a	# (its seq 45: u fires, and the session holds a's events)
harsh_expect a done
wait_field "$WORK/l.json" u fired 1
S4=$(jget "$WORK/l.json" triggers u last_firing path)
read -r lo hi <<<"$(seqs "$S4")"
[ "$lo" -eq 40 ] && [ "$hi" -ge 45 ] || fail "snapshot 4: seqs $lo..$hi"
harsh_go a
harsh_wait a
[ "$HSTATUS" -eq 0 ] || fail "harsh-app a exited $HSTATUS"
"$TRACECTL" remove-trigger u >/dev/null || fail "remove-trigger u"
"$TRACECTL" stop fr >/dev/null && "$TRACECTL" destroy fr >/dev/null || fail "stop, destroy failed"
echo "ok: regenerate, disable-channel, clear and triggers on a memory-only session"
