# SPDX-License-Identifier: MIT
# Sourced by the tests that read LTTng's own traces (after lib.sh): an
# lttng-sessiond of the test's own, run as nobody with its LTTNG_HOME in a
# directory of the test, so that it meets neither another test's nor
# anyone's root session daemon; the traced programs run as the same user
# with the same LTTNG_HOME. The daemon is stopped by pid at the end.
# Skips the test (exit 77) where lttng-sessiond cannot run.

command -v lttng >/dev/null 2>&1 && command -v lttng-sessiond >/dev/null 2>&1 ||
	{ echo "lttng-tools not installed: skipped"; exit 77; }
[ -x "$B/tests/apps/lttng-types" ] ||
	{ echo "built without liblttng-ust (no tests/apps/lttng-types): skipped"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "not root (cannot run lttng-sessiond as nobody): skipped"; exit 77; }
command -v setpriv >/dev/null || { echo "setpriv not installed: skipped"; exit 77; }
id -u nobody >/dev/null 2>&1 || { echo "no user nobody: skipped"; exit 77; }

scratch_dir LT
mkdir -p "$LT/home" "$LT/out"
chown nobody "$LT/home" "$LT/out"
AS_LT="setpriv --reuid=nobody --regid=nogroup --clear-groups env LTTNG_HOME=$LT/home"
LT_PID=
LT_KIDS=

# lt_stop: the session daemon and its consumers, by pid
lt_stop() {
	local p
	[ -n "$LT_PID" ] || return 0
	LT_KIDS="$LT_KIDS $(ps -o pid= --ppid "$LT_PID" 2>/dev/null || true)"
	kill -TERM "$LT_PID" 2>/dev/null || true
	for p in $LT_PID $LT_KIDS; do
		shmtrace_wait_gone "$p" || kill -KILL "$p" 2>/dev/null || true
	done
	LT_PID=
}
trap 'lt_rc=$?; lt_stop; (exit $lt_rc); cleanup' EXIT

# lt_start: the session daemon (user space only)
lt_start() {
	$AS_LT lttng-sessiond --daemonize --no-kernel --pidfile "$LT/home/sessiond.pid" \
		>"$WORK/lttng-sessiond.log" 2>&1 ||
		{ echo "lttng-sessiond cannot run here: skipped ($(tail -n 2 "$WORK/lttng-sessiond.log"))"; exit 77; }
	LT_PID=$(cat "$LT/home/sessiond.pid")
	# its consumers, known while it runs (they go with it)
	LT_KIDS=
}

# lt CMD...: lttng as nobody, quiet, failing the test when it fails
lt() {
	$AS_LT lttng "$@" >"$WORK/lttng.out" 2>&1 || fail "lttng $*: $(tail -n 3 "$WORK/lttng.out")"
}

# lt_session NAME: a new session writing into $LT/out/NAME
lt_session() {
	lt create "$1" --output="$LT/out/$1"
}

# lt_channel [OPTION...]: channel "ch" of the current session, 8 x 1 MiB
# per CPU: room for every event of the tests' programs, however slowly
# the consumer drains on a loaded machine
lt_channel() {
	lt enable-channel -u --subbuf-size 1M --num-subbuf 8 "$@" ch
}

# lt_run CMD...: a traced program, as nobody with the test's LTTNG_HOME
lt_run() {
	$AS_LT "$@"
}

# lt_canon FMT FILE: babeltrace2's (bt) or trace-read's (tr) text output
# in one canonical line per event: "S.NS NAME f=v f=v ...", every field
# group (packet context, contexts, payload) in order, as in read-compare.sh,
# enumerations as "LABEL:N" (<unknown>:N without a label).
lt_canon() {
	local dir
	dir=$(dirname "${BASH_SOURCE[0]}")
	awk -v fmt="$1" -v digits=6 -f "$dir/canon-lib.awk" -f "$dir/lttng-canon.awk" "$2"
}
