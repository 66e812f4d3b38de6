/* SPDX-License-Identifier: BSD-3-Clause */
/* Tile compression for the GeoTIFF sink: the samples of --ot (horizontal
 * differencing for uint8, and for uint16 of windows of 81 pixels or more;
 * no predictor otherwise), then zstd, deflate
 * or an LZW coder of our own (TIFF 6.0 section 13, with libtiff's
 * code-width timing so that every TIFF reader decodes it). Deflate goes
 * through libdeflate where the build has it: the same zlib streams, 2.5x
 * faster than zlib at the same level and never larger; through zlib
 * otherwise. */
#include "tile_codec.h"

#include <stdlib.h>
#include <string.h>

#include <tiff.h>
#include <zlib.h>
#include <zstd.h>
#ifdef WINENT_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

struct winent_tile_codec {
    winent_compress kind;
    int level;
    int side;
    winent_out_sample q; /* the samples written */
    int predictor;       /* TIFF Predictor: PREDICTOR_NONE or PREDICTOR_HORIZONTAL */
    size_t raw_bytes;    /* side * side * q.bytes */
    uint8_t *typed;      /* owned: the tile in q's samples, predicted (not for float32) */
    ZSTD_CCtx *zstd;  /* owned, zstd only */
#ifdef WINENT_HAVE_LIBDEFLATE
    struct libdeflate_compressor *ld; /* owned, deflate only */
#else
    z_stream zs; /* deflate only */
    int zs_ready;
#endif
};

int winent_tile_codec_tiff_compression(winent_compress c)
{
    switch (c) {
    case WINENT_COMPRESS_ZSTD: return COMPRESSION_ZSTD;
    case WINENT_COMPRESS_DEFLATE: return COMPRESSION_ADOBE_DEFLATE;
    case WINENT_COMPRESS_LZW: return COMPRESSION_LZW;
    default: return COMPRESSION_NONE;
    }
}

int winent_tile_codec_tiff_predictor(winent_compress c, winent_out_type t, int window_pixels)
{
    /* Measured on real maps (docs/PERFORMANCE.md, "Output sizes"): an
     * entropy map of a small window holds few distinct values, which zstd,
     * deflate and LZW find repeated as they are; the floating-point
     * predictor's byte planes of differences hide them (float32 tiles 1.8
     * to 2.1 times larger with it at every zstd level, float16 larger at
     * all but zstd 1). uint8 codes gain from horizontal differencing
     * (camera -20 %, geoid -16 %; the DEM +2 %). uint16 codes keep more of
     * the map's values: horizontal differencing makes 5 x 5 maps larger
     * (camera, geoid, a DEM with 16 bins, a Landsat band: +0 to +27 % with
     * zstd 3, +7 to +40 % deflate, +19 to +57 % LZW), 7 x 7 maps about even
     * (-9 to +22 %), and from 9 x 9 (81 pixels) on smaller with every codec
     * (9 x 9: -5 to -14 % zstd 3, one LZW map +1 %; 31 x 31: -18 to -35 %),
     * as more distinct values make a smoother surface. */
    if (c == WINENT_COMPRESS_NONE)
        return PREDICTOR_NONE;
    if (t == WINENT_OT_UINT8 || (t == WINENT_OT_UINT16 && window_pixels >= 81))
        return PREDICTOR_HORIZONTAL;
    return PREDICTOR_NONE;
}

int winent_tile_codec_tiff_bits(winent_out_type t)
{
    return t == WINENT_OT_UINT8 ? 8 : t == WINENT_OT_FLOAT32 ? 32 : 16;
}

int winent_tile_codec_tiff_sample_format(winent_out_type t)
{
    return t == WINENT_OT_UINT16 || t == WINENT_OT_UINT8 ? SAMPLEFORMAT_UINT : SAMPLEFORMAT_IEEEFP;
}

uint64_t winent_tile_codec_bound(winent_compress c, uint64_t n)
{
    switch (c) {
    case WINENT_COMPRESS_ZSTD: return n + n / 128 + 1024;
    case WINENT_COMPRESS_DEFLATE: return n + n / 1000 + 1024;
    /* At most one 12-bit code per byte, plus a clear code every 3836 codes. */
    case WINENT_COMPRESS_LZW: return n + n / 2 + n / 1000 + 64;
    default: return n;
    }
}

