/* SPDX-License-Identifier: BSD-3-Clause */
/* The chunk queue: engines claim READY chunks from one queue, each at its
 * own pace (declines: who leaves a chunk to whom), take over a CPU chunk's
 * tail, and mark their part computed, which hands the chunk to the pool's
 * encoding (tasks.c). Lock held throughout (the ring's, *r->lock). Each
 * function is handed what it uses: the ring (the chunks, the conditions,
 * the stop flag), the plan, the meter, the engine set. */
#include <stdlib.h>
#include <string.h>

#include "pipeline_internal.h"

/* ---- Claims ------------------------------------------------------------ */

/* The CPU's rate on every worker: from the bands done, else, while the
 * first bands run, an upper bound from how long they have been running (so
 * a slow CPU is known to be slow before its first band ends). */
double winent_sched_cpu_rate(const job_meter *m, int width, int threads)
{
    const double workers = (double)threads;
    if (m->band_s > 0.0)
        return m->band_px / m->band_s * workers;
    if (m->first_band_s > 0.0) {
        double t = winent_now() - m->first_band_s;
        return (double)width * (double)m->first_band_rows * workers / (t > 1e-3 ? t : 1e-3);
    }
    return 0.0;
}

static double engine_rate(const job_plan *pl, const job_meter *m, const engine *e)
{
    return e->ops->rate(e, pl, m);
}

/* The engines and the job as the claims see them (decide.h), taken now
 * (lock held): `ev` holds es->nengines views. */
static winent_claim_view claim_view(const job_plan *pl, const job_meter *m, const engine_set *es,
                                    winent_engine_view *ev)
{
    const double now = winent_now();
    for (int i = 0; i < es->nengines; i++) {
        const engine *e = &es->engines[i];
        ev[i].cpu = e->ops->kind == ENGINE_CPU;
        ev[i].live = e->live;
        ev[i].inflight = e->inflight;
        ev[i].rate = engine_rate(pl, m, e);
        ev[i].pixels_inflight = (double)e->pixels_inflight;
        ev[i].pixels_done = (double)e->pixels_done;
        ev[i].busy_for = now - e->busy_since;
    }
    winent_claim_view v = {ev,          es->nengines, (double)pl->width, (double)pl->height,
                           pl->threads, m->enc_px,    m->enc_s};
    return v;
}

/* Engine `e` leaves chunk `c` to the others (winent_declines, decide.c). */
static int declines(const job_plan *pl, const job_meter *m, const engine_set *es, const engine *e,
                    const chunk *c)
{
    winent_engine_view ev[WINENT_MAX_ENGINES];
    winent_claim_view v = claim_view(pl, m, es, ev);
    return winent_declines(&v, (int)(e - es->engines), c->y0, c->y1);
}

/* Chunks claimed but not computed by engines other than `e`, a tail that
 * another engine computes included (a GPU that fails on it gives the whole
 * chunk back when the CPU is done with its part: the CPU must still be
 * there to take it). */
static int others_hold(const job_ring *r, const engine *e)
{
    for (int i = 0; i < r->n_max; i++) {
        const chunk *c = &r->chunks[i];
        if (c->state == CHUNK_FILLING) /* READY once the pool has copied it in */
            return 1;
        if (c->state == CHUNK_CLAIMED &&
            (c->claim.engine != e || (c->claim.tail != NULL && c->claim.tail != e)))
            return 1;
    }
    return 0;
}

/* The oldest chunk an engine that gives tails (the CPU) claimed but has
 * not started (no band taken). */
static chunk *unstarted_cpu_chunk(job_ring *r)
{
    chunk *best = NULL;
    for (int i = 0; i < r->n_max; i++) {
        chunk *c = &r->chunks[i];
        if (c->state == CHUNK_CLAIMED && c->claim.engine && c->claim.engine->ops->gives_tails &&
            c->bands.next == 0 && (best == NULL || c->seq < best->seq))
            best = c;
    }
    return best;
}

/* The oldest chunk an engine that gives tails (the CPU) has started with
 * at least two bands not started. */
