#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# trace-read selection and formats: --event, --filter (numbers, strings,
# globs, !, ||, parentheses, context), --pid, --tid, --begin/--end, JSON
# lines that parse and agree with the text, time formats; a bad filter is
# refused with its column (status 1).
. "$(dirname "$0")/lib.sh"
start_daemons
D=$WORK/out
new_session "$D" 'shmtrace_test:*'
"$GEN" -n 1000 -t 3 -T || fail "gen-events failed"
"$GEN" -n 10 -t 1 || fail "gen-events failed"
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null
count() { "$TRACE_READ" "$@" "$D" | wc -l; }
[ "$(count)" -eq 3012 ] || fail "$(count) events in all"
[ "$(count --event 'shmtrace_test:event')" -eq 3010 ] || fail "--event"
[ "$(count -e 'shmtrace_test:types' -e 'shmtrace_test:mark')" -eq 2 ] || fail "two --event"
[ "$(count --filter 'seq >= 500 && thread == 1')" -eq 500 ] || fail "--filter numbers: $(count --filter 'seq >= 500 && thread == 1')"
# 40 with seq < 10 (3 threads and the second process), and types and mark: no seq
[ "$(count --filter '!(seq >= 10) || (thread == 2 && seq < 5)')" -eq 42 ] || fail "--filter ! || ()"
[ "$(count --filter 'payload == "cde*" && seq < 3')" -eq 3 ] || fail "--filter glob"
[ "$(count --filter 'dbl > 1.0 && str != ""')" -eq 1 ] || fail "--filter on types"
[ "$(count --filter 'nosuch == 1')" -eq 0 ] || fail "--filter missing field"
pid=$(ls "$D" | sed -n 's/gen-events-\([0-9]*\)/\1/p' | sort -n | tail -1)
[ "$(count --pid "$pid")" -eq 10 ] || fail "--pid"
[ "$(count --filter "\$ctx.pid == $pid")" -eq 10 ] || fail "\$ctx.pid"
[ "$(count --filter "\$ctx.vpid == $pid")" -eq 10 ] || fail "\$ctx.vpid (enable-event's name)"
tid=$("$TRACE_READ" --pid "$pid" "$D" | head -1 | sed 's/.*:\([0-9]*\) shmtrace_test.*/\1/')
[ "$(count --tid "$tid")" -eq 10 ] || fail "--tid $tid: $(count --tid "$tid")"
# time window: the second process only, by its first and last times (epoch)
"$TRACE_READ" --time-format epoch --pid "$pid" "$D" >"$WORK/p2"
b=$(head -1 "$WORK/p2" | sed 's/^\[\([0-9.]*\)\].*/\1/')
e=$(tail -1 "$WORK/p2" | sed 's/^\[\([0-9.]*\)\].*/\1/')
[ "$(count --begin "$b" --end "$e")" -eq 10 ] || fail "--begin/--end: $(count --begin "$b" --end "$e")"
[ "$(count --begin +0s --end +0ns)" -ge 1 ] || fail "relative --end"
# --end +D counts from --begin (the second process began after the first's events)
[ "$(count --begin "$b" --end +0ns)" -ge 1 ] || fail "--end +0ns from --begin $b"
[ "$(count --begin "$b" --end +1h)" -eq 10 ] || fail "--end +1h from --begin $b"
# a window that selects nothing is an error (2), known at once or at the first event
for w in "--begin 100 --end 50" "--begin +1s --end 0.5"; do
	st=0
	# shellcheck disable=SC2086 # two options in each
	"$TRACE_READ" $w "$D" >"$WORK/out.txt" 2>"$WORK/err" || st=$?
	[ "$st" -eq 2 ] && [ ! -s "$WORK/out.txt" ] && [ -s "$WORK/err" ] ||
		fail "inverted window $w: status $st, $(head -3 "$WORK/out.txt" "$WORK/err")"
done
# JSON lines: valid, one per event, same values as the text
"$TRACE_READ" --format json "$D" >"$WORK/json" || fail "--format json"
[ "$(wc -l <"$WORK/json")" -eq 3012 ] || fail "json lines"
PY=$(command -v /usr/bin/python3 python3 | head -1)
if [ -n "$PY" ]; then
	"$PY" -c '
