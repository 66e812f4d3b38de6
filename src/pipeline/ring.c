/* SPDX-License-Identifier: BSD-3-Clause */
/* The chunks' buffers: what each chunk owns for the job's mode (input
 * rows, output rows, encoded units), their sizes for --mem, made on first
 * use and pinned for the GPUs through the hook the engines lend
 * (p->pin: the pipeline itself never calls CUDA). */
#include <stdlib.h>

#include "base/mem.h"
#include "pipeline_internal.h"

/* Bytes of one band's input rows for chunks of `rows` output rows: a
 * multiple of 64, so every plane is as aligned as the first. */
uint64_t winent_ring_plane_bytes(const pipeline *p, uint64_t rows)
{
    return ((uint64_t)p->plan.row_bytes * (rows + 2 * (uint64_t)p->plan.ry) + 63) / 64 * 64;
}

/* Bytes one chunk of `rows` output rows holds: input rows of every band,
 * float rows of every map, and the encoded units (counted half as large as
 * the floats, plus what the sink adds to each unit). */
uint64_t winent_ring_chunk_bytes(const pipeline *p, uint64_t rows)
{
    const uint64_t W = (uint64_t)p->plan.width, maps = (uint64_t)p->plan.nmaps;
    uint64_t b = 0;
    if (p->plan.want_preview) /* the preview rows its map rows can keep open */
        b += winent_preview_rows_bytes(&p->plan.preview_opts, (int64_t)rows);
    if (p->in.own_rows)
        b += winent_huge_round(winent_ring_plane_bytes(p, rows) * (uint64_t)p->plan.nbands);
    if (p->out.own_map)
        b += winent_huge_round(W * rows * 4 * maps);
    if (p->out.units)
        b += (W * rows * 2 +
              (rows + p->plan.unit_rows - 1) / p->plan.unit_rows * p->plan.unit_extra) *
             maps;
    return b;
}

winent_status winent_chunk_buffers(pipeline *p, chunk *c, winent_err *err)
{
    int units = (p->plan.chunk_rows + p->plan.unit_rows - 1) / p->plan.unit_rows * p->plan.parts *
                p->plan.nmaps;
    if (p->in.own_rows) {
        c->rows_bytes = winent_huge_round(p->plan.plane_bytes * (size_t)p->plan.nbands);
        if ((c->rows_own = winent_huge_alloc(c->rows_bytes)) == NULL)
            goto nomem;
    }
    if (p->out.own_map) {
        c->map_bytes = winent_huge_round(p->plan.map_plane * sizeof(float) * (size_t)p->plan.nmaps);
        if ((c->map_own = winent_huge_alloc(c->map_bytes)) == NULL)
            goto nomem;
    }
    if (p->out.units && (c->units = calloc((size_t)units, sizeof *c->units)) == NULL)
        goto nomem;
    pthread_mutex_lock(&p->lock);
    int pin = p->gpus_registered && !p->gpus_finished && p->pin.pin != NULL;
    p->pinning += pin; /* the GPUs' release waits for it */
    pthread_mutex_unlock(&p->lock);
    if (pin) {
        int ok = (!c->rows_own || p->pin.pin(c->rows_own, c->rows_bytes) == 0);
        if (ok && c->map_own && p->pin.pin(c->map_own, c->map_bytes) != 0) {
            p->pin.unpin(c->rows_own);
            ok = 0;
        }
        pthread_mutex_lock(&p->lock);
        c->registered = ok ? 1 : -1;
        p->pinning--;
        pthread_cond_broadcast(&p->state_cv);
        pthread_mutex_unlock(&p->lock);
    }
    return WINENT_OK;
nomem:
    return WINENT_ERR(err, WINENT_ERR_INTERNAL,
                      "out of memory for the pipeline's buffers (--mem %llu MiB)",
                      (unsigned long long)(p->plan.mem_budget >> 20));
}

void winent_chunk_free(pipeline *p, chunk *c)
{
    int units = p->plan.unit_rows ? (p->plan.chunk_rows + p->plan.unit_rows - 1) /
                                        p->plan.unit_rows * p->plan.parts * p->plan.nmaps
                                  : 0;
    if (c->registered == 1 && p->pin.unpin) {
        p->pin.unpin(c->rows_own);
        p->pin.unpin(c->map_own);
    }
    free(c->rows_own);
    free(c->map_own);
    if (c->units)
        for (int u = 0; u < units; u++)
            winent_bytes_free(&c->units[u]);
    free(c->units);
}

