#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The Cloud-Optimized GeoTIFF output (docs/SPEC.md section 4):
# GDAL's COG validator (--full-check=yes) passes on every shape; the
# overviews hold the promised block means (numpy on the full resolution
# GDAL reads back); the full resolution is the raw map bit for bit;
# --tif-layout tiled keeps the plain layout; the spills never outlive the
# job; memory stays under --mem. One group per ctest test (tests/cog/cog.cmake):
#     sh test_cog.sh layout|values|tiled|spill|memory
. "$WINENT_SRC/tests/lib/cli_lib.sh"
group=${1:?"usage: test_cog.sh GROUP"}
command -v gdal_translate >/dev/null 2>&1 || { echo "no gdal_translate: skipped"; exit 77; }
need_python numpy osgeo.gdal
VALIDATE=/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_cloud_optimized_geotiff.py
[ -f "$VALIDATE" ] || VALIDATE=$("$PY" -c "import osgeo_utils.samples.validate_cloud_optimized_geotiff as v; print(v.__file__)" 2>/dev/null || true)
[ -n "$VALIDATE" ] && [ -f "$VALIDATE" ] || { echo "no validate_cloud_optimized_geotiff.py: skipped"; exit 77; }
[ -x "$MK" ] || { echo "no winent-mksample: skipped"; exit 77; }
CHK="$WINENT_SRC/tests/cog/cog_check.py"
RUN="--quiet --device cpu"

# valid FILE: GDAL's validator, every block's leader and trailer checked.
valid() {
    "$PY" "$VALIDATE" --full-check=yes "$1" >"$T/validate" 2>&1 && return 0
    sed 's/^/  /' "$T/validate" >&2
    return 1
}
# cog_case NAME TILE OPTS...: the map as COG and as raw; valid, overviews
# as promised, full resolution = raw.
cog_case() {
    _name=$1 _tile=$2
    shift 2
    "$WS" $RUN --tile "$_tile" "$@" "$T/$_name.tif"
    "$WS" $RUN "$@" "$T/$_name.raw"
    check "$_name: a valid COG" valid "$T/$_name.tif"
    check "$_name: overviews" "$PY" "$CHK" overviews "$T/$_name.tif" "$_tile"
    check "$_name: full resolution = raw" "$PY" "$CHK" pixels "$T/$_name.tif" "$T/$_name.raw"
}

"$MK" --size 1500x1100 --dtype u16 --kind landscape --values 300 --holes 0.05 --nodata 0 \
    --seed 9 "$T/med.u16"
MED="--size 1500x1100 --dtype u16 --nodata 0 $T/med.u16"

case $group in
layout)
    # One tile: no overviews, still a COG (directory at 8 + ghost).
    "$MK" --size 200x150 --dtype u8 --values 9 --seed 1 "$T/small.u8"
    cog_case small 512 --size 200x150 --dtype u8 "$T/small.u8"
    check "small: no overviews" "$PY" -c "
import sys; from osgeo import gdal
ds = gdal.Open('$T/small.tif'); sys.exit(ds.GetRasterBand(1).GetOverviewCount())"
    # Several levels, nodata at 5 % of the pixels.
    cog_case medium 256 $MED
    # Not square: the levels stop when the longer side fits.
    "$MK" --size 1300x300 --dtype u8 --kind landscape --values 20 --seed 2 "$T/wide.u8"
    cog_case nonsquare 128 --size 1300x300 --dtype u8 --window 7x3 "$T/wide.u8"
    # Nodata-heavy float input: 60 % holes, whole overview blocks NaN.
    "$MK" --size 900x700 --dtype f32 --kind landscape --values 50 --holes 0.6 --seed 3 "$T/holes.f32"
    cog_case holes 64 --size 900x700 --dtype f32 --range 0:50 --bins 64 "$T/holes.f32"
    check "holes: some overview pixels are NaN" "$PY" -c "
