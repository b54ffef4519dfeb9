#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# preload-libc.sh - the cost of tracing the malloc family by preloading, on
# an allocation-heavy program (bench/alloc-heavy.c), with shmtrace's libc
# helper and with LTTng-UST 2.13's libc wrapper.
#
# Each repetition runs, in turn (the order is reversed every other
# repetition), the same program:
#   untraced      no preload
#   shmtrace-off  libshmtrace.so and libshmtrace-libc.so preloaded, the
#                 daemons running, no session: the cost when tracing is off
#   shmtrace      the same, a session recording 'shmtrace_libc:*' to disk
#   lttng-ust     liblttng-ust-libc-wrapper.so.1 preloaded, a session
#                 recording 'lttng_ust_libc:*' to disk
#   lttng-ust+ip  the same with the ip context added: the caller's address,
#                 which every event of shmtrace's libc helper carries (its
#                 `caller` field), so that the bytes per event compare the
#                 same fields
# Each tracer's daemons are started for the repetition and stopped (by pid)
# after it. The program times its own loop. The table gives the median
# over the repetitions; ratios and differences are taken within a
# repetition, then their median. See bench/README.md.
#
# usage: bench/preload-libc.sh [-r REPS] [-n CALLS] [-t THREADS] [-k]
#                              [--no-lttng]
#   -r REPS      repetitions (default 5)
#   -n CALLS     calls of the malloc family per thread (default 2000000)
#   -t THREADS   threads of the program (default 1)
#   -k           keep the work directory (traces, logs, raw results)
#   --no-lttng   measure untraced and shmtrace only
# Environment: SHMTRACE_BUILD (default <tree>/build), CC (default cc),
# TMPDIR (where the work directory, and so the traces, go).
#
# It is a benchmark, not a test: it prints figures. LTTng-UST's libc
# wrapper, lttng-tools and babeltrace2 are installed with apt-get when
# missing (as root).
set -euo pipefail

reps=5
calls=2000000
threads=1
keep=0
use_lttng=1
while [ $# -gt 0 ]; do
	case $1 in
	-r) reps=$2; shift 2 ;;
	-n) calls=$2; shift 2 ;;
	-t) threads=$2; shift 2 ;;
	-k) keep=1; shift ;;
	--no-lttng) use_lttng=0; shift ;;
	-h|--help) sed -n '3,33p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "usage: $0 [-r REPS] [-n CALLS] [-t THREADS] [-k] [--no-lttng]" >&2
	   exit 2 ;;
	esac
done
case $reps in ''|*[!0-9]*|0) echo "bad -r" >&2; exit 2 ;; esac
case $calls in ''|*[!0-9]*|0) echo "bad -n" >&2; exit 2 ;; esac
case $threads in ''|*[!0-9]*|0) echo "bad -t" >&2; exit 2 ;; esac
ops=$((calls * threads))

top=$(cd "$(dirname "$0")/.." && pwd)
build=${SHMTRACE_BUILD:-$top/build}
shmlib=$build/.libs
CC=${CC:-cc}
lttng_wrapper=liblttng-ust-libc-wrapper.so.1

name=preload-libc
. "$top/bench/common.sh"

start_time=$(date +%s)
load_start=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')

work=$(mktemp -d "${TMPDIR:-/tmp}/preload-libc.XXXXXX")
res=$work/results		# lines: REP CONFIG KEY VALUE
: >"$res"

