/* SPDX-License-Identifier: BSD-3-Clause */
/* The engines behind one table of functions (create, submit, wait,
 * destroy) and the one driver body that runs each of them: claim READY
 * chunks up to the engine's slots, submit, retire the oldest. The CPU
 * engine's submit posts the chunk's bands to the worker pool; a GPU's runs
 * the chunk on a stream of its own. Either computes every map of the rows
 * it takes: a CPU band all maps of its rows, a GPU one CUDA engine per
 * map, all on the chunk's slot. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline_internal.h"

#define MAX_SLOTS 16

/* ---- The CPU engine: bands on the worker pool ------------------------- */

static winent_status cpu_create(engine *e, winent_err *err)
{
    (void)e, (void)err; /* its scratch (the maps' CPU engines) is made with the pool */
    return WINENT_OK;
}

/* Rows per band of the next chunk: the shortest any map's engine asks
 * for, as a band computes every map of its rows (any value gives the same
 * bits). */
static int cpu_band_rows(const job_plan *pl)
{
    int rows = 0;
    for (int m = 0; m < pl->nmaps; m++) {
        if (!pl->maps[m].owner)
            continue;
        int r = winent_cpu_engine_band_rows(pl->maps[m].cpu, pl->width);
        rows = rows == 0 || r < rows ? r : rows;
    }
    return rows;
}

static winent_status cpu_submit(engine *e, int slot, chunk *c, winent_err *err)
{
    pipeline *p = e->p;
    (void)slot, (void)err;
    pthread_mutex_lock(&p->lock);
    if (c->engine == e) { /* not taken over by a GPU meanwhile */
        c->band_rows = cpu_band_rows(&p->plan);
        c->nbands = (c->y1 - c->y0 + c->band_rows - 1) / c->band_rows;
        c->next_band = 0;
        c->bands_left = c->nbands;
        pthread_cond_broadcast(&p->work_cv);
    }
    pthread_mutex_unlock(&p->lock);
    return WINENT_OK;
}

static int cpu_wants_more(const engine *e);

static winent_status cpu_wait(engine *e, int slot, chunk *c, int may_claim, int *done,
                              winent_err *err)
{
    pipeline *p = e->p;
    (void)slot, (void)err;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        if (c->bands_left == 0 || c->engine != e || STOPPED(p)) {
            *done = 1;
            break;
        }
        /* The workers are about to run out of bands and a chunk is there:
         * go and claim it rather than let them idle. */
        if (may_claim && cpu_wants_more(e) &&
            winent_sched_can_claim_locked(&p->ring, &p->plan, &p->meter, &p->set, e)) {
            *done = 0;
            break;
        }
        pthread_cond_wait(&p->state_cv, &p->lock);
    }
    pthread_mutex_unlock(&p->lock);
    return WINENT_OK;
}

static void cpu_destroy(engine *e)
{
    (void)e;
}

/* Another chunk only when the workers would soon run out of bands: chunks
 * claimed early would be held back from faster engines. */
static int cpu_wants_more(const engine *e)
{
    const pipeline *p = e->p;
    int waiting = 0;
    for (int i = 0; i < p->ring.n_max; i++) {
        const chunk *c = &p->ring.chunks[i];
        if (c->state == CHUNK_CLAIMED && c->engine == e)
            waiting += c->nbands - c->next_band;
    }
    return waiting < p->plan.threads;
}

const engine_ops winent_cpu_engine_ops = {"cpu",       cpu_create,     cpu_submit, cpu_wait,
                                          cpu_destroy, cpu_wants_more, NULL,       NULL};

/* ---- A GPU: one chunk per stream ---------------------------------------- */

