#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# aggregate.sh - aggregations kept in the traced process (tracectl
# aggregate, tracectl record --aggregate) beside recording the same
# events, in the same runs. See bench/README.md.
#
# 1. Cost per event. bench/workload-agg.c runs harness.h's loops around
#    bench_agg:kv (bench/kv-event.h: a u64 key taking KEYS values, so that
#    the tables stay in cache, and a u64 value): bursts of 32768 events per
#    thread 20 ms apart after an untimed warm-up, only the bursts timed.
#    Five configurations, alternating, with 1 and 2 threads (each pinned to
#    its own CPU when two are allowed):
#      disabled    no session
#      floor       no tracer: bench/floor.c's loop, shmtrace's clock read
#                  and a 12-byte event stored in a private ring
#      recorded    enable-event, the default channel, written to disk
#      aggregated  aggregate --by key --count --quantize value
#      both        the two in one session
# 2. Tsunami. One thread (bench/sustained-rate.c) emits bench_agg:kv as
#    fast as it can for SECS seconds, aggregated as in 1: events emitted,
#    rate, updates lost (emitted - updates of show-aggregations --format
#    json), and the resident set of the program and of both daemons a
#    quarter of the run (at most 1 s) after its start and as long before
#    its end. Beside it, the lossless rate of recording the same event
#    (common.sh's sustained_lossless: full speed, then 75, 60, 45, 30, 15,
#    7.5 and 3.75 % of that rate, SECS seconds each, until a run loses
#    nothing, then two halvings of the interval above it).
# 3. Function profiles. bench/fib-calls.c (built with
#    -finstrument-functions; fib(25) ROUNDS times) untraced, under
#    record --aggregate --preload func, under record --preload func then
#    trace-read --profile, and under uftrace record then uftrace report:
#    ns added per call, and the time from the program's exit to its report.
#
# Each section starts its daemons in a fresh SHMTRACE_HOME under the work
# directory and stops them by pid. Medians over the repetitions; ratios
# are taken within a repetition, then their median.
#
# usage: bench/aggregate.sh [-r REPS] [-n EVENTS] [-s SECS] [-K KEYS]
#                           [-f ROUNDS] [--sections LIST] [--no-uftrace] [-k]
#   -r REPS       repetitions (default 5)
#   -n EVENTS     section 1: timed events per run (default 2000000)
#   -s SECS       section 2: seconds of the tsunami and of each recorded
#                 run (default 10)
#   -K KEYS       distinct keys, a power of two (default 16)
#   -f ROUNDS     section 3: rounds of fib(25) (default 20: 4855700 calls)
#   --sections L  the sections to run, e.g. 1,3 (default 1,2,3)
#   --no-uftrace  section 3 without uftrace
#   -k            keep the work directory (logs, raw results)
# Environment: SHMTRACE_BUILD (default <tree>/build), CC (default cc),
# BENCH_CPUS (the CPUs of section 1's threads, e.g. "1,0"), TMPDIR (where
# the work directory, and so the traces, go).
#
# It is a benchmark, not a test: it prints figures. uftrace is installed
# with apt-get when missing (as root); without it, n/a.
set -euo pipefail
reps=5
events=2000000
secs=10
keys=16
rounds=20
sections=1,2,3
use_uftrace=1
bench_option() {
	case $1 in
	-s) secs=$2; bench_shift=2 ;;
	-K) keys=$2; bench_shift=2 ;;
	-f) rounds=$2; bench_shift=2 ;;
	--sections) sections=$2; bench_shift=2 ;;
	--no-uftrace) use_uftrace=0; bench_shift=1 ;;
	esac
}
name=aggregate
. "$(dirname "$0")/lib.sh" "$@"
case $reps in ''|*[!0-9]*|0) die "bad -r" ;; esac
case $events in ''|*[!0-9]*|0) die "bad -n" ;; esac
case $rounds in ''|*[!0-9]*|0) die "bad -f" ;; esac
awk -v s="$secs" 'BEGIN { exit !(s + 0 > 0) }' || die "bad -s"
case $keys in ''|*[!0-9]*|0) die "bad -K" ;; esac
[ $((keys & (keys - 1))) = 0 ] || die "-K: a power of two"
export BENCH_KEYS=$keys
TR=$build/trace-read
res=$work/results		# lines: REP WHAT KEY VALUE
: >"$res"
mkdir -p "$work/log"
burst=32768
pause_us=20000
agg_def=(--by key --count --quantize value)
start_time=$(date +%s)
load_start=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
ncpus=$(taskset -pc $$ | sed 's/.*: *//' | tr ',' '\n' |
	awk -F- '{ n += NF == 2 ? $2 - $1 + 1 : 1 } END { print n }')
