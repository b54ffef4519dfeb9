#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tracectl: --help on every verb; the usage lines are those of the table
# of verbs (tests/apps/verb-table), in its order, and each names every
# option of its verb; clear messages and non-zero exit status on bad usage
# and refused commands; it starts the session daemon itself.
. "$(dirname "$0")/lib.sh"
expect() {	# expect STATUS PATTERN CMD...: exit status and a message
	local want=$1 pat=$2 rc=0
	shift 2
	"$@" >"$WORK/o" 2>&1 || rc=$?
	[ "$rc" -eq "$want" ] || fail "'$*' exited $rc, expected $want: $(cat "$WORK/o")"
	grep -q -- "$pat" "$WORK/o" || fail "'$*' said: $(cat "$WORK/o")"
}
# jexpect STATUS CHECK CMD...: CMD --format json exits with STATUS, and
# the Python expression CHECK holds of its document d (os.environ at hand)
jexpect() {
	local want=$1 check=$2 rc=0
	shift 2
	"$@" --format json >"$WORK/o.json" 2>"$WORK/o.err" || rc=$?
	[ "$rc" -eq "$want" ] || fail "'$*' exited $rc, expected $want: $(cat "$WORK/o.json" "$WORK/o.err")"
	WORK=$WORK python3 -c 'import json, os, sys
d = json.loads(open(sys.argv[1]).read())
sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' "$WORK/o.json" "$check" ||
		fail "'$*': not $check: $(cat "$WORK/o.json")"
}
code() {	# code CODE: the check of an error of that code
	echo "d[\"error\"][\"code\"] == \"$1\""
}
expect 0 "usage: tracectl" "$TRACECTL" --help
"$B/tests/apps/verb-table" >"$WORK/table" || fail "verb-table failed"
verbs=$(awk '$1 == "verb" { print $2 }' "$WORK/table")
[ "$(echo $verbs | wc -w)" -ge 18 ] || fail "verb-table: $(echo $verbs)"
for v in $verbs; do
	expect 0 "usage: tracectl $v" "$TRACECTL" "$v" --help
	expect 0 "usage: tracectl $v" "$TRACECTL" help "$v"
done
# tracectl --help lists the table's usage lines, in its order (a line
# that goes on is indented by 9 spaces)
"$TRACECTL" --help | sed -n '/^Commands:$/,/^$/p' | sed '1d; $d' |
	awk '/^         / { sub(/^ +/, ""); line = line " " $0; next }
	     { if (line != "") print line; sub(/^  /, ""); line = $0 } END { print line }' >"$WORK/listed"
sed -n 's/^usage [^ ]* //p' "$WORK/table" >"$WORK/usages"
cmp -s "$WORK/listed" "$WORK/usages" ||
	fail "tracectl --help does not list the table of verbs: $(diff "$WORK/usages" "$WORK/listed" | head -6)"
# each usage line names every option of its verb (its long or its short
# form), --help, --timeout and --format aside (every command takes them), and the
# session when it may be the first argument ([NAME ...])
while read -r kind v opt short; do
	[ "$kind" = option ] || continue
	opt=${opt%=}
	case $opt in --help | --timeout | --format) continue ;; esac
	u=" $(sed -n "s/^usage $v //p" "$WORK/table") "
	[ "$opt" = --session ] && [[ $u == *" [NAME"* ]] && continue
	grep -qE -- "[[ |]$opt[] =[]" <<<"$u" || { [ -n "$short" ] && grep -qE -- "[[ ]$short[] ]" <<<"$u"; } ||
		fail "the usage of $v does not name $opt: $u"
done <"$WORK/table"
expect 2 "usage: tracectl" "$TRACECTL"
expect 0 "usage: tracectl view \[NAME | -s NAME\]" "$TRACECTL" help view
expect 0 "usage: tracectl record" "$TRACECTL" help record
expect 2 "unknown command 'bogus'" "$TRACECTL" help bogus
expect 2 "unknown command 'frobnicate'" "$TRACECTL" frobnicate
expect 2 "wrong number of arguments" "$TRACECTL" enable-event -s s
expect 2 "start: unknown option '--bogus'" "$TRACECTL" start --bogus
expect 2 "wrong number of arguments" "$TRACECTL" list extra

