#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tracectl record --preload all on programs that were not built for
# shmtrace: output and exit status unchanged, standard input passed
# through, children traced, and a trace that babeltrace2 and trace-read read
# alike, with the helpers' and the process events in it.
. "$(dirname "$0")/lib.sh"
need_babeltrace
PY=$(command -v /usr/bin/python3 python3 | head -1)
[ -n "$PY" ] || { echo "python3 not installed: skipped"; exit 77; }
start_daemons
IN=$WORK/input
seq 1 300000 | sed 's/$/ shmtrace line/' >"$IN"	# about 6 MB

# check NAME STATUS CMD...: CMD's output and status, plain and recorded,
# are the same; the trace reads without error.
check() {
	local name=$1 want=$2 st=0 nbt ntr
	shift 2
	"$@" <"$IN" >"$WORK/$name.plain" 2>/dev/null || st=$?
	[ "$st" -eq "$want" ] || fail "$name: exit status $st untraced, expected $want"
	st=0
	"$TRACECTL" record --format json --output "$WORK/$name" --preload all -- "$@" <"$IN" \
		>"$WORK/$name.out" 2>"$WORK/$name.err" || st=$?
	[ "$st" -eq "$want" ] || fail "$name: exit status $st traced, expected $want: $(tail -3 "$WORK/$name.err")"
	cmp -s "$WORK/$name.plain" "$WORK/$name.out" || fail "$name: output differs when traced"
	# the summary: record's document, the last line of its standard error
	[ "$(jget "$WORK/$name.err" trace path)" = "$WORK/$name" ] &&
		[ "$(jget "$WORK/$name.err" run exit_status)" = "$want" ] || fail "$name: no summary"
	"$BT" "$WORK/$name" >"$WORK/$name.bt" 2>"$WORK/$name.bterr" ||
		fail "$name: babeltrace2 failed: $(head -3 "$WORK/$name.bterr")"
	[ ! -s "$WORK/$name.bterr" ] || fail "$name: babeltrace2: $(head -3 "$WORK/$name.bterr")"
	"$TRACE_READ" --no-symbols "$WORK/$name" >"$WORK/$name.tr" 2>"$WORK/$name.trerr" ||
		fail "$name: trace-read failed: $(head -3 "$WORK/$name.trerr")"
	nbt=$(wc -l <"$WORK/$name.bt")
	ntr=$(wc -l <"$WORK/$name.tr")
	[ "$nbt" -eq "$ntr" ] || fail "$name: babeltrace2 read $nbt events, trace-read $ntr"
	# the tracer never records itself: its marker files, its home
	! grep -q "path = \"$SHMTRACE_HOME/apps" "$WORK/$name.bt" || fail "$name: the tracer's own I/O is in the trace"
	[ "$(jget "$WORK/$name.err" trace events)" -eq "$ntr" ] ||
		fail "$name: the summary counts $(jget "$WORK/$name.err" trace events) events, trace-read $ntr"
	echo "$name: $nbt events, $(jget "$WORK/$name.err" trace processes) processes"
}
has() {	# has NAME PATTERN MIN: at least MIN events matching PATTERN
	local n
	n=$(grep -c -- "$2" "$WORK/$1.bt" || true)
	[ "$n" -ge "$3" ] || fail "$1: $n events matching '$2', expected at least $3"
}

# 1. a shell pipeline with sort and uniq on a few megabytes, from standard input
check pipeline 0 sh -c 'sed "s/[0-9]*[05] /x /" | sort | uniq -c | sort -rn | head -3'
has pipeline 'shmtrace_libc:malloc:' 100
has pipeline 'shmtrace_libc:free:' 100
has pipeline 'shmtrace_proc:exec: .*path = "/usr/bin/sort"' 2
has pipeline 'shmtrace_proc:exec: .*path = "/usr/bin/uniq"' 1

# 2. python3 running a short multi-threaded script
check python 0 "$PY" -c '
import sys, threading
total = []
def work(n):
    total.append(sum(len(l) for l in open(sys.argv[1]) if l.startswith(str(n))))
ts = [threading.Thread(target=work, args=(i,)) for i in range(1, 5)]
for t in ts: t.start()
for t in ts: t.join()
print(sorted(total))' "$IN"
has python 'shmtrace_pthread:thread_create:' 4
has python 'shmtrace_pthread:thread_start:' 4
has python 'shmtrace_io:open:.*path = "'"$IN"'"' 4

# 3. a program that forks and execs children, exit status not 0
check xargs 3 sh -c 'head -20 | xargs -n 5 echo; exit 3'
has xargs 'shmtrace_proc:exec: .*path = "/usr/bin/echo"' 4
has xargs 'shmtrace_proc:fork:' 4

# 4. a program that uses dlopen
check dlopen 0 "$PY" -c 'import ctypes; m = ctypes.CDLL("libm.so.6"); m.cos.restype = ctypes.c_double; m.cos.argtypes = [ctypes.c_double]; print(m.cos(0.0))'
has dlopen 'shmtrace_proc:dlopen: .*path = "libm.so.6"' 1
has dlopen 'shmtrace_statedump:bin_info: .*libm.so.6' 1

# 5. tar, which runs gzip
mkdir -p "$WORK/tree"
cp "$IN" "$WORK/tree/a"
head -1000 "$IN" >"$WORK/tree/b"
check tar 0 sh -c "tar -czf '$WORK/t.tgz' -C '$WORK/tree' . && tar -tzvf '$WORK/t.tgz' | awk '{ print \$3, \$6 }' | sort"
has tar 'shmtrace_proc:exec: .*path = "/usr/bin/gzip"' 1
has tar 'shmtrace_io:write:' 10

# 6. awk and grep, with a failing grep
check awk 1 sh -c 'awk "{ s += \$1 } END { print s }"; grep -c nothing-like-this /dev/null'
has awk 'shmtrace_proc:exit: .*status = 1' 1
echo "ok"