want() { case ",$sections," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }

# daemons NAME: stop those running, start a fresh set in $work/home-NAME
daemons() {
	shm_daemons_stop
	shm_daemons_start "$work/home-$1" "$work/log/sessiond-$1.log" ||
		die "the daemons do not start (see $work/log/sessiond-$1.log)"
}

# agg_counts FILE: "updates dropped lost torn" of the first aggregation
# of a show-aggregations --format json output or an aggregations.json
agg_counts() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
a = (d["results"] if isinstance(d, dict) else d)[0]   # tracectl'"'"'s document, or the file
print(a["updates"], a["dropped"], a["lost"], a["torn"])' "$1" 2>/dev/null || echo "- - - -"
}

# profile_calls FILE: the calls of an aggregations.json's profile, all functions
profile_calls() {
	python3 -c 'import json, sys
a = json.load(open(sys.argv[1]))[0]
print(sum(e["sum($calls)"] for e in a["entries"]), a["dropped"] + a["lost"] + a["torn"])' \
		"$1" 2>/dev/null || echo "- -"
}

# since US: seconds from US (microseconds of the Epoch) to now
since() { awk -v a="$1" -v b="${EPOCHREALTIME/./}" 'BEGIN { printf "%.4f", (b - a) / 1e6 }'; }

row() { printf '%-34s %11s %11s %11s %11s %11s\n' "$@"; }
# (a status of 0 when empty: a section not run leaves its figures empty)
mev() { [ -z "$1" ] || awk -v v="$1" 'BEGIN { printf "%.2f", v / 1e6 }'; }

# ---- 1. cost per event -----------------------------------------------------------------

s1_configs="disabled floor recorded aggregated both"

