#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Chaos: two programs write events at full speed (bursts back to back,
# short pauses between them), a third also forks children that each write
# a known number, and meanwhile the daemons are hit at random instants:
# SIGKILL to the consumer, SIGKILL to the session daemon (the next
# tracectl command starts the next one, which takes the consumer over),
# SIGSTOP then SIGCONT of either for a random time. (Both killed at once
# is not drawn: a process that ends while neither daemon runs takes with
# it what no one had written out, as doc/architecture.md says;
# sessiond-restart.sh kills both with processes that outlive them.) The
# faults come from a generator seeded with SEED, printed first: the same
# seed makes the same faults, durations and pauses again, in the same
# order (their instants, and so how many fit in SECONDS, depend on
# scheduling). Between faults the daemons are given time to come back
# (their pid files polled, then a status).
#
# The session stays active from before the programs start until after
# they end. Then tests/chaos/chaos-check reads the trace: per thread
# (pid, thread), every seq emitted is on disk at most once, and the events
# missing are exactly those that status counts as discarded, lost without
# a buffer or lost to write errors; status's counts are what is on disk;
# each process has one trace directory, and every directory of the
# output is a trace; trace-read reads the whole output and babeltrace2
# every trace of it without error, and both find as many events. The
# last line says
#
#   chaos: F faults, emitted E, on disk D, counted lost L, duplicates 0, unaccounted 0
#
# usage: chaos.sh [-d SECONDS] [-f MIN_FAULTS] [-s SEED] [-b BURST] [-p PAUSE_US]
#                 [-i FORK_US] [-k KINDS]
#   -d  how long the faults go on (default 45: the run takes about a minute)
#   -f  at least this many faults, whatever -d says (default 20)
#   -s  the seed (default: CHAOS_SEED, else random)
#   -b, -p  the programs' bursts: BURST events back to back, then PAUSE_US
#       microseconds of pause (default 1000 and 10000)
#   -i  microseconds between the third program's forks (default 250000)
#   -k  the faults drawn, a comma list of kill-consumer, kill-sessiond,
#       stop-consumer, stop-sessiond (default all; drawn 30, 25, 23 and 22
#       times in 100 when all are)
# make check runs it without options; bench/chaos.sh runs it for longer.
# With SHMTRACE_TEST_KEEP=1 a failed run keeps its home and trace.
secs=${CHAOS_SECONDS:-45} min_faults=${CHAOS_FAULTS:-20} seed=${CHAOS_SEED:-}
burst=1000 pause_us=10000 fork_us=250000 kinds=kill-consumer,kill-sessiond,stop-consumer,stop-sessiond
while getopts d:f:s:b:p:i:k: o; do
	case $o in
	d) secs=$OPTARG ;;
	f) min_faults=$OPTARG ;;
	s) seed=$OPTARG ;;
	b) burst=$OPTARG ;;
	p) pause_us=$OPTARG ;;
	i) fork_us=$OPTARG ;;
	k) kinds=$OPTARG ;;
	*) echo "usage: $0 [-d SECONDS] [-f MIN_FAULTS] [-s SEED] [-b BURST] [-p PAUSE_US]" \
		"[-i FORK_US] [-k KINDS]" >&2; exit 2 ;;
	esac
done
. "$(dirname "$0")/../integration/lib.sh"
# what the daemons say of the faults this test causes (the teardown fails
# on any other error line)
expect_log "error: consumer daemon [0-9]+ exited( |$)" \
	"error: consumer daemon [0-9]+ killed: a new one continues its traces$" \
	"error: consumer daemon [0-9]+ does not answer request [0-9]+ in [0-9]+ ms$" \
	"error: bad reply from the consumer$" \
	"error: consumer request [0-9]+: (Broken pipe|Connection reset by peer)$" \
	"error: the consumer daemon [0-9]+ left running could not be taken over: killed$"
need_babeltrace
APP=$B/tests/apps/chaos-app
CHECK=$B/tests/chaos/chaos-check
for v in "$secs" "$min_faults" "$burst" "$pause_us" "$fork_us" ${seed:+"$seed"}; do
	[[ $v =~ ^[0-9]+$ ]] || fail "not a number: $v"
