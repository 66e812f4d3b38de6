/* SPDX-License-Identifier: BSD-3-Clause */
/* The chunk queue: engines claim READY chunks from one queue, each at its
 * own pace (declines: who leaves a chunk to whom), take over a CPU chunk's
 * tail, and mark their part computed, which hands the chunk to the pool's
 * encoding (tasks.c). Lock held throughout. */
#include <stdlib.h>
#include <string.h>

#include "pipeline_internal.h"

/* ---- Claims ------------------------------------------------------------ */

static chunk *oldest(pipeline *p, chunk_state st)
{
    chunk *best = NULL;
    for (int i = 0; i < p->n_max; i++) {
        chunk *c = &p->chunks[i];
        if (c->state == st && (best == NULL || c->seq < best->seq))
            best = c;
    }
    return best;
}

/* The CPU's rate on every worker: from the bands done, else, while the
 * first bands run, an upper bound from how long they have been running (so
 * a slow CPU is known to be slow before its first band ends). */
double winent_sched_cpu_rate(const pipeline *p)
{
    const double workers = (double)p->threads;
    if (p->band_s > 0.0)
        return p->band_px / p->band_s * workers;
    if (p->first_band_s > 0.0) {
        double t = winent_now() - p->first_band_s;
        return (double)p->width * (double)p->first_band_rows * workers / (t > 1e-3 ? t : 1e-3);
    }
    return 0.0;
}

static double engine_rate(const pipeline *p, const engine *e)
{
    if (e->device < 0)
        return winent_sched_cpu_rate(p);
    return e->busy_s > 0.0 && e->chunks_done > 0 ? (double)e->pixels_done / e->busy_s : 0.0;
}

/* The CPU's fair share of the job's compute when the GPUs run beside it.
 * The pool's cores also encode every chunk, whoever computes it: a pixel the
 * CPU computes costs 1/C of the pool's time (C: its compute rate), a pixel
 * encoded 1/A (A: the pool's encoding rate, all cores). With the GPUs at G
 * together, the job ends soonest when the CPU computes the fraction
 * f = (1/G - 1/A) / (1/G + 1/C) of the pixels: none at all when the GPUs
 * compute faster than the pool can encode (then every band the CPU computes
 * delays the encoding the job waits for). 1 while the CPU is under its
 * share with `px` more. */
static int cpu_share_left(const pipeline *p, const engine *cpu, double gpus, double cpu_rate,
                          double px)
{
    double inv_a = 0.0; /* no encoding seen yet: as if free */
    if (p->enc_px > 0.0 && p->enc_s > 0.0)
        inv_a = p->enc_s / p->enc_px / (double)p->threads;
    double f = (1.0 / gpus - inv_a) / (1.0 / gpus + 1.0 / cpu_rate);
    if (f <= 0.0)
        return 0;
    double total = (double)p->width * (double)p->height;
    double mine = (double)cpu->pixels_done + (double)cpu->pixels_inflight;
    return mine + px <= f * total + px * 0.5;
}

/* An engine leaves chunk `c` to the others when it would finish it later
 * than they finish everything that is left, itself excluded: so the slowest
 * engine never holds back the end of the job. Before its rates are known
 * every engine takes what comes. The engine that would end `c` first, its
 * own queue counted, never leaves it: else every engine could leave the
 * last chunk to the others together, which no one of them takes (three
 * engines, each slower than the other two together, waited forever). */
static int declines(pipeline *p, const engine *e, const chunk *c)
{
    double mine = engine_rate(p, e), others = 0.0;
    int other_live = 0;
    int64_t others_inflight = 0;
    const double px = (double)(c->y1 - c->y0) * (double)p->width;
    double t_first_other = -1.0; /* the soonest another engine would end c */
    for (int i = 0; i < p->nengines; i++) {
        const engine *o = &p->engines[i];
        if (o == e || !o->live)
            continue;
        other_live = 1;
        double r = engine_rate(p, o);
        /* A GPU just up, on its first chunk: the CPU waits for its rate
         * rather than hold a chunk it would take over anyway, but no longer
         * than the CPU itself would take for the chunk (a GPU that slow is
         * no faster). */
        if (e->device < 0 && r <= 0.0 && o->inflight > 0 && mine > 0.0 &&
            winent_now() - o->busy_since < px / mine)
            return 1;
        others += r;
        others_inflight += o->pixels_inflight;
        if (r > 0.0) {
            double t = ((double)o->pixels_inflight + px) / r;
            if (t_first_other < 0.0 || t < t_first_other)
                t_first_other = t;
        }
    }
    if (!other_live || mine <= 0.0 || others <= 0.0)
        return 0;
    if (((double)e->pixels_inflight + px) / mine <= t_first_other)
        return 0;
    const double W = (double)p->width;
    if (e->device < 0 && !cpu_share_left(p, e, others, mine, px))
        return 1;
    double left = (double)(p->height - c->y0) * W; /* unclaimed rows from c on */
    double t_mine = ((double)e->pixels_inflight + (double)(c->y1 - c->y0) * W) / mine;
    double t_others = ((double)others_inflight + left) / others;
    return t_mine > t_others;
}

