#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Aggregation functions on known values: sum, min, max, avg and lquantize
# of seq 100..999 (a filter) per thread; string keys; the thread's and
# process's context as keys; a table too small for its keys says how many
# updates it dropped, and updates + dropped is every event; aggregations
# of events nobody records; disable-aggregation; bad definitions refused.
. "$(dirname "$0")/lib.sh"
start_daemons
"$TRACECTL" create s --output "$WORK/out" >/dev/null
ag() { "$TRACECTL" aggregate -s s "$@" >>"$WORK/defs" || fail "aggregate $* refused: $(tail -3 "$WORK/defs")"; }
ag fn 'shmtrace_test:event' --by thread --sum seq --min seq --max seq --avg seq \
	--lquantize seq,0,1000,100 --filter 'seq >= 100'
ag str 'shmtrace_*:ev*' --by payload:str,thread --count
ag ctx 'shmtrace_test:event' --by '$ctx.vpid' --count --max thread
ag small 'shmtrace_test:event' --by seq --count --keys 16
ag gone 'shmtrace_test:event' --count
"$TRACECTL" disable-aggregation -s s gone >/dev/null || fail "disable-aggregation failed"
for bad in "x shmtrace_test:event --lquantize seq,10,0,1" "x shmtrace_test:event --by a,b,c,d,e" \
	"x shmtrace_test:event --frobnicate seq" "fn shmtrace_test:event" "x/y shmtrace_test:event" \
	"x shmtrace_test:event --keys 0" "x shmtrace_test:event --filter seq>>" \
	"x shmtrace_test:event --by f:float"; do
	# shellcheck disable=SC2086
	"$TRACECTL" aggregate -s s $bad >/dev/null 2>&1 && fail "accepted: aggregate $bad"
done
"$TRACECTL" show-aggregations -s s gone >/dev/null 2>&1 && fail "a removed aggregation is shown"
"$TRACECTL" start s >/dev/null
"$GEN" -n 1000 -t 3 -s 4 || fail "gen-events failed"
"$TRACECTL" show-aggregations -s s --format json >"$WORK/a.json" || fail "show failed"
"$TRACECTL" show-aggregations -s s >"$WORK/a.txt" || fail "show (text) failed"
"$TRACECTL" stop s >/dev/null
python3 - "$WORK/a.json" <<'PY' || fail "wrong values: $(cat "$WORK/a.txt")"
import json, sys
doc = {a["name"]: a for a in json.load(open(sys.argv[1]))["results"]}
assert list(doc) == ["fn", "str", "ctx", "small"], list(doc)
fn = doc["fn"]
assert fn["updates"] == 2700 and fn["dropped"] == 0 and fn["lost"] == 0, fn
assert [e["key"] for e in fn["entries"]] == [[0], [1], [2]]
for e in fn["entries"]:
    assert e["sum(seq)"] == sum(range(100, 1000)), e
    assert e["min(seq)"] == 100 and e["max(seq)"] == 999, e
    assert abs(e["avg(seq)"] - 549.5) < 1e-9, e
    lq = {(b["lo"], b["hi"]): b["count"] for b in e["lquantize(seq)"]}
    assert lq == {(lo, lo + 99): 100 for lo in range(100, 1000, 100)}, lq
s = doc["str"]
assert s["keys"] == ["payload", "thread"]
assert [(e["key"], e["count"]) for e in s["entries"]] == \
    [(["abcd", 0], 1000), (["bcde", 1], 1000), (["cdef", 2], 1000)], s["entries"]
c = doc["ctx"]
assert len(c["entries"]) == 1 and c["entries"][0]["count"] == 3000 and c["entries"][0]["max(thread)"] == 2, c
sm = doc["small"]
assert sm["dropped"] > 0, sm
assert sm["updates"] + sm["dropped"] == 3000, sm
assert sum(e["count"] for e in sm["entries"]) == sm["updates"], sm
# each thread's table holds 16 keys
assert 16 <= len(sm["entries"]) <= 48, len(sm["entries"])
PY
# the text for people says it too (its words are what is tested here)
grep -q "keys dropped" "$WORK/a.txt" || fail "the text does not say keys dropped"
# aggregated events that no channel records: nothing in the trace
"$TRACECTL" create o --output "$WORK/only" >/dev/null
"$TRACECTL" aggregate -s o only 'shmtrace_test:event' --count >/dev/null
"$TRACECTL" start o >/dev/null
"$GEN" -n 5000 -t 2 || fail "gen-events failed"
"$TRACECTL" stop o >/dev/null
grep -q '"entries":\[{"key":\[\],"count":10000}\]' "$WORK/only/aggregations.json" ||
	fail "aggregation-only: $(cat "$WORK/only/aggregations.json")"
[ -z "$(find "$WORK/only" -name 'stream*' -o -name metadata)" ] || fail "aggregation-only session wrote traces"
exit 0
