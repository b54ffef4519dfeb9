#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One thread emitting event B at a sustained rate (default 10 million per
# second for 10 seconds) with the default channel: prints the rate achieved
# and the events recorded and discarded. The daemons run in a private
# SHMTRACE_HOME and are stopped by pid.
# usage: bench/sustained-rate.sh [RATE] [SECONDS]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${SHMTRACE_BUILD:-$top/build}
rate=${1:-10000000}
secs=${2:-10}
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
line=$(sustained_record "$work/sustained-rate" "$rate" "$secs" b "$work/trace") ||
	die "the measurement failed"
echo "${line%%;*}"
for f in recorded discarded bytes; do
	echo "$f: $(status_sum "$work/trace.status" "$f")"
done
echo "trace: $(du -sb "$work/trace" | cut -f1) bytes on disk"
