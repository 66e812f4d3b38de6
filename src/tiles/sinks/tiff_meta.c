/* SPDX-License-Identifier: BSD-3-Clause */
/* GDAL metadata of our GeoTIFF outputs (tiff_meta.h), beside the two
 * GeoTIFF sinks that write it; the maps' helpers come from sink_base.c. */
#include "tiff_meta.h"
#include "kernels/measure.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"

/* Append printf-style text; sets *bad when out of memory. */
static void add(winent_bytes *b, int *bad, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void add(winent_bytes *b, int *bad, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        *bad = 1;
        return;
    }
    if ((size_t)n < sizeof small) {
        *bad |= winent_bytes_append(b, small, (size_t)n) != 0;
        return;
    }
    if (winent_bytes_reserve(b, (size_t)n + 1) != 0) {
        *bad = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf((char *)b->data + b->size, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->size += (size_t)n;
}

/* Append `s` as XML text: markup characters escaped, control characters
 * (a newline in a file name) left out, so the item stays one line. */
static void add_escaped(winent_bytes *b, int *bad, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': add(b, bad, "&amp;"); break;
        case '<': add(b, bad, "&lt;"); break;
        case '>': add(b, bad, "&gt;"); break;
        case '"': add(b, bad, "&quot;"); break;
        default:
            if ((unsigned char)*s >= 0x20)
                *bad |= winent_bytes_append(b, s, 1) != 0;
            break;
        }
    }
}

static const char *compress_name(winent_compress c)
{
    switch (c) {
    case WINENT_COMPRESS_ZSTD: return "zstd";
    case WINENT_COMPRESS_DEFLATE: return "deflate";
    case WINENT_COMPRESS_LZW: return "lzw";
    default: return "none";
    }
}

void winent_tiff_nodata_text(const winent_out_sample *q, char *dst, size_t cap)
{
    if (q->is_int)
        snprintf(dst, cap, "%u", q->nodata_code);
    else
        snprintf(dst, cap, "nan");
}

void winent_tiff_band_description(const winent_sink_opts *o, char *dst, size_t cap)
{
    const winent_compute_opts *c = o->compute;
    char w[96] = "entropy 0x0";
    if (c)
        winent_sink_map_name(c, w, sizeof w);
    if (o->source_band > 0)
        snprintf(dst, cap, "%s of band %d", w, o->source_band);
    else
        snprintf(dst, cap, "%s", w);
}

/* The items of one map: dataset items for a single map, items of band
 * `sample` (0-based) of several. */
static void map_items(winent_bytes *b, int *bad, const winent_sink_opts *o, int sample)
{
    char at[32] = "";
    if (sample >= 0)
        snprintf(at, sizeof at, " sample=\"%d\"", sample);
    const winent_compute_opts *c = o->compute;
    if (c) {
        char w[32];
        winent_sink_window_name(c, w, sizeof w);
        add(b, bad, "  <Item name=\"window\"%s>%s</Item>\n", at, w);
        char m[48];
        winent_measure_text(c, m, sizeof m);
        add(b, bad, "  <Item name=\"measure\"%s>%s</Item>\n", at, m);
        if (c->bins)
            add(b, bad, "  <Item name=\"range\"%s>%.17g:%.17g</Item>\n", at, c->range_lo,
                c->range_hi);
        if (c->has_nodata)
            add(b, bad, "  <Item name=\"nodata\"%s>%.17g</Item>\n", at, c->nodata);
    }
    if (o->source_band > 0)
        add(b, bad, "  <Item name=\"source_band\"%s>%d</Item>\n", at, o->source_band);
}

/* GDAL's scale and offset of band `sample` (0-based), for integer codes. */
static void scale_items(winent_bytes *b, int *bad, const winent_out_sample *q, int sample)
{
    if (!q->is_int)
        return;
    add(b, bad, "  <Item name=\"OFFSET\" sample=\"%d\" role=\"offset\">%.17g</Item>\n", sample,
        q->offset);
    add(b, bad, "  <Item name=\"SCALE\" sample=\"%d\" role=\"scale\">%.17g</Item>\n", sample,
        q->scale);
}

