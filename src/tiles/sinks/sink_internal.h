/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sink_internal.h - what each kind of sink implements (tiles/ only).
 */
#ifndef WINENT_SINK_INTERNAL_H
#define WINENT_SINK_INTERNAL_H

#include "outfile.h"
#include "sink.h"

/* Rows per unit of raw output (any value gives the same bytes). */
#define WINENT_RAW_UNIT_ROWS 16

typedef struct sink_ops {
    /* Per-thread encoder state: create returns an opaque pointer. */
    winent_status (*encoder_create)(winent_sink *s, void **enc, winent_err *err);
    void (*encoder_free)(void *enc);
    /* Unit `index` of map `map` (0 .. nmaps - 1). */
    winent_status (*encode)(winent_sink *s, void *enc, int map, int64_t index, const float *rows,
                            int nrows, winent_bytes *out, winent_err *err);
    winent_status (*write)(winent_sink *s, int map, int64_t index, const winent_bytes *encoded,
                           winent_err *err);
    winent_status (*finish)(winent_sink *s, winent_err *err);
    void (*abort)(winent_sink *s);
    void (*free_impl)(void *impl);
    uint64_t (*bytes_written)(const winent_sink *s);
    /* Optional, for units of several parts (s->parts > 1): one part alone. */
    winent_status (*encode_part)(winent_sink *s, void *enc, int map, int64_t index, int part,
                                 const float *rows, int nrows, winent_bytes *out, winent_err *err);
    winent_status (*write_part)(winent_sink *s, int map, int64_t index, int part,
                                const winent_bytes *encoded, winent_err *err);
    /* Optional: the floats as they are, no encoding (raw, little-endian). */
    winent_status (*write_floats)(winent_sink *s, int map, const float *rows, size_t n,
                                  winent_err *err);
    /* Optional: 1 when write_floats_at may be used (every map's file has
     * offsets); then `n` floats of map `map` from float `at` on, from any
     * thread, on disjoint ranges. */
    int (*writes_at)(const winent_sink *s);
    winent_status (*write_floats_at)(winent_sink *s, int map, uint64_t at, const float *rows,
                                     size_t n, winent_err *err);
} sink_ops;

struct winent_sink {
    const sink_ops *ops;
    void *impl;             /* owned, freed by ops->free_impl */
    winent_sink_opts opts;  /* copy; borrowed pointers stay borrowed */
    int unit_rows;          /* set by the opener */
    int parts;              /* parts of a unit that encode alone (default 1) */
    int nmaps;              /* winent_sink_nmaps(&opts) */
};

struct winent_sink_encoder {
    winent_sink *sink;      /* borrowed */
    void *state;            /* owned by the sink's ops */
};

/* Each opener fills s->ops, s->impl and s->unit_rows. */
winent_status winent_sink_raw_open(winent_sink *s, winent_err *err);
winent_status winent_sink_zst_open(winent_sink *s, winent_err *err);
winent_status winent_sink_tiff_open(winent_sink *s, winent_err *err);
/* The Cloud-Optimized layout of a GeoTIFF (sink_cog.c); tiff_open passes
 * the default layout on to it. */
winent_status winent_sink_cog_open(winent_sink *s, winent_err *err);

/* Overview tiles are means, whose low mantissa bits are noise: zstd's
 * default level 3 compresses them hardly better than its fast levels (a
 * 512 x 512 tile of a level 1: 1.31:1 at level 3, 1.27 at 1, 1.21 at -3,
 * in 13, 5 and 2.8 ms), so without --level a COG's overview tiles get
 * level -3, with a zstd context of their own: the COG's extra over the
 * tiled file fell from +23 % to +18.5 % (mean of six rounds,
 * docs/PERFORMANCE.md) for overviews 5 % larger. With --level they get
 * that level (sink_cog.c; sink.c counts the context's memory). */
#define WINENT_COG_OVR_ZSTD_LEVEL (-3)

/* Memory the COG writer holds beyond the encoders (overview rows, jobs,
 * tile index), given what one encoder holds. */
size_t winent_sink_cog_writer_bytes(const winent_sink_opts *o, size_t encoder_bytes);

/* Memory one COG encoder holds beyond its codec and tile (the partial of
 * a tile and its scratch). */
size_t winent_sink_cog_encoder_extra(const winent_sink_opts *o);

/* Bytes each encoded unit of a COG carries beyond its compressed tiles
 * (block leaders and trailers, partials). */
size_t winent_sink_cog_unit_extra(const winent_sink_opts *o);

#endif
