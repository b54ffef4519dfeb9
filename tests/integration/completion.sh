#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The bash completion of tracectl, sourced as bash-completion would: the
# commands, a command's options and their values, record's command; with
# no session daemon running, completing starts none; with one, session,
# channel and aggregation names. Its word lists are those of tracectl's
# table of verbs (tests/apps/verb-table): every command, and each
# command's options, exactly (view: its own and trace-read's).
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../completion/tracectl
. "$top_srcdir/completion/tracectl"

# comp WORD...: complete the last WORD of "tracectl WORD..."; the
# candidates, one per line, in $WORK/comp
comp() {
	COMP_WORDS=("$TRACECTL" "$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="${COMP_WORDS[*]}"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	# as bash runs it: not under the test's errexit
	_tracectl || fail "_tracectl returned $?"
	printf '%s\n' "${COMPREPLY[@]}" >"$WORK/comp"
}

# has WORD...: the candidates hold every WORD
has() {
	local w
	for w; do
		grep -qxF -- "$w" "$WORK/comp" || fail "'${COMP_WORDS[*]:1}': no '$w' in: $(tr '\n' ' ' <"$WORK/comp")"
	done
}

# only WORD...: the candidates are exactly the WORDs
only() {
	has "$@"
	[ "$(grep -c . "$WORK/comp")" -eq $# ] ||
		fail "'${COMP_WORDS[*]:1}': $(tr '\n' ' ' <"$WORK/comp"), expected only $*"
}

complete -p tracectl | grep -q -- "-F _tracectl" || fail "no completion registered for tracectl"
# shellcheck source=../../completion/trace-read
. "$top_srcdir/completion/trace-read"
complete -p trace-read | grep -q -- "-F _trace_read" || fail "no completion registered for trace-read"

# the word lists against the table of verbs: "--long=" / "-x=" for an
# option that takes a value, as the completion writes them
"$B/tests/apps/verb-table" >"$WORK/table" || fail "verb-table failed"
awk '$1 == "verb" { print $2 } END { print "help" }' "$WORK/table" | sort >"$WORK/want"
printf '%s\n' $_tracectl_verbs | sort >"$WORK/got"
cmp -s "$WORK/want" "$WORK/got" ||
	fail "the commands completed are not tracectl's: $(diff "$WORK/want" "$WORK/got" | grep '^[<>]' | tr '\n' ' ')"
"$TRACE_READ" --help | grep -o -- '--[a-z][a-z-]*' | sort -u >"$WORK/trace-read-opts"
"$TRACE_READ" --help | grep -o -- '^  -[a-zA-Z]\>' | tr -d ' ' | sort -u >>"$WORK/trace-read-opts"
for v in $(awk '$1 == "verb" { print $2 }' "$WORK/table"); do
	awk -v v="$v" '$1 == "option" && $2 == v && $3 != "--help" {
		print $3; if ($4 != "") print $4 (substr($3, length($3)) == "=" ? "=" : "") }' \
		"$WORK/table" | sort >"$WORK/want"
	printf '%s\n' $(_tracectl_opts "$v") | sort >"$WORK/got"
	case $v in
	record)	# "--": the end of the options, before the command
		grep -qx -- -- "$WORK/got" || fail "record: no '--' completed"
		sed -i '/^--$/d' "$WORK/got" ;;
	view)	# trace-read's options, passed on: only those trace-read has
		for w in $(comm -13 "$WORK/want" "$WORK/got"); do
			grep -qx -- "${w%=}" "$WORK/trace-read-opts" ||
				fail "view: '$w' is neither view's nor trace-read's option"
		done
		comm -12 "$WORK/want" "$WORK/got" >"$WORK/got.own"
		mv "$WORK/got.own" "$WORK/got" ;;
	esac
	cmp -s "$WORK/want" "$WORK/got" ||
		fail "$v: the options completed are not those of the table: $(diff "$WORK/want" "$WORK/got" | grep '^[<>]' | tr '\n' ' ')"
done

# trace-read: its options are those --help lists, '=' on those that take a value
# (an option line: "  -e, --event PATTERN   text"; an argument in capitals)
"$TRACE_READ" --help | awk 'match($0, /^ +-/) && RLENGTH <= 7 {
	sub(/^ +/, ""); split($0, col, /  +/); n = split(col[1], o, /, /)
	k = split(o[n], w, " "); arg = (k > 1 && w[k] ~ /^[A-Z]/) ? "=" : ""
	for (i = 1; i <= n; i++) { split(o[i], w, " "); print w[1] arg } }' | sort -u >"$WORK/want"
