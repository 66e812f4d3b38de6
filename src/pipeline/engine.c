/* SPDX-License-Identifier: BSD-3-Clause */
/* The public engine facade: one chunk through the CPU, GPU or reference
 * engine (winent.h, "Engines"). A GPU engine stages a call's rows through
 * pinned buffers of its own, a few sub-chunks in flight, so that a caller
 * holding an engine across calls (a dask worker's block after block) pays
 * neither the pinning nor the device allocations again, and the copies of
 * one sub-chunk overlap the kernels of the others. */
#include <stdlib.h>
#include <string.h>

#include "kernels/engine_cpu.h"
#include "kernels/engine_cuda.h"
#include "kernels/engine_reference.h"
#include "winent.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Sub-chunks in flight on the GPU (one stream each): one copied in, one
 * computed, one copied out. */
#define STAGE_SLOTS 3
/* Output pixels per sub-chunk: large, since the GPU's kernels lose much
 * of their speed on short, narrow chunks (too few tiles to fill the
 * GPU: on an H200 at 31 x 31 over 4126-wide blocks, bands of 0.25M,
 * 1M, 2M and 4M pixels gave 0.43, 1.38, 2.00 and 2.19 Gpixel/s), yet a
 * few per call so that copies overlap kernels: the pipeline's chunk size.
 * Whole tiles of the kernels (STAGE_TILE rows). WINENT_STAGE_PIXELS
 * overrides it, for measurements (at engine creation). */
#define STAGE_PIXELS ((int64_t)4 << 20)
#define STAGE_TILE 32

/* One slot's pinned staging: the input rows of its sub-chunk, packed,
 * and its output rows, packed; rows [y0, y1) in flight, none when equal. */
typedef struct stage_slot {
    void *in;
    float *out;
    int y0, y1;
} stage_slot;

struct winent_engine {
    winent_engine_kind kind;
    winent_plan *plan;           /* owned */
    winent_cpu_engine *cpu;      /* owned, CPU kind */
    winent_gpu_engine *gpu;      /* owned, GPU kind */
    int threads;                 /* GPU kind: threads copying to and from the staging */
    int max_width;
    int stage_rows;              /* GPU kind: output rows per sub-chunk */
    stage_slot stage[STAGE_SLOTS]; /* GPU kind, owned */
    winent_err err;              /* last failure */
    winent_error pub;            /* its public form (winent_engine_error) */
};

static int default_threads(void)
{
#ifdef _OPENMP
    return omp_get_num_procs();
#else
    return 1;
#endif
}

/* The GPU kind's CUDA engine and pinned staging: sub-chunks of about
 * STAGE_PIXELS output pixels (at most what a call can ask for). */
