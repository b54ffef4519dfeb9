#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Filters nested too deep are refused with their column, by the session
# daemon (enable-event and aggregate --filter; it answers and goes on) and
# by trace-read --filter (status 2), even with a stack of 1 MiB for the
# daemons and the tools: 32000 parentheses, 60000 '!', 60000 '-'. 256
# levels are still a filter that works, in the traced threads and in
# trace-read.
. "$(dirname "$0")/lib.sh"
ulimit -s 1024		# for everything started from here: daemons, tools
start_daemons

# nest N OPEN CLOSE: N times OPEN, "seq == 1", N times CLOSE
nest() {
	python3 -c 'import sys; n = int(sys.argv[1]); print(sys.argv[2] * n + "seq == 1" + sys.argv[3] * n, end="")' "$@"
}

# refused WHAT COLUMN CMD...: status 1 from tracectl, the column said; the
# daemon is alive and answers
refused() {
	local what=$1 col=$2 st=0
	shift 2
	"$@" --format json >"$WORK/err.json" 2>"$WORK/err" || st=$?
	[ "$st" -eq 1 ] || fail "$what: status $st, expected 1: $(head -c 300 "$WORK/err")"
	[ "$(error_code "$WORK/err.json")" = bad-filter ] &&
		[ "$(jget "$WORK/err.json" error column)" = "$col" ] &&
		[[ $(jget "$WORK/err.json" error why) == "nested too deep"* ]] ||
		fail "$what: not refused at column $col: $(head -c 300 "$WORK/err.json")"
	kill -0 "$SESSIOND_PID" 2>/dev/null || fail "$what: the session daemon died"
	"$TRACECTL" list >/dev/null || fail "$what: the session daemon does not answer"
	echo "ok: $what: $(head -c 200 "$WORK/err")"
}

"$TRACECTL" create s --output "$WORK/out" >/dev/null || fail "cannot create s"
refused "enable-event, 32000 parentheses" 257 \
	"$TRACECTL" enable-event -s s --filter "$(nest 32000 '(' ')')" 'shmtrace_test:*'
refused "enable-event, 60000 '!'" 257 \
	"$TRACECTL" enable-event -s s --filter "$(nest 60000 '!' '')" 'shmtrace_test:*'
refused "enable-event, 257 parentheses" 257 \
	"$TRACECTL" enable-event -s s --filter "$(nest 257 '(' ')')" 'shmtrace_test:*'
refused "aggregate --filter, 32000 parentheses" 257 \
	"$TRACECTL" aggregate -s s a 'shmtrace_test:*' --count --filter "$(nest 32000 '(' ')')"
st=0
"$TRACECTL" enable-event -s s --filter "$(nest 60000 '-' '')" 'shmtrace_test:*' --format json \
	>"$WORK/err.json" 2>"$WORK/err" || st=$?
[ "$st" -eq 1 ] && [ "$(error_code "$WORK/err.json")" = bad-filter ] &&
	[ "$(jget "$WORK/err.json" error column)" = 1 ] &&
	[[ $(jget "$WORK/err.json" error why) == "bad number"* ]] ||
	fail "60000 '-': status $st: $(head -c 300 "$WORK/err.json")"
kill -0 "$SESSIOND_PID" || fail "60000 '-': the session daemon died"

# 256 levels: a filter like any other
DEEP=$(nest 256 '(' ')')
"$TRACECTL" enable-event -s s --filter "$DEEP" 'shmtrace_test:event' >/dev/null ||
	fail "256 parentheses refused"
"$TRACECTL" start s >/dev/null
"$GEN" -n 100 -t 3 || fail "gen-events failed"
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null
n=$("$TRACE_READ" "$WORK/out" | grep -c 'seq = 1,')
[ "$n" -eq 3 ] || fail "256 parentheses: $n events recorded, expected 3: $("$TRACE_READ" "$WORK/out" | head -5)"
[ "$("$TRACE_READ" "$WORK/out" | wc -l)" -eq 3 ] || fail "256 parentheses: more than seq 1 recorded"

# trace-read --filter: status 2 with the column, never a crash
tr_refused() {
	local what=$1 col=$2 st=0
	shift 2
	"$TRACE_READ" --filter "$@" "$WORK/out" >/dev/null 2>"$WORK/err" || st=$?
	[ "$st" -eq 2 ] || fail "trace-read: $what: status $st, expected 2: $(head -c 300 "$WORK/err")"
	grep -q "column $col: nested too deep" "$WORK/err" ||
		fail "trace-read: $what: not refused at column $col: $(head -c 300 "$WORK/err")"
	echo "ok: trace-read: $what: $(head -c 200 "$WORK/err")"
}
tr_refused "60000 parentheses" 257 "$(nest 60000 '(' ')')"
tr_refused "60000 '!'" 257 "$(nest 60000 '!' '')"
tr_refused "'!(' 30000 times" 257 "$(nest 30000 '!(' ')')"
st=0
"$TRACE_READ" --filter "$(nest 60000 '-' '')" "$WORK/out" >/dev/null 2>"$WORK/err" || st=$?
[ "$st" -eq 2 ] || fail "trace-read: 60000 '-': status $st"
n=$("$TRACE_READ" --filter "$DEEP" "$WORK/out" | wc -l)
[ "$n" -eq 3 ] || fail "trace-read: 256 parentheses: $n events, expected 3"
echo "ok: 256 levels filter in the traced threads and in trace-read"
