#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# shmtrace.read(): numpy columns of the exact types the metadata declares
# (gen-events -T writes every field type at its limits: uint64 max, int64
# min), strings, sequences, the rows of events that lack a field, the
# function names of addresses; its selection, done by the reader library,
# keeps the rows trace-read keeps with the same options (event patterns,
# filter, tid, begin/end); the typed events of shmtrace.events(); the
# errors (ReadError is an OSError with errno and filename; a bad filter
# or window is a ValueError); a damaged trace gives the events trace-read
# gives with a DamageWarning; to_pandas() and to_arrow() when pandas or
# pyarrow are there.
. "$(dirname "$0")/lib.sh"
python_env || { echo "no python with numpy ($PY): skipped"; exit 77; }
start_daemons
D=$WORK/out
record_types "$D" 300

# the selections compared: trace-read's options, then read()'s arguments
"$TRACE_READ" --format json "$D" >"$WORK/all.json" || fail "trace-read failed"
# a damaged copy: a stream file cut in the middle of a packet
cp -r "$D" "$WORK/cut"
f=$(find "$WORK/cut" -type f -name 'channel*' -size +8k | head -1)
[ -n "$f" ] || fail "no stream file to cut"
truncate -s $(($(stat -c %s "$f") / 2 + 3)) "$f"
"$TRACE_READ" --format json "$WORK/cut" >"$WORK/cut.json" 2>/dev/null &&
	fail "trace-read read the damaged copy without an error"