static chunk *cpu_chunk_tail(job_ring *r)
{
    chunk *best = NULL;
    for (int i = 0; i < r->n_max; i++) {
        chunk *c = &r->chunks[i];
        if (c->state == CHUNK_CLAIMED && c->claim.engine != NULL && c->claim.engine->ops->gives_tails &&
            c->claim.tail == NULL && c->bands.next > 0 && c->bands.n - c->bands.next >= 2 &&
            (best == NULL || c->seq < best->seq))
            best = c;
    }
    return best;
}

/* GPU `e` takes over the bands of CPU chunk `c` that no worker has started:
 * the CPU finishes those it started, `e` computes the rest of the rows. */
static void take_tail(job_ring *r, const job_plan *pl, engine *e, chunk *c)
{
    engine *cpu = c->claim.engine;
    int from = c->bands.next;
    c->claim.tail_y0 = c->y0 + from * c->bands.rows;
    int64_t px = (int64_t)(c->y1 - c->claim.tail_y0) * pl->width;
    c->bands.left -= c->bands.n - from;
    c->bands.n = from;
    c->claim.tail = e;
    c->claim.computing = 2;
    cpu->pixels_inflight -= px;
    if (e->inflight++ == 0)
        e->busy_since = winent_now();
    e->pixels_inflight += px;
    pthread_cond_broadcast(r->state_cv); /* the CPU's part may be done now */
}

/* GPU `e` would end the tail of `c` before the chunk's engine (the CPU)
 * does. */
static int tail_pays(const job_plan *pl, const job_meter *m, const engine *e, const chunk *c)
{
    double px = (double)(c->y1 - (c->y0 + c->bands.next * c->bands.rows)) * (double)pl->width;
    return winent_tail_pays(engine_rate(pl, m, e), (double)e->pixels_inflight,
                            engine_rate(pl, m, c->claim.engine), px);
}

void winent_sched_return_tail_locked(job_ring *r, const job_plan *pl, chunk *c, engine *e)
{
    int64_t px = (int64_t)(c->y1 - c->claim.tail_y0) * pl->width;
    e->pixels_inflight -= px;
    e->inflight--;
    c->claim.tail = NULL;
    c->claim.computing = 1;
    if (c->claim.head_done) {
        /* The CPU has let go of it: the whole chunk goes back (computing
         * its first rows again gives the same bytes; the taps have them). */
        if (c->claim.engine->ops->bands && !pl->taps_after && c->claim.tail_y0 > c->out.tapped_to)
            c->out.tapped_to = c->claim.tail_y0;
        c->state = CHUNK_READY;
        c->claim.engine = NULL;
        c->claim.head_done = 0;
    } else {
        int all = (c->y1 - c->y0 + c->bands.rows - 1) / c->bands.rows;
        c->bands.left += all - c->bands.n;
        c->bands.n = all;
        c->claim.engine->pixels_inflight += px;
        pthread_cond_broadcast(r->work_cv);
    }
    pthread_cond_broadcast(r->state_cv);
}

static void unclaim(const job_plan *pl, chunk *c)
{
    engine *o = c->claim.engine;
    o->pixels_inflight -= (int64_t)(c->y1 - c->y0) * pl->width;
    o->inflight--;
    /* Its driver finds the chunk gone when its wait returns. */
    c->bands.n = c->bands.next = c->bands.left = 0;
    c->claim.engine = NULL;
}

int winent_sched_can_claim_locked(job_ring *r, const job_plan *pl, const job_meter *m,
                                  const engine_set *es, const engine *e)
{
    chunk *c = winent_ring_oldest_locked(r, CHUNK_READY);
    return c != NULL && !declines(pl, m, es, e, c);
}