cleanup() {
	daemons_stop_all
	[ "$keep" = 1 ] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- what can be measured ------------------------------------------------------------

[ -x "$build/tracectl" ] && [ -x "$build/trace-sessiond" ] && [ -x "$build/trace-read" ] &&
	[ -e "$shmlib/libshmtrace.so" ] ||
	die "no shmtrace build in $build (run make -C $build, or set SHMTRACE_BUILD)"
shm_ok=1
shm_why=""
if [ ! -e "$shmlib/libshmtrace-libc.so" ]; then
	shm_ok=0
	shm_why="$shmlib/libshmtrace-libc.so not built"
fi

lttng_ok=0
lttng_why=""
have_lttng() {
	command -v lttng >/dev/null && command -v lttng-sessiond >/dev/null &&
		command -v babeltrace2 >/dev/null || return 1
	# no grep -q: ldconfig would die of SIGPIPE, which pipefail reports
	ldconfig -p 2>/dev/null | grep "^[[:space:]]*$lttng_wrapper " >/dev/null
}
if [ "$use_lttng" = 1 ]; then
	if ! have_lttng; then
		if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
			log "installing liblttng-ust1 lttng-tools babeltrace2 with apt-get..."
			if ! { DEBIAN_FRONTEND=noninteractive apt-get update -q &&
			       DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
				--no-install-recommends liblttng-ust1 lttng-tools babeltrace2; } \
				>"$work/apt.log" 2>&1; then
				log "apt-get failed (see $work/apt.log)"
			fi
		fi
	fi
	if have_lttng; then
		lttng_ok=1
	else
		lttng_why="$lttng_wrapper, lttng-tools or babeltrace2 not installed"
	fi
else
	lttng_why="--no-lttng"
fi

# ---- build ----------------------------------------------------------------------------

log "building alloc-heavy in $work..."
$CC -O2 -pthread -Wall -o "$work/alloc-heavy" "$top/bench/alloc-heavy.c" ||
	die "cannot build bench/alloc-heavy.c"
prog=("$work/alloc-heavy" -n "$calls" -t "$threads")

# ---- helpers ----------------------------------------------------------------------------

per_event() {	# per_event BYTES EVENTS
	awk -v b="$1" -v n="$2" 'BEGIN { if (n > 0) printf "%.3f", b / n; else print "-" }'
}

# run CONFIG [ENV=VALUE...]: the program under env, its result line filed
# (ns_per_op). Prints the line.
run() {
	local c=$1 line
	shift
	if ! line=$(env "$@" "${prog[@]}" 2>"$work/log/$c-$rep.err"); then
		log "$c: alloc-heavy failed:"
		tail -n 20 "$work/log/$c-$rep.err" >&2
		return 1
	fi
	printf '%s\n' "$line" >"$work/log/$c-$rep.out"
	[ "$(kv "$line" ops)" = "$ops" ] || { log "$c: unexpected output: $line"; return 1; }
	record "$c" ns "$(kv "$line" ns_per_op)"
	record "$c" wns "$(kv "$line" wall_ns_per_op)"
	[ ! -s "$work/log/$c-$rep.err" ] || {
		log "warning: $c wrote on standard error (repetition $rep):"
		head -n 5 "$work/log/$c-$rep.err" >&2
	}
}

# file_counts CONFIG TOTAL FAMILY DISCARDED DIR: what a trace holds
file_counts() {
	local c=$1 total=$2 fam=$3 dis=$4 dir=$5
	record "$c" events "$total"
	record "$c" family "$fam"
	record "$c" discarded "$dis"
	record "$c" surplus $((fam + dis - ops))
	record "$c" bytes "$(per_event "$(stream_bytes "$dir")" "$total")"
	record "$c" meta "$(meta_bytes "$dir")"
	record "$c" mib "$(awk -v b="$(stream_bytes "$dir")" 'BEGIN { printf "%.1f", b / 1048576 }')"
	[ $((fam + dis)) -ge "$ops" ] ||
		log "warning: $c: $ops calls made, $fam malloc-family events recorded + $dis discarded"
}

# ---- one repetition of each ----------------------------------------------------------

rep_untraced() {
	run untraced
}

# shmtrace: the daemons in a fresh home, the cost when off, then recording
# (in the other order every other repetition).
rep_shmtrace() {
	local tc=$build/tracectl out=$work/traces/shmtrace-$rep pre c counts st n
	pre="LD_PRELOAD=$shmlib/libshmtrace.so:$shmlib/libshmtrace-libc.so"
	shm_daemons_start "$work/shm-home-$rep" "$work/log/sessiond-$rep.log" ||
		{ shm_why="trace-sessiond does not start (see $work/log/sessiond-$rep.log)"; return 1; }
	for c in $1; do
		case $c in
		shmtrace-off)
			run shmtrace-off "$pre" SHMTRACE_REGISTER_TIMEOUT=10000 ||
				{ shm_why="the preloaded program failed"; return 1; } ;;
		shmtrace)
			{ "$tc" create s --output "$out" &&
			  "$tc" enable-event -s s 'shmtrace_libc:*' &&
			  "$tc" start s; } >"$work/log/shmtrace-$rep.ctl" 2>&1 ||
				{ cat "$work/log/shmtrace-$rep.ctl" >&2; shm_why="session set-up failed"; return 1; }
			# the program waits until the daemon enabled its events
			run shmtrace "$pre" SHMTRACE_REGISTER_TIMEOUT=10000 ||
				{ "$tc" destroy s >/dev/null 2>&1; shm_why="the traced program failed"; return 1; }
			"$tc" stop s >/dev/null
			"$tc" status s --format json >"$work/log/shmtrace-$rep.status" 2>/dev/null || true
			"$tc" destroy s >/dev/null
			counts=$("$build/trace-read" --stats=count "$out" 2>"$work/log/shmtrace-$rep.count.err") ||
				{ cat "$work/log/shmtrace-$rep.count.err" >&2; shm_why="trace-read --stats=count failed"; return 1; }
			printf '%s\n' "$counts" >"$work/log/shmtrace-$rep.count"
			file_counts shmtrace \
				"$(printf '%s\n' "$counts" | awk '$2 == "total" { print $1 }')" \
				"$(printf '%s\n' "$counts" | awk '$2 ~ /^shmtrace_libc:/ { s += $1 } END { print s + 0 }')" \
				"$(printf '%s\n' "$counts" | awk '$2 == "discarded" { print $1 }')" "$out"
			# the session's own figures, a cross-check
			n=$(status_sum "$work/log/shmtrace-$rep.status" discarded)
			[ "$n" = "$(awk -v r="$rep" '$1 == r && $2 == "shmtrace" && $3 == "discarded" { print $4 }' "$res")" ] ||
				log "warning: shmtrace: tracectl status says $n events discarded, the trace says otherwise"
			[ "$keep" = 1 ] || rm -rf "$out" ;;
		esac
	done
	shm_daemons_stop
}

