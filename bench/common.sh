# SPDX-License-Identifier: MIT
# bench/common.sh - what every benchmark shares: messages, the daemons of
# shmtrace (scripts/daemons.sh) and of LTTng started and stopped by pid
# (never by name), the results file and medians, building a program
# against the build's library, resident set sizes, and the sustained rate
# of one thread (bench/sustained-rate.c). Source it after setting `name`
# (the prefix of messages), `top` (the source tree) and `build` (the
# shmtrace build tree).
#
# Results are lines "REP WHAT KEY VALUE" in the file $res, filed by record
# with the repetition in $rep; vals and med read them back.

. "$top/scripts/daemons.sh"

log() { printf '%s\n' "$*" >&2; }
die() { log "$name: $*"; exit 1; }

# wait_pids PID...: wait up to 10 s for each to exit
wait_pids() {
	local p
	for p in "$@"; do
		shmtrace_wait_gone "$p" || log "warning: process $p still runs"
	done
	return 0
}

# status_sum FILE FIELD: FIELD of every channel of `tracectl status
# --format json` in FILE, summed (doc/json.md: sessions, their channels);
# 0 when FILE holds no such document
status_sum() {
	python3 -c 'import json, sys
try:
    lines = [l for l in open(sys.argv[1]).read().splitlines() if l.strip()]
    d = json.loads(lines[-1])
except (OSError, ValueError, IndexError):
    d = {}
print(sum(c.get(sys.argv[2], 0) for s in d.get("sessions", []) for c in s.get("channels", [])))' "$1" "$2"
}

# ---- shmtrace's daemons -----------------------------------------------------------

shm_home=""	# where the running daemons keep their pid files
SESSIOND_PID="" CONSUMERD_PID=""

# BENCH_DAEMON_CPUS (a taskset list, e.g. "1"): both tracers' daemons, and
# the consumers they start, run on these CPUs only; unset or empty: on any
daemon_cpus() {	# daemon_cpus: the command that starts a daemon, as a prefix
	[ -z "${BENCH_DAEMON_CPUS:-}" ] || echo "taskset -c $BENCH_DAEMON_CPUS"
}

# shm_daemons_start HOME LOG: the daemons of the build in HOME, made if
# need be, their messages in LOG; this shell's programs use them. Sets
# SHMTRACE_HOME, SESSIOND_PID and CONSUMERD_PID; returns 1 when a daemon
# does not start.
shm_daemons_start() {
	shmtrace_daemons_env "$build" "$1"
	shm_home=$1
	# shellcheck disable=SC2046
	shmtrace_daemons_start "$build" "$1" "$2" $(daemon_cpus) || return 1
}

# shm_daemons_stop: the daemons shm_daemons_start started, by pid
# (shmtrace_daemons_stop: SIGTERM, then SIGKILL for one still there 10 s on)
shm_daemons_stop() {
	local h=$shm_home p
	[ -n "$h" ] || return 0
	shm_home=""
	shmtrace_daemons_stop "$h" && return 0
	for p in $SHMTRACE_KILLED; do
		log "warning: process $p still ran 10 s after SIGTERM: killed"
	done
	return 0
}

# ---- LTTng's daemons ----------------------------------------------------------------

lttng_pid=""
lttng_pidfile=""	# set before lttng-sessiond starts: read by lttng_daemons_stop

# lttng_daemons_start HOME LOG: lttng-sessiond --daemonize (user space
# only) with LTTNG_HOME=HOME, its messages in LOG; it starts its consumer
lttng_daemons_start() {
	export LTTNG_HOME=$1
	mkdir -p "$LTTNG_HOME"
	rm -f "$LTTNG_HOME/sessiond.pid"
	lttng_pidfile=$LTTNG_HOME/sessiond.pid
	# shellcheck disable=SC2046
	$(daemon_cpus) lttng-sessiond --daemonize --no-kernel --pidfile "$lttng_pidfile" >"$2" 2>&1 ||
		return 1
	lttng_pid=$(cat "$lttng_pidfile")
}

lttng_daemons_stop() {
	local kids
	# interrupted between its start and the reading of its pid file
	[ -n "$lttng_pid" ] || [ -z "$lttng_pidfile" ] ||
		lttng_pid=$(cat "$lttng_pidfile" 2>/dev/null || true)
	lttng_pidfile=""
	[ -n "$lttng_pid" ] || return 0
	kids=$(ps -o pid= --ppid "$lttng_pid" 2>/dev/null || true)
	kill -TERM "$lttng_pid" 2>/dev/null
	wait_pids "$lttng_pid" $kids
	lttng_pid=""
}

# lttng_count DIR: events in an LTTng trace, counted by babeltrace2
lttng_count() {
	babeltrace2 "$1" -c sink.utils.counter 2>/dev/null |
		awk '$2 == "Event" && $3 == "messages" { n = $1 } END { print n + 0 }'
}

