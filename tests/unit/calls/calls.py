#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The calls between the files of one program, read off its object files.

calls.py [--max N] [--doc FILE --dir DIR] OBJ...

An object file calls another when it references (nm: U) a function or an
object that the other defines (T, D, B, R, ...). Prints each file with the
files it calls, then the groups of files that call each other in a loop
(strongly connected components of more than one file). Exits 1 when such a
group has more than N files (--max), or, with --doc, when a file is not
named in FILE: as `DIR/FILE`, or as `FILE` (or `x.[ch]` for x.c) in the
line of FILE's table of components that names `DIR/`.
"""
import os
import re
import subprocess
import sys


def symbols(obj):
    out = subprocess.run(["nm", "--defined-only", obj], capture_output=True, text=True,
                         check=True).stdout
    defs = {l.split()[-1] for l in out.splitlines()
            if len(l.split()) == 3 and l.split()[1] in "TDBRGSVW"}
    out = subprocess.run(["nm", "--undefined-only", obj], capture_output=True, text=True,
                         check=True).stdout
    undef = {l.split()[-1] for l in out.splitlines() if l.split()}
    return defs, undef


def name(obj):
    # automake names objects PROGRAM-FILE.o
    base = os.path.basename(obj)[:-2]
    return re.sub(r"^[A-Za-z0-9_]+-", "", base) + ".c"


def sccs(nodes, edges):
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def main():
    args = sys.argv[1:]
    limit, doc, top = None, None, None
    while args and args[0].startswith("--"):
        if args[0] == "--max":
            limit = int(args[1])
        elif args[0] == "--doc":
            doc = args[1]
        elif args[0] == "--dir":
            top = args[1]
        args = args[2:]
    files = {name(o): symbols(o) for o in args}
    owner = {}
    for f, (defs, _) in files.items():
        for s in defs:
            owner[s] = f
    edges = {f: set() for f in files}
    for f, (_, undef) in files.items():
        for s in undef:
            if s in owner and owner[s] != f:
                edges[f].add(owner[s])
    for f in sorted(files):
        print(f"{f} -> {' '.join(sorted(edges[f])) or '(none)'}")
    bad = 0
    loops = [c for c in sccs(files, edges) if len(c) > 1]
    for c in loops:
        print(f"loop of {len(c)} files: {' '.join(c)}")
        if limit is not None and len(c) > limit:
            bad = 1
    if not loops:
        print("no loop")
    if doc:
        text = open(doc, encoding="utf-8").read()
        row = "".join(l for l in text.splitlines() if l.startswith(f"| `{top}/` |"))
        for f in sorted(files):
            pair = f"`{f[:-2]}.[ch]`" if f.endswith((".c", ".h")) else None
            if f"{top}/{f}" not in text and f"`{f}`" not in row and (pair is None or pair not in row):
                print(f"{f} is not named in {os.path.basename(doc)}")
                bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main())
