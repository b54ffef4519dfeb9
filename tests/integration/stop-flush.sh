#!/usr/bin/env bash
# At stop, every committed event is on disk, including the partly filled
# sub-buffers of threads that are idle at that moment.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
D=$WORK/out
"$TRACECTL" create s --output "$D" >/dev/null
"$TRACECTL" enable-event -s s 'shmtrace_test:*' >/dev/null
"$TRACECTL" start s >/dev/null
mkfifo "$WORK/in" "$WORK/outp"
"$GEN" -W -n 1234 -t 3 <"$WORK/in" >"$WORK/outp" &
GEN_PID=$!
exec 7>"$WORK/in"
read -r line <"$WORK/outp"
[ "$line" = done ] || fail "gen-events said '$line'"
"$TRACECTL" stop s >/dev/null
kill -0 "$GEN_PID" || fail "gen-events is gone already"
n=$(bt_count "$D" shmtrace_test:event)
[ "$n" -eq 3702 ] || fail "after stop, $n events on disk, expected 3702"
check_seqs "$WORK/bt.out" 3 1234
echo go >&7
exec 7>&-
wait "$GEN_PID" || fail "gen-events failed"
"$TRACECTL" destroy s >/dev/null
echo "ok"
