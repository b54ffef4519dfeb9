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
# For each: the traced thread's ns per event (median and fastest run), the
# consumer's CPU time during the run (from /proc, 10 ms ticks) per event
# emitted, the sum of both, and the events written to disk, discarded and
# overwritten.
#
# usage: bench/memory-only.sh [-r REPS] [-n EVENTS] [-k]
# Environment: SHMTRACE_BUILD (default <tree>/build), CC, TMPDIR.
set -euo pipefail
reps=5
events=10000000
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
declare -A res cns tot wr di ov
cfgs="memory discard overwrite"
for r in $(seq "$reps"); do
	order=$cfgs
	[ $((r % 2)) = 0 ] && order=$(echo "$cfgs" | tr ' ' '\n' | tac | tr '\n' ' ')
	for c in $order; do
		read -r ns ms w d o < <(run "$c")
		# the consumer's CPU per event emitted (the warm-up's tenth included)
		cn=$(awk -v m="$ms" -v n="$events" 'BEGIN { printf "%.2f", m * 1e6 / (n * 1.1) }')
		res[$c]="${res[$c]:-} $ns"
		cns[$c]="${cns[$c]:-} $cn"
		tot[$c]="${tot[$c]:-} $(awk -v a="$ns" -v b="$cn" 'BEGIN { printf "%.2f", a + b }')"
		wr[$c]="${wr[$c]:-} $w"
		di[$c]="${di[$c]:-} $d"
		ov[$c]="${ov[$c]:-} $o"
	done
done
medof() { echo "$1" | tr ' ' '\n' | median; }
printf '%-10s %8s %6s %9s %8s %10s %10s %10s   (medians of %d runs of %d events; runs: writer ns/event)\n' \
	session writer min consumer total written discarded overwritten "$reps" "$events"
for c in $cfgs; do
	printf '%-10s %8s %6s %9s %8s %10s %10s %10s   %s\n' "$c" "$(medof "${res[$c]}")" \
		"$(echo "${res[$c]}" | tr ' ' '\n' | awk 'NF' | sort -g | head -n1)" \
		"$(medof "${cns[$c]}")" "$(medof "${tot[$c]}")" "$(medof "${wr[$c]}")" "$(medof "${di[$c]}")" \
		"$(medof "${ov[$c]}")" "${res[$c]}"
done
echo "(ns per event: writer, the traced thread's; consumer, the consumer daemon's CPU time"
echo " divided by the events emitted, 10 ms ticks; total, their sum per run)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
