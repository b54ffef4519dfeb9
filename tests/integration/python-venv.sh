#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Python package installs with pip, without a package index: a fresh
# venv (--system-site-packages: numpy and setuptools of the system), then
# `pip install --no-build-isolation` of the source tree's python/, and
# of the copy `make install` puts under a prefix (with its _config.py
# naming the prefix's libdir); each reads a trace, outside the source
# tree, with no PYTHONPATH and no SHMTRACE_READER_LIB. Skipped, saying
# which, when venv, pip, setuptools or numpy is missing.
. "$(dirname "$0")/lib.sh"
PY=${TEST_PYTHON:-/usr/bin/python3}
for m in venv ensurepip setuptools numpy; do
	"$PY" -c "import $m" 2>/dev/null || { echo "$PY has no $m: skipped"; exit 77; }
done
unset PYTHONPATH SHMTRACE_READER_LIB
start_daemons
D=$WORK/out
"$TRACECTL" create s --output "$D" >/dev/null
"$TRACECTL" enable-event -s s 'shmtrace_test:*' >/dev/null
"$TRACECTL" start s >/dev/null
"$GEN" -n 50 -t 2 || fail "gen-events failed"
"$TRACECTL" stop s >/dev/null
want=$("$TRACE_READ" --format json "$D" | wc -l)
[ "$want" -gt 0 ] || fail "no event recorded"

# check VENV: the installed package reads the trace from elsewhere
check() {
	(cd "$WORK" && "$1/bin/python" - "$D" "$want" <<'PY') || fail "$1: the package does not read"
import sys, shmtrace
if "site-packages" not in shmtrace.__file__:
    sys.exit(f"shmtrace imported from {shmtrace.__file__}")
c = shmtrace.read(sys.argv[1], fields=["seq"])
if len(c) != int(sys.argv[2]) or str(c["seq"].dtype) != "uint64":
    sys.exit(f"{len(c)} rows of {c['seq'].dtype}, trace-read {sys.argv[2]}")
PY
}

# the source tree: a copy (pip builds in the tree), the build's library
# named at install time (SHMTRACE_LIBDIR), as the README says
cp -r "$top_srcdir/python" "$WORK/src"
rm -rf "$WORK/src/build" "$WORK/src"/*.egg-info "$WORK/src/shmtrace/_config.py"
"$PY" -m venv --system-site-packages "$WORK/venv1" || fail "venv failed"
SHMTRACE_LIBDIR=$B/.libs "$WORK/venv1/bin/python" -m pip install -q --no-index \
	--no-build-isolation "$WORK/src" \
	>"$WORK/pip1.log" 2>&1 || { cat "$WORK/pip1.log"; fail "pip install of the source tree failed"; }
check "$WORK/venv1"

# an installed prefix: the copy make install puts under it
P=$WORK/prefix
make -C "$B" install-pysrcDATA install-pysrcpkgDATA install-nodist_pysrcpkgDATA \
	pkgdatadir="$P/share/shmtrace" libdir="$B/.libs" >"$WORK/make.log" 2>&1 ||
	{ cat "$WORK/make.log"; fail "make install of the package source failed"; }
make -C "$B" python/shmtrace/_config.py >/dev/null 2>&1	# the build's own again
[ -f "$P/share/shmtrace/python/pyproject.toml" ] || fail "no pyproject.toml under the prefix"
grep -q "^LIBDIR = \"$B/.libs\"" "$P/share/shmtrace/python/shmtrace/_config.py" ||
	fail "the installed _config.py does not name the libdir"
"$PY" -m venv --system-site-packages "$WORK/venv2" || fail "venv failed"
"$WORK/venv2/bin/python" -m pip install -q --no-index --no-build-isolation \
	"$P/share/shmtrace/python" >"$WORK/pip2.log" 2>&1 ||
	{ cat "$WORK/pip2.log"; fail "pip install from the prefix failed"; }
check "$WORK/venv2"
echo "ok"
