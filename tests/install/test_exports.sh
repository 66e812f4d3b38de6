# SPDX-License-Identifier: BSD-3-Clause
# libwinent exports exactly the functions include/winent.h declares: the
# dynamic symbols of libwinent.so (nm -D --defined-only) against the
# function names of the preprocessed header, so the two cannot drift.
# Also: the SONAME, and every declared function in libwinent.a.
#   WINENT_SO, WINENT_A: the built libraries; CC: the build's C compiler.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
for tool in nm readelf "$CC"; do
    command -v "$tool" >/dev/null 2>&1 || { echo "no $tool: skipped"; exit 77; }
done

# Declared: every identifier winent_* followed by "(" once comments are
# gone (the preprocessor strips them; macros stay names, typedefs and
# function-pointer fields never precede "(").
"$CC" -E -P -I"$WINENT_SRC/include" "$WINENT_SRC/include/winent.h" >"$T/winent.i"
grep -o 'winent_[a-z0-9_]*[[:space:]]*(' "$T/winent.i" | sed 's/[[:space:]]*($//' |
    sort -u >"$T/declared"
check "the header declares functions" test -s "$T/declared"

# Exported: the dynamic symbol table's defined names (the version script
# adds no symbol versions, so the names are plain).
nm -D --defined-only "$WINENT_SO" | awk 'NF >= 3 { print $3 }' | sort -u >"$T/exported"

comm -23 "$T/declared" "$T/exported" >"$T/missing"
comm -13 "$T/declared" "$T/exported" >"$T/extra"
if [ -s "$T/missing" ]; then
    bad "declared in winent.h but not exported by libwinent.so (mark the declaration WINENT_API): $(tr '\n' ' ' <"$T/missing")"
else
    ok
fi
if [ -s "$T/extra" ]; then
    bad "exported by libwinent.so but not declared in winent.h (make it static, or hidden): $(tr '\n' ' ' <"$T/extra")"
else
    ok
fi

soname=$(readelf -d "$WINENT_SO" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
check "SONAME is libwinent.so.0 (got '$soname')" test "$soname" = "libwinent.so.0"

# The static library holds every declared function too (T: defined code).
nm --defined-only "$WINENT_A" 2>/dev/null | awk '$2 == "T" { print $3 }' | sort -u >"$T/static"
comm -23 "$T/declared" "$T/static" >"$T/static_missing"
check "libwinent.a defines every declared function (missing: $(tr '\n' ' ' <"$T/static_missing"))" \
    test ! -s "$T/static_missing"
echo "$(wc -l <"$T/declared") functions declared and exported"
finish
