#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# drain-rate.sh - how fast the consumer writes a session out, beside the
# machine's limits, in the same run: where a tight loop's losses come from.
#
# Per repetition (medians of R printed):
#   memcpy     memory copy bandwidth, blocks of a sub-buffer (memcpy-bw.c)
#   dd cache   dd from /dev/zero into the trace's file system, 1 GiB in
#              blocks of 512 KiB (the page cache: what write() costs)
#   dd sync    the same with conv=fdatasync (what the disk takes)
#   offered    the bytes per second one thread of bench/filter-cost.c
#              (u64 seq, u32 thread) gives the consumer in a tight loop of
#              N events, discard mode, the default channel
#   written    the bytes per second the consumer wrote meanwhile (what
#              status counts as written, over the writer's time: the tail
#              that stop flushes is one ring at most)
#   discarded  the share of the events the ring could not take
#   consumer   the consumer's CPU over the writer's time (100 %: one CPU)
#
# usage: bench/drain-rate.sh [-r REPS] [-n EVENTS] [-k]
# Environment: SHMTRACE_BUILD (default <tree>/build), CC, TMPDIR (where
# the traces and dd's file go).
set -euo pipefail
reps=5
events=50000000
name=drain-rate
. "$(dirname "$0")/lib.sh" "$@"
bench_cc "$work/fc" "$top/bench/filter-cost.c"
bench_cc "$work/mbw" "$top/bench/memcpy-bw.c"
bench_daemons
tck=$(getconf CLK_TCK)
cpu_ms() {	# cpu_ms PID: its user + system time so far, ms
	awk -v t="$tck" '{ print int(($14 + $15) * 1000 / t) }' "/proc/$1/stat"
}
now_ms() { date +%s%3N; }
run() {	# run: offered MB/s, written MB/s, discarded %, consumer CPU %
	local t0 t1 c0 c1 ns rec dis bytes
	"$T" create r --output "$work/r" >/dev/null
	"$T" enable-event -s r 'bench_filter:*' >/dev/null
	"$T" start r >/dev/null
	c0=$(cpu_ms "$CONSUMERD_PID")
	t0=$(now_ms)
	ns=$("$work/fc" "$events" | sed -n 's/ns_per_event=//p')
	t1=$(now_ms)
	c1=$(cpu_ms "$CONSUMERD_PID")
	"$T" stop r >/dev/null
	"$T" status r --format json >"$work/st.json"
	"$T" destroy r >/dev/null
	rm -rf "$work/r"
	rec=$(status_sum "$work/st.json" recorded)
	dis=$(status_sum "$work/st.json" discarded)
	bytes=$(status_sum "$work/st.json" bytes)
	# the writer's time includes its warm-up (a tenth more events)
	awk -v ns="$ns" -v n="$events" -v rec="$rec" -v dis="$dis" -v b="$bytes" \
		-v ms=$((t1 - t0)) -v cpu=$((c1 - c0)) 'BEGIN {
		per = rec ? b / rec : 0
		printf "%.0f %.0f %.1f %.0f\n", per * 1e3 / ns, b / 1e3 / ms,
			100 * dis / (rec + dis), 100 * cpu / ms }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
declare -a mc ddc dds off wr di cc
for r in $(seq "$reps"); do
	mc+=("$("$work/mbw" | sed -n 's/memcpy_mb_per_s=//p')")
	ddc+=("$(dd_mb "$work")")
	dds+=("$(dd_mb "$work" fdatasync)")
	read -r o w d c < <(run)
	off+=("$o"); wr+=("$w"); di+=("$d"); cc+=("$c")
	echo "run $r: memcpy ${mc[-1]} MB/s, dd ${ddc[-1]} MB/s (sync ${dds[-1]}), offered $o MB/s," \
		"written $w MB/s, discarded $d %, consumer CPU $c %" >&2
done
printf '%-28s %10s\n' "median of $reps runs" "MB/s or %"
printf '%-28s %10s\n' "memcpy (512 KiB blocks)" "$(printf '%s\n' "${mc[@]}" | median)"
printf '%-28s %10s\n' "dd into the page cache" "$(printf '%s\n' "${ddc[@]}" | median)"
printf '%-28s %10s\n' "dd with fdatasync" "$(printf '%s\n' "${dds[@]}" | median)"
printf '%-28s %10s\n' "offered by one thread" "$(printf '%s\n' "${off[@]}" | median)"
printf '%-28s %10s\n' "written by the consumer" "$(printf '%s\n' "${wr[@]}" | median)"
printf '%-28s %10s\n' "discarded (%)" "$(printf '%s\n' "${di[@]}" | median)"
printf '%-28s %10s\n' "consumer CPU (%)" "$(printf '%s\n' "${cc[@]}" | median)"
