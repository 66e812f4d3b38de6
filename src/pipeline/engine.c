/* SPDX-License-Identifier: BSD-3-Clause */
/* The public engine facade: one chunk through the CPU, GPU or reference
 * engine (winent.h, "Engines"), synchronously (winent_engine_compute) or
 * several in flight (winent_engine_submit/wait). A GPU engine stages its
 * blocks' rows through pinned buffers of its own (engine_stage.c), a few
 * bands in flight, so that a caller holding an engine across calls (a dask
 * worker's threads, block after block) pays neither the pinning nor the
 * device allocations again, and the copies of one band overlap the
 * kernels of the others, across blocks too. */
#include <stdlib.h>
#include <string.h>

#include "engine_facade.h"
#include "kernels/engine_reference.h"
#include "kernels/range_count.h"
#include "pipeline_internal.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Bands in flight on the GPU (a slot each: one stream, pinned staging):
 * one being copied in, one computed, one copied out, and room for the
 * copies of a few more callers while the GPU has work queued. On one H200
 * (4096 x 4096 u16 blocks, 31 x 31, 16 cores), one worker's 2, 3 and 4
 * threads ran 4.03, 3.76 and 3.34 Gpixel/s with 4 slots, 3.47, 4.16 and
 * 4.36 with 6: four threads waited for slots. WINENT_STAGE_SLOTS
 * overrides it (2 to 16), for measurements. */
#define STAGE_SLOTS 6
/* Output pixels per band: large, since the GPU's kernels lose much of
 * their speed on short, narrow chunks (too few tiles to fill the GPU: on
 * an H200 at 31 x 31 over 4126-wide blocks, bands of 0.25M, 1M, 2M and 4M
 * pixels gave 0.43, 1.38, 2.00 and 2.19 Gpixel/s), yet a few per block so
 * that copies overlap kernels: the pipeline's chunk size. Whole tiles of
 * the kernels (STAGE_TILE rows). WINENT_STAGE_PIXELS overrides it, for
 * measurements (at engine creation). */
#define STAGE_PIXELS ((int64_t)4 << 20)
#define STAGE_TILE 32

static int default_threads(void)
{
#ifdef _OPENMP
    return omp_get_num_procs();
#else
    return 1;
#endif
}

static int stage_slots(void)
{
    const char *knob = getenv("WINENT_STAGE_SLOTS");
    const int n = knob ? atoi(knob) : 0;
    return n >= 2 && n <= 16 ? n : STAGE_SLOTS;
}

/* The GPU kind's CUDA engine and pinned staging: bands of about
 * STAGE_PIXELS output pixels (at most what a call can ask for). */
static winent_status gpu_create(winent_engine *e, int device, int max_width, int max_in_rows)
{
    const int ry = e->plan->ry;
    e->nslots = stage_slots();
    if (max_width < 1 || max_in_rows < 1) /* the CUDA engine says why */
        return winent_gpu_engine_create(e->plan, device, max_width, max_in_rows, e->nslots,
                                        &e->gpu, &e->err);
    int64_t px = STAGE_PIXELS;
    const char *knob = getenv("WINENT_STAGE_PIXELS");
    if (knob && atoll(knob) > 0)
        px = atoll(knob);
    int64_t rows = px / max_width;
    if (rows > STAGE_TILE)
        rows -= rows % STAGE_TILE;
    if (rows > max_in_rows)
        rows = max_in_rows;
    e->stage_rows = rows < 1 ? 1 : (int)rows;
    const int64_t in_rows64 = (int64_t)e->stage_rows + 2 * (int64_t)ry;
    const int in_rows = in_rows64 < max_in_rows ? (int)in_rows64 : max_in_rows;
    WINENT_TRY(winent_gpu_engine_create(e->plan, device, max_width, in_rows, e->nslots, &e->gpu,
                                        &e->err));
    e->stage = calloc((size_t)e->nslots, sizeof *e->stage);
    if (e->stage == NULL)
        return WINENT_ERR(&e->err, WINENT_ERR_INTERNAL, "out of memory");
    const size_t in_bytes = (size_t)in_rows * (size_t)max_width * winent_dtype_size(e->plan->opts.dtype);
    const size_t out_bytes = (size_t)e->stage_rows * (size_t)max_width * sizeof(float);
    for (int i = 0; i < e->nslots; i++) {
        e->stage[i].in = winent_cuda_host_alloc(in_bytes);
        e->stage[i].out = winent_cuda_host_alloc(out_bytes);
        if (e->stage[i].in == NULL || e->stage[i].out == NULL)
            return WINENT_ERR(&e->err, WINENT_ERR_INTERNAL,
                              "out of memory (pinned staging of %zu bytes)", in_bytes + out_bytes);
    }
    return WINENT_OK;
}

