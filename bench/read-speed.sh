#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# read-speed.sh - how fast trace-read reads a trace, side by side with
# babeltrace2, and how its memory grows with the length of the trace.
#
# The script records a trace of N events with the test program gen-events
# (4 threads per process, 'shmtrace_test:*'), with the daemons of the build
# started in a private SHMTRACE_HOME and stopped (by pid) once the trace is
# on disk, and checks that nothing was discarded. Then R repetitions of
# (the order is reversed every other repetition):
#   trace-read --stats DIR >/dev/null          every event decoded, counted
#   babeltrace2 DIR -c sink.utils.dummy        every event decoded, dropped
#   trace-read DIR >/dev/null                  text
#   babeltrace2 DIR >/dev/null                 text
# each timed (wall clock) with its peak RSS. The table gives the medians;
# the ratios babeltrace2 / trace-read are taken within each repetition,
# then their median. Last, the peak RSS of trace-read --stats on a trace
# of 1,000,000 events and one of 20,000,000 events, each recorded from one
# thread emitting at a steady rate (bench/sustained-rate.c): one stream
# each, only the length differs. See bench/README.md.
#
# With --lttng the timed trace is LTTng-UST 2.13's own instead, recorded
# by an lttng-sessiond of its own in the work directory (per-user buffers,
# the vpid and vtid contexts LTTng users add); the memory part is skipped.
# Two shapes of event:
#   --lttng          tests/apps/lttng-types "threads 4 N/4": 4 threads,
#                    events of two integers (a fixed size: the general
#                    decoder skips them whole when no value is asked for),
#                    16 x 4 MiB sub-buffers per CPU; what LTTng discards
#                    is left out of the count;
#   --lttng=strings  bench/workload-lttng.c's bench:b, an int64 and a
#                    16-character string, 2 threads, 8 x 4 MiB
#                    sub-buffers, in bursts paced so that nothing is
#                    discarded.
#
# usage: bench/read-speed.sh [-n EVENTS] [-r REPS] [--no-big]
#                            [--lttng[=strings]] [-k]
#   -n EVENTS    events of the timed trace (default 10000000)
#   -r REPS      repetitions (default 3)
#   --no-big     skip the 20,000,000-event trace (it takes about 600 MB
#                of disk in TMPDIR)
#   --lttng[=strings]  the timed trace made by LTTng-UST (needs
#                lttng-tools, and liblttng-ust-dev for the test programs)
#   -k           keep the work directory (logs, raw results and the
#                traces but the 20,000,000-event one)
# Environment: SHMTRACE_BUILD (default <tree>/build), BABELTRACE2 (default
# babeltrace2), CC (default cc, for bench/sustained-rate.c), TMPDIR (where
# the work directory, and so the traces, go).
#
# It is a benchmark, not a test: it prints figures.
set -euo pipefail

events=10000000
reps=3
small=1000000
big=20000000
use_big=1
lttng=""
keep=0
while [ $# -gt 0 ]; do
	case $1 in
	-n) events=$2; shift 2 ;;
	-r) reps=$2; shift 2 ;;
	--no-big) use_big=0; shift ;;
	--lttng) lttng=ints; use_big=0; shift ;;
	--lttng=strings) lttng=strings; use_big=0; shift ;;
	-k) keep=1; shift ;;
	-h|--help) sed -n '4,52p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "usage: $0 [-n EVENTS] [-r REPS] [--no-big] [--lttng[=strings]] [-k]" >&2; exit 2 ;;
	esac
done
case $events in ''|*[!0-9]*|0) echo "bad -n" >&2; exit 2 ;; esac
case $reps in ''|*[!0-9]*|0) echo "bad -r" >&2; exit 2 ;; esac

top=$(cd "$(dirname "$0")/.." && pwd)
build=${SHMTRACE_BUILD:-$top/build}
tc=$build/tracectl
tr=$build/trace-read
gen=$build/tests/apps/gen-events
BT=${BABELTRACE2:-babeltrace2}

name=read-speed
. "$top/bench/common.sh"

for f in "$tc" "$tr" "$gen" "$build/trace-sessiond" "$build/trace-consumerd"; do
	[ -x "$f" ] || die "no $f (run make -C $build and make -C $build check, or set SHMTRACE_BUILD)"
