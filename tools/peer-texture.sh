#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# peer-texture.sh - the co-occurrence (GLCM) measures beside their peers:
# GRASS r.texture and OTB HaralickTextureExtraction, where they are
# installed (Debian: grass-core, otb-bin; this script installs nothing),
# against this project's command, winent-stream, writing raw maps beside
# the peers' GeoTIFFs in one temporary folder (TMPDIR: /dev/shm takes the
# disk out of both). Not part of CI.
#
#   tools/peer-texture.sh [BUILD_DIR] [IMAGE]
#
# IMAGE (any GDAL raster, band 1; default: scikit-image's astronaut, grey,
# resized to SIZE x SIZE, SIZE=2048 unless set) is quantized to 32 levels
# (floor(v * 32 / 256) of its 0..255 grey values), and each tool computes
# 15 x 15 windows:
#   - glcm-entropy, symmetric, distance 1, mean of the angles 0/45/90/135,
#     beside GRASS `r.texture method=entr` (the same definition);
#   - the 8 features of OTB's simple set at the offset (1, 1), beside
#     OTB `-texture simple` (which bins [min, max] into nbbin bins itself).
# It prints each tool's wall and CPU seconds on the same cores (THREADS,
# default all) and, per feature, the largest and mean absolute difference
# from this engine over the pixels both tools define (GRASS leaves the
# border windows null).
set -eu
BUILD=${1:-build}
IMAGE=${2:-}
PY=${PYTHON:-/usr/bin/python3}
WS="$BUILD/src/winent-stream"
THREADS=${THREADS:-$(nproc)}
[ -x "$WS" ] || { echo "peer-texture: build $WS first" >&2; exit 2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM

# Wall and CPU seconds of a command (the CPU seconds hold on a busy host).
timed() {
    out=$1
    shift
    /usr/bin/time -f '%e s wall, %U s user CPU' -o "$out" "$@"
}

# The quantized image: q.raw (u8 0..31) and q.tif (the same, GeoTIFF).
WH=$("$PY" - "$T" "$IMAGE" "${SIZE:-2048}" <<'EOF'
import sys
import numpy as np
import rasterio
from rasterio.transform import from_origin
out, image, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
if image:
    with rasterio.open(image) as src:
        a = src.read(1).astype(np.float64)
    lo, hi = np.nanmin(a), np.nanmax(a)
    a = (a - lo) * 255.0 / max(hi - lo, 1e-12)
else:
    from skimage import color, data, transform
    a = transform.resize(color.rgb2gray(data.astronaut()), (size, size), order=1) * 255.0
q = np.clip(np.floor(a * 32 / 256), 0, 31).astype(np.uint8)
q.tofile(out + "/q.raw")
h, w = q.shape
with rasterio.open(out + "/q.tif", "w", driver="GTiff", width=w, height=h, count=1,
                   dtype="uint8", crs="EPSG:3857",
                   transform=from_origin(0, h, 1, 1)) as dst:
    dst.write(q, 1)
print("%d %d" % (w, h))
EOF
)
W=${WH% *}
H=${WH#* }
echo "image: ${W}x${H}, 32 levels, 15x15 windows, $THREADS threads"

OTB8=glcm-asm,glcm-entropy,glcm-correlation,glcm-homogeneity,glcm-contrast,glcm-cluster-shade,glcm-cluster-prominence,glcm-variance
# The levels are the values 0..31 as they are (--range 0:32: no first
# pass over the band for its range).
timed "$T/t.ent" "$WS" --quiet --size "${W}x$H" --dtype u8 --levels 32 --range 0:32 \
    --window 15 --measure glcm-entropy --threads "$THREADS" "$T/q.raw" "$T/ent.f32"
timed "$T/t.otb8" "$WS" --quiet --size "${W}x$H" --dtype u8 --levels 32 --range 0:32 \
    --window 15 --angles 45 --base 2 --measure "$OTB8" --threads "$THREADS" "$T/q.raw" \
    "$T/otb8.f32"
echo "winent-stream glcm-entropy, 4 angles:    $(cat "$T/t.ent")"
echo "winent-stream 8 features, offset (1, 1): $(cat "$T/t.otb8")"

if command -v grass >/dev/null 2>&1; then
    cat >"$T/grass.sh" <<EOF
set -e
r.in.gdal -o input="$T/q.tif" output=q --quiet
g.region raster=q
export OMP_NUM_THREADS=$THREADS
/usr/bin/time -f '%e s wall, %U s user CPU' -o "$T/t.grass" \
    r.texture input=q output=t size=15 distance=1 method=entr --quiet
r.out.gdal -f input=t_Entr output="$T/grass.tif" type=Float32 format=GTiff --quiet
EOF
    grass --tmp-location "$T/q.tif" --exec bash "$T/grass.sh" >"$T/grass.log" 2>&1 ||
        { echo "GRASS failed:"; tail -5 "$T/grass.log"; }
    [ -f "$T/t.grass" ] && echo "GRASS r.texture method=entr:           $(cat "$T/t.grass")"
else
    echo "GRASS: not installed (Debian: grass-core)"
fi

if command -v otbcli_HaralickTextureExtraction >/dev/null 2>&1; then
    timed "$T/t.otb" env OTB_MAX_RAM_HINT=1024 otbcli_HaralickTextureExtraction \
        -in "$T/q.tif" -channel 1 -parameters.xrad 7 -parameters.yrad 7 -parameters.xoff 1 \
        -parameters.yoff 1 -parameters.min 0 -parameters.max 31 -parameters.nbbin 32 \
        -texture simple -out "$T/otb.tif" float >"$T/otb.log" 2>&1 ||
        { echo "OTB failed:"; tail -5 "$T/otb.log"; }
    echo "OTB HaralickTextureExtraction simple: $(cat "$T/t.otb")"
else
    echo "OTB: not installed (Debian: otb-bin)"
fi

# Differences over the pixels both define.
"$PY" - "$T" "$W" "$H" "$OTB8" <<'EOF'
import os
import sys
import numpy as np
import rasterio
t, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])


