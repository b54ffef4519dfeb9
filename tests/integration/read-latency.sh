#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# trace-read --latency: the pairs, exact percentiles (nearest rank) and the
# power-of-two histogram, against the same figures computed here from
# babeltrace2's output, per thread and --by a key field; --slower-than
# lists exactly the pairs above the bound.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/out
new_session "$D" 'shmtrace_lat:*'
"$B/tests/apps/latency-app" 3 300 || fail "latency-app failed"
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null
"$BT" --clock-seconds "$D" >"$WORK/bt" 2>"$WORK/bt.err" || fail "babeltrace2 failed"
# time (ns from the first second), tid, begin/end, id
awk '{
	t = substr($1, 2, length($1) - 2); split(t, p, ".")
	if (!base) base = p[1]
	match($0, /tid = [0-9]+/); tid = substr($0, RSTART + 6, RLENGTH - 6)
	match($0, /{ id = [0-9]+/); id = substr($0, RSTART + 7, RLENGTH - 7)
	kind = index($0, "req_begin") ? "b" : "e"
	printf "%d %s %s %s\n", (p[1] - base) * 1000000000 + p[2], tid, kind, id
}' "$WORK/bt" >"$WORK/ev"

# expected KEYCOL: durations paired by column KEYCOL (2 = tid, 4 = id)
expected() {
	awk -v k="$1" '$3 == "b" { st[$k, ++n[$k]] = $1 }
		$3 == "e" && n[$k] > 0 { print $1 - st[$k, n[$k]--] }' "$WORK/ev" | sort -n >"$WORK/dur"
	awk '{ d[NR] = $1 } END {
		n = NR; split("500 900 990 999", pm, " "); split("p50 p90 p99 p99.9", nm, " ")
		printf "pairs %d\nmin %d\n", n, d[1]
		for (i = 1; i <= 4; i++) { r = int((pm[i] * n + 999) / 1000); printf "%s %d\n", nm[i], d[r] }
		printf "max %d\n", d[n]
		for (i = 1; i <= n; i++) { b = 0; v = d[i]; while (v >= 1) { b++; v = int(v / 2) }; h[b]++ }
		for (b in h) printf "bucket %d %d\n", (b == 0 ? 0 : 2 ^ (b - 1)), h[b]
	}' "$WORK/dur" | sort >"$WORK/want"
}
# got ARGS...: the same figures from trace-read --latency
got() {
	"$TRACE_READ" --latency shmtrace_lat:req_begin,shmtrace_lat:req_end "$@" "$D" >"$WORK/tr" ||
		fail "trace-read --latency failed"
	awk '/^Latency/ { sub(/ pairs.*/, ""); print "pairs", $NF }
		$1 ~ /^(min|max|p50|p90|p99|p99.9)$/ { print $1, $2 }
		$2 ~ /^\|/ && $NF > 0 { print "bucket", $1, $NF }' "$WORK/tr" | sort >"$WORK/got"
}
expected 2
got
diff "$WORK/want" "$WORK/got" >&2 || fail "per thread: trace-read's figures differ (above: < expected, > trace-read)"
# each figure once, exact, under its unit
grep -Eq '^ +ns$' "$WORK/tr" || fail "no heading over the figures: $(cat "$WORK/tr")"
awk '$1 ~ /^(min|max|p50|p90|p99|p99.9)$/ && NF != 2 { bad = 1 } END { exit bad }' "$WORK/tr" ||
	fail "a figure printed twice: $(cat "$WORK/tr")"
[ "$(sed -n 's/^pairs //p' "$WORK/got")" -eq $((3 * 301 + 3)) ] || fail "per thread: wrong number of pairs"
expected 4
got --by id
diff "$WORK/want" "$WORK/got" >&2 || fail "--by id: trace-read's figures differ"
[ "$(sed -n 's/^pairs //p' "$WORK/got")" -eq $((3 * 302)) ] || fail "--by id: wrong number of pairs"
# --slower-than: exactly the pairs above 200 us
"$TRACE_READ" --latency shmtrace_lat:req_begin,shmtrace_lat:req_end --by id --slower-than 200us \
	"$D" >"$WORK/slow" || fail "--slower-than failed"
n=$(grep -c '^slow: ' "$WORK/slow" || true)
want=$(awk '$1 > 200000' "$WORK/dur" | wc -l)
[ "$n" -eq "$want" ] && [ "$n" -gt 0 ] || fail "--slower-than listed $n pairs, expected $want"
echo "ok: $(sed -n 's/^pairs //p' "$WORK/got") pairs, percentiles and histogram exact"
