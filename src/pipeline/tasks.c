/* SPDX-License-Identifier: BSD-3-Clause */
/* The job's work on the worker pool (pool.h's callbacks): which task of
 * the chunks comes next and running it: CPU bands, the taps' pieces (units
 * to encode, rows to store, preview slices), a staged memory job's rows
 * to copy in, a GPU's rows to count. Picked under the job's lock, run
 * outside it. */
#include <stdlib.h>
#include <string.h>

#include "pipeline_internal.h"

typedef enum task_kind {
    TASK_NONE = 0,
    TASK_DECODE, /* the pool's own (pool.c); its trace events stay first */
    TASK_ENCODE,
    TASK_COUNT,
    TASK_FILL,
    TASK_BAND
} task_kind;

typedef struct task {
    task_kind kind;
    chunk *c;
    long index; /* decode item, unit or band */
    int count;  /* a band that counts its rows' clamped samples too */
    int held;   /* TASK_NONE: a band is waiting, held back while a GPU starts */
} task;

/* The tap of task t (an ENCODE: a tap's piece). */
static const winent_job_tap *task_tap(const pipeline *p, const task *t, long *local)
{
    return p->taps[winent_chunk_piece_tap(t->c, t->index, local)];
}

/* The trace's event for the start (end 0) or the end of task t: a piece
 * of a tap that stores rows is one of ENCODE's. */
static const char *task_event(const pipeline *p, const task *t, int end)
{
    static const char *const ev[][2] = {{"", ""},           {"decode", "decoded"},
                                        {"encode", "encoded"}, {"count", "counted"},
                                        {"fill", "filled"},   {"band", "banded"}};
    long local;
    if (t->kind == TASK_ENCODE && task_tap(p, t, &local)->stores)
        return end ? "stored" : "store";
    return ev[t->kind][end];
}

/* A CPU band waits: the policy's limit on the CPU's bands in flight
 * (policy.c: a share of the threads while the first GPU starts). Lock
 * held. */
static int band_held(const job_policy *pol, int bands_running)
{
    return pol->max_cpu_bands > 0 && bands_running >= pol->max_cpu_bands;
}

/* The next task, most urgent first (after the pool's decoding, which the
 * reader waits on): the oldest chunk's pieces to encode or store (they free buffers and
 * feed the writer), then the oldest staged chunk's rows to copy in (the
 * engines wait for them), then the oldest chunk's rows to count (small,
 * and the writer waits for them too), then the oldest CPU chunk's bands.
 * Lock held. */
static task next_task(pipeline *p)
{
    task t = {TASK_NONE, NULL, 0, 0, 0};
    chunk *enc = NULL, *band = NULL, *count = NULL, *fill = NULL;
    for (int i = 0; i < p->ring.n_max; i++) {
        chunk *c = &p->ring.chunks[i];
        if (c->state == CHUNK_FILLING && c->fill.next < c->fill.n &&
            (fill == NULL || c->seq < fill->seq))
            fill = c;
        if (c->counts.next < c->counts.n && (count == NULL || c->seq < count->seq))
            count = c;
        if (c->state == CHUNK_ENCODING && c->out.next_piece < c->out.ntasks &&
            (enc == NULL || c->seq < enc->seq))
            enc = c;
        else if (c->state == CHUNK_CLAIMED && c->bands.next < c->bands.n &&
                 (band == NULL || c->seq < band->seq))
            band = c;
    }
    if (enc) {
        t.kind = TASK_ENCODE;
        t.c = enc;
        t.index = enc->out.next_piece++;
    } else if (fill) {
        t.kind = TASK_FILL;
        t.c = fill;
        t.index = fill->fill.next++;
    } else if (count) {
        t.kind = TASK_COUNT;
        t.c = count;
        t.index = count->counts.next++;
    } else if (band && band_held(&p->policy, p->bands_running)) {
        t.held = 1; /* leave the GPU's start the cores */
    } else if (band) {
        p->bands_running++;
        t.kind = TASK_BAND;
        t.c = band;
        t.index = band->bands.next++;
        if (band->bands.next == 1)
            pthread_cond_broadcast(&p->state_cv); /* an idle GPU may take its tail */
        /* The CPU's bands count their own rows while they are in cache,
         * unless the pool counts this chunk already (it came back from a
         * GPU that failed). */
        t.count = winent_plan_counts(&p->plan) && band->counts.n == 0;
        if (p->meter.first_band_s == 0.0) {
            p->meter.first_band_s = winent_now();
            p->meter.first_band_rows = band->bands.rows;
        }
    }
    return t;
}

