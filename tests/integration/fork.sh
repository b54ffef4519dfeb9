#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A program that forks 100 children (a third from a second thread) while
# both its threads emit: each child has its own trace with exactly its
# 1,000 events, and the parent's trace is complete.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/out
new_session "$D" 'shmtrace_test:*'
"$B/tests/apps/fork-events" 100 1000 50000 >"$WORK/children" || fail "fork-events failed"

"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null
[ "$(wc -l <"$WORK/children")" -eq 100 ] || fail "$(wc -l <"$WORK/children") children reported"
while read -r pid n; do
	dir=$D/fork-events-$pid
	[ -d "$dir" ] || fail "child $n (pid $pid) has no trace"
	c=$(bt_count "$dir" shmtrace_test:event)
	[ "$c" -eq 1000 ] || fail "child $n: $c events"
	seq_pairs "$WORK/bt.out" | awk -v n="$n" '$1 != n { exit 1 }' || fail "child $n: foreign events"
	[ "$(seq_pairs "$WORK/bt.out" | awk '$2 < 1000 { print $2 }' | sort -un | wc -l)" -eq 1000 ] ||
		fail "child $n: not every seq 0..999"
done <"$WORK/children"
traces=$(find "$D" -name metadata | wc -l)
[ "$traces" -eq 101 ] || fail "$traces traces, expected 101"
parent=$(find "$D" -name metadata -printf '%h\n' | while read -r d; do
	grep -q "^$(basename "$d" | sed 's/fork-events-//') " "$WORK/children" || echo "$d"
done)
n=$(bt_count "$parent" shmtrace_test:event)
[ "$n" -eq 100000 ] || fail "parent: $n events, expected 100000"
for t in 1000000 1000001; do
	[ "$(seq_pairs "$WORK/bt.out" | awk -v t=$t '$1 == t' | sort -un -k2 | wc -l)" -eq 50000 ] ||
		fail "parent thread $t incomplete"
done
echo "ok"