done
command -v "$BT" >/dev/null || die "babeltrace2 is not installed"
[ -x /usr/bin/time ] || die "/usr/bin/time is not installed (Debian package: time)"

start_time=$(date +%s)
load_start=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')

work=$(mktemp -d "${TMPDIR:-/tmp}/read-speed.XXXXXX")
res=$work/results		# lines: REP WHAT KEY VALUE
: >"$res"
mkdir -p "$work/log"

# daemons_start NAME: the daemons in a fresh home, $work/home-NAME
daemons_start() {
	shm_daemons_start "$work/home-$1" "$work/log/sessiond-$1.log" ||
		die "the daemons do not start (see $work/log/sessiond-$1.log)"
}

cleanup() {
	daemons_stop_all
	if [ "$keep" = 1 ]; then
		rm -rf "$work/trace-big"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- recording -------------------------------------------------------------------------

stream_count() { find "$1" -type f ! -name metadata ! -path '*/index/*' | wc -l; }

# session DIR PATTERN CMD...: one session writing to DIR, PATTERN enabled,
# while CMD runs. Prints "TOTAL DISCARDED SDISCARDED LOST": the events and
# discarded events of trace-read --stats=count, then the session's "events
# discarded" and "events lost without a buffer".
session() {
	local dir=$1 pat=$2 st=$work/log/status tot dis sdis lost
	shift 2
	rm -rf "$dir"
	{ "$tc" create s --output "$dir" &&
	  "$tc" enable-event -s s "$pat" &&
	  "$tc" start s; } >/dev/null || die "cannot set up a session"
	"$@" >>"$work/log/programs" || die "$* failed"
	"$tc" stop s >/dev/null
	"$tc" status s --format json >"$st"
	"$tc" destroy s >/dev/null
	"$tr" --stats=count "$dir" >"$work/log/count" 2>/dev/null || die "trace-read --stats=count $dir failed"
	tot=$(awk '$2 == "total" { print $1 }' "$work/log/count")
	dis=$(awk '$2 == "discarded" { print $1 }' "$work/log/count")
	sdis=$(status_sum "$st" discarded)
	lost=$(status_sum "$st" lost_without_buffer)
	echo "${tot:-0} ${dis:-?} ${sdis:-?} ${lost:-?}"
}

# gen_procs N T P: P gen-events processes one after the other, T threads
# each, N events in all (what does not divide goes to one more process of
# 1 thread).
gen_procs() {
	local n=$1 t=$2 p=$3 per base extra i k rem
	per=$((n / t)); base=$((per / p)); extra=$((per % p))
	for ((i = 0; i < p; i++)); do
		k=$((base + (i < extra ? 1 : 0)))
		[ "$k" -gt 0 ] || continue
		"$gen" -n "$k" -t "$t" || return 1
		sleep 0.1	# the consumer writes the rest of its buffers
	done
	rem=$((n - per * t))
	[ "$rem" -eq 0 ] || "$gen" -n "$rem" -t 1
}

# record_main DIR N: N events of gen-events, 4 threads per process, in P
# processes one after the other, P such that each thread emits at most
# 200000 events (6.3 MiB: its 8 MiB of buffers hold them all, whatever the
# consumer's pace); more processes if events were discarded all the same.
# Prints P.
record_main() {
	local dir=$1 n=$2 p out
	p=$(( (n / 4 + 199999) / 200000 ))
	[ "$p" -gt 0 ] || p=1
	while :; do
		out=$(session "$dir" 'shmtrace_test:*' gen_procs "$n" 4 "$p")
		[ "$out" = "$n 0 0 0" ] && { echo "$p"; return 0; }
		set -- $out
		log "  $p processes of 4 threads: $1 events in the trace, discarded $2" \
			"(session: $3 discarded, $4 lost without a buffer); again with $((2 * p)) processes"
		p=$((2 * p))
		[ $((n / 4 / p)) -gt 1000 ] || die "could not record $n events without discards"
	done
}

# rate_run N RATE: one thread emitting N events at a steady RATE per second
# (bench/sustained-rate.c), pinned to the first allowed CPU
rate_run() {
	local secs
	secs=$(awk -v n="$1" -v r="$2" 'BEGIN { printf "%.9f", n / r }')
	$pin "$work/sustained-rate" "$2" "$secs"
}

# record_rate DIR N: N events of sustained-rate, 10 million per second,
# less if events were discarded. Prints the rate.
record_rate() {
	local dir=$1 n=$2 rate out try
	for rate in 10000000 5000000 2500000 1250000; do
		for try in 1 2; do
			out=$(session "$dir" 'bench:*' rate_run "$n" "$rate")
			[ "$out" = "$n 0 0 0" ] && { echo "$rate"; return 0; }
			set -- $out
			log "  $rate events/s: $1 events in the trace, discarded $2" \
				"(session: $3 discarded, $4 lost without a buffer)"
		done
	done
	die "could not record $n events without discards"
}

# lttng_session DIR SUBBUFS PATTERN: an LTTng session writing to DIR, per-user
# buffers of SUBBUFS x 4 MiB per CPU, PATTERN enabled, vpid and vtid
lttng_session() {
	rm -rf "$1"
	{ lttng create s --output "$1" &&
	  lttng enable-channel -u --subbuf-size 4M --num-subbuf "$2" c &&
	  lttng enable-event -u -c c "$3" &&
	  lttng add-context -u -c c -t vpid -t vtid &&
	  lttng start s; } >"$work/log/lttng-ctl" 2>&1 ||
		die "cannot set up the LTTng session: $(tail -n2 "$work/log/lttng-ctl")"
}

# record_lttng DIR N: N events of shape $lttng (see above) with the LTTng
# daemons lttng_daemons_start started. Prints "EVENTS HOW": the events in
# the trace, and how they were made.
record_lttng() {
	local dir=$1 n=$2 pause got
	if [ "$lttng" = ints ]; then
		[ -x "$build/tests/apps/lttng-types" ] ||
			die "no $build/tests/apps/lttng-types (make -C $build check TESTS=, with liblttng-ust-dev)"
		lttng_session "$dir" 16 'shmtrace_lt:*'
		"$build/tests/apps/lttng-types" threads 4 $((n / 4)) >/dev/null || die "lttng-types failed"
		{ lttng stop s && lttng destroy s; } >/dev/null 2>&1
		got=$(lttng_count "$dir")
		echo "$got lttng-types, 4 threads of 2-integer events ($((n / 4 * 4 + 1 - got)) discarded by LTTng)"
		return 0
	fi
	${CC:-cc} -O2 -I"$top/bench" -o "$work/wl-lttng" "$top/bench/workload-lttng.c" \
		-llttng-ust -ldl -pthread 2>"$work/log/cc-lttng.err" ||
		die "cannot build bench/workload-lttng.c: $(head -n2 "$work/log/cc-lttng.err")"
	for pause in 100 200 400 800 1600; do
		lttng_session "$dir" 8 'bench:*'
		BENCH_WARMUP=0 "$work/wl-lttng" enabled b "$n" 2 2000 "$pause" >>"$work/log/programs" ||
			die "the LTTng workload failed"
		{ lttng stop s && lttng destroy s; } >/dev/null 2>&1
		got=$(lttng_count "$dir")
		[ "$got" = "$n" ] &&
			{ echo "$n bench:b (int64 and a 16-character string), 2 threads, bursts paused $pause us"; return 0; }
		log "  bursts of 2000 per thread, pauses of $pause us: $got events of $n; slower"
	done
	die "could not record $n events without discards"
}

# ---- measurements ----------------------------------------------------------------------



# timed WHAT CMD...: run CMD, its output to /dev/null; file its wall time
# (seconds) and peak RSS (KiB). Standard error must stay empty.
timed() {
	local what=$1 t0 t1 f=$work/log/$1-$rep
	shift
	t0=$(date +%s%N)
	/usr/bin/time -f '%e %M' -o "$f.time" "$@" >/dev/null 2>"$f.err" ||
		die "$* failed: $(head -n3 "$f.err")"
	t1=$(date +%s%N)
	[ -s "$f.err" ] && log "warning: $*: $(head -n2 "$f.err")"
	record "$what" sec "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')"
	record "$what" rss "$(tail -n1 "$f.time" | awk '{ print $2 }')"
}

minmax() {
	awk -v w="$1" -v k="$2" '$2 == w && $3 == k { print $4 }' "$res" | sort -g |
		awk -v f="$3" 'NR == 1 { lo = $1 } { hi = $1 } END { if (NR) printf f "-" f, lo, hi }'
}
# ratios W1 W2 KEY: W1.KEY / W2.KEY in each repetition, one a line
ratios() {
	awk -v a="$1" -v b="$2" -v k="$3" '
		$2 == a && $3 == k { x[$1] = $4 } $2 == b && $3 == k { y[$1] = $4 }
		END { for (r in x) if ((r in y) && y[r] > 0) print x[r] / y[r] }' "$res"
}
fmt() {	# fmt FORMAT VALUE: "n/a" when empty (awk rounds as the min-max do)
	if [ -n "$2" ]; then awk -v f="$1" -v v="$2" 'BEGIN { printf f, v }'; else printf 'n/a'; fi
}

# ---- the timed trace -------------------------------------------------------------------

main=$work/trace-main
if [ -n "$lttng" ]; then
	log "recording $events events with LTTng-UST ($lttng)..."
	export LTTNG_UST_REGISTER_TIMEOUT=-1
	lttng_daemons_start "$work/lttng-home" "$work/log/lttng-sessiond.log" ||
		die "lttng-sessiond does not start (see $work/log/lttng-sessiond.log)"
	made=$(record_lttng "$main" "$events")
	lttng_daemons_stop
	events=${made%% *}
	made="LTTng-UST ${made#* }, per-user buffers, vpid and vtid contexts"
else
	log "recording $events events (gen-events, 4 threads per process)..."
	daemons_start main
	procs=$(record_main "$main" "$events")
	shm_daemons_stop
	made="shmtrace, $procs process(es) x 4 threads"
fi
bytes=$(stream_bytes "$main")
streams=$(stream_count "$main")
log "  $made, $streams streams, $bytes bytes, nothing discarded"

# babeltrace2 must read as many events, without a warning
"$BT" "$main" -c sink.utils.counter >"$work/log/bt-counter" 2>"$work/log/bt-counter.err" ||
	die "babeltrace2 cannot read the trace: $(head -n3 "$work/log/bt-counter.err")"
n=$(awk '$2 == "Event" && $3 == "messages" { n = $1 } END { print n + 0 }' "$work/log/bt-counter")
[ "${n:-0}" = "$events" ] || die "babeltrace2 reads ${n:-0} events, not $events"
[ -s "$work/log/bt-counter.err" ] && log "warning: babeltrace2: $(head -n2 "$work/log/bt-counter.err")"
find "$main" -type f -exec cat {} + >/dev/null	# in the page cache

what=(stats dummy text bttext)
log "$reps repetitions of: ${what[*]} (alternating order)"
for rep in $(seq 1 "$reps"); do
	if [ $((rep % 2)) = 0 ]; then
		seq_=$(printf '%s\n' "${what[@]}" | tac)
	else
		seq_=${what[*]}
	fi
	for w in $seq_; do
		log "repetition $rep/$reps: $w"
		case $w in
		stats) timed stats "$tr" --stats "$main" ;;
		dummy) timed dummy "$BT" "$main" -c sink.utils.dummy ;;
		text) timed text "$tr" "$main" ;;
		bttext) timed bttext "$BT" "$main" ;;
		esac
	done
