#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Several bands and windows in one pass: every map of
# `--band all --window 3,5,9` on a 4-band input equals, byte for byte, the
# single run of that band and window, whatever the input (raw BSQ, BIL, BIP,
# a pipe; TIFF contiguous and separate planes; GDAL), in every output: raw
# files (NAME_bB_wK.raw), one .zst (zstd -d slices, its maps through the
# seek table, --decode), one GeoTIFF (GDAL reads each band back; the COG's
# overviews of each band are the single run's); and the errors.
#
#   test_multimap.sh raw|zst|tif|errors|stats|memory
. "$WINENT_SRC/tests/lib/cli_lib.sh"
GROUP=${1:-raw}
[ -x "$MK" ] || { echo "no winent-mksample: skipped"; exit 77; }
W=517
H=301
R="--quiet --size ${W}x$H --dtype u8 --bands 4"
MAP=$((W * H * 4))
for b in 1 2 3 4; do
    "$MK" --size ${W}x$H --dtype u8 --kind landscape --values $((4 + 3 * b)) --seed $b "$T/b$b.raw"
done
cat "$T/b1.raw" "$T/b2.raw" "$T/b3.raw" "$T/b4.raw" >"$T/bsq.raw"
# The single runs: the reference of every map.
for b in 1 2 3 4; do
    for w in 3 5 9; do
        "$WS" $R --band $b --window $w "$T/bsq.raw" "$T/s_b${b}_w$w.raw"
    done
done
# same_maps PREFIX DESC [EXT]: PREFIX_bB_wK.EXT (default raw) equal the
# single runs.
same_maps() {
    _bad=
    for b in 1 2 3 4; do
        for w in 3 5 9; do
            cmp -s "$1_b${b}_w$w.${3:-raw}" "$T/s_b${b}_w$w.raw" || _bad="$_bad b$b/w$w"
        done
    done
    if [ -z "$_bad" ]; then ok; else bad "$2: maps differ from the single runs:$_bad"; fi
}
# stack FILE: the single runs, band-major, one after another.
stack() {
    for b in 1 2 3 4; do
        for w in 3 5 9; do cat "$T/s_b${b}_w$w.raw"; done
    done >"$1"
}

case $GROUP in
raw)
    need_python numpy
    # Raw output: one file per map, from every raw layout and a pipe.
    "$WS" $R --band all --window 3,5,9 "$T/bsq.raw" "$T/a.raw"
    same_maps "$T/a" "BSQ file"
    "$PY" - "$T" $W $H <<'EOF'
import sys, numpy as np
t, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
a = np.stack([np.fromfile("%s/b%d.raw" % (t, b), "u1").reshape(h, w) for b in (1, 2, 3, 4)])
a.transpose(1, 0, 2).tofile(t + "/bil.raw")
a.transpose(1, 2, 0).tofile(t + "/bip.raw")
EOF
    "$WS" $R --interleave bil --band all --window 3,5,9 "$T/bil.raw" "$T/l.f32"
    same_maps "$T/l" "BIL file, the extension kept" f32
    "$WS" $R --interleave bip --band 1,2,3,4 --window 3,5,9 - "$T/p.raw" <"$T/bip.raw"
    same_maps "$T/p" "BIP on standard input"
    cat "$T/bil.raw" | "$WS" $R --interleave bil --band all --window 3,5,9 - "$T/q.raw"
    same_maps "$T/q" "BIL on a pipe"
    # A name without extension, another order of bands and windows.
    "$WS" $R --band 3,1 --window 9,3 "$T/bsq.raw" "$T/noext"
    check "no extension, band 3 window 9" cmp -s "$T/noext_b3_w9" "$T/s_b3_w9.raw"
    check "no extension, band 1 window 3" cmp -s "$T/noext_b1_w3" "$T/s_b1_w3.raw"
    # WxH windows are named w7x3; one map keeps the name as given.
    "$WS" $R --band 2 --window 7x3,5 "$T/bsq.raw" "$T/r.raw"
    "$WS" $R --band 2 --window 7x3 "$T/bsq.raw" "$T/one.raw"
    check "window 7x3 named _w7x3" cmp -s "$T/r_b2_w7x3.raw" "$T/one.raw"
    check "one map keeps its name" test ! -e "$T/r.raw"
    "$WS" --quiet --size ${W}x$H --dtype u8 --band all --window 5 "$T/b3.raw" "$T/one3.raw"
    "$WS" --quiet --size ${W}x$H --dtype u8 --window 5 "$T/b3.raw" "$T/one3ref.raw"
    check "--band all of a 1-band input is one map, named as given" cmp -s "$T/one3.raw" "$T/one3ref.raw"
    # --sidecar: a header beside each file, naming its band and window.
    if [ "${WINENT_HAVE_GDAL:-OFF}" = ON ]; then
        "$WS" $R --band 2,4 --window 3,9 --sidecar "$T/bsq.raw" "$T/h.raw"
        "$PY" - "$T" <<'EOF' && ok || bad "sidecars: GDAL reads each map with its header"
