/* SPDX-License-Identifier: BSD-3-Clause */
/* libtiff handles with captured messages, and the GeoTIFF tags. */
#include "tiff_common.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Counts are 32-bit (TIFF_VARIABLE2) so that long tiepoint lists (GCPs)
 * fit; ASCII tags carry their own terminator. */
static const TIFFFieldInfo geotiff_fields[] = {
    {WINENT_TAG_MODELPIXELSCALE, TIFF_VARIABLE2, TIFF_VARIABLE2, TIFF_DOUBLE, FIELD_CUSTOM, 1, 1,
     "ModelPixelScaleTag"},
    {WINENT_TAG_MODELTIEPOINT, TIFF_VARIABLE2, TIFF_VARIABLE2, TIFF_DOUBLE, FIELD_CUSTOM, 1, 1,
     "ModelTiepointTag"},
    {WINENT_TAG_MODELTRANSFORMATION, TIFF_VARIABLE2, TIFF_VARIABLE2, TIFF_DOUBLE, FIELD_CUSTOM, 1,
     1, "ModelTransformationTag"},
    {WINENT_TAG_GEOKEYDIRECTORY, TIFF_VARIABLE2, TIFF_VARIABLE2, TIFF_SHORT, FIELD_CUSTOM, 1, 1,
     "GeoKeyDirectoryTag"},
    {WINENT_TAG_GEODOUBLEPARAMS, TIFF_VARIABLE2, TIFF_VARIABLE2, TIFF_DOUBLE, FIELD_CUSTOM, 1, 1,
     "GeoDoubleParamsTag"},
    {WINENT_TAG_GEOASCIIPARAMS, TIFF_VARIABLE, TIFF_VARIABLE, TIFF_ASCII, FIELD_CUSTOM, 1, 0,
     "GeoAsciiParamsTag"},
    {WINENT_TAG_GDAL_METADATA, TIFF_VARIABLE, TIFF_VARIABLE, TIFF_ASCII, FIELD_CUSTOM, 1, 0,
     "GDALMetadata"},
    {WINENT_TAG_GDAL_NODATA, TIFF_VARIABLE, TIFF_VARIABLE, TIFF_ASCII, FIELD_CUSTOM, 1, 0,
     "GDALNoDataValue"},
};

static TIFFExtendProc parent_extender;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void extend_tags(TIFF *tif)
{
    /* A tag libtiff already knows must not be merged twice. */
    size_t n = sizeof geotiff_fields / sizeof geotiff_fields[0];
    for (size_t i = 0; i < n; i++)
        if (TIFFFindField(tif, geotiff_fields[i].field_tag, TIFF_ANY) == NULL)
            TIFFMergeFieldInfo(tif, &geotiff_fields[i], 1);
    if (parent_extender)
        parent_extender(tif);
}

static void init_once_fn(void)
{
    parent_extender = TIFFSetTagExtender(extend_tags);
    /* Messages that reach the process-wide handlers (none should: every
     * handle has its own) must still not be printed by a library. */
    TIFFSetErrorHandler(NULL);
    TIFFSetWarningHandler(NULL);
}

void winent_tiff_init(void)
{
    pthread_once(&init_once, init_once_fn);
}

void winent_tiff_msgs_clear(winent_tiff_msgs *m)
{
    memset(m, 0, sizeof *m);
}

static int on_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    (void)tif;
    winent_tiff_msgs *m = user;
    if (m == NULL)
        return 1;
    if (m->errors++ == 0) {
        char text[WINENT_MSG_MAX - 80];
        vsnprintf(text, sizeof text, fmt, ap);
        /* One line: libtiff messages may hold newlines. */
        for (char *c = text; *c; c++)
            if (*c == '\n' || *c == '\r')
                *c = ' ';
        if (module && *module)
            snprintf(m->first_error, sizeof m->first_error, "%s: %s", module, text);
        else
            snprintf(m->first_error, sizeof m->first_error, "%s", text);
    }
    return 1;
}

/* Keep the text of a warning that means lost data as the handle's first
 * message, unless an error came first. */
