#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# trace-read --format json names what the text names: every address the
# text follows with <function+0xoff> has a NAME_sym key beside it in the
# JSON, with the same name, in the same order (sym-app: function entries,
# dlopen callers, the ip context; none for a state dump's bounds); open
# flags and modes print as names and in octal in the text, and the JSON
# keeps the numbers and adds flags_names and mode_octal (preload-io with
# the io helper); dlopen flags as RTLD_ names.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 not installed: skipped"; exit 77; }
APP=$B/tests/unit/symbols/sym-app
LIB=$B/tests/apps/.libs/libdlevents.so
PRE=$B/.libs/libshmtrace.so:$B/.libs/libshmtrace-io.so
[ -f "$LIB" ] || fail "no $LIB"
[ -f "$B/.libs/libshmtrace-io.so" ] || fail "no libshmtrace-io.so"
start_daemons
D=$WORK/out
"$TRACECTL" create s --output "$D" >/dev/null
"$TRACECTL" add-context -s s -t ip >/dev/null
"$TRACECTL" enable-event -s s 'shmtrace_statedump:*' 'shmtrace_proc:*' 'shmtrace_func:*' \
	'shmtrace_symtest:*' >/dev/null
"$TRACECTL" start s >/dev/null
"$APP" "$LIB" || fail "sym-app failed"
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null
mkdir -p "$WORK/dir"
new_session "$WORK/io" 'shmtrace_io:*'
SHMTRACE_REGISTER_TIMEOUT=10000 LD_PRELOAD=$PRE "$B/tests/apps/preload-io" "$WORK/dir" ||
	fail "preload-io failed with the helper"
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null

for d in "$D" "$WORK/io"; do
	"$TRACE_READ" "$d" >"$WORK/text" 2>"$WORK/tr.err" || fail "trace-read failed: $(head -3 "$WORK/tr.err")"
	"$TRACE_READ" --format json "$d" >"$WORK/json" 2>"$WORK/tr.err" ||
		fail "trace-read --format json failed: $(head -3 "$WORK/tr.err")"
	python3 - "$WORK/text" "$WORK/json" "$(basename "$d")" <<'PY' || fail "$d: the JSON names other things than the text"
import json, re, sys

text = open(sys.argv[1]).read().splitlines()
evs = [json.loads(l) for l in open(sys.argv[2])]
if len(text) != len(evs):
    sys.exit(f"{len(text)} text lines, {len(evs)} JSON objects")
syms = 0
for t, ev in zip(text, evs):
    # the names the text prints: " <name>" after a value, outside strings
    bare = re.sub(r'"(\\.|[^"\\])*"', '""', t)
    want = re.findall(r"= 0x[0-9A-F]+ <([^>]*)>", bare)
    got = []
    for g in ("context", "fields"):
        grp = ev.get(g, {})
        for k, v in grp.items():
            if k.endswith("_sym"):
                base = k[:-4]
                if base not in grp or list(grp).index(base) + 1 != list(grp).index(k):
                    sys.exit(f"{k} not right after {base}: {ev}")
                got.append(v)
    if want != got:
        sys.exit(f"text names {want}, JSON {got}:\n{t}\n{json.dumps(ev)}")
    syms += len(got)
    if ev["event"] == "shmtrace_statedump:bin_info" and any(k.endswith("_sym") for k in ev["fields"]):
        sys.exit(f"a state dump's bounds named: {ev}")
    if ev["event"] == "shmtrace_proc:dlopen" and ev["proc"] == "sym-app":
        f = ev["fields"]
        if not re.fullmatch(r"(main|load[.a-z0-9]*)\+0x[0-9a-f]+", f.get("caller_sym", "")):
            sys.exit(f"dlopen caller not named: {ev}")
        if f.get("flags_names") != "RTLD_NOW" or not isinstance(f["flags"], int):
            sys.exit(f"dlopen flags: {ev}")
        if "flags = RTLD_NOW," not in t:
            sys.exit(f"dlopen flags in the text: {t}")
    if ev["event"].startswith("shmtrace_io:open"):
        f = ev["fields"]
        if not isinstance(f["flags"], int) or not isinstance(f["mode"], int):
            sys.exit(f"not numbers: {ev}")
        if f"flags = {f['flags_names']}, mode = {f['mode_octal']}," not in t:
            sys.exit(f"text and JSON disagree: {t}\n{json.dumps(ev)}")
        if f["mode_octal"] != (oct(f["mode"]).replace("0o", "0") if f["mode"] else "0"):
            sys.exit(f"mode {f['mode']} is not {f['mode_octal']}")
if sys.argv[3] == "out":
    entries = [e for e in evs if e["event"] == "shmtrace_func:entry"
               and e["fields"].get("addr_sym") == "sym_fib"]
    if len(entries) != 5:
        sys.exit(f"{len(entries)} entries of sym_fib named, expected 5")
    if not all(re.fullmatch(r"(main|sym_fib)\+0x[0-9a-f]+", e["fields"]["call_site_sym"])
               for e in entries):
        sys.exit("call sites of sym_fib not named")
    if not any("ip_sym" in e.get("context", {}) for e in evs):
        sys.exit("no ip named")
    print(f"sym-app: {len(evs)} events, {syms} names, as the text")
else:
    io = {(e["fields"]["flags_names"], e["fields"]["mode_octal"]) for e in evs
          if e["event"].startswith("shmtrace_io:open") and e["fields"]["err"] == 0}
    for w in (("O_RDWR|O_CREAT|O_TRUNC", "0640"), ("O_RDONLY", "0"),
              ("O_RDONLY|O_DIRECTORY", "0"), ("O_WRONLY|O_APPEND", "0")):
        if w not in io:
            sys.exit(f"no open with {w}: {io}")
    print(f"preload-io: {len(evs)} events, flags and modes named")
PY
done
# --no-symbols: no names of functions, the flag names stay
"$TRACE_READ" --no-symbols --format json "$D" | grep -q '_sym"' && fail "--no-symbols: names in the JSON"
"$TRACE_READ" --no-symbols --format json "$WORK/io" | grep -q '"flags_names":"O_RDWR|O_CREAT|O_TRUNC"' ||
	fail "--no-symbols: no flag names"
echo "ok"