import sys, numpy as np
from osgeo import gdal
t = sys.argv[1]
gdal.UseExceptions()
for b in (2, 4):
    for w in (3, 9):
        ds = gdal.Open("%s/h_b%d_w%d.raw" % (t, b, w))
        a = ds.GetRasterBand(1).ReadAsArray()
        want = np.fromfile("%s/s_b%d_w%d.raw" % (t, b, w), "<f4").reshape(a.shape)
        assert np.array_equal(a.view("u4"), want.view("u4")), (b, w)
        assert "%dx%d" % (w, w) in open("%s/h_b%d_w%d.raw.hdr" % (t, b, w)).read()
        assert ("band %d" % b) in open("%s/h_b%d_w%d.raw.hdr" % (t, b, w)).read()
EOF
    fi
    ;;
zst)
    need_python numpy xxhash
    command -v zstd >/dev/null || { echo "no zstd: skipped"; exit 77; }
    stack "$T/stack.raw"
    "$WS" $R --band all --window 3,5,9 --frame-rows 64 "$T/bsq.raw" "$T/m.zst"
    zstd -qdc "$T/m.zst" >"$T/m.raw"
    check "zstd -d: the single runs, band-major" cmp -s "$T/m.raw" "$T/stack.raw"
    "$PY" "$WINENT_SRC/tests/lib/zst_read.py" check "$T/m.zst" >/dev/null && ok ||
        bad "zst_read.py check of a file of 12 maps"
    check "--test" sh -c "'$WS' --test '$T/m.zst' | grep -q '^OK: 60 frames, 12 maps of 517 x 301$'"
    # Each map through the header's list and the seek table.
    i=0
    for b in 1 2 3 4; do
        for w in 3 5 9; do
            "$PY" "$WINENT_SRC/tests/lib/zst_read.py" map "$T/m.zst" $i >"$T/one.raw"
            cmp -s "$T/one.raw" "$T/s_b${b}_w$w.raw" || bad "map $i (band $b, window $w) of the .zst"
            i=$((i + 1))
        done
    done
    ok
    "$PY" - "$T/m.zst" <<'EOF' && ok || bad "the header lists the maps"
import json, struct, sys
data = open(sys.argv[1], "rb").read()
size = struct.unpack_from("<I", data, 4)[0]
h = json.loads(data[8:8 + size])
maps = h["maps"]
assert len(maps) == 12 and h["frames"] == 60, h
for i, m in enumerate(maps):
    assert m["band"] == i // 3 + 1 and m["window"] == [(3, 5, 9)[i % 3]] * 2, m
    assert m["first_frame"] == 5 * i and m["frames"] == 5, m
EOF
    # To standard output too (the maps past the first through TMPDIR).
    "$WS" $R --band all --window 3,5,9 --frame-rows 64 --format zst "$T/bsq.raw" - >"$T/p.zst"
    check ".zst on standard output: the same maps" same_zst "$T/p.zst" "$T/m.zst"
    # One map: today's format, byte for byte.
    "$WS" $R --band 2 --window 5 "$T/bsq.raw" "$T/one.zst"
    check "one map: no list of maps" sh -c "! '$WS' --info '$T/one.zst' | grep -q maps"
    # --decode: a GeoTIFF of 12 bands, raw files, another .zst.
    "$WS" --quiet --decode --frame-rows 100 "$T/m.zst" "$T/again.zst"
    zstd -qdc "$T/again.zst" | cmp -s - "$T/stack.raw" && ok || bad "--decode to .zst"
    "$WS" --quiet --decode "$T/m.zst" "$T/d.raw"
    same_maps "$T/d" "--decode to raw files"
    if [ "${WINENT_HAVE_GDAL:-OFF}" = ON ]; then
        "$WS" --quiet --decode --tile 256 "$T/m.zst" "$T/d.tif"
        "$PY" - "$T" "$T/d.tif" <<'EOF' && ok || bad "--decode to a GeoTIFF of 12 bands"