[ -s "$WORK/cut.json" ] || fail "trace-read read nothing of the damaged copy"
first=$("$PY" -c 'import json, sys
print(json.loads(open(sys.argv[1]).readline())["time_ns"])' "$WORK/all.json")
tid=$("$PY" -c 'import json, sys
evs = [e for e in map(json.loads, open(sys.argv[1])) if e["event"] == "shmtrace_test:event"]
print(evs[-1]["tid"])' "$WORK/all.json")
begin=$((first + 1000))
begin_s=$((begin / 1000000000)).$(printf '%09d' $((begin % 1000000000)))
n=0
while read -r opts; do
	# shellcheck disable=SC2086
	eval "\"\$TRACE_READ\" --format json $opts \"\$D\"" >"$WORK/sel$n.json" ||
		fail "trace-read $opts failed"
	n=$((n + 1))
done <<EOF
-e 'shmtrace_test:event' --filter 'seq >= 100 && seq < 200'
-e 'shmtrace_test:*' --filter 'payload == "ab*"'
--tid $tid
--begin $begin_s
-e 'shmtrace_statedump:*' -e 'shmtrace_test:types'
--filter '\$ctx.cpu_id >= 0 && thread == 1'
EOF

# the sample traces of the reader's unit test (every integer size, int16
# sequences, extended headers, two processes merged), when it is built
SAMPLES=$B/tests/unit/reader/test-reader
if [ -x "$SAMPLES" ]; then
	"$SAMPLES" --write-samples "$WORK/samples" 50 || fail "test-reader --write-samples failed"
	for t in basic session; do
		"$TRACE_READ" --format json "$WORK/samples/$t" >"$WORK/sample-$t.json" 2>/dev/null
	done
fi

"$PY" - "$D" "$WORK" "$tid" "$begin" <<'PY' || fail "shmtrace.read() is wrong"
import errno, json, math, sys
import numpy as np
import shmtrace

D, W, tid, begin = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

def jl(path):
    return [json.loads(l) for l in open(path)]

def norm(v):
    return int(v, 16) if isinstance(v, str) and v.startswith("0x") else v

def check(cond, what):
    if not cond:
        sys.exit(what)

allj = jl(W + "/all.json")
c = shmtrace.read(D)
check(len(c) == len(allj), f"{len(c)} rows, trace-read {len(allj)}")
check(list(c["time_ns"]) == [e["time_ns"] for e in allj], "other times")
check(list(c["event"]) == [e["event"] for e in allj], "other event names")
check(list(c["tid"]) == [e["tid"] for e in allj] and list(c["pid"]) == [e["pid"] for e in allj],
      "other pids or tids")
check(c["time_ns"].dtype == np.int64 and c["tid"].dtype == np.uint32, "common column types")

# every type at its limits, exact
want = {"u8": (np.uint8, 255), "u16": (np.uint16, 65535), "u32": (np.uint32, 2**32 - 1),
        "u64": (np.uint64, 2**64 - 1), "s8": (np.int8, -128), "s16": (np.int16, -32768),
        "s32": (np.int32, -2**31), "s64": (np.int64, -2**63), "dbl": (np.float64, 3.25),
        "ptr": (np.uint64, 0xdeadbeef)}
t = [i for i, e in enumerate(allj) if e["event"] == "shmtrace_test:types"]
check(len(t) == 1, "no types event")
t = t[0]
tj = allj[t]["fields"]
for k, (dt, v) in want.items():
    check(c[k].dtype == dt, f"{k}: dtype {c[k].dtype}, not {np.dtype(dt)}")
    check(int(c[k][t]) == v if dt != np.float64 else c[k][t] == v, f"{k}: {c[k][t]!r} != {v}")
    check(c[k][t] == norm(tj[k]), f"{k}: not trace-read's {tj[k]}")
    check(c.has(k).sum() == 1 and c.has(k)[t], f"{k}: rows that have it")
check(c["str"][t] == tj["str"] and c["str"].dtype == object, "the string field")
check(c["bytes"][t].dtype == np.uint8 and c["bytes"][t].tolist() == tj["bytes"], "uint8 sequence")
check(c["ints"][t].dtype == np.int32 and c["ints"][t].tolist() == tj["ints"], "int32 sequence")
check("bytes_length" not in c and "ints_length" not in c, "sequence lengths as columns")
# the rows of events that lack a field: 0, NaN, None, and has() False
check(c["u64"][t - 1] == 0 if t else True, "a row without u64 is not 0")
check(math.isnan(c["dbl"][0]) and c["str"][0] is None, "rows without dbl or str")
ev_rows = c["event"] == "shmtrace_test:event"
check(c.has("seq")[ev_rows].all() and not c.has("seq")[~ev_rows].any(), "has('seq')")
check(c["seq"].dtype == np.uint64, f"seq: dtype {c['seq'].dtype}")
check(list(c["payload"][ev_rows]) ==
      [e["fields"]["payload"] for e in allj if e["event"] == "shmtrace_test:event"], "strings")
# function names: as trace-read's
check([c["ip_sym"][i] for i in range(len(c))] ==
      [e["context"].get("ip_sym") for e in allj], "ip_sym column")
one = shmtrace.read(D, fields=["ip_sym", "u64", "nosuch", "$ctx.cpu_id"])
check(one.columns == ["time_ns", "pid", "tid", "proc", "event", "ip_sym", "u64", "nosuch",
                      "$ctx.cpu_id"], f"columns {one.columns}")
check(list(one["ip_sym"]) == list(c["ip_sym"]) and one["u64"][t] == 2**64 - 1, "fields=[...]")
check(not one.has("nosuch").any() and not one["nosuch"].any(), "a field no event has")
check(list(one["$ctx.cpu_id"]) == [e["context"]["cpu_id"] for e in allj], "$ctx.cpu_id")
check(shmtrace.read(D, fields=["ip_sym"], symbols=False).has("ip_sym").sum() == 0,
      "symbols=False named functions")

# the selection, pushed down, keeps trace-read's rows
sels = [dict(event="shmtrace_test:event", filter="seq >= 100 && seq < 200"),
        dict(event="shmtrace_test:*", filter='payload == "ab*"'),
        dict(tid=tid),
        dict(begin=begin),
        dict(event=["shmtrace_statedump:*", "shmtrace_test:types"]),
        dict(filter="$ctx.cpu_id >= 0 && thread == 1")]
for i, kw in enumerate(sels):
    w = jl(f"{W}/sel{i}.json")
    g = shmtrace.read(D, fields=["seq"], **kw)
    check(len(w) > 0 and len(w) < len(allj), f"selection {kw}: selects {len(w)} of {len(allj)}")
    check(list(zip(g["time_ns"].tolist(), g["tid"].tolist(), g["event"])) ==
          [(e["time_ns"], e["tid"], e["event"]) for e in w], f"selection {kw}: other rows")
    e = [ev.to_dict()["time_ns"] for ev in shmtrace.events(D, **kw)]
    check(e == [x["time_ns"] for x in w], f"selection {kw}: events() keeps other events")
check(len(shmtrace.read(D, end=begin - 1000)) ==
      sum(e["time_ns"] <= begin - 1000 for e in allj), "end bound (inclusive) as int")

# a damaged trace: the events trace-read reads of it, and a warning
import warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    cut = shmtrace.read(W + "/cut", fields=["seq"])
    cut_evs = list(shmtrace.events(W + "/cut", symbols=False))
cutj = jl(W + "/cut.json")
check(0 < len(cutj) < len(allj), f"the damaged copy has {len(cutj)} of {len(allj)} events")
check(list(cut["time_ns"]) == [e["time_ns"] for e in cutj] and
      [e.time_ns for e in cut_evs] == [e["time_ns"] for e in cutj], "rows of the damaged copy")
check(len([w for w in caught if issubclass(w.category, shmtrace.DamageWarning)]) == 2 and
      cut.damage and "/cut/" in cut.damage[0], f"no DamageWarning: {caught} {cut.damage}")

# the samples: every value of every row as trace-read prints it
import os
for smp in ("basic", "session") if os.path.exists(W + "/samples") else ():
    sj = jl(f"{W}/sample-{smp}.json")
    sc = shmtrace.read(f"{W}/samples/{smp}")
    se = list(shmtrace.events(f"{W}/samples/{smp}"))
    check(len(sj) > 3 and len(sc) == len(sj) == len(se), f"sample {smp}: {len(sc)} rows")
    for i, e in enumerate(sj):
        f = {k: norm(v) for k, v in e["fields"].items()
             if not (k.endswith("_length") and isinstance(e["fields"].get(k[:-7]), list))}
        got = {k: (sc[k][i].tolist() if isinstance(sc[k][i], np.ndarray) else sc[k][i])
               for k in sc.columns[5:] if sc.has(k)[i]}
        check(got == f, f"sample {smp} row {i}: {got} != {f}")
        check(se[i].fields == f and se[i].name == e["event"], f"sample {smp} event {i}")
        check((int(sc["time_ns"][i]), sc["proc"][i], int(sc["pid"][i]), int(sc["tid"][i])) ==
              (e["time_ns"], e["proc"], e["pid"], e["tid"]), f"sample {smp} row {i} common")
    for k in sc.columns[5:]:
        check(sc[k].dtype != np.float64 or k == "val", f"sample {smp}: {k} is float64")

# typed events
evs = list(shmtrace.events(D, event="shmtrace_test:types"))
check(len(evs) == 1, "events(event=...)")
ev = evs[0]
check(type(ev) is shmtrace.Event and not hasattr(ev, "__dict__"), "Event has __slots__")
check(ev.name == "shmtrace_test:types" and ev.time_ns == allj[t]["time_ns"] and
      ev.tid == allj[t]["tid"] and ev.pid == allj[t]["pid"] and ev.proc == allj[t]["proc"],
      "Event attributes")
check(ev["u64"] == 2**64 - 1 and ev["s64"] == -2**63 and ev["ints"] == [-1, 0, 2**31 - 1],
      "Event fields")
check(ev["cpu_id"] == allj[t]["context"]["cpu_id"] and ev.context["ip_sym"], "Event context")
check("u8" in ev and "nosuch" not in ev and ev.get("nosuch", 7) == 7, "Event get, in")
try:
    ev["nosuch"]
    sys.exit("ev['nosuch'] did not raise KeyError")
except KeyError:
    pass

# errors
for f in (shmtrace.read, lambda p: next(shmtrace.events(p))):
    try:
        f(D + "/nothing-here")
        sys.exit("a missing trace did not raise")
    except shmtrace.ReadError as e:
        check(isinstance(e, OSError) and e.errno == errno.ENOENT and
              e.filename == D + "/nothing-here", f"ReadError {e!r}")
for kw in (dict(filter="seq >"), dict(begin="not a time"), dict(begin=2000, end=1000)):
    try:
        shmtrace.read(D, **kw)
        sys.exit(f"{kw} did not raise")
    except ValueError:
        pass
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    check(len(shmtrace.read(D, filter="seqq > 1")) == 0, "filter on a field no event has")
check(len(caught) == 1 and "'seqq'" in str(caught[0].message) and "'seq'" in str(caught[0].message),
      f"no warning of the unknown filter field: {[str(w.message) for w in caught]}")
try:
    shmtrace.read(D, fields="seq")
    sys.exit("fields='seq' did not raise")
except TypeError:
    pass
check(not {"ctypes", "os", "np", "numpy"} & set(dir(shmtrace)), f"dir(shmtrace): {dir(shmtrace)}")
import typing
for f in (shmtrace.read, shmtrace.events, shmtrace.dataframe, shmtrace.Event.__init__):
    check(typing.get_type_hints(f), f"no type hints for {f}")

try:
    import pandas as pd
except ImportError:
    print("python-read: no pandas: to_pandas() not tested")
else:
    df = c.to_pandas()
    check(len(df) == len(c) and str(df["time"].dtype) == "datetime64[ns]", "to_pandas() rows")
    check(int(df["u64"][t]) == 2**64 - 1 and str(df["u64"].dtype) == "UInt64",
          f"to_pandas() u64: {df['u64'].dtype}")
try:
    import pyarrow as pa
except ImportError:
    print("python-read: no pyarrow: to_arrow() not tested")
else:
    tb = c.to_arrow()
    check(tb.num_rows == len(c) and tb.column("u64")[t].as_py() == 2**64 - 1 and
          str(tb.column("u64").type) == "uint64" and tb.column("u64").null_count == len(c) - 1,
          "to_arrow()")
print(f"python-read: {len(c)} rows, {len(c.columns)} columns, {len(sels)} selections as trace-read")
PY
echo "ok"
