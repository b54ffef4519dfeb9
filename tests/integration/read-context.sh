#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# trace-read on a trace of several stream classes (context fields, see
# doc/trace-format.md), written by read-context-gen.py: classes 0 (none),
# 3 (ip, cpu_id) and 2 (cpu_id) in one trace, five streams, compact and
# extended event headers, an event id above 254, a payload field named
# like a context field. Checked:
#  - the text output is babeltrace2's, line for line (once babeltrace2's
#    "HOST:PROC:(PID) NAME: { tid = TID }, " is written "PROC:PID:TID NAME: "),
#    with times and with raw clock values;
#  - --format json has every event's context ("context") and payload, and
#    --export chrome has it in each event's arguments;
#  - --filter finds a payload field first, then a context field, and
#    $ctx.NAME the context field only; --latency --by pairs by a context
#    field; --stats=count adds up an event's classes under its name, and
#    --count (its old name) prints the same;
#  - a packet of an undeclared stream class, a stream changing class, an
#    event of an undeclared stream class and a stream class declared twice
#    each give status 3 (damaged) and a message naming the file (and the offset, or
#    the line), as babeltrace2 refuses them too.
. "$(dirname "$0")/lib.sh"
need_babeltrace
export LC_ALL=C
PY=$(command -v python3 || true)
[ -n "$PY" ] || { echo "python3 not installed: skipped"; exit 77; }
GEN_CTX=$(dirname "$0")/read-context-gen.py
T=$WORK/trace
"$PY" "$GEN_CTX" "$T" >"$WORK/expect" || fail "read-context-gen.py failed"
NEV=$(wc -l <"$WORK/expect")
[ "$NEV" -ge 30 ] || fail "only $NEV events generated"

# ---- text, as babeltrace2 prints it ----------------------------------------
# compare TRACE-READ-OPTION BABELTRACE2-OPTION
compare() {
	"$TRACE_READ" --no-symbols "$1" "$T" >"$WORK/tr.out" 2>"$WORK/tr.err" ||
		fail "trace-read $1 failed: $(head -3 "$WORK/tr.err")"
	[ ! -s "$WORK/tr.err" ] || fail "trace-read $1 complained: $(head -3 "$WORK/tr.err")"
	"$BT" "$2" "$T" >"$WORK/bt.out" 2>"$WORK/bt.err" ||
		fail "babeltrace2 $2 failed: $(head -3 "$WORK/bt.err")"
	[ ! -s "$WORK/bt.err" ] || fail "babeltrace2 $2 complained: $(head -3 "$WORK/bt.err")"
	sed -E 's/^(\[[^]]*\] \([^)]*\)) [^: ]*:([^: ]*):\(([0-9]+)\) ([^ ]*): \{ tid = ([0-9]+) \}, /\1 \2:\3:\5 \4: /' \
		"$WORK/bt.out" >"$WORK/bt.conv"
	! grep -q ' { tid = ' "$WORK/bt.conv" || fail "babeltrace2 $2: unexpected line: $(grep -m1 ' { tid = ' "$WORK/bt.conv")"
	[ "$(wc -l <"$WORK/tr.out")" -eq "$NEV" ] || fail "trace-read $1: $(wc -l <"$WORK/tr.out") events, $NEV expected"
	diff "$WORK/tr.out" "$WORK/bt.conv" >"$WORK/diff" ||
		fail "trace-read $1 and babeltrace2 $2 differ (< trace-read, > babeltrace2):
$(head -n 20 "$WORK/diff")"
}
compare --time-format=epoch --clock-seconds
compare --clock-raw --clock-cycles
n=$(grep -c ': { ip = 0x[0-9A-F]*, cpu_id = [0-9]* }, {' "$WORK/tr.out" || true)
[ "$n" -eq "$(awk '$6 != "-"' "$WORK/expect" | wc -l)" ] || fail "$n events with ip and cpu_id"
n=$(grep -c ': { cpu_id = [0-9]* }, {' "$WORK/tr.out" || true)
[ "$n" -eq "$(awk '$5 != "-" && $6 == "-"' "$WORK/expect" | wc -l)" ] || fail "$n events with cpu_id alone"
echo "ok: $NEV events printed as babeltrace2 prints them"

