#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build shmtrace and trace the bundled sample server end to end: a private
# SHMTRACE_HOME, create / enable-event / start / stop, then the first
# events and the number of each, read back from the CTF trace.
set -euo pipefail
cd "$(dirname "$0")"
. scripts/setup.sh
. scripts/daemons.sh
shmtrace_setup
B=$(pwd)/build
SHMTRACE_HOME=$(mktemp -d)
shmtrace_daemons_env "$B" "$SHMTRACE_HOME"	# tracectl starts them
OUT=$SHMTRACE_HOME/demo-trace
trap 'shmtrace_daemons_cleanup "$SHMTRACE_HOME" || true' EXIT

run() { echo "\$ $*"; "$@"; }

run "$B/tracectl" create demo --output "$OUT"
run "$B/tracectl" enable-event -s demo 'sample_server:*'
run "$B/tracectl" start demo
run "$B/tests/apps/sample-server" -t 4 -r 2000
run "$B/tracectl" stop demo
run "$B/tracectl" status demo
echo
echo "First events (trace-read $OUT | head):"
"$B/trace-read" "$OUT" >"$SHMTRACE_HOME/events.txt"
head -n 12 "$SHMTRACE_HOME/events.txt"
echo
echo "Events per name (trace-read --stats=count):"
"$B/trace-read" --stats=count "$OUT"
echo
echo "Requests slower than 1 ms, from the request_end events:"
awk -F'latency_ns = ' '/sample_server:request_end/ {
	split($2, v, " "); n++
	if (v[1] + 0 > 1000000) { slow++; if (slow <= 5) print "  " $0 }
} END { printf "%d of %d requests took longer than 1 ms\n", slow, n }' "$SHMTRACE_HOME/events.txt"
echo
run "$B/tracectl" destroy demo
