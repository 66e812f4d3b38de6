/* SPDX-License-Identifier: BSD-3-Clause */
/* A .zst map read back row by row (--decode): the layout checked at open
 * (zst_layout.h), then every frame decompressed in file order into the
 * caller's rows and held against its seek table entry. The maps of a file
 * of several each have a cursor of their own over their frames. */
#include "zst_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "kernels/measure.h"
#include "zst_format.h"
#include "zst_layout.h"

/* A frame's compressed bytes up to this size are read whole (the seek
 * table gives the size): zstd then decodes it straight into the caller's
 * rows when they have room for all of it, with no copy through its window
 * buffer. Larger frames (not made by default) stream through the
 * buffer. */
#define WHOLE_FRAME_MAX ((size_t)64 << 20)

/* Where one map is read. */
typedef struct zst_cursor {
    ZSTD_DCtx *dctx;  /* owned */
    uint8_t *in;      /* owned: compressed bytes of the current frame */
    size_t in_cap;
    ZSTD_inBuffer ib; /* over `in` */
    uint32_t frame;   /* the current data frame (of the file) */
    uint32_t end;     /* the map's last frame + 1 */
    uint32_t first;   /* the map's first frame */
    uint64_t off;     /* where it starts in the file */
    uint64_t pos;     /* the next byte of it to read */
    uint64_t left;    /* its decompressed bytes not delivered yet */
    int in_frame;     /* a frame has been started and not finished */
    int map;          /* the map it reads (0-based) */
    uint64_t bytes_in;        /* compressed bytes read through it */
    winent_zst_file f;        /* the file, with this cursor's own message buffer: */
    char msg[WINENT_MSG_LEN]; /* cursors read at once on several threads */
} zst_cursor;

struct winent_zst_reader {
    winent_zst_file f;
    char msg[WINENT_MSG_LEN]; /* f.msg points here */
    winent_zst_layout l;      /* owned */
    winent_zst_map map;       /* owned strings and tags */
    zst_cursor *cur;          /* owned: one per map */
    uint64_t *offsets;        /* owned: where each data frame starts */
    char *path;               /* owned: the name messages give (f.path, the
                                 cursors' too), kept past the caller's string */
};

/* ---- the header's facts ------------------------------------------------- */

/* An array of numbers of any length (malloc'd into *out; NULL when empty
 * or not such an array: left out, as GDAL leaves bad tags). -1 when out of
 * memory. */
static int doubles_alloc(const cJSON *v, double **out, int *count)
{
    int cap = cJSON_GetArraySize(v);
    *out = NULL;
    *count = 0;
    if (cap <= 0)
        return 0;
    double *d = malloc(sizeof *d * (size_t)cap);
    if (d == NULL)
        return -1;
    if (!winent_json_get_doubles(v, d, cap, count) || *count == 0) {
        free(d);
        *count = 0;
        return 0;
    }
    *out = d;
    return 0;
}

/* The "georef" object back into GeoTIFF tags; malformed members are left
 * out. -1 when out of memory. */
static int read_georef(const cJSON *obj, winent_georef *g)
{
    const cJSON *v;
    int count;
    double *d = NULL;
    if (winent_json_get_doubles(winent_json_get(obj, "pixel_scale"), g->scale, 3, &count) &&
        count == 3)
        g->n_scale = 3;
    if (winent_json_get_doubles(winent_json_get(obj, "transform"), g->transform, 16, &count) &&
        count == 16)
        g->n_transform = 16;
    if ((v = winent_json_get(obj, "tiepoints")) != NULL) {
        if (doubles_alloc(v, &d, &count) != 0)
            return -1;
        if (count > 0 && count % 6 == 0) {
            g->tiepoints = d;
            g->n_tiepoints = count;
        } else {
            free(d);
        }
    }
    if ((v = winent_json_get(obj, "geodoubles")) != NULL) {
        if (doubles_alloc(v, &d, &count) != 0)
            return -1;
        g->geodoubles = d;
        g->n_geodoubles = count;
    }
    if ((v = winent_json_get(obj, "geokeys")) != NULL) {
        if (doubles_alloc(v, &d, &count) != 0)
            return -1;
        int ok = count >= 4;
        for (int i = 0; i < count && ok; i++)
            ok = d[i] >= 0 && d[i] <= 65535 && d[i] == (double)(uint16_t)d[i];
        if (ok && (g->geokeys = malloc(sizeof *g->geokeys * (size_t)count)) == NULL) {
            free(d);
            return -1;
        }
        for (int i = 0; i < count && ok; i++)
            g->geokeys[i] = (uint16_t)d[i];
        g->n_geokeys = ok ? count : 0;
        free(d);
    }
    v = winent_json_get(obj, "geoascii");
    if (cJSON_IsString(v) && (g->geoascii = strdup(v->valuestring)) == NULL)
        return -1;
    return 0;
}

