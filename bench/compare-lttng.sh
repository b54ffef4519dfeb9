#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# compare-lttng.sh - benchmark shmtrace side by side with LTTng-UST 2.13 and
# with a "floor" (the same clock read and stores, no tracer).
#
# The same workload (bench/harness.h) is built three times: against
# shmtrace, against LTTng-UST, and bare. Each repetition runs the three in
# turn (the order alternates between repetitions); each tracer runs with its
# own daemons, started for the repetition and stopped after it, and one
# session per measurement whose consumer writes the trace to disk. The
# table gives the median over the repetitions; ratios are taken within a
# repetition, then their median. See bench/README.md.
#
# usage: bench/compare-lttng.sh [-r REPS] [-n EVENTS] [-b BURST] [-p PAUSE_US]
#                               [-k] [--no-lttng]
#   -r REPS      repetitions (default 5)
#   -n EVENTS    events per throughput run (default 2000000)
#   -b BURST     events per thread emitted back to back (default 32768;
#                0: all the events in one tight loop)
#   -p PAUSE_US  pause between bursts, for the consumer (default 20000)
#   -w WARMUP    untimed events per thread first, in bursts (default 786432:
#                a lap of the default buffers), timed apart
#   -k           keep the work directory (traces, logs, raw results)
#   --no-lttng   measure shmtrace and the floor only
# Environment: SHMTRACE_BUILD (default <tree>/build), CC (default cc),
# BENCH_CPUS (CPUs of the measuring threads, e.g. "1,0"), BENCH_DAEMON_CPUS
# (the CPUs of both tracers' daemons; default: every allowed CPU but the
# one of the 1-thread runs, when there is one to spare; empty: any), TMPDIR.
#
# It is a benchmark, not a test: it prints figures. LTTng-UST and
# lttng-tools are installed with apt-get when missing (as root).
set -euo pipefail

reps=5
events=2000000
burst=32768
pause_us=20000
warmup=786432
keep=0
use_lttng=1
while [ $# -gt 0 ]; do
	case $1 in
	-r) reps=$2; shift 2 ;;
	-n) events=$2; shift 2 ;;
	-b) burst=$2; shift 2 ;;
	-p) pause_us=$2; shift 2 ;;
	-w) warmup=$2; shift 2 ;;
	-k) keep=1; shift ;;
	--no-lttng) use_lttng=0; shift ;;
	-h|--help) sed -n '3,29p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "usage: $0 [-r REPS] [-n EVENTS] [-b BURST] [-p PAUSE_US] [-w WARMUP] [-k]" \
		"[--no-lttng]" >&2
	   exit 2 ;;
	esac
done
case $reps in ''|*[!0-9]*|0) echo "bad -r" >&2; exit 2 ;; esac
case $events in ''|*[!0-9]*|0) echo "bad -n" >&2; exit 2 ;; esac
case $burst$pause_us$warmup in ''|*[!0-9]*) echo "bad -b, -p or -w" >&2; exit 2 ;; esac
export BENCH_WARMUP=$warmup

top=$(cd "$(dirname "$0")/.." && pwd)
build=${SHMTRACE_BUILD:-$top/build}
bench=$top/bench
CC=${CC:-cc}
CFLAGS="-O2 -pthread -Wall"

# Sizes of the other runs.
disabled_iter=50000000		# iterations per round of the disabled loop
disabled_rounds=5		# best of, alternating with the empty loop
lat_batches=50000		# latency: batches of...
lat_k=32			# ...events, each batch timed as a whole

name=compare-lttng
. "$bench/common.sh"

start_time=$(date +%s)

# the consumers away from the thread they drain, as a user would place them
if [ -z "${BENCH_DAEMON_CPUS+set}" ]; then
	w=${BENCH_CPUS:-$(first_cpu)}
	BENCH_DAEMON_CPUS=$(other_cpus "${w%%,*}")
	export BENCH_DAEMON_CPUS
fi

[ -x "$build/tracectl" ] && [ -e "$build/.libs/libshmtrace.so" ] ||
	die "no shmtrace build in $build (run make -C $build, or set SHMTRACE_BUILD)"

work=$(mktemp -d "${TMPDIR:-/tmp}/compare-lttng.XXXXXX")
res=$work/results		# lines: REP TRACER KEY VALUE
: >"$res"

