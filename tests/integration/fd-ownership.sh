#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The program's descriptors are its own. A forked child of a program that
# reused the numbers libshmtrace held (dup2 onto them, or closed them and
# opened files) keeps writing to its files; libshmtrace keeps its own
# descriptors far above the numbers programs get, and never closes, uses or
# replaces a number that is not its own at that moment.
. "$(dirname "$0")/lib.sh"

LIB=$B/.libs/libshmtrace.so
S='exec 3>"$X"; echo main1 >&3; (echo sub >&3); echo main2 >&3; cat "$X"'
want=$'main1\nsub\nmain2'

# 1. the shell idiom, only the library preloaded, no daemon
out=$(X=$WORK/x1 LD_PRELOAD=$LIB bash -c "$S")
[ "$out" = "$want" ] || fail "preloaded, no daemon: got $(echo "$out" | tr '\n' ' ')"

# 2. the same under record with every helper
out=$(X=$WORK/x2 "$TRACECTL" record --output "$WORK/rec" --preload all -- bash -c "$S" \
	2>"$WORK/rec.err") || fail "record failed: $(tail -3 "$WORK/rec.err")"
[ "$out" = "$want" ] || fail "record --preload all: got $(echo "$out" | tr '\n' ' ')"
stop_daemons

# 3. a program that closes 3-63, opens a file (3) and forks: alone, then traced
"$B/tests/apps/harsh-app" fdfork:"$WORK/f1" >/dev/null || fail "harsh-app fdfork failed"
[ "$(cat "$WORK/f1")" = $'child\nparent' ] || fail "untraced fdfork: $(cat "$WORK/f1")"
start_daemons
new_session "$WORK/trace" 'shmtrace_test:*' 'shmtrace_proc:*'
"$B/tests/apps/harsh-app" emit:100 fdfork:"$WORK/f2" emit:100 >/dev/null ||
	fail "traced harsh-app fdfork failed"
[ "$(cat "$WORK/f2")" = $'child\nparent' ] || fail "traced fdfork: $(cat "$WORK/f2")"

# 4. our descriptors sit far above the ones the program gets
harsh_start a emit:10 done
harsh_expect a done
eval "pid=\$HPID_a"
low=
for f in /proc/"$pid"/fd/*; do
	case "$(readlink "$f")" in
	/memfd:shmtrace*|socket:*)
		n=${f##*/}
		[ -z "$low" ] || [ "$n" -lt "$low" ] && low=$n
		;;
	esac
done
[ -n "$low" ] || fail "no descriptor of ours in the traced process"
[ "$low" -ge 256 ] || fail "a descriptor of ours is at $low"
harsh_go a
harsh_wait a
[ "$HSTATUS" -eq 0 ] || fail "harsh-app exited $HSTATUS"
"$TRACECTL" stop s >/dev/null
n=$("$TRACE_READ" --stats=count "$WORK/trace" | awk '$2 == "shmtrace_test:event" { s += $1 } END { print s + 0 }')
[ "$n" -eq 210 ] || fail "$n events recorded, expected 210"
echo "ok: the program's descriptors untouched; ours from $low up"
