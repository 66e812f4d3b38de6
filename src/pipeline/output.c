/* SPDX-License-Identifier: BSD-3-Clause */
/* Where a job's maps go, one kind behind one interface (winent_job_output):
 *   units    a sink whose units the pool encodes (.zst frames, GeoTIFF
 *            tiles); the writer writes them in order, unit by unit;
 *   floats   a raw map the writer writes from the computed rows (a
 *            stream: one ordered writer);
 *   at       a raw map to files: the pool stores the rows by offset (one
 *            writer thread tops out near 2-3 GB/s);
 *   memory   the caller's buffer: computed in place, or, for a staged
 *            chunk, stored into it by the pool;
 *   encoded  the encode stage: units encoded, their bytes counted;
 *   none     a stage alone (read, compute): nothing kept.
 * Picked once at setup (winent_output_open). It is the job's first tap
 * (winent_job_tap): its pieces encode units or store rows; the reader
 * asks it where a chunk's maps go (place). */
#include <string.h>

#include "pipeline_internal.h"

static void place_own(const winent_job_output *out, chunk *c)
{
    (void)out;
    c->map = c->map_own;
}

static int no_pieces(const winent_job_tap *tap, const chunk *c)
{
    (void)tap, (void)c;
    return 0;
}

/* Rows of the chunk stored in pieces of store_rows, map by map. */
static int store_pieces(const job_plan *pl, const chunk *c)
{
    return pl->nmaps * ((c->y1 - c->y0 + pl->store_rows - 1) / pl->store_rows);
}

/* Store piece k of chunk c (of store_pieces): map *m, its rows from *r0,
 * *nr of them; the first of them in the chunk's map. */
static const float *store_piece(const job_plan *pl, const chunk *c, long k, int *m, int *r0,
                                int *nr)
{
    const int rows = c->y1 - c->y0;
    const int per_map = (rows + pl->store_rows - 1) / pl->store_rows;
    *m = (int)(k / per_map);
    *r0 = (int)(k % per_map) * pl->store_rows;
    *nr = rows - *r0 < pl->store_rows ? rows - *r0 : pl->store_rows;
    return c->map + (size_t)*m * pl->map_plane + (size_t)*r0 * pl->map_stride;
}

static winent_status sink_commit(winent_job_tap *tap, winent_err *err)
{
    return winent_sink_finish(((winent_job_output *)tap)->sink, err);
}

/* ---- units ----------------------------------------------------------- */

static int units_pieces(const winent_job_tap *tap, const chunk *c)
{
    return c->out.npieces * ((const winent_job_output *)tap)->plan->nmaps;
}

/* Piece k: a unit (or a tile of it) of map k / npieces, encoded with the
 * worker's encoder (made on first use). */
static winent_status units_piece(const winent_job_tap *tap, void **scratch, chunk *c, long k,
                                 winent_err *err)
{
    const winent_job_output *out = (const winent_job_output *)tap;
    const job_plan *pl = out->plan;
    if (*scratch == NULL) {
        winent_sink_encoder *enc = NULL;
        WINENT_TRY(winent_sink_encoder_create(out->sink, &enc, err));
        *scratch = enc;
    }
    int m = (int)(k / c->out.npieces), kk = (int)(k % c->out.npieces);
    int u = kk / pl->parts, part = kk % pl->parts;
    int r0 = u * pl->unit_rows;
    int nr = c->y1 - c->y0 - r0 < pl->unit_rows ? c->y1 - c->y0 - r0 : pl->unit_rows;
    return winent_sink_encode_part(*scratch, m, c->y0 / pl->unit_rows + u, part,
                                   c->map + (size_t)m * pl->map_plane + (size_t)r0 * pl->map_stride,
                                   nr, &c->out.units[k], err);
}

static void units_scratch_free(const winent_job_tap *tap, void *scratch)
{
    (void)tap;
    winent_sink_encoder_free(scratch);
}

/* Unit by unit, every map's in turn: the order does not depend on where
 * the chunks were cut. */
static winent_status units_write(winent_job_tap *tap, const chunk *c, winent_err *err)
{
    const winent_job_output *out = (const winent_job_output *)tap;
    const job_plan *pl = out->plan;
    int first = c->y0 / pl->unit_rows;
    for (int u = 0; u < c->out.nunits; u++)
        for (int m = 0; m < pl->nmaps; m++)
            for (int k = 0; k < pl->parts; k++)
                WINENT_TRY(winent_sink_write_part(out->sink, m, first + u, k,
                                                  &c->out.units[(m * c->out.nunits + u) * pl->parts + k],
                                                  err));
    return WINENT_OK;
}

/* ---- floats ---------------------------------------------------------- */

static winent_status floats_write(winent_job_tap *tap, const chunk *c, winent_err *err)
{
    const winent_job_output *out = (const winent_job_output *)tap;
    const job_plan *pl = out->plan;
    for (int m = 0; m < pl->nmaps; m++)
        WINENT_TRY(winent_sink_write_floats(out->sink, m, c->map + (size_t)m * pl->map_plane,
                                            (size_t)(c->y1 - c->y0) * (size_t)pl->width, err));
    return WINENT_OK;
}

