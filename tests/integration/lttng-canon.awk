# SPDX-License-Identifier: MIT
# lttng-canon.awk - see lt_canon in lttng-lib.sh: -v fmt=bt|tr FILE, after
# canon-lib.awk: one line per event, "SECONDS.NS PROVIDER:EVENT f=v...",
# every field group of the event
BEGIN {
	if (fmt != "tr" && fmt != "bt") { print "lttng-canon.awk: -v fmt=tr|bt" >"/dev/stderr"; exit 2 }
	escape_ctl()
}
{
	r = $0
	if (!match(r, /^\[[0-9]+\.[0-9]+\] /)) bad("[seconds.nanoseconds] expected")
	t = substr(r, 2, RLENGTH - 3)
	if (length(t) - index(t, ".") != 9) bad("not nanoseconds")
	r = substr(r, RLENGTH + 1)
	if (!match(r, /^\(\+[0-9?.]+\) /)) bad("(+delta) expected")
	r = substr(r, RLENGTH + 1)
	if (!match(r, /^[^ ]+ /)) bad("process or host expected")
	r = substr(r, RLENGTH + 1)
	if (!match(r, /^[^ :]+:[^ :]+: /)) bad("provider:event expected")
	name = substr(r, 1, RLENGTH - 2)
	r = substr(r, RLENGTH + 1)
	fields = ""
	for (;;) {
		fields = fields group()
		if (r == "") break
		if (substr(r, 1, 2) != ", ") bad("', ' expected after a group")
		r = substr(r, 3)
	}
	print t, name fields
}
END { exit failed }