import json, sys
n = 0
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["event"] == "shmtrace_test:event":
        assert e["fields"]["seq"] < 1000 and e["fields"]["thread"] < 3, e
        n += 1
    if e["event"] == "shmtrace_test:types":
        f = e["fields"]
        assert isinstance(f["dbl"], float) and f["ptr"].startswith("0x") and isinstance(f["bytes"], list), f
assert n == 3010, n
' "$WORK/json" || fail "JSON content"
fi
# relative times start at 0
"$TRACE_READ" --time-format relative "$D" >"$WORK/rel"
head -1 "$WORK/rel" | grep -q '^\[0\.000000000\]' || fail "relative time: $(head -1 "$WORK/rel")"
"$TRACE_READ" --time-format date "$D" >"$WORK/date"
head -1 "$WORK/date" | grep -q '^\[20[0-9][0-9]-[0-9][0-9]-[0-9][0-9] ' || fail "date time: $(head -1 "$WORK/date")"
st=0
"$TRACE_READ" --filter 'seq >= && thread == 1' "$D" >/dev/null 2>"$WORK/err" || st=$?
[ "$st" -eq 2 ] && grep -q "column 8" "$WORK/err" || fail "bad filter: status $st, $(cat "$WORK/err")"
# typos: an option, a format, an event pattern, a field; warnings leave the output alone
said() { # said STATUS EXPECTED-ERE ARGS...: the status and a line of the standard error
	local want=$1 re=$2 st=0
	shift 2
	"$TRACE_READ" "$@" >"$WORK/out.txt" 2>"$WORK/err" || st=$?
	[ "$st" -eq "$want" ] && grep -Eq -- "$re" "$WORK/err" ||
		fail "trace-read $*: status $st (want $want), said: $(cat "$WORK/err")"
}
said 2 "did you mean '--follow'" --folow "$D"
said 2 "did you mean '--latency'" --latncy=a,b "$D"
said 2 "text or json" --format xml "$D"
said 2 "clock, date, epoch or relative" --time-format utc "$D"
said 0 "'shmtrace_test:evnt' matches no event.*did you mean 'shmtrace_test:event'" \
	-e shmtrace_test:evnt -e 'shmtrace_test:m*' "$D"
[ "$(wc -l <"$WORK/out.txt")" -eq 1 ] || fail "-e with a typo: $(wc -l <"$WORK/out.txt") events"
grep -q 'm\*' "$WORK/err" && fail "a pattern that matches was warned of: $(cat "$WORK/err")"
said 0 "--latency 'shmtrace_test:evnt' matches no event" \
	--latency shmtrace_test:evnt,shmtrace_test:mark "$D"
said 0 "no event read has a field 'sqe'; did you mean 'seq'" --filter 'sqe < 5 || thread == 9' "$D"
[ ! -s "$WORK/out.txt" ] || fail "--filter with a typo printed events"
said 0 "no event read has a field '.ctx.vpd'; did you mean '.ctx.vpid'" --filter "\$ctx.vpd == 1" "$D"
"$TRACE_READ" -e shmtrace_test:event --filter 'seq < 5 && $ctx.pid > 0 && nosuch != 1' "$D" \
	>/dev/null 2>"$WORK/err" || fail "a good selection failed"
[ "$(grep -c warning "$WORK/err")" -eq 1 ] && grep -q "'nosuch'" "$WORK/err" ||
	fail "warnings for a good selection: $(cat "$WORK/err")"
# the exit statuses --help states are those given
"$TRACE_READ" --help | tr '\n' ' ' | tr -s ' ' >"$WORK/help"
for st in "0 on success" "1 on other errors" "2 on a bad command line" "3 on a damaged trace"; do
	grep -q "$st" "$WORK/help" || fail "--help does not say '$st'"
done
said 1 "." "$WORK/no-such-trace"
said 2 "." --latency "$D"
# --profile of traces without function events says what it needs
"$TRACE_READ" --profile "$D" >"$WORK/out.txt" || fail "--profile failed"
grep -q 'shmtrace_func:entry.*-finstrument-functions' "$WORK/out.txt" ||
	fail "--profile without function events: $(cat "$WORK/out.txt")"
echo "ok"