chunk *winent_sched_claim_locked(job_ring *r, const job_plan *pl, const job_meter *m,
                                 const engine_set *es, engine *e, int block)
{
    for (;;) {
        if (STOPPED(r))
            return NULL;
        chunk *c = winent_ring_oldest_locked(r, CHUNK_READY);
        if (e->ops->takes_tails) {
            /* The CPU's chunk holds the writer back when it is older than
             * any READY one: a GPU finishes its tail first. */
            chunk *t = cpu_chunk_tail(r);
            if (t != NULL && (c == NULL || t->seq < c->seq) && tail_pays(pl, m, e, t)) {
                take_tail(r, pl, e, t);
                return t;
            }
        }
        if (c == NULL && e->ops->takes_tails) {
            chunk *s = unstarted_cpu_chunk(r);
            if (s != NULL && !declines(pl, m, es, e, s)) {
                unclaim(pl, s);
                c = s;
            }
        }
        if (c != NULL && !declines(pl, m, es, e, c)) {
            c->state = CHUNK_CLAIMED;
            c->claim.engine = e;
            c->claim.tail = NULL;
            c->claim.computing = 1;
            c->claim.head_done = 0;
            c->bands.n = c->bands.next = c->bands.left = 0;
            if (e->inflight++ == 0)
                e->busy_since = winent_now();
            e->pixels_inflight += (int64_t)(c->y1 - c->y0) * pl->width;
            pthread_cond_broadcast(r->state_cv); /* the reader may make a chunk now */
            return c;
        }
        /* The end: nothing to read and nothing another engine could give
         * back (a GPU that fails in an auto job returns its chunks). */
        if (c == NULL && r->reader_done && !others_hold(r, e))
            return NULL;
        if (!block)
            return NULL;
        if (e->ops->recheck_ms > 0) {
            /* Its decision may change with time alone (the CPU's declines:
             * waiting for a GPU's first chunk). */
            winent_cond_wait_ms(r->state_cv, r->lock, e->ops->recheck_ms);
        } else {
            pthread_cond_wait(r->state_cv, r->lock);
        }
    }
}

void winent_sched_computed_locked(job_ring *r, const job_plan *pl, chunk *c, engine *e)
{
    double now = winent_now();
    int64_t px;
    if (e == c->claim.tail)
        px = (int64_t)(c->y1 - c->claim.tail_y0) * pl->width;
    else
        px = (int64_t)((c->claim.tail ? c->claim.tail_y0 : c->y1) - c->y0) * pl->width;
    {
        e->pixels_inflight -= px;
        e->pixels_done += (uint64_t)px;
        e->chunks_done++;
        /* Busy time is counted as it passes, so rates are known early. */
        e->busy_s += now - e->busy_since;
        e->busy_since = now;
        e->inflight--;
        if (e->chunks_done == 1) {
            e->first_px = e->pixels_done;
            e->first_busy_s = e->busy_s;
        }
    }
    if (e != c->claim.tail)
        c->claim.head_done = 1;
    if (--c->claim.computing > 0) {
        pthread_cond_broadcast(r->state_cv); /* this engine's queue is shorter */
        return; /* the other engine's part is still running */
    }
    /* The rows an engine computed in bands went to the taps already (each
     * band as it ended, still in cache): all of a CPU chunk, the head of
     * one whose tail a GPU took; a GPU's rows get pieces of their own. */
    int from = c->out.tapped_to;
    if (c->claim.engine && c->claim.engine->ops->bands && !pl->taps_after)
        from = c->claim.tail ? c->claim.tail_y0 : c->y1;
    if (from < c->out.tapped_to)
        from = c->out.tapped_to;
    c->claim.tail = NULL;
    c->out.taps_y0 = from;
    winent_chunk_pieces_locked(r, c); /* each tap's pieces for the pool */
    if (c->out.ntasks == 0) {
        c->state = CHUNK_DONE;
    } else {
        c->state = CHUNK_ENCODING;
        pthread_cond_broadcast(r->work_cv);
    }
    pthread_cond_broadcast(r->state_cv);
}

void winent_sched_post_counts_locked(job_ring *r, const job_plan *pl, chunk *c, int from)
{
    if (!winent_plan_counts(pl) || c->counts.n > 0 || from >= c->y1)
        return;
    c->counts.y0 = from;
    c->counts.n = (c->y1 - from + pl->count_rows - 1) / pl->count_rows;
    c->counts.next = 0;
    c->counts.left = c->counts.n;
    pthread_cond_broadcast(r->work_cv);
}