# s1_run CONFIG THREADS: one measurement, filed
s1_run() {
	local cfg=$1 t=$2 out=$work/s1 line wait=10 emitted n prog=$work/wl-agg
	rm -rf "$out"
	if [ "$cfg" = disabled ]; then
		wait=0
	elif [ "$cfg" = floor ]; then
		prog=$work/wl-floor
	else
		"$T" create s --output "$out" >/dev/null
		case $cfg in recorded|both) "$T" enable-event -s s 'bench_agg:kv' >/dev/null ;; esac
		case $cfg in aggregated|both) "$T" aggregate -s s agg 'bench_agg:kv' "${agg_def[@]}" >/dev/null ;; esac
		"$T" start s >/dev/null
	fi
	line=$(BENCH_WAIT=$wait "$prog" enabled a "$events" "$t" "$burst" "$pause_us" \
		2>"$work/log/s1-$cfg-$t-$rep.err") ||
		die "workload-agg ($cfg, $t threads) failed: $(head -n3 "$work/log/s1-$cfg-$t-$rep.err")"
	record "$cfg.$t" ns "$(kv "$line" ns_per_event)"
	record "$cfg.$t" tns "$(kv "$line" thread_ns_per_event)"
	record "$cfg.$t" eps "$(kv "$line" events_per_sec)"
	emitted=$(kv "$line" events)
	case $cfg in disabled|floor) return 0 ;; esac
	"$T" stop s >/dev/null || true
	"$T" status s --format json >"$work/log/s1-$cfg-$t-$rep.status"
	"$T" destroy s >/dev/null
	case $cfg in recorded|both)
		n="$(status_sum "$work/log/s1-$cfg-$t-$rep.status" recorded) $(status_sum \
			"$work/log/s1-$cfg-$t-$rep.status" discarded)"
		record "$cfg" discarded "${n#* }"
		[ $(( ${n% *} + ${n#* } )) = "$emitted" ] ||
			log "warning: $cfg, $t threads: $emitted emitted, ${n% *} recorded + ${n#* } discarded" ;;
	esac
	case $cfg in aggregated|both)
		read -r u d l x < <(agg_counts "$out/aggregations.json")
		[ "$u" != - ] || die "$cfg, $t threads: no aggregations.json"
		record "$cfg" agglost $((emitted - u))
		[ "$u" = "$emitted" ] && [ "$d$l$x" = 000 ] ||
			log "warning: $cfg, $t threads: $emitted emitted, $u updates, $d dropped, $l lost, $x torn" ;;
	esac
	rm -rf "$out"
}

section1() {
	local order c t
	log "section 1: cost per event ($events events per run, $keys keys)"
	bench_cc "$work/wl-agg" "$top/bench/workload-agg.c" || die "cannot build workload-agg.c"
	bench_cc "$work/wl-floor" "$top/bench/floor.c" || die "cannot build floor.c"
	daemons s1
	for rep in $(seq 1 "$reps"); do
		order=$s1_configs
		[ $((rep % 2)) = 0 ] && order=$(echo "$s1_configs" | tr ' ' '\n' | tac | tr '\n' ' ')
		for c in $order; do
			for t in 1 2; do
				log "  repetition $rep/$reps: $c, $t thread(s)"
				s1_run "$c" "$t"
			done
		done
	done
	shm_daemons_stop
}

# both_ratio THREADS: median over the repetitions of both's ns/event over
# recorded's + aggregated's, each taken within one repetition (at most 1:
# an event both recorded and aggregated costs no more than the two apart)
both_ratio() {
	awk -v t="$1" '$3 == "ns" { v[$1, $2] = $4; reps[$1] }
		END { for (r in reps) if (((r, "both." t) in v) && ((r, "recorded." t) in v) &&
			((r, "aggregated." t) in v) && v[r, "recorded." t] + v[r, "aggregated." t] > 0)
			print v[r, "both." t] / (v[r, "recorded." t] + v[r, "aggregated." t]) }' "$res" | median
}

report1() {
	local c
	echo
	echo "1. cost per event: bench_agg:kv { u64 key, u64 value }, $keys keys; median of $reps runs"
	row "" $s1_configs
	row "1 thread ns/event" $(for c in $s1_configs; do fmt %.2f "$(med "$c.1" ns)"; echo; done)
	row "1 thread ns/event min-max" $(for c in $s1_configs; do fmt %s "$(range "$c.1" ns)"; echo; done)
	row "2 threads ns/event (aggregate)" $(for c in $s1_configs; do fmt %.2f "$(med "$c.2" ns)"; echo; done)
	row "2 threads ns/event/thread" $(for c in $s1_configs; do fmt %.2f "$(med "$c.2" tns)"; echo; done)
	row "1 thread Mevents/s" $(for c in $s1_configs; do fmt %s "$(mev "$(med "$c.1" eps)")"; echo; done)
	row "2 threads Mevents/s (aggregate)" $(for c in $s1_configs; do fmt %s "$(mev "$(med "$c.2" eps)")"; echo; done)
	row "2T/1T throughput" $(for c in $s1_configs; do fmt %.2f "$(medratio "$c.2" eps "$c.1" eps)"; echo; done)
	row "ns/event / recorded's, 1 thread" $(for c in $s1_configs; do
		fmt %.2f "$(medratio "$c.1" ns recorded.1 ns)"; echo; done)
	row "ns/event / recorded's, 2 threads" $(for c in $s1_configs; do
		fmt %.2f "$(medratio "$c.2" ns recorded.2 ns)"; echo; done)
	row "both / (recorded + aggregated)" - - - - "$(fmt %.2f "$(both_ratio 1)")"
	row "  the same, 2 threads" - - - - "$(fmt %.2f "$(both_ratio 2)")"
	row "discarded (all runs)" - - "$(fmt %.0f "$(sum recorded discarded)")" - \
		"$(fmt %.0f "$(sum both discarded)")"
	row "updates lost (all runs)" - - - "$(fmt %.0f "$(sum aggregated agglost)")" \
		"$(fmt %.0f "$(sum both agglost)")"
	echo "(runs of $events timed events after 786432 untimed ones per thread, in bursts of $burst"
	echo " per thread $((pause_us / 1000)) ms apart; $ncpus CPU(s) allowed: with 2 threads each has its own"
	echo " CPU when there are 2, and the consumer daemon none of its own)"
}

# ---- 2. tsunami ------------------------------------------------------------------------

# s2_tsunami: one aggregated run at full speed, filed
s2_tsunami() {
	local out=$work/s2 line pid a sp cp t0 u d l x emitted
	rm -rf "$out"
	"$T" create t --output "$out" >/dev/null
	"$T" aggregate -s t agg 'bench_agg:kv' "${agg_def[@]}" >/dev/null
	"$T" start t >/dev/null
	sp=$SESSIOND_PID
	cp=$CONSUMERD_PID
	a=$(awk -v s="$secs" 'BEGIN { a = s / 4; printf "%.3f", (a > 1 ? 1 : a) }')
	t0=${EPOCHREALTIME/./}
	# not through sustained_run: $! must be the program (taskset execs it)
	taskset -c "$(first_cpu)" "$work/sustained-rate" 0 "$secs" kv >"$work/log/s2-$rep.out" 2>&1 &
	pid=$!
	sleep "$a"
	record tsunami rss0.prog "$(rss_kib "$pid")"
	record tsunami rss0.sessiond "$(rss_kib "$sp")"
	record tsunami rss0.consumerd "$(rss_kib "$cp")"
	sleep "$(awk -v s="$secs" -v a="$a" -v e="$(since "$t0")" 'BEGIN { w = s - a - e; printf "%.3f", (w > 0 ? w : 0) }')"
	record tsunami rss1.prog "$(rss_kib "$pid")"
	record tsunami rss1.sessiond "$(rss_kib "$sp")"
	record tsunami rss1.consumerd "$(rss_kib "$cp")"
	wait "$pid" || die "sustained-rate failed: $(head -n3 "$work/log/s2-$rep.out")"
	line=$(tail -n1 "$work/log/s2-$rep.out")
	"$T" show-aggregations -s t --format json >"$work/log/s2-$rep.json"
	"$T" stop t >/dev/null || true
	"$T" destroy t >/dev/null
	read -r u d l x < <(agg_counts "$work/log/s2-$rep.json")
	[ "$u" != - ] || die "tsunami: show-aggregations gave no counts"
	emitted=$(kv "$line" events)
	record tsunami eps "$(kv "$line" per_sec)"
	record tsunami emitted "$emitted"
	record tsunami lost $((emitted - u))
	record tsunami dropped "$d"
	record tsunami agglost "$l"
	record tsunami torn "$x"
	log "  tsunami: $emitted events, $(kv "$line" per_sec) events/s, $u updates ($d dropped, $l lost, $x torn)"
	rm -rf "$out"
}

section2() {
	local r
	log "section 2: tsunami, $secs s per run"
	bench_cc "$work/sustained-rate" "$top/bench/sustained-rate.c" || die "cannot build sustained-rate.c"
	daemons s2
	for rep in $(seq 1 "$reps"); do
		if [ $((rep % 2)) = 1 ]; then
			log "  repetition $rep/$reps: aggregated"
			s2_tsunami
		fi
		log "  repetition $rep/$reps: recorded, lossless rate"
		r=$(sustained_lossless "$work/sustained-rate" "$secs" kv "$work/s2-rec") ||
			die "the recorded runs failed"
		record recorded lossless "${r%% *}"
		if [ $((rep % 2)) = 0 ]; then
			log "  repetition $rep/$reps: aggregated"
			s2_tsunami
		fi
	done
	shm_daemons_stop
}

report2() {
	local p
	echo
	echo "2. tsunami: one thread emitting bench_agg:kv for $secs s, as fast as it can; median of $reps runs"
	row "" aggregated recorded
	row "rate, Mevents/s" "$(fmt %s "$(mev "$(med tsunami eps)")")" \
		"$(fmt %s "$(mev "$(med recorded lossless)")") (lossless)"
	row "events emitted per run" "$(fmt %.0f "$(med tsunami emitted)")" -
	row "updates lost (all runs)" "$(fmt %.0f "$(sum tsunami lost)")" -
	row "  dropped / lost / torn (all runs)" \
		"$(fmt %.0f "$(sum tsunami dropped)")/$(fmt %.0f "$(sum tsunami agglost)")/$(fmt %.0f "$(sum tsunami torn)")" -
	echo
	row "RSS KiB (median)" "after start" "before end" "growth" "max growth"
	for p in prog sessiond consumerd; do
		row "  $p" "$(fmt %.0f "$(med tsunami "rss0.$p")")" "$(fmt %.0f "$(med tsunami "rss1.$p")")" \
			"$(fmt %.0f "$(medratio tsunami "rss1.$p" tsunami "rss0.$p" -)")" \
			"$(awk -v p="$p" '$2 == "tsunami" && $3 == "rss0." p { a[$1] = $4 }
				$2 == "tsunami" && $3 == "rss1." p { b[$1] = $4 }
				END { for (r in a) if (r in b) { d = b[r] - a[r]; if (!n++ || d > m) m = d }
				      if (n) print m }' "$res")"
	done
	echo "(RSS a quarter of the run, at most 1 s, after the start and as long before the end;"
	echo " the lossless rate is the rate of the first recorded run that lost nothing:"
	echo " full speed, then 75, 60, 45, 30, 15 % of it)"
}

# ---- 3. function profiles --------------------------------------------------------------

have_uftrace() { command -v uftrace >/dev/null; }
uftrace_why=""
s3_configs="untraced shm-aggregate shm-record uftrace"

# s3_run CONFIG: one run, filed
s3_run() {
	local c=$1 out=$work/s3 o=$work/log/s3-$1-$rep line t1 e rs calls bad
	rm -rf "$out"
	case $c in
	untraced)
		line=$("$work/fib" "$rounds") ;;
	shm-aggregate)
		"$T" record --aggregate --preload func --output "$out" -- "$work/fib" "$rounds" \
			>"$o.out" 2>"$o.err" || die "record --aggregate failed: $(tail -n3 "$o.err")"
		t1=${EPOCHREALTIME/./}
		line=$(tail -n1 "$o.out")
		record "$c" exit "$(awk -v a="$(kv "$line" end_us)" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e6 }')"
		read -r calls bad < <(profile_calls "$out/aggregations.json")
		record "$c" lost $(( $(kv "$line" calls) - calls ))
		[ "$calls" = "$(kv "$line" calls)" ] && [ "$bad" = 0 ] ||
			log "warning: record --aggregate: $(kv "$line" calls) calls made, $calls in the profile" \
				"($bad dropped, lost or torn)" ;;
	shm-record)
		"$T" record --preload func --output "$out" -- "$work/fib" "$rounds" \
			>"$o.out" 2>"$o.err" || die "record failed: $(tail -n3 "$o.err")"
		t1=${EPOCHREALTIME/./}
		line=$(tail -n1 "$o.out")
		record "$c" lost "$(sed -n 's/.* \([0-9][0-9]*\) discarded.*/\1/p' "$o.err" | head -n1)"
		e=$(awk -v a="$(kv "$line" end_us)" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e6 }')
		t1=${EPOCHREALTIME/./}
		"$TR" --profile "$out" >"$o.profile" 2>>"$o.err" || die "trace-read --profile failed"
		rs=$(since "$t1")
		record "$c" report "$rs"
		record "$c" exit "$(awk -v a="$e" -v b="$rs" 'BEGIN { print a + b }')" ;;
	uftrace)
		uftrace record -d "$out" "$work/fib" "$rounds" >"$o.out" 2>"$o.err" ||
			die "uftrace record failed: $(tail -n3 "$o.err")"
		t1=${EPOCHREALTIME/./}
		line=$(tail -n1 "$o.out")
		e=$(awk -v a="$(kv "$line" end_us)" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e6 }')
		t1=${EPOCHREALTIME/./}
		uftrace report -d "$out" >"$o.profile" 2>>"$o.err" || die "uftrace report failed"
		rs=$(since "$t1")
		record "$c" report "$rs"
		record "$c" exit "$(awk -v a="$e" -v b="$rs" 'BEGIN { print a + b }')"
		calls=$(awk '$NF == "fib" { print $(NF - 1) }' "$o.profile" | head -n1)
		record "$c" lost $(( $(kv "$line" fib_calls) - ${calls:-0} )) ;;
	esac
	record "$c" nspc "$(kv "$line" ns_per_call)"
	record "$c" calls "$(kv "$line" calls)"
	rm -rf "$out"
}

