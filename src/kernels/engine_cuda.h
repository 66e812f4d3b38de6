/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_cuda.h - the CUDA engine: the kernel contract on one GPU, with
 * chunks in flight on several streams (H2D -> kernel -> D2H per chunk on
 * one stream). Plain C: no CUDA types cross this header.
 *
 * Built from engine_cuda.cu when CUDA is available, else from
 * engine_cuda_none.c, where the device count is 0 and creation fails with
 * WINENT_ERR_DEVICE.
 *
 * Tests can make creation or the Nth submit fail as a CUDA error would:
 * WINENT_FAULT_INJECT=create or submit:N (engine_cuda.cu, "Fault injection").
 */
#ifndef WINENT_ENGINE_CUDA_H
#define WINENT_ENGINE_CUDA_H

#include <stddef.h>

#include "chunk.h"
#include "cuda_visible.h"
#include "entropy_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct winent_gpu_engine winent_gpu_engine;

/* What the CUDA engine was built with (--version); needs no GPU. Returns
 * 1 in a CUDA build, 0 without CUDA. *runtime: the CUDA runtime linked, as
 * cudaRuntimeGetVersion gives it (12040 for 12.4; 0 when unknown or without
 * CUDA); *archs: the architectures compiled, as nvcc's __CUDA_ARCH_LIST__
 * ("700,800,900"; "" when unknown or without CUDA), static. Thread-safe. */
int winent_cuda_build_info(int *runtime, const char **archs);

/* Usable CUDA devices: 0 when cudaGetDeviceCount fails for any reason
 * (no driver, no device) or when built without CUDA. */
int winent_cuda_device_count(void);

/* ---- Starting only the GPUs a process uses ----------------------------
 * CUDA starts every device it sees at its first call (about 1 s for four
 * H200s against 0.2-0.3 s for one). A program that will use only the
 * host's GPUs `gpus` (n of them; numbers as the host counts them, within
 * any CUDA_VISIBLE_DEVICES the process was given) calls this before its
 * first CUDA call: CUDA_VISIBLE_DEVICES is set to them. Every function
 * here goes on taking and reporting the host's numbers (GPU 2 stays
 * "GPU 2"), mapped to CUDA's own inside. Returns 1 when set; 0 when set
 * already, or a GPU named is not the process's (nothing changes: the job
 * reports it). If CUDA had started before anyway, the first device count
 * finds every GPU and the numbers stay the host's. Process-wide, as
 * CUDA's device list is: one thread, before any other CUDA use. */
int winent_cuda_limit_devices(const int *gpus, int n);

/* 1 when host GPU `device` is there and this process sees it. */
int winent_cuda_device_usable(int device);

/* The host's number of CUDA's device `ordinal` (0 .. count - 1). */
int winent_cuda_host_device(int ordinal);

/* "NVIDIA H100 80GB HBM3" or the like; WINENT_ERR_DEVICE when not usable. */
winent_status winent_cuda_device_name(int device, char *buf, size_t n, winent_err *err);

/* An engine on `device` with `slots` chunks in flight (one stream each),
 * sized for chunks of at most max_width x max_in_rows input pixels. The
 * plan is borrowed. Errors: WINENT_ERR_DEVICE with the CUDA call and its
 * error string. */
winent_status winent_gpu_engine_create(const winent_plan *p, int device, int max_width,
                                       int max_in_rows, int slots, winent_gpu_engine **out,
                                       winent_err *err);

/* One engine for the n maps of plans that winent_cpu_engine_can_share
 * (the co-occurrence measures of one window; the caller checks): one
 * pass counts each window's pairs for all of them, plane k the map of
 * plans[k], the bits of each one's own engine. n == 1:
 * winent_gpu_engine_create. */
winent_status winent_gpu_engine_create_shared(const winent_plan *const *plans, int n, int device,
                                              int max_width, int max_in_rows, int slots,
                                              winent_gpu_engine **out, winent_err *err);

/* The maps an engine computes at once (1 but for a shared one). */
int winent_gpu_engine_planes(const winent_gpu_engine *e);

int winent_gpu_engine_slots(const winent_gpu_engine *e);

/* Enqueue chunk `c` on `slot` (which must be idle): input rows to the
 * device, kernel, output rows [c->y0, c->y1) back to `out` (stride
 * `out_stride` floats). Returns at once; `c->rows` and `out` must stay
 * valid until winent_gpu_engine_wait on that slot. Host memory from
 * winent_cuda_host_alloc makes the copies asynchronous. One thread at a
 * time submits to and waits on an engine. */
