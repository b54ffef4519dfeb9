# SPDX-License-Identifier: MIT
# Common set-up of the integration tests: a private SHMTRACE_HOME, the
# daemons of the build tree started and stopped by pid (scripts/daemons.sh),
# helpers.
set -euo pipefail
# A command that ends the test through set -e names itself (cleanup says it)
set -o errtrace
trap 'ERR_AT="${BASH_SOURCE[0]##*/}:$LINENO: $BASH_COMMAND (exit $?)"' ERR

: "${top_builddir:?run through make check}"
B=$top_builddir
TRACECTL=$B/tracectl
TRACE_READ=$B/trace-read
GEN=$B/tests/apps/gen-events
BT=${BABELTRACE2:-babeltrace2}
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/daemons.sh"
SHMTRACE_HOME=$(mktemp -d "${TMPDIR:-/tmp}/shmtrace-test.XXXXXX")
shmtrace_daemons_env "$B" "$SHMTRACE_HOME"
WORK=$SHMTRACE_HOME/work
mkdir -p "$WORK"
# A program waits this long at start-up for the session daemon to enable
# its events (200 ms by default): the exact counts of the tests must not
# depend on how loaded the machine is. A test of the wait itself sets its own.
export SHMTRACE_REGISTER_TIMEOUT=${SHMTRACE_REGISTER_TIMEOUT:-10000}
# Sanitizer reports of every program of the test (daemons included, whose
# standard error is /dev/null) go to files that teardown reads: a test that
# makes one fails. Any uid may write there (tests run programs as nobody).
SAN_DIR=$(mktemp -d "${TMPDIR:-/tmp}/shmtrace-san.XXXXXX")
chmod 1777 "$SAN_DIR"
for v in ASAN_OPTIONS UBSAN_OPTIONS TSAN_OPTIONS LSAN_OPTIONS; do
	export "$v=${!v:+${!v}:}log_path=$SAN_DIR/report"
done
unset v

fail() {
	echo "FAIL: $*" >&2
	for f in "$SHMTRACE_HOME"/*.log; do
		[ -f "$f" ] && { echo "--- $f" >&2; tail -n 20 "$f" >&2; }
	done
	exit 1
}

# start_daemons: the daemons of the build in $SHMTRACE_HOME; sets
# SESSIOND_PID and CONSUMERD_PID
start_daemons() {
	local rc=0
	shmtrace_daemons_start "$B" "$SHMTRACE_HOME" || rc=$?
	[ "$rc" -ne 1 ] || fail "trace-sessiond did not start"
	[ "$rc" -eq 0 ] || fail "trace-consumerd did not start"
}

# Teardown is an assertion (cleanup, stop_daemons): the daemons must exit
# within 10 s of SIGTERM, by their own clean exit (which removes their pid
# files), and their logs must hold no error, sanitizer report or line that
# is not a log line. A test that provokes some on purpose says which:
#   expect_log ERE...    error lines it causes (disk full, bad messages...)
#   kill_daemon SIG PID  a daemon it kills (its pid file stays; the session
#                        daemon logs a consumer's death as an error, and a
#                        request the consumer died in the middle of)
EXPECT_LOG=()
KILLED_PIDS=" "

expect_log() {
	EXPECT_LOG+=("$@")
}

kill_daemon() {
	KILLED_PIDS="$KILLED_PIDS$2 "
	if shmtrace_daemon_is "$2" consumerd; then
		EXPECT_LOG+=("error: consumer daemon $2 exited( |$)" "error: bad reply from the consumer$"
			     "error: consumer request [0-9]+: (Broken pipe|Connection reset by peer)$")
	fi
	kill -"$1" "$2"
}

# daemons_down HOME: stop HOME's daemons; says on standard error what went
# wrong and returns 1 then
daemons_down() {
	local x p bad=0
	shmtrace_daemons_stop "$1" && return 0
	for p in $SHMTRACE_KILLED; do
		echo "FAIL: daemon $p still ran 10 s after SIGTERM (killed)" >&2
		bad=1
	done
	for x in $SHMTRACE_UNCLEAN; do
		p=${x#*:}
		case $KILLED_PIDS in
		*" $p "*) continue ;;
		esac
		echo "FAIL: trace-${x%:*} $p died without its clean exit (its pid file is left)" >&2
		bad=1
	done
	return $bad
}

# log_failures HOME: the lines of HOME's daemon logs that say something
# went wrong and that the test did not expect; with SHMTRACE_CONSUMER_WORKERS
# set (check.sh runs the suite with 1 and with 4), a consumer's start-up
# line with another count of workers
log_failures() {
	local f e w pats=()
	for e in "${EXPECT_LOG[@]}"; do
		pats+=(-e "$e")
	done
	for f in "$1/sessiond.log" "$1/consumerd.log"; do
		[ -f "$f" ] || continue
		grep -Ev '^[0-9]+\.[0-9]{6} trace-(sessiond|consumerd)\[[0-9]+\] (info|warning|debug): ' "$f" |
			{ if [ ${#pats[@]} -gt 0 ]; then grep -Ev "${pats[@]}"; else cat; fi; } |
			sed "s|^|${f##*/}: |" || true
	done
	if [ -n "${SHMTRACE_CONSUMER_WORKERS:-}" ] && [ -f "$1/consumerd.log" ]; then
		w=$SHMTRACE_CONSUMER_WORKERS
		[ "$w" -gt 1 ] || w=0
		grep ' info: started (' "$1/consumerd.log" | grep -v " info: started ($w workers at most)" |
			sed "s|^|consumerd.log (SHMTRACE_CONSUMER_WORKERS=$SHMTRACE_CONSUMER_WORKERS): |" || true
	fi
}

