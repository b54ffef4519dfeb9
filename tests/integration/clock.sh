#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Both trace clocks (the TSC when usable, CLOCK_MONOTONIC when forced with
# SHMTRACE_CLOCK=monotonic) give event times that babeltrace2 and
# trace-read convert to the wall-clock time at which they were emitted.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons

check_times() {	# DIR CLOCKNAME BEFORE AFTER
	local meta t
	meta=$(find "$1" -name metadata | head -n 1)
	grep -q "name = \"$2\";" "$meta" || fail "$1: the clock is not $2: $(grep -A3 '^clock' "$meta")"
	"$BT" --clock-seconds "$1" >"$WORK/bt.s" 2>"$WORK/bt.err" || fail "babeltrace2: $(head -3 "$WORK/bt.err")"
	[ "$(wc -l <"$WORK/bt.s")" -eq 20 ] || fail "$1: expected 20 events"
	awk -v lo="$3" -v hi="$4" -F'[][]' '{ t = $2 + 0; if (t < lo - 1 || t > hi + 1) bad++ }
		END { exit bad > 0 }' "$WORK/bt.s" || fail "$2: event times outside [$3, $4]: $(head -2 "$WORK/bt.s")"
	# trace-read prints the same times to the nanosecond
	cmp <("$BT" "$1" | sed -n 's/^\(\[[0-9:.]*\]\).*seq = \([0-9]*\), thread = \([0-9]*\).*/\1 \3 \2/p' | sort) \
	    <("$TRACE_READ" "$1" | sed -n 's/^\(\[[0-9:.]*\]\).*seq = \([0-9]*\), thread = \([0-9]*\).*/\1 \3 \2/p' | sort) ||
		fail "trace-read and babeltrace2 print different times"
}

expect=monotonic
if grep -q '^tsc' /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null &&
   grep -m1 '^flags' /proc/cpuinfo | grep -q constant_tsc &&
   grep -m1 '^flags' /proc/cpuinfo | grep -q nonstop_tsc; then
	expect=tsc
fi

new_session "$WORK/t1" 'shmtrace_test:event'
before=$(date +%s.%N)
"$GEN" -n 10 -t 2 || fail "gen-events failed"
after=$(date +%s.%N)
"$TRACECTL" destroy s >/dev/null
check_times "$WORK/t1" "$expect" "$before" "$after"

new_session "$WORK/t2" 'shmtrace_test:event'
before=$(date +%s.%N)
SHMTRACE_CLOCK=monotonic "$GEN" -n 10 -t 2 || fail "gen-events failed"
after=$(date +%s.%N)
"$TRACECTL" destroy s >/dev/null
check_times "$WORK/t2" monotonic "$before" "$after"
echo "ok: $expect and monotonic"