# no daemon yet: tracectl starts one
[ ! -e "$SHMTRACE_HOME/sessiond.sock" ] || fail "a daemon runs already"
jexpect 0 'd["sessions"] == []' "$TRACECTL" list
[ -n "$(shmtrace_daemon_pid sessiond)" ] || fail "tracectl did not start the daemon"
jexpect 1 "$(code no-sessions)" "$TRACECTL" start
jexpect 0 'd["sessions"][0]["name"] == "s1" and d["sessions"][0]["output"] == os.environ["WORK"] + "/o1"' \
	"$TRACECTL" create s1 --output "$WORK/o1"
jexpect 1 "$(code session-exists) and d['error']['session'] == 's1'" "$TRACECTL" create s1
expect 2 "bad session name '../x': 1 to 63 bytes" "$TRACECTL" create ../x
expect 2 "pool-size '0': 1 to 4096 buffers" "$TRACECTL" create s3 --pool-size 0
jexpect 0 'd["sessions"][0]["defaults"]["pool_size"] == 3' "$TRACECTL" create s2 -o "$WORK/o2" --pool-size 3
jexpect 0 'd["sessions"][0]["defaults"]["pool_size"] == 3' "$TRACECTL" status s2
jexpect 1 "$(code several-sessions)" "$TRACECTL" start
jexpect 1 "$(code no-session) and d['error']['session'] == 'nope'" "$TRACECTL" start nope
jexpect 0 '[(e["session"], e["channel"], e["pattern"]) for e in d["enablers"]] ==
	[("s1", "channel0", "a:*"), ("s1", "channel0", "b:c")]' "$TRACECTL" enable-event -s s1 'a:*' 'b:c'
big='c["name"] == "big" and c["mode"] == "overwrite" and c["num_subbuf"] == 4 and
	c["subbuf_size"] == 1 << 20 and c["pool_size"] == 2 and c["flush_interval_ms"] == 250 and
	c["compress"] == "lz4"'
jexpect 0 "[c for c in d['channels'] if $big]" "$TRACECTL" enable-channel -s s2 big --subbuf-size 1M \
	--num-subbuf 4 --overwrite --flush-interval 250ms --pool-size 2 --compress lz4
jexpect 0 "[c for c in d['sessions'][0]['channels'] if $big]" "$TRACECTL" status s2
jexpect 1 "$(code channel-exists) and d['error']['channel'] == 'big'" \
	"$TRACECTL" enable-channel -s s2 big
expect 2 "subbuf-size '5000': 4096 to .* a whole number of 4096-byte pages" \
	"$TRACECTL" enable-channel -s s2 odd --subbuf-size 5000
expect 2 "compress 'zip': lz4 or none" "$TRACECTL" enable-channel -s s2 x --compress zip
expect 2 "create: --num-subbuf is not an option of create" "$TRACECTL" create s4 --num-subbuf 4
jexpect 0 'd["enablers"][0]["channel"] == "big"' "$TRACECTL" enable-event -s s2 -c big 'x:*'
jexpect 1 "$(code no-channel) and d['error']['channel'] == 'nope'" \
	"$TRACECTL" enable-event -s s2 -c nope 'x:*'
jexpect 0 '[e["pattern"] for c in d["sessions"][0]["channels"] for e in c["enablers"]] == ["x:*"]' \
	"$TRACECTL" status s2
jexpect 1 "$(code not-enabled) and d['error']['pattern'] == 'zz:*'" "$TRACECTL" disable-event -s s1 'zz:*'
jexpect 0 'd["enablers"][0]["pattern"] == "b:c" and d["enablers"][0]["removed"]' \
	"$TRACECTL" disable-event -s s1 'b:c'
