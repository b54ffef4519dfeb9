#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Python package's events (shmtrace.events(), typed Event objects) are
# those of trace-read --format json: every field type (gen-events -T),
# context fields (ip and cpu_id), two threads, a state dump, the function
# names of addresses (ip_sym) from the reader library's symbol tables, as
# trace-read names them, and none with symbols=False; a missing trace
# raises ReadError; with pandas, a DataFrame with one row per event. The
# names of flags and modes that trace-read adds beside values (NAME_names,
# NAME_octal) and the lengths of sequences (NAME_length before the list
# NAME) are left out of the comparison, as the package says.
. "$(dirname "$0")/lib.sh"
python_env || { echo "no python with numpy ($PY): skipped"; exit 77; }
start_daemons
D=$WORK/out
record_types "$D" 200
"$TRACE_READ" --format json "$D" >"$WORK/json" || fail "trace-read failed"
"$PY" - "$D" "$WORK/json" <<'PY' || fail "the Python package disagrees with trace-read"
import json, math, sys
import shmtrace

def norm(v):
    """trace-read's JSON prints hexadecimal integers as "0x..." strings"""
    if isinstance(v, str) and v.startswith("0x"):
        return int(v, 16)
    return v

# trace-read's names of flags and modes (NAME_names, NAME_octal beside
# field NAME) are not the library's to give: the package documents that
ADDED = ("_names", "_octal")

def added(k, group):
    if k.endswith("_length") and isinstance(group.get(k[:-7]), list):
        return True     # a sequence's length: the package's lists hold it
    return any(k.endswith(s) and k[:-len(s)] in group for s in ADDED)

def sym_keys(evs):
    return sum(k.endswith("_sym") for e in evs for g in ("context", "fields")
               for k in e.get(g, {}))

want = []
for line in open(sys.argv[2]):
    ev = json.loads(line)
    ev.pop("time")
    for g in ("context", "fields"):
        if g in ev:
            ev[g] = {k: norm(v) for k, v in ev[g].items() if not added(k, ev[g])}
    want.append(ev)
named = sym_keys(want)
evs = list(shmtrace.events(sys.argv[1]))
if not all(type(e) is shmtrace.Event for e in evs):
    sys.exit("events() gave something else than Event objects")
got = [e.to_dict() for e in evs]
for ev in got:
    for k, v in ev["fields"].items():
        if isinstance(v, float) and not math.isfinite(v):
            ev["fields"][k] = None      # JSON has no NaN
if not named:
    sys.exit("trace-read named no address (ip_sym) with the state dump there")
if len(got) != len(want):
    sys.exit(f"{len(got)} events, trace-read {len(want)}")
for i, (g, w) in enumerate(zip(got, want)):
    if g != w:
        sys.exit(f"event {i}: {g} != {w}")
    for grp in ("context", "fields"):
        if list(g.get(grp, {})) != list(w.get(grp, {})):
            sys.exit(f"event {i}: keys in another order: {g} != {w}")
if sym_keys(got) != named:
    sys.exit(f"{sym_keys(got)} function names, trace-read {named}")
plain = [e.to_dict() for e in shmtrace.events(sys.argv[1], symbols=False)]
if sym_keys(plain) or len(plain) != len(got):
    sys.exit("symbols=False: names given, or other events")
types = [e for e in got if e["event"] == "shmtrace_test:types"]
if not types or not any(isinstance(v, list) for v in types[0]["fields"].values()):
    sys.exit("no event with every field type")
if not all("ip" in e["context"] and "cpu_id" in e["context"] for e in got):
    sys.exit("context fields missing")
for f in (shmtrace.read, lambda p: list(shmtrace.events(p))):
    try:
        f(sys.argv[1] + "/nothing-here")
        sys.exit("a missing trace did not raise")
    except shmtrace.ReadError as e:
        if not isinstance(e, OSError) or not e.errno or e.filename != sys.argv[1] + "/nothing-here":
            sys.exit(f"ReadError without errno or filename: {e!r}")
print(f"python: {len(got)} events, as trace-read, {named} function names")
try:
    import pandas
except ImportError:
    sys.exit(0)
df = shmtrace.dataframe(sys.argv[1])
if len(df) != len(got) or list(df["event"]) != [e["event"] for e in got]:
    sys.exit("the DataFrame has other rows")
if str(df["time"].dtype) != "datetime64[ns]":
    sys.exit(f"time column of type {df['time'].dtype}")
print(f"python: DataFrame of {len(df)} rows, {len(df.columns)} columns")
PY
echo "ok"
