#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# trace-read --aggregations on an aggregations.json written here by hand
# (no daemon): laid out otherwise than the consumer does, with members it
# does not know, string keys with escapes and a byte that is not UTF-8,
# lquantize's outer buckets, negative and extreme values, an aggregation
# without keys. The text and the JSON printed must be exactly these; the
# JSON must be a document that python3's json module reads and that
# trace-read reads back into the same text; --name keeps one aggregation.
# A missing file (status 1), a damaged one (cut anywhere, not JSON, not
# what the consumer writes: 3) and bad usage (2) give a message that says
# where and why; never a crash.
. "$(dirname "$0")/lib.sh"
D=$WORK/session
mkdir -p "$D"
cat >"$D/aggregations.json" <<'EOF'
[
 {"name": "lat", "event": "app:req", "keys": ["path", "code"],
  "key_types": ["str", "int"],
  "functions": [{"fn": "count"}, {"fn": "sum", "field": "us"},
                {"fn": "avg", "field": "us"},
                {"fn": "lquantize", "field": "us", "lo": 0, "hi": 10, "step": 5, "unit": "us"}],
  "written_by": {"hand": [1, 2.5, null, true]},
  "updates": 5, "dropped": 1, "lost": 0, "torn": 2,
  "entries": [
   {"key": ["/a", 404], "count": 1, "sum(us)": -3, "avg(us)": -3,
    "lquantize(us)": [{"lo": null, "hi": -1, "count": 1}]},
   {"key": ["/a\"x\t\udcff", 200], "count": 3, "sum(us)": 16, "avg(us)": 5.333333333333333,
    "lquantize(us)": [{"lo": 0, "hi": 4, "count": 2}, {"hi": null, "lo": 10, "count": 1}]}
  ]},
 {"name": "totals", "event": "*", "keys": [], "key_types": [],
  "functions": [{"fn": "count"}, {"fn": "min", "field": "seq"}, {"fn": "max", "field": "seq"},
                {"fn": "quantize", "field": "seq"}],
  "updates": 18446744073709551615, "dropped": 0, "lost": 3, "torn": 0,
  "entries": [{"key": [], "count": 9223372036854775807, "min(seq)": null,
               "max(seq)": -9223372036854775808,
               "quantize(seq)": [{"lo": -1, "hi": -1, "count": 3}, {"lo": 4, "hi": 7, "count": 1}]}]}
]
EOF

{
	cat <<'EOF'
lat  app:req  (5 updates, 1 keys dropped, 0 lost, 2 tables torn)
  path = /a, code = 404
    count = 1, sum(us) = -3, avg(us) = -3
    lquantize(us)
           value  ------------- Distribution ------------- count
        <      0 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1
               0 |                                         0
EOF
	printf '  path = /a"x?\377, code = 200\n'
	cat <<'EOF'
    count = 3, sum(us) = 16, avg(us) = 5.33333
    lquantize(us)
           value  ------------- Distribution ------------- count
        <      0 |                                         0
               0 |@@@@@@@@@@@@@@@@@@@@@@@@@@               2
               5 |                                         0
       >=     10 |@@@@@@@@@@@@@                            1
EOF
} >"$WORK/lat.txt"
cat >"$WORK/totals.txt" <<'EOF'
totals  *  (18446744073709551615 updates, 0 keys dropped, 3 lost, 0 tables torn)
  (all)
    count = 9223372036854775807, min(seq) = -, max(seq) = -9223372036854775808
    quantize(seq)
           value  ------------- Distribution ------------- count
              -3 |                                         0
              -1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@           3
               0 |                                         0
               1 |                                         0
               2 |                                         0
               4 |@@@@@@@@@@                               1
               8 |                                         0
EOF
cat "$WORK/lat.txt" "$WORK/totals.txt" >"$WORK/want.txt"

LAT='{"name":"lat","event":"app:req","keys":["path","code"],"key_types":["str","int"],"functions":[{"fn":"count"},{"fn":"sum","field":"us"},{"fn":"avg","field":"us"},{"fn":"lquantize","field":"us","lo":0,"hi":10,"step":5}],"updates":5,"dropped":1,"lost":0,"torn":2,"entries":[{"key":["/a",404],"count":1,"sum(us)":-3,"avg(us)":-3,"lquantize(us)":[{"lo":null,"hi":-1,"count":1}]},{"key":["/a\"x\u0009\udcff",200],"count":3,"sum(us)":16,"avg(us)":5.333333333333333,"lquantize(us)":[{"lo":0,"hi":4,"count":2},{"lo":10,"hi":null,"count":1}]}]}'
TOTALS='{"name":"totals","event":"*","keys":[],"key_types":[],"functions":[{"fn":"count"},{"fn":"min","field":"seq"},{"fn":"max","field":"seq"},{"fn":"quantize","field":"seq"}],"updates":18446744073709551615,"dropped":0,"lost":3,"torn":0,"entries":[{"key":[],"count":9223372036854775807,"min(seq)":null,"max(seq)":-9223372036854775808,"quantize(seq)":[{"lo":-1,"hi":-1,"count":3},{"lo":4,"hi":7,"count":1}]}]}'
printf '[\n%s,\n%s\n]\n' "$LAT" "$TOTALS" >"$WORK/want.json"
printf '[\n%s\n]\n' "$TOTALS" >"$WORK/totals.json"

# run NAME WANT_STATUS ARGS...: trace-read's output in $WORK/NAME.out, .err
run() {
	local name=$1 want=$2 rc=0
	shift 2
	"$TRACE_READ" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" || rc=$?
	[ "$rc" -eq "$want" ] ||
		fail "trace-read $*: status $rc, wanted $want: $(head -3 "$WORK/$name.err")"
}

