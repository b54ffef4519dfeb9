#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# save and load: a profile made by save and loaded gives sessions whose
# status (JSON) is the saved ones' but for what use and time make (the
# counters, the processes, started, a default output's date:
# doc/profile.md); --override-name names the one session anew; a profile
# of a later version, with a member not known, or of the wrong type is
# refused before anything is made; a step the daemon refuses leaves
# nothing of the load behind; the sessions loaded survive a session
# daemon killed.
. "$(dirname "$0")/lib.sh"
start_daemons

# same A B [NAME]: status documents A and B say the same of their
# sessions, but for the fields doc/profile.md lists (with NAME, B's
# one session is taken as named NAME, as A's is)
same() {
	python3 - "$@" <<'PY' || fail "loaded sessions differ from the saved ones (above)"
import json, sys
COUNTERS = {"recorded", "discarded", "overwritten", "bytes", "streams", "buffers",
            "lost_without_buffer", "lost_to_write_errors", "unconfirmed", "liar_processes",
            "liar_pid", "damaged_events", "damaged_streams", "damaged_pid", "write_error",
            "counters_error", "not_written"}
def norm(path, rename):
    d = json.load(open(path))
    out = []
    for s in d["sessions"]:
        if rename:
            s["name"] = rename
        for k in ("processes", "processes_traced", "processes_refused_at_fd_limit", "notices",
                  "notices_kept", "notices_lost", "notices_refused", "snapshots", "started"):
            s.pop(k, None)
        s["rotation"].pop("chunks")
        if "/traces/" in (s["output"] or ""):
            s["output"] = "(default)"
        for c in s["channels"]:
            if rename:
                c["session"] = rename
            for k in COUNTERS:
                c.pop(k, None)
            for e in c["enablers"]:
                if rename:
                    e["session"] = rename
        for a in s["aggregations"]:
            if rename:
                a["session"] = rename
        out.append(s)
    return sorted(out, key=lambda s: s["name"])
a = norm(sys.argv[1], None)
b = norm(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
if a != b:
    import difflib
    for l in difflib.unified_diff(json.dumps(a, indent=1).splitlines(),
                                  json.dumps(b, indent=1).splitlines(), lineterm=""):
        print(l, file=sys.stderr)
    sys.exit(1)
PY
}
# refused FILE CODE: load FILE fails (status 1) with CODE, and makes nothing
refused() {
	local rc=0 before
	before=$(nsessions)
	ctl_json "$WORK/l.json" load "$1" || rc=$?
	[ "$rc" -eq 1 ] && [ "$(error_code "$WORK/l.json")" = "$2" ] ||
		fail "load $1: $rc, not $2: $(cat "$WORK/l.json")"
	[ "$(nsessions)" -eq "$before" ] || fail "load $1 left sessions behind"
}

# s: every setting; w: defaults, channel0, active
"$TRACECTL" create s --output "$WORK/o" --overwrite --pool-size 4 >/dev/null
"$TRACECTL" enable-channel -s s a --subbuf-size 64k --num-subbuf 4 --flush-interval 250ms \
	--compress lz4 >/dev/null
"$TRACECTL" enable-channel -s s b --discard --pool-size 2 >/dev/null
"$TRACECTL" enable-event -s s -c a 'shmtrace_test:*' -x 'shmtrace_test:mark,shmtrace_test:ty*' \
	--filter 'seq < 5 && thread == 1' >/dev/null
"$TRACECTL" enable-event -s s -c a 'app:x' --loglevel info >/dev/null
"$TRACECTL" add-context -s s -c a -t ip -t cpu_id >/dev/null
"$TRACECTL" enable-event -s s -c a 'app:late' >/dev/null
"$TRACECTL" enable-event -s s -c b 'zz:*' --loglevel-only debug >/dev/null
"$TRACECTL" disable-channel -s s b >/dev/null
"$TRACECTL" aggregate -s s lat 'shmtrace_test:event' --by thread,name:str --count --sum seq \
	--lquantize seq,0,100,10 --filter 'seq > 3' --keys 300 >/dev/null
"$TRACECTL" aggregate -s s prof --profile >/dev/null
"$TRACECTL" track -s s --pid 1,2 --exe '*/x' --exe '/usr/bin/*' >/dev/null
"$TRACECTL" untrack -s s --uid all >/dev/null
"$TRACECTL" rotate -s s --every 10s --size 1M >/dev/null
"$TRACECTL" create w >/dev/null
"$TRACECTL" enable-event -s w 'shmtrace_test:*' >/dev/null
"$TRACECTL" start w >/dev/null
"$GEN" -n 100 -t 1 || fail "gen-events failed"

ctl_json "$WORK/save.json" save -o "$WORK/p.json" || fail "save failed"
[ "$(jget "$WORK/save.json" saved path)" = "$WORK/p.json" ] &&
	[ "$(jget "$WORK/save.json" saved sessions '#')" -eq 2 ] || fail "save: $(cat "$WORK/save.json")"
python3 -m json.tool "$WORK/p.json" >/dev/null || fail "the profile is not JSON"
# to the standard output, the same
"$TRACECTL" save s w >"$WORK/p2.json" || fail "save to stdout failed"
cmp -s "$WORK/p.json" "$WORK/p2.json" || fail "save -o and save to stdout differ"
"$TRACECTL" save s >"$WORK/s.json" || fail "save s failed"
status_json "$WORK/before.json" || fail "status failed"
"$TRACECTL" destroy s >/dev/null
"$TRACECTL" destroy w >/dev/null
rm -rf "$WORK/o" "$SHMTRACE_HOME/traces"	# (w's default output may be named the same again)

ctl_json "$WORK/l.json" load "$WORK/p.json" || fail "load failed: $(cat "$WORK/l.json")"
[ "$(jget "$WORK/l.json" sessions '#')" -eq 2 ] || fail "load: $(cat "$WORK/l.json")"
[ "$(jget "$WORK/l.json" sessions w active)" = true ] || fail "w not active again"
status_json "$WORK/after.json" || fail "status failed"
same "$WORK/before.json" "$WORK/after.json"
# what load made is the daemon's state as any command's: a daemon killed
# and started again has it all
old=$SESSIOND_PID
kill -KILL "$old"
shmtrace_wait_gone "$old" || fail "session daemon $old still runs"
status_json "$WORK/after2.json" || fail "status after the restart failed"
SESSIOND_PID=$(shmtrace_daemon_pid sessiond)
same "$WORK/before.json" "$WORK/after2.json"
# saved again, the same profile (but w's default output, made anew)
"$TRACECTL" save s >"$WORK/s2.json" || fail "save failed"
cmp -s "$WORK/s.json" "$WORK/s2.json" || fail "the loaded session saves another profile: $(diff "$WORK/s.json" "$WORK/s2.json" | head)"

# --override-name: s again as t, beside s
rc=0
"$TRACECTL" load "$WORK/p.json" --override-name t >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 1 ] || fail "--override-name of a profile of 2 sessions: exit $rc"
sed "s|\"$WORK/o\"|\"$WORK/o2\"|" "$WORK/s.json" >"$WORK/s-o2.json"
"$TRACECTL" load "$WORK/s-o2.json" --override-name t >/dev/null || fail "load --override-name failed"
status_json "$WORK/t.json" t || fail "status t failed"
status_json "$WORK/s-now.json" s || fail "status s failed"
sed -i "s|\"$WORK/o2\"|\"$WORK/o\"|" "$WORK/t.json"
same "$WORK/s-now.json" "$WORK/t.json" s

