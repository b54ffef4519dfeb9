#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An aggregation trigger (acceptance 4 of triggers): 'p99 > 5ms' on a
# quantize of durations the test emits does not fire while the p99 stays
# below (1 ms values, then a few slow ones that stay under 1 %), fires
# once when the slow ones make the p99 cross (wait-trigger returns with
# the key and the value), not again while it stays true, and per key:
# another key fires on its own edge.
. "$(dirname "$0")/lib.sh"
start_daemons
"$TRACECTL" create s --output "$WORK/out" >/dev/null &&
	"$TRACECTL" aggregate -s s lat 'shmtrace_dur:req' --by key --quantize dur >/dev/null &&
	"$TRACECTL" start s >/dev/null || fail "cannot set up session s"
ctl_json "$WORK/add.json" add-trigger slow --on-aggregation lat --when 'p99 > 5ms' --every 100ms \
	--action notify || fail "add-trigger: $(cat "$WORK/add.json")"
[ "$(jget "$WORK/add.json" triggers slow condition when)" = 'p99 > 5ms' ] || fail "$(cat "$WORK/add.json")"
# a condition the aggregation cannot answer is refused
st=0
ctl_json "$WORK/bad.json" add-trigger bad --on-aggregation lat --when 'avg > 5ms' --action notify || st=$?
[ "$st" -eq 1 ] && [ "$(error_code "$WORK/bad.json")" = bad-condition ] || fail "avg: $(cat "$WORK/bad.json")"

"$TRACECTL" wait-trigger slow --timeout 60s --format json >"$WORK/fired.json" &
waiter=$!
mkfifo "$WORK/din" "$WORK/dout"
"$B/tests/apps/dur-app" <"$WORK/din" >"$WORK/dout" &
dur=$!
exec {DIN}>"$WORK/din"
exec {DOUT}<"$WORK/dout"
read -r -t 30 line <&"$DOUT" && [ "$line" = ready ] || fail "dur-app did not start"
say() {	# say LINE: dur-app emits LINE's events, then a few evaluations pass
	local line=
	echo "$1" >&"$DIN"
	read -r -t 30 line <&"$DOUT" || true
	[ "$line" = done ] || fail "dur-app said '$line'"
	sleep 0.5
}
fired() {
	ctl_json "$WORK/l.json" list-triggers || fail "list-triggers"
	jget "$WORK/l.json" triggers slow fired
}
say "1000 1000000 1"
[ "$(fired)" -eq 0 ] || fail "fired with every value at 1 ms: $(cat "$WORK/l.json")"
# 5 of 1005 at 20 ms: the p99 is still 1 ms
say "5 20000000 1"
[ "$(fired)" -eq 0 ] || fail "fired before the p99 crossed: $(cat "$WORK/l.json")"
kill -0 "$waiter" || fail "wait-trigger returned early: $(cat "$WORK/fired.json")"
# 25 of 1025: the p99 is in the bucket from 16 ms
say "20 20000000 1"
wait "$waiter" || fail "wait-trigger: $(cat "$WORK/fired.json")"
[ "$(fired)" -eq 1 ] || fail "not fired once: $(cat "$WORK/l.json")"
[ "$(jget "$WORK/fired.json" firing kind)" = aggregation ] &&
	[ "$(jget "$WORK/fired.json" firing key)" = 'key = 1' ] &&
	[ "$(jget "$WORK/fired.json" firing value)" -eq 16777216 ] || fail "what fired: $(cat "$WORK/fired.json")"
# true still: no new firing
say "10 20000000 1"
[ "$(fired)" -eq 1 ] || fail "fired again while true: $(cat "$WORK/l.json")"
# another key: its own edge
say "100 30000000 2"
[ "$(fired)" -eq 2 ] || fail "key 2 did not fire: $(cat "$WORK/l.json")"
exec {DIN}>&-
wait "$dur" || fail "dur-app failed"
grep -q "trigger slow fired: p99 > 5ms of s/lat for key key = 2" "$SHMTRACE_HOME/sessiond.log" ||
	fail "no log line for key 2"
"$TRACECTL" destroy s >/dev/null
echo "ok: 'p99 > 5ms' fired when the p99 crossed, once per key"
