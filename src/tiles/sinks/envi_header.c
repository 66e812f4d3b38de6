/* SPDX-License-Identifier: BSD-3-Clause */
/* The ENVI header of a raw map (--sidecar): what GDAL's ENVI driver reads
 * (samples, lines, data type 4 = float32, byte order 0 = little-endian,
 * band names, data ignore value, map info, coordinate system string) and
 * the provenance in the description. */
#include "envi_header.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crs_wkt.h"

static const double DEG = 180.0 / 3.14159265358979323846;

/* What GDAL's ENVI driver makes of a map info with reference pixel (1, 1):
 * its ProcessMapinfo, restated. */
static void gdal_reads(double x0, double y0, double xs, double ys, double deg, double gt[6])
{
    double r = -deg / DEG;
    gt[0] = x0;
    gt[1] = cos(r) * xs;
    gt[2] = -sin(r) * xs;
    gt[3] = y0;
    gt[4] = -sin(r) * ys;
    gt[5] = -cos(r) * ys;
    if (fabs(deg) == 180.0) {
        gt[1] = xs;
        gt[2] = 0.0;
        gt[4] = 0.0;
        gt[5] = ys;
    }
}

int winent_envi_map_info(const double gt[6], double *x0, double *y0, double *xs, double *ys,
                         double *rotation_deg)
{
    *x0 = gt[0];
    *y0 = gt[3];
    if (gt[2] == 0.0 && gt[4] == 0.0) {
        /* North-up (or flipped): exact. */
        *xs = gt[1];
        *ys = -gt[5];
        *rotation_deg = 0.0;
        return gt[1] != 0.0 && gt[5] != 0.0;
    }
    /* A rotation by `deg`: gt1 = cos * xs, gt2 = sin * xs, gt4 = sin * ys,
     * gt5 = -cos * ys. Four numbers, three unknowns: take the best fit and
     * keep it only if GDAL would give the geotransform back. */
    double deg = atan2(gt[2], gt[1]) * DEG;
    double c = cos(-deg / DEG), s = -sin(-deg / DEG);
    *xs = hypot(gt[1], gt[2]);
    *ys = gt[4] * s - gt[5] * c;
    *rotation_deg = deg;
    double back[6], scale = fabs(gt[1]) + fabs(gt[2]) + fabs(gt[4]) + fabs(gt[5]);
    gdal_reads(*x0, *y0, *xs, *ys, deg, back);
    for (int i = 1; i < 6; i++)
        if (i != 3 && fabs(back[i] - gt[i]) > 1e-9 * scale)
            return 0;
    return fabs(deg) != 180.0 && *xs > 0.0;
}

/* Append `s` as ENVI free text: one line, no braces (they delimit values). */
static int free_text(winent_bytes *b, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char c = (char)*p;
        if (c == '{')
            c = '(';
        else if (c == '}')
            c = ')';
        else if (*p < 0x20 || *p == 0x7F)
            c = ' ';
        if (winent_bytes_append(b, &c, 1) != 0)
            return -1;
    }
    return 0;
}

/* ENVI's own names for the systems GDAL knows by name, so that the map
 * info alone places the map when no WKT can be written. */
static void envi_projection(int epsg, char *name, size_t cap)
{
    if (epsg >= 32601 && epsg <= 32660)
        snprintf(name, cap, "UTM, %%s, %d, North, WGS-84", epsg - 32600);
    else if (epsg >= 32701 && epsg <= 32760)
        snprintf(name, cap, "UTM, %%s, %d, South, WGS-84", epsg - 32700);
    else if (epsg == 4326)
        snprintf(name, cap, "Geographic Lat/Lon, %%s, WGS-84");
    else
        snprintf(name, cap, "Arbitrary, %%s");
}

