#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Several sessions at once, isolated: an event enabled in two sessions is
# recorded in both, exactly; stopping, then destroying one leaves the
# other recording; each writes its own output.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
"$TRACECTL" create a --output "$WORK/a" >/dev/null
"$TRACECTL" create b --output "$WORK/b" --overwrite >/dev/null
"$TRACECTL" enable-event -s a 'shmtrace_test:event' >/dev/null
"$TRACECTL" enable-event -s b 'shmtrace_test:*' >/dev/null
"$TRACECTL" start a >/dev/null
"$TRACECTL" start b >/dev/null
# one process running through all phases, and one process per phase
gen_bg g ready -w -n 30000 -t 2
"$GEN" -n 20000 -t 3 -T || fail "phase 1 failed"
"$TRACECTL" stop a >/dev/null
"$GEN" -n 10000 -t 2 || fail "phase 2 failed"
release_idle g
wait "$IDLE_PID" || fail "the long-running process failed"
"$TRACECTL" destroy a >/dev/null
"$GEN" -n 5000 -t 1 || fail "phase 3 failed"
"$TRACECTL" stop b >/dev/null
"$TRACECTL" destroy b >/dev/null
na=$(bt_count "$WORK/a" shmtrace_test:event)
ma=$(grep -c "shmtrace_test:types: " "$WORK/bt.out" || true)
nb=$(bt_count "$WORK/b" shmtrace_test:event)
mb=$(grep -c "shmtrace_test:types: " "$WORK/bt.out" || true)
# a: phase 1 only (60000) + nothing of the long process (it emitted after
# the release, when a was stopped); b: everything
[ "$na" -eq 60000 ] || fail "session a: $na events, expected 60000"
[ "$ma" -eq 0 ] || fail "session a recorded shmtrace_test:types, not enabled there"
[ "$nb" -eq $((60000 + 20000 + 60000 + 5000)) ] || fail "session b: $nb events, expected 145000"
[ "$mb" -eq 1 ] || fail "session b: $mb types events, expected 1"
[ "$(find "$WORK/a" -mindepth 1 -maxdepth 1 -type d | wc -l)" -eq 1 ] ||
	fail "session a traced $(find "$WORK/a" -mindepth 1 -maxdepth 1 -type d | wc -l) processes, expected 1"
echo "ok: a $na, b $nb"
