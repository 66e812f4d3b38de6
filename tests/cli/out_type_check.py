# SPDX-License-Identifier: BSD-3-Clause
"""Checks of --ot outputs against the float32 map of the same job
(tests/cli/test_out_type.sh): the values within the rounding docs/SPEC.md
states ("Output sample types"), read back by independent readers.

    out_type_check.py TYPE REF.raw WIDTH HEIGHT TOP FILE [FILE...]

REF.raw is the float32 map; TOP the job's largest entropy (the scale is
TOP / 65534 or TOP / 254); each FILE (.raw, .zst, .tif) holds the map as
TYPE: a .raw is read with numpy, a .zst with zstandard (the JSON header's
dtype, scale, offset and output_nodata), a .tif with GDAL (data type,
scale, offset, nodata, every overview level against the float32 COG
REF.raw.tif when it exists) and with rasterio where it is installed.
Exits 1 with a line per problem."""
import json
import os
import struct
import sys

import numpy as np

TYPES = {"float16": ("<f2", None), "uint16": ("<u2", 65535), "uint8": ("u1", 255)}
problems = []


def bad(msg):
    problems.append(msg)
    print("FAILED: " + msg, file=sys.stderr)


def scale_of(t, top):
    code = TYPES[t][1]
    return top / (code - 1) if code else None


def within(what, t, got, ref, top):
    """`got` (float entropy decoded from TYPE) against the float32 `ref`."""
    if got.shape != ref.shape:
        bad("%s: shape %r, want %r" % (what, got.shape, ref.shape))
        return
    nan_ref, nan_got = np.isnan(ref), np.isnan(got)
    if not np.array_equal(nan_ref, nan_got):
        bad("%s: NaN at %d pixels, the float32 map at %d" % (what, nan_got.sum(), nan_ref.sum()))
        return
    r, g = ref[~nan_ref].astype(np.float64), got[~nan_got].astype(np.float64)
    if t == "float16":
        # Round to nearest even: bit for bit numpy's float16 of the float32 map.
        want = ref.astype(np.float16)
        same = np.array_equal(want[~nan_ref].astype(np.float64), g)
        rel = np.max(np.abs(g - r) / np.maximum(np.abs(r), 2.0**-14)) if r.size else 0.0
        if not same or rel > 2.0**-11:
            bad("%s: float16 not the float32 map rounded to nearest (relative error %g)"
                % (what, rel))
    else:
        s = scale_of(t, top)
        err = np.max(np.abs(g - r)) if r.size else 0.0
        # scale / 2, and the float32 rounding of the decoded value.
        if err > s / 2 * (1 + 1e-6) + top * 2.0**-23:
            bad("%s: largest error %g, more than scale / 2 = %g" % (what, err, s / 2))


def decode(t, codes, scale, offset, nodata):
    if t == "float16":
        return codes.astype(np.float32)
    out = (codes.astype(np.float64) * scale + offset).astype(np.float32)
    out[codes == nodata] = np.nan
    return out


def read_zst(path):
    import zstandard
    with open(path, "rb") as f:
        magic, size = struct.unpack("<II", f.read(8))
        header = json.loads(f.read(size))
        reader = zstandard.ZstdDecompressor().stream_reader(f, read_across_frames=True)
        dt = np.dtype(TYPES.get(header["dtype"], ("<f4",))[0])
        n = header["width"] * header["height"] * dt.itemsize
        data = b""
        while len(data) < n:
            k = reader.read(n - len(data))
            if not k:
                break
            data += k
    return header, np.frombuffer(data, dt).reshape(header["height"], header["width"])


