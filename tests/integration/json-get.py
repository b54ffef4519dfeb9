#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Values of a JSON document of tracectl (--format json, doc/json.md), for
the tests: they read facts from these fields, never from tracectl's words.

usage: json-get.py [--sum] [--default VALUE] FILE STEP...

FILE is the document ("-": standard input; a file of several lines holds
one document a line: the last is read). Each STEP goes one level down:
  KEY        the member KEY of an object
  NAME       in an array of objects, the one whose "name" is NAME
  KEY=VALUE  in an array of objects, the one whose KEY is VALUE
  @N         the Nth element of an array (from 0)
  *          every element of an array: the rest of the steps for each,
             one result a line
  #          the number of members of an array or object
A string is printed as it is, a number as a number, true, false and null
as such, an array or object as compact JSON. --sum prints the sum of the
results (numbers). A step that finds nothing is an error (status 1), said
with the document's path to it, unless --default VALUE is given: VALUE is
printed then.
"""
import json
import sys


DEFAULT = None


def fail(msg):
    if DEFAULT is not None:
        print(DEFAULT)
        sys.exit(0)
    sys.stderr.write("json-get: %s\n" % msg)
    sys.exit(1)


def show(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, (dict, list)):
        return json.dumps(v, separators=(",", ":"))
    return str(v)


def walk(v, steps, where):
    if not steps:
        return [v]
    s, rest = steps[0], steps[1:]
    here = where + "/" + s
    if s == "#":
        if not isinstance(v, (dict, list)):
            fail("%s: not an array nor an object" % here)
        return walk(len(v), rest, here)
    if s == "*":
        if not isinstance(v, list):
            fail("%s: not an array" % here)
        out = []
        for e in v:
            out += walk(e, rest, here)
        return out
    if isinstance(v, dict):
        if s not in v:
            fail("%s: no such member (members: %s)" % (here, ", ".join(v)))
        return walk(v[s], rest, here)
    if isinstance(v, list):
        if s.startswith("@"):
            i = int(s[1:])
            if i >= len(v):
                fail("%s: %d elements" % (here, len(v)))
            return walk(v[i], rest, here)
        key, _, want = s.partition("=") if "=" in s else ("name", "=", s)
        for e in v:
            if isinstance(e, dict) and key in e and show(e[key]) == want:
                return walk(e, rest, here)
        fail("%s: no element with %s %s (%s)" % (here, key, want,
             ", ".join(show(e.get(key)) for e in v if isinstance(e, dict))))
    fail("%s: %s is not an array nor an object" % (here, show(v)))


def main():
    global DEFAULT
    args = sys.argv[1:]
    total = args[:1] == ["--sum"]
    if total:
        args = args[1:]
    if args[:1] == ["--default"] and len(args) > 1:
        DEFAULT, args = args[1], args[2:]
    if not args:
        fail(__doc__)
    path, steps = args[0], args[1:]
    text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    lines = [l for l in text.splitlines() if l.strip()]
    if not lines:
        DEFAULT = None
        fail("%s: empty" % path)
    try:
        doc = json.loads(lines[-1])
    except ValueError as e:
        DEFAULT = None
        fail("%s: not JSON: %s" % (path, e))
    out = walk(doc, steps, path)
    if total:
        print(sum(x for x in out if isinstance(x, int) and not isinstance(x, bool)))
    else:
        for v in out:
            print(show(v))


main()
