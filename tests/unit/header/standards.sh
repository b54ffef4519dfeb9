#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The public header in every language mode a program may build in: C99,
# C11, C17 strict (-pedantic -Werror: no POSIX clocks there, and no struct
# timespec in C99) and GNU99, C++11 and C++17; each program, linked
# against the library, defines an event of every field type, emits it
# and runs (untraced, no daemon).
set -euo pipefail
: "${top_srcdir:?run through make check}" "${top_builddir:?}"
CC=${CC:-cc}
CXX=${CXX:-c++}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/shmtrace-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
LIB=$top_builddir/.libs
[ -e "$LIB/libshmtrace.so" ] || fail "no $LIB/libshmtrace.so"
cat >"$WORK/prog.c" <<'SRC'
#include <shmtrace/shmtrace.h>

SHMTRACE_EVENT(std_test, every, SHMTRACE_INFO,
	SHMTRACE_U8(u8), SHMTRACE_U16(u16), SHMTRACE_U32(u32), SHMTRACE_U64(u64),
	SHMTRACE_S8(s8), SHMTRACE_S16(s16), SHMTRACE_S32(s32), SHMTRACE_S64(s64),
	SHMTRACE_DOUBLE(d), SHMTRACE_PTR(p), SHMTRACE_STRING(s),
	SHMTRACE_SEQ(u8, bytes))

SHMTRACE_EVENT(std_test, bare, SHMTRACE_DEBUG)

int main(void)
{
	static const unsigned char bytes[3] = { 1, 2, 3 };

	shmtrace(std_test, every, 1, 2, 3, 4, -1, -2, -3, -4, 0.5, (void *)bytes, "x", bytes, 3);
	shmtrace(std_test, bare);
	return shmtrace_enabled(std_test, bare) ? 1 : 0;
}
SRC
cp "$WORK/prog.c" "$WORK/prog.cpp"
build() {	# COMPILER SOURCE FLAGS...
	local cc=$1 src=$2
	shift 2
	"$cc" "$@" -Wall -Wextra -Werror -I"$top_srcdir/include" "$src" -o "$WORK/prog" \
		-L"$LIB" -lshmtrace 2>"$WORK/err" || fail "$* : $(head -5 "$WORK/err")"
	LD_LIBRARY_PATH=$LIB SHMTRACE_HOME=$WORK/home "$WORK/prog" || fail "$*: the program failed"
	echo "ok: $*"
}
for std in c99 c11 c17; do
	build "$CC" "$WORK/prog.c" -std="$std" -pedantic
done
build "$CC" "$WORK/prog.c" -std=gnu99
if command -v "$CXX" >/dev/null 2>&1; then
	for std in c++11 c++17; do
		build "$CXX" "$WORK/prog.cpp" -std="$std"
	done
else
	fail "no C++ compiler ($CXX): the header must be checked as C++ too"
fi
