#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# libshmtrace-io.so preloaded into preload-io (every wrapped call, with
# known arguments, results and errors; it checks errno itself), into dd
# (8 blocks of 4096 bytes) and into cat (40000 bytes into a pipe): each
# event carries the call's arguments, result, errno and a duration;
# babeltrace2 reads the traces without a warning; and the tracer's own
# I/O never shows: every
# successful call on a descriptor uses one the program opened (or 0, 1,
# 2), and no path of the tracer's home is opened. Flags print as names
# (O_RDWR|O_CREAT|O_TRUNC), modes in octal.
. "$(dirname "$0")/lib.sh"
need_babeltrace
PRE=$B/.libs/libshmtrace.so:$B/.libs/libshmtrace-io.so
[ -f "$B/.libs/libshmtrace-io.so" ] || fail "no libshmtrace-io.so"
mkdir -p "$WORK/plain" "$WORK/dir"
"$B/tests/apps/preload-io" "$WORK/plain" || fail "preload-io fails without the helper"
head -c 40000 /dev/urandom >"$WORK/in" || fail "no input file"

start_daemons
D=$WORK/out
new_session "$D" 'shmtrace_io:*'
export SHMTRACE_REGISTER_TIMEOUT=10000
LD_PRELOAD=$PRE "$B/tests/apps/preload-io" "$WORK/dir" || fail "preload-io failed with the helper"
LD_PRELOAD=$PRE dd if="$WORK/in" of="$WORK/dd.out" bs=4096 count=8 2>"$WORK/dd.err" ||
	fail "dd failed: $(cat "$WORK/dd.err")"
# into a pipe: cat cannot copy_file_range() there, it reads and writes
LD_PRELOAD=$PRE cat "$WORK/in" | cat >"$WORK/cat.out" || fail "cat failed"
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null
unset SHMTRACE_REGISTER_TIMEOUT
cmp -s "$WORK/in" "$WORK/cat.out" || fail "cat copied something else"
[ "$(wc -c <"$WORK/dd.out")" -eq 32768 ] || fail "dd copied $(wc -c <"$WORK/dd.out") bytes"

# events_of PROCNAME: the trace-read lines of that program, in $WORK/PROCNAME.ev
events_of() {
	local dir
	dir=$(find "$D" -maxdepth 1 -name "$1-*" | head -1)
	[ -n "$dir" ] || fail "no trace of $1"
	bt_count "$dir" x >/dev/null
	"$TRACE_READ" "$dir" >"$WORK/$1.ev" 2>"$WORK/tr.err" || fail "trace-read failed: $(head -3 "$WORK/tr.err")"
	sed -i 's/^.* shmtrace_io:/shmtrace_io:/; s/, dur_ns = [0-9]* }$/ }/' "$WORK/$1.ev"
}

# has PROCNAME COUNT LINE: exactly COUNT events are LINE (durations stripped)
has() {
	local n
	n=$(grep -cxF "$3" "$WORK/$1.ev" || true)
	[ "$n" -eq "$2" ] || fail "$1: $n events '$3', expected $2"
}

# the tracer's I/O: descriptors not opened by the program, its home's paths
no_foreign_io() {
	awk '
		BEGIN { known[0] = known[1] = known[2] = 1 }
		/^shmtrace_io:open(at)?: / {
			match($0, /, fd = -?[0-9]*/)
			fd = substr($0, RSTART + 7, RLENGTH - 7)
			if (fd >= 0)
				known[fd] = 1
			next
		}
		/ err = 0 }$/ {
			match($0, /{ fd = -?[0-9]*/)
			fd = substr($0, RSTART + 7, RLENGTH - 7)
			if (!(fd in known)) {
				print "descriptor the program never opened: " $0
				exit 1
			}
		}' "$WORK/$1.ev" || fail "$1: the tracer's own I/O was recorded"
	! grep -qF "path = \"$SHMTRACE_HOME/apps" "$WORK/$1.ev" || fail "$1: the tracer's marker file was recorded"
}

events_of preload-io
# every event has a duration, and no system call takes 0 ns
n=$(grep -c ' shmtrace_io:' "$WORK/bt.out")
[ "$n" -ge 30 ] || fail "preload-io: $n events"
[ "$(grep -c ' shmtrace_io:[a-z]*: .*, dur_ns = [1-9][0-9]* }$' "$WORK/bt.out")" -eq "$n" ] ||
	fail "an event without a duration: $(grep ' shmtrace_io:' "$WORK/bt.out" | grep -v -m1 'dur_ns = [1-9]')"
P=$WORK/dir
a=$(sed -n "s#^shmtrace_io:open: { path = \"$P/data\", flags = O_RDWR|O_CREAT|O_TRUNC, mode = 0640, fd = \\([0-9]*\\), err = 0 }\$#\\1#p" \
	"$WORK/preload-io.ev")
