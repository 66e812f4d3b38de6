/* SPDX-License-Identifier: BSD-3-Clause */
/* Zarr output: a Zarr v2 store (a folder) that xarray.open_zarr reads with
 * no winent installed, laid out as xarray and rioxarray write one:
 *
 *   NAME.zarr/.zgroup, .zattrs, .zmetadata (consolidated metadata)
 *   NAME.zarr/entropy/      the maps: (y, x), or (band, y, x) for several;
 *                           chunks of TILE x TILE, each one zstd frame (the
 *                           numcodecs "zstd" codec), "." separated keys
 *   NAME.zarr/x, y          pixel-centre coordinates (an unrotated grid)
 *   NAME.zarr/band, window  the maps' numbers and windows (several maps)
 *   NAME.zarr/spatial_ref   the CRS and GeoTransform, as rioxarray reads them
 *
 * Every chunk is its own file, so the encoders write them from the worker
 * pool in parallel, in any order; the writer thread only commits. The
 * store is built in a temporary folder beside the target and renamed over
 * it at the end, so a name shows a whole store or none. An existing Zarr
 * store of that name is replaced; any other folder or file is refused. */
#define _GNU_SOURCE /* syncfs */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "base/json.h"
#include "crs_wkt.h"
#include "sink_internal.h"
#include "kernels/measure.h"

#define ZARR_VAR "entropy"
#define ZARR_DEFAULT_LEVEL 3

typedef struct zarr_sink {
    char *final_path; /* owned: the store's name as given */
    char *temp_path;  /* owned: the folder being filled; NULL once committed */
    int side;         /* chunk side (rows and columns) */
    int across;       /* chunks across */
    int level;
    winent_out_sample q;
    uint64_t written; /* bytes of chunks written, any thread (atomic) */
} zarr_sink;

typedef struct zarr_encoder {
    ZSTD_CCtx *cctx;
    float *chunk;     /* side x side floats */
    uint8_t *samples; /* the chunk as the store's samples */
    uint8_t *packed;  /* its zstd frame */
    size_t packed_cap;
} zarr_encoder;

/* ---- files ----------------------------------------------------------- */

static char *join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = malloc(a + b + 2);
    if (p != NULL) {
        memcpy(p, dir, a);
        p[a] = '/';
        memcpy(p + a + 1, name, b + 1);
    }
    return p;
}

static winent_status put_file(const char *dir, const char *name, const void *data, size_t n,
                              winent_err *err)
{
    char *path = join(dir, name);
    if (path == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    int e = fd < 0 ? errno : 0;
    const uint8_t *p = data;
    while (e == 0 && n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            e = w < 0 ? errno : EIO;
            break;
        }
        p += w, n -= (size_t)w;
    }
    if (fd >= 0 && close(fd) != 0 && e == 0)
        e = errno;
    winent_status st = WINENT_OK;
    if (e != 0)
        st = WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: %s", path, strerror(e));
    free(path);
    return st;
}

static winent_status make_dir(const char *dir, const char *name, winent_err *err)
{
    char *path = join(dir, name);
    if (path == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    winent_status st = WINENT_OK;
    if (mkdir(path, 0777) != 0)
        st = WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: %s", path, strerror(errno));
    free(path);
    return st;
}

/* Remove the folder `path` and what it holds (a store: files and
 * folders, no links followed). Best effort: used on abort and to drop
 * the store a new one replaced. */
static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (d != NULL) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char *p = join(path, e->d_name);
            if (p == NULL)
                break;
            struct stat st;
            if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
                remove_tree(p);
            else
                unlink(p);
            free(p);
        }
        closedir(d);
    }
    rmdir(path);
}

/* A folder a previous run (or zarr itself) made: it has .zgroup or .zarray. */
static int is_zarr_store(const char *path)
{
    static const char *const marks[] = {".zgroup", ".zarray", "zarr.json"};
    for (size_t i = 0; i < sizeof marks / sizeof *marks; i++) {
        char *p = join(path, marks[i]);
        struct stat st;
        int found = p != NULL && stat(p, &st) == 0 && S_ISREG(st.st_mode);
        free(p);
        if (found)
            return 1;
    }
    return 0;
}

