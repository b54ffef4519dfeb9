#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# scale.sh - how the daemons scale with the number of traced processes.
# See bench/README.md.
#
# 1. Concurrent processes. For each N (default 10, 100, 1000, 5000), fresh
#    daemons and one session whose channel is small (2 sub-buffers of 4 KiB,
#    a pool of 2 buffers), then N processes of bench/scale-app.c, at most
#    PARALLEL registering at once. Each one times its registration (the
#    dlopen() of bench/scale-probe.c, linked with libshmtrace: the
#    constructors register and wait for the session daemon's replies), has
#    2 threads emit EVENTS events each, and stays alive, its threads too,
#    until all N have reported. Figures at each N: registration p50/p99,
#    the daemons' CPU time per registration (utime+stime of /proc/PID/stat
#    over the phase), their CPU while the N processes idle, their resident
#    set and open descriptors (start, with N processes, per process, after
#    the processes exit), and events recorded + discarded == emitted.
# 2. Short-lived processes. SHORT processes (default 20000), PARALLEL
#    alive at once, each registering, emitting SHORT_EVENTS events from 2
#    threads and exiting: registration p50/p99, the daemons' CPU per
#    process, and their descriptors and resident set at the start and at
#    the end (LEAK when the descriptors do not come back).
# Beside them, the same dlopen() with no daemon to reach: the cost of
# loading, that registration adds to.
#
# usage: bench/scale.sh [-N LIST] [-s SHORT] [-p PARALLEL] [-n EVENTS]
#                       [-e SHORT_EVENTS] [-i IDLE_SECS] [-f NOFILE]
#                       [--perf] [-k]
#   -N LIST        process counts of part 1, e.g. 10,100,500
#                  (default 10,100,1000,5000; SCALE_N)
#   -s SHORT       short-lived processes of part 2, 0: none
#                  (default 20000; SCALE_SHORT)
#   -p PARALLEL    processes registering at once (default 2; SCALE_PARALLEL)
#   -n EVENTS      events per thread in part 1 (default 100)
#   -e EVENTS      events per thread in part 2 (default 10)
#   -i SECS        the idle window of part 1 (default 5)
#   -f NOFILE      the descriptors the daemons may open: the hard limit
#                  (ulimit -Hn) given to them, which only root may raise
#                  (default: this shell's hard limit)
#   --perf         perf record -g on both daemons while the largest N
#                  registers, and while it idles; prints their hottest
#                  functions
#   -k             keep the work directory (traces, logs, raw results)
# Environment: SHMTRACE_BUILD (default <tree>/build), CC (default cc),
# TMPDIR (where the work directory, and so the traces, go),
# SHMTRACE_REGISTER_TIMEOUT (the longest a process waits for the daemon,
# default here 10000 ms, so that slow registrations are measured, not cut).
#
# It is a benchmark, not a test: it prints figures and ends with
#   scale: registration p99 ms at N1 / NLAST processes: A / B
set -euo pipefail
name=scale
reps=1
events=100
ns_list=${SCALE_N:-10,100,1000,5000}
short=${SCALE_SHORT:-20000}
parallel=${SCALE_PARALLEL:-2}
short_events=10
idle=5
nofile=""
use_perf=0
bench_option() {
	case $1 in
	-N) ns_list=$2; bench_shift=2 ;;
	-s) short=$2; bench_shift=2 ;;
	-p) parallel=$2; bench_shift=2 ;;
	-e) short_events=$2; bench_shift=2 ;;
	-i) idle=$2; bench_shift=2 ;;
	-f) nofile=$2; bench_shift=2 ;;
	--perf) use_perf=1; bench_shift=1 ;;
	esac
}
. "$(dirname "$0")/lib.sh" "$@"

export SHMTRACE_REGISTER_TIMEOUT=${SHMTRACE_REGISTER_TIMEOUT:-10000}
read -r -a ns <<<"$(echo "$ns_list" | tr ',' ' ')"
[ "${#ns[@]}" -gt 0 ] || die "no process count in -N"
for n in "${ns[@]}" "$short" "$parallel" "$events" "$short_events" "$idle" ${nofile:+"$nofile"}; do
	[[ $n =~ ^[0-9]+$ ]] || die "not a number: $n"
