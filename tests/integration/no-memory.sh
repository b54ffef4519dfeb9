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
[ "$(status_field s channel0 lost_without_buffer)" = 1000 ] &&
	[ "$(status_field s channel0 recorded)" = 0 ] || fail "status: $(cat "$WORK/status_field.json")"
# with memory, the same program is traced
"$GEN" -n 1000 -t 1 || fail "gen-events failed"
[ "$(status_field s channel0 recorded)" = 1000 ] || fail "status: $(cat "$WORK/status_field.json")"
echo "ok"
