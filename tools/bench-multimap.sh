#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench-multimap.sh - several bands and windows in one pass against
# the separate runs: 4 bands x 3 windows as one job
# (`--band all --window 3,5,9`) and as the 12 runs of one band and one
# window each, alternately, REPEAT times in one run; the best wall time of
# each side, its CPU time (user + sys) and peak RSS, the speedup; and
# whether every map of the one pass is byte for byte the separate run's.
#
#   tools/bench-multimap.sh [options]
#
#   --build DIR      build folder with src/winent-stream and tools/ (default build);
#                    a CUDA build works too (--device auto by default)
#   --work DIR       inputs (kept and reused) and outputs (default: a temporary
#                    folder under ${TMPDIR:-/tmp}, removed at the end)
#   --size WxH       each band's size (default 8192x8192)
#   --input tif|jp2|raw  a 4-band tiled deflate GeoTIFF (pixel-interleaved, what a
#                    GIS user has; made with GDAL's Python bindings), the same as a
#                    lossless JPEG2000 (GDAL's JP2OpenJPEG: slow to decode, as
#                    satellite products are), or a band-sequential raw file
#                    (default tif)
#   --format zst|tif|raw  the output (default zst)
#   --windows LIST   the windows (default 3,5,9)
#   --repeat R       timed runs of each side (default 3)
#   --device D, --threads N, --mem SIZE   passed to every run (default auto, all, 1G)
#
# The table goes to standard output, progress to standard error. Inputs are
# made with winent-mksample (bands of 12, 16, 20 and 24 classes of its
# landscape) and read from the page cache. Needs about 5 x W x H bytes of
# inputs and up to 12 x 4 x W x H of outputs in --work.
set -eu
B=build
WORK=
SIZE=8192x8192
INPUT=tif
FORMAT=zst
WINDOWS=3,5,9
REPEAT=3
DEVICE=auto
THREADS=
MEM=
while [ $# -gt 0 ]; do
    case $1 in
    --build) B=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --size) SIZE=$2; shift 2 ;;
    --input) INPUT=$2; shift 2 ;;
    --format) FORMAT=$2; shift 2 ;;
    --windows) WINDOWS=$2; shift 2 ;;
    --repeat) REPEAT=$2; shift 2 ;;
    --device) DEVICE=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --mem) MEM=$2; shift 2 ;;
    -h | --help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "bench-multimap: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
WS="$B/src/winent-stream"
MK="$B/tools/winent-mksample"
PY=${PYTHON:-/usr/bin/python3}
[ -x "$WS" ] && [ -x "$MK" ] || { echo "bench-multimap: no $WS or $MK: give --build DIR" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench-multimap: needs GNU time (/usr/bin/time)" >&2; exit 2; }
if [ -z "$WORK" ]; then
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-multimap.XXXXXX")
    trap 'rm -rf "$WORK"' EXIT INT TERM
fi
mkdir -p "$WORK/out"
W=${SIZE%x*}
H=${SIZE#*x}
RUN="--quiet --device $DEVICE${THREADS:+ --threads $THREADS}${MEM:+ --mem $MEM}"

# Inputs, kept in --work for the next run.
bsq="$WORK/in4_$SIZE.raw"
if [ ! -s "$bsq" ]; then
    for b in 1 2 3 4; do
        "$MK" --size "$SIZE" --dtype u8 --kind landscape --values $((8 + 4 * b)) --seed $b - >>"$bsq.part"
    done
    mv "$bsq.part" "$bsq"
fi
if [ "$INPUT" = tif ] || [ "$INPUT" = jp2 ]; then
    in="$WORK/in4_$SIZE.tif"
    if [ ! -s "$in" ]; then
        "$PY" - "$bsq" "$in" "$W" "$H" <<'EOF'
import sys, numpy as np
from osgeo import gdal
gdal.UseExceptions()
src, dst, w, h = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
ds = gdal.GetDriverByName("GTiff").Create(dst, w, h, 4, gdal.GDT_Byte,
        ["TILED=YES", "COMPRESS=DEFLATE", "INTERLEAVE=PIXEL", "PHOTOMETRIC=MINISBLACK", "BIGTIFF=IF_SAFER"])
ds.SetGeoTransform([500000, 10, 0, 4100000, 0, -10])
a = np.memmap(src, dtype="u1", mode="r", shape=(4, h, w))
for b in range(4):
    for y in range(0, h, 1024):
        ds.GetRasterBand(b + 1).WriteArray(np.asarray(a[b, y:y + 1024]), 0, y)
ds = None
EOF
    fi
    if [ "$INPUT" = jp2 ]; then
        tif=$in
        in="$WORK/in4_$SIZE.jp2"
        [ -s "$in" ] || gdal_translate -q -of JP2OpenJPEG -co REVERSIBLE=YES -co QUALITY=100 \
            -co BLOCKXSIZE=1024 -co BLOCKYSIZE=1024 "$tif" "$in"
    fi
    INOPT=
else
    in=$bsq
    INOPT="--size $SIZE --dtype u8 --bands 4"
fi
case $FORMAT in
zst) ext=zst ;;
tif) ext=tif ;;
raw) ext=raw ;;
*) echo "bench-multimap: --format zst|tif|raw" >&2; exit 2 ;;
esac
nwin=$(echo "$WINDOWS" | tr ',' '\n' | wc -l)
maps=$((4 * nwin))
echo "bench-multimap: $SIZE x 4 bands u8 ($INPUT) x windows $WINDOWS -> .$ext; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2

