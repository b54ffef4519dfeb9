#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/trigger-shift.sh [-r RUNS] [-w WARMUP_MS] [-a AFTER_MS] [-p SLOW_PCT]
#                        [-s SLOW_MS] [-e EVERY]
# An aggregation trigger on a latency shift: bench/trigger-shift.c emits
# one request a millisecond, durations of about 1 ms for WARMUP_MS (2000),
# then SLOW_PCT (10) % of them at SLOW_MS (20) ms for AFTER_MS (2000); a
# memory-only session records them and aggregates them (quantize of the
# duration), and `add-trigger --on-aggregation lat --when 'p99 > 5ms'
# --every EVERY (100ms) --action snapshot-session` snapshots it. Per run:
# the delay from the shift to the firing (the firing's time_ns in
# list-triggers, both CLOCK_REALTIME), split at the time the slow requests
# first made more than 1 % of all (the aggregation counts from the start,
# so this part grows with the warm-up; the rest is the trigger's own
# delay: its evaluation every EVERY and the action), whether it fired
# once, and the requests of its snapshot (babeltrace2): the slow ones, and
# whether the first slow request is there, and how long before the firing
# its newest request was emitted (from the mean period of the requests).
# Environment: BUILD (the shmtrace build, default <tree>/build), TMPDIR.
set -euo pipefail
name=trigger-shift
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
. "$top/bench/common.sh"
runs=3 warmup=2000 after=2000 pct=10 slow_ms=20 every=100ms
while getopts r:w:a:p:s:e: o; do
	case $o in
	r) runs=$OPTARG ;;
	w) warmup=$OPTARG ;;
	a) after=$OPTARG ;;
	p) pct=$OPTARG ;;
	s) slow_ms=$OPTARG ;;
	e) every=$OPTARG ;;
	*) die "usage: $0 [-r RUNS] [-w WARMUP_MS] [-a AFTER_MS] [-p SLOW_PCT] [-s SLOW_MS] [-e EVERY]" ;;
	esac
done
command -v babeltrace2 >/dev/null || die "babeltrace2 is needed to read the snapshots"
work=$(mktemp -d "${TMPDIR:-/tmp}/shmtrace-bench.XXXXXX")
trap 'daemons_stop_all; rm -rf "$work"' EXIT
bench_cc "$work/trigger-shift" "$top/bench/trigger-shift.c" || die "cannot build the program"
ctl=$build/tracectl
for r in $(seq "$runs"); do
	shm_daemons_start "$work/home$r" "$work/daemons$r.log" || die "the daemons did not start"
	out=$work/r$r/out
	mkdir -p "$work/r$r"
	"$ctl" create fr --output "$out" --snapshot >/dev/null
	"$ctl" enable-event -s fr 'bench_shift:*' >/dev/null
	"$ctl" aggregate -s fr lat 'bench_shift:req' --quantize dur >/dev/null
	"$ctl" add-trigger shift --on-aggregation lat --when 'p99 > 5ms' --every "$every" \
		--action snapshot-session fr >/dev/null
	"$ctl" start fr >/dev/null
	# (its events enabled before main: its first request is recorded too)
	line=$(SHMTRACE_REGISTER_TIMEOUT=10000 "$work/trigger-shift" "$warmup" "$after" "$pct" \
		"$((slow_ms * 1000000))")
	sleep 0.5
	"$ctl" list-triggers --format json >"$work/list$r.json"
	"$ctl" destroy fr >/dev/null
	shm_daemons_stop
	shift_ns=$(kv "$line" shift_ns)
	first=$(kv "$line" first_slow)
	python3 - "$work/list$r.json" "$shift_ns" "$r" "$pct" "$(kv "$line" cross_ns)" "$work/res" \
		>"$work/fired$r" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = [x for x in d["triggers"] if x["name"] == "shift"][0]
f = t["last_firing"]
shift = int(sys.argv[2])
if not f or t["fired"] < 1:
    print("fired=0"); sys.exit(0)
delay = (f["time_ns"] - shift) / 1e6
# slow requests emitted by the firing: one request a ms, pct % of them
slow = max(0.0, delay) * int(sys.argv[4]) / 100
cross = (int(sys.argv[5]) - shift) / 1e6
print("fired=%d delay_ms=%.1f cross_ms=%.1f after_cross_ms=%.1f slow_by_then=%.0f path=%s errno=%d" %
      (t["fired"], delay, cross, delay - cross, slow, f["path"], f["errno"]))
open(sys.argv[6], "a").write("%s %.1f %.1f\n" % (sys.argv[3], delay, delay - cross))
PY
	fl=$(cat "$work/fired$r")
	path=$(kv "$fl" path)
	if [ "$(kv "$fl" fired)" != 1 ] || [ -z "$path" ] || [ ! -d "$path" ]; then
		echo "run $r: did not fire once with a snapshot: $fl"
		continue
	fi
	# the snapshot: its requests, the slow ones, and the first slow one in it
	babeltrace2 "$path" 2>"$work/bt$r.err" | sed -n 's/.*seq = \([0-9]*\), dur = [0-9]*, slow = \([01]\).*/\1 \2/p' |
		awk -v first="$first" -v warmup="$warmup" -v period="$(kv "$line" period_ns)" \
			-v delay="$(kv "$fl" delay_ms)" '
			{ n++; if ($2 == 1) { s++; if (!f || $1 < f) f = $1 } if (n == 1 || $1 < lo) lo = $1; hi = $1 }
			END { printf "in_snapshot=%d slow_in_snapshot=%d seqs=%d-%d first_slow_emitted=%d first_slow_in=%s" \
				" newest_before_firing_ms=%.0f\n", n, s, lo, hi, first, (f == first) ? "yes" : "no",
				delay - (hi - warmup) * period / 1e6 }' >"$work/snap$r"
	echo "run $r: from the shift to the firing $(kv "$fl" delay_ms) ms, of which" \
		"$(kv "$fl" cross_ms) ms until over 1 % were slow and $(kv "$fl" after_cross_ms) ms after;" \
		"snapshot: $(cat "$work/snap$r")"
done
[ -s "$work/res" ] && printf 'median over %d runs: shift to firing %s ms, p99 crossing to firing %s ms\n' \
	"$(wc -l <"$work/res")" "$(awk '{ print $2 }' "$work/res" | median)" \
	"$(awk '{ print $3 }' "$work/res" | median)"
exit 0
