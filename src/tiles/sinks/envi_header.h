/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * envi_header.h - the ENVI header (--sidecar) that lets GDAL, QGIS and ENVI
 * open a raw float32 map: its size and layout, NaN as "data ignore value"
 * where nodata is in play, the band's name, the provenance in the
 * description, and the georeferencing: "map info" from the geotransform
 * (north-up, or a rotation ENVI can state) and, for an EPSG code, the
 * "coordinate system string" GDAL reads (ESRI WKT, crs_wkt.h).
 *
 * The header goes beside the map as OUTPUT.hdr appended to the whole name
 * (map.raw -> map.raw.hdr): the first name GDAL's ENVI driver tries, so
 * it wins over a stale map.hdr, and two maps map.raw and map.f32 get a
 * header each.
 */
#ifndef WINENT_ENVI_HEADER_H
#define WINENT_ENVI_HEADER_H

#include "base/bytes.h"
#include "sink.h"

/* Append the header text of the map `o` describes (width, height,
 * compute, source, band, command line, georeferencing, nodata) to `b`.
 * Returns 0, or -1 when out of memory. Thread-safe. */
int winent_envi_header_text(const winent_sink_opts *o, winent_bytes *b);

/* The geotransform's "map info" fields as GDAL's ENVI driver reads them
 * back: reference pixel (1, 1), its corner, the pixel sizes and, when the
 * geotransform is turned, "rotation=DEG". Returns 1 and the fields'
 * values, or 0 when GDAL could not read this geotransform back from a map
 * info (shear, or pixel sizes that a rotation cannot give). */
int winent_envi_map_info(const double gt[6], double *x0, double *y0, double *xs, double *ys,
                         double *rotation_deg);

#endif