import sys, numpy as np
from osgeo import gdal
gdal.UseExceptions()
t, path = sys.argv[1], sys.argv[2]
ds = gdal.Open(path)
assert ds.RasterCount == 12
k = 1
for b in (1, 2, 3, 4):
    for w in (3, 5, 9):
        band = ds.GetRasterBand(k)
        want = np.fromfile("%s/s_b%d_w%d.raw" % (t, b, w), "<f4").reshape(ds.RasterYSize, ds.RasterXSize)
        assert np.array_equal(band.ReadAsArray().view("u4"), want.view("u4")), k
        assert band.GetDescription() == "entropy %dx%d of band %d" % (w, w, b), band.GetDescription()
        k += 1
EOF
    fi
    ;;
tif)
    [ "${WINENT_HAVE_GDAL:-OFF}" = ON ] || { echo "no GDAL in this build: skipped"; exit 77; }
    need_python numpy osgeo
    # A 4-band TIFF of each planar layout (grey bands, no alpha: libtiff
    # reads them), and a VRT over the contiguous one (the GDAL source).
    "$PY" - "$T" $W $H <<'EOF'
import sys, numpy as np
from osgeo import gdal
gdal.UseExceptions()
t, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
a = np.stack([np.fromfile("%s/b%d.raw" % (t, b), "u1").reshape(h, w) for b in (1, 2, 3, 4)])
for name, opts in (("contig.tif", ["TILED=YES", "BLOCKXSIZE=128", "BLOCKYSIZE=64",
                                   "COMPRESS=DEFLATE", "INTERLEAVE=PIXEL", "PHOTOMETRIC=MINISBLACK"]),
                   ("sep.tif", ["COMPRESS=ZSTD", "INTERLEAVE=BAND", "BLOCKYSIZE=7",
                                "PHOTOMETRIC=MINISBLACK"])):
    ds = gdal.GetDriverByName("GTiff").Create("%s/%s" % (t, name), w, h, 4, gdal.GDT_Byte, opts)
    ds.SetGeoTransform([500000, 10, 0, 4100000, 0, -10])
    ds.SetProjection('PROJCS["WGS 84 / UTM zone 33N",GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["latitude_of_origin",0],PARAMETER["central_meridian",15],PARAMETER["scale_factor",0.9996],PARAMETER["false_easting",500000],PARAMETER["false_northing",0],UNIT["metre",1],AUTHORITY["EPSG","32633"]]')
    for b in range(4):
        ds.GetRasterBand(b + 1).WriteArray(a[b])
    ds = None
gdal.Translate(t + "/in.vrt", t + "/contig.tif", format="VRT")
EOF
    for input in contig.tif sep.tif in.vrt; do
        "$WS" --quiet --band all --window 3,5,9 "$T/$input" "$T/${input%.*}.raw"
        same_maps "$T/${input%.*}" "$input to raw files"
    done
    # The GeoTIFF outputs: each band as GDAL reads it, its description, the
    # georeferencing kept; the COG valid, each band's overviews the single
    # run's.
    for b in 1 4; do
        for w in 3 9; do
            "$WS" --quiet --tile 128 --band $b --window $w "$T/contig.tif" "$T/one_b${b}_w$w.tif"
        done
    done
    for lay in cog tiled; do
        "$WS" --quiet --tile 128 --tif-layout $lay --band all --window 3,5,9 "$T/contig.tif" "$T/$lay.tif"
        "$PY" - "$T" "$T/$lay.tif" $lay <<'EOF' && ok || bad "$lay: GDAL reads each band back"