# refused before anything is made
python3 - "$WORK/s.json" "$WORK" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
w = sys.argv[2]
def put(name, d):
    json.dump(d, open("%s/%s.json" % (w, name), "w"))
q = json.loads(json.dumps(p)); q["shmtrace_profile"] = 2; q["sessions"][0]["name"] = "n1"
q["sessions"][0]["memory_only"] = True; put("later", q)
q = json.loads(json.dumps(p)); q["sessions"][0]["name"] = "n2"; q["sessions"][0]["colour"] = 1
put("unknown", q)
q = json.loads(json.dumps(p)); q["sessions"][0]["name"] = "n3"
q["sessions"][0]["channels"][0]["subbuf_size"] = "64k"; put("type", q)
q = json.loads(json.dumps(p)); q["sessions"][0]["name"] = "n4"
q["sessions"][0]["channels"][0]["events"][0]["loglevel"] = {"match": "only", "level": "loud"}
put("word", q)
# a step the daemon refuses (a pattern without '*' that has exclusions): n5 destroyed again
q = json.loads(json.dumps(p)); q["sessions"][0]["name"] = "n5"; q["sessions"][0]["output"] = w + "/o5"
q["sessions"][0]["channels"][0]["events"][-1]["exclusions"] = ["app:y"]; put("daemon", q)
# two sessions, the second refused (its output holds a file): the first destroyed again
q = json.loads(json.dumps(p)); a = q["sessions"][0]; b = json.loads(json.dumps(a))
a["name"] = "n6"; a["output"] = w + "/o6"; b["name"] = "n7"; b["output"] = w + "/used"
q["sessions"] = [a, b]; put("second", q)
PY
mkdir -p "$WORK/used" && touch "$WORK/used/x"
refused "$WORK/later.json" bad-profile
grep -q 'later shmtrace' "$WORK/l.json" || fail "the later version is not said: $(cat "$WORK/l.json")"
refused "$WORK/unknown.json" bad-profile
grep -q 'colour' "$WORK/l.json" || fail "the unknown member is not named: $(cat "$WORK/l.json")"
refused "$WORK/type.json" bad-profile
grep -q 'channels\[0\]' "$WORK/l.json" || fail "the member is not named: $(cat "$WORK/l.json")"
refused "$WORK/word.json" bad-profile
refused "$WORK/daemon.json" exclude-needs-wildcard
refused "$WORK/second.json" output-used
# a session of that name exists: refused, and the one there is left as it was
refused "$WORK/s.json" session-exists
status_json "$WORK/s-again.json" s || fail "status s failed"
same "$WORK/s-now.json" "$WORK/s-again.json"
echo "ok: save and load give the sessions back"
