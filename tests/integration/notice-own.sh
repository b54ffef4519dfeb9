#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A notice is kept only when it is about its sender's own process: a
# registered process that forges well-formed notices about pid 1, about
# its parent, and about a uid change of its child sees them refused
# (logged, counted in status), its connection kept; its notices about
# itself and about its child running a program (as a vfork child does)
# are kept. The notices of real programs (vfork included) still are.
. "$(dirname "$0")/lib.sh"
start_daemons
new_session "$WORK/out" 'shmtrace_test:*'

mkfifo "$WORK/nc.in" "$WORK/nc.out"
"$B/tests/apps/notice-client" forge <"$WORK/nc.in" >"$WORK/nc.out" 2>"$WORK/nc.err" &
ncpid=$!
exec {NCIN}>"$WORK/nc.in"
read -r _ own _ child <"$WORK/nc.out" || fail "notice-client said nothing: $(cat "$WORK/nc.err")"
[ "$own" = "$ncpid" ] || fail "notice-client says it is $own, not $ncpid"
# its notices are read in order: once the last (its own) is kept, all were
for _ in $(seq 200); do
	status_json "$WORK/status.json" s
	[ "$(jget_or none "$WORK/status.json" sessions s notices path=/shmtrace/own path)" != none ] && break
	sleep 0.1
done
echo go >&"$NCIN"
exec {NCIN}>&-
wait "$ncpid" || fail "the daemon closed the connection of refused notices: $(cat "$WORK/nc.err")"

notice() {	# notice FILE PATH FIELD
	jget "$1" sessions s notices "path=$2" "$3"
}
[ "$(notice "$WORK/status.json" /shmtrace/own pid)" = "$own" ] &&
	[ "$(notice "$WORK/status.json" /shmtrace/own kind)" = static ] ||
	fail "its own notice is not kept: $(cat "$WORK/status.json")"
[ "$(notice "$WORK/status.json" /shmtrace/child pid)" = "$child" ] &&
	[ "$(notice "$WORK/status.json" /shmtrace/child kind)" = static ] ||
	fail "the notice about its child's program is not kept: $(cat "$WORK/status.json")"
[ "$(jget "$WORK/status.json" sessions s notices '*' path | grep -c forged)" -eq 0 ] ||
	fail "a forged notice is kept: $(cat "$WORK/status.json")"
[ "$(jget "$WORK/status.json" sessions s notices_refused)" = 3 ] ||
	fail "the refused notices are not counted: $(cat "$WORK/status.json")"
[ "$(grep -c "notice about pid .* refused: not its own process" "$SHMTRACE_HOME/sessiond.log")" -eq 3 ] ||
	fail "the refused notices are not logged: $(grep notice "$SHMTRACE_HOME/sessiond.log")"
grep -q "notice about pid 1 refused: not its own process (/shmtrace/forged-1;" \
	"$SHMTRACE_HOME/sessiond.log" || fail "pid 1 not named in the log"
kill -0 "$SESSIOND_PID" || fail "the session daemon died"
echo "ok: 3 forged notices refused and counted, the sender's own two kept"

# real notices, vfork's included, are still kept
STATIC=$B/tests/apps/static-exit
BIN=$WORK/bin
mkdir -p "$BIN"
touch "$BIN/not-executable"
for w in execve execv execvp execvpe execl execlp execle execveat fexecve posix_spawn posix_spawnp \
	vfork system popen; do
	ln -s "$STATIC" "$BIN/prog-$w"
done
LD_PRELOAD=$B/.libs/libshmtrace.so "$B/tests/apps/spawn-app" "$BIN" >/dev/null ||
	fail "spawn-app with LD_PRELOAD failed"
status_json "$WORK/status2.json" s || fail "status failed"
for w in execve posix_spawn vfork system; do
	[ "$(notice "$WORK/status2.json" "$BIN/prog-$w" kind)" = static ] ||
		fail "$w: no notice: $(cat "$WORK/status2.json")"
done
[ "$(jget "$WORK/status2.json" sessions s notices_refused)" = 3 ] ||
	fail "a real notice was refused: $(cat "$WORK/status2.json")"
echo "ok: the notices of real programs kept (exec, posix_spawn, vfork, system)"
