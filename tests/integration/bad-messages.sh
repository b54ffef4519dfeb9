#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Malformed and truncated messages are refused with an error reply (or the
# connection closed), logged, and the session daemon keeps serving.
. "$(dirname "$0")/lib.sh"
start_daemons
"$B/tests/apps/bad-client" || fail "bad-client"
kill -0 "$SESSIOND_PID" || fail "the session daemon died"
"$TRACECTL" list >/dev/null || fail "tracectl list failed afterwards"
grep -q "malformed" "$SHMTRACE_HOME/sessiond.log" || fail "nothing logged"
# a traced process works as before
"$TRACECTL" create s --output "$WORK/out" >/dev/null
"$TRACECTL" enable-event 'shmtrace_test:*' >/dev/null
"$TRACECTL" start >/dev/null
"$GEN" -n 100 -t 1 || fail "gen-events failed"
"$TRACECTL" stop >/dev/null
"$TRACECTL" status | grep -q "events recorded: 100$" || fail "status: $("$TRACECTL" status)"
echo "ok"