rep_lttng() {	# rep_lttng CONFIG [CONTEXT]
	local c=$1 ctx=${2:-} out=$work/traces/$1-$rep line total fam dis n
	lttng_daemons_start "$work/lttng-home" "$work/log/lttng-sessiond-$rep.log" ||
		{ lttng_why="lttng-sessiond does not start (see its log; another root session daemon?)"; return 1; }
	{ lttng create s --output "$out" &&
	  lttng enable-event -u 'lttng_ust_libc:*' &&
	  { [ -z "$ctx" ] || lttng add-context -u -t "$ctx"; } &&
	  lttng start s; } >"$work/log/$c-$rep.ctl" 2>&1 ||
		{ cat "$work/log/$c-$rep.ctl" >&2; lttng_why="lttng session set-up failed"; return 1; }
	# the program waits for its registration (its events are then enabled)
	run "$c" LD_PRELOAD="$lttng_wrapper" LTTNG_UST_REGISTER_TIMEOUT=-1 ||
		{ lttng destroy s >/dev/null 2>&1; lttng_why="the traced program failed"; return 1; }
	lttng stop s >/dev/null 2>&1
	lttng list s >"$work/log/$c-$rep.list" 2>&1 || true
	lttng destroy s >/dev/null 2>&1
	lttng_daemons_stop
	# events: one line each; discarded: babeltrace2's warnings
	babeltrace2 "$out" 2>"$work/log/$c-$rep.bt.err" |
		awk '{ t++ } / lttng_ust_libc:/ { f++ } END { print t + 0, f + 0 }' >"$work/log/$c-$rep.count"
	read -r total fam <"$work/log/$c-$rep.count"
	dis=$(grep -o 'discarded [0-9]* events' "$work/log/$c-$rep.bt.err" |
		awk '{ s += $2 } END { print s + 0 }')
	file_counts "$c" "$total" "$fam" "$dis" "$out"
	n=$(awk '/Discarded events:/ { s += $NF } END { print s + 0 }' "$work/log/$c-$rep.list")
	[ "$n" = "$dis" ] ||
		log "warning: lttng-ust: lttng list says $n events discarded, babeltrace2 $dis" \
			"(it sees only the discards counted in packets of the trace)"
	[ "$keep" = 1 ] || rm -rf "$out"
}

# ---- run ------------------------------------------------------------------------------

mkdir -p "$work/log" "$work/traces"
order=(untraced)
[ "$shm_ok" = 1 ] && order+=(shmtrace)
[ "$lttng_ok" = 1 ] && order+=(lttng lttng-ip)
log "$reps repetitions of: ${order[*]} (alternating order), $threads thread(s) x $calls calls"
for rep in $(seq 1 "$reps"); do
	if [ $((rep % 2)) = 0 ]; then
		seq_=$(printf '%s\n' "${order[@]}" | tac)
		shm_seq="shmtrace shmtrace-off"
	else
		seq_=${order[*]}
		shm_seq="shmtrace-off shmtrace"
	fi
	for t in $seq_; do
		log "repetition $rep/$reps: $t"
		case $t in
		untraced) rep_untraced || die "the untraced program failed" ;;
		shmtrace)
			if [ "$shm_ok" = 1 ] && ! rep_shmtrace "$shm_seq"; then
				log "shmtrace measurement failed: $shm_why"
				shm_ok=0
				shm_daemons_stop
			fi ;;
		lttng|lttng-ip)
			ctx=""
			[ "$t" = lttng ] || ctx=ip
			if [ "$lttng_ok" = 1 ] && ! rep_lttng "$t" $ctx; then
				log "LTTng-UST measurement failed: $lttng_why"
				lttng_ok=0
				lttng_daemons_stop
			fi ;;
		esac
	done
done

# ---- table ------------------------------------------------------------------------------