/* ---- metadata -------------------------------------------------------- */

static const char *dtype_of(const winent_out_sample *q)
{
    switch (q->type) {
    case WINENT_OT_UINT8: return "|u1";
    case WINENT_OT_UINT16: return "<u2";
    case WINENT_OT_FLOAT16: return "<f2";
    default: return "<f4";
    }
}

/* A map's unit: the base's for the measures in its logarithms (the
 * entropies, the mutual information), none (NULL) for the others (a
 * count, a ratio, the values). */
static const char *units_of(const winent_compute_opts *c)
{
    static const char *const units[] = {"nats", "bits", "bans"};
    if (c != NULL && !winent_measure_has_unit(c->measure))
        return NULL;
    return c != NULL && (unsigned)c->base < 3 ? units[c->base] : "bits";
}

static const winent_compute_opts *map_compute(const winent_sink_opts *o, int m)
{
    return o->nmaps > 1 ? o->maps[m].compute : o->compute;
}

/* The maps' one unit, or NULL where they have none or differ. */
static const char *maps_units(const winent_sink_opts *o, int nmaps)
{
    const char *u = units_of(map_compute(o, 0));
    for (int m = 1; m < nmaps && u != NULL; m++) {
        const char *v = units_of(map_compute(o, m));
        if (v == NULL || strcmp(u, v) != 0)
            return NULL;
    }
    return u;
}

/* .zarray of an array of `ndim` dims. `chunks` NULL: one chunk, the shape. */
static cJSON *zarray(int ndim, const long long *shape, const long long *chunks, const char *dtype,
                     cJSON *fill, int level)
{
    cJSON *a = cJSON_CreateObject();
    cJSON *sh = cJSON_CreateArray(), *ch = cJSON_CreateArray();
    int bad = a == NULL || sh == NULL || ch == NULL;
    for (int i = 0; i < ndim && !bad; i++) {
        bad |= winent_json_put(sh, NULL, winent_json_integer(shape[i]));
        bad |= winent_json_put(ch, NULL, winent_json_integer(chunks ? chunks[i] : shape[i]));
    }
    cJSON *comp = cJSON_CreateNull();
    if (level != 0) {
        cJSON_Delete(comp);
        comp = cJSON_CreateObject();
        bad |= comp == NULL;
        bad |= winent_json_put(comp, "id", cJSON_CreateString("zstd"));
        bad |= winent_json_put(comp, "level", winent_json_integer(level));
    }
    bad |= winent_json_put(a, "chunks", ch);
    bad |= winent_json_put(a, "compressor", comp);
    bad |= winent_json_put(a, "dimension_separator", cJSON_CreateString("."));
    bad |= winent_json_put(a, "dtype", cJSON_CreateString(dtype));
    bad |= winent_json_put(a, "fill_value", fill ? fill : cJSON_CreateNull());
    bad |= winent_json_put(a, "filters", cJSON_CreateNull());
    bad |= winent_json_put(a, "order", cJSON_CreateString("C"));
    bad |= winent_json_put(a, "shape", sh);
    bad |= winent_json_put(a, "zarr_format", winent_json_integer(2));
    if (bad) {
        cJSON_Delete(a);
        return NULL;
    }
    return a;
}

static cJSON *dims(const char *a, const char *b, const char *c)
{
    cJSON *l = cJSON_CreateArray();
    const char *names[] = {a, b, c};
    for (int i = 0; i < 3 && l != NULL; i++)
        if (names[i] != NULL && winent_json_put(l, NULL, cJSON_CreateString(names[i])) != 0) {
            cJSON_Delete(l);
            return NULL;
        }
    return l;
}

/* One array of the store: its folder, .zarray, .zattrs and, for a
 * coordinate (`data` not NULL), its one uncompressed chunk "0" (or "0.0"
 * for 2 dims; "0" for a 0-d array). Both JSON documents also go into the
 * consolidated metadata `meta` under NAME/.zarray and NAME/.zattrs. */