/* The measure a header names ("measure": winent_measure_text's words,
 * "majority", "renyi:2", "glcm-contrast:d2:a0+90:asym") into `c`; left as
 * it is (the entropy) when absent or unknown. It decides what a decoded
 * map is called and how its overviews are made (a class map's: the mode). */
static void read_measure(const cJSON *v, winent_compute_opts *c)
{
    char name[64];
    winent_measure m;
    double q;
    if (!cJSON_IsString(v) || snprintf(name, sizeof name, "%s", v->valuestring) >= (int)sizeof name)
        return;
    /* The text leaves out what is the default: reset it. */
    c->renyi_q = 0.0;
    c->glcm_distance = 0;
    c->glcm_angles = 0;
    c->glcm_asymmetric = 0;
    if (winent_measure_parse(name, &m, &q, NULL) == WINENT_OK) {
        c->measure = m;
        c->renyi_q = q;
        return;
    }
    char *opts = strchr(name, ':'), *save = NULL;
    if (opts == NULL)
        return;
    *opts++ = '\0';
    if (winent_measure_parse(name, &m, &q, NULL) != WINENT_OK || !winent_measure_is_glcm(m))
        return;
    c->measure = m;
    for (char *t = strtok_r(opts, ":", &save); t; t = strtok_r(NULL, ":", &save)) {
        if (strcmp(t, "asym") == 0) {
            c->glcm_asymmetric = 1;
        } else if (t[0] == 'd') {
            c->glcm_distance = atoi(t + 1);
        } else if (t[0] == 'a') {
            c->glcm_angles = 0;
            for (char *a = t + 1; *a;) {
                long deg = strtol(a, &a, 10);
                if (deg % 45 == 0 && deg >= 0 && deg <= 135)
                    c->glcm_angles |= 1u << (deg / 45);
                a += *a == '+';
                if (*a && (*a < '0' || *a > '9'))
                    break;
            }
        }
    }
}

/* Each map's band, window, range and nodata ("maps"; the file's own
 * facts for a file of one map). */
static winent_status read_maps(winent_zst_reader *r)
{
    winent_zst_map *m = &r->map;
    const cJSON *list = winent_json_get(r->l.root, "maps");
    double d[2];
    long long k;
    int count;
    if ((m->maps = calloc((size_t)(unsigned)m->nmaps, sizeof *m->maps)) == NULL)
        return winent_zst_oom(&r->f);
    m->maps[0].source_band = m->source_band;
    m->maps[0].compute = m->compute;
    if (m->nmaps == 1 || list == NULL)
        return WINENT_OK;
    for (int i = 0; i < m->nmaps; i++) {
        winent_zst_map_entry *e = &m->maps[i];
        const cJSON *item = cJSON_GetArrayItem(list, i);
        if (!cJSON_IsObject(item))
            return winent_zst_bad(&r->f, "the header's list of maps is not a list of maps");
        e->compute = m->compute;
        read_measure(winent_json_get(item, "measure"), &e->compute);
        e->source_band = 0;
        if (winent_json_get_integer(winent_json_get(item, "band"), 1, 65535, &k))
            e->source_band = (int)k;
        if (winent_json_get_doubles(winent_json_get(item, "window"), d, 2, &count) && count == 2 &&
            d[0] >= 1 && d[0] <= 255 && d[1] >= 1 && d[1] <= 255) {
            e->compute.kx = (int)d[0];
            e->compute.ky = (int)d[1];
        }
        e->compute.disk = winent_json_get_integer(winent_json_get(item, "disk"), 0, 127, &k) &&
                          e->compute.kx == 2 * k + 1 && e->compute.ky == e->compute.kx;
        if (winent_json_get_doubles(winent_json_get(item, "range"), d, 2, &count) && count == 2) {
            e->compute.range_lo = d[0];
            e->compute.range_hi = d[1];
        }
        e->compute.has_nodata = 0;
        if (winent_json_get_double(winent_json_get(item, "nodata"), &d[0])) {
            e->compute.has_nodata = d[0] == d[0];
            e->compute.nodata = d[0];
        }
    }
    return WINENT_OK;
}