winent_status winent_engine_create(const winent_compute_opts *o, winent_engine_kind kind,
                                   int device, int max_width, int max_in_rows, int threads,
                                   winent_engine **out, winent_error *err)
{
    if (out == NULL)
        return winent_err_null(err, "winent_engine_create", "out");
    *out = NULL;
    if (o == NULL)
        return winent_err_null(err, "winent_engine_create", "o");
    winent_status st = WINENT_OK;
    winent_engine *e = calloc(1, sizeof *e);
    if (e == NULL) {
        winent_err oom;
        winent_err_clear(&oom);
        return winent_err_export(&oom, WINENT_ERR(&oom, WINENT_ERR_INTERNAL, "out of memory"), err);
    }
    winent_err_clear(&e->err);
    pthread_mutex_init(&e->lock, NULL);
    pthread_cond_init(&e->changed, NULL);
    pthread_mutex_init(&e->run, NULL);
    e->kind = kind;
    e->max_width = max_width;
    e->cores = default_threads();
    e->threads = threads > 0 ? threads : e->cores;
    /* Every check of winent_compute_opts_validate (the plan's leaves out
     * nodata, which a job checks against the file's type at its run): a
     * nodata no sample can equal is refused here as a job refuses it. */
    WINENT_TRY_GOTO(st, winent_compute_check(o, WINENT_CHECK_DTYPE | WINENT_CHECK_NODATA,
                                             WINENT_WORDS_CLI, &e->err));
    WINENT_TRY_GOTO(st, winent_plan_create(o, &e->plan, &e->err));
    e->class_limit = winent_class_limit(&e->plan->opts, WINENT_OT_FLOAT32);
    if (kind == WINENT_ENGINE_CPU)
        WINENT_TRY_GOTO(st, winent_cpu_engine_create(e->plan, max_width, max_in_rows, e->threads,
                                                     &e->cpu, &e->err));
    else if (kind == WINENT_ENGINE_GPU)
        WINENT_TRY_GOTO(st, gpu_create(e, device, max_width, max_in_rows));
    *out = e;
    return winent_err_export(NULL, WINENT_OK, err);
fail:
    winent_err_export(&e->err, st, err);
    winent_engine_free(e);
    return st;
}

/* A majority of integer classes (winent_class_limit): the input rows the
 * windows read, [y0, y0 + h), hold no class the float32 rows cannot. */
static winent_status check_classes(const winent_engine *e, const winent_chunk *c, int y0, int h,
                                   winent_err *err)
{
    if (e->class_limit == 0.0)
        return WINENT_OK;
    winent_clamp_counts n;
    winent_clamp_init(&n);
    const char *row = (const char *)c->rows + (size_t)(y0 - c->in_y0) * c->row_bytes;
    for (int y = 0; y < h; y++, row += c->row_bytes)
        winent_range_count(e->plan, row, (size_t)c->width, &n);
    double v;
    return winent_class_outside(&n, e->class_limit, &v)
               ? winent_job_refuse_classes(v, e->class_limit, WINENT_WORDS_CLI, err)
               : WINENT_OK;
}

