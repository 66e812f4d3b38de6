/* A .zst map read back row by row (--decode): the layout checked at open
 * (zst_layout.h), then every frame decompressed in file order into the
 * caller's rows and held against its seek table entry. */
#include "zst_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "zst_format.h"
#include "zst_layout.h"

/* A frame's compressed bytes up to this size are read whole (the seek
 * table gives the size): zstd then decodes it straight into the caller's
 * rows when they have room for all of it, with no copy through its window
 * buffer. Larger frames (not made by default) stream through the
 * buffer. */
#define WHOLE_FRAME_MAX ((size_t)64 << 20)

struct winent_zst_reader {
    winent_zst_file f;
    char msg[WINENT_MSG_LEN]; /* f.msg points here */
    winent_zst_layout l;      /* owned */
    winent_zst_map map;       /* owned strings and tags */
    ZSTD_DCtx *dctx;          /* owned */
    uint8_t *in;              /* owned: compressed bytes of the current frame */
    size_t in_cap;
    ZSTD_inBuffer ib;  /* over `in` */
    uint32_t frame;    /* the current data frame */
    uint64_t off;      /* where it starts in the file */
    uint64_t pos;      /* the next byte of it to read */
    uint64_t left;     /* its decompressed bytes not delivered yet */
    int in_frame;      /* a frame has been started and not finished */
    uint64_t bytes_in; /* compressed bytes read */
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
    m->frames = (int)l->h.frames;
    /* The map itself: float32, little-endian, or it is not what we wrote. */
    if ((v = winent_json_get(l->root, "dtype")) != NULL && !winent_json_is_text(v, "float32"))
        return winent_zst_bad(&r->f, "the map is not float32");
    if ((v = winent_json_get(l->root, "byteorder")) != NULL && !winent_json_is_text(v, "little"))
        return winent_zst_bad(&r->f, "the map is not little-endian");

    winent_compute_opts *c = &m->compute;
    winent_compute_opts_default(c);
    if (winent_json_get_doubles(winent_json_get(l->root, "window"), d, 2, &count) && count == 2 &&
        d[0] >= 1 && d[0] <= 255 && d[1] >= 1 && d[1] <= 255) {
        c->kx = (int)d[0];
        c->ky = (int)d[1];
    }
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
    m->nodata_in_play = winent_json_is_text(winent_json_get(l->root, "output_nodata"), "NaN");
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
    return WINENT_OK;
}

/* ---- open ------------------------------------------------------------- */

