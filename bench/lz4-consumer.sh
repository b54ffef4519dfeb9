#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# lz4-consumer.sh - what --compress lz4 costs the consumer and saves on
# disk: the same workload recorded into a plain channel and into an LZ4
# channel, alternating, R repetitions (medians). For each: bytes on disk,
# the consumer daemon's CPU time (from /proc), and its throughput in MB of
# CTF data (before compression) per CPU second.
#
# usage: bench/lz4-consumer.sh [-r REPS] [-n EVENTS_PER_THREAD] [-k]
# Environment: SHMTRACE_BUILD (default <tree>/build), TMPDIR.
set -euo pipefail
reps=3
events=1000000
name=lz4-consumer
. "$(dirname "$0")/lib.sh" "$@"
[ -x "$build/tests/apps/gen-events" ] || { echo "build gen-events first: make -C $build check" >&2; exit 1; }
bench_daemons
cpid=$CONSUMERD_PID
ticks() { awk '{ print $14 + $15 }' "/proc/$cpid/stat"; }
hz=$(getconf CLK_TCK)
run() {	# run plain|lz4: "bytes_on_disk ctf_bytes cpu_seconds discarded"
	local mode=$1 out=$work/t-$1 t0 t1 disk ctf disc
	rm -rf "$out"
	"$T" create r --output "$out" >/dev/null
	if [ "$mode" = lz4 ]; then
		"$T" enable-channel -s r c --compress lz4 >/dev/null
	else
		"$T" enable-channel -s r c >/dev/null
	fi
	"$T" enable-event -s r -c c 'shmtrace_test:*' >/dev/null
	"$T" start r >/dev/null
	t0=$(ticks)
	"$build/tests/apps/gen-events" -n "$events" -t 2 -s 24 -p 50
	"$T" stop r >/dev/null
	t1=$(ticks)
	"$T" destroy r >/dev/null
	disk=$(find "$out" -type f ! -name metadata -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
	if [ "$mode" = lz4 ]; then
		ctf=$(for f in $(find "$out" -type f ! -name metadata); do lz4 -q -d -c "$f"; done | wc -c)
	else
		ctf=$disk
	fi
	disc=$("$build/trace-read" --stats=count "$out" | sed -n 's/^ *\([0-9]*\)  discarded$/\1/p')
	echo "$disk $ctf $(awk -v a="$t0" -v b="$t1" -v h="$hz" 'BEGIN { printf "%.2f", (b - a) / h }') $disc"
}
declare -A res
for r in $(seq "$reps"); do
	order="plain lz4"
	[ $((r % 2)) = 0 ] && order="lz4 plain"
	for m in $order; do res[$m]="${res[$m]:-}|$(run "$m")"; done
done
col() { echo "${res[$1]}" | tr '|' '\n' | grep . | awk -v c="$2" '{ print $c }' | median; }
printf '%-6s %14s %14s %10s %14s %10s\n' channel "disk bytes" "CTF bytes" "cpu s" "MB CTF/cpu s" discarded
for m in plain lz4; do
	printf '%-6s %14s %14s %10s %14.1f %10s\n' "$m" "$(col $m 1)" "$(col $m 2)" "$(col $m 3)" \
		"$(awk -v b="$(col $m 2)" -v s="$(col $m 3)" 'BEGIN { print (s > 0 ? b / s / 1e6 : 0) }')" \
		"$(col $m 4)"
done
echo "lz4: compression ratio $(awk -v a="$(col lz4 2)" -v b="$(col lz4 1)" 'BEGIN { printf "%.2f", a / b }'), consumer throughput $(awk -v b="$(col lz4 2)" -v s="$(col lz4 3)" 'BEGIN { printf "%.0f", (s > 0 ? b / s / 1e6 : 0) }') MB/s with lz4, $(awk -v b="$(col plain 2)" -v s="$(col plain 3)" 'BEGIN { printf "%.0f", (s > 0 ? b / s / 1e6 : 0) }') MB/s without (per CPU second of the consumer)"
