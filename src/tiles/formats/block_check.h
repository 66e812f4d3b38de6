/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * block_check.h - a compressed TIFF block checked to the end of its stream.
 *
 * libtiff decodes a block only as far as the pixels it was asked for: the
 * rest of a deflate stream, its adler32 checksum, a zstd frame's checksum
 * are never looked at, so a stream corrupt past the last pixel libtiff
 * needs (or one whose corruption the checksum alone would show) decodes to
 * a wrong block without a word. Here the raw bytes of the block are
 * decompressed whole, once more, by a decoder that checks the stream's
 * end and checksum: deflate (libdeflate's zlib decoder, or zlib's), zstd
 * (ZSTD_decompressDCtx, with the frame's checksum when it has one), and
 * LZW (the codes up to the end-of-information code). Other compressions
 * are not checked here.
 *
 * One checker per thread (it holds decoder state and a scratch block).
 */
#ifndef WINENT_BLOCK_CHECK_H
#define WINENT_BLOCK_CHECK_H

#include <stddef.h>
#include <stdint.h>

typedef struct winent_block_checker winent_block_checker;

/* 1 when blocks of TIFF compression `comp` are checked here. */
int winent_block_check_applies(int comp);

/* A checker for blocks of TIFF compression `comp` that decode to at most
 * `cap` bytes; NULL when out of memory. */
winent_block_checker *winent_block_checker_create(int comp, size_t cap);

void winent_block_checker_free(winent_block_checker *c);

/* Check the `n` raw bytes at `raw` of one block (bits in the file's fill
 * order made most significant first already): its stream must decode
 * whole, to at least `want` and at most the checker's `cap` bytes, and
 * end where the codec says (checksum included). NULL when it does, else
 * why not, in words (static). */
const char *winent_block_check(winent_block_checker *c, const uint8_t *raw, size_t n,
                               size_t want);

#endif