done
[ "$keep" = 1 ] || rm -rf "$main"

# ---- memory: 1 M and 20 M events, one stream -----------------------------------------

mem_note=""
if [ "$use_big" = 1 ]; then
	# event B of sustained-rate: an int64 and a 16-character string
	need_kb=$(( (big + small) / 1024 * 32 + 65536 ))
	avail_kb=$(df -Pk "$work" | awk 'NR == 2 { print $4 }')
	if [ "${avail_kb:-0}" -lt "$need_kb" ]; then
		mem_note="skipped: $((need_kb / 1024)) MiB of disk needed in ${TMPDIR:-/tmp}, $((avail_kb / 1024)) MiB free"
		use_big=0
	elif ! ${CC:-cc} -O2 -I"$top/include" -o "$work/sustained-rate" "$top/bench/sustained-rate.c" \
		"$build/.libs/libshmtrace.so" -Wl,-rpath,"$build/.libs" -pthread 2>"$work/log/cc.err"; then
		mem_note="skipped: cannot build bench/sustained-rate.c ($(head -n1 "$work/log/cc.err"))"
		use_big=0
	fi
else
	mem_note="skipped (--no-big)"
fi
if [ "$use_big" = 1 ]; then
	# One thread paced at a rate the consumer keeps up with: both traces
	# have a single stream, so only their length differs (a reader holds
	# a packet per stream: the ~50 streams of the timed trace would weigh
	# more than the events, and 20 M events in as few streams cannot be
	# recorded at full speed without discards).
	pin=""
	command -v taskset >/dev/null &&
		pin="taskset -c $(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')"
	log "recording $big and $small events (sustained-rate, 1 thread)..."
	daemons_start mem
	brate=$(record_rate "$work/trace-big" "$big")
	srate=$(record_rate "$work/trace-small" "$small")
	shm_daemons_stop
	mstreams=$(stream_count "$work/trace-big")
	bigbytes=$(stream_bytes "$work/trace-big")
	smallbytes=$(stream_bytes "$work/trace-small")
	find "$work/trace-big" "$work/trace-small" -type f -exec cat {} + >/dev/null
	for rep in $(seq 1 "$reps"); do
		log "repetition $rep/$reps: trace-read --stats, $small and $big events"
		timed small "$tr" --stats "$work/trace-small"
		timed big "$tr" --stats "$work/trace-big"
	done
	rm -rf "$work/trace-big"
