/* SPDX-License-Identifier: BSD-3-Clause */
/* GDAL input: one band, or several, of any raster GDAL opens (VRT,
 * JPEG2000, NetCDF and HDF subdatasets, ENVI, /vsizip/, /vsicurl/, ...),
 * read in windows of whole blocks by several threads, each with a
 * GDALDatasetH of its own. Several bands of one item are read by one
 * dataset RasterIO, so a pixel-interleaved block is decoded once for all.
 *
 * Memory stays O(width x block height), as in the TIFF source: read()
 * copies from one "batch" of rows, decoded as items (a block, a few small
 * blocks side by side, or a slice of rows of a huge block) on the job's
 * workers. GDAL's own block cache is process-wide: while the source is
 * open it is capped at --mem / 8 (at least 4 MiB, at most 256 MiB, never
 * raised), and every item's blocks are dropped from it once copied
 * (GDALFlushCache on the worker's dataset), so it holds little beyond the
 * items in flight and the blocks of a VRT's sources. Formats read front
 * to back (PNG, JPEG, GIF, /vsigzip/) and blocks too big for one item
 * (slices of rows) are read by one dataset, in order: datasets side by
 * side would each decode from the top.
 *
 * GDAL's mask (alpha band, per-dataset mask, a multi-band nodata) marks
 * nodata: masked pixels are delivered as a value the kernels skip (NaN for
 * floats; the nodata value when the band's type holds it; else a value
 * outside the band's type, in a wider type: u8 -> u16 with 256, i8 -> i16
 * with -129, u16 -> i32 with -1, i16 -> i32 with -32769). Widening keeps
 * every value and so every distinct-value bin and --bins bin: the map is
 * that of the band with an explicit nodata. 32-bit bands have no wider
 * integer type: they need a nodata value (--nodata V, one the band never
 * holds) to stand for masked pixels.
 *
 * Strict on lost data: any GDAL error or warning while pixels are read
 * (but for a network read GDAL says it retries), or a failed RasterIO, is
 * an input error, never zeros. GDAL's messages
 * go to a handler pushed on the reading thread's own stack (never
 * printed). */
#define _LARGEFILE64_SOURCE 1 /* GDAL's VSIStatBufL is struct stat64 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <omp.h>

#include "batch_load.h"
#include "gdal_api.h"
#include "gdal_msgs.h"
#include "gdal_sizes.h"
#include "gdal_tiff.h"
#include "source_internal.h"
#include "tiff_common.h"

/* Decoded bytes per batch (as the TIFF source): enough items for every
 * thread, little memory. */
#define BATCH_TARGET_BYTES (16u << 20)
/* Small blocks (a VRT's 128 x 128) are read a few at a time... */
#define ITEM_MIN_BYTES (256u << 10)
/* ...and huge ones (an untiled JPEG2000) in slices of rows. */
#define ITEM_MAX_BYTES (32u << 20)
/* GDAL's block cache while the source is open: --mem / 8, within these. */
#define CACHE_MIN_BYTES ((GIntBig)4 << 20)
#define CACHE_MAX_BYTES ((GIntBig)256 << 20)

/* GDAL's functions, opened at first use (gdal_api.h). Every call below
 * comes after gdal_init has loaded them. */
static inline const winent_gdal_api *gd(void)
{
    return winent_gdal_api_get(NULL);
}

typedef winent_gdal_msgs gdal_msgs;

static pthread_once_t gdal_once = PTHREAD_ONCE_INIT;

static void gdal_init_once(void)
{
    /* Our libtiff settings first: GDAL's GTiff driver then installs its
     * own process-wide libtiff handlers, which ours must not replace. */
    winent_tiff_init();
    /* HDF5's error stack is never printed (a library that is not
     * thread-safe has one stack for the process: silenced once, here;
     * a thread-safe one's stacks are the threads' own, msgs_begin). */
    if (gd()->H5Eset_auto2)
        gd()->H5Eset_auto2(0 /* H5E_DEFAULT */, NULL, NULL);
    gdal_msgs m;
    winent_gdal_msgs_begin(&m);
    gd()->GDALAllRegister();
    winent_gdal_msgs_end();
}

/* Load GDAL and register its drivers, once: NULL when done, else why it
 * could not be loaded. */
static const char *gdal_init(void)
{
    const char *why;
    if (winent_gdal_api_get(&why) == NULL)
        return why;
    pthread_once(&gdal_once, gdal_init_once);
    return NULL;
}

/* The short name of the GDAL raster driver that recognises the file
 * `name`, or, when `name` is NULL, a file that starts with the `n` bytes
 * at `head` (what a pipe holds before it is copied anywhere); NULL when
 * none does. */
static const char *identify_driver(const char *name, const uint8_t *head, size_t n)
{
    if (gdal_init() != NULL)
        return NULL; /* no GDAL to ask: what libtiff and raw read, as without it */
    gdal_msgs m;
    char mem[64];
    if (name == NULL) {
        /* The first bytes of a pipe, as a file of their own in memory. */
        snprintf(mem, sizeof mem, "/vsimem/winent-head-%p", (const void *)head);
        VSILFILE *f = gd()->VSIFileFromMemBuffer(mem, (GByte *)head, (vsi_l_offset)n, FALSE);
        if (f == NULL)
            return NULL;
        gd()->VSIFCloseL(f);
    }
    winent_gdal_msgs_begin(&m);
    GDALDriverH d = gd()->GDALIdentifyDriverEx(name ? name : mem, GDAL_OF_RASTER, NULL, NULL);
    winent_gdal_msgs_end();
    if (name == NULL)
        gd()->VSIUnlink(mem);
    return d != NULL ? gd()->GDALGetDriverShortName(d) : NULL;
}

/* ---- The source ---------------------------------------------------------- */

typedef struct gdal_handle {
    GDALDatasetH ds;            /* owned; used by one thread at a time */
    GDALRasterBandH *band;      /* owned array, borrowed bands of ds: each delivered band */
    GDALRasterBandH *mask;      /* owned array: each one's mask band, NULL when not read */
    gdal_msgs msgs;             /* GDAL's messages about the current call */
    uint8_t *scratch;           /* owned: an item's samples as stored (widened reads) */
    uint8_t *maskbuf;           /* owned: an item's mask bytes */
} gdal_handle;

typedef struct gdal_impl {
    const char *name;           /* borrowed: the input as given, for messages */
    char *open_path;            /* owned: what GDAL opens */
    const volatile int *stop;   /* borrowed, may be NULL */
    winent_batch_loader loader; /* owned: reads a batch on par (batch_load.h) */
    int nhandles;
    gdal_handle *h;             /* owned: h[0] is opened first */
    const winent_source_band *sel; /* borrowed: the bands delivered */
    int nsel;
    int *band_map;              /* owned: their numbers, for the dataset's RasterIO */
    int band;                   /* 1-based: the first delivered (messages) */
    GDALDataType gdt;           /* type GDAL is asked for (Byte for a signed byte) */
    winent_dtype stored, dtype; /* the band's type; the type delivered */
    size_t stored_sample, out_sample;
    int width, height;
    int *read_mask;  /* owned, per delivered band: GDAL's mask band is read and applied */
    int any_mask;    /* some band's is */
    uint8_t (*fill)[8]; /* owned, per delivered band: a masked pixel, as delivered */
    double *fill_value; /* owned, per delivered band: the same as a value */
    int item_w, item_h, items_across;
    int block_h;    /* the band's block height */
    int batch_rows; /* a multiple of item_h */
    int sequential; /* one dataset, items in order (see plan_items) */
    uint8_t *batch; /* owned: rows [batch_y0, batch_y0 + batch_h), delivered band k at
                       batch + k * plane_bytes */
    size_t plane_bytes;
    int batch_y0, batch_h;
    uint64_t input_bytes; /* the dataset's files, for bytes_read */
    GIntBig cache_before; /* GDAL's cache limit to restore */
    int cache_set;
    winent_georef georef; /* owned */
} gdal_impl;