done
[ "$parallel" -ge 1 ] || die "-p must be at least 1"
tck=$(getconf CLK_TCK)
max_n=$(printf '%s\n' "${ns[@]}" | sort -n | tail -n1)

# descriptors: the launcher's and perf's are few; the daemons raise their
# soft limit to the hard one, which they inherit from here
if [ -n "$nofile" ]; then
	ulimit -Hn "$nofile" 2>/dev/null || die "cannot set the hard limit of descriptors to $nofile"
fi
ulimit -n "$(ulimit -Hn)"
pid_max=$(cat /proc/sys/kernel/pid_max)
[ $((max_n * 3 + 1000)) -le "$pid_max" ] ||
	log "warning: $max_n processes of 3 tasks may not fit pid_max $pid_max"

launcher=""	# the running scale-app launcher
perf_pids=""
scale_cleanup() {
	local p
	if [ -n "$launcher" ]; then
		kill -KILL "$launcher" 2>/dev/null || true	# its children follow (PDEATHSIG)
		wait "$launcher" 2>/dev/null || true
		launcher=""
	fi
	for p in $perf_pids; do kill -INT "$p" 2>/dev/null || true; done
	for p in $perf_pids; do wait "$p" 2>/dev/null || true; done
	perf_pids=""
	bench_cleanup
}
trap scale_cleanup EXIT
trap 'exit 130' INT TERM

app=$work/scale-app
probe=$work/scale-probe.so
${CC:-cc} -O2 -pthread -o "$app" "$top/bench/scale-app.c" || die "cannot build scale-app.c"
bench_cc "$probe" "$top/bench/scale-probe.c" -shared -fPIC || die "cannot build scale-probe.c"
mkdir -p "$work/log"

# ---- the daemons, seen from /proc ------------------------------------------------

SPID="" CPID=""
daemons_up() {	# daemons_up TAG: fresh daemons in $work/home.TAG
	shm_daemons_start "$work/home.$1" "$work/log/sessiond.$1.log" || die "the daemons do not start"
	SPID=$SESSIOND_PID
	CPID=$CONSUMERD_PID
}

