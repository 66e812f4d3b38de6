# SPDX-License-Identifier: BSD-3-Clause
# Run one Python test (tests/python/test_py_*.py) with the Python the tests use
# ($PYTHON, Debian's /usr/bin/python3), the tree's package on PYTHONPATH
# and the build's libwinent.so.0 in WINENT_LIBRARY (set by
# winent_py_test, tests/CMakeLists.txt).
#
# In a sanitizer build the library is instrumented and Python is not: the
# sanitizer's runtime is preloaded into Python (ASan's shared runtime,
# asked of the compiler in $CC), without leak checking (Python frees little
# at exit); the programs the test starts get the environment back as it was
# (tests/lib/py_harness.py). A ThreadSanitizer build is skipped: an
# uninstrumented interpreter's threads would be reported throughout.
#
#   sh py_test.sh SCRIPT.py [ARGS...]
set -eu
PY="${PYTHON:-/usr/bin/python3}"
if ! command -v "$PY" >/dev/null 2>&1; then
    echo "SKIP: no Python at $PY (Debian: apt-get install python3)"
    exit 77
fi
case ",${WINENT_SANITIZE:-}," in
*,thread,*)
    echo "SKIP: the Python tests do not run under ThreadSanitizer (an uninstrumented interpreter)"
    exit 77
    ;;
*,address,*)
    rt=""
    for name in libclang_rt.asan-x86_64.so libclang_rt.asan.so libasan.so; do
        f=$("${CC:-cc}" -print-file-name="$name" 2>/dev/null || true)
        if [ -n "$f" ] && [ -f "$f" ]; then
            rt=$f
            break
        fi
    done
    if [ -z "$rt" ]; then
        echo "SKIP: no shared ASan runtime from ${CC:-cc} -print-file-name to preload into Python"
        exit 77
    fi
    export WINENT_CHILD_LD_PRELOAD="${LD_PRELOAD:-}"
    export WINENT_CHILD_ASAN_OPTIONS="${ASAN_OPTIONS:-}"
    export LD_PRELOAD="$rt${LD_PRELOAD:+:$LD_PRELOAD}"
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    ;;
esac
exec "$PY" "$@"