static void close_handle(gdal_handle *h)
{
    if (h->ds) {
        gdal_msgs m;
        winent_gdal_msgs_begin(&m);
        gd()->GDALClose(h->ds);
        winent_gdal_msgs_end();
    }
    h->ds = NULL;
    free(h->band);
    free(h->mask);
    h->band = h->mask = NULL;
    free(h->scratch);
    free(h->maskbuf);
}

static void free_impl(void *p)
{
    gdal_impl *g = p;
    if (g == NULL)
        return;
    for (int i = 0; i < g->nhandles; i++)
        close_handle(&g->h[i]);
    free(g->h);
    winent_batch_loader_free(&g->loader);
    free(g->batch);
    free(g->open_path);
    free(g->band_map);
    free(g->read_mask);
    free(g->fill);
    free(g->fill_value);
    winent_georef_clear(&g->georef);
    if (g->cache_set)
        gd()->GDALSetCacheMax64(g->cache_before);
    free(g);
}

static int stop_progress(double done, const char *msg, void *arg)
{
    (void)done;
    (void)msg;
    const volatile int *stop = arg;
    return stop == NULL || !__atomic_load_n(stop, __ATOMIC_RELAXED);
}

/* The delivered bands of h->ds, and their masks where they are read. */
static winent_status handle_bands(gdal_impl *g, gdal_handle *h, winent_err *err)
{
    int most = 0;
    for (int k = 0; k < g->nsel; k++)
        most = g->sel[k].band > most ? g->sel[k].band : most;
    if (gd()->GDALGetRasterXSize(h->ds) != g->width ||
        gd()->GDALGetRasterYSize(h->ds) != g->height || gd()->GDALGetRasterCount(h->ds) < most)
        return WINENT_ERR(err, WINENT_ERR_INPUT, "%s: changed while it was read", g->name);
    if ((h->band == NULL && (h->band = calloc((size_t)g->nsel, sizeof *h->band)) == NULL) ||
        (h->mask == NULL && (h->mask = calloc((size_t)g->nsel, sizeof *h->mask)) == NULL))
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    for (int k = 0; k < g->nsel; k++) {
        h->band[k] = gd()->GDALGetRasterBand(h->ds, g->sel[k].band);
        if (g->read_mask && g->read_mask[k] &&
            (h->mask[k] = gd()->GDALGetMaskBand(h->band[k])) == NULL)
            return WINENT_ERR(err, WINENT_ERR_INPUT, "%s: GDAL gives no mask band for band %d",
                              g->name, g->sel[k].band);
    }
    return WINENT_OK;
}

static winent_status open_handle(gdal_impl *g, gdal_handle *h, winent_err *err)
{
    winent_gdal_msgs_begin(&h->msgs);
    h->ds = gd()->GDALOpenEx(
        g->open_path, GDAL_OF_RASTER | GDAL_OF_READONLY | GDAL_OF_VERBOSE_ERROR, NULL, NULL, NULL);
    winent_gdal_msgs_end();
    if (h->ds == NULL)
        return WINENT_ERR(err, WINENT_ERR_INPUT, "%s: GDAL cannot open it: %s", g->name,
                          h->msgs.first[0] ? h->msgs.first : "unknown error");
    gdal_msgs m; /* the band and mask getters' messages: never printed */
    winent_gdal_msgs_begin(&m);
    winent_status st = handle_bands(g, h, err);
    winent_gdal_msgs_end();
    return st;
}

/* Widen `n` samples of the band's type in `src` to the delivered type. */
static void widen(const gdal_impl *g, const uint8_t *src, uint8_t *dst, size_t n)
{
    switch (g->stored) {
    case WINENT_U8:
        for (size_t i = 0; i < n; i++)
            ((uint16_t *)dst)[i] = src[i];
        break;
    case WINENT_I8:
        for (size_t i = 0; i < n; i++)
            ((int16_t *)dst)[i] = (int8_t)src[i];
        break;
    case WINENT_U16:
        for (size_t i = 0; i < n; i++)
            ((int32_t *)dst)[i] = ((const uint16_t *)src)[i];
        break;
    case WINENT_I16:
        for (size_t i = 0; i < n; i++)
            ((int32_t *)dst)[i] = ((const int16_t *)src)[i];
        break;
    default: break; /* never widened */
    }
}

/* Read work item `item` of the batch with handle `h`, into the batch: the
 * item's pixels of every delivered band. */
static winent_status read_item(gdal_impl *g, gdal_handle *h, long item, winent_err *err)
{
    const int r = (int)(item / g->items_across), c = (int)(item % g->items_across);
    const int y0 = g->batch_y0 + r * g->item_h, x0 = c * g->item_w;
    const int w = x0 + g->item_w > g->width ? g->width - x0 : g->item_w;
    const int rows =
        y0 + g->item_h > g->batch_y0 + g->batch_h ? g->batch_y0 + g->batch_h - y0 : g->item_h;
    const size_t row_out = (size_t)g->width * g->out_sample;
    uint8_t *dst = g->batch + (size_t)(y0 - g->batch_y0) * row_out + (size_t)x0 * g->out_sample;
    const int widened = g->dtype != g->stored;
    GDALRasterIOExtraArg ex;
    INIT_RASTERIO_EXTRA_ARG(ex);
    ex.pfnProgress = stop_progress;
    ex.pProgressData = (void *)g->stop;

    winent_gdal_msgs_begin(&h->msgs);
    CPLErr e = CE_None;
    int failed_band = g->band;
    if (g->nsel > 1 && !widened) {
        /* Every band in one call: a pixel-interleaved block decoded once. */
        e = gd()->GDALDatasetRasterIOEx(h->ds, GF_Read, x0, y0, w, rows, dst, w, rows, g->gdt,
                                        g->nsel, g->band_map, (GSpacing)g->out_sample,
                                        (GSpacing)row_out, (GSpacing)g->plane_bytes, &ex);
    } else {
        for (int k = 0; k < g->nsel && e == CE_None; k++) {
            uint8_t *d = dst + (size_t)k * g->plane_bytes;
            failed_band = g->sel[k].band;
            if (widened)
                e = gd()->GDALRasterIOEx(h->band[k], GF_Read, x0, y0, w, rows, h->scratch, w, rows,
                                         g->gdt, (GSpacing)g->stored_sample,
                                         (GSpacing)((size_t)w * g->stored_sample), &ex);
            else
                e = gd()->GDALRasterIOEx(h->band[k], GF_Read, x0, y0, w, rows, d, w, rows, g->gdt,
                                         (GSpacing)g->out_sample, (GSpacing)row_out, &ex);
            if (e == CE_None && widened)
                for (int y = 0; y < rows; y++)
                    widen(g, h->scratch + (size_t)y * (size_t)w * g->stored_sample,
                          d + (size_t)y * row_out, (size_t)w);
        }
    }
    for (int k = 0; k < g->nsel && e == CE_None; k++) {
        if (h->mask[k] == NULL)
            continue;
        failed_band = g->sel[k].band;
        e = gd()->GDALRasterIOEx(h->mask[k], GF_Read, x0, y0, w, rows, h->maskbuf, w, rows,
                                 GDT_Byte, 1, (GSpacing)w, &ex);
        uint8_t *d0 = dst + (size_t)k * g->plane_bytes;
        for (int y = 0; y < rows && e == CE_None; y++) {
            const uint8_t *m = h->maskbuf + (size_t)y * (size_t)w;
            uint8_t *d = d0 + (size_t)y * row_out;
            for (int x = 0; x < w; x++)
                if (m[x] == 0)
                    memcpy(d + (size_t)x * g->out_sample, g->fill[k], g->out_sample);
        }
    }
    /* The item's blocks are not needed again (unless the item is a slice
     * of taller blocks): drop them from GDAL's process-wide cache now
     * rather than leave them for its LRU to evict under its lock. */
    if ((y0 + rows) % g->block_h == 0 || y0 + rows == g->height)
        gd()->GDALFlushCache(h->ds);
    winent_gdal_msgs_end();

    if (g->stop != NULL && __atomic_load_n(g->stop, __ATOMIC_RELAXED))
        return WINENT_ERR(err, WINENT_ERR_INTERRUPTED, "interrupted");
    if (e != CE_None || h->msgs.failures > 0 || h->msgs.warnings > 0)
        return WINENT_ERR(err, WINENT_ERR_INPUT,
                          "%s: cannot read band %d, rows %d-%d, columns %d-%d: %s", g->name,
                          failed_band, y0, y0 + rows - 1, x0, x0 + w - 1,
                          h->msgs.first[0] ? h->msgs.first : "GDAL's RasterIO failed");
    return WINENT_OK;
}

