/* SPDX-License-Identifier: BSD-3-Clause */
#include "georef.h"

#include <stdlib.h>
#include <string.h>

int winent_georef_present(const winent_georef *g)
{
    return g != NULL && (g->n_scale > 0 || g->n_tiepoints > 0 || g->n_transform > 0 ||
                         g->n_geokeys > 0 || g->n_geodoubles > 0 || g->geoascii != NULL);
}

/* GTRasterTypeGeoKey (1025) is RasterPixelIsPoint (2). */
static int pixel_is_point(const winent_georef *g)
{
    if (g->n_geokeys < 4)
        return 0;
    int nkeys = g->geokeys[3];
    for (int i = 0; i < nkeys && 4 + 4 * i + 3 < g->n_geokeys; i++) {
        const uint16_t *k = g->geokeys + 4 + 4 * i;
        if (k[0] == 1025 && k[1] == 0)
            return k[3] == 2;
    }
    return 0;
}

/* The geotransform of the tags, the tie point taken as a pixel's corner. */
static int tags_geotransform(const winent_georef *g, double gt[6])
{
    if (g->n_transform >= 16) {
        const double *m = g->transform;
        gt[0] = m[3];
        gt[1] = m[0];
        gt[2] = m[1];
        gt[3] = m[7];
        gt[4] = m[4];
        gt[5] = m[5];
        return 1;
    }
    if (g->n_tiepoints >= 6 && g->n_scale >= 2) {
        const double *t = g->tiepoints;
        gt[1] = g->scale[0];
        gt[2] = 0.0;
        gt[4] = 0.0;
        gt[5] = -g->scale[1];
        gt[0] = t[3] - t[0] * gt[1];
        gt[3] = t[4] - t[1] * gt[5];
        return 1;
    }
    return 0;
}

int winent_georef_geotransform(const winent_georef *g, double gt[6])
{
    if (g == NULL || !tags_geotransform(g, gt))
        return 0;
    if (pixel_is_point(g)) {
        /* The tie point is a pixel's centre: GDAL moves the origin half a
         * pixel to the corner (unless GTIFF_POINT_GEO_IGNORE is set). */
        gt[0] -= gt[1] * 0.5 + gt[2] * 0.5;
        gt[3] -= gt[4] * 0.5 + gt[5] * 0.5;
    }
    return 1;
}

int winent_georef_epsg(const winent_georef *g)
{
    if (g == NULL || g->n_geokeys < 4)
        return 0;
    int nkeys = g->geokeys[3];
    int projected = 0, geographic = 0;
    for (int i = 0; i < nkeys && 4 + 4 * i + 3 < g->n_geokeys; i++) {
        const uint16_t *k = g->geokeys + 4 + 4 * i;
        if (k[1] != 0) /* value held elsewhere: not a code */
            continue;
        if (k[0] == 3072)
            projected = k[3];
        else if (k[0] == 2048)
            geographic = k[3];
    }
    int code = projected ? projected : geographic;
    return code == 32767 ? 0 : code;
}

void winent_georef_clear(winent_georef *g)
{
    free(g->tiepoints);
    free(g->geokeys);
    free(g->geodoubles);
    free(g->geoascii);
    memset(g, 0, sizeof *g);
}