static void description_item(winent_bytes *b, int *bad, const winent_sink_opts *o, int sample)
{
    static const char *const units[] = {"nat", "bit", "ban"};
    char desc[128];
    winent_tiff_band_description(o, desc, sizeof desc);
    add(b, bad, "  <Item name=\"DESCRIPTION\" sample=\"%d\" role=\"description\">", sample);
    add_escaped(b, bad, desc);
    add(b, bad, "</Item>\n");
    /* The unit of the values, as GDAL's band unit type (gdalinfo's "Unit
     * Type: bit"); none for a count, a ratio or a value. */
    if (o->compute && (unsigned)o->compute->base <= WINENT_BASE_10 &&
        winent_measure_has_unit(o->compute->measure))
        add(b, bad, "  <Item name=\"UNITTYPE\" sample=\"%d\" role=\"unittype\">%s</Item>\n",
            sample, units[o->compute->base]);
}

char *winent_tiff_meta_main(const winent_sink_opts *o, const winent_out_sample *q)
{
    winent_bytes b = {0};
    int bad = 0;
    const int nmaps = winent_sink_nmaps(o);
    add(&b, &bad, "<GDALMetadata>\n");
    add(&b, &bad, "  <Item name=\"software\">winent-stream %s</Item>\n", WINENT_VERSION_STRING);
    add(&b, &bad, "  <Item name=\"version\">%s</Item>\n", WINENT_VERSION_STRING);
    const winent_compute_opts *c = o->compute;
    if (c) {
        static const char *bases[] = {"e", "2", "10"};
        /* What one map has of its own (window, range, nodata) is an item
         * of its band when there are several. */
        char w[32];
        winent_sink_window_name(c, w, sizeof w);
        if (nmaps == 1)
            add(&b, &bad, "  <Item name=\"window\">%s</Item>\n", w);
        add(&b, &bad, "  <Item name=\"base\">%s</Item>\n",
            bases[c->base <= WINENT_BASE_10 ? c->base : 0]);
        if (c->bins) {
            add(&b, &bad, "  <Item name=\"bins\">%u</Item>\n", c->bins);
            if (nmaps == 1)
                add(&b, &bad, "  <Item name=\"range\">%.17g:%.17g</Item>\n", c->range_lo,
                    c->range_hi);
        } else {
            add(&b, &bad, "  <Item name=\"bins\">distinct values</Item>\n");
        }
        if (c->has_nodata && nmaps == 1)
            add(&b, &bad, "  <Item name=\"nodata\">%.17g</Item>\n", c->nodata);
        add(&b, &bad, "  <Item name=\"dtype\">%s</Item>\n", winent_dtype_name(c->dtype));
    }
    if (o->source_name) {
        add(&b, &bad, "  <Item name=\"source\">");
        add_escaped(&b, &bad, o->source_name);
        add(&b, &bad, "</Item>\n");
    }
    if (o->source_band > 0 && nmaps == 1)
        add(&b, &bad, "  <Item name=\"source_band\">%d</Item>\n", o->source_band);
    if (o->command_line) {
        add(&b, &bad, "  <Item name=\"command_line\">");
        add_escaped(&b, &bad, o->command_line);
        add(&b, &bad, "</Item>\n");
    }
    add(&b, &bad, "  <Item name=\"compress\">%s</Item>\n", compress_name(o->compress));
    if (nmaps == 1) {
        description_item(&b, &bad, o, 0);
        scale_items(&b, &bad, q, 0);
    } else {
        add(&b, &bad, "  <Item name=\"maps\">%d</Item>\n", nmaps);
        for (int m = 0; m < nmaps; m++) {
            winent_sink_opts one;
            winent_sink_map_opts(o, m, &one);
            map_items(&b, &bad, &one, m);
            description_item(&b, &bad, &one, m);
            scale_items(&b, &bad, q, m);
        }
    }
    add(&b, &bad, "</GDALMetadata>");
    bad |= winent_bytes_append(&b, "", 1) != 0;
    if (bad) {
        winent_bytes_free(&b);
        return NULL;
    }
    char *xml = (char *)b.data; /* handed over: the parts list is unused */
    free(b.parts);
    return xml;
}

char *winent_tiff_meta_overview(const winent_sink_opts *o)
{
    winent_bytes b = {0};
    int bad = 0;
    const int nmaps = winent_sink_nmaps(o);
    add(&b, &bad, "<GDALMetadata>\n");
    for (int m = 0; m < nmaps; m++)
        add(&b, &bad, "  <Item name=\"RESAMPLING\" sample=\"%d\">%s</Item>\n", m,
            winent_overview_rule_gdal(winent_sink_overview_rule(o, m)));
    add(&b, &bad, "</GDALMetadata>");
    bad |= winent_bytes_append(&b, "", 1) != 0;
    if (bad) {
        winent_bytes_free(&b);
        return NULL;
    }
    char *xml = (char *)b.data;
    free(b.parts);
    return xml;
}
