/* SPDX-License-Identifier: BSD-3-Clause */
/* Compressed TIFF blocks checked to the end of their stream (block_check.h). */
#include "block_check.h"

#include <stdlib.h>
#include <string.h>

#include <tiffio.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>
#ifdef WINENT_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif
#ifdef WINENT_HAVE_LZMA
#include <lzma.h>
#endif

/* The window a streamed check decodes into, again and again. */
#define WINDOW_BYTES ((size_t)256 << 10)

/* TIFF's LZW, decoded as far as the lengths of its strings (TIFF 6.0,
 * section 13: codes MSB first from 9 to 12 bits; the decoder, one entry
 * behind the encoder, widens one code early). */
typedef struct lzw_state {
    uint32_t length[4096];
    uint32_t acc;  /* bits not yet taken, the newest lowest */
    int nacc;
    int width, next, prev;
    int ended;     /* the end-of-information code was met */
    int first;     /* no byte fed yet (the old-style LSB-first variant is told by its first two) */
    int skip;      /* the old style: not checked */
    uint8_t b0;
} lzw_state;

struct winent_block_checker {
    int comp;
    uint64_t cap;
    int streaming;
    uint8_t *out; /* owned: a decoded block (one call) or the window (streamed) */
    size_t out_cap;
#ifdef WINENT_HAVE_LIBDEFLATE
    struct libdeflate_decompressor *dd;
#endif
    ZSTD_DCtx *zd;
    z_stream z;
    int z_open, z_done;
    size_t zstd_last; /* the last ZSTD_decompressStream hint: 0 at a frame's end */
    lzw_state *lzw;
#ifdef WINENT_HAVE_LZMA
    lzma_stream xz;
    int xz_open, xz_done;
#endif
    uint32_t pb_literal; /* PackBits: literal bytes still to come */
    uint32_t pb_repeat;  /* PackBits: the next byte is repeated this often (0: none) */
    uint64_t total;   /* bytes decoded so far (streamed) */
    const char *bad;  /* the verdict met while feeding */
};

int winent_block_check_applies(int comp)
{
#ifdef WINENT_HAVE_LZMA
    if (comp == COMPRESSION_LZMA)
        return 1;
#endif
    return comp == COMPRESSION_ADOBE_DEFLATE || comp == COMPRESSION_DEFLATE ||
           comp == COMPRESSION_ZSTD || comp == COMPRESSION_LZW || comp == COMPRESSION_PACKBITS;
}

static int is_deflate(int comp)
{
    return comp == COMPRESSION_ADOBE_DEFLATE || comp == COMPRESSION_DEFLATE;
}

winent_block_checker *winent_block_checker_create(int comp, uint64_t cap, int streaming)
{
    winent_block_checker *c = calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    c->comp = comp;
    c->cap = cap;
    c->streaming = streaming;
    int ok = 1;
    if (comp == COMPRESSION_LZW) {
        ok = (c->lzw = malloc(sizeof *c->lzw)) != NULL;
    } else if (comp == COMPRESSION_PACKBITS) {
        ok = 1; /* runs are counted, nothing decoded */
    } else if (comp == COMPRESSION_LZMA) {
        c->out_cap = WINDOW_BYTES; /* always streamed through a window */
        ok = (c->out = malloc(c->out_cap)) != NULL;
    } else {
        c->out_cap = streaming ? WINDOW_BYTES : (size_t)(cap ? cap : 1);
        ok = (c->out = malloc(c->out_cap)) != NULL;
#ifdef WINENT_HAVE_LIBDEFLATE
        if (ok && is_deflate(comp) && !streaming)
            ok = (c->dd = libdeflate_alloc_decompressor()) != NULL;
#endif
        if (ok && comp == COMPRESSION_ZSTD)
            ok = (c->zd = ZSTD_createDCtx()) != NULL;
    }
    if (!ok) {
        winent_block_checker_free(c);
        return NULL;
    }
    return c;
}

void winent_block_checker_free(winent_block_checker *c)
{
    if (c == NULL)
        return;
    if (c->z_open)
        inflateEnd(&c->z);
#ifdef WINENT_HAVE_LZMA
    if (c->xz_open)
        lzma_end(&c->xz);
#endif
    free(c->out);
#ifdef WINENT_HAVE_LIBDEFLATE
    if (c->dd)
        libdeflate_free_decompressor(c->dd);
#endif
    ZSTD_freeDCtx(c->zd);
    free(c->lzw);
    free(c);
}

