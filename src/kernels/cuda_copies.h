/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cuda_copies.h - what the copy engines of several GPUs move at once, for
 * `winent-bench hostpath`: the bound a job's host path has under it.
 */
#ifndef WINENT_CUDA_COPIES_H
#define WINENT_CUDA_COPIES_H

#include <stddef.h>

#include "../base/werr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One GPU's part of a copy set: `in_bytes` from host memory `in` to the
 * device, `out_bytes` from the device to host memory `out` (both pinned,
 * from winent_cuda_host_alloc), each in pieces of `piece` bytes cycled
 * through two device buffers, the two directions on two streams. */
typedef struct winent_copy_part {
    int device; /* CUDA ordinal */
    const void *in;
    size_t in_bytes;
    void *out;
    size_t out_bytes;
} winent_copy_part;

/* Run every part at once (one host thread per part, each started behind a
 * barrier once its device is set up) and give the wall seconds from the
 * barrier to the last part's end. */
winent_status winent_cuda_time_copies(const winent_copy_part *parts, int nparts, size_t piece,
                                      double *seconds, winent_err *err);

/* 1 when all of [p, p + bytes) is page-locked host memory the GPUs' copy
 * engines reach (winent_cuda_host_alloc, cudaHostAlloc, cudaHostRegister),
 * so a job may copy to and from it directly; 0 for pageable memory, in a
 * build without CUDA, or where no GPU is usable.
 * Brings up CUDA's driver: ask only in a job that runs on the GPUs. */
int winent_cuda_host_pinned(const void *p, size_t bytes);

#ifdef __cplusplus
}
#endif
#endif