void winent_hdiff_predict(uint8_t *buf, int width, int rows, int bps)
{
    size_t w = (size_t)width;
    for (int r = 0; r < rows; r++) {
        if (bps == 1) {
            uint8_t *d = buf + (size_t)r * w;
            for (size_t i = w - 1; i > 0; i--)
                d[i] = (uint8_t)(d[i] - d[i - 1]);
        } else {
            uint8_t *d = buf + (size_t)r * w * 2;
            for (size_t i = w - 1; i > 0; i--) {
                unsigned v = (unsigned)(d[2 * i] | d[2 * i + 1] << 8) -
                             (unsigned)(d[2 * i - 2] | d[2 * i - 1] << 8);
                d[2 * i] = (uint8_t)v;
                d[2 * i + 1] = (uint8_t)(v >> 8);
            }
        }
    }
}

/* ---- LZW ----------------------------------------------------------------- */

#define LZW_CLEAR 256
#define LZW_EOI   257
#define LZW_FIRST 258
#define LZW_FULL  4094 /* reset the table once this many entries exist */
#define LZW_HASH  8192 /* open addressing, power of two, > 2 x 4096 */

typedef struct lzw_bits {
    uint8_t *out;
    size_t pos;
    uint64_t acc;
    int nacc;
} lzw_bits;

static void put_code(lzw_bits *b, unsigned code, int nbits)
{
    b->acc = (b->acc << nbits) | code;
    b->nacc += nbits;
    while (b->nacc >= 8) {
        b->nacc -= 8;
        b->out[b->pos++] = (uint8_t)(b->acc >> b->nacc);
    }
}

size_t winent_lzw_encode(const uint8_t *src, size_t n, uint8_t *dst)
{
    /* Slot keys: prefix code << 8 | next byte; a slot is live when its
     * stamp equals the current generation, so a reset costs nothing. */
    static _Thread_local uint32_t key[LZW_HASH], stamp[LZW_HASH];
    static _Thread_local uint16_t val[LZW_HASH];
    static _Thread_local uint32_t gen;
    lzw_bits b = {dst, 0, 0, 0};
    int nbits = 9;
    unsigned next = LZW_FIRST;
    put_code(&b, LZW_CLEAR, nbits);
    if (n == 0) {
        put_code(&b, LZW_EOI, nbits);
        goto flush;
    }
    gen++;
    unsigned prefix = src[0];
    for (size_t i = 1; i < n; i++) {
        unsigned c = src[i];
        uint32_t k = (uint32_t)prefix << 8 | c;
        uint32_t h = (k * 2654435761u) >> 19; /* 13 bits */
        for (;;) {
            if (stamp[h] != gen)
                break;
            if (key[h] == k)
                break;
            h = (h + 1) & (LZW_HASH - 1);
        }
        if (stamp[h] == gen) {
            prefix = val[h];
            continue;
        }
        put_code(&b, prefix, nbits);
        stamp[h] = gen;
        key[h] = k;
        val[h] = (uint16_t)next;
        next++;
        prefix = c;
        if (next == LZW_FULL) {
            put_code(&b, LZW_CLEAR, nbits);
            gen++;
            nbits = 9;
            next = LZW_FIRST;
        } else if (next > (1u << nbits) - 1) {
            nbits++;
        }
    }
    /* The last string; the decoder adds an entry for it too, which may
     * widen the end-of-information code. */
    put_code(&b, prefix, nbits);
    next++;
    if (next == LZW_FULL)
        put_code(&b, LZW_CLEAR, nbits), nbits = 9;
    else if (next > (1u << nbits) - 1)
        nbits++;
    put_code(&b, LZW_EOI, nbits);
flush:
    if (b.nacc > 0)
        b.out[b.pos++] = (uint8_t)(b.acc << (8 - b.nacc));
    return b.pos;
}

/* ---- The codec ------------------------------------------------------------ */