static winent_status put_array(const char *dir, const char *name, cJSON *za, cJSON *attrs,
                               const void *data, size_t n, int ndim, cJSON *meta, winent_err *err)
{
    winent_status st = WINENT_OK;
    char key[256];
    char *folder = NULL, *a = NULL, *b = NULL;
    if (za == NULL || attrs == NULL) {
        st = WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
        goto done;
    }
    a = winent_json_print(za, 1);
    b = winent_json_print(attrs, 1);
    folder = join(dir, name);
    if (a == NULL || b == NULL || folder == NULL) {
        st = WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
        goto done;
    }
    if ((st = make_dir(dir, name, err)) != WINENT_OK ||
        (st = put_file(folder, ".zarray", a, strlen(a), err)) != WINENT_OK ||
        (st = put_file(folder, ".zattrs", b, strlen(b), err)) != WINENT_OK)
        goto done;
    if (data != NULL)
        st = put_file(folder, ndim == 2 ? "0.0" : "0", data, n, err);
    snprintf(key, sizeof key, "%s/.zarray", name);
    winent_json_put(meta, key, za);
    snprintf(key, sizeof key, "%s/.zattrs", name);
    winent_json_put(meta, key, attrs);
    za = attrs = NULL; /* meta owns them now */
done:
    cJSON_Delete(za);
    cJSON_Delete(attrs);
    free(a);
    free(b);
    free(folder);
    return st;
}

/* The map's window as the other outputs name it, with its measure. */
static void map_label(const winent_sink_opts *o, int m, char *buf, size_t cap)
{
    const winent_compute_opts *c = o->nmaps > 1 ? o->maps[m].compute : o->compute;
    winent_compute_opts dflt;
    if (c == NULL) {
        winent_compute_opts_default(&dflt);
        c = &dflt;
    }
    winent_sink_window_name(c, buf, cap);
}

/* x and y: pixel centres of an unrotated grid; without georeferencing,
 * or on a rotated one, none (xarray then numbers the pixels). */
static winent_status put_coords(const char *dir, const winent_sink_opts *o, const double gt[6],
                                cJSON *meta, winent_err *err)
{
    const int sizes[2] = {o->width, o->height};
    const char *names[2] = {"x", "y"};
    for (int k = 0; k < 2; k++) {
        double *v = malloc((size_t)sizes[k] * sizeof *v);
        if (v == NULL)
            return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
        for (int i = 0; i < sizes[k]; i++)
            v[i] = k == 0 ? gt[0] + (i + 0.5) * gt[1] : gt[3] + (i + 0.5) * gt[5];
        long long shape = sizes[k];
        cJSON *at = cJSON_CreateObject();
        winent_json_put(at, "_ARRAY_DIMENSIONS", dims(names[k], NULL, NULL));
        winent_json_put(at, "axis", cJSON_CreateString(k == 0 ? "X" : "Y"));
        winent_status st = put_array(dir, names[k], zarray(1, &shape, NULL, "<f8", NULL, 0), at,
                                     v, (size_t)sizes[k] * sizeof *v, 1, meta, err);
        free(v);
        WINENT_TRY(st);
    }
    return WINENT_OK;
}

/* spatial_ref: a 0-d array whose attributes carry the CRS (EPSG code and,
 * built with PROJ, its WKT) and GDAL's geotransform, where rioxarray and
 * GDAL's netCDF conventions look for them. */
static winent_status put_spatial_ref(const char *dir, const winent_sink_opts *o, const double gt[6],
                                     int have_gt, cJSON *meta, winent_err *err)
{
    cJSON *at = cJSON_CreateObject();
    winent_json_put(at, "_ARRAY_DIMENSIONS", cJSON_CreateArray());
    int epsg = winent_georef_epsg(o->georef);
    if (epsg > 0) {
        char crs[32];
        snprintf(crs, sizeof crs, "EPSG:%d", epsg);
        char *wkt = winent_crs_esri_wkt(epsg);
        winent_json_put(at, "spatial_ref", cJSON_CreateString(wkt ? wkt : crs));
        if (wkt != NULL)
            winent_json_put(at, "crs_wkt", cJSON_CreateString(wkt));
        winent_json_put(at, "epsg", winent_json_integer(epsg));
        free(wkt);
    }
    if (have_gt) {
        char text[256];
        snprintf(text, sizeof text, "%.17g %.17g %.17g %.17g %.17g %.17g", gt[0], gt[1], gt[2],
                 gt[3], gt[4], gt[5]);
        winent_json_put(at, "GeoTransform", cJSON_CreateString(text));
    }
    const int32_t zero = 0;
    return put_array(dir, "spatial_ref", zarray(0, NULL, NULL, "<i4", NULL, 0),
                     at, &zero, sizeof zero, 0, meta, err);
}

