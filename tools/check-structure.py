#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check the library's structure from its object files and sources.

  check-structure.py BUILD_DIR [SOURCE_DIR]

From the objects under BUILD_DIR/src/CMakeFiles (nm's defined and undefined
symbols) it draws which source file calls which, then reports:
  - every circle of files (files that reach each other through calls);
  - every call against the layers: base <- kernels <- tiles <- pipeline <- cli
    (a file may call its own layer and the layers below it);
and from SOURCE_DIR/src/pipeline (default: this script's project) every
function longer than 150 lines.  Exit 0 when all is clean, 1 with a list.
"""
import collections
import glob
import os
import re
import subprocess
import sys

LAYERS = {"base": 0, "kernels": 1, "tiles": 2, "pipeline": 3, "cli": 4}
MAX_LINES = 150
LONG_CHECKED = ("src/pipeline",)


def symbols(build):
    objs = sorted(glob.glob(os.path.join(build, "src", "CMakeFiles", "*.dir", "**", "*.o"),
                            recursive=True))
    defined, used = {}, {}
    for o in objs:
        name = o.split(".dir" + os.sep, 1)[1][:-2]
        out = subprocess.run(["nm", "-P", o], capture_output=True, text=True, check=True).stdout
        d, u = set(), set()
        for line in out.splitlines():
            p = line.split()
            if len(p) >= 2 and p[1] == "U":
                u.add(p[0])
            elif len(p) >= 2 and p[1] in "TDBRVW":
                d.add(p[0])
        defined[name], used[name] = d, u
    return defined, used


def graph(defined, used):
    owner = {}
    for name, syms in defined.items():
        for s in syms:
            owner.setdefault(s, name)
    edges = collections.defaultdict(set)
    why = {}
    for name, syms in used.items():
        for s in syms:
            o = owner.get(s)
            if o and o != name:
                edges[name].add(o)
                why.setdefault((name, o), s)
    return edges, why


def circles(nodes, edges):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        work = [(v, iter(sorted(edges[v])))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    advanced = True
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                scc = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    scc.append(w)
                    if w == node:
                        break
                if len(scc) > 1:
                    out.append(sorted(scc))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def long_functions(source):
    found = []
    for d in LONG_CHECKED:
        for path in sorted(glob.glob(os.path.join(source, d, "*.c"))):
            lines = open(path, encoding="utf-8").read().split("\n")
            start = None
            for i, line in enumerate(lines):
                if line.startswith("{"):
                    start = i
                elif line.startswith("}") and start is not None:
                    head = lines[start - 1] if start > 0 else ""
                    n = i - start + 1
                    if n > MAX_LINES and "(" in head:
                        found.append("%s:%d: %s is %d lines (at most %d)"
                                     % (os.path.relpath(path, source), start, head.strip(), n,
                                        MAX_LINES))
                    start = None
    return found


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    build = argv[1]
    source = argv[2] if len(argv) > 2 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    defined, used = symbols(build)
    if not defined:
        print("check-structure: no objects under %s/src/CMakeFiles" % build, file=sys.stderr)
        return 2
    edges, why = graph(defined, used)
    problems = []
    for scc in circles(defined.keys(), edges):
        problems.append("circle: " + " ".join(scc))
        for a in scc:
            for b in sorted(edges[a]):
                if b in scc:
                    problems.append("    %s -> %s (%s)" % (a, b, why[(a, b)]))
    for a in sorted(edges):
        la = LAYERS.get(a.split("/")[0])
        for b in sorted(edges[a]):
            lb = LAYERS.get(b.split("/")[0])
            if la is not None and lb is not None and lb > la:
                problems.append("layer: %s calls %s (%s), a layer above it" % (a, b, why[(a, b)]))
    problems += long_functions(source)
    for p in problems:
        print(p)
    print("check-structure: %d files, %d calls between files, %d problems"
          % (len(defined), sum(len(v) for v in edges.values()), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