/* One work item on worker `worker`'s dataset, opened on its first item. */
static winent_status read_one(void *arg, long item, int worker, winent_err *err)
{
    gdal_impl *g = arg;
    gdal_handle *h = &g->h[worker];
    const size_t px = (size_t)g->item_w * (size_t)g->item_h;
    if (h->ds == NULL)
        WINENT_TRY(open_handle(g, h, err));
    if ((g->dtype != g->stored && h->scratch == NULL &&
         (h->scratch = malloc(px * g->stored_sample)) == NULL) ||
        (g->any_mask && h->maskbuf == NULL && (h->maskbuf = malloc(px)) == NULL))
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    return read_item(g, h, item, err);
}

/* Read the batch of rows that holds image row `y`: on the job's workers
 * when it lends them, else on an OpenMP team (batch_load.h). */
static winent_status load_batch(winent_source *s, gdal_impl *g, int y, winent_err *err)
{
    g->batch_y0 = y - y % g->batch_rows;
    g->batch_h = g->batch_y0 + g->batch_rows > g->height ? g->height - g->batch_y0 : g->batch_rows;
    long items = (long)((g->batch_h + g->item_h - 1) / g->item_h) * g->items_across;
    winent_status st =
        winent_batch_run(&g->loader, items, g->sequential, g->nhandles, read_one, g, err);
    if (st != WINENT_OK) {
        g->batch_h = 0;
        return st;
    }
    /* GDAL does not say how many bytes it took: the files' share. */
    s->bytes_read = (uint64_t)((double)g->input_bytes * (g->batch_y0 + g->batch_h) / g->height);
    return WINENT_OK;
}

static winent_status gdal_read(winent_source *s, int rows, void *const *dst, winent_err *err)
{
    gdal_impl *g = s->impl;
    const size_t row_out = (size_t)g->width * g->out_sample;
    size_t done = 0;
    int y = s->next_row;
    while (rows > 0) {
        if (y < g->batch_y0 || y >= g->batch_y0 + g->batch_h)
            WINENT_TRY(load_batch(s, g, y, err));
        int k = g->batch_y0 + g->batch_h - y;
        if (k > rows)
            k = rows;
        for (int b = 0; b < g->nsel; b++)
            memcpy((uint8_t *)dst[b] + done,
                   g->batch + (size_t)b * g->plane_bytes + (size_t)(y - g->batch_y0) * row_out,
                   (size_t)k * row_out);
        done += (size_t)k * row_out;
        y += k;
        rows -= k;
    }
    return WINENT_OK;
}

/* --range auto: the band's statistics as GDAL keeps them (a .aux.xml, the
 * format's own metadata), exact ones only: approximate statistics may miss
 * the extremes, and then a first pass finds them. */
static winent_status gdal_stats(winent_source *s, int k, winent_band_stats *st, winent_err *err)
{
    gdal_impl *g = s->impl;
    double mn, mx, mean, sd;
    (void)err;
    if (g->nhandles < 1 || g->h[0].band == NULL || g->h[0].band[k] == NULL)
        return WINENT_OK;
    gdal_msgs m;
    winent_gdal_msgs_begin(&m);
    CPLErr e = gd()->GDALGetRasterStatistics(g->h[0].band[k], FALSE, FALSE, &mn, &mx, &mean, &sd);
    const char *approx = gd()->GDALGetMetadataItem(g->h[0].band[k], "STATISTICS_APPROXIMATE", NULL);
    winent_gdal_msgs_end();
    if (e == CE_None && !(approx && gd()->CPLTestBool(approx)) && isfinite(mn) && isfinite(mx) &&
        mn <= mx) {
        st->found = 1;
        st->min = mn;
        st->max = mx;
        snprintf(st->from, sizeof st->from, "GDAL's statistics of band %d", g->sel[k].band);
    }
    return WINENT_OK;
}

static const source_ops gdal_ops = {gdal_read, free_impl, gdal_stats, NULL};

/* ---- Opening ----------------------------------------------------------- */

/* The band's GDAL type as ours (`gdt` what to ask GDAL for). */
static winent_status pick_type(gdal_impl *g, GDALRasterBandH b, winent_err *err)
{
    GDALDataType t = gd()->GDALGetRasterDataType(b);
    g->gdt = t;
    switch (t) {
    case GDT_Byte: {
        /* GDAL before 3.7 marks int8 as Byte with PIXELTYPE=SIGNEDBYTE. */
        const char *pt = gd()->GDALGetMetadataItem(b, "PIXELTYPE", "IMAGE_STRUCTURE");
        g->stored = pt != NULL && strcmp(pt, "SIGNEDBYTE") == 0 ? WINENT_I8 : WINENT_U8;
        return WINENT_OK;
    }
#if GDAL_VERSION_NUM >= 3070000
    case GDT_Int8: g->stored = WINENT_I8; return WINENT_OK;
#endif
    case GDT_UInt16: g->stored = WINENT_U16; return WINENT_OK;
    case GDT_Int16: g->stored = WINENT_I16; return WINENT_OK;
    case GDT_UInt32: g->stored = WINENT_U32; return WINENT_OK;
    case GDT_Int32: g->stored = WINENT_I32; return WINENT_OK;
    case GDT_Float32: g->stored = WINENT_F32; return WINENT_OK;
    case GDT_Float64: g->stored = WINENT_F64; return WINENT_OK;
    default: break;
    }
    if (gd()->GDALDataTypeIsComplex(t))
        return WINENT_ERR(err, WINENT_ERR_INPUT,
                          "%s: band %d holds complex samples (%s), which are not supported: "
                          "convert a real band first (e.g. gdal_translate)",
                          g->name, g->band, gd()->GDALGetDataTypeName(t));
    return WINENT_ERR(err, WINENT_ERR_INPUT,
                      "%s: band %d holds %s samples, which are not supported: convert to 32-bit "
                      "integers or floats first (gdal_translate -ot Int32|Float64)",
                      g->name, g->band, gd()->GDALGetDataTypeName(t));
}

