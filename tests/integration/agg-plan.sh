#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An aggregation by one integer field, updated in the emit function from
# the thread's plan (ABI 5), while the session changes between rounds of
# one process's events (gen-events -R: its threads stay, and so do their
# plans): a second aggregation on the same event (no plan: both must
# count), the second removed (a plan again), a channel that filters the
# event (no plan: the filter must decide), that channel gone (a plan
# again). Each round's updates land exactly where the session of that
# round says: the first aggregation counts every event of the five rounds,
# the second every event of round 2 and none other, the filtering channel
# records the first half of round 4 (seq < 3.5 N) and nothing else, and
# the recording channel every event.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
N=20000
T=2
D=$WORK/out
"$TRACECTL" create s --output "$D" >/dev/null || fail "create failed"
"$TRACECTL" aggregate -s s main 'shmtrace_test:event' --by thread --count --sum seq \
	--quantize seq >/dev/null || fail "aggregate main refused"
"$TRACECTL" enable-event -s s 'shmtrace_test:event' >/dev/null || fail "enable-event failed"
"$TRACECTL" start s >/dev/null || fail "start failed"

gen_bg r "round 1" -n "$N" -t "$T" -s 4 -R 5
next_round() {
	echo go >&"$IDLE_FD_r"
	gen_says r "$1"
}
# per thread, in JSON: the counts and sums of aggregation $1 of session $2
agg_rows() {
	"$TRACECTL" show-aggregations -s "$2" "$1" --format json >"$WORK/$1.json" ||
		fail "show-aggregations $1 failed"
	python3 -c 'import json, sys
a = json.load(open(sys.argv[1]))["results"][0]
print(a["dropped"] + a["lost"] + a["torn"],
      " ".join("%s:%s:%s" % (e["key"][0], e["count"], e.get("sum(seq)", "-"))
               for e in sorted(a["entries"], key=lambda e: e["key"][0])))' "$WORK/$1.json"
}
# the expected rows: each thread COUNT events of seq FIRST..FIRST+COUNT-1
rows() {
	local t out="0"
	for t in $(seq 0 $((T - 1))); do
		out+=" $t:$2:$3"
	done
	echo "$out"
}

# round 2: a second aggregation on the event
"$TRACECTL" aggregate -s s second 'shmtrace_test:event' --by thread --count --sum seq \
	>/dev/null || fail "aggregate second refused"
next_round "round 2"
[ "$(agg_rows second s)" = "$(rows "$N" "$N" $((N * (3 * N - 1) / 2)))" ] ||
	fail "the second aggregation holds $(agg_rows second s), not round 2's events"

# round 3: the second gone
"$TRACECTL" disable-aggregation -s s second >/dev/null || fail "disable-aggregation failed"
next_round "round 3"

# round 4 (seq 3N..4N-1): another session records the event through a filter
"$TRACECTL" create g --output "$WORK/g" >/dev/null &&
	"$TRACECTL" enable-event -s g 'shmtrace_test:event' --filter "seq < $((7 * N / 2))" \
		>/dev/null &&
	"$TRACECTL" start g >/dev/null || fail "cannot set up session g"
next_round "round 4"

# round 5: that session gone
"$TRACECTL" stop g >/dev/null && "$TRACECTL" destroy g >/dev/null || fail "cannot end session g"
release_idle r
wait "$IDLE_PID" || fail "gen-events failed"

all=$((5 * N))
[ "$(agg_rows main s)" = "$(rows "$all" "$all" $((all * (all - 1) / 2)))" ] ||
	fail "the first aggregation holds $(agg_rows main s), not every event"
python3 - "$WORK/main.json" "$all" <<'PY' || fail "the quantize of seq is not that of every event"
import json, sys
a = json.load(open(sys.argv[1]))["results"][0]
n = int(sys.argv[2])
want = {}
for v in range(n):
    lo = 0 if v == 0 else 1 << (v.bit_length() - 1)
    want[lo] = want.get(lo, 0) + 1
for e in a["entries"]:
    got = {b["lo"]: b["count"] for b in e["quantize(seq)"] if b["count"]}
    assert got == want, (e["key"], got, want)
PY
"$TRACECTL" stop s >/dev/null || fail "stop failed"
bt_read "$D"
[ "$BT_DISC" -eq 0 ] || fail "session s discarded $BT_DISC events"
check_seqs "$WORK/bt.out" "$T" "$all"
bt_read "$WORK/g"
[ "$BT_DISC" -eq 0 ] || fail "session g discarded $BT_DISC events"
seq_pairs "$WORK/bt.out" | awk -v N="$N" -v T="$T" '
	$2 < 3 * N || $2 >= 7 * N / 2 { print "seq " $2 " of thread " $1; bad = 1 }
	{ n[$1 " " $2]++ }
	END { for (k in n) if (n[k] != 1) bad = 1
	      if (length(n) != T * N / 2) { print length(n) " events"; bad = 1 }
	      exit bad }' >&2 || fail "the filtering session did not record exactly round 4's first half"
exit 0
