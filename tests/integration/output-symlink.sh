#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A link planted in the output's path after create (a user who owns the
# output's parent directory): no trace, no marker, nothing at all is made
# where the link points, and stop says that the output could not be
# written. What existed of the output at create is opened then, and the
# rest is made under it without following a link.
. "$(dirname "$0")/lib.sh"
start_daemons
expect_log "error: cannot write $WORK/[ab]/out: (Not a directory|Too many levels of symbolic links) \(errno (20|40)\)"

# plant TAG WHEN: session TAG writing to $WORK/TAG/out, a link planted
# there before start (WHEN=create) or after start, before the first trace
plant() {
	local tag=$1 when=$2 rc=0
	mkdir -p "$WORK/$tag" "$WORK/target-$tag"
	"$TRACECTL" create "$tag" --output "$WORK/$tag/out" >/dev/null || fail "$tag: create"
	"$TRACECTL" enable-event -s "$tag" 'shmtrace_test:*' >/dev/null || fail "$tag: enable"
	if [ "$when" = create ]; then
		ln -s "$WORK/target-$tag" "$WORK/$tag/out"
		"$TRACECTL" start "$tag" >/dev/null || fail "$tag: start"
	else
		"$TRACECTL" start "$tag" >/dev/null || fail "$tag: start"
		[ -d "$WORK/$tag/out" ] || fail "$tag: start did not make the output"
		mv "$WORK/$tag/out" "$WORK/$tag/moved"
		ln -s "$WORK/target-$tag" "$WORK/$tag/out"
	fi
	"$GEN" -n 1000 -t 1 || fail "$tag: gen-events failed"
	ctl_json "$WORK/$tag.stop" stop "$tag" 2>"$WORK/$tag.err" || rc=$?
	[ -z "$(ls -A "$WORK/target-$tag")" ] ||
		fail "$tag: written where the link points: $(ls -A "$WORK/target-$tag")"
	[ "$rc" -eq 1 ] || fail "$tag: stop: exit status $rc, the trace could not be written"
	# ELOOP or ENOTDIR, the path under the link
	[ "$(error_code "$WORK/$tag.stop")" = write-error ] &&
		[[ " 20 40 " == *" $(jget "$WORK/$tag.stop" error errno) "* ]] ||
		fail "$tag: stop said: $(cat "$WORK/$tag.stop")"
	"$TRACECTL" destroy "$tag" >/dev/null 2>&1 || true
}
plant a create
plant b start
echo "ok"