[ -n "$a" ] || fail "no open of $P/data with O_CREAT|O_RDWR|O_TRUNC, 0640"
has preload-io 1 "shmtrace_io:write: { fd = $a, count = 10000, result = 10000, err = 0 }"
has preload-io 1 "shmtrace_io:pwrite: { fd = $a, count = 100, offset = 20000, result = 100, err = 0 }"
has preload-io 1 "shmtrace_io:pwrite: { fd = $a, count = 50, offset = 30000, result = 50, err = 0 }"
has preload-io 1 "shmtrace_io:fsync: { fd = $a, result = 0, err = 0 }"
has preload-io 1 "shmtrace_io:fdatasync: { fd = $a, result = 0, err = 0 }"
has preload-io 1 "shmtrace_io:pread: { fd = $a, count = 50, offset = 9990, result = 50, err = 0 }"
has preload-io 1 "shmtrace_io:pread: { fd = $a, count = 30, offset = 20050, result = 30, err = 0 }"
has preload-io 1 "shmtrace_io:read: { fd = $a, count = 4096, result = 4096, err = 0 }"
has preload-io 1 "shmtrace_io:read: { fd = $a, count = 100000, result = 25954, err = 0 }"
has preload-io 1 "shmtrace_io:writev: { fd = $a, iovcnt = 3, bytes = 60, result = 60, err = 0 }"
has preload-io 1 "shmtrace_io:readv: { fd = $a, iovcnt = 2, bytes = 15, result = 15, err = 0 }"
has preload-io 1 "shmtrace_io:readv: { fd = $a, iovcnt = 2, bytes = 0, result = -1, err = 14 }"
has preload-io 1 "shmtrace_io:open: { path = \"$P/missing\", flags = O_RDONLY, mode = 0, fd = -1, err = 2 }"
# open64 and __open_2
[ "$(grep -c "^shmtrace_io:open: { path = \"$P/data\", flags = O_RDONLY, mode = 0, fd = [0-9]*, err = 0 }\$" \
	"$WORK/preload-io.ev")" -eq 2 ] || fail "open64, __open_2: not 2 events"
grep -q '^shmtrace_io:read: { fd = [0-9]*, count = 10, result = 10, err = 0 }$' "$WORK/preload-io.ev" ||
	fail "no __read_chk read"
d=$(sed -n "s#^shmtrace_io:open: { path = \"$P\", flags = O_RDONLY|O_DIRECTORY, mode = 0, fd = \\([0-9]*\\), err = 0 }\$#\\1#p" \
	"$WORK/preload-io.ev")
[ -n "$d" ] || fail "no open of the directory"
grep -q "^shmtrace_io:openat: { dirfd = $d, path = \"data\", flags = O_RDONLY, mode = 0, fd = [0-9]*, err = 0 }\$" \
	"$WORK/preload-io.ev" || fail "no openat"
grep -q "^shmtrace_io:openat: { dirfd = $d, path = \"data\", flags = O_WRONLY|O_APPEND, mode = 0, fd = [0-9]*, err = 0 }\$" \
	"$WORK/preload-io.ev" || fail "no openat64 with O_WRONLY|O_APPEND"
grep -q "^shmtrace_io:open: { path = \"$P\", flags = O_RDWR|O_TMPFILE, mode = 0600, fd = -\\{0,1\\}[0-9]*, err = [0-9]* }\$" \
	"$WORK/preload-io.ev" || fail "no open with O_TMPFILE and its mode"
has preload-io 1 'shmtrace_io:open: { path = "(null)", flags = O_RDONLY, mode = 0, fd = -1, err = 14 }'
has preload-io 1 "shmtrace_io:read: { fd = -1, count = 1, result = -1, err = 9 }"
has preload-io 1 "shmtrace_io:close: { fd = 999, result = -1, err = 9 }"
grep -qxF "shmtrace_io:close: { fd = $a, result = 0, err = 0 }" "$WORK/preload-io.ev" || fail "no close"
no_foreign_io preload-io

events_of dd
grep -q "^shmtrace_io:open: { path = \"$WORK/in\", flags = O_RDONLY, mode = 0, fd = [0-9]*, err = 0 }\$" "$WORK/dd.ev" ||
	fail "dd: no open of its input"
grep -q "^shmtrace_io:open: { path = \"$WORK/dd.out\", flags = O_WRONLY[A-Z_|]*, mode = 0666, fd = [0-9]*, err = 0 }\$" \
	"$WORK/dd.ev" || fail "dd: no open of its output with mode 0666"
has dd 8 "shmtrace_io:read: { fd = 0, count = 4096, result = 4096, err = 0 }"
has dd 8 "shmtrace_io:write: { fd = 1, count = 4096, result = 4096, err = 0 }"
[ "$(grep -c '^shmtrace_io:\(read\|write\): ' "$WORK/dd.ev")" -eq 16 ] || fail "dd: other reads or writes"
no_foreign_io dd

events_of cat
f=$(sed -n "s|^shmtrace_io:open: { path = \"$WORK/in\", flags = O_RDONLY, mode = 0, fd = \\([0-9]*\\), err = 0 }\$|\\1|p" \
	"$WORK/cat.ev")
[ -n "$f" ] || fail "cat: no open of its input"
awk -v f="$f" '$0 ~ "^shmtrace_io:read: { fd = " f ", " {
		match($0, /result = -?[0-9]*/)
		r = substr($0, RSTART + 9, RLENGTH - 9)
		if (r < 0) exit 1
		total += r
		last = r
	}
	$0 ~ "^shmtrace_io:write: { fd = 1, " {
		match($0, /result = -?[0-9]*/)
		written += substr($0, RSTART + 9, RLENGTH - 9)
	}
	END { exit !(total == 40000 && last == 0 && written == 40000) }' "$WORK/cat.ev" ||
	fail "cat: reads of its input or writes do not add up to 40000 bytes"
no_foreign_io cat
echo "ok: preload-io, dd and cat: every call as made, no I/O of the tracer"