/* The arguments' checks of a block call (`func` names it in the message);
 * the reason in `err`. */
static winent_status check_block(const winent_engine *e, const char *func, const winent_chunk *c,
                                 const float *out, winent_err *err)
{
    int need_y0, need_h;
    winent_chunk_input_rows(c->y0, c->y1, e->plan->ry, c->height, &need_y0, &need_h);
    if (c->y0 < c->y1 && (c->rows == NULL || out == NULL))
        return WINENT_ERR(err, WINENT_ERR_USAGE, "%s: %s is NULL", func,
                          c->rows == NULL ? "rows" : "out");
    if (c->y0 < 0 || c->y1 > c->height || c->y0 > c->y1 || need_y0 < c->in_y0 ||
        need_y0 + need_h > c->in_y0 + c->in_h)
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "rows [%d, %d) need input rows [%d, %d), got [%d, %d)", c->y0, c->y1,
                          need_y0, need_y0 + need_h, c->in_y0, c->in_y0 + c->in_h);
    if (e->kind == WINENT_ENGINE_GPU && c->width > e->max_width)
        return WINENT_ERR(err, WINENT_ERR_USAGE, "%s: %d columns, the engine takes %d", func,
                          c->width, e->max_width);
    return c->y0 < c->y1 ? check_classes(e, c, need_y0, need_h, err) : WINENT_OK;
}

/* The CPU and reference kinds: the block computed now, one at a time. */
static void compute_now(winent_engine *e, eng_block *b)
{
    pthread_mutex_lock(&e->run);
    b->st = e->kind == WINENT_ENGINE_CPU
                ? winent_cpu_engine_compute(e->cpu, &b->c, b->out, b->out_stride, &b->err)
                : winent_reference_compute(e->plan, &b->c, b->out, b->out_stride, &b->err);
    pthread_mutex_unlock(&e->run);
}

/* Submit (winent_engine_submit's work, `func` naming the call for its
 * messages): the block checked, queued (the CPU kinds: computed) and its
 * GPU bands started where slots are free. */
static winent_status submit(winent_engine *e, const char *func, const winent_chunk *c, float *out,
                            size_t out_stride, uint64_t *ticket, winent_err *err)
{
    WINENT_TRY(check_block(e, func, c, out, err));
    eng_block *b = calloc(1, sizeof *b);
    if (b == NULL)
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "out of memory");
    b->c = *c;
    b->out = out;
    b->out_stride = out_stride;
    b->next = c->y0;
    winent_err_clear(&b->err);
    if (e->kind == WINENT_ENGINE_GPU)
        b->band = winent_stage_band(e, c->y1 - c->y0);
    else if (c->y0 < c->y1) /* an empty block: nothing to read (rows may be NULL) */
        compute_now(e, b);
    if (b->st != WINENT_OK)
        b->next = c->y1;
    pthread_mutex_lock(&e->lock);
    b->ticket = ++e->tickets;
    if (e->last)
        e->last->later = b;
    else
        e->first = b;
    e->last = b;
    *ticket = b->ticket;
    if (e->kind == WINENT_ENGINE_GPU)
        winent_stage_start(e);
    pthread_mutex_unlock(&e->lock);
    return WINENT_OK;
}

static void unlink_block(winent_engine *e, eng_block *b)
{
    eng_block **at = &e->first, *prev = NULL;
    while (*at != b) {
        prev = *at;
        at = &(*at)->later;
    }
    *at = b->later;
    if (e->last == b)
        e->last = prev;
}

/* Wait (winent_engine_wait's work): block `ticket` (0: the oldest not
 * claimed) done, its status, the reason in `err`. */
