#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/trigger-latency.sh [-n COUNT] [-r RUNS] [-b BUILD2] [--no-lttng]: trigger
# latency, from the event that fires a trigger to the snapshot complete on
# disk (the last file of the snapshot closed after writing), over COUNT
# triggers (100) per run, one event a millisecond and a trigger every 50
# (a filter on a field), on a memory-only session; shmtrace and LTTng-UST
# 2.13 in turn in each run (the order reversed every other run): median
# and p99 per run and tracer, then the medians over the runs. -b BUILD2:
# another build of shmtrace measured in the same runs too, as "shm-b"
# (a build before a change).
# (bench/trigger-latency.c measures: it emits, and watches the snapshots
# appear with inotify; built with -DBENCH_LTTNG for LTTng.)
# Environment: BUILD (the shmtrace build, default <tree>/build), TMPDIR
# (where the snapshots are written).
set -euo pipefail
name=trigger-latency
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
. "$top/bench/common.sh"
count=100 runs=3 use_lttng=1 build2=""
while [ $# -gt 0 ]; do
	case $1 in
	-n) count=$2; shift 2 ;;
	-r) runs=$2; shift 2 ;;
	-b) build2=$(cd "$2" && pwd); shift 2 ;;
	--no-lttng) use_lttng=0; shift ;;
	*) die "usage: $0 [-n COUNT] [-r RUNS] [-b BUILD2] [--no-lttng]" ;;
	esac
done
work=$(mktemp -d "${TMPDIR:-/tmp}/shmtrace-bench.XXXXXX")
trap 'daemons_stop_all; rm -rf "$work"' EXIT
bench_cc "$work/trigger-latency" "$top/bench/trigger-latency.c" || die "cannot build the program"
if [ -n "$build2" ]; then
	build1=$build build=$build2
	bench_cc "$work/trigger-latency-b" "$top/bench/trigger-latency.c" || die "cannot build for $build2"
	build=$build1
fi
if [ "$use_lttng" = 1 ]; then
	if ! command -v lttng >/dev/null || ! command -v lttng-sessiond >/dev/null; then
		log "lttng-tools missing: LTTng not measured"
		use_lttng=0
	elif ! ${CC:-cc} -O2 -pthread -DBENCH_LTTNG -I"$top/bench" -o "$work/trigger-latency-lttng" \
		"$top/bench/trigger-latency.c" -llttng-ust -ldl 2>"$work/build-lttng.log"; then
		cat "$work/build-lttng.log" >&2
		log "cannot build the LTTng-UST program (liblttng-ust-dev?): LTTng not measured"
		use_lttng=0
	fi
fi

# run_shm R [b]: one run of shmtrace (b: of BUILD2), latencies (us) in $work/shm[-b].R
run_shm() {
	local r=$1 out=$work/r$1/shm$2 build=$build prog=$work/trigger-latency ctl
	[ -z "${2:-}" ] || { build=$build2 prog=$work/trigger-latency-b; }
	ctl=$build/tracectl
	shm_daemons_start "$work/home$r$2" "$work/daemons$r$2.log" || die "the daemons did not start"
	mkdir -p "$out"
	"$ctl" create fr --output "$out" --snapshot >/dev/null
	"$ctl" enable-event -s fr 'bench_trig:*' >/dev/null
	"$ctl" start fr >/dev/null
	"$ctl" add-trigger t --on-event 'bench_trig:tick' --filter 'fire == 1' \
		--action snapshot-session fr >/dev/null
	"$prog" "$out" "$count" snapshot- >"$work/shm$2.$r"
	"$ctl" destroy fr >/dev/null
	shm_daemons_stop
	rm -rf "$out"
}

# run_lttng R: one run of LTTng, latencies (us) in $work/lttng.R
run_lttng() {
	local r=$1 out=$work/r$1/lttng
	lttng_daemons_start "$work/lhome$r" "$work/lttng$r.log" || die "lttng-sessiond did not start"
	mkdir -p "$out"
	lttng create fr --snapshot --output "$out" >/dev/null
	lttng enable-event -u -s fr 'bench_trig:*' >/dev/null	# per-UID buffers (default)
	lttng start fr >/dev/null
	lttng add-trigger --name t --condition event-rule-matches --type=user \
		--name=bench_trig:tick --filter='fire == 1' --action snapshot-session fr >/dev/null
	LTTNG_UST_REGISTER_TIMEOUT=-1 "$work/trigger-latency-lttng" "$out" "$count" snapshot- \
		>"$work/lttng.$r"
	lttng remove-trigger t >/dev/null
	lttng destroy fr >/dev/null
	lttng_daemons_stop
	rm -rf "$out"
}

# summary FILE R WHO: the run's line; "R WHO median p99" into $work/res
summary() {
	grep -v '^missing' "$1" | sort -n | awk -v r="$2" -v who="$3" -v want="$count" \
		-v res="$work/res" '
		{ v[NR] = $1 }
		END {
			if (NR < want) printf "run %d %s: %d of %d snapshots seen\n", r, who, NR, want
			if (!NR) exit
			p99 = v[int(NR * 0.99 + 0.999)]
			med = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "run %d %-8s: %d triggers, median %.2f ms, p99 %.2f ms, max %.2f ms\n",
				r, who, NR, med / 1000, p99 / 1000, v[NR] / 1000
			printf "%d %s %.3f %.3f\n", r, who, med / 1000, p99 / 1000 >>res
		}'
}

for r in $(seq "$runs"); do
	mkdir -p "$work/r$r"
	if [ "$use_lttng" = 1 ] && [ $((r % 2)) = 0 ]; then
		run_lttng "$r"; summary "$work/lttng.$r" "$r" lttng
	fi
	if [ -n "$build2" ] && [ $((r % 2)) = 0 ]; then
		run_shm "$r" -b; summary "$work/shm-b.$r" "$r" shm-b
	fi
	run_shm "$r" ""; summary "$work/shm.$r" "$r" shmtrace
	if [ -n "$build2" ] && [ $((r % 2)) = 1 ]; then
		run_shm "$r" -b; summary "$work/shm-b.$r" "$r" shm-b
	fi
	if [ "$use_lttng" = 1 ] && [ $((r % 2)) = 1 ]; then
		run_lttng "$r"; summary "$work/lttng.$r" "$r" lttng
	fi
done
for who in shmtrace shm-b lttng; do
	awk -v w="$who" '$2 == w { print $3 }' "$work/res" 2>/dev/null | median >"$work/m" || true
	awk -v w="$who" '$2 == w { print $4 }' "$work/res" 2>/dev/null | median >"$work/p" || true
	[ -s "$work/m" ] && printf '%s: median of the runs: median %.2f ms, p99 %.2f ms\n' \
		"$who" "$(cat "$work/m")" "$(cat "$work/p")"
done
exit 0