/* band (1..n) and window ("9x9", "disk4") along the maps of several. */
static winent_status put_map_coords(const char *dir, const winent_sink_opts *o, int nmaps,
                                    cJSON *meta, winent_err *err)
{
    enum { LABEL = 16, MLABEL = 48 };
    int32_t *num = malloc((size_t)nmaps * sizeof *num);
    uint32_t *text = calloc((size_t)nmaps * LABEL, sizeof *text); /* UCS-4, "<U16" */
    uint32_t *mtext = calloc((size_t)nmaps * MLABEL, sizeof *mtext); /* "<U48" */
    int32_t *src = malloc((size_t)nmaps * sizeof *src);
    if (num == NULL || text == NULL || mtext == NULL || src == NULL) {
        free(num), free(text), free(mtext), free(src);
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    }
    for (int m = 0; m < nmaps; m++) {
        char label[MLABEL + 1];
        map_label(o, m, label, sizeof label);
        num[m] = m + 1;
        src[m] = o->maps[m].source_band;
        for (int i = 0; i < LABEL && label[i]; i++)
            text[(size_t)m * LABEL + (size_t)i] = (unsigned char)label[i];
        winent_measure_text(o->maps[m].compute, label, sizeof label);
        for (int i = 0; i < MLABEL && label[i]; i++)
            mtext[(size_t)m * MLABEL + (size_t)i] = (unsigned char)label[i];
    }
    long long shape = nmaps;
    cJSON *a1 = cJSON_CreateObject(), *a2 = cJSON_CreateObject(), *a3 = cJSON_CreateObject();
    winent_json_put(a1, "_ARRAY_DIMENSIONS", dims("band", NULL, NULL));
    winent_json_put(a2, "_ARRAY_DIMENSIONS", dims("band", NULL, NULL));
    winent_json_put(a3, "_ARRAY_DIMENSIONS", dims("band", NULL, NULL));
    winent_json_put(a3, "long_name", cJSON_CreateString("band of the input"));
    winent_status st = put_array(dir, "band", zarray(1, &shape, NULL, "<i4", NULL, 0), a1, num,
                                 (size_t)nmaps * sizeof *num, 1, meta, err);
    if (st == WINENT_OK)
        st = put_array(dir, "window", zarray(1, &shape, NULL, "<U16", cJSON_CreateString(""), 0),
                       a2, text, (size_t)nmaps * LABEL * sizeof *text, 1, meta, err);
    if (st == WINENT_OK)
        st = put_array(dir, "source_band", zarray(1, &shape, NULL, "<i4", NULL, 0), a3, src,
                       (size_t)nmaps * sizeof *src, 1, meta, err);
    /* Each map's measure, as the other outputs name it ("simpson",
     * "glcm-contrast:d2"): the maps of one window differ by it alone. */
    cJSON *a4 = cJSON_CreateObject();
    winent_json_put(a4, "_ARRAY_DIMENSIONS", dims("band", NULL, NULL));
    if (st == WINENT_OK)
        st = put_array(dir, "measure", zarray(1, &shape, NULL, "<U48", cJSON_CreateString(""), 0),
                       a4, mtext, (size_t)nmaps * MLABEL * sizeof *mtext, 1, meta, err);
    else
        cJSON_Delete(a4);
    free(num), free(text), free(mtext), free(src);
    return st;
}

/* The maps' attributes: what the CLI's GeoTIFF says of them, in CF's and
 * xarray's words (units, long_name, scale_factor and add_offset for an
 * integer --ot), and the coordinates that go with them. */