# scratch_dir VAR: VAR names a new directory (mode 755) outside the home,
# which is 0700, for what another uid must reach; removed at the end
SCRATCH=
scratch_dir() {
	local d
	d=$(mktemp -d "${TMPDIR:-/tmp}/shmtrace-scratch.XXXXXX")
	chmod 755 "$d"
	SCRATCH="$SCRATCH $d"
	printf -v "$1" %s "$d"
}

# stop_daemons [HOME]: the daemons of HOME (default $SHMTRACE_HOME), by
# pid; fails when they do not go cleanly
stop_daemons() {
	daemons_down "${1:-$SHMTRACE_HOME}" || fail "the daemons did not exit cleanly"
}

# teardown: every daemon and relay stopped; 1 when a daemon did not go
# cleanly, logged an unexpected failure, or a program made a sanitizer report
teardown() {
	local h bad=0 lines
	for h in "$SHMTRACE_HOME" ${OTHER_HOMES:-}; do
		daemons_down "$h" || bad=1
		lines=$(log_failures "$h")
		if [ -n "$lines" ]; then
			echo "FAIL: unexpected lines in the daemons' logs of $h:" >&2
			echo "$lines" | head -n 20 >&2
			bad=1
		fi
	done
	stop_relays
	if [ -n "$(ls -A "$SAN_DIR")" ]; then
		echo "FAIL: sanitizer reports:" >&2
		cat "$SAN_DIR"/* | head -n 40 >&2
		bad=1
	fi
	return $bad
}

cleanup() {
	local rc=$?
	trap - EXIT ERR
	[ "$rc" -eq 0 ] || [ -z "${ERR_AT:-}" ] || echo "FAIL: $ERR_AT" >&2
	if ! teardown && [ $rc -eq 0 ]; then
		rc=1
	fi
	rm -rf "$SAN_DIR" $SCRATCH
	if [ $rc -ne 0 ] && [ -n "${SHMTRACE_TEST_KEEP:-}" ]; then
		echo "kept $SHMTRACE_HOME" >&2
	else
		rm -rf "$SHMTRACE_HOME"
	fi
	exit $rc
}
trap cleanup EXIT

# python_env: PY, the python of the package's tests (configure's
# TEST_PYTHON), reading the package of the source tree through the
# library of the build; 1 when that python has no numpy
python_env() {
	PY=${TEST_PYTHON:-/usr/bin/python3}
	"$PY" -c 'import numpy' 2>/dev/null || return 1
	export PYTHONPATH=$top_srcdir/python
	export SHMTRACE_READER_LIB=$B/.libs/libshmtrace-reader.so
}

# record_types DIR N: session s records in DIR gen-events -T (every field
# type, N events in each of 2 threads) with the ip and cpu_id contexts and
# the state dump, then stops
record_types() {
	"$TRACECTL" create s --output "$1" >/dev/null
	"$TRACECTL" add-context -s s -t ip -t cpu_id >/dev/null
	"$TRACECTL" enable-event -s s 'shmtrace_test:*' 'shmtrace_statedump:*' >/dev/null
	"$TRACECTL" start s >/dev/null
	"$GEN" -n "$2" -t 2 -s 5 -T || fail "gen-events failed"
	"$TRACECTL" stop s >/dev/null
}

need_babeltrace() {
	command -v "$BT" >/dev/null 2>&1 || { echo "babeltrace2 not installed: skipped"; exit 77; }
}

# count_events DIR NAME: events named NAME that babeltrace2 reads, with no
# warning or error on its standard error.
bt_count() {
	"$BT" "$1" >"$WORK/bt.out" 2>"$WORK/bt.err" || fail "babeltrace2 failed: $(head -5 "$WORK/bt.err")"
	[ ! -s "$WORK/bt.err" ] || fail "babeltrace2 complained: $(head -5 "$WORK/bt.err")"
	grep -c " $2: " "$WORK/bt.out" || true
}

# bt_read DIR: babeltrace2's text of DIR into $WORK/bt.out; its only
# complaints may be the events the trace says were discarded, whose sum
# is BT_DISC
bt_read() {
	"$BT" "$1" >"$WORK/bt.out" 2>"$WORK/bt.err" || fail "babeltrace2 failed: $(head -5 "$WORK/bt.err")"
	! grep -qv "^WARNING: Tracer discarded [0-9]* events\? between " "$WORK/bt.err" ||
		fail "babeltrace2 complained: $(grep -v "^WARNING: Tracer discarded" "$WORK/bt.err" | head -5)"
	BT_DISC=$(sed -n 's/^WARNING: Tracer discarded \([0-9]*\) events\? between .*/\1/p' "$WORK/bt.err" |
		awk '{ s += $1 } END { print s + 0 }')
}

