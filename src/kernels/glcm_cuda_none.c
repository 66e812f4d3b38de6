/* SPDX-License-Identifier: BSD-3-Clause */
/* glcm_cuda_none.c - the GLCM GPU engine of a build without CUDA. */
#include "glcm_cuda.h"

winent_status winent_glcm_cuda_create(const winent_glcm_plan *p, int device, int max_width,
                                      int max_in_rows, winent_glcm_cuda **out, winent_err *err)
{
    (void)p;
    (void)device;
    (void)max_width;
    (void)max_in_rows;
    *out = NULL;
    return WINENT_ERR(err, WINENT_ERR_DEVICE, "this build has no CUDA: the GLCM measures run on the CPU");
}

winent_status winent_glcm_cuda_compute(winent_glcm_cuda *e, const winent_chunk *c,
                                       float *const *out, size_t out_stride, winent_err *err)
{
    (void)e;
    (void)c;
    (void)out;
    (void)out_stride;
    return WINENT_ERR(err, WINENT_ERR_DEVICE, "this build has no CUDA");
}

winent_status winent_glcm_cuda_time_kernel(winent_glcm_cuda *e, const winent_chunk *c,
                                           int warmup, int reps, double *median_ms,
                                           winent_err *err)
{
    (void)e;
    (void)c;
    (void)warmup;
    (void)reps;
    *median_ms = 0.0;
    return WINENT_ERR(err, WINENT_ERR_DEVICE, "this build has no CUDA");
}

winent_status winent_glcm_cuda_fetch(winent_glcm_cuda *e, int width, int rows, float *out,
                                     winent_err *err)
{
    (void)e;
    (void)width;
    (void)rows;
    (void)out;
    return WINENT_ERR(err, WINENT_ERR_DEVICE, "this build has no CUDA");
}

void winent_glcm_cuda_free(winent_glcm_cuda *e) { (void)e; }
