#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Lost data is an input error on every GDAL reader, never zeros
# (docs/SPEC.md sections 3 and 6). Each layout is made whole by GDAL
# and read (exit 0), then cut short and read again: exit 3, one line that
# names the input, the short file and the band and row (raw layouts) or
# the variable (NetCDF) from which data are lost. GDAL reads the missing
# part of some of them as zeros by itself (ENVI, classic NetCDF, a VRT's
# raw band); others fail in its read (EHdr, ISCE, GTX, PAux): the checks
# before reading catch both alike.
. "$WINENT_SRC/tests/lib/cli_lib.sh"
[ "${WINENT_HAVE_GDAL:-OFF}" = ON ] || { echo "built without GDAL (WINENT_GDAL=OFF or no libgdal-dev): skipped"; exit 77; }
need_python numpy osgeo.gdal
R="--quiet --device cpu --threads 2 --range 0:13"
cd "$T"

"$PY" - <<'PY'
import numpy as np
from osgeo import gdal
gdal.UseExceptions()
a = (np.arange(64 * 48).reshape(48, 64) % 13).astype('u1')
made = []
for drv, name, nb, opts in [('ENVI', 'e.img', 1, []), ('ENVI', 'e3.img', 3, ['INTERLEAVE=BIL']),
                            ('EHdr', 'h.bil', 1, []), ('ISCE', 'i.slc', 1, []),
                            ('GTX', 'g.gtx', 1, []), ('PAux', 'p.raw', 1, []),
                            ('netCDF', 'n.nc', 1, ['FORMAT=NC']),
                            ('netCDF', 'n2.nc', 1, ['FORMAT=NC2'])]:
    if gdal.GetDriverByName(drv) is None:
        continue
    t = gdal.GDT_Float32 if drv == 'GTX' else gdal.GDT_Byte
    ds = gdal.GetDriverByName(drv).Create(name, 64, 48, nb, t, opts)
    for b in range(nb):
        ds.GetRasterBand(b + 1).WriteArray(a + b)
    ds = None
    made.append(name)
# Classic NetCDF with record variables (an unlimited dimension).
nc = gdal.GetDriverByName('netCDF')
if nc is not None:
    ds = nc.CreateMultiDimensional('rec.nc', [], ['FORMAT=NC'])
    rg = ds.GetRootGroup()
    dims = [rg.CreateDimension('time', None, None, 3, ['UNLIMITED=YES']),
            rg.CreateDimension('y', None, None, 40), rg.CreateDimension('x', None, None, 50)]
    for v in ('a', 'b'):
        rg.CreateMDArray(v, dims, gdal.ExtendedDataType.Create(gdal.GDT_Int16)).Write(
            (np.arange(3 * 40 * 50).reshape(3, 40, 50) % 11).astype('i2'))
    ds = None
    made.append('rec.nc')
open('made', 'w').write('\n'.join(made) + '\n')
PY
# A VRT of the ENVI file, and a VRT raw band over a headerless copy.
cp e.img raw.bin
gdal_translate -q -of VRT e.img v.vrt
cat >rawband.vrt <<'XML'
<VRTDataset rasterXSize="64" rasterYSize="48">
  <VRTRasterBand dataType="Byte" band="1" subClass="VRTRawRasterBand">
    <SourceFilename relativeToVRT="1">raw.bin</SourceFilename>
    <ImageOffset>0</ImageOffset><PixelOffset>1</PixelOffset><LineOffset>64</LineOffset>
  </VRTRasterBand>
</VRTDataset>
XML

