#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# stream.sh - the lossless rate of streaming to lttng-relayd over loopback,
# beside writing to the local disk, and beside LTTng-UST streaming the same
# workload to the same relay daemon, in the same run.
#
# The workload is compare-lttng.sh's (bench/harness.h): one thread emits
# event B (an int64 and a 16-character string) in bursts of BURST events
# separated by pauses; the pause sets the rate. For each target, a ladder
# of pauses from slow to back-to-back; the lossless rate of a target is
# the highest sustained rate (the harness's timed events over their span,
# pauses included) of a run that lost nothing (no event discarded, none lost
# to the network). Targets:
#   shmtrace-disk    tracectl create --output DIR (the default channel)
#   shmtrace-relay   tracectl create --set-url net://127.0.0.1:C:D
#   lttng-relay      lttng create --set-url net://127.0.0.1:C:D (LTTng-UST,
#                    its default channel), when LTTng-UST is installed
# Each repetition runs the targets in turn (alternating order); the table
# gives medians over the repetitions, and each target's ratio to
# shmtrace-disk taken within a repetition.
#
# usage: bench/stream.sh [-r REPS] [-n EVENTS] [-b BURST] [--no-lttng] [-k]
#   -r REPS     repetitions (default 3)
#   -n EVENTS   events per run (default 10000000)
#   -b BURST    events per burst (default 4096)
# Environment: SHMTRACE_BUILD (default <tree>/build), CC, TMPDIR.
#
# It is a benchmark, not a test: it prints figures.
set -euo pipefail

reps=3
events=10000000
burst=4096
use_lttng=1
keep=0
while [ $# -gt 0 ]; do
	case $1 in
	-r) reps=$2; shift 2 ;;
	-n) events=$2; shift 2 ;;
	-b) burst=$2; shift 2 ;;
	-k) keep=1; shift ;;
	--no-lttng) use_lttng=0; shift ;;
	-h|--help) sed -n '3,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "usage: $0 [-r REPS] [-n EVENTS] [-b BURST] [--no-lttng] [-k]" >&2; exit 2 ;;
	esac
done
case $reps$events$burst in ''|*[!0-9]*) echo "bad -r, -n or -b" >&2; exit 2 ;; esac
pauses="1000 500 250 120 60 40 25 10 0"
export BENCH_WARMUP=65536

top=$(cd "$(dirname "$0")/.." && pwd)
build=${SHMTRACE_BUILD:-$top/build}
bench=$top/bench
CC=${CC:-cc}
name=stream
. "$bench/common.sh"
tc=$build/tracectl

