#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# All four helpers preloaded at once into preload-func (instrumented
# functions, threads, malloc, a mutex, write(2)), with pauses that let the
# consumer fall asleep so that the writers ring its eventfd: the program
# is traced by every helper, and nothing the tracer does is: no event has
# a caller, function or start routine inside libshmtrace or a helper, no
# successful call uses a descriptor the program did not open, the marker
# file never shows, and no event was dropped as nested (which a wrapper
# that records inside the tracer would cause). Then, in a program that
# forks, neither process shows any I/O (the program makes none).
. "$(dirname "$0")/lib.sh"
need_babeltrace
L=$B/.libs
PRE=$L/libshmtrace.so:$L/libshmtrace-libc.so:$L/libshmtrace-pthread.so:$L/libshmtrace-io.so
PRE=$PRE:$L/libshmtrace-func.so
for h in libc pthread io func; do
	[ -f "$L/libshmtrace-$h.so" ] || fail "no libshmtrace-$h.so"
done

start_daemons
D=$WORK/out
new_session "$D" 'shmtrace_libc:*' 'shmtrace_pthread:*' 'shmtrace_io:*' 'shmtrace_func:*'
SHMTRACE_REGISTER_TIMEOUT=10000 LD_PRELOAD=$PRE "$B/tests/apps/preload-func" 20 2 150 "$WORK/maps" \
	>"$WORK/app.out" || fail "preload-func failed"
"$TRACECTL" stop s >/dev/null
status_json "$WORK/status.json" s || fail "status failed"
"$TRACECTL" destroy s >/dev/null
[ "$(status_sum "$WORK/status.json" s discarded)" = 0 ] || fail "events discarded: $(cat "$WORK/status.json")"
[ "$(status_sum "$WORK/status.json" s lost_without_buffer)" = 0 ] || fail "events lost: $(cat "$WORK/status.json")"
n=$(bt_count "$D" 'shmtrace_[a-z]*:[a-z_]*')
"$TRACE_READ" "$D" >"$WORK/tr.out" 2>"$WORK/tr.err" || fail "trace-read failed: $(head -3 "$WORK/tr.err")"
[ "$(grep -c ' shmtrace_[a-z]*:[a-z_]*: ' "$WORK/tr.out")" -eq "$n" ] || fail "trace-read and babeltrace2 disagree"

# the program was traced by each helper
fib=$(sed -n 's/^fib 0x//p' "$WORK/app.out" | tr 'a-f' 'A-F')
grep -qi " shmtrace_func:entry: { addr = 0x$fib[ ,]" "$WORK/tr.out" || fail "no entry of fib"
grep -q ' shmtrace_libc:malloc: { size = 64, ' "$WORK/tr.out" || fail "no malloc of the program"
grep -q ' shmtrace_pthread:mutex_lock: ' "$WORK/tr.out" || fail "no mutex_lock"
grep -q ' shmtrace_pthread:thread_start: ' "$WORK/tr.out" || fail "no thread_start"
grep -q ' shmtrace_io:write: { fd = 1, count = [0-9]*, result = [0-9]*, err = 0, ' "$WORK/tr.out" ||
	fail "no write of the result"

# the address ranges of libshmtrace and the helpers in the program
grep 'libshmtrace[-a-z]*\.so' "$WORK/maps" | sed 's/^\([0-9a-f]*\)-\([0-9a-f]*\) .*/\1 \2/' |
	tr 'a-f' 'A-F' >"$WORK/ranges"
[ "$(wc -l <"$WORK/ranges")" -ge 5 ] || fail "libraries not found in the program's maps"

awk -v ranges="$WORK/ranges" '
	function hex(s) {
		sub(/^0[xX]/, "", s)
		s = toupper(s)
		while (length(s) < 16)
			s = "0" s
		return s
	}
	BEGIN {
		while ((getline line < ranges) > 0) {
			split(line, r, " ")
			lo[++nr] = hex(r[1])
			hi[nr] = hex(r[2])
		}
		known[0] = known[1] = known[2] = 1
	}
	/ shmtrace_[a-z]*:[a-z_]*: / {
		rest = $0
		# (not call_site: a thread routine is called by the trampoline
		# of the pthread helper, which is where it returns)
		while (match(rest, /(caller|addr|start_routine) = 0x[0-9A-Fa-f]*/)) {
			v = substr(rest, RSTART, RLENGTH)
			sub(/.* = /, "", v)
			rest = substr(rest, RSTART + RLENGTH)
			a = hex(v)
			for (i = 1; i <= nr; i++)
				if (a >= lo[i] && a < hi[i]) {
					print "inside the tracer: " $0
					bad = 1
					exit 1
				}
		}
	}
	/ shmtrace_io:open(at)?: / {
		match($0, /, fd = -?[0-9]*/)
		fd = substr($0, RSTART + 7, RLENGTH - 7)
		if (fd >= 0)
			known[fd] = 1
		if (index($0, "path = \"" ENVIRON["SHMTRACE_HOME"] "/apps")) {
			print "the marker file: " $0
			exit 1
		}
		next
	}
	/ shmtrace_io:[a-z]*: { fd = [0-9]*, .* err = 0, / {
		match($0, /{ fd = [0-9]*/)
		fd = substr($0, RSTART + 7, RLENGTH - 7)
		if (!(fd in known)) {
			print "descriptor the program never opened: " $0
			exit 1
		}
	}' "$WORK/tr.out" >"$WORK/self" || fail "the tracer traced itself: $(head -3 "$WORK/self")"

# fork: preload-alloc makes no I/O call of its own (stdio does not go
# through the wrapped symbols), in the parent or in its child, so any
# shmtrace_io event would be the tracer's, such as its re-registration in
# the child
D2=$WORK/out2
new_session "$D2" 'shmtrace_libc:*' 'shmtrace_pthread:*' 'shmtrace_io:*' 'shmtrace_func:*'
SHMTRACE_REGISTER_TIMEOUT=10000 LD_PRELOAD=$PRE "$B/tests/apps/preload-alloc" 2 100 >/dev/null \
	2>"$WORK/alloc.err" || fail "preload-alloc failed: $(head -3 "$WORK/alloc.err")"
"$TRACECTL" stop s >/dev/null
status_json "$WORK/status.json" s || fail "status failed"
"$TRACECTL" destroy s >/dev/null
[ "$(status_sum "$WORK/status.json" s discarded)" = 0 ] || fail "fork: events discarded: $(cat "$WORK/status.json")"
[ "$(find "$D2" -name metadata | wc -l)" -eq 2 ] || fail "fork: not 2 traces"
m=$(bt_count "$D2" 'shmtrace_libc:[a-z_]*')
[ "$m" -gt 0 ] || fail "fork: no allocation traced"
! grep -q ' shmtrace_io:' "$WORK/bt.out" || fail "fork: the tracer's I/O: $(grep -m3 ' shmtrace_io:' "$WORK/bt.out")"
echo "ok: $n events of the program, none of the tracer; with a fork, no I/O of the tracer"
