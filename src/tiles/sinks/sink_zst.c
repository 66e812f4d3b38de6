/* SPDX-License-Identifier: BSD-3-Clause */
/* .zst output: a JSON header in a skippable frame, one zstd frame per
 * band of `frame_rows` rows, and a seek table in the zstd seekable format
 * (layout in zst_format.h). Everything is written front to back, so the
 * output may be a pipe: the frame count is known from the options before
 * the first byte, and the seek table is kept in memory until finish.
 *
 * Several maps: their frames follow one another, map after map, so that
 * `zstd -d` gives a band-sequential stack; the header lists the maps and
 * the seek table covers every frame. The rows of all maps come at once,
 * so the first map's frames go to the output as they come and the others'
 * to scratch files (spill.h: nameless, beside the output, or in TMPDIR for
 * a stream), appended at the end. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "base/json.h"
#include "sink_internal.h"
#include "spill.h"
#include "zst_format.h"

#if !defined(__BYTE_ORDER__) || !defined(__ORDER_LITTLE_ENDIAN__)
#error "the .zst sink needs __BYTE_ORDER__ to write little-endian floats"
#endif
#define HOST_IS_BIG_ENDIAN (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)

typedef struct zst_sink {
    winent_outfile file; /* owned; writer thread only */
    int open;            /* file holds a temporary that abort must remove */
    int level;
    int frame_rows;
    winent_out_sample q; /* the samples written (--ot) */
    uint32_t nframes; /* data frames of one map (the header frame not counted) */
    int nmaps;
    uint32_t *next;   /* owned, per map: next data frame the writer expects */
    int *spill;       /* owned, per map: its frames' scratch file (-1: map 0,
                         written to the output) */
    uint64_t *spilled;/* owned, per map: bytes in its scratch file */
    uint8_t *table;   /* owned: seek table frame, entries filled as frames come */
    size_t table_size;
} zst_sink;

typedef struct zst_encoder {
    ZSTD_CCtx *cctx; /* owned; one encoder thread at a time */
    uint8_t *swap;   /* owned; the rows as the file's samples (another --ot than
                        float32, or float32 on a big-endian host) */
    size_t swap_cap;
} zst_encoder;

static uint32_t frame_rows_of(const winent_sink *s, uint32_t index)
{
    const zst_sink *z = s->impl;
    int64_t y0 = (int64_t)index * z->frame_rows;
    int64_t y1 = y0 + z->frame_rows;
    return (uint32_t)((y1 < s->opts.height ? y1 : s->opts.height) - y0);
}

/* ---- encoders (any thread) ------------------------------------------ */

static void zst_encoder_free(void *state)
{
    zst_encoder *e = state;
    if (e == NULL)
        return;
    ZSTD_freeCCtx(e->cctx);
    free(e->swap);
    free(e);
}

static winent_status zst_encoder_create(winent_sink *s, void **state, winent_err *err)
{
    const zst_sink *z = s->impl;
    zst_encoder *e = calloc(1, sizeof *e);
    *state = NULL;
    if (e == NULL || (e->cctx = ZSTD_createCCtx()) == NULL) {
        zst_encoder_free(e);
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    }
    /* Single-threaded inside (nbWorkers stays 0): the pipeline's encoder
     * pool supplies the threads, and the bytes then depend on nothing but
     * the level and the rows. */
    size_t rc = ZSTD_CCtx_setParameter(e->cctx, ZSTD_c_compressionLevel, z->level);
    if (!ZSTD_isError(rc))
        rc = ZSTD_CCtx_setParameter(e->cctx, ZSTD_c_checksumFlag, 1);
    if (!ZSTD_isError(rc))
        rc = ZSTD_CCtx_setParameter(e->cctx, ZSTD_c_contentSizeFlag, 1);
    if (ZSTD_isError(rc)) {
        zst_encoder_free(e);
        return WINENT_ERR(err, WINENT_ERR_USAGE, "zstd level %d: %s", z->level,
                          ZSTD_getErrorName(rc));
    }
    *state = e;
    return WINENT_OK;
}