static cJSON *var_attrs(const winent_sink *s, const zarr_sink *z, int nmaps, int have_gt)
{
    const winent_sink_opts *o = &s->opts;
    const winent_compute_opts *c = o->compute;
    cJSON *at = cJSON_CreateObject();
    char text[128], win[32];
    map_label(o, 0, win, sizeof win);
    winent_json_put(at, "_ARRAY_DIMENSIONS",
                    nmaps > 1 ? dims("band", "y", "x") : dims("y", "x", NULL));
    char mt[64] = "entropy";
    if (c != NULL)
        winent_measure_text(c, mt, sizeof mt);
    snprintf(text, sizeof text, "local %s, %s window%s", mt, win,
             nmaps > 1 ? " (first map; each map's in measure)" : "");
    winent_json_put(at, "long_name", cJSON_CreateString(text));
    if (maps_units(o, nmaps > 1 ? nmaps : 1) != NULL)
        winent_json_put(at, "units", cJSON_CreateString(maps_units(o, nmaps > 1 ? nmaps : 1)));
    if (nmaps <= 1)
        winent_json_put(at, "measure", cJSON_CreateString(mt));
    if (have_gt)
        winent_json_put(at, "grid_mapping", cJSON_CreateString("spatial_ref"));
    /* xarray makes the variables named here coordinates of the maps, where
     * rioxarray looks for the grid mapping. */
    if (nmaps > 1 || have_gt)
        winent_json_put(at, "coordinates",
                        cJSON_CreateString(nmaps > 1 && have_gt
                                               ? "window measure source_band spatial_ref"
                                           : nmaps > 1 ? "window measure source_band"
                                                                : "spatial_ref"));
    if (z->q.is_int) {
        winent_json_put(at, "scale_factor", winent_json_number(z->q.scale));
        winent_json_put(at, "add_offset", winent_json_number(z->q.offset));
    }
    if (c != NULL) {
        winent_json_put(at, "window", cJSON_CreateString(win));
        winent_json_put(at, "base", c->base == WINENT_BASE_E    ? cJSON_CreateString("e")
                                    : c->base == WINENT_BASE_10 ? winent_json_integer(10)
                                                                : winent_json_integer(2));
        if (c->bins > 0) {
            const double r[2] = {c->range_lo, c->range_hi};
            winent_json_put(at, "bins", winent_json_integer(c->bins));
            winent_json_put(at, "range", winent_json_numbers(r, 2));
        }
        if (c->has_nodata)
            winent_json_put(at, "input_nodata", winent_json_number(c->nodata));
        winent_json_put(at, "source_dtype", cJSON_CreateString(winent_dtype_name(c->dtype)));
    }
    if (o->source_band > 0 && nmaps <= 1)
        winent_json_put(at, "source_band", winent_json_integer(o->source_band));
    return at;
}

static cJSON *root_attrs(const winent_sink_opts *o)
{
    cJSON *at = cJSON_CreateObject();
    char text[64];
    snprintf(text, sizeof text, "winent-stream %s", WINENT_VERSION_STRING);
    winent_json_put(at, "software", cJSON_CreateString(text));
    winent_json_put(at, "version", cJSON_CreateString(WINENT_VERSION_STRING));
    if (o->source_name != NULL)
        winent_json_put(at, "source", winent_json_text(o->source_name));
    if (o->command_line != NULL)
        winent_json_put(at, "history", winent_json_text(o->command_line));
    return at;
}

/* Every metadata file, consolidated into .zmetadata as zarr's
 * consolidate_metadata writes it, so that open_zarr reads one file. */