static winent_status open_file(winent_zst_reader *r, const char *path)
{
    struct stat sb;
    r->f.fd = open(path, O_RDONLY);
    if (r->f.fd < 0) {
        snprintf(r->msg, sizeof r->msg, "%s: cannot open: %s", path, strerror(errno));
        return WINENT_ERR_INPUT;
    }
    if (fstat(r->f.fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        snprintf(r->msg, sizeof r->msg,
                 "%s: --decode needs a regular file (its seek table is at the end)", path);
        return WINENT_ERR_INPUT;
    }
    r->f.size = (uint64_t)sb.st_size;
    WINENT_TRY(winent_zst_read_header(&r->f, &r->l));
    WINENT_TRY(winent_zst_read_table(&r->f, &r->l));
    uint64_t csum, dsum;
    WINENT_TRY(winent_zst_check_frames(&r->f, &r->l.h, (uint32_t)r->l.header_end,
                                       r->l.table + WINENT_ZST_SKIP_HEADER, r->l.nentries, &csum,
                                       &dsum));
    if (r->l.header_end + csum + r->l.tsize != r->f.size)
        return winent_zst_bad(&r->f, "the frames and the file size disagree");
    WINENT_TRY(read_map_facts(r));
    r->dctx = ZSTD_createDCtx();
    r->in_cap = ZSTD_DStreamInSize();
    r->in = malloc(r->in_cap);
    if (r->dctx == NULL || r->in == NULL)
        return winent_zst_oom(&r->f);
    /* The writer's largest frame is 1 GiB, held whole as the window. */
    ZSTD_DCtx_setParameter(r->dctx, ZSTD_d_windowLogMax, 30);
    r->off = r->l.header_end;
    return WINENT_OK;
}

winent_status winent_zst_reader_open(const char *path, winent_zst_reader **out, winent_err *err)
{
    *out = NULL;
    winent_zst_reader *r = calloc(1, sizeof *r);
    if (r == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    r->f.fd = -1;
    r->f.path = path;
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
    return r->bytes_in;
}

void winent_zst_reader_free(winent_zst_reader *r)
{
    if (r == NULL)
        return;
    if (r->f.fd >= 0)
        close(r->f.fd);
    ZSTD_freeDCtx(r->dctx);
    free(r->in);
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

/* "PATH: frame I (rows A-B) at byte OFF: WHY" as --info --check says it. */
static winent_status frame_bad(winent_zst_reader *r, winent_err *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static winent_status frame_bad(winent_zst_reader *r, winent_err *err, const char *fmt, ...)
{
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    long long y0 = (long long)r->frame * r->map.rows_per_frame;
    long long y1 = y0 + r->map.rows_per_frame;
    if (y1 > r->map.height)
        y1 = r->map.height;
    return WINENT_ERR(err, WINENT_ERR_INPUT, "%s: frame %u (rows %lld-%lld) at byte %llu: %s",
                      r->f.path, r->frame, y0, y1 - 1, (unsigned long long)r->off, why);
}

/* Decompress from the current frame into [dst, dst + cap): *made bytes.
 * Ends the frame (its checksum verified by zstd, its sizes and checksum
 * held against the seek table) when zstd says it is whole. */
static winent_status pull(winent_zst_reader *r, uint8_t *dst, size_t cap, size_t *made,
                          winent_err *err)
{
    const uint8_t *e = entry(r, r->frame);
    const uint64_t csize = winent_zst_get32(e), end = r->off + csize;
    ZSTD_outBuffer ob = {dst, cap, 0};
    *made = 0;
    for (;;) {
        if (r->ib.pos == r->ib.size && r->pos < end) {
            size_t k = end - r->pos < r->in_cap ? (size_t)(end - r->pos) : r->in_cap;
            winent_status st = winent_zst_read_at(&r->f, r->in, k, r->pos);
            if (st != WINENT_OK)
                return WINENT_ERR(err, st, "%s", r->msg);
            r->pos += k;
            r->bytes_in += k;
            r->ib.src = r->in;
            r->ib.size = k;
            r->ib.pos = 0;
        }
        size_t before = ob.pos;
        size_t ret = ZSTD_decompressStream(r->dctx, &ob, &r->ib);
        if (ZSTD_isError(ret))
            return frame_bad(r, err, "%s",
                             ZSTD_getErrorCode(ret) == ZSTD_error_checksum_wrong
                                 ? "checksum mismatch"
                                 : ZSTD_getErrorName(ret));
        if (ob.pos - before > r->left)
            return frame_bad(r, err, "holds more than the %u bytes the seek table says",
                             winent_zst_get32(e + 4));
        r->left -= ob.pos - before;
        if (ret == 0) {
            /* Whole: it must end where the table says, with its checksum. */
            uint8_t b4[4];
            if (r->left != 0)
                return frame_bad(r, err, "holds fewer bytes than the seek table says");
            if (r->ib.pos != r->ib.size || r->pos != end)
                return frame_bad(r, err, "ends before the %llu bytes the seek table gives it",
                                 (unsigned long long)csize);
            winent_status st = winent_zst_read_at(&r->f, b4, 4, end - 4);
            if (st != WINENT_OK)
                return WINENT_ERR(err, st, "%s", r->msg);
            if (winent_zst_get32(b4) != winent_zst_get32(e + 8))
                return frame_bad(r, err, "the seek table's checksum %08x is not the frame's %08x",
                                 winent_zst_get32(e + 8), winent_zst_get32(b4));
            r->in_frame = 0;
            r->off = end;
            r->frame++;
            break;
        }
        if (ob.pos == ob.size)
            break; /* the caller's rows are full: the frame goes on next time */
        if (r->ib.pos == r->ib.size && r->pos >= end)
            return frame_bad(r, err, "truncated: it needs more than the %llu bytes the seek "
                                     "table gives it",
                             (unsigned long long)csize);
    }
    *made = ob.pos;
    return WINENT_OK;
}

/* The current frame has delivered all its bytes: read on to its end (the
 * checksum after the last byte), which must add nothing. */
static winent_status close_frame(winent_zst_reader *r, winent_err *err)
{
    uint8_t spare[64];
    size_t made;
    while (r->in_frame) {
        WINENT_TRY(pull(r, spare, sizeof spare, &made, err));
        if (made > 0)
            return frame_bad(r, err, "holds more than the seek table says");
    }
    return WINENT_OK;
}

winent_status winent_zst_reader_read(winent_zst_reader *r, int rows, float *dst, winent_err *err)
{
    uint8_t *d = (uint8_t *)dst;
    size_t need = (size_t)rows * (size_t)r->map.width * 4;
    while (need > 0) {
        if (!r->in_frame) {
            if (r->frame >= (uint32_t)r->map.frames)
                return WINENT_ERR(err, WINENT_ERR_INTERNAL, "%s: read past the last frame",
                                  r->f.path);
            uint64_t csize = winent_zst_get32(entry(r, r->frame));
            if (csize > r->in_cap && csize <= WHOLE_FRAME_MAX) {
                uint8_t *bigger = realloc(r->in, (size_t)csize);
                if (bigger == NULL)
                    return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
                r->in = bigger;
                r->in_cap = (size_t)csize;
            }
            ZSTD_DCtx_reset(r->dctx, ZSTD_reset_session_only);
            r->in_frame = 1;
            r->pos = r->off;
            r->left = winent_zst_get32(entry(r, r->frame) + 4);
            r->ib.size = r->ib.pos = 0;
        }
        if (r->left == 0) {
            WINENT_TRY(close_frame(r, err));
            continue;
        }
        size_t made, cap = need < r->left ? need : (size_t)r->left;
        WINENT_TRY(pull(r, d, cap, &made, err));
        d += made;
        need -= made;
    }
    /* A frame whose last row was just delivered is checked now, not with
     * the next call (there is none after the last rows). */
    if (r->in_frame && r->left == 0)
        WINENT_TRY(close_frame(r, err));
    return WINENT_OK;
}