# per_rep EXPR C1 C2 [C3]: median over the repetitions of EXPR (awk, of a b c:
# the ns/op of C1 C2 C3 in the same repetition)
per_rep() {
	awk -v e="$1" -v c1="$2" -v c2="$3" -v c3="${4:-}" '
		$3 == "ns" && $2 == c1 { a[$1] = $4 } $3 == "ns" && $2 == c2 { b[$1] = $4 }
		$3 == "ns" && $2 == c3 { c[$1] = $4 }
		END { for (r in a) if ((r in b) && (c3 == "" || (r in c))) {
			if (e == "a-b") print a[r] - b[r]
			else if (e == "a/b" && b[r] != 0) print a[r] / b[r]
			else if (e == "(a-c)/(b-c)" && b[r] != c[r]) print (a[r] - c[r]) / (b[r] - c[r]) } }' "$res" |
		median
}
row() {	# row LABEL UNTRACED SHM-OFF SHMTRACE LTTNG LTTNG+IP [LTTNG/SHM]
	printf '%-32s %10s %13s %10s %10s %12s %11s\n' "$1" "$2" "$3" "$4" "$5" "$6" "${7:-}"
}
traced="shmtrace lttng lttng-ip"	# the configurations that make a trace

echo
echo "preload libc: medians of $reps repetitions ($(nproc) CPUs, $threads thread(s) x $calls calls)"
[ "$shm_ok" = 1 ] || echo "shmtrace: not measured: $shm_why"
[ "$lttng_ok" = 1 ] || echo "lttng-ust: not measured: $lttng_why"
row "" untraced shmtrace-off shmtrace lttng-ust lttng-ust+ip "lttng/shm"
row "ns/op" $(for c in untraced shmtrace-off $traced; do fmt %.2f "$(med $c ns)"; echo; done) \
	"$(fmt %.2f "$(per_rep a/b lttng shmtrace)")"
row "ns/op min-max" $(for c in untraced shmtrace-off $traced; do fmt %s "$(range $c ns)"; echo; done)
[ "$threads" = 1 ] ||
	row "wall ns/op (all threads)" $(for c in untraced shmtrace-off $traced; do
		fmt %.2f "$(med $c wns)"; echo; done)
row "overhead ns/op over untraced" - \
	$(for c in shmtrace-off $traced; do fmt %.2f "$(per_rep a-b $c untraced)"; echo; done) \
	"$(fmt %.2f "$(per_rep '(a-c)/(b-c)' lttng shmtrace untraced)")"
row "ratio to untraced" 1 \
	$(for c in shmtrace-off $traced; do fmt %.2f "$(per_rep a/b $c untraced)"; echo; done)
row "events recorded per run" - - $(for c in $traced; do fmt %.0f "$(med $c events)"; echo; done)
row "  malloc family - calls made" - - $(for c in $traced; do fmt %.0f "$(med $c surplus)"; echo; done)
row "discarded (all runs)" - - $(for c in $traced; do fmt %.0f "$(sum $c discarded)"; echo; done)
row "bytes/event on disk (streams)" - - $(for c in $traced; do fmt %.2f "$(med $c bytes)"; echo; done) \
	"$(fmt %.2f "$(awk -v a="$(med lttng bytes)" -v b="$(med shmtrace bytes)" \
		'BEGIN { if (a != "" && b > 0) printf "%.2f", a / b }')")"
row "MiB of streams per run" - - $(for c in $traced; do fmt %.1f "$(med $c mib)"; echo; done)
row "metadata bytes per trace" - - $(for c in $traced; do fmt %.0f "$(med $c meta)"; echo; done)
echo
echo "ns/op: the program's loop time / its calls (malloc, calloc, realloc, free);"
echo "overheads and ratios: within each repetition, then the median; the lttng/shm"
echo "column of the overhead row is (lttng - untraced) / (shmtrace - untraced);"
echo "'malloc family - calls made': the trace's malloc-family events + discarded"
echo "- the $ops calls of the loops (the process's own start-up and exit)."
echo "lttng-ust+ip: LTTng with the ip context, the fields of shmtrace's events (caller)."
echo "elapsed: $(( $(date +%s) - start_time )) s; load average at start: $load_start," \
	"at end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?') (other load skews the figures)"
[ "$keep" = 1 ] && echo "work directory kept: $work (results: raw figures per repetition)"
U=$(med untraced ns); S=$(med shmtrace ns); L=$(med lttng ns)
echo "preload libc ns/op: untraced $(fmt %.2f "$U"), shmtrace $(fmt %.2f "$S"), lttng-ust $(fmt %.2f "$L")," \
	"overhead shmtrace $(fmt %.2f "$(per_rep a-b shmtrace untraced)"), lttng-ust $(fmt %.2f "$(per_rep a-b lttng untraced)")," \
	"ratio (L-U)/(S-U) = $(fmt %.2f "$(per_rep '(a-c)/(b-c)' lttng shmtrace untraced)")"
