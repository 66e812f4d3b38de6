/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tiff_dir.h - TIFF directories (IFDs) built in memory and laid out by
 * hand, little-endian ("II"), classic TIFF or BigTIFF.
 *
 * The COG sink writes every directory before the image data they describe,
 * with the offsets of tiles that were compressed long before. libtiff
 * writes a directory after its data and owns the tile offset arrays, so
 * that layout would need its deferred-array calls and a rewrite of every
 * array in place; here a directory is a list of entries whose size does
 * not depend on the values, so the whole file can be laid out in one pass
 * once the tile sizes are known.
 *
 * A directory has one owner thread.
 */
#ifndef WINENT_TIFF_DIR_H
#define WINENT_TIFF_DIR_H

#include <stddef.h>
#include <stdint.h>

#include "base/werr.h"

typedef struct winent_tiff_dir winent_tiff_dir;

/* Value types, with their TIFF 6.0 / BigTIFF codes. WINENT_TIFF_OFFSETS is
 * ours: unsigned integers written as LONG in a classic TIFF and as LONG8 in
 * a BigTIFF (tile offsets and byte counts). */
typedef enum winent_tiff_type {
    WINENT_TIFF_ASCII = 2,
    WINENT_TIFF_SHORT = 3,
    WINENT_TIFF_LONG = 4,
    WINENT_TIFF_DOUBLE = 12,
    WINENT_TIFF_LONG8 = 16,
    WINENT_TIFF_OFFSETS = 1000
} winent_tiff_type;

/* An empty directory. Errors: WINENT_ERR_INTERNAL (out of memory). */
winent_status winent_tiff_dir_create(winent_tiff_dir **out, winent_err *err);

/* Free `d` and its values; NULL is fine. */
void winent_tiff_dir_free(winent_tiff_dir *d);

/* Add one entry (tags may come in any order; a tag added twice keeps the
 * last). `values` holds `count` values of the host type of `type`:
 * uint16_t (SHORT), uint32_t (LONG), uint64_t (LONG8, OFFSETS), double
 * (DOUBLE); for ASCII a NUL-terminated string, `count` ignored (the NUL is
 * counted, as TIFF wants). The values are copied. Returns 0, or -1 when out
 * of memory or the type is unknown. */
int winent_tiff_dir_add(winent_tiff_dir *d, uint16_t tag, winent_tiff_type type, uint64_t count,
                        const void *values);

/* One SHORT or LONG value (the usual scalar tags). */
int winent_tiff_dir_add_short(winent_tiff_dir *d, uint16_t tag, uint16_t v);
int winent_tiff_dir_add_long(winent_tiff_dir *d, uint16_t tag, uint32_t v);

/* Bytes the directory takes when written (`big`: BigTIFF): the entry table
 * with its count and next-directory offset, then the values that do not fit
 * in their entries, each at an even offset. Independent of the values. */
uint64_t winent_tiff_dir_size(const winent_tiff_dir *d, int big);

/* Write the directory into `dst` (winent_tiff_dir_size bytes, all written)
 * as if it started at file offset `at` (even), chaining to `next` (0: the
 * last). Returns 0, or -1 when a value does not fit its classic-TIFF field
 * (an OFFSETS value past 4 GiB with big == 0). */
int winent_tiff_dir_write(const winent_tiff_dir *d, int big, uint64_t at, uint64_t next,
                          uint8_t *dst);

/* The 8-byte classic or 16-byte BigTIFF header pointing at the first
 * directory, written into `dst`; returns its size. */
size_t winent_tiff_header(int big, uint64_t first_ifd, uint8_t *dst);

#endif
