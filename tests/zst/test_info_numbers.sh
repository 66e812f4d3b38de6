#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# --info's JSON for scripts (jq, json.load): every number a JSON number,
# never a number in quotes; the base the number it names (2, 10, e) and
# the unit beside it, for each base, bins and ranges, integer samples with
# a scale, several maps, a georeferenced map.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
need_python numpy

"$MK" --size 96x64 --dtype u8 --kind landscape --values 30 --holes 0.1 --nodata 0 \
    --tiff --georef 32633,500000,4600000,30 "$T/in.tif"
n=0
for args in "--base 2" "--base 10" "--base e" "--base 2 --bins 8 --range 0:40 --ot uint8" \
    "--base e --window 5,9 --band 1 --ot uint16"; do
    n=$((n + 1))
    expect_exit 0 "map $n ($args)" "$WS" --quiet $args "$T/in.tif" "$T/m$n.zst"
    expect_exit 0 "--info of map $n" "$WS" --info "$T/m$n.zst"
    cp "$T/stdout" "$T/info$n.json"
    check "--info of map $n ($args): numbers as numbers, the base and its unit" "$PY" - \
        "$T/info$n.json" "$args" <<'PYEOF'
import json, math, re, sys
d = json.load(open(sys.argv[1]))
args = sys.argv[2].split()
NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
bad = []
def walk(v, where):
    if isinstance(v, dict):
        for k, x in v.items():
            walk(x, where + "." + k)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            walk(x, "%s[%d]" % (where, i))
    elif isinstance(v, str) and NUMBER.fullmatch(v.strip()):
        bad.append("%s is the string %r" % (where, v))
walk(d, "")
base = args[args.index("--base") + 1]
want = {"2": (2, "bit"), "10": (10, "ban"), "e": (math.e, "nat")}[base]
b = d["header"]["base"]
if not isinstance(b, (int, float)) or isinstance(b, bool) or b != want[0]:
    bad.append("header.base %r, want the number %r" % (b, want[0]))
if d.get("unit") != want[1]:
    bad.append("unit %r, want %r" % (d.get("unit"), want[1]))
for k in ("frames", "file_bytes", "compressed_bytes", "decompressed_bytes", "ratio"):
    if not isinstance(d[k], (int, float)):
        bad.append("%s is %r" % (k, d[k]))
h = d["header"]
for k in ("width", "height", "rows_per_frame", "frames"):
    if not isinstance(h[k], int):
        bad.append("header.%s is %r" % (k, h[k]))
if "--ot" in args and not (isinstance(h["scale"], float) and isinstance(h["offset"], (int, float))):
    bad.append("scale, offset: %r %r" % (h.get("scale"), h.get("offset")))
if bad:
    sys.exit("; ".join(bad))
PYEOF
done
# The file keeps its word: --decode and the readers read it back alike.
check "the .zst header itself keeps base as written" grep -aqE '"base":[[:space:]]*"10"' "$T/m2.zst"
finish
