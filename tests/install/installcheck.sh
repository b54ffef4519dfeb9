#!/bin/sh
# SPDX-License-Identifier: MIT
# What `make install` put in place, as a user finds it (make installcheck,
# which make distcheck runs): a program using the tracing API and one
# using the reader, each compiled and linked only with what
# `pkg-config --cflags --libs shmtrace` and `... shmtrace-reader` give
# from the installed .pc files, then run against the installed libraries;
# the manual pages and the bash completion installed.
#
# Environment (from Makefile.am): CC, PKG_CONFIG, DESTDIR, pkgconfigdir,
# libdir, man1dir, man3dir, man8dir, bashcompletiondir (empty: none),
# PACKAGE_VERSION.
set -eu

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

: "${PKG_CONFIG:=pkg-config}"
: "${CC:=cc}"
DESTDIR=${DESTDIR:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/shmtrace-installcheck.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

PKG_CONFIG_PATH=$DESTDIR$pkgconfigdir
export PKG_CONFIG_PATH
if [ -n "$DESTDIR" ]; then
	PKG_CONFIG_SYSROOT_DIR=$DESTDIR
	export PKG_CONFIG_SYSROOT_DIR
fi

for pc in shmtrace shmtrace-reader; do
	[ -f "$DESTDIR$pkgconfigdir/$pc.pc" ] || fail "$pc.pc not installed in $pkgconfigdir"
	v=$($PKG_CONFIG --modversion "$pc") || fail "pkg-config does not read $pc.pc"
	[ "$v" = "$PACKAGE_VERSION" ] || fail "$pc.pc says version $v, not $PACKAGE_VERSION"
done

cat >"$tmp/app.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <shmtrace/shmtrace.h>

SHMTRACE_EVENT(installcheck, hello, SHMTRACE_INFO,
	SHMTRACE_U32(n),
	SHMTRACE_STRING(what))

int main(int argc, char **argv)
{
	shmtrace(installcheck, hello, 1, "world");
	return argc == 2 && strcmp(argv[1], shmtrace_version()) == 0 ? 0 : 1;
}
EOF
cat >"$tmp/reader.c" <<'EOF'
#include <errno.h>
#include <stdio.h>
#include <shmtrace/reader.h>

int main(int argc, char **argv)
{
	struct shmtrace_rd_reader *r;
	char err[SHMTRACE_RD_ERRLEN];
	int rc = shmtrace_rd_open(&r, (const char *const *)argv + 1, (size_t)argc - 1, err,
				  sizeof(err));

	if (rc != -ENOENT || r) {
		fprintf(stderr, "shmtrace_rd_open: %d, expected %d\n", rc, -ENOENT);
		return 1;
	}
	puts(err);
	return 0;
}
EOF

# shellcheck disable=SC2046 # pkg-config's flags are words
$CC -std=gnu11 -Wall -Wextra -Werror -o "$tmp/app" "$tmp/app.c" \
	$($PKG_CONFIG --cflags --libs shmtrace) || fail "cannot build against shmtrace.pc"
# shellcheck disable=SC2046
$CC -std=gnu11 -Wall -Wextra -Werror -o "$tmp/reader" "$tmp/reader.c" \
	$($PKG_CONFIG --cflags --libs shmtrace-reader) || fail "cannot build against shmtrace-reader.pc"

# run against the installed libraries, untraced (a home of its own, no daemon)
mkdir -m 700 "$tmp/home"
LD_LIBRARY_PATH=$DESTDIR$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
	SHMTRACE_HOME=$tmp/home SHMTRACE_REGISTER_TIMEOUT=0 \
	"$tmp/app" "$PACKAGE_VERSION" || fail "the program built with shmtrace.pc failed"
LD_LIBRARY_PATH=$DESTDIR$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
	"$tmp/reader" "$tmp/none" >"$tmp/reader.out" || fail "the program built with shmtrace-reader.pc failed"
grep -q "$tmp/none" "$tmp/reader.out" || fail "the reader's error does not name the path: $(cat "$tmp/reader.out")"

for page in "$man1dir/tracectl.1" "$man1dir/trace-read.1" "$man1dir/tracectl-aggregate.1" \
	"$man1dir/tracectl-show-aggregations.1" "$man3dir/shmtrace.3" \
	"$man3dir/shmtrace-reader.3" "$man8dir/trace-sessiond.8" "$man8dir/trace-consumerd.8"; do
	[ -f "$DESTDIR$page" ] || fail "$page not installed"
done
if [ -n "${bashcompletiondir:-}" ]; then
	for c in tracectl trace-read; do
		[ -f "$DESTDIR$bashcompletiondir/$c" ] ||
			fail "the bash completion of $c is not in $bashcompletiondir"
	done
fi
echo "installcheck: shmtrace.pc and shmtrace-reader.pc build and run; pages and completion installed"
