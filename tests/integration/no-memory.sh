#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# When no memory can be had for a buffer (here an address-space limit too
# small for one), the program runs on untraced, and its lost events are
# counted and shown by tracectl status.
. "$(dirname "$0")/lib.sh"
start_daemons
new_session "$WORK/out" 'shmtrace_test:*'
LD_LIBRARY_PATH=$B/.libs bash -c "ulimit -s 256 && ulimit -v 8000 &&
	exec '$B/tests/apps/.libs/gen-events' -n 1000 -t 1" || fail "the program failed"
"$TRACECTL" status s >"$WORK/status"
grep -q "events lost without a buffer: 1000$" "$WORK/status" || fail "status: $(cat "$WORK/status")"
grep -q "events recorded: 0$" "$WORK/status" || fail "status: $(cat "$WORK/status")"
# with memory, the same program is traced
"$GEN" -n 1000 -t 1 || fail "gen-events failed"
"$TRACECTL" status s | grep -q "events recorded: 1000$" || fail "status: $("$TRACECTL" status s)"
echo "ok"