/* Chunk c as the kernels see band `b` of it. */
static void chunk_view(const job_plan *pl, const chunk *c, int b, winent_chunk *v)
{
    v->rows = c->rows + (size_t)b * pl->plane_bytes;
    v->row_bytes = pl->rows_stride;
    v->width = pl->width;
    v->height = pl->height;
    v->in_y0 = c->in_y0;
    v->in_h = c->in_h;
    v->y0 = c->y0;
    v->y1 = c->y1;
}

/* Output rows [*ya, *yb) of band b of chunk c. */
static void band_span(const chunk *c, long b, int *ya, int *yb)
{
    *ya = c->y0 + (int)b * c->bands.rows;
    *yb = *ya + c->bands.rows < c->y1 ? *ya + c->bands.rows : c->y1;
}

/* Count the samples of input rows [ya, yb) of band `b` of chunk c that
 * its range clamps. Every output row's own input row, so every input row
 * of the image is counted exactly once whatever the halos. */
static void count_rows(const job_plan *pl, const chunk *c, int b, int ya, int yb,
                       winent_clamp_counts *acc)
{
    const uint8_t *rows =
        c->rows + (size_t)b * pl->plane_bytes + pl->rows_stride * (size_t)(ya - c->in_y0);
    if (pl->rows_stride == pl->row_bytes) { /* packed: all at once */
        winent_range_count(pl->band_plan[b], rows, (size_t)pl->width * (size_t)(yb - ya), acc);
        return;
    }
    for (int y = ya; y < yb; y++, rows += pl->rows_stride) /* a memory job's padded rows */
        winent_range_count(pl->band_plan[b], rows, (size_t)pl->width, acc);
}

/* Output rows [ya, yb) of every map of the chunk, band by band (each
 * band's input rows stay in cache for its windows), a group of maps in its
 * one pass (map_groups, setup_maps.c). `acc`: one count per band. */
static winent_status run_band(const job_plan *pl, int worker, const task *t,
                              winent_clamp_counts *acc, winent_err *err)
{
    winent_chunk v;
    int ya, yb;
    band_span(t->c, t->index, &ya, &yb);
    for (int m = 0; m < pl->nmaps; m++) {
        const job_map *jm = &pl->maps[m];
        chunk_view(pl, t->c, jm->band, &v);
        /* First: the rows it brings into cache are the ones the engine reads. */
        if (t->count && (m == 0 || pl->maps[m - 1].band != jm->band))
            count_rows(pl, t->c, jm->band, ya, yb, &acc[jm->band]);
        if (jm->group == 0) /* computed in an earlier map's pass */
            continue;
        float *planes[WINENT_CPU_SHARED_MAX];
        for (int k = 0; k < jm->group; k++)
            planes[k] = t->c->map + (size_t)(m + k) * pl->map_plane;
        WINENT_TRY(winent_cpu_engine_compute_planes(jm->group > 1 ? jm->shared : jm->cpu, worker,
                                                    &v, ya, yb, planes, jm->group,
                                                    pl->map_stride, err));
    }
    return WINENT_OK;
}

/* Piece k of a chunk a GPU computes: its input rows stay in place until
 * the writer frees the chunk. Every band's. */
static void run_count(const job_plan *pl, chunk *c, long k, winent_clamp_counts *acc)
{
    int ya = c->counts.y0 + (int)k * pl->count_rows;
    int yb = ya + pl->count_rows < c->y1 ? ya + pl->count_rows : c->y1;
    for (int b = 0; b < pl->nbands; b++)
        count_rows(pl, c, b, ya, yb, &acc[b]);
}