static winent_status write_metadata(winent_sink *s, zarr_sink *z, winent_err *err)
{
    const winent_sink_opts *o = &s->opts;
    const char *dir = z->temp_path;
    double gt[6];
    const int have_gt = winent_georef_present(o->georef) && winent_georef_geotransform(o->georef, gt);
    const int coords = have_gt && gt[2] == 0 && gt[4] == 0;
    cJSON *doc = cJSON_CreateObject(), *meta = cJSON_CreateObject();
    if (doc == NULL || meta == NULL) {
        cJSON_Delete(doc), cJSON_Delete(meta);
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    }
    winent_status st = WINENT_OK;
    cJSON *g = cJSON_CreateObject(), *ra = root_attrs(o);
    winent_json_put(g, "zarr_format", winent_json_integer(2));
    char *gtext = winent_json_print(g, 1), *atext = winent_json_print(ra, 1);
    if (gtext == NULL || atext == NULL)
        st = WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    if (st == WINENT_OK)
        st = put_file(dir, ".zgroup", gtext, strlen(gtext), err);
    if (st == WINENT_OK)
        st = put_file(dir, ".zattrs", atext, strlen(atext), err);
    free(gtext), free(atext);
    winent_json_put(meta, ".zgroup", g);
    winent_json_put(meta, ".zattrs", ra);

    const int nmaps = s->nmaps;
    long long shape[3] = {nmaps, o->height, o->width};
    long long chunks[3] = {1, z->side, z->side};
    const int nd = nmaps > 1 ? 3 : 2;
    cJSON *fill = z->q.is_int ? winent_json_integer(z->q.nodata_code) : cJSON_CreateString("NaN");
    if (st == WINENT_OK)
        st = put_array(dir, ZARR_VAR,
                       zarray(nd, shape + 3 - nd, chunks + 3 - nd, dtype_of(&z->q), fill, z->level),
                       var_attrs(s, z, nmaps, have_gt), NULL, 0, nd, meta, err);
    else
        cJSON_Delete(fill);
    if (st == WINENT_OK && coords)
        st = put_coords(dir, o, gt, meta, err);
    if (st == WINENT_OK && have_gt)
        st = put_spatial_ref(dir, o, gt, have_gt, meta, err);
    if (st == WINENT_OK && nmaps > 1)
        st = put_map_coords(dir, o, nmaps, meta, err);
    winent_json_put(doc, "metadata", meta);
    winent_json_put(doc, "zarr_consolidated_format", winent_json_integer(1));
    char *text = st == WINENT_OK ? winent_json_print(doc, 1) : NULL;
    if (st == WINENT_OK && text == NULL)
        st = WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    if (st == WINENT_OK)
        st = put_file(dir, ".zmetadata", text, strlen(text), err);
    free(text);
    cJSON_Delete(doc);
    return st;
}

/* ---- encoders (any thread) ------------------------------------------- */

static void zarr_encoder_free(void *state)
{
    zarr_encoder *e = state;
    if (e == NULL)
        return;
    ZSTD_freeCCtx(e->cctx);
    free(e->chunk);
    free(e->samples);
    free(e->packed);
    free(e);
}

static winent_status zarr_encoder_create(winent_sink *s, void **state, winent_err *err)
{
    const zarr_sink *z = s->impl;
    size_t n = (size_t)z->side * (size_t)z->side;
    zarr_encoder *e = calloc(1, sizeof *e);
    if (e != NULL) {
        e->cctx = ZSTD_createCCtx();
        e->chunk = malloc(n * sizeof(float));
        e->samples = malloc(n * sizeof(float));
        e->packed_cap = ZSTD_compressBound(n * sizeof(float));
        e->packed = malloc(e->packed_cap);
    }
    if (e == NULL || e->cctx == NULL || e->chunk == NULL || e->samples == NULL ||
        e->packed == NULL) {
        zarr_encoder_free(e);
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    }
    *state = e;
    return WINENT_OK;
}

/* Chunk (map, index, part): the unit's rows cut to the chunk's columns,
 * padded to a whole chunk with "no value" (Zarr's edge chunks are whole),
 * compressed and written to its own file. */