/* 1 when `v` is a value of integer type `t`. */
static int int_holds(winent_dtype t, double v)
{
    static const double lo[] = {0, -128, 0, -32768, 0, -2147483648.0};
    static const double hi[] = {255, 127, 65535, 32767, 4294967295.0, 2147483647.0};
    return (int)t <= WINENT_I32 && v == floor(v) && v >= lo[t] && v <= hi[t];
}

static void store_fill(uint8_t fill[8], winent_dtype dtype, double v)
{
    memset(fill, 0, 8);
    switch (dtype) {
#define PUT(T)                                                                                     \
    {                                                                                              \
        T x = (T)v;                                                                                \
        memcpy(fill, &x, sizeof x);                                                                \
    }                                                                                              \
    break;
    case WINENT_U8: PUT(uint8_t)
    case WINENT_I8: PUT(int8_t)
    case WINENT_U16: PUT(uint16_t)
    case WINENT_I16: PUT(int16_t)
    case WINENT_U32: PUT(uint32_t)
    case WINENT_I32: PUT(int32_t)
    case WINENT_F32: PUT(float)
    case WINENT_F64: PUT(double)
#undef PUT
    default: break;
    }
}

/* Nodata and mask of delivered band k (`b`): what the kernels are told
 * (into *out), what masked pixels become (g->fill[k]), and the type it is
 * delivered in (*dtype: wider than the band's to mark masked pixels). */
static winent_status pick_nodata(gdal_impl *g, const winent_source_opts *o, int k,
                                 GDALRasterBandH b, winent_source_band *out, winent_dtype *dtype,
                                 winent_err *err)
{
    int has = 0;
    double nd = gd()->GDALGetRasterNoDataValue(b, &has);
    if (has && isnan(nd))
        has = 0; /* NaN is nodata anyway */
    /* GDAL compares float32 pixels with the nodata value cast to float32. */
    if (has && g->stored == WINENT_F32 && isfinite(nd) && fabs(nd) <= 3.4028234663852886e38)
        nd = (double)(float)nd;
    const int flags = gd()->GDALGetMaskFlags(b);
    *dtype = g->stored;
    out->has_nodata = has;
    out->nodata = nd;
    /* A mask of its own: an alpha band, a per-dataset mask, or one made of
     * several bands' nodata values (NODATA_VALUES). A mask that is the
     * band's nodata value alone is the kernels' nodata. */
    g->read_mask[k] = !(flags & GMF_ALL_VALID) && !((flags & GMF_NODATA) && has);
    if (!g->read_mask[k])
        return WINENT_OK;
    g->any_mask = 1;
    /* The nodata the job will use: --nodata beats the file's. */
    int use = o->nodata_given ? o->has_nodata : has;
    double v = o->nodata_given ? o->nodata : nd;
    out->nodata_is_mask = 1;
    if (winent_dtype_is_float(g->stored)) {
        g->fill_value[k] = NAN;
        out->has_nodata = use;
        out->nodata = v;
        return WINENT_OK;
    }
    if (!(use && int_holds(g->stored, v))) {
        static const winent_dtype wider[] = {WINENT_U16, WINENT_I16, WINENT_I32, WINENT_I32};
        static const double outside[] = {256, -129, -1, -32769};
        if (g->stored == WINENT_U32 || g->stored == WINENT_I32)
            return WINENT_ERR(err, WINENT_ERR_INPUT,
                              "%s: band %d is 32-bit integer with a mask (alpha band or "
                              "per-dataset mask), and no wider integer type can mark its masked "
                              "pixels: give --nodata V, a value the band never holds, and masked "
                              "pixels are read as V",
                              g->name, g->sel[k].band);
        *dtype = wider[g->stored];
        v = outside[g->stored];
    }
    g->fill_value[k] = v;
    out->has_nodata = 1;
    out->nodata = v;
    return WINENT_OK;
}

/* ---- Georeferencing ---------------------------------------------------- */

/* libtiff reads the GeoTIFF tags back from a file GDAL wrote in memory. */
typedef struct mem_file {
    const uint8_t *p;
    uint64_t n, pos;
} mem_file;

static tmsize_t mem_read(thandle_t h, void *buf, tmsize_t n)
{
    mem_file *f = h;
    uint64_t k = f->pos >= f->n ? 0 : f->n - f->pos;
    if ((uint64_t)n < k)
        k = (uint64_t)n;
    memcpy(buf, f->p + f->pos, (size_t)k);
    f->pos += k;
    return (tmsize_t)k;
}

static tmsize_t mem_write(thandle_t h, void *buf, tmsize_t n)
{
    (void)h;
    (void)buf;
    (void)n;
    return -1;
}

static toff_t mem_seek(thandle_t h, toff_t off, int whence)
{
    mem_file *f = h;
    uint64_t base = whence == SEEK_CUR ? f->pos : whence == SEEK_END ? f->n : 0;
    f->pos = base + off;
    return f->pos;
}

static int mem_close(thandle_t h)
{
    (void)h;
    return 0;
}

static toff_t mem_size(thandle_t h)
{
    return ((mem_file *)h)->n;
}

static int mem_map(thandle_t h, void **base, toff_t *size)
{
    (void)h;
    (void)base;
    (void)size;
    return 0;
}

static void mem_unmap(thandle_t h, void *base, toff_t size)
{
    (void)h;
    (void)base;
    (void)size;
}

/* GeoTIFF tags of a TIFF file, as they are (what the libtiff source copies). */
static winent_status georef_from_tiff(gdal_impl *g, winent_err *err)
{
    winent_tiff_msgs m;
    TIFF *tif = winent_tiff_open(g->open_path, "rm", &m);
    if (tif == NULL)
        return WINENT_ERR(err, WINENT_ERR_INPUT, "%s: not a readable TIFF: %s", g->name,
                          m.first_error);
    winent_status st = winent_tiff_georef_read(tif, &g->georef, err);
    TIFFClose(tif);
    return st;
}

/* The dataset's geotransform, CRS (or GCPs) and AREA_OR_POINT as GeoTIFF
 * tags: GDAL's GTiff driver writes them into a 1 x 1 file in memory, and
 * libtiff reads them back, so the output holds what GDAL itself would
 * write for this CRS (any CRS GeoTIFF can hold, not only EPSG codes). */
