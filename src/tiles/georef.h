/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * georef.h - the georeferencing of a raster as GeoTIFF holds it: the tags
 * a sink copies verbatim, and what the .zst JSON header derives from them.
 */
#ifndef WINENT_GEOREF_H
#define WINENT_GEOREF_H

#include <stdint.h>

typedef struct winent_georef {
    int n_scale;            /* ModelPixelScaleTag (33550): 0 or 3 doubles */
    double scale[3];
    int n_tiepoints;        /* ModelTiepointTag (33922): doubles, 6 per point */
    double *tiepoints;      /* owned */
    int n_transform;        /* ModelTransformationTag (34264): 0 or 16 doubles */
    double transform[16];
    int n_geokeys;          /* GeoKeyDirectoryTag (34735): shorts */
    uint16_t *geokeys;      /* owned */
    int n_geodoubles;       /* GeoDoubleParamsTag (34736) */
    double *geodoubles;     /* owned */
    char *geoascii;         /* GeoAsciiParamsTag (34737), owned, NULL if absent */
} winent_georef;

/* 1 when any georeferencing tag is present. */
int winent_georef_present(const winent_georef *g);

/* The GDAL geotransform (x0, dx, rx, y0, ry, dy) of the pixel corner
 * convention, from the transformation matrix or from one tiepoint and the
 * pixel scale, as GDAL reads them: with RasterPixelIsPoint the origin
 * moves half a pixel to the corner. Returns 0 when neither is there
 * (GCP-only georeferencing). */
int winent_georef_geotransform(const winent_georef *g, double gt[6]);

/* EPSG code of the CRS from the GeoKeys (ProjectedCSTypeGeoKey, else
 * GeographicTypeGeoKey), or 0 when there is none or it is user-defined. */
int winent_georef_epsg(const winent_georef *g);

void winent_georef_clear(winent_georef *g);

#endif
