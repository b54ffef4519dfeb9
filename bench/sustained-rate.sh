#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One thread emitting event B at a sustained rate (default 10 million per
# second for 10 seconds) with the default channel: prints the rate achieved
# and the events recorded and discarded.
# usage: bench/sustained-rate.sh [RATE] [SECONDS]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${SHMTRACE_BUILD:-$top/build}
rate=${1:-10000000}
secs=${2:-10}
. "$top/scripts/setup.sh"
work=$(mktemp -d)
export SHMTRACE_HOME=$work/home
cleanup() {
	shmtrace_stop_daemons "$SHMTRACE_HOME"
	rm -rf "$work"
}
trap cleanup EXIT
gcc -O2 -I"$top/include" "$top/bench/sustained-rate.c" -o "$work/sustained-rate" \
	-L"$build/.libs" -Wl,-rpath,"$build/.libs" -lshmtrace -pthread
"$build/tracectl" create rate --output "$work/trace" >/dev/null
"$build/tracectl" enable-event -s rate 'bench:*' >/dev/null
"$build/tracectl" start rate >/dev/null
taskset -c 0 "$work/sustained-rate" "$rate" "$secs"
"$build/tracectl" stop rate >/dev/null
"$build/tracectl" status rate | grep -E "events (recorded|discarded)|bytes written"
echo "trace: $(du -sb "$work/trace" | cut -f1) bytes on disk"
"$build/tracectl" destroy rate >/dev/null
