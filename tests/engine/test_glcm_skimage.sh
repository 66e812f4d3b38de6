#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The co-occurrence engine (tools/winent-glcm) against scikit-image's
# graycomatrix/graycoprops window by window (glcm_skimage.py says how),
# then the same map on 1 and 3 threads at once, bit for bit.
set -eu
PY="${PYTHON:-/usr/bin/python3}"
G="$WINENT_TOOLS/winent-glcm"
"$PY" -c 'import numpy, skimage.feature' 2>/dev/null || {
    echo "no numpy/scikit-image for $PY: skipped"
    exit 77
}
"$PY" "$WINENT_SRC/tests/engine/glcm_skimage.py" "$G"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
"$PY" -c 'import numpy as np; np.random.default_rng(3).integers(0, 40, (97, 83)).astype(np.uint8).tofile("'"$T"'/r.raw")'
for t in 1 3; do
    "$G" --size 83x97 --dtype u8 --levels 32 --range 0:40 --window 9x7 --nodata 5 \
        --measure glcm-entropy,glcm-correlation,glcm-mutual-info,glcm-cluster-shade \
        --threads $t "$T/r.raw" "$T/t$t.f32"
done
if cmp -s "$T/t1.f32" "$T/t3.f32"; then
    echo "threads: 1 and 3 give the same bits"
else
    echo "FAILED: 1 and 3 threads differ" >&2
    exit 1
fi
