#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The rough edges of a first hour, each refused with a
# message that says what to do: raw-input options given for a TIFF or
# GDAL input; --level out of its codec's range (zstd, deflate), named;
# --nodata outside the input type; --info on a TIFF; a remote
# output; the bash completion (each option once, --tif-layout's values);
# --help without anything of how the binary was built.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
need_python numpy

"$MK" --size 120x90 --dtype u16 --kind landscape --values 300 "$T/in.u16"
RAW="--quiet --size 120x90 --dtype u16"
expect_exit 0 "a GeoTIFF to read back" "$WS" $RAW "$T/in.u16" "$T/map.tif"
"$MK" --size 120x90 --dtype u8 --kind landscape --values 30 --tiff "$T/in.tif"

# Raw-input options for a TIFF: refused, naming the option.
for opt in "--size 120x90" "--dtype u8" "--bands 2" "--interleave bip" "--byteorder big" \
    "--header-bytes 8"; do
    name=${opt%% *}
    expect_exit 2 "$opt for a TIFF" "$WS" --quiet $opt "$T/in.tif" "$T/o.raw"
    check "$opt for a TIFF: names it and says why" grep -q \
        "^winent-stream: $name: .*in.tif is a TIFF, which describes its own size, type and layout: leave out $name" \
        "$T/stderr"
done
check "a refused job leaves no output" [ ! -e "$T/o.raw" ]
expect_exit 0 "the TIFF without them" "$WS" --quiet "$T/in.tif" "$T/o.raw"
if "$PY" -c "from osgeo import gdal; assert gdal.GetDriverByName('netCDF')" 2>/dev/null; then
    "$PY" -c "
from osgeo import gdal
d = gdal.GetDriverByName('netCDF').Create('$T/t.nc', 30, 20, 1, gdal.GDT_Byte); d = None"
    expect_exit 2 "--dtype for a NetCDF (GDAL)" "$WS" --quiet --dtype u8 "$T/t.nc" "$T/o.raw"
    check "... a GDAL raster, named with its driver" grep -q \
        "is a GDAL raster (netCDF), which describes its own" "$T/stderr"
else
    echo "SKIP part: no GDAL netCDF driver in Python"
fi

# --level: the range of the codec it goes to, named.
expect_exit 2 "--level 23, .zst" "$WS" $RAW --level 23 "$T/in.u16" "$T/o.zst"
check "... zstd's range" grep -q "give a zstd level from -7 to 22" "$T/stderr"
expect_exit 2 "--level 12, deflate GeoTIFF" "$WS" $RAW --compress deflate --level 12 \
    "$T/in.u16" "$T/o.tif"
check "... deflate's range" grep -q "give a deflate level from 1 to 9" "$T/stderr"
expect_exit 0 "--level 9, deflate GeoTIFF" "$WS" $RAW --compress deflate --level 9 "$T/in.u16" \
    "$T/o9.tif"
expect_exit 0 "--level 19, zstd GeoTIFF" "$WS" $RAW --level 19 "$T/in.u16" "$T/o19.tif"
expect_exit 2 "--level -1, deflate GeoTIFF" "$WS" $RAW --compress deflate --level -1 \
    "$T/in.u16" "$T/o.tif"
check "... deflate's range" grep -q "'-1': give a deflate level from 1 to 9" "$T/stderr"
expect_exit 2 "--level x" "$WS" $RAW --level x "$T/in.u16" "$T/o.zst"
check "... both codecs' ranges" grep -q "zstd -7 to 22 (not 0), deflate 1 to 9" "$T/stderr"

# --nodata outside the input's type: from --dtype, and from a TIFF's type.
expect_exit 2 "--nodata 70000, u16 raw" "$WS" $RAW --nodata 70000 "$T/in.u16" "$T/o.raw"
check "... the type's range" grep -q "'70000': a u16 band holds whole numbers from 0 to 65535" \
    "$T/stderr"
expect_exit 2 "--nodata -1, u8 TIFF" "$WS" --quiet --nodata -1 "$T/in.tif" "$T/o.raw"
check "... the TIFF's type" grep -q "'-1': a u8 band holds whole numbers from 0 to 255" \
    "$T/stderr"
expect_exit 2 "--nodata 2.5, u8 TIFF" "$WS" --quiet --nodata 2.5 "$T/in.tif" "$T/o.raw"
expect_exit 0 "--nodata 255, u8 TIFF" "$WS" --quiet --nodata 255 "$T/in.tif" "$T/o.raw"
expect_exit 0 "--nodata nan, u8 TIFF (NaN is always nodata)" "$WS" --quiet --nodata nan \
    "$T/in.tif" "$T/o.raw"
