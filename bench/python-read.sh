#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# python-read.sh - how fast the Python package reads a trace: into numpy
# columns (shmtrace.read), one typed event at a time (shmtrace.events),
# side by side with babeltrace2's Python bindings (bt2) when `import bt2`
# works under the same python.
#
# The script records a trace of N events with the test program gen-events
# ('shmtrace_test:*': fields seq, thread, payload; processes of 4 threads,
# none discarded) with the build's daemons, started in a private
# SHMTRACE_HOME and stopped by pid once the trace is on disk. Then R
# repetitions, each a fresh python process timing (wall clock, the trace
# in the page cache):
#   read      shmtrace.read(D, fields=["seq"]), the column summed
#   read-all  shmtrace.read(D), every field of every event
#   iterate   for ev in shmtrace.events(D): ev["seq"] summed
#   bt2       bt2.TraceCollectionMessageIterator(D), the field summed
# and prints the medians in events per second.
#
# usage: bench/python-read.sh [-n EVENTS] [-r REPS] [-k] [--trace DIR]
#   -n EVENTS    events of the trace (default 1000000)
#   -r REPS      repetitions (default 5)
#   -k           keep the work directory (and the trace)
#   --trace DIR  read this trace of gen-events instead of recording one
# Environment: SHMTRACE_BUILD (default <tree>/build), PYTHON (default:
# the one configure chose for the tests, TEST_PYTHON, else
# /usr/bin/python3), TMPDIR.
#
# It is a benchmark, not a test: it prints figures.
set -euo pipefail

name=python-read
reps=5
events=1000000
trace=""
bench_option() {
	if [ "$1" = --trace ] && [ $# -ge 2 ]; then
		trace=$2
		bench_shift=2
	fi
}
. "$(dirname "$0")/lib.sh"

py=${PYTHON:-$(sed -n 's/^TEST_PYTHON = //p' "$build/Makefile" 2>/dev/null)}
[ -n "$py" ] && [ "$py" != : ] || py=/usr/bin/python3
"$py" -c 'import numpy' 2>/dev/null || die "$py has no numpy (Debian: python3-numpy)"
export PYTHONPATH=$top/python
export SHMTRACE_READER_LIB=$build/.libs/libshmtrace-reader.so

if [ -z "$trace" ]; then
	[ -x "$build/tests/apps/gen-events" ] || die "no gen-events (make -C $build check TESTS=)"
	bench_daemons
	trace=$work/trace
	{ "$T" create s --output "$trace" &&
	  "$T" enable-event -s s 'shmtrace_test:*' &&
	  "$T" start s; } >/dev/null || die "cannot set up a session"
	# processes of 4 threads, each thread at most 100000 events: its
	# buffers hold them whatever the consumer's pace (nothing discarded)
	left=$events
	while [ "$left" -gt 0 ]; do
		k=$((left < 400000 ? left : 400000))
		"$build/tests/apps/gen-events" -n $((k / 4)) -t 4 >/dev/null || die "gen-events failed"
		[ $((k % 4)) -eq 0 ] || "$build/tests/apps/gen-events" -n $((k % 4)) -t 1 >/dev/null
		left=$((left - k))
		sleep 0.1
	done
	"$T" stop s >/dev/null
	"$T" destroy s >/dev/null
	shm_daemons_stop
	got=$("$build/trace-read" --stats=count "$trace" 2>/dev/null | awk '$2 == "total" { print $1 }')
	[ "$got" = "$events" ] || die "the trace has ${got:-no} events, not $events (discarded?)"
fi

# one timing in a fresh python: prints "EVENTS SECONDS"
run() {
	"$py" - "$trace" "$1" <<'PY'
import sys, time
import shmtrace
path, what = sys.argv[1], sys.argv[2]
t0 = time.perf_counter()
if what == "read":
    c = shmtrace.read(path, fields=["seq"])
    n, s = len(c), int(c["seq"].sum())
elif what == "read-all":
    c = shmtrace.read(path)
    n, s = len(c), len(c.columns)
elif what == "iterate":
    n = s = 0
    for ev in shmtrace.events(path, symbols=False):
        n += 1
        s += ev["seq"]
else:
    import bt2
    n = s = 0
    for m in bt2.TraceCollectionMessageIterator(path):
        if type(m) is bt2._EventMessageConst:
            n += 1
            s += int(m.event.payload_field["seq"])
print(n, time.perf_counter() - t0)
PY
}

whats="read read-all iterate"
if "$py" -c 'import bt2' 2>/dev/null; then
	whats="$whats bt2"
else
	log "no bt2 under $py (Debian: python3-bt2): skipped"
fi
for what in $whats; do
	rates=()
	for ((i = 0; i < reps; i++)); do
		read -r n secs < <(run "$what") || die "$what failed"
		rates+=("$(awk -v n="$n" -v s="$secs" 'BEGIN { printf "%.0f", n / s }')")
	done
	med=$(printf '%s\n' "${rates[@]}" | sort -n |
		awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	printf '%-9s %9d events  %10d events/s (median of %d)\n' "$what" "$n" "$med" "$reps"
done