/* A GPU's CUDA engines, one per map: slot s of each computes its map of
 * the chunk on slot s. */
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
    for (int m = 0; m < p->plan.nmaps; m++, gm->n++) {
        winent_status st =
            winent_gpu_engine_create(p->plan.maps[m].plan, e->device, p->plan.width,
                                     p->plan.chunk_rows + 2 * p->plan.ry, e->slots, &gm->g[m], err);
        if (st != WINENT_OK) {
            gpu_maps_free(gm);
            return st;
        }
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
                                    c->tail_engine == e ? c->tail_y0 : c->y0);
    pthread_mutex_unlock(&p->lock);
    if (c->registered == 0)
        pin_chunk(p, e, c);
    gpu_maps *gm = e->state;
    const int y0 = c->tail_engine == e ? c->tail_y0 : c->y0;
    for (int m = 0; m < p->plan.nmaps; m++) {
        /* Only its windows' input rows go over: for a tail (the rows the
         * CPU left) or a map of a smaller window than the chunk's halo, a
         * part of the chunk's own input rows. */
        const uint8_t *plane = c->rows + (size_t)p->plan.maps[m].band * p->plan.plane_bytes;
        winent_chunk v = {NULL, p->plan.rows_stride, p->plan.width, p->plan.height, 0, 0, y0,
                          c->y1};
        winent_chunk_input_rows(y0, c->y1, p->plan.maps[m].plan->ry, p->plan.height, &v.in_y0,
                                &v.in_h);
        v.rows = plane + (size_t)(v.in_y0 - c->in_y0) * p->plan.rows_stride;
        float *out =
            c->map + (size_t)m * p->plan.map_plane + (size_t)(y0 - c->y0) * p->plan.map_stride;
        WINENT_TRY(winent_gpu_engine_submit(gm->g[m], slot, &v, out, p->plan.map_stride, err));
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

const engine_ops winent_gpu_engine_ops = {"gpu",           gpu_create,          gpu_submit,
                                          gpu_wait,        gpu_destroy,         gpu_wants_more,
                                          winent_devices_pin, winent_devices_unpin};

/* ---- The GPUs' end ------------------------------------------------------ */

/* Every GPU driver started has ended, and no other can come (lock held). */
static int gpus_all_finished(const engine_set *es)
{
    if (es->launching)
        return 0; /* auto: more may come */
    for (int i = 0; i < es->nengines; i++)
        if (es->engines[i].device >= 0 && es->engines[i].started && !es->engines[i].finished)
            return 0;
    return 1;
}

/* A GPU's driver is done with it (its state freed). The last one to end
 * (or the launcher, when they all ended while it decided) unpins every
 * pinned buffer while the rest of the job (the CPU's last chunks, encoding,
 * writing) goes on; with release_gpus each driver then resets its device.
 * Left to the process's exit, the pages and the contexts cost it 0.05-0.1 s
 * a GPU after the job (docs/PERFORMANCE.md). Lock not held. */
static void gpu_finished(engine *e)
{
    pipeline *p = e->p;
    pthread_mutex_lock(&p->lock);
    e->finished = 1;
    pthread_cond_broadcast(&p->state_cv); /* the launcher may wait for it */
    if (gpus_all_finished(&p->set))
        winent_ring_unpin_locked(&p->ring);
    while (!p->ring.gpus_unpinned)
        pthread_cond_wait(&p->state_cv, &p->lock);
    pthread_mutex_unlock(&p->lock);
    if (p->plan.opts->release_gpus)
        winent_devices_release(e->device);
}

/* ---- The driver body ---------------------------------------------------- */

static int other_engine_may_run(const engine_set *es, const engine *e)
{
    for (int i = 0; i < es->nengines; i++)
        if (&es->engines[i] != e &&
            (es->engines[i].live || es->engines[i].ops == &winent_cpu_engine_ops))
            return 1;
    return 0;
}

/* After a failure: settle every chunk the engine holds (a GPU may still be
 * writing into it), then either hand them back to the queue (an auto job
 * goes on without a failed GPU) or stop the job. Lock not held. */
static void give_up(engine *e, chunk **held, int head, int n, const winent_err *why)
{
    pipeline *p = e->p;
    for (int k = 0; k < n; k++) {
        winent_err ignore;
        winent_err_clear(&ignore);
        int slot = (head + k) % e->slots, done;
        e->ops->wait(e, slot, held[slot], 0, &done, &ignore);
    }
    pthread_mutex_lock(&p->lock);
    int go_on = p->plan.auto_device && e->ops == &winent_gpu_engine_ops && !STOPPED(p) &&
                other_engine_may_run(&p->set, e);
    if (go_on) {
        for (int k = 0; k < n; k++) {
            chunk *c = held[(head + k) % e->slots];
            if (c->tail_engine == e) {
                winent_sched_return_tail_locked(&p->ring, &p->plan, c, e);
                continue;
            }
            c->state = CHUNK_READY;
            c->engine = NULL;
            e->pixels_inflight -= (int64_t)(c->y1 - c->y0) * p->plan.width;
            e->inflight--;
        }
        winent_report_notice_locked(&p->report, "%s: %s: going on without it", e->name, why->msg);
    }
    e->live = 0;
    e->failed = 1;
    pthread_cond_broadcast(&p->state_cv);
    pthread_mutex_unlock(&p->lock);
    if (!go_on)
        winent_report_fail(&p->report, why);
}

/* Chunks' worth of --mem a GPU's context takes (WINENT_GPU_HOST_BYTES),
 * rounded up. */
static int64_t gpu_context_chunks(const job_plan *pl)
{
    const uint64_t per = pl->chunk_bytes ? pl->chunk_bytes : 1;
    return (int64_t)((WINENT_GPU_HOST_BYTES + per - 1) / per);
}

void *winent_engine_driver(void *arg)
{
    engine *e = arg;
    pipeline *p = e->p;
    winent_err err;
    winent_err_clear(&err);
    chunk *held[MAX_SLOTS];
    int head = 0, n = 0;
    const int lane = LANE_ENGINE(p, e);
    if (e->slots > MAX_SLOTS)
        e->slots = MAX_SLOTS;
    winent_trace_mark(p->trace, lane, "create", -1);
    if (e->ops->create(e, &err) != WINENT_OK) {
        give_up(e, held, 0, 0, &err);
        goto out;
    }
    winent_trace_mark(p->trace, lane, "live", -1);
    pthread_mutex_lock(&p->lock);
    e->live = 1;
    if (p->plan.auto_device && e->device >= 0) {
        /* Chunks for its slots, within what --mem allows. */
        winent_ring_gpu_context_locked(&p->ring, gpu_context_chunks(&p->plan), e->slots);
    }
    pthread_cond_broadcast(&p->state_cv);
    for (;;) {
        if (STOPPED(p))
            break;
        if (n < e->slots && (n == 0 || e->ops->wants_more(e))) {
            winent_trace_mark(p->trace, lane, "claim", -1);
            chunk *c = winent_sched_claim_locked(&p->ring, &p->plan, &p->meter, &p->set, e, n == 0);
            if (c != NULL) {
                winent_trace_mark(p->trace, lane, "claimed", c->seq);
                int slot = (head + n) % e->slots;
                held[slot] = c;
                n++;
                if (p->meter.first_submit_s == 0.0)
                    p->meter.first_submit_s = winent_now();
                pthread_mutex_unlock(&p->lock);
                if (e->ops->submit(e, slot, c, &err) != WINENT_OK) {
                    give_up(e, held, head, n, &err);
                    goto out;
                }
                winent_trace_mark(p->trace, lane, "submitted", c->seq);
                pthread_mutex_lock(&p->lock);
                continue;
            }
            if (n == 0)
                break; /* none will come */
        }
        chunk *c = held[head];
        int done = 1;
        pthread_mutex_unlock(&p->lock);
        winent_trace_mark(p->trace, lane, "wait", c->seq);
        if (e->ops->wait(e, head, c, n < e->slots, &done, &err) != WINENT_OK) {
            give_up(e, held, head, n, &err);
            goto out;
        }
        pthread_mutex_lock(&p->lock);
        if (STOPPED(p))
            break;
        if (!done)
            continue; /* claim first, then wait again */
        winent_trace_mark(p->trace, lane, "done", c->seq);
        if (c->engine == e || c->tail_engine == e) /* else a GPU took it over
                                                      before it started */
            winent_sched_computed_locked(&p->ring, &p->plan, c, e);
        head = (head + 1) % e->slots;
        n--;
    }
    e->live = 0;
    pthread_cond_broadcast(&p->state_cv);
    pthread_mutex_unlock(&p->lock);
    /* Stopped with chunks in flight: let the device finish with them. */
    for (; n > 0; n--, head = (head + 1) % e->slots) {
        winent_err ignore;
        int done;
        winent_err_clear(&ignore);
        e->ops->wait(e, head, held[head], 0, &done, &ignore);
    }
out:
    e->ops->destroy(e);
    if (e->device >= 0)
        gpu_finished(e);
    return NULL;
}

/* ---- Bringing GPUs in --------------------------------------------------- */

engine *winent_engine_add(pipeline *p, const engine_ops *ops, int device, int slots)
{
    if (p->set.nengines >= WINENT_MAX_ENGINES)
        return NULL;
    engine *e = &p->set.engines[p->set.nengines++];
    memset(e, 0, sizeof *e);
    e->ops = ops;
    e->p = p;
    e->device = device;
    e->slots = slots;
    if (device < 0)
        snprintf(e->name, sizeof e->name, "cpu");
    else
        snprintf(e->name, sizeof e->name, "gpu%d", device);
    winent_trace_name(p->trace, LANE_ENGINE(p, e), e->name);
    return e;
}

/* Start the driver of GPU `d` (lock held). NULL when it could not. */
static engine *start_gpu(pipeline *p, int d)
{
    if (p->set.nengines >= WINENT_MAX_ENGINES || STOPPED(p))
        return NULL;
    engine *e = winent_engine_add(p, &winent_gpu_engine_ops, d, p->plan.gpu_slots);
    if (pthread_create(&e->thread, NULL, winent_engine_driver, e) != 0) {
        p->set.nengines--; /* never started: not one of the job's engines */
        return NULL;
    }
    e->started = 1;
    return e;
}

/* The first GPU has computed two chunks (or ended): do the others pay?
 * They do when it failed, or when the pixels nobody has claimed would keep
 * it busy for over WINENT_GPU_MORE_S at its rate after its first chunk
 * (which pays for loading the kernels). Lock held. */
static int more_gpus_pay(const job_plan *pl, const engine_set *es, const engine *first)
{
    winent_first_gpu g = {first->failed,
                          first->chunks_done,
                          (double)first->pixels_done,
                          (double)first->first_px,
                          first->busy_s,
                          first->first_busy_s,
                          (double)pl->width * (double)pl->height};
    for (int i = 0; i < es->nengines; i++)
        g.px_left -= (double)es->engines[i].pixels_done + (double)es->engines[i].pixels_inflight;
    return winent_more_gpus_pay(&g, WINENT_GPU_MORE_S);
}

int winent_gpu_room_locked(job_ring *r, const job_plan *pl)
{
    winent_mem_view m = {pl->mem_auto, pl->chunk_bytes, WINENT_GPU_HOST_BYTES, r->n_fit,
                         r->n_made,    r->n_need,       pl->gpu_slots};
    return winent_gpu_room(&m, &r->n_limit);
}

/* auto: GPU `d` next, where --mem leaves room for its context; else a
 * notice (lock held). */
static engine *start_gpu_within_mem(pipeline *p, int d)
{
    if (winent_gpu_room_locked(&p->ring, &p->plan))
        return start_gpu(p, d);
    winent_report_notice_locked(&p->report,
                                "--mem %lluM leaves no room beside the chunks for gpu%d's "
                                "context (%llu MiB of host memory): going on without it",
                                (unsigned long long)(p->plan.mem_budget >> 20), d,
                                (unsigned long long)(WINENT_GPU_HOST_BYTES >> 20));
    return NULL;
}

/* auto: find the GPUs and bring the first one up; the others only when
 * they pay (more_gpus_pay), each where --mem leaves room for it. Until it
 * has decided (`launching`), the GPUs' end (gpu_finished) waits for it. */
void *winent_gpu_launcher(void *arg)
{
    pipeline *p = arg;
    /* CUDA's first call in this process (auto starts on the CPU): unless
     * the job is long, the driver starts only the first GPU. */
    if (p->plan.opts->release_gpus && !winent_auto_all_gpus(p->set.cpu_alone_s, WINENT_GPU_ALL_S))
        winent_devices_first_only();
    int count = winent_devices_count();
    pthread_mutex_lock(&p->lock);
    engine *first = count > 0 ? start_gpu_within_mem(p, winent_devices_host_id(0)) : NULL;
    if (first != NULL && count > 1) {
        while (!STOPPED(p) && !first->finished && first->chunks_done < 2)
            pthread_cond_wait(&p->state_cv, &p->lock);
        if (!STOPPED(p) && more_gpus_pay(&p->plan, &p->set, first))
            for (int d = 1; d < count; d++)
                if (start_gpu_within_mem(p, winent_devices_host_id(d)) == NULL)
                    break;
    }
    p->set.launching = 0;
    if (first != NULL && gpus_all_finished(&p->set))
        winent_ring_unpin_locked(&p->ring); /* they ended while it decided */
    pthread_cond_broadcast(&p->state_cv);
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* ---- When the GPUs come in (auto) -------------------------------------- */

static void launch_gpus_locked(pipeline *p, double cpu_alone_s)
{
    p->set.gpu_launch = 1;
    p->set.cpu_alone_s = cpu_alone_s;
    p->set.launching = 1;
    /* From now on the CPU leaves the first GPU's context its room where it
     * still can; the launcher checks it again once it has found a GPU. */
    winent_gpu_room_locked(&p->ring, &p->plan);
    if (pthread_create(&p->set.launcher, NULL, winent_gpu_launcher, p) == 0)
        p->set.launcher_started = 1;
    else
        p->set.launching = 0;
}

void winent_gpus_launch_early_locked(pipeline *p, const chunk *c)
{
    if (!p->plan.auto_device || p->set.gpu_launch)
        return;
    /* The CPU's best case, for its kernel path on these data (before any
     * data, the best of its paths): every core at that cost for each pixel
     * that enters or leaves a window as it slides, in every map. */
    double updates = 0.0;
    for (int m = 0; m < p->plan.nmaps; m++) {
        const job_map *jm = &p->plan.maps[m];
        if (jm->cpu == NULL)
            return;
        const uint8_t *rows = c ? c->rows + (size_t)jm->band * p->plan.plane_bytes : NULL;
        double ns = winent_cpu_engine_ns_per_update(jm->cpu, rows, p->plan.rows_stride,
                                                    p->plan.width, c ? c->in_h : 0);
        updates += ns * (double)(jm->plan->kx + jm->plan->ky);
    }
    updates *= (double)p->plan.width * (double)p->plan.height;
    const double cpu_alone_s = updates * 1e-9 / (double)p->plan.threads;
    if (cpu_alone_s > WINENT_GPU_WORTH_S)
        launch_gpus_locked(p, cpu_alone_s);
}

void winent_gpus_maybe_launch_locked(pipeline *p)
{
    if (!p->plan.auto_device || p->set.gpu_launch || p->meter.first_band_s <= 0.0)
        return;
    /* The CPU's rate so far tells how long it would take alone: bring the
     * GPUs in once that is long enough for them to pay. Before a band has
     * ended, only its running time says anything, and only once it is long
     * beside a band's usual time (a worker may simply not have run yet). */
    const job_meter *m = &p->meter;
    if (m->bands_done < p->plan.threads && winent_now() - m->first_band_s < WINENT_BAND_PATIENCE_S)
        return; /* a band per worker first: the first bands of a job run cold */
    const double rate = winent_sched_cpu_rate(m, p->plan.width, p->plan.threads);
    const double px = (double)p->plan.width * (double)p->plan.height;
    int worth = winent_gpus_worth(rate, px, m->bands_done, p->plan.threads, WINENT_GPU_WORTH_S);
    if (worth < 0)
        p->set.gpu_launch = -1; /* measured: the CPU alone is quick enough */
    else if (worth > 0)
        launch_gpus_locked(p, rate > 0 ? px / rate : 0.0);
}
