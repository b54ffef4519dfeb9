#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Only the user who owns SHMTRACE_HOME controls tracing and reads buffers:
# a process of another uid can neither connect to the session daemon, nor
# open the shared memory of a traced process or of the daemons, nor read
# traces and logs. (A root daemon may let a session trace other uids
# explicitly: allow-uid.sh.)
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || { echo "not root: skipped"; exit 77; }
command -v setpriv >/dev/null || { echo "setpriv not installed: skipped"; exit 77; }
PY=/usr/bin/python3
[ -x "$PY" ] || { echo "$PY not installed: skipped"; exit 77; }
NOBODY=$(id -u nobody 2>/dev/null) || { echo "no user nobody: skipped"; exit 77; }
as_nobody() { setpriv --reuid="$NOBODY" --regid="$NOBODY" --clear-groups "$@"; }
# what nobody can do at all: run python, read a public file
as_nobody "$PY" -c 'print(1)' >/dev/null || fail "nobody cannot run $PY"
as_nobody cat /etc/passwd >/dev/null || fail "nobody cannot read a public file"
# the test's own directories must be reachable by nobody for what follows
chmod 755 "$SHMTRACE_HOME/.." 2>/dev/null || true

start_daemons
new_session "$WORK/out" 'shmtrace_test:*'
harsh_start a emit:100 done
harsh_expect a done
eval "pid=\$HPID_a"

# 1. the control socket
as_nobody "$PY" - "$SHMTRACE_HOME/sessiond.sock" <<'PY' && fail "nobody reached the socket"
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
try:
    s.connect(sys.argv[1])
    s.send(b"\0" * 16)
    sys.exit(0 if s.recv(100) else 1)
except OSError:
    sys.exit(1)
PY
SHMTRACE_HOME=$SHMTRACE_HOME as_nobody "$TRACECTL" list >/dev/null 2>&1 &&
	fail "tracectl as nobody controlled the daemon"

# 2. the shared memory of the traced process and of the daemons
seen=0
for p in "$pid" "$SESSIOND_PID" "$CONSUMERD_PID"; do
	for f in /proc/"$p"/fd/* /proc/"$p"/map_files/*; do
		case "$(readlink "$f" 2>/dev/null)" in
		/memfd:shmtrace*)
			seen=$((seen + 1))
			as_nobody dd if="$f" of=/dev/null bs=1 count=1 2>/dev/null &&
				fail "nobody opened $f"
			;;
		esac
	done
done
[ "$seen" -gt 0 ] || fail "no shared memory of ours found to try"
# and the memory of a process of its own is open to it: the test can fail
as_nobody sh -c 'exec 3</etc/passwd; dd if=/proc/self/fd/3 of=/dev/null bs=1 count=1 2>/dev/null' ||
	fail "nobody cannot open its own descriptors through /proc"

# 3. traces and logs
"$TRACECTL" stop s >/dev/null
for f in "$SHMTRACE_HOME"/*.log $(find "$WORK/out" -type f | head -5); do
	as_nobody cat "$f" >/dev/null 2>&1 && fail "nobody read $f"
done
harsh_go a
harsh_wait a
[ "$HSTATUS" -eq 0 ] || fail "harsh-app exited $HSTATUS"
echo "ok: another uid reaches neither the daemon, nor the memory, nor the traces"
