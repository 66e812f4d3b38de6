/* SPDX-License-Identifier: BSD-3-Clause */
/* The CPU engine (engine_ops): a chunk as bands of rows on the worker
 * pool (tasks.c runs them), each band computing every map of its rows.
 * Its bands count their rows' clamped samples and add them to the preview in
 * cache; a GPU may take over the bands no worker has started. */
#include "pipeline_internal.h"

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
    if (c->claim.engine == e) { /* not taken over by a GPU meanwhile */
        c->bands.rows = cpu_band_rows(&p->plan);
        c->bands.n = (c->y1 - c->y0 + c->bands.rows - 1) / c->bands.rows;
        c->bands.next = 0;
        c->bands.left = c->bands.n;
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
        if (c->bands.left == 0 || c->claim.engine != e || STOPPED(p)) {
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
        if (c->state == CHUNK_CLAIMED && c->claim.engine == e)
            waiting += c->bands.n - c->bands.next;
    }
    return waiting < p->plan.threads;
}

/* The CPU's rate on every worker (the meter's bands). */
static double cpu_rate(const engine *e, const job_plan *pl, const job_meter *m)
{
    (void)e;
    return winent_sched_cpu_rate(m, pl->width, pl->threads);
}

const engine_ops winent_cpu_engine_ops = {
    .name = "cpu",
    .kind = ENGINE_CPU,
    .bands = 1,
    .gives_tails = 1,
    .takes_tails = 0,
    /* Its declines may change with time alone (waiting for a GPU's first
     * chunk): its claims look again this often. */
    .recheck_ms = 20,
    .host_bytes = 0,
    .rate = cpu_rate,
    .create = cpu_create,
    .submit = cpu_submit,
    .wait = cpu_wait,
    .destroy = cpu_destroy,
    .wants_more = cpu_wants_more,
};
