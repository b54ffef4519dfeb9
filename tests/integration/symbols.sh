#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# trace-read names the functions of code addresses. sym-app records a
# state dump of its objects and dlopen/dlclose events the way the tracer
# does, then addresses, each with what trace-read must print after it
# (shmtrace_symtest:expect). Runs: position-independent, a wrong build id
# for the program (-b), a fixed-address executable, and, in a session that
# records no state dump, a library known only from its dlopen event (-n).
. "$(dirname "$0")/lib.sh"
APP=$B/tests/unit/symbols/sym-app
NOPIE=$B/tests/unit/symbols/sym-app-nopie
LIB=$B/tests/apps/.libs/libdlevents.so
[ -f "$LIB" ] || fail "no $LIB"
start_daemons
D=$WORK/out
new_session "$D" 'shmtrace_statedump:*' 'shmtrace_proc:*' 'shmtrace_func:*' 'shmtrace_symtest:*'
"$APP" "$LIB" || fail "sym-app failed"
"$APP" -b || fail "sym-app -b failed"
"$NOPIE" "$LIB" || fail "sym-app-nopie failed"
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null
new_session "$D/no-dump" 'shmtrace_proc:*' 'shmtrace_func:*' 'shmtrace_symtest:*'
"$APP" -n "$LIB" || fail "sym-app -n failed"
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null

"$TRACE_READ" "$D" >"$WORK/tr.out" 2>"$WORK/tr.err" ||
	fail "trace-read failed: $(head -5 "$WORK/tr.err")"

# every expectation met: "what" is a regular expression for the name
n=0
while IFS='|' read -r what sym line; do
	n=$((n + 1))
	sym=${sym# <}
	sym=${sym%>}
	if [ -z "$what" ]; then
		[ -z "$sym" ] || fail "expected no name, got <$sym>: $line"
	else
		[[ $sym =~ ^($what)$ ]] || fail "expected <$what>, got <$sym>: $line"
	fi
done < <(sed -n 's/^\(.*shmtrace_symtest:expect: { what = "\(.*\)", addr = 0x[0-9A-F]*\(.*\) }\)$/\2|\3|\1/p' "$WORK/tr.out")
[ "$n" -eq 37 ] || fail "$n shmtrace_symtest:expect events, expected 37"

# function entries: the function, and its caller with an offset
n=$(grep -c 'shmtrace_func:entry: { addr = 0x[0-9A-F]* <sym_fib>, call_site = 0x[0-9A-F]* <\(main\|sym_fib\)+0x[0-9a-f]*> }' "$WORK/tr.out" || true)
[ "$n" -eq 10 ] || fail "$n resolved sym_fib entries, expected 10"
n=$(grep -c 'shmtrace_func:entry: { addr = 0x[0-9A-F]* <sym_leaf>, call_site = 0x[0-9A-F]* <main+0x[0-9a-f]*> }' "$WORK/tr.out" || true)
[ "$n" -eq 4 ] || fail "$n resolved sym_leaf entries, expected 4"
n=$(grep -c 'shmtrace_func:entry: { addr = 0x[0-9A-F]*, call_site = 0x[0-9A-F]* }' "$WORK/tr.out" || true)
[ "$n" -eq 14 ] || fail "$n unresolved entries (wrong build id, no dump), expected 14"
n=$(grep -c 'shmtrace_proc:dlopen: .*caller = 0x[0-9A-F]* <main+0x[0-9a-f]*> }' "$WORK/tr.out" || true)
[ "$n" -eq 2 ] || fail "$n dlopen callers resolved, expected 2"
! grep 'shmtrace_statedump:bin_info' "$WORK/tr.out" | grep -q ' <' ||
	fail "state dump addresses were resolved"
grep -q 'shmtrace_statedump:bin_info: { base = 0x0, .*sym-app-nopie"' "$WORK/tr.out" ||
	fail "sym-app-nopie is not a fixed-address executable"

# the wrong build id is reported, once
n=$(grep -c 'build id' "$WORK/tr.err" || true)
[ "$n" -eq 1 ] || fail "$n build id warnings, expected 1: $(cat "$WORK/tr.err")"

# --no-symbols: the same output without the names
"$TRACE_READ" --no-symbols "$D" >"$WORK/plain.out" 2>/dev/null || fail "trace-read --no-symbols failed"
! grep -q ' <' "$WORK/plain.out" || fail "--no-symbols printed names"
cmp -s <(sed 's/ <[^>]*>//g' "$WORK/tr.out") "$WORK/plain.out" ||
	fail "output differs beyond the names"
echo "ok"