static int map_info(winent_bytes *b, const winent_georef *g)
{
    double gt[6], x0, y0, xs, ys, deg;
    if (!winent_georef_geotransform(g, gt) || !winent_envi_map_info(gt, &x0, &y0, &xs, &ys, &deg))
        return 0;
    char loc[256], rot[48] = "", form[128];
    snprintf(loc, sizeof loc, "1, 1, %.17g, %.17g, %.17g, %.17g", x0, y0, xs, ys);
    if (deg != 0.0)
        snprintf(rot, sizeof rot, ", rotation=%.17g", deg);
    int epsg = winent_georef_epsg(g);
    envi_projection(epsg, form, sizeof form);
    char *text = NULL;
    int bad = winent_bytes_printf(b, "map info = {");
    /* form holds one %s, where the location goes. */
    const char *at = strstr(form, "%s");
    bad = bad || winent_bytes_append(b, form, (size_t)(at - form)) ||
          winent_bytes_append(b, loc, strlen(loc)) ||
          winent_bytes_append(b, at + 2, strlen(at + 2)) || winent_bytes_printf(b, "%s}\n", rot);
    if (!bad && epsg > 0 && (text = winent_crs_esri_wkt(epsg)) != NULL) {
        bad = winent_bytes_printf(b, "coordinate system string = {") || free_text(b, text) ||
              winent_bytes_printf(b, "}\n");
        free(text);
    }
    return bad ? -1 : 0;
}

int winent_envi_header_text(const winent_sink_opts *o, winent_bytes *b)
{
    static const char *const bases[] = {"e", "2", "10"};
    const winent_compute_opts *c = o->compute;
    char what[512] = "", band[64] = "", win[32] = "";
    if (c)
        winent_sink_window_name(c, win, sizeof win);
    if (c) {
        char mt[48];
        winent_measure_text(c, mt, sizeof mt);
        int k = snprintf(what, sizeof what, "%s, window %s, base %s", mt, win,
                         bases[(unsigned)c->base <= WINENT_BASE_10 ? c->base : 0]);
        if (c->bins > 0 && k > 0 && (size_t)k < sizeof what)
            k += snprintf(what + k, sizeof what - (size_t)k, ", %u bins over %.17g:%.17g",
                          (unsigned)c->bins, c->range_lo, c->range_hi);
        else if (k > 0 && (size_t)k < sizeof what)
            k += snprintf(what + k, sizeof what - (size_t)k, ", distinct values");
        if (c->has_nodata && k > 0 && (size_t)k < sizeof what)
            snprintf(what + k, sizeof what - (size_t)k, ", nodata %.17g", c->nodata);
    }
    if (o->source_band > 0)
        snprintf(band, sizeof band, " of band %d", o->source_band);
    int bad = winent_bytes_printf(b, "ENVI\ndescription = {winent-stream %s local %s map (%s)%s",
                                WINENT_VERSION_STRING,
                                c ? winent_measure_name(c->measure) : "entropy", what, band);
    if (o->source_name)
        bad = bad || winent_bytes_printf(b, " of ") || free_text(b, o->source_name);
    if (o->command_line)
        bad = bad || winent_bytes_printf(b, ". Command: ") || free_text(b, o->command_line);
    int epsg = winent_georef_epsg(o->georef);
    if (epsg > 0)
        bad = bad || winent_bytes_printf(b, ". CRS: EPSG:%d", epsg);
    /* ENVI's data types: 4 float32, 12 uint16, 1 byte (it has no float16:
     * winent_job_check refuses --sidecar with it). */
    winent_out_sample q;
    winent_sink_out_sample(o, &q);
    const int envi_type = q.type == WINENT_OT_UINT16 ? 12 : q.type == WINENT_OT_UINT8 ? 1 : 4;
    bad = bad || winent_bytes_printf(b,
                                     "}\nsamples = %d\nlines = %d\nbands = 1\nheader offset = 0\n"
                                     "file type = ENVI Standard\ndata type = %d\ninterleave = bsq\n"
                                     "byte order = 0\n",
                                     o->width, o->height, envi_type);
    char name[96] = "";
    if (c)
        winent_sink_map_name(c, name, sizeof name);
    if (c)
        bad = bad || winent_bytes_printf(b, "band names = {%s%s}\n", name, band);
    else
        bad = bad || winent_bytes_printf(b, "band names = {entropy%s}\n", band);
    if (q.is_int)
        bad = bad ||
              winent_bytes_printf(b, "data gain values = {%.17g}\ndata offset values = {%.17g}\n",
                                  q.scale, q.offset);
    if (o->nodata_in_play && q.is_int)
        bad = bad || winent_bytes_printf(b, "data ignore value = %u\n", q.nodata_code);
    else if (o->nodata_in_play)
        bad = bad || winent_bytes_printf(b, "data ignore value = nan\n");
    if (!bad && winent_georef_present(o->georef))
        bad = map_info(b, o->georef) != 0;
    return bad ? -1 : 0;
}