import sys, numpy as np; from osgeo import gdal
ds = gdal.Open('$T/holes.tif'); o = ds.GetRasterBand(1).GetOverview(2).ReadAsArray()
sys.exit(0 if np.isnan(o).any() and not np.isnan(o).all() else 1)"
    # Tiny tiles on a wide image: more overview tiles at once than job
    # slots, so the writer compresses some itself.
    "$MK" --size 5000x64 --dtype u8 --values 30 --seed 4 "$T/thin.u8"
    cog_case thin 16 --size 5000x64 --dtype u8 "$T/thin.u8"
    # BigTIFF on request (past 4 GiB it is chosen alone).
    cog_case big 256 --bigtiff $MED
    check "big: a BigTIFF header" test "$(head -c 4 "$T/big.tif" | od -An -tx1 | tr -d ' ')" = 49492b00
    check "medium: a classic header" test "$(head -c 4 "$T/medium.tif" | od -An -tx1 | tr -d ' ')" = 49492a00
    # Every compression, overviews included; zstd at a level given.
    for c in deflate lzw none; do
        cog_case "c_$c" 256 --compress $c $MED
    done
    cog_case zstd5 256 --level 5 $MED
    # A georeferenced input: the COG keeps its geotransform and CRS, GDAL
    # places the overviews by them.
    "$MK" --size 517x301 --dtype u8 --values 12 --seed 5 "$T/g.raw"
    printf 'ENVI\nsamples = 517\nlines = 301\nbands = 1\nheader offset = 0\nfile type = ENVI Standard\ndata type = 1\ninterleave = bsq\nbyte order = 0\n' >"$T/g.hdr"
    gdal_translate -q -of GTiff -a_srs EPSG:32618 -a_ullr 440720 3751320 456230 3742290 \
        -co TILED=YES "$T/g.raw" "$T/g.tif"
    cog_case geo 64 "$T/g.tif"
    check "geo: geotransform and CRS kept" "$PY" -c "
import sys, numpy as np
from osgeo import gdal, osr
a, b = gdal.Open('$T/geo.tif'), gdal.Open('$T/g.tif')
same = np.allclose(a.GetGeoTransform(), b.GetGeoTransform(), rtol=0, atol=1e-9)
s = osr.SpatialReference(a.GetProjection())
sys.exit(0 if same and s.GetAuthorityCode(None) == '32618' else 1)"
    ;;

values)
    # Band description and provenance, read by GDAL (and shown by gdalinfo).
    "$WS" $RUN --window 7x3 --tile 256 --size 1500x1100 --dtype u16 --nodata 0 "$T/med.u16" \
        "$T/m.tif"
    check "description and items" "$PY" "$CHK" meta "$T/m.tif" "entropy 7x3 of band 1" \
        window=7x3 base=2 source_band=1 nodata=0 "source=$T/med.u16" \
        "version=$("$WS" --version | head -n 1 | sed 's/^winent-stream //')" \
        "command_line=$WS --window 7x3 --tile 256 --size 1500x1100 --dtype u16 --nodata 0 $T/med.u16 $T/m.tif"
    gdalinfo "$T/m.tif" >"$T/gdalinfo"
    check "gdalinfo shows the description" grep -q "Description = entropy 7x3 of band 1" "$T/gdalinfo"
    check "gdalinfo shows the command line" grep -q "command_line=.*--window 7x3" "$T/gdalinfo"
    check "gdalinfo: LAYOUT=COG, overviews" sh -c "grep -q 'LAYOUT=COG' '$T/gdalinfo' && grep -q 'Overviews: 750x550, 375x275, 188x138' '$T/gdalinfo'"
    # A word the shell would split is quoted; how the job ran is left out
    # (the bytes never depend on it).
    cp "$T/med.u16" "$T/it's in.u16"
    "$WS" --quiet --device cpu --threads 1 --mem 256M --tile 256 --size 1500x1100 --dtype u16 \
        "$T/it's in.u16" "$T/q.tif"
    check "command line: quoted, running options left out" "$PY" "$CHK" meta "$T/q.tif" \
        "entropy 5x5 of band 1" "command_line=$WS --tile 256 --size 1500x1100 --dtype u16 '$T/it'\\''s in.u16' $T/q.tif"
    # The same bytes whatever the threads and the memory (chunk edges fall
    # elsewhere; overview tiles are compressed by other threads). The same
    # words each time, in a folder of its own: the command line is in the
    # metadata, less the options that only say how it runs.
    for r in 1:1G 2:1G 7:1G 3:24M; do
        mkdir "$T/r${r%:*}"
        ln -s "$T/med.u16" "$T/r${r%:*}/in.u16"
        (cd "$T/r${r%:*}" && "$WS" $RUN --threads ${r%:*} --mem ${r#*:} --tile 128 \
            --size 1500x1100 --dtype u16 --nodata 0 in.u16 t.tif)
    done
    check "threads 1 = 2, byte for byte" cmp -s "$T/r1/t.tif" "$T/r2/t.tif"
    check "threads 1 = 7, byte for byte" cmp -s "$T/r1/t.tif" "$T/r7/t.tif"
    check "--mem 24M, byte for byte" cmp -s "$T/r1/t.tif" "$T/r3/t.tif"
    cp "$T/r1/t.tif" "$T/t1.tif"
    check "t1: a valid COG" valid "$T/t1.tif"
    check "t1: overviews" "$PY" "$CHK" overviews "$T/t1.tif" 128
    ;;

tiled)
    # The plain layout on request: a tiled GeoTIFF without overviews, no COG.
    "$WS" $RUN --tile 256 $MED "$T/cog.tif"
    "$WS" $RUN --tile 256 --tif-layout tiled $MED "$T/plain.tif"
    "$WS" $RUN $MED "$T/want.raw"
    check "tiled: the plain layout" "$PY" "$CHK" plain "$T/plain.tif" 256
    check "tiled: not a COG for the validator" sh -c "! '$PY' '$VALIDATE' -q '$T/plain.tif' >/dev/null 2>&1"
    check "tiled = raw" "$PY" "$CHK" pixels "$T/plain.tif" "$T/want.raw"
    check "tiled and COG: the same pixels" "$PY" "$CHK" same "$T/plain.tif" "$T/cog.tif"
    check "tiled: description too" "$PY" "$CHK" meta "$T/plain.tif" "entropy 5x5 of band 1" \
        source_band=1
    "$WS" $RUN --tile 256 --tif-layout tiled --bigtiff $MED "$T/plainbig.tif"
    check "tiled --bigtiff: a BigTIFF" test "$(head -c 4 "$T/plainbig.tif" | od -An -tx1 | tr -d ' ')" = 49492b00
    check "tiled --bigtiff = raw" "$PY" "$CHK" pixels "$T/plainbig.tif" "$T/want.raw"
    expect_exit 2 "--tif-layout foo" "$WS" $RUN --tif-layout foo $MED "$T/x.tif"
    check "the message names the values" grep -q "use cog or tiled" "$T/stderr"
    ;;