# cpu_ms PID: utime + stime in ms (/proc/PID/stat: all its threads, past and present)
cpu_ms() {
	awk -v t="$tck" '{ sub(/^.*\) /, ""); print ($12 + $13) * 1000 / t }' "/proc/$1/stat"
}
fds() { find "/proc/$1/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l; }

# snap TAG: both daemons' CPU, resident set and descriptors into S[TAG.*]
declare -A S R
snap() {
	S[$1.scpu]=$(cpu_ms "$SPID") S[$1.ccpu]=$(cpu_ms "$CPID")
	S[$1.srss]=$(rss_kib "$SPID") S[$1.crss]=$(rss_kib "$CPID")
	S[$1.sfd]=$(fds "$SPID") S[$1.cfd]=$(fds "$CPID")
}
# calc EXPR [DIGITS]: awk arithmetic, DIGITS decimals (default 3)
calc() { awk "BEGIN { printf \"%.${2:-3}f\", $1 }"; }

# settle: wait (10 s at most) until the daemons' descriptors come back to
# those of snapshot "start", or stop moving for 2 s
settle() {
	local prev="" cur same=0
	for _ in $(seq 100); do
		cur="$(fds "$SPID") $(fds "$CPID")"
		[ "$cur" = "${S[start.sfd]} ${S[start.cfd]}" ] && return 0
		if [ "$cur" = "$prev" ]; then
			same=$((same + 1))
			[ "$same" -ge 20 ] && return 0
		else
			same=0
		fi
		prev=$cur
		sleep 0.1
	done
}

session_up() {	# session_up OUT: session "s" on the small channel, started
	{ "$T" create s --output "$1" &&
	  "$T" enable-channel -s s small --subbuf-size 4k --num-subbuf 2 --pool-size 2 &&
	  "$T" enable-event -s s -c small 'bench_scale:*' &&
	  "$T" start s; } >/dev/null || die "cannot set up the session"
}

# session_down TAG OUT EMITTED PROCS EVPROC: stop, status, destroy, then
# check the counts; sets R[TAG.*]
session_down() {
	local tag=$1 out=$2 emitted=$3 procs=$4 evproc=$5 st=$work/log/status.$1 rd sd lost full
	"$T" stop s >/dev/null || log "warning: $tag: stop says something went wrong"
	"$T" status s --format json >"$st" || true
	"$T" destroy s >/dev/null || true
	rd=$(status_sum "$st" recorded)
	sd=$(status_sum "$st" discarded)
	lost=$(( $(status_sum "$st" overwritten) + $(status_sum "$st" lost_without_buffer) +
		$(status_sum "$st" lost_to_write_errors) ))
	# a few hundred process directories at a time (trace-read opens every
	# stream of what it reads at once), never two of one pid together:
	# scale-app-PID first, then the PID-1 of pids used again, and so on
	ls "$out" | sed -n 's/^scale-app-[0-9][0-9]*//p' | sort -u | while read -r g; do
		ls "$out" | grep -xE "scale-app-[0-9]+$g" | sed "s|^|$out/|" |
			xargs -r -n 500 "$build/trace-read" -s
	done >"$work/log/stats.$tag" 2>"$work/log/stats.$tag.err" ||
		log "warning: $tag: trace-read -s failed: $(head -3 "$work/log/stats.$tag.err")"
	# processes whose 2 threads' events are all in the trace (a pid is one
	# process in the output of one trace-read)
	full=$(awk '/^Events: / { b++ } /^Per thread:/ { t = 1; next } /^$/ { t = 0 }
		t && $2 ~ /\[[0-9]+\]$/ { n[b " " $2] += $1; th[b " " $2]++ }
		END { for (p in n) if (th[p] == 2 && n[p] == e) c++; print c + 0 }' e="$evproc" \
		"$work/log/stats.$tag")
	R[$tag.emitted]=$emitted R[$tag.recorded]=$rd R[$tag.discarded]=$sd R[$tag.lost]=$lost
	R[$tag.read]=$(awk '/^Events: / { s += $2 } END { print s + 0 }' "$work/log/stats.$tag")
	R[$tag.full]=$full
	R[$tag.check]=ok
	if [ $((rd + sd + lost)) != "$emitted" ] || [ "${R[$tag.read]:-x}" != "$rd" ]; then
		R[$tag.check]=MISMATCH
		log "warning: $tag: $emitted emitted, $rd recorded + $sd discarded + $lost lost," \
			"trace-read reads ${R[$tag.read]:-nothing}"
	fi
	[ "$sd$lost" = 00 ] && [ "$full" != "$procs" ] && {
		R[$tag.check]=MISMATCH
		log "warning: $tag: $full of $procs processes have all their events in the trace"
	}
	return 0
}

# latencies TAG FILE: registration figures of the launcher's output FILE;
# the percentiles are those of the processes whose event was enabled when
# dlopen() returned (registered), the others are counted apart; with ALL,
# of every process (no daemon: none is enabled)
latencies() {
	local tag=$1 f=$2 all=${3:+1}
	local t sorted=$work/log/lat.$tag
	read -r "R[$tag.n]" "R[$tag.p50]" "R[$tag.p99]" "R[$tag.max]" "R[$tag.late]" "R[$tag.off]" < <(
		awk '$1 == "reg" { print $4 / 1e6, $5 }' "$f" | sort -g | awk -v all="$all" '
			$1 > 200 { late++ }
			!$2 { off++; if (!all) next }
			{ v[++n] = $1 }
			function p(q,  i) { i = int(q * n); if (i < q * n) i++; return v[i < 1 ? 1 : i] }
			END { if (!n) { print NR, "-", "-", "-", late + 0, off + 0; exit }
				printf "%d %.2f %.2f %.2f %d %d\n", NR, p(0.5), p(0.99), v[n], late, off }')
	# p50 of the first and of the last tenth started
	awk -v all="$all" '$1 == "reg" && ($5 || all) { print $2, $4 / 1e6 }' "$f" | sort -n | cut -d' ' -f2 >"$sorted"
	t=$(($(wc -l <"$sorted") / 10))
	[ "$t" -ge 1 ] || t=1
	R[$tag.first]=$(head -n "$t" "$sorted" | median | xargs printf '%.2f')
	R[$tag.last]=$(tail -n "$t" "$sorted" | median | xargs printf '%.2f')
	R[$tag.failed]=$(grep -c '^fail' "$f" || true)
}

# wait_line FILE WORD: until the launcher writes a line starting with WORD
wait_line() {
	while ! grep -q "^$2 " "$1"; do
		kill -0 "$launcher" 2>/dev/null || grep -q "^$2 " "$1" || die "scale-app ended early: $(tail -3 "$1")"
		sleep 0.1
	done
}

perf_start() {	# perf_start [TAG]
	local p
	perf_pids=""
	for p in "$SPID" "$CPID"; do
		perf record -q -g -o "$work/log/perf.$p${1:+.$1}.data" -p "$p" >/dev/null 2>&1 &
		perf_pids="$perf_pids $!"
	done
	sleep 0.5
}
perf_stop() {
	local p
	for p in $perf_pids; do kill -INT "$p" 2>/dev/null || true; done
	for p in $perf_pids; do wait "$p" 2>/dev/null || true; done
	perf_pids=""
}
perf_show() {	# perf_show FILE-TAG LABEL
	local f=$work/log/perf.$1.data
	[ -s "$f" ] || { echo "  $2: no samples"; return 0; }
	echo "  $2 (self time, functions above 2 %):"
	perf report -i "$f" --stdio --no-children --sort symbol -g none --percent-limit 2 2>/dev/null |
		grep -E '^ +[0-9.]+%' | head -n 15 | sed 's/^/   /; s/[ -]*$//'
}

# ---- 0. dlopen with no daemon ------------------------------------------------------

base_n=200
log "no daemon: $base_n processes load the probe"
mkdir -p "$work/nodaemon"
chmod 700 "$work/nodaemon"
SHMTRACE_HOME=$work/nodaemon "$app" "$probe" "$base_n" "$parallel" 1 0 >"$work/log/app.base" ||
	die "scale-app failed without a daemon: $(tail -3 "$work/log/app.base")"
latencies base "$work/log/app.base" all

# ---- 1. N processes at once --------------------------------------------------------

phase_n() {
	local n=$1 out=$work/out.$1 f=$work/log/app.$1 fifo=$work/go.$1 go t0 t1 a b
	log "part 1: $n processes"
	daemons_up "$n"
	session_up "$out"
	sleep 0.5
	snap start
	[ "$use_perf" = 1 ] && [ "$n" = "$max_n" ] && perf_start
	mkfifo "$fifo"
	t0=$(date +%s%N)
	"$app" "$probe" "$n" "$parallel" "$events" 1 <"$fifo" >"$f" &
	launcher=$!
	exec {go}>"$fifo"
	wait_line "$f" ready
	t1=$(date +%s%N)
	snap reg
	[ -n "$perf_pids" ] && perf_stop
	# the traced processes' proportional set size (their share of the
	# libraries and of the buffers they share with the consumer)
	R[$n.pss]=$(awk '$1 == "reg" { print "/proc/" $3 "/smaps_rollup" }' "$f" |
		xargs awk '$1 == "Pss:" { s += $2; n++ } END { if (n) printf "%.0f", s / n }' \
		2>/dev/null || true)
	R[$n.wall]=$(calc "($t1 - $t0) / 1e9" 2)
	# the idle window, after the first flush of the idle threads
	sleep 1.5
	[ "$use_perf" = 1 ] && [ "$n" = "$max_n" ] && perf_start idle
	snap idle0
	sleep "$idle"
	snap idle1
	[ -n "$perf_pids" ] && perf_stop
	echo go >&"$go"
	exec {go}>&-
	a=$(date +%s%N)
	wait "$launcher" || log "warning: scale-app: $(grep -c '^fail' "$f" || true) processes failed"
	launcher=""
	b=$(date +%s%N)
	R[$n.exitwall]=$(calc "($b - $a) / 1e9" 2)
	settle
	snap end
	latencies "$n" "$f"
	R[$n.warn]=$(cat "$SHMTRACE_HOME"/*.log | grep -c ' warning: ' || true)
	R[$n.refused]=$(grep -c 'malformed first message' "$SHMTRACE_HOME/sessiond.log" || true)
	session_down "$n" "$out" $((R[$n.n] * 2 * events)) "${R[$n.n]}" $((2 * events))
	[ "$use_perf" = 1 ] && [ "$n" = "$max_n" ] && R[perfpids]="$SPID $CPID"
	R[$n.sregcpu]=$(calc "(${S[reg.scpu]} - ${S[start.scpu]}) / $n")
	R[$n.cregcpu]=$(calc "(${S[reg.ccpu]} - ${S[start.ccpu]}) / $n")
	R[$n.sidle]=$(calc "(${S[idle1.scpu]} - ${S[idle0.scpu]}) / $idle" 1)
	R[$n.cidle]=$(calc "(${S[idle1.ccpu]} - ${S[idle0.ccpu]}) / $idle" 1)
	R[$n.sexit]=$(calc "(${S[end.scpu]} - ${S[idle1.scpu]}) / $n")
	R[$n.cexit]=$(calc "(${S[end.ccpu]} - ${S[idle1.ccpu]}) / $n")
	for a in srss crss sfd cfd; do
		R[$n.$a.start]=${S[start.$a]} R[$n.$a.reg]=${S[reg.$a]} R[$n.$a.end]=${S[end.$a]}
		R[$n.$a.per]=$(calc "(${S[reg.$a]} - ${S[start.$a]}) / $n" 2)
	done
	rm -f "$fifo"
	shm_daemons_stop
	[ "$keep" = 1 ] || rm -rf "$out"
}

for n in "${ns[@]}"; do phase_n "$n"; done

# ---- 2. short-lived processes ------------------------------------------------------

if [ "$short" -gt 0 ]; then
	log "part 2: $short short-lived processes, $parallel at a time"
	daemons_up short
	session_up "$work/out.short"
	sleep 0.5
	snap start
	t0=$(date +%s%N)
	"$app" "$probe" "$short" "$parallel" "$short_events" 0 >"$work/log/app.short" &
	launcher=$!
	wait "$launcher" || log "warning: scale-app: $(grep -c '^fail' "$work/log/app.short" || true) processes failed"
	launcher=""
	t1=$(date +%s%N)
	snap run
	settle
	sleep 1	# what the consumer still closes after the last exit
	snap end
	latencies short "$work/log/app.short"
	R[short.warn]=$(cat "$SHMTRACE_HOME"/*.log | grep -c ' warning: ' || true)
	session_down short "$work/out.short" $((R[short.n] * 2 * short_events)) "${R[short.n]}" \
		$((2 * short_events))
	R[short.wall]=$(calc "($t1 - $t0) / 1e9" 1)
	R[short.rate]=$(calc "$short / (($t1 - $t0) / 1e9)" 0)
	R[short.scpu]=$(calc "(${S[end.scpu]} - ${S[start.scpu]}) / $short")
	R[short.ccpu]=$(calc "(${S[end.ccpu]} - ${S[start.ccpu]}) / $short")
	shm_daemons_stop
	[ "$keep" = 1 ] || rm -rf "$work/out.short"
fi

# ---- the figures -------------------------------------------------------------------

row() {	# row LABEL VALUE...
	local l=$1
	shift
	printf '%-44s' "$l"
	printf ' %12s' "$@"
	printf '\n'
}
each() {	# each KEY: R[N.KEY] for every N
	local n
	for n in "${ns[@]}"; do printf '%s\n' "${R[$n.$1]:--}"; done
}
pair() {	# pair K1 K2: "K1 / K2" for every N
	local n
	for n in "${ns[@]}"; do printf '%s\n' "${R[$n.$1]:--}/${R[$n.$2]:--}"; done
}

echo "scale: $(nproc) CPUs, $(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)," \
	"load average $(cut -d' ' -f1-3 /proc/loadavg) at the end, kernel $(uname -r)"
echo "channel: 2 sub-buffers of 4 KiB, pool of 2 buffers; $parallel processes registering at once;" \
	"SHMTRACE_REGISTER_TIMEOUT=$SHMTRACE_REGISTER_TIMEOUT; daemons' descriptor limit $(ulimit -Hn)"
echo
echo "registration = dlopen() of a probe linked with libshmtrace, timed in the process"
echo "(its constructors register, then wait for the session daemon's replies);"
echo "percentiles of the processes whose event was enabled when dlopen() returned"
echo "no daemon at all (loading only): p50 ${R[base.p50]} ms, p99 ${R[base.p99]} ms ($base_n processes)"
echo
echo "1. N processes traced at once, 2 threads each, $events events per thread"
row "processes" "${ns[@]}"
row "registration p50 ms" $(each p50)
row "registration p99 ms" $(each p99)
row "registration max ms" $(each max)
row "p50 ms, first / last tenth started" $(pair first last)
row "over 200 ms / not enabled after dlopen" $(pair late off)
row "daemon log warnings / refused first message" $(pair warn refused)
row "failed processes" $(each failed)
row "all registered and emitted, s" $(each wall)
row "sessiond CPU ms per registration" $(each sregcpu)
row "consumerd CPU ms per registration" $(each cregcpu)
row "sessiond CPU idle, ms per s" $(each sidle)
row "consumerd CPU idle, ms per s" $(each cidle)
row "sessiond RSS KiB start" $(each srss.start)
row "sessiond RSS KiB with N" $(each srss.reg)
row "sessiond RSS KiB per process" $(each srss.per)
row "consumerd RSS KiB start" $(each crss.start)
row "consumerd RSS KiB with N" $(each crss.reg)
row "consumerd RSS KiB per process" $(each crss.per)
row "sessiond fds start / with N / after exit" $(for n in "${ns[@]}"; do
	echo "${R[$n.sfd.start]}/${R[$n.sfd.reg]}/${R[$n.sfd.end]}"; done)
row "sessiond fds per process" $(each sfd.per)
row "consumerd fds start / with N / after exit" $(for n in "${ns[@]}"; do
	echo "${R[$n.cfd.start]}/${R[$n.cfd.reg]}/${R[$n.cfd.end]}"; done)
row "consumerd fds per process" $(each cfd.per)
row "traced process PSS KiB, mean" $(each pss)
row "exit: s to end all" $(each exitwall)
row "exit: sessiond / consumerd CPU ms per proc" $(pair sexit cexit)
row "events emitted" $(each emitted)
row "recorded" $(each recorded)
row "discarded" $(each discarded)
row "lost (overwritten, no buffer, write)" $(each lost)
row "processes with all their events" $(each full)
row "recorded + discarded + lost = emitted" $(each check)
if [ "$short" -gt 0 ]; then
	echo
	echo "2. $short short-lived processes, $parallel alive at once, 2 threads x $short_events events"
	echo "registration p50 ${R[short.p50]} ms, p99 ${R[short.p99]} ms, max ${R[short.max]} ms;" \
		"p50 first / last tenth ${R[short.first]} / ${R[short.last]} ms"
	echo "over 200 ms: ${R[short.late]}, not enabled after dlopen: ${R[short.off]}," \
		"failed: ${R[short.failed]}, daemon log warnings: ${R[short.warn]}"
	echo "${R[short.wall]} s in all, $(fmt %s "${R[short.rate]}") processes/s"
	echo "CPU ms per process: sessiond ${R[short.scpu]}, consumerd ${R[short.ccpu]}"
	fdck() {	# fdck K: start / end, LEAK when they differ
		local v="${S[start.$1]} -> ${S[end.$1]}"
		[ "${S[start.$1]}" = "${S[end.$1]}" ] && echo "$v ok" || echo "$v LEAK"
	}
	echo "sessiond fds $(fdck sfd), RSS KiB ${S[start.srss]} -> ${S[run.srss]} (at the last exit)" \
		"-> ${S[end.srss]}"
	echo "consumerd fds $(fdck cfd), RSS KiB ${S[start.crss]} -> ${S[run.crss]} (at the last exit)" \
		"-> ${S[end.crss]}"
	echo "events: ${R[short.emitted]} emitted, ${R[short.recorded]} recorded," \
		"${R[short.discarded]} discarded, ${R[short.lost]} lost;" \
		"${R[short.full]} processes with all their events: ${R[short.check]}"
fi
if [ -n "${R[perfpids]:-}" ]; then
	echo
	read -r a b <<<"${R[perfpids]}"
	echo "perf record -g while the $max_n processes registered:"
	perf_show "$a" "trace-sessiond"
	perf_show "$b" "trace-consumerd"
	echo "perf record -g while they idled (${idle} s):"
	perf_show "$a.idle" "trace-sessiond"
	perf_show "$b.idle" "trace-consumerd"
fi
echo "scale: registration p99 ms at ${ns[0]} / ${ns[-1]} processes: ${R[${ns[0]}.p99]} / ${R[${ns[-1]}.p99]}"