# daemons_stop_all: whatever still runs, for the exit trap
daemons_stop_all() {
	shm_daemons_stop || true
	lttng_daemons_stop || true
}

# ---- results ------------------------------------------------------------------------

# kv LINE KEY: the value of KEY=... in a program's result line
kv() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n1; }

record() { echo "$rep $1 $2 $3" >>"$res"; }

# vals WHAT KEY: the values over the repetitions
vals() { awk -v w="$1" -v k="$2" '$2 == w && $3 == k && $4 != "" && $4 != "-" { print $4 }' "$res"; }

# median of the numbers on standard input, one per line ("" when none)
median() {
	awk 'NF' | sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) exit
		print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# med WHAT KEY: median over the repetitions
med() { vals "$1" "$2" | median; }

# range WHAT KEY: min-max over the repetitions, to 0.1
range() { vals "$1" "$2" | sort -g | awk 'NR == 1 { a = $1 } { b = $1 } END { if (NR) printf "%.1f-%.1f", a, b }'; }

# sum WHAT KEY: the sum over the repetitions ("" when none)
sum() { awk -v t="$1" -v k="$2" '$2 == t && $3 == k { s += $4; n++ } END { if (n) print s }' "$res"; }

# medratio W1 K1 W2 K2 [OP]: median over the repetitions of W1.K1 / W2.K2,
# each taken within one repetition (OP "-": the difference)
medratio() {
	awk -v t1="$1" -v k1="$2" -v t2="$3" -v k2="$4" -v op="${5:-/}" '
		$2 == t1 && $3 == k1 { a[$1] = $4 } $2 == t2 && $3 == k2 { b[$1] = $4 }
		END { for (r in a) if ((r in b) && a[r] != "-" && b[r] != "-") {
			if (op == "-") print a[r] - b[r]; else if (b[r] != 0) print a[r] / b[r] } }' "$res" |
		median
}

fmt() {	# fmt FORMAT VALUE: "n/a" when empty
	if [ -n "$2" ]; then printf "$1" "$2"; else printf 'n/a'; fi
}

# stream_bytes DIR: bytes of the trace's stream files (no metadata, no index)
stream_bytes() {
	find "$1" -type f ! -name metadata ! -path '*/index/*' -printf '%s\n' |
		awk '{ s += $1 } END { printf "%.0f\n", s }'
}
meta_bytes() {
	find "$1" -type f -name metadata -printf '%s\n' | awk '{ s += $1 } END { printf "%.0f\n", s }'
}

# ---- programs and processes -----------------------------------------------------------

# bench_cc OUT SOURCE [CFLAGS...]: a benchmark program linked with the
# build's libshmtrace
bench_cc() {
	local out=$1 src=$2
	shift 2
	${CC:-cc} -O2 -pthread -I"$top/include" "$@" -o "$out" "$src" "$build/.libs/libshmtrace.so" \
		-Wl,-rpath,"$build/.libs"
}

# first_cpu: the first CPU this shell may run on
first_cpu() { taskset -pc $$ | sed 's/.*: *//; s/[-,].*//'; }

# other_cpus CPU: the CPUs this shell may run on but CPU, comma-separated
# (empty when there is none)
other_cpus() {
	taskset -pc $$ | sed 's/.*: *//' | tr ',' '\n' |
		awk -F- -v c="$1" '{ for (i = $1; i <= ($2 == "" ? $1 : $2); i++) if (i != c) l = l (l == "" ? "" : ",") i }
			END { print l }'
}

# rss_kib PID: its resident set size (VmRSS) in KiB, "-" when it is gone
rss_kib() {
	local v
	v=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status" 2>/dev/null || true)
	echo "${v:--}"
}

# ---- the sustained rate of one thread: bench/sustained-rate.c -------------------------------

# sustained_pattern EVENT: the event that sustained-rate.c emits for EVENT (b or kv)
# dd_mb DIR [CONV [MIB]]: MB/s of MIB MiB (default 1024) from /dev/zero
# written into DIR in blocks of 512 KiB (a sub-buffer): the file system's
# own write rate, into the page cache, or with CONV=fdatasync what the disk
# takes (CONV "": none). A write longer than what the page cache absorbs
# shows the disk's sustained rate.
dd_mb() {
	local out
	out=$(dd if=/dev/zero of="$1/dd" bs=512K count=$((${3:-1024} * 2)) ${2:+conv=$2} 2>&1 | tail -n 1)
	rm -f "$1/dd"
	awk -v l="$out" 'BEGIN { n = split(l, w, " "); b = w[1]
		for (i = 1; i < n; i++) if (w[i + 1] == "s,") s = w[i]
		printf "%.0f", b / s / 1e6 }'
}