cleanup() {
	daemons_stop_all
	[ "$keep" = 1 ] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- LTTng installation ------------------------------------------------------------

lttng_ok=0
lttng_why=""
have_lttng() {
	command -v lttng >/dev/null && command -v lttng-sessiond >/dev/null || return 1
	[ -n "$(find /usr/include /usr/local/include -path '*/lttng/tracepoint.h' 2>/dev/null | head -n1)" ]
}
if [ "$use_lttng" = 1 ]; then
	if ! have_lttng || ! command -v babeltrace2 >/dev/null; then
		if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
			log "installing liblttng-ust-dev lttng-tools babeltrace2 with apt-get..."
			if ! { DEBIAN_FRONTEND=noninteractive apt-get update -q &&
			       DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
				--no-install-recommends liblttng-ust-dev lttng-tools babeltrace2; } \
				>"$work/apt.log" 2>&1; then
				log "apt-get failed (see $work/apt.log)"
			fi
		fi
	fi
	if have_lttng; then
		lttng_ok=1
	else
		lttng_why="LTTng-UST/lttng-tools not installed"
	fi
else
	lttng_why="--no-lttng"
fi

# ---- build -------------------------------------------------------------------------------

log "building the workloads in $work..."
shmlib="$build/.libs"
$CC $CFLAGS -I"$top/include" -o "$work/wl-shmtrace" "$bench/workload-shmtrace.c" \
	"$shmlib/libshmtrace.so" -Wl,-rpath,"$shmlib" || die "cannot build the shmtrace workload"
# the floor reads shmtrace's clock, which may need libshmtrace (e.g. its TSC flag)
$CC $CFLAGS -I"$top/include" -o "$work/wl-floor" "$bench/floor.c" \
	"$shmlib/libshmtrace.so" -Wl,-rpath,"$shmlib" || die "cannot build the floor"
if [ "$lttng_ok" = 1 ]; then
	if ! $CC $CFLAGS -I"$bench" -o "$work/wl-lttng" "$bench/workload-lttng.c" \
		-llttng-ust -ldl 2>"$work/build-lttng.log"; then
		cat "$work/build-lttng.log" >&2
		lttng_ok=0
		lttng_why="cannot build the LTTng-UST workload"
	fi
fi

# ---- helpers -------------------------------------------------------------------------------

# run_workload TRACER LOGNAME ARGS...: run the workload, print its result line
run_workload() {
	local t=$1 name=$2 out
	shift 2
	if ! out=$("$work/wl-$t" "$@" 2>"$work/log/$name.err"); then
		log "$t workload $* failed:"
		cat "$work/log/$name.err" >&2
		return 1
	fi
	printf '%s\n' "$out" >"$work/log/$name.out"
	printf '%s\n' "$out"
}

# Every traced measurement: KIND (a1 b1 b2 lat), the workload's arguments.
measurements=(
	"a1 enabled a $events 1 $burst $pause_us"
	"b1 enabled b $events 1 $burst $pause_us"
	"b2 enabled b $events 2 $burst $pause_us"
	"lat latency b $lat_batches $lat_k $burst $pause_us"
)

# record_result TRACER KIND LINE: file the figures of one result line
record_result() {
	local t=$1 kind=$2 line=$3
	case $kind in
	a1|b1|b2)
		record "$t" "$kind.ns" "$(kv "$line" ns_per_event)"
		record "$t" "$kind.tns" "$(kv "$line" thread_ns_per_event)"
		record "$t" "$kind.wns" "$(kv "$line" warmup_ns_per_event)"
		record "$t" "$kind.eps" "$(kv "$line" events_per_sec)" ;;
	lat)
		record "$t" lat.p50 "$(kv "$line" p50)"
		record "$t" lat.p99 "$(kv "$line" p99)"
		record "$t" lat.p999 "$(kv "$line" p999)" ;;
	esac
}

# ---- one repetition of each --------------------------------------------------------------

