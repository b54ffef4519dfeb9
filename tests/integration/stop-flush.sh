#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# At stop, every committed event is on disk, including the partly filled
# sub-buffers of threads that are idle at that moment.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/out
new_session "$D" 'shmtrace_test:*'
gen_idle g -n 1234 -t 3
"$TRACECTL" stop s >/dev/null
kill -0 "$IDLE_PID" || fail "gen-events is gone already"
n=$(bt_count "$D" shmtrace_test:event)
[ "$n" -eq 3702 ] || fail "after stop, $n events on disk, expected 3702"
check_seqs "$WORK/bt.out" 3 1234
release_idle g
wait "$IDLE_PID" || fail "gen-events failed"
"$TRACECTL" destroy s >/dev/null
echo "ok"