import sys, numpy as np
from osgeo import gdal
gdal.UseExceptions()
t, path, lay = sys.argv[1], sys.argv[2], sys.argv[3]
ds = gdal.Open(path)
assert ds.RasterCount == 12, ds.RasterCount
assert ds.GetGeoTransform() == (500000, 10, 0, 4100000, 0, -10), ds.GetGeoTransform()
assert "32633" in ds.GetProjection()
k = 1
for b in (1, 2, 3, 4):
    for w in (3, 5, 9):
        band = ds.GetRasterBand(k)
        want = np.fromfile("%s/s_b%d_w%d.raw" % (t, b, w), "<f4").reshape(ds.RasterYSize, ds.RasterXSize)
        assert np.array_equal(band.ReadAsArray().view("u4"), want.view("u4")), k
        assert band.GetDescription() == "entropy %dx%d of band %d" % (w, w, b), band.GetDescription()
        assert band.GetMetadataItem("window") == "%dx%d" % (w, w)
        assert band.GetMetadataItem("source_band") == str(b)
        if lay == "cog" and b in (1, 4) and w in (3, 9):
            ods = gdal.Open("%s/one_b%d_w%d.tif" % (t, b, w))
            one = ods.GetRasterBand(1)
            n = one.GetOverviewCount()
            assert n == 3 and band.GetOverviewCount() == n, (n, band.GetOverviewCount())
            for i in range(n):
                x, y = band.GetOverview(i).ReadAsArray(), one.GetOverview(i).ReadAsArray()
                assert np.array_equal(x.view("u4"), y.view("u4")), (k, i)
        elif lay == "tiled":
            assert band.GetOverviewCount() == 0
        k += 1
EOF
    done
    VALIDATE=/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_cloud_optimized_geotiff.py
    if [ -f "$VALIDATE" ]; then
        "$PY" "$VALIDATE" -q --full-check=yes "$T/cog.tif" && ok || bad "COG of 12 bands: GDAL's validator"
    fi
    # Separate planes in, a .zst out: the same maps.
    "$WS" --quiet --band all --window 3,5,9 "$T/sep.tif" "$T/sep.zst"
    stack "$T/stack.raw"
    if command -v zstd >/dev/null; then
        zstd -qdc "$T/sep.zst" | cmp -s - "$T/stack.raw" && ok || bad "separate planes to .zst"
    fi
    ;;
errors)
    expect_exit 2 "--band 7 of 4 bands" "$WS" $R --band 7 "$T/bsq.raw" "$T/o.raw"
    grep -q "has 4 bands" "$T/stderr" && ok || bad "--band 7: the message names the band count"
    expect_exit 2 "--band 2,7 of 4 bands" "$WS" $R --band 2,7 --window 3,5 "$T/bsq.raw" "$T/o.zst"
    expect_exit 2 "raw to standard output, several maps" "$WS" $R --band 1,2 "$T/bsq.raw" -
    grep -q "write one .zst or .tif" "$T/stderr" && ok || bad "stdout: the message says what to do"
    expect_exit 2 "raw to a device, several windows" "$WS" $R --window 3,5 "$T/bsq.raw" /dev/null
    expect_exit 2 "a window given twice" "$WS" $R --window 5,3,5 "$T/bsq.raw" "$T/o.zst"
    expect_exit 2 "5 and 5x5 are one window" "$WS" $R --window 5,5x5 "$T/bsq.raw" "$T/o.zst"
    expect_exit 2 "a band given twice" "$WS" $R --band 2,2 "$T/bsq.raw" "$T/o.zst"
    expect_exit 2 "a window of 0 in the list" "$WS" $R --window 3,0 "$T/bsq.raw" "$T/o.zst"
    expect_exit 2 "an empty item" "$WS" $R --window 3,,5 "$T/bsq.raw" "$T/o.zst"
    expect_exit 2 "--band none" "$WS" $R --band none "$T/bsq.raw" "$T/o.zst"
    expect_exit 2 "BSQ on a pipe, several bands" sh -c "cat '$T/bsq.raw' | '$WS' $R --band 1,2 - '$T/o.zst'"
    expect_exit 2 "lists with --decode" "$WS" --decode --band 1,2 "$T/x.zst" "$T/o.tif"
    check "nothing was left behind" sh -c "! ls '$T' | grep -q -e '^o' -e tmp-"
    ;;
