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
            if (c->claim.tail == e) {
                winent_sched_return_tail_locked(&p->ring, &p->plan, c, e);
                continue;
            }
            c->state = CHUNK_READY;
            c->claim.engine = NULL;
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
        if (c->claim.engine == e || c->claim.tail == e) /* else a GPU took it over
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

/* ---- The engine set --------------------------------------------------- */

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