static winent_status wait_block(winent_engine *e, uint64_t ticket, winent_err *err)
{
    pthread_mutex_lock(&e->lock);
    eng_block *b = e->first;
    while (b && (ticket ? b->ticket != ticket : b->claimed))
        b = b->later;
    if (b == NULL || b->claimed) {
        pthread_mutex_unlock(&e->lock);
        if (ticket == 0)
            return WINENT_ERR(err, WINENT_ERR_USAGE, "winent_engine_wait: no block in flight");
        return WINENT_ERR(err, WINENT_ERR_USAGE,
                          "winent_engine_wait: no block %llu in flight (waited for already, or "
                          "never submitted)",
                          (unsigned long long)ticket);
    }
    b->claimed = 1;
    if (e->kind == WINENT_ENGINE_GPU)
        winent_stage_finish(e, b);
    unlink_block(e, b);
    pthread_mutex_unlock(&e->lock);
    const winent_status st = b->st;
    if (st != WINENT_OK)
        winent_err_merge(err, &b->err);
    free(b);
    return st;
}

winent_status winent_engine_submit(winent_engine *e, const void *rows, size_t row_bytes, int width,
                                   int height, int in_y0, int in_h, int y0, int y1, float *out,
                                   size_t out_stride, uint64_t *ticket, winent_error *error)
{
    winent_err err;
    winent_err_clear(&err);
    if (e == NULL)
        return winent_err_null(error, "winent_engine_submit", "e");
    if (ticket == NULL)
        return winent_err_null(error, "winent_engine_submit", "ticket");
    *ticket = 0;
    const winent_chunk c = {rows, row_bytes, width, height, in_y0, in_h, y0, y1};
    const winent_status st = submit(e, "winent_engine_submit", &c, out, out_stride, ticket, &err);
    return winent_err_export(&err, st, error);
}

winent_status winent_engine_wait(winent_engine *e, uint64_t ticket, winent_error *error)
{
    winent_err err;
    winent_err_clear(&err);
    if (e == NULL)
        return winent_err_null(error, "winent_engine_wait", "e");
    const winent_status st = wait_block(e, ticket, &err);
    return winent_err_export(&err, st, error);
}

winent_status winent_engine_compute(winent_engine *e, const void *rows, size_t row_bytes, int width,
                                    int height, int in_y0, int in_h, int y0, int y1, float *out,
                                    size_t out_stride)
{
    if (e == NULL)
        return WINENT_ERR_USAGE; /* no engine to hold the message */
    winent_err err;
    winent_err_clear(&err);
    const winent_chunk c = {rows, row_bytes, width, height, in_y0, in_h, y0, y1};
    uint64_t ticket = 0;
    winent_status st = submit(e, "winent_engine_compute", &c, out, out_stride, &ticket, &err);
    if (st == WINENT_OK)
        st = wait_block(e, ticket, &err);
    pthread_mutex_lock(&e->lock);
    e->err = err;
    st = winent_err_export(&e->err, st, &e->pub);
    pthread_mutex_unlock(&e->lock);
    return st;
}

const winent_error *winent_engine_error(const winent_engine *e)
{
    static const winent_error none = {WINENT_OK, ""}; /* constant: no shared state */
    return e ? &e->pub : &none;
}

void winent_engine_free(winent_engine *e)
{
    if (e == NULL)
        return;
    if (e->gpu != NULL)
        winent_stage_quiesce(e);
    while (e->first != NULL) { /* blocks never waited for: dropped */
        eng_block *b = e->first;
        e->first = b->later;
        free(b);
    }
    winent_cpu_engine_free(e->cpu);
    winent_gpu_engine_free(e->gpu);
    for (int i = 0; e->stage != NULL && i < e->nslots; i++) {
        winent_cuda_host_free(e->stage[i].in);
        winent_cuda_host_free(e->stage[i].out);
    }
    free(e->stage);
    winent_plan_free(e->plan);
    pthread_mutex_destroy(&e->lock);
    pthread_cond_destroy(&e->changed);
    pthread_mutex_destroy(&e->run);
    free(e);
}
