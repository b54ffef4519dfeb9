#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# regenerate statedump: every process the session traces writes its
# state dump again (shmtrace_statedump:start, bin_info..., end) before
# its next enabled event, whole, once for the requests made before it; a
# process that blocks the doorbell signal in every thread too, and it is
# never signalled for it (nothing pending, nothing received). Refused for
# an inactive session; a note when the session records no state dump;
# regenerate metadata is refused.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/out
new_session "$D" 'shmtrace_test:*' 'shmtrace_statedump:*'

# starts DIR PID: shmtrace_statedump:start events of process PID in DIR
starts() {
	local t
	t=$(find "$1" -mindepth 1 -maxdepth 1 -type d -name "*-$2")
	[ -n "$t" ] || fail "no trace of process $2 in $1"
	bt_count "$t" shmtrace_statedump:start
}
# dumps_whole DIR PID: each start of process PID is followed by bin_info
# lines then its end, in one thread, none cut
dumps_whole() {
	local t
	t=$(find "$1" -mindepth 1 -maxdepth 1 -type d -name "*-$2")
	"$TRACE_READ" --event 'shmtrace_statedump:*' "$t" | awk '
		/ shmtrace_statedump:start:/ { if (open) exit 1; open = 1; n = 0; next }
		/ shmtrace_statedump:bin_info:/ { if (!open) exit 1; n++; next }
		/ shmtrace_statedump:end:/ { if (!open || n == 0) exit 1; open = 0; d++ }
		END { if (open || d == 0) exit 1 }' || fail "process $2: a state dump not whole"
}

# a: a process with its doorbell; b: one that blocks every signal first
harsh_start a emit:10 ready emit:10 ready emit:10 done
harsh_start b blockall emit:10 ready emit:10 ready emit:10 done pending
harsh_expect a ready
harsh_expect b ready
ctl_json "$WORK/r.json" regenerate statedump -s s || fail "regenerate failed: $(cat "$WORK/r.json")"
[ "$(jget "$WORK/r.json" sessions s processes '#')" -eq 2 ] || fail "regenerate: $(cat "$WORK/r.json")"
jget "$WORK/r.json" sessions s processes "pid=$HPID_a" pid >/dev/null
jget "$WORK/r.json" sessions s processes "pid=$HPID_b" pid >/dev/null
[ "$(jget_or '' "$WORK/r.json" notes '#')" = "" ] || fail "a note: $(cat "$WORK/r.json")"
harsh_go a
harsh_go b
harsh_expect a ready
harsh_expect b ready
# twice before the next event: one dump (asked again before it was written)
"$TRACECTL" regenerate statedump -s s >/dev/null || fail "regenerate failed"
"$TRACECTL" regenerate statedump -s s >/dev/null || fail "regenerate failed"
harsh_go a
harsh_go b
harsh_expect a done
harsh_expect b done
harsh_go a
harsh_go b
eval "read -r -t 30 line <&\$HOUT_b" || true
[ "$line" = "pending 0" ] || fail "harsh-app b said '$line', not 'pending 0': the doorbell was sent"
harsh_wait a
[ "$HSTATUS" -eq 0 ] || fail "harsh-app a exited $HSTATUS"
harsh_wait b
[ "$HSTATUS" -eq 0 ] || fail "harsh-app b exited $HSTATUS (3: it received the doorbell)"
"$TRACECTL" stop s >/dev/null || fail "stop failed"
for p in "$HPID_a" "$HPID_b"; do
	n=$(starts "$D" "$p")
	[ "$n" -eq 3 ] || fail "process $p: $n state dumps, expected 3 (at start-up, and 2 asked)"
	dumps_whole "$D" "$p"
done

# refused: an inactive session; metadata (exit 2)
rc=0
ctl_json "$WORK/r.json" regenerate statedump -s s || rc=$?
[ "$rc" -eq 1 ] && [ "$(error_code "$WORK/r.json")" = inactive ] || fail "regenerate of an inactive session: $rc"
rc=0
"$TRACECTL" regenerate metadata -s s >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "regenerate metadata: exit $rc, expected 2"
"$TRACECTL" destroy s >/dev/null

# a session that records no state dump: the note says so
new_session "$WORK/out2" 'shmtrace_test:*'
ctl_json "$WORK/r.json" regenerate statedump || fail "regenerate failed"
[ "$(jget "$WORK/r.json" notes @0 code)" = statedump-not-recorded ] || fail "no note: $(cat "$WORK/r.json")"
"$TRACECTL" destroy s >/dev/null
echo "ok: state dumps written again when asked, the doorbell untouched"
