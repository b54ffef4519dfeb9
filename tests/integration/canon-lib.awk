# SPDX-License-Identifier: MIT
# canon-lib.awk - the value parser of the tests that compare trace-read's
# text with babeltrace2's (read-compare.sh, read-lttng.sh): a field group
# "{ f = v, ... }" at the start of r becomes " f=v f=v...", each value in
# one canonical form (integers in decimal, strings with their escapes
# decoded then \ " and control characters escaped, floats to -v digits=N
# significant digits, 17 by default, enumerations LABEL:N, arrays [a,b]);
# a sequence's "_NAME_length" field is dropped before NAME. The caller's
# BEGIN fills ctl[] (escape_ctl()) and its rules set r; bad() ends.
function bad(why) {
	printf "%s:%d: %s: %s\n", FILENAME, FNR, why, $0 >"/dev/stderr"
	failed = 1
	exit 1
}
function hex2dec(h,   i, k, d, c, n, carry, out, dig) {
	n = 1
	dig[1] = 0
	for (i = 1; i <= length(h); i++) {
		d = index("0123456789abcdef", substr(h, i, 1)) - 1
		if (d < 0) bad("bad hexadecimal digit")
		carry = d
		for (k = 1; k <= n; k++) {
			c = dig[k] * 16 + carry
			dig[k] = c % 10
			carry = int(c / 10)
		}
		while (carry) {
			dig[++n] = carry % 10
			carry = int(carry / 10)
		}
	}
	out = ""
	for (k = n; k >= 1; k--) out = out dig[k]
	sub(/^0+/, "", out)
	return out == "" ? "0" : out
}
function scalar(v,   l) {
	if (v ~ /^0[xX][0-9a-fA-F]+$/) return hex2dec(tolower(substr(v, 3)))
	if (v ~ /^[-+]?[0-9]+$/) {
		sub(/^\+/, "", v)
		l = ""
		if (substr(v, 1, 1) == "-") { l = "-"; v = substr(v, 2) }
		sub(/^0+/, "", v)
		if (v == "") return "0"
		return l v
	}
	if (v ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/) return sprintf("%." (digits ? digits : 17) "g", v + 0)
	l = tolower(v)
	sub(/^\+/, "", l)
	sub(/infinity/, "inf", l)
	if (l ~ /^-?(inf|nan)$/) return l
	bad("unknown value '" v "'")
}
# a quoted string: escapes decoded, then \ " and control characters escaped
function str(q,   s, out, i, c, h) {
	s = substr(q, 2, length(q) - 2)
	if (s !~ /[\\\001-\037\177]/) return "\"" s "\""
	out = ""
	while ((i = index(s, "\\")) > 0) {
		out = out substr(s, 1, i - 1)
		c = substr(s, i + 1, 1)
		s = substr(s, i + 2)
		if (c == "n") c = "\n"
		else if (c == "t") c = "\t"
		else if (c == "r") c = "\r"
		else if (c == "a") c = "\007"
		else if (c == "b") c = "\010"
		else if (c == "f") c = "\014"
		else if (c == "v") c = "\013"
		else if (c == "e") c = "\033"
		else if (c == "x") {
			h = tolower(substr(s, 1, 2))
			if (h !~ /^[0-9a-f][0-9a-f]$/) bad("bad \\x escape")
			c = sprintf("%c", hex2dec(h) + 0)
			s = substr(s, 3)
		} else if (c != "\\" && c != "\"") bad("unknown escape \\" c)
		out = out c
	}
	s = out s
	out = ""
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		if (c == "\\" || c == "\"") out = out "\\" c
		else if (c in ctl) out = out ctl[c]
		else out = out c
	}
	return "\"" out "\""
}
# the value at the start of r; sets vcount to the elements of an array, else -1
function value(   c, v, out, n) {
	c = substr(r, 1, 1)
	vcount = -1
	if (c == "\"") {
		if (!match(r, /^"([^"\\]|\\.)*"/)) bad("unterminated string")
		v = substr(r, 1, RLENGTH)
		r = substr(r, RLENGTH + 1)
		return str(v)
	}
	if (c == "[") {
		r = substr(r, 2)
		if (substr(r, 1, 2) == " ]") { r = substr(r, 3); vcount = 0; return "[]" }
		out = ""
		for (n = 0; ; n++) {
			if (!match(r, /^ \[[0-9]+\] = /)) bad("array element expected")
			if (substr(r, 3, RLENGTH - 6) + 0 != n) bad("array index " n " expected")
			r = substr(r, RLENGTH + 1)
			out = out (n ? "," : "") value()
			if (substr(r, 1, 1) == ",") { r = substr(r, 2); continue }
			if (substr(r, 1, 2) == " ]") { r = substr(r, 3); vcount = n + 1; return "[" out "]" }
			bad("',' or ' ]' expected after an array element")
		}
	}
	if (c == "(") {
		# an enumeration: ( "LABEL" : container = N ) or ( <unknown> : container = N )
		if (match(r, /^\( "([^"\\]|\\.)*" : container = /)) {
			v = substr(r, 4, RLENGTH - 19)
		} else if (match(r, /^\( <unknown> : container = /)) {
			v = "<unknown>"
		} else
			bad("enumeration expected")
		r = substr(r, RLENGTH + 1)
		if (!match(r, /^[^ ]+ \)/)) bad("enumeration value expected")
		v = v ":" scalar(substr(r, 1, RLENGTH - 2))
		r = substr(r, RLENGTH + 1)
		return v
	}
	if (c == "{") {
		v = group()
		vcount = -1
		return "{" substr(v, 2) "}"
	}
	if (!match(r, /^[^], }]+/)) bad("value expected")
	v = substr(r, 1, RLENGTH)
	r = substr(r, RLENGTH + 1)
	return scalar(v)
}
# "{ f = v, ... }" at the start of r: " f=v f=v..."
function group(   out, before, pname, pval, nm, v) {
	if (substr(r, 1, 1) != "{") bad("'{' expected")
	r = substr(r, 2)
	if (substr(r, 1, 2) == " }") { r = substr(r, 3); return "" }
	out = ""
	pname = ""
	for (;;) {
		if (!match(r, /^ [A-Za-z_][A-Za-z0-9_]* = /)) bad("field name expected")
		nm = substr(r, 2, RLENGTH - 4)
		r = substr(r, RLENGTH + 1)
		v = value()
		if (vcount >= 0 && pname == nm "_length" && pval == vcount "")
			out = before
		before = out
		out = out " " nm "=" v
		pname = nm
		pval = v
		if (substr(r, 1, 1) == ",") { r = substr(r, 2); continue }
		if (substr(r, 1, 2) == " }") { r = substr(r, 3); return out }
		bad("',' or ' }' expected after a field")
	}
}
# the escapes of control characters in canonical strings
function escape_ctl(   i) {
	ctl["\n"] = "\\n"; ctl["\t"] = "\\t"; ctl["\r"] = "\\r"
	for (i = 1; i < 32; i++)
		if (!(sprintf("%c", i) in ctl)) ctl[sprintf("%c", i)] = sprintf("\\x%02x", i)
	ctl[sprintf("%c", 127)] = "\\x7f"
}
