/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cog_pyramid.h - the overview levels of a Cloud-Optimized GeoTIFF, built
 * while the full-resolution tiles stream past, in memory bounded by two
 * rows of tiles per level.
 *
 * The rule (docs/SPEC.md, section 4): level k (k = 1..levels) is
 * ceil(W / 2^k) x ceil(H / 2^k) pixels; its pixel (x, y) is the mean of the
 * valid (non-NaN) full-resolution pixels of the block of rows
 * [y 2^k, (y+1) 2^k) and columns [x 2^k, (x+1) 2^k), clipped to the image,
 * or NaN where the block holds none. It is the exact block mean, not a
 * mean of means: the block's pixels are summed in double precision (as
 * sums of sub-block sums) and the mean is rounded once to float, so every
 * overview pixel is within 2^-24 (relative) of the exact mean, up to the
 * double-precision summation error. Levels are added, as GDAL's COG driver
 * does, while the previous level is wider or taller than one tile.
 *
 * That is the rule of a quantity. A class map (winent_measure_overview_rule
 * says which: the majority) takes the mode instead, since a mean of classes
 * is a class that exists nowhere: level k's pixel is the most frequent of
 * the valid values of its 2x2 block of level k - 1 (clipped to the level),
 * ties to the smallest value, NaN where all are NaN; values are compared
 * as the output stores them (an integer code, a float16), so that classes
 * that share a stored value are one class, as a reader sees them. It is
 * computed the same way on every path (in place or through partials), so
 * the bytes never depend on the threads. Its tiles carry no sums: the
 * levels above the inner ones are made from the deepest inner level's
 * rows, which the pyramid keeps.
 *
 * Work is split as the pipeline is. A tile of side S = 2^m * odd holds
 * whole 2^k blocks for k <= m: the "inner" levels. The encoder thread that
 * compresses a full-resolution tile also reduces it: its means at every
 * inner level go straight into the pyramid's rows, where each tile owns a
 * rectangle of each inner level (winent_cog_pyramid_put), when the rows
 * are free; else into its partial (winent_cog_partial), which the writer
 * copies into place. The sums and counts of the deepest inner level, for
 * the levels above it (when there are any), ride with the tile either way.
 * The writer thread, which sees the tiles in order, hands each tile to the
 * pyramid (winent_cog_pyramid_add), which adds the deepest inner level's
 * sums up for the levels above it and passes every completed row of tiles
 * of every level to a callback. The arithmetic is thus on the encoder
 * threads; the writer copies little.
 */
#ifndef WINENT_COG_PYRAMID_H
#define WINENT_COG_PYRAMID_H

#include <stddef.h>
#include <stdint.h>

#include "base/werr.h"
#include "kernels/measure.h"
#include "tiles/formats/out_sample.h"

#define WINENT_COG_MAX_LEVELS 32

/* How one map's levels are made: the mean (a NULL rule is the mean), or
 * the mode of the values as `q` stores them (NULL: as float32). */
typedef struct winent_cog_rule {
    winent_overview_rule kind;
    const winent_out_sample *q; /* borrowed */
} winent_cog_rule;

/* The sizes of every level; index 0 is the full resolution. */
typedef struct winent_cog_geom {
    int side;                         /* tile side, even */
    int levels;                       /* overview levels (0: the image fits one tile) */
    int inner;                        /* levels 1..inner are whole inside a tile */
    int w[WINENT_COG_MAX_LEVELS + 1]; /* width of level k */
    int h[WINENT_COG_MAX_LEVELS + 1]; /* height of level k */
    uint32_t across[WINENT_COG_MAX_LEVELS + 1], down[WINENT_COG_MAX_LEVELS + 1]; /* tiles */
} winent_cog_geom;

/* The levels of a `width` x `height` image cut in `side` x `side` tiles
 * (side a multiple of 16). */
void winent_cog_geometry(int width, int height, int side, winent_cog_geom *g);

/* Bytes of one tile's sums: for the deepest inner level its
 * (side/2^inner)^2 sums (double) and valid counts (uint32), native byte
 * order; 0 without overviews or when that level is the last (nothing is
 * added up above it). A mode's tiles keep the same layout, the sums
 * zero (unused). */
size_t winent_cog_sums_bytes(const winent_cog_geom *g);