static winent_status georef_from_gdal(gdal_impl *g, GDALDatasetH ds, winent_err *err)
{
    double gt[6];
    const int has_gt = gd()->GDALGetGeoTransform(ds, gt) == CE_None;
    OGRSpatialReferenceH srs = gd()->GDALGetSpatialRef(ds);
    const int ngcps = gd()->GDALGetGCPCount(ds);
    if (!has_gt && srs == NULL && ngcps == 0)
        return WINENT_OK;
    GDALDriverH gtiff = gd()->GDALGetDriverByName("GTiff");
    if (gtiff == NULL)
        return WINENT_OK; /* a GDAL without GTiff: nothing to write them with */
    char dir[64], name[80];
    snprintf(dir, sizeof dir, "/vsimem/winent-georef-%p", (void *)g);
    snprintf(name, sizeof name, "%s/g.tif", dir);
    winent_status st = WINENT_OK;
    gdal_msgs msgs;
    winent_gdal_msgs_begin(&msgs);
    GDALDatasetH t = gd()->GDALCreate(gtiff, name, 1, 1, 1, GDT_Byte, NULL);
    if (t != NULL) {
        if (has_gt)
            gd()->GDALSetGeoTransform(t, gt);
        if (ngcps > 0)
            gd()->GDALSetGCPs2(t, ngcps, gd()->GDALGetGCPs(ds), gd()->GDALGetGCPSpatialRef(ds));
        else if (srs != NULL)
            gd()->GDALSetSpatialRef(t, srs);
        const char *aop = gd()->GDALGetMetadataItem(ds, GDALMD_AREA_OR_POINT, NULL);
        if (aop != NULL)
            gd()->GDALSetMetadataItem(t, GDALMD_AREA_OR_POINT, aop, NULL);
        gd()->GDALClose(t);
    }
    winent_gdal_msgs_end();
    vsi_l_offset len = 0;
    GByte *buf = gd()->VSIGetMemFileBuffer(name, &len, FALSE);
    if (buf != NULL && len > 0) {
        mem_file f = {buf, (uint64_t)len, 0};
        winent_tiff_msgs m;
        TIFF *tif = winent_tiff_client_open("georef", "rm", (thandle_t)&f, mem_read, mem_write,
                                            mem_seek, mem_close, mem_size, mem_map, mem_unmap, &m);
        if (tif != NULL) {
            st = winent_tiff_georef_read(tif, &g->georef, err);
            TIFFClose(tif);
        }
    }
    gd()->VSIRmdirRecursive(dir);
    return st;
}

/* ---- open --------------------------------------------------------------- */

/* The first subdataset's name, for a message (NULL when none). */
static const char *first_subdataset(GDALDatasetH ds)
{
    /* Drivers keep subdatasets apart: GetMetadata, not GetMetadataItem. */
    return gd()->CSLFetchNameValue(gd()->GDALGetMetadata(ds, "SUBDATASETS"), "SUBDATASET_1_NAME");
}

/* 1 for inputs that are read front to back: a dataset asked for rows
 * before its current one starts over from the top, so datasets side by
 * side would each decode the whole image. */
static int sequential_format(GDALDatasetH ds, const char *path)
{
    static const char *const drivers[] = {"PNG", "JPEG", "GIF"};
    const char *d = gd()->GDALGetDriverShortName(gd()->GDALGetDatasetDriver(ds));
    for (size_t i = 0; d != NULL && i < sizeof drivers / sizeof *drivers; i++)
        if (strcmp(d, drivers[i]) == 0)
            return 1;
    return strncmp(path, "/vsigzip/", 9) == 0 || strncmp(path, "/vsistdin", 9) == 0;
}

/* Item and batch geometry from the band's blocks (see the top comment). */
static void plan_items(gdal_impl *g, GDALRasterBandH b, int workers)
{
    int bw = 0, bh = 0;
    gd()->GDALGetBlockSize(b, &bw, &bh);
    if (bw <= 0 || bw > g->width)
        bw = g->width;
    if (bh <= 0 || bh > g->height)
        bh = g->height;
    g->block_h = bh;
    const uint64_t ss = g->out_sample > g->stored_sample ? g->out_sample : g->stored_sample;
    const uint64_t block = (uint64_t)bw * (uint64_t)bh * ss;
    uint64_t k = block >= ITEM_MIN_BYTES ? 1 : (ITEM_MIN_BYTES + block - 1) / block;
    if (bw >= g->width) { /* strips or lines: a few block rows per item */
        g->item_w = g->width;
        uint64_t h = (uint64_t)bh * k;
        g->item_h = h > (uint64_t)g->height ? g->height : (int)h;
    } else { /* tiles: a few side by side */
        uint64_t w = (uint64_t)bw * k;
        g->item_w = w > (uint64_t)g->width ? g->width : (int)w;
        g->item_h = bh;
    }
    if ((uint64_t)g->item_w * (uint64_t)g->item_h * ss > ITEM_MAX_BYTES) {
        /* Blocks too big to hold a row of: slices of rows, read in order
         * by one dataset, so that each block is decoded once (while it
         * fits GDAL's cache). */
        uint64_t h = ITEM_MAX_BYTES / ((uint64_t)g->item_w * ss);
        g->item_h = h < 1 ? 1 : (int)h;
        g->sequential = 1;
    }
    g->items_across = (g->width + g->item_w - 1) / g->item_w;
    /* Every band delivered shares the target. */
    const uint64_t per_group =
        (uint64_t)g->width * (uint64_t)g->item_h * g->out_sample * (uint64_t)g->nsel;
    uint64_t groups = per_group >= BATCH_TARGET_BYTES ? 1 : BATCH_TARGET_BYTES / per_group;
    /* Enough items for every worker twice over. */
    uint64_t for_threads = ((uint64_t)2 * (uint64_t)workers + (uint64_t)g->items_across - 1) /
                           (uint64_t)g->items_across;
    if (groups > for_threads)
        groups = for_threads;
    if (groups < 1)
        groups = 1;
    uint64_t rows = (uint64_t)g->item_h * groups;
    if (rows > (uint64_t)g->height)
        rows = ((uint64_t)g->height + (uint64_t)g->item_h - 1) / (uint64_t)g->item_h *
               (uint64_t)g->item_h;
    g->batch_rows = (int)rows;
}

/* GDAL decodes a whole block into its cache whatever part of it is read:
 * a block bigger than what --mem leaves the reader (a quarter; without
 * --mem, up to half the machine's memory). Without --mem, or past the
 * machine, an input error with the amount; with --mem, what it needs is
 * recorded in info (mem_short, mem_what) for the job's memory check,
 * which names the --mem that holds it and the chunks (pipeline.c). */
static winent_status check_block_memory(const gdal_impl *g, const winent_source_opts *o,
                                        GDALRasterBandH b, winent_source_info *info,
                                        winent_err *err)
{
    int bw = 0, bh = 0;
    gd()->GDALGetBlockSize(b, &bw, &bh);
    if (bw <= 0 || bh <= 0)
        return WINENT_OK;
    const char *il = gd()->GDALGetMetadataItem(gd()->GDALGetBandDataset(b), "INTERLEAVE",
                                               "IMAGE_STRUCTURE");
    /* A pixel-interleaved block holds every band of the dataset. */
    const uint64_t bands = il != NULL && strcmp(il, "PIXEL") == 0
                               ? (uint64_t)gd()->GDALGetRasterCount(gd()->GDALGetBandDataset(b))
                               : 1;
    const uint64_t block = (uint64_t)bw * (uint64_t)bh * g->stored_sample * bands;
    const uint64_t mib = (uint64_t)1 << 20;
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    const uint64_t machine =
        pages > 0 && psize > 0 ? (uint64_t)pages * (uint64_t)psize : UINT64_MAX;
    const uint64_t mem = o->mem_bytes ? o->mem_bytes : (uint64_t)1 << 30;
    if (block <= mem / 4 || (o->mem_auto && block <= machine / 2))
        return WINENT_OK;
    if (o->mem_auto || block * 2 > machine)
        return WINENT_ERR(err, WINENT_ERR_INPUT,
                          "%s: one %d x %d block of band %d decodes to %llu bytes, which GDAL "
                          "holds whole: more than this machine's memory allows (%llu MiB)",
                          g->name, bw, bh, g->band, (unsigned long long)block,
                          (unsigned long long)(machine / mib));
    if (block > info->mem_short) {
        info->mem_short = block;
        snprintf(info->mem_what, sizeof info->mem_what,
                 "%s: one %d x %d block of band %d decodes to %llu bytes, which GDAL holds whole",
                 g->name, bw, bh, g->band, (unsigned long long)block);
    }
    return WINENT_OK;
}

