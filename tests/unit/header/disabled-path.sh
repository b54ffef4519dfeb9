#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What a disabled event costs the function that emits it: compiled at
# -O1, -O2, -O3 and -Os (and with clang when there is one), each site's
# path from its entry to its return, with every event disabled, is one
# load of the event's enabled byte and one branch: no call, no clock read,
# no other load of the program's data, at most 8 instructions.
set -euo pipefail
: "${top_srcdir:?run through make check}"
CC=${CC:-cc}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/shmtrace-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v objdump >/dev/null || { echo "SKIP: no objdump"; exit 77; }

# disabled_path OBJ FUNC: prints "INSNS RIPLOADS BAD" for the path of FUNC
# that a zero enabled byte takes: je/jz taken, jne/jnz not, up to ret.
# Addresses are kept as objdump prints them (hex, no leading zeros).
disabled_path() {
	objdump -d --no-show-raw-insn "$1" | awk -v f="$2" '
	/^[0-9a-f]+ <.*>:$/ { infn = ($2 == "<" f ">:"); next }
	infn && /^ *[0-9a-f]+:\t/ {
		split($0, part, ":\t")
		a = part[1]; gsub(/ /, "", a); ins = part[2]
		sub(/^(rep|repz|bnd|notrack) /, "", ins)
		if (n == 0) entry = a
		order[n++] = a; text[a] = ins
	}
	END {
		for (i = 0; i < n - 1; i++) next_of[order[i]] = order[i + 1]
		pc = entry; steps = 0; rip = 0; bad = ""
		while (steps < 64) {
			if (!(pc in text)) { bad = "leaves the function"; break }
			ins = text[pc]; split(ins, w, /[ \t]+/); op = w[1]; steps++
			if (op ~ /^ret/) break
			if (op ~ /^(call|rdtsc|rdtscp|syscall|lock)/) { bad = ins; break }
			if (ins ~ /\(%rip\)/) rip++
			if (op == "jmp" || op == "je" || op == "jz") { pc = w[2]; continue }
			if (op == "jne" || op == "jnz") { pc = next_of[pc]; continue }
			if (op ~ /^j/) { bad = ins; break }
			pc = next_of[pc]
		}
		if (steps >= 64) bad = "no return"
		printf "%d %d %s\n", steps, rip, (bad == "" ? "-" : bad)
	}'
}

compilers=("$CC")
command -v clang >/dev/null && compilers+=(clang)
for cc in "${compilers[@]}"; do
	for opt in -O1 -O2 -O3 -Os; do
		"$cc" "$opt" -std=gnu11 -c -I"$top_srcdir/include" \
			"$top_srcdir/tests/unit/header/sites.c" -o "$WORK/sites.o" ||
			fail "$cc $opt cannot compile sites.c"
		for f in site_ints site_strings site_none; do
			read -r insns loads bad < <(disabled_path "$WORK/sites.o" "$f")
			echo "$cc $opt $f: $insns instructions, $loads load, ${bad/-/no call}"
			[ "$bad" = "-" ] || fail "$cc $opt $f: disabled path has '$bad'"
			[ "$loads" -eq 1 ] || fail "$cc $opt $f: $loads loads of program data"
			[ "$insns" -le 8 ] || fail "$cc $opt $f: $insns instructions"
		done
	done
done
echo "ok"
