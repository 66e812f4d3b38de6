#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The command line as GNU tools read theirs (getopt_long): --name=value,
# unambiguous abbreviations, -- before a file whose name starts with -,
# combined short flags; and what it refuses, in one line: an ambiguous
# abbreviation (naming the candidates), a value given to a flag, a missing
# value, an unknown option. The recorded command line leaves out the
# run-only options however they are written.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
S="$WINENT_SRC/samples/course-5x5-u8.raw"
R="--size 5x5 --dtype u8"

"$WS" --quiet $R --window 3 "$S" "$T/ref.raw"
expect_exit 0 "--window=3" "$WS" --quiet --size=5x5 --dtype=u8 --window=3 "$S" "$T/eq.raw"
check "--window=3 is --window 3" cmp -s "$T/ref.raw" "$T/eq.raw"
expect_exit 0 "abbreviations" "$WS" --qui --siz 5x5 --dt u8 --wind 3 "$S" "$T/abbr.raw"
check "--wind 3 --dt u8 is --window 3 --dtype u8" cmp -s "$T/ref.raw" "$T/abbr.raw"
expect_exit 0 "abbreviation with =" "$WS" -q $R --win=3 "$S" "$T/abbr2.raw"
check "--win=3 is --window 3" cmp -s "$T/ref.raw" "$T/abbr2.raw"
# An exact name beats the longer ones it starts: --band is not --bands.
expect_exit 0 "--band exact" "$WS" -q $R --band 1 --window 3 "$S" "$T/band.raw"
check "--band 1 is the default band" cmp -s "$T/ref.raw" "$T/band.raw"
# Options after the file names, and a file named like an option after --.
cp "$S" "$T/-x"
(cd "$T" && "$WS" "./-x" --window 3 out1.raw $R --quiet)
check "options after the positional arguments" cmp -s "$T/ref.raw" "$T/out1.raw"
(cd "$T" && "$WS" -q $R --window 3 -- -x out2.raw)
check "-- then a file named -x" cmp -s "$T/ref.raw" "$T/out2.raw"
(cd "$T" && "$WS" -q $R --window 3 -- -x -y.raw)
check "-- then an output named -y.raw" cmp -s "$T/ref.raw" "$T/-y.raw"
# A value starting with - is taken as the value.
expect_exit 0 "negative value" "$WS" -q $R --bins 4 --range -5:300 "$S" "$T/neg.raw"
expect_exit 0 "-qh prints the help" "$WS" -qh
check "-qh is --help" grep -q -- '--window' "$T/stdout"

# Refusals: exit 2, one line.
expect_exit 2 "ambiguous abbreviation" "$WS" $R --b 3 "$S" "$T/o.raw"
check "ambiguous names the candidates" grep -q "option '--b' is ambiguous: .*--base.*--bins" "$T/stderr"
expect_exit 2 "ambiguous --pre" "$WS" $R --pre p.png "$S" "$T/o.raw"
check "--pre: --preview or --preview-size" grep -q -- "ambiguous: --preview, .*--preview-size" "$T/stderr"
expect_exit 2 "flag with a value" "$WS" $R --bigtiff=yes "$S" "$T/o.tif"
check "flag with a value: message" grep -q -- "--bigtiff takes no value" "$T/stderr"
expect_exit 2 "abbreviated flag with a value" "$WS" $R --big=1 "$S" "$T/o.tif"
check "abbreviated flag: full name" grep -q -- "--bigtiff takes no value" "$T/stderr"
expect_exit 2 "missing value" "$WS" "$S" "$T/o.raw" --window
check "missing value: message" grep -q -- "--window needs a value" "$T/stderr"
expect_exit 2 "unknown long option" "$WS" $R --frobnicate=2 "$S" "$T/o.raw"
check "unknown: named without its value" grep -q "unknown option '--frobnicate'" "$T/stderr"
expect_exit 2 "unknown short option" "$WS" -qz $R "$S" "$T/o.raw"
check "unknown short: named" grep -q "unknown option '-z'" "$T/stderr"
expect_exit 2 "a file named -x without --" "$WS" $R -x "$T/o.raw"
expect_exit 2 "value checked by the library" "$WS" $R --wind 0 "$S" "$T/o.raw"
check "the library's message" grep -q -- "--window: '0': give K or WxH, sides from 1 to 255" "$T/stderr"
check "no output after refusals" sh -c "! ls '$T' | grep -q '^o\.'"

# --info FILE, --info=FILE, --test=FILE.
"$WS" -q $R "$S" "$T/m.zst"
expect_exit 0 "--info=FILE" "$WS" --info="$T/m.zst"
expect_exit 0 "--info FILE --check" "$WS" --info "$T/m.zst" --check
expect_exit 0 "--tes=FILE" "$WS" --tes="$T/m.zst"

# The recorded command line: run-only options out, abbreviated or not, so
# the same map has the same bytes (run in two folders: the same names).
mkdir "$T/r1" "$T/r2"
(cd "$T/r1" && "$WS" -q $R --threads 1 --device cpu --mem 64M "$S" m.zst)
(cd "$T/r2" && "$WS" $R --thr=2 --dev=cpu --mem 128M --no-prog --stat "$S" m.zst 2>/dev/null)
check "abbreviated run-only options are not recorded" cmp -s "$T/r1/m.zst" "$T/r2/m.zst"
finish
