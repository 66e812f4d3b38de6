#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Malformed inputs (crafted byte by byte by tests/cli/make_malformed.py, plus
# standard input cut short or closed): each is refused with its exit code
# and exactly one 'winent-stream: ' line holding the reason, into every
# output format, leaving nothing in an empty output folder and an existing
# file at the output name byte for byte as it was. The good files crafted
# beside them (controls, sparse blocks, 13-bit samples, a raw file longer
# than declared) give the map of the raw path on the same pixels.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
D="$T/in"
mkdir "$D" "$T/new" "$T/old"
"$PY" "$WINENT_SRC/tests/cli/make_malformed.py" "$D" >"$T/manifest"
printf 'an output of an earlier run: keep it\n' >"$T/precious"
export WS D

# refused NAME WANT MESSAGE SNIPPET: SNIPPET is sh code that runs
# winent-stream with its output at "$OUT"; it runs once per output format
# into an empty folder and once over an existing file.
refused() {
    _name=$1; _want=$2; _msg=$3; _snip=$4
    for _ext in raw zst tif; do
        expect_exit "$_want" "$_name (.$_ext)" env OUT="$T/new/out.$_ext" sh -c "$_snip"
        if [ "$_msg" != - ] && ! grep -qF -- "$_msg" "$T/stderr"; then
            bad "$_name (.$_ext): the message lacks '$_msg': $(cat "$T/stderr")"
        fi
        check "$_name (.$_ext): nothing left in the output folder" test -z "$(ls -A "$T/new")"
        rm -rf "$T/new"/* "$T/new"/.[!.]* 2>/dev/null || true
        cp "$T/precious" "$T/old/out.$_ext"
        expect_exit "$_want" "$_name (.$_ext over a file)" env OUT="$T/old/out.$_ext" \
            sh -c "$_snip"
        check "$_name (.$_ext): the existing output is untouched" \
            cmp -s "$T/precious" "$T/old/out.$_ext"
        check "$_name (.$_ext): no temporary file beside it" \
            test "$(ls -A "$T/old")" = "out.$_ext"
        rm -f "$T/old/out.$_ext"
    done
}

# accepted NAME SNIPPET SAME_AS: exit 0, nothing on stderr, and the map of
# the raw file and options SAME_AS.
accepted() {
    _name=$1; _snip=$2; _same=$3
    expect_exit 0 "$_name" env OUT="$T/new/got.raw" sh -c "$_snip"
    # (Random samples saturate the map: that notice is no word
    # about the file.)
    check "$_name: nothing on stderr" sh -c "! grep -v 'the map is saturated' '$T/stderr' | grep -q ."
    # shellcheck disable=SC2086
    set -- $_same
    _file=$1; shift
    if "$WS" --device cpu "$@" "$D/$_file" "$T/want.raw"; then
        check "$_name: same map as the raw path" cmp -s "$T/want.raw" "$T/new/got.raw"
    else
        bad "$_name: the raw path failed on $_same"
    fi
    rm -f "$T/new/got.raw" "$T/want.raw"
}

TAB=$(printf '\t')
n=0
while IFS="$TAB" read -r name want input opts msg same; do
    n=$((n + 1))
    [ "$opts" = - ] && opts=""
    snip="\"\$WS\" --device cpu $opts \"\$D/$input\" \"\$OUT\""
    if [ "$want" -eq 0 ]; then
        accepted "$name" "$snip" "$same"
    else
        refused "$name" "$want" "$msg" "$snip"
    fi
done <"$T/manifest"
check "the generator made its cases ($n)" test "$n" -ge 30

# Standard input: cut short, closed, empty, longer than declared.
R='--device cpu --size 20x16 --dtype u8'
refused "stdin cut short" 3 "ended after 300 bytes, but --size 20x16 --dtype u8 needs 320 bytes" \
    "head -c 300 \"\$D/good.raw\" | \"\$WS\" $R - \"\$OUT\""
refused "stdin ends before the last band" 3 "ended after 640 bytes" \
    "cat \"\$D/good.raw\" \"\$D/good.raw\" | \"\$WS\" $R --bands 3 - \"\$OUT\""
refused "stdin ends before the header's end" 3 "needs 330 bytes" \
    "head -c 329 \"\$D/raw-short-header.raw\" | \"\$WS\" $R --header-bytes 10 - \"\$OUT\""
refused "stdin empty (a pipe)" 3 "ended after 0 bytes" "printf '' | \"\$WS\" $R - \"\$OUT\""
refused "stdin empty (/dev/null)" 3 "0 bytes, but --size 20x16 --dtype u8 needs 320 bytes" \
    "\"\$WS\" $R - \"\$OUT\" </dev/null"
refused "stdin closed" 3 "standard input" "\"\$WS\" $R - \"\$OUT\" <&-"
accepted "stdin longer than declared" "cat \"\$D/good.raw\" \"\$D/good.raw\" | \"\$WS\" $R - \"\$OUT\"" \
    "good.raw --size 20x16 --dtype u8"
accepted "stdin: the band before the last of three" \
    "cat \"\$D/sparse.raw\" \"\$D/good.raw\" \"\$D/sparse.raw\" | \"\$WS\" $R --bands 3 --band 2 - \"\$OUT\"" \
    "good.raw --size 20x16 --dtype u8"
# Cut mid-run, after the output was opened and chunks were written.
"$PY" -c "
import sys
sys.stdout.buffer.write(bytes((x * 7 + y * 13) % 16 for y in range(1500) for x in range(700)))" \
    >"$D/big.raw"
refused "stdin cut mid-run" 3 "ended after 600000 bytes, but --size 700x1500 --dtype u8 needs 1050000" \
    "head -c 600000 \"\$D/big.raw\" | \"\$WS\" --device cpu --mem 4M --frame-rows 32 --tile 32 --size 700x1500 --dtype u8 - \"\$OUT\""
finish