static winent_status encode_chunk(winent_sink *s, zarr_encoder *e, int map, int64_t index,
                                  int part, const float *rows, int nrows, winent_err *err)
{
    zarr_sink *z = s->impl;
    const size_t side = (size_t)z->side, width = (size_t)s->opts.width;
    const size_t x0 = (size_t)part * side;
    const size_t cols = width - x0 < side ? width - x0 : side;
    for (size_t r = 0; r < side; r++) {
        float *d = e->chunk + r * side;
        size_t have = (int)r < nrows ? cols : 0;
        if (have > 0)
            memcpy(d, rows + r * width + x0, have * sizeof(float));
        for (size_t i = have; i < side; i++)
            d[i] = NAN;
    }
    winent_out_encode(&z->q, e->chunk, side * side, e->samples);
    size_t n = ZSTD_compressCCtx(e->cctx, e->packed, e->packed_cap, e->samples,
                                 side * side * (size_t)z->q.bytes, z->level);
    if (ZSTD_isError(n))
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "%s: zstd: %s", s->opts.path,
                          ZSTD_getErrorName(n));
    char name[96];
    if (s->nmaps > 1)
        snprintf(name, sizeof name, ZARR_VAR "/%d.%lld.%d", map, (long long)index, part);
    else
        snprintf(name, sizeof name, ZARR_VAR "/%lld.%d", (long long)index, part);
    WINENT_TRY(put_file(z->temp_path, name, e->packed, n, err));
    __atomic_add_fetch(&z->written, (uint64_t)n, __ATOMIC_RELAXED);
    return WINENT_OK;
}

static winent_status zarr_encode_part(winent_sink *s, void *enc, int map, int64_t index, int part,
                                      const float *rows, int nrows, winent_bytes *out,
                                      winent_err *err)
{
    winent_bytes_reset(out);
    return encode_chunk(s, enc, map, index, part, rows, nrows, err);
}

static winent_status zarr_encode(winent_sink *s, void *enc, int map, int64_t index,
                                 const float *rows, int nrows, winent_bytes *out, winent_err *err)
{
    const zarr_sink *z = s->impl;
    winent_bytes_reset(out);
    for (int part = 0; part < z->across; part++)
        WINENT_TRY(encode_chunk(s, enc, map, index, part, rows, nrows, err));
    return WINENT_OK;
}

/* ---- the writer thread ----------------------------------------------- */

/* The chunks are in their files already. */
static winent_status zarr_write(winent_sink *s, int map, int64_t index,
                                const winent_bytes *encoded, winent_err *err)
{
    (void)s, (void)map, (void)index, (void)encoded, (void)err;
    return WINENT_OK;
}

static winent_status zarr_write_part(winent_sink *s, int map, int64_t index, int part,
                                     const winent_bytes *encoded, winent_err *err)
{
    (void)part;
    return zarr_write(s, map, index, encoded, err);
}

/* Flush the store's files, then put it in place: an older store of the
 * name is moved aside first and removed once the new one is there. */
static winent_status zarr_finish(winent_sink *s, winent_err *err)
{
    zarr_sink *z = s->impl;
    int fd = open(z->temp_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || syncfs(fd) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: %s", z->temp_path, strerror(e));
    }
    close(fd);
    char *old = NULL;
    struct stat st;
    if (lstat(z->final_path, &st) == 0) {
        size_t n = strlen(z->temp_path);
        old = malloc(n + 5);
        if (old == NULL)
            return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
        snprintf(old, n + 5, "%s.old", z->temp_path);
        if (rename(z->final_path, old) != 0) {
            int e = errno;
            free(old);
            return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: cannot replace it: %s",
                              z->final_path, strerror(e));
        }
    }
    if (rename(z->temp_path, z->final_path) != 0) {
        int e = errno;
        if (old != NULL)
            rename(old, z->final_path);
        free(old);
        return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: %s", z->final_path, strerror(e));
    }
    free(z->temp_path);
    z->temp_path = NULL;
    if (old != NULL)
        remove_tree(old);
    free(old);
    return WINENT_OK;
}

static void zarr_abort(winent_sink *s)
{
    zarr_sink *z = s->impl;
    if (z != NULL && z->temp_path != NULL) {
        remove_tree(z->temp_path);
        free(z->temp_path);
        z->temp_path = NULL;
    }
}

static uint64_t zarr_bytes_written(const winent_sink *s)
{
    zarr_sink *z = s->impl;
    return __atomic_load_n(&z->written, __ATOMIC_RELAXED);
}

static void zarr_free(void *impl)
{
    zarr_sink *z = impl;
    if (z == NULL)
        return;
    if (z->temp_path != NULL)
        remove_tree(z->temp_path);
    free(z->temp_path);
    free(z->final_path);
    free(z);
}