/* ---- Streamed --------------------------------------------------------- */

static void lzw_begin(lzw_state *s)
{
    for (int i = 0; i < 256; i++)
        s->length[i] = 1;
    s->acc = 0;
    s->nacc = 0;
    s->width = 9;
    s->next = 258;
    s->prev = -1;
    s->ended = 0;
    s->first = 1;
    s->skip = 0;
}

static const char *lzw_feed(winent_block_checker *c, const uint8_t *raw, size_t n)
{
    lzw_state *s = c->lzw;
    enum { CLEAR = 256, EOI = 257 };
    for (size_t i = 0; i < n && !s->ended && !s->skip; i++) {
        if (s->first) {
            s->first = 0;
            s->b0 = raw[i];
        } else if (s->b0 == 0 && c->total == 0 && s->nacc == 8 && (raw[i] & 0x1) != 0) {
            s->skip = 1; /* libtiff's old-style (LSB first) LZW: not checked */
            break;
        }
        s->acc = s->acc << 8 | raw[i];
        s->nacc += 8;
        while (s->nacc >= s->width) {
            uint32_t code = (s->acc >> (s->nacc - s->width)) & ((1u << s->width) - 1);
            s->nacc -= s->width;
            if (code == EOI) {
                s->ended = 1;
                break;
            }
            if (code == CLEAR) {
                s->width = 9;
                s->next = 258;
                s->prev = -1;
                continue;
            }
            uint32_t len;
            if (s->prev < 0) {
                if (code > 255)
                    return "its LZW stream is corrupt (a code before any string)";
                len = 1;
            } else if ((int)code < s->next) {
                len = s->length[code];
                if (s->next < 4096)
                    s->length[s->next++] = s->length[s->prev] + 1;
            } else if ((int)code == s->next) {
                len = s->length[s->prev] + 1;
                if (s->next < 4096)
                    s->length[s->next++] = len;
            } else {
                return "its LZW stream is corrupt (an unknown code)";
            }
            c->total += len;
            if (c->total > c->cap)
                return "its LZW stream holds more than the block (corrupt stream)";
            s->prev = (int)code;
            if (s->next >= (1 << s->width) - 1 && s->width < 12)
                s->width++;
        }
    }
    return NULL;
}

/* PackBits (TIFF 6.0, section 9): a header byte n, then n + 1 literal
 * bytes (0..127), one byte repeated 1 - n times (-127..-1), or nothing
 * (-128). libtiff stops when the block is full and drops the rest. */
static const char *packbits_feed(winent_block_checker *c, const uint8_t *raw, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (c->pb_literal > 0) {
            size_t k = n - i < c->pb_literal ? n - i : c->pb_literal;
            c->pb_literal -= (uint32_t)k;
            i += k - 1;
            continue;
        }
        if (c->pb_repeat > 0) {
            c->pb_repeat = 0;
            continue;
        }
        if (c->total >= c->cap)
            return "its PackBits stream holds more than the block (corrupt stream)";
        const int h = (int8_t)raw[i];
        const uint32_t len = h >= 0 ? (uint32_t)h + 1 : h == -128 ? 0 : (uint32_t)(1 - h);
        if (h >= 0)
            c->pb_literal = len;
        else if (h != -128)
            c->pb_repeat = len;
        c->total += len;
        if (c->total > c->cap)
            return "its PackBits stream holds more than the block (corrupt stream)";
    }
    return NULL;
}

#ifdef WINENT_HAVE_LZMA
/* LZMA: libtiff writes an .xz stream per block; it must end (index and
 * footer, and the integrity check when it has one) within the block. */
static const char *lzma_run(winent_block_checker *c, const uint8_t *raw, size_t n,
                            lzma_action action)
{
    if (c->xz_done)
        return NULL;
    c->xz.next_in = raw;
    c->xz.avail_in = n;
    for (;;) {
        c->xz.next_out = c->out;
        c->xz.avail_out = c->out_cap;
        lzma_ret r = lzma_code(&c->xz, action);
        c->total += c->out_cap - c->xz.avail_out;
        if (c->total > c->cap)
            return "its LZMA stream holds more than the block (corrupt stream)";
        if (r == LZMA_STREAM_END) {
            c->xz_done = 1;
            return NULL;
        }
        if (r != LZMA_OK)
            return r == LZMA_BUF_ERROR ? "its LZMA stream ends early (truncated block)"
                                       : "its LZMA stream is corrupt (bad data or check)";
        if (c->xz.avail_in == 0 && c->xz.avail_out != 0 && action == LZMA_RUN)
            return NULL;
    }
}
#endif