static winent_status read_map_facts(winent_zst_reader *r)
{
    winent_zst_layout *l = &r->l;
    winent_zst_map *m = &r->map;
    const cJSON *v;
    double d[2];
    long long k;
    int count;
    m->width = (int)l->h.width;
    m->height = (int)l->h.height;
    m->rows_per_frame = (int)l->h.rows_per_frame;
    m->nmaps = (int)l->h.maps;
    m->frames = (int)(l->h.frames / l->h.maps);
    /* The members' types and ranges are the schema's (zst_schema.c),
     * checked at open: here they are only taken. */
    winent_out_type ot = WINENT_OT_FLOAT32;
    if ((v = winent_json_get(l->root, "dtype")) != NULL && cJSON_IsString(v))
        winent_out_type_parse(v->valuestring, &ot);
    winent_out_sample_init(&m->sample, ot, 0.0);
    if (m->sample.is_int) {
        winent_json_get_double(winent_json_get(l->root, "scale"), &m->sample.scale);
        if (winent_json_get_double(winent_json_get(l->root, "offset"), &d[0]))
            m->sample.offset = d[0];
    }

    winent_compute_opts *c = &m->compute;
    winent_compute_opts_default(c);
    if (winent_json_get_doubles(winent_json_get(l->root, "window"), d, 2, &count) && count == 2 &&
        d[0] >= 1 && d[0] <= 255 && d[1] >= 1 && d[1] <= 255) {
        c->kx = (int)d[0];
        c->ky = (int)d[1];
    }
    c->disk = winent_json_get_integer(winent_json_get(l->root, "disk"), 0, 127, &k) &&
              c->kx == 2 * k + 1 && c->ky == c->kx;
    read_measure(winent_json_get(l->root, "measure"), c);
    if ((v = winent_json_get(l->root, "base")) != NULL)
        c->base = winent_json_is_text(v, "2")    ? WINENT_BASE_2
                  : winent_json_is_text(v, "10") ? WINENT_BASE_10
                                                 : WINENT_BASE_E;
    if (winent_json_get_integer(winent_json_get(l->root, "bins"), 1, 4294967295LL, &k))
        c->bins = (uint32_t)k;
    if (winent_json_get_doubles(winent_json_get(l->root, "range"), d, 2, &count) && count == 2) {
        c->range_lo = d[0];
        c->range_hi = d[1];
    }
    if (winent_json_get_double(winent_json_get(l->root, "nodata"), &d[0])) {
        c->has_nodata = d[0] == d[0];
        c->nodata = d[0];
    }
    if ((v = winent_json_get(l->root, "source_dtype")) != NULL)
        for (int t = 0; t < WINENT_DTYPE_COUNT; t++)
            if (winent_json_is_text(v, winent_dtype_name((winent_dtype)t)))
                c->dtype = (winent_dtype)t;
    m->nodata_in_play =
        winent_json_is_text(winent_json_get(l->root, "output_nodata"), "NaN") ||
        (m->sample.is_int &&
         winent_json_get_integer(winent_json_get(l->root, "output_nodata"), 0, UINT32_MAX, &k) &&
         (uint32_t)k == m->sample.nodata_code);
    if (winent_json_get_integer(winent_json_get(l->root, "source_band"), 1, 65535, &k))
        m->source_band = (int)k;
    v = winent_json_get(l->root, "source");
    if ((m->source = strdup(cJSON_IsString(v) ? v->valuestring : "")) == NULL)
        return winent_zst_oom(&r->f);
    v = winent_json_get(l->root, "command_line");
    if (cJSON_IsString(v) && (m->command_line = strdup(v->valuestring)) == NULL)
        return winent_zst_oom(&r->f);
    v = winent_json_get(l->root, "georef");
    if (cJSON_IsObject(v) && read_georef(v, &m->georef) != 0)
        return winent_zst_oom(&r->f);
    return read_maps(r);
}