[ -x "$tc" ] && [ -e "$build/.libs/libshmtrace.so" ] || die "no shmtrace build in $build"
command -v lttng-relayd >/dev/null || die "lttng-relayd is not installed (apt-get install lttng-tools)"
work=$(mktemp -d "${TMPDIR:-/tmp}/stream-bench.XXXXXX")
res=$work/results
relay_pid=""
cleanup() {
	daemons_stop_all
	[ -n "$relay_pid" ] && kill -TERM "$relay_pid" 2>/dev/null && wait_pids "$relay_pid"
	[ "$keep" = 1 ] && log "kept $work" || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$work/log"

$CC -O2 -pthread -I"$top/include" -o "$work/wl-shmtrace" "$bench/workload-shmtrace.c" \
	"$build/.libs/libshmtrace.so" -Wl,-rpath,"$build/.libs" || die "cannot build the workload"
lttng_ok=0
if [ "$use_lttng" = 1 ] && command -v lttng-sessiond >/dev/null &&
   $CC -O2 -pthread -I"$bench" -o "$work/wl-lttng" "$bench/workload-lttng.c" -llttng-ust -ldl \
	2>"$work/log/build-lttng.log"; then
	lttng_ok=1
else
	[ "$use_lttng" = 1 ] && log "LTTng-UST not measured (not installed: see compare-lttng.sh)"
fi

# the relay: free loopback ports, its own output and home
read -r cport dport lport < <(python3 -c 'import socket
s = [socket.socket() for _ in range(3)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))')
mkdir -p "$work/relay" "$work/relay-home"
LTTNG_HOME=$work/relay-home lttng-relayd -o "$work/relay" -C "tcp://127.0.0.1:$cport" \
	-D "tcp://127.0.0.1:$dport" -L "tcp://127.0.0.1:$lport" >"$work/log/relayd.log" 2>&1 &
relay_pid=$!
for _ in $(seq 50); do
	python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', int(sys.argv[1])), 1)" \
		"$cport" 2>/dev/null && break
	sleep 0.1
done
url="net://127.0.0.1:$cport:$dport"

# one RUN: the workload at PAUSE; prints "RATE LOST" (events/s, events lost)
run_shm() {
	local where=$1 pause=$2 line st lost
	if [ "$where" = disk ]; then
		"$tc" create s --output "$work/out" >/dev/null
	else
		"$tc" create s --set-url "$url" >/dev/null
	fi
	"$tc" enable-event -s s 'bench:*' >/dev/null
	"$tc" start s >/dev/null
	line=$("$work/wl-shmtrace" enabled b "$events" 1 "$burst" "$pause" 2>/dev/null || true)
	"$tc" stop s >/dev/null 2>&1 || true
	st=$work/status.json
	"$tc" status s --format json >"$st" 2>/dev/null || true
	"$tc" destroy s >/dev/null 2>&1 || true
	rm -rf "$work/out" "${work:?}/relay/"*
	lost=$(( $(status_sum "$st" discarded) + $(status_sum "$st" lost_to_write_errors) +
		$(status_sum "$st" lost_without_buffer) ))
	echo "$(kv "$line" sustained_per_sec) $lost"
}

run_lttng() {
	local pause=$1 line lost
	{ lttng create s --set-url "$url" && lttng enable-channel -u channel0 &&
	  lttng enable-event -u -c channel0 'bench:*' && lttng start s; } >"$work/log/lttng.ctl" 2>&1 ||
		{ echo "- -"; return; }
	line=$(LTTNG_UST_REGISTER_TIMEOUT=-1 "$work/wl-lttng" enabled b "$events" 1 "$burst" \
		"$pause" 2>/dev/null || true)
	lttng stop s >/dev/null 2>&1
	lost=$(lttng list s 2>/dev/null | awk '/Discarded events:/ { s += $NF } /Lost packets:/ { s += $NF } END { print s + 0 }')
	lttng destroy s >/dev/null 2>&1
	rm -rf "${work:?}/relay/"*
	echo "$(kv "$line" sustained_per_sec) $lost"
}

# ladder TARGET: the lossless rate of TARGET (0 when every run lost events)
ladder() {
	local t=$1 best=0 p r
	for p in $pauses; do
		case $t in
		shmtrace-disk) r=$(run_shm disk "$p") ;;
		shmtrace-relay) r=$(run_shm relay "$p") ;;
		lttng-relay) r=$(run_lttng "$p") ;;
		esac
		log "  $t pause $p us: ${r% *} events/s, ${r#* } lost"
		[ "${r#* }" = 0 ] && [ -n "${r% *}" ] && [ "${r% *}" -gt "$best" ] && best=${r% *}
	done
	echo "$best"
}

targets=(shmtrace-disk shmtrace-relay)
shm_daemons_start "$work/shmtrace-home" "$work/log/sessiond.log" || die "trace-sessiond does not start"
if [ "$lttng_ok" = 1 ]; then
	lttng_daemons_start "$work/lttng-home" "$work/log/lttng-sessiond.log" && targets+=(lttng-relay) ||
		log "lttng-sessiond does not start: LTTng-UST not measured"
fi
for rep in $(seq 1 "$reps"); do
	order=("${targets[@]}")
	[ $((rep % 2)) = 0 ] && mapfile -t order < <(printf '%s\n' "${targets[@]}" | tac)
	for t in "${order[@]}"; do
		log "repetition $rep/$reps: $t"
		record "$t" lossless "$(ladder "$t")"
	done
	disk=$(awk -v r="$rep" '$1 == r && $2 == "shmtrace-disk" { print $4 }' "$res")
	for t in "${targets[@]}"; do
		v=$(awk -v r="$rep" -v t="$t" '$1 == r && $2 == t { print $4 }' "$res")
		record "$t" ratio "$(awk -v a="$v" -v b="$disk" 'BEGIN { printf "%.3f", b ? a / b : 0 }')"
	done
done

printf '\n%-16s %22s %18s\n' target "lossless (Mevents/s)" "ratio to disk"
for t in "${targets[@]}"; do
	printf '%-16s %22.2f %18s\n' "$t" "$(awk -v v="$(med "$t" lossless)" 'BEGIN { print v / 1e6 }')" \
		"$(med "$t" ratio)"
done
printf '\nmedians of %d repetitions; %d events per run, bursts of %d, one thread.\n' \
	"$reps" "$events" "$burst"
