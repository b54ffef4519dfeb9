#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# libshmtrace.so, loaded into every traced program, carries only what a
# traced process runs: no function of support/ (what the daemons and the
# tools share: the JSON reader and writer, the aggregation printers and
# mergers, units, the command and reply codecs, the filter compiler, the
# relay protocol, CTF metadata, the daemons' log) is defined in it, in its
# dynamic symbols (nm -D) or in its own (nm); and what it exports is the
# public API (shmtrace_*, and the bounds of its section of events) and the
# calls it wraps (fork, exec..., dlopen, signal handlers).
set -euo pipefail
: "${top_builddir:?run through make check}"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/shmtrace-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v nm >/dev/null || { echo "SKIP: no nm"; exit 77; }
LIB=$top_builddir/.libs/libshmtrace.so
SUPPORT=$top_builddir/.libs/libsupport.a
[ -f "$LIB" ] && [ -f "$SUPPORT" ] || fail "build first: no $LIB or $SUPPORT"

# every function and object support/ defines, as a set
nm --defined-only "$SUPPORT" 2>/dev/null | awk '$2 ~ /^[TDRB]$/ { print $3 }' | sort -u >"$WORK/support"
[ "$(wc -l <"$WORK/support")" -gt 50 ] || fail "libsupport.a defines too few symbols: $(wc -l <"$WORK/support")"
# ... and the families named by the rule itself, whatever their module
families='^(js_|json_|jw_|agg_print|agg_view|agg_json|agg_merge|agg_snapshot|units_|proto_cmd_|proto_recv|proto_item|flt_compile|rly_|ctf|log_)'

nm "$LIB" | awk 'NF == 3 { print $3 }' | sort -u >"$WORK/all"
nm -D --defined-only "$LIB" | awk 'NF == 3 { print $3 }' | sort -u >"$WORK/dyn"
[ -s "$WORK/all" ] || fail "nm read nothing of $LIB (stripped?)"

found=$(comm -12 "$WORK/support" "$WORK/all")
[ -z "$found" ] || fail "libshmtrace.so defines support/'s $(echo "$found" | head -5 | tr '\n' ' ')"
found=$(grep -E "$families" "$WORK/all" || true)
[ -z "$found" ] || fail "libshmtrace.so defines $(echo "$found" | head -5 | tr '\n' ' ')"
echo "ok: none of support/'s $(wc -l <"$WORK/support") symbols in libshmtrace.so"

# exported: the API, and the calls it wraps (libtrace/spawn.c, ownfd.c,
# doorbell.c, registry.c): anything else is a leak of an internal name
wrapped='^(_?_?(fork|vfork|clone|execv|execve|execveat|execvp|execvpe|execl|execle|execlp|fexecve|posix_spawnp?|system|popen|daemon|close|close_range|closefrom|dup2|dup3|signal|sigaction|sigprocmask|pthread_sigmask|sigsuspend|sigwait|sigwaitinfo|sigtimedwait|signalfd|signalfd4|ppoll|pselect|epoll_pwait2?|bsd_signal|sysv_signal|ppoll_chk|dlopen|dlmopen|dlclose|setuid|seteuid|setgid|setreuid|setregid|setresuid|setresgid|_exit|_Exit|exit|quick_exit|pthread_exit|abort|raise|kill|tgkill|tkill|sigqueue|rt_sigqueueinfo|sighold|sigrelse|sigset|sigignore|sigpause|siginterrupt|pthread_kill)|shmtrace_.*|__(start|stop)_shmtrace_events)$'
leak=$(grep -vE "$wrapped" "$WORK/dyn" | grep -vE '^(_init|_fini|_edata|_end|__bss_start)$' || true)
[ -z "$leak" ] || fail "libshmtrace.so exports $(echo "$leak" | head -8 | tr '\n' ' ')"
echo "ok: libshmtrace.so exports $(grep -c '^shmtrace_' "$WORK/dyn") shmtrace_ symbols and $(grep -vc '^shmtrace_' "$WORK/dyn") wrapped calls"
