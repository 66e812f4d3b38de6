#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The library's structure, drawn from this build's objects
# (tools/check-structure.py): no circle of source files calling each other,
# no call or #include against the rooms' order (base <- kernels <- tiles
# <- tiles/formats <- tiles/sources, tiles/sinks <- pipeline <- cli, the
# CLI on include/ alone), no circle of rooms, no function over 120 lines
# in src/ (C, CUDA) or python/winent but those allowed by name, no write
# to a chunk's part outside its owners' files. Then the check itself on a made-up tree: each rule it
# enforces is reported when broken.
set -u
command -v nm >/dev/null 2>&1 || { echo "no nm (binutils) to read the objects' symbols: skipped"; exit 77; }
PY=${PYTHON:-}
[ -n "$PY" ] || PY=$(command -v python3) || { echo "no Python to run tools/check-structure.py: skipped"; exit 77; }
BUILD=$(dirname "$WINENT_TOOLS")
out=$("$PY" "$WINENT_SRC/tools/check-structure.py" "$BUILD" "$WINENT_SRC" 2>&1)
rc=$?
echo "$out"
case $out in
*", 0 problems") ;;
*) echo "FAILED: tools/check-structure.py: the structure is broken (above)"; exit 1 ;;
esac
[ $rc = 0 ] || { echo "FAILED: tools/check-structure.py exited $rc"; exit 1; }

# A made-up source tree against this build's objects: a base file that
# includes a kernels header, the CLI that includes a pipeline header, two
# sibling rooms that include each other (a circle of rooms), a long C
# function and a long Python one (a nested def counted on its own).
F=$(mktemp -d)
trap 'rm -rf "$F"' EXIT
mkdir -p "$F/src/base" "$F/src/kernels" "$F/src/cli" "$F/src/pipeline" "$F/src/tiles/sources" \
    "$F/src/tiles/sinks" "$F/include"
cp "$WINENT_SRC/include/winent.h" "$F/include/"
echo '#include "kernels/k.h"' >"$F/src/base/b.c"
: >"$F/src/kernels/k.h"
echo '#include "pipeline/p.h"' >"$F/src/cli/c.c"
: >"$F/src/pipeline/p.h"
echo '#include "s.h"' >"$F/src/tiles/sources/r.h"
echo '#include "r.h"' >"$F/src/tiles/sinks/s.h"
{ echo 'static void long_one(void)'; echo '{'; i=0
  while [ $i -lt 160 ]; do echo '    ;'; i=$((i + 1)); done; echo '}'; } >"$F/src/pipeline/l.c"
# A function's length counts from its signature's first line: 120 with a
# signature of two lines is short; the same body under a signature of
# three is long (121).
{ echo 'static winent_status short_one(int a,'; echo '                               int b)'
  echo '{'; i=0; while [ $i -lt 116 ]; do echo '    ;'; i=$((i + 1)); done; echo '}'
  echo 'static winent_status long_head(int a,'; echo '                               int b,'
  echo '                               int c)'
  echo '{'; i=0; while [ $i -lt 116 ]; do echo '    ;'; i=$((i + 1)); done; echo '}'; } \
    >"$F/src/kernels/s.c"
mkdir -p "$F/python/winent"
{ echo 'def long_py(x):'; echo '    """A long one."""'; i=0
  while [ $i -lt 125 ]; do echo "    x += $i"; i=$((i + 1)); done
  echo '    def inner():'; echo '        return 1'; echo ''; echo '    return x'
  echo ''; echo 'def short_py():'; echo '    return 0'; } >"$F/python/winent/p.py"
echo 'static int cpu(const engine *e) { return e->device < 0; }' >"$F/src/pipeline/d.c"
{ i=0; while [ $i -lt 601 ]; do echo '/* a line */'; i=$((i + 1)); done; } >"$F/src/pipeline/big.c"
# Writes to a chunk's parts from a file that owns none (line 8: reads only).
cp "$WINENT_SRC/src/pipeline/job_chunk.h" "$F/src/pipeline/"
cat >"$F/src/pipeline/w.c" <<'EOF_W'
static void w(chunk *c, task *t)
{
    c->claim.tail = 0;
    --t->c->bands.left;
    __atomic_fetch_add(&c->fill.next, 1, 0);
    c->state = CHUNK_FREE;
    chunk_out *o = &c->out;
    if (c->fill.next < c->fill.n && c->counts.n == 0 && c->claim.engine != 0 && (c->bands.n & 1))
        c->y0 += o->ntasks;
}
EOF_W
bad=$("$PY" "$WINENT_SRC/tools/check-structure.py" "$BUILD" "$F" 2>&1)
[ $? = 1 ] || { echo "$bad"; echo "FAILED: a broken tree did not exit 1"; exit 1; }
for want in "room: base/b.c includes kernels/k.h, of room kernels, which room base may not use" \
    "room: cli/c.c includes pipeline/p.h" \
    "room: tiles/sinks/s.h includes tiles/sources/r.h" \
    "circle of rooms: tiles/sinks tiles/sources" \
    "src/pipeline/l.c:1: long_one is 163 lines (at most 120)" \
    "src/kernels/s.c:121: long_head is 121 lines (at most 120)" \
    "python/winent/p.py:1: long_py is 131 lines (at most 120)" \
    "src/pipeline/d.c:1: tests the sign of an engine's device" \
    "src/pipeline/big.c has 601 lines (at most 600)" \
    "src/pipeline/w.c:3: writes the chunk's claim.tail, which engines.c, sched.c, stages.c own" \
    "src/pipeline/w.c:4: writes the chunk's bands.left" \
    "src/pipeline/w.c:5: writes the chunk's fill.next" \
    "src/pipeline/w.c:6: writes the chunk's state" \
    "src/pipeline/w.c:7: writes the chunk's out," \
    "src/pipeline/w.c:9: writes the chunk's y0, which ring.c, stages.c own"; do
    case $bad in
    *"$want"*) echo "reported: $want" ;;
    *) echo "$bad"; echo "FAILED: not reported: $want"; exit 1 ;;
    esac
done
case $bad in
*"src/pipeline/w.c:8:"*) echo "$bad"; echo "FAILED: a read of a chunk's part reported as a write"; exit 1 ;;
esac
for quiet in short_one inner short_py; do
    case $bad in
    *" $quiet is "*) echo "$bad"; echo "FAILED: $quiet reported as long"; exit 1 ;;
    esac
done
echo "not reported: short_one (120 lines), inner, short_py"
