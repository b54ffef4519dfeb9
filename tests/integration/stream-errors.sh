#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A relay that answers errors or stops answering in the middle of a session
# (stream-fake-relay.py stands for lttng-relayd). The program never waits,
# streaming stops for good, `stop` and `status` exit with status 1 and
# `start` is refused, and the counts add up exactly:
#   emitted == recorded (sent) + discarded + lost without a buffer
#              + lost to write errors,
# the events not confirmed stored being some of those sent:
# - it refuses every index entry from the 20th: events are lost after it;
# - it refuses every stream (and metadata stream): nothing is sent, every
#   event is lost;
# - in a live session, it stops reading and answering after 40 commands,
#   while 2 x 150,000 events are emitted: what was sent after is counted
#   as not confirmed, those of the program's streams closed when it ended
#   (before the relay was given up on) too, and stop returns within 30 s.
. "$(dirname "$0")/lib.sh"
start_daemons
# what the relays of this test make the consumer say
expect_log "error: net://127\.0\.0\.1:[0-9]+:[0-9]+: streaming stopped: " \
	"error: cannot write net://127\.0\.0\.1:[0-9]+:[0-9]+/.*: Remote I/O error \(errno 121\)"

# fake_relay TAG ARGS...: a fake relay on free ports; sets RELAY_CTRL, RELAY_DATA
fake_relay() {
	local tag=$1 pid
	shift
	python3 "$(dirname "$0")/stream-fake-relay.py" "$WORK/ports.$tag" "$@" \
		>"$WORK/relay.$tag.log" 2>&1 &
	pid=$!
	RELAY_PIDS="${RELAY_PIDS:-} $pid"
	for _ in $(seq 100); do
		[ -s "$WORK/ports.$tag" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	[ -s "$WORK/ports.$tag" ] || fail "the fake relay did not start: $(cat "$WORK/relay.$tag.log")"
	read -r RELAY_CTRL RELAY_DATA <"$WORK/ports.$tag"
}

# stat NAME: a counter of the last status (summed over channels)
stat() {
	jsum "$WORK/status.out" sessions '*' channels '*' "$1"
}

# scenario TAG N CREATE-OPTIONS...: session TAG streamed to the fake relay,
# gen-events run with 2 threads of N events; the exit statuses and counts
# checked; sets SENT, DISC, LOST, UNCONF
scenario() {
	local tag=$1 n=$2 rc t0 ms nobuf
	shift 2
	EMITTED=$((2 * n))
	"$TRACECTL" create "$tag" "$@" --set-url "net://127.0.0.1:$RELAY_CTRL:$RELAY_DATA" \
		>/dev/null || fail "$tag: create failed"
	"$TRACECTL" enable-channel -s "$tag" small --subbuf-size 16k --num-subbuf 4 >/dev/null
	"$TRACECTL" enable-event -s "$tag" -c small 'shmtrace_test:*' >/dev/null
	"$TRACECTL" start "$tag" >/dev/null
	t0=$(date +%s%N)
	"$GEN" -n "$n" -t 2 -p 10000 >/dev/null || fail "$tag: gen-events failed"
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	[ "$ms" -lt 30000 ] || fail "$tag: the program took $ms ms"
	t0=$(date +%s%N)
	rc=0
	ctl_json "$WORK/stop.out" stop "$tag" 2>/dev/null || rc=$?
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	[ "$rc" -eq 1 ] || fail "$tag: stop exited $rc: $(cat "$WORK/stop.out")"
	[ "$ms" -lt 30000 ] || fail "$tag: stop took $ms ms"
	# the relay's address and why, as the first write error of the channel
	[ "$(error_code "$WORK/stop.out")" = write-error ] &&
		[ "$(jget "$WORK/stop.out" sessions "$tag" channels small write_error path)" != "" ] ||
		fail "$tag: stop did not say why: $(cat "$WORK/stop.out")"
	rc=0
	status_json "$WORK/status.out" "$tag" 2>/dev/null || rc=$?
	[ "$rc" -eq 1 ] || fail "$tag: status exited $rc: $(cat "$WORK/status.out")"
	rc=0
	"$TRACECTL" start "$tag" >"$WORK/start.out" 2>&1 || rc=$?
	[ "$rc" -eq 1 ] || fail "$tag: start after streaming stopped exited $rc"
	SENT=$(stat recorded)
	DISC=$(stat discarded)
	nobuf=$(stat lost_without_buffer)
	LOST=$(stat lost_to_write_errors)
	UNCONF=$(stat unconfirmed)
	[ $((SENT + DISC + nobuf + LOST)) -eq "$EMITTED" ] ||
		fail "$tag: sent $SENT + discarded $DISC + lost $nobuf + $LOST != $EMITTED"
	[ "$UNCONF" -le "$SENT" ] || fail "$tag: $UNCONF unconfirmed of $SENT sent"
	"$TRACECTL" destroy "$tag" >/dev/null 2>&1 || true
	echo "ok: $tag: sent $SENT ($UNCONF unconfirmed), discarded $DISC, lost $nobuf + $LOST"
}

fake_relay idx --refuse send_index:20
scenario idx 50000
[ "$LOST" -gt 0 ] || fail "idx: nothing lost after the relay refused index entries"
[ "$SENT" -gt 0 ] || fail "idx: nothing sent before the relay refused index entries"

fake_relay streams --refuse add_stream:1
scenario streams 50000
[ "$SENT" -eq 0 ] || fail "streams: $SENT events sent to streams the relay refused"

fake_relay mute --mute 40
scenario mute 150000 --live=100ms
[ "$SENT" -gt 0 ] || fail "mute: nothing sent before the relay stopped answering"
[ "$UNCONF" -gt 0 ] || fail "mute: all $SENT events sent said confirmed by a relay that stopped answering"
