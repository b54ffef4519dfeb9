#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# memory-only.sh - what recording an event costs in a memory-only session
# (create --snapshot: nothing written, the consumer never drains) against
# sessions the consumer writes out, in the same run.
#
# The event of bench/filter-cost.c (u64 seq, u32 thread) recorded N times
# in a tight loop by one thread, in the default channel (16 sub-buffers of
# 512 KiB), in three configurations, alternating, R repetitions (medians):
#   memory     create --snapshot: overwrite, never drained, never woken
#   discard    create (the default): written out; events the ring cannot
#              take while the consumer is behind are discarded (counted)
#   overwrite  create --overwrite: written out; the oldest data overwritten
# For each: ns per event (median and fastest run), the consumer's CPU time
# during the run (from /proc, 10 ms ticks), the events written to disk,
# discarded, overwritten.
#
# usage: bench/memory-only.sh [-r REPS] [-n EVENTS] [-k]
# Environment: SHMTRACE_BUILD (default <tree>/build), CC, TMPDIR.
set -euo pipefail
reps=5
events=4000000
name=memory-only
. "$(dirname "$0")/lib.sh" "$@"
bench_cc "$work/fc" "$top/bench/filter-cost.c"
bench_daemons
tck=$(getconf CLK_TCK)
cpu_ms() {	# cpu_ms PID: its user + system time so far, ms
	awk -v t="$tck" '{ print int(($14 + $15) * 1000 / t) }' "/proc/$1/stat"
}
run() {	# run CONFIG: ns/event, consumer ms, written, discarded, overwritten
	local cfg=$1 ns c0 c1 opt=
	case $cfg in
	memory) opt=--snapshot ;;
	overwrite) opt=--overwrite ;;
	esac
	"$T" create r --output "$work/r" $opt >/dev/null
	"$T" enable-event -s r 'bench_filter:*' >/dev/null
	"$T" start r >/dev/null
	c0=$(cpu_ms "$CONSUMERD_PID")
	ns=$("$work/fc" "$events" | sed -n 's/ns_per_event=//p')
	"$T" stop r >/dev/null
	c1=$(cpu_ms "$CONSUMERD_PID")
	"$T" status r --format json >"$work/st.json"
	"$T" destroy r >/dev/null
	rm -rf "$work/r"
	echo "$ns $((c1 - c0)) $(status_sum "$work/st.json" recorded)" \
		"$(status_sum "$work/st.json" discarded) $(status_sum "$work/st.json" overwritten)"
}
declare -A res cms wr di ov
cfgs="memory discard overwrite"
for r in $(seq "$reps"); do
	order=$cfgs
	[ $((r % 2)) = 0 ] && order=$(echo "$cfgs" | tr ' ' '\n' | tac | tr '\n' ' ')
	for c in $order; do
		read -r ns ms w d o < <(run "$c")
		res[$c]="${res[$c]:-} $ns"
		cms[$c]="${cms[$c]:-} $ms"
		wr[$c]="${wr[$c]:-} $w"
		di[$c]="${di[$c]:-} $d"
		ov[$c]="${ov[$c]:-} $o"
	done
done
printf '%-10s %9s %7s %12s %11s %11s %11s   (median of %d runs of %d events; runs: ns/event)\n' \
	session ns/event min consumer_ms written discarded overwritten "$reps" "$events"
for c in $cfgs; do
	printf '%-10s %9s %7s %12s %11s %11s %11s   %s\n' "$c" \
		"$(echo "${res[$c]}" | tr ' ' '\n' | median)" \
		"$(echo "${res[$c]}" | tr ' ' '\n' | awk 'NF' | sort -g | head -n1)" \
		"$(echo "${cms[$c]}" | tr ' ' '\n' | median)" \
		"$(echo "${wr[$c]}" | tr ' ' '\n' | median)" "$(echo "${di[$c]}" | tr ' ' '\n' | median)" \
		"$(echo "${ov[$c]}" | tr ' ' '\n' | median)" "${res[$c]}"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
