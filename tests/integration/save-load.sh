#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# save and load: a profile made by save and loaded gives sessions whose
# status (JSON) is the saved ones' but for what use and time make (the
# counters, the processes, started, a default output's date:
# doc/profile.md); --override-name names the one session anew; a profile
# of a later version, with a member not known, or of the wrong type is
# refused before anything is made; a step the daemon refuses leaves
# nothing of the load behind; the sessions loaded survive a session
# daemon killed. A memory-only session and the triggers (those acting on
# a session saved, or watching one of its aggregations, with save NAME;
# every one without) are saved and loaded too: list-triggers says the
# same of them but for what they counted; --override-name renames the
# session an action names.
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
            "counters_error", "not_written", "cleared", "memory"}
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
# same_triggers A B [FROM TO]: list-triggers documents A and B say the
# same of the triggers but for what they counted (doc/profile.md); with
# FROM TO, B's sessions named TO are taken as FROM
same_triggers() {
	python3 - "$@" <<'PY' || fail "loaded triggers differ from the saved ones (above)"
import json, sys
def norm(path, frm=None, to=None):
    out = []
    for t in json.load(open(path))["triggers"]:
        for k in ("id", "matches", "fired", "failed", "lost", "ignored", "waiters", "done",
                  "last_firing"):
            t.pop(k)
        if to and t["action"]["session"] == to:
            t["action"]["session"] = frm
        if to and t["condition"].get("session") == to:
            t["condition"]["session"] = frm
        out.append(t)
    return out
a = norm(sys.argv[1])
b = norm(*sys.argv[2:])
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
"$TRACECTL" enable-channel -s s b --discard --pool-size 2 --buffer-budget 3M >/dev/null
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
# m: memory-only, two channels, one disabled, started
"$TRACECTL" create m --snapshot --output "$WORK/om" >/dev/null
"$TRACECTL" enable-channel -s m fast --subbuf-size 16k --num-subbuf 8 >/dev/null
"$TRACECTL" enable-channel -s m slow --buffer-budget 0 >/dev/null
"$TRACECTL" enable-event -s m -c fast 'shmtrace_test:*' -x 'shmtrace_test:mark' >/dev/null
"$TRACECTL" aggregate -s m mlat 'shmtrace_test:event' --quantize seq >/dev/null
"$TRACECTL" disable-channel -s m slow >/dev/null
"$TRACECTL" start m >/dev/null
# triggers: on an event of s's (a filter, once-after), on m's aggregation,
# a notify one (of no session), one acting on w
"$TRACECTL" add-trigger ts --on-event 'shmtrace_test:event' --filter 'seq == 99' \
	--rate-policy once-after:1 --action snapshot-session m >/dev/null || fail "add-trigger ts"
"$TRACECTL" add-trigger tg --on-aggregation mlat -s m --when 'p99 > 1000000' --every 250ms \
	--action stop-session s >/dev/null || fail "add-trigger tg"
"$TRACECTL" add-trigger tn --on-event 'app:*' --rate-policy every:3 --action notify >/dev/null ||
	fail "add-trigger tn"
"$TRACECTL" add-trigger tw --on-event 'zz:x' --action rotate-session w >/dev/null ||
	fail "add-trigger tw"
"$GEN" -n 100 -t 1 || fail "gen-events failed"
for _ in $(seq 100); do	# ts fires (m's snapshot): counted, not saved
	ctl_json "$WORK/tl.json" list-triggers || fail "list-triggers failed"
	[ "$(jget "$WORK/tl.json" triggers ts fired)" -ge 1 ] && break
	sleep 0.1
done
[ "$(jget "$WORK/tl.json" triggers ts done)" = true ] || fail "ts did not fire: $(cat "$WORK/tl.json")"

ctl_json "$WORK/save.json" save -o "$WORK/p.json" || fail "save failed"
[ "$(jget "$WORK/save.json" saved path)" = "$WORK/p.json" ] &&
	[ "$(jget "$WORK/save.json" saved sessions '#')" -eq 3 ] &&
	[ "$(jget "$WORK/save.json" saved triggers '#')" -eq 4 ] || fail "save: $(cat "$WORK/save.json")"
python3 -m json.tool "$WORK/p.json" >/dev/null || fail "the profile is not JSON"
python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))
assert p["shmtrace_profile"] == 3
assert [s["memory_only"] for s in p["sessions"]] == [False, False, True]
b = {c["name"]: c["budget"] for s in p["sessions"] for c in s["channels"]}
assert b["b"] == 3 << 20 and b["slow"] == 0 and b["a"] == 1024 << 20, b' "$WORK/p.json" ||
	fail "the profile's version, memory_only or budgets: $(head -c 300 "$WORK/p.json")"
