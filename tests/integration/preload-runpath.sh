#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# dlopen of a bare library name through libshmtrace's dlopen() wrapper
# still finds the library along its caller's DT_RUNPATH or DT_RPATH
# ($ORIGIN expanded), and the dlopen is recorded.
. "$(dirname "$0")/lib.sh"
need_babeltrace
CC=${CC:-cc}
command -v "$CC" >/dev/null || { echo "no C compiler: skipped"; exit 77; }
mkdir -p "$WORK/lib"
echo 'int rp_answer(void) { return 42; }' >"$WORK/rp.c"
cat >"$WORK/main.c" <<'C'
#include <dlfcn.h>
#include <stdio.h>
int main(void)
{
	void *h = dlopen("librp.so", RTLD_NOW);
	int (*f)(void);

	if (!h) {
		printf("dlopen: %s\n", dlerror());
		return 1;
	}
	f = (int (*)(void))dlsym(h, "rp_answer");
	printf("%d\n", f ? f() : -1);
	return dlclose(h);
}
C
"$CC" -shared -fPIC -o "$WORK/lib/librp.so" "$WORK/rp.c" || fail "cannot build the library"
"$CC" -o "$WORK/runpath" "$WORK/main.c" -ldl -Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/lib' ||
	fail "cannot build the RUNPATH program"
"$CC" -o "$WORK/rpath" "$WORK/main.c" -ldl -Wl,--disable-new-dtags -Wl,-rpath,'$ORIGIN/lib' ||
	fail "cannot build the RPATH program"
start_daemons
new_session "$WORK/out" 'shmtrace_proc:*'
for p in runpath rpath; do
	out=$(LD_PRELOAD=$B/.libs/libshmtrace.so "$WORK/$p") || fail "$p: $out"
	[ "$out" = 42 ] || fail "$p: printed '$out'"
done
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null
n=$(bt_count "$WORK/out" shmtrace_proc:dlopen)
[ "$n" -eq 2 ] || fail "$n dlopen events, expected 2"
grep -q 'shmtrace_proc:dlopen: .*path = ".*/lib/librp.so"' "$WORK/bt.out" || fail "no full path recorded"
[ "$(grep -c 'shmtrace_proc:dlclose: .*result = 0' "$WORK/bt.out")" -eq 2 ] || fail "dlclose not recorded"
opened=$(sed -n 's/.*shmtrace_proc:dlopen: .*base = \(0x[0-9A-Fa-f]*\).*/\1/p' "$WORK/bt.out" | sort)
closed=$(sed -n 's/.*shmtrace_proc:dlclose: .*base = \(0x[0-9A-Fa-f]*\).*/\1/p' "$WORK/bt.out" | sort)
[ -n "$opened" ] && [ "$opened" = "$closed" ] || fail "dlclose bases '$closed' are not the dlopen bases '$opened'"
echo "ok"
