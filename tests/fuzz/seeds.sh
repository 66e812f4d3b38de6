#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# seeds.sh OUT: seed corpora for the fuzz harnesses, made now from the
# build's own tools (never copied from elsewhere), one folder per harness:
# OUT/tiff, OUT/raw, OUT/zst_info, OUT/options, OUT/zst_readers, OUT/gdal,
# OUT/gdal_doors (a door byte, then a TIFF). Small
# files: the fuzzers grow them.
#
# Needs WINENT_BIN (the folder of winent-stream); GDAL's Python bindings
# (PYTHON, default /usr/bin/python3) add TIFF layouts the CLI does not
# write (strips, integer types, big-endian, BigTIFF, planes, nodata).
set -eu
O=$1
WS="$WINENT_BIN/winent-stream"
PY="${PYTHON:-/usr/bin/python3}"
mkdir -p "$O/tiff" "$O/raw" "$O/zst_info" "$O/options" "$O/zst_readers" "$O/gdal" "$O/gdal_doors"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT INT TERM

# A 37 x 23 u8 image of 0..15 (values from a tiny LCG, no Python needed).
awk 'BEGIN { s = 7; for (i = 0; i < 37 * 23; i++) { s = (s * 1103515245 + 12345) % 2147483648;
    printf "%c", int(s / 65536) % 16 + 65 } }' | tr 'A-P' '\000-\017' >"$W/in.raw"
R="--quiet --device cpu --size 37x23 --dtype u8"

# TIFF: the CLI's own GeoTIFFs (float32, tiled, every compression, COG).
for c in zstd deflate lzw none; do
    "$WS" $R --tile 16 --compress $c "$W/in.raw" "$O/tiff/cli-$c.tif"
done
# The first of them read back as input gives a .tif of a .tif.
"$WS" --quiet --device cpu --range 0:4 --tile 16 "$O/tiff/cli-zstd.tif" "$O/tiff/cli-again.tif"

# .zst: several frames, one frame, a 1x1 map, georeferenced (from a TIFF).
"$WS" $R --frame-rows 4 "$W/in.raw" "$O/zst_info/frames4.zst"
"$WS" $R "$W/in.raw" "$O/zst_info/frames1.zst"
head -c 1 "$W/in.raw" >"$W/one.raw"
"$WS" --quiet --device cpu --size 1x1 --dtype u8 "$W/one.raw" "$O/zst_info/one.zst"
"$WS" --quiet --device cpu --range 0:4 --frame-rows 8 "$O/tiff/cli-none.tif" "$O/zst_info/geo.zst"

