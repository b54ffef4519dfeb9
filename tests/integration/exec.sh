#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# exec replaces the registration: a traced program that executes itself
# again is traced as a new process, both images' events recorded.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/out
new_session "$D" 'shmtrace_test:*'
"$GEN" -n 3000 -t 2 -X || fail "gen-events failed"
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null
traces=$(find "$D" -name metadata | wc -l)
[ "$traces" -eq 2 ] || fail "$traces traces, expected one per image"
n=$(bt_count "$D" shmtrace_test:event)
[ "$n" -eq 12000 ] || fail "$n events, expected 12000"
for d in "$D"/*/; do
	n=$(bt_count "$d" shmtrace_test:event)
	[ "$n" -eq 6000 ] || fail "$d: $n events, expected 6000"
done
grep -c "is gone" "$SHMTRACE_HOME/sessiond.log" | grep -qx 2 || fail "both images should be gone"
echo "ok"