# to the standard output, the same
"$TRACECTL" save >"$WORK/p2.json" || fail "save to stdout failed"
cmp -s "$WORK/p.json" "$WORK/p2.json" || fail "save -o and save to stdout differ"
# every session named: not the notify trigger, which is of none
"$TRACECTL" save s w m >"$WORK/p4.json" || fail "save s w m failed"
[ "$(python3 -c 'import json, sys; print(" ".join(t["name"] for t in json.load(open(sys.argv[1]))["triggers"]))' \
	"$WORK/p4.json")" = "ts tg tw" ] || fail "save s w m: $(cat "$WORK/p4.json")"
"$TRACECTL" save s >"$WORK/s.json" || fail "save s failed"
# save NAME: the triggers that act on NAME or watch its aggregations
python3 - "$WORK" "$TRACECTL" <<'PY' || fail "save NAME saved other triggers (above)"
import json, sys
w = sys.argv[1]
def names(f):
    return sorted(t["name"] for t in json.load(open("%s/%s" % (w, f)))["triggers"])
got = {"s.json": names("s.json")}
for n in ("m", "w"):
    import subprocess
    out = subprocess.run([sys.argv[2], "save", n], capture_output=True,
                         check=True).stdout
    got[n] = sorted(t["name"] for t in json.loads(out)["triggers"])
want = {"s.json": ["tg"], "m": ["tg", "ts"], "w": ["tw"]}
if got != want:
    print(got, "not", want, file=sys.stderr)
    sys.exit(1)
PY
status_json "$WORK/before.json" || fail "status failed"
ctl_json "$WORK/tbefore.json" list-triggers || fail "list-triggers failed"
for t in ts tg tn tw; do
	"$TRACECTL" remove-trigger "$t" >/dev/null || fail "remove-trigger $t"
done
"$TRACECTL" destroy s >/dev/null
"$TRACECTL" destroy w >/dev/null
"$TRACECTL" destroy m >/dev/null
rm -rf "$WORK/o" "$WORK/om" "$SHMTRACE_HOME/traces"	# (w's default output may be named the same again)

ctl_json "$WORK/l.json" load "$WORK/p.json" || fail "load failed: $(cat "$WORK/l.json")"
[ "$(jget "$WORK/l.json" sessions '#')" -eq 3 ] &&
	[ "$(jget "$WORK/l.json" triggers '#')" -eq 4 ] || fail "load: $(cat "$WORK/l.json")"
[ "$(jget "$WORK/l.json" sessions w active)" = true ] || fail "w not active again"
[ "$(jget "$WORK/l.json" sessions m memory_only)" = true ] || fail "m not memory-only again"
[ ! -e "$WORK/om" ] || [ -z "$(ls -A "$WORK/om")" ] || fail "the loaded memory-only m wrote: $(ls "$WORK/om")"
status_json "$WORK/after.json" || fail "status failed"
same "$WORK/before.json" "$WORK/after.json"
ctl_json "$WORK/tafter.json" list-triggers || fail "list-triggers failed"
same_triggers "$WORK/tbefore.json" "$WORK/tafter.json"
# the loaded once-after trigger fires again, into the loaded memory-only session
"$GEN" -n 100 -t 1 || fail "gen-events failed"
for _ in $(seq 100); do
	ctl_json "$WORK/tl.json" list-triggers || fail "list-triggers failed"
	[ "$(jget "$WORK/tl.json" triggers ts fired)" -ge 1 ] && break
	sleep 0.1
done
[ "$(jget "$WORK/tl.json" triggers ts fired)" -eq 1 ] &&
	[ "$(jget "$WORK/tl.json" triggers ts failed)" -eq 0 ] || fail "loaded ts: $(cat "$WORK/tl.json")"