# ---- JSON ----------------------------------------------------------------------
"$TRACE_READ" --format json "$T" >"$WORK/json" 2>"$WORK/tr.err" || fail "trace-read --format json failed"
"$PY" - "$WORK/json" "$WORK/expect" <<'EOF' || fail "JSON: wrong context"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
want = [l.split() for l in open(sys.argv[2])]
assert len(rows) == len(want), (len(rows), len(want))
for r, (t, name, tid, cpu, ctx_cpu, ip) in zip(rows, want):
    assert (r["time_ns"], r["event"], r["tid"]) == (int(t), name, int(tid)), (r, t)
    ctx = {}
    if ip != "-":
        ctx["ip"] = ip
    if ctx_cpu != "-":
        ctx["cpu_id"] = int(ctx_cpu)
    assert r.get("context") == (ctx or None), (r, ctx)
    if "cpu_id" in r["fields"]:
        assert r["fields"]["cpu_id"] == int(cpu), r
    assert list(r) == ["time_ns", "time", "proc", "pid", "tid", "event"] + \
        (["context"] if ctx else []) + ["fields"], list(r)
EOF
"$TRACE_READ" --export chrome "$WORK/chrome.json" "$T" || fail "--export chrome failed"
"$PY" - "$WORK/chrome.json" "$WORK/expect" <<'EOF' || fail "Chrome export: wrong context"
import json, sys
evs = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "i"]
want = [l.split() for l in open(sys.argv[2])]
assert len(evs) == len(want), (len(evs), len(want))
for e, (t, name, tid, cpu, ctx_cpu, ip) in zip(evs, want):
    ctx = e["args"].get("context", {})
    assert (e["name"], ctx.get("cpu_id", "-"), ctx.get("ip", "-")) == \
        (name, "-" if ctx_cpu == "-" else int(ctx_cpu), ip), (e, t)
EOF
echo "ok: JSON and the Chrome export hold every event's context"

# ---- field names: payload, then context --------------------------------------
# check_filter EXPR AWK-CONDITION: the events EXPR keeps are those of the
# expected list for which the condition holds
check_filter() {
	"$TRACE_READ" --format json --filter "$1" "$T" >"$WORK/sel" 2>"$WORK/tr.err" ||
		fail "--filter '$1' failed: $(head -3 "$WORK/tr.err")"
	sed 's/^{"time_ns":\([0-9]*\),.*"event":"\([^"]*\)".*/\1 \2/' "$WORK/sel" >"$WORK/got"
	awk "$2"' { print $1, $2 }' "$WORK/expect" >"$WORK/want"
	[ -s "$WORK/want" ] || fail "--filter '$1': the expected selection is empty"
	diff "$WORK/got" "$WORK/want" >"$WORK/diff" ||
		fail "--filter '$1' (< trace-read, > expected):
$(head -n 20 "$WORK/diff")"
	echo "ok: --filter '$1' keeps the $(wc -l <"$WORK/got") right events"
}
check_filter 'cpu_id == 1' '$4 == 1'
check_filter '$ctx.cpu_id == 1' '$5 == 1'
check_filter '$ctx.cpu_id >= 2 && !$ctx.ip' '$5 >= 2 && $6 == "-"'
check_filter 'ip == 0x55d0c0de1010 || $ctx.ip == 0x55D0C0DE1020' '$6 == "0x55d0c0de1010" || $6 == "0x55d0c0de1020"'
check_filter '$ctx.tid == 101 && cpu_id != 1' '$3 == 101 && $4 != "-" && $4 != 1'
[ "$(awk '$5 != "-" && $4 != $5' "$WORK/expect" | wc -l)" -gt 0 ] ||
	fail "no event whose payload cpu_id is not its context's"
"$TRACE_READ" --filter '$ctx.small == 3333 || $ctx.nope' "$T" >"$WORK/sel" || fail "--filter '\$ctx.small' failed"
[ ! -s "$WORK/sel" ] || fail "\$ctx.NAME found a payload field: $(head -1 "$WORK/sel")"

