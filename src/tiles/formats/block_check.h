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
 * (ZSTD_decompressDCtx, with the frame's checksum when it has one), LZW
 * (the codes up to the end-of-information code), PackBits (its runs) and
 * LZMA (the .xz stream to its footer, where liblzma's headers were found).
 * Other compressions are not checked here.
 *
 * A block is checked in one call (winent_block_check: its raw bytes and a
 * decoded block in memory), or streamed through in pieces (begin, feed,
 * end: a window of 256 KiB, whatever the block's size) where a block is
 * too big to hold.
 *
 * One checker per thread (it holds decoder state and its scratch).
 */
#ifndef WINENT_BLOCK_CHECK_H
#define WINENT_BLOCK_CHECK_H

#include <stddef.h>
#include <stdint.h>

typedef struct winent_block_checker winent_block_checker;

/* 1 when blocks of TIFF compression `comp` are checked here. */
int winent_block_check_applies(int comp);

/* A checker for blocks of TIFF compression `comp` that decode to at most
 * `cap` bytes: for winent_block_check (holding a decoded block of `cap`
 * bytes), or with `streaming` for begin/feed/end only (a fixed window).
 * NULL when out of memory. */
winent_block_checker *winent_block_checker_create(int comp, uint64_t cap, int streaming);

void winent_block_checker_free(winent_block_checker *c);

/* Check the `n` raw bytes at `raw` of one block (bits in the file's fill
 * order made most significant first already): its stream must decode
 * whole, to at least `want` and at most the checker's `cap` bytes, and
 * end where the codec says (checksum included). NULL when it does, else
 * why not, in words (static). */
const char *winent_block_check(winent_block_checker *c, const uint8_t *raw, size_t n,
                               size_t want);

/* The same check in pieces: begin, then feed the raw bytes in order (NULL
 * while nothing is wrong so far), then end with the bytes the block must
 * decode to at least. A checker made with `streaming` only. */
void winent_block_check_begin(winent_block_checker *c);
const char *winent_block_check_feed(winent_block_checker *c, const uint8_t *raw, size_t n);
const char *winent_block_check_end(winent_block_checker *c, uint64_t want);

#endif
