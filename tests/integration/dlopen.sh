#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Events of the main program and of a library loaded with dlopen while the
# session is active are known to the daemon by name and recorded.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/out
LIB=$B/tests/apps/.libs/libdlevents.so
[ -f "$LIB" ] || fail "no $LIB"
new_session "$D" 'shmtrace_dl:*' 'shmtrace_dlapp:step'
"$B/tests/apps/dl-app" "$LIB" 5000 || fail "dl-app failed"
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null
n=$(bt_count "$D" shmtrace_dl:hello)
[ "$n" -eq 5000 ] || fail "$n shmtrace_dl:hello events, expected 5000"
n=$(grep -c 'shmtrace_dlapp:step: ' "$WORK/bt.out" || true)
[ "$n" -eq 2 ] || fail "$n shmtrace_dlapp:step events, expected 2"
grep -q 'i = 4999, who = "dl-lib"' "$WORK/bt.out" || fail "last dl event missing"
"$TRACE_READ" "$D" | grep -c 'shmtrace_dl:hello: ' | grep -qx 5000 || fail "trace-read disagrees"
echo "ok"