winent_status winent_gpu_engine_submit(winent_gpu_engine *e, int slot, const winent_chunk *c,
                                       float *out, size_t out_stride, winent_err *err);

/* winent_gpu_engine_submit for an engine of `nplanes` maps
 * (winent_gpu_engine_planes): map k into planes[k]. */
winent_status winent_gpu_engine_submit_planes(winent_gpu_engine *e, int slot,
                                              const winent_chunk *c, float *const *planes,
                                              int nplanes, size_t out_stride, winent_err *err);

/* Wait for the slot's chunk to be in `out`. */
winent_status winent_gpu_engine_wait(winent_gpu_engine *e, int slot, winent_err *err);

/* As winent_gpu_engine_wait, the calling thread sleeping on the slot's
 * event until its copies are done, rather than spinning on the stream: for
 * callers whose other threads want the cores meanwhile (the public
 * engine's band copies). Different slots may be waited for from different
 * threads at once. */
winent_status winent_gpu_engine_wait_sleep(winent_gpu_engine *e, int slot, winent_err *err);

/* submit + wait on slot 0. */
winent_status winent_gpu_engine_compute(winent_gpu_engine *e, const winent_chunk *c, float *out,
                                        size_t out_stride, winent_err *err);

void winent_gpu_engine_free(winent_gpu_engine *e);

/* Pinned (page-locked) host memory; plain malloc when no GPU is usable.
 * Free with winent_cuda_host_free only. */
void *winent_cuda_host_alloc(size_t bytes);
void winent_cuda_host_free(void *p);

/* Pin existing host memory for every GPU (cudaHostRegister, portable), so
 * copies from and to it run asynchronously; 0 on success, -1 when it
 * cannot be pinned (no GPU, no CUDA build, a refusal): it stays usable,
 * with slower copies. Unregister before freeing it. NULL is ignored. */
int winent_cuda_host_register(void *p, size_t bytes);
void winent_cuda_host_unregister(void *p);

/* Reset GPU `device`'s primary context (cudaDeviceReset): every allocation,
 * stream and pinning made in it ends. For a process that uses the device
 * for nothing else, once it is done with it: the context's teardown then
 * happens now, on the calling thread, rather than in the process's exit.
 * A CUDA call on the device afterwards makes a new context. */
void winent_cuda_device_release(int device);


/* ---- Measurements (winent-bench gpu, tests) -------------------------------- */

/* Short name of the window kernel the engine picked from its plan
 * ("smem-hist/code8/cnt8", "hash-smem/code16/slots64", ...). */
const char *winent_gpu_engine_path(const winent_gpu_engine *e);

/* Kernel-only time of chunk `c`: its samples are copied to slot 0 once,
 * then the kernels (codes pass and window kernel) run `warmup` + `reps`
 * times, each timed with CUDA events; *median_ms is the median of the
 * timed runs. The output stays on the device (winent_gpu_engine_fetch_output
 * copies it back). Not to be mixed with submit/wait on slot 0. */
winent_status winent_gpu_engine_time_kernel(winent_gpu_engine *e, const winent_chunk *c,
                                            int warmup, int reps, double *median_ms,
                                            winent_err *err);

/* Copy slot 0's `width` x `rows` output rows to `out` (packed). */
winent_status winent_gpu_engine_fetch_output(winent_gpu_engine *e, int width, int rows, float *out,
                                             winent_err *err);

/* Copy bandwidths of one device in GB/s (1e9 bytes per second), each the
 * median of `reps` copies of `bytes` between pinned host memory and the
 * device: host to device, device to host, both at once on two streams
 * (bytes of both copies), and device to device (bytes read + written). */
typedef struct winent_cuda_bandwidth {
    double h2d, d2h, both, d2d;
} winent_cuda_bandwidth;

/* Bring up `device`'s context (cudaSetDevice, cudaFree(0)): what every
 * first use of a GPU costs before any work (winent-bench gpu-init). */
winent_status winent_cuda_context_init(int device, winent_err *err);

winent_status winent_cuda_measure_bandwidth(int device, size_t bytes, int reps,
                                            winent_cuda_bandwidth *bw, winent_err *err);

#ifdef __cplusplus
}
#endif
#endif
