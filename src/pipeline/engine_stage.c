/* SPDX-License-Identifier: BSD-3-Clause */
/* The public GPU engine's blocks in flight (winent_engine_submit/wait): a
 * block is cut into bands of about 4M output pixels, and the bands of every
 * block submitted, oldest block first, go through the engine's pinned
 * slots: copied into a slot's staging, to the GPU, computed, copied back,
 * and out of the staging into the block's `out`. There is no thread of the
 * engine's own: the threads that submit and wait do the copies, whoever's
 * band it is, so a dask worker's threads sharing one engine keep its GPU
 * fed while each copies (a block's last bands drain while the next block's
 * first ones compute), and their copies run side by side. A thread with
 * nothing to copy sleeps on the engine's condition, and a thread waiting
 * for the GPU sleeps on the slot's event: neither spins against the
 * copying threads' cores. */
#include <string.h>

#include "engine_facade.h"

/* Whole tiles of the kernels: a band's rows, where it has more. */
#define STAGE_TILE 32

int winent_stage_band(const winent_engine *e, int rows)
{
    const int most = e->stage_rows;
    if (rows <= most)
        return rows > 0 ? rows : 1;
    const int n = (rows + most - 1) / most;
    int band = (rows + n - 1) / n;
    if (most >= STAGE_TILE && band % STAGE_TILE)
        band += STAGE_TILE - band % STAGE_TILE; /* most is whole tiles: band stays <= most */
    return band;
}

/* Copy `n` rows of `row` bytes, `from_step` and `to_step` apart, on `team`
 * threads (a memcpy of a few MB runs several times faster over the cores,
 * and the output's first touch of its pages is spread too). */
static void copy_rows(int team, void *to, size_t to_step, const void *from, size_t from_step,
                      int n, size_t row)
{
    const int big = (size_t)n * row >= ((size_t)1 << 20);
#pragma omp parallel for schedule(static) num_threads(team) if (big)
    for (int y = 0; y < n; y++)
        memcpy((char *)to + (size_t)y * to_step, (const char *)from + (size_t)y * from_step, row);
}

/* The threads a copy takes: the engine's, fewer where the copies running
 * at once would put more threads than cores on the machine (callers that
 * each ask for all cores). Lock held; pair with copy_done. */
static int copy_team(winent_engine *e)
{
    e->copying++;
    if (e->threads * e->copying <= e->cores)
        return e->threads;
    const int team = e->cores / e->copying;
    return team > 0 ? team : 1;
}

static void copy_done(winent_engine *e)
{
    e->copying--;
}

static void block_fail(eng_block *b, winent_status st, const winent_err *err)
{
    if (b->st == WINENT_OK) {
        b->st = st;
        b->err = *err;
    }
    b->next = b->c.y1; /* none of its other bands start */
}

/* The input rows of band [y0, y1) of block `b` into slot `k`'s staging,
 * and the band started on the GPU. Lock not held. */
static winent_status band_in(winent_engine *e, int k, const eng_block *b, int y0, int y1,
                             int team, winent_err *err)
{
    stage_slot *s = &e->stage[k];
    const winent_chunk *c = &b->c;
    const size_t row = (size_t)c->width * winent_dtype_size(e->plan->opts.dtype);
    int in_y0, in_h;
    winent_chunk_input_rows(y0, y1, e->plan->ry, c->height, &in_y0, &in_h);
    copy_rows(team, s->in, row, (const char *)c->rows + (size_t)(in_y0 - c->in_y0) * c->row_bytes,
              c->row_bytes, in_h, row);
    const winent_chunk sub = {s->in, row, c->width, c->height, in_y0, in_h, y0, y1};
    pthread_mutex_lock(&e->run);
    const winent_status st = winent_gpu_engine_submit(e->gpu, k, &sub, s->out, (size_t)c->width, err);
    pthread_mutex_unlock(&e->run);
    return st;
}