/* Chunks claimed but not computed by engines other than `e`, a tail that
 * another engine computes included (a GPU that fails on it gives the whole
 * chunk back when the CPU is done with its part: the CPU must still be
 * there to take it). */
static int others_hold(const pipeline *p, const engine *e)
{
    for (int i = 0; i < p->n_max; i++) {
        const chunk *c = &p->chunks[i];
        if (c->state == CHUNK_FILLING) /* READY once the pool has copied it in */
            return 1;
        if (c->state == CHUNK_CLAIMED &&
            (c->engine != e || (c->tail_engine != NULL && c->tail_engine != e)))
            return 1;
    }
    return 0;
}

/* The oldest chunk the CPU claimed but has not started (no band taken). */
static chunk *unstarted_cpu_chunk(pipeline *p)
{
    chunk *best = NULL;
    for (int i = 0; i < p->n_max; i++) {
        chunk *c = &p->chunks[i];
        if (c->state == CHUNK_CLAIMED && c->engine && c->engine->device < 0 &&
            c->next_band == 0 && (best == NULL || c->seq < best->seq))
            best = c;
    }
    return best;
}

/* The oldest chunk the CPU has started with at least two bands not
 * started. */
static chunk *cpu_chunk_tail(pipeline *p)
{
    chunk *best = NULL;
    for (int i = 0; i < p->n_max; i++) {
        chunk *c = &p->chunks[i];
        if (c->state == CHUNK_CLAIMED && c->engine != NULL && c->engine->device < 0 &&
            c->tail_engine == NULL && c->next_band > 0 && c->nbands - c->next_band >= 2 &&
            (best == NULL || c->seq < best->seq))
            best = c;
    }
    return best;
}

/* GPU `e` takes over the bands of CPU chunk `c` that no worker has started:
 * the CPU finishes those it started, `e` computes the rest of the rows. */
static void take_tail(pipeline *p, engine *e, chunk *c)
{
    engine *cpu = c->engine;
    int from = c->next_band;
    c->tail_y0 = c->y0 + from * c->band_rows;
    int64_t px = (int64_t)(c->y1 - c->tail_y0) * p->width;
    c->bands_left -= c->nbands - from;
    c->nbands = from;
    c->tail_engine = e;
    c->computing = 2;
    cpu->pixels_inflight -= px;
    if (e->inflight++ == 0)
        e->busy_since = winent_now();
    e->pixels_inflight += px;
    pthread_cond_broadcast(&p->state_cv); /* the CPU's part may be done now */
}

/* GPU `e` would end the tail of `c` before the CPU does. */
static int tail_pays(const pipeline *p, const engine *e, const chunk *c)
{
    double mine = engine_rate(p, e), cpu = winent_sched_cpu_rate(p);
    if (mine <= 0.0 || cpu <= 0.0)
        return 1; /* not measured yet: a GPU with nothing to do tries */
    double px = (double)(c->y1 - (c->y0 + c->next_band * c->band_rows)) * (double)p->width;
    return ((double)e->pixels_inflight + px) / mine < px / cpu;
}

void winent_sched_return_tail_locked(pipeline *p, chunk *c, engine *e)
{
    int64_t px = (int64_t)(c->y1 - c->tail_y0) * p->width;
    e->pixels_inflight -= px;
    e->inflight--;
    c->tail_engine = NULL;
    c->computing = 1;
    if (c->head_done) {
        /* The CPU has let go of it: the whole chunk goes back (computing
         * its first rows again gives the same bytes; the preview has them). */
        if (c->engine->device < 0 && !p->preview_after && c->tail_y0 > c->previewed_to)
            c->previewed_to = c->tail_y0;
        c->state = CHUNK_READY;
        c->engine = NULL;
        c->head_done = 0;
    } else {
        int all = (c->y1 - c->y0 + c->band_rows - 1) / c->band_rows;
        c->bands_left += all - c->nbands;
        c->nbands = all;
        c->engine->pixels_inflight += px;
        pthread_cond_broadcast(&p->work_cv);
    }
    pthread_cond_broadcast(&p->state_cv);
}