/* A libtiff source beside GDAL's that needs more than the reader's
 * quarter of --mem: its need is the job's (the larger one counts, the
 * libtiff one on a tie), so a TIFF gets the same line through either
 * reader. */
static void take_verify_short(winent_source *s)
{
    const winent_source_info *v = s->verify ? &s->verify->info : NULL;
    if (v != NULL && v->mem_short && v->mem_short >= s->info.mem_short) {
        s->info.mem_short = v->mem_short;
        snprintf(s->info.mem_what, sizeof s->info.mem_what, "%s", v->mem_what);
    }
}

/* VRTs within VRTs read so deep at most, for the file list. */
#define VRT_NESTING_MAX 16

/* The files of a VRT that is a source of the dataset: GDAL's file list of
 * a VRT names its sources but not theirs. 0, or -1 out of memory. */
static int nested_vrt_files(winent_source *s, const char *name, int depth)
{
    if (depth >= VRT_NESTING_MAX)
        return 0;
    /* A VRT is XML that starts with <VRTDataset (as GDAL's VRT driver
     * identifies it): a look at a local file's first bytes, not every
     * driver's (a mosaic lists thousands of sources); GDAL names
     * (/vsizip/...) are asked of GDAL. */
    FILE *f = fopen(name, "rb");
    if (f != NULL) {
        char head[256];
        size_t n = fread(head, 1, sizeof head - 1, f);
        fclose(f);
        head[n] = '\0';
        if (strstr(head, "<VRTDataset") == NULL)
            return 0;
    } else {
        GDALDriverH d = gd()->GDALIdentifyDriverEx(name, GDAL_OF_RASTER, NULL, NULL);
        if (d == NULL || strcmp(gd()->GDALGetDriverShortName(d), "VRT") != 0)
            return 0;
    }
    GDALDatasetH ds = gd()->GDALOpenEx(name, GDAL_OF_RASTER | GDAL_OF_READONLY, NULL, NULL, NULL);
    if (ds == NULL)
        return 0; /* reading it will say why */
    int rc = 0;
    char **files = gd()->GDALGetFileList(ds);
    for (char **f = files; f != NULL && *f != NULL && rc == 0; f++)
        if (f != files) /* the VRT itself */
            rc = winent_source_add_file(s, *f) != 0 ? -1 : nested_vrt_files(s, *f, depth + 1);
    gd()->CSLDestroy(files);
    gd()->GDALClose(ds);
    return rc;
}

/* GDAL's file list of the dataset (its sidecars, a VRT's sources, theirs
 * in turn): each one recorded as a file the source reads
 * (winent_source_files), the dataset's own bytes added up into *bytes. */
static winent_status files_read(winent_source *s, GDALDatasetH ds, uint64_t *bytes, winent_err *err)
{
    uint64_t total = 0;
    gdal_msgs m;
    int oom = 0;
    winent_gdal_msgs_begin(&m);
    char **files = gd()->GDALGetFileList(ds);
    for (char **f = files; f != NULL && *f != NULL; f++) {
        VSIStatBufL st;
        if (gd()->VSIStatL(*f, &st) == 0 && VSI_ISREG(st.st_mode))
            total += (uint64_t)st.st_size;
        oom = oom || winent_source_add_file(s, *f) != 0;
        if (!oom && f != files)
            oom = nested_vrt_files(s, *f, 1) != 0;
    }
    gd()->CSLDestroy(files);
    winent_gdal_msgs_end();
    *bytes = total;
    if (oom)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    return WINENT_OK;
}

/* GDAL's block cache: --mem / 8 within [CACHE_MIN_BYTES, CACHE_MAX_BYTES],
 * never above what it is already (GDAL_CACHEMAX). Process-wide in GDAL
 * (there is no per-dataset limit): set while this source is open,
 * restored when it is freed; one job at a time per process. */
static void cap_cache(gdal_impl *g, const winent_source_opts *o, winent_source_info *info)
{
    GIntBig mem = o->mem_bytes
                      ? (GIntBig)(o->mem_bytes > (uint64_t)INT64_MAX ? INT64_MAX : o->mem_bytes)
                      : (GIntBig)1 << 30;
    GIntBig cap = mem / 8;
    if (cap < CACHE_MIN_BYTES)
        cap = CACHE_MIN_BYTES;
    if (cap > CACHE_MAX_BYTES)
        cap = CACHE_MAX_BYTES;
    const GIntBig cur = gd()->GDALGetCacheMax64();
    const GIntBig now = o->gdal_cache_seen && o->gdal_cache_seen <= (uint64_t)INT64_MAX
                            ? (GIntBig)o->gdal_cache_seen
                            : cur;
    info->gdal_cache_seen = (uint64_t)now;
    if (cap < now) {
        if (cap != cur) {
            g->cache_before = cur;
            g->cache_set = 1;
            gd()->GDALSetCacheMax64(cap);
        }
    } else {
        cap = now;
    }
    info->mem_held = (uint64_t)cap;
}

/* 1 when band `b` (1-based) of `ds` is an alpha band (colour
 * interpretation Alpha): transparency, not data. */
static int is_alpha(GDALDatasetH ds, int b)
{
    return gd()->GDALGetRasterColorInterpretation(gd()->GDALGetRasterBand(ds, b)) == GCI_AlphaBand;
}