rep_floor() {
	local line kind args
	line=$(run_workload floor "floor-$rep-disabled" disabled $disabled_iter $disabled_rounds)
	record floor loop.ns "$(kv "$line" loop_ns)"
	for m in "${measurements[@]}"; do
		kind=${m%% *}; args=${m#* }
		line=$(run_workload floor "floor-$rep-$kind" $args)
		record_result floor "$kind" "$line"
	done
	# the bytes the floor stores: 4-byte header + payload
	record floor a.bytes 12
	record floor b.bytes 29
	record floor discarded 0
}

rep_shmtrace() {
	local line kind args out status n rec dis emitted tc=$build/tracectl
	shm_daemons_start "$work/shmtrace-home" "$work/log/sessiond-$rep.log" ||
		die "trace-sessiond does not start (see $work/log/sessiond-$rep.log)"
	line=$(run_workload shmtrace "shmtrace-$rep-disabled" disabled $disabled_iter $disabled_rounds)
	record shmtrace disabled.ns "$(kv "$line" disabled_ns)"
	record shmtrace loop.ns "$(kv "$line" loop_ns)"
	dis=0
	for m in "${measurements[@]}"; do
		kind=${m%% *}; args=${m#* }
		out=$work/traces/shmtrace-$rep-$kind
		"$tc" create s --output "$out" >/dev/null
		"$tc" enable-event -s s 'bench:*' >/dev/null
		"$tc" start s >/dev/null
		line=$(run_workload shmtrace "shmtrace-$rep-$kind" $args) || { "$tc" destroy s; return 1; }
		"$tc" stop s >/dev/null
		status=$work/log/shmtrace-$rep-$kind.status
		"$tc" status s --format json >"$status"
		"$tc" destroy s >/dev/null
		record_result shmtrace "$kind" "$line"
		emitted=$(kv "$line" events)
		rec=$(status_sum "$status" recorded)
		n=$(status_sum "$status" discarded)
		dis=$((dis + ${n:-0}))
		[ "${rec:-0}" -gt 0 ] || rec=$emitted
		[ $((rec + ${n:-0})) = "$emitted" ] ||
			log "warning: shmtrace $kind: $emitted events emitted, ${rec} recorded + ${n:-?} discarded"
		case $kind in
		a1|b1)
			record shmtrace "${kind%1}.bytes" \
				"$(awk -v b="$(stream_bytes "$out")" -v n="$rec" 'BEGIN { printf "%.3f", b / n }')"
			record shmtrace "${kind%1}.meta" "$(meta_bytes "$out")" ;;
		esac
		rm -rf "$out"
	done
	record shmtrace discarded "$dis"
	shm_daemons_stop
}

rep_lttng() {
	local line kind args out n rec dis emitted
	export LTTNG_UST_REGISTER_TIMEOUT=-1	# the workload waits for its registration
	lttng_daemons_start "$work/lttng-home" "$work/log/lttng-sessiond-$rep.log" ||
		{ lttng_why="lttng-sessiond does not start (see its log; another root session daemon?)"; return 1; }
	line=$(run_workload lttng "lttng-$rep-disabled" disabled $disabled_iter $disabled_rounds) ||
		{ lttng_why="the LTTng workload failed"; return 1; }
	record lttng disabled.ns "$(kv "$line" disabled_ns)"
	record lttng loop.ns "$(kv "$line" loop_ns)"
	dis=0
	for m in "${measurements[@]}"; do
		kind=${m%% *}; args=${m#* }
		out=$work/traces/lttng-$rep-$kind
		{ lttng create s --output "$out" &&
		  lttng enable-channel -u channel0 &&
		  lttng enable-event -u -c channel0 'bench:*' &&
		  lttng start s; } >"$work/log/lttng-$rep-$kind.ctl" 2>&1 ||
			{ cat "$work/log/lttng-$rep-$kind.ctl" >&2; lttng_why="lttng session set-up failed"; return 1; }
		line=$(run_workload lttng "lttng-$rep-$kind" $args) ||
			{ lttng destroy s >/dev/null 2>&1; lttng_why="the LTTng workload failed"; return 1; }
		lttng stop s >/dev/null 2>&1
		lttng list s >"$work/log/lttng-$rep-$kind.list" 2>&1 || true
		lttng destroy s >/dev/null 2>&1
		record_result lttng "$kind" "$line"
		emitted=$(kv "$line" events)
		n=$(awk '/Discarded events:/ { s += $NF } END { print s + 0 }' "$work/log/lttng-$rep-$kind.list")
		dis=$((dis + n))
		rec=$(lttng_count "$out")
		[ $((rec + n)) = "$emitted" ] ||
			log "warning: lttng-ust $kind: $emitted events emitted, $rec in the trace + $n discarded"
		case $kind in
		a1|b1)
			record lttng "${kind%1}.bytes" \
				"$(awk -v b="$(stream_bytes "$out")" -v n="$rec" 'BEGIN { printf "%.3f", n ? b / n : 0 }')"
			record lttng "${kind%1}.meta" "$(meta_bytes "$out")" ;;
		esac
		rm -rf "$out"
	done
	record lttng discarded "$dis"
	lttng_daemons_stop
}

# ---- run ------------------------------------------------------------------------------------

mkdir -p "$work/log" "$work/traces"
order=(shmtrace floor)
[ "$lttng_ok" = 1 ] && order+=(lttng)
log "$reps repetitions of: ${order[*]} (alternating order), $events events per throughput run"
for rep in $(seq 1 "$reps"); do
	if [ $((rep % 2)) = 0 ]; then
		seq_=$(printf '%s\n' "${order[@]}" | tac)
	else
		seq_=${order[*]}
	fi
	for t in $seq_; do
		log "repetition $rep/$reps: $t"
		case $t in
		floor) rep_floor ;;
		shmtrace) rep_shmtrace ;;
		lttng)
			if [ "$lttng_ok" = 1 ] && ! rep_lttng; then
				log "LTTng-UST measurement failed: $lttng_why"
				lttng_ok=0
				lttng_daemons_stop
			fi ;;
		esac
	done
