#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# --version: the first line names the version; the engines line the CPU,
# reference and (in a CUDA build) CUDA engines with the runtime's version
# and the architectures built; the libraries line each library's own
# answer at run time, which must be the version CMake configured against
# (the same Debian packages); the fourth line the licence. Arguments from tests/cli/cli.cmake: VERSION
# CUDA_VERSION|none CUDA_ARCHS|none ZSTD TIFF ZLIB PNG OPENMP_DATE [GDAL].
. "$WINENT_SRC/tests/lib/cli_lib.sh"
version=$1 cuda=$2 archs=$3 zstd=$4 tiff=$5 zlib=$6 png=$7 omp=$8 gdal=${9:-}

expect_exit 0 "--version" "$WS" --version
cp "$T/stdout" "$T/v"
cat "$T/v"
check "four lines" test "$(wc -l <"$T/v")" -eq 4
case $(sed -n 4p "$T/v") in
"licence: BSD-3-Clause "*) ok ;;
*) bad "licence line: $(sed -n 4p "$T/v")" ;;
esac
check "first line: winent-stream $version" test "$(head -n 1 "$T/v")" = "winent-stream $version"
engines=$(sed -n 2p "$T/v")
libs=$(sed -n 3p "$T/v")
case $engines in
"engines: cpu, reference"*) ok ;;
*) bad "engines line: $engines" ;;
esac
if [ "$cuda" = none ]; then
    check "engines without CUDA" test "$engines" = "engines: cpu, reference (built without CUDA)"
else
    case $engines in
    *"cuda (CUDA runtime $cuda; architectures "*) ok ;;
    *) bad "CUDA $cuda not in: $engines" ;;
    esac
    # Each architecture CMake built (70, 80-real, 90-virtual: sm_70 ...),
    # where the list is numbers (not all, all-major or native).
    for a in $(echo "$archs" | tr ',' ' '); do
        n=${a%%-*}
        case $n in
        *[!0-9]*) continue ;;
        esac
        case $engines in
        *"sm_$n"*) ok ;;
        *) bad "architecture $n not in: $engines" ;;
        esac
    done
fi
for lib in "zstd $zstd" "libtiff $tiff" "zlib $zlib" "libpng $png"; do
    case "$libs," in
    "libraries: $lib,"* | *", $lib,"*) ok ;;
    *) bad "'$lib' (pkg-config) not in: $libs" ;;
    esac
done
if [ -n "$omp" ]; then
    case $libs in
    *"OpenMP "*" ($omp)") ok ;;
    *) bad "OpenMP $omp not in: $libs" ;;
    esac
fi
if [ -n "$gdal" ]; then
    case "$libs," in
    *", GDAL $gdal,"*) ok ;;
    *) bad "GDAL $gdal not in: $libs" ;;
    esac
fi
expect_exit 0 "--version beside other options" "$WS" --window 3 --version
check "the same text" cmp "$T/stdout" "$T/v"
if [ -w /dev/full ]; then
    expect_exit 4 "--version to a full device" sh -c '"$0" --version >/dev/full' "$WS"
fi
finish
