# SPDX-License-Identifier: BSD-3-Clause
# Shared by the CLI tests: paths, a temporary directory, small checks.
# Sourced with WINENT_BIN, WINENT_TOOLS, WINENT_SRC set by ctest.
set -eu
WS="$WINENT_BIN/winent-stream"
MK="$WINENT_TOOLS/winent-mksample"
PY="${PYTHON:-/usr/bin/python3}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAILED: $*" >&2; }
check() { # check DESCRIPTION COMMAND... (sh has no locals: names kept apart)
    _check_desc=$1; shift
    if "$@"; then ok; else bad "$_check_desc"; fi
}
# expect_exit CODE DESCRIPTION COMMAND...: exit code and a one-line message
# ('winent-stream: ...', or EXPECT_PROG's name). The exit code is left in $_got.
expect_exit() {
    _want=$1; _desc=$2; shift 2
    set +e
    "$@" 2>"$T/stderr" >"$T/stdout"
    _got=$?
    set -e
    if [ "$_got" -ne "$_want" ]; then
        bad "$_desc: exit $_got, want $_want ($(head -c 300 "$T/stderr"))"
        return
    fi
    if [ "$_want" -ne 0 ]; then
        _prog=${EXPECT_PROG:-winent-stream}
        if ! grep -q "^$_prog: " "$T/stderr" || [ "$(wc -l <"$T/stderr")" -ne 1 ]; then
            bad "$_desc: stderr is not one '$_prog: ' line: $(cat "$T/stderr")"
            return
        fi
    fi
    ok
}
# same_zst A B: the same .zst map, byte for byte but for the header's
# command line (which records the output's name, --threads, ...).
same_zst() {
    "$PY" "$WINENT_SRC/tests/lib/zst_read.py" same "$1" "$2" >/dev/null
}
# has_python MODULE...: the test's Python has every module named.
has_python() {
    for _m in "$@"; do
        "$PY" -c "import $_m" 2>/dev/null || return 1
    done
}
# need_python MODULE...: skip (77) where the test's Python lacks a module.
need_python() {
    for m in "$@"; do
        has_python "$m" || { echo "no Python module $m: skipped"; exit 77; }
    done
}
# skip_part REASON: a part of the test that cannot run here, said at once;
# finish then exits 77 (skipped, with the reasons) unless a check failed.
skipped=""
skip_part() { skipped="$skipped; $*"; echo "SKIP: $*"; }
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ] || return 1
    if [ -n "$skipped" ]; then
        echo "skipped parts$skipped"
        exit 77
    fi
}