same() {
	cmp -s "$1" "$2" || { diff "$2" "$1" | head -20 >&2; fail "$1 differs from $2"; }
}

# text, from the directory and from the file
run text 0 --aggregations "$D"
same "$WORK/text.out" "$WORK/want.txt"
[ ! -s "$WORK/text.err" ] || fail "text: said $(cat "$WORK/text.err")"
run file 0 --aggregations "$D/aggregations.json" --format text
same "$WORK/file.out" "$WORK/want.txt"

# JSON: normalised, valid, read back to the same text and the same JSON
run json 0 --aggregations "$D" --format json
same "$WORK/json.out" "$WORK/want.json"
if command -v python3 >/dev/null 2>&1; then
	python3 -m json.tool "$WORK/json.out" >/dev/null || fail "python3 cannot read the JSON"
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert [a["name"] for a in d] == ["lat", "totals"]
assert d[0]["key_types"] == ["str", "int"]
assert d[0]["functions"][3] == {"fn": "lquantize", "field": "us", "lo": 0, "hi": 10, "step": 5}
k = d[0]["entries"][1]["key"][0].encode("utf-8", "surrogateescape")
assert k == b"/a\"x\t\xff", k
assert d[1]["updates"] == 2**64 - 1 and d[1]["entries"][0]["max(seq)"] == -2**63
' "$WORK/json.out" || fail "python3 reads other values"
fi
run back 0 --aggregations "$WORK/json.out"
same "$WORK/back.out" "$WORK/want.txt"
run back2 0 --aggregations "$WORK/json.out" --format json
same "$WORK/back2.out" "$WORK/want.json"

# --name
run name 0 --aggregations "$D" --name totals
same "$WORK/name.out" "$WORK/totals.txt"
run namej 0 --aggregations "$D" --name totals --format json
same "$WORK/namej.out" "$WORK/totals.json"
run noname 1 --aggregations "$D" --name nosuch
grep -q "no aggregation named nosuch" "$WORK/noname.err" || fail "noname: $(cat "$WORK/noname.err")"
[ ! -s "$WORK/noname.out" ] || fail "noname printed something"

# no aggregations at all
printf '[\n]\n' >"$WORK/none.json"
run none 0 --aggregations "$WORK/none.json" --format json
printf '[\n]\n' | cmp -s - "$WORK/none.out" || fail "none: $(cat "$WORK/none.out")"

# no aggregations.json, nothing there
mkdir -p "$WORK/empty"
run missing 1 --aggregations "$WORK/empty"
grep -q "empty has no aggregations.json" "$WORK/missing.err" ||
	fail "missing: $(cat "$WORK/missing.err")"
run missing2 1 --aggregations "$WORK/nothing-here"
grep -q "nothing-here: No such file or directory" "$WORK/missing2.err" ||
	fail "missing2: $(cat "$WORK/missing2.err")"

# bad usage
run usage1 2 --name lat "$D"
run usage2 2 --aggregations "$D" "$D"
run usage3 2 --aggregations "$D" --stats=count
run usage4 2 --aggregations "$D" --format yaml

# damaged: status 3, "FILE: offset N: why", nothing on standard output
damaged() {
	local what=$1 want=$2
	run damaged 3 --aggregations "$WORK/bad.json"
	grep -q "^trace-read: $WORK/bad.json: $want" "$WORK/damaged.err" ||
		fail "$what: said '$(cat "$WORK/damaged.err")', wanted '$want'"
	[ ! -s "$WORK/damaged.out" ] || fail "$what: printed something"
}
: >"$WORK/bad.json"
damaged empty "offset 0: empty document"
printf '[\n{"name":' >"$WORK/bad.json"
damaged cut "offset 10: unexpected end of input"
printf '[1,2]' >"$WORK/bad.json"
damaged "not aggregations" "offset 1: aggregation: not an object"
sed 's/"hi": 4, "count": 2/"hi": 5, "count": 2/' "$D/aggregations.json" >"$WORK/bad.json"
off=$(grep -bo '{"lo": 0, "hi": 5' "$WORK/bad.json" | cut -d: -f1)
damaged "bad bucket" "offset $off: bucket: not one of the histogram's"
sed 's|"/a", 404|"/a\xff", 404|' "$D/aggregations.json" >"$WORK/bad.json"
off=$(LC_ALL=C grep -abo '/a.", 404' "$WORK/bad.json" | cut -d: -f1)
damaged "not UTF-8" "offset $((off + 2)): not UTF-8"
sed 's|"/a", 404|"/b", 404|' "$D/aggregations.json" >"$WORK/bad.json"
off=$(grep -bo '{"key": \["/a\\"x' "$WORK/bad.json" | cut -d: -f1)
damaged "order" "offset $off: entry: key not after the one before"

# cut anywhere: refused, never a crash
size=$(stat -c %s "$D/aggregations.json")
for ((n = 0; n < size - 2; n += 5)); do
	head -c "$n" "$D/aggregations.json" >"$WORK/bad.json"
	rc=0
	"$TRACE_READ" --aggregations "$WORK/bad.json" >/dev/null 2>"$WORK/cut.err" || rc=$?
	[ "$rc" -eq 3 ] || fail "cut at $n: status $rc"
	grep -q "^trace-read: $WORK/bad.json: offset [0-9]*: " "$WORK/cut.err" ||
		fail "cut at $n: $(cat "$WORK/cut.err")"
done
echo "read-aggregations: ok"