jexpect 1 "$(code not-enabled)" "$TRACECTL" disable-event -s s2 -c big 'b:c'
jexpect 0 'd["sessions"][0]["active"]' "$TRACECTL" start s1
jexpect 1 "$(code active)" "$TRACECTL" start s1
jexpect 0 '[s["active"] for s in d["sessions"] if s["name"] == "s1"] == [True]' "$TRACECTL" list
jexpect 0 '[e["pattern"] for e in d["sessions"][0]["channels"][0]["enablers"]] == ["a:*"]' \
	"$TRACECTL" status s1
jexpect 0 'not d["sessions"][0]["active"] and d["summary"]["recorded"] == 0' "$TRACECTL" stop s1
jexpect 1 "$(code inactive)" "$TRACECTL" stop s1
jexpect 0 'd["sessions"][0]["name"] == "s1" and d["summary"]["session"] == "s1"' "$TRACECTL" destroy s1
jexpect 0 'd["sessions"][0]["name"] == "s2"' "$TRACECTL" destroy s2
jexpect 0 'd["sessions"] == []' "$TRACECTL" list

# each bad command line says why (exit 2), and nothing reaches the daemon
expect 2 "subbuf-size '12q': expected bytes, or with k, M or G" \
	"$TRACECTL" enable-channel -s s c --subbuf-size 12q
expect 2 "flush-interval '10': a unit is needed" "$TRACECTL" enable-channel -s s c --flush-interval 10
# the option as the user wrote it, never an internal key (subbuf=1000)
expect 2 "subbuf-size '1000': 4096 to" "$TRACECTL" enable-channel -s s c --subbuf-size 1000
! grep -q "subbuf=" "$WORK/o" || fail "an internal key in: $(cat "$WORK/o")"
expect 2 "num-subbuf '1': 2 to 64 sub-buffers" "$TRACECTL" enable-channel -s s c --num-subbuf 1
expect 2 "every '99999999h': too large" "$TRACECTL" rotate s --every 99999999h
expect 2 "overwrite and --discard exclude each other" \
	"$TRACECTL" enable-channel -s s c --overwrite --discard
expect 2 "overwrite and --discard exclude each other" "$TRACECTL" create s --discard --overwrite
expect 2 "compress 'zstd': lz4 or none" "$TRACECTL" enable-channel -s s c --compress zstd
expect 2 "loglevel and --loglevel-only exclude each other" \
	"$TRACECTL" enable-event -s s --loglevel info --loglevel-only debug 'a:*'
expect 2 "loglevel 'loud': emerg alert" "$TRACECTL" enable-event --loglevel loud 'a:*'
expect 2 "unknown command 'statsu'; did you mean 'status'?" "$TRACECTL" statsu
expect 2 "unknown command 'enable'; did you mean 'enable-" "$TRACECTL" enable
expect 2 "no context field 'pid' (known: ip, cpu_id)" "$TRACECTL" add-context -t pid
expect 2 "list: --session is not an option of list" "$TRACECTL" list -s x
expect 2 "'--output' needs a value" "$TRACECTL" create s --output
# a misspelt option: the closest of the verb's own options, whoever parses it
expect 2 "create: unknown option '--outptu'; did you mean '--output'?" "$TRACECTL" create s --outptu
expect 2 "did you mean '--session'?" "$TRACECTL" aggregate --sesion s a 'x:*'
expect 2 "did you mean '--interval'?" "$TRACECTL" show-aggregations --intreval 1s
expect 2 "did you mean '--output'?" "$TRACECTL" record --outpt "$WORK/r" true
expect 2 "'-o' needs a value" "$TRACECTL" record -o
expect 2 "start: unknown option '--outptu'" "$TRACECTL" start --outptu	# start takes no --output
! grep -q "did you mean" "$WORK/o" || fail "start was offered an option it does not take: $(cat "$WORK/o")"
expect 2 "bad channel name 'a/b'" "$TRACECTL" enable-event -c a/b 'x:*'
expect 2 "show-aggregations: --interval '5': a unit is needed" \
	"$TRACECTL" show-aggregations --interval 5
