#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What an enabled event's emit function calls, read off the compiled code:
# events with a u64 and a string, a u64 and a sequence, and a mix, compiled
# as a shared library's code (-fPIC, where a call of the C library goes
# through the PLT) at -O1, -O2, -O3 and -Os (and with clang when there is
# one). Each emit function may call only the library's slow paths and the
# clock; no function of the C library (strlen, memcpy, memmove...), no
# helper of the header left out of line, no call through a register, no
# lock-prefixed (or implicitly locked: xchg with memory) instruction.
#
# The whole function is checked, not only the path of an event that fits:
# its other calls are all on slow paths. Allowed:
#   shmtrace__reserve_slow   the event does not fit in the sub-buffer
#   shmtrace__resync         the control page changed
#   shmtrace__filter_ts      a filter decides (or a trigger fires)
#   shmtrace__fire           a trigger fired
#   shmtrace__nested_drop_ev a signal handler interrupted an event
#   shmtrace__agg_find       an aggregation plan's key not where its hash
#                            points (the header's own, out of line: no PLT)
#   shmtrace__cpu_slow       the CPU context field, without an rseq area
#   clock_gettime            the trace clock when the TSC is not usable:
#                            the clock itself (the vDSO), never a copy
set -euo pipefail
: "${top_srcdir:?run through make check}"
CC=${CC:-cc}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/shmtrace-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v objdump >/dev/null || { echo "SKIP: no objdump"; exit 77; }
case $(uname -m) in x86_64) ;; *) echo "SKIP: x86-64 only"; exit 77 ;; esac

cat >"$WORK/events.c" <<'SRC'
#include <shmtrace/shmtrace.h>

SHMTRACE_EVENT(fp, str, SHMTRACE_INFO, SHMTRACE_U64(v), SHMTRACE_STRING(s))
SHMTRACE_EVENT(fp, seq, SHMTRACE_INFO, SHMTRACE_U64(v), SHMTRACE_SEQ(u8, bytes))
SHMTRACE_EVENT(fp, mix, SHMTRACE_INFO, SHMTRACE_STRING(a), SHMTRACE_SEQ(u32, w),
	       SHMTRACE_STRING(b), SHMTRACE_DOUBLE(d), SHMTRACE_PTR(p), SHMTRACE_U8(c))

void site_str(uint64_t v, const char *s);
void site_seq(uint64_t v, const uint8_t *p, uint32_t n);
void site_mix(const char *a, const uint32_t *w, uint32_t n, const char *b);

void site_str(uint64_t v, const char *s)
{
	shmtrace(fp, str, v, s);
}

void site_seq(uint64_t v, const uint8_t *p, uint32_t n)
{
	shmtrace(fp, seq, v, p, n);
}

void site_mix(const char *a, const uint32_t *w, uint32_t n, const char *b)
{
	shmtrace(fp, mix, a, w, n, b, 0.5, (const void *)a, 7);
}

/* strings whose object the compiler knows: no warning either */
static char name[6];
void site_known(uint64_t v);
void site_known(uint64_t v)
{
	shmtrace(fp, str, v, "hello");
	shmtrace(fp, str, v, name);
}
SRC

# The inline length and copy against the C library's, for every alignment
# and length up to 40, for strings that end at a page's last byte (the
# next page unmapped), and for strings longer than SHMTRACE_STRING_MAX.
cat >"$WORK/edges.c" <<'SRC'
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <shmtrace/shmtrace.h>

static int bad;

static void check(const char *s)
{
	static char dst[SHMTRACE_STRING_MAX + 64];
	size_t want = strlen(s);
	uint64_t size = shmtrace__strsize(s);

	if (want > SHMTRACE_STRING_MAX)
		want = SHMTRACE_STRING_MAX;
	if (size != want + 1) {
		printf("length %zu: strsize %llu\n", want, (unsigned long long)size);
		bad = 1;
	}
	memset(dst, 0x5a, want + 16);
	shmtrace__copy(dst, s, want);
	if (memcmp(dst, s, want) != 0 || dst[want] != 0x5a) {
		printf("length %zu: copy differs or writes past its end\n", want);
		bad = 1;
	}
}