# lost NAME INPUT KEEP WHAT: INPUT reads whole; with NAME cut to KEEP bytes,
# exit 3 and a line matching WHAT. NAME restored afterwards.
lost() {
    cp "$1" "$1.whole"
    _extra=${5:-}
    expect_exit 0 "$2 whole" "$WS" $R $_extra "$2" out.raw
    rm -f out.raw
    truncate -s "$3" "$1"
    expect_exit 3 "$2 with $1 cut to $3 bytes" "$WS" $R $_extra "$2" out.raw
    check "$2 with $1 cut: the message ($(cat "$T/stderr"))" grep -q "$4" "$T/stderr"
    check "$2 with $1 cut: no output" test ! -e out.raw
    mv "$1.whole" "$1"
}
grep -qx e.img made && {
    lost e.img e.img 2000 "^winent-stream: e.img: it holds 2000 bytes .* band 1 is lost from row 31 on"
    lost e3.img e3.img 9000 "e3.img: it holds 9000 bytes .* band 3 is lost from row 46 on"
    lost e.img v.vrt 2000 "^winent-stream: v.vrt: its file .*e.img holds 2000 bytes.* row 31 on"
}
lost raw.bin rawband.vrt 2000 "rawband.vrt: its raw file .*raw.bin holds 2000 bytes where band 1 needs 3072: the band is lost from row 31 on"
grep -qx h.bil made && lost h.bil h.bil 1000 "h.bil: it holds 1000 bytes .* row 15 on"
grep -qx i.slc made && lost i.slc i.slc 3071 "i.slc: it holds 3071 bytes .* row 47 on"
grep -qx g.gtx made && lost g.gtx g.gtx 100 "g.gtx: it holds 100 bytes where its header declares 12328"
grep -qx p.raw made && lost p.raw p.raw 64 "p.raw: it holds 64 bytes .* row 1 on"
grep -qx n.nc made && lost n.nc n.nc 2500 "n.nc: it holds 2500 bytes where its NetCDF header declares 3424 (variable 'Band1'"
grep -qx n2.nc made && lost n2.nc n2.nc 3000 "n2.nc: it holds 3000 bytes where its NetCDF header declares"
grep -qx rec.nc made && lost rec.nc "NETCDF:rec.nc:a" 24000 "NETCDF:rec.nc:a: its file rec.nc holds 24000 bytes where its NetCDF header declares 24188 (variable 'b'" "--band 3"
# A NetCDF header that declares more than its file holds (an attribute of
# 10 GB in a 620-byte file, found by fuzz_gdal): refused before the netCDF
# library sizes anything from it.
cp "$WINENT_SRC/tests/fuzz/regress/gdal/netcdf-header-10gb-attribute" bad-header.nc
expect_exit 3 "a NetCDF header past its file" "$WS" $R bad-header.nc out.raw
check "the header named ($(cat "$T/stderr"))" grep -q "bad-header.nc: its NetCDF header is corrupt" "$T/stderr"
# A GeoTIFF cut short read through GDAL by a VRT and inside a zip: GDAL's
# read fails, an input error naming the rows.
"$PY" -c "
import numpy as np
from osgeo import gdal
a = (np.arange(512 * 512).reshape(512, 512) % 13).astype('u1')
ds = gdal.GetDriverByName('GTiff').Create('t.tif', 512, 512, 1, gdal.GDT_Byte,
                                          ['TILED=YES', 'COMPRESS=DEFLATE'])
ds.GetRasterBand(1).WriteArray(a)
ds = None
data = open('t.tif', 'rb').read()
open('t_cut.tif', 'wb').write(data[:len(data) * 2 // 3])
import zipfile
z = zipfile.ZipFile('t_cut.zip', 'w')
z.write('t_cut.tif')
z.close()"
gdal_translate -q -of VRT t_cut.tif t_cut.vrt
expect_exit 3 "a VRT of a GeoTIFF cut short" "$WS" $R t_cut.vrt out.raw
# The libtiff reader checks every TIFF GDAL reads, before the job for a
# VRT's source: the block past the end is named, as for the file itself.
check "the block named ($(cat "$T/stderr"))" grep -q "^winent-stream: t_cut.vrt: its source .*t_cut.tif: tile 2 .* goes past the end of the file" "$T/stderr"
expect_exit 3 "a GeoTIFF cut short in a zip" "$WS" $R /vsizip/t_cut.zip/t_cut.tif out.raw
check "the block named ($(cat "$T/stderr"))" grep -q "^winent-stream: /vsizip/t_cut.zip/t_cut.tif: tile 2 .* goes past the end of the file" "$T/stderr"
finish
