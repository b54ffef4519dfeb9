#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# consumer-workers.sh - the highest rate that T threads (default 2) can
# sustain without losing an event, by consumer configuration: a plain
# channel with one consumer worker (the reference), an LZ4 channel with 1
# and with 2 workers (trace-consumerd --workers, given through
# SHMTRACE_CONSUMER_WORKERS). The writers run on every CPU, as busy
# producers do, and the consumer's threads compete with them for the CPUs
# (-p: the writers pinned to the first CPU, as in sustained-rate.sh).
# R repetitions, configurations alternated, medians.
#
# usage: bench/consumer-workers.sh [-r REPS] [-s SECONDS] [-t THREADS] [-p]
# Environment: SHMTRACE_BUILD (default <tree>/build), TMPDIR.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${SHMTRACE_BUILD:-$top/build}
reps=3 secs=4 threads=2 pin=0
while getopts r:s:t:p o; do
	case $o in
	p) pin=1 ;;
	r) reps=$OPTARG ;;
	s) secs=$OPTARG ;;
	t) threads=$OPTARG ;;
	*) echo "usage: $0 [-r REPS] [-s SECONDS] [-t THREADS] [-p]" >&2; exit 2 ;;
	esac
done
name=consumer-workers
. "$top/bench/common.sh"
[ "$pin" = 1 ] || sustained_run() { "$@"; }
work=$(mktemp -d "${TMPDIR:-/tmp}/consumer-workers.XXXXXX")
cleanup() {
	shm_daemons_stop
	rm -rf "$work"
}
trap cleanup EXIT
bench_cc "$work/sustained-rate" "$top/bench/sustained-rate.c" || die "cannot build sustained-rate.c"
export SUSTAINED_THREADS=$threads

# one CONFIG ("plain 1", "lz4 1", "lz4 2"): the lossless rate in events/s
one() {
	local comp=$1 w=$2 res
	export SHMTRACE_CONSUMER_WORKERS=$w
	if [ "$comp" = lz4 ]; then export SUSTAINED_CHANNEL="--compress lz4"; else unset SUSTAINED_CHANNEL; fi
	shm_daemons_start "$work/home" "$work/sessiond.log" || die "the daemons do not start"
	log "$comp, $w worker(s):"
	res=$(sustained_lossless "$work/sustained-rate" "$secs" b "$work/trace") || die "the measurement failed"
	shm_daemons_stop
	echo "${res%% *}"
}
declare -A res
configs=("plain 1" "lz4 1" "lz4 2")
for r in $(seq "$reps"); do
	for i in 0 1 2; do
		c=${configs[$(( (i + r) % 3 ))]}
		res[$c]="${res[$c]:-} $(one $c)"
	done
done
printf '%-24s %22s   %s\n' "channel, consumer" "lossless events/s" "runs"
for c in "${configs[@]}"; do
	printf '%-24s %22s   %s\n' "${c% *}, ${c#* } worker(s)" \
		"$(echo ${res[$c]} | tr ' ' '\n' | median)" "${res[$c]# }"
done
echo "consumer-workers: lz4 lossless rate with 1 / 2 workers ($threads threads$([ "$pin" = 1 ] && echo ", pinned")):" \
	"$(echo ${res["lz4 1"]} | tr ' ' '\n' | median) / $(echo ${res["lz4 2"]} | tr ' ' '\n' | median) events/s"