/* Slot `k` takes block `b`'s next band. Lock held on entry and return. */
static void fill(winent_engine *e, int k, eng_block *b)
{
    stage_slot *s = &e->stage[k];
    const int y0 = b->next, y1 = b->c.y1 - y0 > b->band ? y0 + b->band : b->c.y1;
    b->next = y1;
    b->pending++;
    s->state = SLOT_FILL;
    s->b = b;
    s->y0 = y0;
    s->y1 = y1;
    const int team = copy_team(e);
    pthread_mutex_unlock(&e->lock);
    winent_err err;
    winent_err_clear(&err);
    winent_status st = band_in(e, k, b, y0, y1, team, &err);
    if (st != WINENT_OK) { /* nothing may still read the staging when the slot is reused */
        winent_err ignored;
        winent_err_clear(&ignored);
        winent_gpu_engine_wait_sleep(e->gpu, k, &ignored);
    }
    pthread_mutex_lock(&e->lock);
    copy_done(e);
    if (st == WINENT_OK) {
        s->state = SLOT_GPU;
        s->seq = e->launches++;
    } else {
        block_fail(b, st, &err);
        s->state = SLOT_FREE;
        s->b = NULL;
        b->pending--;
    }
    pthread_cond_broadcast(&e->changed);
}

/* Slot `k`'s band waited for on the GPU and copied out into its block's
 * `out`; the slot free again. Lock held on entry and return. */
static void drain(winent_engine *e, int k)
{
    stage_slot *s = &e->stage[k];
    eng_block *b = s->b;
    const int y0 = s->y0, n = s->y1 - s->y0;
    s->state = SLOT_DRAIN;
    const int team = copy_team(e);
    pthread_mutex_unlock(&e->lock);
    winent_err err;
    winent_err_clear(&err);
    const winent_status st = winent_gpu_engine_wait_sleep(e->gpu, k, &err);
    if (st == WINENT_OK) {
        const size_t row = (size_t)b->c.width * sizeof(float);
        copy_rows(team, b->out + (size_t)(y0 - b->c.y0) * b->out_stride,
                  b->out_stride * sizeof(float), s->out, row, n, row);
    }
    pthread_mutex_lock(&e->lock);
    copy_done(e);
    if (st != WINENT_OK)
        block_fail(b, st, &err);
    s->state = SLOT_FREE;
    s->b = NULL;
    b->pending--;
    pthread_cond_broadcast(&e->changed);
}

static int free_slot(const winent_engine *e)
{
    for (int k = 0; k < e->nslots; k++)
        if (e->stage[k].state == SLOT_FREE)
            return k;
    return -1;
}

/* The oldest block with a band not yet in a slot. */
static eng_block *next_band(const winent_engine *e)
{
    for (eng_block *b = e->first; b; b = b->later)
        if (b->next < b->c.y1)
            return b;
    return NULL;
}

static int oldest_on_gpu(const winent_engine *e)
{
    int k = -1;
    for (int i = 0; i < e->nslots; i++)
        if (e->stage[i].state == SLOT_GPU && (k < 0 || e->stage[i].seq < e->stage[k].seq))
            k = i;
    return k;
}

/* Start a band where a slot is free; if none, drain the oldest band on
 * the GPU when `may_drain`. 1 when it did either. Lock held. */
static int step(winent_engine *e, int may_drain)
{
    int k = free_slot(e);
    eng_block *b = k >= 0 ? next_band(e) : NULL;
    if (b != NULL) {
        fill(e, k, b);
        return 1;
    }
    k = may_drain ? oldest_on_gpu(e) : -1;
    if (k < 0)
        return 0;
    drain(e, k);
    return 1;
}

void winent_stage_start(winent_engine *e)
{
    while (step(e, 0))
        ;
}

void winent_stage_finish(winent_engine *e, eng_block *b)
{
    while (b->next < b->c.y1 || b->pending > 0)
        if (!step(e, 1))
            pthread_cond_wait(&e->changed, &e->lock);
}

void winent_stage_quiesce(winent_engine *e)
{
    for (int k = 0; k < e->nslots; k++)
        if (e->stage[k].state == SLOT_GPU) {
            winent_err ignored;
            winent_err_clear(&ignored);
            winent_gpu_engine_wait_sleep(e->gpu, k, &ignored);
            e->stage[k].state = SLOT_FREE;
        }
}
