#!/bin/sh
# Memory stays flat: a 20000 x 20000 u8 input streamed through standard
# input with --mem 128M peaks under 128 MiB + 64 MiB of resident memory,
# and the output is the map of the same input read from a file.
. "$WINENT_SRC/tests/cli_lib.sh"
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
finish