# --latency by a context field: each ctx:value ends the latest open
# ctx:start of the same cpu_id (events without context cannot pair)
want=$(awk '$2 == "ctx:start" && $5 != "-" { open[$5]++ }
	    $2 == "ctx:value" && $5 != "-" && open[$5] > 0 { open[$5]--; n++ }
	    END { print n + 0 }' "$WORK/expect")
[ "$want" -gt 0 ] || fail "no pair to find"
"$TRACE_READ" --latency ctx:start,ctx:value --by cpu_id "$T" >"$WORK/lat" || fail "--latency --by failed"
grep -q "^Latency ctx:start -> ctx:value by cpu_id: $want pairs " "$WORK/lat" ||
	fail "--latency --by cpu_id: $(head -1 "$WORK/lat"), $want pairs expected"
echo "ok: --latency --by cpu_id finds the $want pairs"

# --stats=count: one line per event name, whatever its stream classes
"$TRACE_READ" --stats=count "$T" >"$WORK/count" || fail "--stats=count failed"
awk '{ n[$2]++ } END { for (e in n) printf "%12d  %s\n", n[e], e; printf "%12d  total\n%12d  discarded\n", NR, 0 }' \
	"$WORK/expect" | sort -k2,2 >"$WORK/count.want"
sort -k2,2 "$WORK/count" | diff - "$WORK/count.want" >"$WORK/diff" || fail "--stats=count: $(cat "$WORK/diff")"
# --count and -c, its old names, print the same; another mode is refused
for old in --count -c; do
	"$TRACE_READ" $old "$T" | cmp -s - "$WORK/count" || fail "$old differs from --stats=count"
done
rc=0
"$TRACE_READ" --stats=nope "$T" >/dev/null 2>"$WORK/nope.err" || rc=$?
[ "$rc" = 2 ] && grep -q "nope" "$WORK/nope.err" ||
	fail "--stats=nope: status $rc, $(cat "$WORK/nope.err")"
echo "ok: --stats=count (and --count)"

# ---- stream classes that do not add up ----------------------------------------
for kind in packet-class class-change event-class dup-class; do
	"$PY" "$GEN_CTX" "$WORK/$kind" --corrupt "$kind" >/dev/null ||
		fail "read-context-gen.py --corrupt $kind failed"
done
# refused KIND TEXT...: the trace damaged as KIND gives status 3 and every
# TEXT on stderr, from trace-read and trace-read --stats; babeltrace2
# refuses it too
refused() {
	local kind=$1 mode st t
	shift
	for mode in "" --stats; do
		st=0
		timeout 60 "$TRACE_READ" $mode "$WORK/$kind" >/dev/null 2>"$WORK/err" || st=$?
		[ "$st" -eq 3 ] || fail "$kind: trace-read $mode: status $st, expected 3: $(head -3 "$WORK/err")"
		grep -q '^trace-read: ' "$WORK/err" || fail "$kind: trace-read $mode: no message"
		for t in "$@"; do
			grep -qF -- "$t" "$WORK/err" ||
				fail "$kind: trace-read $mode: '$t' not in: $(head -3 "$WORK/err")"
		done
	done
	! "$BT" "$WORK/$kind" >/dev/null 2>&1 || fail "$kind: babeltrace2 read the trace"
	echo "ok: $kind: $(cat "$WORK/err")"
}
# the second packet of ch_1 starts where the first one ends
P2=$(($(od -An -t u8 -j 56 -N 8 "$T/ch_1" | tr -d ' ') / 8))
refused packet-class "$WORK/packet-class/ch_1: offset $((P2 + 20)): " "unknown stream id 5"
refused class-change "$WORK/class-change/ch_1: offset $((P2 + 20)): " \
	"stream id 2 after packets of stream id 3"
# the line of the event block, and of the second "stream {" of id 3
line=$(($(grep -n 'name = "ctx:orphan"' "$WORK/event-class/metadata" | cut -d: -f1) - 1))
refused event-class "$WORK/event-class/metadata:$line: " "event 'ctx:orphan' refers to unknown stream 7"
line=$(grep -n '^stream {' "$WORK/dup-class/metadata" | sed -n 4p | cut -d: -f1)
refused dup-class "$WORK/dup-class/metadata:$line: " "duplicate stream id 3"