static winent_status zst_encode(winent_sink *s, void *state, int map, int64_t index,
                                const float *rows, int nrows, winent_bytes *out, winent_err *err)
{
    const zst_sink *z = s->impl;
    zst_encoder *e = state;
    (void)map; /* every map's frames are cut alike */
    if (index < 0 || index >= z->nframes || (uint32_t)nrows != frame_rows_of(s, (uint32_t)index))
        return WINENT_ERR(err, WINENT_ERR_INTERNAL,
                          ".zst frame %lld: %d rows, not the frame's own band", (long long)index,
                          nrows);
    size_t count = (size_t)s->opts.width * (size_t)nrows, n = count * (size_t)z->q.bytes;
    const void *src = rows;
    if (HOST_IS_BIG_ENDIAN || z->q.type != WINENT_OT_FLOAT32) {
        if (e->swap_cap < n) {
            uint8_t *p = realloc(e->swap, n);
            if (p == NULL)
                return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
            e->swap = p;
            e->swap_cap = n;
        }
        winent_out_encode(&z->q, rows, count, e->swap);
        src = e->swap;
    }
    size_t bound = ZSTD_compressBound(n);
    if (winent_bytes_reserve(out, bound) != 0)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    size_t c = ZSTD_compress2(e->cctx, out->data + out->size, bound, src, n);
    if (ZSTD_isError(c))
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "zstd: %s", ZSTD_getErrorName(c));
    out->size += c;
    return WINENT_OK;
}

/* ---- the writer thread -------------------------------------------- */

static void set_entry(zst_sink *z, uint32_t i, uint32_t csize, uint32_t dsize, uint32_t sum)
{
    uint8_t *p = z->table + WINENT_ZST_SKIP_HEADER + (size_t)i * WINENT_ZST_ENTRY;
    winent_zst_put32(p, csize);
    winent_zst_put32(p + 4, dsize);
    winent_zst_put32(p + 8, sum);
}

static winent_status zst_write(winent_sink *s, int map, int64_t index,
                               const winent_bytes *encoded, winent_err *err)
{
    zst_sink *z = s->impl;
    if (index != z->next[map] || z->next[map] >= z->nframes)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, ".zst frame %lld written out of order",
                          (long long)index);
    /* A frame made with ZSTD_c_checksumFlag ends with the low 32 bits of
     * XXH64 of its content, little-endian: exactly the seek table's
     * checksum, so it is copied rather than computed again. */
    if (encoded->size < 4 + 4 || encoded->size > UINT32_MAX ||
        winent_zst_get32(encoded->data) != WINENT_ZST_FRAME_MAGIC)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, ".zst frame %lld is not a zstd frame",
                          (long long)index);
    uint32_t dsize =
        frame_rows_of(s, z->next[map]) * (uint32_t)s->opts.width * (uint32_t)z->q.bytes;
    set_entry(z, 1 + (uint32_t)map * z->nframes + z->next[map], (uint32_t)encoded->size, dsize,
              winent_zst_get32(encoded->data + encoded->size - 4));
    if (map == 0)
        WINENT_TRY(winent_outfile_write(&z->file, encoded->data, encoded->size, err));
    else
        WINENT_TRY(winent_spill_append(z->spill[map], encoded->data, encoded->size, s->opts.path,
                                       &z->spilled[map], err));
    z->next[map]++;
    return WINENT_OK;
}

static void close_spills(zst_sink *z)
{
    for (int m = 0; z->spill && m < z->nmaps; m++)
        if (z->spill[m] >= 0) {
            close(z->spill[m]);
            z->spill[m] = -1;
        }
}

static winent_status zst_finish(winent_sink *s, winent_err *err)
{
    zst_sink *z = s->impl;
    for (int m = 0; m < z->nmaps; m++)
        if (z->next[m] != z->nframes)
            return WINENT_ERR(err, WINENT_ERR_INTERNAL,
                              ".zst: %u of %u frames of map %d written at the end", z->next[m],
                              z->nframes, m + 1);
    /* The other maps' frames after the first's, in map order. */
    for (int m = 1; m < z->nmaps; m++) {
        WINENT_TRY(winent_spill_copy(z->spill[m], 0, z->file.fd, z->spilled[m], s->opts.stop,
                                     s->opts.path, err));
        z->file.written += z->spilled[m];
    }
    close_spills(z);
    WINENT_TRY(winent_outfile_write(&z->file, z->table, z->table_size, err));
    z->open = 0;
    return winent_outfile_commit(&z->file, err);
}

