#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fast-path.sh - what writing an event costs the traced thread, alone:
# events A (an int64_t) and B (an int64_t and a 16-character string),
# recorded in a memory-only session (create --snapshot: overwrite, never
# drained, so the consumer takes no CPU and nothing is discarded), beside
# the floor, in one process (fast-path.c), one thread pinned to one CPU:
# rounds of EVENTS events of each, in turn, each timed alone. The events
# come from two builds of fast-path-ev.c: "this" with this tree's header,
# "other" with the header of -H DIR (DIR/shmtrace/shmtrace.h: the include
# directory of another version), else with this tree's header again (then
# this/other shows the noise). Prints the medians of ns/event over the
# rounds and the medians of the ratios taken within each round.
# usage: bench/fast-path.sh [-r ROUNDS] [-n EVENTS] [-H INCLUDE_DIR] [-k]
# Environment: SHMTRACE_BUILD (default <tree>/build), CC, TMPDIR,
# BENCH_CPUS (the thread's CPU; default the first allowed).
set -euo pipefail
reps=41
events=1000000
other=
name=fast-path
bench_option() {
	case $1 in
	-H) other=$2; bench_shift=2 ;;
	esac
}
. "$(dirname "$0")/lib.sh" "$@"
[ -z "$other" ] || [ -f "$other/shmtrace/shmtrace.h" ] || die "no $other/shmtrace/shmtrace.h"

cc=${CC:-cc}
$cc -O2 -std=gnu11 -DFP=this -I"$top/include" -c "$top/bench/fast-path-ev.c" \
	-o "$work/this.o" || die "cannot build the events"
# the other header first on the include path
$cc -O2 -std=gnu11 -DFP=other ${other:+-I"$other"} -I"$top/include" \
	-c "$top/bench/fast-path-ev.c" -o "$work/other.o" || die "cannot build the other events"
bench_cc "$work/fast-path" "$top/bench/fast-path.c" "$work/this.o" "$work/other.o" ||
	die "cannot build fast-path.c"
export BENCH_CPUS=${BENCH_CPUS:-$(first_cpu)}
bench_daemons
"$T" create fp --snapshot >/dev/null
"$T" enable-event -s fp 'fp_this:*' >/dev/null
"$T" enable-event -s fp 'fp_other:*' >/dev/null
"$T" start fp >/dev/null
SHMTRACE_HOME=$work/home "$work/fast-path" "$reps" "$events" >"$work/rounds" ||
	die "fast-path failed"
"$T" status fp --format json >"$work/st.json"
"$T" destroy fp >/dev/null

col() {	# col KIND EXPR: EXPR of each round of KIND ($3 this, $4 other, $5 floor)
	awk -v k="$1" '$2 == k { print '"$2"' }' "$work/rounds" | median
}
printf '%-8s %9s %9s %9s %14s %13s %14s\n' "ns/event" this other floor \
	this/floor other/floor this/other
for k in a b; do
	printf '%-8s %9.2f %9.2f %9.2f %14.3f %13.3f %14.3f\n' "event ${k^^}" \
		"$(col "$k" '$3')" "$(col "$k" '$4')" "$(col "$k" '$5')" \
		"$(col "$k" '$3 / $5')" "$(col "$k" '$4 / $5')" "$(col "$k" '$3 / $4')"
done
echo "(medians over $reps rounds of $events events of each, one thread on CPU $BENCH_CPUS;"
what=${other:-"this tree's header again"}
echo " ratios taken within each round; other: $what;"
echo " events discarded: $(status_sum "$work/st.json" discarded))"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
