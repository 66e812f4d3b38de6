# SPDX-License-Identifier: BSD-3-Clause
# Every path under tests/ that the tree names exists: the docs, README.md,
# tools/, .ci/, packaging/, the build files, include/, python/, examples/
# src/ and the tests themselves. Tests live in folders by area (tests/AREA/), so
# a test moved leaves no stale name behind. A path with a glob
# (tests/fuzz/*.dict) names at least one file; one with a placeholder in
# capitals (tests/fuzz/regress/HARNESS/NAME) is checked up to it; a build
# folder's path (build/tests/fuzz_tiff) is not the tree's.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
cd "$WINENT_SRC"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files >"$T/files"
else
    find . -path ./.git -prune -o -path './build*' -prune -o -path ./venv -prune -o -type f -print |
        sed 's|^\./||' >"$T/files"
fi
grep -v -e '^tests/fuzz/regress/' -e '^samples/' "$T/files" >"$T/scan"
# FILE:TOKEN, each token the path and what stands before it on its word.
while IFS= read -r f; do
    [ -f "$f" ] || continue
    grep -I -o -E '[A-Za-z0-9_$.{}()"-]*/?tests/[A-Za-z0-9_.*/-]*' "$f" 2>/dev/null |
        sed "s|^|$f:|"
done <"$T/scan" >"$T/tokens"
n=0
while IFS= read -r line; do
    f=${line%%:*}
    tok=${line#*:}
    pre=${tok%%tests/*}
    case $pre in
    *build*/) continue ;; # a build folder's
    esac
    p=tests/${tok#*tests/}
    p=${p%.} # a sentence's full stop
    # Up to the first placeholder in capitals.
    q=""
    rest=$p
    while [ -n "$rest" ]; do
        c=${rest%%/*}
        case $c in
        [A-Z]*) if [ "$c" = "$(printf '%s' "$c" | tr -cd 'A-Z_')" ]; then break; fi ;;
        esac
        q=${q:+$q/}$c
        [ "$rest" = "${rest#*/}" ] && break
        rest=${rest#*/}
    done
    n=$((n + 1))
    # shellcheck disable=SC2086 # a glob is meant to expand
    set -- $q
    if [ -e "$1" ]; then ok; else bad "$f names $p, which does not exist"; fi
done <"$T/tokens"
check "paths under tests/ found ($n)" test "$n" -ge 50
finish