case "$(jget "$WORK/tl.json" triggers ts last_firing path)" in
"$WORK/om/"*) ;;
*) fail "loaded ts's snapshot is not in m's output: $(cat "$WORK/tl.json")" ;;
esac
# what load made is the daemon's state as any command's: a daemon killed
# and started again has it all
restart_sessiond "$WORK/after2.json"
same "$WORK/before.json" "$WORK/after2.json"
ctl_json "$WORK/tafter2.json" list-triggers || fail "list-triggers failed"
same_triggers "$WORK/tbefore.json" "$WORK/tafter2.json"
# saved again, the same profile, byte for byte (w's default output is null in both)
"$TRACECTL" save s >"$WORK/s2.json" || fail "save failed"
cmp -s "$WORK/s.json" "$WORK/s2.json" || fail "the loaded session saves another profile: $(diff "$WORK/s.json" "$WORK/s2.json" | head)"
"$TRACECTL" save -o "$WORK/p3.json" >/dev/null || fail "save failed"
cmp -s "$WORK/p.json" "$WORK/p3.json" || fail "the loaded sessions save another profile: $(diff "$WORK/p.json" "$WORK/p3.json" | head)"

# --override-name: s again as t, beside s
rc=0
"$TRACECTL" load "$WORK/p.json" --override-name t >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 1 ] || fail "--override-name of a profile of 2 sessions: exit $rc"
sed "s|\"$WORK/o\"|\"$WORK/o2\"|" "$WORK/s.json" >"$WORK/s-o2.json"
# s's profile has s's trigger tg, here already: refused, nothing of t made
rc=0
ctl_json "$WORK/l.json" load "$WORK/s-o2.json" --override-name t || rc=$?
[ "$rc" -eq 1 ] && [ "$(error_code "$WORK/l.json")" = trigger-exists ] ||
	fail "load of s as t with s's trigger here: $rc: $(cat "$WORK/l.json")"
[ "$(nsessions)" -eq 3 ] || fail "a refused load left sessions behind"
ctl_json "$WORK/tl.json" list-triggers || fail "list-triggers failed"
[ "$(jget "$WORK/tl.json" triggers '#')" -eq 4 ] || fail "a refused load left triggers: $(cat "$WORK/tl.json")"
# m's profile, renamed: its trigger tg (which watches m and stops s) and ts
# (which snapshots m) act on the new name; tg's name is free once removed
"$TRACECTL" save m >"$WORK/m.json" || fail "save m failed"
"$TRACECTL" remove-trigger tg ts >/dev/null || fail "remove-trigger"
sed "s|\"$WORK/om\"|\"$WORK/om2\"|" "$WORK/m.json" >"$WORK/m-o2.json"
ctl_json "$WORK/l.json" load "$WORK/m-o2.json" --override-name m2 || fail "load --override-name m2: $(cat "$WORK/l.json")"
[ "$(jget "$WORK/l.json" triggers tg condition session)" = m2 ] &&
	[ "$(jget "$WORK/l.json" triggers tg action session)" = s ] &&
	[ "$(jget "$WORK/l.json" triggers ts action session)" = m2 ] || fail "override: $(cat "$WORK/l.json")"
"$TRACECTL" remove-trigger tg ts >/dev/null || fail "remove-trigger"
"$TRACECTL" destroy m2 >/dev/null
"$TRACECTL" load "$WORK/s-o2.json" --override-name t >/dev/null || fail "load --override-name failed"
status_json "$WORK/t.json" t || fail "status t failed"
status_json "$WORK/s-now.json" s || fail "status s failed"
sed -i "s|\"$WORK/o2\"|\"$WORK/o\"|" "$WORK/t.json"
same "$WORK/s-now.json" "$WORK/t.json" s
"$TRACECTL" remove-trigger tg >/dev/null || fail "remove-trigger"
"$TRACECTL" destroy t >/dev/null	# (the daemon's 8 channels, for what follows)
"$TRACECTL" destroy m >/dev/null

# refused before anything is made
python3 - "$WORK/s.json" "$WORK" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
w = sys.argv[2]
def put(name, d):
    json.dump(d, open("%s/%s.json" % (w, name), "w"))
q = json.loads(json.dumps(p)); q["shmtrace_profile"] = 4; q["sessions"][0]["name"] = "n1"
q["sessions"][0]["flight"] = True; put("later", q)
# versions 1 and 2 know no budget; version 1 neither memory-only sessions nor triggers
def older(q, v):
    q["shmtrace_profile"] = v
    for c in q["sessions"][0]["channels"]:
        del c["budget"]
    return q
