/* SPDX-License-Identifier: BSD-3-Clause */
/* A GPU (engine_ops): one chunk per stream, one CUDA engine per map (one
 * for a run of co-occurrence maps that share a pass, as the CPU's), all
 * on the chunk's slot; it takes over the tail of a chunk the CPU started.
 * At its end it unpins the host buffers and, with release_gpus, resets its
 * device. */
#include <stdlib.h>

#include "pipeline_internal.h"

/* A GPU's CUDA engines: slot s of each computes its maps of the chunk on
 * slot s. g[m] computes maps m .. m + winent_gpu_engine_planes(g[m]) - 1
 * (winent_plan_group_len), the others of its run NULL. */
typedef struct gpu_maps {
    int n;
    winent_gpu_engine *g[]; /* owned */
} gpu_maps;

static void gpu_maps_free(gpu_maps *gm)
{
    for (int m = 0; gm && m < gm->n; m++)
        winent_gpu_engine_free(gm->g[m]);
    free(gm);
}

static winent_status gpu_create(engine *e, winent_err *err)
{
    pipeline *p = e->p;
    gpu_maps *gm = calloc(1, sizeof *gm + (size_t)p->plan.nmaps * sizeof gm->g[0]);
    if (gm == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    gm->n = p->plan.nmaps;
    for (int m = 0; m < p->plan.nmaps;) {
        const winent_plan *plans[WINENT_CPU_SHARED_MAX];
        const int n = winent_plan_group_len(&p->plan, m);
        for (int k = 0; k < n; k++)
            plans[k] = p->plan.maps[m + k].plan;
        winent_status st = winent_gpu_engine_create_shared(plans, n, e->device, p->plan.width,
                                                           p->plan.chunk_rows + 2 * p->plan.ry,
                                                           e->slots, &gm->g[m], err);
        if (st != WINENT_OK) {
            gpu_maps_free(gm);
            return st;
        }
        m += n;
    }
    e->state = gm;
    return WINENT_OK;
}

/* Pin the chunk's own buffers on first use by a GPU, so its copies run
 * asynchronously at full speed (portable: for every GPU). Buffers made
 * later are pinned as they are made (winent_chunk_buffers). The pinning
 * itself (milliseconds a chunk: the pages are locked one by one) runs
 * outside the lock, which every other stage needs meanwhile: the chunk is
 * this engine's alone while it holds it. */
static void pin_chunk(pipeline *p, const engine *e, chunk *c)
{
    pthread_mutex_lock(&p->lock);
    p->ring.gpus_registered = 1;
    int todo = c->registered == 0;
    pthread_mutex_unlock(&p->lock);
    if (!todo)
        return;
    winent_trace_mark(p->trace, LANE_ENGINE(p, e), "pin", c->seq);
    const winent_host_pin hooks = {e->ops->pin, e->ops->unpin};
    int ok = winent_chunk_pin(&hooks, c);
    pthread_mutex_lock(&p->lock);
    c->registered = ok ? 1 : -1; /* unpinned memory still works, with slower copies */
    winent_trace_mark(p->trace, LANE_ENGINE(p, e), "pinned", c->seq);
    pthread_mutex_unlock(&p->lock);
}

static winent_status gpu_submit(engine *e, int slot, chunk *c, winent_err *err)
{
    pipeline *p = e->p;
    /* The pool counts its clamped samples while the GPU computes (the
     * CPU's bands count their own). */
    pthread_mutex_lock(&p->lock);
    winent_sched_post_counts_locked(&p->ring, &p->plan, c,
                                    c->claim.tail == e ? c->claim.tail_y0 : c->y0);
    pthread_mutex_unlock(&p->lock);
    if (c->registered == 0)
        pin_chunk(p, e, c);
    gpu_maps *gm = e->state;
    const int y0 = c->claim.tail == e ? c->claim.tail_y0 : c->y0;
    for (int m = 0; m < p->plan.nmaps;) {
        /* Only its windows' input rows go over: for a tail (the rows the
         * CPU left) or a map of a smaller window than the chunk's halo, a
         * part of the chunk's own input rows. */
        const uint8_t *plane = c->rows + (size_t)p->plan.maps[m].band * p->plan.plane_bytes;
        winent_chunk v = {NULL, p->plan.rows_stride, p->plan.width, p->plan.height, 0, 0, y0,
                          c->y1};
        winent_chunk_input_rows(y0, c->y1, p->plan.maps[m].plan->ry, p->plan.height, &v.in_y0,
                                &v.in_h);
        v.rows = plane + (size_t)(v.in_y0 - c->in_y0) * p->plan.rows_stride;
        const int n = winent_gpu_engine_planes(gm->g[m]);
        float *planes[WINENT_CPU_SHARED_MAX];
        for (int k = 0; k < n; k++)
            planes[k] = c->map + (size_t)(m + k) * p->plan.map_plane +
                        (size_t)(y0 - c->y0) * p->plan.map_stride;
        WINENT_TRY(winent_gpu_engine_submit_planes(gm->g[m], slot, &v, planes, n,
                                                   p->plan.map_stride, err));
        m += n;
    }
    return WINENT_OK;
}

/* Every map's engine has the slot's chunk done; the first failure is
 * reported, after waiting for all (none may still write into the chunk). */
static winent_status gpu_wait(engine *e, int slot, chunk *c, int may_claim, int *done,
                              winent_err *err)
{
    gpu_maps *gm = e->state;
    winent_status first = WINENT_OK;
    (void)c, (void)may_claim;
    *done = 1;
    for (int m = 0; m < gm->n; m++) {
        if (gm->g[m] == NULL) /* computed by its run's first engine */
            continue;
        winent_err e2;
        winent_err_clear(&e2);
        winent_status st = winent_gpu_engine_wait(gm->g[m], slot, &e2);
        if (st != WINENT_OK && first == WINENT_OK) {
            first = st;
            winent_err_merge(err, &e2);
        }
    }
    return first;
}

static void gpu_destroy(engine *e)
{
    gpu_maps_free(e->state);
    e->state = NULL;
}

static int gpu_wants_more(const engine *e)
{
    (void)e;
    return 1;
}

/* Pixels a second over its busy time, once a chunk is done (0 before). */
static double gpu_rate(const engine *e, const job_plan *pl, const job_meter *m)
{
    (void)pl, (void)m;
    return e->busy_s > 0.0 && e->chunks_done > 0 ? (double)e->pixels_done / e->busy_s : 0.0;
}

/* ---- The GPUs' end ------------------------------------------------------ */

int winent_engines_gpus_finished_locked(const engine_set *es)
{
    if (es->launching)
        return 0; /* auto: more may come */
    for (int i = 0; i < es->nengines; i++) {
        const engine *e = &es->engines[i];
        if (e->ops->kind == ENGINE_GPU && e->started && !e->finished)
            return 0;
    }
    return 1;
}

/* A GPU's driver is done with it (its state freed). The last one to end
 * (or the policy, when they all ended while it decided) unpins every
 * pinned buffer while the rest of the job (the CPU's last chunks, encoding,
 * writing) goes on; with release_gpus each driver then resets its device.
 * Left to the process's exit, the pages and the contexts cost it 0.05-0.1 s
 * a GPU after the job (docs/PERFORMANCE.md). Lock not held. */
static void gpu_finished(engine *e)
{
    pipeline *p = e->p;
    pthread_mutex_lock(&p->lock);
    e->finished = 1;
    pthread_cond_broadcast(&p->state_cv); /* the policy may wait for it */
    if (winent_engines_gpus_finished_locked(&p->set))
        winent_ring_unpin_locked(&p->ring);
    while (!p->ring.gpus_unpinned)
        pthread_cond_wait(&p->state_cv, &p->lock);
    pthread_mutex_unlock(&p->lock);
    if (p->plan.release_gpus)
        winent_devices_release(e->device);
}

const engine_ops winent_gpu_engine_ops = {
    .name = "gpu",
    .kind = ENGINE_GPU,
    .bands = 0,
    .gives_tails = 0,
    .takes_tails = 1,
    .recheck_ms = 0,
    .host_bytes = WINENT_GPU_HOST_BYTES,
    .rate = gpu_rate,
    .create = gpu_create,
    .submit = gpu_submit,
    .wait = gpu_wait,
    .destroy = gpu_destroy,
    .wants_more = gpu_wants_more,
    .end = gpu_finished,
    .pin = winent_devices_pin,
    .unpin = winent_devices_unpin,
};
