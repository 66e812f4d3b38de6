#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The library's structure, drawn from this build's objects
# (tools/check-structure.py): no circle of source files calling each other,
# no call against the layers (base <- kernels <- tiles <- pipeline <- cli),
# no function in src/pipeline over 150 lines (issue 31).
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