void winent_block_check_begin(winent_block_checker *c)
{
    c->bad = NULL;
    c->pb_literal = c->pb_repeat = 0;
#ifdef WINENT_HAVE_LZMA
    if (c->comp == COMPRESSION_LZMA) {
        if (c->xz_open)
            lzma_end(&c->xz);
        lzma_stream init = LZMA_STREAM_INIT;
        c->xz = init;
        c->xz_done = 0;
        c->xz_open = lzma_stream_decoder(&c->xz, UINT64_MAX, 0) == LZMA_OK;
        if (!c->xz_open)
            c->bad = "liblzma cannot start";
    }
#endif
    c->total = 0;
    c->z_done = 0;
    c->zstd_last = 1;
    if (c->comp == COMPRESSION_LZW) {
        lzw_begin(c->lzw);
    } else if (is_deflate(c->comp)) {
        if (c->z_open)
            inflateEnd(&c->z);
        memset(&c->z, 0, sizeof c->z);
        c->z_open = inflateInit(&c->z) == Z_OK;
        if (!c->z_open)
            c->bad = "zlib cannot start";
    } else if (c->comp == COMPRESSION_ZSTD) {
        ZSTD_DCtx_reset(c->zd, ZSTD_reset_session_only);
    }
}

static const char *deflate_feed(winent_block_checker *c, const uint8_t *raw, size_t n)
{
    if (c->z_done)
        return NULL; /* bytes after the stream's end: not pixels */
    c->z.next_in = (Bytef *)raw;
    while (n > 0 || c->z.avail_in > 0) {
        if (c->z.avail_in == 0) {
            uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
            c->z.avail_in = k;
            n -= k;
        }
        c->z.next_out = c->out;
        c->z.avail_out = (uInt)c->out_cap;
        int r = inflate(&c->z, Z_NO_FLUSH);
        c->total += c->out_cap - c->z.avail_out;
        if (c->total > c->cap)
            return "its deflate stream holds more than the block (corrupt stream)";
        if (r == Z_STREAM_END) {
            c->z_done = 1;
            return NULL;
        }
        if (r != Z_OK && !(r == Z_BUF_ERROR && c->z.avail_in == 0))
            return "its deflate stream is corrupt (bad data or adler32 checksum)";
        if (c->z.avail_in == 0 && c->z.avail_out != 0 && n == 0)
            break;
    }
    return NULL;
}

static const char *zstd_feed(winent_block_checker *c, const uint8_t *raw, size_t n)
{
    ZSTD_inBuffer in = {raw, n, 0};
    for (;;) {
        ZSTD_outBuffer out = {c->out, c->out_cap, 0};
        size_t r = ZSTD_decompressStream(c->zd, &out, &in);
        if (ZSTD_isError(r))
            return ZSTD_getErrorCode(r) == ZSTD_error_checksum_wrong
                       ? "its zstd frame's checksum does not match (corrupt block)"
                       : "its zstd stream is corrupt";
        c->total += out.pos;
        c->zstd_last = r;
        if (c->total > c->cap)
            return "its zstd stream holds more than the block (corrupt stream)";
        /* All taken, and nothing left inside the decoder (the window was
         * not filled): the next piece goes on from here. */
        if (in.pos == in.size && out.pos < out.size)
            return NULL;
    }
}

const char *winent_block_check_feed(winent_block_checker *c, const uint8_t *raw, size_t n)
{
    if (c->bad == NULL && n > 0) {
        if (c->comp == COMPRESSION_LZW)
            c->bad = lzw_feed(c, raw, n);
        else if (is_deflate(c->comp))
            c->bad = deflate_feed(c, raw, n);
        else if (c->comp == COMPRESSION_ZSTD)
            c->bad = zstd_feed(c, raw, n);
        else if (c->comp == COMPRESSION_PACKBITS)
            c->bad = packbits_feed(c, raw, n);
#ifdef WINENT_HAVE_LZMA
        else if (c->comp == COMPRESSION_LZMA)
            c->bad = lzma_run(c, raw, n, LZMA_RUN);
#endif
    }
    return c->bad;
}

