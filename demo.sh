#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build shmtrace and trace the bundled sample server end to end: a private
# SHMTRACE_HOME, create / enable-event / start / stop, then the first
# events and the number of each, read back from the CTF trace.
set -euo pipefail
cd "$(dirname "$0")"
. scripts/setup.sh
shmtrace_setup
B=$(pwd)/build
export SHMTRACE_HOME
SHMTRACE_HOME=$(mktemp -d)
OUT=$SHMTRACE_HOME/demo-trace

cleanup() {
	local f pid
	for f in "$SHMTRACE_HOME/sessiond.pid" "$SHMTRACE_HOME/consumerd.pid"; do
		[ -f "$f" ] || continue
		pid=$(cat "$f")
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	done
	rm -rf "$SHMTRACE_HOME"
}
trap cleanup EXIT

run() { echo "\$ $*"; "$@"; }

run "$B/tracectl" create demo --output "$OUT"
run "$B/tracectl" enable-event -s demo 'sample_server:*'
run "$B/tracectl" start demo
run "$B/tests/apps/sample-server" -t 4 -r 2000
run "$B/tracectl" stop demo
run "$B/tracectl" status demo
echo
echo "First events (trace-read $OUT | head):"
"$B/trace-read" "$OUT" | head -n 12
echo
echo "Events per name:"
"$B/trace-read" --count "$OUT"
echo
run "$B/tracectl" destroy demo