static void zst_abort(winent_sink *s)
{
    zst_sink *z = s->impl;
    close_spills(z);
    if (z->open)
        winent_outfile_abort(&z->file);
    z->open = 0;
}

static uint64_t zst_bytes_written(const winent_sink *s)
{
    const zst_sink *z = s->impl;
    return z->file.written;
}

static void zst_free(void *impl)
{
    zst_sink *z = impl;
    if (z == NULL)
        return;
    if (z->open)
        winent_outfile_abort(&z->file);
    close_spills(z);
    free(z->spill);
    free(z->spilled);
    free(z->next);
    free(z->table);
    free(z);
}

/* ---- the header ---------------------------------------------------- */

/* The georeferencing: what GDAL users want (geotransform, EPSG code), and
 * the GeoTIFF tags themselves, so that nothing of the input is lost. */
/* A footprint as the header's text: its rows of 0 and 1 joined by '/'
 * (NULL out of memory). */
static cJSON *footprint_json(const winent_compute_opts *c)
{
    const size_t kx = (size_t)c->kx, ky = (size_t)c->ky;
    char *t = malloc((kx + 1) * ky + 1);
    if (t == NULL)
        return NULL;
    size_t k = 0;
    for (size_t r = 0; r < ky; r++) {
        if (r > 0)
            t[k++] = '/';
        for (size_t i = 0; i < kx; i++)
            t[k++] = c->footprint[r * kx + i] ? '1' : '0';
    }
    t[k] = '\0';
    cJSON *j = cJSON_CreateString(t);
    free(t);
    return j;
}

