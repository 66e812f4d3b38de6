/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tile_codec.h - compression of one TIFF tile of the map, as a TIFF reader
 * expects it: the floats converted to the output's sample type (--ot,
 * out_sample.h), horizontal differencing (Predictor = 2) for uint8 and no
 * predictor for the others (what makes real maps smallest:
 * winent_tile_codec_tiff_predictor), then zstd, deflate (zlib stream) or
 * LZW, or neither.
 * Runs on the encoder threads; the output is a pure function of the tile
 * and the settings, whatever thread encodes it.
 */
#ifndef WINENT_TILE_CODEC_H
#define WINENT_TILE_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "base/bytes.h"
#include "base/werr.h"
#include "out_sample.h"
#include "winent.h"

typedef struct winent_tile_codec winent_tile_codec;

/* A codec for tiles of `side` x `side` floats written as `q` says (NULL:
 * float32; copied); `level` is the zstd level (0: the library default) or,
 * for deflate, a zlib level (clamped to 1..9, 0: 6); `window_pixels` the
 * pixels of the file's smallest window (winent_sink_window_pixels), which
 * picks the predictor (winent_tile_codec_tiff_predictor). Errors:
 * WINENT_ERR_INTERNAL (out of memory). */
winent_status winent_tile_codec_create(winent_compress c, int level, int side,
                                       const winent_out_sample *q, int window_pixels,
                                       winent_tile_codec **out, winent_err *err);
void winent_tile_codec_free(winent_tile_codec *tc);

/* Compress the tile `tile` (side x side floats, native little-endian order)
 * and append it to `out` as one part. One thread at a time per codec. */
winent_status winent_tile_codec_encode(winent_tile_codec *tc, const float *tile, winent_bytes *out,
                                       winent_err *err);

/* The TIFF Compression tag value of `c`; the Predictor of `c` for samples
 * of type `t` in maps whose smallest window has `window_pixels` pixels
 * (horizontal differencing where it makes the file smaller: uint8, and
 * uint16 from 81 pixels on); BitsPerSample and SampleFormat of `t`. */
int winent_tile_codec_tiff_compression(winent_compress c);
int winent_tile_codec_tiff_predictor(winent_compress c, winent_out_type t, int window_pixels);
int winent_tile_codec_tiff_bits(winent_out_type t);
int winent_tile_codec_tiff_sample_format(winent_out_type t);

/* Largest encoded size of a tile of `n` bytes (for BigTIFF decisions). */
uint64_t winent_tile_codec_bound(winent_compress c, uint64_t n);

/* TIFF LZW of `n` bytes into `dst` (room for winent_tile_codec_bound(LZW, n)
 * bytes); returns the encoded size. Exposed for tests. */
size_t winent_lzw_encode(const uint8_t *src, size_t n, uint8_t *dst);

/* Horizontal differencing (Predictor = 2) of `rows` rows of `width`
 * little-endian unsigned samples of `bps` bytes (1 or 2), in place. */
void winent_hdiff_predict(uint8_t *buf, int width, int rows, int bps);

#endif