int main(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t big = ((SHMTRACE_STRING_MAX + 256) / (size_t)pg + 1) * (size_t)pg;
	char *m = mmap(NULL, big + (size_t)pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *end;
	size_t len, off;

	if (m == MAP_FAILED || mprotect(m + big, (size_t)pg, PROT_NONE) != 0)
		return 2;
	end = m + big;			/* the first byte of the unmapped page */
	memset(m, 'x', big);
	for (len = 0; len <= 40; len++) {
		for (off = 0; off < 8; off++) {
			char *s = end - 1 - len - off;

			s[len] = 0;	/* ends off bytes before the page's end */
			check(s);
			s[len] = 'x';
		}
	}
	end[-1] = 0;
	for (len = SHMTRACE_STRING_MAX - 9; len <= SHMTRACE_STRING_MAX + 9; len++)
		check(end - 1 - len);
	check(m);			/* longer than the cap */
	return bad;
}
SRC

# What this test must catch, in a function named like an emit function.
cat >"$WORK/control.c" <<'SRC'
#include <string.h>
#include <stdint.h>

void shmtrace__emit_control__libc(char *d, const char *s);
void shmtrace__emit_control__lock(uint64_t *c);

void shmtrace__emit_control__libc(char *d, const char *s)
{
	memcpy(d, s, strlen(s) + 1);
}

void shmtrace__emit_control__lock(uint64_t *c)
{
	__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}
SRC

allowed=" shmtrace__reserve_slow shmtrace__resync shmtrace__filter_ts shmtrace__fire"
allowed+=" shmtrace__nested_drop_ev shmtrace__cpu_slow clock_gettime shmtrace__agg_find "

# bad_insns OBJ: one line "FUNC: INSTRUCTION [-> TARGET]" per forbidden
# instruction of the emit functions of OBJ (and of the header's helper they
# may call). A call's target is the symbol
# of its relocation (the next line of objdump -dr) or, with none, the one
# objdump names; a call through a register or memory has no symbol. A jmp
# with a relocation is a tail call; one without jumps inside the function.
bad_insns() {
	objdump -dr --no-show-raw-insn "$1" | awk -v allowed="$allowed" '
	function flush() {
		if (pend == "") return
		if (jmp && tgt == "") { pend = ""; return }
		t = tgt; sub(/[-+]0x[0-9a-f]+$/, "", t); sub(/@plt$/, "", t)
		if (t == "" || index(allowed, " " t " ") == 0)
			print fn ": " pend " -> " (t == "" ? "?" : t)
		pend = ""
	}
	/^[0-9a-f]+ <.*>:$/ { flush(); fn = $2; gsub(/[<>:]/, "", fn)
			      infn = (fn ~ /^shmtrace__(emit_|agg_find)/); next }
	!infn { next }
	/^[ \t]+[0-9a-f]+: R_X86_64_/ {
		if (pend != "") { tgt = $3; flush() }
		next
	}
	/^ *[0-9a-f]+:\t/ {
		flush()
		split($0, part, ":\t"); ins = part[2]
		if (ins ~ /^lock / || ins ~ /^xchg.*\(/) { print fn ": " ins; next }
		jmp = 0
		if (ins ~ /^(call|jmp) +\*/) { pend = ins; tgt = ""; next }
		if (ins ~ /^(call|jmp)/) {
			pend = ins; tgt = ""; jmp = (ins ~ /^jmp/)
			if (jmp) next
			if (match(ins, /<[^>]*>/))
				tgt = substr(ins, RSTART + 1, RLENGTH - 2)
		}
	}
	END { flush() }'
}

compilers=("$CC")
command -v clang >/dev/null && compilers+=(clang)
for cc in "${compilers[@]}"; do
	"$cc" -O2 -std=gnu11 -Wall -Wextra -Werror -I"$top_srcdir/include" \
		"$WORK/edges.c" -o "$WORK/edges" || fail "$cc cannot compile edges.c"
	"$WORK/edges" || fail "$cc: the inline length or copy differs from the C library's"
	echo "$cc: inline length and copy right at page ends, every alignment, and at the cap"
	"$cc" -O2 -fPIC -c "$WORK/control.c" -o "$WORK/control.o" ||
		fail "$cc cannot compile the control"
	bad_insns "$WORK/control.o" >"$WORK/control.bad"
	for what in strlen memcpy lock; do
		grep -q "$what" "$WORK/control.bad" ||
			fail "$cc: the check does not see '$what' in the control"
	done
	for opt in -O1 -O2 -O3 -Os; do
		"$cc" "$opt" -std=gnu11 -fPIC -Wall -Wextra -Werror -c -I"$top_srcdir/include" \
			"$WORK/events.c" -o "$WORK/events.o" ||
			fail "$cc $opt cannot compile the events"
		nfn=$(objdump -d "$WORK/events.o" | grep -c '^[0-9a-f]* <shmtrace__emit_fp__')
		[ "$nfn" -eq 3 ] || fail "$cc $opt: $nfn emit functions, not 3"
		bad_insns "$WORK/events.o" >"$WORK/bad"
		if [ -s "$WORK/bad" ]; then
			cat "$WORK/bad" >&2
			fail "$cc $opt: an emit function calls outside its slow paths or locks"
		fi
		echo "$cc $opt: 3 emit functions, no call but the slow paths', no lock"
	done
done
echo "ok"
