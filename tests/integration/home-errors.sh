#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A SHMTRACE_HOME that cannot be used is refused with what was found and
# the fix: open to others (its mode, and chmod 700), a symbolic link, a
# path that cannot be made (the error); record says the same as the other
# verbs; the session daemon logs the mode and owner found and exits 1.
. "$(dirname "$0")/lib.sh"
# refused ENV VALUE STATUS ERE ARGS...: tracectl ARGS with SHMTRACE_HOME=VALUE
# exits STATUS and says ERE
refused() {
	local h=$1 want=$2 re=$3 st=0
	shift 3
	SHMTRACE_HOME=$h "$TRACECTL" "$@" >"$WORK/out" 2>"$WORK/err" || st=$?
	[ "$st" -eq "$want" ] && grep -Eq -- "$re" "$WORK/err" ||
		fail "tracectl $* with SHMTRACE_HOME=$h: status $st (want $want): $(cat "$WORK/err")"
}
H=$WORK/open
mkdir -m 0750 "$H"
refused "$H" 1 "mode 0750.*chmod 700 $H$" list
refused "$H" 1 "mode 0750.*chmod 700 $H$" create s
# record: the same words, its own status for a failure before CMD runs
refused "$H" 125 "mode 0750.*chmod 700 $H$" record -- true
ln -s "$WORK" "$WORK/link"
refused "$WORK/link" 1 "$WORK/link is not a directory \(a symbolic link\)" status
: >"$WORK/file"
refused "$WORK/file/home" 1 "$WORK/file/home cannot be made: $(
	python3 -c 'import os; print(os.strerror(20))' 2>/dev/null || echo 'Not a directory')" list
# the fix said is the fix: this test's own home, opened then closed again
chmod 755 "$SHMTRACE_HOME"
refused "$SHMTRACE_HOME" 1 "mode 0755.*chmod 700 $SHMTRACE_HOME$" list
chmod 700 "$SHMTRACE_HOME"
start_daemons
"$TRACECTL" list >/dev/null || fail "tracectl list after chmod 700 failed"
# the session daemon: status 1, the mode and owner found in its log line
chmod 755 "$H"
st=0
SHMTRACE_HOME=$H "$B/trace-sessiond" >"$WORK/out" 2>"$WORK/err" || st=$?
[ "$st" -eq 1 ] && grep -Eq "SHMTRACE_HOME $H: .*found mode 0755, uid $(id -u)" "$WORK/err" ||
	fail "trace-sessiond: status $st: $(cat "$WORK/err")"
echo "ok"