/* One worker's state: its scratch for each tap (an encoder, the
 * preview's) and its clamp counts (made by the worker itself), its task,
 * its times. */
typedef struct job_worker {
    pipeline *p;
    int index;
    winent_err err;
    void *scratch[WINENT_MAX_TAPS];
    double band_s, enc_s, dec_s, tap_s;
    winent_clamp_counts *counted; /* a task's, one per band */
    task t;
    double dt;
    winent_status st;
} job_worker;

/* Piece k of a computed chunk: its tap's piece. */
static winent_status run_piece(pipeline *p, job_worker *ws, chunk *c, long k, winent_err *err)
{
    long local;
    const int i = winent_chunk_piece_tap(c, k, &local);
    return p->taps[i]->piece(p->taps[i], &ws->scratch[i], c, local, err);
}

/* A CPU band's rows [ya, yb) of chunk c, in cache, to every tap that
 * takes bands. */
static winent_status band_to_taps(pipeline *p, job_worker *ws, const chunk *c, int ya, int yb,
                                  winent_err *err)
{
    for (int i = 0; i < p->ntaps; i++)
        if (p->taps[i]->band)
            WINENT_TRY(p->taps[i]->band(p->taps[i], &ws->scratch[i], c, ya, yb, err));
    return WINENT_OK;
}

static void *worker_start(void *ctx, int w)
{
    pipeline *p = ctx;
    job_worker *ws = calloc(1, sizeof *ws);
    winent_clamp_counts *counted = malloc(sizeof *counted * (size_t)p->plan.nbands);
    if (ws == NULL || counted == NULL) {
        winent_err err;
        winent_err_clear(&err);
        WINENT_ERR(&err, WINENT_ERR_INTERNAL, "out of memory");
        winent_report_fail(&p->report, &err);
        free(ws);
        free(counted);
        return NULL;
    }
    ws->p = p;
    ws->index = w;
    ws->counted = counted;
    winent_err_clear(&ws->err);
    return ws;
}

/* A majority of integer classes in a float output (job_plan.class_limit):
 * every sample counted must be a class the output holds exactly. */
static winent_status check_classes(const job_plan *pl, const winent_clamp_counts *counted,
                                   winent_err *err)
{
    double v;
    for (int b = 0; pl->class_limit > 0.0 && b < pl->nbands; b++)
        if (winent_class_outside(&counted[b], pl->class_limit, &v))
            return winent_job_refuse_classes(v, pl->class_limit, pl->words, err);
    return WINENT_OK;
}

static int worker_next(void *ctx, void *wsv, int *retry_ms)
{
    job_worker *ws = wsv;
    ws->t = next_task(ctx);
    /* A held band waits for the policy's limit, which it lifts with a
     * broadcast; look again every 5 ms meanwhile all the same. */
    *retry_ms = ws->t.held ? 5 : 0;
    return ws->t.kind != TASK_NONE;
}

