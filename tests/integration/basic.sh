#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# create / enable-event / start / gen-events 4 threads / stop / destroy:
# babeltrace2 and trace-read both read every event exactly once.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/out
new_session "$D" 'shmtrace_test:*'
"$GEN" -n 100000 -t 4 -T || fail "gen-events failed"
"$TRACECTL" stop s >/dev/null
status_json "$WORK/status.json" s || fail "status failed"
[ "$(status_sum "$WORK/status.json" s recorded)" = 400002 ] &&
	[ "$(status_sum "$WORK/status.json" s discarded)" = 0 ] || fail "status: $(cat "$WORK/status.json")"
"$TRACECTL" destroy s >/dev/null

n=$(bt_count "$D" shmtrace_test:event)
[ "$n" -eq 400000 ] || fail "babeltrace2 read $n events, expected 400000"
check_seqs "$WORK/bt.out" 4 100000
grep -q 'shmtrace_test:types: .*u8 = 255, u16 = 65535, u32 = 4294967295, u64 = 18446744073709551615, s8 = -128, s16 = -32768, s32 = -2147483648, s64 = -9223372036854775808, dbl = 3.25, ptr = 0xDEADBEEF, str = "quote\\" back\\\\slash", bytes_length = 3, bytes = \[ \[0\] = 1, \[1\] = 2, \[2\] = 255 \], ints_length = 3, ints = \[ \[0\] = -1, \[1\] = 0, \[2\] = 2147483647 \] }' "$WORK/bt.out" ||
	fail "types event: $(grep shmtrace_test:types "$WORK/bt.out")"
grep -q 'shmtrace_test:mark:' "$WORK/bt.out" || fail "no mark event"

"$TRACE_READ" "$D" >"$WORK/tr.out" 2>"$WORK/tr.err" || fail "trace-read failed: $(head -3 "$WORK/tr.err")"
n=$(grep -c 'shmtrace_test:event: ' "$WORK/tr.out" || true)
[ "$n" -eq 400000 ] || fail "trace-read read $n events, expected 400000"
check_seqs "$WORK/tr.out" 4 100000
cmp <(seq_pairs "$WORK/bt.out" | sort -s -n -k1,1) <(seq_pairs "$WORK/tr.out" | sort -s -n -k1,1) ||
	fail "trace-read and babeltrace2 disagree on the order of a thread's events"
echo "ok: 400000 events read by babeltrace2 and trace-read"
