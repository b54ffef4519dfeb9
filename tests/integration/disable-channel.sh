#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# disable-channel: a channel disabled records nothing of what a running
# process emits from then on, while the session's other channels go on;
# enable-channel enables it again, with the settings it had (others are
# refused). status says which channels are disabled (JSON "enabled"); a
# name that is no channel fails the command and disables nothing; a
# session daemon killed and started again keeps a channel disabled.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/out
"$TRACECTL" create s --output "$D" >/dev/null
"$TRACECTL" enable-channel -s s a --subbuf-size 64k >/dev/null
"$TRACECTL" enable-channel -s s b --subbuf-size 64k >/dev/null
"$TRACECTL" enable-event -s s -c a 'shmtrace_test:event' >/dev/null
"$TRACECTL" enable-event -s s -c b 'shmtrace_test:event' >/dev/null
"$TRACECTL" start s >/dev/null

# b_is WANT: status says channel b's "enabled" is WANT (true or false)
b_is() {
	[ "$(status_field s b enabled)" = "$1" ] || fail "channel b enabled: not $1"
	[ "$(status_field s a enabled)" = true ] || fail "channel a was disabled too"
}

# three phases of 1000 events: both channels, a alone, both again
harsh_start h emit:1000 ready emit:1000 ready emit:1000 done
harsh_expect h ready
b_is true
ctl_json "$WORK/dis.json" disable-channel -s s b || fail "disable-channel failed"
[ "$(jget "$WORK/dis.json" channels b enabled)" = false ] || fail "disable-channel: $(cat "$WORK/dis.json")"
b_is false
harsh_go h
harsh_expect h ready
# disabled, its settings fixed: only its own settings are taken back
rc=0
ctl_json "$WORK/e.json" enable-channel -s s b --subbuf-size 128k || rc=$?
[ "$rc" -eq 1 ] && [ "$(error_code "$WORK/e.json")" = channel-exists ] ||
	fail "enable-channel with another setting: $rc $(cat "$WORK/e.json")"
b_is false
ctl_json "$WORK/e.json" enable-channel -s s b --subbuf-size 64k || fail "enable-channel b failed"
[ "$(jget "$WORK/e.json" channels b enabled)" = true ] || fail "enable-channel: $(cat "$WORK/e.json")"
b_is true
# an enabled channel: exists
rc=0
ctl_json "$WORK/e.json" enable-channel -s s b || rc=$?
[ "$rc" -eq 1 ] && [ "$(error_code "$WORK/e.json")" = channel-exists ] || fail "enable-channel twice: $rc"
harsh_go h
harsh_expect h done
harsh_go h
harsh_wait h
[ "$HSTATUS" -eq 0 ] || fail "harsh-app exited $HSTATUS"
"$TRACECTL" stop s >/dev/null || fail "stop failed"
[ "$(status_field s a recorded)" -eq 3000 ] || fail "channel a: $(status_field s a recorded) events, not 3000"
[ "$(status_field s b recorded)" -eq 2000 ] || fail "channel b: $(status_field s b recorded) events, not 2000"
[ "$(status_field s b discarded)" -eq 0 ] || fail "channel b discarded events"
# channel b's trace: seq 0..999 and 2000..2999, nothing of the disabled phase
cp -r "$D" "$WORK/b"
rm -f "$WORK"/b/*/a_*
bt_read "$WORK/b"
seq_pairs "$WORK/bt.out" | awk '$2 >= 1000 && $2 < 2000 { bad = 1 } END { exit bad }' ||
	fail "channel b recorded events while disabled"
[ "$(seq_pairs "$WORK/bt.out" | wc -l)" -eq 2000 ] || fail "channel b: not 2000 events read"

# a name that is not a channel: nothing disabled
rc=0
ctl_json "$WORK/e.json" disable-channel -s s b nope || rc=$?
[ "$rc" -eq 1 ] && [ "$(error_code "$WORK/e.json")" = no-channel ] &&
	[ "$(jget "$WORK/e.json" error channel)" = nope ] || fail "disable-channel nope: $rc $(cat "$WORK/e.json")"
b_is true
# disabled twice: still disabled, no error
"$TRACECTL" disable-channel -s s b >/dev/null || fail "disable-channel failed"
"$TRACECTL" disable-channel -s s b >/dev/null || fail "disable-channel of a disabled channel failed"
b_is false

# the session daemon killed: the next one resumes the channel disabled
old=$SESSIOND_PID
kill -KILL "$old"
shmtrace_wait_gone "$old" || fail "session daemon $old still runs"
b_is false
[ "$(shmtrace_daemon_pid sessiond)" != "$old" ] || fail "no new session daemon"
"$TRACECTL" enable-channel -s s b >/dev/null || fail "enable-channel after the restart failed"
b_is true
"$TRACECTL" destroy s >/dev/null || fail "destroy failed"
echo "ok: a disabled channel records nothing, enabled again it goes on"
