#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The CLI's --measure maps (several in one pass) against a numpy
# per-window oracle (measures_numpy.py).
set -eu
PY="${PYTHON:-/usr/bin/python3}"
"$PY" -c 'import numpy' 2>/dev/null || {
    echo "no numpy for $PY: skipped"
    exit 77
}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
"$PY" "$WINENT_SRC/tests/engine/measures_numpy.py" "$WINENT_BIN/winent-stream" "$T"
