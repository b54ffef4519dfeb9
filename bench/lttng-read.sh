#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# lttng-read.sh - how fast trace-read reads an LTTng-UST trace (the general
# decoder, libreader/reader-ctf.c), side by side with babeltrace2.
#
# The script records a trace of about N events with LTTng itself: the test
# program tests/apps/lttng-types ("threads 4 N/4": 4 threads, each event
# two integers, with the vpid and vtid contexts), per-UID buffers of 16 x 4
# MiB, under an lttng-sessiond of its own (LTTNG_HOME in the work
# directory), stopped by pid once the trace is on disk. Then R repetitions
# of (the order reversed every other repetition):
#   trace-read --stats DIR >/dev/null          every event decoded, counted
#   babeltrace2 DIR -c sink.utils.dummy        every event decoded, dropped
#   trace-read DIR >/dev/null                  text
#   babeltrace2 DIR >/dev/null                 text
# each timed (wall clock). The table gives the medians; the ratios
# babeltrace2 / trace-read are taken within each repetition, then their
# median. The events actually recorded (LTTng discards what its buffers do
# not hold) are counted by both readers, which must agree. See
# bench/README.md.
#
# usage: bench/lttng-read.sh [-n EVENTS] [-r REPS] [-k]
#   -n EVENTS    events to emit (default 10000000)
#   -r REPS      repetitions (default 3)
#   -k           keep the work directory (logs, raw results, the trace)
# Environment: SHMTRACE_BUILD (default <tree>/build), BABELTRACE2 (default
# babeltrace2), TMPDIR (where the work directory, and so the trace, go).
#
# It is a benchmark, not a test: it prints figures.
set -euo pipefail

events=10000000
reps=3
keep=0
while [ $# -gt 0 ]; do
	case $1 in
	-n) events=$2; shift 2 ;;
	-r) reps=$2; shift 2 ;;
	-k) keep=1; shift ;;
	-h|--help) sed -n '4,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "usage: $0 [-n EVENTS] [-r REPS] [-k]" >&2; exit 2 ;;
	esac
done
case $events in ''|*[!0-9]*|0) echo "bad -n" >&2; exit 2 ;; esac
case $reps in ''|*[!0-9]*|0) echo "bad -r" >&2; exit 2 ;; esac

top=$(cd "$(dirname "$0")/.." && pwd)
build=${SHMTRACE_BUILD:-$top/build}
tr=$build/trace-read
app=$build/tests/apps/lttng-types
BT=${BABELTRACE2:-babeltrace2}

name=lttng-read
. "$top/bench/common.sh"

[ -x "$tr" ] || die "no $tr (run make -C $build, or set SHMTRACE_BUILD)"
[ -x "$app" ] || die "no $app (make -C $build check TESTS=, with liblttng-ust installed)"
command -v "$BT" >/dev/null || die "babeltrace2 is not installed"
command -v lttng >/dev/null && command -v lttng-sessiond >/dev/null || die "lttng-tools is not installed"

start_time=$(date +%s)
load_start=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
work=$(mktemp -d "${TMPDIR:-/tmp}/lttng-read.XXXXXX")
res=$work/results		# lines: REP WHAT KEY VALUE
: >"$res"
mkdir -p "$work/log"

cleanup() {
	lttng_daemons_stop || true
	[ "$keep" = 1 ] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- recording -------------------------------------------------------------------------

log "recording $events events with LTTng-UST (lttng-types, 4 threads)..."
lttng_daemons_start "$work/lttng-home" "$work/log/lttng-sessiond.log" ||
	die "lttng-sessiond does not start (see $work/log/lttng-sessiond.log)"
trace=$work/trace
{ lttng create b --output="$trace" &&
  lttng enable-channel -u --subbuf-size 4M --num-subbuf 16 ch &&
  lttng enable-event -u -c ch 'shmtrace_lt:*' &&
  lttng add-context -u -c ch -t vpid -t vtid &&
  lttng start; } >"$work/log/lttng" 2>&1 || die "cannot set up the LTTng session: $(tail -n3 "$work/log/lttng")"
"$app" threads 4 $((events / 4)) >/dev/null || die "lttng-types failed"
{ lttng stop && lttng destroy; } >>"$work/log/lttng" 2>&1 || die "cannot stop the LTTng session"
lttng_daemons_stop
bytes=$(stream_bytes "$trace")
streams=$(find "$trace" -type f ! -name metadata ! -name '*.idx' | wc -l)

"$tr" --stats=count "$trace" >"$work/log/count" 2>"$work/log/count.err" ||
	die "trace-read cannot read the trace: $(head -n3 "$work/log/count.err")"
n_tr=$(awk '$2 == "total" { print $1 }' "$work/log/count")
n_bt=$(lttng_count "$trace")
[ "$n_tr" = "$n_bt" ] || die "trace-read counts $n_tr events, babeltrace2 $n_bt"
log "  $n_tr events recorded ($((events / 4 * 4 + 1 - n_tr)) discarded by LTTng), $streams streams, $bytes bytes"
find "$trace" -type f -exec cat {} + >/dev/null	# in the page cache

# timed WHAT CMD...: run CMD, its output to /dev/null; file its wall time
timed() {
	local what=$1 t0 t1 f=$work/log/$1-$rep
	shift
	t0=$(date +%s%N)
	"$@" >/dev/null 2>"$f.err" || die "$* failed: $(head -n3 "$f.err")"
	t1=$(date +%s%N)
	record "$what" sec "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')"
}

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
		stats) timed stats "$tr" --stats "$trace" ;;
		dummy) timed dummy "$BT" "$trace" -c sink.utils.dummy ;;
		text) timed text "$tr" "$trace" ;;
		bttext) timed bttext "$BT" "$trace" ;;
		esac
	done
done

# ---- table -------------------------------------------------------------------------------

rate() { awk -v n="$n_tr" -v s="$1" 'BEGIN { if (s > 0) printf "%.2f", n / s / 1e6; else printf "n/a" }'; }
ratio() {	# ratio A B: median over the repetitions of A.sec / B.sec
	awk -v a="$1" -v b="$2" '$2 == a && $3 == "sec" { x[$1] = $4 } $2 == b && $3 == "sec" { y[$1] = $4 }
		END { for (r in x) if ((r in y) && y[r] > 0) print x[r] / y[r] }' "$res" | median
}
echo "lttng-read: $n_tr events of LTTng-UST (lttng-tools $(lttng --version 2>/dev/null | grep -o "[0-9][0-9.]*" | head -n1))," \
	"$streams streams, $bytes bytes; $reps repetitions; $(nproc) CPUs;" \
	"load $load_start at the start; $(date -u +%Y-%m-%d)"
printf '%-40s %10s %12s\n' "what" "median s" "M events/s"
for w in stats dummy text bttext; do
	case $w in
	stats) d="trace-read --stats" ;;
	dummy) d="babeltrace2 -c sink.utils.dummy" ;;
	text) d="trace-read (text)" ;;
	bttext) d="babeltrace2 (text)" ;;
	esac
	m=$(med "$w" sec)
	printf '%-40s %10s %12s\n' "$d" "$m" "$(rate "$m")"
done
printf 'babeltrace2 dummy / trace-read --stats: %sx (goal 10x)\n' "$(fmt '%.1f' "$(ratio dummy stats)")"
printf 'babeltrace2 text / trace-read text:     %sx (goal 4x)\n' "$(fmt '%.1f' "$(ratio bttext text)")"
log "took $(( $(date +%s) - start_time )) s"
