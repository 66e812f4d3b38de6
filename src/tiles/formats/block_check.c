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

struct winent_block_checker {
    int comp;
    size_t cap;
    uint8_t *out; /* owned: one decoded block (deflate, zstd) */
#ifdef WINENT_HAVE_LIBDEFLATE
    struct libdeflate_decompressor *dd;
#endif
    ZSTD_DCtx *zd;
    /* LZW: the string table as (prefix code, last byte, length). */
    uint16_t *prefix;
    uint8_t *suffix;
    uint32_t *length;
};

int winent_block_check_applies(int comp)
{
    return comp == COMPRESSION_ADOBE_DEFLATE || comp == COMPRESSION_DEFLATE ||
           comp == COMPRESSION_ZSTD || comp == COMPRESSION_LZW;
}

winent_block_checker *winent_block_checker_create(int comp, size_t cap)
{
    winent_block_checker *c = calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    c->comp = comp;
    c->cap = cap;
    int ok = 1;
    if (comp == COMPRESSION_LZW) {
        c->prefix = malloc(4096 * sizeof *c->prefix);
        c->suffix = malloc(4096);
        c->length = malloc(4096 * sizeof *c->length);
        ok = c->prefix && c->suffix && c->length;
    } else {
        c->out = malloc(cap ? cap : 1);
        ok = c->out != NULL;
#ifdef WINENT_HAVE_LIBDEFLATE
        if (ok && comp != COMPRESSION_ZSTD)
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
    free(c->out);
#ifdef WINENT_HAVE_LIBDEFLATE
    if (c->dd)
        libdeflate_free_decompressor(c->dd);
#endif
    ZSTD_freeDCtx(c->zd);
    free(c->prefix);
    free(c->suffix);
    free(c->length);
    free(c);
}

static const char *check_deflate(winent_block_checker *c, const uint8_t *raw, size_t n,
                                 size_t want)
{
    size_t got = 0;
#ifdef WINENT_HAVE_LIBDEFLATE
    size_t used = 0;
    enum libdeflate_result r =
        libdeflate_zlib_decompress_ex(c->dd, raw, n, c->out, c->cap, &used, &got);
    if (r == LIBDEFLATE_INSUFFICIENT_SPACE)
        return "its deflate stream holds more than the block (corrupt stream)";
    if (r != LIBDEFLATE_SUCCESS)
        return "its deflate stream is corrupt (bad data or adler32 checksum)";
#else
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK)
        return "zlib cannot start";
    z.next_in = (Bytef *)raw;
    z.avail_in = (uInt)(n > UINT32_MAX ? UINT32_MAX : n);
    z.next_out = c->out;
    z.avail_out = (uInt)(c->cap > UINT32_MAX ? UINT32_MAX : c->cap);
    int r = inflate(&z, Z_FINISH);
    got = (size_t)z.total_out;
    inflateEnd(&z);
    if (r == Z_BUF_ERROR && z.avail_out == 0)
        return "its deflate stream holds more than the block (corrupt stream)";
    if (r != Z_STREAM_END)
        return r == Z_BUF_ERROR ? "its deflate stream ends early (truncated block)"
                                : "its deflate stream is corrupt (bad data or adler32 checksum)";
#endif
    if (got < want)
        return "its deflate stream ends early (truncated block)";
    return NULL;
}

static const char *check_zstd(winent_block_checker *c, const uint8_t *raw, size_t n, size_t want)
{
    size_t got = ZSTD_decompressDCtx(c->zd, c->out, c->cap, raw, n);
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

/* TIFF's LZW (TIFF 6.0, section 13; codes MSB first, the code width grows
 * one code early): decode the lengths only, as far as the end-of-
 * information code. A stream must hold at least `want` bytes and at most
 * the block; one that stops without the end code where its bytes run out
 * is accepted (old writers leave it out), one that runs past the block is
 * not. */
static const char *check_lzw(winent_block_checker *c, const uint8_t *raw, size_t n, size_t want)
{
    enum { CLEAR = 256, EOI = 257 };
    uint64_t bit = 0, total = 0;
    const uint64_t bits = (uint64_t)n * 8;
    int width = 9, next = 258, prev = -1;
    if (n >= 2 && raw[0] == 0 && (raw[1] & 0x1) != 0)
        return NULL; /* the old-style (LSB first) LZW of libtiff's compat mode: not checked */
    for (int i = 0; i < 256; i++)
        c->length[i] = 1;
    for (;;) {
        if (bit + (uint64_t)width > bits)
            break; /* bytes ran out without the end code */
        uint32_t code = 0;
        for (int k = 0; k < width; k++, bit++)
            code = code << 1 | ((raw[bit >> 3] >> (7 - (bit & 7))) & 1u);
        if (code == EOI)
            break;
        if (code == CLEAR) {
            width = 9;
            next = 258;
            prev = -1;
            continue;
        }
        uint32_t len;
        if (prev < 0) {
            if (code > 255)
                return "its LZW stream is corrupt (a code before any string)";
            len = 1;
        } else if ((int)code < next) {
            len = c->length[code];
            if (next < 4096)
                c->length[next++] = c->length[prev] + 1;
        } else if ((int)code == next) {
            len = c->length[prev] + 1;
            if (next < 4096)
                c->length[next++] = len;
        } else {
            return "its LZW stream is corrupt (an unknown code)";
        }
        total += len;
        if (total > c->cap)
            return "its LZW stream holds more than the block (corrupt stream)";
        prev = (int)code;
        /* The code width grows one code early (TIFF's LZW). */
        if (next >= (1 << width) - 1 && width < 12)
            width++;
    }
    if (total < want)
        return "its LZW stream ends early (truncated or corrupt block)";
    return NULL;
}

const char *winent_block_check(winent_block_checker *c, const uint8_t *raw, size_t n, size_t want)
{
    switch (c->comp) {
    case COMPRESSION_ADOBE_DEFLATE:
    case COMPRESSION_DEFLATE: return check_deflate(c, raw, n, want);
    case COMPRESSION_ZSTD: return check_zstd(c, raw, n, want);
    case COMPRESSION_LZW: return check_lzw(c, raw, n, want);
    default: return NULL;
    }
}
