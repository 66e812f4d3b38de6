/*
 * zst_format.h - the layout of a winent-stream .zst file, shared by the
 * writer (sink_zst.c), the reader behind --info (zst_info.c) and the tests.
 *
 *   [skippable frame 0x184D2A50: u32 size, UTF-8 JSON header]
 *   [zstd frame: rows [0, R)] [zstd frame: rows [R, 2R)] ...
 *   [skippable frame 0x184D2A5E: the seek table of the zstd seekable format]
 *
 * The seek table (contrib/seekable_format of zstd) has one entry per frame
 * before it: compressed size u32, decompressed size u32, checksum u32 (the
 * low 32 bits of XXH64 of the decompressed bytes), then the footer: number
 * of frames u32, descriptor byte (bit 7: checksums present), magic
 * 0x8F92EAB1. All little-endian.
 *
 * Standard readers compute the offset of frame i as the sum of the
 * compressed sizes of frames 0..i-1, counted from the start of the file.
 * So the JSON header frame has an entry of its own (its whole size,
 * decompressed size 0, the checksum of zero bytes): without it every offset
 * would be short by the header's size. The seekable format says so itself:
 * "For skippable or otherwise empty frames, this value is 0."
 */
#ifndef WINENT_ZST_FORMAT_H
#define WINENT_ZST_FORMAT_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/bytes.h"

#define WINENT_ZST_FORMAT_NAME "winent-stream/1"

#define WINENT_ZST_HEADER_MAGIC   0x184D2A50u /* skippable frame, nibble 0 */
#define WINENT_ZST_SEEK_MAGIC     0x184D2A5Eu /* skippable frame, nibble E */
#define WINENT_ZST_SEEKABLE_MAGIC 0x8F92EAB1u /* last 4 bytes of the file */
#define WINENT_ZST_FRAME_MAGIC    0xFD2FB528u /* a zstd frame */
#define WINENT_ZST_SKIP_HEADER    8u          /* magic + size */
#define WINENT_ZST_FOOTER         9u          /* frames u32, descriptor, magic */
#define WINENT_ZST_ENTRY          12u         /* with checksums */
#define WINENT_ZST_CHECKSUM_FLAG  0x80u

/* Limits of the seekable format's reference reader: frames beyond them are
 * not read back by it, so the writer never makes them. */
#define WINENT_ZST_MAX_FRAMES      0x8000000u
#define WINENT_ZST_MAX_FRAME_BYTES 0x40000000u

/* The header JSON is small (georeferencing included); a larger one is not
 * ours, and --info refuses to load it. */
#define WINENT_ZST_MAX_HEADER (16u << 20)

/* Low 32 bits of XXH64 of zero bytes (seed 0): the checksum entry of the
 * header frame, whose decompressed content is empty. */
#define WINENT_ZST_EMPTY_CHECKSUM 0x51D8E999u

/* Used when the options say 0 ("the library's default"). */
#define WINENT_ZST_DEFAULT_LEVEL 2

static inline uint32_t winent_zst_get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void winent_zst_put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* Append printf-style text; -1 when out of memory. */
static inline int winent_zst_printf(winent_bytes *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline int winent_zst_printf(winent_bytes *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || winent_bytes_reserve(b, (size_t)n + 1) != 0)
        return -1;
    va_start(ap, fmt);
    vsnprintf((char *)b->data + b->size, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->size += (size_t)n;
    return 0;
}

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid.
 * Overlong forms, surrogates and code points past U+10FFFF are invalid. */
static inline size_t winent_zst_utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    uint32_t cp, min;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2, cp = c & 0x1F, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3, cp = c & 0x0F, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4, cp = c & 0x07, min = 0x10000;
    else
        return 0;
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

/* Append `s` as a JSON string (quotes included). File names are bytes,
 * not text: a byte that is not valid UTF-8 becomes U+FFFD, so the header
 * stays valid UTF-8 JSON whatever the name. -1 when out of memory. */
static inline int winent_zst_json_string(winent_bytes *b, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    if (winent_bytes_append(b, "\"", 1) != 0)
        return -1;
    for (size_t i = 0; i < n;) {
        unsigned c = p[i];
        size_t k = winent_zst_utf8_len(p + i, n - i);
        int rc;
        if (k == 0) {
            rc = winent_bytes_append(b, "\\ufffd", 6);
            k = 1;
        } else if (c == '"' || c == '\\') {
            char esc[2] = {'\\', (char)c};
            rc = winent_bytes_append(b, esc, 2);
        } else if (c == '\n') {
            rc = winent_bytes_append(b, "\\n", 2);
        } else if (c == '\t') {
            rc = winent_bytes_append(b, "\\t", 2);
        } else if (c == '\r') {
            rc = winent_bytes_append(b, "\\r", 2);
        } else if (c < 0x20 || c == 0x7F) {
            rc = winent_zst_printf(b, "\\u%04x", c);
        } else {
            rc = winent_bytes_append(b, p + i, k);
        }
        if (rc != 0)
            return -1;
        i += k;
    }
    return winent_bytes_append(b, "\"", 1);
}

/* Append a double that reads back exactly (%.17g). JSON has no NaN or
 * infinity: those become the strings "NaN", "Infinity", "-Infinity" (the
 * spelling of Python's json module and JavaScript). */
static inline int winent_zst_json_double(winent_bytes *b, double v)
{
    if (v != v)
        return winent_zst_printf(b, "\"NaN\"");
    if (v > 1.7976931348623157e308)
        return winent_zst_printf(b, "\"Infinity\"");
    if (v < -1.7976931348623157e308)
        return winent_zst_printf(b, "\"-Infinity\"");
    return winent_zst_printf(b, "%.17g", v);
}

#endif
