/* SPDX-License-Identifier: BSD-3-Clause */
/* What a job reads, one kind behind one interface (winent_job_input):
 *   source  the source's rows, front to back, once: the last 2 ry rows of
 *           each band are carried into the next chunk's upper halo;
 *   memory  the caller's buffer: a chunk's rows are a window on it (in
 *           place), or, where GPUs may compute, copied by the pool into
 *           the chunk's own buffer (staged: FILLING);
 *   zst     --decode: the rows of every map of a .zst file, straight to
 *           the encoders (or, for raw output, to the writer);
 *   map     the encode stage: the map it is given, straight to the
 *           encoders.
 * Picked once at setup (winent_input_open); the reader and the pool only
 * call it. */
#include <stdlib.h>
#include <string.h>

#include "pipeline_internal.h"

static int never_stages(const winent_job_input *in, int launched)
{
    (void)in;
    (void)launched;
    return 0;
}

static void no_fill(const winent_job_input *in, chunk *c, long k)
{
    (void)in;
    (void)c;
    (void)k;
}

/* ---- source ---------------------------------------------------------- */

/* The reader's carry: the last 2 ry rows read of each band. */
typedef struct source_carry {
    uint8_t *rows;   /* a plane of 2 ry rows per band */
    void **dst;      /* each band's rows to read, one chunk at a time */
    int y0;          /* the first row kept */
    int next_read;   /* the next row the source gives */
} source_carry;

static winent_status source_read(winent_job_input *in, chunk *c, chunk_state *next,
                                 winent_err *err)
{
    const job_plan *pl = in->plan;
    source_carry *k = in->state;
    const int ry = pl->ry;
    const size_t rb = pl->row_bytes, carry_plane = rb * (size_t)(2 * ry);
    if (k->rows == NULL) {
        /* Made by the reader at its first chunk, once --mem has been
         * checked against the rows (an absurd width is a usage error that
         * names the --mem it needs, not an out of memory here). */
        k->rows = malloc(carry_plane * (size_t)pl->nbands + 1);
        k->dst = malloc(sizeof *k->dst * (size_t)pl->nbands);
        if (k->rows == NULL || k->dst == NULL)
            return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    }
    c->rows = c->rows_own;
    /* Rows before next_read come from the carry, the rest from the
     * source: every band's, each in its plane. */
    int from_carry = k->next_read - c->in_y0;
    if (from_carry < 0)
        from_carry = 0;
    for (int b = 0; b < pl->nbands; b++) {
        uint8_t *plane = c->rows + (size_t)b * pl->plane_bytes;
        const uint8_t *kept = k->rows + (size_t)b * carry_plane;
        if (from_carry > 0)
            memcpy(plane, kept + rb * (size_t)(c->in_y0 - k->y0), rb * (size_t)from_carry);
        k->dst[b] = plane + rb * (size_t)from_carry;
    }
    WINENT_TRY(winent_source_read_bands(in->source, c->in_h - from_carry, k->dst, err));
    k->next_read = c->in_y0 + c->in_h;
    int carry_n = c->in_h < 2 * ry ? c->in_h : 2 * ry;
    k->y0 = k->next_read - carry_n;
    for (int b = 0; b < pl->nbands; b++)
        memcpy(k->rows + (size_t)b * carry_plane,
               c->rows + (size_t)b * pl->plane_bytes + rb * (size_t)(k->y0 - c->in_y0),
               rb * (size_t)carry_n);
    /* The decode stage alone: read, nothing computed. */
    *next = pl->stage == WINENT_STAGE_DECODE ? CHUNK_DONE : CHUNK_READY;
    return WINENT_OK;
}

/* ---- memory ---------------------------------------------------------- */

/* Staged where GPUs may compute: every chunk (GPUs named, or the caller's
 * rows not packed), else those read once the GPUs are launched. */
static int memory_stages(const winent_job_input *in, int launched)
{
    return in->plan->fill_in && (in->plan->stage_all || launched);
}

static winent_status memory_read(winent_job_input *in, chunk *c, chunk_state *next,
                                 winent_err *err)
{
    const job_plan *pl = in->plan;
    (void)err;
    if (!c->staged) {
        c->rows = (uint8_t *)pl->mem_in + pl->rows_stride * (size_t)c->in_y0;
        *next = CHUNK_READY;
        return WINENT_OK;
    }
    /* Staged: the pool copies the rows in, several pieces at once. */
    c->rows = c->rows_own;
    c->fill.n = (c->in_h + pl->fill_rows - 1) / pl->fill_rows;
    c->fill.next = 0;
    c->fill.left = c->fill.n;
    *next = c->fill.n > 0 ? CHUNK_FILLING : CHUNK_READY;
    return WINENT_OK;
}

/* Piece k of a staged chunk's input rows: from the caller's buffer into
 * the chunk's own (packed). */
static void memory_fill(const winent_job_input *in, chunk *c, long k)
{
    const job_plan *pl = in->plan;
    int ya = c->in_y0 + (int)k * pl->fill_rows;
    int yb = ya + pl->fill_rows < c->in_y0 + c->in_h ? ya + pl->fill_rows : c->in_y0 + c->in_h;
    winent_copy_rows(c->rows_own + pl->row_bytes * (size_t)(ya - c->in_y0), pl->row_bytes,
                     pl->mem_in + pl->mem_in_stride * (size_t)ya, pl->mem_in_stride,
                     pl->row_bytes, (size_t)(yb - ya));
}

/* ---- zst (--decode) -------------------------------------------------- */

static winent_status zst_read(winent_job_input *in, chunk *c, chunk_state *next, winent_err *err)
{
    const job_plan *pl = in->plan;
    for (int m = 0; m < pl->nmaps; m++)
        WINENT_TRY(winent_zst_reader_read_map(in->map_in, m, c->y1 - c->y0,
                                              c->map + (size_t)m * pl->map_plane, err));
    *next = pl->encodes && c->out.npieces > 0 ? CHUNK_ENCODING : CHUNK_DONE;
    return WINENT_OK;
}

/* ---- map (the encode stage) ------------------------------------------ */

static winent_status map_read(winent_job_input *in, chunk *c, chunk_state *next, winent_err *err)
{
    const job_plan *pl = in->plan;
    (void)err;
    c->map = (float *)pl->stage_map + (size_t)c->y0 * pl->map_stride;
    *next = CHUNK_ENCODING;
    return WINENT_OK;
}

/* ---- the pick -------------------------------------------------------- */

winent_status winent_input_open(const job_plan *pl, winent_source *source,
                                winent_zst_reader *map_in, winent_job_input *in, winent_err *err)
{
    memset(in, 0, sizeof *in);
    in->plan = pl;
    in->source = source;
    in->map_in = map_in;
    in->stages = never_stages;
    in->fill = no_fill;
    if (pl->stage == WINENT_STAGE_ENCODE) {
        in->kind = "map";
        in->read = map_read;
    } else if (in->map_in) {
        in->kind = "zst";
        in->read = zst_read;
    } else if (pl->mem_in) {
        in->kind = "memory";
        in->own_rows = pl->fill_in;
        in->stages = memory_stages;
        in->read = memory_read;
        in->fill = memory_fill;
    } else {
        in->kind = "source";
        in->own_rows = 1;
        in->read = source_read;
        source_carry *k = calloc(1, sizeof *k);
        in->state = k;
        if (k == NULL)
            return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    }
    return WINENT_OK;
}

void winent_input_close(winent_job_input *in)
{
    source_carry *k = in->read == source_read ? in->state : NULL;
    if (k) {
        free(k->rows);
        free(k->dst);
    }
    free(in->state);
    in->state = NULL;
}
