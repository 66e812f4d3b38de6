#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The licence (BSD-3-Clause): LICENSE at the root names it, every source,
# CMake, shell and Python file carries its SPDX-License-Identifier line in
# its first five lines, the Debian copyright file states it, and no file
# names a placeholder homepage. (Each .deb holding the copyright file is
# checked by test_install, which builds them.)
set -u
cd "$WINENT_SRC" || exit 1
fail=0
grep -q '^BSD 3-Clause License' LICENSE || { echo "FAILED: LICENSE is not BSD-3-Clause"; fail=1; }
grep -q '^License: BSD-3-Clause' packaging/copyright ||
    { echo "FAILED: packaging/copyright does not state BSD-3-Clause"; fail=1; }
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    files=$(git ls-files)
else
    # A source tree without git (a tarball): every file under it.
    files=$(find . -path ./.git -prune -o -path './build*' -prune -o -path ./venv -prune -o -type f -print | sed 's|^\./||')
fi
n=0 missing=0
for f in $files; do
    case $f in
    *.c | *.h | *.cu | *.cuh | *.py | *.sh | *.cmake | */CMakeLists.txt | CMakeLists.txt | *.pc.in | *.cmake.in | .ci/run) ;;
    *) continue ;;
    esac
    [ -f "$f" ] || continue
    n=$((n + 1))
    if ! head -n 5 "$f" | grep -q 'SPDX-License-Identifier: BSD-3-Clause'; then
        echo "FAILED: $f has no SPDX-License-Identifier: BSD-3-Clause line in its first five lines"
        missing=$((missing + 1))
    fi
done
[ "$missing" -eq 0 ] || fail=1
[ "$n" -gt 100 ] || { echo "FAILED: only $n source files found"; fail=1; }
# No placeholder address anywhere in the build files or the docs.
if grep -rEn 'example\.invalid|placeholder' CMakeLists.txt cmake packaging README.md 2>/dev/null; then
    echo "FAILED: a placeholder above"
    fail=1
fi
echo "licence: $n source files checked, $missing without their SPDX line"
[ $fail -eq 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit $fail
