#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# record --aggregate --preload func,libc on a program built with
# -finstrument-functions: per function, exact call counts, self time <=
# total time, bytes allocated where they were; no call or allocation event
# in the trace; the report is printed when the command exits.
. "$(dirname "$0")/lib.sh"
D=$WORK/out
"$TRACECTL" record --aggregate --preload func,libc --output "$D" -- \
	"$B/tests/apps/preload-func" 10 3 0 >"$WORK/app.out" 2>"$WORK/report" ||
	fail "record failed: $(cat "$WORK/report")"
[ -f "$D/aggregations.json" ] || fail "no aggregations.json"
"$TRACE_READ" --stats=count "$D" >"$WORK/count" || fail "trace-read failed"
grep -q "shmtrace_func\|shmtrace_libc" "$WORK/count" && fail "calls were recorded as events: $(cat "$WORK/count")"
fibc=$(sed -n 's/^fib_calls //p' "$WORK/app.out")
python3 - "$D/aggregations.json" "$WORK/app.out" "$fibc" <<'PY' || fail "wrong profile: $(cat "$WORK/report")"
import json, re, sys
a = json.load(open(sys.argv[1]))[0]
assert a["name"] == "profile" and a["keys"] == ["$ctx.vpid", "addr"], a
assert a["lost"] == 0 and a["dropped"] == 0 and a["torn"] == 0, a
addr = {m.group(1): int(m.group(2), 16)
        for m in re.finditer(r"^(\w+) 0x([0-9a-f]+)$", open(sys.argv[2]).read(), re.M)}
rows = {e["key"][1]: e for e in a["entries"]}
calls = {f: rows[addr[f]]["sum($calls)"] for f in addr}
fibc = int(sys.argv[3])
assert calls == {"fib": 2 * 3 * fibc, "walk": 2 * 3 * 17, "leaf": 2 * 3, "thread_main": 2}, calls
for e in a["entries"]:
    assert e["sum($self_ns)"] <= e["sum($total_ns)"], e
    assert e["sum($bytes)"] <= e["sum($bytes_total)"], e
assert rows[addr["thread_main"]]["sum($bytes)"] == 2 * 3 * 64, rows[addr["thread_main"]]
assert rows[addr["leaf"]]["sum($total_ns)"] == rows[addr["leaf"]]["sum($self_ns)"]
assert rows[addr["fib"]]["sum($total_ns)"] <= rows[addr["thread_main"]]["sum($total_ns)"]
PY
col() {	# col FUNCTION N: column N of FUNCTION's row in the report
	awk -v f="$1" -v n="$2" '$NF == f { print $n }' "$WORK/report"
}
[ "$(col fib 1)" = $((2 * 3 * fibc)) ] || fail "report: fib $(col fib 1) calls: $(cat "$WORK/report")"
[ "$(col leaf 1)" = 6 ] || fail "report: leaf $(col leaf 1) calls"
exit 0