stats)
    # --range auto and the clamp counts per band, in --stats and warnings.
    for b in 1 2 3; do
        "$MK" --size ${W}x$H --dtype f32 --kind landscape --values $((5 * b)) --seed $b --holes 0.05 "$T/f$b.raw"
    done
    cat "$T/f1.raw" "$T/f2.raw" "$T/f3.raw" >"$T/f.raw"
    F="--quiet --size ${W}x$H --dtype f32 --bands 3"
    "$WS" $F --band all --window 5,7 --range auto --preview "$T/p.png" "$T/f.raw" "$T/f.zst"
    i=0
    for b in 1 2 3; do
        for w in 5 7; do
            "$WS" $F --band $b --window $w --range auto "$T/f.raw" "$T/one.raw"
            [ $w = 5 ] && [ $b = 1 ] && "$WS" $F --band 1 --window 5 --range auto --preview "$T/p1.png" "$T/f.raw" "$T/p1.raw"
            "$PY" "$WINENT_SRC/tests/lib/zst_read.py" map "$T/f.zst" $i | cmp -s - "$T/one.raw" ||
                bad "--range auto: band $b window $w is the single run's"
            i=$((i + 1))
        done
    done
    ok
    check "--preview shows the first map" cmp -s "$T/p.png" "$T/p1.png"
    "$WS" --size ${W}x$H --dtype f32 --bands 3 --band all --window 5 --range 0:4 --stats "$T/f.raw" "$T/g.zst" \
        2>"$T/err"
    "$PY" - "$T/err" <<'EOF' && ok || bad "--stats and warnings per band"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
warn = [l for l in lines if "warning" in l]
stats = json.loads([l for l in lines if l.startswith("{")][0])
assert stats["maps"] == 3 and [b["band"] for b in stats["bands"]] == [1, 2, 3], stats
assert stats["clamped"] == stats["bands"][0]["clamped"]
pct = [b["clamped"]["percent"] for b in stats["bands"]]
assert pct[0] < 1 < pct[1] and pct[2] > 1, pct
assert len(warn) == 2 and warn[0].startswith("winent-stream: band 2: warning:") and "band 3: warning" in warn[1], warn
EOF
    ;;
memory)
    # Every map's buffers count against --mem: 12 maps of 3000 x 3000
    # streamed with --mem 128M peak under 128 MiB + 64 MiB of resident
    # memory, and the maps are whole and right.
    [ -x /usr/bin/time ] || { echo "no /usr/bin/time: skipped"; exit 77; }
    for b in 1 2 3 4; do
        "$MK" --size 3000x3000 --dtype u8 --kind landscape --values $((8 + 4 * b)) --seed $b -
    done >"$T/big.raw"
    M="--quiet --threads 2 --size 3000x3000 --dtype u8 --bands 4"
    # On the CPU, so the figure is the same on every machine (auto within
    # --mem where a GPU is: test_cli_gpu).
    /usr/bin/time -f '%M' -o "$T/rss" "$WS" $M --device cpu --mem 128M --frame-rows 32 --band all \
        --window 3,5,9 "$T/big.raw" "$T/big.zst"
    kib=$(tail -n 1 "$T/rss")
    echo "peak resident memory, 12 maps to .zst: $kib KiB"
    check "peak RSS $kib KiB < 192 MiB" test "$kib" -lt $((192 * 1024))
    check "--test of the 12 maps" "$WS" --test "$T/big.zst"
    "$WS" $M --band 4 --window 9 --frame-rows 32 "$T/big.raw" "$T/one.zst"
    "$PY" "$WINENT_SRC/tests/lib/zst_read.py" map "$T/big.zst" 11 >"$T/m11.raw"
    command -v zstd >/dev/null && { zstd -qdc "$T/one.zst" | cmp -s - "$T/m11.raw" && ok || bad "map 12 is band 4 at 9x9"; }
    ;;
*)
    echo "unknown group $GROUP"
    exit 2
    ;;
esac
finish