static cJSON *json_georef(const winent_georef *g)
{
    double gt[6];
    char crs[32];
    cJSON *o = cJSON_CreateObject();
    int bad = o == NULL;
    if (winent_georef_geotransform(g, gt))
        bad |= winent_json_put(o, "geotransform", winent_json_numbers(gt, 6));
    int epsg = winent_georef_epsg(g);
    if (epsg > 0) {
        snprintf(crs, sizeof crs, "EPSG:%d", epsg);
        bad |= winent_json_put(o, "epsg", winent_json_integer(epsg));
        bad |= winent_json_put(o, "crs", cJSON_CreateString(crs));
    }
    if (g->n_geokeys > 0) {
        cJSON *keys = cJSON_CreateArray();
        for (int i = 0; i < g->n_geokeys && keys; i++)
            if (winent_json_put(keys, NULL, winent_json_integer(g->geokeys[i])) != 0) {
                cJSON_Delete(keys);
                keys = NULL;
            }
        bad |= winent_json_put(o, "geokeys", keys);
    }
    if (g->n_geodoubles > 0)
        bad |= winent_json_put(o, "geodoubles", winent_json_numbers(g->geodoubles, g->n_geodoubles));
    if (g->geoascii)
        bad |= winent_json_put(o, "geoascii", winent_json_text(g->geoascii));
    if (g->n_tiepoints > 0)
        bad |= winent_json_put(o, "tiepoints", winent_json_numbers(g->tiepoints, g->n_tiepoints));
    if (g->n_scale > 0)
        bad |= winent_json_put(o, "pixel_scale", winent_json_numbers(g->scale, g->n_scale));
    if (g->n_transform > 0)
        bad |= winent_json_put(o, "transform", winent_json_numbers(g->transform, g->n_transform));
    if (bad) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* Several maps: each one's band, window, range and nodata, and its
 * frames (the first data frame, counted from 0, and how many). */
static cJSON *json_maps(const winent_sink *s, const zst_sink *z)
{
    cJSON *list = cJSON_CreateArray();
    int bad = list == NULL;
    for (int m = 0; m < z->nmaps && !bad; m++) {
        const winent_sink_map *map = &s->opts.maps[m];
        const winent_compute_opts *c = map->compute;
        const double window[2] = {c->kx, c->ky};
        cJSON *e = cJSON_CreateObject();
        int ebad = e == NULL;
        ebad |= winent_json_put(e, "band", map->source_band > 0
                                               ? winent_json_integer(map->source_band)
                                               : cJSON_CreateNull());
        ebad |= winent_json_put(e, "window", winent_json_numbers(window, 2));
        char mt[48];
        winent_measure_text(c, mt, sizeof mt);
        ebad |= winent_json_put(e, "measure", cJSON_CreateString(mt));
        if (c->disk) /* a disk: its radius; "window" is its square */
            ebad |= winent_json_put(e, "disk", winent_json_integer(c->kx / 2));
        if (c->footprint != NULL) /* a footprint: its rows; "window" is its box */
            ebad |= winent_json_put(e, "footprint", footprint_json(c));
        if (c->bins > 0) {
            const double r[2] = {c->range_lo, c->range_hi};
            ebad |= winent_json_put(e, "range", winent_json_numbers(r, 2));
        } else {
            ebad |= winent_json_put(e, "range", cJSON_CreateNull());
        }
        ebad |= winent_json_put(e, "nodata",
                                c->has_nodata ? winent_json_number(c->nodata) : cJSON_CreateNull());
        ebad |= winent_json_put(e, "first_frame", winent_json_integer((long long)m * z->nframes));
        ebad |= winent_json_put(e, "frames", winent_json_integer(z->nframes));
        if (ebad) {
            cJSON_Delete(e);
            bad = 1;
        } else {
            bad = winent_json_put(list, NULL, e);
        }
    }
    if (bad) {
        cJSON_Delete(list);
        return NULL;
    }
    return list;
}

/* The header's text (malloc'd), members in a fixed order: the same options
 * give the same bytes. NULL when out of memory. */
static char *json_header(const winent_sink *s, const zst_sink *z)
{
    static const char *const bases[] = {"e", "2", "10"};
    const winent_sink_opts *o = &s->opts;
    winent_compute_opts dflt;
    const winent_compute_opts *c = o->compute;
    if (c == NULL) {
        winent_compute_opts_default(&dflt);
        c = &dflt;
    }
    cJSON *h = cJSON_CreateObject();
    int bad = h == NULL;
    const double window[2] = {c->kx, c->ky};
    bad |= winent_json_put(h, "format", cJSON_CreateString(WINENT_ZST_FORMAT_NAME));
    bad |= winent_json_put(h, "width", winent_json_integer(o->width));
    bad |= winent_json_put(h, "height", winent_json_integer(o->height));
    bad |= winent_json_put(h, "dtype", cJSON_CreateString(winent_out_type_name(z->q.type)));
    bad |= winent_json_put(h, "byteorder", cJSON_CreateString("little"));
    bad |= winent_json_put(h, "window", winent_json_numbers(window, 2));
    char mt[48];
    winent_measure_text(c, mt, sizeof mt);
    bad |= winent_json_put(h, "measure", cJSON_CreateString(mt));
    if (c->disk) /* a disk: its radius; "window" is its square */
        bad |= winent_json_put(h, "disk", winent_json_integer(c->kx / 2));
    if (c->footprint != NULL) /* a footprint: its rows; "window" is its box */
        bad |= winent_json_put(h, "footprint", footprint_json(c));
    bad |= winent_json_put(h, "base",
                           cJSON_CreateString((unsigned)c->base < 3 ? bases[c->base] : "e"));
    if (c->bins > 0) {
        const double range[2] = {c->range_lo, c->range_hi};
        bad |= winent_json_put(h, "bins", winent_json_integer(c->bins));
        bad |= winent_json_put(h, "range", winent_json_numbers(range, 2));
    } else {
        bad |= winent_json_put(h, "bins", cJSON_CreateNull());
        bad |= winent_json_put(h, "range", cJSON_CreateNull());
    }
    bad |= winent_json_put(h, "nodata",
                           c->has_nodata ? winent_json_number(c->nodata) : cJSON_CreateNull());
    /* The map marks "no value" with NaN (a nodata centre pixel), or an
     * integer map with its nodata code. */
    if (!o->nodata_in_play)
        bad |= winent_json_put(h, "output_nodata", cJSON_CreateNull());
    else if (z->q.is_int)
        bad |= winent_json_put(h, "output_nodata", winent_json_integer(z->q.nodata_code));
    else
        bad |= winent_json_put(h, "output_nodata", cJSON_CreateString("NaN"));
    /* Integer samples: value = code * scale + offset, as GDAL's scale and
     * offset (the TIFF's SCALE and OFFSET items). */
    if (z->q.is_int) {
        bad |= winent_json_put(h, "scale", winent_json_number(z->q.scale));
        bad |= winent_json_put(h, "offset", winent_json_number(z->q.offset));
    }
    bad |= winent_json_put(h, "rows_per_frame", winent_json_integer(z->frame_rows));
    bad |= winent_json_put(h, "frames", winent_json_integer((long long)z->nframes * z->nmaps));
    bad |= winent_json_put(h, "source", winent_json_text(o->source_name ? o->source_name : ""));
    /* Provenance: which band of the source, of which type, and the command
     * that made the map (null when not known, as for an in-memory job). */
    bad |= winent_json_put(h, "source_band", o->source_band > 0
                                                 ? winent_json_integer(o->source_band)
                                                 : cJSON_CreateNull());
    bad |= winent_json_put(h, "source_dtype",
                           o->compute ? cJSON_CreateString(winent_dtype_name(o->compute->dtype))
                                      : cJSON_CreateNull());
    bad |= winent_json_put(h, "command_line", o->command_line ? winent_json_text(o->command_line)
                                                              : cJSON_CreateNull());
    bad |= winent_json_put(h, "version", cJSON_CreateString(WINENT_VERSION_STRING));
    if (winent_georef_present(o->georef))
        bad |= winent_json_put(h, "georef", json_georef(o->georef));
    if (z->nmaps > 1)
        bad |= winent_json_put(h, "maps", json_maps(s, z));
    char *text = bad ? NULL : winent_json_print(h, 1);
    cJSON_Delete(h);
    return text;
}

static winent_status write_header(winent_sink *s, zst_sink *z, winent_err *err)
{
    winent_status st = WINENT_OK;
    uint8_t skip[WINENT_ZST_SKIP_HEADER];
    char *text = json_header(s, z);
    if (text == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    /* cJSON ends its text without a newline: one makes `head` readable. */
    size_t n = strlen(text);
    text[n] = '\n'; /* the NUL's place: the text is written by length */
    n++;
    if (n > WINENT_ZST_MAX_HEADER) {
        st = WINENT_ERR(err, WINENT_ERR_INPUT,
                        "%s: the georeferencing is too large for a .zst "
                        "header (%zu bytes)",
                        s->opts.path, n);
        goto fail;
    }
    winent_zst_put32(skip, WINENT_ZST_HEADER_MAGIC);
    winent_zst_put32(skip + 4, (uint32_t)n);
    set_entry(z, 0, (uint32_t)(WINENT_ZST_SKIP_HEADER + n), 0, WINENT_ZST_EMPTY_CHECKSUM);
    WINENT_TRY_GOTO(st, winent_outfile_write(&z->file, skip, sizeof skip, err));
    WINENT_TRY_GOTO(st, winent_outfile_write(&z->file, text, n, err));
fail:
    free(text);
    return st;
}

static const sink_ops zst_sink_ops = {
    .encoder_create = zst_encoder_create,
    .encoder_free = zst_encoder_free,
    .encode = zst_encode,
    .write = zst_write,
    .finish = zst_finish,
    .abort = zst_abort,
    .free_impl = zst_free,
    .bytes_written = zst_bytes_written,
};

static winent_status zst_open(winent_sink *s, winent_err *err)
{
    const winent_sink_opts *o = &s->opts;
    zst_sink *z = calloc(1, sizeof *z);
    if (z == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    s->ops = &zst_sink_ops;
    s->impl = z; /* freed by winent_sink_free from here on */

    if (o->width < 1 || o->height < 1)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, ".zst: empty image %dx%d", o->width, o->height);
    z->level = o->level != 0 ? o->level : WINENT_ZST_DEFAULT_LEVEL;
    if (z->level < ZSTD_minCLevel() || z->level > ZSTD_maxCLevel())
        return WINENT_ERR(err, WINENT_ERR_USAGE, "--level %d: zstd levels go from %d to %d",
                          z->level, ZSTD_minCLevel(), ZSTD_maxCLevel());
    /* Frames over 1 GiB decompressed cannot be described by the seek
     * table's reference reader: fewer rows then, still a function of the
     * options and the width alone. */
    winent_sink_out_sample(o, &z->q);
    uint64_t row_bytes = (uint64_t)o->width * (uint64_t)z->q.bytes;
    if (row_bytes > WINENT_ZST_MAX_FRAME_BYTES)
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "%s: %d pixels is too wide for a .zst frame; "
                          "write a .tif or raw output",
                          o->path, o->width);
    uint64_t fr = o->frame_rows > 0 ? (uint64_t)o->frame_rows : 1;
    if (fr * row_bytes > WINENT_ZST_MAX_FRAME_BYTES)
        fr = WINENT_ZST_MAX_FRAME_BYTES / row_bytes;
    if (fr > (uint64_t)o->height)
        fr = (uint64_t)o->height;
    z->frame_rows = (int)fr;
    uint64_t nframes = ((uint64_t)o->height + fr - 1) / fr;
    if (nframes + 1 > WINENT_ZST_MAX_FRAMES)
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "%s: %llu frames is too many for a .zst seek "
                          "table; give more rows per frame",
                          o->path, (unsigned long long)nframes);
    z->nframes = (uint32_t)nframes;
    z->nmaps = s->nmaps;
    if (nframes * (uint64_t)z->nmaps + 1 > WINENT_ZST_MAX_FRAMES)
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "%s: %d maps of %llu frames is too many for a .zst seek table; give "
                          "more rows per frame",
                          o->path, z->nmaps, (unsigned long long)nframes);
    s->unit_rows = z->frame_rows;
    z->next = calloc((size_t)z->nmaps, sizeof *z->next);
    z->spill = malloc((size_t)z->nmaps * sizeof *z->spill);
    z->spilled = calloc((size_t)z->nmaps, sizeof *z->spilled);
    if (z->next == NULL || z->spill == NULL || z->spilled == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    for (int m = 0; m < z->nmaps; m++)
        z->spill[m] = -1;

    /* The seek table frame: skippable header, entries (header frame first),
     * footer. Filled as frames are written, written whole at finish. */
    uint32_t entries = z->nframes * (uint32_t)z->nmaps + 1;
    z->table_size = WINENT_ZST_SKIP_HEADER + (size_t)entries * WINENT_ZST_ENTRY + WINENT_ZST_FOOTER;
    z->table = calloc(1, z->table_size);
    if (z->table == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    winent_zst_put32(z->table, WINENT_ZST_SEEK_MAGIC);
    winent_zst_put32(z->table + 4, (uint32_t)(z->table_size - WINENT_ZST_SKIP_HEADER));
    uint8_t *foot = z->table + z->table_size - WINENT_ZST_FOOTER;
    winent_zst_put32(foot, entries);
    foot[4] = WINENT_ZST_CHECKSUM_FLAG;
    winent_zst_put32(foot + 5, WINENT_ZST_SEEKABLE_MAGIC);

    WINENT_TRY(winent_outfile_open(&z->file, o->path, o->stop, err));
    winent_outfile_track(&z->file, o->temps);
    z->open = 1;
    if (z->nmaps > 1) {
        /* Beside the output's temporary file; for a stream, in TMPDIR. */
        char tmp[4096];
        const char *beside = z->file.temp_path;
        if (beside == NULL) {
            snprintf(tmp, sizeof tmp, "%s/x", winent_tmpdir());
            beside = tmp;
        }
        for (int m = 1; m < z->nmaps; m++)
            WINENT_TRY(winent_spill_open(beside, o->path, &z->spill[m], err));
    }
    return write_header(s, z, err);
}

static int zst_unit_rows_for(const winent_sink_opts *o)
{
    return o->frame_rows;
}

static size_t zst_encoder_bytes_for(const winent_sink_opts *o)
{
    return winent_sink_zstd_state_bytes(o->level > 0 ? o->level : 2);
}

static const char *const zst_extensions[] = {"zst", NULL};

const winent_sink_format winent_sink_format_zst = {
    .format = WINENT_FORMAT_ZST,
    .name = "zst",
    .extensions = zst_extensions,
    .hint = ".zst",
    .no_sidecar = "--sidecar describes a raw output; a .zst carries its own header: drop "
                  "--sidecar (winent-stream --decode MAP.zst MAP.tif makes a GeoTIFF of it)",
    .open = zst_open,
    .unit_rows_for = zst_unit_rows_for,
    .encoder_bytes_for = zst_encoder_bytes_for,
};
