#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A session streamed to lttng-relayd: 4 threads x 100,000 events reach the
# relay's output, which babeltrace2 reads without a word (but for the
# discards the trace reports, as many as status says) and trace-read too,
# every thread's seq increasing and without a gap but where discarded; the
# same as the status says was sent. A relay that is not there is an error
# of create, exit status 1.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_relay a
start_daemons

# nothing listening: refused at once
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
rc=0
ctl_json "$WORK/nope.out" create nope --set-url "net://127.0.0.1:$port:$port" 2>/dev/null || rc=$?
[ "$rc" -eq 1 ] || fail "create with no relay exited $rc: $(cat "$WORK/nope.out")"
[ "$(error_code "$WORK/nope.out")" = relay-unreachable ] && [ "$(jget "$WORK/nope.out" error errno)" = 111 ] &&
	[ "$(jget "$WORK/nope.out" error address)" = "net://127.0.0.1:$port:$port" ] ||
	fail "create did not say why: $(cat "$WORK/nope.out")"
[ "$(nsessions)" = 0 ] || fail "the refused session exists"

ctl_json "$WORK/create.out" create s --set-url "net://127.0.0.1:$RELAY_CTRL:$RELAY_DATA" ||
	fail "create --set-url failed"
[ "$(jget "$WORK/create.out" sessions s relay address)" = "net://127.0.0.1:$RELAY_CTRL:$RELAY_DATA" ] &&
	[ "$(jget "$WORK/create.out" sessions s output)" = null ] || fail "create: $(cat "$WORK/create.out")"
"$TRACECTL" enable-event -s s 'shmtrace_test:*' >/dev/null
"$TRACECTL" start s >/dev/null
"$GEN" -n 100000 -t 4 >/dev/null || fail "gen-events failed"
ctl_json "$WORK/stop.out" stop s || fail "stop failed: $(cat "$WORK/stop.out")"
status_json "$WORK/status.out" s || fail "status failed: $(cat "$WORK/status.out")"
sent=$(status_sum "$WORK/status.out" s recorded)
disc=$(status_sum "$WORK/status.out" s discarded)
nobuf=$(status_sum "$WORK/status.out" s lost_without_buffer)
[ "$(jget "$WORK/stop.out" summary recorded)" = "$sent" ] && [ "$(jget "$WORK/stop.out" summary path)" = null ] ||
	fail "stop's summary: $(cat "$WORK/stop.out")"
[ "$((sent + disc + nobuf))" -eq 400000 ] || fail "sent $sent + discarded $disc + $nobuf != 400000"
"$TRACECTL" destroy s >/dev/null
host=$(hostname)
[ -d "$RELAY_OUT/$host" ] || fail "nothing under the relay's output for host $host: $(ls -R "$RELAY_OUT" | head)"
bt_read "$RELAY_OUT"
n=$(grep -c " shmtrace_test:event: " "$WORK/bt.out" || true)
[ "$n" -eq "$sent" ] || fail "babeltrace2 read $n events of $sent sent"
[ "$BT_DISC" -eq $((disc + nobuf)) ] || fail "the trace says $BT_DISC discarded, status $disc + $nobuf"
check_seqs_lossy "$WORK/bt.out" 4 100000 "$BT_DISC"
"$TRACE_READ" --stats=count "$RELAY_OUT" >"$WORK/tr.out" 2>"$WORK/tr.err" ||
	fail "trace-read failed: $(head -3 "$WORK/tr.err")"
m=$(awk '$2 == "shmtrace_test:event" { e = $1 } $2 == "total" { t = $1 } END { print e + 0, t + 0 }' "$WORK/tr.out")
[ "$m" = "$sent $sent" ] || fail "trace-read counted $m (events, total), expected $sent: $(cat "$WORK/tr.out")"

# --ctrl-url and --data-url name each port
"$TRACECTL" create u --ctrl-url "tcp://127.0.0.1:$RELAY_CTRL" --data-url "tcp://127.0.0.1:$RELAY_DATA" \
	>/dev/null || fail "create --ctrl-url --data-url failed"
"$TRACECTL" enable-event -s u 'shmtrace_test:*' >/dev/null
"$TRACECTL" start u >/dev/null
"$GEN" -n 100 >/dev/null
"$TRACECTL" stop u >/dev/null || fail "stop u failed"
"$TRACECTL" destroy u >/dev/null
[ "$(find "$RELAY_OUT/$host" -maxdepth 1 -name 'u-*' | wc -l)" -eq 1 ] ||
	fail "no trace of session u on the relay"
ctl_json "$WORK/v.json" create v --ctrl-url "tcp://127.0.0.1:$RELAY_CTRL" 2>/dev/null &&
	fail "--ctrl-url without --data-url accepted"
[ "$(error_code "$WORK/v.json")" = url-pair ] || fail "create v: $(cat "$WORK/v.json")"

# record --set-url: the command's trace on the relay, a summary of what was sent
rm -rf "${RELAY_OUT:?}"/*
"$TRACECTL" record --format json --set-url "net://127.0.0.1:$RELAY_CTRL:$RELAY_DATA" -- "$GEN" -n 1000 -t 2 \
	>/dev/null 2>"$WORK/record.err" || fail "record --set-url failed: $(cat "$WORK/record.err")"
[ "$(jget "$WORK/record.err" summary relay)" = "net://127.0.0.1:$RELAY_CTRL:$RELAY_DATA" ] &&
	[ "$(jget "$WORK/record.err" trace)" = null ] || fail "record did not say where: $(cat "$WORK/record.err")"
[ "$(jget "$WORK/record.err" summary recorded)" -ge 2000 ] && [ "$(jget "$WORK/record.err" summary discarded)" = 0 ] &&
	[ "$(jget "$WORK/record.err" summary lost)" = 0 ] || fail "record summary: $(cat "$WORK/record.err")"
r=$(bt_count "$RELAY_OUT" shmtrace_test:event)
[ "$r" -eq 2000 ] || fail "record --set-url: the relay holds $r events of 2000"
echo "ok: $n events streamed and read back ($BT_DISC discarded); record --set-url too"