spill)
    D="$T/d"
    # only NAME...: $D holds exactly these names.
    only() {
        _want=$(for _n in "$@"; do echo "$_n"; done | sort)
        _got=$(ls -A "$D" | sort)
        [ "$_got" = "$_want" ] && return 0
        echo "  $D holds:" $_got >&2
        return 1
    }
    rm -rf "$D" && mkdir "$D"
    "$WS" $RUN --tile 128 $MED "$D/ok.tif"
    check "success: only the output" only ok.tif
    size=$(wc -c <"$D/ok.tif")
    # A file size limit while the tiles stream (the spill is cut), then one
    # that only the laid-out file passes (the final copy is cut): exit 4,
    # the limit named, the old file kept, nothing else left.
    # Not under TSan: its runtime's own file (tsan.rodata.PID) would be cut
    # by the limit too (as in test_tiff_gdal.sh).
    limits="200 $(((size - 4096) / 512))"
    [ "${WINENT_SANITIZE:-}" = thread ] && limits=""
    for blocks in $limits; do
        rm -rf "$D" && mkdir "$D"
        echo precious >"$D/o.tif"
        expect_exit 4 "ulimit -f $blocks" sh -c 'ulimit -f '$blocks'; exec "$@"' sh "$WS" $RUN \
            --tile 128 $MED "$D/o.tif"
        check "ulimit -f $blocks: the limit named" grep -q 'ulimit -f' "$T/stderr"
        check "ulimit -f $blocks: the old file kept" grep -q precious "$D/o.tif"
        check "ulimit -f $blocks: nothing left" only o.tif
    done
    # Mid-run, the input a FIFO that has stopped delivering: the spill of
    # the overviews (and of the full resolution, where the file system
    # cannot insert a range) exists, with part of the map, and has no name;
    # then SIGINT (exit 130, nothing left), or SIGKILL (only the temporary
    # output can remain, docs/SPEC.md section 6: never a spill).
    W=1500 H=1100
    for sig in INT KILL; do
        rm -rf "$D" && mkdir "$D"
        rm -f "$T/in.fifo"
        mkfifo "$T/in.fifo"
        # Small chunks (--mem), so that half the input makes tile rows.
        "$WS" $RUN --tile 128 --mem 24M --size ${W}x$H --dtype u16 --nodata 0 "$T/in.fifo" \
            "$D/o.tif" 2>"$T/err" &
        pid=$!
        (head -c $((W * H)) "$T/med.u16" && exec sleep 3600) >"$T/in.fifo" &
        feeder=$!
        # Until the first rows of tiles have gone out (to the output
        # itself or to a spill: something open in the folder is not empty).
        n=0
        while [ $n -lt 300 ]; do
            spilled=$(ls -l /proc/$pid/fd 2>/dev/null | grep -c "$D/.*(deleted)" || true)
            sizes=$(for f in /proc/$pid/fd/*; do
                case $(readlink "$f" 2>/dev/null) in "$D"/*) stat -L -c %s "$f" 2>/dev/null ;; esac
            done | sort -n | tail -1)
            [ "$spilled" -ge 1 ] && [ "${sizes:-0}" -gt 0 ] && break
            sleep 0.1
            n=$((n + 1))
        done
        check "SIG$sig: a spill open, nameless, tiles written" test "$spilled" -ge 1 -a "${sizes:-0}" -gt 0
        named=$(ls -l /proc/$pid/fd 2>/dev/null | grep "$D/" | grep -v "(deleted)" |
            sed 's/.*-> //' | xargs -n1 basename 2>/dev/null | sort | tr '\n' ' ')
        case $named in
        "o.tif.tmp-"??????" ") ok ;;
        *) bad "SIG$sig: files open in the folder by name: '$named' (want the temporary output only)" ;;
        esac
        kill -$sig $pid
        set +e
        wait $pid
        rc=$?
        set -e
        kill $feeder 2>/dev/null || true
        wait $feeder 2>/dev/null || true
        if [ $sig = INT ]; then
            check "SIGINT: exit 130 (got $rc)" test "$rc" -eq 130
            check "SIGINT: nothing left" only
        else
            left=$(ls -A "$D" | grep -v '^o\.tif\.tmp-......$' || true)
            check "SIGKILL: no spill left ($left)" test -z "$left"
        fi
    done
    # A file system that cannot insert a range (tmpfs): the full resolution
    # goes to a spill of its own and is copied after the overviews.
    S=/dev/shm
    if [ -d "$S" ] && [ -w "$S" ] && [ "$(stat -f -c %T "$S")" = tmpfs ]; then
        D=$(mktemp -d "$S/winent-cog-XXXXXX")
        "$WS" $RUN --tile 128 $MED "$D/shm.tif"
        "$WS" $RUN $MED "$T/shm.raw"
        check "tmpfs: a valid COG" valid "$D/shm.tif"
        check "tmpfs: overviews" "$PY" "$CHK" overviews "$D/shm.tif" 128
        check "tmpfs: full resolution = raw" "$PY" "$CHK" pixels "$D/shm.tif" "$T/shm.raw"
        check "tmpfs: only the output" only shm.tif
        size=$(wc -c <"$D/shm.tif")
        rm -f "$D/shm.tif"
        if [ "${WINENT_SANITIZE:-}" != thread ]; then
            expect_exit 4 "tmpfs: ulimit -f at the final copy" \
                sh -c 'ulimit -f '$(((size - 4096) / 512))'; exec "$@"' sh \
                "$WS" $RUN --tile 128 $MED "$D/shm.tif"
            check "tmpfs: nothing left" only
        fi
        rm -rf "$D"
    else
        echo "note: no tmpfs at $S: the copy path is not tried"
    fi
    ;;

memory)
    [ -x /usr/bin/time ] || { echo "no /usr/bin/time: skipped"; exit 77; }
    # 4000 x 8000 from a pipe, --mem 64M: five levels of overviews built
    # as the rows stream; the peak stays under --mem + 64 MiB (as
    # test_cli_memory).
    "$MK" --size 4000x8000 --dtype u8 --kind landscape --values 40 --seed 6 - |
        /usr/bin/time -f '%M' -o "$T/rss" "$WS" --quiet --threads 2 --mem 64M --tile 256 \
            --size 4000x8000 --dtype u8 - "$T/big.tif"
    kib=$(tail -n 1 "$T/rss")
    echo "peak resident memory: $kib KiB"
    check "peak RSS $kib KiB < 128 MiB" test "$kib" -lt $((128 * 1024))
    check "a valid COG" valid "$T/big.tif"
    check "five overviews" "$PY" -c "
import sys; from osgeo import gdal
ds = gdal.Open('$T/big.tif'); sys.exit(0 if ds.GetRasterBand(1).GetOverviewCount() == 5 else 1)"
    ;;
*)
    echo "unknown group $group" >&2
    exit 2
    ;;
esac
finish
