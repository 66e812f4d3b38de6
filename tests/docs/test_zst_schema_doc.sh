# SPDX-License-Identifier: BSD-3-Clause
# The .zst header's schema is written once in code (zst_schema.c) and once
# for users (docs/FORMATS.md): the two name the same members, the same ones
# required and the same ones that may be null.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
C="$WINENT_SRC/src/tiles/formats/zst_schema.c"
D="$WINENT_SRC/docs/FORMATS.md"
# From the code: KEY REQUIRED(0/1) NULLABLE(0/1), one line per member of
# the header's table.
sed -n '/^static const member header_members\[\] = {/,/{NULL,/p' "$C" |
    tr '\n' ' ' | sed 's/},/}\n/g' |
    sed -n 's/.*{"\([a-z_]*\)", K_[A-Z]*, \([A-Z|0]*\),.*/\1 \2/p' |
    awk '{ print $1, ($2 ~ /REQUIRED/) ? 1 : 0, ($2 ~ /NULLABLE/) ? 1 : 0 }' |
    sort >"$T/code"
# From the docs: the rows of the header's table, "| `key` | yes | ... | yes... |".
sed -n '/^### The header/,/^### /p' "$D" | grep '^| `' |
    awk -F'|' '{ k = $2; gsub(/[ `]/, "", k); r = $3; gsub(/ /, "", r); n = $5; sub(/^ */, "", n)
                 print k, (r == "yes") ? 1 : 0, (n ~ /^yes/) ? 1 : 0 }' | sort >"$T/docs"
check "the code's table has the header's members ($(wc -l <"$T/code"))" \
    test "$(wc -l <"$T/code")" -ge 20
if cmp -s "$T/code" "$T/docs"; then
    ok
else
    bad "zst_schema.c and docs/FORMATS.md differ (member required nullable): $(diff "$T/code" "$T/docs" | tr '\n' ' ')"
fi
finish