/* Bytes of one tile's partial (0 without overviews): for k = 1..inner the
 * (side/2^k)^2 float means of level k, then its sums
 * (winent_cog_sums_bytes). */
size_t winent_cog_partial_bytes(const winent_cog_geom *g);

/* Bytes of scratch winent_cog_partial needs. */
size_t winent_cog_partial_scratch_bytes(const winent_cog_geom *g);

/* The partial of one full-resolution tile into `dst` (any alignment) by
 * `rule` (NULL: the mean): the
 * tile's `nrows` x `ncols` pixels start at `px`, rows `stride` floats
 * apart; the rest of the side x side tile is outside the image (counted
 * as no pixel). `scratch`: winent_cog_partial_scratch_bytes, aligned for
 * a double. Any thread. */
void winent_cog_partial(const winent_cog_geom *g, const winent_cog_rule *rule, const float *px,
                        size_t stride, int nrows, int ncols, void *scratch, uint8_t *dst);

/* Called with each completed row of tiles of a level: `rows` holds the
 * level's pixel rows [tile_row * side, tile_row * side + nrows), `stride`
 * floats apart, `ncols` = the level's width. The rows stay as they are
 * until the pyramid calls `reuse` for this tile row (when it starts the
 * level's tile row two after it), so they can be read after emit returns.
 * Its status stops the pyramid. */
typedef winent_status (*winent_cog_emit_fn)(void *user, int level, uint32_t tile_row,
                                            const float *rows, size_t stride, int nrows, int ncols,
                                            winent_err *err);

/* Called before the rows of tile row `tile_row` of `level` (emitted
 * earlier) are overwritten: returns once nothing reads them any more. */
typedef winent_status (*winent_cog_reuse_fn)(void *user, int level, uint32_t tile_row,
                                             winent_err *err);

typedef struct winent_cog_pyramid winent_cog_pyramid;

/* A pyramid for `g` (g->levels > 0) by `rule` (NULL: the mean; copied,
 * its `q` borrowed) passing its tile rows to `emit`, and
 * asking `reuse` before it overwrites them. Errors: WINENT_ERR_INTERNAL
 * (out of memory). */
winent_status winent_cog_pyramid_create(const winent_cog_geom *g, const winent_cog_rule *rule,
                                        winent_cog_emit_fn emit, winent_cog_reuse_fn reuse,
                                        void *user, winent_cog_pyramid **out, winent_err *err);

/* Memory a pyramid for `g` holds (two rows of tiles per level, and sums),
 * for --mem. */
size_t winent_cog_pyramid_bytes(const winent_cog_geom *g);

/* Full-resolution tile (tx, ty) (its `nrows` x `ncols` pixels at `px`,
 * rows `stride` floats apart, as winent_cog_partial) reduced straight into
 * the pyramid's rows: its means at every inner level in place, its sums
 * into `sums` (winent_cog_sums_bytes, any alignment; unused when 0).
 * `scratch` as winent_cog_partial's. Any thread, beside other puts and
 * beside winent_cog_pyramid_add, on one condition: the rows each inner
 * level k keeps are two rows of tiles, so tile row R = ty >> k of level k
 * takes the buffer of its tile row R - 2, which must have been emitted
 * and be read no more (what `reuse` waits for) before any tile of R is
 * put. The caller tracks that (emit calls come in order per level); the
 * pyramid does not lock. */
void winent_cog_pyramid_put(winent_cog_pyramid *p, uint32_t ty, uint32_t tx, const float *px,
                            size_t stride, int nrows, int ncols, void *scratch, uint8_t *sums);

/* Full-resolution tile (tx, ty): `partial` is its partial
 * (winent_cog_partial), or, with `in_place` (its means put by
 * winent_cog_pyramid_put), its sums alone (NULL when there are none).
 * Tiles come in order, row by row; after the last tile of a row, the rows
 * it completed go up the pyramid, which may call `emit` (several levels
 * at once at the image's last row). A partial's means are copied into
 * rows that `reuse` has freed first; rows put in place are the caller's
 * care. One thread at a time (the writer). */
winent_status winent_cog_pyramid_add(winent_cog_pyramid *p, uint32_t ty, uint32_t tx,
                                     const uint8_t *partial, int in_place, winent_err *err);

void winent_cog_pyramid_free(winent_cog_pyramid *p);

#endif
