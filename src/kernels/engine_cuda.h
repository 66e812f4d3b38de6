/*
 * engine_cuda.h - the CUDA engine: the kernel contract on one GPU, with
 * chunks in flight on several streams (H2D -> kernel -> D2H per chunk on
 * one stream). Plain C: no CUDA types cross this header.
 *
 * Built from engine_cuda.cu when CUDA is available, else from
 * engine_cuda_none.c, where the device count is 0 and creation fails with
 * WINENT_ERR_DEVICE.
 */
#ifndef WINENT_ENGINE_CUDA_H
#define WINENT_ENGINE_CUDA_H

#include <stddef.h>

#include "chunk.h"
#include "entropy_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct winent_gpu_engine winent_gpu_engine;

/* Usable CUDA devices: 0 when cudaGetDeviceCount fails for any reason
 * (no driver, no device) or when built without CUDA. */
int winent_cuda_device_count(void);

/* "NVIDIA H100 80GB HBM3" or the like; WINENT_ERR_DEVICE when not usable. */
winent_status winent_cuda_device_name(int device, char *buf, size_t n, winent_err *err);

/* An engine on `device` with `slots` chunks in flight (one stream each),
 * sized for chunks of at most max_width x max_in_rows input pixels. The
 * plan is borrowed. Errors: WINENT_ERR_DEVICE with the CUDA call and its
 * error string. */
winent_status winent_gpu_engine_create(const winent_plan *p, int device, int max_width,
                                       int max_in_rows, int slots, winent_gpu_engine **out,
                                       winent_err *err);

int winent_gpu_engine_slots(const winent_gpu_engine *e);

/* Enqueue chunk `c` on `slot` (which must be idle): input rows to the
 * device, kernel, output rows [c->y0, c->y1) back to `out` (stride
 * `out_stride` floats). Returns at once; `c->rows` and `out` must stay
 * valid until winent_gpu_engine_wait on that slot. Host memory from
 * winent_cuda_host_alloc makes the copies asynchronous. */
winent_status winent_gpu_engine_submit(winent_gpu_engine *e, int slot, const winent_chunk *c,
                                       float *out, size_t out_stride, winent_err *err);

/* Wait for the slot's chunk to be in `out`. */
winent_status winent_gpu_engine_wait(winent_gpu_engine *e, int slot, winent_err *err);

/* submit + wait on slot 0. */
winent_status winent_gpu_engine_compute(winent_gpu_engine *e, const winent_chunk *c, float *out,
                                        size_t out_stride, winent_err *err);

void winent_gpu_engine_free(winent_gpu_engine *e);

/* Pinned (page-locked) host memory; plain malloc when no GPU is usable.
 * Free with winent_cuda_host_free only. */
void *winent_cuda_host_alloc(size_t bytes);
void winent_cuda_host_free(void *p);

#ifdef __cplusplus
}
#endif
#endif
