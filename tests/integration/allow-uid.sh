#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A session daemon running as root traces processes of another uid only
# when a session allows it (create/record --allow-uid): a program run as
# nobody is then traced, in that session only; the home, the control
# socket and the traces stay root's; the application socket takes
# registrations only, from allowed uids only, and closes with the last
# session that allows another uid. A daemon that is not root refuses
# --allow-uid.
. "$(dirname "$0")/lib.sh"
need_babeltrace
[ "$(id -u)" -eq 0 ] || { echo "not root: skipped"; exit 77; }
command -v setpriv >/dev/null || { echo "setpriv not installed: skipped"; exit 77; }
NOBODY=$(id -u nobody 2>/dev/null) || { echo "no user nobody: skipped"; exit 77; }
AS_NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups"
AS_OTHER="setpriv --reuid=54321 --regid=54321 --clear-groups"	# a uid nobody allows
$AS_NOBODY test -r "$B/.libs/libshmtrace.so" -a -x "$B/tests/apps/.libs/gen-events" ||
	{ echo "the build tree is not readable by nobody: skipped"; exit 77; }
NC=$B/tests/apps/notice-client
start_daemons

# a session that does not allow nobody, active throughout
new_session "$WORK/plain" 'shmtrace_test:*'

# 1. without --allow-uid, the program run as nobody is not traced, and said
"$TRACECTL" record --format json --output "$WORK/no" -- $AS_NOBODY "$GEN" -n 500 2>"$WORK/no.err" ||
	fail "record failed: $(cat "$WORK/no.err")"
n=$(bt_count "$WORK/no" shmtrace_test:event)
[ "$n" -eq 0 ] || fail "without --allow-uid, $n events of nobody's process recorded"
[ "$(jget "$WORK/no.err" notices kind=uid-change old_uid)" = 0 ] &&
	[ "$(jget "$WORK/no.err" notices kind=uid-change uid)" = "$NOBODY" ] ||
	fail "no notice: $(cat "$WORK/no.err")"

# 2. with --allow-uid nobody: every event of the process run as nobody
"$TRACECTL" record --format json --allow-uid nobody --output "$WORK/yes" -- $AS_NOBODY "$GEN" \
	-n 1000 -t 2 2>"$WORK/yes.err" || fail "record --allow-uid failed: $(cat "$WORK/yes.err")"
n=$(bt_count "$WORK/yes" shmtrace_test:event)
[ "$n" -eq 2000 ] || fail "with --allow-uid, $n events recorded, expected 2000"
check_seqs "$WORK/bt.out" 2 1000
[ "$(jget "$WORK/yes.err" notices '*' kind | grep -c uid-change)" -eq 0 ] ||
	fail "a notice for an allowed uid: $(cat "$WORK/yes.err")"
grep -q "application socket closed" "$SHMTRACE_HOME/sessiond.log" ||
	fail "the application socket stayed open after the session"
echo "run as nobody: 0 events by default, 2000 with --allow-uid"

# 3. the session that does not allow nobody recorded nothing of it, and says why
"$TRACECTL" stop s >/dev/null
n=0
[ -z "$(find "$WORK/plain" -name metadata)" ] || n=$(bt_count "$WORK/plain" shmtrace_test:event)
[ "$n" -eq 0 ] || fail "session s, which does not allow nobody, recorded $n events"
status_json "$WORK/s.json" s || fail "status s failed"
[ "$(jget "$WORK/s.json" sessions s notices kind=uid-change uid)" = "$NOBODY" ] ||
	fail "session s does not say why: $(cat "$WORK/s.json")"
"$TRACECTL" destroy s >/dev/null

# 4. while a session allows nobody: everything else stays private
new_session "$WORK/other" 'shmtrace_test:*'	# session s, which does not allow nobody
"$TRACECTL" create a --allow-uid "$NOBODY" --output "$WORK/a" >/dev/null || fail "create --allow-uid"
"$TRACECTL" enable-event -s a 'shmtrace_test:*' >/dev/null && "$TRACECTL" start a >/dev/null ||
	fail "cannot start session a"
status_json "$WORK/a.json" a || fail "status a failed"
[ "$(jget "$WORK/a.json" sessions a allowed_uids)" = "[$NOBODY]" ] || fail "status: no allowed uid"
# nobody's process counts among the processes of a, not of s
nprocs() { status_json "$WORK/np.json" "$1" && jget "$WORK/np.json" sessions "$1" processes_traced; }
$AS_NOBODY "$GEN" -n 300 -e 10000 >/dev/null &
np=$!
for _ in $(seq 100); do [ "$(nprocs a)" = 1 ] && break; sleep 0.05; done
[ "$(nprocs a)" = 1 ] && [ "$(nprocs s)" = 0 ] ||
	fail "traced processes: a $(nprocs a), s $(nprocs s); expected 1 and 0"
kill "$np" 2>/dev/null; wait "$np" 2>/dev/null || true
# a process of nobody sees only the channels of a, and cannot write into s's
$AS_NOBODY "$NC" app-inject >"$WORK/inject" || fail "notice-client app-inject failed"
grep -qx "visible 1" "$WORK/inject" || fail "nobody's control page shows: $(cat "$WORK/inject")"
"$TRACECTL" destroy s >/dev/null
[ -z "$(find "$WORK/other" -mindepth 1 -name 'notice-client*')" ] ||
	fail "a process of nobody wrote into a session that does not allow it: $(ls -R "$WORK/other")"
[ "$(stat -c %a "$SHMTRACE_HOME")" = 700 ] || fail "home is $(stat -c %a "$SHMTRACE_HOME")"
[ "$(stat -c %a "$SHMTRACE_HOME/sessiond.sock")" = 600 ] || fail "the control socket is open"
! $AS_NOBODY "$TRACECTL" list >/dev/null 2>&1 || fail "nobody controls the session daemon"
st=0
$AS_NOBODY "$NC" app-cmd || st=$?
[ "$st" -eq 0 ] || fail "a command on the application socket was not refused ($st)"
grep -q "only traced processes register here" "$SHMTRACE_HOME/sessiond.log" || fail "not logged"
$AS_NOBODY "$NC" app-register || fail "nobody's registration was refused"
st=0
$AS_OTHER "$NC" app-register || st=$?
[ "$st" -eq 1 ] || fail "uid 54321, not allowed, registered ($st)"
grep -q "uid 54321 refused, no session allows it" "$SHMTRACE_HOME/sessiond.log" || fail "not logged"
"$TRACECTL" destroy a >/dev/null
st=0
$AS_NOBODY "$NC" app-register 2>/dev/null || st=$?
[ "$st" -eq 2 ] || fail "the application socket is still open with no session allowing ($st)"
echo "control socket, home and other uids refused; application socket gone with the session"

# 5. a session daemon that is not root refuses --allow-uid
scratch_dir NH
NH=$NH/home
mkdir -m 700 "$NH"
chown nobody "$NH"
OTHER_HOMES="${OTHER_HOMES:-} $NH"
st=0
SHMTRACE_HOME=$NH $AS_NOBODY "$TRACECTL" create x --allow-uid 0 --format json >"$WORK/nr.json" \
	2>"$WORK/nr.err" || st=$?
stop_daemons "$NH"
[ "$st" -eq 1 ] || fail "a daemon running as nobody: create --allow-uid gave $st"
[ "$(error_code "$WORK/nr.json")" = allow-needs-root ] &&
	[ "$(jget "$WORK/nr.json" error daemon_uid)" = "$NOBODY" ] || fail "$(cat "$WORK/nr.json" "$WORK/nr.err")"
echo "ok"