/* ---- at -------------------------------------------------------------- */

static int at_pieces(const winent_job_tap *tap, const chunk *c)
{
    return store_pieces(((const winent_job_output *)tap)->plan, c);
}

/* Piece k: store_rows rows of one map, by offset into the raw map's file. */
static winent_status at_store(const winent_job_tap *tap, void **scratch, chunk *c, long k,
                              winent_err *err)
{
    const winent_job_output *out = (const winent_job_output *)tap;
    const job_plan *pl = out->plan;
    int m, r0, nr;
    (void)scratch;
    const float *src = store_piece(pl, c, k, &m, &r0, &nr);
    const size_t W = (size_t)pl->width;
    return winent_sink_write_floats_at(out->sink, m, (uint64_t)(c->y0 + r0) * W, src,
                                       W * (size_t)nr, err);
}

/* ---- memory ---------------------------------------------------------- */

/* A chunk's maps are its own (then stored by the pool) where it is
 * staged, or where the caller's maps are planes of the whole image apart
 * (several measures); else computed in place. */
static int memory_own(const job_plan *pl, const chunk *c)
{
    return c->staged || pl->nmaps > 1;
}

/* In place, at the caller's row step, or in the chunk's own maps. */
static void memory_place(const winent_job_output *out, chunk *c)
{
    const job_plan *pl = out->plan;
    c->map = memory_own(pl, c) ? c->map_own : pl->mem_out + (size_t)c->y0 * pl->map_stride;
}

static int memory_pieces(const winent_job_tap *tap, const chunk *c)
{
    const job_plan *pl = ((const winent_job_output *)tap)->plan;
    return memory_own(pl, c) ? store_pieces(pl, c) : 0;
}

/* Piece k of a chunk's own maps: store_rows rows of one map into its
 * plane of the caller's buffer. */
static winent_status memory_store(const winent_job_tap *tap, void **scratch, chunk *c, long k,
                                  winent_err *err)
{
    const job_plan *pl = ((const winent_job_output *)tap)->plan;
    int m, r0, nr;
    const float *src = store_piece(pl, c, k, &m, &r0, &nr);
    const size_t W = (size_t)pl->width;
    (void)scratch, (void)err;
    winent_copy_rows(pl->mem_out + (size_t)m * pl->mem_out_plane +
                         (size_t)(c->y0 + r0) * pl->mem_out_stride,
                     pl->mem_out_stride * sizeof(float), src, W * sizeof(float),
                     W * sizeof(float), (size_t)nr);
    return WINENT_OK;
}

/* ---- encoded (the encode stage) -------------------------------------- */

static winent_status encoded_write(winent_job_tap *tap, const chunk *c, winent_err *err)
{
    winent_job_output *out = (winent_job_output *)tap;
    (void)err;
    for (int k = 0; k < c->out.npieces * out->plan->nmaps; k++)
        out->bytes += c->out.units[k].size;
    return WINENT_OK;
}

/* ---- the pick -------------------------------------------------------- */

/* A sink whose units the pool encodes (and the encode stage's). */
static void set_units(winent_job_output *out, const char *kind)
{
    out->tap.kind = kind;
    out->units = 1;
    out->tap.pieces = units_pieces;
    out->tap.piece = units_piece;
    out->tap.scratch_free = units_scratch_free;
    out->tap.write = units_write;
}

void winent_output_open(const job_plan *pl, winent_sink *sink, winent_job_output *out)
{
    memset(out, 0, sizeof *out);
    out->plan = pl;
    out->sink = sink;
    out->tap.kind = "none";
    out->place = place_own;
    out->tap.pieces = no_pieces;
    out->own_map = pl->stage != WINENT_STAGE_ENCODE && pl->stage != WINENT_STAGE_DECODE;
    if (pl->stage == WINENT_STAGE_ENCODE) {
        set_units(out, "encoded");
        out->tap.write = encoded_write;
    } else if (pl->mem_out) {
        out->tap.kind = "memory";
        out->tap.stores = 1;
        out->own_map = pl->store_mem;
        out->place = memory_place;
        out->tap.pieces = memory_pieces;
        out->tap.piece = memory_store;
    } else if (pl->stage == WINENT_STAGE_JOB) {
        /* The sink's end writes what is left and puts it in place: its
         * commit, after every tap has finished. */
        out->tap.commit = sink_commit;
        if (pl->store_out) {
            out->tap.kind = "at";
            out->tap.stores = 1;
            out->tap.pieces = at_pieces;
            out->tap.piece = at_store;
        } else if (pl->raw_floats) {
            out->tap.kind = "floats";
            out->tap.write = floats_write;
        } else {
            set_units(out, "units");
        }
    }
}
