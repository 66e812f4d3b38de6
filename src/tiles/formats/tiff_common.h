/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tiff_common.h - what the TIFF source and sink share: libtiff handles whose
 * messages are captured per handle (never printed), and the GeoTIFF tags
 * registered with libtiff so that they are read and written.
 */
#ifndef WINENT_TIFF_COMMON_H
#define WINENT_TIFF_COMMON_H

#include <tiffio.h>

#include "base/werr.h"
#include "georef.h"

/* GeoTIFF tags (GeoTIFF 1.1, section 7). */
#define WINENT_TAG_MODELPIXELSCALE     33550
#define WINENT_TAG_MODELTIEPOINT       33922
#define WINENT_TAG_MODELTRANSFORMATION 34264
#define WINENT_TAG_GEOKEYDIRECTORY     34735
#define WINENT_TAG_GEODOUBLEPARAMS     34736
#define WINENT_TAG_GEOASCIIPARAMS      34737
/* GDAL's private tags (ASCII). */
#define WINENT_TAG_GDAL_METADATA 42112
#define WINENT_TAG_GDAL_NODATA   42113

/* libtiff's messages about one handle. Owned by whoever owns the handle;
 * written only by libtiff calls made on that handle, so by one thread. */
typedef struct winent_tiff_msgs {
    char first_error[WINENT_MSG_MAX]; /* "" until libtiff reports an error */
    int errors;                       /* errors reported so far */
    int codec_warnings;               /* warnings of the JPEG library or of a
                                         decoder (corrupt data) */
    int index_warnings;               /* warnings that the block index lost entries */
} winent_tiff_msgs;

/* Register the GeoTIFF tags and silence libtiff's process-wide handlers
 * (library code never prints). Idempotent and thread-safe. */
void winent_tiff_init(void);

/* TIFFOpen with messages captured into `m` (which must outlive the
 * handle). NULL on failure, with the reason in `m->first_error`. */
TIFF *winent_tiff_open(const char *path, const char *mode, winent_tiff_msgs *m);

/* TIFFClientOpen with messages captured into `m`. */
TIFF *winent_tiff_client_open(const char *name, const char *mode, thandle_t h,
                              TIFFReadWriteProc readproc, TIFFReadWriteProc writeproc,
                              TIFFSeekProc seekproc, TIFFCloseProc closeproc, TIFFSizeProc sizeproc,
                              TIFFMapFileProc mapproc, TIFFUnmapFileProc unmapproc,
                              winent_tiff_msgs *m);

/* Forget the messages recorded so far (before a call whose failure is
 * to be reported alone). */
void winent_tiff_msgs_clear(winent_tiff_msgs *m);

/* Read the georeferencing tags of the current directory into `g` (cleared
 * first). WINENT_ERR_INTERNAL only when out of memory; malformed tags are
 * left out, as GDAL does. */
winent_status winent_tiff_georef_read(TIFF *tif, winent_georef *g, winent_err *err);

/* Set the georeferencing tags of `g` on a handle open for writing. */
int winent_tiff_georef_write(TIFF *tif, const winent_georef *g);

#endif