fi

# ---- table -------------------------------------------------------------------------------

row() { printf '%-36s %10s %14s %10s %14s\n' "$@"; }
mib() { [ -n "$1" ] && awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
line() {	# line WHAT LABEL
	local s r
	s=$(med "$1" sec); r=$(med "$1" rss)
	row "$2" "$(fmt %.3f "$s")" "$(minmax "$1" sec %.3f)" \
		"$([ -n "$s" ] && awk -v n="$events" -v s="$s" 'BEGIN { printf "%.2f", n / s / 1e6 }')" \
		"$(fmt %s "$(mib "$r")")"
}
R1=$(ratios dummy stats sec | median)
R2=$(ratios bttext text sec | median)
echo
echo "trace-read vs babeltrace2 $("$BT" --version | sed -n '1s/^Babeltrace //p' | cut -d' ' -f1):" \
	"medians of $reps repetitions ($(nproc) CPUs)"
echo "trace: $events events, $(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }') MiB of streams" \
	"($(awk -v b="$bytes" -v n="$events" 'BEGIN { printf "%.1f", b / n }') bytes/event)," \
	"$made: $streams streams, in the page cache"
row "" "seconds" "min-max" "Mevents/s" "peak RSS MiB"
line stats "trace-read --stats"
line dummy "babeltrace2 -c sink.utils.dummy"
line text "trace-read (text)"
line bttext "babeltrace2 (text)"
echo
echo "babeltrace2 dummy / trace-read --stats: $(fmt %.2f "$R1")" \
	"(per repetition: $(ratios dummy stats sec | sort -g | awk '{ printf "%s%.2f", (NR > 1 ? " " : ""), $1 }'))"
echo "babeltrace2 text / trace-read text:     $(fmt %.2f "$R2")" \
	"(per repetition: $(ratios bttext text sec | sort -g | awk '{ printf "%s%.2f", (NR > 1 ? " " : ""), $1 }'))"
if [ -z "$mem_note" ]; then
	S=$(med small rss); L=$(med big rss)
	echo "trace-read --stats peak RSS: $small events $(mib "$S") MiB, $big events $(mib "$L") MiB," \
		"difference $(awk -v a="$S" -v b="$L" 'BEGIN { printf "%.1f", (b - a) / 1024 }') MiB" \
		"(1 thread, $mstreams stream(s) of $(awk -v b="$smallbytes" 'BEGIN { printf "%.1f", b / 1048576 }')" \
		"and $(awk -v b="$bigbytes" 'BEGIN { printf "%.1f", b / 1048576 }') MiB, recorded at $srate and $brate events/s;" \
		"seconds $(fmt %.3f "$(med small sec)") and $(fmt %.3f "$(med big sec)"))"
else
	echo "trace-read --stats peak RSS on $small and $big events: $mem_note"
fi
echo "load average at start: $load_start, at end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')" \
	"(other load skews the figures)"
echo "elapsed: $(( $(date +%s) - start_time )) s"
[ "$keep" = 1 ] && echo "work directory kept: $work (results: raw figures per repetition)"
echo "trace-read --stats $(fmt %.1f "$R1") times faster than babeltrace2 dummy sink," \
	"text $(fmt %.1f "$R2") times faster than babeltrace2 text"