# thread/seq pairs of shmtrace_test:event lines in a text file
seq_pairs() {
	sed -n 's/.*shmtrace_test:event: .*seq = \([0-9]*\), thread = \([0-9]*\),.*/\2 \1/p' "$1"
}

# check_seqs FILE THREADS COUNT: every thread's seq 0..COUNT-1 exactly once
check_seqs() {
	local n
	n=$(seq_pairs "$1" | sort -u | wc -l)
	[ "$n" -eq $(($2 * $3)) ] || fail "$1: $n distinct (thread, seq), expected $(($2 * $3))"
	n=$(seq_pairs "$1" | wc -l)
	[ "$n" -eq $(($2 * $3)) ] || fail "$1: $n events, expected $(($2 * $3))"
	seq_pairs "$1" | awk -v T="$2" -v C="$3" '
		$1 >= T || $2 >= C { bad = 1 }
		END { exit bad }' || fail "$1: thread or seq out of range"
}

# check_seqs_lossy FILE THREADS COUNT DISC: THREADS threads emitted seq
# 0..COUNT-1 each and DISC events were discarded: every (thread, seq) of
# FILE is in range, at most once, each thread's in increasing order, and
# the events and DISC make up what was emitted; with DISC 0, check_seqs
check_seqs_lossy() {
	local n
	if [ "$4" -eq 0 ]; then
		check_seqs "$1" "$2" "$3"
		return
	fi
	seq_pairs "$1" | awk -v T="$2" -v C="$3" '
		$1 >= T || $2 >= C { print "thread " $1 " seq " $2 " out of range"; exit 1 }
		($1 in last) && $2 <= last[$1] { print "thread " $1 ": seq " $2 " after " last[$1]; exit 1 }
		{ last[$1] = $2 }' >&2 || fail "$1: events repeated, out of order or out of range"
	n=$(seq_pairs "$1" | wc -l)
	[ $((n + $4)) -eq $(($2 * $3)) ] || fail "$1: $n events + $4 discarded, expected $(($2 * $3))"
}

