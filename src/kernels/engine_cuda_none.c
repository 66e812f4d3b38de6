/* SPDX-License-Identifier: BSD-3-Clause */
/* The CUDA engine's face in a build without CUDA: no device is usable. */
#include <stdlib.h>

#include "engine_cuda.h"

int winent_cuda_build_info(int *runtime, const char **archs)
{
    *runtime = 0;
    *archs = "";
    return 0;
}

int winent_cuda_limit_devices(const int *gpus, int n)
{
    (void)gpus, (void)n;
    return 0;
}

int winent_cuda_device_usable(int device)
{
    (void)device;
    return 0;
}

int winent_cuda_host_device(int ordinal)
{
    return ordinal;
}

int winent_cuda_device_count(void)
{
    return 0;
}

winent_status winent_cuda_device_name(int device, char *buf, size_t n, winent_err *err)
{
    (void)device;
    if (n)
        buf[0] = '\0';
    return WINENT_ERR(err, WINENT_ERR_DEVICE, "this winent-stream was built without CUDA");
}

winent_status winent_gpu_engine_create(const winent_plan *p, int device, int max_width,
                                       int max_in_rows, int slots, winent_gpu_engine **out,
                                       winent_err *err)
{
    (void)p, (void)device, (void)max_width, (void)max_in_rows, (void)slots;
    *out = NULL;
    return WINENT_ERR(err, WINENT_ERR_DEVICE, "this winent-stream was built without CUDA");
}

int winent_gpu_engine_slots(const winent_gpu_engine *e)
{
    (void)e;
    return 0;
}

winent_status winent_gpu_engine_create_shared(const winent_plan *const *plans, int n, int device,
                                              int max_width, int max_in_rows, int slots,
                                              winent_gpu_engine **out, winent_err *err)
{
    (void)plans, (void)n, (void)device, (void)max_width, (void)max_in_rows, (void)slots;
    *out = NULL;
    return WINENT_ERR(err, WINENT_ERR_DEVICE, "this winent-stream was built without CUDA");
}

int winent_gpu_engine_planes(const winent_gpu_engine *e)
{
    (void)e;
    return 1;
}

winent_status winent_gpu_engine_submit_planes(winent_gpu_engine *e, int slot,
                                              const winent_chunk *c, float *const *planes,
                                              int nplanes, size_t out_stride, winent_err *err)
{
    (void)e, (void)slot, (void)c, (void)planes, (void)nplanes, (void)out_stride;
    return WINENT_ERR(err, WINENT_ERR_DEVICE, "this winent-stream was built without CUDA");
}

winent_status winent_gpu_engine_submit(winent_gpu_engine *e, int slot, const winent_chunk *c,
                                       float *out, size_t out_stride, winent_err *err)
{
    (void)e, (void)slot, (void)c, (void)out, (void)out_stride;
    return WINENT_ERR(err, WINENT_ERR_DEVICE, "this winent-stream was built without CUDA");
}

winent_status winent_gpu_engine_wait(winent_gpu_engine *e, int slot, winent_err *err)
{
    (void)e, (void)slot;
    return WINENT_ERR(err, WINENT_ERR_DEVICE, "this winent-stream was built without CUDA");
}

winent_status winent_gpu_engine_wait_sleep(winent_gpu_engine *e, int slot, winent_err *err)
{
    return winent_gpu_engine_wait(e, slot, err);
}

winent_status winent_gpu_engine_compute(winent_gpu_engine *e, const winent_chunk *c, float *out,
                                        size_t out_stride, winent_err *err)
{
    (void)e, (void)c, (void)out, (void)out_stride;
    return WINENT_ERR(err, WINENT_ERR_DEVICE, "this winent-stream was built without CUDA");
}

void winent_gpu_engine_free(winent_gpu_engine *e)
{
    (void)e;
}

void *winent_cuda_host_alloc(size_t bytes)
{
    return malloc(bytes ? bytes : 1);
}

winent_status winent_cuda_context_init(int device, winent_err *err)
{
    return WINENT_ERR(err, WINENT_ERR_DEVICE, "GPU %d: this build has no CUDA engine", device);
}

int winent_cuda_host_register(void *p, size_t bytes)
{
    (void)bytes;
    return p == NULL ? 0 : -1;
}

void winent_cuda_host_unregister(void *p)
{
    (void)p;
}

void winent_cuda_device_release(int device)
{
    (void)device;
}

void winent_cuda_host_free(void *p)
{
    free(p);
}

const char *winent_gpu_engine_path(const winent_gpu_engine *e)
{
    (void)e;
    return "";
}

winent_status winent_gpu_engine_time_kernel(winent_gpu_engine *e, const winent_chunk *c,
                                            int warmup, int reps, double *median_ms,
                                            winent_err *err)
{
    (void)e, (void)c, (void)warmup, (void)reps;
    *median_ms = 0;
    return WINENT_ERR(err, WINENT_ERR_DEVICE, "this winent-stream was built without CUDA");
}

winent_status winent_gpu_engine_fetch_output(winent_gpu_engine *e, int width, int rows, float *out,
                                             winent_err *err)
{
    (void)e, (void)width, (void)rows, (void)out;
    return WINENT_ERR(err, WINENT_ERR_DEVICE, "this winent-stream was built without CUDA");
}

winent_status winent_cuda_measure_bandwidth(int device, size_t bytes, int reps,
                                            winent_cuda_bandwidth *bw, winent_err *err)
{
    (void)device, (void)bytes, (void)reps;
    bw->h2d = bw->d2h = bw->both = bw->d2d = 0;
    return WINENT_ERR(err, WINENT_ERR_DEVICE, "this winent-stream was built without CUDA");
}