def check_zst(t, path, ref, top):
    header, codes = read_zst(path)
    if header["dtype"] != t:
        bad("%s: dtype %r" % (path, header["dtype"]))
        return
    scale, offset = header.get("scale"), header.get("offset")
    code = TYPES[t][1]
    if code:
        if scale is None or abs(scale - scale_of(t, top)) > 1e-12 * top or offset != 0:
            bad("%s: scale %r offset %r, want %r and 0" % (path, scale, offset, scale_of(t, top)))
            return
        if np.isnan(ref).any() and header.get("output_nodata") != code:
            bad("%s: output_nodata %r, want %d" % (path, header.get("output_nodata"), code))
    elif "scale" in header:
        bad("%s: a float map with a scale" % path)
    within(path, t, decode(t, codes, scale, offset, code), ref, top)


def check_tif(t, path, ref, top):
    from osgeo import gdal
    gdal.UseExceptions()
    ds = gdal.Open(path)
    band = ds.GetRasterBand(1)
    code = TYPES[t][1]
    want_type = {"float16": gdal.GDT_Float32, "uint16": gdal.GDT_UInt16, "uint8": gdal.GDT_Byte}
    # GDAL before 3.11 has no Float16 type: it reads a half TIFF as Float32.
    if t != "float16" and band.DataType != want_type[t]:
        bad("%s: GDAL data type %s" % (path, gdal.GetDataTypeName(band.DataType)))
    scale, offset = band.GetScale(), band.GetOffset()
    if code:
        if scale is None or abs(scale - scale_of(t, top)) > 1e-12 * top or offset != 0:
            bad("%s: GDAL scale %r offset %r, want %r and 0" % (path, scale, offset,
                                                               scale_of(t, top)))
            return
        nd = band.GetNoDataValue()
        if np.isnan(ref).any() and nd != code:
            bad("%s: GDAL nodata %r, want %d" % (path, nd, code))
    arr = band.ReadAsArray()
    within(path + " (GDAL)", t, decode(t, arr, scale, offset, code), ref, top)
    # Overviews: the same type, within the same rounding of the float32
    # COG's overview of the same level.
    ref_cog = REF_TIF
    if ref_cog and band.GetOverviewCount():
        rds = gdal.Open(ref_cog)
        rband = rds.GetRasterBand(1)
        if rband.GetOverviewCount() != band.GetOverviewCount():
            bad("%s: %d overviews, the float32 COG %d" % (path, band.GetOverviewCount(),
                                                          rband.GetOverviewCount()))
        for i in range(min(band.GetOverviewCount(), rband.GetOverviewCount())):
            ov = band.GetOverview(i)
            if t != "float16" and ov.DataType != band.DataType:
                bad("%s: overview %d of another type" % (path, i + 1))
            within("%s overview %d" % (path, i + 1), t,
                   decode(t, ov.ReadAsArray(), scale, offset, code),
                   rband.GetOverview(i).ReadAsArray(), top)
        rds = None
    ds = None
    try:
        import rasterio
    except ImportError:
        return
    with rasterio.open(path) as src:
        if code:
            if abs(src.scales[0] - scale_of(t, top)) > 1e-12 * top or src.offsets[0] != 0:
                bad("%s: rasterio scales %r offsets %r" % (path, src.scales, src.offsets))
            if np.isnan(ref).any() and src.nodata != code:
                bad("%s: rasterio nodata %r" % (path, src.nodata))
        within(path + " (rasterio)", t, decode(t, src.read(1), src.scales[0], src.offsets[0], code),
               ref, top)


def main(argv):
    global REF_TIF
    t, ref_path, w, h, top = argv[1], argv[2], int(argv[3]), int(argv[4]), float(argv[5])
    ref = np.fromfile(ref_path, "<f4").reshape(h, w)
    REF_TIF = ref_path + ".tif" if os.path.exists(ref_path + ".tif") else None
    for path in argv[6:]:
        if path.endswith(".zst"):
            check_zst(t, path, ref, top)
        elif path.endswith(".tif"):
            check_tif(t, path, ref, top)
        else:
            codes = np.fromfile(path, TYPES[t][0]).reshape(h, w)
            within(path, t, decode(t, codes, scale_of(t, top), 0.0, TYPES[t][1]), ref, top)
    return 1 if problems else 0


REF_TIF = None
if __name__ == "__main__":
    sys.exit(main(sys.argv))