# The three readers' fuzzer: the same files, and files of several maps
# (two bands, two windows; one of them with a range and bins).
cp "$O/zst_info"/*.zst "$O/zst_readers/"
cat "$W/in.raw" "$W/in.raw" >"$W/two.raw"
"$WS" $R --bands 2 --band all --window 3,5x7 --frame-rows 8 "$W/two.raw" "$O/zst_readers/maps4.zst"
"$WS" $R --bands 2 --band 2,1 --window 3 --bins 8 --range 0:16 --frame-rows 16 "$W/two.raw" \
    "$O/zst_readers/maps2-range.zst"

# GDAL's TIFF layouts, when its Python bindings are here.
if "$PY" -c "from osgeo import gdal" 2>/dev/null; then
    "$PY" - "$O/tiff" <<'PY'
import sys
import numpy as np
from osgeo import gdal, osr
d = sys.argv[1]
w, h = 29, 17
a = (np.arange(w * h).reshape(h, w) * 7 % 13).astype('f8')
srs = osr.SpatialReference(); srs.ImportFromEPSG(4326)
cases = [
    ('u8-strips', gdal.GDT_Byte, 1, ['BLOCKYSIZE=5']),
    ('i8', gdal.GDT_Byte, 1, ['PIXELTYPE=SIGNEDBYTE', 'COMPRESS=PACKBITS']),
    ('u16-tiled-deflate-pred2', gdal.GDT_UInt16, 1,
     ['TILED=YES', 'BLOCKXSIZE=16', 'BLOCKYSIZE=16', 'COMPRESS=DEFLATE', 'PREDICTOR=2']),
    ('i16-bigendian-lzw', gdal.GDT_Int16, 1, ['ENDIANNESS=BIG', 'COMPRESS=LZW']),
    ('u32-bigtiff', gdal.GDT_UInt32, 1, ['BIGTIFF=YES']),
    ('i32-zstd', gdal.GDT_Int32, 1, ['COMPRESS=ZSTD']),
    ('f32-pred3', gdal.GDT_Float32, 1, ['COMPRESS=DEFLATE', 'PREDICTOR=3']),
    ('f64-tiled', gdal.GDT_Float64, 1, ['TILED=YES', 'BLOCKXSIZE=16', 'BLOCKYSIZE=16']),
    ('u8-3bands-pixel', gdal.GDT_Byte, 3, ['INTERLEAVE=PIXEL']),
    ('u16-3bands-planes', gdal.GDT_UInt16, 3, ['INTERLEAVE=BAND', 'TILED=YES',
                                                'BLOCKXSIZE=16', 'BLOCKYSIZE=16']),
]
for name, t, nb, opts in cases:
    ds = gdal.GetDriverByName('GTiff').Create(f'{d}/gdal-{name}.tif', w, h, nb, t, opts)
    ds.SetGeoTransform([10, 0.5, 0, 50, 0, -0.5]); ds.SetProjection(srs.ExportToWkt())
    for b in range(nb):
        ds.GetRasterBand(b + 1).WriteArray(a + b)
    ds.GetRasterBand(1).SetNoDataValue(3)
    ds = None
PY
fi

# raw: 8 option bytes (fuzz_raw.c), then the samples.
seed_raw() { # NAME W-1 H-1 DTYPE BANDS INTERLEAVE HEADER BATCH BYTES
    _n=$1; shift
    printf "$(printf '\\%03o' "$1" "$2" "$3" "$4" "$5" "$6" "$7" 0)" >"$O/raw/$_n"
    head -c "$8" "$W/in.raw" >>"$O/raw/$_n"
}
seed_raw u8-8x8 7 7 0 0 0 0 3 64
seed_raw u16-5x4-big 4 3 2 0 4 0 0 40
seed_raw f32-3x3 2 2 6 0 0 0 1 36
seed_raw f64-2x2-header 1 1 7 0 0 5 0 37
seed_raw u8-3bands-bip-band2 3 3 0 6 1 0 1 48
seed_raw i16-2bands-bil 3 1 3 1 2 0 2 32
seed_raw short 9 9 5 0 0 0 0 10

# gdal (fuzz_gdal.c): ENVI headers with their samples after a NUL byte,
# VRTs of no file, and NetCDF files GDAL writes when its bindings are here.
seed_envi() { # NAME SAMPLES LINES BANDS TYPE INTERLEAVE OFFSET BYTES
    printf 'ENVI\nsamples = %d\nlines = %d\nbands = %d\nheader offset = %d\nfile type = ENVI Standard\ndata type = %d\ninterleave = %s\nbyte order = 0\n\000' \
        "$2" "$3" "$4" "$7" "$5" "$6" >"$O/gdal/$1"
    head -c "$8" "$W/in.raw" >>"$O/gdal/$1"
}
seed_envi envi-u8 37 23 1 1 bsq 0 851
seed_envi envi-i16-bil 10 8 2 2 bil 0 320
seed_envi envi-f32-offset 5 5 1 4 bsq 16 116
seed_envi envi-short 37 23 1 1 bsq 0 500
printf '<VRTDataset rasterXSize="19" rasterYSize="7">\n  <VRTRasterBand dataType="Byte" band="1">\n    <NoDataValue>3</NoDataValue>\n  </VRTRasterBand>\n</VRTDataset>\n' >"$O/gdal/vrt-empty"
printf '<VRTDataset rasterXSize="9" rasterYSize="4">\n  <VRTRasterBand dataType="Float32" band="1">\n    <ComplexSource><SourceFilename relativeToVRT="1">missing.img</SourceFilename><SourceBand>1</SourceBand></ComplexSource>\n  </VRTRasterBand>\n</VRTDataset>\n' >"$O/gdal/vrt-missing-source"
if "$PY" -c "from osgeo import gdal; assert gdal.GetDriverByName('netCDF')" 2>/dev/null; then
    "$PY" - "$O/gdal" <<'PY'
import sys
import numpy as np
from osgeo import gdal
d = sys.argv[1]
a = (np.arange(13 * 9).reshape(9, 13) % 7).astype('i2')
for fmt in ('NC', 'NC2'):
    ds = gdal.GetDriverByName('netCDF').Create(f'{d}/netcdf-{fmt}', 13, 9, 1, gdal.GDT_Int16,
                                               [f'FORMAT={fmt}'])
    ds.GetRasterBand(1).WriteArray(a)
    ds = None
PY
fi

# GDAL's doors to a TIFF: each door (the first byte, 0..6: GTIFF_DIR:1:,
# GTIFF_DIR:2:, vrt://, a VRT file, /vsizip/, /vsigzip/, /vsisubfile/)
# before two of the TIFFs, and a deflate TIFF with a byte near its end
# flipped (inside its last tile's stream: refused directly, so through
# every door).
for t in cli-deflate cli-lzw; do
    for door in 0 1 2 3 4 5 6; do
        { printf "\\$(printf %o $door)"; cat "$O/tiff/$t.tif"; } >"$O/gdal_doors/$t-door$door"
    done
done
for door in 0 2 4 5 6; do
    { printf "\\$(printf %o $door)"; cat "$O/tiff/cli-deflate.tif"; } >"$W/flip"
    "$PY" -c "import sys; d = bytearray(open(sys.argv[1], 'rb').read()); d[-40] ^= 0x5a; open(sys.argv[2], 'wb').write(d)" \
        "$W/flip" "$O/gdal_doors/flipped-door$door" 2>/dev/null || cp "$W/flip" "$O/gdal_doors/flipped-door$door"
done

# options: arguments separated by NUL bytes.
seed_opts() { # NAME ARG...
    _n=$1; shift
    : >"$O/options/$_n"
    for _a in "$@"; do printf '%s\000' "$_a" >>"$O/options/$_n"; done
}
seed_opts basic in.tif out.zst
seed_opts raw --size 10240x10240 --dtype u16 --bands 3 --interleave bil --band 2 \
    --byteorder big --header-bytes 512 - -
seed_opts compute --window 7x3 --base 2 --bins 64 --range -1.5:2e3 --nodata nan in.raw out.tif
seed_opts output --format zst --level -3 --frame-rows 64 --tile 256 --compress lzw a b
seed_opts running --device 0,2 --threads 4 --mem 1.5GiB --progress --stats --quiet x y
seed_opts equals --window=5 --mem=64M --range=0:1 --no-progress -- -in -out
seed_opts info --info out.zst
seed_opts help --help
