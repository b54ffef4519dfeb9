#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A session daemon that exits (SIGTERM) while the next one starts (the
# next tracectl command starts it at once) removes nothing of its
# successor's: the new daemon answers, and its socket and pid file are
# there once the old one is gone.
. "$(dirname "$0")/lib.sh"
start_daemons
for i in 1 2 3 4 5; do
	"$TRACECTL" create "s$i" --output "$WORK/out$i" >/dev/null || fail "create s$i"
	old=$SESSIOND_PID
	kill -TERM "$old"
	"$TRACECTL" create "t$i" --output "$WORK/t$i" >/dev/null 2>"$WORK/err" ||
		fail "create after the SIGTERM: $(cat "$WORK/err")"
	shmtrace_wait_gone "$old" || fail "the old daemon $old does not exit"
	SESSIOND_PID=$(shmtrace_daemon_pid sessiond)
	[ -n "$SESSIOND_PID" ] && [ "$SESSIOND_PID" != "$old" ] ||
		fail "round $i: no pid file of the new daemon"
	kill -0 "$SESSIOND_PID" || fail "round $i: the pid file names no process"
	[ -S "$SHMTRACE_HOME/sessiond.sock" ] || fail "round $i: the new daemon's socket is gone"
	# (t$i went to the old daemon or to the new one: either may hold it)
	ctl_json "$WORK/list.json" list || fail "round $i: the new daemon does not answer"
	[ "$(shmtrace_daemon_pid sessiond)" = "$SESSIOND_PID" ] || fail "round $i: a third daemon"
	[ "$(jget_or none "$WORK/list.json" sessions "t$i" name)" = none ] ||
		"$TRACECTL" destroy "t$i" >/dev/null || fail "destroy t$i"
done
echo "ok"
