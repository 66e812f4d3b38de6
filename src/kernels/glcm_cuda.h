/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * glcm_cuda.h - the co-occurrence measures on one GPU: the same slide as
 * the CPU engine (glcm_slide.h), one thread per segment of an output row,
 * each with its own histograms in a global workspace; the same bits as
 * winent_glcm_cpu_compute. Without CUDA (glcm_cuda_none.c) create says so.
 */
#ifndef WINENT_GLCM_CUDA_H
#define WINENT_GLCM_CUDA_H

#include "glcm.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct winent_glcm_cuda winent_glcm_cuda;

/* Device `device`'s engine for chunks at most `max_width` wide and
 * `max_in_rows` input rows tall. The plan is borrowed. WINENT_ERR_DEVICE
 * where no GPU (or no CUDA build) is there. */
winent_status winent_glcm_cuda_create(const winent_glcm_plan *p, int device, int max_width,
                                      int max_in_rows, winent_glcm_cuda **out, winent_err *err);

/* Output rows [c->y0, c->y1) of the chunk, plane k at out[k], rows
 * `out_stride` floats apart (host memory). One caller at a time. */
winent_status winent_glcm_cuda_compute(winent_glcm_cuda *e, const winent_chunk *c,
                                       float *const *out, size_t out_stride, winent_err *err);

/* The benchmark's: the median of `reps` runs (after `warmup`) of the kernel
 * alone over the chunk (its levels copied over once), in milliseconds;
 * then the first plane's rows [0, rows) of the last run, `width` apart. */
winent_status winent_glcm_cuda_time_kernel(winent_glcm_cuda *e, const winent_chunk *c,
                                           int warmup, int reps, double *median_ms,
                                           winent_err *err);
winent_status winent_glcm_cuda_fetch(winent_glcm_cuda *e, int width, int rows, float *out,
                                     winent_err *err);

void winent_glcm_cuda_free(winent_glcm_cuda *e);

#ifdef __cplusplus
}
#endif

#endif