static winent_status gpu_create(winent_engine *e, int device, int max_width, int max_in_rows)
{
    const int ry = e->plan->ry;
    if (max_width < 1 || max_in_rows < 1) /* the CUDA engine says why */
        return winent_gpu_engine_create(e->plan, device, max_width, max_in_rows, STAGE_SLOTS,
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
    WINENT_TRY(winent_gpu_engine_create(e->plan, device, max_width, in_rows, STAGE_SLOTS, &e->gpu,
                                        &e->err));
    const size_t in_bytes = (size_t)in_rows * (size_t)max_width * winent_dtype_size(e->plan->opts.dtype);
    const size_t out_bytes = (size_t)e->stage_rows * (size_t)max_width * sizeof(float);
    for (int i = 0; i < STAGE_SLOTS; i++) {
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
    e->kind = kind;
    e->max_width = max_width;
    e->threads = threads > 0 ? threads : default_threads();
    /* Every check of winent_compute_opts_validate (the plan's leaves out
     * nodata, which a job checks against the file's type at its run): a
     * nodata no sample can equal is refused here as a job refuses it. */
    WINENT_TRY_GOTO(st, winent_compute_check(o, WINENT_CHECK_DTYPE | WINENT_CHECK_NODATA,
                                             WINENT_WORDS_CLI, &e->err));
    WINENT_TRY_GOTO(st, winent_plan_create(o, &e->plan, &e->err));
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

/* Copy `n` rows of `row` bytes, `from_step` and `to_step` apart, on the
 * engine's threads (a memcpy of a few MB runs several times faster over
 * the cores, and the output's first touch of its pages is spread too). */
static void copy_rows(const winent_engine *e, void *to, size_t to_step, const void *from,
                      size_t from_step, int n, size_t row)
{
    const int big = (size_t)n * row >= ((size_t)1 << 20);
#pragma omp parallel for schedule(static) num_threads(e->threads) if (big)
    for (int y = 0; y < n; y++)
        memcpy((char *)to + (size_t)y * to_step, (const char *)from + (size_t)y * from_step, row);
}

/* Wait for slot `k`'s sub-chunk and copy its output rows to `out` (rows of
 * chunk `c`). */
static winent_status stage_drain(winent_engine *e, int k, const winent_chunk *c, float *out,
                                 size_t out_stride)
{
    stage_slot *s = &e->stage[k];
    if (s->y0 == s->y1)
        return WINENT_OK;
    const int y0 = s->y0, n = s->y1 - s->y0;
    s->y0 = s->y1 = 0;
    WINENT_TRY(winent_gpu_engine_wait(e->gpu, k, &e->err));
    const size_t row = (size_t)c->width * sizeof(float);
    copy_rows(e, out + (size_t)(y0 - c->y0) * out_stride, out_stride * sizeof(float), s->out, row,
              n, row);
    return WINENT_OK;
}

/* Copy the input rows of output rows [y0, y1) of chunk `c` to slot `k`'s
 * staging and start them on the GPU. */
static winent_status stage_submit(winent_engine *e, int k, const winent_chunk *c, int y0, int y1)
{
    stage_slot *s = &e->stage[k];
    const size_t ss = winent_dtype_size(e->plan->opts.dtype), row = (size_t)c->width * ss;
    int in_y0, in_h;
    winent_chunk_input_rows(y0, y1, e->plan->ry, c->height, &in_y0, &in_h);
    copy_rows(e, s->in, row, (const char *)c->rows + (size_t)(in_y0 - c->in_y0) * c->row_bytes,
              c->row_bytes, in_h, row);
    const winent_chunk sub = {s->in, row, c->width, c->height, in_y0, in_h, y0, y1};
    WINENT_TRY(winent_gpu_engine_submit(e->gpu, k, &sub, s->out, (size_t)c->width, &e->err));
    s->y0 = y0;
    s->y1 = y1;
    return WINENT_OK;
}

/* The GPU kind's chunk: sub-chunks of stage_rows through the slots in
 * turn; while the GPU computes one, the threads copy the next one's input
 * in and an earlier one's output out. After a failure the slots still in
 * flight are waited for (their results dropped), so the engine stays
 * usable. */
static winent_status staged_compute(winent_engine *e, const winent_chunk *c, float *out,
                                    size_t out_stride)
{
    winent_status st = WINENT_OK;
    int next = c->y0;
    for (int k = 0;; k = (k + 1) % STAGE_SLOTS) {
        WINENT_TRY_GOTO(st, stage_drain(e, k, c, out, out_stride));
        if (next < c->y1) {
            const int y1 = c->y1 - next > e->stage_rows ? next + e->stage_rows : c->y1;
            WINENT_TRY_GOTO(st, stage_submit(e, k, c, next, y1));
            next = y1;
            continue;
        }
        int busy = 0;
        for (int i = 0; i < STAGE_SLOTS; i++)
            busy |= e->stage[i].y0 != e->stage[i].y1;
        if (!busy)
            return WINENT_OK;
    }
fail:
    for (int i = 0; i < STAGE_SLOTS; i++)
        if (e->stage[i].y0 != e->stage[i].y1) {
            winent_err ignored;
            winent_err_clear(&ignored);
            e->stage[i].y0 = e->stage[i].y1 = 0;
            winent_gpu_engine_wait(e->gpu, i, &ignored);
        }
    return st;
}

winent_status winent_engine_compute(winent_engine *e, const void *rows, size_t row_bytes, int width,
                                    int height, int in_y0, int in_h, int y0, int y1, float *out,
                                    size_t out_stride)
{
    if (e == NULL)
        return WINENT_ERR_USAGE; /* no engine to hold the message */
    const winent_chunk c = {rows, row_bytes, width, height, in_y0, in_h, y0, y1};
    int need_y0, need_h;
    winent_chunk_input_rows(y0, y1, e->plan->ry, height, &need_y0, &need_h);
    winent_status st;
    winent_err_clear(&e->err);
    if (y0 < y1 && (rows == NULL || out == NULL))
        st = WINENT_ERR(&e->err, WINENT_ERR_USAGE, "winent_engine_compute: %s is NULL",
                        rows == NULL ? "rows" : "out");
    else if (y0 < 0 || y1 > height || y0 > y1 || need_y0 < in_y0 || need_y0 + need_h > in_y0 + in_h)
        st = WINENT_ERR(&e->err, WINENT_ERR_USAGE,
                        "rows [%d, %d) need input rows [%d, %d), got [%d, %d)", y0, y1, need_y0,
                        need_y0 + need_h, in_y0, in_y0 + in_h);
    else if (e->kind == WINENT_ENGINE_CPU)
        st = winent_cpu_engine_compute(e->cpu, &c, out, out_stride, &e->err);
    else if (e->kind == WINENT_ENGINE_GPU)
        st = width > e->max_width
                 ? WINENT_ERR(&e->err, WINENT_ERR_USAGE,
                              "winent_engine_compute: %d columns, the engine takes %d", width,
                              e->max_width)
                 : staged_compute(e, &c, out, out_stride);
    else
        st = winent_reference_compute(e->plan, &c, out, out_stride, &e->err);
    return winent_err_export(&e->err, st, &e->pub);
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
    winent_cpu_engine_free(e->cpu);
    winent_gpu_engine_free(e->gpu);
    for (int i = 0; i < STAGE_SLOTS; i++) {
        winent_cuda_host_free(e->stage[i].in);
        winent_cuda_host_free(e->stage[i].out);
    }
    winent_plan_free(e->plan);
    free(e);
}