printf '%s\n' $_trace_read_opts | sort -u >"$WORK/got"
cmp -s "$WORK/want" "$WORK/got" ||
	fail "trace-read: the options completed are not those of --help: $(diff "$WORK/want" "$WORK/got" | grep '^[<>]' | tr '\n' ' ')"
# rcomp WORD...: complete the last WORD of "trace-read WORD..." into $WORK/comp
rcomp() {
	COMP_WORDS=("$TRACE_READ" "$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="${COMP_WORDS[*]}"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_trace_read || fail "_trace_read returned $?"
	printf '%s\n' "${COMPREPLY[@]}" >"$WORK/comp"
}
rcomp --fol
only --follow
rcomp --time-f
only --time-format=
rcomp --stat
only --stats --stats=count
rcomp --format ""
only text json
rcomp --time-format = r
only relative
rcomp --export c
only chrome
mkdir "$WORK/tr-dir"
: >"$WORK/tr-file"
rcomp -e 'x:*' "$WORK/tr-"
only "$WORK/tr-dir"
rcomp --export chrome "$WORK/tr-f"
only "$WORK/tr-file"

comp ""
has create destroy enable-channel enable-event disable-event add-context aggregate \
	disable-aggregation show-aggregations start stop rotate snapshot list list-events \
	status view record
comp en
only enable-channel enable-event
comp --v
only --version
comp enable-channel c --
has --subbuf-size --num-subbuf --overwrite --discard --flush-interval --pool-size \
	--compress --session --help
comp enable-channel c --sub
only --subbuf-size=
comp enable-channel c --compress ""
only lz4 none
comp enable-channel c --compress = l
only lz4
comp enable-event --loglevel w
only warning
comp add-context -t ""
only ip cpu_id
comp record --preload libc,p
only libc,pthread
# a helper already in the list is not offered again
comp record --preload libc,l
only
comp record --preload io,libc,
only io,libc,pthread io,libc,func io,libc,all
# the helpers completed are those record knows (as its error lists them)
"$TRACECTL" record --preload nosuch -- true 2>"$WORK/err" >/dev/null &&
	fail "record --preload nosuch succeeded"
comp record --preload ""
sed -n "s/.*unknown helper 'nosuch'; the helpers: \(.*\) (or all)$/\1 all/p" "$WORK/err" |
	tr ' ' '\n' | sort >"$WORK/want"
sort "$WORK/comp" | cmp -s - "$WORK/want" ||
	fail "helpers completed: $(tr '\n' ' ' <"$WORK/comp"); record's: $(cat "$WORK/err")"
comp record --cont
only --context=
comp show-aggregations --format j
only json
comp view s --time-format e
only epoch
comp help sta
only start status
comp create --disc
only --discard
mkdir "$WORK/outdir"
comp create --output "$WORK/out"
only "$WORK/outdir"
# record's command: a command name, then what that command takes
comp record --preload io -- bas
has bash
comp record --no-wait bas
has bash

# no session daemon: nothing to ask, and none started
comp start ""
[ ! -s "$WORK/comp" ] || [ "$(grep -c . "$WORK/comp")" -eq 0 ] || fail "sessions without a daemon: $(cat "$WORK/comp")"
[ -z "$(shmtrace_daemon_pid sessiond)" ] && [ ! -S "$SHMTRACE_HOME/sessiond.sock" ] ||
	fail "completing started a session daemon"

start_daemons
"$TRACECTL" create web --output "$WORK/web" >/dev/null
"$TRACECTL" create db --output "$WORK/db" >/dev/null
"$TRACECTL" enable-channel -s web slow >/dev/null
"$TRACECTL" enable-channel -s db fast >/dev/null
"$TRACECTL" aggregate -s web lat 'shmtrace_test:event' --count >/dev/null

comp start ""
only web db
comp stop w
only web
comp start web ""
only
comp enable-event -s web -c ""
only slow
comp enable-event --session = db -c ""
only fast
comp disable-event -c ""
has slow fast
comp disable-aggregation -s web ""
only lat
comp show-aggregations -s web l
only lat
comp enable-event -s ""
only web db
echo "ok: commands, options, values, sessions, channels, aggregations"