# What tracectl says is read from its JSON (--format json, doc/json.md),
# never from its words:
#   jget FILE STEP...      a value of the document in FILE (json-get.py:
#                          KEY, NAME or KEY=VALUE in an array, '*', '#')
#   jsum FILE STEP...      the sum of the values STEP... ('*' in them)
#   jget_or DEFAULT FILE STEP...  the value, or DEFAULT when there is none
#   ctl_json FILE ARGS...  tracectl ARGS --format json >FILE; its status
#   status_json FILE [SESSION]  tracectl status [SESSION] in FILE; its status
#   status_field SESSION CHANNEL FIELD  a counter (or setting) of a channel,
#                          from a status made now
#   status_sum FILE SESSION FIELD  FIELD summed over the session's channels
#   error_code FILE        the code of the error of the document ("" when none)
#   registered PID         is process PID registered (tracectl list-events)?
#   nsessions              the number of sessions (tracectl list)
JSON_GET=$(dirname "${BASH_SOURCE[0]}")/json-get.py
jget() {
	python3 "$JSON_GET" "$@" || fail "no $* (tracectl said: $(tail -c 600 "$1"))"
}
jget_or() {
	python3 "$JSON_GET" --default "$@" || fail "$2: not a JSON document: $(tail -c 600 "$2")"
}
jsum() {
	python3 "$JSON_GET" --sum "$@" || fail "no $* (tracectl said: $(tail -c 600 "$1"))"
}
ctl_json() {
	local f=$1
	shift
	"$TRACECTL" "$@" --format json >"$f"
}
status_json() {
	"$TRACECTL" status ${2:+"$2"} --format json >"$1"
}

# restart_sessiond JSON [SESSION]: SIGKILL to the session daemon; the
# status (of SESSION) written to JSON starts the next one, which resumes
# the sessions it saved and is then SESSIOND_PID
restart_sessiond() {
	local old=$SESSIOND_PID
	kill -KILL "$old" 2>/dev/null || true
	shmtrace_wait_gone "$old" || fail "session daemon $old still runs"
	status_json "$1" ${2:+"$2"} || fail "status after the restart failed"
	SESSIOND_PID=$(shmtrace_daemon_pid sessiond)
	[ -n "$SESSIOND_PID" ] && [ "$SESSIOND_PID" != "$old" ] || fail "no new session daemon"
}
status_field() {
	local st=0
	status_json "$WORK/status_field.json" "$1" || st=$?
	[ "$st" -le 1 ] || fail "status $1: exit $st"
	jget "$WORK/status_field.json" sessions "$1" channels "$2" "$3"
}
status_sum() {
	jsum "$1" sessions "$2" channels '*' "$3"
}
nsessions() {
	ctl_json "$WORK/nsessions.json" list || fail "tracectl list failed"
	jget "$WORK/nsessions.json" sessions '#'
}
registered() {
	ctl_json "$WORK/registered.json" list-events 2>/dev/null &&
		[ "$(jget_or none "$WORK/registered.json" processes "pid=$1" pid)" = "$1" ]
}
error_code() {
	python3 -c 'import json, sys
lines = [l for l in open(sys.argv[1]).read().splitlines() if l.strip()]
d = json.loads(lines[-1]) if lines else {}
print(d.get("error", {}).get("code", ""))' "$1"
}

# new_session DIR PATTERN...: session "s" writing to DIR, patterns enabled, started
new_session() {
	local dir=$1
	shift
	"$TRACECTL" create s --output "$dir" >/dev/null &&
		"$TRACECTL" enable-event -s s "$@" >/dev/null &&
		"$TRACECTL" start s >/dev/null || fail "cannot set up session s"
}