/* One line for the user through o->on_notice (nothing without one). */
static void notice(const winent_source_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void notice(const winent_source_opts *o, const char *fmt, ...)
{
    char line[WINENT_MSG_LEN];
    va_list ap;
    if (o->on_notice == NULL)
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    o->on_notice(o->user, line);
}

/* --band all: every band but the alpha bands (transparency, whose map
 * means nothing; GDAL applies a Byte or UInt16 one as the others' mask),
 * with a notice naming them. Fills `list` (room for nbands) and *n; *n is
 * 0 when there is nothing to leave out. */
static void all_but_alpha(const winent_source_opts *o, GDALDatasetH ds, int nbands,
                          const char *name, int *list, int *n)
{
    char skipped[128] = "";
    size_t k = 0;
    int kept = 0, alpha = 0;
    for (int b = 1; b <= nbands; b++) {
        if (!is_alpha(ds, b)) {
            list[kept++] = b;
            continue;
        }
        alpha++;
        if (k < sizeof skipped - 16)
            k +=
                (size_t)snprintf(skipped + k, sizeof skipped - k, "%s%d", alpha > 1 ? ", " : "", b);
    }
    *n = 0;
    if (alpha == 0 || kept == 0)
        return;
    *n = kept;
    notice(o,
           "--band all: %s: band%s %s %s alpha (transparency, not data): skipped; give --band "
           "%s to map %s anyway",
           name, alpha > 1 ? "s" : "", skipped, alpha > 1 ? "are" : "is", skipped,
           alpha > 1 ? "them" : "it");
}

/* An alpha band that GDAL does not apply as a mask (only Byte and UInt16
 * ones are: an Int16 alpha from gdalwarp -dstalpha is not) leaves the
 * transparent pixels counted as data: one notice says so and what to do.
 * A band read that is itself the alpha band gets one too. */
static void alpha_notices(const winent_source_opts *o, GDALDatasetH ds, int nbands,
                          const winent_source_band *sel, int nsel, const char *name)
{
    int alpha = 0;
    for (int b = 1; b <= nbands && !alpha; b++)
        if (is_alpha(ds, b))
            alpha = b;
    if (alpha == 0)
        return;
    for (int k = 0; k < nsel; k++)
        if (sel[k].band == alpha) {
            notice(o,
                   "%s: band %d is alpha (transparency, not data): its map is of the "
                   "transparency",
                   name, alpha);
            return;
        }
    GDALRasterBandH a = gd()->GDALGetRasterBand(ds, alpha);
    if (gd()->GDALGetMaskFlags(gd()->GDALGetRasterBand(ds, sel[0].band)) & GMF_ALPHA)
        return; /* applied: its transparent pixels are nodata */
    notice(o,
           "%s: its alpha band (band %d, %s) is not applied as a mask: GDAL applies only "
           "Byte and UInt16 ones, so its transparent pixels are counted as data; give "
           "--nodata V where the data band holds V there (gdalwarp -dstalpha writes 0), or "
           "warp again with -dstnodata",
           name, alpha, gd()->GDALGetDataTypeName(gd()->GDALGetRasterDataType(a)));
}

static winent_status gdal_open(const winent_source_opts *o, const char *open_path, int tiff,
                               winent_source *s, winent_err *err);

winent_status winent_source_gdal_open(const winent_source_opts *o, const char *open_path, int tiff,
                                      winent_source *s, winent_err *err)
{
    /* Every call of the opener reports to a handler of this thread: what
     * GDAL says outside the calls that look at its messages (a metadata
     * getter's warning, PROJ's log through GDAL) is never printed. */
    const char *no_gdal = gdal_init();
    if (no_gdal != NULL)
        return WINENT_ERR(err, WINENT_ERR_INPUT, "%s: %s",
                          strcmp(o->path, "-") == 0 ? "standard input" : o->path, no_gdal);
    gdal_msgs m;
    winent_gdal_msgs_begin(&m);
    winent_status st = gdal_open(o, open_path, tiff, s, err);
    winent_gdal_msgs_end();
    return st;
}

/* The dataset's first handle: a local NetCDF file's header checked first
 * (a name GDAL resolves, a URL or /vsizip/, is left to GDAL, which reports
 * on it in its own words). */
static winent_status gdal_open_first(const char *open_path, gdal_impl *g, winent_err *err)
{
    gdal_handle *h0 = &g->h[0];
    struct stat local;
    if (stat(open_path, &local) == 0 && S_ISREG(local.st_mode)) {
        gdal_msgs m;
        winent_gdal_msgs_begin(&m);
        winent_status st = winent_gdal_check_netcdf_header(open_path, g->name, err);
        winent_gdal_msgs_end();
        WINENT_TRY(st);
    }
    winent_gdal_msgs_begin(&h0->msgs);
    h0->ds = gd()->GDALOpenEx(open_path, GDAL_OF_RASTER | GDAL_OF_READONLY | GDAL_OF_VERBOSE_ERROR,
                              NULL, NULL, NULL);
    winent_gdal_msgs_end();
    if (h0->ds == NULL)
        return WINENT_ERR(err, WINENT_ERR_INPUT, "%s: GDAL cannot open it: %s", g->name,
                          h0->msgs.first[0] ? h0->msgs.first : "not a raster GDAL knows");
    return WINENT_OK;
}

/* The bands read (--band, a list, or all but the alpha bands) and the
 * buffers kept per band. */
static winent_status gdal_select_bands(const winent_source_opts *o, gdal_impl *g, int nbands,
                                       winent_source *s, winent_err *err)
{
    GDALDatasetH ds = g->h[0].ds;
    if (nbands == 0) {
        const char *sub = first_subdataset(ds);
        if (sub != NULL)
            return WINENT_ERR(err, WINENT_ERR_USAGE,
                              "%s holds several rasters (subdatasets): name one, e.g. '%s' "
                              "(gdalinfo lists them)",
                              g->name, sub);
        return WINENT_ERR(err, WINENT_ERR_INPUT, "%s: GDAL finds no raster band in it", g->name);
    }
    if (o->band_all) {
        int *kept = malloc(sizeof *kept * (size_t)nbands), n = 0;
        if (kept == NULL)
            return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
        all_but_alpha(o, ds, nbands, g->name, kept, &n);
        winent_source_opts some = *o;
        if (n > 0) {
            some.band_all = 0;
            some.band_list = kept;
            some.nband_list = n;
        }
        winent_status st = winent_source_select(&some, nbands, g->name, s, err);
        free(kept);
        WINENT_TRY(st);
    } else {
        WINENT_TRY(winent_source_select(o, nbands, g->name, s, err));
    }
    alpha_notices(o, ds, nbands, s->bands, s->nbands_read, g->name);
    g->sel = s->bands;
    g->nsel = s->nbands_read;
    g->band = g->sel[0].band;
    g->band_map = malloc(sizeof *g->band_map * (size_t)g->nsel);
    g->read_mask = calloc((size_t)g->nsel, sizeof *g->read_mask);
    g->fill = calloc((size_t)g->nsel, sizeof *g->fill);
    g->fill_value = calloc((size_t)g->nsel, sizeof *g->fill_value);
    if (g->band_map == NULL || g->read_mask == NULL || g->fill == NULL || g->fill_value == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    for (int k = 0; k < g->nsel; k++)
        g->band_map[k] = g->sel[k].band;
    return WINENT_OK;
}

/* The checks of the file before any read, under their own message handler:
 * a file shorter than its header (GDAL would read zeros in some drivers),
 * and, for a raster not given as a TIFF file (`tiff`, which has its
 * libtiff check beside it already), every TIFF it reads as strictly as a
 * TIFF given directly and every driver one known to report a file cut
 * short (gdal_tiff.h). */
static winent_status gdal_check_file(const winent_source_opts *o, const char *open_path, int tiff,
                                     gdal_impl *g, winent_source *s, winent_err *err)
{
    GDALDatasetH ds = g->h[0].ds;
    gdal_msgs m;
    winent_gdal_msgs_begin(&m);
    winent_status st = winent_gdal_check_sizes(ds, g->name, err);
    winent_gdal_msgs_end();
    if (st != WINENT_OK || tiff)
        return st;
    winent_gdal_msgs_begin(&m);
    st = winent_gdal_check_tiffs(o, ds, open_path, &s->verify, err);
    winent_gdal_msgs_end();
    return st;
}

/* One sample type for every band read (the kernels see one) and each
 * band's nodata. */
static winent_status gdal_band_types(const winent_source_opts *o, gdal_impl *g, winent_source *s,
                                     winent_err *err)
{
    GDALDatasetH ds = g->h[0].ds;
    for (int k = 0; k < g->nsel; k++) {
        GDALRasterBandH bk = gd()->GDALGetRasterBand(ds, g->sel[k].band);
        winent_dtype stored = g->stored, dtype;
        WINENT_TRY(pick_type(g, bk, err));
        if (k > 0 && g->stored != stored)
            return WINENT_ERR(err, WINENT_ERR_INPUT,
                              "%s: bands %d and %d hold samples of different types (%s, %s), "
                              "which one pass cannot read together: give them to separate runs",
                              g->name, g->sel[0].band, g->sel[k].band, winent_dtype_name(stored),
                              winent_dtype_name(g->stored));
        WINENT_TRY(pick_nodata(g, o, k, bk, &s->bands[k], &dtype, err));
        /* One type for all: a band widened to mark its masked pixels
         * widens the others too (every value kept, so every map the
         * same; an RGBA image's alpha band has no mask of its own). */
        if (k == 0 || winent_dtype_size(dtype) > winent_dtype_size(g->dtype))
            g->dtype = dtype;
    }
    for (int k = 0; k < g->nsel; k++)
        if (g->read_mask[k])
            store_fill(g->fill[k], g->dtype, g->fill_value[k]);
    g->stored_sample = winent_dtype_size(g->stored);
    g->out_sample = winent_dtype_size(g->dtype);
    s->bands_nodata = 1;
    s->info.has_nodata = s->bands[0].has_nodata;
    s->info.nodata = s->bands[0].nodata;
    s->info.nodata_is_mask = s->bands[0].nodata_is_mask;
    return WINENT_OK;
}

/* What the source tells of the raster once open. */
static void gdal_info(const winent_source_opts *o, const gdal_impl *g, int nbands, int tiff,
                      winent_source *s)
{
    GDALDatasetH ds = g->h[0].ds;
    s->info.width = g->width;
    s->info.height = g->height;
    s->info.dtype = g->dtype;
    s->info.bands = nbands;
    s->info.is_tiff = tiff;
    s->info.reader = "gdal";
    s->info.driver = gd()->GDALGetDriverShortName(gd()->GDALGetDatasetDriver(ds));
    if (tiff)
        snprintf(s->what, sizeof s->what, "a TIFF");
    else
        snprintf(s->what, sizeof s->what, "a GDAL raster (%s)",
                 s->info.driver ? s->info.driver : "?");
    s->info.name = o->path;
    s->info.georef = winent_georef_present(&g->georef) ? &g->georef : NULL;
}

static winent_status gdal_open(const winent_source_opts *o, const char *open_path, int tiff,
                               winent_source *s, winent_err *err)
{
    gdal_impl *g = calloc(1, sizeof *g);
    if (g == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    /* From here the caller frees s, and with it the implementation. */
    s->ops = &gdal_ops;
    s->impl = g;
    g->name = strcmp(o->path, "-") == 0 ? "standard input" : o->path;
    g->stop = o->stop;
    int want = o->par ? o->par->workers : o->threads > 0 ? o->threads : omp_get_num_procs();
    g->open_path = strdup(open_path);
    g->h = calloc((size_t)want, sizeof *g->h);
    if (g->open_path == NULL || g->h == NULL ||
        winent_batch_loader_init(&g->loader, o->par, o->stop, want) != 0)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    g->nhandles = 1;
    WINENT_TRY(gdal_open_first(open_path, g, err));
    GDALDatasetH ds = g->h[0].ds;
    const int nbands = gd()->GDALGetRasterCount(ds);
    WINENT_TRY(gdal_select_bands(o, g, nbands, s, err));
    g->width = gd()->GDALGetRasterXSize(ds);
    g->height = gd()->GDALGetRasterYSize(ds);
    if (g->width <= 0 || g->height <= 0)
        return WINENT_ERR(err, WINENT_ERR_INPUT, "%s: the image is empty (%dx%d)", g->name,
                          g->width, g->height);
    WINENT_TRY(gdal_check_file(o, open_path, tiff, g, s, err));
    WINENT_TRY(gdal_band_types(o, g, s, err));
    GDALRasterBandH b = gd()->GDALGetRasterBand(ds, g->band);
    WINENT_TRY(handle_bands(g, &g->h[0], err));
    g->sequential = sequential_format(ds, open_path);
    WINENT_TRY(check_block_memory(g, o, b, &s->info, err));
    take_verify_short(s);
    plan_items(g, b, want);
    g->plane_bytes = (size_t)g->width * (size_t)g->batch_rows * g->out_sample;
    g->batch = malloc(g->plane_bytes * (size_t)g->nsel);
    if (g->batch == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    if (tiff)
        WINENT_TRY(georef_from_tiff(g, err));
    else
        WINENT_TRY(georef_from_gdal(g, ds, err));
    /* Its files, recorded as read, and their sizes: a stat of each, over
     * the network for a URL, under the same handler and time limits as
     * every other call (files_read). */
    WINENT_TRY(files_read(s, ds, &g->input_bytes, err));
    cap_cache(g, o, &s->info);
    gdal_info(o, g, nbands, tiff, s);
    /* One dataset per decoding thread, opened on its first item. */
    g->nhandles = g->sequential ? 1 : want;
    return WINENT_OK;
}

/* ---- The GDAL format: whatever GDAL recognises ------------------------- */

/* A name that GDAL may open although it is no local file: a virtual file
 * system (/vsizip/, /vsicurl/, /vsis3/...), a URL, a driver prefix
 * (NETCDF:f.nc:var, HDF5:...), or VRT XML given inline. */
static int is_gdal_name(const char *p)
{
    if (strncmp(p, "/vsi", 4) == 0 || strstr(p, "://") != NULL || p[0] == '<')
        return 1;
    size_t k = 0;
    while (isalnum((unsigned char)p[k]) || p[k] == '_')
        k++;
    return k >= 2 && p[k] == ':';
}

/* A pipe without a raw layout may hold a format GDAL knows by its header. */
static size_t gdal_sniff_bytes(const winent_source_probe *p)
{
    return !p->seekable && !p->raw_layout ? WINENT_SNIFF_BYTES : 0;
}

/* A name only GDAL understands, taken without a look at the file system;
 * a folder (Zarr, an ESRI grid, a .SAFE); else, unless --size and --dtype
 * make it raw, a file or a pipe's head that a GDAL driver recognises. */
static int gdal_identify(const winent_source_probe *p, char *what, size_t cap)
{
    if (p->not_local)
        return is_gdal_name(p->path);
    if (p->is_dir)
        return !p->is_stdin;
    if (p->raw_layout)
        return 0;
    if (p->seekable)
        return identify_driver(p->is_stdin ? p->fd_name : p->path, NULL, 0) != NULL;
    const char *driver = identify_driver(NULL, p->head, p->nhead);
    if (driver != NULL)
        snprintf(what, cap, "a GDAL raster (%s)", driver);
    return driver != NULL;
}

static winent_status gdal_open_input(const winent_source_opts *o, const winent_source_input *in,
                                     winent_source *s, winent_err *err)
{
    return winent_source_gdal_open(o, in->open_path, 0, s, err);
}

const winent_source_format winent_source_format_gdal = {
    .name = "gdal",
    .sniff_bytes = gdal_sniff_bytes,
    .identify = gdal_identify,
    .needs_file = 1,
    .open = gdal_open_input,
};
