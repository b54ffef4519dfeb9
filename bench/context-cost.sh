#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# context-cost.sh - what context fields (tracectl add-context) add to the
# cost of recording an event, in the same run.
#
# The event of bench/filter-cost.c (u64 seq, u32 thread) recorded N times
# in a tight loop by one thread, in four configurations, alternating, R
# repetitions (medians):
#   none      no context field
#   ip        the call-site address (8 bytes more per event)
#   cpu_id    the CPU number (4 bytes more)
#   ip,cpu_id both (12 bytes more)
#
# usage: bench/context-cost.sh [-r REPS] [-n EVENTS] [-k]
# Environment: SHMTRACE_BUILD (default <tree>/build), CC, TMPDIR.
set -euo pipefail
reps=5
events=1000000
name=context-cost
. "$(dirname "$0")/lib.sh" "$@"
bench_cc "$work/fc" "$top/bench/filter-cost.c"
bench_daemons
run() {	# run CONFIG: one measurement, its ns/event and bytes/event
	local cfg=$1 ns bytes
	"$T" create r --output "$work/r" >/dev/null
	if [ "$cfg" != none ]; then
		"$T" add-context -s r $(echo "$cfg" | sed 's/^/-t /; s/,/ -t /g') >/dev/null
	fi
	"$T" enable-event -s r 'bench_filter:*' >/dev/null
	"$T" start r >/dev/null
	ns=$("$work/fc" "$events" | sed -n 's/ns_per_event=//p')
	"$T" stop r >/dev/null
	"$T" destroy r >/dev/null
	bytes=$(find "$work/r" -type f ! -name metadata -printf '%s\n' | awk -v n="$events" \
		'{ s += $1 } END { printf "%.2f", s / n }')
	rm -rf "$work/r"
	echo "$ns $bytes"
}
declare -A res size
cfgs="none ip cpu_id ip,cpu_id"
for r in $(seq "$reps"); do
	order=$cfgs
	[ $((r % 2)) = 0 ] && order=$(echo "$cfgs" | tr ' ' '\n' | tac | tr '\n' ' ')
	for c in $order; do
		read -r ns bytes < <(run "$c")
		res[$c]="${res[$c]:-} $ns"
		size[$c]=$bytes
	done
done
printf '%-10s %10s %12s   (median of %d runs; runs: ns/event)\n' context ns/event bytes/event "$reps"
for c in $cfgs; do
	printf '%-10s %10s %12s   %s\n' "$c" "$(echo "${res[$c]}" | tr ' ' '\n' | median)" \
		"${size[$c]}" "${res[$c]}"
done
echo "ip and cpu_id context ns/event: $(echo "${res[ip,cpu_id]}" | tr ' ' '\n' | median) (without context: $(echo "${res[none]}" | tr ' ' '\n' | median))"
