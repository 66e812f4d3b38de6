/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tiff_meta.h - the GDAL metadata of our GeoTIFF outputs (TIFFTAG
 * GDAL_METADATA, tag 42112), shared by the plain tiled and the COG layout.
 *
 * Dataset items record what made the map: software and version, window,
 * base, bins and range, nodata, input sample type, source name and band,
 * the command line, compression. The band's description ("entropy 5x5 of
 * band 1") is the item GDAL reads as the band description
 * (`<Item name="DESCRIPTION" sample="0" role="description">`). With
 * several maps, what each has of its own (window, range, nodata, source
 * band, description) is an item of its band (sample="k"), and the dataset
 * item "maps" counts them. An integer output (--ot uint16, uint8) gives
 * each band GDAL's SCALE and OFFSET items (role="scale", role="offset"),
 * so that GDAL, rasterio and QGIS read entropy = code * scale + offset.
 */
#ifndef WINENT_TIFF_META_H
#define WINENT_TIFF_META_H

#include <stddef.h>

#include "sink.h"

/* The band's description for `o` into `dst` (cap bytes, cap > 0):
 * "entropy KxK of band B", without " of band B" when the band is unknown. */
void winent_tiff_band_description(const winent_sink_opts *o, char *dst, size_t cap);

/* The GDAL_METADATA XML of the full-resolution image for `o`, whose
 * samples are stored as `q` (winent_sink_out_sample of `o`: the scale of an
 * integer type), NUL-ended, malloc'ed (the caller frees it); NULL when out
 * of memory. Pure: any thread. */
char *winent_tiff_meta_main(const winent_sink_opts *o, const winent_out_sample *q);

/* GDAL_NODATA's text for samples stored as `q`: "nan" for the float
 * types, the nodata code ("65535", "255") for the integer types. */
void winent_tiff_nodata_text(const winent_out_sample *q, char *dst, size_t cap);

/* The GDAL_METADATA XML of an overview directory of the bands of `o`: how
 * each was resampled, as GDAL's own overviews say it (AVERAGE, or MODE
 * for a class map: gdaladdo, from GDAL 3.9 on, rebuilds the overviews
 * the same way when it is given no -r); malloc'ed (the caller frees it),
 * NULL when out of memory. */
char *winent_tiff_meta_overview(const winent_sink_opts *o);

#endif