def diff(name, ours, theirs):
    ok = np.isfinite(ours) & np.isfinite(theirs)
    if not ok.any():
        print("  %-34s no pixel both define" % name)
        return
    d = np.abs(ours[ok].astype(np.float64) - theirs[ok])
    print("  %-34s max %.3g  mean %.3g  (%d pixels; ours mean %.4g, theirs %.4g)"
          % (name, d.max(), d.mean(), ok.sum(), ours[ok].mean(), theirs[ok].mean()))


ent = np.fromfile(t + "/ent.f32", np.float32).reshape(h, w)
if os.path.exists(t + "/grass.tif"):
    with rasterio.open(t + "/grass.tif") as src:
        g = src.read(1, masked=True).filled(np.nan).astype(np.float64)
    print("GRASS r.texture Entr vs glcm-entropy (bits, 4 angles):")
    diff("Entr", ent, g)
if os.path.exists(t + "/otb.tif"):
    # a raw file per map, NAME_b1_w15_MEASURE.f32 (the angle's ":a45" as "a45")
    o8 = np.stack([np.fromfile("%s/otb8_b1_w15_%sa45.f32" % (t, m), np.float32).reshape(h, w)
                   for m in sys.argv[4].split(",")])
    with rasterio.open(t + "/otb.tif") as src:
        o = src.read().astype(np.float64)
    names = ["Energy / glcm-asm", "Entropy / glcm-entropy (bits)",
             "Correlation / glcm-correlation", "IDM / glcm-homogeneity",
             "Inertia / glcm-contrast", "Cluster Shade / glcm-cluster-shade",
             "Cluster Prominence / ...-prominence", "Haralick Corr. / glcm-variance"]
    print("OTB simple set vs this engine at offset (1, 1):")
    for k in range(8):
        diff(names[k], o8[k], o[k])
EOF
