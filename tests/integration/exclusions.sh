#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# enable-event -x (exclusions): a pattern with exclusions enables every
# event it matches but those the exclusions match; the exclusions belong
# to their pattern (another pattern of the channel that matches an
# excluded event still records it); enabling the pattern again replaces
# them, also for a process already running; a pattern without '*' takes
# none; status shows them (JSON "exclusions"), and a session daemon
# killed and started again keeps them.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/out
"$TRACECTL" create s --output "$D" >/dev/null
for c in a b c; do
	"$TRACECTL" enable-channel -s s $c --subbuf-size 64k >/dev/null
done
# a: everything of shmtrace_test but types and mark
ctl_json "$WORK/e.json" enable-event -s s -c a 'shmtrace_test:*' -x 'shmtrace_test:ty*' \
	--exclude shmtrace_test:mark || fail "enable-event -x failed"
[ "$(jget "$WORK/e.json" enablers @0 exclusions '#')" -eq 2 ] &&
	[ "$(jget "$WORK/e.json" enablers @0 exclusions @0)" = 'shmtrace_test:ty*' ] &&
	[ "$(jget "$WORK/e.json" enablers @0 exclusions @1)" = shmtrace_test:mark ] ||
	fail "enable-event -x: $(cat "$WORK/e.json")"
# b: the other way round
"$TRACECTL" enable-event -s s -c b 'shmtrace_*:*' -x 'shmtrace_test:event,shmtrace_proc:*,shmtrace_statedump:*' \
	>/dev/null || fail "enable-event -x failed"
# c: the events excluded by its first pattern, kept by its second when seq < 10
"$TRACECTL" enable-event -s s -c c 'shmtrace_test:*' -x 'shmtrace_test:event' >/dev/null
"$TRACECTL" enable-event -s s -c c 'shmtrace_test:event' --filter 'seq < 10' >/dev/null
# a pattern without a wildcard takes no exclusion
rc=0
ctl_json "$WORK/e.json" enable-event -s s -c a 'shmtrace_test:event' -x 'shmtrace_test:ev*' || rc=$?
[ "$rc" -eq 1 ] && [ "$(error_code "$WORK/e.json")" = exclude-needs-wildcard ] ||
	fail "exclusions of a pattern without '*': $rc $(cat "$WORK/e.json")"
"$TRACECTL" start s >/dev/null

# count DIR CHANNEL NAME: NAME events of CHANNEL's streams in DIR
count() {
	rm -rf "$WORK/one"
	cp -r "$1" "$WORK/one"
	find "$WORK/one" -type f -name '[a-z]_*' ! -name "$2_*" -delete
	bt_count "$WORK/one" "$3"
}

"$GEN" -n 1000 -t 2 -T || fail "gen-events failed"
# status shows the exclusions of each pattern
status_json "$WORK/st.json" s || fail "status failed"
[ "$(jget "$WORK/st.json" sessions s channels a enablers @0 exclusions '#')" -eq 2 ] ||
	fail "status: $(cat "$WORK/st.json")"
[ "$(jget "$WORK/st.json" sessions s channels c enablers 'pattern=shmtrace_test:*' exclusions @0)" = \
	shmtrace_test:event ] || fail "status: $(cat "$WORK/st.json")"

# the session daemon killed: the next one has the same exclusions
restart_sessiond "$WORK/st2.json" s
python3 - "$WORK/st.json" "$WORK/st2.json" <<'PY' || fail "exclusions not resumed"
import json, sys
def en(f):
    d = json.load(open(f))
    return [(c["name"], e["pattern"], e["exclusions"]) for c in d["sessions"][0]["channels"]
            for e in c["enablers"]]
a, b = en(sys.argv[1]), en(sys.argv[2])
sys.exit(0 if a == b and any(x[2] for x in a) else 1)
PY
SESSIOND_PID=$(shmtrace_daemon_pid sessiond)

# a process already running: its events follow the pattern enabled again
# in channel a without exclusions (every event), then with one again
harsh_start h mark:5 ready mark:7 ready mark:11 done
harsh_expect h ready
"$TRACECTL" enable-event -s s -c a 'shmtrace_test:*' >/dev/null || fail "enable-event failed"
harsh_go h
harsh_expect h ready
"$TRACECTL" enable-event -s s -c a 'shmtrace_test:*' -x shmtrace_test:mark >/dev/null ||
	fail "enable-event failed"
harsh_go h
harsh_expect h done
harsh_go h
harsh_wait h
[ "$HSTATUS" -eq 0 ] || fail "harsh-app exited $HSTATUS"
"$TRACECTL" stop s >/dev/null || fail "stop failed"

n=$(count "$D" a shmtrace_test:event)
[ "$n" -eq 2000 ] || fail "channel a: $n shmtrace_test:event, expected 2000"
n=$(count "$D" a shmtrace_test:types)
[ "$n" -eq 0 ] || fail "channel a: $n shmtrace_test:types recorded, excluded"
n=$(count "$D" a shmtrace_test:mark)
[ "$n" -eq 7 ] || fail "channel a: $n shmtrace_test:mark, expected 7 (those emitted while not excluded)"
n=$(count "$D" b shmtrace_test:event)
[ "$n" -eq 0 ] || fail "channel b: $n shmtrace_test:event recorded, excluded"
n=$(count "$D" b shmtrace_test:types)
[ "$n" -eq 1 ] || fail "channel b: $n shmtrace_test:types, expected 1"
[ "$(grep -c ' shmtrace_proc:\| shmtrace_statedump:' "$WORK/bt.out")" -eq 0 ] ||
	fail "channel b recorded events of excluded providers"
n=$(count "$D" b shmtrace_test:mark)
[ "$n" -eq 24 ] || fail "channel b: $n shmtrace_test:mark, expected 1 + 23"
n=$(count "$D" c shmtrace_test:event)
[ "$n" -eq 20 ] || fail "channel c: $n shmtrace_test:event, expected 20 (seq < 10 of 2 threads)"
n=$(count "$D" c shmtrace_test:types)
[ "$n" -eq 1 ] || fail "channel c: $n shmtrace_test:types, expected 1"
"$TRACECTL" destroy s >/dev/null
echo "ok: exclusions leave out what they match, per pattern, and survive a restart"
