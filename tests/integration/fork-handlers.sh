#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fork() runs the program's atfork handlers; those registered before
# libshmtrace's run first in the child, while the child still holds its
# parent's view of the buffers (not mapped in the child). Their events must
# be dropped and counted, never written: jemalloc takes its locks in its
# handlers (through the pthread helper under record --preload pthread), as
# redis-server's BGSAVE does; an instrumented handler emits events.
. "$(dirname "$0")/lib.sh"
need_babeltrace
start_daemons
LIB=$B/tests/apps/.libs/libdlevents.so
[ -f "$LIB" ] || fail "no $LIB"

# 1. an instrumented handler that runs before libshmtrace's in the child
D=$WORK/early
new_session "$D" 'shmtrace_dl:*'
"$B/tests/apps/early-atfork" "$LIB" 2>"$WORK/early.err" ||
	fail "early-atfork: $(cat "$WORK/early.err")"
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null
"$BT" "$D" >"$WORK/bt.out" 2>"$WORK/bt.err" || fail "babeltrace2 failed"
n=$(grep -c " shmtrace_dl:hello: " "$WORK/bt.out" || true)
[ "$n" -eq 27 ] || fail "$n events recorded, expected 27 (20 parent, 7 child)"
grep -q "discarded 5 events" "$WORK/bt.err" || fail "babeltrace2: $(head -3 "$WORK/bt.err")"
"$TRACE_READ" --stats "$D" >"$WORK/stats"
lost=$(awk '/^Discarded events:/ { d = 1; next } d && $2 == "total" { print $1; exit }' "$WORK/stats")
[ "$lost" = 5 ] || fail "discarded: '$lost', expected the 5 events of the child's handler"

# 2. jemalloc's handlers through the pthread helper
if [ -e /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 ] || [ -e /usr/lib/libjemalloc.so.2 ]; then
	"${CC:-cc}" -O1 -pthread -o "$WORK/jemalloc-fork" "$top_srcdir/tests/apps/jemalloc-fork.c" \
		-Wl,--no-as-needed -l:libjemalloc.so.2 || fail "cannot build jemalloc-fork"
	out=$("$TRACECTL" record --output "$WORK/jm" --preload pthread -- "$WORK/jemalloc-fork" \
		2>"$WORK/jm.err") || fail "jemalloc-fork under record: $(tail -3 "$WORK/jm.err")"
	[ "$out" = "child ok" ] || fail "jemalloc-fork printed '$out'"
	out=$("$TRACECTL" record --output "$WORK/jm-all" --preload all -- "$WORK/jemalloc-fork" \
		2>"$WORK/jm-all.err") || fail "jemalloc-fork under --preload all: $(tail -3 "$WORK/jm-all.err")"
	[ "$out" = "child ok" ] || fail "jemalloc-fork (all) printed '$out'"
	n=$("$TRACE_READ" --stats=count "$WORK/jm" | awk '$2 == "shmtrace_pthread:mutex_trylock" { print $1 }')
	[ "${n:-0}" -gt 0 ] || fail "no jemalloc lock recorded: the helper was not in the way"
	echo "ok: jemalloc's fork handlers traced, $n trylocks recorded"
else
	echo "libjemalloc.so.2 not installed: its part skipped"
fi
# 3. redis-server's BGSAVE (jemalloc, a forked child) under --preload all;
# not installed by setup.sh: on a machine with an init system its package
# starts a server of its own
if command -v redis-server >/dev/null && command -v redis-cli >/dev/null; then
	R=$WORK/redis
	mkdir -p "$R"
	# a unix socket of the test's own, no TCP port to share with anyone
	cli() { redis-cli -s "$R/sock" "$@"; }
	"$TRACECTL" record --output "$WORK/rd" --preload all -- redis-server --port 0 \
		--unixsocket "$R/sock" --dir "$R" --save "" --daemonize no --logfile "$R/log" \
		>/dev/null 2>"$R/rec.err" &
	rec=$!
	for _ in $(seq 300); do
		[ "$(cli ping 2>/dev/null)" = PONG ] && break
		sleep 0.1
	done
	[ "$(cli ping 2>/dev/null)" = PONG ] || fail "redis: not answering: $(tail -5 "$R/log")"
	for i in $(seq 100); do cli set "k$i" "v$i" >/dev/null; done
	cli bgsave >/dev/null || fail "redis: bgsave refused"
	for _ in $(seq 300); do
		cli info persistence | grep -q "rdb_bgsave_in_progress:0" && break
		sleep 0.1
	done
	st=$(cli info persistence | tr -d '\r' | sed -n 's/rdb_last_bgsave_status://p')
	cli shutdown nosave >/dev/null 2>&1 || true
	wait "$rec" || true
	[ "$st" = ok ] || fail "redis: BGSAVE status '$st': $(tail -5 "$R/log")"
	[ -s "$R/dump.rdb" ] || fail "redis: no dump written"
	n=$("$TRACE_READ" --stats=count "$WORK/rd" | awk '$2 == "shmtrace_proc:fork" { print $1 }')
	[ "${n:-0}" -gt 0 ] || fail "redis: no fork traced"
	echo "ok: redis BGSAVE under --preload all wrote its dump"
else
	echo "redis-server not installed: its part skipped"
fi
echo "ok: atfork handlers before ours: dropped and counted in the child"
