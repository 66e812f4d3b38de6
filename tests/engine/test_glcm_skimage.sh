#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The co-occurrence engine (tools/winent-glcm) against scikit-image's
# graycomatrix/graycoprops window by window (glcm_skimage.py says how).
set -eu
PY="${PYTHON:-/usr/bin/python3}"
"$PY" -c 'import numpy, skimage.feature' 2>/dev/null || {
    echo "no numpy/scikit-image for $PY: skipped"
    exit 77
}
exec "$PY" "$WINENT_SRC/tests/engine/glcm_skimage.py" "$WINENT_TOOLS/winent-glcm"
