#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# libshmtrace-libc.so preloaded into preload-alloc (threads, every function
# of the malloc family, frees in a signal handler, a fork): the program's
# output and exit status are what they are without the helper; babeltrace2
# reads the parent's and the child's traces without a warning; in each,
# the calls made by the program itself (caller in its code) match one to
# one by pointer: every block allocated is freed exactly once (a realloc
# frees in_ptr and allocates ptr), and the blocks and failures counted in
# the trace are those the program counted.
. "$(dirname "$0")/lib.sh"
need_babeltrace
THREADS=4
ITER=2000
APP=$B/tests/apps/preload-alloc
PRE=$B/.libs/libshmtrace.so:$B/.libs/libshmtrace-libc.so
[ -f "$B/.libs/libshmtrace-libc.so" ] || fail "no libshmtrace-libc.so"

rc=0
"$APP" $THREADS $ITER >"$WORK/plain.out" 2>"$WORK/plain.err" || rc=$?
[ $rc -eq 0 ] || fail "preload-alloc failed without the helper ($rc): $(head -3 "$WORK/plain.err")"

start_daemons
D=$WORK/out
new_session "$D" 'shmtrace_libc:*'
rc=0
SHMTRACE_REGISTER_TIMEOUT=10000 LD_PRELOAD=$PRE "$APP" $THREADS $ITER >"$WORK/app.out" 2>"$WORK/app.err" ||
	rc=$?
"$TRACECTL" stop s >/dev/null
status_json "$WORK/status.json" s || fail "status failed"
"$TRACECTL" destroy s >/dev/null
[ $rc -eq 0 ] || fail "preload-alloc failed with the helper ($rc): $(head -3 "$WORK/app.err")"
cmp -s "$WORK/plain.out" "$WORK/app.out" ||
	fail "output changed by the helper: $(diff "$WORK/plain.out" "$WORK/app.out" | head -5)"
[ "$(status_sum "$WORK/status.json" s discarded)" = 0 ] || fail "events discarded: $(cat "$WORK/status.json")"

read -r _ lo hi <"$WORK/app.err" || fail "no text range: $(head -3 "$WORK/app.err")"
read -r _ allocated _ freed _ failed <"$WORK/app.out"
[ "$(find "$D" -name metadata | wc -l)" -eq 2 ] || fail "expected 2 traces (parent, child)"

# check_trace DIR BLOCKS FREES FAILED
check_trace() {
	local got
	n=$(bt_count "$1" 'shmtrace_libc:[a-z_]*')
	[ "$n" -gt 0 ] || fail "$1: no event"
	got=$(awk -v lo="$lo" -v hi="$hi" '
		function hex(s) {
			sub(/^0x/, "", s)
			s = toupper(s)
			while (length(s) < 16)
				s = "0" s
			return s
		}
		function field(name,   v) {
			if (!match($0, "[{,] " name " = [^,}]*"))
				return ""
			v = substr($0, RSTART + length(name) + 5, RLENGTH - length(name) - 5)
			sub(/ .*/, "", v)	# the value, without a symbol after it
			return v
		}
		BEGIN { lo = hex(lo); hi = hex(hi) }
		/ shmtrace_libc:[a-z_]*: / {
			ev = $0
			sub(/.* shmtrace_libc:/, "", ev)
			sub(/:.*/, "", ev)
			c = hex(field("caller"))
			if (c < lo || c >= hi)
				next	# a call of the C library, not the program
			p = field("ptr")
			if (p == "")
				{ print "no ptr: " $0; exit 1 }
			null = hex(p) == hex("0")
			if (ev == "free") {
				fr[hex(p)]++
				ends++
			} else if (ev == "realloc") {
				in_null = hex(field("in_ptr")) == hex("0")
				size = field("size")
				if (!in_null && !(null && size != 0))
					fr[hex(field("in_ptr"))]++
				if (!null)
					al[hex(p)]++
				if (in_null && !null)
					blocks++
				if (!in_null && null && size == 0)
					ends++
				if (null && size != 0)
					failures++
			} else if (ev == "posix_memalign" && field("result") != 0) {
				failures++
			} else if (null) {
				failures++
			} else {
				al[hex(p)]++
				blocks++
			}
		}
		END {
			for (k in al)
				if (al[k] != fr[k]) {
					print "0x" k ": allocated " al[k] " times, freed " fr[k] + 0
					exit 1
				}
			for (k in fr)
				if (!(k in al)) {
					print "0x" k ": freed " fr[k] " times, never allocated"
					exit 1
				}
			print blocks + 0, ends + 0, failures + 0
		}' "$WORK/bt.out") || fail "$1: $got"
	[ "$got" = "$2 $3 $4" ] || fail "$1: blocks, frees, failures: $got, expected $2 $3 $4"
}

child=$(sed -n 's/^child \([0-9]*\)$/\1/p' "$WORK/app.err")
[ -n "$child" ] || fail "no child pid: $(head -3 "$WORK/app.err")"
[ -d "$D/preload-alloc-$child" ] || fail "no trace for the child"
for m in $(find "$D" -name metadata); do
	dir=$(dirname "$m")
	[ "$dir" = "$D/preload-alloc-$child" ] || check_trace "$dir" "$allocated" "$freed" "$failed"
done
check_trace "$D/preload-alloc-$child" 64 64 0
echo "ok: $allocated blocks and $failed failures in the parent, 64 blocks in the child, all matched"
