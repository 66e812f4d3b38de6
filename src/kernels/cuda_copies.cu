/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cuda_copies.cu - several GPUs' copy engines timed at once
 * (winent_cuda_time_copies, cuda_copies.h).
 */
#include <cuda_runtime.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

extern "C" {
#include "cuda_copies.h"
}

namespace {

struct part_run {
    const winent_copy_part *part;
    size_t piece;
    pthread_barrier_t *ready, *go;
    cudaError_t ce;
    const char *what;
    double end_s;
};

double now_s()
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#define COPY_TRY(call)                                                                         \
    do {                                                                                       \
        cudaError_t ce_ = (call);                                                              \
        if (ce_ != cudaSuccess && r->ce == cudaSuccess) {                                      \
            r->ce = ce_;                                                                       \
            r->what = #call;                                                                   \
        }                                                                                      \
    } while (0)

void *run_part(void *arg)
{
    part_run *r = (part_run *)arg;
    const winent_copy_part *p = r->part;
    void *d_in[2] = {NULL, NULL}, *d_out[2] = {NULL, NULL};
    cudaStream_t up = NULL, down = NULL;
    COPY_TRY(cudaSetDevice(p->device));
    for (int i = 0; i < 2; i++) {
        COPY_TRY(cudaMalloc(&d_in[i], r->piece));
        COPY_TRY(cudaMalloc(&d_out[i], r->piece));
    }
    COPY_TRY(cudaStreamCreateWithFlags(&up, cudaStreamNonBlocking));
    COPY_TRY(cudaStreamCreateWithFlags(&down, cudaStreamNonBlocking));
    COPY_TRY(cudaDeviceSynchronize());
    pthread_barrier_wait(r->ready);
    pthread_barrier_wait(r->go);
    if (r->ce == cudaSuccess) {
        size_t k = 0;
        for (size_t at = 0; at < p->in_bytes; at += r->piece, k++) {
            size_t n = p->in_bytes - at < r->piece ? p->in_bytes - at : r->piece;
            COPY_TRY(cudaMemcpyAsync(d_in[k & 1], (const char *)p->in + at, n,
                                     cudaMemcpyHostToDevice, up));
        }
        k = 0;
        for (size_t at = 0; at < p->out_bytes; at += r->piece, k++) {
            size_t n = p->out_bytes - at < r->piece ? p->out_bytes - at : r->piece;
            COPY_TRY(cudaMemcpyAsync((char *)p->out + at, d_out[k & 1], n,
                                     cudaMemcpyDeviceToHost, down));
        }
        COPY_TRY(cudaStreamSynchronize(up));
        COPY_TRY(cudaStreamSynchronize(down));
    }
    r->end_s = now_s();
    if (up)
        cudaStreamDestroy(up);
    if (down)
        cudaStreamDestroy(down);
    for (int i = 0; i < 2; i++) {
        cudaFree(d_in[i]);
        cudaFree(d_out[i]);
    }
    return NULL;
}

} // namespace

extern "C" winent_status winent_cuda_time_copies(const winent_copy_part *parts, int nparts,
                                                 size_t piece, double *seconds, winent_err *err)
{
    enum { MAX_PARTS = 64 };
    *seconds = 0;
    if (nparts < 1 || nparts > MAX_PARTS || piece == 0)
        return WINENT_ERR(err, WINENT_ERR_USAGE, "copy set: %d parts, piece %zu", nparts, piece);
    part_run runs[MAX_PARTS];
    pthread_t th[MAX_PARTS];
    pthread_barrier_t ready, go;
    pthread_barrier_init(&ready, NULL, (unsigned)nparts + 1);
    pthread_barrier_init(&go, NULL, (unsigned)nparts + 1);
    int started = 0;
    for (int i = 0; i < nparts; i++) {
        memset(&runs[i], 0, sizeof runs[i]);
        runs[i].part = &parts[i];
        runs[i].piece = piece;
        runs[i].ready = &ready;
        runs[i].go = &go;
        runs[i].ce = cudaSuccess;
        if (pthread_create(&th[i], NULL, run_part, &runs[i]) != 0)
            break;
        started++;
    }
    winent_status st = WINENT_OK;
    if (started < nparts) {
        /* The barriers count every part: nothing can be timed. Threads
         * already started wait forever, so this is fatal to the caller. */
        pthread_barrier_destroy(&ready);
        return WINENT_ERR(err, WINENT_ERR_INTERNAL, "copy set: cannot start thread %d", started);
    }
    pthread_barrier_wait(&ready);
    double t0 = now_s();
    pthread_barrier_wait(&go);
    double end = t0;
    for (int i = 0; i < nparts; i++) {
        pthread_join(th[i], NULL);
        if (runs[i].end_s > end)
            end = runs[i].end_s;
        if (runs[i].ce != cudaSuccess && st == WINENT_OK)
            st = WINENT_ERR(err, WINENT_ERR_DEVICE, "GPU %d: %s: %s", parts[i].device,
                            runs[i].what, cudaGetErrorString(runs[i].ce));
    }
    pthread_barrier_destroy(&ready);
    pthread_barrier_destroy(&go);
    *seconds = end - t0;
    return st;
}

/* Page-locked host memory all through: the attributes of its first and
 * last byte and of a byte every 64 MiB between say host (page-locked) with
 * one offset between host and device addresses (one registered range, or
 * ranges laid out as one), else it is not taken as pinned. */
extern "C" int winent_cuda_host_pinned(const void *p, size_t bytes)
{
    if (p == NULL || bytes == 0)
        return 0;
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        cudaGetLastError();
        return 0;
    }
    const char *first = (const char *)p;
    const size_t step = (size_t)64 << 20;
    ptrdiff_t offset = 0;
    for (size_t at = 0;; at = at + step < bytes - 1 ? at + step : bytes - 1) {
        cudaPointerAttributes a;
        if (cudaPointerGetAttributes(&a, first + at) != cudaSuccess) {
            cudaGetLastError();
            return 0;
        }
        if (a.type != cudaMemoryTypeHost || a.devicePointer == NULL)
            return 0;
        ptrdiff_t o = (const char *)a.devicePointer - (first + at);
        if (at == 0)
            offset = o;
        else if (o != offset)
            return 0;
        if (at == bytes - 1)
            return 1;
    }
}