winent_status winent_tile_codec_create(winent_compress c, int level, int side,
                                       const winent_out_sample *q, int window_pixels,
                                       winent_tile_codec **out, winent_err *err)
{
    winent_tile_codec *tc = calloc(1, sizeof *tc);
    *out = NULL;
    if (tc == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    tc->kind = c;
    tc->side = side;
    if (q)
        tc->q = *q;
    else
        winent_out_sample_init(&tc->q, WINENT_OT_FLOAT32, 0.0);
    tc->raw_bytes = (size_t)side * (size_t)side * (size_t)tc->q.bytes;
    tc->predictor = winent_tile_codec_tiff_predictor(c, tc->q.type, window_pixels);
    tc->level = level;
    if (tc->q.type != WINENT_OT_FLOAT32 && (tc->typed = malloc(tc->raw_bytes)) == NULL)
        goto oom;
    if (c == WINENT_COMPRESS_ZSTD) {
        tc->zstd = ZSTD_createCCtx();
        if (tc->zstd == NULL)
            goto oom;
        /* A plain frame: libtiff's ZSTD codec decodes exactly that. */
        ZSTD_CCtx_setParameter(tc->zstd, ZSTD_c_compressionLevel, level);
        ZSTD_CCtx_setParameter(tc->zstd, ZSTD_c_checksumFlag, 0);
    } else if (c == WINENT_COMPRESS_DEFLATE) {
        int zl = level <= 0 ? 6 : level > 9 ? 9 : level;
#ifdef WINENT_HAVE_LIBDEFLATE
        if ((tc->ld = libdeflate_alloc_compressor(zl)) == NULL)
            goto oom;
#else
        if (deflateInit(&tc->zs, zl) != Z_OK)
            goto oom;
        tc->zs_ready = 1;
#endif
    }
    *out = tc;
    return WINENT_OK;
oom:
    winent_tile_codec_free(tc);
    return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
}

void winent_tile_codec_free(winent_tile_codec *tc)
{
    if (tc == NULL)
        return;
#ifdef WINENT_HAVE_LIBDEFLATE
    libdeflate_free_compressor(tc->ld);
#else
    if (tc->zs_ready)
        deflateEnd(&tc->zs);
#endif
    ZSTD_freeCCtx(tc->zstd);
    free(tc->typed);
    free(tc);
}

winent_status winent_tile_codec_encode(winent_tile_codec *tc, const float *tile, winent_bytes *out,
                                       winent_err *err)
{
    size_t n = tc->raw_bytes;
    /* float32: the tile as it is (a little-endian file, host order). */
    const uint8_t *src = (const uint8_t *)tile;
    if (tc->q.type != WINENT_OT_FLOAT32) {
        winent_out_encode(&tc->q, tile, (size_t)tc->side * (size_t)tc->side, tc->typed);
        if (tc->predictor == PREDICTOR_HORIZONTAL)
            winent_hdiff_predict(tc->typed, tc->side, tc->side, tc->q.bytes);
        src = tc->typed;
    }
    size_t room = (size_t)winent_tile_codec_bound(tc->kind, n);
    if (tc->kind == WINENT_COMPRESS_ZSTD && room < ZSTD_compressBound(n))
        room = ZSTD_compressBound(n);
#ifdef WINENT_HAVE_LIBDEFLATE
    if (tc->kind == WINENT_COMPRESS_DEFLATE && room < libdeflate_zlib_compress_bound(tc->ld, n))
        room = libdeflate_zlib_compress_bound(tc->ld, n);
#else
    if (tc->kind == WINENT_COMPRESS_DEFLATE && room < deflateBound(&tc->zs, (uLong)n))
        room = deflateBound(&tc->zs, (uLong)n);
#endif
    if (winent_bytes_reserve(out, room) != 0)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    uint8_t *dst = out->data + out->size;
    size_t got = 0;
    switch (tc->kind) {
    case WINENT_COMPRESS_ZSTD: {
        size_t r = ZSTD_compress2(tc->zstd, dst, room, src, n);
        if (ZSTD_isError(r))
            return WINENT_ERR(err, WINENT_ERR_INTERNAL, "zstd: %s", ZSTD_getErrorName(r));
        got = r;
        break;
    }
    case WINENT_COMPRESS_DEFLATE: {
#ifdef WINENT_HAVE_LIBDEFLATE
        /* A zlib stream (header, deflate data, Adler-32), as TIFF's
         * Adobe Deflate wants. */
        got = libdeflate_zlib_compress(tc->ld, src, n, dst, room);
        if (got == 0)
            return WINENT_ERR(err, WINENT_ERR_INTERNAL,
                              "libdeflate: the tile did not fit its bound");
        break;
#else
        if (deflateReset(&tc->zs) != Z_OK)
            return WINENT_ERR(err, WINENT_ERR_INTERNAL, "zlib: cannot reset the stream");
        tc->zs.next_in = (Bytef *)src;
        tc->zs.avail_in = (uInt)n;
        tc->zs.next_out = dst;
        tc->zs.avail_out = (uInt)room;
        if (deflate(&tc->zs, Z_FINISH) != Z_STREAM_END)
            return WINENT_ERR(err, WINENT_ERR_INTERNAL, "zlib: the tile did not fit its bound");
        got = room - tc->zs.avail_out;
        break;
#endif
    }
    case WINENT_COMPRESS_LZW: got = winent_lzw_encode(src, n, dst); break;
    default:
        memcpy(dst, src, n);
        got = n;
        break;
    }
    out->size += got;
    if (winent_bytes_add_part(out, got) != 0)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    return WINENT_OK;
}