# buf_bytes PID: the bytes the buffer memfds of process PID hold in memory
buf_bytes() {
	local f n=0 b
	for f in /proc/"$1"/fd/*; do
		case $(readlink "$f" 2>/dev/null) in
		/memfd:shmtrace-buf*)
			b=$(stat -L -c '%b %B' "$f" 2>/dev/null) || continue
			n=$((n + ${b% *} * ${b#* }))
			;;
		esac
	done
	echo "$n"
}

# gen_bg TAG SAYS ARGS...: gen-events ARGS in the background, its standard
# input held open; returns once it printed SAYS ("ready" with -w, "done"
# with -W). Sets IDLE_PID. release_idle TAG lets it go on. PROG=... runs
# another test program the same way.
gen_bg() {
	local tag=$1 says=$2
	shift 2
	mkfifo "$WORK/in.$tag" "$WORK/out.$tag"
	"${PROG:-$GEN}" "$@" <"$WORK/in.$tag" >"$WORK/out.$tag" &
	IDLE_PID=$!
	# both ends held open for the program's life: a line it writes while
	# no reader is open would kill it with SIGPIPE
	eval "exec {IDLE_FD_$tag}>\"\$WORK/in.\$tag\" {OUT_FD_$tag}<\"\$WORK/out.\$tag\""
	gen_says "$tag" "$says"
}

# gen_says TAG LINE: the next line of gen_bg's program TAG is LINE; fails
# with the program's exit status when it ended instead
gen_says() {
	local line st=0 fd
	eval "fd=\$OUT_FD_$1"
	if ! read -r line <&"$fd"; then
		wait "$IDLE_PID" || st=$?
		fail "gen-events $1 ended (status $st) before saying '$2'"
	fi
	[ "$line" = "$2" ] || fail "gen-events $1 said '$line', not '$2'"
}

# gen_idle TAG ARGS...: every event emitted, its threads alive and idle
gen_idle() {
	local tag=$1
	shift
	gen_bg "$tag" done -W "$@"
}

# release_idle TAG: let a gen_idle process finish
release_idle() {
	eval "echo go >&\$IDLE_FD_$1; exec {IDLE_FD_$1}>&-"
}

# crash_test HOW: crash-events dies by HOW (kill, segv, abort) after each
# thread reported its last committed event; the trace holds seq 0..last
# for every thread and babeltrace2 reads it without error.
crash_test() {
	local how=$1 D=$WORK/out t last n want
	need_babeltrace
	start_daemons
	new_session "$D" 'shmtrace_test:*'
	ulimit -c 0
	"$B/tests/apps/crash-events" 4 "$how" >"$WORK/last" 2>/dev/null && fail "crash-events did not die"
	[ "$(wc -l <"$WORK/last")" -eq 4 ] || fail "$(wc -l <"$WORK/last") threads reported"
	"$TRACECTL" stop s >/dev/null
	"$TRACECTL" destroy s >/dev/null
	n=$(bt_count "$D" shmtrace_test:event)
	# each thread: seq 0..last, each exactly once; no other thread
	want=0
	while read -r t last; do
		seq_pairs "$WORK/bt.out" | awk -v t="$t" -v l="$last" '
			$1 == t { if ($2 > l) { print "seq " $2 " after " l; bad = 1; exit 1 }
				  if (seen[$2]++) { print "seq " $2 " twice"; bad = 1; exit 1 } k++ }
			END { if (!bad && k != l + 1) { print k " events of seq 0.." l; exit 1 } }' >&2 ||
			fail "thread $t: not exactly seq 0..$last in the trace"
		want=$((want + last + 1))
	done <"$WORK/last"
	[ "$n" -eq "$want" ] || fail "$n events in the trace, $want by the threads that reported"
	echo "ok: $n events, every thread complete up to its last commit ($how)"
}

# harsh_start TAG STEPS...: tests/apps/harsh-app STEPS in the background,
# its standard input and output held open by the test (HPID_TAG is its
# pid); harsh_expect TAG LINE reads its next line, harsh_go TAG lets it
# go on from "ready" or "done", harsh_wait TAG waits for it and sets
# HSTATUS to its exit status.
harsh_start() {
	local tag=$1
	shift
	mkfifo "$WORK/hin.$tag" "$WORK/hout.$tag"
	"$B/tests/apps/harsh-app" "$@" <"$WORK/hin.$tag" >"$WORK/hout.$tag" &
	eval "HPID_$tag=\$!"
	eval "exec {HIN_$tag}>\"\$WORK/hin.\$tag\""
	eval "exec {HOUT_$tag}<\"\$WORK/hout.\$tag\""
}

harsh_expect() {
	local line=
	eval "read -r -t 30 line <&\$HOUT_$1" || true
	[ "$line" = "$2" ] || fail "harsh-app $1 said '$line', expected '$2'"
}

harsh_go() {
	( trap '' PIPE; eval "echo go >&\$HIN_$1" ) 2>/dev/null ||
		fail "harsh-app $1 is gone (it did not read its input)"
}

harsh_wait() {
	HSTATUS=0
	eval "wait \$HPID_$1" || HSTATUS=$?
}

# listens PID PORT...: process PID has a listening TCP socket on each PORT
# (its own sockets, from /proc: a port that another test's process took
# between our choice and its bind would answer a connect just as well)
listens() {
	python3 - "$@" <<'PY'
import os, sys
pid, want = sys.argv[1], {int(p) for p in sys.argv[2:]}
own = set()
try:
    for fd in os.listdir("/proc/%s/fd" % pid):
        try:
            link = os.readlink("/proc/%s/fd/%s" % (pid, fd))
        except OSError:
            continue
        if link.startswith("socket:["):
            own.add(link[8:-1])
except OSError:
    sys.exit(1)
found = set()
for table in ("/proc/net/tcp", "/proc/net/tcp6"):
    try:
        lines = open(table).read().splitlines()[1:]
    except OSError:
        continue
    for line in lines:
        f = line.split()
        if f[3] == "0A" and f[9] in own:     # TCP_LISTEN
            found.add(int(f[1].rsplit(":", 1)[1], 16))
sys.exit(0 if want <= found else 1)
PY
}

# start_relay TAG: an lttng-relayd of our own on free loopback ports,
# writing under $WORK/relay.TAG; sets RELAY_PID, RELAY_CTRL, RELAY_DATA,
# RELAY_LIVE and RELAY_OUT. Ports are chosen free, then taken by the relay:
# it is ready once it listens on all three itself (else another process
# took one in between, and it starts again on others). Skips the test
# without lttng-relayd.
start_relay() {
	local tag=$1 ports i
	command -v lttng-relayd >/dev/null 2>&1 || { echo "lttng-relayd not installed: skipped"; exit 77; }
	RELAY_OUT=$WORK/relay.$tag
	mkdir -p "$RELAY_OUT" "$WORK/lttng-home.$tag"
	for i in $(seq 20); do
		ports=$(python3 -c 'import socket
s = [socket.socket() for _ in range(3)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))')
		set -- $ports
		RELAY_CTRL=$1 RELAY_DATA=$2 RELAY_LIVE=$3
		LTTNG_HOME=$WORK/lttng-home.$tag lttng-relayd -o "$RELAY_OUT" \
			-C "tcp://127.0.0.1:$RELAY_CTRL" -D "tcp://127.0.0.1:$RELAY_DATA" \
			-L "tcp://127.0.0.1:$RELAY_LIVE" >"$WORK/relayd.$tag.log" 2>&1 &
		RELAY_PID=$!
		RELAY_PIDS="${RELAY_PIDS:-} $RELAY_PID"
		for _ in $(seq 100); do
			kill -0 "$RELAY_PID" 2>/dev/null || break
			listens "$RELAY_PID" "$RELAY_CTRL" "$RELAY_DATA" "$RELAY_LIVE" && return 0
			sleep 0.1
		done
		kill "$RELAY_PID" 2>/dev/null || true
		wait "$RELAY_PID" 2>/dev/null || true
	done
	fail "lttng-relayd did not start: $(tail -3 "$WORK/relayd.$tag.log")"
}

# stop_relays: every relay this test started, by pid
stop_relays() {
	local p
	for p in ${RELAY_PIDS:-}; do
		kill -TERM "$p" 2>/dev/null || true
	done
	for p in ${RELAY_PIDS:-}; do
		shmtrace_wait_gone "$p" || kill -KILL "$p" 2>/dev/null || true
	done
	RELAY_PIDS=
}

# first_event FILE N: start gen-events emitting N events one every 10 ms
# (GEN_PID), then wait up to 4 s for an event line in FILE (written by a
# viewer); SEEN_MS is the time from the program's start to it ("" if none),
# GEN_RAN "yes" when the program still ran then.
first_event() {
	local t0
	t0=$(date +%s%N)
	"$GEN" -n "$2" -t 1 -e 10000 >/dev/null &
	GEN_PID=$!
	SEEN_MS=
	for _ in $(seq 400); do
		if grep -q "shmtrace_test:event" "$1"; then
			SEEN_MS=$(( ($(date +%s%N) - t0) / 1000000 ))
			break
		fi
		sleep 0.01
	done
	GEN_RAN=no
	kill -0 "$GEN_PID" 2>/dev/null && GEN_RAN=yes
	return 0
}
