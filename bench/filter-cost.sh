#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# filter-cost.sh - the cost of a filter that refuses every event, against
# the same event disabled and recorded without a filter, in the same run.
#
# Five configurations, alternating, R repetitions (medians):
#   disabled   no session enables the event
#   polled     the same in a process without a doorbell signal
#              (SHMTRACE_SIGNAL=0, like a program that took SIGRTMIN+3):
#              the event calls its emit function to look for changes
#   recorded   enabled, no filter (1,000,000 events per run: fits the buffers)
#   refused    enabled with --filter 'seq > 1000000000000 && thread == 1':
#              false for every event, decided before anything is copied
#   refused-s  the same with a string filter on a field the event lacks
#              (bound once per thread, so as cheap)
#
# usage: bench/filter-cost.sh [-r REPS] [-n EVENTS] [-k]
# Environment: SHMTRACE_BUILD (default <tree>/build), CC, TMPDIR.
set -euo pipefail
reps=5
events=10000000
name=filter-cost
. "$(dirname "$0")/lib.sh" "$@"
bench_cc "$work/fc" "$top/bench/filter-cost.c"
bench_daemons
run() {	# run CONFIG: one measurement, its ns/event
	local cfg=$1 n=$events bell=
	case $cfg in
	disabled) ;;
	polled) bell=0 ;;
	recorded)
		n=1000000
		"$T" create r --output "$work/r" >/dev/null
		"$T" enable-event -s r 'bench_filter:*' >/dev/null ;;
	refused)
		"$T" create r --output "$work/r" >/dev/null
		"$T" enable-event -s r --filter 'seq > 1000000000000 && thread == 1' 'bench_filter:*' >/dev/null ;;
	refused-s)
		"$T" create r --output "$work/r" >/dev/null
		"$T" enable-event -s r --filter 'name == "x*"' 'bench_filter:*' >/dev/null ;;
	esac
	case $cfg in disabled|polled) ;; *) "$T" start r >/dev/null ;; esac
	SHMTRACE_SIGNAL=$bell "$work/fc" "$n" | sed -n 's/ns_per_event=//p'
	if [ "$cfg" != disabled ] && [ "$cfg" != polled ]; then
		"$T" stop r >/dev/null
		if [ "$cfg" != recorded ]; then
			[ -z "$(find "$work/r" -type f ! -name metadata -size +0 2>/dev/null)" ] ||
				echo "warning: a refusing filter let events through" >&2
		fi
		"$T" destroy r >/dev/null
		rm -rf "$work/r"
	fi
}
declare -A res
cfgs="disabled polled recorded refused refused-s"
for r in $(seq "$reps"); do
	order=$cfgs
	[ $((r % 2)) = 0 ] && order=$(echo "$cfgs" | tr ' ' '\n' | tac | tr '\n' ' ')
	for c in $order; do res[$c]="${res[$c]:-} $(run "$c")"; done
done
printf '%-10s %10s   (median of %d runs; runs: ns/event)\n' config ns/event "$reps"
for c in $cfgs; do
	printf '%-10s %10s   %s\n' "$c" "$(echo "${res[$c]}" | tr ' ' '\n' | median)" "${res[$c]}"
done
echo "refusing filter ns/event: $(echo "${res[refused]}" | tr ' ' '\n' | median) (event disabled: $(echo "${res[disabled]}" | tr ' ' '\n' | median), recorded without filter: $(echo "${res[recorded]}" | tr ' ' '\n' | median))"