expect 2 "live=PERIOD: microseconds, or with a unit" "$TRACECTL" create s --live=fast
jexpect 0 'd["sessions"] == []' "$TRACECTL" list

# an unnamed session: auto-DATE, written to traces/auto-DATE (the date once);
# sessions never started and records that could not run leave no directory
jexpect 0 '__import__("re").fullmatch(r"auto-\d{8}-\d{6}", d["sessions"][0]["name"]) and
	d["sessions"][0]["output"] == os.environ["SHMTRACE_HOME"] + "/traces/" + d["sessions"][0]["name"]' \
	"$TRACECTL" create
auto=$(jget "$WORK/o.json" sessions @0 name)
jexpect 0 "d['sessions'][0]['name'] == '$auto'" "$TRACECTL" destroy "$auto"
jexpect 0 'd["sessions"][0]["name"] == "nev"' "$TRACECTL" create nev --output "$WORK/never"
jexpect 0 'd["sessions"][0]["name"] == "nev"' "$TRACECTL" destroy nev
[ ! -e "$SHMTRACE_HOME/traces" ] && [ ! -e "$WORK/never" ] ||
	fail "a session never started left a directory: $(ls "$SHMTRACE_HOME/traces" "$WORK/never" 2>&1)"
# rexpect STATUS CHECK ARGS...: tracectl record --format json ARGS exits with
# STATUS, and CHECK holds of its document (the last line of its standard error)
rexpect() {
	local want=$1 check=$2 rc=0
	shift 2
	"$TRACECTL" record --format json "$@" >/dev/null 2>"$WORK/o.err" || rc=$?
	[ "$rc" -eq "$want" ] || fail "'record $*' exited $rc, expected $want: $(cat "$WORK/o.err")"
	python3 -c 'import json, sys
d = json.loads(open(sys.argv[1]).read().splitlines()[-1])
sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' "$WORK/o.err" "$check" ||
		fail "'record $*': not $check: $(cat "$WORK/o.err")"
}
rexpect 127 'd["run"]["exec_errno"] == 2 and d["exit_status"] == 127' \
	--output "$WORK/r127" -- "$WORK/no-such-program"
: >"$WORK/not-executable"
rexpect 126 'd["run"]["exec_errno"] == 13 and d["exit_status"] == 126' \
	--output "$WORK/r126" -- "$WORK/not-executable"
rexpect 127 'd["run"]["exec_errno"] == 2' -- "$WORK/no-such-program"
[ ! -e "$WORK/r127" ] && [ ! -e "$WORK/r126" ] && [ ! -e "$SHMTRACE_HOME/traces" ] ||
	fail "a record that could not run left a directory behind"
jexpect 0 'd["sessions"] == []' "$TRACECTL" list

# trace-read: the same scheme (2 bad usage, 1 runtime error, 3 damaged)
expect 2 "--stats and --profile cannot be used together" "$TRACE_READ" --stats --profile "$WORK"
expect 2 "--latency and --format json cannot be used together" \
	"$TRACE_READ" --latency a,b --format json "$WORK"
expect 2 "--pid 'abc': a number from 1" "$TRACE_READ" --pid abc "$WORK"
expect 2 "--slower-than '5': a unit is needed" "$TRACE_READ" --latency a,b --slower-than 5 "$WORK"
expect 1 "no CTF trace found" "$TRACE_READ" "$WORK"
mkdir -p "$WORK/bad"
printf '/* CTF 1.8 */\ntrace { major = 1; minor = 8; %%%% };\n' >"$WORK/bad/metadata"
expect 3 "bad/metadata:" "$TRACE_READ" "$WORK/bad"
echo "ok"