done
for k in ${kinds//,/ }; do
	case $k in kill-consumer | kill-sessiond | stop-consumer | stop-sessiond) ;;
	*) fail "not a kind of fault: $k" ;;
	esac
done
[ -n "${kinds//,/}" ] || fail "no kind of fault"
[ -n "$seed" ] || seed=$(( $(od -An -N4 -tu4 /dev/urandom) % 2147483648 ))
seed=$((seed % 2147483648))
echo "chaos: seed $seed (CHAOS_SEED=$seed replays these faults)"
# a consumer that does not answer in 1.5 s is replaced: long stops test it
export SHMTRACE_CONSUMER_TIMEOUT=${SHMTRACE_CONSUMER_TIMEOUT:-1500}

# ---- the generator: a 31-bit LCG, never called in a subshell -------------
RNG=$seed
# rnd N: R is the next number in [0, N)
rnd() {
	RNG=$(( (RNG * 1103515245 + 12345) % 2147483648 ))
	R=$(( (RNG >> 8) % $1 ))
}

# now_ms: NOW is the time in milliseconds
now_ms() {
	local t=${EPOCHREALTIME/./}
	NOW=${t:0:-3}
}

# ---- processes, by pid and start time --------------------------------------
# start_of PID: its start time (/proc/PID/stat), nothing when it is gone
start_of() {
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	s=${s##*) }
	# shellcheck disable=SC2086
	set -- $s
	echo "${20}"
}

# signal_same SIG PID START: SIG to PID if it is still the process that
# started at START (never to a process that reused its pid)
signal_same() {
	[ -n "$3" ] && [ "$(start_of "$2")" = "$3" ] && kill -"$1" "$2" 2>/dev/null
}

# state_of PID: its state letter (/proc/PID/stat), nothing when it is gone
state_of() {
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	s=${s##*) }
	echo "${s:0:1}"
}

# alive PID: it runs. A zombie, which its reaper may leave for seconds
# after SIGKILL when that is not us, has exited once its other threads
# have: until then they hold its descriptors (a listening socket that
# takes connections). stopped PID: it is stopped (SIGSTOP).
alive() {
	local s t
	s=$(state_of "$1")
	case $s in
	'' | X) return 1 ;;
	Z) t=(/proc/"$1"/task/*)
	   [ "${#t[@]}" -gt 1 ] ;;
	*) return 0 ;;
	esac
}
stopped() {
	[ "$(state_of "$1")" = T ]
}

# gone PID [TENTHS]: wait up to TENTHS tenths of a second (default 100)
# until PID exited; returns 1 when it still runs
gone() {
	local i
	for ((i = 0; i < ${2:-100}; i++)); do
		alive "$1" || return 0
		sleep 0.1
	done
	! alive "$1"
}

# new_consumer OLD [TENTHS]: wait up to TENTHS tenths of a second (default
# 300) until a consumer other than OLD runs and wrote its pid file
new_consumer() {
	local i p
	for ((i = 0; i < ${2:-300}; i++)); do
		p=$(shmtrace_daemon_pid consumerd)
		[ -n "$p" ] && [ "$p" != "$1" ] && alive "$p" && return 0
		sleep 0.1
	done
	return 1
}

# daemon logs' warnings and errors, for a failure
chaos_fail() {
	local f
	echo "chaos: seed $seed, $nfaults faults (listed above)" >&2
	for f in "$SHMTRACE_HOME"/sessiond.log "$SHMTRACE_HOME"/consumerd.log; do
		[ -f "$f" ] || continue
		echo "--- warnings and errors of $f" >&2
		grep -v '\] \(info\|debug\): ' "$f" | tail -n 60 >&2 || true
	done
	fail "$@"
}

# settle: both daemons run and are not stopped, and a status finds the
# session active; sets SPID, SSTART, CPID, CSTART. Up to 30 s.
settle() {
	local i s c
	for ((i = 0; i < 300; i++)); do
		s=$(shmtrace_daemon_pid sessiond)
		c=$(shmtrace_daemon_pid consumerd)
		if [ -n "$s" ] && [ -n "$c" ] && alive "$s" && alive "$c" &&
			! stopped "$s" && ! stopped "$c"; then
			break
		fi
		sleep 0.1
	done
	[ "$i" -lt 300 ] || chaos_fail "the daemons did not come back (session daemon '$s', consumer '$c')"
	"$TRACECTL" status s --format json >"$WORK/status.now" 2>"$WORK/status.err" ||
		chaos_fail "status failed: $(head -3 "$WORK/status.err")"
	[ "$(jget "$WORK/status.now" sessions s active)" = true ] ||
		chaos_fail "session s is not active: $(head -c 300 "$WORK/status.now")"
	SPID=$(shmtrace_daemon_pid sessiond)
	CPID=$(shmtrace_daemon_pid consumerd)
	SSTART=$(start_of "$SPID")
	CSTART=$(start_of "$CPID")
	[ -n "$SSTART" ] && [ -n "$CSTART" ] || chaos_fail "a daemon exited at once"
}

# programs_alive: every traced program still runs
programs_alive() {
	local p
	for p in $APPS; do
		alive "$p" || chaos_fail "program $p died: $(cat "$WORK"/app-*.err)"
	done
}

# ---- the faults ------------------------------------------------------------
kill_consumer() {
	local c=$CPID
	signal_same KILL "$c" "$CSTART" || chaos_fail "the consumer $c is gone before its SIGKILL"
	gone "$c" || chaos_fail "the consumer $c still runs after SIGKILL"
	# the session daemon starts the next one (at most once a second)
	new_consumer "$c" || chaos_fail "no new consumer after $c was killed"
}

kill_sessiond() {
	local s=$SPID c=$CPID
	signal_same KILL "$s" "$SSTART" || chaos_fail "the session daemon $s is gone before its SIGKILL"
	gone "$s" || chaos_fail "the session daemon $s still runs after SIGKILL"
	alive "$c" || chaos_fail "the consumer $c did not outlive its session daemon"
	# the next command starts the next session daemon, which resumes the
	# session and takes the consumer over
	"$TRACECTL" status s >"$WORK/status.now" 2>"$WORK/status.err" ||
		chaos_fail "status after the kill failed: $(head -3 "$WORK/status.err")"
	[ "$(shmtrace_daemon_pid sessiond)" != "$s" ] || chaos_fail "no new session daemon"
	[ "$(shmtrace_daemon_pid consumerd)" = "$c" ] ||
		chaos_fail "the consumer $c was not taken over (consumerd.pid: $(shmtrace_daemon_pid consumerd))"
}


# stop_daemon WHICH MS: SIGSTOP, MS milliseconds, SIGCONT. A consumer that
# was replaced meanwhile (it did not answer in time) must be gone.
stop_daemon() {
	local which=$1 ms=$2 p st
	if [ "$which" = consumer ]; then p=$CPID st=$CSTART; else p=$SPID st=$SSTART; fi
	signal_same STOP "$p" "$st" || chaos_fail "the $which $p is gone before its SIGSTOP"
	sleep "$((ms / 1000)).$(printf %03d $((ms % 1000)))"
	signal_same CONT "$p" "$st" || true
	if [ "$which" = consumer ] && [ "$(shmtrace_daemon_pid consumerd)" != "$p" ]; then
		gone "$p" 50 || chaos_fail "the consumer $p, replaced, still runs"
	fi
}

# ---- the run ---------------------------------------------------------------
D=$WORK/out
start_daemons
"$TRACECTL" create s --output "$D" >/dev/null || fail "create failed"
"$TRACECTL" enable-channel -s s c --subbuf-size 64k --num-subbuf 8 >/dev/null || fail "enable-channel failed"
"$TRACECTL" enable-event -s s -c c shmtrace_test:event >/dev/null || fail "enable-event failed"
"$TRACECTL" start s >/dev/null || fail "start failed"

# the programs too are stopped at exit, by pid (lib.sh's cleanup does the rest)
APPS=
chaos_cleanup() {
	local rc=$? p
	for p in ${APPS:-}; do
		kill -KILL "$p" 2>/dev/null || true
	done
	if [ "$rc" -eq 0 ]; then cleanup; else (exit "$rc") || cleanup; fi
}
trap chaos_cleanup EXIT
# standard output in append mode: the children of the third write their lines there
"$APP" -t 2 -b "$burst" -p "$pause_us" >>"$WORK/app-a.out" 2>"$WORK/app-a.err" &
APPS="$APPS $!"
"$APP" -t 2 -b "$burst" -p "$pause_us" >>"$WORK/app-b.out" 2>"$WORK/app-b.err" &
APPS="$APPS $!"
"$APP" -t 1 -b "$burst" -p "$pause_us" -f 5000 -i "$fork_us" -k 2 >>"$WORK/app-f.out" \
	2>"$WORK/app-f.err" &
APPS="$APPS $!"
for f in a b f; do
	for _ in $(seq 300); do
		grep -q '^started ' "$WORK/app-$f.out" 2>/dev/null && break
		sleep 0.1
	done
	grep -q '^started ' "$WORK/app-$f.out" || fail "program $f did not start: $(cat "$WORK/app-$f.err")"
done

: >"$WORK/faults"
nfaults=0
settle
now_ms
t0=$NOW
end=$((t0 + secs * 1000))
while [ "$NOW" -lt "$end" ] || [ "$nfaults" -lt "$min_faults" ]; do
	# a pause, then a fault, both drawn from the generator
	rnd 900
	sleep "$(((R + 100) / 1000)).$(printf %03d $(((R + 100) % 1000)))"
	# a kind drawn, again until it is one of those chosen
	while :; do
		rnd 100
		if [ "$R" -lt 30 ]; then kind=kill-consumer
		elif [ "$R" -lt 55 ]; then kind=kill-sessiond
		elif [ "$R" -lt 78 ]; then kind=stop-consumer
		else kind=stop-sessiond
		fi
		case ,$kinds, in *,$kind,*) break ;; esac
	done
	rnd 2450
	ms=$((R + 50))
	now_ms
	at=$((NOW - t0))
	nfaults=$((nfaults + 1))
	case $kind in
	kill-consumer) what="SIGKILL consumer $CPID" ;;
	kill-sessiond) what="SIGKILL session daemon $SPID" ;;
	stop-consumer) what="SIGSTOP consumer $CPID for $ms ms" ;;
	stop-sessiond) what="SIGSTOP session daemon $SPID for $ms ms" ;;
	esac
	printf 'fault %d at %d.%03d s (%d.%03d): %s\n' "$nfaults" $((at / 1000)) $((at % 1000)) \
		$((NOW / 1000)) $((NOW % 1000)) "$what" | tee -a "$WORK/faults"
	case $kind in
	kill-consumer) kill_consumer ;;
	kill-sessiond) kill_sessiond ;;
	stop-consumer) stop_daemon consumer "$ms" ;;
	stop-sessiond) stop_daemon "session daemon" "$ms" ;;
	esac
	settle
	programs_alive
	now_ms
done

# everything continued and running: the programs end, then the session stops
settle
now_ms
t1=$NOW
for p in $APPS; do
	kill -TERM "$p" 2>/dev/null || true
done
for p in $APPS; do
	wait "$p" || chaos_fail "program $p failed: $(cat "$WORK"/app-*.err)"
done
APPS=
settle
"$TRACECTL" stop s >"$WORK/stop.out" 2>"$WORK/stop.err" || chaos_fail "stop failed: $(cat "$WORK/stop.err")"
"$TRACECTL" status s --format json >"$WORK/status" 2>"$WORK/status.err" ||
	chaos_fail "status failed: $(cat "$WORK/status.err")"
now_ms
t2=$NOW

# directories of the output that are no trace (no metadata), and what they hold
bare=$(find "$D" -mindepth 1 -maxdepth 1 -type d ! -exec test -e '{}/metadata' ';' -print)
bare_said="directories without metadata in the output: $(for d in $bare; do
	echo "$d: $(ls -A "$d" | tr '\n' ' ')"; done)"

# every event on disk once or counted; status's totals are on disk
"$CHECK" "$WORK/status" "$D" "$WORK"/app-*.out >"$WORK/check.out" 2>&1 || {
	cat "$WORK/check.out"
	[ -z "$bare" ] || echo "$bare_said"
	# what the daemons said of the processes that miss events
	for p in $(awk '/<--$/ { print $1 }' "$WORK/check.out" | head -n 20); do
		echo "--- pid $p in the daemons' logs:"
		grep -h "\[$p\]\|-$p: " "$SHMTRACE_HOME"/sessiond.log "$SHMTRACE_HOME"/consumerd.log |
			head -n 10 || echo "(nothing)"
	done
	chaos_fail "the trace does not hold every event once or counted"
}
last=$(tail -n 1 "$WORK/check.out")
read -r emitted disk lost < <(echo "$last" |
	sed -n 's/^chaos-check: emitted \([0-9]*\), on disk \([0-9]*\), counted lost \([0-9]*\),.*/\1 \2 \3/p')
[ -n "$lost" ] || chaos_fail "chaos-check said: $last"
sed '$d' "$WORK/check.out"

# nothing else in the output: a directory there is a trace
[ -z "$bare" ] || chaos_fail "$bare_said"

# trace-read and babeltrace2 read it all, without error
n=$("$TRACE_READ" "$D" 2>"$WORK/tr.err" | wc -l) || chaos_fail "trace-read failed: $(grep -v WARNING "$WORK/tr.err" | head -5)"
! grep -v '^WARNING: [0-9]* events discarded in ' "$WORK/tr.err" ||
	chaos_fail "trace-read complained"
[ "$n" -eq "$disk" ] || chaos_fail "trace-read reads $n events, $disk are on disk"
# babeltrace2 merges with a cost per event that grows with the number of
# traces merged: the large traces are read alone, the others 50 at a time
bt_read() {
	local n
	"$BT" "$@" -c sink.utils.counter -p step=+0 >"$WORK/bt.out" 2>"$WORK/bt.err" ||
		chaos_fail "babeltrace2 failed on $*: $(head -5 "$WORK/bt.err")"
	[ ! -s "$WORK/bt.err" ] || chaos_fail "babeltrace2 complained about $*: $(head -5 "$WORK/bt.err")"
	n=$(sed -n 's/^ *\([0-9]*\) Event messages$/\1/p' "$WORK/bt.out" | tail -n 1)
	[ -n "$n" ] || chaos_fail "babeltrace2 counted nothing in $*"
	bt_events=$((bt_events + n))
}
bt_events=0
small=()
while read -r kib dir; do
	if [ "$kib" -ge 8192 ]; then
		bt_read "$dir"
		continue
	fi
	small+=("$dir")
	[ "${#small[@]}" -lt 50 ] || { bt_read "${small[@]}"; small=(); }
done < <(find "$D" -mindepth 1 -maxdepth 1 -type d -exec du -sk {} +)
[ "${#small[@]}" -eq 0 ] || bt_read "${small[@]}"
[ "$bt_events" = "$disk" ] || chaos_fail "babeltrace2 reads $bt_events events, $disk are on disk"
"$TRACECTL" destroy s >/dev/null || chaos_fail "destroy failed"
now_ms
echo "chaos: $(grep -c ': SIGKILL consumer' "$WORK/faults" || true) consumers killed," \
	"$(grep -c ': SIGKILL session daemon [0-9]*$' "$WORK/faults" || true) session daemons killed," \
	"$(grep -c ': SIGSTOP consumer' "$WORK/faults" || true) consumers stopped," \
	"$(grep -c ': SIGSTOP session daemon' "$WORK/faults" || true) session daemons stopped"
echo "chaos: faults for $(((t1 - t0) / 1000)) s, programs ended and session stopped in" \
	"$(((t2 - t1) / 1000)) s, trace checked and read in $(((NOW - t2) / 1000)) s" \
	"($(du -sm "$D" | cut -f1) MiB)"
echo "chaos: $nfaults faults, emitted $emitted, on disk $disk, counted lost $lost, duplicates 0, unaccounted 0"