. "$(dirname "$0")/bench-lib.sh"
# timed FILE CMD...: run CMD under GNU time, append "wall user sys rss_kib" to FILE.
timed() { time_into "$@" || { echo "bench-multimap: failed: $*" >&2; exit 1; }; }
rm -f "$WORK/one.times" "$WORK/sep.times"
i=1
while [ "$i" -le "$REPEAT" ]; do
    # shellcheck disable=SC2086
    timed "$WORK/one.times" "$WS" $RUN $INOPT --band all --window "$WINDOWS" "$in" "$WORK/out/all.$ext"
    echo "bench-multimap: one pass, run $i: $(tail -n 1 "$WORK/one.times") (wall user sys s, RSS KiB)" >&2
    : >"$WORK/sep.run"
    for b in 1 2 3 4; do
        for w in $(echo "$WINDOWS" | tr ',' ' '); do
            # shellcheck disable=SC2086
            timed "$WORK/sep.run" "$WS" $RUN $INOPT --band $b --window "$w" "$in" "$WORK/out/s_b${b}_w$w.$ext"
        done
    done
    # The 12 runs as one: summed times, the largest RSS.
    awk '{ w += $1; u += $2; s += $3; if ($4 > m) m = $4 } END { printf "%.2f %.2f %.2f %d\n", w, u, s, m }' \
        "$WORK/sep.run" >>"$WORK/sep.times"
    echo "bench-multimap: separate runs, run $i: $(tail -n 1 "$WORK/sep.times")" >&2
    i=$((i + 1))
done

# Every map of the one pass against its separate run.
same=yes
k=0
for b in 1 2 3 4; do
    for w in $(echo "$WINDOWS" | tr ',' ' '); do
        case $FORMAT in
        raw)
            cmp -s "$WORK/out/all_b${b}_w$w.raw" "$WORK/out/s_b${b}_w$w.raw" || same=no
            ;;
        zst)
            # The map through the header's list and the seek table.
            zstd -qdc "$WORK/out/s_b${b}_w$w.zst" >"$WORK/one.raw"
            "$PY" "$(dirname "$0")/../tests/lib/zst_read.py" map "$WORK/out/all.zst" $k |
                cmp -s - "$WORK/one.raw" || same=no
            ;;
        tif)
            "$PY" - "$WORK/out/all.tif" $((k + 1)) "$WORK/out/s_b${b}_w$w.tif" <<'EOF' || same=no
import sys, numpy as np
from osgeo import gdal
da, db = gdal.Open(sys.argv[1]), gdal.Open(sys.argv[3])  # the bands live as long as these
a = da.GetRasterBand(int(sys.argv[2])).ReadAsArray()
b = db.GetRasterBand(1).ReadAsArray()
sys.exit(0 if np.array_equal(a.view("u4"), b.view("u4")) else 1)
EOF
            ;;
        esac
        k=$((k + 1))
    done
done

set -- $(lowest <"$WORK/one.times")
ow=$1 oc=$(awk "BEGIN { print $2 + $3 }") orss=$4
set -- $(lowest <"$WORK/sep.times")
sw=$1 sc=$(awk "BEGIN { print $2 + $3 }") srss=$4
gpu=none
command -v nvidia-smi >/dev/null && gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c | sed 's/^ *//' | tr '\n' ' ')
echo "| $maps maps ($SIZE, $INPUT -> .$ext, --device $DEVICE) | best wall s | CPU s (user + sys) | peak RSS MiB |"
echo "|---|---|---|---|"
echo "| one pass | $ow | $oc | $((orss / 1024)) |"
echo "| $maps separate runs | $sw | $sc | $((srss / 1024)) |"
echo
awk "BEGIN { printf \"speedup: %.2fx wall, %.2fx CPU (best of $REPEAT each); every map the same bytes: $same; $(nproc) cores, GPUs: $gpu\n\", $sw / $ow, $sc / $oc }"
[ "$same" = yes ]
