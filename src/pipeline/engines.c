/* SPDX-License-Identifier: BSD-3-Clause */
/* The engine set and the one driver body that runs every engine behind
 * its table (engine_ops: engines_cpu.c, engines_gpu.c): claim READY chunks
 * up to the engine's slots, submit, retire the oldest. What an engine is
 * (its kind, whether it gives or takes tails, its rate) its table says;
 * nothing else in the room asks which engine it is. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline_internal.h"

#define MAX_SLOTS 16

/* ---- The driver body ---------------------------------------------------- */

static int other_engine_may_run(const engine_set *es, const engine *e)
{
    for (int i = 0; i < es->nengines; i++)
        if (&es->engines[i] != e &&
            (es->engines[i].live || es->engines[i].ops->kind == ENGINE_CPU))
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
    int go_on = p->plan.auto_device && e->ops->kind == ENGINE_GPU && !STOPPED(p) &&
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

/* Chunks' worth of --mem an engine's context takes (`bytes`: its
 * host_bytes), rounded up. */
static int64_t context_chunks(const job_plan *pl, uint64_t bytes)
{
    const uint64_t per = pl->chunk_bytes ? pl->chunk_bytes : 1;
    return (int64_t)((bytes + per - 1) / per);
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
    if (p->plan.auto_device && e->ops->host_bytes > 0) {
        /* Chunks for its slots, within what --mem allows. */
        winent_ring_gpu_context_locked(&p->ring, context_chunks(&p->plan, e->ops->host_bytes),
                                       e->slots);
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
    if (e->ops->end)
        e->ops->end(e);
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
        snprintf(e->name, sizeof e->name, "%s", ops->name);
    else
        snprintf(e->name, sizeof e->name, "%s%d", ops->name, device);
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
    if (first != NULL && winent_engines_gpus_finished_locked(&p->set))
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
