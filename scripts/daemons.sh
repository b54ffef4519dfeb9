# SPDX-License-Identifier: MIT
# scripts/daemons.sh - starting and stopping the daemons of shmtrace
# (trace-sessiond and the trace-consumerd it starts) of one SHMTRACE_HOME,
# by pid, never by name. Sourced (bash) by the integration tests
# (tests/integration/lib.sh), the benchmarks (bench/common.sh) and demo.sh.
#
# The daemons of a home write their pids to sessiond.pid and consumerd.pid
# there, and remove them when they exit. trace-sessiond --daemonize returns
# once it accepts connections; trace-consumerd writes its pid file once it
# is ready. SIGTERM to the session daemon flushes its active sessions,
# stops its consumer and makes both exit.
#
# The functions work under set -euo pipefail and return a status instead
# of exiting; none of them prints anything.

# shmtrace_daemons_env BINDIR HOME: the programs this shell starts use the
# daemons of BINDIR in HOME: exports SHMTRACE_HOME, SHMTRACE_SESSIOND and
# SHMTRACE_CONSUMERD (the daemons tracectl starts when none runs), and
# unsets SHMTRACE_SIGNAL (the traced programs take the default doorbell).
shmtrace_daemons_env() {
	export SHMTRACE_HOME=$2 SHMTRACE_SESSIOND=$1/trace-sessiond \
		SHMTRACE_CONSUMERD=$1/trace-consumerd
	unset SHMTRACE_SIGNAL
}

# shmtrace_daemon_pid NAME [HOME]: the pid in HOME's NAME.pid (NAME:
# sessiond or consumerd; HOME: default $SHMTRACE_HOME), nothing when none
shmtrace_daemon_pid() {
	local f=${2:-${SHMTRACE_HOME:-}}/$1.pid
	[ ! -f "$f" ] || cat "$f" 2>/dev/null || true
}

# shmtrace_wait_gone PID [TENTHS]: wait up to TENTHS tenths of a second
# (default 100) for PID to exit; returns 1 when it still runs
shmtrace_wait_gone() {
	local i
	for ((i = 0; i < ${2:-100}; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	! kill -0 "$1" 2>/dev/null
}

# shmtrace_daemons_wait HOME [TENTHS [OLD]]: wait up to TENTHS tenths of a
# second (default 50) until HOME's consumer daemon runs and has written
# its pid file (a pid other than OLD: the consumer that the session daemon
# starts again after OLD died). Sets SESSIOND_PID and CONSUMERD_PID;
# returns 1 when no consumer came.
shmtrace_daemons_wait() {
	local i p
	for ((i = 0; i < ${2:-50}; i++)); do
		p=$(shmtrace_daemon_pid consumerd "$1")
		if [ -n "$p" ] && [ "$p" != "${3:-}" ] && kill -0 "$p" 2>/dev/null; then
			CONSUMERD_PID=$p
			SESSIOND_PID=$(shmtrace_daemon_pid sessiond "$1")
			return 0
		fi
		sleep 0.1
	done
	return 1
}

# shmtrace_daemons_start BINDIR HOME [LOG [WRAPPER...]]: BINDIR's
# trace-sessiond --daemonize in HOME (made, mode 700, if need be), which
# starts BINDIR's trace-consumerd; its messages go to LOG when LOG is not
# empty. WRAPPER, a command and its arguments, runs the daemon (it is
# given "BINDIR/trace-sessiond --daemonize" after them). Only the daemon
# has SHMTRACE_HOME=HOME in its environment: shmtrace_daemons_env sets
# this shell's. Then waits as shmtrace_daemons_wait; sets SESSIOND_PID
# and CONSUMERD_PID. Returns 1 when trace-sessiond does not start, 2 when
# trace-consumerd does not.
shmtrace_daemons_start() {
	local bindir=$1 home=$2 log=${3:-}

	shift 2
	[ $# -eq 0 ] || shift
	mkdir -p "$home" && chmod 700 "$home" || return 1
	if [ -n "$log" ]; then
		SHMTRACE_HOME=$home SHMTRACE_CONSUMERD=$bindir/trace-consumerd \
			"$@" "$bindir/trace-sessiond" --daemonize >"$log" 2>&1 || return 1
	else
		SHMTRACE_HOME=$home SHMTRACE_CONSUMERD=$bindir/trace-consumerd \
			"$@" "$bindir/trace-sessiond" --daemonize || return 1
	fi
	SESSIOND_PID=$(shmtrace_daemon_pid sessiond "$home")
	shmtrace_daemons_wait "$home" || return 2
}

# shmtrace_daemon_is PID NAME: PID is a running trace-NAME (a pid file
# left by a daemon that died may name another process by now)
shmtrace_daemon_is() {
	[ "$(cat "/proc/$1/comm" 2>/dev/null)" = "trace-$2" ]
}

# shmtrace_daemons_stop HOME: SIGTERM to HOME's session daemon, then wait
# up to 10 s for it and as long for its consumer; one that still runs then
# gets SIGKILL, its pid in SHMTRACE_KILLED. A daemon that exits on its own
# removes its pid file: a pid file left then names one that died another
# way (a crash, SIGKILL), as NAME:PID in SHMTRACE_UNCLEAN. Returns 1 when
# either is not empty. Nothing to do without HOME or pid files.
shmtrace_daemons_stop() {
	local s c p n

	SHMTRACE_KILLED="" SHMTRACE_UNCLEAN=""
	[ -n "${1:-}" ] || return 0
	s=$(shmtrace_daemon_pid sessiond "$1")
	c=$(shmtrace_daemon_pid consumerd "$1")
	shmtrace_daemon_is "$s" sessiond || s=""
	shmtrace_daemon_is "$c" consumerd || c=""
	[ -z "$s" ] || kill -TERM "$s" 2>/dev/null || true
	for p in $s $c; do
		shmtrace_wait_gone "$p" && continue
		kill -KILL "$p" 2>/dev/null || true
		shmtrace_wait_gone "$p" 50 || true
		SHMTRACE_KILLED="${SHMTRACE_KILLED:+$SHMTRACE_KILLED }$p"
	done
	for n in sessiond consumerd; do
		p=$(shmtrace_daemon_pid "$n" "$1")
		[ -z "$p" ] || SHMTRACE_UNCLEAN="${SHMTRACE_UNCLEAN:+$SHMTRACE_UNCLEAN }$n:$p"
	done
	[ -z "$SHMTRACE_KILLED" ] && [ -z "$SHMTRACE_UNCLEAN" ]
}

# shmtrace_daemons_cleanup HOME: shmtrace_daemons_stop HOME, then HOME
# removed; returns as shmtrace_daemons_stop
shmtrace_daemons_cleanup() {
	local rc=0

	[ -n "${1:-}" ] || return 0
	shmtrace_daemons_stop "$1" || rc=$?
	rm -rf "$1"
	return "$rc"
}
