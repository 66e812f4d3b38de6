#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Memory stays flat: a 20000 x 20000 u8 input streamed through standard
# input with --mem 128M peaks under 128 MiB + 64 MiB of resident memory,
# and the output is the map of the same input read from a file; a VRT
# input (the GDAL source) stays under --mem 64M + 64 MiB.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
[ -x /usr/bin/time ] || { echo "no /usr/bin/time: skipped"; exit 77; }
[ -x "$MK" ] || { echo "no winent-mksample: skipped"; exit 77; }
for out in map.zst map.raw; do
    "$MK" --size 20000x20000 --dtype u8 --kind landscape --values 12 --seed 3 - |
        /usr/bin/time -f '%M' -o "$T/rss" "$WS" --quiet --threads 2 --mem 128M \
            --size 20000x20000 --dtype u8 - "$T/$out"
    kib=$(tail -n 1 "$T/rss")
    echo "peak resident memory, $out: $kib KiB"
    check "peak RSS $kib KiB < 192 MiB ($out)" test "$kib" -lt $((192 * 1024))
done
# The decompressed .zst equals the raw output.
if command -v zstd >/dev/null; then
    zstd -qdc "$T/map.zst" | cmp -s - "$T/map.raw" && ok || bad ".zst content = .raw"
fi
check "raw size" test "$(wc -c <"$T/map.raw")" -eq 1600000000
rm -f "$T/map.raw" "$T/map.zst"
# The GDAL source (a VRT over raw samples) stays within the same bound:
# GDAL's block cache is capped at --mem / 8 and taken out of the budget.
if [ "${WINENT_HAVE_GDAL:-OFF}" = ON ] && command -v gdal_translate >/dev/null; then
    "$MK" --size 8000x8000 --dtype u8 --kind landscape --values 12 --seed 3 - >"$T/in.raw"
    printf 'ENVI\nsamples = 8000\nlines = 8000\nbands = 1\nheader offset = 0\nfile type = ENVI Standard\ndata type = 1\ninterleave = bsq\nbyte order = 0\n' >"$T/in.hdr"
    gdal_translate -q -of VRT "$T/in.raw" "$T/in.vrt"
    /usr/bin/time -f '%M' -o "$T/rss" "$WS" --quiet --threads 2 --mem 64M "$T/in.vrt" "$T/vrt.zst"
    kib=$(tail -n 1 "$T/rss")
    echo "peak resident memory, VRT input: $kib KiB"
    check "VRT input: peak RSS $kib KiB < 128 MiB" test "$kib" -lt $((128 * 1024))
fi
# Many threads and no --mem: each thread's COG encoder (two zstd
# contexts, tile buffers: about 12 MiB) counts against the budget, and 96 of
# them take more than the 1G default, so the default grows by what the
# smallest chunks (512-row units of a 16384-wide COG) lack. With --mem 1G given the same job is refused, saying
# how much it needs. (Only the few threads that get a tile build an encoder.)
head -c $((16384 * 600)) /dev/zero >"$T/zeros.u8"
"$WS" --quiet --device cpu --threads 96 --size 16384x600 --dtype u8 --window 63 \
    "$T/zeros.u8" "$T/many.tif" && ok || bad "96 threads without --mem: the default budget grows"
check "96 threads: the COG is written" test -s "$T/many.tif"
rc=0
"$WS" --quiet --device cpu --threads 96 --mem 1G --size 16384x600 --dtype u8 --window 63 \
    "$T/zeros.u8" "$T/many1g.tif" 2>"$T/err" || rc=$?
check "96 threads with --mem 1G: a usage error (exit 2, got $rc)" test $rc -eq 2
check "... naming what it needs" grep -q "give at least --mem" "$T/err"
rm -f "$T/zeros.u8" "$T/many.tif"
finish
