#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An output where no trace can be written is refused at create, with the
# path and the reason, and no session is made: a directory the kernel will
# not let us write in (/sys/kernel), a device (/dev/null), a regular file,
# a path under a file, a read-only directory. record refuses it the same
# way (exit 125) without running the command. A valid output is made only
# by the first trace: create and destroy without tracing leave nothing.
# Root may write in a read-only directory: as root, those cases run with
# tracectl and the daemons it starts as nobody, in a home of nobody's.
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" -eq 0 ]; then
	command -v setpriv >/dev/null || { echo "setpriv not installed: skipped"; exit 77; }
	id -u nobody >/dev/null 2>&1 || { echo "no user nobody: skipped"; exit 77; }
fi
start_daemons

# refused OUTPUT ERRNO: create refuses OUTPUT with ERRNO (its path in the
# error), no session made (tracectl run by "${AS[@]}", by default nothing)
AS=()
EPERM=1 ENOTDIR=20 EACCES=13
refused() {
	local rc=0
	"${AS[@]}" "$TRACECTL" create s --output "$1" --format json >"$WORK/o" 2>"$WORK/o.err" || rc=$?
	[ "$rc" -eq 1 ] || fail "create --output $1: exit status $rc: $(cat "$WORK/o" "$WORK/o.err")"
	[ "$(error_code "$WORK/o")" = output-refused ] && [ "$(jget "$WORK/o" error path)" = "$1" ] ||
		fail "create --output $1 said: $(cat "$WORK/o")"
	[ "$(jget "$WORK/o" error errno)" = "$2" ] || fail "create --output $1: not errno $2: $(cat "$WORK/o")"
	"${AS[@]}" "$TRACECTL" list --format json >"$WORK/list.json" || fail "list failed"
	[ "$(jget "$WORK/list.json" sessions '#')" = 0 ] || fail "create --output $1 made a session"
	echo "refused $1: $(cat "$WORK/o.err")"
}

[ -d /sys/kernel ] && refused /sys/kernel $EPERM
refused /dev/null $ENOTDIR
echo text >"$WORK/file"
refused "$WORK/file" $ENOTDIR
refused "$WORK/file/sub" $ENOTDIR
# a read-only directory, and a path to make below it
if [ "$(id -u)" -eq 0 ]; then
	scratch_dir R
	RO=$R/ro NH=$R/home
	mkdir -m 555 "$RO"
	mkdir -m 700 "$NH"
	chown nobody "$R" "$RO" "$NH"
	chmod 700 "$R"
	OTHER_HOMES="${OTHER_HOMES:-} $NH"
	AS=(env SHMTRACE_HOME="$NH" setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)
	"${AS[@]}" test -x "$TRACECTL" -a -x "$B/trace-sessiond" ||
		fail "the build tree is not usable by nobody"
else
	RO=$WORK/ro
	mkdir -m 555 "$RO"
fi
refused "$RO" $EACCES
refused "$RO/a/b" $EACCES
[ -z "$(ls -A "$RO")" ] || fail "the probe left something in $RO"
AS=()

# record: refused before the command runs, exit 125
rc=0
"$TRACECTL" record --format json --output /dev/null -- touch "$WORK/ran" 2>"$WORK/rec.err" || rc=$?
[ "$rc" -eq 125 ] || fail "record --output /dev/null: exit status $rc: $(cat "$WORK/rec.err")"
[ "$(jget "$WORK/rec.err" error code)" = output-refused ] &&
	[ "$(jget "$WORK/rec.err" error path)" = /dev/null ] &&
	[ "$(jget "$WORK/rec.err" error errno)" = $ENOTDIR ] && [ "$(jget "$WORK/rec.err" exit_status)" = 125 ] ||
	fail "record --output /dev/null said: $(cat "$WORK/rec.err")"
[ ! -e "$WORK/ran" ] || fail "record ran the command with an output refused"

# a valid output that does not exist yet: made with the first trace only
D=$WORK/new/a/b
"$TRACECTL" create s --output "$D" >/dev/null || fail "create --output $D refused"
[ ! -e "$WORK/new" ] || fail "create left $(find "$WORK/new") before any trace"
"$TRACECTL" enable-event -s s 'shmtrace_test:*' >/dev/null
"$TRACECTL" destroy s >/dev/null
[ ! -e "$WORK/new" ] || fail "a session never started left $(find "$WORK/new")"
new_session "$D" 'shmtrace_test:*'
"$GEN" -n 100 || fail "gen-events failed"
"$TRACECTL" stop s >/dev/null || fail "stop failed"
"$TRACECTL" destroy s >/dev/null
n=$("$TRACE_READ" --stats=count "$D" | awk '$2 == "total" { print $1 }')
[ "$n" = 100 ] || fail "$n events in $D, expected 100"
echo "ok"
