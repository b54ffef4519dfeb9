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
# of 1,000,000 events and one of 20,000,000 events recorded the same way
# (same processes, threads and so streams: only the length differs).
# See bench/README.md.
#
# usage: bench/read-speed.sh [-n EVENTS] [-r REPS] [--no-big] [-k]
#   -n EVENTS    events of the timed trace (default 10000000)
#   -r REPS      repetitions (default 3)
#   --no-big     skip the 20,000,000-event trace (it takes about 700 MB
#                of disk in TMPDIR)
#   -k           keep the work directory (logs, raw results and the
#                traces but the 20,000,000-event one)
# Environment: SHMTRACE_BUILD (default <tree>/build), BABELTRACE2 (default
# babeltrace2), TMPDIR (where the work directory, and so the traces, go).
#
# It is a benchmark, not a test: it prints figures.
set -euo pipefail

events=10000000
reps=3
small=1000000
big=20000000
use_big=1
keep=0
while [ $# -gt 0 ]; do
	case $1 in
	-n) events=$2; shift 2 ;;
	-r) reps=$2; shift 2 ;;
	--no-big) use_big=0; shift ;;
	-k) keep=1; shift ;;
	-h|--help) sed -n '4,33p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "usage: $0 [-n EVENTS] [-r REPS] [--no-big] [-k]" >&2; exit 2 ;;
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

log() { printf '%s\n' "$*" >&2; }
die() { log "read-speed: $*"; exit 1; }

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

# ---- daemons, stopped by pid only ---------------------------------------------

shm_home=""

wait_pids() {	# wait up to 10 s for each pid to exit
	local p
	for p in "$@"; do
		for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -0 "$p" 2>/dev/null && log "warning: process $p still runs"
	done
	return 0
}

daemons_stop() {
	local s c
	[ -n "$shm_home" ] || return 0
	s=$(cat "$shm_home/sessiond.pid" 2>/dev/null || true)
	c=$(cat "$shm_home/consumerd.pid" 2>/dev/null || true)
	shm_home=""
	[ -n "$s" ] && kill -TERM "$s" 2>/dev/null
	wait_pids $s $c
}

# daemons_start NAME: trace-sessiond --daemonize in a fresh home, which
# starts trace-consumerd; both write their pid files there.
daemons_start() {
	export SHMTRACE_HOME=$work/home-$1
	export SHMTRACE_SESSIOND=$build/trace-sessiond
	export SHMTRACE_CONSUMERD=$build/trace-consumerd
	unset SHMTRACE_SIGNAL
	mkdir -p "$SHMTRACE_HOME"; chmod 700 "$SHMTRACE_HOME"
	shm_home=$SHMTRACE_HOME
	"$build/trace-sessiond" --daemonize >"$work/log/sessiond-$1.log" 2>&1 ||
		die "trace-sessiond does not start (see $work/log/sessiond-$1.log)"
	for _ in $(seq 50); do
		[ -s "$SHMTRACE_HOME/consumerd.pid" ] && return 0
		sleep 0.1
	done
	die "trace-consumerd does not start"
}

cleanup() {
	daemons_stop || true
	if [ "$keep" = 1 ]; then
		rm -rf "$work/trace-big"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- recording -------------------------------------------------------------------------

stream_bytes() {	# the stream files of a trace (no metadata)
	find "$1" -type f ! -name metadata -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'
}
stream_count() { find "$1" -type f ! -name metadata | wc -l; }

# record DIR N T P: one session writing to DIR while P gen-events processes
# run one after the other, T threads each, N events in all (what does not
# divide goes to one more process of 1 thread). Prints "TOTAL DISCARDED"
# as trace-read --count reads them, then the session's "events discarded"
# and "events lost without a buffer".
record() {
	local dir=$1 n=$2 t=$3 p=$4 per base extra i k rem st tot dis sdis lost
	rm -rf "$dir"
	{ "$tc" create s --output "$dir" &&
	  "$tc" enable-event -s s 'shmtrace_test:*' &&
	  "$tc" start s; } >/dev/null || die "cannot set up a session"
	per=$((n / t)); base=$((per / p)); extra=$((per % p))
	for ((i = 0; i < p; i++)); do
		k=$((base + (i < extra ? 1 : 0)))
		[ "$k" -gt 0 ] || continue
		"$gen" -n "$k" -t "$t" || die "gen-events -n $k -t $t failed"
	done
	rem=$((n - per * t))
	if [ "$rem" -gt 0 ]; then
		"$gen" -n "$rem" -t 1 || die "gen-events -n $rem -t 1 failed"
	fi
	"$tc" stop s >/dev/null
	st=$work/log/status-${dir##*/}-$p
	"$tc" status s >"$st"
	"$tc" destroy s >/dev/null
	"$tr" --count "$dir" >"$work/log/count" 2>/dev/null || die "trace-read --count $dir failed"
	tot=$(awk '$2 == "total" { print $1 }' "$work/log/count")
	dis=$(awk '$2 == "discarded" { print $1 }' "$work/log/count")
	sdis=$(sed -n 's/.*events discarded: *\([0-9]*\).*/\1/p' "$st" | head -n1)
	lost=$(sed -n 's/.*events lost without a buffer: *\([0-9]*\).*/\1/p' "$st" | head -n1)
	echo "${tot:-0} ${dis:-?} ${sdis:-?} ${lost:-?}"
}

# record_clean DIR N T: record with P processes, P such that each thread
# emits at most 1000000 events (about 31 MiB, a few laps of its 8 MiB of
# buffers), then 2P, 4P... until the trace holds N events and nothing was
# discarded (with smaller processes each thread's share fits in its
# buffers). Prints the P that did.
record_clean() {
	local dir=$1 n=$2 t=$3 p out try
	p=$(( (n / t + 999999) / 1000000 ))
	[ "$p" -gt 0 ] || p=1
	for try in 1 2 3 4 5 6 7 8; do
		out=$(record "$dir" "$n" "$t" "$p")
		if [ "$out" = "$n 0 0 0" ]; then
			echo "$p"
			return 0
		fi
		set -- $out
		log "  $p process(es) of $t thread(s): $1 events in the trace, discarded $2" \
			"(session: $3 discarded, $4 lost without a buffer); again with $((2 * p)) processes"
		p=$((2 * p))
	done
	die "could not record $n events without discards"
}

# ---- measurements ----------------------------------------------------------------------

rec() { echo "$rep $1 $2 $3" >>"$res"; }

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
	rec "$what" sec "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')"
	rec "$what" rss "$(tail -n1 "$f.time" | awk '{ print $2 }')"
}

# med WHAT KEY: median over the repetitions ("" when none)
median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) exit
		if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