q = older(json.loads(json.dumps(p)), 1); q["sessions"][0]["name"] = "n8"
q["triggers"] = []; del q["sessions"][0]["memory_only"]; put("v1trig", q)
q = older(json.loads(json.dumps(p)), 1); q["sessions"][0]["name"] = "n9"
del q["triggers"]; put("v1mem", q)
q = json.loads(json.dumps(p)); q["shmtrace_profile"] = 2; q["sessions"][0]["name"] = "n13"
put("v2budget", q)
q = json.loads(json.dumps(p)); q["sessions"][0]["name"] = "n14"
q["sessions"][0]["channels"][0]["budget"] = 1000; put("budgetkib", q)
q = older(json.loads(json.dumps(p)), 2); q["sessions"][0]["name"] = "n15"
q["sessions"][0]["output"] = w + "/o15"; q["triggers"] = []
q["sessions"][0]["channels"] = [c for c in q["sessions"][0]["channels"] if c["name"] == "b"]
q["sessions"][0]["aggregations"] = []; put("v2", q)
q = json.loads(json.dumps(p)); q["sessions"][0]["name"] = "n10"
q["triggers"] = [{"name": "x1", "condition": {"kind": "event", "pattern": "a:*", "filter": None,
                  "rate_policy": {"kind": "every", "n": 0}}, "action": {"kind": "notify", "session": None}}]
put("trigrange", q)
q = json.loads(json.dumps(p)); q["sessions"][0]["name"] = "n11"
q["triggers"] = [{"name": "x2", "condition": {"kind": "event", "pattern": "a:*", "filter": None,
                  "rate_policy": {"kind": "every", "n": 1}}, "action": {"kind": "notify", "session": "n11"}}]
put("trignotify", q)
# a trigger the daemon refuses (its action's session is not there): n12 destroyed again
q = json.loads(json.dumps(p)); q["sessions"][0]["name"] = "n12"; q["sessions"][0]["output"] = w + "/o12"
q["sessions"][0]["channels"] = []; q["sessions"][0]["aggregations"] = []
q["triggers"] = [{"name": "x3", "condition": {"kind": "event", "pattern": "a:*", "filter": None,
                  "rate_policy": {"kind": "every", "n": 1}}, "action": {"kind": "notify", "session": None}},
                 {"name": "x4", "condition": {"kind": "event", "pattern": "a:*", "filter": None,
                  "rate_policy": {"kind": "every", "n": 1}},
                  "action": {"kind": "start-session", "session": "nowhere"}}]
put("trigdaemon", q)
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
refused "$WORK/v1trig.json" bad-profile
grep -q 'triggers' "$WORK/l.json" || fail "the member is not named: $(cat "$WORK/l.json")"
refused "$WORK/v1mem.json" bad-profile
grep -q 'memory_only' "$WORK/l.json" || fail "the member is not named: $(cat "$WORK/l.json")"
refused "$WORK/v2budget.json" bad-profile
grep -q 'budget' "$WORK/l.json" || fail "the member is not named: $(cat "$WORK/l.json")"
refused "$WORK/budgetkib.json" bad-profile
grep -q 'budget' "$WORK/l.json" || fail "the member is not named: $(cat "$WORK/l.json")"
refused "$WORK/trigrange.json" bad-profile
grep -q 'triggers\[0\].condition.rate_policy' "$WORK/l.json" || fail "not named: $(cat "$WORK/l.json")"
refused "$WORK/trignotify.json" bad-profile
refused "$WORK/trigdaemon.json" no-session
ctl_json "$WORK/tl.json" list-triggers || fail "list-triggers failed"
[ "$(jget "$WORK/tl.json" triggers '#')" -eq 2 ] || fail "a refused load left triggers: $(cat "$WORK/tl.json")"
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
# a channel of a profile of version 2 had no budget: none now either
ctl_json "$WORK/l.json" load "$WORK/v2.json" || fail "load of version 2: $(cat "$WORK/l.json")"
status_json "$WORK/n15.json" n15 || fail "status n15 failed"
[ "$(jget "$WORK/n15.json" sessions n15 channels b budget)" -eq 0 ] &&
	[ "$(jget "$WORK/n15.json" sessions n15 channels b budget_buffers)" -eq 0 ] ||
	fail "version 2's channel b: $(cat "$WORK/n15.json")"
"$TRACECTL" destroy n15 >/dev/null
echo "ok: save and load give the sessions back"