static void keep_warning(winent_tiff_msgs *m, const char *prefix, const char *module,
                         const char *fmt, va_list ap)
{
    char text[WINENT_MSG_MAX - 80];
    if (m->errors > 0 || m->first_error[0] != '\0')
        return;
    vsnprintf(text, sizeof text, fmt, ap);
    for (char *c = text; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    if (module && *module)
        snprintf(m->first_error, sizeof m->first_error, "%s%s: %s", prefix, module, text);
    else
        snprintf(m->first_error, sizeof m->first_error, "%s%s", prefix, text);
}

static int on_warning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    (void)tif;
    winent_tiff_msgs *m = user;
    if (m == NULL || module == NULL)
        return 1;
    /* libjpeg reports corrupt data as warnings and fills the gap with grey:
     * the decoder counts these as errors to avoid silent wrong output. */
    if (strcmp(module, "JPEGLib") == 0) {
        if (m->codec_warnings++ == 0)
            keep_warning(m, "JPEG data: ", NULL, fmt, ap);
        return 1;
    }
    /* A decoder's warning (PackBitsDecode "Discarding N bytes to avoid
     * buffer overrun", the fax decoders' premature ends of line, LZW's
     * strip not ended by its code): the block's data do not fit its
     * layout, so what comes out is not what was stored. */
    if (strstr(module, "Decode") != NULL) {
        if (m->codec_warnings++ == 0)
            keep_warning(m, "", module, fmt, ap);
        return 1;
    }
    /* A StripOffsets/StripByteCounts/TileOffsets/TileByteCounts array with
     * fewer entries than the layout has blocks: libtiff pads it with zeros
     * ("Incorrect count ...; tag ignored"), which would read as sparse
     * blocks, i.e. silently as the fill value. Its estimates of byte counts
     * from the image size ("calculating from imagelength") lose nothing and
     * are checked against the file's size by the source. */
    if (strcmp(module, "TIFFFetchStripThing") == 0) {
        if (m->index_warnings++ == 0)
            keep_warning(m, "", module, fmt, ap);
        return 1;
    }
    return 1;
}

static TIFFOpenOptions *make_options(winent_tiff_msgs *m)
{
    TIFFOpenOptions *opts = TIFFOpenOptionsAlloc();
    if (opts == NULL)
        return NULL;
    TIFFOpenOptionsSetErrorHandlerExtR(opts, on_error, m);
    TIFFOpenOptionsSetWarningHandlerExtR(opts, on_warning, m);
    return opts;
}

TIFF *winent_tiff_open(const char *path, const char *mode, winent_tiff_msgs *m)
{
    winent_tiff_init();
    winent_tiff_msgs_clear(m);
    TIFFOpenOptions *opts = make_options(m);
    if (opts == NULL) {
        snprintf(m->first_error, sizeof m->first_error, "out of memory");
        return NULL;
    }
    TIFF *tif = TIFFOpenExt(path, mode, opts);
    TIFFOpenOptionsFree(opts);
    if (tif == NULL && m->first_error[0] == '\0')
        snprintf(m->first_error, sizeof m->first_error, "not a readable TIFF file");
    return tif;
}

TIFF *winent_tiff_client_open(const char *name, const char *mode, thandle_t h,
                              TIFFReadWriteProc readproc, TIFFReadWriteProc writeproc,
                              TIFFSeekProc seekproc, TIFFCloseProc closeproc, TIFFSizeProc sizeproc,
                              TIFFMapFileProc mapproc, TIFFUnmapFileProc unmapproc,
                              winent_tiff_msgs *m)
{
    winent_tiff_init();
    winent_tiff_msgs_clear(m);
    TIFFOpenOptions *opts = make_options(m);
    if (opts == NULL) {
        snprintf(m->first_error, sizeof m->first_error, "out of memory");
        return NULL;
    }
    TIFF *tif = TIFFClientOpenExt(name, mode, h, readproc, writeproc, seekproc, closeproc, sizeproc,
                                  mapproc, unmapproc, opts);
    TIFFOpenOptionsFree(opts);
    if (tif == NULL && m->first_error[0] == '\0')
        snprintf(m->first_error, sizeof m->first_error, "cannot open a TIFF handle");
    return tif;
}

/* A counted array tag: its count and data (libtiff's memory), whatever
 * width of count libtiff uses for it. Returns 0 when absent. */
