/* SPDX-License-Identifier: BSD-3-Clause */
/* The chunks' ring (job_ring): the chunk descriptors and their buffers,
 * what each chunk owns for the job's mode (input rows, output rows,
 * encoded units; their sizes for --mem are the plan's), made on first use
 * and pinned for the GPUs through the hook the engines lend (r->pin: the
 * pipeline itself never calls CUDA); how many chunks have buffers and may
 * have. The
 * fields that change do so under the job's lock (*r->lock). */
#include <stdlib.h>

#include "base/mem.h"
#include "pipeline_internal.h"

void winent_chunk_pieces_locked(const job_ring *r, chunk *c)
{
    c->out.ntasks = 0;
    for (int i = 0; i < WINENT_MAX_TAPS; i++) {
        c->out.tap_pieces[i] = i < r->ntaps ? r->taps[i]->pieces(r->taps[i], c) : 0;
        c->out.ntasks += c->out.tap_pieces[i];
    }
    c->out.next_piece = 0;
    c->out.pieces_left = c->out.ntasks;
}

int winent_chunk_piece_tap(const chunk *c, long k, long *local)
{
    int i = 0;
    while (i < WINENT_MAX_TAPS - 1 && k >= c->out.tap_pieces[i])
        k -= c->out.tap_pieces[i++];
    *local = k;
    return i;
}

int winent_chunk_pin(const winent_host_pin *h, const chunk *c)
{
    if (c->rows_own && h->pin(c->rows_own, c->rows_bytes) != 0)
        return 0;
    if (c->map_own && h->pin(c->map_own, c->map_bytes) != 0) {
        h->unpin(c->rows_own);
        return 0;
    }
    return 1;
}

winent_status winent_chunk_buffers(job_ring *r, chunk *c, winent_err *err)
{
    const job_plan *pl = r->plan;
    int units = (pl->chunk_rows + pl->unit_rows - 1) / pl->unit_rows * pl->parts * pl->nmaps;
    if (r->in->own_rows) {
        c->rows_bytes = winent_huge_round(pl->plane_bytes * (size_t)pl->nbands);
        if ((c->rows_own = winent_huge_alloc(c->rows_bytes)) == NULL)
            goto nomem;
    }
    if (r->out->own_map) {
        c->map_bytes = winent_huge_round(pl->map_plane * sizeof(float) * (size_t)pl->nmaps);
        if ((c->map_own = winent_huge_alloc(c->map_bytes)) == NULL)
            goto nomem;
    }
    if (r->out->units && (c->out.units = calloc((size_t)units, sizeof *c->out.units)) == NULL)
        goto nomem;
    pthread_mutex_lock(r->lock);
    int pin = r->gpus_registered && !r->gpus_finished && r->pin.pin != NULL;
    r->pinning += pin; /* the GPUs' release waits for it */
    pthread_mutex_unlock(r->lock);
    if (pin) {
        int ok = winent_chunk_pin(&r->pin, c);
        pthread_mutex_lock(r->lock);
        c->registered = ok ? 1 : -1;
        r->pinning--;
        pthread_cond_broadcast(r->state_cv);
        pthread_mutex_unlock(r->lock);
    }
    return WINENT_OK;
nomem:
    return WINENT_ERR(err, WINENT_ERR_INTERNAL,
                      "out of memory for the pipeline's buffers (--mem %llu MiB)",
                      (unsigned long long)(pl->mem_budget >> 20));
}

void winent_chunk_free(const job_ring *r, chunk *c)
{
    const job_plan *pl = r->plan;
    int units = pl->unit_rows
                    ? (pl->chunk_rows + pl->unit_rows - 1) / pl->unit_rows * pl->parts * pl->nmaps
                    : 0;
    if (c->registered == 1 && r->pin.unpin) {
        r->pin.unpin(c->rows_own);
        r->pin.unpin(c->map_own);
    }
    free(c->rows_own);
    free(c->map_own);
    if (c->out.units)
        for (int u = 0; u < units; u++)
            winent_bytes_free(&c->out.units[u]);
    free(c->out.units);
}

