#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# trace-read --profile on a known call tree (preload-func, built with
# -finstrument-functions, traced with the func and libc helpers): exact
# call counts by function name, self times adding up to the roots' total
# times, bytes allocated inside the function that allocates; and
# --export chrome: valid JSON whose function slices nest in each thread.
. "$(dirname "$0")/lib.sh"
need_babeltrace
PY=$(command -v /usr/bin/python3 python3 | head -1)
start_daemons
D=$WORK/out
new_session "$D" 'shmtrace_func:*' 'shmtrace_libc:malloc' 'shmtrace_proc:*' 'shmtrace_statedump:*'
LD_PRELOAD=$B/.libs/libshmtrace.so:$B/.libs/libshmtrace-func.so:$B/.libs/libshmtrace-libc.so \
	"$B/tests/apps/preload-func" 10 3 0 >"$WORK/app.out" || fail "preload-func failed"
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null
fibc=$(sed -n 's/^fib_calls //p' "$WORK/app.out")
"$TRACE_READ" --profile "$D" >"$WORK/prof" || fail "trace-read --profile failed"
cat "$WORK/prof"
col() {	# col FUNCTION N: column N of FUNCTION's row
	awk -v f="$1" -v n="$2" '$NF == f { print $n }' "$WORK/prof"
}
[ "$(col fib 1)" = $((2 * 3 * fibc)) ] || fail "fib: $(col fib 1) calls, expected $((2 * 3 * fibc))"
[ "$(col walk 1)" = $((2 * 3 * 17)) ] || fail "walk: $(col walk 1) calls, expected $((2 * 3 * 17))"
[ "$(col leaf 1)" = $((2 * 3)) ] || fail "leaf: $(col leaf 1) calls"
[ "$(col thread_main 1)" = 2 ] || fail "thread_main: $(col thread_main 1) calls"
[ "$(col main 1)" = 1 ] || fail "main: $(col main 1) calls"
self=$(awk 'NR > 1 && $1 ~ /^[0-9]+$/ { s += $3 } END { printf "%d", s }' "$WORK/prof")
roots=$(( $(col main 2) + $(col thread_main 2) ))
[ "$self" -eq "$roots" ] || fail "self times add up to $self ns, the roots' total is $roots ns"
[ "$(col fib 2)" -le "$(col thread_main 2)" ] || fail "fib's total exceeds its caller's"
[ "$(col leaf 2)" -eq "$(col leaf 3)" ] || fail "leaf calls nothing: total != self"
[ "$(col thread_main 5)" = $((2 * 3 * 64)) ] || fail "thread_main allocated $(col thread_main 5) bytes itself, expected $((2 * 3 * 64))"
[ "$(col leaf 5)" = 0 ] || fail "leaf allocated bytes"

"$TRACE_READ" --export chrome "$WORK/trace.json" "$D" || fail "--export chrome failed"
[ -n "$PY" ] || { echo "python3 missing: JSON not checked"; exit 0; }
"$PY" - "$WORK/trace.json" "$fibc" <<'PY' || fail "chrome export wrong"
import collections, json, sys
from decimal import Decimal
d = json.load(open(sys.argv[1]), parse_float=Decimal)
ev = d["traceEvents"]
names = collections.Counter()
slices = collections.defaultdict(list)
for e in ev:
    assert {"ph", "name", "pid", "tid"} <= e.keys(), e
    if e["ph"] == "X":
        assert e["dur"] >= 0 and "unfinished" not in e["args"], e
        slices[e["pid"], e["tid"]].append((e["ts"], -e["dur"], e["name"]))
        names[e["name"]] += 1
    elif e["ph"] != "M":
        assert e["ph"] == "i" and "ts" in e and "args" in e, e
# each thread's slices nest: one ends before the next begins, or contains it
for k, sl in slices.items():
    stack = []
    for ts, dur, name in sorted(sl):
        end = ts - dur
        while stack and stack[-1] <= ts:
            stack.pop()
        assert not stack or end <= stack[-1], (k, name, ts, end, stack[-1])
        stack.append(end)
assert names["fib"] == 2 * 3 * int(sys.argv[2]), names["fib"]
assert names["walk"] == 2 * 3 * 17 and names["main"] == 1, names
assert any(e["ph"] == "M" and e["name"] == "thread_name" for e in ev)
ts = [e["ts"] for e in ev if e["ph"] == "i"]
assert ts == sorted(ts), "instants not in time order"
print("chrome: %d events, %d slices" % (len(ev), sum(names.values())))
PY
echo "ok"