const char *winent_block_check_end(winent_block_checker *c, uint64_t want)
{
#ifdef WINENT_HAVE_LZMA
    if (c->bad == NULL && c->comp == COMPRESSION_LZMA)
        c->bad = lzma_run(c, NULL, 0, LZMA_FINISH);
#endif
    if (c->bad != NULL)
        return c->bad;
    if (is_deflate(c->comp) && !c->z_done)
        return "its deflate stream ends early (truncated or corrupt block)";
    if (c->comp == COMPRESSION_ZSTD && c->zstd_last != 0)
        return "its zstd stream ends early (truncated or corrupt block)";
    if (c->comp == COMPRESSION_LZW && c->lzw->skip)
        return NULL;
    if (c->comp == COMPRESSION_PACKBITS && (c->pb_literal > 0 || c->pb_repeat > 0))
        return "its PackBits stream ends inside a run (truncated block)";
    if (c->total < want)
        return c->comp == COMPRESSION_LZW ? "its LZW stream ends early (truncated or corrupt block)"
               : c->comp == COMPRESSION_PACKBITS
                   ? "its PackBits stream ends early (truncated or corrupt block)"
                   : "its stream ends early (truncated block)";
    return NULL;
}

/* ---- In one call -------------------------------------------------------- */

static const char *check_deflate(winent_block_checker *c, const uint8_t *raw, size_t n,
                                 size_t want)
{
#ifdef WINENT_HAVE_LIBDEFLATE
    size_t used = 0, got = 0;
    enum libdeflate_result r =
        libdeflate_zlib_decompress_ex(c->dd, raw, n, c->out, c->out_cap, &used, &got);
    if (r == LIBDEFLATE_INSUFFICIENT_SPACE)
        return "its deflate stream holds more than the block (corrupt stream)";
    if (r != LIBDEFLATE_SUCCESS)
        return "its deflate stream is corrupt (bad data or adler32 checksum)";
    if (got < want)
        return "its deflate stream ends early (truncated block)";
    return NULL;
#else
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK)
        return "zlib cannot start";
    z.next_in = (Bytef *)raw;
    z.avail_in = (uInt)(n > UINT32_MAX ? UINT32_MAX : n);
    z.next_out = c->out;
    z.avail_out = (uInt)(c->out_cap > UINT32_MAX ? UINT32_MAX : c->out_cap);
    int r = inflate(&z, Z_FINISH);
    size_t got = (size_t)z.total_out;
    inflateEnd(&z);
    if (r == Z_BUF_ERROR && z.avail_out == 0)
        return "its deflate stream holds more than the block (corrupt stream)";
    if (r != Z_STREAM_END)
        return r == Z_BUF_ERROR ? "its deflate stream ends early (truncated block)"
                                : "its deflate stream is corrupt (bad data or adler32 checksum)";
    if (got < want)
        return "its deflate stream ends early (truncated block)";
    return NULL;
#endif
}

static const char *check_zstd(winent_block_checker *c, const uint8_t *raw, size_t n, size_t want)
{
    size_t got = ZSTD_decompressDCtx(c->zd, c->out, c->out_cap, raw, n);
    if (ZSTD_isError(got))
        return ZSTD_getErrorCode(got) == ZSTD_error_dstSize_tooSmall
                   ? "its zstd stream holds more than the block (corrupt stream)"
               : ZSTD_getErrorCode(got) == ZSTD_error_checksum_wrong
                   ? "its zstd frame's checksum does not match (corrupt block)"
                   : "its zstd stream is corrupt or ends early";
    if (got < want)
        return "its zstd stream ends early (truncated block)";
    return NULL;
}

const char *winent_block_check(winent_block_checker *c, const uint8_t *raw, size_t n, size_t want)
{
    if (is_deflate(c->comp))
        return check_deflate(c, raw, n, want);
    if (c->comp == COMPRESSION_ZSTD)
        return check_zstd(c, raw, n, want);
    if (c->comp == COMPRESSION_LZW || c->comp == COMPRESSION_PACKBITS ||
        c->comp == COMPRESSION_LZMA) {
        winent_block_check_begin(c);
        winent_block_check_feed(c, raw, n);
        return winent_block_check_end(c, want);
    }
    return NULL;
}