static int worker_run(void *ctx, void *wsv)
{
    pipeline *p = ctx;
    job_worker *ws = wsv;
    const task *t = &ws->t;
    double t0 = winent_now();
    winent_status st = WINENT_OK;
    const int64_t tseq = t->c ? t->c->seq : -1;
    winent_trace_mark(p->trace, LANE_WORKER(ws->index), task_event(p, t, 0), tseq);
    for (int b = 0; b < p->plan.nbands; b++)
        winent_clamp_init(&ws->counted[b]);
    switch (t->kind) {
    case TASK_ENCODE: st = run_piece(p, ws, t->c, t->index, &ws->err); break;
    case TASK_COUNT: run_count(&p->plan, t->c, t->index, ws->counted); break;
    case TASK_FILL: p->in.fill(&p->in, t->c, t->index); break;
    default: st = run_band(&p->plan, ws->index, t, ws->counted, &ws->err); break;
    }
    if (st == WINENT_OK && (t->kind == TASK_COUNT || (t->kind == TASK_BAND && t->count)))
        st = check_classes(&p->plan, ws->counted, &ws->err);
    winent_trace_mark(p->trace, LANE_WORKER(ws->index), task_event(p, t, 1), tseq);
    double dt = winent_now() - t0;
    if (t->kind == TASK_BAND && st == WINENT_OK && !p->plan.taps_after) {
        /* The band's rows to the taps while they are in cache; timed
         * apart, so the CPU's measured rate stays the engine's. */
        int ya, yb;
        band_span(t->c, t->index, &ya, &yb);
        if (ya >= t->c->out.tapped_to)
            st = band_to_taps(p, ws, t->c, ya, yb, &ws->err);
        ws->tap_s += winent_now() - t0 - dt;
    }
    /* A failed piece stops the job before its chunk can count as done:
     * else the writer could take the last chunk and commit the output
     * before the failure is known (a raw map's rows stored by the pool, a
     * write that hit the file size limit). */
    if (st != WINENT_OK)
        winent_report_fail(&p->report, &ws->err);
    ws->dt = dt;
    ws->st = st;
    return st != WINENT_OK;
}

static void worker_done(void *ctx, void *wsv)
{
    pipeline *p = ctx;
    job_worker *ws = wsv;
    const task *t = &ws->t;
    const double dt = ws->dt;
    if (t->kind == TASK_COUNT) {
        for (int b = 0; b < p->plan.nbands; b++)
            winent_clamp_merge(&p->clamps[b], &ws->counted[b]);
        ws->band_s += dt; /* part of computing the map */
        if (--t->c->counts.left == 0)
            pthread_cond_broadcast(&p->state_cv);
    } else if (t->kind == TASK_FILL) {
        ws->dec_s += dt;
        if (--t->c->fill.left == 0) {
            t->c->state = CHUNK_READY;
            pthread_cond_broadcast(&p->state_cv);
        }
    } else if (t->kind == TASK_ENCODE) {
        long local;
        if (task_tap(p, t, &local)->stores) {
            p->meter.store_s += dt;
        } else {
            ws->enc_s += dt;
            /* The pool's encoding rate, for sharing compute (declines). */
            p->meter.enc_s += dt;
            p->meter.enc_px += (double)(t->c->y1 - t->c->y0) * (double)p->plan.width /
                               ((double)t->c->out.npieces * (double)p->plan.nmaps);
        }
        if (--t->c->out.pieces_left == 0) {
            t->c->state = CHUNK_DONE;
            pthread_cond_broadcast(&p->state_cv);
        }
    } else {
        p->bands_running--;
        ws->band_s += dt;
        if (t->count)
            for (int b = 0; b < p->plan.nbands; b++)
                winent_clamp_merge(&p->clamps[b], &ws->counted[b]);
        int ya, yb;
        band_span(t->c, t->index, &ya, &yb);
        p->meter.band_px += (double)(yb - ya) * (double)p->plan.width;
        p->meter.bands_done++;
        p->meter.band_s += dt;
        if (--t->c->bands.left == 0)
            pthread_cond_broadcast(&p->state_cv);
    }
}

static void worker_end(void *ctx, void *wsv)
{
    pipeline *p = ctx;
    job_worker *ws = wsv;
    pthread_mutex_lock(&p->lock);
    p->meter.compute_clock.busy_s += ws->band_s + ws->tap_s;
    p->meter.encode_clock.busy_s += ws->enc_s;
    p->meter.read_clock.busy_s += ws->dec_s;
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->ntaps; i++)
        if (ws->scratch[i] && p->taps[i]->scratch_free)
            p->taps[i]->scratch_free(p->taps[i], ws->scratch[i]);
    free(ws->counted);
    if (ws->err.status != WINENT_OK)
        winent_report_fail(&p->report, &ws->err);
    free(ws);
}

winent_pool_work winent_tasks_work(pipeline *p)
{
    winent_pool_work w = {p, worker_start, worker_next, worker_run, worker_done, worker_end};
    return w;
}