"$PY" -c "import numpy as np; np.zeros(100, '<f4').tofile('$T/f.f32')"
expect_exit 2 "--nodata 1e39, f32" "$WS" --quiet --size 10x10 --dtype f32 --range 0:1 \
    --nodata 1e39 "$T/f.f32" "$T/o.raw"

# --info and --test on a TIFF: what reads it instead.
expect_exit 3 "--info on a .tif" "$WS" --info "$T/map.tif"
check "... points to gdalinfo" grep -q "it is a TIFF: for a GeoTIFF map, gdalinfo" "$T/stderr"
expect_exit 3 "--test on a .tif" "$WS" --test "$T/map.tif"
check "... points to gdalinfo" grep -q "gdalinfo" "$T/stderr"

# Remote outputs: said, before anything is read.
for out in /vsis3/bucket/map.tif /vsicurl/https://example.com/m.zst https://example.com/m.tif \
    s3://bucket/m.zst; do
    expect_exit 2 "output $out" "$WS" $RAW "$T/in.u16" "$out"
    check "output $out: says local files and streams" grep -q \
        "writes local files and streams, not GDAL's virtual file systems" "$T/stderr"
done

# The bash completion, made from the library's table of options: each
# option once, and the values of --tif-layout, --range (auto), --ot,
# --format (every spelling), --band (all), --device and --measure.
sh "$WINENT_SRC/tools/mkcompletion.sh" "$WINENT_TOOLS/winent-options" "$T/completion"
if command -v bash >/dev/null 2>&1; then
    complete_words() { # complete_words WORD...: what TAB offers after them
        bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
                 _winent_stream; printf "%s\n" "${COMPREPLY[@]}"' _ "$T/completion" "$@"
    }
    complete_words winent-stream -- >"$T/opts"
    check "completion: every option once" sh -c \
        "[ -s '$T/opts' ] && [ \$(sort '$T/opts' | uniq -d | wc -l) -eq 0 ]"
    check "completion: --range offered" grep -qx -- "--range" "$T/opts"
    check "completion: --tif-layout's values" \
        [ "$(complete_words winent-stream --tif-layout '' | tr '\n' ' ')" = "cog tiled " ]
    check "completion: --range auto" \
        [ "$(complete_words winent-stream --range a | tr '\n' ' ')" = "auto " ]
    check "completion: --ot's types" \
        [ "$(complete_words winent-stream --ot '' | tr '\n' ' ')" = "float32 float16 uint16 uint8 " ]
    check "completion: --format's names" \
        [ "$(complete_words winent-stream --format '' | tr '\n' ' ')" = "auto raw zst tif tiff zarr " ]
    check "completion: --band all" \
        [ "$(complete_words winent-stream --band '' | tr '\n' ' ')" = "all " ]
    check "completion: --device's words" \
        [ "$(complete_words winent-stream --device '' | tr '\n' ' ')" = "auto cpu gpu " ]
    check "completion: --measure's names" \
        [ "$(complete_words winent-stream --measure glcm-c | tr '\n' ' ')" = \
        "glcm-contrast glcm-correlation glcm-cluster-shade glcm-cluster-prominence glcm-cond-entropy " ]
    check "completion: --measure majority" \
        [ "$(complete_words winent-stream --measure maj | tr '\n' ' ')" = "majority " ]
    check "completion: --info's .zst files" grep -qF -- "--info) _winent_stream_files '*.zst'" \
        "$T/completion"
    check "completion: --window a value of the user's own" \
        [ -z "$(complete_words winent-stream --window '' | tr -d '\n')" ]
    # Every option of the table (as --help prints it) is offered.
    "$WS" --help | sed -n 's/^ *\(--[a-z0-9-]*\).*/\1/p' | sort -u >"$T/help-opts"
    sort -u "$T/opts" >"$T/opts-sorted"
    check "completion: every option of --help" cmp -s "$T/help-opts" "$T/opts-sorted"
else
    echo "SKIP part: no bash to run the completion"
fi

# --help says what the tool does, not how this binary was built (that is
# --version's): no compiler, CUDA, architecture or library version, and
# the same words whatever was built in.
"$WS" --help >"$T/help"
check "--help: nothing of the build" sh -c \
    "! grep -Eqi 'in a build|built with|compiled|cuda [0-9]|sm_[0-9]|gcc|clang|-DWINENT|version [0-9]' '$T/help'"
check "--help: --ot and --tif-layout's values are in it" sh -c \
    "grep -q -- '--ot T' '$T/help' && grep -q -- '--tif-layout cog|tiled' '$T/help'"
finish
