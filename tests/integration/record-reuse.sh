#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tracectl record --output DIR never merges runs: a DIR holding anything
# (an earlier run) is refused before the command runs (exit 125), the old
# run left as it was; an existing empty DIR is used. A record that fails
# leaves no directory behind.
. "$(dirname "$0")/lib.sh"
start_daemons
D=$WORK/rec
"$TRACECTL" record --output "$D" -- "$GEN" -n 100 2>"$WORK/r1.err" || fail "first record failed"
before=$(cd "$D" && find . -type f | sort | xargs md5sum)
rc=0
"$TRACECTL" record --format json --output "$D" -- sh -c "touch '$WORK/ran'; '$GEN' -n 50" \
	2>"$WORK/r2.err" || rc=$?
[ "$rc" -eq 125 ] || fail "record into a used output: exit status $rc: $(cat "$WORK/r2.err")"
[ "$(jget "$WORK/r2.err" error code)" = output-used ] && [ "$(jget "$WORK/r2.err" error path)" = "$D" ] ||
	fail "record said: $(cat "$WORK/r2.err")"
[ ! -e "$WORK/ran" ] || fail "the command ran"
[ "$(cd "$D" && find . -type f | sort | xargs md5sum)" = "$before" ] || fail "the first run changed"
n=$("$TRACE_READ" --stats=count --event 'shmtrace_test:*' "$D" | awk '$2 == "total" { print $1 }')
[ "$n" = 100 ] || fail "$n test events in the first run, expected 100"
[ "$(nsessions)" = 0 ] || fail "a session is left"

# an empty directory is fine
mkdir "$WORK/empty"
"$TRACECTL" record --output "$WORK/empty" -- "$GEN" -n 10 2>/dev/null || fail "record into an empty directory"
n=$("$TRACE_READ" --stats=count --event 'shmtrace_test:*' "$WORK/empty" | awk '$2 == "total" { print $1 }')
[ "$n" = 10 ] || fail "$n test events, expected 10"

# failed records leave nothing: the preloaded library missing, no such command
rc=0
SHMTRACE_LIBDIR=$WORK/nolib "$TRACECTL" record --output "$WORK/r3" -- "$GEN" -n 10 2>/dev/null || rc=$?
[ "$rc" -eq 125 ] || fail "record without its library: exit status $rc"
[ ! -e "$WORK/r3" ] || fail "a failed record left $WORK/r3"
rc=0
"$TRACECTL" record --output "$WORK/r4" -- "$WORK/no-such-command" 2>/dev/null || rc=$?
[ "$rc" -eq 127 ] || fail "record of a missing command: exit status $rc"
[ ! -e "$WORK/r4" ] || fail "a record that ran nothing left $(find "$WORK/r4")"
[ "$(nsessions)" = 0 ] || fail "a session is left"
echo "ok"