med() { awk -v w="$1" -v k="$2" '$2 == w && $3 == k { print $4 }' "$res" | median; }
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
fmt() { if [ -n "$2" ]; then printf "$1" "$2"; else printf 'n/a'; fi; }

# ---- the timed trace -------------------------------------------------------------------

log "recording $events events (gen-events, 4 threads per process)..."
daemons_start main
main=$work/trace-main
procs=$(record_clean "$main" "$events" 4)
daemons_stop
bytes=$(stream_bytes "$main")
streams=$(stream_count "$main")
log "  $procs process(es) of 4 threads, $streams streams, $bytes bytes, nothing discarded"

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

# ---- memory: the same layout, 1 M and 20 M events ---------------------------------

mem_note=""
if [ "$use_big" = 1 ]; then
	need_kb=$(awk -v b="$bytes" -v n="$events" -v m="$((big + small))" \
		'BEGIN { printf "%d", b / n * m * 1.2 / 1024 + 65536 }')
	avail_kb=$(df -Pk "$work" | awk 'NR == 2 { print $4 }')
	if [ "${avail_kb:-0}" -lt "$need_kb" ]; then
		mem_note="skipped: $((need_kb / 1024)) MiB of disk needed in ${TMPDIR:-/tmp}, $((avail_kb / 1024)) MiB free"
		use_big=0
	fi
else
	mem_note="skipped (--no-big)"
fi
if [ "$use_big" = 1 ]; then
	# The short trace is recorded with as many processes (1 thread each:
	# the consumer keeps up with one writer) as the long one needed, so
	# both have the same streams: only their length differs.
	log "recording $big and $small events (gen-events, 1 thread per process)..."
	daemons_start mem
	mprocs=$(record_clean "$work/trace-big" "$big" 1)
	out=$(record "$work/trace-small" "$small" 1 "$mprocs")
	[ "$out" = "$small 0 0 0" ] || die "$small events in $mprocs processes: events, discarded: $out"
	daemons_stop
	mstreams=$(stream_count "$work/trace-big")
	[ "$(stream_count "$work/trace-small")" = "$mstreams" ] ||
		die "the 1 M and 20 M traces have different numbers of streams"
	bigbytes=$(stream_bytes "$work/trace-big")
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
	"$procs process(es) x 4 threads = $streams streams, in the page cache"
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
	echo "trace-read --stats peak RSS: $small events $(mib "$S") MiB, $big events $(mib "$L") MiB" \
		"($mprocs processes x 1 thread = $mstreams streams each;" \
		"$(awk -v b="$bigbytes" 'BEGIN { printf "%.0f", b / 1048576 }') MiB of streams)," \
		"difference $(awk -v a="$S" -v b="$L" 'BEGIN { printf "%.1f", (b - a) / 1024 }') MiB;" \
		"seconds $(fmt %.3f "$(med small sec)") and $(fmt %.3f "$(med big sec)")"
else
	echo "trace-read --stats peak RSS on $small and $big events: $mem_note"
fi
echo "load average at start: $load_start, at end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')" \
	"(other load skews the figures)"
echo "elapsed: $(( $(date +%s) - start_time )) s"
[ "$keep" = 1 ] && echo "work directory kept: $work (results: raw figures per repetition)"
echo "trace-read --stats $(fmt %.1f "$R1") times faster than babeltrace2 dummy sink," \
	"text $(fmt %.1f "$R2") times faster than babeltrace2 text"
