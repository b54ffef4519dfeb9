# SPDX-License-Identifier: MIT
# bench/common.sh - what every benchmark shares: messages, the daemons of
# shmtrace and of LTTng started and stopped by pid (never by name), the
# results file and medians. Source it after setting `name` (the prefix of
# messages) and `build` (the shmtrace build tree).
#
# Results are lines "REP WHAT KEY VALUE" in the file $res, filed by record
# with the repetition in $rep; vals and med read them back.

log() { printf '%s\n' "$*" >&2; }
die() { log "$name: $*"; exit 1; }

# wait_pids PID...: wait up to 10 s for each to exit
wait_pids() {
	local p
	for p in "$@"; do
		for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -0 "$p" 2>/dev/null && log "warning: process $p still runs"
	done
	return 0
}

# ---- shmtrace's daemons -----------------------------------------------------------

shm_home=""	# where the running daemons keep their pid files
CONSUMERD_PID=""

# shm_daemons_start HOME LOG: trace-sessiond --daemonize in HOME, made if
# need be (it starts trace-consumerd; both write their pid files there),
# its messages in LOG. Sets SHMTRACE_HOME and CONSUMERD_PID; returns 1 when
# a daemon does not start.
shm_daemons_start() {
	export SHMTRACE_HOME=$1 SHMTRACE_SESSIOND=$build/trace-sessiond \
		SHMTRACE_CONSUMERD=$build/trace-consumerd
	unset SHMTRACE_SIGNAL
	mkdir -p "$SHMTRACE_HOME"
	chmod 700 "$SHMTRACE_HOME"
	shm_home=$SHMTRACE_HOME
	"$build/trace-sessiond" --daemonize >"$2" 2>&1 || return 1
	for _ in $(seq 50); do
		if [ -s "$SHMTRACE_HOME/consumerd.pid" ]; then
			CONSUMERD_PID=$(cat "$SHMTRACE_HOME/consumerd.pid")
			return 0
		fi
		sleep 0.1
	done
	return 1
}

# shm_daemons_stop: SIGTERM to the session daemon (which flushes and stops
# its consumer), then wait for both
shm_daemons_stop() {
	local s c
	[ -n "$shm_home" ] || return 0
	s=$(cat "$shm_home/sessiond.pid" 2>/dev/null || true)
	c=$(cat "$shm_home/consumerd.pid" 2>/dev/null || true)
	shm_home=""
	[ -n "$s" ] && kill -TERM "$s" 2>/dev/null
	wait_pids $s $c
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
	lttng-sessiond --daemonize --no-kernel --pidfile "$lttng_pidfile" >"$2" 2>&1 || return 1
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

# stream_bytes DIR: bytes of the trace's stream files (no metadata, no index)
stream_bytes() {
	find "$1" -type f ! -name metadata ! -path '*/index/*' -printf '%s\n' |
		awk '{ s += $1 } END { print s + 0 }'
}
meta_bytes() {
	find "$1" -type f -name metadata -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'
}