done

# ---- table ----------------------------------------------------------------------------------

row() {	# row LABEL SHM FLOOR LTTNG [RATIO]
	printf '%-30s %14s %14s %14s %12s\n' "$1" "$2" "$3" "$4" "${5:-}"
}

tracers="shmtrace floor lttng"
echo
echo "shmtrace vs LTTng-UST: medians of $reps repetitions ($(nproc) CPUs, $events events per run)"
[ "$lttng_ok" = 1 ] || echo "lttng-ust: not measured: $lttng_why"
row "" shmtrace floor lttng-ust "lttng/shm"
row "empty loop ns/iteration" $(for t in $tracers; do fmt %.3f "$(med $t loop.ns)"; echo; done)
row "disabled ns/event (raw)" "$(fmt %.3f "$(med shmtrace disabled.ns)")" - \
	"$(fmt %.3f "$(med lttng disabled.ns)")"
row "disabled ns/event (-loop)" "$(fmt %.3f "$(medratio shmtrace disabled.ns shmtrace loop.ns -)")" - \
	"$(fmt %.3f "$(medratio lttng disabled.ns lttng loop.ns -)")"
nsrow() {	# nsrow LABEL KEY: ns figures with the lttng/shmtrace ratio
	row "$1" $(for t in $tracers; do fmt %.2f "$(med $t "$2")"; echo; done) \
		"$(fmt %.2f "$(medratio lttng "$2" shmtrace "$2")")"
}
nsrow "A 1 thread ns/event" a1.ns
nsrow "B 1 thread ns/event" b1.ns
nsrow "B 1 thread warm-up ns/event" b1.wns
nsrow "B 2 threads ns/event (agg)" b2.ns
nsrow "B 2 threads ns/event/thread" b2.tns
row "B 2 threads Mevents/s (agg)" $(for t in $tracers; do
	v=$(med $t b2.eps); [ -n "$v" ] && v=$(awk -v v="$v" 'BEGIN { print v / 1e6 }'); fmt %.1f "$v"; echo; done)
row "B 1 thread Mevents/s" $(for t in $tracers; do
	v=$(med $t b1.eps); [ -n "$v" ] && v=$(awk -v v="$v" 'BEGIN { print v / 1e6 }'); fmt %.1f "$v"; echo; done)
row "B ratio 2T/1T throughput" $(for t in $tracers; do fmt %.2f "$(medratio $t b2.eps $t b1.eps)"; echo; done)
nsrow "B latency p50 ns/event" lat.p50
nsrow "B latency p99 ns/event" lat.p99
nsrow "B latency p99.9 ns/event" lat.p999
row "A bytes/event (streams)" $(for t in $tracers; do fmt %.2f "$(med $t a.bytes)"; echo; done)
row "B bytes/event (streams)" $(for t in $tracers; do fmt %.2f "$(med $t b.bytes)"; echo; done)
row "metadata bytes per trace" "$(fmt %.0f "$(med shmtrace b.meta)")" - "$(fmt %.0f "$(med lttng b.meta)")"
row "discarded (all runs)" $(for t in $tracers; do fmt %.0f "$(sum $t discarded)"; echo; done)
echo
echo "runs: A and B 1 thread: $events events; B 2 threads: $events events in all;"
if [ "$burst" -gt 0 ]; then
	echo "in bursts of $burst events per thread, $pause_us us apart (only the bursts are timed);"
else
	echo "in one tight loop;"
fi
echo "each thread first emits $warmup untimed events (warm-up: timed apart, 1 thread);"
echo "latency: $lat_batches batches of $lat_k events; disabled: best of $disabled_rounds x $disabled_iter."
echo "elapsed: $(( $(date +%s) - start_time )) s"
[ "$keep" = 1 ] && echo "work directory kept: $work (results: raw figures per repetition)"
echo "daemons' CPUs: ${BENCH_DAEMON_CPUS:-any}; measuring threads' CPUs: ${BENCH_CPUS:-the allowed ones in order}"
# the headline: per event, shmtrace X, floor F, LTTng Y, X/F and Y/X (each
# ratio taken within a repetition, then the median)
headline() {
	printf '%s %s (floor %s, lttng-ust %s, shmtrace/floor %s, lttng/shmtrace %s)' "$1" \
		"$(fmt %.2f "$(med shmtrace "$2")")" "$(fmt %.2f "$(med floor "$2")")" \
		"$(fmt %.2f "$(med lttng "$2")")" "$(fmt %.3f "$(medratio shmtrace "$2" floor "$2")")" \
		"$(fmt %.2f "$(medratio lttng "$2" shmtrace "$2")")"
}
echo "enabled ns/event, shmtrace: $(headline B b1.ns); $(headline A a1.ns)"
