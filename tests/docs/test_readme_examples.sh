#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The README and the user pages of docs/ as a user reads them: every
# example block runs and prints what the page shows (tests/docs/readme_examples.py:
# blocks whose needs the build lacks skip with the reason), the quick
# start's demo runs (tools/demo.sh: a GeoTIFF from winent-mksample, its map
# as a GeoTIFF GDAL places where the input was, the preview PNG), every
# option of --help is in docs/CLI.md's options table, the README stays
# within its word count, and nothing points outside the repository.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
need_python numpy
README="$WINENT_SRC/README.md"

# The README, then each user page of docs/, each in a folder of its own.
# (docs/PYTHON.md and docs/SCALING.md: test_py_docs runs them.)
for page in README.md docs/CLI.md docs/FORMATS.md docs/INSTALL.md; do
    [ -f "$WINENT_SRC/$page" ] || continue
    name=$(basename "$page" .md)
    mkdir "$T/examples-$name"
    set +e
    "$PY" "$WINENT_SRC/tests/docs/readme_examples.py" "$WINENT_SRC/$page" "$T/examples-$name" \
        >"$T/examples-$name.log" 2>&1
    rc=$?
    set -e
    cat "$T/examples-$name.log"
    check "$page's examples ($(tail -n 1 "$T/examples-$name.log"))" sh -c "[ $rc -eq 0 ] || [ $rc -eq 77 ]"
    [ $rc -ne 77 ] || echo "no example of $page could run here"
done

# The README starts with the answer and stays short (at most 1,500
# words), and names texture in its first paragraph.
words=$(wc -w <"$README")
check "the README is at most 1500 words ($words)" [ "$words" -le 1500 ]
check "the README's first paragraph says what the map is (texture)" sh -c \
    "sed -n '3,6p' '$README' | grep -qi texture"

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

# Every option --help lists has a row in docs/CLI.md's options table.
# (the lines that start with an option: prose such as "--name=VALUE" is not one)
"$WS" --help | sed -n 's/^ *\(--[a-z][a-z-]*\).*/\1/p' | sort -u >"$T/help-options"
sed -n '/^## Options/,/^## /p' "$WINENT_SRC/docs/CLI.md" | grep '^|' >"$T/table"
missing=""
while read -r opt; do
    grep -q -e "$opt\([^a-z-]\|\$\)" "$T/table" || missing="$missing $opt"
done <"$T/help-options"
check "every option of --help is in docs/CLI.md's table${missing:+ (missing:$missing)}" [ -z "$missing" ]

# Users have the repository, not what lies beside it.
check "the README and docs/ point nowhere outside the repository" sh -c \
    "! grep -n -e '\.\./shared' -e 'shared/SPEC' '$README' '$WINENT_SRC'/docs/*.md"
finish
