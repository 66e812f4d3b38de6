#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The README as a user reads it: every example block runs and prints what
# the README shows (tests/readme_examples.py: blocks whose needs the build
# lacks skip with the reason), the quick start's demo runs (tools/demo.sh:
# a GeoTIFF from winent-mksample, its map as a GeoTIFF GDAL places where
# the input was, the preview PNG), every option of --help is in the
# README's options table, and nothing in the README points outside the
# repository (../shared).
. "$WINENT_SRC/tests/cli_lib.sh"
need_python numpy
README="$WINENT_SRC/README.md"

mkdir "$T/examples"
set +e
"$PY" "$WINENT_SRC/tests/readme_examples.py" "$README" "$T/examples" >"$T/examples.log" 2>&1
rc=$?
set -e
cat "$T/examples.log"
check "the README's examples ($(tail -n 1 "$T/examples.log"))" sh -c "[ $rc -eq 0 ] || [ $rc -eq 77 ]"
[ $rc -ne 77 ] || echo "no README example could run here"

# The quick start's demo, on this build.
BUILD=$(dirname "$WINENT_BIN")
if sh "$WINENT_SRC/tools/demo.sh" "$BUILD" "$T/demo" >"$T/demo.out" 2>"$T/demo.err"; then
    ok
    check "demo: the map and the preview are there" \
        test -s "$T/demo/demo-entropy.tif" -a -s "$T/demo/demo-entropy.png"
    check "demo: the preview is a PNG" sh -c "head -c 8 '$T/demo/demo-entropy.png' | od -An -c |
        grep -q 'P   N   G'"
    if command -v gdalinfo >/dev/null 2>&1; then
        check "demo: GDAL places the map where the input was (EPSG:32633, 30 m)" sh -c \
            "grep -q 'EPSG\",32633' '$T/demo.out' && grep -q '^Pixel Size = (30.0' '$T/demo.out'"
    fi
else
    bad "tools/demo.sh failed: $(tail -n 3 "$T/demo.err")"
fi

# Every option --help lists has a row in the README's options table.
# (the lines that start with an option: prose such as "--name=VALUE" is not one)
"$WS" --help | sed -n 's/^ *\(--[a-z][a-z-]*\).*/\1/p' | sort -u >"$T/help-options"
sed -n '/^## Options/,/^## /p' "$README" | grep '^|' >"$T/table"
missing=""
while read -r opt; do
    grep -q -e "$opt\([^a-z-]\|\$\)" "$T/table" || missing="$missing $opt"
done <"$T/help-options"
check "every option of --help is in the README's table${missing:+ (missing:$missing)}" [ -z "$missing" ]

# Users have the repository, not what lies beside it.
check "the README and docs/ point nowhere outside the repository" sh -c \
    "! grep -n -e '\.\./shared' -e 'shared/SPEC' '$README' '$WINENT_SRC'/docs/*.md"
finish
