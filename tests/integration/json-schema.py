#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check tracectl's JSON documents against the schema of doc/json.md.

usage: json-schema.py SCHEMA_MD FILE...
       json-schema.py --self-test SCHEMA_MD

SCHEMA_MD is doc/json.md: its schema is the ```json block after the line
"<!-- schema: ...". Each FILE holds documents, one a line (blank lines
skipped); each must be valid JSON, one object, and satisfy the schema's
"document" and the schema its "command" names in "commands" (a command
the schema does not know is an error): the members it requires (unless
the document has an "error": then the command did not work, and may lack
them), and no member that neither names. Prints one line per error ("FILE:LINE: PATH:
what") and exits 1 when there is one, else prints how many documents
were checked.

The subset of JSON Schema checked: type (a name or a list; "integer" is
a number without a fraction, not a boolean), properties, required,
additionalProperties (false, or the schema of the members not named),
items, enum, const, minimum, and $ref "#/definitions/NAME", which may sit
beside other keywords (all apply; a null that the local "type" allows
passes without the $ref). --self-test checks that the checker itself
refuses what it must (a document the schema does not allow).
"""
import json
import re
import sys

TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def load_schema(md):
    text = open(md, encoding="utf-8").read()
    m = re.search(r"<!-- schema:[^\n]*-->\s*```json\n(.*?)\n```", text, re.S)
    if not m:
        sys.exit("json-schema: no schema block in %s" % md)
    return json.loads(m.group(1))


class Checker:
    def __init__(self, schema):
        self.schema = schema
        self.errors = []

    def err(self, where, what):
        self.errors.append("%s: %s" % (where, what))

    def ref(self, r):
        if not r.startswith("#/definitions/"):
            raise ValueError("bad $ref " + r)
        return self.schema["definitions"][r[len("#/definitions/"):]]

    def check(self, v, s, where):
        t = s.get("type")
        if t is not None:
            names = t if isinstance(t, list) else [t]
            if not any(TYPES[n](v) for n in names):
                self.err(where, "%s is not of type %s" % (json.dumps(v)[:80], "/".join(names)))
                return
            if v is None and "null" in names:
                return
        if "$ref" in s:
            self.check(v, self.ref(s["$ref"]), where)
        if "const" in s and v != s["const"]:
            self.err(where, "%s is not %s" % (json.dumps(v)[:80], json.dumps(s["const"])))
        if "enum" in s and v not in s["enum"]:
            self.err(where, "%s is not one of %s" % (json.dumps(v)[:80], s["enum"]))
        if "minimum" in s and TYPES["number"](v) and v < s["minimum"]:
            self.err(where, "%s is below %s" % (v, s["minimum"]))
        if isinstance(v, dict):
            for k in s.get("required", []):
                if k not in v:
                    self.err(where, "no member %s" % k)
            props = s.get("properties", {})
            extra = s.get("additionalProperties", True)
            for k, x in v.items():
                if k in props:
                    self.check(x, props[k], where + "/" + k)
                elif extra is False:
                    self.err(where, "a member the schema does not name: %s" % k)
                elif isinstance(extra, dict):
                    self.check(x, extra, where + "/" + k)
        if isinstance(v, list) and "items" in s:
            for i, x in enumerate(v):
                self.check(x, s["items"], "%s/%d" % (where, i))

    def document(self, d, where):
        """A whole document: "document", then its command's schema, then no
        member that neither names."""
        self.check(d, self.schema["document"], where)
        if not isinstance(d, dict):
            return
        cmd = d.get("command")
        c = self.schema["commands"].get(cmd)
        if c is None:
            self.err(where, "a command the schema does not know: %s" % cmd)
            return
        if "error" in d:    # a refusal, or no reply: the members the command has when it works may lack
            c = dict(c)
            c.pop("required", None)
        self.check(d, c, where)
        known = set(self.schema["document"]["properties"]) | set(c.get("properties", {}))
        for k in d:
            if k not in known:
                self.err(where, "a member %s does not have: %s" % (cmd, k))


def self_test(schema):
    bad = [
        {"command": "list", "sessions": []},                              # no version
        {"version": 2, "command": "list", "sessions": []},                # another version
        {"version": 1, "command": "list"},                                # no sessions
        {"version": 1, "command": "list", "sessions": [], "extra": 1},    # a member list has not
        {"version": 1, "command": "frobnicate"},                          # an unknown command
        {"version": 1, "command": "stop", "sessions": [],
         "summary": {"session": "s", "recorded": "12"}},                  # a count as a string
        {"version": 1, "command": "start", "sessions": [],
         "error": {"code": "x", "message": "m"}},                         # an error without errno
        {"version": 1, "command": "status", "daemon": {"pid": 1, "uid": 0, "version": "v",
                                                        "home": "/"}, "sessions": [{"name": "s"}]},
    ]
    good = {"version": 1, "command": "list", "sessions": []}
    for i, d in enumerate(bad):
        c = Checker(schema)
        c.document(d, "bad %d" % i)
        if not c.errors:
            print("json-schema: self-test: bad document %d accepted: %s" % (i, json.dumps(d)))
            return 1
    c = Checker(schema)
    c.document(good, "good")
    if c.errors:
        print("json-schema: self-test: good document refused: %s" % c.errors)
        return 1
    print("json-schema: self-test: %d bad documents refused, a good one taken" % len(bad))
    return 0


def main():
    args = sys.argv[1:]
    if args[:1] == ["--self-test"] and len(args) == 2:
        return self_test(load_schema(args[1]))
    if len(args) < 2:
        sys.exit(__doc__)
    schema = load_schema(args[0])
    checker, n = Checker(schema), 0
    for path in args[1:]:
        for i, line in enumerate(open(path, encoding="utf-8"), 1):
            if not line.strip():
                continue
            where = "%s:%d" % (path, i)
            try:
                d = json.loads(line)
            except ValueError as e:
                checker.err(where, "not JSON: %s" % e)
                continue
            checker.document(d, where)
            n += 1
    for e in checker.errors:
        print(e)
    if checker.errors:
        return 1
    print("json-schema: %d documents as doc/json.md says" % n)
    return 0


sys.exit(main())