/* ---- States and counts (lock held) ------------------------------------- */

chunk *winent_ring_find_locked(job_ring *r, chunk_state st)
{
    for (int i = 0; i < r->n_max; i++)
        if (r->chunks[i].state == st)
            return &r->chunks[i];
    return NULL;
}

chunk *winent_ring_oldest_locked(job_ring *r, chunk_state st)
{
    chunk *best = NULL;
    for (int i = 0; i < r->n_max; i++) {
        chunk *c = &r->chunks[i];
        if (c->state == st && (best == NULL || c->seq < best->seq))
            best = c;
    }
    return best;
}

chunk *winent_ring_done_locked(job_ring *r, int64_t seq)
{
    for (int i = 0; i < r->n_max; i++)
        if (r->chunks[i].state == CHUNK_DONE && r->chunks[i].seq == seq &&
            r->chunks[i].counts.left == 0)
            return &r->chunks[i];
    return NULL;
}

void winent_ring_release_locked(job_ring *r, chunk *c)
{
    c->state = CHUNK_FREE;
    pthread_cond_broadcast(r->state_cv);
}

/* A free chunk, else a new one while fewer than n_limit exist. Past the
 * fewest that can work (n_need), a new chunk is made only when no READY
 * one is waiting for an engine: the engines' slots are then all taken, so
 * the buffers made are those in flight, not all that --mem allows (fresh
 * memory is time: 12 us a page on the 2-core VM; docs/PERFORMANCE.md). */
chunk *winent_ring_take_locked(job_ring *r, int *fresh)
{
    chunk *c = winent_ring_find_locked(r, CHUNK_FREE);
    *fresh = 0;
    if (c == NULL && r->n_made < r->n_limit &&
        (r->n_made < r->n_need || winent_ring_find_locked(r, CHUNK_READY) == NULL)) {
        c = winent_ring_find_locked(r, CHUNK_UNUSED);
        *fresh = c != NULL;
        r->n_made += *fresh;
    }
    if (c != NULL) {
        c->state = CHUNK_READING;
        c->counts.n = c->counts.next = c->counts.left = 0;
    }
    return c;
}

void winent_ring_unmake_locked(job_ring *r, chunk *c)
{
    c->state = CHUNK_UNUSED;
    r->n_made--;
}

int winent_ring_ahead_locked(job_ring *r)
{
    r->gpus_registered = 1;
    return r->n_limit < r->nchunks ? r->n_limit : r->nchunks;
}

void winent_ring_made_ahead_locked(job_ring *r, int n)
{
    for (int i = 0; i < n; i++)
        if (r->chunks[i].state == CHUNK_UNUSED) {
            r->chunks[i].state = CHUNK_FREE;
            r->n_made++;
        }
}

void winent_ring_gpu_context_locked(job_ring *r, int64_t ctx, int slots)
{
    r->n_fit -= (int)(ctx < r->n_fit ? ctx : r->n_fit);
    r->n_limit += slots;
    if (r->n_limit > r->n_fit)
        r->n_limit = r->n_fit;
    if (r->n_limit > r->n_max)
        r->n_limit = r->n_max;
    if (r->n_limit < r->n_need)
        r->n_limit = r->n_need;
}

/* No GPU computes any more: unpin every buffer (lock held; dropped around
 * each unpinning), then wake the drivers waiting for it. Once only. */
void winent_ring_unpin_locked(job_ring *r)
{
    if (r->gpus_finished)
        return;
    r->gpus_finished = 1; /* no buffer is pinned from now on */
    while (r->pinning > 0)
        pthread_cond_wait(r->state_cv, r->lock);
    for (int i = 0; i < r->n_max; i++) {
        chunk *c = &r->chunks[i];
        if (c->registered != 1)
            continue;
        c->registered = 0;
        pthread_mutex_unlock(r->lock);
        r->pin.unpin(c->rows_own);
        r->pin.unpin(c->map_own);
        pthread_mutex_lock(r->lock);
    }
    r->gpus_unpinned = 1;
    pthread_cond_broadcast(r->state_cv);
}
