#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fast-path.sh - what writing an event costs the traced thread, alone:
# events A (an int64_t) and B (an int64_t and a 16-character string) of
# workload-shmtrace.c, each run one tight loop of one thread pinned to one
# CPU, in a memory-only session (create --snapshot: overwrite, never
# drained, so the consumer takes no CPU and nothing is discarded), beside
# the floor (floor.c), alternating. With -H DIR, a second shmtrace
# workload is built with the public header found in DIR
# (DIR/shmtrace/shmtrace.h: the include directory of another version)
# and runs in the same repetitions, so that two versions of the fast path
# are compared in one run. Prints medians of ns/event, and medians of the
# ratios taken within each repetition (to the floor; this header to DIR's).
# usage: bench/fast-path.sh [-r REPS] [-n EVENTS] [-H INCLUDE_DIR] [-k]
# Environment: SHMTRACE_BUILD (default <tree>/build), CC, TMPDIR,
# BENCH_CPUS (the measuring thread's CPU; default the first allowed).
set -euo pipefail
reps=5
events=20000000
other=
name=fast-path
bench_option() {
	case $1 in
	-H) other=$2; bench_shift=2 ;;
	esac
}
. "$(dirname "$0")/lib.sh" "$@"
[ -z "$other" ] || [ -f "$other/shmtrace/shmtrace.h" ] || die "no $other/shmtrace/shmtrace.h"

bench_cc "$work/wl-shmtrace" "$top/bench/workload-shmtrace.c" || die "cannot build the workload"
bench_cc "$work/wl-floor" "$top/bench/floor.c" || die "cannot build the floor"
tracers="shmtrace floor"
if [ -n "$other" ]; then
	# the other header first on the include path
	bench_cc "$work/wl-other" "$top/bench/workload-shmtrace.c" -I"$other" ||
		die "cannot build the workload with $other"
	tracers="shmtrace floor other"
fi
export BENCH_CPUS=${BENCH_CPUS:-$(first_cpu)}
export BENCH_WARMUP=786432	# a lap of the default buffer with event A first
bench_daemons
"$T" create fp --snapshot >/dev/null
"$T" enable-event -s fp 'bench:*' >/dev/null
"$T" start fp >/dev/null

res=$work/results
: >"$res"
for rep in $(seq "$reps"); do
	order=$tracers
	[ $((rep % 2)) = 0 ] && order=$(echo "$tracers" | tr ' ' '\n' | tac | tr '\n' ' ')
	for t in $order; do
		for ev in a b; do
			line=$(SHMTRACE_HOME=$work/home "$work/wl-$t" enabled "$ev" "$events" 1) ||
				die "$t $ev failed"
			record "$t" "$ev" "$(kv "$line" ns_per_event)"
		done
	done
done
"$T" status fp --format json >"$work/st.json"
"$T" destroy fp >/dev/null

printf '%-22s' "ns/event (median)"
for t in $tracers; do printf "%12s" "$t"; done
printf '%16s' "shmtrace/floor"
[ -z "$other" ] || printf '%14s%16s' "other/floor" "shmtrace/other"
echo
for ev in a b; do
	printf '%-22s' "event ${ev^^}"
	for t in $tracers; do printf '%12s' "$(fmt '%.2f' "$(med "$t" "$ev")")"; done
	printf '%16s' "$(fmt '%.3f' "$(medratio shmtrace "$ev" floor "$ev")")"
	if [ -n "$other" ]; then
		printf '%14s' "$(fmt '%.3f' "$(medratio other "$ev" floor "$ev")")"
		printf '%16s' "$(fmt '%.3f' "$(medratio shmtrace "$ev" other "$ev")")"
	fi
	echo
done
for t in $tracers; do
	for ev in a b; do
		echo "runs $t $ev: $(vals "$t" "$ev" | tr '\n' ' ')"
	done
done
echo "(medians of $reps repetitions of $events events per run, one thread on CPU $BENCH_CPUS;"
echo " ratios taken within each repetition, then their median;"
echo " events discarded in the session: $(status_sum "$work/st.json" discarded))"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
