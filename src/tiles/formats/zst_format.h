/* SPDX-License-Identifier: BSD-3-Clause */
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

#include <stdint.h>

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

#endif
