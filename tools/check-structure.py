#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check the library's structure from its object files and sources.

  check-structure.py BUILD_DIR [SOURCE_DIR]
  check-structure.py --lengths [SOURCE_DIR]   (every function's length)

The rooms of src/, bottom up (a room may use its own and the rooms below):
  include (the public header) < base < kernels < tiles < tiles/formats
  < tiles/sources, tiles/sinks (siblings: neither uses the other)
  < pipeline < cli (which uses include/ alone: the CLI is on the public API)
From the objects under BUILD_DIR/src/CMakeFiles (nm's defined and undefined
symbols) it draws which source file calls which, and from the sources under
SOURCE_DIR/src (default: this script's project) which file includes which
header, then reports:
  - every circle of files (files that reach each other through calls);
  - every call against the rooms' order (a file calls its own room and
    the rooms below it);
  - every header included against it: a header belongs to the room of its
    folder, and only that room and the rooms above it include it;
  - every circle of rooms, calls and includes together;
  - every function longer than 120 lines: C and CUDA in src/ (from the
    first line of its signature to its closing brace), Python in
    python/winent (a def from its line to its body's last), except those
    in LONG_ALLOWED (listed, and said when they no longer need to be).
  - every file in src/pipeline longer than 600 lines;
  - every test of the sign of an engine's `device` (CPU or GPU) in
    src/pipeline outside the engines' own files (engines*.c): the rest
    of the room asks what an engine can do (engine_ops), never which it is.
  - every write to a part of a chunk (src/pipeline/job_chunk.h: its core,
    claim, bands, counts, fill, output pieces) outside the files that own
    that part (CHUNK_OWNERS: one table, each owner said why).
The edges in EXCEPTIONS are allowed and listed, so that they stay in
sight until the code they name moves. Exit 0 when all is clean, 1 with a list.
"""
import collections
import glob
import os
import re
import subprocess
import sys

# Room -> rank; a room uses rooms of a lower rank and itself, never a
# sibling of the same rank.
RANKS = {"include": 0, "base": 1, "kernels": 2, "tiles": 3, "tiles/formats": 4,
         "tiles/sources": 5, "tiles/sinks": 5, "pipeline": 6, "cli": 7}
# Rooms that may include only the rooms named (besides themselves) and call
# only the public API (the functions include/winent.h declares WINENT_API).
ONLY = {"cli": {"include"}}
# Where a quoted #include is looked for after the including file's folder:
# the compiler's -I folders, in order (CMakeLists.txt, src/CMakeLists.txt).
INCLUDE_DIRS = ("include", "src", "src/tiles", "src/tiles/sources", "src/tiles/sinks",
                "src/tiles/formats")
SOURCE_ENDINGS = (".c", ".h", ".cu", ".cuh")
# Edges against the rooms' order that the tree has today, allowed here so
# that the check guards everything else; each is to go when its code moves
# (the header split by owner). (from, to): files relative to src/ (an
# object's source for a call, the header for an include).
EXCEPTIONS = {
    # The source interface (tiles/source.h) carries the sources' recorded
    # statistics (winent_band_stats), whose header lives with the sources.
    ("tiles/source.h", "tiles/sources/band_stats.h"): "include",
    # --version's library list asks the GDAL loader, which the sources own.
    ("tiles/libversions.c", "tiles/sources/gdal_api.h"): "include",
    ("tiles/libversions.c", "tiles/sources/gdal_api.c"): "call",
    # The sink interface names --ot's sample types (tiles/formats/out_sample.h).
    ("tiles/sink.h", "tiles/formats/out_sample.h"): "include",
}
MAX_LINES = 120
# Functions over MAX_LINES today, by "path:name", allowed so that the rule
# guards every other function; each is to go when it is split.
LONG_ALLOWED = set()
MAX_FILE_LINES = 600
LONG_FILES_CHECKED = ("src/pipeline",)
# Where an engine's device number may be compared with -1 or 0.
ENGINE_FILES = re.compile(r"^engines(_\w+)?\.c$")
DEVICE_SIGN = re.compile(r"\bdevice\s*(<|>|<=|>=|==|!=)\s*-?[01]\b|\b-?[01]\s*(<|>|<=|>=|==|!=)\s*\w*(->|\.)device\b")


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
        for s in sorted(syms):
            o = owner.get(s)
            if o and o != name:
                edges[name].add(o)
                why.setdefault((name, o), []).append(s)
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


def room_of(rel):
    """The room of a path relative to src/ (or include/...): None outside."""
    parts = rel.split("/")
    if parts[0] == "include":
        return "include"
    if parts[0] == "tiles" and len(parts) > 2:
        return "tiles/" + parts[1]
    room = parts[0] if len(parts) > 1 else None
    return room if room in RANKS else None


def may_use(a, b):
    """Whether room a may call or include room b."""
    if a == b:
        return True
    if a in ONLY:
        return b in ONLY[a]
    return RANKS[b] < RANKS[a]


def public_api(source):
    """The function names include/winent.h declares with WINENT_API."""
    path = os.path.join(source, "include", "winent.h")
    if not os.path.isfile(path):
        return set()
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"(?m)^\s*#.*$", "", text)
    return set(re.findall(r"WINENT_API\s+[^;(]*?\b(\w+)\s*\(", text))


def rel_to_src(source, path):
    r = os.path.relpath(path, os.path.join(source, "src"))
    return r if not r.startswith("..") else os.path.relpath(path, source)


def includes(source):
    """{(file, header)}: each quoted #include of src/ resolved as the
    compiler does, both relative to src/ (include/winent.h as itself)."""
    found = set()
    pattern = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
    for path in sorted(glob.glob(os.path.join(source, "src", "**", "*"), recursive=True)):
        if not path.endswith(SOURCE_ENDINGS):
            continue
        text = open(path, encoding="utf-8", errors="replace").read()
        for m in pattern.finditer(text):
            name = m.group(1)
            places = [os.path.join(os.path.dirname(path), name)]
            places += [os.path.join(source, d, name) for d in INCLUDE_DIRS]
            for c in places:
                if os.path.isfile(c):
                    found.add((rel_to_src(source, path), rel_to_src(source, os.path.normpath(c))))
                    break
    return found


def room_problems(edges, why, incs, public):
    """Calls and includes against the rooms' order, and circles of rooms."""
    problems, allowed, room_edges = [], [], collections.defaultdict(set)
    kinds = [("call", a, b, why[(a, b)]) for a in sorted(edges) for b in sorted(edges[a])]
    kinds += [("include", a, b, None) for a, b in sorted(incs)]
    for kind, a, b, sym in kinds:
        ra, rb = room_of(a), room_of(b)
        if ra is None or rb is None or ra == rb:
            continue
        if EXCEPTIONS.get((a, b)) == kind:
            allowed.append("allowed for now: %s %s %s (EXCEPTIONS)" % (a, kind + "s", b))
            continue
        room_edges[ra].add(rb)
        if kind == "call" and ra in ONLY:
            for name in sym:
                if name not in public:
                    problems.append("room: %s calls %s (%s), which is not in include/winent.h"
                                    % (a, b, name))
            continue
        if not may_use(ra, rb):
            what = "calls %s (%s)" % (b, sym[0]) if kind == "call" else "includes %s" % b
            problems.append("room: %s %s, of room %s, which room %s may not use"
                            % (a, what, rb, ra))
    for scc in circles(set(RANKS), room_edges):
        problems.append("circle of rooms: " + " ".join(scc))
    return problems, allowed


C_NAME = re.compile(r"([A-Za-z_]\w*)\s*\(")


def c_functions(path):
    """(name, first line, lines) of each function of a C or CUDA file: a body
    from a "{" at the start of a line to the next "}" at the start of one,
    named by the signature above it (from its last line starting at the
    line's start), counted from that signature's first line to the "}"
    (a long parameter list is part of the function a reader takes in)."""
    lines = open(path, encoding="utf-8").read().split("\n")
    start = None
    for i, line in enumerate(lines):
        if line.startswith("{"):
            start = i
        elif line.startswith("}") and start is not None:
            head = start - 1
            while head > 0 and (not lines[head] or lines[head][0] in " \t)"):
                head -= 1
            sig = " ".join(l.strip() for l in lines[max(head, 0):start])
            m = C_NAME.search(sig)
            if m and "=" not in sig.split("(")[0]:
                yield m.group(1), head + 1, i - head + 1
            start = None


PY_DEF = re.compile(r"^(\s*)(?:async\s+)?def\s+(\w+)")


def py_functions(path):
    """(name, first line, lines) of each def of a Python file, nested ones
    too: from its line to the last line of its body."""
    lines = open(path, encoding="utf-8").read().split("\n")
    for i, line in enumerate(lines):
        m = PY_DEF.match(line)
        if not m:
            continue
        indent, last = len(m.group(1)), i
        for j in range(i + 1, len(lines)):
            t = lines[j]
            if t.strip() and len(t) - len(t.lstrip()) <= indent and not t.lstrip().startswith(")"):
                break
            if t.strip():
                last = j
        yield m.group(2), i + 1, last - i + 1


def function_lengths(source):
    """(where "path:name", "path:line", lines) of every function checked."""
    files = []
    for ending in SOURCE_ENDINGS:
        files += glob.glob(os.path.join(source, "src", "**", "*" + ending), recursive=True)
    for path in sorted(files):
        rel = os.path.relpath(path, source)
        for name, line, n in c_functions(path):
            yield "%s:%s" % (rel, name), "%s:%d" % (rel, line), n
    for path in sorted(glob.glob(os.path.join(source, "python", "winent", "**", "*.py"),
                                 recursive=True)):
        rel = os.path.relpath(path, source)
        for name, line, n in py_functions(path):
            yield "%s:%s" % (rel, name), "%s:%d" % (rel, line), n


def long_functions(source):
    """The functions over MAX_LINES not in LONG_ALLOWED (problems), and the
    entries of LONG_ALLOWED that are no longer long (to remove)."""
    found, long_now = [], set()
    for name, where, n in function_lengths(source):
        if n <= MAX_LINES:
            continue
        long_now.add(name)
        if name not in LONG_ALLOWED:
            found.append("%s: %s is %d lines (at most %d)"
                         % (where, name.split(":")[-1], n, MAX_LINES))
    stale = ["long function no longer long (remove it from LONG_ALLOWED): %s" % f
             for f in sorted(LONG_ALLOWED - long_now)]
    return found, stale


def long_files(source):
    found = []
    for d in LONG_FILES_CHECKED:
        for path in sorted(glob.glob(os.path.join(source, d, "*.[ch]"))):
            n = len(open(path, encoding="utf-8").read().splitlines())
            if n > MAX_FILE_LINES:
                found.append("%s has %d lines (at most %d): split it by owner"
                             % (os.path.relpath(path, source), n, MAX_FILE_LINES))
    return found


def device_signs(source):
    """Tests of an engine's device sign outside the engines' files."""
    found = []
    for path in sorted(glob.glob(os.path.join(source, "src", "pipeline", "*.[ch]"))):
        if ENGINE_FILES.match(os.path.basename(path)):
            continue
        text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"),
                      open(path, encoding="utf-8").read(), flags=re.S)
        for i, line in enumerate(text.split("\n"), 1):
            if DEVICE_SIGN.search(line):
                found.append("%s:%d: tests the sign of an engine's device (ask its engine_ops: "
                             "kind, bands, gives_tails, takes_tails, rate)"
                             % (os.path.relpath(path, source), i))
    return found


# Who writes each part of a chunk (CHUNK_HEADER): the fields of a part
# are assigned, stepped (++, --) or have their address taken (&c->part.f
# for an atomic or a helper; &c->part, the whole part) only in its owners'
# files of src/pipeline. A part is a member of struct chunk whose struct
# type the header declares (claim, bands, ...); "core" is the chunk's own
# fields, with CHUNK_FIELD_OWNERS for those more files write.
CHUNK_HEADER = "src/pipeline/job_chunk.h"
CHUNK_OWNERS = {
    # The ring makes and frees the buffers; the reader (stages.c) places a
    # fresh chunk: its sequence, rows, input rows, staging.
    "core": {"ring.c", "stages.c"},
    # The scheduler claims and gives back; a fresh chunk is unclaimed
    # (stages.c); a GPU that fails hands its chunks back (engines.c).
    "claim": {"sched.c", "stages.c", "engines.c"},
    # The CPU engine posts its bands, the pool takes and ends them
    # (tasks.c), a GPU that takes the tail shortens them (sched.c).
    "bands": {"engines_cpu.c", "tasks.c", "sched.c"},
    # The scheduler posts a GPU chunk's counting, the pool counts, a chunk
    # the ring hands out has none.
    "counts": {"sched.c", "tasks.c", "ring.c"},
    # The input posts a staged fill, the pool copies.
    "fill": {"input.c", "tasks.c"},
    # The ring builds the pieces (winent_chunk_pieces_locked), the reader
    # sizes a fresh chunk's units, the scheduler says which rows the taps
    # got, the pool takes and ends pieces, the output encodes the units.
    "out": {"ring.c", "stages.c", "sched.c", "tasks.c", "output.c"},
}
CHUNK_FIELD_OWNERS = {
    # The hand-over: each stage passes the chunk on by its state (the
    # reader, the scheduler, an engine given up, the pool).
    "state": {"ring.c", "stages.c", "sched.c", "engines.c", "tasks.c"},
    # A memory job's input and output rows are the caller's, borrowed.
    "rows": {"ring.c", "input.c"},
    "map": {"ring.c", "input.c", "output.c"},
    # The GPUs pin the ring's buffers.
    "registered": {"ring.c", "engines_gpu.c"},
}


def c_text(path):
    """A C file's text, comments blanked (lines kept)."""
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def chunk_layout(source):
    """{part: [fields]} of struct chunk ("core": its own) and {member: part}."""
    path = os.path.join(source, CHUNK_HEADER)
    if not os.path.isfile(path):
        return {}, {}
    text = c_text(path)
    bodies = {m.group(2): m.group(1)
              for m in re.finditer(r"typedef struct \w+ \{(.*?)\} (\w+);", text, re.S)}

    def names(body):
        out = []
        for decl in re.sub(r"\[[^\]]*\]", "", body).split(";"):
            for piece in decl.split(","):
                m = re.search(r"(\w+)\s*$", piece.strip())
                if m:
                    out.append(m.group(1))
        return out

    layout, members = {"core": []}, {}
    for decl in re.sub(r"\[[^\]]*\]", "", bodies.get("chunk", "")).split(";"):
        m = re.match(r"\s*(\w+)\s+(\w+)\s*$", decl)
        if m and m.group(1) in bodies and m.group(1) != "chunk":
            members[m.group(2)] = m.group(2)
            layout[m.group(2)] = names(bodies[m.group(1)])
        else:
            layout["core"] += names(decl + ";")
    return layout, members


def chunk_names(texts):
    """Names that hold a chunk (chunk *c, *band; a member chunk *c)."""
    found = set()
    for text in texts:
        for m in re.finditer(r"\bchunk\s*\*([^;{)]*)", text):
            for k, piece in enumerate(("*" + m.group(1)).split(",")):
                n = re.match(r"\s*\*\s*(?:const\s+)?(\w+)\s*(=|$)", piece)
                if n:
                    found.add(n.group(1))
    return found


# After a chunk's field: an assignment or a step. Before it (the chain
# that leads to the chunk, t->c->, allowed): a step, or & taking its address.
CHUNK_WRITE = r"\s*(?:\[[^\]]*\]\s*)*(?:(?:[-+*/%&|^]|<<|>>)?=(?!=)|\+\+|--)"
CHUNK_CHAIN = r"\s*(?:\w+\s*(?:\[[^\]]*\]\s*)?(?:->|\.)\s*)*$"
CHUNK_STEP = r"(?:\+\+|--)" + CHUNK_CHAIN
CHUNK_ADDRESS = r"(?<![&\w)\]])&" + CHUNK_CHAIN


def chunk_writes(source):
    """(file, line, part, field) of every write to a chunk's field in src/pipeline."""
    layout, members = chunk_layout(source)
    if not layout:
        return
    paths = sorted(glob.glob(os.path.join(source, "src", "pipeline", "*.[ch]")))
    texts = {p: c_text(p) for p in paths}
    # A name holds a chunk where its file (or a header, for members)
    # declares it so: a stage_slot *s of one file is not another's chunk *s.
    shared = chunk_names(t for p, t in texts.items() if p.endswith(".h"))
    for path in paths:
        held = shared | chunk_names([texts[path]])
        if not held:
            continue
        base = r"(?:\b(?:%s)\s*->|\bchunks\s*\[[^\]]*\]\s*\.)\s*" % "|".join(sorted(held))
        exprs = [(part, re.compile(base + r"%s\s*\.\s*(%s)\b" % (part, "|".join(fs))))
                 for part, fs in layout.items() if part != "core"]
        exprs.append(("core", re.compile(base + r"(%s)\b(?!\s*\.)" % "|".join(layout["core"]))))
        wholes = [(part, re.compile(base + r"(%s)\b(?!\s*[.\[])" % part))
                  for part in layout if part != "core"]
        for i, line in enumerate(texts[path].split("\n"), 1):
            for part, e in exprs:
                for m in e.finditer(line):
                    before = line[:m.start()]
                    if (re.match(CHUNK_WRITE, line[m.end():]) or re.search(CHUNK_STEP, before)
                            or re.search(CHUNK_ADDRESS, before)):
                        yield os.path.relpath(path, source), i, part, m.group(1)
            for part, e in wholes:
                for m in e.finditer(line):
                    if re.search(CHUNK_ADDRESS, line[:m.start()]):
                        yield os.path.relpath(path, source), i, part, "*"


def chunk_owners(source):
    """Writes to a chunk's part outside its owner's files."""
    found = []
    for path, line, part, field in chunk_writes(source):
        name = os.path.basename(path)
        owners = CHUNK_FIELD_OWNERS.get(field, CHUNK_OWNERS[part]) if part == "core" \
            else CHUNK_OWNERS.get(part, set())
        if name not in owners:
            found.append("%s:%d: writes the chunk's %s, which %s own%s (CHUNK_OWNERS)"
                         % (path, line, field if part == "core" else part if field == "*"
                            else part + "." + field,
                            ", ".join(sorted(owners)) or "no file",
                            "s" if len(owners) == 1 else ""))
    return found


def main(argv):
    if len(argv) >= 2 and argv[1] == "--lengths":
        # check-structure.py --lengths [SOURCE_DIR]: every function's length,
        # longest first (no build needed).
        source = argv[2] if len(argv) > 2 else os.path.dirname(os.path.dirname(
            os.path.abspath(__file__)))
        for name, where, n in sorted(function_lengths(source), key=lambda f: -f[2]):
            print("%5d %s %s" % (n, where, name.split(":")[-1]))
        return 0
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
                    problems.append("    %s -> %s (%s)" % (a, b, why[(a, b)][0]))
    incs = includes(source)
    room_found, allowed = room_problems(edges, why, incs, public_api(source))
    problems += room_found
    long_found, long_stale = long_functions(source)
    problems += long_found
    problems += long_files(source)
    problems += device_signs(source)
    problems += chunk_owners(source)
    used = {(a, b) for a in edges for b in edges[a]} | incs
    stale = ["exception no longer needed (remove it): %s -> %s" % ab
             for ab in sorted(EXCEPTIONS) if ab not in used] + long_stale
    allowed += ["long function allowed: %s" % f for f in sorted(LONG_ALLOWED)]
    for p in allowed + stale + problems:
        print(p)
    print("check-structure: %d files, %d calls between files, %d includes, %d problems"
          % (len(defined), sum(len(v) for v in edges.values()), len(incs), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
