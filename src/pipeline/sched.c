/* SPDX-License-Identifier: BSD-3-Clause */
/* The worker pool and the chunk queue: every CPU task of the job (decode
 * items, CPU bands, units to encode) runs on the pool's threads, picked
 * under the pipeline's one lock; engines claim READY chunks from one queue,
 * each at its own pace. */
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
    c->nenc = p->encodes && p->stage == WINENT_STAGE_JOB ? c->npieces * p->nmaps : 0;
    c->nstore = p->store_out && (!p->store_mem || c->staged)
                    ? p->nmaps * ((c->y1 - c->y0 + p->store_rows - 1) / p->store_rows)
                    : 0;
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

/* ---- The worker pool --------------------------------------------------- */

typedef enum task_kind {
    TASK_NONE = 0,
    TASK_DECODE,
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

/* The trace's event for the start (end 0) or the end of task t: a store
 * piece is one of ENCODE's. */
static const char *task_event(const task *t, int end)
{
    static const char *const ev[][2] = {{"", ""},           {"decode", "decoded"},
                                        {"encode", "encoded"}, {"count", "counted"},
                                        {"fill", "filled"},   {"band", "banded"}};
    if (t->kind == TASK_ENCODE && t->index >= t->c->nenc && t->index < t->c->nenc + t->c->nstore)
        return end ? "stored" : "store";
    return ev[t->kind][end];
}

/* auto: the first GPU is on its way (the driver's start, or a context
 * being made) and none is up yet. Lock held. */
static int gpu_starting(const pipeline *p)
{
    if (p->gpu_launch != 1)
        return 0;
    int added = 0;
    for (int i = 0; i < p->nengines; i++) {
        const engine *e = &p->engines[i];
        if (e->device < 0)
            continue;
        added = 1;
        if (e->live)
            return 0;
        if (e->started && !e->failed && !e->finished)
            return 1;
    }
    return !added && p->launching; /* the launcher is finding the devices */
}

/* A CPU band waits: auto, an output the pool encodes, the first GPU
 * starting, and the CPU already on its share of the threads
 * (WINENT_GPU_START_SHARE). Lock held. */
static int band_held(const pipeline *p)
{
    const int share = p->threads / WINENT_GPU_START_SHARE;
    return p->encodes && gpu_starting(p) && p->bands_running >= (share > 0 ? share : 1);
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

/* The next task, most urgent first: decoding (the reader waits on it),
 * then the oldest chunk's pieces to encode or store (they free buffers and
 * feed the writer), then the oldest staged chunk's rows to copy in (the
 * engines wait for them), then the oldest chunk's rows to count (small,
 * and the writer waits for them too), then the oldest CPU chunk's bands.
 * Lock held. */
static task next_task(pipeline *p)
{
    task t = {TASK_NONE, NULL, 0, 0, 0};
    if (p->par.active && p->par.next < p->par.n) {
        t.kind = TASK_DECODE;
        t.index = p->par.next++;
        return t;
    }
    chunk *enc = NULL, *band = NULL, *count = NULL, *fill = NULL;
    for (int i = 0; i < p->n_max; i++) {
        chunk *c = &p->chunks[i];
        if (c->state == CHUNK_FILLING && c->fill_next < c->fill_n &&
            (fill == NULL || c->seq < fill->seq))
            fill = c;
        if (c->count_next < c->count_n && (count == NULL || c->seq < count->seq))
            count = c;
        if (c->state == CHUNK_ENCODING && c->next_piece < c->ntasks &&
            (enc == NULL || c->seq < enc->seq))
            enc = c;
        else if (c->state == CHUNK_CLAIMED && c->next_band < c->nbands &&
                 (band == NULL || c->seq < band->seq))
            band = c;
    }
    if (enc) {
        t.kind = TASK_ENCODE;
        t.c = enc;
        t.index = enc->next_piece++;
    } else if (fill) {
        t.kind = TASK_FILL;
        t.c = fill;
        t.index = fill->fill_next++;
    } else if (count) {
        t.kind = TASK_COUNT;
        t.c = count;
        t.index = count->count_next++;
    } else if (band && band_held(p)) {
        t.held = 1; /* leave the GPU's start the cores */
    } else if (band) {
        p->bands_running++;
        t.kind = TASK_BAND;
        t.c = band;
        t.index = band->next_band++;
        if (band->next_band == 1)
            pthread_cond_broadcast(&p->state_cv); /* an idle GPU may take its tail */
        /* The CPU's bands count their own rows while they are in cache,
         * unless the pool counts this chunk already (it came back from a
         * GPU that failed). */
        t.count = p->count_clamps && band->count_n == 0;
        if (p->first_band_s == 0.0) {
            p->first_band_s = winent_now();
            p->first_band_rows = band->band_rows;
        }
    }
    return t;
}

/* Chunk c as the kernels see band `b` of it. */
static void chunk_view(const pipeline *p, const chunk *c, int b, winent_chunk *v)
{
    v->rows = c->rows + (size_t)b * p->plane_bytes;
    v->row_bytes = p->rows_stride;
    v->width = p->width;
    v->height = p->height;
    v->in_y0 = c->in_y0;
    v->in_h = c->in_h;
    v->y0 = c->y0;
    v->y1 = c->y1;
}

/* Output rows [*ya, *yb) of band b of chunk c. */
static void band_span(const chunk *c, long b, int *ya, int *yb)
{
    *ya = c->y0 + (int)b * c->band_rows;
    *yb = *ya + c->band_rows < c->y1 ? *ya + c->band_rows : c->y1;
}

/* Count the samples of input rows [ya, yb) of band `b` of chunk c that
 * its range clamps. Every output row's own input row, so every input row
 * of the image is counted exactly once whatever the halos. */
static void count_rows(const pipeline *p, const chunk *c, int b, int ya, int yb,
                       winent_clamp_counts *acc)
{
    const uint8_t *rows =
        c->rows + (size_t)b * p->plane_bytes + p->rows_stride * (size_t)(ya - c->in_y0);
    if (p->rows_stride == p->row_bytes) { /* packed: all at once */
        winent_range_count(p->band_plan[b], rows, (size_t)p->width * (size_t)(yb - ya), acc);
        return;
    }
    for (int y = ya; y < yb; y++, rows += p->rows_stride) /* a memory job's padded rows */
        winent_range_count(p->band_plan[b], rows, (size_t)p->width, acc);
}

/* Output rows [ya, yb) of every map of the chunk, band by band (each
 * band's input rows stay in cache for its windows). `acc`: one count per
 * band. */
static winent_status run_band(pipeline *p, int worker, const task *t, winent_clamp_counts *acc,
                              winent_err *err)
{
    winent_chunk v;
    int ya, yb;
    band_span(t->c, t->index, &ya, &yb);
    for (int m = 0; m < p->nmaps; m++) {
        const job_map *jm = &p->maps[m];
        chunk_view(p, t->c, jm->band, &v);
        /* First: the rows it brings into cache are the ones the engine reads. */
        if (t->count && (m == 0 || p->maps[m - 1].band != jm->band))
            count_rows(p, t->c, jm->band, ya, yb, &acc[jm->band]);
        WINENT_TRY(winent_cpu_engine_compute_rows(jm->cpu, worker, &v, ya, yb,
                                                  t->c->map + (size_t)m * p->map_plane,
                                                  p->map_stride, err));
    }
    return WINENT_OK;
}

/* Piece k of a chunk a GPU computes: its input rows stay in place until
 * the writer frees the chunk. Every band's. */
static void run_count(pipeline *p, chunk *c, long k, winent_clamp_counts *acc)
{
    int ya = c->count_y0 + (int)k * p->count_rows;
    int yb = ya + p->count_rows < c->y1 ? ya + p->count_rows : c->y1;
    for (int b = 0; b < p->nbands; b++)
        count_rows(p, c, b, ya, yb, &acc[b]);
}

/* Output rows [ya, yb) of chunk c into the preview, with the worker's
 * scratch (made on first use). */
static winent_status add_to_preview(pipeline *p, winent_preview_scratch **pvs, const chunk *c,
                                    int ya, int yb, winent_err *err)
{
    if (*pvs == NULL)
        WINENT_TRY(winent_preview_scratch_create(p->preview, pvs, err));
    return winent_preview_add_rows(p->preview, *pvs, c->map + (size_t)(ya - c->y0) * p->map_stride,
                                   p->map_stride, ya, yb, err);
}

/* Piece k of a staged chunk's input rows: from the caller's buffer into
 * the chunk's own (packed). */
static void run_fill(pipeline *p, chunk *c, long k)
{
    int ya = c->in_y0 + (int)k * p->fill_rows;
    int yb = ya + p->fill_rows < c->in_y0 + c->in_h ? ya + p->fill_rows : c->in_y0 + c->in_h;
    const uint8_t *src = p->mem_in + p->mem_in_stride * (size_t)ya;
    uint8_t *dst = c->rows_own + p->row_bytes * (size_t)(ya - c->in_y0);
    if (p->mem_in_stride == p->row_bytes) {
        memcpy(dst, src, p->row_bytes * (size_t)(yb - ya));
        return;
    }
    for (int y = ya; y < yb; y++, src += p->mem_in_stride, dst += p->row_bytes)
        memcpy(dst, src, p->row_bytes);
}

/* Store piece k of a computed chunk: store_rows rows of one map, to the
 * caller's buffer or by offset into the raw map's file. */
static winent_status run_store(pipeline *p, chunk *c, long k, winent_err *err)
{
    const int per_map = (c->y1 - c->y0 + p->store_rows - 1) / p->store_rows;
    const int m = (int)(k / per_map), r0 = (int)(k % per_map) * p->store_rows;
    const int nr = c->y1 - c->y0 - r0 < p->store_rows ? c->y1 - c->y0 - r0 : p->store_rows;
    const float *src = c->map + (size_t)m * p->map_plane + (size_t)r0 * p->map_stride;
    const size_t W = (size_t)p->width;
    if (!p->store_mem)
        return winent_sink_write_floats_at(p->sink, m, (uint64_t)(c->y0 + r0) * W, src,
                                           W * (size_t)nr, err);
    float *dst = p->mem_out + (size_t)(c->y0 + r0) * p->mem_out_stride;
    if (p->mem_out_stride == W) {
        memcpy(dst, src, W * (size_t)nr * sizeof *dst);
        return WINENT_OK;
    }
    for (int y = 0; y < nr; y++, src += W, dst += p->mem_out_stride)
        memcpy(dst, src, W * sizeof *dst);
    return WINENT_OK;
}

/* Piece k of a computed chunk: a unit (or a tile of it) of a map to
 * encode (map k / npieces), from c->nenc on rows to store (run_store),
 * then a slice of band_rows rows for the preview (the first map's). */
static winent_status run_piece(pipeline *p, winent_sink_encoder **enc, winent_preview_scratch **pvs,
                               chunk *c, long k, winent_err *err)
{
    if (k >= c->nenc && k < c->nenc + c->nstore)
        return run_store(p, c, k - c->nenc, err);
    if (k >= c->nenc) {
        int ya = c->preview_y0 + (int)(k - c->nenc - c->nstore) * p->band_rows;
        int yb = ya + p->band_rows < c->y1 ? ya + p->band_rows : c->y1;
        return add_to_preview(p, pvs, c, ya, yb, err);
    }
    if (*enc == NULL)
        WINENT_TRY(winent_sink_encoder_create(p->sink, enc, err));
    int m = (int)(k / c->npieces), kk = (int)(k % c->npieces);
    int u = kk / p->parts, part = kk % p->parts;
    int r0 = u * p->unit_rows;
    int nr = c->y1 - c->y0 - r0 < p->unit_rows ? c->y1 - c->y0 - r0 : p->unit_rows;
    return winent_sink_encode_part(*enc, m, c->y0 / p->unit_rows + u, part,
                                   c->map + (size_t)m * p->map_plane + (size_t)r0 * p->map_stride,
                                   nr, &c->units[k], err);
}

void *winent_pool_worker(void *arg)
{
    worker_arg *a = arg;
    pipeline *p = a->p;
    winent_err err;
    winent_err_clear(&err);
    winent_sink_encoder *enc = NULL;
    winent_preview_scratch *pvs = NULL;
    double band_s = 0.0, enc_s = 0.0, dec_s = 0.0, pv_s = 0.0;
    /* A task's clamp counts, one per band. */
    winent_clamp_counts *counted = malloc(sizeof *counted * (size_t)p->nbands);
    if (counted == NULL) {
        WINENT_ERR(&err, WINENT_ERR_INTERNAL, "out of memory");
        winent_report_fail(&p->report, &err);
        return NULL;
    }
    pthread_mutex_lock(&p->lock);
    while (!p->quit && !STOPPED(p)) {
        task t = next_task(p);
        if (t.kind == TASK_NONE) {
            /* A held band waits for the GPU's start, which signals nothing
             * to the pool: look again every 5 ms until then. */
            if (t.held)
                winent_cond_wait_ms(&p->work_cv, &p->lock, 5);
            else
                pthread_cond_wait(&p->work_cv, &p->lock);
            continue;
        }
        pthread_mutex_unlock(&p->lock);
        double t0 = winent_now();
        winent_status st = WINENT_OK;
        const int64_t tseq = t.c ? t.c->seq : -1;
        winent_trace_mark(p->trace, LANE_WORKER(a->index), task_event(&t, 0), tseq);
        for (int b = 0; b < p->nbands; b++)
            winent_clamp_init(&counted[b]);
        switch (t.kind) {
        case TASK_DECODE: p->par.fn(p->par.arg, t.index, a->index); break;
        case TASK_ENCODE: st = run_piece(p, &enc, &pvs, t.c, t.index, &err); break;
        case TASK_COUNT: run_count(p, t.c, t.index, counted); break;
        case TASK_FILL: run_fill(p, t.c, t.index); break;
        default: st = run_band(p, a->index, &t, counted, &err); break;
        }
        winent_trace_mark(p->trace, LANE_WORKER(a->index), task_event(&t, 1), tseq);
        double dt = winent_now() - t0;
        if (t.kind == TASK_BAND && st == WINENT_OK && p->preview && !p->preview_after) {
            /* The band's rows while they are in cache; timed apart, so the
             * CPU's measured rate stays the engine's. */
            int ya, yb;
            band_span(t.c, t.index, &ya, &yb);
            if (ya >= t.c->previewed_to)
                st = add_to_preview(p, &pvs, t.c, ya, yb, &err);
            pv_s += winent_now() - t0 - dt;
        }
        /* A failed piece stops the job before its chunk can count as done:
         * else the writer could take the last chunk and commit the output
         * before the failure is known (a raw map's rows stored by the
         * pool, a write that hit the file size limit). */
        if (st != WINENT_OK)
            winent_report_fail(&p->report, &err);
        pthread_mutex_lock(&p->lock);
        if (t.kind == TASK_COUNT) {
            for (int b = 0; b < p->nbands; b++)
                winent_clamp_merge(&p->clamps[b], &counted[b]);
            band_s += dt; /* part of computing the map */
            if (--t.c->count_left == 0)
                pthread_cond_broadcast(&p->state_cv);
        } else if (t.kind == TASK_FILL) {
            dec_s += dt;
            if (--t.c->fill_left == 0) {
                t.c->state = CHUNK_READY;
                if (t.c->seq == 0)
                    winent_gpus_launch_early_locked(p, t.c);
                pthread_cond_broadcast(&p->state_cv);
            }
        } else if (t.kind == TASK_DECODE) {
            dec_s += dt;
            if (++p->par.done >= p->par.n)
                pthread_cond_broadcast(&p->state_cv);
        } else if (t.kind == TASK_ENCODE) {
            if (t.index >= t.c->nenc && t.index < t.c->nenc + t.c->nstore) {
                p->store_s += dt;
            } else {
                enc_s += dt;
                /* The pool's encoding rate, for sharing compute (declines). */
                p->enc_s += dt;
                p->enc_px += (double)(t.c->y1 - t.c->y0) * (double)p->width /
                             ((double)t.c->npieces * (double)p->nmaps);
            }
            if (--t.c->pieces_left == 0) {
                t.c->state = CHUNK_DONE;
                pthread_cond_broadcast(&p->state_cv);
            }
        } else {
            p->bands_running--;
            band_s += dt;
            if (t.count)
                for (int b = 0; b < p->nbands; b++)
                    winent_clamp_merge(&p->clamps[b], &counted[b]);
            int ya, yb;
            band_span(t.c, t.index, &ya, &yb);
            p->band_px += (double)(yb - ya) * (double)p->width;
            p->bands_done++;
            p->band_s += dt;
            winent_gpus_maybe_launch_locked(p);
            if (--t.c->bands_left == 0)
                pthread_cond_broadcast(&p->state_cv);
        }
        if (st != WINENT_OK)
            break;
    }
    p->compute_clock.busy_s += band_s + pv_s;
    p->encode_clock.busy_s += enc_s;
    p->read_clock.busy_s += dec_s;
    pthread_mutex_unlock(&p->lock);
    winent_sink_encoder_free(enc);
    winent_preview_scratch_free(pvs);
    free(counted);
    if (err.status != WINENT_OK)
        winent_report_fail(&p->report, &err);
    return NULL;
}

/* The reader's decoding loop: post the items to the pool, take items too
 * (as worker number p->threads), and return when every item is done. */
int winent_pool_parallel_run(void *ctx, long n, void (*fn)(void *arg, long i, int worker),
                             void *arg)
{
    pipeline *p = ctx;
    int stopped = 0;
    if (n <= 0)
        return 0;
    pthread_mutex_lock(&p->lock);
    p->par.fn = fn;
    p->par.arg = arg;
    p->par.n = n;
    p->par.next = 0;
    p->par.done = 0;
    p->par.active = 1;
    pthread_cond_broadcast(&p->work_cv);
    while (p->par.done < p->par.n) {
        if (STOPPED(p)) {
            /* Items not started will never run: count them out, then wait
             * only for those running (they use the caller's buffers). */
            stopped = 1;
            p->par.done += p->par.n - p->par.next;
            p->par.next = p->par.n;
            if (p->par.done >= p->par.n)
                break;
            pthread_cond_wait(&p->state_cv, &p->lock);
            continue;
        }
        if (p->par.next < p->par.n) {
            long i = p->par.next++;
            pthread_mutex_unlock(&p->lock);
            fn(arg, i, p->threads);
            pthread_mutex_lock(&p->lock);
            p->par.done++;
            continue;
        }
        pthread_cond_wait(&p->state_cv, &p->lock);
    }
    p->par.active = 0;
    pthread_mutex_unlock(&p->lock);
    return stopped ? -1 : 0;
}