static const sink_ops zarr_sink_ops = {
    .encoder_create = zarr_encoder_create,
    .encoder_free = zarr_encoder_free,
    .encode = zarr_encode,
    .write = zarr_write,
    .finish = zarr_finish,
    .abort = zarr_abort,
    .free_impl = zarr_free,
    .bytes_written = zarr_bytes_written,
    .encode_part = zarr_encode_part,
    .write_part = zarr_write_part,
};

static int zarr_side(const winent_sink_opts *o)
{
    return o->tile > 0 ? o->tile : 512;
}

/* A hidden folder beside the target: the same file system, so the
 * commit is a rename. */
static winent_status make_temp(zarr_sink *z, winent_err *err)
{
    const char *slash = strrchr(z->final_path, '/');
    size_t dlen = slash ? (size_t)(slash - z->final_path) + 1 : 0;
    const char *base = slash ? slash + 1 : z->final_path;
    size_t n = dlen + strlen(base) + sizeof ".tmp-XXXXXX" + 1;
    z->temp_path = malloc(n);
    if (z->temp_path == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    snprintf(z->temp_path, n, "%.*s.%s.tmp-XXXXXX", (int)dlen, z->final_path, base);
    if (mkdtemp(z->temp_path) == NULL) {
        int e = errno;
        free(z->temp_path);
        z->temp_path = NULL;
        return WINENT_ERR(err, WINENT_ERR_OUTPUT, "%s: cannot make its folder: %s", z->final_path,
                          strerror(e));
    }
    return WINENT_OK;
}

static winent_status zarr_open(winent_sink *s, winent_err *err)
{
    const winent_sink_opts *o = &s->opts;
    zarr_sink *z = calloc(1, sizeof *z);
    if (z == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    s->ops = &zarr_sink_ops;
    s->impl = z; /* freed by winent_sink_free from here on */
    if (o->width < 1 || o->height < 1)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "zarr: empty image %dx%d", o->width, o->height);
    z->level = o->level != 0 ? o->level : ZARR_DEFAULT_LEVEL;
    z->side = zarr_side(o);
    z->across = (o->width + z->side - 1) / z->side;
    winent_sink_out_sample(o, &z->q);
    s->unit_rows = z->side;
    s->parts = z->across;
    z->final_path = strdup(o->path);
    if (z->final_path == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    WINENT_TRY(make_temp(z, err));
    return write_metadata(s, z, err);
}

/* A store is a folder: standard output, a pipe or a device cannot hold
 * one, and only a Zarr store (of an earlier run) may be replaced. */
static winent_status zarr_check_output(const char *output_path, const winent_outfile_probe *out,
                                       winent_err *err)
{
    if (out->in_place)
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "output '%s' is %s: a Zarr store is a folder; give its name (NAME.zarr)",
                          output_path, out->what);
    if (out->exists && !(S_ISDIR(out->st.st_mode) && is_zarr_store(output_path)))
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "output '%s' exists and is not a Zarr store: remove it or give another "
                          "name",
                          output_path);
    return WINENT_OK;
}

static size_t zarr_encoder_bytes_for(const winent_sink_opts *o)
{
    size_t n = (size_t)zarr_side(o) * (size_t)zarr_side(o) * sizeof(float);
    return winent_sink_zstd_state_bytes(o->level > 0 ? o->level : ZARR_DEFAULT_LEVEL) + 3 * n;
}

static const char *const zarr_extensions[] = {"zarr", NULL};

const winent_sink_format winent_sink_format_zarr = {
    .format = WINENT_FORMAT_ZARR,
    .name = "zarr",
    .extensions = zarr_extensions,
    .hint = ".zarr",
    .folder = 1,
    .no_sidecar = "--sidecar describes a raw output; a Zarr store carries its own metadata: drop "
                  "--sidecar",
    .check_output = zarr_check_output,
    .open = zarr_open,
    .unit_rows_for = zarr_side,
    .encoder_bytes_for = zarr_encoder_bytes_for,
};
