#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The JSON that trace-read prints is valid UTF-8 whatever bytes a traced
# program recorded: string fields holding bytes of no character (0xff, a
# cut sequence, an encoded surrogate), control characters, DEL, quotes and
# backslashes, next to valid two- and four-byte characters, come out of
# --format json and --export chrome as JSON that a strict UTF-8 decoder
# and json.loads read, each invalid byte as \udcXX, so that
# s.encode("utf-8", "surrogateescape") gives the recorded bytes back.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 not installed: skipped"; exit 77; }
start_daemons
D=$WORK/out
new_session "$D" 'shmtrace_test:*'
"$GEN" -n 20 -t 1 || fail "gen-events failed"
"$TRACECTL" stop s >/dev/null
"$TRACECTL" destroy s >/dev/null

# every payload ("abcdefghijklmnop") becomes 16 bytes of every kind
python3 - "$D" <<'EOF' || fail "cannot patch the trace"
import glob, os, sys
weird = b"\xff\xc3(\xed\xa0\x80\x01\x7f\"\\\xc3\xa9\xf0\x9f\x98\x80"
assert len(weird) == 16
n = 0
for f in glob.glob(os.path.join(sys.argv[1], "*", "*")):
    if os.path.basename(f) == "metadata":
        continue
    data = open(f, "rb").read()
    n += data.count(b"abcdefghijklmnop")
    open(f, "wb").write(data.replace(b"abcdefghijklmnop", weird))
assert n == 20, n
EOF

"$TRACE_READ" --format json "$D" >"$WORK/json" || fail "trace-read --format json failed"
"$TRACE_READ" --export chrome "$WORK/chrome.json" "$D" || fail "trace-read --export chrome failed"
python3 - "$WORK/json" "$WORK/chrome.json" <<'EOF' || fail "the JSON is not valid or loses bytes"
import json, sys
weird = b"\xff\xc3(\xed\xa0\x80\x01\x7f\"\\\xc3\xa9\xf0\x9f\x98\x80"
raw = open(sys.argv[1], "rb").read()
text = raw.decode("utf-8")                  # strict: valid UTF-8
# the escapes as documented: invalid bytes \udcXX, controls \u00XX
assert '"payload":"\\udcff\\udcc3(\\udced\\udca0\\udc80\\u0001\\u007f\\"\\\\\xe9\U0001f600"' in text, \
    text.splitlines()[0]
lines = text.splitlines()
assert len(lines) == 20, len(lines)
for line in lines:
    p = json.loads(line)["fields"]["payload"]
    assert p.encode("utf-8", "surrogateescape") == weird, repr(p)
doc = json.loads(open(sys.argv[2], "rb").read().decode("utf-8"))
got = [e["args"]["payload"] for e in doc["traceEvents"] if e.get("name") == "shmtrace_test:event"]
assert len(got) == 20, len(got)
for p in got:
    assert p.encode("utf-8", "surrogateescape") == weird, repr(p)
print("ok: 20 events: valid UTF-8, json.loads, the bytes back, in --format json and --export chrome")
EOF