static int get_array(TIFF *tif, uint32_t tag, uint32_t *count, void **data)
{
    const TIFFField *f = TIFFFieldWithTag(tif, tag);
    *count = 0;
    *data = NULL;
    if (f == NULL || !TIFFFieldPassCount(f))
        return 0;
    if (TIFFFieldSetGetCountSize(f) == 2) {
        uint16_t c16 = 0;
        if (!TIFFGetField(tif, tag, &c16, data))
            return 0;
        *count = c16;
    } else {
        uint32_t c32 = 0;
        if (!TIFFGetField(tif, tag, &c32, data))
            return 0;
        *count = c32;
    }
    return *data != NULL && *count > 0;
}

static void *dup_array(const void *src, size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p && n)
        memcpy(p, src, n);
    return p;
}

winent_status winent_tiff_georef_read(TIFF *tif, winent_georef *g, winent_err *err)
{
    uint32_t n;
    void *data;
    memset(g, 0, sizeof *g);
    if (get_array(tif, WINENT_TAG_MODELPIXELSCALE, &n, &data) && n >= 2) {
        g->n_scale = n >= 3 ? 3 : (int)n;
        memcpy(g->scale, data, sizeof(double) * (size_t)g->n_scale);
    }
    if (get_array(tif, WINENT_TAG_MODELTRANSFORMATION, &n, &data) && n >= 16) {
        g->n_transform = 16;
        memcpy(g->transform, data, sizeof g->transform);
    }
    if (get_array(tif, WINENT_TAG_MODELTIEPOINT, &n, &data) && n >= 6) {
        n -= n % 6;
        g->tiepoints = dup_array(data, sizeof(double) * n);
        if (g->tiepoints == NULL)
            goto oom;
        g->n_tiepoints = (int)n;
    }
    if (get_array(tif, WINENT_TAG_GEOKEYDIRECTORY, &n, &data) && n >= 4) {
        g->geokeys = dup_array(data, sizeof(uint16_t) * n);
        if (g->geokeys == NULL)
            goto oom;
        g->n_geokeys = (int)n;
    }
    if (get_array(tif, WINENT_TAG_GEODOUBLEPARAMS, &n, &data)) {
        g->geodoubles = dup_array(data, sizeof(double) * n);
        if (g->geodoubles == NULL)
            goto oom;
        g->n_geodoubles = (int)n;
    }
    const TIFFField *f = TIFFFieldWithTag(tif, WINENT_TAG_GEOASCIIPARAMS);
    char *ascii = NULL;
    if (f && !TIFFFieldPassCount(f) && TIFFGetField(tif, WINENT_TAG_GEOASCIIPARAMS, &ascii) &&
        ascii) {
        g->geoascii = strdup(ascii);
        if (g->geoascii == NULL)
            goto oom;
    }
    return WINENT_OK;
oom:
    winent_georef_clear(g);
    return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
}

int winent_tiff_georef_write(TIFF *tif, const winent_georef *g)
{
    int ok = 1;
    if (g == NULL)
        return 1;
    if (g->n_scale > 0)
        ok &= TIFFSetField(tif, WINENT_TAG_MODELPIXELSCALE, (uint32_t)g->n_scale, g->scale);
    if (g->n_tiepoints > 0)
        ok &= TIFFSetField(tif, WINENT_TAG_MODELTIEPOINT, (uint32_t)g->n_tiepoints, g->tiepoints);
    if (g->n_transform > 0)
        ok &= TIFFSetField(tif, WINENT_TAG_MODELTRANSFORMATION, (uint32_t)16, g->transform);
    if (g->n_geokeys > 0)
        ok &= TIFFSetField(tif, WINENT_TAG_GEOKEYDIRECTORY, (uint32_t)g->n_geokeys, g->geokeys);
    if (g->n_geodoubles > 0)
        ok &=
            TIFFSetField(tif, WINENT_TAG_GEODOUBLEPARAMS, (uint32_t)g->n_geodoubles, g->geodoubles);
    if (g->geoascii != NULL)
        ok &= TIFFSetField(tif, WINENT_TAG_GEOASCIIPARAMS, g->geoascii);
    return ok;
}