/* ---- open ------------------------------------------------------------- */

/* A cursor over frames [first, end) of map `m`, at the first. */
static winent_status cursor_init(const winent_zst_reader *r, zst_cursor *c, int m, uint32_t first,
                                 uint32_t end)
{
    memset(c, 0, sizeof *c);
    c->f = r->f;
    c->f.msg = c->msg;
    c->f.msg_len = sizeof c->msg;
    c->map = m;
    c->dctx = ZSTD_createDCtx();
    c->in_cap = ZSTD_DStreamInSize();
    c->in = malloc(c->in_cap);
    if (c->dctx == NULL || c->in == NULL) {
        snprintf(c->msg, sizeof c->msg, "out of memory");
        return WINENT_ERR_INTERNAL;
    }
    /* The writer's largest frame is 1 GiB, held whole as the window. */
    ZSTD_DCtx_setParameter(c->dctx, ZSTD_d_windowLogMax, 30);
    c->first = c->frame = first;
    c->end = end;
    c->off = r->offsets[first];
    return WINENT_OK;
}

static void cursor_free(zst_cursor *c)
{
    ZSTD_freeDCtx(c->dctx);
    free(c->in);
    c->dctx = NULL;
    c->in = NULL;
}

static winent_status open_file(winent_zst_reader *r, const char *path)
{
    struct stat sb;
    /* O_NONBLOCK: the open of a FIFO would wait for a writer. */
    r->f.fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (r->f.fd < 0) {
        snprintf(r->msg, sizeof r->msg, "%s: cannot open: %s", path, strerror(errno));
        return WINENT_ERR_INPUT;
    }
    if (fstat(r->f.fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        snprintf(r->msg, sizeof r->msg,
                 "%s: a .zst map is read from a regular file (its seek table is at the end), "
                 "not a folder, a pipe or a device",
                 path);
        return WINENT_ERR_INPUT;
    }
    r->f.size = (uint64_t)sb.st_size;
    WINENT_TRY(winent_zst_layout_open(&r->f, &r->l));
    WINENT_TRY(read_map_facts(r));
    const int nmaps = r->map.nmaps;
    r->cur = calloc((size_t)(unsigned)nmaps, sizeof *r->cur);
    if (r->cur == NULL)
        return winent_zst_oom(&r->f);
    const uint32_t nframes = (uint32_t)r->l.h.frames;
    r->offsets = malloc(sizeof *r->offsets * ((size_t)nframes + 1));
    if (r->offsets == NULL)
        return winent_zst_oom(&r->f);
    r->offsets[0] = r->l.header_end;
    for (uint32_t i = 0; i < nframes; i++)
        r->offsets[i + 1] = r->offsets[i] + winent_zst_get32(r->l.table + WINENT_ZST_SKIP_HEADER +
                                                             (size_t)(i + 1) * WINENT_ZST_ENTRY);
    for (int m = 0; m < nmaps; m++)
        if (cursor_init(r, &r->cur[m], m, (uint32_t)m * (uint32_t)r->map.frames,
                        (uint32_t)(m + 1) * (uint32_t)r->map.frames) != WINENT_OK)
            return winent_zst_oom(&r->f);
    return WINENT_OK;
}

winent_status winent_zst_reader_open(const char *path, winent_zst_reader **out, winent_err *err)
{
    *out = NULL;
    winent_zst_reader *r = calloc(1, sizeof *r);
    if (r == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    r->f.fd = -1;
    r->f.path = r->path = strdup(path);
    if (r->path == NULL) {
        free(r);
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    }
    r->f.msg = r->msg;
    r->f.msg_len = sizeof r->msg;
    winent_status st = open_file(r, path);
    if (st != WINENT_OK) {
        WINENT_ERR(err, st, "%s", r->msg);
        winent_zst_reader_free(r);
        return st;
    }
    *out = r;
    return WINENT_OK;
}

const winent_zst_map *winent_zst_reader_map(const winent_zst_reader *r)
{
    return &r->map;
}

uint64_t winent_zst_reader_bytes_read(const winent_zst_reader *r)
{
    uint64_t n = 0;
    for (int m = 0; m < r->map.nmaps; m++)
        n += r->cur[m].bytes_in;
    return n;
}

void winent_zst_reader_free(winent_zst_reader *r)
{
    if (r == NULL)
        return;
    if (r->f.fd >= 0)
        close(r->f.fd);
    for (int m = 0; r->cur && m < r->map.nmaps; m++)
        cursor_free(&r->cur[m]);
    free(r->cur);
    free(r->offsets);
    free(r->path);
    free(r->map.maps);
    winent_zst_layout_free(&r->l);
    free(r->map.source);
    free(r->map.command_line);
    winent_georef_clear(&r->map.georef);
    free(r);
}

/* ---- rows ------------------------------------------------------------- */

static const uint8_t *entry(const winent_zst_reader *r, uint32_t frame)
{
    return r->l.table + WINENT_ZST_SKIP_HEADER + (size_t)(frame + 1) * WINENT_ZST_ENTRY;
}

/* "PATH: frame I (rows A-B[ of map M]) at byte OFF: WHY" as --info --check
 * says it: I the frame within its map and M the map, counted from 0 as
 * rows are and as winent_zst_read_frame's caller counts them. */
static winent_status frame_bad(const winent_zst_reader *r, const zst_cursor *c, winent_err *err,
                               const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static winent_status frame_bad(const winent_zst_reader *r, const zst_cursor *c, winent_err *err,
                               const char *fmt, ...)
{
    char why[256], of_map[32] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    const long long in_map = (long long)(c->frame - (uint32_t)c->map * (uint32_t)r->map.frames);
    long long y0 = in_map * r->map.rows_per_frame;
    long long y1 = y0 + r->map.rows_per_frame;
    if (y1 > r->map.height)
        y1 = r->map.height;
    if (r->map.nmaps > 1)
        snprintf(of_map, sizeof of_map, " of map %d", c->map);
    return WINENT_ERR(err, WINENT_ERR_INPUT, "%s: frame %lld (rows %lld-%lld%s) at byte %llu: %s",
                      r->f.path, in_map, y0, y1 - 1, of_map, (unsigned long long)c->off, why);
}

/* Decompress from the cursor's current frame into [dst, dst + cap):
 * *made bytes. Ends the frame (its checksum verified by zstd, its sizes
 * and checksum held against the seek table) when zstd says it is whole. */
static winent_status pull(const winent_zst_reader *r, zst_cursor *c, uint8_t *dst, size_t cap,
                          size_t *made, winent_err *err)
{
    const uint8_t *e = entry(r, c->frame);
    const uint64_t csize = winent_zst_get32(e), end = c->off + csize;
    ZSTD_outBuffer ob = {dst, cap, 0};
    *made = 0;
    for (;;) {
        if (c->ib.pos == c->ib.size && c->pos < end) {
            size_t k = end - c->pos < c->in_cap ? (size_t)(end - c->pos) : c->in_cap;
            winent_status st = winent_zst_read_at(&c->f, c->in, k, c->pos);
            if (st != WINENT_OK)
                return WINENT_ERR(err, st, "%s", c->msg);
            c->pos += k;
            c->bytes_in += k;
            c->ib.src = c->in;
            c->ib.size = k;
            c->ib.pos = 0;
        }
        size_t before = ob.pos;
        size_t ret = ZSTD_decompressStream(c->dctx, &ob, &c->ib);
        if (ZSTD_isError(ret))
            return frame_bad(r, c, err, "%s",
                             ZSTD_getErrorCode(ret) == ZSTD_error_checksum_wrong
                                 ? "checksum mismatch"
                                 : ZSTD_getErrorName(ret));
        if (ob.pos - before > c->left)
            return frame_bad(r, c, err, "holds more than the %u bytes the seek table says",
                             winent_zst_get32(e + 4));
        c->left -= ob.pos - before;
        if (ret == 0) {
            /* Whole: it must end where the table says, with its checksum. */
            uint8_t b4[4];
            if (c->left != 0)
                return frame_bad(r, c, err, "holds fewer bytes than the seek table says");
            if (c->ib.pos != c->ib.size || c->pos != end)
                return frame_bad(r, c, err, "ends before the %llu bytes the seek table gives it",
                                 (unsigned long long)csize);
            winent_status st = winent_zst_read_at(&c->f, b4, 4, end - 4);
            if (st != WINENT_OK)
                return WINENT_ERR(err, st, "%s", c->msg);
            if (winent_zst_get32(b4) != winent_zst_get32(e + 8))
                return frame_bad(r, c, err,
                                 "the seek table's checksum %08x is not the frame's %08x",
                                 winent_zst_get32(e + 8), winent_zst_get32(b4));
            c->in_frame = 0;
            c->off = end;
            c->frame++;
            break;
        }
        if (ob.pos == ob.size)
            break; /* the caller's rows are full: the frame goes on next time */
        if (c->ib.pos == c->ib.size && c->pos >= end)
            return frame_bad(r, c, err,
                             "truncated: it needs more than the %llu bytes the seek table gives "
                             "it",
                             (unsigned long long)csize);
    }
    *made = ob.pos;
    return WINENT_OK;
}

/* The current frame has delivered all its bytes: read on to its end (the
 * checksum after the last byte), which must add nothing. */
static winent_status close_frame(const winent_zst_reader *r, zst_cursor *c, winent_err *err)
{
    uint8_t spare[64];
    size_t made;
    while (c->in_frame) {
        WINENT_TRY(pull(r, c, spare, sizeof spare, &made, err));
        if (made > 0)
            return frame_bad(r, c, err, "holds more than the seek table says");
    }
    return WINENT_OK;
}

/* The next `need` bytes of the cursor's frames into `d`. */
static winent_status cursor_read(const winent_zst_reader *r, zst_cursor *c, uint8_t *d, size_t need,
                                 winent_err *err)
{
    while (need > 0) {
        if (!c->in_frame) {
            if (c->frame >= c->end)
                return WINENT_ERR(err, WINENT_ERR_INTERNAL, "%s: read past the last frame",
                                  r->f.path);
            uint64_t csize = winent_zst_get32(entry(r, c->frame));
            if (csize > c->in_cap && csize <= WHOLE_FRAME_MAX) {
                uint8_t *bigger = realloc(c->in, (size_t)csize);
                if (bigger == NULL)
                    return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
                c->in = bigger;
                c->in_cap = (size_t)csize;
            }
            ZSTD_DCtx_reset(c->dctx, ZSTD_reset_session_only);
            c->in_frame = 1;
            c->pos = c->off;
            c->left = winent_zst_get32(entry(r, c->frame) + 4);
            c->ib.size = c->ib.pos = 0;
        }
        if (c->left == 0) {
            WINENT_TRY(close_frame(r, c, err));
            continue;
        }
        size_t made, cap = need < c->left ? need : (size_t)c->left;
        WINENT_TRY(pull(r, c, d, cap, &made, err));
        d += made;
        need -= made;
    }
    /* A frame whose last row was just delivered is checked now, not with
     * the next call (there is none after the last rows). */
    if (c->in_frame && c->left == 0)
        WINENT_TRY(close_frame(r, c, err));
    return WINENT_OK;
}

/* The next `count` samples of the cursor's frames into `dst` as floats.
 * Samples narrower than a float (--ot) are decompressed into the end of
 * `dst` and widened from the front, each read before its bytes are
 * overwritten. */
static winent_status cursor_read_samples(const winent_zst_reader *r, zst_cursor *c, size_t count,
                                         float *dst, winent_err *err)
{
    const size_t bytes = (size_t)r->map.sample.bytes;
    uint8_t *const start = (uint8_t *)dst + count * (4 - bytes);
    WINENT_TRY(cursor_read(r, c, start, count * bytes, err));
    if (r->map.sample.type != WINENT_OT_FLOAT32)
        winent_out_decode(&r->map.sample, start, count, dst);
    return WINENT_OK;
}

winent_status winent_zst_reader_read_map(winent_zst_reader *r, int map, int rows, float *dst,
                                         winent_err *err)
{
    if (map < 0 || map >= r->map.nmaps)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "%s: no map %d", r->f.path, map);
    return cursor_read_samples(r, &r->cur[map], (size_t)rows * (size_t)r->map.width, dst, err);
}

winent_status winent_zst_reader_read_frame(const winent_zst_reader *r, int map, int64_t frame,
                                           float *dst, winent_err *err)
{
    if (map < 0 || map >= r->map.nmaps || frame < 0 || frame >= r->map.frames)
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "%s: no frame %lld of map %d (maps 0-%d, frames 0-%d of each)",
                          r->f.path, (long long)frame, map, r->map.nmaps - 1,
                          r->map.frames - 1);
    const uint32_t first = (uint32_t)map * (uint32_t)r->map.frames + (uint32_t)frame;
    zst_cursor c;
    winent_status st = cursor_init(r, &c, map, first, first + 1);
    if (st != WINENT_OK)
        st = WINENT_ERR(err, st, "%s", c.msg);
    else
        st = cursor_read_samples(r, &c,
                                 winent_zst_get32(entry(r, first) + 4) / (size_t)r->map.sample.bytes,
                                 dst, err);
    cursor_free(&c);
    return st;
}

winent_status winent_zst_reader_read(winent_zst_reader *r, int rows, float *dst, winent_err *err)
{
    return winent_zst_reader_read_map(r, 0, rows, dst, err);
}

/* ---- the public reader (winent.h): what the Python package reads with -- */

struct winent_zst {
    winent_zst_reader *r; /* owned */
};

winent_status winent_zst_open(const char *path, winent_zst **out, winent_error *err)
{
    winent_err e;
    winent_err_clear(&e);
    winent_status st = WINENT_OK;
    if (out == NULL)
        return winent_err_null(err, "winent_zst_open", "out");
    *out = NULL;
    if (path == NULL)
        return winent_err_null(err, "winent_zst_open", "path");
    winent_zst *z = calloc(1, sizeof *z);
    if (z == NULL)
        st = WINENT_ERR(&e, WINENT_ERR_INTERNAL, "out of memory");
    else
        st = winent_zst_reader_open(path, &z->r, &e);
    if (st != WINENT_OK)
        free(z);
    else
        *out = z;
    return winent_err_export(&e, st, err);
}

const char *winent_zst_header(const winent_zst *z)
{
    return z ? z->r->l.json : "";
}

winent_status winent_zst_read_frame(const winent_zst *z, int map, int64_t frame, float *dst,
                                    winent_error *err)
{
    if (z == NULL)
        return winent_err_null(err, "winent_zst_read_frame", "z");
    if (dst == NULL)
        return winent_err_null(err, "winent_zst_read_frame", "dst");
    winent_err e;
    winent_err_clear(&e);
    return winent_err_export(&e, winent_zst_reader_read_frame(z->r, map, frame, dst, &e), err);
}

void winent_zst_close(winent_zst *z)
{
    if (z == NULL)
        return;
    winent_zst_reader_free(z->r);
    free(z);
}