sustained_pattern() { case $1 in kv) echo 'bench_agg:kv' ;; *) echo 'bench:b' ;; esac; }

# sustained_run PROG RATE SECS EVENT: PROG (sustained-rate.c, built with
# bench_cc) pinned to the first allowed CPU, RATE events per second (0: as
# fast as it can) for SECS seconds; prints its result line
sustained_run() { taskset -c "$(first_cpu)" "$@"; }

# sustained_record PROG RATE SECS EVENT DIR: a session (named "rate", the
# default channel) records EVENT into DIR while sustained_run runs, with
# the daemons running. Prints the program's result line with, added,
# recorded= discarded= lost= (lost without a buffer or to write errors)
# bytes= (the stream files); the session's status (JSON) is left in
# DIR.status.
# SUSTAINED_CHANNEL="OPTIONS": a channel with these enable-channel options
# instead of the default one.
sustained_record() {
	local prog=$1 rate=$2 secs=$3 ev=$4 dir=$5 line T=$build/tracectl chan=()
	# shellcheck disable=SC2086
	[ -z "${SUSTAINED_CHANNEL:-}" ] || chan=(-c c)
	{ "$T" create rate --output "$dir" &&
	  { [ -z "${SUSTAINED_CHANNEL:-}" ] || "$T" enable-channel -s rate c $SUSTAINED_CHANNEL; } &&
	  "$T" enable-event -s rate "${chan[@]}" "$(sustained_pattern "$ev")" &&
	  "$T" start rate; } >/dev/null || return 1
	line=$(sustained_run "$prog" "$rate" "$secs" "$ev") ||
		{ "$T" destroy rate >/dev/null 2>&1; return 1; }
	"$T" stop rate >/dev/null || true	# status says why
	"$T" status rate --format json >"$dir.status"
	"$T" destroy rate >/dev/null
	echo "$line" \
		"recorded=$(status_sum "$dir.status" recorded)" \
		"discarded=$(status_sum "$dir.status" discarded)" \
		"lost=$(( $(status_sum "$dir.status" lost_without_buffer) +
			$(status_sum "$dir.status" lost_to_write_errors) ))" \
		"bytes=$(stream_bytes "$dir")"
}

# sustained_lossless PROG SECS EVENT DIR: the highest rate of one thread
# that sustained_record records without losing an event: as fast as the
# program can, then 75, 60, 45, 30, 15, 7.5 and 3.75 % of the rate it
# reached, until a run loses nothing; then two halvings of the interval
# between that rate and the one above it that lost events.
# Each run follows a sync, so that none starts with the dirty pages of the
# one before (a file system that is still writing them back throttles the
# consumer's writes).
# Prints "RATE RUNS BYTES" (the rate the best lossless run reached, 0 when
# every run lost events; the runs made; the bytes of streams that run
# wrote); each run is logged, its trace removed.
sustained_lossless() {
	local prog=$1 secs=$2 ev=$3 dir=$4 top_rate="" f line r lost runs=0 lo="" hi="" best="0 0" i
	# lossless_try F: the run at F of full speed (0: full speed); returns 0
	# when it lost nothing, 1 when it lost events, 2 when it failed
	lossless_try() {
		r=0
		[ "$1" = 0 ] || r=$(awk -v t="$top_rate" -v f="$1" 'BEGIN { printf "%.0f", t * f }')
		sync	# each run starts with no dirty page of the one before
		line=$(sustained_record "$prog" "$r" "$secs" "$ev" "$dir") || return 2
		rm -rf "$dir" "$dir.status"
		runs=$((runs + 1))
		lost=$(( $(kv "$line" discarded) + $(kv "$line" lost) ))
		[ -n "$top_rate" ] || top_rate=$(kv "$line" per_sec)
		log "  recorded at $([ "$r" = 0 ] && echo "full speed" || echo "$r events/s"):" \
			"$(kv "$line" per_sec) events/s, $(kv "$line" events) emitted, $lost lost"
		[ "$lost" = 0 ] || return 1
		best="$(kv "$line" per_sec) $(kv "$line" bytes)"
	}
	for f in 0 0.75 0.6 0.45 0.3 0.15 0.075 0.0375; do
		if lossless_try "$f"; then
			lo=$f
			break
		elif [ $? != 1 ]; then
			return 1
		fi
		hi=$f
	done
	if [ -n "$lo" ] && [ "$lo" != 0 ]; then
		[ "$hi" != 0 ] || hi=1
		for i in 1 2; do
			f=$(awk -v a="$lo" -v b="$hi" 'BEGIN { printf "%.4f", (a + b) / 2 }')
			if lossless_try "$f"; then
				lo=$f
			elif [ $? != 1 ]; then
				return 1
			else
				hi=$f
			fi
		done
	fi
	set -- $best
	echo "$1 $runs $2"
}
