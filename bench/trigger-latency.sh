#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/trigger-latency.sh [-n COUNT] [-r RUNS]: trigger latency, from the
# event that fires a trigger to the snapshot complete on disk (the last
# file of the snapshot closed after writing), over COUNT triggers (100)
# per run, one event a millisecond and a trigger every 50 (a filter on a
# field), on a flight-recorder session: median and p99 per run.
# (bench/trigger-latency.c measures: it emits, and watches the snapshots
# appear with inotify.)
set -euo pipefail
name=trigger-latency
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
. "$top/bench/common.sh"
count=100 runs=3
while getopts n:r: o; do
	case $o in
	n) count=$OPTARG ;;
	r) runs=$OPTARG ;;
	*) die "usage: $0 [-n COUNT] [-r RUNS]" ;;
	esac
done
work=$(mktemp -d "${TMPDIR:-/tmp}/shmtrace-bench.XXXXXX")
trap 'daemons_stop_all; rm -rf "$work"' EXIT
bench_cc "$work/trigger-latency" "$top/bench/trigger-latency.c" || die "cannot build the program"
ctl=$build/tracectl
for r in $(seq "$runs"); do
	shm_daemons_start "$work/home$r" "$work/daemons$r.log" || die "the daemons did not start"
	out=$work/r$r/out
	mkdir -p "$work/r$r"
	"$ctl" create fr --output "$out" --overwrite >/dev/null
	"$ctl" enable-event -s fr 'bench_trig:*' >/dev/null
	"$ctl" start fr >/dev/null
	"$ctl" add-trigger t --on-event 'bench_trig:tick' --filter 'fire == 1' \
		--action snapshot-session fr >/dev/null
	"$work/trigger-latency" "$work/r$r" "$count" out-snapshot- >"$work/lat$r"
	"$ctl" list-triggers --format json >"$work/list$r.json"
	"$ctl" destroy fr >/dev/null
	shm_daemons_stop
	grep -v '^missing' "$work/lat$r" | sort -n | awk -v r="$r" -v want="$count" '
		{ v[NR] = $1 }
		END {
			if (NR < want) printf "run %d: %d of %d snapshots seen\n", r, NR, want
			p99 = v[int(NR * 0.99 + 0.999)]
			printf "run %d: %d triggers, median %.2f ms, p99 %.2f ms, max %.2f ms\n",
				r, NR, v[int((NR + 1) / 2)] / 1000, p99 / 1000, v[NR] / 1000
		}'
done