section3() {
	local order c cfgs=$s3_configs
	log "section 3: function profiles, $rounds rounds of fib(25)"
	${CC:-cc} -O2 -finstrument-functions -o "$work/fib" "$top/bench/fib-calls.c" ||
		die "cannot build fib-calls.c"
	[ -e "$build/.libs/libshmtrace-func.so" ] || die "no libshmtrace-func.so in $build/.libs"
	if [ "$use_uftrace" = 1 ] && ! have_uftrace &&
	   [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		log "installing uftrace with apt-get..."
		{ DEBIAN_FRONTEND=noninteractive apt-get update -q &&
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends uftrace; } \
			>"$work/log/apt.log" 2>&1 || log "apt-get failed (see $work/log/apt.log)"
	fi
	if [ "$use_uftrace" = 0 ]; then
		uftrace_why="--no-uftrace"
	elif ! have_uftrace; then
		uftrace_why="uftrace is not installed"
	fi
	[ -z "$uftrace_why" ] || cfgs=${cfgs% uftrace}
	daemons s3
	for rep in $(seq 1 "$reps"); do
		order=$cfgs
		[ $((rep % 2)) = 0 ] && order=$(echo "$cfgs" | tr ' ' '\n' | tac | tr '\n' ' ')
		for c in $order; do
			log "  repetition $rep/$reps: $c"
			s3_run "$c"
		done
	done
	shm_daemons_stop
}

report3() {
	local c
	echo
	echo "3. function profiles: $rounds x fib(25), $(fmt %.0f "$(med untraced calls)") instrumented calls; median of $reps runs"
	[ -z "$uftrace_why" ] || echo "uftrace: n/a: $uftrace_why"
	row "" untraced "record --agg" "record+read" uftrace
	row "ns/call" $(for c in $s3_configs; do fmt %.2f "$(med "$c" nspc)"; echo; done)
	row "ns/call min-max" $(for c in $s3_configs; do fmt %s "$(range "$c" nspc)"; echo; done)
	row "ns added per call" - $(for c in ${s3_configs#untraced }; do
		fmt %.2f "$(medratio "$c" nspc untraced nspc -)"; echo; done)
	row "ratio to record --agg (added ns)" - 1 $(for c in shm-record uftrace; do
		awk -v c="$c" '$3 == "nspc" { v[$1, $2] = $4; reps[$1] }
			END { for (r in reps) if (((r, c) in v) && ((r, "untraced") in v) &&
				((r, "shm-aggregate") in v) && v[r, "shm-aggregate"] != v[r, "untraced"])
				print (v[r, c] - v[r, "untraced"]) / (v[r, "shm-aggregate"] - v[r, "untraced"]) }' \
			"$res" | median | { read -r v || true; fmt %.2f "${v:-}"; }; echo; done)
	row "exit to report, s" - $(for c in ${s3_configs#untraced }; do fmt %.3f "$(med "$c" exit)"; echo; done)
	row "  of which the report, s" - "$agg_report" $(for c in shm-record uftrace; do
		fmt %.3f "$(med "$c" report)"; echo; done)
	row "calls lost (all runs)" - $(for c in ${s3_configs#untraced }; do fmt %.0f "$(sum "$c" lost)"; echo; done)
	echo "(ns/call: the program's loop time / fib's calls; exit to report: from the end of main to"
	echo " the end of tracectl record (record --agg), to the end of trace-read --profile after"
	echo " tracectl record --preload func (record+read), to the end of uftrace report after uftrace"
	echo " record; calls lost: record+read: the events discarded, uftrace: fib's calls missing)"
	[ -n "$agg_note" ] && echo "$agg_note"
	return 0
}

# ---- run -------------------------------------------------------------------------------

if "$TR" --help 2>&1 | grep -e '--aggregations' >/dev/null; then
	agg_report="(in it)"
	agg_note=""
else
	agg_report="n/a"
	agg_note="(trace-read --aggregations does not exist yet: record --agg's exit to report is the time
 tracectl record takes after the command exits, its report not printed)"
fi
if want 1; then section1; fi
if want 2; then section2; fi
if want 3; then section3; fi

echo
echo "aggregations in the traced process: $(date -u +%Y-%m-%d), $ncpus CPU(s) allowed, load average" \
	"$load_start at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end, $(( $(date +%s) - start_time )) s"
if want 1; then report1; fi
if want 2; then report2; fi
if want 3; then report3; fi
echo
A=$(med recorded.1 ns); B=$(med aggregated.1 ns); C=$(medratio aggregated.2 eps aggregated.1 eps)
D=$(mev "$(med tsunami eps)"); E=$(sum tsunami lost)
echo "aggregate: ns/event recorded / aggregated (1 thread): $(fmt %.2f "$A") / $(fmt %.2f "$B");" \
	"2-thread scaling $(fmt %.2f "$C"); tsunami $(fmt %s "$D") Mev/s, lost $(fmt %.0f "$E")"
