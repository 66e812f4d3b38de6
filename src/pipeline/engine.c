/* SPDX-License-Identifier: BSD-3-Clause */
/* The public engine facade: one chunk through the CPU, GPU or reference
 * engine (winent.h, "Engines"). */
#include <stdlib.h>
#include <string.h>

#include "kernels/engine_cpu.h"
#include "kernels/engine_cuda.h"
#include "kernels/engine_reference.h"
#include "winent.h"

#ifdef _OPENMP
#include <omp.h>
#endif

struct winent_engine {
    winent_engine_kind kind;
    winent_plan *plan;           /* owned */
    winent_cpu_engine *cpu;      /* owned, CPU kind */
    winent_gpu_engine *gpu;      /* owned, GPU kind */
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
    WINENT_TRY_GOTO(st, winent_plan_create(o, &e->plan, &e->err));
    if (kind == WINENT_ENGINE_CPU)
        WINENT_TRY_GOTO(st, winent_cpu_engine_create(e->plan, max_width, max_in_rows,
                                                     threads > 0 ? threads : default_threads(),
                                                     &e->cpu, &e->err));
    else if (kind == WINENT_ENGINE_GPU)
        WINENT_TRY_GOTO(st, winent_gpu_engine_create(e->plan, device, max_width, max_in_rows, 1,
                                                     &e->gpu, &e->err));
    *out = e;
    return winent_err_export(NULL, WINENT_OK, err);
fail:
    winent_err_export(&e->err, st, err);
    winent_engine_free(e);
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
        st = winent_gpu_engine_compute(e->gpu, &c, out, out_stride, &e->err);
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
    winent_plan_free(e->plan);
    free(e);
}
