#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One thread emitting event B with the default channel. The daemons run in
# a private SHMTRACE_HOME and are stopped by pid.
#
# usage: bench/sustained-rate.sh [RATE] [SECONDS]
#   at RATE events per second (default 10 million) for SECONDS (10): the
#   rate achieved, the events recorded and discarded
# usage: bench/sustained-rate.sh --lossless [SECONDS]
#   the lossless rate (common.sh's sustained_lossless: the highest of full
#   speed, 75, 60, 45, 30, 15, 7.5 and 3.75 % of it that loses nothing,
#   refined by two halvings), recorded once more at that rate for the
#   bytes per second the consumer wrote, beside the file system's own
#   write rate into the same directory, as many bytes as that run wrote
#   (at least 1 GiB: dd_mb, into the page cache and with fdatasync, just
#   before and after it: their mean), and the ratios. The last line is the
#   headline.
# Environment: SHMTRACE_BUILD, CC, TMPDIR (where the traces and dd's file go).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${SHMTRACE_BUILD:-$top/build}
lossless=0
if [ "${1:-}" = --lossless ]; then
	lossless=1
	shift
	secs=${1:-10}
else
	rate=${1:-10000000}
	secs=${2:-10}
fi
name=sustained-rate
. "$top/bench/common.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/sustained-rate.XXXXXX")
cleanup() {
	shm_daemons_stop
	rm -rf "$work"
}
trap cleanup EXIT
bench_cc "$work/sustained-rate" "$top/bench/sustained-rate.c" || die "cannot build sustained-rate.c"
shm_daemons_start "$work/home" "$work/sessiond.log" || die "the daemons do not start"
if [ "$lossless" = 0 ]; then
	line=$(sustained_record "$work/sustained-rate" "$rate" "$secs" b "$work/trace") ||
		die "the measurement failed"
	echo "${line%%;*}"
	for f in recorded discarded bytes; do
		echo "$f: $(status_sum "$work/trace.status" "$f")"
	done
	echo "trace: $(du -sb "$work/trace" | cut -f1) bytes on disk"
	exit 0
fi

read -r top_rate runs bytes < <(sustained_lossless "$work/sustained-rate" "$secs" b "$work/trace") ||
	die "the measurement failed"
[ "$top_rate" != 0 ] || die "every run lost events, down to 3.75 % of full speed"
# the file system given as much as the run writes: beyond what the page
# cache absorbs, a disk writes at its sustained rate
mib=$(( bytes / 1048576 + 1 ))
[ "$mib" -ge 1024 ] || mib=1024
sync
cache0=$(dd_mb "$work" "" "$mib")
sync
sync0=$(dd_mb "$work" fdatasync "$mib")
sync
line=$(sustained_record "$work/sustained-rate" "$top_rate" "$secs" b "$work/trace") ||
	die "the measurement failed"
lost=$(( $(kv "$line" discarded) + $(kv "$line" lost) ))
sync
cache1=$(dd_mb "$work" "" "$mib")
sync
sync1=$(dd_mb "$work" fdatasync "$mib")
echo "file system, $mib MiB: $cache0 and $cache1 MB/s into the page cache, $sync0 and $sync1 MB/s" \
	"with fdatasync (before and after)"
echo "lossless rate: $top_rate events/s ($runs runs to find it); at it again:" \
	"$(kv "$line" per_sec) events/s, $(kv "$line" recorded) recorded, $lost lost," \
	"$(kv "$line" bytes) bytes of streams"
awk -v b="$(kv "$line" bytes)" -v s="$secs" -v r="$top_rate" -v lost="$lost" \
	-v c="$(( (cache0 + cache1) / 2 ))" -v f="$(( (sync0 + sync1) / 2 ))" 'BEGIN {
	mb = b / s / 1e6
	printf "sustained-rate lossless: %d events/s, %.0f MB/s written%s; file system %d MB/s" \
		" (page cache), %d MB/s (fdatasync); written / page cache = %.2f, / fdatasync = %.2f\n",
		r, mb, lost ? " (lost " lost " at it again)" : "", c, f, mb / c, mb / f }'