static void unclaim(pipeline *p, chunk *c)
{
    engine *o = c->engine;
    o->pixels_inflight -= (int64_t)(c->y1 - c->y0) * p->width;
    o->inflight--;
    /* Its driver finds the chunk gone when its wait returns. */
    c->nbands = c->next_band = c->bands_left = 0;
    c->engine = NULL;
}

int winent_sched_can_claim_locked(pipeline *p, const engine *e)
{
    chunk *c = oldest(p, CHUNK_READY);
    return c != NULL && !declines(p, e, c);
}

chunk *winent_sched_claim_locked(pipeline *p, engine *e, int block)
{
    for (;;) {
        if (STOPPED(p))
            return NULL;
        chunk *c = oldest(p, CHUNK_READY);
        if (e->device >= 0) {
            /* The CPU's chunk holds the writer back when it is older than
             * any READY one: a GPU finishes its tail first. */
            chunk *t = cpu_chunk_tail(p);
            if (t != NULL && (c == NULL || t->seq < c->seq) && tail_pays(p, e, t)) {
                take_tail(p, e, t);
                return t;
            }
        }
        if (c == NULL && e->device >= 0) {
            chunk *s = unstarted_cpu_chunk(p);
            if (s != NULL && !declines(p, e, s)) {
                unclaim(p, s);
                c = s;
            }
        }
        if (c != NULL && !declines(p, e, c)) {
            c->state = CHUNK_CLAIMED;
            c->engine = e;
            c->tail_engine = NULL;
            c->computing = 1;
            c->head_done = 0;
            c->nbands = c->next_band = c->bands_left = 0;
            if (e->inflight++ == 0)
                e->busy_since = winent_now();
            e->pixels_inflight += (int64_t)(c->y1 - c->y0) * p->width;
            pthread_cond_broadcast(&p->state_cv); /* the reader may make a chunk now */
            return c;
        }
        /* The end: nothing to read and nothing another engine could give
         * back (a GPU that fails in an auto job returns its chunks). */
        if (c == NULL && p->reader_done && !others_hold(p, e))
            return NULL;
        if (!block)
            return NULL;
        if (e->device < 0) {
            /* The CPU's decision may change with time alone (declines:
             * waiting for a GPU's first chunk): look again every 20 ms. */
            winent_cond_wait_ms(&p->state_cv, &p->lock, 20);
        } else {
            pthread_cond_wait(&p->state_cv, &p->lock);
        }
    }
}

void winent_sched_computed_locked(pipeline *p, chunk *c, engine *e)
{
    double now = winent_now();
    int64_t px;
    if (e == c->tail_engine)
        px = (int64_t)(c->y1 - c->tail_y0) * p->width;
    else
        px = (int64_t)((c->tail_engine ? c->tail_y0 : c->y1) - c->y0) * p->width;
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
    if (e != c->tail_engine)
        c->head_done = 1;
    if (--c->computing > 0) {
        pthread_cond_broadcast(&p->state_cv); /* this engine's queue is shorter */
        return; /* the other engine's part is still running */
    }
    /* The rows the CPU computed are in the preview already (each band was
     * added as it ended, still in cache): all of a CPU chunk, the head of
     * one whose tail a GPU took; a GPU's rows get slices of their own. */
    int from = c->previewed_to;
    if (c->engine && c->engine->device < 0 && !p->preview_after)
        from = c->tail_engine ? c->tail_y0 : c->y1;
    if (from < c->previewed_to)
        from = c->previewed_to;
    c->tail_engine = NULL;
    c->preview_y0 = from;
    p->out.pieces(&p->out, c); /* nenc units to encode, nstore pieces to store */
    c->ntasks = c->nenc + c->nstore;
    if (p->preview && from < c->y1)
        c->ntasks += (c->y1 - from + p->band_rows - 1) / p->band_rows;
    if (c->ntasks == 0) {
        c->state = CHUNK_DONE;
    } else {
        c->state = CHUNK_ENCODING;
        c->next_piece = 0;
        c->pieces_left = c->ntasks;
        pthread_cond_broadcast(&p->work_cv);
    }
    pthread_cond_broadcast(&p->state_cv);
}

void winent_sched_post_counts_locked(pipeline *p, chunk *c, int from)
{
    if (!p->count_clamps || c->count_n > 0 || from >= c->y1)
        return;
    c->count_y0 = from;
    c->count_n = (c->y1 - from + p->count_rows - 1) / p->count_rows;
    c->count_next = 0;
    c->count_left = c->count_n;
    pthread_cond_broadcast(&p->work_cv);
}
