/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sink_internal.h - what each kind of sink implements (tiles/ only).
 */
#ifndef WINENT_SINK_INTERNAL_H
#define WINENT_SINK_INTERNAL_H

#include "outfile.h"
#include "sink.h"

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

/* One output format: everything the dispatch (sink.c) needs to know of
 * it, so that nothing outside the format's own file asks which format it
 * is. Each format file defines one (winent_sink_format_zst in sink_zst.c,
 * winent_sink_format_tif in sink_tiff.c, winent_sink_format_raw in
 * sink_raw.c); sink_registry.c lists them. Adding a format is one
 * descriptor and one line of the registry. */
typedef struct winent_sink_format {
    winent_format format;          /* the value of --format that picks it */
    const char *name;              /* --format's word for it: "zst" */
    const char *const *extensions; /* the output names' extensions it takes,
                                      without the dot, any case; NULL-ended */
    const char *hint;              /* its extensions as the message on an
                                      unknown one lists them: ".raw (or .f32, .bin)" */
    int unnamed;                   /* 1: the format of "-" and of a name
                                      without an extension (one format only) */
    int file_per_map;              /* 1: several maps go to one file each
                                      (winent_sink_map_path) */
    int folder;                    /* 1: the output is a folder (a Zarr
                                      store), not a file: never a stream */
    const char *no_sidecar;        /* NULL: --sidecar is its own; else the
                                      usage error refusing it */
    /* Optional: the format's own refusal of `output_path` once it is known
     * not to be the input (`out`, its probe), a usage error. */
    winent_status (*check_output)(const char *output_path, const winent_outfile_probe *out,
                                  winent_err *err);
    /* Fill s->ops, s->impl and s->unit_rows (s->opts is set). */
    winent_status (*open)(winent_sink *s, winent_err *err);
    /* The unit rows a sink opened with `o` would have (before the floor
     * of 1 that sink.c applies). */
    int (*unit_rows_for)(const winent_sink_opts *o);
    /* Optional (NULL: 0): winent_sink_encoder_bytes_for,
     * winent_sink_writer_bytes_for, winent_sink_unit_extra_bytes_for. */
    size_t (*encoder_bytes_for)(const winent_sink_opts *o);
    size_t (*writer_bytes_for)(const winent_sink_opts *o);
    size_t (*unit_extra_bytes_for)(const winent_sink_opts *o);
} winent_sink_format;

extern const winent_sink_format winent_sink_format_raw;
extern const winent_sink_format winent_sink_format_zst;
extern const winent_sink_format winent_sink_format_tif;
extern const winent_sink_format winent_sink_format_zarr;

/* ---- The registry (sink_registry.c), above the formats ---------------- */

/* Every output format, in the order the messages list them; NULL-ended. */
extern const winent_sink_format *const winent_sink_formats[];

/* The format --format `f` names; NULL for WINENT_FORMAT_AUTO or none. */
const winent_sink_format *winent_sink_format_find(winent_format f);

/* The format whose extension `path` has (case aside), the `unnamed` one
 * for "-" and a name without an extension; NULL for an unknown one. */
const winent_sink_format *winent_sink_format_of_name(const char *path);

/* ---- Shared helpers (sink_base.c), below the formats ------------------ */

/* The extension of `path`'s last component, without the dot; "" when
 * there is none (a leading dot, as in ".out", starts no extension). */
const char *winent_sink_extension_of(const char *path);

/* The checks of an output name that know no format (winent_output_check's
 * first): a name at all, and not a remote one (/vsis3/..., https://...). */
winent_status winent_sink_check_name(const char *output_path, winent_err *err);

/* Probe `output_path` into *out (WINENT_ERR_OUTPUT for a name that cannot
 * be an output), and refuse it when it is the input's file (a usage
 * error; `input_path` may be NULL: nothing to compare). */
winent_status winent_sink_check_target(const char *input_path, const char *output_path,
                                       winent_outfile_probe *out, winent_err *err);

/* Memory of a zstd compression context at `level` with frames of a few
 * MiB: its tables grow with the level's window and hash sizes. */
size_t winent_sink_zstd_state_bytes(int level);

/* ---- Between the GeoTIFF layouts (sink_tiff.c, sink_cog.c) ------------ */

/* The Cloud-Optimized layout of a GeoTIFF (sink_cog.c); the GeoTIFF
 * format's open passes the default layout on to it. */
winent_status winent_sink_cog_open(winent_sink *s, winent_err *err);

/* Overview tiles are means, whose low mantissa bits are noise: zstd's
 * default level 3 compresses them hardly better than its fast levels (a
 * 512 x 512 tile of a level 1: 1.31:1 at level 3, 1.27 at 1, 1.21 at -3,
 * in 13, 5 and 2.8 ms), so without --level a COG's overview tiles get
 * level -3, with a zstd context of their own: the COG's extra over the
 * tiled file fell from +23 % to +18.5 % (mean of six rounds,
 * docs/PERFORMANCE.md) for overviews 5 % larger. With --level they get
 * that level (sink_cog.c; sink_tiff.c counts the context's memory). */
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
